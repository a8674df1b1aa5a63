//! Atomic operations (OpenCL's `atomic_*`, `atom_*`, `atomic_fetch_*`).
//!
//! `__global` memory is shared with the threads running other work-groups:
//! each active lane does one sequentially consistent atomic, in lane order.
//! `__local` memory belongs to one work-group, whose SIMD groups all run on
//! one thread one after another, so plain loads and stores in lane order are
//! atomic there.
//!
//! When every lane updates one address (a uniform pointer) with `add`,
//! `sub`, `min` or `max`, the SIMD group combines its values first and does
//! one memory operation; each lane's result is the old value combined with
//! the values of the active lanes before it (an exclusive scan), which is
//! what the lanes would have seen one after another in lane order.

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::LLVMAtomicOrdering;
use inkwell::llvm_sys::{LLVMIntPredicate as IP, LLVMOpcode as Op};
use inkwell::types::BasicTypeEnum;
use inkwell::values::{AsValueRef, BasicValue, BasicValueEnum};
use inkwell::{AtomicOrdering, AtomicRMWBinOp};

use lanes_frontend::ast::AddressSpace;
use lanes_vectorizer::ir::{
    AtomicOp, BinOp, BlockId, CastOp, InstId, InstKind, ReduceOp, Ty, ValueId,
};

use super::{combine, int_reduce, llty, FnGen};
use crate::ll::{bv, vec_of, R};

fn be<T>(r: Result<T, inkwell::builder::BuilderError>) -> R<T> {
    r.map_err(|e| format!("{e:?}"))
}

/// The reduction that combines the values of lanes updating one address
/// with `op`, if there is one.
fn combining(op: AtomicOp) -> Option<ReduceOp> {
    match op {
        AtomicOp::Add | AtomicOp::Sub => Some(ReduceOp::Add),
        AtomicOp::SMin => Some(ReduceOp::SMin),
        AtomicOp::SMax => Some(ReduceOp::SMax),
        AtomicOp::UMin => Some(ReduceOp::UMin),
        AtomicOp::UMax => Some(ReduceOp::UMax),
        _ => None,
    }
}

/// Lane addresses `base + ext(index[l]) * scale` (see
/// [`FnGen::narrow_index`]).
struct NarrowIndex<'ctx> {
    base: BasicValueEnum<'ctx>,
    index: BasicValueEnum<'ctx>,
    /// The IR value of `index`.
    index_id: ValueId,
    ext: Op,
    scale: u64,
}

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// Emits atomic `op` of instruction in block `b`; returns the old
    /// values (none for `Store`).
    pub(super) fn atomic(
        &mut self,
        b: BlockId,
        id: InstId,
        op: AtomicOp,
        ptr: ValueId,
        args: &[ValueId],
        ty: Ty,
    ) -> R<Option<BasicValueEnum<'ctx>>> {
        let f = self.f;
        if args.len() != op.arity() {
            return Err(format!("atomic {} with {} operands", op.name(), args.len()));
        }
        let mty = if op == AtomicOp::Store {
            f.ty(args[0])
        } else {
            ty
        };
        let float_ok = matches!(
            op,
            AtomicOp::Xchg | AtomicOp::Load | AtomicOp::Store | AtomicOp::CmpXchg
        );
        if !(mty.is_int() && mty.bits() >= 8 || mty.is_float() && float_ok) {
            return Err(format!("atomic {} on {mty}", op.name()));
        }
        let local = f.ty(ptr) == Ty::Ptr(AddressSpace::Local);
        if let Some(r) = combining(op).filter(|_| !self.is_vec(ptr)) {
            return self
                .atomic_combined(b, op, r, ptr, args[0], mty, local)
                .map(Some);
        }
        self.atomic_per_lane(b, id, op, ptr, args, mty, local)
    }

    /// One atomic per active lane, in lane order. A lane's index and
    /// operands computed from a packed load are that lane's element loaded
    /// again where the rule of `lane_loads.rs` allows, else extracted.
    #[allow(clippy::too_many_arguments)]
    fn atomic_per_lane(
        &mut self,
        b: BlockId,
        id: InstId,
        op: AtomicOp,
        ptr: ValueId,
        args: &[ValueId],
        mty: Ty,
        local: bool,
    ) -> R<Option<BasicValueEnum<'ctx>>> {
        let cx = self.cx;
        let f = self.f;
        let m = self.mask_vec(b)?;
        let narrow = self.narrow_index(ptr)?;
        let p = match narrow {
            Some(_) => None,
            None => Some(self.get(ptr, true)?),
        };
        let space = match f.ty(ptr) {
            Ty::Ptr(s) => s,
            t => return Err(format!("atomic on a {t}")),
        };
        let index_chain = narrow
            .as_ref()
            .and_then(|n| self.lane_chain(b, id, n.index_id, space));
        let mut xs = Vec::new();
        for &a in args {
            let chain = self.lane_chain(b, id, a, space);
            xs.push((self.get(a, true)?, chain));
        }
        let et = llty(cx, mty, false)?;
        let vt = vec_of(et, self.w());
        let poison = unsafe {
            bv(c::LLVMGetPoison(inkwell::types::AsTypeRef::as_type_ref(
                &vt,
            )))
        };
        let mut acc: BasicValueEnum = cx.freeze(poison)?;
        for l in 0..self.w() as u64 {
            let bit = cx.extract(m, l)?;
            let from = cx.b.get_insert_block().ok_or("builder not positioned")?;
            let run = cx.ctx.append_basic_block(self.func, "atomic.lane");
            let next = cx.ctx.append_basic_block(self.func, "atomic.next");
            be(cx
                .b
                .build_conditional_branch(bit.into_int_value(), run, next))?;
            cx.b.position_at_end(run);
            let pl = match (&narrow, p) {
                (Some(n), _) => {
                    let x = match &index_chain {
                        Some(c) => self.lane_from_memory(c, l)?,
                        None => cx.extract(n.index, l)?,
                    };
                    let x = cx.cast(n.ext, x, cx.ctx.i64_type().into())?;
                    match (n.scale, &index_chain) {
                        // `&base[x]` in elements: `(x & 255) * 4` in bytes
                        // is `(x << 2) & 1020` to instcombine, and the
                        // backend then loads all of `x` (`movl`) before a
                        // `movzbl` of it instead of one `movzbl` from memory.
                        (1 | 2 | 4 | 8, Some(_)) => {
                            let et = std::num::NonZeroU32::new(8 * n.scale as u32)
                                .and_then(|b| cx.ctx.custom_width_int_type(b).ok())
                                .ok_or("bad element size")?;
                            cx.gep_elems(et.into(), n.base, x)?
                        }
                        _ => {
                            let off = cx.binop(Op::LLVMMul, x, cx.i64c(n.scale))?;
                            cx.gep_bytes(n.base, off)?
                        }
                    }
                }
                (None, Some(p)) => cx.extract(p, l)?,
                (None, None) => return Err("atomic without an address".into()),
            };
            let mut vals = Vec::new();
            for (x, chain) in &xs {
                vals.push(match chain {
                    Some(c) => self.lane_from_memory(c, l)?,
                    None => cx.extract(*x, l)?,
                });
            }
            let old = self.atomic_one(op, pl, &vals, mty, local)?;
            let with = match old {
                Some(o) => cx.insert(acc, o, l)?,
                None => acc,
            };
            let run_end = cx.b.get_insert_block().ok_or("builder not positioned")?;
            be(cx.b.build_unconditional_branch(next))?;
            cx.b.position_at_end(next);
            let phi = be(cx.b.build_phi(vt, ""))?;
            phi.add_incoming(&[(&acc as &dyn BasicValue, from), (&with, run_end)]);
            acc = phi.as_basic_value();
        }
        Ok((op != AtomicOp::Store).then_some(acc))
    }

    /// The lane addresses of `ptr` as `base + ext(index) * scale` with a
    /// uniform `base` and 32-bit lane indices (`&bins[data[i] & 0xff]`),
    /// when `ptr` is built that way: each lane's address is then its index
    /// (extracted, `vmovd`/`vpextrd`, or read again from memory where
    /// `lane_loads.rs` allows it, `movzbl`) and a scaled scalar address
    /// (`incl (base,idx,4)`), instead of a vector of 64-bit addresses
    /// widened, shifted and extracted lane by lane.
    fn narrow_index(&mut self, ptr: ValueId) -> R<Option<NarrowIndex<'ctx>>> {
        let f = self.f;
        let Some(InstKind::PtrAdd { base, offset }) = f.def_inst(ptr).map(|i| &f.inst(i).kind)
        else {
            return Ok(None);
        };
        if !self.vf.is_uniform(*base) || self.vf.is_uniform(*offset) {
            return Ok(None);
        }
        // `offset` = ext(x) or ext(x) * c, `x` 32 bits or narrower.
        let (ext_v, scale) = match f.def_inst(*offset).map(|i| &f.inst(i).kind) {
            Some(InstKind::Bin {
                op: BinOp::Mul,
                lhs,
                rhs,
            }) => match f.as_const(*rhs).and_then(|c| c.as_unsigned()) {
                Some(c) => (*lhs, c),
                None => return Ok(None),
            },
            _ => (*offset, 1),
        };
        let Some(InstKind::Cast { op, value }) = f.def_inst(ext_v).map(|i| &f.inst(i).kind) else {
            return Ok(None);
        };
        let ext = match op {
            CastOp::ZExt => Op::LLVMZExt,
            CastOp::SExt => Op::LLVMSExt,
            _ => return Ok(None),
        };
        if !f.ty(*value).is_int() || f.ty(*value).bits() > 32 || f.ty(ext_v).bits() != 64 {
            return Ok(None);
        }
        let base = self.get(*base, false)?;
        let index = self.get(*value, true)?;
        Ok(Some(NarrowIndex {
            base,
            index,
            index_id: *value,
            ext,
            scale,
        }))
    }

    /// `op` on the scalar address `p` with scalar operands; the old value.
    fn atomic_one(
        &mut self,
        op: AtomicOp,
        p: BasicValueEnum<'ctx>,
        vals: &[BasicValueEnum<'ctx>],
        mty: Ty,
        local: bool,
    ) -> R<Option<BasicValueEnum<'ctx>>> {
        let cx = self.cx;
        let et = llty(cx, mty, false)?;
        let align = mty.bytes() as u32;
        // Floats move as the integers of their bits.
        let it: BasicTypeEnum = if mty.is_float() {
            llty(cx, Ty::int(mty.bits()).ok_or("float width")?, false)?
        } else {
            et
        };
        let to_int = |v: BasicValueEnum<'ctx>| -> R<BasicValueEnum<'ctx>> {
            if mty.is_float() {
                cx.cast(Op::LLVMBitCast, v, it)
            } else {
                Ok(v)
            }
        };
        let from_int = |v: BasicValueEnum<'ctx>| -> R<BasicValueEnum<'ctx>> {
            if mty.is_float() {
                cx.cast(Op::LLVMBitCast, v, et)
            } else {
                Ok(v)
            }
        };
        if local {
            // One thread runs the work-group: plain memory operations.
            let old = cx.load(it, p, align)?;
            let new = match op {
                AtomicOp::Load => return Ok(Some(from_int(old)?)),
                AtomicOp::Store | AtomicOp::Xchg => to_int(vals[0])?,
                AtomicOp::CmpXchg => {
                    let (cmp, new) = (to_int(vals[0])?, to_int(vals[1])?);
                    let eq = cx.icmp(IP::LLVMIntEQ, old, cmp)?;
                    cx.select(eq, new, old)?
                }
                AtomicOp::Add => cx.binop(Op::LLVMAdd, old, vals[0])?,
                AtomicOp::Sub => cx.binop(Op::LLVMSub, old, vals[0])?,
                AtomicOp::And => cx.binop(Op::LLVMAnd, old, vals[0])?,
                AtomicOp::Or => cx.binop(Op::LLVMOr, old, vals[0])?,
                AtomicOp::Xor => cx.binop(Op::LLVMXor, old, vals[0])?,
                AtomicOp::SMin => cx.intrinsic("llvm.smin", &[it], &[old, vals[0]])?,
                AtomicOp::SMax => cx.intrinsic("llvm.smax", &[it], &[old, vals[0]])?,
                AtomicOp::UMin => cx.intrinsic("llvm.umin", &[it], &[old, vals[0]])?,
                AtomicOp::UMax => cx.intrinsic("llvm.umax", &[it], &[old, vals[0]])?,
            };
            cx.store(p, new, align)?;
            return Ok((op != AtomicOp::Store).then_some(from_int(old)?));
        }
        let pv = p.into_pointer_value();
        let seq = AtomicOrdering::SequentiallyConsistent;
        let rmw = |o: AtomicRMWBinOp, v: BasicValueEnum<'ctx>| -> R<BasicValueEnum<'ctx>> {
            let r = be(cx.b.build_atomicrmw(o, pv, v.into_int_value(), seq))?;
            Ok(r.into())
        };
        let old = match op {
            AtomicOp::Load => {
                let v = cx.load(it, p, align)?;
                unsafe {
                    c::LLVMSetOrdering(
                        v.as_value_ref(),
                        LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent,
                    )
                };
                v
            }
            AtomicOp::Store => {
                let v = to_int(vals[0])?;
                unsafe {
                    let s =
                        c::LLVMBuildStore(cx.b.as_mut_ptr(), v.as_value_ref(), p.as_value_ref());
                    c::LLVMSetAlignment(s, align);
                    c::LLVMSetOrdering(
                        s,
                        LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent,
                    );
                }
                return Ok(None);
            }
            AtomicOp::Xchg => rmw(AtomicRMWBinOp::Xchg, to_int(vals[0])?)?,
            AtomicOp::CmpXchg => {
                let (cmp, new) = (to_int(vals[0])?, to_int(vals[1])?);
                let pair = be(cx.b.build_cmpxchg(pv, cmp, new, seq, seq))?;
                be(cx.b.build_extract_value(pair, 0, ""))?
            }
            AtomicOp::Add => rmw(AtomicRMWBinOp::Add, vals[0])?,
            AtomicOp::Sub => rmw(AtomicRMWBinOp::Sub, vals[0])?,
            AtomicOp::And => rmw(AtomicRMWBinOp::And, vals[0])?,
            AtomicOp::Or => rmw(AtomicRMWBinOp::Or, vals[0])?,
            AtomicOp::Xor => rmw(AtomicRMWBinOp::Xor, vals[0])?,
            AtomicOp::SMin => rmw(AtomicRMWBinOp::Min, vals[0])?,
            AtomicOp::SMax => rmw(AtomicRMWBinOp::Max, vals[0])?,
            AtomicOp::UMin => rmw(AtomicRMWBinOp::UMin, vals[0])?,
            AtomicOp::UMax => rmw(AtomicRMWBinOp::UMax, vals[0])?,
        };
        Ok(Some(from_int(old)?))
    }

    /// Every active lane updates the one address `ptr`: one memory
    /// operation with the combined value of the active lanes.
    #[allow(clippy::too_many_arguments)]
    fn atomic_combined(
        &mut self,
        b: BlockId,
        op: AtomicOp,
        r: ReduceOp,
        ptr: ValueId,
        arg: ValueId,
        mty: Ty,
        local: bool,
    ) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let m = self.mask_vec(b)?;
        let x = self.get(arg, true)?;
        let et = llty(cx, mty, false)?;
        let (reduce, idv) = int_reduce(r, mty)?;
        let identity = cx.const_of(et, idv, 0.0);
        let sel = cx.select(m, x, cx.splat(identity)?)?;
        let total = cx.intrinsic(reduce, &[x.get_type()], &[sel])?;
        let p = self.get(ptr, false)?;
        // No memory operation when no lane is active (the address may be
        // anything then).
        let any = cx.any(m)?;
        let from = cx.b.get_insert_block().ok_or("builder not positioned")?;
        let run = cx.ctx.append_basic_block(self.func, "atomic.group");
        let next = cx.ctx.append_basic_block(self.func, "atomic.done");
        be(cx
            .b
            .build_conditional_branch(any.into_int_value(), run, next))?;
        cx.b.position_at_end(run);
        let old = self
            .atomic_one(op, p, &[total], mty, local)?
            .ok_or("combined atomic without a result")?;
        let run_end = cx.b.get_insert_block().ok_or("builder not positioned")?;
        be(cx.b.build_unconditional_branch(next))?;
        cx.b.position_at_end(next);
        let phi = be(cx.b.build_phi(et, ""))?;
        let undef = self.undef(mty, false)?;
        phi.add_incoming(&[(&undef as &dyn BasicValue, from), (&old, run_end)]);
        let old = phi.as_basic_value();
        // Each lane's old value: the values of the active lanes before it
        // applied to the old value.
        let (before, _) = self.scan(r, mty, sel, m, false)?;
        let olds = cx.splat(old)?;
        match op {
            AtomicOp::Sub => cx.binop(Op::LLVMSub, olds, before),
            _ => combine(cx, r, olds, before),
        }
    }
}
