//! Masks on the emitted code (AVX2, 8 lanes, unspecialized): a SIMD group
//! whose guard mask is all-true runs a copy without masked accesses
//! (`codegen/src/emit/all_active.rs`), and a uniform loop inside a
//! divergent branch carries no per-lane blend from one iteration to the
//! next. Results under full and partial groups are compared with the
//! interpreter in differential.rs and features.rs, and against guard pages
//! in guard_pages.rs.

mod common;

/// The LLVM IR and the assembly of `src` for AVX2, 8 lanes, at -O2.
fn emit(src: &str) -> (String, String) {
    common::emit_avx2("all_active.cl", src, 2)
}

/// The assembly's basic blocks: runs of instructions between labels
/// (`.LBB0_3:`, `# %bb.2:`) and after jumps.
fn asm_blocks(asm: &str) -> Vec<Vec<&str>> {
    let mut out: Vec<Vec<&str>> = vec![Vec::new()];
    for l in asm.lines() {
        let t = l.trim();
        if t.ends_with(':') || t.starts_with("# %bb.") {
            out.push(Vec::new());
            continue;
        }
        if t.is_empty() || t.starts_with('.') || t.starts_with('#') {
            continue;
        }
        out.last_mut().expect("a block").push(t);
        if t.starts_with('j') {
            out.push(Vec::new());
        }
    }
    out.retain(|b| !b.is_empty());
    out
}

/// A full-width vector store without a mask: `vmovups %ymm3, (%rdi)`.
fn is_plain_ymm_store(i: &str) -> bool {
    let Some(ops) = i
        .strip_prefix("vmovups")
        .or_else(|| i.strip_prefix("vmovaps"))
    else {
        return false;
    };
    let ops = ops.trim();
    ops.starts_with("%ymm") && ops.contains('(')
}

const TRIAD: &str = r#"
__kernel void stream_triad(__global float *a, __global const float *b,
                           __global const float *c, float q, int n)
{
    int i = get_global_id(0);
    if (i < n)
        a[i] = b[i] + q * c[i];
}
"#;

#[test]
fn guarded_triad_has_an_unmasked_path() {
    let (ir, asm) = emit(TRIAD);
    let blocks = asm_blocks(&asm);
    let plain: Vec<&Vec<&str>> = blocks
        .iter()
        .filter(|b| b.iter().any(|i| is_plain_ymm_store(i)))
        .collect();
    assert!(
        !plain.is_empty(),
        "no unmasked vector store for the all-active groups:\n{asm}"
    );
    for b in &plain {
        assert!(
            b.iter().all(|i| !i.starts_with("vmaskmov")),
            "the all-active path still masks:\n{}",
            b.join("\n")
        );
    }
    // The groups where `i < n` fails in some lane keep their masks.
    assert!(
        asm.lines()
            .any(|l| l.trim().starts_with("vmaskmovps") && l.trim().ends_with(')')),
        "no masked store left for the last group:\n{asm}"
    );
    assert!(ir.contains("all_active"), "{ir}");
}

#[test]
fn the_copy_is_made_only_for_a_mask_that_guards_memory() {
    // The only mask besides the entry's guards no access (the store is
    // after the join): nothing to gain from a copy.
    let (ir, _) = emit(
        r#"
__kernel void clamp_low(__global float *a, float lo)
{
    int i = get_global_id(0);
    float x = a[i];
    if (x < lo)
        x = lo;
    a[i] = x;
}
"#,
    );
    assert!(!ir.contains("all_active"), "{ir}");
}

#[test]
fn barrier_kernels_get_no_copy() {
    let (ir, _) = emit(
        r#"
__kernel void reverse_in_group(__global float *a, __local float *t, int n)
{
    int i = get_global_id(0);
    int l = get_local_id(0);
    int s = get_local_size(0);
    if (i < n)
        t[l] = a[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n && s - 1 - l + get_group_id(0) * s < n)
        a[i] = t[s - 1 - l];
}
"#,
    );
    assert!(!ir.contains("all_active"), "{ir}");
}

/// `sum` leaves the uniform loop when every lane does: no `select` on the
/// floats in the loop (before, each iteration blended the exit value of
/// the lanes "leaving" into a per-lane live-out).
#[test]
fn uniform_loop_in_divergent_branch_has_no_exit_blend() {
    let (ir, _) = emit(
        r#"
__kernel void weighted_sums(__global const float *a, __global const float *w,
                            __global float *out, int taps)
{
    int i = get_global_id(0);
    float x = a[i];
    if (x > 0.0f) {
        float sum = 0.0f;
        for (int t = 0; t < taps; t++)
            sum += w[t] * a[i + t];
        out[i] = sum;
    }
}
"#,
    );
    let blends: Vec<&str> = ir
        .lines()
        .filter(|l| l.contains(" select ") && l.contains("x float>"))
        .collect();
    assert!(blends.is_empty(), "{}", blends.join("\n"));
}

/// The specializer's fast path (`if (sub_group_all(i < n))`) already runs
/// whole groups unmasked; its slow path is where the guard is not
/// all-true, so a copy there would be dead code.
#[test]
fn no_copy_on_the_slow_path_of_a_fast_path() {
    let (ir, _) = emit(
        r#"
__kernel void stream_triad(__global float *a, __global const float *b,
                           __global const float *c, float q, int n)
{
    int i = get_global_id(0);
    if (sub_group_all(i < n)) {
        a[i] = b[i] + q * c[i];
    } else if (i < n) {
        a[i] = b[i] + q * c[i];
    }
}
"#,
    );
    assert!(!ir.contains("all_active"), "{ir}");
}
