//! Floating-point contraction: `a * b + c` as one fused multiply-add, as
//! OpenCL C allows by default (`FP_CONTRACT`) and clang's OpenCL mode does
//! (`-ffp-contract=on`): only a multiply that is itself an operand of the
//! add or subtract, in one expression, never through a variable or across
//! statements, and never through a conversion. Lowered only for targets
//! with fused multiply-add ([`super::Options::fma`]), so the IR says exactly
//! what runs: the interpreter computes the `fma` with one rounding, as the
//! instruction does.
//!
//! The forms, per component (the left product first, as clang):
//! `a*b + c` → `fma(a, b, c)`, `a*b - c` → `fma(a, b, -c)`,
//! `c + a*b` → `fma(a, b, c)`, `c - a*b` → `fma(-a, b, c)`, a negated
//! product `-(a*b)` negates `a`, and `x += a*b` / `x -= a*b` fuse like
//! `x + a*b` / `x - a*b`. Negation is exact, so each is the exact result
//! rounded once.

use lanes_frontend::hir::{BinaryOp, Expr, ExprKind, UnaryOp};
use lanes_frontend::types::Type;

use super::expr::esrc;
use super::types::scalar_ty;
use super::{Lowerer, Vals};
use crate::ir::{Const, InstKind, MathFn, Src, Ty, ValueId};

/// The operands of a product of type `ty` (`a * b`, or `-(a * b)` with
/// `true`) that an add or subtract of that type may fuse.
fn product<'e>(e: &'e Expr, ty: &Type) -> Option<(&'e Expr, &'e Expr, bool)> {
    if e.ty != *ty {
        return None;
    }
    match &e.kind {
        ExprKind::Binary {
            op: BinaryOp::Mul,
            lhs,
            rhs,
        } => Some((lhs, rhs, false)),
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } => match product(operand, ty)? {
            (a, b, false) => Some((a, b, true)),
            _ => None,
        },
        _ => None,
    }
}

/// How the product and the addend of one fused multiply-add are negated.
#[derive(Clone, Copy)]
struct Signs {
    product: bool,
    addend: bool,
}

impl Lowerer<'_> {
    /// The element type of an expression of type `ty` whose add or
    /// subtract at `e` may be contracted here (`F32` or `F64`).
    fn contractible(&self, e: &Expr, op: BinaryOp, ty: &Type) -> Option<Ty> {
        if !self.opts.fma || !matches!(op, BinaryOp::Add | BinaryOp::Sub) {
            return None;
        }
        let ety = ty.element().and_then(scalar_ty)?;
        let float = matches!(ety, Ty::F32 | Ty::F64);
        (float && self.unit.contracts(e.span)).then_some(ety)
    }

    /// `lhs op rhs` (the operator expression `e`) as fused multiply-adds,
    /// or `None` when it does not contract. Operands are evaluated left to
    /// right, as without contraction.
    pub(super) fn contracted(
        &mut self,
        e: &Expr,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
    ) -> Option<Vals> {
        let ety = self.contractible(e, op, &e.ty)?;
        let sub = op == BinaryOp::Sub;
        if let Some((a, b, neg)) = product(lhs, &e.ty) {
            let (xs, ys) = (self.rvalue(a), self.rvalue(b));
            let cs = self.rvalue(rhs);
            let signs = Signs {
                product: neg,
                addend: sub,
            };
            return Some(self.fuse(xs, ys, cs, signs, ety, esrc(e)));
        }
        let (a, b, neg) = product(rhs, &e.ty)?;
        let cs = self.rvalue(lhs);
        let (xs, ys) = (self.rvalue(a), self.rvalue(b));
        let signs = Signs {
            product: neg != sub,
            addend: false,
        };
        Some(self.fuse(xs, ys, cs, signs, ety, esrc(e)))
    }

    /// The product of `x op= rhs` to fuse with the old value of `x` (in
    /// the computation type), with its lowered operands: `None` when the
    /// compound assignment `e` does not contract.
    pub(super) fn contracted_operand(
        &mut self,
        e: &Expr,
        op: BinaryOp,
        rhs: &Expr,
        computation: &Type,
    ) -> Option<(Vals, Vals, bool)> {
        self.contractible(e, op, computation)?;
        let (a, b, neg) = product(rhs, computation)?;
        let xs = self.rvalue(a);
        let ys = self.rvalue(b);
        Some((xs, ys, neg != (op == BinaryOp::Sub)))
    }

    /// One `fma` per component of `old op a*b` (see
    /// [`Lowerer::contracted_operand`]).
    pub(super) fn fuse_into(
        &mut self,
        (xs, ys, negate_product): (Vals, Vals, bool),
        old: Vals,
        ety: Ty,
        src: Src,
    ) -> Vals {
        let signs = Signs {
            product: negate_product,
            addend: false,
        };
        self.fuse(xs, ys, old, signs, ety, src)
    }

    fn fuse(&mut self, xs: Vals, ys: Vals, cs: Vals, signs: Signs, ety: Ty, src: Src) -> Vals {
        (0..cs.len())
            .map(|c| {
                let x = self.at(&xs, c, ety);
                let y = self.at(&ys, c, ety);
                let z = self.at(&cs, c, ety);
                let x = if signs.product {
                    self.negate(x, ety, src)
                } else {
                    x
                };
                let z = if signs.addend {
                    self.negate(z, ety, src)
                } else {
                    z
                };
                self.math(MathFn::Fma, vec![x, y, z], ety, src)
            })
            .collect()
    }

    /// `-v`, folded for a constant.
    fn negate(&mut self, v: ValueId, ety: Ty, src: Src) -> ValueId {
        if let Some(Const::Float(x, t)) = self.f.as_const(v) {
            return self.f.add_const(Const::Float(-x, t));
        }
        self.emit(InstKind::FNeg(v), ety, src)
    }
}

#[cfg(test)]
mod tests {
    use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
    use lanes_frontend::unit::check_text;

    use crate::interp::{run, ArgValue, NdRange};
    use crate::ir::print::{print, Plain};
    use crate::ir::Function;
    use crate::lower::{lower_kernel_with, Options};

    fn lower(src: &str, fma: bool) -> Function {
        let unit = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
        assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
        let k = unit.hir.kernels()[0];
        let f = lower_kernel_with(&unit.hir, k, &Options { fma }).expect("lowers");
        crate::ir::verify::verify(&f).expect("verifies");
        f
    }

    fn ir(src: &str) -> String {
        print(&lower(src, true), &Plain)
    }

    fn count(ir: &str, op: &str) -> usize {
        ir.lines().filter(|l| l.contains(op)).count()
    }

    #[test]
    fn every_form_of_one_expression_fuses() {
        let s = ir("kernel void k(global float *p) {
            float a = p[0], b = p[1], c = p[2];
            p[3] = a * b + c;
            p[4] = a * b - c;
            p[5] = c + a * b;
            p[6] = c - a * b;
            p[7] = -(a * b) + c;
            p[8] = (a * b + c) * a + b;
            float acc = c;
            acc += a * b;
            acc -= a * b;
            p[9] = acc;
        }");
        assert_eq!(count(&s, "= fma f32"), 9, "{s}");
        assert_eq!(count(&s, "fmul"), 0, "{s}");
        assert_eq!(count(&s, "fadd") + count(&s, "fsub"), 0, "{s}");
        // `a*b - c`, `c - a*b`, `-(a*b) + c` and `acc -= a*b` negate one
        // operand; negation is exact.
        assert_eq!(count(&s, "fneg"), 4, "{s}");
    }

    #[test]
    fn vectors_and_doubles_fuse_per_component() {
        let s = ir("kernel void k(global float4 *v, global double *d) {
            v[0] = v[1] * v[2] + v[3];
            v[4] = v[1] * 2.0f + 1.0f;
            d[0] = d[1] * d[2] - d[3];
        }");
        assert_eq!(count(&s, "= fma f32"), 8, "{s}");
        assert_eq!(count(&s, "= fma f64"), 1, "{s}");
        assert_eq!(count(&s, "fmul"), 0, "{s}");
    }

    #[test]
    fn nothing_fuses_across_statements_conversions_or_pragmas() {
        let s = ir(
            "kernel void k(global float *p, global double *d, global int *n) {
            float t = p[0] * p[1];
            p[2] = t + p[3];
            d[0] = (double)(p[0] * p[1]) + d[1];
            n[0] = n[1] * n[2] + n[3];
            p[4] = p[0] * p[1] * p[2];
            {
                #pragma OPENCL FP_CONTRACT OFF
                p[5] = p[0] * p[1] + p[2];
            }
        }",
        );
        assert_eq!(count(&s, "fma"), 0, "{s}");
        assert_eq!(count(&s, "fmul"), 5, "{s}");
    }

    #[test]
    fn targets_without_fma_keep_multiply_and_add() {
        let src = "kernel void k(global float *p) { p[0] = p[1] * p[2] + p[3]; }";
        let s = print(&lower(src, false), &Plain);
        assert_eq!(count(&s, "fma"), 0, "{s}");
        assert_eq!(count(&s, "fmul"), 1, "{s}");
        assert_eq!(count(&s, "fadd"), 1, "{s}");
    }

    #[test]
    fn the_interpreter_rounds_a_contracted_expression_once() {
        // c is a*b rounded, so a*b - c is the rounding error of the product
        // when fused and exactly 0 when not.
        let src = "kernel void k(global float *p) {
            uint i = get_global_id(0);
            p[i] = p[i] * p[i] - p[4 + i];
        }";
        let a = [1.0f32 + f32::EPSILON, 3.1f32, 0.7f32, 1.0f32];
        let mut bytes: Vec<u8> = Vec::new();
        for x in a
            .iter()
            .chain(a.iter().map(|x| x * x).collect::<Vec<_>>().iter())
        {
            bytes.extend(x.to_le_bytes());
        }
        for fma in [true, false] {
            let f = lower(src, fma);
            let mut args = [ArgValue::Buffer(bytes.clone())];
            run(&f, &NdRange::new_1d(4, 4), &mut args, 4).expect("runs");
            let ArgValue::Buffer(out) = &args[0] else {
                panic!("not a buffer")
            };
            for (i, x) in a.iter().enumerate() {
                let got = f32::from_le_bytes(out[4 * i..4 * i + 4].try_into().unwrap());
                let want = if fma { x.mul_add(*x, -(x * x)) } else { 0.0 };
                assert_eq!(got.to_bits(), want.to_bits(), "fma {fma}, a = {x}");
            }
        }
        // The cancellation is visible: (1 + e)^2 - round((1 + e)^2) = e^2.
        let e = f32::EPSILON;
        assert_eq!((1.0 + e).mul_add(1.0 + e, -((1.0 + e) * (1.0 + e))), e * e);
    }
}
