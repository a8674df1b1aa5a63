//! Expressions: name resolution, operator typing, calls (user functions and
//! built-ins), members and swizzles, casts and vector literals.

use super::conv::{common_scalar, promoted, ConvCtx};
use super::{suggest, Checker, Sym};
use crate::ast::{self, FloatSuffix, IntSuffix};
use crate::builtins::{self, Builtin, BuiltinCall, BuiltinFn, Resolution};
use crate::diag::{Code, Diagnostic};
use crate::hir::{self, BinaryOp, ConvertKind, Expr, ExprKind, FuncId, LogicalOp, Place, UnaryOp};
use crate::source::Span;
use crate::types::{AddressSpace, Scalar, Type};

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The result type of a comparison: `int`, or the signed integer vector with
/// the operands' element size (OpenCL's -1/0 convention).
pub(crate) fn comparison_type(operands: &Type) -> Type {
    match operands {
        Type::Vector(e, n) => Type::Vector(e.to_signed_integer(), *n),
        _ => Type::INT,
    }
}

fn map_binop(op: ast::BinaryOp) -> BinaryOp {
    use ast::BinaryOp as A;
    match op {
        A::Mul => BinaryOp::Mul,
        A::Div => BinaryOp::Div,
        A::Rem => BinaryOp::Rem,
        A::Add => BinaryOp::Add,
        A::Sub => BinaryOp::Sub,
        A::Shl => BinaryOp::Shl,
        A::Shr => BinaryOp::Shr,
        A::Lt => BinaryOp::Lt,
        A::Gt => BinaryOp::Gt,
        A::Le => BinaryOp::Le,
        A::Ge => BinaryOp::Ge,
        A::Eq => BinaryOp::Eq,
        A::Ne => BinaryOp::Ne,
        A::BitAnd => BinaryOp::BitAnd,
        A::BitXor => BinaryOp::BitXor,
        A::BitOr => BinaryOp::BitOr,
        A::LogicalAnd => BinaryOp::VecAnd,
        A::LogicalOr => BinaryOp::VecOr,
    }
}

/// Parses a vector component selector (`xy`, `s01`, `hi`, ...) for a vector
/// of `width` components. Returns the component indices, or a message.
pub(crate) fn parse_swizzle(name: &str, width: u8, ty_name: &str) -> Result<Vec<u8>, String> {
    let n = width;
    // 3-component vectors behave as 4 for hi/lo/even/odd (the 4th is undefined).
    let m = if n == 3 { 4 } else { n };
    let half = m / 2;
    let named: Option<Vec<u8>> = match name {
        "lo" => Some((0..half).collect()),
        "hi" => Some((half..m).collect()),
        "even" => Some((0..m).step_by(2).collect()),
        "odd" => Some((1..m).step_by(2).collect()),
        _ => None,
    };
    if let Some(c) = named {
        return Ok(c);
    }
    let mut comps = Vec::new();
    let bytes = name.as_bytes();
    if (bytes.first() == Some(&b's') || bytes.first() == Some(&b'S')) && bytes.len() > 1 {
        for &b in &bytes[1..] {
            let Some(d) = (b as char).to_digit(16) else {
                return Err(format!("illegal vector component name `{}`", b as char));
            };
            if d as u8 >= n {
                return Err(format!("vector component access exceeds type `{ty_name}`"));
            }
            comps.push(d as u8);
        }
    } else {
        for &b in bytes {
            let c = match b {
                b'x' => 0,
                b'y' => 1,
                b'z' => 2,
                b'w' => 3,
                _ => return Err(format!("illegal vector component name `{}`", b as char)),
            };
            if c >= n {
                return Err(format!("vector component access exceeds type `{ty_name}`"));
            }
            comps.push(c);
        }
    }
    if !matches!(comps.len(), 1 | 2 | 3 | 4 | 8 | 16) {
        return Err(format!("vector component access has invalid length {}; supported lengths are 1, 2, 3, 4, 8 and 16", comps.len()));
    }
    Ok(comps)
}

fn swizzle_help(width: u8) -> String {
    let xyzw = &"xyzw"[..(width.min(4)) as usize];
    let xyzw: Vec<String> = xyzw.chars().map(|c| format!("`{c}`")).collect();
    format!(
        "valid components of a {width}-component vector: {}, `s0`–`s{:X}` (combinable, e.g. `s01`), `lo`, `hi`, `even`, `odd`",
        xyzw.join(" "),
        width - 1
    )
}

impl Checker<'_> {
    /// Checks an expression. Arrays are not decayed (for `sizeof`, `&`,
    /// indexing and assignment targets).
    pub(crate) fn expr(&mut self, e: &ast::Expr) -> Expr {
        if !self.enter(e.span) {
            return Expr::error(e.span, e.id);
        }
        let r = self.expr_inner(e);
        self.leave();
        // `half` is a storage format without the fp16 extension: it is read
        // and written through `vload_half`/`vstore_half` only.
        let half_value = matches!(r.ty.element(), Some(Scalar::Half)) && !r.ty.is_pointer();
        if half_value
            && !matches!(
                e.kind,
                ast::ExprKind::Ident(_) | ast::ExprKind::FloatLit { .. }
            )
        {
            self.unsupported(
                Code::UnsupportedHalf,
                e.span,
                "`half` values are not supported yet (read and write `half` memory with `vload_half` and `vstore_half`)",
            );
        }
        r
    }

    /// An expression used as a value: arrays decay to pointers.
    pub(crate) fn value(&mut self, e: &ast::Expr) -> Expr {
        let x = self.expr(e);
        self.decay(x)
    }

    fn expr_inner(&mut self, e: &ast::Expr) -> Expr {
        let (span, node) = (e.span, e.id);
        use ast::ExprKind as K;
        match &e.kind {
            K::IntLit {
                value,
                suffix,
                decimal,
            } => self.int_literal(*value, *suffix, *decimal, span, node),
            K::FloatLit { value, suffix } => {
                let s = match suffix {
                    FloatSuffix::None => Scalar::Double,
                    FloatSuffix::F => Scalar::Float,
                    FloatSuffix::H => {
                        self.unsupported(
                            Code::UnsupportedHalf,
                            span,
                            "`half` values are not supported yet (`h` literal suffix)",
                        );
                        Scalar::Half
                    }
                };
                let v = if s == Scalar::Double {
                    *value
                } else {
                    *value as f32 as f64
                };
                self.mk(ExprKind::Float(v), Type::Scalar(s), span, node)
            }
            K::CharLit(c) => {
                // A plain `char` is signed: '\xff' is -1.
                let v = if *c <= 0xff {
                    (*c as u8 as i8) as i64 as u64
                } else {
                    u64::from(*c)
                };
                self.mk(ExprKind::Int(v), Type::INT, span, node)
            }
            K::StringLit(s) => {
                let shown: String = s.chars().take(24).collect();
                let ell = if s.chars().count() > 24 { "..." } else { "" };
                self.unsupported(
                    Code::UnsupportedString,
                    span,
                    format!(
                        "string literals are not supported yet (`\"{}{ell}\"`)",
                        shown.escape_debug()
                    ),
                );
                Expr::error(span, node)
            }
            K::Ident(id) => self.ident(id, span, node),
            K::Paren(inner) => self.expr(inner),
            K::Unary { op, operand } => self.unary(*op, operand, span, node),
            K::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, span, node),
            K::Assign { op, lhs, rhs } => self.assign(*op, lhs, rhs, span, node),
            K::Conditional { cond, then, els } => self.conditional(cond, then, els, span, node),
            K::Comma { lhs, rhs } => {
                let l = self.value(lhs);
                let r = self.value(rhs);
                if r.is_error() {
                    return Expr::error(span, node);
                }
                let ty = r.ty.clone();
                self.mk(
                    ExprKind::Comma {
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    },
                    ty,
                    span,
                    node,
                )
            }
            K::Call { callee, args } => self.call(callee, args, span, node),
            K::Index { base, index } => self.index(base, index, span, node),
            K::Member { base, field, arrow } => self.member(base, field, *arrow, span, node),
            K::Cast { ty, expr } => {
                let to = self.type_name(ty).ty;
                let v = self.value(expr);
                if to.is_error() || v.is_error() {
                    return Expr::error(span, node);
                }
                self.explicit_convert(v, &to, span, node)
            }
            K::VectorLiteral { ty, elems } => self.vector_literal(ty, elems, span, node),
            K::CompoundLiteral { ty, init } => self.compound_literal(ty, init, span, node),
            K::SizeofType(t) => {
                let ty = self.type_name(t).ty;
                self.size_or_align(&ty, true, span, node)
            }
            K::SizeofExpr(inner) => {
                let v = self.expr(inner);
                self.size_or_align(&v.ty, true, span, node)
            }
            K::AlignofType(t) => {
                let ty = self.type_name(t).ty;
                self.size_or_align(&ty, false, span, node)
            }
            K::VecStepType(t) => {
                let ty = self.type_name(t).ty;
                self.vec_step(&ty, span, node)
            }
            K::Error => Expr::error(span, node),
        }
    }

    fn int_literal(
        &mut self,
        value: u64,
        suffix: IntSuffix,
        decimal: bool,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let fits_int = value <= i32::MAX as u64;
        let fits_uint = value <= u32::MAX as u64;
        let fits_long = value <= i64::MAX as u64;
        let s = match suffix {
            IntSuffix::None if fits_int => Scalar::Int,
            IntSuffix::None if !decimal && fits_uint => Scalar::UInt,
            IntSuffix::None | IntSuffix::L if fits_long => Scalar::Long,
            IntSuffix::U if fits_uint => Scalar::UInt,
            _ => Scalar::ULong,
        };
        if s == Scalar::ULong && decimal && !matches!(suffix, IntSuffix::U | IntSuffix::UL) {
            self.warning(
                Code::TypeMismatch,
                span,
                "integer literal is too large to be represented in a signed integer type, interpreting as unsigned",
            );
        }
        self.mk(ExprKind::Int(value), Type::Scalar(s), span, node)
    }

    fn ident(&mut self, id: &ast::Ident, span: Span, node: ast::NodeId) -> Expr {
        // Keywords of type `bool` in OpenCL C (clang reads them so in every
        // version; they are not macros).
        if let Some(value) = bool_keyword(&id.name) {
            return self.mk(ExprKind::Int(value as u64), Type::BOOL, span, node);
        }
        match self.lookup(&id.name).map(|b| b.sym.clone()) {
            Some(Sym::Local(l)) => {
                let Some(local) = self.func.as_ref().and_then(|f| f.locals.get(l.0 as usize))
                else {
                    return Expr::error(span, node);
                };
                let (ty, is_const, space) = (local.ty.clone(), local.is_const, local.space);
                Expr {
                    kind: ExprKind::Local(l),
                    ty,
                    span,
                    node,
                    place: Some(Place { space, is_const }),
                }
            }
            Some(Sym::Global(g)) => {
                let Some(global) = self.unit.globals.get(g.0 as usize) else {
                    return Expr::error(span, node);
                };
                let place = Place {
                    space: global.space,
                    is_const: global.is_const,
                };
                let ty = global.ty.clone();
                Expr {
                    kind: ExprKind::Global(g),
                    ty,
                    span,
                    node,
                    place: Some(place),
                }
            }
            Some(Sym::EnumConst(v)) => self.mk(ExprKind::Int(v as u64), Type::INT, span, node),
            Some(Sym::Func(_)) => {
                self.unsupported(
                    Code::UnsupportedFunctionPointer,
                    span,
                    format!(
                        "function pointers are not supported yet (`{}` used as a value)",
                        id.name
                    ),
                );
                Expr::error(span, node)
            }
            Some(Sym::Typedef(_)) => {
                self.error(
                    Code::Syntax,
                    span,
                    format!("unexpected type name `{}`: expected an expression", id.name),
                );
                Expr::error(span, node)
            }
            None if crate::workgroup::ENUMERATORS
                .iter()
                .any(|(n, _)| *n == id.name) =>
            {
                let v = crate::workgroup::ENUMERATORS
                    .iter()
                    .find(|(n, _)| *n == id.name)
                    .map_or(0, |(_, v)| *v);
                self.mk(ExprKind::Int(v as u64), Type::INT, span, node)
            }
            None => {
                if builtins::is_builtin_name(&id.name) {
                    self.unsupported(
                        Code::UnsupportedFunctionPointer,
                        span,
                        format!("function pointers are not supported yet (built-in `{}` used as a value)", id.name),
                    );
                } else if let Some((code, msg)) = builtins::unsupported(&id.name) {
                    self.unsupported(code, span, msg);
                } else {
                    let names = self.visible_names();
                    let mut d = Diagnostic::new(
                        Code::Undeclared,
                        span,
                        format!("use of undeclared identifier `{}`", id.name),
                    );
                    if let Some(s) = suggest(&id.name, names.iter().map(|n| n.as_str())) {
                        d = d.with_note(format!("did you mean `{s}`?"));
                    }
                    self.report(d);
                }
                Expr::error(span, node)
            }
        }
    }

    // --- operators ------------------------------------------------------------

    fn unary(
        &mut self,
        op: ast::UnaryOp,
        operand: &ast::Expr,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        use ast::UnaryOp as U;
        match op {
            U::PreInc | U::PreDec | U::PostInc | U::PostDec => {
                self.inc_dec(op, operand, span, node)
            }
            U::AddrOf => self.addr_of(operand, span, node),
            U::Deref => {
                let p = self.value(operand);
                if p.is_error() {
                    return Expr::error(span, node);
                }
                match &p.ty {
                    Type::Pointer(ptr) if !ptr.pointee.is_void() => {
                        let place = Place {
                            space: ptr.space,
                            is_const: ptr.pointee_const,
                        };
                        let ty = ptr.pointee.clone();
                        Expr {
                            kind: ExprKind::Deref(Box::new(p)),
                            ty,
                            span,
                            node,
                            place: Some(place),
                        }
                    }
                    Type::Pointer(_) => {
                        self.error(
                            Code::TypeMismatch,
                            span,
                            format!(
                                "cannot dereference a pointer to `void` (`{}`)",
                                self.tn(&p.ty)
                            ),
                        );
                        Expr::error(span, node)
                    }
                    other => {
                        let msg = format!(
                            "indirection requires a pointer operand (`{}` invalid)",
                            self.tn(other)
                        );
                        self.error(Code::TypeMismatch, span, msg);
                        Expr::error(span, node)
                    }
                }
            }
            U::Neg | U::Plus | U::BitNot => {
                let v = self.value(operand);
                if v.is_error() {
                    return Expr::error(span, node);
                }
                let ok = if op == U::BitNot {
                    v.ty.is_integer()
                } else {
                    v.ty.is_arithmetic() && v.ty != Type::Void
                };
                if !ok {
                    let msg = format!(
                        "invalid argument type `{}` to unary `{}`",
                        self.tn(&v.ty),
                        op.symbol()
                    );
                    self.error(Code::TypeMismatch, span, msg);
                    return Expr::error(span, node);
                }
                let v = self.promote(v);
                if op == U::Plus {
                    return v;
                }
                let ty = v.ty.clone();
                let op = if op == U::Neg {
                    UnaryOp::Neg
                } else {
                    UnaryOp::BitNot
                };
                self.mk(
                    ExprKind::Unary {
                        op,
                        operand: Box::new(v),
                    },
                    ty,
                    span,
                    node,
                )
            }
            U::Not => {
                let v = self.value(operand);
                if v.is_error() {
                    return Expr::error(span, node);
                }
                if v.ty.is_vector() {
                    let ty = comparison_type(&v.ty);
                    return self.mk(
                        ExprKind::Unary {
                            op: UnaryOp::Not,
                            operand: Box::new(v),
                        },
                        ty,
                        span,
                        node,
                    );
                }
                if !v.ty.is_scalar_condition() {
                    let msg = format!("invalid argument type `{}` to unary `!`", self.tn(&v.ty));
                    self.error(Code::TypeMismatch, span, msg);
                    return Expr::error(span, node);
                }
                let v = self.to_bool(v);
                self.mk(
                    ExprKind::Unary {
                        op: UnaryOp::Not,
                        operand: Box::new(v),
                    },
                    Type::INT,
                    span,
                    node,
                )
            }
        }
    }

    /// Reports why `e` cannot be assigned to; true when it can.
    pub(crate) fn check_modifiable(&mut self, e: &Expr, action: &str) -> bool {
        let Some(place) = e.place else {
            let msg = match &e.kind {
                ExprKind::Swizzle { .. } if e.ty.is_arithmetic() => {
                    "vector is not assignable (contains duplicate components)".to_string()
                }
                _ => format!("cannot {action} an expression that is not assignable"),
            };
            self.error(Code::NotAssignable, e.span, msg);
            return false;
        };
        if let Type::Array(..) = e.ty {
            let msg = format!("cannot {action} an array (type `{}`)", self.tn(&e.ty));
            self.error(Code::NotAssignable, e.span, msg);
            return false;
        }
        if e.ty.is_image_or_sampler() {
            let msg = format!(
                "cannot {action} a value of type `{}`: images and samplers are fixed for the whole kernel",
                self.tn(&e.ty)
            );
            self.error(Code::TypeMismatch, e.span, msg);
            return false;
        }
        if place.is_const {
            let msg = if place.space == AddressSpace::Constant {
                format!("cannot {action} memory in the `__constant` address space")
            } else if let ExprKind::Local(id) = e.kind {
                let name = self
                    .func
                    .as_ref()
                    .and_then(|f| f.locals.get(id.0 as usize))
                    .map_or(String::new(), |l| l.name.to_string());
                format!(
                    "cannot {action} variable `{name}` with const-qualified type `const {}`",
                    self.tn(&e.ty)
                )
            } else {
                format!("cannot {action} a read-only location (through a pointer to `const`)")
            };
            self.error(Code::NotAssignable, e.span, msg);
            return false;
        }
        true
    }

    fn inc_dec(
        &mut self,
        op: ast::UnaryOp,
        operand: &ast::Expr,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        use ast::UnaryOp as U;
        let increment = matches!(op, U::PreInc | U::PostInc);
        let pre = matches!(op, U::PreInc | U::PreDec);
        let action = if increment { "increment" } else { "decrement" };
        let v = self.expr(operand);
        if v.is_error() || !self.check_modifiable(&v, action) {
            return Expr::error(span, node);
        }
        let ok = match &v.ty {
            Type::Scalar(_) => true,
            Type::Vector(e, _) => e.is_integer(),
            Type::Pointer(p) => !p.pointee.is_void(),
            _ => false,
        };
        if !ok {
            let msg = format!("cannot {action} a value of type `{}`", self.tn(&v.ty));
            self.error(Code::TypeMismatch, span, msg);
            return Expr::error(span, node);
        }
        let ty = v.ty.clone();
        self.mk(
            ExprKind::IncDec {
                pre,
                increment,
                operand: Box::new(v),
            },
            ty,
            span,
            node,
        )
    }

    fn addr_of(&mut self, operand: &ast::Expr, span: Span, node: ast::NodeId) -> Expr {
        let v = self.expr(operand);
        if v.is_error() {
            return Expr::error(span, node);
        }
        let component = match &v.kind {
            ExprKind::Swizzle { .. } => true,
            ExprKind::Index { base, .. } => base.ty.is_vector(),
            _ => false,
        };
        if component {
            self.error(
                Code::TypeMismatch,
                span,
                "cannot take the address of a vector component",
            );
            return Expr::error(span, node);
        }
        let Some(place) = v.place else {
            let msg = format!(
                "cannot take the address of an rvalue of type `{}`",
                self.tn(&v.ty)
            );
            self.error(Code::TypeMismatch, span, msg);
            return Expr::error(span, node);
        };
        let ty = Type::pointer(
            v.ty.clone(),
            place.space,
            place.is_const || place.space == AddressSpace::Constant,
        );
        self.mk(ExprKind::AddrOf(Box::new(v)), ty, span, node)
    }

    fn binary(
        &mut self,
        op: ast::BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let l = self.value(lhs);
        let r = self.value(rhs);
        if l.is_error() || r.is_error() {
            return Expr::error(span, node);
        }
        use ast::BinaryOp as B;
        if op.is_logical() {
            return self.logical(op, l, r, span, node);
        }
        if l.ty.is_pointer() || r.ty.is_pointer() {
            return match op {
                B::Add | B::Sub => self.pointer_arith(op, l, r, span, node),
                _ if op.is_comparison() => self.pointer_compare(op, l, r, span, node),
                _ => {
                    self.invalid_operands(op.symbol(), &l.ty, &r.ty, span);
                    Expr::error(span, node)
                }
            };
        }
        let result = if matches!(op, B::Shl | B::Shr) {
            self.shift_operands(l, r, op.symbol(), span)
        } else {
            self.arith_checked(op, l, r, span)
        };
        let Some((l, r, ty)) = result else {
            return Expr::error(span, node);
        };
        let ty = if op.is_comparison() {
            comparison_type(&ty)
        } else {
            ty
        };
        self.mk(
            ExprKind::Binary {
                op: map_binop(op),
                lhs: Box::new(l),
                rhs: Box::new(r),
            },
            ty,
            span,
            node,
        )
    }

    fn invalid_operands(&mut self, op: &str, l: &Type, r: &Type, span: Span) {
        let msg = format!(
            "invalid operands to binary `{op}` (`{}` and `{}`)",
            self.tn(l),
            self.tn(r)
        );
        self.error(Code::TypeMismatch, span, msg);
    }

    /// Arithmetic, bitwise and comparison operands: the usual conversions,
    /// then the operator's own restrictions.
    fn arith_checked(
        &mut self,
        op: ast::BinaryOp,
        l: Expr,
        r: Expr,
        span: Span,
    ) -> Option<(Expr, Expr, Type)> {
        use ast::BinaryOp as B;
        let (lt, rt) = (l.ty.clone(), r.ty.clone());
        let (l, r, ty) = self.arith_operands(l, r, span, op.symbol())?;
        let needs_int = matches!(op, B::Rem | B::BitAnd | B::BitOr | B::BitXor);
        if needs_int && !ty.is_integer() {
            let msg = format!(
                "invalid operands to binary `{}` (`{}` and `{}`): operands must be integers",
                op.symbol(),
                self.tn(&lt),
                self.tn(&rt)
            );
            self.error(Code::TypeMismatch, span, msg);
            return None;
        }
        if ty.element() == Some(Scalar::Half) {
            self.unsupported(
                Code::UnsupportedHalf,
                span,
                "`half` arithmetic is not supported yet",
            );
        }
        Some((l, r, ty))
    }

    /// Shift operands: integers; the result has the (promoted) left type and
    /// the count is converted to it (splatted for a vector left operand).
    fn shift_operands(
        &mut self,
        l: Expr,
        r: Expr,
        op: &str,
        span: Span,
    ) -> Option<(Expr, Expr, Type)> {
        if !l.ty.is_integer() || !r.ty.is_integer() {
            self.invalid_operands(op, &l.ty, &r.ty, span);
            return None;
        }
        match (l.ty.clone(), r.ty.clone()) {
            (Type::Scalar(a), Type::Scalar(_)) => {
                let p = promoted(a);
                let l = self.convert_elements(l, p);
                let r = self.convert_elements(r, p);
                Some((l, r, Type::Scalar(p)))
            }
            (Type::Vector(e, n), Type::Scalar(_)) => {
                let r = self.splat(r, e, n);
                let ty = l.ty.clone();
                Some((l, r, ty))
            }
            (Type::Vector(e, n), Type::Vector(_, m)) => {
                if n != m {
                    let msg = format!("vector operands of `{op}` have different numbers of components (`{}` and `{}`)", self.tn(&l.ty), self.tn(&r.ty));
                    self.error(Code::TypeMismatch, span, msg);
                    return None;
                }
                let r = self.convert_elements(r, e);
                let ty = l.ty.clone();
                Some((l, r, ty))
            }
            (lt, rt) => {
                let msg = format!(
                    "the shift count is a vector (`{}`) but the shifted operand is not (`{}`)",
                    self.tn(&rt),
                    self.tn(&lt)
                );
                self.error(Code::TypeMismatch, span, msg);
                None
            }
        }
    }

    fn logical(
        &mut self,
        op: ast::BinaryOp,
        l: Expr,
        r: Expr,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        if l.ty.is_vector() || r.ty.is_vector() {
            let Some((l, r, ty)) = self.arith_operands(l, r, span, op.symbol()) else {
                return Expr::error(span, node);
            };
            let ty = comparison_type(&ty);
            return self.mk(
                ExprKind::Binary {
                    op: map_binop(op),
                    lhs: Box::new(l),
                    rhs: Box::new(r),
                },
                ty,
                span,
                node,
            );
        }
        let what = format!("operand of `{}`", op.symbol());
        let l = self.condition(l, &what);
        let r = self.condition(r, &what);
        if l.is_error() || r.is_error() {
            return Expr::error(span, node);
        }
        let op = if op == ast::BinaryOp::LogicalAnd {
            LogicalOp::And
        } else {
            LogicalOp::Or
        };
        self.mk(
            ExprKind::Logical {
                op,
                lhs: Box::new(l),
                rhs: Box::new(r),
            },
            Type::INT,
            span,
            node,
        )
    }

    fn pointer_arith(
        &mut self,
        op: ast::BinaryOp,
        l: Expr,
        r: Expr,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let sub = op == ast::BinaryOp::Sub;
        match (&l.ty, &r.ty) {
            (Type::Pointer(p), Type::Pointer(q)) if sub => {
                let same = p.space == q.space
                    && (p.pointee == q.pointee || p.pointee.is_error() || q.pointee.is_error());
                if !same {
                    let msg = format!(
                        "`{}` and `{}` are not pointers to compatible types",
                        self.tn(&l.ty),
                        self.tn(&r.ty)
                    );
                    self.error(Code::TypeMismatch, span, msg);
                    return Expr::error(span, node);
                }
                if !self.check_arith_pointee(&l.ty, span) {
                    return Expr::error(span, node);
                }
                self.mk(
                    ExprKind::PtrDiff {
                        lhs: Box::new(l),
                        rhs: Box::new(r),
                    },
                    Type::LONG,
                    span,
                    node,
                )
            }
            (Type::Pointer(_), Type::Scalar(s)) if s.is_integer() || *s == Scalar::Bool => {
                if !self.check_arith_pointee(&l.ty, span) {
                    return Expr::error(span, node);
                }
                let ty = l.ty.clone();
                let offset = self.convert_elements(r, Scalar::Long);
                self.mk(
                    ExprKind::PtrAdd {
                        ptr: Box::new(l),
                        offset: Box::new(offset),
                        negate: sub,
                    },
                    ty,
                    span,
                    node,
                )
            }
            (Type::Scalar(s), Type::Pointer(_))
                if !sub && (s.is_integer() || *s == Scalar::Bool) =>
            {
                if !self.check_arith_pointee(&r.ty, span) {
                    return Expr::error(span, node);
                }
                let ty = r.ty.clone();
                let offset = self.convert_elements(l, Scalar::Long);
                self.mk(
                    ExprKind::PtrAdd {
                        ptr: Box::new(r),
                        offset: Box::new(offset),
                        negate: false,
                    },
                    ty,
                    span,
                    node,
                )
            }
            _ => {
                self.invalid_operands(op.symbol(), &l.ty, &r.ty, span);
                Expr::error(span, node)
            }
        }
    }

    /// Pointer arithmetic needs a complete, non-void pointee.
    fn check_arith_pointee(&mut self, ty: &Type, span: Span) -> bool {
        let Some(p) = ty.pointee() else { return true };
        let bad = match &p.pointee {
            Type::Void => true,
            Type::Struct(id) => !self
                .unit
                .structs
                .get(id.0 as usize)
                .is_some_and(|d| d.complete),
            _ => false,
        };
        if bad {
            let msg = format!(
                "arithmetic on a pointer to an incomplete type (`{}`)",
                self.tn(ty)
            );
            self.error(Code::TypeMismatch, span, msg);
        }
        !bad
    }

    fn pointer_compare(
        &mut self,
        op: ast::BinaryOp,
        l: Expr,
        r: Expr,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let relational = !matches!(op, ast::BinaryOp::Eq | ast::BinaryOp::Ne);
        let (l, r) = match (l.ty.clone(), r.ty.clone()) {
            (Type::Pointer(p), Type::Pointer(q)) => {
                if p.space != q.space {
                    let msg = format!(
                        "comparison of pointers to different address spaces (`{}` and `{}`)",
                        self.tn(&l.ty),
                        self.tn(&r.ty)
                    );
                    self.error(Code::AddressSpace, span, msg);
                    return Expr::error(span, node);
                }
                if p.pointee != q.pointee {
                    let compatible = p.pointee.is_void()
                        || q.pointee.is_void()
                        || p.pointee.is_error()
                        || q.pointee.is_error();
                    if !compatible {
                        let msg = format!(
                            "comparison of distinct pointer types (`{}` and `{}`)",
                            self.tn(&l.ty),
                            self.tn(&r.ty)
                        );
                        if relational {
                            self.error(Code::TypeMismatch, span, msg);
                            return Expr::error(span, node);
                        }
                        self.warning(Code::TypeMismatch, span, msg);
                    }
                }
                let to = l.ty.clone();
                let r = if r.ty == to {
                    r
                } else {
                    self.wrap(ConvertKind::PointerCast, r, to)
                };
                (l, r)
            }
            (Type::Pointer(_), _) if self.is_null_constant(&r) => {
                let to = l.ty.clone();
                let r = self.wrap(ConvertKind::NullToPointer, r, to);
                (l, r)
            }
            (_, Type::Pointer(_)) if self.is_null_constant(&l) => {
                let to = r.ty.clone();
                let l = self.wrap(ConvertKind::NullToPointer, l, to);
                (l, r)
            }
            _ => {
                let msg = format!(
                    "comparison between a pointer and a non-pointer (`{}` and `{}`)",
                    self.tn(&l.ty),
                    self.tn(&r.ty)
                );
                self.error(Code::TypeMismatch, span, msg);
                return Expr::error(span, node);
            }
        };
        self.mk(
            ExprKind::Binary {
                op: map_binop(op),
                lhs: Box::new(l),
                rhs: Box::new(r),
            },
            Type::INT,
            span,
            node,
        )
    }

    fn assign(
        &mut self,
        op: Option<ast::BinaryOp>,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let l = self.expr(lhs);
        let r = self.value(rhs);
        if l.is_error() || !self.check_modifiable(&l, "assign to") || r.is_error() {
            return Expr::error(span, node);
        }
        let ty = l.ty.clone();
        let Some(op) = op else {
            let r = self.assign_convert(r, &ty, ConvCtx::Assign);
            if r.is_error() {
                return Expr::error(span, node);
            }
            return self.mk(
                ExprKind::Assign {
                    lhs: Box::new(l),
                    rhs: Box::new(r),
                },
                ty,
                span,
                node,
            );
        };
        use ast::BinaryOp as B;
        // Pointer `+=`/`-=`: an element offset.
        if let (Type::Pointer(_), B::Add | B::Sub) = (&ty, op) {
            if !r.ty.is_integer() || r.ty.is_vector() {
                self.invalid_operands(op.symbol(), &ty, &r.ty, span);
                return Expr::error(span, node);
            }
            if !self.check_arith_pointee(&ty, span) {
                return Expr::error(span, node);
            }
            let r = self.convert_elements(r, Scalar::Long);
            let kind = ExprKind::CompoundAssign {
                op: map_binop(op),
                lhs: Box::new(l),
                rhs: Box::new(r),
                computation: ty.clone(),
            };
            return self.mk(kind, ty, span, node);
        }
        if ty.is_pointer() || r.ty.is_pointer() {
            self.invalid_operands(op.symbol(), &ty, &r.ty, span);
            return Expr::error(span, node);
        }
        // The operation as `lhs op rhs` would type it; the left operand's
        // converted copy is only used for its type.
        let operand = l.clone();
        let result = if matches!(op, B::Shl | B::Shr) {
            self.shift_operands(operand, r, op.symbol(), span)
        } else if op.is_logical() || op.is_comparison() {
            None
        } else {
            self.arith_checked(op, operand, r, span)
        };
        let Some((_, r, computation)) = result else {
            return Expr::error(span, node);
        };
        if computation.is_vector() && !ty.is_vector() {
            let msg = format!(
                "assigning to `{}` from incompatible type `{}`",
                self.tn(&ty),
                self.tn(&computation)
            );
            self.error(Code::TypeMismatch, span, msg);
            return Expr::error(span, node);
        }
        let kind = ExprKind::CompoundAssign {
            op: map_binop(op),
            lhs: Box::new(l),
            rhs: Box::new(r),
            computation,
        };
        self.mk(kind, ty, span, node)
    }

    fn conditional(
        &mut self,
        cond: &ast::Expr,
        then: &ast::Expr,
        els: &ast::Expr,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let c = self.value(cond);
        let t = self.value(then);
        let f = self.value(els);
        if c.is_error() || t.is_error() || f.is_error() {
            return Expr::error(span, node);
        }
        if c.ty.is_vector() {
            return self.vector_select(c, t, f, span, node);
        }
        if c.ty.is_float() {
            // OpenCL C 6.3.i (and clang): `?:` needs an integer condition.
            let msg = format!(
                "the condition of `?:` cannot have floating-point type (`{}`)",
                self.tn(&c.ty)
            );
            let d = Diagnostic::new(Code::TypeMismatch, c.span, msg)
                .with_note("compare explicitly, e.g. `x != 0.0f`");
            self.report(d);
            return Expr::error(span, node);
        }
        let c = self.condition(c, "the condition of `?:`");
        if c.is_error() {
            return Expr::error(span, node);
        }
        let (t, f, ty) = match (t.ty.clone(), f.ty.clone()) {
            (a, b) if a.is_arithmetic() && b.is_arithmetic() => {
                match self.arith_operands(t, f, span, "?:") {
                    Some(x) => x,
                    None => return Expr::error(span, node),
                }
            }
            (Type::Void, Type::Void) => (t, f, Type::Void),
            (Type::Struct(a), Type::Struct(b)) if a == b => (t, f, Type::Struct(a)),
            (Type::Pointer(p), Type::Pointer(q)) => {
                if p.space != q.space {
                    let msg = format!("conditional operator with pointers to different address spaces (`{}` and `{}`)", self.tn(&t.ty), self.tn(&f.ty));
                    self.error(Code::AddressSpace, span, msg);
                    return Expr::error(span, node);
                }
                let pointee = if p.pointee == q.pointee {
                    p.pointee.clone()
                } else if p.pointee.is_void() || q.pointee.is_void() {
                    Type::Void
                } else {
                    let msg = format!(
                        "pointer type mismatch in `?:` (`{}` and `{}`)",
                        self.tn(&t.ty),
                        self.tn(&f.ty)
                    );
                    self.warning(Code::TypeMismatch, span, msg);
                    p.pointee.clone()
                };
                let ty = Type::pointer(pointee, p.space, p.pointee_const || q.pointee_const);
                let t = if t.ty == ty {
                    t
                } else {
                    self.wrap(ConvertKind::PointerCast, t, ty.clone())
                };
                let f = if f.ty == ty {
                    f
                } else {
                    self.wrap(ConvertKind::PointerCast, f, ty.clone())
                };
                (t, f, ty)
            }
            (Type::Pointer(_), _) if self.is_null_constant(&f) => {
                let ty = t.ty.clone();
                let f = self.wrap(ConvertKind::NullToPointer, f, ty.clone());
                (t, f, ty)
            }
            (_, Type::Pointer(_)) if self.is_null_constant(&t) => {
                let ty = f.ty.clone();
                let t = self.wrap(ConvertKind::NullToPointer, t, ty.clone());
                (t, f, ty)
            }
            (a, b) => {
                let msg = format!(
                    "incompatible operand types in `?:` (`{}` and `{}`)",
                    self.tn(&a),
                    self.tn(&b)
                );
                self.error(Code::TypeMismatch, span, msg);
                return Expr::error(span, node);
            }
        };
        self.mk(
            ExprKind::Conditional {
                cond: Box::new(c),
                then: Box::new(t),
                els: Box::new(f),
            },
            ty,
            span,
            node,
        )
    }

    /// `c ? a : b` with a vector condition: OpenCL's component-wise select.
    fn vector_select(&mut self, c: Expr, t: Expr, f: Expr, span: Span, node: ast::NodeId) -> Expr {
        let Type::Vector(ce, cn) = c.ty else {
            return Expr::error(span, node);
        };
        if !ce.is_integer() {
            let msg = format!(
                "a vector condition must have integer components (`{}` invalid)",
                self.tn(&c.ty)
            );
            self.error(Code::TypeMismatch, c.span, msg);
            return Expr::error(span, node);
        }
        let (t, f, ty) = match (t.ty.clone(), f.ty.clone()) {
            (Type::Scalar(a), Type::Scalar(b)) => {
                let s = common_scalar(promoted(a), promoted(b));
                (
                    self.splat(t, s, cn),
                    self.splat(f, s, cn),
                    Type::Vector(s, cn),
                )
            }
            (a, b) if a.is_arithmetic() && b.is_arithmetic() => {
                match self.arith_operands(t, f, span, "?:") {
                    Some(x) => x,
                    None => return Expr::error(span, node),
                }
            }
            (a, b) => {
                let msg = format!(
                    "incompatible operand types in a vector `?:` (`{}` and `{}`)",
                    self.tn(&a),
                    self.tn(&b)
                );
                self.error(Code::TypeMismatch, span, msg);
                return Expr::error(span, node);
            }
        };
        let Type::Vector(e, n) = ty else {
            return Expr::error(span, node);
        };
        if n != cn {
            let msg = format!("vector condition type `{}` and result type `{}` have different numbers of components", self.tn(&c.ty), self.tn(&ty));
            self.error(Code::TypeMismatch, span, msg);
            return Expr::error(span, node);
        }
        if e.size() != ce.size() {
            let msg = format!(
                "vector condition type `{}` and result type `{}` do not have elements of the same size",
                self.tn(&c.ty),
                self.tn(&ty)
            );
            self.error(Code::TypeMismatch, span, msg);
            return Expr::error(span, node);
        }
        self.mk(
            ExprKind::Select {
                cond: Box::new(c),
                then: Box::new(t),
                els: Box::new(f),
            },
            ty,
            span,
            node,
        )
    }

    // --- postfix ----------------------------------------------------------------

    fn index(
        &mut self,
        base: &ast::Expr,
        index: &ast::Expr,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let mut b = self.expr(base);
        let mut i = self.value(index);
        if b.is_error() || i.is_error() {
            return Expr::error(span, node);
        }
        // C allows `i[p]`.
        if b.ty.is_integer() && !b.ty.is_vector() && i.ty.is_pointer() {
            let bb = self.decay(b);
            b = i;
            i = bb;
        }
        if !i.ty.is_integer() || i.ty.is_vector() {
            let msg = format!("array subscript is not an integer (`{}`)", self.tn(&i.ty));
            self.error(Code::TypeMismatch, i.span, msg);
            return Expr::error(span, node);
        }
        let i = self.convert_elements(i, Scalar::Long);
        match b.ty.clone() {
            Type::Array(elem, _) => {
                let place = b.place;
                Expr {
                    kind: ExprKind::Index {
                        base: Box::new(b),
                        index: Box::new(i),
                    },
                    ty: *elem,
                    span,
                    node,
                    place,
                }
            }
            Type::Pointer(p) => {
                if !self.check_arith_pointee(&b.ty, span) {
                    return Expr::error(span, node);
                }
                let place = Some(Place {
                    space: p.space,
                    is_const: p.pointee_const,
                });
                Expr {
                    kind: ExprKind::Index {
                        base: Box::new(b),
                        index: Box::new(i),
                    },
                    ty: p.pointee.clone(),
                    span,
                    node,
                    place,
                }
            }
            Type::Vector(e, n) => {
                if let Some(v) = self.eval(&i) {
                    let k = v.as_i64();
                    if k < 0 || k >= i64::from(n) {
                        let msg = format!(
                            "vector component index {k} is out of range for `{}`",
                            self.tn(&b.ty)
                        );
                        self.error(Code::NoMember, i.span, msg);
                        return Expr::error(span, node);
                    }
                }
                let place = b.place;
                Expr {
                    kind: ExprKind::Index {
                        base: Box::new(b),
                        index: Box::new(i),
                    },
                    ty: Type::Scalar(e),
                    span,
                    node,
                    place,
                }
            }
            other => {
                let msg = format!(
                    "subscripted value of type `{}` is not an array, pointer or vector",
                    self.tn(&other)
                );
                self.error(Code::TypeMismatch, b.span, msg);
                Expr::error(span, node)
            }
        }
    }

    fn member(
        &mut self,
        base: &ast::Expr,
        field: &ast::Ident,
        arrow: bool,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let b = if arrow {
            let p = self.value(base);
            if p.is_error() {
                return Expr::error(span, node);
            }
            match p.ty.clone() {
                Type::Pointer(ptr) => {
                    let place = Some(Place {
                        space: ptr.space,
                        is_const: ptr.pointee_const,
                    });
                    let bspan = p.span;
                    let bnode = p.node;
                    Expr {
                        kind: ExprKind::Deref(Box::new(p)),
                        ty: ptr.pointee.clone(),
                        span: bspan,
                        node: bnode,
                        place,
                    }
                }
                other => {
                    let msg = format!(
                        "member reference type `{}` is not a pointer; use `.` instead of `->`",
                        self.tn(&other)
                    );
                    self.error(Code::NoMember, field.span, msg);
                    return Expr::error(span, node);
                }
            }
        } else {
            self.expr(base)
        };
        if b.is_error() {
            return Expr::error(span, node);
        }
        match b.ty.clone() {
            Type::Struct(id) => {
                let Some(def) = self.unit.structs.get(id.0 as usize) else {
                    return Expr::error(span, node);
                };
                if !def.complete {
                    let msg = format!("member access into incomplete type `{}`", self.tn(&b.ty));
                    self.error(Code::NoMember, field.span, msg);
                    return Expr::error(span, node);
                }
                match def.field_index(&field.name) {
                    Some(i) => {
                        let f = &def.fields[i];
                        let ty = f.ty.clone();
                        let place = b.place.map(|p| Place {
                            space: p.space,
                            is_const: p.is_const || f.is_const,
                        });
                        Expr {
                            kind: ExprKind::Member {
                                base: Box::new(b),
                                field: i as u32,
                            },
                            ty,
                            span,
                            node,
                            place,
                        }
                    }
                    None => {
                        let names: Vec<String> =
                            def.fields.iter().map(|f| format!("`{}`", f.name)).collect();
                        let cands: Vec<&str> = def.fields.iter().map(|f| f.name.as_str()).collect();
                        let hint = suggest(&field.name, cands.iter().copied());
                        let msg =
                            format!("no member named `{}` in `{}`", field.name, self.tn(&b.ty));
                        let mut d = Diagnostic::new(Code::NoMember, field.span, msg);
                        if let Some(h) = hint {
                            d = d.with_note(format!("did you mean `{h}`?"));
                        }
                        d = d.with_note(if names.is_empty() {
                            "the struct has no fields".to_string()
                        } else {
                            format!("fields: {}", names.join(", "))
                        });
                        self.report(d);
                        Expr::error(span, node)
                    }
                }
            }
            Type::Vector(e, n) => {
                let tyname = self.tn(&b.ty);
                match parse_swizzle(&field.name, n, &tyname) {
                    Ok(components) => {
                        let mut seen = 0u32;
                        let unique = components.iter().all(|&c| {
                            let fresh = seen & (1 << c) == 0;
                            seen |= 1 << c;
                            fresh
                        });
                        let ty = if components.len() == 1 {
                            Type::Scalar(e)
                        } else {
                            Type::Vector(e, components.len() as u8)
                        };
                        let place = if unique { b.place } else { None };
                        Expr {
                            kind: ExprKind::Swizzle {
                                base: Box::new(b),
                                components,
                            },
                            ty,
                            span,
                            node,
                            place,
                        }
                    }
                    Err(msg) => {
                        let d = Diagnostic::new(Code::NoMember, field.span, msg)
                            .with_note(swizzle_help(n));
                        self.report(d);
                        Expr::error(span, node)
                    }
                }
            }
            Type::Pointer(p)
                if !arrow && matches!(p.pointee, Type::Struct(_) | Type::Vector(..)) =>
            {
                let msg = format!(
                    "member reference type `{}` is a pointer; use `->` instead of `.`",
                    self.tn(&b.ty)
                );
                self.error(Code::NoMember, field.span, msg);
                Expr::error(span, node)
            }
            other => {
                let msg = format!(
                    "member reference base type `{}` is not a struct or vector",
                    self.tn(&other)
                );
                self.error(Code::NoMember, field.span, msg);
                Expr::error(span, node)
            }
        }
    }

    // --- casts and literals -------------------------------------------------------

    /// An explicit cast `(T)v`.
    pub(crate) fn explicit_convert(
        &mut self,
        v: Expr,
        to: &Type,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        if v.ty == *to {
            return v;
        }
        let cast = |kind: ConvertKind, v: Expr, to: &Type| Expr {
            kind: ExprKind::Convert {
                kind,
                expr: Box::new(v),
            },
            ty: to.clone(),
            span,
            node,
            place: None,
        };
        match (v.ty.clone(), to) {
            (_, Type::Void) => cast(ConvertKind::ToVoid, v, to),
            (Type::Scalar(a), Type::Scalar(b)) => match super::conv::scalar_conversion(a, *b) {
                Some(k) => cast(k, v, to),
                None => v,
            },
            (Type::Scalar(_), Type::Vector(e, n)) => {
                let s = self.convert_elements(v, *e);
                cast(ConvertKind::Splat, s, &Type::Vector(*e, *n))
            }
            (Type::Vector(..), Type::Vector(..)) => {
                let msg = format!(
                    "invalid cast between vector types `{}` and `{}`",
                    self.tn(&v.ty),
                    self.tn(to)
                );
                let d = Diagnostic::new(Code::InvalidCast, span, msg)
                    .with_note(format!("use `convert_{to}()` to convert the values or `as_{to}()` to reinterpret the bits"));
                self.report(d);
                Expr::error(span, node)
            }
            (Type::Pointer(p), Type::Pointer(q)) => {
                if p.space != q.space {
                    let msg = format!(
                        "casting `{}` to `{}` changes the address space of the pointer",
                        self.tn(&v.ty),
                        self.tn(to)
                    );
                    self.error(Code::AddressSpace, span, msg);
                    return Expr::error(span, node);
                }
                cast(ConvertKind::PointerCast, v, to)
            }
            (Type::Scalar(s), Type::Pointer(_)) if s.is_integer() => {
                let kind = if self.is_null_constant(&v) {
                    ConvertKind::NullToPointer
                } else {
                    ConvertKind::IntToPointer
                };
                cast(kind, v, to)
            }
            (Type::Pointer(_), Type::Scalar(Scalar::Bool)) => cast(ConvertKind::ToBool, v, to),
            (Type::Pointer(_), Type::Scalar(s)) if s.is_integer() => {
                cast(ConvertKind::PointerToInt, v, to)
            }
            (from, _) => {
                let msg = format!(
                    "invalid cast from `{}` to `{}`",
                    self.tn(&from),
                    self.tn(to)
                );
                self.error(Code::InvalidCast, span, msg);
                Expr::error(span, node)
            }
        }
    }

    fn vector_literal(
        &mut self,
        tyname: &ast::TypeName,
        elems: &[ast::Expr],
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let to = self.type_name(tyname).ty;
        let Type::Vector(e, n) = to else {
            // `(int)(a, b)`: a cast of a comma expression.
            let mut acc: Option<Expr> = None;
            for el in elems {
                let v = self.value(el);
                acc = Some(match acc {
                    None => v,
                    Some(prev) => {
                        let ty = v.ty.clone();
                        let sp = prev.span.to(v.span);
                        self.mk(
                            ExprKind::Comma {
                                lhs: Box::new(prev),
                                rhs: Box::new(v),
                            },
                            ty,
                            sp,
                            node,
                        )
                    }
                });
            }
            let Some(v) = acc else {
                return Expr::error(span, node);
            };
            if v.is_error() || to.is_error() {
                return Expr::error(span, node);
            }
            return self.explicit_convert(v, &to, span, node);
        };
        let mut out = Vec::with_capacity(elems.len());
        let mut count = 0usize;
        let mut failed = false;
        for el in elems {
            let v = self.value(el);
            if v.is_error() {
                failed = true;
                continue;
            }
            match v.ty.clone() {
                Type::Scalar(_) => {
                    count += 1;
                    out.push(self.convert_elements(v, e));
                }
                Type::Vector(f, m) if f == e => {
                    count += m as usize;
                    out.push(v);
                }
                other => {
                    let msg = format!(
                        "a `{}` literal cannot contain a component of type `{}`",
                        self.tn(&to),
                        self.tn(&other)
                    );
                    self.error(Code::TypeMismatch, v.span, msg);
                    failed = true;
                }
            }
        }
        if failed {
            return Expr::error(span, node);
        }
        if count != n as usize {
            let few = if count < n as usize {
                "too few"
            } else {
                "too many"
            };
            let msg = format!(
                "{few} elements in vector literal of type `{}`: expected {n}, found {count}",
                self.tn(&to)
            );
            self.error(Code::TypeMismatch, span, msg);
            return Expr::error(span, node);
        }
        self.mk(ExprKind::VectorConstruct { elems: out }, to, span, node)
    }

    fn size_or_align(&mut self, ty: &Type, size: bool, span: Span, node: ast::NodeId) -> Expr {
        if ty.is_error() {
            return Expr::error(span, node);
        }
        match hir::layout_of(ty, &self.unit.structs) {
            Some((s, a)) => self.mk(
                ExprKind::Int(if size { s } else { a }),
                Type::SIZE_T,
                span,
                node,
            ),
            None => {
                let what = if size { "sizeof" } else { "_Alignof" };
                let msg = format!(
                    "invalid application of `{what}` to the incomplete or opaque type `{}`",
                    self.tn(ty)
                );
                self.error(Code::TypeMismatch, span, msg);
                Expr::error(span, node)
            }
        }
    }

    fn vec_step(&mut self, ty: &Type, span: Span, node: ast::NodeId) -> Expr {
        let n = match ty {
            Type::Scalar(_) => 1,
            Type::Vector(_, 3) => 4,
            Type::Vector(_, n) => *n as u64,
            Type::Error => return Expr::error(span, node),
            other => {
                let msg = format!(
                    "`vec_step` requires a scalar or vector type (`{}` invalid)",
                    self.tn(other)
                );
                self.error(Code::TypeMismatch, span, msg);
                return Expr::error(span, node);
            }
        };
        self.mk(ExprKind::Int(n), Type::INT, span, node)
    }

    // --- calls --------------------------------------------------------------------

    fn call(
        &mut self,
        callee: &ast::Expr,
        args: &[ast::Expr],
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let mut c = callee;
        while let ast::ExprKind::Paren(inner) = &c.kind {
            c = inner;
        }
        if let ast::ExprKind::Ident(id) = &c.kind {
            match self.lookup(&id.name).map(|b| b.sym.clone()) {
                Some(Sym::Func(f)) => return self.user_call(f, id, args, span, node),
                None => return self.builtin_call(id, args, span, node),
                Some(_) => {}
            }
        }
        let v = self.expr(c);
        for a in args {
            self.value(a);
        }
        if !v.is_error() {
            let msg = format!(
                "called object of type `{}` is not a function",
                self.tn(&v.ty)
            );
            self.error(Code::NotCallable, c.span, msg);
        }
        Expr::error(span, node)
    }

    fn user_call(
        &mut self,
        f: FuncId,
        id: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let checked: Vec<Expr> = args.iter().map(|a| self.value(a)).collect();
        let (params, ret, variadic) = match self.sigs.get(f.0 as usize) {
            Some(s) => (s.params.clone(), s.ret.clone(), s.variadic),
            None => return Expr::error(span, node),
        };
        if let Some(ctx) = &mut self.func {
            if !ctx.callees.contains(&f) {
                ctx.callees.push(f);
            }
            let caller = ctx.id.0 as usize;
            if let Some(calls) = self.calls.get_mut(caller) {
                calls.push((f, span));
            }
        }
        if checked.len() != params.len() && !(variadic && checked.len() > params.len()) {
            let def = self.unit.functions[f.0 as usize].name_span;
            let msg = format!(
                "function `{}` takes {} but {} {} given",
                id.name,
                plural(params.len(), "argument"),
                checked.len(),
                if checked.len() == 1 { "was" } else { "were" }
            );
            let d = Diagnostic::new(Code::ArgCount, span, msg)
                .with_related(def, format!("`{}` is declared here", id.name));
            self.report(d);
            return Expr::error(span, node);
        }
        let mut out = Vec::with_capacity(checked.len());
        let mut failed = false;
        for (a, p) in checked.into_iter().zip(&params) {
            if a.is_error() {
                failed = true;
                continue;
            }
            let a = self.assign_convert(a, p, ConvCtx::Pass);
            failed |= a.is_error();
            out.push(a);
        }
        if failed {
            // The call still has its declared type so that checking goes on.
            return Expr {
                kind: ExprKind::Error,
                ty: ret,
                span,
                node,
                place: None,
            };
        }
        self.mk(ExprKind::Call { func: f, args: out }, ret, span, node)
    }

    fn builtin_call(
        &mut self,
        id: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let name = id.name.as_str();
        if let Some(e) = self.work_group_call(name, args, span, node) {
            return e;
        }
        if let Some(e) = self.image_call(name, args, span, node) {
            return e;
        }
        if let Some((code, msg)) = builtins::unsupported(name) {
            self.unsupported(code, id.span, msg);
            for a in args {
                self.value(a);
            }
            return Expr::error(span, node);
        }
        if name == "printf" {
            return self.printf(args, span, node);
        }
        if name == "vec_step" {
            if args.len() != 1 {
                self.arg_count(name, 1, args.len(), span);
                return Expr::error(span, node);
            }
            let v = self.expr(&args[0]);
            return self.vec_step(&v.ty, span, node);
        }
        let checked: Vec<Expr> = args.iter().map(|a| self.value(a)).collect();
        let known = Builtin::from_name(name).is_some() || builtins::is_builtin_name(name);
        if !known {
            let mut cands: Vec<&str> = builtins::all_names().collect();
            let user: Vec<String> = self.scopes[0]
                .names
                .iter()
                .filter(|(_, b)| matches!(b.sym, Sym::Func(_)))
                .map(|(n, _)| n.to_string())
                .collect();
            cands.extend(user.iter().map(String::as_str));
            let mut d = Diagnostic::new(
                Code::Undeclared,
                id.span,
                format!("use of undeclared function `{name}`"),
            );
            if let Some(s) = suggest(name, cands) {
                d = d.with_note(format!("did you mean `{s}`?"));
            }
            self.report(d);
            return Expr::error(span, node);
        }
        if checked.iter().any(Expr::is_error) {
            return Expr::error(span, node);
        }
        if let Some(b) = Builtin::from_name(name) {
            return self.table_builtin(b, id, checked, span, node);
        }
        if let Some((to, sat, rounding)) = builtins::parse_convert_name(name) {
            return self.convert_builtin(name, to, sat, rounding, checked, span, node);
        }
        if let Some(to) = builtins::parse_as_name(name) {
            return self.as_builtin(name, to, checked, span, node);
        }
        if let Some((store, n)) = builtins::parse_vload_name(name) {
            return self.vload_builtin(name, store, n, checked, span, node);
        }
        if let Some((store, h)) = builtins::parse_half_access_name(name) {
            return self.half_access_builtin(name, store, h, checked, span, node);
        }
        Expr::error(span, node)
    }

    fn arg_count(&mut self, name: &str, expected: usize, given: usize, span: Span) {
        let msg = format!(
            "function `{name}` takes {} but {given} {} given",
            plural(expected, "argument"),
            if given == 1 { "was" } else { "were" }
        );
        self.error(Code::ArgCount, span, msg);
    }

    pub(super) fn arg_types(&self, args: &[Expr]) -> String {
        let tys: Vec<String> = args
            .iter()
            .map(|a| format!("`{}`", self.tn(&a.ty)))
            .collect();
        tys.join(", ")
    }

    fn table_builtin(
        &mut self,
        b: Builtin,
        id: &ast::Ident,
        args: Vec<Expr>,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        if !b.takes(args.len()) {
            let msg = format!(
                "function `{}` takes {} but {} {} given",
                b.name(),
                plural(b.arity(), "argument"),
                args.len(),
                if args.len() == 1 { "was" } else { "were" }
            );
            let d = Diagnostic::new(Code::ArgCount, span, msg).with_note(format!(
                "candidates: {}",
                builtins::candidate_signatures(b).join(", ")
            ));
            self.report(d);
            return Expr::error(span, node);
        }
        let tys: Vec<Type> = args.iter().map(|a| a.ty.clone()).collect();
        match builtins::resolve(b, &tys) {
            Resolution::Found(call) => {
                let ret = call.ret.clone();
                match b {
                    Builtin::InfF | Builtin::HugeValF => {
                        return self.mk(ExprKind::Float(f64::INFINITY), ret, span, node)
                    }
                    Builtin::HugeVal => {
                        return self.mk(ExprKind::Float(f64::INFINITY), ret, span, node)
                    }
                    Builtin::NanF => return self.mk(ExprKind::Float(f64::NAN), ret, span, node),
                    _ => {}
                }
                let args: Vec<Expr> = args
                    .into_iter()
                    .zip(&call.params)
                    .map(|(a, p)| self.assign_convert(a, p, ConvCtx::Pass))
                    .collect();
                self.mk(
                    ExprKind::Builtin {
                        call: Box::new(call),
                        args,
                    },
                    ret,
                    span,
                    node,
                )
            }
            Resolution::NoMatch => {
                let msg = format!(
                    "no matching overload of `{}` for arguments of type ({})",
                    b.name(),
                    self.arg_types(&args)
                );
                let d = Diagnostic::new(Code::NoOverload, span, msg)
                    .with_label(format!("`{}` called here", id.name))
                    .with_note(format!(
                        "candidates: {}",
                        builtins::candidate_signatures(b).join(", ")
                    ));
                self.report(d);
                Expr::error(span, node)
            }
            Resolution::Ambiguous(cands) => {
                let msg = format!(
                    "call to `{}` is ambiguous for arguments of type ({})",
                    b.name(),
                    self.arg_types(&args)
                );
                let d = Diagnostic::new(Code::NoOverload, span, msg)
                    .with_note(format!("candidates: {}", cands.join(", ")))
                    .with_note("add a cast or a literal suffix (`1u`, `1.0f`) to choose one");
                self.report(d);
                Expr::error(span, node)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn convert_builtin(
        &mut self,
        name: &str,
        to: Type,
        sat: bool,
        rounding: builtins::Rounding,
        args: Vec<Expr>,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        if args.len() != 1 {
            self.arg_count(name, 1, args.len(), span);
            return Expr::error(span, node);
        }
        if sat && to.is_float() {
            self.error(
                Code::NoOverload,
                span,
                format!(
                    "`{name}` does not exist: saturation applies to integer destination types only"
                ),
            );
            return Expr::error(span, node);
        }
        let mut a = args.into_iter().next().expect("one argument");
        if a.ty == Type::BOOL {
            a = self.convert_elements(a, Scalar::Int);
        }
        let ok = match (&a.ty, &to) {
            (Type::Scalar(s), Type::Scalar(_)) => *s != Scalar::Bool,
            (Type::Vector(_, n), Type::Vector(_, m)) => n == m,
            _ => false,
        };
        if !ok {
            let want = to.width().unwrap_or(1);
            let msg = format!(
                "no matching overload of `{name}` for an argument of type `{}`: the source must be a {}",
                self.tn(&a.ty),
                if want == 1 { "scalar".to_string() } else { format!("{want}-component vector") }
            );
            self.error(Code::NoOverload, span, msg);
            return Expr::error(span, node);
        }
        let call = BuiltinCall {
            func: BuiltinFn::Convert {
                to: to.clone(),
                sat,
                rounding,
            },
            params: vec![a.ty.clone()],
            ret: to.clone(),
        };
        self.mk(
            ExprKind::Builtin {
                call: Box::new(call),
                args: vec![a],
            },
            to,
            span,
            node,
        )
    }

    fn as_builtin(
        &mut self,
        name: &str,
        to: Type,
        args: Vec<Expr>,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        if args.len() != 1 {
            self.arg_count(name, 1, args.len(), span);
            return Expr::error(span, node);
        }
        let a = args.into_iter().next().expect("one argument");
        let want = self.unit.size_of(&to).unwrap_or(0);
        let have = match a.ty {
            Type::Scalar(Scalar::Bool) => None,
            Type::Scalar(_) | Type::Vector(..) => self.unit.size_of(&a.ty),
            _ => None,
        };
        if have != Some(want) {
            let found = match have {
                Some(h) => format!("`{}` ({h} bytes)", self.tn(&a.ty)),
                None => format!("`{}`", self.tn(&a.ty)),
            };
            let msg = format!("invalid reinterpretation: `{name}` needs a scalar or vector operand of {want} bytes, found {found}");
            self.error(Code::NoOverload, span, msg);
            return Expr::error(span, node);
        }
        let call = BuiltinCall {
            func: BuiltinFn::As { to: to.clone() },
            params: vec![a.ty.clone()],
            ret: to.clone(),
        };
        self.mk(
            ExprKind::Builtin {
                call: Box::new(call),
                args: vec![a],
            },
            to,
            span,
            node,
        )
    }

    fn vload_builtin(
        &mut self,
        name: &str,
        store: bool,
        n: u8,
        args: Vec<Expr>,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let expected = if store { 3 } else { 2 };
        if args.len() != expected {
            self.arg_count(name, expected, args.len(), span);
            return Expr::error(span, node);
        }
        let candidates = if store {
            format!("`void {name}(gentype{n} data, size_t offset, gentype *p)` for a scalar element type `gentype` and a pointer to `__global` or `__private` memory")
        } else {
            format!("`gentype{n} {name}(size_t offset, const gentype *p)` for a scalar element type `gentype` in any address space")
        };
        let mut it = args.into_iter();
        let (data, offset, ptr) = if store {
            let d = it.next();
            (d, it.next(), it.next())
        } else {
            (None, it.next(), it.next())
        };
        let (Some(offset), Some(ptr)) = (offset, ptr) else {
            return Expr::error(span, node);
        };
        let elem = match &ptr.ty {
            Type::Pointer(p) => match p.pointee {
                Type::Scalar(s) if s != Scalar::Bool => Some((s, p.space, p.pointee_const)),
                _ => None,
            },
            _ => None,
        };
        let data_ok = match (&data, elem) {
            (Some(d), Some((s, _, _))) => d.ty == Type::Vector(s, n),
            (None, _) => true,
            _ => false,
        };
        let store_ok =
            !store || elem.is_some_and(|(_, space, c)| !c && space != AddressSpace::Constant);
        let offset_ok = offset.ty.is_integer() && !offset.ty.is_vector();
        let Some((s, _, _)) = elem.filter(|_| data_ok && store_ok && offset_ok) else {
            let mut all = Vec::new();
            if let Some(d) = &data {
                all.push(format!("`{}`", self.tn(&d.ty)));
            }
            all.push(format!("`{}`", self.tn(&offset.ty)));
            all.push(format!("`{}`", self.tn(&ptr.ty)));
            let msg = format!(
                "no matching overload of `{name}` for arguments of type ({})",
                all.join(", ")
            );
            let d = Diagnostic::new(Code::NoOverload, span, msg)
                .with_note(format!("candidates: {candidates}"));
            self.report(d);
            return Expr::error(span, node);
        };
        if s == Scalar::Half {
            self.unsupported(
                Code::UnsupportedHalf,
                span,
                format!("`half` values are not supported yet (`{name}` of `half`; `vload_half{n}` reads `half`s as `float`s)"),
            );
        }
        let offset = self.convert_elements(offset, Scalar::ULong);
        let ptr_ty = ptr.ty.clone();
        if let Some(d) = data {
            let dty = d.ty.clone();
            let call = BuiltinCall {
                func: BuiltinFn::VStore(n),
                params: vec![dty, Type::SIZE_T, ptr_ty],
                ret: Type::Void,
            };
            self.mk(
                ExprKind::Builtin {
                    call: Box::new(call),
                    args: vec![d, offset, ptr],
                },
                Type::Void,
                span,
                node,
            )
        } else {
            let ret = Type::Vector(s, n);
            let call = BuiltinCall {
                func: BuiltinFn::VLoad(n),
                params: vec![Type::SIZE_T, ptr_ty],
                ret: ret.clone(),
            };
            self.mk(
                ExprKind::Builtin {
                    call: Box::new(call),
                    args: vec![offset, ptr],
                },
                ret,
                span,
                node,
            )
        }
    }
}

impl Checker<'_> {
    /// `printf(format, args...)`: the format must be a string literal; the
    /// arguments get the default promotions and are checked against the
    /// conversions (warnings, as clang's `-Wformat`).
    fn printf(&mut self, args: &[ast::Expr], span: Span, node: ast::NodeId) -> Expr {
        let Some((first, rest)) = args.split_first() else {
            self.arg_count("printf", 1, 0, span);
            return Expr::error(span, node);
        };
        let ast::ExprKind::StringLit(format) = &first.kind else {
            let f = self.value(first);
            if !f.is_error() {
                self.error(
                    Code::TypeMismatch,
                    first.span,
                    "the format of `printf` must be a string literal",
                );
            }
            return Expr::error(span, node);
        };
        let mut out = Vec::with_capacity(rest.len());
        let mut strings = Vec::with_capacity(rest.len());
        let mut written = Vec::with_capacity(rest.len());
        let mut failed = false;
        for a in rest {
            if let ast::ExprKind::StringLit(s) = &a.kind {
                // A `%s` argument: the text is part of the call.
                strings.push(Some(s.clone()));
                written.push(Type::Error);
                out.push(self.mk(ExprKind::Int(0), Type::INT, a.span, a.id));
                continue;
            }
            strings.push(None);
            let v = self.value(a);
            failed |= v.is_error();
            written.push(v.ty.clone());
            let v = match v.ty {
                Type::Scalar(Scalar::Float | Scalar::Half) => {
                    self.convert_elements(v, Scalar::Double)
                }
                Type::Scalar(s) if s.is_integer() && s.size() < 4 || s == Scalar::Bool => {
                    self.convert_elements(v, Scalar::Int)
                }
                _ => v,
            };
            out.push(v);
        }
        let pieces = match crate::printf::parse(format) {
            Ok(p) => p,
            Err(m) => {
                self.report(Diagnostic::new(
                    Code::PrintfFormat,
                    first.span,
                    format!("invalid `printf` format: {m}"),
                ));
                Vec::new()
            }
        };
        let convs: Vec<&crate::printf::Conversion> = pieces
            .iter()
            .filter_map(|p| match p {
                crate::printf::Piece::Conv(c) => Some(c),
                crate::printf::Piece::Text(_) => None,
            })
            .collect();
        if !pieces.is_empty() || format.is_empty() {
            if convs.len() > out.len() {
                self.report(Diagnostic::new(
                    Code::PrintfFormat,
                    first.span,
                    format!(
                        "more `%` conversions than data arguments ({} conversions, {} arguments)",
                        convs.len(),
                        out.len()
                    ),
                ));
            } else if convs.len() < out.len() {
                self.report(Diagnostic::new(
                    Code::PrintfFormat,
                    rest[convs.len()].span,
                    "data argument not used by format string",
                ));
            }
            for (i, (c, a)) in convs.iter().zip(rest).enumerate() {
                if out[i].is_error() {
                    continue;
                }
                let arg = match strings[i] {
                    Some(_) => crate::printf::ArgType::String,
                    None => crate::printf::ArgType::Value {
                        written: &written[i],
                        promoted: &out[i].ty,
                    },
                };
                if let Some(m) = crate::printf::check_argument(c, arg) {
                    self.report(Diagnostic::new(Code::PrintfFormat, a.span, m));
                }
            }
        }
        if failed {
            return Expr::error(span, node);
        }
        // `%s` arguments are spliced into the format: the IR only carries
        // values.
        let mut fmt = String::new();
        let mut values = Vec::new();
        let mut k = 0;
        for p in &pieces {
            match p {
                crate::printf::Piece::Text(t) => fmt.push_str(&t.replace('%', "%%")),
                crate::printf::Piece::Conv(c) => {
                    match strings.get(k) {
                        Some(Some(s)) if c.conv == 's' => {
                            fmt.push_str(&s.replace('%', "%%"));
                        }
                        _ => {
                            let len = match c.length {
                                crate::printf::Length::None => "",
                                crate::printf::Length::Char => "hh",
                                crate::printf::Length::Short => "h",
                                crate::printf::Length::Word => "hl",
                                crate::printf::Length::Long => "l",
                            };
                            let v = c.vector.map_or(String::new(), |n| format!("v{n}"));
                            fmt.push_str(&format!("%{}{v}{len}{}", c.spec, c.conv));
                            if let Some(e) = out.get(k) {
                                values.push(e.clone());
                            }
                        }
                    }
                    k += 1;
                }
            }
        }
        let call = BuiltinCall {
            func: BuiltinFn::Printf(fmt.into()),
            params: values.iter().map(|v| v.ty.clone()).collect(),
            ret: Type::INT,
        };
        self.mk(
            ExprKind::Builtin {
                call: Box::new(call),
                args: values,
            },
            Type::INT,
            span,
            node,
        )
    }

    /// `vload_half*` / `vstore_half*`: `half` memory read as `float`s and
    /// written from `float`s or `double`s.
    fn half_access_builtin(
        &mut self,
        name: &str,
        store: bool,
        h: builtins::HalfAccess,
        args: Vec<Expr>,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let expected = if store { 3 } else { 2 };
        if args.len() != expected {
            self.arg_count(name, expected, args.len(), span);
            return Expr::error(span, node);
        }
        let n = h.n;
        let vec = |s: Scalar| {
            if n == 1 {
                Type::Scalar(s)
            } else {
                Type::Vector(s, n)
            }
        };
        let mut it = args.into_iter();
        let data = if store { it.next() } else { None };
        let (Some(offset), Some(ptr)) = (it.next(), it.next()) else {
            return Expr::error(span, node);
        };
        let ptr_ok = match &ptr.ty {
            Type::Pointer(p) => {
                p.pointee == Type::Scalar(Scalar::Half)
                    && (!store || (!p.pointee_const && p.space != AddressSpace::Constant))
            }
            _ => false,
        };
        // The data of a store: `floatN` or `doubleN` (scalars convert).
        let data = match data {
            Some(d) => {
                let elem = match &d.ty {
                    Type::Scalar(s) if n == 1 && s.is_float() && *s != Scalar::Half => Some(*s),
                    Type::Vector(s, m)
                        if *m == n && matches!(s, Scalar::Float | Scalar::Double) =>
                    {
                        Some(*s)
                    }
                    _ => None,
                };
                match elem {
                    Some(e) => Some(Ok(self.convert_elements(d, e))),
                    None => Some(Err(d)),
                }
            }
            None => None,
        };
        let offset_ok = offset.ty.is_integer() && !offset.ty.is_vector();
        let data_ok = !matches!(data, Some(Err(_)));
        if !(ptr_ok && offset_ok && data_ok) {
            let mut all = Vec::new();
            if let Some(Ok(d) | Err(d)) = &data {
                all.push(format!("`{}`", self.tn(&d.ty)));
            }
            all.push(format!("`{}`", self.tn(&offset.ty)));
            all.push(format!("`{}`", self.tn(&ptr.ty)));
            let wide = if n == 1 { String::new() } else { n.to_string() };
            let cand = if store {
                format!("`void {name}(float{wide} data, size_t offset, half *p)`, `void {name}(double{wide} data, size_t offset, half *p)` for `p` in `__global`, `__local` or `__private` memory")
            } else {
                format!("`float{wide} {name}(size_t offset, const half *p)` in any address space")
            };
            let msg = format!(
                "no matching overload of `{name}` for arguments of type ({})",
                all.join(", ")
            );
            let d = Diagnostic::new(Code::NoOverload, span, msg)
                .with_note(format!("candidates: {cand}"));
            self.report(d);
            return Expr::error(span, node);
        }
        let offset = self.convert_elements(offset, Scalar::ULong);
        let ptr_ty = ptr.ty.clone();
        let (func, params, ret, args) = match data {
            Some(Ok(d)) => (
                BuiltinFn::VStoreHalf(h),
                vec![d.ty.clone(), Type::SIZE_T, ptr_ty],
                Type::Void,
                vec![d, offset, ptr],
            ),
            _ => (
                BuiltinFn::VLoadHalf(h),
                vec![Type::SIZE_T, ptr_ty],
                vec(Scalar::Float),
                vec![offset, ptr],
            ),
        };
        let call = BuiltinCall {
            func,
            params,
            ret: ret.clone(),
        };
        self.mk(
            ExprKind::Builtin {
                call: Box::new(call),
                args,
            },
            ret,
            span,
            node,
        )
    }
}

/// The value of `true` or `false`.
pub(crate) fn bool_keyword(name: &str) -> Option<bool> {
    match name {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swizzles() {
        assert_eq!(parse_swizzle("xy", 4, "float4"), Ok(vec![0, 1]));
        assert_eq!(parse_swizzle("s0123", 4, "float4"), Ok(vec![0, 1, 2, 3]));
        assert_eq!(
            parse_swizzle("SABCD", 16, "float16"),
            Ok(vec![10, 11, 12, 13])
        );
        assert_eq!(parse_swizzle("hi", 4, "float4"), Ok(vec![2, 3]));
        assert_eq!(parse_swizzle("lo", 8, "float8"), Ok(vec![0, 1, 2, 3]));
        assert_eq!(parse_swizzle("odd", 4, "float4"), Ok(vec![1, 3]));
        assert_eq!(parse_swizzle("even", 2, "float2"), Ok(vec![0]));
        assert_eq!(parse_swizzle("hi", 3, "float3"), Ok(vec![2, 3]));
        assert_eq!(
            parse_swizzle("xxyyzzww", 4, "float4").map(|c| c.len()),
            Ok(8)
        );
        assert!(parse_swizzle("z", 2, "float2")
            .unwrap_err()
            .contains("exceeds"));
        assert!(parse_swizzle("xs1", 4, "float4")
            .unwrap_err()
            .contains("illegal vector component name `s`"));
        assert!(parse_swizzle("sx", 4, "float4")
            .unwrap_err()
            .contains("illegal vector component name `x`"));
        assert!(parse_swizzle("s5", 4, "float4")
            .unwrap_err()
            .contains("exceeds"));
        assert!(parse_swizzle("xyzwx", 4, "float4")
            .unwrap_err()
            .contains("invalid length 5"));
    }
}
