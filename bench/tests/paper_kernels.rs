//! The five kernels of the paper's experiment (Moll, "Synthesizing Hot Code
//! Paths by Abductive Reasoning", section V and Table I), as written in
//! `tests/kernels/precond/` and benchmarked by `lanes-bench precond`:
//! Convolution2D, PrefixSum, DwtHaar1D, FastWalshTransform, BitonicSort.
//!
//! Every kernel runs its whole launch sequence (all tree levels, all
//! butterfly passes, all sorting passes) on small problems chosen for their
//! boundary cases: images narrower than a SIMD group and of widths 17 and
//! 40 with radius 0, 1 and 2, global and local sizes that are not multiples
//! of 16, work-groups of 1 to 256 work-items, FWT passes with steps 1, 2, 3,
//! 4, 8, 16 and 32. Each sequence runs
//!
//! 1. in the scalar reference interpreter (`lanes_vectorizer::interp`), once;
//! 2. through the lanes JIT for `host`, `sse4-i32x4` and `avx2-i32x8` (those
//!    this machine runs), from the same inputs;
//!
//! and the results must equal the interpreter's (integers exactly, floats
//! within the codegen tests' 4 ULP) and a plain Rust reference written here
//! (a sequential scan, the Walsh-Hadamard matrix, a recursive Haar
//! transform, `sort`; inputs where the algorithm's order of float additions
//! matters are small integers, so every sum is exact).
//!
//! When `specialize` (the fast paths of DESIGN section 6) changes a file,
//! the specialized text is compiled and checked the same way.
//!
//! The last tests check that the files carry exactly the `//~` expectations
//! (warnings at `avx2-i32x8`, divergent loops and branches) that `lanes
//! check` and `lanes explain` report, as the corpus harness
//! (tests/corpus.rs) does for `tests/kernels/valid`, and that
//! bench/kernels/paper has the same files.
#![cfg(feature = "lanes")]

#[path = "../../codegen/tests/common/mod.rs"]
mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::{compare, lanes_range, param_of_ir, run_interp, run_jit, Arg, Buf, Elem, Rng};
use lanes_codegen::{host_can_run, target_spec, Jit, KernelCode, ParamKind};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::{check_file, check_text, CheckedUnit};
use lanes_vectorizer::interp::{ArgValue, NdRange};
use lanes_vectorizer::ir::Function;

const TARGETS: [&str; 3] = ["host", "sse4-i32x4", "avx2-i32x8"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn kernel_path(file: &str) -> PathBuf {
    root().join("tests/kernels/precond").join(file)
}

// ---------------------------------------------------------------------------
// Problems: buffers, launch sequences, references

/// The contents of one buffer.
#[derive(Clone, Debug, PartialEq)]
enum Data {
    F32(Vec<f32>),
    U32(Vec<u32>),
}

impl Data {
    fn elem(&self) -> Elem {
        match self {
            Data::F32(_) => Elem::F32,
            Data::U32(_) => Elem::Int(4),
        }
    }
    fn bytes(&self) -> Vec<u8> {
        match self {
            Data::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }
    fn buf(&self) -> Buf {
        let bytes = self.bytes();
        let mut b = Buf::new(bytes.len());
        b.bytes_mut().copy_from_slice(&bytes);
        b
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
    fn f32(&self) -> &[f32] {
        match self {
            Data::F32(v) => v,
            Data::U32(_) => panic!("not a float buffer"),
        }
    }
    fn u32(&self) -> &[u32] {
        match self {
            Data::U32(v) => v,
            Data::F32(_) => panic!("not a uint buffer"),
        }
    }
}

/// A kernel argument: a buffer of the problem, or a scalar.
#[derive(Clone, Copy, Debug)]
enum A {
    B(usize),
    U(u32),
    I(i32),
    /// A `__local` pointer: the size in bytes of its object.
    L(u64),
}

#[derive(Clone, Debug)]
struct Launch {
    kernel: &'static str,
    range: NdRange,
    args: Vec<A>,
}

fn range1(global: u64, local: u64) -> NdRange {
    NdRange {
        work_dim: 1,
        global_offset: [0; 3],
        global_size: [global, 1, 1],
        local_size: [local, 1, 1],
    }
}

fn launch1(kernel: &'static str, global: u64, local: u64, args: Vec<A>) -> Launch {
    Launch {
        kernel,
        range: range1(global, local),
        args,
    }
}

/// Checks the final buffers against the Rust reference.
type Check = Box<dyn Fn(&[Data]) -> Result<(), String>>;

struct Case {
    name: String,
    bufs: Vec<Data>,
    launches: Vec<Launch>,
    check: Check,
}

fn floats(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.f64(-2.0, 2.0) as f32).collect()
}

/// Small integers as floats: every sum of a few thousand is exact.
fn int_floats(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.below(17) as f32 - 8.0).collect()
}

fn same_f32(what: &str, got: &[f32], want: &[f32]) -> Result<(), String> {
    let g: Vec<u8> = got.iter().flat_map(|x| x.to_le_bytes()).collect();
    let w: Vec<u8> = want.iter().flat_map(|x| x.to_le_bytes()).collect();
    match compare(Elem::F32, &g, &w) {
        None => Ok(()),
        Some(d) => Err(format!("{what}: {d}")),
    }
}

fn same_u32(what: &str, got: &[u32], want: &[u32]) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{what}: length {} vs {}", got.len(), want.len()));
    }
    match (0..got.len()).find(|&i| got[i] != want[i]) {
        None => Ok(()),
        Some(i) => Err(format!("{what}[{i}]: got {}, want {}", got[i], want[i])),
    }
}

// Convolution2D --------------------------------------------------------------

fn convolution_ref(input: &[f32], mask: &[f32], w: usize, h: usize, r: usize) -> Vec<f32> {
    let mw = 2 * r + 1;
    let mut out = vec![0.0f32; w * h];
    for y in 0..h {
        for x in 0..w {
            let mut sum = 0.0f32;
            for j in y.saturating_sub(r)..=(y + r).min(h - 1) {
                for i in x.saturating_sub(r)..=(x + r).min(w - 1) {
                    sum += input[j * w + i] * mask[(j + r - y) * mw + (i + r - x)];
                }
            }
            out[y * w + x] = sum;
        }
    }
    out
}

fn convolution_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    // (width, height, radius, local size)
    let shapes = [
        (17, 5, 1, [8, 2]),
        (17, 4, 2, [16, 1]),
        (40, 6, 2, [5, 3]),
        (40, 3, 1, [40, 1]),
        (16, 4, 2, [16, 2]),
        (33, 9, 0, [12, 1]),
        (3, 3, 2, [4, 4]),
        (64, 5, 2, [32, 2]),
    ];
    for (k, &(w, h, r, local)) in shapes.iter().enumerate() {
        let mut rng = Rng::new(100 + k as u64);
        let input = floats(&mut rng, w * h);
        let mw = 2 * r + 1;
        let mask = floats(&mut rng, mw * mw);
        let up = |n: usize, l: usize| n.div_ceil(l) * l;
        let want = convolution_ref(&input, &mask, w, h, r);
        cases.push(Case {
            name: format!("{w}x{h} r={r} local {}x{}", local[0], local[1]),
            bufs: vec![
                Data::F32(input),
                // Unwritten pixels keep this and fail the comparison.
                Data::F32(vec![-7.0; w * h]),
                Data::F32(mask),
            ],
            launches: vec![Launch {
                kernel: "convolution2d",
                range: NdRange {
                    work_dim: 2,
                    global_offset: [0; 3],
                    global_size: [up(w, local[0]) as u64, up(h, local[1]) as u64, 1],
                    local_size: [local[0] as u64, local[1] as u64, 1],
                },
                args: vec![
                    A::B(0),
                    A::B(1),
                    A::B(2),
                    A::I(w as i32),
                    A::I(h as i32),
                    A::I(r as i32),
                ],
            }],
            check: Box::new(move |b| same_f32("output", b[1].f32(), &want)),
        });
    }
    cases
}

// PrefixSum ------------------------------------------------------------------

/// The up-sweep and down-sweep launches for blocks of 2 * `local` floats.
fn prefix_sum_launches(groups: u64, local: u64) -> Vec<Launch> {
    let global = groups * local;
    let mut v = Vec::new();
    let (mut d, mut offset) = (local, 1u64);
    while d > 0 {
        v.push(launch1(
            "prefix_sum_up",
            global,
            local,
            vec![A::B(0), A::U(d as u32), A::U(offset as u32)],
        ));
        d >>= 1;
        offset <<= 1;
    }
    let mut d = 1;
    while d < local {
        offset >>= 1;
        v.push(launch1(
            "prefix_sum_down",
            global,
            local,
            vec![A::B(0), A::U(d as u32), A::U(offset as u32)],
        ));
        d = 2 * d + 1;
    }
    v
}

fn prefix_sum_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    // (groups, local size): the paper's n = 512 is one group of 256.
    for (k, &(groups, local)) in [(1, 256), (3, 8), (2, 4), (5, 2), (1, 1), (2, 64), (3, 16)]
        .iter()
        .enumerate()
    {
        let n = (2 * groups * local) as usize;
        let mut rng = Rng::new(200 + k as u64);
        let data = int_floats(&mut rng, n);
        let block = 2 * local as usize;
        let want: Vec<f32> = data
            .chunks(block)
            .flat_map(|c| {
                c.iter()
                    .scan(0.0f32, |acc, &x| {
                        *acc += x;
                        Some(*acc)
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        // The SDK's form: one launch, the block in __local memory.
        let sdk = launch1(
            "group_prefixSum",
            groups * local,
            local,
            vec![A::B(1), A::B(0), A::L(4 * block as u64), A::U(block as u32)],
        );
        let want_sdk = want.clone();
        cases.push(Case {
            name: format!("{groups} blocks of {block}, __local"),
            bufs: vec![Data::F32(data.clone()), Data::F32(vec![0.0; n])],
            launches: vec![sdk],
            check: Box::new(move |b| same_f32("output", b[1].f32(), &want_sdk)),
        });
        cases.push(Case {
            name: format!("{groups} blocks of {block}"),
            bufs: vec![Data::F32(data)],
            launches: prefix_sum_launches(groups, local),
            check: Box::new(move |b| same_f32("data", b[0].f32(), &want)),
        });
    }
    cases
}

// DwtHaar1D --------------------------------------------------------------------

/// Buffers: 0 signal, 1 coefs, 2 and 3 ping-pong. The launches of the whole
/// transform of `m` samples with work-groups of at most `local`, and the
/// buffer that holds the final average in element 0.
fn dwt_launches(m: u64, local: u64) -> (Vec<Launch>, usize) {
    let mut v = Vec::new();
    let (mut src, mut dst) = (0usize, 2usize);
    let mut cur = m;
    while cur > 1 {
        let l = local.min(cur / 2);
        let levels = (2 * l).trailing_zeros();
        for level in 0..levels {
            let half_len = cur >> (level + 1);
            v.push(launch1(
                "dwt_haar1d",
                cur / 2,
                l,
                vec![
                    A::B(src),
                    A::B(dst),
                    A::B(1),
                    A::U(level),
                    A::U(half_len as u32),
                ],
            ));
            src = dst;
            dst = if dst == 2 { 3 } else { 2 };
        }
        cur /= 2 * l;
    }
    (v, src)
}

/// The SDK's form (`dwtHaar1D`): one launch per pass of log2(2 L) levels,
/// the block in `__local` memory. Same buffers and result as
/// [`dwt_launches`]; the first pass scales the signal by 1 / sqrt(m).
fn dwt_sdk_launches(m: u64, local: u64) -> (Vec<Launch>, usize) {
    let mut v = Vec::new();
    let (mut src, mut dst) = (0usize, 2usize);
    let (mut cur, mut done) = (m, 0u32);
    while cur > 1 {
        let l = local.min(cur / 2);
        let levels = (2 * l).trailing_zeros();
        v.push(launch1(
            "dwtHaar1D",
            cur / 2,
            l,
            vec![
                A::B(src),
                A::B(1),
                A::B(dst),
                A::L(8 * l),
                A::U(cur.trailing_zeros()),
                A::U(cur as u32),
                A::U(done),
                A::U(levels),
            ],
        ));
        done += levels;
        src = dst;
        dst = if dst == 2 { 3 } else { 2 };
        cur /= 2 * l;
    }
    (v, src)
}

/// The Haar transform: coefs[half + p] the details of the level with
/// `half` averages, and the final average.
fn haar_ref(signal: &[f32]) -> (Vec<f32>, f32) {
    let c = std::f32::consts::FRAC_1_SQRT_2;
    let mut coefs = vec![0.0f32; signal.len()];
    let mut s = signal.to_vec();
    while s.len() > 1 {
        let half = s.len() / 2;
        let mut next = vec![0.0f32; half];
        for p in 0..half {
            let (a, b) = (s[2 * p], s[2 * p + 1]);
            next[p] = (a + b) * c;
            coefs[half + p] = (a - b) * c;
        }
        s = next;
    }
    (coefs, s[0])
}

/// The whole transform of `signal` by `launches` (buffers as in
/// [`dwt_launches`]), checked against the Haar transform of `signal` times `scale`.
fn dwt_case(
    name: String,
    signal: Vec<f32>,
    scale: f32,
    (launches, last): (Vec<Launch>, usize),
) -> Case {
    let m = signal.len();
    let scaled: Vec<f32> = signal.iter().map(|x| x * scale).collect();
    let (coefs, avg) = haar_ref(&scaled);
    Case {
        name,
        bufs: vec![
            Data::F32(signal),
            Data::F32(vec![0.0; m]),
            Data::F32(vec![0.0; m / 2]),
            Data::F32(vec![0.0; m / 2]),
        ],
        launches,
        check: Box::new(move |b| {
            same_f32("coefs", b[1].f32(), &coefs)?;
            same_f32("average", &b[last].f32()[..1], &[avg])
        }),
    }
}

fn dwt_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (k, &(m, local)) in [(16, 4), (64, 8), (1024, 256), (256, 2), (2, 1), (512, 32)]
        .iter()
        .enumerate()
    {
        let signal = floats(&mut Rng::new(300 + k as u64), m as usize);
        let name = format!("m={m} local {local}");
        cases.push(dwt_case(name, signal, 1.0, dwt_launches(m, local)));
    }
    // The SDK's form. m is a power of 4, so the first pass's scale
    // 1 / sqrt(m) is a power of two and the scaled reference is exact.
    for (k, &(m, local)) in [
        (16, 4),
        (64, 8),
        (1024, 256),
        (256, 2),
        (4, 1),
        (4096, 16),
        (64, 64),
    ]
    .iter()
    .enumerate()
    {
        let signal = floats(&mut Rng::new(500 + k as u64), m as usize);
        let name = format!("m={m} local {local}, __local");
        let scale = 1.0 / (m as f32).sqrt();
        cases.push(dwt_case(name, signal, scale, dwt_sdk_launches(m, local)));
    }
    // Single levels with work-groups of 12 (not a power of two): 12, 6 and
    // 3 active work-items per group.
    for level in 0..3u32 {
        let (groups, local) = (2usize, 12usize);
        let active = local >> level;
        let pairs = groups * active;
        let half_len = 5 + pairs; // any offset that keeps coefs in bounds
        let mut rng = Rng::new(400 + level as u64);
        let src = floats(&mut rng, 2 * groups * local);
        let c = std::f32::consts::FRAC_1_SQRT_2;
        let mut dst = vec![0.0f32; groups * local];
        let mut coefs = vec![0.0f32; half_len + groups * local];
        for p in 0..pairs {
            dst[p] = (src[2 * p] + src[2 * p + 1]) * c;
            coefs[half_len + p] = (src[2 * p] - src[2 * p + 1]) * c;
        }
        cases.push(Case {
            name: format!("one level {level}, 2 groups of 12"),
            bufs: vec![
                Data::F32(src),
                Data::F32(vec![0.0; coefs.len()]),
                Data::F32(vec![0.0; dst.len()]),
            ],
            launches: vec![launch1(
                "dwt_haar1d",
                (groups * local) as u64,
                local as u64,
                vec![
                    A::B(0),
                    A::B(2),
                    A::B(1),
                    A::U(level),
                    A::U(half_len as u32),
                ],
            )],
            check: Box::new(move |b| {
                same_f32("coefs", b[1].f32(), &coefs)?;
                same_f32("dst", b[2].f32(), &dst)
            }),
        });
    }
    cases
}

// FastWalshTransform -------------------------------------------------------------

/// The Walsh-Hadamard transform by its definition (Sylvester/Hadamard
/// order, which the in-place butterflies produce).
fn walsh_hadamard_ref(x: &[f32]) -> Vec<f32> {
    (0..x.len())
        .map(|k| {
            let mut s = 0.0f64;
            for (j, &v) in x.iter().enumerate() {
                let sign = if (j & k).count_ones() % 2 == 0 {
                    1.0
                } else {
                    -1.0
                };
                s += sign * v as f64;
            }
            s as f32
        })
        .collect()
}

fn fwt_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    // Whole transforms: (n, local size).
    for (k, &(n, local)) in [(8u64, 3u64), (32, 16), (64, 7), (1024, 12), (256, 64)]
        .iter()
        .enumerate()
    {
        let mut rng = Rng::new(500 + k as u64);
        let data = int_floats(&mut rng, n as usize);
        let want = walsh_hadamard_ref(&data);
        let mut launches = Vec::new();
        let mut step = 1;
        while step < n {
            launches.push(launch1(
                "fast_walsh_transform",
                n / 2,
                local,
                vec![A::B(0), A::U(step as u32)],
            ));
            step <<= 1;
        }
        cases.push(Case {
            name: format!("transform of {n}, local {local}"),
            bufs: vec![Data::F32(data)],
            launches,
            check: Box::new(move |b| same_f32("data", b[0].f32(), &want)),
        });
    }
    // Single passes: n = 2 * step * blocks, so the global size
    // step * blocks is not a multiple of 16 where the step allows it.
    for (k, &step) in [1u64, 2, 3, 4, 8, 16, 32].iter().enumerate() {
        for (blocks, local) in [(5u64, 8u64), (3, 12)] {
            let n = 2 * step * blocks;
            let mut rng = Rng::new(600 + k as u64 * 10 + blocks);
            let data = floats(&mut rng, n as usize);
            let mut want = data.clone();
            for block in want.chunks_mut(2 * step as usize) {
                let (lo, hi) = block.split_at_mut(step as usize);
                for (a, b) in lo.iter_mut().zip(hi) {
                    let (x, y) = (*a, *b);
                    *a = x + y;
                    *b = x - y;
                }
            }
            cases.push(Case {
                name: format!("one pass step {step}, n = {n}, local {local}"),
                bufs: vec![Data::F32(data)],
                launches: vec![launch1(
                    "fast_walsh_transform",
                    n / 2,
                    local,
                    vec![A::B(0), A::U(step as u32)],
                )],
                check: Box::new(move |b| same_f32("data", b[0].f32(), &want)),
            });
        }
    }
    cases
}

// BitonicSort --------------------------------------------------------------------

fn bitonic_launches(log_n: u32, local: u64, direction: u32) -> Vec<Launch> {
    let mut v = Vec::new();
    for stage in 0..log_n {
        for pass in 0..=stage {
            v.push(launch1(
                "bitonic_sort",
                (1u64 << log_n) / 2,
                local,
                vec![A::B(0), A::U(stage), A::U(pass), A::U(direction)],
            ));
        }
    }
    v
}

fn bitonic_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (k, &(log_n, local)) in [(1u32, 1u64), (2, 2), (5, 3), (8, 16), (10, 12), (9, 256)]
        .iter()
        .enumerate()
    {
        for direction in [1u32, 0] {
            let n = 1usize << log_n;
            let mut rng = Rng::new(700 + k as u64 * 2 + direction as u64);
            // Full-range keys (unsigned comparison) with some duplicates.
            let data: Vec<u32> = (0..n)
                .map(|_| {
                    if rng.below(4) == 0 {
                        rng.below(8) as u32
                    } else {
                        rng.next() as u32
                    }
                })
                .collect();
            let mut want = data.clone();
            want.sort_unstable();
            if direction == 0 {
                want.reverse();
            }
            cases.push(Case {
                name: format!(
                    "sort {n} {}, local {local}",
                    if direction == 1 {
                        "ascending"
                    } else {
                        "descending"
                    }
                ),
                bufs: vec![Data::U32(data)],
                launches: bitonic_launches(log_n, local, direction),
                check: Box::new(move |b| same_u32("data", b[0].u32(), &want)),
            });
        }
    }
    cases
}

// ---------------------------------------------------------------------------
// Engines

/// The file's text with fast paths on the inferred preconditions, as
/// `lanes build --specialize auto` compiles it for SIMD width `width`.
fn specialize(unit: &CheckedUnit, width: u32) -> String {
    let opts = lanes_vectorizer::precond::Options::new(width);
    lanes_vectorizer::precond::specialize(unit, &opts).text
}

/// The kernels of one unit compiled for one target.
struct Compiled {
    jit: Jit,
    kernels: HashMap<String, KernelCode>,
}

fn compile(unit: &CheckedUnit, target: &str) -> Result<Compiled, String> {
    let spec = target_spec(target)?;
    let mut kcs = Vec::new();
    for kid in unit.hir.kernels() {
        let kc = lanes_codegen::kernel_code(&unit.hir, kid, spec.width).map_err(|d| {
            format!(
                "kernel {}: not vectorized: {}",
                unit.hir.function(kid).name,
                d[0].message
            )
        })?;
        kcs.push(kc);
    }
    let kernels = kcs.iter().map(|k| (k.name.clone(), k.clone())).collect();
    let compiled =
        lanes_codegen::compile_kernels(kcs, &spec, &lanes_codegen::Options { opt_level: 2 })
            .map_err(|d| format!("compile error: {}", d[0].message))?;
    let jit = Jit::new(compiled).map_err(|e| format!("JIT: {e}"))?;
    Ok(Compiled { jit, kernels })
}

/// The scalar IR of every kernel, for the interpreter.
fn scalar_functions(unit: &CheckedUnit, width: u32) -> HashMap<String, (Function, KernelCode)> {
    unit.hir
        .kernels()
        .into_iter()
        .map(|kid| {
            let name = unit.hir.function(kid).name.to_string();
            let ka = lanes_vectorizer::report::analyze_kernel(&unit.hir, kid, width)
                .unwrap_or_else(|d| panic!("{name}: not lowered: {}", d[0].message));
            let kc = lanes_codegen::kernel_code(&unit.hir, kid, width)
                .unwrap_or_else(|d| panic!("{name}: not vectorized: {}", d[0].message));
            (name, (ka.func, kc))
        })
        .collect()
}

/// The source arguments of one launch.
fn args_of(kc: &KernelCode, launch: &Launch, bufs: &[Data]) -> Vec<Arg> {
    assert_eq!(
        kc.params.len(),
        launch.args.len(),
        "{}: argument count",
        launch.kernel
    );
    kc.params
        .iter()
        .zip(&launch.args)
        .map(|(p, a)| match (a, &p.kind) {
            (A::B(i), ParamKind::Pointer { .. }) => Arg::Buffer(bufs[*i].buf(), bufs[*i].elem()),
            (A::U(v), ParamKind::Scalar(t)) => Arg::Scalar(*t, *v as u64, 0.0),
            (A::I(v), ParamKind::Scalar(t)) => Arg::Scalar(*t, *v as u32 as u64, 0.0),
            (A::L(bytes), ParamKind::LocalPointer) => Arg::Local(*bytes),
            (a, k) => panic!("{}: argument {a:?} for a parameter {k:?}", launch.kernel),
        })
        .collect()
}

fn run_jit_case(c: &Compiled, case: &Case) -> Result<Vec<Data>, String> {
    let mut bufs = case.bufs.clone();
    for (n, l) in case.launches.iter().enumerate() {
        let kc = &c.kernels[l.kernel];
        let mut args = args_of(kc, l, &bufs);
        let rc = run_jit(&c.jit, kc, &mut args, &lanes_range(&l.range));
        if rc != 0 {
            return Err(format!("launch {n} ({}) returned {rc}", l.kernel));
        }
        for (a, arg) in l.args.iter().zip(&args) {
            if let (A::B(i), Arg::Buffer(b, _)) = (a, arg) {
                bufs[*i] = bufs[*i].with_bytes(b.bytes());
            }
        }
    }
    Ok(bufs)
}

fn run_interp_case(
    fs: &HashMap<String, (Function, KernelCode)>,
    case: &Case,
    width: u32,
) -> Result<Vec<Data>, String> {
    let mut bufs = case.bufs.clone();
    for (n, l) in case.launches.iter().enumerate() {
        let (f, kc) = &fs[l.kernel];
        let args = args_of(kc, l, &bufs);
        let out = run_interp(f, kc, &args, &l.range, width)
            .map_err(|e| format!("launch {n} ({}): {e}", l.kernel))?;
        for (p, a) in kc.params.iter().zip(&l.args) {
            if let (A::B(i), Some(ArgValue::Buffer(b))) = (a, out.get(param_of_ir(p))) {
                bufs[*i] = bufs[*i].with_bytes(b);
            }
        }
    }
    Ok(bufs)
}

fn same_buffers(got: &[Data], want: &[Data]) -> Result<(), String> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if let Some(d) = compare(w.elem(), &g.bytes(), &w.bytes()) {
            return Err(format!("buffer {i}: {d}"));
        }
    }
    Ok(())
}

/// Runs every case of one file: interpreter and reference first, then each
/// target (unspecialized, and specialized when that changes the text).
fn check_kernel_file(file: &str, cases: Vec<Case>) {
    let path = kernel_path(file);
    let opts = PreprocessOptions::default();
    let unit = check_file(&path, &opts, &RealFs).unwrap();
    assert!(!unit.has_errors(), "{file}: {:?}", unit.diagnostics);
    let mut failures = Vec::new();

    let host_width = target_spec("host").unwrap().width;
    let fs = scalar_functions(&unit, host_width);
    let mut want = Vec::new();
    for case in &cases {
        let r = run_interp_case(&fs, case, host_width);
        match &r {
            Ok(b) => {
                if let Err(e) = (case.check)(b) {
                    failures.push(format!(
                        "{file} {}: interpreter vs reference: {e}",
                        case.name
                    ));
                }
            }
            Err(e) => failures.push(format!("{file} {}: interpreter: {e}", case.name)),
        }
        want.push(r.ok());
    }

    let mut ran = 0;
    for target in TARGETS {
        let spec = target_spec(target).unwrap();
        if !host_can_run(&spec) {
            eprintln!("{file}: SKIPPED {target}: this machine cannot run it");
            continue;
        }
        let original = unit.sources.get(unit.main).text.to_string();
        let special = specialize(&unit, spec.width);
        let mut variants = vec![("unspecialized", None)];
        if special != original {
            variants.push(("specialized", Some(special)));
        }
        for (variant, text) in variants {
            let what = format!("{file} [{target}, {variant}]");
            let checked;
            let u = match &text {
                None => &unit,
                Some(t) => {
                    checked = check_text(file, Some(path.clone()), t, &opts, &RealFs);
                    if checked.has_errors() {
                        failures.push(format!(
                            "{what}: the specialized text has errors: {:?}\n{t}",
                            checked.diagnostics.iter().find(|d| d.is_error())
                        ));
                        continue;
                    }
                    &checked
                }
            };
            let c = match compile(u, target) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{what}: {e}"));
                    continue;
                }
            };
            for (case, want) in cases.iter().zip(&want) {
                let got = match run_jit_case(&c, case) {
                    Ok(g) => g,
                    Err(e) => {
                        failures.push(format!("{what} {}: {e}", case.name));
                        continue;
                    }
                };
                ran += 1;
                if let Some(w) = want {
                    if let Err(e) = same_buffers(&got, w) {
                        failures.push(format!("{what} {}: JIT vs interpreter: {e}", case.name));
                    }
                }
                if let Err(e) = (case.check)(&got) {
                    failures.push(format!("{what} {}: JIT vs reference: {e}", case.name));
                }
            }
        }
    }
    eprintln!("{file}: {} cases, {ran} JIT runs compared", cases.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(ran >= cases.len(), "{file}: only {ran} JIT runs");
}

#[test]
fn convolution2d() {
    check_kernel_file("convolution2d.cl", convolution_cases());
}

#[test]
fn prefix_sum() {
    check_kernel_file("prefix_sum.cl", prefix_sum_cases());
}

#[test]
fn dwt_haar1d() {
    check_kernel_file("dwt_haar1d.cl", dwt_cases());
}

#[test]
fn fast_walsh_transform() {
    check_kernel_file("fast_walsh_transform.cl", fwt_cases());
}

#[test]
fn bitonic_sort() {
    check_kernel_file("bitonic_sort.cl", bitonic_cases());
}

// ---------------------------------------------------------------------------
// The files themselves

const FILES: [&str; 5] = [
    "convolution2d.cl",
    "prefix_sum.cl",
    "dwt_haar1d.cl",
    "fast_walsh_transform.cl",
    "bitonic_sort.cl",
];

/// `(line, item)` for every `//~` group of a file (`//~^` moves up a line):
/// `warning[L0202]`, `error[...]`, `loop: divergent`, `branch: uniform`.
fn expectations(text: &str) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(pos) = line.find("//~") else {
            continue;
        };
        for group in line[pos + 3..].split("//~") {
            let mut rest = group;
            let mut target = i as u32 + 1;
            while let Some(r) = rest.strip_prefix('^') {
                target -= 1;
                rest = r;
            }
            let rest = rest.trim();
            if rest.starts_with("loop:") || rest.starts_with("branch:") {
                let (k, v) = rest.split_once(':').unwrap();
                out.push((target, format!("{k}: {}", v.trim())));
            } else {
                for item in rest.split_whitespace() {
                    out.push((target, item.to_string()));
                }
            }
        }
    }
    out.sort();
    out
}

/// What `lanes check --target avx2-i32x8` reports (errors and warnings) and
/// what `lanes explain` says about loops and branches, as the expectations
/// above spell them.
fn reported(unit: &CheckedUnit) -> Vec<(u32, String)> {
    use lanes_frontend::diag::Severity;
    let file = unit.sources.get(unit.main);
    let line = |offset: u32| file.line_col(offset).0;
    let mut diags = unit.diagnostics.clone();
    let mut out = Vec::new();
    for k in unit.hir.kernels() {
        match lanes_vectorizer::report::analyze_kernel(&unit.hir, k, 8) {
            Ok(ka) => {
                let r = lanes_vectorizer::report::report(&ka, &unit.hir, k, &unit.sources);
                diags.extend(r.diagnostics);
                for l in &r.loops {
                    let kind = if l.divergent { "divergent" } else { "uniform" };
                    out.push((line(l.span.start), format!("loop: {kind}")));
                }
                for b in r.branches.iter().filter(|b| !b.loop_exit) {
                    let kind = if b.divergent { "divergent" } else { "uniform" };
                    out.push((line(b.span.start), format!("branch: {kind}")));
                }
            }
            Err(d) => diags.extend(d),
        }
    }
    for d in diags {
        let sev = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            _ => continue,
        };
        out.push((line(d.span.start), format!("{sev}[{}]", d.code.as_str())));
    }
    out.sort();
    out
}

#[test]
fn files_report_exactly_their_expectations() {
    let opts = PreprocessOptions {
        width: 8,
        ..Default::default()
    };
    let mut failures = Vec::new();
    for file in FILES {
        let path = kernel_path(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let unit = check_file(&path, &opts, &RealFs).unwrap();
        let want = expectations(&text);
        let got = reported(&unit);
        // Loops and branches: every expectation must be reported (as in the
        // corpus harness, unannotated ones are not checked).
        for w in &want {
            if !got.contains(w) {
                failures.push(format!("{file}:{}: expected `{}`, not reported", w.0, w.1));
            }
        }
        // Errors and warnings: every one reported must be expected.
        for g in got.iter().filter(|g| g.1.contains('[')) {
            if !want.contains(g) {
                failures.push(format!("{file}:{}: unexpected `{}`", g.0, g.1));
            }
        }
        assert!(
            !text.contains("error["),
            "{file}: the paper's kernels must check without errors"
        );
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn bench_kernels_are_the_tested_files() {
    for file in FILES {
        let tested = std::fs::read_to_string(kernel_path(file)).unwrap();
        let bench = std::fs::read_to_string(root().join("bench/kernels/paper").join(file))
            .unwrap_or_else(|e| panic!("bench/kernels/paper/{file}: {e}"));
        assert_eq!(tested, bench, "bench/kernels/paper/{file} differs");
    }
}
