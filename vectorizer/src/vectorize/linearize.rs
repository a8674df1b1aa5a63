//! Partial control-flow linearization (Moll & Hack, PLDI'18; thesis ch. 8,
//! Listing 8): folds every divergent branch into a jump to the lowest
//! pending block in the block index and keeps every uniform branch, in
//! linear time per loop level. Loops must be uniform (the divergent loop
//! transform runs first); each inner loop is one node of its parent's DAG.

use std::collections::{BTreeMap, BTreeSet};

use crate::cfg::{Cfg, LoopId};
use crate::ir::{BlockId, Function, InstKind};

/// A node of one loop level's DAG: a block of that level or an inner loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    Block(BlockId),
    Loop(LoopId),
}

pub struct Linearizer<'a> {
    cfg: &'a Cfg,
    /// Blocks whose terminator is a divergent branch.
    divergent: &'a BTreeSet<BlockId>,
}

impl<'a> Linearizer<'a> {
    pub fn new(cfg: &'a Cfg, divergent: &'a BTreeSet<BlockId>) -> Self {
        Linearizer { cfg, divergent }
    }

    fn index(&self, b: BlockId) -> u32 {
        self.cfg.block_index().index(b).unwrap_or(u32::MAX)
    }

    fn node_block(&self, n: Node) -> BlockId {
        match n {
            Node::Block(b) => b,
            Node::Loop(l) => self.cfg.loops().loops[l.index()].header,
        }
    }

    fn node_index(&self, n: Node) -> u32 {
        self.index(self.node_block(n))
    }

    /// The node of level `level` that contains `b`, if `b` is inside it.
    fn node_of(&self, level: Option<LoopId>, b: BlockId) -> Option<Node> {
        let forest = self.cfg.loops();
        let mut l = self.cfg.loop_of(b);
        // Walk up from b's innermost loop to the child of `level`.
        let mut child = None;
        while l != level {
            let cur = l?; // reached the top without meeting `level`: outside
            child = Some(cur);
            l = forest.parent(cur);
        }
        Some(match child {
            Some(c) => Node::Loop(c),
            None => Node::Block(b),
        })
    }

    /// Linearizes every level. Errors name a block whose shape the
    /// algorithm's preconditions exclude (nothing is changed then for that
    /// level; the caller refuses the kernel).
    pub fn run(&self, f: &mut Function) -> Result<(), String> {
        let mut levels: Vec<Option<LoopId>> = vec![None];
        levels.extend(self.cfg.loops().ids().map(Some));
        for level in levels {
            self.level(f, level)?;
        }
        Ok(())
    }

    fn level(&self, f: &mut Function, level: Option<LoopId>) -> Result<(), String> {
        let forest = self.cfg.loops();
        let header = level.map(|l| forest.loops[l.index()].header);
        let mut nodes: Vec<Node> = Vec::new();
        for &b in self.cfg.block_index().order() {
            if !self.cfg.is_reachable(b) {
                continue;
            }
            if self.cfg.loop_of(b) == level {
                nodes.push(Node::Block(b));
            } else if let Some(l) = self.cfg.header_of(b) {
                if forest.parent(l) == level {
                    nodes.push(Node::Loop(l));
                }
            }
        }
        nodes.sort_by_key(|&n| self.node_index(n));
        let mut pending: BTreeMap<Node, BTreeSet<(u32, Node)>> = BTreeMap::new();
        for &n in &nodes {
            let t: BTreeSet<(u32, Node)> = pending.remove(&n).unwrap_or_default();
            // The branch slots of this node: (block, successor slot, target).
            let slots: Vec<(BlockId, usize, BlockId)> = match n {
                Node::Block(b) => f
                    .successors(b)
                    .into_iter()
                    .enumerate()
                    .map(|(i, s)| (b, i, s))
                    .collect(),
                Node::Loop(l) => {
                    let lp = &forest.loops[l.index()];
                    let mut out = Vec::new();
                    for &x in &lp.blocks {
                        for (i, s) in f.successors(x).into_iter().enumerate() {
                            if !lp.contains(s) {
                                out.push((x, i, s));
                            }
                        }
                    }
                    out
                }
            };
            let divergent_block = match n {
                Node::Block(b) if self.divergent.contains(&b) => Some(b),
                _ => None,
            };
            let divergent = divergent_block.is_some();
            // Slots whose target is this level's header (the back edge) or
            // outside this level stay as they are.
            let mut inner: Vec<(BlockId, usize, Node)> = Vec::new();
            for &(x, i, s) in &slots {
                if Some(s) == header {
                    continue;
                }
                match self.node_of(level, s) {
                    Some(sn) => inner.push((x, i, sn)),
                    None => {
                        if !t.is_empty() || divergent {
                            return Err(format!(
                                "block {} leaves its loop with blocks pending",
                                x.0
                            ));
                        }
                    }
                }
            }
            if let Some(b) = divergent_block {
                let mut all = t.clone();
                for &(_, _, sn) in &inner {
                    all.insert((self.node_index(sn), sn));
                }
                let Some(&(_, next)) = all.iter().next() else {
                    continue;
                };
                let target = self.node_block(next);
                let term = f.terminator(b).ok_or("block without terminator")?;
                f.inst_mut(term).kind = InstKind::Br(target);
                all.remove(&(self.node_index(next), next));
                pending.entry(next).or_default().extend(all);
            } else {
                for &(x, i, sn) in &inner {
                    let mut all = t.clone();
                    all.insert((self.node_index(sn), sn));
                    let &(_, next) = all.iter().next().expect("non-empty");
                    set_successor(f, x, i, self.node_block(next))?;
                    all.remove(&(self.node_index(next), next));
                    pending.entry(next).or_default().extend(all);
                }
                if inner.is_empty() && !t.is_empty() {
                    // A sink with blocks still pending cannot happen with a
                    // unique exit; refuse rather than drop them.
                    return Err(format!(
                        "blocks pending at sink block {}",
                        self.node_block(n).0
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Sets successor slot `slot` of `b`'s terminator.
fn set_successor(f: &mut Function, b: BlockId, slot: usize, to: BlockId) -> Result<(), String> {
    let term = f.terminator(b).ok_or("block without terminator")?;
    match &mut f.inst_mut(term).kind {
        InstKind::Br(t) if slot == 0 => *t = to,
        InstKind::CondBr { then, els, .. } => match slot {
            0 => *then = to,
            1 => *els = to,
            _ => return Err("bad successor slot".into()),
        },
        InstKind::Switch { default, cases, .. } => {
            if slot == 0 {
                *default = to
            } else if let Some(c) = cases.get_mut(slot - 1) {
                c.1 = to
            } else {
                return Err("bad successor slot".into());
            }
        }
        _ => return Err("bad successor slot".into()),
    }
    Ok(())
}
