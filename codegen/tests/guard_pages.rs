//! No lane outside the scalar program's accesses touches memory: buffers
//! are placed directly before (and, in a second layout, directly after) a
//! `PROT_NONE` page, and kernels run on launches whose rows end in partial
//! SIMD groups, with masked loads, stores, gathers, scatters and uniform
//! accesses in blocks that run with an empty mask, and work-group kernels
//! (barriers, `__local` arguments and variables, atomics) whose last
//! work-group is smaller, loads hoisted out of divergent loops (made only
//! for the lanes that run the loop's first iteration), and the
//! rows read through transposed tiles, the constant-stride records of
//! `strided_records.cl` (packed loads and stores, their masked form in
//! partial groups), clamp-to-edge reads (packed where the clamp moves no
//! lane), with each buffer ending at the last element the scalar
//! program accesses. An access past the end
//! faults (the test process dies); the results are also compared with the
//! interpreter.

mod common;

use common::*;
use lanes_vectorizer::interp::NdRange;

const SRC: &str = concat!(
    include_str!("../../tests/kernels/valid/strided_records.cl"),
    r#"
__kernel void saxpy(int n, float a, __global const float *x, __global float *y)
{
    int i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}

// Clamp-to-edge reads: packed where the clamp moves no lane, up to the
// buffer's last element.
__kernel void clamp_blur(__global const float *in, __global float *out, int n)
{
    int x = get_global_id(0);
    if (x >= n)
        return;
    float s = 0.0f;
    for (int k = -2; k <= 2; k++)
        s += in[clamp(x + k, 0, n - 1)];
    out[x] = s;
}

// Rows walked by each lane, read through transposed tiles: a tile is
// loaded only when the row's next W elements are all read.
__kernel void mvt_rows(__global float *a, __global float *x1, __global const float *y1,
                       int n, int rows)
{
    int i = get_global_id(0);
    if (i < rows) {
        for (int j = 0; j < n; j++)
            x1[i] += a[i * n + j] * y1[j];
    }
}

// Uniform loads in blocks that run with no active lane: a[big] lies in the
// guard page and is never executed by the scalar program.
__kernel void guarded_uniform(__global const int *a, __global int *out, int n, int big)
{
    int i = get_global_id(0);
    int v = 0;
    if (i >= big)
        v = a[big] + out[big];
    if (i < n)
        out[i] = v + a[i];
}

// Gathers and scatters through an index buffer.
__kernel void gather_scatter(__global const int *idx, __global const float *src,
                             __global float *dst, int n)
{
    int i = get_global_id(0);
    if (i < n) {
        int j = idx[i];
        dst[j] = src[j] * 2.0f;
    }
}

// A divergent loop reading up to the end of the buffer.
__kernel void tail_sum(__global const float *x, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float s = 0.0f;
    for (int k = i; k < n; k++)
        s += x[k];
    out[i] = s;
}

// A search loop: u[i] is loaded once, before the loop, and only when the
// first iteration runs (m > 0); with m = 0 no lane reads u.
__kernel void search_all(__global const float *cdf, __global const float *u,
                         __global int *out, int n, int m)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int index = -1;
    for (int x = 0; x < m; x++) {
        if (cdf[x] >= u[i]) {
            index = x;
            break;
        }
    }
    out[i] = index;
}

// The same from a lane-dependent start: the first iteration runs only in
// lanes i < m, which alone read u[i] (u has m elements).
__kernel void search_from(__global const float *cdf, __global const float *u,
                          __global int *out, int n, int m)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    int index = -1;
    for (int x = i; x < m; x++) {
        if (cdf[x] >= u[i]) {
            index = x;
            break;
        }
    }
    out[i] = index;
}

// A __local tile filled by a smaller last work-group (its last SIMD group
// partial) and read back reversed after a barrier.
__kernel void reverse_in_group(__global const float *in, __global float *out,
                               __local float *tile, int n)
{
    int l = get_local_id(0);
    int g = get_global_id(0);
    int s = get_local_size(0);
    if (g < n)
        tile[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    int src = s - 1 - l;
    if (g < n && (int)get_group_id(0) * s + src < n)
        out[g] = tile[src] + 1.0f;
}

// Atomics on __global counters up to the buffer's last element, and on a
// __local histogram merged after a barrier.
__kernel void bucket_count(__global const int *keys, __global int *counts, int n)
{
    __local int hist[4];
    int l = get_local_id(0);
    int i = get_global_id(0);
    int s = get_local_size(0);
    for (int b = l; b < 4; b += s)
        hist[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n) {
        atomic_inc(&hist[keys[i] & 3]);
        atomic_add(&counts[4 + keys[i] % n], 1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = l; b < 4; b += s)
        atomic_add(&counts[b], hist[b]);
}

// A 2-D guard with an early return around a uniform loop (the SDKs'
// clamp-to-edge filters). Over a rounded-up range, whole SIMD groups
// straddle the right edge: they must run the masked code, not the copy
// for all-active groups.
__kernel void box_rows(__global const float *in, __global float *out,
                       int width, int height, int taps)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    float sum = 0.0f;
    for (int k = 0; k < taps; k++)
        sum += in[y * width + min(x + k, width - 1)];
    out[y * width + x] = sum;
}
// A tree sum in __local memory whose later steps leave whole SIMD groups
// without an active lane (emitted in mask versions: skipped, all-active or
// masked), with a guarded global read in a step and partial groups at the
// end of the range.
__kernel void tree_sum(__global const float *in, __global float *out,
                       __local float *part, int n)
{
    int l = get_local_id(0);
    int g = get_global_id(0);
    int s = get_local_size(0);
    part[l] = g < n ? in[g] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 1; k < s; k <<= 1) {
        if (l % (2 * k) == 0 && l + k < s) {
            float v = part[l + k];
            if (g + k < n)
                v += in[g + k] * 0.0f;
            part[l] += v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        out[get_group_id(0)] = part[0];
}
// 2-D with rows that end in partial SIMD groups.
__kernel void copy2d(__global const short *in, __global short *out, int w)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    out[y * w + x] = in[y * w + x] + (short)x;
}
"#
);

/// `len` bytes placed against a `PROT_NONE` page (after the buffer when
/// `guard_after`, else before it).
struct Guarded {
    base: *mut u8,
    map_len: usize,
    ptr: *mut u8,
    len: usize,
}

impl Guarded {
    fn new(len: usize, guard_after: bool) -> Guarded {
        // SAFETY: plain mmap/mprotect of a private anonymous mapping.
        unsafe {
            let page = libc::sysconf(libc::_SC_PAGESIZE) as usize;
            let body = len.div_ceil(page).max(1) * page;
            let map_len = body + page;
            let base = libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            ) as *mut u8;
            assert!(base as isize != -1, "mmap failed");
            let (guard, ptr) = if guard_after {
                (base.add(body), base.add(body - len))
            } else {
                (base, base.add(page))
            };
            assert_eq!(
                libc::mprotect(guard as *mut libc::c_void, page, libc::PROT_NONE),
                0
            );
            Guarded {
                base,
                map_len,
                ptr,
                len,
            }
        }
    }

    fn bytes(&self) -> &[u8] {
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        unsafe {
            libc::munmap(self.base as *mut libc::c_void, self.map_len);
        }
    }
}

/// (kernel, per-parameter buffer sizes in bytes / scalar values, launch).
struct Case {
    kernel: &'static str,
    /// Scalars by parameter name.
    scalars: Vec<(&'static str, i64, f64)>,
    /// Buffer bytes by parameter name (for a `__local` argument: its size).
    buffers: Vec<(&'static str, usize)>,
    range: NdRange,
}

fn cases(w: u64) -> Vec<Case> {
    let n = 3 * w + 5; // not a multiple of W
    let r1 = |g: u64, l: u64| NdRange::new_1d(g, l);
    // Records of `strided_records.cl`: each buffer ends at its last
    // accessed element; with n = 4W the last SIMD group is whole (packed
    // accesses up to the end), with 3W + 5 partial (masked ones).
    let mut cases = Vec::new();
    for (n, local) in [(n, w + 3), (4 * w, 2 * w)] {
        let nu = n as usize;
        let strided = |kernel, buffers| Case {
            kernel,
            scalars: vec![
                ("n", n as i64, 0.0),
                ("iNumElements", n as i64, 0.0),
                ("s", 0, 1.5),
            ],
            buffers,
            range: r1(n, local),
        };
        cases.extend([
            strided(
                "dot_product",
                vec![("a", 16 * nu), ("b", 16 * nu), ("c", 4 * nu)],
            ),
            strided("scale_float4", vec![("in", 16 * nu), ("out", 16 * nu)]),
            strided("swap_float2", vec![("in", 8 * nu), ("out", 8 * nu)]),
            strided(
                "point_norms",
                vec![("p", 12 * nu), ("unit", 12 * nu), ("len", 4 * nu)],
            ),
            strided("vload_sum", vec![("in", 16 * nu), ("out", 16 * nu)]),
            strided("pairs", vec![("in", 4 * (2 * nu - 1)), ("out", 8 * nu)]),
            strided("every8", vec![("in", 8 * (8 * nu - 2)), ("out", 8 * nu)]),
            strided("holes", vec![("in", 2 * nu), ("out", 4 * (3 * nu - 1))]),
            strided("divergent_fields", vec![("in", 16 * nu), ("out", 4 * nu)]),
        ]);
    }
    for (n, range) in [
        (n, r1(n, w + 3)),
        (4 * w, r1(4 * w, 2 * w)),
        (4 * w, r1(5 * w, w)),
    ] {
        cases.push(Case {
            kernel: "clamp_blur",
            scalars: vec![("n", n as i64, 0.0)],
            buffers: vec![("in", 4 * n as usize), ("out", 4 * n as usize)],
            range,
        });
    }
    for (len, rows, range) in [
        (2 * w + 3, 4 * w, r1(4 * w, 2 * w)),
        (3 * w, 2 * w, r1(2 * w, w)),
        (w - 1, 2 * w, r1(2 * w, w)),
        (2 * w + 1, 3 * w - 2, r1(3 * w, w)),
    ] {
        cases.push(Case {
            kernel: "mvt_rows",
            scalars: vec![("n", len as i64, 0.0), ("rows", rows as i64, 0.0)],
            buffers: vec![
                ("a", 4 * (len * rows) as usize),
                ("x1", 4 * rows as usize),
                ("y1", 4 * len as usize),
            ],
            range,
        });
    }
    cases.extend([
        Case {
            kernel: "saxpy",
            scalars: vec![("n", n as i64, 0.0), ("a", 0, 1.5)],
            buffers: vec![("x", 4 * n as usize), ("y", 4 * n as usize)],
            range: r1(n, w + 3),
        },
        Case {
            kernel: "saxpy",
            scalars: vec![("n", n as i64, 0.0), ("a", 0, -0.5)],
            buffers: vec![("x", 4 * n as usize), ("y", 4 * n as usize)],
            range: r1(n, n),
        },
        // Rounded up to whole work-groups of whole SIMD groups: the
        // guard is false in some lanes of a full SIMD group.
        Case {
            kernel: "saxpy",
            scalars: vec![("n", n as i64, 0.0), ("a", 0, 2.0)],
            buffers: vec![("x", 4 * n as usize), ("y", 4 * n as usize)],
            range: r1(4 * w, 2 * w),
        },
        Case {
            kernel: "box_rows",
            scalars: vec![
                ("width", (w + 3) as i64, 0.0),
                ("height", 3, 0.0),
                ("taps", 3, 0.0),
            ],
            buffers: vec![
                ("in", 4 * ((w + 3) * 3) as usize),
                ("out", 4 * ((w + 3) * 3) as usize),
            ],
            range: NdRange::new_2d([2 * w, 4], [w, 2]),
        },
        Case {
            kernel: "guarded_uniform",
            scalars: vec![("n", n as i64, 0.0), ("big", n as i64 + 10, 0.0)],
            buffers: vec![("a", 4 * n as usize), ("out", 4 * n as usize)],
            range: r1(n, 2 * w - 1),
        },
        Case {
            kernel: "gather_scatter",
            scalars: vec![("n", n as i64, 0.0)],
            buffers: vec![
                ("idx", 4 * n as usize),
                ("src", 4 * n as usize),
                ("dst", 4 * n as usize),
            ],
            range: r1(n, w + 1),
        },
        Case {
            kernel: "tail_sum",
            scalars: vec![("n", n as i64, 0.0)],
            buffers: vec![("x", 4 * n as usize), ("out", 4 * n as usize)],
            range: r1(n, w + 2),
        },
        Case {
            kernel: "search_all",
            scalars: vec![("n", n as i64, 0.0), ("m", 3, 0.0)],
            buffers: vec![("cdf", 12), ("u", 4 * n as usize), ("out", 4 * n as usize)],
            range: r1(n, w + 2),
        },
        Case {
            kernel: "search_all",
            scalars: vec![("n", n as i64, 0.0), ("m", 0, 0.0)],
            buffers: vec![("cdf", 4), ("u", 4), ("out", 4 * n as usize)],
            range: r1(n, w + 2),
        },
        Case {
            kernel: "search_from",
            scalars: vec![("n", n as i64, 0.0), ("m", 2 * w as i64 + 3, 0.0)],
            buffers: vec![
                ("cdf", 4 * (2 * w + 3) as usize),
                ("u", 4 * (2 * w + 3) as usize),
                ("out", 4 * n as usize),
            ],
            range: r1(n, w + 2),
        },
        Case {
            kernel: "search_from",
            scalars: vec![("n", n as i64, 0.0), ("m", 1, 0.0)],
            buffers: vec![("cdf", 4), ("u", 4), ("out", 4 * n as usize)],
            range: r1(n, 2 * w),
        },
        Case {
            kernel: "reverse_in_group",
            scalars: vec![("n", n as i64, 0.0)],
            buffers: vec![
                ("in", 4 * n as usize),
                ("out", 4 * n as usize),
                ("tile", 4 * (2 * w + 3) as usize),
            ],
            range: r1(n, 2 * w + 3),
        },
        Case {
            kernel: "bucket_count",
            scalars: vec![("n", n as i64, 0.0)],
            buffers: vec![("keys", 4 * n as usize), ("counts", 4 * (n + 4) as usize)],
            range: r1(n, w + 3),
        },
        Case {
            kernel: "tree_sum",
            scalars: vec![("n", n as i64, 0.0)],
            buffers: vec![
                ("in", 4 * n as usize),
                ("out", 4 * n.div_ceil(2 * w + 3) as usize),
                ("part", 4 * (2 * w + 3) as usize),
            ],
            range: r1(n, 2 * w + 3),
        },
        Case {
            kernel: "tree_sum",
            scalars: vec![("n", n as i64, 0.0)],
            buffers: vec![("in", 4 * n as usize), ("out", 4), ("part", 4 * n as usize)],
            range: r1(n, n),
        },
        Case {
            kernel: "copy2d",
            scalars: vec![("w", (w + 3) as i64, 0.0)],
            buffers: vec![
                ("in", 2 * ((w + 3) * 5) as usize),
                ("out", 2 * ((w + 3) * 5) as usize),
            ],
            range: NdRange::new_2d([w + 3, 5], [w - 1, 2]),
        },
    ]);
    cases
}

fn run_target(target: &str) {
    let Some((spec, unit)) = runnable_unit(target, "g.cl", SRC) else {
        return;
    };
    let w = spec.width;
    for case in cases(w as u64) {
        let (scalar, kc, jit) = compile_one(&unit, case.kernel, &spec);
        for guard_after in [true, false] {
            let mut rng = Rng::new(hash(case.kernel) ^ w as u64);
            // Arguments: random contents; index buffers stay in range.
            let mut args = Vec::new();
            let mut guarded: Vec<Option<Guarded>> = Vec::new();
            for p in &kc.params {
                if p.kind == lanes_codegen::ParamKind::LocalPointer {
                    let &(_, bytes) = case.buffers.iter().find(|(n, _)| *n == p.name).unwrap();
                    args.push(Arg::Local(bytes as u64));
                    guarded.push(None);
                } else if let Some(&(_, bytes)) = case.buffers.iter().find(|(n, _)| *n == p.name) {
                    let elem = elem_of(p.ty.as_ref());
                    let mut b = Buf::new(bytes);
                    fill(&mut b, elem, &mut rng, &DEFAULT_PROFILE);
                    if p.name == "idx" || p.name == "keys" {
                        let count = (bytes / 4) as u64;
                        for c in b.bytes_mut().chunks_exact_mut(4) {
                            c.copy_from_slice(&(rng.below(count) as i32).to_le_bytes());
                        }
                    }
                    let mut g = Guarded::new(bytes, guard_after);
                    g.bytes_mut().copy_from_slice(b.bytes());
                    args.push(Arg::Buffer(b, elem));
                    guarded.push(Some(g));
                } else {
                    let &(_, i, f) = case
                        .scalars
                        .iter()
                        .find(|(n, _, _)| *n == p.name)
                        .unwrap_or_else(|| panic!("no value for {}", p.name));
                    let lanes_codegen::ParamKind::Scalar(t) = p.kind else {
                        panic!("{} is not a scalar", p.name)
                    };
                    args.push(Arg::Scalar(t, i as u64, f));
                    guarded.push(None);
                }
            }
            let want = run_interp(&scalar, &kc, &args, &case.range, w)
                .unwrap_or_else(|e| panic!("{}: interpreter: {e}", case.kernel));
            // The launch, with the buffers' guarded copies.
            let ptrs: Vec<Option<*mut u8>> =
                guarded.iter().map(|g| g.as_ref().map(|g| g.ptr)).collect();
            assert_eq!(launch_at(&jit, case.kernel, &args, &ptrs, &case.range), 0);
            let got = |i: usize| guarded[i].as_ref().map(Guarded::bytes);
            if let Some((name, d)) = first_difference(&kc, &args, &want, got) {
                panic!(
                    "{target} {} (guard {}): buffer `{name}`: {d}",
                    case.kernel,
                    if guard_after { "after" } else { "before" },
                );
            }
        }
    }
}

#[test]
fn no_out_of_bounds_lanes() {
    for t in common::TEST_TARGETS {
        run_target(t);
    }
}
