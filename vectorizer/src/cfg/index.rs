//! The block index (thesis §2.5): a topological order of the blocks that
//! ignores back edges and keeps loops and dominance regions together.
//!
//! **What is guaranteed.** The thesis asks for an order compact for every
//! loop *and* every dominance subtree. Both at once are impossible in general:
//! in `h → c, h → l, c → e, c → l, l → h` (loop {h, c, l}, exit e dominated by
//! c) loop compactness needs `h c l e` while the subtree {c, e} of c needs
//! `c e` adjacent. We guarantee (on reducible CFGs):
//! - topological: `index(a) < index(b)` for every edge `a → b` that is not a
//!   back edge;
//! - loop compact: every loop is an interval, its header first and (with a
//!   unique latch) its latch last;
//! - dominance compact *per loop level*: for every block `d`, the blocks of
//!   `d`'s innermost loop (the whole function if none) that `d` dominates form
//!   an interval; for a loop header that also holds in the parent loop. On a
//!   CFG without loops this is full dominance compactness.
//!
//! This is what the consumers need: `local_joins` walks a loop's interval,
//! and partial linearization works one loop level at a time, each level a DAG
//! in which a nested loop is one node.
//!
//! **How.** Collapse every loop into one node at its parent's level; at each
//! level order the dominator tree of the collapsed DAG in pre-order, children
//! sorted by reverse post-order (a topological order of the DAG, so sibling
//! subtrees come out topologically); expand every collapsed loop in place. In
//! one tree: the parent of a block is its immediate dominator taken at the
//! block's level (the header of the child loop that contains the idom, if
//! any); a header lists the children inside its loop before those after it.
//!
//! On irreducible CFGs (which our front end never produces) the index is the
//! reverse post-order, which is topological with respect to the DFS tree's
//! retreating edges; no compactness is promised.

use super::loops::{LoopForest, LoopId};
use crate::ir::BlockId;

/// Position of every reachable block in the block index.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockIndex {
    order: Vec<BlockId>,
    index: Vec<Option<u32>>,
}

impl BlockIndex {
    /// The blocks in index order (unreachable blocks are not listed).
    pub fn order(&self) -> &[BlockId] {
        &self.order
    }

    /// The index of a block (none for unreachable or unknown blocks).
    pub fn index(&self, b: BlockId) -> Option<u32> {
        self.index.get(b.index()).copied().flatten()
    }

    /// The block at an index.
    pub fn block(&self, i: u32) -> Option<BlockId> {
        self.order.get(i as usize).copied()
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Smallest and largest index of a set of blocks, if any has one.
    pub fn range(&self, blocks: &[BlockId]) -> Option<(u32, u32)> {
        let mut it = blocks.iter().filter_map(|&b| self.index(b));
        let first = it.next()?;
        Some(it.fold((first, first), |(lo, hi), i| (lo.min(i), hi.max(i))))
    }

    pub(crate) fn from_order(n: usize, order: Vec<BlockId>) -> BlockIndex {
        let mut index = vec![None; n];
        for (i, &b) in order.iter().enumerate() {
            if let Some(slot) = index.get_mut(b.index()) {
                *slot = Some(i as u32);
            }
        }
        BlockIndex { order, index }
    }
}

/// Inputs of the computation, from `Cfg::compute`.
pub(crate) struct Inputs<'a> {
    pub n: usize,
    pub entry: usize,
    pub rpo: &'a [usize],
    pub rpo_num: &'a dyn Fn(usize) -> Option<usize>,
    pub idom: &'a dyn Fn(usize) -> Option<usize>,
    pub loops: &'a LoopForest,
    /// Innermost loop of every block.
    pub loop_of: &'a [Option<LoopId>],
    /// The loop a block is the header of.
    pub header_of: &'a [Option<LoopId>],
    pub reducible: bool,
}

pub(crate) fn compute(inp: &Inputs) -> BlockIndex {
    let n = inp.n;
    if !inp.reducible || inp.entry >= n {
        let order = inp.rpo.iter().map(|&b| BlockId(b as u32)).collect();
        return BlockIndex::from_order(n, order);
    }
    let lp_of = |b: usize| inp.loop_of.get(b).copied().flatten();
    let parent_loop = |l: LoopId| inp.loops.parent(l);
    // The level (region) a block is a node of: its innermost loop, except
    // that a header is a node of its loop's parent.
    let level = |b: usize| match inp.header_of.get(b).copied().flatten() {
        Some(l) => parent_loop(l),
        None => lp_of(b),
    };
    // children[p] = (after_loop, rpo number, child)
    let mut children: Vec<Vec<(bool, usize, usize)>> = vec![Vec::new(); n];
    for &b in inp.rpo {
        if b == inp.entry {
            continue;
        }
        let Some(i) = (inp.idom)(b) else { continue };
        let region = level(b);
        // The node of `i` at `region`'s level: `i` itself, or the header of
        // the child loop of `region` that contains `i`.
        let (rep, after_loop) = match lp_of(i) {
            m if m == region => (i, false),
            Some(mut m) => {
                let mut guard = 0;
                while parent_loop(m) != region && guard <= inp.loops.len() {
                    match parent_loop(m) {
                        Some(p) => m = p,
                        None => break,
                    }
                    guard += 1;
                }
                if parent_loop(m) == region {
                    match inp.loops.header(m) {
                        Some(h) => (h.index(), true),
                        None => (i, false),
                    }
                } else {
                    (i, false)
                }
            }
            None => (i, false),
        };
        let r = (inp.rpo_num)(b).unwrap_or(usize::MAX);
        if let Some(list) = children.get_mut(rep) {
            list.push((after_loop, r, b));
        }
    }
    for list in &mut children {
        list.sort_unstable();
    }
    // Pre-order walk.
    let mut order = Vec::with_capacity(inp.rpo.len());
    let mut seen = vec![false; n];
    let mut stack = vec![(inp.entry, 0usize)];
    seen[inp.entry] = true;
    order.push(BlockId(inp.entry as u32));
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        match children[node].get(*next) {
            Some(&(_, _, c)) => {
                *next += 1;
                if !seen[c] {
                    seen[c] = true;
                    order.push(BlockId(c as u32));
                    stack.push((c, 0));
                }
            }
            None => {
                stack.pop();
            }
        }
    }
    // Anything missed (impossible on a reducible CFG) goes last, in RPO.
    for &b in inp.rpo {
        if !seen[b] {
            seen[b] = true;
            order.push(BlockId(b as u32));
        }
    }
    BlockIndex::from_order(n, order)
}
