//! Divergent loops whose lanes leave at different iterations (the
//! vectorizer's `induction_counters` and `header_exit`): the induction
//! variable read at a varying exit is a per-lane count instead of a
//! per-iteration blend, and a loop whose header's uniform branch is the
//! only way to one of its two exits keeps no per-iteration record of the
//! exit each lane took. Differential tests against the interpreter on
//! every target this machine runs, at -O0 and -O2: starts that vary per
//! lane, steps of 3 and -2, searches re-entered by fewer lanes inside an
//! outer loop, lanes that return from inside the loop, both exits'
//! values read after the loop, and exit values `i + k` (the index after a
//! match, a do-while's counter); and an assembly test that mandelbrot's
//! escape loop blends nothing.

mod common;

use common::*;

const SRC: &str = r#"
// The header's uniform exit and a varying break: the index at the break
// and the counter after the loop.
__kernel void first_above(__global const float *a, __global const float *t,
                          __global int *out, int n)
{
    int i = get_global_id(0);
    int x;
    int found = -1;
    for (x = 0; x < 4 * n; x++) {
        if (a[(i + x) & 4095] > t[i & 4095]) {
            found = x;
            break;
        }
    }
    out[2 * i] = found;
    out[2 * i + 1] = x;
}

// A start that varies per lane with a step of 3 (no uniform exit), and a
// count down by 2 from a uniform start.
__kernel void strided_search(__global const int *a, __global int *out, int n)
{
    int i = get_global_id(0);
    int k = i % 5;
    for (; k < 40 + n; k += 3)
        if (a[(i * 7 + k) & 8191] == 7)
            break;
    int j = 60;
    for (; j > 0; j -= 2)
        if (a[(i + j) & 8191] < 2)
            break;
    out[2 * i] = k;
    out[2 * i + 1] = j;
}

// The search re-entered in every iteration of an outer loop, by the lanes
// that did not `continue`, and lanes that return from the outer loop.
__kernel void nested(__global const int *a, __global int *out, int n)
{
    int i = get_global_id(0);
    int s = 0;
    for (int r = 0; r < n; r++) {
        if ((i + r) % 3 == 0)
            continue;
        int x = 0;
        while (x < 20 && a[(i + r * 5 + x) & 8191] != 3)
            x++;
        s += x * (r + 1);
        if (s > 200) {
            out[i] = -s;
            return;
        }
    }
    out[i] = s;
}

// Lanes that return from inside the searching loop, and the index read at
// the break and at the uniform exit.
__kernel void retire(__global const int *a, __global int *out, int n)
{
    int i = get_global_id(0);
    int x;
    for (x = 0; x < 10 * n; x++) {
        int v = a[(i * 3 + x) & 8191];
        if (v == 15) {
            out[i] = -1;
            return;
        }
        if (v == 2)
            break;
    }
    out[i] = x;
}

// The index after the match (`x + 1`), and a do-while whose exit tests
// follow the increment (`k` read after the loop is the header's `k + 2`).
__kernel void after_match(__global const int *a, __global int *out, int n)
{
    int i = get_global_id(0);
    int pos = 0;
    for (int x = 0; x < 5 * n; x++) {
        if (a[(i + 2 * x) & 8191] == 9) {
            pos = x + 1;
            break;
        }
    }
    int k = 0;
    do {
        k += 2;
    } while (k < 50 && a[(i * 5 + k) & 8191] != 4);
    out[2 * i] = pos;
    out[2 * i + 1] = k;
}

// An escape-time loop in integers: `it < limit` in the header, the escape
// test after it (mandelbrot's shape, without its chaotic rounding).
__kernel void escape_time(__global const uint *seed, __global uint *out,
                          uint limit)
{
    int i = get_global_id(0);
    uint v = seed[i & 8191] + (uint)i;
    uint it = 0;
    while (it < 8 * limit && (v % 13) != 0) {
        v = v * 5u + 3u;
        it++;
    }
    out[i] = it;
}
"#;

#[test]
fn loop_exits_match_the_interpreter() {
    assert_every_kernel_matches("loop_exits.cl", SRC);
}

/// mandelbrot's escape loop (bench/kernels/mandelbrot.cl) keeps neither
/// `it` nor the exit a lane took with a `vblendvps` per iteration: its
/// loops (each body copy, one or two SIMD groups interleaved) hold the
/// arithmetic, the compare, the mask update and a `vpsubd` that counts the
/// lanes still iterating. main blended both, two `vblendvps` per SIMD
/// group and iteration.
#[test]
fn escape_loop_counts_instead_of_blending() {
    let src = std::fs::read_to_string(root().join("bench/kernels/mandelbrot.cl")).unwrap();
    let asm = groups_asm_avx2("mandelbrot.cl", &src, "mandelbrot");
    let escape = innermost_natural_loops_with(&asm, "vfmsub");
    assert!(!escape.is_empty(), "{asm}");
    for l in &escape {
        assert!(
            !l.iter()
                .any(|x| x.starts_with("vblendvps") || x.starts_with("vpblendvb")),
            "{l:#?}\n{asm}"
        );
        assert!(l.iter().any(|x| x.starts_with("vpsubd")), "{l:#?}\n{asm}");
    }
}
