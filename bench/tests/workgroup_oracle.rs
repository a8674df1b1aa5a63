//! The reference interpreter against PoCL on the work-group corpus
//! (`tests/kernels/workgroup/`): barriers, `__local` memory, atomics and
//! collectives.
//!
//! Every `// run:` launch spec (format in `run_specs.py` next to the
//! kernels) of every file without `// expect-run:` runs on the interpreter
//! and on PoCL's CPU device with the same inputs (random buffers from one
//! fixed seed); every buffer the kernel may write must be equal (integers
//! exactly, floats within a relative 1e-4: PoCL may reassociate nothing,
//! but its math library differs). The interpreter must run every spec
//! without an error: the specs are valid launches without races.
//!
//! Files with `// expect-run: DataRace at LINE` or `BarrierDivergence at
//! LINE` (also in the sub-folders) must stop the interpreter with that error,
//! one of its two places on that line.
//!
//! Skipped, with the reason printed: files whose `// skip-runtime:` names
//! pocl (only the interpreter runs them), files the front end does not
//! accept, and everything PoCL-side when PoCL is absent.

mod pocl;

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::path::{Path, PathBuf};

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::types::{Scalar, Type};
use lanes_frontend::unit::CheckedUnit;
use lanes_vectorizer::interp::{self, ArgValue, ErrorKind, NdRange};
use lanes_vectorizer::ir::{Const, Ty};
use opencl3::kernel::{set_kernel_arg, Kernel};
use opencl3::memory::{Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::types::{cl_mem, CL_BLOCKING};
use pocl::{pocl_lock, Pocl};

/// The sub-group width the interpreter runs with.
const WIDTH: u32 = 8;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels/workgroup")
}

/// The `.cl` files of the corpus and of its sub-folders (`invalid/`,
/// `races/`).
fn files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![corpus()];
    dirs.extend(
        std::fs::read_dir(corpus())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir()),
    );
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        out.extend(
            entries
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "cl")),
        );
    }
    out.sort();
    out
}

/// One `// run:` line.
#[derive(Debug)]
struct Spec {
    line: usize,
    kernel: String,
    global: Vec<u64>,
    local: Vec<u64>,
    defines: Vec<(String, Option<String>)>,
    args: BTreeMap<String, String>,
}

/// The launch specs, the expected findings `(kind, line)` and whether PoCL
/// is to be skipped, from the comments of a file.
struct Directives {
    specs: Vec<Spec>,
    expect: Vec<(String, u32)>,
    skip_pocl: Option<String>,
}

fn dims(s: &str) -> Vec<u64> {
    s.split(',').map(|x| x.trim().parse().unwrap()).collect()
}

fn directives(text: &str) -> Directives {
    let mut d = Directives {
        specs: Vec::new(),
        expect: Vec::new(),
        skip_pocl: None,
    };
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("// run:") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let mut spec = Spec {
                line: i + 1,
                kernel: words[0].to_string(),
                global: Vec::new(),
                local: Vec::new(),
                defines: Vec::new(),
                args: BTreeMap::new(),
            };
            let mut k = 1;
            while k < words.len() {
                let (w, v) =
                    if let Some(def) = words[k].strip_prefix("-D").filter(|d| !d.is_empty()) {
                        k += 1;
                        ("-D", def)
                    } else {
                        k += 2;
                        (words[k - 2], words[k - 1])
                    };
                match w {
                    "--global" => spec.global = dims(v),
                    "--local" => spec.local = dims(v),
                    "--kernel" => spec.kernel = v.to_string(),
                    "-D" => spec.defines.push(match v.split_once('=') {
                        Some((n, x)) => (n.to_string(), Some(x.to_string())),
                        None => (v.to_string(), None),
                    }),
                    "--arg" => {
                        let (n, x) = v.split_once('=').unwrap();
                        spec.args.insert(n.to_string(), x.to_string());
                    }
                    other => panic!("line {}: unknown word `{other}` in a run spec", i + 1),
                }
            }
            d.specs.push(spec);
        } else if let Some(rest) = t.strip_prefix("// expect-run:") {
            let (kind, line) = rest.trim().split_once(" at ").unwrap();
            d.expect
                .push((kind.trim().to_string(), line.trim().parse().unwrap()));
        } else if let Some(rest) = t.strip_prefix("// skip-runtime:") {
            let (who, why) = rest.split_once("--").unwrap_or((rest, ""));
            if who.split_whitespace().any(|w| w == "pocl") {
                d.skip_pocl = Some(why.trim().to_string());
            }
        }
    }
    d
}

struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The little-endian bytes of `x` as a value of scalar type `s`.
fn scalar_bytes(s: Scalar, x: f64) -> Vec<u8> {
    let size = s.size() as usize;
    match s {
        Scalar::Float => (x as f32).to_le_bytes().to_vec(),
        Scalar::Double => x.to_le_bytes().to_vec(),
        _ => (x.floor() as i128 as u128).to_le_bytes()[..size].to_vec(),
    }
}

/// One kernel argument, for both runtimes.
#[derive(Clone, Debug)]
enum Arg {
    Buffer {
        bytes: Vec<u8>,
        elem: Scalar,
        written: bool,
    },
    Local(u64),
    Value {
        bytes: Vec<u8>,
    },
}

fn make_arg(ty: &Type, name: &str, value: &str, rng: &mut Rng) -> Arg {
    match ty {
        Type::Pointer(p) => {
            if let Some(b) = value.strip_prefix("local:") {
                return Arg::Local(b.parse().unwrap());
            }
            let Type::Scalar(elem) = &p.pointee else {
                panic!("`{name}`: only scalar buffers are supported here")
            };
            let parts: Vec<&str> = value.split(':').collect();
            let n: usize = parts[1].parse().unwrap();
            let elem = *elem;
            let mut bytes = Vec::with_capacity(n * elem.size() as usize);
            for i in 0..n {
                let x = match parts[0] {
                    "zeros" => 0.0,
                    "fill" => parts[2].parse().unwrap(),
                    "iota" => i as f64,
                    "random" => {
                        let (lo, hi) = match parts.get(2..4) {
                            Some([a, b]) => (a.parse().unwrap(), b.parse().unwrap()),
                            _ if elem.is_float() => (0.0, 1.0),
                            _ => (0.0, 100.0),
                        };
                        lo + (hi - lo) * rng.unit()
                    }
                    other => panic!("`{name}`: unknown buffer kind `{other}`"),
                };
                bytes.extend(scalar_bytes(elem, x));
            }
            Arg::Buffer {
                bytes,
                elem,
                written: !p.pointee_const,
            }
        }
        Type::Scalar(s) => Arg::Value {
            bytes: scalar_bytes(*s, value.parse().unwrap()),
        },
        other => panic!("`{name}`: arguments of type {other:?} are not supported here"),
    }
}

fn load(path: &Path, defines: &[(String, Option<String>)]) -> Result<CheckedUnit, String> {
    let pp = PreprocessOptions {
        width: WIDTH,
        defines: defines.to_vec(),
        ..Default::default()
    };
    let unit = lanes_frontend::unit::check_file(path, &pp, &RealFs).map_err(|e| e.to_string())?;
    if let Some(d) = unit
        .diagnostics
        .iter()
        .find(|d| d.severity == lanes_frontend::diag::Severity::Error)
    {
        return Err(format!("the front end refuses it: {}", d.message));
    }
    Ok(unit)
}

fn range_of(s: &Spec) -> NdRange {
    let mut r = NdRange {
        work_dim: s.global.len() as u32,
        global_offset: [0; 3],
        global_size: [1; 3],
        local_size: [1; 3],
    };
    r.global_size[..s.global.len()].copy_from_slice(&s.global);
    r.local_size[..s.local.len()].copy_from_slice(&s.local);
    r
}

/// Runs a spec on the interpreter: the arguments made, and the final bytes
/// of every buffer (None for the others) or the error.
fn interpret(
    unit: &CheckedUnit,
    s: &Spec,
) -> Result<(Vec<Arg>, Result<Vec<Option<Vec<u8>>>, interp::InterpError>), String> {
    let hir = &unit.hir;
    let kid = hir
        .function_by_name(&s.kernel)
        .ok_or_else(|| format!("no kernel `{}`", s.kernel))?;
    let func = hir.function(kid);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut args = Vec::new();
    for &p in &func.params {
        let l = func.local(p);
        let v = s
            .args
            .get(l.name.as_str())
            .ok_or_else(|| format!("line {}: no --arg for `{}`", s.line, l.name))?;
        args.push(make_arg(&l.ty, &l.name, v, &mut rng));
    }
    let f = lanes_vectorizer::report::analyze_kernel(hir, kid, WIDTH)
        .map_err(|d| format!("not lowered: {}", d[0].message))?
        .func;
    let mut iargs: Vec<ArgValue> = f
        .params
        .iter()
        .map(|p| match &args[p.source_index as usize] {
            Arg::Buffer { bytes, .. } => ArgValue::Buffer(bytes.clone()),
            Arg::Local(n) => ArgValue::Local(*n),
            Arg::Value { bytes, .. } => {
                let mut w = [0u8; 8];
                w[..bytes.len()].copy_from_slice(bytes);
                let u = u64::from_le_bytes(w);
                ArgValue::Scalar(match p.ty {
                    Ty::F32 => Const::Float(f32::from_bits(u as u32) as f64, Ty::F32),
                    Ty::F64 => Const::Float(f64::from_bits(u), Ty::F64),
                    ty => Const::Int(u, ty),
                })
            }
        })
        .collect();
    let opts = interp::Options::new(WIDTH);
    let result = interp::run_with(&f, &range_of(s), &mut iargs, &opts);
    // Buffers by source argument (IR parameters of buffers are not split).
    let mut bufs = iargs.into_iter().filter_map(|a| match a {
        ArgValue::Buffer(b) => Some(b),
        _ => None,
    });
    let out = args
        .iter()
        .map(|a| match a {
            Arg::Buffer { .. } => bufs.next(),
            _ => None,
        })
        .collect();
    Ok((args, result.map(|_| out)))
}

/// Runs a spec on PoCL with the same arguments.
fn on_pocl(
    pocl: &Pocl,
    src: &str,
    dir: &Path,
    s: &Spec,
    args: &[Arg],
) -> Result<Vec<Option<Vec<u8>>>, String> {
    let opts: Vec<String> = s
        .defines
        .iter()
        .map(|(n, v)| match v {
            Some(v) => format!("-D {n}={v}"),
            None => format!("-D {n}"),
        })
        .collect();
    let (program, _) = pocl.build_with(src, dir, &opts.join(" "))?;
    let kernel = Kernel::create(&program, &s.kernel).map_err(|e| format!("kernel: {e}"))?;
    let mut buffers = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let i = i as u32;
        // SAFETY: each pointer covers `size` readable bytes (null for __local).
        let set = |size: usize, ptr: *const c_void| unsafe {
            set_kernel_arg(kernel.get(), i, size, ptr).map_err(|e| format!("argument {i}: {e}"))
        };
        match a {
            Arg::Buffer { bytes, .. } => {
                let mut host = bytes.clone();
                // SAFETY: the host pointer covers `len` bytes, copied now.
                let buf = unsafe {
                    Buffer::<u8>::create(
                        &pocl.context,
                        CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                        host.len().max(1),
                        host.as_mut_ptr() as *mut c_void,
                    )
                }
                .map_err(|e| format!("buffer: {e}"))?;
                let mem: cl_mem = buf.get();
                set(std::mem::size_of::<cl_mem>(), &mem as *const cl_mem as _)?;
                buffers.push(Some(buf));
            }
            Arg::Local(n) => {
                set(*n as usize, std::ptr::null())?;
                buffers.push(None);
            }
            Arg::Value { bytes, .. } => {
                set(bytes.len(), bytes.as_ptr() as _)?;
                buffers.push(None);
            }
        }
    }
    let r = range_of(s);
    let global = r.global_size.map(|x| x as usize);
    let local = r.local_size.map(|x| x as usize);
    // SAFETY: every argument is set; the size arrays have 3 entries.
    unsafe {
        pocl.queue
            .enqueue_nd_range_kernel(
                kernel.get(),
                r.work_dim,
                std::ptr::null(),
                global.as_ptr(),
                local.as_ptr(),
                &[],
            )
            .map_err(|e| format!("enqueue: {e}"))?;
    }
    pocl.queue.finish().map_err(|e| format!("finish: {e}"))?;
    let mut out = Vec::new();
    for b in &buffers {
        let Some(b) = b else {
            out.push(None);
            continue;
        };
        let mut bytes = vec![0u8; b.size().map_err(|e| e.to_string())?];
        // SAFETY: blocking read of the whole buffer into a slice of its size.
        unsafe {
            pocl.queue
                .enqueue_read_buffer(b, CL_BLOCKING, 0, &mut bytes, &[])
                .map_err(|e| format!("read: {e}"))?;
        }
        out.push(Some(bytes));
    }
    Ok(out)
}

/// The first elements that differ (at most 3), as text.
fn differences(elem: Scalar, got: &[u8], want: &[u8]) -> Vec<String> {
    let size = elem.size() as usize;
    let mut out = Vec::new();
    for (i, (g, w)) in got.chunks(size).zip(want.chunks(size)).enumerate() {
        let same = match elem {
            Scalar::Float | Scalar::Double => {
                let f = |b: &[u8]| {
                    if size == 4 {
                        f32::from_le_bytes(b.try_into().unwrap()) as f64
                    } else {
                        f64::from_le_bytes(b.try_into().unwrap())
                    }
                };
                let (a, b) = (f(g), f(w));
                a == b || (a - b).abs() <= 1e-4 * b.abs().max(1e-6) || (a.is_nan() && b.is_nan())
            }
            _ => g == w,
        };
        if !same && out.len() < 3 {
            out.push(format!("element {i}: interpreter {g:?} vs PoCL {w:?}"));
        }
    }
    out
}

#[test]
fn interpreter_matches_pocl_on_the_work_group_corpus() {
    let _lock = pocl_lock();
    let pocl = Pocl::new();
    if let Err(e) = &pocl {
        eprintln!(
            "SKIPPED (PoCL side): PoCL not available ({e}); the interpreter still runs every spec"
        );
    }
    let (mut compared, mut interpreted, mut skipped, mut failures) =
        (0usize, 0usize, Vec::new(), Vec::new());
    for path in files() {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        let d = directives(&text);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !d.expect.is_empty() || d.specs.is_empty() {
            continue;
        }
        for s in &d.specs {
            let what = format!("{name}:{} ({})", s.line, s.kernel);
            let unit = match load(&path, &s.defines) {
                Ok(u) => u,
                Err(e) => {
                    skipped.push(format!("{what}: {e}"));
                    continue;
                }
            };
            let (args, result) = match interpret(&unit, s) {
                Ok(x) => x,
                Err(e) => {
                    skipped.push(format!("{what}: {e}"));
                    continue;
                }
            };
            let mine = match result {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{what}: {}", e.render(&unit.sources)));
                    continue;
                }
            };
            interpreted += 1;
            let pocl = match (&pocl, &d.skip_pocl) {
                (Ok(p), None) => p,
                (_, Some(why)) => {
                    skipped.push(format!("{what}: PoCL skipped by the file ({why})"));
                    continue;
                }
                (Err(_), _) => continue,
            };
            let theirs = match on_pocl(pocl, &text, path.parent().unwrap(), s, &args) {
                Ok(b) => b,
                Err(e) => {
                    failures.push(format!("{what}: PoCL: {e}"));
                    continue;
                }
            };
            for (i, a) in args.iter().enumerate() {
                if let (
                    Arg::Buffer {
                        elem,
                        written: true,
                        ..
                    },
                    Some(g),
                    Some(w),
                ) = (a, &mine[i], &theirs[i])
                {
                    let diff = differences(*elem, g, w);
                    if !diff.is_empty() {
                        failures.push(format!("{what}: argument {i}: {}", diff.join("; ")));
                    }
                }
            }
            compared += 1;
        }
    }
    eprintln!(
        "work-group corpus: {interpreted} launches interpreted, {compared} compared with PoCL; {} skipped:\n  {}",
        skipped.len(),
        skipped.join("\n  ")
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

#[test]
fn seeded_races_and_barrier_divergence_are_caught_at_their_line() {
    let (mut checked, mut skipped, mut failures) = (0usize, Vec::new(), Vec::new());
    for path in files() {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        let d = directives(&text);
        if d.expect.is_empty() {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for s in &d.specs {
            let what = format!("{name}:{} ({})", s.line, s.kernel);
            let unit = match load(&path, &s.defines) {
                Ok(u) => u,
                Err(e) => {
                    skipped.push(format!("{what}: {e}"));
                    continue;
                }
            };
            let e = match interpret(&unit, s) {
                Ok((_, Err(e))) => e,
                Ok((_, Ok(_))) => {
                    failures.push(format!("{what}: ran without an error"));
                    continue;
                }
                Err(e) => {
                    skipped.push(format!("{what}: {e}"));
                    continue;
                }
            };
            let line =
                |span: lanes_frontend::source::Span| unit.sources.line_col(span.file, span.start).0;
            let lines: Vec<u32> = std::iter::once(e.span)
                .chain(e.related.as_ref().map(|r| r.0))
                .map(line)
                .collect();
            let kind = match e.kind {
                ErrorKind::DataRace => "DataRace",
                ErrorKind::BarrierDivergence => "BarrierDivergence",
                _ => "other",
            };
            if !d.expect.iter().any(|(k, l)| k == kind && lines.contains(l)) {
                failures.push(format!(
                    "{what}: expected {:?}, got {}",
                    d.expect,
                    e.render(&unit.sources)
                ));
            }
            checked += 1;
        }
    }
    eprintln!(
        "seeded bugs: {checked} launches checked; {} skipped:\n  {}",
        skipped.len(),
        skipped.join("\n  ")
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}
