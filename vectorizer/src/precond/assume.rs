//! Assumption-aware analysis: inside `if (sub_group_all(P)) { ... }` every
//! active lane satisfies P, so a `min`/`max`/`select` whose piece P decides
//! is its arm there, and a branch whose condition P decides goes one way.
//! [`apply`] rewrites the uses inside the guarded region accordingly; the
//! ordinary divergence analysis then sees contiguous indices and uniform
//! exits. The values are equal on the lanes that run the region, so the
//! program computes the same results (the interpreter and the vectorizer
//! run the rewritten function).
//!
//! P decides a piece when a conjunct of P implies the piece's condition
//! syntactically: the same linear form up to a weaker constant, or the
//! sum of two conjuncts. This needs no solver, so it runs on every edit.

use rustc_hash::FxHashMap;

use crate::cfg::Cfg;
use crate::ir::{
    BinOp, BlockId, CmpPred, Const, Function, Horizontal, InstKind, MathFn, Ty, ValueId,
};

use super::linear::{self, Cond};
use crate::report::any_guard::horizontal_argument;

/// Rewrites `f` under the `sub_group_all` guards it contains, for SIMD
/// groups of `width` lanes; returns the number of uses rewritten. Modulus
/// facts decide divisions ([`super::assume_mod`]).
pub fn apply(f: &mut Function, cfg: &Cfg, width: u32) -> usize {
    let mut changed = 0;
    for mut g in guards(f, cfg) {
        unsigned_forms(f, &mut g.facts);
        changed += rewrite_region(f, cfg, &g);
    }
    changed + super::assume_mod::apply(f, cfg, width)
}

/// A fact over zero-extended values read signed (`(long)lid < (long)d`,
/// the `long` form of a `uint` comparison that `--specialize auto`
/// inserts) is the same fact over the values read unsigned (`lid < d`):
/// both forms are kept.
fn unsigned_forms(f: &Function, facts: &mut Vec<Cond>) {
    let inner = |v: ValueId| match f.def_inst(v).map(|i| &f.inst(i).kind) {
        Some(InstKind::Cast {
            op: crate::ir::CastOp::ZExt,
            value,
        }) if f.ty(*value).is_int() && f.ty(*value) != Ty::I1 && f.ty(*value).bits() < 64 => {
            Some(*value)
        }
        _ => None,
    };
    let mut extra = Vec::new();
    for c in facts.iter() {
        if c.ext != linear::Ext::Signed || c.lin.terms.is_empty() {
            continue;
        }
        let mut lin = linear::Lin::constant(c.lin.k);
        let ok = c.lin.terms.iter().all(|(&v, &k)| match inner(v) {
            Some(x) => {
                *lin.terms.entry(x).or_insert(0) += k;
                true
            }
            None => false,
        });
        lin.terms.retain(|_, k| *k != 0);
        if ok {
            extra.push(Cond {
                lin,
                ext: linear::Ext::Unsigned,
            });
        }
    }
    facts.extend(extra);
}

struct Guard {
    /// The first block of the guarded region (only reached from the guard).
    region: BlockId,
    /// The first block of the `else` side, when only the guard reaches it.
    els: Option<BlockId>,
    facts: Vec<Cond>,
}

fn guards(f: &Function, cfg: &Cfg) -> Vec<Guard> {
    let mut out = Vec::new();
    for &b in cfg.rpo() {
        let Some(t) = f.terminator(b) else { continue };
        let InstKind::CondBr { cond, then, els } = &f.inst(t).kind else {
            continue;
        };
        if then == els || cfg.preds(*then).len() != 1 {
            continue;
        }
        let Some(arg) = horizontal_argument(f, *cond, Horizontal::All) else {
            continue;
        };
        let mut facts = Vec::new();
        conjuncts(f, arg, &mut facts, 0);
        if !facts.is_empty() {
            // What the guards on the way hold for every lane that reaches the
            // check (`if (x >= n) return;` before it): the gist may have
            // dropped those conjuncts from P (see gist.rs).
            for (c, truth) in super::gist::guard_edges(f, cfg, b) {
                guard_facts(f, c, truth, &mut facts, 0);
            }
            out.push(Guard {
                region: *then,
                els: (cfg.preds(*els).len() == 1).then_some(*els),
                facts,
            });
        }
    }
    out
}

/// Whether `block` is on the `else` side of an `if (sub_group_all(P))`
/// whose P implies every one of `conds`: that `else` is the original copy
/// of a fast path for them, which the guard's true side already is.
pub(super) fn in_fast_path_else(f: &Function, cfg: &Cfg, block: BlockId, conds: &[Cond]) -> bool {
    !conds.is_empty()
        && guards(f, cfg).into_iter().any(|mut g| {
            if !g.els.is_some_and(|e| cfg.dominates(e, block)) {
                return false;
            }
            unsigned_forms(f, &mut g.facts);
            conds.iter().all(|c| implied(c, &g.facts))
        })
}

/// The linear facts of an `i1` with value `truth`: comparisons joined by
/// `and` (true) or by `or` (false).
fn guard_facts(f: &Function, v: ValueId, truth: bool, out: &mut Vec<Cond>, depth: u32) {
    if depth > 16 {
        return;
    }
    let Some(i) = f.def_inst(v) else { return };
    match &f.inst(i).kind {
        InstKind::Cmp { pred, lhs, rhs } => {
            if let Some(cs) = linear::cmp_conds(f, *pred, *lhs, *rhs, truth) {
                out.extend(cs);
            }
        }
        InstKind::Bin { op, lhs, rhs }
            if f.ty(v) == Ty::I1
                && ((truth && *op == BinOp::And) || (!truth && *op == BinOp::Or)) =>
        {
            guard_facts(f, *lhs, truth, out, depth + 1);
            guard_facts(f, *rhs, truth, out, depth + 1);
        }
        _ => {}
    }
}

/// The linear facts of an `i1` that is true: comparisons joined by `and`.
fn conjuncts(f: &Function, v: ValueId, out: &mut Vec<Cond>, depth: u32) {
    if depth > 16 {
        return;
    }
    let Some(i) = f.def_inst(v) else { return };
    match &f.inst(i).kind {
        InstKind::Cmp { pred, lhs, rhs } => {
            if let Some(cs) = linear::cmp_conds(f, *pred, *lhs, *rhs, true) {
                out.extend(cs);
            }
        }
        InstKind::Bin {
            op: BinOp::And,
            lhs,
            rhs,
        } if f.ty(v) == Ty::I1 => {
            conjuncts(f, *lhs, out, depth + 1);
            conjuncts(f, *rhs, out, depth + 1);
        }
        _ => {}
    }
}

/// `c` follows from the facts: one of them, or the sum of two, equals `c`
/// up to a non-negative constant.
fn implied(c: &Cond, facts: &[Cond]) -> bool {
    if facts.iter().any(|x| c.implied_by(x)) {
        return true;
    }
    for (i, a) in facts.iter().enumerate() {
        for b in &facts[i + 1..] {
            if a.ext != c.ext || b.ext != c.ext {
                continue;
            }
            let sum = a.lin.add(&b.lin, 1);
            if sum.is_some_and(|s| c.implied_by(&Cond { lin: s, ext: c.ext })) {
                return true;
            }
        }
    }
    false
}

fn all_implied(cs: Option<Vec<Cond>>, facts: &[Cond]) -> bool {
    cs.is_some_and(|cs| !cs.is_empty() && cs.iter().all(|c| implied(c, facts)))
}

/// What a value is inside the region: its decided arm, or a constant for
/// a decided comparison.
fn decided(f: &mut Function, v: ValueId, facts: &[Cond]) -> Option<ValueId> {
    let i = f.def_inst(v)?;
    match f.inst(i).kind.clone() {
        InstKind::Math { func, args } if args.len() == 2 && f.ty(v).is_int() => {
            let pred = match func {
                MathFn::SMin => CmpPred::Sle,
                MathFn::SMax => CmpPred::Sge,
                MathFn::UMin => CmpPred::Ule,
                MathFn::UMax => CmpPred::Uge,
                _ => return None,
            };
            for (arm, other) in [(args[0], args[1]), (args[1], args[0])] {
                if all_implied(linear::cmp_conds(f, pred, arm, other, true), facts) {
                    return Some(arm);
                }
            }
            None
        }
        InstKind::Select { cond, then, els } => {
            let c = decided(f, cond, facts)?;
            match f.as_const(c) {
                Some(Const::Int(1, Ty::I1)) => Some(then),
                Some(Const::Int(0, Ty::I1)) => Some(els),
                _ => None,
            }
        }
        InstKind::Cmp { pred, lhs, rhs } if f.ty(lhs).is_int() => {
            for truth in [true, false] {
                if all_implied(linear::cmp_conds(f, pred, lhs, rhs, truth), facts) {
                    return Some(f.add_const(Const::Int(u64::from(truth), Ty::I1)));
                }
            }
            None
        }
        _ => None,
    }
}

/// [`decided`], computed once per value of a region.
fn decided_once(
    f: &mut Function,
    memo: &mut FxHashMap<ValueId, Option<ValueId>>,
    v: ValueId,
    facts: &[Cond],
) -> Option<ValueId> {
    if let Some(r) = memo.get(&v) {
        return *r;
    }
    let r = decided(f, v, facts);
    memo.insert(v, r);
    r
}

fn rewrite_region(f: &mut Function, cfg: &Cfg, g: &Guard) -> usize {
    let blocks: Vec<BlockId> = cfg
        .rpo()
        .iter()
        .copied()
        .filter(|&b| cfg.dominates(g.region, b))
        .collect();
    let mut memo: FxHashMap<ValueId, Option<ValueId>> = FxHashMap::default();
    let mut changed = 0;
    for b in blocks {
        let insts = f.block(b).insts.clone();
        for i in insts {
            // A φ's value flows on an edge: only edges from inside count.
            let ops: Vec<ValueId> = match &f.inst(i).kind {
                InstKind::Phi { incoming } => incoming
                    .iter()
                    .filter(|(p, _)| cfg.dominates(g.region, *p))
                    .map(|(_, v)| *v)
                    .collect(),
                k => k.operands(),
            };
            for op in ops {
                let Some(n) = decided_once(f, &mut memo, op, &g.facts) else {
                    continue;
                };
                match &mut f.insts[i.index()].kind {
                    InstKind::Phi { incoming } => {
                        for (p, x) in incoming.iter_mut() {
                            if *x == op && cfg.dominates(g.region, *p) {
                                *x = n;
                            }
                        }
                    }
                    k => k.for_each_operand_mut(|x| {
                        if *x == op {
                            *x = n;
                        }
                    }),
                }
                changed += 1;
            }
        }
    }
    // The values of a variable as the region sees them: those assigned in
    // it (defined there, or any value of a variable declared there, like
    // `int i = left` whose `left` comes from before the guard). The
    // report shows a variable's shape from these.
    let inside = |f: &Function, v: ValueId| {
        f.def_inst(v)
            .is_some_and(|i| cfg.dominates(g.region, f.inst(i).block))
    };
    for k in 0..f.vars.len() {
        let declared_inside = f.vars[k].block.is_some_and(|b| cfg.dominates(g.region, b));
        for j in 0..f.vars[k].values.len() {
            let v = f.vars[k].values[j];
            if !declared_inside && !inside(f, v) {
                continue;
            }
            if let Some(n) = decided_once(f, &mut memo, v, &g.facts) {
                f.vars[k].values[j] = n;
                changed += 1;
            }
        }
    }
    changed
}
