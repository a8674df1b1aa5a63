//! Every kernel of the corpus (`tests/kernels/valid/*.cl`) and of
//! `examples/*.cl` lowers to IR that passes the verifier and the basic
//! structural checks below.

use std::path::{Path, PathBuf};

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_file;
use lanes_vectorizer::ir::{Function, InstKind};
use lanes_vectorizer::lower::lower_kernel;

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

/// Structure the later passes rely on, checked independently of the
/// verifier: one terminator per block, at the end; φs first; φ incoming
/// blocks are exactly the predecessors (by edge); every block reachable.
fn well_formed(f: &Function) -> Result<(), String> {
    let preds = f.predecessors();
    for b in f.block_ids() {
        let block = f.block(b);
        let Some((&last, rest)) = block.insts.split_last() else {
            return Err(format!("bb{} is empty", b.0));
        };
        if !f.inst(last).kind.is_terminator() {
            return Err(format!("bb{} does not end in a terminator", b.0));
        }
        let mut seen_non_phi = false;
        for &i in rest {
            let k = &f.inst(i).kind;
            if k.is_terminator() {
                return Err(format!("bb{} has a terminator before its end", b.0));
            }
            if k.is_phi() {
                if seen_non_phi {
                    return Err(format!("bb{} has a φ after other instructions", b.0));
                }
                let InstKind::Phi { incoming } = k else {
                    unreachable!()
                };
                let mut inc: Vec<_> = incoming.iter().map(|&(p, _)| p).collect();
                let mut ps = preds[b.index()].clone();
                inc.sort();
                ps.sort();
                if inc != ps {
                    return Err(format!(
                        "bb{}: φ incoming {inc:?} but predecessors {ps:?}",
                        b.0
                    ));
                }
            } else {
                seen_non_phi = true;
            }
            if f.inst(i).block != b {
                return Err(format!(
                    "bb{}: instruction {} claims another block",
                    b.0, i.0
                ));
            }
        }
        if b != f.entry && preds[b.index()].is_empty() {
            return Err(format!("bb{} is unreachable", b.0));
        }
    }
    if !preds[f.entry.index()].is_empty() {
        return Err("the entry block has predecessors".into());
    }
    Ok(())
}

#[test]
fn corpus_lowers_and_verifies() {
    let mut files = cl_files("tests/kernels/valid");
    files.extend(cl_files("examples"));
    assert!(files.len() >= 50, "only {} files found", files.len());
    let mut kernels = 0;
    let mut failures = Vec::new();
    for path in &files {
        let unit = check_file(path, &PreprocessOptions::default(), &RealFs)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            !unit.has_errors(),
            "{}: the front end reports errors",
            path.display()
        );
        for k in unit.hir.kernels() {
            kernels += 1;
            let func = unit.hir.function(k);
            let name = format!("{}: {}", path.display(), func.name);
            match lower_kernel(&unit.hir, k) {
                Ok(f) => {
                    // `LANES_PRINT_IR=name` prints the IR of matching kernels.
                    if let Ok(filter) = std::env::var("LANES_PRINT_IR") {
                        if name.contains(&filter) {
                            println!(
                                "{name}\n{}",
                                lanes_vectorizer::ir::print::print(
                                    &f,
                                    &lanes_vectorizer::ir::print::Plain
                                )
                            );
                        }
                    }
                    if let Err(e) = well_formed(&f) {
                        failures.push(format!("{name}: {e}"));
                    }
                    if let Err(e) = lanes_vectorizer::ir::verify::verify(&f) {
                        failures.push(format!(
                            "{name}: verifier: {e:?}\n{}",
                            lanes_vectorizer::ir::print::print(
                                &f,
                                &lanes_vectorizer::ir::print::Plain
                            )
                        ));
                    }
                }
                Err(errors) => failures.push(format!("{name}: {errors:?}")),
            }
        }
    }
    assert!(kernels >= 80, "only {kernels} kernels");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Lowering never panics: on the invalid corpus (whose HIR has error
/// nodes) and on mutated valid files. Whatever lowers without error must
/// verify.
#[test]
fn lowering_never_panics() {
    let mut files = cl_files("tests/kernels/invalid");
    files.extend(cl_files("tests/kernels/valid"));
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        // xorshift64*: deterministic, no dependency.
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        seed.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let mut lowered = 0;
    for path in &files {
        let text = lanes_frontend::source::read_source(path)
            .expect("readable")
            .text;
        let mut variants = vec![text.clone()];
        let lines: Vec<&str> = text.lines().collect();
        for _ in 0..12 {
            // Drop one line, or cut a byte range at character boundaries.
            let v = if next() % 2 == 0 && !lines.is_empty() {
                let k = (next() % lines.len() as u64) as usize;
                let mut l = lines.clone();
                l.remove(k);
                l.join("\n")
            } else {
                let n = text.len().max(1) as u64;
                let a = (next() % n) as usize;
                let b = (a + (next() % 24) as usize).min(text.len());
                if text.is_char_boundary(a) && text.is_char_boundary(b) {
                    format!("{}{}", &text[..a], &text[b..])
                } else {
                    continue;
                }
            };
            variants.push(v);
        }
        for v in variants {
            let unit = lanes_frontend::unit::check_text(
                &path.display().to_string(),
                Some(path.clone()),
                &v,
                &PreprocessOptions::default(),
                &RealFs,
            );
            for k in unit.hir.kernels() {
                if let Ok(f) = lower_kernel(&unit.hir, k) {
                    lowered += 1;
                    if let Err(e) = lanes_vectorizer::ir::verify::verify(&f) {
                        panic!(
                            "{}: a mutation lowers to IR that does not verify: {e:?}\n{v}",
                            path.display()
                        );
                    }
                }
            }
        }
    }
    assert!(lowered > 100, "only {lowered} kernels lowered");
}
