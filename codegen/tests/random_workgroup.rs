//! Random work-group kernels: phases that write a `__local` tile, pass a
//! barrier and read other work-items' slots, barriers inside uniform loops
//! and uniform branches, `__local` atomics, divergent `if`s and loops
//! between the barriers. Generated as OpenCL C text, compiled for every
//! target this machine runs and compared with the scalar interpreter
//! (which also checks each program for data races) on launches with
//! several SIMD groups per work-group, partial SIMD groups and a smaller
//! last work-group.

mod common;

use common::*;
use lanes_codegen::{host_can_run, target_spec, Options};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_text;
use lanes_vectorizer::interp::NdRange;

struct Gen {
    rng: Rng,
    out: String,
    depth: usize,
    loops: u32,
}

impl Gen {
    fn line(&mut self, s: &str) {
        self.out.push_str(&"    ".repeat(self.depth));
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn pick<'s>(&mut self, xs: &[&'s str]) -> &'s str {
        xs[self.rng.below(xs.len() as u64) as usize]
    }

    /// A lane-varying integer expression of what is in scope.
    fn expr(&mut self) -> String {
        let a = self.pick(&["acc", "lid", "x", "v", "n", "3", "a[(acc + lid) & 63]"]);
        let b = self.pick(&["acc", "lid", "x", "v", "7"]);
        let op = self.pick(&["+", "-", "^", "*", "&", "|"]);
        format!("(({a}) {op} ({b}))")
    }

    /// Code between barriers: no `__local` writes except through atomics
    /// (the counters are read only at the end, after a barrier).
    fn local_work(&mut self, budget: u32) {
        for _ in 0..1 + self.rng.below(3) {
            match self.rng.below(if budget == 0 { 2 } else { 5 }) {
                0 => {
                    let e = self.expr();
                    self.line(&format!("acc = ({e}) & 4095;"));
                }
                1 => {
                    let k = self.rng.below(5) + 1;
                    let e = self.expr();
                    self.line(&format!("v = ({e} + tile[(lid + {k}) % ls]) & 4095;"));
                }
                2 => {
                    let c = self.pick(&["(x & 3) == 1", "acc > v", "lid < 5", "(v & 1) == 0"]);
                    self.line(&format!("if ({c}) {{"));
                    self.depth += 1;
                    self.local_work(budget - 1);
                    self.depth -= 1;
                    self.line("} else {");
                    self.depth += 1;
                    self.local_work(budget - 1);
                    self.depth -= 1;
                    self.line("}");
                }
                3 => {
                    let i = format!("i{}", self.loops);
                    self.loops += 1;
                    self.line(&format!("for (int {i} = 0; {i} < (x & 3); {i}++)"));
                    let e = self.expr();
                    self.line(&format!("    acc = (acc + {e} + {i}) & 4095;"));
                }
                _ => {
                    let e = self.expr();
                    self.line(&format!("atomic_add(&cnt[({e}) & 3], 1);"));
                }
            }
        }
    }

    /// One phase: every work-item writes its slot, a barrier, reads.
    fn phase(&mut self) {
        self.line("tile[lid] = acc;");
        self.line("barrier(CLK_LOCAL_MEM_FENCE);");
        let k = self.rng.below(6);
        let read = match self.rng.below(3) {
            0 => format!("tile[(lid + {k}) % ls]"),
            1 => "tile[ls - 1 - lid]".to_string(),
            _ => "tile[0]".to_string(),
        };
        self.line(&format!("v = {read};"));
        self.local_work(2);
        self.line("barrier(CLK_LOCAL_MEM_FENCE);");
    }

    fn body(&mut self) {
        for _ in 0..1 + self.rng.below(3) {
            match self.rng.below(3) {
                0 => self.phase(),
                1 => {
                    // A uniform loop around barriers.
                    let i = format!("r{}", self.loops);
                    self.loops += 1;
                    let trips = self.rng.below(3) + 1;
                    self.line(&format!("for (int {i} = 0; {i} < {trips}; {i}++) {{"));
                    self.depth += 1;
                    self.phase();
                    self.line(&format!("acc = (acc + v + {i}) & 4095;"));
                    self.depth -= 1;
                    self.line("}");
                }
                _ => {
                    // A uniform branch around a barrier (n is an argument).
                    let t = self.rng.below(30);
                    self.line(&format!("if (n > {t}) {{"));
                    self.depth += 1;
                    self.phase();
                    self.depth -= 1;
                    self.line("}");
                }
            }
        }
    }
}

fn generate(seed: u64) -> String {
    let mut g = Gen {
        rng: Rng::new(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1),
        out: String::new(),
        depth: 1,
        loops: 0,
    };
    g.out.push_str(
        "__kernel void k(__global const int *a, __global int *out, __global int *counts, int n)\n{\n",
    );
    g.line("__local int tile[64];");
    g.line("__local int cnt[4];");
    g.line("int x = get_global_id(0);");
    g.line("int lid = get_local_id(0);");
    g.line("int ls = get_local_size(0);");
    g.line("int acc = a[x & 63];");
    g.line("int v = 0;");
    g.line("for (int b = lid; b < 4; b += ls)");
    g.line("    cnt[b] = 0;");
    g.line("barrier(CLK_LOCAL_MEM_FENCE);");
    g.body();
    g.line("out[x] = acc ^ v;");
    g.line("barrier(CLK_LOCAL_MEM_FENCE);");
    g.line("for (int b = lid; b < 4; b += ls)");
    g.line("    counts[get_group_id(0) * 4 + b] = cnt[b];");
    g.out.push_str("}\n");
    g.out
}

fn run(target: &str) {
    let spec = target_spec(target).unwrap();
    if !host_can_run(&spec) {
        eprintln!("SKIPPED: this machine cannot run {target}");
        return;
    }
    let w = spec.width as u64;
    let shapes = |_: u32, _: u64| {
        vec![
            NdRange::new_1d(37, 13),
            NdRange::new_1d(4 * w, 2 * w),
            NdRange::new_1d(64, 64),
        ]
    };
    let mut failures = Vec::new();
    let mut compared = 0;
    for seed in 0..seeds() {
        let text = generate(seed);
        let unit = check_text(
            "gen.cl",
            None,
            &text,
            &PreprocessOptions::default(),
            &RealFs,
        );
        assert!(
            !unit.has_errors(),
            "seed {seed}: invalid OpenCL C:\n{text}\n{:?}",
            unit.diagnostics
        );
        let k = unit.hir.kernels()[0];
        let what = format!("seed {seed} [{target}]");
        let o = check_kernel_with(&unit.hir, k, &spec, &Options::default(), &what, &shapes);
        if let Some(why) = o.not_run {
            failures.push(format!("{what}: not run: {why}\n{text}"));
            continue;
        }
        if !o.skipped.is_empty() {
            failures.push(format!(
                "{what}: the interpreter refused: {}\n{text}",
                o.skipped[0]
            ));
        }
        if !o.failures.is_empty() {
            failures.push(format!("{}\n{text}", o.failures.join("\n")));
        }
        compared += o.compared;
        if failures.len() > 3 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        compared >= 3 * seeds() as usize,
        "{compared} launches compared"
    );
}

/// 40 programs per target by default; `LANES_RANDOM_SEEDS=N` for more.
fn seeds() -> u64 {
    std::env::var("LANES_RANDOM_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40)
}

#[test]
fn sse4_x4() {
    run("sse4-i32x4");
}

#[test]
fn avx2_x8() {
    run("avx2-i32x8");
}

#[test]
fn avx512_x16() {
    run("avx512skx-x16");
}
