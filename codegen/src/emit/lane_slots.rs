//! Lane loops: vectors read one lane at a time, and the test of whether a
//! lane is active.
//!
//! Lane serialization (the vectorizer's `serialize.rs`) runs a divergent
//! loop once per active lane: `any(sub_group_local_id == l)` asks whether
//! lane `l` runs, and `sub_group_broadcast(v, l)` gives the loop lane `l`'s
//! live-ins. Both are cheap in scalars and dear as LLVM lowers them:
//!
//! - `any(mask & (<0, 1, ..., W-1> == splat(l)))` is a vector compare and
//!   test per lane, where it is bit `l` of the mask's bits (and, in the
//!   all-active copy, `l < W`, which the lane loop's own bound implies).
//! - `extractelement v, l` with a run-time `l` stores the whole vector to
//!   the stack and loads the lane, at every use: spmv_csr stored its two
//!   row bounds 8 times per SIMD group. A vector defined outside the loop
//!   that reads it is stored to a slot once, where it is defined, and each
//!   lane's turn loads its element. Only in bodies without barriers: a
//!   body with barriers returns at each, and its stack slots with it.

use std::collections::{HashMap, HashSet};

use inkwell::llvm_sys::LLVMIntPredicate as IP;
use inkwell::llvm_sys::LLVMOpcode as Op;
use inkwell::values::BasicValueEnum;

use lanes_vectorizer::cfg::Cfg;
use lanes_vectorizer::ir::{CmpPred, Function, Horizontal, InstKind, Ty, ValueId, WorkItem};
use lanes_vectorizer::vectorize::VectorFunction;

use super::{llty, FnGen};
use crate::ll::R;

/// The vectors that get a lane slot: read by a `sub_group_broadcast` with
/// a lane that is uniform but not constant, in a loop that does not
/// define them.
pub(super) fn plan(f: &Function, vf: &VectorFunction, synchronizes: bool) -> HashSet<ValueId> {
    let mut out = HashSet::new();
    if synchronizes {
        return out;
    }
    let mut cfg = None;
    for inst in &f.insts {
        let InstKind::Horizontal {
            op: Horizontal::Broadcast,
            args,
        } = &inst.kind
        else {
            continue;
        };
        let [x, lane] = args[..] else { continue };
        if vf.is_uniform(x)
            || !vf.is_uniform(lane)
            || f.as_const(lane).is_some()
            || !matches!(f.ty(x), Ty::I32 | Ty::I64 | Ty::F32 | Ty::F64)
        {
            continue;
        }
        let Some(d) = f.def_inst(x) else { continue };
        let cfg = cfg.get_or_insert_with(|| Cfg::compute(f));
        let Some(l) = cfg.loop_of(inst.block) else {
            continue;
        };
        let Some(lp) = cfg.loops().get(l) else {
            continue;
        };
        if !lp.blocks.contains(&f.inst(d).block) {
            out.insert(x);
        }
    }
    out
}

/// The slots: planned values, and the stack slot once created.
pub(super) type Slots<'ctx> = HashMap<ValueId, Option<BasicValueEnum<'ctx>>>;

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// Stores `v`, the vector value of `r`, to its lane slot if it has one.
    pub(super) fn store_lane_slot(&mut self, r: ValueId, v: BasicValueEnum<'ctx>) -> R<()> {
        if !self.lane_slots.contains_key(&r) || !v.is_vector_value() {
            return Ok(());
        }
        let cx = self.cx;
        let slot = match self.lane_slots.get(&r).copied().flatten() {
            Some(s) => s,
            None => {
                let here = cx.b.get_insert_block().ok_or("builder not positioned")?;
                match self.entry.get_terminator() {
                    Some(t) => cx.b.position_before(&t),
                    None => cx.b.position_at_end(self.entry),
                }
                let s =
                    cx.b.build_alloca(v.get_type(), "lane.slot")
                        .map_err(|e| format!("{e:?}"))?;
                self.restore(here);
                self.lane_slots.insert(r, Some(s.into()));
                s.into()
            }
        };
        cx.store(slot, v, self.vector_align(r))
    }

    /// Lane `lane` (a uniform `i32`, already reduced mod W) of `x` from its
    /// lane slot, when `x` has one that its definition has written.
    pub(super) fn lane_from_slot(
        &mut self,
        x: ValueId,
        lane: BasicValueEnum<'ctx>,
    ) -> R<Option<BasicValueEnum<'ctx>>> {
        let Some(slot) = self.lane_slots.get(&x).copied().flatten() else {
            return Ok(None);
        };
        let cx = self.cx;
        let et = llty(cx, self.f.ty(x), false)?;
        let p = cx.gep_elems(et, slot, lane)?;
        cx.load(et, p, self.f.ty(x).bits() / 8).map(Some)
    }

    fn vector_align(&self, r: ValueId) -> u32 {
        (self.f.ty(r).bits() / 8 * self.w()).min(64)
    }

    /// `any` of `c` under mask `m`, when `c` is `sub_group_local_id == l`
    /// (or that under a lane mask) for a uniform `l`: bit `l` of the mask,
    /// and `l < W`.
    pub(super) fn any_lane_is(
        &mut self,
        c: ValueId,
        m: BasicValueEnum<'ctx>,
    ) -> R<Option<BasicValueEnum<'ctx>>> {
        let f = self.f;
        let Some(mut d) = f.def_inst(c) else {
            return Ok(None);
        };
        let mut m = m;
        // `select(cond, cmp, false)`: the compare under a lane mask.
        if let InstKind::Select { cond, then, els } = f.inst(d).kind {
            let is_false = matches!(
                f.as_const(els),
                Some(lanes_vectorizer::ir::Const::Int(0, _))
            );
            match f.def_inst(then) {
                Some(t) if is_false => {
                    let cm = self.get(cond, true)?;
                    m = self.cx.binop(Op::LLVMAnd, m, cm)?;
                    d = t;
                }
                _ => return Ok(None),
            }
        }
        let InstKind::Cmp {
            pred: CmpPred::Eq,
            lhs,
            rhs,
        } = f.inst(d).kind
        else {
            return Ok(None);
        };
        let is_lane_id = |v: ValueId| {
            f.def_inst(v).is_some_and(|i| {
                matches!(
                    f.inst(i).kind,
                    InstKind::WorkItem {
                        query: WorkItem::SubGroupLocalId,
                        ..
                    }
                )
            })
        };
        let l = match (is_lane_id(lhs), is_lane_id(rhs)) {
            (true, false) => rhs,
            (false, true) => lhs,
            _ => return Ok(None),
        };
        if self.is_vec(l) || !f.ty(l).is_int() {
            return Ok(None);
        }
        let cx = self.cx;
        let i64t = cx.ctx.i64_type();
        let w = self.w() as u64;
        let l = self.get(l, false)?;
        let l = match l.get_type().into_int_type().get_bit_width() {
            64 => l,
            _ => cx.cast(Op::LLVMZExt, l, i64t.into())?,
        };
        let inside = cx.icmp(IP::LLVMIntULT, l, cx.i64c(w))?;
        let it = std::num::NonZeroU32::new(self.w())
            .and_then(|n| cx.ctx.custom_width_int_type(n).ok())
            .ok_or("bad SIMD width")?;
        let bits = cx.cast(Op::LLVMBitCast, m, it.into())?;
        let bits = cx.cast(Op::LLVMZExt, bits, i64t.into())?;
        // `l mod W`: a shift by `l >= 64` would be poison.
        let at = cx.binop(Op::LLVMAnd, l, cx.i64c(w - 1))?;
        let bit = cx.binop(Op::LLVMLShr, bits, at)?;
        let bit = cx.cast(Op::LLVMTrunc, bit, cx.ctx.bool_type().into())?;
        cx.binop(Op::LLVMAnd, inside, bit).map(Some)
    }
}
