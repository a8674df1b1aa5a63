//! Every kernel of the corpus and the examples: the database gives what
//! `lanes check`/`lanes explain` give, and every kernel is analysed on the
//! incremental path (its own bodies), not in the whole-unit fallback.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_text;

fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut out = Vec::new();
    for dir in [
        "tests/kernels/valid",
        "tests/kernels/divergence",
        "tests/kernels/invalid",
        "examples",
    ] {
        let Ok(rd) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "cl") {
                out.push(p.canonicalize().unwrap_or(p));
            }
        }
    }
    out.sort();
    assert!(out.len() > 40, "corpus not found");
    out
}

fn oracle_fs(
    path: &Path,
    text: &str,
    width: u32,
) -> (Vec<lanes_frontend::diag::Diagnostic>, Vec<String>) {
    let options = PreprocessOptions {
        width,
        ..PreprocessOptions::default()
    };
    let mut u = check_text(
        &path.display().to_string(),
        Some(path.to_path_buf()),
        text,
        &options,
        &RealFs,
    );
    let mut reports = Vec::new();
    if !u.has_errors() {
        for k in u.hir.kernels() {
            match lanes_vectorizer::report::analyze_kernel(&u.hir, k, width) {
                Ok(ka) => {
                    let r = lanes_vectorizer::report::report(&ka, &u.hir, k, &u.sources);
                    u.diagnostics.extend(r.diagnostics.iter().cloned());
                    reports.push(format!("{r:?}"));
                }
                Err(d) => {
                    reports.push(format!("{d:?}"));
                    u.diagnostics.extend(d);
                }
            }
        }
    }
    (u.diagnostics, reports)
}

#[test]
fn corpus_matches_lanes_check() {
    let mut analysed = 0;
    for width in [4, 16] {
        let mut db = lanes_db::LanesDatabase::new(settings(width));
        for path in files() {
            let text = lanes_frontend::source::read_source(&path).unwrap().text;
            let file = db.set_file(path.clone(), &text, 0);
            let (d1, r1) = from_db(&db, file);
            let (d2, r2) = oracle_fs(&path, &text, width);
            assert_eq!(d1, d2, "{}", path.display());
            assert_eq!(r1, r2, "{}", path.display());
            if d1.iter().any(|d| d.is_error()) {
                continue;
            }
            for k in lanes_db::kernels(&db, file) {
                analysed += 1;
                assert!(
                    lanes_db::kernel_analysis(&db, k).incremental,
                    "{}: kernel {} was analysed in the whole unit",
                    path.display(),
                    k.name(&db)
                );
            }
        }
    }
    assert!(analysed > 80, "{analysed}");
}

/// Two kernels made by one macro invocation cannot be cut apart by their
/// spans: they are analysed in the whole unit, with the same results.
#[test]
fn items_made_by_one_macro_fall_back_correctly() {
    let text = "#define PAIR(a, b) \\\n  __kernel void a(__global float *p) { p[get_global_id(0)] = 1.0f; } \\\n  __kernel void b(__global float *p) { p[2 * get_global_id(0)] = 2.0f; }\nPAIR(k1, k2)\n__kernel void k3(__global float *p) { int i = get_global_id(0); if (i > 3) p[i] = 0.0f; }\n";
    let mut db = lanes_db::LanesDatabase::new(settings(8));
    let path = PathBuf::from("/virtual/pair.cl");
    let file = db.set_file(path.clone(), text, 0);
    let (d1, r1) = from_db(&db, file);
    let (d2, r2) = oracle(&path, text, 8, &MemFs(Default::default()));
    assert_eq!(d1, d2);
    assert_eq!(r1, r2);
    assert_eq!(r1.len(), 3);
    assert!(d1
        .iter()
        .any(|d| d.code == lanes_frontend::diag::Code::StridedAccess));
    // The two made by the macro fall back; the third is incremental.
    let paths: Vec<(String, bool)> = lanes_db::kernels(&db, file)
        .into_iter()
        .map(|k| {
            (
                k.name(&db).to_string(),
                lanes_db::kernel_analysis(&db, k).incremental,
            )
        })
        .collect();
    assert_eq!(
        paths,
        vec![
            ("k1".into(), false),
            ("k2".into(), false),
            ("k3".into(), true)
        ]
    );
}
