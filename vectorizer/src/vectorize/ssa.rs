//! Variables over a changing CFG, turned into SSA at the end.
//!
//! The transforms express block masks, φ values and loop trackers as
//! *variables* written at the end of blocks and read at their start (a
//! read is a placeholder value). Once the final control-flow graph exists,
//! [`Vars::construct`] places φs at the iterated dominance frontiers of the
//! writes (Cytron et al.) and resolves every placeholder to the reaching
//! value. [`repair`] does the same for SSA values whose definition no
//! longer dominates a use after linearization.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::cfg::Cfg;
use crate::ir::{BlockId, Const, Function, InstKind, Src, Ty, ValueId};

/// One variable. Reads and writes are recorded in execution order per block.
#[derive(Clone, Debug)]
struct Var {
    ty: Ty,
    /// The value on paths with no write (from the function entry).
    default: ValueId,
    /// Placeholders read at the start of a block (before any write there).
    start_reads: Vec<(BlockId, ValueId)>,
    /// Placeholders read at the end of a block (after all writes there).
    end_reads: Vec<(BlockId, ValueId)>,
    /// Writes at the end of a block, in creation (= execution) order: the
    /// placeholder the write reads as the old value (if any) and the new
    /// value.
    writes: Vec<(BlockId, Option<ValueId>, ValueId)>,
    src: Src,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VarId(u32);

#[derive(Default)]
pub struct Vars {
    vars: Vec<Var>,
    /// Placeholder → the value it stands for (filled by `construct`).
    resolved: HashMap<ValueId, ValueId>,
}

impl Vars {
    pub fn new_var(&mut self, ty: Ty, default: ValueId, src: Src) -> VarId {
        self.vars.push(Var {
            ty,
            default,
            start_reads: Vec::new(),
            end_reads: Vec::new(),
            writes: Vec::new(),
            src,
        });
        VarId(self.vars.len() as u32 - 1)
    }

    fn placeholder(f: &mut Function, ty: Ty) -> ValueId {
        // Constants are not interned: a fresh `undef` is a unique value.
        f.add_const(Const::Undef(ty))
    }

    /// The variable's value at the start of `b`.
    pub fn read_start(&mut self, f: &mut Function, v: VarId, b: BlockId) -> ValueId {
        let var = &mut self.vars[v.0 as usize];
        let p = Self::placeholder(f, var.ty);
        var.start_reads.push((b, p));
        p
    }

    /// A placeholder for the old value of a write about to be recorded with
    /// [`Vars::write`].
    pub fn old_value(&mut self, f: &mut Function, v: VarId) -> ValueId {
        Self::placeholder(f, self.vars[v.0 as usize].ty)
    }

    /// Records `v = new` at the end of `b`; `old` is the placeholder `new`
    /// was computed from, if any.
    pub fn write(&mut self, v: VarId, b: BlockId, old: Option<ValueId>, new: ValueId) {
        self.vars[v.0 as usize].writes.push((b, old, new));
    }

    /// Places φs and resolves every placeholder of every variable on the
    /// final CFG, then rewrites all operands.
    pub fn construct(&mut self, f: &mut Function, cfg: &Cfg) {
        let df = dominance_frontiers(cfg);
        for i in 0..self.vars.len() {
            let var = self.vars[i].clone();
            construct_var(f, cfg, &df, &var, &mut self.resolved);
        }
        apply(f, &self.resolved);
    }

    /// The value a placeholder (or any value) stands for after `construct`.
    pub fn resolve(&self, v: ValueId) -> ValueId {
        resolve(&self.resolved, v)
    }
}

fn resolve(map: &HashMap<ValueId, ValueId>, mut v: ValueId) -> ValueId {
    // Chains are short (a φ variable's value read from another variable);
    // the bound guards against a cycle.
    for _ in 0..map.len() + 1 {
        match map.get(&v) {
            Some(&n) if n != v => v = n,
            _ => break,
        }
    }
    v
}

fn apply(f: &mut Function, map: &HashMap<ValueId, ValueId>) {
    if map.is_empty() {
        return;
    }
    for inst in &mut f.insts {
        inst.kind.for_each_operand_mut(|v| *v = resolve(map, *v));
    }
    for var in &mut f.vars {
        for v in &mut var.values {
            *v = resolve(map, *v);
        }
    }
}

/// Dominance frontiers of the reachable blocks (Cooper, Harvey, Kennedy).
pub fn dominance_frontiers(cfg: &Cfg) -> Vec<BTreeSet<BlockId>> {
    let n = cfg.num_blocks();
    let mut df = vec![BTreeSet::new(); n];
    for b in 0..n {
        let b = BlockId(b as u32);
        if !cfg.is_reachable(b) {
            continue;
        }
        let preds: Vec<BlockId> = cfg
            .preds(b)
            .iter()
            .copied()
            .filter(|&p| cfg.is_reachable(p))
            .collect();
        if preds.len() < 2 {
            continue;
        }
        let Some(idom) = cfg.idom(b) else { continue };
        for p in preds {
            let mut runner = p;
            while runner != idom {
                df[runner.index()].insert(b);
                match cfg.idom(runner) {
                    Some(d) if d != runner => runner = d,
                    _ => break,
                }
            }
        }
    }
    df
}

fn idf(df: &[BTreeSet<BlockId>], defs: &BTreeSet<BlockId>) -> BTreeSet<BlockId> {
    let mut out = BTreeSet::new();
    let mut work: Vec<BlockId> = defs.iter().copied().collect();
    while let Some(b) = work.pop() {
        for &y in &df[b.index()] {
            if out.insert(y) {
                work.push(y);
            }
        }
    }
    out
}

fn construct_var(
    f: &mut Function,
    cfg: &Cfg,
    df: &[BTreeSet<BlockId>],
    var: &Var,
    map: &mut HashMap<ValueId, ValueId>,
) {
    let mut start_reads: BTreeMap<BlockId, Vec<ValueId>> = BTreeMap::new();
    for &(b, p) in &var.start_reads {
        start_reads.entry(b).or_default().push(p);
    }
    let mut end_reads: BTreeMap<BlockId, Vec<ValueId>> = BTreeMap::new();
    for &(b, p) in &var.end_reads {
        end_reads.entry(b).or_default().push(p);
    }
    let mut writes: BTreeMap<BlockId, Vec<(Option<ValueId>, ValueId)>> = BTreeMap::new();
    for &(b, old, new) in &var.writes {
        writes.entry(b).or_default().push((old, new));
    }
    let mut defs: BTreeSet<BlockId> = writes.keys().copied().collect();
    defs.insert(cfg.entry());
    let phi_blocks = idf(df, &defs);
    let mut phis: BTreeMap<BlockId, (crate::ir::InstId, ValueId)> = BTreeMap::new();
    for &b in &phi_blocks {
        if cfg.is_reachable(b) && b != cfg.entry() {
            let (i, v) = f.add_phi(b, var.ty, Vec::new(), var.src);
            phis.insert(b, (i, v));
        }
    }
    // Rename along the dominator tree (iteratively: depth is user-controlled).
    let mut stack = vec![(cfg.entry(), var.default)];
    while let Some((b, inherited)) = stack.pop() {
        let mut cur = phis.get(&b).map(|&(_, v)| v).unwrap_or(inherited);
        for &p in start_reads.get(&b).into_iter().flatten() {
            map.insert(p, cur);
        }
        for &(old, new) in writes.get(&b).into_iter().flatten() {
            if let Some(old) = old {
                map.insert(old, cur);
            }
            cur = new;
        }
        for &p in end_reads.get(&b).into_iter().flatten() {
            map.insert(p, cur);
        }
        // One incoming entry per edge (a switch may reach a block twice).
        for s in f.successors(b) {
            if let Some(&(phi, _)) = phis.get(&s) {
                if let InstKind::Phi { incoming } = &mut f.inst_mut(phi).kind {
                    incoming.push((b, cur));
                }
            }
        }
        for c in cfg.dom_children(b) {
            stack.push((c, cur));
        }
    }
    // Placeholders in unreachable blocks read the default.
    for p in var
        .start_reads
        .iter()
        .chain(&var.end_reads)
        .map(|&(_, p)| p)
        .chain(var.writes.iter().filter_map(|&(_, o, _)| o))
    {
        map.entry(p).or_insert(var.default);
    }
}

/// Restores SSA dominance for values whose definition no longer dominates
/// every use (after linearization): each such value becomes a variable
/// with one write at its definition and `undef` elsewhere — the lanes that
/// read it executed the definition first.
pub fn repair(f: &mut Function, cfg: &Cfg) {
    // Uses: (user instruction, the block where the use happens).
    let mut broken: BTreeMap<ValueId, Vec<(crate::ir::InstId, BlockId)>> = BTreeMap::new();
    for b in f.block_ids().collect::<Vec<_>>() {
        if !cfg.is_reachable(b) {
            continue;
        }
        for (pos, &i) in f.block(b).insts.iter().enumerate() {
            let inst = f.inst(i);
            let mut uses: Vec<(ValueId, BlockId, bool)> = Vec::new();
            match &inst.kind {
                InstKind::Phi { incoming } => {
                    for &(p, v) in incoming {
                        uses.push((v, p, true));
                    }
                }
                k => k.for_each_operand(|v| uses.push((v, b, false))),
            }
            for (v, at, at_end) in uses {
                let Some(d) = f.def_inst(v) else { continue };
                let db = f.inst(d).block;
                let ok = if db == at {
                    // Same block: the definition must come first (a φ use
                    // sits at the end of the predecessor).
                    at_end
                        || f.block(b)
                            .insts
                            .iter()
                            .position(|&x| x == d)
                            .is_some_and(|dp| dp < pos)
                } else {
                    cfg.is_reachable(db) && cfg.dominates(db, at)
                };
                if !ok {
                    broken.entry(v).or_default().push((i, at));
                }
            }
        }
    }
    if broken.is_empty() {
        return;
    }
    let df = dominance_frontiers(cfg);
    for (v, uses) in broken {
        let Some(d) = f.def_inst(v) else { continue };
        let ty = f.ty(v);
        let src = f.inst(d).src;
        let default = f.add_const(Const::Undef(ty));
        let db = f.inst(d).block;
        let mut var = Var {
            ty,
            default,
            start_reads: Vec::new(),
            end_reads: Vec::new(),
            writes: vec![(db, None, v)],
            src,
        };
        // One placeholder per broken use, patched into that operand only.
        let mut patches: Vec<(crate::ir::InstId, BlockId, ValueId)> = Vec::new();
        for (user, at) in uses {
            let p = f.add_const(Const::Undef(ty));
            if f.inst(user).kind.is_phi() {
                var.end_reads.push((at, p));
            } else {
                var.start_reads.push((at, p));
            }
            patches.push((user, at, p));
        }
        for &(user, at, p) in &patches {
            match &mut f.inst_mut(user).kind {
                InstKind::Phi { incoming } => {
                    for (pb, pv) in incoming.iter_mut() {
                        if *pb == at && *pv == v {
                            *pv = p;
                        }
                    }
                }
                k => k.for_each_operand_mut(|o| {
                    if *o == v {
                        *o = p
                    }
                }),
            }
        }
        let mut map = HashMap::new();
        construct_var(f, cfg, &df, &var, &mut map);
        apply(f, &map);
    }
}
