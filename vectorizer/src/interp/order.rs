//! The block order behind the lock-step schedule of horizontal operations:
//! a reverse post-order in which every loop is contiguous (a loop's blocks
//! come after its header and before any block that follows the loop), plus
//! the natural loops with their back edges.
//!
//! The interpreter keeps its own small implementation (iterative
//! dominators after Cooper, Harvey and Kennedy; natural loops from back
//! edges) instead of using the analyses in `cfg`, so that the oracle does
//! not share code with what it checks. Everything is iterative: no
//! recursion on the nesting depth of the user's loops.

use crate::ir::{BlockId, Function};

/// One natural loop (all back edges to one header merged).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Loop {
    pub header: BlockId,
    /// Membership per block.
    pub members: Vec<bool>,
    /// The largest position (in [`Order::pos`]) of a block of the loop.
    pub end: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Order {
    /// Position of every block in the loop-compact order; `u32::MAX` for
    /// blocks unreachable from the entry.
    pub pos: Vec<u32>,
    pub loops: Vec<Loop>,
    /// The loop a block heads, if any.
    pub header_of: Vec<Option<usize>>,
}

impl Order {
    pub fn new(f: &Function) -> Order {
        let n = f.blocks.len();
        let succs: Vec<Vec<usize>> = (0..n)
            .map(|b| {
                f.successors(BlockId(b as u32))
                    .into_iter()
                    .map(|s| s.index())
                    .filter(|&s| s < n)
                    .collect()
            })
            .collect();
        let entry = f.entry.index();
        if entry >= n {
            return Order {
                pos: vec![u32::MAX; n],
                loops: Vec::new(),
                header_of: vec![None; n],
            };
        }
        let rpo = reverse_post_order(&succs, entry);
        let mut rpo_num = vec![usize::MAX; n];
        for (k, &b) in rpo.iter().enumerate() {
            rpo_num[b] = k;
        }
        let mut preds = vec![Vec::new(); n];
        for &b in &rpo {
            for &s in &succs[b] {
                preds[s].push(b);
            }
        }
        let idom = dominators(&rpo, &rpo_num, &preds, entry);
        let dominates = |a: usize, mut b: usize| loop {
            if a == b {
                return true;
            }
            if b == entry || idom[b] == usize::MAX {
                return false;
            }
            b = idom[b];
        };

        // Natural loops: one per header, the union over its back edges.
        let mut header_of = vec![None; n];
        let mut loops: Vec<Loop> = Vec::new();
        for &u in &rpo {
            for &h in &succs[u] {
                if !dominates(h, u) {
                    continue;
                }
                let l = match header_of[h] {
                    Some(l) => l,
                    None => {
                        header_of[h] = Some(loops.len());
                        let mut members = vec![false; n];
                        members[h] = true;
                        loops.push(Loop {
                            header: BlockId(h as u32),
                            members,
                            end: 0,
                        });
                        loops.len() - 1
                    }
                };
                // Everything reaching the latch `u` without passing `h`.
                let mut work = vec![u];
                while let Some(b) = work.pop() {
                    if loops[l].members[b] {
                        continue;
                    }
                    loops[l].members[b] = true;
                    work.extend(preds[b].iter().copied());
                }
            }
        }

        let order = compact_order(&rpo, &succs, &preds, &loops, &header_of, &dominates);
        let mut pos = vec![u32::MAX; n];
        for (k, &b) in order.iter().enumerate() {
            pos[b] = k as u32;
        }
        for l in &mut loops {
            l.end = (0..n)
                .filter(|&b| l.members[b])
                .map(|b| pos[b])
                .filter(|&p| p != u32::MAX)
                .max()
                .unwrap_or(0);
        }
        Order {
            pos,
            loops,
            header_of,
        }
    }

    /// The loop whose back edge `from -> to` is, if it is one.
    pub fn back_edge(&self, from: BlockId, to: BlockId) -> Option<usize> {
        let l = (*self.header_of.get(to.index())?)?;
        self.loops[l]
            .members
            .get(from.index())
            .copied()
            .unwrap_or(false)
            .then_some(l)
    }
}

fn reverse_post_order(succs: &[Vec<usize>], entry: usize) -> Vec<usize> {
    let mut visited = vec![false; succs.len()];
    let mut post = Vec::new();
    let mut stack = vec![(entry, 0usize)];
    visited[entry] = true;
    while let Some((b, i)) = stack.last_mut() {
        if let Some(&s) = succs[*b].get(*i) {
            *i += 1;
            if !visited[s] {
                visited[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(*b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// Immediate dominators (`usize::MAX` for unreachable blocks; the entry is
/// its own).
fn dominators(rpo: &[usize], rpo_num: &[usize], preds: &[Vec<usize>], entry: usize) -> Vec<usize> {
    let mut idom = vec![usize::MAX; rpo_num.len()];
    idom[entry] = entry;
    let mut changed = true;
    while changed {
        changed = false;
        for &b in rpo.iter().skip(1) {
            let mut new = usize::MAX;
            for &p in &preds[b] {
                if idom[p] == usize::MAX {
                    continue;
                }
                new = if new == usize::MAX {
                    p
                } else {
                    let (mut x, mut y) = (p, new);
                    while x != y {
                        while rpo_num[x] > rpo_num[y] {
                            x = idom[x];
                        }
                        while rpo_num[y] > rpo_num[x] {
                            y = idom[y];
                        }
                    }
                    x
                };
            }
            if new != usize::MAX && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

/// A topological order of the CFG without back edges in which every loop
/// is contiguous: Kahn's algorithm that, while a loop is open (its header
/// placed, not all its blocks), only places blocks of the innermost open
/// loop; ties go to the smaller RPO number.
fn compact_order(
    rpo: &[usize],
    succs: &[Vec<usize>],
    preds: &[Vec<usize>],
    loops: &[Loop],
    header_of: &[Option<usize>],
    dominates: &dyn Fn(usize, usize) -> bool,
) -> Vec<usize> {
    let n = succs.len();
    // Forward in-degree (back edges ignored), reachable blocks only.
    let mut missing = vec![0usize; n];
    for &b in rpo {
        missing[b] = preds[b].iter().filter(|&&p| !dominates(b, p)).count();
    }
    let mut placed = vec![false; n];
    let mut left_in_loop: Vec<usize> = loops
        .iter()
        .map(|l| l.members.iter().filter(|&&m| m).count())
        .collect();
    let mut open: Vec<usize> = Vec::new();
    let mut out = Vec::with_capacity(rpo.len());
    while out.len() < rpo.len() {
        while open.last().is_some_and(|&l| left_in_loop[l] == 0) {
            open.pop();
        }
        let in_scope = |b: usize| open.last().is_none_or(|&l| loops[l].members[b]);
        let pick = rpo
            .iter()
            .copied()
            .find(|&b| !placed[b] && missing[b] == 0 && in_scope(b))
            // Only for irreducible graphs, which lowering never produces:
            // take the first unplaced block so the order stays total.
            .or_else(|| rpo.iter().copied().find(|&b| !placed[b]));
        let Some(b) = pick else { break };
        placed[b] = true;
        out.push(b);
        for (l, lp) in loops.iter().enumerate() {
            if lp.members[b] {
                left_in_loop[l] = left_in_loop[l].saturating_sub(1);
            }
        }
        if let Some(l) = header_of[b] {
            if left_in_loop[l] > 0 {
                open.push(l);
            }
        }
        for &s in &succs[b] {
            if !dominates(s, b) {
                missing[s] = missing[s].saturating_sub(1);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{InstKind, Src, Ty};
    use lanes_frontend::ast::NodeId;
    use lanes_frontend::source::Span;

    fn graph(edges: &[&[u32]]) -> Function {
        let mut f = Function::new("g", Span::default());
        for i in 0..edges.len() {
            f.add_block(format!("b{i}"));
        }
        let src = Src {
            node: NodeId(0),
            span: Span::default(),
        };
        let c = f.const_int(1, Ty::I1);
        for (i, e) in edges.iter().enumerate() {
            let b = BlockId(i as u32);
            let kind = match e {
                [] => InstKind::Ret,
                [t] => InstKind::Br(BlockId(*t)),
                [t, e] => InstKind::CondBr {
                    cond: c,
                    then: BlockId(*t),
                    els: BlockId(*e),
                },
                _ => InstKind::Switch {
                    value: c,
                    default: BlockId(e[0]),
                    cases: e[1..].iter().map(|&t| (0, BlockId(t))).collect(),
                },
            };
            f.append(b, kind, Ty::Void, src);
        }
        f
    }

    fn order_of(o: &Order) -> Vec<usize> {
        let mut v: Vec<(u32, usize)> = o
            .pos
            .iter()
            .enumerate()
            .filter(|(_, &p)| p != u32::MAX)
            .map(|(b, &p)| (p, b))
            .collect();
        v.sort();
        v.into_iter().map(|(_, b)| b).collect()
    }

    #[test]
    fn loop_body_comes_before_the_exit() {
        // 0 -> 1 (header) -> {2 body, 3 exit}; 2 -> 1. Plain RPO visiting
        // the body first puts the exit before the body.
        let f = graph(&[&[1], &[2, 3], &[1], &[]]);
        let o = Order::new(&f);
        assert_eq!(order_of(&o), vec![0, 1, 2, 3]);
        assert_eq!(o.loops.len(), 1);
        assert_eq!(o.loops[0].header, BlockId(1));
        assert_eq!(o.loops[0].end, 2);
        assert_eq!(o.back_edge(BlockId(2), BlockId(1)), Some(0));
        assert_eq!(o.back_edge(BlockId(0), BlockId(1)), None);
    }

    #[test]
    fn nested_loops_and_early_exits_stay_contiguous() {
        // 0 -> 1 (outer header) -> {2, 7}; 2 -> 3 (inner header) -> {4, 6};
        // 4 -> {3 (inner latch), 5 (break out of both loops)}; 6 -> 1
        // (outer latch); 5 -> 7; 7 exit.
        let f = graph(&[&[1], &[2, 7], &[3], &[4, 6], &[3, 5], &[7], &[1], &[]]);
        let o = Order::new(&f);
        let ord = order_of(&o);
        assert_eq!(ord.len(), 8);
        let p = |b: usize| ord.iter().position(|&x| x == b).unwrap();
        // Inner loop {3, 4} contiguous, outer {1, 2, 3, 4, 6} contiguous.
        assert_eq!(p(4), p(3) + 1);
        for b in [2, 3, 4, 6] {
            assert!(p(b) > p(1) && p(b) < p(5) && p(b) < p(7), "{ord:?}");
        }
        assert!(p(5) < p(7));
        assert_eq!(o.loops.len(), 2);
    }

    #[test]
    fn unreachable_blocks_have_no_position() {
        let f = graph(&[&[], &[0]]);
        let o = Order::new(&f);
        assert_eq!(o.pos, vec![0, u32::MAX]);
    }
}
