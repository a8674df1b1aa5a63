//! Natural loops and the loop forest.

use crate::ir::BlockId;

/// A loop, by index into [`LoopForest::loops`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LoopId(pub u32);

impl LoopId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A natural loop: a header and every block that reaches one of its back
/// edges without passing through the header. All back edges to one header
/// form one loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loop {
    pub header: BlockId,
    /// Blocks of the loop with an edge to the header (sorted).
    pub latches: Vec<BlockId>,
    /// Every block of the loop, including nested loops (sorted).
    pub blocks: Vec<BlockId>,
    /// Blocks outside the loop with a predecessor inside (sorted).
    pub exits: Vec<BlockId>,
    /// Blocks inside the loop with a successor outside (sorted).
    pub exiting: Vec<BlockId>,
    pub parent: Option<LoopId>,
    pub children: Vec<LoopId>,
    /// 1 for an outermost loop.
    pub depth: u32,
}

impl Loop {
    pub fn contains(&self, b: BlockId) -> bool {
        self.blocks.binary_search(&b).is_ok()
    }
}

/// All natural loops of a function. Loops are listed so that a loop comes
/// after every loop that contains it (outer headers first in reverse
/// post-order).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopForest {
    pub loops: Vec<Loop>,
    /// Loops without a parent, in order.
    pub top_level: Vec<LoopId>,
}

impl LoopForest {
    pub fn get(&self, l: LoopId) -> Option<&Loop> {
        self.loops.get(l.index())
    }

    pub fn len(&self) -> usize {
        self.loops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    pub fn ids(&self) -> impl Iterator<Item = LoopId> {
        (0..self.loops.len() as u32).map(LoopId)
    }

    /// `block` is in loop `l` (or in one of its nested loops).
    pub fn contains(&self, l: LoopId, block: BlockId) -> bool {
        self.get(l).is_some_and(|lp| lp.contains(block))
    }

    /// `outer` is `inner` or contains it.
    pub fn is_ancestor(&self, outer: LoopId, inner: LoopId) -> bool {
        let mut cur = Some(inner);
        // Bounded: parents strictly decrease the depth.
        for _ in 0..=self.loops.len() {
            match cur {
                Some(l) if l == outer => return true,
                Some(l) => cur = self.get(l).and_then(|lp| lp.parent),
                None => return false,
            }
        }
        false
    }

    pub fn parent(&self, l: LoopId) -> Option<LoopId> {
        self.get(l).and_then(|lp| lp.parent)
    }

    pub fn header(&self, l: LoopId) -> Option<BlockId> {
        self.get(l).map(|lp| lp.header)
    }
}
