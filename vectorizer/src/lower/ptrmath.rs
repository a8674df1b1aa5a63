//! Math built-ins with a pointer output (`fract`, `modf`, `sincos`,
//! `frexp`, `remquo`, `lgamma_r`) and `remainder`, expanded into exact
//! IR arithmetic: every step below is exact in the argument's precision, so
//! the interpreter and generated code agree bit for bit.

use lanes_frontend::builtins::{Builtin, BuiltinCall};
use lanes_frontend::hir::Expr;
use lanes_frontend::types::Type;

use super::expr::esrc;
use super::{Lowerer, Vals};
use crate::ir::{BinOp, CastOp, CmpPred, InstKind, MathFn, Src, Ty, ValueId};

/// Bits of the quotient `remquo` stores (OpenCL: the lower seven).
const REMQUO_BITS: u32 = 7;

impl Lowerer<'_> {
    /// The built-ins with a pointer output, and `remainder`; `None` for the
    /// others.
    pub(super) fn pointer_output_builtin(
        &mut self,
        e: &Expr,
        b: Builtin,
        call: &BuiltinCall,
        args: &[Expr],
    ) -> Option<Vals> {
        use Builtin::*;
        if !matches!(
            b,
            Fract | Modf | Sincos | Frexp | Remquo | LgammaR | Remainder
        ) {
            return None;
        }
        let src = esrc(e);
        let a: Vec<Vals> = args.iter().map(|x| self.rvalue(x)).collect();
        let n = e.ty.width().unwrap_or(1) as usize;
        let ety = match e.ty.element().and_then(super::types::scalar_ty) {
            Some(t) => t,
            None => return Some(self.undef_vals(&e.ty, e.span)),
        };
        let comp = |this: &mut Self, k: usize, i: usize| {
            let vals = a.get(k).cloned().unwrap_or_default();
            this.at(&vals, i, ety)
        };
        let mut results = Vec::with_capacity(n);
        let mut outs = Vec::with_capacity(n);
        for i in 0..n {
            let x = comp(self, 0, i);
            let (r, out) = match b {
                Fract => self.fract(x, src),
                Modf => self.modf(x, src),
                Sincos => (
                    self.math(MathFn::Sin, vec![x], ety, src),
                    Some(self.math(MathFn::Cos, vec![x], ety, src)),
                ),
                Frexp => self.frexp(x, src),
                LgammaR => self.lgamma_r(x, src),
                Remquo => {
                    let y = comp(self, 1, i);
                    let (r, q) = self.remquo(x, y, REMQUO_BITS, src);
                    (r, Some(q))
                }
                _ => {
                    let y = comp(self, 1, i);
                    (self.remquo(x, y, 1, src).0, None)
                }
            };
            results.push(r);
            outs.extend(out);
        }
        // The output pointer is the last argument; its store is reported
        // at that argument (`&whole[i]`).
        if let (Some(ptr_arg), Some(Type::Pointer(p)), Some(ptr_expr)) =
            (a.last(), call.params.last(), args.last())
        {
            if !outs.is_empty() {
                let ptr = self.first(ptr_arg, Ty::Ptr(p.space));
                self.store_vals(ptr, &p.pointee, &outs, esrc(ptr_expr));
            }
        }
        Some(results)
    }

    fn fcmp(&mut self, pred: CmpPred, x: ValueId, c: f64, src: Src) -> ValueId {
        let ty = self.ty(x);
        let k = self.const_float(c, ty);
        self.cmp(pred, x, k, src)
    }

    /// `copysign(0, x)`.
    fn signed_zero(&mut self, x: ValueId, src: Src) -> ValueId {
        let ty = self.ty(x);
        let z = self.const_float(0.0, ty);
        self.math(MathFn::Copysign, vec![z, x], ty, src)
    }

    /// `fmin(x - floor(x), 0x1.fffffep-1f)`, storing `floor(x)`; ±0 and ±inf
    /// give ±0, NaN gives NaN.
    fn fract(&mut self, x: ValueId, src: Src) -> (ValueId, Option<ValueId>) {
        let ty = self.ty(x);
        let fl = self.math(MathFn::Floor, vec![x], ty, src);
        let d = self.bin(BinOp::FSub, x, fl, src);
        let below_one = if ty == Ty::F32 {
            f64::from(f32::from_bits(0x3f7f_ffff))
        } else {
            f64::from_bits(0x3fef_ffff_ffff_ffff)
        };
        let c = self.const_float(below_one, ty);
        let r = self.math(MathFn::Fmin, vec![d, c], ty, src);
        let ax = self.math(MathFn::Fabs, vec![x], ty, src);
        let inf = self.fcmp(CmpPred::FOeq, ax, f64::INFINITY, src);
        let zero = self.fcmp(CmpPred::FOeq, x, 0.0, src);
        let special = self.bin(BinOp::Or, inf, zero, src);
        let sz = self.signed_zero(x, src);
        let r = self.select(special, sz, r, src);
        let nan = self.cmp(CmpPred::FUno, x, x, src);
        (self.select(nan, x, r, src), Some(fl))
    }

    /// `x - trunc(x)` with the sign of `x` (±0 for ±inf), storing `trunc(x)`.
    fn modf(&mut self, x: ValueId, src: Src) -> (ValueId, Option<ValueId>) {
        let ty = self.ty(x);
        let t = self.math(MathFn::Trunc, vec![x], ty, src);
        let d = self.bin(BinOp::FSub, x, t, src);
        let ax = self.math(MathFn::Fabs, vec![x], ty, src);
        let inf = self.fcmp(CmpPred::FOeq, ax, f64::INFINITY, src);
        let z = self.const_float(0.0, ty);
        let d = self.select(inf, z, d, src);
        (self.math(MathFn::Copysign, vec![d, x], ty, src), Some(t))
    }

    /// Mantissa in [0.5, 1) and exponent by the bits; subnormals are scaled
    /// into the normal range first. ±0, ±inf and NaN return themselves with
    /// exponent 0.
    fn frexp(&mut self, x: ValueId, src: Src) -> (ValueId, Option<ValueId>) {
        let ty = self.ty(x);
        let f32_ = ty == Ty::F32;
        let (ity, mant_bits, exp_mask, bias, min_normal) = if f32_ {
            (Ty::I32, 23, 0xff_i64, 126, f64::from(f32::MIN_POSITIVE))
        } else {
            (Ty::I64, 52, 0x7ff_i64, 1022, f64::MIN_POSITIVE)
        };
        let ax = self.math(MathFn::Fabs, vec![x], ty, src);
        let sub = self.fcmp(CmpPred::FOlt, ax, min_normal, src);
        let scale = self.const_float(2f64.powi(64), ty);
        let scaled = self.bin(BinOp::FMul, x, scale, src);
        let xs = self.select(sub, scaled, x, src);
        let bits = self.cast(CastOp::Bitcast, xs, ity, src);
        let sh = self.const_int(mant_bits, ity);
        let e = self.bin(BinOp::LShr, bits, sh, src);
        let m = self.const_int(exp_mask, ity);
        let e = self.bin(BinOp::And, e, m, src);
        let e = self.cast_to_i32(e, src);
        let adj_sub = self.const_int(-bias - 64, Ty::I32);
        let adj_norm = self.const_int(-bias, Ty::I32);
        let adj = self.select(sub, adj_sub, adj_norm, src);
        let e = self.bin(BinOp::Add, e, adj, src);
        let (keep, half_exp) = if f32_ {
            (0x807f_ffff_u32 as i32 as i64, 0x3f00_0000_i64)
        } else {
            (0x800f_ffff_ffff_ffff_u64 as i64, 0x3fe0_0000_0000_0000_i64)
        };
        let keep = self.const_int(keep, ity);
        let half_exp = self.const_int(half_exp, ity);
        let mb = self.bin(BinOp::And, bits, keep, src);
        let mb = self.bin(BinOp::Or, mb, half_exp, src);
        let mant = self.cast(CastOp::Bitcast, mb, ty, src);
        let pos = self.fcmp(CmpPred::FOgt, ax, 0.0, src);
        let fin = self.fcmp(CmpPred::FOlt, ax, f64::INFINITY, src);
        let normal = self.bin(BinOp::And, pos, fin, src);
        let r = self.select(normal, mant, x, src);
        let z = self.const_int(0, Ty::I32);
        (r, Some(self.select(normal, e, z, src)))
    }

    fn cast_to_i32(&mut self, v: ValueId, src: Src) -> ValueId {
        match self.ty(v) {
            Ty::I32 => v,
            _ => self.cast(CastOp::Trunc, v, Ty::I32, src),
        }
    }

    /// `log|gamma(x)|`, storing the sign of `gamma(x)`: -1 for -0 and for
    /// negative non-integers whose floor is odd, else +1 (as C libraries do
    /// at the poles and for NaN).
    fn lgamma_r(&mut self, x: ValueId, src: Src) -> (ValueId, Option<ValueId>) {
        let ty = self.ty(x);
        let r = self.math(MathFn::Lgamma, vec![x], ty, src);
        let fl = self.math(MathFn::Floor, vec![x], ty, src);
        let neg = self.fcmp(CmpPred::FOlt, x, 0.0, src);
        let non_int = self.cmp(CmpPred::FUne, x, fl, src);
        let half = self.const_float(0.5, ty);
        let h = self.bin(BinOp::FMul, fl, half, src);
        let hf = self.math(MathFn::Floor, vec![h], ty, src);
        let odd = self.cmp(CmpPred::FUne, h, hf, src);
        let a = self.bin(BinOp::And, neg, non_int, src);
        let a = self.bin(BinOp::And, a, odd, src);
        let zero = self.fcmp(CmpPred::FOeq, x, 0.0, src);
        let ity = if ty == Ty::F32 { Ty::I32 } else { Ty::I64 };
        let bits = self.cast(CastOp::Bitcast, x, ity, src);
        let signbit = self.msb_set(bits, src);
        let neg_zero = self.bin(BinOp::And, zero, signbit, src);
        let minus = self.bin(BinOp::Or, a, neg_zero, src);
        let m1 = self.const_int(-1, Ty::I32);
        let p1 = self.const_int(1, Ty::I32);
        (r, Some(self.select(minus, m1, p1, src)))
    }

    /// `x - n*y` for the integer `n` nearest `x/y` (ties to even), and the
    /// low `bits` bits of `n` with the sign of `x/y` as an `i32`.
    ///
    /// `fmod(|x|, 2^bits |y|)` is exact; each step `r -= 2^k |y|` (taken when
    /// `r >= 2^k |y|`) is exact by Sterbenz's lemma since then
    /// `r < 2^(k+1) |y|`, and collects bit k of `n`. A multiple of `|y|` that
    /// overflows is larger than every finite `r`, so the comparisons stay
    /// right. NaN, `y == 0` and infinite `x` propagate NaN with quotient 0.
    fn remquo(&mut self, x: ValueId, y: ValueId, bits: u32, src: Src) -> (ValueId, ValueId) {
        let ty = self.ty(x);
        let ax = self.math(MathFn::Fabs, vec![x], ty, src);
        let ay = self.math(MathFn::Fabs, vec![y], ty, src);
        let top = self.const_float(2f64.powi(bits as i32), ty);
        let m = self.bin(BinOp::FMul, ay, top, src);
        let mut r = self.math(MathFn::Fmod, vec![ax, m], ty, src);
        let mut q = self.const_int(0, Ty::I32);
        for k in (0..bits).rev() {
            let s = self.const_float(2f64.powi(k as i32), ty);
            let ky = self.bin(BinOp::FMul, ay, s, src);
            let ge = self.cmp(CmpPred::FOge, r, ky, src);
            let less = self.bin(BinOp::FSub, r, ky, src);
            r = self.select(ge, less, r, src);
            let bit = self.const_int(1 << k, Ty::I32);
            let qb = self.bin(BinOp::Or, q, bit, src);
            q = self.select(ge, qb, q, src);
        }
        // Now 0 <= r < |y|: round to the nearest multiple (|y| - r is exact
        // whenever it is compared equal or below r).
        let t = self.bin(BinOp::FSub, ay, r, src);
        let above = self.cmp(CmpPred::FOgt, r, t, src);
        let tie = self.cmp(CmpPred::FOeq, r, t, src);
        let one = self.const_int(1, Ty::I32);
        let low = self.bin(BinOp::And, q, one, src);
        let zero = self.const_int(0, Ty::I32);
        let odd = self.cmp(CmpPred::Ne, low, zero, src);
        let tie_odd = self.bin(BinOp::And, tie, odd, src);
        let up = self.bin(BinOp::Or, above, tie_odd, src);
        let neg_t = self.emit(InstKind::FNeg(t), ty, src);
        let r = self.select(up, neg_t, r, src);
        let q1 = self.bin(BinOp::Add, q, one, src);
        let q = self.select(up, q1, q, src);
        let mask = self.const_int((1 << bits) - 1, Ty::I32);
        let q = self.bin(BinOp::And, q, mask, src);
        // Signs: the remainder has the sign of x (also when zero), the
        // quotient that of x/y.
        let ity = if ty == Ty::F32 { Ty::I32 } else { Ty::I64 };
        let xb = self.cast(CastOp::Bitcast, x, ity, src);
        let yb = self.cast(CastOp::Bitcast, y, ity, src);
        let xneg = self.msb_set(xb, src);
        let yneg = self.msb_set(yb, src);
        let neg_r = self.emit(InstKind::FNeg(r), ty, src);
        let r = self.select(xneg, neg_r, r, src);
        let qneg = self.bin(BinOp::Xor, xneg, yneg, src);
        let mq = self.bin(BinOp::Sub, zero, q, src);
        (r, self.select(qneg, mq, q, src))
    }
}
