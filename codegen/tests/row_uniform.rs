//! What is the same for a whole row of SIMD groups leaves the loop over
//! them (docs/codegen.md, "Row-uniform branches out of the SIMD-group
//! loop"): in kernels without loops of their own, a branch on a value
//! uniform across the loop over SIMD groups (a test of `get_global_id(1)`,
//! a group id, a scalar argument) is unswitched out of it
//! (`codegen/src/lib.rs`, `unswitch_row_uniform`), and the lane vector of
//! `(int)get_global_id(0)` is built where it is used (`emit.rs`,
//! `lane_seq`), so the all-active path of a 2-D stencil reads only lane 0.
//! Kernels with such branches on either side, in 2-D and 3-D, with the
//! lane vector in selects, φs and across barriers, equal the interpreter
//! on every target this CPU runs.

mod common;

use common::*;

const SRC: &str = r#"
__kernel void rows(__global const float *A, __global float *B, int n)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
        B[i * n + j] = 0.5f * (A[(i - 1) * n + j] + A[(i + 1) * n + j - 1]);
}

// Effects on both sides of a row-uniform branch; the lane vector of `j`
// in a select and through a φ.
__kernel void both_sides(__global int *out, int n, int flag)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    int v;
    if (i % 2 == 0 && flag > 3)
        v = j < n ? j : -j;
    else
        v = (int)get_group_id(1) * 100 + j;
    out[i * (int)get_global_size(0) + j] = v;
}

// Planes and local rows: the test is uniform across a row of a band.
__kernel void planes(__global int *out, int k)
{
    int j = get_global_id(0);
    size_t at = (get_global_id(2) * get_global_size(1) + get_global_id(1))
                * get_global_size(0) + get_global_id(0);
    if (get_global_id(2) == 1 || get_local_id(1) == (size_t)k % 2)
        out[at] = j * 3 + (int)get_local_id(1);
    else if (j > k)
        out[at] = -j;
}

// The lane vector of `j` defined before a barrier and used after it.
__kernel void across_barrier(__global int *out, __local int *tile, int n)
{
    int j = get_global_id(0);
    int l = get_local_id(0);
    tile[l] = j;
    barrier(CLK_LOCAL_MEM_FENCE);
    int r = tile[(int)get_local_size(0) - 1 - l];
    out[j] = (j < n) ? r + j : r - j;
}
"#;

#[test]
fn row_uniform_branches_equal_the_interpreter() {
    let c = check_every_kernel("row_uniform.cl", SRC);
    assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
    eprintln!("{} launches compared", c.ran);
}

/// jacobi_2d's kernel, specialized as `lanes build` does it for W = 8.
const JACOBI: &str = r#"
__kernel void jacobi(__global const float *A, __global float *B, int n)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) {
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (j + 1)]
                               + A[(i + 1) * n + j] + A[(i - 1) * n + j]);
    }
}
"#;

fn specialized() -> String {
    specialized_w8("jacobi.cl", JACOBI, "jacobi")
}

#[test]
fn specialized_jacobi_equals_the_interpreter() {
    let c = check_every_kernel("jacobi.cl", &specialized());
    assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
}

/// One all-active iteration of jacobi_2d's SIMD-group loop (from the
/// unmasked store around the loop back to it) tests only the column:
/// `j >= 1`, `j < n - 8` and the loop's end (before: also the row's `i`
/// test, a 4th conditional jump; the streaming store's two tests aside),
/// and builds no lane vector of `j`
/// (`vpaddd` of the lane numbers; only the masked paths need it).
#[test]
fn the_row_test_and_the_lane_vector_leave_the_all_active_path() {
    let asm = groups_asm_avx2("jacobi.cl", &specialized(), "jacobi");
    let lines: Vec<&str> = asm
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with('#') && !l.starts_with(".loc") && !l.starts_with(".p2align"))
        .collect();
    let path = all_active_iteration(&asm, &lines);
    // The streaming store's run-time tests (the NDRange writes 16 MiB, lane
    // 0's address is 16-byte aligned) are not counted.
    let streaming_test = |l: &str| l.starts_with("cmpq\t$4194304,") || l.starts_with("andl\t$15,");
    let jumps = path
        .iter()
        .enumerate()
        .filter(|&(k, l)| {
            l.starts_with('j') && !l.starts_with("jmp") && !(k > 0 && streaming_test(path[k - 1]))
        })
        .count();
    assert!(
        jumps <= 3,
        "{jumps} conditional jumps on the all-active path:\n{}",
        path.join("\n")
    );
    assert!(
        path.iter().all(|l| !l.starts_with("vpadd")),
        "a lane vector built on the all-active path:\n{}",
        path.join("\n")
    );
}
