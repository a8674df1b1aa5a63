//! Tests of the stride/alignment lattice: lattice laws, exhaustive soundness
//! of every transformer against concrete lane vectors (W = 4 and 8), and the
//! precision the thesis promises.

use super::*;
use lanes_frontend::ast::AddressSpace;

// ---------------------------------------------------------------------------
// Grids and concretizations.

const STRIDES: std::ops::RangeInclusive<i64> = -4..=4;
const ALIGNS: [u64; 9] = [0, 1, 2, 3, 4, 6, 8, 12, 16];
const VARYING_ALIGNS: [u64; 4] = [1, 2, 4, 8];
const CONSTANTS: std::ops::RangeInclusive<i64> = -3..=3;
const WIDTHS: [usize; 2] = [4, 8];
/// Lane-0 multipliers k of strided concretizations; the large ones give
/// non-negative vectors with negative strides (for unsigned operations).
const KS: [i64; 16] = [-6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 9, 16, 32];

fn st(stride: i64, align: u64) -> Shape {
    Shape::Strided { stride, align }
}

fn va(align: u64) -> Shape {
    Shape::Varying { align }
}

fn op(shape: Shape) -> Operand {
    Operand::new(shape)
}

fn k(c: i64) -> Operand {
    Operand::constant(c)
}

/// Every non-bottom shape of the grid.
fn shape_grid() -> Vec<Shape> {
    let mut out = Vec::new();
    for s in STRIDES {
        for &a in &ALIGNS {
            out.push(st(s, a));
        }
    }
    out.extend(VARYING_ALIGNS.iter().map(|&a| va(a)));
    out
}

fn lattice_grid() -> Vec<Shape> {
    let mut g = shape_grid();
    g.push(Shape::Bottom);
    g
}

/// The grid shapes as non-constant operands, plus exact constants.
fn operand_grid() -> Vec<Operand> {
    let mut out: Vec<Operand> = shape_grid().into_iter().map(op).collect();
    out.extend(CONSTANTS.map(k));
    out
}

/// A fixed pseudo-random sequence (64-bit LCG), so failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// Uniform in lo..=hi.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo + 1) as u64;
        lo + (self.next() % span) as i64
    }
}

/// Concrete lane vectors of γ(operand), restricted to small values.
fn concretizations(o: Operand, w: usize) -> Vec<Vec<i64>> {
    if let Some(c) = o.constant {
        return vec![vec![c; w]];
    }
    match o.shape {
        Shape::Bottom => Vec::new(),
        Shape::Strided { stride, align } => {
            let ks: &[i64] = if align == 0 { &[0] } else { &KS };
            ks.iter()
                .map(|&k| {
                    (0..w)
                        .map(|t| align as i64 * k + stride * t as i64)
                        .collect()
                })
                .collect()
        }
        Shape::Varying { align } => {
            let a = align.max(1) as i64;
            let mut out = Vec::new();
            // Structured members: one non-zero lane, and all lanes equal.
            let mut first = vec![0; w];
            first[0] = a;
            let mut second = vec![0; w];
            second[1] = a;
            out.push(first);
            out.push(second);
            out.push(vec![a; w]);
            let mut rng = Lcg(0x5eed ^ (align << 8) ^ w as u64);
            let m = 24 / a;
            for _ in 0..6 {
                out.push((0..w).map(|_| a * rng.range(-m, m)).collect());
            }
            for _ in 0..3 {
                out.push((0..w).map(|_| a * rng.range(0, m)).collect());
            }
            out
        }
    }
}

/// Concretizations, keeping only non-negative vectors for unsigned
/// operations (the model's assumption).
fn concs(o: Operand, w: usize, unsigned: bool) -> Vec<Vec<i64>> {
    let mut v = concretizations(o, w);
    if unsigned {
        v.retain(|lanes| lanes.iter().all(|&x| x >= 0));
    }
    v
}

/// One lane of a concrete result.
#[derive(Clone, Copy, Debug)]
enum Lane {
    Val(i128),
    /// Undefined on this lane (division by zero): unconstrained.
    Undef,
}

const I32_RANGE: (i128, i128) = (i32::MIN as i128, i32::MAX as i128);
const I64_RANGE: (i128, i128) = (i64::MIN as i128, i64::MAX as i128);

/// Builds the lane vector of a result; `None` when a lane leaves the type's
/// range (a wrap, outside the model).
fn result_lanes(vals: &[Lane], range: (i128, i128)) -> Option<Vec<Option<i64>>> {
    vals.iter()
        .map(|l| match *l {
            Lane::Val(v) if v >= range.0 && v <= range.1 => Some(Some(v as i64)),
            Lane::Val(_) => None,
            Lane::Undef => Some(None),
        })
        .collect()
}

/// Checks `transfer(x, y, W)` against the lane-wise concrete operation for
/// every pair of grid operands and every pair of their concretizations.
fn check_binary_sound(
    name: &str,
    unsigned: bool,
    range: (i128, i128),
    transfer: &dyn Fn(Operand, Operand, usize) -> Shape,
    concrete: &dyn Fn(i128, i128) -> Lane,
) {
    let ops = operand_grid();
    let mut checked = 0usize;
    for &w in &WIDTHS {
        let cs: Vec<Vec<Vec<i64>>> = ops.iter().map(|&o| concs(o, w, unsigned)).collect();
        for (i, &x) in ops.iter().enumerate() {
            for (j, &y) in ops.iter().enumerate() {
                let out = transfer(x, y, w);
                assert!(!out.is_bottom(), "{name}: {x:?}, {y:?} gave ⊥");
                let mut vals = [Lane::Undef; 8];
                for vx in &cs[i] {
                    for vy in &cs[j] {
                        for t in 0..w {
                            vals[t] = concrete(i128::from(vx[t]), i128::from(vy[t]));
                        }
                        let Some(lanes) = result_lanes(&vals[..w], range) else {
                            continue;
                        };
                        checked += 1;
                        assert!(
                            in_gamma_partial(out, &lanes),
                            "{name} W={w}: {x:?} with {y:?} gave {out}, but {vx:?} with {vy:?} = {lanes:?}"
                        );
                    }
                }
            }
        }
    }
    assert!(checked > 10_000, "{name}: only {checked} vectors checked");
}

/// Soundness of `binary_w` for one operator on `i32`. This covers `binary`
/// too: `binary_w_is_at_least_as_precise_as_binary` checks
/// `binary_w(..) ⊑ binary(..)`, so γ(binary_w) ⊆ γ(binary).
fn check_binop(bop: BinOp, unsigned: bool, concrete: &dyn Fn(i128, i128) -> Lane) {
    check_binary_sound(
        bop.name(),
        unsigned,
        I32_RANGE,
        &|x, y, w| binary_w(bop, x, y, Ty::I32, w as u32),
        concrete,
    );
}

fn val(v: i128) -> Lane {
    Lane::Val(v)
}

fn shift_amount32(b: i128) -> u32 {
    b.rem_euclid(32) as u32
}

// ---------------------------------------------------------------------------
// Lattice laws.

#[test]
fn join_is_commutative_idempotent_and_bottom_is_neutral() {
    let g = lattice_grid();
    for &x in &g {
        assert_eq!(x.join(x), x, "idempotent {x:?}");
        assert_eq!(x.join(Shape::Bottom), x);
        assert_eq!(Shape::Bottom.join(x), x);
        for &y in &g {
            assert_eq!(x.join(y), y.join(x), "commutative {x:?} {y:?}");
        }
    }
}

#[test]
fn join_is_associative() {
    let g = lattice_grid();
    for &x in &g {
        for &y in &g {
            let xy = x.join(y);
            for &z in &g {
                assert_eq!(
                    xy.join(z),
                    x.join(y.join(z)),
                    "associative {x:?} {y:?} {z:?}"
                );
            }
        }
    }
}

#[test]
fn join_is_the_least_upper_bound() {
    let g = lattice_grid();
    for &x in &g {
        for &y in &g {
            let j = x.join(y);
            assert!(x.leq(j) && y.leq(j), "upper bound {x:?} {y:?} = {j:?}");
            for &z in &g {
                if x.leq(z) && y.leq(z) {
                    assert!(
                        j.leq(z),
                        "least: {x:?} ⊔ {y:?} = {j:?} but {z:?} is above both"
                    );
                }
            }
        }
    }
}

#[test]
fn leq_is_a_partial_order_consistent_with_join() {
    let g = lattice_grid();
    for &x in &g {
        assert!(x.leq(x));
        assert!(Shape::Bottom.leq(x), "bottom is least");
        assert!(x.leq(Shape::varying()), "varying() is the top: {x:?}");
        if x != Shape::Bottom {
            assert!(!x.leq(Shape::Bottom));
        }
        for &y in &g {
            assert_eq!(x.leq(y), x.join(y) == y, "leq/join {x:?} {y:?}");
            if x.leq(y) && y.leq(x) {
                assert_eq!(x, y, "antisymmetric");
            }
            if x.leq(y) {
                for &z in &g {
                    if y.leq(z) {
                        assert!(x.leq(z), "transitive {x:?} {y:?} {z:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn leq_is_inclusion_of_concretizations() {
    // x ⊑ y iff every vector of γ(x) is in γ(y): members of γ(x) are
    // checked against γ(y), and for x ⋢ y one of the samples is a witness.
    let g = shape_grid();
    for &w in &WIDTHS {
        for &x in &g {
            let samples = concretizations(op(x), w);
            for &y in &g {
                let all_in = samples.iter().all(|v| in_gamma(y, v));
                assert_eq!(x.leq(y), all_in, "W={w}: {x:?} ⊑ {y:?}");
            }
        }
    }
}

#[test]
fn join_contains_both_concretizations() {
    let g = shape_grid();
    for &x in &g {
        for &y in &g {
            let j = x.join(y);
            for v in concretizations(op(x), 4)
                .iter()
                .chain(concretizations(op(y), 4).iter())
            {
                assert!(in_gamma(j, v), "{x:?} ⊔ {y:?} = {j:?} misses {v:?}");
            }
        }
    }
}

#[test]
fn ascending_chains_are_short() {
    // Theorem 6: alignments only shrink by divisors, so a chain from any
    // grid shape to the top has few steps.
    let mut s = st(1, 16);
    let mut steps = 0;
    for next in [st(1, 8), st(1, 4), st(1, 2), st(1, 1), va(1)] {
        let j = s.join(next);
        assert!(s.leq(j));
        s = j;
        steps += 1;
    }
    assert_eq!(s, Shape::varying());
    assert_eq!(steps, 5);
}

#[test]
fn constructors_and_accessors() {
    assert_eq!(Shape::uniform(), st(0, 1));
    assert_eq!(Shape::constant(-12), st(0, 12));
    assert_eq!(Shape::constant(0), st(0, 0));
    assert_eq!(Shape::constant(i64::MIN), st(0, 1 << 63));
    assert_eq!(Shape::varying(), va(1));
    assert_eq!(Shape::strided(-3), st(-3, 1));
    assert_eq!(Shape::varying_aligned(0), Shape::zero());
    assert_eq!(Shape::varying_aligned(4), va(4));
    assert!(st(0, 16).is_uniform());
    assert!(!st(1, 16).is_uniform());
    assert!(!va(1).is_uniform());
    assert!(!Shape::Bottom.is_uniform());
    assert!(va(4).is_varying());
    assert!(!st(1, 1).is_varying());
    assert_eq!(st(4, 8).stride(), Some(4));
    assert_eq!(va(2).stride(), None);
    assert_eq!(st(4, 8).align(), Some(8));
    assert_eq!(va(2).align(), Some(2));
    assert_eq!(Shape::Bottom.align(), None);
    assert_eq!(st(4, 6).lane_align(), Some(2));
    assert_eq!(st(3, 0).lane_align(), Some(3));
    assert_eq!(st(0, 0).lane_align(), Some(0));
    assert_eq!(va(8).lane_align(), Some(8));
    // The invalid Varying{0} reads as the top element.
    assert_eq!(va(0).normalized(), Shape::varying());
    assert!(va(0).leq(va(1)) && va(1).leq(va(0)));
}

#[test]
fn basic_maps_to_uniform_or_varying() {
    assert_eq!(st(0, 16).basic(), Shape::uniform());
    assert_eq!(st(0, 0).basic(), Shape::uniform());
    assert_eq!(st(2, 16).basic(), Shape::varying());
    assert_eq!(va(8).basic(), Shape::varying());
    assert_eq!(Shape::Bottom.basic(), Shape::Bottom);
    for x in lattice_grid() {
        // basic() only ever loses information.
        assert!(x.leq(x.basic()), "{x:?}");
    }
}

#[test]
fn display() {
    assert_eq!(Shape::Bottom.to_string(), "⊥");
    assert_eq!(Shape::uniform().to_string(), "uniform");
    assert_eq!(st(0, 16).to_string(), "uniform (align 16)");
    assert_eq!(st(0, 0).to_string(), "uniform (align 0)");
    assert_eq!(st(4, 1).to_string(), "strided(4)");
    assert_eq!(st(4, 16).to_string(), "strided(4, align 16)");
    assert_eq!(st(-2, 8).to_string(), "strided(-2, align 8)");
    assert_eq!(va(1).to_string(), "varying");
    assert_eq!(va(4).to_string(), "varying (align 4)");
}

// ---------------------------------------------------------------------------
// Membership.

#[test]
fn in_gamma_strided() {
    assert!(in_gamma(st(1, 0), &[0, 1, 2, 3]));
    assert!(!in_gamma(st(1, 0), &[4, 5, 6, 7]));
    assert!(in_gamma(st(1, 4), &[4, 5, 6, 7]));
    assert!(in_gamma(st(1, 4), &[-8, -7, -6, -5]));
    assert!(!in_gamma(st(1, 4), &[5, 6, 7, 8]));
    assert!(!in_gamma(st(1, 4), &[4, 5, 6, 8]));
    assert!(in_gamma(st(-2, 3), &[3, 1, -1, -3]));
    assert!(in_gamma(st(0, 1), &[7, 7, 7, 7]));
    assert!(!in_gamma(st(0, 1), &[7, 7, 7, 8]));
    assert!(in_gamma(st(0, 0), &[0, 0, 0, 0]));
    assert!(!in_gamma(st(0, 0), &[1, 1, 1, 1]));
    // Extreme values do not overflow.
    assert!(in_gamma(st(i64::MAX, 1), &[0, i64::MAX]));
    assert!(!in_gamma(st(i64::MAX, 1), &[0, i64::MAX, 0]));
}

#[test]
fn in_gamma_varying_and_bottom() {
    assert!(in_gamma(va(4), &[4, -8, 0, 12]));
    assert!(!in_gamma(va(4), &[4, -8, 2, 12]));
    assert!(in_gamma(va(1), &[3, -5, 7, 1]));
    assert!(!in_gamma(Shape::Bottom, &[0, 0, 0, 0]));
    assert!(!in_gamma(Shape::Bottom, &[]));
    assert!(in_gamma(va(3), &[]));
}

#[test]
fn in_gamma_partial_ignores_undefined_lanes() {
    assert!(in_gamma_partial(st(1, 4), &[None, Some(5), None, Some(7)]));
    assert!(!in_gamma_partial(st(1, 4), &[None, Some(6), None, Some(8)]));
    assert!(in_gamma_partial(st(0, 3), &[None, None]));
    assert!(in_gamma_partial(va(2), &[Some(2), None, Some(-4)]));
    assert!(!in_gamma_partial(va(2), &[Some(3), None]));
}

// ---------------------------------------------------------------------------
// Exhaustive soundness, one test per transfer function.

#[test]
fn sound_add() {
    check_binop(BinOp::Add, false, &|a, b| val(a + b));
}

#[test]
fn sound_sub() {
    check_binop(BinOp::Sub, false, &|a, b| val(a - b));
}

#[test]
fn sound_mul() {
    check_binop(BinOp::Mul, false, &|a, b| val(a * b));
}

#[test]
fn sound_sdiv() {
    check_binop(BinOp::SDiv, false, &|a, b| {
        if b == 0 {
            Lane::Undef
        } else {
            val(a / b)
        }
    });
}

#[test]
fn sound_udiv() {
    check_binop(BinOp::UDiv, true, &|a, b| {
        if b == 0 {
            Lane::Undef
        } else {
            val(a / b)
        }
    });
}

#[test]
fn sound_srem() {
    check_binop(BinOp::SRem, false, &|a, b| {
        if b == 0 {
            Lane::Undef
        } else {
            val(a % b)
        }
    });
}

#[test]
fn sound_urem() {
    check_binop(BinOp::URem, true, &|a, b| {
        if b == 0 {
            Lane::Undef
        } else {
            val(a % b)
        }
    });
}

#[test]
fn sound_shl() {
    check_binop(BinOp::Shl, false, &|a, b| val(a << shift_amount32(b)));
}

#[test]
fn sound_ashr() {
    check_binop(BinOp::AShr, false, &|a, b| val(a >> shift_amount32(b)));
}

#[test]
fn sound_lshr() {
    check_binop(BinOp::LShr, true, &|a, b| val(a >> shift_amount32(b)));
}

#[test]
fn sound_and() {
    check_binop(BinOp::And, false, &|a, b| val(a & b));
}

#[test]
fn sound_or() {
    check_binop(BinOp::Or, false, &|a, b| val(a | b));
}

#[test]
fn sound_xor() {
    check_binop(BinOp::Xor, false, &|a, b| val(a ^ b));
}

#[test]
fn sound_ptr_add() {
    check_binary_sound(
        "ptr_add",
        false,
        I64_RANGE,
        &|x, y, _| ptr_add(x, y),
        &|a, b| val(a + b),
    );
}

fn check_min_max(func: MathFn, unsigned: bool, f: fn(i128, i128) -> i128) {
    check_binary_sound(
        func.name(),
        unsigned,
        I32_RANGE,
        &|x, y, _| math(func, &[x, y], Ty::I32),
        &|a, b| val(f(a, b)),
    );
}

#[test]
fn sound_smin_smax() {
    check_min_max(MathFn::SMin, false, |a, b| a.min(b));
    check_min_max(MathFn::SMax, false, |a, b| a.max(b));
}

#[test]
fn sound_umin_umax() {
    check_min_max(MathFn::UMin, true, |a, b| a.min(b));
    check_min_max(MathFn::UMax, true, |a, b| a.max(b));
}

const INT_PREDS: [CmpPred; 10] = [
    CmpPred::Eq,
    CmpPred::Ne,
    CmpPred::Slt,
    CmpPred::Sle,
    CmpPred::Sgt,
    CmpPred::Sge,
    CmpPred::Ult,
    CmpPred::Ule,
    CmpPred::Ugt,
    CmpPred::Uge,
];

fn eval_pred(pred: CmpPred, a: i128, b: i128) -> bool {
    match pred {
        CmpPred::Eq => a == b,
        CmpPred::Ne => a != b,
        CmpPred::Slt | CmpPred::Ult => a < b,
        CmpPred::Sle | CmpPred::Ule => a <= b,
        CmpPred::Sgt | CmpPred::Ugt => a > b,
        CmpPred::Sge | CmpPred::Uge => a >= b,
        _ => unreachable!("integer predicates only"),
    }
}

fn is_unsigned(pred: CmpPred) -> bool {
    matches!(
        pred,
        CmpPred::Ult | CmpPred::Ule | CmpPred::Ugt | CmpPred::Uge
    )
}

#[test]
fn sound_compare_signed() {
    for pred in INT_PREDS.into_iter().filter(|&p| !is_unsigned(p)) {
        check_binary_sound(
            pred.name(),
            false,
            I32_RANGE,
            &|x, y, w| {
                let r = compare(pred, x, y, w as u32);
                assert!(
                    r == Shape::uniform() || r == Shape::varying(),
                    "boolean shape {r:?}"
                );
                r
            },
            &|a, b| val(i128::from(eval_pred(pred, a, b))),
        );
    }
}

#[test]
fn sound_compare_unsigned() {
    for pred in INT_PREDS.into_iter().filter(|&p| is_unsigned(p)) {
        check_binary_sound(
            pred.name(),
            true,
            I32_RANGE,
            &|x, y, w| compare(pred, x, y, w as u32),
            &|a, b| val(i128::from(eval_pred(pred, a, b))),
        );
    }
}

#[test]
fn sound_iabs() {
    let mut checked = 0;
    for &w in &WIDTHS {
        for x in operand_grid() {
            let out = math(MathFn::IAbs, &[x], Ty::I32);
            for v in concretizations(x, w) {
                let r: Vec<i64> = v.iter().map(|a| a.abs()).collect();
                checked += 1;
                assert!(in_gamma(out, &r), "iabs {x:?} = {out}, but |{v:?}| = {r:?}");
            }
        }
    }
    assert!(checked > 1000);
}

/// Boolean vectors (as 0/1 lanes) of a condition shape.
fn bool_vectors(cond: Shape, w: usize) -> Vec<Vec<i64>> {
    let mut out = vec![vec![0; w], vec![1; w]];
    if !cond.is_uniform() {
        out.push((0..w).map(|t| (t % 2) as i64).collect());
        out.push((0..w).map(|t| i64::from(t == 0)).collect());
        out.push((0..w).map(|t| i64::from(t + 1 == w)).collect());
        let mut rng = Lcg(0xb001 ^ w as u64);
        for _ in 0..3 {
            out.push((0..w).map(|_| rng.range(0, 1)).collect());
        }
    }
    out
}

#[test]
fn sound_select() {
    // A smaller grid: three operands per check.
    let mut ops: Vec<Operand> = Vec::new();
    for s in -2..=2 {
        for a in [0, 1, 2, 3, 4] {
            ops.push(op(st(s, a)));
        }
    }
    ops.extend([1, 2, 4].map(|a| op(va(a))));
    ops.extend((-2..=2).map(k));
    let mut checked = 0;
    for &w in &WIDTHS {
        let small = |o: Operand| -> Vec<Vec<i64>> {
            let mut v = concretizations(o, w);
            v.truncate(9);
            v
        };
        for cond in [Shape::uniform(), Shape::varying(), st(1, 1)] {
            let cvs = bool_vectors(cond, w);
            for &x in &ops {
                for &y in &ops {
                    let out = select(cond, x, y);
                    for c in &cvs {
                        for vx in small(x) {
                            for vy in small(y) {
                                let r: Vec<i64> = (0..w)
                                    .map(|t| if c[t] != 0 { vx[t] } else { vy[t] })
                                    .collect();
                                checked += 1;
                                assert!(
                                    in_gamma(out, &r),
                                    "select({cond}, {x:?}, {y:?}) = {out}, but {c:?} ? {vx:?} : {vy:?} = {r:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 100_000);
}

fn fits(v: i64, ty: Ty) -> bool {
    let bits = ty.bits();
    bits >= 64 || (v >= -(1i64 << (bits - 1)) && v < (1i64 << (bits - 1)))
}

#[test]
fn sound_int_casts() {
    let ptr = Ty::Ptr(AddressSpace::Global);
    let cases = [
        (CastOp::Trunc, Ty::I64, Ty::I32),
        (CastOp::Trunc, Ty::I32, Ty::I8),
        (CastOp::Trunc, Ty::I16, Ty::I8),
        (CastOp::SExt, Ty::I32, Ty::I64),
        (CastOp::SExt, Ty::I8, Ty::I32),
        (CastOp::ZExt, Ty::I32, Ty::I64),
        (CastOp::ZExt, Ty::I8, Ty::I16),
        (CastOp::PtrToInt, ptr, Ty::I64),
        (CastOp::IntToPtr, Ty::I64, ptr),
        (CastOp::PtrCast, ptr, Ty::Ptr(AddressSpace::Private)),
        (CastOp::Bitcast, Ty::I32, Ty::I32),
    ];
    let mut checked = 0;
    for (cop, from, to) in cases {
        for &w in &WIDTHS {
            for x in operand_grid() {
                let out = cast(cop, x, from, to);
                for v in concretizations(x, w) {
                    // In the model: the value fits the source and the target
                    // type, and zext sees non-negative values.
                    if !v.iter().all(|&a| fits(a, from) && fits(a, to)) {
                        continue;
                    }
                    if cop == CastOp::ZExt && v.iter().any(|&a| a < 0) {
                        continue;
                    }
                    checked += 1;
                    assert!(
                        in_gamma(out, &v),
                        "{cop:?} {from}->{to}: {x:?} = {out} misses {v:?}"
                    );
                }
            }
        }
    }
    assert!(checked > 10_000);
}

#[test]
fn sound_casts_through_basic_lattice() {
    // int -> float, float -> int, i1 -> int, int -> i1: uniform iff all
    // lanes are equal (the conversions are injective on small values, and
    // trunc to i1 keeps the low bit).
    let cases = [
        (CastOp::SiToFp, Ty::I32, Ty::F32),
        (CastOp::UiToFp, Ty::I32, Ty::F64),
        (CastOp::Bitcast, Ty::I32, Ty::F32),
        (CastOp::FpToSi, Ty::F32, Ty::I32),
        (CastOp::FpToUiSat, Ty::F64, Ty::I64),
        (CastOp::ZExt, Ty::I1, Ty::I32),
        (CastOp::SExt, Ty::I1, Ty::I32),
        (CastOp::Trunc, Ty::I32, Ty::I1),
    ];
    for (cop, from, to) in cases {
        for &w in &WIDTHS {
            let inputs: Vec<Operand> = if from.is_float() || from == Ty::I1 {
                vec![op(Shape::uniform()), op(Shape::varying())]
            } else {
                operand_grid()
            };
            for x in inputs {
                let out = cast(cop, x, from, to);
                if to.is_float() || to == Ty::I1 || from.is_float() || from == Ty::I1 {
                    assert!(
                        out == Shape::uniform() || out == Shape::varying(),
                        "{cop:?}: {out:?}"
                    );
                }
                let vectors = if from == Ty::I1 {
                    bool_vectors(x.shape, w)
                } else {
                    concretizations(x, w)
                };
                for v in vectors {
                    let r: Vec<i64> = v
                        .iter()
                        .map(|&a| match (cop, to) {
                            (CastOp::SExt, _) if from == Ty::I1 => -(a & 1),
                            (CastOp::Trunc, Ty::I1) => a & 1,
                            _ => a,
                        })
                        .collect();
                    assert!(in_gamma(out, &r), "{cop:?} {x:?} = {out} misses {r:?}");
                }
            }
        }
    }
}

#[test]
fn constant_casts_are_exact() {
    assert_eq!(
        cast(CastOp::ZExt, k(-1), Ty::I32, Ty::I64),
        Shape::constant(4294967295)
    );
    assert_eq!(
        cast(CastOp::SExt, k(-1), Ty::I32, Ty::I64),
        Shape::constant(-1)
    );
    assert_eq!(
        cast(CastOp::Trunc, k(300), Ty::I32, Ty::I8),
        Shape::constant(44)
    );
    assert_eq!(
        cast(CastOp::Trunc, k(0x1_0000_0010), Ty::I64, Ty::I32),
        Shape::constant(16)
    );
    assert_eq!(
        cast(CastOp::ZExt, k(-1), Ty::I1, Ty::I32),
        Shape::constant(1)
    );
    assert_eq!(
        cast(CastOp::SExt, k(-1), Ty::I1, Ty::I32),
        Shape::constant(-1)
    );
    assert_eq!(
        cast(CastOp::SiToFp, k(7), Ty::I32, Ty::F32),
        Shape::uniform()
    );
    assert_eq!(cast(CastOp::Trunc, k(6), Ty::I32, Ty::I1), Shape::uniform());
}

#[test]
fn float_and_boolean_operations_use_the_basic_lattice() {
    let u = op(Shape::uniform());
    let v = op(Shape::varying());
    assert_eq!(binary(BinOp::FAdd, u, u, Ty::F32), Shape::uniform());
    assert_eq!(binary(BinOp::FMul, u, v, Ty::F64), Shape::varying());
    assert_eq!(
        binary(BinOp::FDiv, op(Shape::Bottom), u, Ty::F32),
        Shape::Bottom
    );
    assert_eq!(fneg(Shape::uniform()), Shape::uniform());
    assert_eq!(fneg(Shape::varying()), Shape::varying());
    assert_eq!(fneg(Shape::Bottom), Shape::Bottom);
    assert_eq!(compare(CmpPred::FOlt, u, u, 8), Shape::uniform());
    assert_eq!(compare(CmpPred::FUno, u, v, 8), Shape::varying());
    assert_eq!(math(MathFn::Sqrt, &[u], Ty::F32), Shape::uniform());
    assert_eq!(math(MathFn::Pow, &[u, v], Ty::F32), Shape::varying());
    assert_eq!(
        math(MathFn::Fma, &[u, u, op(Shape::Bottom)], Ty::F32),
        Shape::Bottom
    );
    // Booleans: and/or/xor on i1, strided inputs read as varying.
    assert_eq!(binary(BinOp::And, u, u, Ty::I1), Shape::uniform());
    assert_eq!(binary(BinOp::Or, u, op(st(1, 1)), Ty::I1), Shape::varying());
    assert_eq!(binary(BinOp::Xor, v, u, Ty::I1), Shape::varying());
    // `and false` / `or true` are decided whatever the other side is.
    assert_eq!(binary(BinOp::And, v, k(0), Ty::I1), Shape::uniform());
    assert_eq!(
        binary(BinOp::Or, op(Shape::Bottom), k(-1), Ty::I1),
        Shape::uniform()
    );
    assert_eq!(binary(BinOp::Or, v, k(0), Ty::I1), Shape::varying());
}

#[test]
fn other_integer_math_is_generic() {
    let u = op(st(0, 4));
    let s = op(st(1, 1));
    for func in [
        MathFn::SMulHi,
        MathFn::UMulHi,
        MathFn::SAddSat,
        MathFn::UAddSat,
        MathFn::SSubSat,
        MathFn::USubSat,
        MathFn::Rotate,
    ] {
        assert_eq!(math(func, &[u, u], Ty::I32), Shape::uniform(), "{func:?}");
        assert_eq!(math(func, &[u, s], Ty::I32), Shape::varying(), "{func:?}");
        assert_eq!(math(func, &[op(Shape::Bottom), s], Ty::I32), Shape::Bottom);
    }
    for func in [MathFn::Popcount, MathFn::Clz, MathFn::Ctz] {
        assert_eq!(math(func, &[u], Ty::I32), Shape::uniform());
        assert_eq!(math(func, &[s], Ty::I32), Shape::varying());
    }
    // Malformed argument lists do not panic.
    assert_eq!(math(MathFn::SMin, &[s], Ty::I32), Shape::varying());
    assert_eq!(math(MathFn::IAbs, &[], Ty::I32), Shape::uniform());
}

// ---------------------------------------------------------------------------
// Bottom, monotonicity, W-awareness.

#[test]
fn bottom_operands_give_bottom_unless_decided() {
    let b = op(Shape::Bottom);
    let s = op(st(1, 1));
    for bop in [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::SDiv,
        BinOp::URem,
        BinOp::Shl,
        BinOp::AShr,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
    ] {
        assert_eq!(binary(bop, b, s, Ty::I32), Shape::Bottom, "{bop:?}");
        assert_eq!(binary(bop, s, b, Ty::I32), Shape::Bottom, "{bop:?}");
        assert_eq!(binary(bop, b, k(3), Ty::I32), Shape::Bottom, "{bop:?}");
    }
    assert_eq!(binary(BinOp::Mul, b, k(0), Ty::I32), Shape::zero());
    assert_eq!(binary(BinOp::And, k(0), b, Ty::I32), Shape::zero());
    assert_eq!(binary(BinOp::Or, b, k(-1), Ty::I32), Shape::constant(-1));
    assert_eq!(binary(BinOp::SDiv, k(0), b, Ty::I32), Shape::zero());
    assert_eq!(binary(BinOp::Shl, k(0), b, Ty::I32), Shape::zero());
    assert_eq!(ptr_add(b, s), Shape::Bottom);
    assert_eq!(compare(CmpPred::Slt, b, s, 4), Shape::Bottom);
    assert_eq!(compare(CmpPred::Eq, s, b, 4), Shape::Bottom);
    // Two constants are compared whatever shape they carry.
    let odd = Operand {
        shape: Shape::Bottom,
        constant: Some(1),
    };
    assert_eq!(compare(CmpPred::Eq, odd, k(2), 4), Shape::uniform());
    assert_eq!(cast(CastOp::SExt, b, Ty::I32, Ty::I64), Shape::Bottom);
    assert_eq!(cast(CastOp::SiToFp, b, Ty::I32, Ty::F32), Shape::Bottom);
    assert_eq!(select(Shape::Bottom, s, s), Shape::Bottom);
    // ⊥ (undef) arms: a uniform condition gives the other arm, a varying
    // one mixes lanes (varying); only a ⊥ condition stays ⊥.
    assert_eq!(select(Shape::uniform(), b, s), s.shape);
    assert!(select(Shape::varying(), b, k(3)).is_varying());
    assert_eq!(select(Shape::varying(), b, b), Shape::Bottom);
    assert_eq!(select(Shape::Bottom, k(5), k(5)), Shape::constant(5));
    assert_eq!(math(MathFn::SMin, &[b, s], Ty::I32), Shape::Bottom);
    assert_eq!(math(MathFn::IAbs, &[b], Ty::I32), Shape::Bottom);
}

/// f(x, y) ⊑ f(x', y) and f(y, x) ⊑ f(y, x') whenever x ⊑ x'.
fn check_monotone(name: &str, f: &dyn Fn(Operand, Operand) -> Shape) {
    let g = lattice_grid();
    for &x in &g {
        for &x2 in &g {
            if x == x2 || !x.leq(x2) {
                continue;
            }
            for &y in &g {
                let (a, b) = (f(op(x), op(y)), f(op(x2), op(y)));
                assert!(
                    a.leq(b),
                    "{name}: f({x:?}, {y:?}) = {a} ⋢ f({x2:?}, {y:?}) = {b}"
                );
                let (a, b) = (f(op(y), op(x)), f(op(y), op(x2)));
                assert!(
                    a.leq(b),
                    "{name}: f({y:?}, {x:?}) = {a} ⋢ f({y:?}, {x2:?}) = {b}"
                );
            }
        }
    }
}

const INT_BINOPS: [BinOp; 13] = [
    BinOp::Add,
    BinOp::Sub,
    BinOp::Mul,
    BinOp::SDiv,
    BinOp::UDiv,
    BinOp::SRem,
    BinOp::URem,
    BinOp::Shl,
    BinOp::LShr,
    BinOp::AShr,
    BinOp::And,
    BinOp::Or,
    BinOp::Xor,
];

#[test]
fn binary_transformers_are_monotone() {
    for bop in INT_BINOPS {
        check_monotone(bop.name(), &|x, y| binary(bop, x, y, Ty::I32));
        check_monotone(bop.name(), &|x, y| binary_w(bop, x, y, Ty::I32, 4));
    }
    check_monotone("ptr_add", &ptr_add);
}

#[test]
fn binary_transformers_with_a_constant_are_monotone() {
    let g = lattice_grid();
    for bop in INT_BINOPS {
        for c in CONSTANTS.chain([8, 16, -16, 7, 15]) {
            for &x in &g {
                for &x2 in &g {
                    if !x.leq(x2) {
                        continue;
                    }
                    for w in [None, Some(4)] {
                        let f = |s: Shape, swap: bool| {
                            let (l, r) = if swap { (k(c), op(s)) } else { (op(s), k(c)) };
                            match w {
                                None => binary(bop, l, r, Ty::I32),
                                Some(w) => binary_w(bop, l, r, Ty::I32, w),
                            }
                        };
                        for swap in [false, true] {
                            let (a, b) = (f(x, swap), f(x2, swap));
                            assert!(
                                a.leq(b),
                                "{bop:?} c={c} swap={swap} W={w:?}: {x:?} -> {a}, {x2:?} -> {b}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn other_transformers_are_monotone() {
    for pred in INT_PREDS {
        for w in [4, 8] {
            check_monotone(pred.name(), &|x, y| compare(pred, x, y, w));
        }
    }
    for func in [MathFn::SMin, MathFn::SMax, MathFn::UMin, MathFn::UMax] {
        check_monotone(func.name(), &|x, y| math(func, &[x, y], Ty::I32));
    }
    for cond in [Shape::uniform(), Shape::varying()] {
        check_monotone("select", &|x, y| select(cond, x, y));
    }
    let g = lattice_grid();
    for &x in &g {
        for &x2 in &g {
            if x.leq(x2) {
                let f = |s: Shape| math(MathFn::IAbs, &[op(s)], Ty::I32);
                assert!(f(x).leq(f(x2)), "iabs {x:?} {x2:?}");
                let c = |s: Shape| cast(CastOp::SExt, op(s), Ty::I32, Ty::I64);
                assert!(c(x).leq(c(x2)));
                assert!(select(x, op(st(1, 1)), op(st(0, 4))).leq(select(
                    x2,
                    op(st(1, 1)),
                    op(st(0, 4))
                )));
            }
        }
    }
}

#[test]
fn binary_w_is_at_least_as_precise_as_binary() {
    let ops = operand_grid();
    for bop in INT_BINOPS {
        for &x in &ops {
            for &y in &ops {
                let plain = binary(bop, x, y, Ty::I32);
                for w in [1, 4, 8] {
                    let aware = binary_w(bop, x, y, Ty::I32, w);
                    assert!(
                        aware.leq(plain),
                        "{bop:?} {x:?} {y:?} W={w}: {aware} vs {plain}"
                    );
                }
            }
        }
    }
}

#[test]
fn compare_is_exact_on_strided_operands() {
    // For strided and constant operands the comparison rule is exact: it
    // says varying iff some pair of concretizations gives a mixed result.
    let mut ops: Vec<Operand> = Vec::new();
    for s in STRIDES {
        for a in [0, 1, 2, 3, 4, 6, 8] {
            ops.push(op(st(s, a)));
        }
    }
    ops.extend(CONSTANTS.map(k));
    let w = 4usize;
    let wide = |o: Operand| -> Vec<Vec<i64>> {
        match (o.constant, o.shape) {
            (Some(c), _) => vec![vec![c; w]],
            (None, Shape::Strided { stride, align }) => {
                let ks: Vec<i64> = if align == 0 {
                    vec![0]
                } else {
                    (-12..=12).collect()
                };
                ks.iter()
                    .map(|&k| {
                        (0..w)
                            .map(|t| align as i64 * k + stride * t as i64)
                            .collect()
                    })
                    .collect()
            }
            _ => unreachable!(),
        }
    };
    let vecs: Vec<Vec<Vec<i64>>> = ops.iter().map(|&o| wide(o)).collect();
    for pred in [CmpPred::Eq, CmpPred::Slt, CmpPred::Sge, CmpPred::Sgt] {
        for (i, &x) in ops.iter().enumerate() {
            for (j, &y) in ops.iter().enumerate() {
                let mixed = vecs[i].iter().any(|vx| {
                    vecs[j].iter().any(|vy| {
                        let first = eval_pred(pred, vx[0].into(), vy[0].into());
                        (1..w).any(|t| eval_pred(pred, vx[t].into(), vy[t].into()) != first)
                    })
                });
                let expected = if mixed {
                    Shape::varying()
                } else {
                    Shape::uniform()
                };
                assert_eq!(
                    compare(pred, x, y, w as u32),
                    expected,
                    "{pred:?} {x:?} {y:?}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Precision: the thesis' examples and the common kernel idioms.

fn tid() -> Operand {
    op(Shape::strided(1))
}

fn n() -> Operand {
    op(Shape::uniform())
}

fn o(s: Shape) -> Operand {
    op(s)
}

#[test]
fn thesis_fig_10_1_negated_stride() {
    let tid = op(st(1, 4));
    assert_eq!(binary(BinOp::Mul, k(-2), tid, Ty::I32), st(-2, 8));
}

#[test]
fn thesis_fig_10_2_uniform_branch_on_aligned_bound() {
    // tid: (1, 4), k: (0, 8); `tid >= k` is uniform at W = 4.
    let r = compare(CmpPred::Sge, op(st(1, 4)), op(st(0, 8)), 4);
    assert_eq!(r, Shape::uniform());
    // Lanes 4k..4k+7 of a W = 8 group can straddle a multiple of 8.
    assert_eq!(
        compare(CmpPred::Sge, op(st(1, 4)), op(st(0, 8)), 8),
        Shape::varying()
    );
}

#[test]
fn thesis_fig_10_11_comparison_is_uniform() {
    // W = 4: tid = (1, 0); b = 4*l + tid >= 36*k.
    let tid = op(st(1, 0));
    let four_l = binary(BinOp::Mul, k(4), n(), Ty::I32);
    assert_eq!(four_l, st(0, 4));
    let lhs = binary(BinOp::Add, o(four_l), tid, Ty::I32);
    assert_eq!(lhs, st(1, 4));
    let rhs = binary(BinOp::Mul, n(), k(36), Ty::I32);
    assert_eq!(rhs, st(0, 36));
    assert_eq!(compare(CmpPred::Sge, o(lhs), o(rhs), 4), Shape::uniform());
    // The negated and mirrored variants: lhs < rhs, rhs <= lhs, rhs > lhs.
    for pred in [CmpPred::Slt, CmpPred::Uge, CmpPred::Ult] {
        assert_eq!(
            compare(pred, o(lhs), o(rhs), 4),
            Shape::uniform(),
            "{pred:?}"
        );
    }
    for pred in [CmpPred::Sle, CmpPred::Sgt, CmpPred::Ule, CmpPred::Ugt] {
        assert_eq!(
            compare(pred, o(rhs), o(lhs), 4),
            Shape::uniform(),
            "{pred:?}"
        );
    }
    // The strict `4*l + tid > 36*k` is NOT uniform: with 4*l == 36*k lane 0
    // is false and lanes 1..3 are true. The thesis' condition only covers
    // the non-strict direction.
    for pred in [CmpPred::Sgt, CmpPred::Sle, CmpPred::Ugt, CmpPred::Ule] {
        assert_eq!(
            compare(pred, o(lhs), o(rhs), 4),
            Shape::varying(),
            "{pred:?}"
        );
    }
    // At W = 8 the lanes 4l..4l+7 can cross a multiple of 36.
    assert_eq!(compare(CmpPred::Sge, o(lhs), o(rhs), 8), Shape::varying());
}

#[test]
fn thesis_fig_10_5_strided_f64_accesses() {
    // i: (1, 8); A: f64*, 8-byte aligned; p0 = &A[2*i], p1 = &A[2*i+1].
    let i = op(st(1, 8));
    let a = op(st(0, 8));
    // (b) natural lowering.
    let x = binary(BinOp::Mul, k(2), i, Ty::I64);
    assert_eq!(x, st(2, 16));
    let j = binary(BinOp::Add, o(x), k(1), Ty::I64);
    assert_eq!(j, st(2, 1));
    let off0 = binary(BinOp::Mul, o(x), k(8), Ty::I64);
    let off1 = binary(BinOp::Mul, o(j), k(8), Ty::I64);
    assert_eq!(ptr_add(a, o(off0)), st(16, 8));
    assert_eq!(ptr_add(a, o(off1)), st(16, 8));
    // (c) after InstCombine: shl and or.
    let x = binary(BinOp::Shl, i, k(1), Ty::I64);
    assert_eq!(x, st(2, 16));
    let j = binary(BinOp::Or, o(x), k(1), Ty::I64);
    assert_eq!(j, st(2, 1));
    let off0 = binary(BinOp::Shl, o(x), k(3), Ty::I64);
    let off1 = binary(BinOp::Shl, o(j), k(3), Ty::I64);
    assert_eq!(ptr_add(a, o(off0)), st(16, 8));
    assert_eq!(ptr_add(a, o(off1)), st(16, 8));
}

#[test]
fn thesis_fig_10_7_outer_loop_values_are_uniform() {
    // The figure's code is an image in the text; this reconstructs what the
    // text claims: with the vectorized induction variable i: (1, 4), W
    // dividing 4, and A, B 32-byte aligned, the division d and the pointer
    // Aptr are uniform, so only scalar code is needed.
    let i = op(st(1, 4));
    for w in [1, 2, 4] {
        let d = binary_w(BinOp::SDiv, i, k(4), Ty::I32, w);
        // sdiv rounds toward zero: only the non-negative model makes the
        // floor argument work, so udiv/lshr are what prove it.
        let du = binary_w(BinOp::UDiv, i, k(4), Ty::I32, w);
        let ds = binary_w(BinOp::LShr, i, k(2), Ty::I32, w);
        assert_eq!(du, Shape::uniform(), "W={w}");
        assert_eq!(ds, Shape::uniform(), "W={w}");
        assert!(d.is_varying(), "sdiv of possibly negative lanes, W={w}");
        let scaled = binary(BinOp::Mul, o(du), k(4), Ty::I64);
        let aptr = ptr_add(op(st(0, 32)), o(scaled));
        assert_eq!(aptr, st(0, 4));
        assert!(aptr.is_uniform());
        // The remainder is the lane offset: contiguous and exact.
        assert_eq!(binary_w(BinOp::URem, i, k(4), Ty::I32, w), st(1, 0));
        assert_eq!(binary_w(BinOp::And, i, k(3), Ty::I32, w), st(1, 0));
        assert_eq!(binary_w(BinOp::And, i, k(-4), Ty::I32, w), st(0, 4));
    }
    // W = 8 does not divide 4: lanes 4k..4k+7 straddle two blocks of 4.
    assert!(binary_w(BinOp::UDiv, i, k(4), Ty::I32, 8).is_varying());
    // Without the width the thesis' rule needs 4 | stride.
    assert!(binary(BinOp::UDiv, i, k(4), Ty::I32).is_varying());
    // The basic lattice cannot see any of this.
    assert!(binary(BinOp::UDiv, op(st(1, 4).basic()), k(4), Ty::I32).is_varying());
}

#[test]
fn contiguous_and_strided_idioms() {
    assert_eq!(binary(BinOp::Add, tid(), k(1), Ty::I32), Shape::strided(1));
    assert_eq!(binary(BinOp::Add, k(1), tid(), Ty::I32), Shape::strided(1));
    let t4 = binary(BinOp::Mul, tid(), k(4), Ty::I32);
    assert_eq!(t4, st(4, 4));
    assert_eq!(t4.stride(), Some(4));
    assert_eq!(binary(BinOp::Shl, tid(), k(2), Ty::I32), st(4, 4));
    // (tid*4) | 1: the low two bits are zero on every lane.
    let or1 = binary(BinOp::Or, o(t4), k(1), Ty::I32);
    assert_eq!(or1, Shape::strided(4));
    assert_eq!(binary(BinOp::Or, o(t4), k(3), Ty::I32), Shape::strided(4));
    // (tid*4) ^ 2 == tid*4 + 2: lane 0 is even.
    assert_eq!(binary(BinOp::Xor, o(t4), k(2), Ty::I32), st(4, 2));
    // ... but not when the constant reaches the stride's bits.
    assert!(binary(BinOp::Or, o(t4), k(4), Ty::I32).is_varying());
    assert!(binary(BinOp::Or, tid(), k(1), Ty::I32).is_varying());
    // Subtraction cancels the lane dependence.
    assert_eq!(binary(BinOp::Sub, tid(), tid(), Ty::I32), Shape::uniform());
    assert_eq!(binary(BinOp::Sub, k(0), tid(), Ty::I32), Shape::strided(-1));
    assert_eq!(binary(BinOp::Sub, tid(), n(), Ty::I32), Shape::strided(1));
    // Row-major 2-D index: y*width + x with uniform y, width.
    let row = binary(BinOp::Mul, n(), n(), Ty::I32);
    assert_eq!(row, Shape::uniform());
    assert_eq!(
        binary(BinOp::Add, o(row), tid(), Ty::I32),
        Shape::strided(1)
    );
    // Non-constant products of a strided value are varying.
    assert!(binary(BinOp::Mul, tid(), n(), Ty::I32).is_varying());
    assert!(binary(BinOp::Mul, tid(), tid(), Ty::I32).is_varying());
    // ~x = -x - 1 keeps the stride.
    assert_eq!(
        binary(BinOp::Xor, tid(), k(-1), Ty::I32),
        Shape::strided(-1)
    );
    // Casts keep the shape.
    let x = cast(CastOp::Trunc, tid(), Ty::I64, Ty::I32);
    assert_eq!(x, Shape::strided(1));
    assert_eq!(
        cast(CastOp::SExt, o(x), Ty::I32, Ty::I64),
        Shape::strided(1)
    );
    // float4-style access: A + 4*tid bytes.
    let off = binary(BinOp::Mul, tid(), k(4), Ty::I64);
    assert_eq!(ptr_add(op(st(0, 16)), o(off)), st(4, 4));
}

#[test]
fn division_idioms() {
    assert!(binary(BinOp::SDiv, tid(), k(2), Ty::I32).is_varying());
    assert!(binary(BinOp::UDiv, tid(), k(2), Ty::I32).is_varying());
    assert!(binary_w(BinOp::UDiv, tid(), k(2), Ty::I32, 4).is_varying());
    // Exact divisions.
    let t4 = op(st(4, 8));
    assert_eq!(binary(BinOp::SDiv, t4, k(4), Ty::I32), st(1, 2));
    assert_eq!(binary(BinOp::SDiv, t4, k(-4), Ty::I32), st(-1, 2));
    assert_eq!(binary(BinOp::AShr, t4, k(2), Ty::I32), st(1, 2));
    // The stride divides, the alignment does not: floor division keeps
    // the stride, truncation does not.
    let t4u = op(st(4, 1));
    assert_eq!(binary(BinOp::UDiv, t4u, k(4), Ty::I32), st(1, 1));
    assert_eq!(binary(BinOp::AShr, t4u, k(2), Ty::I32), st(1, 1));
    assert!(binary(BinOp::SDiv, t4u, k(4), Ty::I32).is_varying());
    // Uniform divided by anything uniform is uniform.
    assert_eq!(binary(BinOp::SDiv, n(), n(), Ty::I32), Shape::uniform());
    assert!(binary(BinOp::SDiv, n(), tid(), Ty::I32).is_varying());
    // Division by zero is undefined; no panic, generic answer.
    assert!(binary(BinOp::SDiv, tid(), k(0), Ty::I32).is_varying());
    assert_eq!(binary(BinOp::SDiv, k(7), k(0), Ty::I32), Shape::uniform());
    // Unsigned division by a huge constant is outside the model: generic.
    assert!(binary(BinOp::UDiv, op(st(2, 2)), k(-2), Ty::I32).is_varying());
    // Varying lanes that are multiples of the divisor.
    assert_eq!(binary(BinOp::SDiv, op(va(8)), k(4), Ty::I32), va(2));
}

#[test]
fn remainder_idioms() {
    assert_eq!(binary(BinOp::SRem, n(), n(), Ty::I32), Shape::uniform());
    assert_eq!(binary(BinOp::URem, n(), k(3), Ty::I32), Shape::uniform());
    assert!(binary(BinOp::SRem, tid(), k(2), Ty::I32).is_varying());
    assert!(binary(BinOp::URem, tid(), n(), Ty::I32).is_varying());
    // (4*tid) % 4 == 0 on every lane.
    assert_eq!(
        binary(BinOp::SRem, op(st(4, 4)), k(4), Ty::I32),
        Shape::zero()
    );
    assert_eq!(
        binary(BinOp::URem, op(st(4, 4)), k(2), Ty::I32),
        Shape::zero()
    );
    // Unsigned remainder by a divisor of the stride is lane-independent.
    assert_eq!(binary(BinOp::URem, op(st(4, 6)), k(4), Ty::I32), st(0, 2));
    assert!(binary(BinOp::SRem, op(st(4, 6)), k(4), Ty::I32).is_varying());
    // Alignment survives: (6*x) % 4 is even.
    assert_eq!(binary(BinOp::SRem, op(va(6)), k(4), Ty::I32), va(2));
}

#[test]
fn bit_mask_idioms() {
    // Masks that leave strided lanes alone or make them uniform.
    let t16 = op(st(16, 16));
    assert_eq!(binary(BinOp::And, t16, k(15), Ty::I32), Shape::zero());
    assert_eq!(binary(BinOp::And, t16, k(-16), Ty::I32), st(16, 16));
    assert_eq!(
        binary(BinOp::And, op(st(16, 1)), k(7), Ty::I32),
        Shape::uniform()
    );
    assert_eq!(binary(BinOp::And, op(st(16, 4)), k(15), Ty::I32), st(0, 4));
    // x & ~3 with x = (1, 4): the lane offset is cleared only when W <= 4.
    assert_eq!(
        binary_w(BinOp::And, op(st(1, 4)), k(-4), Ty::I32, 4),
        st(0, 4)
    );
    assert!(binary_w(BinOp::And, op(st(1, 4)), k(-4), Ty::I32, 8).is_varying());
    // (tid*4 + 1) & ~3 == tid*4.
    let t41 = binary(BinOp::Add, op(st(4, 4)), k(1), Ty::I32);
    assert_eq!(binary(BinOp::And, o(t41), k(-4), Ty::I32), st(4, 4));
    // tid & 1 alternates.
    assert!(binary(BinOp::And, tid(), k(1), Ty::I32).is_varying());
    // Uniform & uniform.
    assert_eq!(
        binary(BinOp::And, op(st(0, 8)), op(st(0, 2)), Ty::I32),
        st(0, 8)
    );
    assert_eq!(
        binary(BinOp::Or, op(st(0, 8)), op(st(0, 2)), Ty::I32),
        st(0, 2)
    );
    // Shifts by non-constants.
    assert_eq!(binary(BinOp::Shl, op(st(0, 4)), n(), Ty::I32), st(0, 4));
    assert_eq!(binary(BinOp::Shl, op(st(4, 4)), n(), Ty::I32), va(4));
    assert!(binary(BinOp::LShr, tid(), n(), Ty::I32).is_varying());
    // Shift amounts are taken modulo the width (OpenCL), no panic.
    assert_eq!(binary(BinOp::Shl, tid(), k(33), Ty::I32), st(2, 2));
    assert_eq!(binary(BinOp::Shl, tid(), k(-1), Ty::I64), Shape::varying());
    assert_eq!(binary(BinOp::Shl, k(1), k(35), Ty::I32), Shape::constant(8));
}

#[test]
fn constant_folding_follows_ir_semantics() {
    assert_eq!(
        binary(BinOp::Add, k(i32::MAX as i64), k(1), Ty::I32),
        Shape::constant(i32::MIN as i64)
    );
    assert_eq!(binary(BinOp::Mul, k(6), k(7), Ty::I32), Shape::constant(42));
    assert_eq!(
        binary(BinOp::UDiv, k(-1), k(2), Ty::I32),
        Shape::constant(0x7fff_ffff)
    );
    assert_eq!(
        binary(BinOp::LShr, k(-1), k(28), Ty::I32),
        Shape::constant(15)
    );
    assert_eq!(
        binary(BinOp::AShr, k(-16), k(2), Ty::I32),
        Shape::constant(-4)
    );
    assert_eq!(
        binary(BinOp::And, k(12), k(10), Ty::I32),
        Shape::constant(8)
    );
    // A zero-extended constant is re-read at the type's width.
    assert_eq!(
        binary(BinOp::Add, k(0xffff_ffff), k(1), Ty::I32),
        Shape::zero()
    );
    // Undefined (overflow): any answer is sound; it is uniform.
    assert!(binary(BinOp::SDiv, k(i64::MIN), k(-1), Ty::I64).is_uniform());
    assert_eq!(ptr_add(k(16), k(8)), Shape::constant(24));
}

#[test]
fn comparison_idioms() {
    // tid < n is the classic divergent bounds check.
    assert_eq!(compare(CmpPred::Slt, tid(), n(), 8), Shape::varying());
    assert_eq!(compare(CmpPred::Ult, tid(), n(), 8), Shape::varying());
    // The difference is lane-independent: uniform whatever the stride.
    let t1 = binary(BinOp::Add, tid(), k(1), Ty::I32);
    assert_eq!(compare(CmpPred::Slt, tid(), o(t1), 8), Shape::uniform());
    assert_eq!(compare(CmpPred::Eq, tid(), o(t1), 8), Shape::uniform());
    assert_eq!(compare(CmpPred::Ne, tid(), tid(), 8), Shape::uniform());
    assert_eq!(
        compare(CmpPred::Slt, op(st(4, 4)), op(st(4, 1)), 8),
        Shape::uniform()
    );
    // Equality with a constant no lane can reach.
    let even = op(st(2, 2));
    assert_eq!(compare(CmpPred::Eq, even, k(1), 8), Shape::uniform());
    assert_eq!(compare(CmpPred::Eq, k(3), op(va(2)), 8), Shape::uniform());
    assert_eq!(compare(CmpPred::Eq, even, k(2), 8), Shape::varying());
    assert_eq!(compare(CmpPred::Eq, op(va(2)), k(4), 8), Shape::varying());
    // tid == 0 where lane 0 is exactly 0: lane 0 true, the others false.
    assert_eq!(
        compare(CmpPred::Eq, op(st(1, 0)), k(0), 4),
        Shape::varying()
    );
    // Exact lane vectors: 2t >= 0 on every lane, 2t > 0 only from lane 1.
    assert_eq!(
        compare(CmpPred::Sge, op(st(2, 0)), k(0), 4),
        Shape::uniform()
    );
    assert_eq!(
        compare(CmpPred::Sgt, op(st(2, 0)), k(0), 4),
        Shape::varying()
    );
    assert_eq!(
        compare(CmpPred::Slt, op(st(2, 0)), k(100), 4),
        Shape::uniform()
    );
    assert_eq!(
        compare(CmpPred::Slt, op(st(2, 0)), k(5), 4),
        Shape::varying()
    );
    // Offsets count: lanes 8k+1..8k+4 never cross a multiple of 8.
    let x = binary(BinOp::Add, op(st(1, 8)), k(1), Ty::I32);
    assert_eq!(x, st(1, 1)); // the shape alone forgets the offset ...
    assert_eq!(
        compare(CmpPred::Slt, op(st(1, 8)), op(st(0, 8)), 8),
        Shape::uniform()
    );
    // 8k..8k+3 >= 4 is all false or all true; 8k..8k+7 is mixed.
    assert_eq!(
        compare(CmpPred::Sge, op(st(1, 8)), k(4), 4),
        Shape::uniform()
    );
    assert_eq!(
        compare(CmpPred::Sge, op(st(1, 8)), k(4), 8),
        Shape::varying()
    );
    assert_eq!(
        compare(CmpPred::Sge, op(st(1, 8)), k(3), 4),
        Shape::varying()
    );
    // Varying operands.
    assert_eq!(compare(CmpPred::Slt, op(va(4)), n(), 4), Shape::varying());
    assert_eq!(
        compare(CmpPred::Eq, op(va(4)), op(va(4)), 4),
        Shape::varying()
    );
    // One lane is always uniform; huge widths stay sound.
    assert_eq!(compare(CmpPred::Slt, tid(), n(), 1), Shape::uniform());
    assert_eq!(compare(CmpPred::Slt, tid(), n(), 0), Shape::uniform());
    assert_eq!(
        compare(CmpPred::Eq, op(st(3, 4)), k(1), u32::MAX),
        Shape::varying()
    );
    assert_eq!(
        compare(CmpPred::Slt, op(st(1, 4)), n(), u32::MAX),
        Shape::varying()
    );
}

#[test]
fn min_max_idioms() {
    // min(tid, n) is divergent ...
    assert_eq!(math(MathFn::SMin, &[tid(), n()], Ty::I32), Shape::varying());
    assert_eq!(math(MathFn::UMax, &[tid(), n()], Ty::I32), Shape::varying());
    // ... min(tid+1, tid+5) is contiguous.
    let a = binary(BinOp::Add, tid(), k(1), Ty::I32);
    let b = binary(BinOp::Add, tid(), k(5), Ty::I32);
    assert_eq!(
        math(MathFn::SMin, &[o(a), o(b)], Ty::I32),
        Shape::strided(1)
    );
    assert_eq!(
        math(MathFn::UMax, &[o(a), o(b)], Ty::I32),
        Shape::strided(1)
    );
    // Uniform operands, exact lane vectors, and the alignment gcd.
    assert_eq!(
        math(MathFn::SMax, &[op(st(0, 4)), op(st(0, 6))], Ty::I32),
        st(0, 2)
    );
    assert_eq!(
        math(MathFn::SMin, &[op(st(2, 0)), op(st(-1, 0))], Ty::I32),
        st(-1, 0)
    );
    assert_eq!(
        math(MathFn::SMax, &[op(st(2, 0)), op(st(-1, 0))], Ty::I32),
        st(2, 0)
    );
    assert_eq!(
        math(MathFn::SMin, &[op(st(4, 8)), op(va(6))], Ty::I32),
        va(2)
    );
    assert_eq!(
        math(MathFn::SMin, &[k(3), k(-5)], Ty::I32),
        Shape::constant(-5)
    );
    assert_eq!(
        math(MathFn::UMin, &[k(3), k(-5)], Ty::I32),
        Shape::constant(3)
    );
    // abs
    assert_eq!(math(MathFn::IAbs, &[op(st(0, 4))], Ty::I32), st(0, 4));
    assert_eq!(math(MathFn::IAbs, &[op(st(-3, 0))], Ty::I32), st(3, 0));
    assert_eq!(math(MathFn::IAbs, &[op(st(2, 4))], Ty::I32), va(2));
    assert_eq!(math(MathFn::IAbs, &[k(-7)], Ty::I32), Shape::constant(7));
}

#[test]
fn select_idioms() {
    let u = Shape::uniform();
    let v = Shape::varying();
    // Uniform condition: one side or the other on every lane.
    assert_eq!(select(u, tid(), op(st(1, 4))), Shape::strided(1));
    assert_eq!(select(u, op(st(0, 8)), op(st(0, 12))), st(0, 4));
    assert_eq!(select(u, tid(), n()), Shape::varying());
    // Varying condition: lanes mix.
    assert_eq!(select(v, tid(), op(st(1, 4))), Shape::varying());
    assert_eq!(select(v, op(st(0, 8)), op(st(0, 12))), va(4));
    assert_eq!(select(v, k(4), k(8)), va(4));
    assert_eq!(select(v, k(5), k(5)), Shape::constant(5));
    assert_eq!(select(v, k(0), op(Shape::zero())), Shape::zero());
    // A strided "condition" is read as varying.
    assert_eq!(select(st(1, 1), n(), n()), Shape::varying());
}

#[test]
fn extreme_values_do_not_panic() {
    let big = [
        st(i64::MAX, u64::MAX),
        st(i64::MIN, 1 << 63),
        st(i64::MIN, 0),
        st(0, u64::MAX),
        va(u64::MAX),
        va(1 << 63),
        va(0),
    ];
    let consts = [
        k(i64::MIN),
        k(i64::MAX),
        k(-1),
        k(0),
        k(1 << 62),
        k(63),
        k(64),
    ];
    let mut ops: Vec<Operand> = big.iter().map(|&s| op(s)).collect();
    ops.extend(consts);
    ops.push(tid());
    for &x in &ops {
        for &y in &ops {
            for bop in INT_BINOPS {
                for ty in [Ty::I8, Ty::I32, Ty::I64, Ty::Ptr(AddressSpace::Global)] {
                    let _ = binary(bop, x, y, ty);
                    let _ = binary_w(bop, x, y, ty, 8);
                    let _ = binary_w(bop, x, y, ty, u32::MAX);
                }
            }
            for pred in INT_PREDS {
                let _ = compare(pred, x, y, 16);
                let _ = compare(pred, x, y, u32::MAX);
            }
            for func in [MathFn::SMin, MathFn::UMax, MathFn::IAbs] {
                let _ = math(func, &[x, y], Ty::I64);
                let _ = math(func, &[x], Ty::I64);
            }
            let _ = ptr_add(x, y);
            let _ = select(Shape::varying(), x, y);
            let _ = x.shape.join(y.shape);
            let _ = x.shape.leq(y.shape);
            let _ = cast(CastOp::Trunc, x, Ty::I64, Ty::I8);
            let _ = cast(CastOp::ZExt, x, Ty::I8, Ty::I64);
        }
    }
    // Results that overflow i64 fall back to sound shapes.
    assert!(binary(BinOp::Mul, op(st(i64::MAX, 1)), k(2), Ty::I64).is_varying());
    assert!(binary(BinOp::Add, op(st(i64::MAX, 1)), op(st(1, 1)), Ty::I64).is_varying());
    assert!(binary(BinOp::Sub, k(0), op(st(i64::MIN, 0)), Ty::I64).is_varying());
}
