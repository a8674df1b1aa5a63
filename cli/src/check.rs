//! `lanes check`: run the front end over files and report.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use lanes_diagnostics::human::termcolor::{ColorChoice, StandardStream};
use lanes_frontend::diag::{Diagnostic, Severity};
use lanes_frontend::preprocess::RealFs;
use lanes_frontend::source::SourceMap;
use lanes_frontend::unit::{check_file, CheckedUnit};
use lanes_pipeline::CommandLine;

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

impl MacroArgs {
    /// The flags as the command line's layer of the settings.
    pub fn command_line(&self, target: Option<&str>) -> CommandLine {
        CommandLine {
            target: target.map(str::to_string),
            defines: self.define.clone(),
            undefines: self.undefine.clone(),
            include_dirs: self.include.clone(),
            specialize: None,
        }
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
    /// Infer preconditions again instead of reading the findings cache
    /// (also `LANES_CACHE=off`; docs/preconditions.md).
    #[arg(long)]
    no_cache: bool,
}

pub fn run(args: CheckArgs) -> ExitCode {
    // Every file with its settings (its own `lanes.toml`), before any work.
    let flags = args.macros.command_line(args.target.as_deref());
    let mut settings = Vec::new();
    for path in &args.files {
        match crate::project::settings_for(path, &flags) {
            Ok(s) => settings.push(s),
            Err(code) => return code,
        }
    }

    let mut units: Vec<CheckedUnit> = Vec::new();
    let mut unreadable = 0;
    let cache = lanes_pipeline::Cache::from_env(args.no_cache);
    for (path, s) in args.files.iter().zip(&settings) {
        match check_file(path, &s.preprocess_options(), &RealFs) {
            Ok(mut unit) => {
                // The one pipeline (analysis, report, preconditions,
                // severities and pragmas), as every face runs it.
                // Findings from the cache where it has them.
                unit.diagnostics =
                    lanes_pipeline::run_file_cached(&unit, s, None, cache.as_ref()).diagnostics;
                units.push(unit);
            }
            Err(e) => {
                eprintln!("error: cannot read `{}`: {e}", path.display());
                unreadable += 1;
            }
        }
    }
    let deny_warnings = args.deny.contains(&Deny::Warnings);
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
