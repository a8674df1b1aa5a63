//! The benchmark kernels: which `.cl` file and kernel, the NDRange, the
//! arguments with their initial data, which buffers are results (and how
//! closely the implementations must agree), and how to call the plain-C
//! version (`bench/kernels/c/*.c`).

use std::ffi::c_void;

/// The contents of one buffer argument.
#[derive(Clone, Debug)]
pub enum Buf {
    F32(Vec<f32>),
    I32(Vec<i32>),
    U32(Vec<u32>),
}

impl Buf {
    pub fn byte_len(&self) -> usize {
        match self {
            Buf::F32(v) => v.len() * 4,
            Buf::I32(v) => v.len() * 4,
            Buf::U32(v) => v.len() * 4,
        }
    }

    pub fn as_mut_ptr(&mut self) -> *mut c_void {
        match self {
            Buf::F32(v) => v.as_mut_ptr().cast(),
            Buf::I32(v) => v.as_mut_ptr().cast(),
            Buf::U32(v) => v.as_mut_ptr().cast(),
        }
    }

    pub fn bytes(&self) -> &[u8] {
        let (p, n): (*const u8, usize) = match self {
            Buf::F32(v) => (v.as_ptr().cast(), v.len() * 4),
            Buf::I32(v) => (v.as_ptr().cast(), v.len() * 4),
            Buf::U32(v) => (v.as_ptr().cast(), v.len() * 4),
        };
        // SAFETY: plain-old-data elements, viewed as bytes for their lifetime.
        unsafe { std::slice::from_raw_parts(p, n) }
    }
}

/// A buffer's bytes copied to an address aligned to a cache line, as the
/// OpenCL runtimes copy `CL_MEM_COPY_HOST_PTR` buffers into memory of
/// their own (Intel's at page boundaries, PoCL's at 128 bytes; both report
/// `CL_DEVICE_MEM_BASE_ADDR_ALIGN` 1024 bits). lanes' objects and the C
/// versions run on these copies, not on the `Vec`s: a large `malloc` block
/// starts 16 bytes past a page, so every row of an array would start and
/// end inside a cache line for them and at a line boundary for the runtimes.
pub struct Aligned {
    ptr: std::ptr::NonNull<u8>,
    layout: std::alloc::Layout,
    len: usize,
}

impl Aligned {
    pub const ALIGN: usize = 64;

    pub fn copy_of(b: &Buf) -> Aligned {
        let bytes = b.bytes();
        let layout = std::alloc::Layout::from_size_align(bytes.len().max(1), Self::ALIGN)
            .expect("buffer size fits a layout");
        // SAFETY: the layout's size is not zero.
        let raw = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = std::ptr::NonNull::new(raw) else {
            std::alloc::handle_alloc_error(layout)
        };
        // SAFETY: `ptr` has room for `bytes.len()` bytes and does not overlap `bytes`.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr.as_ptr(), bytes.len()) };
        Aligned {
            ptr,
            layout,
            len: bytes.len(),
        }
    }

    pub fn as_mut_ptr(&mut self) -> *mut c_void {
        self.ptr.as_ptr().cast()
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `len` bytes were initialized by `copy_of` and live as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Aligned {
    fn drop(&mut self) {
        // SAFETY: allocated by `copy_of` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}

/// An argument as lanes' objects and the C versions get it: buffers in
/// `Aligned` copies.
pub enum HostArg {
    Buf(Aligned),
    I32(i32),
    U32(u32),
    F32(f32),
}

impl HostArg {
    pub fn copies_of(args: &[Arg]) -> Vec<HostArg> {
        args.iter()
            .map(|a| match a {
                Arg::Buf(b) => HostArg::Buf(Aligned::copy_of(b)),
                Arg::I32(v) => HostArg::I32(*v),
                Arg::U32(v) => HostArg::U32(*v),
                Arg::F32(v) => HostArg::F32(*v),
            })
            .collect()
    }

    /// The bytes of buffer argument `arg` of `args`.
    pub fn output(args: &[HostArg], arg: usize) -> Result<Vec<u8>, String> {
        match args.get(arg) {
            Some(HostArg::Buf(b)) => Ok(b.bytes().to_vec()),
            _ => Err(format!("argument {arg} is not a buffer")),
        }
    }
}

/// One kernel argument, in the kernel's parameter order.
#[derive(Clone, Debug)]
pub enum Arg {
    Buf(Buf),
    I32(i32),
    U32(u32),
    F32(f32),
}

/// How closely a result buffer must match the reference.
#[derive(Clone, Copy, Debug)]
pub enum Tol {
    /// Floats: max |got - want| <= rel * max |want| (a normwise bound, so
    /// different rounding of sums and libm versus OpenCL math pass).
    Float(f64),
    /// Integers: at most this fraction of the elements may differ (0 = exact).
    /// Mandelbrot needs a little: contraction into FMA changes the escape
    /// iteration of a few chaotic points on the set's border.
    Int(f64),
}

/// A scalar or a buffer address, as handed to the C glue.
#[derive(Clone, Copy, Debug)]
pub enum CVal {
    P(usize),
    I(i32),
    U(u32),
    F(f32),
}

impl CVal {
    pub fn p(self) -> *mut c_void {
        match self {
            CVal::P(p) => p as *mut c_void,
            other => panic!("C glue: expected a pointer, got {other:?}"),
        }
    }
    pub fn i(self) -> i32 {
        match self {
            CVal::I(v) => v,
            other => panic!("C glue: expected an int, got {other:?}"),
        }
    }
    pub fn u(self) -> u32 {
        match self {
            CVal::U(v) => v,
            other => panic!("C glue: expected a uint, got {other:?}"),
        }
    }
    pub fn f(self) -> f32 {
        match self {
            CVal::F(v) => v,
            other => panic!("C glue: expected a float, got {other:?}"),
        }
    }
}

/// Calls the C function at address `f` with the kernel's arguments and the
/// slice `[lo, hi)` of its outer loop.
pub type CGlue = fn(f: usize, args: &[CVal], lo: i32, hi: i32);

/// Builds a `CGlue` for a C function whose parameters are the kernel's (`p`
/// pointer, `i` int, `u` uint, `f` float) followed by `int lo, int hi`.
macro_rules! glue {
    (@t p) => { *mut c_void };
    (@t i) => { i32 };
    (@t u) => { u32 };
    (@t f) => { f32 };
    ($($k:ident),*) => {
        |f: usize, a: &[CVal], lo: i32, hi: i32| {
            type F = unsafe extern "C" fn($(glue!(@t $k),)* i32, i32);
            // SAFETY: `f` is the address of a C function with this signature
            // (bench/kernels/c), the pointers are live buffers of the sizes the
            // kernel expects.
            let func: F = unsafe { std::mem::transmute::<usize, F>(f) };
            let mut it = a.iter().copied();
            unsafe { func($(it.next().expect("argument").$k(),)* lo, hi) }
        }
    };
}

pub struct Problem {
    /// Benchmark name (`--kernel NAME`).
    pub name: &'static str,
    /// File stem in bench/kernels (`NAME.cl`) and bench/kernels/c (`NAME.c`).
    pub file: &'static str,
    /// The kernel's name in the `.cl` file, also the C function's name.
    pub kernel: &'static str,
    /// Human-readable problem size.
    pub size: String,
    pub work_dim: u32,
    pub global: [usize; 3],
    pub local: [usize; 3],
    pub args: Vec<Arg>,
    /// Result buffers (argument indices) and their tolerance.
    pub checks: Vec<(usize, Tol)>,
    /// Extent of the C function's outer loop (rows or items), split across threads.
    pub c_extent: usize,
    pub c_glue: CGlue,
    /// The work one run does, for its share of the machine's limits
    /// ([`super::limits`]); None where neither bandwidth nor the FMA peak is
    /// what bounds it (latency-bound searches, data-dependent iteration
    /// counts, math-library calls).
    pub limit: Option<Work>,
}

/// Compulsory memory traffic (every element read once, every element
/// written once) and floating-point operations (an FMA counts 2) of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Work {
    pub bytes: f64,
    pub flops: f64,
}

fn work(bytes: usize, flops: usize) -> Option<Work> {
    Some(Work {
        bytes: bytes as f64,
        flops: flops as f64,
    })
}

impl Problem {
    /// Number of work-groups, numbered gx + ngx * (gy + ngy * gz).
    #[cfg_attr(not(feature = "lanes"), allow(dead_code))]
    pub fn groups(&self) -> usize {
        (0..self.work_dim as usize)
            .map(|d| self.global[d].div_ceil(self.local[d]))
            .product()
    }
}

/// The benchmark names, in table order.
pub const NAMES: &[&str] = &[
    "stream_triad",
    "gemm",
    "jacobi_2d",
    "convolution_2d",
    "sobel",
    "mandelbrot",
    "black_scholes",
    "nbody",
    "binary_search",
    "spmv_csr",
    "matmul_tiled",
    "reduction",
    "scan",
    "transpose",
    "histogram",
    "stencil_2d",
    "nbody_local",
    "find_index",
    "mvt",
];

/// The kernels with barriers and `__local` memory (a part of [`NAMES`]).
#[cfg_attr(not(test), allow(dead_code))]
pub const WORK_GROUP_NAMES: &[&str] = &[
    "matmul_tiled",
    "reduction",
    "scan",
    "transpose",
    "histogram",
    "stencil_2d",
    "nbody_local",
    "find_index",
];

/// Deterministic pseudo-random numbers (xorshift64*), so every run and every
/// implementation sees the same data.
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
    /// Uniform in [lo, hi).
    fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % n as u64) as u32
    }
    fn vec(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32(lo, hi)).collect()
    }
}

fn round_up(x: usize, m: usize) -> usize {
    x.div_ceil(m) * m
}

/// 1-D work-groups of 256 items; 2-D work-groups of 64 x 4 (64 consecutive
/// items along dimension 0, a multiple of every SIMD width). The same local
/// size is given to lanes and PoCL.
const L1: usize = 256;
const L2: [usize; 2] = [64, 4];

fn range_1d(n: usize) -> (u32, [usize; 3], [usize; 3]) {
    (1, [round_up(n, L1), 1, 1], [L1, 1, 1])
}

fn range_2d(w: usize, h: usize) -> (u32, [usize; 3], [usize; 3]) {
    (
        2,
        [round_up(w, L2[0]), round_up(h, L2[1]), 1],
        [L2[0], L2[1], 1],
    )
}

/// Builds one benchmark's data; None for an unknown name.
pub fn build(name: &str) -> Option<Problem> {
    let mut rng = Rng::new(name.len() as u64 * 7919 + 17);
    let p = match name {
        "stream_triad" => {
            let n = 1usize << 25;
            let (work_dim, global, local) = range_1d(n);
            Problem {
                name: "stream_triad",
                file: "stream_triad",
                kernel: "stream_triad",
                size: format!("n = {}M floats", n >> 20),
                work_dim,
                global,
                local,
                args: vec![
                    Arg::Buf(Buf::F32(vec![0.0; n])),
                    Arg::Buf(Buf::F32(rng.vec(n, -1.0, 1.0))),
                    Arg::Buf(Buf::F32(rng.vec(n, -1.0, 1.0))),
                    Arg::F32(3.0),
                    Arg::I32(n as i32),
                ],
                checks: vec![(0, Tol::Float(1e-6))],
                c_extent: n,
                c_glue: glue!(p, p, p, f, i),
                limit: work(12 * n, 2 * n),
            }
        }
        "gemm" => {
            let (ni, nj, nk) = (512usize, 512usize, 512usize);
            let (work_dim, global, local) = range_2d(nj, ni);
            Problem {
                name: "gemm",
                file: "gemm",
                kernel: "gemm",
                size: format!("{ni} x {nj} x {nk}"),
                work_dim,
                global,
                local,
                args: vec![
                    Arg::I32(ni as i32),
                    Arg::I32(nj as i32),
                    Arg::I32(nk as i32),
                    Arg::F32(1.5),
                    // beta < 1 keeps C bounded although every timed run updates it in place.
                    Arg::F32(0.5),
                    Arg::Buf(Buf::F32(rng.vec(ni * nj, 0.0, 1.0))),
                    Arg::Buf(Buf::F32(rng.vec(ni * nk, 0.0, 1.0))),
                    Arg::Buf(Buf::F32(rng.vec(nk * nj, 0.0, 1.0))),
                ],
                checks: vec![(5, Tol::Float(1e-5))],
                c_extent: ni,
                c_glue: glue!(i, i, i, f, f, p, p, p),
                limit: work(
                    4 * (ni * nk + nk * nj + 2 * ni * nj),
                    ni * nj * (2 * nk + 3),
                ),
            }
        }
        "jacobi_2d" => {
            let n = 4096usize;
            let (work_dim, global, local) = range_2d(n, n);
            let a = rng.vec(n * n, 0.0, 1.0);
            Problem {
                name: "jacobi_2d",
                file: "jacobi_2d",
                kernel: "jacobi_2d_step",
                size: format!("{n} x {n}"),
                work_dim,
                global,
                local,
                // B starts as a copy of A so its never-written boundary agrees.
                args: vec![
                    Arg::Buf(Buf::F32(a.clone())),
                    Arg::Buf(Buf::F32(a)),
                    Arg::I32(n as i32),
                ],
                checks: vec![(1, Tol::Float(1e-6))],
                c_extent: n,
                c_glue: glue!(p, p, i),
                limit: work(4 * n * n + 4 * (n - 2) * (n - 2), 5 * (n - 2) * (n - 2)),
            }
        }
        "convolution_2d" => {
            let (w, h, fw) = (1024usize, 1024usize, 5usize);
            let (work_dim, global, local) = range_2d(w, h);
            let mut filter = rng.vec(fw * fw, 0.0, 1.0);
            let total: f32 = filter.iter().sum();
            filter.iter_mut().for_each(|x| *x /= total);
            Problem {
                name: "convolution_2d",
                file: "convolution_2d",
                kernel: "convolution_2d",
                size: format!("{w} x {h}, {fw} x {fw} filter"),
                work_dim,
                global,
                local,
                args: vec![
                    Arg::Buf(Buf::F32(rng.vec(w * h, 0.0, 1.0))),
                    Arg::Buf(Buf::F32(vec![0.0; w * h])),
                    Arg::Buf(Buf::F32(filter)),
                    Arg::I32(w as i32),
                    Arg::I32(h as i32),
                    Arg::I32(fw as i32),
                ],
                checks: vec![(1, Tol::Float(1e-5))],
                c_extent: h,
                c_glue: glue!(p, p, p, i, i, i),
                limit: work(8 * w * h + 4 * fw * fw, 2 * fw * fw * w * h),
            }
        }
        "sobel" => {
            let (w, h) = (4096usize, 2048usize);
            let (work_dim, global, local) = range_2d(w, h);
            Problem {
                name: "sobel",
                file: "sobel",
                kernel: "sobel",
                size: format!("{w} x {h}"),
                work_dim,
                global,
                local,
                args: vec![
                    Arg::Buf(Buf::F32(rng.vec(w * h, 0.0, 1.0))),
                    Arg::Buf(Buf::F32(vec![0.0; w * h])),
                    Arg::I32(w as i32),
                    Arg::I32(h as i32),
                ],
                checks: vec![(1, Tol::Float(1e-5))],
                c_extent: h,
                c_glue: glue!(p, p, i, i),
                limit: work(8 * w * h, 18 * (w - 2) * (h - 2)),
            }
        }
        "mandelbrot" => {
            let (w, h, max_iter) = (768usize, 768usize, 128u32);
            let (work_dim, global, local) = range_2d(w, h);
            let step = 3.0 / w as f32;
            Problem {
                name: "mandelbrot",
                file: "mandelbrot",
                kernel: "mandelbrot",
                size: format!("{w} x {h}, max_iter {max_iter}"),
                work_dim,
                global,
                local,
                args: vec![
                    Arg::Buf(Buf::U32(vec![0; w * h])),
                    Arg::I32(w as i32),
                    Arg::I32(h as i32),
                    Arg::F32(-2.25),
                    Arg::F32(-1.5),
                    Arg::F32(step),
                    Arg::U32(max_iter),
                ],
                checks: vec![(0, Tol::Int(5e-3))],
                c_extent: h,
                c_glue: glue!(p, i, i, f, f, f, u),
                limit: None,
            }
        }
        "black_scholes" => {
            let n = 1usize << 20;
            let (work_dim, global, local) = range_1d(n);
            Problem {
                name: "black_scholes",
                file: "black_scholes",
                kernel: "black_scholes",
                size: format!("{}M options", n >> 20),
                work_dim,
                global,
                local,
                args: vec![
                    Arg::Buf(Buf::F32(vec![0.0; n])),
                    Arg::Buf(Buf::F32(vec![0.0; n])),
                    Arg::Buf(Buf::F32(rng.vec(n, 5.0, 30.0))),
                    Arg::Buf(Buf::F32(rng.vec(n, 1.0, 100.0))),
                    Arg::Buf(Buf::F32(rng.vec(n, 0.25, 10.0))),
                    Arg::F32(0.02),
                    Arg::F32(0.30),
                    Arg::I32(n as i32),
                ],
                checks: vec![(0, Tol::Float(1e-5)), (1, Tol::Float(1e-5))],
                c_extent: n,
                c_glue: glue!(p, p, p, p, p, f, f, i),
                limit: None,
            }
        }
        "nbody" => {
            let n = 3072usize;
            let (work_dim, global, local) = range_1d(n);
            let mut pos = Vec::with_capacity(4 * n);
            let mut vel = Vec::with_capacity(4 * n);
            for _ in 0..n {
                pos.extend([
                    rng.f32(-1.0, 1.0),
                    rng.f32(-1.0, 1.0),
                    rng.f32(-1.0, 1.0),
                    rng.f32(0.5, 1.0),
                ]);
                vel.extend([
                    rng.f32(-0.1, 0.1),
                    rng.f32(-0.1, 0.1),
                    rng.f32(-0.1, 0.1),
                    0.0,
                ]);
            }
            Problem {
                name: "nbody",
                file: "nbody",
                kernel: "nbody_step",
                size: format!("{n} bodies"),
                work_dim,
                global,
                local,
                args: vec![
                    Arg::Buf(Buf::F32(pos)),
                    Arg::Buf(Buf::F32(vel)),
                    Arg::Buf(Buf::F32(vec![0.0; 4 * n])),
                    Arg::Buf(Buf::F32(vec![0.0; 4 * n])),
                    Arg::I32(n as i32),
                    Arg::F32(0.001),
                    Arg::F32(0.01),
                ],
                checks: vec![(2, Tol::Float(1e-5)), (3, Tol::Float(1e-4))],
                c_extent: n,
                c_glue: glue!(p, p, p, p, i, f, f),
                limit: work(4 * 16 * n, 20 * n * n),
            }
        }
        "binary_search" => {
            let (n, nkeys) = (1usize << 20, 1usize << 17);
            let (work_dim, global, local) = range_1d(nkeys);
            let mut sorted = Vec::with_capacity(n);
            let mut v = 0u32;
            for _ in 0..n {
                v += rng.below(8);
                sorted.push(v);
            }
            let keys: Vec<u32> = (0..nkeys).map(|_| rng.below(v + 16)).collect();
            Problem {
                name: "binary_search",
                file: "binary_search",
                kernel: "lower_bound_search",
                size: format!("{}K keys in {}M sorted", nkeys >> 10, n >> 20),
                work_dim,
                global,
                local,
                args: vec![
                    Arg::Buf(Buf::U32(sorted)),
                    Arg::I32(n as i32),
                    Arg::Buf(Buf::U32(keys)),
                    Arg::Buf(Buf::I32(vec![0; nkeys])),
                    Arg::I32(nkeys as i32),
                ],
                checks: vec![(3, Tol::Int(0.0))],
                c_extent: nkeys,
                c_glue: glue!(p, i, p, p, i),
                limit: None,
            }
        }
        "find_index" => {
            // Rodinia's resampling: CDF of random weights, thresholds
            // u[i] = (u1 + i) / N, so particle i stops near x = i.
            let n = 1usize << 14;
            let (work_dim, global, local) = range_1d(n);
            let weights: Vec<f32> = (0..n).map(|_| rng.f32(0.5, 1.5)).collect();
            let total: f32 = weights.iter().sum();
            let mut cdf = Vec::with_capacity(n);
            let mut acc = 0.0f32;
            for w in &weights {
                acc += w / total;
                cdf.push(acc);
            }
            let u1 = rng.f32(0.0, 1.0) / n as f32;
            let u: Vec<f32> = (0..n).map(|i| u1 + i as f32 / n as f32).collect();
            Problem {
                name: "find_index",
                file: "find_index",
                kernel: "find_index_kernel",
                size: format!("{}K particles", n >> 10),
                work_dim,
                global,
                local,
                args: vec![
                    Arg::Buf(Buf::F32((0..n).map(|_| rng.f32(-1.0, 1.0)).collect())),
                    Arg::Buf(Buf::F32((0..n).map(|_| rng.f32(-1.0, 1.0)).collect())),
                    Arg::Buf(Buf::F32(cdf)),
                    Arg::Buf(Buf::F32(u)),
                    Arg::Buf(Buf::F32(vec![0.0; n])),
                    Arg::Buf(Buf::F32(vec![0.0; n])),
                    Arg::Buf(Buf::F32(weights)),
                    Arg::I32(n as i32),
                ],
                checks: vec![(4, Tol::Float(0.0)), (5, Tol::Float(0.0))],
                c_extent: n,
                c_glue: glue!(p, p, p, p, p, p, p, i),
                limit: None,
            }
        }
        "spmv_csr" => {
            let (nrows, ncols, max_len) = (1usize << 18, 1usize << 18, 48u32);
            let (work_dim, global, local) = range_1d(nrows);
            let mut row_ptr = Vec::with_capacity(nrows + 1);
            let mut col_idx = Vec::new();
            row_ptr.push(0i32);
            for _ in 0..nrows {
                let len = rng.below(max_len + 1);
                for _ in 0..len {
                    col_idx.push(rng.below(ncols as u32) as i32);
                }
                row_ptr.push(col_idx.len() as i32);
            }
            let nnz = col_idx.len();
            Problem {
                name: "spmv_csr",
                file: "spmv_csr",
                kernel: "spmv_csr",
                size: format!(
                    "{}K rows, {:.1}M nonzeros (0-{max_len} per row)",
                    nrows >> 10,
                    nnz as f64 / 1e6
                ),
                work_dim,
                global,
                local,
                args: vec![
                    Arg::I32(nrows as i32),
                    Arg::Buf(Buf::I32(row_ptr)),
                    Arg::Buf(Buf::I32(col_idx)),
                    Arg::Buf(Buf::F32(rng.vec(nnz, -1.0, 1.0))),
                    Arg::Buf(Buf::F32(rng.vec(ncols, -1.0, 1.0))),
                    Arg::Buf(Buf::F32(vec![0.0; nrows])),
                ],
                checks: vec![(5, Tol::Float(1e-5))],
                c_extent: nrows,
                c_glue: glue!(i, p, p, p, p, p),
                limit: work(4 * (nrows + 1) + 8 * nnz + 4 * ncols + 4 * nrows, 2 * nnz),
            }
        }
        "mvt" => {
            let n = 2048usize;
            let (work_dim, global, local) = range_1d(n);
            Problem {
                name: "mvt",
                file: "mvt",
                kernel: "mvt_kernel1",
                size: format!("{n} x {n}, a row per work-item"),
                work_dim,
                global,
                local,
                args: vec![
                    Arg::Buf(Buf::F32(rng.vec(n * n, -1.0, 1.0))),
                    Arg::Buf(Buf::F32(rng.vec(n, -1.0, 1.0))),
                    Arg::Buf(Buf::F32(rng.vec(n, -1.0, 1.0))),
                    Arg::I32(n as i32),
                ],
                checks: vec![(1, Tol::Float(1e-5))],
                c_extent: n,
                c_glue: glue!(p, p, p, i),
                limit: work(4 * (n * n + 3 * n), 2 * n * n),
            }
        }
        "matmul_tiled" => {
            let n = 512usize;
            Problem {
                name: "matmul_tiled",
                file: "matmul_tiled",
                kernel: "matmul_tiled",
                size: format!("{n} x {n} x {n}, 16 x 16 tiles"),
                work_dim: 2,
                global: [n, n, 1],
                local: [16, 16, 1],
                args: vec![
                    Arg::Buf(Buf::F32(rng.vec(n * n, 0.0, 1.0))),
                    Arg::Buf(Buf::F32(rng.vec(n * n, 0.0, 1.0))),
                    Arg::Buf(Buf::F32(vec![0.0; n * n])),
                    Arg::I32(n as i32),
                ],
                checks: vec![(2, Tol::Float(1e-5))],
                c_extent: n,
                c_glue: glue!(p, p, p, i),
                limit: work(12 * n * n, 2 * n * n * n),
            }
        }
        "reduction" => {
            let n = 1usize << 24;
            let groups = n / (2 * L1);
            Problem {
                name: "reduction",
                file: "reduction",
                kernel: "reduce_sum",
                size: format!("{}M floats, sums of 512", n >> 20),
                work_dim: 1,
                global: [groups * L1, 1, 1],
                local: [L1, 1, 1],
                args: vec![
                    Arg::Buf(Buf::F32(rng.vec(n, 0.0, 1.0))),
                    Arg::Buf(Buf::F32(vec![0.0; groups])),
                    Arg::I32(n as i32),
                ],
                checks: vec![(1, Tol::Float(1e-5))],
                c_extent: groups,
                c_glue: glue!(p, p, i),
                limit: work(4 * n + 4 * groups, n),
            }
        }
        "scan" => {
            let groups = 1usize << 15;
            let n = groups * 2 * L1;
            Problem {
                name: "scan",
                file: "scan",
                kernel: "scan_blocks",
                size: format!("{}M floats, blocks of 512", n >> 20),
                work_dim: 1,
                global: [groups * L1, 1, 1],
                local: [L1, 1, 1],
                args: vec![
                    Arg::Buf(Buf::F32(rng.vec(n, 0.0, 1.0))),
                    Arg::Buf(Buf::F32(vec![0.0; n])),
                    Arg::Buf(Buf::F32(vec![0.0; groups])),
                ],
                checks: vec![(1, Tol::Float(1e-5)), (2, Tol::Float(1e-5))],
                c_extent: groups,
                c_glue: glue!(p, p, p),
                limit: work(8 * n + 4 * groups, 2 * n),
            }
        }
        "transpose" => {
            let (w, h) = (4096usize, 2048usize);
            Problem {
                name: "transpose",
                file: "transpose",
                kernel: "transpose",
                size: format!("{h} x {w}, 16 x 17 tile"),
                work_dim: 2,
                global: [round_up(w, 16), round_up(h, 16), 1],
                local: [16, 16, 1],
                args: vec![
                    Arg::Buf(Buf::F32(rng.vec(w * h, 0.0, 1.0))),
                    Arg::Buf(Buf::F32(vec![0.0; w * h])),
                    Arg::I32(w as i32),
                    Arg::I32(h as i32),
                ],
                checks: vec![(1, Tol::Float(0.0))],
                c_extent: h,
                c_glue: glue!(p, p, i, i),
                limit: work(8 * w * h, 0),
            }
        }
        "histogram" => {
            // histogram.cl's default ITEMS (32) values per work-item.
            let groups = 1024usize;
            let n = groups * L1 * 32;
            Problem {
                name: "histogram",
                file: "histogram",
                kernel: "histogram256",
                size: format!("{}M values, 256 bins per group of 256", n >> 20),
                work_dim: 1,
                global: [groups * L1, 1, 1],
                local: [L1, 1, 1],
                args: vec![
                    Arg::Buf(Buf::U32((0..n).map(|_| rng.next_u64() as u32).collect())),
                    Arg::Buf(Buf::U32(vec![0; groups * 256])),
                ],
                checks: vec![(1, Tol::Int(0.0))],
                c_extent: groups,
                c_glue: glue!(p, p),
                limit: work(4 * n + 4 * 256 * groups, 0),
            }
        }
        "stencil_2d" => {
            let n = 4096usize;
            let (work_dim, global, local) = range_2d(n, n);
            Problem {
                name: "stencil_2d",
                file: "stencil_2d",
                kernel: "stencil_2d",
                size: format!("{n} x {n}, 66 x 6 tile"),
                work_dim,
                global,
                local,
                args: vec![
                    Arg::Buf(Buf::F32(rng.vec(n * n, 0.0, 1.0))),
                    Arg::Buf(Buf::F32(vec![0.0; n * n])),
                    Arg::I32(n as i32),
                    Arg::I32(n as i32),
                    Arg::F32(0.2),
                ],
                checks: vec![(1, Tol::Float(1e-6))],
                c_extent: n,
                c_glue: glue!(p, p, i, i, f),
                limit: work(8 * n * n, 7 * n * n),
            }
        }
        "nbody_local" => {
            let mut p = build("nbody")?;
            p.name = "nbody_local";
            p.file = "nbody_local";
            p.kernel = "nbody_local";
            p.size = format!("{}, tiles of {L1}", p.size);
            p
        }
        _ => return None,
    };
    Some(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_copies_are_aligned_to_a_line_and_hold_the_same_bytes() {
        // A Vec of this size comes from mmap: 16 bytes past a page.
        let data: Vec<f32> = (0..(1 << 18)).map(|i| i as f32 * 0.5).collect();
        let args = vec![
            Arg::I32(7),
            Arg::Buf(Buf::F32(data.clone())),
            Arg::Buf(Buf::U32(vec![])),
        ];
        let mut host = HostArg::copies_of(&args);
        let HostArg::Buf(b) = &mut host[1] else {
            panic!("argument 1 is a buffer")
        };
        assert_eq!(b.as_mut_ptr() as usize % Aligned::ALIGN, 0);
        // SAFETY: the copy holds 2^18 floats.
        unsafe { *b.as_mut_ptr().cast::<f32>().add(3) = -1.0 };
        let mut want = Buf::F32(data).bytes().to_vec();
        want[12..16].copy_from_slice(&(-1.0f32).to_le_bytes());
        assert_eq!(HostArg::output(&host, 1).unwrap(), want);
        assert_eq!(HostArg::output(&host, 2).unwrap(), Vec::<u8>::new());
        assert!(HostArg::output(&host, 0).is_err());
    }
}
