//! Loads through a clamped contiguous index (`emit/clamped.rs`): packed
//! where the clamp moves no lane of the SIMD group, gathered at the
//! borders. Differential tests against the interpreter on every target
//! this machine runs, at -O0 and -O2 (1-D and 2-D clamp-to-edge filters,
//! `max` or `min` alone, both orders of the two, bounds from arguments
//! inside the image, an index that falls with the lane, and `int` and
//! `float` data; the launches have partial SIMD groups and a global
//! offset); and an assembly test that convolution_2d's interior runs
//! without a gather. The guard-page test (`guard_pages.rs`, `clamp_blur`)
//! checks that no packed load reads past the buffer.

mod common;

use common::*;

const SRC: &str = r#"
// A 1-D box filter with clamp-to-edge over the whole launch.
__kernel void clamp_blur(__global const float *in, __global float *out)
{
    int x = get_global_id(0);
    int n = get_global_size(0);
    float s = 0.0f;
    for (int k = -2; k <= 2; k++)
        s += in[clamp(x + k, 0, n - 1)] * (float)(k + 3);
    out[x] = s;
}

// A 2-D filter: the row clamp is uniform, the column clamp per lane.
__kernel void clamp_2d(__global const int *in, __global int *out, int taps)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    int w = get_global_size(0);
    int h = get_global_size(1);
    int r = taps / 2;
    int s = 0;
    for (int fy = -1; fy <= 1; fy++) {
        int sy = clamp(y + fy, 0, h - 1);
        for (int fx = -r; fx <= r; fx++)
            s += in[sy * w + clamp(x + fx, 0, w - 1)] * (fx + 2 * fy + 7);
    }
    out[y * w + x] = s;
}

// One side only, and the two sides in the other order.
__kernel void one_side(__global const float *in, __global float *out)
{
    int x = get_global_id(0);
    int n = get_global_size(0);
    float a = in[max(x - 3, 0)];
    float b = in[min(x + 3, n - 1)];
    float c = in[max(min(x + 1, n - 1), 0)];
    out[x] = a + 2.0f * b + 4.0f * c;
}

// Bounds from arguments, inside the buffer, and an index that falls with
// the lane (stride -1: always gathered).
__kernel void given_bounds(__global const int *in, __global int *out, int lo, int hi)
{
    int x = get_global_id(0);
    int n = get_global_size(0);
    int a = in[clamp(x - 2, lo, hi + 8)];
    int b = in[clamp(n - 1 - x, 0, n - 1)];
    out[x] = a * 3 + b;
}
"#;

#[test]
fn clamped_loads_match_the_interpreter() {
    assert_every_kernel_matches("clamped_loads.cl", SRC);
}

/// convolution_2d (bench/kernels/convolution_2d.cl) reads the image with
/// packed loads where no lane is at a border: the innermost loops of its
/// multiply-adds hold 256-bit loads from the image (the gather for the
/// border groups is in the same loops, on the other side of the test).
/// main only gathered there.
#[test]
fn convolution_interior_loads_are_packed() {
    let src = std::fs::read_to_string(root().join("bench/kernels/convolution_2d.cl")).unwrap();
    let asm = groups_asm_avx2("convolution_2d.cl", &src, "convolution_2d");
    let loops = innermost_natural_loops_with(&asm, "vfmadd");
    assert!(!loops.is_empty(), "{asm}");
    // A 256-bit load whose source (the first operand) is memory off the stack.
    let packed_load = |x: &&str| {
        let (op, args) = x.split_once('\t').unwrap_or((x, ""));
        let mut depth = 0;
        let end = args
            .char_indices()
            .find(|&(_, c)| {
                depth += (c == '(') as i32 - (c == ')') as i32;
                c == ',' && depth == 0
            })
            .map_or(args.len(), |(i, _)| i);
        let src = &args[..end];
        matches!(op, "vmovups" | "vmaskmovps")
            && src.contains('(')
            && !src.contains("%rsp")
            && args.contains("%ymm")
    };
    let with_packed = loops
        .iter()
        .filter(|l| l.iter().any(packed_load) && l.iter().any(|x| x.contains("gather")))
        .count();
    assert!(with_packed > 0, "{loops:#?}");
}
