//! What the analysis means for the user: per-kernel facts (variable shapes,
//! branches, loops, memory accesses) and performance diagnostics, each with
//! the reason chain that explains it. This is what `lanes explain`,
//! `lanes check` and the editor show.

use std::collections::BTreeMap;

use lanes_frontend::ast::AddressSpace;
use lanes_frontend::diag::{Code, Diagnostic};
use lanes_frontend::hir;
use lanes_frontend::source::{SourceMap, Span};
use smol_str::SmolStr;

use crate::cfg::Cfg;
use crate::divergence::{self, AllocaCause, Cause, Divergence, MaskKind, Scope};
use crate::ir::{BinOp, CmpPred, Function, InstKind, ValueId};
use crate::shape::Shape;

/// A kernel lowered, canonicalized and analysed for one SIMD width.
pub struct KernelAnalysis {
    pub func: Function,
    pub cfg: Cfg,
    pub div: Divergence,
    /// Uniformity across the work-group, for kernels with barriers or
    /// work-group collectives (see [`work_group_divergence`]).
    pub wg: Option<Divergence>,
}

/// [`analyze_kernel_with`] for a target without fused multiply-add.
pub fn analyze_kernel(
    unit: &hir::Unit,
    kernel: hir::FuncId,
    width: u32,
) -> Result<KernelAnalysis, Vec<Diagnostic>> {
    analyze_kernel_with(unit, kernel, width, &crate::lower::Options::default())
}

/// Lowers (with the target's `lowering` options) and analyses one kernel.
/// Errors are diagnostics (`L0920`).
pub fn analyze_kernel_with(
    unit: &hir::Unit,
    kernel: hir::FuncId,
    width: u32,
    lowering: &crate::lower::Options,
) -> Result<KernelAnalysis, Vec<Diagnostic>> {
    let mut func = crate::lower::lower_kernel_with(unit, kernel, lowering).map_err(|errs| {
        errs.into_iter()
            .map(|e| Diagnostic::new(Code::UnsupportedByVectorizer, e.span, e.message))
            .collect::<Vec<_>>()
    })?;
    let span = unit.function(kernel).name_span;
    // Private structs, vectors and arrays with constant offsets become
    // registers before the analyses see them.
    crate::promote::promote(&mut func);
    crate::promote::promote_uniformly_indexed(&mut func, width);
    crate::cfg::canonicalize(&mut func).map_err(|e| {
        vec![Diagnostic::new(
            Code::UnsupportedByVectorizer,
            span,
            format!("irreducible control flow is not supported: {e}"),
        )]
    })?;
    let cfg = Cfg::compute(&func);
    // Inside `if (sub_group_all(P))` the analyses may use P.
    crate::precond::assume::apply(&mut func, &cfg, width);
    let div = divergence::analyze(&func, &cfg, width);
    let reqd = unit.function(kernel).attrs.reqd_work_group_size;
    let wg = work_group_divergence(&func, &cfg, &div, reqd);
    Ok(KernelAnalysis { func, cfg, div, wg })
}

/// The analysis across the work-group for a kernel with barriers or
/// work-group collectives (`None` without them). With a required
/// work-group size of at most one SIMD group along dimension 0, the
/// work-group *is* one SIMD group and the SIMD analysis says it all.
pub fn work_group_divergence(
    func: &Function,
    cfg: &Cfg,
    div: &Divergence,
    reqd_work_group_size: Option<[u32; 3]>,
) -> Option<Divergence> {
    if !func.insts.iter().any(|i| i.kind.is_work_group_sync()) {
        return None;
    }
    match reqd_work_group_size {
        Some([x, 1, 1]) if x <= div.width => Some(div.clone()),
        _ => Some(divergence::analyze_work_group(func, cfg, div.width)),
    }
}

/// The IR of an analysed kernel with every value's shape, each block's mask
/// kind and the divergent branches and joins (what `lanes explain --format
/// ir` prints).
pub fn annotated_ir(ka: &KernelAnalysis) -> String {
    struct Shapes<'a>(&'a KernelAnalysis);
    impl crate::ir::print::Annotate for Shapes<'_> {
        fn value(&self, _f: &Function, v: ValueId) -> Option<String> {
            Some(self.0.div.shown_shape(v).to_string())
        }
        fn block(&self, _f: &Function, b: crate::ir::BlockId) -> Option<String> {
            let d = &self.0.div;
            let mut parts = vec![format!("mask {}", d.masks.get(b.index())?.as_str())];
            if d.divergent_branches.contains(&b) {
                parts.push("divergent branch".into());
            }
            if let Some(br) = d.sync.get(&b) {
                parts.push(format!("sync join of bb{}", br.0));
            }
            if let Some(br) = d.temporal.get(&b) {
                parts.push(format!("divergent loop exit (bb{})", br.0));
            }
            Some(parts.join(", "))
        }
    }
    crate::ir::print::print(&ka.func, &Shapes(ka))
}

/// How a shape is named to users (`explain --format json` spells these).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShapeKind {
    Uniform,
    Contiguous,
    Strided,
    Varying,
}

impl ShapeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ShapeKind::Uniform => "uniform",
            ShapeKind::Contiguous => "contiguous",
            ShapeKind::Strided => "strided",
            ShapeKind::Varying => "varying",
        }
    }

    /// `unit` is the stride that counts as contiguous (1 for integers, the
    /// element size for pointers).
    pub fn of(shape: Shape, unit: i64) -> ShapeKind {
        match shape {
            Shape::Bottom => ShapeKind::Uniform,
            Shape::Strided { stride: 0, .. } => ShapeKind::Uniform,
            Shape::Strided { stride, .. } if stride == unit => ShapeKind::Contiguous,
            Shape::Strided { .. } => ShapeKind::Strided,
            Shape::Varying { .. } => ShapeKind::Varying,
        }
    }
}

/// One step of a reason chain: a place in the source and what holds there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub span: Span,
    pub text: SmolStr,
}

#[derive(Clone, Debug)]
pub struct ValueFact {
    pub name: SmolStr,
    pub span: Span,
    pub shape: Shape,
    pub kind: ShapeKind,
    pub reason: Vec<Step>,
}

#[derive(Clone, Debug)]
pub struct BranchFact {
    pub span: Span,
    pub divergent: bool,
    /// True for the branch that decides a loop's exit (shown as a loop).
    pub loop_exit: bool,
    pub reason: Vec<Step>,
    /// The `if (sub_group_any(c'))` around a divergent `if (c)` whose
    /// condition `c` implies `c'`: the group already skips the branch when
    /// no lane takes it (no L0300 then).
    pub any_guard: Option<Span>,
}

#[derive(Clone, Debug)]
pub struct LoopFact {
    pub span: Span,
    pub divergent: bool,
    /// Spans of the branches whose exits are divergent.
    pub divergent_exits: Vec<Span>,
    pub reason: Vec<Step>,
    /// Filled by the precondition inference (issue 6); `None` until then.
    pub precondition: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessKind {
    Load,
    Store,
    /// An atomic read-modify-write (or atomic load or store).
    Atomic,
}

impl AccessKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AccessKind::Load => "load",
            AccessKind::Store => "store",
            AccessKind::Atomic => "atomic",
        }
    }
}

/// A barrier or work-group collective and whether every work-item of the
/// work-group reaches it.
#[derive(Clone, Debug)]
pub struct BarrierFact {
    pub span: Span,
    /// `barrier` for barriers (`barrier`, `work_group_barrier`,
    /// `wait_group_events`), `collective` for `work_group_*` functions.
    pub kind: BarrierKind,
    /// The `CLK_*_MEM_FENCE` bits of a barrier (`ir::fence`); 0 for
    /// collectives.
    pub flags: u32,
    /// Reached by all work-items of the work-group, or by none.
    pub uniform: bool,
    /// Why not: from the branch that work-items take differently back to
    /// the source that differs across the work-group.
    pub reason: Vec<Step>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierKind {
    Barrier,
    Collective,
}

impl BarrierKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BarrierKind::Barrier => "barrier",
            BarrierKind::Collective => "collective",
        }
    }
}

/// The memory a barrier's flags order, in OpenCL's words.
pub fn fence_names(flags: u32) -> Vec<&'static str> {
    use crate::ir::fence;
    [
        (fence::LOCAL, "CLK_LOCAL_MEM_FENCE"),
        (fence::GLOBAL, "CLK_GLOBAL_MEM_FENCE"),
        (fence::IMAGE, "CLK_IMAGE_MEM_FENCE"),
    ]
    .into_iter()
    .filter(|(bit, _)| flags & bit != 0)
    .map(|(_, name)| name)
    .collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pattern {
    /// One address for all lanes: a scalar access (+ broadcast for loads).
    Uniform,
    /// Consecutive elements: a packed vector load/store.
    Contiguous,
    /// A constant distance between lanes other than one element.
    Strided,
    Gather,
    Scatter,
}

impl Pattern {
    pub fn as_str(self) -> &'static str {
        match self {
            Pattern::Uniform => "uniform",
            Pattern::Contiguous => "contiguous",
            Pattern::Strided => "strided",
            Pattern::Gather => "gather",
            Pattern::Scatter => "scatter",
        }
    }
}

/// The memory an access touches: an address space, or an image (whose
/// pixel addresses the kernel never sees).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemSpace {
    Addr(AddressSpace),
    Image,
}

impl MemSpace {
    /// `global`, `local`, `constant`, `private`, `image`.
    pub fn as_str(self) -> &'static str {
        match self {
            MemSpace::Addr(s) => crate::ir::space_name(s),
            MemSpace::Image => "image",
        }
    }
}

impl PartialEq<AddressSpace> for MemSpace {
    fn eq(&self, other: &AddressSpace) -> bool {
        *self == MemSpace::Addr(*other)
    }
}

#[derive(Clone, Debug)]
pub struct AccessFact {
    pub span: Span,
    pub kind: AccessKind,
    pub pattern: Pattern,
    /// Distance in bytes between consecutive lanes, when constant.
    pub stride_bytes: Option<i64>,
    pub size: u64,
    pub mask: MaskKind,
    /// Under a varying mask: the divergent branch that turns lanes off
    /// (an early `return`'s condition, an enclosing `if`, a loop's exit).
    pub masked_by: Option<Span>,
    /// At most one lane runs the access (it is under `if (lid == 0)` or
    /// the like, see `Reporter::at_most_one_lane`).
    pub one_lane: bool,
    /// A gather load whose index is a clamp of lanes that rise by one
    /// (`in[clamp(x + k, 0, w - 1)]`, [`crate::shape::UnitClamp`]): packed
    /// in the SIMD groups where the clamp moves no lane.
    pub clamped: bool,
    /// A gather load through rows that each lane walks one element per
    /// iteration (`a[i * n + j]` in a loop over `j`, [`crate::rows`]):
    /// read through transposed tiles of W rows in the SIMD groups whose
    /// lanes are all active.
    pub rows: bool,
    pub space: MemSpace,
    pub reason: Vec<Step>,
}

#[derive(Clone, Debug)]
pub struct KernelReport {
    pub name: SmolStr,
    pub span: Span,
    pub width: u32,
    pub values: Vec<ValueFact>,
    pub branches: Vec<BranchFact>,
    pub loops: Vec<LoopFact>,
    pub accesses: Vec<AccessFact>,
    pub barriers: Vec<BarrierFact>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The facts and diagnostics of an analysed kernel.
pub fn report(
    ka: &KernelAnalysis,
    unit: &hir::Unit,
    kernel: hir::FuncId,
    sources: &SourceMap,
) -> KernelReport {
    let private_kinds = unit
        .functions
        .iter()
        .flat_map(|f| f.locals.iter())
        .filter(|l| l.space == AddressSpace::Private)
        .map(|l| (l.node, private_kind(unit, &l.ty)))
        .collect();
    let r = Reporter {
        private_kinds,
        f: &ka.func,
        cfg: &ka.cfg,
        div: &ka.div,
        sources,
    };
    let hf = unit.function(kernel);
    let values = r.values();
    let branches = r.branches();
    let loops = r.loops();
    let accesses = r.accesses();
    let barriers = ka
        .wg
        .as_ref()
        .map(|wg| {
            Reporter {
                div: wg,
                ..r.clone()
            }
            .barriers()
        })
        .unwrap_or_default();
    let mut diagnostics = Vec::new();
    r.diagnose(&branches, &loops, &accesses, &mut diagnostics);
    diagnose_barriers(&barriers, &mut diagnostics);
    diagnostics.sort_by_key(|d| (d.span.file, d.span.start, d.code));
    diagnostics.dedup_by(|a, b| a.code == b.code && a.span == b.span);
    KernelReport {
        name: hf.name.clone(),
        span: hf.name_span,
        width: ka.div.width,
        values,
        branches,
        loops,
        accesses,
        barriers,
        diagnostics,
    }
}

/// The first barrier or collective (in source order) that part of a
/// work-group may not reach, if any (what `L0401` reports, without its
/// reason chain).
pub fn divergent_barrier(ka: &KernelAnalysis) -> Option<Span> {
    let wg = ka.wg.as_ref()?;
    let sources = SourceMap::new();
    let r = Reporter {
        private_kinds: Default::default(),
        f: &ka.func,
        cfg: &ka.cfg,
        div: wg,
        sources: &sources,
    };
    ka.cfg
        .rpo()
        .iter()
        .filter(|&&b| r.divergent_control(b).is_some())
        .flat_map(|&b| ka.func.block(b).insts.iter())
        .map(|&i| ka.func.inst(i))
        .filter(|i| i.kind.is_work_group_sync())
        .map(|i| i.src.span)
        .min_by_key(|s| (s.file, s.start))
}

/// `L0401` for every barrier or collective not reached by the whole
/// work-group.
pub fn diagnose_barriers(barriers: &[BarrierFact], out: &mut Vec<Diagnostic>) {
    for b in barriers.iter().filter(|b| !b.uniform) {
        let what = match b.kind {
            BarrierKind::Barrier => "barrier",
            BarrierKind::Collective => "work-group collective",
        };
        let mut d = Diagnostic::new(
            Code::BarrierDivergence,
            b.span,
            format!("{what} not reached by every work-item of the work-group"),
        )
        .with_label("whether a work-item gets here depends on values that differ across the work-group")
        .with_note(format!(
            "every work-item of a work-group must reach each {what} (or none may): otherwise the work-group waits forever or the results are undefined; move the {what} out of the branch or loop, or make its condition the same for the whole work-group"
        ));
        for s in b.reason.iter().filter(|s| s.span != b.span) {
            d = d.with_related(s.span, s.text.clone());
        }
        out.push(d);
    }
}

/// Where a loop is shown: its statement, whose source the branch that
/// enters the loop from outside carries.
pub fn loop_span(f: &Function, cfg: &Cfg, lp: &crate::cfg::Loop) -> Span {
    let entry = cfg
        .preds(lp.header)
        .iter()
        .find(|p| !lp.blocks.contains(p))
        .and_then(|&p| f.terminator(p));
    entry
        .or_else(|| f.terminator(lp.header))
        .map(|t| f.inst(t).src.span)
        .unwrap_or(f.span)
}

#[derive(Clone)]
struct Reporter<'a> {
    /// What each private variable is (`array`, `struct`, ...) by its
    /// declaration (AST node), for L0206.
    private_kinds: BTreeMap<lanes_frontend::ast::NodeId, &'static str>,
    f: &'a Function,
    cfg: &'a Cfg,
    div: &'a Divergence,
    sources: &'a SourceMap,
}

const MAX_CHAIN: usize = 12;

impl Reporter<'_> {
    /// Who the analysis compares: lanes of a SIMD group or work-items of a
    /// work-group.
    fn who(&self) -> &'static str {
        match self.div.scope {
            Scope::SimdGroup => "lanes",
            Scope::WorkGroup => "work-items",
        }
    }

    /// The branch that makes work-items reach block `b` differently: a
    /// divergent branch `b` is control dependent on (directly or through
    /// blocks that are themselves under divergent control), or the
    /// divergent exit of a loop around `b`.
    fn divergent_control(&self, b: crate::ir::BlockId) -> Option<crate::ir::BlockId> {
        let mut seen = std::collections::BTreeSet::new();
        let mut work = vec![b];
        while let Some(x) = work.pop() {
            if !seen.insert(x) {
                continue;
            }
            for &d in self.cfg.control_deps(x) {
                if self.div.divergent_branches.contains(&d) {
                    return Some(d);
                }
                if self.div.masks.get(d.index()) == Some(&MaskKind::Varying) {
                    work.push(d);
                }
            }
        }
        let mut l = self.cfg.loop_of(b);
        while let Some(id) = l {
            if let Some(&d) = self.div.divergent_loops.get(&id) {
                return Some(d);
            }
            l = self.cfg.loops().loops[id.0 as usize].parent;
        }
        None
    }

    /// The source of the divergent branch that makes block `b`'s mask
    /// varying, if it is.
    fn mask_source(&self, b: crate::ir::BlockId) -> Option<Span> {
        if self.block_mask(b) != MaskKind::Varying {
            return None;
        }
        let d = self.divergent_control(b)?;
        Some(self.f.inst(self.f.terminator(d)?).src.span)
    }

    /// The mask block `b` runs under (varying where unknown).
    fn block_mask(&self, b: crate::ir::BlockId) -> MaskKind {
        self.div
            .masks
            .get(b.index())
            .copied()
            .unwrap_or(MaskKind::Varying)
    }

    /// Whether at most one lane reaches block `b`: it is (transitively)
    /// under the true side of `x == u` (or the false side of `x != u`) where
    /// `x` differs on every lane (a non-zero stride, like the local id) and
    /// `u` is uniform: the `if (lid == 0)` of one-work-item sections.
    fn at_most_one_lane(&self, b: crate::ir::BlockId) -> bool {
        let mut seen = std::collections::BTreeSet::new();
        let mut work = vec![b];
        while let Some(x) = work.pop() {
            if !seen.insert(x) {
                continue;
            }
            for &d in self.cfg.control_deps(x) {
                let Some(t) = self.f.terminator(d) else {
                    continue;
                };
                let InstKind::CondBr { cond, then, els } = self.f.inst(t).kind else {
                    continue;
                };
                let Some(InstKind::Cmp { pred, lhs, rhs }) =
                    self.f.def_inst(cond).map(|i| &self.f.inst(i).kind)
                else {
                    work.push(d);
                    continue;
                };
                let distinct = |v: ValueId| matches!(self.div.shape(v), Shape::Strided { stride, .. } if stride != 0);
                let one_lane_compare = (distinct(*lhs) && self.div.is_uniform(*rhs))
                    || (distinct(*rhs) && self.div.is_uniform(*lhs));
                let side = match pred {
                    CmpPred::Eq => then,
                    CmpPred::Ne => els,
                    _ => {
                        work.push(d);
                        continue;
                    }
                };
                if one_lane_compare && self.cfg.dominates(side, x) {
                    return true;
                }
                work.push(d);
            }
        }
        false
    }

    /// Barriers and work-group collectives; `self.div` is the work-group
    /// analysis.
    fn barriers(&self) -> Vec<BarrierFact> {
        let mut out: BTreeMap<(u32, u32), BarrierFact> = BTreeMap::new();
        for &b in self.cfg.rpo() {
            for &i in &self.f.block(b).insts {
                let inst = self.f.inst(i);
                let (kind, flags) = match inst.kind {
                    InstKind::Barrier { flags } => (BarrierKind::Barrier, flags),
                    InstKind::WorkGroup { .. } => (BarrierKind::Collective, 0),
                    _ => continue,
                };
                let control = self.divergent_control(b);
                let mut reason = Vec::new();
                if let Some(c) = control {
                    if let Some(t) = self.f.terminator(c) {
                        let bspan = self.f.inst(t).src.span;
                        reason.push(Step {
                            span: bspan,
                            text: format!(
                                "work-items of one work-group take the branch on `{}` differently",
                                self.snippet(bspan)
                            )
                            .into(),
                        });
                    }
                    if let Some(cond) = self.branch_cond(c) {
                        reason.extend(self.chain(cond));
                    }
                }
                let fact = BarrierFact {
                    span: inst.src.span,
                    kind,
                    flags,
                    uniform: control.is_none(),
                    reason,
                };
                let key = (inst.src.span.file.0, inst.src.span.start);
                match out.get_mut(&key) {
                    Some(e) if e.uniform && !fact.uniform => *e = fact,
                    Some(_) => {}
                    None => {
                        out.insert(key, fact);
                    }
                }
            }
        }
        out.into_values().collect()
    }

    fn snippet(&self, span: Span) -> String {
        let text = self.sources.text(span);
        let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if one_line.chars().count() > 48 {
            let cut: String = one_line.chars().take(45).collect();
            format!("{cut}...")
        } else {
            one_line
        }
    }

    fn shape_words(&self, v: ValueId) -> String {
        let s = self.div.shown_shape(v);
        match s {
            Shape::Strided { stride: 1, .. } if self.f.ty(v).is_int() => "contiguous".into(),
            s => s.to_string(),
        }
    }

    /// The source variable a value belongs to, if any.
    fn var_of(&self, v: ValueId) -> Option<&str> {
        self.f
            .vars
            .iter()
            .find(|var| !var.in_memory && var.values.contains(&v))
            .map(|var| var.name.as_str())
    }

    fn is_phi(&self, v: ValueId) -> bool {
        self.f
            .def_inst(v)
            .is_some_and(|i| self.f.inst(i).kind.is_phi())
    }

    fn def_span(&self, v: ValueId) -> Option<Span> {
        self.f.def_inst(v).map(|i| self.f.inst(i).src.span)
    }

    fn branch_cond(&self, b: crate::ir::BlockId) -> Option<ValueId> {
        let t = self.f.terminator(b)?;
        match &self.f.inst(t).kind {
            InstKind::CondBr { cond, .. } => Some(*cond),
            InstKind::Switch { value, .. } => Some(*value),
            _ => None,
        }
    }

    /// The reason chain of a non-uniform value, from the value back to its
    /// lane-dependent source.
    fn chain(&self, start: ValueId) -> Vec<Step> {
        let mut steps: Vec<Step> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        let mut v = start;
        let push = |steps: &mut Vec<Step>, span: Span, text: String| {
            if steps.last().is_some_and(|s: &Step| s.span == span) {
                return;
            }
            if steps.iter().any(|s| s.span == span && s.text == text) {
                return;
            }
            steps.push(Step {
                span,
                text: text.into(),
            });
        };
        while steps.len() < MAX_CHAIN && seen.insert(v) {
            let span = self.def_span(v);
            match self.div.cause(v) {
                Cause::None => break,
                Cause::Seed => {
                    if let Some(span) = span {
                        push(
                            &mut steps,
                            span,
                            match self.div.scope {
                                Scope::SimdGroup => format!(
                                    "`{}` differs per lane ({})",
                                    self.snippet(span),
                                    self.shape_words(v)
                                ),
                                Scope::WorkGroup => format!(
                                    "`{}` differs across the work-items of a work-group",
                                    self.snippet(span)
                                ),
                            },
                        );
                    }
                    break;
                }
                Cause::Lanes => {
                    let atomic = self
                        .f
                        .def_inst(v)
                        .is_some_and(|i| matches!(self.f.inst(i).kind, InstKind::Atomic { .. }));
                    if let Some(span) = span {
                        push(
                            &mut steps,
                            span,
                            match self.div.scope {
                                _ if atomic => format!(
                                    "`{}` returns a different old value to each {}",
                                    self.snippet(span),
                                    match self.div.scope {
                                        Scope::SimdGroup => "lane",
                                        Scope::WorkGroup => "work-item",
                                    }
                                ),
                                Scope::SimdGroup => format!(
                                    "`{}` depends on the lane's position",
                                    self.snippet(span)
                                ),
                                Scope::WorkGroup => format!(
                                    "`{}` differs per work-item or per sub-group",
                                    self.snippet(span)
                                ),
                            },
                        );
                    }
                    break;
                }
                Cause::Operand(u) => {
                    if let Some(span) = span {
                        let text = match self.var_of(v) {
                            // A φ or copy of a variable: name the variable.
                            Some(name) if self.is_phi(v) => {
                                format!("`{name}` is {}", self.shape_words(v))
                            }
                            _ => format!("`{}` is {}", self.snippet(span), self.shape_words(v)),
                        };
                        push(&mut steps, span, text);
                    }
                    v = u;
                }
                Cause::SyncJoin(b) | Cause::LoopExit(b) => {
                    let loop_exit = matches!(self.div.cause(v), Cause::LoopExit(_));
                    if let Some(span) = span {
                        let what = self
                            .var_of(v)
                            .map(str::to_string)
                            .unwrap_or_else(|| self.snippet(span));
                        let text = if loop_exit {
                            format!(
                                "`{what}` is varying after the loop: {} leave it in different iterations",
                                self.who()
                            )
                        } else {
                            format!(
                                "`{what}` is varying: {} from both sides of a divergent branch meet here",
                                self.who()
                            )
                        };
                        push(&mut steps, span, text);
                    }
                    match self.branch_cond(b) {
                        Some(c) => {
                            if let Some(t) = self.f.terminator(b) {
                                let bspan = self.f.inst(t).src.span;
                                push(
                                    &mut steps,
                                    bspan,
                                    format!("the branch on `{}` diverges", self.snippet(bspan)),
                                );
                            }
                            v = c;
                        }
                        None => break,
                    }
                }
                Cause::PrivateArray(a) => {
                    let aspan = self.f.inst(a).src.span;
                    let is_the_array = self.f.def_inst(v) == Some(a);
                    if let Some(span) = span.filter(|_| !is_the_array) {
                        push(
                            &mut steps,
                            span,
                            format!("`{}` reads a per-lane private array", self.snippet(span)),
                        );
                    }
                    push(
                        &mut steps,
                        aspan,
                        format!(
                            "`{}` is a private array with one copy per lane",
                            self.snippet(aspan)
                        ),
                    );
                    match self.div.varying_allocas.get(&a) {
                        Some(AllocaCause::Store(s)) => {
                            let st = self.f.inst(*s);
                            push(
                                &mut steps,
                                st.src.span,
                                format!(
                                    "`{}` stores a lane-varying value or at a lane-varying index",
                                    self.snippet(st.src.span)
                                ),
                            );
                            let next = st
                                .kind
                                .operands()
                                .into_iter()
                                .find(|&o| !self.div.is_uniform(o));
                            match next {
                                Some(n) => v = n,
                                None => break,
                            }
                        }
                        Some(AllocaCause::Join(_, b)) => match self.branch_cond(*b) {
                            Some(c) => {
                                if let Some(t) = self.f.terminator(*b) {
                                    let bspan = self.f.inst(t).src.span;
                                    push(
                                        &mut steps,
                                        bspan,
                                        format!(
                                            "it is written under the divergent branch on `{}`",
                                            self.snippet(bspan)
                                        ),
                                    );
                                }
                                v = c;
                            }
                            None => break,
                        },
                        None => break,
                    }
                }
            }
        }
        steps
    }

    fn values(&self) -> Vec<ValueFact> {
        let mut out = Vec::new();
        for var in &self.f.vars {
            let mut shape = Shape::Bottom;
            let mut first_non_uniform = None;
            for &v in &var.values {
                if v.index() >= self.f.values.len() {
                    continue;
                }
                let s = self.div.shape(v);
                shape = shape.join(s);
                if first_non_uniform.is_none() && !self.div.is_uniform(v) {
                    first_non_uniform = Some(v);
                }
            }
            if matches!(shape, Shape::Bottom) {
                shape = Shape::uniform();
            }
            let kind = if var.in_memory {
                // A variable in memory is "varying" when it is per-lane.
                if shape.is_uniform() {
                    ShapeKind::Uniform
                } else {
                    ShapeKind::Varying
                }
            } else {
                ShapeKind::of(shape, 1)
            };
            let reason = first_non_uniform.map(|v| self.chain(v)).unwrap_or_default();
            out.push(ValueFact {
                name: var.name.clone(),
                span: var.span,
                shape,
                kind,
                reason,
            });
        }
        // One entry per declaration (inlined helpers may repeat one).
        let mut merged: BTreeMap<(u32, u32, SmolStr), ValueFact> = BTreeMap::new();
        for v in out {
            let key = (v.span.file.0, v.span.start, v.name.clone());
            match merged.get_mut(&key) {
                Some(e) => {
                    e.shape = e.shape.join(v.shape);
                    if v.kind > e.kind {
                        e.kind = v.kind;
                        e.reason = v.reason;
                    }
                }
                None => {
                    merged.insert(key, v);
                }
            }
        }
        merged.into_values().collect()
    }

    /// The loop whose exit the branch in `b` decides, if any.
    fn exit_branch_loop(&self, b: crate::ir::BlockId) -> bool {
        let Some(l) = self.cfg.loop_of(b) else {
            return false;
        };
        let lp = &self.cfg.loops().loops[l.0 as usize];
        self.cfg.succs(b).iter().any(|s| !lp.blocks.contains(s))
    }

    fn branches(&self) -> Vec<BranchFact> {
        let mut out: BTreeMap<(u32, u32), BranchFact> = BTreeMap::new();
        for &b in self.cfg.rpo() {
            let Some(t) = self.f.terminator(b) else {
                continue;
            };
            let inst = self.f.inst(t);
            let cond = match &inst.kind {
                InstKind::CondBr { cond, then, els } if then != els => *cond,
                InstKind::Switch { value, cases, .. } if !cases.is_empty() => *value,
                _ => continue,
            };
            let divergent = self.div.divergent_branches.contains(&b);
            let fact = BranchFact {
                span: inst.src.span,
                divergent,
                loop_exit: self.exit_branch_loop(b),
                reason: if divergent {
                    self.chain(cond)
                } else {
                    Vec::new()
                },
                any_guard: divergent
                    .then(|| any_guard::any_guard(self.f, self.cfg, b, cond))
                    .flatten(),
            };
            let key = (inst.src.span.file.0, inst.src.span.start);
            match out.get_mut(&key) {
                Some(e) if !e.divergent && fact.divergent => *e = fact,
                Some(_) => {}
                None => {
                    out.insert(key, fact);
                }
            }
        }
        out.into_values().collect()
    }

    fn loops(&self) -> Vec<LoopFact> {
        let mut out: BTreeMap<(u32, u32), LoopFact> = BTreeMap::new();
        for (i, lp) in self.cfg.loops().loops.iter().enumerate() {
            if self.f.block(lp.header).label == crate::lower::workgroup::ASYNC_COPY_LOOP {
                continue;
            }
            let id = crate::cfg::LoopId(i as u32);
            let span = loop_span(self.f, self.cfg, lp);
            let divergent_branch = self.div.divergent_loops.get(&id).copied();
            let mut divergent_exits = Vec::new();
            for &e in &lp.exiting {
                if self.div.divergent_branches.contains(&e) {
                    if let Some(t) = self.f.terminator(e) {
                        divergent_exits.push(self.f.inst(t).src.span);
                    }
                }
            }
            let reason = divergent_branch
                .and_then(|b| self.branch_cond(b))
                .map(|c| self.chain(c))
                .unwrap_or_default();
            let fact = LoopFact {
                span,
                divergent: divergent_branch.is_some(),
                divergent_exits,
                reason,
                precondition: None,
            };
            let key = (span.file.0, span.start);
            match out.get_mut(&key) {
                Some(e) if !e.divergent && fact.divergent => *e = fact,
                Some(_) => {}
                None => {
                    out.insert(key, fact);
                }
            }
        }
        out.into_values().collect()
    }

    fn accesses(&self) -> Vec<AccessFact> {
        let mut out: BTreeMap<(u32, u32, AccessKind), AccessFact> = BTreeMap::new();
        // Per source access: (stride, size) of each strided component access.
        let mut components: BTreeMap<(u32, u32, AccessKind), Vec<(Option<i64>, u64)>> =
            BTreeMap::new();
        for &b in self.cfg.rpo() {
            for &i in &self.f.block(b).insts {
                let inst = self.f.inst(i);
                let (kind, ptr, size) = match &inst.kind {
                    InstKind::Load { ptr, .. } => (AccessKind::Load, *ptr, inst.ty.bytes()),
                    InstKind::Store { ptr, value, .. } => {
                        (AccessKind::Store, *ptr, self.f.ty(*value).bytes())
                    }
                    InstKind::Atomic { ptr, args, .. } => {
                        let ty = match args.last() {
                            Some(&v) => self.f.ty(v),
                            None => inst.ty,
                        };
                        (AccessKind::Atomic, *ptr, ty.bytes())
                    }
                    _ => continue,
                };
                let space = match self.f.ty(ptr) {
                    crate::ir::Ty::Ptr(s) => s,
                    _ => continue,
                };
                if space == AddressSpace::Private {
                    continue;
                }
                let shape = self.div.shown_shape(ptr);
                let (pattern, stride_bytes) = match shape {
                    Shape::Strided { stride: 0, .. } | Shape::Bottom => (Pattern::Uniform, Some(0)),
                    Shape::Strided { stride, .. } if stride == size as i64 => {
                        (Pattern::Contiguous, Some(stride))
                    }
                    Shape::Strided { stride, .. } => (Pattern::Strided, Some(stride)),
                    Shape::Varying { .. } => match kind {
                        AccessKind::Load => (Pattern::Gather, None),
                        // An atomic writes (but for `atomic_load`): a
                        // scatter of read-modify-writes.
                        AccessKind::Store | AccessKind::Atomic => (Pattern::Scatter, None),
                    },
                };
                let reason = if pattern == Pattern::Uniform {
                    Vec::new()
                } else {
                    self.chain(ptr)
                };
                let fact = AccessFact {
                    span: inst.src.span,
                    kind,
                    pattern,
                    stride_bytes,
                    size,
                    mask: self.block_mask(b),
                    masked_by: self.mask_source(b),
                    one_lane: self.at_most_one_lane(b),
                    clamped: pattern == Pattern::Gather
                        && crate::shape::clamped_index(self.f, |x| self.div.shape(x), ptr)
                            .is_some_and(|(_, _, factor)| factor == size as i64),
                    rows: pattern == Pattern::Gather
                        && kind == AccessKind::Load
                        && crate::rows::row_walk(
                            self.f,
                            |x| self.div.shape(x),
                            self.cfg,
                            self.div.width,
                            (b, ptr, inst.ty),
                        )
                        .is_some(),
                    space: MemSpace::Addr(space),
                    reason,
                };
                let key = (inst.src.span.file.0, inst.src.span.start, kind);
                let stride = match shape {
                    Shape::Strided { stride, .. } if stride != 0 => Some(stride),
                    _ => None,
                };
                components.entry(key).or_default().push((stride, size));
                match out.get_mut(&key) {
                    Some(e) => {
                        let one_lane = e.one_lane && fact.one_lane;
                        if fact.pattern > e.pattern {
                            let mask = e.mask.max(fact.mask);
                            let masked_by = fact.masked_by.or(e.masked_by);
                            *e = fact;
                            e.mask = mask;
                            e.masked_by = masked_by;
                        } else {
                            e.mask = e.mask.max(fact.mask);
                            e.masked_by = e.masked_by.or(fact.masked_by);
                        }
                        e.one_lane = one_lane;
                    }
                    None => {
                        out.insert(key, fact);
                    }
                }
            }
        }
        // A vector or struct element is accessed one component at a time:
        // if every component moves by the whole element's size per lane,
        // the source access is contiguous (packed loads and a transpose).
        for (key, fact) in out.iter_mut() {
            if let Some(parts) = components.get(key) {
                let total: u64 = parts.iter().map(|p| p.1).sum();
                let all_same = parts.iter().all(|p| p.0 == Some(total as i64) && total > 0);
                if parts.len() > 1 && all_same {
                    fact.pattern = Pattern::Contiguous;
                    fact.stride_bytes = Some(total as i64);
                    fact.size = total;
                }
            }
        }
        for fact in self.image_accesses() {
            let key = (fact.span.file.0, fact.span.start, fact.kind);
            out.entry(key).or_insert(fact);
        }
        out.into_values().collect()
    }

    /// Image reads and writes. The pixel address is not known statically,
    /// so the coordinates decide: all uniform is one pixel for all lanes;
    /// an integer x that steps by one pixel per lane with every other
    /// coordinate uniform is a row of consecutive pixels (`contiguous`, the
    /// image's "packed"); anything else is a gather (reads) or a scatter
    /// (writes). A read is one fact for its four channel instructions.
    fn image_accesses(&self) -> Vec<AccessFact> {
        let mut out = Vec::new();
        for &b in self.cfg.rpo() {
            for &i in &self.f.block(b).insts {
                let inst = self.f.inst(i);
                let (kind, coords, size) = match &inst.kind {
                    InstKind::ImageRead {
                        coords, component, ..
                    } => {
                        if *component != 0 {
                            continue;
                        }
                        let channels = self
                            .f
                            .insts
                            .iter()
                            .filter(|j| {
                                j.src.span == inst.src.span
                                    && matches!(j.kind, InstKind::ImageRead { .. })
                            })
                            .count() as u64;
                        (AccessKind::Load, coords, inst.ty.bytes() * channels.max(1))
                    }
                    InstKind::ImageWrite { coords, values, .. } => {
                        let size = values.iter().map(|&v| self.f.ty(v).bytes()).sum();
                        (AccessKind::Store, coords, size)
                    }
                    _ => continue,
                };
                let shapes: Vec<Shape> = coords.iter().map(|&c| self.div.shown_shape(c)).collect();
                let uniform =
                    |s: &Shape| matches!(s, Shape::Strided { stride: 0, .. } | Shape::Bottom);
                let pattern = if shapes.iter().all(uniform) {
                    Pattern::Uniform
                } else if matches!(shapes.first(), Some(Shape::Strided { stride: 1, .. }))
                    && self.f.ty(coords[0]).is_int()
                    && shapes[1..].iter().all(uniform)
                {
                    Pattern::Contiguous
                } else if kind == AccessKind::Load {
                    Pattern::Gather
                } else {
                    Pattern::Scatter
                };
                let reason = match coords.iter().zip(&shapes).find(|(_, s)| !uniform(s)) {
                    Some((&c, _)) if pattern != Pattern::Uniform => self.chain(c),
                    _ => Vec::new(),
                };
                out.push(AccessFact {
                    span: inst.src.span,
                    kind,
                    pattern,
                    stride_bytes: (pattern == Pattern::Uniform).then_some(0),
                    size,
                    mask: self.block_mask(b),
                    masked_by: self.mask_source(b),
                    one_lane: self.at_most_one_lane(b),
                    clamped: false,
                    rows: false,
                    space: MemSpace::Image,
                    reason,
                });
            }
        }
        out
    }

    /// Where the one address of a uniform atomic comes from: the operand
    /// that names the memory.
    fn address_steps(&self, span: Span) -> Vec<Step> {
        let ptr = self.f.insts.iter().find_map(|i| match &i.kind {
            InstKind::Atomic { ptr, .. } if i.src.span == span => Some(*ptr),
            _ => None,
        });
        let Some(ptr) = ptr else {
            return Vec::new();
        };
        let text = match self.f.values[ptr.index()].def {
            crate::ir::ValueDef::Local(n) => format!(
                "`{}` is one `__local` variable of the work-group",
                self.f.locals[n as usize].name
            ),
            crate::ir::ValueDef::Param(n) => format!(
                "`{}` is a kernel argument: the same pointer for all lanes",
                self.f.params[n as usize].name
            ),
            _ => match self.def_span(ptr) {
                Some(s) => format!(
                    "the address `{}` is the same for all lanes",
                    self.snippet(s)
                ),
                None => return Vec::new(),
            },
        };
        let at = match self.f.values[ptr.index()].def {
            crate::ir::ValueDef::Local(n) => self.f.locals[n as usize].span,
            crate::ir::ValueDef::Param(n) => self.f.params[n as usize].span,
            _ => self.def_span(ptr).unwrap_or(span),
        };
        vec![Step {
            span: at,
            text: text.into(),
        }]
    }

    fn with_chain(&self, mut d: Diagnostic, chain: &[Step]) -> Diagnostic {
        // The primary span already says it; the chain starts from there.
        let primary = d.span;
        for s in chain.iter().filter(|s| s.span != primary) {
            d = d.with_related(s.span, s.text.clone());
        }
        d
    }

    fn diagnose(
        &self,
        branches: &[BranchFact],
        loops: &[LoopFact],
        accesses: &[AccessFact],
        out: &mut Vec<Diagnostic>,
    ) {
        let w = self.div.width;
        // Atomics and stores only one lane executes: nothing to aggregate,
        // no values of other lanes to lose.
        // By source span: an inlined helper's code counts only when every
        // copy is under such a branch.
        let (mut one_lane, mut more_lanes) = (
            std::collections::HashSet::new(),
            std::collections::HashSet::new(),
        );
        for &b in self.cfg.rpo() {
            let set = if self.at_most_one_lane(b) {
                &mut one_lane
            } else {
                &mut more_lanes
            };
            set.extend(
                self.f
                    .block(b)
                    .insts
                    .iter()
                    .map(|&i| self.f.inst(i).src.span),
            );
        }
        let one_lane: std::collections::HashSet<Span> =
            one_lane.difference(&more_lanes).copied().collect();
        for l in loops.iter().filter(|l| l.divergent) {
            let d = Diagnostic::new(
                Code::DivergentLoop,
                l.span,
                "divergent loop: lanes leave it in different iterations",
            )
            .with_label("the exit condition differs across lanes")
            .with_note(format!(
                "the SIMD group keeps iterating until its last lane is done; lanes that finished early idle under a mask (up to {} of {w} lanes)",
                w - 1
            ));
            out.push(self.with_chain(d, &l.reason));
        }
        let unguarded = |b: &&BranchFact| b.divergent && !b.loop_exit && b.any_guard.is_none();
        for b in branches.iter().filter(unguarded) {
            let d = Diagnostic::new(
                Code::DivergentBranch,
                b.span,
                "divergent branch: lanes take different sides, so both sides run under a mask",
            )
            .with_label("the condition differs across lanes")
            .with_note(
                "if the condition is usually the same for all lanes, `if (sub_group_any(c))` skips the masked side when no lane needs it",
            );
            out.push(self.with_chain(d, &b.reason));
        }
        for a in accesses {
            let what = self.snippet(a.span);
            let d = match (a.pattern, a.kind) {
                (Pattern::Uniform, AccessKind::Atomic) if a.one_lane => continue,
                (Pattern::Uniform, AccessKind::Atomic) => {
                    let d = Diagnostic::new(
                        Code::AtomicSameAddress,
                        a.span,
                        format!("atomic on one address from all lanes: `{what}`"),
                    )
                    .with_label("every lane of the SIMD group updates the same address, one after the other")
                    .with_note("aggregate per SIMD group: combine the lanes' operands with a sub-group reduction (`sub_group_reduce_add`; `sub_group_scan_exclusive_add` when each lane needs its old value) and let one lane do one atomic for the group");
                    out.push(self.with_chain(d, &self.address_steps(a.span)));
                    continue;
                }
                (_, AccessKind::Atomic) => Diagnostic::new(
                    Code::AtomicVaryingAddress,
                    a.span,
                    format!("atomic on lane-varying addresses: `{what}` runs once per lane"),
                )
                .with_label("lanes update different addresses: the atomics serialize lane by lane")
                .with_note(format!("a SIMD group issues {w} separate atomic operations here; where many work-items update a few addresses (a histogram), privatize the counters per work-group in `__local` memory or per SIMD group, and merge them once at the end")),
                (Pattern::Gather, _) if a.space == MemSpace::Image => Diagnostic::new(
                    Code::Gather,
                    a.span,
                    format!("gather: `{what}` reads pixels at {w} unrelated coordinates"),
                )
                .with_label("the coordinates are not a row of consecutive pixels across lanes")
                .with_note("each lane computes its own pixel address (and filter weights with a linear sampler); integer coordinates with x = base + get_global_id(0) and the other coordinates the same for the SIMD group read a row of consecutive pixels"),
                (Pattern::Scatter, _) if a.space == MemSpace::Image => Diagnostic::new(
                    Code::Scatter,
                    a.span,
                    format!("scatter: `{what}` writes pixels at {w} unrelated coordinates"),
                )
                .with_label("the coordinates are not a row of consecutive pixels across lanes")
                .with_note("each lane writes its own pixel; x = base + get_global_id(0) with the other coordinates the same for the SIMD group writes a row of consecutive pixels"),
                (Pattern::Gather, _) if a.clamped => Diagnostic::new(
                    Code::Gather,
                    a.span,
                    format!("gather at the clamp's bounds: `{what}` loads from {w} unrelated addresses only where the clamp moves a lane"),
                )
                .with_label("the clamped index is consecutive across lanes except at the bounds")
                .with_note("a SIMD group whose unclamped indices all lie within the clamp's bounds loads its lanes with one packed load; the SIMD groups at the bounds gather, about one scalar load per lane"),
                (Pattern::Gather, _) if a.rows => Diagnostic::new(
                    Code::Gather,
                    a.span,
                    format!("rows side by side: `{what}` loads {w} rows, one element of each per iteration"),
                )
                .with_label("each lane walks its own row; across lanes the address jumps a row")
                .with_note(format!("a SIMD group whose lanes are all active loads {w} elements of each lane's row at once and transposes them, once every {w} iterations, while the loop has {w} more to run and its stores cannot touch those elements; otherwise it gathers, about one scalar load per lane")),
                (Pattern::Gather, _) => Diagnostic::new(
                    Code::Gather,
                    a.span,
                    format!("gather: `{what}` loads from {w} unrelated addresses"),
                )
                .with_label("the address is not consecutive across lanes")
                .with_note("a gather costs about one scalar load per lane; a contiguous index (`base + get_global_id(0)`) gives one packed load"),
                (Pattern::Scatter, _) => Diagnostic::new(
                    Code::Scatter,
                    a.span,
                    format!("scatter: `{what}` stores to {w} unrelated addresses"),
                )
                .with_label("the address is not consecutive across lanes")
                .with_note("a scatter costs about one scalar store per lane"),
                (Pattern::Strided, kind) => {
                    let stride = a.stride_bytes.unwrap_or(0);
                    Diagnostic::new(
                        Code::StridedAccess,
                        a.span,
                        format!(
                            "strided {}: `{what}` {} every {} bytes ({} elements) across lanes",
                            if kind == AccessKind::Load { "load" } else { "store" },
                            if kind == AccessKind::Load { "reads" } else { "writes" },
                            stride,
                            if a.size > 0 { stride / a.size as i64 } else { 0 }
                        ),
                    )
                    .with_label("lanes access elements that are not adjacent")
                    .with_note(strided_note(kind, stride, a.size))
                }
                _ => continue,
            };
            out.push(self.with_chain(d, &a.reason));
        }
        // Stores of varying values to one address, and varying divisions.
        for &b in self.cfg.rpo() {
            for &i in &self.f.block(b).insts {
                let inst = self.f.inst(i);
                match &inst.kind {
                    InstKind::Store { ptr, value, .. }
                        if !one_lane.contains(&inst.src.span)
                            && self.div.is_uniform(*ptr)
                            && !self.div.is_uniform(*value)
                            && !matches!(
                                self.f.ty(*ptr),
                                crate::ir::Ty::Ptr(AddressSpace::Private)
                            ) =>
                    {
                        let d = Diagnostic::new(
                            Code::SameAddressStore,
                            inst.src.span,
                            format!(
                                "all lanes store different values to one address in `{}`",
                                self.snippet(inst.src.span)
                            ),
                        )
                        .with_label("the address is the same for every lane, the value is not")
                        .with_note("only one lane's value survives; if a sum was intended, use `sub_group_reduce_add`");
                        out.push(self.with_chain(d, &self.chain(*value)));
                    }
                    InstKind::Bin { op, rhs, .. }
                        if op.is_int_division()
                            && self.f.as_const(*rhs).is_none()
                            && self.f.one_shifted(*rhs).is_none()
                            && inst.result.is_some_and(|r| !self.div.is_uniform(r)) =>
                    {
                        let r = inst.result.unwrap_or(ValueId(0));
                        let what = if matches!(op, BinOp::SDiv | BinOp::UDiv) {
                            "division"
                        } else {
                            "remainder"
                        };
                        let d = Diagnostic::new(
                            Code::VaryingDivision,
                            inst.src.span,
                            format!("integer {what} on lane-varying values in `{}`", self.snippet(inst.src.span)),
                        )
                        .with_label("SIMD units have no integer division: this runs once per lane")
                        .with_note("divide by a constant (or a power of two) where possible, or hoist the division out of the loop");
                        out.push(self.with_chain(d, &self.chain(r)));
                    }
                    _ => {}
                }
            }
        }
        // Private objects left in memory (see `promote`) and made per-lane.
        let users = self.f.users();
        for var in self.f.vars.iter().filter(|v| v.in_memory) {
            let Some(&kind) = self.private_kinds.get(&var.node) else {
                continue;
            };
            let Some(&alloca) = var.values.first() else {
                continue;
            };
            let Some(a) = self.f.def_inst(alloca) else {
                continue;
            };
            if !self.div.varying_allocas.contains_key(&a) {
                continue;
            }
            let size = match self.f.inst(a).kind {
                InstKind::Alloca { size, .. } => size,
                _ => 0,
            };
            let mut d = Diagnostic::new(
                Code::PerLanePrivateArray,
                var.span,
                format!(
                    "private {kind} `{}` is made per-lane: {w} copies of {size} bytes in memory",
                    var.name
                ),
            )
            .with_label("each lane needs its own copy")
            .with_note("accesses to it become gathers and scatters unless every index is the same for all lanes and every stored value is uniform");
            if let Some(b) = crate::promote::blocker(self.f, a, &users) {
                d = self.with_blocker(d, b, kind);
            }
            let chain = self.chain(alloca);
            out.push(self.with_chain(d, &chain));
        }
    }

    /// Says why an object could not be kept in registers, at the
    /// instruction that prevents it.
    fn with_blocker(&self, d: Diagnostic, b: crate::promote::Blocker, kind: &str) -> Diagnostic {
        use crate::promote::Blocker;
        let Some(i) = b.inst() else {
            return d.with_note(format!(
                "it stays in memory instead of registers because {}",
                b.reason()
            ));
        };
        let inst = self.f.inst(i);
        let span = inst.src.span;
        let text = match (b, &inst.kind) {
            (Blocker::DynamicIndex(_), InstKind::PtrAdd { offset, .. })
                if self.div.is_uniform(*offset) =>
            {
                format!(
                    "`{}` indexes it with a value computed at run time (the same on every lane): only {kind}s whose every index is a constant, or of at most {} elements indexed with values the same on every lane, are kept in registers",
                    self.snippet(span),
                    crate::promote::MAX_INDEXED_ELEMENTS
                )
            }
            _ => {
                let why = match b {
                    Blocker::DynamicIndex(_) => format!(
                        "only {kind}s whose indices are constants, or the same on every lane (at most {} elements), are kept in registers",
                        crate::promote::MAX_INDEXED_ELEMENTS
                    ),
                    Blocker::Reinterpreted(_) => {
                        "a register holds each field with the one type it is written and read with".into()
                    }
                    _ => format!(
                        "only {kind}s accessed at constant offsets (fields, components, constant indices) are kept in registers"
                    ),
                };
                format!("`{}` {}: {why}", self.snippet(span), b.reason())
            }
        };
        d.with_related(span, text)
    }
}

pub(crate) mod any_guard;
#[cfg(test)]
mod tests;

/// How L0206 names a private variable of type `ty`.
fn private_kind(unit: &hir::Unit, ty: &lanes_frontend::types::Type) -> &'static str {
    use lanes_frontend::types::Type;
    match ty {
        Type::Array(..) => "array",
        Type::Struct(id) => unit.struct_def(*id).keyword(),
        Type::Vector(..) => "vector",
        _ => "variable",
    }
}

/// What the back end emits for a strided access (see docs/codegen.md,
/// "Strided access"), and the layout that needs no shuffles.
fn strided_note(kind: AccessKind, stride: i64, size: u64) -> String {
    let elems = if size > 0 { stride / size as i64 } else { 0 };
    let emitted = match kind {
        _ if !(2..=8).contains(&elems) => "compiled as a gather or scatter",
        AccessKind::Load => "compiled as packed loads of the records and shuffles",
        _ => "compiled as shuffles and packed stores when the neighbouring stores write every element of the records, else as a scatter",
    };
    format!("{emitted}; consecutive lanes accessing consecutive elements (structure of arrays) need no shuffles")
}
