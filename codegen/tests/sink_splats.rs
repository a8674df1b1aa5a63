//! Splats built in each block that uses them when those blocks exclude
//! each other (`codegen/src/sink_splats.rs`; docs/codegen.md, "Splats where
//! they are used"). Kernels whose lane vectors of `j` (or splats of other
//! scalars) are used in exclusive branches, in branches that follow each
//! other (left as they are), inside loops of the kernel and across a
//! barrier, in 1-D, 2-D and 3-D, equal the interpreter on every target this
//! CPU runs; the sinking itself is checked on the IR: no splat of `j`
//! is left in the head of jacobi's loop over SIMD groups.

mod common;

use common::*;

const SRC: &str = r#"
// The lane vector of `j` in two exclusive masked paths and not on the
// all-active one (jacobi_2d's shape), 2-D.
__kernel void exclusive(__global const float *A, __global float *B, int n)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (j >= 1 && j < n - 1 && i < n)
        B[i * n + j] = A[i * n + j - 1] + (float)j;
    else if (j < n && i < n)
        B[i * n + j] = (float)(j - i);
}

// Uses in branches that follow each other: one run of the splat's block
// may reach both, so the splat stays where it is.
__kernel void one_after_another(__global int *out, int n, int a, int b)
{
    int j = get_global_id(0);
    int r = 0;
    if (j < a)
        r += j * 3;
    if (j > b)
        r -= j + n;
    out[j] = r;
}

// A splat of a scalar argument used in both arms inside a loop of the
// kernel; the loop body reaches itself through its head.
__kernel void in_a_loop(__global float *out, int n, float s)
{
    int j = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < n; k++) {
        if (((j + k) & 3) == 0)
            acc += s * (float)(j + k);
        else if (j > k)
            acc -= s + (float)j;
    }
    out[j] = acc;
}

// 3-D: exclusive uses in a band's rows and planes.
__kernel void planes(__global int *out, int k)
{
    int j = get_global_id(0);
    size_t at = (get_global_id(2) * get_global_size(1) + get_global_id(1))
                * get_global_size(0) + get_global_id(0);
    if (j > k && get_global_id(2) == 1)
        out[at] = j * 3 + (int)get_local_id(1);
    else if (j < 2 * k)
        out[at] = -j - (int)get_global_id(2);
}

// The lane vector of `j` on both sides of a barrier, in exclusive arms.
__kernel void across_barrier(__global int *out, __local int *tile, int n)
{
    int j = get_global_id(0);
    int l = get_local_id(0);
    tile[l] = (j < n) ? j : n - j;
    barrier(CLK_LOCAL_MEM_FENCE);
    int r = tile[(int)get_local_size(0) - 1 - l];
    if (j > n)
        out[j] = r + j;
    else if (j > 1)
        out[j] = r - 2 * j;
}
"#;

#[test]
fn sunk_splats_equal_the_interpreter() {
    let c = check_every_kernel("sink_splats.cl", SRC);
    assert!(c.failures.is_empty(), "{}", c.failures.join("\n"));
    eprintln!("{} launches compared", c.ran);
}

const JACOBI: &str = r#"
__kernel void jacobi(__global const float *A, __global float *B, int n)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1) {
        B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (j + 1)]
                               + A[(i + 1) * n + j] + A[(i - 1) * n + j]);
    }
}
"#;

/// In the specialized jacobi's `_groups` IR, the head of the loop over SIMD
/// groups (the block that computes a group's column from the loop's
/// counter, `shl nuw i64 %iv.., 3`) builds no splat of `i32`; before, the
/// splat of lane 0's `j` that both masked paths use was built there, on the
/// all-active path too.
#[test]
fn the_splat_of_j_leaves_the_head_of_the_loop() {
    let src = specialized_w8("jacobi.cl", JACOBI, "jacobi");
    let (ir, _) = emit_avx2("jacobi.cl", &src, 2);
    let start = ir.find("@jacobi_groups(").expect("no _groups function");
    let body = &ir[start..];
    let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
    let mut blocks: Vec<Vec<&str>> = vec![Vec::new()];
    for l in body.lines() {
        if !l.starts_with(' ') && l.contains(':') {
            blocks.push(Vec::new());
        }
        blocks.last_mut().unwrap().push(l);
    }
    let splat =
        |l: &&str| l.contains("= shufflevector <8 x i32>") && l.ends_with("zeroinitializer");
    let heads: Vec<_> = blocks
        .iter()
        .filter(|b| {
            b.iter()
                .any(|l| l.contains("= shl nuw i64 %iv") && l.ends_with(", 3"))
        })
        .collect();
    assert!(!heads.is_empty(), "no loop over SIMD groups found:\n{body}");
    for h in heads {
        assert!(
            !h.iter().any(splat),
            "a splat in the loop's head:\n{}",
            h.join("\n")
        );
    }
    let splats = blocks.iter().flatten().filter(|l| splat(l)).count();
    assert!(
        splats >= 2,
        "{splats} splats of i32 in jacobi_groups:\n{body}"
    );
}
