//! `lanes check`: run the front end over files and report.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use lanes_diagnostics::human::termcolor::{ColorChoice, StandardStream};
use lanes_frontend::diag::{Diagnostic, Severity};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::source::SourceMap;
use lanes_frontend::unit::{check_file, CheckedUnit};
use lanes_vectorizer::target::Target;

use crate::Color;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
    Sarif,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Deny {
    /// Treat warnings as errors (exit status 1).
    Warnings,
}

/// Preprocessor options shared by the subcommands.
#[derive(Args)]
pub struct MacroArgs {
    /// Define a macro: `-D NAME` or `-D NAME=VALUE`.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,
    /// Undefine a macro.
    #[arg(short = 'U', value_name = "NAME")]
    undefine: Vec<String>,
    /// Add a directory to the `#include` search path.
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,
}

/// What one file is checked with: the target, the preprocessor options
/// and the launch hint, from the command line over `lanes.toml`.
pub struct FileSettings {
    pub target_name: String,
    pub target: Target,
    pub options: PreprocessOptions,
    pub launch: Option<lanes_vectorizer::precond::Launch>,
    pub budget: lanes_vectorizer::precond::Budget,
    /// Severities of codes from `lanes.toml`.
    pub severities: lanes_frontend::suppress::Severities,
}

impl FileSettings {
    pub fn precond_options(&self) -> lanes_vectorizer::precond::Options {
        let mut o = lanes_vectorizer::precond::Options::new(self.target.width);
        o.launch = self.launch.clone();
        o.budget = self.budget;
        o
    }
}

/// The settings for `file`: `--target`, `-D`, `-U` and `-I` override the
/// nearest `lanes.toml` (project.rs). Errors are printed; the exit status
/// is 2, as for other bad usage.
pub fn file_settings(
    file: &Path,
    target: Option<&str>,
    macros: &MacroArgs,
) -> Result<FileSettings, ExitCode> {
    let project = match crate::project::for_file(file) {
        Ok(p) => p.unwrap_or_default(),
        Err(e) => {
            eprintln!("error: {e}");
            return Err(ExitCode::from(2));
        }
    };
    let (name, from_file) = match (target, &project.target) {
        (Some(t), _) => (t.to_string(), None),
        (None, Some(t)) => (t.get_ref().clone(), Some(t.span())),
        (None, None) => ("host".to_string(), None),
    };
    let Some(t) = Target::from_name(&name) else {
        match from_file {
            Some(span) => eprintln!(
                "error: {}: unknown target `{name}`",
                crate::project::span_location(&project, span)
            ),
            None => eprintln!("error: unknown target `{name}`"),
        }
        eprintln!("  = note: known targets: {}", Target::names().join(", "));
        return Err(ExitCode::from(2));
    };
    let mut options = preprocess_options(macros, t.width);
    // The file's definitions first; a name the command line defines or
    // undefines is the command line's.
    let flagged: Vec<&str> = options
        .defines
        .iter()
        .map(|(n, _)| n.as_str())
        .chain(options.undefines.iter().map(String::as_str))
        .collect();
    let mut defines: Vec<(String, Option<String>)> = project
        .defines
        .iter()
        .map(|d| match d.split_once('=') {
            Some((n, v)) => (n.trim().to_string(), Some(v.to_string())),
            None => (d.clone(), None),
        })
        .filter(|(n, _)| !flagged.contains(&n.as_str()))
        .collect();
    defines.append(&mut options.defines);
    options.defines = defines;
    options.include_dirs.extend(project.include_dirs);
    Ok(FileSettings {
        target_name: name,
        target: t,
        options,
        launch: project.launch,
        budget: project.budget,
        severities: project.severities,
    })
}

pub fn preprocess_options(args: &MacroArgs, width: u32) -> PreprocessOptions {
    PreprocessOptions {
        defines: args
            .define
            .iter()
            .map(|d| match d.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (d.clone(), None),
            })
            .collect(),
        undefines: args.undefine.clone(),
        include_dirs: args.include.clone(),
        width,
    }
}

#[derive(Args)]
pub struct CheckArgs {
    /// OpenCL C files to check.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Output format: human (rustc-style, on stderr), json or sarif (on stdout).
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// SIMD target; sets `__LANES_WIDTH__` (see `lanes targets`; default:
    /// `target` of the nearest `lanes.toml`, else host).
    #[arg(long)]
    target: Option<String>,
    #[command(flatten)]
    macros: MacroArgs,
    /// `--deny warnings`: fail on warnings too.
    #[arg(long, value_enum)]
    deny: Vec<Deny>,
    /// Colour in human output.
    #[arg(long, value_enum, default_value = "auto")]
    color: Color,
}

pub fn run(args: CheckArgs) -> ExitCode {
    // Every file with its settings (its own `lanes.toml`), before any work.
    let mut settings = Vec::new();
    for path in &args.files {
        match file_settings(path, args.target.as_deref(), &args.macros) {
            Ok(s) => settings.push(s),
            Err(code) => return code,
        }
    }

    let mut units: Vec<(CheckedUnit, &FileSettings)> = Vec::new();
    let mut unreadable = 0;
    for (path, s) in args.files.iter().zip(&settings) {
        match check_file(path, &s.options, &RealFs) {
            Ok(unit) => units.push((unit, s)),
            Err(e) => {
                eprintln!("error: cannot read `{}`: {e}", path.display());
                unreadable += 1;
            }
        }
    }
    // How the kernels will run on SIMD lanes: only for files without errors
    // (the analysis needs a complete, typed program).
    for (u, s) in &mut units {
        if u.has_errors() {
            continue;
        }
        // On a thread of its own: a fresh solver context per file, so that
        // a file's findings do not depend on the files checked before it.
        let found = std::thread::scope(|scope| {
            scope
                .spawn(|| kernel_diagnostics(u, s))
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        });
        u.diagnostics.extend(found);
    }
    // Severities and suppression pragmas, as in the editor: a suppressed
    // finding is in no output format (nor in the SARIF log).
    for (u, s) in &mut units {
        let all = std::mem::take(&mut u.diagnostics);
        let kept = lanes_frontend::suppress::filter(u, all, &s.severities);
        u.diagnostics = kept;
    }
    let deny_warnings = args.deny.contains(&Deny::Warnings);
    let mut units: Vec<CheckedUnit> = units.into_iter().map(|(u, _)| u).collect();
    if deny_warnings {
        for u in &mut units {
            for d in &mut u.diagnostics {
                if d.severity == Severity::Warning {
                    d.severity = Severity::Error;
                }
            }
        }
    }

    let views: Vec<(&SourceMap, &[Diagnostic])> = units
        .iter()
        .map(|u| (&u.sources, &u.diagnostics[..]))
        .collect();
    let errors: usize = units
        .iter()
        .map(|u| lanes_diagnostics::count(&u.diagnostics).errors)
        .sum();
    let warnings: usize = units
        .iter()
        .map(|u| lanes_diagnostics::count(&u.diagnostics).warnings)
        .sum();
    let written = match args.format {
        Format::Human => {
            let choice = match args.color {
                Color::Always => ColorChoice::Always,
                Color::Never => ColorChoice::Never,
                Color::Auto if std::io::stderr().is_terminal() => ColorChoice::Auto,
                Color::Auto => ColorChoice::Never,
            };
            let mut err = StandardStream::stderr(choice);
            let mut result = Ok(());
            for (sources, diags) in &views {
                result =
                    result.and_then(|_| lanes_diagnostics::human::emit(&mut err, sources, diags));
            }
            let kernels: usize = units.iter().map(|u| u.hir.kernels().len()).sum();
            result.and_then(|_| {
                writeln!(
                    err,
                    "lanes check: {} file{}, {} kernel{}: {} error{}, {} warning{}",
                    units.len(),
                    plural(units.len()),
                    kernels,
                    plural(kernels),
                    errors,
                    plural(errors),
                    warnings,
                    plural(warnings)
                )
            })
        }
        Format::Json => {
            let report = lanes_diagnostics::json::report(views.iter().copied());
            write_json(&report)
        }
        Format::Sarif => {
            let root = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
            let log = lanes_diagnostics::sarif::log(views.iter().copied(), &root);
            write_json(&log)
        }
    };
    if let Err(e) = written {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write output: {e}");
            return ExitCode::from(2);
        }
    }
    if errors > 0 || unreadable > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The analysis and precondition diagnostics of every kernel of a file
/// without errors, in kernel order; the kernels share the file's budget.
fn kernel_diagnostics(u: &CheckedUnit, s: &FileSettings) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let opts = s.precond_options();
    let mut meter = lanes_vectorizer::precond::Meter::new(&opts.budget);
    for k in u.hir.kernels() {
        match lanes_vectorizer::report::analyze_kernel(&u.hir, k, s.target.width) {
            Ok(ka) => {
                let r = lanes_vectorizer::report::report(&ka, &u.hir, k, &u.sources);
                out.extend(r.diagnostics);
                let found =
                    lanes_vectorizer::precond::infer_with(&ka, &u.hir, k, &opts, &mut meter);
                out.extend(lanes_vectorizer::precond::diagnostics(&found));
            }
            Err(diags) => out.extend(diags),
        }
    }
    out
}

pub fn write_json(value: &impl serde::Serialize) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value).map_err(std::io::Error::other)?;
    writeln!(out)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
