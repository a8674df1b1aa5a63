//! Unit tests of the CFG analyses and loop canonicalization, on hand-made
//! CFGs and on random structured programs (nested if/while/do/switch with
//! break/continue/return, from a small grammar with fixed seeds).

use std::collections::HashSet;

use super::canon::remove_unreachable_for_tests as remove_unreachable;
use super::*;
use crate::ir::verify::{verify, verify_with};
use crate::ir::{BinOp, InstId, InstKind, Param, Src, Ty, ValueId, Var};
use lanes_frontend::ast::NodeId;
use lanes_frontend::source::Span;

fn src() -> Src {
    Src {
        node: NodeId(0),
        span: Span::default(),
    }
}

fn src_n(n: u32) -> Src {
    Src {
        node: NodeId(n),
        span: Span::default(),
    }
}

fn b(i: u32) -> BlockId {
    BlockId(i)
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Parameters every generated function has: `%0: i1 c`, `%1: i32 s`,
/// `%2: i32 x`.
fn with_params(name: &str) -> (Function, ValueId, ValueId, ValueId) {
    let mut f = Function::new(name, Span::default());
    let p = |f: &mut Function, n: &str, ty: Ty| {
        f.add_param(Param {
            name: n.into(),
            ty,
            source_index: 0,
            component: None,
            span: Span::default(),
        })
    };
    let c = p(&mut f, "c", Ty::I1);
    let s = p(&mut f, "s", Ty::I32);
    let x = p(&mut f, "x", Ty::I32);
    (f, c, s, x)
}

/// A function whose block `i` branches to `succs[i]`: none → `ret`, one →
/// `br`, two → `br %c`, more → `switch %s`. Block 0 is the entry.
fn from_edges(succs: &[&[u32]]) -> Function {
    let (mut f, c, s, _) = with_params("edges");
    for i in 0..succs.len() {
        f.add_block(format!("b{i}"));
    }
    for (i, ss) in succs.iter().enumerate() {
        let blk = b(i as u32);
        let kind = match ss.len() {
            0 => InstKind::Ret,
            1 => InstKind::Br(b(ss[0])),
            2 => InstKind::CondBr {
                cond: c,
                then: b(ss[0]),
                els: b(ss[1]),
            },
            _ => InstKind::Switch {
                value: s,
                default: b(ss[0]),
                cases: ss[1..]
                    .iter()
                    .enumerate()
                    .map(|(k, &t)| (k as u64, b(t)))
                    .collect(),
            },
        };
        f.append(blk, kind, Ty::Void, src_n(1000 + i as u32));
    }
    f
}

// ---- random structured programs ------------------------------------------

struct Gen {
    f: Function,
    rng: Rng,
    c: ValueId,
    s: ValueId,
    /// (continue target, break target) of the enclosing loops.
    targets: Vec<(BlockId, BlockId)>,
    budget: u32,
}

impl Gen {
    fn block(&mut self, label: &str) -> BlockId {
        self.f.add_block(label)
    }

    fn term(&mut self, blk: BlockId, kind: InstKind) {
        let n = blk.0;
        self.f.append(blk, kind, Ty::Void, src_n(1000 + n));
    }

    fn stmts(&mut self, mut cur: BlockId, depth: u32) -> Option<BlockId> {
        let n = 1 + self.rng.below(3);
        for _ in 0..n {
            cur = self.stmt(cur, depth)?;
        }
        Some(cur)
    }

    fn stmt(&mut self, cur: BlockId, depth: u32) -> Option<BlockId> {
        let compound = depth < 4 && self.budget > 0;
        let choice = if compound {
            self.rng.below(12)
        } else {
            [0, 0, 0, 9, 10, 11][self.rng.below(6) as usize]
        };
        if compound && choice <= 8 && choice > 0 {
            self.budget -= 1;
        }
        match choice {
            1 | 2 => {
                // if / if-else
                let then = self.block("if.then");
                let join = self.block("if.end");
                let els = if choice == 2 {
                    self.block("if.else")
                } else {
                    join
                };
                let c = self.c;
                self.term(cur, InstKind::CondBr { cond: c, then, els });
                if let Some(e) = self.stmts(then, depth + 1) {
                    self.term(e, InstKind::Br(join));
                }
                if choice == 2 {
                    if let Some(e) = self.stmts(els, depth + 1) {
                        self.term(e, InstKind::Br(join));
                    }
                }
                Some(join)
            }
            3..=5 => {
                // while / for
                let header = self.block("while.cond");
                let body = self.block("while.body");
                let exit = self.block("while.end");
                self.term(cur, InstKind::Br(header));
                let c = self.c;
                self.term(
                    header,
                    InstKind::CondBr {
                        cond: c,
                        then: body,
                        els: exit,
                    },
                );
                let cont = if choice == 5 {
                    self.block("for.inc")
                } else {
                    header
                };
                self.targets.push((cont, exit));
                let end = self.stmts(body, depth + 1);
                self.targets.pop();
                if let Some(e) = end {
                    self.term(e, InstKind::Br(cont));
                }
                if choice == 5 {
                    self.term(cont, InstKind::Br(header));
                }
                Some(exit)
            }
            6 | 7 => {
                // do-while
                let body = self.block("do.body");
                let cond = self.block("do.cond");
                let exit = self.block("do.end");
                self.term(cur, InstKind::Br(body));
                self.targets.push((cond, exit));
                let end = self.stmts(body, depth + 1);
                self.targets.pop();
                if let Some(e) = end {
                    self.term(e, InstKind::Br(cond));
                }
                let c = self.c;
                self.term(
                    cond,
                    InstKind::CondBr {
                        cond: c,
                        then: body,
                        els: exit,
                    },
                );
                Some(exit)
            }
            8 => {
                // switch with fall-through
                let k = 2 + self.rng.below(2) as usize;
                let cases: Vec<BlockId> = (0..k).map(|_| self.block("sw.case")).collect();
                let end = self.block("sw.end");
                let s = self.s;
                self.term(
                    cur,
                    InstKind::Switch {
                        value: s,
                        default: end,
                        cases: cases
                            .iter()
                            .enumerate()
                            .map(|(i, &c)| (i as u64, c))
                            .collect(),
                    },
                );
                self.targets
                    .push((self.targets.last().map_or(end, |t| t.0), end));
                for i in 0..k {
                    if let Some(e) = self.stmts(cases[i], depth + 1) {
                        let next = if i + 1 < k && self.rng.chance(40) {
                            cases[i + 1]
                        } else {
                            end
                        };
                        self.term(e, InstKind::Br(next));
                    }
                }
                self.targets.pop();
                Some(end)
            }
            9 if !self.targets.is_empty() => {
                let (_, brk) = *self.targets.last().unwrap_or(&(cur, cur));
                self.term(cur, InstKind::Br(brk));
                None
            }
            10 if !self.targets.is_empty() => {
                let (cont, _) = *self.targets.last().unwrap_or(&(cur, cur));
                self.term(cur, InstKind::Br(cont));
                None
            }
            11 if self.rng.chance(30) => {
                self.term(cur, InstKind::Ret);
                None
            }
            _ => {
                let next = self.block("bb");
                self.term(cur, InstKind::Br(next));
                Some(next)
            }
        }
    }
}

/// A random structured program (maybe with unreachable blocks) with values:
/// every block defines one, uses values of its dominators, and join blocks
/// have φs over values available at each predecessor.
fn generate(seed: u64) -> Function {
    let (f, c, s, x) = with_params("gen");
    let mut g = Gen {
        f,
        rng: Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1),
        c,
        s,
        targets: Vec::new(),
        budget: 14,
    };
    let entry = g.block("entry");
    if let Some(e) = g.stmts(entry, 0) {
        g.term(e, InstKind::Ret);
    }
    let mut f = g.f;
    let mut rng = g.rng;
    add_values(&mut f, &mut rng, x);
    f
}

fn add_values(f: &mut Function, rng: &mut Rng, x: ValueId) {
    let cfg = Cfg::compute(f);
    let n = f.blocks.len();
    let mut def: Vec<ValueId> = Vec::with_capacity(n);
    for i in 0..n {
        let k = f.const_int(i as i64, Ty::I32);
        let (_, v) = f.insert(
            b(i as u32),
            0,
            InstKind::Bin {
                op: BinOp::Add,
                lhs: x,
                rhs: k,
            },
            Ty::I32,
            src_n(i as u32),
        );
        def.push(v.unwrap_or(x));
    }
    // A random dominator's value (the block's own included).
    let pick = |rng: &mut Rng, blk: BlockId| -> ValueId {
        if !cfg.is_reachable(blk) {
            return x;
        }
        let mut chain = vec![blk];
        while let Some(d) = cfg.idom(*chain.last().unwrap_or(&blk)) {
            chain.push(d);
        }
        def[chain[rng.below(chain.len() as u64) as usize].index()]
    };
    let preds = f.predecessors();
    for i in 0..n {
        let blk = b(i as u32);
        if !cfg.is_reachable(blk) {
            continue;
        }
        // Uses before the terminator.
        for _ in 0..rng.below(3) {
            let a = pick(rng, blk);
            let pos = f.block(blk).insts.len() - 1;
            let own = def[i];
            f.insert(
                blk,
                pos,
                InstKind::Bin {
                    op: BinOp::Mul,
                    lhs: a,
                    rhs: own,
                },
                Ty::I32,
                src_n(i as u32),
            );
        }
        if preds[i].len() >= 2 {
            let entries: Vec<(BlockId, ValueId)> = preds[i]
                .iter()
                .map(|&p| (p, if cfg.is_reachable(p) { pick(rng, p) } else { x }))
                .collect();
            let (_, phi) = f.add_phi(blk, Ty::I32, entries, src_n(i as u32));
            // Use the φ so that it has users (maybe outside loops).
            let pos = f.block(blk).insts.len() - 1;
            f.insert(
                blk,
                pos,
                InstKind::Bin {
                    op: BinOp::Sub,
                    lhs: phi,
                    rhs: x,
                },
                Ty::I32,
                src_n(i as u32),
            );
        }
    }
    f.vars.push(Var {
        name: "v".into(),
        span: Span::default(),
        node: NodeId(7),
        values: def.clone(),
        in_memory: false,
        is_param: false,
        block: None,
    });
}

// ---- property checks -----------------------------------------------------

fn compact(idx: &BlockIndex, set: &[BlockId]) -> bool {
    match idx.range(set) {
        None => true,
        Some((lo, hi)) => (hi - lo + 1) as usize == set.len(),
    }
}

/// The block index guarantees documented in `cfg/index.rs`.
fn check_block_index(cfg: &Cfg) -> Result<(), String> {
    let idx = cfg.block_index();
    let reachable: Vec<BlockId> = (0..cfg.num_blocks() as u32)
        .map(BlockId)
        .filter(|&x| cfg.is_reachable(x))
        .collect();
    if idx.len() != reachable.len() {
        return Err(format!(
            "index has {} blocks, {} reachable",
            idx.len(),
            reachable.len()
        ));
    }
    for &x in &reachable {
        for &s in cfg.succs(x) {
            if !cfg.is_back_edge(x, s) && idx.index(x) >= idx.index(s) {
                return Err(format!("edge bb{} -> bb{} goes backwards", x.0, s.0));
            }
        }
    }
    for lp in &cfg.loops().loops {
        if !compact(idx, &lp.blocks) {
            return Err(format!("loop bb{} is not compact", lp.header.0));
        }
        let (lo, hi) = idx.range(&lp.blocks).unwrap_or((0, 0));
        if idx.index(lp.header) != Some(lo) {
            return Err(format!("loop bb{}: header not first", lp.header.0));
        }
        if lp.latches.len() == 1 && idx.index(lp.latches[0]) != Some(hi) {
            return Err(format!("loop bb{}: latch not last", lp.header.0));
        }
    }
    let level_blocks = |l: Option<LoopId>| -> Vec<BlockId> {
        match l {
            Some(l) => cfg
                .loops()
                .get(l)
                .map(|lp| lp.blocks.clone())
                .unwrap_or_default(),
            None => reachable.clone(),
        }
    };
    for &d in &reachable {
        let mut levels = vec![cfg.loop_of(d)];
        if let Some(l) = cfg.header_of(d) {
            levels.push(cfg.loops().parent(l));
        }
        for lvl in levels {
            let set: Vec<BlockId> = level_blocks(lvl)
                .into_iter()
                .filter(|&x| cfg.dominates(d, x))
                .collect();
            if !compact(idx, &set) {
                return Err(format!(
                    "blocks dominated by bb{} at level {lvl:?} are not compact: {set:?} in {:?}",
                    d.0,
                    idx.order()
                ));
            }
        }
    }
    Ok(())
}

/// Naive post-dominance: every path from `x` to a block without successors
/// passes through `a`.
fn post_dominates_naive(cfg: &Cfg, a: BlockId, x: BlockId) -> bool {
    if a == x {
        return true;
    }
    let mut seen = HashSet::new();
    let mut stack = vec![x];
    seen.insert(x);
    while let Some(y) = stack.pop() {
        if cfg.succs(y).is_empty() {
            return false;
        }
        for &s in cfg.succs(y) {
            if s != a && seen.insert(s) {
                stack.push(s);
            }
        }
    }
    true
}

fn reaches_exit(cfg: &Cfg, x: BlockId) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![x];
    seen.insert(x);
    while let Some(y) = stack.pop() {
        if cfg.succs(y).is_empty() {
            return true;
        }
        for &s in cfg.succs(y) {
            if seen.insert(s) {
                stack.push(s);
            }
        }
    }
    false
}

/// Every original edge `a --slot k--> s` of `before` now leads from `a`
/// through new single-branch blocks to `s`.
fn check_edges_preserved(before: &Function, after: &Function) -> Result<(), String> {
    let old_n = before.blocks.len() as u32;
    for a in before.block_ids() {
        let old = before.successors(a);
        let new = after.successors(a);
        if old.len() != new.len() {
            return Err(format!("bb{}: successor count changed", a.0));
        }
        for (k, (&s, &t)) in old.iter().zip(new.iter()).enumerate() {
            let mut cur = t;
            let mut steps = 0;
            while cur != s && cur.0 >= old_n && steps < 10 {
                let next = after.successors(cur);
                if next.len() != 1 {
                    return Err(format!(
                        "new block bb{} has {} successors",
                        cur.0,
                        next.len()
                    ));
                }
                cur = next[0];
                steps += 1;
            }
            if cur != s {
                return Err(format!(
                    "edge bb{} slot {k} -> bb{} now reaches bb{}",
                    a.0, s.0, cur.0
                ));
            }
        }
    }
    Ok(())
}

/// `x` is in `want`, or a φ created by canonicalization (instruction id at
/// least `first_new`) all of whose entries (recursively) are.
fn resolves_into(
    f: &Function,
    x: ValueId,
    want: &HashSet<ValueId>,
    first_new: usize,
    seen: &mut HashSet<ValueId>,
) -> bool {
    if want.contains(&x) {
        return true;
    }
    let Some(i) = f.def_inst(x) else { return false };
    if i.index() < first_new {
        return false;
    }
    if !seen.insert(x) {
        return true; // a cycle of new φs adds no value
    }
    match &f.inst(i).kind {
        InstKind::Phi { incoming } => incoming
            .iter()
            .all(|&(_, y)| resolves_into(f, y, want, first_new, seen)),
        _ => false,
    }
}

/// Every operand of every original instruction still denotes the same value
/// (through new φs only); an original φ's entry from an original block
/// still carries that block's value, entries from new blocks carry (merges
/// of) the original entries' values.
fn check_values_preserved(before: &Function, after: &Function) -> Result<(), String> {
    let first_new = before.insts.len();
    let res = |x: ValueId, want: HashSet<ValueId>| {
        resolves_into(after, x, &want, first_new, &mut HashSet::new())
    };
    for (i, old) in before.insts.iter().enumerate() {
        let id = InstId(i as u32);
        if !before.is_placed(id) {
            continue;
        }
        if !after.is_placed(id) {
            return Err(format!("instruction #{i} was removed"));
        }
        let new = after.inst(id);
        match (&old.kind, &new.kind) {
            (InstKind::Phi { incoming: a }, InstKind::Phi { incoming: bb }) => {
                let olds: HashSet<ValueId> = a.iter().map(|&(_, v)| v).collect();
                for &(blk, x) in bb {
                    let want: HashSet<ValueId> = if blk.index() < before.blocks.len() {
                        a.iter().filter(|e| e.0 == blk).map(|e| e.1).collect()
                    } else {
                        olds.clone()
                    };
                    if want.is_empty() || !res(x, want) {
                        return Err(format!("φ #{i}: entry (bb{}, %{}) is new", blk.0, x.0));
                    }
                }
            }
            (ok, nk) => {
                let a = ok.operands();
                let bb = nk.operands();
                if a.len() != bb.len() {
                    return Err(format!("#{i}: operand count changed"));
                }
                for (&v, &x) in a.iter().zip(bb.iter()) {
                    if !res(x, HashSet::from([v])) {
                        return Err(format!("#{i}: operand %{} became %{}", v.0, x.0));
                    }
                }
            }
        }
    }
    Ok(())
}

// ---- dominators, post-dominators, control dependence ---------------------

#[test]
fn dominators_and_post_dominators_of_a_diamond_in_a_loop() {
    // 0 -> 1; 1 -> 2 | 3; 2 -> 4; 3 -> 4; 4 -> 1 | 5; 5 ret
    let f = from_edges(&[&[1], &[2, 3], &[4], &[4], &[1, 5], &[]]);
    let cfg = Cfg::compute(&f);
    assert_eq!(cfg.idom(b(0)), None);
    assert_eq!(cfg.idom(b(1)), Some(b(0)));
    assert_eq!(cfg.idom(b(2)), Some(b(1)));
    assert_eq!(cfg.idom(b(4)), Some(b(1)));
    assert_eq!(cfg.idom(b(5)), Some(b(4)));
    assert!(cfg.dominates(b(1), b(5)));
    assert!(!cfg.dominates(b(2), b(4)));
    assert_eq!(cfg.ipdom(b(1)), Some(b(4)));
    assert_eq!(cfg.ipdom(b(2)), Some(b(4)));
    assert_eq!(cfg.ipdom(b(4)), Some(b(5)));
    assert_eq!(cfg.ipdom(b(5)), None); // the virtual exit
    assert!(cfg.post_dominates(b(5), b(0)));
    assert!(!cfg.post_dominates(b(2), b(1)));
    assert_eq!(cfg.preds(b(4)), &[b(2), b(3)]);
    assert_eq!(cfg.succs(b(1)), &[b(2), b(3)]);
    assert_eq!(cfg.rpo()[0], b(0));
    // Queries with bad ids answer nothing.
    assert_eq!(cfg.idom(b(99)), None);
    assert!(!cfg.dominates(b(99), b(1)));
    assert!(cfg.preds(b(99)).is_empty());
    assert_eq!(cfg.loop_of(b(99)), None);
}

#[test]
fn control_dependence() {
    // if-then-else inside a do-while: 0 -> 1; 1 -> 2 | 3; 2 -> 4; 3 -> 4;
    // 4 -> 1 | 5
    let f = from_edges(&[&[1], &[2, 3], &[4], &[4], &[1, 5], &[]]);
    let cfg = Cfg::compute(&f);
    assert_eq!(cfg.control_deps(b(2)), &[b(1)]);
    assert_eq!(cfg.control_deps(b(3)), &[b(1)]);
    // The loop body runs again depending on the latch: 1 and 4 are control
    // dependent on 4 (Ferrante: a block can depend on its own branch).
    assert_eq!(cfg.control_deps(b(1)), &[b(4)]);
    assert_eq!(cfg.control_deps(b(4)), &[b(4)]);
    assert!(cfg.control_deps(b(5)).is_empty());
    assert!(cfg.control_deps(b(0)).is_empty());
    assert_eq!(cfg.control_dependents(b(1)), &[b(2), b(3)]);
    assert_eq!(cfg.control_dependents(b(4)), &[b(1), b(4)]);
    // Early return: 0 -> 1 | 2; 1 ret; 2 -> 3; 3 ret
    let f = from_edges(&[&[1, 2], &[], &[3], &[]]);
    let cfg = Cfg::compute(&f);
    assert_eq!(cfg.control_dependents(b(0)), &[b(1), b(2), b(3)]);
}

#[test]
fn analyses_match_naive_definitions_on_random_programs() {
    for seed in 0..150 {
        let f = generate(seed);
        let cfg = Cfg::compute(&f);
        let blocks: Vec<BlockId> = f.block_ids().filter(|&x| cfg.is_reachable(x)).collect();
        for &a in &blocks {
            for &x in &blocks {
                if reaches_exit(&cfg, x) && reaches_exit(&cfg, a) {
                    assert_eq!(
                        cfg.post_dominates(a, x),
                        post_dominates_naive(&cfg, a, x),
                        "seed {seed}: bb{} pdom bb{}",
                        a.0,
                        x.0
                    );
                }
            }
        }
        // Control dependence by definition.
        for &k in &blocks {
            if !reaches_exit(&cfg, k) {
                continue;
            }
            let mut want: Vec<BlockId> = blocks
                .iter()
                .copied()
                .filter(|&a| {
                    let strict = cfg.post_dominates(k, a) && k != a;
                    cfg.succs(a).len() > 1
                        && !strict
                        && cfg.succs(a).iter().any(|&s| cfg.post_dominates(k, s))
                })
                .collect();
            want.sort();
            assert_eq!(
                cfg.control_deps(k),
                want.as_slice(),
                "seed {seed}: cdeps of bb{}",
                k.0
            );
        }
        // Loops: a body is the header plus everything reaching a latch
        // without the header; loops nest.
        for lp in &cfg.loops().loops {
            for &x in &lp.blocks {
                assert!(cfg.dominates(lp.header, x), "seed {seed}");
            }
            for &l in &lp.latches {
                assert!(lp.contains(l) && cfg.succs(l).contains(&lp.header));
            }
            if let Some(p) = lp.parent {
                let parent = &cfg.loops().loops[p.index()];
                assert!(lp.blocks.iter().all(|&x| parent.contains(x)), "seed {seed}");
                assert_eq!(lp.depth, parent.depth + 1);
            }
            for &e in &lp.exits {
                assert!(!lp.contains(e));
                assert!(cfg.preds(e).iter().any(|&p| lp.contains(p)));
            }
        }
        for &x in &blocks {
            if let Some(l) = cfg.loop_of(x) {
                let lp = &cfg.loops().loops[l.index()];
                assert!(lp.contains(x));
                assert!(lp.children.iter().all(|&c| !cfg.loops().contains(c, x)));
            }
        }
        assert!(cfg.is_reducible());
        check_block_index(&cfg).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

// ---- loops and the block index --------------------------------------------

#[test]
fn loop_forest_of_nested_loops() {
    // 0 -> 1 (outer header); 1 -> 2 | 6; 2 -> 3 (inner header); 3 -> 4 | 5;
    // 4 -> 3 (inner latch); 5 -> 1 (outer latch); 6 ret
    let f = from_edges(&[&[1], &[2, 6], &[3], &[4, 5], &[3], &[1], &[]]);
    let cfg = Cfg::compute(&f);
    let loops = cfg.loops();
    assert_eq!(loops.len(), 2);
    let outer = cfg.loop_of(b(1)).unwrap();
    let inner = cfg.loop_of(b(4)).unwrap();
    assert_ne!(outer, inner);
    let o = loops.get(outer).unwrap();
    let i = loops.get(inner).unwrap();
    assert_eq!(o.header, b(1));
    assert_eq!(o.blocks, vec![b(1), b(2), b(3), b(4), b(5)]);
    assert_eq!(o.latches, vec![b(5)]);
    assert_eq!(o.exits, vec![b(6)]);
    assert_eq!(o.exiting, vec![b(1)]);
    assert_eq!(o.children, vec![inner]);
    assert_eq!(o.depth, 1);
    assert_eq!(i.header, b(3));
    assert_eq!(i.blocks, vec![b(3), b(4)]);
    assert_eq!(i.exits, vec![b(5)]);
    assert_eq!(i.parent, Some(outer));
    assert_eq!(i.depth, 2);
    assert!(loops.is_ancestor(outer, inner));
    assert!(!loops.is_ancestor(inner, outer));
    assert!(loops.contains(outer, b(4)));
    assert!(!loops.contains(inner, b(5)));
    assert_eq!(cfg.loop_of(b(6)), None);
    assert_eq!(cfg.header_of(b(3)), Some(inner));
    assert_eq!(loops.top_level, vec![outer]);
    assert!(cfg.is_back_edge(b(4), b(3)));
    assert!(!cfg.is_back_edge(b(3), b(4)));
}

#[test]
fn block_index_keeps_loops_together() {
    // The counter-example of cfg/index.rs: loop {1, 2, 3} with exit 4
    // dominated by 2. 0 -> 1; 1 -> 2 | 3; 2 -> 4 | 3; 3 -> 1; 4 ret
    let f = from_edges(&[&[1], &[2, 3], &[4, 3], &[1], &[]]);
    let cfg = Cfg::compute(&f);
    assert_eq!(cfg.block_index().order(), &[b(0), b(1), b(2), b(3), b(4)]);
    check_block_index(&cfg).unwrap();
    // A DAG is fully dominance compact; siblings come topologically:
    // 0 -> 1 | 2; 1 -> 3; 2 -> 3 | 4; 3 -> 5; 4 -> 5; 5 ret
    let f = from_edges(&[&[1, 2], &[3], &[3, 4], &[5], &[5], &[]]);
    let cfg = Cfg::compute(&f);
    check_block_index(&cfg).unwrap();
    let idx = cfg.block_index();
    assert!(idx.index(b(2)) < idx.index(b(4)));
    assert_eq!(idx.index(b(0)), Some(0));
    assert_eq!(idx.block(0), Some(b(0)));
    assert_eq!(idx.index(b(5)), Some(5));
}

#[test]
fn block_index_properties_hold_on_random_programs() {
    for seed in 1000..1300 {
        let f = generate(seed);
        let cfg = Cfg::compute(&f);
        check_block_index(&cfg).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let mut g = f.clone();
        canonicalize(&mut g).unwrap();
        let cfg = Cfg::compute(&g);
        check_block_index(&cfg).unwrap_or_else(|e| panic!("seed {seed} canonical: {e}"));
    }
}

#[test]
fn irreducible_cfg_is_detected_without_panicking() {
    // 0 -> 1 | 2; 1 -> 2; 2 -> 1 | 3: two entries into the cycle {1, 2}.
    let f = from_edges(&[&[1, 2], &[2], &[1, 3], &[]]);
    let cfg = Cfg::compute(&f);
    assert!(!cfg.is_reducible());
    assert!(cfg.loops().is_empty());
    assert_eq!(cfg.block_index().len(), 4);
    let _ = cfg.divergent_joins(b(0), &[b(1), b(2)], &[]);
    let mut g = f.clone();
    let err = canonicalize(&mut g).unwrap_err();
    assert!(err.contains("irreducible"), "{err}");
    assert_eq!(g, f, "unchanged on failure");
    assert!(is_canonical(&f).unwrap_err().contains("irreducible"));
}

#[test]
fn cfg_of_malformed_functions_does_not_panic() {
    let (mut f, c, _, _) = with_params("bad");
    let e = f.add_block("entry");
    f.append(
        e,
        InstKind::CondBr {
            cond: c,
            then: b(7),
            els: e,
        },
        Ty::Void,
        src(),
    );
    f.add_block("empty");
    let cfg = Cfg::compute(&f);
    assert_eq!(cfg.succs(e), &[e]);
    assert!(canonicalize(&mut f.clone())
        .unwrap_err()
        .starts_with("malformed IR"));
    let mut f = Function::new("nothing", Span::default());
    let cfg = Cfg::compute(&f);
    assert!(cfg.rpo().is_empty());
    assert!(canonicalize(&mut f).is_err());
    f.entry = b(5);
    let _ = Cfg::compute(&f);
}

// ---- canonicalization ------------------------------------------------------

/// Canonicalizes and checks everything: verifier, `is_canonical`, edges and
/// values preserved.
fn canonicalize_checked(f: &Function) -> Function {
    let mut g = f.clone();
    canonicalize(&mut g).unwrap_or_else(|e| {
        panic!(
            "{e}\n{}",
            crate::ir::print::print(f, &crate::ir::print::Plain)
        )
    });
    let text = || crate::ir::print::print(&g, &crate::ir::print::Plain);
    if let Err(e) = verify(&g) {
        panic!("{e:?}\n{}", text());
    }
    if let Err(e) = is_canonical(&g) {
        panic!("{e}\n{}", text());
    }
    check_edges_preserved(f, &g).unwrap_or_else(|e| panic!("{e}\n{}", text()));
    check_values_preserved(f, &g).unwrap_or_else(|e| panic!("{e}\n{}", text()));
    g
}

#[test]
fn canonicalize_random_programs() {
    let mut loops = 0;
    let mut lcssa_phis = 0;
    for seed in 0..400 {
        let mut f = generate(seed);
        remove_unreachable(&mut f);
        verify(&f).unwrap_or_else(|e| panic!("seed {seed}: generator: {e:?}"));
        let g = canonicalize_checked(&f);
        loops += Cfg::compute(&g).loops().len();
        lcssa_phis += g.insts.len() - f.insts.len();
        // Idempotent: a canonical function is left alone.
        let mut h = g.clone();
        canonicalize(&mut h).unwrap();
        assert_eq!(h, g, "seed {seed}: second run changed the function");
    }
    // The generator really produces loops and outside uses.
    assert!(loops > 300, "{loops}");
    assert!(lcssa_phis > 300, "{lcssa_phis}");
}

#[test]
fn unreachable_blocks_are_removed_and_phis_fixed() {
    // 0 -> 2; 1 -> 2 (dead); 2: φ [0: 10], [1: 20]; ret. 3 -> 3 (dead loop)
    let mut f = from_edges(&[&[2], &[2], &[], &[3]]);
    let ten = f.const_int(10, Ty::I32);
    let twenty = f.const_int(20, Ty::I32);
    let (_, phi) = f.add_phi(b(2), Ty::I32, vec![(b(0), ten), (b(1), twenty)], src());
    // A value in a dead block listed in a var.
    let (_, dead) = f.insert(
        b(1),
        0,
        InstKind::Bin {
            op: BinOp::Add,
            lhs: ten,
            rhs: ten,
        },
        Ty::I32,
        src(),
    );
    f.vars.push(Var {
        name: "v".into(),
        span: Span::default(),
        node: NodeId(1),
        values: vec![phi, dead.unwrap()],
        in_memory: false,
        is_param: false,
        block: None,
    });
    assert!(verify(&f).is_err());
    assert!(verify_with(&f, true).is_ok());
    canonicalize(&mut f).unwrap();
    verify(&f).unwrap();
    assert_eq!(f.blocks.len(), 2);
    assert_eq!(f.block(b(1)).label, "b2");
    let p = f.def_inst(phi).unwrap();
    assert_eq!(f.inst(p).block, b(1));
    assert_eq!(
        f.inst(p).kind,
        InstKind::Phi {
            incoming: vec![(b(0), ten)]
        }
    );
    assert_eq!(f.vars[0].values, vec![phi]);
    assert!(!f.is_placed(f.def_inst(dead.unwrap()).unwrap()));
}

#[test]
fn preheader_latch_and_exits_are_created() {
    // A while loop entered from two blocks, with a `continue` (two back
    // edges) and a `break` to a block also reached from outside:
    // 0 -> 1 | 2; 1 -> 3; 2 -> 3 | 6; 3 (header) -> 4 | 6; 4 -> 3 | 5;
    // 5 -> 3 | 6; 6: φ; ret
    let mut f = from_edges(&[&[1, 2], &[3], &[3, 6], &[4, 6], &[3, 5], &[3, 6], &[]]);
    let k = |f: &mut Function, v: i64| f.const_int(v, Ty::I32);
    let (c1, c2, c4, c5) = (k(&mut f, 1), k(&mut f, 2), k(&mut f, 4), k(&mut f, 5));
    let (_, hphi) = f.add_phi(
        b(3),
        Ty::I32,
        vec![(b(1), c1), (b(2), c2), (b(4), c4), (b(5), c5)],
        src_n(77),
    );
    let (_, inc) = f.insert(
        b(3),
        1,
        InstKind::Bin {
            op: BinOp::Add,
            lhs: hphi,
            rhs: c1,
        },
        Ty::I32,
        src_n(78),
    );
    let inc = inc.unwrap();
    let (_, exit_phi) = f.add_phi(
        b(6),
        Ty::I32,
        vec![(b(2), c2), (b(3), inc), (b(5), hphi)],
        src(),
    );
    f.vars.push(Var {
        name: "i".into(),
        span: Span::default(),
        node: NodeId(3),
        values: vec![hphi, inc],
        in_memory: false,
        is_param: false,
        block: None,
    });
    verify(&f).unwrap();
    let g = canonicalize_checked(&f);
    let cfg = Cfg::compute(&g);
    let lp = &cfg.loops().loops[0];
    assert_eq!(lp.header, b(3));
    // Preheader: a new block labelled after the header, with a φ merging
    // the two outside values, src of the header φ; its branch takes the src
    // of the first outside predecessor's terminator.
    let entering: Vec<BlockId> = cfg
        .preds(b(3))
        .iter()
        .copied()
        .filter(|&p| !lp.contains(p))
        .collect();
    assert_eq!(entering.len(), 1);
    let ph = entering[0];
    assert_eq!(g.block(ph).label, "b3.preheader");
    assert_eq!(cfg.preds(ph), &[b(1), b(2)]);
    let ph_phi = g.phis(ph).next().expect("merge φ in the preheader");
    assert_eq!(g.inst(ph_phi).src, src_n(77));
    assert_eq!(g.inst(g.terminator(ph).unwrap()).src, src_n(1001));
    // Unique latch merging the back edges from 4 and 5.
    assert_eq!(lp.latches.len(), 1);
    let latch = lp.latches[0];
    assert_eq!(g.block(latch).label, "loop.latch");
    assert_eq!(cfg.preds(latch), &[b(4), b(5)]);
    // Exits: 6 was reached from 3, 5 (inside) and 2 (outside): both inside
    // edges are split.
    assert_eq!(lp.exits.len(), 2);
    for &e in &lp.exits {
        assert_eq!(g.block(e).label, "loop.exit");
        assert_eq!(cfg.succs(e), &[b(6)]);
        assert_eq!(cfg.preds(e).len(), 1);
    }
    // LCSSA: the exit φ reads `inc` and `hphi` through φs in the exits, and
    // those φs are recorded for the variable `i`.
    let InstKind::Phi { incoming } = &g.inst(g.def_inst(exit_phi).unwrap()).kind else {
        panic!()
    };
    for &(from, v) in incoming {
        if from != b(2) {
            let d = g.def_inst(v).unwrap();
            assert!(lp.exits.contains(&g.inst(d).block));
            assert!(g.inst(d).kind.is_phi());
            assert!(g.vars[0].values.contains(&v), "LCSSA φ recorded in the var");
        }
    }
    assert!(g.vars[0].values.len() > 2);
}

#[test]
fn lcssa_nested_loops_value_used_after_both() {
    // do { do { v = x + 1 } while (c); w = v + 1 } while (c); use(v, w)
    // 0 -> 1 (outer header); 1 -> 2 (inner header = inner latch);
    // 2 -> 2 | 3; 3 (inner exit, outer latch) -> 1 | 4; 4 (outer exit) ret
    let mut f = from_edges(&[&[1], &[2], &[2, 3], &[1, 4], &[]]);
    let x = ValueId(2);
    let one = f.const_int(1, Ty::I32);
    let add = |f: &mut Function, blk: u32, lhs: ValueId, rhs: ValueId, n: u32| {
        let pos = f.block(b(blk)).insts.len() - 1;
        let (_, v) = f.insert(
            b(blk),
            pos,
            InstKind::Bin {
                op: BinOp::Add,
                lhs,
                rhs,
            },
            Ty::I32,
            src_n(n),
        );
        v.unwrap()
    };
    let v = add(&mut f, 2, x, one, 50);
    let w = add(&mut f, 3, v, one, 51);
    add(&mut f, 4, v, w, 52);
    f.vars.push(Var {
        name: "v".into(),
        span: Span::default(),
        node: NodeId(3),
        values: vec![v],
        in_memory: false,
        is_param: false,
        block: None,
    });
    verify(&f).unwrap();
    assert!(is_canonical(&f).unwrap_err().contains("without an LCSSA φ"));
    let g = canonicalize_checked(&f);
    assert_eq!(g.blocks.len(), 5, "already in loop form: only φs are added");
    let operands = |n: u32| {
        let i = g
            .block_ids()
            .flat_map(|bb| g.block(bb).insts.clone())
            .find(|&i| g.inst(i).src == src_n(n))
            .unwrap();
        g.inst(i).kind.operands()
    };
    let phi_of = |x: ValueId| -> (BlockId, Vec<(BlockId, ValueId)>) {
        let d = g.def_inst(x).unwrap();
        match &g.inst(d).kind {
            InstKind::Phi { incoming } => (g.inst(d).block, incoming.clone()),
            k => panic!("not a φ: {k:?}"),
        }
    };
    // w = v3 + 1 with v3 = φ [2: v] in the inner exit 3.
    let v3 = operands(51)[0];
    assert_eq!(phi_of(v3), (b(3), vec![(b(2), v)]));
    assert_eq!(g.inst(g.def_inst(v3).unwrap()).src, src_n(50));
    // After both loops: v4 = φ [3: v3] (one φ per loop level left) and
    // w4 = φ [3: w].
    let ops = operands(52);
    assert_eq!(phi_of(ops[0]), (b(4), vec![(b(3), v3)]));
    assert_eq!(phi_of(ops[1]), (b(4), vec![(b(3), w)]));
    // The variable lists its LCSSA names.
    assert_eq!(g.vars[0].values, vec![v, v3, ops[0]]);
}

#[test]
fn lcssa_double_break_gets_one_phi_and_merges() {
    // Outer loop 1..5, inner loop 2..3 with a break out of both loops (3 ->
    // 7) and a normal outer exit (1 -> 6); 6 and 7 meet in 8, which uses a
    // value of the inner header.
    // 0 -> 1; 1 -> 2 | 6; 2 -> 3 | 5; 3 -> 2 | 7 ... 3 must reach the
    // inner latch: 3 -> 4 | 7; 4 -> 2; 5 -> 1; 6 -> 8; 7 -> 8; 8 ret.
    let mut f = from_edges(&[&[1], &[2, 6], &[3, 5], &[4, 7], &[2], &[1], &[8], &[8], &[]]);
    let x = ValueId(2);
    let one = f.const_int(1, Ty::I32);
    let (_, hv) = f.insert(
        b(1),
        0,
        InstKind::Bin {
            op: BinOp::Add,
            lhs: x,
            rhs: one,
        },
        Ty::I32,
        src_n(60),
    );
    let hv = hv.unwrap();
    let (_, iv) = f.insert(
        b(2),
        0,
        InstKind::Bin {
            op: BinOp::Add,
            lhs: hv,
            rhs: one,
        },
        Ty::I32,
        src_n(61),
    );
    let iv = iv.unwrap();
    // Use of the outer header value in 8 (dominated by 1) and of the inner
    // header value in 7 (dominated by 2).
    let (_, _) = f.insert(
        b(8),
        0,
        InstKind::Bin {
            op: BinOp::Add,
            lhs: hv,
            rhs: one,
        },
        Ty::I32,
        src_n(62),
    );
    let (_, _) = f.insert(
        b(7),
        0,
        InstKind::Bin {
            op: BinOp::Add,
            lhs: iv,
            rhs: one,
        },
        Ty::I32,
        src_n(63),
    );
    verify(&f).unwrap();
    let g = canonicalize_checked(&f);
    let find = |n: u32| {
        g.block_ids()
            .flat_map(|bb| g.block(bb).insts.clone())
            .find(|&i| g.inst(i).src == src_n(n))
            .unwrap()
    };
    // The use in 7: 7 is an exit of both loops with one edge from 3, so one
    // φ [3: iv] serves both levels.
    let u7 = find(63);
    let InstKind::Bin { lhs, .. } = g.inst(u7).kind else {
        panic!()
    };
    let d = g.def_inst(lhs).unwrap();
    assert_eq!(g.inst(d).block, b(7));
    assert_eq!(
        g.inst(d).kind,
        InstKind::Phi {
            incoming: vec![(b(3), iv)]
        }
    );
    // The use in 8: reached from the exits 6 and 7 of the outer loop, so a
    // merge φ in 8 of the two LCSSA φs.
    let u8 = find(62);
    let InstKind::Bin { lhs, .. } = g.inst(u8).kind else {
        panic!()
    };
    let d = g.def_inst(lhs).unwrap();
    assert_eq!(g.inst(d).block, b(8));
    let InstKind::Phi { incoming } = &g.inst(d).kind else {
        panic!()
    };
    assert_eq!(incoming.len(), 2);
    for &(from, v) in incoming {
        let dd = g.def_inst(v).unwrap();
        assert_eq!(g.inst(dd).block, from);
        assert!(g.inst(dd).kind.is_phi());
        // Inner exits 6... the φ reading hv was placed in each outer exit.
        let InstKind::Phi { incoming: inner } = &g.inst(dd).kind else {
            panic!()
        };
        assert_eq!(inner.len(), 1);
        assert_eq!(inner[0].1, hv);
    }
}

#[test]
fn lcssa_rewrites_predicates_and_phi_entries() {
    // 0 -> 1; 1 -> 1 | 2 (self loop); 2: predicate defined in 1; ret
    let mut f = from_edges(&[&[1], &[1, 2], &[]]);
    let x = ValueId(2);
    let zero = f.const_int(0, Ty::I32);
    let (_, c) = f.insert(
        b(1),
        0,
        InstKind::Cmp {
            pred: crate::ir::CmpPred::Slt,
            lhs: x,
            rhs: zero,
        },
        Ty::I1,
        src_n(70),
    );
    let c = c.unwrap();
    f.block_mut(b(2)).predicate = Some(c);
    verify(&f).unwrap();
    let g = canonicalize_checked(&f);
    let p = g.block(b(2)).predicate.unwrap();
    assert_ne!(p, c);
    let d = g.def_inst(p).unwrap();
    assert_eq!(
        g.inst(d).kind,
        InstKind::Phi {
            incoming: vec![(b(1), c)]
        }
    );
}

#[test]
fn header_as_entry_gets_a_new_entry() {
    // Loop at the entry is rejected by the verifier (entry with
    // predecessors), so canonicalize refuses it instead of guessing.
    let mut f = from_edges(&[&[0, 1], &[]]);
    assert!(canonicalize(&mut f)
        .unwrap_err()
        .contains("entry block has predecessors"));
}

#[test]
fn switch_with_two_edges_into_an_exit() {
    // 0 -> 1; 1 (header) -> switch: 2 (default), 3, 3; 2 -> 1; 3 ret.
    // The two edges 1 -> 3 are exit edges: each is split, and the φ in 3
    // gets one entry per new block.
    let mut f = from_edges(&[&[1], &[2, 3, 3], &[1], &[]]);
    let c7 = f.const_int(7, Ty::I32);
    f.add_phi(b(3), Ty::I32, vec![(b(1), c7), (b(1), c7)], src());
    verify(&f).unwrap();
    let g = canonicalize_checked(&f);
    let cfg = Cfg::compute(&g);
    assert_eq!(cfg.preds(b(3)).len(), 2);
    let lp = &cfg.loops().loops[0];
    assert_eq!(lp.exits.len(), 2);
    let phi = g.phis(b(3)).next().unwrap();
    let InstKind::Phi { incoming } = &g.inst(phi).kind else {
        panic!()
    };
    let mut from: Vec<BlockId> = incoming.iter().map(|e| e.0).collect();
    from.sort();
    assert_eq!(from, lp.exits);
}

// ---- the corpus -------------------------------------------------------------

/// Every kernel of the corpus and the examples: lowered IR passes the
/// verifier; canonicalization keeps it valid, makes it canonical, preserves
/// edges and values, and the interpreter computes the same buffers before
/// and after; the block index properties hold and `divergent_joins` answers
/// for every branch.
#[test]
fn corpus_kernels_canonicalize_and_run_the_same() {
    use crate::interp::{self, ArgValue, ErrorKind, NdRange, Options};
    use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
    use std::path::Path;

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["tests/kernels/valid", "examples"] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        let mut v: Vec<_> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "cl"))
            .collect();
        v.sort();
        files.extend(v);
    }
    let mut kernels = 0;
    let mut with_loops = 0;
    for path in files {
        let Ok(unit) =
            lanes_frontend::unit::check_file(&path, &PreprocessOptions::default(), &RealFs)
        else {
            continue;
        };
        if unit.has_errors() {
            continue;
        }
        for k in unit.hir.kernels() {
            let name = format!("{}: {}", path.display(), unit.hir.function(k).name);
            let Ok(f) = crate::lower::lower_kernel(&unit.hir, k) else {
                continue;
            };
            kernels += 1;
            verify(&f).unwrap_or_else(|e| panic!("{name}: lowered IR: {e:?}"));
            let g = canonicalize_checked(&f);
            let cfg = Cfg::compute(&g);
            if !cfg.loops().is_empty() {
                with_loops += 1;
            }
            check_block_index(&cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
            for blk in g.block_ids() {
                let succs = cfg.succs(blk).to_vec();
                if succs.len() > 1 {
                    let j = cfg.divergent_joins(blk, &succs, &[]);
                    for x in j.sync.iter().chain(&j.loop_exits) {
                        assert!(cfg.is_reachable(*x));
                    }
                }
            }
            // Same results before and after.
            let args = |f: &Function| -> Vec<ArgValue> {
                let mut rng = Rng(0x1234_5678);
                f.params
                    .iter()
                    .map(|p| match p.ty {
                        t if t.is_ptr() => {
                            ArgValue::Buffer((0..4096).map(|_| (rng.below(7) as u8) & 3).collect())
                        }
                        t if t.is_float() => ArgValue::Scalar(crate::ir::Const::Float(1.5, t)),
                        t => ArgValue::Scalar(crate::ir::Const::int(3, t)),
                    })
                    .collect()
            };
            let range = NdRange::new_2d([8, 2], [4, 2]);
            let opts = Options {
                sub_group_width: 4,
                step_limit: 5_000_000,
                check_all_races: false,
            };
            let mut a = args(&f);
            let mut b2 = args(&g);
            let ra = interp::run_with(&f, &range, &mut a, &opts);
            let rb = interp::run_with(&g, &range, &mut b2, &opts);
            let kind = |r: &Result<_, interp::InterpError>| r.as_ref().err().map(|e| e.kind);
            if kind(&ra) == Some(ErrorKind::StepLimit) || kind(&rb) == Some(ErrorKind::StepLimit) {
                continue;
            }
            assert_eq!(kind(&ra), kind(&rb), "{name}: {ra:?} vs {rb:?}");
            assert!(a == b2, "{name}: buffers differ after canonicalization");
        }
    }
    assert!(kernels >= 20, "only {kernels} kernels found");
    assert!(with_loops >= 5, "only {with_loops} kernels with loops");
}

// ---- control divergence on DAGs: exactly the disjoint-paths criterion ------

/// All simple paths from `from` to `to` in a DAG (as node lists).
fn paths(succs: &[Vec<u32>], from: u32, to: u32, out: &mut Vec<Vec<u32>>, cur: &mut Vec<u32>) {
    cur.push(from);
    if from == to {
        out.push(cur.clone());
    } else {
        for &s in &succs[from as usize] {
            paths(succs, s, to, out, cur);
        }
    }
    cur.pop();
}

/// `z` is a sync join of the (partially) divergent node `a`: two paths from
/// `a` to `z` that share only `a` and `z`, leave `a` through different
/// successors, at least one of them divergent (thesis Theorem 2 / 7).
fn sync_by_definition(succs: &[Vec<u32>], a: u32, div: &[u32], uni: &[u32], z: u32) -> bool {
    let all: Vec<u32> = div.iter().chain(uni).copied().collect();
    for (i, &s1) in all.iter().enumerate() {
        for &s2 in &all[i + 1..] {
            if s1 == s2 || !(div.contains(&s1) || div.contains(&s2)) {
                continue;
            }
            let mut p1 = Vec::new();
            paths(succs, s1, z, &mut p1, &mut Vec::new());
            let mut p2 = Vec::new();
            paths(succs, s2, z, &mut p2, &mut Vec::new());
            for x in &p1 {
                for y in &p2 {
                    let shared = x.iter().filter(|n| **n != z && y.contains(n)).count();
                    if shared == 0 && !x.contains(&a) && !y.contains(&a) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

#[test]
fn divergent_joins_on_random_dags_is_the_disjoint_paths_criterion() {
    let mut rng = Rng(0xdead_beef);
    let mut joins_seen = 0;
    for _ in 0..400 {
        let n = 3 + rng.below(7) as u32;
        let mut succs: Vec<Vec<u32>> = vec![Vec::new(); n as usize];
        for i in 0..n {
            if i + 1 == n {
                break;
            }
            let k = 1 + rng.below(if i == 0 { 3 } else { 2 });
            for _ in 0..k {
                let t = i + 1 + rng.below((n - i - 1) as u64) as u32;
                if !succs[i as usize].contains(&t) {
                    succs[i as usize].push(t);
                }
            }
        }
        let refs: Vec<&[u32]> = succs.iter().map(|v| v.as_slice()).collect();
        let f = from_edges(&refs);
        let cfg = Cfg::compute(&f);
        for a in 0..n {
            if !cfg.is_reachable(b(a)) || succs[a as usize].len() < 2 {
                continue;
            }
            // A random partition into divergent and uniform successors
            // (at least one divergent).
            let mut div = Vec::new();
            let mut uni = Vec::new();
            for (k, &s) in succs[a as usize].iter().enumerate() {
                if k == 0 || rng.chance(60) {
                    div.push(s);
                } else {
                    uni.push(s);
                }
            }
            let bs = |v: &[u32]| v.iter().map(|&x| b(x)).collect::<Vec<_>>();
            let j = cfg.divergent_joins(b(a), &bs(&div), &bs(&uni));
            let want: Vec<BlockId> = (0..n)
                .filter(|&z| sync_by_definition(&succs, a, &div, &uni, z))
                .map(b)
                .collect();
            assert_eq!(j.sync, want, "{succs:?} from {a}: div {div:?} uni {uni:?}");
            assert!(j.loop_exits.is_empty() && j.divergent_loops.is_empty());
            joins_seen += want.len();
        }
    }
    assert!(joins_seen > 200, "{joins_seen}");
}
