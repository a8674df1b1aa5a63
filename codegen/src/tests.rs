//! Unit tests of the public API's edges: targets, parameter grouping,
//! error paths (never a panic), headers.

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_text;
use lanes_vectorizer::ir::InstKind;
use lanes_vectorizer::shape::Shape;

use crate::*;

fn unit(src: &str) -> lanes_frontend::unit::CheckedUnit {
    let u = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!u.has_errors(), "{:?}", u.diagnostics);
    u
}

const SAXPY: &str =
    "__kernel void saxpy(int n, float a, __global const float *x, __global float *y)\n\
                     { int i = get_global_id(0); if (i < n) y[i] = a * x[i] + y[i]; }\n";

#[test]
fn every_named_target_has_a_spec() {
    for t in lanes_vectorizer::target::TARGETS {
        let s = target_spec(t.name).unwrap();
        assert_eq!(s.width, t.width, "{}", t.name);
        assert_eq!(s.name, t.name);
        assert!(!s.triple.is_empty() && !s.cpu.is_empty());
        if t.name.starts_with("avx2") {
            assert!(s.features.contains("+fast-gather"), "{}", t.name);
        }
        if t.name.starts_with("neon") {
            assert!(s.triple.starts_with("aarch64"));
        } else {
            assert!(s.triple.starts_with("x86_64"), "{}", s.triple);
        }
    }
    let host = target_spec("host").unwrap();
    assert!(host_can_run(&host));
    assert!(!host.cpu.is_empty());
    let e = target_spec("avx1024").unwrap_err();
    assert!(e.contains("sse4-i32x4") && e.contains("neon-i32x4"), "{e}");
}

#[test]
fn neon_does_not_run_on_x86() {
    let s = target_spec("neon-i32x4").unwrap();
    if cfg!(target_arch = "x86_64") {
        assert!(!host_can_run(&s));
    }
}

#[test]
fn vector_parameters_are_grouped() {
    let u = unit("__kernel void k(__global float *o, float4 s, int n) { o[get_global_id(0)] = s.x + s.w + n; }");
    let kid = u.hir.kernels()[0];
    let kc = kernel_code(&u.hir, kid, 8).unwrap();
    assert_eq!(kc.params.len(), 3);
    assert_eq!(kc.params[1].kind, ParamKind::Vector(Ty::F32, 4));
    assert_eq!(kc.params[1].ir_params, vec![1, 2, 3, 4]);
    assert_eq!(kc.params[0].kind, ParamKind::Pointer { is_const: false });
    assert_eq!(kc.params[2].kind, ParamKind::Scalar(Ty::I32));
    // Without the source unit, the IR parameters give the same grouping.
    let from_ir = KernelCode::from_vf(kc.vf.clone());
    let kinds: Vec<_> = from_ir.params.iter().map(|p| p.kind.clone()).collect();
    let want: Vec<_> = kc.params.iter().map(|p| p.kind.clone()).collect();
    assert_eq!(kinds, want);
}

#[test]
fn unvectorizable_kernels_are_l0920_diagnostics() {
    // Duff's device: a `case` inside a loop of its `switch` (irreducible).
    let u = unit(
        "__kernel void k(__global int *o, int c) {\n\
             int i = 0; int n = c / 2;\n\
             switch (c % 2) { case 0: do { o[i++] = 0;\n\
             case 1: o[i++] = 1; } while (--n > 0); }\n\
         }",
    );
    let spec = target_spec("avx2-i32x8").unwrap();
    let d = compile_unit(&u.hir, &spec, &Options::default()).unwrap_err();
    assert!(!d.is_empty());
    assert!(
        d.iter().all(|d| d.code == Code::UnsupportedByVectorizer),
        "{d:?}"
    );
    assert!(d[0].message.contains("irreducible"), "{d:?}");
}

#[test]
fn struct_arguments_are_passed_by_pointer() {
    let u = unit(
        "struct B { float lo; int n; };\n\
         __kernel void k(__global float *o, struct B b) { o[get_global_id(0)] = b.lo + b.n; }",
    );
    let spec = target_spec("avx2-i32x8").unwrap();
    let c = compile_unit(&u.hir, &spec, &Options::default()).unwrap();
    assert_eq!(
        c.kernels()[0].params[1].kind,
        ParamKind::Struct(vec![(0, Ty::F32), (4, Ty::I32)])
    );
}

#[test]
fn a_varying_branch_is_an_error_not_a_miscompile() {
    let u = unit(SAXPY);
    let kid = u.hir.kernels()[0];
    let spec = target_spec("avx2-i32x8").unwrap();
    let mut kc = kernel_code(&u.hir, kid, 8).unwrap();
    let cond = kc
        .vf
        .func
        .insts
        .iter()
        .find_map(|i| match i.kind {
            InstKind::CondBr { cond, .. } => Some(cond),
            _ => None,
        })
        .expect("a branch");
    kc.vf.shapes[cond.index()] = Shape::varying();
    let d = compile_kernels(vec![kc], &spec, &Options::default()).unwrap_err();
    assert!(d[0].message.contains("lane-varying"), "{}", d[0].message);
}

#[test]
fn malformed_vector_ir_is_rejected() {
    let u = unit(SAXPY);
    let kid = u.hir.kernels()[0];
    let spec = target_spec("avx2-i32x8").unwrap();
    let kc = kernel_code(&u.hir, kid, 8).unwrap();

    let mut short = kc.clone();
    short.vf.block_mask.clear();
    let d = compile_kernels(vec![short], &spec, &Options::default()).unwrap_err();
    assert!(d[0].message.contains("mask"), "{}", d[0].message);

    let mut broken = kc.clone();
    let last = broken.vf.func.blocks.len() - 1;
    broken.vf.func.blocks[last].insts.clear();
    assert!(compile_kernels(vec![broken], &spec, &Options::default()).is_err());

    let wrong_width = kc.clone();
    let spec16 = target_spec("avx512skx-x16").unwrap();
    let d = compile_kernels(vec![wrong_width], &spec16, &Options::default()).unwrap_err();
    assert!(d[0].message.contains("width"), "{}", d[0].message);

    let twice = vec![kc.clone(), kc];
    let d = compile_kernels(twice, &spec, &Options::default()).unwrap_err();
    assert!(d[0].message.contains("clashes"), "{}", d[0].message);
}

#[test]
fn header_guard_is_a_c_identifier() {
    let u = unit(SAXPY);
    let spec = target_spec("sse4-i32x4").unwrap();
    let c = compile_unit(&u.hir, &spec, &Options::default()).unwrap();
    let h = header(&u.hir, &c, "3d-kernels.h");
    assert!(
        h.contains("#ifndef LANES_3D_KERNELS_H\n#define LANES_3D_KERNELS_H"),
        "{h}"
    );
    assert!(
        h.contains(
            "int saxpy(int32_t n, float a, const float *x, float *y, const lanes_range *r);"
        ),
        "{h}"
    );
    assert!(h.contains("namespace lanes {") && h.contains("extern \"C\" {"));
    assert!(h.contains("#ifndef LANES_RANGE_DEFINED"));
    assert!(h.contains("sse4-i32x4") && h.contains("SIMD width 4"));
}

#[test]
fn jit_runs_saxpy_and_rejects_bad_ranges() {
    let u = unit(SAXPY);
    let spec = target_spec("sse4-i32x4").unwrap();
    if !host_can_run(&spec) {
        return;
    }
    let jit = Jit::new(compile_unit(&u.hir, &spec, &Options::default()).unwrap()).unwrap();
    assert!(jit.launcher("nope").is_none());
    let launch = jit.launcher("saxpy").unwrap();
    let n = 10i32;
    let a = 3.0f32;
    let x: Vec<f32> = (0..12).map(|i| i as f32).collect();
    let mut y = vec![1.0f32; 12];
    let xp = x.as_ptr();
    let yp = y.as_mut_ptr();
    let args: [*mut std::ffi::c_void; 4] = [
        &n as *const i32 as *mut _,
        &a as *const f32 as *mut _,
        &xp as *const *const f32 as *mut _,
        &yp as *const *mut f32 as *mut _,
    ];
    let mut r = LanesRange {
        work_dim: 1,
        global_size: [12, 1, 1],
        ..Default::default()
    };
    // local size 0: chosen by the entry point.
    let rc = unsafe { launch(args.as_ptr(), &r, 0, usize::MAX) };
    assert_eq!(rc, 0);
    for (i, &v) in y.iter().enumerate() {
        let want = if i < 10 { 3.0 * i as f32 + 1.0 } else { 1.0 };
        assert_eq!(v, want, "y[{i}]");
    }
    r.work_dim = 4;
    assert_eq!(unsafe { launch(args.as_ptr(), &r, 0, usize::MAX) }, -1);
    r.work_dim = 2; // global_size[1] == 0
    r.global_size = [12, 0, 1];
    assert_eq!(unsafe { launch(args.as_ptr(), &r, 0, usize::MAX) }, -1);
    // Overflowing number of work-items.
    r.global_size = [usize::MAX / 2, 4, 1];
    r.local_size = [4, 1, 1];
    assert_eq!(unsafe { launch(args.as_ptr(), &r, 0, usize::MAX) }, -1);
    // An empty slice of groups does nothing.
    r = LanesRange {
        work_dim: 1,
        global_size: [12, 1, 1],
        local_size: [4, 1, 1],
        ..Default::default()
    };
    y.iter_mut().for_each(|v| *v = 0.0);
    assert_eq!(unsafe { launch(args.as_ptr(), &r, 2, 2) }, 0);
    assert!(y.iter().all(|&v| v == 0.0));
    // Group 1 only: items 4..8.
    assert_eq!(unsafe { launch(args.as_ptr(), &r, 1, 2) }, 0);
    for (i, &v) in y.iter().enumerate() {
        let want = if (4..8).contains(&i) {
            3.0 * i as f32
        } else {
            0.0
        };
        assert_eq!(v, want, "y[{i}]");
    }
}

#[test]
fn work_item_queries_across_a_barrier_are_recomputed_not_kept_in_memory() {
    let u = unit(
        "__kernel void k(__global float *a, __local float *t) {\n\
         int l = get_local_id(0); int g = get_global_id(0);\n\
         t[l] = a[g]; barrier(CLK_LOCAL_MEM_FENCE);\n\
         a[g] = t[get_local_size(0) - 1 - l] + l; }\n",
    );
    let k = u.hir.kernels()[0];
    let kc = kernel_code(&u.hir, k, 8).unwrap();
    let schedule = lanes_vectorizer::schedule::Schedule::of(&kc.vf);
    let plan = workgroup::Plan::compute(&kc.vf, &schedule, 8);
    let f = &kc.vf.func;
    let query = |v: &lanes_vectorizer::ir::ValueId| {
        f.def_inst(*v)
            .is_some_and(|i| matches!(f.inst(i).kind, InstKind::WorkItem { .. }))
    };
    // `(int)get_local_id(0)` and the like.
    let converted = |v: &lanes_vectorizer::ir::ValueId| {
        f.def_inst(*v).is_some_and(|i| match f.inst(i).kind {
            InstKind::Cast { value, .. } => query(&value),
            _ => false,
        })
    };
    // The lane mask and the ids (as `int`s) are used after the barrier:
    // recomputed.
    assert!(!plan.remat.is_empty());
    assert!(plan.remat.iter().all(|v| query(v) || converted(v)));
    assert!(plan.remat.iter().any(converted), "{:?}", plan.remat);
    assert!(
        !plan.spills.keys().any(|v| query(v) || converted(v)),
        "{:?}",
        plan.spills
    );
}
