//! Promotion of private objects: which ones become SSA values, why the
//! others stay in memory, and that the promoted kernel computes what the
//! kernel with its objects in memory computes (reference interpreter).

use super::{blocker, promote, Blocker};
use crate::interp::{run, ArgValue, NdRange};
use crate::ir::print::{print, Plain};
use crate::ir::{Function, InstKind};
use crate::lower::tests::lower;

fn allocas(f: &Function) -> Vec<crate::ir::InstId> {
    f.blocks
        .iter()
        .flat_map(|b| b.insts.iter().copied())
        .filter(|&i| matches!(f.inst(i).kind, InstKind::Alloca { .. }))
        .collect()
}

/// Lowers, promotes and verifies; returns (before, after).
fn promoted(src: &str) -> (Function, Function) {
    let before = lower(src);
    let mut after = before.clone();
    promote(&mut after);
    if let Err(e) = crate::ir::verify::verify(&after) {
        panic!("verifier: {e:#?}\n{}", print(&after, &Plain));
    }
    let mut canon = after.clone();
    crate::cfg::canonicalize(&mut canon).expect("canonicalizes");
    (before, after)
}

fn floats(xs: &[f32]) -> ArgValue {
    ArgValue::Buffer(xs.iter().flat_map(|x| x.to_le_bytes()).collect())
}

fn ints(xs: &[i32]) -> ArgValue {
    ArgValue::Buffer(xs.iter().flat_map(|x| x.to_le_bytes()).collect())
}

/// Runs both versions on the same arguments (work-items `n`) and asserts
/// that every buffer ends up the same.
fn same_results(before: &Function, after: &Function, n: u64, args: Vec<ArgValue>) {
    let mut a = args.clone();
    let mut b = args;
    run(before, &NdRange::new_1d(n, 4), &mut a, 4).expect("memory version runs");
    if let Err(e) = run(after, &NdRange::new_1d(n, 4), &mut b, 4) {
        panic!("{e}\n{}", print(after, &Plain));
    }
    assert_eq!(a, b, "results differ\n{}", print(after, &Plain));
}

fn inputs(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) % 1000) as f32 / 250.0 + 0.5
        })
        .collect()
}

const CFD_STYLE: &str = "
typedef struct { float x; float y; float z; } FLOAT3;

inline void compute_velocity(float density, FLOAT3 momentum, FLOAT3 *velocity)
{
    velocity->x = momentum.x / density;
    velocity->y = momentum.y / density;
    velocity->z = momentum.z / density;
}

inline float compute_speed_sqd(FLOAT3 velocity)
{
    return velocity.x * velocity.x + velocity.y * velocity.y + velocity.z * velocity.z;
}

__kernel void step_factor(__global float *variables, __global float *out, int nelr)
{
    int i = get_global_id(0);
    if (i >= nelr)
        return;
    float density = variables[i];
    FLOAT3 momentum;
    momentum.x = variables[i + 1 * nelr];
    momentum.y = variables[i + 2 * nelr];
    momentum.z = variables[i + 3 * nelr];
    FLOAT3 velocity;
    compute_velocity(density, momentum, &velocity);
    FLOAT3 acc = { 0.0f, 0.0f, 0.0f };
    for (int j = 0; j < 4; j++) {
        if (variables[i + j * nelr] > 1.5f) {
            acc.x += velocity.x;
            acc.y -= velocity.y * j;
        } else {
            acc.z += compute_speed_sqd(velocity);
        }
    }
    FLOAT3 copy = acc;
    out[i] = copy.x + copy.y + copy.z + compute_speed_sqd(velocity);
}
";

#[test]
fn struct_locals_passed_by_pointer_to_helpers_become_values() {
    let (before, after) = promoted(CFD_STYLE);
    assert!(allocas(&before).len() >= 4, "{}", print(&before, &Plain));
    assert!(
        allocas(&after).is_empty(),
        "allocas left:\n{}",
        print(&after, &Plain)
    );
    let text = print(&after, &Plain);
    assert!(
        !text.contains("load ptr(private)") && !text.contains("private"),
        "{text}"
    );
    for v in after.vars.iter().filter(|v| v.name == "acc") {
        assert!(!v.in_memory && !v.values.is_empty(), "{v:?}");
    }
    let n = 13;
    same_results(
        &before,
        &after,
        16,
        vec![
            floats(&inputs(4 * n, 7)),
            floats(&vec![0.0; n]),
            ArgValue::Scalar(crate::ir::Const::int(n as i64, crate::ir::Ty::I32)),
        ],
    );
}

#[test]
fn float3_and_arrays_with_constant_indices_become_values() {
    let src = "
    void accumulate(float3 *acc, float4 v) { acc->x += v.x; acc->y += v.y; acc->z += v.z * v.w; }
    __kernel void k(__global const float4 *in, __global float *out, int n)
    {
        int i = get_global_id(0);
        float3 acc = (float3)(0.0f);
        float w[3] = { 1.0f, 2.0f, 3.0f };
        for (int j = 0; j < n; j++)
            accumulate(&acc, in[(i + j) % 16]);
        w[1] = acc.y;
        out[i] = acc.x * w[0] + w[1] + acc.z * w[2];
    }";
    let (before, after) = promoted(src);
    assert!(!allocas(&before).is_empty());
    assert!(allocas(&after).is_empty(), "{}", print(&after, &Plain));
    same_results(
        &before,
        &after,
        8,
        vec![
            floats(&inputs(64, 3)),
            floats(&[0.0; 8]),
            ArgValue::Scalar(crate::ir::Const::int(5, crate::ir::Ty::I32)),
        ],
    );
}

fn only_blocker(src: &str) -> Blocker {
    let (before, after) = promoted(src);
    let left = allocas(&after);
    assert_eq!(left.len(), 1, "{}", print(&after, &Plain));
    assert_eq!(allocas(&before).len(), 1);
    blocker(&after, left[0], &after.users()).expect("stays in memory for a reason")
}

#[test]
fn a_varying_index_keeps_the_array_in_memory() {
    let b = only_blocker(
        "__kernel void k(__global const int *in, __global int *out) {
            int i = get_global_id(0);
            int t[4] = { 1, 2, 3, 4 };
            t[in[i] & 3] = 0;
            out[i] = t[0] + t[3];
        }",
    );
    assert!(matches!(b, Blocker::DynamicIndex(_)), "{b:?}");
}

#[test]
fn a_pointer_chosen_at_run_time_keeps_the_object_in_memory() {
    let b = only_blocker(
        "typedef struct { float a[2]; } Pair;
        __kernel void k(__global const float *in, __global float *out) {
            int i = get_global_id(0);
            Pair p = { { 1.0f, 2.0f } };
            float *q = in[i] > 0.0f ? &p.a[0] : &p.a[1];
            *q = in[i];
            out[i] = p.a[0] - p.a[1];
        }",
    );
    assert!(matches!(b, Blocker::SelectedPointer(_)), "{b:?}");
}

#[test]
fn bytes_read_as_another_type_keep_the_union_in_memory() {
    let b = only_blocker(
        "typedef union { float f; uint u; } Bits;
        __kernel void k(__global const float *in, __global uint *out) {
            int i = get_global_id(0);
            Bits b;
            b.f = in[i];
            out[i] = b.u;
        }",
    );
    assert!(matches!(b, Blocker::Reinterpreted(_)), "{b:?}");
}

#[test]
fn same_results_with_values_flowing_through_divergent_joins_and_loops() {
    let src = "
    typedef struct { int lo; int hi; float sum; } Range;
    void widen(Range *r, int v) { if (v < r->lo) r->lo = v; if (v > r->hi) r->hi = v; r->sum += (float)v; }
    __kernel void k(__global const int *in, __global int *out, __global float *sums, int n)
    {
        int i = get_global_id(0);
        Range r = { in[i], in[i], 0.0f };
        Range first = r;
        for (int j = 0; j < n; j++) {
            int v = in[(i * 7 + j) % 32];
            if (v == 3)
                break;
            widen(&r, v);
            if (j == 0)
                first = r;
        }
        if (n > 0 && in[i] != 3)
            r.sum += (float)first.hi;
        out[2 * i] = r.lo;
        out[2 * i + 1] = r.hi;
        sums[i] = r.sum;
    }";
    let (before, after) = promoted(src);
    assert!(allocas(&after).is_empty(), "{}", print(&after, &Plain));
    let data: Vec<i32> = (0..32).map(|x| (x * 5 + 1) % 11).collect();
    same_results(
        &before,
        &after,
        12,
        vec![
            ints(&data),
            ints(&[0; 32]),
            floats(&[0.0; 16]),
            ArgValue::Scalar(crate::ir::Const::int(6, crate::ir::Ty::I32)),
        ],
    );
}

/// Lowers, promotes constant offsets, then expands and promotes uniform
/// indices for width 8.
fn promoted_indexed(src: &str) -> (Function, Function) {
    let (before, mut after) = promoted(src);
    super::promote_uniformly_indexed(&mut after, 8);
    if let Err(e) = crate::ir::verify::verify(&after) {
        panic!("verifier: {e:#?}\n{}", print(&after, &Plain));
    }
    (before, after)
}

#[test]
fn small_arrays_indexed_with_uniform_values_become_values() {
    let src = "
    __kernel void mat3(__global const float *mats, __global const float *v, __global float *out, int n)
    {
        int i = get_global_id(0);
        float m[3][3];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++)
                m[r][c] = mats[9 * (i % 4) + 3 * r + c];
        float x[3] = { v[i], v[i + 1], v[i + 2] };
        for (int r = 0; r < n; r++) {
            float acc = 0.0f;
            for (int c = 0; c < 3; c++)
                acc += m[r % 3][c] * x[c];
            out[3 * i + r % 3] = acc;
        }
    }";
    let (before, after) = promoted_indexed(src);
    assert_eq!(allocas(&before).len(), 2);
    assert!(allocas(&after).is_empty(), "{}", print(&after, &Plain));
    same_results(
        &before,
        &after,
        8,
        vec![
            floats(&inputs(36, 5)),
            floats(&inputs(16, 9)),
            floats(&[0.0; 24]),
            ArgValue::Scalar(crate::ir::Const::int(4, crate::ir::Ty::I32)),
        ],
    );
}

#[test]
fn varying_indices_and_large_arrays_stay_in_memory() {
    let (_, after) = promoted_indexed(
        "__kernel void k(__global const int *in, __global int *out, int u) {
            int i = get_global_id(0);
            int lane[4] = { 1, 2, 3, 4 };
            int big[32];
            for (int j = 0; j < 32; j++)
                big[j] = j * u;
            lane[in[i] & 3] = 0;
            out[i] = lane[u & 3] + big[u & 31];
        }",
    );
    assert_eq!(allocas(&after).len(), 2, "{}", print(&after, &Plain));
}
