//! Inferred preconditions (DESIGN §6; Moll and Hack, "Synthesizing Hot Code
//! Paths by Abductive Reasoning"): for a divergent loop, a divergent branch
//! or a gather/scatter, a condition P on the values of a SIMD group such
//! that, when every lane satisfies P, the loop's trip count is the same on
//! all lanes, the branch goes one way, or the access is contiguous.
//!
//! Method, cheapest first:
//! 1. *Piece abduction* ([`search`]): the `min`/`max`/`clamp`/`?:` the target
//!    depends on, and for a branch its own condition, are *decisions*.
//!    Choosing an arm of some of them and re-running the divergence
//!    analysis on the function where the decided values are replaced by
//!    their arms (the paper's abstract abduction on the shape lattice) tells
//!    which choices make the target uniform. A choice's condition is linear
//!    in the lane's values ([`linear`]); the choice that holds for most
//!    sampled SIMD groups is kept.
//! 2. *CEGIS* ([`cegis`]) over the group's base id and the uniform values,
//!    for targets without decisions (`tid / step`, `tid % step`).
//! 3. *Verification* ([`smt`]): Z3 proves, on the program's exact
//!    bit-vector semantics for all W lanes, that P implies every decision
//!    taken (or the target property itself for CEGIS). Nothing unproven is
//!    shown. Syntactically implied conjuncts are dropped before the proof;
//!    after it, [`gist`] drops the conjuncts Z3 proves implied by the others
//!    and the target's context (id ranges, the guards on every path to it),
//!    and the shorter P is proven again.
//!
//! Results are shown in the lane's own terms (`vstep <= x && x < width -
//! vstep`, valid as `sub_group_all(...)`), and for affine values also per
//! group (`vstep <= x0 && x0 + 15 < width - vstep`, x0 = lane 0's x).
//! [`assume`] is the other direction: inside `if (sub_group_all(P))` the
//! analyses use P.

pub mod assume;
mod assume_mod;
pub mod budget;
pub mod cegis;
mod eval;
pub(crate) mod gist;
pub mod linear;
mod names;
mod search;
pub mod smt;
mod spec;
pub mod specialize;

use std::collections::BTreeMap;

use lanes_frontend::hir;
use lanes_frontend::source::Span;

use crate::report::KernelAnalysis;

pub use budget::{Budget, Exhausted, Gate, Meter};
pub use specialize::{specialize, specialize_found, Applied, Specialization};

/// A typical launch (from `lanes.toml`'s `[launch]`): coverage is counted
/// on it, and it is the sample the search prefers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Launch {
    pub global: Vec<u64>,
    pub args: BTreeMap<String, i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Options {
    pub width: u32,
    /// What one target and one file may spend (search, synthesis and
    /// proofs), in solver resource units.
    pub budget: Budget,
    pub launch: Option<Launch>,
}

impl Options {
    pub fn new(width: u32) -> Options {
        Options {
            width,
            budget: Budget::default(),
            launch: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TargetKind {
    Loop,
    Branch,
    Access,
}

impl TargetKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TargetKind::Loop => "loop",
            TargetKind::Branch => "branch",
            TargetKind::Access => "access",
        }
    }
}

/// What was found for one target.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    pub kind: TargetKind,
    /// The target as the report shows it (`LoopFact`/`BranchFact`/`AccessFact` span).
    pub span: Span,
    /// The statement a fast path wraps (`None`: the target is in a helper
    /// function, or in a declaration whose variable is used later).
    pub stmt: Option<Span>,
    pub outcome: Outcome,
    /// Resource units spent ([`budget`]).
    pub spent: u64,
    /// Wall-clock time taken: informational only (hovers), never part of a
    /// decision or of a diagnostic.
    pub millis: f64,
    /// Z3 queries made.
    pub queries: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Found(Precondition),
    /// No precondition exists among the candidates, or none could be proven.
    NotFound(String),
    /// The budget ran out first: the target's, the file's (the target was
    /// not tried) or the wall-clock safety net.
    OutOfBudget(Exhausted),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Precondition {
    /// P per lane, in source terms: `sub_group_all(lane)` is the check.
    pub lane: String,
    /// `lane` with every atom widened to `long`, so that the check itself
    /// cannot overflow (what `--specialize auto` inserts), followed by the
    /// conjuncts the gist dropped: they hold on every lane that reaches the
    /// target, so the check is the same, and the assumption-aware analysis
    /// inside the fast path (which reads only the check) can use them.
    pub exact: String,
    /// P for the whole group in terms of lane 0's values, when proven.
    pub group: Option<String>,
    /// Candidates the verifier refuted, in the order tried.
    pub rejected: Vec<String>,
    /// The fraction of SIMD groups of the launch hint that satisfy P.
    pub coverage: Option<Coverage>,
    /// `pieces` (abstract abduction) or `cegis`.
    pub method: &'static str,
    /// What becomes of the target under P.
    pub effect: String,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coverage {
    pub groups: u64,
    pub total: u64,
}

impl Coverage {
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            100.0 * self.groups as f64 / self.total as f64
        }
    }
}

/// Preconditions for every divergent loop, divergent branch and
/// gather/scatter of an analysed kernel, the kernel alone on the file's
/// budget (`opts.budget`).
pub fn infer(
    ka: &KernelAnalysis,
    unit: &hir::Unit,
    kernel: hir::FuncId,
    opts: &Options,
) -> Vec<Finding> {
    infer_with(ka, unit, kernel, opts, &mut Meter::new(&opts.budget))
}

/// [`infer`] on a file's account: kernels of one file share `meter`, in
/// file order. Targets after the file's budget is spent are not tried
/// (their outcome is [`Exhausted::File`]).
pub fn infer_with(
    ka: &KernelAnalysis,
    unit: &hir::Unit,
    kernel: hir::FuncId,
    opts: &Options,
    meter: &mut Meter,
) -> Vec<Finding> {
    search::run(ka, unit, kernel, opts, meter)
}

/// The diagnostics of the findings: `L0301` (information) where a fast
/// path exists, `L0302` (hint) where a budget ran out — at each target
/// whose own budget ran out, and once, at the first target not tried, when
/// the file's budget is spent. Nothing in them depends on time.
pub fn diagnostics(findings: &[Finding]) -> Vec<lanes_frontend::diag::Diagnostic> {
    use lanes_frontend::diag::{Code, Diagnostic};
    let mut out = Vec::new();
    let untried = findings
        .iter()
        .filter(|f| f.outcome == Outcome::OutOfBudget(Exhausted::File))
        .count();
    let mut file_note = false;
    for f in findings {
        let what = f.kind.as_str();
        match &f.outcome {
            Outcome::Found(p) => {
                let mut msg = format!(
                    "fast path: when every lane of the SIMD group satisfies `{}`, {}",
                    p.lane, p.effect
                );
                if let Some(c) = &p.coverage {
                    msg.push_str(&format!(
                        " ({:.1}% of the groups of the launch)",
                        c.percent()
                    ));
                }
                let mut d = Diagnostic::new(Code::FastPath, f.span, msg);
                if let Some(g) = &p.group {
                    d = d.with_note(format!("for the group, with x0 the value of lane 0: `{g}`"));
                }
                d = d.with_note(format!(
                    "proven with Z3 ({} queries); the fast path is `if (sub_group_all({})) {{ <copy> }} else {{ <original> }}` (the code action *Add fast path* inserts it; `lanes build --specialize auto` does too, except around an early `return`)",
                    f.queries, p.lane
                ));
                out.push(d);
            }
            Outcome::OutOfBudget(Exhausted::Target) => out.push(
                Diagnostic::new(
                    Code::NoPrecondition,
                    f.span,
                    format!("no precondition for this {what} found within its budget"),
                )
                .with_note(
                    "a target may spend `preconditions.targetBudget` solver resource units, or what is left of the file's `preconditions.fileBudget` (settings; docs/analysis.md)",
                ),
            ),
            Outcome::OutOfBudget(Exhausted::File) if !file_note => {
                file_note = true;
                let others = untried - 1;
                let more = match others {
                    0 => String::new(),
                    1 => " (and 1 more target of this kernel)".to_string(),
                    n => format!(" (and {n} more targets of this kernel)"),
                };
                out.push(
                    Diagnostic::new(
                        Code::NoPrecondition,
                        f.span,
                        format!(
                            "no precondition sought for this {what}{more}: the file's budget is spent"
                        ),
                    )
                    .with_note(
                        "the targets of a file share `preconditions.fileBudget` solver resource units (settings; docs/analysis.md); earlier targets spent them",
                    ),
                )
            }
            Outcome::OutOfBudget(Exhausted::Wall) => out.push(Diagnostic::new(
                Code::NoPrecondition,
                f.span,
                format!(
                    "no precondition for this {what}: inference stopped at the wall-clock safety limit of the file"
                ),
            )),
            Outcome::OutOfBudget(Exhausted::File) | Outcome::NotFound(_) => {}
        }
    }
    out
}

/// The coverage of the precondition found for the loop at `span` (with a
/// launch hint in [`Options::launch`]).
pub fn loop_coverage(findings: &[Finding], span: Span) -> Option<Coverage> {
    findings.iter().find_map(|f| match &f.outcome {
        Outcome::Found(p) if f.kind == TargetKind::Loop && f.span == span => p.coverage,
        _ => None,
    })
}

/// Fills `loops[].precondition` of a report from the findings.
pub fn annotate(report: &mut crate::report::KernelReport, findings: &[Finding]) {
    for l in &mut report.loops {
        if let Some(Finding {
            outcome: Outcome::Found(p),
            ..
        }) = findings
            .iter()
            .find(|f| f.kind == TargetKind::Loop && f.span == l.span)
        {
            l.precondition = Some(p.lane.clone());
        }
    }
}
