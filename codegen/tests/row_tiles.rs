//! Rows walked by each lane, read through transposed tiles
//! (`emit/row_tiles.rs`). Differential tests against the interpreter on
//! every target this machine runs, at -O0 and -O2: PolyBench/GPU's mvt
//! (a store in the loop at an address the loop does not change), `double`
//! and `long` rows, row
//! lengths that are not multiples of W, a start other than 0 and an
//! inclusive bound, a do-while, two rows and a neighbour in one loop, a
//! loop entered once per row of an outer loop (the tile of the last entry
//! must not serve the next), a store into the rows' own buffer (tiles
//! refused at run time), and loops that keep the gather (a `break`, a
//! store whose address moves with the loop). The guard-page test
//! (`guard_pages.rs`, `mvt_rows`) checks that no tile reads past a
//! buffer.

mod common;

use common::*;

const SRC: &str = r#"
// PolyBench/GPU mvt's first kernel; rows of n = size + k floats.
__kernel void mvt_rows(__global float *a, __global float *x1, __global float *y1, int k)
{
    int i = get_global_id(0);
    int n = get_global_size(0) + k;
    if (i < get_global_size(0)) {
        for (int j = 0; j < n; j++)
            x1[i] += a[i * n + j] * y1[j];
    }
}

// A private sum, a start other than 0, an inclusive bound, int data.
__kernel void row_sums(__global const int *a, __global int *out, int k)
{
    int i = get_global_id(0);
    int n = 2 * k + 7;
    int s = 0;
    for (int j = k; j <= n; j++)
        s += a[i * (n + 1) + j] * (j + 1);
    out[i] = s;
}

// Bottom-tested: the exit test follows the body.
__kernel void row_do_while(__global const float *a, __global float *out, int k)
{
    int i = get_global_id(0);
    int n = k + 20;
    float s = 0.0f;
    int j = 0;
    do {
        s = s * 0.5f + a[i * n + j];
        j++;
    } while (j < n);
    out[i] = s;
}

// Double-precision rows (PolyBench's default type) and long integers.
__kernel void rows_double(__global const double *a, __global const long *b,
                          __global double *out, __global long *cnt, int k)
{
    int i = get_global_id(0);
    int n = k + 12;
    double s = 0.0;
    long c = 0;
    for (int j = 0; j < n; j++) {
        s += a[i * n + j] * (double)(j + 1);
        c += b[i * n + j];
    }
    out[i] = s;
    cnt[i] = c;
}

// Two rows, and the element after each (its own tile).
__kernel void two_rows(__global const float *a, __global const float *b,
                       __global float *out, int k)
{
    int i = get_global_id(0);
    int n = k + 9;
    float s = 0.0f;
    for (int j = 0; j < n - 1; j++)
        s += a[i * n + j] * b[i * n + j] - a[i * n + j + 1];
    out[i] = s;
}

// The inner loop is entered once per row r.
__kernel void row_blocks(__global const float *a, __global float *out, int k)
{
    int i = get_global_id(0);
    int n = k + 13;
    for (int r = 0; r < 3; r++) {
        float s = 0.0f;
        for (int j = 0; j < n; j++)
            s += a[(i * 3 + r) * n + j] * (float)(r + 1);
        out[i * 3 + r] = s;
    }
}

// The loop writes element 5 of its own row, which it reads in iteration
// 5: a tile filled before the writes would hold the old value, so the
// fill is refused.
__kernel void row_in_place(__global float *a, int k)
{
    int i = get_global_id(0);
    int n = k + 17;
    int fifth = i * n + 5;
    for (int j = 0; j < n; j++)
        a[fifth] += a[i * n + j];
}

// Gathers: a break, and a store that moves with the loop.
__kernel void row_break(__global const float *a, __global float *out, int k)
{
    int i = get_global_id(0);
    int n = k + 11;
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
        if (s > 3.0f)
            break;
        s += a[i * n + j];
    }
    out[i] = s;
}

__kernel void row_copy(__global const float *a, __global float *b, int k)
{
    int i = get_global_id(0);
    int n = k + 10;
    for (int j = 0; j < n; j++)
        b[i * n + j] = 2.0f * a[i * n + j];
}
"#;

#[test]
fn row_tiles_match_the_interpreter() {
    assert_every_kernel_matches("row_tiles.cl", SRC);
}

/// The kernels whose loads take tiles have the tile's fill in their LLVM
/// IR; the loops that must keep the gather have none.
#[test]
fn tiles_only_where_their_iterations_are_certain() {
    let (ir, _) = emit_avx2("row_tiles.cl", SRC, 2);
    let function = |name: &str| -> &str {
        let start = ir
            .find(&format!("@{name}_groups("))
            .unwrap_or_else(|| panic!("no {name}_groups"));
        let end = ir[start..].find("\n}\n").map_or(ir.len(), |e| start + e);
        &ir[start..end]
    };
    for k in [
        "mvt_rows",
        "row_sums",
        "row_do_while",
        "two_rows",
        "row_blocks",
        "row_in_place",
    ] {
        assert!(function(k).contains("row.tile.fill"), "{k}: no tile");
    }
    for k in ["row_break", "row_copy"] {
        assert!(!function(k).contains("row.tile"), "{k}: a tile");
    }
}

/// bench/kernels/mvt.cl: the loop of whole SIMD groups loads rows and
/// transposes them (`vunpcklps`, `vperm2f128`), and gathers only on the
/// other side of its test.
#[test]
fn mvt_loads_rows_and_transposes() {
    let src = std::fs::read_to_string(root().join("bench/kernels/mvt.cl")).unwrap();
    let asm = groups_asm_avx2("mvt.cl", &src, "mvt_kernel1");
    assert!(
        asm.contains("vunpcklps") || asm.contains("vpunpckldq"),
        "{asm}"
    );
    assert!(
        asm.contains("vperm2f128") || asm.contains("vinsertf128"),
        "{asm}"
    );
}
