//! Control divergence (thesis ch. 7): which blocks a divergent terminator
//! makes *sync divergent* (lanes that took different paths meet there, so
//! its φs differ across lanes) and which loop exits it makes *temporally
//! divergent* (lanes leave the loop there in different iterations, so the
//! LCSSA φs there differ across lanes).
//!
//! This is `global_joins` (Listing 7) over `local_joins` (Listing 4) and
//! `local_exits` (Listing 6), with `PushDef` (Listing 5), corrected where the
//! printed listings have typos:
//! - the uniform successors of a collapsed loop are `Exits(DivLoop) \
//!   DivSucc'` (printed as `\ DivSuccSet`);
//! - `local_joins` walks only the blocks of the parent loop that come after
//!   the divergent node in the block index (as LLVM's port does), so a
//!   divergent successor that is the loop header (a latch branching back) is
//!   not walked through the loop again, and propagation stops at the loop
//!   exits: sync joins outside the loop are found in the next round, when the
//!   loop is collapsed into one node whose successors are its exits
//!   (divergent exits as divergent edges, the others as uniform edges: a
//!   partially divergent node, Definition 21).
//!
//! A divergent exit leaves a chain of loops; each of them is a divergent
//! loop. The loop collapsed next (`DivLoop`) is, over all divergent exits
//! found in a round, the innermost of the outermost loops they leave.
//!
//! `DomMap` (Theorem 2): for every block reached from the divergent node by
//! forward paths, `Block(d)` names the "definition" that reaches it and `Uni`
//! marks blocks reached only through uniform successors. Two different
//! values mean almost node-disjoint paths starting with a divergent edge, so
//! a block where two values meet is a sync join (and becomes its own value).
//! A loop exit whose value differs from the value carried around the back
//! edge (the header's) is a divergent exit (Axiom 2: `{latch, exit} ∈ Cnb`).
//!
//! **Requires canonical loops** (`cfg::canonicalize`): a unique preheader, a
//! unique latch, dedicated exits with one incoming edge each. On other CFGs
//! nothing panics, but the result is not guaranteed (an exit block shared
//! with code outside the loop, or several latches, mix values the algorithm
//! keeps apart). On DAGs the sync joins are exactly those of the
//! disjoint-paths criterion (Theorem 7; checked by brute force on random
//! DAGs in `cfg/tests.rs`); on loops it reproduces the thesis' examples (see
//! `tests/control_divergence.rs`).

use std::collections::BTreeSet;

use super::{Cfg, LoopId};
use crate::ir::BlockId;

/// The blocks made divergent by one divergent terminator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Joins {
    /// Sync dependences: φs there become varying (sorted).
    pub sync: Vec<BlockId>,
    /// Temporal divergence: divergent loop exits; LCSSA φs there become
    /// varying (sorted).
    pub loop_exits: Vec<BlockId>,
    /// Loops in which lanes leave in different iterations (sorted).
    pub divergent_loops: Vec<LoopId>,
}

/// A `DomMap` entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Def {
    Bottom,
    Uni,
    Block(BlockId),
}

/// The result of one `local_joins` round.
struct Local {
    sync: Vec<BlockId>,
    div_exits: Vec<BlockId>,
    /// The innermost loop left through a divergent exit, to be collapsed
    /// next (`DivLoop`).
    div_loop: Option<LoopId>,
}

impl Cfg {
    /// Blocks made divergent by a divergent terminator in `block` whose
    /// successors `div_succs` are divergent and `uni_succs` uniform (a plain
    /// divergent branch: all successors divergent, none uniform). A block in
    /// both lists counts as divergent. Requires canonical loops (see the
    /// module documentation).
    pub fn divergent_joins(
        &self,
        block: BlockId,
        div_succs: &[BlockId],
        uni_succs: &[BlockId],
    ) -> Joins {
        if !self.is_reachable(block) {
            return Joins::default();
        }
        let valid = |b: &&BlockId| self.is_reachable(**b);
        let mut div: Vec<BlockId> = div_succs.iter().filter(valid).copied().collect();
        div.sort_unstable();
        div.dedup();
        let mut uni: Vec<BlockId> = uni_succs
            .iter()
            .filter(valid)
            .filter(|b| div.binary_search(b).is_err())
            .copied()
            .collect();
        uni.sort_unstable();
        uni.dedup();

        let mut sync = BTreeSet::new();
        let mut loop_exits = BTreeSet::new();
        let mut div_loops = BTreeSet::new();
        // The divergent node: first the block, then collapsed loops. Walk the
        // blocks after its last index.
        let mut after = self.block_index().index(block);
        let mut parent = self.loop_of(block);
        // Each round moves to a strictly outer loop, so this is bounded by
        // the loop depth; the explicit bound guards against malformed trees.
        for _ in 0..=self.loops().len() + 1 {
            let Some(start) = after else { break };
            let local = self.local_joins(start, &div, &uni, parent);
            sync.extend(local.sync.iter().copied());
            loop_exits.extend(local.div_exits.iter().copied());
            for &e in &local.div_exits {
                // Every loop the exit leaves is left in different iterations.
                let mut l = parent;
                while let Some(x) = l {
                    if self.loops().contains(x, e) {
                        break;
                    }
                    div_loops.insert(x);
                    l = self.loops().parent(x);
                }
            }
            let Some(dl) = local.div_loop else { break };
            let Some(lp) = self.loops().get(dl) else {
                break;
            };
            div = lp
                .exits
                .iter()
                .filter(|e| loop_exits.contains(*e))
                .copied()
                .collect();
            uni = lp
                .exits
                .iter()
                .filter(|e| !loop_exits.contains(*e))
                .copied()
                .collect();
            parent = lp.parent;
            after = self.block_index().range(&lp.blocks).map(|(_, hi)| hi);
        }
        Joins {
            sync: sync.into_iter().collect(),
            loop_exits: loop_exits.into_iter().collect(),
            divergent_loops: div_loops.into_iter().collect(),
        }
    }

    /// `local_joins` + `local_exits` for a (partially) divergent node whose
    /// blocks end at block index `start`, inside `parent` (none: top level).
    fn local_joins(
        &self,
        start: u32,
        div: &[BlockId],
        uni: &[BlockId],
        parent: Option<LoopId>,
    ) -> Local {
        let loops = self.loops();
        let inside = |b: BlockId| parent.is_none_or(|p| loops.contains(p, b));
        let n = self.num_blocks();
        let mut dom_map = vec![Def::Bottom; n];
        let mut sync: Vec<BlockId> = Vec::new();
        let mut reached_exits: Vec<BlockId> = Vec::new();
        // Membership flags, to keep the pass linear: bit 0 sync, bit 1
        // reached exit.
        let mut flags = vec![0u8; n];

        // PushDef (Listing 5).
        let mut push = |b: BlockId, d: Def, dom_map: &mut Vec<Def>| {
            let (Some(slot), Some(flag)) = (dom_map.get_mut(b.index()), flags.get_mut(b.index()))
            else {
                return;
            };
            if *slot != Def::Bottom && *slot != d {
                if *flag & 1 == 0 {
                    *flag |= 1;
                    sync.push(b);
                }
                *slot = Def::Block(b);
            } else {
                *slot = d;
            }
            if *flag & 2 == 0 && !inside(b) {
                *flag |= 2;
                reached_exits.push(b);
            }
        };
        for &s in div {
            push(s, Def::Block(s), &mut dom_map);
        }
        for &s in uni {
            push(s, Def::Uni, &mut dom_map);
        }
        let order = self.block_index().order();
        for &b in order.iter().skip(start as usize + 1) {
            if !inside(b) {
                continue; // exits are recorded, not walked through
            }
            let d = dom_map[b.index()];
            if d == Def::Bottom {
                continue;
            }
            for &s in self.succs(b) {
                push(s, d, &mut dom_map);
            }
        }

        // local_exits (Listing 6).
        let mut div_exits = Vec::new();
        let mut div_loop: Option<LoopId> = None;
        if let Some(p) = parent {
            let header_def = loops
                .header(p)
                .map(|h| dom_map[h.index()])
                .unwrap_or(Def::Bottom);
            for &e in &reached_exits {
                if dom_map[e.index()] == header_def {
                    continue;
                }
                div_exits.push(e);
                // The outermost loop around the node that `e` leaves.
                let mut l = p;
                while let Some(q) = loops.parent(l) {
                    if loops.contains(q, e) {
                        break;
                    }
                    l = q;
                }
                // Keep the innermost of those (they all lie on one chain).
                let depth = |x: LoopId| loops.get(x).map_or(0, |lp| lp.depth);
                if div_loop.is_none_or(|cur| depth(l) > depth(cur)) {
                    div_loop = Some(l);
                }
            }
        }
        sync.sort_unstable();
        div_exits.sort_unstable();
        Local {
            sync,
            div_exits,
            div_loop,
        }
    }
}
