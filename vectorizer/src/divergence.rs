//! Divergence analysis: the shape of every value across the W lanes of a
//! SIMD group, which branches and loops diverge, which private arrays must be
//! replicated per lane, and the mask kind of every block (Moll 2021, ch. 6,
//! with the stride/alignment lattice of ch. 10 and the control-divergence
//! joins of ch. 7).
//!
//! The analysis is the thesis' worklist algorithm (Listings 1–3) on a
//! canonical CFG (`cfg::canonicalize`: LCSSA, dedicated exits):
//! - values start at ⊥ and only move up the lattice;
//! - a terminator whose condition is not uniform is a *divergent branch*; its
//!   sync joins (φs become varying) and divergent loop exits (LCSSA φs become
//!   varying: temporal divergence) come from `Cfg::divergent_joins`;
//! - private arrays (allocas) follow AllocaSSA (ch. 6.5): a store of a
//!   non-uniform value or through a non-uniform pointer makes every alloca the
//!   pointer may point to varying, and so does a *join* of an alloca's memory
//!   state in a sync or temporal block (a uniform store under divergent
//!   control, visible after reconvergence). Join blocks of an alloca are the
//!   iterated dominance frontier of its writes plus the exits of every loop
//!   that writes it (the memory analogue of LCSSA).
//!
//! Every non-uniform fact keeps its [`Cause`], so a reason chain back to a
//! lane-dependent source (`get_global_id(0)`) can be shown.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::cfg::{Cfg, LoopId};
use crate::ir::{CastOp, Const, Function, InstId, InstKind, Ty, ValueDef, ValueId, WorkItem};
use crate::shape::{self, Operand, Shape};
use lanes_frontend::ast::AddressSpace;

/// Why a value (or alloca) is not uniform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// Uniform, or not reached.
    None,
    /// A work-item query that differs per lane (`get_global_id(0)`).
    Seed,
    /// Computed from this non-uniform operand.
    Operand(ValueId),
    /// A φ where lanes that took different sides of the divergent branch in
    /// this block meet (sync divergence).
    SyncJoin(crate::ir::BlockId),
    /// A loop live-out: lanes left the loop in different iterations because of
    /// the divergent branch in this block (temporal divergence).
    LoopExit(crate::ir::BlockId),
    /// Loaded from (or the address of) a private array that is per-lane.
    PrivateArray(InstId),
    /// The result depends on which lanes are active (a scan).
    Lanes,
}

/// Why a private array (alloca) is per-lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocaCause {
    /// This store writes a non-uniform value, or writes through a
    /// non-uniform pointer.
    Store(InstId),
    /// Its contents differ across lanes after this join block of the
    /// divergent branch in the second block (a uniform store under divergent
    /// control).
    Join(crate::ir::BlockId, crate::ir::BlockId),
}

/// Whether a block runs with all lanes of the group, or only some.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MaskKind {
    /// Runs whenever the kernel runs: no mask beyond the group's own.
    None,
    /// Runs for all lanes or none (only uniform branches decide it).
    Uniform,
    /// Some lanes may be inactive (under a divergent branch or loop).
    Varying,
}

impl MaskKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MaskKind::None => "none",
            MaskKind::Uniform => "uniform",
            MaskKind::Varying => "varying",
        }
    }
}

/// The set of work-items a shape is taken across.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Scope {
    /// The W lanes of one SIMD group (consecutive work-items along
    /// dimension 0): what the vectorizer needs.
    #[default]
    SimdGroup,
    /// All work-items of one work-group: what a barrier needs. Every
    /// local and global id differs, and so does everything the sub-group
    /// a work-item belongs to decides (its id, size and collectives).
    WorkGroup,
}

/// The result of [`analyze`].
#[derive(Clone, Debug)]
pub struct Divergence {
    /// The SIMD width W.
    pub width: u32,
    /// Across what "uniform" holds.
    pub scope: Scope,
    /// By [`ValueId`]. `Bottom` for values never reached (dead code, undef).
    pub shapes: Vec<Shape>,
    /// By [`ValueId`].
    pub causes: Vec<Cause>,
    /// Blocks whose terminator is a divergent branch.
    pub divergent_branches: BTreeSet<crate::ir::BlockId>,
    /// Sync-dependent blocks, each with the divergent branch that made it so.
    pub sync: BTreeMap<crate::ir::BlockId, crate::ir::BlockId>,
    /// Divergent loop exits (temporal divergence), with the branch.
    pub temporal: BTreeMap<crate::ir::BlockId, crate::ir::BlockId>,
    /// Divergent loops, with the branch that makes lanes leave in different
    /// iterations.
    pub divergent_loops: BTreeMap<LoopId, crate::ir::BlockId>,
    /// Per-lane private arrays (allocas).
    pub varying_allocas: BTreeMap<InstId, AllocaCause>,
    /// By block.
    pub masks: Vec<MaskKind>,
}

impl Divergence {
    pub fn shape(&self, v: ValueId) -> Shape {
        self.shapes.get(v.index()).copied().unwrap_or(Shape::Bottom)
    }

    /// The shape for display: ⊥ (unreached) reads as uniform.
    pub fn shown_shape(&self, v: ValueId) -> Shape {
        match self.shape(v) {
            Shape::Bottom => Shape::uniform(),
            s => s,
        }
    }

    pub fn is_uniform(&self, v: ValueId) -> bool {
        matches!(self.shape(v), Shape::Bottom) || self.shape(v).is_uniform()
    }

    pub fn cause(&self, v: ValueId) -> Cause {
        self.causes.get(v.index()).copied().unwrap_or(Cause::None)
    }
}

/// Runs the analysis on a canonical function (see module docs) for width W.
pub fn analyze(f: &Function, cfg: &Cfg, width: u32) -> Divergence {
    analyze_pinned(f, cfg, width, &BTreeMap::new())
}

/// The analysis across a whole work-group instead of a SIMD group (see
/// [`Scope::WorkGroup`]): a value it finds uniform is the same on every
/// work-item of the group, a branch it finds uniform is taken the same
/// way by all of them. Loads from a uniform address are uniform, which
/// holds for race-free kernels (the interpreter checks races).
pub fn analyze_work_group(f: &Function, cfg: &Cfg, width: u32) -> Divergence {
    let mut a = Analyzer::new(f, cfg, width);
    a.scope = Scope::WorkGroup;
    a.run();
    a.finish()
}

/// [`analyze`] with some allocas known to be per-lane from the start (the
/// vectorizer re-analyses linearized code, where the divergent control that
/// made them per-lane is gone).
pub fn analyze_pinned(
    f: &Function,
    cfg: &Cfg,
    width: u32,
    varying_allocas: &BTreeMap<InstId, AllocaCause>,
) -> Divergence {
    let mut a = Analyzer::new(f, cfg, width);
    for (&i, &cause) in varying_allocas {
        a.set_alloca_varying(i, cause);
    }
    a.run();
    a.finish()
}

struct Analyzer<'a> {
    f: &'a Function,
    cfg: &'a Cfg,
    width: u32,
    scope: Scope,
    shapes: Vec<Shape>,
    causes: Vec<Cause>,
    users: Vec<Vec<InstId>>,
    queue: VecDeque<InstId>,
    queued: Vec<bool>,
    divergent_branches: BTreeSet<crate::ir::BlockId>,
    sync: BTreeMap<crate::ir::BlockId, crate::ir::BlockId>,
    temporal: BTreeMap<crate::ir::BlockId, crate::ir::BlockId>,
    divergent_loops: BTreeMap<LoopId, crate::ir::BlockId>,
    varying_allocas: BTreeMap<InstId, AllocaCause>,
    /// For every pointer value: the allocas it may point into (`None`: any).
    provenance: Vec<Option<BTreeSet<InstId>>>,
    /// Block → allocas whose memory state is joined there (AllocaSSA).
    alloca_joins: BTreeMap<crate::ir::BlockId, Vec<InstId>>,
    allocas: Vec<InstId>,
}

impl<'a> Analyzer<'a> {
    fn new(f: &'a Function, cfg: &'a Cfg, width: u32) -> Self {
        let n = f.values.len();
        let mut a = Analyzer {
            f,
            cfg,
            width,
            scope: Scope::SimdGroup,
            shapes: vec![Shape::Bottom; n],
            causes: vec![Cause::None; n],
            users: f.users(),
            queue: VecDeque::new(),
            queued: vec![false; f.insts.len()],
            divergent_branches: BTreeSet::new(),
            sync: BTreeMap::new(),
            temporal: BTreeMap::new(),
            divergent_loops: BTreeMap::new(),
            varying_allocas: BTreeMap::new(),
            provenance: Vec::new(),
            alloca_joins: BTreeMap::new(),
            allocas: Vec::new(),
        };
        // Parameters, globals and constants have fixed shapes.
        for (i, v) in f.values.iter().enumerate() {
            a.shapes[i] = match &v.def {
                ValueDef::Param(_) | ValueDef::Global(_) | ValueDef::Local(_) => Shape::uniform(),
                ValueDef::Const(c) => const_shape(*c),
                ValueDef::Inst(_) => Shape::Bottom,
            };
        }
        for &b in cfg.rpo() {
            for &i in &f.block(b).insts {
                if matches!(f.inst(i).kind, InstKind::Alloca { .. }) {
                    a.allocas.push(i);
                }
            }
        }
        a.provenance = pointer_provenance(f, &a.allocas);
        a.alloca_joins = alloca_join_blocks(f, cfg, &a.allocas, &a.provenance);
        a
    }

    fn push(&mut self, i: InstId) {
        if !self.queued[i.index()] {
            self.queued[i.index()] = true;
            self.queue.push_back(i);
        }
    }

    fn run(&mut self) {
        let order: Vec<InstId> = self
            .cfg
            .rpo()
            .iter()
            .flat_map(|&b| self.f.block(b).insts.iter().copied())
            .collect();
        for i in order {
            self.push(i);
        }
        while let Some(i) = self.queue.pop_front() {
            self.queued[i.index()] = false;
            self.visit(i);
        }
    }

    fn operand(&self, v: ValueId) -> Operand {
        Operand {
            shape: self.shapes[v.index()],
            constant: self.f.as_const(v).and_then(Const::as_signed),
        }
    }

    fn non_uniform(&self, v: ValueId) -> bool {
        let s = self.shapes[v.index()];
        !matches!(s, Shape::Bottom) && !s.is_uniform()
    }

    /// The first non-uniform operand, as the cause of a non-uniform result.
    fn operand_cause(&self, ops: &[ValueId]) -> Cause {
        ops.iter()
            .copied()
            .find(|&v| self.non_uniform(v))
            .map_or(Cause::None, Cause::Operand)
    }

    fn visit(&mut self, i: InstId) {
        let inst = self.f.inst(i);
        let block = inst.block;
        let (shape, cause) = match &inst.kind {
            InstKind::Phi { incoming } => {
                // A temporal join (loop exit) comes first: there even one
                // incoming value differs per lane (each lane saw its own
                // last iteration).
                let join_cause = self
                    .temporal
                    .get(&block)
                    .map(|&b| Cause::LoopExit(b))
                    .or_else(|| self.sync.get(&block).map(|&b| Cause::SyncJoin(b)));
                let mut s = Shape::Bottom;
                for &(_, v) in incoming {
                    s = s.join(self.shapes[v.index()]);
                }
                let ops: Vec<ValueId> = incoming.iter().map(|&(_, v)| v).collect();
                match join_cause {
                    // Lanes arriving from different predecessors (or in
                    // different iterations) see different incoming values,
                    // unless every incoming value is the same.
                    Some(c)
                        if matches!(c, Cause::LoopExit(_)) || !self.same_incoming(&ops, block) =>
                    {
                        let cause = match self.operand_cause(&ops) {
                            Cause::None => c,
                            op => op,
                        };
                        (varying_like(s, inst.ty), cause)
                    }
                    _ => (s, self.operand_cause(&ops)),
                }
            }
            InstKind::Bin { op, lhs, rhs } => (
                shape::binary_w(
                    *op,
                    self.operand(*lhs),
                    self.operand(*rhs),
                    inst.ty,
                    self.width,
                ),
                self.operand_cause(&[*lhs, *rhs]),
            ),
            InstKind::FNeg(v) => (
                shape::fneg(self.shapes[v.index()]),
                self.operand_cause(&[*v]),
            ),
            InstKind::Cmp { pred, lhs, rhs } => (
                shape::compare(*pred, self.operand(*lhs), self.operand(*rhs), self.width),
                self.operand_cause(&[*lhs, *rhs]),
            ),
            InstKind::Select { cond, then, els } => {
                let s = if then == els {
                    self.shapes[then.index()]
                } else {
                    shape::select(
                        self.shapes[cond.index()],
                        self.operand(*then),
                        self.operand(*els),
                    )
                };
                (s, self.operand_cause(&[*cond, *then, *els]))
            }
            InstKind::Cast { op, value } => (
                shape::cast(*op, self.operand(*value), self.f.ty(*value), inst.ty),
                self.operand_cause(&[*value]),
            ),
            InstKind::Alloca { align, .. } => match self.varying_allocas.contains_key(&i) {
                true => (Shape::Varying { align: *align }, Cause::PrivateArray(i)),
                false => (
                    Shape::Strided {
                        stride: 0,
                        align: *align,
                    },
                    Cause::None,
                ),
            },
            InstKind::Load { ptr, .. } => {
                let p = self.shapes[ptr.index()];
                let s = match p {
                    Shape::Bottom => Shape::Bottom,
                    p if p.is_uniform() => Shape::uniform(),
                    _ => Shape::varying(),
                };
                (
                    if inst.ty.is_int() || inst.ty.is_ptr() {
                        s
                    } else {
                        s.basic()
                    },
                    self.operand_cause(&[*ptr]),
                )
            }
            InstKind::Store { ptr, value, .. } => {
                if self.non_uniform(*ptr) || self.non_uniform(*value) {
                    self.make_allocas_varying(*ptr, AllocaCause::Store(i));
                }
                (Shape::Bottom, Cause::None)
            }
            InstKind::PtrAdd { base, offset } => (
                shape::ptr_add(self.operand(*base), self.operand(*offset)),
                self.operand_cause(&[*base, *offset]),
            ),
            InstKind::WorkItem { query, dim } => {
                let dim = dim
                    .and_then(|d| self.f.as_const(d))
                    .and_then(Const::as_signed);
                match self.scope {
                    Scope::SimdGroup => work_item_shape(*query, dim, self.width),
                    Scope::WorkGroup => work_group_item_shape(*query),
                }
            }
            InstKind::Math { func, args } => {
                let ops: Vec<Operand> = args.iter().map(|&v| self.operand(v)).collect();
                (shape::math(*func, &ops, inst.ty), self.operand_cause(args))
            }
            // Each sub-group of a work-group computes its own result.
            InstKind::Horizontal { .. } if self.scope == Scope::WorkGroup => {
                (varying_like(Shape::varying(), inst.ty), Cause::Lanes)
            }
            InstKind::Horizontal { op, .. } => {
                use crate::ir::Horizontal as H;
                match op {
                    H::Any | H::All | H::Broadcast | H::Reduce(_) => {
                        (Shape::uniform(), Cause::None)
                    }
                    // A scan of a uniform value is still lane-dependent (it
                    // counts the active lanes before this one).
                    H::ScanInclusive(_) | H::ScanExclusive(_) => {
                        (varying_like(Shape::varying(), inst.ty), Cause::Lanes)
                    }
                }
            }
            InstKind::WorkGroup { op, .. } => {
                use crate::ir::Horizontal as H;
                match op {
                    H::Any | H::All | H::Broadcast | H::Reduce(_) => {
                        (Shape::uniform(), Cause::None)
                    }
                    H::ScanInclusive(_) | H::ScanExclusive(_) => {
                        (varying_like(Shape::varying(), inst.ty), Cause::Lanes)
                    }
                }
            }
            // Every lane gets the value memory held at its own turn: lanes
            // see different old values even on one address.
            InstKind::Atomic { .. } => (varying_like(Shape::varying(), inst.ty), Cause::Lanes),
            InstKind::Barrier { .. } => (Shape::Bottom, Cause::None),
            // Prints (a side effect); the result is always 0.
            InstKind::Printf { .. } => (Shape::uniform(), Cause::None),
            // A pixel read at coordinates that are the same on all lanes
            // (through a uniform image and sampler) is one value; anything
            // else varies, like a load.
            InstKind::ImageRead { .. } => {
                let ops = inst.kind.operands();
                let s = if ops.iter().any(|&v| self.shapes[v.index()] == Shape::Bottom) {
                    Shape::Bottom
                } else if ops.iter().all(|&v| self.shapes[v.index()].is_uniform()) {
                    Shape::uniform()
                } else {
                    Shape::varying()
                };
                let s = if inst.ty.is_int() { s } else { s.basic() };
                (s, self.operand_cause(&ops))
            }
            InstKind::ImageWrite { .. } => (Shape::Bottom, Cause::None),
            // Properties of the image the kernel was given.
            InstKind::ImageQuery { image, .. } => {
                (self.shapes[image.index()], self.operand_cause(&[*image]))
            }
            InstKind::CondBr { cond, .. } => {
                if self.non_uniform(*cond) {
                    self.divergent_branch(block);
                }
                (Shape::Bottom, Cause::None)
            }
            InstKind::Switch { value, .. } => {
                if self.non_uniform(*value) {
                    self.divergent_branch(block);
                }
                (Shape::Bottom, Cause::None)
            }
            InstKind::Br(_) | InstKind::Ret | InstKind::Unreachable => (Shape::Bottom, Cause::None),
        };
        if let Some(v) = inst.result {
            self.update(v, shape, cause);
        }
    }

    /// True when every incoming value of a φ in `block` is the same value on
    /// every lane's path: one constant, or one value defined outside any
    /// loop that `block` is not in (inside such a loop the same SSA value
    /// differs per iteration).
    fn same_incoming(&self, ops: &[ValueId], block: crate::ir::BlockId) -> bool {
        let Some(&first) = ops.first() else {
            return true;
        };
        let stable = |v: ValueId| match self.f.def_inst(v) {
            None => true,
            Some(i) => match self.cfg.loop_of(self.f.inst(i).block) {
                None => true,
                Some(l) => self.cfg.loops().contains(l, block),
            },
        };
        ops.iter().all(|&v| {
            (v == first && stable(v))
                || match (self.f.as_const(v), self.f.as_const(first)) {
                    (Some(a), Some(b)) => a == b && !matches!(a, Const::Undef(_)),
                    _ => false,
                }
                || matches!(self.f.as_const(v), Some(Const::Undef(_)))
        })
    }

    fn update(&mut self, v: ValueId, shape: Shape, cause: Cause) {
        let old = self.shapes[v.index()];
        // Monotone: never move down the lattice (guards against transfer
        // functions that are not monotone on ⊥ operands).
        let new = old.join(shape);
        if new == old {
            return;
        }
        self.shapes[v.index()] = new;
        if !new.is_uniform() && self.causes[v.index()] == Cause::None {
            self.causes[v.index()] = cause;
        }
        let users = std::mem::take(&mut self.users[v.index()]);
        for &u in &users {
            self.push(u);
        }
        self.users[v.index()] = users;
    }

    fn divergent_branch(&mut self, block: crate::ir::BlockId) {
        if !self.divergent_branches.insert(block) {
            return;
        }
        let mut succs = self.cfg.succs(block).to_vec();
        succs.sort();
        succs.dedup();
        let joins = self.cfg.divergent_joins(block, &succs, &[]);
        for b in joins.sync {
            if let std::collections::btree_map::Entry::Vacant(e) = self.sync.entry(b) {
                e.insert(block);
                self.join_block_changed(b, block);
            }
        }
        for b in joins.loop_exits {
            if let std::collections::btree_map::Entry::Vacant(e) = self.temporal.entry(b) {
                e.insert(block);
                self.join_block_changed(b, block);
            }
        }
        for l in joins.divergent_loops {
            self.divergent_loops.entry(l).or_insert(block);
        }
    }

    /// A block became a sync or temporal join of the branch in `branch`.
    fn join_block_changed(&mut self, b: crate::ir::BlockId, branch: crate::ir::BlockId) {
        let phis: Vec<InstId> = self.f.phis(b).collect();
        for p in phis {
            self.push(p);
        }
        if let Some(allocas) = self.alloca_joins.get(&b).cloned() {
            for a in allocas {
                self.set_alloca_varying(a, AllocaCause::Join(b, branch));
            }
        }
    }

    fn make_allocas_varying(&mut self, ptr: ValueId, cause: AllocaCause) {
        let targets: Vec<InstId> = match self.provenance.get(ptr.index()) {
            Some(Some(set)) => set.iter().copied().collect(),
            // Unknown private pointer: any alloca.
            Some(None) if self.f.ty(ptr) == Ty::Ptr(AddressSpace::Private) => self.allocas.clone(),
            _ => Vec::new(),
        };
        for a in targets {
            self.set_alloca_varying(a, cause);
        }
    }

    fn set_alloca_varying(&mut self, a: InstId, cause: AllocaCause) {
        if self.varying_allocas.contains_key(&a) {
            return;
        }
        self.varying_allocas.insert(a, cause);
        self.push(a);
    }

    fn finish(self) -> Divergence {
        let masks = block_masks(self.f, self.cfg, &self.divergent_branches);
        Divergence {
            width: self.width,
            scope: self.scope,
            shapes: self.shapes,
            causes: self.causes,
            divergent_branches: self.divergent_branches,
            sync: self.sync,
            temporal: self.temporal,
            divergent_loops: self.divergent_loops,
            varying_allocas: self.varying_allocas,
            masks,
        }
    }
}

/// The shape of a value "like `s` but varying" for the type (alignment kept
/// for integers).
fn varying_like(s: Shape, ty: Ty) -> Shape {
    match (s, ty.is_int() || ty.is_ptr()) {
        (Shape::Strided { stride, align }, true) => Shape::Varying {
            align: gcd_u(stride.unsigned_abs(), align).max(1),
        },
        (Shape::Varying { align }, true) => Shape::Varying { align },
        _ => Shape::varying(),
    }
}

fn gcd_u(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd_u(b, a % b)
    }
}

/// The shape of a constant (also for vector IR read from text).
pub(crate) fn const_shape(c: Const) -> Shape {
    match c {
        Const::Int(..) => Shape::constant(c.as_signed().unwrap_or(0)),
        Const::Float(..) | Const::Null(_) => Shape::uniform(),
        // Undefined: any value will do, so it never makes anything varying.
        Const::Undef(_) => Shape::Bottom,
    }
}

/// Seeds (DESIGN §5): ids of dimension 0 are contiguous; everything else
/// about the NDRange is uniform within a SIMD group (W consecutive
/// work-items along dimension 0 of one work-group).
///
/// A SIMD group never spans two rows of a work-group, so the local id of
/// lane 0 is a multiple of W; the global id's base is only as aligned as the
/// work-group size and global offset, which are unknown here.
fn work_item_shape(q: WorkItem, dim: Option<i64>, width: u32) -> (Shape, Cause) {
    match q {
        WorkItem::LocalId if dim == Some(0) => (
            Shape::Strided {
                stride: 1,
                align: width as u64,
            },
            Cause::Seed,
        ),
        WorkItem::GlobalId | WorkItem::LocalId => match dim {
            Some(0) => (Shape::strided(1), Cause::Seed),
            Some(_) => (Shape::uniform(), Cause::None),
            // A dimension only known at run time may be 0.
            None => (Shape::varying(), Cause::Seed),
        },
        WorkItem::SubGroupLocalId => (
            Shape::Strided {
                stride: 1,
                align: 0,
            },
            Cause::Seed,
        ),
        WorkItem::LaneMask => (Shape::varying(), Cause::Seed),
        _ => (Shape::uniform(), Cause::None),
    }
}

/// Seeds across a work-group: every id of every dimension differs, and so
/// does everything about a work-item's sub-group (the last sub-group may be
/// smaller). Sizes, group ids and offsets are the same for the whole group.
fn work_group_item_shape(q: WorkItem) -> (Shape, Cause) {
    match q {
        WorkItem::GlobalId
        | WorkItem::LocalId
        | WorkItem::SubGroupLocalId
        | WorkItem::SubGroupId
        | WorkItem::SubGroupSize
        | WorkItem::LaneMask => (Shape::varying(), Cause::Seed),
        _ => (Shape::uniform(), Cause::None),
    }
}

/// For every pointer-typed value, the allocas it may point into (`None`
/// when unknown, e.g. loaded from memory).
fn pointer_provenance(f: &Function, allocas: &[InstId]) -> Vec<Option<BTreeSet<InstId>>> {
    let n = f.values.len();
    let mut prov: Vec<Option<BTreeSet<InstId>>> = vec![Some(BTreeSet::new()); n];
    // Seed, then iterate to a fixpoint over φ cycles.
    let mut changed = true;
    let mut rounds = 0;
    while changed && rounds < 64 {
        changed = false;
        rounds += 1;
        for (idx, inst) in f.insts.iter().enumerate() {
            let Some(v) = inst.result else { continue };
            if !inst.ty.is_ptr() {
                continue;
            }
            let new: Option<BTreeSet<InstId>> = match &inst.kind {
                InstKind::Alloca { .. } => Some([InstId(idx as u32)].into_iter().collect()),
                InstKind::PtrAdd { base, .. } => prov[base.index()].clone(),
                InstKind::Cast {
                    op: CastOp::PtrCast,
                    value,
                } => prov[value.index()].clone(),
                InstKind::Phi { incoming } => union_all(&prov, incoming.iter().map(|&(_, v)| v)),
                InstKind::Select { then, els, .. } => union_all(&prov, [*then, *els].into_iter()),
                // Loaded pointers and integers turned into pointers: unknown.
                _ => None,
            };
            if new != prov[v.index()] {
                prov[v.index()] = new;
                changed = true;
            }
        }
    }
    if rounds >= 64 {
        // Give up precision rather than loop: every pointer may alias all.
        let all: BTreeSet<InstId> = allocas.iter().copied().collect();
        for p in prov.iter_mut() {
            *p = Some(all.clone());
        }
    }
    prov
}

fn union_all(
    prov: &[Option<BTreeSet<InstId>>],
    vals: impl Iterator<Item = ValueId>,
) -> Option<BTreeSet<InstId>> {
    let mut out = BTreeSet::new();
    for v in vals {
        match &prov[v.index()] {
            Some(s) => out.extend(s.iter().copied()),
            None => return None,
        }
    }
    Some(out)
}

/// AllocaSSA join placement: for each alloca, the iterated dominance frontier
/// of the blocks that write it (and of its own block), plus the exit blocks
/// of every loop containing a write.
fn alloca_join_blocks(
    f: &Function,
    cfg: &Cfg,
    allocas: &[InstId],
    prov: &[Option<BTreeSet<InstId>>],
) -> BTreeMap<crate::ir::BlockId, Vec<InstId>> {
    let frontier = dominance_frontiers(f, cfg);
    let mut writes: BTreeMap<InstId, BTreeSet<crate::ir::BlockId>> = BTreeMap::new();
    for inst in f
        .blocks
        .iter()
        .flat_map(|b| b.insts.iter().map(|&i| f.inst(i)))
    {
        if let InstKind::Store { ptr, .. } = inst.kind {
            let targets: Vec<InstId> = match &prov[ptr.index()] {
                Some(s) => s.iter().copied().collect(),
                None if f.ty(ptr) == Ty::Ptr(AddressSpace::Private) => allocas.to_vec(),
                None => Vec::new(),
            };
            for a in targets {
                writes.entry(a).or_default().insert(inst.block);
            }
        }
    }
    let mut out: BTreeMap<crate::ir::BlockId, Vec<InstId>> = BTreeMap::new();
    for (&a, blocks) in &writes {
        let mut joins: BTreeSet<crate::ir::BlockId> = BTreeSet::new();
        let mut work: Vec<crate::ir::BlockId> = blocks.iter().copied().collect();
        work.push(f.inst(a).block);
        let mut seen: BTreeSet<crate::ir::BlockId> = work.iter().copied().collect();
        while let Some(b) = work.pop() {
            for &d in frontier.get(b.index()).map(Vec::as_slice).unwrap_or(&[]) {
                joins.insert(d);
                if seen.insert(d) {
                    work.push(d);
                }
            }
        }
        for &b in blocks {
            let mut l = cfg.loop_of(b);
            while let Some(id) = l {
                let lp = &cfg.loops().loops[id.0 as usize];
                joins.extend(lp.exits.iter().copied());
                l = lp.parent;
            }
        }
        for j in joins {
            out.entry(j).or_default().push(a);
        }
    }
    out
}

/// Dominance frontiers (Cooper, Harvey, Kennedy).
pub(crate) fn dominance_frontiers(f: &Function, cfg: &Cfg) -> Vec<Vec<crate::ir::BlockId>> {
    let mut df: Vec<Vec<crate::ir::BlockId>> = vec![Vec::new(); f.blocks.len()];
    for b in f.block_ids() {
        let preds = cfg.preds(b);
        if preds.len() < 2 {
            continue;
        }
        let Some(idom) = cfg.idom(b) else { continue };
        for &p in preds {
            let mut runner = p;
            let mut steps = 0;
            while runner != idom && steps <= f.blocks.len() {
                if !df[runner.index()].contains(&b) {
                    df[runner.index()].push(b);
                }
                match cfg.idom(runner) {
                    Some(r) => runner = r,
                    None => break,
                }
                steps += 1;
            }
        }
    }
    df
}

/// Mask kinds: a block is `Varying` when it is control dependent on a
/// divergent branch or on a branch in a `Varying` block; `None` when it is
/// control dependent on nothing; `Uniform` otherwise.
fn block_masks(f: &Function, cfg: &Cfg, divergent: &BTreeSet<crate::ir::BlockId>) -> Vec<MaskKind> {
    let n = f.blocks.len();
    let mut masks: Vec<MaskKind> = (0..n)
        .map(|b| {
            if cfg.control_deps(crate::ir::BlockId(b as u32)).is_empty() {
                MaskKind::None
            } else {
                MaskKind::Uniform
            }
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..n {
            if masks[b] == MaskKind::Varying {
                continue;
            }
            let varying = cfg
                .control_deps(crate::ir::BlockId(b as u32))
                .iter()
                .any(|d| divergent.contains(d) || masks[d.index()] == MaskKind::Varying);
            if varying {
                masks[b] = MaskKind::Varying;
                changed = true;
            }
        }
    }
    masks
}
