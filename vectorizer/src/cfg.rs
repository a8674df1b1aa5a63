//! CFG analyses: predecessors and successors, dominator and post-dominator
//! trees, natural loops, the block index (thesis §2.5), control dependence,
//! reducibility; loop canonicalization ([`canonicalize`]) and the
//! control-divergence analysis ([`Cfg::divergent_joins`], thesis ch. 7).
//!
//! [`Cfg::compute`] never panics and always terminates, whatever the input
//! (invalid successor ids are ignored, unreachable blocks get no dominator,
//! irreducible control flow is detected by [`Cfg::is_reducible`]). Every query
//! accepts any `BlockId` and answers "nothing" for ids out of range.
//!
//! Conventions:
//! - `succs(b)` lists the distinct successors of `b` in terminator order;
//!   `preds(b)` the distinct predecessors in block order (unreachable ones
//!   included). Edge multiplicity (a switch with two cases to one block)
//!   matters only for φs, which use `Function::predecessors`.
//! - Dominance is reflexive; unreachable blocks are dominated by nothing and
//!   dominate nothing (not even themselves).
//! - Post-dominance is computed with a virtual exit whose predecessors are
//!   all blocks without successors (`ret` and `unreachable`). Blocks that
//!   cannot reach it (an endless loop) have no post-dominator.
//! - The block index is topological (ignoring back edges) and loop compact;
//!   dominance compactness holds per loop level (the thesis' "every
//!   dominance subtree" is impossible together with loop compactness; see
//!   `cfg/index.rs`).
//! - Control dependence is Ferrante et al.'s: `k` is control dependent on
//!   the terminator of `a` iff `a` has a successor `s` with `k ⪰pd s` and
//!   `k` does not strictly post-dominate `a` (so a loop header whose branch
//!   exits is control dependent on itself).

use crate::ir::{BlockId, Function};

pub mod canon;
pub(crate) mod dom;
mod index;
pub mod joins;
mod loops;
#[cfg(test)]
mod tests;

pub use canon::{canonicalize, is_canonical};
pub use index::BlockIndex;
pub use joins::Joins;
pub use loops::{Loop, LoopForest, LoopId};

use dom::DomTree;

/// CFG facts of one function. Recompute after changing the CFG.
#[derive(Clone, Debug)]
pub struct Cfg {
    n: usize,
    entry: BlockId,
    succs: Vec<Vec<BlockId>>,
    preds: Vec<Vec<BlockId>>,
    dom: DomTree,
    /// Post-dominator tree of the reversed CFG; node `n` is the virtual exit.
    pdom: DomTree,
    rpo: Vec<BlockId>,
    loops: LoopForest,
    loop_of: Vec<Option<LoopId>>,
    header_of: Vec<Option<LoopId>>,
    index: BlockIndex,
    cdeps: Vec<Vec<BlockId>>,
    cdependents: Vec<Vec<BlockId>>,
    reducible: bool,
}

impl Cfg {
    pub fn compute(f: &Function) -> Cfg {
        let n = f.blocks.len();
        let entry = f.entry;
        // Distinct valid successors.
        let mut succs: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        for (b, list) in succs.iter_mut().enumerate() {
            let Some(&last) = f.blocks[b].insts.last() else {
                continue;
            };
            let Some(inst) = f.insts.get(last.index()) else {
                continue;
            };
            for s in inst.kind.successors() {
                if s.index() < n && !list.contains(&s) {
                    list.push(s);
                }
            }
        }
        let mut preds: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        for (b, list) in succs.iter().enumerate() {
            for &s in list {
                preds[s.index()].push(BlockId(b as u32));
            }
        }
        let as_usize = |g: &[Vec<BlockId>]| -> Vec<Vec<usize>> {
            g.iter()
                .map(|l| l.iter().map(|b| b.index()).collect())
                .collect()
        };
        let fwd = as_usize(&succs);
        let dom = DomTree::compute(n, entry.index(), &fwd);
        let rpo: Vec<BlockId> = dom.rpo().iter().map(|&b| BlockId(b as u32)).collect();

        // Reversed graph for post-dominators, reachable blocks only.
        let mut rev: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
        for &b in dom.rpo() {
            if fwd[b].is_empty() {
                rev[n].push(b);
            }
            for &p in &preds[b] {
                if dom.is_reachable(p.index()) {
                    rev[b].push(p.index());
                }
            }
        }
        let pdom = DomTree::compute(n + 1, n, &rev);

        let reducible = is_reducible(n, entry.index(), &fwd, &dom);
        let (loops, loop_of, header_of) = find_loops(n, &fwd, &preds, &dom);

        let rpo_num = |b: usize| dom.rpo_num(b);
        let idom = |b: usize| dom.idom(b);
        let index = index::compute(&index::Inputs {
            n,
            entry: entry.index(),
            rpo: dom.rpo(),
            rpo_num: &rpo_num,
            idom: &idom,
            loops: &loops,
            loop_of: &loop_of,
            header_of: &header_of,
            reducible,
        });

        // Control dependence: walk up the post-dominator tree from each
        // successor until the immediate post-dominator of the branch.
        let mut cdeps: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        for &a in dom.rpo() {
            if fwd[a].len() < 2 {
                continue; // a single successor post-dominates its block
            }
            let stop = pdom.idom(a);
            for &s in &fwd[a] {
                let mut runner = Some(s);
                let mut steps = 0;
                while let Some(r) = runner {
                    if Some(r) == stop || r >= n || steps > n {
                        break;
                    }
                    if cdeps[r].last() != Some(&BlockId(a as u32)) {
                        cdeps[r].push(BlockId(a as u32));
                    }
                    runner = pdom.idom(r);
                    steps += 1;
                }
            }
        }
        let mut cdependents: Vec<Vec<BlockId>> = vec![Vec::new(); n];
        for list in &mut cdeps {
            list.sort_unstable();
            list.dedup();
        }
        for (k, list) in cdeps.iter().enumerate() {
            for &a in list {
                cdependents[a.index()].push(BlockId(k as u32));
            }
        }

        Cfg {
            n,
            entry,
            succs,
            preds,
            dom,
            pdom,
            rpo,
            loops,
            loop_of,
            header_of,
            index,
            cdeps,
            cdependents,
            reducible,
        }
    }

    pub fn num_blocks(&self) -> usize {
        self.n
    }

    pub fn entry(&self) -> BlockId {
        self.entry
    }

    pub fn preds(&self, b: BlockId) -> &[BlockId] {
        self.preds
            .get(b.index())
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    pub fn succs(&self, b: BlockId) -> &[BlockId] {
        self.succs
            .get(b.index())
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    pub fn is_reachable(&self, b: BlockId) -> bool {
        self.dom.is_reachable(b.index())
    }

    pub fn idom(&self, b: BlockId) -> Option<BlockId> {
        self.dom.idom(b.index()).map(|d| BlockId(d as u32))
    }

    /// Children of `b` in the dominator tree, in reverse post-order.
    pub fn dom_children(&self, b: BlockId) -> Vec<BlockId> {
        self.dom
            .children(b.index())
            .iter()
            .map(|&c| BlockId(c as u32))
            .collect()
    }

    /// `a` dominates `b` (reflexive; false for unreachable blocks).
    pub fn dominates(&self, a: BlockId, b: BlockId) -> bool {
        self.dom.dominates(a.index(), b.index())
    }

    /// The immediate post-dominator; none when it is the virtual exit or
    /// `b` cannot reach an exit.
    pub fn ipdom(&self, b: BlockId) -> Option<BlockId> {
        if b.index() >= self.n {
            return None;
        }
        self.pdom
            .idom(b.index())
            .filter(|&p| p < self.n)
            .map(|p| BlockId(p as u32))
    }

    /// `a` post-dominates `b` (reflexive): every path from `b` to the exit
    /// passes through `a`.
    pub fn post_dominates(&self, a: BlockId, b: BlockId) -> bool {
        a.index() < self.n && b.index() < self.n && self.pdom.dominates(a.index(), b.index())
    }

    pub fn loops(&self) -> &LoopForest {
        &self.loops
    }

    /// The innermost loop containing `b`.
    pub fn loop_of(&self, b: BlockId) -> Option<LoopId> {
        self.loop_of.get(b.index()).copied().flatten()
    }

    /// The loop whose header `b` is.
    pub fn header_of(&self, b: BlockId) -> Option<LoopId> {
        self.header_of.get(b.index()).copied().flatten()
    }

    /// `a → b` is an edge whose target dominates its source.
    pub fn is_back_edge(&self, a: BlockId, b: BlockId) -> bool {
        self.succs(a).contains(&b) && self.dominates(b, a)
    }

    pub fn block_index(&self) -> &BlockIndex {
        &self.index
    }

    /// The blocks whose terminator `b` is control dependent on (sorted).
    pub fn control_deps(&self, b: BlockId) -> &[BlockId] {
        self.cdeps
            .get(b.index())
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    /// The blocks control dependent on the terminator of `branch_block`
    /// (sorted).
    pub fn control_dependents(&self, branch_block: BlockId) -> &[BlockId] {
        self.cdependents
            .get(branch_block.index())
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    /// Reverse post-order of the blocks reachable from the entry.
    pub fn rpo(&self) -> &[BlockId] {
        &self.rpo
    }

    /// Every retreating edge of a DFS goes to a block that dominates its
    /// source. Loop canonicalization and the block index need this.
    pub fn is_reducible(&self) -> bool {
        self.reducible
    }
}

/// A DFS from the entry; every retreating edge (to a block on the DFS
/// stack) must go to a dominator of its source.
fn is_reducible(n: usize, entry: usize, succs: &[Vec<usize>], dom: &DomTree) -> bool {
    if entry >= n {
        return true;
    }
    let mut state = vec![0u8; n]; // 0 new, 1 on stack, 2 done
    let mut stack = vec![(entry, 0usize)];
    state[entry] = 1;
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        if let Some(&s) = succs[node].get(*next) {
            *next += 1;
            match state[s] {
                0 => {
                    state[s] = 1;
                    stack.push((s, 0));
                }
                1 if !dom.dominates(s, node) => return false,
                _ => {}
            }
        } else {
            state[node] = 2;
            stack.pop();
        }
    }
    true
}

/// Natural loops: one per block that is the target of a back edge.
fn find_loops(
    n: usize,
    succs: &[Vec<usize>],
    preds: &[Vec<BlockId>],
    dom: &DomTree,
) -> (LoopForest, Vec<Option<LoopId>>, Vec<Option<LoopId>>) {
    let mut loops: Vec<Loop> = Vec::new();
    let mut loop_of: Vec<Option<LoopId>> = vec![None; n];
    let mut header_of: Vec<Option<LoopId>> = vec![None; n];
    let mut in_body = vec![false; n];
    // Headers in reverse post-order: an outer header dominates, hence
    // precedes, every header nested in its loop.
    for &h in dom.rpo() {
        let latches: Vec<usize> = preds[h]
            .iter()
            .map(|p| p.index())
            .filter(|&p| dom.is_reachable(p) && dom.dominates(h, p))
            .collect();
        if latches.is_empty() {
            continue;
        }
        let id = LoopId(loops.len() as u32);
        let mut body = vec![h];
        in_body[h] = true;
        let mut work: Vec<usize> = Vec::new();
        for &l in &latches {
            if !in_body[l] {
                in_body[l] = true;
                body.push(l);
                work.push(l);
            }
        }
        while let Some(b) = work.pop() {
            for p in &preds[b] {
                let p = p.index();
                if !in_body[p] && dom.is_reachable(p) {
                    in_body[p] = true;
                    body.push(p);
                    work.push(p);
                }
            }
        }
        for &b in &body {
            in_body[b] = false;
        }
        // The innermost loop assigned so far containing the header is the
        // parent: loops containing it were processed before and nest.
        let parent = loop_of[h];
        for &b in &body {
            loop_of[b] = Some(id);
        }
        header_of[h] = Some(id);
        body.sort_unstable();
        let blocks: Vec<BlockId> = body.iter().map(|&b| BlockId(b as u32)).collect();
        let contains = |b: usize| blocks.binary_search(&BlockId(b as u32)).is_ok();
        let mut exits = Vec::new();
        let mut exiting = Vec::new();
        for &b in &body {
            let mut leaves = false;
            for &s in &succs[b] {
                if !contains(s) {
                    leaves = true;
                    exits.push(BlockId(s as u32));
                }
            }
            if leaves {
                exiting.push(BlockId(b as u32));
            }
        }
        exits.sort_unstable();
        exits.dedup();
        let mut latches: Vec<BlockId> = latches.iter().map(|&b| BlockId(b as u32)).collect();
        latches.sort_unstable();
        loops.push(Loop {
            header: BlockId(h as u32),
            latches,
            blocks,
            exits,
            exiting,
            parent,
            children: Vec::new(),
            depth: 0,
        });
    }
    // Children and depths (parents come first in `loops`).
    let mut top_level = Vec::new();
    for i in 0..loops.len() {
        let id = LoopId(i as u32);
        match loops[i].parent {
            Some(p) => {
                let d = loops[p.index()].depth;
                loops[i].depth = d + 1;
                loops[p.index()].children.push(id);
            }
            None => {
                loops[i].depth = 1;
                top_level.push(id);
            }
        }
    }
    (LoopForest { loops, top_level }, loop_of, header_of)
}
