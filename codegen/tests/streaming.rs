//! Streaming (non-temporal) stores (`codegen/src/emit/streaming.rs`):
//! which stores stream in the assembly (a stencil's too, which prefetches
//! the next row), and results equal to the
//! interpreter's on NDRanges large enough for the streaming path to run
//! (row by row, kernels without loops), with buffers 16-byte aligned and
//! not, rows ending in partial SIMD groups, on every target this CPU runs.
//! The LLVM IR is pinned in `filetests/codegen/streaming_store.vir`.

mod common;

use common::*;
use lanes_vectorizer::interp::NdRange;

const SRC: &str = r#"
__kernel void triad(__global float *a, __global const float *b,
                    __global const float *c, float q, int n)
{
    int i = get_global_id(0);
    if (i < n)
        a[i] = b[i] + q * c[i];
}

__kernel void stencil(__global const float *A, __global float *B, int w, int h)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= 1 && i < h - 1 && j >= 1 && j < w - 1)
        B[i * w + j] = 0.25f * (A[i * w + j - 1] + A[i * w + j + 1]
                                + A[(i - 1) * w + j] + A[(i + 1) * w + j]);
}

// Reads `b` twice at one address (as the specializer's fast and slow
// paths do): still each input element once.
__kernel void triad_twice(__global float *a, __global const float *b,
                          __global const float *c, float q, int n)
{
    int i = get_global_id(0);
    if (i < n)
        a[i] = b[i] + q * c[i] * b[i];
}

// Reads what it writes: the written lines are wanted in the cache.
__kernel void scale_in_place(__global float *a, float q, int n)
{
    int i = get_global_id(0);
    if (i < n)
        a[i] = q * a[i];
}

// Stores in a loop: not each element once.
__kernel void rows_of(__global float *out, __global const float *in, int n, int m)
{
    int i = get_global_id(0);
    if (i < n)
        for (int k = 0; k < m; k++)
            out[k * n + i] = in[i] * (float)k;
}

// Border pixels store 0 in a block most SIMD groups have no lane in.
__kernel void border(__global const float *in, __global float *out, int w, int h)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    int idx = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[idx] = 0.0f;
        return;
    }
    out[idx] = in[idx - w] + in[idx + w] - 4.0f * in[idx] + in[idx - 1] + in[idx + 1];
}

// Barriers: the SIMD groups run column by column and store as before.
__kernel void reverse_tiles(__global const float *in, __global float *out,
                            __local float *tile)
{
    int l = get_local_id(0);
    int g = get_global_id(0);
    int s = get_local_size(0);
    tile[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = tile[s - 1 - l];
}
"#;

/// The assembly of `kernel`'s function in the avx2-i32x8 assembly of SRC.
fn asm_of(kernel: &str) -> String {
    groups_asm_avx2("streaming.cl", SRC, kernel)
}

#[test]
fn written_once_buffers_stream_and_end_with_a_fence() {
    for k in ["triad", "triad_twice", "stencil", "border"] {
        let asm = asm_of(k);
        assert!(asm.contains("vmovntps"), "{k}: no streaming store:\n{asm}");
        assert!(asm.contains("sfence"), "{k}: no sfence:\n{asm}");
        // The masked copy still stores with a mask, never streaming.
        assert!(asm.contains("vmaskmovps"), "{k}: no masked store:\n{asm}");
    }
}

#[test]
fn buffers_read_back_written_in_loops_or_past_barriers_do_not_stream() {
    for k in ["scale_in_place", "rows_of", "reverse_tiles"] {
        let asm = asm_of(k);
        assert!(!asm.contains("movnt"), "{k} streams:\n{asm}");
        assert!(!asm.contains("sfence"), "{k} has a fence:\n{asm}");
    }
}

/// 16-byte aligned storage with the data at byte `skew`.
struct Skewed {
    buf: Buf,
    skew: usize,
    len: usize,
}

impl Skewed {
    fn new(data: &[u8], skew: usize) -> Skewed {
        let mut buf = Buf::new(data.len() + 16);
        buf.bytes_mut()[skew..skew + data.len()].copy_from_slice(data);
        Skewed {
            buf,
            skew,
            len: data.len(),
        }
    }
    fn ptr(&mut self) -> *mut u8 {
        // SAFETY: `skew + len` is within the buffer.
        unsafe { self.buf.as_mut_ptr().add(self.skew) }
    }
    fn bytes(&self) -> &[u8] {
        &self.buf.bytes()[self.skew..self.skew + self.len]
    }
}

struct Case {
    kernel: &'static str,
    /// Buffer parameters and their sizes in floats.
    buffers: &'static [(&'static str, usize)],
    scalars: &'static [(&'static str, u64, f64)],
    /// What the interpreter runs: the work-items that do anything.
    small: NdRange,
    /// What the object runs: at least 4M work-items (16 MiB of floats
    /// written, the streaming threshold), the same ones doing anything.
    large: NdRange,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            kernel: "triad",
            buffers: &[("a", 1003), ("b", 1003), ("c", 1003)],
            scalars: &[("q", 0, 3.0), ("n", 1003, 0.0)],
            small: NdRange::new_1d(1024, 64),
            large: NdRange::new_1d(1 << 22, 256),
        },
        Case {
            kernel: "stencil",
            buffers: &[("A", 37 * 9), ("B", 37 * 9)],
            scalars: &[("w", 37, 0.0), ("h", 9, 0.0)],
            small: NdRange::new_2d([40, 9], [40, 1]),
            large: NdRange::new_2d([2048, 2048], [64, 4]),
        },
        Case {
            kernel: "border",
            buffers: &[("in", 45 * 11), ("out", 45 * 11)],
            scalars: &[("w", 45, 0.0), ("h", 11, 0.0)],
            small: NdRange::new_2d([48, 11], [48, 1]),
            large: NdRange::new_2d([2048, 2048], [64, 4]),
        },
    ]
}

fn run_target(target: &str) {
    let Some((spec, unit)) = runnable_unit(target, "s.cl", SRC) else {
        return;
    };
    let w = spec.width;
    for case in cases() {
        let (scalar, kc, jit) = compile_one(&unit, case.kernel, &spec);
        for skew in [0, 4, 8] {
            let mut rng = Rng::new(hash(case.kernel) ^ skew as u64);
            let mut args = Vec::new();
            for p in &kc.params {
                if let Some(&(_, n)) = case.buffers.iter().find(|(b, _)| *b == p.name) {
                    let elem = elem_of(p.ty.as_ref());
                    let mut b = Buf::new(4 * n);
                    fill(&mut b, elem, &mut rng, &DEFAULT_PROFILE);
                    args.push(Arg::Buffer(b, elem));
                } else {
                    let &(_, i, f) = case.scalars.iter().find(|(s, ..)| *s == p.name).unwrap();
                    let lanes_codegen::ParamKind::Scalar(t) = p.kind else {
                        panic!("{} is not a scalar", p.name)
                    };
                    args.push(Arg::Scalar(t, i, f));
                }
            }
            let want = run_interp(&scalar, &kc, &args, &case.small, w)
                .unwrap_or_else(|e| panic!("{}: interpreter: {e}", case.kernel));
            let mut bufs: Vec<Option<Skewed>> = args
                .iter()
                .map(|a| match a {
                    Arg::Buffer(b, _) => Some(Skewed::new(b.bytes(), skew)),
                    _ => None,
                })
                .collect();
            let ptrs: Vec<Option<*mut u8>> = bufs
                .iter_mut()
                .map(|b| b.as_mut().map(Skewed::ptr))
                .collect();
            assert_eq!(launch_at(&jit, case.kernel, &args, &ptrs, &case.large), 0);
            let got = |i: usize| bufs[i].as_ref().map(Skewed::bytes);
            if let Some((name, d)) = first_difference(&kc, &args, &want, got) {
                panic!(
                    "{target} {} (skew {skew}): buffer `{name}`: {d}",
                    case.kernel
                );
            }
        }
    }
}

#[test]
fn streaming_results_equal_the_interpreter() {
    for t in common::TEST_TARGETS {
        run_target(t);
    }
}
