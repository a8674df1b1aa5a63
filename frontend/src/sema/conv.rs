//! Implicit conversions: integer promotions, the usual arithmetic
//! conversions with OpenCL's vector rules (as clang-19 implements them), and
//! assignment compatibility.

use std::cmp::Ordering;

use super::Checker;
use crate::ast::NodeId;
use crate::diag::{Code, Diagnostic};
use crate::hir::{ConvertKind, Expr, ExprKind};
use crate::source::Span;
use crate::types::{AddressSpace, Opaque, Scalar, Type};

/// Where a value is converted to a declared type, for messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConvCtx {
    Init,
    Assign,
    Pass,
    Return,
}

impl ConvCtx {
    fn incompatible(self, to: &str, from: &str) -> String {
        match self {
            ConvCtx::Init => {
                format!("initializing `{to}` with an expression of incompatible type `{from}`")
            }
            ConvCtx::Assign => format!("assigning to `{to}` from incompatible type `{from}`"),
            ConvCtx::Pass => format!("passing `{from}` to parameter of incompatible type `{to}`"),
            ConvCtx::Return => {
                format!("returning `{from}` from a function with incompatible result type `{to}`")
            }
        }
    }

    fn pointer(self, to: &str, from: &str) -> String {
        match self {
            ConvCtx::Init => format!("initializing `{to}` with an expression of type `{from}`"),
            ConvCtx::Assign => format!("assigning to `{to}` from `{from}`"),
            ConvCtx::Pass => format!("passing `{from}` to parameter of type `{to}`"),
            ConvCtx::Return => {
                format!("returning `{from}` from a function with result type `{to}`")
            }
        }
    }
}

/// The conversion between two scalar types (`None` when they are equal).
pub(crate) fn scalar_conversion(from: Scalar, to: Scalar) -> Option<ConvertKind> {
    if from == to {
        return None;
    }
    Some(if to == Scalar::Bool {
        ConvertKind::ToBool
    } else if from == Scalar::Bool {
        ConvertKind::FromBool
    } else {
        match (from.is_float(), to.is_float()) {
            (false, false) => ConvertKind::IntToInt,
            (false, true) => ConvertKind::IntToFloat,
            (true, false) => ConvertKind::FloatToInt,
            (true, true) => ConvertKind::FloatToFloat,
        }
    })
}

/// C's integer promotion of a scalar type.
pub(crate) fn promoted(s: Scalar) -> Scalar {
    match s {
        Scalar::Bool | Scalar::Char | Scalar::UChar | Scalar::Short | Scalar::UShort => Scalar::Int,
        other => other,
    }
}

/// The common type of two promoted arithmetic scalars (C11 6.3.1.8).
pub(crate) fn common_scalar(a: Scalar, b: Scalar) -> Scalar {
    if a.is_float() || b.is_float() {
        return if a.rank() >= b.rank() { a } else { b };
    }
    if a == b {
        return a;
    }
    if a.is_signed() == b.is_signed() {
        return if a.rank() >= b.rank() { a } else { b };
    }
    let (u, s) = if a.is_signed() { (b, a) } else { (a, b) };
    if u.rank() >= s.rank() {
        u
    } else if s.size() > u.size() {
        s
    } else {
        s.to_unsigned()
    }
}

/// clang's `getIntegerTypeOrder`: rank, and unsigned wins at equal rank.
fn integer_order(l: Scalar, r: Scalar) -> Ordering {
    if l == r {
        return Ordering::Equal;
    }
    let (ls, rs) = (l.is_signed(), r.is_signed());
    if ls == rs {
        return l.rank().cmp(&r.rank());
    }
    if !ls {
        if l.rank() >= r.rank() {
            Ordering::Greater
        } else {
            Ordering::Less
        }
    } else if r.rank() >= l.rank() {
        Ordering::Less
    } else {
        Ordering::Greater
    }
}

/// May a scalar operand be converted to the element type of a vector operand?
/// OpenCL (clang): not when that would lose rank (`int4 + long`, `char4 + 1`,
/// `float4 * 2.0`), and never a float to an integer vector.
pub(crate) fn scalar_fits_vector(scalar: Scalar, elem: Scalar) -> bool {
    if elem.is_integer() {
        !scalar.is_float() && integer_order(elem, scalar) != Ordering::Less
    } else if scalar.is_float() {
        scalar.rank() <= elem.rank()
    } else {
        true
    }
}

impl Checker<'_> {
    pub(crate) fn wrap(&self, kind: ConvertKind, e: Expr, to: Type) -> Expr {
        let (span, node) = (e.span, e.node);
        Expr {
            kind: ExprKind::Convert {
                kind,
                expr: Box::new(e),
            },
            ty: to,
            span,
            node,
            place: None,
        }
    }

    /// An array used as a value becomes a pointer to its first element.
    pub(crate) fn decay(&mut self, e: Expr) -> Expr {
        if let Type::Array(elem, _) = &e.ty {
            let place = e.place.unwrap_or(crate::hir::Place {
                space: AddressSpace::Private,
                is_const: false,
            });
            let ty = Type::pointer(
                (**elem).clone(),
                place.space,
                place.is_const || place.space == AddressSpace::Constant,
            );
            return self.wrap(ConvertKind::ArrayDecay, e, ty);
        }
        e
    }

    /// Converts a scalar to another scalar type, or a vector component-wise
    /// to a vector of the same width with element `to`.
    pub(crate) fn convert_elements(&self, e: Expr, to: Scalar) -> Expr {
        match e.ty {
            Type::Scalar(s) => match scalar_conversion(s, to) {
                Some(k) => self.wrap(k, e, Type::Scalar(to)),
                None => e,
            },
            Type::Vector(s, n) => match scalar_conversion(s, to) {
                Some(k) => self.wrap(k, e, Type::Vector(to, n)),
                None => e,
            },
            _ => e,
        }
    }

    /// A scalar converted to `elem` and splatted to `elem`x`n`.
    pub(crate) fn splat(&self, e: Expr, elem: Scalar, n: u8) -> Expr {
        let e = self.convert_elements(e, elem);
        self.wrap(ConvertKind::Splat, e, Type::Vector(elem, n))
    }

    /// Integer promotion of a scalar operand.
    pub(crate) fn promote(&self, e: Expr) -> Expr {
        match e.ty {
            Type::Scalar(s) => self.convert_elements(e, promoted(s)),
            _ => e,
        }
    }

    /// A scalar condition (arithmetic or pointer) as `bool`.
    pub(crate) fn to_bool(&self, e: Expr) -> Expr {
        match &e.ty {
            Type::Scalar(Scalar::Bool) | Type::Error => e,
            _ => self.wrap(ConvertKind::ToBool, e, Type::BOOL),
        }
    }

    /// Checks a condition of `if`/loops/`?:`/`&&`/`||`: a scalar or pointer,
    /// converted to `bool`.
    pub(crate) fn condition(&mut self, e: Expr, what: &str) -> Expr {
        if e.is_error() {
            return e;
        }
        if e.ty.is_scalar_condition() {
            return self.to_bool(e);
        }
        let msg = format!(
            "{what} requires an expression of scalar type (`{}` invalid)",
            self.tn(&e.ty)
        );
        let mut d = Diagnostic::new(Code::TypeMismatch, e.span, msg);
        if e.ty.is_vector() {
            d = d.with_note("use `any()` or `all()` to reduce a vector condition to a scalar");
        }
        self.report(d);
        Expr::error(e.span, e.node)
    }

    /// Is `e` a null pointer constant (`0`, `(void *)0`)?
    pub(crate) fn is_null_constant(&self, e: &Expr) -> bool {
        match &e.ty {
            Type::Scalar(s) if s.is_integer() => self.eval(e).is_some_and(|v| v.is_zero()),
            Type::Pointer(p) if p.pointee.is_void() => match &e.kind {
                ExprKind::Convert {
                    kind:
                        ConvertKind::IntToPointer
                        | ConvertKind::PointerCast
                        | ConvertKind::NullToPointer,
                    expr,
                } => self.is_null_constant(expr),
                _ => false,
            },
            _ => false,
        }
    }

    /// Converts a value to a declared type (assignment, initialization,
    /// argument passing, return), reporting what C and OpenCL forbid.
    pub(crate) fn assign_convert(&mut self, e: Expr, to: &Type, ctx: ConvCtx) -> Expr {
        if e.is_error() || to.is_error() || e.ty == *to {
            return e;
        }
        let span = e.span;
        match (&e.ty, to) {
            (Type::Scalar(_), Type::Scalar(b)) => self.convert_elements(e, *b),
            (Type::Scalar(_), Type::Vector(eb, n)) => self.splat(e, *eb, *n),
            (Type::Vector(..), Type::Vector(..)) => {
                let msg = ctx.incompatible(&self.tn(to), &self.tn(&e.ty));
                let d = Diagnostic::new(Code::TypeMismatch, span, msg).with_note(format!(
                    "there are no implicit conversions between vector types; use `convert_{to}()` to convert the values or `as_{to}()` to reinterpret the bits"
                ));
                self.report(d);
                Expr::error(span, e.node)
            }
            (Type::Pointer(_), Type::Pointer(_)) if self.is_null_constant(&e) => {
                // `(void *)0` converts to a pointer in any address space.
                self.wrap(ConvertKind::NullToPointer, e, to.clone())
            }
            (Type::Pointer(p), Type::Pointer(q)) => {
                // A `__generic` pointer was already reported as unsupported.
                let generic = p.space == AddressSpace::Generic || q.space == AddressSpace::Generic;
                if p.space != q.space && !generic {
                    let msg = format!(
                        "{} changes the address space of the pointer",
                        ctx.pointer(&self.tn(to), &self.tn(&e.ty))
                    );
                    self.error(Code::AddressSpace, span, msg);
                    return Expr::error(span, e.node);
                }
                if p.pointee != q.pointee
                    && !p.pointee.is_void()
                    && !q.pointee.is_void()
                    && !p.pointee.is_error()
                    && !q.pointee.is_error()
                {
                    let msg = format!(
                        "incompatible pointer types: {}",
                        ctx.pointer(&self.tn(to), &self.tn(&e.ty))
                    );
                    self.warning(Code::TypeMismatch, span, msg);
                } else if p.pointee_const && !q.pointee_const {
                    let msg = format!(
                        "{} discards the `const` qualifier",
                        ctx.pointer(&self.tn(to), &self.tn(&e.ty))
                    );
                    self.warning(Code::TypeMismatch, span, msg);
                }
                self.wrap(ConvertKind::PointerCast, e, to.clone())
            }
            (Type::Scalar(s), Type::Pointer(_)) if s.is_integer() && self.is_null_constant(&e) => {
                self.wrap(ConvertKind::NullToPointer, e, to.clone())
            }
            (Type::Pointer(_), Type::Scalar(Scalar::Bool)) => {
                self.wrap(ConvertKind::ToBool, e, Type::BOOL)
            }
            // A sampler is initialized from its `CLK_*` bits.
            (Type::Scalar(s), Type::Opaque(Opaque::Sampler, _))
                if s.is_integer() && ctx == ConvCtx::Init =>
            {
                self.to_sampler(e)
            }
            _ => {
                let msg = ctx.incompatible(&self.tn(to), &self.tn(&e.ty));
                self.error(Code::TypeMismatch, span, msg);
                Expr::error(span, e.node)
            }
        }
    }

    /// The usual arithmetic conversions of two operands, with OpenCL's
    /// vector rules: both vectors of the same type, or a vector and a scalar
    /// that converts to its element type (then splatted). Returns the
    /// converted operands and their common type; `None` after reporting.
    /// Neither operand may have the error type.
    pub(crate) fn arith_operands(
        &mut self,
        lhs: Expr,
        rhs: Expr,
        span: Span,
        op: &str,
    ) -> Option<(Expr, Expr, Type)> {
        match (lhs.ty.clone(), rhs.ty.clone()) {
            (Type::Scalar(a), Type::Scalar(b)) => {
                let c = common_scalar(promoted(a), promoted(b));
                Some((
                    self.convert_elements(lhs, c),
                    self.convert_elements(rhs, c),
                    Type::Scalar(c),
                ))
            }
            (Type::Vector(a, n), Type::Vector(b, m)) => {
                if a == b && n == m {
                    let ty = lhs.ty.clone();
                    Some((lhs, rhs, ty))
                } else {
                    self.vector_mismatch(&lhs.ty, &rhs.ty, span);
                    None
                }
            }
            (Type::Vector(e, n), Type::Scalar(s)) => {
                if self.check_scalar_fits(s, &lhs.ty, e, span) {
                    let rhs = self.splat(rhs, e, n);
                    Some((lhs, rhs, Type::Vector(e, n)))
                } else {
                    None
                }
            }
            (Type::Scalar(s), Type::Vector(e, n)) => {
                if self.check_scalar_fits(s, &rhs.ty, e, span) {
                    let lhs = self.splat(lhs, e, n);
                    Some((lhs, rhs, Type::Vector(e, n)))
                } else {
                    None
                }
            }
            (l, r) => {
                let msg = format!(
                    "invalid operands to binary `{op}` (`{}` and `{}`)",
                    self.tn(&l),
                    self.tn(&r)
                );
                self.error(Code::TypeMismatch, span, msg);
                None
            }
        }
    }

    pub(crate) fn vector_mismatch(&mut self, a: &Type, b: &Type, span: Span) {
        let msg = format!(
            "cannot convert between vector types `{}` and `{}`",
            self.tn(a),
            self.tn(b)
        );
        let d = Diagnostic::new(Code::TypeMismatch, span, msg)
            .with_note("OpenCL has no implicit conversions between vector types; use `convert_<type>()` or `as_<type>()`");
        self.report(d);
    }

    fn check_scalar_fits(&mut self, s: Scalar, vty: &Type, elem: Scalar, span: Span) -> bool {
        if scalar_fits_vector(s, elem) {
            return true;
        }
        let msg = format!(
            "scalar operand of type `{}` cannot be converted to the element type of `{}` without losing precision",
            s.name(),
            self.tn(vty)
        );
        let d = Diagnostic::new(Code::TypeMismatch, span, msg)
            .with_note(format!("OpenCL converts a scalar operand to the vector's element type `{}` only when that type has at least the scalar's rank", elem.name()));
        self.report(d);
        false
    }

    pub(crate) fn mk(&self, kind: ExprKind, ty: Type, span: Span, node: NodeId) -> Expr {
        Expr {
            kind,
            ty,
            span,
            node,
            place: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Scalar::*;

    #[test]
    fn common_types() {
        assert_eq!(common_scalar(UInt, Int), UInt);
        assert_eq!(common_scalar(Long, UInt), Long);
        assert_eq!(common_scalar(ULong, Long), ULong);
        assert_eq!(common_scalar(Int, Float), Float);
        assert_eq!(common_scalar(Double, Float), Double);
        assert_eq!(promoted(UChar), Int);
        assert_eq!(promoted(Bool), Int);
    }

    #[test]
    fn vector_scalar_rule_matches_clang() {
        assert!(scalar_fits_vector(Int, Float)); // float4 * 2
        assert!(!scalar_fits_vector(Double, Float)); // float4 * 2.0
        assert!(!scalar_fits_vector(Long, Int)); // int4 + 1L
        assert!(!scalar_fits_vector(Int, Char)); // char4 + 1
        assert!(!scalar_fits_vector(UInt, Int)); // int4 + 1u
        assert!(scalar_fits_vector(Int, UInt)); // uint4 + 1
        assert!(!scalar_fits_vector(Float, Int)); // int4 * 2.5f
        assert!(scalar_fits_vector(Char, Char));
    }
}
