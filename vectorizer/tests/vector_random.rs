//! Random kernels against the vectorizer: nested divergent and uniform
//! `if`s, loops with lane-dependent trip counts, `break`, `continue`,
//! early `return`, `switch` with fall-through, gathers and sub-group
//! operations, generated as OpenCL C text. Each must vectorize, and the
//! vector-IR executor must leave exactly the scalar interpreter's bytes for
//! W = 4 and 8 on a launch with partial SIMD groups and work-groups.

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_text;
use lanes_vectorizer::interp::{self, ArgValue, NdRange};
use lanes_vectorizer::ir::{Const, Ty};
use lanes_vectorizer::report::analyze_kernel;
use lanes_vectorizer::vectorize::vectorize;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Gen {
    rng: Rng,
    out: String,
    loops: u32,
    /// Loop counters in scope.
    counters: Vec<String>,
    budget: u32,
    in_loop: u32,
}

impl Gen {
    fn line(&mut self, depth: usize, s: &str) {
        self.out.push_str(&"    ".repeat(depth));
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn atom(&mut self) -> String {
        let mut options = vec![
            "v0".to_string(),
            "acc".to_string(),
            "x".to_string(),
            "n".to_string(),
            format!("{}", self.rng.below(7)),
            "a[(acc + x) & 63]".to_string(),
            "a[n & 63]".to_string(),
        ];
        options.extend(self.counters.iter().cloned());
        let i = self.rng.below(options.len() as u64) as usize;
        options.swap_remove(i)
    }

    fn expr(&mut self) -> String {
        let (a, b) = (self.atom(), self.atom());
        match self.rng.below(5) {
            0 => format!("({a} + {b})"),
            1 => format!("({a} * 3 - {b})"),
            2 => format!("({a} ^ {b})"),
            3 => format!("({a} / (({b} & 3) + 1))"),
            _ => a,
        }
    }

    fn cond(&mut self) -> String {
        let e = self.expr();
        match self.rng.below(6) {
            0 => format!("({e} & 1) == 0"),
            1 => format!("{e} % 3 == 1"),
            2 => "n > 20".to_string(), // uniform
            3 => format!("sub_group_any(({e} & 3) == 0)"),
            4 => format!("{e} > {}", self.rng.below(40)),
            _ => format!("x < {}", self.rng.below(40)),
        }
    }

    fn stmts(&mut self, depth: usize) {
        let n = 1 + self.rng.below(3);
        for _ in 0..n {
            self.stmt(depth);
        }
    }

    fn stmt(&mut self, depth: usize) {
        let compound = depth < 5 && self.budget > 0;
        let pick = if compound {
            self.rng.below(12)
        } else {
            self.rng.below(3)
        };
        if compound && pick >= 3 {
            self.budget -= 1;
        }
        match pick {
            0 | 1 => {
                let e = self.expr();
                self.line(depth, &format!("acc = (acc + {e}) & 1023;"));
            }
            2 => {
                let e = self.expr();
                match self.rng.below(4) {
                    0 => self.line(
                        depth,
                        &format!("acc = (acc + sub_group_reduce_add({e} & 15)) & 1023;"),
                    ),
                    1 => self.line(
                        depth,
                        &format!("acc = (acc + sub_group_scan_inclusive_add({e} & 7)) & 1023;"),
                    ),
                    2 => self.line(depth, &format!("out[x] = {e};")),
                    _ => self.line(depth, &format!("acc = max(acc, {e} & 255);")),
                }
            }
            3 | 4 => {
                let c = self.cond();
                self.line(depth, &format!("if ({c}) {{"));
                self.stmts(depth + 1);
                if self.rng.below(2) == 0 {
                    self.line(depth, "} else {");
                    self.stmts(depth + 1);
                }
                self.line(depth, "}");
            }
            5 | 6 => {
                self.loops += 1;
                let i = format!("i{}", self.loops);
                let bound = match self.rng.below(4) {
                    0 => "(v0 & 3) + 1".to_string(),
                    1 => "n & 3".to_string(),
                    2 => format!("{}", 1 + self.rng.below(4)),
                    _ => "(a[(x * 7) & 63] & 3)".to_string(),
                };
                // A per-lane start with gathers: a loop the vectorizer runs
                // lane by lane.
                let per_lane = self.rng.below(3) == 0;
                let start = if per_lane { "(v0 & 3)" } else { "0" };
                let end = if per_lane {
                    format!("(v0 & 3) + {bound}")
                } else {
                    bound
                };
                self.line(
                    depth,
                    &format!("for (int {i} = {start}; {i} < {end}; {i}++) {{"),
                );
                if per_lane {
                    self.line(
                        depth + 1,
                        &format!("acc = (acc + a[({i} + x) & 63] * a[({i} * 3) & 63]) & 1023;"),
                    );
                }
                self.counters.push(i);
                self.in_loop += 1;
                self.stmts(depth + 1);
                self.in_loop -= 1;
                self.counters.pop();
                self.line(depth, "}");
            }
            7 => {
                self.loops += 1;
                let w = format!("w{}", self.loops);
                self.line(depth, &format!("int {w} = 0;"));
                self.line(depth, "do {");
                self.line(depth + 1, &format!("{w}++;"));
                self.counters.push(w.clone());
                self.in_loop += 1;
                self.stmts(depth + 1);
                self.in_loop -= 1;
                self.counters.pop();
                let c = self.cond();
                self.line(depth, &format!("}} while ({w} < 4 && ({c}));"));
            }
            8 if self.in_loop > 0 => {
                let c = self.cond();
                let what = if self.rng.below(2) == 0 {
                    "break"
                } else {
                    "continue"
                };
                self.line(depth, &format!("if ({c}) {what};"));
            }
            9 => {
                let c = self.cond();
                self.line(depth, &format!("if ({c}) {{ out[x] = acc; return; }}"));
            }
            10 => {
                let e = self.expr();
                self.line(depth, &format!("switch ({e} & 3) {{"));
                self.line(depth, "case 0:");
                self.stmts(depth + 1);
                self.line(depth + 1, "break;");
                self.line(depth, "case 1:");
                self.stmts(depth + 1);
                self.line(depth, "case 2:"); // fall-through from case 1
                self.stmts(depth + 1);
                self.line(depth + 1, "break;");
                self.line(depth, "default:");
                self.stmts(depth + 1);
                self.line(depth, "}");
            }
            _ => {
                let e = self.expr();
                self.line(depth, &format!("acc = (acc ^ {e}) & 1023;"));
            }
        }
    }
}

fn generate(seed: u64) -> String {
    let mut g = Gen {
        rng: Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1),
        out: String::new(),
        loops: 0,
        counters: Vec::new(),
        budget: 8,
        in_loop: 0,
    };
    g.out
        .push_str("__kernel void k(__global const int *a, __global int *out, int n)\n{\n");
    g.line(1, "int x = get_global_id(0);");
    g.line(1, "int v0 = a[x & 63];");
    g.line(1, "int acc = 0;");
    g.stmts(1);
    g.line(1, "out[x] = acc;");
    g.out.push_str("}\n");
    g.out
}

#[test]
fn random_kernels_vectorize_and_compute_what_the_scalar_program_computes() {
    let mut compared = 0;
    let mut serialized = 0;
    let mut failures = Vec::new();
    for seed in seeds() {
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
            "seed {seed}: generator wrote invalid OpenCL C:\n{text}"
        );
        let k = unit.hir.kernels()[0];
        for width in [4u32, 8] {
            let ka = analyze_kernel(&unit.hir, k, width).expect("analyses");
            let vf = match vectorize(&ka.func, &ka.cfg, &ka.div) {
                Ok(v) => v,
                Err(e) => {
                    failures.push(format!(
                        "seed {seed} W={width}: refused: {}\n{text}",
                        e.message
                    ));
                    continue;
                }
            };
            if lanes_vectorizer::vectorize::print(&vf).contains("lanes.serial") {
                serialized += 1;
            }
            let mut rng = Rng(seed + 17);
            let a: Vec<u8> = (0..128)
                .flat_map(|_| ((rng.below(50)) as i32).to_le_bytes())
                .collect();
            let args = vec![
                ArgValue::Buffer(a),
                ArgValue::Buffer(vec![0; 64 * 4]),
                ArgValue::Scalar(Const::Int(18 + seed % 7, Ty::I32)),
            ];
            let range = NdRange::new_1d(37, 13);
            let mut want = args.clone();
            if let Err(e) = interp::run(&ka.func, &range, &mut want, width) {
                failures.push(format!(
                    "seed {seed} W={width}: scalar run failed: {e}\n{text}"
                ));
                continue;
            }
            let mut got = args;
            if let Err(e) = interp::run_vector(&vf, &range, &mut got) {
                failures.push(format!(
                    "seed {seed} W={width}: {}\n{text}",
                    e.render(&unit.sources)
                ));
                continue;
            }
            compared += 1;
            if got[1] != want[1] {
                failures.push(format!("seed {seed} W={width}: `out` differs\n{text}"));
            }
        }
        if failures.len() > 3 {
            break;
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(compared >= 600, "{compared}");
    // Some kernels have loops the vectorizer runs lane by lane.
    assert!(serialized >= 20, "only {serialized} serialized loops");
}

/// `LANES_VEXEC_FILE=k.cl cargo test -p lanes-vectorizer --test
/// vector_random one_file -- --nocapture` runs one kernel file the same way
/// and prints both results (for minimizing a failure by hand).
#[test]
fn one_file() {
    let Ok(path) = std::env::var("LANES_VEXEC_FILE") else {
        return;
    };
    let text = lanes_frontend::source::read_source(std::path::Path::new(&path))
        .expect("reads")
        .text;
    let unit = check_text(
        "gen.cl",
        None,
        &text,
        &PreprocessOptions::default(),
        &RealFs,
    );
    assert!(!unit.has_errors());
    let k = unit.hir.kernels()[0];
    let width = 4;
    let ka = analyze_kernel(&unit.hir, k, width).expect("analyses");
    let vf = vectorize(&ka.func, &ka.cfg, &ka.div).expect("vectorizes");
    println!("{}", lanes_vectorizer::vectorize::print(&vf));
    let seed: u64 = std::env::var("LANES_VEXEC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(15);
    let mut rng = Rng(seed + 17);
    let a: Vec<u8> = (0..128)
        .flat_map(|_| ((rng.below(50)) as i32).to_le_bytes())
        .collect();
    let args = vec![
        ArgValue::Buffer(a),
        ArgValue::Buffer(vec![0; 64 * 4]),
        ArgValue::Scalar(Const::Int(18 + seed % 7, Ty::I32)),
    ];
    let range = NdRange::new_1d(37, 13);
    let mut want = args.clone();
    interp::run(&ka.func, &range, &mut want, width).expect("scalar run");
    let mut got = args;
    interp::run_vector(&vf, &range, &mut got).expect("vector run");
    let ints = |a: &ArgValue| match a {
        ArgValue::Buffer(b) => b
            .chunks(4)
            .take(37)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect::<Vec<_>>(),
        _ => vec![],
    };
    println!("want {:?}\ngot  {:?}", ints(&want[1]), ints(&got[1]));
}

/// 300 programs by default; `LANES_RANDOM_SEEDS=N` for a longer search.
fn seeds() -> std::ops::Range<u64> {
    let n = std::env::var("LANES_RANDOM_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    0..n
}
