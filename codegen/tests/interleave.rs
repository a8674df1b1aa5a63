//! Interleaved SIMD groups (`codegen/src/interleave.rs`): the kernels whose
//! uniform loops carry float chains run several SIMD groups of a work-group
//! in one body. Their results are compared with the interpreter under
//! work-group rows that hold whole runs of groups, a group left over and a
//! partial group; the rule is pinned kernel by kernel, and the assembly of
//! gemm's inner loop shows one independent multiply-add per SIMD group.

mod common;

use common::*;
use lanes_vectorizer::interp::NdRange;

/// Work-group rows of 75 and 130 work-items: one or two runs of up to 64
/// lanes, then whole SIMD groups, then a partial one; a last work-group
/// that is smaller; a global offset.
fn shapes(dims: u32, _w: u64) -> Vec<NdRange> {
    let r = |g, l| nd_range(dims, g, l);
    match dims {
        1 => vec![
            r([2 * 75 + 11, 1, 1], [75, 1, 1]),
            r([260, 1, 1], [130, 1, 1]),
            NdRange {
                global_offset: [5, 0, 0],
                ..r([128, 1, 1], [64, 1, 1])
            },
        ],
        2 => vec![r([150, 3, 1], [75, 2, 1]), r([130, 2, 1], [130, 1, 1])],
        _ => vec![r([75, 2, 2], [75, 1, 2])],
    }
}

/// How many SIMD groups the body of the only kernel of `src` runs on
/// `target` (1: not interleaved), the groups of all its rows when it runs
/// a block of rows (`rows.rs`; gemm: 2 groups of 4 rows on 8 lanes).
fn groups(src: &str, target: &str) -> u32 {
    let unit = checked_text("interleave.cl", src);
    let spec = lanes_codegen::target_spec(target).unwrap();
    let k = unit.hir.kernels()[0];
    let kc = lanes_codegen::kernel_code_for(&unit.hir, k, &spec).unwrap();
    kc.interleaved.map_or(1, |i| i.groups * i.rows)
}

fn interleaved_corpus(target: &str) {
    let Ok(spec) = lanes_codegen::target_spec(target) else {
        panic!("unknown target {target}");
    };
    let select = |unit: &lanes_frontend::hir::Unit, k| {
        lanes_codegen::kernel_code_for(unit, k, &spec).is_ok_and(|kc| kc.interleaved.is_some())
    };
    let mut units = corpus();
    units.extend(corpus_of(&["bench/kernels"]));
    if let Some(kernels) = compare_corpus(target, 2, units, &select, &shapes) {
        assert!(kernels >= 8, "only {kernels} interleaved kernels compared");
    }
}

#[test]
fn interleaved_kernels_equal_the_interpreter_sse4() {
    interleaved_corpus("sse4-i32x4");
}

#[test]
fn interleaved_kernels_equal_the_interpreter_avx2() {
    interleaved_corpus("avx2-i32x8");
}

#[test]
fn interleaved_kernels_equal_the_interpreter_avx2_x16() {
    interleaved_corpus("avx2-i32x16");
}

#[test]
fn interleaved_kernels_equal_the_interpreter_avx512() {
    interleaved_corpus("avx512skx-x16");
}

const GEMM: &str = include_str!("../../bench/kernels/gemm.cl");

/// Divergent loops that run several SIMD groups in one body: a float
/// recurrence with a `break` and two results, a walk through dependent
/// loads, a Newton iteration with a per-lane stopping test.
const DIVERGENT: &str = r#"
__kernel void escape_time(__global const float *c, __global int *count,
                          __global float *z, int max_iter)
{
    int i = get_global_id(0);
    float cr = c[2 * i];
    float ci = c[2 * i + 1];
    float zr = 0.0f, zi = 0.0f;
    int n = 0;
    for (; n < 16 * max_iter; n++) {
        float zr2 = zr * zr;
        float zi2 = zi * zi;
        if (zr2 + zi2 > 4.0f)
            break;
        zi = 2.0f * zr * zi + ci;
        zr = zr2 - zi2 + cr;
    }
    count[i] = n;
    z[i] = zr + zi;
}

__kernel void chase(__global const int *next, __global int *out, int steps)
{
    int i = get_global_id(0);
    if (i >= 20 * steps)
        return;
    int j = i & 1023;
    int hops = 0;
    while (j != 0 && hops < 8 * steps) {
        j = next[j] & 1023;
        hops++;
    }
    out[i] = j + 4096 * hops;
}

__kernel void newton_sqrt(__global const float *x, __global float *root,
                          __global int *steps)
{
    int i = get_global_id(0);
    float a = fabs(x[i]) * 100.0f + 0.5f;
    float g = a;
    int k = 0;
    while (fabs(g * g - a) > 1e-4f * a && k < 40) {
        g = 0.5f * (g + a / g);
        k++;
    }
    root[i] = g;
    steps[i] = k;
}
"#;

/// The kernels of [`DIVERGENT`] run as many SIMD groups per body as the
/// rule says on each target and equal the interpreter under work-group rows that are not a
/// multiple of G·W (whole runs, groups left over, a partial group, a
/// `return` before the loop in some lanes).
fn divergent_loops(target: &str) {
    let spec = lanes_codegen::target_spec(target).unwrap();
    let unit = checked_text("interleave.cl", DIVERGENT);
    for k in unit.hir.kernels() {
        let kc = lanes_codegen::kernel_code_for(&unit.hir, k, &spec).unwrap();
        // Float recurrences: 16 lanes in flight; the walk through loads: 32.
        let lanes = if kc.name == "chase" { 32 } else { 16 };
        let want = (lanes / spec.width).max(1);
        let got = kc.interleaved.as_ref().map_or(1, |i| i.groups);
        assert_eq!(got, want, "{} on {target}", kc.name);
    }
    let all = |_: &lanes_frontend::hir::Unit, _| true;
    let units = vec![("divergent.cl".into(), unit)];
    if let Some(kernels) = compare_corpus(target, 2, units, &all, &shapes) {
        assert_eq!(kernels, 3);
    }
}

#[test]
fn divergent_loops_equal_the_interpreter_sse4() {
    divergent_loops("sse4-i32x4");
}

#[test]
fn divergent_loops_equal_the_interpreter_avx2() {
    divergent_loops("avx2-i32x8");
}

#[test]
fn divergent_loops_equal_the_interpreter_avx2_x16() {
    divergent_loops("avx2-i32x16");
}

#[test]
fn divergent_loops_equal_the_interpreter_avx512() {
    divergent_loops("avx512skx-x16");
}

#[test]
fn the_rule() {
    // One chain: 8 groups of 8 lanes (8 chains), 4 of 16, 8 of 4.
    assert_eq!(groups(GEMM, "avx2-i32x8"), 8);
    assert_eq!(groups(GEMM, "avx512skx-x16"), 4);
    assert_eq!(groups(GEMM, "sse4-i32x4"), 8);
    // Three chains: two groups (6 chains).
    let three = r#"
__kernel void moments(__global const float *w, __global const float4 *p,
                      __global float4 *m, int n)
{
    int i = get_global_id(0);
    float4 q = p[i];
    float sx = 0.0f, sy = 0.0f, sz = 0.0f;
    for (int j = 0; j < n; j++) {
        float wj = w[j];
        sx += wj * q.x;
        sy += wj * q.y;
        sz += wj * q.z;
    }
    m[i] = (float4)(sx, sy, sz, 0.0f);
}
"#;
    assert_eq!(groups(three, "avx2-i32x8"), 2);
    // Four chains sharing one load: the carried values are not vector
    // work (four φs, one load and four multiply-adds: 5 instructions), so
    // the loop is latency-bound and two groups run (8 chains).
    assert_eq!(groups(GEMM_4_ROWS, "avx2-i32x8"), 2);
    // Without FMA (sse4) each chain is a multiply and an add: 9
    // instructions, one group.
    assert_eq!(groups(GEMM_4_ROWS, "sse4-i32x4"), 1);
    // convolution_2d's inner loop: clamp, address, load and multiply-add,
    // 8 vector instructions besides its sum's φ: one chain, 8 groups.
    let convolution = include_str!("../../bench/kernels/convolution_2d.cl");
    assert_eq!(groups(convolution, "avx2-i32x8"), 8);
    // A loop with more vector work per iteration than one chain step
    // leaves idle (nbody's forces: 3 chains, about 20 vector instructions).
    let nbody = include_str!("../../bench/kernels/nbody.cl");
    assert_eq!(groups(nbody, "avx2-i32x8"), 1);
    // Divergent loops whose exit waits on a float recurrence: 16 lanes in
    // flight; on a load the loop carries: 32; on integer steps: one group.
    let mandelbrot = include_str!("../../bench/kernels/mandelbrot.cl");
    let search = include_str!("../../bench/kernels/binary_search.cl");
    let spmv = include_str!("../../bench/kernels/spmv_csr.cl");
    for (src, target, g) in [
        (mandelbrot, "avx2-i32x8", 2),
        (mandelbrot, "sse4-i32x4", 4),
        (mandelbrot, "avx512skx-x16", 1),
        (search, "avx2-i32x8", 4),
        (search, "sse4-i32x4", 8),
        (search, "avx512skx-x16", 2),
        (spmv, "avx2-i32x8", 1),
    ] {
        if g > 0 {
            assert_eq!(groups(src, target), g, "{target}: {src}");
        }
    }
    // No loop, an integer chain, a divergent loop bound by its integer
    // counter: one group.
    let none = [
        r#"__kernel void k(__global float *a) { int i = get_global_id(0); a[i] = a[i] * 2.0f; }"#,
        r#"__kernel void k(__global int *a, int n) {
    int i = get_global_id(0);
    int s = 0;
    for (int j = 0; j < n; j++) s += a[j];
    a[i] = s;
}"#,
        r#"__kernel void k(__global float *a, __global const int *len) {
    int i = get_global_id(0);
    float s = 0.0f;
    for (int j = 0; j < len[i]; j++) s += a[j];
    a[i] = s;
}"#,
    ];
    for src in none {
        assert_eq!(groups(src, "avx2-i32x8"), 1, "{src}");
    }
    // Sub-groups and barriers would see the difference: one group.
    let visible = [
        r#"__kernel void k(__global float *a, int n) {
    int i = get_global_id(0);
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += a[j] * (float)get_sub_group_size();
    a[i] = s;
}"#,
        r#"__kernel void k(__global float *a, int n) {
    int i = get_global_id(0);
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += sub_group_broadcast(a[i + j], 0);
    a[i] = s;
}"#,
        r#"__kernel void k(__global float *a, __local float *t, int n) {
    int i = get_global_id(0);
    float s = 0.0f;
    for (int j = 0; j < n; j++) s += a[j];
    t[get_local_id(0)] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    a[i] = t[0];
}"#,
    ];
    for src in visible {
        assert_eq!(groups(src, "avx2-i32x8"), 1, "{src}");
    }
}

/// Loop-free kernels run 64 lanes per body when their longest chain
/// of varying values passes through three or more long-latency operations
/// (divisions, math functions) one after another: black_scholes (`log`,
/// two divisions, `exp`); not when the operations are side by side, or
/// the chain has two.
#[test]
fn loop_free_latency_chains() {
    let black_scholes = include_str!("../../bench/kernels/black_scholes.cl");
    assert_eq!(groups(black_scholes, "avx2-i32x8"), 8);
    assert_eq!(groups(black_scholes, "sse4-i32x4"), 16);
    assert_eq!(groups(black_scholes, "avx512skx-x16"), 4);
    let chained = r#"__kernel void k(__global float *a, __global const float *b, int n) {
    int i = get_global_id(0);
    if (i < n)
        a[i] = exp(sqrt(b[i]) / (1.0f + fabs(a[i])));
}"#;
    assert_eq!(groups(chained, "avx2-i32x8"), 8);
    let two = r#"__kernel void k(__global float *a, __global const float *b) {
    int i = get_global_id(0);
    a[i] = sqrt(b[i]) / (1.0f + a[i]);
}"#;
    assert_eq!(groups(two, "avx2-i32x8"), 1);
    let side_by_side = r#"__kernel void k(__global float *a, __global const float *b) {
    int i = get_global_id(0);
    a[i] = 1.0f / b[i] + 2.0f / a[i] + sqrt(b[i]) + exp(a[i]);
}"#;
    assert_eq!(groups(side_by_side, "avx2-i32x8"), 1);
    // A uniform chain costs once per body, not per lane: one group.
    let uniform = r#"__kernel void k(__global float *a, float x) {
    int i = get_global_id(0);
    a[i] = a[i] * exp(sqrt(x) / (1.0f + x));
}"#;
    assert_eq!(groups(uniform, "avx2-i32x8"), 1);
}

/// The kernels of [`loop_free_latency_chains`] that interleave, against the
/// interpreter on every target this machine runs (work-group rows shorter
/// than a run of groups, runs and partial groups).
#[test]
fn loop_free_latency_chains_equal_the_interpreter() {
    let src = r#"__kernel void chained(__global float *a, __global const float *b, int n) {
    int i = get_global_id(0);
    if (i < n)
        a[i] = exp(sqrt(b[i]) / (1.0f + fabs(a[i])));
}
__kernel void guarded(__global float *a, __global const float *b, int n) {
    int i = get_global_id(0);
    if (i >= n)
        return;
    float x = b[i] / (1.0f + fabs(a[i]));
    a[i] = log(1.0f + x / (2.0f + x)) + (x > 0.5f ? exp(-x) : 0.0f);
}
"#;
    for k in ["chained", "guarded"] {
        assert_eq!(groups(kernel_source(src, k), "avx2-i32x8"), 8, "{k}");
    }
    let c = check_every_kernel("latency.cl", src);
    assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
    assert!(c.ran > 0, "nothing compared");
}

/// The kernels that see sub-groups keep W lanes per sub-group: compared
/// with the interpreter under the rows above.
#[test]
fn sub_groups_keep_their_width() {
    let spec = lanes_codegen::target_spec("avx2-i32x8").unwrap();
    if !lanes_codegen::host_can_run(&spec) {
        eprintln!("SKIPPED: this machine cannot run avx2-i32x8");
        return;
    }
    let src = r#"
__kernel void k(__global float *a, __global float *b, int n)
{
    int i = get_global_id(0);
    float s = 0.0f;
    for (int j = 0; j < n; j++)
        s += a[j] * (float)(get_sub_group_local_id() + get_sub_group_size());
    b[i] = s + sub_group_reduce_add(a[i]);
}
"#;
    let unit = checked_text("interleave.cl", src);
    let k = unit.hir.kernels()[0];
    let opts = lanes_codegen::Options { opt_level: 2 };
    let o = check_kernel_with(&unit.hir, k, &spec, &opts, "sub_groups", &shapes);
    assert!(o.failures.is_empty(), "{:?}", o.failures);
    assert!(o.not_run.is_none(), "{:?}", o.not_run);
    assert!(
        o.compared >= 3,
        "{} launches compared, skipped: {:?}",
        o.compared,
        o.skipped
    );
}

/// The loop of gemm on AVX2: one broadcast of `A[i*nk + k]` and eight
/// multiply-adds into eight different accumulators (one per SIMD group)
/// between the loop's label and its jump back.
#[test]
fn gemm_inner_loop_has_eight_chains() {
    let (_, asm) = emit_avx2("gemm.cl", GEMM, 2);
    let lines: Vec<&str> = asm.lines().map(str::trim).collect();
    let mut best: Option<Vec<&str>> = None;
    for (i, l) in lines.iter().enumerate() {
        let Some(label) = l.strip_suffix(':').filter(|s| s.starts_with(".LBB")) else {
            continue;
        };
        // The loop: instructions up to a jump back to this label.
        let Some(end) = lines[i + 1..]
            .iter()
            .position(|x| x.starts_with('j') && x.ends_with(label))
        else {
            continue;
        };
        let body = &lines[i + 1..i + 1 + end];
        if body.iter().any(|x| x.ends_with(':')) {
            continue;
        }
        let fmas: Vec<&str> = body
            .iter()
            .copied()
            .filter(|x| x.starts_with("vfmadd"))
            .collect();
        if fmas.len() > best.as_ref().map_or(0, Vec::len) {
            best = Some(fmas);
        }
    }
    let fmas = best.unwrap_or_else(|| panic!("no loop with multiply-adds:\n{asm}"));
    assert_eq!(fmas.len(), 8, "{fmas:?}\n{asm}");
    // Eight distinct accumulators, all ymm: no chain waits for another.
    let accs: std::collections::BTreeSet<&str> = fmas
        .iter()
        .map(|f| f.rsplit(',').next().unwrap().trim())
        .collect();
    assert_eq!(accs.len(), 8, "{fmas:?}");
    assert!(accs.iter().all(|a| a.starts_with("%ymm")), "{fmas:?}");
}

/// gemm with a register block of four rows per work-item, as a kernel
/// author would write it by hand (`ni` a multiple of 4); the benchmark
/// experiment of bench/experiments/gemm_rows times it.
const GEMM_4_ROWS: &str = include_str!("../../bench/experiments/gemm_rows/gemm4.cl");

/// The four-row gemm equals the interpreter on every target, with the
/// groups the rule gives (two on the 4- and 8-lane targets, 8 chains).
#[test]
fn gemm_4_rows_equals_the_interpreter() {
    let all = |_: &lanes_frontend::hir::Unit, _| true;
    for target in ["sse4-i32x4", "avx2-i32x8", "avx2-i32x16", "avx512skx-x16"] {
        let units = vec![(
            "gemm4.cl".into(),
            checked_text("interleave.cl", GEMM_4_ROWS),
        )];
        if let Some(kernels) = compare_corpus(target, 2, units, &all, &shapes) {
            assert_eq!(kernels, 1, "{target}");
        }
    }
}

/// The four-row gemm on AVX2 runs two SIMD groups in one body: its inner
/// loop is two loads of B, four broadcasts of A and eight multiply-adds
/// into eight accumulators.
#[test]
fn gemm_4_rows_loop_has_eight_chains() {
    let (_, asm) = emit_avx2("gemm4.cl", GEMM_4_ROWS, 2);
    let accumulators = |l: &[&str]| -> std::collections::BTreeSet<String> {
        l.iter()
            .filter(|x| x.starts_with("vfmadd"))
            .map(|f| f.rsplit(',').next().unwrap().trim().to_string())
            .collect()
    };
    // The k loop: the loop whose multiply-adds have the most accumulators
    // (the update of C after it is four multiply-adds per group too).
    let loops = innermost_loops_with(&asm, "vfmadd");
    let k_loop = loops
        .iter()
        .max_by_key(|l| accumulators(l).len())
        .unwrap_or_else(|| panic!("no loop with multiply-adds:\n{asm}"));
    let count = |op: &str| k_loop.iter().filter(|x| x.starts_with(op)).count();
    assert_eq!(count("vfmadd"), 8, "{k_loop:?}");
    let accs = accumulators(k_loop);
    assert_eq!(accs.len(), 8, "{k_loop:?}");
    assert!(accs.iter().all(|a| a.starts_with("%ymm")), "{k_loop:?}");
    assert_eq!(count("vbroadcastss"), 4, "{k_loop:?}");
    // B's two 32-byte loads (masked in the copy for a possibly partial
    // run, whichever of the two copies the search found).
    assert_eq!(count("vmovups") + count("vmaskmovps"), 2, "{k_loop:?}");
}

/// binary_search on AVX2 runs four SIMD groups in one body: its search
/// loop issues four gathers, one per group, into four registers, and tests
/// the four groups' masks together (`vpor`s and one `vptest` per test).
#[test]
fn binary_search_loop_has_four_gathers() {
    let src = include_str!("../../bench/kernels/binary_search.cl");
    let (_, asm) = emit_avx2("binary_search.cl", src, 2);
    let loops = innermost_loops_with(&asm, "vpgatherdd");
    let four: Vec<&Vec<&str>> = loops
        .iter()
        .filter(|l| l.iter().filter(|x| x.starts_with("vpgatherdd")).count() == 4)
        .collect();
    // The body for four groups (with its all-active copy); the one-group
    // body's loops have one gather.
    assert!(!four.is_empty(), "{loops:#?}");
    for l in four {
        let dests: std::collections::BTreeSet<&str> = l
            .iter()
            .filter(|x| x.starts_with("vpgatherdd"))
            .map(|x| x.rsplit(',').next().unwrap().trim())
            .collect();
        assert_eq!(dests.len(), 4, "{l:#?}");
        // The four masks are tested together, not one `vptest` per group.
        let tests = l.iter().filter(|x| x.starts_with("vptest")).count();
        assert!((1..4).contains(&tests), "{l:#?}");
        // The masks stay in `ymm` registers (no packing into 16-bit lanes).
        assert!(!l.iter().any(|x| x.starts_with("vpackssdw")), "{l:#?}");
    }
}

/// mandelbrot on AVX2 runs two SIMD groups in one body: its escape loop
/// advances two `z` recurrences (two `zr*zr - zi*zi` multiply-subtracts
/// into different registers) and tests the two masks with one `vptest`.
#[test]
fn mandelbrot_loop_has_two_recurrences() {
    let src = include_str!("../../bench/kernels/mandelbrot.cl");
    let (_, asm) = emit_avx2("mandelbrot.cl", src, 2);
    let loops = innermost_loops_with(&asm, "vfmsub231ps");
    let two: Vec<&Vec<&str>> = loops
        .iter()
        .filter(|l| l.iter().filter(|x| x.starts_with("vfmsub231ps")).count() == 2)
        .collect();
    assert!(!two.is_empty(), "{loops:#?}");
    for l in two {
        let dests: std::collections::BTreeSet<&str> = l
            .iter()
            .filter(|x| x.starts_with("vfmsub231ps"))
            .map(|x| x.rsplit(',').next().unwrap().trim())
            .collect();
        assert_eq!(dests.len(), 2, "{l:#?}");
        assert_eq!(
            l.iter().filter(|x| x.starts_with("vptest")).count(),
            1,
            "{l:#?}"
        );
        assert!(!l.iter().any(|x| x.starts_with("vpackssdw")), "{l:#?}");
    }
}
