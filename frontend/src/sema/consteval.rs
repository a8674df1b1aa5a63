//! Constant folding over the HIR: integer constant expressions (array sizes,
//! case labels, enumerators) and `__constant` initializers.
//!
//! Integer arithmetic wraps in the expression's type; shift counts are masked
//! to the bit width (OpenCL's rule); division by zero is not constant.

use super::Checker;
use crate::hir::{
    BinaryOp, ConstInit, ConstValue, ConvertKind, Expr, ExprKind, Init, LogicalOp, UnaryOp,
};
use crate::types::{Scalar, Type};

/// Truncates integer bits to the type and sign- or zero-extends them to 64.
pub(crate) fn norm_int(v: u64, s: Scalar) -> u64 {
    let bits = s.size() * 8;
    if s == Scalar::Bool {
        return u64::from(v != 0);
    }
    if bits >= 64 {
        return v;
    }
    let mask = (1u64 << bits) - 1;
    let t = v & mask;
    if s.is_signed() && (t >> (bits - 1)) & 1 == 1 {
        t | !mask
    } else {
        t
    }
}

fn round_float(f: f64, s: Scalar) -> f64 {
    if s == Scalar::Double {
        f
    } else {
        f as f32 as f64
    }
}

/// Converts a constant to another scalar type.
pub(crate) fn cast_value(v: ConstValue, to: Scalar) -> ConstValue {
    match v {
        ConstValue::Int(bits, from) => {
            if to.is_float() {
                let f = if from.is_signed() {
                    bits as i64 as f64
                } else {
                    bits as f64
                };
                ConstValue::Float(round_float(f, to), to)
            } else {
                ConstValue::Int(norm_int(bits, to), to)
            }
        }
        ConstValue::Float(f, _) => {
            if to.is_float() {
                ConstValue::Float(round_float(f, to), to)
            } else if to == Scalar::Bool {
                ConstValue::Int(u64::from(f != 0.0), to)
            } else {
                // Saturating like Rust's `as`; out of range is undefined in C.
                let bits = if to.is_signed() {
                    f as i64 as u64
                } else {
                    f as u64
                };
                ConstValue::Int(norm_int(bits, to), to)
            }
        }
    }
}

fn int_result(v: u64, s: Scalar) -> Option<ConstValue> {
    Some(ConstValue::Int(norm_int(v, s), s))
}

fn truth(v: ConstValue) -> bool {
    !v.is_zero()
}

fn bool_int(b: bool) -> ConstValue {
    ConstValue::Int(u64::from(b), Scalar::Int)
}

impl Checker<'_> {
    /// The value of a scalar constant expression, or `None` if it is not one.
    pub(crate) fn eval(&self, e: &Expr) -> Option<ConstValue> {
        let s = e.ty.scalar()?;
        match &e.kind {
            ExprKind::Int(v) => Some(ConstValue::Int(norm_int(*v, s), s)),
            ExprKind::Float(f) => Some(ConstValue::Float(*f, s)),
            ExprKind::Local(id) => self.func.as_ref()?.const_locals.get(id).copied(),
            ExprKind::Global(id) => {
                let g = self.unit.globals.get(id.0 as usize)?;
                match &g.init {
                    Some(ConstInit::Scalar(v)) if g.is_const => Some(*v),
                    _ => None,
                }
            }
            ExprKind::Convert {
                kind:
                    ConvertKind::IntToInt
                    | ConvertKind::IntToFloat
                    | ConvertKind::FloatToInt
                    | ConvertKind::FloatToFloat
                    | ConvertKind::ToBool
                    | ConvertKind::FromBool,
                expr,
            } => Some(cast_value(self.eval(expr)?, s)),
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand)?;
                match (op, v) {
                    (UnaryOp::Neg, ConstValue::Int(b, t)) => int_result(b.wrapping_neg(), t),
                    (UnaryOp::Neg, ConstValue::Float(f, t)) => Some(ConstValue::Float(-f, t)),
                    (UnaryOp::BitNot, ConstValue::Int(b, t)) => int_result(!b, t),
                    (UnaryOp::Not, v) => Some(bool_int(!truth(v))),
                    _ => None,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                self.eval_binary(*op, self.eval(lhs)?, self.eval(rhs)?, s)
            }
            ExprKind::Logical { op, lhs, rhs } => {
                let l = truth(self.eval(lhs)?);
                match op {
                    LogicalOp::And if !l => Some(bool_int(false)),
                    LogicalOp::Or if l => Some(bool_int(true)),
                    _ => Some(bool_int(truth(self.eval(rhs)?))),
                }
            }
            ExprKind::Conditional { cond, then, els } => {
                if truth(self.eval(cond)?) {
                    self.eval(then)
                } else {
                    self.eval(els)
                }
            }
            _ => None,
        }
    }

    fn eval_binary(
        &self,
        op: BinaryOp,
        l: ConstValue,
        r: ConstValue,
        result: Scalar,
    ) -> Option<ConstValue> {
        use BinaryOp::*;
        match (l, r) {
            (ConstValue::Float(a, t), ConstValue::Float(b, _)) => {
                let f = |x: f64| Some(ConstValue::Float(round_float(x, t), t));
                match op {
                    Add => f(a + b),
                    Sub => f(a - b),
                    Mul => f(a * b),
                    Div => f(a / b),
                    Lt => Some(bool_int(a < b)),
                    Gt => Some(bool_int(a > b)),
                    Le => Some(bool_int(a <= b)),
                    Ge => Some(bool_int(a >= b)),
                    Eq => Some(bool_int(a == b)),
                    Ne => Some(bool_int(a != b)),
                    _ => None,
                }
            }
            (ConstValue::Int(a, t), ConstValue::Int(b, _)) => {
                let signed = t.is_signed();
                let bits = t.size() * 8;
                let cmp = |x: bool| Some(bool_int(x));
                let (sa, sb) = (a as i64, b as i64);
                match op {
                    Add => int_result(a.wrapping_add(b), t),
                    Sub => int_result(a.wrapping_sub(b), t),
                    Mul => int_result(a.wrapping_mul(b), t),
                    Div | Rem => {
                        if b == 0 {
                            return None;
                        }
                        let v = match (op, signed) {
                            (Div, true) => sa.wrapping_div(sb) as u64,
                            (Div, false) => a / b,
                            (_, true) => sa.wrapping_rem(sb) as u64,
                            (_, false) => a % b,
                        };
                        int_result(v, t)
                    }
                    Shl | Shr => {
                        let count = (b % u64::from(bits.max(1))) as u32;
                        let v = if op == Shl {
                            a.wrapping_shl(count)
                        } else if signed {
                            (sa >> count) as u64
                        } else {
                            a >> count
                        };
                        int_result(v, result)
                    }
                    BitAnd => int_result(a & b, t),
                    BitOr => int_result(a | b, t),
                    BitXor => int_result(a ^ b, t),
                    Lt => cmp(if signed { sa < sb } else { a < b }),
                    Gt => cmp(if signed { sa > sb } else { a > b }),
                    Le => cmp(if signed { sa <= sb } else { a <= b }),
                    Ge => cmp(if signed { sa >= sb } else { a >= b }),
                    Eq => cmp(a == b),
                    Ne => cmp(a != b),
                    VecAnd | VecOr => None,
                }
            }
            _ => None,
        }
    }

    /// The components of a constant vector expression.
    fn eval_vector(&self, e: &Expr) -> Option<Vec<ConstValue>> {
        match &e.kind {
            ExprKind::VectorConstruct { elems } => {
                let mut out = Vec::new();
                for el in elems {
                    if el.ty.is_vector() {
                        out.extend(self.eval_vector(el)?);
                    } else {
                        out.push(self.eval(el)?);
                    }
                }
                Some(out)
            }
            ExprKind::Convert {
                kind: ConvertKind::Splat,
                expr,
            } => {
                let v = self.eval(expr)?;
                Some(vec![v; e.ty.width()? as usize])
            }
            ExprKind::Swizzle { base, components } => {
                let b = self.eval_vector(base)?;
                components
                    .iter()
                    .map(|&c| b.get(c as usize).copied())
                    .collect()
            }
            ExprKind::Global(id) => match &self.unit.globals.get(id.0 as usize)?.init {
                Some(ConstInit::Vector(v)) => Some(v.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// Folds a checked initializer of a `__constant` variable.
    pub(crate) fn fold_init(&self, init: &Init) -> Option<ConstInit> {
        match init {
            Init::Expr(e) => match &e.ty {
                Type::Scalar(_) => Some(ConstInit::Scalar(self.eval(e)?)),
                Type::Vector(..) => Some(ConstInit::Vector(self.eval_vector(e)?)),
                // A sampler is its `uint` bits.
                Type::Opaque(crate::types::Opaque::Sampler, _) => match &e.kind {
                    ExprKind::Convert {
                        kind: ConvertKind::IntToSampler,
                        expr,
                    } => Some(ConstInit::Scalar(self.eval(expr)?)),
                    ExprKind::Global(id) => {
                        let g = self.unit.globals.get(id.0 as usize)?;
                        g.init.clone()
                    }
                    _ => None,
                },
                _ => None,
            },
            Init::List { ty, elems, .. } => {
                let mut out = Vec::with_capacity(elems.len());
                for el in elems {
                    out.push(match el {
                        Some(i) => self.fold_init(i)?,
                        None => ConstInit::Zero,
                    });
                }
                match ty {
                    Type::Array(..) => Some(ConstInit::Array(out)),
                    Type::Struct(_) => Some(ConstInit::Struct(out)),
                    Type::Vector(..) | Type::Scalar(_) => {
                        let ety_scalar = ty.element();
                        let mut comps = Vec::new();
                        for c in out {
                            match c {
                                ConstInit::Scalar(v) => comps.push(v),
                                ConstInit::Vector(vs) => comps.extend(vs),
                                ConstInit::Zero => comps.push(match ety_scalar {
                                    Some(s) if s.is_float() => ConstValue::Float(0.0, s),
                                    Some(s) => ConstValue::Int(0, s),
                                    None => return None,
                                }),
                                _ => return None,
                            }
                        }
                        if ty.is_vector() {
                            Some(ConstInit::Vector(comps))
                        } else {
                            comps.first().copied().map(ConstInit::Scalar)
                        }
                    }
                    _ => None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Scalar::*;

    #[test]
    fn normalization() {
        assert_eq!(norm_int(0xff, Char) as i64, -1);
        assert_eq!(norm_int(0x1ff, UChar), 0xff);
        assert_eq!(norm_int(u64::MAX, UInt), 0xffff_ffff);
        assert_eq!(norm_int(0x8000_0000, Int) as i64, i32::MIN as i64);
        assert_eq!(
            cast_value(ConstValue::Float(2.7, Float), Int),
            ConstValue::Int(2, Int)
        );
        assert_eq!(
            cast_value(ConstValue::Int(u64::MAX, Int), Float),
            ConstValue::Float(-1.0, Float)
        );
        assert_eq!(
            cast_value(ConstValue::Int(u64::MAX, ULong), UInt),
            ConstValue::Int(0xffff_ffff, UInt)
        );
    }
}
