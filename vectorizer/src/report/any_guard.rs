//! Divergent branches already guarded by hand: `if (sub_group_any(c')) {
//! if (c) ... }` where `c` implies `c'` (what *Guard with any()* writes).
//! The group skips the masked side when no lane takes it, so L0300's advice
//! is followed there.

use crate::cfg::Cfg;
use crate::ir::{BinOp, BlockId, CmpPred, Const, Function, Horizontal, InstKind, ValueId};
use lanes_frontend::source::Span;

/// The guard around the branch in `b` (whose condition is `cond`): the
/// `sub_group_any` branch that is `b`'s only control dependence, through
/// its true side, and whose argument `cond` implies. Its source span.
pub(super) fn any_guard(f: &Function, cfg: &Cfg, b: BlockId, cond: ValueId) -> Option<Span> {
    let [g] = cfg.control_deps(b) else {
        return None;
    };
    let t = f.terminator(*g)?;
    let InstKind::CondBr { cond: gc, then, .. } = &f.inst(t).kind else {
        return None;
    };
    if !cfg.dominates(*then, b) {
        return None;
    }
    let arg = horizontal_argument(f, *gc, Horizontal::Any)?;
    implies(f, cond, arg, 0).then(|| f.inst(t).src.span)
}

/// `c` is `sub_group_any(a)` / `sub_group_all(a)` (as `op` says), possibly
/// as `int != 0`: `a`.
pub(crate) fn horizontal_argument(f: &Function, c: ValueId, op: Horizontal) -> Option<ValueId> {
    let i = f.def_inst(c)?;
    match &f.inst(i).kind {
        InstKind::Horizontal { op: o, args } if *o == op => args.first().copied(),
        InstKind::Cmp {
            pred: CmpPred::Ne,
            lhs,
            rhs,
        } if matches!(f.as_const(*rhs), Some(Const::Int(0, _))) => {
            let j = f.def_inst(*lhs)?;
            match &f.inst(j).kind {
                InstKind::Cast { value, .. } => horizontal_argument(f, *value, op),
                _ => None,
            }
        }
        _ => None,
    }
}

const MAX_DEPTH: u32 = 16;

/// `c` implies `a`: they compute the same thing, or `a` is an `||` (an
/// `i1` `or`) one side of which `c` implies.
fn implies(f: &Function, c: ValueId, a: ValueId, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if same(f, c, a, 0) {
        return true;
    }
    match f.def_inst(a).map(|i| &f.inst(i).kind) {
        Some(InstKind::Bin {
            op: BinOp::Or,
            lhs,
            rhs,
        }) => implies(f, c, *lhs, depth + 1) || implies(f, c, *rhs, depth + 1),
        _ => false,
    }
}

/// `a` and `b` compute the same value: the same value, equal constants, or
/// the same instruction kind over operands that are the same (the guard
/// evaluates its own copy of the condition).
fn same(f: &Function, a: ValueId, b: ValueId, depth: u32) -> bool {
    if a == b {
        return true;
    }
    if depth > MAX_DEPTH || f.ty(a) != f.ty(b) {
        return false;
    }
    if let (Some(x), Some(y)) = (f.as_const(a), f.as_const(b)) {
        return x == y;
    }
    let (Some(i), Some(j)) = (f.def_inst(a), f.def_inst(b)) else {
        return false;
    };
    let (ki, kj) = (&f.inst(i).kind, &f.inst(j).kind);
    if matches!(ki, InstKind::Phi { .. }) || matches!(kj, InstKind::Phi { .. }) {
        return false;
    }
    let (oi, oj) = (ki.operands(), kj.operands());
    let blank = |k: &InstKind| {
        let mut k = k.clone();
        k.for_each_operand_mut(|v| *v = ValueId(0));
        k
    };
    oi.len() == oj.len()
        && blank(ki) == blank(kj)
        && oi.iter().zip(&oj).all(|(&x, &y)| same(f, x, y, depth + 1))
}
