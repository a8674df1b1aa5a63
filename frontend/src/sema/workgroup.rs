//! Type checking of the work-group built-ins ([`crate::workgroup`]):
//! barriers and fences, atomics, asynchronous copies. Their overloads hang
//! on address spaces and optional memory-order arguments, so they are
//! checked by rule, the way clang's `opencl-c.h` declares them.

use super::conv::ConvCtx;
use super::Checker;
use crate::ast;
use crate::builtins::{BuiltinCall, BuiltinFn};
use crate::diag::{Code, Diagnostic};
use crate::hir::{Expr, ExprKind};
use crate::source::Span;
use crate::types::{AddressSpace, Opaque, Scalar, Type};
use crate::workgroup::{self, AtomicFamily, AtomicFn, WorkGroupFn};

/// The checked arguments of a call and its result type.
type Checked = Option<(Vec<Expr>, Type)>;

impl Checker<'_> {
    /// A call of a work-group built-in; `None` when `name` is not one.
    pub(super) fn work_group_call(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
        node: ast::NodeId,
    ) -> Option<Expr> {
        let f = workgroup::parse(name)?;
        let args: Vec<Expr> = args.iter().map(|a| self.value(a)).collect();
        if args.iter().any(Expr::is_error) {
            return Some(Expr::error(span, node));
        }
        let checked = match f {
            WorkGroupFn::Barrier | WorkGroupFn::Fence => self.fence_call(name, args, span),
            WorkGroupFn::Atomic(op) => {
                let family = workgroup::parse_atomic(name).map_or(AtomicFamily::V11, |p| p.1);
                self.atomic_call(name, op, family, args, span)
            }
            WorkGroupFn::AsyncCopy { strided } => self.async_copy_call(name, strided, args, span),
            WorkGroupFn::WaitGroupEvents => self.wait_group_events_call(name, args, span),
            WorkGroupFn::Prefetch => self.prefetch_call(name, args, span),
        };
        let Some((args, ret)) = checked else {
            return Some(Expr::error(span, node));
        };
        let call = BuiltinCall {
            func: BuiltinFn::WorkGroup(f),
            params: args.iter().map(|a| a.ty.clone()).collect(),
            ret: ret.clone(),
        };
        Some(self.mk(
            ExprKind::Builtin {
                call: Box::new(call),
                args,
            },
            ret,
            span,
            node,
        ))
    }

    fn wrong_arg_count(&mut self, name: &str, want: &str, given: usize, span: Span) {
        let msg = format!(
            "function `{name}` takes {want} but {given} {} given",
            if given == 1 { "was" } else { "were" }
        );
        self.error(Code::ArgCount, span, msg);
    }

    /// An integer scalar argument (flags, orders, scopes, counts) converted
    /// to `to`.
    fn integer_arg(&mut self, name: &str, what: &str, a: Expr, to: Scalar) -> Option<Expr> {
        if !matches!(a.ty, Type::Scalar(s) if s.is_integer() || s == Scalar::Bool) {
            let msg = format!(
                "the {what} argument of `{name}` must be an integer, found `{}`",
                self.tn(&a.ty)
            );
            self.error(Code::NoOverload, a.span, msg);
            return None;
        }
        Some(self.convert_elements(a, to))
    }

    /// `barrier(flags)`, `work_group_barrier(flags[, scope])`, the fences.
    fn fence_call(&mut self, name: &str, args: Vec<Expr>, span: Span) -> Checked {
        let counts: &[usize] = match name {
            "work_group_barrier" => &[1, 2],
            "atomic_work_item_fence" => &[3],
            _ => &[1],
        };
        if !counts.contains(&args.len()) {
            let want = match counts {
                [1, 2] => "1 or 2 arguments".to_string(),
                [n] if *n == 1 => "1 argument".to_string(),
                [n, ..] => format!("{n} arguments"),
                [] => String::new(),
            };
            self.wrong_arg_count(name, &want, args.len(), span);
            return None;
        }
        let mut out = Vec::with_capacity(args.len());
        for (i, a) in args.into_iter().enumerate() {
            let (what, to) = match i {
                0 => ("flags", Scalar::UInt),
                1 if name == "atomic_work_item_fence" => ("memory order", Scalar::Int),
                _ => ("memory scope", Scalar::Int),
            };
            out.push(self.integer_arg(name, what, a, to)?);
        }
        Some((out, Type::Void))
    }

    /// The atomics of OpenCL C 1.0, 1.1 and 2.0.
    fn atomic_call(
        &mut self,
        name: &str,
        op: AtomicFn,
        family: AtomicFamily,
        args: Vec<Expr>,
        span: Span,
    ) -> Checked {
        let base = 1 + op.operands();
        let counts: Vec<usize> = match family {
            AtomicFamily::V20 { explicit: true } => {
                vec![base + op.orders(), base + op.orders() + 1]
            }
            _ => vec![base],
        };
        if !counts.contains(&args.len()) {
            let want = match counts.as_slice() {
                [n] => plural_args(*n),
                [a, b] => format!("{a} or {}", plural_args(*b)),
                _ => String::new(),
            };
            self.wrong_arg_count(name, &want, args.len(), span);
            return None;
        }
        let mut it = args.into_iter();
        let ptr = it.next()?;
        let elem = self.atomic_object(name, op, family, &ptr)?;
        let elem_ty = Type::Scalar(elem);
        let mut out = vec![ptr];
        if op == AtomicFn::CompareExchange {
            let expected = it.next()?;
            let ok = matches!(&expected.ty, Type::Pointer(p) if p.pointee == elem_ty && !p.pointee_const);
            if !ok {
                let msg = format!(
                    "the `expected` argument of `{name}` must point to a `{}`, found `{}`",
                    self.tn(&elem_ty),
                    self.tn(&expected.ty)
                );
                self.error(Code::NoOverload, expected.span, msg);
                return None;
            }
            out.push(expected);
        }
        while out.len() < base {
            let v = it.next()?;
            let v = self.assign_convert(v, &elem_ty, ConvCtx::Pass);
            if v.is_error() {
                return None;
            }
            out.push(v);
        }
        for (i, a) in it.enumerate() {
            let what = if i < op.orders() {
                "memory order"
            } else {
                "memory scope"
            };
            out.push(self.integer_arg(name, what, a, Scalar::Int)?);
        }
        let ret = match op {
            AtomicFn::Store | AtomicFn::Init | AtomicFn::FlagClear => Type::Void,
            AtomicFn::CompareExchange | AtomicFn::FlagTestAndSet => Type::BOOL,
            _ => elem_ty,
        };
        Some((out, ret))
    }

    /// The element type of the object an atomic's pointer argument points
    /// to, after checking its address space (`L0016` at the argument) and
    /// type.
    fn atomic_object(
        &mut self,
        name: &str,
        op: AtomicFn,
        family: AtomicFamily,
        ptr: &Expr,
    ) -> Option<Scalar> {
        let Type::Pointer(p) = &ptr.ty else {
            let msg = format!(
                "the first argument of `{name}` must be a pointer to the atomic object, found `{}`",
                self.tn(&ptr.ty)
            );
            self.error(Code::NoOverload, ptr.span, msg);
            return None;
        };
        if !matches!(
            p.space,
            AddressSpace::Global | AddressSpace::Local | AddressSpace::Generic
        ) {
            let msg = format!(
                "`{name}` needs a pointer to `__global` or `__local` memory, found `{}`",
                self.tn(&ptr.ty)
            );
            let d = Diagnostic::new(Code::AddressSpace, ptr.span, msg).with_note(
                "atomics act on memory shared by work-items; private memory belongs to one work-item",
            );
            self.report(d);
            return None;
        }
        use Scalar::*;
        let (allowed, list): (&[Scalar], &str) = match (family, op) {
            (AtomicFamily::V20 { .. }, AtomicFn::FlagTestAndSet | AtomicFn::FlagClear) => {
                (&[Int], "`atomic_flag`")
            }
            (
                AtomicFamily::V20 { .. },
                AtomicFn::Load
                | AtomicFn::Store
                | AtomicFn::Init
                | AtomicFn::Xchg
                | AtomicFn::CompareExchange,
            ) => (
                &[Int, UInt, Long, ULong, Float, Double],
                "`atomic_int`, `atomic_uint`, `atomic_long`, `atomic_ulong`, `atomic_float` or `atomic_double`",
            ),
            (AtomicFamily::V20 { .. }, _) => (
                &[Int, UInt, Long, ULong],
                "`atomic_int`, `atomic_uint`, `atomic_long` or `atomic_ulong`",
            ),
            (AtomicFamily::V10, _) => (
                &[Int, UInt, Long, ULong],
                "`int`, `uint`, `long` or `ulong` (64-bit under `cl_khr_int64_base_atomics`)",
            ),
            (AtomicFamily::V11, AtomicFn::Xchg) => (&[Int, UInt, Float], "`int`, `uint` or `float`"),
            (AtomicFamily::V11, _) => (&[Int, UInt], "`int` or `uint`"),
        };
        let elem = match &p.pointee {
            Type::Scalar(s) if allowed.contains(s) => Some(*s),
            _ => None,
        };
        match elem {
            Some(s) if !p.pointee_const => Some(s),
            _ => {
                let what = if elem.is_some() {
                    "points to a `const` object".to_string()
                } else {
                    format!("must point to {list}")
                };
                let msg = format!(
                    "no matching overload of `{name}`: the pointer argument {what}, found `{}`",
                    self.tn(&ptr.ty)
                );
                self.error(Code::NoOverload, ptr.span, msg);
                None
            }
        }
    }

    /// `async_work_group_copy(dst, src, num, event)` and the strided form,
    /// in either direction between `__local` and `__global` memory.
    fn async_copy_call(
        &mut self,
        name: &str,
        strided: bool,
        args: Vec<Expr>,
        span: Span,
    ) -> Checked {
        let want = if strided { 5 } else { 4 };
        if args.len() != want {
            self.wrong_arg_count(name, &plural_args(want), args.len(), span);
            return None;
        }
        let mut it = args.into_iter();
        let (dst, src) = (it.next()?, it.next()?);
        let ok = match (&dst.ty, &src.ty) {
            (Type::Pointer(d), Type::Pointer(s)) => {
                let spaces = matches!(
                    (d.space, s.space),
                    (AddressSpace::Local, AddressSpace::Global)
                        | (AddressSpace::Global, AddressSpace::Local)
                );
                spaces && d.pointee == s.pointee && !d.pointee_const && copy_element(&d.pointee)
            }
            _ => false,
        };
        if !ok {
            let msg = format!(
                "no matching overload of `{name}` for a destination of type `{}` and a source of type `{}`",
                self.tn(&dst.ty),
                self.tn(&src.ty)
            );
            let d = Diagnostic::new(Code::NoOverload, span, msg).with_note(
                "candidates copy `gentype` elements from `const __global gentype *` to `__local gentype *` or from `const __local gentype *` to `__global gentype *`",
            );
            self.report(d);
            return None;
        }
        let mut out = vec![dst, src];
        let num = it.next()?;
        out.push(self.integer_arg(name, "element count", num, Scalar::ULong)?);
        if strided {
            let stride = it.next()?;
            out.push(self.integer_arg(name, "stride", stride, Scalar::ULong)?);
        }
        out.push(self.event_arg(name, it.next()?)?);
        Some((out, EVENT))
    }

    /// An `event_t` argument, or the constant 0 (no event to chain to).
    fn event_arg(&mut self, name: &str, e: Expr) -> Option<Expr> {
        if e.ty == EVENT {
            return Some(e);
        }
        if e.ty.is_integer() && !e.ty.is_vector() && self.eval(&e).is_some_and(|v| v.is_zero()) {
            return Some(e);
        }
        let msg = format!(
            "the event argument of `{name}` must be an `event_t` or 0, found `{}`",
            self.tn(&e.ty)
        );
        self.error(Code::NoOverload, e.span, msg);
        None
    }

    /// `wait_group_events(num_events, event_list)`.
    fn wait_group_events_call(&mut self, name: &str, args: Vec<Expr>, span: Span) -> Checked {
        if args.len() != 2 {
            self.wrong_arg_count(name, "2 arguments", args.len(), span);
            return None;
        }
        let mut it = args.into_iter();
        let num = self.integer_arg(name, "event count", it.next()?, Scalar::Int)?;
        let list = it.next()?;
        if !matches!(&list.ty, Type::Pointer(p) if p.pointee == EVENT) {
            let msg = format!(
                "the event list of `{name}` must be an `event_t *`, found `{}`",
                self.tn(&list.ty)
            );
            self.error(Code::NoOverload, list.span, msg);
            return None;
        }
        Some((vec![num, list], Type::Void))
    }

    /// `prefetch(const __global gentype *p, size_t num_gentypes)`.
    fn prefetch_call(&mut self, name: &str, args: Vec<Expr>, span: Span) -> Checked {
        if args.len() != 2 {
            self.wrong_arg_count(name, "2 arguments", args.len(), span);
            return None;
        }
        let mut it = args.into_iter();
        let p = it.next()?;
        let ok = matches!(&p.ty, Type::Pointer(q) if q.space == AddressSpace::Global && copy_element(&q.pointee));
        if !ok {
            let msg = format!(
                "the first argument of `{name}` must be a `const __global gentype *`, found `{}`",
                self.tn(&p.ty)
            );
            self.error(Code::NoOverload, p.span, msg);
            return None;
        }
        let num = self.integer_arg(name, "element count", it.next()?, Scalar::ULong)?;
        Some((vec![p, num], Type::Void))
    }
}

const EVENT: Type = Type::Opaque(Opaque::Event, "event_t");

/// `gentype` of the copy built-ins: scalars and vectors of the integer and
/// floating-point types.
fn copy_element(t: &Type) -> bool {
    match t {
        Type::Scalar(s) | Type::Vector(s, _) => !matches!(s, Scalar::Bool | Scalar::Half),
        _ => false,
    }
}

fn plural_args(n: usize) -> String {
    if n == 1 {
        "1 argument".into()
    } else {
        format!("{n} arguments")
    }
}
