//! Every corpus kernel vectorizes (for W = 4, 8, 16) into vector IR that
//! verifies and is control-uniform: no branch on a non-uniform value, and
//! every block has a mask. Kernels the vectorizer refuses are listed with
//! the reason; only the documented exceptions may be refused.

use std::path::{Path, PathBuf};

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_file;
use lanes_vectorizer::ir::InstKind;
use lanes_vectorizer::report::analyze_kernel;
use lanes_vectorizer::vectorize::vectorize;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .to_path_buf()
}

fn cl_files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    v.sort();
    v
}

#[test]
fn corpus_vectorizes() {
    let mut files = cl_files("tests/kernels/valid");
    files.extend(cl_files("tests/kernels/divergence"));
    files.extend(cl_files("tests/kernels/workgroup"));
    files.extend(cl_files("examples"));
    let mut failures = Vec::new();
    let mut count = 0;
    for path in &files {
        let unit = check_file(path, &PreprocessOptions::default(), &RealFs)
            .unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
        for k in unit.hir.kernels() {
            for width in [4, 8, 16] {
                let Ok(ka) = analyze_kernel(&unit.hir, k, width) else {
                    continue; // L0920 kernels (struct arguments), tested elsewhere
                };
                if ka.func.insts.iter().any(|i| {
                    matches!(
                        i.kind,
                        lanes_vectorizer::ir::InstKind::ImageRead { .. }
                            | lanes_vectorizer::ir::InstKind::ImageWrite { .. }
                            | lanes_vectorizer::ir::InstKind::ImageQuery { .. }
                    )
                }) {
                    continue; // not vectorized yet: `lanes build` refuses them (L0904)
                }
                count += 1;
                let name = &unit.hir.function(k).name;
                let vf = match vectorize(&ka.func, &ka.cfg, &ka.div) {
                    Ok(vf) => vf,
                    Err(e) => {
                        failures.push(format!(
                            "{} {name} W={width}: {}",
                            path.display(),
                            e.message
                        ));
                        continue;
                    }
                };
                let f = &vf.func;
                for b in f.block_ids() {
                    if let Some(t) = f.terminator(b) {
                        let c = match &f.inst(t).kind {
                            InstKind::CondBr { cond, .. } => Some(*cond),
                            InstKind::Switch { value, .. } => Some(*value),
                            _ => None,
                        };
                        if let Some(c) = c {
                            assert!(
                                vf.is_uniform(c),
                                "{name}: bb{} branches on a varying value",
                                b.0
                            );
                        }
                    }
                }
                assert_eq!(vf.block_mask.len(), f.blocks.len(), "{name}");
            }
        }
    }
    assert!(count > 100, "only {count} kernels");
    assert!(failures.is_empty(), "refused:\n{}", failures.join("\n"));
}

/// Prints the vector IR of one kernel: `LANES_PRINT_VIR=<kernel> cargo test
/// -p lanes-vectorizer --test vectorize_corpus print_vir -- --nocapture`.
#[test]
fn print_vir() {
    let Ok(want) = std::env::var("LANES_PRINT_VIR") else {
        return;
    };
    let mut files = cl_files("tests/kernels/valid");
    files.extend(cl_files("tests/kernels/divergence"));
    files.extend(cl_files("tests/kernels/workgroup"));
    files.extend(cl_files("examples"));
    for path in &files {
        let unit = check_file(path, &PreprocessOptions::default(), &RealFs).expect("checks");
        for k in unit.hir.kernels() {
            if unit.hir.function(k).name.as_str() != want {
                continue;
            }
            let ka = analyze_kernel(&unit.hir, k, 8).expect("analyses");
            println!("{}", lanes_vectorizer::report::annotated_ir(&ka));
            let vf = vectorize(&ka.func, &ka.cfg, &ka.div).expect("vectorizes");
            println!("{}", lanes_vectorizer::vectorize::print(&vf));
        }
    }
}
