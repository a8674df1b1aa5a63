//! `sub_group_any`/`_all` of a unit-stride index against a uniform bound,
//! answered from the first and last lane in scalars
//! (`codegen/src/emit/lane_range.rs`): the 2-D guard of jacobi_2d has no
//! vector compare left in its SIMD-group test, and kernels whose guards
//! compare in every direction, with the index on either side, falling
//! (stride -1) and in 64 bits, equal the interpreter on every target this
//! CPU runs, with full and partial SIMD groups and global offsets.

mod common;

use common::*;

const GUARDS: &str = r#"
__kernel void interior(__global const float *A, __global float *B, int n)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
        B[i * n + j] = 0.25f * (A[i * n + j - 1] + A[i * n + j + 1]
                                + A[(i - 1) * n + j] + A[(i + 1) * n + j]);
}

// The index on the right of the compare, and `>`/`<=`.
__kernel void bound_left(__global float *a, __global const float *b, int lo, int hi)
{
    int j = get_global_id(0);
    if (lo < j && hi >= j)
        a[j] = b[j] * 2.0f;
}

// A falling index: lane k holds n - 1 - j, lanes apart by -1.
__kernel void falling(__global float *a, __global const float *b, int n)
{
    int j = get_global_id(0);
    int r = n - 1 - j;
    if (r > 2 && r <= n)
        a[j] = b[j] + (float)r;
}

// Explicit sub-group votes, in 64 bits and in 32.
__kernel void votes(__global int *out, int n)
{
    int j = get_global_id(0);
    long g = (long)get_global_id(0);
    int all_lo = sub_group_all(j >= n);
    int any_lo = sub_group_any(j < n);
    int all_hi = sub_group_all(g <= (long)n + 4);
    int any_hi = sub_group_any(g > (long)n);
    out[j] = all_lo + 2 * any_lo + 4 * all_hi + 8 * any_hi;
}

// `(int)` of a 64-bit sum that wraps past INT_MAX inside the launch. `i`
// rises by one from a lane 0 that is a multiple of W (`x` is, and the
// constant 2^31 - 16), so the wrap falls between two SIMD groups and the
// ends of a group answer its votes; `k` (2^31 - 19) wraps inside a SIMD
// group, where they would not. The same in 64 bits with `L`.
__kernel void wrapped(__global int *out, int n)
{
    size_t x = get_group_id(0) * 16 + get_local_id(0);
    int i = (int)(x + 2147483632UL);
    int k = (int)(x + 2147483629UL);
    int lim = 2147483632 + (n & 15);
    long L = (long)(x + 0x7ffffffffffffff0UL);
    long lim64 = 0x7ffffffffffffff0L + (long)(n & 15);
    int r = sub_group_any(i < lim) + 2 * sub_group_all(i >= lim)
          + 4 * sub_group_any(k < lim) + 8 * sub_group_all(k >= lim)
          + 16 * sub_group_any(L < lim64) + 32 * sub_group_all(L >= lim64)
          + 64 * (i < lim);
    if (i < lim && i >= 2147483632)
        r += 128;
    out[get_global_id(0)] = r;
}
"#;

/// GUARDS with the fast paths `lanes build` adds (`if (sub_group_all(1 <=
/// j))` around the guard of `interior`, ...), for W = 8.
fn specialized() -> String {
    specialized_w8("lane_range.cl", GUARDS, "interior")
}

#[test]
fn guards_and_votes_equal_the_interpreter() {
    for src in [GUARDS.to_string(), specialized()] {
        let c = check_every_kernel("lane_range.cl", &src);
        assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
        eprintln!("{} launches compared", c.ran);
    }
}

/// The SIMD-group loop of a 2-D stencil, as `lanes build` specializes it,
/// tests its guards on scalars: the lines one all-active iteration runs
/// (from the unmasked store around the loop back to it) have no vector
/// compare or mask test (before: two 64-bit compares, a pack and
/// `vtestps` for the fast path's `1 <= j`, a compare, `vmovmskps` and
/// `cmp $255` for the copy's `j < w - 1`).
#[test]
fn the_stencil_guard_is_tested_on_scalars() {
    let asm = groups_asm_avx2("lane_range.cl", &specialized(), "interior");
    let lines: Vec<&str> = asm.lines().map(str::trim).collect();
    let path = all_active_iteration(&asm, &lines);
    for bad in [
        "vpcmpgt", "vpcmpeq", "vmovmsk", "vptest", "vtestps", "vpack",
    ] {
        assert!(
            path.iter().all(|l| !l.starts_with(bad)),
            "`{bad}` on the way to the all-active store:\n{}",
            path.join("\n")
        );
    }
    assert!(
        path.iter().any(
            |l| l.starts_with("vmovups\t") && l.contains("(%") && l.ends_with("%ymm7")
                || l.starts_with("vaddps\t") && l.contains("(%")
        ),
        "no unmasked load on the way:\n{}",
        path.join("\n")
    );
}
