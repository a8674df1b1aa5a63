//! Shared plumbing of the codegen tests: the kernel corpus, argument
//! generation, running a kernel through the reference interpreter and
//! through the JIT, and comparing the buffers.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use lanes_codegen::{Jit, KernelCode, KernelParam, LanesRange, ParamKind};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::types::{Scalar, Type};
use lanes_frontend::unit::{check_file, CheckedUnit};
use lanes_vectorizer::interp::{self, ArgValue, NdRange};
use lanes_vectorizer::ir::{Const, InstKind, Ty, WorkItem};

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.cl` file of the corpus (`tests/kernels/valid`, `examples`).
pub fn corpus() -> Vec<(PathBuf, CheckedUnit)> {
    corpus_of(&["tests/kernels/valid", "examples"])
}

/// Every `.cl` file of the given folders of the repository.
pub fn corpus_of(dirs: &[&str]) -> Vec<(PathBuf, CheckedUnit)> {
    let mut out = Vec::new();
    for &dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "cl"))
            .collect();
        files.sort();
        for p in files {
            let unit = check_file(&p, &PreprocessOptions::default(), &RealFs).unwrap();
            assert!(
                !unit.has_errors(),
                "{}: {:?}",
                p.display(),
                unit.diagnostics
            );
            out.push((p, unit));
        }
    }
    out
}

/// Deterministic xorshift64* generator.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Uniform in [lo, hi).
    pub fn f64(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        lo + (hi - lo) * u
    }
}

pub fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// What one element of a buffer is, for filling and comparing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Elem {
    Int(u64),
    F32,
    F64,
    /// `half` storage: compared bit for bit.
    Half,
    /// Structs and anything else: compared byte by byte.
    Bytes,
}

pub fn elem_of(ty: Option<&Type>) -> Elem {
    let scalar = |s: Scalar| match s {
        Scalar::Float => Elem::F32,
        Scalar::Double => Elem::F64,
        Scalar::Half => Elem::Half,
        other => Elem::Int(other.size() as u64),
    };
    match ty {
        Some(Type::Pointer(p)) => match &p.pointee {
            Type::Scalar(s) | Type::Vector(s, _) => scalar(*s),
            Type::Array(e, _) => match &**e {
                Type::Scalar(s) => scalar(*s),
                _ => Elem::Bytes,
            },
            _ => Elem::Bytes,
        },
        _ => Elem::Bytes,
    }
}

/// 16-byte aligned byte storage (element alignment for every kernel).
#[derive(Clone)]
pub struct Buf {
    words: Vec<u128>,
    pub len: usize,
}

impl Buf {
    pub fn new(len: usize) -> Buf {
        Buf {
            words: vec![0; len.div_ceil(16).max(1)],
            len,
        }
    }
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: u128 storage viewed as bytes, within its length.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr() as *const u8, self.len) }
    }
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr() as *mut u8, self.len) }
    }
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr() as *mut u8
    }
}

/// One source argument.
#[derive(Clone)]
pub enum Arg {
    Buffer(Buf, Elem),
    /// A scalar: its IR type and bits (floats as their f64 value).
    Scalar(Ty, u64, f64),
    Vector(Ty, Vec<(u64, f64)>),
    /// A struct: (offset, type, bits, float value) per scalar field.
    Struct(Vec<(u64, Ty, u64, f64)>),
    /// A `__local` pointer: the byte size of its object.
    Local(u64),
}

/// The size of each `__local` argument's object.
pub const LOCAL_ARG_BYTES: u64 = 1 << 13;

pub const BUFFER_BYTES: usize = 1 << 15;

fn scalar_arg(rng: &mut Rng, t: Ty) -> (u64, f64) {
    match t {
        Ty::F32 => {
            let x = rng.f64(-2.0, 2.0) as f32 as f64;
            (0, x)
        }
        Ty::F64 => (0, rng.f64(-2.0, 2.0)),
        Ty::I1 => (rng.below(2), 0.0),
        // Small positive integers: sizes, counts, strides and indices.
        _ => (3 + rng.below(9), 0.0),
    }
}

/// How to fill buffers for kernels whose documented preconditions random
/// data would violate in ways the interpreter cannot see (races between
/// work-items, whose result depends on the execution order).
#[derive(Clone, Copy, Debug)]
pub struct Profile {
    pub float_lo: f64,
    pub float_hi: f64,
    /// Integer buffers non-decreasing (offset tables).
    pub monotone_ints: bool,
    /// Integer buffers a permutation of 0 .. elements (scatter indices:
    /// two work-items storing to one element race, and PoCL need not let
    /// the last work-item win).
    pub permutation_ints: bool,
}

pub const DEFAULT_PROFILE: Profile = Profile {
    float_lo: -2.0,
    float_hi: 2.0,
    monotone_ints: false,
    permutation_ints: false,
};

/// The input profile of a corpus kernel.
pub fn profile_of(kernel: &str) -> Profile {
    match kernel {
        // Distances are non-negative, so row/column k is not updated in
        // step k (otherwise work-items race on it).
        "floyd_warshall_step" => Profile {
            float_lo: 0.0,
            float_hi: 4.0,
            ..DEFAULT_PROFILE
        },
        // Eccentricities of closed orbits (0 <= e < 1): otherwise Newton's
        // iteration does not converge and amplifies every rounding.
        "newton_kepler" => Profile {
            float_lo: 0.0,
            float_hi: 0.9,
            ..DEFAULT_PROFILE
        },
        // Segments given by an offset table must not overlap.
        "segment_prefix_sum" => Profile {
            monotone_ints: true,
            ..DEFAULT_PROFILE
        },
        "scatter" => Profile {
            permutation_ints: true,
            ..DEFAULT_PROFILE
        },
        _ => DEFAULT_PROFILE,
    }
}

/// Random arguments for a kernel: buffers of `BUFFER_BYTES` filled per
/// element type (small non-negative integers, floats in [-2, 2]).
pub fn make_args(k: &KernelCode, rng: &mut Rng) -> Vec<Arg> {
    make_args_with(k, rng, &profile_of(&k.name))
}

pub fn make_args_with(k: &KernelCode, rng: &mut Rng, prof: &Profile) -> Vec<Arg> {
    k.params
        .iter()
        .map(|p| match &p.kind {
            ParamKind::Pointer { .. } => {
                let e = elem_of(p.ty.as_ref());
                let mut b = Buf::new(BUFFER_BYTES);
                fill(&mut b, e, rng, prof);
                Arg::Buffer(b, e)
            }
            ParamKind::Scalar(t) => {
                let (i, f) = scalar_arg(rng, *t);
                Arg::Scalar(*t, i, f)
            }
            ParamKind::Vector(t, n) => {
                Arg::Vector(*t, (0..*n).map(|_| scalar_arg(rng, *t)).collect())
            }
            ParamKind::Struct(fields) => Arg::Struct(
                fields
                    .iter()
                    .map(|&(off, t)| {
                        let (i, f) = scalar_arg(rng, t);
                        (off, t, i, f)
                    })
                    .collect(),
            ),
            ParamKind::LocalPointer => Arg::Local(LOCAL_ARG_BYTES),
        })
        .collect()
}

pub fn fill(b: &mut Buf, e: Elem, rng: &mut Rng, prof: &Profile) {
    let bytes = b.bytes_mut();
    let (lo, hi) = (prof.float_lo, prof.float_hi);
    match e {
        Elem::F32 => {
            for c in bytes.chunks_exact_mut(4) {
                c.copy_from_slice(&(rng.f64(lo, hi) as f32).to_le_bytes());
            }
        }
        Elem::F64 => {
            for c in bytes.chunks_exact_mut(8) {
                c.copy_from_slice(&rng.f64(lo, hi).to_le_bytes());
            }
        }
        Elem::Half => {
            // Every magnitude a half has (subnormals to overflow), and the
            // special values now and then.
            for c in bytes.chunks_exact_mut(2) {
                let h = match rng.below(32) {
                    0 => 0x7c00 | (rng.below(2) << 15) as u16,
                    1 => 0x7e00 | rng.below(0x200) as u16,
                    _ => {
                        let x = rng.f64(lo, hi) * 2f64.powi(rng.below(44) as i32 - 26);
                        lanes_vectorizer::half::f64_to_half_bits(x)
                    }
                };
                c.copy_from_slice(&h.to_le_bytes());
            }
        }
        Elem::Int(n) if prof.permutation_ints => {
            let count = bytes.len() / n as usize;
            let mut perm: Vec<u64> = (0..count as u64).collect();
            for i in (1..count).rev() {
                perm.swap(i, rng.below(i as u64 + 1) as usize);
            }
            for (c, v) in bytes.chunks_exact_mut(n as usize).zip(perm) {
                c.copy_from_slice(&v.to_le_bytes()[..n as usize]);
            }
        }
        Elem::Int(n) => {
            let mut acc = 0u64;
            for c in bytes.chunks_exact_mut(n as usize) {
                let v = if prof.monotone_ints {
                    acc += rng.below(4);
                    acc.min(120)
                } else {
                    rng.below(16)
                };
                c.copy_from_slice(&v.to_le_bytes()[..n as usize]);
            }
        }
        Elem::Bytes => {
            for c in bytes.chunks_exact_mut(4) {
                // Small floats where floats are, small ints elsewhere: both
                // are harmless bit patterns.
                let v = if rng.below(2) == 0 {
                    (rng.f64(-2.0, 2.0) as f32).to_bits()
                } else {
                    rng.below(16) as u32
                };
                c.copy_from_slice(&v.to_le_bytes());
            }
        }
    }
}

fn const_of(t: Ty, i: u64, f: f64) -> Const {
    if t.is_float() {
        Const::Float(f, t)
    } else {
        Const::Int(lanes_vectorizer::ir::truncate(i, t.bits()), t)
    }
}

/// The interpreter's arguments (one per IR parameter).
pub fn interp_args(k: &KernelCode, args: &[Arg]) -> Vec<ArgValue> {
    let mut out: Vec<Option<ArgValue>> = vec![None; k.vf.func.params.len()];
    for (p, a) in k.params.iter().zip(args) {
        match a {
            Arg::Buffer(b, _) => {
                out[p.ir_params[0] as usize] = Some(ArgValue::Buffer(b.bytes().to_vec()))
            }
            Arg::Scalar(t, i, f) => {
                out[p.ir_params[0] as usize] = Some(ArgValue::Scalar(const_of(*t, *i, *f)))
            }
            Arg::Vector(t, cs) => {
                for (c, &(i, f)) in cs.iter().enumerate() {
                    out[p.ir_params[c] as usize] = Some(ArgValue::Scalar(const_of(*t, i, f)));
                }
            }
            Arg::Struct(fs) => {
                for (c, &(_, t, i, f)) in fs.iter().enumerate() {
                    out[p.ir_params[c] as usize] = Some(ArgValue::Scalar(const_of(t, i, f)));
                }
            }
            Arg::Local(bytes) => out[p.ir_params[0] as usize] = Some(ArgValue::Local(*bytes)),
        }
    }
    out.into_iter()
        .map(|a| a.expect("every IR parameter"))
        .collect()
}

/// The bytes of a scalar of IR type `t` (bool as one byte).
fn scalar_bytes(t: Ty, i: u64, f: f64) -> Vec<u8> {
    match t {
        Ty::F32 => (f as f32).to_le_bytes().to_vec(),
        Ty::F64 => f.to_le_bytes().to_vec(),
        Ty::I1 => vec![(i & 1) as u8],
        t => i.to_le_bytes()[..t.bytes() as usize].to_vec(),
    }
}

/// Runs the JIT-compiled kernel with `args` (buffers modified in place).
pub fn run_jit(jit: &Jit, k: &KernelCode, args: &mut [Arg], range: &LanesRange) -> i32 {
    let launch = jit.launcher(&k.name).expect("launcher");
    // Storage the argument pointers point into; kept alive for the call.
    let mut ptr_slots: Vec<Box<*mut u8>> = Vec::new();
    let mut scalar_slots: Vec<Buf> = Vec::new();
    let mut argv: Vec<*mut std::ffi::c_void> = Vec::new();
    for a in args.iter_mut() {
        match a {
            Arg::Buffer(b, _) => {
                let slot = Box::new(b.as_mut_ptr());
                argv.push(&*slot as *const *mut u8 as *mut std::ffi::c_void);
                ptr_slots.push(slot);
            }
            Arg::Scalar(t, i, f) => {
                let bytes = scalar_bytes(*t, *i, *f);
                let mut s = Buf::new(16);
                s.bytes_mut()[..bytes.len()].copy_from_slice(&bytes);
                scalar_slots.push(s);
                let last = scalar_slots.last_mut().unwrap();
                argv.push(last.as_mut_ptr() as *mut std::ffi::c_void);
            }
            Arg::Vector(t, cs) => {
                let mut all = Vec::new();
                for &(i, f) in cs.iter() {
                    all.extend(scalar_bytes(*t, i, f));
                }
                let mut s = Buf::new(all.len().max(16));
                s.bytes_mut()[..all.len()].copy_from_slice(&all);
                scalar_slots.push(s);
                let last = scalar_slots.last_mut().unwrap();
                argv.push(last.as_mut_ptr() as *mut std::ffi::c_void);
            }
            Arg::Struct(fs) => {
                let size = fs
                    .iter()
                    .map(|&(o, t, _, _)| o + t.bytes().max(1))
                    .max()
                    .unwrap_or(0);
                let mut s = Buf::new((size as usize).max(16));
                for &(o, t, i, f) in fs.iter() {
                    let b = scalar_bytes(t, i, f);
                    s.bytes_mut()[o as usize..o as usize + b.len()].copy_from_slice(&b);
                }
                scalar_slots.push(s);
                let last = scalar_slots.last_mut().unwrap();
                argv.push(last.as_mut_ptr() as *mut std::ffi::c_void);
            }
            Arg::Local(bytes) => argv.push(bytes as *mut u64 as *mut std::ffi::c_void),
        }
    }
    // SAFETY: the argument array matches the kernel's parameters and every
    // buffer is large enough for the launches the tests make.
    unsafe { launch(argv.as_ptr(), range, 0, usize::MAX) }
}

/// The highest dimension (1..=3) the kernel's work-item queries use.
pub fn dims_used(k: &KernelCode) -> u32 {
    let f = &k.vf.func;
    let mut dims = 1;
    for inst in &f.insts {
        if let InstKind::WorkItem {
            query,
            dim: Some(d),
        } = &inst.kind
        {
            if *query == WorkItem::LaneMask {
                continue;
            }
            match f.as_const(*d) {
                Some(Const::Int(v, _)) if v < 3 => dims = dims.max(v as u32 + 1),
                Some(_) => {}
                None => dims = 3,
            }
        }
    }
    dims
}

/// A launch of `dims` dimensions without a global offset.
pub fn nd_range(dims: u32, global: [u64; 3], local: [u64; 3]) -> NdRange {
    NdRange {
        work_dim: dims,
        global_offset: [0; 3],
        global_size: global,
        local_size: local,
    }
}

/// Launch shapes for a kernel of `dims` dimensions at width `w`: global
/// sizes that are and are not multiples of W, local sizes that are not
/// multiples of W (and one that is).
pub fn launches(dims: u32, w: u64) -> Vec<NdRange> {
    let r = |g, l| nd_range(dims, g, l);
    match dims {
        1 => vec![
            r([3 * w, 1, 1], [w, 1, 1]),
            r([3 * w + 1, 1, 1], [2 * w, 1, 1]),
            r([2 * w + 3, 1, 1], [w + 3, 1, 1]),
            NdRange {
                global_offset: [5, 0, 0],
                ..r([w + 5, 1, 1], [w - 1, 1, 1])
            },
        ],
        2 => vec![
            r([2 * w, 3, 1], [w, 3, 1]),
            r([w + 3, 5, 1], [w + 1, 2, 1]),
            r([2 * w + 1, 2, 1], [3, 2, 1]),
        ],
        _ => vec![r([w + 1, 3, 2], [w - 1, 2, 2]), r([2 * w, 2, 3], [w, 1, 2])],
    }
}

pub fn lanes_range(r: &NdRange) -> LanesRange {
    LanesRange {
        work_dim: r.work_dim,
        global_offset: r.global_offset.map(|x| x as usize),
        global_size: r.global_size.map(|x| x as usize),
        local_size: r.local_size.map(|x| x as usize),
    }
}

/// Distance in units in the last place between two floats of one type
/// (as ordered integers); ±0 are equal.
pub fn ulps32(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let i = x.to_bits() as i32;
        if i < 0 {
            i64::from(i32::MIN) - i64::from(i)
        } else {
            i64::from(i)
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

pub fn ulps64(a: f64, b: f64) -> u64 {
    let key = |x: f64| {
        let i = x.to_bits() as i64;
        if i < 0 {
            (i64::MIN as i128) - i as i128
        } else {
            i as i128
        }
    };
    (key(a) - key(b)).unsigned_abs().min(u64::MAX as u128) as u64
}

pub const MAX_ULPS: u64 = 4;

/// True when the kernel calls a math function that is not correctly
/// rounded (exp, sin, pow, ...): its float results may differ from the
/// interpreter's (the host libm) by the OpenCL ULP bounds, amplified by
/// what the kernel computes afterwards (e.g. cancellation).
pub fn uses_approximate_math(k: &KernelCode) -> bool {
    use lanes_vectorizer::ir::MathFn::*;
    k.vf.func.insts.iter().any(|i| match &i.kind {
        InstKind::Math { func, .. } => {
            !(func.is_integer()
                || matches!(
                    func,
                    Sqrt | Fabs
                        | Floor
                        | Ceil
                        | Round
                        | Trunc
                        | Rint
                        | Fmin
                        | Fmax
                        | Copysign
                        | Fma
                        | Fdim
                        | Fmod
                        | Ldexp
                ))
        }
        _ => false,
    })
}

/// Relative and absolute tolerance for kernels with approximate math.
pub const APPROX_REL: f64 = 1e-4;
pub const APPROX_ABS: f64 = 1e-6;

/// The first difference between two buffers of element kind `e`, if any
/// (floats within `MAX_ULPS`).
pub fn compare(e: Elem, got: &[u8], want: &[u8]) -> Option<String> {
    compare_with(e, got, want, false)
}

/// Like [`compare`]; `approx` also accepts floats within `APPROX_REL`
/// relative or `APPROX_ABS` absolute error.
pub fn compare_with(e: Elem, got: &[u8], want: &[u8], approx: bool) -> Option<String> {
    let close = |g: f64, w: f64| approx && (g - w).abs() <= APPROX_REL * w.abs() + APPROX_ABS;
    if got.len() != want.len() {
        return Some(format!("length {} vs {}", got.len(), want.len()));
    }
    match e {
        Elem::F32 => {
            for (i, (g, w)) in got.chunks_exact(4).zip(want.chunks_exact(4)).enumerate() {
                let g = f32::from_le_bytes(g.try_into().unwrap());
                let w = f32::from_le_bytes(w.try_into().unwrap());
                let ok = (g.is_nan() && w.is_nan())
                    || g == w
                    || ulps32(g, w) <= MAX_ULPS
                    || close(g as f64, w as f64);
                if !ok {
                    return Some(format!("float [{i}]: got {g:e}, want {w:e}"));
                }
            }
            None
        }
        Elem::F64 => {
            for (i, (g, w)) in got.chunks_exact(8).zip(want.chunks_exact(8)).enumerate() {
                let g = f64::from_le_bytes(g.try_into().unwrap());
                let w = f64::from_le_bytes(w.try_into().unwrap());
                let ok =
                    (g.is_nan() && w.is_nan()) || g == w || ulps64(g, w) <= MAX_ULPS || close(g, w);
                if !ok {
                    return Some(format!("double [{i}]: got {g:e}, want {w:e}"));
                }
            }
            None
        }
        Elem::Half => compare_with(Elem::Int(2), got, want, approx),
        Elem::Int(n) => {
            let n = n as usize;
            for (i, (g, w)) in got.chunks_exact(n).zip(want.chunks_exact(n)).enumerate() {
                if g != w {
                    return Some(format!("int{} [{i}]: got {g:?}, want {w:?}", n * 8));
                }
            }
            None
        }
        Elem::Bytes => got
            .iter()
            .zip(want)
            .position(|(a, b)| a != b)
            .map(|i| format!("byte [{i}]: got {}, want {}", got[i], want[i])),
    }
}

/// Runs the interpreter on the scalar IR `f` of the kernel; `Err` is its
/// error message.
pub fn run_interp(
    f: &lanes_vectorizer::ir::Function,
    k: &KernelCode,
    args: &[Arg],
    range: &NdRange,
    w: u32,
) -> Result<Vec<ArgValue>, String> {
    let mut iargs = interp_args(k, args);
    let opts = interp::Options {
        sub_group_width: w,
        step_limit: 50_000_000,
        check_all_races: false,
    };
    interp::run_with(f, range, &mut iargs, &opts).map_err(|e| e.to_string())?;
    Ok(iargs)
}

/// The interpreter argument index of a source parameter (its first IR
/// parameter).
pub fn param_of_ir(p: &KernelParam) -> usize {
    p.ir_params[0] as usize
}

/// Launches of a kernel with `reqd_work_group_size(reqd)` that use it: several
/// work-groups, the whole range in one, a smaller last work-group in each
/// dimension (OpenCL 2.0 non-uniform work-groups), and the local size left
/// to lanes (`choose`: lanes gets local size 0).
pub fn reqd_launches(reqd: [u32; 3], dims: u32) -> Vec<(NdRange, bool)> {
    let l = reqd.map(u64::from);
    let dims = (0..3)
        .filter(|&d| l[d] > 1)
        .map(|d| d as u32 + 1)
        .fold(dims, u32::max);
    let g = |f: &dyn Fn(u64) -> u64| {
        let mut x = [1; 3];
        for d in 0..dims as usize {
            x[d] = f(l[d]);
        }
        x
    };
    let r = |global| nd_range(dims, global, l);
    vec![
        (r(g(&|x| 3 * x)), false),
        (r(g(&|x| x)), false),
        (r(g(&|x| 2 * x + x.div_ceil(2))), false),
        (r(g(&|x| 2 * x)), true),
    ]
}

/// True when `range`'s local size is `reqd` (dimensions beyond the range's
/// count as 1).
pub fn fits_reqd(range: &NdRange, reqd: [u32; 3]) -> bool {
    (0..3).all(|d| {
        let l = if d < range.work_dim as usize {
            range.local_size[d]
        } else {
            1
        };
        l == reqd[d] as u64
    })
}

/// The contents of the buffer arguments.
fn buffers(args: &[Arg]) -> Vec<Vec<u8>> {
    args.iter()
        .filter_map(|a| match a {
            Arg::Buffer(b, _) => Some(b.bytes().to_vec()),
            _ => None,
        })
        .collect()
}

/// What checking one kernel on one target found.
#[derive(Default)]
pub struct Outcome {
    pub compared: usize,
    /// Launches with a local size other than the kernel's
    /// `reqd_work_group_size`, refused as they should be.
    pub refused: usize,
    /// Launches the interpreter rejected (with its message).
    pub skipped: Vec<String>,
    pub failures: Vec<String>,
    /// Why the kernel was not run at all (not vectorized, missing math).
    pub not_run: Option<String>,
}

/// Math functions the code generator cannot lower yet.
pub fn is_missing_math(msg: &str) -> bool {
    msg.contains("not available in this build of the code generator")
}

/// Compiles kernel `kid` of `unit` for `spec`, runs every launch of
/// `launches(dims, W)` on random inputs through the JIT and the
/// interpreter, and compares the buffers.
pub fn check_kernel(
    unit: &lanes_frontend::hir::Unit,
    kid: lanes_frontend::hir::FuncId,
    spec: &lanes_codegen::TargetSpec,
    opts: &lanes_codegen::Options,
    what: &str,
) -> Outcome {
    check_kernel_with(unit, kid, spec, opts, what, &launches)
}

/// [`check_kernel`] with the launches `shapes(dims, W)` gives.
pub fn check_kernel_with(
    unit: &lanes_frontend::hir::Unit,
    kid: lanes_frontend::hir::FuncId,
    spec: &lanes_codegen::TargetSpec,
    opts: &lanes_codegen::Options,
    what: &str,
    shapes: &dyn Fn(u32, u64) -> Vec<NdRange>,
) -> Outcome {
    let mut out = Outcome::default();
    let w = spec.width;
    let name = unit.function(kid).name.to_string();
    let scalar = match lanes_vectorizer::report::analyze_kernel_with(unit, kid, w, &spec.lowering())
    {
        Ok(ka) => ka.func,
        Err(d) => {
            out.not_run = Some(format!("not lowered: {}", d[0].message));
            return out;
        }
    };
    let kc = match lanes_codegen::kernel_code_for(unit, kid, spec) {
        Ok(kc) => kc,
        Err(d) => {
            out.not_run = Some(format!("not vectorized: {}", d[0].message));
            return out;
        }
    };
    let compiled = match lanes_codegen::compile_kernels(vec![kc.clone()], spec, opts) {
        Ok(c) => c,
        Err(d) if is_missing_math(&d[0].message) => {
            out.not_run = Some(d[0].message.clone());
            return out;
        }
        Err(d) => {
            out.failures
                .push(format!("{what}: compile error: {}", d[0].message));
            return out;
        }
    };
    let jit = match Jit::new(compiled) {
        Ok(j) => j,
        Err(e) => {
            out.failures.push(format!("{what}: JIT error: {e}"));
            return out;
        }
    };
    let approx = uses_approximate_math(&kc);
    // (the launch, whether lanes is given local size 0 to choose it)
    let mut launches: Vec<(NdRange, bool)> = shapes(dims_used(&kc), w as u64)
        .into_iter()
        .map(|r| (r, false))
        .collect();
    if let Some(reqd) = kc.reqd_work_group_size {
        launches.extend(reqd_launches(reqd, dims_used(&kc)));
    }
    for (li, (range, choose)) in launches.iter().enumerate() {
        let mut rng = Rng::new(hash(&name) ^ (li as u64 * 7919) ^ w as u64);
        let mut args = make_args(&kc, &mut rng);
        let mut lr = lanes_range(range);
        if *choose {
            lr.local_size = [0; 3];
        }
        if let Some(reqd) = kc.reqd_work_group_size.filter(|&r| !fits_reqd(range, r)) {
            // OpenCL's CL_INVALID_WORK_GROUP_SIZE, before anything runs.
            let before: Vec<Vec<u8>> = buffers(&args);
            let rc = run_jit(&jit, &kc, &mut args, &lr);
            if rc != -3 || buffers(&args) != before {
                out.failures.push(format!(
                    "{what} launch {li} {range:?}: local size other than reqd_work_group_size{reqd:?} returned {rc} (or wrote memory), not -3"
                ));
            }
            out.refused += 1;
            continue;
        }
        let want = match run_interp(&scalar, &kc, &args, range, w) {
            Ok(v) => v,
            Err(e) => {
                out.skipped.push(format!("launch {li}: {e}"));
                continue;
            }
        };
        let rc = run_jit(&jit, &kc, &mut args, &lr);
        if rc != 0 {
            out.failures
                .push(format!("{what} launch {li}: returned {rc}"));
            continue;
        }
        for (p, a) in kc.params.iter().zip(&args) {
            let Arg::Buffer(got, elem) = a else { continue };
            let Some(ArgValue::Buffer(wb)) = want.get(param_of_ir(p)) else {
                continue;
            };
            if let Some(d) = compare_with(*elem, got.bytes(), wb, approx) {
                out.failures.push(format!(
                    "{what} launch {li} {range:?}: buffer `{}`: {d}",
                    p.name
                ));
            }
        }
        out.compared += 1;
    }
    out
}

/// Compiles every kernel of `units` that `select` takes (by its unit and
/// id) for `target` and compares each launch of `shapes` with the
/// interpreter; panics on any mismatch and prints the kernels not run or
/// with skipped launches. Returns the kernels compared (`None`: the machine
/// cannot run the target).
pub fn compare_corpus(
    target: &str,
    opt_level: u8,
    units: Vec<(PathBuf, CheckedUnit)>,
    select: &dyn Fn(&lanes_frontend::hir::Unit, lanes_frontend::hir::FuncId) -> bool,
    shapes: &dyn Fn(u32, u64) -> Vec<NdRange>,
) -> Option<usize> {
    let spec = lanes_codegen::target_spec(target).unwrap();
    if !lanes_codegen::host_can_run(&spec) {
        eprintln!("SKIPPED: this machine cannot run {target}");
        return None;
    }
    let opts = lanes_codegen::Options { opt_level };
    let mut failures = Vec::new();
    let mut notes = Vec::new();
    let mut kernels = 0;
    let mut launches = 0;
    for (path, unit) in units {
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        for kid in unit.hir.kernels() {
            if !select(&unit.hir, kid) {
                continue;
            }
            let name = &unit.hir.function(kid).name;
            let what = format!("{file}:{name} [{target} O{opt_level}]");
            if std::env::var_os("LANES_TEST_VERBOSE").is_some() {
                eprintln!("checking {what}");
            }
            let o = check_kernel_with(&unit.hir, kid, &spec, &opts, &what, shapes);
            if let Some(why) = o.not_run {
                notes.push(format!("{what}: {why}"));
                continue;
            }
            failures.extend(o.failures);
            if o.compared > 0 {
                kernels += 1;
                launches += o.compared;
            }
            if !o.skipped.is_empty() {
                notes.push(format!(
                    "{what}: {} of {} launches skipped (interpreter: {})",
                    o.skipped.len(),
                    o.skipped.len() + o.compared,
                    o.skipped[0]
                ));
            }
        }
    }
    eprintln!(
        "{target} O{opt_level}: {kernels} kernels, {launches} launches compared\nnotes:\n  {}",
        notes.join("\n  ")
    );
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
    Some(kernels)
}

/// The targets the differential tests of written-out kernels run on (each
/// only where this machine can run it).
pub const TEST_TARGETS: [&str; 6] = [
    "sse4-i32x4",
    "sse4-i32x8",
    "avx2-i32x8",
    "avx2-i32x16",
    "avx512skx-x8",
    "avx512skx-x16",
];

/// What [`check_every_kernel`] found.
pub struct Checked {
    pub failures: Vec<String>,
    /// Launches the interpreter rejected, per kernel, target and level.
    pub skipped: Vec<String>,
    /// Launches compared.
    pub ran: usize,
}

/// Every kernel of `src` (file name `name`) through the JIT and the
/// interpreter ([`check_kernel`]) for every target of [`TEST_TARGETS`] this
/// machine runs, at -O0 and -O2. A kernel that is not run, or whose every
/// launch is skipped, is a failure: every kernel given is meant to run.
pub fn check_every_kernel(name: &str, src: &str) -> Checked {
    let unit =
        lanes_frontend::unit::check_text(name, None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let mut c = Checked {
        failures: Vec::new(),
        skipped: Vec::new(),
        ran: 0,
    };
    for target in TEST_TARGETS {
        let spec = lanes_codegen::target_spec(target).unwrap();
        if !lanes_codegen::host_can_run(&spec) {
            eprintln!("SKIPPED: this machine cannot run {target}");
            continue;
        }
        for opt_level in [0, 2] {
            for kid in unit.hir.kernels() {
                let name = &unit.hir.function(kid).name;
                let what = format!("{name} [{target} O{opt_level}]");
                let opts = lanes_codegen::Options { opt_level };
                let o = check_kernel(&unit.hir, kid, &spec, &opts, &what);
                if let Some(why) = o.not_run {
                    c.failures.push(format!("{what}: not run: {why}"));
                    continue;
                }
                if o.compared == 0 {
                    c.failures
                        .push(format!("{what}: every launch skipped: {:?}", o.skipped));
                }
                if !o.skipped.is_empty() {
                    c.skipped.push(format!("{what}: {:?}", o.skipped));
                }
                c.ran += o.compared;
                c.failures.extend(o.failures);
            }
        }
    }
    c
}

/// The LLVM IR and the assembly of `src` (file name `name`) for AVX2,
/// 8 lanes, unspecialized, at `opt_level`.
pub fn emit_avx2(name: &str, src: &str, opt_level: u8) -> (String, String) {
    let unit =
        lanes_frontend::unit::check_text(name, None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let spec = lanes_codegen::target_spec("avx2-i32x8").unwrap();
    let opts = lanes_codegen::Options { opt_level };
    let compiled = lanes_codegen::compile_unit(&unit.hir, &spec, &opts)
        .unwrap_or_else(|d| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()));
    (compiled.llvm_ir(), compiled.assembly().unwrap())
}

/// The assembly of `kernel`'s `_groups` function in the avx2-i32x8
/// assembly of `src` at -O2 ([`emit_avx2`]).
pub fn groups_asm_avx2(name: &str, src: &str, kernel: &str) -> String {
    let (_, asm) = emit_avx2(name, src, 2);
    let start = asm
        .find(&format!("{kernel}_groups:"))
        .unwrap_or_else(|| panic!("no {kernel}_groups in the assembly"));
    let end = asm[start..]
        .find(".Lfunc_end")
        .map_or(asm.len(), |e| start + e);
    asm[start..end].to_string()
}

/// The text of kernel `kernel` alone, cut out of `src`: from its
/// `__kernel` (attributes included) to the next `__kernel` or the end.
pub fn kernel_source<'a>(src: &'a str, kernel: &str) -> &'a str {
    let at = src
        .find(&format!("void {kernel}("))
        .unwrap_or_else(|| panic!("no kernel {kernel}"));
    let start = src[..at]
        .rfind("__kernel")
        .unwrap_or_else(|| panic!("no `__kernel` before {kernel}"));
    let end = src[start + 1..]
        .find("__kernel")
        .map_or(src.len(), |e| start + 1 + e);
    &src[start..end]
}

/// Launches `kernel` over `range` with each buffer argument at the address
/// in `ptrs` (the same position; `None` for the others), scalars and
/// `__local` sizes from `args`. Returns the entry point's result.
pub fn launch_at(
    jit: &Jit,
    kernel: &str,
    args: &[Arg],
    ptrs: &[Option<*mut u8>],
    range: &NdRange,
) -> i32 {
    let mut slots: Vec<Box<*mut u8>> = Vec::new();
    let mut scal: Vec<Box<[u64; 2]>> = Vec::new();
    let mut argv: Vec<*mut std::ffi::c_void> = Vec::new();
    for (a, p) in args.iter().zip(ptrs) {
        match (a, p) {
            (_, Some(p)) => {
                slots.push(Box::new(*p));
                argv.push(&**slots.last().unwrap() as *const *mut u8 as *mut _);
            }
            (Arg::Scalar(t, i, f), None) => {
                let bits = match t {
                    Ty::F32 => (*f as f32).to_bits() as u64,
                    Ty::F64 => f.to_bits(),
                    _ => *i,
                };
                scal.push(Box::new([bits, 0]));
                argv.push(scal.last().unwrap().as_ptr() as *mut _);
            }
            (Arg::Local(bytes), None) => {
                scal.push(Box::new([*bytes, 0]));
                argv.push(scal.last().unwrap().as_ptr() as *mut _);
            }
            _ => panic!("argument without a value"),
        }
    }
    let launch = jit.launcher(kernel).expect("launcher");
    let range = lanes_range(range);
    // SAFETY: the arguments match the kernel's parameters and every buffer
    // is large enough for the launch the test makes.
    unsafe { launch(argv.as_ptr(), &range, 0, usize::MAX) }
}

/// The first buffer whose bytes (`got` of its argument position) differ
/// from the interpreter's `want`: its name and the difference.
pub fn first_difference<'a>(
    k: &KernelCode,
    args: &[Arg],
    want: &[ArgValue],
    got: impl Fn(usize) -> Option<&'a [u8]>,
) -> Option<(String, String)> {
    for (i, (p, a)) in k.params.iter().zip(args).enumerate() {
        let (Arg::Buffer(_, elem), Some(g)) = (a, got(i)) else {
            continue;
        };
        let Some(ArgValue::Buffer(wb)) = want.get(param_of_ir(p)) else {
            continue;
        };
        if let Some(d) = compare(*elem, g, wb) {
            return Some((p.name.clone(), d));
        }
    }
    None
}

/// The target named `target` and `src` checked as `file`, or `None` (with a
/// SKIPPED line) when this machine cannot run the target.
pub fn runnable_unit(
    target: &str,
    file: &str,
    src: &str,
) -> Option<(lanes_codegen::TargetSpec, CheckedUnit)> {
    let spec = lanes_codegen::target_spec(target).unwrap();
    if !lanes_codegen::host_can_run(&spec) {
        eprintln!("SKIPPED: this machine cannot run {target}");
        return None;
    }
    Some((spec, checked_text(file, src)))
}

/// `src` checked as `file`; it must have no errors.
pub fn checked_text(file: &str, src: &str) -> CheckedUnit {
    let unit =
        lanes_frontend::unit::check_text(file, None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    unit
}

/// Kernel `name` of `unit` for `spec`: its scalar IR (what the interpreter
/// runs), its code, and that code JIT-compiled with default options.
pub fn compile_one(
    unit: &CheckedUnit,
    name: &str,
    spec: &lanes_codegen::TargetSpec,
) -> (lanes_vectorizer::ir::Function, KernelCode, Jit) {
    let kid = unit.hir.function_by_name(name).unwrap();
    let scalar =
        lanes_vectorizer::report::analyze_kernel_with(&unit.hir, kid, spec.width, &spec.lowering())
            .ok()
            .unwrap()
            .func;
    let kc = lanes_codegen::kernel_code_for(&unit.hir, kid, spec)
        .unwrap_or_else(|d| panic!("{name}: {}", d[0].message));
    let jit = Jit::new(
        lanes_codegen::compile_kernels(vec![kc.clone()], spec, &lanes_codegen::Options::default())
            .unwrap_or_else(|d| panic!("{}", d[0].message)),
    )
    .unwrap();
    (scalar, kc, jit)
}

/// Loops of `asm` as the lines from a label to the last jump back to it.
pub fn loops(asm: &str) -> Vec<Vec<&str>> {
    let lines: Vec<&str> = asm.lines().map(str::trim).collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let Some(label) = l.strip_suffix(':').filter(|s| s.starts_with(".LBB")) else {
            continue;
        };
        let back = lines[i + 1..]
            .iter()
            .rposition(|x| x.starts_with('j') && x.split_whitespace().nth(1) == Some(label));
        if let Some(end) = back {
            out.push(lines[i + 1..i + 2 + end].to_vec());
        }
    }
    out
}

/// Runs every kernel of `src` through the JIT and the interpreter
/// ([`check_every_kernel`]) and fails with the list of mismatches.
pub fn assert_every_kernel_matches(name: &str, src: &str) {
    let c = check_every_kernel(name, src);
    eprintln!("{} launches compared", c.ran);
    assert!(c.ran > 0, "nothing ran");
    assert!(
        c.failures.is_empty(),
        "{} failures:\n{}",
        c.failures.len(),
        c.failures.join("\n")
    );
}

/// The innermost natural loops of `asm` ([`natural_loops`]) that contain
/// an instruction starting with `op`: those that hold no other such loop.
pub fn innermost_natural_loops_with<'a>(asm: &'a str, op: &str) -> Vec<Vec<&'a str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    for l in natural_loops(asm) {
        // The same line of `asm`, not an equal line elsewhere.
        let holds_one = out
            .iter()
            .any(|k| k.iter().all(|x| l.iter().any(|y| std::ptr::eq(*x, *y))));
        if l.iter().any(|x| x.starts_with(op)) && !holds_one {
            out.push(l);
        }
    }
    out
}

/// The natural loops of one function's `asm` (its control flow graph:
/// blocks from label to label, fall-through and jump edges; a back edge
/// goes to a block that dominates its source), innermost first: each as
/// the instructions of its blocks. Unlike [`loops`], which reads text
/// ranges, a loop whose blocks the back end laid out apart is whole, and
/// blocks merely placed between them are not in it.
pub fn natural_loops(asm: &str) -> Vec<Vec<&str>> {
    let lines: Vec<&str> = asm
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('.') || l.starts_with(".LBB"))
        .filter(|l| !l.starts_with('#'))
        .collect();
    // Blocks: a label starts one, and so does the line after a jump.
    let mut starts = vec![0usize];
    for (i, l) in lines.iter().enumerate() {
        if l.ends_with(':') && i > 0 {
            starts.push(i);
        } else if l.starts_with('j') && i + 1 < lines.len() {
            starts.push(i + 1);
        }
    }
    starts.sort_unstable();
    starts.dedup();
    let n = starts.len();
    let range = |b: usize| starts[b]..starts.get(b + 1).copied().unwrap_or(lines.len());
    let block_of_label =
        |name: &str| (0..n).find(|&b| lines[starts[b]].strip_suffix(':') == Some(name));
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, out) in succs.iter_mut().enumerate() {
        let last = lines[range(b).end - 1];
        let mut falls = !last.starts_with("ret");
        if let Some((op, to)) = last.split_once('\t') {
            if op.starts_with('j') {
                if let Some(t) = block_of_label(to.trim()) {
                    out.push(t);
                }
                falls = op != "jmp";
            }
        }
        if falls && b + 1 < n {
            out.push(b + 1);
        }
    }
    // Dominators (iterative, blocks in text order, block 0 the entry).
    let all: Vec<bool> = vec![true; n];
    let mut dom: Vec<Vec<bool>> = (0..n)
        .map(|b| {
            if b == 0 {
                (0..n).map(|x| x == 0).collect()
            } else {
                all.clone()
            }
        })
        .collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, ss) in succs.iter().enumerate() {
        for &t in ss {
            preds[t].push(b);
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            let mut d = all.clone();
            for &p in &preds[b] {
                for x in 0..n {
                    d[x] &= dom[p][x];
                }
            }
            if preds[b].is_empty() {
                d = vec![false; n];
            }
            d[b] = true;
            if d != dom[b] {
                dom[b] = d;
                changed = true;
            }
        }
    }
    // One loop per header: the blocks that reach one of its back edges'
    // sources without passing through it.
    let mut by_header: Vec<(usize, Vec<usize>)> = Vec::new();
    for (u, ss) in succs.iter().enumerate() {
        for &h in ss.iter().filter(|&&h| dom[u][h]) {
            let at = match by_header.iter().position(|(x, _)| *x == h) {
                Some(k) => k,
                None => {
                    by_header.push((h, vec![h]));
                    by_header.len() - 1
                }
            };
            let body = &mut by_header[at].1;
            let mut work = vec![u];
            while let Some(x) = work.pop() {
                if !body.contains(&x) {
                    body.push(x);
                    work.extend(preds[x].iter().copied());
                }
            }
        }
    }
    let mut out: Vec<Vec<usize>> = by_header
        .into_iter()
        .map(|(_, mut b)| {
            b.sort_unstable();
            b
        })
        .collect();
    out.sort_by_key(Vec::len);
    out.iter()
        .map(|l| {
            l.iter()
                .flat_map(|&b| lines[range(b)].iter().copied())
                .collect()
        })
        .collect()
}

/// The innermost loops of `asm` that contain an instruction starting with
/// `op`: for each such instruction, the shortest loop around it.
pub fn innermost_loops_with<'a>(asm: &'a str, op: &str) -> Vec<Vec<&'a str>> {
    let mut out: Vec<Vec<&str>> = Vec::new();
    let mut all = loops(asm);
    all.sort_by_key(Vec::len);
    for l in all {
        let has = l.iter().any(|x| x.starts_with(op));
        // Shorter loops come first: a loop around one already taken is not innermost.
        let outer = out
            .iter()
            .any(|inner| l.windows(inner.len()).any(|w| w == inner.as_slice()));
        if has && !outer {
            out.push(l);
        }
    }
    out
}

/// The lines from `store` around its loop back to it: falling through
/// conditional jumps except those into the store's own block, following
/// unconditional ones (the all-active iteration, whose tests all pass).
pub fn iteration_through<'a>(lines: &[&'a str], store: usize) -> Option<Vec<&'a str>> {
    let block = lines[..store]
        .iter()
        .rposition(|l| l.starts_with(".LBB") && l.ends_with(':'))?;
    let block_label = lines[block].trim_end_matches(':');
    let label_at = |name: &str| lines.iter().position(|l| *l == format!("{name}:"));
    let mut path = Vec::new();
    let mut at = store + 1;
    while path.len() < 1000 {
        let line = *lines.get(at)?;
        path.push(line);
        let target = line.split_once('\t').map(|(op, to)| (op, to.trim()));
        at = match target {
            Some(("jmp", to)) => label_at(to)?,
            Some((op, to)) if op.starts_with('j') && to == block_label => block,
            _ if at == store => return Some(path),
            _ => at + 1,
        };
    }
    None
}

/// `src` with the fast paths `lanes build` adds for W = 8 (precondition
/// inference, then the specializer); panics unless `kernel` got one.
pub fn specialized_w8(file: &str, src: &str, kernel: &str) -> String {
    let unit = checked_text(file, src);
    let s =
        lanes_vectorizer::precond::specialize(&unit, &lanes_vectorizer::precond::Options::new(8));
    assert!(
        s.applied.iter().any(|a| a.kernel == kernel),
        "no fast path for `{kernel}`: {:?}",
        s.applied
    );
    s.text
}

/// The lines of one all-active iteration: from the first unmasked vector
/// store (`vmovups %ymm.., (..)`) around its loop back to it
/// ([`iteration_through`]); panics with the assembly when there is none.
pub fn all_active_iteration<'a>(asm: &str, lines: &[&'a str]) -> Vec<&'a str> {
    let store = lines
        .iter()
        .position(|l| l.starts_with("vmovups\t%ymm") && l.ends_with(')'))
        .unwrap_or_else(|| panic!("no unmasked store:\n{asm}"));
    iteration_through(lines, store)
        .unwrap_or_else(|| panic!("no way around the loop back to the store:\n{asm}"))
}
