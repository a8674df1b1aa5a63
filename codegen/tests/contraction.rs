//! Floating-point contraction (docs/codegen.md, "Floating-point
//! contraction"): `a * b + c` of one expression is one FMA instruction on
//! targets with FMA, never on SSE4, never with `FP_CONTRACT OFF` and never
//! through a variable; and the JIT's results equal the interpreter's bit
//! for bit on every target this machine runs, where fused and unfused
//! results differ (tests/kernels/valid/fp_contract.cl).

mod common;

use common::*;
use lanes_codegen::{compile_kernels, compile_unit, kernel_code_for, target_spec, Jit, Options};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::{check_file, check_text};
use lanes_vectorizer::interp::ArgValue;

/// The fused multiply-add instructions of the assembly of `src` for
/// `target` (AT&T mnemonics: `vfmadd231ps`, `vfnmsub213sd`, ...).
fn fma_instructions(src: &str, target: &str) -> Vec<String> {
    let unit = check_text("fma.cl", None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let spec = target_spec(target).unwrap();
    let compiled = compile_unit(&unit.hir, &spec, &Options::default())
        .unwrap_or_else(|d| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()));
    assert!(
        compiled.libm_symbols().is_empty(),
        "{target}: {:?}",
        compiled.libm_symbols()
    );
    let asm = compiled.assembly().unwrap();
    asm.lines()
        .map(str::trim_start)
        .filter(|l| {
            ["vfmadd", "vfmsub", "vfnmadd", "vfnmsub"]
                .iter()
                .any(|m| l.starts_with(m))
        })
        .map(str::to_string)
        .collect()
}

const SAXPY: &str = "
__kernel void saxpy(__global const float *x, __global float *y, float a)
{
    int i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}";

#[test]
fn a_product_added_in_one_expression_is_a_vfmadd() {
    for target in ["avx2-i32x8", "avx512skx-x16"] {
        let fmas = fma_instructions(SAXPY, target);
        assert!(
            fmas.iter()
                .any(|l| l.starts_with("vfmadd") && l.contains("ps")),
            "{target}: {fmas:?}"
        );
    }
    // Doubles, vectors and the subtracting forms too.
    let fmas = fma_instructions(
        "__kernel void k(__global double *d, __global float4 *v)
        {
            int i = get_global_id(0);
            d[i] = d[i] * d[i + 1] - d[i + 2];
            v[i] = v[i + 1] - v[i] * v[i + 2];
        }",
        "avx2-i32x8",
    );
    assert!(fmas.iter().any(|l| l.contains("pd")), "{fmas:?}");
    assert!(fmas.iter().any(|l| l.contains("ps")), "{fmas:?}");
}

#[test]
fn no_fma_without_contraction() {
    let off = format!("#pragma OPENCL FP_CONTRACT OFF\n{SAXPY}");
    let separate = "
__kernel void saxpy(__global const float *x, __global float *y, float a)
{
    int i = get_global_id(0);
    float p = a * x[i];
    y[i] = p + y[i];
}";
    for target in ["avx2-i32x8", "avx512skx-x16"] {
        assert_eq!(
            fma_instructions(&off, target),
            Vec::<String>::new(),
            "{target}"
        );
        assert_eq!(
            fma_instructions(separate, target),
            Vec::<String>::new(),
            "{target}"
        );
    }
    // SSE4 has no FMA: multiply and add, and no `fmaf` call standing in
    // (fma_instructions checks that no libm function is needed).
    assert_eq!(fma_instructions(SAXPY, "sse4-i32x4"), Vec::<String>::new());
}

/// The kernels of fp_contract.cl on `target`, launched over `launches`:
/// every buffer equal to the interpreter's bit for bit. Returns, per
/// kernel, whether some element of its output differed from 0.
fn exact(target: &str) -> Option<Vec<(String, bool)>> {
    let spec = target_spec(target).unwrap();
    if !lanes_codegen::host_can_run(&spec) {
        eprintln!("SKIPPED: this machine cannot run {target}");
        return None;
    }
    let path = root().join("tests/kernels/valid/fp_contract.cl");
    let unit = check_file(&path, &PreprocessOptions::default(), &RealFs).unwrap();
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let w = spec.width;
    let mut out = Vec::new();
    for kid in unit.hir.kernels() {
        let name = unit.hir.function(kid).name.to_string();
        let scalar =
            lanes_vectorizer::report::analyze_kernel_with(&unit.hir, kid, w, &spec.lowering())
                .unwrap()
                .func;
        let kc = kernel_code_for(&unit.hir, kid, &spec).unwrap();
        let jit = Jit::new(compile_kernels(vec![kc.clone()], &spec, &Options::default()).unwrap())
            .unwrap();
        let mut nonzero = false;
        for (li, range) in launches(1, w as u64).iter().enumerate() {
            let mut rng = Rng::new(hash(&name) ^ li as u64);
            let mut args = make_args(&kc, &mut rng);
            // The output starts as zeros: what is not 0 was written so.
            if let Some(Arg::Buffer(b, _)) = args.last_mut() {
                b.bytes_mut().fill(0);
            }
            let want = run_interp(&scalar, &kc, &args, range, w)
                .unwrap_or_else(|e| panic!("{name} launch {li}: {e}"));
            assert_eq!(run_jit(&jit, &kc, &mut args, &lanes_range(range)), 0);
            let Some(p) = kc.params.last() else { continue };
            let (Arg::Buffer(got, _), Some(ArgValue::Buffer(wb))) =
                (&args[args.len() - 1], want.get(param_of_ir(p)))
            else {
                panic!("{name}: the last argument is not a buffer");
            };
            assert!(
                got.bytes() == wb.as_slice(),
                "{target} {name} launch {li}: the JIT differs from the interpreter: {:?}",
                compare(Elem::Int(1), got.bytes(), wb)
            );
            nonzero |= got.bytes().iter().any(|&b| b != 0);
        }
        out.push((name, nonzero));
    }
    Some(out)
}

fn check_exact(target: &str, fused: bool) {
    let Some(kernels) = exact(target) else { return };
    assert_eq!(kernels.len(), 5);
    for (name, nonzero) in kernels {
        match name.as_str() {
            // Fused, a*b - round(a*b) is the rounding error of the product;
            // otherwise exactly 0.
            "product_residual" | "residual4" | "residual_double" => {
                assert_eq!(nonzero, fused, "{target} {name}")
            }
            "residual_off" => assert!(!nonzero, "{target} {name}"),
            _ => assert!(nonzero, "{target} {name}"),
        }
    }
}

#[test]
fn exact_on_sse4_x4() {
    check_exact("sse4-i32x4", false);
}

#[test]
fn exact_on_avx2_x8() {
    check_exact("avx2-i32x8", true);
}

#[test]
fn exact_on_avx2_x16() {
    check_exact("avx2-i32x16", true);
}

#[test]
fn exact_on_avx512_x8() {
    check_exact("avx512skx-x8", true);
}

#[test]
fn exact_on_avx512_x16() {
    check_exact("avx512skx-x16", true);
}
