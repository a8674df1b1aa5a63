//! The lanes back end: vector IR to LLVM IR, objects, assembly and C headers.
//! The only crate that links LLVM.
//!
//! [`compile_unit`] lowers, analyses and vectorizes every kernel of a
//! checked unit, emits one LLVM module (per kernel two internal body
//! variants plus the exported entry points of `abi`), optimizes it and
//! keeps it as bitcode inside [`Compiled`]; every emission (object,
//! assembly, JIT) parses that bitcode into a fresh LLVM context, so no
//! LLVM lifetime leaks into the API.
//!
//! ABI (DESIGN §3, one change: vector arguments are passed as a pointer to
//! their components, because by-value aggregates would need the platform C
//! ABI's classification, which LLVM IR leaves to the front end):
//! ```c
//! int k(ARGS, const lanes_range *r);
//! int k_groups(ARGS, const lanes_range *r, size_t first, size_t last);
//! int k__launch(void *const *args, const lanes_range *r, size_t first, size_t last);
//! ```
//! `local_size[d] == 0` chooses `W * min(ceil(global_size[0] / W), 8)`
//! along dimension 0 and 1 along the others.

mod abi;
mod bounds;
mod emit;
mod half;
mod header;
mod interleave;
mod jit;
mod ll;
pub mod math;
mod multi;
mod refuse;
mod rows;
mod rust;
#[cfg(test)]
mod tests;
mod wide_masks;
mod workgroup;

/// The math lowering used by the emitter.
mod math_impl {
    pub use crate::math::call_math;
}

use std::sync::Once;

use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};
use inkwell::OptimizationLevel;

use lanes_frontend::diag::{Code, Diagnostic};
use lanes_frontend::hir;
use lanes_frontend::source::Span;
use lanes_frontend::types::Type;
use lanes_vectorizer::ir::Ty;
use lanes_vectorizer::target::{Isa, Target as LanesTarget};
use lanes_vectorizer::vectorize::VectorFunction;

pub use abi::reads_column_geometry;
pub use abi::MAX_ID_END;
pub use header::{header, multi_target_header};
pub use jit::{Jit, LanesRange, LaunchFn};
pub use multi::{link_targets, MultiTarget, PIN_VARIABLE};
pub use rust::rust_bindings;

pub use interleave::Interleaved;
use ll::Cx;

/// What LLVM needs to generate code for one lanes target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetSpec {
    /// The lanes name (`avx2-i32x8`, ..., or `host`).
    pub name: String,
    /// SIMD width W.
    pub width: u32,
    pub triple: String,
    pub cpu: String,
    pub features: String,
}

fn isa_of(name: &str) -> Option<Isa> {
    LanesTarget::from_name(name).map(|t| t.isa)
}

impl TargetSpec {
    /// AVX-512's `k` registers hold lane masks as bits.
    pub fn has_mask_registers(&self) -> bool {
        self.cpu.contains("avx512") || self.features.contains("+avx512f")
    }

    /// What lowering needs to know about the target: whether it has fused
    /// multiply-add, so that contraction is lowered (`host`: the ISA of
    /// the best target this machine runs).
    pub fn lowering(&self) -> lanes_vectorizer::lower::Options {
        isa_of(&self.name).map(Isa::lowering).unwrap_or_default()
    }
}

/// The target triple for an ISA: the host's when it is the same
/// architecture (so objects link on this OS), else a Linux triple.
fn triple_for(isa: Isa) -> String {
    let host = TargetMachine::get_default_triple();
    let host = host.as_str().to_string_lossy().into_owned();
    let arch_ok = match isa {
        Isa::Neon => host.starts_with("aarch64") || host.starts_with("arm64"),
        _ => host.starts_with("x86_64"),
    };
    if arch_ok {
        host
    } else if isa == Isa::Neon {
        "aarch64-unknown-linux-gnu".into()
    } else {
        "x86_64-unknown-linux-gnu".into()
    }
}

/// The target of a lanes target name (`lanes targets`), or `host`: the
/// best target this machine runs, with the host CPU and its features.
pub fn target_spec(name: &str) -> Result<TargetSpec, String> {
    if name == "host" {
        let t = LanesTarget::host();
        init_llvm();
        return Ok(TargetSpec {
            name: "host".into(),
            width: t.width,
            triple: TargetMachine::get_default_triple()
                .as_str()
                .to_string_lossy()
                .into_owned(),
            cpu: TargetMachine::get_host_cpu_name().to_string(),
            features: TargetMachine::get_host_cpu_features().to_string(),
        });
    }
    let t = LanesTarget::from_name(name).ok_or_else(|| {
        format!(
            "unknown target `{name}`; valid targets: {}",
            LanesTarget::names().join(", ")
        )
    })?;
    let (cpu, features) = match t.isa {
        Isa::Sse4 => ("x86-64-v2", ""),
        // Haswell and later gather fast enough for LLVM to use vpgather.
        Isa::Avx2 => ("x86-64-v3", "+fast-gather"),
        Isa::Avx512Skx => ("skylake-avx512", ""),
        Isa::Neon => ("generic", "+neon"),
    };
    Ok(TargetSpec {
        name: t.name.into(),
        width: t.width,
        triple: triple_for(t.isa),
        cpu: cpu.into(),
        features: features.into(),
    })
}

/// True when this machine can execute code for `spec` (tests, `lanes run`).
pub fn host_can_run(spec: &TargetSpec) -> bool {
    if spec.name == "host" {
        return true;
    }
    let host = TargetMachine::get_default_triple();
    let host = host.as_str().to_string_lossy().into_owned();
    let same_arch = spec.triple.split('-').next() == host.split('-').next();
    same_arch && isa_of(&spec.name).is_some_and(|i| i.runs_here())
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// 0 (no optimization) or 2 (`default<O2>`); other values count as 2.
    pub opt_level: u8,
}

impl Default for Options {
    fn default() -> Options {
        Options { opt_level: 2 }
    }
}

/// How a source parameter is passed.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamKind {
    /// `__global`/`__constant` pointer (`is_const` for `__constant` or a
    /// `const` pointee).
    Pointer { is_const: bool },
    /// A scalar by value (`bool` as one byte).
    Scalar(Ty),
    /// A vector of `n` components, passed as a pointer to them.
    Vector(Ty, u32),
    /// A struct, passed as a pointer to it: the byte offset and register
    /// type of each scalar field, one IR parameter each.
    Struct(Vec<(u64, Ty)>),
    /// A `__local` pointer: the caller passes the size in bytes (`size_t`)
    /// of the `__local` object, as `clSetKernelArg(k, i, size, NULL)` does;
    /// each work-group gets its own object of that size.
    LocalPointer,
}

/// One source parameter of a kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelParam {
    pub name: String,
    /// The source type (for the header); `None` for kernels built without a
    /// source unit.
    pub ty: Option<Type>,
    pub kind: ParamKind,
    /// The IR parameters it becomes (one per vector component).
    pub ir_params: Vec<u32>,
}

/// A kernel ready for code generation.
#[derive(Clone, Debug)]
pub struct KernelCode {
    pub name: String,
    pub span: Span,
    pub vf: VectorFunction,
    pub params: Vec<KernelParam>,
    /// The body for runs of several SIMD groups (`interleave.rs`).
    pub interleaved: Option<Interleaved>,
    /// `__attribute__((reqd_work_group_size(X, Y, Z)))`: launches with
    /// another local size are refused, and the work-group's geometry is
    /// compiled in (docs/codegen.md).
    pub reqd_work_group_size: Option<[u32; 3]>,
}

/// What [`Compiled::kernels`] lists.
pub type KernelInfo = KernelCode;

impl KernelCode {
    /// A kernel from vector IR alone: one source parameter per IR
    /// parameter, except components of one source vector parameter
    /// (`component`), which are grouped.
    pub fn from_vf(vf: VectorFunction) -> KernelCode {
        let mut params: Vec<KernelParam> = Vec::new();
        for (i, p) in vf.func.params.iter().enumerate() {
            let idx = i as u32;
            if p.component.is_some() {
                if let Some(last) = params.last_mut() {
                    if last.name == p.name.as_str() {
                        if let ParamKind::Vector(_, n) = &mut last.kind {
                            *n += 1;
                            last.ir_params.push(idx);
                            continue;
                        }
                    }
                }
                params.push(KernelParam {
                    name: p.name.to_string(),
                    ty: None,
                    kind: ParamKind::Vector(p.ty, 1),
                    ir_params: vec![idx],
                });
                continue;
            }
            let kind = match p.ty {
                Ty::Ptr(lanes_frontend::ast::AddressSpace::Local) => ParamKind::LocalPointer,
                Ty::Ptr(space) => ParamKind::Pointer {
                    is_const: space == lanes_frontend::ast::AddressSpace::Constant,
                },
                t => ParamKind::Scalar(t),
            };
            params.push(KernelParam {
                name: p.name.to_string(),
                ty: None,
                kind,
                ir_params: vec![idx],
            });
        }
        KernelCode {
            name: vf.func.name.to_string(),
            span: vf.func.span,
            vf,
            params,
            interleaved: None,
            reqd_work_group_size: None,
        }
    }
}

/// Lowers, analyses and vectorizes kernel `k` of `unit` for `spec`.
pub fn kernel_code_for(
    unit: &hir::Unit,
    k: hir::FuncId,
    spec: &TargetSpec,
) -> Result<KernelCode, Vec<Diagnostic>> {
    let ka = lanes_vectorizer::report::analyze_kernel_with(unit, k, spec.width, &spec.lowering())?;
    let kc = analysed_kernel_code(unit, k, &ka)?;
    Ok(with_interleaving(kc, unit, k, &ka, spec))
}

/// `kc` with the body for several SIMD groups at once when
/// [`interleave::groups`] chooses it.
fn with_interleaving(
    kc: KernelCode,
    unit: &hir::Unit,
    k: hir::FuncId,
    ka: &lanes_vectorizer::report::KernelAnalysis,
    spec: &TargetSpec,
) -> KernelCode {
    KernelCode {
        interleaved: interleave::plan(unit, k, ka, spec),
        ..kc
    }
}

/// Lowers, analyses and vectorizes kernel `k` of `unit` for width `w` on a
/// target without fused multiply-add.
pub fn kernel_code(
    unit: &hir::Unit,
    k: hir::FuncId,
    width: u32,
) -> Result<KernelCode, Vec<Diagnostic>> {
    let ka = lanes_vectorizer::report::analyze_kernel(unit, k, width)?;
    analysed_kernel_code(unit, k, &ka)
}

/// Vectorizes kernel `k` of `unit` from its analysis (what `lanes build`
/// gets from the one pipeline, lanes-pipeline).
pub fn analysed_kernel_code(
    unit: &hir::Unit,
    k: hir::FuncId,
    ka: &lanes_vectorizer::report::KernelAnalysis,
) -> Result<KernelCode, Vec<Diagnostic>> {
    let hf = unit.function(k);
    // The entry points wait for every SIMD group of a work-group at each
    // barrier: one some of them skip would never be passed. The pipeline
    // reports it with its reason (L0401) before this point.
    if let Some(span) = lanes_vectorizer::report::divergent_barrier(ka) {
        return Err(vec![Diagnostic::new(
            Code::BarrierDivergence,
            span,
            format!(
                "barrier not reached by every work-item of the work-group (kernel `{}`): `lanes check` shows why",
                hf.name
            ),
        )]);
    }
    // The first use, in source order, of anything code generation lacks.
    let refused = [
        refuse::first_image_use(unit, k, &ka.func),
        refuse::first_unsupported(&ka.func),
    ]
    .into_iter()
    .flatten()
    .min_by_key(|d| (d.span.file.0, d.span.start));
    if let Some(d) = refused {
        return Err(vec![d]);
    }
    let vf = lanes_vectorizer::vectorize::vectorize(&ka.func, &ka.cfg, &ka.div).map_err(|e| {
        vec![Diagnostic::new(
            Code::UnsupportedByVectorizer,
            e.span,
            e.message,
        )]
    })?;
    let mut params = Vec::new();
    for (i, &lid) in hf.params.iter().enumerate() {
        let local = hf.local(lid);
        let ir: Vec<(u32, &lanes_vectorizer::ir::Param)> = vf
            .func
            .params
            .iter()
            .enumerate()
            .filter(|(_, p)| p.source_index == i as u32)
            .map(|(j, p)| (j as u32, p))
            .collect();
        let Some(&(_, p0)) = ir.first() else {
            return Err(vec![Diagnostic::new(
                Code::UnsupportedByVectorizer,
                local.span,
                format!("parameter `{}` has no IR parameter", local.name),
            )]);
        };
        let kind = if let Type::Struct(_) = &local.ty {
            let layout =
                lanes_vectorizer::lower::kernel_param_layout(unit, &local.ty).map_err(|m| {
                    vec![Diagnostic::new(
                        Code::UnsupportedByVectorizer,
                        local.span,
                        m,
                    )]
                })?;
            if layout.len() != ir.len() {
                return Err(vec![Diagnostic::new(
                    Code::UnsupportedByVectorizer,
                    local.span,
                    format!("parameter `{}`: field count mismatch", local.name),
                )]);
            }
            ParamKind::Struct(layout)
        } else if p0.component.is_some() {
            ParamKind::Vector(p0.ty, ir.len() as u32)
        } else {
            match (&local.ty, p0.ty) {
                (Type::Pointer(_), Ty::Ptr(lanes_frontend::ast::AddressSpace::Local)) => {
                    ParamKind::LocalPointer
                }
                (Type::Pointer(p), Ty::Ptr(space)) => ParamKind::Pointer {
                    is_const: p.pointee_const
                        || space == lanes_frontend::ast::AddressSpace::Constant,
                },
                (_, t) => ParamKind::Scalar(t),
            }
        };
        params.push(KernelParam {
            name: local.name.to_string(),
            ty: Some(local.ty.clone()),
            kind,
            ir_params: ir.iter().map(|&(j, _)| j).collect(),
        });
    }
    Ok(KernelCode {
        name: hf.name.to_string(),
        span: hf.name_span,
        vf,
        params,
        interleaved: None,
        reqd_work_group_size: hf.attrs.reqd_work_group_size,
    })
}

/// An optimized module for one target.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub spec: TargetSpec,
    pub opts: Options,
    kernels: Vec<KernelCode>,
    bitcode: Vec<u8>,
    ir: String,
    /// The loop statements whose unroll pragma LLVM did not honour, in
    /// source order.
    not_unrolled: Vec<Span>,
}

/// The loop ID property naming the loop statement of an unroll hint that
/// asks for unrolling (file, start, end); see [`unhonoured_unroll`].
pub(crate) const UNROLL_AT: &str = "lanes.unroll.at";

/// The loop statements of unroll hints that LLVM's passes left in place:
/// a loop ID that still asks for unrolling (`llvm.loop.unroll.enable`,
/// `.full` or `.count`) without the `llvm.loop.unroll.disable` LLVM adds
/// to a loop it unrolled (a loop unrolled fully is gone). The same test as
/// LLVM's `WarnMissedTransformationsPass`, whose remark clang prints as
/// `-Wpass-failed`; read from the module because a remark carries no
/// source position without debug information.
fn unhonoured_unroll<'ctx>(ctx: &'ctx Context, module: &Module<'ctx>) -> Vec<Span> {
    use inkwell::values::BasicMetadataValueEnum as M;
    let kind = ctx.get_kind_id("llvm.loop");
    // A property node: its name and its operands (the name first).
    let name = |m: &M<'ctx>| match m {
        M::MetadataValue(p) if p.is_node() => {
            let ops = p.get_node_values()?;
            match ops.first() {
                Some(M::MetadataValue(s)) => Some((s.get_string_value()?.to_vec(), ops)),
                _ => None,
            }
        }
        _ => None,
    };
    let mut out = Vec::new();
    for f in module.get_functions() {
        for b in f.get_basic_blocks() {
            let Some(t) = b.get_terminator() else {
                continue;
            };
            let Some(id) = t.get_metadata(kind) else {
                continue;
            };
            let props: Vec<_> = id
                .get_node_values()
                .unwrap_or_default()
                .iter()
                .skip(1)
                .filter_map(name)
                .collect();
            let has = |p: &str| props.iter().any(|(n, _)| n == p.as_bytes());
            let asks = has("llvm.loop.unroll.enable")
                || has("llvm.loop.unroll.full")
                || has("llvm.loop.unroll.count");
            if !asks || has("llvm.loop.unroll.disable") {
                continue;
            }
            let at = props.iter().find(|(n, _)| n == UNROLL_AT.as_bytes());
            let nums: Vec<u32> = at
                .map(|(_, ops)| {
                    ops.iter()
                        .skip(1)
                        .filter_map(|o| match o {
                            M::IntValue(i) => i.get_zero_extended_constant().map(|v| v as u32),
                            _ => None,
                        })
                        .collect()
                })
                .unwrap_or_default();
            if let [file, start, end] = nums[..] {
                out.push(Span::new(lanes_frontend::source::FileId(file), start, end));
            }
        }
    }
    out.sort_by_key(|s| (s.file.0, s.start, s.end));
    out.dedup();
    out
}

fn init_llvm() {
    static INIT: Once = Once::new();
    INIT.call_once(|| {
        let cfg = InitializationConfig::default();
        Target::initialize_x86(&cfg);
        Target::initialize_aarch64(&cfg);
        // Non-trivial loop unswitching (`UNSWITCH` below) counts the whole
        // loop as its cost; LLVM's default budget (50) is smaller than the
        // loop over SIMD groups around any body with a masked slow path.
        // The budget is process-wide; lanes is the only LLVM user here.
        let args = [c"lanes".as_ptr(), c"-unswitch-threshold=100".as_ptr()];
        unsafe {
            inkwell::llvm_sys::support::LLVMParseCommandLineOptions(
                args.len() as i32,
                args.as_ptr(),
                std::ptr::null(),
            );
        }
    });
}

/// After LLVM's -O2 pipeline, in the entry points of kernels without
/// loops of their own: a branch on a value that is the same in every
/// iteration of the loop over SIMD groups (a 2-D stencil's test of
/// `get_global_id(1)`, uniform across a row) is taken out of the loop,
/// which is copied for each side of it (`simple-loop-unswitch<nontrivial>`,
/// off at -O2), then cleaned up. The other functions are marked `optsize`
/// while it runs, which the pass skips: kernels with loops of their own
/// (gemm, convolutions) would be copied loop by loop.
const UNSWITCH: &str =
    "function(loop-mssa(simple-loop-unswitch<nontrivial>),simplifycfg,instcombine<no-verify-fixpoint>,loop(loop-deletion),simplifycfg)";

/// Runs [`UNSWITCH`] on the `_groups` entry points of `kernels` without
/// loops in their vector IR, and of kernels with barriers: their region
/// loops over SIMD groups test work-group uniform values kept once per
/// work-group (histogram's `k < ITEMS` after its row-order barrier,
/// reduction's `stride > 0`) in every SIMD group's run, which LLVM's
/// -O2 leaves there.
fn unswitch_row_uniform(
    ctx: &Context,
    module: &Module<'_>,
    tm: &TargetMachine,
    kernels: &[KernelCode],
) -> Result<(), String> {
    use inkwell::attributes::{Attribute, AttributeLoc};
    let loop_free: std::collections::HashSet<String> = kernels
        .iter()
        .filter(|k| {
            lanes_vectorizer::cfg::Cfg::compute(&k.vf.func)
                .loops()
                .is_empty()
                || lanes_vectorizer::schedule::Schedule::of(&k.vf).regions() > 1
        })
        .map(|k| format!("{}_groups", k.name))
        .collect();
    if loop_free.is_empty() {
        return Ok(());
    }
    let optsize = Attribute::get_named_enum_kind_id("optsize");
    let mut marked = Vec::new();
    for f in module.get_functions() {
        let name = f.get_name().to_string_lossy();
        if f.count_basic_blocks() == 0
            || loop_free.contains(name.as_ref())
            || f.get_enum_attribute(AttributeLoc::Function, optsize)
                .is_some()
        {
            continue;
        }
        f.add_attribute(
            AttributeLoc::Function,
            ctx.create_enum_attribute(optsize, 0),
        );
        marked.push(f);
    }
    let r = module
        .run_passes(UNSWITCH, tm, PassBuilderOptions::create())
        .map_err(|e| format!("LLVM optimization failed: {e}"));
    for f in marked {
        f.remove_enum_attribute(AttributeLoc::Function, optsize);
    }
    r
}

fn target_machine(spec: &TargetSpec, opt: u8) -> Result<TargetMachine, String> {
    init_llvm();
    let triple = TargetTriple::create(&spec.triple);
    let target = Target::from_triple(&triple).map_err(|e| e.to_string())?;
    let level = if opt == 0 {
        OptimizationLevel::None
    } else {
        OptimizationLevel::Default
    };
    target
        .create_target_machine(
            &triple,
            &spec.cpu,
            &spec.features,
            level,
            // Position independent: objects link into PIE executables and
            // shared libraries.
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| format!("LLVM cannot create a target machine for {}", spec.triple))
}

/// Lowers and vectorizes every kernel of `unit` and compiles them into one
/// module. Errors are `L0920` diagnostics at the kernel (or the offending
/// construct).
pub fn compile_unit(
    unit: &hir::Unit,
    spec: &TargetSpec,
    opts: &Options,
) -> Result<Compiled, Vec<Diagnostic>> {
    let mut kernels = Vec::new();
    let mut diags = Vec::new();
    for k in unit.kernels() {
        match kernel_code_for(unit, k, spec) {
            Ok(kc) => kernels.push(kc),
            Err(d) => diags.extend(d),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    compile_kernels(kernels, spec, opts)
}

/// [`compile_unit`] from analyses already made (every kernel of `unit`, in
/// order, for `spec.width`; `Err` for a kernel the analysis refused).
pub fn compile_analysed<'a>(
    unit: &hir::Unit,
    analysed: impl IntoIterator<
        Item = (
            hir::FuncId,
            Result<&'a lanes_vectorizer::report::KernelAnalysis, Vec<Diagnostic>>,
        ),
    >,
    spec: &TargetSpec,
    opts: &Options,
) -> Result<Compiled, Vec<Diagnostic>> {
    let mut kernels = Vec::new();
    let mut diags = Vec::new();
    for (k, ka) in analysed {
        match ka.and_then(|ka| {
            analysed_kernel_code(unit, k, ka).map(|kc| with_interleaving(kc, unit, k, ka, spec))
        }) {
            Ok(kc) => kernels.push(kc),
            Err(d) => diags.extend(d),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    compile_kernels(kernels, spec, opts)
}

/// Compiles kernels already in vector IR (all for `spec.width`).
pub fn compile_kernels(
    kernels: Vec<KernelCode>,
    spec: &TargetSpec,
    opts: &Options,
) -> Result<Compiled, Vec<Diagnostic>> {
    let at = |k: &KernelCode, m: String| {
        Diagnostic::new(
            Code::UnsupportedByVectorizer,
            k.span,
            format!("code generation for kernel `{}` failed: {m}", k.name),
        )
    };
    let whole = |m: String| {
        let span = kernels.first().map(|k| k.span).unwrap_or_else(|| {
            lanes_frontend::source::Span::new(lanes_frontend::source::FileId(0), 0, 0)
        });
        vec![Diagnostic::new(Code::UnsupportedByVectorizer, span, m)]
    };
    // Exported names must be distinct C identifiers.
    let mut names = std::collections::HashSet::new();
    for k in &kernels {
        for n in [
            k.name.clone(),
            format!("{}_groups", k.name),
            format!("{}__launch", k.name),
        ] {
            if !names.insert(n.clone()) {
                return Err(vec![at(
                    k,
                    format!("the exported symbol `{n}` clashes with another kernel's"),
                )]);
            }
        }
        if k.vf.width != spec.width {
            return Err(vec![at(
                k,
                format!(
                    "vectorized for width {} but the target has width {}",
                    k.vf.width, spec.width
                ),
            )]);
        }
        if let Some(i) = &k.interleaved {
            if i.vf.width != i.groups * spec.width {
                return Err(vec![at(
                    k,
                    format!(
                        "the body for {} SIMD groups is vectorized for width {}",
                        i.groups, i.vf.width
                    ),
                )]);
            }
        }
    }
    if !spec.width.is_power_of_two() || spec.width > 64 {
        return Err(whole(format!("unsupported SIMD width {}", spec.width)));
    }
    let tm = target_machine(spec, opts.opt_level).map_err(&whole)?;
    let ctx = Context::create();
    let module = ctx.create_module("lanes");
    module.set_triple(&tm.get_triple());
    module.set_data_layout(&tm.get_target_data().get_data_layout());
    let builder = ctx.create_builder();
    let cx = Cx {
        ctx: &ctx,
        module: &module,
        b: &builder,
        w: spec.width,
        wide_masks: !spec.has_mask_registers(),
    };
    for k in &kernels {
        emit_kernel(&cx, k).map_err(|m| vec![at(k, m)])?;
    }
    set_target_attributes(&cx, &module, spec);
    module
        .verify()
        .map_err(|e| whole(format!("LLVM rejected the generated module: {e}")))?;
    // Even at -O0 the `alwaysinline` bodies and math helpers are inlined:
    // the entry points stay small and nothing depends on an internal
    // calling convention.
    let passes = if opts.opt_level > 0 {
        "default<O2>"
    } else {
        "always-inline"
    };
    module
        .run_passes(passes, &tm, PassBuilderOptions::create())
        .map_err(|e| whole(format!("LLVM optimization failed: {e}")))?;
    if opts.opt_level > 0 {
        unswitch_row_uniform(&ctx, &module, &tm, &kernels).map_err(&whole)?;
    }
    if cx.wide_masks {
        wide_masks::widen_masks(&cx).map_err(&whole)?;
        module
            .verify()
            .map_err(|e| whole(format!("LLVM rejected the widened masks: {e}")))?;
    }
    let not_unrolled = unhonoured_unroll(&ctx, &module);
    let ir = module.print_to_string().to_string();
    let bitcode = module.write_bitcode_to_memory().as_slice().to_vec();
    Ok(Compiled {
        spec: spec.clone(),
        opts: opts.clone(),
        kernels,
        bitcode,
        ir,
        not_unrolled,
    })
}

fn emit_kernel(cx: &Cx<'_, '_>, k: &KernelCode) -> Result<(), String> {
    // The emitter relies on well-formed IR (ids in range, types, dominance).
    lanes_vectorizer::ir::verify::verify(&k.vf.func).map_err(|e| {
        format!(
            "malformed vector IR: {}",
            e.into_iter().take(3).collect::<Vec<_>>().join("; ")
        )
    })?;
    let f = &k.vf.func;
    if k.vf.block_mask.len() != f.blocks.len() || k.vf.mask_nonempty.len() != f.blocks.len() {
        return Err("malformed vector IR: not one mask per block".into());
    }
    for &m in &k.vf.block_mask {
        if f.values.get(m.index()).map(|v| v.ty) != Some(Ty::I1) {
            return Err(format!(
                "malformed vector IR: block mask %{} is not an i1 value",
                m.0
            ));
        }
    }
    let schedule = lanes_vectorizer::schedule::Schedule::of(&k.vf);
    let plan = schedule
        .work_group_memory
        .then(|| workgroup::Plan::compute(&k.vf, &schedule, cx.w));
    // A body with barriers is emitted resumable for work-groups of several
    // SIMD groups and straight for a work-group of one, as far as the
    // required work-group size leaves either possible.
    let one = k.reqd_work_group_size.map(|r| abi::one_simd_group(r, cx.w));
    let body = |suffix: &str, full: bool, one_group: bool| {
        let name = format!("{}.body_{suffix}", k.name);
        emit::emit_body(cx, &k.vf, &name, full, plan.as_ref(), one_group)
    };
    let mut bodies = abi::Bodies::default();
    if plan.is_none() || one != Some(true) {
        bodies.several = Some((body("full", true, false)?, body("part", false, false)?));
    }
    if plan.is_some() && one != Some(false) {
        bodies.one = Some((
            body("one_full", true, true)?,
            body("one_part", false, true)?,
        ));
    }
    // Bodies with barriers wait for each SIMD group: never interleaved.
    bodies.wide = match (&k.interleaved, &plan) {
        (Some(i), None) => {
            let wcx = Cx {
                w: cx.w * i.groups,
                ..*cx
            };
            let name = format!("{}.body_groups{}", k.name, i.groups);
            let body = emit::emit_body(&wcx, &i.vf, &name, true, None, false)?;
            abi::add_fn_attr(cx, body, "alwaysinline");
            if let Some(rvf) = &i.rows_vf {
                let name = format!("{}.body_groups{}_rows{}", k.name, i.groups, i.rows);
                let rbody = emit::emit_body(&wcx, rvf, &name, true, None, false)?;
                abi::mark_row_bail(cx, rbody, rvf.func.params.len() as u32)?;
                // Called, not inlined: a row body exists for a loop bound by
                // its chains, and inside the entry's loops over column runs
                // and rows LLVM ran out of registers for that loop (gemm's k
                // loop recomputed B's address with an `imul` and reloaded a
                // row's offset from the stack: 26 instructions per k instead
                // of 18). One call per R rows x G' groups x the loop's trip.
                abi::add_fn_attr(cx, rbody, "noinline");
                bodies.rows = Some((rbody, u64::from(i.rows)));
            }
            Some((body, u64::from(i.groups)))
        }
        _ => None,
    };
    abi::emit_entry_points(cx, k, &bodies, &schedule, plan.as_ref())?;
    for (full, part) in bodies.several.iter().chain(&bodies.one) {
        abi::add_fn_attr(cx, *full, "alwaysinline");
        abi::add_fn_attr(cx, *part, "alwaysinline");
    }
    Ok(())
}

/// Every function defined in the module (ours and the math library's)
/// gets the target's CPU and features, so that calls between them agree on
/// how vectors are passed and MCJIT generates the object's code.
fn set_target_attributes(cx: &Cx<'_, '_>, module: &Module<'_>, spec: &TargetSpec) {
    use inkwell::attributes::AttributeLoc;
    let cpu = cx.ctx.create_string_attribute("target-cpu", &spec.cpu);
    let feats = cx
        .ctx
        .create_string_attribute("target-features", &spec.features);
    let mut f = module.get_first_function();
    while let Some(func) = f {
        if func.count_basic_blocks() > 0 {
            if !spec.cpu.is_empty() {
                func.add_attribute(AttributeLoc::Function, cpu);
            }
            if !spec.features.is_empty() {
                func.add_attribute(AttributeLoc::Function, feats);
            }
            abi::add_fn_attr(cx, func, "nounwind");
        }
        f = func.get_next_function();
    }
}

impl Compiled {
    /// What the build has to say about the source: L0103 for each loop
    /// whose unroll pragma LLVM did not honour (clang's `-Wpass-failed`).
    pub fn warnings(&self) -> Vec<Diagnostic> {
        self.not_unrolled
            .iter()
            .map(|&at| {
                Diagnostic::new(
                    Code::UnrollNotHonoured,
                    at,
                    format!(
                        "loop not unrolled: LLVM could not unroll it as its pragma asks at -O{} (the trip count may not be a constant, or the unrolled loop would be too large); the pragma is ignored",
                        self.opts.opt_level
                    ),
                )
            })
            .collect()
    }

    fn with_module<T>(
        &self,
        f: impl for<'ctx> FnOnce(&'ctx Context, Module<'ctx>) -> Result<T, String>,
    ) -> Result<T, String> {
        let ctx = Context::create();
        let buf = MemoryBuffer::create_from_memory_range_copy(&self.bitcode, "lanes");
        let module = Module::parse_bitcode_from_buffer(&buf, &ctx).map_err(|e| e.to_string())?;
        f(&ctx, module)
    }

    fn emit(&self, ft: FileType) -> Result<Vec<u8>, String> {
        let tm = target_machine(&self.spec, self.opts.opt_level)?;
        self.with_module(|_, m| {
            tm.write_to_memory_buffer(&m, ft)
                .map(|b| b.as_slice().to_vec())
                .map_err(|e| e.to_string())
        })
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

    /// The optimized LLVM IR as text.
    pub fn llvm_ir(&self) -> String {
        self.ir.clone()
    }

    pub fn kernels(&self) -> &[KernelInfo] {
        &self.kernels
    }

    /// Functions the object calls but does not define (from the optimized
    /// IR; `llvm.mem*` intrinsics count as the C library's `mem*`). Empty
    /// for self-contained objects.
    /// C library functions the object calls: LLVM lowers a few intrinsics
    /// to calls where the CPU has no instruction (fused multiply-add
    /// before AVX2). Empty on the targets with FMA.
    pub fn libm_symbols(&self) -> Vec<String> {
        let mut needed: Vec<String> = self
            .external_symbols()
            .into_iter()
            // The C library's memory functions: every C program has them.
            .filter(|s| !s.starts_with("mem") && s != "aligned_alloc" && s != "free")
            .collect();
        let no_fma = self.spec.cpu == "x86-64-v2" && !self.spec.features.contains("fma");
        if no_fma && (self.ir.contains("@llvm.fma.f32") || self.ir.contains("x float> @llvm.fma.v"))
        {
            needed.push("fmaf".into());
        }
        if no_fma
            && (self.ir.contains("@llvm.fma.f64") || self.ir.contains("x double> @llvm.fma.v"))
        {
            needed.push("fma".into());
        }
        needed.dedup();
        needed
    }

    pub fn external_symbols(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for line in self.ir.lines().filter(|l| l.starts_with("declare ")) {
            let Some(at) = line.find('@') else { continue };
            let name: String = line[at + 1..].chars().take_while(|&c| c != '(').collect();
            let name = match name.strip_prefix("llvm.") {
                Some(rest) => match ["memset", "memcpy", "memmove"]
                    .into_iter()
                    .find(|m| rest.starts_with(m))
                {
                    Some(m) => m.to_string(),
                    None => continue,
                },
                None => name,
            };
            if !out.contains(&name) {
                out.push(name);
            }
        }
        out
    }

    pub(crate) fn bitcode(&self) -> &[u8] {
        &self.bitcode
    }
}

/// Writes `bytes` to `path` through a temporary file next to it and a
/// rename, so that no reader (a build system, an editor) ever sees half an
/// object or header, and nothing is left behind on an error.
pub fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
