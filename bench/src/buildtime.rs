//! `buildtime`: `lanes build` per file of the corpora (tests/kernels/valid,
//! tests/kernels/precond, bench/kernels and bench/kernels/paper) at the
//! default -O2, and the program build of Intel's OpenCL CPU runtime and
//! PoCL on the same source (`clCreateProgramWithSource`, `clBuildProgram`
//! and `clCreateKernelsInProgram`, in this process). `lanes build` is
//! timed as the whole process, as a build system runs it. Times are CPU
//! time (user and system): on a machine others load, the wall clock
//! measures their work too. Run it pinned
//! (`taskset -c 1 cargo run ...`: the children inherit the CPU set).
//! `--runs N` (default 3): the minimum of N runs per file and column;
//! `--before PATH`: another `lanes` binary timed side by side, interleaved
//! run by run (the build before a change); `--warm`: the `lanes` column
//! builds with the findings cache (in target/bench-buildtime/cache) filled
//! by an untimed build of the file first, the other columns cold (the
//! cache off), so `--before target/release/lanes --warm` times cold against
//! warm builds of one binary. Writes the section to
//! bench/RESULTS.md unless `--no-write` is given (it is printed either way).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use opencl3::context::Context;
use opencl3::kernel::create_program_kernels;
use opencl3::program::Program;

use crate::codegen::opencl::{connect, Runtime};

const SECTION: &str = "## Build time per file";

const CORPORA: [&str; 4] = [
    "bench/kernels/paper",
    "tests/kernels/precond",
    "bench/kernels",
    "tests/kernels/valid",
];

fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in CORPORA {
        let mut v: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        v.retain(|p| p.extension().is_some_and(|x| x == "cl"));
        v.sort();
        out.extend(v);
    }
    out
}

/// CPU time (user and system) of this process (`RUSAGE_SELF`, every
/// thread) or of its waited-for children (`RUSAGE_CHILDREN`).
fn cpu(who: i32) -> Duration {
    // SAFETY: getrusage writes the struct it is given.
    let r = unsafe {
        let mut r: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut r);
        r
    };
    let t = |v: libc::timeval| Duration::new(v.tv_sec as u64, v.tv_usec as u32 * 1000);
    t(r.ru_utime) + t(r.ru_stime)
}

/// One `lanes build` of `file`: its CPU time and fast paths; `None` when
/// it fails (a kernel lanes refuses: not counted).
/// `cache`: the findings cache's directory, `None`: the cache off.
fn lanes_build(
    lanes: &Path,
    file: &Path,
    out: &Path,
    cache: Option<&Path>,
) -> Option<(Duration, usize)> {
    let before = cpu(libc::RUSAGE_CHILDREN);
    let mut cmd = Command::new(lanes);
    match cache {
        Some(dir) => cmd.env_remove("LANES_CACHE").env("LANES_CACHE_DIR", dir),
        None => cmd.env("LANES_CACHE", "off"),
    };
    let o = cmd
        .args(["build", "--target", "avx2-i32x8", "-o"])
        .arg(out)
        .arg(file)
        .output()
        .ok()?;
    let d = cpu(libc::RUSAGE_CHILDREN).saturating_sub(before);
    let notes = String::from_utf8_lossy(&o.stderr)
        .matches("note: fast path")
        .count();
    o.status.success().then_some((d, notes))
}

/// One program build on a runtime: the CPU time of this process (the
/// runtime's compiler threads included); `None` when it fails (an
/// extension the runtime lacks).
fn cl_build(context: &Context, src: &str) -> Option<Duration> {
    let before = cpu(libc::RUSAGE_SELF);
    let program = Program::create_and_build_from_source(context, src, "").ok()?;
    let kernels = create_program_kernels(&program).ok()?;
    let d = cpu(libc::RUSAGE_SELF).saturating_sub(before);
    drop(kernels);
    Some(d)
}

fn min(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn ms(d: Option<Duration>) -> String {
    d.map_or("—".into(), |d| format!("{:.0}", d.as_secs_f64() * 1e3))
}

/// Geometric mean and maximum over the files with a time, and how many.
fn summary(column: impl Iterator<Item = Option<Duration>>) -> (String, String, usize) {
    let v: Vec<f64> = column.flatten().map(|d| d.as_secs_f64() * 1e3).collect();
    if v.is_empty() {
        return ("—".into(), "—".into(), 0);
    }
    let g = (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp();
    let m = v.iter().cloned().fold(0.0, f64::max);
    (format!("{g:.0}"), format!("{m:.0}"), v.len())
}

pub fn main(options: &[String]) {
    let mut runs = 3;
    let mut before: Option<PathBuf> = None;
    let mut write = true;
    let mut warm = false;
    let mut it = options.iter();
    while let Some(o) = it.next() {
        if o == "--no-write" {
            write = false;
            continue;
        }
        if o == "--warm" {
            warm = true;
            continue;
        }
        match (o.as_str(), it.next()) {
            ("--runs", Some(n)) => runs = n.parse().unwrap_or(3).max(1),
            ("--before", Some(p)) => before = Some(PathBuf::from(p)),
            _ => {
                eprintln!(
                    "usage: lanes-bench buildtime [--runs N] [--before PATH] [--warm] [--no-write]"
                );
                std::process::exit(2);
            }
        }
    }
    // The machines are shared: other work running at the same time shows here.
    let load_before = crate::codegen::load_average();
    // PoCL keeps compiled programs on disk: every build here compiles.
    std::env::set_var("POCL_KERNEL_CACHE", "0");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let lanes = root.join("target/release/lanes");
    let dir = root.join("target/bench-buildtime");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("error: cannot create {}: {e}", dir.display());
        std::process::exit(1);
    }
    let out = dir.join("out.o");
    let cache = dir.join("cache");
    let _ = std::fs::remove_dir_all(&cache);
    let cache = warm.then_some(cache.as_path());
    let runtimes: Vec<(Runtime, Option<Context>)> = [Runtime::Intel, Runtime::Pocl]
        .into_iter()
        .map(|r| match connect(r) {
            Ok((c, _, desc)) => {
                eprintln!("buildtime: {desc}");
                (r, Some(c))
            }
            Err(e) => {
                eprintln!("buildtime: {}: skipped ({e})", r.label());
                (r, None)
            }
        })
        .collect();
    // Per file: (name, before, after, fast paths before/after, runtimes).
    type Row = (
        String,
        Option<Duration>,
        Option<Duration>,
        (usize, usize),
        Vec<Option<Duration>>,
    );
    let mut rows: Vec<Row> = Vec::new();
    for file in files(&root) {
        // The runtimes take text: a file that is not UTF-8 (Latin-1
        // comments) is built by lanes only.
        let src = std::fs::read_to_string(&file).ok();
        let name = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .display()
            .to_string();
        let (mut b, mut a) = (None, None);
        let (mut nb, mut na) = (0, 0);
        let mut cl = vec![None; runtimes.len()];
        if warm {
            lanes_build(&lanes, &file, &out, cache);
        }
        for _ in 0..runs {
            if let Some(p) = &before {
                if let Some((d, n)) = lanes_build(p, &file, &out, None) {
                    b = min(b, Some(d));
                    nb = n;
                }
            }
            if let Some((d, n)) = lanes_build(&lanes, &file, &out, cache) {
                a = min(a, Some(d));
                na = n;
            }
            for (i, (_, c)) in runtimes.iter().enumerate() {
                if let (Some(c), Some(src)) = (c, &src) {
                    cl[i] = min(cl[i], cl_build(c, src));
                }
            }
        }
        eprintln!(
            "buildtime: {name}: before {} after {} ms, fast paths {nb}/{na}, {}",
            ms(b),
            ms(a),
            cl.iter().map(|d| ms(*d)).collect::<Vec<_>>().join(" ")
        );
        rows.push((name, b, a, (nb, na), cl));
    }
    let mut table = String::from(
        "| file | lanes before (ms) | lanes (ms) | fast paths before / after | Intel (ms) | PoCL (ms) |\n|---|--:|--:|--:|--:|--:|\n",
    );
    for (name, b, a, (nb, na), cl) in &rows {
        table.push_str(&format!(
            "| {name} | {} | {} | {nb} / {na} | {} | {} |\n",
            ms(*b),
            ms(*a),
            ms(cl[0]),
            ms(cl[1])
        ));
    }
    let cols: [(&str, Vec<Option<Duration>>); 4] = [
        ("lanes before", rows.iter().map(|r| r.1).collect()),
        ("lanes", rows.iter().map(|r| r.2).collect()),
        ("Intel", rows.iter().map(|r| r.4[0]).collect()),
        ("PoCL", rows.iter().map(|r| r.4[1]).collect()),
    ];
    // Over all files each column built, and over the files every column
    // built (the comparable set).
    let common: Vec<bool> = (0..rows.len())
        .map(|i| {
            cols.iter()
                .all(|(n, c)| c[i].is_some() || (*n == "lanes before" && before.is_none()))
        })
        .collect();
    let mut sums = String::from(
        "| column | files | geometric mean (ms) | max (ms) | files built by every column | geometric mean there (ms) |\n|---|--:|--:|--:|--:|--:|\n",
    );
    for (n, c) in &cols {
        let (g, m, k) = summary(c.iter().cloned());
        let (gc, _, kc) = summary(c.iter().zip(&common).map(|(d, &ok)| d.filter(|_| ok)));
        sums.push_str(&format!("| {n} | {k} | {g} | {m} | {kc} | {gc} |\n"));
    }
    let section = format!(
        "{SECTION}\n\n\
Command: `cargo build --release -p lanes && taskset -c 1 cargo run --release -p lanes-bench -- buildtime --runs {runs}{}`.  \n\
Date: {}. Machine: {}.  \n\
`lanes build --target avx2-i32x8 -o out.o FILE` at the default -O2 (`--specialize auto`: precondition inference on the \
build's budget, docs/preconditions.md), the whole process; \"lanes before\" is {}. Times are CPU time (user + \
system, `getrusage`), which other work on the machine changes less than the wall clock; load average {} before the \
run and {} after it. Intel's OpenCL CPU runtime and PoCL \
build the same source in this process (`clCreateProgramWithSource`, `clBuildProgram`, `clCreateKernelsInProgram`; PoCL's \
kernel cache off; PoCL generates a work-group function at the first launch, which is not counted). Minimum of {runs} runs \
per file and column, interleaved, pinned to core 1; \"—\": not built (a feature lanes refuses or the runtime lacks, \
or a source that is not UTF-8, which the runtimes are not given).\n\n\
{sums}\n{table}",
        before
            .as_ref()
            .map(|p| format!(" --before {}", p.display()))
            .unwrap_or_default(),
        crate::codegen::today(),
        crate::codegen::cpu_model(),
        if before.is_some() {
            "the build before the change, timed side by side"
        } else {
            "not measured"
        },
        load_before,
        crate::codegen::load_average(),
    );
    println!("{section}");
    if !write {
        return;
    }
    let path = root.join("bench/RESULTS.md");
    let old = std::fs::read_to_string(&path).unwrap_or_default();
    if let Err(e) = std::fs::write(&path, crate::results::splice(&old, &section)) {
        eprintln!("error: cannot write {}: {e}", path.display());
        std::process::exit(1);
    }
}
