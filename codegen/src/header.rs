//! The C/C++ header of a compiled unit (DESIGN §3), like ISPC's `-h`:
//! include guard, `<stddef.h>`/`<stdint.h>`, the `lanes_range` typedef
//! (guarded, so that headers of several units can be included together),
//! typedefs of the structs that pointer parameters point to, and the three
//! entry points of every kernel, `extern "C"` and inside `namespace lanes`
//! under C++.

use std::fmt::Write;

use lanes_frontend::hir;
use lanes_frontend::types::{Scalar, StructId, Type};
use lanes_vectorizer::ir::Ty;

use crate::{Compiled, KernelParam, MultiTarget, ParamKind};

fn scalar_c(s: Scalar) -> &'static str {
    match s {
        // OpenCL's bool is one byte in memory; spelled as a byte so the
        // header means the same in C and C++.
        Scalar::Bool | Scalar::UChar => "uint8_t",
        Scalar::Char => "int8_t",
        Scalar::Short => "int16_t",
        Scalar::UShort | Scalar::Half => "uint16_t",
        Scalar::Int => "int32_t",
        Scalar::UInt => "uint32_t",
        Scalar::Long => "int64_t",
        Scalar::ULong => "uint64_t",
        Scalar::Float => "float",
        Scalar::Double => "double",
    }
}

fn ty_c(t: Ty) -> &'static str {
    match t {
        Ty::I1 | Ty::I8 => "uint8_t",
        Ty::I16 => "int16_t",
        Ty::I32 => "int32_t",
        Ty::I64 => "int64_t",
        Ty::F32 => "float",
        Ty::F64 => "double",
        Ty::Ptr(_) | Ty::Void | Ty::Image => "void *",
    }
}

/// A C identifier for a struct (its tag or typedef name).
pub(crate) fn struct_name(unit: &hir::Unit, id: StructId) -> String {
    let raw = unit
        .structs
        .get(id.0 as usize)
        .map(|d| d.name.to_string())
        .unwrap_or_default();
    let clean: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() || clean.starts_with('_') && clean.contains("anonymous") {
        format!("lanes_struct_{}", id.0)
    } else {
        clean
    }
}

/// The C spelling of the element a pointer of source type `ty` points to.
fn pointee_c(unit: &hir::Unit, ty: &Type) -> String {
    match ty {
        Type::Scalar(s) => scalar_c(*s).into(),
        // Vectors: a pointer to their components (3-vectors take 4).
        Type::Vector(s, _) => scalar_c(*s).into(),
        Type::Struct(id) => struct_name(unit, *id),
        Type::Array(elem, _) => pointee_c(unit, elem),
        _ => "void".into(),
    }
}

fn param_c(unit: &hir::Unit, p: &KernelParam) -> String {
    let name = &p.name;
    match (&p.kind, &p.ty) {
        (ParamKind::Pointer { is_const }, Some(Type::Pointer(ptr))) => {
            let c = if *is_const { "const " } else { "" };
            format!("{c}{} *{name}", pointee_c(unit, &ptr.pointee))
        }
        (ParamKind::Pointer { is_const }, _) => {
            let c = if *is_const { "const " } else { "" };
            format!("{c}void *{name}")
        }
        (ParamKind::Scalar(_), Some(Type::Scalar(s))) => format!("{} {name}", scalar_c(*s)),
        (ParamKind::Scalar(t), _) => format!("{} {name}", ty_c(*t)),
        (ParamKind::Vector(_, n), Some(Type::Vector(s, _))) => {
            format!("const {} *{name} /* {n} components */", scalar_c(*s))
        }
        (ParamKind::Vector(t, n), _) => format!("const {} *{name} /* {n} components */", ty_c(*t)),
        (ParamKind::Struct(_), Some(Type::Struct(id))) => {
            format!("const {} *{name}", struct_name(unit, *id))
        }
        (ParamKind::Struct(_), _) => format!("const void *{name}"),
        (ParamKind::LocalPointer, _) => format!("size_t {name}_bytes /* __local */"),
    }
}

/// Structs reachable from `ty`, dependencies first.
pub(crate) fn collect_structs(unit: &hir::Unit, ty: &Type, out: &mut Vec<StructId>, depth: u32) {
    if depth > 32 {
        return;
    }
    match ty {
        Type::Struct(id) => {
            if out.contains(id) {
                return;
            }
            if let Some(def) = unit.structs.get(id.0 as usize) {
                for f in &def.fields {
                    // Through a field pointer the struct is only named.
                    if !matches!(f.ty, Type::Pointer(_)) {
                        collect_structs(unit, &f.ty, out, depth + 1);
                    }
                }
            }
            if !out.contains(id) {
                out.push(*id);
            }
        }
        Type::Array(elem, _) => collect_structs(unit, elem, out, depth + 1),
        Type::Pointer(p) => collect_structs(unit, &p.pointee, out, depth + 1),
        _ => {}
    }
}

fn field_c(unit: &hir::Unit, ty: &Type, name: &str) -> String {
    let mut dims = String::new();
    let mut t = ty;
    while let Type::Array(elem, n) = t {
        let _ = write!(dims, "[{n}]");
        t = elem;
    }
    match t {
        Type::Scalar(s) => format!("{} {name}{dims}", scalar_c(*s)),
        Type::Vector(s, n) => {
            let n = if *n == 3 { 4 } else { *n as u64 };
            let align = n * s.size() as u64;
            format!("LANES_ALIGNED({align}) {} {name}{dims}[{n}]", scalar_c(*s))
        }
        Type::Struct(id) => format!("{} {name}{dims}", struct_name(unit, *id)),
        Type::Pointer(_) => format!("void *{name}{dims}"),
        _ => format!("uint8_t {name}{dims}[1]"),
    }
}

/// The header for `compiled` (kernels of `unit`), with include guard
/// `guard_name`.
pub fn header(unit: &hir::Unit, compiled: &Compiled, guard_name: &str) -> String {
    let spec = &compiled.spec;
    let banner = format!(
        "/* Generated by lanes for target {} (SIMD width {}, {} {}). Do not edit. */",
        spec.name, spec.width, spec.triple, spec.cpu
    );
    render(
        unit,
        compiled,
        &banner,
        &compiled.libm_symbols(),
        guard_name,
    )
}

/// The header of a multi-target object: the same declarations (every
/// variant has the same entry points), the variants in the banner.
pub fn multi_target_header(unit: &hir::Unit, multi: &MultiTarget, guard_name: &str) -> String {
    let variants: Vec<String> = multi
        .variants
        .iter()
        .map(|v| format!("{} (SIMD width {})", v.spec.name, v.spec.width))
        .collect();
    let banner = format!(
        "/* Generated by lanes for targets {}, {}.\n   \
         Each entry point runs the best of them this CPU supports, chosen at the first\n   \
         call (or the one {} names). Do not edit. */",
        variants.join(", "),
        multi.variants[0].spec.triple,
        crate::multi::PIN_VARIABLE
    );
    render(
        unit,
        &multi.variants[0],
        &banner,
        &multi.libm_symbols(),
        guard_name,
    )
}

fn render(
    unit: &hir::Unit,
    compiled: &Compiled,
    banner: &str,
    ext: &[String],
    guard_name: &str,
) -> String {
    let guard: String = guard_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    let guard = if guard.is_empty() || guard.starts_with(|c: char| c.is_ascii_digit()) {
        format!("LANES_{guard}")
    } else {
        guard
    };
    let mut h = String::new();
    let _ = writeln!(h, "{banner}");
    if !ext.is_empty() {
        let _ = writeln!(
            h,
            "/* The object calls {}: link with the C library (and -lm). */",
            ext.join(", ")
        );
    }
    let _ = writeln!(h, "#ifndef {guard}\n#define {guard}\n");
    h.push_str("#include <stddef.h>\n#include <stdint.h>\n\n");
    h.push_str(
        "#ifndef LANES_ALIGNED\n#define LANES_ALIGNED(n) __attribute__((aligned(n)))\n#endif\n\
         #ifndef LANES_STATIC_ASSERT\n#ifdef __cplusplus\n#define LANES_STATIC_ASSERT(c, m) static_assert(c, m)\n\
         #else\n#define LANES_STATIC_ASSERT(c, m) _Static_assert(c, m)\n#endif\n#endif\n\n",
    );
    h.push_str("#ifdef __cplusplus\nnamespace lanes {\nextern \"C\" {\n#endif\n\n");
    h.push_str(
        "#ifndef LANES_RANGE_DEFINED\n#define LANES_RANGE_DEFINED\n\
         /* The NDRange of a launch. Dimensions >= work_dim are ignored (size 1,\n   \
         offset 0). local_size[d] == 0 lets lanes choose: a multiple of the SIMD\n   \
         width along dimension 0 (at most 8 SIMD groups per row), 1 along the others.\n   \
         The last work-group of a dimension may be smaller (OpenCL 2.0). */\n\
         typedef struct lanes_range {\n    uint32_t work_dim;\n    size_t global_offset[3];\n    \
         size_t global_size[3];\n    size_t local_size[3];\n} lanes_range;\n#endif\n\n",
    );
    // Structs behind pointer parameters.
    let mut structs = Vec::new();
    for k in compiled.kernels() {
        for p in &k.params {
            if let Some(t) = &p.ty {
                collect_structs(unit, t, &mut structs, 0);
            }
        }
    }
    for id in structs {
        let Some(def) = unit.structs.get(id.0 as usize) else {
            continue;
        };
        let name = struct_name(unit, id);
        let _ = writeln!(
            h,
            "#ifndef LANES_STRUCT_{name}\n#define LANES_STRUCT_{name}"
        );
        let _ = writeln!(h, "typedef struct {name} {{");
        for f in &def.fields {
            let _ = writeln!(h, "    {};", field_c(unit, &f.ty, &f.name));
        }
        let _ = writeln!(h, "}} {name};");
        let _ = writeln!(
            h,
            "LANES_STATIC_ASSERT(sizeof({name}) == {}, \"layout of {name} differs from OpenCL's\");",
            def.size
        );
        let _ = writeln!(h, "#endif\n");
    }
    for k in compiled.kernels() {
        let args: Vec<String> = k.params.iter().map(|p| param_c(unit, p)).collect();
        let mut a = args.join(", ");
        if !a.is_empty() {
            a.push_str(", ");
        }
        let local = k.params.iter().any(|p| p.kind == ParamKind::LocalPointer);
        let needs_memory = crate::workgroup::Plan::needed(&k.vf);
        let mut notes = String::new();
        if local {
            notes.push_str(
                "\n   A __local pointer argument is passed as the size in bytes of its object\n   \
                 (as clSetKernelArg(k, i, size, NULL)); each work-group gets its own.",
            );
        }
        if let Some([x, y, z]) = k.reqd_work_group_size {
            notes.push_str(&format!(
                "\n   reqd_work_group_size({x}, {y}, {z}): local_size must be {{{x}, {y}, {z}}} (or 0,\n   \
                 which means it); another returns -3, as CL_INVALID_WORK_GROUP_SIZE."
            ));
        }
        if needs_memory {
            notes.push_str(
                "\n   Work-group memory (__local objects, values kept across barriers) comes\n   \
                 from the stack up to 128 KiB per call, else from aligned_alloc: -2 when\n   \
                 it cannot be had.",
            );
        }
        let _ = writeln!(
            h,
            "/* Kernel `{n}`. Vector and struct arguments are passed as a pointer to their\n   \
             components. Each function returns 0, or -1 for an invalid range (work_dim\n   \
             not 1-3, a global size of 0, or global_offset + global_size above 2^31).{notes}\n   \
             {n}_groups runs the work-groups [first, last) in linear order\n   \
             (gx + ngx * (gy + ngy * gz)); last is clamped to the number of groups.\n   \
             {n}__launch takes args[i] = address of the value of argument i. */",
            n = k.name
        );
        let _ = writeln!(h, "int {}({a}const lanes_range *r);", k.name);
        let _ = writeln!(
            h,
            "int {}_groups({a}const lanes_range *r, size_t first, size_t last);",
            k.name
        );
        let _ = writeln!(
            h,
            "int {}__launch(void *const *args, const lanes_range *r, size_t first, size_t last);\n",
            k.name
        );
    }
    h.push_str("#ifdef __cplusplus\n} /* extern \"C\" */\n} /* namespace lanes */\n#endif\n\n");
    let _ = writeln!(h, "#endif /* {guard} */");
    h
}
