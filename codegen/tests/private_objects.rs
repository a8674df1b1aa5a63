//! Private structs passed by pointer to helpers (Rodinia cfd,
//! `tests/kernels/valid/cfd_euler3d.cl`) are registers, not per-lane
//! memory: no gather, scatter or lane extraction is left for them in the
//! assembly, and the compiled kernels compute what the reference
//! interpreter computes on the kernel *before* promotion (its objects in
//! memory) on every target this machine runs, with meshes that reach every
//! branch (neighbours, wing and far-field boundaries).

mod common;

use common::*;
use lanes_codegen::{compile_kernels, kernel_code, target_spec, Jit, Options};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::{check_file, CheckedUnit};

fn cfd() -> CheckedUnit {
    let path = root().join("tests/kernels/valid/cfd_euler3d.cl");
    let unit = check_file(&path, &PreprocessOptions::default(), &RealFs).unwrap();
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    unit
}

/// The assembly and optimized LLVM IR of kernel `name` on avx2-i32x8.
fn compiled(unit: &CheckedUnit, name: &str) -> (String, String) {
    let spec = target_spec("avx2-i32x8").unwrap();
    let kid = unit.hir.function_by_name(name).unwrap();
    let kc = kernel_code(&unit.hir, kid, spec.width).unwrap_or_else(|d| panic!("{}", d[0].message));
    let c = compile_kernels(vec![kc], &spec, &Options::default())
        .unwrap_or_else(|d| panic!("{}", d[0].message));
    (c.assembly().unwrap(), c.llvm_ir())
}

#[test]
fn step_factor_has_no_gather_scatter_or_lane_extraction() {
    let unit = cfd();
    let (asm, ir) = compiled(&unit, "compute_step_factor");
    for op in ["gather", "scatter", "vextractps", "vpextr", "vinsertps"] {
        assert!(!asm.contains(op), "`{op}` in the assembly:\n{asm}");
    }
    assert!(!ir.contains("alloca"), "{ir}");
}

#[test]
fn flux_keeps_only_the_neighbour_gathers() {
    let unit = cfd();
    let (asm, ir) = compiled(&unit, "compute_flux");
    assert!(!ir.contains("alloca"), "private memory left:\n{ir}");
    assert!(!asm.contains("scatter"), "{asm}");
    // The five loads of the neighbour's variables (`variables[nb + ...]`)
    // are true gathers; nothing else is.
    let gathers = ir.matches("call <8 x float> @llvm.masked.gather").count();
    assert!(gathers <= 5 * 3, "{gathers} gathers:\n{ir}");
    let lanes = asm.matches("vextractps").count() + asm.matches("vpextr").count();
    assert_eq!(lanes, 0, "{asm}");
}

/// Inputs with positive densities and pressures, and neighbour indices in
/// `{-2, -1} ∪ [0, nelr)`.
fn mesh_args(kc: &lanes_codegen::KernelCode, rng: &mut Rng, nelr: u64) -> Vec<Arg> {
    let mut args = make_args(kc, rng);
    for (p, a) in kc.params.iter().zip(args.iter_mut()) {
        match (p.name.as_str(), a) {
            ("nelr", Arg::Scalar(_, i, _)) => *i = nelr,
            ("elements_surrounding_elements", Arg::Buffer(b, _)) => {
                for c in b.bytes_mut().chunks_exact_mut(4) {
                    let v = rng.below(nelr + 2) as i64 - 2;
                    c.copy_from_slice(&(v as i32).to_le_bytes());
                }
            }
            ("variables", Arg::Buffer(b, _)) => {
                for (k, c) in b.bytes_mut().chunks_exact_mut(4).enumerate() {
                    let var = k as u64 / nelr;
                    let x = match var {
                        0 => rng.f64(1.0, 2.0),
                        1..=3 => rng.f64(-0.5, 0.5),
                        _ => rng.f64(2.0, 3.0),
                    };
                    c.copy_from_slice(&(x as f32).to_le_bytes());
                }
            }
            ("areas", Arg::Buffer(b, _)) => {
                for c in b.bytes_mut().chunks_exact_mut(4) {
                    c.copy_from_slice(&(rng.f64(0.1, 1.0) as f32).to_le_bytes());
                }
            }
            _ => {}
        }
    }
    args
}

#[test]
fn cfd_kernels_match_the_interpreter_of_the_kernels_with_objects_in_memory() {
    let unit = cfd();
    let mut targets = 0;
    for target in [
        "sse4-i32x4",
        "avx2-i32x8",
        "avx2-i32x16",
        "avx512skx-x8",
        "avx512skx-x16",
    ] {
        let spec = target_spec(target).unwrap();
        if !lanes_codegen::host_can_run(&spec) {
            eprintln!("SKIPPED: this machine cannot run {target}");
            continue;
        }
        targets += 1;
        let w = spec.width as u64;
        for name in ["compute_step_factor", "compute_flux"] {
            let kid = unit.hir.function_by_name(name).unwrap();
            let mut scalar =
                lanes_vectorizer::lower::lower_kernel_with(&unit.hir, kid, &spec.lowering())
                    .expect("lowers");
            lanes_vectorizer::cfg::canonicalize(&mut scalar).expect("canonical");
            assert!(
                scalar
                    .insts
                    .iter()
                    .any(|i| matches!(i.kind, lanes_vectorizer::ir::InstKind::Alloca { .. })),
                "{name}: the reference should keep its objects in memory"
            );
            let kc = lanes_codegen::kernel_code_for(&unit.hir, kid, &spec)
                .unwrap_or_else(|d| panic!("{}", d[0].message));
            let compiled = compile_kernels(vec![kc.clone()], &spec, &Options::default())
                .unwrap_or_else(|d| panic!("{}", d[0].message));
            let jit = Jit::new(compiled).expect("JIT");
            for (li, range) in launches(1, w).iter().enumerate() {
                // Fewer cells than work-items: the early return diverges.
                let nelr = range.global_offset[0] + range.global_size[0] - 2;
                let mut rng = Rng::new(hash(name) ^ li as u64 ^ w);
                let mut args = mesh_args(&kc, &mut rng, nelr);
                let want = run_interp(&scalar, &kc, &args, range, spec.width)
                    .unwrap_or_else(|e| panic!("{name} launch {li}: interpreter: {e}"));
                assert_eq!(run_jit(&jit, &kc, &mut args, &lanes_range(range)), 0);
                for (p, a) in kc.params.iter().zip(&args) {
                    let Arg::Buffer(got, elem) = a else { continue };
                    let Some(lanes_vectorizer::interp::ArgValue::Buffer(wb)) =
                        want.get(param_of_ir(p))
                    else {
                        continue;
                    };
                    if let Some(d) = compare_with(*elem, got.bytes(), wb, true) {
                        panic!("{target} {name} launch {li}: buffer `{}`: {d}", p.name);
                    }
                }
            }
        }
    }
    eprintln!("{targets} targets compared");
}
