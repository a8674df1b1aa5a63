//! Prefetch of the work-groups ahead (`codegen/src/emit/prefetch.rs`,
//! docs/codegen.md "Prefetch of the work-groups ahead"): in kernels whose
//! work-groups run one after another, and in stencils, a packed load from `__global` or
//! `__constant` memory whose address follows the group id through plain
//! arithmetic prefetches the same element of a later work-group, at least
//! 4 KiB ahead; other loads prefetch nothing.

mod common;

use common::*;

/// Kernels with barriers: the loads of each and how many prefetches they
/// should get are in [`prefetches_follow_the_group_id`]. Work-group sizes
/// and buffer ends are left to the harness's launches (partial SIMD groups,
/// work-groups that are not multiples of W).
const SRC: &str = r#"
__kernel void blocks(__global const float *in, __global float *out, int n)
{
    __local float t[64];
    int lid = get_local_id(0);
    int lsize = get_local_size(0);
    int i = get_group_id(0) * 2 * lsize + lid;
    float s = 0.0f;
    if (i < n)
        s = in[i];
    if (i + lsize < n)
        s += in[i + lsize];
    t[lid % 64] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        float a = 0.0f;
        for (int k = 0; k < min(lsize, 64); k++)
            a += t[k];
        out[get_group_id(0)] = a;
    }
}

__kernel __attribute__((reqd_work_group_size(16, 4, 1)))
void tiles(__global const float *in, __global float *out, int width, int height)
{
    __local float tile[4][16];
    int lx = get_local_id(0);
    int ly = get_local_id(1);
    int x = get_group_id(0) * 16 + lx;
    int y = get_group_id(1) * 4 + ly;
    float v = 0.0f;
    if (x < width && y < height)
        v = in[y * width + x];
    tile[ly][lx] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < width && y < height)
        out[y * width + x] = v + tile[ly][15 - lx];
}

__kernel void rows(__global const int *in, __global int *out, int pitch)
{
    __local int row[64];
    uint lid = get_local_id(0);
    row[lid % 64] = in[get_group_id(0) * pitch + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = row[lid % 64] + 1;
}

__kernel void divided(__global const int *in, __global int *out)
{
    __local int t[64];
    int lid = get_local_id(0);
    t[lid % 64] = in[(get_group_id(0) / 3) * get_local_size(0) + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[lid % 64] * 2;
}

__kernel void indirect(__global const int *in, __global const int *starts, __global int *out)
{
    __local int t[64];
    int lid = get_local_id(0);
    t[lid % 64] = in[starts[get_group_id(0)] + lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[lid % 64] - 1;
}

__kernel void same_every_group(__constant int *coef, __global int *out)
{
    __local int t[64];
    int lid = get_local_id(0);
    t[lid % 64] = coef[lid % 16];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[lid % 64] + 3;
}
"#;

/// Prefetching changes no result: every kernel equals the interpreter on
/// every target this machine runs.
#[test]
fn prefetching_kernels_match_the_interpreter() {
    let c = check_every_kernel("prefetch.cl", SRC);
    assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
    assert!(c.ran > 0, "nothing compared");
}

/// The kernel of `SRC` named `kernel`, alone, as avx2-i32x8 assembly of its
/// `_groups` function.
fn groups_asm(kernel: &str) -> String {
    groups_asm_avx2("one.cl", kernel_source(SRC, kernel), kernel)
}

fn prefetches(asm: &str) -> Vec<&str> {
    asm.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("prefetch"))
        .collect()
}

/// Loads whose address is the group id times a constant or a launch value
/// plus work-item terms are prefetched; one through a division, a load or
/// independent of the group id is not.
#[test]
fn prefetches_follow_the_group_id() {
    for k in ["blocks", "tiles", "rows"] {
        let asm = groups_asm(k);
        assert!(!prefetches(&asm).is_empty(), "{k}: no prefetch:\n{asm}");
    }
    // `tiles`: the next work-group in dimension 0 reads 64 bytes further
    // along the same rows; 64 of them ahead is 4 KiB, a constant offset.
    let (ir, _) = emit_avx2("tiles.cl", kernel_source(SRC, "tiles"), 2);
    assert!(ir.contains("@llvm.prefetch"), "tiles: no prefetch:\n{ir}");
    assert!(
        ir.lines()
            .any(|l| l.contains("getelementptr i8, ptr") && l.ends_with(", i64 4096")),
        "tiles: no address 4 KiB on:\n{ir}"
    );
    for k in ["divided", "indirect", "same_every_group"] {
        let asm = groups_asm(k);
        assert!(
            prefetches(&asm).is_empty(),
            "{k}: {:?}\n{asm}",
            prefetches(&asm)
        );
    }
}

/// bench/kernels/reduction.cl reads `in[i]` and `in[i + 256]` with `i =
/// get_group_id(0) * 512 + lid`: a work-group is 2 KiB on, so both loads
/// prefetch two work-groups ahead, 4 KiB, at constant offsets.
#[test]
fn reduction_prefetches_two_work_groups_ahead() {
    let src = include_str!("../../bench/kernels/reduction.cl");
    let asm = groups_asm_avx2("reduction.cl", src, "reduce_sum");
    let p = prefetches(&asm);
    assert!(
        p.iter().any(|l| l.contains("4096(")),
        "no prefetch 4 KiB ahead: {p:?}"
    );
}

/// Kernels without barriers run their work-groups row by row: a stencil
/// (an argument read at several addresses, the rows above and below)
/// prefetches, a kernel that reads each argument at one address leaves its
/// streams to the hardware's prefetchers.
#[test]
fn stencils_prefetch_and_streams_do_not() {
    let jacobi = include_str!("../../bench/kernels/jacobi_2d.cl");
    let asm = groups_asm_avx2("jacobi_2d.cl", jacobi, "jacobi_2d_step");
    assert!(!prefetches(&asm).is_empty(), "jacobi_2d_step: no prefetch");
    let triad = include_str!("../../bench/kernels/stream_triad.cl");
    let asm = groups_asm_avx2("stream_triad.cl", triad, "stream_triad");
    assert!(prefetches(&asm).is_empty(), "{:?}", prefetches(&asm));
}

/// Kernels without barriers or loops: in a 2-D launch their bands of
/// work-groups run global row by global row, so a load prefetches what the
/// work-item one row down reads; only the loads whose next row no other
/// load reads now (and no other prefetch covers within a cache line). A
/// 1-D stencil, whose address does not move with the row, prefetches the
/// work-groups ahead.
const ROWS_SRC: &str = r#"
__kernel void five_point(__global const float *A, __global float *B, int n)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (j + 1)]
                               + A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}

__kernel void tiled_rows(__global const float *in, __global float *out, int w, int h)
{
    int x = get_group_id(0) * get_local_size(0) + get_local_id(0);
    int y = get_group_id(1) * get_local_size(1) + get_local_id(1);
    if (x >= 1 && x < w - 1 && y >= 1 && y < h - 1)
        out[y * w + x] = in[(y - 1) * w + x] + in[(y + 1) * w + x] - in[y * w + x - 1];
}

__kernel void line(__global const float *in, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i >= 1 && i < n - 1)
        out[i] = in[i - 1] + in[i] + in[i + 1];
}
"#;

#[test]
fn row_prefetching_kernels_match_the_interpreter() {
    let c = check_every_kernel("rows.cl", ROWS_SRC);
    assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
    assert!(c.ran > 0, "nothing compared");
}

/// Calls of `llvm.prefetch` and vector loads of floats in the unoptimized
/// LLVM IR of `kernel` (every copy of the body emitted once).
fn prefetches_and_loads(kernel: &str) -> (usize, usize) {
    let (ir, _) = emit_avx2("rows.cl", kernel_source(ROWS_SRC, kernel), 0);
    let count = |pat: &str| ir.lines().filter(|l| l.contains(pat)).count();
    (
        count("call void @llvm.prefetch"),
        count("= load <8 x float>") + count("call <8 x float> @llvm.masked.load"),
    )
}

/// five_point reads rows `i - 1`, `i` (three columns) and `i + 1`: of
/// their next rows only `i + 2` is not read now, so one load in five
/// prefetches, in every copy of the body. tiled_rows, through the local
/// and group ids, the same with one in three.
#[test]
fn stencils_prefetch_only_the_row_they_do_not_read() {
    for (k, per) in [("five_point", 5), ("tiled_rows", 3)] {
        let (p, loads) = prefetches_and_loads(k);
        assert!(p > 0, "{k}: no prefetch");
        assert_eq!(p * per, loads, "{k}: {p} prefetches for {loads} loads");
    }
    // The 1-D stencil's address does not move with the row: its three
    // loads prefetch along the work-groups, each.
    let (p, loads) = prefetches_and_loads("line");
    assert!(
        p > 0 && p == loads,
        "line: {p} prefetches for {loads} loads"
    );
}
