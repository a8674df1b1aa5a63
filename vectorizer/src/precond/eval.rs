//! Concrete values of the integer parts of a kernel for one sampled SIMD
//! group: how often a candidate condition holds (coverage), without a
//! solver. Values the evaluation cannot know (loads, φs) make the sample
//! unknown.

use rustc_hash::FxHashMap;

use crate::ir::{
    BinOp, CastOp, Const, Function, InstKind, MathFn, Ty, ValueDef, ValueId, WorkItem,
};

use super::linear::{signed_const, Cond, Ext};

/// One sampled group: kernel parameters by IR index, lane 0's global id.
pub struct Sample {
    pub params: FxHashMap<u32, i64>,
    pub gid0: i64,
    pub global: [i64; 3],
}

/// `v` at `lane` as the machine computes it (wrapped to its type,
/// sign-extended into the i64), or `None`.
pub fn value(f: &Function, v: ValueId, lane: u32, s: &Sample, depth: u32) -> Option<i64> {
    let val = f.values.get(v.index())?;
    let ty = val.ty;
    if !ty.is_int() || depth > 40 {
        return None;
    }
    let r = match &val.def {
        ValueDef::Const(Const::Int(c, t)) => signed_const(*c, *t),
        ValueDef::Param(i) => *s.params.get(i)?,
        ValueDef::Inst(i) => {
            let d = depth + 1;
            let ev = |x: ValueId| value(f, x, lane, s, d);
            match &f.inst(*i).kind {
                InstKind::WorkItem { query, dim } => {
                    let dim = dim.and_then(|d| match f.as_const(d) {
                        Some(Const::Int(c, _)) => Some(c as usize),
                        _ => None,
                    });
                    match (query, dim) {
                        (WorkItem::GlobalId, Some(0)) => s.gid0 + i64::from(lane),
                        (WorkItem::GlobalSize, Some(d)) if d < 3 => s.global[d],
                        (WorkItem::SubGroupLocalId, _) => i64::from(lane),
                        _ => return None,
                    }
                }
                InstKind::Bin { op, lhs, rhs } => {
                    let a = ev(*lhs)?;
                    let b = ev(*rhs)?;
                    let bits = ty.bits();
                    let ua = unsigned(a, bits);
                    let ub = unsigned(b, bits);
                    match op {
                        BinOp::Add => a.wrapping_add(b),
                        BinOp::Sub => a.wrapping_sub(b),
                        BinOp::Mul => a.wrapping_mul(b),
                        BinOp::SDiv if b != 0 => a.wrapping_div(b),
                        BinOp::SRem if b != 0 => a.wrapping_rem(b),
                        BinOp::UDiv if ub != 0 => (ua / ub) as i64,
                        BinOp::URem if ub != 0 => (ua % ub) as i64,
                        BinOp::And => a & b,
                        BinOp::Or => a | b,
                        BinOp::Xor => a ^ b,
                        BinOp::Shl => a.wrapping_shl(b as u32),
                        BinOp::AShr => a.wrapping_shr(b as u32),
                        BinOp::LShr => (ua.wrapping_shr(b as u32)) as i64,
                        _ => return None,
                    }
                }
                InstKind::Cmp { pred, lhs, rhs } => {
                    let a = ev(*lhs)?;
                    let b = ev(*rhs)?;
                    let bits = f.ty(*lhs).bits();
                    let (ua, ub) = (unsigned(a, bits), unsigned(b, bits));
                    use crate::ir::CmpPred::*;
                    i64::from(match pred {
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
                        _ => return None,
                    })
                }
                InstKind::Select { cond, then, els } => {
                    if ev(*cond)? & 1 == 1 {
                        ev(*then)?
                    } else {
                        ev(*els)?
                    }
                }
                InstKind::Cast { op, value: x } => {
                    let a = ev(*x)?;
                    let fb = f.ty(*x).bits();
                    match op {
                        CastOp::Trunc | CastOp::SExt => a,
                        CastOp::ZExt => unsigned(a, fb) as i64,
                        _ => return None,
                    }
                }
                InstKind::Math { func, args } if args.len() == 2 => {
                    let a = ev(args[0])?;
                    let b = ev(args[1])?;
                    let bits = ty.bits();
                    match func {
                        MathFn::SMin => a.min(b),
                        MathFn::SMax => a.max(b),
                        MathFn::UMin => {
                            if unsigned(a, bits) <= unsigned(b, bits) {
                                a
                            } else {
                                b
                            }
                        }
                        MathFn::UMax => {
                            if unsigned(a, bits) >= unsigned(b, bits) {
                                a
                            } else {
                                b
                            }
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(wrap(r, ty))
}

fn unsigned(a: i64, bits: u32) -> u64 {
    if bits >= 64 {
        a as u64
    } else {
        (a as u64) & ((1u64 << bits) - 1)
    }
}

fn wrap(a: i64, ty: Ty) -> i64 {
    if ty == Ty::I1 {
        return a & 1;
    }
    signed_const(a as u64, ty)
}

/// Whether `c` holds at `lane` (exact integers), or `None`.
pub fn cond(f: &Function, c: &Cond, lane: u32, s: &Sample) -> Option<bool> {
    let mut sum: i128 = i128::from(c.lin.k);
    for (&v, &k) in &c.lin.terms {
        let x = value(f, v, lane, s, 0)?;
        let x = match c.ext {
            Ext::Signed => i128::from(x),
            Ext::Unsigned => i128::from(unsigned(x, f.ty(v).bits())),
        };
        sum += i128::from(k) * x;
    }
    Some(sum >= 0)
}
