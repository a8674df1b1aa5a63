//! Per-lane atomics whose index or operand is computed from a packed load
//! read that lane's element again from memory instead of extracting it
//! from the vector (`codegen/src/emit/lane_loads.rs`, docs/codegen.md "Lanes
//! read again from memory"), where nothing can have written the element
//! in between: the atomic writes another address space than the load's, or
//! the load is from `__constant` memory. Kernels whose atomics write the
//! address space they read keep the extraction.

mod common;

use common::*;

/// Histogram-style kernels: `__local` increments from `__global` packed
/// loads under a guard that leaves partial SIMD groups, operands from the
/// loads, narrow elements, `__constant` data with `__global` atomics, a
/// `__local` load with `__global` atomics; and the aliasing ones (atomics
/// into the `__global` buffer being read, into the `__local` array being
/// read), race-free: the counters are elements no work-item reads.
const SRC: &str = r#"
__kernel void guarded_hist(__global const uint *data, __global uint *out, uint n)
{
    __local uint bins[16];
    int lid = get_local_id(0);
    int lsize = get_local_size(0);
    uint gid = get_global_id(0);
    for (int b = lid; b < 16; b += lsize)
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < 7 * n)
        atomic_inc(&bins[data[gid] & 15u]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = lid; b < 16; b += lsize)
        out[get_group_id(0) * 16 + b] = bins[b];
}

__kernel void weighted_hist(__global const uint *data, __global uint *out, uint n, uint k)
{
    __local uint bins[16];
    int lid = get_local_id(0);
    int lsize = get_local_size(0);
    uint gid = get_global_id(0);
    for (int b = lid; b < 16; b += lsize)
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < 5 * n + 1) {
        uint x = data[gid];
        uint old = atomic_add(&bins[((x >> 1) & 7u) + (k & 7u)], (x & 3u) + k);
        out[64 + gid] = old;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = lid; b < 16; b += lsize)
        out[get_group_id(0) * 16 + b] = bins[b];
}

__kernel void byte_hist(__global const uchar *data, __global int *out, int n)
{
    __local int bins[16];
    int lid = get_local_id(0);
    int lsize = get_local_size(0);
    int gid = get_global_id(0);
    for (int b = lid; b < 16; b += lsize)
        bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < 6 * n)
        atomic_sub(&bins[data[gid] & 15], (int)data[gid] - 3);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = lid; b < 16; b += lsize)
        out[get_group_id(0) * 16 + b] = bins[b];
}

__kernel void constant_hist(__constant uint *data, __global uint *out, uint n)
{
    uint gid = get_global_id(0);
    if (gid < 7 * n)
        atomic_inc(&out[data[gid] & 15u]);
}

__kernel void local_to_global(__global const uint *data, __global uint *out, uint n)
{
    __local uint tile[64];
    int lid = get_local_id(0);
    uint gid = get_global_id(0);
    tile[lid] = data[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < 7 * n)
        atomic_inc(&out[tile[lid] & 15u]);
}

__kernel void global_alias(__global uint *data, uint n)
{
    uint gid = get_global_id(0);
    if (gid < 3 * n)
        atomic_inc(&data[64 + (data[gid] & 15u)]);
}

__kernel void local_alias(__global const uint *data, __global uint *out, uint n)
{
    __local uint tile[64 + 16];
    int lid = get_local_id(0);
    int lsize = get_local_size(0);
    uint gid = get_global_id(0);
    tile[lid] = data[gid] & 15u;
    for (int b = lid; b < 16; b += lsize)
        tile[64 + b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < 7 * n)
        atomic_inc(&tile[64 + tile[lid]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = lid; b < 16; b += lsize)
        out[get_group_id(0) * 16 + b] = tile[64 + b];
}
"#;

/// Every kernel above against the interpreter on every target this
/// machine runs, at -O0 and -O2, under launches whose rows end in partial
/// SIMD groups and work-groups that are not multiples of W.
#[test]
fn lanes_read_again_match_the_interpreter() {
    let c = check_every_kernel("lane_loads.cl", SRC);
    assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
    assert!(c.ran > 0, "nothing compared");
}

/// The kernel of `SRC` named `kernel`, alone, as avx2-i32x8 assembly of its
/// `_groups` function.
fn groups_asm(kernel: &str) -> String {
    groups_asm_avx2("one.cl", kernel_source(SRC, kernel), kernel)
}

/// Lanes 1 and up of 16 bits or more moved from a vector register to a
/// general one (`vpextrb` takes mask lanes, which the per-lane branches
/// test; `vmovd` lane 0, which also starts scalar values of lane 0).
fn extractions(asm: &str) -> usize {
    asm.lines()
        .map(str::trim)
        .filter(|l| {
            ["vpextrw", "vpextrd", "vpextrq"]
                .iter()
                .any(|o| l.starts_with(o))
        })
        .count()
}

/// bench/kernels/histogram.cl: each lane's bin index is a `movzbl` of its
/// element from memory, as gcc's scalar loop does; no lane of the loaded
/// vector is extracted in the whole `_groups` function (before: 4
/// `vpextrd`/`vmovd`, a `vextracti128`, `vpackusdw` and 4 `vpextrw` per
/// SIMD group).
#[test]
fn histogram_reads_its_lanes_from_memory() {
    let histogram = include_str!("../../bench/kernels/histogram.cl");
    let asm = groups_asm_avx2("histogram.cl", histogram, "histogram256");
    assert_eq!(extractions(&asm), 0, "lanes extracted:\n{asm}");
    let loops = innermost_loops_with(&asm, "incl");
    assert!(!loops.is_empty(), "no loop with increments:\n{asm}");
    // The loop that loads: its 8 increments each from a `movzbl` of memory.
    let loading: Vec<_> = loops
        .iter()
        .filter(|l| l.iter().any(|x| x.starts_with("movzbl") && x.contains('(')))
        .collect();
    assert!(
        !loading.is_empty(),
        "no increment from a movzbl of memory:\n{asm}"
    );
    assert!(
        loading
            .iter()
            .any(|l| l.iter().filter(|x| x.starts_with("incl")).count() >= 8),
        "no loop with a SIMD group's 8 increments:\n{asm}"
    );
    for l in loading {
        let loads = l
            .iter()
            .filter(|x| x.starts_with("movzbl") && x.contains('('))
            .count();
        let incs = l.iter().filter(|x| x.starts_with("incl")).count();
        assert!(
            loads == incs,
            "{loads} loads, {incs} increments:\n{}",
            l.join("\n")
        );
    }
}

/// The histogram-style kernels read their lanes from memory (no
/// extraction); the kernels whose atomics write the address space they
/// read keep the extraction, since lane 0's increment may be the element
/// lane 1 reads.
#[test]
fn aliasing_atomics_keep_the_extraction() {
    for k in ["guarded_hist", "constant_hist", "local_to_global"] {
        let asm = groups_asm(k);
        assert_eq!(extractions(&asm), 0, "{k}: lanes extracted:\n{asm}");
    }
    for k in ["global_alias", "local_alias"] {
        let asm = groups_asm(k);
        assert!(
            extractions(&asm) >= 3,
            "{k}: lanes read again from memory:\n{asm}"
        );
    }
}
