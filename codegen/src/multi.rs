//! Multi-target objects: the code of one unit for several x86-64 targets
//! (`lanes build --target sse4-i32x4,avx2-i32x8,avx512skx-x16`) in one
//! object with one set of entry points.
//!
//! Each target's module is compiled and optimized on its own, as for a
//! single-target object; its functions keep their own `target-cpu` and
//! `target-features` attributes, which the code generator honours per
//! function. The modules are linked into one, every variant symbol renamed
//! (`saxpy_groups.avx2-i32x8`) and made internal, so two multi-target
//! objects link into one program without clashes. The exported `k`,
//! `k_groups` and `k__launch` dispatch:
//!
//! ```text
//! v = load atomic @lanes.variant (monotonic)   ; -1 until chosen
//! if v < 0: v = lanes.select()                 ; cpuid/xgetbv, LANES_TARGET
//! tail call k.<variant v>(args...)
//! ```
//!
//! `lanes.select` runs once per object (concurrent first calls compute the
//! same answer and store it twice). A lazily written index rather than a
//! GNU ifunc: ifunc resolvers run during relocation, before the C library
//! can be relied on (`getenv` for the pin), need the dynamic loader's or
//! static glibc's IRELATIVE support (not musl, not macOS), and bind each
//! symbol separately; the index costs one load and a predictable branch
//! per call (docs/codegen.md has the measurement).

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::{Linkage, Module};
use inkwell::targets::FileType;

use lanes_vectorizer::target::{Isa, Target};

use crate::{target_machine, Compiled, KernelInfo, TargetSpec};

/// The environment variable that pins the variant (read at the first call).
pub const PIN_VARIABLE: &str = "LANES_TARGET";

/// One object for several targets.
#[derive(Clone, Debug)]
pub struct MultiTarget {
    /// The variants, as listed.
    pub variants: Vec<Compiled>,
    /// The baseline the dispatch code is compiled for.
    base: TargetSpec,
    bitcode: Vec<u8>,
    ir: String,
}

/// The bit of an instruction set in the mask `lanes.cpu_isas` returns.
fn isa_bit(isa: Isa) -> Option<u32> {
    match isa {
        Isa::Sse4 => Some(1),
        Isa::Avx2 => Some(2),
        Isa::Avx512Skx => Some(4),
        Isa::Neon => None,
    }
}

/// CPUID and XCR0 bits (Intel SDM vol. 2A, CPUID; AMD APM vol. 3), each
/// `@NAME@` in [`CPU_ISAS`].
const FEATURE_BITS: &[(&str, &[u32])] = &[
    // Leaf 1 ecx: SSE3, SSSE3, CMPXCHG16B, SSE4.1, SSE4.2, POPCNT.
    ("@V2_ECX1@", &[0, 9, 13, 19, 20, 23]),
    // Leaf 0x80000001 ecx: LAHF/SAHF in 64-bit mode; LZCNT (ABM).
    ("@LAHF@", &[0]),
    ("@LZCNT@", &[5]),
    // Leaf 1 ecx: FMA, MOVBE, OSXSAVE, AVX, F16C.
    ("@V3_ECX1@", &[12, 22, 27, 28, 29]),
    ("@OSXSAVE@", &[27]),
    // Leaf 7 ebx: BMI1, AVX2, BMI2.
    ("@V3_EBX7@", &[3, 5, 8]),
    // Leaf 7 ebx: AVX512F, AVX512DQ, AVX512CD, AVX512BW, AVX512VL.
    ("@SKX_EBX7@", &[16, 17, 28, 30, 31]),
    // XCR0: SSE and AVX state; and opmask, ZMM0-15 upper halves, ZMM16-31.
    ("@YMM@", &[1, 2]),
    ("@ZMM@", &[1, 2, 5, 6, 7]),
];

/// The mask of `bits`, as LLVM IR spells an `i32` constant.
fn mask(bits: &[u32]) -> i32 {
    bits.iter().fold(0u32, |m, b| m | 1 << b) as i32
}

/// [`CPU_ISAS`] with its feature masks filled in.
fn cpu_isas_ir() -> String {
    FEATURE_BITS
        .iter()
        .fold(CPU_ISAS.to_string(), |ir, (name, bits)| {
            ir.replace(name, &mask(bits).to_string())
        })
}

/// The instruction sets this CPU and OS run, as a mask of [`isa_bit`]s:
/// what LLVM's `x86-64-v2`, `x86-64-v3` and `skylake-avx512` may emit for
/// arithmetic. AVX and AVX-512 also need the OS to save their registers
/// (XCR0 bits 1-2, and 5-7), read with `xgetbv` only when CPUID says OSXSAVE.
const CPU_ISAS: &str = r#"
define internal i32 @lanes.cpu_isas() nounwind {
entry:
  %l0 = call { i32, i32, i32, i32 } asm "cpuid", "={ax},={bx},={cx},={dx},0,2,~{dirflag},~{fpsr},~{flags}"(i32 0, i32 0)
  %max = extractvalue { i32, i32, i32, i32 } %l0, 0
  %l1 = call { i32, i32, i32, i32 } asm "cpuid", "={ax},={bx},={cx},={dx},0,2,~{dirflag},~{fpsr},~{flags}"(i32 1, i32 0)
  %ecx1 = extractvalue { i32, i32, i32, i32 } %l1, 2
  %l7 = call { i32, i32, i32, i32 } asm "cpuid", "={ax},={bx},={cx},={dx},0,2,~{dirflag},~{fpsr},~{flags}"(i32 7, i32 0)
  %ebx7.raw = extractvalue { i32, i32, i32, i32 } %l7, 1
  %has7 = icmp uge i32 %max, 7
  %ebx7 = select i1 %has7, i32 %ebx7.raw, i32 0
  %x0 = call { i32, i32, i32, i32 } asm "cpuid", "={ax},={bx},={cx},={dx},0,2,~{dirflag},~{fpsr},~{flags}"(i32 -2147483648, i32 0)
  %xmax = extractvalue { i32, i32, i32, i32 } %x0, 0
  %x1 = call { i32, i32, i32, i32 } asm "cpuid", "={ax},={bx},={cx},={dx},0,2,~{dirflag},~{fpsr},~{flags}"(i32 -2147483647, i32 0)
  %ecx81.raw = extractvalue { i32, i32, i32, i32 } %x1, 2
  %hasx1 = icmp uge i32 %xmax, 2147483649
  %ecx81 = select i1 %hasx1, i32 %ecx81.raw, i32 0
  ; OSXSAVE (leaf 1 ecx bit 27): xgetbv exists and the OS manages XCR0.
  %osxsave = and i32 %ecx1, @OSXSAVE@
  %has.os = icmp ne i32 %osxsave, 0
  br i1 %has.os, label %xgetbv, label %features

xgetbv:
  %xcr = call { i32, i32 } asm sideeffect "xgetbv", "={ax},={dx},{cx},~{dirflag},~{fpsr},~{flags}"(i32 0)
  %xcr0.lo = extractvalue { i32, i32 } %xcr, 0
  br label %features

features:
  %xcr0 = phi i32 [ 0, %entry ], [ %xcr0.lo, %xgetbv ]
  ; x86-64-v2: SSE3, SSSE3, CX16, SSE4.1, SSE4.2, POPCNT (leaf 1 ecx), LAHF (0x80000001 ecx).
  %v2.ecx = and i32 %ecx1, @V2_ECX1@
  %v2.a = icmp eq i32 %v2.ecx, @V2_ECX1@
  %lahf = and i32 %ecx81, @LAHF@
  %v2.b = icmp ne i32 %lahf, 0
  %v2 = and i1 %v2.a, %v2.b
  ; x86-64-v3: FMA, MOVBE, OSXSAVE, AVX, F16C (leaf 1 ecx), BMI1, AVX2, BMI2
  ; (leaf 7 ebx), LZCNT (0x80000001 ecx), YMM state enabled (XCR0 & 6).
  %v3.ecx = and i32 %ecx1, @V3_ECX1@
  %v3.a = icmp eq i32 %v3.ecx, @V3_ECX1@
  %v3.ebx = and i32 %ebx7, @V3_EBX7@
  %v3.b = icmp eq i32 %v3.ebx, @V3_EBX7@
  %lzcnt = and i32 %ecx81, @LZCNT@
  %v3.c = icmp ne i32 %lzcnt, 0
  %ymm = and i32 %xcr0, @YMM@
  %v3.d = icmp eq i32 %ymm, @YMM@
  %v3.ab = and i1 %v3.a, %v3.b
  %v3.cd = and i1 %v3.c, %v3.d
  %v3.all = and i1 %v3.ab, %v3.cd
  %v3 = and i1 %v3.all, %v2
  ; Skylake-X: AVX-512 F, DQ, CD, BW, VL (leaf 7 ebx), opmask, ZMM0-15 and
  ; ZMM16-31 state enabled (XCR0 & 0xe6).
  %skx.ebx = and i32 %ebx7, @SKX_EBX7@
  %skx.a = icmp eq i32 %skx.ebx, @SKX_EBX7@
  %zmm = and i32 %xcr0, @ZMM@
  %skx.b = icmp eq i32 %zmm, @ZMM@
  %skx.ab = and i1 %skx.a, %skx.b
  %skx = and i1 %skx.ab, %v3
  %b0 = zext i1 %v2 to i32
  %b1.0 = zext i1 %v3 to i32
  %b1 = shl i32 %b1.0, 1
  %b2.0 = zext i1 %skx to i32
  %b2 = shl i32 %b2.0, 2
  %b01 = or i32 %b0, %b1
  %mask = or i32 %b01, %b2
  ret i32 %mask
}

; Writes a, b and c to standard error and aborts.
define internal void @lanes.fail(ptr %a, ptr %b, ptr %c) cold noreturn nounwind {
entry:
  %la = call i64 @strlen(ptr %a)
  %wa = call i64 @write(i32 2, ptr %a, i64 %la)
  %lb = call i64 @strlen(ptr %b)
  %wb = call i64 @write(i32 2, ptr %b, i64 %lb)
  %lc = call i64 @strlen(ptr %c)
  %wc = call i64 @write(i32 2, ptr %c, i64 %lc)
  call void @abort()
  unreachable
}

declare ptr @getenv(ptr)
declare i32 @strcmp(ptr, ptr)
declare i64 @strlen(ptr)
declare i64 @write(i32, ptr, i64)
declare void @abort() noreturn nounwind

@lanes.variant = internal global i32 -1, align 4
@lanes.empty = private unnamed_addr constant [1 x i8] zeroinitializer
"#;

/// A C string constant in LLVM IR.
fn c_string(name: &str, text: &str) -> String {
    let mut body = String::new();
    for b in text.bytes().chain(std::iter::once(0)) {
        if b.is_ascii_graphic() && b != b'"' && b != b'\\' || b == b' ' {
            body.push(b as char);
        } else {
            body.push_str(&format!("\\{b:02X}"));
        }
    }
    format!(
        "@{name} = private unnamed_addr constant [{} x i8] c\"{body}\"\n",
        text.len() + 1
    )
}

/// `lanes.select`: the pinned variant (`LANES_TARGET`, when set and not
/// empty), else the best instruction set the CPU runs; aborts with a
/// message when the pin names a variant the object lacks or the CPU cannot
/// run, or when the CPU runs none. Stores and returns the index.
fn select_ir(targets: &[Target]) -> String {
    let names: Vec<&str> = targets.iter().map(|t| t.name).collect();
    let list = names.join(", ");
    let mut ir = String::new();
    ir += &c_string("lanes.pin.var", PIN_VARIABLE);
    ir += &c_string("lanes.pin.prefix", &format!("lanes: {PIN_VARIABLE}="));
    ir += &c_string(
        "lanes.pin.absent",
        &format!(" is not a target of this object (it has {list})\n"),
    );
    ir += &c_string("lanes.pin.cannot", ": this CPU cannot run that target\n");
    ir += &c_string(
        "lanes.none",
        &format!("lanes: this CPU runs none of the targets of this object ({list})\n"),
    );
    for (i, n) in names.iter().enumerate() {
        ir += &c_string(&format!("lanes.name.{i}"), n);
    }
    ir += "\ndefine internal i32 @lanes.select() cold noinline nounwind {\nentry:\n";
    ir += "  %isas = call i32 @lanes.cpu_isas()\n";
    ir += "  %pin = call ptr @getenv(ptr @lanes.pin.var)\n";
    ir += "  %unset = icmp eq ptr %pin, null\n";
    ir += "  br i1 %unset, label %auto, label %pin.set\n";
    ir += "pin.set:\n  %pin.c0 = load i8, ptr %pin, align 1\n";
    ir += "  %pin.empty = icmp eq i8 %pin.c0, 0\n";
    ir += "  br i1 %pin.empty, label %auto, label %pin.0\n";
    let bit = |t: &Target| isa_bit(t.isa).unwrap_or(0);
    for (i, t) in targets.iter().enumerate() {
        ir += &format!(
            "pin.{i}:\n  %cmp.{i} = call i32 @strcmp(ptr %pin, ptr @lanes.name.{i})\n  \
             %is.{i} = icmp eq i32 %cmp.{i}, 0\n  br i1 %is.{i}, label %pinned.{i}, label %pin.{next}\n\
             pinned.{i}:\n  %pin.runs.{i} = and i32 %isas, {b}\n  %pin.ok.{i} = icmp ne i32 %pin.runs.{i}, 0\n  \
             br i1 %pin.ok.{i}, label %chosen.{i}, label %pin.cannot\n",
            next = i + 1,
            b = bit(t)
        );
    }
    ir += &format!(
        "pin.{}:\n  call void @lanes.fail(ptr @lanes.pin.prefix, ptr %pin, ptr @lanes.pin.absent)\n  unreachable\n",
        targets.len()
    );
    ir += "pin.cannot:\n  call void @lanes.fail(ptr @lanes.pin.prefix, ptr %pin, ptr @lanes.pin.cannot)\n  unreachable\n";
    // Best first: the widest instruction set the CPU runs.
    let mut order: Vec<usize> = (0..targets.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(bit(&targets[i])));
    ir += "auto:\n  br label %try.0\n";
    for (k, &i) in order.iter().enumerate() {
        ir += &format!(
            "try.{k}:\n  %runs.{k} = and i32 %isas, {b}\n  %ok.{k} = icmp ne i32 %runs.{k}, 0\n  \
             br i1 %ok.{k}, label %chosen.{i}, label %try.{next}\n",
            b = bit(&targets[i]),
            next = k + 1
        );
    }
    ir += &format!(
        "try.{}:\n  call void @lanes.fail(ptr @lanes.none, ptr @lanes.empty, ptr @lanes.empty)\n  unreachable\n",
        order.len()
    );
    for i in 0..targets.len() {
        ir += &format!(
            "chosen.{i}:\n  store atomic i32 {i}, ptr @lanes.variant monotonic, align 4\n  ret i32 {i}\n"
        );
    }
    ir += "}\n";
    ir
}

/// The exported `name`, dispatching to `name.<target>` of every variant;
/// `ret` and `params` are the LLVM types of its signature.
fn dispatcher_ir(name: &str, ret: &str, params: &[String], targets: &[Target]) -> String {
    let formals: Vec<String> = params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{t} %a{i}"))
        .collect();
    let formals = formals.join(", ");
    let mut ir = String::new();
    for t in targets {
        ir += &format!(
            "declare {ret} @\"{name}.{}\"({})\n",
            t.name,
            params.join(", ")
        );
    }
    ir += &format!(
        "define {ret} @{name}({formals}) nounwind {{\nentry:\n  \
         %v = load atomic i32, ptr @lanes.variant monotonic, align 4\n  \
         %unknown = icmp slt i32 %v, 0\n  \
         br i1 %unknown, label %select, label %go, !prof !0\n\
         select:\n  %s = call i32 @lanes.select()\n  br label %go\n\
         go:\n  %i = phi i32 [ %v, %entry ], [ %s, %select ]\n  switch i32 %i, label %v0 ["
    );
    for i in 1..targets.len() {
        ir += &format!(" i32 {i}, label %v{i}");
    }
    ir += " ]\n";
    for (i, t) in targets.iter().enumerate() {
        ir += &format!(
            "v{i}:\n  %r{i} = tail call {ret} @\"{name}.{}\"({formals})\n  ret {ret} %r{i}\n",
            t.name
        );
    }
    ir += "}\n";
    ir
}

/// The exported symbols of a kernel.
fn entry_names(k: &KernelInfo) -> [String; 3] {
    [
        k.name.clone(),
        format!("{}_groups", k.name),
        format!("{}__launch", k.name),
    ]
}

/// Links compiled variants of one unit (every one for a different
/// instruction set of x86-64, as [`Target::parse_list`] checks) into one
/// module with dispatching entry points.
pub fn link_targets(variants: Vec<Compiled>) -> Result<MultiTarget, String> {
    let targets: Vec<Target> = variants
        .iter()
        .map(|c| {
            Target::from_name(&c.spec.name)
                .filter(|t| c.spec.name != "host" && isa_bit(t.isa).is_some())
                .ok_or_else(|| {
                    format!(
                        "`{}` cannot be part of a multi-target object (x86-64 targets only)",
                        c.spec.name
                    )
                })
        })
        .collect::<Result<_, _>>()?;
    let first = variants.first().ok_or("no targets to link")?;
    let names: Vec<String> = first.kernels().iter().flat_map(entry_names).collect();
    for v in &variants[1..] {
        let theirs: Vec<String> = v.kernels().iter().flat_map(entry_names).collect();
        if theirs != names {
            return Err(format!(
                "the kernels compiled for `{}` differ from those for `{}`",
                v.spec.name, first.spec.name
            ));
        }
    }
    let base = TargetSpec {
        name: "x86-64".into(),
        width: first.spec.width,
        triple: first.spec.triple.clone(),
        cpu: "x86-64".into(),
        features: String::new(),
    };
    let tm = target_machine(&base, first.opts.opt_level)?;
    let ctx = Context::create();
    // The variants, their exported functions renamed `name.<target>`.
    let mut modules: Vec<Module<'_>> = Vec::new();
    let mut signatures: Vec<(String, String, Vec<String>)> = Vec::new();
    for (v, t) in variants.iter().zip(&targets) {
        let buf = MemoryBuffer::create_from_memory_range_copy(v.bitcode(), t.name);
        let m = Module::parse_bitcode_from_buffer(&buf, &ctx).map_err(|e| e.to_string())?;
        // Everything but the entry points is the variant's own.
        let mut g = m.get_first_global();
        while let Some(gv) = g {
            if gv.get_linkage() == Linkage::External && !gv.is_declaration() {
                gv.set_linkage(Linkage::Internal);
            }
            g = gv.get_next_global();
        }
        let mut f = m.get_first_function();
        while let Some(func) = f {
            f = func.get_next_function();
            if func.count_basic_blocks() == 0 {
                continue;
            }
            let name = func.get_name().to_string_lossy().into_owned();
            if names.contains(&name) {
                if signatures.len() < names.len() {
                    let ty = func.get_type();
                    let ret = ty
                        .get_return_type()
                        .map(|r| r.print_to_string().to_string())
                        .unwrap_or_else(|| "void".into());
                    let params = ty
                        .get_param_types()
                        .iter()
                        .map(|p| p.print_to_string().to_string())
                        .collect();
                    signatures.push((name.clone(), ret, params));
                }
                func.as_global_value()
                    .set_name(&format!("{name}.{}", t.name));
            } else if func.get_linkage() == Linkage::External {
                func.set_linkage(Linkage::Internal);
            }
        }
        modules.push(m);
    }
    let mut text = cpu_isas_ir();
    text += &select_ir(&targets);
    for (name, ret, params) in &signatures {
        text += &dispatcher_ir(name, ret, params, &targets);
    }
    // The first call selects; every later one goes straight to the variant.
    text += "!0 = !{!\"branch_weights\", i32 1, i32 1048575}\n";
    let buf = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), "lanes.dispatch");
    let module = ctx
        .create_module_from_ir(buf)
        .map_err(|e| format!("the dispatch code does not parse: {e}"))?;
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    for m in modules {
        module
            .link_in_module(m)
            .map_err(|e| format!("linking the variants failed: {e}"))?;
    }
    for t in &targets {
        for n in &names {
            if let Some(f) = module.get_function(&format!("{n}.{}", t.name)) {
                f.set_linkage(Linkage::Internal);
            }
        }
    }
    module
        .verify()
        .map_err(|e| format!("LLVM rejected the multi-target module: {e}"))?;
    let ir = module.print_to_string().to_string();
    let bitcode = module.write_bitcode_to_memory().as_slice().to_vec();
    Ok(MultiTarget {
        variants,
        base,
        bitcode,
        ir,
    })
}

impl MultiTarget {
    fn emit(&self, ft: FileType) -> Result<Vec<u8>, String> {
        let tm = target_machine(&self.base, self.variants[0].opts.opt_level)?;
        let ctx = Context::create();
        let buf = MemoryBuffer::create_from_memory_range_copy(&self.bitcode, "lanes");
        let m = Module::parse_bitcode_from_buffer(&buf, &ctx).map_err(|e| e.to_string())?;
        tm.write_to_memory_buffer(&m, ft)
            .map(|b| b.as_slice().to_vec())
            .map_err(|e| e.to_string())
    }

    /// The relocatable object file.
    pub fn object(&self) -> Result<Vec<u8>, String> {
        self.emit(FileType::Object)
    }

    /// The assembly text.
    pub fn assembly(&self) -> Result<String, String> {
        self.emit(FileType::Assembly)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    /// The linked LLVM IR as text.
    pub fn llvm_ir(&self) -> String {
        self.ir.clone()
    }

    /// The C math library functions any variant calls (as
    /// [`Compiled::libm_symbols`]).
    pub fn libm_symbols(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for s in self.variants.iter().flat_map(|v| v.libm_symbols()) {
            if !out.contains(&s) {
                out.push(s);
            }
        }
        out
    }

    /// The target names, as listed.
    pub fn target_names(&self) -> Vec<&str> {
        self.variants.iter().map(|v| v.spec.name.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_masks() {
        assert_eq!(mask(&[0, 9, 13, 19, 20, 23]), 0x0098_2201);
        assert_eq!(mask(&[16, 17, 28, 30, 31]), 0xd003_0000_u32 as i32);
        assert_eq!(mask(&[1, 2, 5, 6, 7]), 0xe6);
        let ir = cpu_isas_ir();
        assert!(FEATURE_BITS.iter().all(|(n, _)| !ir.contains(n)));
        // AVX512F (bit 16) included: 0xd0030000.
        assert!(ir.contains("and i32 %ebx7, -805109760"), "{ir}");
    }

    #[test]
    fn select_prefers_the_widest_instruction_set_whatever_the_order() {
        let t = |n| Target::from_name(n).unwrap();
        let ir = select_ir(&[t("avx512skx-x16"), t("sse4-i32x4"), t("avx2-i32x8")]);
        // avx512skx (listed first, index 0), then avx2 (2), then sse4 (1).
        let tries: Vec<&str> = ir
            .lines()
            .filter(|l| l.contains("label %chosen.") && l.contains("label %try."))
            .collect();
        assert_eq!(tries.len(), 3, "{ir}");
        assert!(tries[0].contains("%chosen.0"));
        assert!(tries[1].contains("%chosen.2"));
        assert!(tries[2].contains("%chosen.1"));
    }
}
