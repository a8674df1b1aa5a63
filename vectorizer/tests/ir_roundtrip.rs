//! The IR reader reads back what the printer writes: for every kernel of
//! the corpus (`tests/kernels/**.cl`), the IR after each step of the
//! pipeline (lowering, canonical loops, the analyses' annotations, the
//! vector IR) prints identically after `parse`, and the vectorizer run on
//! the read-back scalar IR gives the same vector IR (up to the numbering of
//! values), so file tests that start from printed IR test the real passes.

use std::path::{Path, PathBuf};

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_file;
use lanes_vectorizer::cfg::{canonicalize, Cfg};
use lanes_vectorizer::ir::parse::parse_function;
use lanes_vectorizer::ir::print::{print, Plain};
use lanes_vectorizer::lower::{lower_kernel_with, Options};
use lanes_vectorizer::report::annotated_ir;
use lanes_vectorizer::vectorize;

fn corpus_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for e in entries {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "cl") {
                out.push(p);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace root")
        .join("tests/kernels");
    let mut out = Vec::new();
    walk(&root, &mut out);
    out.sort();
    out
}

/// `text` with its `%N` renumbered in order of first appearance.
fn renumbered(text: &str) -> String {
    let mut map = std::collections::HashMap::new();
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('%') {
        out.push_str(&rest[..=i]);
        rest = &rest[i + 1..];
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        if n > 0 {
            let next = map.len();
            let k = *map.entry(rest[..n].to_string()).or_insert(next);
            out.push_str(&k.to_string());
            rest = &rest[n..];
        }
    }
    out.push_str(rest);
    out
}

/// `text` read back and printed again, or why it differs.
fn round_trip(what: &str, text: &str) -> Result<(), String> {
    let parsed = parse_function(text).map_err(|e| format!("{what}: {e}\n{text}"))?;
    let again = print(&parsed.func, &parsed.annotations);
    if again != text {
        return Err(format!(
            "{what}: printed differently after reading\n--- printed\n{text}\n--- read and printed\n{again}"
        ));
    }
    Ok(())
}

#[test]
fn corpus_ir_reads_back_at_every_step() {
    let files = corpus_files();
    assert!(files.len() > 100, "the corpus is in tests/kernels");
    let width = 8;
    let mut failures = Vec::new();
    let mut kernels = 0;
    let mut vectorized = 0;
    for path in &files {
        let Ok(unit) = check_file(path, &PreprocessOptions::default(), &RealFs) else {
            continue;
        };
        if unit.has_errors() {
            continue;
        }
        for k in unit.hir.kernels() {
            let name = format!("{} {}", path.display(), unit.hir.function(k).name);
            let Ok(mut f) = lower_kernel_with(&unit.hir, k, &Options { fma: true }) else {
                continue;
            };
            kernels += 1;
            let mut check = |what: &str, text: String| {
                if let Err(e) = round_trip(&format!("{name} ({what})"), &text) {
                    failures.push(e);
                }
            };
            check("lowered", print(&f, &Plain));
            if canonicalize(&mut f).is_err() {
                continue;
            }
            let canonical = print(&f, &Plain);
            check("canonical", canonical.clone());
            let Ok(ka) = lanes_vectorizer::report::analyze_kernel_with(
                &unit.hir,
                k,
                width,
                &Options { fma: true },
            ) else {
                continue;
            };
            check("analysed", annotated_ir(&ka));
            let Ok(vf) = vectorize::vectorize(&ka.func, &ka.cfg, &ka.div) else {
                continue;
            };
            vectorized += 1;
            let vir = vectorize::print(&vf);
            match vectorize::parse(&vir) {
                Ok(v) if v.len() == 1 && vectorize::print(&v[0]) == vir => {}
                Ok(v) => failures.push(format!(
                    "{name} (vector IR): printed differently after reading\n--- printed\n{vir}\n--- read and printed\n{}",
                    v.iter().map(vectorize::print).collect::<String>()
                )),
                Err(e) => failures.push(format!("{name} (vector IR): {e}\n{vir}")),
            }
            // The passes see the same function in the read-back IR.
            if ka.func.insts.iter().any(|i| i.kind.is_work_group_sync()) {
                continue;
            }
            let direct = {
                let cfg = Cfg::compute(&f);
                let div = lanes_vectorizer::divergence::analyze(&f, &cfg, width);
                vectorize::vectorize(&f, &cfg, &div).map(|vf| vectorize::print(&vf))
            };
            let read = parse_function(&canonical).expect("read above");
            let cfg = Cfg::compute(&read.func);
            let div = lanes_vectorizer::divergence::analyze(&read.func, &cfg, width);
            let via_text =
                vectorize::vectorize(&read.func, &cfg, &div).map(|vf| vectorize::print(&vf));
            if let (Ok(a), Ok(b)) = (&direct, &via_text) {
                if renumbered(a) != renumbered(b) {
                    failures.push(format!(
                        "{name}: vectorizing the read-back IR gives other vector IR\n--- direct\n{a}\n--- from the text\n{b}"
                    ));
                }
            } else if direct.is_ok() != via_text.is_ok() {
                failures.push(format!(
                    "{name}: vectorizes only one way: {direct:?} {via_text:?}"
                ));
            }
        }
    }
    eprintln!("{kernels} kernels read back, {vectorized} of them vectorized");
    assert!(
        kernels > 150 && vectorized > 100,
        "{kernels} kernels, {vectorized} vectorized"
    );
    assert!(
        failures.is_empty(),
        "{} of {kernels} kernels:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
