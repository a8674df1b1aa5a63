//! Work-group built-ins: barriers, fences, atomics, asynchronous copies.
//!
//! - `barrier`/`work_group_barrier` become [`InstKind::Barrier`] with the
//!   fence flags of their argument (both memories when it is not a
//!   constant).
//! - Fences (`mem_fence`, `read_mem_fence`, `write_mem_fence`,
//!   `atomic_work_item_fence`) lower to nothing but their arguments: a
//!   fence only orders one work-item's own accesses as other work-items see
//!   them, and within one work-item the IR already runs in program order.
//!   What other work-items may observe between barriers is the business of
//!   the barriers and atomics around it.
//! - Atomics become [`InstKind::Atomic`] (`atomic_inc`/`dec` are `Add`/`Sub`
//!   of 1, `atomic_init` a plain store); memory orders and scopes are
//!   evaluated and otherwise ignored (the reference semantics run one atomic
//!   at a time, which every order allows).
//! - `async_work_group_copy` is the loop every work-item of the group runs
//!   over its linear local id, `for (i = lid; i < n; i += local_size)`; the
//!   copy is complete at the `wait_group_events` that follows, which is a
//!   barrier on both memories. `prefetch` is a hint: only its arguments are
//!   evaluated.

use lanes_frontend::ast::AddressSpace;
use lanes_frontend::hir::Expr;
use lanes_frontend::workgroup::{AtomicFn, WorkGroupFn};

/// The label of the header of the loop an asynchronous copy expands to:
/// the report shows no loop there (the user wrote a call, and the copy is
/// one operation of the work-group).
pub const ASYNC_COPY_LOOP: &str = "async.cond";

use super::expr::esrc;
use super::types::scalar_ty;
use super::{Lowerer, Vals};
use crate::ir::{fence, AtomicOp, CastOp, CmpPred, InstKind, Src, Ty, ValueId, WorkItem};

impl Lowerer<'_> {
    pub(super) fn work_group_builtin(&mut self, e: &Expr, f: WorkGroupFn, args: &[Expr]) -> Vals {
        let src = esrc(e);
        // Arguments left to right, as every other call.
        let vals: Vec<Vals> = args.iter().map(|a| self.rvalue(a)).collect();
        match f {
            WorkGroupFn::Barrier => {
                let flags = match vals.first().and_then(|v| v.first()) {
                    Some(&v) => match self.f.as_const(v) {
                        Some(crate::ir::Const::Int(bits, _)) => {
                            (bits as u32) & (fence::LOCAL | fence::GLOBAL | fence::IMAGE)
                        }
                        _ => fence::LOCAL | fence::GLOBAL,
                    },
                    None => fence::LOCAL | fence::GLOBAL,
                };
                self.emit_void(InstKind::Barrier { flags }, src);
                Vec::new()
            }
            WorkGroupFn::Fence | WorkGroupFn::Prefetch => Vec::new(),
            WorkGroupFn::WaitGroupEvents => {
                self.emit_void(
                    InstKind::Barrier {
                        flags: fence::LOCAL | fence::GLOBAL,
                    },
                    src,
                );
                Vec::new()
            }
            WorkGroupFn::Atomic(op) => self.atomic(e, op, args, &vals),
            WorkGroupFn::AsyncCopy { strided } => self.async_copy(e, strided, args, &vals),
        }
    }

    fn atomic(&mut self, e: &Expr, op: AtomicFn, args: &[Expr], vals: &[Vals]) -> Vals {
        let src = esrc(e);
        let Some(p) = args.first().and_then(|a| a.ty.pointee()) else {
            return self.bad_work_group_call(e);
        };
        let space = p.space;
        let Some(elem) = p.pointee.scalar() else {
            return self.bad_work_group_call(e);
        };
        let Some(ty) = scalar_ty(elem) else {
            return self.bad_work_group_call(e);
        };
        let ptr = match vals.first() {
            Some(v) => self.first(v, Ty::Ptr(space)),
            None => self.undef(Ty::Ptr(space)),
        };
        let operand = |this: &mut Self, k: usize| -> ValueId {
            match vals.get(k) {
                Some(v) => this.first(v, ty),
                None => this.undef(ty),
            }
        };
        let signed = elem.is_signed();
        let rmw = |this: &mut Self, op: AtomicOp, args: Vec<ValueId>| -> ValueId {
            this.emit(InstKind::Atomic { op, ptr, args }, ty, src)
        };
        let v = match op {
            AtomicFn::Add
            | AtomicFn::Sub
            | AtomicFn::Xchg
            | AtomicFn::And
            | AtomicFn::Or
            | AtomicFn::Xor
            | AtomicFn::Min
            | AtomicFn::Max => {
                let aop = match op {
                    AtomicFn::Add => AtomicOp::Add,
                    AtomicFn::Sub => AtomicOp::Sub,
                    AtomicFn::Xchg => AtomicOp::Xchg,
                    AtomicFn::And => AtomicOp::And,
                    AtomicFn::Or => AtomicOp::Or,
                    AtomicFn::Xor => AtomicOp::Xor,
                    AtomicFn::Min if signed => AtomicOp::SMin,
                    AtomicFn::Min => AtomicOp::UMin,
                    _ if signed => AtomicOp::SMax,
                    _ => AtomicOp::UMax,
                };
                let x = operand(self, 1);
                rmw(self, aop, vec![x])
            }
            AtomicFn::Inc | AtomicFn::Dec => {
                let aop = if op == AtomicFn::Inc {
                    AtomicOp::Add
                } else {
                    AtomicOp::Sub
                };
                let one = self.const_int(1, ty);
                rmw(self, aop, vec![one])
            }
            AtomicFn::CmpXchg => {
                let (cmp, new) = (operand(self, 1), operand(self, 2));
                rmw(self, AtomicOp::CmpXchg, vec![cmp, new])
            }
            AtomicFn::Load => rmw(self, AtomicOp::Load, Vec::new()),
            AtomicFn::Store | AtomicFn::FlagClear => {
                let x = if op == AtomicFn::Store {
                    operand(self, 1)
                } else {
                    self.zero(ty)
                };
                self.emit_void(
                    InstKind::Atomic {
                        op: AtomicOp::Store,
                        ptr,
                        args: vec![x],
                    },
                    src,
                );
                return Vec::new();
            }
            AtomicFn::Init => {
                // Not atomic (C11 `atomic_init`).
                let x = operand(self, 1);
                self.emit_void(
                    InstKind::Store {
                        ptr,
                        value: x,
                        align: ty.bytes(),
                    },
                    src,
                );
                return Vec::new();
            }
            AtomicFn::FlagTestAndSet => {
                let one = self.const_int(1, ty);
                let old = rmw(self, AtomicOp::Xchg, vec![one]);
                let zero = self.zero(ty);
                let set = self.cmp(CmpPred::Ne, old, zero, src);
                return vec![self.widen_bool(set, &e.ty, src)];
            }
            AtomicFn::CompareExchange => {
                // `*expected` receives the value found: on success that is
                // `*expected` itself, so one unconditional store suffices.
                let Some(ep) = args.get(1).and_then(|a| a.ty.pointee()) else {
                    return self.bad_work_group_call(e);
                };
                let eptr = match vals.get(1) {
                    Some(v) => self.first(v, Ty::Ptr(ep.space)),
                    None => self.undef(Ty::Ptr(ep.space)),
                };
                let expected = self.emit(
                    InstKind::Load {
                        ptr: eptr,
                        align: ty.bytes(),
                    },
                    ty,
                    src,
                );
                let desired = operand(self, 2);
                let old = rmw(self, AtomicOp::CmpXchg, vec![expected, desired]);
                let ok = self.same_bits(old, expected, ty, src);
                self.emit_void(
                    InstKind::Store {
                        ptr: eptr,
                        value: old,
                        align: ty.bytes(),
                    },
                    src,
                );
                return vec![self.widen_bool(ok, &e.ty, src)];
            }
        };
        vec![v]
    }

    /// `a == b` on the bits (a float compare-exchange compares
    /// representations, as the hardware does).
    fn same_bits(&mut self, a: ValueId, b: ValueId, ty: Ty, src: Src) -> ValueId {
        if ty.is_float() {
            let ity = if ty == Ty::F64 { Ty::I64 } else { Ty::I32 };
            let a = self.cast(CastOp::Bitcast, a, ity, src);
            let b = self.cast(CastOp::Bitcast, b, ity, src);
            self.cmp(CmpPred::Eq, a, b, src)
        } else {
            self.cmp(CmpPred::Eq, a, b, src)
        }
    }

    /// The work-item's local id linearized over the three dimensions, and
    /// the number of work-items of the group (both `i64`).
    fn linear_local_id(&mut self, src: Src) -> (ValueId, ValueId) {
        let mut id: Option<ValueId> = None;
        let mut size: Option<ValueId> = None;
        for d in 0..3 {
            let dim = self.const_int(d, Ty::I32);
            let lid = self.emit(
                InstKind::WorkItem {
                    query: WorkItem::LocalId,
                    dim: Some(dim),
                },
                Ty::I64,
                src,
            );
            let lsz = self.emit(
                InstKind::WorkItem {
                    query: WorkItem::LocalSize,
                    dim: Some(dim),
                },
                Ty::I64,
                src,
            );
            // id = lid0 + lsz0 * (lid1 + lsz1 * lid2), built outward in.
            id = Some(match (id, size) {
                (Some(i), Some(s)) => {
                    let scaled = self.bin(crate::ir::BinOp::Mul, lid, s, src);
                    self.bin(crate::ir::BinOp::Add, i, scaled, src)
                }
                _ => lid,
            });
            size = Some(match size {
                Some(s) => self.bin(crate::ir::BinOp::Mul, s, lsz, src),
                None => lsz,
            });
        }
        match (id, size) {
            (Some(i), Some(s)) => (i, s),
            _ => (self.undef(Ty::I64), self.undef(Ty::I64)),
        }
    }

    /// `async_work_group_copy(dst, src, n, event)` and the strided form:
    /// `for (i = lid; i < n; i += local_size)` copy element `i` (the
    /// `__global` side at `i * stride`); the result is the event argument.
    fn async_copy(&mut self, e: &Expr, strided: bool, args: &[Expr], vals: &[Vals]) -> Vals {
        let src = esrc(e);
        let (Some(dp), Some(sp)) = (
            args.first().and_then(|a| a.ty.pointee()),
            args.get(1).and_then(|a| a.ty.pointee()),
        ) else {
            return self.bad_work_group_call(e);
        };
        let elem_ty = dp.pointee.clone();
        let (dspace, sspace) = (dp.space, sp.space);
        let size = self.size_of(&elem_ty, e.span);
        let get = |this: &mut Self, k: usize, ty: Ty| -> ValueId {
            match vals.get(k) {
                Some(v) => this.first(v, ty),
                None => this.undef(ty),
            }
        };
        let dst = get(self, 0, Ty::Ptr(dspace));
        let from = get(self, 1, Ty::Ptr(sspace));
        let n = get(self, 2, Ty::I64);
        let stride = if strided {
            get(self, 3, Ty::I64)
        } else {
            self.const_int(1, Ty::I64)
        };
        let event_index = if strided { 4 } else { 3 };
        let event = match (args.get(event_index), vals.get(event_index)) {
            (Some(a), Some(v)) if a.ty.is_integer() => match v.first() {
                Some(&x) => {
                    let t = self.ty(x);
                    self.convert_int(x, t, Ty::I64, false, src)
                }
                None => self.undef(Ty::I64),
            },
            (_, Some(v)) => self.first(v, Ty::I64),
            _ => self.const_int(0, Ty::I64),
        };

        let (lid, lsize) = self.linear_local_id(src);
        let i = self.new_ssa_var(Ty::I64, None);
        self.assign_var(i, lid);
        let header = self.new_block(ASYNC_COPY_LOOP, src);
        let body = self.new_block("async.body", src);
        let end = self.new_block("async.end", src);
        self.jump(header, src);
        self.cur = header;
        let iv = self.use_var(i);
        let more = self.cmp(CmpPred::Ult, iv, n, src);
        self.cond_br(more, body, end, src);
        self.seal(body);
        self.cur = body;
        let iv = self.use_var(i);
        let strided_i = self.bin(crate::ir::BinOp::Mul, iv, stride, src);
        // The `__global` side is the strided one.
        let (di, si) = if dspace == AddressSpace::Local {
            (iv, strided_i)
        } else {
            (strided_i, iv)
        };
        let doff = self.scale_index(di, size, false, src);
        let soff = self.scale_index(si, size, false, src);
        let dptr = self.ptr_add(dst, doff, src);
        let sptr = self.ptr_add(from, soff, src);
        let elems = self.load_vals(sptr, &elem_ty, src);
        self.store_vals(dptr, &elem_ty, &elems, src);
        let next = self.bin(crate::ir::BinOp::Add, iv, lsize, src);
        self.assign_var(i, next);
        self.jump(header, src);
        self.seal(header);
        self.seal(end);
        self.cur = end;
        vec![event]
    }

    fn bad_work_group_call(&mut self, e: &Expr) -> Vals {
        self.error(
            e.span,
            "internal error: a work-group built-in with unexpected arguments",
        );
        self.undef_vals(&e.ty, e.span)
    }
}
