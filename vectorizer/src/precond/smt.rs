//! The scalar IR as integer formulas for Z3, at one lane of a SIMD group
//! (a constant, or a variable ranging over the group's lanes).
//!
//! Every IR integer is its two's-complement value read signed, as a
//! mathematical integer: wrapping is modelled exactly (`mod 2^n`) except
//! for the signed `+ - *` of the source, whose overflow is undefined in
//! OpenCL C; there the result is the exact one and its staying in range is
//! an assumption ([`Enc::assumptions`]), like LLVM's `nsw`. The launch
//! facts every group satisfies (ids below 2^31) are assumptions too.
//! Values the encoding does not look into (loads, φs, calls, bit tricks)
//! are unconstrained variables: one for a uniform value, one per lane
//! otherwise. Linear integer arithmetic keeps the queries small; the
//! bit-vector form of the same question took seconds.
//!
//! Every value carries an interval, so that wrapping, sign and unsigned
//! readings cost nothing where the interval shows they do not change the
//! value (an id truncated to `int`, a quotient of non-negative values), and
//! a wrap over a few windows is an `ite` instead of a `mod 2^n`: Z3 spends
//! most of its time on such `mod`s.
//!
//! *Non-linear terms, relative to lane 0.* A division or remainder by a
//! uniform, non-constant divisor `d` (`tid / step`, `tid % step`) and a
//! product of a uniform value with a lane-varying one (`2 * step * (tid /
//! step)`) are not linear. Lane 0 gets quotient `q0`, remainder `r0` and
//! an abstract product `P = d·q0` (a group-level variable with the linear
//! facts of a product: sign, `P = 0 ⇔ q0 = 0`, `q0 ≥ 1 ⇒ P ≥ d`; and
//! [`Enc::lemmas`] for moduli: `d ≡ 0 (mod m) ⇒ P ≡ 0 (mod m)`). Another
//! lane's dividend differs from lane 0's by a small `δ` (the lane offset
//! of an id: [`lane_delta`] bounds it syntactically, and the formula
//! checks the bound), so its quotient is `q0 + k` with `k` between 0 and
//! `δ`, and `d·k` is a case split over those few `k`: linear. Where the
//! bound does not hold the lane's quotient and remainder are unconstrained
//! (an over-approximation: proofs stay sound, counterexamples may be
//! spurious and are checked concretely by the caller). Division by zero is
//! undefined behaviour in C, so `d ≠ 0` is an assumption, like `nsw`.

use rustc_hash::FxHashMap;

use z3::ast::{Bool, Int};

use crate::divergence::Divergence;
use crate::ir::{
    BinOp, CastOp, CmpPred, Const, Function, InstKind, MathFn, Ty, ValueDef, ValueId, WorkItem,
};

use super::linear::{signed_const, Cond, Ext};

#[derive(Clone)]
pub enum Val {
    B(Bool),
    I(Int),
}

/// An interval of mathematical integers.
type R = (i128, i128);

/// "Any value": wide enough for every product of two 64-bit values.
const ANY: R = (-(1i128 << 126), 1i128 << 126);

/// Largest case split of a lane offset (`k` or `δ` values).
const MAX_SPLIT: i128 = 64;

/// An abstract product `m = a·b` of the encoding (group-level terms).
#[derive(Clone)]
pub struct Product {
    pub name: String,
    pub m: Int,
    pub a: Int,
    pub b: Int,
}

/// Quotient and remainder of a division by a uniform divisor at a lane,
/// and for lanes other than 0 the case split `d·k`.
#[derive(Clone)]
struct DivRel {
    q: Int,
    r: Int,
    /// The abstract `d·q0` (lane 0's product).
    p: Int,
    /// `d·(q - q0)` when the lane's offset bound holds (`None` at lane 0:
    /// zero), and that condition.
    dk: Option<(Int, Bool)>,
}

/// A group-uniform value the encoding does not look into (a parameter, an
/// opaque uniform value, a uniform work-item query): a free variable of
/// the formulas, named `name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leaf {
    pub value: ValueId,
    pub name: String,
    pub bits: u32,
    /// A work-item query (an id or size: in `[0, 2^31)`).
    pub query: bool,
}

/// The maps that hold Z3 terms hash with a fixed function (`FxHashMap`,
/// not std's per-process random keys): dropping a map releases its terms
/// in hash order, Z3 gives freed term ids to the next terms it makes, and
/// the ids steer its search, so with random keys the same query cost a
/// different number of resource units in each process (and a finding
/// could fall on either side of its budget).
pub struct Enc<'a> {
    pub f: &'a Function,
    pub div: &'a Divergence,
    pub width: u32,
    cache: FxHashMap<ValueId, Option<(Val, R, bool)>>,
    exact: FxHashMap<(ValueId, bool), (Int, R)>,
    /// The lane: a constant, or a variable in [0, W) for "any lane".
    lane: Int,
    lane_const: Option<u32>,
    /// Names per-lane unknowns (`l` for the variable lane).
    tag: String,
    assumptions: Vec<Bool>,
    gid0: Int,
    lid0: Int,
    /// Lane 0, for the terms relative to it (made when first needed).
    base: Option<Box<Enc<'a>>>,
    divs: FxHashMap<(ValueId, ValueId, bool), Option<DivRel>>,
    products: Vec<Product>,
    fresh: u32,
    /// The group-level unknowns used so far.
    pub leaves: Vec<Leaf>,
    /// `gid0` / `lid0` occur.
    pub uses_gid0: bool,
    pub uses_lid0: bool,
    /// A lane-varying value the encoding does not look into occurs (a
    /// load, a φ): the formulas depend on data.
    pub data_dependent: bool,
    /// Leaves (parameters, opaque uniform values) represented by their
    /// unsigned reading, a variable named with a `u` suffix: no `ite`
    /// where a `uint` is used as one.
    pub unsigned_leaves: rustc_hash::FxHashSet<ValueId>,
}

fn int(v: i64) -> Int {
    Int::from_i64(v)
}

fn big(v: i128) -> Int {
    match i64::try_from(v) {
        Ok(x) => Int::from_i64(x),
        Err(_) => Int::from_i128(v),
    }
}

/// The signed range of a `bits`-bit integer.
fn full(bits: u32) -> R {
    let b = bits.clamp(1, 64);
    (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
}

fn clamp_r(r: R) -> R {
    (r.0.max(ANY.0), r.1.min(ANY.1))
}

fn add_r(a: R, b: R) -> R {
    clamp_r((a.0.saturating_add(b.0), a.1.saturating_add(b.1)))
}

fn sub_r(a: R, b: R) -> R {
    clamp_r((a.0.saturating_sub(b.1), a.1.saturating_sub(b.0)))
}

fn scale_r(a: R, k: i128) -> R {
    let (x, y) = (a.0.saturating_mul(k), a.1.saturating_mul(k));
    clamp_r((x.min(y), x.max(y)))
}

fn mul_r(a: R, b: R) -> R {
    let c = [
        a.0.saturating_mul(b.0),
        a.0.saturating_mul(b.1),
        a.1.saturating_mul(b.0),
        a.1.saturating_mul(b.1),
    ];
    clamp_r((
        c.iter().copied().min().unwrap_or(ANY.0),
        c.iter().copied().max().unwrap_or(ANY.1),
    ))
}

fn within(r: R, outer: R) -> bool {
    outer.0 <= r.0 && r.1 <= outer.1
}

/// The integer in `[lo, lo + 2^bits)` congruent to `x` (in range `r`):
/// `x` itself when `r` fits, `x - w·2^bits` for the window `w` holding
/// `x` when `r` spans at most three windows, else a `mod`.
fn window(x: Int, r: R, bits: u32, lo: i128) -> (Int, R) {
    let m = 1i128 << bits.min(64);
    let hi = lo + m - 1;
    if within(r, (lo, hi)) {
        return (x, r);
    }
    let (wl, wh) = ((r.0 - lo).div_euclid(m), (r.1 - lo).div_euclid(m));
    if wl == wh {
        return (&x - big(wl * m), (r.0 - wl * m, r.1 - wl * m));
    }
    if wh - wl <= 2 {
        let mut e = &x - big(wh * m);
        for w in (wl..wh).rev() {
            e = x.lt(big(lo + (w + 1) * m)).ite(&(&x - big(w * m)), &e);
        }
        return (e, (lo, hi));
    }
    let off = big(-lo);
    ((x + &off).modulo(big(m)) - off, (lo, hi))
}

/// `x` wrapped to `bits` bits, read signed.
fn wrap(x: Int, r: R, bits: u32) -> (Int, R) {
    if bits >= 64 {
        return (x, r);
    }
    window(x, r, bits, full(bits).0)
}

/// `x` wrapped to `bits` bits, read unsigned.
fn unsigned(x: &Int, r: R, bits: u32) -> (Int, R) {
    window(x.clone(), r, bits, 0)
}

/// `Σ_{j in lo..=hi} [k = j]·j·d`: `k·d` for a `k` known to lie in `[lo, hi]`.
fn times_small(k: &Int, lo: i128, hi: i128, d: &Int) -> Int {
    let term = |j: i128| -> Int {
        match j {
            0 => int(0),
            1 => d.clone(),
            -1 => -d.clone(),
            _ => d * big(j),
        }
    };
    let mut e = term(hi);
    for j in (lo..hi).rev() {
        e = k.eq(big(j)).ite(&term(j), &e);
    }
    e
}

/// How much `v` can differ between a lane and lane 0 (`v_l - v_0`), read
/// off the instructions: ids move by the lane number, uniform values not
/// at all, sums, constant multiples and quotients (a quotient moves by at
/// most what its dividend does, for divisors of at least 1) accordingly.
/// `None`: no small bound (remainders, loads, products of lane values).
/// A heuristic: encodings that use it check it.
/// `lane`: the lane, when it is a constant.
pub fn lane_delta(
    f: &Function,
    div: &Divergence,
    width: u32,
    lane: Option<u32>,
    v: ValueId,
) -> Option<R> {
    lane_delta_depth(f, div, width, lane, v, 0)
}

fn lane_delta_depth(
    f: &Function,
    div: &Divergence,
    width: u32,
    lane: Option<u32>,
    v: ValueId,
    depth: u32,
) -> Option<R> {
    if div.is_uniform(v) {
        return Some((0, 0));
    }
    if depth > 24 || !f.ty(v).is_int() {
        return None;
    }
    let i = f.def_inst(v)?;
    let rec = |x: ValueId| lane_delta_depth(f, div, width, lane, x, depth + 1);
    let konst = |x: ValueId| match f.as_const(x) {
        Some(Const::Int(c, t)) => Some(i128::from(signed_const(c, t))),
        _ => None,
    };
    let w = match lane {
        Some(l) => (i128::from(l), i128::from(l)),
        None => (0, i128::from(width) - 1),
    };
    let r = match &f.inst(i).kind {
        InstKind::WorkItem { query, dim } => {
            let d = dim.and_then(konst);
            match (query, d) {
                (WorkItem::GlobalId | WorkItem::LocalId, Some(0)) => w,
                (WorkItem::SubGroupLocalId, _) => w,
                _ => return None,
            }
        }
        InstKind::Bin { op, lhs, rhs } => match op {
            BinOp::Add => add_r(rec(*lhs)?, rec(*rhs)?),
            BinOp::Sub => sub_r(rec(*lhs)?, rec(*rhs)?),
            BinOp::Mul => match (konst(*lhs), konst(*rhs)) {
                (Some(c), _) => scale_r(rec(*rhs)?, c),
                (_, Some(c)) => scale_r(rec(*lhs)?, c),
                _ => return None,
            },
            BinOp::Shl => match konst(*rhs) {
                Some(c) if (0..32).contains(&c) => scale_r(rec(*lhs)?, 1 << c),
                _ => return None,
            },
            BinOp::UDiv | BinOp::SDiv if div.is_uniform(*rhs) => {
                let d = rec(*lhs)?;
                (d.0.min(0), d.1.max(0))
            }
            _ => return None,
        },
        InstKind::Cast {
            op: CastOp::Trunc | CastOp::SExt | CastOp::ZExt,
            value,
        } if f.ty(*value).is_int() && f.ty(*value) != Ty::I1 => rec(*value)?,
        _ => return None,
    };
    (r.1 - r.0 <= 4 * MAX_SPLIT).then_some(r)
}

impl<'a> Enc<'a> {
    /// Values at lane `lane`, or at any one lane of the group for `None`.
    pub fn new(f: &'a Function, div: &'a Divergence, width: u32, lane: Option<u32>) -> Enc<'a> {
        Self::make(f, div, width, lane, "l")
    }

    /// Values at one lane in `[first, W)` named by `tag` (a variable
    /// `lane_{tag}`): with two tags, two lanes that may differ.
    pub fn symbolic(
        f: &'a Function,
        div: &'a Divergence,
        width: u32,
        first: u32,
        tag: &str,
    ) -> Enc<'a> {
        let mut e = Self::make(f, div, width, None, tag);
        e.assumptions.push(e.lane.ge(int(i64::from(first))));
        e
    }

    /// The lane as a formula.
    pub fn lane(&self) -> Int {
        self.lane.clone()
    }

    fn make(
        f: &'a Function,
        div: &'a Divergence,
        width: u32,
        lane: Option<u32>,
        var_tag: &str,
    ) -> Enc<'a> {
        let gid0 = Int::new_const("gid0");
        let lid0 = Int::new_const("lid0");
        let limit = int((1i64 << 31) - i64::from(width));
        // Launches stay below 2^31 work-items per dimension (`int` ids).
        let mut assumptions = vec![
            gid0.ge(int(0)),
            gid0.le(&limit),
            lid0.ge(int(0)),
            lid0.le(&limit),
        ];
        let (lane_int, tag) = match lane {
            Some(l) => (int(i64::from(l)), l.to_string()),
            None => {
                let name = if var_tag == "l" {
                    "lane".to_string()
                } else {
                    format!("lane_{var_tag}")
                };
                let l = Int::new_const(name);
                assumptions.push(l.ge(int(0)));
                assumptions.push(l.lt(int(i64::from(width))));
                (l, var_tag.to_string())
            }
        };
        Enc {
            f,
            div,
            width,
            cache: FxHashMap::default(),
            exact: FxHashMap::default(),
            lane: lane_int,
            lane_const: lane,
            tag,
            assumptions,
            gid0,
            lid0,
            base: None,
            divs: FxHashMap::default(),
            products: Vec::new(),
            fresh: 0,
            leaves: Vec::new(),
            uses_gid0: false,
            uses_lid0: false,
            data_dependent: false,
            unsigned_leaves: Default::default(),
        }
    }

    /// The Z3 name of a leaf variable (see [`Enc::unsigned_leaves`]).
    pub fn leaf_name(name: &str, unsigned_read: bool) -> String {
        if unsigned_read {
            format!("{name}u")
        } else {
            name.to_string()
        }
    }

    /// A leaf's variable and representation.
    fn leaf_var(&mut self, v: ValueId, name: String, bits: u32) -> Option<(Val, R, bool)> {
        if self.unsigned_leaves.contains(&v) && bits < 64 {
            let x = Int::new_const(Self::leaf_name(&name, true));
            let hi = (1i128 << bits) - 1;
            self.assumptions.push(x.ge(int(0)));
            self.assumptions.push(x.le(big(hi)));
            return Some((Val::I(x), (0, hi), false));
        }
        Some((Val::I(self.ranged(name, bits)), full(bits), true))
    }

    fn leaf(&mut self, value: ValueId, name: &str, bits: u32, query: bool) {
        if !self.leaves.iter().any(|l| l.name == name) {
            self.leaves.push(Leaf {
                value,
                name: name.to_string(),
                bits,
                query,
            });
        }
    }

    /// Everything the encoding assumes (launch facts, no signed overflow,
    /// no division by zero, the definitions of its auxiliary terms).
    pub fn assumptions(&self) -> Bool {
        let mut all = self.assumptions.clone();
        if let Some(b) = &self.base {
            all.push(b.assumptions());
        }
        Bool::and(&all)
    }

    /// The abstract products made so far (this lane's and lane 0's).
    pub fn products(&self) -> Vec<Product> {
        let mut out = self.products.clone();
        if let Some(b) = &self.base {
            for p in b.products() {
                if !out.iter().any(|q| q.name == p.name) {
                    out.push(p);
                }
            }
        }
        out
    }

    /// Facts about the abstract products for the moduli `ms`: a product is
    /// a multiple of `m` when a factor is.
    pub fn lemmas(products: &[Product], ms: &[i64]) -> Vec<Bool> {
        let mut out = Vec::new();
        for p in products {
            for &m in ms {
                if m < 2 {
                    continue;
                }
                let zero = |x: &Int| x.modulo(int(m)).eq(int(0));
                out.push(Bool::or(&[zero(&p.a), zero(&p.b)]).implies(zero(&p.m)));
            }
        }
        out
    }

    fn base(&mut self) -> &mut Enc<'a> {
        if self.base.is_none() {
            let mut b = Enc::new(self.f, self.div, self.width, Some(0));
            b.unsigned_leaves = self.unsigned_leaves.clone();
            self.base = Some(Box::new(b));
        }
        self.base.as_mut().expect("just made")
    }

    fn is_lane0(&self) -> bool {
        self.lane_const == Some(0)
    }

    fn fresh_name(&mut self, what: &str) -> String {
        self.fresh += 1;
        format!("{what}!{}_{}", self.fresh, self.tag)
    }

    /// A fresh integer of `bits` bits (read signed).
    fn ranged(&mut self, name: String, bits: u32) -> Int {
        let v = Int::new_const(name);
        if bits < 64 {
            let (lo, hi) = full(bits);
            self.assumptions.push(v.ge(big(lo)));
            self.assumptions.push(v.le(big(hi)));
        }
        v
    }

    /// A value the encoding does not look into.
    fn opaque(&mut self, v: ValueId, ty: Ty) -> Option<(Val, R, bool)> {
        let uniform = self.div.is_uniform(v);
        let name = if uniform {
            format!("v{}", v.0)
        } else {
            format!("v{}_{}", v.0, self.tag)
        };
        if uniform && ty.is_int() && ty != Ty::I1 {
            self.leaf(v, &name, ty.bits(), false);
        } else {
            self.data_dependent = true;
        }
        if ty == Ty::I1 {
            return Some((Val::B(Bool::new_const(name)), (0, 1), true));
        }
        if !ty.is_int() {
            return None;
        }
        let bits = ty.bits();
        if uniform {
            return self.leaf_var(v, name, bits);
        }
        Some((Val::I(self.ranged(name, bits)), full(bits), true))
    }

    /// `v` as an exact integer (read signed).
    pub fn int(&mut self, v: ValueId) -> Option<Int> {
        self.int_r(v).map(|x| x.0)
    }

    /// `v` read signed, exactly, with its interval.
    fn int_r(&mut self, v: ValueId) -> Option<(Int, R)> {
        self.exact_r(v, false)
    }

    /// `v` read unsigned, exactly.
    fn uint_r(&mut self, v: ValueId) -> Option<(Int, R)> {
        self.exact_r(v, true)
    }

    fn exact_r(&mut self, v: ValueId, unsigned_read: bool) -> Option<(Int, R)> {
        if let Some(x) = self.exact.get(&(v, unsigned_read)) {
            return Some(x.clone());
        }
        let bits = self.f.ty(v).bits();
        let r = match self.value_r(v)? {
            (Val::I(i), r, norm) => {
                if unsigned_read {
                    unsigned(&i, r, bits)
                } else if norm {
                    (i, r)
                } else {
                    wrap(i, r, bits)
                }
            }
            (Val::B(b), _, _) => (b.ite(&int(1), &int(0)), (0, 1)),
        };
        self.exact.insert((v, unsigned_read), r.clone());
        Some(r)
    }

    /// `v` up to a multiple of 2^bits (what `+ - *` and truncation need).
    fn raw_r(&mut self, v: ValueId) -> Option<(Int, R)> {
        match self.value_r(v)? {
            (Val::I(i), r, _) => Some((i, r)),
            (Val::B(b), _, _) => Some((b.ite(&int(1), &int(0)), (0, 1))),
        }
    }

    pub fn bool(&mut self, v: ValueId) -> Option<Bool> {
        match self.value_r(v)?.0 {
            Val::B(b) => Some(b),
            Val::I(_) => Some(self.int(v)?.eq(int(0)).not()),
        }
    }

    /// `v` exactly (an integer read signed, or a truth value).
    pub fn value(&mut self, v: ValueId) -> Option<Val> {
        match self.value_r(v)?.0 {
            Val::B(b) => Some(Val::B(b)),
            Val::I(_) => self.int(v).map(Val::I),
        }
    }

    /// The cached representation: a formula congruent to `v` modulo
    /// 2^bits, its interval, and whether it is `v` exactly (read signed).
    fn value_r(&mut self, v: ValueId) -> Option<(Val, R, bool)> {
        if let Some(r) = self.cache.get(&v) {
            return r.clone();
        }
        let r = self.compute(v).map(|(x, r, norm)| {
            let bits = self.f.ty(v).bits();
            let norm = norm || bits >= 64 || within(r, full(bits));
            (x, r, norm)
        });
        self.cache.insert(v, r.clone());
        r
    }

    fn const_of(&self, v: ValueId) -> Option<i64> {
        match self.f.as_const(v) {
            Some(Const::Int(c, t)) => Some(signed_const(c, t)),
            _ => None,
        }
    }

    /// The reading of `v` a division uses: unsigned, or signed when the
    /// division is signed (then only for non-negative values).
    fn reading(&mut self, v: ValueId, unsigned_op: bool) -> Option<(Int, R)> {
        if unsigned_op {
            self.uint_r(v)
        } else {
            self.int_r(v)
        }
    }

    /// Quotient and remainder of `a / d` for a uniform, non-constant `d`
    /// (see the module doc). `None`: not encodable (a signed dividend that
    /// may be negative).
    fn div_rel(&mut self, a: ValueId, d: ValueId, unsigned_op: bool) -> Option<DivRel> {
        let key = (a, d, unsigned_op);
        if let Some(r) = self.divs.get(&key) {
            return r.clone();
        }
        let r = self.make_div_rel(a, d, unsigned_op);
        self.divs.insert(key, r.clone());
        r
    }

    fn make_div_rel(&mut self, a: ValueId, d: ValueId, unsigned_op: bool) -> Option<DivRel> {
        let (ua, ra) = self.reading(a, unsigned_op)?;
        let (ud, _) = self.reading(d, unsigned_op)?;
        if ra.0 < 0 {
            return None;
        }
        let name = format!("{}_{}{}", a.0, d.0, if unsigned_op { "u" } else { "s" });
        // Division by zero is undefined behaviour; a negative signed
        // divisor is left unconstrained.
        self.assumptions.push(ud.eq(int(0)).not());
        let ok = if unsigned_op {
            Bool::from_bool(true)
        } else {
            ud.ge(int(1))
        };
        if self.is_lane0() {
            let q = Int::new_const(format!("dq{name}_0"));
            let r = Int::new_const(format!("dr{name}_0"));
            let p = Int::new_const(format!("dp{name}"));
            let facts = Bool::and(&[
                ua.eq(&(&p + &r)),
                r.ge(int(0)),
                r.lt(&ud),
                q.ge(int(0)),
                p.ge(&q),
                p.le(&ua),
                q.eq(int(0)).iff(p.eq(int(0))),
                q.ge(int(1)).implies(p.ge(&ud)),
            ]);
            self.assumptions.push(ok.implies(facts));
            self.products.push(Product {
                name: format!("dp{name}"),
                m: p.clone(),
                a: ud.clone(),
                b: q.clone(),
            });
            return Some(DivRel { q, r, p, dk: None });
        }
        let (ua0, base) = {
            let b = self.base();
            let ua0 = b.reading(a, unsigned_op)?.0;
            (ua0, b.div_rel(a, d, unsigned_op)?)
        };
        let tag = self.tag.clone();
        let qf = Int::new_const(format!("dq{name}_{tag}"));
        let rf = Int::new_const(format!("dr{name}_{tag}"));
        let loose = Bool::and(&[rf.ge(int(0)), rf.lt(&ud), qf.ge(int(0))]);
        let bound = lane_delta(self.f, self.div, self.width, self.lane_const, a);
        let Some((dlo, dhi)) = bound.filter(|b| b.1 - b.0 <= MAX_SPLIT) else {
            self.assumptions.push(ok.implies(loose));
            return Some(DivRel {
                q: qf,
                r: rf,
                p: base.p,
                dk: None,
            });
        };
        let delta = &ua - &ua0;
        let g = Bool::and(&[delta.ge(big(dlo)), delta.le(big(dhi))]);
        let (klo, khi) = (dlo.min(0), dhi.max(0));
        let k = Int::new_const(format!("dk{name}_{tag}"));
        let dk = times_small(&k, klo, khi, &ud);
        let q_rel = &base.q + &k;
        let r_rel = &base.r + &delta - &dk;
        let tight = Bool::and(&[
            k.ge(big(klo)),
            k.le(big(khi)),
            r_rel.ge(int(0)),
            r_rel.lt(&ud),
        ]);
        self.assumptions
            .push(ok.implies(Bool::and(&[g.implies(tight), g.not().implies(loose)])));
        Some(DivRel {
            q: g.ite(&q_rel, &qf),
            r: g.ite(&r_rel, &rf),
            p: base.p,
            dk: Some((dk, g)),
        })
    }

    /// A factor of a product: exact, or up to 2^bits for a wrapping one.
    fn factor(&mut self, x: ValueId, wrapping: bool) -> Option<(Int, R)> {
        if wrapping {
            self.raw_r(x)
        } else {
            self.int_r(x)
        }
    }

    /// `x = c·d` syntactically (`d`, `c * d`, `d * c`, `d << c`), for a
    /// product's factor.
    fn multiple_of(&self, x: ValueId, d: ValueId, depth: u32) -> Option<i128> {
        if x == d {
            return Some(1);
        }
        if depth > 4 {
            return None;
        }
        let i = self.f.def_inst(x)?;
        match &self.f.inst(i).kind {
            InstKind::Bin {
                op: BinOp::Mul,
                lhs,
                rhs,
            } => {
                if let Some(c) = self.const_of(*lhs) {
                    Some(i128::from(c) * self.multiple_of(*rhs, d, depth + 1)?)
                } else {
                    let c = self.const_of(*rhs)?;
                    Some(i128::from(c) * self.multiple_of(*lhs, d, depth + 1)?)
                }
            }
            InstKind::Bin {
                op: BinOp::Shl,
                lhs,
                rhs,
            } => {
                let c = self.const_of(*rhs)?;
                (0..32)
                    .contains(&c)
                    .then(|| self.multiple_of(*lhs, d, depth + 1).map(|m| m << c))?
            }
            InstKind::Cast {
                op: CastOp::SExt | CastOp::ZExt | CastOp::Trunc,
                value,
            } if self.f.ty(*value).bits() == self.f.ty(x).bits() => {
                self.multiple_of(*value, d, depth + 1)
            }
            _ => None,
        }
    }

    /// `x · y` for a uniform `x` and a `y` that moves little across the
    /// lanes (see the module doc); the exact product before wrapping.
    ///
    /// A wrapping product only needs its factors modulo 2^bits: their
    /// unwrapped forms keep the lane offsets exact (`2 * lid + 1` moves by
    /// `2·lane` even where it wraps).
    fn product(&mut self, v: ValueId, x: ValueId, y: ValueId, wrapping: bool) -> Option<(Int, R)> {
        let f = self.f;
        let (xv, xr) = self.factor(x, wrapping)?;
        // A multiple of the divisor times the quotient: c·(d·q).
        if let Some(InstKind::Bin { op, lhs, rhs }) = f.def_inst(y).map(|i| &f.inst(i).kind) {
            let unsigned_op = match op {
                BinOp::UDiv => Some(true),
                BinOp::SDiv => Some(false),
                _ => None,
            };
            if let Some(u) = unsigned_op {
                if self.div.is_uniform(*rhs) && self.const_of(*rhs).is_none() {
                    // For a wrapping product, congruence mod 2^n suffices;
                    // an exact one needs the same reading of the divisor.
                    let c = self.multiple_of(x, *rhs, 0).filter(|_| wrapping || !u);
                    if let (Some(c), Some(rel)) = (c, self.div_rel(*lhs, *rhs, u)) {
                        // d·q is at most the dividend.
                        let (_, ra) = self.reading(*lhs, u)?;
                        let r = scale_r((0, ra.1.max(0)), c);
                        let exact = match &rel.dk {
                            None if self.is_lane0() => &rel.p * big(c),
                            None => {
                                let name = self.fresh_name("pq");
                                Int::new_const(name)
                            }
                            Some((dk, g)) => {
                                let name = self.fresh_name("pq");
                                let other = Int::new_const(name);
                                g.ite(&((&rel.p + dk) * big(c)), &other)
                            }
                        };
                        return Some((exact, r));
                    }
                }
            }
        }
        let (yv, yr) = self.factor(y, wrapping)?;
        let r = mul_r(xr, yr);
        let name = format!("pm{}", v.0);
        let m = Int::new_const(name.clone());
        if self.div.is_uniform(y) {
            // Both uniform: one group-level product.
            self.products.push(Product {
                name,
                m: m.clone(),
                a: xv,
                b: yv,
            });
            return Some((m, r));
        }
        let bound = lane_delta(f, self.div, self.width, self.lane_const, y)
            .filter(|b| b.1 - b.0 <= MAX_SPLIT);
        if self.is_lane0() {
            self.products.push(Product {
                name,
                m: m.clone(),
                a: xv,
                b: yv,
            });
            return Some((m, r));
        }
        let Some((dlo, dhi)) = bound else {
            let name = self.fresh_name("pm");
            return Some((Int::new_const(name), r));
        };
        let (m0, y0) = {
            let b = self.base();
            let y0 = b.factor(y, wrapping)?.0;
            let m0 = b.product(v, x, y, wrapping)?.0;
            (m0, y0)
        };
        let delta = &yv - &y0;
        let g = Bool::and(&[delta.ge(big(dlo)), delta.le(big(dhi))]);
        let name = self.fresh_name("pm");
        let other = Int::new_const(name);
        let rel = m0 + times_small(&delta, dlo, dhi, &xv);
        Some((g.ite(&rel, &other), r))
    }

    /// `v`'s representation (see [`Enc::value_r`]).
    fn compute(&mut self, v: ValueId) -> Option<(Val, R, bool)> {
        let f = self.f;
        let value = f.values.get(v.index())?;
        let ty = value.ty;
        let bits = ty.bits();
        let truth = |b: Bool| Some((Val::B(b), (0, 1), true));
        let exact = |x: Int, r: R| Some((Val::I(x), r, true));
        let raw = |x: Int, r: R| Some((Val::I(x), r, false));
        match &value.def {
            ValueDef::Const(Const::Int(c, t)) => {
                if *t == Ty::I1 {
                    return truth(Bool::from_bool(*c & 1 == 1));
                }
                let k = signed_const(*c, *t);
                return exact(int(k), (i128::from(k), i128::from(k)));
            }
            ValueDef::Param(i) if ty.is_int() && ty != Ty::I1 => {
                let name = format!("p{i}");
                self.leaf(v, &name, bits, false);
                return self.leaf_var(v, name, bits);
            }
            ValueDef::Inst(_) => {}
            _ => return self.opaque(v, ty),
        }
        let i = f.def_inst(v)?;
        match &f.inst(i).kind {
            InstKind::WorkItem { query, dim } => {
                let d = dim.and_then(|d| self.const_of(d));
                let ids = (0, (1i128 << 31) - 1);
                let w = i128::from(self.width);
                let (x, r) = match (query, d) {
                    (WorkItem::GlobalId, Some(0)) => {
                        self.uses_gid0 = true;
                        (&self.gid0 + &self.lane, ids)
                    }
                    (WorkItem::LocalId, Some(0)) => {
                        self.uses_lid0 = true;
                        (&self.lid0 + &self.lane, ids)
                    }
                    (WorkItem::SubGroupLocalId, _) => (self.lane.clone(), (0, w - 1)),
                    (WorkItem::SubGroupSize | WorkItem::MaxSubGroupSize, _) => {
                        (int(i64::from(self.width)), (w, w))
                    }
                    (q, Some(d)) if self.div.is_uniform(v) => {
                        let name = format!("{}{d}", q.name());
                        self.leaf(v, &name, bits, true);
                        let b = Int::new_const(name);
                        // Ids and sizes of real launches.
                        self.assumptions.push(b.ge(int(0)));
                        self.assumptions.push(b.lt(int(1 << 31)));
                        (b, ids)
                    }
                    _ => return self.opaque(v, ty),
                };
                exact(x, r)
            }
            InstKind::Bin { op, lhs, rhs } => {
                if ty == Ty::I1 {
                    let a = self.bool(*lhs)?;
                    let b = self.bool(*rhs)?;
                    return match op {
                        BinOp::And => truth(Bool::and(&[a, b])),
                        BinOp::Or => truth(Bool::or(&[a, b])),
                        BinOp::Xor => truth(a.xor(&b)),
                        _ => self.opaque(v, ty),
                    };
                }
                if !ty.is_int() {
                    return self.opaque(v, ty);
                }
                let (ca, cb) = (self.const_of(*lhs), self.const_of(*rhs));
                let nsw = f.nsw.contains(&v);
                let uniform_rhs = self.div.is_uniform(*rhs) && cb.is_none();
                // The exact result of signed `+ - *` (its overflow is an
                // assumption), else one congruent modulo 2^bits.
                let result = |this: &mut Self, x: Int, r: R| {
                    if nsw {
                        if bits < 64 && !within(r, full(bits)) {
                            let (lo, hi) = full(bits);
                            this.assumptions.push(x.ge(big(lo)));
                            this.assumptions.push(x.le(big(hi)));
                        }
                        let fr = full(bits);
                        exact(x, (r.0.max(fr.0), r.1.min(fr.1)))
                    } else {
                        raw(x, r)
                    }
                };
                let operands = |this: &mut Self| -> Option<((Int, R), (Int, R))> {
                    if nsw {
                        Some((this.int_r(*lhs)?, this.int_r(*rhs)?))
                    } else {
                        Some((this.raw_r(*lhs)?, this.raw_r(*rhs)?))
                    }
                };
                match op {
                    BinOp::Add | BinOp::Sub => {
                        let ((a, ra), (b, rb)) = operands(self)?;
                        if *op == BinOp::Add {
                            result(self, &a + &b, add_r(ra, rb))
                        } else {
                            result(self, &a - &b, sub_r(ra, rb))
                        }
                    }
                    BinOp::Mul if ca.is_some() || cb.is_some() => {
                        let ((a, ra), (b, rb)) = operands(self)?;
                        let k = i128::from(ca.or(cb).unwrap_or(0));
                        let r = scale_r(if ca.is_some() { rb } else { ra }, k);
                        result(self, &a * &b, r)
                    }
                    BinOp::Mul => {
                        let (ux, uy) = (self.div.is_uniform(*lhs), self.div.is_uniform(*rhs));
                        let pr = if ux {
                            self.product(v, *lhs, *rhs, !nsw)
                        } else if uy {
                            self.product(v, *rhs, *lhs, !nsw)
                        } else {
                            None
                        };
                        match pr {
                            Some((x, r)) => result(self, x, r),
                            None => self.opaque(v, ty),
                        }
                    }
                    // Division by a uniform divisor.
                    BinOp::UDiv | BinOp::URem if uniform_rhs => {
                        match self.div_rel(*lhs, *rhs, true) {
                            Some(rel) => {
                                let x = if *op == BinOp::UDiv { rel.q } else { rel.r };
                                let (_, ra) = self.uint_r(*lhs)?;
                                raw(x, (0, ra.1.max(0)))
                            }
                            None => self.opaque(v, ty),
                        }
                    }
                    BinOp::SDiv | BinOp::SRem if uniform_rhs => {
                        let (_, ra) = self.int_r(*lhs)?;
                        let rel = if ra.0 >= 0 {
                            self.div_rel(*lhs, *rhs, false)
                        } else {
                            None
                        };
                        match rel {
                            Some(rel) => {
                                // The relation holds for a positive divisor
                                // only; a negative one leaves the quotient
                                // unconstrained, and its range must admit
                                // the negative quotients C gives then
                                // (`x / -1`). The remainder takes the
                                // dividend's sign (here >= 0) either way.
                                let positive = self.int_r(*rhs)?.1 .0 >= 0;
                                let (x, r) = if *op == BinOp::SDiv {
                                    let hi = ra.1.max(0);
                                    (rel.q, (if positive { 0 } else { -hi }, hi))
                                } else {
                                    (rel.r, (0, ra.1.max(0)))
                                };
                                exact(x, r)
                            }
                            None => self.opaque(v, ty),
                        }
                    }
                    BinOp::SDiv | BinOp::SRem if cb.is_some_and(|c| c > 0) => {
                        let (a, ra) = self.int_r(*lhs)?;
                        let c = i128::from(cb.unwrap_or(1));
                        let ci = big(c);
                        // C truncates toward zero.
                        let q = if ra.0 >= 0 {
                            a.div(&ci)
                        } else if ra.1 <= 0 {
                            -((-&a).div(&ci))
                        } else {
                            a.ge(int(0)).ite(&a.div(&ci), &(-((-&a).div(&ci))))
                        };
                        let rq = (ra.0 / c, ra.1 / c);
                        if *op == BinOp::SDiv {
                            raw(q, rq)
                        } else {
                            let rr = if ra.0 >= 0 {
                                (0, (c - 1).min(ra.1))
                            } else if ra.1 <= 0 {
                                ((1 - c).max(ra.0), 0)
                            } else {
                                (1 - c, c - 1)
                            };
                            exact(&a - &(&q * &ci), rr)
                        }
                    }
                    BinOp::UDiv | BinOp::URem if cb.is_some_and(|c| c > 0) => {
                        let c = i128::from(cb.unwrap_or(1));
                        let (ua, rua) = self.uint_r(*lhs)?;
                        if *op == BinOp::UDiv {
                            raw(ua.div(big(c)), (rua.0 / c, rua.1 / c))
                        } else if rua.1 < c {
                            raw(ua, rua)
                        } else {
                            raw(ua.modulo(big(c)), (0, c - 1))
                        }
                    }
                    BinOp::Shl if cb.is_some_and(|c| (0..63).contains(&c) && (c as u32) < bits) => {
                        let (a, ra) = self.raw_r(*lhs)?;
                        let k = 1i128 << cb.unwrap_or(0);
                        raw(&a * big(k), scale_r(ra, k))
                    }
                    BinOp::AShr
                        if cb.is_some_and(|c| (0..63).contains(&c) && (c as u32) < bits) =>
                    {
                        let (a, ra) = self.int_r(*lhs)?;
                        let k = 1i128 << cb.unwrap_or(0);
                        exact(a.div(big(k)), (ra.0.div_euclid(k), ra.1.div_euclid(k)))
                    }
                    BinOp::LShr
                        if cb.is_some_and(|c| (1..63).contains(&c) && (c as u32) < bits) =>
                    {
                        let k = 1i128 << cb.unwrap_or(0);
                        let (ua, rua) = self.uint_r(*lhs)?;
                        raw(ua.div(big(k)), (rua.0 / k, rua.1 / k))
                    }
                    // `x & (2^k - 1)`: congruence modulo 2^bits is enough.
                    BinOp::And
                        if cb.is_some_and(|c| {
                            c > 0 && (c + 1) & c == 0 && (c as u64) < (1u64 << 62)
                        }) =>
                    {
                        let m = i128::from(cb.unwrap_or(0)) + 1;
                        let (a, ra) = self.raw_r(*lhs)?;
                        let k = m.trailing_zeros();
                        let (x, r) = window(a, ra, k, 0);
                        raw(x, r)
                    }
                    _ => self.opaque(v, ty),
                }
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                let lt = f.ty(*lhs);
                if !lt.is_int() || lt == Ty::I1 {
                    return self.opaque(v, ty);
                }
                use CmpPred::*;
                let unsigned_cmp = matches!(pred, Ult | Ule | Ugt | Uge);
                let ((a, _), (b, _)) = if unsigned_cmp {
                    (self.uint_r(*lhs)?, self.uint_r(*rhs)?)
                } else {
                    (self.int_r(*lhs)?, self.int_r(*rhs)?)
                };
                let r = match pred {
                    Eq => a.eq(&b),
                    Ne => a.eq(&b).not(),
                    Slt | Ult => a.lt(&b),
                    Sle | Ule => a.le(&b),
                    Sgt | Ugt => a.gt(&b),
                    Sge | Uge => a.ge(&b),
                    _ => return self.opaque(v, ty),
                };
                truth(r)
            }
            InstKind::Select { cond, then, els } => {
                let c = self.bool(*cond)?;
                if ty == Ty::I1 {
                    let a = self.bool(*then)?;
                    let b = self.bool(*els)?;
                    return truth(c.ite(&a, &b));
                }
                if !ty.is_int() {
                    return self.opaque(v, ty);
                }
                let (a, ra, na) = match self.value_r(*then)? {
                    (Val::I(i), r, n) => (i, r, n),
                    _ => return self.opaque(v, ty),
                };
                let (b, rb, nb) = match self.value_r(*els)? {
                    (Val::I(i), r, n) => (i, r, n),
                    _ => return self.opaque(v, ty),
                };
                Some((
                    Val::I(c.ite(&a, &b)),
                    (ra.0.min(rb.0), ra.1.max(rb.1)),
                    na && nb,
                ))
            }
            InstKind::Cast { op, value } => {
                let from = f.ty(*value);
                if !from.is_int() || !ty.is_int() {
                    return self.opaque(v, ty);
                }
                if from == Ty::I1 {
                    let b = self.bool(*value)?;
                    if ty == Ty::I1 {
                        return truth(b);
                    }
                    let one = if *op == CastOp::SExt { -1 } else { 1 };
                    let r = if one < 0 { (-1, 0) } else { (0, 1) };
                    return exact(b.ite(&int(one), &int(0)), r);
                }
                match op {
                    CastOp::Trunc if ty == Ty::I1 => {
                        let (a, ra) = self.raw_r(*value)?;
                        let (x, _) = window(a, ra, 1, 0);
                        truth(x.eq(int(1)))
                    }
                    CastOp::Trunc => {
                        let (a, ra) = self.raw_r(*value)?;
                        raw(a, ra)
                    }
                    CastOp::SExt => {
                        let (a, ra) = self.int_r(*value)?;
                        exact(a, ra)
                    }
                    CastOp::ZExt => {
                        let (a, ra) = self.uint_r(*value)?;
                        exact(a, ra)
                    }
                    _ => self.opaque(v, ty),
                }
            }
            InstKind::Math { func, args } if ty.is_int() && ty != Ty::I1 && args.len() == 2 => {
                let (a, ra) = self.int_r(args[0])?;
                let (b, rb) = self.int_r(args[1])?;
                let hull = (ra.0.min(rb.0), ra.1.max(rb.1));
                let (x, r) = match func {
                    MathFn::SMin => (a.le(&b).ite(&a, &b), (ra.0.min(rb.0), ra.1.min(rb.1))),
                    MathFn::SMax => (a.ge(&b).ite(&a, &b), (ra.0.max(rb.0), ra.1.max(rb.1))),
                    MathFn::UMin | MathFn::UMax => {
                        let (ua, _) = self.uint_r(args[0])?;
                        let (ub, _) = self.uint_r(args[1])?;
                        if *func == MathFn::UMin {
                            (ua.le(&ub).ite(&a, &b), hull)
                        } else {
                            (ua.ge(&ub).ite(&a, &b), hull)
                        }
                    }
                    _ => return self.opaque(v, ty),
                };
                exact(x, r)
            }
            _ => self.opaque(v, ty),
        }
    }

    /// The value of an atom of a condition, read as `ext` says.
    pub fn atom(&mut self, v: ValueId, ext: Ext) -> Option<Int> {
        Some(match ext {
            Ext::Signed => self.int_r(v)?.0,
            Ext::Unsigned => self.uint_r(v)?.0,
        })
    }

    /// `c` at this lane, in exact integers: what a precondition means.
    pub fn cond(&mut self, c: &Cond) -> Option<Bool> {
        let mut sum = int(c.lin.k);
        for (&v, &k) in &c.lin.terms {
            let a = self.atom(v, c.ext)?;
            sum += a * int(k);
        }
        Some(sum.ge(int(0)))
    }
}
