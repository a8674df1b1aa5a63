//! Work-group collectives (`work_group_reduce_*`, `_scan_*`, `_broadcast`,
//! `_any`, `_all`) between two barriers.
//!
//! Each SIMD group combines its active lanes first (the sub-group
//! operation) and stores that partial in its slot of the work-group's
//! scratch array, in linear local-id order of the SIMD groups; after the
//! first barrier every SIMD group combines the partials it needs (all of
//! them, or those before it for a scan) and, for a scan, its own lanes' scan
//! on top; the second barrier keeps the next collective from overwriting
//! slots another SIMD group has not read yet. A broadcast has one slot,
//! written by the SIMD group that holds the named work-item.

use inkwell::llvm_sys::{LLVMIntPredicate as IP, LLVMOpcode as Op};
use inkwell::values::{BasicValue, BasicValueEnum};

use lanes_vectorizer::ir::{BlockId, Horizontal, InstId, Ty, ValueId};

use super::{combine, geo, interp_identity, llty, FnGen};
use crate::ll::R;

fn be<T>(r: Result<T, inkwell::builder::BuilderError>) -> R<T> {
    r.map_err(|e| format!("{e:?}"))
}

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// Emits collective `op` of instruction `id` in block `b`.
    pub(super) fn collective(
        &mut self,
        b: BlockId,
        id: InstId,
        op: Horizontal,
        args: &[ValueId],
        ty: Ty,
    ) -> R<()> {
        let cx = self.cx;
        let i64t = cx.ctx.i64_type();
        let w = cx.i64c(self.w() as u64);
        // This SIMD group's column block, its place among the work-group's
        // SIMD groups in linear local-id order (rows, dimension 1 then 2,
        // of column blocks), and their number; computed on each side of the
        // barrier (nothing but memory crosses it).
        let geometry = |g: &Self| -> R<[BasicValueEnum<'ctx>; 3]> {
            let ncols = cx.binop(Op::LLVMAdd, g.g(geo::SIZE), cx.i64c(g.w() as u64 - 1))?;
            let ncols = cx.binop(Op::LLVMUDiv, ncols, w)?;
            let col = cx.binop(Op::LLVMUDiv, g.g(geo::XSTART), w)?;
            let row = cx.binop(Op::LLVMMul, g.g(geo::LZ), g.g(geo::SIZE + 1))?;
            let row = cx.binop(Op::LLVMAdd, row, g.g(geo::LY))?;
            let place = cx.binop(Op::LLVMMul, row, ncols)?;
            let place = cx.binop(Op::LLVMAdd, place, col)?;
            let groups = cx.binop(Op::LLVMMul, ncols, g.g(geo::SIZE + 1))?;
            let groups = cx.binop(Op::LLVMMul, groups, g.g(geo::SIZE + 2))?;
            Ok([col, place, groups])
        };
        let [col, place, _] = geometry(self)?;
        // Booleans travel as bytes.
        let mty = if ty == Ty::I1 { Ty::I8 } else { ty };
        let st = llty(cx, mty, false)?;
        let scratch = self.wg_param(2)?;
        let slot = |i: BasicValueEnum<'ctx>| -> R<BasicValueEnum<'ctx>> {
            let off = cx.binop(Op::LLVMMul, i, cx.i64c(crate::workgroup::SCRATCH_SLOT))?;
            cx.gep_bytes(scratch, off)
        };
        let widen = |v: BasicValueEnum<'ctx>| -> R<BasicValueEnum<'ctx>> {
            if ty == Ty::I1 {
                cx.cast(Op::LLVMZExt, v, st)
            } else {
                Ok(v)
            }
        };
        let narrow = |v: BasicValueEnum<'ctx>| -> R<BasicValueEnum<'ctx>> {
            if ty == Ty::I1 {
                cx.icmp(IP::LLVMIntNE, v, cx.const_of(st, 0, 0.0))
            } else {
                Ok(v)
            }
        };
        let align = mty.bytes() as u32;

        // ---- before the first barrier: the partial ----------------------
        match op {
            Horizontal::Broadcast => {
                // The SIMD group holding local id (x, y, z) writes slot 0.
                let x = args.first().copied().ok_or("broadcast without a value")?;
                let mut want = [cx.i64c(0), cx.i64c(0), cx.i64c(0)];
                for (d, &a) in args.iter().skip(1).take(3).enumerate() {
                    let v = self.get(a, false)?;
                    want[d] = if cx.elem_type(v) == i64t.into() {
                        v
                    } else {
                        cx.cast(Op::LLVMZExt, v, i64t.into())?
                    };
                }
                let in_col = cx.binop(Op::LLVMUDiv, want[0], w)?;
                let mine = cx.icmp(IP::LLVMIntEQ, in_col, col)?;
                let y = cx.icmp(IP::LLVMIntEQ, want[1], self.g(geo::LY))?;
                let z = cx.icmp(IP::LLVMIntEQ, want[2], self.g(geo::LZ))?;
                let mine = cx.binop(Op::LLVMAnd, mine, y)?;
                let mine = cx.binop(Op::LLVMAnd, mine, z)?;
                let write = cx.ctx.append_basic_block(self.func, "broadcast.write");
                let after = cx.ctx.append_basic_block(self.func, "broadcast.written");
                be(cx
                    .b
                    .build_conditional_branch(mine.into_int_value(), write, after))?;
                cx.b.position_at_end(write);
                let lane = cx.binop(Op::LLVMURem, want[0], w)?;
                let xv = self.get(x, true)?;
                let v = cx.extract_dyn(xv, lane)?;
                cx.store(slot(cx.i64c(0))?, widen(v)?, align)?;
                be(cx.b.build_unconditional_branch(after))?;
                cx.b.position_at_end(after);
            }
            _ => {
                let whole = match op {
                    Horizontal::ScanInclusive(r) | Horizontal::ScanExclusive(r) => {
                        Horizontal::Reduce(r)
                    }
                    o => o,
                };
                let part = self.horizontal(b, whole, &args[..1], ty)?;
                cx.store(slot(place)?, widen(part)?, align)?;
            }
        }
        self.suspend()?;

        // ---- after it: combine ------------------------------------------
        let [_, place, groups] = geometry(self)?;
        let result = match op {
            Horizontal::Broadcast => narrow(cx.load(st, slot(cx.i64c(0))?, align)?)?,
            Horizontal::Any | Horizontal::All => {
                let any = op == Horizontal::Any;
                let acc = self.fold_slots(
                    st,
                    align,
                    cx.i64c(0),
                    groups,
                    None,
                    &|a, x| cx.binop(if any { Op::LLVMOr } else { Op::LLVMAnd }, a, x),
                    slot,
                )?;
                narrow(acc)?
            }
            Horizontal::Reduce(r) => self.fold_slots(
                st,
                align,
                cx.i64c(0),
                groups,
                None,
                &|a, x| combine(cx, r, a, x),
                slot,
            )?,
            Horizontal::ScanInclusive(r) | Horizontal::ScanExclusive(r) => {
                let identity = interp_identity(cx, r, ty, st)?;
                let before = self.fold_slots(
                    st,
                    align,
                    cx.i64c(0),
                    place,
                    Some(identity),
                    &|a, x| combine(cx, r, a, x),
                    slot,
                )?;
                let own = self.horizontal(b, op, &args[..1], ty)?;
                combine(cx, r, cx.splat(before)?, own)?
            }
        };
        self.set(id, result)?;
        self.suspend()
    }

    /// `acc ⊕ slot[i]` for `i` in `[lo, hi)` (unsigned), starting from
    /// `init`, or from `slot[lo]` (then `lo < hi` is required).
    #[allow(clippy::too_many_arguments)]
    fn fold_slots(
        &mut self,
        st: inkwell::types::BasicTypeEnum<'ctx>,
        align: u32,
        lo: BasicValueEnum<'ctx>,
        hi: BasicValueEnum<'ctx>,
        init: Option<BasicValueEnum<'ctx>>,
        op: &dyn Fn(BasicValueEnum<'ctx>, BasicValueEnum<'ctx>) -> R<BasicValueEnum<'ctx>>,
        slot: impl Fn(BasicValueEnum<'ctx>) -> R<BasicValueEnum<'ctx>>,
    ) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let (start, first) = match init {
            Some(v) => (lo, v),
            None => (
                cx.binop(Op::LLVMAdd, lo, cx.i64c(1))?,
                cx.load(st, slot(lo)?, align)?,
            ),
        };
        let pre = cx.b.get_insert_block().ok_or("builder not positioned")?;
        let head = cx.ctx.append_basic_block(self.func, "fold");
        let body = cx.ctx.append_basic_block(self.func, "fold.body");
        let exit = cx.ctx.append_basic_block(self.func, "fold.done");
        be(cx.b.build_unconditional_branch(head))?;
        cx.b.position_at_end(head);
        let i = be(cx.b.build_phi(cx.ctx.i64_type(), "i"))?;
        let acc = be(cx.b.build_phi(st, "acc"))?;
        i.add_incoming(&[(&start as &dyn BasicValue, pre)]);
        acc.add_incoming(&[(&first as &dyn BasicValue, pre)]);
        let more = cx.icmp(IP::LLVMIntULT, i.as_basic_value(), hi)?;
        be(cx
            .b
            .build_conditional_branch(more.into_int_value(), body, exit))?;
        cx.b.position_at_end(body);
        let x = cx.load(st, slot(i.as_basic_value())?, align)?;
        let next = op(acc.as_basic_value(), x)?;
        let i1 = cx.binop(Op::LLVMAdd, i.as_basic_value(), cx.i64c(1))?;
        let latch = cx.b.get_insert_block().ok_or("builder not positioned")?;
        be(cx.b.build_unconditional_branch(head))?;
        i.add_incoming(&[(&i1 as &dyn BasicValue, latch)]);
        acc.add_incoming(&[(&next as &dyn BasicValue, latch)]);
        cx.b.position_at_end(exit);
        Ok(acc.as_basic_value())
    }
}
