//! The one pipeline of lanes: what every face (`lanes check` in every
//! format, `lanes explain`, `lanes build`, the editor) runs on a file, and
//! the settings model they all read ([`settings`]).
//!
//! Per kernel, in file order: lowering and analysis ([`analyse`]), the
//! report, precondition inference on the file's budget ([`preconditions`]),
//! the report completed with the findings ([`complete`]); then, for the
//! file, configured severities and suppression pragmas ([`suppress`]).
//! [`run_file`] chains the steps for a checked unit; the editor's database
//! (lanes-db) calls the same steps one query at a time, so that it can
//! cache them.
//!
//! This crate sits right after the vectorizer (frontend → vectorizer →
//! pipeline → codegen users, incremental, diagnostics, lsp, cli): it uses
//! only the front end and the vectorizer, and every face can reach it.

pub mod cache;
pub mod settings;
mod tree;

use std::panic::{catch_unwind, AssertUnwindSafe};

use lanes_frontend::diag::{Code, Diagnostic};
use lanes_frontend::hir;
use lanes_frontend::source::{SourceMap, Span};
use lanes_frontend::unit::CheckedUnit;
use lanes_vectorizer::precond::{self, Finding, Meter};
use lanes_vectorizer::report::{KernelAnalysis, KernelReport};
use smol_str::SmolStr;

pub use cache::Cache;
pub use settings::{CommandLine, Layer, Settings, SettingsError, Specialize};

/// A kernel's report, or the errors of a kernel the vectorizer refuses
/// (`L0920`).
pub type KernelResult = Result<KernelReport, Vec<Diagnostic>>;

/// Lowering, canonicalization, the analyses and the report of one kernel.
/// A panic in them (a bug) becomes an `L0920` error on the kernel instead
/// of taking the face down.
pub fn analyse(
    unit: &hir::Unit,
    k: hir::FuncId,
    sources: &SourceMap,
    width: u32,
) -> (Option<KernelAnalysis>, KernelResult) {
    analyse_with(unit, k, sources, width, &Default::default())
}

/// [`analyse`] with the target's lowering options.
pub fn analyse_with(
    unit: &hir::Unit,
    k: hir::FuncId,
    sources: &SourceMap,
    width: u32,
    lowering: &lanes_vectorizer::lower::Options,
) -> (Option<KernelAnalysis>, KernelResult) {
    let span = unit.function(k).name_span;
    let analysed = guarded(span, || {
        lanes_vectorizer::report::analyze_kernel_with(unit, k, width, lowering)
    })
    .and_then(|r| r);
    match analysed {
        Ok(ka) => {
            match guarded(span, || {
                lanes_vectorizer::report::report(&ka, unit, k, sources)
            }) {
                Ok(r) => (Some(ka), Ok(r)),
                Err(e) => (Some(ka), Err(e)),
            }
        }
        Err(e) => (None, Err(e)),
    }
}

fn guarded<T>(span: Span, f: impl FnOnce() -> T) -> Result<T, Vec<Diagnostic>> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let what = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        vec![Diagnostic::new(
            Code::UnsupportedByVectorizer,
            span,
            format!("internal error in the vectorizer: {what}"),
        )]
    })
}

/// Precondition inference for one analysed kernel on the file's account
/// (`meter`: kernels of a file spend it in file order). Each kernel runs on
/// a thread of its own, so on a fresh Z3 context: its findings depend on
/// the kernel and on the budget left, never on what the solver did before
/// (in another face, another file or another kernel). A panic in the
/// inference is a bug: it gives no findings.
pub fn preconditions(
    ka: &KernelAnalysis,
    unit: &hir::Unit,
    k: hir::FuncId,
    options: &precond::Options,
    meter: &mut Meter,
) -> Vec<Finding> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                catch_unwind(AssertUnwindSafe(|| {
                    precond::infer_with(ka, unit, k, options, meter)
                }))
                .unwrap_or_default()
            })
            .join()
            .unwrap_or_default()
    })
}

/// The report with the findings: loop preconditions filled in, `L0301`/
/// `L0302` added, diagnostics in source order.
pub fn complete(report: &mut KernelReport, findings: &[Finding]) {
    precond::annotate(report, findings);
    report.diagnostics.extend(precond::diagnostics(findings));
    report
        .diagnostics
        .sort_by_key(|d| (d.span.file, d.span.start, d.code));
}

/// Configured severities and suppression pragmas: a suppressed finding is
/// in no face's output.
pub fn suppress(
    unit: &CheckedUnit,
    diags: Vec<Diagnostic>,
    severities: &lanes_frontend::suppress::Severities,
) -> Vec<Diagnostic> {
    lanes_frontend::suppress::filter(unit, diags, severities)
}

/// One kernel through the pipeline.
pub struct KernelRun {
    pub func: hir::FuncId,
    pub name: SmolStr,
    /// `None` when lowering or the analysis failed (the errors are in
    /// `result`).
    pub analysis: Option<KernelAnalysis>,
    /// The completed report (its diagnostics after severities and
    /// pragmas), or the errors.
    pub result: KernelResult,
    pub findings: Vec<Finding>,
}

/// A file through the pipeline.
pub struct FileRun {
    pub kernels: Vec<KernelRun>,
    /// The front end's diagnostics and every kernel's, after severities and
    /// pragmas, in kernel order.
    pub diagnostics: Vec<Diagnostic>,
    /// What precondition inference charged to the file's budget (resource
    /// units; at most `fileBudget`).
    pub spent: u64,
}

/// Runs the pipeline over the kernels of a checked unit (none when the
/// unit has errors: the analysis needs a complete, typed program). With
/// `until`, the kernels after that one are skipped: the kernels before it
/// still run, since they spend the file's precondition budget first, so
/// the kernel gets what it gets in a run over the whole file.
pub fn run_file(unit: &CheckedUnit, settings: &Settings, until: Option<&str>) -> FileRun {
    run_file_reusing(unit, settings, until, &|_| None)
}

/// Findings computed before for a kernel of the same text with the same
/// analysis and inference options (the editor's, which its `lanes.build`
/// reuses), by kernel name; `None`: infer them.
pub type Known<'a> = &'a dyn Fn(&str) -> Option<Vec<Finding>>;

/// [`run_file`] with the findings `known` has instead of inferring them
/// again; the file's budget is charged what they spent when they were
/// found, so the kernels after them get what they would have got.
pub fn run_file_reusing(
    unit: &CheckedUnit,
    settings: &Settings,
    until: Option<&str>,
    known: Known,
) -> FileRun {
    run_file_with(unit, settings, until, &Reuse::Known(known))
}

/// [`run_file`] with the findings cache: the kernels whose key it holds
/// are not inferred again, the others' findings are stored.
pub fn run_file_cached(
    unit: &CheckedUnit,
    settings: &Settings,
    until: Option<&str>,
    cache: Option<&Cache>,
) -> FileRun {
    match cache {
        Some(c) => run_file_with(unit, settings, until, &Reuse::Cache(c)),
        None => run_file(unit, settings, until),
    }
}

/// Where findings made before come from.
#[derive(Clone, Copy)]
enum Reuse<'a> {
    Known(Known<'a>),
    Cache(&'a Cache),
}

fn run_file_with(
    unit: &CheckedUnit,
    settings: &Settings,
    until: Option<&str>,
    reuse: &Reuse,
) -> FileRun {
    let mut kernels = Vec::new();
    let mut diagnostics = suppress(unit, unit.diagnostics.clone(), &settings.severities);
    let options = settings.precond_options();
    let budget = options.as_ref().map(|o| o.budget).unwrap_or_default();
    let mut meter = Meter::new(&budget);
    if !unit.has_errors() {
        for k in unit.hir.kernels() {
            let name = unit.hir.function(k).name.clone();
            let (analysis, mut result) = analyse_with(
                &unit.hir,
                k,
                &unit.sources,
                settings.width,
                &settings.lowering,
            );
            let mut findings = Vec::new();
            if let (Some(ka), Some(o), Ok(r)) = (&analysis, &options, &mut result) {
                let left = budget.file - meter.file_spent();
                let key = match reuse {
                    Reuse::Cache(c) => {
                        let context = format!("{} {:?} {o:?}", settings.width, settings.lowering);
                        cache::key(c, unit, k, &context).map(|key| (c, key))
                    }
                    Reuse::Known(_) => None,
                };
                let before = match (reuse, &key) {
                    (Reuse::Known(known), _) => known(&name),
                    (_, Some((c, key))) => c.get(key, &name, left),
                    _ => None,
                };
                findings = match before {
                    Some(f) => {
                        meter.spend_file(f.iter().map(|x| x.spent).sum());
                        f
                    }
                    None => {
                        let f = preconditions(ka, &unit.hir, k, o, &mut meter);
                        if let Some((c, key)) = &key {
                            c.put(key, left, budget.target, &f);
                        }
                        f
                    }
                };
                complete(r, &findings);
            }
            let result = match result {
                Ok(mut r) => {
                    r.diagnostics = suppress(
                        unit,
                        std::mem::take(&mut r.diagnostics),
                        &settings.severities,
                    );
                    diagnostics.extend(r.diagnostics.iter().cloned());
                    Ok(r)
                }
                Err(e) => {
                    diagnostics.extend(e.iter().cloned());
                    Err(e)
                }
            };
            let last = until == Some(name.as_str());
            kernels.push(KernelRun {
                func: k,
                name,
                analysis,
                result,
                findings,
            });
            if last {
                break;
            }
        }
    }
    FileRun {
        kernels,
        diagnostics,
        spent: meter.file_spent(),
    }
}

/// What `lanes build` (and the editor's `lanes.build`) compiles: the
/// pipeline's run over the file and, with `specialize = auto`, over the
/// text with a fast path for every proven precondition of that run.
pub struct BuildPlan {
    /// The specialized unit (`None`: the original is compiled).
    pub specialized: Option<CheckedUnit>,
    /// The run over the unit compiled (analyses for code generation).
    pub run: FileRun,
    /// The fast paths inserted.
    pub applied: Vec<precond::Applied>,
    /// The specialized text did not check (a bug): built unspecialized.
    pub specialization_failed: bool,
}

/// The code generator's warnings about loop statements (L0103) of `built`,
/// placed in `original`, the user's text, at the loop's keyword: `built` is
/// `original` itself or its text with fast paths inserted, which only moves
/// text later, so a loop is the last hinted loop of `original` at or before
/// its place whose keyword is on a line of the same text, at the same
/// column (itself when nothing was inserted). Each loop once, in source
/// order; those not found are left out.
pub fn loop_warnings_in(
    built: &CheckedUnit,
    original: &CheckedUnit,
    warnings: impl IntoIterator<Item = Diagnostic>,
) -> Vec<Diagnostic> {
    let line_of = |u: &CheckedUnit, s: Span| -> Option<(String, u32)> {
        let f = u.sources.get(s.file);
        let (line, col) = f.line_col(s.start);
        let text = f.text.get(f.line_range(line as usize - 1))?;
        Some((text.to_string(), col))
    };
    let mut out: Vec<Diagnostic> = Vec::new();
    for mut w in warnings {
        let Some(want) = line_of(built, w.span) else {
            continue;
        };
        let Some(h) = original
            .hir
            .loop_hints
            .iter()
            .filter(|h| {
                h.span.file == w.span.file
                    && h.span.start <= w.span.start
                    && line_of(original, h.span).as_ref() == Some(&want)
            })
            .max_by_key(|h| h.span.start)
        else {
            continue;
        };
        w.span = h.span;
        if !out.iter().any(|o| o.code == w.code && o.span == w.span) {
            out.push(w);
        }
    }
    out.sort_by_key(|w| (w.span.file.0, w.span.start));
    out
}

impl BuildPlan {
    /// The code generator's warnings about loop statements (L0103) of the
    /// unit compiled (specialized or not), placed in `original`, the user's
    /// text ([`loop_warnings_in`]).
    pub fn loop_warnings_in(
        &self,
        original: &CheckedUnit,
        warnings: impl IntoIterator<Item = Diagnostic>,
    ) -> Vec<Diagnostic> {
        loop_warnings_in(
            self.specialized.as_ref().unwrap_or(original),
            original,
            warnings,
        )
    }

    /// Every kernel of the unit compiled with its analysis, or the errors
    /// of a kernel the analysis refused, for `lanes_codegen::compile_analysed`.
    /// A barrier that part of a work-group may skip (`L0401`) refuses the
    /// kernel whatever its configured severity: the generated code would
    /// wait for SIMD groups that never arrive.
    pub fn analysed(
        &self,
    ) -> impl Iterator<Item = (hir::FuncId, Result<&KernelAnalysis, Vec<Diagnostic>>)> {
        self.run.kernels.iter().map(|k| {
            let mut divergent = Vec::new();
            if let Ok(r) = &k.result {
                lanes_vectorizer::report::diagnose_barriers(&r.barriers, &mut divergent);
            }
            let a = match (&k.analysis, &k.result) {
                _ if !divergent.is_empty() => Err(divergent),
                (Some(a), _) => Ok(a),
                (None, Err(e)) => Err(e.clone()),
                (None, Ok(_)) => Err(Vec::new()),
            };
            (k.func, a)
        })
    }
}

/// The pipeline for code generation: `settings.width` must be the width of
/// the target built for; `default` is the specialization without a
/// setting (`auto` at -O2, `off` at -O0). `loader` reads the headers of the
/// specialized text.
pub fn plan_build(
    unit: &CheckedUnit,
    settings: &Settings,
    default: Specialize,
    loader: &dyn lanes_frontend::preprocess::FileLoader,
) -> BuildPlan {
    plan_build_reusing(unit, settings, default, loader, &|_| None)
}

/// [`plan_build`] with the findings `known` has (see [`run_file_reusing`]).
pub fn plan_build_reusing(
    unit: &CheckedUnit,
    settings: &Settings,
    default: Specialize,
    loader: &dyn lanes_frontend::preprocess::FileLoader,
    known: Known,
) -> BuildPlan {
    plan_build_with(unit, settings, default, loader, &Reuse::Known(known))
}

/// [`plan_build`] with the findings cache (see [`run_file_cached`]).
pub fn plan_build_cached(
    unit: &CheckedUnit,
    settings: &Settings,
    default: Specialize,
    loader: &dyn lanes_frontend::preprocess::FileLoader,
    cache: Option<&Cache>,
) -> BuildPlan {
    match cache {
        Some(c) => plan_build_with(unit, settings, default, loader, &Reuse::Cache(c)),
        None => plan_build(unit, settings, default, loader),
    }
}

fn plan_build_with(
    unit: &CheckedUnit,
    settings: &Settings,
    default: Specialize,
    loader: &dyn lanes_frontend::preprocess::FileLoader,
    reuse: &Reuse,
) -> BuildPlan {
    let specialize = settings.specialize.unwrap_or(default) == Specialize::Auto;
    let mut plain = settings.clone();
    plain.preconditions.enabled = false;
    let run = if specialize {
        run_file_with(unit, settings, None, reuse)
    } else {
        run_file(unit, &plain, None)
    };
    let s = precond::specialize_found(
        unit,
        run.kernels.iter().map(|k| (k.func, k.findings.as_slice())),
    );
    if s.applied.is_empty() {
        return BuildPlan {
            specialized: None,
            run,
            applied: Vec::new(),
            specialization_failed: false,
        };
    }
    let source = unit.sources.get(unit.main);
    let new = lanes_frontend::unit::check_text(
        &source.name,
        source.path.clone(),
        &s.text,
        &settings.preprocess_options(),
        loader,
    );
    if new.has_errors() {
        return BuildPlan {
            specialized: None,
            run,
            applied: Vec::new(),
            specialization_failed: true,
        };
    }
    // The specialized text: analysed again, without inference.
    let new_run = run_file(&new, &plain, None);
    // A fast path's `sub_group_all` check differs across the SIMD groups
    // of a work-group: around a barrier it would make the barrier
    // divergent (L0401). Such a kernel is built as written.
    let divergent_barrier = new_run.kernels.iter().any(|k| {
        k.result
            .as_ref()
            .is_ok_and(|r| r.barriers.iter().any(|b| !b.uniform))
    });
    if divergent_barrier {
        return BuildPlan {
            specialized: None,
            run,
            applied: Vec::new(),
            specialization_failed: false,
        };
    }
    BuildPlan {
        specialized: Some(new),
        run: new_run,
        applied: s.applied,
        specialization_failed: false,
    }
}
