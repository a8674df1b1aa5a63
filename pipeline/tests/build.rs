//! `lanes build`'s precondition budget and the reuse of findings.

use std::path::Path;

mod common;

use lanes_frontend::preprocess::RealFs;
use lanes_frontend::unit::{check_file, check_text, CheckedUnit};
use lanes_pipeline::{plan_build, plan_build_reusing, run_file, Settings, Specialize};
use lanes_vectorizer::precond::{Budget, Exhausted, Finding, Outcome};

use common::corpus;

fn settings() -> Settings {
    Settings::for_target("avx2-i32x8").unwrap()
}

fn unit(path: &Path, s: &Settings) -> CheckedUnit {
    let u = check_file(path, &s.preprocess_options(), &RealFs).unwrap();
    assert!(!u.has_errors(), "{}", path.display());
    u
}

fn found(findings: &[Finding]) -> Vec<String> {
    findings
        .iter()
        .filter_map(|f| match &f.outcome {
            Outcome::Found(p) => Some(format!("{}@{}: {}", f.kind.as_str(), f.span.start, p.lane)),
            _ => None,
        })
        .collect()
}

/// The findings of a file's kernels; what its targets spent is what the
/// file's account went down by (a kernel whose findings are reused takes
/// that sum again), and no target spent more than its budget.
fn all_findings(u: &CheckedUnit, s: &Settings) -> Vec<Finding> {
    let run = run_file(u, s, None);
    let findings: Vec<Finding> = run.kernels.into_iter().flat_map(|k| k.findings).collect();
    let budget = s.precond_options().unwrap().budget;
    assert!(
        findings.iter().all(|f| f.spent <= budget.target),
        "{findings:?}"
    );
    assert_eq!(findings.iter().map(|f| f.spent).sum::<u64>(), run.spent);
    findings
}

/// The fast paths of the paper's kernels (tests/kernels/precond, the same
/// files as bench/kernels/paper) are found on the build's budget too.
#[test]
fn build_budget_finds_the_preconditions_of_the_precond_corpus() {
    let s = settings();
    for path in corpus("tests/kernels/precond") {
        let u = unit(&path, &s);
        let editor = found(&all_findings(&u, &s));
        let build_findings = all_findings(&u, &s.for_build());
        // Found within the target's budget, not by a last query whose final
        // checks counted beyond it (charged the budget exactly).
        let target = Budget::build().target;
        assert!(
            build_findings
                .iter()
                .all(|f| !matches!(f.outcome, Outcome::Found(_)) || f.spent < target),
            "{}: {build_findings:?}",
            path.display()
        );
        let build = found(&build_findings);
        assert!(!editor.is_empty(), "{}", path.display());
        assert_eq!(build, editor, "{}", path.display());
    }
}

#[test]
fn an_unsettled_target_builds_within_the_budgets_units() {
    let s = settings().for_build();
    let u = check_text(
        "unsettled.cl",
        None,
        &common::unsettled("unsettled"),
        &s.preprocess_options(),
        &RealFs,
    );
    assert!(!u.has_errors());
    let run = run_file(&u, &s, None);
    let findings: Vec<&Finding> = run.kernels.iter().flat_map(|k| &k.findings).collect();
    let b = Budget::build();
    assert_eq!(run.spent, b.file);
    // The targets that ran out spend their whole budget, no more (a
    // query's final checks may count beyond what it was given), the last
    // of them what the file had left; the rest are not tried.
    assert_eq!(findings.iter().map(|f| f.spent).sum::<u64>(), b.file);
    assert!(findings.iter().all(|f| f.spent <= b.target), "{findings:?}");
    let out: Vec<u64> = findings
        .iter()
        .filter(|f| f.outcome == Outcome::OutOfBudget(Exhausted::Target))
        .map(|f| f.spent)
        .collect();
    assert_eq!(out.len() as u64, b.file.div_ceil(b.target), "{findings:?}");
    assert!(
        out[..out.len() - 1].iter().all(|&u| u == b.target),
        "{out:?}"
    );
    assert!(findings
        .iter()
        .all(|f| !matches!(f.outcome, Outcome::Found(_))));
    assert!(findings
        .iter()
        .any(|f| f.outcome == Outcome::OutOfBudget(Exhausted::File)));
}

/// The editor's `lanes.build` hands the pipeline the findings it has:
/// reused, they give the same build, and they are not inferred again
/// (findings that say "not found" build no fast path).
#[test]
fn known_findings_are_reused_not_inferred_again() {
    let s = settings();
    let path = corpus("tests/kernels/precond")
        .into_iter()
        .find(|p| p.ends_with("fast_walsh_transform.cl"))
        .unwrap();
    let u = unit(&path, &s);
    let fresh = plan_build(&u, &s, Specialize::Auto, &RealFs);
    assert!(!fresh.applied.is_empty());
    let first = run_file(&u, &s, None);
    let by_name = |name: &str| {
        first
            .kernels
            .iter()
            .find(|k| k.name == name)
            .map(|k| k.findings.clone())
    };
    let reused = plan_build_reusing(&u, &s, Specialize::Auto, &RealFs, &by_name);
    let text = |p: &lanes_pipeline::BuildPlan| {
        p.specialized
            .as_ref()
            .map(|u| u.sources.get(u.main).text.to_string())
    };
    assert_eq!(text(&reused), text(&fresh));
    assert_eq!(reused.applied.len(), fresh.applied.len());

    let refuted = |name: &str| {
        by_name(name).map(|fs| {
            fs.into_iter()
                .map(|mut f| {
                    f.outcome = Outcome::NotFound("given".into());
                    f
                })
                .collect()
        })
    };
    let none = plan_build_reusing(&u, &s, Specialize::Auto, &RealFs, &refuted);
    assert!(none.applied.is_empty());
    assert!(none.specialized.is_none());
}
