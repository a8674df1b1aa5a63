//! `lanes build`: SIMD object code (or assembly, LLVM IR, vector IR) and a
//! C header for every kernel of a file.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use lanes_diagnostics::human::termcolor::{ColorChoice, StandardStream};
use lanes_frontend::preprocess::RealFs;
use lanes_frontend::unit::{check_file, CheckedUnit};

use crate::check::{preprocess_options, MacroArgs};

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
    /// SIMD target (see `lanes targets`).
    #[arg(long, default_value = "host")]
    target: String,
    /// What to write.
    #[arg(long, value_enum, default_value = "obj")]
    emit: Emit,
    /// Version code on inferred preconditions (fast paths); default: `auto`
    /// at -O2, `off` at -O0.
    #[arg(long, value_enum)]
    specialize: Option<Specialize>,
    /// No optimization (the LLVM pipeline is skipped).
    #[arg(short = 'O', value_name = "LEVEL", default_value = "2", value_parser = ["0", "2"])]
    opt: String,
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

/// Checks a file, printing its diagnostics; `None` when it cannot be read
/// or has errors.
pub fn load(file: &Path, macros: &MacroArgs, width: u32, what: &str) -> Option<CheckedUnit> {
    let options = preprocess_options(macros, width);
    let unit = match check_file(file, &options, &RealFs) {
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

/// Compiles every kernel of a checked unit, printing refusals as diagnostics.
pub fn compile(
    unit: &CheckedUnit,
    spec: &lanes_codegen::TargetSpec,
    opt_level: u8,
    what: &str,
) -> Option<lanes_codegen::Compiled> {
    let options = lanes_codegen::Options { opt_level };
    match lanes_codegen::compile_unit(&unit.hir, spec, &options) {
        Ok(c) => Some(c),
        Err(diags) => {
            let mut err = stderr();
            let _ = lanes_diagnostics::human::emit(&mut err, &unit.sources, &diags);
            let _ = writeln!(err, "lanes {what}: nothing was written");
            None
        }
    }
}

pub fn target(name: &str) -> Option<lanes_codegen::TargetSpec> {
    match lanes_codegen::target_spec(name) {
        Ok(t) => Some(t),
        Err(e) => {
            eprintln!("error: {e}");
            None
        }
    }
}

pub fn run(args: BuildArgs) -> ExitCode {
    let Some(spec) = target(&args.target) else {
        return ExitCode::from(2);
    };
    let Some(unit) = load(&args.file, &args.macros, spec.width, "build") else {
        return ExitCode::from(1);
    };
    if unit.hir.kernels().is_empty() {
        eprintln!(
            "error: `{}` has no kernels (functions declared `__kernel`)",
            args.file.display()
        );
        return ExitCode::from(1);
    }
    let specialize = args.specialize.unwrap_or(if args.opt == "0" {
        Specialize::Off
    } else {
        Specialize::Auto
    });
    let unit = if specialize == Specialize::Auto {
        specialized(unit, &args, spec.width)
    } else {
        unit
    };
    let Some(compiled) = compile(&unit, &spec, if args.opt == "0" { 0 } else { 2 }, "build") else {
        return ExitCode::from(1);
    };
    // Everything is produced in memory first, so that an error leaves no
    // file behind; files are then written atomically (temporary + rename).
    let output: Result<Vec<u8>, String> = match args.emit {
        Emit::Obj => compiled.object(),
        Emit::Asm => compiled.assembly().map(String::into_bytes),
        Emit::Llvm => Ok(compiled.llvm_ir().into_bytes()),
        Emit::Vir => Ok(compiled
            .kernels()
            .iter()
            .map(|k| lanes_vectorizer::vectorize::print(&k.vf))
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes()),
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
        lanes_codegen::header(&unit.hir, &compiled, &guard)
    });
    // Objects are self-contained except where a CPU lacks an instruction
    // LLVM must then call the C library for (fused multiply-add on SSE4).
    if args.emit == Emit::Obj {
        let needed = compiled.libm_symbols();
        if !needed.is_empty() {
            eprintln!(
                "note: the object calls {} from the C math library (no such instruction on `{}`): link with `-lm`",
                needed.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", "),
                spec.name
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
    if let (Some(path), Some(text)) = (&args.header, header) {
        if let Err(e) = lanes_codegen::write_atomically(path, text.as_bytes()) {
            eprintln!("error: cannot write `{}`: {e}", path.display());
            if let Some(o) = args.output.as_ref().filter(|_| !to_stdout) {
                let _ = std::fs::remove_file(o);
            }
            return ExitCode::from(1);
        }
    }
    ExitCode::SUCCESS
}

/// The unit with a fast path for every proven precondition (`--specialize
/// auto`): the source with `if (sub_group_all(P)) { copy } else { original }`
/// inserted, checked again. Falls back to the original unit if that text
/// does not check (which would be a bug; it is reported).
fn specialized(unit: CheckedUnit, args: &BuildArgs, width: u32) -> CheckedUnit {
    let s = lanes_vectorizer::precond::specialize(
        &unit,
        &lanes_vectorizer::precond::Options::new(width),
    );
    if s.applied.is_empty() {
        return unit;
    }
    let options = preprocess_options(&args.macros, width);
    let file = unit.sources.get(unit.main);
    let (name, path) = (file.name.clone(), file.path.clone());
    let new = lanes_frontend::unit::check_text(&name, path, &s.text, &options, &RealFs);
    if new.has_errors() {
        eprintln!(
            "warning: the specialized source of `{}` does not check; building it unspecialized",
            args.file.display()
        );
        return unit;
    }
    for a in &s.applied {
        eprintln!(
            "note: fast path for the {} at {}:{} in `{}`: taken by SIMD groups where every lane satisfies `{}`",
            a.kind.as_str(),
            args.file.display(),
            a.line,
            a.kernel,
            a.condition
        );
    }
    new
}
