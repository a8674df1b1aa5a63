//! `sub_group_any`/`_all` of a compare between a unit-stride index and a
//! uniform bound, answered from the first and last lane in scalars.
//!
//! Guards of 2-D kernels (`j >= 1`, `j < n - 1`) compare a lane-varying
//! index whose lanes are one apart with a bound every lane shares. In a
//! whole SIMD group (every lane active) the lanes' values are `x0`,
//! `x0 ± 1`, ..., so the compare holds on every lane exactly when it holds
//! on the smallest or the largest, and on some lane exactly when it holds
//! on the other end. The vector test (64-bit compares and packs for the
//! fast path's `sext` index on AVX2, a compare and `vmovmskps` for the
//! guard) becomes one scalar compare per SIMD group on a value LLVM
//! already has for the addresses.
//!
//! Only signed orders: the lanes are consecutive integers in exact
//! arithmetic (`widened`: the index is a signed `+`/`-`/`*` whose overflow
//! is undefined or an id truncated to `int`), which keeps signed order,
//! not unsigned order across zero; or lanes rising by one from a lane 0
//! that is a multiple of W, whatever wrapped before (`aligned_unit_lanes`),
//! where only the vote reads the compare. Only in the full variant, under a block
//! mask that is the variant's lane mask (all-true there), or for the
//! all-active copy's own mask.

use inkwell::llvm_sys::LLVMOpcode as Op;
use inkwell::values::BasicValueEnum;

use lanes_vectorizer::ir::{CastOp, CmpPred, Horizontal, InstId, InstKind, Ty, ValueId, WorkItem};
use lanes_vectorizer::shape::Shape;

use super::{compare, FnGen};
use crate::ll::R;

/// `x pred u` with `x` the lane-varying side, or `None` for an order this
/// module does not answer.
fn varying_on_left(pred: CmpPred, varying_left: bool) -> Option<CmpPred> {
    use CmpPred::*;
    let p = match pred {
        Slt | Sle | Sgt | Sge => pred,
        _ => return None,
    };
    Some(if varying_left {
        p
    } else {
        match p {
            Slt => Sgt,
            Sle => Sge,
            Sgt => Slt,
            _ => Sle,
        }
    })
}

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// True when `m` is the variant's lane mask, all-true in the full one.
    pub(super) fn is_full_lane_mask(&self, m: ValueId) -> bool {
        self.full
            && self.f.def_inst(m).is_some_and(|d| {
                matches!(
                    self.f.inst(d).kind,
                    InstKind::WorkItem {
                        query: WorkItem::LaneMask,
                        ..
                    }
                )
            })
    }

    /// Lane 0 of `x` in exact 64-bit arithmetic and its stride (±1), when
    /// its lanes are consecutive integers there.
    pub(super) fn unit_lanes(
        &mut self,
        x: ValueId,
        only_voted: bool,
    ) -> R<Option<(BasicValueEnum<'ctx>, i64)>> {
        let f = self.f;
        let stride = match self.vf.shape(x) {
            Shape::Strided { stride, .. } if stride == 1 || stride == -1 => stride,
            _ => return Ok(None),
        };
        if self.widens(x) {
            return Ok(Some((self.widened(x, false, 0)?, stride)));
        }
        if self.is_row_id(x) {
            return Ok(Some((self.get(x, false)?, stride)));
        }
        if only_voted && self.aligned_unit_lanes(x) {
            return Ok(Some((self.lane0_as_i64(x)?, stride)));
        }
        // `sext` of an index that widens, or of aligned unit lanes: the
        // same lanes.
        if let Some(d) = f.def_inst(x) {
            if let InstKind::Cast {
                op: CastOp::SExt,
                value,
            } = f.inst(d).kind
            {
                if f.ty(x) == Ty::I64 && self.widens(value) {
                    return Ok(Some((self.widened(value, false, 0)?, stride)));
                }
                if only_voted && f.ty(x) == Ty::I64 && self.aligned_unit_lanes(value) {
                    return Ok(Some((self.lane0_as_i64(value)?, stride)));
                }
            }
        }
        Ok(None)
    }

    /// True when the lanes of the `i32` or `i64` value `x` rise by one from
    /// a lane 0 that is a multiple of W: then they are consecutive in
    /// signed order too, whatever wrapped before (`(int)` of a 64-bit sum,
    /// reduction's `i = get_group_id(0) * 512 + lid`). The wrap from the
    /// largest signed value to the smallest lies between two lanes `t - 1`
    /// and `t` only when lane `t` is `-2^(b-1)`, a multiple of W, which
    /// lane 0 alone is.
    fn aligned_unit_lanes(&self, x: ValueId) -> bool {
        let w = self.w() as u64;
        matches!(self.f.ty(x), Ty::I32 | Ty::I64)
            && matches!(
                self.vf.shape(x),
                Shape::Strided { stride: 1, align } if align % w == 0
            )
    }

    /// True when nothing but `sub_group_any`/`_all` reads the lanes of `c`
    /// (no block mask, select or store): the scalar test then replaces the
    /// vector compare instead of adding to it. (In scan's tree levels
    /// `thid < d` is also the block's mask, and a scalar test of lane 0,
    /// moved out of the vector of ids, made the work-group longer.)
    fn only_voted(&self, c: ValueId) -> bool {
        self.read_only_where(c, |_, kind| {
            matches!(
                kind,
                InstKind::Horizontal {
                    op: Horizontal::Any | Horizontal::All,
                    ..
                }
            )
        })
    }

    /// True when no block mask reads `v` and every instruction that reads
    /// it passes `ok`.
    fn read_only_where(&self, v: ValueId, ok: impl Fn(InstId, &InstKind) -> bool) -> bool {
        let f = self.f;
        f.blocks.iter().all(|b| b.predicate != Some(v))
            && f.insts.iter().enumerate().all(|(n, i)| {
                let mut reads = false;
                i.kind.for_each_operand(|u| reads |= u == v);
                !reads || ok(InstId(n as u32), &i.kind)
            })
    }

    /// Lane 0 of `x` as a scalar `i64` (sign-extended).
    fn lane0_as_i64(&mut self, x: ValueId) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let v = self.get(x, true)?;
        let x0 = cx.extract(v, 0)?;
        if self.f.ty(x) == Ty::I64 {
            return Ok(x0);
        }
        cx.cast(Op::LLVMSExt, x0, cx.ctx.i64_type().into())
    }

    /// `any` (or `all`) over every lane of `c`, in scalars, when `c` is a
    /// compare of unit-stride lanes with a uniform value (or such a compare
    /// under the full variant's lane mask) and every lane is active.
    pub(super) fn range_test(
        &mut self,
        c: ValueId,
        is_any: bool,
    ) -> R<Option<BasicValueEnum<'ctx>>> {
        let f = self.f;
        if !self.full {
            return Ok(None);
        }
        let Some(mut d) = f.def_inst(c) else {
            return Ok(None);
        };
        // `select(lane mask, cmp, false)`: the lane mask is all-true here.
        if let InstKind::Select { cond, then, els } = f.inst(d).kind {
            let is_false = matches!(
                f.as_const(els),
                Some(lanes_vectorizer::ir::Const::Int(0, _))
            );
            match f.def_inst(then) {
                Some(t) if is_false && self.is_full_lane_mask(cond) => d = t,
                _ => return Ok(None),
            }
        }
        let InstKind::Cmp { pred, lhs, rhs } = f.inst(d).kind else {
            return Ok(None);
        };
        let (x, u, left) = match (self.is_vec(lhs), self.is_vec(rhs)) {
            (true, false) => (lhs, rhs, true),
            (false, true) => (rhs, lhs, false),
            _ => return Ok(None),
        };
        let Some(p) = varying_on_left(pred, left) else {
            return Ok(None);
        };
        if !f.ty(u).is_int() {
            return Ok(None);
        }
        // Under a lane mask `c` is the select; its compare must then be read
        // by the select alone.
        let only_voted = self.only_voted(c)
            && match f.def_inst(c) {
                Some(s) if s != d => f
                    .inst(d)
                    .result
                    .is_some_and(|r| self.read_only_where(r, |reader, _| reader == s)),
                _ => true,
            };
        let Some((x0, stride)) = self.unit_lanes(x, only_voted)? else {
            return Ok(None);
        };
        let cx = self.cx;
        let i64t = cx.ctx.i64_type();
        let u = self.get(u, false)?;
        let u = if f.ty(lhs) == Ty::I64 {
            u
        } else {
            cx.cast(Op::LLVMSExt, u, i64t.into())?
        };
        // `all(x < u)` is `max < u`, `any(x < u)` is `min < u`; the other
        // way round for `>`. Lane 0 holds the minimum when the lanes rise.
        let below = matches!(p, CmpPred::Slt | CmpPred::Sle);
        let want_max = below != is_any;
        let end = if want_max == (stride > 0) {
            // `nsw`: lane 0's index is an `int` or an id, far from the ends
            // of `i64`, so the sum is exact (and LLVM may then drop an `any`
            // test that the `all` test on the other end implies).
            let last = i64t.const_int(((self.w() as i64 - 1) * stride) as u64, true);
            cx.b.build_int_nsw_add(x0.into_int_value(), last, "")
                .map_err(|e| format!("{e:?}"))?
                .into()
        } else {
            x0
        };
        compare(cx, p, end, u).map(Some)
    }
}
