//! Where the language server's memory goes over editing, in one process:
//! the bytes the program holds (a counting global allocator), the resident
//! set, and what glibc's malloc keeps (`mallinfo2`), after opening a file,
//! after inferring its kernels' preconditions and after N edits. The edits
//! are the ones of `lanes-bench -- lsp`: a character typed inside a kernel
//! or the comment above one and deleted at the next visit; the first 60 are
//! followed by a hover, the inlay hints and the inference of the kernels
//! whose analysis changed, as in the benchmark's pauses; the rest come back
//! to back. Held bytes flat while the resident set grows is the allocator;
//! held bytes growing is data.
//!
//! `cargo run --release -p lanes-diagnostics --example mem_growth -- FILE [EDITS]`
//! (FILE: the benchmark's generated file). `MEM_GROWTH_KEEP_REPLACED=1`: no
//! `free_replaced` after an edit (as before 2026-11-27 14:30);
//! `MEM_GROWTH_TRIM=1`: `malloc_trim` after each edit; `MEM_GROWTH_EXIT=1`:
//! exit without freeing after the edits (for a heap profiler's leak report).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

use lanes_db::{Db, LanesDatabase, Settings};

#[path = "common/rendered.rs"]
mod common;
use common::rendered;

/// The system allocator, counting the bytes and blocks held.
struct Counting;

static HELD: AtomicIsize = AtomicIsize::new(0);
static BLOCKS: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            HELD.fetch_add(l.size() as isize, Ordering::Relaxed);
            BLOCKS.fetch_add(1, Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(l);
        if !p.is_null() {
            HELD.fetch_add(l.size() as isize, Ordering::Relaxed);
            BLOCKS.fetch_add(1, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        HELD.fetch_sub(l.size() as isize, Ordering::Relaxed);
        BLOCKS.fetch_sub(1, Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = System.realloc(p, l, new);
        if !q.is_null() {
            HELD.fetch_add(new as isize - l.size() as isize, Ordering::Relaxed);
        }
        q
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn rss_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .unwrap_or(0.0)
        / 1024.0
}

fn report(when: &str) {
    const MB: f64 = 1024.0 * 1024.0;
    // SAFETY: mallinfo2 only reads malloc's statistics.
    let m = unsafe { libc::mallinfo2() };
    println!(
        "{when:>28}: held {:7.1} MB in {:8} blocks | RSS {:6.1} MB | malloc: arenas {:6.1} MB, free in them {:6.1} MB, mmapped {:6.1} MB",
        HELD.load(Ordering::Relaxed) as f64 / MB,
        BLOCKS.load(Ordering::Relaxed),
        rss_mb(),
        m.arena as f64 / MB,
        m.fordblks as f64 / MB,
        m.hblkhd as f64 / MB,
    );
}

/// Infers the preconditions of the kernels whose analysis has none, on a
/// thread of its own as the server's worker does, and stores them.
fn infer(db: &mut LanesDatabase, file: lanes_db::File) {
    let options = lanes_vectorizer::precond::Options::new(16);
    let pending = lanes_db::pending(db, file, &options);
    let o = options.clone();
    let found = std::thread::spawn(move || {
        pending
            .into_iter()
            .map(|p| {
                let findings = lanes_db::infer(&p.analysis, &o);
                // SAFETY: malloc_trim only returns free pages to the system.
                unsafe { libc::malloc_trim(0) };
                (
                    p.name,
                    lanes_db::KernelFindings {
                        analysis: std::sync::Arc::downgrade(&p.analysis),
                        options: o.clone(),
                        findings,
                    },
                )
            })
            .collect::<Vec<_>>()
    })
    .join()
    .expect("inference");
    lanes_db::set_kernel_preconditions(db, file, found);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: mem_growth FILE [EDITS]");
        std::process::exit(2);
    };
    let edits: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let mut text = std::fs::read_to_string(&path).expect("readable file");
    let kernels = text.matches("__kernel void").count();
    let settings = Settings {
        target: "avx2-i32x8".into(),
        width: 8,
        ..Settings::default()
    };
    report("start");
    let mut db = LanesDatabase::new(settings);
    let file = db.set_file(&path, &text, 1);
    let mut reuse = lanes_diagnostics::ide::diagnostics::Reuse::default();
    let n = rendered(&db, file, &mut reuse).len();
    lanes_db::reclaim::free_parked();
    report(&format!("open ({n} diagnostics)"));
    infer(&mut db, file);
    rendered(&db, file, &mut reuse);
    report("preconditions inferred");
    let mut typed: Vec<Option<usize>> = vec![None; 2 * kernels];
    for e in 0..edits {
        let k = (e * 37) % kernels;
        let in_comment = e % 2 == 1;
        let slot = 2 * k + usize::from(in_comment);
        match typed[slot].take() {
            Some(at) => {
                text.remove(at);
                for t in typed.iter_mut().flatten() {
                    if *t > at {
                        *t -= 1;
                    }
                }
            }
            None => {
                let a = text.find(&format!("void kernel_{k}(")).expect("kernel");
                let (at, c) = if in_comment {
                    (text[..a].rfind(": a ").expect("comment") + 4, 'x')
                } else {
                    (a + text[a..].find("w * ").expect("edit site") + 5, '5')
                };
                text.insert(at, c);
                for t in typed.iter_mut().flatten() {
                    if *t >= at {
                        *t += 1;
                    }
                }
                typed[slot] = Some(at);
            }
        }
        db.set_file(&path, &text, e as i32 + 2);
        rendered(&db, file, &mut reuse);
        if e < 60 {
            let a = text.find(&format!("void kernel_{k}(")).expect("kernel") as u32;
            let x = a + text[a as usize..].find("int x").expect("x") as u32 + 4;
            std::hint::black_box(lanes_diagnostics::ide::hover::hover(&db, file, x));
            let range = lanes_diagnostics::ide::TextRange {
                start: a,
                end: (a as usize + 3000).min(text.len()) as u32,
            };
            std::hint::black_box(lanes_diagnostics::ide::inlay::inlay_hints(&db, file, range));
            infer(&mut db, file);
            rendered(&db, file, &mut reuse);
        }
        if std::env::var_os("MEM_GROWTH_KEEP_REPLACED").is_none() {
            db.free_replaced();
        }
        lanes_db::reclaim::free_parked();
        if std::env::var_os("MEM_GROWTH_TRIM").is_some() {
            // SAFETY: malloc_trim only returns free pages to the system.
            unsafe { libc::malloc_trim(0) };
        }
        if [10, 60, 100, 200, 500, 1000, 2000, 5000].contains(&(e + 1)) || e + 1 == edits {
            report(&format!("after {} edits", e + 1));
        }
    }
    if std::env::var_os("MEM_GROWTH_EXIT").is_some() {
        // What is held now is what a heap profiler reports as leaked.
        std::process::exit(0);
    }
    // A fresh database on the final text: what the same text holds opened.
    let before = HELD.load(Ordering::Relaxed);
    {
        let mut fresh = LanesDatabase::new(db.settings());
        let f = fresh.set_file(&path, &text, 1);
        let mut r = lanes_diagnostics::ide::diagnostics::Reuse::default();
        rendered(&fresh, f, &mut r);
        infer(&mut fresh, f);
        rendered(&fresh, f, &mut r);
        lanes_db::reclaim::free_parked();
        println!(
            "{:>28}: held {:7.1} MB",
            "a fresh database of the text",
            (HELD.load(Ordering::Relaxed) - before) as f64 / (1024.0 * 1024.0)
        );
    }
    lanes_db::reclaim::free_parked();
    // What the held bytes are: each cache dropped in turn.
    reuse = Default::default();
    report("renderings dropped");
    db.last_good().forget(file);
    report("last good facts dropped");
    infer(&mut db, file);
    report("findings on stale analyses");
    db.parse_memos().forget(file);
    report("parse memo dropped");
    db.set_file(&path, "", 0);
    rendered(&db, file, &mut Default::default());
    lanes_db::reclaim::free_parked();
    db.last_good().forget(file);
    db.parse_memos().forget(file);
    report("text emptied");
    drop(reuse);
}
