// test: build
// target: avx2-i32x8
// Signed `int` index arithmetic is `nsw` (its overflow is undefined), so
// the back end sign-extends `i * n + j` in 64 bits (`sext i * sext n +
// sext j`) and `(int)get_global_id(d)` is the id itself: each packed
// access's address is an `i64` sum LLVM can strength-reduce, with no
// `sext` of an `i32` sum per access (only `n`'s, once). A gather's index
// stays a sign-extended `<8 x i32>` (`vpgatherdd`). (`n` is frozen where
// the prefetch of the next row reads it, emit/prefetch.rs.)
kernel void rows(global float *out, global const float *in, int n) {
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= 1 && j < n)
        out[i * n + j] = in[(i - 1) * n + j] + in[i * n + j];
}
kernel void gathered(global float *out, global const float *in, global const int *idx) {
    int i = get_global_id(0);
    out[i] = in[idx[i] * 2 + 1];
}
// check: @rows_groups(
// check: sext i32 %$(=(2|\.fr[0-9a-z.]*)) to i64
// not: sext i32 %$(=\d\d+) to i64
// not: ashr exact i64
// check: @llvm.masked.load.v8f32.p0(ptr
// not: sext i32 %$(=\d\d+) to i64
// check: ret i32
// check: @gathered_groups(
// not: ashr exact i64
// check: sext <8 x i32> $(=%\d+) to <8 x i64>
// nextln: getelementptr i32, <8 x ptr>
// check: @llvm.masked.gather.v8f32.v8p0(
// check: ret i32
