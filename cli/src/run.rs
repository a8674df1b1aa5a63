//! `lanes run`: compile a kernel in memory, make its buffers, run the
//! NDRange on every core, optionally verify against the scalar interpreter
//! and time repeated runs; or (`--interpret`) run the scalar interpreter
//! alone, for kernels the code generator refuses.

use std::ffi::c_void;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use clap::Args;
use lanes_frontend::ast::AddressSpace;
use lanes_frontend::hir;
use lanes_frontend::types::{Scalar, Type};
use lanes_vectorizer::interp::{self, ArgValue, NdRange};
use lanes_vectorizer::ir::{Const, Ty};

use crate::build::{compile, load_with, target};
use crate::check::MacroArgs;

#[derive(Args)]
pub struct RunArgs {
    /// The OpenCL C file.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// The kernel to run (may be omitted when the file has one).
    #[arg(long, value_name = "NAME")]
    kernel: Option<String>,
    /// Global size, one to three dimensions.
    #[arg(long, value_name = "X[,Y[,Z]]")]
    global: String,
    /// Work-group size (default: chosen, a multiple of the SIMD width).
    #[arg(long, value_name = "X[,Y[,Z]]")]
    local: Option<String>,
    /// Global offset.
    #[arg(long, value_name = "X[,Y[,Z]]")]
    offset: Option<String>,
    /// A kernel argument: `n=1024`, `v=1,2,3,4` (vectors), or for buffers
    /// `random:N`, `random:N:LO:HI`, `zeros:N`, `fill:N:V`, `iota:N`,
    /// `file:PATH` (N elements of the pointee type), and `local:BYTES` for
    /// `__local` pointers. Buffers not given get one zeroed element per
    /// work-item.
    #[arg(long = "arg", value_name = "NAME=VALUE")]
    args: Vec<String>,
    /// Also run the scalar interpreter on the same inputs and compare;
    /// data races and barrier divergence it finds are errors.
    #[arg(long)]
    verify: bool,
    /// Run only the scalar interpreter (no code generation): also kernels
    /// `lanes build` refuses, with data-race and barrier checks.
    #[arg(long, conflicts_with_all = ["verify", "repeat", "threads"])]
    interpret: bool,
    /// Run N times and report the median time.
    #[arg(long, value_name = "N", default_value = "1")]
    repeat: u32,
    /// SIMD target (see `lanes targets`; default: `target` of the nearest
    /// `lanes.toml`, else host).
    #[arg(long)]
    target: Option<String>,
    /// Threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Seed of `random:` buffers.
    #[arg(long, default_value = "1")]
    seed: u64,
    /// How many elements of each written buffer to print.
    #[arg(long, value_name = "N", default_value = "8")]
    print: usize,
    /// Save every buffer argument into DIR: `NAME.in.bin` as the kernel
    /// received it, `NAME.bin` after the run (raw little-endian elements),
    /// and `args.json` describing every argument, so the same launch can be
    /// replayed elsewhere with `--arg NAME=file:DIR/NAME.in.bin`.
    #[arg(long, value_name = "DIR")]
    save: Option<PathBuf>,
    #[command(flatten)]
    macros: MacroArgs,
}

/// What one element of a buffer is.
#[derive(Clone, Copy, Debug)]
struct Elem {
    scalar: Scalar,
    /// Components (vector pointees); for structs the byte count of UChar.
    count: usize,
}

impl Elem {
    fn bytes(self) -> usize {
        self.scalar.size() as usize * self.count
    }
}

/// A zeroed, 64-byte aligned allocation (packed vector loads like it).
struct Buffer {
    ptr: *mut u8,
    len: usize,
    layout: std::alloc::Layout,
}

impl Buffer {
    fn new(len: usize) -> Result<Buffer, String> {
        let layout = std::alloc::Layout::from_size_align(len.max(1), 64)
            .map_err(|e| format!("buffer of {len} bytes: {e}"))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(format!("out of memory allocating {len} bytes"));
        }
        Ok(Buffer { ptr, len, layout })
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: ptr is valid for len bytes for the buffer's lifetime.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and we hold the only reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `new`.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

enum Arg {
    Buffer {
        elem: Elem,
        buf: Buffer,
        /// The address, where the launcher's argument slot points.
        addr: Box<*mut u8>,
        written: bool,
    },
    Value(Vec<u8>),
    /// A `__local` pointer: bytes of `__local` memory per work-group.
    Local(u64),
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*: deterministic, good enough for test data.
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn parse_dims(s: &str, what: &str) -> Result<Vec<u64>, String> {
    let v: Result<Vec<u64>, _> = s.split(',').map(|x| x.trim().parse::<u64>()).collect();
    match v {
        Ok(v) if (1..=3).contains(&v.len()) => Ok(v),
        _ => Err(format!(
            "--{what} `{s}`: expected one to three comma-separated sizes"
        )),
    }
}

fn store_scalar(s: Scalar, text: &str, out: &mut Vec<u8>) -> Result<(), String> {
    let bad = || format!("`{text}` is not a valid {}", s.name());
    let size = s.size() as usize;
    if s.is_float() {
        let x: f64 = text.trim().parse().map_err(|_| bad())?;
        match s {
            Scalar::Double => out.extend_from_slice(&x.to_le_bytes()),
            Scalar::Float => out.extend_from_slice(&(x as f32).to_le_bytes()),
            Scalar::Half => {
                out.extend_from_slice(&lanes_vectorizer::half::f64_to_half_bits(x).to_le_bytes())
            }
            _ => return Err(format!("{} arguments are not supported", s.name())),
        }
    } else {
        let t = text.trim();
        let v: i128 = if let Some(h) = t.strip_prefix("0x") {
            i128::from_str_radix(h, 16).map_err(|_| bad())?
        } else {
            t.parse().map_err(|_| bad())?
        };
        let bits = size as u32 * 8;
        let (lo, hi) = if s.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        if v < lo || v > hi {
            return Err(format!("{v} is out of range for {}", s.name()));
        }
        out.extend_from_slice(&(v as u128).to_le_bytes()[..size]);
    }
    Ok(())
}

fn elem_of(unit: &hir::Unit, pointee: &Type) -> Elem {
    match pointee {
        Type::Scalar(s) => Elem {
            scalar: *s,
            count: 1,
        },
        // A 3-component vector takes the space of 4 in memory (OpenCL C 6.1.5).
        Type::Vector(s, n) => Elem {
            scalar: *s,
            count: if *n == 3 { 4 } else { *n as usize },
        },
        other => Elem {
            scalar: Scalar::UChar,
            count: unit.size_of(other).unwrap_or(1).max(1) as usize,
        },
    }
}

fn make_buffer(elem: Elem, spec: &str, rng: &mut Rng, default_n: usize) -> Result<Buffer, String> {
    let mut parts = spec.split(':');
    let kind = parts.next().unwrap_or("");
    let count = |p: Option<&str>| -> Result<usize, String> {
        p.ok_or_else(|| format!("`{spec}`: missing element count"))?
            .parse::<usize>()
            .map_err(|_| format!("`{spec}`: bad element count"))
    };
    let n = match kind {
        "file" => 0,
        _ if spec.is_empty() => default_n,
        _ => count(parts.next())?,
    };
    let s = elem.scalar;
    let size = s.size() as usize;
    let fill_value = |out: &mut [u8], i: usize, x: f64| {
        let mut v = Vec::with_capacity(8);
        let text = if s.is_float() {
            format!("{x}")
        } else {
            format!("{}", x.floor() as i128)
        };
        if store_scalar(s, &text, &mut v).is_ok() {
            out[i * size..(i + 1) * size].copy_from_slice(&v);
        }
    };
    match kind {
        "file" => {
            let path = spec.strip_prefix("file:").unwrap_or("");
            let data = std::fs::read(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
            let mut b = Buffer::new(data.len())?;
            b.bytes_mut().copy_from_slice(&data);
            Ok(b)
        }
        "zeros" | "" => Buffer::new(n * elem.bytes()),
        "fill" => {
            let v = parts
                .next()
                .ok_or_else(|| format!("`{spec}`: expected fill:N:VALUE"))?;
            let mut one = Vec::new();
            store_scalar(s, v, &mut one)?;
            let mut b = Buffer::new(n * elem.bytes())?;
            for chunk in b.bytes_mut().chunks_exact_mut(size) {
                chunk.copy_from_slice(&one);
            }
            Ok(b)
        }
        "iota" => {
            let mut b = Buffer::new(n * elem.bytes())?;
            let total = n * elem.count;
            for i in 0..total {
                fill_value(b.bytes_mut(), i, (i / elem.count) as f64);
            }
            Ok(b)
        }
        "random" => {
            let (lo, hi) = match (parts.next(), parts.next()) {
                (Some(a), Some(b)) => (
                    a.parse::<f64>().map_err(|_| format!("`{spec}`: bad LO"))?,
                    b.parse::<f64>().map_err(|_| format!("`{spec}`: bad HI"))?,
                ),
                _ if s.is_float() => (0.0, 1.0),
                _ => (0.0, 100.0),
            };
            let mut b = Buffer::new(n * elem.bytes())?;
            for i in 0..n * elem.count {
                let x = lo + (hi - lo) * rng.unit();
                fill_value(b.bytes_mut(), i, x);
            }
            Ok(b)
        }
        _ => Err(format!(
            "`{spec}`: a buffer is random:N[:LO:HI], zeros:N, fill:N:V, iota:N or file:PATH"
        )),
    }
}

/// The source scalar type of a register type (for parsing field values).
fn scalar_of_ty(t: Ty) -> Scalar {
    match t {
        Ty::I1 => Scalar::UChar,
        Ty::I8 => Scalar::Char,
        Ty::I16 => Scalar::Short,
        Ty::I32 => Scalar::Int,
        Ty::I64 => Scalar::Long,
        Ty::F32 => Scalar::Float,
        _ => Scalar::Double,
    }
}

fn show(elem: Elem, bytes: &[u8], limit: usize) -> String {
    let size = elem.scalar.size() as usize;
    let mut items = Vec::new();
    for (i, c) in bytes.chunks_exact(size).enumerate() {
        if i >= limit * elem.count {
            items.push("…".to_string());
            break;
        }
        items.push(format_scalar(elem.scalar, c));
    }
    format!("[{}]", items.join(", "))
}

fn format_scalar(s: Scalar, c: &[u8]) -> String {
    let mut w = [0u8; 8];
    w[..c.len()].copy_from_slice(c);
    let u = u64::from_le_bytes(w);
    let bits = c.len() as u32 * 8;
    match s {
        Scalar::Float => format!("{}", f32::from_bits(u as u32)),
        Scalar::Half => format!("{}", lanes_vectorizer::half::half_bits_to_f32(u as u16)),
        Scalar::Double => format!("{}", f64::from_bits(u)),
        _ if s.is_signed() => {
            let shift = 64 - bits;
            format!("{}", ((u << shift) as i64) >> shift)
        }
        _ => format!("{u}"),
    }
}

/// Element-wise comparison; floats within a few ULP or a small relative
/// error (the OpenCL math functions are allowed up to 16 ULP), or within
/// a normwise bound: `|got - want| <= NORMWISE * max |want|` over the
/// buffer. A difference of cancelling terms (black_scholes' `put = x e^{-rt}
/// (1 - N(d2)) - s (1 - N(d1))`, of a few ULP in `exp` and `log`) is large
/// next to a small result and small next to the buffer's largest one.
fn mismatches(elem: Elem, got: &[u8], want: &[u8], limit: usize) -> (usize, Vec<String>) {
    let size = elem.scalar.size() as usize;
    let mut n = 0;
    let mut shown = Vec::new();
    let value = |w: &[u8]| match elem.scalar {
        Scalar::Float => f32::from_le_bytes(w.try_into().unwrap_or([0; 4])) as f64,
        Scalar::Double => f64::from_le_bytes(w.try_into().unwrap_or([0; 8])),
        _ => 0.0,
    };
    let largest = want
        .chunks_exact(size)
        .map(|w| value(w).abs())
        .filter(|x| x.is_finite())
        .fold(0.0, f64::max);
    let bound = match elem.scalar {
        Scalar::Float => NORMWISE_F32 * largest,
        _ => NORMWISE_F64 * largest,
    };
    let close = |a: f64, b: f64, ulps: u64| close(a, b, ulps) || (a - b).abs() <= bound;
    for (i, (g, w)) in got
        .chunks_exact(size)
        .zip(want.chunks_exact(size))
        .enumerate()
    {
        let ok = match elem.scalar {
            Scalar::Float => {
                let (a, b) = (
                    f32::from_le_bytes(g.try_into().unwrap_or([0; 4])),
                    f32::from_le_bytes(w.try_into().unwrap_or([0; 4])),
                );
                close(
                    a as f64,
                    b as f64,
                    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs(),
                )
            }
            Scalar::Double => {
                let (a, b) = (
                    f64::from_le_bytes(g.try_into().unwrap_or([0; 8])),
                    f64::from_le_bytes(w.try_into().unwrap_or([0; 8])),
                );
                close(
                    a,
                    b,
                    (a.to_bits() as i64)
                        .wrapping_sub(b.to_bits() as i64)
                        .unsigned_abs(),
                )
            }
            _ => g == w,
        };
        if !ok {
            n += 1;
            if shown.len() < limit {
                shown.push(format!(
                    "element {}: lanes {} vs interpreter {}",
                    i / elem.count,
                    format_scalar(elem.scalar, g),
                    format_scalar(elem.scalar, w)
                ));
            }
        }
    }
    (n, shown)
}

/// The normwise bounds of [`mismatches`], relative to a buffer's largest
/// element: about 80 ULP of it for `float`, as the generated-code
/// benchmark compares with gcc's results.
const NORMWISE_F32: f64 = 1e-5;
const NORMWISE_F64: f64 = 1e-12;

fn close(a: f64, b: f64, ulps: u64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || ulps <= 16 || (a - b).abs() <= 1e-5 * b.abs().max(1e-30)
}

struct SendPtr(*const *mut c_void);
// SAFETY: the argument array and the buffers outlive the scoped threads,
// and work-groups write disjoint data (as OpenCL requires of kernels).
unsafe impl Send for SendPtr {}
unsafe impl Sync for SendPtr {}

pub fn run(args: RunArgs) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn run_inner(args: RunArgs) -> Result<ExitCode, String> {
    // The nearest lanes.toml under the flags, as `lanes build` reads it:
    // the target, defines and include paths.
    let flags = args.macros.command_line(args.target.as_deref());
    let mut settings = match crate::project::settings_for(&args.file, &flags) {
        Ok(s) => s,
        Err(code) => return Ok(code),
    };
    let Some(spec) = target(&settings.target) else {
        return Ok(ExitCode::from(2));
    };
    if !lanes_codegen::host_can_run(&spec) {
        return Err(format!(
            "this machine cannot run target `{}`; try `--target host`",
            spec.name
        ));
    }
    settings.width = spec.width;
    let Some(unit) = load_with(&args.file, &settings, "run") else {
        return Ok(ExitCode::from(1));
    };
    let hir = &unit.hir;
    let kernels = hir.kernels();
    let names: Vec<String> = kernels
        .iter()
        .map(|&k| format!("`{}`", hir.function(k).name))
        .collect();
    let k = match &args.kernel {
        Some(n) => kernels
            .iter()
            .copied()
            .find(|&k| hir.function(k).name == n.as_str())
            .ok_or_else(|| {
                format!(
                    "no kernel named `{n}` in `{}` (kernels: {})",
                    args.file.display(),
                    names.join(", ")
                )
            })?,
        None => match kernels.as_slice() {
            [k] => *k,
            [] => return Err(format!("`{}` has no kernels", args.file.display())),
            _ => {
                return Err(format!(
                    "`{}` has several kernels; choose one with --kernel ({})",
                    args.file.display(),
                    names.join(", ")
                ))
            }
        },
    };
    let func = hir.function(k);
    let name = func.name.to_string();

    // The range; an unspecified local size is chosen here so that the
    // interpreter and the native code run the same work-groups.
    let global = parse_dims(&args.global, "global")?;
    let dims = global.len();
    let mut range = NdRange {
        work_dim: dims as u32,
        global_offset: [0; 3],
        global_size: [1; 3],
        local_size: [1; 3],
    };
    for (d, &g) in global.iter().enumerate() {
        if g == 0 {
            return Err("--global: sizes must be at least 1".into());
        }
        range.global_size[d] = g;
    }
    match &args.local {
        Some(l) => {
            let l = parse_dims(l, "local")?;
            if l.len() != dims || l.contains(&0) {
                return Err(format!(
                    "--local must give {dims} non-zero sizes, like --global"
                ));
            }
            range.local_size[..dims].copy_from_slice(&l);
        }
        None => {
            let w = spec.width as u64;
            range.local_size[0] = global[0].div_ceil(w).min(16) * w;
        }
    }
    if let Some(o) = &args.offset {
        let o = parse_dims(o, "offset")?;
        if o.len() != dims {
            return Err(format!("--offset must give {dims} sizes, like --global"));
        }
        range.global_offset[..dims].copy_from_slice(&o);
    }
    // The compiled entry points refuse ids beyond an `int` (-1); say why here.
    for d in 0..dims {
        let end = range.global_offset[d].checked_add(range.global_size[d]);
        if end.is_none_or(|e| e > lanes_codegen::MAX_ID_END) {
            return Err(format!(
                "dimension {d}: offset + global size is above 2^31; every global id must fit in an int"
            ));
        }
    }
    let items: u64 = global.iter().product();

    // Image and sampler arguments have no `--arg` syntax: say what refuses
    // the kernel (the interpreter, or code generation with L0904) first.
    if func
        .params
        .iter()
        .any(|&p| func.local(p).ty.is_image_or_sampler())
    {
        if !(args.verify || args.interpret) {
            if compile(&unit, &spec, 2, "run").is_none() {
                return Ok(ExitCode::from(1));
            }
        } else if let Ok(ka) =
            lanes_vectorizer::report::analyze_kernel_with(hir, k, spec.width, &spec.lowering())
        {
            if let Some(e) = interp::unsupported_feature(&ka.func) {
                return Err(format!(
                    "the scalar interpreter cannot run `{name}`: {}",
                    e.render(&unit.sources)
                ));
            }
        }
    }

    // Arguments.
    let mut given: std::collections::BTreeMap<String, String> = Default::default();
    for a in &args.args {
        let (n, v) = a
            .split_once('=')
            .ok_or_else(|| format!("--arg `{a}`: expected NAME=VALUE"))?;
        if given.insert(n.trim().to_string(), v.to_string()).is_some() {
            return Err(format!("--arg `{n}` given twice"));
        }
    }
    let mut rng = Rng(args.seed.max(1).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut kernel_args: Vec<Arg> = Vec::new();
    // Field offsets of struct arguments, by source argument index.
    let mut struct_layouts: std::collections::HashMap<usize, Vec<(u64, Ty)>> = Default::default();
    let mut param_names = Vec::new();
    for &p in &func.params {
        let local = func.local(p);
        let pname = local.name.to_string();
        param_names.push(pname.clone());
        let value = given.remove(&pname);
        match &local.ty {
            Type::Pointer(ptr) if ptr.space == AddressSpace::Local => {
                let bytes = value
                    .as_deref()
                    .and_then(|v| v.strip_prefix("local:"))
                    .ok_or_else(|| {
                        format!(
                            "argument `{pname}` is a __local pointer: add --arg {pname}=local:BYTES"
                        )
                    })?;
                let bytes = bytes
                    .parse::<u64>()
                    .map_err(|_| format!("argument `{pname}`: `local:{bytes}`: bad byte count"))?;
                kernel_args.push(Arg::Local(bytes));
            }
            Type::Pointer(_) if value.as_deref().is_some_and(|v| v.starts_with("local:")) => {
                return Err(format!(
                    "argument `{pname}`: `local:BYTES` is only for __local pointers"
                ));
            }
            Type::Pointer(ptr) => {
                let elem = elem_of(hir, &ptr.pointee);
                let spec_text = value.unwrap_or_default();
                let buf = make_buffer(elem, &spec_text, &mut rng, items as usize)
                    .map_err(|e| format!("argument `{pname}`: {e}"))?;
                let addr = Box::new(buf.ptr);
                kernel_args.push(Arg::Buffer {
                    elem,
                    buf,
                    addr,
                    written: !ptr.pointee_const,
                });
            }
            Type::Scalar(s) => {
                let v = value.ok_or_else(|| {
                    format!(
                        "missing argument `{pname}` ({}): add --arg {pname}=VALUE",
                        s.name()
                    )
                })?;
                let mut bytes = Vec::new();
                store_scalar(*s, &v, &mut bytes).map_err(|e| format!("argument `{pname}`: {e}"))?;
                kernel_args.push(Arg::Value(bytes));
            }
            Type::Vector(s, n) => {
                let v = value.ok_or_else(|| {
                    format!(
                        "missing argument `{pname}` ({}{n}): add --arg {pname}=A,B,...",
                        s.name()
                    )
                })?;
                let parts: Vec<&str> = v.split(',').collect();
                if parts.len() != *n as usize {
                    return Err(format!(
                        "argument `{pname}` needs {n} comma-separated values"
                    ));
                }
                let mut bytes = Vec::new();
                for x in parts {
                    store_scalar(*s, x, &mut bytes)
                        .map_err(|e| format!("argument `{pname}`: {e}"))?;
                }
                kernel_args.push(Arg::Value(bytes));
            }
            Type::Struct(_) => {
                let layout = lanes_vectorizer::lower::kernel_param_layout(hir, &local.ty)
                    .map_err(|e| format!("argument `{pname}`: {e}"))?;
                let size = hir.size_of(&local.ty).unwrap_or(0) as usize;
                let v = value.ok_or_else(|| {
                    format!(
                        "missing argument `{pname}` ({}): add --arg {pname}=A,B,... with its {} fields in order",
                        hir.type_name(&local.ty),
                        layout.len()
                    )
                })?;
                let parts: Vec<&str> = v.split(',').collect();
                if parts.len() != layout.len() {
                    return Err(format!(
                        "argument `{pname}` needs {} comma-separated field values",
                        layout.len()
                    ));
                }
                let mut bytes = vec![0u8; size.max(1)];
                for (x, &(off, ty)) in parts.iter().zip(&layout) {
                    let s = scalar_of_ty(ty);
                    let mut one = Vec::new();
                    store_scalar(s, x, &mut one).map_err(|e| format!("argument `{pname}`: {e}"))?;
                    let off = off as usize;
                    bytes
                        .get_mut(off..off + one.len())
                        .ok_or("internal: field outside the struct")?
                        .copy_from_slice(&one);
                }
                struct_layouts.insert(kernel_args.len(), layout);
                kernel_args.push(Arg::Value(bytes));
            }
            other => {
                return Err(format!(
                    "argument `{pname}` has type {other:?}, which `lanes run` cannot create"
                ))
            }
        }
    }
    if let Some(n) = given.keys().next() {
        return Err(format!(
            "kernel `{name}` has no parameter `{n}` (parameters: {})",
            param_names.join(", ")
        ));
    }

    let inputs: Vec<Option<Vec<u8>>> = kernel_args
        .iter()
        .map(|a| match a {
            Arg::Buffer { buf, .. } if args.save.is_some() => Some(buf.bytes().to_vec()),
            _ => None,
        })
        .collect();
    let save = |after: &dyn Fn(usize) -> Option<Vec<u8>>| -> Result<(), String> {
        match &args.save {
            Some(dir) => save_arguments(dir, &param_names, &kernel_args, &inputs, after),
            None => Ok(()),
        }
    };

    // The oracle first: an out-of-bounds access is reported with its line
    // instead of crashing the native run.
    let mut expected: Option<Vec<ArgValue>> = None;
    if args.verify || args.interpret {
        let ka =
            lanes_vectorizer::report::analyze_kernel_with(hir, k, spec.width, &spec.lowering())
                .map_err(|d| {
                    d.first()
                        .map(|d| d.message.clone())
                        .unwrap_or_else(|| "cannot analyse the kernel".into())
                })?;
        let mut iargs = interp_args(&ka.func, &kernel_args, &struct_layouts)?;
        let why = if args.interpret { "" } else { " for --verify" };
        eprintln!("lanes run: interpreting `{name}`{why} ({items} work-items)…");
        // A user asking for the oracle wants every race it can see.
        let opts = interp::Options {
            check_all_races: true,
            ..interp::Options::new(spec.width)
        };
        let (_, printed) =
            interp::run_printing(&ka.func, &range, &mut iargs, &opts).map_err(|e| {
                format!(
                    "the scalar interpreter stopped: {}",
                    e.render(&unit.sources)
                )
            })?;
        // printf output, work-item by work-item in launch order.
        for p in &printed {
            print!("{}", p.text);
        }
        if args.interpret {
            // The buffers the kernel writes.
            for (i, a) in kernel_args.iter().enumerate() {
                if let (
                    Arg::Buffer {
                        elem,
                        written: true,
                        ..
                    },
                    Some(bytes),
                ) = (a, exp_buffer(&iargs, i, &kernel_args))
                {
                    println!("{} = {}", param_names[i], show(*elem, bytes, args.print));
                }
            }
            save(&|i| exp_buffer(&iargs, i, &kernel_args).map(<[u8]>::to_vec))?;
            return Ok(ExitCode::SUCCESS);
        }
        expected = Some(iargs);
    }

    let Some(compiled) = compile(&unit, &spec, 2, "run") else {
        return Ok(ExitCode::from(1));
    };
    let jit =
        lanes_codegen::Jit::new(compiled).map_err(|e| format!("cannot load the code: {e}"))?;
    let launch = jit
        .launcher(&name)
        .ok_or_else(|| format!("internal: no launcher for `{name}`"))?;
    let slots: Vec<*mut c_void> = kernel_args
        .iter()
        .map(|a| match a {
            Arg::Buffer { addr, .. } => (&**addr) as *const *mut u8 as *mut c_void,
            Arg::Value(v) => v.as_ptr() as *mut c_void,
            // The entry point takes the byte count of a __local object.
            Arg::Local(bytes) => bytes as *const u64 as *mut c_void,
        })
        .collect();
    let lr = lanes_codegen::LanesRange {
        work_dim: range.work_dim,
        global_offset: range.global_offset.map(|x| x as usize),
        global_size: range.global_size.map(|x| x as usize),
        local_size: range.local_size.map(|x| x as usize),
    };
    let groups: usize = (0..3)
        .map(|d| range.global_size[d].div_ceil(range.local_size[d]) as usize)
        .product();
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, groups.max(1));
    let run_once = || -> Result<f64, String> {
        let start = Instant::now();
        let ptr = SendPtr(slots.as_ptr());
        // Chunks of work-groups from a shared counter, as OpenCL runtimes
        // hand out theirs: a thread that another process slows down takes
        // fewer, instead of holding the whole launch up with a fixed share
        // (bench/RESULTS.md, "matmul_tiled and histogram on 2 threads").
        let chunk = (groups / (threads * 16)).max(1);
        let next = AtomicUsize::new(0);
        let codes: Vec<i32> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    let (ptr, lr, next) = (&ptr, &lr, &next);
                    s.spawn(move || loop {
                        let first = next.fetch_add(chunk, Ordering::Relaxed);
                        if first >= groups {
                            return 0;
                        }
                        let last = (first + chunk).min(groups);
                        // SAFETY: the launcher reads `slots` and the
                        // buffers, which live until the scope ends.
                        let code = unsafe { launch(ptr.0, lr, first, last) };
                        if code != 0 {
                            // The others stop at their next chunk.
                            next.store(groups, Ordering::Relaxed);
                            return code;
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or(-100))
                .collect()
        });
        if let Some(&c) = codes.iter().find(|&&c| c != 0) {
            let why = match c {
                -1 => "the range is invalid",
                -2 => "its work-group memory (__local objects, values kept across barriers) could not be allocated",
                -3 => "the local size differs from the kernel's reqd_work_group_size",
                _ => "unknown error",
            };
            return Err(format!("the kernel returned error {c}: {why}"));
        }
        Ok(start.elapsed().as_secs_f64())
    };
    let first = run_once()?;
    let mut status = ExitCode::SUCCESS;
    if let Some(exp) = &expected {
        let mut bad = 0;
        for (i, a) in kernel_args.iter().enumerate() {
            let Arg::Buffer {
                elem,
                buf,
                written: true,
                ..
            } = a
            else {
                continue;
            };
            let Some(want) = exp_buffer(exp, i, &kernel_args) else {
                continue;
            };
            let (n, shown) = mismatches(*elem, buf.bytes(), want, 5);
            if n > 0 {
                bad += n;
                eprintln!("verify: `{}`: {n} elements differ", param_names[i]);
                for s in shown {
                    eprintln!("  {s}");
                }
            }
        }
        if bad == 0 {
            println!("verify: ok (results equal the scalar interpreter's)");
        } else {
            status = ExitCode::from(1);
        }
    }
    for (i, a) in kernel_args.iter().enumerate() {
        if let Arg::Buffer {
            elem,
            buf,
            written: true,
            ..
        } = a
        {
            println!(
                "{} = {}",
                param_names[i],
                show(*elem, buf.bytes(), args.print)
            );
        }
    }
    save(&|i| match &kernel_args[i] {
        Arg::Buffer { buf, .. } => Some(buf.bytes().to_vec()),
        Arg::Value(_) | Arg::Local(_) => None,
    })?;
    if args.repeat > 1 {
        let mut times = vec![first];
        for _ in 1..args.repeat {
            times.push(run_once()?);
        }
        times.sort_by(|a, b| a.total_cmp(b));
        let median = times[times.len() / 2];
        let bytes: usize = kernel_args
            .iter()
            .map(|a| match a {
                Arg::Buffer { buf, .. } => buf.len,
                Arg::Value(_) | Arg::Local(_) => 0,
            })
            .sum();
        println!(
            "time: median {:.3} ms over {} runs ({} threads, {}); {:.2} GB/s over the buffers, {:.1} M work-items/s",
            median * 1e3,
            times.len(),
            threads,
            spec.name,
            bytes as f64 / median / 1e9,
            items as f64 / median / 1e6
        );
    } else {
        println!(
            "time: {:.3} ms ({threads} threads, {})",
            first * 1e3,
            spec.name
        );
    }
    Ok(status)
}

/// Writes `--save DIR`: each buffer before (`NAME.in.bin`) and after
/// (`NAME.bin`) the run, and `args.json` with every argument in parameter
/// order. Files are written whole (temporary + rename).
fn save_arguments(
    dir: &std::path::Path,
    names: &[String],
    args: &[Arg],
    inputs: &[Option<Vec<u8>>],
    after: &dyn Fn(usize) -> Option<Vec<u8>>,
) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    let write = |file: String, bytes: &[u8]| -> Result<(), String> {
        let path = dir.join(file);
        lanes_codegen::write_atomically(&path, bytes)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
    };
    let mut described = Vec::new();
    for (i, (name, a)) in names.iter().zip(args).enumerate() {
        described.push(match a {
            Arg::Buffer { elem, buf, .. } => {
                let element = match elem.scalar {
                    Scalar::UChar if elem.count > 1 => format!("uchar[{}]", elem.count),
                    s if elem.count > 1 => format!("{}{}", s.name(), elem.count),
                    s => s.name().to_string(),
                };
                if let Some(before) = &inputs[i] {
                    write(format!("{name}.in.bin"), before)?;
                }
                if let Some(bytes) = after(i) {
                    write(format!("{name}.bin"), &bytes)?;
                }
                serde_json::json!({
                    "name": name, "kind": "buffer", "element": element,
                    "elements": buf.len / elem.bytes().max(1),
                    "input": format!("{name}.in.bin"), "output": format!("{name}.bin"),
                })
            }
            Arg::Value(bytes) => serde_json::json!({
                "name": name, "kind": "value", "bytes": bytes,
            }),
            Arg::Local(n) => serde_json::json!({
                "name": name, "kind": "local", "bytes": n,
            }),
        });
    }
    let json = serde_json::to_string_pretty(&serde_json::json!({ "arguments": described }))
        .map_err(|e| e.to_string())?;
    write("args.json".into(), format!("{json}\n").as_bytes())
}

/// Interpreter arguments: one per IR parameter (vector parameters are
/// split into components).
fn interp_args(
    f: &lanes_vectorizer::ir::Function,
    args: &[Arg],
    struct_layouts: &std::collections::HashMap<usize, Vec<(u64, Ty)>>,
) -> Result<Vec<ArgValue>, String> {
    let mut out = Vec::new();
    for p in &f.params {
        let a = args
            .get(p.source_index as usize)
            .ok_or("internal: parameter without an argument")?;
        out.push(match a {
            Arg::Buffer { buf, .. } => ArgValue::Buffer(buf.bytes().to_vec()),
            Arg::Local(bytes) => ArgValue::Local(*bytes),
            Arg::Value(bytes) => {
                let size = p.ty.bytes() as usize;
                let c = p.component.unwrap_or(0) as usize;
                let at = match struct_layouts.get(&(p.source_index as usize)) {
                    Some(layout) => layout.get(c).ok_or("internal: field index")?.0 as usize,
                    None => c * size,
                };
                let mut w = [0u8; 8];
                let src = bytes.get(at..at + size).ok_or("internal: short argument")?;
                w[..size].copy_from_slice(src);
                let u = u64::from_le_bytes(w);
                ArgValue::Scalar(match p.ty {
                    Ty::F32 => Const::Float(f32::from_bits(u as u32) as f64, Ty::F32),
                    Ty::F64 => Const::Float(f64::from_bits(u), Ty::F64),
                    ty => Const::Int(u, ty),
                })
            }
        });
    }
    Ok(out)
}

/// The interpreter's final bytes of source argument `i` (a buffer).
fn exp_buffer<'a>(exp: &'a [ArgValue], i: usize, args: &[Arg]) -> Option<&'a [u8]> {
    // IR parameters of buffers are never split, so the buffer of source
    // argument i is the n-th Buffer among the interpreter's arguments,
    // where n counts the buffers before it.
    let n = args[..i]
        .iter()
        .filter(|a| matches!(a, Arg::Buffer { .. }))
        .count();
    exp.iter()
        .filter_map(|a| match a {
            ArgValue::Buffer(b) => Some(b.as_slice()),
            ArgValue::Scalar(_) | ArgValue::Local(_) => None,
        })
        .nth(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floats(xs: &[f32]) -> Vec<u8> {
        xs.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A small result off by a cancellation's error passes next to a large
    /// one; a wrong value does not, nor does a small result alone.
    #[test]
    fn floats_compare_normwise() {
        let elem = Elem {
            scalar: Scalar::Float,
            count: 1,
        };
        let want = floats(&[90.0, 1.0477e-3]);
        let (n, _) = mismatches(elem, &floats(&[90.0, 1.0486e-3]), &want, 5);
        assert_eq!(n, 0);
        let (n, shown) = mismatches(elem, &floats(&[90.0, 0.5]), &want, 5);
        assert_eq!(n, 1, "{shown:?}");
        let alone = floats(&[1.0477e-3]);
        let (n, _) = mismatches(elem, &floats(&[1.0486e-3]), &alone, 5);
        assert_eq!(n, 1);
    }
}
