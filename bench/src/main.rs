//! lanes benchmarks. `make bench` runs them; results go to bench/RESULTS.md.
//!
//! `frontend`: preprocessing + parsing + type checking of a generated
//! 10,000-line file with 200 kernels (DESIGN §8; target: median under 50 ms).
//! `analysis`: divergence analysis and report per kernel of the corpus.
//! `codegen`: generated code against PoCL and gcc (see codegen/mod.rs).
//! `precond`: fast paths on inferred preconditions, the paper's experiment
//! (see precond.rs).
//! `budget`: `lanes check`/`build` on a 5,000-line file of branches no
//! precondition settles (see budget.rs).
//! `buildtime`: `lanes build` per corpus file against Intel's and PoCL's
//! program build (see buildtime.rs).

mod budget;
mod buildtime;
mod codegen;
mod lsp;
mod precond;
mod results;

use std::time::{Duration, Instant};

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_text;

/// Five kernel shapes of ~50 lines each, instantiated with a numeric suffix so
/// the file has 200 distinct kernels and their helpers.
fn kernel(i: usize) -> String {
    match i % 5 {
        0 => format!(
            r#"
// 1-D convolution with a clamped stencil, instance {i}
inline float weight_{i}(__constant float *stencil, int k) {{
    return stencil[k];
}}

__kernel void convolution_{i}(__global const float *input, __global float *output,
                              __constant float *stencil, int stencilWidth, int width) {{
    int x = get_global_id(0);
    if (x >= width)
        return;
    int vstep = (stencilWidth - 1) / 2;
    int left = max(0, x - vstep);
    int right = min(width - 1, x + vstep);
    float sum = 0.0f;
    for (int i = left; i <= right; ++i) {{
        sum += input[i] * weight_{i}(stencil, i - (x - vstep));
    }}
    output[x] = sum;
}}
"#
        ),
        1 => format!(
            r#"
// PolyBench-style gemm, instance {i}
#define ALPHA_{i} 1.5f
__kernel void gemm_{i}(__global const float *A, __global const float *B, __global float *C,
                       float beta, int ni, int nj, int nk) {{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= ni || j >= nj)
        return;
    float acc = 0.0f;
    for (int k = 0; k < nk; ++k) {{
        acc += ALPHA_{i} * A[i * nk + k] * B[k * nj + j];
    }}
    C[i * nj + j] = beta * C[i * nj + j] + acc;
}}
"#
        ),
        2 => format!(
            r#"
// Mandelbrot with float2, instance {i}
__kernel void mandelbrot_{i}(__global int *out, float x0, float y0, float dx, float dy,
                             int width, int height, int max_iter) {{
    int px = get_global_id(0);
    int py = get_global_id(1);
    if (px >= width || py >= height)
        return;
    float2 c = (float2)(x0 + px * dx, y0 + py * dy);
    float2 z = (float2)(0.0f, 0.0f);
    int n = 0;
    while (n < max_iter && dot(z, z) <= 4.0f) {{
        z = (float2)(z.x * z.x - z.y * z.y, 2.0f * z.x * z.y) + c;
        ++n;
    }}
    out[py * width + px] = n;
}}
"#
        ),
        3 => format!(
            r#"
// Black-Scholes with helpers, instance {i}
typedef struct {{ float call; float put; }} option_price_{i};

float cnd_{i}(float d) {{
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f;
    const float a4 = -1.821255978f, a5 = 1.330274429f;
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    float c = 0.39894228040143267794f * exp(-0.5f * d * d) *
              (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0.0f ? 1.0f - c : c;
}}

__kernel void black_scholes_{i}(__global option_price_{i} *out, __global const float *S,
                                __global const float *X, __global const float *T,
                                float r, float v, int n) {{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float sqrt_t = sqrt(T[i]);
    float d1 = (log(S[i] / X[i]) + (r + 0.5f * v * v) * T[i]) / (v * sqrt_t);
    float d2 = d1 - v * sqrt_t;
    float e = exp(-r * T[i]);
    out[i].call = S[i] * cnd_{i}(d1) - X[i] * e * cnd_{i}(d2);
    out[i].put = X[i] * e * (1.0f - cnd_{i}(d2)) - S[i] * (1.0f - cnd_{i}(d1));
}}
"#
        ),
        _ => format!(
            r#"
// float4 stencil with vload/vstore and a switch, instance {i}
__kernel void blur4_{i}(__global const float *in, __global float *out, int n, int mode) {{
    int g = get_global_id(0);
    if (g * 4 + 4 > n)
        return;
    float4 v = vload4(g, in);
    float4 l = g > 0 ? vload4(g - 1, in) : v;
    float4 r = (g + 2) * 4 <= n ? vload4(g + 1, in) : v;
    float4 res;
    switch (mode) {{
    case 0:
        res = (l + v + r) * (1.0f / 3.0f);
        break;
    case 1:
        res = fmax(l, fmax(v, r));
        break;
    default:
        res = v.wzyx;
    }}
    vstore4(res, g, out);
}}
"#
        ),
    }
}

/// A helper of ~30 lines per kernel (statements, loops, comments, a macro),
/// so that 200 kernels make a 10,000-line file as the target describes.
fn helper(i: usize) -> String {
    format!(
        r#"
/* Helper {i}: a clamped polynomial and a small private-array filter. The
 * comment spans a few lines, as documentation in real kernels does. */
#define CLAMP01_{i}(v) clamp((v), 0.0f, 1.0f)
static inline float poly_{i}(float x, __constant float *c, int degree) {{
    float acc = 0.0f;
    for (int k = degree; k >= 0; --k) {{
        acc = mad(acc, x, c[k]);
    }}
    return CLAMP01_{i}(acc);
}}

static float median3_{i}(float a, float b, float c) {{
    float t[3] = {{a, b, c}};
    for (int p = 0; p < 2; ++p) {{
        for (int q = 0; q < 2 - p; ++q) {{
            if (t[q] > t[q + 1]) {{
                float tmp = t[q];
                t[q] = t[q + 1];
                t[q + 1] = tmp;
            }}
        }}
    }}
    return t[1];
}}

__kernel void smooth_{i}(__global const float *in, __global float *out,
                         __constant float *coeffs, int degree, int n) {{
    int x = get_global_id(0);
    if (x <= 0 || x >= n - 1)
        return;
    float m = median3_{i}(in[x - 1], in[x], in[x + 1]);
    out[x] = poly_{i}(m, coeffs, degree);
}}
"#
    )
}

/// Non-kernel code of ~46 lines: a struct, float4 math and a switch.
fn extra(i: usize) -> String {
    format!(
        r#"
typedef struct {{
    float4 row[4];
}} mat4_{i};

static float4 mat4_mul_vec_{i}(const mat4_{i} *m, float4 v) {{
    return (float4)(dot(m->row[0], v), dot(m->row[1], v),
                    dot(m->row[2], v), dot(m->row[3], v));
}}

static mat4_{i} mat4_scale_{i}(float s) {{
    mat4_{i} m;
    m.row[0] = (float4)(s, 0.0f, 0.0f, 0.0f);
    m.row[1] = (float4)(0.0f, s, 0.0f, 0.0f);
    m.row[2] = (float4)(0.0f, 0.0f, s, 0.0f);
    m.row[3] = (float4)(0.0f, 0.0f, 0.0f, 1.0f);
    return m;
}}

static int boundary_{i}(int x, int n, int mode) {{
    switch (mode) {{
    case 0: /* clamp */
        return clamp(x, 0, n - 1);
    case 1: /* wrap */
        return ((x % n) + n) % n;
    case 2: /* mirror */
        if (x < 0)
            return -x - 1;
        if (x >= n)
            return 2 * n - x - 1;
        return x;
    default:
        return x;
    }}
}}

static float lerp_{i}(float a, float b, float t) {{
    return mad(t, b - a, a);
}}

static float4 transform_{i}(float4 p, float s, int x, int n, int mode) {{
    mat4_{i} m = mat4_scale_{i}(s);
    float4 q = mat4_mul_vec_{i}(&m, p);
    int b = boundary_{i}(x, n, mode);
    q.w += lerp_{i}((float)b, s, 0.5f);
    return q.wzyx;
}}
"#
    )
}

fn generate() -> String {
    let mut s = String::from("// Generated benchmark input.\n");
    for i in 0..100 {
        s.push_str(&kernel(i));
        s.push_str(&helper(i));
        s.push_str(&extra(i));
    }
    s
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn frontend() {
    let text = generate();
    let lines = text.lines().count();
    let opts = PreprocessOptions {
        width: 8,
        ..Default::default()
    };
    assert!(
        lines >= 10_000,
        "the input should have 10,000 lines, has {lines}"
    );
    let warm = check_text("bench.cl", None, &text, &opts, &RealFs);
    let kernels = warm.hir.kernels().len();
    assert!(
        warm.diagnostics.is_empty(),
        "the benchmark input must be valid: {:?}",
        warm.diagnostics.first()
    );
    let runs = 31;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let unit = check_text("bench.cl", None, &text, &opts, &RealFs);
        times.push(t.elapsed());
        std::hint::black_box(unit);
    }
    let min = *times.iter().min().unwrap();
    let max = *times.iter().max().unwrap();
    let med = median(times);
    println!("front end (preprocess + parse + type check), {lines} lines, {kernels} kernels, {runs} runs");
    println!("| input | median | min | max | lines/s (median) |");
    println!("|---|---|---|---|---|");
    println!(
        "| {lines} lines, {kernels} kernels | {:.2} ms | {:.2} ms | {:.2} ms | {:.1} M |",
        med.as_secs_f64() * 1e3,
        min.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3,
        lines as f64 / med.as_secs_f64() / 1e6
    );
}

fn main() {
    // The ICD loader reads OCL_ICD_VENDORS once: before any OpenCL call, and
    // before any thread exists, point it at Intel's runtime and the
    // system's runtimes when scripts/intel-opencl.sh installed them.
    let vendors =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/intel-opencl/vendors");
    if std::env::var_os("OCL_ICD_VENDORS").is_none() && vendors.is_dir() {
        std::env::set_var("OCL_ICD_VENDORS", &vendors);
    }
    // Benchmark names, then options (`--kernel gemm`, `--runs 9`, `--no-write`)
    // for `codegen`, `lsp`, `precond`, `budget` or `buildtime`.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let split = args
        .iter()
        .position(|a| a.starts_with("--"))
        .unwrap_or(args.len());
    let (which, options) = args.split_at(split);
    let all = which.is_empty();
    if all || which.iter().any(|w| w == "frontend") {
        frontend();
    }
    if all || which.iter().any(|w| w == "analysis") {
        analysis();
    }
    if all || which.iter().any(|w| w == "codegen") {
        codegen::main(options);
    }
    if all || which.iter().any(|w| w == "lsp") {
        lsp::main(options);
    }
    if all || which.iter().any(|w| w == "precond") {
        precond::main(options);
    }
    if all || which.iter().any(|w| w == "budget") {
        budget::main(options);
    }
    if which.iter().any(|w| w == "buildtime") {
        buildtime::main(options);
    }
}

/// Divergence analysis per kernel, on every kernel of the corpus: lowering to
/// the IR, loop canonicalization, CFG analyses, shapes and control
/// divergence, and the report (facts and diagnostics), as `lanes check`
/// and the editor run it. Target (issue 3): median under 1 ms for a
/// 100-line kernel.
fn analysis() {
    use lanes_vectorizer::report::{analyze_kernel, report};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in [
        "tests/kernels/valid",
        "tests/kernels/divergence",
        "examples",
    ] {
        let mut v: Vec<_> = std::fs::read_dir(root.join(dir))
            .expect("corpus directory")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "cl"))
            .collect();
        v.sort();
        files.extend(v);
    }
    let opts = PreprocessOptions {
        width: 8,
        ..Default::default()
    };
    let runs = 21;
    // (lines of the kernel, median time) per kernel.
    let mut per_kernel: Vec<(String, u32, Duration)> = Vec::new();
    for path in &files {
        let unit = lanes_frontend::unit::check_file(path, &opts, &RealFs).expect("read corpus");
        if unit.has_errors() {
            continue;
        }
        for k in unit.hir.kernels() {
            let f = unit.hir.function(k);
            let file = unit.sources.get(f.span.file);
            let lines = file.line_col(f.span.end).0 - file.line_col(f.span.start).0 + 1;
            if analyze_kernel(&unit.hir, k, 8).is_err() {
                continue;
            }
            let mut times = Vec::with_capacity(runs);
            for _ in 0..runs {
                let t = Instant::now();
                let ka = analyze_kernel(&unit.hir, k, 8).expect("analysable");
                let r = report(&ka, &unit.hir, k, &unit.sources);
                times.push(t.elapsed());
                std::hint::black_box(r);
            }
            per_kernel.push((f.name.to_string(), lines, median(times)));
        }
    }
    let total_lines: u32 = per_kernel.iter().map(|k| k.1).sum();
    let all: Vec<Duration> = per_kernel.iter().map(|k| k.2).collect();
    let max = per_kernel.iter().max_by_key(|k| k.2).expect("kernels");
    let big: Vec<Duration> = per_kernel
        .iter()
        .filter(|k| k.1 >= 30)
        .map(|k| k.2)
        .collect();
    let per_100: Vec<f64> = per_kernel
        .iter()
        .map(|k| k.2.as_secs_f64() * 1e3 * 100.0 / k.1.max(1) as f64)
        .collect();
    let mut per_100_sorted = per_100.clone();
    per_100_sorted.sort_by(|a, b| a.total_cmp(b));
    println!(
        "divergence analysis + report, W = 8, {} kernels ({} lines), median of {runs} runs each",
        per_kernel.len(),
        total_lines
    );
    println!("| kernels | median per kernel | median per kernel of >= 30 lines | slowest kernel | median per 100 lines |");
    println!("|---|---|---|---|---|");
    println!(
        "| {} | {:.3} ms | {:.3} ms ({} kernels) | {:.3} ms (`{}`, {} lines) | {:.3} ms |",
        per_kernel.len(),
        median(all).as_secs_f64() * 1e3,
        if big.is_empty() {
            0.0
        } else {
            median(big.clone()).as_secs_f64() * 1e3
        },
        big.len(),
        max.2.as_secs_f64() * 1e3,
        max.0,
        max.1,
        per_100_sorted[per_100_sorted.len() / 2]
    );
}
