// test: build
// target: avx2-i32x8
// Division and remainder by a uniform `1u << k` are a shift and a mask,
// on the masked path too (the divisor is not guarded: it is never 0); a
// divisor loaded per lane stays a division, guarded with 1 in the lanes
// that do not run it.
kernel void bitonic_index(global uint *out, global const uint *in, uint k, uint n) {
    uint i = get_global_id(0);
    if (i < n)
        out[i] = in[i] / (1u << k) + in[i] % (1u << k);
}

kernel void divide(global uint *out, global const uint *in, global const uint *d, uint n) {
    uint i = get_global_id(0);
    if (i < n)
        out[i] = in[i] / d[i];
}
// check: @bitonic_index_groups(
// not: udiv <8 x i32>
// not: urem <8 x i32>
// check: if.then.i$(b1=[\w.]*):
// check: $(x=%\d+) = tail call <8 x i32> @llvm.masked.load.v8i32.p0(
// nextln: lshr <8 x i32> $x, $(s=%\d+)
// nextln: and <8 x i32> $x, $(m=%\d+)
// check: = load <8 x i32>, ptr
// nextln: lshr <8 x i32>
// not: udiv <8 x i32>
// not: urem <8 x i32>
// check: @divide_groups(
// check: if.then.i$(d1=[\w.]*):
// check: $(d=%\d+) = select <8 x i1> $(mask=%\d+), <8 x i32> $(dl=%\d+), <8 x i32> <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>
// nextln: udiv <8 x i32> $(x=%\d+), $d
