//! Runs kernels of the corpus (`tests/kernels/valid/`, `examples/`) through
//! the front end, `lower_kernel` and the reference interpreter, on
//! deterministic pseudo-random inputs, and compares with results computed
//! here independently, straight from each kernel's mathematical definition
//! (not by translating the IR).
//!
//! Integers are compared bit-exactly. Floats: where the reference performs
//! the same f32 operations in the same order as the kernel, exactly too;
//! otherwise (an f64 reference, or library functions) with the tolerance
//! stated at the comparison.
//!
//! Every kernel runs under several launch shapes: local sizes that do and
//! do not divide the global size, and sub-group widths 1, 4 and 8; results
//! must not depend on them (except where a kernel's result is defined per
//! sub-group, which the reference then models).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::{check_file, check_text, CheckedUnit};
use lanes_vectorizer::interp::{self, ArgValue, ErrorKind, InterpError, NdRange, Options};
use lanes_vectorizer::ir::{Const, Function};
use lanes_vectorizer::lower::lower_kernel;

// ---- plumbing -------------------------------------------------------------

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn check(rel: &str) -> CheckedUnit {
    let unit = check_file(&root().join(rel), &PreprocessOptions::default(), &RealFs)
        .unwrap_or_else(|e| panic!("cannot read {rel}: {e}"));
    assert!(!unit.has_errors(), "{rel}: {:?}", unit.diagnostics);
    unit
}

fn lower(unit: &CheckedUnit, name: &str) -> Function {
    let id = unit
        .hir
        .kernels()
        .into_iter()
        .find(|&k| unit.hir.function(k).name == name)
        .unwrap_or_else(|| panic!("no kernel `{name}`"));
    lower_kernel(&unit.hir, id).unwrap_or_else(|e| {
        let msgs: Vec<&str> = e.iter().map(|e| e.message.as_str()).collect();
        panic!("lowering `{name}` failed: {msgs:?}")
    })
}

/// Kernel `name` of the file at `rel` (relative to the repository root).
fn kernel(rel: &str, name: &str) -> Function {
    lower(&check(rel), name)
}

/// A kernel argument, matched to the IR parameter of the same name.
#[derive(Clone, Debug)]
enum Arg {
    Buf(Vec<u8>),
    I(i64),
    F(f64),
}

fn f32s(xs: &[f32]) -> Arg {
    Arg::Buf(xs.iter().flat_map(|x| x.to_le_bytes()).collect())
}
fn i32s(xs: &[i32]) -> Arg {
    Arg::Buf(xs.iter().flat_map(|x| x.to_le_bytes()).collect())
}
fn u32s(xs: &[u32]) -> Arg {
    Arg::Buf(xs.iter().flat_map(|x| x.to_le_bytes()).collect())
}
fn zeros(bytes: usize) -> Arg {
    Arg::Buf(vec![0; bytes])
}

/// The buffers after a run, by parameter name.
struct Out(HashMap<String, Vec<u8>>);

impl Out {
    fn bytes(&self, name: &str) -> &[u8] {
        self.0
            .get(name)
            .unwrap_or_else(|| panic!("no buffer `{name}`"))
    }
    fn f32s(&self, name: &str) -> Vec<f32> {
        self.bytes(name)
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    fn i32s(&self, name: &str) -> Vec<i32> {
        self.bytes(name)
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    fn u32s(&self, name: &str) -> Vec<u32> {
        self.bytes(name)
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    fn u64s(&self, name: &str) -> Vec<u64> {
        self.bytes(name)
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    fn i64s(&self, name: &str) -> Vec<i64> {
        self.bytes(name)
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap()))
            .collect()
    }
    /// Feeds an output buffer into the next launch.
    fn arg(&self, name: &str) -> Arg {
        Arg::Buf(self.bytes(name).to_vec())
    }
}

fn make_args(f: &Function, named: &[(&str, Arg)]) -> Vec<ArgValue> {
    f.params
        .iter()
        .map(|p| {
            assert!(p.component.is_none(), "vector parameter `{}`", p.name);
            let arg = named
                .iter()
                .find(|(n, _)| *n == p.name.as_str())
                .map(|(_, a)| a.clone())
                .unwrap_or_else(|| panic!("no argument for `{}`", p.name));
            match arg {
                Arg::Buf(b) => ArgValue::Buffer(b),
                Arg::I(v) => ArgValue::Scalar(Const::int(v, p.ty)),
                Arg::F(x) => ArgValue::Scalar(Const::Float(x, p.ty)),
            }
        })
        .collect()
}

fn try_run(
    f: &Function,
    range: NdRange,
    width: u32,
    named: &[(&str, Arg)],
) -> Result<Out, InterpError> {
    let mut args = make_args(f, named);
    interp::run(f, &range, &mut args, width)?;
    let mut out = HashMap::new();
    for (p, a) in f.params.iter().zip(args) {
        if let ArgValue::Buffer(b) = a {
            out.insert(p.name.to_string(), b);
        }
    }
    Ok(Out(out))
}

fn run(f: &Function, range: NdRange, width: u32, named: &[(&str, Arg)]) -> Out {
    try_run(f, range, width, named).unwrap_or_else(|e| panic!("`{}`: {e}", f.name))
}

/// (local size, sub-group width) pairs for 1-D launches: dividing and not
/// dividing the global size, widths 1, 4 and 8.
const SHAPES_1D: [(u64, u32); 4] = [(8, 4), (5, 4), (16, 8), (3, 1)];

/// A 1-D range over `n` items with the global size rounded up to the local
/// size plus one extra group, so the early-return guard is exercised.
fn range1(n: usize, local: u64) -> NdRange {
    let n = n as u64;
    NdRange::new_1d(n.div_ceil(local) * local + local, local)
}

/// (local size, width) pairs for 2-D launches.
const SHAPES_2D: [([u64; 2], u32); 3] = [([4, 2], 4), ([3, 5], 4), ([8, 1], 8)];

fn range2(nx: usize, ny: usize, local: [u64; 2]) -> NdRange {
    // Not rounded: OpenCL 2.0 non-uniform groups at the edges.
    NdRange::new_2d([nx as u64 + 1, ny as u64 + 2], local)
}

/// Deterministic xorshift64* generator.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [lo, hi).
    fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
    fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32(lo, hi)).collect()
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn i32(&mut self) -> i32 {
        self.next() as i32
    }
}

#[track_caller]
fn assert_f32_eq(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{what}[{i}]: got {g:e}, want {w:e}"
        );
    }
}

/// |got - want| <= tol * max(1, |want|).
#[track_caller]
fn assert_close(what: &str, got: &[f32], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let err = (*g as f64 - w).abs();
        assert!(
            err <= tol * w.abs().max(1.0),
            "{what}[{i}]: got {g:e}, want {w:e} (tolerance {tol:e})"
        );
    }
}

// ---- streaming kernels ----------------------------------------------------

#[test]
fn saxpy() {
    for rel in ["tests/kernels/valid/saxpy.cl", "examples/saxpy.cl"] {
        let f = kernel(rel, "saxpy");
        let mut rng = Rng::new(1);
        let n = 37;
        let (x, y) = (rng.f32s(n, -10.0, 10.0), rng.f32s(n, -10.0, 10.0));
        let a = 1.75f32;
        let want: Vec<f32> = (0..n).map(|i| a * x[i] + y[i]).collect();
        for (local, w) in SHAPES_1D {
            let out = run(
                &f,
                range1(n, local),
                w,
                &[
                    ("n", Arg::I(n as i64)),
                    ("a", Arg::F(a as f64)),
                    ("x", f32s(&x)),
                    ("y", f32s(&y)),
                ],
            );
            assert_f32_eq(rel, &out.f32s("y"), &want);
        }
    }
}

#[test]
fn stream_kernels() {
    let unit = check("tests/kernels/valid/stream_triad.cl");
    let mut rng = Rng::new(2);
    let n = 29;
    let (a, b, c) = (
        rng.f32s(n, -5.0, 5.0),
        rng.f32s(n, -5.0, 5.0),
        rng.f32s(n, -5.0, 5.0),
    );
    let q = -0.375f32;
    for (local, w) in SHAPES_1D {
        let r = range1(n, local);
        let copy = run(
            &lower(&unit, "stream_copy"),
            r,
            w,
            &[
                ("a", f32s(&a)),
                ("c", zeros(4 * n)),
                ("n", Arg::I(n as i64)),
            ],
        );
        assert_f32_eq("copy", &copy.f32s("c"), &a);
        let scale = run(
            &lower(&unit, "stream_scale"),
            r,
            w,
            &[
                ("b", zeros(4 * n)),
                ("c", f32s(&c)),
                ("q", Arg::F(q as f64)),
                ("n", Arg::I(n as i64)),
            ],
        );
        let want: Vec<f32> = c.iter().map(|c| q * c).collect();
        assert_f32_eq("scale", &scale.f32s("b"), &want);
        let add = run(
            &lower(&unit, "stream_add"),
            r,
            w,
            &[
                ("a", f32s(&a)),
                ("b", f32s(&b)),
                ("c", zeros(4 * n)),
                ("n", Arg::I(n as i64)),
            ],
        );
        let want: Vec<f32> = (0..n).map(|i| a[i] + b[i]).collect();
        assert_f32_eq("add", &add.f32s("c"), &want);
        let triad = run(
            &lower(&unit, "stream_triad"),
            r,
            w,
            &[
                ("a", zeros(4 * n)),
                ("b", f32s(&b)),
                ("c", f32s(&c)),
                ("q", Arg::F(q as f64)),
                ("n", Arg::I(n as i64)),
            ],
        );
        let want: Vec<f32> = (0..n).map(|i| b[i] + q * c[i]).collect();
        assert_f32_eq("triad", &triad.f32s("a"), &want);
    }
}

// ---- linear algebra -------------------------------------------------------

#[test]
fn gemm_polybench() {
    let f = kernel("tests/kernels/valid/gemm.cl", "gemm");
    let (ni, nj, nk) = (5, 7, 6);
    let mut rng = Rng::new(3);
    let a = rng.f32s(ni * nk, -1.0, 1.0);
    let b = rng.f32s(nk * nj, -1.0, 1.0);
    let c = rng.f32s(ni * nj, -1.0, 1.0);
    let (alpha, beta) = (1.5f32, -0.5f32);
    let mut want = c.clone();
    for i in 0..ni {
        for j in 0..nj {
            let mut acc = 0.0f32;
            for k in 0..nk {
                acc += a[i * nk + k] * b[k * nj + j];
            }
            want[i * nj + j] = beta * c[i * nj + j] + alpha * acc;
        }
    }
    for (local, w) in SHAPES_2D {
        let out = run(
            &f,
            range2(nj, ni, local),
            w,
            &[
                ("ni", Arg::I(ni as i64)),
                ("nj", Arg::I(nj as i64)),
                ("nk", Arg::I(nk as i64)),
                ("alpha", Arg::F(alpha as f64)),
                ("beta", Arg::F(beta as f64)),
                ("C", f32s(&c)),
                ("A", f32s(&a)),
                ("B", f32s(&b)),
            ],
        );
        assert_f32_eq("gemm", &out.f32s("C"), &want);
    }
}

#[test]
fn gemm_example() {
    // examples/gemm.cl accumulates into C directly: C = beta C, then
    // C += (alpha A[i][k]) B[k][j] for each k.
    let f = kernel("examples/gemm.cl", "gemm");
    let (ni, nj, nk) = (4, 9, 3);
    let mut rng = Rng::new(4);
    let a = rng.f32s(ni * nk, -2.0, 2.0);
    let b = rng.f32s(nk * nj, -2.0, 2.0);
    let c = rng.f32s(ni * nj, -2.0, 2.0);
    let (alpha, beta) = (0.5f32, 2.0f32);
    let mut want = c.clone();
    for i in 0..ni {
        for j in 0..nj {
            let mut v = c[i * nj + j] * beta;
            for k in 0..nk {
                v += alpha * a[i * nk + k] * b[k * nj + j];
            }
            want[i * nj + j] = v;
        }
    }
    for (local, w) in SHAPES_2D {
        let out = run(
            &f,
            range2(nj, ni, local),
            w,
            &[
                ("ni", Arg::I(ni as i64)),
                ("nj", Arg::I(nj as i64)),
                ("nk", Arg::I(nk as i64)),
                ("alpha", Arg::F(alpha as f64)),
                ("beta", Arg::F(beta as f64)),
                ("C", f32s(&c)),
                ("A", f32s(&a)),
                ("B", f32s(&b)),
            ],
        );
        assert_f32_eq("gemm example", &out.f32s("C"), &want);
    }
}

#[test]
fn atax_two_kernels() {
    let unit = check("tests/kernels/valid/atax.cl");
    let (ax, aty) = (lower(&unit, "atax_ax"), lower(&unit, "atax_aty"));
    let (nx, ny) = (11, 6);
    let mut rng = Rng::new(5);
    let a = rng.f32s(nx * ny, -1.0, 1.0);
    let x = rng.f32s(ny, -1.0, 1.0);
    let tmp: Vec<f32> = (0..nx)
        .map(|i| (0..ny).fold(0.0f32, |s, j| s + a[i * ny + j] * x[j]))
        .collect();
    let y: Vec<f32> = (0..ny)
        .map(|j| (0..nx).fold(0.0f32, |s, i| s + a[i * ny + j] * tmp[i]))
        .collect();
    for (local, w) in SHAPES_1D {
        let dims = [("nx", Arg::I(nx as i64)), ("ny", Arg::I(ny as i64))];
        let first = run(
            &ax,
            range1(nx, local),
            w,
            &[
                &dims[..],
                &[("A", f32s(&a)), ("x", f32s(&x)), ("tmp", zeros(4 * nx))],
            ]
            .concat(),
        );
        assert_f32_eq("tmp", &first.f32s("tmp"), &tmp);
        let second = run(
            &aty,
            range1(ny, local),
            w,
            &[
                &dims[..],
                &[
                    ("A", f32s(&a)),
                    ("tmp", first.arg("tmp")),
                    ("y", zeros(4 * ny)),
                ],
            ]
            .concat(),
        );
        assert_f32_eq("y", &second.f32s("y"), &y);
    }
}

#[test]
fn bicg_two_kernels() {
    let unit = check("tests/kernels/valid/bicg.cl");
    let (nx, ny) = (9, 13);
    let mut rng = Rng::new(6);
    let a = rng.f32s(nx * ny, -1.0, 1.0);
    let p = rng.f32s(ny, -1.0, 1.0);
    let r = rng.f32s(nx, -1.0, 1.0);
    let q: Vec<f32> = (0..nx)
        .map(|i| (0..ny).fold(0.0f32, |s, j| s + a[i * ny + j] * p[j]))
        .collect();
    let s: Vec<f32> = (0..ny)
        .map(|j| (0..nx).fold(0.0f32, |acc, i| acc + r[i] * a[i * ny + j]))
        .collect();
    for (local, w) in SHAPES_1D {
        let dims = [("nx", Arg::I(nx as i64)), ("ny", Arg::I(ny as i64))];
        let out = run(
            &lower(&unit, "bicg_q"),
            range1(nx, local),
            w,
            &[
                &dims[..],
                &[("A", f32s(&a)), ("p", f32s(&p)), ("q", zeros(4 * nx))],
            ]
            .concat(),
        );
        assert_f32_eq("q", &out.f32s("q"), &q);
        let out = run(
            &lower(&unit, "bicg_s"),
            range1(ny, local),
            w,
            &[
                &dims[..],
                &[("A", f32s(&a)), ("r", f32s(&r)), ("s", zeros(4 * ny))],
            ]
            .concat(),
        );
        assert_f32_eq("s", &out.f32s("s"), &s);
    }
}

#[test]
fn mvt_both_products() {
    let unit = check("tests/kernels/valid/mvt.cl");
    let n = 10;
    let mut rng = Rng::new(7);
    let a = rng.f32s(n * n, -1.0, 1.0);
    let (x1, x2) = (rng.f32s(n, -1.0, 1.0), rng.f32s(n, -1.0, 1.0));
    let (y1, y2) = (rng.f32s(n, -1.0, 1.0), rng.f32s(n, -1.0, 1.0));
    let want1: Vec<f32> = (0..n)
        .map(|i| (0..n).fold(x1[i], |s, j| s + a[i * n + j] * y1[j]))
        .collect();
    let want2: Vec<f32> = (0..n)
        .map(|i| (0..n).fold(x2[i], |s, j| s + a[j * n + i] * y2[j]))
        .collect();
    for (local, w) in SHAPES_1D {
        let out = run(
            &lower(&unit, "mvt_x1"),
            range1(n, local),
            w,
            &[
                ("A", f32s(&a)),
                ("x1", f32s(&x1)),
                ("y1", f32s(&y1)),
                ("n", Arg::I(n as i64)),
            ],
        );
        assert_f32_eq("x1", &out.f32s("x1"), &want1);
        let out = run(
            &lower(&unit, "mvt_x2"),
            range1(n, local),
            w,
            &[
                ("A", f32s(&a)),
                ("x2", f32s(&x2)),
                ("y2", f32s(&y2)),
                ("n", Arg::I(n as i64)),
            ],
        );
        assert_f32_eq("x2", &out.f32s("x2"), &want2);
    }
}

#[test]
fn jacobi_2d_steps() {
    let unit = check("tests/kernels/valid/jacobi_2d.cl");
    let (step, copy) = (
        lower(&unit, "jacobi_2d_step"),
        lower(&unit, "jacobi_2d_copy"),
    );
    let n = 7;
    let mut rng = Rng::new(8);
    let a0 = rng.f32s(n * n, 0.0, 1.0);
    let b0 = vec![0.0f32; n * n];
    // Two time steps by the definition.
    let (mut a, mut b) = (a0.clone(), b0.clone());
    for _ in 0..2 {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                b[i * n + j] = 0.2f32
                    * (a[i * n + j]
                        + a[i * n + j - 1]
                        + a[i * n + j + 1]
                        + a[(i + 1) * n + j]
                        + a[(i - 1) * n + j]);
            }
        }
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                a[i * n + j] = b[i * n + j];
            }
        }
    }
    for (local, w) in SHAPES_2D {
        let (mut ga, mut gb) = (f32s(&a0), f32s(&b0));
        for _ in 0..2 {
            let out = run(
                &step,
                range2(n, n, local),
                w,
                &[("A", ga.clone()), ("B", gb), ("n", Arg::I(n as i64))],
            );
            gb = out.arg("B");
            let out = run(
                &copy,
                range2(n, n, local),
                w,
                &[("A", ga), ("B", gb.clone()), ("n", Arg::I(n as i64))],
            );
            ga = out.arg("A");
        }
        let (Arg::Buf(ga), Arg::Buf(gb)) = (ga, gb) else {
            unreachable!()
        };
        let as_f32 = |v: &[u8]| -> Vec<f32> {
            v.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        assert_f32_eq("A", &as_f32(&ga), &a);
        assert_f32_eq("B", &as_f32(&gb), &b);
    }
}

#[test]
fn spmv_csr_kernels() {
    let unit = check("tests/kernels/valid/spmv_csr.cl");
    let (nrows, ncols) = (13, 9);
    let mut rng = Rng::new(9);
    // Row lengths 0..5, some empty rows.
    let mut row_ptr = vec![0i32];
    let mut col_idx = Vec::new();
    for _ in 0..nrows {
        let len = rng.below(5) as i32;
        for _ in 0..len {
            col_idx.push(rng.below(ncols as u64) as i32);
        }
        row_ptr.push(row_ptr.last().unwrap() + len);
    }
    let nnz = col_idx.len();
    let vals = rng.f32s(nnz, -1.0, 1.0);
    let x = rng.f32s(ncols, -1.0, 1.0);
    let y0 = rng.f32s(nrows, -1.0, 1.0);
    let (alpha, beta) = (2.0f32, 0.25f32);
    let dot = |r: usize, fused: bool| {
        let mut d = 0.0f32;
        for k in row_ptr[r] as usize..row_ptr[r + 1] as usize {
            let xv = x[col_idx[k] as usize];
            d = if fused {
                vals[k].mul_add(xv, d)
            } else {
                d + vals[k] * xv
            };
        }
        d
    };
    let want: Vec<f32> = (0..nrows).map(|r| dot(r, false)).collect();
    let want_axpby: Vec<f32> = (0..nrows)
        .map(|r| {
            if row_ptr[r] == row_ptr[r + 1] {
                beta * y0[r]
            } else {
                alpha * dot(r, true) + beta * y0[r]
            }
        })
        .collect();
    for (local, w) in SHAPES_1D {
        let common = [
            ("nrows", Arg::I(nrows as i64)),
            ("row_ptr", i32s(&row_ptr)),
            ("col_idx", i32s(&col_idx)),
            ("vals", f32s(&vals)),
            ("x", f32s(&x)),
        ];
        let out = run(
            &lower(&unit, "spmv_csr"),
            range1(nrows, local),
            w,
            &[&common[..], &[("y", zeros(4 * nrows))]].concat(),
        );
        assert_f32_eq("spmv", &out.f32s("y"), &want);
        let out = run(
            &lower(&unit, "spmv_csr_axpby"),
            range1(nrows, local),
            w,
            &[
                &common[..],
                &[
                    ("y", f32s(&y0)),
                    ("alpha", Arg::F(alpha as f64)),
                    ("beta", Arg::F(beta as f64)),
                ],
            ]
            .concat(),
        );
        assert_f32_eq("spmv axpby", &out.f32s("y"), &want_axpby);
    }
}

#[test]
fn matrix_transpose() {
    let unit = check("tests/kernels/valid/matrix_transpose.cl");
    let (rows, cols) = (5, 8);
    let mut rng = Rng::new(10);
    let m = rng.f32s(rows * cols, -1.0, 1.0);
    let mu: Vec<u32> = (0..rows * cols).map(|_| rng.next() as u32).collect();
    let mut want = vec![0.0f32; rows * cols];
    let mut want_u = vec![0u32; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            want[c * rows + r] = m[r * cols + c];
            want_u[c * rows + r] = mu[r * cols + c];
        }
    }
    for (local, w) in SHAPES_2D {
        let dims = [("rows", Arg::I(rows as i64)), ("cols", Arg::I(cols as i64))];
        let out = run(
            &lower(&unit, "transpose"),
            range2(cols, rows, local),
            w,
            &[
                &dims[..],
                &[("in", f32s(&m)), ("out", zeros(4 * rows * cols))],
            ]
            .concat(),
        );
        assert_f32_eq("transpose", &out.f32s("out"), &want);
        let out = run(
            &lower(&unit, "transpose_write_major"),
            range2(rows, cols, local),
            w,
            &[
                &dims[..],
                &[("in", u32s(&mu)), ("out", zeros(4 * rows * cols))],
            ]
            .concat(),
        );
        assert_eq!(out.u32s("out"), want_u);
    }
}

#[test]
fn nbody_step() {
    let f = kernel("tests/kernels/valid/nbody.cl", "nbody_step");
    let n = 9;
    let mut rng = Rng::new(11);
    let mut pos = Vec::new();
    let mut vel = Vec::new();
    for _ in 0..n {
        pos.extend([
            rng.f32(-1.0, 1.0),
            rng.f32(-1.0, 1.0),
            rng.f32(-1.0, 1.0),
            rng.f32(0.5, 2.0),
        ]);
        vel.extend([
            rng.f32(-0.1, 0.1),
            rng.f32(-0.1, 0.1),
            rng.f32(-0.1, 0.1),
            rng.f32(0.0, 1.0),
        ]);
    }
    let (dt, eps2) = (0.01f64, 0.05f64);
    // f64 reference of the definition: a_i = sum_j m_j d / (|d|^2 + eps2)^(3/2).
    let mut want_pos = vec![0.0f64; 4 * n];
    let mut want_vel = vec![0.0f64; 4 * n];
    for i in 0..n {
        let p = |k: usize, c: usize| pos[4 * k + c] as f64;
        let mut acc = [0.0f64; 3];
        for j in 0..n {
            let d = [p(j, 0) - p(i, 0), p(j, 1) - p(i, 1), p(j, 2) - p(i, 2)];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
            let s = p(j, 3) / (r2 * r2.sqrt());
            for c in 0..3 {
                acc[c] += s * d[c];
            }
        }
        for c in 0..3 {
            let v = vel[4 * i + c] as f64 + acc[c] * dt;
            want_vel[4 * i + c] = v;
            want_pos[4 * i + c] = p(i, c) + v * dt;
        }
        want_vel[4 * i + 3] = vel[4 * i + 3] as f64;
        want_pos[4 * i + 3] = p(i, 3);
    }
    for (local, w) in SHAPES_1D {
        let out = run(
            &f,
            range1(n, local),
            w,
            &[
                ("pos", f32s(&pos)),
                ("vel", f32s(&vel)),
                ("new_pos", zeros(16 * n)),
                ("new_vel", zeros(16 * n)),
                ("n", Arg::I(n as i64)),
                ("dt", Arg::F(dt)),
                ("eps2", Arg::F(eps2)),
            ],
        );
        // f32 sums of 9 terms against an f64 reference.
        assert_close("new_vel", &out.f32s("new_vel"), &want_vel, 1e-5);
        assert_close("new_pos", &out.f32s("new_pos"), &want_pos, 1e-5);
    }
}

// ---- stencils -------------------------------------------------------------

#[test]
fn convolution_1d_clipped_at_the_border() {
    for (rel, name) in [
        ("tests/kernels/valid/convolution_1d.cl", "convolution_1d"),
        ("examples/convolution.cl", "convolution"),
    ] {
        let f = kernel(rel, name);
        let width = 23;
        let mut rng = Rng::new(12);
        let input = rng.f32s(width, -1.0, 1.0);
        for sw in [1usize, 5, 7] {
            let stencil = rng.f32s(sw, 0.0, 1.0);
            let vstep = (sw as i64 - 1) / 2;
            let want: Vec<f32> = (0..width as i64)
                .map(|x| {
                    let mut sum = 0.0f32;
                    for i in (x - vstep).max(0)..=(x + vstep).min(width as i64 - 1) {
                        sum += input[i as usize] * stencil[(i - (x - vstep)) as usize];
                    }
                    sum
                })
                .collect();
            for (local, w) in SHAPES_1D {
                let out = run(
                    &f,
                    range1(width, local),
                    w,
                    &[
                        ("input", f32s(&input)),
                        ("output", zeros(4 * width)),
                        ("stencil", f32s(&stencil)),
                        ("width", Arg::I(width as i64)),
                        ("stencilWidth", Arg::I(sw as i64)),
                    ],
                );
                assert_f32_eq(rel, &out.f32s("output"), &want);
            }
        }
    }
}

// ---- divergent loops ------------------------------------------------------

#[test]
fn prefix_sums() {
    let unit = check("tests/kernels/valid/prefix_sum.cl");
    let (rows, row_len) = (6, 7);
    let mut rng = Rng::new(13);
    let m = rng.f32s(rows * row_len, -1.0, 1.0);
    let mut want = vec![0.0f32; rows * row_len];
    for r in 0..rows {
        let mut acc = 0.0f32;
        for j in 0..row_len {
            acc += m[r * row_len + j];
            want[r * row_len + j] = acc;
        }
    }
    // Segments of lengths 0..6 over a longer values array, with wrapping sums.
    let nsegs = 11;
    let mut offsets = vec![2i32];
    for _ in 0..nsegs {
        offsets.push(offsets.last().unwrap() + rng.below(6) as i32);
    }
    let total = *offsets.last().unwrap() as usize + 3;
    let values: Vec<u32> = (0..total).map(|_| rng.next() as u32).collect();
    let out0: Vec<u32> = (0..total).map(|k| 7 * k as u32).collect();
    let mut want_seg = out0.clone();
    for s in 0..nsegs {
        let mut acc = 0u32;
        for k in offsets[s] as usize..offsets[s + 1] as usize {
            want_seg[k] = acc;
            acc = acc.wrapping_add(values[k]);
        }
    }
    for (local, w) in SHAPES_1D {
        let out = run(
            &lower(&unit, "row_prefix_sum"),
            range1(rows, local),
            w,
            &[
                ("in", f32s(&m)),
                ("out", zeros(4 * rows * row_len)),
                ("rows", Arg::I(rows as i64)),
                ("row_len", Arg::I(row_len as i64)),
            ],
        );
        assert_f32_eq("row prefix", &out.f32s("out"), &want);
        let out = run(
            &lower(&unit, "segment_prefix_sum"),
            range1(nsegs, local),
            w,
            &[
                ("values", u32s(&values)),
                ("out", u32s(&out0)),
                ("offsets", i32s(&offsets)),
                ("nsegs", Arg::I(nsegs as i64)),
            ],
        );
        assert_eq!(out.u32s("out"), want_seg);
    }
}

#[test]
fn binary_searches() {
    let unit = check("tests/kernels/valid/binary_search.cl");
    let mut rng = Rng::new(14);
    // Strictly increasing, so find_exact's answer is unique.
    let mut sorted: Vec<u32> = Vec::new();
    let mut v = 0u32;
    for _ in 0..40 {
        v += 1 + rng.below(5) as u32;
        sorted.push(v);
    }
    let mut keys: Vec<u32> = (0..30).map(|_| rng.below(v as u64 + 10) as u32).collect();
    keys.extend([0, v, v + 1, sorted[0]]);
    let nkeys = keys.len();
    let lower_bound: Vec<i32> = keys
        .iter()
        .map(|&k| sorted.partition_point(|&x| x < k) as i32)
        .collect();
    let exact: Vec<i32> = keys
        .iter()
        .map(|&k| sorted.iter().position(|&x| x == k).map_or(-1, |p| p as i32))
        .collect();
    for (local, w) in SHAPES_1D {
        for (name, want) in [("lower_bound_search", &lower_bound), ("find_exact", &exact)] {
            let out = run(
                &lower(&unit, name),
                range1(nkeys, local),
                w,
                &[
                    ("sorted", u32s(&sorted)),
                    ("n", Arg::I(sorted.len() as i64)),
                    ("keys", u32s(&keys)),
                    ("result", zeros(4 * nkeys)),
                    ("nkeys", Arg::I(nkeys as i64)),
                ],
            );
            assert_eq!(&out.i32s("result"), want, "{name}");
        }
    }
    // An empty array: lower bound 0, nothing found, no access at all.
    let out = run(
        &lower(&unit, "find_exact"),
        range1(3, 4),
        4,
        &[
            ("sorted", u32s(&[])),
            ("n", Arg::I(0)),
            ("keys", u32s(&[1, 2, 3])),
            ("result", zeros(12)),
            ("nkeys", Arg::I(3)),
        ],
    );
    assert_eq!(out.i32s("result"), vec![-1; 3]);
}

#[test]
fn mandelbrot_escape_times() {
    for rel in [
        "tests/kernels/valid/mandelbrot.cl",
        "examples/mandelbrot.cl",
    ] {
        let f = kernel(rel, "mandelbrot");
        let (width, height) = (13, 9);
        let (x_min, y_min, step) = (-2.0f32, -1.0f32, 0.2f32);
        let max_iter = 50u32;
        // The escape-time definition, in f32 as the kernel computes it.
        let mut want = vec![0u32; width * height];
        for py in 0..height {
            for px in 0..width {
                let cr = x_min + px as f32 * step;
                let ci = y_min + py as f32 * step;
                let (mut zr, mut zi, mut it) = (0.0f32, 0.0f32, 0u32);
                while it < max_iter && zr * zr + zi * zi <= 4.0 {
                    let t = zr * zr - zi * zi + cr;
                    zi = 2.0 * zr * zi + ci;
                    zr = t;
                    it += 1;
                }
                want[py * width + px] = it;
            }
        }
        assert!(want.contains(&max_iter) && want.iter().any(|&i| i < 3));
        for (local, w) in SHAPES_2D {
            let out = run(
                &f,
                range2(width, height, local),
                w,
                &[
                    ("iterations", zeros(4 * width * height)),
                    ("width", Arg::I(width as i64)),
                    ("height", Arg::I(height as i64)),
                    ("x_min", Arg::F(x_min as f64)),
                    ("y_min", Arg::F(y_min as f64)),
                    ("step", Arg::F(step as f64)),
                    ("max_iter", Arg::I(max_iter as i64)),
                ],
            );
            assert_eq!(out.u32s("iterations"), want, "{rel}");
        }
    }
}

#[test]
fn black_scholes_prices() {
    let f = kernel("tests/kernels/valid/black_scholes.cl", "black_scholes");
    let n = 21;
    let mut rng = Rng::new(15);
    let s = rng.f32s(n, 5.0, 30.0);
    let x = rng.f32s(n, 1.0, 100.0);
    let t = rng.f32s(n, 0.25, 10.0);
    let (r, v) = (0.02f64, 0.30f64);
    // The Black-Scholes formula with the Abramowitz-Stegun CND, in f64.
    let cnd = |d: f64| {
        let k = 1.0 / (1.0 + 0.2316419 * d.abs());
        let poly = k
            * (0.31938153
                + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
        let c = (-0.5 * d * d).exp() * poly / (2.0 * std::f64::consts::PI).sqrt();
        if d > 0.0 {
            1.0 - c
        } else {
            c
        }
    };
    let mut call = Vec::new();
    let mut put = Vec::new();
    for i in 0..n {
        let (s, x, t) = (s[i] as f64, x[i] as f64, t[i] as f64);
        let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * t.sqrt());
        let d2 = d1 - v * t.sqrt();
        let e = (-r * t).exp();
        call.push(s * cnd(d1) - x * e * cnd(d2));
        put.push(x * e * (1.0 - cnd(d2)) - s * (1.0 - cnd(d1)));
    }
    for (local, w) in SHAPES_1D {
        let out = run(
            &f,
            range1(n, local),
            w,
            &[
                ("call", zeros(4 * n)),
                ("put", zeros(4 * n)),
                ("S", f32s(&s)),
                ("X", f32s(&x)),
                ("T", f32s(&t)),
                ("R", Arg::F(r)),
                ("V", Arg::F(v)),
                ("n", Arg::I(n as i64)),
            ],
        );
        // f32 evaluation of prices up to ~100 against f64: 1e-4 relative
        // (absolute below 1) covers the cancellation in `s * N(d1) - ...`.
        assert_close("call", &out.f32s("call"), &call, 1e-4);
        assert_close("put", &out.f32s("put"), &put, 1e-4);
    }
}

// ---- integers -------------------------------------------------------------

#[test]
fn radix_digit_count() {
    let f = kernel(
        "tests/kernels/valid/radix_digit_count.cl",
        "radix_digit_count",
    );
    let mut rng = Rng::new(16);
    let n: usize = 53;
    let block_size: usize = 8;
    let nblocks = n.div_ceil(block_size);
    let keys: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    for shift in [0u32, 4, 28] {
        let mut want = vec![0u32; 16 * nblocks];
        for (k, key) in keys.iter().enumerate() {
            let b = k / block_size;
            let d = ((key >> shift) & 15) as usize;
            want[d * nblocks + b] += 1;
        }
        for (local, w) in SHAPES_1D {
            let out = run(
                &f,
                range1(nblocks, local),
                w,
                &[
                    ("keys", u32s(&keys)),
                    ("counts", zeros(4 * 16 * nblocks)),
                    ("n", Arg::I(n as i64)),
                    ("block_size", Arg::I(block_size as i64)),
                    ("nblocks", Arg::I(nblocks as i64)),
                    ("shift", Arg::I(shift as i64)),
                ],
            );
            assert_eq!(out.u32s("counts"), want, "shift {shift}");
        }
    }
}

#[test]
fn bitonic_sort_network_sorts() {
    let f = kernel(
        "tests/kernels/valid/bitonic_sort_step.cl",
        "bitonic_sort_step",
    );
    let mut rng = Rng::new(17);
    let k = 5;
    let n = 1usize << k;
    let data: Vec<u32> = (0..n).map(|_| rng.below(1000) as u32).collect();
    for ascending in [1i64, 0] {
        for (local, w) in [(4u64, 4u32), (3, 8)] {
            let mut buf = u32s(&data);
            for stage in 0..k {
                for pass in 0..=stage {
                    let out = run(
                        &f,
                        range1(n / 2, local),
                        w,
                        &[
                            ("data", buf),
                            ("n", Arg::I(n as i64)),
                            ("stage", Arg::I(stage as i64)),
                            ("pass", Arg::I(pass as i64)),
                            ("ascending", Arg::I(ascending)),
                        ],
                    );
                    buf = out.arg("data");
                }
            }
            let Arg::Buf(bytes) = buf else { unreachable!() };
            let got: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let mut want = data.clone();
            want.sort_unstable();
            if ascending == 0 {
                want.reverse();
            }
            assert_eq!(got, want, "ascending {ascending}");
        }
    }
}

fn int_inputs(n: usize, seed: u64) -> (Vec<i32>, Vec<i32>) {
    let mut rng = Rng::new(seed);
    let mut a: Vec<i32> = (0..n).map(|_| rng.i32()).collect();
    let mut b: Vec<i32> = (0..n).map(|_| rng.i32()).collect();
    // Edge values first.
    let edges = [i32::MIN, i32::MAX, -1, 0, 1, -1000, 1000, 255];
    for (k, e) in edges.iter().enumerate() {
        a[k] = *e;
        b[(k + 3) % edges.len()] = *e;
    }
    (a, b)
}

#[test]
fn integer_builtins() {
    let f = kernel("tests/kernels/valid/integer_ops.cl", "int_builtins");
    let n = 41;
    let (a, b) = int_inputs(n, 18);
    let mut want = vec![0i32; 8 * n];
    let mut want_u = vec![0u32; 8 * n];
    for i in 0..n {
        let (x, y) = (a[i], b[i]);
        let (xs, ys) = (x & 0x7fff, (y >> 16) & 0x7fff);
        let clamp = |v: i32| v.clamp(-1000, 1000);
        want[8 * i..8 * i + 8].copy_from_slice(&[
            x.min(y),
            x.max(y),
            clamp(x),
            xs * ys,
            xs * ys + clamp(y),
            x >> 4,
            (x & 0xff) - (y & 0xff),
            (if x > y { y } else { x }) & 0xffff,
        ]);
        let (ux, uy) = (x as u32, y as u32);
        want_u[8 * i..8 * i + 8].copy_from_slice(&[
            x.unsigned_abs(),
            (x as i64 - y as i64).unsigned_abs() as u32,
            ux.count_ones(),
            uy.leading_zeros(),
            ux.rotate_left(uy & 31),
            (ux << (uy & 31)) ^ (ux >> 3),
            ux.wrapping_mul(2_654_435_761).wrapping_add(uy),
            !ux & (uy | 0x0f0f_0f0f),
        ]);
    }
    for (local, w) in SHAPES_1D {
        let out = run(
            &f,
            range1(n, local),
            w,
            &[
                ("a", i32s(&a)),
                ("b", i32s(&b)),
                ("out", zeros(32 * n)),
                ("uout", zeros(32 * n)),
                ("n", Arg::I(n as i64)),
            ],
        );
        assert_eq!(out.i32s("out"), want);
        assert_eq!(out.u32s("uout"), want_u);
    }
}

#[test]
fn integer_division_and_wide_arithmetic() {
    let unit = check("tests/kernels/valid/integer_ops.cl");
    let n = 37;
    let (a, b) = int_inputs(n, 19);
    let mut want = vec![0i32; 4 * n];
    let mut want_u = vec![0u32; 4 * n];
    let mut wide = vec![0u64; 2 * n];
    let mut sl = vec![0i64; n];
    for i in 0..n {
        let x = a[i];
        let d = (b[i] & 0xff) + 1;
        want[4 * i..4 * i + 4].copy_from_slice(&[x / d, x % d, x, (x % 7 + 7) % 7]);
        let (ux, ud) = (x as u32, d as u32);
        want_u[4 * i..4 * i + 4].copy_from_slice(&[ux / ud, ux % ud, ux / 10, ux % 1024]);
        let prod = (a[i] as u32 as u64) * (b[i] as u32 as u64);
        let (hi, lo) = (prod >> 32, prod & 0xffff_ffff);
        wide[2 * i] = prod.wrapping_add(hi ^ lo);
        wide[2 * i + 1] = hi;
        sl[i] = a[i] as i64 * b[i] as i64 - (a[i] / 3) as i64;
    }
    for (local, w) in SHAPES_1D {
        let out = run(
            &lower(&unit, "div_mod"),
            range1(n, local),
            w,
            &[
                ("a", i32s(&a)),
                ("b", i32s(&b)),
                ("out", zeros(16 * n)),
                ("uout", zeros(16 * n)),
                ("n", Arg::I(n as i64)),
            ],
        );
        assert_eq!(out.i32s("out"), want);
        assert_eq!(out.u32s("uout"), want_u);
        let out = run(
            &lower(&unit, "wide_arith"),
            range1(n, local),
            w,
            &[
                ("a", i32s(&a)),
                ("b", i32s(&b)),
                ("wide", zeros(16 * n)),
                ("sl", zeros(8 * n)),
                ("n", Arg::I(n as i64)),
            ],
        );
        assert_eq!(out.u64s("wide"), wide);
        assert_eq!(out.i64s("sl"), sl);
    }
}

#[test]
fn histogram_equalize_through_constant_memory() {
    let f = kernel("tests/kernels/valid/histogram_equalize.cl", "equalize");
    let mut rng = Rng::new(20);
    let n = 45;
    let input: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
    let lut: Vec<u8> = (0..256).map(|_| rng.next() as u8).collect();
    let want: Vec<u8> = input.iter().map(|&p| lut[p as usize]).collect();
    for (local, w) in SHAPES_1D {
        let out = run(
            &f,
            range1(n, local),
            w,
            &[
                ("in", Arg::Buf(input.clone())),
                ("out", zeros(n)),
                ("lut", Arg::Buf(lut.clone())),
                ("n", Arg::I(n as i64)),
            ],
        );
        assert_eq!(out.bytes("out"), &want[..]);
    }
}

// ---- private memory and structs ------------------------------------------

#[test]
fn private_arrays() {
    let unit = check("tests/kernels/valid/private_arrays.cl");
    let n = 17;
    let mut rng = Rng::new(21);
    let input = rng.f32s(n, -1.0, 1.0);
    let median: Vec<f32> = (0..n as i64)
        .map(|i| {
            let mut w: Vec<f32> = (0..5)
                .map(|k| input[(i + k - 2).clamp(0, n as i64 - 1) as usize])
                .collect();
            w.sort_by(|a, b| a.partial_cmp(b).unwrap());
            w[2]
        })
        .collect();
    let mats = rng.f32s(9 * n, -1.0, 1.0);
    let v = rng.f32s(3 * n, -1.0, 1.0);
    let mut applied = vec![0.0f32; 3 * n];
    for i in 0..n {
        for r in 0..3 {
            let mut acc = 0.0f32;
            for c in 0..3 {
                acc += mats[9 * i + 3 * r + c] * v[3 * i + c];
            }
            applied[3 * i + r] = acc;
        }
    }
    let words: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    let order = [3, 0, 7, 5, 1, 6, 2, 4];
    // remap reverses the 4 bits of a nibble.
    let permuted: Vec<u32> = words
        .iter()
        .map(|&x| {
            (0..8).fold(0u32, |r, k| {
                let nib = (x >> (4 * order[k])) & 0xf;
                let rev = (nib.reverse_bits() >> 28) & 0xf;
                r | rev << (4 * k)
            })
        })
        .collect();
    for (local, w) in SHAPES_1D {
        let out = run(
            &lower(&unit, "median5"),
            range1(n, local),
            w,
            &[
                ("in", f32s(&input)),
                ("out", zeros(4 * n)),
                ("n", Arg::I(n as i64)),
            ],
        );
        assert_f32_eq("median5", &out.f32s("out"), &median);
        let out = run(
            &lower(&unit, "mat3_apply"),
            range1(n, local),
            w,
            &[
                ("mats", f32s(&mats)),
                ("v", f32s(&v)),
                ("out", zeros(12 * n)),
                ("n", Arg::I(n as i64)),
            ],
        );
        assert_f32_eq("mat3_apply", &out.f32s("out"), &applied);
        let out = run(
            &lower(&unit, "permute_nibbles"),
            range1(n, local),
            w,
            &[
                ("in", u32s(&words)),
                ("out", zeros(4 * n)),
                ("n", Arg::I(n as i64)),
            ],
        );
        assert_eq!(out.u32s("out"), permuted);
    }
}

#[test]
fn struct_records_in_global_memory() {
    let f = kernel("tests/kernels/valid/structs.cl", "kinetic_energy");
    let n = 14;
    let mut rng = Rng::new(22);
    // Particle: pos (2 floats), vel (2 floats), mass, alive: 24 bytes.
    let mut bytes = Vec::new();
    let mut want = Vec::new();
    for i in 0..n {
        let fields = rng.f32s(5, -2.0, 2.0);
        let mass = fields[4].abs();
        let alive = (i % 3 != 0) as i32;
        for x in &fields[..4] {
            bytes.extend(x.to_le_bytes());
        }
        bytes.extend(mass.to_le_bytes());
        bytes.extend(alive.to_le_bytes());
        let (vx, vy) = (fields[2], fields[3]);
        want.push(if alive != 0 {
            0.5f32 * mass * (vx * vx + vy * vy)
        } else {
            0.0
        });
    }
    for (local, w) in SHAPES_1D {
        let out = run(
            &f,
            range1(n, local),
            w,
            &[
                ("ps", Arg::Buf(bytes.clone())),
                ("energy", zeros(4 * n)),
                ("n", Arg::I(n as i64)),
            ],
        );
        assert_f32_eq("energy", &out.f32s("energy"), &want);
    }
}

// ---- sub-groups -----------------------------------------------------------

/// The sub-groups of a 1-D launch: ranges of global ids.
fn sub_groups(global: usize, local: usize, width: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut g = 0;
    while g < global {
        let end = (g + local).min(global);
        let mut s = g;
        while s < end {
            out.push(s..(s + width).min(end));
            s += width;
        }
        g = end;
    }
    out
}

#[test]
fn sub_group_statistics() {
    let f = kernel("tests/kernels/valid/sub_groups.cl", "subgroup_stats");
    let n = 27;
    let (a, _) = int_inputs(n, 23);
    // (local, width): multiples as the launch comment asks, and a local
    // size that is not a multiple of the width (partial sub-groups).
    for (local, w) in [(8usize, 4u32), (16, 8), (8, 8), (10, 4), (6, 1)] {
        let global = n.div_ceil(local) * local;
        let mut want = vec![0i32; 8 * n];
        for sg in sub_groups(global, local, w as usize) {
            let v = |i: usize| if i < n { a[i] } else { 0 };
            let small = |i: usize| v(i) & 0xffff;
            let total = sg.clone().fold(0i32, |s, i| s.wrapping_add(small(i)));
            let lo = sg
                .clone()
                .map(|i| if i < n { v(i) } else { i32::MAX })
                .min()
                .unwrap();
            let hi = sg
                .clone()
                .map(|i| if i < n { v(i) } else { i32::MIN })
                .max()
                .unwrap();
            let any_neg = sg.clone().any(|i| v(i) < 0);
            let all_pos = sg.clone().all(|i| v(i) > 0);
            for i in sg.clone() {
                if i >= n {
                    continue;
                }
                let lane = i - sg.start;
                let incl = (sg.start..=i).fold(0i32, |s, k| s.wrapping_add(small(k)));
                let excl_max = (sg.start..i).map(v).max().unwrap_or(i32::MIN);
                want[8 * i..8 * i + 8].copy_from_slice(&[
                    total,
                    lo,
                    hi,
                    incl,
                    excl_max,
                    v(sg.start),
                    (any_neg as i32) | ((all_pos as i32) << 1),
                    (lane * 100 + sg.len()) as i32,
                ]);
            }
        }
        let out = run(
            &f,
            NdRange::new_1d(global as u64, local as u64),
            w,
            &[
                ("in", i32s(&a)),
                ("out", zeros(32 * n)),
                ("n", Arg::I(n as i64)),
            ],
        );
        assert_eq!(out.i32s("out"), want, "local {local} width {w}");
    }
}

#[test]
fn sub_group_guarded_branch() {
    let f = kernel("tests/kernels/valid/sub_groups.cl", "clamp_negative");
    let n = 30;
    let mut rng = Rng::new(24);
    let mut x = rng.f32s(n, -3000.0, 100.0);
    // A whole sub-group of non-negative values (skips the branch).
    for v in &mut x[8..16] {
        *v = v.abs();
    }
    let want: Vec<f32> = x
        .iter()
        .map(|&v| if v < 0.0 { (-v * 0.5).min(1.0e3) } else { v })
        .collect();
    for (local, w) in [(8u64, 4u32), (16, 8), (5, 4)] {
        let global = (n as u64).div_ceil(local) * local;
        let out = run(
            &f,
            NdRange::new_1d(global, local),
            w,
            &[("x", f32s(&x)), ("n", Arg::I(n as i64))],
        );
        assert_f32_eq("clamp_negative", &out.f32s("x"), &want);
    }
}

#[test]
fn sub_group_operations_in_a_divergent_loop_run_in_lock_step() {
    // Iteration k of the loop is executed together by the lanes of a
    // sub-group with trip count > k (the lock-step order); lanes that
    // `continue` (a second back edge) skip the operations of that
    // iteration and must not run ahead into the next one.
    let src = "__kernel void k(__global const int *trips, __global int *out)\n\
               {\n\
               \x20   int i = get_global_id(0);\n\
               \x20   int acc = 0;\n\
               \x20   for (int k = 0; k < trips[i]; k++) {\n\
               \x20       if ((k + i) % 3 == 1)\n\
               \x20           continue;\n\
               \x20       acc += sub_group_reduce_add(1) * 100 + sub_group_scan_exclusive_add(1);\n\
               \x20   }\n\
               \x20   out[i] = acc + 10000 * sub_group_reduce_add(1);\n\
               }\n";
    let unit = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let f = lower(&unit, "k");
    let trips: [i32; 10] = [3, 1, 4, 0, 5, 2, 6, 2, 1, 0];
    let n = trips.len();
    for (local, w) in [(8usize, 4u32), (10, 4), (5, 8), (10, 1)] {
        let mut want = vec![0i32; n];
        for sg in sub_groups(n, local, w as usize) {
            for l in sg.clone() {
                let mut acc = 0;
                for k in 0..trips[l] {
                    if (k as usize + l) % 3 == 1 {
                        continue;
                    }
                    let active: Vec<usize> = sg
                        .clone()
                        .filter(|&m| trips[m] > k && (k as usize + m) % 3 != 1)
                        .collect();
                    let before = active.iter().filter(|&&m| m < l).count();
                    acc += active.len() as i32 * 100 + before as i32;
                }
                want[l] = acc + 10000 * sg.len() as i32;
            }
        }
        let out = run(
            &f,
            NdRange::new_1d(n as u64, local as u64),
            w,
            &[("trips", i32s(&trips)), ("out", zeros(4 * n))],
        );
        assert_eq!(out.i32s("out"), want, "local {local} width {w}");
    }
}

#[test]
fn union_members_reinterpret_the_same_bytes() {
    // Writing one member and reading another is C's type punning: the float
    // member's bits through the uint one, a uchar view of the same bytes, a
    // brace list that zeroes the bytes its member does not cover, and a
    // copy of the whole union.
    let src = "typedef union { float f; uint u; uchar b[4]; } Bits;\n\
               union Wide { uchar c; ulong l; };\n\
               __kernel void k(__global const float *in, __global uint *out)\n\
               {\n\
               \x20   int i = get_global_id(0);\n\
               \x20   Bits x;\n\
               \x20   x.f = in[i];\n\
               \x20   Bits y = x;\n\
               \x20   union Wide w = { 7 };\n\
               \x20   out[3 * i] = y.u;\n\
               \x20   out[3 * i + 1] = y.b[3];\n\
               \x20   out[3 * i + 2] = (uint)w.l;\n\
               }\n";
    let unit = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let f = lower(&unit, "k");
    let input = [1.0f32, -2.5, 0.15625, 3.0e10];
    let out = run(
        &f,
        NdRange::new_1d(4, 4),
        4,
        &[("in", f32s(&input)), ("out", zeros(4 * 12))],
    );
    let want: Vec<u32> = input
        .iter()
        .flat_map(|x| [x.to_bits(), x.to_bits() >> 24, 7])
        .collect();
    assert_eq!(out.u32s("out"), want);
}

#[test]
fn compound_literals_are_objects_initialized_where_they_are_evaluated() {
    // A struct literal with designators passed to and returned from a
    // helper, one without designators, an array literal indexed in place,
    // the address of a literal (omitted fields are zero), literals under
    // `?:` (only the chosen one is evaluated), and an array literal in a
    // loop, initialized again in every iteration.
    let src = "struct range { float lo; float hi; };\n\
               struct range merge(struct range a, struct range b)\n\
               {\n\
               \x20   return (struct range){ .hi = fmax(a.hi, b.hi), .lo = fmin(a.lo, b.lo) };\n\
               }\n\
               __kernel void k(__global const float *in, __global float *out)\n\
               {\n\
               \x20   int i = get_global_id(0);\n\
               \x20   float x = in[i];\n\
               \x20   struct range r = merge((struct range){ x, x }, (struct range){ .lo = -x, .hi = 2.0f * x });\n\
               \x20   struct range *p = &(struct range){ .hi = x };\n\
               \x20   float w = ((float[]){ 0.25f, 0.5f, 0.25f })[i % 3];\n\
               \x20   float c = x > 1.0f ? ((float[]){ 10.0f, 20.0f })[1] : (struct range){ .lo = 30.0f }.lo;\n\
               \x20   float acc = 0.0f;\n\
               \x20   for (int k = 0; k < 3; k++) {\n\
               \x20       float *q = (float[2]){ (float)k };\n\
               \x20       acc += q[0] + q[1];\n\
               \x20       q[1] = 50.0f;\n\
               \x20   }\n\
               \x20   out[6 * i] = r.lo;\n\
               \x20   out[6 * i + 1] = r.hi;\n\
               \x20   out[6 * i + 2] = p->lo + p->hi;\n\
               \x20   out[6 * i + 3] = w;\n\
               \x20   out[6 * i + 4] = c;\n\
               \x20   out[6 * i + 5] = acc;\n\
               }\n";
    let unit = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let f = lower(&unit, "k");
    let input = [0.5f32, 1.5, -2.0, 3.0];
    let out = run(
        &f,
        NdRange::new_1d(4, 4),
        4,
        &[("in", f32s(&input)), ("out", zeros(4 * 24))],
    );
    let want: Vec<f32> = input
        .iter()
        .enumerate()
        .flat_map(|(i, &x)| {
            let w = [0.25, 0.5, 0.25][i % 3];
            let c = if x > 1.0 { 20.0 } else { 30.0 };
            [x.min(-x), x.max(2.0 * x), x, w, c, 3.0]
        })
        .collect();
    assert_eq!(out.f32s("out"), want);
}

// ---- errors at the right place --------------------------------------------

/// Checks `src` as a file named `t.cl`, lowers kernel `k`, runs it on
/// `global` work-items with buffers `in` and `out` of 8 ints each.
fn run_inline(src: &str, global: u64, step_limit: u64) -> (CheckedUnit, Result<(), InterpError>) {
    let unit = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let f = lower(&unit, "k");
    let mut args = make_args(
        &f,
        &[
            ("in", i32s(&[1, 2, 3, 4, 5, 6, 7, 8])),
            ("out", zeros(32)),
            ("n", Arg::I(8)),
        ],
    );
    let opts = Options {
        sub_group_width: 4,
        step_limit,
        check_all_races: false,
    };
    let r = interp::run_with(&f, &NdRange::new_1d(global, 4), &mut args, &opts).map(|_| ());
    (unit, r)
}

/// The 1-based line and column of the error's span.
fn line_col(unit: &CheckedUnit, e: &InterpError) -> (u32, u32) {
    unit.sources.line_col(e.span.file, e.span.start)
}

#[test]
fn out_of_bounds_load_reports_line_and_column() {
    let src = "__kernel void k(__global const int *in, __global int *out, int n)\n\
               {\n\
               \x20   int i = get_global_id(0);\n\
               \x20   out[i] = in[i + 1];\n\
               }\n";
    let (unit, r) = run_inline(src, 8, u64::MAX);
    let e = r.unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfBounds);
    assert_eq!(e.work_item, [7, 0, 0]);
    assert_eq!(line_col(&unit, &e), (4, 14), "{}", e.render(&unit.sources));
    assert!(e.message.contains("buffer `in`"), "{}", e.message);
    assert!(e.message.contains("offset 32"), "{}", e.message);
    assert!(e
        .render(&unit.sources)
        .starts_with("t.cl:4:14: out of bounds"));
}

#[test]
fn out_of_bounds_store_reports_line_and_column() {
    let src = "__kernel void k(__global const int *in, __global int *out, int n)\n\
               {\n\
               \x20   int i = get_global_id(0);\n\
               \x20   if (i < n)\n\
               \x20       out[2 * i] = in[i];\n\
               }\n";
    let (unit, r) = run_inline(src, 8, u64::MAX);
    let e = r.unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfBounds);
    assert_eq!(e.work_item, [4, 0, 0]);
    assert_eq!(line_col(&unit, &e), (5, 9), "{}", e.render(&unit.sources));
    assert!(
        e.message
            .contains("store of 4 bytes at offset 32 of buffer `out`"),
        "{}",
        e.message
    );
}

#[test]
fn private_array_overflow_is_out_of_bounds() {
    let src = "__kernel void k(__global const int *in, __global int *out, int n)\n\
               {\n\
               \x20   int i = get_global_id(0);\n\
               \x20   int a[4];\n\
               \x20   for (int k = 0; k <= i; k++)\n\
               \x20       a[k] = in[k];\n\
               \x20   out[i] = a[0];\n\
               }\n";
    let (unit, r) = run_inline(src, 8, u64::MAX);
    let e = r.unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfBounds);
    assert_eq!(e.work_item, [4, 0, 0]);
    assert_eq!(line_col(&unit, &e), (6, 9), "{}", e.render(&unit.sources));
    assert!(e.message.contains("private `a`"), "{}", e.message);
}

#[test]
fn division_by_zero_and_uninitialized_reads_are_located() {
    let src = "__kernel void k(__global const int *in, __global int *out, int n)\n\
               {\n\
               \x20   int i = get_global_id(0);\n\
               \x20   out[i] = in[i] / (i - 5);\n\
               }\n";
    let (unit, r) = run_inline(src, 8, u64::MAX);
    let e = r.unwrap_err();
    assert_eq!(e.kind, ErrorKind::DivisionByZero);
    assert_eq!(e.work_item, [5, 0, 0]);
    assert_eq!(line_col(&unit, &e).0, 4);

    let src = "__kernel void k(__global const int *in, __global int *out, int n)\n\
               {\n\
               \x20   int i = get_global_id(0);\n\
               \x20   int a[2];\n\
               \x20   a[0] = i;\n\
               \x20   out[i] = a[i % 2];\n\
               }\n";
    let (unit, r) = run_inline(src, 8, u64::MAX);
    let e = r.unwrap_err();
    assert_eq!(e.kind, ErrorKind::UninitializedRead);
    assert_eq!(e.work_item, [1, 0, 0]);
    assert_eq!(line_col(&unit, &e), (6, 14), "{}", e.render(&unit.sources));
}

#[test]
fn use_of_an_unassigned_variable_names_it() {
    let src = "__kernel void k(__global const int *in, __global int *out, int n)\n\
               {\n\
               \x20   int i = get_global_id(0);\n\
               \x20   int x;\n\
               \x20   if (in[i] > 2)\n\
               \x20       x = in[i] * 2;\n\
               \x20   out[i] = x + 1;\n\
               }\n";
    let (unit, r) = run_inline(src, 8, u64::MAX);
    let e = r.unwrap_err();
    assert_eq!(e.kind, ErrorKind::UninitializedRead);
    // in[0] = 1 and in[1] = 2 take the path without the assignment.
    assert_eq!(e.work_item, [0, 0, 0]);
    assert_eq!(line_col(&unit, &e).0, 7, "{}", e.render(&unit.sources));
    assert_eq!(e.message, "`x` is used before it is assigned");
}

#[test]
fn endless_loop_hits_the_step_limit() {
    let src = "__kernel void k(__global const int *in, __global int *out, int n)\n\
               {\n\
               \x20   int i = get_global_id(0);\n\
               \x20   int s = 0;\n\
               \x20   while (in[0] > 0)\n\
               \x20       s += i;\n\
               \x20   out[i] = s;\n\
               }\n";
    let (unit, r) = run_inline(src, 8, 10_000);
    let e = r.unwrap_err();
    assert_eq!(e.kind, ErrorKind::StepLimit);
    assert_eq!(e.work_item, [0, 0, 0]);
    let (line, _) = line_col(&unit, &e);
    assert!((5..=6).contains(&line), "{}", e.render(&unit.sources));
}

// ---- the whole corpus -----------------------------------------------------

/// Every kernel of the corpus runs on generic arguments (zeroed 64 KiB
/// buffers, small scalars) without the interpreter finding the IR
/// malformed: lowering and interpreter agree on types and structure.
/// Run-time errors of the kernels themselves are allowed here (the
/// arguments do not meet each kernel's preconditions), but none occurs in
/// more than a few kernels, which the summary shows.
#[test]
fn every_corpus_kernel_runs_on_generic_arguments() {
    let mut files = Vec::new();
    for dir in ["tests/kernels/valid", "examples"] {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "cl"))
            .collect();
        entries.sort();
        files.extend(entries);
    }
    let mut ran = 0;
    let mut summary = Vec::new();
    for path in files {
        let unit = check_file(&path, &PreprocessOptions::default(), &RealFs).unwrap();
        assert!(!unit.has_errors(), "{}", path.display());
        for k in unit.hir.kernels() {
            let name = unit.hir.function(k).name.to_string();
            let f = match lower_kernel(&unit.hir, k) {
                Ok(f) => f,
                Err(e) => {
                    summary.push(format!(
                        "{}: {name}: not lowered: {}",
                        path.display(),
                        e[0].message
                    ));
                    continue;
                }
            };
            let mut args: Vec<ArgValue> = f
                .params
                .iter()
                .map(|p| match p.ty {
                    t if t.is_ptr() => ArgValue::Buffer(vec![0; 1 << 16]),
                    t if t.is_float() => ArgValue::Scalar(Const::Float(0.5, t)),
                    t => ArgValue::Scalar(Const::int(4, t)),
                })
                .collect();
            let range = NdRange::new_2d([13, 3], [4, 2]);
            let opts = Options {
                sub_group_width: 4,
                step_limit: 20_000_000,
                check_all_races: false,
            };
            ran += 1;
            if let Err(e) = interp::run_with(&f, &range, &mut args, &opts) {
                assert_ne!(
                    e.kind,
                    ErrorKind::MalformedIr,
                    "{}: {name}: {}",
                    path.display(),
                    e.render(&unit.sources)
                );
                summary.push(format!(
                    "{}: {name}: {}",
                    path.display(),
                    e.render(&unit.sources)
                ));
            }
        }
    }
    eprintln!("{ran} kernels ran; notes:\n{}", summary.join("\n"));
    assert!(ran >= 80, "only {ran} kernels ran");
}
