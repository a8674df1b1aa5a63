// test: build
// target: avx2-i32x8
// A divergent loop's masks are `<8 x i32>` on AVX2 (no mask registers):
// as `<8 x i1>` LLVM keeps them packed into 16-bit lanes and unpacks them
// at every use (`vpackssdw`, `vpmovzxwd`, `vpslld` in each iteration of
// the escape loop below). No φ, `and` or select of `<8 x i1>` is left.
kernel void escape(global uint *out, global const float *c, uint max_iter) {
    int i = get_global_id(0);
    float z = 0.0f;
    uint it = 0;
    while (it < max_iter && z * z <= 4.0f) {
        z = z * z + c[i];
        it++;
    }
    out[i] = it;
}
// check: @escape_groups(
// not: phi <8 x i1>
// not: and <8 x i1>
// not: select <8 x i1> $(=%[\w.]+), <8 x i1>
// check: while.cond.i:
// check: $(live=%[\w.]+) = phi <8 x i32>
// not: phi <8 x i1>
// not: and <8 x i1>
// check: ret i32
