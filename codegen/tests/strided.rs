//! Constant-stride accesses compile to packed loads and stores with
//! shuffles: the kernels of `strided_records.cl` on avx2-i32x8 have no
//! gather in their assembly, and no scatter except where a store leaves
//! holes in the records (a wider store would write bytes the program does
//! not). Their results are checked by the differential and guard-page tests.

use lanes_codegen::{compile_kernels, kernel_code, target_spec, Options};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_file;

/// The assembly and optimized LLVM IR of kernel `name` alone.
fn compiled(name: &str) -> (String, String) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/kernels/valid/strided_records.cl");
    let unit = check_file(&path, &PreprocessOptions::default(), &RealFs).unwrap();
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let spec = target_spec("avx2-i32x8").unwrap();
    let kid = unit.hir.function_by_name(name).unwrap();
    let kc = kernel_code(&unit.hir, kid, spec.width).unwrap_or_else(|d| panic!("{}", d[0].message));
    let c = compile_kernels(vec![kc], &spec, &Options::default())
        .unwrap_or_else(|d| panic!("{}", d[0].message));
    (c.assembly().unwrap(), c.llvm_ir())
}

const PACKED: [&str; 8] = [
    "dot_product",
    "scale_float4",
    "swap_float2",
    "point_norms",
    "vload_sum",
    "pairs",
    "every8",
    "divergent_fields",
];

#[test]
fn constant_strides_have_no_gather_or_scatter() {
    for name in PACKED {
        let (asm, ir) = compiled(name);
        assert!(
            !asm.contains("gather"),
            "{name}: a gather in the assembly:\n{asm}"
        );
        for op in ["masked.gather", "masked.scatter"] {
            assert!(!ir.contains(op), "{name}: {op} in the LLVM IR:\n{ir}");
        }
        // The whole-group path is a plain vector load of the records.
        assert!(
            asm.contains("vmovups") || asm.contains("vmovdqu") || asm.contains("vmovupd"),
            "{name}: no packed load:\n{asm}"
        );
    }
}

#[test]
fn a_store_with_holes_stays_a_scatter() {
    let (_, ir) = compiled("holes");
    assert!(ir.contains("masked.scatter"), "holes: no scatter:\n{ir}");
    assert!(
        !ir.contains("store <24 x i32>"),
        "holes: the records' unwritten field is stored:\n{ir}"
    );
}
