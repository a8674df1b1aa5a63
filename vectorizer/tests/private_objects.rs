//! L0206 after promotion: private structs, vectors and arrays accessed at
//! constant offsets are registers and get no finding; those that stay in
//! per-lane memory are reported with the access that keeps them there.

use lanes_frontend::diag::{Code, Diagnostic};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_text;
use lanes_vectorizer::report::{analyze_kernel, report};

/// The L0206 findings of the first kernel, and the source text.
fn findings(src: &str) -> (Vec<Diagnostic>, String) {
    let u = check_text("k.cl", None, src, &PreprocessOptions::default(), &RealFs);
    assert!(
        !u.diagnostics.iter().any(|d| d.is_error()),
        "{:#?}",
        u.diagnostics
    );
    let k = u.hir.kernels()[0];
    let ka = analyze_kernel(&u.hir, k, 8).expect("analyses");
    let r = report(&ka, &u.hir, k, &u.sources);
    let found = r
        .diagnostics
        .into_iter()
        .filter(|d| d.code == Code::PerLanePrivateArray)
        .collect();
    (found, src.to_string())
}

fn text(src: &str, span: lanes_frontend::source::Span) -> &str {
    &src[span.start as usize..span.end as usize]
}

#[test]
fn struct_locals_of_helpers_are_registers_and_not_reported() {
    let (found, _) = findings(
        "typedef struct { float x; float y; float z; } FLOAT3;
        inline void compute_velocity(float density, FLOAT3 momentum, FLOAT3 *velocity) {
            velocity->x = momentum.x / density;
            velocity->y = momentum.y / density;
            velocity->z = momentum.z / density;
        }
        __kernel void k(__global const float *v, __global float *out, int n) {
            int i = get_global_id(0);
            FLOAT3 momentum = { v[i], v[i + n], v[i + 2 * n] };
            FLOAT3 velocity;
            float3 c = (float3)(1.0f, 2.0f, 3.0f);
            float w[2];
            w[0] = v[i];
            w[1] = c.y;
            compute_velocity(v[i + 3 * n], momentum, &velocity);
            out[i] = velocity.x + velocity.y + velocity.z + w[0] * w[1];
        }",
    );
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn a_varying_index_is_the_reason_shown() {
    let (found, src) = findings(
        "__kernel void k(__global const int *in, __global int *out) {
            int i = get_global_id(0);
            int hist[4] = { 0, 0, 0, 0 };
            hist[in[i] & 3] += 1;
            out[i] = hist[0] + hist[3];
        }",
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    let d = &found[0];
    assert_eq!(text(&src, d.span), "hist");
    assert!(d.message.contains("private array `hist`"), "{}", d.message);
    let why = d
        .related
        .iter()
        .find(|r| r.message.contains("computed at run time"))
        .unwrap_or_else(|| panic!("no reason in {d:#?}"));
    assert_eq!(text(&src, why.span), "hist[in[i] & 3]");
    assert!(why.message.contains("constant"), "{}", why.message);
}

#[test]
fn a_pointer_chosen_per_lane_is_the_reason_shown() {
    let (found, src) = findings(
        "typedef struct { float lo; float hi; } Pair;
        __kernel void k(__global const float *in, __global float *out) {
            int i = get_global_id(0);
            Pair p = { 0.0f, 1.0f };
            float *slot = in[i] > 0.0f ? &p.hi : &p.lo;
            *slot = in[i];
            out[i] = p.hi - p.lo;
        }",
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    let d = &found[0];
    assert!(d.message.contains("private struct `p`"), "{}", d.message);
    let why = d
        .related
        .iter()
        .find(|r| r.message.contains("chooses a pointer into it at run time"))
        .unwrap_or_else(|| panic!("no reason in {d:#?}"));
    assert!(
        text(&src, why.span).contains('?'),
        "{}",
        text(&src, why.span)
    );
}

#[test]
fn a_union_read_as_another_type_is_the_reason_shown() {
    let (found, src) = findings(
        "typedef union { float f; uint u; } Bits;
        __kernel void k(__global const float *in, __global uint *out) {
            int i = get_global_id(0);
            Bits b;
            b.f = in[i];
            out[i] = b.u >> 23;
        }",
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    let d = &found[0];
    assert!(d.message.contains("private union `b`"), "{}", d.message);
    let why = d
        .related
        .iter()
        .find(|r| r.message.contains("as another type"))
        .unwrap_or_else(|| panic!("no reason in {d:#?}"));
    assert_eq!(text(&src, why.span), "b.u");
}
