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

fn differential(target: &str, opt_level: u8) {
    let all = |_: &lanes_frontend::hir::Unit, _| true;
    if let Some(kernels) = compare_corpus(target, opt_level, corpus(), &all, &launches) {
        assert!(kernels >= 40, "only {kernels} kernels were compared");
    }
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
