//! PoCL as a second, external oracle for the generated code (DESIGN §7).
//!
//! Every kernel of `tests/kernels/valid/*.cl` and `examples/*.cl` that the
//! back end compiles runs three ways on the same deterministic random
//! inputs and the same NDRange:
//!
//! 1. the scalar reference interpreter (`lanes_vectorizer::interp`), only to
//!    reject inputs that violate the kernel's preconditions (an index out of
//!    range, a step limit) and inputs that make work-items race (the
//!    interpreter against itself with another interleaving);
//! 2. PoCL's CPU device, building the `.cl` file's own text (with
//!    `-cl-std=CL2.0`, falling back to `CL1.2` where PoCL's 2.0 headers
//!    fail; the file's directory as `-I`; `__LANES__` not defined; and
//!    `#pragma OPENCL FP_CONTRACT OFF` in front: whether `a * b + c` is
//!    contracted is the compiler's choice in OpenCL C, so contraction would
//!    be a legitimate difference rather than a bug);
//! 3. lanes for the `host` target, JIT-compiled, through `LaunchFn`, from
//!    the same text with the same pragma in front (lanes contracts by
//!    default on targets with FMA; codegen/tests/contraction.rs checks it).
//!
//! lanes is compared with PoCL: integers bit-exact, floats within a few ULP,
//! or within the ULP bound of the math functions the kernel calls and a
//! small relative tolerance (see [`Tolerance`]).
//!
//! Inputs follow the codegen tests (`codegen/tests/common`, shared through
//! `#[path]`): buffers of 32 KiB (8192 ints or floats, small non-negative
//! integers usable as indices, floats in [-2, 2]), float scalars 1.5,
//! integer scalars a moderate size (a little less than the global size),
//! else 48, else 16, else small random ones: the first the interpreter
//! accepts.
//!
//! Launch shapes: global and local sizes that are not multiples of W. When
//! the device supports OpenCL 2.0 non-uniform work-groups, the global size
//! is not a multiple of the local size either; PoCL 3.1 does not (it
//! refuses them with `CL_INVALID_WORK_GROUP_SIZE`), so there the global size
//! is a multiple of the local size (but not of W). Kernels that call
//! `get_global_id(1)` run on a 2-D range (and `get_global_id(2)`, 3-D).
//!
//! Skipped, with the reason printed: kernels lanes does not compile, kernels
//! using sub-groups (PoCL 3.1's CPU device has none), files PoCL cannot
//! build, and kernels for which no input candidate satisfies the
//! interpreter. Without PoCL (no OpenCL platform, no PoCL platform or no
//! device) the tests print `SKIPPED: PoCL not available (...)` and pass.
//!
//! Mismatches are printed with the kernel, the launch, the arguments and the
//! differing elements, and fail the test. `LANES_TEST_VERBOSE=1` prints,
//! per kernel, the time, the inputs chosen, the number of elements written
//! and the largest float difference in ULP.
#![cfg(feature = "lanes")]

#[path = "../../codegen/tests/common/mod.rs"]
mod common;
mod pocl;

use std::collections::BTreeSet;
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::time::Instant;

use common::{
    dims_used, elem_of, hash, lanes_range, make_args, run_jit, ulps32, ulps64, Arg, Elem, Rng,
};
use lanes_codegen::{Jit, KernelCode, ParamKind};
use lanes_frontend::hir::Unit;
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_vectorizer::interp::{self, ArgValue, NdRange};
use lanes_vectorizer::ir::{Function, InstKind, MathFn, Ty, WorkItem};

use opencl3::kernel::{set_kernel_arg, Kernel};
use opencl3::memory::{Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::program::Program;
use opencl3::types::{cl_mem, CL_BLOCKING};
use pocl::{pocl_lock, Pocl};

/// Kernels that need at least this many compared to pass.
const MIN_COMPARED: usize = 30;

/// Kernels whose result depends on the order of the work-items for the
/// inputs this test builds and which the interpreter-against-itself check
/// misses: (kernel, why). The check runs the whole range as one
/// work-group with race tracking, so it misses only races between
/// work-groups of kernels that look at their work-group. Empty: no corpus
/// kernel shows such a race on these inputs (`floyd_warshall_step`,
/// `segment_prefix_sum` and `scatter` get race-free inputs from the
/// codegen tests' `profile_of`).
const KNOWN_RACES: &[(&str, &str)] = &[];

/// Known mismatches between lanes and PoCL, reported to the lead and not
/// yet resolved: (kernel, where the report is). Such a kernel is still run
/// and its mismatch printed, but it does not fail the test.
const KNOWN_MISMATCHES: &[(&str, &str)] = &[(
    "packed3_scale",
    "vload_half3/vstore_half3 on PoCL 3.1 give NaN and zeros where the interpreter and lanes agree; unexamined",
)];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.cl` file of `tests/kernels/valid` and `examples`, sorted.
fn corpus_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["tests/kernels/valid", "examples"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "cl"))
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

// ---------------------------------------------------------------------------
// PoCL

impl Pocl {
    /// Runs kernel `name` of `program` on `args` over `range`; returns the
    /// bytes of every buffer argument (None for the others).
    fn run(
        &self,
        program: &Program,
        name: &str,
        k: &KernelCode,
        hir: &Unit,
        args: &[Arg],
        range: &NdRange,
    ) -> Result<Vec<Option<Vec<u8>>>, String> {
        let kernel = Kernel::create(program, name).map_err(|e| format!("kernel {name}: {e}"))?;
        let mut buffers: Vec<Option<Buffer<u8>>> = Vec::new();
        for (i, (p, a)) in k.params.iter().zip(args).enumerate() {
            let i = i as u32;
            let set = |size: usize, ptr: *const c_void| {
                // SAFETY: `ptr` points to `size` readable bytes; the kernel's
                // parameter `i` has this size (checked by the runtime).
                unsafe { set_kernel_arg(kernel.get(), i, size, ptr) }
                    .map_err(|e| format!("argument {i} (`{}`): error {e}", p.name))
            };
            match a {
                Arg::Buffer(b, _) => {
                    let mut host = b.clone();
                    // SAFETY: the host pointer covers `len` bytes, copied now.
                    let buf = unsafe {
                        Buffer::<u8>::create(
                            &self.context,
                            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            host.len,
                            host.as_mut_ptr() as *mut c_void,
                        )
                    }
                    .map_err(|e| format!("buffer: {e}"))?;
                    let mem: cl_mem = buf.get();
                    set(std::mem::size_of::<cl_mem>(), &mem as *const cl_mem as _)?;
                    buffers.push(Some(buf));
                }
                // A `__local` pointer: its size and no value, as OpenCL
                // specifies for clSetKernelArg.
                Arg::Local(bytes) => {
                    set(*bytes as usize, std::ptr::null())?;
                    buffers.push(None);
                }
                _ => {
                    let mut bytes = value_bytes(a);
                    // Padded to the source type's size: a 3-component vector
                    // is the size of a 4-component one, structs end with
                    // their padding.
                    let size = p.ty.as_ref().and_then(|t| hir.size_of(t)).unwrap_or(0);
                    if bytes.len() < size as usize {
                        bytes.resize(size as usize, 0);
                    }
                    set(bytes.len(), bytes.as_ptr() as _)?;
                    buffers.push(None);
                }
            }
        }
        let global = range.global_size.map(|x| x as usize);
        let local = range.local_size.map(|x| x as usize);
        let offset = range.global_offset.map(|x| x as usize);
        // SAFETY: every argument is set; the size arrays have 3 entries.
        unsafe {
            self.queue
                .enqueue_nd_range_kernel(
                    kernel.get(),
                    range.work_dim,
                    offset.as_ptr(),
                    global.as_ptr(),
                    local.as_ptr(),
                    &[],
                )
                .map_err(|e| format!("enqueue: {e}"))?;
        }
        self.queue.finish().map_err(|e| format!("finish: {e}"))?;
        let mut out = Vec::new();
        for b in &buffers {
            let Some(b) = b else {
                out.push(None);
                continue;
            };
            let n = b.size().map_err(|e| format!("{e}"))?;
            let mut bytes = vec![0u8; n];
            // SAFETY: blocking read of the whole buffer into a slice of its size.
            unsafe {
                self.queue
                    .enqueue_read_buffer(b, CL_BLOCKING, 0, &mut bytes, &[])
                    .map_err(|e| format!("read: {e}"))?;
            }
            out.push(Some(bytes));
        }
        Ok(out)
    }
}

/// The bytes of a by-value argument (scalar, vector components, struct
/// fields at their offsets), as `LaunchFn` and `clSetKernelArg` take them.
fn value_bytes(a: &Arg) -> Vec<u8> {
    match a {
        Arg::Buffer(..) | Arg::Local(_) => Vec::new(),
        Arg::Scalar(t, i, f) => scalar_bytes(*t, *i, *f),
        Arg::Vector(t, cs) => cs
            .iter()
            .flat_map(|&(i, f)| scalar_bytes(*t, i, f))
            .collect(),
        Arg::Struct(fs) => {
            let mut out = Vec::new();
            for &(o, t, i, f) in fs {
                let b = scalar_bytes(t, i, f);
                let o = o as usize;
                if out.len() < o + b.len() {
                    out.resize(o + b.len(), 0);
                }
                out[o..o + b.len()].copy_from_slice(&b);
            }
            out
        }
    }
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

// ---------------------------------------------------------------------------
// What a kernel uses

#[derive(Default)]
struct Uses {
    sub_groups: bool,
    /// Local ids, group ids, local sizes: the result may depend on the
    /// local size.
    local_shape: bool,
    /// Float math functions whose results are not correctly rounded.
    inexact_math: BTreeSet<&'static str>,
}

fn uses_of(f: &Function) -> Uses {
    let mut u = Uses::default();
    for inst in &f.insts {
        match &inst.kind {
            InstKind::Horizontal { .. } => u.sub_groups = true,
            InstKind::WorkItem { query, .. } => match query {
                WorkItem::SubGroupSize
                | WorkItem::SubGroupLocalId
                | WorkItem::NumSubGroups
                | WorkItem::SubGroupId
                | WorkItem::MaxSubGroupSize => u.sub_groups = true,
                WorkItem::LocalId
                | WorkItem::GroupId
                | WorkItem::LocalSize
                | WorkItem::NumGroups => u.local_shape = true,
                _ => {}
            },
            InstKind::Math { func, .. } if ulp_bound(*func) > 0 => {
                u.inexact_math.insert(func.name());
            }
            _ => {}
        }
    }
    u
}

/// The OpenCL C full-profile ULP bound of a single-precision math function
/// (OpenCL C 2.0 §7.4, table 7.1); 0 for correctly rounded or exact ones
/// (and integer functions).
fn ulp_bound(f: MathFn) -> u64 {
    use MathFn::*;
    match f {
        Fabs | Floor | Ceil | Round | Trunc | Rint | Copysign | Fmod | Fdim | Fmin | Fmax
        | Ldexp | Fma => 0,
        Sqrt => 3,
        Rsqrt | Cbrt => 2,
        Exp | Exp2 | Exp10 | Expm1 | Log | Log2 | Log10 | Log1p => 3,
        Sin | Cos | Sinpi | Cospi | Atan => 5,
        Tan | Asin | Acos | Sinh | Cosh | Tanh | Asinh | Acosh | Atanh | Hypot => 6,
        Atan2 => 6,
        Pow | Powr | Pown | Rootn => 16,
        _ => 0,
    }
}

// ---------------------------------------------------------------------------
// Comparing

/// How close two floats must be: within `ulps`, or within `rel` relative
/// to the largest magnitude of the two values and of the whole buffer.
/// The buffer's magnitude matters where a function's error (within its
/// bound) goes into a sum that cancels: the error is then bounded by the
/// terms, not by the result (nbody's accelerations, `dot(...) + length(...)`
/// in float4_swizzles). `rel` is for `float`; `double` buffers use it scaled
/// by the ratio of the two epsilons (1e-5 becomes 1.9e-14).
#[derive(Clone, Copy, Debug)]
struct Tolerance {
    ulps: u64,
    rel: f64,
}

impl Tolerance {
    fn of(u: &Uses) -> Tolerance {
        if u.inexact_math.is_empty() {
            // Only IEEE +, -, *, /, conversions and correctly rounded
            // functions, no contraction: the same operations in the same
            // order give the same bits (4 ULP as the codegen tests allow).
            Tolerance { ulps: 4, rel: 0.0 }
        } else {
            // The largest single-precision bound of OpenCL C's table 7.1
            // among the functions lanes supports (pow, pown, powr, rootn).
            Tolerance {
                ulps: 16,
                rel: 1e-5,
            }
        }
    }
}

/// Elements of a buffer read as f64 (for floats) or raw integers.
fn floats(e: Elem, b: &[u8]) -> Vec<f64> {
    match e {
        Elem::F32 => b
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()) as f64)
            .collect(),
        Elem::F64 => b
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
            .collect(),
        _ => Vec::new(),
    }
}

/// The differing elements of two buffers (`got` = lanes, `want` = PoCL):
/// the count and the first few, described.
fn compare(e: Elem, got: &[u8], want: &[u8], tol: Tolerance) -> Option<(usize, Vec<String>)> {
    const SHOW: usize = 6;
    if got.len() != want.len() {
        return Some((1, vec![format!("length {} vs {}", got.len(), want.len())]));
    }
    let mut count = 0;
    let mut shown = Vec::new();
    let mut note = |s: String| {
        count += 1;
        if shown.len() < SHOW {
            shown.push(s);
        }
    };
    match e {
        Elem::F32 | Elem::F64 => {
            let (g, w) = (floats(e, got), floats(e, want));
            let scale = w
                .iter()
                .filter(|x| x.is_finite())
                .fold(0.0f64, |m, x| m.max(x.abs()));
            for (i, (&a, &b)) in g.iter().zip(&w).enumerate() {
                if (a.is_nan() && b.is_nan()) || a == b {
                    continue;
                }
                let ulps = if e == Elem::F32 {
                    ulps32(a as f32, b as f32)
                } else {
                    ulps64(a, b)
                };
                let diff = (a - b).abs();
                let rel = if e == Elem::F32 {
                    tol.rel
                } else {
                    tol.rel * (f64::EPSILON / f32::EPSILON as f64)
                };
                let ok = ulps <= tol.ulps
                    || (diff.is_finite() && diff <= rel * a.abs().max(b.abs()).max(scale));
                if !ok {
                    note(format!(
                        "[{i}]: lanes {a:e}, PoCL {b:e} ({ulps} ULP, rel {:.2e})",
                        diff / a.abs().max(b.abs())
                    ));
                }
            }
        }
        // `half` storage is compared bit for bit, as 16-bit integers.
        Elem::Int(_) | Elem::Half => {
            let n = match e {
                Elem::Int(n) => n as usize,
                _ => 2,
            };
            for (i, (g, w)) in got.chunks_exact(n).zip(want.chunks_exact(n)).enumerate() {
                if g != w {
                    let v = |c: &[u8]| {
                        let mut b = [0u8; 8];
                        b[..n].copy_from_slice(c);
                        u64::from_le_bytes(b)
                    };
                    note(format!("[{i}]: lanes {:#x}, PoCL {:#x}", v(g), v(w)));
                }
            }
        }
        Elem::Bytes => {
            for (i, (g, w)) in got.iter().zip(want).enumerate() {
                if g != w {
                    note(format!("byte [{i}]: lanes {g}, PoCL {w}"));
                }
            }
        }
    }
    (count > 0).then_some((count, shown))
}

// ---------------------------------------------------------------------------
// Inputs and launches

/// The launch shape of a kernel of `dims` dimensions at width `w`: global
/// and local sizes that are not multiples of W (W + 3 is not a multiple of
/// W for W >= 4); with `non_uniform`, global sizes that are not multiples
/// of the local size either (OpenCL 2.0 non-uniform work-groups), else
/// multiples of it.
fn launch(dims: u32, w: u64, non_uniform: bool) -> NdRange {
    let r = |g: [u64; 3], l: [u64; 3]| NdRange {
        work_dim: dims,
        global_offset: [0; 3],
        global_size: g,
        local_size: l,
    };
    let l = w + 3;
    match (dims, non_uniform) {
        (1, true) => r([12 * w + 5, 1, 1], [2 * w + 3, 1, 1]),
        (1, false) => r([9 * l, 1, 1], [l, 1, 1]),
        (2, true) => r([2 * w + 5, 9, 1], [l, 2, 1]),
        (2, false) => r([3 * l, 6, 1], [l, 2, 1]),
        (_, true) => r([w + 5, 5, 3], [l, 2, 2]),
        (_, false) => r([2 * l, 4, 3], [l, 2, 1]),
    }
}

/// The same range with other local sizes (for the race check).
fn other_local(r: &NdRange) -> NdRange {
    let mut o = *r;
    o.local_size[0] = r.global_size[0];
    if r.work_dim > 1 {
        o.local_size[1] = 1;
    }
    o
}

/// A "moderate size" for integer scalar arguments: a little less than the
/// global size in dimension 0, so that `if (i < n)` guards cut some
/// work-items off.
fn moderate(r: &NdRange) -> u64 {
    r.global_size[0].saturating_sub(if r.work_dim == 1 { 6 } else { 2 })
}

/// Candidate inputs, in order of preference: integer scalars (and integer
/// components and fields of by-value vectors and structs) all the
/// moderate size, then all 48 (a 48 x 48 matrix fits the buffers), then
/// all 16, then the codegen tests' small random ones;
/// float scalars 1.5. Buffers as the codegen tests fill them.
fn candidates(k: &KernelCode, r: &NdRange) -> Vec<(String, Vec<Arg>)> {
    let mut out = Vec::new();
    for (ci, int) in [Some(moderate(r)), Some(48), Some(16), None]
        .into_iter()
        .enumerate()
    {
        let mut rng = Rng::new(hash(&k.name) ^ (ci as u64 * 7919));
        let mut args = make_args(k, &mut rng);
        // Every by-value number: scalars, vector components, struct fields.
        let set = |t: Ty, i: &mut u64, f: &mut f64| match t {
            Ty::F32 | Ty::F64 => *f = 1.5,
            Ty::I1 => {}
            _ => {
                if let Some(v) = int {
                    *i = v
                }
            }
        };
        for a in &mut args {
            match a {
                Arg::Buffer(..) | Arg::Local(_) => {}
                Arg::Scalar(t, i, f) => set(*t, i, f),
                Arg::Vector(t, cs) => cs.iter_mut().for_each(|(i, f)| set(*t, i, f)),
                Arg::Struct(fs) => fs.iter_mut().for_each(|(_, t, i, f)| set(*t, i, f)),
            }
        }
        let what = match int {
            Some(v) => format!("integer scalars = {v}"),
            None => "small random integer scalars".into(),
        };
        out.push((what, args));
    }
    out
}

fn describe_args(k: &KernelCode, args: &[Arg]) -> String {
    let value = |t: Ty, i: u64, f: f64| {
        if t.is_float() {
            format!("{f}")
        } else {
            format!("{i}")
        }
    };
    let list = |vs: Vec<String>| format!("({})", vs.join(", "));
    k.params
        .iter()
        .zip(args)
        .map(|(p, a)| {
            let v = match a {
                Arg::Buffer(b, _) => format!("[{} bytes]", b.len),
                Arg::Local(bytes) => format!("local:{bytes}"),
                Arg::Scalar(t, i, f) => value(*t, *i, *f),
                Arg::Vector(t, cs) => list(cs.iter().map(|&(i, f)| value(*t, i, f)).collect()),
                Arg::Struct(fs) => list(fs.iter().map(|&(_, t, i, f)| value(t, i, f)).collect()),
            };
            format!("{} = {v}", p.name)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn run_interp(
    f: &Function,
    k: &KernelCode,
    args: &[Arg],
    range: &NdRange,
    sub_group_width: u32,
    check_all_races: bool,
) -> Result<Vec<ArgValue>, String> {
    let mut iargs = common::interp_args(k, args);
    let opts = interp::Options {
        sub_group_width,
        step_limit: 20_000_000,
        check_all_races,
    };
    interp::run_with(f, range, &mut iargs, &opts).map_err(|e| e.to_string())?;
    Ok(iargs)
}

/// The buffers of an interpreter run, per source parameter.
fn interp_buffers(k: &KernelCode, vals: &[ArgValue]) -> Vec<Option<Vec<u8>>> {
    k.params
        .iter()
        .map(|p| match vals.get(p.ir_params[0] as usize) {
            Some(ArgValue::Buffer(b)) if matches!(p.kind, ParamKind::Pointer { .. }) => {
                Some(b.clone())
            }
            _ => None,
        })
        .collect()
}

// ---------------------------------------------------------------------------
// The test

struct Report {
    compared: Vec<String>,
    skipped: Vec<String>,
    mismatches: Vec<String>,
    known: Vec<String>,
    notes: Vec<String>,
}

enum Verdict {
    /// Equal; the inputs used and how many elements the kernel wrote.
    Compared(String),
    Skipped(String),
    Mismatch(String),
}

/// The first candidate input the interpreter accepts, twice with the same
/// result (see [`check_kernel`]): its description, the arguments and the
/// interpreter's result. Err lists why each candidate was rejected.
fn choose_inputs(
    scalar: &Function,
    kc: &KernelCode,
    range: &NdRange,
    w: u32,
    uses: &Uses,
) -> Result<(String, Vec<Arg>, Vec<ArgValue>), String> {
    let mut rejected = Vec::new();
    for (what, args) in candidates(kc, range) {
        let first = match run_interp(scalar, kc, &args, range, w, false) {
            Ok(v) => v,
            Err(e) => {
                rejected.push(format!("{what}: {e}"));
                continue;
            }
        };
        // The same launch with another interleaving of the work-items (one
        // work-item at a time instead of W in lock step) and, when the
        // kernel does not look at its work-group, the whole range in one
        // work-group with every access tracked: a different result, or two
        // work-items writing one element, means the inputs make work-items
        // race (the interpreter lets the last writer win; PoCL's threads
        // need not).
        let alt = if uses.local_shape {
            *range
        } else {
            other_local(range)
        };
        match run_interp(scalar, kc, &args, &alt, 1, !uses.local_shape) {
            Ok(second) if interp_buffers(kc, &second) != interp_buffers(kc, &first) => {
                rejected.push(format!(
                    "{what}: output depends on the order of the work-items"
                ));
            }
            Ok(_) => return Ok((what, args, first)),
            Err(e) => rejected.push(format!("{what} (second order): {e}")),
        }
    }
    Err(rejected.join("; "))
}

/// Buffers after a launch, one entry per source parameter (None for
/// scalars): (lanes, PoCL).
type Outputs = (Vec<Option<Vec<u8>>>, Vec<Option<Vec<u8>>>);

/// Runs the kernel on PoCL and through lanes on copies of `args`.
fn run_both(
    pocl: &Pocl,
    program: &Program,
    jit: &Jit,
    kc: &KernelCode,
    hir: &Unit,
    args: &[Arg],
    range: &NdRange,
) -> Result<Outputs, String> {
    let pocl_out = pocl
        .run(program, &kc.name, kc, hir, args, range)
        .map_err(|e| format!("PoCL run failed: {e}"))?;
    let mut lanes_args = args.to_vec();
    let rc = run_jit(jit, kc, &mut lanes_args, &lanes_range(range));
    if rc != 0 {
        return Err(format!("lanes launch returned {rc}"));
    }
    let lanes_out = lanes_args
        .iter()
        .map(|a| match a {
            Arg::Buffer(b, _) => Some(b.bytes().to_vec()),
            _ => None,
        })
        .collect();
    Ok((lanes_out, pocl_out))
}

/// The buffers where lanes and PoCL differ, described (with which of the two
/// the interpreter's result, when given, agrees).
fn diff_outputs(
    kc: &KernelCode,
    (lanes, pocl): &Outputs,
    interp: Option<&[Option<Vec<u8>>]>,
    tol: Tolerance,
) -> Vec<String> {
    let mut diffs = Vec::new();
    for (pi, p) in kc.params.iter().enumerate() {
        let (Some(got), Some(want)) = (&lanes[pi], &pocl[pi]) else {
            continue;
        };
        let elem = elem_of(p.ty.as_ref());
        let Some((n, shown)) = compare(elem, got, want, tol) else {
            continue;
        };
        let side = match interp.and_then(|i| i[pi].as_ref()) {
            Some(iv) => format!(
                " (interpreter agrees with lanes: {}, with PoCL: {})",
                compare(elem, got, iv, tol).is_none(),
                compare(elem, want, iv, tol).is_none()
            ),
            None => String::new(),
        };
        diffs.push(format!(
            "buffer `{}` ({elem:?}): {n} elements differ{side}: {}",
            p.name,
            shown.join("; ")
        ));
    }
    diffs
}

/// How many elements the kernel wrote (differ from the input) and the
/// largest difference between lanes and PoCL in ULP, over all buffers.
fn coverage(kc: &KernelCode, args: &[Arg], (lanes, pocl): &Outputs) -> (usize, u64) {
    let (mut written, mut max_ulps) = (0, 0);
    for (pi, p) in kc.params.iter().enumerate() {
        let (Arg::Buffer(input, _), Some(got), Some(want)) = (&args[pi], &lanes[pi], &pocl[pi])
        else {
            continue;
        };
        let elem = elem_of(p.ty.as_ref());
        let n = match elem {
            Elem::Int(n) => n as usize,
            Elem::Half => 2,
            Elem::F64 => 8,
            Elem::F32 => 4,
            Elem::Bytes => 1,
        };
        written += input
            .bytes()
            .chunks(n)
            .zip(want.chunks(n))
            .filter(|(x, y)| x != y)
            .count();
        let (g, w) = (floats(elem, got), floats(elem, want));
        for (&a, &b) in g.iter().zip(&w) {
            if a.is_nan() || b.is_nan() {
                continue;
            }
            let u = match elem {
                Elem::F32 => ulps32(a as f32, b as f32),
                _ => ulps64(a, b),
            };
            max_ulps = max_ulps.max(u);
        }
    }
    (written, max_ulps)
}

/// One kernel: inputs the interpreter accepts, PoCL, lanes, comparison.
fn check_kernel(
    pocl: &Pocl,
    program: &Program,
    jit: &Jit,
    scalar: &Function,
    kc: &KernelCode,
    hir: &Unit,
    w: u32,
) -> Verdict {
    let uses = uses_of(scalar);
    if let Some((_, why)) = KNOWN_RACES.iter().find(|(n, _)| *n == kc.name) {
        return Verdict::Skipped(format!("work-item race: {why}"));
    }
    let range = launch(dims_used(kc), w as u64, pocl.non_uniform);
    let (what, args, reference) = match choose_inputs(scalar, kc, &range, w, &uses) {
        Ok(c) => c,
        Err(why) => return Verdict::Skipped(format!("the interpreter rejects every input: {why}")),
    };
    let outs = match run_both(pocl, program, jit, kc, hir, &args, &range) {
        Ok(o) => o,
        Err(e) => return Verdict::Mismatch(e),
    };
    let tol = Tolerance::of(&uses);
    let interp_out = interp_buffers(kc, &reference);
    let diffs = diff_outputs(kc, &outs, Some(&interp_out), tol);
    if diffs.is_empty() {
        let (written, max_ulps) = coverage(kc, &args, &outs);
        Verdict::Compared(format!(
            "{range:?}, {what}: {written} elements written, floats differ by at most {max_ulps} ULP"
        ))
    } else {
        Verdict::Mismatch(format!(
            "{range:?}, {what}: {}\n      tolerance {tol:?}, math {:?}\n      {}",
            describe_args(kc, &args),
            uses.inexact_math,
            diffs.join("\n      ")
        ))
    }
}

/// The file checked by lanes as PoCL builds it: `FP_CONTRACT OFF` in
/// front (see the top of the file).
fn check_uncontracted(path: &Path, pp: &PreprocessOptions) -> lanes_frontend::unit::CheckedUnit {
    let src = lanes_frontend::source::read_source(path).unwrap().text;
    let text = format!("#pragma OPENCL FP_CONTRACT OFF\n{src}");
    let name = path.display().to_string();
    lanes_frontend::unit::check_text(&name, Some(path.to_path_buf()), &text, pp, &RealFs)
}

fn run_corpus(pocl: &Pocl) -> Report {
    let spec = lanes_codegen::target_spec("host").unwrap();
    let w = spec.width;
    let opts = lanes_codegen::Options { opt_level: 2 };
    let pp = PreprocessOptions {
        width: w,
        ..Default::default()
    };
    let mut rep = Report {
        compared: Vec::new(),
        skipped: Vec::new(),
        mismatches: Vec::new(),
        known: Vec::new(),
        notes: Vec::new(),
    };
    for path in corpus_files() {
        let file = path
            .strip_prefix(root())
            .unwrap_or(&path)
            .display()
            .to_string();
        let unit = check_uncontracted(&path, &pp);
        assert!(!unit.has_errors(), "{file}: {:?}", unit.diagnostics);
        let hir = &unit.hir;
        // The whole unit, else kernel by kernel (a unit with one kernel
        // lanes refuses still has others to compare).
        let mut jits: Vec<Jit> = Vec::new();
        let mut refused: Vec<(String, String)> = Vec::new();
        match lanes_codegen::compile_unit(hir, &spec, &opts) {
            Ok(c) => jits.push(Jit::new(c).expect("JIT")),
            Err(_) => {
                for kid in hir.kernels() {
                    let name = hir.function(kid).name.to_string();
                    let c = lanes_codegen::kernel_code(hir, kid, w)
                        .and_then(|kc| lanes_codegen::compile_kernels(vec![kc], &spec, &opts));
                    match c {
                        Ok(c) => jits.push(Jit::new(c).expect("JIT")),
                        Err(d) => refused.push((name, d[0].message.clone())),
                    }
                }
            }
        }
        for (name, why) in refused {
            rep.skipped
                .push(format!("{file}:{name}: lanes does not compile it: {why}"));
        }
        let mut program: Option<Result<Program, String>> = None;
        for jit in &jits {
            for kc in jit.compiled().kernels() {
                let what = format!("{file}:{}", kc.name);
                let kid = hir.function_by_name(&kc.name).unwrap();
                let scalar = lanes_vectorizer::report::analyze_kernel(hir, kid, w)
                    .expect("lowered")
                    .func;
                if uses_of(&scalar).sub_groups {
                    rep.skipped.push(format!(
                        "{what}: uses sub-groups (PoCL's CPU device has none)"
                    ));
                    continue;
                }
                let program = program.get_or_insert_with(|| {
                    let src = lanes_frontend::source::read_source(&path).unwrap().text;
                    let (p, note) = pocl.build(&src, path.parent().unwrap())?;
                    if let Some(n) = note {
                        rep.notes.push(format!("{file}: {n}"));
                    }
                    Ok(p)
                });
                // Every corpus file is valid OpenCL C for clang
                // (tests/kernels/check_clang.py): a file PoCL cannot build
                // hits a PoCL limitation, not a lanes bug.
                let program = match program {
                    Ok(p) => p,
                    Err(e) => {
                        let first = e.lines().find(|l| l.contains("error")).unwrap_or(e);
                        rep.skipped.push(format!("{what}: {first}"));
                        continue;
                    }
                };
                let t = Instant::now();
                let v = check_kernel(pocl, program, jit, &scalar, kc, hir, w);
                if std::env::var_os("LANES_TEST_VERBOSE").is_some() {
                    eprintln!("{what}: {:.2} s", t.elapsed().as_secs_f64());
                }
                match v {
                    Verdict::Compared(how) => {
                        if std::env::var_os("LANES_TEST_VERBOSE").is_some() {
                            eprintln!("  {how}");
                        }
                        rep.compared.push(what)
                    }
                    Verdict::Skipped(why) => rep.skipped.push(format!("{what}: {why}")),
                    Verdict::Mismatch(m) => {
                        let m = format!("{what}: {m}");
                        match KNOWN_MISMATCHES.iter().find(|(n, _)| *n == kc.name) {
                            Some((_, r)) => rep.known.push(format!("{m}\n      (known: {r})")),
                            None => rep.mismatches.push(m),
                        }
                    }
                }
            }
        }
    }
    rep
}

#[test]
fn lanes_matches_pocl() {
    let _lock = pocl_lock();
    let pocl = match Pocl::new() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("SKIPPED: PoCL not available ({e})");
            return;
        }
    };
    let t = Instant::now();
    let rep = run_corpus(&pocl);
    eprintln!(
        "PoCL oracle: {} ({:.1} s)\n{} kernels compared: {}\n{} skipped:\n  {}",
        pocl.description,
        t.elapsed().as_secs_f64(),
        rep.compared.len(),
        rep.compared.join(", "),
        rep.skipped.len(),
        rep.skipped.join("\n  ")
    );
    if !rep.notes.is_empty() {
        eprintln!("notes:\n  {}", rep.notes.join("\n  "));
    }
    if !rep.known.is_empty() {
        eprintln!(
            "{} known mismatches (not failing):\n  {}",
            rep.known.len(),
            rep.known.join("\n  ")
        );
    }
    assert!(
        rep.mismatches.is_empty(),
        "{} kernels differ between lanes and PoCL:\n  {}",
        rep.mismatches.len(),
        rep.mismatches.join("\n  ")
    );
    assert!(
        rep.compared.len() >= MIN_COMPARED,
        "only {} kernels were compared (at least {MIN_COMPARED} expected)",
        rep.compared.len()
    );
}

/// The comparison itself: within the tolerance is equal, one element off is
/// reported with its index, integers must match bit for bit.
#[test]
fn compare_reports_perturbed_elements() {
    let f32s = |v: &[f32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    let exact = Tolerance { ulps: 4, rel: 0.0 };
    let want = [1.0f32, -2.5, 3.25, f32::NAN, 0.0];
    let mut got = want;
    got[1] = f32::from_bits(want[1].to_bits() + 3); // 3 ULP: equal
    got[4] = -0.0;
    assert_eq!(compare(Elem::F32, &f32s(&got), &f32s(&want), exact), None);
    got[2] = f32::from_bits(want[2].to_bits() + 5); // 5 ULP: reported
    let (n, shown) = compare(Elem::F32, &f32s(&got), &f32s(&want), exact).unwrap();
    assert_eq!(n, 1);
    assert!(shown[0].starts_with("[2]:"), "{shown:?}");
    // A relative tolerance admits more ULP, but not a wrong value.
    let loose = Tolerance {
        ulps: 16,
        rel: 1e-5,
    };
    assert_eq!(compare(Elem::F32, &f32s(&got), &f32s(&want), loose), None);
    got[0] = 1.001;
    let (n, shown) = compare(Elem::F32, &f32s(&got), &f32s(&want), loose).unwrap();
    assert_eq!((n, shown[0].starts_with("[0]:")), (1, true), "{shown:?}");
    // Integers: one bit off in one element.
    let ints: Vec<u8> = (0..64u32).flat_map(|x| x.to_le_bytes()).collect();
    let mut bad = ints.clone();
    bad[4 * 17] ^= 1;
    let (n, shown) = compare(Elem::Int(4), &bad, &ints, loose).unwrap();
    assert_eq!((n, shown[0].starts_with("[17]:")), (1, true), "{shown:?}");
    assert_eq!(compare(Elem::Int(4), &ints, &ints, exact), None);
}

/// End to end: `examples/saxpy.cl` on lanes and PoCL agrees; one element of
/// lanes' output perturbed is reported, at its index.
#[test]
fn perturbed_lanes_output_is_reported() {
    let _lock = pocl_lock();
    let pocl = match Pocl::new() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("SKIPPED: PoCL not available ({e})");
            return;
        }
    };
    let spec = lanes_codegen::target_spec("host").unwrap();
    let w = spec.width;
    let path = root().join("examples/saxpy.cl");
    let pp = PreprocessOptions {
        width: w,
        ..Default::default()
    };
    let unit = check_uncontracted(&path, &pp);
    let hir = &unit.hir;
    let compiled =
        lanes_codegen::compile_unit(hir, &spec, &lanes_codegen::Options { opt_level: 2 })
            .expect("saxpy compiles");
    let jit = Jit::new(compiled).unwrap();
    let kc = jit.compiled().kernels()[0].clone();
    let kid = hir.function_by_name(&kc.name).unwrap();
    let scalar = lanes_vectorizer::report::analyze_kernel(hir, kid, w)
        .unwrap()
        .func;
    let uses = uses_of(&scalar);
    let src = lanes_frontend::source::read_source(&path).unwrap().text;
    let (program, _) = pocl.build(&src, path.parent().unwrap()).unwrap();
    let range = launch(dims_used(&kc), w as u64, pocl.non_uniform);
    let (_, args, _) = choose_inputs(&scalar, &kc, &range, w, &uses).unwrap();
    let mut outs = run_both(&pocl, &program, &jit, &kc, hir, &args, &range).unwrap();
    let tol = Tolerance::of(&uses);
    assert_eq!(diff_outputs(&kc, &outs, None, tol), Vec::<String>::new());
    let (written, _) = coverage(&kc, &args, &outs);
    assert!(written > 50, "saxpy wrote only {written} elements");
    // The output buffer: the last pointer parameter; its element 37 gets a
    // little (0.1 %) larger.
    let y = kc
        .params
        .iter()
        .rposition(|p| matches!(p.kind, ParamKind::Pointer { .. }))
        .unwrap();
    let buf = outs.0[y].as_mut().unwrap();
    let x = f32::from_le_bytes(buf[4 * 37..4 * 38].try_into().unwrap());
    let bumped = if x == 0.0 { 1e-3 } else { x * 1.001 };
    buf[4 * 37..4 * 38].copy_from_slice(&bumped.to_le_bytes());
    let diffs = diff_outputs(&kc, &outs, None, tol);
    assert_eq!(diffs.len(), 1, "{diffs:?}");
    assert!(
        diffs[0].contains("1 elements differ") && diffs[0].contains("[37]:"),
        "{diffs:?}"
    );
}
