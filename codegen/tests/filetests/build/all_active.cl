// test: build
// target: avx2-i32x8
// The all-active copy: the `i < n` mask is tested once with `all()`; in
// the copy for full SIMD groups the load and store are plain vector ones
// (no `vmaskmov`, slow on AMD), and only the other copy is masked (the
// copies' block names are not pinned: unswitching renames them).
kernel void scale(global float *out, global const float *in, int n) {
    int i = get_global_id(0);
    if (i < n)
        out[i] = in[i] * 2.0f;
}
// check: @scale_groups(
// check: call <8 x float> @llvm.masked.load.v8f32.p0(
// check: call void @llvm.masked.store.v8f32.p0(
// check: $(v=%[\w.]+) = load <8 x float>, ptr
// not: @llvm.masked
// check: store <8 x float>
// not: @llvm.masked
// check: scale.body_full.exit
