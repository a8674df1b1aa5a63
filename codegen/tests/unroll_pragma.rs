//! Loop unrolling pragmas (`#pragma unroll`, `#pragma nounroll`, `#pragma
//! clang loop unroll...`, frontend/src/loop_pragma.rs) reach LLVM's
//! unroller as loop metadata, as clang's do: assembly tests that the
//! hinted loops are unrolled as asked where LLVM would have chosen
//! otherwise, and a differential test that hinted loops compute what the
//! interpreter does on every target this machine runs, at -O0 and -O2.

mod common;

use common::*;

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
    let c = check_every_kernel("unroll.cl", &src);
    assert!(c.ran > 0, "nothing ran");
    assert!(
        c.failures.is_empty(),
        "{} failures:\n{}",
        c.failures.len(),
        c.failures.join("\n")
    );
}
