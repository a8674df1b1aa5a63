//! Inferred preconditions (DESIGN §6) in the database.
//!
//! Inference calls Z3 and may take seconds per kernel, so it runs outside
//! salsa: a query holding a snapshot would make the next edit wait for the
//! solver (a setter waits until every snapshot is dropped). The server
//! asks [`pending`] which kernels need inference, runs [`infer`] on their
//! [`Analysis`] without any database handle, and stores the findings with
//! [`set_kernel_preconditions`]. Findings are kept with the `Arc` of the
//! analysis they were computed on: [`kernel_findings`] returns them only
//! while that analysis is still the kernel's current one, so an edit that
//! re-analyses a kernel hides its stale preconditions at once, and an edit
//! elsewhere keeps them.

use std::collections::BTreeMap;
use std::sync::{Arc, Weak};

use lanes_vectorizer::precond::{self, Finding, Options};
use salsa::Setter;
use smol_str::SmolStr;

use crate::db::{Db, File, LanesDatabase};
use crate::kernel::{kernel_analysis, kernels, span_map, Analysis, Kernel};

/// The findings of one kernel, for the analysis they were computed on.
pub struct KernelFindings {
    /// Which analysis: only its identity is needed, and a strong reference
    /// would keep a re-analysed kernel's old analysis (its small unit and
    /// report) alive until the next inference, which back-to-back edits
    /// never leave time for. A `Weak` keeps the allocation, so the address
    /// is not reused while the findings are stored.
    pub analysis: Weak<Analysis>,
    pub options: Options,
    /// In the coordinates of `analysis` (see [`crate::SpanMap`]).
    pub findings: Vec<Finding>,
}

/// The precondition input of a file: findings per kernel name.
#[derive(Default, Clone)]
pub struct FilePreconditions {
    pub kernels: BTreeMap<SmolStr, Arc<KernelFindings>>,
}

impl KernelFindings {
    /// True when these findings were computed on `analysis`.
    pub fn of(&self, analysis: &Arc<Analysis>) -> bool {
        std::ptr::eq(self.analysis.as_ptr(), Arc::as_ptr(analysis))
    }
}

impl std::fmt::Debug for FilePreconditions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(
                self.kernels
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.findings.len())),
            )
            .finish()
    }
}

/// Work for the inference: a kernel whose current analysis has no findings
/// for `options` yet.
#[derive(Clone)]
pub struct Pending {
    pub name: SmolStr,
    pub analysis: Arc<Analysis>,
}

/// The kernels of `file` that need inference with `options`, in file order
/// (only kernels that are analysed: see [`crate::kernel::analysable`]).
pub fn pending(db: &dyn Db, file: File, options: &Options) -> Vec<Pending> {
    let have = file.preconditions(db);
    let mut out = Vec::new();
    for k in kernels(db, file) {
        if !crate::kernel::analysable(db, k) {
            continue;
        }
        let a = kernel_analysis(db, k);
        if a.analysis.is_none() {
            continue;
        }
        let name = k.name(db).clone();
        let fresh = have
            .kernels
            .get(&name)
            .is_some_and(|f| f.of(a) && f.options == *options);
        if !fresh {
            out.push(Pending {
                name,
                analysis: a.clone(),
            });
        }
    }
    out
}

/// What the kernels of `file` whose findings for `options` are current
/// spent of the file's budget (resource units).
pub fn spent(db: &dyn Db, file: File, options: &Options) -> u64 {
    let have = file.preconditions(db);
    kernels(db, file)
        .into_iter()
        .filter_map(|k| {
            let f = have.kernels.get(k.name(db))?;
            (f.of(kernel_analysis(db, k)) && f.options == *options)
                .then(|| f.findings.iter().map(|x| x.spent).sum::<u64>())
        })
        .sum()
}

/// The findings of the kernels of `file` that are current for `options`
/// (inferred on the kernel's current analysis, with these options), in the
/// coordinates of the current text, by kernel name: what the editor's
/// `lanes.build` reuses instead of inferring them again.
pub fn current_findings(
    db: &dyn Db,
    file: File,
    options: &Options,
) -> BTreeMap<SmolStr, Arc<Vec<Finding>>> {
    let have = file.preconditions(db);
    kernels(db, file)
        .into_iter()
        .filter(|k| {
            have.kernels
                .get(k.name(db))
                .is_some_and(|f| f.options == *options)
        })
        .filter_map(|k| Some((k.name(db).clone(), kernel_findings(db, k).clone()?)))
        .collect()
}

/// Runs the inference on an analysis (no database involved; spends at most
/// `options.budget.file`, each target at most `options.budget.target`):
/// the pipeline's step ([`lanes_pipeline::preconditions`]), as every face
/// runs it.
pub fn infer(a: &Analysis, options: &Options) -> Vec<Finding> {
    infer_gated(a, options, None)
}

/// [`infer`] waiting at `gate` before each solver query while it is closed
/// (the findings are the same).
pub fn infer_gated(a: &Analysis, options: &Options, gate: Option<&precond::Gate>) -> Vec<Finding> {
    let (Some(ka), Some((unit, func))) = (&a.analysis, &a.unit) else {
        return Vec::new();
    };
    let mut meter = precond::Meter::new(&options.budget);
    if let Some(g) = gate {
        meter = meter.with_gate(g.clone());
    }
    lanes_pipeline::preconditions(ka, unit.hir(), *func, options, &mut meter)
}

/// Stores the findings of kernels of `file` (one input change: it cancels
/// running snapshot queries, so callers batch).
pub fn set_kernel_preconditions(
    db: &mut LanesDatabase,
    file: File,
    found: impl IntoIterator<Item = (SmolStr, KernelFindings)>,
) {
    let mut next = (**file.preconditions(db)).clone();
    for (name, findings) in found {
        next.kernels.insert(name, Arc::new(findings));
    }
    file.set_preconditions(db).to(Arc::new(next));
}

/// The findings of a kernel, in the coordinates of the current text;
/// `None` until inference ran on the kernel's current analysis. Compared
/// by value: storing another kernel's findings re-runs this query for every
/// kernel of the file, but the unchanged results are backdated, so their
/// reports and diagnostics are not recomputed.
#[salsa::tracked(returns(ref))]
pub fn kernel_findings<'db>(db: &'db dyn Db, kernel: Kernel<'db>) -> Option<Arc<Vec<Finding>>> {
    let have = kernel.file(db).preconditions(db);
    let entry = have.kernels.get(kernel.name(db))?;
    if !entry.of(kernel_analysis(db, kernel)) {
        return None;
    }
    let map = span_map(db, kernel);
    let mapped = entry
        .findings
        .iter()
        .map(|f| {
            let mut f = f.clone();
            f.span = map.map(f.span);
            f.stmt = f.stmt.map(|s| map.map(s));
            f
        })
        .collect();
    Some(Arc::new(mapped))
}

/// The findings cache's key of `p` (see `lanes_pipeline::cache`): the
/// kernel's small unit, which is all its analysis is made of (the texts of
/// its files and the tokens parsed from them, macro expansions included),
/// the width and `options`. `None` for a kernel analysed in the whole
/// file's unit (its coordinates are the file's) or no longer current.
pub fn cache_key(
    db: &dyn Db,
    file: File,
    p: &Pending,
    options: &Options,
    cache: &lanes_pipeline::Cache,
) -> Option<lanes_pipeline::cache::Key> {
    use std::fmt::Write;
    let k = kernels(db, file)
        .into_iter()
        .find(|k| *k.name(db) == p.name)?;
    if !p.analysis.incremental || !Arc::ptr_eq(kernel_analysis(db, k), &p.analysis) {
        return None;
    }
    let inputs = crate::kernel::kernel_inputs(db, k).as_ref()?;
    let mut texts: Vec<&str> = Vec::new();
    let mut tokens = String::new();
    for body in &inputs.bodies {
        // The body's files in the small unit's order: its own, then the
        // files it includes.
        let _ = writeln!(tokens, "body {} {}", texts.len(), body.foreign.len());
        texts.push(&body.text);
        texts.extend(body.foreign.iter().map(|f| &*f.text));
        for t in &body.tokens {
            let _ = writeln!(
                tokens,
                "{:?} {} {} {} {} {} {} {}",
                t.kind,
                t.text,
                t.span.file.0,
                t.span.start,
                t.span.end,
                t.line_start,
                t.leading_space,
                t.expansion.is_some()
            );
        }
    }
    let width = db.config().width(db);
    let context = format!("editor {width} {options:?}\n{tokens}");
    Some(cache.key_of_texts(&context, texts))
}
