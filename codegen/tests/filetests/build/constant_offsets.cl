// test: build
// target: avx2-i32x8
// Lane 0's address of a packed access `base + 4 * sext(x)` whose widened
// index `x` adds constants (`i * n + (j - 1)`) is emitted as `(base + 4 *
// rest) + 4 * k` (emit.rs, `split_address`): the three loads of row `i`
// share one address and read it at byte offsets 0, -4 and 4. Widened
// whole, LLVM folded each constant into the row's loop-invariant part: a
// register and a reload from the stack per load.
kernel void five_point(global const float *A, global float *B, int n) {
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (j + 1)]
                               + A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}
// check: @five_point_groups(
// check: = load <8 x float>, ptr $(row=%\d+), align 4
// nextln: $(left=%\d+) = getelementptr i8, ptr $row, i64 -4
// nextln: = load <8 x float>, ptr $left, align 4
// check: $(right=%\d+) = getelementptr i8, ptr $row, i64 4
// nextln: = load <8 x float>, ptr $right, align 4
