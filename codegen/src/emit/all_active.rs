//! The all-active copy of a masked region, for whole SIMD groups.
//!
//! Nearly every kernel starts with a guard (`if (gid < n)`, `if (x >= w)
//! return;`) whose mask is all-true in every SIMD group but the last, yet
//! the code after it runs under that mask: masked loads and stores
//! (`vmaskmov` on AVX2, slow on AMD), blends of values leaving branches.
//! Where such a mask `M` is computed outside every loop, the full-group
//! body tests `all(M)` once after computing it and runs a second copy of
//! everything that can follow, emitted with `M` the constant all-true
//! vector: LLVM folds the masks derived from it, and the masked accesses
//! under it become plain vector loads and stores. The other SIMD groups
//! run the masked code. The copy is exact: outside loops `M` is computed
//! once per SIMD group, so in the copy it *is* all-true.
//!
//! Bodies with barriers are left alone (a barrier in both copies would
//! need both to resume), and so is the partial group's variant (its lanes
//! beyond the row make `all(M)` false anyway).

use inkwell::basic_block::BasicBlock;
use inkwell::values::PhiValue;

use lanes_vectorizer::cfg::Cfg;
use lanes_vectorizer::ir::{BlockId, Function, Horizontal, InstId, InstKind, ValueId, WorkItem};
use lanes_vectorizer::vectorize::VectorFunction;

use super::FnGen;
use crate::ll::R;

/// Bound on the copied code, in weighted IR instructions (a math function
/// counts as the few dozen instructions it expands to): the copy at most
/// doubles a body of this size.
const MAX_COPIED: u32 = 3000;

/// What to copy: `region` (in emission order) is every block reachable
/// from `split`'s successors; `mask` is defined in `split`.
#[derive(Clone, Debug)]
pub struct Copy {
    pub split: BlockId,
    pub mask: ValueId,
    pub region: Vec<BlockId>,
}

fn weight(k: &InstKind) -> u32 {
    match k {
        InstKind::Math { .. } => 40,
        _ => 1,
    }
}

fn is_access(k: &InstKind) -> bool {
    matches!(
        k,
        InstKind::Load { .. } | InstKind::Store { .. } | InstKind::Atomic { .. }
    )
}

/// The mask worth a copy, if any: among the varying block masks computed
/// outside loops (other than the entry mask, already all-true in whole
/// groups), the one under which the most memory accesses run, then the
/// most instructions.
pub fn plan(vf: &VectorFunction, order: &[BlockId]) -> Option<Copy> {
    let f = &vf.func;
    if f.insts.iter().any(|i| i.kind.is_work_group_sync()) {
        return None;
    }
    let cfg = Cfg::compute(f);
    let slow = slow_paths(f, &cfg);
    // By mask: (memory accesses, instructions) of the blocks it masks.
    let mut score: Vec<(ValueId, (u32, u32))> = Vec::new();
    for &b in order {
        let m = vf.block_mask[b.index()];
        if vf.is_uniform(m) || is_lane_mask(f, m) {
            continue;
        }
        let Some(d) = f.def_inst(m) else { continue };
        let split = f.inst(d).block;
        let on_slow_path = slow.iter().any(|&r| cfg.dominates(r, split));
        if cfg.loop_of(split).is_some() || on_slow_path {
            continue;
        }
        let insts = &f.block(b).insts;
        let acc = insts
            .iter()
            .filter(|&&i| is_access(&f.inst(i).kind))
            .count() as u32;
        let n = insts.len() as u32;
        match score.iter_mut().find(|(x, _)| *x == m) {
            Some((_, s)) => *s = (s.0 + acc, s.1 + n),
            None => score.push((m, (acc, n))),
        }
    }
    score.retain(|(_, (acc, _))| *acc > 0);
    // The highest score; among equals the first defined.
    score.sort_by_key(|&(m, s)| (std::cmp::Reverse(s), m));
    let &(mask, _) = score.first()?;
    let split = f.inst(f.def_inst(mask)?).block;
    let region = reachable_after(f, split, order)?;
    let size: u32 = region
        .iter()
        .flat_map(|&b| f.block(b).insts.iter())
        .map(|&i| weight(&f.inst(i).kind))
        .sum();
    (size <= MAX_COPIED).then_some(Copy {
        split,
        mask,
        region,
    })
}

/// The blocks that start a slow path: the `else` of a `sub_group_all`
/// test (the specializer's `if (sub_group_all(P))` fast path). Where they
/// dominate, the guard is not all-true by construction.
fn slow_paths(f: &Function, cfg: &Cfg) -> Vec<BlockId> {
    f.block_ids()
        .filter_map(|a| {
            let InstKind::CondBr { cond, then, els } = f.inst(f.terminator(a)?).kind else {
                return None;
            };
            let d = f.def_inst(cond)?;
            let all = matches!(
                f.inst(d).kind,
                InstKind::Horizontal {
                    op: Horizontal::All,
                    ..
                }
            );
            (all && then != els && cfg.preds(els) == [a]).then_some(els)
        })
        .collect()
}

fn is_lane_mask(f: &Function, m: ValueId) -> bool {
    f.def_inst(m).is_some_and(|d| {
        matches!(
            f.inst(d).kind,
            InstKind::WorkItem {
                query: WorkItem::LaneMask,
                ..
            }
        )
    })
}

/// The blocks reachable from `split`'s successors, in `order`; `None` when
/// `split` itself is one of them (it is in a loop) or the entry is.
fn reachable_after(f: &Function, split: BlockId, order: &[BlockId]) -> Option<Vec<BlockId>> {
    let mut seen = vec![false; f.blocks.len()];
    let mut work = f.successors(split);
    while let Some(b) = work.pop() {
        if std::mem::replace(&mut seen[b.index()], true) {
            continue;
        }
        work.extend(f.successors(b));
    }
    if seen[split.index()] || seen[f.entry.index()] {
        return None;
    }
    Some(order.iter().copied().filter(|b| seen[b.index()]).collect())
}

/// The instructions of `split` after `mask`'s definition that compute on
/// it (edge masks, `any` tests): emitted again in the copy, where they
/// fold. Only pure, cheap ones.
fn dependents(f: &Function, split: BlockId, mask: ValueId) -> Vec<InstId> {
    let mut tainted = vec![mask];
    let mut out = Vec::new();
    for &i in &f.block(split).insts {
        let inst = f.inst(i);
        let pure = matches!(
            inst.kind,
            InstKind::Select { .. }
                | InstKind::Bin { .. }
                | InstKind::Cmp { .. }
                | InstKind::Horizontal {
                    op: Horizontal::Any | Horizontal::All,
                    ..
                }
        );
        let mut uses = false;
        inst.kind.for_each_operand(|v| uses |= tainted.contains(&v));
        if let (true, true, Some(r)) = (pure, uses, inst.result) {
            tainted.push(r);
            out.push(i);
        }
    }
    out
}

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// At the end of the split block, before its terminator: branches to
    /// the copy when every lane of the mask is set, and returns the block
    /// the copy starts in (the builder is left in the block that takes the
    /// terminator of the masked code).
    pub(super) fn branch_to_copy(&mut self, c: &Copy) -> R<BasicBlock<'ctx>> {
        let cx = self.cx;
        let all = match self.range_test(c.mask, false)? {
            Some(all) => all,
            None => {
                let m = self.get(c.mask, true)?;
                cx.intrinsic("llvm.vector.reduce.and", &[m.get_type()], &[m])?
            }
        };
        let label = &self.f.block(c.split).label;
        let copy = cx
            .ctx
            .append_basic_block(self.func, &format!("{label}.all_active"));
        let masked = cx
            .ctx
            .append_basic_block(self.func, &format!("{label}.masked"));
        cx.b.build_conditional_branch(all.into_int_value(), copy, masked)
            .map_err(|e| format!("{e:?}"))?;
        cx.b.position_at_end(masked);
        Ok(copy)
    }

    /// Emits the copy into `start`, after the masked code is complete.
    pub(super) fn emit_copy(&mut self, c: &Copy, start: BasicBlock<'ctx>) -> R<()> {
        let cx = self.cx;
        let f = self.f;
        // Fresh blocks and edges; values defined before the region (they
        // dominate it) keep their masked-code definitions.
        for b in self.blocks.iter_mut() {
            *b = None;
        }
        for t in self.terms.iter_mut() {
            *t = None;
        }
        self.edges.clear();
        for &b in &c.region {
            let label = format!("{}.all_active", f.block(b).label);
            self.blocks[b.index()] = Some(cx.ctx.append_basic_block(self.func, &label));
        }
        self.blocks[c.split.index()] = Some(start);
        let ones = cx.splat(cx.boolc(true))?;
        self.vals[c.mask.index()] = Some(ones);
        cx.b.position_at_end(start);
        for i in dependents(f, c.split, c.mask) {
            self.inst(c.split, i)?;
        }
        let term = f
            .terminator(c.split)
            .ok_or("split block without terminator")?;
        self.inst(c.split, term)?;
        let phis: Vec<(InstId, PhiValue<'ctx>)> = self.emit_blocks(&c.region)?;
        self.complete_phis(phis)
    }
}
