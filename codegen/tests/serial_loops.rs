//! Loops run once per lane (lane serialization, docs/codegen.md "Lane
//! serialization" and "Serialized loops without run-time unrolling"):
//! differential tests of CSR-like loops whose trip counts differ from lane
//! to lane (0 to 15 iterations from random row bounds, so every remainder
//! of an unrolled loop occurs), with float and integer live-outs and a
//! step of 2, through the JIT and the interpreter for every target this
//! machine runs, at -O0 and -O2 (`common::check_every_kernel`); and an
//! assembly test that the serialized loop is not unrolled at run time.

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
"#;

#[test]
fn serialized_loops_match_the_interpreter() {
    let c = check_every_kernel("serial_loops.cl", SRC);
    eprintln!("{} launches compared", c.ran);
    assert!(c.ran > 0, "nothing ran");
    assert!(
        c.failures.is_empty(),
        "{} failures:\n{}",
        c.failures.len(),
        c.failures.join("\n")
    );
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
