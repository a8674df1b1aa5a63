//! `lanes explain`: how each kernel of a file will run on SIMD lanes.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use lanes_diagnostics::human::termcolor::{ColorChoice, StandardStream};
use lanes_frontend::preprocess::RealFs;
use lanes_frontend::unit::check_file;

use lanes_diagnostics::explain::{
    AccessJson, BarrierJson, BranchJson, DiagnosticJson, Explain, KernelJson, LoopJson, TargetJson,
    ValueJson,
};
use lanes_vectorizer::precond::Coverage;
use serde::Serialize;

use crate::check::MacroArgs;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
    /// The kernel's scalar IR with the shape of every value (`: contiguous`).
    Ir,
}

#[derive(Args)]
pub struct ExplainArgs {
    /// The OpenCL C file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Output format: annotated source (text) or the stable JSON interface.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// SIMD target; its gang size is the width W (see `lanes targets`;
    /// default: `target` of the nearest `lanes.toml`, else host).
    #[arg(long)]
    target: Option<String>,
    /// Only this kernel.
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Infer preconditions again instead of reading the findings cache
    /// (also `LANES_CACHE=off`; docs/preconditions.md).
    #[arg(long)]
    no_cache: bool,
    #[command(flatten)]
    macros: MacroArgs,
}

pub fn run(args: ExplainArgs) -> ExitCode {
    let flags = args.macros.command_line(args.target.as_deref());
    let settings = match crate::project::settings_for(&args.file, &flags) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let unit = match check_file(&args.file, &settings.preprocess_options(), &RealFs) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("error: cannot read `{}`: {e}", args.file.display());
            return ExitCode::from(1);
        }
    };
    let choice = if std::io::stderr().is_terminal() {
        ColorChoice::Auto
    } else {
        ColorChoice::Never
    };
    let mut err = StandardStream::stderr(choice);
    if unit.has_errors() {
        let _ = lanes_diagnostics::human::emit(&mut err, &unit.sources, &unit.diagnostics);
        let _ = writeln!(
            err,
            "lanes explain: `{}` has errors; nothing to explain",
            args.file.display()
        );
        return ExitCode::from(1);
    }
    if let Some(name) = &args.kernel {
        if !unit
            .hir
            .kernels()
            .iter()
            .any(|&k| unit.hir.function(k).name == name.as_str())
        {
            let names: Vec<String> = unit
                .hir
                .kernels()
                .iter()
                .map(|&k| format!("`{}`", unit.hir.function(k).name))
                .collect();
            eprintln!(
                "error: no kernel named `{name}` in `{}`",
                args.file.display()
            );
            eprintln!("  = note: kernels in this file: {}", names.join(", "));
            return ExitCode::from(1);
        }
    }
    // The one pipeline, as `lanes check` runs it: with `--kernel K` the
    // kernels before K still spend the file's precondition budget first,
    // so K gets the same preconditions as in `lanes check` (and the same
    // entries of the findings cache).
    let cache = lanes_pipeline::Cache::from_env(args.no_cache);
    let run =
        lanes_pipeline::run_file_cached(&unit, &settings, args.kernel.as_deref(), cache.as_ref());
    let mut irs = String::new();
    let mut reports = Vec::new();
    let mut spans = Vec::new();
    // Per kernel, per loop of its report: the coverage of its precondition.
    let mut coverages: Vec<Vec<Option<Coverage>>> = Vec::new();
    let mut failed = false;
    for k in run.kernels {
        if args
            .kernel
            .as_ref()
            .is_some_and(|n| n.as_str() != k.name.as_str())
        {
            continue;
        }
        match k.result {
            Ok(r) => {
                if let (Format::Ir, Some(ka)) = (args.format, &k.analysis) {
                    irs.push_str(&lanes_vectorizer::report::annotated_ir(ka));
                    irs.push('\n');
                }
                coverages.push(
                    r.loops
                        .iter()
                        .map(|l| lanes_vectorizer::precond::loop_coverage(&k.findings, l.span))
                        .collect(),
                );
                reports.push(r);
                spans.push(unit.hir.function(k.func).span);
            }
            Err(diags) => {
                let _ = lanes_diagnostics::human::emit(&mut err, &unit.sources, &diags);
                failed = true;
            }
        }
    }
    let written = match args.format {
        Format::Text => {
            let text = lanes_diagnostics::explain::text(
                &settings.target,
                settings.width,
                &unit.sources,
                &reports,
                &spans,
            );
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).and_then(|_| out.flush())
        }
        Format::Ir => {
            let mut out = std::io::stdout().lock();
            out.write_all(irs.as_bytes()).and_then(|_| out.flush())
        }
        Format::Json => {
            let json = lanes_diagnostics::explain::json(
                &settings.target,
                settings.width,
                &unit.sources,
                &reports,
            );
            crate::check::write_json(&with_coverage(&json, &coverages))
        }
    };
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
            return ExitCode::from(2);
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `loops[].precondition_coverage` of the JSON interface (DESIGN §2): for
/// the loop's precondition, the SIMD groups of the `[launch]` hint of
/// `lanes.toml` where every lane satisfies it, `{groups, total, percent}`;
/// `null` without a hint or a precondition. `loops[].precondition` stays
/// the per-lane text, and every other key is as `lanes_diagnostics` writes
/// it, in the same order.
fn with_coverage<'a>(e: &'a Explain, coverages: &[Vec<Option<Coverage>>]) -> ExplainOut<'a> {
    let none = Vec::new();
    ExplainOut {
        target: &e.target,
        kernels: e
            .kernels
            .iter()
            .enumerate()
            .map(|(i, k)| {
                let covs = coverages.get(i).unwrap_or(&none);
                let KernelJson {
                    name,
                    file,
                    line,
                    values,
                    branches,
                    loops,
                    accesses,
                    barriers,
                    diagnostics,
                } = k;
                KernelOut {
                    name,
                    file,
                    line: *line,
                    values,
                    branches,
                    loops: loops
                        .iter()
                        .enumerate()
                        .map(|(j, l)| LoopOut {
                            base: l,
                            precondition_coverage: covs.get(j).copied().flatten().map(|c| {
                                CoverageJson {
                                    groups: c.groups,
                                    total: c.total,
                                    percent: (c.percent() * 10.0).round() / 10.0,
                                }
                            }),
                        })
                        .collect(),
                    accesses,
                    barriers,
                    diagnostics,
                }
            })
            .collect(),
    }
}

#[derive(Serialize)]
struct ExplainOut<'a> {
    target: &'a TargetJson,
    kernels: Vec<KernelOut<'a>>,
}

#[derive(Serialize)]
struct KernelOut<'a> {
    name: &'a str,
    file: &'a str,
    line: u32,
    values: &'a [ValueJson],
    branches: &'a [BranchJson],
    loops: Vec<LoopOut<'a>>,
    accesses: &'a [AccessJson],
    barriers: &'a [BarrierJson],
    diagnostics: &'a [DiagnosticJson],
}

#[derive(Serialize)]
struct LoopOut<'a> {
    #[serde(flatten)]
    base: &'a LoopJson,
    precondition_coverage: Option<CoverageJson>,
}

#[derive(Serialize)]
struct CoverageJson {
    groups: u64,
    total: u64,
    percent: f64,
}
