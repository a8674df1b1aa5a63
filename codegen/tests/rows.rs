//! Row blocks (`codegen/src/rows.rs`): a body for R rows of a work-group
//! shares what the rows share (gemm's load of `B[k*nj + j]`). Kernels with
//! row blocks are compared with the interpreter on every target this
//! machine runs, with work-groups whose row count is not a multiple of R,
//! partial column groups, rows that disagree on a branch (the small `ni`
//! of the test data: the block bails and runs its rows one by one) and a
//! global offset; the rule is pinned, and the assembly of gemm's inner
//! loop shows one load of B per k for the block's rows, in a row body the
//! entry point calls (its loop: 18 instructions, no spill).

mod common;

use common::*;
use lanes_vectorizer::interp::NdRange;

/// Work-groups of 7, 5, 4 and 9 rows (a block of 4 and rows left over,
/// one block, none), columns with runs, whole groups left over and a
/// partial group, a smaller last work-group, a global offset.
fn shapes(dims: u32, _w: u64) -> Vec<NdRange> {
    let r = |g, l| nd_range(dims, g, l);
    match dims {
        2 => vec![
            r([150, 7, 1], [75, 7, 1]),
            NdRange {
                global_offset: [3, 2, 0],
                ..r([130, 10, 1], [130, 5, 1])
            },
            r([64, 12, 1], [16, 4, 1]),
            r([37, 9, 1], [37, 9, 1]),
        ],
        _ => vec![r([75, 2, 2], [75, 1, 2])],
    }
}

/// (groups, rows) of the body of kernel `name` of `src` on `target`.
fn block_of(src: &str, name: &str, target: &str) -> (u32, u32) {
    let unit = checked_text("rows.cl", src);
    let spec = lanes_codegen::target_spec(target).unwrap();
    let k = unit
        .hir
        .kernels()
        .into_iter()
        .find(|&k| unit.hir.function(k).name == name)
        .unwrap();
    let kc = lanes_codegen::kernel_code_for(&unit.hir, k, &spec).unwrap();
    kc.interleaved.map_or((1, 1), |i| {
        assert_eq!(i.rows > 1, i.rows_vf.is_some());
        (i.groups, i.rows)
    })
}

const GEMM: &str = include_str!("../../bench/kernels/gemm.cl");

/// Kernels written for row blocks: a private array per row, a bound test
/// inside the loop (rows disagree in the middle of the loop, before any
/// store), two results per work-item, an integer `switch` on the row, and
/// a row test after a store (not blocked: it could not bail).
const KERNELS: &str = r#"
__kernel void private_rows(int ni, int nj, int nk, __global float *C,
                           __global const float *A, __global const float *B)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= ni || j >= nj)
        return;
    float part[2];
    part[0] = 0.0f;
    part[1] = 0.0f;
    for (int k = 0; k < nk; k++)
        part[k & 1] += A[i * nk + k] * B[k * nj + j];
    C[i * nj + j] = part[0] - part[1];
}

__kernel void bound_in_loop(int ni, int nj, int nk, __global float *C,
                            __global const float *A, __global const float *B)
{
    int j = get_global_id(0);
    int i = get_local_id(1) + 2 * get_group_id(1);
    if (j >= nj)
        return;
    float acc = 0.0f;
    for (int k = 0; k < nk; k++) {
        if (i + k >= ni + 6)
            break;
        acc += A[(i % 8) * nk + k] * B[k * nj + j];
    }
    C[i * nj + j] = acc;
}

__kernel void two_results(int ni, int nj, int nk, __global float *C,
                          __global float *D, __global const float *A,
                          __global const float *B)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (j >= nj || i >= ni)
        return;
    float s = 0.0f, t = 1.0f;
    for (int k = 0; k < nk; k++) {
        float b = B[k * nj + j];
        s += A[i * nk + k] * b;
        t += b * (float)(i + 1);
    }
    C[i * nj + j] = s;
    D[i * nj + j] = t;
}

__kernel void row_switch(int nj, int nk, __global float *C,
                         __global const float *A, __global const float *B)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    switch (i & 3) {
    case 3:
        return;
    default:
        break;
    }
    if (j >= nj)
        return;
    float acc = 0.0f;
    for (int k = 0; k < nk; k++)
        acc += A[i * nk + k] * B[k * nj + j];
    C[i * nj + j] = acc;
}

__kernel void test_after_store(int ni, int nj, int nk, __global float *C,
                               __global int *seen, __global const float *A,
                               __global const float *B)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (j >= nj)
        return;
    seen[i * nj + j] = 1;
    if (i >= ni)
        return;
    float acc = 0.0f;
    for (int k = 0; k < nk; k++)
        acc += A[i * nk + k] * B[k * nj + j];
    C[i * nj + j] = acc;
}
"#;

const TARGETS: [&str; 4] = ["sse4-i32x4", "avx2-i32x8", "avx2-i32x16", "avx512skx-x16"];

fn rows_corpus(target: &str) {
    let spec = lanes_codegen::target_spec(target).unwrap();
    let select = |unit: &lanes_frontend::hir::Unit, k| {
        lanes_codegen::kernel_code_for(unit, k, &spec)
            .is_ok_and(|kc| kc.interleaved.is_some_and(|i| i.rows_vf.is_some()))
    };
    let mut units = corpus();
    units.extend(corpus_of(&["bench/kernels"]));
    units.push(("rows.cl".into(), checked_text("rows.cl", KERNELS)));
    if let Some(kernels) = compare_corpus(target, 2, units, &select, &shapes) {
        assert!(kernels >= 5, "only {kernels} row-blocked kernels compared");
    }
}

#[test]
fn row_blocks_equal_the_interpreter_sse4() {
    rows_corpus("sse4-i32x4");
}

#[test]
fn row_blocks_equal_the_interpreter_avx2() {
    rows_corpus("avx2-i32x8");
}

#[test]
fn row_blocks_equal_the_interpreter_avx2_x16() {
    rows_corpus("avx2-i32x16");
}

#[test]
fn row_blocks_equal_the_interpreter_avx512() {
    rows_corpus("avx512skx-x16");
}

/// Row bodies unoptimized (-O0: only the bodies inlined) equal the
/// interpreter too.
#[test]
fn row_blocks_at_o0_equal_the_interpreter() {
    let all = |_: &lanes_frontend::hir::Unit, _| true;
    let units = vec![
        ("rows.cl".into(), checked_text("rows.cl", KERNELS)),
        ("gemm.cl".into(), checked_text("rows.cl", GEMM)),
    ];
    if let Some(kernels) = compare_corpus("avx2-i32x8", 0, units, &all, &shapes) {
        assert_eq!(kernels, 6);
    }
}

/// The kernel refused a row block still equals the interpreter (its
/// groups run one row at a time), at -O0 too.
#[test]
fn refused_kernel_equals_the_interpreter() {
    let only = |unit: &lanes_frontend::hir::Unit, k| unit.function(k).name == "test_after_store";
    for target in TARGETS {
        let units = vec![("rows.cl".into(), checked_text("rows.cl", KERNELS))];
        if let Some(kernels) = compare_corpus(target, 0, units, &only, &shapes) {
            assert_eq!(kernels, 1, "{target}");
        }
    }
}

#[test]
fn the_rule() {
    // gemm: 8 chains as 2 groups of 4 rows on 8 lanes (2 loads of B and
    // 4 broadcasts of A per k), 2 of 2 on 16 lanes, 4 of 2 on 4 lanes.
    assert_eq!(block_of(GEMM, "gemm", "avx2-i32x8"), (2, 4));
    assert_eq!(block_of(GEMM, "gemm", "avx2-i32x16"), (2, 2));
    assert_eq!(block_of(GEMM, "gemm", "sse4-i32x4"), (2, 4));
    // The loads of convolution_2d's loop are all of the row (the filter's
    // is uniform and shared anyway): 8 groups, one row.
    let conv = include_str!("../../bench/kernels/convolution_2d.cl");
    assert_eq!(block_of(conv, "convolution_2d", "avx2-i32x8"), (8, 1));
    // Four rows per work-item by hand: 2 groups (2 loads of B, 4
    // broadcasts) load less than 2 rows of 1 group (1 + 8).
    let gemm4 = include_str!("../../bench/experiments/gemm_rows/gemm4.cl");
    assert_eq!(block_of(gemm4, "gemm4", "avx2-i32x8"), (2, 1));
    // Barriers: never blocked.
    let tiled = include_str!("../../bench/kernels/matmul_tiled.cl");
    assert_eq!(block_of(tiled, "matmul_tiled", "avx2-i32x8"), (1, 1));
    for k in ["private_rows", "bound_in_loop", "two_results", "row_switch"] {
        let (_, rows) = block_of(KERNELS, k, "avx2-i32x8");
        assert!(rows > 1, "{k} is not row-blocked");
    }
    // A row test after a store: the block could not bail.
    assert_eq!(block_of(KERNELS, "test_after_store", "avx2-i32x8").1, 1);
}

/// The assembly of the function labelled `name` in `asm`.
fn function_asm<'a>(asm: &'a str, name: &str) -> &'a str {
    let start = asm
        .find(&format!("\n{name}:"))
        .unwrap_or_else(|| panic!("no {name} in the assembly:\n{asm}"));
    let end = asm[start..]
        .find(".Lfunc_end")
        .map_or(asm.len(), |e| start + e);
    &asm[start..end]
}

/// gemm on AVX2: the inner loop of the body for 4 rows of 2 SIMD groups
/// loads B's two 32-byte vectors once per k for the 4 rows (a load per
/// SIMD group, not per row), broadcasts 4 values of A (one per row) and
/// runs 8 multiply-adds into 8 accumulators. The row body is a function of
/// its own that the entry point calls, so that its loop has the registers:
/// B's address is a pointer stepped by the row length, A's four rows are
/// pointers indexed by k, and nothing else runs but the loop's counter (no
/// `imul`, no reload from the stack: 18 instructions per k).
#[test]
fn gemm_row_block_loads_b_once_per_k() {
    let (_, all) = emit_avx2("gemm.cl", GEMM, 2);
    let body = "gemm.body_groups2_rows4";
    let groups = function_asm(&all, "gemm_groups");
    assert!(
        groups.lines().any(|l| l.trim() == format!("callq\t{body}")),
        "gemm_groups does not call {body}:\n{groups}"
    );
    let asm = function_asm(&all, body);
    let loops = innermost_loops_with(asm, "vbroadcastss");
    let count = |l: &[&str], op: &str| l.iter().filter(|x| x.starts_with(op)).count();
    let accumulators = |l: &[&str]| -> std::collections::BTreeSet<String> {
        l.iter()
            .filter(|x| x.starts_with("vfmadd"))
            .map(|f| f.rsplit(',').next().unwrap().trim().to_string())
            .collect()
    };
    // The k loop of the row body: the loop with the most accumulators.
    let k_loop = loops
        .iter()
        .max_by_key(|l| accumulators(l).len())
        .unwrap_or_else(|| panic!("no loop with broadcasts:\n{asm}"));
    assert_eq!(count(k_loop, "vbroadcastss"), 4, "{k_loop:?}");
    assert_eq!(count(k_loop, "vfmadd"), 8, "{k_loop:?}");
    assert_eq!(accumulators(k_loop).len(), 8, "{k_loop:?}");
    // Every load of B: a `vmovups` or a memory operand of a multiply-add
    // (LLVM folds a load used once); two per k, not eight.
    let b_loads = count(k_loop, "vmovups")
        + count(k_loop, "vmaskmovps")
        + k_loop
            .iter()
            .filter(|x| x.starts_with("vfmadd") && x.contains('('))
            .count();
    assert_eq!(b_loads, 2, "{k_loop:?}");
    // The rest: the step of B's pointer and the loop's counter, compare
    // and branch; no address recomputed and nothing spilled.
    let instructions: Vec<&&str> = k_loop
        .iter()
        .filter(|x| !x.is_empty() && !x.starts_with('.') && !x.starts_with('#'))
        .collect();
    assert!(instructions.len() <= 18, "{k_loop:?}");
    assert_eq!(count(k_loop, "imul"), 0, "{k_loop:?}");
    assert!(!k_loop.iter().any(|x| x.contains("(%rsp)")), "{k_loop:?}");
}
