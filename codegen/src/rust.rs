//! Rust bindings of a compiled unit (`lanes build --emit rust`,
//! docs/rust.md): the C header's declarations as `extern "C"` items under
//! `ffi`, and one function per kernel taking slices and scalars that checks
//! the buffers against the range before it launches the kernel. The file is
//! a list of items for `include!`, so it has no inner attributes.

use std::collections::BTreeSet;
use std::fmt::Write;

use lanes_frontend::hir;
use lanes_frontend::types::{Scalar, Type};
use lanes_vectorizer::ir::Ty;

use crate::bounds::{self, Access, Buffer, Expr};
use crate::header::{collect_structs, struct_name};
use crate::{Compiled, KernelCode, KernelParam, ParamKind};

/// Names the generated file defines at its top level.
const RESERVED: [&str; 4] = ["Range", "Error", "ffi", "check"];

/// `name` as a Rust identifier (raw for keywords).
fn ident(name: &str) -> String {
    const STRICT: [&str; 5] = ["self", "Self", "super", "crate", "_"];
    const KEYWORDS: [&str; 47] = [
        "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if",
        "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
        "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while", "async",
        "await", "dyn", "abstract", "become", "box", "do", "final", "macro", "override", "priv",
        "typeof", "unsized", "virtual", "yield", "try",
    ];
    if STRICT.contains(&name) {
        format!("{name}_")
    } else if KEYWORDS.contains(&name) || name == "gen" {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

fn scalar_rs(s: Scalar) -> &'static str {
    match s {
        // One byte in memory, as in the C header.
        Scalar::Bool | Scalar::UChar => "u8",
        Scalar::Char => "i8",
        Scalar::Short => "i16",
        // The bits of an IEEE binary16.
        Scalar::UShort | Scalar::Half => "u16",
        Scalar::Int => "i32",
        Scalar::UInt => "u32",
        Scalar::Long => "i64",
        Scalar::ULong => "u64",
        Scalar::Float => "f32",
        Scalar::Double => "f64",
    }
}

fn ty_rs(t: Ty) -> &'static str {
    match t {
        Ty::I1 | Ty::I8 => "u8",
        Ty::I16 => "i16",
        Ty::I32 => "i32",
        Ty::I64 => "i64",
        Ty::F32 => "f32",
        Ty::F64 => "f64",
        Ty::Ptr(_) | Ty::Void | Ty::Image => "u8",
    }
}

/// The OpenCL name of a vector type (`float4`), which the file defines.
fn vector_name(s: Scalar, n: u8) -> String {
    let base = match s {
        Scalar::Bool => "bool",
        Scalar::Char => "char",
        Scalar::UChar => "uchar",
        Scalar::Short => "short",
        Scalar::UShort => "ushort",
        Scalar::Half => "half",
        Scalar::Int => "int",
        Scalar::UInt => "uint",
        Scalar::Long => "long",
        Scalar::ULong => "ulong",
        Scalar::Float => "float",
        Scalar::Double => "double",
    };
    format!("{base}{n}")
}

/// The file's types: vectors used in memory and the structs of the header.
struct Types<'a> {
    unit: &'a hir::Unit,
    vectors: BTreeSet<(String, &'static str, u64, u64)>,
}

impl Types<'_> {
    /// The Rust type of a value of source type `ty` in memory.
    fn memory(&mut self, ty: &Type) -> String {
        match ty {
            Type::Scalar(s) => scalar_rs(*s).into(),
            Type::Vector(s, n) => {
                // 3-vectors take the room and alignment of 4.
                let slots = if *n == 3 { 4 } else { *n as u64 };
                let name = vector_name(*s, *n);
                self.vectors
                    .insert((name.clone(), scalar_rs(*s), slots, slots * s.size() as u64));
                name
            }
            Type::Struct(id) => ident(&struct_name(self.unit, *id)),
            Type::Array(elem, n) => format!("[{}; {n}]", self.memory(elem)),
            Type::Pointer(_) => "*mut ::core::ffi::c_void".into(),
            _ => "[u8; 1]".into(),
        }
    }

    /// The element type of the slice for a pointer parameter.
    fn element(&mut self, p: &KernelParam) -> String {
        match &p.ty {
            Some(Type::Pointer(ptr)) => match &ptr.pointee {
                Type::Array(elem, _) => self.memory(elem),
                Type::Scalar(_) | Type::Vector(..) | Type::Struct(_) => self.memory(&ptr.pointee),
                _ => "u8".into(),
            },
            _ => "u8".into(),
        }
    }
}

/// How one source parameter appears in the two layers.
struct Arg {
    name: String,
    /// Its type in the `extern "C"` declaration.
    ffi: String,
    /// Its type in the safe function.
    safe: String,
    /// The expression passing it from the safe function to the C one.
    pass: String,
    /// For buffers: the element type and what the kernel does with it.
    buffer: Option<(String, Buffer)>,
}

fn args(types: &mut Types<'_>, k: &KernelCode, facts: &bounds::Bounds) -> Vec<Arg> {
    let mut out = Vec::new();
    for (i, p) in k.params.iter().enumerate() {
        let name = ident(&p.name);
        let arg = match &p.kind {
            ParamKind::Pointer { is_const } => {
                let elem = types.element(p);
                let buffer = facts
                    .buffers
                    .get(&(i as u32))
                    .cloned()
                    .unwrap_or(Buffer::Bounded(Vec::new()));
                // A buffer the kernel never writes is a shared slice even
                // when its pointer is not `const`.
                let (safe, pass) = if buffer.written() {
                    (format!("&mut [{elem}]"), format!("{name}.as_mut_ptr()"))
                } else if *is_const {
                    (format!("&[{elem}]"), format!("{name}.as_ptr()"))
                } else {
                    (format!("&[{elem}]"), format!("{name}.as_ptr().cast_mut()"))
                };
                let ptr = if *is_const { "*const" } else { "*mut" };
                Arg {
                    ffi: format!("{ptr} {elem}"),
                    safe,
                    pass,
                    buffer: Some((elem, buffer)),
                    name,
                }
            }
            ParamKind::Scalar(t) => {
                let (ffi, safe, pass) = match (&p.ty, t) {
                    (Some(Type::Scalar(Scalar::Bool)), _) | (None, Ty::I1) => (
                        "u8".to_string(),
                        "bool".to_string(),
                        format!("{name} as u8"),
                    ),
                    (Some(Type::Scalar(s)), _) => {
                        (scalar_rs(*s).into(), scalar_rs(*s).into(), name.clone())
                    }
                    (_, t) => (ty_rs(*t).into(), ty_rs(*t).into(), name.clone()),
                };
                Arg {
                    name,
                    ffi,
                    safe,
                    pass,
                    buffer: None,
                }
            }
            // The size in bytes of the work-group's `__local` object.
            ParamKind::LocalPointer => Arg {
                ffi: "usize".into(),
                safe: "usize".into(),
                pass: format!("{name}_bytes"),
                buffer: None,
                name: format!("{name}_bytes"),
            },
            ParamKind::Vector(t, n) => {
                let comp = match &p.ty {
                    Some(Type::Vector(s, _)) => scalar_rs(*s),
                    _ => ty_rs(*t),
                };
                Arg {
                    ffi: format!("*const {comp}"),
                    safe: format!("[{comp}; {n}]"),
                    pass: format!("{name}.as_ptr()"),
                    buffer: None,
                    name,
                }
            }
            ParamKind::Struct(_) => {
                let s = match &p.ty {
                    Some(t @ Type::Struct(_)) => types.memory(t),
                    _ => "u8".into(),
                };
                Arg {
                    ffi: format!("*const {s}"),
                    safe: format!("&{s}"),
                    pass: format!("{name} as *const {s}"),
                    buffer: None,
                    name,
                }
            }
        };
        out.push(arg);
    }
    out
}

/// `e` as a call of the checker's interval functions (`check::*`).
fn eval(e: &Expr, args: &[Arg], range: &str) -> String {
    let sub = |e: &Expr| eval(e, args, range);
    match e {
        Expr::Const(c) => format!("check::k({c})"),
        Expr::Arg { source, bits } => {
            let name = &args[*source as usize].name;
            let bool_arg = args[*source as usize].safe == "bool";
            let v = if bool_arg {
                format!("{name} as i128")
            } else {
                format!("{name} as i{bits} as i128")
            };
            format!("check::k({v})")
        }
        Expr::GlobalId(d) => format!("check::global_id({range}, {d})"),
        Expr::GlobalSize(d) => format!("check::global_size({range}, {d})"),
        Expr::GlobalOffset(d) => format!("check::global_offset({range}, {d})"),
        Expr::Add(b, x, y) => format!("check::add({b}, {}, {})", sub(x), sub(y)),
        Expr::Sub(b, x, y) => format!("check::sub({b}, {}, {})", sub(x), sub(y)),
        Expr::Mul(b, x, y) => format!("check::mul({b}, {}, {})", sub(x), sub(y)),
        Expr::Either(x, y) => format!("check::either({}, {})", sub(x), sub(y)),
        Expr::Min { unsigned, a, b } => format!("check::min({unsigned}, {}, {})", sub(a), sub(b)),
        Expr::Max { unsigned, a, b } => format!("check::max({unsigned}, {}, {})", sub(a), sub(b)),
        Expr::ZExt(x) => format!("check::zext({})", sub(x)),
        Expr::Trunc(b, x) => format!("check::fit({b}, {})", sub(x)),
    }
}

/// `e` as OpenCL C, for the documentation (`+ 0` and conversions dropped).
fn show(e: &Expr, args: &[Arg]) -> String {
    let s = |e: &Expr| show(e, args);
    let atom = |e: &Expr| match e {
        Expr::Add(..) | Expr::Sub(..) => format!("({})", show(e, args)),
        _ => show(e, args),
    };
    match e {
        Expr::Const(c) => c.to_string(),
        Expr::Arg { source, .. } => args[*source as usize]
            .name
            .trim_start_matches("r#")
            .to_string(),
        Expr::GlobalId(d) => format!("get_global_id({d})"),
        Expr::GlobalSize(d) => format!("get_global_size({d})"),
        Expr::GlobalOffset(d) => format!("get_global_offset({d})"),
        Expr::Add(_, x, y) if **x == Expr::Const(0) => s(y),
        Expr::Add(_, x, y) if **y == Expr::Const(0) => s(x),
        Expr::Add(_, x, y) => format!("{} + {}", s(x), s(y)),
        Expr::Sub(_, x, y) => format!("{} - {}", s(x), atom(y)),
        Expr::Mul(_, x, y) => format!("{} * {}", atom(x), atom(y)),
        Expr::Either(x, y) => format!("({} or {})", s(x), s(y)),
        Expr::Min { a, b, .. } => format!("min({}, {})", s(a), s(b)),
        Expr::Max { a, b, .. } => format!("max({}, {})", s(a), s(b)),
        Expr::ZExt(x) | Expr::Trunc(_, x) => s(x),
    }
}

/// The Rust module for the kernels of `compiled` (of `unit`); `source`
/// names the `.cl` file in its first line.
pub fn rust_bindings(unit: &hir::Unit, compiled: &Compiled, source: &str) -> String {
    let mut types = Types {
        unit,
        vectors: BTreeSet::new(),
    };
    let mut structs = Vec::new();
    for k in compiled.kernels() {
        for p in &k.params {
            if let Some(t) = &p.ty {
                collect_structs(unit, t, &mut structs, 0);
            }
        }
    }
    let mut struct_items = String::new();
    for &id in &structs {
        let Some(def) = unit.structs.get(id.0 as usize) else {
            continue;
        };
        let name = ident(&struct_name(unit, id));
        let _ = writeln!(
            struct_items,
            "    /// `{}` of the kernel source (the C header's `{name}`).\n    \
             #[repr(C)]\n    #[derive(Clone, Copy, Debug)]\n    pub struct {name} {{",
            def.name
        );
        for f in &def.fields {
            let ty = types.memory(&f.ty);
            let _ = writeln!(struct_items, "        pub {}: {ty},", ident(&f.name));
        }
        let _ = writeln!(
            struct_items,
            "    }}\n    const _: () = assert!(::core::mem::size_of::<{name}>() == {}, \"layout of {name} differs from OpenCL's\");\n",
            def.size
        );
    }

    let mut externs = String::new();
    let mut safe = String::new();
    for k in compiled.kernels() {
        let scalar_args: Vec<u32> = k
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p.kind, ParamKind::Scalar(_)))
            .map(|(i, _)| i as u32)
            .collect();
        let facts = bounds::bounds(&k.vf.func, &scalar_args);
        let args = args(&mut types, k, &facts);
        let mut range = "range".to_string();
        while args.iter().any(|a| a.name == range) {
            range.push('_');
        }
        kernel_externs(&mut externs, k, &args);
        kernel_fn(&mut safe, k, &args, &facts, &range);
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Generated by `lanes build --emit rust` from `{source}`. Do not edit.\n\
         // The kernels run in the object lanes builds from the same file (for\n\
         // target {}); docs/rust.md in lanes says what the functions check.\n",
        compiled.spec.name
    );
    out.push_str(PRELUDE);
    out.push_str(
        "/// The C ABI of the kernels, as the C header declares it.\n\
         #[allow(non_camel_case_types, non_snake_case, dead_code)]\npub mod ffi {\n",
    );
    out.push_str(FFI_RANGE);
    for (name, comp, slots, align) in &types.vectors {
        let _ = writeln!(
            out,
            "    /// OpenCL's `{name}` in memory: its components{}, aligned to {align} bytes.\n    \
             #[repr(C, align({align}))]\n    #[derive(Clone, Copy, Debug, Default, PartialEq)]\n    \
             pub struct {name}(pub [{comp}; {slots}]);\n",
            if *slots == 4 && name.ends_with('3') {
                " (and one unused)"
            } else {
                ""
            }
        );
    }
    out.push_str(&struct_items);
    out.push_str("    extern \"C\" {\n");
    out.push_str(&externs);
    out.push_str("    }\n}\n\n");
    let mut reexport: Vec<String> = types.vectors.iter().map(|v| v.0.clone()).collect();
    reexport.extend(
        structs
            .iter()
            .map(|&id| ident(&struct_name(unit, id)))
            .filter(|n| !RESERVED.contains(&n.as_str())),
    );
    if !reexport.is_empty() {
        let _ = writeln!(
            out,
            "#[allow(unused_imports)]\npub use ffi::{{{}}};\n",
            reexport.join(", ")
        );
    }
    out.push_str(&safe);
    out.push_str(CHECK);
    out
}

fn kernel_externs(out: &mut String, k: &KernelCode, args: &[Arg]) {
    let mut a: String = args
        .iter()
        .map(|a| format!("{}: {}, ", a.name, a.ffi))
        .collect();
    a.push_str("r: *const lanes_range");
    let n = &k.name;
    let _ = writeln!(
        out,
        "        /// Kernel `{n}` over the range `*r`: 0, or -1 for an invalid range.\n        \
         pub fn {id}({a}) -> i32;\n        \
         /// The work-groups `[first, last)` of the range, in linear order.\n        \
         pub fn {n}_groups({a}, first: usize, last: usize) -> i32;\n        \
         /// `args[i]` is the address of the value of argument `i`.\n        \
         pub fn {n}__launch(args: *const *mut ::core::ffi::c_void, r: *const lanes_range, first: usize, last: usize) -> i32;",
        id = ident(n)
    );
}

fn kernel_fn(out: &mut String, k: &KernelCode, args: &[Arg], facts: &bounds::Bounds, range: &str) {
    let n = &k.name;
    let mut doc = format!(
        "/// Runs kernel `{n}` over `{range}`, every work-group on the calling thread\n\
         /// (`{n}` of the C header).\n///\n"
    );
    let mut checks = String::new();
    let mut unchecked: Vec<String> = Vec::new();
    for a in args {
        let Some((elem, buffer)) = &a.buffer else {
            continue;
        };
        let shown = a.name.trim_start_matches("r#");
        match buffer {
            Buffer::Bounded(list) if list.is_empty() => {
                let _ = writeln!(doc, "/// - `{shown}`: never accessed.");
            }
            Buffer::Bounded(list) => {
                let mut distinct: Vec<&Access> = Vec::new();
                for acc in list {
                    if !distinct
                        .iter()
                        .any(|d| d.offset == acc.offset && d.bytes == acc.bytes)
                    {
                        distinct.push(acc);
                    }
                }
                let offsets: Vec<String> = distinct
                    .iter()
                    .map(|d| format!("`{}` ({} bytes)", show(&d.offset, args), d.bytes))
                    .collect();
                let _ = writeln!(
                    doc,
                    "/// - `{shown}`: checked. Every access is at a byte offset of {} for some\n\
                     ///   work-item of the range; all of them must lie inside the slice.",
                    offsets.join(", ")
                );
                let evals: Vec<String> = distinct
                    .iter()
                    .map(|d| {
                        format!(
                            "\n                ({}, {}),",
                            eval(&d.offset, args, range),
                            d.bytes
                        )
                    })
                    .collect();
                let _ = writeln!(
                    checks,
                    "        check::buffer(\"{n}\", \"{shown}\", ::core::mem::size_of_val({name}), ::core::mem::size_of::<{elem}>(), &[{}\n            ])?;",
                    evals.concat(),
                    name = a.name
                );
            }
            Buffer::Unbounded { reason, .. } => {
                let _ = writeln!(
                    doc,
                    "/// - `{shown}`: NOT checked: {reason}, so its bounds are not known."
                );
                unchecked.push(format!("`{shown}` ({reason})"));
            }
        }
    }
    // The kernel indexes a `__local` argument within the size the caller
    // gives; nothing here relates its indices to that size.
    for (p, a) in k.params.iter().zip(args) {
        if p.kind == ParamKind::LocalPointer {
            let shown = a.name.trim_start_matches("r#");
            let _ = writeln!(
                doc,
                "/// - `{shown}`: the size of the `__local` buffer `{}` of each work-group; NOT\n\
                 ///   checked against the kernel's accesses of it.",
                p.name
            );
            unchecked.push(format!(
                "`__local` `{}` must hold every access ({shown})",
                p.name
            ));
        }
    }
    if let Some(s) = &facts.stray {
        unchecked.push(format!("{s}, which no slice bounds"));
    }
    doc.push_str(
        "///\n/// # Errors\n///\n/// [`Error::InvalidRange`] for a `work_dim` other than 1, 2 or 3 or a\n\
         /// range the kernel refuses; [`Error::TooShort`], [`Error::BeforeStart`] or\n\
         /// [`Error::Overflow`] when a checked buffer cannot hold every access;\n\
         /// [`Error::Failed`] for another status of the kernel.\n",
    );
    let unsafety = if unchecked.is_empty() {
        ""
    } else {
        let _ = writeln!(
            doc,
            "///\n/// # Safety\n///\n/// The kernel's accesses could not all be bounded: {}. The caller\n\
             /// must make sure that every access the kernel makes over `{range}` stays inside\n\
             /// the slices it is given.",
            unchecked.join("; ")
        );
        "unsafe "
    };
    let params: String = args
        .iter()
        .map(|a| format!("{}: {}, ", a.name, a.safe))
        .collect();
    let pass: String = args.iter().map(|a| format!("{}, ", a.pass)).collect();
    let _ = write!(
        out,
        "{doc}#[allow(clippy::too_many_arguments, non_snake_case, dead_code, unused_unsafe)]\n\
         pub {unsafety}fn {id}({params}{range}: &Range) -> Result<(), Error> {{\n    \
         check::work_dim(\"{n}\", {range})?;\n    \
         if !check::is_empty({range}) {{\n{checks}    }}\n    \
         // SAFETY: the slices hold every access the checks above bound{}.\n    \
         let status = unsafe {{ ffi::{id}({pass}{range}) }};\n    \
         check::status(\"{n}\", status)\n}}\n\n",
        if unchecked.is_empty() {
            ""
        } else {
            "; the caller vouches for the others"
        },
        id = ident(n)
    );
}

/// What every file starts with: the range and the error type.
const PRELUDE: &str = r#"/// The NDRange of a launch (the C header's `lanes_range`): `work_dim` of 1,
/// 2 or 3; dimensions from `work_dim` on count as size 1, offset 0. A local
/// size of 0 lets lanes choose; the last work-group of a dimension may be
/// smaller.
pub type Range = ffi::lanes_range;

#[allow(dead_code)]
impl ffi::lanes_range {
    /// A 1-D range of `n` work-items.
    pub const fn d1(n: usize) -> Range {
        Range { work_dim: 1, global_offset: [0; 3], global_size: [n, 1, 1], local_size: [0; 3] }
    }
    /// A 2-D range of `x` by `y` work-items.
    pub const fn d2(x: usize, y: usize) -> Range {
        Range { work_dim: 2, global_offset: [0; 3], global_size: [x, y, 1], local_size: [0; 3] }
    }
    /// A 3-D range of `x` by `y` by `z` work-items.
    pub const fn d3(x: usize, y: usize, z: usize) -> Range {
        Range { work_dim: 3, global_offset: [0; 3], global_size: [x, y, z], local_size: [0; 3] }
    }
    /// The same range starting at `offset` (`get_global_offset`).
    pub const fn with_offset(mut self, offset: [usize; 3]) -> Range {
        self.global_offset = offset;
        self
    }
    /// The same range with work-groups of `local` work-items.
    pub const fn with_local_size(mut self, local: [usize; 3]) -> Range {
        self.local_size = local;
        self
    }
}

/// Why a kernel was not launched, or failed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(dead_code)]
pub enum Error {
    /// `work_dim` is not 1, 2 or 3, or the kernel refused the range (a
    /// local size that does not fit).
    InvalidRange { kernel: &'static str },
    /// The local size is not the kernel's `reqd_work_group_size`.
    WorkGroupSize { kernel: &'static str },
    /// `buffer` has `len` elements, the range reaches element `needed - 1`.
    TooShort { kernel: &'static str, buffer: &'static str, needed: u128, len: usize },
    /// Some work-item of the range would access `buffer` before its start.
    BeforeStart { kernel: &'static str, buffer: &'static str },
    /// An index into `buffer` overflows its OpenCL integer type for some
    /// work-item of the range (or the arguments), so it cannot be bounded.
    Overflow { kernel: &'static str, buffer: &'static str },
    /// The kernel returned `status` (-2: its work-group memory could not be
    /// allocated).
    Failed { kernel: &'static str, status: i32 },
}

impl ::core::fmt::Display for Error {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        match self {
            Error::InvalidRange { kernel } => write!(f, "kernel `{kernel}`: invalid range"),
            Error::WorkGroupSize { kernel } => write!(
                f,
                "kernel `{kernel}`: the local size is not its reqd_work_group_size"
            ),
            Error::TooShort { kernel, buffer, needed, len } => write!(
                f,
                "kernel `{kernel}`: `{buffer}` has {len} elements but the range accesses up to element {}",
                needed - 1
            ),
            Error::BeforeStart { kernel, buffer } => write!(
                f,
                "kernel `{kernel}`: the range accesses `{buffer}` before its first element"
            ),
            Error::Failed { kernel, status } => write!(
                f,
                "kernel `{kernel}` failed with status {status} (-2: no memory for its work-groups)"
            ),
            Error::Overflow { kernel, buffer } => write!(
                f,
                "kernel `{kernel}`: an index into `{buffer}` overflows its integer type over this range"
            ),
        }
    }
}

impl ::std::error::Error for Error {}

"#;

const FFI_RANGE: &str = r#"    /// `lanes_range` of the C header.
    #[repr(C)]
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct lanes_range {
        pub work_dim: u32,
        pub global_offset: [usize; 3],
        pub global_size: [usize; 3],
        pub local_size: [usize; 3],
    }

"#;

/// Interval arithmetic over the work-items of a range: `Err` when a value
/// may leave its integer type (the kernel's arithmetic would wrap there).
const CHECK: &str = r#"/// Bounds of the kernels' index expressions over a range.
#[allow(dead_code)]
mod check {
    use super::{Error, Range};

    /// The smallest and largest value an expression takes, or `Err` when it
    /// may overflow.
    pub type Iv = Result<(i128, i128), ()>;

    pub fn work_dim(kernel: &'static str, r: &Range) -> Result<(), Error> {
        if (1..=3).contains(&r.work_dim) { Ok(()) } else { Err(Error::InvalidRange { kernel }) }
    }

    /// No work-items: nothing is accessed.
    pub fn is_empty(r: &Range) -> bool {
        (0..r.work_dim as usize).any(|d| r.global_size[d] == 0)
    }

    pub fn status(kernel: &'static str, status: i32) -> Result<(), Error> {
        match status {
            0 => Ok(()),
            -1 => Err(Error::InvalidRange { kernel }),
            -3 => Err(Error::WorkGroupSize { kernel }),
            status => Err(Error::Failed { kernel, status }),
        }
    }

    pub fn fit(bits: u32, v: Iv) -> Iv {
        let (lo, hi) = v?;
        let min = -(1i128 << (bits - 1));
        let max = (1i128 << (bits - 1)) - 1;
        if lo >= min && hi <= max { Ok((lo, hi)) } else { Err(()) }
    }

    pub fn k(c: i128) -> Iv {
        Ok((c, c))
    }

    pub fn global_id(r: &Range, d: usize) -> Iv {
        if d >= r.work_dim as usize {
            return Ok((0, 0));
        }
        let lo = r.global_offset[d] as i128;
        fit(64, Ok((lo, lo + r.global_size[d] as i128 - 1)))
    }

    pub fn global_size(r: &Range, d: usize) -> Iv {
        if d >= r.work_dim as usize { Ok((1, 1)) } else { fit(64, k(r.global_size[d] as i128)) }
    }

    pub fn global_offset(r: &Range, d: usize) -> Iv {
        if d >= r.work_dim as usize { Ok((0, 0)) } else { fit(64, k(r.global_offset[d] as i128)) }
    }

    pub fn add(bits: u32, a: Iv, b: Iv) -> Iv {
        let (a, b) = (a?, b?);
        fit(bits, Ok((a.0 + b.0, a.1 + b.1)))
    }

    pub fn sub(bits: u32, a: Iv, b: Iv) -> Iv {
        let (a, b) = (a?, b?);
        fit(bits, Ok((a.0 - b.1, a.1 - b.0)))
    }

    pub fn mul(bits: u32, a: Iv, b: Iv) -> Iv {
        let (a, b) = (a?, b?);
        let p = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1];
        fit(bits, Ok((*p.iter().min().unwrap(), *p.iter().max().unwrap())))
    }

    pub fn either(a: Iv, b: Iv) -> Iv {
        let (a, b) = (a?, b?);
        Ok((a.0.min(b.0), a.1.max(b.1)))
    }

    /// `min` of two values (`unsigned`: both must be non-negative, where
    /// the signed and unsigned orders agree).
    pub fn min(unsigned: bool, a: Iv, b: Iv) -> Iv {
        let (a, b) = (a?, b?);
        if unsigned && (a.0 < 0 || b.0 < 0) {
            return Err(());
        }
        Ok((a.0.min(b.0), a.1.min(b.1)))
    }

    pub fn max(unsigned: bool, a: Iv, b: Iv) -> Iv {
        let (a, b) = (a?, b?);
        if unsigned && (a.0 < 0 || b.0 < 0) {
            return Err(());
        }
        Ok((a.0.max(b.0), a.1.max(b.1)))
    }

    pub fn zext(a: Iv) -> Iv {
        let a = a?;
        if a.0 >= 0 { Ok(a) } else { Err(()) }
    }

    /// Every access `(byte offset, size)` of `buffer` must lie in its
    /// `bytes` bytes (elements of `elem` bytes).
    pub fn buffer(
        kernel: &'static str,
        buffer: &'static str,
        bytes: usize,
        elem: usize,
        accesses: &[(Iv, u64)],
    ) -> Result<(), Error> {
        for &(offset, size) in accesses {
            let (lo, hi) = offset.map_err(|()| Error::Overflow { kernel, buffer })?;
            if lo < 0 {
                return Err(Error::BeforeStart { kernel, buffer });
            }
            let end = hi + size as i128;
            if end > bytes as i128 {
                let elem = elem.max(1) as i128;
                return Err(Error::TooShort {
                    kernel,
                    buffer,
                    needed: ((end + elem - 1) / elem) as u128,
                    len: bytes / elem as usize,
                });
            }
        }
        Ok(())
    }
}
"#;

#[cfg(test)]
mod tests {
    use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
    use lanes_frontend::unit::check_text;

    fn bindings(src: &str) -> String {
        let u = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
        assert!(!u.has_errors(), "{:?}", u.diagnostics);
        let spec = crate::target_spec("sse4-i32x4").unwrap();
        let c = crate::compile_unit(&u.hir, &spec, &crate::Options::default()).unwrap();
        super::rust_bindings(&u.hir, &c, "t.cl")
    }

    #[test]
    fn global_id_indexed_buffers_are_checked_and_the_function_is_safe() {
        let b = bindings(
            "__kernel void saxpy(int n, float a, __global const float *x, __global float *y)\n\
             { int i = get_global_id(0); if (i < n) y[i] = a * x[i] + y[i]; }",
        );
        assert!(
            b.contains("pub fn saxpy(n: i32, a: f32, x: &[f32], y: &mut [f32], range: &Range)"),
            "{b}"
        );
        assert!(b.contains("pub fn saxpy(n: i32, a: f32, x: *const f32, y: *mut f32, r: *const lanes_range) -> i32;"));
        assert!(b.contains("pub fn saxpy_groups(") && b.contains("pub fn saxpy__launch("));
        assert!(b.contains("check::buffer(\"saxpy\", \"x\""), "{b}");
        assert!(!b.contains("unsafe fn"), "{b}");
    }

    #[test]
    fn two_dimensional_indices_use_the_scalar_arguments() {
        let b = bindings(
            "__kernel void fill(__global uint *out, int width)\n\
             { int x = get_global_id(0), y = get_global_id(1); out[y * width + x] = x + y; }",
        );
        assert!(
            b.contains("(get_global_id(1) * width + get_global_id(0)) * 4"),
            "{b}"
        );
        assert!(b.contains("check::k(width as i32 as i128)"), "{b}");
        assert!(
            b.contains("pub fn fill(out: &mut [u32], width: i32, range: &Range)"),
            "{b}"
        );
    }

    #[test]
    fn loop_indices_make_the_function_unsafe_and_say_why() {
        let b = bindings(
            "__kernel void rowsum(__global const float *m, __global float *s, int n)\n\
             { int i = get_global_id(0); float t = 0; for (int k = 0; k < n; k++) t += m[i * n + k]; s[i] = t; }",
        );
        assert!(b.contains("pub unsafe fn rowsum("), "{b}");
        assert!(
            b.contains("- `m`: NOT checked: its index changes around a loop"),
            "{b}"
        );
        assert!(b.contains("# Safety"), "{b}");
        // The buffer that can be bounded still is.
        assert!(b.contains("check::buffer(\"rowsum\", \"s\""), "{b}");
    }

    #[test]
    fn pointers_that_escape_or_are_chosen_are_not_bounded() {
        let b = bindings(
            "__kernel void pick(__global float *a, __global float *b, int c)\n\
             { __global float *p = c ? a : b; p[get_global_id(0)] = 1.0f; }",
        );
        assert!(b.contains("pub unsafe fn pick("), "{b}");
        assert!(
            b.contains("- `a`: NOT checked") && b.contains("- `b`: NOT checked"),
            "{b}"
        );
        // Either may be written.
        assert!(b.contains("a: &mut [f32], b: &mut [f32]"), "{b}");
    }

    #[test]
    fn read_only_buffers_without_const_are_shared_slices() {
        let b = bindings(
            "__kernel void copy(__global float *src, __global float *dst)\n\
             { size_t i = get_global_id(0); dst[i] = src[i]; }",
        );
        assert!(b.contains("src: &[f32], dst: &mut [f32]"), "{b}");
        assert!(b.contains("src.as_ptr().cast_mut()"), "{b}");
        assert!(b.contains("src: *mut f32"), "{b}");
    }

    #[test]
    fn structs_vectors_and_keywords_mirror_the_header() {
        let b = bindings(
            "typedef struct { float4 pos; int id; } Particle;\n\
             __kernel void move(__global Particle *in, float2 v, Particle p, uchar on)\n\
             { size_t i = get_global_id(0); if (on) in[i].pos.x += v.x + p.pos.y; }",
        );
        assert!(b.contains("pub struct float4(pub [f32; 4]);"), "{b}");
        assert!(b.contains("#[repr(C, align(16))]"), "{b}");
        assert!(
            b.contains("pub struct Particle {\n        pub pos: float4,\n        pub id: i32,"),
            "{b}"
        );
        assert!(b.contains("size_of::<Particle>() == 32"), "{b}");
        assert!(
            b.contains("pub fn r#move(r#in: &mut [Particle], v: [f32; 2], p: &Particle, on: u8, range: &Range)"),
            "{b}"
        );
    }

    #[test]
    fn clamped_indices_are_checked() {
        let b = bindings(
            "__kernel void k(__global float *o, __global const float *a, int n)\n\
             { int i = get_global_id(0); o[i] = a[min(i + 1, n - 1)] + a[i > 0 ? i - 1 : 0] + a[clamp(i, 0, n - 1)]; }",
        );
        assert!(!b.contains("unsafe fn k"), "{b}");
        assert!(b.contains("min(get_global_id(0) + 1, n - 1)"), "{b}");
        assert!(b.contains("check::min(false, "), "{b}");
    }

    /// The generated checks, compiled by rustc against a stand-in for the
    /// object and run: each error where it belongs, and launches that fit.
    #[test]
    fn the_checks_refuse_exactly_the_launches_that_leave_a_buffer() {
        let b = bindings(
            "__kernel void shift(__global float *o, __global const float *a, int n)\n\
             { int i = get_global_id(0); o[i] = a[i - 1] + a[i * n]; }",
        );
        let main = r#"
mod k { include!("k.rs"); }
use k::{Error, Range};
static mut CALLS: u32 = 0;
#[no_mangle]
pub extern "C" fn shift(_o: *mut f32, _a: *const f32, _n: i32, r: *const k::ffi::lanes_range) -> i32 {
    unsafe { CALLS += 1; if (*r).local_size[0] == 3 { -1 } else { 0 } }
}
fn main() {
    let (mut o, a) = (vec![0.0f32; 5], vec![0.0f32; 5]);
    let at1 = Range::d1(4).with_offset([1, 0, 0]);
    assert!(matches!(k::shift(&mut o, &a, 1, &Range::d1(4)), Err(Error::BeforeStart { buffer: "a", .. })));
    assert_eq!(k::shift(&mut o, &a, 1, &at1), Ok(()));
    assert_eq!(k::shift(&mut o[..4], &a, 1, &at1), Err(Error::TooShort { kernel: "shift", buffer: "o", needed: 5, len: 4 }));
    assert_eq!(k::shift(&mut o, &a[..4], 1, &at1), Err(Error::TooShort { kernel: "shift", buffer: "a", needed: 5, len: 4 }));
    assert_eq!(k::shift(&mut o, &a, i32::MAX, &at1), Err(Error::Overflow { kernel: "shift", buffer: "a" }));
    let mut bad = at1;
    bad.work_dim = 0;
    assert_eq!(k::shift(&mut o, &a, 1, &bad), Err(Error::InvalidRange { kernel: "shift" }));
    assert_eq!(k::shift(&mut o, &a, 1, &at1.with_local_size([3, 1, 1])), Err(Error::InvalidRange { kernel: "shift" }));
    // No work-items, nothing accessed: launched, and the kernel decides.
    assert_eq!(k::shift(&mut [], &[], 1, &Range::d1(0)), Ok(()));
    assert_eq!(unsafe { CALLS }, 3);
    println!("ok");
}
"#;
        let dir = std::env::temp_dir().join(format!("lanes-rust-bindings-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("k.rs"), &b).unwrap();
        std::fs::write(dir.join("main.rs"), main).unwrap();
        let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
        let built = std::process::Command::new(rustc)
            .args(["--edition", "2021", "-o"])
            .arg(dir.join("main"))
            .arg(dir.join("main.rs"))
            .output()
            .unwrap();
        assert!(
            built.status.success(),
            "{}",
            String::from_utf8_lossy(&built.stderr)
        );
        let ran = std::process::Command::new(dir.join("main"))
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            ran.status.success() && ran.stdout == b"ok\n",
            "{}{}",
            String::from_utf8_lossy(&ran.stdout),
            String::from_utf8_lossy(&ran.stderr)
        );
    }

    #[test]
    fn local_buffers_make_the_function_unsafe() {
        let b = bindings(
            "__kernel void rev(__global float *io, __local float *tile)\n\
             { size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);\n\
               tile[l] = io[g]; barrier(CLK_LOCAL_MEM_FENCE); io[g] = tile[n - 1 - l]; }",
        );
        assert!(
            b.contains("pub unsafe fn rev(io: &mut [f32], tile_bytes: usize, range: &Range)"),
            "{b}"
        );
        assert!(
            b.contains("- `tile_bytes`: the size of the `__local` buffer `tile`"),
            "{b}"
        );
        assert!(b.contains("check::buffer(\"rev\", \"io\""), "{b}");
    }

    #[test]
    fn a_parameter_named_range_renames_the_range() {
        let b = bindings(
            "__kernel void k(__global int *o, int range) { o[get_global_id(0)] = range; }",
        );
        assert!(b.contains("range: i32, range_: &Range"), "{b}");
        assert!(b.contains("check::global_id(range_, 0)"), "{b}");
    }
}
