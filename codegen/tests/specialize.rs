//! `--specialize auto`: objects with fast paths on inferred preconditions
//! compute exactly what the unspecialized kernel computes (the scalar
//! interpreter on the original source), for every group, on launches that
//! straddle the boundaries of the preconditions (image borders, partial
//! groups, offsets, radii larger than the image).

mod common;

use common::*;
use lanes_codegen::{host_can_run, target_spec, Jit, Options, TargetSpec};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::{check_text, CheckedUnit};
use lanes_vectorizer::interp::NdRange;
use lanes_vectorizer::ir::Ty;
use lanes_vectorizer::precond;

const KERNELS: &str = r#"
__kernel void convolution(__global const float *input, __global float *output,
                          __global const float *stencil, int width, int stencilWidth)
{
    int x = get_global_id(0);
    if (x >= width)
        return;
    int vstep = (stencilWidth - 1) / 2;
    int left = max(0, x - vstep);
    int right = min(width - 1, x + vstep);
    float sum = 0.0f;
    for (int i = left; i <= right; ++i)
        sum += input[i] * stencil[i - (x - vstep)];
    output[x] = sum;
}

__kernel void clamped_jacobi(__global const float *a, __global float *b, int n)
{
    int i = get_global_id(0);
    if (i < n) {
        int l = max(i - 1, 0);
        int r = min(i + 1, n - 1);
        b[i] = 0.33333f * (a[l] + a[i] + a[r]);
    }
}

__kernel void guarded_rows(__global const int *a, __global int *out, int n, int m)
{
    int j = get_global_id(0);
    int acc = 0;
    for (int k = j; k < min(j + m, n); ++k)
        acc += a[k];
    if (j < n)
        out[j] = acc;
}
"#;

fn unit(text: &str) -> CheckedUnit {
    let u = check_text("k.cl", None, text, &PreprocessOptions::default(), &RealFs);
    assert!(!u.has_errors(), "{:?}", u.diagnostics);
    u
}

/// The targets of the differential tests this machine can run (the others
/// are reported as skipped).
fn runnable_targets() -> Vec<(&'static str, TargetSpec)> {
    ["sse4-i32x4", "avx2-i32x8", "avx512skx-x16"]
        .into_iter()
        .filter_map(|target| {
            let spec = target_spec(target).unwrap();
            if host_can_run(&spec) {
                Some((target, spec))
            } else {
                eprintln!("SKIPPED: this machine cannot run {target}");
                None
            }
        })
        .collect()
}

fn scalar(ty: Ty, v: i64) -> Arg {
    Arg::Scalar(ty, v as u64 & 0xffff_ffff, 0.0)
}

#[test]
fn specialized_objects_equal_the_interpreter_across_boundaries() {
    let original = unit(KERNELS);
    let mut ran = 0;
    for (target, spec) in runnable_targets() {
        let w = spec.width;
        let s = precond::specialize(&original, &precond::Options::new(w));
        let kinds: Vec<_> = s.applied.iter().map(|a| a.kernel.as_str()).collect();
        assert!(kinds.contains(&"convolution"), "{target}: {:?}", s.applied);
        assert!(
            kinds.contains(&"clamped_jacobi"),
            "{target}: {:?}",
            s.applied
        );
        let special = unit(&s.text);
        for name in ["convolution", "clamped_jacobi", "guarded_rows"] {
            let k0 = original
                .hir
                .kernels()
                .into_iter()
                .find(|&k| original.hir.function(k).name == name)
                .unwrap();
            let k1 = special
                .hir
                .kernels()
                .into_iter()
                .find(|&k| special.hir.function(k).name == name)
                .unwrap();
            // Both sides contract as the target does.
            let scalar_fn = lanes_vectorizer::report::analyze_kernel_with(
                &original.hir,
                k0,
                w,
                &spec.lowering(),
            )
            .unwrap()
            .func;
            let kc0 = lanes_codegen::kernel_code_for(&original.hir, k0, &spec).unwrap();
            let kc1 = lanes_codegen::kernel_code_for(&special.hir, k1, &spec).unwrap();
            let jit = Jit::new(
                lanes_codegen::compile_kernels(vec![kc1.clone()], &spec, &Options::default())
                    .unwrap(),
            )
            .unwrap();
            for (n, radius, offset, local) in [
                (3u64, 1i64, 0u64, 4u64),
                (17, 1, 0, 8),
                (40, 2, 3, 16),
                (64, 3, 0, 16),
                (100, 7, 1, 12),
                (33, 40, 0, 16),
            ] {
                let mut rng = Rng::new(n * 31 + radius as u64);
                let mut args: Vec<Arg> = Vec::new();
                for p in &kc0.params {
                    let a = match p.name.as_str() {
                        "width" | "n" => scalar(Ty::I32, n as i64),
                        "stencilWidth" => scalar(Ty::I32, 2 * radius + 1),
                        "m" => scalar(Ty::I32, radius),
                        _ => {
                            let mut b = Buf::new(4 * (n as usize + 64));
                            let e = elem_of(p.ty.as_ref());
                            fill(&mut b, e, &mut rng, &profile_of(name));
                            Arg::Buffer(b, e)
                        }
                    };
                    args.push(a);
                }
                let range = NdRange {
                    work_dim: 1,
                    global_offset: [offset, 0, 0],
                    global_size: [n + 5, 1, 1],
                    local_size: [local, 1, 1],
                };
                let want = run_interp(&scalar_fn, &kc0, &args, &range, w).expect("interpreter");
                let rc = run_jit(&jit, &kc1, &mut args, &lanes_range(&range));
                assert_eq!(rc, 0);
                for (p, a) in kc1.params.iter().zip(&args) {
                    let Arg::Buffer(got, elem) = a else { continue };
                    let Some(lanes_vectorizer::interp::ArgValue::Buffer(wb)) =
                        want.get(param_of_ir(p))
                    else {
                        continue;
                    };
                    if let Some(d) = compare_with(*elem, got.bytes(), wb, false) {
                        panic!(
                            "{target} {name} n={n} r={radius} offset={offset}: `{}`: {d}",
                            p.name
                        );
                    }
                }
                ran += 1;
            }
        }
    }
    assert!(ran > 0);
}

const FWT: &str = include_str!("../../tests/kernels/precond/fast_walsh_transform.cl");
const PREFIX_SUM: &str = include_str!("../../tests/kernels/precond/prefix_sum.cl");

/// Runs kernel `name` of `original` (interpreter) and of `special` (JIT) on
/// the same arguments and range and compares every buffer.
#[allow(clippy::too_many_arguments)]
fn same_results(
    original: &CheckedUnit,
    special: &CheckedUnit,
    jit: &Jit,
    name: &str,
    w: u32,
    args: &mut [Arg],
    range: &NdRange,
    what: &str,
) {
    let find = |u: &CheckedUnit| {
        u.hir
            .kernels()
            .into_iter()
            .find(|&k| u.hir.function(k).name == name)
            .unwrap()
    };
    let (k0, k1) = (find(original), find(special));
    let scalar_fn = lanes_vectorizer::report::analyze_kernel(&original.hir, k0, w)
        .unwrap()
        .func;
    let kc0 = lanes_codegen::kernel_code(&original.hir, k0, w).unwrap();
    let kc1 = lanes_codegen::kernel_code(&special.hir, k1, w).unwrap();
    let want = run_interp(&scalar_fn, &kc0, args, range, w).expect("interpreter");
    let rc = run_jit(jit, &kc1, args, &lanes_range(range));
    assert_eq!(rc, 0, "{what}");
    for (p, a) in kc1.params.iter().zip(args.iter()) {
        let Arg::Buffer(got, elem) = a else { continue };
        let Some(lanes_vectorizer::interp::ArgValue::Buffer(wb)) = want.get(param_of_ir(p)) else {
            continue;
        };
        if let Some(d) = compare_with(*elem, got.bytes(), wb, false) {
            panic!("{what}: `{}`: {d}", p.name);
        }
    }
}

fn jit_for(special: &CheckedUnit, name: &str, w: u32, spec: &lanes_codegen::TargetSpec) -> Jit {
    let k = special
        .hir
        .kernels()
        .into_iter()
        .find(|&k| special.hir.function(k).name == name)
        .unwrap();
    assert_eq!(w, spec.width);
    let kc = lanes_codegen::kernel_code_for(&special.hir, k, spec).unwrap();
    Jit::new(lanes_codegen::compile_kernels(vec![kc], spec, &Options::default()).unwrap()).unwrap()
}

/// FastWalshTransform with the fast path CEGIS finds (`step % W == 0` and
/// the group aligned to W; the divisions decided inside by the modulus
/// facts): every step from 1 to 64, multiples of W and not, on launches
/// with offsets that misalign the groups, partial groups and partial
/// work-groups.
#[test]
fn fast_walsh_transform_fast_path_equals_the_interpreter() {
    let original = unit(FWT);
    let mut ran = 0;
    for (target, spec) in runnable_targets() {
        let w = spec.width;
        let s = precond::specialize(&original, &precond::Options::new(w));
        assert_eq!(s.applied.len(), 1, "{target}: {:?}", s.applied);
        assert_eq!(
            s.applied[0].condition,
            format!("step % {w} == 0 && (tid - get_sub_group_local_id()) % {w} == 0")
        );
        let special = unit(&s.text);
        let jit = jit_for(&special, "fast_walsh_transform", w, &spec);
        for step in 1u64..=64 {
            for (global, offset, local) in [
                (128u64, 0u64, 16u64),
                (96, 16, 32),
                (77, 0, 16),
                (64, 3, 8),
                (50, 13, 10),
            ] {
                let mut rng = Rng::new(step * 131 + global + offset);
                let n = 2 * (global + offset) as usize + 2 * 64 + 16;
                let mut data = Buf::new(4 * n);
                fill(&mut data, Elem::F32, &mut rng, &DEFAULT_PROFILE);
                let mut args = vec![Arg::Buffer(data, Elem::F32), scalar(Ty::I32, step as i64)];
                let range = NdRange {
                    work_dim: 1,
                    global_offset: [offset, 0, 0],
                    global_size: [global, 1, 1],
                    local_size: [local, 1, 1],
                };
                let what =
                    format!("{target} step={step} global={global} offset={offset} local={local}");
                same_results(
                    &original,
                    &special,
                    &jit,
                    "fast_walsh_transform",
                    w,
                    &mut args,
                    &range,
                    &what,
                );
                ran += 1;
            }
        }
    }
    assert!(ran > 0);
}

/// PrefixSum's guards `if (lid < d)`: fast paths on branches, with `d`
/// below, at and above the SIMD width and the work-group size.
#[test]
fn branch_fast_paths_equal_the_interpreter() {
    let original = unit(PREFIX_SUM);
    let mut ran = 0;
    for (target, spec) in runnable_targets() {
        let w = spec.width;
        let s = precond::specialize(&original, &precond::Options::new(w));
        let branches: Vec<_> = s
            .applied
            .iter()
            .filter(|a| a.kind == precond::TargetKind::Branch)
            .map(|a| (a.kernel.as_str(), a.condition.as_str()))
            .collect();
        assert!(
            branches.contains(&("prefix_sum_up", "lid < d")),
            "{target}: {:?}",
            s.applied
        );
        assert!(
            branches.contains(&("prefix_sum_down", "lid < d")),
            "{target}: {:?}",
            s.applied
        );
        let special = unit(&s.text);
        for name in ["prefix_sum_up", "prefix_sum_down"] {
            let jit = jit_for(&special, name, w, &spec);
            for (d, offset, local, groups) in [
                (1u64, 1u64, 16u64, 2u64),
                (3, 2, 16, 1),
                (7, 4, 32, 2),
                (8, 1, 8, 3),
                (16, 2, 64, 1),
                (20, 3, 32, 2),
                (31, 1, 64, 2),
                (64, 1, 64, 1),
            ] {
                let mut rng = Rng::new(d * 17 + local);
                let n = (2 * local * groups + 2 * offset * local + 64) as usize;
                let mut data = Buf::new(4 * n);
                fill(&mut data, Elem::F32, &mut rng, &DEFAULT_PROFILE);
                let mut args = vec![
                    Arg::Buffer(data, Elem::F32),
                    scalar(Ty::I32, d as i64),
                    scalar(Ty::I32, offset as i64),
                ];
                let range = NdRange {
                    work_dim: 1,
                    global_offset: [0, 0, 0],
                    global_size: [local * groups, 1, 1],
                    local_size: [local, 1, 1],
                };
                let what = format!("{target} {name} d={d} offset={offset} local={local}");
                same_results(&original, &special, &jit, name, w, &mut args, &range, &what);
                ran += 1;
            }
        }
    }
    assert!(ran > 0);
}
