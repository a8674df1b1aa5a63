// test: lower
// Signed `int` and `long` `+`, `-`, `*` (and `++`) overflow is undefined in
// OpenCL C (C99): the lowering marks their results `nsw`, which the back
// end uses to compute `sext` of an index in 64 bits. Unsigned arithmetic
// wraps and is never `nsw`; neither are shifts, divisions or bit
// operations.
kernel void signed_index(global float *out, global const float *in, int n) {
    int j = get_global_id(0);
    int i = get_global_id(1);
    out[i * n + j] = in[(i - 1) * n + j];
}
kernel void unsigned_index(global float *out, global const float *in, uint n) {
    uint j = get_global_id(0);
    uint i = get_global_id(1);
    out[i * n + j] = in[(i - 1) * n + j];
}
kernel void others(global long *out, long a, int b) {
    int k = b << 2;
    long s = a * b;
    for (int c = 0; c < b; c++)
        s += (b / 3) ^ c;
    out[0] = s + k;
}
// check: kernel @signed_index
// check: = get_global_id i64(i32 1)
// nextln: $(I=%\w+) = trunc i64
// check: = sub nsw i32 $I, i32 1
// check: = mul nsw i32
// check: = add nsw i32
// check: = sext i32
// check: = mul nsw i32 $I, %2
// check: = add nsw i32
// check: kernel @unsigned_index
// not: nsw
// check: = sub i32
// check: = mul i32
// check: = add i32
// not: nsw
// check: kernel @others
// check: = shl i32
// check: = mul nsw i64
// check: = sdiv i32
// check: = add nsw i64
// check: = add nsw i32 $(C=%\w+), i32 1
// check: = add nsw i64
