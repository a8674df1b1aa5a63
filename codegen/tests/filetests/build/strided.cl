// test: build
// target: avx2-i32x8
// Constant-stride access (`a[4 * i + k]`): in full SIMD groups one vector
// load of 32 floats per array and a shuffle per field, no gather; in the
// other groups a masked load of the span. An index loaded per lane
// (`a[idx[i]]`) stays a gather.
kernel void dot4(global float *out, global const float *a, global const float *b) {
    int i = get_global_id(0);
    out[i] = a[4 * i] * b[4 * i] + a[4 * i + 1] * b[4 * i + 1]
           + a[4 * i + 2] * b[4 * i + 2] + a[4 * i + 3] * b[4 * i + 3];
}

kernel void gather(global float *out, global const float *a, global const int *idx) {
    int i = get_global_id(0);
    out[i] = a[idx[i]];
}
// check: @dot4_groups(
// not: call <8 x float> @llvm.masked.gather
// check: shufflevector <32 x float> $(a=%\d+), <32 x float> poison, <8 x i32> <i32 3, i32 7, i32 11, i32 15, i32 19, i32 23, i32 27, i32 31>
// check: call <8 x float> @llvm.fma.v8f32(
// check: store <8 x float>
// check: strided.masked3.i$(m1=[\w.]*):
// check: call <32 x float> @llvm.masked.load.v32f32.p0(
// not: call <8 x float> @llvm.masked.gather
// check: @gather_groups(
// check: call <8 x float> @llvm.masked.gather.v8f32.v8p0(
// not: shufflevector <32 x float>
