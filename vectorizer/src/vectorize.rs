//! Vectorization: from the scalar IR of a kernel and its divergence analysis
//! to *vector IR*, the form the code generator widens instruction by
//! instruction.
//!
//! Vector IR is the same [`Function`] type with three guarantees:
//! - it is **control-uniform**: every `CondBr`/`Switch` condition has a
//!   uniform shape, so branches stay scalar branches of the SIMD group;
//! - every block has an explicit **mask** value (`i1`, one bit per lane):
//!   the lanes whose scalar program executes that block now. Memory
//!   accesses, horizontal operations and integer divisions in the block use
//!   it; everything else computes on all lanes;
//! - every value has a **shape**: uniform values stay scalar (one copy for
//!   the group), the others are vectors of W lanes.
//!
//! The entry mask is [`WorkItem::LaneMask`] (all lanes, except in the
//! remainder group of a row).

mod hoist;
mod linearize;
mod read;
mod row_order;
mod serialize;
mod ssa;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use crate::cfg::{Cfg, LoopId};
use crate::divergence::{Divergence, MaskKind};
use crate::ir::{
    BinOp, BlockId, CmpPred, Const, Function, Horizontal, InstId, InstKind, Src, Ty, ValueId,
    WorkItem,
};
use crate::shape::Shape;
use ssa::{VarId, Vars};

pub use hoist::apply as hoist_invariant_loads;
pub use read::parse;

/// A kernel in vector IR (see the module documentation).
#[derive(Clone, Debug)]
pub struct VectorFunction {
    pub func: Function,
    /// The SIMD width W.
    pub width: u32,
    /// By [`ValueId`]. `is_uniform()` (or `Bottom`, for values never
    /// reached) means scalar; anything else a vector of `width` lanes.
    /// `Strided { stride, .. }` on a pointer: lane `l` holds
    /// `lane0 + l * stride` bytes (a packed access when `stride` equals the
    /// accessed element size). An `Alloca` with a non-uniform shape is a
    /// per-lane private object: W copies, lane `l`'s at `base + l * size`.
    pub shapes: Vec<Shape>,
    /// By [`BlockId`]: the `i1` mask value of the block (defined in a block
    /// that dominates it, usually the `LaneMask` of the entry block).
    pub block_mask: Vec<ValueId>,
    /// By [`BlockId`]: true when the block never runs with an all-false
    /// mask, so a uniform load or store there needs no guard (a block whose
    /// mask may be empty must guard uniform memory accesses with
    /// `any(mask)` and uniform divisions against a zero divisor).
    pub mask_nonempty: Vec<bool>,
}

impl VectorFunction {
    pub fn shape(&self, v: ValueId) -> Shape {
        self.shapes.get(v.index()).copied().unwrap_or(Shape::Bottom)
    }

    /// True when the value is one scalar for the whole SIMD group.
    pub fn is_uniform(&self, v: ValueId) -> bool {
        let s = self.shape(v);
        s.is_bottom() || s.is_uniform()
    }
}

/// Why a kernel could not be vectorized.
#[derive(Clone, Debug, PartialEq)]
pub struct VectorizeError {
    pub span: lanes_frontend::source::Span,
    pub message: String,
}

/// Vectorizes a canonical kernel (see [`crate::cfg::canonicalize`]) with
/// its divergence analysis for width `div.width`:
/// 1. every `ret`/`unreachable` goes to one exit block;
/// 2. block masks, φ values and loop trackers become variables written on
///    the original edges (edge mask = source mask ∧ branch condition);
/// 3. the divergent loop transform (thesis §9.1) for divergent loops and
///    for loops that may be entered with no active lane: the header runs
///    while `any(live)`, every exit edge goes to the latch, and a dispatch
///    block after the loop sends each lane to the exit it took;
/// 4. partial linearization (ch. 8) of every divergent branch;
/// 5. SSA construction of the variables, SSA repair, clean-up, and the
///    shapes of the result (the divergence analysis re-run on the now
///    control-uniform code, with the per-lane allocas of the scalar analysis
///    pinned).
pub fn vectorize(
    func: &Function,
    cfg0: &Cfg,
    div: &Divergence,
) -> Result<VectorFunction, VectorizeError> {
    // Images need an image model: code generation refuses them before this
    // point, and nothing below knows how to widen them. Barriers and
    // collectives (in work-group-uniform control, which the analysis
    // checks) and atomics (masked like stores) pass through.
    if let Some(i) = func.insts.iter().find(|i| {
        matches!(
            i.kind,
            InstKind::ImageRead { .. } | InstKind::ImageWrite { .. } | InstKind::ImageQuery { .. }
        )
    }) {
        return Err(error(i.src.span, "images are not vectorized"));
    }
    // Loads that every iteration of a masked loop repeats are made once.
    let hoisted = hoist::apply(func, cfg0, div).and_then(|mut g| {
        crate::cfg::canonicalize(&mut g).ok()?;
        let cfg = Cfg::compute(&g);
        let d = crate::divergence::analyze_pinned(&g, &cfg, div.width, &div.varying_allocas);
        Some((g, cfg, d))
    });
    let (func, cfg0, div) = match &hoisted {
        Some((g, cfg, d)) => (g, cfg, d),
        None => (func, cfg0, div),
    };
    // Work-group-uniform loops that read a row of the work-group's block per
    // iteration run row by row: a barrier in the latch makes each iteration
    // a region of the work-group schedule.
    let rowed = row_order::apply(func, cfg0, div).map(|g| {
        let cfg = Cfg::compute(&g);
        let d = crate::divergence::analyze_pinned(&g, &cfg, div.width, &div.varying_allocas);
        (g, cfg, d)
    });
    let (func, cfg0, div) = match &rowed {
        Some((g, cfg, d)) => (g, cfg, d),
        None => (func, cfg0, div),
    };
    // Loops that walk per-lane streams run better one lane at a time.
    if let Some(mut g) = serialize::apply(func, cfg0, div) {
        if crate::cfg::canonicalize(&mut g).is_ok() {
            let cfg = Cfg::compute(&g);
            let d = crate::divergence::analyze_pinned(&g, &cfg, div.width, &div.varying_allocas);
            if let Ok(vf) = Vectorizer::new(&g, &cfg, &d).and_then(|v| v.run()) {
                return Ok(vf);
            }
        }
    }
    Vectorizer::new(func, cfg0, div)?.run()
}

/// Where a block's mask comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum MaskSrc {
    /// The entry mask (`LaneMask`): the block runs for all lanes whenever
    /// it runs (a uniform predicate outside transformed loops).
    Lane,
    /// The `live` mask of the transformed loop the block heads.
    Live(LoopId),
    /// A variable OR-ed from the incoming edges.
    Var(VarId),
    /// The mask of a BOSCC-guarded block that dominates this one, whose
    /// predicate is uniform relative to it (thesis Def. 23): the block runs
    /// with all of that block's lanes, and never with none.
    Anchor(BlockId),
}

/// An exit φ's variable kept as a count of iterations (see
/// [`Vectorizer::induction_counters`]).
struct Counter {
    l: LoopId,
    start: ValueId,
    /// `k` when the exit value is `iv + k`: the count starts at `start + k`.
    offset: Option<ValueId>,
    step: ValueId,
}

/// Per transformed loop.
struct LoopPlan {
    header: BlockId,
    preheader: BlockId,
    latch: BlockId,
    live: VarId,
    /// The lanes that left through this loop's own exits: the dispatch
    /// block's mask.
    entry: VarId,
    exit: VarId,
    /// Distinct exit targets whose outermost exited loop is this one.
    targets: Vec<BlockId>,
    /// The target `exit` starts at on entry: lanes leaving towards it need
    /// no write. A target reached by a uniform branch is preferred, so that
    /// the loop does not blend `exit` on every iteration for an exit that
    /// all lanes take at once.
    default_target: usize,
    /// Some exit also leaves an enclosing loop: its lanes retire, and the
    /// dispatch mask must be tracked instead of being the entry mask.
    retires: bool,
    dispatch: BlockId,
    /// With two exit targets, one reached only by a uniform branch of the
    /// header: the lanes that took it, the mask of that exit edge written at
    /// the header's end. The dispatch reads it instead of `exit`, which then
    /// needs no write in the iterations (see [`Vectorizer::header_exit`]).
    header_exit: Option<(BlockId, VarId)>,
    /// e(preheader → header) and e(latch → header).
    entry_mask: Option<ValueId>,
    live_next: Option<ValueId>,
}

struct Vectorizer<'a> {
    div: &'a Divergence,
    f: Function,
    cfg: Cfg,
    vars: Vars,
    lane_mask: ValueId,
    false_: ValueId,
    true_: ValueId,
    mask_src: Vec<MaskSrc>,
    /// The block's mask value (a placeholder until SSA construction).
    mask: Vec<ValueId>,
    plans: BTreeMap<LoopId, LoopPlan>,
    /// Original blocks only (the unified exit and dispatch blocks are new).
    original_blocks: usize,
    divergent_headers: BTreeSet<BlockId>,
    /// Edge masks of the original edges.
    edge_mask: BTreeMap<(BlockId, BlockId), ValueId>,
    /// Blocks whose terminator is a divergent branch (updated by the
    /// transforms, used by linearization).
    divergent: BTreeSet<BlockId>,
    /// BOSCC gadgets chosen before the transforms: (branch block, guarded
    /// successor).
    boscc_plan: Vec<(BlockId, BlockId)>,
    /// By block: the guarded block whose mask it shares (see
    /// [`MaskSrc::Anchor`]).
    anchor: Vec<Option<BlockId>>,
}

fn error(span: lanes_frontend::source::Span, message: impl Into<String>) -> VectorizeError {
    VectorizeError {
        span,
        message: message.into(),
    }
}

impl<'a> Vectorizer<'a> {
    fn new(func: &Function, cfg0: &Cfg, div: &'a Divergence) -> Result<Self, VectorizeError> {
        let mut f = func.clone();
        // The analysis's loop ids belong to `cfg0`; headers stay the same blocks.
        let divergent_headers: BTreeSet<BlockId> = div
            .divergent_loops
            .keys()
            .filter_map(|&l| cfg0.loops().header(l))
            .collect();
        let original_blocks = f.blocks.len();
        unify_exits(&mut f);
        let cfg = Cfg::compute(&f);
        if !cfg.is_reducible() {
            return Err(error(f.span, "irreducible control flow is not supported"));
        }
        let src = Src {
            node: lanes_frontend::ast::NodeId(0),
            span: f.span,
        };
        let entry = f.entry;
        let pos = f.phis(entry).count();
        let (_, lane_mask) = f.insert(
            entry,
            pos,
            InstKind::WorkItem {
                query: WorkItem::LaneMask,
                dim: None,
            },
            Ty::I1,
            src,
        );
        let lane_mask = lane_mask.ok_or_else(|| error(f.span, "internal: mask without value"))?;
        let false_ = f.add_const(Const::Int(0, Ty::I1));
        let true_ = f.add_const(Const::Int(1, Ty::I1));
        Ok(Vectorizer {
            div,
            f,
            cfg,
            vars: Vars::default(),
            lane_mask,
            false_,
            true_,
            mask_src: Vec::new(),
            mask: Vec::new(),
            plans: BTreeMap::new(),
            original_blocks,
            divergent_headers,
            edge_mask: BTreeMap::new(),
            divergent: BTreeSet::new(),
            boscc_plan: Vec::new(),
            anchor: Vec::new(),
        })
    }

    fn src(&self) -> Src {
        Src {
            node: lanes_frontend::ast::NodeId(0),
            span: self.f.span,
        }
    }

    fn mask_kind(&self, b: BlockId) -> MaskKind {
        if b.index() >= self.original_blocks {
            return MaskKind::None;
        }
        self.div
            .masks
            .get(b.index())
            .copied()
            .unwrap_or(MaskKind::Varying)
    }

    /// Inserts an instruction before `b`'s terminator.
    fn at_end(&mut self, b: BlockId, kind: InstKind, ty: Ty, src: Src) -> ValueId {
        let pos = match self.f.terminator(b) {
            Some(_) => self.f.block(b).insts.len() - 1,
            None => self.f.block(b).insts.len(),
        };
        let (_, v) = self.f.insert(b, pos, kind, ty, src);
        v.unwrap_or(self.false_)
    }

    /// `m ? c : false` — a select, not an `and`, so that a garbage lane of
    /// `c` where `m` is false cannot leak into the mask.
    fn and_mask(&mut self, b: BlockId, m: ValueId, c: ValueId, src: Src) -> ValueId {
        let f = self.false_;
        self.at_end(
            b,
            InstKind::Select {
                cond: m,
                then: c,
                els: f,
            },
            Ty::I1,
            src,
        )
    }

    fn not(&mut self, b: BlockId, c: ValueId, src: Src) -> ValueId {
        let t = self.true_;
        self.at_end(
            b,
            InstKind::Bin {
                op: BinOp::Xor,
                lhs: c,
                rhs: t,
            },
            Ty::I1,
            src,
        )
    }

    fn any(&mut self, b: BlockId, c: ValueId, src: Src) -> ValueId {
        self.at_end(
            b,
            InstKind::Horizontal {
                op: Horizontal::Any,
                args: vec![c],
            },
            Ty::I1,
            src,
        )
    }

    fn or_write(&mut self, var: VarId, b: BlockId, e: ValueId, src: Src) {
        self.update_write(var, b, Ty::I1, src, |old| InstKind::Bin {
            op: BinOp::Or,
            lhs: old,
            rhs: e,
        });
    }

    fn select_write(
        &mut self,
        var: VarId,
        b: BlockId,
        cond: ValueId,
        v: ValueId,
        ty: Ty,
        src: Src,
    ) {
        self.update_write(var, b, ty, src, |old| InstKind::Select {
            cond,
            then: v,
            els: old,
        });
    }

    /// `var = update(var)` at the end of `b`.
    fn update_write(
        &mut self,
        var: VarId,
        b: BlockId,
        ty: Ty,
        src: Src,
        update: impl FnOnce(ValueId) -> InstKind,
    ) {
        let old = self.vars.old_value(&mut self.f, var);
        let new = self.at_end(b, update(old), ty, src);
        self.vars.write(var, b, Some(old), new);
    }

    fn preheader(&self, l: LoopId) -> Option<BlockId> {
        let lp = &self.cfg.loops().loops[l.index()];
        let outside: Vec<BlockId> = self
            .cfg
            .preds(lp.header)
            .iter()
            .copied()
            .filter(|p| !lp.contains(*p))
            .collect();
        match outside.as_slice() {
            [p] if self.f.successors(*p).len() == 1 => Some(*p),
            _ => None,
        }
    }

    fn run(mut self) -> Result<VectorFunction, VectorizeError> {
        self.plan_boscc();
        self.plan_anchors();
        self.plan_loops()?;
        self.plan_masks();
        self.create_dispatch_blocks();
        self.lower_phis_and_edges()?;
        self.restructure()?;
        self.divergent_set();
        self.insert_boscc()?;
        self.linearize()?;
        self.finish()
    }

    /// Chooses the loops to transform: divergent ones, ones whose preheader
    /// may run with no active lane (a uniform loop there could spin on
    /// garbage), and every loop inside a transformed one.
    fn plan_loops(&mut self) -> Result<(), VectorizeError> {
        let forest = self.cfg.loops().clone();
        let divergent_headers = self.divergent_headers.clone();
        let mut order: Vec<LoopId> = forest.ids().collect();
        order.sort_by_key(|l| forest.loops[l.index()].depth);
        let mut chosen: BTreeSet<LoopId> = BTreeSet::new();
        for l in order {
            let lp = &forest.loops[l.index()];
            let Some(pre) = self.preheader(l) else {
                return Err(error(self.f.span, "internal: loop without preheader"));
            };
            let parent_chosen = lp.parent.is_some_and(|p| chosen.contains(&p));
            if divergent_headers.contains(&lp.header)
                || (self.mask_kind(pre) == MaskKind::Varying && self.anchor_of(pre).is_none())
                || parent_chosen
            {
                chosen.insert(l);
            }
        }
        for l in chosen {
            let lp = forest.loops[l.index()].clone();
            let [latch] = lp.latches.as_slice() else {
                return Err(error(self.f.span, "internal: loop without a unique latch"));
            };
            let preheader = self.preheader(l).unwrap_or(lp.header);
            let src = self.src();
            let live = self.vars.new_var(Ty::I1, self.false_, src);
            let entry = self.vars.new_var(Ty::I1, self.false_, src);
            let undef = self.f.add_const(Const::Undef(Ty::I32));
            let exit = self.vars.new_var(Ty::I32, undef, src);
            self.plans.insert(
                l,
                LoopPlan {
                    header: lp.header,
                    preheader,
                    latch: *latch,
                    live,
                    entry,
                    exit,
                    targets: Vec::new(),
                    default_target: 0,
                    retires: false,
                    dispatch: lp.header,
                    header_exit: None,
                    entry_mask: None,
                    live_next: None,
                },
            );
        }
        Ok(())
    }

    fn in_transformed_loop(&self, b: BlockId) -> bool {
        let mut l = self.cfg.loop_of(b);
        while let Some(x) = l {
            if self.plans.contains_key(&x) {
                return true;
            }
            l = self.cfg.loops().parent(x);
        }
        false
    }

    fn plan_masks(&mut self) {
        let n = self.f.blocks.len();
        self.mask_src = vec![MaskSrc::Lane; n];
        self.mask = vec![self.lane_mask; n];
        // Reverse post-order: an anchor's mask exists before the blocks
        // that share it.
        let order: Vec<BlockId> = self.cfg.rpo().to_vec();
        for b in order {
            if !self.cfg.is_reachable(b) {
                continue;
            }
            let anchored = self
                .anchor_of(b)
                .filter(|&r| r != b && !self.in_transformed_loop(b));
            let src = if let Some(r) = anchored {
                MaskSrc::Anchor(r)
            } else if let Some(l) = self.cfg.header_of(b).filter(|l| self.plans.contains_key(l)) {
                MaskSrc::Live(l)
            } else if self.in_transformed_loop(b) || self.mask_kind(b) == MaskKind::Varying {
                let s = self.src();
                MaskSrc::Var(self.vars.new_var(Ty::I1, self.false_, s))
            } else {
                MaskSrc::Lane
            };
            self.mask_src[b.index()] = src;
            self.mask[b.index()] = match src {
                MaskSrc::Lane => self.lane_mask,
                MaskSrc::Live(l) => {
                    let v = self.plans[&l].live;
                    self.vars.read_start(&mut self.f, v, b)
                }
                MaskSrc::Var(v) => self.vars.read_start(&mut self.f, v, b),
                MaskSrc::Anchor(r) => self.mask[r.index()],
            };
        }
        // Per-iteration masks start empty in every iteration of their loop.
        for b in 0..n {
            let b = BlockId(b as u32);
            let MaskSrc::Var(v) = self.mask_src[b.index()] else {
                continue;
            };
            let Some(l) = self.cfg.loop_of(b) else {
                continue;
            };
            let lp = &self.cfg.loops().loops[l.index()];
            let (Some(pre), Some(&latch)) = (self.preheader(l), lp.latches.first()) else {
                continue;
            };
            let f = self.false_;
            self.vars.write(v, pre, None, f);
            self.vars.write(v, latch, None, f);
        }
    }

    /// The loops an edge leaves, innermost first.
    fn exited_loops(&self, p: BlockId, s: BlockId) -> Vec<LoopId> {
        let forest = self.cfg.loops();
        let mut out = Vec::new();
        let mut l = self.cfg.loop_of(p);
        while let Some(x) = l {
            if forest.contains(x, s) {
                break;
            }
            out.push(x);
            l = forest.parent(x);
        }
        out
    }

    fn create_dispatch_blocks(&mut self) {
        // Exit targets per transformed loop, in a deterministic order.
        let mut targets: BTreeMap<LoopId, Vec<BlockId>> = BTreeMap::new();
        for p in self.f.block_ids().collect::<Vec<_>>() {
            if !self.cfg.is_reachable(p) {
                continue;
            }
            for s in self.f.successors(p) {
                let exited = self.exited_loops(p, s);
                for l in exited.iter().rev().skip(1) {
                    if let Some(plan) = self.plans.get_mut(l) {
                        plan.retires = true;
                    }
                }
                if let Some(&outer) = exited.last() {
                    if self.plans.contains_key(&outer) {
                        let t = targets.entry(outer).or_default();
                        if !t.contains(&s) {
                            t.push(s);
                        }
                    }
                }
            }
        }
        let ids: Vec<LoopId> = self.plans.keys().copied().collect();
        for l in ids {
            let d = self.f.add_block("loop.dispatch");
            let src = self.src();
            // A placeholder terminator; `restructure` sets the real one.
            self.f.append(d, InstKind::Br(d), Ty::Void, src);
            let entry = self.plans[&l].entry;
            let m = self.vars.read_start(&mut self.f, entry, d);
            self.mask_src.push(MaskSrc::Lane);
            self.mask.push(m);
            let plan_targets = targets.remove(&l).unwrap_or_default();
            let default_target = self.default_target(l, &plan_targets);
            let header_exit = self.header_exit(l, &plan_targets).map(|t| {
                let v = self.vars.new_var(Ty::I1, self.false_, src);
                (t, v)
            });
            let plan = self.plans.get_mut(&l).expect("plan");
            plan.dispatch = d;
            plan.targets = plan_targets;
            plan.default_target = default_target;
            plan.header_exit = header_exit;
        }
    }

    /// The exit target of loop `l` that `exit` starts at: the first one
    /// reached by a uniform branch inside the loop, else the first.
    fn default_target(&self, l: LoopId, targets: &[BlockId]) -> usize {
        let lp = &self.cfg.loops().loops[l.index()];
        let uniform_exit = |s: BlockId| {
            lp.blocks.iter().any(|&p| {
                let Some(term) = self.f.terminator(p) else {
                    return false;
                };
                let cond = match &self.f.inst(term).kind {
                    InstKind::CondBr { cond, .. } => *cond,
                    InstKind::Switch { value, .. } => *value,
                    _ => return false,
                };
                self.div.is_uniform(cond)
                    && self.f.successors(p).contains(&s)
                    && self.exited_loops(p, s).last() == Some(&l)
            })
        };
        targets.iter().position(|&s| uniform_exit(s)).unwrap_or(0)
    }

    /// The exit target that only a uniform branch of loop `l`'s header
    /// reaches, when the loop has two targets and no lane leaves through
    /// it to an enclosing loop (`while (i < n && varying)`, `for (...; i <
    /// n; ...) { if (varying) break; }`). The header runs with every live
    /// lane, so when that branch leaves, all of them leave and the loop
    /// ends in that iteration: the lanes at that target are the exit edge's
    /// mask in the last iteration, and every other lane that entered left
    /// for the other target. No per-iteration record of the exit taken
    /// (a `select` of its index on every varying exit) is needed.
    fn header_exit(&self, l: LoopId, targets: &[BlockId]) -> Option<BlockId> {
        let lp = &self.cfg.loops().loops[l.index()];
        let plan = self.plans.get(&l)?;
        if targets.len() != 2 || plan.retires {
            return None;
        }
        let h = lp.header;
        let term = self.f.terminator(h)?;
        let InstKind::CondBr { cond, then, els } = self.f.inst(term).kind else {
            return None;
        };
        if then == els || !self.div.is_uniform(cond) {
            return None;
        }
        let t = [then, els]
            .into_iter()
            .find(|&s| targets.contains(&s) && self.exited_loops(h, s) == [l])?;
        let reached_elsewhere = lp
            .blocks
            .iter()
            .any(|&p| p != h && self.f.successors(p).contains(&t));
        (!reached_elsewhere).then_some(t)
    }

    /// Edge masks of `p`'s terminator, one per distinct target.
    fn edge_masks(&mut self, p: BlockId) -> Vec<(BlockId, ValueId)> {
        let Some(term) = self.f.terminator(p) else {
            return Vec::new();
        };
        let src = self.f.inst(term).src;
        let m = self.mask[p.index()];
        let kind = self.f.inst(term).kind.clone();
        let mut out: Vec<(BlockId, ValueId)> = Vec::new();
        let add = |out: &mut Vec<(BlockId, ValueId)>, s: BlockId, e: ValueId, this: &mut Self| {
            if let Some(x) = out.iter_mut().find(|x| x.0 == s) {
                let prev = x.1;
                x.1 = this.at_end(
                    p,
                    InstKind::Bin {
                        op: BinOp::Or,
                        lhs: prev,
                        rhs: e,
                    },
                    Ty::I1,
                    src,
                );
            } else {
                out.push((s, e));
            }
        };
        match kind {
            InstKind::Br(s) => out.push((s, m)),
            InstKind::CondBr { cond, then, els } => {
                if then == els {
                    out.push((then, m));
                } else {
                    let et = self.and_mask(p, m, cond, src);
                    let nc = self.not(p, cond, src);
                    let ee = self.and_mask(p, m, nc, src);
                    out.push((then, et));
                    out.push((els, ee));
                }
            }
            InstKind::Switch {
                value,
                default,
                cases,
            } => {
                let ty = self.f.ty(value);
                let mut any_case: Option<ValueId> = None;
                for &(c, s) in &cases {
                    let k = self.f.add_const(Const::Int(c, ty));
                    let eq = self.at_end(
                        p,
                        InstKind::Cmp {
                            pred: CmpPred::Eq,
                            lhs: value,
                            rhs: k,
                        },
                        Ty::I1,
                        src,
                    );
                    any_case = Some(match any_case {
                        None => eq,
                        Some(a) => self.at_end(
                            p,
                            InstKind::Bin {
                                op: BinOp::Or,
                                lhs: a,
                                rhs: eq,
                            },
                            Ty::I1,
                            src,
                        ),
                    });
                    let e = self.and_mask(p, m, eq, src);
                    add(&mut out, s, e, self);
                }
                let e = match any_case {
                    None => m,
                    Some(a) => {
                        let na = self.not(p, a, src);
                        self.and_mask(p, m, na, src)
                    }
                };
                add(&mut out, default, e, self);
            }
            _ => {}
        }
        out
    }

    /// The exit φs whose every incoming value is the header induction
    /// variable `i = φ(start, i + c)` of the one transformed loop their
    /// edges leave (`it` of `while (it < n && |z| <= 2) it++`; `i` of `for
    /// (...) if (a[i] == x) break;` read after the loop).
    ///
    /// Such a φ's variable is written per lane on every exit edge, a
    /// `select` of `i` in every iteration. Instead it counts: `start` on
    /// entry, `+ c` on the back edge for the lanes that go round again.
    /// A lane that is live at the header has then counted as many
    /// iterations as `i` has (the variable equals `i` there), and one that
    /// left keeps the value `i` had when it left, which is what the exit
    /// edge wrote.
    fn induction_counters(
        &self,
        phi_vars: &BTreeMap<InstId, (VarId, ValueId, Vec<(BlockId, ValueId)>)>,
        phi_read: &BTreeMap<ValueId, ValueId>,
    ) -> BTreeMap<VarId, Counter> {
        let mut out = BTreeMap::new();
        for (&i, (var, v, incoming)) in phi_vars {
            let s = self.f.inst(i).block;
            if self.div.is_uniform(*v) || !self.f.ty(*v).is_int() || self.f.ty(*v) == Ty::I1 {
                continue;
            }
            let mut exits = incoming.iter().map(|&(p, x)| (self.exited_loops(p, s), x));
            let Some((first, x)) = exits.next() else {
                continue;
            };
            let [l] = first[..] else { continue };
            if !exits.all(|(ls, y)| ls == [l] && y == x) {
                continue;
            }
            let Some(plan) = self.plans.get(&l) else {
                continue;
            };
            // The exit value is `iv` or `iv + k` (`i + 1` after a search, or
            // `i` of a loop whose exit test follows the increment).
            let header_phi = |w: ValueId| {
                phi_vars
                    .iter()
                    .any(|(j, (_, u, _))| *u == w && self.f.inst(*j).block == plan.header)
            };
            let (iv, offset) = if header_phi(x) {
                (x, None)
            } else {
                let read_of = |w: ValueId| {
                    phi_read
                        .iter()
                        .find(|(u, r)| **r == w && header_phi(**u))
                        .map(|(u, _)| *u)
                };
                let plus = self
                    .plus_constant(x)
                    .and_then(|(a, k)| read_of(a).map(|u| (u, k)));
                match plus {
                    Some((u, k)) if self.f.ty(k) == self.f.ty(*v) => (u, Some(k)),
                    _ => continue,
                }
            };
            // `iv`: a φ of the header, `start` from the preheader and
            // `iv + c` from the latch.
            let Some((_, (_, _, iv_in))) = phi_vars
                .iter()
                .find(|(j, (_, w, _))| *w == iv && self.f.inst(**j).block == plan.header)
            else {
                continue;
            };
            let [(b0, x0), (b1, x1)] = iv_in[..] else {
                continue;
            };
            let (start, next) = match (b0, b1) {
                _ if b0 == plan.preheader && b1 == plan.latch => (x0, x1),
                _ if b1 == plan.preheader && b0 == plan.latch => (x1, x0),
                _ => continue,
            };
            let Some(read) = phi_read.get(&iv).copied() else {
                continue;
            };
            let Some((_, step)) = self.plus_constant(next).filter(|&(a, _)| a == read) else {
                continue;
            };
            if self.f.ty(step) != self.f.ty(*v) {
                continue;
            }
            let start = phi_read.get(&start).copied().unwrap_or(start);
            out.insert(
                *var,
                Counter {
                    l,
                    start,
                    offset,
                    step,
                },
            );
        }
        out
    }

    /// `(a, k)` when `v` is `a + k` (or `k + a`) with `k` a constant.
    fn plus_constant(&self, v: ValueId) -> Option<(ValueId, ValueId)> {
        let InstKind::Bin {
            op: BinOp::Add,
            lhs,
            rhs,
        } = self.f.inst(self.f.def_inst(v)?).kind
        else {
            return None;
        };
        match (self.f.as_const(lhs), self.f.as_const(rhs)) {
            (_, Some(_)) => Some((lhs, rhs)),
            (Some(_), _) => Some((rhs, lhs)),
            _ => None,
        }
    }

    /// Records, for every original edge, what it contributes: to the target's
    /// mask, to a transformed loop's live/entry/exit trackers, and to the
    /// variables that replace the target's φs.
    fn lower_phis_and_edges(&mut self) -> Result<(), VectorizeError> {
        // φs become variables read at the start of their block.
        let mut phi_vars: BTreeMap<InstId, (VarId, ValueId, Vec<(BlockId, ValueId)>)> =
            BTreeMap::new();
        let mut phi_read: BTreeMap<ValueId, ValueId> = BTreeMap::new();
        for b in self.f.block_ids().collect::<Vec<_>>() {
            for i in self.f.phis(b).collect::<Vec<_>>() {
                let inst = self.f.inst(i).clone();
                let (Some(v), InstKind::Phi { incoming }) = (inst.result, &inst.kind) else {
                    continue;
                };
                let undef = self.f.add_const(Const::Undef(inst.ty));
                let var = self.vars.new_var(inst.ty, undef, inst.src);
                let r = self.vars.read_start(&mut self.f, var, b);
                phi_read.insert(v, r);
                phi_vars.insert(i, (var, v, incoming.clone()));
            }
        }
        for (&i, &(_, v, _)) in &phi_vars {
            let r = phi_read[&v];
            self.f.replace_all_uses(v, r);
            self.f.remove_inst(i);
        }
        let mapped = |x: ValueId| phi_read.get(&x).copied().unwrap_or(x);
        let counters = self.induction_counters(&phi_vars, &phi_read);

        let blocks: Vec<BlockId> = (0..self.original_blocks as u32 + 1)
            .map(BlockId)
            .filter(|b| b.index() < self.f.blocks.len() && self.cfg.is_reachable(*b))
            .collect();
        for p in blocks {
            let edges = self.edge_masks(p);
            let src = self
                .f
                .terminator(p)
                .map(|t| self.f.inst(t).src)
                .unwrap_or(self.src());
            for (s, e) in edges {
                self.edge_mask.insert((p, s), e);
                let exited = self.exited_loops(p, s);
                let outer_plan = exited
                    .last()
                    .filter(|l| self.plans.contains_key(l))
                    .copied();
                if outer_plan.is_none() && exited.iter().any(|l| self.plans.contains_key(l)) {
                    return Err(error(
                        src.span,
                        "internal: an exit leaves a divergent loop and a uniform one",
                    ));
                }
                if let Some(l) = outer_plan {
                    let (exit, done, k, retires, default) = {
                        let plan = &self.plans[&l];
                        let k = plan.targets.iter().position(|&t| t == s).unwrap_or(0);
                        (plan.exit, plan.entry, k, plan.retires, plan.default_target)
                    };
                    if let Some((t, hx)) = self.plans[&l].header_exit {
                        if t == s {
                            self.vars.write(hx, p, None, e);
                        }
                    } else if self.plans[&l].targets.len() > 1 && k != default {
                        let kc = self.f.const_int(k as i64, Ty::I32);
                        self.select_write(exit, p, e, kc, Ty::I32, src);
                    }
                    // Lanes leaving through this loop's own exits (not
                    // those that also leave an enclosing loop: they retire).
                    if retires {
                        self.or_write(done, p, e, src);
                    }
                } else if let Some(l) = self.cfg.header_of(s).filter(|l| self.plans.contains_key(l))
                {
                    let (live, entry, pre, latch) = {
                        let plan = &self.plans[&l];
                        (plan.live, plan.entry, plan.preheader, plan.latch)
                    };
                    self.vars.write(live, p, None, e);
                    if let (true, Some((_, hx))) = (p == pre, self.plans[&l].header_exit) {
                        let f = self.false_;
                        self.vars.write(hx, p, None, f);
                    } else if p == pre && self.plans[&l].targets.len() > 1 {
                        let plan = &self.plans[&l];
                        let k = self.f.const_int(plan.default_target as i64, Ty::I32);
                        self.vars.write(plan.exit, p, None, k);
                    }
                    // Induction variables read at exits count their lanes.
                    for (&var, c) in counters.iter().filter(|(_, c)| c.l == l) {
                        if p == pre {
                            let start = match c.offset {
                                Some(k) => self.at_end(
                                    p,
                                    InstKind::Bin {
                                        op: BinOp::Add,
                                        lhs: c.start,
                                        rhs: k,
                                    },
                                    self.f.ty(k),
                                    src,
                                ),
                                None => c.start,
                            };
                            self.vars.write(var, p, None, start);
                        } else if p == latch {
                            let ty = self.f.ty(c.step);
                            let zero = self.f.const_int(0, ty);
                            let add = self.at_end(
                                p,
                                InstKind::Select {
                                    cond: e,
                                    then: c.step,
                                    els: zero,
                                },
                                ty,
                                src,
                            );
                            self.update_write(var, p, ty, src, |old| InstKind::Bin {
                                op: BinOp::Add,
                                lhs: old,
                                rhs: add,
                            });
                        }
                    }
                    let plan = self.plans.get_mut(&l).expect("plan");
                    if p == pre {
                        plan.entry_mask = Some(e);
                        // Without retiring lanes, every lane that enters
                        // leaves through one of the loop's own exits.
                        let init = if plan.retires { self.false_ } else { e };
                        self.vars.write(entry, p, None, init);
                    } else if p == latch {
                        plan.live_next = Some(e);
                    }
                } else if let MaskSrc::Var(v) = self.mask_src[s.index()] {
                    self.or_write(v, p, e, src);
                }
                // The target's φs.
                let is_header_edge = self.cfg.header_of(s).is_some();
                let phis: Vec<(VarId, ValueId, ValueId, Ty)> = phi_vars
                    .iter()
                    .filter(|(i, _)| self.f.inst(**i).block == s)
                    .filter_map(|(i, (var, v, inc))| {
                        inc.iter()
                            .find(|(b, _)| *b == p)
                            .map(|&(_, x)| (*var, *v, mapped(x), self.f.inst(*i).ty))
                    })
                    .collect();
                // `s` reached only from `p`, and not through the delayed
                // exit of a transformed loop: each execution of `p` that
                // sends lanes to `s` is the last write before `s` runs, and
                // only those lanes run `s`. The value needs no blend (an
                // LCSSA φ after a uniform loop would otherwise keep a
                // per-lane select in every iteration of the loop).
                let sole_edge = outer_plan.is_none() && self.cfg.preds(s) == [p];
                for (var, phi_value, x, ty) in phis {
                    if outer_plan.is_some() && counters.contains_key(&var) {
                        // Its value is the lane's count (`induction_counters`).
                        continue;
                    }
                    let uniform = self.div.is_uniform(phi_value);
                    let nonempty = self.is_nonempty(p);
                    if is_header_edge || (uniform && nonempty) || (!uniform && sole_edge) {
                        self.vars.write(var, p, None, x);
                    } else if uniform {
                        let a = self.any(p, e, src);
                        self.select_write(var, p, a, x, ty, src);
                    } else {
                        self.select_write(var, p, e, x, ty, src);
                    }
                }
            }
        }
        Ok(())
    }

    /// The divergent loop transform's new edges (outermost loops first).
    fn restructure(&mut self) -> Result<(), VectorizeError> {
        let forest = self.cfg.loops().clone();
        let mut order: Vec<LoopId> = self.plans.keys().copied().collect();
        order.sort_by_key(|l| forest.loops[l.index()].depth);
        for l in order {
            let plan = &self.plans[&l];
            let (h, pre, latch, d) = (plan.header, plan.preheader, plan.latch, plan.dispatch);
            let targets = plan.targets.clone();
            let exit_var = plan.exit;
            let header_exit = plan.header_exit;
            let entry_mask = plan.entry_mask.unwrap_or(self.false_);
            let live_next = plan.live_next.unwrap_or(self.false_);
            let src = self
                .f
                .terminator(latch)
                .map(|t| self.f.inst(t).src)
                .unwrap_or(self.src());
            // Every exit edge now goes to the latch (its lanes retire).
            let lp = &forest.loops[l.index()];
            for &x in &lp.blocks {
                let Some(t) = self.f.terminator(x) else {
                    continue;
                };
                if x == latch {
                    continue;
                }
                let succs = self.f.successors(x);
                for s in succs {
                    if !lp.contains(s) {
                        self.f.inst_mut(t).kind.replace_successor(s, latch);
                    }
                }
            }
            // Enter only with some lane, iterate while some lane stays.
            let a = self.any(pre, entry_mask, src);
            if let Some(t) = self.f.terminator(pre) {
                self.f.inst_mut(t).kind = InstKind::CondBr {
                    cond: a,
                    then: h,
                    els: d,
                };
            }
            let a = self.any(latch, live_next, src);
            if let Some(t) = self.f.terminator(latch) {
                self.f.inst_mut(t).kind = InstKind::CondBr {
                    cond: a,
                    then: h,
                    els: d,
                };
            }
            // Dispatch each lane to the exit it took.
            let m = self.mask[d.index()];
            let term = match targets.as_slice() {
                [] => {
                    // Every exit also leaves an enclosing (transformed) loop.
                    let to = lp
                        .parent
                        .and_then(|p| self.plans.get(&p))
                        .map(|p| p.latch)
                        .unwrap_or(self.exit_block());
                    InstKind::Br(to)
                }
                [s] => {
                    if let MaskSrc::Var(v) = self.mask_src[s.index()] {
                        self.or_write(v, d, m, src);
                    }
                    InstKind::Br(*s)
                }
                &[s0, s1] if let Some((t, hx)) = header_exit => {
                    let other = if t == s0 { s1 } else { s0 };
                    let hx = self.vars.read_start(&mut self.f, hx, d);
                    let nx = self.not(d, hx, src);
                    for (s, c) in [(t, hx), (other, nx)] {
                        if let MaskSrc::Var(v) = self.mask_src[s.index()] {
                            let e = self.and_mask(d, m, c, src);
                            self.or_write(v, d, e, src);
                        }
                    }
                    InstKind::CondBr {
                        cond: hx,
                        then: t,
                        els: other,
                    }
                }
                [s0, rest @ ..] => {
                    let idx = self.vars.read_start(&mut self.f, exit_var, d);
                    for (k, &s) in targets.iter().enumerate() {
                        if let MaskSrc::Var(v) = self.mask_src[s.index()] {
                            let kc = self.f.const_int(k as i64, Ty::I32);
                            let eq = self.at_end(
                                d,
                                InstKind::Cmp {
                                    pred: CmpPred::Eq,
                                    lhs: idx,
                                    rhs: kc,
                                },
                                Ty::I1,
                                src,
                            );
                            let e = self.and_mask(d, m, eq, src);
                            self.or_write(v, d, e, src);
                        }
                    }
                    InstKind::Switch {
                        value: idx,
                        default: *s0,
                        cases: rest
                            .iter()
                            .enumerate()
                            .map(|(k, &s)| (k as u64 + 1, s))
                            .collect(),
                    }
                }
            };
            if let Some(t) = self.f.terminator(d) {
                self.f.inst_mut(t).kind = term;
            }
        }
        Ok(())
    }

    fn exit_block(&self) -> BlockId {
        BlockId(self.original_blocks as u32)
    }

    fn divergent_set(&mut self) {
        let mut divergent: BTreeSet<BlockId> = self
            .div
            .divergent_branches
            .iter()
            .copied()
            .filter(|b| b.index() < self.original_blocks)
            .collect();
        for plan in self.plans.values() {
            divergent.remove(&plan.preheader);
            divergent.remove(&plan.latch);
            if plan.targets.len() > 1 {
                divergent.insert(plan.dispatch);
            }
        }
        self.divergent = divergent;
    }

    /// BOSCC (thesis §9.2, RV's heuristic without profiles): before a
    /// divergent branch whose first successor heads enough work (score
    /// ≥ 17: a varying memory access counts 8, a strided one 2, a math
    /// function 4, anything else 1), test `any(edge mask)` and jump
    /// straight to the other successor when no lane goes there. Partial
    /// linearization keeps that uniform branch, so the successor and its
    /// dominance region are skipped (Theorem 5). The guarded successor
    /// must be the one linearization visits first, have the branch as its
    /// only predecessor, and be neither a loop header nor a latch.
    fn insert_boscc(&mut self) -> Result<(), VectorizeError> {
        for (a, first) in self.boscc_plan.clone() {
            let t = self.f.terminator(a);
            let other = t.and_then(|t| match self.f.inst(t).kind {
                InstKind::CondBr { then, els, .. } if then == first && els != first => Some(els),
                InstKind::CondBr { then, els, .. } if els == first && then != first => Some(then),
                _ => None,
            });
            let (Some(t), Some(other), Some(&e)) = (t, other, self.edge_mask.get(&(a, first)))
            else {
                // The anchored masks rely on the gadget: refuse rather than
                // produce code that assumes it.
                return Err(error(
                    self.f.span,
                    format!("internal: BOSCC gadget at bb{} could not be placed", a.0),
                ));
            };
            let src = self.f.inst(t).src;
            let g = self.any(a, e, src);
            let a2 = self.f.add_block("boscc.branch");
            let kind = std::mem::replace(
                &mut self.f.inst_mut(t).kind,
                InstKind::CondBr {
                    cond: g,
                    then: a2,
                    els: other,
                },
            );
            self.f.append(a2, kind, Ty::Void, src);
            self.mask_src.push(self.mask_src[a.index()]);
            self.mask.push(self.mask[a.index()]);
            self.anchor.push(self.anchor_of(a).filter(|&r| r != a));
            self.divergent.remove(&a);
            self.divergent.insert(a2);
        }
        Ok(())
    }

    /// BOSCC (thesis §9.2, RV's heuristic without profiles): before a
    /// divergent branch whose first successor heads enough work (score
    /// ≥ 17: a varying memory access counts 8, a strided one 2, a math
    /// function 4, anything else 1), test `any(edge mask)` and jump
    /// straight to the other successor when no lane goes there. Partial
    /// linearization keeps that uniform branch, so the successor and its
    /// dominance region are skipped (Theorem 5). The guarded successor
    /// must be the one linearization visits first, have the branch as its
    /// only predecessor, and be neither a loop header nor a latch.
    fn plan_boscc(&mut self) {
        const BOSCC_LIMIT: u32 = 17;
        let mut plan = Vec::new();
        for &a in &self.div.divergent_branches {
            if a.index() >= self.original_blocks || !self.cfg.is_reachable(a) {
                continue;
            }
            let Some(t) = self.f.terminator(a) else {
                continue;
            };
            let InstKind::CondBr { then, els, .. } = self.f.inst(t).kind.clone() else {
                continue;
            };
            if then == els {
                continue;
            }
            let idx = |b: BlockId| self.cfg.block_index().index(b).unwrap_or(u32::MAX);
            let first = if idx(then) <= idx(els) { then } else { els };
            let legal = first.index() < self.original_blocks
                && self.cfg.preds(first) == [a]
                && self.cfg.loop_of(first) == self.cfg.loop_of(a)
                && self.cfg.header_of(first).is_none()
                && self
                    .cfg
                    .loops()
                    .loops
                    .iter()
                    .all(|l| !l.latches.contains(&first));
            if legal && self.region_score(first) >= BOSCC_LIMIT {
                plan.push((a, first));
            }
        }
        self.boscc_plan = plan;
    }

    /// The blocks that share a BOSCC-guarded block's mask: those it
    /// dominates whose control dependences inside its region are all
    /// uniform branches of such blocks, and whose dependences outside it
    /// are its own (relative uniformity, thesis Def. 23). Inner guarded
    /// blocks take over their regions.
    fn plan_anchors(&mut self) {
        let n = self.f.blocks.len();
        self.anchor = vec![None; n];
        let mut roots: Vec<BlockId> = self.boscc_plan.iter().map(|&(_, r)| r).collect();
        let rpo: Vec<BlockId> = self.cfg.rpo().to_vec();
        let pos = |b: BlockId| rpo.iter().position(|&x| x == b).unwrap_or(usize::MAX);
        roots.sort_by_key(|&r| pos(r));
        for r in roots {
            let rdeps: BTreeSet<BlockId> = self.cfg.control_deps(r).iter().copied().collect();
            let mut varying: BTreeSet<BlockId> = BTreeSet::new();
            // A fixpoint: control dependences may come from later blocks
            // (loop exits).
            loop {
                let mut changed = false;
                for &x in &rpo {
                    if x == r || !self.cfg.dominates(r, x) || varying.contains(&x) {
                        continue;
                    }
                    let bad = self.cfg.control_deps(x).iter().any(|&d| {
                        if self.cfg.dominates(r, d) {
                            self.div.divergent_branches.contains(&d) || varying.contains(&d)
                        } else {
                            !rdeps.contains(&d)
                        }
                    });
                    if bad {
                        varying.insert(x);
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            self.anchor[r.index()] = Some(r);
            // Only inside r's loop: a block after the loop is reached
            // through the loop's exits, with their masks.
            let home = self.cfg.loop_of(r);
            let inside = |x: BlockId| match home {
                None => true,
                Some(l) => self.cfg.loops().contains(l, x),
            };
            for &x in &rpo {
                if x != r && self.cfg.dominates(r, x) && inside(x) && !varying.contains(&x) {
                    self.anchor[x.index()] = Some(r);
                }
            }
        }
    }

    fn anchor_of(&self, b: BlockId) -> Option<BlockId> {
        self.anchor.get(b.index()).copied().flatten()
    }

    /// The block never runs with no active lane.
    fn is_nonempty(&self, b: BlockId) -> bool {
        match self.mask_src.get(b.index()) {
            Some(MaskSrc::Lane | MaskSrc::Live(_) | MaskSrc::Anchor(_)) => true,
            _ => self.anchor_of(b) == Some(b),
        }
    }

    /// RV's region score of the blocks `b` dominates (original CFG).
    fn region_score(&self, b: BlockId) -> u32 {
        let mut score = 0u32;
        for x in self.f.block_ids().take(self.original_blocks) {
            if !self.cfg.dominates(b, x) {
                continue;
            }
            for &i in &self.f.block(x).insts {
                score = score.saturating_add(match &self.f.inst(i).kind {
                    InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } => {
                        match self.div.shape(*ptr) {
                            s if s.is_uniform() => 1,
                            Shape::Strided { .. } => 2,
                            _ => 8,
                        }
                    }
                    InstKind::Math { .. } => 4,
                    _ => 1,
                });
            }
        }
        score
    }

    fn linearize(&mut self) -> Result<(), VectorizeError> {
        let divergent = self.divergent.clone();
        let cfg = Cfg::compute(&self.f);
        if !cfg.is_reducible() {
            return Err(error(
                self.f.span,
                "internal: the loop transform made the CFG irreducible",
            ));
        }
        linearize::Linearizer::new(&cfg, &divergent)
            .run(&mut self.f)
            .map_err(|m| error(self.f.span, format!("internal: linearization failed: {m}")))
    }

    fn finish(mut self) -> Result<VectorFunction, VectorizeError> {
        // Linearization can leave both slots of a branch on one block.
        for b in self.f.block_ids().collect::<Vec<_>>() {
            let Some(t) = self.f.terminator(b) else {
                continue;
            };
            let succs = self.f.successors(b);
            if succs.len() > 1 && succs.iter().all(|&s| s == succs[0]) {
                self.f.inst_mut(t).kind = InstKind::Br(succs[0]);
            }
        }
        let cfg = Cfg::compute(&self.f);
        self.vars.construct(&mut self.f, &cfg);
        let mut block_mask: Vec<ValueId> =
            self.mask.iter().map(|&m| self.vars.resolve(m)).collect();
        ssa::repair(&mut self.f, &cfg);
        let nonempty: Vec<bool> = (0..self.mask_src.len())
            .map(|b| self.is_nonempty(BlockId(b as u32)))
            .collect();
        let mut f = self.f;
        cleanup(&mut f, &mut block_mask);
        let cfg = Cfg::compute(&f);
        let div =
            crate::divergence::analyze_pinned(&f, &cfg, self.div.width, &self.div.varying_allocas);
        let mut mask_nonempty = nonempty;
        mask_nonempty.resize(f.blocks.len(), false);
        block_mask.resize(f.blocks.len(), self.lane_mask);
        for b in f.block_ids() {
            if !cfg.is_reachable(b) {
                continue;
            }
            if let Some(t) = f.terminator(b) {
                let cond = match &f.inst(t).kind {
                    InstKind::CondBr { cond, .. } => Some(*cond),
                    InstKind::Switch { value, .. } => Some(*value),
                    _ => None,
                };
                if let Some(c) = cond {
                    if !div.is_uniform(c) {
                        return Err(error(
                            f.inst(t).src.span,
                            "internal: a divergent branch survived linearization",
                        ));
                    }
                }
            }
        }
        if let Err(errs) = crate::ir::verify::verify(&f) {
            return Err(error(
                f.span,
                format!("internal: invalid vector IR: {}", errs.join("; ")),
            ));
        }
        Ok(VectorFunction {
            func: f,
            width: self.div.width,
            shapes: div.shapes,
            block_mask,
            mask_nonempty,
        })
    }
}

/// Sends every `ret` and `unreachable` to one new exit block (partial
/// linearization needs a single sink; an `unreachable` reached by no lane
/// must not be executed with an empty mask).
fn unify_exits(f: &mut Function) -> BlockId {
    let sinks: Vec<BlockId> = f
        .block_ids()
        .filter(|&b| {
            f.terminator(b)
                .is_some_and(|t| matches!(f.inst(t).kind, InstKind::Ret | InstKind::Unreachable))
        })
        .collect();
    let exit = f.add_block("exit");
    let src = Src {
        node: lanes_frontend::ast::NodeId(0),
        span: f.span,
    };
    f.append(exit, InstKind::Ret, Ty::Void, src);
    for b in sinks {
        if let Some(t) = f.terminator(b) {
            f.inst_mut(t).kind = InstKind::Br(exit);
        }
    }
    exit
}

/// Peepholes on what the transforms produce (`x | false`, trivial φs,
/// selects of equal arms), then removal of dead instructions.
fn cleanup(f: &mut Function, block_mask: &mut [ValueId]) {
    let is_false = |f: &Function, v: ValueId| matches!(f.as_const(v), Some(Const::Int(0, Ty::I1)));
    loop {
        let mut changed = false;
        for i in 0..f.insts.len() {
            let id = InstId(i as u32);
            if !f.is_placed(id) {
                continue;
            }
            let inst = f.inst(id);
            let Some(r) = inst.result else { continue };
            let same = match &inst.kind {
                InstKind::Bin {
                    op: BinOp::Or,
                    lhs,
                    rhs,
                } if is_false(f, *lhs) => Some(*rhs),
                InstKind::Bin {
                    op: BinOp::Or,
                    lhs,
                    rhs,
                } if is_false(f, *rhs) => Some(*lhs),
                InstKind::Select { then, els, .. } if then == els => Some(*then),
                InstKind::Phi { incoming } => {
                    let others: BTreeSet<ValueId> = incoming
                        .iter()
                        .map(|&(_, v)| v)
                        .filter(|&v| v != r)
                        .collect();
                    (others.len() == 1).then(|| *others.iter().next().expect("one"))
                }
                _ => None,
            };
            if let Some(to) = same {
                f.replace_all_uses(r, to);
                for m in block_mask.iter_mut() {
                    if *m == r {
                        *m = to;
                    }
                }
                f.remove_inst(id);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    // Dead code: keep side effects, terminators and block masks.
    let mut live = vec![false; f.values.len()];
    let mut work: Vec<ValueId> = block_mask.to_vec();
    let mut placed: Vec<InstId> = Vec::new();
    for b in &f.blocks {
        placed.extend(b.insts.iter().copied());
    }
    for &i in &placed {
        let k = &f.inst(i).kind;
        if k.has_side_effect() {
            k.for_each_operand(|v| work.push(v));
        }
    }
    while let Some(v) = work.pop() {
        if std::mem::replace(&mut live[v.index()], true) {
            continue;
        }
        if let Some(d) = f.def_inst(v) {
            f.inst(d).kind.for_each_operand(|o| work.push(o));
        }
    }
    for i in placed {
        let inst = f.inst(i);
        if inst.kind.has_side_effect() {
            continue;
        }
        if let Some(r) = inst.result {
            if !live[r.index()] {
                f.remove_inst(i);
            }
        }
    }
}

/// The vector IR as text (`lanes build --emit vir`): each value with its
/// shape — `uniform` values stay scalar, the others are W-lane vectors —
/// and each block with its mask.
pub fn print(vf: &VectorFunction) -> String {
    struct Ann<'a>(&'a VectorFunction);
    impl crate::ir::print::Annotate for Ann<'_> {
        fn value(&self, _f: &Function, v: ValueId) -> Option<String> {
            Some(match self.0.shape(v) {
                Shape::Bottom => Shape::uniform().to_string(),
                s => s.to_string(),
            })
        }
        fn block(&self, _f: &Function, b: BlockId) -> Option<String> {
            let m = self.0.block_mask.get(b.index())?;
            let empty = match self.0.mask_nonempty.get(b.index()) {
                Some(true) => "",
                _ => ", may be empty",
            };
            Some(format!("mask %{}{empty}", m.0))
        }
    }
    format!(
        "; vector IR of `{}`, W = {}\n{}",
        vf.func.name,
        vf.width,
        crate::ir::print::print(&vf.func, &Ann(vf))
    )
}
