//! Piece abduction, candidate ranking and verification for each target.

use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use std::time::Instant;

use lanes_frontend::hir;
use lanes_frontend::source::Span;
use z3::ast::{Bool, Int};
use z3::{SatResult, Solver};

use crate::cfg::LoopId;
use crate::divergence::{self, Divergence};
use crate::ir::{BlockId, Const, Function, InstKind, MathFn, Ty, ValueDef, ValueId};
use crate::report::KernelAnalysis;
use crate::shape::Shape;

use super::budget::{self, Exhausted, Meter};
use super::eval::{self, Sample};
use super::linear::{self, Cond};
use super::names::{self, Namer};
use super::smt::Enc;
use super::{Coverage, Finding, Options, Outcome, Precondition, TargetKind};

/// What must become uniform (or contiguous).
#[derive(Clone, Copy, Debug)]
enum Target {
    Loop(LoopId),
    Branch(BlockId),
    /// A load or store: its pointer, and the element size.
    Access(ValueId, u64),
}

/// A value the target depends on that takes one of two pieces.
#[derive(Clone, Copy, Debug)]
enum Decision {
    /// `min`/`max`/`select` `value` equals operand `arm`.
    Piece { value: ValueId, arm: ValueId },
    /// The branch at `block` on `cond` goes the `truth` way on every lane.
    Branch {
        block: BlockId,
        cond: ValueId,
        truth: bool,
    },
}

const MAX_DECISIONS: usize = 10;
const MAX_SET: usize = 3;
const MAX_ANALYSES: usize = 400;

pub fn run(
    ka: &KernelAnalysis,
    unit: &hir::Unit,
    kernel: hir::FuncId,
    opts: &Options,
    meter: &mut Meter,
) -> Vec<Finding> {
    let mut out = Vec::new();
    // Preconditions found so far in this kernel, tried first on the next.
    let mut hints = Vec::new();
    for (target, kind, span) in targets(ka) {
        let start = Instant::now();
        let stmt = names::statement(unit, kernel, span, kind);
        meter.begin_target();
        let mut s = Search {
            ka,
            unit,
            kernel,
            opts,
            meter: &mut *meter,
            start,
            queries: 0,
            stmt,
            hints: &mut hints,
        };
        let outcome = match s.meter.exhausted() {
            Some(Exhausted::Target) | None => s.target(target),
            Some(why) => Outcome::OutOfBudget(why),
        };
        let queries = s.queries;
        if std::env::var_os("LANES_PRECOND_DEBUG").is_some() {
            let what = match &outcome {
                Outcome::Found(_) => "found",
                Outcome::NotFound(_) => "not found",
                Outcome::OutOfBudget(_) => "out of budget",
            };
            eprintln!(
                "{kind:?} at {}: {what}, {} units, {:.0} ms, {queries} queries",
                span.start,
                meter.target_spent(),
                start.elapsed().as_secs_f64() * 1e3
            );
        }
        out.push(Finding {
            kind,
            span,
            stmt,
            outcome,
            spent: meter.target_spent(),
            millis: start.elapsed().as_secs_f64() * 1e3,
            queries,
        });
    }
    out
}

/// True when one of the blocks has a barrier or work-group collective.
fn has_sync(f: &Function, blocks: impl IntoIterator<Item = BlockId>) -> bool {
    blocks.into_iter().any(|b| {
        f.block(b)
            .insts
            .iter()
            .any(|&i| f.inst(i).kind.is_work_group_sync())
    })
}

/// The blocks control dependent on the branch in `b`, directly or through
/// other such blocks.
fn controlled_blocks(cfg: &crate::cfg::Cfg, b: BlockId) -> BTreeSet<BlockId> {
    let mut out: BTreeSet<BlockId> = BTreeSet::new();
    let mut changed = true;
    while changed {
        changed = false;
        for &x in cfg.rpo() {
            if !out.contains(&x)
                && cfg
                    .control_deps(x)
                    .iter()
                    .any(|d| *d == b || out.contains(d))
            {
                out.insert(x);
                changed = true;
            }
        }
    }
    out
}

/// Divergent loops, divergent branches that are not loop exits, and
/// gathers/scatters outside the divergent loops.
fn targets(ka: &KernelAnalysis) -> Vec<(Target, TargetKind, Span)> {
    let (f, cfg, div) = (&ka.func, &ka.cfg, &ka.div);
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    let loops = &cfg.loops().loops;
    // A fast path duplicates the code under `if (sub_group_all(P))`, which
    // differs between the SIMD groups of a work-group: code with a barrier
    // or work-group collective cannot be duplicated that way.
    for &id in div.divergent_loops.keys() {
        let lp = &loops[id.0 as usize];
        if has_sync(f, lp.blocks.iter().copied()) {
            continue;
        }
        let span = crate::report::loop_span(f, cfg, lp);
        if seen.insert((span.start, span.end, 0)) {
            out.push((Target::Loop(id), TargetKind::Loop, span));
        }
    }
    for &b in &div.divergent_branches {
        let exits = cfg.loop_of(b).is_some_and(|l| {
            let lp = &loops[l.0 as usize];
            cfg.succs(b).iter().any(|s| !lp.blocks.contains(s))
        });
        let Some(t) = f.terminator(b) else { continue };
        if exits || !matches!(f.inst(t).kind, InstKind::CondBr { .. }) {
            continue;
        }
        if has_sync(f, controlled_blocks(cfg, b)) {
            continue;
        }
        let span = f.inst(t).src.span;
        if seen.insert((span.start, span.end, 1)) {
            out.push((Target::Branch(b), TargetKind::Branch, span));
        }
    }
    let in_divergent_loop = |b: BlockId| {
        div.divergent_loops
            .keys()
            .any(|l| loops[l.0 as usize].blocks.contains(&b))
    };
    for &b in cfg.rpo() {
        if in_divergent_loop(b) {
            continue;
        }
        for &i in &f.block(b).insts {
            let inst = f.inst(i);
            let (ptr, size) = match &inst.kind {
                InstKind::Load { ptr, .. } => (*ptr, inst.ty.bytes()),
                InstKind::Store { ptr, value, .. } => (*ptr, f.ty(*value).bytes()),
                _ => continue,
            };
            if matches!(
                f.ty(ptr),
                Ty::Ptr(lanes_frontend::ast::AddressSpace::Private)
            ) {
                continue;
            }
            if !good_access(div, ptr, size) {
                let span = inst.src.span;
                if seen.insert((span.start, span.end, 2)) {
                    out.push((Target::Access(ptr, size), TargetKind::Access, span));
                }
            }
        }
    }
    out
}

fn good_access(div: &Divergence, ptr: ValueId, size: u64) -> bool {
    match div.shape(ptr) {
        Shape::Bottom => true,
        Shape::Strided { stride, .. } => stride == 0 || stride == size as i64,
        Shape::Varying { .. } => false,
    }
}

struct Search<'a> {
    ka: &'a KernelAnalysis,
    unit: &'a hir::Unit,
    kernel: hir::FuncId,
    opts: &'a Options,
    meter: &'a mut Meter,
    /// For debugging output only.
    start: Instant,
    queries: u32,
    stmt: Option<Span>,
    hints: &'a mut Vec<super::cegis::Hint>,
}

/// A candidate: decisions taken, their conditions, its sampled coverage.
struct Candidate {
    decisions: Vec<Decision>,
    conds: Vec<Cond>,
    hits: u64,
    known: u64,
}

impl Search<'_> {
    fn out_of_budget(&mut self) -> bool {
        self.meter.is_exhausted()
    }

    fn budget_outcome(&mut self) -> Outcome {
        Outcome::OutOfBudget(self.meter.exhausted().unwrap_or(Exhausted::Target))
    }

    fn target(&mut self, t: Target) -> Outcome {
        let decisions = self.decisions(t);
        if decisions.is_empty() {
            return self.cegis(t);
        }
        let mut candidates = self.abduce(t, &decisions);
        if std::env::var_os("LANES_PRECOND_DEBUG").is_some() {
            eprintln!(
                "{t:?}: {} decisions, {} candidates after {:?}",
                decisions.len(),
                candidates.len(),
                self.start.elapsed()
            );
            for c in &candidates {
                eprintln!("  {:?} hits {}/{}", c.decisions, c.hits, c.known);
            }
        }
        if self.out_of_budget() {
            return self.budget_outcome();
        }
        if candidates.is_empty() {
            return self.cegis(t);
        }
        // The `else` of `if (sub_group_all(P)) { fast copy } else { this }`
        // needs no fast path for P again.
        let (f, cfg) = (&self.ka.func, &self.ka.cfg);
        if let Some(b) = self.target_block(t) {
            if candidates
                .iter()
                .any(|c| super::assume::in_fast_path_else(f, cfg, b, &c.conds))
            {
                return Outcome::NotFound(
                    "it is the original copy, in the `else` of an `if (sub_group_all(P))` whose fast copy runs when P holds".into(),
                );
            }
        }
        // Most sampled groups first; unknown samples count as neither.
        candidates.sort_by(|a, b| b.hits.cmp(&a.hits).then(a.conds.len().cmp(&b.conds.len())));
        let mut rejected = Vec::new();
        for c in candidates.iter().take(4) {
            if c.known > 0 && c.hits == 0 {
                continue;
            }
            match self.verify(t, c, &mut rejected) {
                Some(Ok(p)) => return Outcome::Found(p),
                Some(Err(())) => continue,
                None => return self.budget_outcome(),
            }
        }
        Outcome::NotFound(if rejected.is_empty() {
            "no choice of the min/max/select pieces it depends on makes it uniform on a reachable launch".into()
        } else {
            format!("the candidates were refuted: {}", rejected.join("; "))
        })
    }

    /// The decisions in the backward slice of the target.
    fn decisions(&self, t: Target) -> Vec<Decision> {
        let f = &self.ka.func;
        let mut roots = Vec::new();
        let mut out = Vec::new();
        match t {
            Target::Loop(id) => {
                let lp = &self.ka.cfg.loops().loops[id.0 as usize];
                for &e in &lp.exiting {
                    if let Some(InstKind::CondBr { cond, .. }) =
                        f.terminator(e).map(|i| &f.inst(i).kind)
                    {
                        roots.push(*cond);
                    }
                }
            }
            Target::Branch(b) => {
                if let Some(InstKind::CondBr { cond, .. }) =
                    f.terminator(b).map(|i| &f.inst(i).kind)
                {
                    roots.push(*cond);
                    for truth in [true, false] {
                        out.push(Decision::Branch {
                            block: b,
                            cond: *cond,
                            truth,
                        });
                    }
                }
            }
            Target::Access(ptr, _) => roots.push(ptr),
        }
        let mut seen = BTreeSet::new();
        let mut stack = roots;
        while let Some(v) = stack.pop() {
            if !seen.insert(v) || seen.len() > 400 {
                continue;
            }
            let Some(i) = f.def_inst(v) else { continue };
            let kind = &f.inst(i).kind;
            match kind {
                InstKind::Math {
                    func: MathFn::SMin | MathFn::SMax | MathFn::UMin | MathFn::UMax,
                    args,
                } if args.len() == 2 && f.ty(v).is_int() && !self.ka.div.is_uniform(v) => {
                    for &a in args {
                        out.push(Decision::Piece { value: v, arm: a });
                    }
                }
                InstKind::Select { cond, then, els }
                    if f.ty(v).is_int() && !self.ka.div.is_uniform(*cond) =>
                {
                    out.push(Decision::Piece {
                        value: v,
                        arm: *then,
                    });
                    out.push(Decision::Piece {
                        value: v,
                        arm: *els,
                    });
                }
                InstKind::Load { .. } => continue,
                _ => {}
            }
            kind.for_each_operand(|o| stack.push(o));
        }
        out.truncate(MAX_DECISIONS * 2);
        out
    }

    /// The condition under which `d` holds on a lane, as linear conditions.
    fn conds_of(&self, d: Decision) -> Option<Vec<Cond>> {
        let f = &self.ka.func;
        match d {
            Decision::Piece { value, arm } => {
                let i = f.def_inst(value)?;
                match &f.inst(i).kind {
                    InstKind::Math { func, args } => {
                        let other = if args[0] == arm { args[1] } else { args[0] };
                        use crate::ir::CmpPred::*;
                        let pred = match func {
                            MathFn::SMin => Sle,
                            MathFn::SMax => Sge,
                            MathFn::UMin => Ule,
                            MathFn::UMax => Uge,
                            _ => return None,
                        };
                        linear::cmp_conds(f, pred, arm, other, true)
                    }
                    InstKind::Select { cond, then, .. } => self.truth_conds(*cond, arm == *then),
                    _ => None,
                }
            }
            Decision::Branch { cond, truth, .. } => self.truth_conds(cond, truth),
        }
    }

    /// Conditions for the `i1` value `c` to be `truth`: a comparison, or a
    /// conjunction (`and`) when true / disjunction when false.
    fn truth_conds(&self, c: ValueId, truth: bool) -> Option<Vec<Cond>> {
        let f = &self.ka.func;
        let i = f.def_inst(c)?;
        match &f.inst(i).kind {
            InstKind::Cmp { pred, lhs, rhs } => linear::cmp_conds(f, *pred, *lhs, *rhs, truth),
            InstKind::Bin {
                op: crate::ir::BinOp::And,
                lhs,
                rhs,
            } if truth => {
                let mut a = self.truth_conds(*lhs, true)?;
                a.extend(self.truth_conds(*rhs, true)?);
                Some(a)
            }
            InstKind::Bin {
                op: crate::ir::BinOp::Or,
                lhs,
                rhs,
            } if !truth => {
                let mut a = self.truth_conds(*lhs, false)?;
                a.extend(self.truth_conds(*rhs, false)?);
                Some(a)
            }
            InstKind::Bin {
                op: crate::ir::BinOp::Xor,
                lhs,
                rhs,
            } if matches!(f.as_const(*rhs), Some(Const::Int(1, Ty::I1))) => {
                self.truth_conds(*lhs, !truth)
            }
            _ => None,
        }
    }

    /// Minimal sets of decisions that make the target uniform, smallest
    /// sets first, with their conditions and sampled coverage.
    fn abduce(&mut self, t: Target, decisions: &[Decision]) -> Vec<Candidate> {
        let conds: Vec<Option<Vec<Cond>>> = decisions.iter().map(|&d| self.conds_of(d)).collect();
        let usable: Vec<usize> = (0..decisions.len())
            .filter(|&i| conds[i].is_some())
            .collect();
        let samples = self.samples();
        let mut out = Vec::new();
        let mut analyses = 0;
        let mut working: Vec<Vec<usize>> = Vec::new();
        for size in 1..=MAX_SET.min(usable.len()) {
            for set in subsets(&usable, size) {
                if analyses >= MAX_ANALYSES || self.out_of_budget() {
                    break;
                }
                // One arm per decided value; supersets of working sets are not minimal.
                if !distinct_values(decisions, &set)
                    || working.iter().any(|w| w.iter().all(|x| set.contains(x)))
                {
                    continue;
                }
                analyses += 1;
                let ds: Vec<Decision> = set.iter().map(|&i| decisions[i]).collect();
                if !self.uniform_under(t, &ds) {
                    continue;
                }
                working.push(set.clone());
                let mut cs: Vec<Cond> = set
                    .iter()
                    .flat_map(|&i| conds[i].clone().unwrap_or_default())
                    .collect();
                simplify(&mut cs);
                // P must be a condition on the group: every atom uniform or
                // affine in the lane (else it only restates the target).
                let div = &self.ka.div;
                if cs.iter().any(|c| {
                    c.lin
                        .terms
                        .keys()
                        .any(|&v| matches!(div.shape(v), Shape::Varying { .. }))
                }) {
                    continue;
                }
                let (hits, known) = self.coverage_of(&cs, &samples);
                out.push(Candidate {
                    decisions: ds,
                    conds: cs,
                    hits,
                    known,
                });
            }
            if !out.is_empty() {
                break;
            }
        }
        out
    }

    /// Whether the divergence analysis finds the target uniform once the
    /// decisions are taken (decided values replaced by their arms).
    fn uniform_under(&mut self, t: Target, ds: &[Decision]) -> bool {
        self.meter.charge(budget::ANALYSIS_STEP);
        let f = apply(&self.ka.func, ds);
        let div = divergence::analyze(&f, &self.ka.cfg, self.opts.width);
        target_ok(&div, t)
    }

    fn samples(&self) -> Vec<Sample> {
        sample_groups(&self.ka.func, &self.ka.div, self.opts)
    }

    fn coverage_of(&self, cs: &[Cond], samples: &[Sample]) -> (u64, u64) {
        let f = &self.ka.func;
        let w = self.opts.width;
        let (mut hits, mut known) = (0, 0);
        'samples: for s in samples {
            for c in cs {
                for lane in 0..w {
                    match eval::cond(f, c, lane, s) {
                        Some(true) => {}
                        Some(false) => {
                            known += 1;
                            continue 'samples;
                        }
                        None => continue 'samples,
                    }
                }
            }
            known += 1;
            hits += 1;
        }
        (hits, known)
    }

    /// One query on the target's account.
    fn check(&mut self, s: &Solver) -> SatResult {
        self.queries += 1;
        self.meter.check(s, None)
    }

    /// `Some(Ok)`: proven; `Some(Err)`: refuted or unprovable; `None`: out of time.
    fn verify(
        &mut self,
        t: Target,
        c: &Candidate,
        rejected: &mut Vec<String>,
    ) -> Option<Result<Precondition, ()>> {
        let f = &self.ka.func;
        let w = self.opts.width;
        let namer = Namer::new(f, self.unit, self.kernel, self.stmt);
        let display = Namer::new(f, self.unit, self.kernel, None);
        let pivot = self.pivot(&c.conds);
        // Lower bounds on the lane's value first: `lo <= x && x < hi`.
        let mut sorted = Candidate {
            decisions: c.decisions.clone(),
            conds: c.conds.clone(),
            hits: c.hits,
            known: c.known,
        };
        sorted.conds.sort_by_key(
            |cd| match pivot.and_then(|p| cd.lin.terms.get(&p).copied()) {
                Some(k) if k > 0 => 0,
                Some(_) => 1,
                None => 2,
            },
        );
        let c = &sorted;
        let spell = |conds: &[Cond], exact: bool| -> Option<String> {
            let parts: Option<Vec<String>> = conds
                .iter()
                .map(|cd| {
                    let ok = cd.lin.terms.keys().all(|&v| namer.name(v, exact).is_some());
                    ok.then(|| {
                        linear::print_cond(cd, pivot, &|v| namer.name(v, exact).unwrap_or_default())
                    })
                })
                .collect();
            parts.map(|p| p.join(" && "))
        };
        let lane_text = spell(&c.conds, false);
        let shown = lane_text.clone().unwrap_or_else(|| {
            c.conds
                .iter()
                .map(|cd| {
                    linear::print_cond(cd, pivot, &|v| {
                        display
                            .name(v, false)
                            .unwrap_or_else(|| format!("%{}", v.0))
                    })
                })
                .collect::<Vec<_>>()
                .join(" && ")
        });
        // P at a lane implies every decision at that lane, for any lane
        // (one query with the lane as a variable).
        let mut enc = Enc::new(f, &self.ka.div, w, None);
        let mut pieces = Vec::new();
        let mut p_lane = Vec::new();
        for &d in &c.decisions {
            pieces.push(decision_holds(&mut enc, d)?);
        }
        for cd in &c.conds {
            p_lane.push(enc.cond(cd)?);
        }
        let pieces = Bool::and(&pieces);
        let p_parts = p_lane;
        let p_lane = Bool::and(&p_parts);
        let s = Solver::new();
        s.assert(enc.assumptions());
        s.assert(&p_lane);
        s.assert(pieces.not());
        let r = self.check(&s);
        if std::env::var_os("LANES_PRECOND_DEBUG").is_some() {
            eprintln!("verify {shown}: {r:?} at {:?}", self.start.elapsed());
        }
        match r {
            SatResult::Unsat => {}
            SatResult::Sat => {
                rejected.push(shown);
                return Some(Err(()));
            }
            SatResult::Unknown => {
                return if self.out_of_budget() {
                    None
                } else {
                    Some(Err(()))
                }
            }
        }
        // P must hold on every lane of some SIMD group of a launch, or it
        // is proven only vacuously (`lid == 0` on all lanes). P is affine in
        // the lane, so holding at the first and the last lane is enough.
        let mut ends = Vec::new();
        for lane in [0, w - 1] {
            let mut at = Enc::new(f, &self.ka.div, w, Some(lane));
            for cd in &c.conds {
                ends.push(at.cond(cd)?);
            }
            ends.push(at.assumptions());
        }
        let s = Solver::new();
        s.assert(Bool::and(&ends));
        match self.check(&s) {
            SatResult::Sat => {}
            SatResult::Unsat => {
                rejected.push(format!("{shown} (no SIMD group of a launch satisfies it)"));
                return Some(Err(()));
            }
            SatResult::Unknown if self.out_of_budget() => return None,
            SatResult::Unknown => return Some(Err(())),
        }
        // Gist: drop the conjuncts implied by the others and the context
        // of the target (gist.rs), then prove the shorter P the same way.
        let (gisted, context) = self.gist(t, &mut enc, c, &p_parts, &pieces);
        let (c, dropped) = match &gisted {
            Some((g, dropped)) => (g, &dropped[..]),
            None => (c, &[][..]),
        };
        let lane_text = if gisted.is_some() {
            spell(&c.conds, false)
        } else {
            lane_text
        };
        let Some(lane_text) = lane_text else {
            rejected.push(format!(
                "{shown} (proven, but not expressible where the fast path would go)"
            ));
            return Some(Err(()));
        };
        // The inserted check keeps the dropped conjuncts (see `exact`).
        let all: Vec<Cond> = c.conds.iter().chain(dropped).cloned().collect();
        let exact_text = spell(&all, true).or_else(|| spell(&c.conds, true));
        // The group form: each condition at the lane where it binds,
        // affine values extrapolated from lane 0.
        let mut at0 = Enc::new(f, &self.ka.div, w, Some(0));
        let group = self.group_form(
            &mut enc, &mut at0, c, &pieces, &context, pivot, &display, rejected,
        );
        let coverage = self.launch_coverage(&c.conds);
        let effect = match t {
            Target::Loop(_) => "the loop runs the same number of iterations on every lane",
            Target::Branch(_) => "the branch goes the same way on every lane",
            Target::Access(..) => "the access is a packed vector access",
        };
        Some(Ok(Precondition {
            lane: lane_text,
            exact: exact_text.unwrap_or_default(),
            group,
            rejected: std::mem::take(rejected),
            coverage,
            method: "pieces",
            effect: effect.into(),
        }))
    }

    /// The block the target is in (for an access: the one block of its
    /// loads and stores through `ptr`, if there is one).
    fn target_block(&self, t: Target) -> Option<BlockId> {
        let f = &self.ka.func;
        match t {
            Target::Loop(id) => Some(self.ka.cfg.loops().loops.get(id.0 as usize)?.header),
            Target::Branch(b) => Some(b),
            Target::Access(ptr, _) => {
                let mut found = None;
                for &b in self.ka.cfg.rpo() {
                    for &i in &f.block(b).insts {
                        let p = match &f.inst(i).kind {
                            InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. } => *ptr,
                            _ => continue,
                        };
                        if p == ptr && found.replace(b).is_some_and(|o| o != b) {
                            return None;
                        }
                    }
                }
                found
            }
        }
    }

    /// The gist of a proven candidate (gist.rs): when some conjuncts are
    /// implied by the others and the context at the target, and the rest
    /// is proven again, the candidate without them and the dropped
    /// conditions; and the context (true when nothing was dropped).
    fn gist(
        &mut self,
        t: Target,
        enc: &mut Enc<'_>,
        c: &Candidate,
        parts: &[Bool],
        pieces: &Bool,
    ) -> (Option<(Candidate, Vec<Cond>)>, Bool) {
        let none = (None, Bool::from_bool(true));
        if parts.len() != c.conds.len() || self.out_of_budget() {
            return none;
        }
        let Some(block) = self.target_block(t) else {
            return none;
        };
        let f = &self.ka.func;
        let mut facts = Vec::new();
        for (cond, truth) in super::gist::guard_edges(f, &self.ka.cfg, block) {
            if let Some(b) = enc.bool(cond) {
                facts.push(if truth { b } else { b.not() });
            }
        }
        // The id ranges are assumptions of the encoding already.
        let context = Bool::and(&facts);
        let base = Bool::and(&[enc.assumptions(), context.clone()]);
        let s = Solver::new();
        let keep = super::gist::drop_implied(&s, &base, parts, |s| self.check(s));
        if keep.iter().all(|&k| k) {
            return none;
        }
        let mut kept = Vec::new();
        let mut dropped = Vec::new();
        let mut kept_parts = Vec::new();
        for (i, cd) in c.conds.iter().enumerate() {
            if keep[i] {
                kept.push(cd.clone());
                kept_parts.push(parts[i].clone());
            } else {
                dropped.push(cd.clone());
            }
        }
        // The same proof as for P, with the context assumed.
        let s = Solver::new();
        s.assert(&base);
        s.assert(Bool::and(&kept_parts));
        s.assert(pieces.not());
        if self.check(&s) != SatResult::Unsat {
            return none;
        }
        let g = Candidate {
            decisions: c.decisions.clone(),
            conds: kept,
            hits: c.hits,
            known: c.known,
        };
        (Some((g, dropped)), context)
    }

    /// The lane-varying atom to solve conditions for (the affine one).
    fn pivot(&self, cs: &[Cond]) -> Option<ValueId> {
        let div = &self.ka.div;
        cs.iter()
            .flat_map(|c| c.lin.terms.keys())
            .copied()
            .find(|&v| !div.is_uniform(v))
    }

    #[allow(clippy::too_many_arguments)]
    fn group_form(
        &mut self,
        enc: &mut Enc<'_>,
        at0: &mut Enc<'_>,
        c: &Candidate,
        pieces: &Bool,
        context: &Bool,
        pivot: Option<ValueId>,
        display: &Namer<'_>,
        rejected: &mut Vec<String>,
    ) -> Option<String> {
        let div = &self.ka.div;
        let w = i64::from(self.opts.width);
        let mut parts = Vec::new();
        let mut formulas = Vec::new();
        for cd in &c.conds {
            // Σ coefficient·stride: how the condition moves across lanes.
            let mut slope = 0i64;
            for (&v, &k) in &cd.lin.terms {
                match div.shape(v) {
                    Shape::Strided { stride, .. } => slope += k * stride,
                    Shape::Bottom => {}
                    Shape::Varying { .. } => return None,
                }
            }
            let lane = if slope >= 0 { 0 } else { w - 1 };
            // Display: lane-varying atoms become `name0` (+ stride·lane).
            let name = |v: ValueId| {
                let base = display
                    .name(v, false)
                    .unwrap_or_else(|| format!("%{}", v.0));
                match div.shape(v) {
                    Shape::Strided { stride, .. } if stride != 0 && lane != 0 => {
                        format!("{base}0 + {}", stride * lane)
                    }
                    _ if !div.is_uniform(v) => format!("{base}0"),
                    _ => base,
                }
            };
            parts.push(linear::print_cond(cd, pivot, &name));
            // Formula: atoms at lane 0, plus stride·lane for varying ones.
            let mut sum = Int::from_i64(cd.lin.k);
            for (&v, &k) in &cd.lin.terms {
                let a = at0.atom(v, cd.ext)?;
                let stride = match div.shape(v) {
                    Shape::Strided { stride, .. } => stride,
                    _ => 0,
                };
                sum += (a + Int::from_i64(stride * lane)) * Int::from_i64(k);
            }
            formulas.push(sum.ge(Int::from_i64(0)));
        }
        let text = parts.join(" && ");
        let s = Solver::new();
        s.assert(enc.assumptions());
        s.assert(at0.assumptions());
        s.assert(context);
        s.assert(Bool::and(&formulas));
        s.assert(pieces.not());
        match self.check(&s) {
            SatResult::Unsat => Some(text),
            _ => {
                rejected.push(format!(
                    "{text} (for the group, from lanes 0 and {}: refuted)",
                    w - 1
                ));
                None
            }
        }
    }

    fn launch_coverage(&self, cs: &[Cond]) -> Option<Coverage> {
        let launch = self.opts.launch.as_ref()?;
        let f = &self.ka.func;
        let params = launch_params(f, launch);
        let g0 = *launch.global.first()? as i64;
        let w = i64::from(self.opts.width);
        let mut global = [1i64; 3];
        for (i, g) in launch.global.iter().take(3).enumerate() {
            global[i] = *g as i64;
        }
        let rows: i64 = global[1] * global[2];
        let (mut hits, mut total) = (0u64, 0u64);
        let mut x0 = 0;
        while x0 < g0 {
            let s = Sample {
                params: params.clone(),
                gid0: x0,
                global,
            };
            let lanes = (g0 - x0).min(w) as u32;
            let ok = cs
                .iter()
                .all(|c| (0..lanes).all(|l| eval::cond(f, c, l, &s) == Some(true)));
            total += 1;
            hits += u64::from(ok);
            x0 += w;
        }
        // Every row of a 2-D/3-D launch has the same groups in dimension 0.
        Some(Coverage {
            groups: hits * rows as u64,
            total: total * rows as u64,
        })
    }

    /// CEGIS ([`super::spec`]) over the group's ids and the uniform values
    /// the target depends on: the branch condition the same on every lane,
    /// or the access contiguous or uniform; every clause proven by Z3.
    fn cegis(&mut self, t: Target) -> Outcome {
        let f = &self.ka.func;
        let goal = match t {
            Target::Branch(b) => match f.terminator(b).map(|i| &f.inst(i).kind) {
                Some(InstKind::CondBr { cond, .. }) => super::spec::Goal::Branch(*cond),
                _ => return Outcome::NotFound("not a two-way branch".into()),
            },
            Target::Access(ptr, size) => super::spec::Goal::Access(ptr, size),
            Target::Loop(_) => {
                return Outcome::NotFound(
                    "it depends on no min/max/select piece (synthesis does not model loops)".into(),
                )
            }
        };
        let r = super::spec::synthesize(
            f,
            &self.ka.div,
            self.unit,
            self.kernel,
            self.stmt,
            self.opts.width,
            goal,
            self.meter,
            self.hints,
        );
        self.queries += r.queries;
        if let Some(h) = r.found {
            if !self.hints.contains(&h) {
                self.hints.push(h);
            }
        }
        r.outcome
    }
}

fn launch_params(f: &Function, launch: &super::Launch) -> FxHashMap<u32, i64> {
    let mut m = FxHashMap::default();
    for (i, p) in f.params.iter().enumerate() {
        if let Some(&v) = launch.args.get(p.name.as_str()) {
            m.insert(i as u32, v);
        }
    }
    m
}

/// Sampled SIMD groups: the launch hint, else a 1-D launch of 4096
/// work-items with size-like values for the integer parameters.
fn sample_groups(f: &Function, div: &Divergence, opts: &Options) -> Vec<Sample> {
    let w = i64::from(opts.width);
    let (global, fixed) = match &opts.launch {
        Some(l) => {
            let mut g = [1i64; 3];
            for (i, x) in l.global.iter().take(3).enumerate() {
                g[i] = *x as i64;
            }
            (g, launch_params(f, l))
        }
        None => ([4096, 1, 1], FxHashMap::default()),
    };
    let ints: Vec<u32> = f
        .params
        .iter()
        .enumerate()
        .filter(|(i, p)| p.ty.is_int() && p.ty != Ty::I1 && !fixed.contains_key(&(*i as u32)))
        .map(|(i, _)| i as u32)
        .collect();
    // Parameters compared with lane-varying values are problem sizes: the
    // launch covers them. The others are small knobs (radii, strides).
    let size_like = size_like_params(f, div);
    let g = global[0];
    let sizes = [g, g - 1, g - 7, g / 2 + 3];
    let knobs = [1, 2, 3, 5, 17, 64];
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut out = Vec::new();
    let combos = 48;
    for _ in 0..combos {
        let mut params = fixed.clone();
        for &p in &ints {
            let choices: &[i64] = if size_like.contains(&p) {
                &sizes
            } else {
                &knobs
            };
            let v = choices[(next() % choices.len() as u64) as usize];
            params.insert(p, v);
        }
        let groups = (global[0] + w - 1) / w;
        let step = (groups / 32).max(1);
        let mut g = 0;
        while g < groups {
            out.push(Sample {
                params: params.clone(),
                gid0: g * w,
                global,
            });
            g += step;
        }
    }
    out
}

fn subsets(items: &[usize], size: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::new();
    fn rec(
        items: &[usize],
        size: usize,
        from: usize,
        cur: &mut Vec<usize>,
        out: &mut Vec<Vec<usize>>,
    ) {
        if cur.len() == size {
            out.push(cur.clone());
            return;
        }
        for i in from..items.len() {
            cur.push(items[i]);
            rec(items, size, i + 1, cur, out);
            cur.pop();
        }
    }
    rec(items, size, 0, &mut cur, &mut out);
    out
}

fn distinct_values(ds: &[Decision], set: &[usize]) -> bool {
    let mut seen = BTreeSet::new();
    set.iter().all(|&i| match ds[i] {
        Decision::Piece { value, .. } => seen.insert((0, value.0)),
        Decision::Branch { block, .. } => seen.insert((1, block.0)),
    })
}

/// `f` with the decisions taken.
fn apply(f: &Function, ds: &[Decision]) -> Function {
    let mut g = f.clone();
    let mut subst: FxHashMap<ValueId, ValueId> = FxHashMap::default();
    for d in ds {
        match *d {
            Decision::Piece { value, arm } => {
                subst.insert(value, arm);
            }
            Decision::Branch { block, truth, .. } => {
                let c = g.add_const(Const::Int(u64::from(truth), Ty::I1));
                if let Some(t) = g.terminator(block) {
                    if let InstKind::CondBr { cond, .. } = &mut g.insts[t.index()].kind {
                        *cond = c;
                    }
                }
            }
        }
    }
    if !subst.is_empty() {
        for inst in g.insts.iter_mut() {
            inst.kind.for_each_operand_mut(|v| {
                while let Some(&n) = subst.get(v) {
                    if n == *v {
                        break;
                    }
                    *v = n;
                }
            });
        }
    }
    g
}

fn target_ok(div: &Divergence, t: Target) -> bool {
    match t {
        Target::Loop(id) => !div.divergent_loops.contains_key(&id),
        Target::Branch(b) => !div.divergent_branches.contains(&b),
        Target::Access(ptr, size) => good_access(div, ptr, size),
    }
}

/// The formula "decision `d` holds at `lane`" on the original program.
fn decision_holds(enc: &mut Enc<'_>, d: Decision) -> Option<Bool> {
    match d {
        Decision::Piece { value, arm } => {
            let v = enc.int(value)?;
            let a = enc.int(arm)?;
            Some(v.eq(&a))
        }
        Decision::Branch { cond, truth, .. } => {
            let c = enc.bool(cond)?;
            Some(if truth { c } else { c.not() })
        }
    }
}

/// Drops conditions implied by another one (same atoms, weaker constant)
/// and duplicates.
fn simplify(cs: &mut Vec<Cond>) {
    cs.sort();
    cs.dedup();
    let all = cs.clone();
    cs.retain(|c| !all.iter().any(|o| o != c && c.implied_by(o)));
}

/// Parameters that occur in a comparison, `min` or `max` against a
/// lane-varying value.
fn size_like_params(f: &Function, div: &Divergence) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for inst in &f.insts {
        let (a, b) = match &inst.kind {
            InstKind::Cmp { lhs, rhs, .. } => (*lhs, *rhs),
            InstKind::Math {
                func: MathFn::SMin | MathFn::SMax | MathFn::UMin | MathFn::UMax,
                args,
            } if args.len() == 2 => (args[0], args[1]),
            _ => continue,
        };
        for (x, y) in [(a, b), (b, a)] {
            if div.is_uniform(x) || !div.is_uniform(y) {
                continue;
            }
            if let Some(l) = linear::lin(f, y, linear::Ext::Signed) {
                for v in l.terms.keys() {
                    if let Some(ValueDef::Param(i)) = f.values.get(v.index()).map(|x| &x.def) {
                        out.insert(*i);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinOp, CmpPred, Src, WorkItem};
    use crate::report::KernelAnalysis;

    /// `for (i = 0; i < get_local_id(0); i++) { [barrier] }`: a divergent
    /// loop, a fast-path target unless it holds a barrier.
    fn lid_loop(with_barrier: bool) -> KernelAnalysis {
        let src = |n: u32| Src {
            node: lanes_frontend::ast::NodeId(n),
            span: Span::default(),
        };
        let mut f = Function::new("k", Span::default());
        let entry = f.add_block("entry");
        let header = f.add_block("header");
        let body = f.add_block("body");
        let exit = f.add_block("exit");
        f.entry = entry;
        let d = f.const_int(0, Ty::I32);
        let (_, lid) = f.append(
            entry,
            InstKind::WorkItem {
                query: WorkItem::LocalId,
                dim: Some(d),
            },
            Ty::I64,
            src(1),
        );
        f.append(entry, InstKind::Br(header), Ty::Void, src(2));
        let zero = f.const_int(0, Ty::I64);
        let one = f.const_int(1, Ty::I64);
        let (phi, i) = f.append(header, InstKind::Phi { incoming: vec![] }, Ty::I64, src(3));
        let (_, c) = f.append(
            header,
            InstKind::Cmp {
                pred: CmpPred::Slt,
                lhs: i.unwrap(),
                rhs: lid.unwrap(),
            },
            Ty::I1,
            src(4),
        );
        f.append(
            header,
            InstKind::CondBr {
                cond: c.unwrap(),
                then: body,
                els: exit,
            },
            Ty::Void,
            src(5),
        );
        if with_barrier {
            f.append(body, InstKind::Barrier { flags: 1 }, Ty::Void, src(6));
        }
        let (_, next) = f.append(
            body,
            InstKind::Bin {
                op: BinOp::Add,
                lhs: i.unwrap(),
                rhs: one,
            },
            Ty::I64,
            src(7),
        );
        f.append(body, InstKind::Br(header), Ty::Void, src(8));
        f.append(exit, InstKind::Ret, Ty::Void, src(9));
        f.inst_mut(phi).kind = InstKind::Phi {
            incoming: vec![(entry, zero), (body, next.unwrap())],
        };
        crate::cfg::canonicalize(&mut f).unwrap();
        let cfg = crate::cfg::Cfg::compute(&f);
        let div = divergence::analyze(&f, &cfg, 8);
        KernelAnalysis {
            func: f,
            cfg,
            div,
            wg: None,
        }
    }

    #[test]
    fn loops_with_a_barrier_get_no_fast_path() {
        let plain = targets(&lid_loop(false));
        assert!(plain.iter().any(|t| t.1 == TargetKind::Loop), "{plain:?}");
        let synced = targets(&lid_loop(true));
        assert!(synced.iter().all(|t| t.1 != TargetKind::Loop), "{synced:?}");
    }
}
