//! `lanes-bench precond`: the experiment of Moll, "Synthesizing Hot Code
//! Paths by Abductive Reasoning" (section V, Table I) on lanes.
//!
//! The five kernels of bench/kernels/paper (the files of
//! tests/kernels/precond, checked by bench/tests/paper_kernels.rs) run their
//! whole launch sequences at the paper's sizes three ways in one process:
//! (a) lanes, the file as written; (b) lanes, the file after
//! `specialize` (fast paths on the inferred preconditions, what
//! `lanes build --specialize auto` compiles), re-checked and compiled the
//! same way; (c) PoCL on the file as written. lanes runs on one thread
//! (JIT, `--target`, `host` by default); PoCL runs in a child process with
//! `POCL_MAX_PTHREAD_COUNT=1`, so all three use one core. Before anything
//! is timed, one run of each from the initial data is compared: (a) with a
//! plain Rust reference, (b) and (c) with (a).
//!
//! A run is the whole sequence (all levels, all passes) from the initial
//! data, which is restored untimed before every run. Each figure is the
//! median over `--runs` samples (after two warm-ups); a sample averages
//! enough runs to last about 20 ms, so the microsecond-sized PrefixSum is
//! measured too. (a) and (b) alternate sample by sample, so load on the
//! shared machine hits both alike.
//!
//! Options: `--kernel NAME[,NAME...]` (only these; RESULTS.md is then left
//! alone), `--runs N` (default 9), `--target T` (default `host`),
//! `--target-budget N` (solver resource units for `specialize` per target, default its own),
//! `--no-write`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::{check_text, CheckedUnit};

// ---------------------------------------------------------------------------
// Problems

/// The contents of one buffer.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    F32(Vec<f32>),
    U32(Vec<u32>),
}

impl Data {
    fn len(&self) -> usize {
        match self {
            Data::F32(v) => v.len(),
            Data::U32(v) => v.len(),
        }
    }
    fn byte_len(&self) -> usize {
        self.len() * 4
    }
    fn bytes(&self) -> &[u8] {
        let p: *const u8 = match self {
            Data::F32(v) => v.as_ptr().cast(),
            Data::U32(v) => v.as_ptr().cast(),
        };
        // SAFETY: plain-old-data elements viewed as bytes for their lifetime.
        unsafe { std::slice::from_raw_parts(p, self.byte_len()) }
    }
    #[cfg_attr(not(feature = "lanes"), allow(dead_code))]
    fn as_mut_ptr(&mut self) -> *mut std::ffi::c_void {
        match self {
            Data::F32(v) => v.as_mut_ptr().cast(),
            Data::U32(v) => v.as_mut_ptr().cast(),
        }
    }
    /// Overwrites the contents (same kind and length) without reallocating.
    #[cfg_attr(not(feature = "lanes"), allow(dead_code))]
    fn copy_from(&mut self, other: &Data) {
        match (self, other) {
            (Data::F32(a), Data::F32(b)) => a.copy_from_slice(b),
            (Data::U32(a), Data::U32(b)) => a.copy_from_slice(b),
            _ => panic!("copy between buffers of different kinds"),
        }
    }
    /// New contents of the same kind from bytes.
    fn with_bytes(&self, bytes: &[u8]) -> Data {
        let words = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        match self {
            Data::F32(_) => Data::F32(words.map(f32::from_bits).collect()),
            Data::U32(_) => Data::U32(words.collect()),
        }
    }
}

/// A kernel argument: a buffer of the problem, or a scalar.
#[derive(Clone, Copy, Debug)]
pub enum A {
    B(usize),
    U(u32),
    I(i32),
    /// A `__local` pointer: the size in bytes of its object.
    L(usize),
}

#[derive(Clone, Debug)]
pub struct Launch {
    pub kernel: &'static str,
    pub work_dim: u32,
    pub global: [usize; 3],
    pub local: [usize; 3],
    pub args: Vec<A>,
}

fn launch1(kernel: &'static str, global: usize, local: usize, args: Vec<A>) -> Launch {
    Launch {
        kernel,
        work_dim: 1,
        global: [global, 1, 1],
        local: [local, 1, 1],
        args,
    }
}

/// One row of Table I.
pub struct Paper {
    pub n: &'static str,
    pub opt_ms: f64,
    pub wfv_ms: f64,
    /// Concrete abduction at SIMD width 4: "ms (# queries)".
    pub edges: &'static str,
    pub clauses: &'static str,
}

impl Paper {
    /// WFV / Opt - 1, in percent (the paper's SpeedUp column).
    fn speedup(&self) -> f64 {
        (self.wfv_ms / self.opt_ms - 1.0) * 100.0
    }
}

pub struct Problem {
    pub name: &'static str,
    /// In bench/kernels/paper.
    pub file: &'static str,
    pub size: String,
    pub bufs: Vec<Data>,
    pub launches: Vec<Launch>,
    /// The result buffers compared across implementations.
    pub results: Vec<usize>,
    /// Compares the final buffers with a plain Rust reference; Ok(summary).
    pub reference: fn(&Problem, &[Data]) -> Result<String, String>,
    pub paper: Paper,
}

pub const NAMES: [&str; 7] = [
    "Convolution2D",
    "PrefixSum",
    "DwtHaar1D",
    "FastWalshTransform",
    "BitonicSort",
    "PrefixSumLocal",
    "DwtHaar1DLocal",
];

/// Deterministic pseudo-random numbers (xorshift64*).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn floats(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n)
            .map(|_| lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32))
            .collect()
    }
}

fn f32s(d: &Data) -> &[f32] {
    match d {
        Data::F32(v) => v,
        Data::U32(_) => panic!("not a float buffer"),
    }
}

fn u32s(d: &Data) -> &[u32] {
    match d {
        Data::U32(v) => v,
        Data::F32(_) => panic!("not a uint buffer"),
    }
}

/// Normwise comparison: max |got - want| <= `rel` * max |want|.
fn close(what: &str, got: &[f32], want: &[f32], rel: f64) -> Result<f64, String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} elements, want {}",
            got.len(),
            want.len()
        ));
    }
    let scale = want
        .iter()
        .map(|x| x.abs() as f64)
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let (mut worst, mut at) = (0.0f64, 0);
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let d = if g == w {
            0.0
        } else if g.is_nan() || w.is_nan() {
            f64::INFINITY
        } else {
            (g as f64 - w as f64).abs()
        };
        if d > worst {
            worst = d;
            at = i;
        }
    }
    let err = worst / scale;
    if err > rel {
        Err(format!(
            "{what}: max error {err:.2e} of max |value| > {rel:.0e} (element {at}: got {}, want {})",
            got[at], want[at]
        ))
    } else {
        Ok(err)
    }
}

fn same_u32(what: &str, got: &[u32], want: &[u32]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} elements, want {}",
            got.len(),
            want.len()
        ));
    }
    match (0..got.len()).find(|&i| got[i] != want[i]) {
        None => Ok(()),
        Some(i) => Err(format!("{what}[{i}]: got {}, want {}", got[i], want[i])),
    }
}

const TOL: f64 = 1e-5;

/// Convolution2D: 2048 x 2048, radius 2 (5 x 5 mask); the paper does not
/// give its size.
const CONV_W: usize = 2048;
const CONV_H: usize = 2048;
const CONV_R: usize = 2;

fn convolution() -> Problem {
    let (w, h, r) = (CONV_W, CONV_H, CONV_R);
    let mut rng = Rng::new(1);
    let mw = 2 * r + 1;
    Problem {
        name: "Convolution2D",
        file: "convolution2d.cl",
        size: format!("{w} x {h}, {mw} x {mw} mask"),
        bufs: vec![
            Data::F32(rng.floats(w * h, -1.0, 1.0)),
            Data::F32(vec![0.0; w * h]),
            Data::F32(rng.floats(mw * mw, 0.0, 1.0)),
        ],
        launches: vec![Launch {
            kernel: "convolution2d",
            work_dim: 2,
            global: [w, h, 1],
            local: [64, 4, 1],
            args: vec![
                A::B(0),
                A::B(1),
                A::B(2),
                A::I(w as i32),
                A::I(h as i32),
                A::I(r as i32),
            ],
        }],
        results: vec![1],
        reference: |p, out| {
            let (input, mask) = (f32s(&p.bufs[0]), f32s(&p.bufs[2]));
            let (w, h, r) = (CONV_W, CONV_H, CONV_R);
            let mw = 2 * r + 1;
            let mut want = vec![0.0f32; w * h];
            for y in 0..h {
                for x in 0..w {
                    let mut sum = 0.0f32;
                    for j in y.saturating_sub(r)..=(y + r).min(h - 1) {
                        for i in x.saturating_sub(r)..=(x + r).min(w - 1) {
                            sum += input[j * w + i] * mask[(j + r - y) * mw + (i + r - x)];
                        }
                    }
                    want[y * w + x] = sum;
                }
            }
            close("output", f32s(&out[1]), &want, TOL).map(|e| format!("max error {e:.1e}"))
        },
        paper: Paper {
            n: "—",
            opt_ms: 666.06,
            wfv_ms: 1639.47,
            edges: "24.74 (3)",
            clauses: "27.57 (2)",
        },
    }
}

/// The up-sweep and down-sweep launches of the SDK's inclusive scan, blocks
/// of 2 * `local` floats (bench/tests/paper_kernels.rs has the same).
fn prefix_sum_launches(groups: usize, local: usize) -> Vec<Launch> {
    let global = groups * local;
    let mut v = Vec::new();
    let (mut d, mut offset) = (local, 1usize);
    while d > 0 {
        let args = vec![A::B(0), A::U(d as u32), A::U(offset as u32)];
        v.push(launch1("prefix_sum_up", global, local, args));
        d >>= 1;
        offset <<= 1;
    }
    let mut d = 1;
    while d < local {
        offset >>= 1;
        let args = vec![A::B(0), A::U(d as u32), A::U(offset as u32)];
        v.push(launch1("prefix_sum_down", global, local, args));
        d = 2 * d + 1;
    }
    v
}

fn prefix_sum() -> Problem {
    let n = 512;
    Problem {
        name: "PrefixSum",
        file: "prefix_sum.cl",
        size: format!("{n} (1 work-group of {})", n / 2),
        bufs: vec![Data::F32(Rng::new(2).floats(n, -1.0, 1.0))],
        launches: prefix_sum_launches(1, n / 2),
        results: vec![0],
        reference: |p, out| {
            let want = inclusive_sums(f32s(&p.bufs[0]));
            close("data", f32s(&out[0]), &want, TOL).map(|e| format!("max error {e:.1e}"))
        },
        paper: Paper {
            n: "512",
            opt_ms: 0.077,
            wfv_ms: 0.119,
            edges: "6.87 (2)",
            clauses: "14.00 (2)",
        },
    }
}

/// The running sums of `xs`, in order.
fn inclusive_sums(xs: &[f32]) -> Vec<f32> {
    xs.iter()
        .scan(0.0f32, |acc, x| {
            *acc += x;
            Some(*acc)
        })
        .collect()
}

/// PrefixSum as the SDK writes it: one launch, the block in `__local`
/// memory, the tree levels separated by barriers (`group_prefixSum`).
fn prefix_sum_local() -> Problem {
    let n = 512;
    let plain = prefix_sum();
    Problem {
        name: "PrefixSumLocal",
        file: "prefix_sum.cl",
        size: format!("{n} (1 work-group of {}, __local, one launch)", n / 2),
        bufs: vec![plain.bufs[0].clone(), Data::F32(vec![0.0; n])],
        launches: vec![launch1(
            "group_prefixSum",
            n / 2,
            n / 2,
            vec![A::B(1), A::B(0), A::L(4 * n), A::U(n as u32)],
        )],
        results: vec![1],
        reference: |p, out| {
            let want = inclusive_sums(f32s(&p.bufs[0]));
            close("output", f32s(&out[1]), &want, TOL).map(|e| format!("max error {e:.1e}"))
        },
        paper: plain.paper,
    }
}

/// Buffers 0 signal, 1 coefs, 2 and 3 ping-pong: the launches of the whole
/// transform and the buffer holding the final average in element 0.
fn dwt_launches(m: usize, local: usize) -> (Vec<Launch>, usize) {
    let mut v = Vec::new();
    let (mut src, mut dst) = (0usize, 2usize);
    let mut cur = m;
    while cur > 1 {
        let l = local.min(cur / 2);
        for level in 0..(2 * l).trailing_zeros() {
            let half_len = cur >> (level + 1);
            let args = vec![
                A::B(src),
                A::B(dst),
                A::B(1),
                A::U(level),
                A::U(half_len as u32),
            ];
            v.push(launch1("dwt_haar1d", cur / 2, l, args));
            src = dst;
            dst = if dst == 2 { 3 } else { 2 };
        }
        cur /= 2 * l;
    }
    (v, src)
}

fn dwt_haar1d() -> Problem {
    let m = 1 << 16;
    let (launches, last) = dwt_launches(m, 256);
    Problem {
        name: "DwtHaar1D",
        file: "dwt_haar1d.cl",
        size: "2^16".into(),
        bufs: vec![
            Data::F32(Rng::new(3).floats(m, -1.0, 1.0)),
            Data::F32(vec![0.0; m]),
            Data::F32(vec![0.0; m / 2]),
            Data::F32(vec![0.0; m / 2]),
        ],
        launches,
        results: vec![1, last],
        reference: |p, out| haar_check(f32s(&p.bufs[0]), out, p.results[1]),
        paper: Paper {
            n: "2^16",
            opt_ms: 6.24,
            wfv_ms: 7.90,
            edges: "as PrefixSum",
            clauses: "as PrefixSum",
        },
    }
}

/// Compares the coefficients (buffer 1) and the final average (element 0
/// of buffer `last`) with the Haar transform of `signal`.
fn haar_check(signal: &[f32], out: &[Data], last: usize) -> Result<String, String> {
    let c = std::f32::consts::FRAC_1_SQRT_2;
    let mut s = signal.to_vec();
    let mut coefs = vec![0.0f32; s.len()];
    while s.len() > 1 {
        let half = s.len() / 2;
        let next: Vec<f32> = (0..half).map(|i| (s[2 * i] + s[2 * i + 1]) * c).collect();
        for i in 0..half {
            coefs[half + i] = (s[2 * i] - s[2 * i + 1]) * c;
        }
        s = next;
    }
    let e = close("coefs", f32s(&out[1]), &coefs, TOL)?;
    close("average", &f32s(&out[last])[..1], &s, TOL)?;
    Ok(format!("max error {e:.1e}"))
}

/// DwtHaar1D as the SDK writes it (`dwtHaar1D`): one launch per pass of
/// log2(2 L) levels, the block in `__local` memory, the levels separated
/// by barriers; the first pass scales the signal by 1 / sqrt(m).
fn dwt_haar1d_local() -> Problem {
    let m = 1usize << 16;
    let plain = dwt_haar1d();
    let mut launches = Vec::new();
    let (mut src, mut dst) = (0usize, 2usize);
    let (mut cur, mut done) = (m, 0u32);
    while cur > 1 {
        let l = 256.min(cur / 2);
        let levels = (2 * l).trailing_zeros();
        let args = vec![
            A::B(src),
            A::B(1),
            A::B(dst),
            A::L(8 * l),
            A::U(cur.trailing_zeros()),
            A::U(cur as u32),
            A::U(done),
            A::U(levels),
        ];
        launches.push(launch1("dwtHaar1D", cur / 2, l, args));
        done += levels;
        src = dst;
        dst = if dst == 2 { 3 } else { 2 };
        cur /= 2 * l;
    }
    Problem {
        name: "DwtHaar1DLocal",
        file: "dwt_haar1d.cl",
        size: "2^16 (work-groups of 256, __local, one launch per pass)".into(),
        launches,
        results: vec![1, src],
        reference: |p, out| {
            // The first pass scales by 1 / sqrt(m), a power of two: exact.
            let signal = f32s(&p.bufs[0]);
            let r = 1.0 / (signal.len() as f32).sqrt();
            let scaled: Vec<f32> = signal.iter().map(|x| x * r).collect();
            haar_check(&scaled, out, p.results[1])
        },
        ..plain
    }
}

fn fast_walsh_transform() -> Problem {
    let n = 1 << 24;
    let launches = (0..24)
        .map(|k| {
            launch1(
                "fast_walsh_transform",
                n / 2,
                256,
                vec![A::B(0), A::U(1 << k)],
            )
        })
        .collect();
    Problem {
        name: "FastWalshTransform",
        file: "fast_walsh_transform.cl",
        size: "2^24".into(),
        bufs: vec![Data::F32(Rng::new(4).floats(n, -1.0, 1.0))],
        launches,
        results: vec![0],
        reference: |p, out| {
            // The same butterflies, block by block.
            let mut want = f32s(&p.bufs[0]).to_vec();
            let mut step = 1;
            while step < want.len() {
                for block in want.chunks_mut(2 * step) {
                    let (lo, hi) = block.split_at_mut(step);
                    for (a, b) in lo.iter_mut().zip(hi) {
                        let (x, y) = (*a, *b);
                        *a = x + y;
                        *b = x - y;
                    }
                }
                step *= 2;
            }
            close("data", f32s(&out[0]), &want, TOL).map(|e| format!("max error {e:.1e}"))
        },
        paper: Paper {
            n: "2^24",
            opt_ms: 794.74,
            wfv_ms: 1583.77,
            edges: "as BitonicSort",
            clauses: "as BitonicSort",
        },
    }
}

fn bitonic_sort() -> Problem {
    let log_n = 20u32;
    let n = 1usize << log_n;
    let mut rng = Rng::new(5);
    let data: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
    let mut launches = Vec::new();
    for stage in 0..log_n {
        for pass in 0..=stage {
            let args = vec![A::B(0), A::U(stage), A::U(pass), A::U(1)];
            launches.push(launch1("bitonic_sort", n / 2, 256, args));
        }
    }
    Problem {
        name: "BitonicSort",
        file: "bitonic_sort.cl",
        size: "2^20".into(),
        bufs: vec![Data::U32(data)],
        launches,
        results: vec![0],
        reference: |p, out| {
            let mut want = u32s(&p.bufs[0]).to_vec();
            want.sort_unstable();
            same_u32("data", u32s(&out[0]), &want).map(|_| "sorted".into())
        },
        paper: Paper {
            n: "2^20",
            opt_ms: 584.29,
            wfv_ms: 576.27,
            edges: "979.59 (103)",
            clauses: "16.65 (2)",
        },
    }
}

pub fn build(name: &str) -> Option<Problem> {
    Some(match name {
        "Convolution2D" => convolution(),
        "PrefixSum" => prefix_sum(),
        "DwtHaar1D" => dwt_haar1d(),
        "FastWalshTransform" => fast_walsh_transform(),
        "BitonicSort" => bitonic_sort(),
        "PrefixSumLocal" => prefix_sum_local(),
        "DwtHaar1DLocal" => dwt_haar1d_local(),
        _ => return None,
    })
}

fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kernels/paper")
}

// ---------------------------------------------------------------------------
// Specialization

/// What `specialize` did to one file.
struct Specialized {
    text: String,
    /// "kernel:line: condition" per fast path.
    applied: Vec<String>,
    millis: f64,
}

/// The main file's text with a fast path for every proven precondition
/// (`lanes build --specialize auto`), and how long that took.
fn specialize(unit: &CheckedUnit, width: u32, budget: Option<u64>) -> Specialized {
    use lanes_vectorizer::precond;
    let mut opts = precond::Options::new(width);
    if let Some(b) = budget {
        opts.budget.target = b;
    }
    let t = Instant::now();
    let s = precond::specialize(unit, &opts);
    let millis = t.elapsed().as_secs_f64() * 1e3;
    Specialized {
        text: s.text,
        applied: s
            .applied
            .iter()
            .map(|a| format!("{}:{}: {}", a.kernel, a.line, a.condition))
            .collect(),
        millis,
    }
}

// ---------------------------------------------------------------------------
// Implementations

/// One implementation of one problem, compiled, with its data in place.
trait Engine {
    /// Restores the initial data (not timed).
    fn reset(&mut self) -> Result<(), String>;
    /// The whole launch sequence, once, to completion.
    fn run(&mut self) -> Result<(), String>;
    /// The contents of buffer `i`.
    fn output(&mut self, i: usize) -> Result<Data, String>;
}

/// The lanes columns: the text through the front end and the back end for
/// the target, JIT-compiled, every launch on this thread.
mod lanes_jit {
    use super::*;

    pub fn target_description(target: &str) -> String {
        imp::target_description(target)
    }

    /// Compiles `text` (the file `p.file`, maybe specialized) for `target`.
    pub fn engine(p: &Problem, text: &str, target: &str) -> Result<Box<dyn Engine>, String> {
        imp::engine(p, text, target)
    }

    #[cfg(not(feature = "lanes"))]
    mod imp {
        use super::*;

        pub fn target_description(target: &str) -> String {
            format!("{target} (unavailable)")
        }

        pub fn engine(_p: &Problem, _text: &str, _target: &str) -> Result<Box<dyn Engine>, String> {
            Err("lanes-bench was built without the `lanes` feature".into())
        }
    }

    #[cfg(feature = "lanes")]
    mod imp {
        use std::ffi::c_void;
        use std::panic::{catch_unwind, AssertUnwindSafe};

        use lanes_codegen::{Jit, LanesRange, LaunchFn};

        use super::*;

        pub fn target_description(target: &str) -> String {
            match catch_unwind(|| lanes_codegen::target_spec(target)) {
                Ok(Ok(s)) => format!("{target} (W = {}, {})", s.width, s.cpu),
                Ok(Err(e)) => format!("{target} (unavailable: {e})"),
                Err(_) => format!("{target} (unavailable)"),
            }
        }

        pub fn engine(p: &Problem, text: &str, target: &str) -> Result<Box<dyn Engine>, String> {
            catch_unwind(AssertUnwindSafe(|| compile(p, text, target))).unwrap_or_else(|e| {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "unknown panic".into());
                Err(format!("panic while compiling: {msg}"))
            })
        }

        struct Call {
            launch: LaunchFn,
            /// One 8-byte slot per argument: a buffer's address or a
            /// scalar's value in the low bytes; `ptrs[i]` points to slot i.
            _slots: Box<[u64]>,
            ptrs: Box<[*mut c_void]>,
            range: LanesRange,
        }

        struct LanesEngine {
            /// Owns the code the calls point into.
            _jit: Jit,
            initial: Vec<Data>,
            /// The buffers the calls point into (never reallocated).
            bufs: Vec<Data>,
            calls: Vec<Call>,
        }

        fn compile(p: &Problem, text: &str, target: &str) -> Result<Box<dyn Engine>, String> {
            let spec = lanes_codegen::target_spec(target)?;
            let path = kernels_dir().join(p.file);
            let opts = PreprocessOptions {
                width: spec.width,
                ..Default::default()
            };
            let unit = check_text(p.file, Some(path), text, &opts, &RealFs);
            if let Some(d) = unit.diagnostics.iter().find(|d| d.is_error()) {
                return Err(format!("{}: {}", p.file, d.message));
            }
            let compiled = lanes_codegen::compile_unit(
                &unit.hir,
                &spec,
                &lanes_codegen::Options { opt_level: 2 },
            )
            .map_err(|ds| {
                let msgs: Vec<String> = ds.iter().map(|d| d.message.clone()).collect();
                format!("compile: {}", msgs.join("; "))
            })?;
            let jit = Jit::new(compiled).map_err(|e| format!("JIT: {e}"))?;
            let mut bufs = p.bufs.clone();
            let mut calls = Vec::new();
            for l in &p.launches {
                let launch = jit
                    .launcher(l.kernel)
                    .ok_or_else(|| format!("no launcher for kernel {}", l.kernel))?;
                let mut slots: Box<[u64]> = l
                    .args
                    .iter()
                    .map(|a| match *a {
                        A::B(i) => bufs[i].as_mut_ptr() as usize as u64,
                        A::U(v) => v as u64,
                        A::I(v) => v as u32 as u64,
                        A::L(bytes) => bytes as u64,
                    })
                    .collect();
                let ptrs = slots
                    .iter_mut()
                    .map(|s| s as *mut u64 as *mut c_void)
                    .collect();
                calls.push(Call {
                    launch,
                    _slots: slots,
                    ptrs,
                    range: LanesRange {
                        work_dim: l.work_dim,
                        global_offset: [0; 3],
                        global_size: l.global,
                        local_size: l.local,
                    },
                });
            }
            Ok(Box::new(LanesEngine {
                _jit: jit,
                initial: p.bufs.clone(),
                bufs,
                calls,
            }))
        }

        impl Engine for LanesEngine {
            fn reset(&mut self) -> Result<(), String> {
                for (b, i) in self.bufs.iter_mut().zip(&self.initial) {
                    b.copy_from(i);
                }
                Ok(())
            }

            fn run(&mut self) -> Result<(), String> {
                for (n, c) in self.calls.iter().enumerate() {
                    // SAFETY: the argument slots match the kernel's
                    // parameters; the buffers they point to are alive, never
                    // reallocated, and as large as the launches need.
                    let rc = unsafe { (c.launch)(c.ptrs.as_ptr(), &c.range, 0, usize::MAX) };
                    if rc != 0 {
                        return Err(format!("launch {n} returned {rc}"));
                    }
                }
                Ok(())
            }

            fn output(&mut self, i: usize) -> Result<Data, String> {
                Ok(self.bufs[i].clone())
            }
        }
    }
}

/// The PoCL column: the same `.cl` text built by PoCL's CPU device.
mod pocl {
    use std::ptr;

    use opencl3::command_queue::CommandQueue;
    use opencl3::context::Context;
    use opencl3::kernel::Kernel;
    use opencl3::memory::{Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
    use opencl3::program::Program;
    use opencl3::types::{cl_mem, CL_BLOCKING};

    use super::*;

    pub struct Pocl {
        context: Context,
        queue: CommandQueue,
        pub description: String,
    }

    impl Pocl {
        /// Finds PoCL's CPU device; Err (never a panic) when there is none.
        pub fn new() -> Result<Pocl, String> {
            let (context, queue, description) =
                crate::codegen::opencl::connect(crate::codegen::opencl::Runtime::Pocl)?;
            Ok(Pocl {
                context,
                queue,
                description,
            })
        }

        /// Builds the program (not timed), one kernel object per launch with
        /// its arguments set, and the buffers.
        pub fn engine(&self, p: &Problem, src: &str) -> Result<Box<dyn Engine + '_>, String> {
            let program = Program::create_and_build_from_source(&self.context, src, "")
                .map_err(|log| format!("PoCL build failed: {log}"))?;
            let mut buffers = Vec::new();
            for b in &p.bufs {
                let mut host = b.clone();
                // SAFETY: a host pointer to byte_len bytes, copied at creation.
                let buf = unsafe {
                    Buffer::<u8>::create(
                        &self.context,
                        CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                        host.byte_len(),
                        host.as_mut_ptr(),
                    )
                }
                .map_err(|e| format!("buffer: {e}"))?;
                buffers.push(buf);
            }
            let mut kernels = Vec::new();
            for l in &p.launches {
                let kernel = Kernel::create(&program, l.kernel).map_err(|e| format!("{e}"))?;
                for (i, a) in l.args.iter().enumerate() {
                    let i = i as u32;
                    // SAFETY: the arguments match the kernel's parameters.
                    let r = unsafe {
                        match *a {
                            A::B(b) => {
                                let mem: cl_mem = buffers[b].get();
                                kernel.set_arg(i, &mem)
                            }
                            A::U(v) => kernel.set_arg(i, &v),
                            A::I(v) => kernel.set_arg(i, &v),
                            A::L(bytes) => kernel.set_arg_local_buffer(i, bytes),
                        }
                    };
                    r.map_err(|e| format!("{} argument {i}: {e}", l.kernel))?;
                }
                kernels.push((kernel, l.clone()));
            }
            Ok(Box::new(PoclEngine {
                queue: &self.queue,
                _program: program,
                kernels,
                buffers,
                initial: p.bufs.clone(),
            }))
        }
    }

    struct PoclEngine<'a> {
        queue: &'a CommandQueue,
        _program: Program,
        kernels: Vec<(Kernel, Launch)>,
        buffers: Vec<Buffer<u8>>,
        initial: Vec<Data>,
    }

    impl Engine for PoclEngine<'_> {
        fn reset(&mut self) -> Result<(), String> {
            for (buf, data) in self.buffers.iter_mut().zip(&self.initial) {
                // SAFETY: blocking write of the buffer's whole size.
                unsafe {
                    self.queue
                        .enqueue_write_buffer(buf, CL_BLOCKING, 0, data.bytes(), &[])
                        .map_err(|e| format!("write: {e}"))?;
                }
            }
            Ok(())
        }

        /// Every launch in order (an in-order queue), then `clFinish`.
        fn run(&mut self) -> Result<(), String> {
            for (k, l) in &self.kernels {
                // SAFETY: the kernel's arguments are set; sizes are arrays of 3.
                unsafe {
                    self.queue
                        .enqueue_nd_range_kernel(
                            k.get(),
                            l.work_dim,
                            ptr::null(),
                            l.global.as_ptr(),
                            l.local.as_ptr(),
                            &[],
                        )
                        .map_err(|e| format!("enqueue {}: {e}", l.kernel))?;
                }
            }
            self.queue.finish().map_err(|e| format!("finish: {e}"))
        }

        fn output(&mut self, i: usize) -> Result<Data, String> {
            let buf = &self.buffers[i];
            let n = buf.size().map_err(|e| format!("{e}"))?;
            let mut out = vec![0u8; n];
            // SAFETY: blocking read of the whole buffer into a slice of its size.
            unsafe {
                self.queue
                    .enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut out, &[])
                    .map_err(|e| format!("read: {e}"))?;
            }
            Ok(self.initial[i].with_bytes(&out))
        }
    }
}

// ---------------------------------------------------------------------------
// Timing

#[derive(Clone, Copy, Debug)]
struct Stats {
    /// Milliseconds per run.
    median: f64,
    min: f64,
    max: f64,
    /// Runs averaged per sample.
    reps: usize,
}

/// One run, timed, after an untimed reset.
fn timed_run(e: &mut dyn Engine) -> Result<Duration, String> {
    e.reset()?;
    let t = Instant::now();
    e.run()?;
    Ok(t.elapsed())
}

/// Two warm-ups, then `runs` samples per engine, the engines alternating
/// sample by sample (in alternating order); a sample is the mean of enough
/// runs to last ~20 ms.
fn measure(engines: &mut [&mut dyn Engine], runs: usize) -> Result<Vec<Stats>, String> {
    let mut reps = Vec::new();
    for e in engines.iter_mut() {
        timed_run(*e)?;
        let t = timed_run(*e)?;
        reps.push(((0.020 / t.as_secs_f64().max(1e-7)).ceil() as usize).clamp(1, 2000));
    }
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); engines.len()];
    for run in 0..runs {
        // Alternate the order too, so neither engine always goes first.
        let mut order: Vec<usize> = (0..engines.len()).collect();
        if run % 2 == 1 {
            order.reverse();
        }
        for k in order {
            let mut total = Duration::ZERO;
            for _ in 0..reps[k] {
                total += timed_run(&mut *engines[k])?;
            }
            samples[k].push(total.as_secs_f64() * 1e3 / reps[k] as f64);
        }
    }
    Ok(samples
        .into_iter()
        .zip(reps)
        .map(|(mut s, reps)| {
            s.sort_by(f64::total_cmp);
            Stats {
                median: s[s.len() / 2],
                min: s[0],
                max: s[s.len() - 1],
                reps,
            }
        })
        .collect())
}

// ---------------------------------------------------------------------------
// PoCL in a child process (one thread)

fn results_of(e: &mut dyn Engine, p: &Problem) -> Result<Vec<Data>, String> {
    let mut out = Vec::new();
    for i in 0..p.bufs.len() {
        out.push(if p.results.contains(&i) {
            e.output(i)?
        } else {
            p.bufs[i].clone()
        });
    }
    Ok(out)
}

/// Hidden mode: run PoCL alone in this process (started with
/// `POCL_MAX_PTHREAD_COUNT=1`), write the result buffers of one run to
/// `out` and print one machine-readable line with the times.
fn pocl_child(name: &str, runs: usize, out: &Path) {
    let result = (|| -> Result<(Stats, String), String> {
        let p = build(name).ok_or("unknown kernel")?;
        let src = std::fs::read_to_string(kernels_dir().join(p.file)).map_err(|e| e.to_string())?;
        let ocl = pocl::Pocl::new()?;
        let mut e = ocl.engine(&p, &src)?;
        e.reset()?;
        e.run()?;
        let mut bytes = Vec::new();
        for &i in &p.results {
            bytes.extend_from_slice(e.output(i)?.bytes());
        }
        std::fs::write(out, bytes).map_err(|e| format!("{}: {e}", out.display()))?;
        let s = measure(&mut [e.as_mut()], runs)?;
        Ok((s[0], ocl.description.clone()))
    })();
    match result {
        Ok((s, d)) => println!(
            "pocl-child\t{}\t{}\t{}\t{}\t{d}",
            s.median, s.min, s.max, s.reps
        ),
        Err(e) => println!("pocl-child-error\t{}", e.replace('\n', " ")),
    }
}

/// PoCL's results and times, from a child process on one thread.
fn pocl_single(p: &Problem, runs: usize) -> Result<(Vec<Data>, Stats, String), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out_path = std::env::temp_dir().join(format!(
        "lanes-bench-precond-{}-{}",
        std::process::id(),
        p.name
    ));
    let out = Command::new(exe)
        .args([
            "precond",
            "--pocl-child",
            p.name,
            "--runs",
            &runs.to_string(),
        ])
        .arg("--out")
        .arg(&out_path)
        .env("POCL_MAX_PTHREAD_COUNT", "1")
        .output()
        .map_err(|e| format!("child process: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let read = || -> Result<Vec<Data>, String> {
        let bytes = std::fs::read(&out_path).map_err(|e| format!("{}: {e}", out_path.display()))?;
        let _ = std::fs::remove_file(&out_path);
        let mut data = p.bufs.clone();
        let mut at = 0;
        for &i in &p.results {
            let n = p.bufs[i].byte_len();
            let chunk = bytes.get(at..at + n).ok_or("short PoCL result file")?;
            data[i] = p.bufs[i].with_bytes(chunk);
            at += n;
        }
        Ok(data)
    };
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f.as_slice() {
            ["pocl-child", med, min, max, reps, desc] => {
                let num = |s: &str| s.parse::<f64>().map_err(|e| e.to_string());
                let stats = Stats {
                    median: num(med)?,
                    min: num(min)?,
                    max: num(max)?,
                    reps: reps.parse().map_err(|_| "reps")?,
                };
                return Ok((read()?, stats, desc.to_string()));
            }
            ["pocl-child-error", msg] => return Err(msg.to_string()),
            _ => {}
        }
    }
    let _ = std::fs::remove_file(&out_path);
    Err(format!(
        "child process gave no result ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr).trim()
    ))
}

// ---------------------------------------------------------------------------
// The benchmark

struct Row {
    name: &'static str,
    size: String,
    /// unspecialized, specialized, PoCL.
    times: [Option<Stats>; 3],
    check: String,
    synthesis_ms: Option<f64>,
    applied: Vec<String>,
    /// `specialize` returned the text unchanged: (a) and (b) are the same code.
    unchanged: bool,
    notes: Vec<String>,
    paper: Paper,
}

struct Options {
    kernels: Option<Vec<String>>,
    runs: usize,
    target: String,
    /// `specialize`'s budget per target in resource units (None: its default).
    budget: Option<u64>,
    write: bool,
    pocl_child: Option<String>,
    out: Option<PathBuf>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        kernels: None,
        runs: 9,
        target: "host".into(),
        budget: None,
        write: true,
        pocl_child: None,
        out: None,
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
            "--target-budget" => {
                let v = value("--target-budget")?;
                let units: u64 = v
                    .parse()
                    .map_err(|_| format!("--target-budget: not a number: {v}"))?;
                o.budget = Some(units);
            }
            "--no-write" => o.write = false,
            "--pocl-child" => o.pocl_child = Some(value("--pocl-child")?),
            "--out" => o.out = Some(PathBuf::from(value("--out")?)),
            other => return Err(format!("precond: unknown option {other}")),
        }
    }
    Ok(o)
}

const LABELS: [&str; 3] = ["unspecialized", "specialized", "PoCL"];

/// Compares one implementation's results with the reference results.
fn cross_check(p: &Problem, got: &[Data], want: &[Data]) -> Result<(), String> {
    for &i in &p.results {
        match (&got[i], &want[i]) {
            (Data::F32(g), Data::F32(w)) => {
                close(&format!("buffer {i}"), g, w, TOL)?;
            }
            (Data::U32(g), Data::U32(w)) => same_u32(&format!("buffer {i}"), g, w)?,
            _ => return Err(format!("buffer {i}: different kinds")),
        }
    }
    Ok(())
}

fn bench_problem(p: Problem, o: &Options, pocl_available: &Result<String, String>) -> Row {
    let mut notes = Vec::new();
    let path = kernels_dir().join(p.file);
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let width = lanes_jit_width(&o.target);
    let opts = PreprocessOptions {
        width,
        ..Default::default()
    };
    let unit = check_text(p.file, Some(path.clone()), &text, &opts, &RealFs);
    let special = specialize(&unit, width, o.budget);
    let synthesis_ms = Some(special.millis);
    if special.text == text {
        notes.push("`specialize` inserted no fast path: specialized = unspecialized".to_string());
    }

    let mut engines: [Result<Box<dyn Engine>, String>; 2] = [
        lanes_jit::engine(&p, &text, &o.target),
        lanes_jit::engine(&p, &special.text, &o.target),
    ];
    // One run each from the initial data: (a) against the reference, (b)
    // against (a).
    let mut results: [Option<Vec<Data>>; 3] = [None, None, None];
    let mut mismatches = Vec::new();
    for (k, e) in engines.iter_mut().enumerate() {
        let r = match e {
            Ok(e) => e
                .reset()
                .and_then(|_| e.run())
                .and_then(|_| results_of(e.as_mut(), &p)),
            Err(_) => continue,
        };
        match r {
            Ok(out) => results[k] = Some(out),
            Err(err) => *e = Err(format!("run failed: {err}")),
        }
    }
    let mut check = Vec::new();
    if let Some(a) = &results[0] {
        match (p.reference)(&p, a) {
            Ok(s) => check.push(format!("unspecialized = reference ({s})")),
            Err(e) => mismatches.push(format!("unspecialized vs reference: {e}")),
        }
    }
    if let (Some(a), Some(b)) = (&results[0], &results[1]) {
        match cross_check(&p, b, a) {
            Ok(()) if a == b => check.push("specialized = unspecialized (bit for bit)".into()),
            Ok(()) => check.push("specialized = unspecialized (within tolerance)".into()),
            Err(e) => mismatches.push(format!("specialized vs unspecialized: {e}")),
        }
    }

    // PoCL (child process, one thread): results first, then its times.
    let mut times: [Option<Stats>; 3] = [None, None, None];
    match pocl_available {
        Err(e) => notes.push(format!("PoCL: skipped: PoCL not found ({e})")),
        Ok(_) => match pocl_single(&p, o.runs) {
            Ok((out, stats, _)) => {
                match &results[0] {
                    Some(a) => match cross_check(&p, &out, a) {
                        Ok(()) => check.push("PoCL = unspecialized".into()),
                        Err(e) => mismatches.push(format!("PoCL vs unspecialized: {e}")),
                    },
                    None => match (p.reference)(&p, &out) {
                        Ok(s) => check.push(format!("PoCL = reference ({s})")),
                        Err(e) => mismatches.push(format!("PoCL vs reference: {e}")),
                    },
                }
                results[2] = Some(out);
                times[2] = Some(stats);
            }
            Err(e) => notes.push(format!("PoCL: {e}")),
        },
    }

    // lanes: (a) and (b) alternating.
    let mut live: Vec<(usize, &mut dyn Engine)> = Vec::new();
    for (k, e) in engines.iter_mut().enumerate() {
        match e {
            Ok(e) => live.push((k, e.as_mut())),
            Err(err) => notes.push(format!("lanes {}: {err}", LABELS[k])),
        }
    }
    let (ks, mut es): (Vec<usize>, Vec<&mut dyn Engine>) = live.into_iter().unzip();
    if !es.is_empty() {
        match measure(&mut es, o.runs) {
            Ok(stats) => {
                for (k, s) in ks.iter().zip(stats) {
                    times[*k] = Some(s);
                }
            }
            Err(e) => notes.push(format!("lanes: run failed: {e}")),
        }
    }

    for m in &mismatches {
        eprintln!("!!! MISMATCH {}: {m}", p.name);
        notes.push(format!("MISMATCH: {m}"));
    }
    let check = if !mismatches.is_empty() {
        "**MISMATCH**".to_string()
    } else if check.is_empty() {
        "not compared".into()
    } else {
        "ok".into()
    };
    Row {
        name: p.name,
        size: p.size.clone(),
        times,
        check,
        synthesis_ms,
        unchanged: special.text == text,
        applied: special.applied,
        notes,
        paper: p.paper,
    }
}

/// The SIMD width of a target (8 when the back end is unavailable).
fn lanes_jit_width(target: &str) -> u32 {
    lanes_vectorizer::target::Target::from_name(target)
        .map(|t| t.width)
        .unwrap_or(8)
}

fn ms(s: &Option<Stats>) -> String {
    match s {
        Some(s) if s.median < 1.0 => format!("{:.4}", s.median),
        Some(s) => format!("{:.2}", s.median),
        None => "—".into(),
    }
}

fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| kernel | n | unspecialized ms | specialized ms | speed-up | PoCL ms | paper speed-up (WFV, SSE4 x4) | results |"
    );
    let _ = writeln!(s, "|---|---|--:|--:|--:|--:|--:|---|");
    for r in rows {
        let speedup = match (&r.times[0], &r.times[1]) {
            // The same code twice: the difference is the measurement's noise.
            (Some(a), Some(b)) if r.unchanged => format!(
                "no fast path (same code: {:+.1} %)",
                (a.median / b.median - 1.0) * 100.0
            ),
            (Some(a), Some(b)) => format!("{:+.1} %", (a.median / b.median - 1.0) * 100.0),
            _ => "—".into(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {speedup} | {} | {:+.2} % ({} / {} ms) | {} |",
            r.name,
            r.size,
            ms(&r.times[0]),
            ms(&r.times[1]),
            ms(&r.times[2]),
            r.paper.speedup(),
            r.paper.wfv_ms,
            r.paper.opt_ms,
            r.check
        );
    }
    s
}

fn synthesis_table(rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| kernel | fast paths inserted | `specialize` ms | paper n | paper Edges ms (# queries), W = 4 | paper Clauses ms (# queries), W = 4 |"
    );
    let _ = writeln!(s, "|---|---|--:|---|--:|--:|");
    for r in rows {
        let applied = if r.applied.is_empty() {
            "none".to_string()
        } else {
            r.applied
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let _ = writeln!(
            s,
            "| {} | {applied} | {} | {} | {} | {} |",
            r.name,
            r.synthesis_ms.map_or("—".into(), |m| format!("{m:.2}")),
            r.paper.n,
            r.paper.edges,
            r.paper.clauses
        );
    }
    s
}

const HEADING: &str = "## Fast paths on inferred preconditions (the paper's experiment)";

pub fn main(args: &[String]) {
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("{e}");
            eprintln!(
                "usage: lanes-bench precond [--kernel NAME[,NAME...]] [--runs N] [--target T] [--target-budget N] [--no-write]"
            );
            std::process::exit(2);
        }
    };
    if let Some(name) = &o.pocl_child {
        let out = o
            .out
            .clone()
            .unwrap_or_else(|| std::env::temp_dir().join("lanes-bench-precond-out"));
        pocl_child(name, o.runs.max(3), &out);
        return;
    }
    let runs = o.runs.max(3);
    let o = Options { runs, ..o };
    let names: Vec<&'static str> = match &o.kernels {
        None => NAMES.to_vec(),
        Some(ks) => {
            let mut v = Vec::new();
            for k in ks {
                match NAMES.iter().find(|n| n.eq_ignore_ascii_case(k)) {
                    Some(n) => v.push(*n),
                    None => {
                        eprintln!("precond: unknown kernel {k}; known: {}", NAMES.join(", "));
                        std::process::exit(2);
                    }
                }
            }
            v
        }
    };
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into());
    let start = Instant::now();
    let target = lanes_jit::target_description(&o.target);
    // Only probe PoCL here (the timed PoCL runs are in child processes, so
    // that they use one thread).
    let pocl_available = pocl::Pocl::new().map(|p| p.description);
    println!(
        "fast paths on inferred preconditions: {} kernels; lanes {target} unspecialized / specialized, PoCL {}; one thread; median of {runs} samples (load average {load})",
        names.len(),
        match &pocl_available {
            Ok(d) => d.clone(),
            Err(e) => format!("skipped: PoCL not found ({e})"),
        }
    );
    let mut rows = Vec::new();
    for name in &names {
        let p = build(name).expect("known kernel");
        println!(
            "{} ({}, {} launches per run)",
            p.name,
            p.size,
            p.launches.len()
        );
        let row = bench_problem(p, &o, &pocl_available);
        println!(
            "  {}: unspecialized {} / specialized {} / PoCL {} ms; specialize {} ms; {}",
            row.name,
            ms(&row.times[0]),
            ms(&row.times[1]),
            ms(&row.times[2]),
            row.synthesis_ms.map_or("—".into(), |m| format!("{m:.2}")),
            row.check
        );
        for n in &row.notes {
            println!("  {n}");
        }
        rows.push(row);
    }

    let mut extra = String::new();
    if let Some(ks) = &o.kernels {
        extra.push_str(&format!(" --kernel {}", ks.join(",")));
    }
    if o.runs != 9 {
        extra.push_str(&format!(" --runs {}", o.runs));
    }
    if o.target != "host" {
        extra.push_str(&format!(" --target {}", o.target));
    }
    let mut sec = String::new();
    let _ = writeln!(sec, "{HEADING}\n");
    let _ = writeln!(
        sec,
        "Command: `cargo run --release -p lanes-bench -- precond{extra}` (part of `make bench`).  "
    );
    let _ = writeln!(
        sec,
        "Machine: {}, {}; load average before the run: {load}.  ",
        crate::codegen::cpu_model(),
        crate::codegen::today()
    );
    let _ = writeln!(
        sec,
        "lanes: target {target}, -O2, JIT, one thread. PoCL: {}, one thread (`POCL_MAX_PTHREAD_COUNT=1`).",
        match &pocl_available {
            Ok(d) => d.clone(),
            Err(e) => format!("skipped: PoCL not found ({e})"),
        }
    );
    let _ = writeln!(
        sec,
        "\nThe kernels are bench/kernels/paper (= tests/kernels/precond, checked against the \
         interpreter and Rust references by bench/tests/paper_kernels.rs). PrefixSum and \
         DwtHaar1D keep the SDK's blocks and `if (tid < d)` guards but run one tree level per \
         launch in global memory (the paper's form); PrefixSumLocal and DwtHaar1DLocal are \
         the SDK's own kernels in the same files (`group_prefixSum`, `dwtHaar1D`: the block in \
         `__local` memory, the levels separated by barriers, one launch per pass). Convolution2D: 2048 x 2048 with a 5 x 5 mask (radius 2; the paper gives no size), \
         work-groups of 64 x 4; the 1-D kernels use work-groups of 256 (DwtHaar1D's second \
         round 64). A run is the whole launch sequence (PrefixSum 17 launches, DwtHaar1D 16, \
         FastWalshTransform 24, BitonicSort 210, PrefixSumLocal 1, DwtHaar1DLocal 2) from the initial data, restored untimed before \
         every run; milliseconds per run, median of {runs} samples after 2 warm-ups, a sample \
         averaging enough runs to last about 20 ms. Speed-up = unspecialized / specialized - 1; \
         where `specialize` inserted nothing, (b) is the same code as (a) and the difference is \
         noise. Before timing, one run of each is compared: unspecialized with a plain Rust \
         reference, specialized and PoCL with unspecialized (floats within 1e-5 of the \
         largest value, integers exactly). The paper's figures (Table I) are for the Whole-Function Vectorizer \
         with SSE4 (W = 4) on a Core 2 Quad Q9550; its synthesis times are those of concrete \
         abduction at W = 4 (DwtHaar1D's problem is PrefixSum's, FastWalshTransform's \
         BitonicSort's).\n"
    );
    sec.push_str(&table(&rows));
    let _ = writeln!(
        sec,
        "\nPrecondition synthesis: the time of the `specialize` call per file (all its kernels, W = {}), next to the paper's concrete abduction.\n",
        lanes_jit_width(&o.target)
    );
    sec.push_str(&synthesis_table(&rows));
    let notes: Vec<String> = {
        let mut seen = std::collections::BTreeSet::new();
        let mut v = Vec::new();
        for r in &rows {
            for n in &r.notes {
                // A note every kernel shares is said once.
                if rows.iter().all(|q| q.notes.contains(n)) {
                    if seen.insert(n.clone()) {
                        v.push(format!("- {n}"));
                    }
                } else {
                    v.push(format!("- {}: {n}", r.name));
                }
            }
        }
        v
    };
    if !notes.is_empty() {
        let _ = writeln!(sec, "\nNotes:\n\n{}", notes.join("\n"));
    }
    println!("\n{sec}");
    println!(
        "precond benchmark took {:.1} s",
        start.elapsed().as_secs_f64()
    );
    if o.kernels.is_none() && o.write {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("RESULTS.md");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|_| "# Benchmark results\n".into());
        match std::fs::write(&path, crate::results::splice(&text, &sec)) {
            Ok(()) => println!("written to {}", path.display()),
            Err(e) => eprintln!("could not write {}: {e}", path.display()),
        }
    } else {
        println!("(RESULTS.md not written: only a full run writes it)");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_builds_and_has_its_file() {
        for name in NAMES {
            let p = build(name).expect("known kernel");
            assert!(kernels_dir().join(p.file).exists(), "{}", p.file);
            assert!(!p.launches.is_empty());
            for l in &p.launches {
                for a in &l.args {
                    if let A::B(i) = a {
                        assert!(*i < p.bufs.len(), "{name}: buffer {i}");
                    }
                }
                for d in 0..l.work_dim as usize {
                    assert_eq!(
                        l.global[d] % l.local[d],
                        0,
                        "{name}: PoCL 3.1 needs uniform groups"
                    );
                }
            }
        }
    }

    #[test]
    fn launch_sequences_have_the_sdk_shape() {
        // n = 512: 9 up-sweep levels (d = 256 .. 1), 8 down-sweep (d = 1 .. 255).
        let v = prefix_sum_launches(1, 256);
        assert_eq!(v.len(), 17);
        assert!(matches!(v[0].args[1], A::U(256)));
        assert!(matches!(v[16].args[1], A::U(255)));
        assert!(matches!(v[16].args[2], A::U(2)));
        // 2^16 samples: 9 levels in groups of 256, then 7 in one group of 64.
        let (v, last) = dwt_launches(1 << 16, 256);
        assert_eq!(v.len(), 16);
        assert_eq!(v[9].local[0], 64);
        assert!(last == 2 || last == 3);
    }

    #[test]
    fn paper_speedups_are_table_one() {
        let s: Vec<f64> = NAMES
            .iter()
            .map(|n| build(n).unwrap().paper.speedup())
            .collect();
        for (got, want) in s.iter().zip([146.14, 54.55, 26.60, 99.28, -1.37, 54.55]) {
            assert!((got - want).abs() < 0.05, "{got} vs {want}");
        }
    }
}
