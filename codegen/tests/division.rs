//! Integer division and remainder under a lane mask, on the emitted code:
//! constant divisors and `1 << k` stay unguarded, so the divisions become
//! multiplications, shifts and masks instead of one `div` per lane; a
//! divisor that may be 0 (or -1) in an inactive lane keeps its guard.
//! Their results are checked against the interpreter in features.rs.

mod common;

/// The LLVM IR and the assembly of `src` for AVX2, 8 lanes.
fn emit(src: &str, opt_level: u8) -> (String, String) {
    common::emit_avx2("division.cl", src, opt_level)
}

/// The vector divisions and remainders of the IR.
fn vector_divisions(ir: &str) -> Vec<&str> {
    ir.lines()
        .filter(|l| {
            ["sdiv <", "udiv <", "srem <", "urem <"]
                .iter()
                .any(|op| l.contains(op))
        })
        .collect()
}

/// Signed division instructions of the assembly (the launch code divides
/// only unsigned sizes).
fn signed_divisions(asm: &str) -> Vec<&str> {
    asm.lines()
        .filter(|l| l.trim_start().starts_with("idiv"))
        .collect()
}

#[test]
fn constant_divisors_under_a_mask_are_not_guarded() {
    let (ir, asm) = emit(
        r#"
__kernel void by_constants(__global int *a, __global uint *u)
{
    int i = get_global_id(0);
    int x = a[i];
    if (x > 0) {
        a[i] = x / 2 + x % 8 + x / -4 + x % 3;
        u[i] = u[i] / 2u + u[i] % 8u + u[i] / 3u;
    }
}
"#,
        2,
    );
    // Every division left in the IR is by a constant vector.
    for l in vector_divisions(&ir) {
        assert!(
            l.trim_end().ends_with('>'),
            "division by a non-constant:\n{l}"
        );
    }
    assert!(
        signed_divisions(&asm).is_empty(),
        "{:?}",
        signed_divisions(&asm)
    );
}

#[test]
fn divisions_by_a_shifted_one_are_shifts_and_masks() {
    let (ir, asm) = emit(
        r#"
__kernel void by_powers_of_two(__global int *a, __global uint *u, __global long *l, uint k)
{
    int i = get_global_id(0);
    int x = a[i];
    if (x > 0) {
        a[i] = x / (1 << k) + x % (1 << k) + x / (1 << x) + x % (1 << x);
        u[i] = u[i] / (1u << k) + u[i] % (1u << k) + u[i] / (1u << x);
        l[i] = l[i] / (1u << k) + l[i] % (1u << x);
    }
}
"#,
        2,
    );
    assert!(
        vector_divisions(&ir).is_empty(),
        "{:?}",
        vector_divisions(&ir)
    );
    assert!(
        signed_divisions(&asm).is_empty(),
        "{:?}",
        signed_divisions(&asm)
    );
}

#[test]
fn divisors_that_may_trap_in_an_inactive_lane_stay_guarded() {
    let ones = "<8 x i32> <i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1, i32 1>";
    for body in [
        "out[i] = a[i] / d[i];", // a varying divisor from memory: 0 in inactive lanes
        "out[i] = a[i] / -1;",   // INT_MIN / -1 in an inactive lane
        "out[i] = a[i] % (4 << d[i]);", // 4 << 30 is 0
    ] {
        // Unoptimized: the IR as emitted, before LLVM folds the guard.
        let (ir, _) = emit(
            &format!(
            "__kernel void guarded(__global const int *a, __global const int *d, __global int *out)
{{
    int i = get_global_id(0);
    if (a[i] > 0)
        {body}
}}
"
        ),
            0,
        );
        let divisions = vector_divisions(&ir);
        assert!(
            !divisions.is_empty(),
            "{body}: no vector division in:\n{ir}"
        );
        assert!(
            ir.lines()
                .any(|l| l.contains(" select <8 x i1>") && l.contains(ones)),
            "{body}: no guard selecting 1 for inactive lanes in:\n{ir}"
        );
    }
}
