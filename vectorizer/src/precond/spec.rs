//! The CEGIS specs of the targets no piece decides ([`super::cegis`] over
//! the SIMD group's unknowns): a branch condition that must be the same on
//! every lane, or an access whose address must be contiguous (lane `l` at
//! lane 0's address plus `l` elements) or uniform.
//!
//! The synthesis space Σ is the group's base id `x0` (lane 0's
//! `get_global_id(0)`; `get_local_id(0)` likewise when the target uses it)
//! and the group-level unknowns the encoding ([`super::smt`]) does not look
//! into: integer parameters, uniform values it treats as opaque (a shift by
//! a parameter, `1 << stage`) and uniform work-item queries. A parameter is
//! read as its C type says (`uint` unsigned), so that the literals mean in
//! C what they mean in Z3.
//!
//! Samples come from a box (`x0` up to 2^16, parameters up to 1024) but
//! every proof covers the whole domain: ids in `[0, 2^31 - W]`, parameters
//! over their type. A point where a lane divides by zero or overflows a
//! signed operation (undefined behaviour in C, assumed away by the proofs
//! too) is outside the domain.

use rustc_hash::FxHashMap;
use std::cell::RefCell;

use lanes_frontend::hir;
use lanes_frontend::source::Span;
use z3::ast::{Bool, Int};

use crate::divergence::Divergence;
use crate::ir::{
    BinOp, CastOp, CmpPred, Const, Function, InstKind, MathFn, Ty, ValueDef, ValueId, WorkItem,
};

use super::budget::{Exhausted, Meter};
use super::cegis::{self, Var};
use super::linear::signed_const;
use super::names::Namer;
use super::smt::{Enc, Leaf, Product};
use super::{Outcome, Precondition};

/// What must hold on every lane of the group.
#[derive(Clone, Copy, Debug)]
pub enum Goal {
    /// The `i1` condition is the same on every lane.
    Branch(ValueId),
    /// The pointer is lane 0's plus `l * size` bytes on lane `l`, or the
    /// same on every lane.
    Access(ValueId, u64),
}

/// One var of Σ besides the bases.
#[derive(Clone, Debug)]
struct Unknown {
    leaf: Leaf,
    /// Read unsigned (a `uint` in C).
    unsigned: bool,
}

/// Sampling boxes.
const X0_BOX: i64 = 1 << 16;
const PARAM_BOX: i64 = 1024;
/// At most this many unknowns besides the bases.
const MAX_UNKNOWNS: usize = 3;

struct GroupSpec<'a> {
    f: &'a Function,
    div: &'a Divergence,
    width: u32,
    goal: Goal,
    unknowns: Vec<Unknown>,
    /// Σ: the unknowns, then `gid0` (and `lid0`).
    vars: Vec<Var>,
    /// `gid0` (lane 0's `get_global_id(0)`) is a var (after the unknowns).
    gid: bool,
    /// `lid0` likewise (after `gid0`).
    lid: bool,
    products: RefCell<Vec<Product>>,
}

/// A point of Σ for the concrete evaluation.
struct Point {
    leaves: FxHashMap<ValueId, i64>,
    gid0: i64,
    lid0: i64,
}

/// Why a concrete value is missing.
#[derive(Debug, PartialEq)]
enum Stop {
    /// Undefined behaviour on this lane (division by zero, signed overflow).
    Undefined,
    /// Not computable from Σ (memory, φs, floats).
    Unknown,
}

fn wrap_to(x: i128, ty: Ty) -> i64 {
    if ty == Ty::I1 {
        return (x & 1) as i64;
    }
    signed_const(x as u64, ty)
}

fn unsigned_of(a: i64, bits: u32) -> u64 {
    if bits >= 64 {
        a as u64
    } else {
        (a as u64) & ((1u64 << bits) - 1)
    }
}

impl GroupSpec<'_> {
    fn point(&self, p: &[i64]) -> Point {
        let mut leaves = FxHashMap::default();
        for (u, &x) in self.unknowns.iter().zip(p) {
            let ty = self.f.ty(u.leaf.value);
            leaves.insert(u.leaf.value, wrap_to(i128::from(x), ty));
        }
        let n = self.unknowns.len();
        let g = usize::from(self.gid);
        Point {
            leaves,
            gid0: if self.gid { p[n] } else { 0 },
            lid0: if self.lid { p[n + g] } else { 0 },
        }
    }

    /// `v` at `lane` as the machine computes it (wrapped to its type,
    /// sign-extended into the i64).
    fn eval(&self, v: ValueId, lane: u32, pt: &Point, depth: u32) -> Result<i64, Stop> {
        if let Some(&x) = pt.leaves.get(&v) {
            return Ok(x);
        }
        let f = self.f;
        let val = f.values.get(v.index()).ok_or(Stop::Unknown)?;
        let ty = val.ty;
        if !ty.is_int() || depth > 64 {
            return Err(Stop::Unknown);
        }
        let i = match &val.def {
            ValueDef::Const(Const::Int(c, t)) => return Ok(signed_const(*c, *t)),
            ValueDef::Inst(i) => *i,
            _ => return Err(Stop::Unknown),
        };
        let ev = |x: ValueId| self.eval(x, lane, pt, depth + 1);
        let bits = ty.bits();
        let r: i128 = match &f.inst(i).kind {
            InstKind::WorkItem { query, dim } => {
                let d = dim.and_then(|d| match f.as_const(d) {
                    Some(Const::Int(c, _)) => Some(c),
                    _ => None,
                });
                match (query, d) {
                    (WorkItem::GlobalId, Some(0)) => i128::from(pt.gid0) + i128::from(lane),
                    (WorkItem::LocalId, Some(0)) => i128::from(pt.lid0) + i128::from(lane),
                    (WorkItem::SubGroupLocalId, _) => i128::from(lane),
                    (WorkItem::SubGroupSize | WorkItem::MaxSubGroupSize, _) => {
                        i128::from(self.width)
                    }
                    _ => return Err(Stop::Unknown),
                }
            }
            InstKind::Bin { op, lhs, rhs } => {
                let a = ev(*lhs)?;
                let b = ev(*rhs)?;
                let (ua, ub) = (unsigned_of(a, bits), unsigned_of(b, bits));
                let (a, b) = (i128::from(a), i128::from(b));
                let nsw = f.nsw.contains(&v);
                let exact = |x: i128| -> Result<i128, Stop> {
                    let (lo, hi) = if bits >= 64 {
                        (i128::from(i64::MIN), i128::from(i64::MAX))
                    } else {
                        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                    };
                    if nsw && !(lo..=hi).contains(&x) {
                        Err(Stop::Undefined)
                    } else {
                        Ok(x)
                    }
                };
                match op {
                    BinOp::Add => exact(a + b)?,
                    BinOp::Sub => exact(a - b)?,
                    BinOp::Mul => exact(a.wrapping_mul(b))?,
                    BinOp::SDiv | BinOp::SRem if b == 0 => return Err(Stop::Undefined),
                    BinOp::UDiv | BinOp::URem if ub == 0 => return Err(Stop::Undefined),
                    BinOp::SDiv => a / b,
                    BinOp::SRem => a % b,
                    BinOp::UDiv => i128::from(ua / ub),
                    BinOp::URem => i128::from(ua % ub),
                    BinOp::And => a & b,
                    BinOp::Or => a | b,
                    BinOp::Xor => a ^ b,
                    BinOp::Shl => i128::from(ua.wrapping_shl(ub as u32 % bits.max(1))),
                    BinOp::AShr => a >> (ub as u32 % bits.max(1)),
                    BinOp::LShr => i128::from(ua >> (ub as u32 % bits.max(1))),
                    _ => return Err(Stop::Unknown),
                }
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                let lb = f.ty(*lhs).bits();
                let a = ev(*lhs)?;
                let b = ev(*rhs)?;
                let (ua, ub) = (unsigned_of(a, lb), unsigned_of(b, lb));
                use CmpPred::*;
                i128::from(match pred {
                    Eq => a == b,
                    Ne => a != b,
                    Slt => a < b,
                    Sle => a <= b,
                    Sgt => a > b,
                    Sge => a >= b,
                    Ult => ua < ub,
                    Ule => ua <= ub,
                    Ugt => ua > ub,
                    Uge => ua >= ub,
                    _ => return Err(Stop::Unknown),
                })
            }
            InstKind::Select { cond, then, els } => {
                if ev(*cond)? & 1 == 1 {
                    i128::from(ev(*then)?)
                } else {
                    i128::from(ev(*els)?)
                }
            }
            InstKind::Cast { op, value } => {
                let a = ev(*value)?;
                let fb = f.ty(*value).bits();
                match op {
                    CastOp::Trunc | CastOp::SExt => i128::from(a),
                    CastOp::ZExt => i128::from(unsigned_of(a, fb)),
                    _ => return Err(Stop::Unknown),
                }
            }
            InstKind::Math { func, args } if args.len() == 2 => {
                let a = ev(args[0])?;
                let b = ev(args[1])?;
                let (ua, ub) = (unsigned_of(a, bits), unsigned_of(b, bits));
                i128::from(match func {
                    MathFn::SMin => a.min(b),
                    MathFn::SMax => a.max(b),
                    MathFn::UMin if ua <= ub => a,
                    MathFn::UMin => b,
                    MathFn::UMax if ua >= ub => a,
                    MathFn::UMax => b,
                    _ => return Err(Stop::Unknown),
                })
            }
            _ => return Err(Stop::Unknown),
        };
        Ok(wrap_to(r, ty))
    }

    /// The byte offset of a pointer from its uniform root, and the root.
    fn offset(&self, ptr: ValueId, lane: u32, pt: &Point) -> Result<(ValueId, i128), Stop> {
        let mut p = ptr;
        let mut off = 0i128;
        for _ in 0..64 {
            match self.f.def_inst(p).map(|i| &self.f.inst(i).kind) {
                Some(InstKind::PtrAdd { base, offset }) => {
                    off += i128::from(self.eval(*offset, lane, pt, 0)?);
                    p = *base;
                }
                _ if self.div.is_uniform(p) => return Ok((p, off)),
                _ => return Err(Stop::Unknown),
            }
        }
        Err(Stop::Unknown)
    }

    /// `Ok(spec)`, or why the point is not in the domain.
    fn check(&self, p: &[i64]) -> Result<bool, Stop> {
        let pt = self.point(p);
        match self.goal {
            Goal::Branch(c) => {
                let first = self.eval(c, 0, &pt, 0)?;
                let mut same = true;
                for l in 1..self.width {
                    same &= self.eval(c, l, &pt, 0)? == first;
                }
                Ok(same)
            }
            Goal::Access(ptr, size) => {
                let (root, o0) = self.offset(ptr, 0, &pt)?;
                let (mut packed, mut uniform) = (true, true);
                for l in 1..self.width {
                    let (r, o) = self.offset(ptr, l, &pt)?;
                    if r != root {
                        return Ok(false);
                    }
                    packed &= o == o0 + i128::from(l) * i128::from(size);
                    uniform &= o == o0;
                }
                Ok(packed || uniform)
            }
        }
    }

    /// The pointer's offset from its uniform root, encoded.
    fn enc_offset(&self, enc: &mut Enc<'_>, ptr: ValueId) -> Option<(ValueId, Int)> {
        let mut p = ptr;
        let mut off = Int::from_i64(0);
        for _ in 0..64 {
            match self.f.def_inst(p).map(|i| &self.f.inst(i).kind) {
                Some(InstKind::PtrAdd { base, offset }) => {
                    off += enc.int(*offset)?;
                    p = *base;
                }
                _ if self.div.is_uniform(p) => return Some((p, off)),
                _ => return None,
            }
        }
        None
    }

    /// The goal on every lane, and the lanes' encoders: lane 0 and
    /// symbolic lanes (one per universally quantified lane of the goal), so
    /// the formula has two or three copies of the program, not W.
    fn encode_goal(&self) -> Option<(Bool, Vec<Enc<'_>>)> {
        let (f, div, w) = (self.f, self.div, self.width);
        let unsigned: rustc_hash::FxHashSet<ValueId> = self
            .unknowns
            .iter()
            .filter(|u| u.unsigned && !u.leaf.query)
            .map(|u| u.leaf.value)
            .collect();
        let enc = |lane: Option<&str>| {
            let mut e = match lane {
                None => Enc::new(f, div, w, Some(0)),
                Some(tag) => Enc::symbolic(f, div, w, 1, tag),
            };
            e.unsigned_leaves = unsigned.clone();
            e
        };
        let mut e0 = enc(None);
        match self.goal {
            Goal::Branch(c) => {
                let mut e1 = enc(Some("a"));
                let c0 = e0.bool(c)?;
                let goal = e1.bool(c)?.iff(&c0);
                Some((goal, vec![e0, e1]))
            }
            Goal::Access(ptr, size) => {
                let mut e1 = enc(Some("a"));
                let mut e2 = enc(Some("b"));
                let (root, o0) = self.enc_offset(&mut e0, ptr)?;
                let (r1, o1) = self.enc_offset(&mut e1, ptr)?;
                let (r2, o2) = self.enc_offset(&mut e2, ptr)?;
                if r1 != root || r2 != root {
                    return None;
                }
                let step = e1.lane() * Int::from_i64(size as i64);
                // Lane a packed, or lane b at lane 0's address.
                let goal = Bool::or(&[o1.eq(&(&o0 + step)), o2.eq(&o0)]);
                Some((goal, vec![e0, e1, e2]))
            }
        }
    }
}

impl cegis::Spec for GroupSpec<'_> {
    fn vars(&self) -> &[Var] {
        &self.vars
    }

    fn holds(&self, p: &[i64]) -> bool {
        self.check(p) == Ok(true)
    }

    fn domain(&self, p: &[i64]) -> bool {
        self.check(p) != Err(Stop::Undefined)
    }

    fn encode(&self, vars: &[Int]) -> Option<Bool> {
        let (goal, encs) = self.encode_goal()?;
        let mut ties = Vec::new();
        for (u, z) in self.unknowns.iter().zip(vars) {
            let b = u.leaf.bits.clamp(1, 64);
            let unsigned = u.unsigned && !u.leaf.query && b < 64;
            let name = Enc::leaf_name(&u.leaf.name, unsigned);
            ties.push(Int::new_const(name).eq(z));
        }
        let n = self.unknowns.len();
        if self.gid {
            ties.push(Int::new_const("gid0").eq(&vars[n]));
        }
        if self.lid {
            let g = usize::from(self.gid);
            ties.push(Int::new_const("lid0").eq(&vars[n + g]));
        }
        let mut products = Vec::new();
        for e in &encs {
            ties.push(e.assumptions());
            for p in e.products() {
                if !products.iter().any(|q: &Product| q.name == p.name) {
                    products.push(p);
                }
            }
        }
        *self.products.borrow_mut() = products;
        Some(Bool::and(&ties).implies(goal))
    }

    /// The group's width and its neighbours: a group straddles a period
    /// of an id unless it is aligned to it.
    fn moduli(&self) -> Vec<i64> {
        let w = i64::from(self.width);
        vec![w / 2, w, 2 * w]
    }

    /// One conjunction: what a fast path can check and the analysis
    /// inside it can use.
    fn max_clauses(&self) -> usize {
        1
    }

    fn lemmas(&self, _vars: &[Int], moduli: &[i64]) -> Option<Bool> {
        let ls = Enc::lemmas(&self.products.borrow(), moduli);
        (!ls.is_empty()).then(|| Bool::and(&ls))
    }
}

/// Whether the C type of `v` (a parameter or the variable holding it) is
/// unsigned; else whether unsigned operations use it.
fn is_unsigned(f: &Function, unit: &hir::Unit, kernel: hir::FuncId, v: ValueId) -> bool {
    let func = unit.function(kernel);
    let local_ty = |node| {
        func.locals
            .iter()
            .find(|l| l.node == node)
            .and_then(|l| l.ty.scalar())
    };
    if let Some(ValueDef::Param(i)) = f.values.get(v.index()).map(|x| &x.def) {
        if let Some(p) = f.params.get(*i as usize) {
            let s = func
                .params
                .get(p.source_index as usize)
                .and_then(|&l| func.local(l).ty.scalar());
            if let Some(s) = s {
                return !s.is_signed();
            }
        }
    }
    for var in &f.vars {
        if !var.in_memory && var.values.len() == 1 && var.values[0] == v {
            if let Some(s) = local_ty(var.node) {
                return !s.is_signed();
            }
        }
    }
    f.insts.iter().any(|i| match &i.kind {
        InstKind::Bin { op, lhs, rhs } => {
            matches!(op, BinOp::UDiv | BinOp::URem | BinOp::LShr) && (*lhs == v || *rhs == v)
        }
        InstKind::Cmp { pred, lhs, rhs } => {
            matches!(
                pred,
                CmpPred::Ult | CmpPred::Ule | CmpPred::Ugt | CmpPred::Uge
            ) && (*lhs == v || *rhs == v)
        }
        InstKind::Cast {
            op: CastOp::ZExt,
            value,
        } => *value == v,
        _ => false,
    })
}

/// A name for the work-item id `query(0)` in the kernel's terms (the
/// variable holding it, possibly converted), if any.
fn id_name(f: &Function, namer: &Namer<'_>, query: WorkItem) -> Option<String> {
    let ids: Vec<ValueId> = f
        .insts
        .iter()
        .enumerate()
        .filter(|(_, i)| {
            matches!(&i.kind, InstKind::WorkItem { query: q, dim: Some(d) }
                if *q == query && matches!(f.as_const(*d), Some(Const::Int(0, _))))
        })
        .filter_map(|(_, i)| i.result)
        .collect();
    let mut cands = ids.clone();
    for i in &f.insts {
        if let InstKind::Cast {
            op: CastOp::Trunc | CastOp::SExt | CastOp::ZExt,
            value,
        } = &i.kind
        {
            if ids.contains(value) && f.ty(*value).bits().min(64) >= 32 && i.ty.bits() >= 32 {
                if let Some(v) = i.result {
                    cands.push(v);
                }
            }
        }
    }
    cands.into_iter().find_map(|v| {
        let n = namer.name(v, false)?;
        n.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
            .then_some(n)
    })
}

/// Parenthesises a compound C expression.
fn paren(s: String) -> String {
    let simple = s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if simple || (s.starts_with('(') && balanced_outer(&s)) {
        s
    } else {
        format!("({s})")
    }
}

/// `s` is one parenthesised expression (`(a + b)`, not `(a) + (b)`).
fn balanced_outer(s: &str) -> bool {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 && i + 1 != s.len() {
                    return false;
                }
            }
            _ => {}
        }
    }
    depth == 0
}

/// Result of a synthesis: the outcome and the Z3 queries made.
pub struct Synthesis {
    pub outcome: Outcome,
    pub queries: u32,
    /// The DNF found, over the spec's var names: a hint for the kernel's
    /// later targets ([`cegis::synthesize_with`]).
    pub found: Option<cegis::Hint>,
}

/// CEGIS for `goal`: a DNF over Σ, every clause proven by Z3, spelled in
/// the lane's terms at `stmt` (`lane`, `exact`) and for the group.
#[allow(clippy::too_many_arguments)]
pub fn synthesize(
    f: &Function,
    div: &Divergence,
    unit: &hir::Unit,
    kernel: hir::FuncId,
    stmt: Option<Span>,
    width: u32,
    goal: Goal,
    meter: &mut Meter,
    hints: &[cegis::Hint],
) -> Synthesis {
    let not_found = |why: &str| Synthesis {
        outcome: Outcome::NotFound(why.to_string()),
        queries: 0,
        found: None,
    };
    // Which unknowns the goal depends on: encode it once.
    let probe = GroupSpec {
        f,
        div,
        width,
        goal,
        unknowns: Vec::new(),
        vars: Vec::new(),
        gid: false,
        lid: false,
        products: RefCell::new(Vec::new()),
    };
    let Some((_, encs)) = probe.encode_goal() else {
        return not_found("the target cannot be encoded for the solver");
    };
    if encs.iter().any(|e| e.data_dependent) {
        return not_found("it depends on values in memory or on control flow");
    }
    let mut leaves: Vec<Leaf> = Vec::new();
    for e in &encs {
        for l in &e.leaves {
            if !leaves.iter().any(|x| x.name == l.name) {
                leaves.push(l.clone());
            }
        }
    }
    if leaves.len() > MAX_UNKNOWNS {
        return not_found("it depends on too many values for synthesis");
    }
    let gid = encs.iter().any(|e| e.uses_gid0);
    let lid = encs.iter().any(|e| e.uses_lid0);
    let unknowns: Vec<Unknown> = leaves
        .into_iter()
        .map(|leaf| Unknown {
            unsigned: leaf.query || is_unsigned(f, unit, kernel, leaf.value),
            leaf,
        })
        .collect();
    let mut vars = Vec::new();
    for u in &unknowns {
        let b = u.leaf.bits.clamp(1, 64);
        let (min, max) = if u.leaf.query {
            (0, (1i64 << 31) - 1)
        } else if u.unsigned {
            (0, if b >= 63 { i64::MAX } else { (1i64 << b) - 1 })
        } else if b >= 64 {
            (i64::MIN, i64::MAX)
        } else {
            (-(1i64 << (b - 1)), (1i64 << (b - 1)) - 1)
        };
        let lo = if u.unsigned || u.leaf.query { 0 } else { -64 };
        vars.push(
            Var::new(u.leaf.name.clone(), lo.max(min), PARAM_BOX.min(max)).with_domain(min, max),
        );
    }
    let id_max = (1i64 << 31) - i64::from(width);
    if gid {
        vars.push(Var::new("gid0", 0, X0_BOX).with_domain(0, id_max));
    }
    if lid {
        vars.push(Var::new("lid0", 0, X0_BOX).with_domain(0, id_max));
    }
    let spec = GroupSpec {
        f,
        div,
        width,
        goal,
        unknowns,
        vars,
        gid,
        lid,
        products: RefCell::new(Vec::new()),
    };
    if spec.vars.is_empty() {
        return not_found("it depends on no value of the group");
    }
    let (outcome, stats) = cegis::synthesize_with(&spec, meter, hints);
    let queries = stats.literal_queries + stats.clause_queries;
    if std::env::var_os("LANES_PRECOND_DEBUG").is_some() {
        eprintln!("cegis: {stats:?}");
    }
    let dnf = match outcome {
        cegis::Outcome::Found(d) if !d.0.is_empty() => d,
        cegis::Outcome::Timeout => {
            return Synthesis {
                outcome: Outcome::OutOfBudget(meter.exhausted().unwrap_or(Exhausted::Target)),
                queries,
                found: None,
            }
        }
        _ => {
            return Synthesis {
                outcome: Outcome::NotFound(
                    "no condition on the group's ids and the uniform values makes it uniform"
                        .into(),
                ),
                queries,
                found: None,
            }
        }
    };
    let found = Some(cegis::Hint {
        names: spec.vars.iter().map(|v| v.name.clone()).collect(),
        dnf: dnf.clone(),
    });
    // Names: lane terms at the statement, `long` for the check, group terms.
    let namer = Namer::new(f, unit, kernel, stmt);
    let display = Namer::new(f, unit, kernel, None);
    let mut lane = Vec::new();
    let mut exact = Vec::new();
    let mut group = Vec::new();
    for u in &spec.unknowns {
        let shown = display
            .name(u.leaf.value, false)
            .unwrap_or_else(|| format!("%{}", u.leaf.value.0));
        lane.push(namer.name(u.leaf.value, false).map(paren));
        exact.push(namer.name(u.leaf.value, true).map(paren));
        group.push(paren(shown));
    }
    for (query, fallback) in [
        (WorkItem::GlobalId, "get_global_id(0)"),
        (WorkItem::LocalId, "get_local_id(0)"),
    ] {
        if (query == WorkItem::LocalId && !spec.lid) || (query == WorkItem::GlobalId && !spec.gid) {
            continue;
        }
        let id = id_name(f, &namer, query);
        let name = id.clone().unwrap_or_else(|| fallback.to_string());
        lane.push(Some(format!("({name} - get_sub_group_local_id())")));
        exact.push(Some(format!(
            "((long){name} - (long)get_sub_group_local_id())"
        )));
        let shown = id_name(f, &display, query);
        group.push(match (query, shown) {
            (_, Some(n)) => format!("{n}0"),
            (WorkItem::GlobalId, None) => "x0".to_string(),
            _ => "lid0".to_string(),
        });
    }
    let group_text = dnf.display_vars(&with_names(&spec.vars, &group));
    let (Some(lane), Some(exact)) = (
        lane.into_iter().collect::<Option<Vec<String>>>(),
        exact.into_iter().collect::<Option<Vec<String>>>(),
    ) else {
        return Synthesis {
            outcome: Outcome::NotFound(format!(
                "{group_text} (proven, but not expressible where the fast path would go)"
            )),
            queries,
            found,
        };
    };
    let lane_text = dnf.display_vars(&with_names(&spec.vars, &lane));
    let exact_text = dnf.display_vars(&with_names(&spec.vars, &exact));
    let effect = match goal {
        Goal::Branch(_) => "the branch goes the same way on every lane",
        Goal::Access(..) => "the access is a packed vector access",
    };
    Synthesis {
        outcome: Outcome::Found(Precondition {
            lane: lane_text,
            exact: exact_text,
            group: Some(group_text),
            rejected: Vec::new(),
            coverage: None,
            method: "cegis",
            effect: effect.into(),
        }),
        queries,
        found,
    }
}

fn with_names(vars: &[Var], names: &[String]) -> Vec<Var> {
    vars.iter()
        .zip(names)
        .map(|(v, n)| Var {
            name: n.clone(),
            ..v.clone()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::precond::cegis::Spec;

    fn kernel(src: &str, w: u32) -> crate::report::KernelAnalysis {
        let u = lanes_frontend::unit::check_text(
            "t.cl",
            None,
            src,
            &lanes_frontend::preprocess::PreprocessOptions::default(),
            &lanes_frontend::preprocess::RealFs,
        );
        let k = *u.hir.kernels().first().expect("a kernel");
        crate::report::analyze_kernel(&u.hir, k, w).expect("analyses")
    }

    /// One clause proof (`clause ⇒ spec`, the query CEGIS makes most):
    /// its time, and that it is proven.
    fn prove(spec: &GroupSpec<'_>, clause: &[(usize, i64)]) -> std::time::Duration {
        let vars: Vec<Int> = spec
            .vars
            .iter()
            .map(|v| Int::new_const(format!("{}!t", v.name)))
            .collect();
        let e = spec.encode(&vars).expect("encodable");
        let s = z3::Solver::new();
        for (v, z) in spec.vars.iter().zip(&vars) {
            s.assert(z.ge(Int::from_i64(v.min)));
            s.assert(z.le(Int::from_i64(v.max)));
        }
        for &(v, m) in clause {
            s.assert(vars[v].modulo(Int::from_i64(m)).eq(Int::from_i64(0)));
        }
        let ms: Vec<i64> = clause.iter().map(|c| c.1).collect();
        if let Some(l) = spec.lemmas(&vars, &ms) {
            s.assert(l);
        }
        s.assert(e.not());
        let t = std::time::Instant::now();
        assert_eq!(s.check(), z3::SatResult::Unsat);
        t.elapsed()
    }

    /// The times in the module doc of `cegis.rs` (run with `--ignored
    /// --nocapture`; a shared machine makes them vary).
    #[test]
    #[ignore = "a measurement"]
    fn query_times() {
        let ka = kernel(
            "__kernel void k(__global int *a) { int x = get_global_id(0); if ((x / 8) % 2 == 0) a[x] = 1; }",
            8,
        );
        let f = &ka.func;
        let b = *ka.div.divergent_branches.iter().next().unwrap();
        let Some(InstKind::CondBr { cond, .. }) = f.terminator(b).map(|t| &f.inst(t).kind) else {
            panic!()
        };
        let spec = GroupSpec {
            f,
            div: &ka.div,
            width: 8,
            goal: Goal::Branch(*cond),
            unknowns: Vec::new(),
            vars: vec![Var::new("gid0", 0, 1 << 16).with_domain(0, (1 << 31) - 8)],
            gid: true,
            lid: false,
            products: RefCell::new(Vec::new()),
        };
        eprintln!(
            "(x / 8) % 2, W = 8, x0 % 8 == 0: {:?}",
            prove(&spec, &[(0, 8)])
        );
        let src = include_str!("../../../tests/kernels/precond/fast_walsh_transform.cl");
        for w in [4u32, 8, 16] {
            let ka = kernel(src, w);
            let f = &ka.func;
            let loads: Vec<ValueId> = f
                .insts
                .iter()
                .filter_map(|i| match i.kind {
                    InstKind::Load { ptr, .. } => Some(ptr),
                    _ => None,
                })
                .collect();
            let step = ValueId(
                f.values
                    .iter()
                    .position(|v| matches!(v.def, ValueDef::Param(1)))
                    .unwrap() as u32,
            );
            for (k, &ptr) in loads.iter().enumerate() {
                let spec = GroupSpec {
                    f,
                    div: &ka.div,
                    width: w,
                    goal: Goal::Access(ptr, 4),
                    unknowns: vec![Unknown {
                        leaf: Leaf {
                            value: step,
                            name: "p1".into(),
                            bits: 32,
                            query: false,
                        },
                        unsigned: true,
                    }],
                    vars: vec![
                        Var::new("p1", 0, 1024).with_domain(0, (1 << 32) - 1),
                        Var::new("gid0", 0, 1 << 16).with_domain(0, (1 << 31) - i64::from(w)),
                    ],
                    gid: true,
                    lid: false,
                    products: RefCell::new(Vec::new()),
                };
                let m = i64::from(w);
                eprintln!(
                    "FastWalshTransform load {k}, W = {w}, step % W == 0 && x0 % W == 0: {:?}",
                    prove(&spec, &[(0, m), (1, m)])
                );
            }
        }
    }
}
