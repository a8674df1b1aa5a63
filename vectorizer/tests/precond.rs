//! Inferred preconditions (issue 6): what is found, that it is proven,
//! and that nothing is claimed where nothing holds.

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::{check_text, CheckedUnit};
use lanes_vectorizer::precond::{infer, Budget, Exhausted, Finding, Options, Outcome, TargetKind};
use lanes_vectorizer::report::analyze_kernel;

fn unit(src: &str) -> CheckedUnit {
    let unit = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    unit
}

/// With the default budget (solver resource units, not time: the same
/// findings on an idle and on a loaded machine).
fn findings(src: &str, width: u32) -> Vec<Finding> {
    findings_within(src, width, Budget::default())
}

fn findings_within(src: &str, width: u32, budget: Budget) -> Vec<Finding> {
    let u = unit(src);
    let k = *u.hir.kernels().first().expect("a kernel");
    let ka = analyze_kernel(&u.hir, k, width).expect("analyses");
    let mut o = Options::new(width);
    o.budget = budget;
    infer(&ka, &u.hir, k, &o)
}

fn dump(fs: &[Finding]) -> String {
    fs.iter()
        .map(|f| format!("{:?} {:?}\n", f.kind, f.outcome))
        .collect()
}

const CONVOLUTION: &str = include_str!("../../examples/convolution.cl");

#[test]
fn convolution_loop() {
    for w in [4, 8, 16] {
        let fs = findings(CONVOLUTION, w);
        eprintln!("{}", dump(&fs));
        let lp = fs
            .iter()
            .find(|f| f.kind == TargetKind::Loop)
            .expect("the stencil loop");
        let Outcome::Found(p) = &lp.outcome else {
            panic!("{:?}", lp.outcome)
        };
        assert_eq!(p.lane, "vstep <= x && x < width - vstep");
    }
}

fn loops_of(src: &str, width: u32) -> Vec<(u32, bool)> {
    let u = unit(src);
    let k = *u.hir.kernels().first().expect("a kernel");
    let ka = analyze_kernel(&u.hir, k, width).expect("analyses");
    let r = lanes_vectorizer::report::report(&ka, &u.hir, k, &u.sources);
    r.loops
        .iter()
        .map(|l| (u.sources.line_col(l.span.file, l.span.start).0, l.divergent))
        .collect()
}

/// The fast path the code action inserts: inside the copy the loop is
/// uniform (the analyses assume P), the original stays divergent.
#[test]
fn convolution_fast_path_is_uniform_inside() {
    let u = unit(CONVOLUTION);
    let s = lanes_vectorizer::precond::specialize(&u, &Options::new(8));
    assert_eq!(s.applied.len(), 1, "{:?}", s.applied);
    assert_eq!(s.applied[0].condition, "vstep <= x && x < width - vstep");
    eprintln!("{}", s.text);
    let loops = loops_of(&s.text, 8);
    assert_eq!(loops.len(), 2, "{loops:?}");
    assert!(
        !loops[0].1 && loops[1].1,
        "copy uniform, original divergent: {loops:?}"
    );
    // The readable form, as the code action writes it, works the same way.
    let text = CONVOLUTION;
    let start = text.find("for (int i = left").unwrap();
    let end = start + text[start..].find("];").unwrap() + 2;
    let new = lanes_vectorizer::precond::specialize::fast_path(
        text,
        start,
        end,
        "vstep <= x && x < width - vstep",
    )
    .unwrap();
    let edited = format!("{}{}{}", &text[..start], new, &text[end..]);
    let loops = loops_of(&edited, 16);
    assert!(!loops[0].1 && loops[1].1, "{loops:?}");
}

fn found(fs: &[Finding], kind: TargetKind) -> &lanes_vectorizer::precond::Precondition {
    let f = fs
        .iter()
        .find(|f| f.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} target: {}", dump(fs)));
    match &f.outcome {
        Outcome::Found(p) => p,
        o => panic!("{kind:?}: {o:?}"),
    }
}

/// PolyBench's bounds guard: `x0 + W - 1 < n`.
#[test]
fn polybench_bounds_guard() {
    let src = r#"
__kernel void k(__global float *a, int n) {
    int i = get_global_id(0);
    if (i < n) {
        a[i] = 2.0f * a[i];
    }
}
"#;
    for w in [4, 8, 16] {
        let fs = findings(src, w);
        let p = found(&fs, TargetKind::Branch);
        assert_eq!(p.lane, "i < n");
        assert_eq!(
            p.group.as_deref(),
            Some(format!("i0 + {} < n", w - 1).as_str())
        );
    }
}

/// A clamped 3-point stencil: the clamped neighbours are gathers; inside
/// the image they are packed loads.
#[test]
fn clamped_jacobi_stencil() {
    let src = r#"
__kernel void k(__global const float *a, __global float *b, int n) {
    int i = get_global_id(0);
    if (i < n) {
        int l = max(i - 1, 0);
        int r = min(i + 1, n - 1);
        b[i] = 0.33333f * (a[l] + a[i] + a[r]);
    }
}
"#;
    let fs = findings(src, 8);
    let accesses: Vec<_> = fs
        .iter()
        .filter(|f| f.kind == TargetKind::Access)
        .map(|f| match &f.outcome {
            Outcome::Found(p) => p.lane.clone(),
            o => panic!("{o:?}"),
        })
        .collect();
    assert_eq!(accesses, ["1 <= i", "i < n - 1"], "{}", dump(&fs));
}

/// Where no condition on the group makes a target uniform, none is claimed.
#[test]
fn no_precondition_is_claimed_where_none_exists() {
    let src = r#"
__kernel void k(__global int *a) {
    int x = get_global_id(0);
    if ((x / 8) % 2 == 0)
        a[x] = 1;
}
"#;
    let fs = findings(src, 16);
    let b = fs.iter().find(|f| f.kind == TargetKind::Branch).unwrap();
    assert!(!matches!(b.outcome, Outcome::Found(_)), "{:?}", b.outcome);
}

/// A condition no SIMD group satisfies proves anything: `lid == 0` on
/// every lane (the SDK's `if (0 == localId)` before a group's one write)
/// is refuted, not offered as a fast path that never runs; `lid <= 0`
/// then gets the other side, `1 <= lid`, which every group but the first
/// satisfies.
#[test]
fn a_condition_no_group_satisfies_is_not_a_precondition() {
    for (ty, cond, want) in [
        ("size_t", "0 == lid", None),
        ("uint", "lid == 0", None),
        ("int", "lid <= 0", Some("1 <= lid")),
    ] {
        let src = format!(
            r#"
__kernel void k(__global float *avg, __global const float *a) {{
    {ty} lid = get_local_id(0);
    if ({cond})
        avg[get_group_id(0)] = a[0];
}}
"#
        );
        for w in [4, 8, 16] {
            let fs = findings(&src, w);
            let b = fs.iter().find(|f| f.kind == TargetKind::Branch).unwrap();
            let lane = match &b.outcome {
                Outcome::Found(p) => Some(p.lane.as_str()),
                _ => None,
            };
            assert_eq!(lane, want, "{ty} {cond}, W = {w}: {:?}", b.outcome);
        }
    }
}

/// Budgets are counts: a tight one cuts inference off at the same place on
/// every run (whatever the machine's load), with the same findings and the
/// same units spent; targets after the file's budget are not tried.
#[test]
fn budgets_cut_off_deterministically() {
    let src = r#"
__kernel void k(__global int *a, int n, int s) {
    int x = get_global_id(0);
    if ((x / 8) % 2 == 0)
        a[x] = 1;
    if ((x * s) % 3 == n)
        a[x] = 2;
    if ((x / s) % 5 == 1)
        a[x] = 3;
    if (x < n)
        a[x] = 4;
}
"#;
    let tight = Budget {
        target: 300_000,
        file: 400_000,
        ..Budget::default()
    };
    // Each run on a fresh thread: a fresh Z3 context, as for each file of
    // `lanes check`.
    let run = || {
        std::thread::spawn(move || {
            findings_within(src, 8, tight)
                .into_iter()
                .map(|f| (f.span, f.outcome, f.spent, f.queries))
                .collect::<Vec<_>>()
        })
        .join()
        .unwrap()
    };
    let first = run();
    assert_eq!(first, run());
    let untried = first
        .iter()
        .filter(|f| f.1 == Outcome::OutOfBudget(Exhausted::File))
        .count();
    assert!(untried >= 1, "{first:?}");
    // What was tried stayed within the file's budget (one step's overshoot).
    let spent: u64 = first.iter().map(|f| f.2).sum();
    assert!(spent < tight.file + 300_000, "{spent}");
    // The first target untried is the one L0302 points at, once.
    let found = findings_within(src, 8, tight);
    let diags = lanes_vectorizer::precond::diagnostics(&found);
    let file_notes: Vec<_> = diags
        .iter()
        .filter(|d| d.message.contains("the file's budget is spent"))
        .collect();
    assert_eq!(file_notes.len(), 1, "{diags:?}");
    let first_untried = found
        .iter()
        .find(|f| f.outcome == Outcome::OutOfBudget(Exhausted::File))
        .unwrap();
    assert_eq!(file_notes[0].span, first_untried.span);
}

/// The obvious group form (each condition at the lane where it binds,
/// values extrapolated from lane 0) is wrong when a value wraps inside the
/// group: the verifier refutes it, and only the per-lane form is offered.
#[test]
fn wrapping_value_refutes_the_obvious_group_form() {
    let src = r#"
__kernel void k(__global int *a, int n) {
    int x = get_global_id(0);
    uchar c = 255 - x;
    if (c < n)
        a[x] = 1;
}
"#;
    let fs = findings(src, 8);
    eprintln!("{}", dump(&fs));
    let p = found(&fs, TargetKind::Branch);
    assert_eq!(p.group, None, "{p:?}");
    assert!(
        p.rejected.iter().any(|r| r.contains("refuted")),
        "{:?}",
        p.rejected
    );
}

/// A precondition found for a branch whose condition divides by a uniform
/// divisor that may be negative (`s | 1`) must hold for negative divisors
/// too: C's quotient is then <= 0. `(m & 7) == 5` was once claimed here;
/// m = -3 satisfies it, and with s = -1 lanes with x % 5 == 3 take the
/// branch while the others do not. Every precondition found is checked by
/// running it beside the condition in the scalar interpreter, SIMD group
/// by SIMD group, for small m and s of both signs.
#[test]
fn a_negative_uniform_divisor_is_not_assumed_positive() {
    use lanes_vectorizer::interp::{self, ArgValue, NdRange};
    use lanes_vectorizer::ir::Const;
    const W: u32 = 8;
    let src = "__kernel void br(__global int *out, int m, int s)\n{\n    int x = get_global_id(0);\n    int acc = x;\n    if ((x / (s | 1)) % 5 == m)\n        acc -= 1000;\n    else\n        acc += m;\n    out[x] = acc;\n}\n";
    let fs = findings(src, W);
    eprintln!("{}", dump(&fs));
    for f in &fs {
        let Outcome::Found(p) = &f.outcome else {
            continue;
        };
        if f.kind != TargetKind::Branch {
            continue;
        }
        // P and the branch's condition, per lane.
        let check = format!(
            "__kernel void check(__global int *out, int m, int s)\n{{\n    int x = get_global_id(0);\n    out[x] = ((({})) ? 2 : 0) + (((x / (s | 1)) % 5 == m) ? 1 : 0);\n}}\n",
            p.lane
        );
        let u = unit(&check);
        let k = *u.hir.kernels().first().unwrap();
        let ka = analyze_kernel(&u.hir, k, W).expect("analyses");
        let n = 64usize;
        for m in -6i64..=6 {
            for s in [-7i64, -3, -2, -1, 0, 1, 2, 3] {
                let mut args = vec![
                    ArgValue::Buffer(vec![0; 4 * n]),
                    ArgValue::Scalar(Const::int(m, ka.func.params[1].ty)),
                    ArgValue::Scalar(Const::int(s, ka.func.params[2].ty)),
                ];
                interp::run(&ka.func, &NdRange::new_1d(n as u64, W as u64), &mut args, W)
                    .expect("runs");
                let ArgValue::Buffer(b) = &args[0] else {
                    unreachable!()
                };
                let v: Vec<i32> = b
                    .chunks(4)
                    .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
                    .collect();
                for g in v.chunks(W as usize) {
                    if g.iter().all(|&e| e & 2 != 0) {
                        assert!(
                            g.iter().all(|&e| e & 1 == g[0] & 1),
                            "`{}` holds on every lane of a SIMD group (m = {m}, s = {s}) whose lanes take different sides: {g:?}",
                            p.lane
                        );
                    }
                }
            }
        }
    }
}
