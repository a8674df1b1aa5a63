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

use std::collections::HashMap;

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

pub struct Enc<'a> {
    pub f: &'a Function,
    pub div: &'a Divergence,
    pub width: u32,
    cache: HashMap<ValueId, Option<Val>>,
    /// The lane: a constant, or a variable in [0, W) for "any lane".
    lane: Int,
    /// Names per-lane unknowns (`l` for the variable lane).
    tag: String,
    assumptions: Vec<Bool>,
    gid0: Int,
    lid0: Int,
}

fn int(v: i64) -> Int {
    Int::from_i64(v)
}

/// 2^bits for 0 <= bits <= 64.
fn pow2(bits: u32) -> Int {
    if bits == 0 {
        return int(1);
    }
    Int::from_u64(1u64 << (bits.min(64) - 1)) * int(2)
}

impl<'a> Enc<'a> {
    /// Values at lane `lane`, or at any one lane of the group for `None`.
    pub fn new(f: &'a Function, div: &'a Divergence, width: u32, lane: Option<u32>) -> Enc<'a> {
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
        let (lane, tag) = match lane {
            Some(l) => (int(i64::from(l)), l.to_string()),
            None => {
                let l = Int::new_const("lane");
                assumptions.push(l.ge(int(0)));
                assumptions.push(l.lt(int(i64::from(width))));
                (l, "l".to_string())
            }
        };
        Enc {
            f,
            div,
            width,
            cache: HashMap::new(),
            lane,
            tag,
            assumptions,
            gid0,
            lid0,
        }
    }

    pub fn assumptions(&self) -> Bool {
        Bool::and(&self.assumptions)
    }

    /// A fresh integer of `bits` bits (read signed).
    fn ranged(&mut self, name: String, bits: u32) -> Int {
        let v = Int::new_const(name);
        let half = 1i64 << (bits.clamp(1, 63) - 1);
        if bits < 64 {
            self.assumptions.push(v.ge(int(-half)));
            self.assumptions.push(v.lt(int(half)));
        }
        v
    }

    /// A value the encoding does not look into.
    fn opaque(&mut self, v: ValueId, ty: Ty) -> Option<Val> {
        let name = if self.div.is_uniform(v) {
            format!("v{}", v.0)
        } else {
            format!("v{}_{}", v.0, self.tag)
        };
        if ty == Ty::I1 {
            return Some(Val::B(Bool::new_const(name)));
        }
        if !ty.is_int() {
            return None;
        }
        Some(Val::I(self.ranged(name, ty.bits())))
    }

    pub fn int(&mut self, v: ValueId) -> Option<Int> {
        match self.value(v)? {
            Val::I(i) => Some(i),
            Val::B(b) => Some(b.ite(&int(1), &int(0))),
        }
    }

    pub fn bool(&mut self, v: ValueId) -> Option<Bool> {
        match self.value(v)? {
            Val::B(b) => Some(b),
            Val::I(i) => Some(i.eq(int(0)).not()),
        }
    }

    pub fn value(&mut self, v: ValueId) -> Option<Val> {
        if let Some(r) = self.cache.get(&v) {
            return r.clone();
        }
        let r = self.compute(v);
        self.cache.insert(v, r.clone());
        r
    }

    /// `x` wrapped to `bits` bits, read signed.
    fn wrap(x: &Int, bits: u32) -> Int {
        if bits >= 64 {
            return x.clone();
        }
        let m = pow2(bits);
        let h = pow2(bits - 1);
        (x + &h).modulo(&m) - h
    }

    /// The unsigned reading of a signed `bits`-bit value.
    fn unsigned(x: &Int, bits: u32) -> Int {
        x.lt(int(0)).ite(&(x + pow2(bits)), x)
    }

    /// The signed reading of an unsigned `bits`-bit value.
    fn signed(x: &Int, bits: u32) -> Int {
        x.ge(pow2(bits.saturating_sub(1))).ite(&(x - pow2(bits)), x)
    }

    fn const_of(&self, v: ValueId) -> Option<i64> {
        match self.f.as_const(v) {
            Some(Const::Int(c, t)) => Some(signed_const(c, t)),
            _ => None,
        }
    }

    fn compute(&mut self, v: ValueId) -> Option<Val> {
        let f = self.f;
        let value = f.values.get(v.index())?;
        let ty = value.ty;
        let bits = ty.bits();
        match &value.def {
            ValueDef::Const(Const::Int(c, t)) => {
                if *t == Ty::I1 {
                    return Some(Val::B(Bool::from_bool(*c & 1 == 1)));
                }
                return Some(Val::I(int(signed_const(*c, *t))));
            }
            ValueDef::Param(i) if ty.is_int() && ty != Ty::I1 => {
                return Some(Val::I(self.ranged(format!("p{i}"), bits)));
            }
            ValueDef::Inst(_) => {}
            _ => return self.opaque(v, ty),
        }
        let i = f.def_inst(v)?;
        match &f.inst(i).kind {
            InstKind::WorkItem { query, dim } => {
                let d = dim.and_then(|d| self.const_of(d));
                let r = match (query, d) {
                    (WorkItem::GlobalId, Some(0)) => &self.gid0 + &self.lane,
                    (WorkItem::LocalId, Some(0)) => &self.lid0 + &self.lane,
                    (WorkItem::SubGroupLocalId, _) => self.lane.clone(),
                    (WorkItem::SubGroupSize | WorkItem::MaxSubGroupSize, _) => {
                        int(i64::from(self.width))
                    }
                    (q, Some(d)) if self.div.is_uniform(v) => {
                        let b = Int::new_const(format!("{}{d}", q.name()));
                        // Ids and sizes of real launches.
                        self.assumptions.push(b.ge(int(0)));
                        self.assumptions.push(b.lt(int(1 << 31)));
                        b
                    }
                    _ => return self.opaque(v, ty),
                };
                Some(Val::I(r))
            }
            InstKind::Bin { op, lhs, rhs } => {
                if ty == Ty::I1 {
                    let a = self.bool(*lhs)?;
                    let b = self.bool(*rhs)?;
                    return Some(Val::B(match op {
                        BinOp::And => Bool::and(&[a, b]),
                        BinOp::Or => Bool::or(&[a, b]),
                        BinOp::Xor => a.xor(&b),
                        _ => return self.opaque(v, ty),
                    }));
                }
                if !ty.is_int() {
                    return self.opaque(v, ty);
                }
                let (ca, cb) = (self.const_of(*lhs), self.const_of(*rhs));
                let a = self.int(*lhs)?;
                let b = self.int(*rhs)?;
                let nsw = f.nsw.contains(&v);
                let exact = |this: &mut Self, r: Int| -> Int {
                    if nsw {
                        let half = 1i64 << (bits.clamp(1, 63) - 1);
                        if bits < 64 {
                            this.assumptions.push(r.ge(int(-half)));
                            this.assumptions.push(r.lt(int(half)));
                        }
                        r
                    } else {
                        Self::wrap(&r, bits)
                    }
                };
                let r = match op {
                    BinOp::Add => exact(self, &a + &b),
                    BinOp::Sub => exact(self, &a - &b),
                    BinOp::Mul if ca.is_some() || cb.is_some() => exact(self, &a * &b),
                    BinOp::SDiv | BinOp::SRem if cb.is_some_and(|c| c > 0) => {
                        let c = int(cb.unwrap_or(1));
                        // C truncates toward zero.
                        let q = a.ge(int(0)).ite(&a.div(&c), &(-((-&a).div(&c))));
                        if *op == BinOp::SDiv {
                            Self::wrap(&q, bits)
                        } else {
                            &a - &(&q * &c)
                        }
                    }
                    BinOp::UDiv | BinOp::URem if cb.is_some_and(|c| c > 0) => {
                        let c = int(cb.unwrap_or(1));
                        let ua = Self::unsigned(&a, bits);
                        let r = if *op == BinOp::UDiv {
                            ua.div(&c)
                        } else {
                            ua.modulo(&c)
                        };
                        Self::signed(&r, bits)
                    }
                    BinOp::Shl if cb.is_some_and(|c| (0..63).contains(&c) && (c as u32) < bits) => {
                        Self::wrap(&(&a * int(1i64 << cb.unwrap_or(0))), bits)
                    }
                    BinOp::AShr
                        if cb.is_some_and(|c| (0..63).contains(&c) && (c as u32) < bits) =>
                    {
                        a.div(int(1i64 << cb.unwrap_or(0)))
                    }
                    BinOp::LShr
                        if cb.is_some_and(|c| (1..63).contains(&c) && (c as u32) < bits) =>
                    {
                        Self::unsigned(&a, bits).div(int(1i64 << cb.unwrap_or(0)))
                    }
                    // `x & (2^k - 1)`.
                    BinOp::And
                        if cb.is_some_and(|c| {
                            c > 0 && (c + 1) & c == 0 && (c as u64) < (1u64 << 62)
                        }) =>
                    {
                        Self::unsigned(&a, bits).modulo(int(cb.unwrap_or(0) + 1))
                    }
                    _ => return self.opaque(v, ty),
                };
                Some(Val::I(r))
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                let lt = f.ty(*lhs);
                if !lt.is_int() || lt == Ty::I1 {
                    return self.opaque(v, ty);
                }
                let lb = lt.bits();
                let a = self.int(*lhs)?;
                let b = self.int(*rhs)?;
                let (ua, ub) = (Self::unsigned(&a, lb), Self::unsigned(&b, lb));
                use CmpPred::*;
                Some(Val::B(match pred {
                    Eq => a.eq(&b),
                    Ne => a.eq(&b).not(),
                    Slt => a.lt(&b),
                    Sle => a.le(&b),
                    Sgt => a.gt(&b),
                    Sge => a.ge(&b),
                    Ult => ua.lt(&ub),
                    Ule => ua.le(&ub),
                    Ugt => ua.gt(&ub),
                    Uge => ua.ge(&ub),
                    _ => return self.opaque(v, ty),
                }))
            }
            InstKind::Select { cond, then, els } => {
                let c = self.bool(*cond)?;
                if ty == Ty::I1 {
                    let a = self.bool(*then)?;
                    let b = self.bool(*els)?;
                    return Some(Val::B(c.ite(&a, &b)));
                }
                if !ty.is_int() {
                    return self.opaque(v, ty);
                }
                let a = self.int(*then)?;
                let b = self.int(*els)?;
                Some(Val::I(c.ite(&a, &b)))
            }
            InstKind::Cast { op, value } => {
                let from = f.ty(*value);
                if !from.is_int() || !ty.is_int() {
                    return self.opaque(v, ty);
                }
                if from == Ty::I1 {
                    let b = self.bool(*value)?;
                    let one = if *op == CastOp::SExt { -1 } else { 1 };
                    return Some(Val::I(b.ite(&int(one), &int(0))));
                }
                let a = self.int(*value)?;
                let r = match op {
                    CastOp::Trunc if ty == Ty::I1 => {
                        return Some(Val::B(
                            Self::unsigned(&a, from.bits()).modulo(int(2)).eq(int(1)),
                        ))
                    }
                    CastOp::Trunc => Self::wrap(&a, bits),
                    CastOp::SExt => a,
                    CastOp::ZExt => Self::unsigned(&a, from.bits()),
                    _ => return self.opaque(v, ty),
                };
                Some(Val::I(r))
            }
            InstKind::Math { func, args } if ty.is_int() && ty != Ty::I1 && args.len() == 2 => {
                let a = self.int(args[0])?;
                let b = self.int(args[1])?;
                let (ua, ub) = (Self::unsigned(&a, bits), Self::unsigned(&b, bits));
                let r = match func {
                    MathFn::SMin => a.le(&b).ite(&a, &b),
                    MathFn::SMax => a.ge(&b).ite(&a, &b),
                    MathFn::UMin => ua.le(&ub).ite(&a, &b),
                    MathFn::UMax => ua.ge(&ub).ite(&a, &b),
                    _ => return self.opaque(v, ty),
                };
                Some(Val::I(r))
            }
            _ => self.opaque(v, ty),
        }
    }

    /// The value of an atom of a condition, read as `ext` says.
    pub fn atom(&mut self, v: ValueId, ext: Ext) -> Option<Int> {
        let a = self.int(v)?;
        Some(match ext {
            Ext::Signed => a,
            Ext::Unsigned => Self::unsigned(&a, self.f.ty(v).bits()),
        })
    }

    /// `c` at this lane, in exact integers: what a precondition means.
    pub fn cond(&mut self, c: &Cond) -> Option<Bool> {
        let mut sum = int(c.lin.k);
        for (&v, &k) in &c.lin.terms {
            let a = self.atom(v, c.ext)?;
            sum = sum + a * int(k);
        }
        Some(sum.ge(int(0)))
    }
}
