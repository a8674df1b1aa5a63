//! Dominator trees on a graph given as successor lists, by the iterative
//! algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast Dominance
//! Algorithm", 2001). It is short and obviously correct, and fast enough for
//! kernels. Used for dominators (the CFG from the entry) and post-dominators
//! (the reversed CFG from a virtual exit).
//!
//! Nothing here recurses: DFS and tree walks use explicit stacks, so deep
//! graphs cannot overflow the stack.

/// Sentinel for "not reachable from the root".
const NONE: usize = usize::MAX;

#[derive(Clone, Debug)]
pub(crate) struct DomTree {
    /// Immediate dominator; the root's is itself; `NONE` when unreachable.
    idom: Vec<usize>,
    /// Reverse post-order of the nodes reachable from the root.
    rpo: Vec<usize>,
    /// Position in `rpo`; `NONE` when unreachable.
    rpo_num: Vec<usize>,
    /// Pre-order interval of every node in the dominator tree, for O(1)
    /// dominance queries.
    pre: Vec<usize>,
    post: Vec<usize>,
    children: Vec<Vec<usize>>,
}

impl DomTree {
    /// Dominator tree of the nodes `0..n` reachable from `root`. Successor
    /// ids out of range are ignored (the verifier reports them).
    pub fn compute(n: usize, root: usize, succs: &[Vec<usize>]) -> DomTree {
        let mut t = DomTree {
            idom: vec![NONE; n],
            rpo: Vec::new(),
            rpo_num: vec![NONE; n],
            pre: vec![NONE; n],
            post: vec![NONE; n],
            children: vec![Vec::new(); n],
        };
        if root >= n {
            return t;
        }
        let succ = |b: usize| succs.get(b).map(|s| s.as_slice()).unwrap_or(&[]);
        t.rpo = reverse_post_order(n, root, succs);
        for (i, &b) in t.rpo.iter().enumerate() {
            t.rpo_num[b] = i;
        }
        // Predecessors among reachable nodes.
        let mut preds = vec![Vec::new(); n];
        for &b in &t.rpo {
            for &s in succ(b) {
                if s < n && t.rpo_num[s] != NONE {
                    preds[s].push(b);
                }
            }
        }
        t.idom[root] = root;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in t.rpo.iter().skip(1) {
                let mut new_idom = NONE;
                for &p in &preds[b] {
                    if t.idom[p] == NONE {
                        continue;
                    }
                    new_idom = if new_idom == NONE {
                        p
                    } else {
                        intersect(&t.idom, &t.rpo_num, p, new_idom)
                    };
                }
                if new_idom != NONE && t.idom[b] != new_idom {
                    t.idom[b] = new_idom;
                    changed = true;
                }
            }
        }
        for &b in t.rpo.iter().skip(1) {
            if t.idom[b] != NONE {
                let p = t.idom[b];
                t.children[p].push(b);
            }
        }
        // Pre/post numbering of the tree, iteratively.
        let mut counter = 0;
        let mut stack = vec![(root, 0usize)];
        t.pre[root] = counter;
        counter += 1;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&c) = t.children[node].get(*next) {
                *next += 1;
                t.pre[c] = counter;
                counter += 1;
                stack.push((c, 0));
            } else {
                t.post[node] = counter;
                counter += 1;
                stack.pop();
            }
        }
        t
    }

    pub fn is_reachable(&self, x: usize) -> bool {
        self.rpo_num.get(x).is_some_and(|&r| r != NONE)
    }

    /// The immediate dominator (none for the root and unreachable nodes).
    pub fn idom(&self, x: usize) -> Option<usize> {
        match self.idom.get(x) {
            Some(&d) if d != NONE && d != x => Some(d),
            _ => None,
        }
    }

    /// `a` dominates `b` (reflexive). False when either is unreachable.
    pub fn dominates(&self, a: usize, b: usize) -> bool {
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        self.pre[a] <= self.pre[b] && self.post[b] <= self.post[a]
    }

    pub fn rpo(&self) -> &[usize] {
        &self.rpo
    }

    /// Position in reverse post-order, if reachable.
    pub fn rpo_num(&self, x: usize) -> Option<usize> {
        self.rpo_num.get(x).copied().filter(|&r| r != NONE)
    }

    pub fn children(&self, x: usize) -> &[usize] {
        self.children.get(x).map(|c| c.as_slice()).unwrap_or(&[])
    }
}

fn intersect(idom: &[usize], rpo_num: &[usize], mut a: usize, mut b: usize) -> usize {
    while a != b {
        while rpo_num[a] > rpo_num[b] {
            a = idom[a];
        }
        while rpo_num[b] > rpo_num[a] {
            b = idom[b];
        }
    }
    a
}

/// Reverse post-order of a depth-first search from `root`, visiting
/// successors in list order.
pub(crate) fn reverse_post_order(n: usize, root: usize, succs: &[Vec<usize>]) -> Vec<usize> {
    let mut post = Vec::new();
    if root >= n {
        return post;
    }
    let succ = |b: usize| succs.get(b).map(|s| s.as_slice()).unwrap_or(&[]);
    let mut seen = vec![false; n];
    let mut stack = vec![(root, 0usize)];
    seen[root] = true;
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        if let Some(&s) = succ(node).get(*next) {
            *next += 1;
            if s < n && !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(node);
            stack.pop();
        }
    }
    post.reverse();
    post
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dominance by definition: `a` dominates `b` iff `b` is unreachable
    /// from the root once `a` is removed.
    fn dominates_naive(n: usize, root: usize, succs: &[Vec<usize>], a: usize, b: usize) -> bool {
        if a == b {
            return true;
        }
        if a == root {
            return true;
        }
        let mut seen = vec![false; n];
        let mut stack = vec![root];
        seen[root] = true;
        while let Some(x) = stack.pop() {
            for &s in &succs[x] {
                if s != a && !seen[s] {
                    seen[s] = true;
                    stack.push(s);
                }
            }
        }
        !seen[b]
    }

    fn graph(n: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
        let mut g = vec![Vec::new(); n];
        for &(a, b) in edges {
            g[a].push(b);
        }
        g
    }

    #[test]
    fn diamond_and_loop() {
        // 0 -> 1 -> 3, 0 -> 2 -> 3, 3 -> 4 -> 3, 4 -> 5
        let g = graph(6, &[(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (4, 3), (4, 5)]);
        let t = DomTree::compute(6, 0, &g);
        assert_eq!(t.idom(0), None);
        assert_eq!(t.idom(1), Some(0));
        assert_eq!(t.idom(2), Some(0));
        assert_eq!(t.idom(3), Some(0));
        assert_eq!(t.idom(4), Some(3));
        assert_eq!(t.idom(5), Some(4));
        assert!(t.dominates(3, 5));
        assert!(!t.dominates(1, 3));
        assert!(t.dominates(4, 4));
    }

    #[test]
    fn unreachable_nodes() {
        let g = graph(4, &[(0, 1), (2, 3), (3, 1)]);
        let t = DomTree::compute(4, 0, &g);
        assert!(!t.is_reachable(2));
        assert_eq!(t.idom(2), None);
        assert_eq!(t.idom(1), Some(0));
        assert!(!t.dominates(0, 2));
        assert_eq!(t.rpo(), &[0, 1]);
    }

    #[test]
    fn irreducible_graph_terminates() {
        // 0 -> 1, 0 -> 2, 1 <-> 2: the classic irreducible loop.
        let g = graph(4, &[(0, 1), (0, 2), (1, 2), (2, 1), (2, 3)]);
        let t = DomTree::compute(4, 0, &g);
        assert_eq!(t.idom(1), Some(0));
        assert_eq!(t.idom(2), Some(0));
        assert_eq!(t.idom(3), Some(2));
    }

    #[test]
    fn matches_naive_definition_on_random_graphs() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..200 {
            let n = 2 + (next() % 9) as usize;
            let mut g = vec![Vec::new(); n];
            for (a, succs) in g.iter_mut().enumerate() {
                let k = next() % 3;
                for _ in 0..k {
                    let b = (next() % n as u64) as usize;
                    let _ = a;
                    succs.push(b);
                }
            }
            let t = DomTree::compute(n, 0, &g);
            for a in 0..n {
                for b in 0..n {
                    if t.is_reachable(a) && t.is_reachable(b) {
                        assert_eq!(
                            t.dominates(a, b),
                            dominates_naive(n, 0, &g, a, b),
                            "{a} dom {b} in {g:?}"
                        );
                    }
                }
            }
        }
    }
}
