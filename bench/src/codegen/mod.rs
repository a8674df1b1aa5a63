//! `lanes-bench codegen`: the generated-code benchmark (DESIGN §8).
//!
//! Every kernel of bench/kernels runs four ways in one process: (a) lanes,
//! as users get it: the object of `lanes build --target T` with default
//! options, linked into a shared library ([`object`]); (b) Intel's OpenCL
//! CPU runtime and (c) PoCL's CPU device on the same `.cl` source
//! ([`opencl`]; Intel's when `scripts/intel-opencl.sh` installed it); (d)
//! the kernel as plain scalar C loops (bench/kernels/c) built with `gcc -O3
//! -march=native` into a shared library at benchmark time. The results are
//! compared before anything is timed; compile times are excluded.
//!
//! Timing is side by side: after two warm-ups each, every round runs each
//! implementation once (in an order that rotates per round), and each
//! figure is the median over the rounds, so load that comes and goes hits
//! all columns alike. Single-thread figures run pinned to one core (the
//! OpenCL runtimes in child processes started on that core with their
//! one-thread setting); all-thread figures run unpinned.
//!
//! Options: `--kernel NAME[,NAME...]` (only these; RESULTS.md is then left
//! alone), `--target NAME` (the lanes column's target, `host` by default),
//! `--runs N` (rounds, default 9, at least 7), `--cpu N` (the core for the
//! single-thread figures, the last one this process may use by default;
//! the all-thread figures run on the CPUs the process was given),
//! `--no-write`.
//!
//! The machine's limits (STREAM triad bandwidth and FMA peak on the pinned
//! core) are measured before and after the kernels, and the table gives each
//! kernel's share of the one that bounds it ([`limits`]).

mod cc;
#[cfg(test)]
mod lanes;
mod limits;
mod object;
pub(crate) mod opencl;
mod problems;

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use limits::Limits;
use problems::{Buf, Problem, Tol, Work, NAMES};

/// How many chunks per thread [`run_split`] cuts a range into.
const CHUNKS_PER_THREAD: usize = 16;

/// Runs `f(first, last)` over `[0, total)` on `threads` threads (the
/// calling one alone for 1), as the OpenCL runtimes' schedulers do: each
/// thread takes the next chunk of `total / (16 threads)` indices from a
/// shared counter until none is left, so a thread slowed by another
/// process on its core takes fewer chunks instead of making every other
/// thread wait for its fixed share. The first nonzero result, else 0.
pub(crate) fn run_split(
    total: usize,
    threads: usize,
    f: impl Fn(usize, usize) -> i32 + Sync,
) -> i32 {
    use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
    if threads <= 1 {
        return f(0, total);
    }
    let chunk = (total / (threads * CHUNKS_PER_THREAD)).max(1);
    let (next, rc) = (AtomicUsize::new(0), AtomicI32::new(0));
    let work = || loop {
        let first = next.fetch_add(chunk, Ordering::Relaxed);
        if first >= total || rc.load(Ordering::Relaxed) != 0 {
            break;
        }
        let r = f(first, (first + chunk).min(total));
        if r != 0 {
            let _ = rc.compare_exchange(0, r, Ordering::Relaxed, Ordering::Relaxed);
        }
    };
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(work);
        }
    });
    rc.into_inner()
}

/// One implementation of one kernel, ready to run (compiled, data in place).
pub trait Instance {
    /// Runs the whole NDRange once, on `threads` threads (OpenCL: its own).
    fn run(&mut self, threads: usize) -> Result<(), String>;
    /// The bytes of buffer argument `arg`.
    fn output(&mut self, arg: usize) -> Result<Vec<u8>, String>;
}

#[derive(Clone, Copy, Debug)]
struct Stats {
    median: f64,
    min: f64,
    max: f64,
}

#[derive(Clone, Debug)]
enum Cell {
    Time(Stats),
    /// Not measured; the reason goes to the notes.
    Missing,
}

impl Cell {
    fn ms(&self) -> Option<f64> {
        match self {
            Cell::Time(s) => Some(s.median),
            Cell::Missing => None,
        }
    }
    fn show(&self) -> String {
        match self {
            Cell::Time(s) => format!("{:.2}", s.median),
            Cell::Missing => "—".into(),
        }
    }
}

struct Row {
    name: &'static str,
    size: String,
    /// [`LABELS`]: lanes, Intel, PoCL, gcc; single thread then all threads.
    one: [Cell; 4],
    all: [Cell; 4],
    check: String,
    notes: Vec<String>,
    /// The work of one run, for the share of the machine's limits.
    work: Option<Work>,
}

struct Options {
    kernels: Option<Vec<String>>,
    runs: usize,
    write: bool,
    /// The lanes column's target (`lanes targets`), `host` by default.
    target: String,
    /// The core for the single-thread figures.
    cpu: Option<usize>,
    /// Hidden: run one OpenCL runtime in this process on request
    /// (`--ocl-child RUNTIME NAME`), see [`ocl_child`].
    ocl_child: Option<(opencl::Runtime, String)>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        kernels: None,
        runs: 9,
        write: true,
        target: "host".into(),
        cpu: None,
        ocl_child: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match a.as_str() {
            "--kernel" => {
                let v = value("--kernel")?;
                o.kernels = Some(v.split(',').map(str::to_string).collect());
            }
            "--runs" => {
                let v = value("--runs")?;
                o.runs = v
                    .parse()
                    .map_err(|_| format!("--runs: not a number: {v}"))?;
            }
            "--target" => o.target = value("--target")?,
            "--cpu" => {
                let v = value("--cpu")?;
                o.cpu = Some(v.parse().map_err(|_| format!("--cpu: not a number: {v}"))?);
            }
            "--no-write" => o.write = false,
            "--ocl-child" => {
                let key = value("--ocl-child")?;
                let runtime = opencl::Runtime::from_key(&key)
                    .ok_or_else(|| format!("--ocl-child: unknown runtime {key}"))?;
                o.ocl_child = Some((runtime, value("--ocl-child")?));
            }
            other => return Err(format!("codegen: unknown option {other}")),
        }
    }
    Ok(o)
}

fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels")
}

/// Something timed one execution at a time.
trait Timed {
    /// Runs once; the wall time of the execution.
    fn once(&mut self) -> Result<Duration, String>;
}

/// An in-process implementation on a number of threads.
struct InProcess<'a> {
    inst: &'a mut dyn Instance,
    threads: usize,
}

impl Timed for InProcess<'_> {
    fn once(&mut self) -> Result<Duration, String> {
        let start = Instant::now();
        self.inst.run(self.threads)?;
        Ok(start.elapsed())
    }
}

fn stats(mut t: Vec<Duration>) -> Stats {
    t.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    Stats {
        median: ms(t[t.len() / 2]),
        min: ms(t[0]),
        max: ms(t[t.len() - 1]),
    }
}

/// Times the implementations side by side: two warm-ups each, then `runs`
/// rounds that run each one once, starting with a different one each
/// round. An implementation that fails is dropped with its error.
fn time_interleaved(
    timed: &mut [Option<&mut dyn Timed>],
    runs: usize,
) -> Vec<Result<Stats, String>> {
    let n = timed.len();
    let mut times: Vec<Result<Vec<Duration>, String>> = (0..n).map(|_| Ok(Vec::new())).collect();
    for round in 0..runs + 2 {
        for j in 0..n {
            let k = (round + j) % n;
            let (Some(t), Ok(v)) = (&mut timed[k], &mut times[k]) else {
                continue;
            };
            match t.once() {
                Ok(d) if round >= 2 => v.push(d),
                Ok(_) => {}
                Err(e) => times[k] = Err(e),
            }
        }
    }
    times
        .into_iter()
        .zip(timed.iter())
        .map(|(t, slot)| match (t, slot) {
            (_, None) => Err("not run".into()),
            (Ok(v), _) if v.is_empty() => Err("no runs".into()),
            (Ok(v), _) => Ok(stats(v)),
            (Err(e), _) => Err(e),
        })
        .collect()
}

/// The CPUs the calling thread may run on (what `taskset` left it).
fn affinity() -> Result<libc::cpu_set_t, String> {
    // SAFETY: a zeroed cpu_set_t is a valid set; sched_getaffinity fills it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(format!(
                "sched_getaffinity: {}",
                std::io::Error::last_os_error()
            ));
        }
        Ok(set)
    }
}

/// Lets the calling thread (and the processes it starts) run on `set` only.
fn set_affinity(set: &libc::cpu_set_t) -> Result<(), String> {
    // SAFETY: the call only reads the set.
    if unsafe { libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) } != 0 {
        return Err(format!(
            "sched_setaffinity: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

/// The set of one CPU.
fn only(cpu: usize) -> libc::cpu_set_t {
    // SAFETY: a zeroed cpu_set_t is empty; CPU_SET checks the index.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        set
    }
}

/// The last core this process may run on.
fn last_cpu() -> usize {
    affinity().map_or(0, |set| {
        (0..libc::CPU_SETSIZE as usize)
            .rev()
            // SAFETY: CPU_ISSET only reads the set.
            .find(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .unwrap_or(0)
    })
}

/// FNV-1a over the result buffers, to compare the PoCL child's results.
fn hash(outputs: &[Vec<u8>]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for o in outputs {
        for &b in o {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
    h
}

/// Compares one result buffer; Ok(summary) when within tolerance.
fn compare(want: &[u8], got: &[u8], like: &Buf, tol: Tol) -> Result<String, String> {
    if want.len() != got.len() {
        return Err(format!("{} bytes, expected {}", got.len(), want.len()));
    }
    let words = |b: &[u8]| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    let (w, g) = (words(want), words(got));
    match (like, tol) {
        (Buf::F32(_), Tol::Float(rel)) => {
            let scale = w
                .iter()
                .map(|&x| f32::from_bits(x).abs() as f64)
                .filter(|x| x.is_finite())
                .fold(0.0f64, f64::max)
                .max(f64::MIN_POSITIVE);
            let (mut worst, mut at, mut nan) = (0.0f64, 0usize, 0usize);
            for (i, (&a, &b)) in w.iter().zip(&g).enumerate() {
                let (a, b) = (f32::from_bits(a) as f64, f32::from_bits(b) as f64);
                if a.is_nan() != b.is_nan() {
                    nan += 1;
                    at = i;
                    continue;
                }
                if a.is_nan() {
                    continue;
                }
                let d = if a == b { 0.0 } else { (a - b).abs() };
                if d > worst {
                    worst = d;
                    at = i;
                }
            }
            let err = worst / scale;
            let here = format!(
                "element {at}: got {}, want {}",
                f32::from_bits(g[at]),
                f32::from_bits(w[at])
            );
            if nan > 0 {
                Err(format!("{nan} NaN mismatches, e.g. {here}"))
            } else if err.is_nan() || err > rel {
                Err(format!(
                    "max error {err:.2e} of max |value| > {rel:.0e} ({here})"
                ))
            } else {
                Ok(format!("max error {err:.1e} of max |value|"))
            }
        }
        (_, Tol::Int(frac)) => {
            let bad: Vec<usize> = (0..w.len()).filter(|&i| w[i] != g[i]).collect();
            let f = bad.len() as f64 / w.len().max(1) as f64;
            if f > frac {
                let i = bad[0];
                Err(format!(
                    "{} of {} elements differ (allowed {:.1}%), first at {i}: got {}, want {}",
                    bad.len(),
                    w.len(),
                    frac * 100.0,
                    g[i] as i32,
                    w[i] as i32
                ))
            } else {
                Ok(format!("{} of {} elements differ", bad.len(), w.len()))
            }
        }
        (_, Tol::Float(_)) => Err("float tolerance on an integer buffer".into()),
    }
}

fn outputs(inst: &mut dyn Instance, p: &Problem) -> Result<Vec<Vec<u8>>, String> {
    p.checks.iter().map(|&(a, _)| inst.output(a)).collect()
}

/// Hidden mode: one OpenCL runtime in this process (started by the parent
/// with the runtime's one-thread setting, on the pinned core). It builds
/// the kernel, runs it once and prints `ready HASH`; then, for each `run`
/// line on standard input, runs it once and prints `time SECONDS`, until
/// standard input ends. Errors print `error MESSAGE` and end the process.
fn ocl_child(runtime: opencl::Runtime, name: &str) {
    let result = (|| -> Result<(), String> {
        let p = problems::build(name).ok_or("unknown kernel")?;
        let src = std::fs::read_to_string(kernels_dir().join(format!("{}.cl", p.file)))
            .map_err(|e| e.to_string())?;
        let ocl = opencl::OpenCl::new(runtime)?;
        let mut inst = ocl.instance(&p, &src)?;
        inst.run(1)?;
        let h = hash(&outputs(inst.as_mut(), &p)?);
        let mut out = std::io::stdout().lock();
        let say = |out: &mut std::io::StdoutLock, line: String| {
            writeln!(out, "{line}")
                .and_then(|_| out.flush())
                .map_err(|e| e.to_string())
        };
        say(&mut out, format!("ready\t{h:016x}"))?;
        for line in std::io::stdin().lock().lines() {
            if line.map_err(|e| e.to_string())?.trim() != "run" {
                return Err("expected `run`".into());
            }
            let start = Instant::now();
            inst.run(1)?;
            say(&mut out, format!("time\t{}", start.elapsed().as_secs_f64()))?;
        }
        Ok(())
    })();
    if let Err(e) = result {
        println!("error\t{}", e.replace('\n', " "));
    }
}

/// An OpenCL runtime on one thread, in a child process ([`ocl_child`]).
struct OclChild {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    /// The hash of the results of its first run.
    hash: u64,
}

impl OclChild {
    fn start(runtime: opencl::Runtime, name: &str) -> Result<OclChild, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let (var, value) = runtime.single_thread_env();
        let mut child = Command::new(exe)
            .args(["codegen", "--ocl-child", runtime.key(), name])
            .env(var, value)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("child process: {e}"))?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut c = OclChild {
            child,
            stdin,
            stdout,
            hash: 0,
        };
        let line = c.line()?;
        c.hash = match line.split_once('\t') {
            Some(("ready", h)) => u64::from_str_radix(h, 16).map_err(|e| e.to_string())?,
            _ => return Err(format!("unexpected reply `{line}`")),
        };
        Ok(c)
    }

    fn line(&mut self) -> Result<String, String> {
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => Err(format!("child process ended ({:?})", self.child.try_wait())),
            Ok(_) => match line.trim_end().split_once('\t') {
                Some(("error", e)) => Err(e.to_string()),
                _ => Ok(line.trim_end().to_string()),
            },
            Err(e) => Err(e.to_string()),
        }
    }
}

impl Timed for OclChild {
    fn once(&mut self) -> Result<Duration, String> {
        let stdin = self.stdin.as_mut().ok_or("child's input closed")?;
        writeln!(stdin, "run")
            .and_then(|_| stdin.flush())
            .map_err(|e| e.to_string())?;
        let line = self.line()?;
        match line.split_once('\t') {
            Some(("time", s)) => s
                .parse::<f64>()
                .map(Duration::from_secs_f64)
                .map_err(|e| e.to_string()),
            _ => Err(format!("unexpected reply `{line}`")),
        }
    }
}

impl Drop for OclChild {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

const LABELS: [&str; 4] = ["lanes", "Intel", "PoCL", "gcc"];

/// The columns that are OpenCL runtimes.
const OPENCL: [(usize, opencl::Runtime); 2] =
    [(1, opencl::Runtime::Intel), (2, opencl::Runtime::Pocl)];

fn bench_kernel(
    p: &Problem,
    target: &str,
    threads: usize,
    runs: usize,
    cpu: usize,
    lanes_bin: &Result<PathBuf, String>,
    clib: &Result<cc::CLib, String>,
    ocls: &[Result<opencl::OpenCl, String>; 2],
) -> Row {
    let cl_path = kernels_dir().join(format!("{}.cl", p.file));
    let mut notes = Vec::new();
    let src = std::fs::read_to_string(&cl_path);
    fn on<'a>(
        ocl: &'a Result<opencl::OpenCl, String>,
        runtime: opencl::Runtime,
        p: &Problem,
        src: &std::io::Result<String>,
        cl_path: &Path,
    ) -> Result<Box<dyn Instance + 'a>, String> {
        match (ocl, src) {
            (Err(e), _) => Err(format!("skipped: {} not found ({e})", runtime.label())),
            (_, Err(e)) => Err(format!("{}: {e}", cl_path.display())),
            (Ok(o), Ok(s)) => o.instance(p, s),
        }
    }

    // Compile (untimed) and copy the data: lanes, Intel, PoCL, gcc.
    let mut insts: [Result<Box<dyn Instance + '_>, String>; 4] = [
        match lanes_bin {
            Err(e) => Err(format!("skipped: {e}")),
            Ok(bin) => object::instance(p, &cl_path, target, bin),
        },
        on(&ocls[0], opencl::Runtime::Intel, p, &src, &cl_path),
        on(&ocls[1], opencl::Runtime::Pocl, p, &src, &cl_path),
        match clib {
            Err(e) => Err(format!("skipped: {e}")),
            Ok(l) => l.instance(p),
        },
    ];

    // One run each on all threads from the initial data, then compare
    // with gcc's results (PoCL's, then Intel's, when gcc is missing).
    let mut results: [Option<Vec<Vec<u8>>>; 4] = Default::default();
    for (k, inst) in insts.iter_mut().enumerate() {
        let r = match inst {
            Ok(i) => i.run(threads).and_then(|_| outputs(i.as_mut(), p)),
            Err(_) => continue,
        };
        match r {
            Ok(o) => results[k] = Some(o),
            Err(e) => *inst = Err(format!("run failed: {e}")),
        }
    }
    let reference = (1..4).rev().find(|&k| results[k].is_some()).unwrap_or(3);
    let mut mismatches = Vec::new();
    let mut compared = 0;
    if let Some(want) = &results[reference] {
        for k in 0..4 {
            if k == reference {
                continue;
            }
            let Some(got) = &results[k] else { continue };
            compared += 1;
            for (n, &(arg, tol)) in p.checks.iter().enumerate() {
                let problems::Arg::Buf(like) = &p.args[arg] else {
                    continue;
                };
                match compare(&want[n], &got[n], like, tol) {
                    Ok(s) => println!(
                        "  {}: {} vs {} argument {arg}: ok, {s}",
                        p.name, LABELS[k], LABELS[reference]
                    ),
                    Err(e) => {
                        let msg =
                            format!("{} vs {} argument {arg}: {e}", LABELS[k], LABELS[reference]);
                        eprintln!("!!! MISMATCH {}: {msg}", p.name);
                        println!("  !!! MISMATCH {}: {msg}", p.name);
                        notes.push(format!("MISMATCH: {msg}"));
                        mismatches.push(LABELS[k]);
                    }
                }
            }
        }
    }
    mismatches.dedup();
    let check = if !mismatches.is_empty() {
        format!("**MISMATCH** ({})", mismatches.join(", "))
    } else if compared == 0 {
        "not compared".into()
    } else {
        "ok".into()
    };

    // Timing. Implementations that failed are reported once.
    let mut one: [Cell; 4] = std::array::from_fn(|_| Cell::Missing);
    let mut all: [Cell; 4] = std::array::from_fn(|_| Cell::Missing);
    for (k, inst) in insts.iter().enumerate() {
        if let Err(e) = inst {
            println!("  {}: {}: {e}", p.name, LABELS[k]);
            notes.push(format!("{}: {e}", LABELS[k]));
        }
    }
    let insts_ok: [bool; 4] = std::array::from_fn(|k| insts[k].is_ok() && results[k].is_some());
    fn record(
        cells: &mut [Cell; 4],
        times: Vec<Result<Stats, String>>,
        what: &str,
        ok: &[bool; 4],
        notes: &mut Vec<String>,
    ) {
        for (k, t) in times.into_iter().enumerate() {
            match t {
                Ok(s) => cells[k] = Cell::Time(s),
                Err(e) if ok[k] => notes.push(format!("{}: {what}: {e}", LABELS[k])),
                Err(_) => {}
            }
        }
    }

    // One thread, pinned: lanes and gcc here, the OpenCL runtimes in
    // children started on the same core.
    let allowed = affinity();
    if let Err(e) = set_affinity(&only(cpu)) {
        notes.push(format!("single-thread runs not pinned: {e}"));
    }
    let mut kids: Vec<Option<OclChild>> = (0..4).map(|_| None).collect();
    for (k, runtime) in OPENCL {
        if !insts_ok[k] {
            continue;
        }
        match OclChild::start(runtime, p.name) {
            Ok(c) => {
                if results[k].as_ref().is_some_and(|r| c.hash != hash(r)) {
                    notes.push(format!(
                        "{} with 1 thread gave other result bits than with all threads",
                        runtime.label()
                    ));
                }
                kids[k] = Some(c);
            }
            Err(e) => notes.push(format!("{} single thread: {e}", runtime.label())),
        }
    }
    fn in_process<'a, 'b: 'a>(
        insts: &'a mut [Result<Box<dyn Instance + 'b>, String>; 4],
        ok: &[bool; 4],
        threads: usize,
        opencl_too: bool,
    ) -> Vec<Option<InProcess<'a>>> {
        insts
            .iter_mut()
            .enumerate()
            .map(|(k, i)| match i {
                Ok(i) if ok[k] && (opencl_too || OPENCL.iter().all(|&(c, _)| c != k)) => {
                    Some(InProcess {
                        inst: i.as_mut(),
                        threads,
                    })
                }
                _ => None,
            })
            .collect()
    }
    {
        let mut here = in_process(&mut insts, &insts_ok, 1, false);
        let mut timed: Vec<Option<&mut dyn Timed>> = here
            .iter_mut()
            .zip(kids.iter_mut())
            .map(|(a, b)| match (a, b) {
                (Some(a), _) => Some(a as &mut dyn Timed),
                (None, Some(b)) => Some(b as &mut dyn Timed),
                (None, None) => None,
            })
            .collect();
        let times = time_interleaved(&mut timed, runs);
        record(&mut one, times, "1 thread", &insts_ok, &mut notes);
    }
    drop(kids);
    if let Err(e) = allowed.and_then(|set| set_affinity(&set)) {
        notes.push(format!("could not unpin: {e}"));
    }

    // All threads, unpinned, every implementation in this process.
    {
        let mut here = in_process(&mut insts, &insts_ok, threads, true);
        let mut timed: Vec<Option<&mut dyn Timed>> = here
            .iter_mut()
            .map(|a| a.as_mut().map(|a| a as &mut dyn Timed))
            .collect();
        let times = time_interleaved(&mut timed, runs);
        record(
            &mut all,
            times,
            &format!("{threads} threads"),
            &insts_ok,
            &mut notes,
        );
    }
    drop(insts);
    Row {
        name: p.name,
        size: p.size.clone(),
        one,
        all,
        check,
        notes,
        work: p.limit,
    }
}

fn ratio(other: &Cell, lanes: &Cell) -> Option<f64> {
    Some(other.ms()? / lanes.ms()?)
}

fn show_ratio(r: Option<f64>) -> String {
    r.map_or("—".into(), |r| format!("{r:.2}"))
}

fn geomean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp())
}

fn table(rows: &[Row], threads: usize, limits: &Limits) -> String {
    let mut s = String::new();
    let t = format!("{threads} threads");
    let mut head = String::from("| kernel | size |");
    for l in LABELS {
        let _ = write!(head, " {l} 1 thread |");
    }
    for l in LABELS {
        let _ = write!(head, " {l} {t} |");
    }
    for l in &LABELS[1..] {
        let _ = write!(head, " lanes vs {l}, 1 / {threads} threads |");
    }
    head.push_str(" lanes / gcc, 1 thread: share of the limit | results |");
    let _ = writeln!(s, "{head}");
    let _ = writeln!(
        s,
        "|---|---|{}--:|---|",
        "--:|".repeat(2 * LABELS.len() + LABELS.len() - 1)
    );
    // Per peer: single-thread ratios, all-thread ratios.
    let mut ratios: Vec<[Vec<f64>; 2]> = vec![Default::default(); LABELS.len() - 1];
    for r in rows {
        let mut line = format!("| {} | {} |", r.name, r.size);
        for c in r.one.iter().chain(&r.all) {
            let _ = write!(line, " {} |", c.show());
        }
        for k in 1..LABELS.len() {
            let pair = [ratio(&r.one[k], &r.one[0]), ratio(&r.all[k], &r.all[0])];
            for (m, x) in pair.iter().enumerate() {
                if let Some(x) = x {
                    ratios[k - 1][m].push(*x);
                }
            }
            let _ = write!(line, " {} / {} |", show_ratio(pair[0]), show_ratio(pair[1]));
        }
        let share = limits::show_shares(limits, r.work.as_ref(), r.one[0].ms(), r.one[3].ms());
        let _ = writeln!(s, "{line} {share} | {} |", r.check);
    }
    let mut g = format!("| geometric mean | |{}", " |".repeat(2 * LABELS.len()));
    for [one, all] in &ratios {
        let _ = write!(
            g,
            " {} / {} |",
            show_ratio(geomean(one)),
            show_ratio(geomean(all))
        );
    }
    let _ = writeln!(s, "{g} | |");
    s
}

/// "AMD EPYC (family 25, model 17)" from /proc/cpuinfo.
pub(crate) fn cpu_model() -> String {
    let text = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        text.lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|l| l.split(':').nth(1))
            .map(|v| v.trim().to_string())
    };
    match (field("model name"), field("cpu family"), field("model")) {
        (Some(m), Some(f), Some(n)) => format!("{m} (family {f}, model {n})"),
        (Some(m), _, _) => m,
        _ => "unknown CPU".into(),
    }
}

/// Today's date (UTC) as YYYY-MM-DD, without a date crate.
/// The three load averages of /proc/loadavg ("unknown" where there are none).
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

pub(crate) fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!("{y:04}-{m:02}-{d:02}")
}

fn write_results(section: &str) -> Result<PathBuf, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("RESULTS.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|_| "# Benchmark results\n".into());
    std::fs::write(&path, crate::results::splice(&text, section))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

pub fn main(args: &[String]) {
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            eprintln!(
                "usage: lanes-bench codegen [--kernel NAME[,NAME...]] [--target TARGET] [--runs N] [--no-write]"
            );
            std::process::exit(2);
        }
    };
    if let Some((runtime, name)) = &o.ocl_child {
        ocl_child(*runtime, name);
        return;
    }
    let runs = o.runs.max(7);
    let names: Vec<&'static str> = match &o.kernels {
        None => NAMES.to_vec(),
        Some(ks) => {
            let mut v = Vec::new();
            for k in ks {
                match NAMES.iter().find(|n| **n == k.as_str()) {
                    Some(n) => v.push(*n),
                    None => {
                        eprintln!("codegen: unknown kernel {k}; known: {}", NAMES.join(", "));
                        std::process::exit(2);
                    }
                }
            }
            v
        }
    };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // The machines are shared: other work running at the same time shows here.
    let load = load_average();
    let start = Instant::now();

    println!(
        "generated code: {} kernels, lanes / Intel / PoCL / gcc, 1 and {threads} threads, median of {runs} side-by-side rounds after 2 warm-ups (load average {load})",
        names.len()
    );
    let problems_built: Vec<Problem> = names
        .iter()
        .map(|n| problems::build(n).expect("known kernel"))
        .collect();
    let mut files: Vec<&str> = problems_built.iter().map(|p| p.file).collect();
    // The STREAM reference point is the C triad.
    if !files.contains(&"stream_triad") {
        files.push("stream_triad");
    }
    let clib = cc::CLib::build(&kernels_dir().join("c"), &files);
    match &clib {
        Ok(l) => println!("gcc: {} {}", l.version, cc::FLAGS.join(" ")),
        Err(e) => println!("gcc: skipped: {e}"),
    }
    let ocls = OPENCL.map(|(_, runtime)| opencl::OpenCl::new(runtime));
    for (ocl, (_, runtime)) in ocls.iter().zip(OPENCL) {
        match ocl {
            Ok(o) => println!("{}: {}", runtime.label(), o.description),
            Err(e) => println!("{0}: skipped: {0} not found ({e})", runtime.label()),
        }
    }
    let lanes_bin = object::lanes_binary();
    let target = match &lanes_bin {
        Ok(bin) => object::target_description(bin, &o.target),
        Err(_) => o.target.clone(),
    };
    let lanes_what = match &lanes_bin {
        Ok(bin) => format!(
            "{}, `lanes build --target {}` objects (otherwise default options: -O2, fast paths on inferred preconditions), linked with `gcc -shared`",
            object::lanes_version(bin),
            o.target
        ),
        Err(e) => format!("skipped: {e}"),
    };
    println!("lanes: target {target}; {lanes_what}");
    let cpu = o.cpu.unwrap_or_else(last_cpu);

    let peak_src = Path::new(env!("CARGO_MANIFEST_DIR")).join("peak/fma_peak.c");
    let scratch = std::env::temp_dir().join(format!("lanes-bench-peak-{}", std::process::id()));
    let measure_limits = |when: &str| {
        let allowed = affinity();
        let mut notes = Vec::new();
        if let Err(e) = set_affinity(&only(cpu)) {
            notes.push(format!("limits not measured pinned: {e}"));
        }
        let (l, more) = limits::measure(clib.as_ref().ok(), &peak_src, &scratch);
        notes.extend(more);
        if let Err(e) = allowed.and_then(|set| set_affinity(&set)) {
            notes.push(format!("could not unpin: {e}"));
        }
        let show = |v: Option<f64>| v.map_or("—".into(), |v| format!("{v:.1}"));
        println!(
            "limits {when}: STREAM triad {} GB/s, FMA peak {} GFLOP/s (CPU {cpu})",
            show(l.stream_gbs),
            show(l.fma_gflops)
        );
        (l, notes)
    };
    let (limits_before, mut limit_notes) = measure_limits("before");

    let mut rows = Vec::new();
    for p in &problems_built {
        println!("{} ({})", p.name, p.size);
        let row = bench_kernel(p, &o.target, threads, runs, cpu, &lanes_bin, &clib, &ocls);
        let show = |cells: &[Cell; 4]| {
            cells
                .iter()
                .map(|c| match c {
                    Cell::Time(s) => format!("{:.2} [{:.2}-{:.2}]", s.median, s.min, s.max),
                    Cell::Missing => "—".into(),
                })
                .collect::<Vec<_>>()
                .join(" / ")
        };
        println!(
            "  {}: lanes / Intel / PoCL / gcc {} ms on 1 thread; {} ms on {threads}",
            row.name,
            show(&row.one),
            show(&row.all)
        );
        rows.push(row);
    }
    drop(problems_built);
    let (limits_after, more) = measure_limits("after");
    limit_notes.extend(more);
    let _ = std::fs::remove_dir_all(&scratch);
    let limits = Limits::best(limits_before, limits_after);
    let show_limit = |v: Option<f64>| v.map_or("not measured".into(), |v| format!("{v:.1}"));

    let mut extra = String::new();
    if let Some(ks) = &o.kernels {
        extra.push_str(&format!(" --kernel {}", ks.join(",")));
    }
    if o.target != "host" {
        extra.push_str(&format!(" --target {}", o.target));
    }
    if o.runs != 9 {
        extra.push_str(&format!(" --runs {}", o.runs));
    }
    let mut sec = String::new();
    // Each target has its own section; the host's is the main one.
    if o.target == "host" {
        let _ = writeln!(sec, "## Generated code\n");
    } else {
        let _ = writeln!(sec, "## Generated code, target {}\n", o.target);
    }
    let _ = writeln!(
        sec,
        "Command: `cargo run --release -p lanes-bench -- codegen{extra}`{}.  ",
        if extra.is_empty() {
            " (part of `make bench`)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        sec,
        "Machine: {}, {threads} threads, {}; load average before the run: {load}.  ",
        cpu_model(),
        today()
    );
    let _ = writeln!(
        sec,
        "lanes: target {target}; {lanes_what}. Intel: {}. PoCL: {}. gcc: {}.",
        ocls[0]
            .as_ref()
            .map(|o| o.description.clone())
            .unwrap_or_else(|e| format!(
                "skipped: not found ({e}); `scripts/intel-opencl.sh` installs it"
            )),
        ocls[1]
            .as_ref()
            .map(|o| o.description.clone())
            .unwrap_or_else(|e| format!("skipped: PoCL not found ({e})")),
        clib.as_ref()
            .map(|l| format!("{} `{}`", l.version, cc::FLAGS.join(" ")))
            .unwrap_or_else(|e| format!("skipped: {e}"))
    );
    let per = threads * CHUNKS_PER_THREAD;
    let _ = writeln!(
        sec,
        "\nMedians of {runs} rounds after 2 warm-ups, in milliseconds; each round runs every \
         implementation once, side by side, starting with a different one each round (compile \
         time excluded everywhere). Single-thread figures run pinned to CPU {cpu} (Intel's \
         runtime and PoCL in child processes started there with \
         `CL_CONFIG_CPU_TBB_NUM_WORKERS=1` or `POCL_MAX_PTHREAD_COUNT=1`); {threads}-thread \
         figures run unpinned. The same NDRange and local size (256 in 1-D, 64 x 4 in 2-D, \
         16 x 16 for matmul_tiled and transpose) for lanes and the OpenCL runtimes; the \
         work-group kernels (matmul_tiled and after) use barriers and `__local` memory, their \
         C versions compute the same results without either. lanes and gcc run the \
         work-groups (lanes) or the outer loop (C, bench/kernels/c) on {threads} threads \
         (`std::thread::scope`) that take chunks of 1/{per} of the range from a shared counter \
         until none is left, as the OpenCL runtimes balance their own threads. Every \
         buffer is copied to memory aligned to 64 bytes for lanes and gcc, as the OpenCL \
         runtimes copy it to their own (`CL_MEM_COPY_HOST_PTR`). Ratios \
         are the other's time over lanes' (> 1: lanes faster). Before timing, each \
         implementation's results (all threads, from the initial data) are compared with \
         gcc's: floats within a normwise tolerance, integers exactly (mandelbrot: 0.5% of \
         pixels may differ on the set's chaotic border).\n"
    );
    let _ = writeln!(
        sec,
        "The machine's limits on CPU {cpu}, measured before and after the kernels (the higher \
         of the two is used): STREAM triad (bench/kernels/c/stream_triad.c, one thread, 3 x \
         128 MiB, 12 bytes per element) {} / {} GB/s; FMA peak (bench/peak/fma_peak.c, \
         256-bit FMAs in 10 independent chains) {} / {} GFLOP/s. The share column is each \
         kernel's rate against the limit that bounds it by its operations per byte (a \
         roofline, bench/src/codegen/limits.rs): GB/s of compulsory traffic over the STREAM \
         bandwidth, or GFLOP/s over the FMA peak; — for kernels bound by neither (searches, \
         data-dependent iteration counts, math-library calls).\n",
        show_limit(limits_before.stream_gbs),
        show_limit(limits_after.stream_gbs),
        show_limit(limits_before.fma_gflops),
        show_limit(limits_after.fma_gflops),
    );
    sec.push_str(&table(&rows, threads, &limits));
    if !limit_notes.is_empty() {
        let _ = writeln!(sec, "\nLimits: {}", limit_notes.join("; "));
    }
    if rows.iter().any(|r| !r.notes.is_empty()) {
        let _ = writeln!(sec, "\nNotes:\n");
        // The same reason for every kernel is said once.
        let mut seen = std::collections::BTreeSet::new();
        for r in &rows {
            for n in &r.notes {
                if n.contains("unavailable") || n.contains("skipped") {
                    if seen.insert(n.clone()) {
                        let _ = writeln!(sec, "- {n}");
                    }
                } else {
                    let _ = writeln!(sec, "- {}: {n}", r.name);
                }
            }
        }
    }
    println!("\n{sec}");
    println!(
        "codegen benchmark took {:.1} s",
        start.elapsed().as_secs_f64()
    );
    if o.kernels.is_none() && o.write {
        match write_results(&sec) {
            Ok(p) => println!("written to {}", p.display()),
            Err(e) => eprintln!("could not write RESULTS.md: {e}"),
        }
    } else {
        println!("(RESULTS.md not written: only a full run writes it)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::splice;

    #[test]
    fn run_split_runs_every_index_once_and_reports_a_failure() {
        use std::sync::atomic::{AtomicU32, Ordering};
        for threads in 1..=3 {
            for total in [0, 1, 5, 47, 48, 1000] {
                let seen: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
                let rc = run_split(total, threads, |first, last| {
                    assert!(first <= last && last <= total, "{first}..{last} of {total}");
                    for s in &seen[first..last] {
                        s.fetch_add(1, Ordering::Relaxed);
                    }
                    0
                });
                assert_eq!(rc, 0);
                let counts: Vec<u32> = seen.iter().map(|s| s.load(Ordering::Relaxed)).collect();
                assert!(
                    counts.iter().all(|&c| c == 1),
                    "{threads} threads, {total}: {counts:?}"
                );
            }
            let rc = run_split(100, threads, |first, last| {
                if (first..last).contains(&50) {
                    -2
                } else {
                    0
                }
            });
            assert_eq!(rc, -2, "{threads} threads");
        }
    }

    #[test]
    fn splice_appends_then_replaces_in_place() {
        let sec = "## Generated code\n\nnew\n";
        let t = splice("# R\n\n## Front end\n\nx\n", sec);
        assert_eq!(t, "# R\n\n## Front end\n\nx\n\n## Generated code\n\nnew\n");
        let old = "# R\n\n## Generated code\n\nold\n\n## Other\n\ny\n";
        assert_eq!(
            splice(old, sec),
            "# R\n\n## Generated code\n\nnew\n\n## Other\n\ny\n"
        );
        assert_eq!(
            splice(&t, "## Generated code\n\nnewer\n"),
            t.replace("new\n", "newer\n")
        );
    }

    #[test]
    fn every_table_line_has_the_headers_cells() {
        let t = |ms: f64| {
            Cell::Time(Stats {
                median: ms,
                min: ms,
                max: ms,
            })
        };
        let row = Row {
            name: "k",
            size: "n".into(),
            one: [t(1.0), t(2.0), Cell::Missing, t(4.0)],
            all: [t(0.5), t(1.0), t(3.0), Cell::Missing],
            check: "ok".into(),
            notes: Vec::new(),
            work: Some(Work {
                bytes: 12e6,
                flops: 2e6,
            }),
        };
        let machine = Limits {
            stream_gbs: Some(20.0),
            fma_gflops: Some(100.0),
        };
        let table = table(&[row], 2, &machine);
        let cells: Vec<usize> = table.lines().map(|l| l.matches('|').count()).collect();
        assert!(cells.iter().all(|&n| n == cells[0]), "{table}");
        // lanes vs Intel on 1 thread: 2.0 / 1.0; vs PoCL on 2 threads: 3.0 / 0.5.
        assert!(table.contains("| 2.00 / 2.00 |"), "{table}");
        assert!(table.contains("| — / 6.00 |"), "{table}");
        // 12 MB in 1 ms (lanes) and 4 ms (gcc) against 20 GB/s.
        assert!(table.contains("| 60% / 15% STREAM |"), "{table}");
    }

    /// Records the order of calls; fails from call `fail_at` on.
    struct Probe<'a> {
        id: usize,
        log: &'a std::cell::RefCell<Vec<usize>>,
        fail_at: Option<usize>,
        calls: usize,
    }

    impl Timed for Probe<'_> {
        fn once(&mut self) -> Result<Duration, String> {
            self.calls += 1;
            self.log.borrow_mut().push(self.id);
            if self.fail_at.is_some_and(|n| self.calls >= n) {
                return Err(format!("probe {} failed", self.id));
            }
            Ok(Duration::from_millis(self.calls as u64))
        }
    }

    #[test]
    fn interleaved_rounds_rotate_and_drop_failures() {
        let log = std::cell::RefCell::new(Vec::new());
        let probe = |id, fail_at| Probe {
            id,
            log: &log,
            fail_at,
            calls: 0,
        };
        let (mut a, mut b, mut c) = (probe(0, None), probe(1, None), probe(2, Some(4)));
        let mut timed: Vec<Option<&mut dyn Timed>> =
            vec![Some(&mut a), None, Some(&mut b), Some(&mut c)];
        let got = time_interleaved(&mut timed, 7);
        drop(timed);
        // 2 warm-ups and 7 timed rounds; the failing probe stops after 4 calls.
        assert_eq!((a.calls, b.calls, c.calls), (9, 9, 4));
        // Round r starts with slot r mod 4 (slot 1 is empty; slots 2
        // and 3 hold probes 1 and 2).
        assert_eq!(&log.borrow()[..3], &[0, 1, 2]);
        assert_eq!(&log.borrow()[3..6], &[1, 2, 0]);
        // Times 3..=9 ms after the warm-ups: median 6, min 3, max 9.
        let s = got[0].as_ref().expect("probe 0 timed");
        assert_eq!((s.median, s.min, s.max), (6.0, 3.0, 9.0));
        assert!(got[1].is_err());
        assert_eq!(got[3].as_ref().unwrap_err(), "probe 2 failed");
    }

    #[test]
    fn compare_floats_and_ints() {
        let bytes = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let like = Buf::F32(vec![]);
        let want = bytes(&[1.0, -2.0, 4.0]);
        assert!(compare(
            &want,
            &bytes(&[1.0, -2.0, 4.0 + 1e-6]),
            &like,
            Tol::Float(1e-5)
        )
        .is_ok());
        assert!(compare(&want, &bytes(&[1.0, -2.1, 4.0]), &like, Tol::Float(1e-5)).is_err());
        assert!(compare(
            &want,
            &bytes(&[1.0, f32::NAN, 4.0]),
            &like,
            Tol::Float(1e-5)
        )
        .is_err());
        let ints = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let like = Buf::U32(vec![]);
        let want = ints(&[1, 2, 3, 4]);
        assert!(compare(&want, &ints(&[1, 2, 3, 4]), &like, Tol::Int(0.0)).is_ok());
        assert!(compare(&want, &ints(&[1, 2, 3, 5]), &like, Tol::Int(0.0)).is_err());
        assert!(compare(&want, &ints(&[1, 2, 3, 5]), &like, Tol::Int(0.25)).is_ok());
    }

    /// The work-group kernels (barriers, `__local` memory, atomics) give
    /// the C versions' results on lanes (the JIT, and the object of the
    /// `lanes` binary when `cargo test --workspace` built it), at the
    /// benchmark's sizes and on two threads, as the benchmark checks
    /// before timing.
    #[cfg(feature = "lanes")]
    #[test]
    fn work_group_kernels_on_lanes_match_their_c_versions() {
        let ps: Vec<Problem> = problems::WORK_GROUP_NAMES
            .iter()
            .map(|n| {
                assert!(NAMES.contains(n), "{n} is benchmarked");
                problems::build(n).expect("known kernel")
            })
            .collect();
        let files: Vec<&str> = ps.iter().map(|p| p.file).collect();
        let clib = match cc::CLib::build(&kernels_dir().join("c"), &files) {
            Ok(l) => l,
            Err(e) => {
                println!("SKIPPED: {e}");
                return;
            }
        };
        let bin = object::lanes_binary();
        for p in &ps {
            let mut c = clib.instance(p).expect("C version");
            c.run(2).expect("C version runs");
            let want = outputs(c.as_mut(), p).expect("C results");
            let cl_path = kernels_dir().join(format!("{}.cl", p.file));
            let mut ls = vec![(
                "JIT",
                lanes::instance(p, &cl_path, "host").unwrap_or_else(|e| panic!("{}: {e}", p.name)),
            )];
            match &bin {
                Ok(bin) => ls.push((
                    "lanes build object",
                    object::instance(p, &cl_path, "host", bin)
                        .unwrap_or_else(|e| panic!("{}: {e}", p.name)),
                )),
                Err(e) => println!("objects not checked: {e}"),
            }
            for (how, l) in &mut ls {
                l.run(2)
                    .unwrap_or_else(|e| panic!("{} ({how}): {e}", p.name));
                let got = outputs(l.as_mut(), p).expect("lanes results");
                for (n, &(arg, tol)) in p.checks.iter().enumerate() {
                    let problems::Arg::Buf(like) = &p.args[arg] else {
                        panic!("{}: argument {arg} is not a buffer", p.name);
                    };
                    if let Err(e) = compare(&want[n], &got[n], like, tol) {
                        panic!("{} ({how}): argument {arg}: {e}", p.name);
                    }
                }
            }
        }
    }

    #[test]
    fn every_kernel_builds_and_has_its_files() {
        for name in NAMES {
            let p = problems::build(name).expect("known kernel");
            assert!(
                kernels_dir().join(format!("{}.cl", p.file)).exists(),
                "{name}.cl"
            );
            assert!(
                kernels_dir().join(format!("c/{}.c", p.file)).exists(),
                "{name}.c"
            );
            assert!(p.groups() > 0);
            for &(arg, _) in &p.checks {
                assert!(
                    matches!(p.args[arg], problems::Arg::Buf(_)),
                    "{name}: {arg}"
                );
            }
        }
    }
}
