//! Loads through a clamped contiguous index: a packed load where the
//! clamp changes no lane.
//!
//! Clamp-to-edge image kernels index `in[sy * w + clamp(x + fx - r, 0, w -
//! 1)]` (convolution_2d, the SDKs' separable filters, box blurs). The index
//! is contiguous in `x`, but the clamp makes its shape varying, so the load
//! was a gather in every SIMD group, although only the groups at the left
//! and right borders have a lane the clamp moves. When lane 0's and lane
//! W-1's unclamped values both lie inside the clamp's bounds, every lane's
//! does (the lanes are consecutive), the clamp is the identity on the
//! group, and the lanes' addresses are lane 0's plus one element per lane:
//! one packed load, under the block's mask, reads exactly the elements the
//! gather would. Two scalar compares of lane 0's value choose it; the
//! gather stays for the groups at the borders.

use inkwell::llvm_sys::LLVMOpcode as Op;
use inkwell::values::{BasicValue, BasicValueEnum};

use lanes_vectorizer::ir::{CmpPred, Ty, ValueId};
use lanes_vectorizer::shape::{clamped_index, Shape, UnitClamp};

use super::{compare, FnGen};
use crate::ll::R;

/// A clamped index of the access through `ptr`: `x`, its lane-varying
/// term, is the clamp `c` of lanes that rise by one.
pub(super) struct Clamp {
    ptr: ValueId,
    x: ValueId,
    c: UnitClamp,
}

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// The clamp through which the varying access `ptr` of `ty` indexes
    /// one element per lane, when it has one: `ptr` is uniform terms plus
    /// `size(ty)` times a clamped index.
    pub(super) fn clamp_versioned(&self, ptr: ValueId, ty: Ty) -> Option<Clamp> {
        if !matches!(self.vf.shape(ptr), Shape::Varying { .. })
            || !(ty.is_int() || ty.is_float())
            || ty == Ty::I1
            || self.w() < 2
        {
            return None;
        }
        let (x, c, factor) = clamped_index(self.f, |v| self.vf.shape(v), ptr)?;
        (factor == super::mem_ty(ty).bytes() as i64).then_some(Clamp { ptr, x, c })
    }

    /// The load of `vt` through the lane addresses `ps` under mask `m`:
    /// packed from lane 0's address when the clamp `c` moves no lane,
    /// else `slow` (the gather).
    pub(super) fn by_clamp_range(
        &mut self,
        c: &Clamp,
        ps: BasicValueEnum<'ctx>,
        vt: inkwell::types::BasicTypeEnum<'ctx>,
        align: u32,
        m: BasicValueEnum<'ctx>,
        slow: impl FnOnce(&mut Self) -> R<Option<BasicValueEnum<'ctx>>>,
    ) -> R<Option<BasicValueEnum<'ctx>>> {
        let cx = self.cx;
        let be = |e: inkwell::builder::BuilderError| format!("{e:?}");
        let Some((s0, stride)) = self.unit_lanes(c.c.s, false)? else {
            return slow(self);
        };
        if stride != 1 {
            return slow(self);
        }
        let i64t = cx.ctx.i64_type();
        let bound = |this: &mut Self, v: ValueId| -> R<BasicValueEnum<'ctx>> {
            let b = this.get(v, false)?;
            if this.f.ty(v) == Ty::I64 {
                Ok(b)
            } else {
                cx.cast(Op::LLVMSExt, b, i64t.into())
            }
        };
        // Lane 0 holds the smallest value, lane W-1 the largest (`s0` is
        // exact in 64 bits, so the sum does not wrap).
        let last =
            cx.b.build_int_nsw_add(
                s0.into_int_value(),
                i64t.const_int(self.w() as u64 - 1, false),
                "",
            )
            .map_err(be)?
            .into();
        let mut inside = cx.boolc(true);
        if let Some(lo) = c.c.lo {
            let lo = bound(self, lo)?;
            let ok = compare(cx, CmpPred::Sge, s0, lo)?;
            inside = cx.binop(Op::LLVMAnd, inside, ok)?;
        }
        if let Some(hi) = c.c.hi {
            let hi = bound(self, hi)?;
            let ok = compare(cx, CmpPred::Sle, last, hi)?;
            inside = cx.binop(Op::LLVMAnd, inside, ok)?;
        }
        let fast = cx.ctx.append_basic_block(self.func, "clamp.inside");
        let edge = cx.ctx.append_basic_block(self.func, "clamp.gather");
        let join = cx.ctx.append_basic_block(self.func, "clamp.done");
        cx.b.build_conditional_branch(inside.into_int_value(), fast, edge)
            .map_err(be)?;
        cx.b.position_at_end(fast);
        // Lane 0's address from scalars (the vector of lane addresses is
        // for the gather alone), else from that vector.
        let p0 = match self.lane0_address(c.ptr, c.x, s0)? {
            Some(p) => p,
            None => cx.extract(ps, 0)?,
        };
        let packed = cx.intrinsic(
            "llvm.masked.load",
            &[vt, p0.get_type()],
            &[p0, cx.i32c(align as u64), m, vt.const_zero()],
        )?;
        let fast_end = cx.b.get_insert_block().ok_or("builder not positioned")?;
        cx.b.build_unconditional_branch(join).map_err(be)?;
        cx.b.position_at_end(edge);
        let gathered = slow(self)?.ok_or("a gather without a value")?;
        let edge_end = cx.b.get_insert_block().ok_or("builder not positioned")?;
        cx.b.build_unconditional_branch(join).map_err(be)?;
        cx.b.position_at_end(join);
        let phi = cx.b.build_phi(vt, "").map_err(be)?;
        phi.add_incoming(&[
            (&packed as &dyn BasicValue, fast_end),
            (&gathered as &dyn BasicValue, edge_end),
        ]);
        Ok(Some(phi.as_basic_value()))
    }
}
