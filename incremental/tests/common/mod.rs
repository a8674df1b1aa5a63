//! Shared helpers of the lanes-db tests: a generated many-kernel file, an
//! event-logging database and the from-scratch oracle (`lanes check`).
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use lanes_db::salsa::{DatabaseKeyIndex, EventKind};
use lanes_db::{LanesDatabase, Settings};
use lanes_frontend::diag::Diagnostic;
use lanes_frontend::preprocess::{FileLoader, PreprocessOptions};
use lanes_frontend::unit::check_text;

/// A file with `n` kernels. Kernels 3 and 12 call `helper_shared`, kernel 5
/// calls `helper_other` (which calls `helper_leaf`); there is a struct and a
/// `__constant` table, and comments between items.
pub fn generated(n: usize) -> String {
    let mut s = String::from(
        "// generated.cl - many kernels for the incrementality tests\n\n\
         typedef struct { float a; float b; } Pair;\n\n\
         __constant float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};\n\n\
         // shared by kernels 3 and 12\n\
         float helper_shared(float v, int i)\n{\n    if (i % 2 == 0)\n        return v * 2.0f;\n    return v + table[i & 3];\n}\n\n\
         float helper_leaf(float v)\n{\n    return v * v;\n}\n\n\
         // used by kernel 5 only\n\
         float helper_other(float v)\n{\n    return helper_leaf(v) + 1.0f;\n}\n\n",
    );
    for k in 0..n {
        let call = match k {
            3 | 12 => "v = helper_shared(v, i);",
            5 => "v = helper_other(v);",
            _ => "v = v * 0.5f;",
        };
        s.push_str(&format!(
            "// kernel number {k}\n\
             __kernel void k{k}(__global const float *in, __global float *out, int n)\n\
             {{\n    int i = get_global_id(0);\n    if (i >= n)\n        return;\n    float v = in[i];\n    \
             for (int j = 0; j < i % {m}; j++)\n        v = v * 0.5f + {k}.0f;\n    {call}\n    out[i] = v;\n}}\n\n",
            m = 2 + k % 5
        ));
    }
    s
}

/// A database that records the keys of the queries it executes.
pub fn logging_db(settings: Settings) -> (LanesDatabase, Arc<Mutex<Vec<DatabaseKeyIndex>>>) {
    let log: Arc<Mutex<Vec<DatabaseKeyIndex>>> = Arc::default();
    let sink = log.clone();
    let db = LanesDatabase::with_events(
        settings,
        Some(Box::new(move |e| {
            if let EventKind::WillExecute { database_key } = e.kind {
                sink.lock().unwrap().push(database_key);
            }
        })),
    );
    (db, log)
}

/// The executed queries since the last call, as `(query, kernel)`.
pub fn executed(
    db: &LanesDatabase,
    log: &Arc<Mutex<Vec<DatabaseKeyIndex>>>,
) -> Vec<(String, Option<String>)> {
    let keys: Vec<DatabaseKeyIndex> = std::mem::take(&mut *log.lock().unwrap());
    keys.into_iter()
        .map(|k| lanes_db::describe_key(db, k))
        .collect()
}

/// Kernels whose `query` ran, sorted.
pub fn ran(events: &[(String, Option<String>)], query: &str) -> Vec<String> {
    let mut v: Vec<String> = events
        .iter()
        .filter(|(q, _)| q == query)
        .filter_map(|(_, k)| k.clone())
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Files in memory, for the oracle.
pub struct MemFs(pub HashMap<PathBuf, String>);

impl FileLoader for MemFs {
    fn read(&self, path: &Path) -> std::io::Result<lanes_frontend::source::SourceText> {
        self.0
            .get(path)
            .cloned()
            .map(Into::into)
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "missing"))
    }
}

/// What `lanes check` and `lanes explain` compute from scratch: all
/// diagnostics, and each kernel's report (or errors) printed with `{:?}`.
pub fn oracle(path: &Path, text: &str, width: u32, fs: &MemFs) -> (Vec<Diagnostic>, Vec<String>) {
    let options = PreprocessOptions {
        width,
        ..PreprocessOptions::default()
    };
    let mut u = check_text(
        &path.display().to_string(),
        Some(path.to_path_buf()),
        text,
        &options,
        fs,
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

/// The same from the database (`lanes check` reports no kernel of a file
/// with errors; the database still analyses the kernels without any).
pub fn from_db(db: &LanesDatabase, file: lanes_db::File) -> (Vec<Diagnostic>, Vec<String>) {
    let diags = lanes_db::file_diagnostics(db, file);
    let errors = lanes_db::parse(db, file).unit.has_errors();
    let reports = lanes_db::file_reports(db, file)
        .into_iter()
        .filter(|_| !errors)
        .map(|(_, r)| match &*r {
            Ok(r) => format!("{r:?}"),
            Err(d) => format!("{d:?}"),
        })
        .collect();
    (diags, reports)
}

pub fn settings(width: u32) -> Settings {
    Settings {
        target: format!("test-x{width}"),
        width,
        ..Settings::default()
    }
}
