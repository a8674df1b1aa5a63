//! Idle tails (`lanes_vectorizer::idle_tail`): in a region whose effects
//! are all guarded by `get_local_id(0) < u` (or `<=`, `==`, swapped, with
//! `sub_group_any` skips in front), the SIMD groups after the first one
//! past the bound are not run; they take the region's kept values (loop
//! counters) from it. Each kernel here is compared with the interpreter on
//! every target this machine runs, at -O0 and -O2, under work-group sizes
//! of one SIMD group, several, and sizes that are not a multiple of W
//! (`common::launches`); the benchmark's reduction and scan run in
//! workgroup.rs with the corpus.

mod common;

const KERNELS: &str = r#"
#define MAXL 64

// Sequential addressing, unsigned compare, the guard right before the
// barrier; a second counter updated after the guard.
__kernel void tree_sum(__global const int *in, __global int *out)
{
    __local int t[MAXL];
    uint lid = get_local_id(0);
    uint n = get_local_size(0);
    t[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    int steps = 0;
    for (uint s = (n + 1) / 2, m = n; m > 1; m = s, s = (s + 1) / 2) {
        if (lid < m - s)
            t[lid] += t[lid + s];
        steps++;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = t[0] * 16 + steps;
}

// Blelloch scan as the SDKs write it (signed compare, `thid == 0` between
// the sweeps, counters shifted after the guard).
__kernel void blelloch(__global const float *in, __global float *out)
{
    __local float temp[MAXL];
    int thid = get_local_id(0);
    int n = get_local_size(0);
    int base = get_group_id(0) * n;
    temp[thid] = in[base + thid];
    int p = 1;
    while (p < n) p <<= 1;
    for (int k = n + thid; k < p; k += n)
        temp[k] = 0.0f;
    int offset = 1;
    for (int d = p >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset <<= 1;
    }
    if (thid == 0)
        temp[p - 1] = 0.0f;
    for (int d = 1; d < p; d <<= 1) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (thid < d) {
            int ai = offset * (2 * thid + 1) - 1;
            int bi = offset * (2 * thid + 2) - 1;
            float x = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += x;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[base + thid] = temp[thid];
}

// Swapped and non-strict bounds; a guard whose bound changes inside the
// region (a loop without a barrier), so a SIMD group idle in the first
// iteration may be active in a later one.
__kernel void bounds(__global int *data, __global int *out)
{
    __local int t[MAXL];
    int lid = get_local_id(0);
    int n = get_local_size(0);
    int g = get_global_id(0);
    t[lid] = data[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = n - 1; s >= 0; s -= 3) {
        if (s > lid)
            t[lid] += 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid <= s / 2)
            t[lid] *= 3;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < 3; j++)
            if (lid < j * 5)
                t[lid] += j;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[g] = t[lid];
}

// Effects that no bound covers next to one that is bounded: no SIMD group
// may be skipped.
__kernel void unbounded(__global int *data, __global int *out)
{
    __local int t[MAXL];
    int lid = get_local_id(0);
    int n = get_local_size(0);
    int g = get_global_id(0);
    t[lid] = data[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 1; s < n; s <<= 1) {
        if (lid < s)
            t[lid] += 2;
        if (lid >= n - s)
            t[lid] -= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[g] = t[lid];
}

// A private value carried across the barriers (kept per SIMD group,
// varying) and a bound on dimension 0 in a 2-D work-group.
__kernel void rows(__global const int *in, __global int *out)
{
    __local int t[8][MAXL];
    int x = get_local_id(0);
    int y = get_local_id(1);
    int nx = get_local_size(0);
    int gx = get_global_id(0);
    int gy = get_global_id(1);
    int w = get_global_size(0);
    int acc = in[gy * w + gx];
    t[y % 8][x] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = nx / 2; s > 0; s >>= 1) {
        if (x < s && y < 8)
            t[y][x] += t[y][x + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int s = 1; s < nx; s <<= 1) {
        if (x < s)
            acc += s;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[gy * w + gx] = acc + (y < 8 ? t[y][0] : 0);
}
"#;

#[test]
fn idle_tails_equal_the_interpreter() {
    let c = common::check_every_kernel("idle_tail.cl", KERNELS);
    assert!(c.failures.is_empty(), "{:#?}", c.failures);
    eprintln!("{} launches compared; skipped: {:#?}", c.ran, c.skipped);
}

/// The tree levels of the reduction and the scan have idle tails; an
/// effect no bound covers has no bound.
#[test]
fn regions_with_idle_tails() {
    use lanes_vectorizer::idle_tail::IdleTails;
    use lanes_vectorizer::schedule::Schedule;
    let Some((spec, unit)) = common::runnable_unit("avx2-i32x8", "idle_tail.cl", KERNELS) else {
        return;
    };
    let tails = |name: &str| {
        let kid = unit.hir.function_by_name(name).unwrap();
        let kc = lanes_codegen::kernel_code_for(&unit.hir, kid, &spec)
            .unwrap_or_else(|d| panic!("{name}: {}", d[0].message));
        IdleTails::of(&kc.vf, &Schedule::of(&kc.vf))
    };
    let t = tails("tree_sum");
    assert!(
        t.copies.iter().filter(|c| c.is_some()).count() >= 1,
        "{t:?}"
    );
    assert!(tails("blelloch").any());
    // `lid >= n - s` has no bound: a SIMD group that runs it is never idle.
    assert!(tails("unbounded").effects.values().any(Option::is_none));
}

/// The benchmark's reduction and scan: their bodies keep the idle flag
/// (an `alloca` at -O0) and report it; a kernel whose regions have no
/// bounded guard (tiled matmul) has none.
#[test]
fn benchmark_tree_kernels_track_idle_tails() {
    for (name, src) in [
        (
            "reduction.cl",
            include_str!("../../bench/kernels/reduction.cl"),
        ),
        ("scan.cl", include_str!("../../bench/kernels/scan.cl")),
    ] {
        let (ir, _) = common::emit_avx2(name, src, 0);
        assert!(has_flag(&ir), "{name}: no idle flag");
    }
    let (ir, _) = common::emit_avx2(
        "matmul_tiled.cl",
        include_str!("../../bench/kernels/matmul_tiled.cl"),
        0,
    );
    assert!(!has_flag(&ir));
}

/// The body's idle flag, inlined into the entry points at -O0.
fn has_flag(ir: &str) -> bool {
    ir.lines()
        .any(|l| l.trim_start().starts_with("%idle") && l.contains("= alloca i1"))
}
