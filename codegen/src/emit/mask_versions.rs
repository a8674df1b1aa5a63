//! Mask versions of a guarded block, in bodies with barriers.
//!
//! Between barriers the SIMD groups of a work-group take turns, and a
//! guard such as `if (lid < stride)` in a tree reduction leaves most of
//! them with no active lane in later steps, the others (but one) with all
//! lanes active. Linearized, the guarded block still runs its masked loads
//! and stores (`vmaskmov`, slow on AMD) for every SIMD group. A block whose
//! mask may be empty and that accesses memory is emitted three times
//! instead, chosen by a `switch` on the mask's bits: with the mask the
//! constant all-false vector (LLVM folds the accesses away: the SIMD group
//! skips the block), the constant all-true vector (plain vector accesses),
//! and as it is. Each version is the same code with the mask replaced by
//! the value it has, so the versions are exact; the block's results meet
//! in φs after them.
//!
//! A block whose mask cannot be empty (a guard behind a `sub_group.any`
//! branch, such as the bounds check of a transpose tile) gets the last two
//! versions only: SIMD groups whose lanes all pass the guard access memory
//! without masks.
//!
//! Bodies without barriers get the all-active copy instead
//! (`all_active.rs`), which covers their outer guard; of their blocks
//! only those whose mask may be empty and that write memory run in the
//! versions. sobel's border store (`if (x == 0 || ...) { out[idx] = 0;
//! return; }`, a block no SIMD group but the first and last of a row has
//! a lane in) was a `vmaskmov` store with an empty mask after every
//! SIMD group's pixels; after a streaming store to the same line it cost
//! a write to memory each time, 70 times the kernel's time (bench/RESULTS.md,
//! 2026-11-28).

use inkwell::llvm_sys::LLVMOpcode as Op;
use inkwell::values::{BasicValue, BasicValueEnum};

use lanes_vectorizer::ir::{BlockId, InstId, InstKind};
use lanes_vectorizer::vectorize::VectorFunction;

use super::FnGen;
use crate::ll::R;

/// Largest block versioned, in IR instructions (the versions triple it).
const MAX_VERSIONED: usize = 400;

/// By block: true when it is emitted in mask versions: blocks whose
/// varying mask is defined in another block (or by a φ) and masks a
/// memory access, in bodies with barriers; in bodies without, such blocks
/// that may run with no active lane and store. `syncs`: the kernel has
/// barriers or other work-group synchronization.
pub fn plan(
    vf: &VectorFunction,
    order: &[lanes_vectorizer::ir::BlockId],
    syncs: bool,
) -> Vec<bool> {
    let f = &vf.func;
    let mut out = vec![false; f.blocks.len()];
    for &b in order {
        let m = vf.block_mask[b.index()];
        let insts = &f.block(b).insts;
        let kinds = || insts.iter().map(|&i| &f.inst(i).kind);
        let versioned_accesses = if syncs {
            kinds().any(|k| {
                matches!(
                    k,
                    InstKind::Load { .. } | InstKind::Store { .. } | InstKind::Atomic { .. }
                )
            })
        } else {
            // Without barriers: blocks that may run with no active lane
            // and write memory (see the module's comment).
            !vf.mask_nonempty[b.index()]
                && kinds().any(|k| matches!(k, InstKind::Store { .. } | InstKind::Atomic { .. }))
        };
        out[b.index()] = !vf.is_uniform(m)
            && f.def_inst(m)
                .is_some_and(|d| f.inst(d).block != b || f.inst(d).kind.is_phi())
            && versioned_accesses
            && !kinds().any(|k| k.is_work_group_sync())
            && insts.len() <= MAX_VERSIONED;
    }
    out
}

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// Emits `body` (the instructions of `b` between its φs and its
    /// terminator) in the three mask versions; leaves the builder in the
    /// block where they meet, with the results of `body` as φs there.
    pub(super) fn emit_mask_versions(&mut self, b: BlockId, body: &[InstId]) -> R<()> {
        let cx = self.cx;
        let f = self.f;
        let m = self.vf.block_mask[b.index()];
        let mv = self.get(m, true)?;
        // A constant mask (the all-active copy's): the one version it picks.
        if matches!(mv, BasicValueEnum::VectorValue(v) if v.is_const()) {
            for &i in body {
                self.inst(b, i)?;
            }
            return Ok(());
        }
        let w = self.w();
        let bits_ty = std::num::NonZeroU32::new(w)
            .and_then(|n| cx.ctx.custom_width_int_type(n).ok())
            .ok_or("no integer type as wide as the SIMD group")?;
        let bits = cx
            .cast(Op::LLVMBitCast, mv, bits_ty.into())?
            .into_int_value();
        let label = &f.block(b).label;
        // No version for an empty mask where there is none.
        let nonempty = self.vf.mask_nonempty[b.index()];
        let none = (!nonempty).then(|| {
            cx.ctx
                .append_basic_block(self.func, &format!("{label}.none"))
        });
        let all = cx
            .ctx
            .append_basic_block(self.func, &format!("{label}.all"));
        let some = cx
            .ctx
            .append_basic_block(self.func, &format!("{label}.some"));
        let join = cx
            .ctx
            .append_basic_block(self.func, &format!("{label}.join"));
        let mut cases: Vec<_> = none
            .map(|n| (bits_ty.const_zero(), n))
            .into_iter()
            .collect();
        cases.push((bits_ty.const_all_ones(), all));
        cx.b.build_switch(bits, some, &cases)
            .map_err(|e| format!("{e:?}"))?;
        let results: Vec<_> = body.iter().filter_map(|&i| f.inst(i).result).collect();
        let mut ends = Vec::new();
        let grouped = self.grouped.clone();
        let versions = [
            (none, Some(false)),
            (Some(all), Some(true)),
            (Some(some), None),
        ];
        for (bb, pin) in versions.into_iter().filter_map(|(bb, p)| Some((bb?, p))) {
            cx.b.position_at_end(bb);
            self.grouped = grouped.clone();
            if let Some(p) = pin {
                let c = cx.splat(cx.boolc(p))?;
                self.pinned.insert(m, c);
            }
            for &i in body {
                self.inst(b, i)?;
            }
            self.pinned.remove(&m);
            let vals: Vec<BasicValueEnum<'ctx>> = results
                .iter()
                .map(|r| self.vals[r.index()].ok_or("result not emitted"))
                .collect::<Result<_, _>>()?;
            let end = cx.b.get_insert_block().ok_or("builder not positioned")?;
            cx.b.build_unconditional_branch(join)
                .map_err(|e| format!("{e:?}"))?;
            ends.push((end, vals));
        }
        cx.b.position_at_end(join);
        for (k, r) in results.iter().enumerate() {
            let t = ends[0].1[k].get_type();
            let phi = cx.b.build_phi(t, "").map_err(|e| format!("{e:?}"))?;
            for (end, vals) in &ends {
                phi.add_incoming(&[(&vals[k] as &dyn BasicValue, *end)]);
            }
            self.vals[r.index()] = Some(phi.as_basic_value());
            self.lane_seq.remove(r);
        }
        Ok(())
    }
}
