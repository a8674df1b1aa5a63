//! `lanes build`: SIMD object code (or assembly, LLVM IR, vector IR) and a
//! C header for every kernel of a file.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use lanes_diagnostics::human::termcolor::{ColorChoice, StandardStream};
use lanes_frontend::preprocess::PreprocessOptions;
use lanes_frontend::preprocess::RealFs;
use lanes_frontend::unit::{check_file, CheckedUnit};
use lanes_pipeline::Settings;

use crate::check::MacroArgs;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Emit {
    /// A relocatable object file.
    Obj,
    /// Assembly text for the target.
    Asm,
    /// Optimized LLVM IR text.
    Llvm,
    /// The vector IR of every kernel, with shapes and block masks.
    Vir,
    /// A Rust module: the C entry points and one checked function per
    /// kernel (docs/rust.md).
    Rust,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Specialize {
    Auto,
    Off,
}

#[derive(Args)]
pub struct BuildArgs {
    /// The OpenCL C file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Output file (`-` for standard output; the default for text formats).
    #[arg(short = 'o', value_name = "OUT")]
    output: Option<PathBuf>,
    /// Also write a C/C++ header declaring the kernels.
    #[arg(long, value_name = "OUT.h")]
    header: Option<PathBuf>,
    /// Also write a dependency file in Makefile syntax (for make, Ninja and
    /// CMake's `DEPFILE`): the output depends on FILE, every file it
    /// `#include`s and the `lanes.toml` it was built with.
    #[arg(long, value_name = "OUT.d")]
    depfile: Option<PathBuf>,
    /// SIMD target (see `lanes targets`; default: `target` of the nearest
    /// `lanes.toml`, else host), or a comma-separated list
    /// (`sse4-i32x4,avx2-i32x8,avx512skx-x16`) for one object that runs the
    /// best of them the CPU supports (docs/codegen.md).
    #[arg(long)]
    target: Option<String>,
    /// What to write.
    #[arg(long, value_enum, default_value = "obj")]
    emit: Emit,
    /// Version code on inferred preconditions (fast paths); default:
    /// `specialize` of the nearest `lanes.toml`, else `auto` at -O2, `off`
    /// at -O0.
    #[arg(long, value_enum)]
    specialize: Option<Specialize>,
    /// No optimization (the LLVM pipeline is skipped).
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2", value_parser = ["0", "2"])]
    opt: String,
    /// Infer preconditions again instead of reading the findings cache
    /// (also `LANES_CACHE=off`; docs/preconditions.md).
    #[arg(long)]
    no_cache: bool,
    #[command(flatten)]
    macros: MacroArgs,
}

fn stderr() -> StandardStream {
    StandardStream::stderr(if std::io::stderr().is_terminal() {
        ColorChoice::Auto
    } else {
        ColorChoice::Never
    })
}

/// Checks a file with its settings, printing its diagnostics; `None` when
/// it cannot be read or has errors.
pub fn load_with(file: &Path, settings: &Settings, what: &str) -> Option<CheckedUnit> {
    check_reported(file, &settings.preprocess_options(), what)
}

fn check_reported(file: &Path, options: &PreprocessOptions, what: &str) -> Option<CheckedUnit> {
    let unit = match check_file(file, options, &RealFs) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("error: cannot read `{}`: {e}", file.display());
            return None;
        }
    };
    if unit.has_errors() {
        let mut err = stderr();
        let _ = lanes_diagnostics::human::emit(&mut err, &unit.sources, &unit.diagnostics);
        let _ = writeln!(
            err,
            "lanes {what}: `{}` has errors; nothing was written",
            file.display()
        );
        return None;
    }
    Some(unit)
}

/// Compiles every kernel of a checked unit, printing refusals as
/// diagnostics, and its warnings (L0103).
pub fn compile(
    unit: &CheckedUnit,
    spec: &lanes_codegen::TargetSpec,
    opt_level: u8,
    what: &str,
) -> Option<lanes_codegen::Compiled> {
    let options = lanes_codegen::Options { opt_level };
    match lanes_codegen::compile_unit(&unit.hir, spec, &options) {
        Ok(c) => {
            let warnings = lanes_pipeline::loop_warnings_in(unit, unit, c.warnings());
            if !warnings.is_empty() {
                let _ = lanes_diagnostics::human::emit(&mut stderr(), &unit.sources, &warnings);
            }
            Some(c)
        }
        Err(diags) => {
            let mut err = stderr();
            let _ = lanes_diagnostics::human::emit(&mut err, &unit.sources, &diags);
            let _ = writeln!(err, "lanes {what}: nothing was written");
            None
        }
    }
}

pub fn target(name: &str) -> Option<lanes_codegen::TargetSpec> {
    if name.contains(',') {
        // Only `lanes build` makes one object of several targets.
        eprintln!("error: `{name}` is a list of targets; this command runs one (`--target avx2-i32x8`, or `host`)");
        return None;
    }
    match lanes_codegen::target_spec(name) {
        Ok(t) => Some(t),
        Err(e) => {
            eprintln!("error: {e}");
            None
        }
    }
}

pub fn run(args: BuildArgs) -> ExitCode {
    let mut flags = args.macros.command_line(args.target.as_deref());
    flags.specialize = args.specialize.map(|s| match s {
        Specialize::Auto => lanes_pipeline::Specialize::Auto,
        Specialize::Off => lanes_pipeline::Specialize::Off,
    });
    let settings = match crate::project::settings_for(&args.file, &flags) {
        Ok(s) => s,
        Err(code) => return code,
    };
    // One target, or a list (checked with the settings) for one object
    // that dispatches among them.
    let mut specs = Vec::new();
    for name in settings.target.split(',').map(str::trim) {
        let Some(spec) = target(name) else {
            return ExitCode::from(2);
        };
        specs.push(spec);
    }
    let mut notes: Vec<String> = Vec::new();
    let mut builds: Vec<(CheckedUnit, lanes_codegen::Compiled)> = Vec::new();
    let cache = lanes_pipeline::Cache::from_env(args.no_cache);
    for spec in &specs {
        match compile_target(&args, &settings, spec, cache.as_ref(), &mut notes) {
            Ok(b) => builds.push(b),
            Err(code) => return code,
        }
    }
    let multi = if builds.len() > 1 {
        match lanes_codegen::link_targets(builds.iter().map(|(_, c)| c.clone()).collect()) {
            Ok(m) => Some(m),
            Err(e) => {
                eprintln!("error: code generation failed: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        None
    };
    // The header and the dependencies come from the source, the same for
    // every target.
    let (unit, compiled) = &builds[0];
    let spec = &specs[0];
    // Everything is produced in memory first, so that an error leaves no
    // file behind; files are then written atomically (temporary + rename).
    let output: Result<Vec<u8>, String> = match (args.emit, &multi) {
        (Emit::Obj, None) => compiled.object(),
        (Emit::Obj, Some(m)) => m.object(),
        (Emit::Asm, None) => compiled.assembly().map(String::into_bytes),
        (Emit::Asm, Some(m)) => m.assembly().map(String::into_bytes),
        (Emit::Llvm, None) => Ok(compiled.llvm_ir().into_bytes()),
        (Emit::Llvm, Some(m)) => Ok(m.llvm_ir().into_bytes()),
        (Emit::Vir, _) => Ok(builds
            .iter()
            .map(|(_, c)| {
                let vir = c
                    .kernels()
                    .iter()
                    .map(|k| lanes_vectorizer::vectorize::print(&k.vf))
                    .collect::<Vec<_>>()
                    .join("\n");
                match &multi {
                    Some(_) => format!("; target {}\n{vir}", c.spec.name),
                    None => vir,
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes()),
        // The entry points are the same for every target.
        (Emit::Rust, _) => {
            Ok(
                lanes_codegen::rust_bindings(&unit.hir, compiled, &args.file.display().to_string())
                    .into_bytes(),
            )
        }
    };
    let output = match output {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: code generation failed: {e}");
            return ExitCode::from(1);
        }
    };
    let header = args.header.as_ref().map(|h| {
        let guard = h
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "lanes.h".into());
        match &multi {
            Some(m) => lanes_codegen::multi_target_header(&unit.hir, m, &guard),
            None => lanes_codegen::header(&unit.hir, compiled, &guard),
        }
    });
    // Objects are self-contained except where a CPU lacks an instruction
    // LLVM must then call the C library for (fused multiply-add on SSE4).
    if args.emit == Emit::Obj {
        let needed = match &multi {
            Some(m) => m.libm_symbols(),
            None => compiled.libm_symbols(),
        };
        if !needed.is_empty() {
            eprintln!(
                "note: the object calls {} from the C math library (no such instruction on `{}`): link with `-lm`",
                needed.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "),
                if multi.is_some() { "sse4" } else { spec.name.as_str() }
            );
        }
    }
    let to_stdout = match &args.output {
        None => args.emit != Emit::Obj,
        Some(p) => p.as_os_str() == "-",
    };
    if args.output.is_none() && args.emit == Emit::Obj {
        eprintln!("error: `--emit obj` needs an output file: `-o OUT.o`");
        return ExitCode::from(2);
    }
    let depfile = match (&args.depfile, &args.output) {
        (None, _) => None,
        (Some(d), Some(out)) if !to_stdout => Some((d, depfile_text(out, &args.file, unit))),
        (Some(_), _) => {
            eprintln!("error: `--depfile` needs an output file to name as the target: `-o OUT`");
            return ExitCode::from(2);
        }
    };
    if to_stdout {
        let mut out = std::io::stdout().lock();
        if let Err(e) = out.write_all(&output).and_then(|_| out.flush()) {
            eprintln!("error: cannot write to standard output: {e}");
            return ExitCode::from(1);
        }
    } else if let Some(path) = &args.output {
        if let Err(e) = lanes_codegen::write_atomically(path, &output) {
            eprintln!("error: cannot write `{}`: {e}", path.display());
            return ExitCode::from(1);
        }
    }
    let extra = args
        .header
        .as_ref()
        .zip(header.map(String::into_bytes))
        .into_iter()
        .chain(depfile.map(|(p, t)| (p, t.into_bytes())));
    let mut written: Vec<&PathBuf> = Vec::new();
    for (path, bytes) in extra {
        if let Err(e) = lanes_codegen::write_atomically(path, &bytes) {
            eprintln!("error: cannot write `{}`: {e}", path.display());
            // Nothing half-done: the outputs written so far go too.
            for p in args.output.iter().filter(|_| !to_stdout).chain(written) {
                let _ = std::fs::remove_file(p);
            }
            return ExitCode::from(1);
        }
        written.push(path);
    }
    ExitCode::SUCCESS
}

/// The file checked, planned (the one pipeline, as `lanes check` runs it:
/// the same analyses and, with `--specialize auto`, the same precondition
/// inference on the build's budget, its findings from the cache where it
/// has them) and compiled for one target at its
/// width. Its notes are printed unless `notes` (those of the targets
/// before) has them: each target's run says the same.
fn compile_target(
    args: &BuildArgs,
    settings: &lanes_pipeline::Settings,
    spec: &lanes_codegen::TargetSpec,
    cache: Option<&lanes_pipeline::Cache>,
    notes: &mut Vec<String>,
) -> Result<(CheckedUnit, lanes_codegen::Compiled), ExitCode> {
    // A build spends its own precondition budget (docs/preconditions.md).
    let mut settings = settings.for_build();
    // Code is generated for the target's width and instructions.
    settings.width = spec.width;
    settings.lowering = spec.lowering();
    let Some(unit) = load_with(&args.file, &settings, "build") else {
        return Err(ExitCode::from(1));
    };
    if unit.hir.kernels().is_empty() {
        eprintln!(
            "error: `{}` has no kernels (functions declared `__kernel`)",
            args.file.display()
        );
        return Err(ExitCode::from(1));
    }
    let default = if args.opt == "0" {
        lanes_pipeline::Specialize::Off
    } else {
        lanes_pipeline::Specialize::Auto
    };
    let plan = lanes_pipeline::plan_build_cached(&unit, &settings, default, &RealFs, cache);
    let mut said = Vec::new();
    if plan.specialization_failed {
        said.push(format!(
            "warning: the specialized source of `{}` does not check; building it unspecialized",
            args.file.display()
        ));
    }
    for a in &plan.applied {
        said.push(format!(
            "note: fast path for the {} at {}:{} in `{}`: taken by SIMD groups where every lane satisfies `{}`",
            a.kind.as_str(),
            args.file.display(),
            a.line,
            a.kernel,
            a.condition
        ));
    }
    for n in said {
        if !notes.contains(&n) {
            eprintln!("{n}");
            notes.push(n);
        }
    }
    let opt_level = if args.opt == "0" { 0 } else { 2 };
    let compiled = {
        let unit = plan.specialized.as_ref().unwrap_or(&unit);
        lanes_codegen::compile_analysed(
            &unit.hir,
            plan.analysed(),
            spec,
            &lanes_codegen::Options { opt_level },
        )
        .map_err(|diags| {
            let mut err = stderr();
            let _ = lanes_diagnostics::human::emit(&mut err, &unit.sources, &diags);
            let _ = writeln!(err, "lanes build: nothing was written");
            ExitCode::from(1)
        })?
    };
    // Warnings of code generation, in the user's text (a specialized unit
    // has fast paths inserted), once across targets.
    let mut warnings = plan.loop_warnings_in(&unit, compiled.warnings());
    warnings.retain(|w| {
        let key = format!("{} {}:{}", w.code, w.span.file.0, w.span.start);
        let new = !notes.contains(&key);
        if new {
            notes.push(key);
        }
        new
    });
    if !warnings.is_empty() {
        let _ = lanes_diagnostics::human::emit(&mut stderr(), &unit.sources, &warnings);
    }
    Ok((plan.specialized.unwrap_or(unit), compiled))
}

/// `OUT: FILE INCLUDED... lanes.toml`, each path escaped as make reads it.
fn depfile_text(output: &Path, file: &Path, unit: &CheckedUnit) -> String {
    let mut deps: Vec<PathBuf> = vec![file.to_path_buf()];
    for &(_, included) in &unit.preprocessed.includes {
        if let Some(p) = &unit.sources.get(included).path {
            if !deps.contains(p) {
                deps.push(p.clone());
            }
        }
    }
    if let Some(toml) = lanes_pipeline::settings::find(file) {
        deps.push(toml);
    }
    let mut text = format!("{}:", make_escape(output));
    for d in &deps {
        text.push_str(" \\\n  ");
        text.push_str(&make_escape(d));
    }
    text.push('\n');
    text
}

/// A path as a make rule names it: spaces and `#` escaped with a backslash,
/// `$` doubled (what GCC's `-MD` writes, which make, Ninja and CMake read).
fn make_escape(path: &Path) -> String {
    let mut out = String::new();
    for c in path.to_string_lossy().chars() {
        match c {
            ' ' => out.push_str("\\ "),
            '#' => out.push_str("\\#"),
            '$' => out.push_str("$$"),
            c => out.push(c),
        }
    }
    out
}
