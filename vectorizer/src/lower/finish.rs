//! The end of lowering: drop the blocks nobody reaches, remove the φs that
//! became trivial without them, rewrite every use of a removed φ, and
//! renumber blocks (in reverse post-order, so the printed IR reads top
//! down) and instructions (only the placed ones).

use std::collections::HashSet;

use super::{LowerError, Lowerer};
use crate::ir::{BlockId, Const, Function, InstId, InstKind, Ty, ValueDef, ValueId};

impl Lowerer<'_> {
    pub(super) fn finish(mut self) -> Result<Function, Vec<LowerError>> {
        // Every block ends in a terminator (only blocks of dead code or an
        // earlier error can lack one).
        for b in 0..self.f.blocks.len() {
            let b = BlockId(b as u32);
            if self.f.terminator(b).is_none() {
                let src = self
                    .blocks
                    .get(b.index())
                    .map_or(self.kernel_src, |s| s.src);
                self.f.append(b, InstKind::Unreachable, Ty::Void, src);
            }
        }
        let order = reverse_post_order(&self.f);
        let reachable: HashSet<BlockId> = order.iter().copied().collect();

        // φ edges from blocks nobody reaches go away; φs left with one
        // distinct operand are trivial now.
        let mut phis = Vec::new();
        for &b in &order {
            let list: Vec<InstId> = self.f.phis(b).collect();
            for p in list {
                if let Some(InstKind::Phi { incoming }) =
                    self.f.insts.get_mut(p.index()).map(|i| &mut i.kind)
                {
                    incoming.retain(|(pred, _)| reachable.contains(pred));
                }
                phis.push(p);
            }
        }
        for p in phis {
            if self.f.is_placed(p) {
                self.try_remove_trivial_phi(p);
            }
        }
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        Ok(compact(self.f, &order, &self.ssa))
    }
}

/// Blocks reachable from the entry in reverse post-order. Successors are
/// visited last first (popped from the end of the list), so the first
/// successor (`then`, a loop body) comes first in the result.
fn reverse_post_order(f: &Function) -> Vec<BlockId> {
    let n = f.blocks.len();
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    let mut stack: Vec<(BlockId, Vec<BlockId>)> = Vec::new();
    if f.entry.index() < n {
        seen[f.entry.index()] = true;
        stack.push((f.entry, f.successors(f.entry)));
    }
    while let Some((b, succs)) = stack.last_mut() {
        match succs.pop() {
            Some(s) => {
                if s.index() < n && !seen[s.index()] {
                    seen[s.index()] = true;
                    stack.push((s, f.successors(s)));
                }
            }
            None => {
                post.push(*b);
                stack.pop();
            }
        }
    }
    post.reverse();
    post
}

/// Rebuilds the function with only the reachable blocks in `order`, their
/// placed instructions renumbered, and every operand resolved through the
/// φ forwarding of the SSA construction. Values of dropped instructions
/// become `undef` constants.
fn compact(mut f: Function, order: &[BlockId], ssa: &super::ssa::SsaState) -> Function {
    let nb = f.blocks.len();
    let mut block_map: Vec<Option<BlockId>> = vec![None; nb];
    for (i, &b) in order.iter().enumerate() {
        if let Some(m) = block_map.get_mut(b.index()) {
            *m = Some(BlockId(i as u32));
        }
    }
    let old_blocks = std::mem::take(&mut f.blocks);
    let old_insts = std::mem::take(&mut f.insts);
    let mut inst_map: Vec<Option<InstId>> = vec![None; old_insts.len()];
    let mut new_insts = Vec::new();
    let mut new_blocks = Vec::with_capacity(order.len());
    for (nbid, &b) in order.iter().enumerate() {
        let Some(old) = old_blocks.get(b.index()) else {
            continue;
        };
        let mut block = old.clone();
        block.insts.clear();
        for &i in &old.insts {
            let Some(inst) = old_insts.get(i.index()) else {
                continue;
            };
            let id = InstId(new_insts.len() as u32);
            if let Some(m) = inst_map.get_mut(i.index()) {
                *m = Some(id);
            }
            let mut inst = inst.clone();
            inst.block = BlockId(nbid as u32);
            inst.kind.for_each_operand_mut(|v| *v = ssa.resolve(*v));
            let remap = |b: &mut BlockId| {
                if let Some(Some(n)) = block_map.get(b.index()) {
                    *b = *n;
                }
            };
            match &mut inst.kind {
                InstKind::Phi { incoming } => incoming.iter_mut().for_each(|(b, _)| remap(b)),
                InstKind::Br(t) => remap(t),
                InstKind::CondBr { then, els, .. } => {
                    remap(then);
                    remap(els);
                }
                InstKind::Switch { default, cases, .. } => {
                    remap(default);
                    cases.iter_mut().for_each(|(_, b)| remap(b));
                }
                _ => {}
            }
            new_insts.push(inst);
            block.insts.push(id);
        }
        if let Some(p) = block.predicate {
            block.predicate = Some(ssa.resolve(p));
        }
        new_blocks.push(block);
    }
    // Value definitions: placed instructions get their new ids, the others
    // (dead code, removed φs) become undef.
    for v in f.values.iter_mut() {
        if let ValueDef::Inst(i) = v.def {
            v.def = match inst_map.get(i.index()).copied().flatten() {
                Some(n) => ValueDef::Inst(n),
                None => ValueDef::Const(Const::Undef(v.ty)),
            };
        }
    }
    f.blocks = new_blocks;
    f.insts = new_insts;
    f.entry = BlockId(0);
    // Variables: resolved, without undef, each value once.
    let values = &f.values;
    for var in f.vars.iter_mut() {
        let mut seen = HashSet::new();
        let list: Vec<ValueId> = var
            .values
            .iter()
            .map(|&v| ssa.resolve(v))
            .filter(|v| {
                !matches!(
                    values.get(v.index()).map(|x| &x.def),
                    Some(ValueDef::Const(Const::Undef(_)))
                )
            })
            .filter(|v| seen.insert(*v))
            .collect();
        var.values = list;
        var.block = var
            .block
            .and_then(|b| block_map.get(b.index()).copied().flatten());
    }
    f
}
