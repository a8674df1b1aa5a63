//! What one edit of a large file costs in one process, in thread CPU time
//! (other processes on a shared machine do not count): the setter, the
//! front end on the whole file (`parse`), then the rest of the editor's
//! diagnostics. Edits alternate, as in `lanes-bench -- lsp`, between a
//! digit inside a kernel and a letter of the comment above one; each kind
//! is reported on its own.
//!
//! `cargo run --release -p lanes-diagnostics --example edit_cost -- FILE [EDITS]`
//! (FILE: the benchmark's generated file, or any file with `__kernel void`
//! definitions containing `w * ` and comments with `: a `).

use lanes_db::{LanesDatabase, Settings};

#[path = "common/rendered.rs"]
mod common;
use common::{rendered, Rendered};

/// CPU time of the calling thread, in milliseconds.
fn cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes only the timespec passed.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: edit_cost FILE [EDITS]");
        std::process::exit(2);
    };
    let edits: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(40);
    let mut text = std::fs::read_to_string(&path).expect("readable file");
    let settings = Settings {
        target: "avx2-i32x8".into(),
        width: 8,
        ..Settings::default()
    };
    let mut db = LanesDatabase::new(settings);
    let file = db.set_file(&path, &text, 1);
    let n = lanes_diagnostics::ide::diagnostics::diagnostics(&db, file).len();
    eprintln!("{n} diagnostics");
    let kernels: Vec<usize> = text
        .match_indices("__kernel void")
        .map(|(i, _)| i)
        .collect();
    // Per kind of edit: code, comment.
    let mut times: [[Vec<f64>; 5]; 2] = Default::default();
    // The renderings the server keeps between edits.
    let mut reuse = lanes_diagnostics::ide::diagnostics::Reuse::default();
    let _ = rendered(&db, file, &mut reuse);
    for v in 0..edits {
        let k = kernels[(v * 37) % kernels.len()];
        let at = if v % 2 == 1 {
            text[..k].rfind(": a ").expect("a comment") + 4
        } else {
            k + text[k..].find("w * ").expect("an edit site") + 4
        };
        let new = match &text[at..at + 1] {
            "s" => "S",
            "S" => "s",
            "2" => "3",
            _ => "2",
        };
        text.replace_range(at..at + 1, new);
        let t0 = cpu_ms();
        db.set_file(&path, &text, v as i32 + 2);
        let t1 = cpu_ms();
        std::hint::black_box(lanes_db::parse(&db, file));
        let t2 = cpu_ms();
        std::hint::black_box(lanes_db::live_diagnostics(&db, file));
        let t3 = cpu_ms();
        std::hint::black_box(lanes_diagnostics::ide::diagnostics::diagnostics(&db, file));
        let t4 = cpu_ms();
        std::hint::black_box(rendered(&db, file, &mut reuse));
        let t5 = cpu_ms();
        // As the language server's analysis thread does between jobs: the
        // previous revision, parked by the setter, is freed after this
        // one's diagnostics.
        lanes_db::reclaim::free_parked();
        let kind = &mut times[v % 2];
        kind[0].push(t1 - t0);
        kind[1].push(t2 - t1);
        kind[2].push(t3 - t2);
        kind[3].push(t4 - t3);
        kind[4].push(t5 - t4);
        // A typist's pause, in which the previous revision is freed.
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
    for (edit, kind) in ["code edit", "comment edit"].into_iter().zip(times) {
        for (name, mut v) in [
            "setter",
            "parse",
            "kernel reports (live_diagnostics)",
            "the editor's diagnostics (filter, ranges, messages)",
            "the same, rendered with positions, reusing unchanged kernels'",
        ]
        .into_iter()
        .zip(kind)
        {
            print_times(edit, name, &mut v);
        }
    }
    typing(&mut db, file, &path, &mut text, &kernels, edits, &mut reuse);
    phases(&path, &text);
}

/// Edits that change the text's length (a digit typed inside a kernel, then
/// deleted): every later kernel moves, so its report is mapped and its
/// diagnostics rendered again.
fn typing(
    db: &mut LanesDatabase,
    file: lanes_db::File,
    path: &str,
    text: &mut String,
    kernels: &[usize],
    edits: usize,
    reuse: &mut lanes_diagnostics::ide::diagnostics::Reuse<Rendered>,
) {
    let mut times: [Vec<f64>; 4] = Default::default();
    let mut typed: Option<usize> = None;
    for v in 0..edits {
        match typed.take() {
            Some(at) => {
                text.remove(at);
            }
            None => {
                // Kernels before the edit move by what earlier ones inserted:
                // none is left inserted here.
                let k = kernels[(v * 37) % kernels.len()];
                let at = k + text[k..].find("w * ").expect("an edit site") + 4;
                text.insert(at, '1');
                typed = Some(at);
            }
        }
        db.set_file(path, text, 1000 + v as i32);
        let tp = cpu_ms();
        std::hint::black_box(lanes_db::parse(db, file));
        let t0 = cpu_ms();
        std::hint::black_box(lanes_db::live_diagnostics(db, file));
        let t1 = cpu_ms();
        std::hint::black_box(lanes_diagnostics::ide::diagnostics::diagnostics(db, file));
        let t2 = cpu_ms();
        std::hint::black_box(rendered(db, file, reuse));
        let t3 = cpu_ms();
        lanes_db::reclaim::free_parked();
        times[0].push(t0 - tp);
        times[1].push(t1 - t0);
        times[2].push(t2 - t1);
        times[3].push(t3 - t2);
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
    for (name, mut v) in [
        "parse",
        "kernel reports (live_diagnostics)",
        "the editor's diagnostics",
        "the same, rendered with positions, reusing unchanged kernels'",
    ]
    .into_iter()
    .zip(times)
    {
        print_times("typing (length changes)", name, &mut v);
    }
}

/// Median, minimum and 90th percentile of one stage's times (ms).
fn print_times(edit: &str, name: &str, v: &mut [f64]) {
    v.sort_by(f64::total_cmp);
    eprintln!(
        "{edit}: {name}: median {:.1} ms, min {:.1}, p90 {:.1}",
        v[v.len() / 2],
        v[0],
        v[v.len() * 9 / 10]
    );
}

/// The front end's stages on the whole final text, from scratch, in thread
/// CPU time (median of 9): what a code edit's `parse` is made of.
fn phases(path: &str, text: &str) {
    use lanes_frontend::source::{SourceFile, SourceMap};
    let opts = lanes_frontend::preprocess::PreprocessOptions::default();
    let loader = lanes_frontend::preprocess::RealFs;
    let mut times: [Vec<f64>; 5] = Default::default();
    for _ in 0..9 {
        let mut diags = Vec::new();
        let t0 = cpu_ms();
        let file = lanes_frontend::source::FileId(0);
        std::hint::black_box(lanes_frontend::lexer::lex(file, text, &mut diags));
        let t1 = cpu_ms();
        let mut sources = SourceMap::new();
        let main = sources.add(SourceFile::new(path, None, text));
        let pp =
            lanes_frontend::preprocess::preprocess(&mut sources, main, &opts, &loader, &mut diags);
        let t2 = cpu_ms();
        let ast = lanes_frontend::parser::parse(&pp.tokens, &mut diags);
        let t3 = cpu_ms();
        let hir = lanes_frontend::sema::check(&ast, &mut diags);
        let t4 = cpu_ms();
        drop((pp, ast, hir, sources));
        let t5 = cpu_ms();
        for (i, d) in [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4]
            .into_iter()
            .enumerate()
        {
            times[i].push(d);
        }
    }
    for (name, mut v) in [
        "lexing",
        "preprocessing (with lexing)",
        "parsing",
        "checking",
        "freeing",
    ]
    .into_iter()
    .zip(times)
    {
        v.sort_by(f64::total_cmp);
        eprintln!("from scratch: {name}: median {:.1} ms", v[v.len() / 2]);
    }
}
