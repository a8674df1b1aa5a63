//! Differential execution: every corpus kernel the vectorizer accepts is
//! compiled for each target this machine runs, executed through the JIT on
//! deterministic random inputs under several launch shapes (global sizes
//! that are and are not multiples of W, local sizes that are not multiples
//! of W, a global offset), and compared with the scalar reference
//! interpreter: integers bit-exact, floats within a few ULP.
//!
//! A launch whose interpreter run fails (the random input violates the
//! kernel's preconditions, e.g. an index out of range) is skipped, not
//! failed; the summary lists skipped kernels and launches with the reason.

mod common;

use common::*;
use lanes_codegen::{host_can_run, target_spec, Options};

fn differential(target: &str, opt_level: u8) {
    let spec = target_spec(target).unwrap();
    if !host_can_run(&spec) {
        eprintln!("SKIPPED: this machine cannot run {target}");
        return;
    }
    let opts = Options { opt_level };
    let mut failures = Vec::new();
    let mut notes = Vec::new();
    let mut kernels_compared = 0;
    let mut launches_compared = 0;
    for (path, unit) in corpus() {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        for kid in unit.hir.kernels() {
            let name = &unit.hir.function(kid).name;
            let what = format!("{file}:{name} [{target} O{opt_level}]");
            if std::env::var_os("LANES_TEST_VERBOSE").is_some() {
                eprintln!("checking {what}");
            }
            let o = check_kernel(&unit.hir, kid, &spec, &opts, &what);
            if let Some(why) = o.not_run {
                notes.push(format!("{what}: {why}"));
                continue;
            }
            failures.extend(o.failures);
            let (compared, skipped) = (o.compared, o.skipped);
            if compared > 0 {
                kernels_compared += 1;
                launches_compared += compared;
            }
            if !skipped.is_empty() {
                notes.push(format!(
                    "{what}: {} of {} launches skipped (interpreter: {})",
                    skipped.len(),
                    skipped.len() + compared,
                    skipped[0]
                ));
            }
        }
    }
    eprintln!(
        "{target} O{opt_level}: {kernels_compared} kernels, {launches_compared} launches compared\nnotes:\n  {}",
        notes.join("\n  ")
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        kernels_compared >= 40,
        "only {kernels_compared} kernels were compared"
    );
}

#[test]
fn sse4_x4() {
    differential("sse4-i32x4", 2);
}

#[test]
fn avx2_x8() {
    differential("avx2-i32x8", 2);
}

#[test]
fn avx2_x16() {
    differential("avx2-i32x16", 2);
}

#[test]
fn avx512_x8() {
    differential("avx512skx-x8", 2);
}

#[test]
fn avx512_x16() {
    differential("avx512skx-x16", 2);
}

#[test]
fn avx512_x16_unoptimized() {
    differential("avx512skx-x16", 0);
}
