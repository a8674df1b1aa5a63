//! Loop unrolling pragmas (`#pragma unroll`, `#pragma nounroll`, `#pragma
//! clang loop unroll...`, frontend/src/loop_pragma.rs) reach LLVM's
//! unroller as loop metadata, as clang's do: assembly tests that the
//! hinted loops are unrolled as asked where LLVM would have chosen
//! otherwise, and a differential test that hinted loops compute what the
//! interpreter does on every target this machine runs, at -O0 and -O2.

mod common;

use common::*;
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};

/// A loop with a uniform, run-time trip count: LLVM unrolls it by 4 at
/// run time on its own. Each iteration is one `vfmadd`.
fn runtime_loop(hint: &str) -> String {
    format!(
        "
__kernel void k(__global const float *a, __global float *out, int n)
{{
    int gid = get_global_id(0);
    float s = 0.0f;
{hint}
    for (int i = 0; i < n; i++)
        s = s * 0.5f + a[i * 64 + gid];
    out[gid] = s;
}}"
    )
}

/// A loop of 8 iterations: LLVM unrolls it fully on its own.
fn constant_loop(hint: &str) -> String {
    format!(
        "
__kernel void k(__global const float *a, __global float *out)
{{
    int gid = get_global_id(0);
    float t = 1.0f;
    float x = a[gid];
{hint}
    for (int j = 0; j < 8; j++)
        t = t * x + 0.25f;
    out[gid] = t;
}}"
    )
}

/// The numbers of `vfmadd` in the innermost loops that have one (the
/// hinted loop where it stays a loop, else the loop over SIMD groups
/// around its unrolled copy), without repeats.
fn fmas_per_loop(src: &str) -> Vec<usize> {
    let asm = groups_asm_avx2("unroll.cl", src, "k");
    let mut counts: Vec<usize> = innermost_loops_with(&asm, "vfmadd")
        .iter()
        .map(|l| l.iter().filter(|x| x.starts_with("vfmadd")).count())
        .collect();
    counts.sort();
    counts.dedup();
    counts
}

/// Without a hint, then with each spelling of "do not unroll" and of
/// "unroll by 2": the loops' `vfmadd` counts. A loop may run several SIMD
/// groups interleaved (docs/codegen.md, "Interleaved SIMD groups"), so a
/// loop not unrolled has one `vfmadd` per interleaved group, and unrolled
/// by 2 twice that.
fn check_hints(kernel: fn(&str) -> String) {
    let none = fmas_per_loop(&kernel(""));
    let kept = fmas_per_loop(&kernel("#pragma nounroll"));
    assert!(kept.contains(&1), "{kept:?}");
    assert_ne!(
        kept, none,
        "LLVM unrolls the loop on its own: the test shows nothing"
    );
    for hint in ["#pragma unroll 1", "#pragma clang loop unroll(disable)"] {
        assert_eq!(fmas_per_loop(&kernel(hint)), kept, "{hint}");
    }
    let doubled: Vec<usize> = kept.iter().map(|n| 2 * n).collect();
    for hint in [
        "#pragma unroll 2",
        "#pragma unroll(2)",
        "#pragma clang loop unroll_count(2)",
    ] {
        assert_eq!(fmas_per_loop(&kernel(hint)), doubled, "{hint}");
    }
}

#[test]
fn hints_unroll_a_loop_with_a_run_time_trip_count() {
    check_hints(runtime_loop);
    // A count from a macro, as `-D` gives it.
    let two = fmas_per_loop(&runtime_loop("#pragma unroll 2"));
    let src = format!(
        "#define UNROLL 2\n{}",
        runtime_loop("#pragma unroll UNROLL")
    );
    assert_eq!(fmas_per_loop(&src), two);
}

#[test]
fn hints_unroll_a_loop_with_a_constant_trip_count() {
    check_hints(constant_loop);
}

#[test]
fn hinted_loops_match_the_interpreter() {
    let mut src = String::new();
    for (i, (a, b)) in [
        ("#pragma unroll", "#pragma unroll 3"),
        ("#pragma nounroll", "#pragma clang loop unroll(full)"),
        ("#pragma unroll 5", "#pragma nounroll"),
    ]
    .iter()
    .enumerate()
    {
        src.push_str(&runtime_loop(a).replace("void k(", &format!("void r{i}(")));
        src.push_str(&constant_loop(b).replace("void k(", &format!("void c{i}(")));
    }
    assert_every_kernel_matches("unroll.cl", &src);
}

/// The loop statements whose hint LLVM left in place (L0103), as the
/// lines of their keywords, after an -O2 build for avx2-i32x8.
fn not_unrolled(src: &str) -> Vec<u32> {
    let unit = lanes_frontend::unit::check_text(
        "unroll.cl",
        None,
        src,
        &PreprocessOptions::default(),
        &RealFs,
    );
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let spec = lanes_codegen::target_spec("avx2-i32x8").unwrap();
    let compiled =
        lanes_codegen::compile_unit(&unit.hir, &spec, &lanes_codegen::Options { opt_level: 2 })
            .unwrap_or_else(|d| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()));
    compiled
        .warnings()
        .iter()
        .map(|w| {
            assert_eq!(w.code.as_str(), "L0103");
            unit.sources.line_col(w.span.file, w.span.start).0
        })
        .collect()
}

#[test]
fn a_hint_llvm_cannot_honour_is_reported_at_its_loop() {
    // A loop whose trip count LLVM cannot compute (a linked list): it is
    // not unrolled by 4. The others are unrolled as asked (by 2 at run
    // time, fully), or ask for nothing.
    let src = "
__kernel void k(__global float *a, __global const int *next, int n)
{
    int i = get_global_id(0);
    float s = 0.0f;
    int j = i;
    #pragma unroll 4
    while (j >= 0) {
        s += a[j];
        j = next[j];
    }
    #pragma unroll 2
    for (int m = 0; m < n; m++)
        s = s * 0.5f + a[m];
    #pragma clang loop unroll(full)
    for (int m = 0; m < 8; m++)
        s += a[m];
    #pragma nounroll
    while (j < n)
        j += (int)a[j] + 1;
    a[i] = s + (float)j;
}";
    assert_eq!(not_unrolled(src), vec![8]);
    // Without the pragma the same loop is not reported.
    assert_eq!(
        not_unrolled(&src.replace("#pragma unroll 4", "")),
        Vec::<u32>::new()
    );
    assert_eq!(
        not_unrolled(&runtime_loop("#pragma unroll 2")),
        Vec::<u32>::new()
    );
    assert_eq!(
        not_unrolled(&constant_loop("#pragma unroll")),
        Vec::<u32>::new()
    );
}
