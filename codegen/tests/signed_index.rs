//! Differential tests of signed index arithmetic, which the back end
//! sign-extends in 64 bits (`sext(i * n + j)` as `sext i * sext n + sext
//! j`, a truncated id as the id): 2-D stencils with negative offsets,
//! reversed and uniform offsets, ids through `get_local_id` and
//! `get_group_id`, a gather whose index is signed arithmetic (kept 32-bit),
//! partial SIMD groups and a global offset. Each kernel runs through the
//! JIT and the interpreter for every target this machine runs, at -O0 and
//! -O2 (see `common::check_kernel`). The assembly tests check that no
//! access sign-extends its index and that gathers keep 32-bit indices.

mod common;

use common::*;

const SRC: &str = r#"
__kernel void jacobi(__global const float *A, __global float *B, int n)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (j + 1)]
                               + A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}

__kernel void sobel_like(__global const float *in, __global float *out, int width, int height)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    int idx = y * width + x;
    if (x == 0 || y == 0 || x == width - 1 || y == height - 1) {
        out[idx] = 0.0f;
        return;
    }
    out[idx] = in[idx - width - 1] - in[idx + width + 1] + 2.0f * in[idx - 1];
}

__kernel void reversed(__global const int *in, __global int *out, int n)
{
    int i = get_global_id(0);
    if (i < n)
        out[n - 1 - i] = in[i * 2 - i] - in[(n - 1) - i];
}

__kernel void local_ids(__global const int *in, __global int *out, int k)
{
    int l = get_local_id(0);
    int g = get_group_id(0);
    int s = get_local_size(0);
    int i = g * s + l;
    out[i + k - 3] = in[i * 3 - 2 * i + k] * (l - k);
}

__kernel void gathered(__global const int *idx, __global const float *in, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i < n)
        out[i] = in[idx[i] * 3 - i + 2 * i] + in[2 * i - idx[i] + 15];
}

__kernel void widened_long(__global const int *in, __global long *out, int n)
{
    int i = get_global_id(0);
    long a = i * n - 7;
    long b = (long)(in[i] * n + i);
    out[i] = a * 1000 + b;
}

__kernel void row_loop(__global const float *A, __global float *out, int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float s = 0.0f;
    for (int k = 0; k < n; k++)
        s += A[i * n + k] - A[k * n + (n - 1 - i)];
    out[i] = s;
}
"#;

#[test]
fn signed_index_arithmetic_matches_the_interpreter() {
    let c = check_every_kernel("signed_index.cl", SRC);
    eprintln!("{} launches compared", c.ran);
    assert!(
        c.failures.is_empty(),
        "{} failures:\n{}",
        c.failures.len(),
        c.failures.join("\n")
    );
}

/// The assembly of `kernel`'s function in the avx2-i32x8 assembly of SRC.
fn asm_of(kernel: &str) -> String {
    groups_asm_avx2("signed_index.cl", SRC, kernel)
}

/// Addresses from signed `int` indices need no sign extension per access
/// (`movslq`, `cltq`, or `shl` by 32 and `sar`): the index is an `i64`
/// sum, folded into the addressing mode. What is left is one `movslq` per
/// `int` argument, before the loops (main had 20 in jacobi's function).
#[test]
fn signed_indices_are_not_sign_extended_per_access() {
    for (k, int_args) in [("jacobi", 1), ("sobel_like", 2)] {
        let asm = asm_of(k);
        let sext: Vec<&str> = asm
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("movslq") || l.starts_with("cltq") || l.starts_with("sarq"))
            .collect();
        assert!(sext.len() <= int_args, "{k}: {sext:?}\n{asm}");
        assert!(
            asm.contains("vmovups") || asm.contains("vmaskmovps"),
            "{k}:\n{asm}"
        );
    }
}

/// A gather whose index is signed arithmetic keeps 32-bit indices: one
/// `vgatherdps` per 8 lanes, not two `vgatherqps` on 64-bit ones.
#[test]
fn gather_indices_stay_32_bit() {
    let asm = asm_of("gathered");
    assert!(asm.contains("vgatherdps"), "{asm}");
    assert!(!asm.contains("vgatherqps"), "{asm}");
}
