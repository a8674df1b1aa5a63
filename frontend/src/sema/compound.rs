//! C99 compound literals, `(struct range){ .lo = a, .hi = b }` and
//! `((float[]){ 0.25f, 0.5f, 0.25f })[i]`: an unnamed object with automatic
//! storage in the enclosing block, initialized like a declaration of that
//! type each time the expression is evaluated. The object is a new private
//! local of the function; the expression is an lvalue of it (arrays decay
//! as every array does).

use super::Checker;
use crate::ast::{self, AddressSpace};
use crate::diag::Code;
use crate::hir::{self, Expr, ExprKind, LocalId, Place};
use crate::source::Span;

impl Checker<'_> {
    pub(super) fn compound_literal(
        &mut self,
        tyname: &ast::TypeName,
        init: &ast::Initializer,
        span: Span,
        node: ast::NodeId,
    ) -> Expr {
        let q = self.type_name(tyname);
        if q.ty.is_error() {
            return Expr::error(span, node);
        }
        if let Some((space, at)) = q.space {
            if space != AddressSpace::Private {
                self.error(
                    Code::AddressSpace,
                    at,
                    "a compound literal in a function is a private object; it cannot be in another address space",
                );
                return Expr::error(span, node);
            }
        }
        if self.func.is_none() {
            self.error(
                Code::InvalidDeclaration,
                span,
                "compound literals outside a function are not supported (use a `__constant` variable)",
            );
            return Expr::error(span, node);
        }
        let what = ast::Ident {
            name: "compound literal".into(),
            span: tyname.span,
        };
        let before = self.diags.len();
        self.check_object_type(&q.ty, &what);
        if self.diags.len() > before {
            // Incomplete (or `half`): the initializer cannot be checked.
            return Expr::error(span, node);
        }
        let (checked, ty) = self.initializer(&q.ty, init);
        let Some(checked) = checked else {
            return Expr::error(span, node);
        };
        let Some(ctx) = self.func.as_mut() else {
            return Expr::error(span, node);
        };
        let local = LocalId(ctx.locals.len() as u32);
        ctx.locals.push(hir::Local {
            name: "compound literal".into(),
            ty: ty.clone(),
            span,
            name_span: tyname.span,
            node,
            is_const: q.is_const,
            is_param: false,
            space: AddressSpace::Private,
        });
        Expr {
            kind: ExprKind::CompoundLiteral {
                local,
                init: Box::new(checked),
            },
            ty,
            span,
            node,
            place: Some(Place {
                space: AddressSpace::Private,
                is_const: q.is_const,
            }),
        }
    }
}
