//! Object and assembly emission for AVX-512: the convolution example
//! compiles to an ELF object whose code uses zmm registers and k masks.

use std::process::Command;

use lanes_codegen::{compile_unit, target_spec, Options};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_file;

fn convolution() -> lanes_frontend::unit::CheckedUnit {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/convolution.cl");
    let unit = check_file(&path, &PreprocessOptions::default(), &RealFs).unwrap();
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    unit
}

#[test]
fn avx512_object_uses_zmm_and_k_masks() {
    let unit = convolution();
    let spec = target_spec("avx512skx-x16").unwrap();
    let compiled = compile_unit(&unit.hir, &spec, &Options::default())
        .unwrap_or_else(|d| panic!("{:?}", d.iter().map(|d| &d.message).collect::<Vec<_>>()));
    let obj = compiled.object().unwrap();
    // ELF magic: an object file, not text.
    assert_eq!(&obj[..4], b"\x7fELF");

    let asm = compiled.assembly().unwrap();
    assert!(asm.contains("zmm"), "no zmm register in:\n{asm}");
    assert!(asm.contains("%k"), "no k mask register in:\n{asm}");
    for sym in ["convolution", "convolution_groups", "convolution__launch"] {
        assert!(
            asm.contains(&format!("\n{sym}:")),
            "symbol {sym} missing from the assembly"
        );
    }

    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("convolution.o");
    std::fs::write(&o, &obj).unwrap();
    let out = match Command::new("llvm-objdump-19").arg("-d").arg(&o).output() {
        Ok(out) => out,
        Err(_) => {
            eprintln!("SKIPPED: llvm-objdump-19 not found");
            return;
        }
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dis = String::from_utf8_lossy(&out.stdout);
    assert!(dis.contains("zmm"), "no zmm in the disassembly");
    assert!(
        dis.contains("{%k") || dis.contains("%k1") || dis.contains("%k2"),
        "no k mask in the disassembly"
    );
    assert!(dis.contains("<convolution_groups>:"), "{dis}");
}

#[test]
fn every_target_emits_objects_and_assembly() {
    let unit = convolution();
    for name in [
        "sse4-i32x4",
        "sse4-i32x8",
        "avx2-i32x8",
        "avx2-i32x16",
        "avx512skx-x8",
        "avx512skx-x16",
        "neon-i32x4",
        "host",
    ] {
        let spec = target_spec(name).unwrap();
        for opt_level in [0, 2] {
            let compiled = compile_unit(&unit.hir, &spec, &Options { opt_level })
                .unwrap_or_else(|d| panic!("{name}: {:?}", d[0].message));
            let obj = compiled.object().unwrap();
            assert_eq!(&obj[..4], b"\x7fELF", "{name}");
            let asm = compiled.assembly().unwrap();
            assert!(asm.contains("convolution__launch"), "{name}");
            assert!(compiled.llvm_ir().contains("define"), "{name}");
        }
    }
    // NEON code really is AArch64 code.
    let spec = target_spec("neon-i32x4").unwrap();
    let asm = compile_unit(&unit.hir, &spec, &Options::default())
        .unwrap()
        .assembly()
        .unwrap();
    assert!(asm.contains("v0.4s") || asm.contains(".4s"), "{asm}");
}

#[test]
fn unknown_target_lists_the_valid_names() {
    let e = target_spec("avx3").unwrap_err();
    assert!(e.contains("avx2-i32x8") && e.contains("host"), "{e}");
}

#[test]
fn optimized_ir_has_no_poison_generating_flags() {
    let unit = convolution();
    let spec = target_spec("avx2-i32x8").unwrap();
    let unopt = compile_unit(&unit.hir, &spec, &Options { opt_level: 0 }).unwrap();
    let ir = unopt.llvm_ir();
    for flag in [
        " nsw ",
        " nuw ",
        " exact ",
        " inbounds ",
        " fast ",
        " reassoc ",
    ] {
        assert!(!ir.contains(flag), "unoptimized IR contains `{flag}`");
    }
}
