//! Loop canonicalization (thesis §2 "loop normal form"): after
//! [`canonicalize`] every loop has
//! - a unique preheader: exactly one edge enters the header from outside,
//!   from a block ending in `br header`;
//! - a unique latch: exactly one back edge;
//! - dedicated exits with one incoming edge each: every exit block has
//!   exactly one predecessor edge, from inside the loop, so exiting edges and
//!   exit blocks correspond one to one (Appendix A's assumption);
//! - LCSSA: a value defined in the loop is used outside only through φs in
//!   the loop's exit blocks (one φ per loop level left; a value that leaves
//!   two loops through one edge gets one φ), plus φs where paths from
//!   several exits merge;
//!
//! and no block is unreachable. New blocks are appended (existing block ids
//! stay valid, except that removing unreachable blocks renumbers the blocks
//! after them) and labelled `<header>.preheader` (`for.cond.preheader`),
//! `loop.latch` and `loop.exit`.
//!
//! Source tags: a new φ takes the `Src` of the value it stands for, a new
//! branch the `Src` of the terminator whose edge it splits.
//!
//! Variables: every φ created for a value (preheader/latch merges, LCSSA and
//! merge φs) is appended to the `values` of each register variable
//! (`Var::in_memory == false`) that lists the value, so a variable's shape
//! can be read at any of its SSA names. Values of removed unreachable blocks
//! are dropped from `vars`.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::{Cfg, LoopId};
use crate::ir::verify::verify_with;
use crate::ir::{BlockId, Const, Function, InstId, InstKind, Src, Ty, ValueId};

/// Puts every loop of `f` in canonical form (module docs). Fails, leaving
/// `f` unchanged, on irreducible control flow and on IR the verifier rejects
/// (unreachable blocks are allowed: they are removed).
pub fn canonicalize(f: &mut Function) -> Result<(), String> {
    if let Err(errs) = verify_with(f, true) {
        let shown: Vec<&str> = errs.iter().take(3).map(|s| s.as_str()).collect();
        return Err(format!("malformed IR: {}", shown.join("; ")));
    }
    if !Cfg::compute(f).is_reducible() {
        return Err(
            "irreducible control flow (a loop with more than one entry) is not supported".into(),
        );
    }
    remove_unreachable(f);
    let edges: usize = f.block_ids().map(|b| f.successors(b).len()).sum();
    let cap = 64 + 4 * (f.blocks.len() + edges);
    let mut cfg = Cfg::compute(f);
    let mut converged = false;
    for _ in 0..cap {
        if !fix_one(f, &cfg) {
            converged = true;
            break;
        }
        cfg = Cfg::compute(f);
    }
    if !converged {
        return Err("internal error: loop canonicalization did not converge".into());
    }
    lcssa(f, &cfg);
    Ok(())
}

/// Checks every property [`canonicalize`] establishes; the error lists each
/// violation on its own line.
pub fn is_canonical(f: &Function) -> Result<(), String> {
    let cfg = Cfg::compute(f);
    let mut problems = Vec::new();
    if !cfg.is_reducible() {
        problems.push("irreducible control flow".to_string());
    }
    for b in f.block_ids() {
        if !cfg.is_reachable(b) {
            problems.push(format!("bb{}: unreachable", b.0));
        }
    }
    let users = f.users();
    for lid in cfg.loops().ids() {
        let Some(lp) = cfg.loops().get(lid) else {
            continue;
        };
        let h = lp.header;
        let entering = edges_into(f, &cfg, h, |p| !lp.contains(p));
        if entering.len() != 1 {
            problems.push(format!(
                "loop bb{}: {} edges enter the header (expected one, from a preheader)",
                h.0,
                entering.len()
            ));
        } else {
            let p = entering[0].0;
            let ok = f
                .terminator(p)
                .is_some_and(|t| matches!(f.inst(t).kind, InstKind::Br(_)));
            if !ok {
                problems.push(format!(
                    "loop bb{}: the preheader bb{} does not end in an unconditional branch",
                    h.0, p.0
                ));
            }
        }
        let back = edges_into(f, &cfg, h, |p| lp.contains(p));
        if back.len() != 1 {
            problems.push(format!(
                "loop bb{}: {} back edges (expected one, from a unique latch)",
                h.0,
                back.len()
            ));
        }
        for &e in &lp.exits {
            let n = edges_into(f, &cfg, e, |_| true).len();
            if n != 1 {
                problems.push(format!(
                    "loop bb{}: exit bb{} has {n} incoming edges (expected exactly one, from inside the loop)",
                    h.0, e.0
                ));
            }
        }
        // LCSSA.
        for &b in &lp.blocks {
            for &i in &f.block(b).insts {
                let Some(v) = f.inst(i).result else { continue };
                for &u in users.get(v.index()).map(|u| u.as_slice()).unwrap_or(&[]) {
                    if !f.is_placed(u) {
                        continue;
                    }
                    let inst = f.inst(u);
                    let locs: Vec<BlockId> = match &inst.kind {
                        InstKind::Phi { incoming } => incoming
                            .iter()
                            .filter(|&&(_, x)| x == v)
                            .map(|&(pb, _)| pb)
                            .collect(),
                        _ => vec![inst.block],
                    };
                    for loc in locs {
                        if !lp.contains(loc) {
                            problems.push(format!(
                                "loop bb{}: %{} (defined in bb{}) is used in bb{} outside the loop without an LCSSA φ",
                                h.0, v.0, b.0, inst.block.0
                            ));
                        }
                    }
                }
            }
        }
        for b in f.block_ids() {
            if lp.contains(b) {
                continue;
            }
            let Some(p) = f.block(b).predicate else {
                continue;
            };
            if let Some(d) = f.def_inst(p) {
                if f.is_placed(d) && lp.contains(f.inst(d).block) {
                    problems.push(format!(
                        "loop bb{}: the predicate of bb{} is defined inside the loop",
                        h.0, b.0
                    ));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

// ---- edges -------------------------------------------------------------

/// Successor slot `k` of a terminator, in `InstKind::successors` order.
fn set_slot(kind: &mut InstKind, k: usize, to: BlockId) {
    match kind {
        InstKind::Br(b) if k == 0 => *b = to,
        InstKind::CondBr { then, els, .. } => match k {
            0 => *then = to,
            1 => *els = to,
            _ => {}
        },
        InstKind::Switch { default, cases, .. } => {
            if k == 0 {
                *default = to;
            } else if let Some(c) = cases.get_mut(k - 1) {
                c.1 = to;
            }
        }
        _ => {}
    }
}

/// Every edge into `target` as (source block, successor slot), for the
/// sources that pass `keep`, in block order.
fn edges_into(
    f: &Function,
    cfg: &Cfg,
    target: BlockId,
    keep: impl Fn(BlockId) -> bool,
) -> Vec<(BlockId, usize)> {
    let mut out = Vec::new();
    for &p in cfg.preds(target) {
        if !keep(p) {
            continue;
        }
        for (k, s) in f.successors(p).into_iter().enumerate() {
            if s == target {
                out.push((p, k));
            }
        }
    }
    out
}

fn term_src(f: &Function, b: BlockId) -> Option<Src> {
    f.terminator(b).map(|t| f.inst(t).src)
}

/// A new block ending in `br to`.
fn new_block(f: &mut Function, label: String, to: BlockId, src: Src) -> BlockId {
    let b = f.add_block(label);
    f.append(b, InstKind::Br(to), Ty::Void, src);
    b
}

/// Points successor slot `k` of `from`'s terminator at `to`.
fn redirect(f: &mut Function, from: BlockId, k: usize, to: BlockId) {
    if let Some(t) = f.terminator(from) {
        set_slot(&mut f.inst_mut(t).kind, k, to);
    }
}

/// Appends `new` to every register variable that lists `of`.
fn record_alias(f: &mut Function, of: ValueId, new: ValueId) {
    for var in &mut f.vars {
        if !var.in_memory && var.values.contains(&of) && !var.values.contains(&new) {
            var.values.push(new);
        }
    }
}

fn undef(f: &mut Function, ty: Ty) -> ValueId {
    f.add_const(Const::Undef(ty))
}

/// The value for `entries` merged at the start of `block`: the common value
/// if all agree, otherwise a new φ standing for the φ `stands_for`.
fn merge_value(
    f: &mut Function,
    block: BlockId,
    ty: Ty,
    entries: Vec<(BlockId, ValueId)>,
    src: Src,
    stands_for: ValueId,
) -> ValueId {
    let Some(&(_, first)) = entries.first() else {
        return undef(f, ty);
    };
    if entries.iter().all(|&(_, v)| v == first) {
        return first;
    }
    let (_, v) = f.add_phi(block, ty, entries, src);
    record_alias(f, stands_for, v);
    v
}

// ---- unreachable blocks ------------------------------------------------

/// Removes the blocks unreachable from the entry, renumbering the others.
/// Instructions of removed blocks stay in the arena, placed nowhere.
fn remove_unreachable(f: &mut Function) {
    let n = f.blocks.len();
    let Some(entry) = (f.entry.index() < n).then_some(f.entry) else {
        return;
    };
    let mut reach = vec![false; n];
    let mut stack = vec![entry];
    reach[entry.index()] = true;
    while let Some(b) = stack.pop() {
        for s in f.successors(b) {
            if s.index() < n && !reach[s.index()] {
                reach[s.index()] = true;
                stack.push(s);
            }
        }
    }
    if reach.iter().all(|&r| r) {
        return;
    }
    let mut new_id = vec![None; n];
    let mut next = 0u32;
    for b in 0..n {
        if reach[b] {
            new_id[b] = Some(BlockId(next));
            next += 1;
        }
    }
    let mut placed = vec![false; f.insts.len()];
    let mut removed_values: HashSet<ValueId> = HashSet::new();
    for (b, block) in f.blocks.iter().enumerate() {
        for &i in &block.insts {
            if let Some(p) = placed.get_mut(i.index()) {
                if reach[b] {
                    *p = true;
                } else if let Some(v) = f.insts[i.index()].result {
                    removed_values.insert(v);
                }
            }
        }
    }
    let remap = |b: BlockId| new_id.get(b.index()).copied().flatten();
    let mut undefs: HashMap<ValueId, ValueId> = HashMap::new();
    for (i, &is_placed) in placed.iter().enumerate() {
        if !is_placed {
            f.insts[i].block = BlockId(u32::MAX);
            continue;
        }
        let mut kind = std::mem::replace(&mut f.insts[i].kind, InstKind::Unreachable);
        if let InstKind::Phi { incoming } = &mut kind {
            incoming.retain(|&(b, _)| remap(b).is_some());
            for (b, _) in incoming.iter_mut() {
                if let Some(nb) = remap(*b) {
                    *b = nb;
                }
            }
        }
        let succs = kind.successors();
        for (k, s) in succs.into_iter().enumerate() {
            if let Some(ns) = remap(s) {
                set_slot(&mut kind, k, ns);
            }
        }
        // Uses of values defined in removed blocks (only possible on
        // malformed SSA) become undef.
        let mut ops = Vec::new();
        kind.for_each_operand(|v| ops.push(v));
        for v in ops {
            if removed_values.contains(&v) && !undefs.contains_key(&v) {
                let ty = f.ty(v);
                let u = undef(f, ty);
                undefs.insert(v, u);
            }
        }
        kind.for_each_operand_mut(|v| {
            if let Some(&u) = undefs.get(v) {
                *v = u;
            }
        });
        f.insts[i].kind = kind;
        if let Some(nb) = remap(f.insts[i].block) {
            f.insts[i].block = nb;
        }
    }
    let old_blocks = std::mem::take(&mut f.blocks);
    for (b, block) in old_blocks.into_iter().enumerate() {
        if reach[b] {
            f.blocks.push(block);
        }
    }
    for b in 0..f.blocks.len() {
        if let Some(p) = f.blocks[b].predicate {
            if removed_values.contains(&p) {
                let u = undef(f, Ty::I1);
                f.blocks[b].predicate = Some(u);
            }
        }
    }
    f.entry = remap(entry).unwrap_or(BlockId(0));
    for var in &mut f.vars {
        var.values.retain(|v| !removed_values.contains(v));
        var.block = var.block.and_then(remap);
    }
}

#[cfg(test)]
pub(super) fn remove_unreachable_for_tests(f: &mut Function) {
    remove_unreachable(f)
}

// ---- preheaders, latches, exits -----------------------------------------

/// Fixes the first violation of the loop form found; false when there is
/// none. The caller recomputes the CFG after every fix.
fn fix_one(f: &mut Function, cfg: &Cfg) -> bool {
    for lid in cfg.loops().ids() {
        let Some(lp) = cfg.loops().get(lid) else {
            continue;
        };
        let h = lp.header;
        let inside = |b: BlockId| lp.contains(b);

        // Preheader.
        let entering = edges_into(f, cfg, h, |p| !inside(p));
        let preheader_ok = entering.len() == 1
            && h != f.entry
            && f.terminator(entering[0].0)
                .is_some_and(|t| matches!(f.inst(t).kind, InstKind::Br(_)));
        if !preheader_ok {
            let src = entering
                .first()
                .and_then(|&(p, _)| term_src(f, p))
                .or_else(|| term_src(f, h));
            let Some(src) = src else { continue };
            let label = match f.block(h).label.as_str() {
                "" => "preheader".to_string(),
                l => format!("{l}.preheader"),
            };
            let ph = new_block(f, label, h, src);
            for &(p, k) in &entering {
                redirect(f, p, k, ph);
            }
            let phis: Vec<InstId> = f.phis(h).collect();
            for phi in phis {
                let (ty, src, stands_for) = {
                    let i = f.inst(phi);
                    (i.ty, i.src, i.result.unwrap_or(ValueId(u32::MAX)))
                };
                let InstKind::Phi { incoming } = f.inst(phi).kind.clone() else {
                    continue;
                };
                let (outside, mut keep): (Vec<_>, Vec<_>) =
                    incoming.into_iter().partition(|&(b, _)| !inside(b));
                let v = merge_value(f, ph, ty, outside, src, stands_for);
                keep.push((ph, v));
                f.inst_mut(phi).kind = InstKind::Phi { incoming: keep };
            }
            if h == f.entry {
                f.entry = ph;
            }
            return true;
        }

        // Unique latch.
        let back = edges_into(f, cfg, h, inside);
        if back.len() > 1 {
            let Some(src) = term_src(f, back[0].0) else {
                continue;
            };
            let latch = new_block(f, "loop.latch".into(), h, src);
            for &(p, k) in &back {
                redirect(f, p, k, latch);
            }
            let phis: Vec<InstId> = f.phis(h).collect();
            for phi in phis {
                let (ty, src, stands_for) = {
                    let i = f.inst(phi);
                    (i.ty, i.src, i.result.unwrap_or(ValueId(u32::MAX)))
                };
                let InstKind::Phi { incoming } = f.inst(phi).kind.clone() else {
                    continue;
                };
                let (from_loop, mut keep): (Vec<_>, Vec<_>) =
                    incoming.into_iter().partition(|&(b, _)| inside(b));
                let v = merge_value(f, latch, ty, from_loop, src, stands_for);
                keep.push((latch, v));
                f.inst_mut(phi).kind = InstKind::Phi { incoming: keep };
            }
            return true;
        }

        // Exits with one incoming edge each.
        for &e in &lp.exits {
            let all = edges_into(f, cfg, e, |_| true);
            if all.len() == 1 {
                continue;
            }
            let from_loop: Vec<(BlockId, usize)> =
                all.into_iter().filter(|&(p, _)| inside(p)).collect();
            for (p, k) in from_loop {
                let Some(src) = term_src(f, p) else { continue };
                let n = new_block(f, "loop.exit".into(), e, src);
                redirect(f, p, k, n);
                // One φ entry per edge: move one entry of `p` to `n`.
                let phis: Vec<InstId> = f.phis(e).collect();
                for phi in phis {
                    if let InstKind::Phi { incoming } = &mut f.inst_mut(phi).kind {
                        if let Some(entry) = incoming.iter_mut().find(|(b, _)| *b == p) {
                            entry.0 = n;
                        }
                    }
                }
            }
            return true;
        }
    }
    false
}

// ---- LCSSA ---------------------------------------------------------------

/// Where a value is used outside a loop.
#[derive(Clone, Copy, Debug)]
enum UseSite {
    /// Every operand of a non-φ instruction equal to the value.
    Operand(InstId),
    /// One φ entry (index into `incoming`).
    PhiEntry(InstId, usize),
    /// A block predicate.
    Predicate(BlockId),
}

/// Puts every loop in LCSSA form, innermost loops first (so a value leaving
/// two loops gets a φ at each level). Needs dedicated single-edge exits.
fn lcssa(f: &mut Function, cfg: &Cfg) {
    let mut order: Vec<LoopId> = cfg.loops().ids().collect();
    order.sort_by_key(|&l| std::cmp::Reverse(cfg.loops().get(l).map_or(0, |lp| lp.depth)));
    let preds = f.predecessors();
    for l in order {
        lcssa_loop(f, cfg, l, &preds);
    }
}

fn lcssa_loop(f: &mut Function, cfg: &Cfg, l: LoopId, preds: &[Vec<BlockId>]) {
    let Some(lp) = cfg.loops().get(l) else { return };
    let in_loop = |b: BlockId| lp.contains(b);
    let defined_in_loop = |f: &Function, v: ValueId| -> bool {
        f.def_inst(v)
            .is_some_and(|d| f.is_placed(d) && in_loop(f.inst(d).block))
    };
    // Outside uses of values defined in the loop, by value.
    let mut uses: BTreeMap<ValueId, Vec<(UseSite, BlockId)>> = BTreeMap::new();
    for b in f.block_ids() {
        let outside = !in_loop(b);
        for &u in &f.block(b).insts {
            match &f.inst(u).kind {
                InstKind::Phi { incoming } => {
                    for (idx, &(pb, v)) in incoming.iter().enumerate() {
                        if !in_loop(pb) && defined_in_loop(f, v) {
                            uses.entry(v)
                                .or_default()
                                .push((UseSite::PhiEntry(u, idx), pb));
                        }
                    }
                }
                kind if outside => {
                    let mut ops = kind.operands();
                    ops.sort_unstable();
                    ops.dedup();
                    for v in ops {
                        if defined_in_loop(f, v) {
                            uses.entry(v).or_default().push((UseSite::Operand(u), b));
                        }
                    }
                }
                _ => {}
            }
        }
        if outside {
            if let Some(p) = f.block(b).predicate {
                if defined_in_loop(f, p) {
                    uses.entry(p).or_default().push((UseSite::Predicate(b), b));
                }
            }
        }
    }
    for (v, sites) in uses {
        rewrite_outside_uses(f, cfg, &in_loop, preds, v, &sites);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Site {
    /// An exit block of the loop: gets the LCSSA φ.
    Exit,
    /// Several predecessors: a merge φ (removed again if trivial).
    Merge,
    /// One predecessor: the value at its end.
    Single(BlockId),
    /// No predecessor (cannot happen on a canonical CFG): undef.
    NoPred,
}

/// SSA reconstruction for one value: LCSSA φs in the exits the uses are
/// reached from, merge φs where those paths meet, then every outside use
/// rewritten to the value reaching it.
fn rewrite_outside_uses(
    f: &mut Function,
    cfg: &Cfg,
    in_loop: &dyn Fn(BlockId) -> bool,
    preds: &[Vec<BlockId>],
    v: ValueId,
    sites: &[(UseSite, BlockId)],
) {
    let Some(def) = f.def_inst(v) else { return };
    let ty = f.ty(v);
    let src = f.inst(def).src;
    let no_preds: Vec<BlockId> = Vec::new();
    let preds_of = |b: BlockId| preds.get(b.index()).unwrap_or(&no_preds);

    // Backward search from the uses to the exits.
    let mut site: HashMap<BlockId, Site> = HashMap::new();
    let mut order: Vec<BlockId> = Vec::new();
    let mut stack: Vec<BlockId> = sites.iter().map(|&(_, b)| b).collect();
    while let Some(b) = stack.pop() {
        if site.contains_key(&b) {
            continue;
        }
        let ps = cfg.preds(b);
        let s = if ps.iter().any(|&p| in_loop(p)) {
            Site::Exit
        } else if ps.is_empty() {
            Site::NoPred
        } else if ps.len() == 1 {
            stack.push(ps[0]);
            Site::Single(ps[0])
        } else {
            stack.extend_from_slice(ps);
            Site::Merge
        };
        site.insert(b, s);
        order.push(b);
    }

    // Values at block entries for exits, merges and dead ends.
    let mut at_entry: HashMap<BlockId, ValueId> = HashMap::new();
    let mut created: Vec<(BlockId, InstId, ValueId)> = Vec::new(); // exits and merges
    let mut merges: Vec<(BlockId, InstId, ValueId)> = Vec::new();
    for &b in &order {
        match site[&b] {
            Site::Exit => {
                // Entries from outside the loop (only on non-canonical
                // CFGs) read undef.
                let mut fixed = Vec::new();
                for &p in preds_of(b) {
                    let x = if in_loop(p) { v } else { undef(f, ty) };
                    fixed.push((p, x));
                }
                let (i, phi) = f.add_phi(b, ty, fixed, src);
                at_entry.insert(b, phi);
                created.push((b, i, phi));
            }
            Site::Merge => {
                let (i, phi) = f.add_phi(b, ty, Vec::new(), src);
                at_entry.insert(b, phi);
                merges.push((b, i, phi));
            }
            Site::NoPred => {
                let u = undef(f, ty);
                at_entry.insert(b, u);
            }
            Site::Single(_) => {}
        }
    }
    let limit = order.len() + 1;
    let mut undef_v: Option<ValueId> = None;
    // The value at the entry of `b`: follow single-predecessor chains to an
    // exit, merge or dead end. A cycle of single-predecessor blocks
    // (unreachable) reads undef.
    let resolve = |f: &mut Function, undef_v: &mut Option<ValueId>, b: BlockId| -> ValueId {
        let mut cur = b;
        for _ in 0..limit {
            if let Some(&x) = at_entry.get(&cur) {
                return x;
            }
            match site.get(&cur) {
                Some(Site::Single(p)) => cur = *p,
                _ => break,
            }
        }
        *undef_v.get_or_insert_with(|| undef(f, ty))
    };

    // Fill the merge φs.
    for &(b, i, _) in &merges {
        let mut entries = Vec::new();
        for &p in preds_of(b) {
            entries.push((p, resolve(f, &mut undef_v, p)));
        }
        f.inst_mut(i).kind = InstKind::Phi { incoming: entries };
    }

    // Remove trivial merge φs (all entries the same value or the φ itself).
    let mut repl: HashMap<ValueId, ValueId> = HashMap::new();
    let find = |repl: &HashMap<ValueId, ValueId>, mut x: ValueId| {
        for _ in 0..=repl.len() {
            match repl.get(&x) {
                Some(&y) => x = y,
                None => break,
            }
        }
        x
    };
    let mut dead: HashSet<InstId> = HashSet::new();
    loop {
        let mut changed = false;
        for &(_, i, phi) in &merges {
            if dead.contains(&i) {
                continue;
            }
            let InstKind::Phi { incoming } = &f.inst(i).kind else {
                continue;
            };
            let mut same: Option<ValueId> = None;
            let mut trivial = true;
            for &(_, x) in incoming {
                let x = find(&repl, x);
                if x == phi {
                    continue;
                }
                match same {
                    None => same = Some(x),
                    Some(s) if s == x => {}
                    Some(_) => {
                        trivial = false;
                        break;
                    }
                }
            }
            if trivial {
                let to = match same {
                    Some(s) => s,
                    // Only itself (a cycle no definition reaches): undef.
                    None => *undef_v.get_or_insert_with(|| undef(f, ty)),
                };
                repl.insert(phi, to);
                dead.insert(i);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for &(b, i, phi) in &merges {
        if dead.contains(&i) {
            f.block_mut(b).insts.retain(|&x| x != i);
            continue;
        }
        if let InstKind::Phi { incoming } = &mut f.inst_mut(i).kind {
            for (_, x) in incoming.iter_mut() {
                *x = find(&repl, *x);
            }
        }
        created.push((b, i, phi));
    }

    // Rewrite the uses.
    for &(use_site, loc) in sites {
        let x = resolve(f, &mut undef_v, loc);
        let x = find(&repl, x);
        match use_site {
            UseSite::Operand(u) => f.inst_mut(u).kind.for_each_operand_mut(|op| {
                if *op == v {
                    *op = x;
                }
            }),
            UseSite::PhiEntry(u, idx) => {
                if let InstKind::Phi { incoming } = &mut f.inst_mut(u).kind {
                    if let Some(e) = incoming.get_mut(idx) {
                        e.1 = x;
                    }
                }
            }
            UseSite::Predicate(b) => f.block_mut(b).predicate = Some(x),
        }
    }
    for &(_, _, phi) in &created {
        record_alias(f, v, phi);
    }
}
