//! CEGIS (the paper's concrete abduction with modulus literals) for the
//! branches and accesses no `min`/`max`/`select` piece decides: what is
//! found, in which words, within the default budget, and that nothing is
//! claimed where the obvious candidate is wrong.

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::{check_text, CheckedUnit};
use lanes_vectorizer::ir::{InstKind, ValueDef, ValueId};
use lanes_vectorizer::precond::smt::Enc;
use lanes_vectorizer::precond::{infer, Finding, Options, Outcome, Precondition, TargetKind};
use lanes_vectorizer::report::analyze_kernel;
use z3::ast::{Bool, Int};

const FWT: &str = include_str!("../../tests/kernels/precond/fast_walsh_transform.cl");
const BITONIC: &str = include_str!("../../tests/kernels/precond/bitonic_sort.cl");

fn unit(src: &str) -> CheckedUnit {
    let unit = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    unit
}

/// The findings with the default options (the default budget, in solver
/// resource units: the same findings however busy the machine is).
fn findings(src: &str, width: u32) -> Vec<Finding> {
    let u = unit(src);
    let k = *u.hir.kernels().first().expect("a kernel");
    let ka = analyze_kernel(&u.hir, k, width).expect("analyses");
    infer(&ka, &u.hir, k, &Options::new(width))
}

fn dump(fs: &[Finding]) -> String {
    fs.iter()
        .map(|f| format!("{:?} {:.0} ms {:?}\n", f.kind, f.millis, f.outcome))
        .collect()
}

fn found(f: &Finding) -> &Precondition {
    match &f.outcome {
        Outcome::Found(p) => p,
        o => panic!("{:?} at {:?}: {o:?}", f.kind, f.span),
    }
}

/// Uniform only when the group starts at a multiple of 8: a modulus
/// literal found by CEGIS. At 16 lanes the condition changes inside every
/// group: nothing may be claimed.
#[test]
fn modulus_literal_and_no_precondition() {
    let src = r#"
__kernel void k(__global int *a) {
    int x = get_global_id(0);
    if ((x / 8) % 2 == 0)
        a[x] = 1;
}
"#;
    let fs = findings(src, 8);
    eprintln!("{}", dump(&fs));
    let b = fs.iter().find(|f| f.kind == TargetKind::Branch).unwrap();
    let p = found(b);
    assert_eq!(p.method, "cegis");
    assert_eq!(p.group.as_deref(), Some("x0 % 8 == 0"), "{p:?}");
    assert_eq!(p.lane, "(x - get_sub_group_local_id()) % 8 == 0");
    assert_eq!(
        p.exact,
        "((long)x - (long)get_sub_group_local_id()) % 8 == 0"
    );
    let fs = findings(src, 16);
    let b = fs.iter().find(|f| f.kind == TargetKind::Branch).unwrap();
    assert!(matches!(b.outcome, Outcome::NotFound(_)), "{:?}", b.outcome);
}

/// The paper's FastWalshTransform: `tid % step` and `tid / step` make all
/// four accesses gathers and scatters; when the step and the group's first
/// id are multiples of W they are packed (the paper's `t mod 4 = 0`).
#[test]
fn fast_walsh_transform_is_packed_when_step_and_group_are_aligned() {
    for w in [4, 8, 16] {
        let fs = findings(FWT, w);
        eprintln!("W = {w}:\n{}", dump(&fs));
        let accesses: Vec<&Finding> = fs.iter().filter(|f| f.kind == TargetKind::Access).collect();
        assert_eq!(accesses.len(), 4, "{}", dump(&fs));
        for f in accesses {
            let p = found(f);
            assert_eq!(p.method, "cegis");
            assert_eq!(
                p.lane,
                format!("step % {w} == 0 && (tid - get_sub_group_local_id()) % {w} == 0")
            );
            assert_eq!(
                p.exact,
                format!(
                    "((long)step) % {w} == 0 && ((long)tid - (long)get_sub_group_local_id()) % {w} == 0"
                )
            );
            assert_eq!(
                p.group.as_deref(),
                Some(format!("step % {w} == 0 && tid0 % {w} == 0").as_str())
            );
            assert_eq!(p.effect, "the access is a packed vector access");
        }
    }
}

/// BitonicSort: the same condition on `pair_distance` (an opaque `1 <<
/// (stage - pass)`, a variable of the synthesis) for its loads and
/// stores, and on `same_direction_block_width` for the direction branch;
/// the branches on loaded data get nothing.
#[test]
fn bitonic_sort() {
    let w = 8;
    let fs = findings(BITONIC, w);
    eprintln!("{}", dump(&fs));
    let branches: Vec<&Finding> = fs.iter().filter(|f| f.kind == TargetKind::Branch).collect();
    assert_eq!(branches.len(), 3, "{}", dump(&fs));
    assert_eq!(
        found(branches[0]).lane,
        "same_direction_block_width % 8 == 0 && (tid - get_sub_group_local_id()) % 8 == 0"
    );
    for b in &branches[1..] {
        assert!(matches!(b.outcome, Outcome::NotFound(_)), "{:?}", b.outcome);
    }
    let accesses: Vec<&Finding> = fs.iter().filter(|f| f.kind == TargetKind::Access).collect();
    assert_eq!(accesses.len(), 6, "{}", dump(&fs));
    for a in accesses {
        assert_eq!(
            found(a).lane,
            "pair_distance % 8 == 0 && (tid - get_sub_group_local_id()) % 8 == 0"
        );
    }
}

/// An id that is not `get_global_id(0)` itself: the residue moves with it,
/// and the condition is spelled with `get_global_id(0)`.
#[test]
fn an_offset_id_moves_the_residue() {
    let src = r#"
__kernel void k(__global float *data, uint step) {
    uint tid = get_global_id(0) + 8;
    uint i = 2 * step * (tid / step) + tid % step;
    data[i] = 2.0f * data[i];
}
"#;
    let fs = findings(src, 16);
    eprintln!("{}", dump(&fs));
    for f in fs.iter().filter(|f| f.kind == TargetKind::Access) {
        let p = found(f);
        assert_eq!(
            p.lane,
            "step % 16 == 0 && (get_global_id(0) - get_sub_group_local_id()) % 16 == 8"
        );
        assert_eq!(p.group.as_deref(), Some("step % 16 == 0 && x0 % 16 == 8"));
    }
}

/// Neither contiguous nor uniform for any step and group: nothing is
/// claimed. (`data[2 * (tid % step)]` would be uniform for `step == 1`.)
#[test]
fn strided_pairs_get_nothing() {
    let src = r#"
__kernel void k(__global float *data, uint step) {
    uint tid = get_global_id(0);
    data[2 * tid + tid % step] = 0.0f;
}
"#;
    let fs = findings(src, 8);
    eprintln!("{}", dump(&fs));
    let a = fs.iter().find(|f| f.kind == TargetKind::Access).unwrap();
    assert!(!matches!(a.outcome, Outcome::Found(_)), "{:?}", a.outcome);
}

/// The encoding the proofs use: `step % 16 == 0` alone (the obvious
/// candidate) does not make FastWalshTransform's first load packed, and Z3
/// says so with a group that starts off the 16-grid; with
/// `x0 % 16 == 0` it is proven.
#[test]
fn the_step_alone_is_refuted() {
    let w = 16;
    let u = unit(FWT);
    let k = *u.hir.kernels().first().unwrap();
    let ka = analyze_kernel(&u.hir, k, w).unwrap();
    let f = &ka.func;
    let ptr = f
        .insts
        .iter()
        .find_map(|i| match i.kind {
            InstKind::Load { ptr, .. } => Some(ptr),
            _ => None,
        })
        .unwrap();
    let offset = |e: &mut Enc<'_>| -> Int {
        let mut p = ptr;
        let mut off = Int::from_i64(0);
        while let Some(InstKind::PtrAdd { base, offset }) = f.def_inst(p).map(|i| &f.inst(i).kind) {
            off += e.int(*offset).unwrap();
            p = *base;
        }
        assert!(matches!(f.values[p.index()].def, ValueDef::Param(0)));
        off
    };
    let step_param = ValueId(
        f.values
            .iter()
            .position(|v| matches!(v.def, ValueDef::Param(1)))
            .unwrap() as u32,
    );
    let mut e0 = Enc::new(f, &ka.div, w, Some(0));
    let mut e1 = Enc::symbolic(f, &ka.div, w, 1, "a");
    let (o0, o1) = (offset(&mut e0), offset(&mut e1));
    let step = e0.int(step_param).unwrap();
    let packed = o1.eq(&(o0 + e1.lane() * Int::from_i64(4)));
    let mut products = e0.products();
    products.extend(e1.products());
    let lemmas = Enc::lemmas(&products, &[16]);
    let sixteen = Int::from_i64(16);
    let aligned_step = step.modulo(&sixteen).eq(Int::from_i64(0));
    let gid0 = Int::new_const("gid0");
    let aligned_group = gid0.modulo(&sixteen).eq(Int::from_i64(0));
    let check = |extra: &[Bool]| {
        let s = z3::Solver::new();
        s.assert(e0.assumptions());
        s.assert(e1.assumptions());
        for l in &lemmas {
            s.assert(l);
        }
        s.assert(packed.not());
        for x in extra {
            s.assert(x);
        }
        let r = s.check();
        (r, s.get_model())
    };
    let (r, model) = check(&[aligned_step.clone(), step.gt(Int::from_i64(0))]);
    assert_eq!(r, z3::SatResult::Sat);
    let m = model.unwrap();
    let x0 = m.eval(&gid0, true).and_then(|x| x.as_i64()).unwrap();
    let s = m.eval(&step, true).and_then(|x| x.as_i64()).unwrap();
    // A real counterexample: lanes of one group in two blocks of `step`.
    assert!(x0 % 16 != 0 && s % 16 == 0, "x0 {x0}, step {s}");
    let pair = |t: i64| 2 * s * (t / s) + t % s;
    assert!(
        (0..16).any(|l| pair(x0 + l) != pair(x0) + l),
        "x0 {x0}, step {s}"
    );
    let (r, _) = check(&[aligned_step, aligned_group]);
    assert_eq!(r, z3::SatResult::Unsat);
}

/// `--specialize auto` on the paper's kernels: one fast path around the
/// statements that compute and use FastWalshTransform's indices, inside
/// which the divisions are decided by the modulus facts and all four
/// accesses are packed (the original keeps its gathers and scatters);
/// BitonicSort's loads and stores likewise; PrefixSum's guards become
/// uniform branches inside their fast paths.
#[test]
fn fast_paths_make_the_accesses_packed_and_the_guards_uniform() {
    use lanes_vectorizer::report::{report, Pattern as AccessPattern};
    let w = 16;
    let kinds = |src: &str| -> Vec<(AccessPattern, Vec<bool>)> {
        let u = unit(src);
        let mut out = Vec::new();
        for k in u.hir.kernels() {
            let ka = analyze_kernel(&u.hir, k, w).unwrap();
            let r = report(&ka, &u.hir, k, &u.sources);
            let branches: Vec<bool> = r.branches.iter().map(|b| b.divergent).collect();
            for a in &r.accesses {
                out.push((a.pattern, branches.clone()));
            }
        }
        out
    };
    let s = lanes_vectorizer::precond::specialize(&unit(FWT), &Options::new(w));
    assert_eq!(s.applied.len(), 1, "{:?}", s.applied);
    assert_eq!(
        s.text.matches("uint group = tid % step;").count(),
        2,
        "the index computation is in both copies:\n{}",
        s.text
    );
    let pats: Vec<AccessPattern> = kinds(&s.text).into_iter().map(|x| x.0).collect();
    use AccessPattern::*;
    assert_eq!(
        pats,
        [Contiguous, Contiguous, Contiguous, Contiguous, Gather, Gather, Scatter, Scatter]
    );
    let s = lanes_vectorizer::precond::specialize(&unit(BITONIC), &Options::new(w));
    let pats: Vec<AccessPattern> = kinds(&s.text).into_iter().map(|x| x.0).collect();
    // The copy first: every access packed; the original keeps them all.
    let half = pats.len() / 2;
    assert!(pats[..half].iter().all(|p| *p == Contiguous), "{pats:?}");
    assert!(
        pats[half..].iter().all(|p| matches!(p, Gather | Scatter)),
        "{pats:?}"
    );
    let s = lanes_vectorizer::precond::specialize(
        &unit(include_str!("../../tests/kernels/precond/prefix_sum.cl")),
        &Options::new(w),
    );
    assert_eq!(
        s.text
            .matches("if (sub_group_all((long)lid < (long)d)) {")
            .count(),
        2,
        "{}",
        s.text
    );
    let u = unit(&s.text);
    // The launch-per-level kernels (the SDK's one-launch `group_prefixSum`
    // gets no fast path: its guards compare with a loop variable).
    for k in u
        .hir
        .kernels()
        .into_iter()
        .filter(|&k| u.hir.function(k).name.starts_with("prefix_sum_"))
    {
        let ka = analyze_kernel(&u.hir, k, w).unwrap();
        let r = report(&ka, &u.hir, k, &u.sources);
        // Only the guard in the original diverges (the checks and the guard
        // in the copy are uniform).
        let div: Vec<bool> = r.branches.iter().map(|b| b.divergent).collect();
        assert_eq!(div.iter().filter(|d| **d).count(), 1, "{div:?}");
    }
}
