// test: build
// target: avx2-i32x8
// A gather indexes elements: `table[idx[i]]` is `&table[sext(idx)]`, an
// element GEP LLVM turns into one `vpgatherdd` with scale 4 (32-bit
// indices), not byte offsets `sext(idx) * 4`, which need 64-bit lanes
// (two `vpgatherqd`).
kernel void lookup(global float *out, global const float *table, global const int *idx, int n) {
    int i = get_global_id(0);
    if (i < n)
        out[i] = table[idx[i]];
}
// check: @lookup_groups(
// not: getelementptr i8, $(=(ptr|<8 x ptr>)) $(=%\w+), <8 x i64>
// check: getelementptr i32, <8 x ptr>
// check: @llvm.masked.gather.v8f32.v8p0(
// not: getelementptr i8, $(=(ptr|<8 x ptr>)) $(=%\w+), <8 x i64>
// check: ret i32
