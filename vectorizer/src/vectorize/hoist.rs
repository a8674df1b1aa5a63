//! Loop-invariant loads out of loops that run under a lane mask.
//!
//! In a search loop such as Rodinia's particle filter
//!
//! ```c
//! for (x = 0; x < n; x++)
//!     if (CDF[x] >= u[i]) { index = x; break; }
//! ```
//!
//! `u[i]` has the same address in every iteration and nothing in the loop
//! writes memory, yet vectorized it is a masked load per iteration (the
//! loop's mask shrinks as lanes leave, so LLVM cannot hoist it). This pass
//! loads it once before the loop, in the scalar IR, under exactly the
//! condition on which the scalar program loads it at least once: a load in
//! the header always runs when the loop is entered; a load further along
//! the first iteration's straight path (each branch on it has one target in
//! the loop and leaves the loop otherwise) runs iff the conditions of those
//! branches hold in the first iteration. They are evaluated in the
//! preheader with the header φs' entry values, and the load is placed under
//! them:
//!
//! ```text
//! P:  c0 = (0 < n);  br c0, G, J          ; was: br H
//! G:  v0 = load u[i];  br J
//! J:  v = φ(G: v0, P: undef);  br H       ; the loop reads v
//! ```
//!
//! Vectorized, `G` runs under the preheader's mask and `c0`, which contains
//! the mask of every later iteration of the load: the load touches only
//! bytes the scalar program reads. The value is the one every iteration
//! would read because no instruction of the loop writes memory (no store,
//! atomic, barrier, collective or image write; OpenCL gives another
//! work-item's unsynchronized writes no order to observe).
//!
//! Only loops that run under a varying mask (divergent loops and loops
//! under divergent branches) are rewritten: elsewhere the load stays a
//! scalar or plain vector load that LLVM's LICM hoists itself. Loops are
//! visited innermost first; the address computation (pure arithmetic on
//! values from before the loop) moves to the preheader with the load.

use std::collections::{BTreeMap, BTreeSet};

use crate::cfg::{Cfg, Loop};
use crate::divergence::{Divergence, MaskKind};
use crate::ir::{BinOp, BlockId, Const, Function, InstId, InstKind, Src, Ty, ValueId, WorkItem};

/// Hoists the invariant loads of a canonical kernel; `None` when there is
/// nothing to hoist.
pub fn apply(f: &Function, cfg: &Cfg, div: &Divergence) -> Option<Function> {
    let masked_headers: BTreeSet<BlockId> = cfg
        .loops()
        .loops
        .iter()
        .map(|lp| lp.header)
        .filter(|h| {
            div.divergent_loops
                .keys()
                .any(|&l| cfg.loops().header(l) == Some(*h))
                || div.masks.get(h.index()) == Some(&MaskKind::Varying)
        })
        .collect();
    let mut g = f.clone();
    let mut changed = false;
    let mut done: BTreeSet<BlockId> = BTreeSet::new();
    // Each rewrite adds blocks, so the loops are found again after it.
    loop {
        let cfg = Cfg::compute(&g);
        let next = cfg
            .loops()
            .loops
            .iter()
            .filter(|lp| masked_headers.contains(&lp.header) && !done.contains(&lp.header))
            .max_by_key(|lp| lp.depth)
            .cloned();
        let Some(lp) = next else { break };
        done.insert(lp.header);
        changed |= hoist_loop(&mut g, &cfg, &lp);
    }
    changed.then_some(g)
}

/// True when the instruction may write memory another load could read.
fn writes_memory(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Store { .. }
            | InstKind::Atomic { .. }
            | InstKind::Barrier { .. }
            | InstKind::WorkGroup { .. }
            | InstKind::ImageWrite { .. }
    )
}

/// Instructions that compute the same result wherever they run and cannot
/// trap, so they may be evaluated earlier than the program does.
fn is_speculatable(kind: &InstKind) -> bool {
    match kind {
        InstKind::Bin { op, .. } => {
            !matches!(op, BinOp::SDiv | BinOp::UDiv | BinOp::SRem | BinOp::URem)
        }
        InstKind::FNeg(_)
        | InstKind::Cmp { .. }
        | InstKind::Select { .. }
        | InstKind::Cast { .. }
        | InstKind::PtrAdd { .. }
        | InstKind::Math { .. } => true,
        InstKind::WorkItem { query, .. } => !matches!(query, WorkItem::LaneMask),
        _ => false,
    }
}

struct LoopView<'a> {
    lp: &'a Loop,
    /// The header φs' values on entry (from the preheader).
    entry_values: BTreeMap<ValueId, ValueId>,
}

impl LoopView<'_> {
    fn defined_inside(&self, f: &Function, v: ValueId) -> bool {
        f.def_inst(v)
            .is_some_and(|d| self.lp.contains(f.inst(d).block))
    }

    /// `v` has the same value in every iteration: defined before the loop,
    /// or speculatable arithmetic on such values.
    fn invariant(&self, f: &Function, v: ValueId) -> bool {
        self.computable_before(f, v, false, 0)
    }

    /// `v` as it is in the first iteration, computable before the loop:
    /// header φs read their entry value, everything else on the way must be
    /// speculatable.
    fn first_iteration(&self, f: &Function, v: ValueId) -> bool {
        self.computable_before(f, v, true, 0)
    }

    /// `v` can be evaluated in the preheader: a value from before the loop,
    /// a header φ (read as its entry value) when `entry_phis`, or
    /// speculatable arithmetic on such values.
    fn computable_before(&self, f: &Function, v: ValueId, entry_phis: bool, depth: u32) -> bool {
        if !self.defined_inside(f, v) || (entry_phis && self.entry_values.contains_key(&v)) {
            return true;
        }
        let Some(d) = f.def_inst(v) else { return true };
        let kind = &f.inst(d).kind;
        if depth > 16 || !is_speculatable(kind) {
            return false;
        }
        let mut ok = true;
        kind.for_each_operand(|o| ok &= self.computable_before(f, o, entry_phis, depth + 1));
        ok
    }
}

/// The first iteration's straight path from the header: each block with
/// the branch conditions (value, taken when true) that lead to it.
fn first_path(
    f: &Function,
    cfg: &Cfg,
    view: &LoopView,
    lid: crate::cfg::LoopId,
) -> Vec<(BlockId, Vec<(ValueId, bool)>)> {
    let lp = view.lp;
    let mut path = Vec::new();
    let mut conds: Vec<(ValueId, bool)> = Vec::new();
    let mut cur = lp.header;
    let mut seen = BTreeSet::new();
    loop {
        seen.insert(cur);
        path.push((cur, conds.clone()));
        let Some(t) = f.terminator(cur) else { break };
        let next = match &f.inst(t).kind {
            InstKind::Br(n) => *n,
            InstKind::CondBr { cond, then, els } => match (lp.contains(*then), lp.contains(*els)) {
                (true, false) if view.first_iteration(f, *cond) => {
                    conds.push((*cond, true));
                    *then
                }
                (false, true) if view.first_iteration(f, *cond) => {
                    conds.push((*cond, false));
                    *els
                }
                _ => break,
            },
            _ => break,
        };
        // Stay in this loop's own blocks (not a nested loop, not the next
        // iteration).
        if !lp.contains(next) || seen.contains(&next) || cfg.loop_of(next) != Some(lid) {
            break;
        }
        cur = next;
    }
    path
}

/// Moves `v`'s speculatable definition (and those of its operands defined
/// in the loop) to the end of `to`, before its terminator.
fn move_before_end(f: &mut Function, view: &LoopView, v: ValueId, to: BlockId) {
    if !view.defined_inside(f, v) {
        return;
    }
    let Some(d) = f.def_inst(v) else { return };
    let mut ops = Vec::new();
    f.inst(d).kind.for_each_operand(|o| ops.push(o));
    for o in ops {
        move_before_end(f, view, o, to);
    }
    place_before_end(f, d, to);
}

fn place_before_end(f: &mut Function, d: InstId, to: BlockId) {
    f.remove_inst(d);
    let pos = match f.terminator(to) {
        Some(_) => f.block(to).insts.len() - 1,
        None => f.block(to).insts.len(),
    };
    f.block_mut(to).insts.insert(pos, d);
    f.inst_mut(d).block = to;
}

/// A copy in `to` of `v` as it is in the first iteration.
fn clone_first_iteration(
    f: &mut Function,
    view: &LoopView,
    v: ValueId,
    to: BlockId,
    memo: &mut BTreeMap<ValueId, ValueId>,
) -> ValueId {
    if let Some(&e) = view.entry_values.get(&v) {
        return e;
    }
    if !view.defined_inside(f, v) {
        return v;
    }
    if let Some(&c) = memo.get(&v) {
        return c;
    }
    let Some(d) = f.def_inst(v) else { return v };
    let mut kind = f.inst(d).kind.clone();
    let (ty, src) = (f.inst(d).ty, f.inst(d).src);
    let mut ops = Vec::new();
    kind.for_each_operand(|o| ops.push(o));
    let copies: BTreeMap<ValueId, ValueId> = ops
        .into_iter()
        .map(|o| (o, clone_first_iteration(f, view, o, to, memo)))
        .collect();
    kind.for_each_operand_mut(|o| *o = copies[o]);
    let c = append_before_end(f, to, kind, ty, src);
    memo.insert(v, c);
    c
}

fn append_before_end(f: &mut Function, b: BlockId, kind: InstKind, ty: Ty, src: Src) -> ValueId {
    let pos = match f.terminator(b) {
        Some(_) => f.block(b).insts.len() - 1,
        None => f.block(b).insts.len(),
    };
    let (_, v) = f.insert(b, pos, kind, ty, src);
    v.unwrap_or(ValueId(u32::MAX))
}

fn hoist_loop(f: &mut Function, cfg: &Cfg, lp: &Loop) -> bool {
    let h = lp.header;
    let Some(lid) = cfg.header_of(h) else {
        return false;
    };
    let outside: Vec<BlockId> = cfg
        .preds(h)
        .iter()
        .copied()
        .filter(|b| !lp.contains(*b))
        .collect();
    let [pre] = outside.as_slice() else {
        return false;
    };
    let pre = *pre;
    if !matches!(f.terminator(pre).map(|t| &f.inst(t).kind), Some(InstKind::Br(t)) if *t == h) {
        return false;
    }
    if lp.blocks.iter().any(|&b| {
        f.block(b)
            .insts
            .iter()
            .any(|&i| writes_memory(&f.inst(i).kind))
    }) {
        return false;
    }
    let entry_values: BTreeMap<ValueId, ValueId> = f
        .phis(h)
        .filter_map(|i| {
            let inst = f.inst(i);
            let InstKind::Phi { incoming } = &inst.kind else {
                return None;
            };
            let (_, v) = incoming.iter().find(|(b, _)| *b == pre)?;
            Some((inst.result?, *v))
        })
        .collect();
    let view = LoopView { lp, entry_values };

    // The loads to hoist, grouped by the number of branch conditions that
    // lead to their block.
    let mut groups: BTreeMap<usize, Vec<InstId>> = BTreeMap::new();
    let path = first_path(f, cfg, &view, lid);
    for (b, conds) in &path {
        for &i in &f.block(*b).insts {
            if let InstKind::Load { ptr, .. } = f.inst(i).kind {
                if view.invariant(f, ptr) {
                    groups.entry(conds.len()).or_default().push(i);
                }
            }
        }
    }
    if groups.is_empty() {
        return false;
    }
    let conds = path.last().map(|(_, c)| c.clone()).unwrap_or_default();
    let src = f.inst(f.terminator(h).unwrap_or(InstId(0))).src;

    // Unconditional loads (in the header) go to the preheader itself.
    let mut before = pre;
    for (&n, loads) in &groups {
        if n == 0 {
            for &i in loads {
                let InstKind::Load { ptr, .. } = f.inst(i).kind else {
                    continue;
                };
                move_before_end(f, &view, ptr, before);
                place_before_end(f, i, before);
            }
            continue;
        }
        // The first `n` conditions, as they are in the first iteration.
        let mut memo = BTreeMap::new();
        let mut c0: Option<ValueId> = None;
        for &(c, taken) in &conds[..n] {
            let mut v = clone_first_iteration(f, &view, c, before, &mut memo);
            if !taken {
                let t = f.add_const(Const::Int(1, Ty::I1));
                v = append_before_end(
                    f,
                    before,
                    InstKind::Bin {
                        op: BinOp::Xor,
                        lhs: v,
                        rhs: t,
                    },
                    Ty::I1,
                    src,
                );
            }
            c0 = Some(match c0 {
                None => v,
                Some(a) => {
                    let fls = f.add_const(Const::Int(0, Ty::I1));
                    append_before_end(
                        f,
                        before,
                        InstKind::Select {
                            cond: a,
                            then: v,
                            els: fls,
                        },
                        Ty::I1,
                        src,
                    )
                }
            });
        }
        let Some(c0) = c0 else { continue };
        let label = f.block(h).label.clone();
        let guard = f.add_block(format!("{label}.hoist"));
        let join = f.add_block(format!("{label}.hoisted"));
        let Some(t) = f.terminator(before) else {
            continue;
        };
        f.inst_mut(t).kind = InstKind::CondBr {
            cond: c0,
            then: guard,
            els: join,
        };
        f.append(guard, InstKind::Br(join), Ty::Void, src);
        f.append(join, InstKind::Br(h), Ty::Void, src);
        for &i in loads {
            let InstKind::Load { ptr, .. } = f.inst(i).kind else {
                continue;
            };
            // The address is speculatable: computed on every path, loaded
            // only under the guard.
            move_before_end(f, &view, ptr, before);
            place_before_end(f, i, guard);
            let Some(r) = f.inst(i).result else { continue };
            let ty = f.inst(i).ty;
            let undef = f.add_const(Const::Undef(ty));
            let (phi, v) = f.add_phi(join, ty, vec![], src);
            f.replace_all_uses(r, v);
            f.inst_mut(phi).kind = InstKind::Phi {
                incoming: vec![(guard, r), (before, undef)],
            };
        }
        // The header is now entered from the join block.
        let header_phis: Vec<InstId> = f.phis(h).collect();
        for p in header_phis {
            if let InstKind::Phi { incoming } = &mut f.inst_mut(p).kind {
                for (b, _) in incoming.iter_mut() {
                    if *b == before {
                        *b = join;
                    }
                }
            }
        }
        before = join;
    }
    true
}
