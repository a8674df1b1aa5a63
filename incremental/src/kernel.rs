//! Per-kernel queries: inputs, analysis in item-relative coordinates, vector
//! IR, and the report mapped back to the current text.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use lanes_frontend::diag::Diagnostic;
use lanes_frontend::hir;
use lanes_frontend::lexer::{Token, TokenKind};
use lanes_frontend::source::{FileId, SourceFile, SourceMap, Span};
use lanes_vectorizer::report::{KernelAnalysis, KernelReport, Step};
use lanes_vectorizer::vectorize::{vectorize, VectorFunction, VectorizeError};
use smol_str::SmolStr;

use crate::db::{Db, File};
use crate::items::{call_graph, item_body, parse, ItemBody, ItemKey, ItemPos, Parsed};

/// A kernel of a file, by name: the key of the per-kernel queries.
#[salsa::interned(debug)]
pub struct Kernel<'db> {
    #[returns(copy)]
    pub file: File,
    #[returns(ref)]
    pub name: SmolStr,
}

/// What a kernel's analysis depends on, without positions: the bodies of
/// the kernel, of the functions it calls transitively, and of every
/// declaration, in source order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInputs {
    pub keys: Vec<ItemKey>,
    pub bodies: Vec<Arc<ItemBody>>,
}

/// `None` when the kernel does not exist or the file's items cannot be cut
/// apart reliably (the analysis then uses the whole unit).
#[salsa::tracked(returns(ref))]
pub fn kernel_inputs<'db>(db: &'db dyn Db, kernel: Kernel<'db>) -> Option<KernelInputs> {
    let file = kernel.file(db);
    let name = kernel.name(db);
    let g = call_graph(db, file);
    if g.opaque || !g.kernels.contains(name) {
        return None;
    }
    let needed: BTreeSet<SmolStr> = g.closure(name).into_iter().collect();
    let mut keys = Vec::new();
    let mut bodies = Vec::new();
    for key in &g.items {
        let take = match key {
            ItemKey::Function(n) => needed.contains(n),
            ItemKey::Decl(_) => !g.garbage.contains(key),
        };
        if take {
            if g.shared.contains(key) {
                return None;
            }
            let body = item_body(db, file, key.clone()).clone()?;
            keys.push(key.clone());
            bodies.push(body);
        }
    }
    Some(KernelInputs { keys, bodies })
}

/// Which body a file of the small unit holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    /// The own text of dependency `d`.
    Own(usize),
    /// Foreign file `k` of dependency `d`.
    Foreign(usize, usize),
}

/// A kernel lowered and analysed, in the coordinates of the unit it was
/// analysed in (see [`SpanMap`]).
pub struct Analysis {
    pub name: SmolStr,
    /// `None`: the whole unit's coordinates (no mapping needed).
    slots: Option<Vec<Slot>>,
    /// The analysis, when lowering succeeded.
    pub analysis: Option<KernelAnalysis>,
    /// The checked unit the kernel was analysed in and the kernel's id there
    /// (what precondition inference needs besides the analysis).
    pub unit: Option<(UnitRef, hir::FuncId)>,
    /// The report, or why the vectorizer refused the kernel.
    pub result: KernelResult,
    /// True when the kernel was analysed in a unit of its own bodies (the
    /// incremental path), false for the whole-unit fallback.
    pub incremental: bool,
}

/// A kernel's report, or the errors of a kernel the vectorizer refuses
/// (`L0920`), exactly as `lanes check` gets them from the pipeline
/// ([`lanes_pipeline::analyse`]).
pub use lanes_pipeline::KernelResult;

/// The unit an [`Analysis`] was made in: the kernel's small unit, or the
/// whole file's (shared, not copied).
#[derive(Clone)]
pub enum UnitRef {
    Small(Arc<hir::Unit>),
    Whole(Arc<Parsed>),
}

impl UnitRef {
    pub fn hir(&self) -> &hir::Unit {
        match self {
            UnitRef::Small(u) => u,
            UnitRef::Whole(p) => &p.unit.hir,
        }
    }
}

/// Lowering, canonicalization, divergence analysis and report of one kernel.
/// Re-runs only when [`kernel_inputs`] (or the width) changes.
#[salsa::tracked(returns(ref), no_eq)]
pub fn kernel_analysis<'db>(db: &'db dyn Db, kernel: Kernel<'db>) -> Arc<Analysis> {
    let width = db.config().width(db);
    let name = kernel.name(db).clone();
    if let Some(inputs) = kernel_inputs(db, kernel) {
        db.unwind_if_revision_cancelled();
        if let Some(a) = analyse_small(db, &name, inputs, width) {
            return Arc::new(a);
        }
    }
    if call_graph(db, kernel.file(db)).has_errors {
        // The kernel's own code (or what it needs) has errors, or cannot be
        // cut from the file's: not analysed.
        return Arc::new(Analysis {
            name,
            slots: None,
            analysis: None,
            unit: None,
            result: Err(Vec::new()),
            incremental: false,
        });
    }
    // The whole unit: correct, but depends on every edit of the file.
    let p = parse(db, kernel.file(db));
    db.unwind_if_revision_cancelled();
    Arc::new(analyse_in(
        db,
        UnitRef::Whole(p.clone()),
        &p.unit.sources,
        &name,
        width,
        None,
    ))
}

/// Builds the small unit of the kernel's bodies, checks it and analyses the
/// kernel there. `None` if the small unit does not check cleanly.
fn analyse_small(
    db: &dyn Db,
    name: &SmolStr,
    inputs: &KernelInputs,
    width: u32,
) -> Option<Analysis> {
    let mut sources = SourceMap::new();
    let mut tokens: Vec<Token> = Vec::new();
    let mut slots = Vec::new();
    let mut last_own: Option<(FileId, u32)> = None;
    for (d, body) in inputs.bodies.iter().enumerate() {
        let base = sources.len() as u32;
        let own = sources.add(SourceFile::new(
            body.file_name.clone(),
            None,
            body.text.clone(),
        ));
        last_own = Some((own, body.text.len() as u32));
        slots.push(Slot::Own(d));
        for (k, f) in body.foreign.iter().enumerate() {
            sources.add(SourceFile::new(
                f.name.clone(),
                f.path.clone(),
                f.text.clone(),
            ));
            slots.push(Slot::Foreign(d, k));
        }
        tokens.extend(body.tokens.iter().map(|t| {
            let mut t = t.clone();
            t.span.file = FileId(t.span.file.0 + base);
            t.spelling = t.span;
            t
        }));
    }
    let (eof_file, eof_at) = last_own?;
    let eof = Span::new(eof_file, eof_at, eof_at);
    tokens.push(Token {
        kind: TokenKind::Eof,
        text: SmolStr::default(),
        span: eof,
        spelling: eof,
        expansion: None,
        line_start: true,
        leading_space: false,
    });
    let mut diags = Vec::new();
    let ast = lanes_frontend::parser::parse(&tokens, &mut diags);
    let unit = lanes_frontend::sema::check(&ast, &mut diags);
    if diags.iter().any(Diagnostic::is_error) {
        return None;
    }
    db.unwind_if_revision_cancelled();
    let mut a = analyse_in(
        db,
        UnitRef::Small(Arc::new(unit)),
        &sources,
        name,
        width,
        Some(slots),
    );
    a.incremental = true;
    Some(a)
}

fn analyse_in(
    db: &dyn Db,
    unit_ref: UnitRef,
    sources: &SourceMap,
    name: &SmolStr,
    width: u32,
    slots: Option<Vec<Slot>>,
) -> Analysis {
    let unit = unit_ref.hir();
    let k = unit
        .kernels()
        .into_iter()
        .find(|&k| unit.function(k).name == *name);
    let Some(k) = k else {
        return Analysis {
            name: name.clone(),
            slots,
            analysis: None,
            unit: None,
            result: Err(Vec::new()),
            incremental: false,
        };
    };
    // The pipeline's first step, as every face runs it.
    let (analysis, result) = lanes_pipeline::analyse(unit, k, sources, width);
    db.unwind_if_revision_cancelled();
    let unit = analysis.is_some().then(|| (unit_ref.clone(), k));
    Analysis {
        name: name.clone(),
        slots,
        analysis,
        unit,
        result,
        incremental: false,
    }
}

/// A kernel in vector IR, in the coordinates of its [`Analysis`].
pub struct VectorIr {
    pub result: Result<VectorFunction, VectorizeError>,
}

/// The vector IR of a kernel (`None` when the file has errors or the
/// kernel was not lowered).
#[salsa::tracked(returns(ref), no_eq)]
pub fn kernel_vector_ir<'db>(db: &'db dyn Db, kernel: Kernel<'db>) -> Option<Arc<VectorIr>> {
    if !analysable(db, kernel) {
        return None;
    }
    let a = kernel_analysis(db, kernel);
    let ka = a.analysis.as_ref()?;
    db.unwind_if_revision_cancelled();
    let span = ka.func.span;
    let result = match catch_unwind(AssertUnwindSafe(|| vectorize(&ka.func, &ka.cfg, &ka.div))) {
        Ok(r) => r,
        Err(_) => Err(VectorizeError {
            span,
            message: "internal error in the vectorizer".to_string(),
        }),
    };
    Some(Arc::new(VectorIr { result }))
}

/// Where each dependency of a kernel is in the current text (own file and
/// start, and the files of its foreign slots), in [`KernelInputs`] order.
#[salsa::tracked(returns(ref))]
pub fn kernel_positions<'db>(
    db: &'db dyn Db,
    kernel: Kernel<'db>,
) -> Option<Vec<(ItemPos, Vec<FileId>)>> {
    let inputs = kernel_inputs(db, kernel).as_ref()?;
    let p = parse(db, kernel.file(db));
    inputs
        .keys
        .iter()
        .map(|k| p.item(k).map(|e| (e.pos, e.foreign.clone())))
        .collect()
}

/// Maps spans of a kernel's [`Analysis`] (and vector IR) to the current text.
#[derive(Clone, Debug)]
pub struct SpanMap {
    slots: Option<Vec<Slot>>,
    positions: Vec<(ItemPos, Vec<FileId>)>,
}

impl SpanMap {
    /// The span in the current text.
    pub fn map(&self, s: Span) -> Span {
        let Some(slots) = &self.slots else {
            return s;
        };
        match slots.get(s.file.0 as usize) {
            Some(&Slot::Own(d)) => match self.positions.get(d) {
                Some((pos, _)) => Span::new(pos.file, s.start + pos.start, s.end + pos.start),
                None => s,
            },
            Some(&Slot::Foreign(d, k)) => match self.positions.get(d).and_then(|p| p.1.get(k)) {
                Some(&f) => Span::new(f, s.start, s.end),
                None => s,
            },
            None => s,
        }
    }

    /// True when the analysis ran on the whole unit (spans are already
    /// those of the current text).
    pub fn is_identity(&self) -> bool {
        self.slots.is_none()
    }
}

/// The span map of a kernel's current analysis.
pub fn span_map(db: &dyn Db, kernel: Kernel<'_>) -> SpanMap {
    let a = kernel_analysis(db, kernel);
    let positions = match &a.slots {
        Some(_) => kernel_positions(db, kernel).clone().unwrap_or_default(),
        None => Vec::new(),
    };
    SpanMap {
        slots: a.slots.clone(),
        positions,
    }
}

/// Whether a kernel of the file is analysed: it exists, and either the
/// file has no errors or none of the items the kernel needs holds one (and
/// its own small unit checks cleanly). Decided per kernel so that an error
/// while typing in one kernel leaves every other kernel's facts.
pub fn analysable(db: &dyn Db, kernel: Kernel<'_>) -> bool {
    let g = call_graph(db, kernel.file(db));
    if !g.kernels.contains(kernel.name(db)) {
        return false;
    }
    if !g.has_errors {
        return true;
    }
    let Some(inputs) = kernel_inputs(db, kernel) else {
        return false;
    };
    if inputs.keys.iter().any(|k| g.broken.contains(k)) {
        return false;
    }
    kernel_analysis(db, kernel).incremental
}

/// The kernel's report with the spans of the current text; `None` when the
/// kernel is not [`analysable`] or the file has no such kernel.
#[salsa::tracked(returns(ref), no_eq)]
pub fn kernel_report<'db>(db: &'db dyn Db, kernel: Kernel<'db>) -> Option<Arc<KernelResult>> {
    if !analysable(db, kernel) {
        return None;
    }
    let a = kernel_analysis(db, kernel);
    let map = span_map(db, kernel);
    let result = match &a.result {
        Ok(r) => {
            let mut r = if map.is_identity() {
                r.clone()
            } else {
                map_report(r, &|s| Some(map.map(s)))
            };
            if let Some(found) = crate::precond::kernel_findings(db, kernel) {
                lanes_pipeline::complete(&mut r, found);
            }
            Ok(r)
        }
        Err(ds) => Err(ds
            .iter()
            .filter_map(|d| map_diag(d, &|s| Some(map.map(s))))
            .collect()),
    };
    Some(Arc::new(result))
}

/// The kernels of a file, in the order `lanes check` analyses them.
pub fn kernels(db: &dyn Db, file: File) -> Vec<Kernel<'_>> {
    call_graph(db, file)
        .kernels
        .iter()
        .map(|n| Kernel::new(db, file, n.clone()))
        .collect()
}

/// Every analysable kernel's result, in order.
pub fn file_reports(db: &dyn Db, file: File) -> Vec<(SmolStr, Arc<KernelResult>)> {
    kernels(db, file)
        .into_iter()
        .filter_map(|k| {
            let r = kernel_report(db, k).clone()?;
            Some((k.name(db).clone(), r))
        })
        .collect()
}

/// All diagnostics of a file, as `lanes check` reports them: the front
/// end's, then (when there is no error) each kernel's, in kernel order.
pub fn file_diagnostics(db: &dyn Db, file: File) -> Vec<Diagnostic> {
    let unit = &parse(db, file).unit;
    if unit.has_errors() {
        return unit.diagnostics.clone();
    }
    live_diagnostics(db, file)
}

/// What the editor shows: the front end's diagnostics, then those of every
/// [`analysable`] kernel, also while other kernels have errors (where
/// `lanes check` keeps its stricter rule, [`file_diagnostics`]).
pub fn live_diagnostics(db: &dyn Db, file: File) -> Vec<Diagnostic> {
    let p = parse(db, file);
    let mut out = p.unit.diagnostics.clone();
    for (_, r) in file_reports(db, file) {
        match &*r {
            Ok(r) => out.extend(r.diagnostics.iter().cloned()),
            Err(ds) => out.extend(ds.iter().cloned()),
        }
    }
    out
}

/// A span of an analysis in current coordinates; `None` for a fact whose
/// place is gone (a stale analysis over text that changed since).
pub(crate) type MapSpan<'a> = &'a dyn Fn(Span) -> Option<Span>;

/// Maps the steps of a reason chain in place (the report was cloned
/// already), leaving out those whose place does not map.
fn map_steps(steps: &mut Vec<Step>, m: MapSpan<'_>) {
    steps.retain_mut(|s| match m(s.span) {
        Some(span) => {
            s.span = span;
            true
        }
        None => false,
    });
}

pub(crate) fn map_diag(d: &Diagnostic, m: MapSpan<'_>) -> Option<Diagnostic> {
    let mut d = d.clone();
    map_diag_in_place(&mut d, m).then_some(d)
}

/// [`map_diag`] on a diagnostic of a cloned report: false when its place
/// does not map.
fn map_diag_in_place(d: &mut Diagnostic, m: MapSpan<'_>) -> bool {
    let Some(span) = m(d.span) else {
        return false;
    };
    d.span = span;
    d.related.retain_mut(|r| match m(r.span) {
        Some(s) => {
            r.span = s;
            true
        }
        None => false,
    });
    true
}

/// The report in current coordinates, sorted as [`report`] sorts (by file,
/// then offset): the small unit numbers files differently. Facts whose
/// place does not map are left out.
pub(crate) fn map_report(r: &KernelReport, m: MapSpan<'_>) -> KernelReport {
    let mut r = r.clone();
    r.span = m(r.span).unwrap_or(r.span);
    r.values.retain_mut(|v| {
        let Some(s) = m(v.span) else { return false };
        v.span = s;
        map_steps(&mut v.reason, m);
        true
    });
    r.values.sort_by(|a, b| {
        (a.span.file, a.span.start, &a.name).cmp(&(b.span.file, b.span.start, &b.name))
    });
    r.branches.retain_mut(|b| {
        let Some(s) = m(b.span) else { return false };
        b.span = s;
        map_steps(&mut b.reason, m);
        b.any_guard = b.any_guard.and_then(m);
        true
    });
    r.branches.sort_by_key(|b| (b.span.file, b.span.start));
    r.loops.retain_mut(|l| {
        let Some(s) = m(l.span) else { return false };
        l.span = s;
        map_steps(&mut l.reason, m);
        l.divergent_exits = l.divergent_exits.iter().filter_map(|&e| m(e)).collect();
        true
    });
    r.loops.sort_by_key(|l| (l.span.file, l.span.start));
    r.accesses.retain_mut(|a| {
        let Some(s) = m(a.span) else { return false };
        a.span = s;
        map_steps(&mut a.reason, m);
        a.masked_by = a.masked_by.and_then(m);
        true
    });
    r.accesses
        .sort_by_key(|a| (a.span.file, a.span.start, a.kind));
    r.barriers.retain_mut(|b| {
        let Some(s) = m(b.span) else { return false };
        b.span = s;
        map_steps(&mut b.reason, m);
        true
    });
    r.barriers.sort_by_key(|b| (b.span.file, b.span.start));
    r.diagnostics.retain_mut(|d| map_diag_in_place(d, m));
    // Stable, like the report's own sort, so that ties keep their order.
    r.diagnostics
        .sort_by_key(|d| (d.span.file, d.span.start, d.code));
    r
}

/// The names of the queries keyed by a [`Kernel`].
pub(crate) fn is_kernel_query(name: &str) -> bool {
    matches!(
        name,
        "kernel_inputs"
            | "kernel_analysis"
            | "kernel_vector_ir"
            | "kernel_positions"
            | "kernel_report"
            | "kernel_findings"
    )
}

pub(crate) fn kernel_name_of(db: &dyn Db, id: salsa::Id) -> Option<String> {
    use salsa::plumbing::FromId;
    let k = Kernel::from_id(id);
    Some(k.name(db).to_string())
}
