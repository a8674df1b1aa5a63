//! Modulus facts under `sub_group_all(P)` (the conditions CEGIS finds:
//! `step % 16 == 0 && (tid - get_sub_group_local_id()) % 16 == 0`) decide
//! divisions, the way [`super::assume`] decides `min`/`max`/`select` with
//! linear facts.
//!
//! When the divisor `d` is a multiple of `m` and the dividend is
//! `a = b + s·lane` with `b ≡ r (mod m)`, `s >= 1` and `r + s·(W - 1) <
//! m`, every lane of the group lies in the block of `d` that `b` lies in
//! (blocks start at multiples of `d`, hence of `m`, and `b mod d ≤ d - m +
//! r`), so `a / d = b / d` and `a % d = b % d + s·lane`. Inside the guarded
//! region the division is rewritten to divide `b = a - s·lane` instead:
//! `b / d` is uniform and `b % d + s·lane` contiguous for the divergence
//! analysis, and every lane that satisfies the facts computes the same
//! values as before. Only unsigned divisions: the facts are on the
//! unsigned (zero-extended) reading, and `b >= 0` follows from them.
//!
//! The facts are comparisons `x % m == r` (`srem`/`urem` by a constant)
//! or `(x & (m - 1)) == r` joined by `and`, or by `&&` lowered to a branch
//! and a φ (a right operand that calls `get_sub_group_local_id()` or
//! divides is not evaluated eagerly).

use crate::cfg::Cfg;
use crate::ir::{
    BinOp, BlockId, CastOp, CmpPred, Const, Function, Horizontal, InstKind, Ty, ValueId, WorkItem,
};

use super::linear::{self, Ext, Lin};

/// `lin ≡ r (mod m)`, `lin` over the values of the check (read as `long`).
#[derive(Clone, Debug)]
struct ModFact {
    lin: Lin,
    m: i64,
    r: i64,
}

/// Rewrites the divisions the modulus facts of the `sub_group_all` guards
/// of `f` decide, for groups of `width` lanes; returns how many.
pub(super) fn apply(f: &mut Function, cfg: &Cfg, width: u32) -> usize {
    let mut changed = 0;
    for (region, facts) in guards(f, cfg) {
        changed += rewrite(f, cfg, region, &facts, width);
    }
    changed
}

fn guards(f: &Function, cfg: &Cfg) -> Vec<(BlockId, Vec<ModFact>)> {
    let mut out = Vec::new();
    for &b in cfg.rpo() {
        let Some(t) = f.terminator(b) else { continue };
        let InstKind::CondBr { cond, then, els } = &f.inst(t).kind else {
            continue;
        };
        if then == els || cfg.preds(*then).len() != 1 {
            continue;
        }
        let Some(arg) = all_argument(f, *cond, 0) else {
            continue;
        };
        let mut facts = Vec::new();
        collect(f, cfg, arg, &mut facts, 0);
        if !facts.is_empty() {
            out.push((*then, facts));
        }
    }
    out
}

/// `c` is `sub_group_all(a)` (possibly as `int != 0`): `a`.
fn all_argument(f: &Function, c: ValueId, depth: u32) -> Option<ValueId> {
    if depth > 4 {
        return None;
    }
    let i = f.def_inst(c)?;
    match &f.inst(i).kind {
        InstKind::Horizontal {
            op: Horizontal::All,
            args,
        } => args.first().copied(),
        InstKind::Cmp {
            pred: CmpPred::Ne,
            lhs,
            rhs,
        } if matches!(f.as_const(*rhs), Some(Const::Int(0, _))) => {
            match &f.inst(f.def_inst(*lhs)?).kind {
                InstKind::Cast { value, .. } => all_argument(f, *value, depth + 1),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The modulus facts of an `i1` that is true.
fn collect(f: &Function, cfg: &Cfg, v: ValueId, out: &mut Vec<ModFact>, depth: u32) {
    if depth > 16 {
        return;
    }
    let Some(i) = f.def_inst(v) else { return };
    match &f.inst(i).kind {
        InstKind::Cmp { pred, lhs, rhs } => {
            if let Some(m) = mod_fact(f, *pred, *lhs, *rhs) {
                out.push(m);
            }
        }
        InstKind::Bin {
            op: BinOp::And,
            lhs,
            rhs,
        } if f.ty(v) == Ty::I1 => {
            collect(f, cfg, *lhs, out, depth + 1);
            collect(f, cfg, *rhs, out, depth + 1);
        }
        // `a && b`: `φ [x: false] [z: b]` where `x` branches on `a` and `z`
        // is only reached on its true edge.
        InstKind::Phi { incoming } if incoming.len() == 2 && f.ty(v) == Ty::I1 => {
            let is_false = |x: ValueId| matches!(f.as_const(x), Some(Const::Int(0, Ty::I1)));
            let (Some(&(x, _)), Some(&(z, b))) = (
                incoming.iter().find(|e| is_false(e.1)),
                incoming.iter().find(|e| !is_false(e.1)),
            ) else {
                return;
            };
            let Some(InstKind::CondBr { cond, then, els }) =
                f.terminator(x).map(|t| &f.inst(t).kind)
            else {
                return;
            };
            let join = f.inst(i).block;
            if *els != join || *then == join || cfg.preds(*then).len() != 1 {
                return;
            }
            if !cfg.dominates(*then, z) {
                return;
            }
            collect(f, cfg, *cond, out, depth + 1);
            collect(f, cfg, b, out, depth + 1);
        }
        _ => {}
    }
}

/// `x % m == r` (`srem`/`urem` by a constant `m >= 2`) or `(x & (m - 1))
/// == r` for a power of two `m`, with `0 <= r < m`.
fn mod_fact(f: &Function, pred: CmpPred, lhs: ValueId, rhs: ValueId) -> Option<ModFact> {
    if pred != CmpPred::Eq {
        return None;
    }
    let konst = |v: ValueId| match f.as_const(v) {
        Some(Const::Int(c, t)) => Some(linear::signed_const(c, t)),
        _ => None,
    };
    let (x, r) = match (konst(lhs), konst(rhs)) {
        (None, Some(r)) => (lhs, r),
        (Some(r), None) => (rhs, r),
        _ => return None,
    };
    let InstKind::Bin { op, lhs: a, rhs: b } = &f.inst(f.def_inst(x)?).kind else {
        return None;
    };
    let c = konst(*b)?;
    let m = match op {
        BinOp::SRem | BinOp::URem if c >= 2 => c,
        BinOp::And if c >= 1 && (c + 1) & c == 0 => c.checked_add(1)?,
        _ => return None,
    };
    // C's `%` of a negative value is never a positive `r`; `0` means
    // divisibility whatever the sign.
    if !(0..m).contains(&r) {
        return None;
    }
    let lin = linear::lin(f, *a, Ext::Signed)?;
    Some(ModFact { lin, m, r })
}

/// `atom` is `x` read unsigned: `x` zero-extended, or a 64-bit `x`.
fn reads(f: &Function, atom: ValueId, x: ValueId) -> bool {
    if atom == x {
        return f.ty(x) == Ty::I64;
    }
    matches!(
        f.def_inst(atom).map(|i| &f.inst(i).kind),
        Some(InstKind::Cast { op: CastOp::ZExt, value }) if *value == x
    )
}

/// `atom` is the lane's number (`get_sub_group_local_id()`, widened).
fn is_lane(f: &Function, atom: ValueId) -> bool {
    let lane = |v: ValueId| {
        matches!(
            f.def_inst(v).map(|i| &f.inst(i).kind),
            Some(InstKind::WorkItem {
                query: WorkItem::SubGroupLocalId,
                ..
            })
        )
    };
    lane(atom)
        || matches!(
            f.def_inst(atom).map(|i| &f.inst(i).kind),
            Some(InstKind::Cast { op: CastOp::ZExt | CastOp::SExt, value }) if lane(*value)
        )
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The lane stride `s` when the facts decide `a / d` and `a % d`.
fn decides(f: &Function, facts: &[ModFact], a: ValueId, d: ValueId, width: u32) -> Option<i64> {
    let w = i64::from(width);
    // d ≡ 0 (mod md).
    let md = match f.as_const(d) {
        Some(Const::Int(c, t)) => {
            let c = linear::signed_const(c, t);
            (c > 0).then_some(c)?
        }
        _ => facts
            .iter()
            .filter(|x| {
                x.r == 0
                    && x.lin.k == 0
                    && x.lin.terms.len() == 1
                    && x.lin.terms.iter().all(|(&v, &k)| k == 1 && reads(f, v, d))
            })
            .map(|x| x.m)
            .max()?,
    };
    // a - s·lane ≡ r (mod ma).
    for x in facts {
        if x.lin.terms.len() != 2 {
            continue;
        }
        let mut s = None;
        let mut has_a = false;
        for (&v, &k) in &x.lin.terms {
            if k == 1 && reads(f, v, a) {
                has_a = true;
            } else if k < 0 && is_lane(f, v) {
                s = Some(-k);
            }
        }
        let (true, Some(s)) = (has_a, s) else {
            continue;
        };
        let g = gcd(x.m, md);
        let r = (x.r - x.lin.k).rem_euclid(g);
        if g >= 2 && r + s * (w - 1) < g {
            return Some(s);
        }
    }
    None
}

fn rewrite(f: &mut Function, cfg: &Cfg, region: BlockId, facts: &[ModFact], width: u32) -> usize {
    let blocks: Vec<BlockId> = cfg
        .rpo()
        .iter()
        .copied()
        .filter(|&b| cfg.dominates(region, b))
        .collect();
    let mut changed = 0;
    for b in blocks {
        let insts = f.block(b).insts.clone();
        for i in insts {
            let InstKind::Bin { op, lhs, rhs } = f.inst(i).kind.clone() else {
                continue;
            };
            if !matches!(op, BinOp::UDiv | BinOp::URem) {
                continue;
            }
            let ty = f.ty(lhs);
            if !matches!(ty, Ty::I32 | Ty::I64) || f.ty(rhs) != ty {
                continue;
            }
            let Some(s) = decides(f, facts, lhs, rhs, width) else {
                continue;
            };
            let src = f.inst(i).src;
            let mut pos = f.block(b).insts.iter().position(|&x| x == i).unwrap_or(0);
            let mut emit = |f: &mut Function, kind: InstKind, t: Ty| -> Option<ValueId> {
                let (_, v) = f.insert(b, pos, kind, t, src);
                pos += 1;
                v
            };
            // t = s·lane in the dividend's type; b = a - t.
            let Some(mut lane) = emit(
                f,
                InstKind::WorkItem {
                    query: WorkItem::SubGroupLocalId,
                    dim: None,
                },
                Ty::I32,
            ) else {
                continue;
            };
            if ty == Ty::I64 {
                let Some(wide) = emit(
                    f,
                    InstKind::Cast {
                        op: CastOp::ZExt,
                        value: lane,
                    },
                    Ty::I64,
                ) else {
                    continue;
                };
                lane = wide;
            }
            let t = if s == 1 {
                lane
            } else {
                let k = f.const_int(s, ty);
                let Some(t) = emit(
                    f,
                    InstKind::Bin {
                        op: BinOp::Mul,
                        lhs: lane,
                        rhs: k,
                    },
                    ty,
                ) else {
                    continue;
                };
                t
            };
            let Some(base) = emit(
                f,
                InstKind::Bin {
                    op: BinOp::Sub,
                    lhs,
                    rhs: t,
                },
                ty,
            ) else {
                continue;
            };
            if op == BinOp::UDiv {
                f.inst_mut(i).kind = InstKind::Bin { op, lhs: base, rhs };
            } else {
                let Some(rem) = emit(
                    f,
                    InstKind::Bin {
                        op: BinOp::URem,
                        lhs: base,
                        rhs,
                    },
                    ty,
                ) else {
                    continue;
                };
                f.inst_mut(i).kind = InstKind::Bin {
                    op: BinOp::Add,
                    lhs: rem,
                    rhs: t,
                };
            }
            changed += 1;
        }
    }
    changed
}
