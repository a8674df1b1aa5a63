//! The back end's file tests, `codegen/tests/filetests/<pass>/`: vector IR
//! (`.vir`, pass `codegen`) or OpenCL C (`.cl`, pass `build`: the whole
//! pipeline of `lanes build --emit llvm`) to LLVM IR, checked with
//! `filecheck` directives. The format is the vectorizer's
//! (`vectorizer/tests/filetest/mod.rs`, included here); docs:
//! `docs/testing.md`.

#[path = "../../vectorizer/tests/filetest/mod.rs"]
mod filetest;

use filetest::{State, TestFile};
use lanes_codegen::{compile_kernels, compile_unit, target_spec, KernelCode, Options};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_file;

/// The LLVM IR of the file's target (`target:`, default `avx2-i32x8`) at
/// its optimization level (`opt:`, default 2). Emitting IR needs no CPU
/// that runs it, so nothing is skipped.
fn llvm_pass(t: &TestFile, pass: &str, state: State) -> Result<State, String> {
    let target = t.option_text("target").unwrap_or("avx2-i32x8");
    let spec = target_spec(target).map_err(|e| t.error(format!(" {e}")))?;
    let opts = Options {
        opt_level: t.option("opt", 2u8)?,
    };
    let compiled = if pass == "build" {
        let unit = check_file(&t.path, &PreprocessOptions::default(), &RealFs)
            .map_err(|e| t.error(format!(" {e:?}")))?;
        if unit.has_errors() {
            return Err(t.error(format!(" {:?}", unit.diagnostics)));
        }
        compile_unit(&unit.hir, &spec, &opts)
    } else {
        let vfs = state.vector(t)?;
        if let Some(vf) = vfs.iter().find(|vf| vf.width != spec.width) {
            return Err(t.error(format!(
                " vector IR of W = {} for target {target} of W = {}",
                vf.width, spec.width
            )));
        }
        compile_kernels(
            vfs.into_iter().map(KernelCode::from_vf).collect(),
            &spec,
            &opts,
        )
    };
    compiled
        .map(|c| State::Printed(c.llvm_ir()))
        .map_err(|d| t.error(format!(" {d:?}")))
}

#[test]
fn codegen_file_tests() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/filetests");
    filetest::run_all(&dir, |t, pass, state| match pass {
        "codegen" | "build" => Some(llvm_pass(t, pass, state)),
        _ => filetest::vectorizer_pass(t, pass, state),
    });
}
