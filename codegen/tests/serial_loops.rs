//! Loops run once per lane (lane serialization, docs/codegen.md "Lane
//! serialization" and "Serialized loops without run-time unrolling"):
//! differential tests of CSR-like loops whose trip counts differ from lane
//! to lane (0 to 15 iterations from random row bounds, so every remainder
//! of an unrolled loop occurs), with float and integer live-outs and a
//! step of 2, through the JIT and the interpreter for every target this
//! machine runs, at -O0 and -O2 (`common::check_every_kernel`); and
//! assembly tests that the serialized loop is not unrolled at run time and
//! that the lane loop around it neither stores its live-ins to the stack
//! nor tests its lanes in vectors (`emit/lane_slots.rs`).

mod common;

use common::*;

const SRC: &str = r#"
__kernel void csr_dot(__global const int *row_ptr, __global const int *col,
                      __global const float *vals, __global const float *x,
                      __global float *y, int nrows)
{
    int row = get_global_id(0);
    if (row >= nrows)
        return;
    float dot = 0.0f;
    for (int k = row_ptr[row]; k < row_ptr[row + 1]; k++)
        dot += vals[k] * x[col[k]];
    y[row] = dot;
}

__kernel void csr_count(__global const int *lo, __global const int *hi,
                        __global const int *col, __global const int *v,
                        __global int *out)
{
    int i = get_global_id(0);
    int s = 0, n = 0;
    for (int k = lo[i]; k < hi[i]; k += 2) {
        s += v[col[k]] * k;
        n += col[k] & 1;
    }
    out[2 * i] = s;
    out[2 * i + 1] = n;
}

// A lane read at a run-time lane in a loop (a slot written once), and a
// vote on `lane id == l` under a divergent mask with `l` past the SIMD
// width too (false there).
__kernel void lane_walk(__global const int *in, __global int *out, int n)
{
    int i = get_global_id(0);
    int v = in[i];
    float f = (float)v * 0.5f;
    int s = 0;
    float t = 0.0f;
    for (int l = 0; l < n; l++) {
        uint at = (uint)l % get_sub_group_size();
        s += sub_group_broadcast(v, at) * (l + 1);
        t += sub_group_broadcast(f, at);
        if (v > 0) {
            if (sub_group_any(get_sub_group_local_id() == (uint)l))
                s += 1000 * l;
        }
    }
    out[i] = s + (int)t;
}
"#;

#[test]
fn serialized_loops_match_the_interpreter() {
    assert_every_kernel_matches("serial_loops.cl", SRC);
}

/// The per-lane loop keeps one multiply-add per iteration: no run-time
/// unrolled copy (4 `vfmadd` per iteration) and no remainder loop in front
/// of it. Every `vfmadd` of the function lies in an innermost loop with
/// exactly one (main had a remainder loop with one and the unrolled loop
/// with four, per copy of the body).
#[test]
fn serialized_loop_is_not_unrolled_at_run_time() {
    let asm = groups_asm_avx2("serial_loops.cl", SRC, "csr_dot");
    let fmas = |l: &[&str]| l.iter().filter(|x| x.starts_with("vfmadd")).count();
    let all: Vec<&str> = asm.lines().map(str::trim).collect();
    let loops = innermost_loops_with(&asm, "vfmadd");
    assert!(!loops.is_empty(), "{asm}");
    for l in &loops {
        assert_eq!(fmas(l), 1, "{l:#?}\n{asm}");
    }
    assert_eq!(fmas(&all), loops.len(), "{asm}");
}

/// The lane loop around the serialized loop (the innermost loops that
/// merge a lane's result with `vblendvps`) reads each lane's row bounds
/// from a slot written once per SIMD group, and asks whether lane `l` is
/// active in scalars (`bt` on the mask's bits; nothing in the all-active
/// body): no vector stored to the stack and no `vptest`/`vtestps` in it.
/// main stored both row-bound vectors and tested `lid == l` with a vector
/// compare and `vtestps` at every lane.
#[test]
fn lane_loop_keeps_live_ins_in_a_slot_and_tests_lanes_in_scalars() {
    let asm = groups_asm_avx2("serial_loops.cl", SRC, "csr_dot");
    let lane_loops = innermost_natural_loops_with(&asm, "vblendvps");
    assert!(lane_loops.len() >= 2, "{lane_loops:#?}\n{asm}");
    for l in &lane_loops {
        let vector_to_stack =
            |x: &&&str| x.starts_with("vmov") && x.contains("%ymm") && x.ends_with("(%rsp)");
        assert!(!l.iter().any(|x| vector_to_stack(&x)), "{l:#?}\n{asm}");
        assert!(
            !l.iter()
                .any(|x| x.starts_with("vptest") || x.starts_with("vtestps")),
            "{l:#?}\n{asm}"
        );
    }
}
