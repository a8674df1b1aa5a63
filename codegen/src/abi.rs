//! The exported entry points of a kernel (DESIGN §3):
//!
//! ```c
//! int k(ARGS, const lanes_range *r);
//! int k_groups(ARGS, const lanes_range *r, size_t first, size_t last);
//! int k__launch(void *const *args, const lanes_range *r, size_t first, size_t last);
//! ```
//!
//! `k_groups` validates the range, then walks the work-groups
//! `[first, last)` (clamped to the number of groups) in linear order, and
//! in each group its SIMD groups of W work-items along dimension 0, column
//! block by column block, each through all rows (local ids 1 and 2), or
//! row by row; a kernel without barriers, loops and work-group memory
//! walks bands of work-groups (the same group ids 1 and 2) global row by
//! global row instead (`bands` below). The body's full variant runs
//! whole SIMD groups, its partial variant (lane mask from the row
//! remainder) the last column block. A work-group of one
//! SIMD group runs the straight body variants once instead; a kernel's
//! `reqd_work_group_size` is checked against the launch and compiled in.

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::llvm_sys::{LLVMIntPredicate as IP, LLVMOpcode as Op};
use inkwell::module::Linkage;
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue};
use inkwell::AddressSpace as LlvmSpace;

use lanes_vectorizer::ir::Ty;
use lanes_vectorizer::schedule::{Schedule, SimdGroupOrder};

use crate::emit::{geo, llty};
use crate::ll::{Cx, R};
use crate::workgroup::{Plan, ALIGN};
use crate::{KernelCode, ParamKind};

/// Byte offsets of the fields of `lanes_range` (LP64: `uint32_t` then
/// three `size_t[3]` arrays).
const R_WORK_DIM: u64 = 0;
const R_OFFSET: u64 = 8;
const R_GLOBAL: u64 = 32;
const R_LOCAL: u64 = 56;

/// Largest number of SIMD groups per row when the local size is chosen.
pub const CHOSEN_GROUPS_PER_ROW: u64 = 8;

/// Work-group memory (save areas and `__local` objects) up to this many
/// bytes lives on the stack of the `k_groups` call; more is allocated with
/// `aligned_alloc` once per call.
pub const STACK_WORK_GROUP_BYTES: u64 = 128 * 1024;

/// A range is refused (-1) where `global_offset[d] + global_size[d]`
/// exceeds this along a dimension it uses: every global id fits in an
/// `int`, as the shape analysis, the precondition encoding (launch facts)
/// and the back end's `(int)get_global_id(d)` (the 64-bit id itself)
/// assume.
pub const MAX_ID_END: u64 = 1 << 31;

/// `k_groups` returns this when work-group memory cannot be allocated.
pub const OUT_OF_MEMORY: i64 = -2;

/// `k_groups` returns this when the local size differs from the kernel's
/// `reqd_work_group_size` (OpenCL's `CL_INVALID_WORK_GROUP_SIZE`).
pub const WRONG_WORK_GROUP_SIZE: i64 = -3;

/// True when a work-group of `size` work-items is one SIMD group of `w`
/// lanes (dimension 0 fits in one, no other rows).
pub fn one_simd_group(size: [u32; 3], w: u32) -> bool {
    size[0] <= w && size[1] == 1 && size[2] == 1
}

/// The body variants of a kernel, each as (full SIMD group, partial SIMD
/// group): `several` runs work-groups of several SIMD groups (resumable at
/// barriers when the kernel has a work-group plan), `one` work-groups of
/// one SIMD group (only for kernels with a plan). A kernel whose
/// `reqd_work_group_size` settles which one it needs has only that one.
#[derive(Default)]
pub struct Bodies<'ctx> {
    pub several: Option<(FunctionValue<'ctx>, FunctionValue<'ctx>)>,
    pub one: Option<(FunctionValue<'ctx>, FunctionValue<'ctx>)>,
    /// A body for runs of whole SIMD groups and how many it runs (see
    /// [`crate::interleave`]).
    pub wide: Option<(FunctionValue<'ctx>, u64)>,
    /// The body for R rows of `wide`'s runs and R (see [`crate::rows`]).
    pub rows: Option<(FunctionValue<'ctx>, u64)>,
}

/// Makes row body `f` (with `nparams` IR parameters, then the context)
/// set the context's bail slot in its bail blocks (if it has any) before
/// it returns.
pub fn mark_row_bail<'ctx>(cx: &Cx<'_, 'ctx>, f: FunctionValue<'ctx>, nparams: u32) -> R<()> {
    let ctxp: BasicValueEnum = f.get_nth_param(nparams).ok_or("row body without context")?;
    for bb in f.get_basic_blocks() {
        let name = bb.get_name().to_string_lossy().into_owned();
        if !name.starts_with(crate::rows::BAIL_LABEL) {
            continue;
        }
        let Some(t) = bb.get_terminator() else {
            continue;
        };
        cx.b.position_before(&t);
        let q = cx.gep_bytes(ctxp, cx.i64c(8 * u64::from(geo::ROWS_BAIL)))?;
        cx.store(q, cx.i64c(1), 8)?;
    }
    Ok(())
}

fn be<T>(r: Result<T, inkwell::builder::BuilderError>) -> R<T> {
    r.map_err(|e| format!("{e:?}"))
}

/// The LLVM type a source parameter has in the C signature.
fn abi_type<'ctx>(cx: &Cx<'_, 'ctx>, kind: &ParamKind) -> R<BasicTypeEnum<'ctx>> {
    Ok(match kind {
        ParamKind::Pointer { .. } | ParamKind::Vector(..) | ParamKind::Struct(_) => {
            cx.ctx.ptr_type(LlvmSpace::default()).into()
        }
        ParamKind::Scalar(Ty::I1) => cx.ctx.i8_type().into(),
        ParamKind::Scalar(t) => llty(cx, *t, false)?,
        ParamKind::LocalPointer => cx.ctx.i64_type().into(),
    })
}

pub fn add_fn_attr(cx: &Cx<'_, '_>, f: FunctionValue<'_>, name: &str) {
    let id = Attribute::get_named_enum_kind_id(name);
    f.add_attribute(AttributeLoc::Function, cx.ctx.create_enum_attribute(id, 0));
}

/// Emits `k`, `k_groups` and `k__launch` for a kernel with `bodies`
/// (work-group bodies when `plan` is given: see [`crate::workgroup`]).
pub fn emit_entry_points<'ctx>(
    cx: &Cx<'_, 'ctx>,
    kc: &KernelCode,
    bodies: &Bodies<'ctx>,
    schedule: &Schedule,
    plan: Option<&Plan>,
) -> R<Vec<FunctionValue<'ctx>>> {
    let ptr = cx.ctx.ptr_type(LlvmSpace::default());
    let i64t = cx.ctx.i64_type();
    let i32t = cx.ctx.i32_type();
    let mut arg_tys: Vec<BasicTypeEnum> = Vec::new();
    for p in &kc.params {
        arg_tys.push(abi_type(cx, &p.kind)?);
    }
    let meta = |extra: &[BasicTypeEnum<'ctx>]| -> Vec<BasicMetadataTypeEnum<'ctx>> {
        arg_tys
            .iter()
            .chain(extra)
            .map(|&t| t.into())
            .collect::<Vec<_>>()
    };

    // ---- k_groups -----------------------------------------------------
    let groups_ty = i32t.fn_type(&meta(&[ptr.into(), i64t.into(), i64t.into()]), false);
    let groups = cx.module.add_function(
        &format!("{}_groups", kc.name),
        groups_ty,
        Some(Linkage::External),
    );
    // One copy, called by `k` and `k__launch`.
    add_fn_attr(cx, groups, "noinline");
    let n = kc.params.len() as u32;
    let param = |i: u32| -> R<BasicValueEnum<'ctx>> {
        groups
            .get_nth_param(i)
            .ok_or_else(|| format!("missing parameter {i}"))
    };
    let entry = cx.ctx.append_basic_block(groups, "entry");
    cx.b.position_at_end(entry);
    let r = param(n)?;
    let first = param(n + 1)?;
    let last = param(n + 2)?;

    // The body's IR arguments from the C arguments.
    let mut ir_args: Vec<Option<BasicValueEnum>> = vec![None; kc.vf.func.params.len()];
    for (i, p) in kc.params.iter().enumerate() {
        let a = param(i as u32)?;
        match &p.kind {
            ParamKind::Pointer { .. } => set_ir(&mut ir_args, &p.ir_params, 0, a)?,
            // Set once the work-group memory is placed.
            ParamKind::LocalPointer => {}
            ParamKind::Scalar(Ty::I1) => {
                let z = cx.ctx.i8_type().const_zero().into();
                let b = cx.icmp(IP::LLVMIntNE, a, z)?;
                set_ir(&mut ir_args, &p.ir_params, 0, b)?
            }
            ParamKind::Scalar(_) => set_ir(&mut ir_args, &p.ir_params, 0, a)?,
            ParamKind::Vector(t, count) => {
                // A pointer to the components, packed.
                let mt = if *t == Ty::I1 { Ty::I8 } else { *t };
                let lt = llty(cx, mt, false)?;
                for c in 0..*count {
                    let q = cx.gep_bytes(a, cx.i64c(c as u64 * mt.bytes()))?;
                    let mut v = cx.load(lt, q, mt.bytes().max(1) as u32)?;
                    if *t == Ty::I1 {
                        let z = cx.ctx.i8_type().const_zero().into();
                        v = cx.icmp(IP::LLVMIntNE, v, z)?;
                    }
                    set_ir(&mut ir_args, &p.ir_params, c as usize, v)?;
                }
            }
            ParamKind::Struct(fields) => {
                // A pointer to the struct: load each scalar field.
                for (c, &(off, t)) in fields.iter().enumerate() {
                    let mt = if t == Ty::I1 { Ty::I8 } else { t };
                    let lt = llty(cx, mt, false)?;
                    let q = cx.gep_bytes(a, cx.i64c(off))?;
                    let mut v = cx.load(lt, q, mt.bytes().max(1) as u32)?;
                    if t == Ty::I1 {
                        let z = cx.ctx.i8_type().const_zero().into();
                        v = cx.icmp(IP::LLVMIntNE, v, z)?;
                    }
                    set_ir(&mut ir_args, &p.ir_params, c, v)?;
                }
            }
        }
    }
    // Range validation.
    let field = |off: u64, t: BasicTypeEnum<'ctx>| -> R<BasicValueEnum<'ctx>> {
        let q = cx.gep_bytes(r, cx.i64c(off))?;
        cx.load(t, q, if off == 0 { 4 } else { 8 })
    };
    let wd = field(R_WORK_DIM, i32t.into())?;
    let wd_m1 = cx.binop(Op::LLVMSub, wd, cx.i32c(1))?;
    let mut bad = cx.icmp(IP::LLVMIntUGE, wd_m1, cx.i32c(3))?;
    let mut gs = Vec::new();
    let mut off = Vec::new();
    let mut ls_raw = Vec::new();
    let mut total = cx.i64c(1);
    for d in 0..3u64 {
        let used = cx.icmp(IP::LLVMIntUGT, wd, cx.i32c(d))?;
        let g = field(R_GLOBAL + 8 * d, i64t.into())?;
        let g = cx.select(used, g, cx.i64c(1))?;
        let o = field(R_OFFSET + 8 * d, i64t.into())?;
        let o = cx.select(used, o, cx.i64c(0))?;
        let l = field(R_LOCAL + 8 * d, i64t.into())?;
        let l = cx.select(used, l, cx.i64c(1))?;
        let zero = cx.icmp(IP::LLVMIntEQ, g, cx.i64c(0))?;
        bad = cx.binop(Op::LLVMOr, bad, zero)?;
        let end = cx.binop(Op::LLVMAdd, o, g)?;
        let wraps = cx.icmp(IP::LLVMIntULT, end, o)?;
        bad = cx.binop(Op::LLVMOr, bad, wraps)?;
        // Ids stay below 2^31 (`MAX_ID_END`): the analyses, the
        // preconditions and the `(int)get_global_id(d)` lowering assume it.
        let beyond = cx.icmp(IP::LLVMIntUGT, end, cx.i64c(MAX_ID_END))?;
        bad = cx.binop(Op::LLVMOr, bad, beyond)?;
        let prod = cx.intrinsic("llvm.umul.with.overflow", &[i64t.into()], &[total, g])?;
        let sv = prod.into_struct_value();
        total = be(cx.b.build_extract_value(sv, 0, ""))?;
        let ovf = be(cx.b.build_extract_value(sv, 1, ""))?;
        bad = cx.binop(Op::LLVMOr, bad, ovf)?;
        gs.push(g);
        off.push(o);
        ls_raw.push(l);
    }
    let ok_bb = cx.ctx.append_basic_block(groups, "ok");
    let bad_bb = cx.ctx.append_basic_block(groups, "bad");
    be(cx
        .b
        .build_conditional_branch(bad.into_int_value(), bad_bb, ok_bb))?;
    cx.b.position_at_end(bad_bb);
    be(cx.b.build_return(Some(&i32t.const_int(u64::MAX, true))))?;

    cx.b.position_at_end(ok_bb);
    let w = cx.w as u64;
    let wc = cx.i64c(w);
    // Local sizes: 0 means "choose": W * min(ceil(global0 / W), 8) along
    // dimension 0 (a multiple of W), 1 along the others.
    let mut ls = Vec::new();
    for (d, &raw) in ls_raw.iter().enumerate() {
        let chosen = if d == 0 {
            let s = cx.binop(Op::LLVMUDiv, gs[0], wc)?;
            let rem = cx.binop(Op::LLVMURem, gs[0], wc)?;
            let has_rem = cx.icmp(IP::LLVMIntNE, rem, cx.i64c(0))?;
            let has_rem = cx.cast(Op::LLVMZExt, has_rem, i64t.into())?;
            let chunks = cx.binop(Op::LLVMAdd, s, has_rem)?;
            let chunks = cx.intrinsic(
                "llvm.umin",
                &[i64t.into()],
                &[chunks, cx.i64c(CHOSEN_GROUPS_PER_ROW)],
            )?;
            cx.binop(Op::LLVMMul, chunks, wc)?
        } else {
            cx.i64c(1)
        };
        let is0 = cx.icmp(IP::LLVMIntEQ, raw, cx.i64c(0))?;
        ls.push(cx.select(is0, chosen, raw)?);
    }
    // A required work-group size is the local size (also when the caller
    // leaves it to lanes); any other is refused.
    if let Some(reqd) = kc.reqd_work_group_size {
        let mut wrong = cx.boolc(false);
        for (d, &raw) in ls_raw.iter().enumerate() {
            let given = cx.icmp(IP::LLVMIntNE, raw, cx.i64c(0))?;
            let other = cx.icmp(IP::LLVMIntNE, raw, cx.i64c(reqd[d] as u64))?;
            let both = cx.binop(Op::LLVMAnd, given, other)?;
            wrong = cx.binop(Op::LLVMOr, wrong, both)?;
            ls[d] = cx.i64c(reqd[d] as u64);
        }
        return_if(cx, groups, wrong, WRONG_WORK_GROUP_SIZE)?;
    }
    let mut ng = Vec::new();
    for d in 0..3 {
        let q = cx.binop(Op::LLVMUDiv, gs[d], ls[d])?;
        let rem = cx.binop(Op::LLVMURem, gs[d], ls[d])?;
        let has_rem = cx.icmp(IP::LLVMIntNE, rem, cx.i64c(0))?;
        let has_rem = cx.cast(Op::LLVMZExt, has_rem, i64t.into())?;
        ng.push(cx.binop(Op::LLVMAdd, q, has_rem)?);
    }
    let ctx_ty = i64t.array_type(geo::COUNT);
    // The context lives in the entry block (one slot for the whole call).
    let ctxp: BasicValueEnum = {
        let here = cx.b.get_insert_block();
        match entry.get_first_instruction() {
            Some(i) => cx.b.position_before(&i),
            None => cx.b.position_at_end(entry),
        }
        let p = be(cx.b.build_alloca(ctx_ty, "ctx"))?;
        if let Some(h) = here {
            cx.b.position_at_end(h);
        }
        p.into()
    };
    let put = |k: u32, v: BasicValueEnum<'ctx>| -> R<()> {
        let q = cx.gep_bytes(ctxp, cx.i64c(8 * k as u64))?;
        cx.store(q, v, 8)
    };
    // Whether a body set the context flag `k` (`geo::ROWS_BAIL`,
    // `geo::IDLE_TAIL`).
    let raised = |k: u32| -> R<BasicValueEnum<'ctx>> {
        let q = cx.gep_bytes(ctxp, cx.i64c(8 * k as u64))?;
        let flag = cx.load(i64t.into(), q, 8)?;
        cx.icmp(IP::LLVMIntNE, flag, cx.i64c(0))
    };
    let wd64 = cx.cast(Op::LLVMZExt, wd, i64t.into())?;
    put(geo::WORK_DIM, wd64)?;
    for d in 0..3u32 {
        put(geo::OFF + d, off[d as usize])?;
        put(geo::GLOBAL + d, gs[d as usize])?;
        put(geo::LOCAL + d, ls[d as usize])?;
        put(geo::NUM_GROUPS + d, ng[d as usize])?;
    }
    let ngroups = cx.binop(Op::LLVMMul, ng[0], ng[1])?;
    let ngroups = cx.binop(Op::LLVMMul, ngroups, ng[2])?;
    let last = cx.intrinsic("llvm.umin", &[i64t.into()], &[last, ngroups])?;

    // Work-groups of one SIMD group keep nothing in a save area.
    let save_bytes = match (plan, bodies.several) {
        (Some(p), Some(_)) => p.save_bytes,
        _ => 0,
    };
    let wg = match plan {
        Some(plan) => Some(work_group_memory(
            cx,
            (groups, entry),
            kc,
            plan,
            save_bytes,
            &gs,
            &ls,
            &mut ir_args,
        )?),
        None => None,
    };
    let ir_args: Vec<BasicValueEnum> = ir_args
        .into_iter()
        .enumerate()
        .map(|(i, a)| a.ok_or_else(|| format!("IR parameter {i} has no source argument")))
        .collect::<R<_>>()?;
    // A body with barriers runs in passes over the SIMD groups of a
    // work-group: `state` is where each pass starts, `next` where the SIMD
    // groups stopped (the same for all: barriers are work-group uniform),
    // `turn` the SIMD group's index in the work-group (its save area).
    let slot = |t: BasicTypeEnum<'ctx>, name: &str| -> R<BasicValueEnum<'ctx>> {
        let here = cx.b.get_insert_block();
        match entry.get_first_instruction() {
            Some(i) => cx.b.position_before(&i),
            None => cx.b.position_at_end(entry),
        }
        let p = be(cx.b.build_alloca(t, name))?;
        if let Some(h) = here {
            cx.b.position_at_end(h);
        }
        Ok(p.into())
    };
    let state = slot(i32t.into(), "state")?;
    let states = plan.map_or(1, |p| p.states.max(1)) as u64;
    for &f in bodies.several.iter().flat_map(|(a, b)| [a, b]) {
        if plan.is_some() && resume_points(f) + 1 != states {
            return Err(format!(
                "work-group body `{}` has {} resume points, the plan {}",
                kc.name,
                resume_points(f),
                states - 1
            ));
        }
    }
    let next = slot(i32t.into(), "next")?;
    let turn = slot(i64t.into(), "turn")?;
    // The values kept once per work-group (the schedule's `shared`):
    // `shared` holds them between regions, `work` is the copy a SIMD group
    // runs with (copied in before each turn, back after a region's last),
    // so every SIMD group of a region starts from the values the region
    // started with. Both are objects of this frame that only the inlined
    // bodies reach: LLVM keeps them in registers across the region loops.
    let shared_bytes = match (plan, bodies.several) {
        (Some(p), Some(_)) => p.shared_bytes,
        _ => 0,
    };
    let shared_ty = i64t.array_type((shared_bytes / 8).max(1) as u32);
    let shared = slot(shared_ty.into(), "shared")?;
    let work = slot(shared_ty.into(), "work")?;
    for p in [shared, work] {
        if let Some(i) = p.into_pointer_value().as_instruction() {
            i.set_alignment(crate::workgroup::ALIGN as u32)
                .map_err(|e| e.to_string())?;
        }
    }
    let copy_shared = |to: BasicValueEnum<'ctx>, from: BasicValueEnum<'ctx>| -> R<()> {
        if shared_bytes > 0 {
            let a = crate::workgroup::ALIGN as u32;
            be(cx.b.build_memcpy(
                to.into_pointer_value(),
                a,
                from.into_pointer_value(),
                a,
                i64t.const_int(shared_bytes, false),
            ))?;
        }
        Ok(())
    };

    // `k`: the state the SIMD groups resume in, a constant in each pass
    // loop (see below).
    let call = |f: FunctionValue<'ctx>, k: u64| -> R<()> {
        let mut a: Vec<BasicMetadataValueEnum> = ir_args.iter().map(|&x| x.into()).collect();
        a.push(ctxp.into());
        let Some(wg) = &wg else {
            be(cx.b.build_call(f, &a, ""))?;
            return Ok(());
        };
        let t = cx.load(i64t.into(), turn, 8)?;
        let off = cx.binop(Op::LLVMMul, t, cx.i64c(save_bytes))?;
        a.push(cx.gep_bytes(wg.base, off)?.into());
        a.push(wg.local.into());
        a.push(wg.scratch.into());
        copy_shared(work, shared)?;
        a.push(work.into());
        a.push(cx.i32c(k).into());
        let r = be(cx.b.build_call(f, &a, ""))?
            .try_as_basic_value()
            .basic()
            .ok_or("work-group body returns void")?;
        cx.store(next, r, 4)?;
        let t1 = cx.binop(Op::LLVMAdd, t, cx.i64c(1))?;
        cx.store(turn, t1, 8)
    };
    // Idle tails (`lanes_vectorizer::idle_tail`): once a SIMD group
    // reports that it and every later one have nothing to do in the
    // region, the later ones only take over the region's kept values from
    // it, all at once, and the pass ends (`idle_src`: its index, or none;
    // `sg_total`: the SIMD groups of the work-group, set per pass).
    let tails = match (plan, bodies.wide) {
        (Some(_), None) => lanes_vectorizer::idle_tail::IdleTails::of(&kc.vf, schedule),
        _ => Default::default(),
    };
    let idle_src = slot(i64t.into(), "idle_src")?;
    let sg_total = slot(i64t.into(), "sg_total")?;
    put(geo::IDLE_TAIL, cx.i64c(0))?;
    let none = cx.i64c(u64::MAX);
    let call_in_pass = |f: FunctionValue<'ctx>, k: u64| -> R<()> {
        let (Some(copies), Some(wg), Some(plan)) = (
            tails.copies.get(k as usize).and_then(Option::as_ref),
            &wg,
            plan,
        ) else {
            return call(f, k);
        };
        let src = cx.load(i64t.into(), idle_src, 8)?;
        let running = cx.icmp(IP::LLVMIntEQ, src, none)?;
        if_then_else(
            cx,
            groups,
            running,
            || {
                let t = cx.load(i64t.into(), turn, 8)?;
                call(f, k)?;
                let found = raised(geo::IDLE_TAIL)?;
                if_then_else(
                    cx,
                    groups,
                    found,
                    || {
                        cx.store(idle_src, t, 8)?;
                        let from = cx.binop(Op::LLVMMul, t, cx.i64c(save_bytes))?;
                        let mut vals = Vec::new();
                        // Only values kept per SIMD group need copying.
                        for v in copies {
                            let Some(&off) = plan.spills.get(v) else {
                                continue;
                            };
                            let ty = crate::emit::llty(cx, kc.vf.func.ty(*v), false)?;
                            let a = cx.binop(Op::LLVMAdd, from, cx.i64c(off))?;
                            vals.push((off, cx.load(ty, cx.gep_bytes(wg.base, a)?, 1)?));
                        }
                        let t1 = cx.binop(Op::LLVMAdd, t, cx.i64c(1))?;
                        let n = cx.load(i64t.into(), sg_total, 8)?;
                        for_range(cx, groups, t1, n, |j| {
                            let to = cx.binop(Op::LLVMMul, j, cx.i64c(save_bytes))?;
                            for &(off, x) in &vals {
                                let b = cx.binop(Op::LLVMAdd, to, cx.i64c(off))?;
                                cx.store(cx.gep_bytes(wg.base, b)?, x, 1)?;
                            }
                            Ok(())
                        })
                    },
                    || Ok(()),
                )
            },
            || Ok(()),
        )
    };
    // Whether the pass goes on to the next SIMD group (not past an idle
    // tail).
    cx.store(idle_src, none, 8)?;
    let pass_goes_on = || -> R<BasicValueEnum<'ctx>> {
        if !tails.any() {
            return Ok(cx.boolc(true));
        }
        let src = cx.load(i64t.into(), idle_src, 8)?;
        cx.icmp(IP::LLVMIntEQ, src, none)
    };
    // Every work-group of the launch is one SIMD group (the last one is
    // never larger than the others).
    let one_launch = {
        let x = cx.icmp(IP::LLVMIntULE, ls[0], wc)?;
        let y = cx.icmp(IP::LLVMIntEQ, ls[1], cx.i64c(1))?;
        let z = cx.icmp(IP::LLVMIntEQ, ls[2], cx.i64c(1))?;
        let yz = cx.binop(Op::LLVMAnd, y, z)?;
        cx.binop(Op::LLVMAnd, x, yz)?
    };
    // The schedule's order of the SIMD groups; `Longer` picks one of the
    // two per work-group (the longer loop innermost).
    let row_by_row = schedule.order == SimdGroupOrder::Rows;
    let longer = schedule.order == SimdGroupOrder::Longer;
    // The SIMD groups of one row of `size0` work-items, left to right:
    // runs of several in one body first, then one at a time, then the
    // partial group at the end of the row. `each(x, lanes, f)` runs body
    // `f` at local column `x`.
    let row_of = |size0: BasicValueEnum<'ctx>,
                  (full, part): (FunctionValue<'ctx>, FunctionValue<'ctx>),
                  each: &dyn Fn(
        BasicValueEnum<'ctx>,
        BasicValueEnum<'ctx>,
        FunctionValue<'ctx>,
    ) -> R<()>|
     -> R<()> {
        let nfull = cx.binop(Op::LLVMUDiv, size0, wc)?;
        let rem = cx.binop(Op::LLVMURem, size0, wc)?;
        let mut first_full = cx.i64c(0);
        if let Some((body, n)) = bodies.wide {
            let run = cx.i64c(n * w);
            let runs = cx.binop(Op::LLVMUDiv, size0, run)?;
            for_range(cx, groups, cx.i64c(0), runs, |c| {
                let x = cx.binop(Op::LLVMMul, c, run)?;
                each(x, run, body)
            })?;
            first_full = cx.binop(Op::LLVMMul, runs, cx.i64c(n))?;
        }
        for_range_while(cx, groups, first_full, nfull, &pass_goes_on, |c| {
            let x = cx.binop(Op::LLVMMul, c, wc)?;
            each(x, wc, full)
        })?;
        let has_rem = cx.icmp(IP::LLVMIntNE, rem, cx.i64c(0))?;
        if_then_else(
            cx,
            groups,
            has_rem,
            || {
                let x = cx.binop(Op::LLVMMul, nfull, wc)?;
                each(x, rem, part)
            },
            || Ok(()),
        )
    };
    let at = |x: BasicValueEnum<'ctx>, lanes: BasicValueEnum<'ctx>| -> R<()> {
        put(geo::XSTART, x)?;
        put(geo::NLANES, lanes)
    };
    // The passes over the SIMD groups of a work-group of `size`.
    let passes = |(full, part): (FunctionValue<'ctx>, FunctionValue<'ctx>),
                  size: &[BasicValueEnum<'ctx>]|
     -> R<()> {
        // One pass over the SIMD groups, from barrier `state` to the next:
        // a loop over the SIMD groups per state, each calling the body
        // with that state as a constant, so that once the body is inlined
        // each loop holds only the code between its barrier and the next
        // (PoCL's and Intel's region loops, over SIMD groups).
        let pass = cx.ctx.append_basic_block(groups, "pass");
        let pass_end = cx.ctx.append_basic_block(groups, "pass.end");
        cx.store(state, cx.i32c(0), 4)?;
        be(cx.b.build_unconditional_branch(pass))?;
        cx.b.position_at_end(pass);
        let loops: Vec<_> = (0..states)
            .map(|k| cx.ctx.append_basic_block(groups, &format!("pass.{k}")))
            .collect();
        let s = cx.load(i32t.into(), state, 4)?.into_int_value();
        let arms: Vec<_> = (1..states)
            .map(|k| (i32t.const_int(k, false), loops[k as usize]))
            .collect();
        be(cx.b.build_switch(s, loops[0], &arms))?;
        for (k, &bb) in loops.iter().enumerate() {
            cx.b.position_at_end(bb);
            cx.store(turn, cx.i64c(0), 8)?;
            cx.store(next, cx.i32c(0), 4)?;
            copy_shared(work, shared)?;
            cx.store(idle_src, none, 8)?;
            let per_row = cx.binop(Op::LLVMAdd, size[0], cx.i64c(w - 1))?;
            let per_row = cx.binop(Op::LLVMUDiv, per_row, wc)?;
            let rows = cx.binop(Op::LLVMMul, size[1], size[2])?;
            cx.store(sg_total, cx.binop(Op::LLVMMul, per_row, rows)?, 8)?;
            let row = |each: &dyn Fn(
                BasicValueEnum<'ctx>,
                BasicValueEnum<'ctx>,
                FunctionValue<'ctx>,
            ) -> R<()>| row_of(size[0], (full, part), each);
            let rows_walk = || -> R<()> {
                // Row after row: consecutive SIMD groups write consecutive
                // memory (whole cache lines in turn, which streaming stores
                // need), and a 1-D kernel's SIMD group loop is innermost.
                for_range(cx, groups, cx.i64c(0), size[2], |lz| {
                    put(geo::LZ, lz)?;
                    for_range(cx, groups, cx.i64c(0), size[1], |ly| {
                        put(geo::LY, ly)?;
                        row(&|x, lanes, f| {
                            at(x, lanes)?;
                            call_in_pass(f, k as u64)
                        })
                    })
                })?;
                Ok(())
            };
            let columns_walk = || -> R<()> {
                // SIMD groups column by column: the W columns of one SIMD
                // group are visited for every row before the next W
                // columns, so a column block of memory a kernel walks
                // (gemm's B[k][j..j+W]) is reused from L1 across the rows
                // of the work-group. Work-items of a group are unordered
                // in OpenCL without barriers.
                row(&|x, lanes, f| {
                    at(x, lanes)?;
                    for_range(cx, groups, cx.i64c(0), size[2], |lz| {
                        put(geo::LZ, lz)?;
                        let mut first_row = cx.i64c(0);
                        // Runs of the wide body: R rows at a time, each
                        // block's rows one by one when they disagree on
                        // a branch (`rows.rs`), then the rows left over.
                        if let (Some((wide, _)), Some((rbody, r))) = (bodies.wide, bodies.rows) {
                            if wide == f {
                                let blocks = cx.binop(Op::LLVMUDiv, size[1], cx.i64c(r))?;
                                for_range(cx, groups, cx.i64c(0), blocks, |blk| {
                                    let ly = cx.binop(Op::LLVMMul, blk, cx.i64c(r))?;
                                    put(geo::LY, ly)?;
                                    put(geo::ROWS_BAIL, cx.i64c(0))?;
                                    call(rbody, k as u64)?;
                                    let bailed = raised(geo::ROWS_BAIL)?;
                                    if_then_else(
                                        cx,
                                        groups,
                                        bailed,
                                        || {
                                            for_range(cx, groups, cx.i64c(0), cx.i64c(r), |dy| {
                                                put(geo::LY, cx.binop(Op::LLVMAdd, ly, dy)?)?;
                                                call_in_pass(f, k as u64)
                                            })
                                        },
                                        || Ok(()),
                                    )
                                })?;
                                first_row = cx.binop(Op::LLVMMul, blocks, cx.i64c(r))?;
                            }
                        }
                        for_range(cx, groups, first_row, size[1], |ly| {
                            put(geo::LY, ly)?;
                            call_in_pass(f, k as u64)
                        })
                    })
                })?;
                Ok(())
            };
            if row_by_row {
                rows_walk()?;
            } else if longer {
                // Row by row when a row has at least as many SIMD groups
                // as the work-group has rows.
                let long_rows = cx.icmp(IP::LLVMIntUGE, per_row, rows)?;
                if_then_else(cx, groups, long_rows, rows_walk, columns_walk)?;
            } else {
                columns_walk()?;
            }
            // What the region's last SIMD group left is what the next
            // region starts from.
            copy_shared(shared, work)?;
            be(cx.b.build_unconditional_branch(pass_end))?;
        }
        cx.b.position_at_end(pass_end);
        // Until every SIMD group has reached the end of the body.
        let n = cx.load(i32t.into(), next, 4)?;
        cx.store(state, n, 4)?;
        let more = cx.icmp(IP::LLVMIntNE, n, cx.i32c(0))?;
        let done = cx.ctx.append_basic_block(groups, "group.done");
        be(cx
            .b
            .build_conditional_branch(more.into_int_value(), pass, done))?;
        cx.b.position_at_end(done);
        Ok(())
    };
    // A work-group of one SIMD group: its body once, from the start.
    let once = |(full, part): (FunctionValue<'ctx>, FunctionValue<'ctx>),
                size: &[BasicValueEnum<'ctx>]|
     -> R<()> {
        cx.store(turn, cx.i64c(0), 8)?;
        put(geo::XSTART, cx.i64c(0))?;
        put(geo::NLANES, size[0])?;
        put(geo::LY, cx.i64c(0))?;
        put(geo::LZ, cx.i64c(0))?;
        let whole = cx.icmp(IP::LLVMIntEQ, size[0], wc)?;
        if_then_else(cx, groups, whole, || call(full, 0), || call(part, 0))
    };
    let run = |size: &[BasicValueEnum<'ctx>]| -> R<()> {
        for (d, &s) in size.iter().enumerate() {
            put(geo::SIZE + d as u32, s)?;
        }
        match (bodies.several, bodies.one) {
            (Some(several), Some(one)) => if_then_else(
                cx,
                groups,
                one_launch,
                || once(one, size),
                || passes(several, size),
            ),
            (Some(several), None) => passes(several, size),
            (None, Some(one)) => once(one, size),
            (None, None) => Err(format!("kernel `{}` has no body", kc.name)),
        }
    };
    let linear = || -> R<()> {
        for_range(cx, groups, first, last, |g| {
            let gx = cx.binop(Op::LLVMURem, g, ng[0])?;
            let t = cx.binop(Op::LLVMUDiv, g, ng[0])?;
            let gy = cx.binop(Op::LLVMURem, t, ng[1])?;
            let gz = cx.binop(Op::LLVMUDiv, t, ng[1])?;
            let gid = [gx, gy, gz];
            let mut size = Vec::new();
            for d in 0..3 {
                put(geo::GROUP_ID + d as u32, gid[d])?;
                // Non-uniform work-groups: the last one may be smaller.
                let start = cx.binop(Op::LLVMMul, gid[d], ls[d])?;
                let left = cx.binop(Op::LLVMSub, gs[d], start)?;
                size.push(cx.intrinsic("llvm.umin", &[i64t.into()], &[ls[d], left])?);
            }
            let Some(reqd) = kc.reqd_work_group_size else {
                if states == 1 {
                    return run(&size);
                }
                // A work-group one item tall and deep (any 1-D launch) runs
                // with those sizes as constants: its region loops lose the
                // row loops, which LLVM unrolled at run time with their
                // trip counts (and a division) computed again in every
                // SIMD group's iteration (bench/RESULTS.md, 2026-11-27).
                let one = cx.i64c(1);
                let flat_y = cx.icmp(IP::LLVMIntEQ, size[1], one)?;
                let flat_z = cx.icmp(IP::LLVMIntEQ, size[2], one)?;
                let flat = cx.binop(Op::LLVMAnd, flat_y, flat_z)?;
                return if_then_else(
                    cx,
                    groups,
                    flat,
                    || run(&[size[0], one, one]),
                    || run(&size),
                );
            };
            // A whole work-group of the required size runs with its geometry
            // as constants (trip counts of the SIMD group loops, the local
            // size the body reads); only a smaller last one reads it.
            let whole = reqd.map(|r| cx.i64c(r as u64));
            let mut all = cx.boolc(true);
            for d in 0..3 {
                let eq = cx.icmp(IP::LLVMIntEQ, size[d], whole[d])?;
                all = cx.binop(Op::LLVMAnd, all, eq)?;
            }
            if_then_else(cx, groups, all, || run(&whole), || run(&size))
        })
    };
    // Bands: the work-groups of `[first, last)` that share their group ids
    // 1 and 2, walked global row by global row: each row of the band runs
    // through the work-groups of the band left to right, as a C loop over
    // the rows of an array does. A kernel without barriers, loops and
    // work-group memory may run its work-items in any order; with 64 x 4
    // work-groups, group by group, jacobi_2d read 6 rows and wrote 4 in
    // blocks of 256 bytes, and the hardware prefetchers followed none of
    // those streams (bench/RESULTS.md, 2026-11-27). The group ids come
    // from one division per band instead of two per work-group.
    //
    // A band row runs as one loop over its SIMD groups (`whole_rows`: no
    // loop over its work-groups around the loop over their SIMD groups,
    // whose trip count was the W-th part of the local size) when the body
    // cannot tell the work-groups of a row apart: it reads no local or group
    // id, local size or sub-group numbering of dimension 0
    // ([`reads_column_geometry`]), and W divides the local size (tested
    // once per launch).
    let whole_rows = if bodies.wide.is_none() && !reads_column_geometry(&kc.vf.func) {
        let r = cx.binop(Op::LLVMURem, ls[0], wc)?;
        Some(cx.icmp(IP::LLVMIntEQ, r, cx.i64c(0))?)
    } else {
        None
    };
    let bands = |several: (FunctionValue<'ctx>, FunctionValue<'ctx>)| -> R<()> {
        let b_first = cx.binop(Op::LLVMUDiv, first, ng[0])?;
        let ng0_m1 = cx.binop(Op::LLVMSub, ng[0], cx.i64c(1))?;
        let last_up = cx.binop(Op::LLVMAdd, last, ng0_m1)?;
        let b_last = cx.binop(Op::LLVMUDiv, last_up, ng[0])?;
        for_range(cx, groups, b_first, b_last, |b| {
            let gy = cx.binop(Op::LLVMURem, b, ng[1])?;
            let gz = cx.binop(Op::LLVMUDiv, b, ng[1])?;
            let mut size = vec![cx.i64c(0)];
            for (d, g) in [(1u32, gy), (2, gz)] {
                put(geo::GROUP_ID + d, g)?;
                let start = cx.binop(Op::LLVMMul, g, ls[d as usize])?;
                let left = cx.binop(Op::LLVMSub, gs[d as usize], start)?;
                let sz = cx.intrinsic("llvm.umin", &[i64t.into()], &[ls[d as usize], left])?;
                put(geo::SIZE + d, sz)?;
                size.push(sz);
            }
            // The band's work-groups in `[first, last)`: `b * ng0 < last`
            // for every band of the loop, so `hi` does not wrap.
            let base = cx.binop(Op::LLVMMul, b, ng[0])?;
            let end = cx.binop(Op::LLVMAdd, base, ng[0])?;
            let lo = cx.intrinsic("llvm.umax", &[i64t.into()], &[first, base])?;
            let lo = cx.binop(Op::LLVMSub, lo, base)?;
            let hi = cx.intrinsic("llvm.umin", &[i64t.into()], &[last, end])?;
            let hi = cx.binop(Op::LLVMSub, hi, base)?;
            // One row of the band, work-group after work-group; where
            // `whole_rows` holds, the band row is one work-group's worth of
            // SIMD groups as wide as the band row: work-group `lo`'s ids
            // with the row's columns from its first one on (the body reads
            // only global ids along dimension 0, and W divides the local
            // size, so no SIMD group straddles two work-groups). One copy of
            // the loop: the choice is a trip count and a width.
            let (chunks, band_end) = match whole_rows {
                Some(whole) => {
                    let end = cx.binop(Op::LLVMMul, hi, ls[0])?;
                    let end = cx.intrinsic("llvm.umin", &[i64t.into()], &[end, gs[0]])?;
                    let lo1 = cx.binop(Op::LLVMAdd, lo, cx.i64c(1))?;
                    let lo1 = cx.intrinsic("llvm.umin", &[i64t.into()], &[lo1, hi])?;
                    (cx.select(whole, lo1, hi)?, Some((whole, end)))
                }
                None => (hi, None),
            };
            for_range(cx, groups, cx.i64c(0), size[2], |lz| {
                put(geo::LZ, lz)?;
                for_range(cx, groups, cx.i64c(0), size[1], |ly| {
                    put(geo::LY, ly)?;
                    for_range(cx, groups, lo, chunks, |gx| {
                        put(geo::GROUP_ID, gx)?;
                        let start = cx.binop(Op::LLVMMul, gx, ls[0])?;
                        let left = cx.binop(Op::LLVMSub, gs[0], start)?;
                        let size0 = cx.intrinsic("llvm.umin", &[i64t.into()], &[ls[0], left])?;
                        put(geo::SIZE, size0)?;
                        let width = match band_end {
                            Some((whole, end)) => {
                                let row = cx.binop(Op::LLVMSub, end, start)?;
                                cx.select(whole, row, size0)?
                            }
                            None => size0,
                        };
                        cx.store(turn, cx.i64c(0), 8)?;
                        row_of(width, several, &|x, lanes, f| {
                            at(x, lanes)?;
                            call(f, 0)
                        })
                    })
                })
            })
        })
    };
    match bodies.several {
        Some(several)
            if row_by_row && plan.is_none() && states == 1 && kc.reqd_work_group_size.is_none() =>
        {
            if bodies.one.is_some() {
                // Work-groups of one SIMD group run their own body, in
                // linear order (the same walk: one row per group).
                if_then_else(cx, groups, one_launch, linear, || bands(several))?
            } else {
                bands(several)?
            }
        }
        _ => linear()?,
    }
    if let Some(wg) = &wg {
        free_work_group_memory(cx, wg)?;
    }
    // Non-temporal stores are weakly ordered: done before returning.
    let bodies_fns = [bodies.several, bodies.one].into_iter().flatten();
    if bodies_fns
        .flat_map(|(full, part)| [full, part])
        .chain(bodies.wide.map(|(w, _)| w))
        .any(crate::emit::streaming::has_streaming_stores)
    {
        cx.intrinsic_void("llvm.x86.sse.sfence", &[], &[])?;
    }
    be(cx.b.build_return(Some(&i32t.const_zero())))?;

    // ---- k ------------------------------------------------------------
    let all_ty = i32t.fn_type(&meta(&[ptr.into()]), false);
    let all = cx
        .module
        .add_function(&kc.name, all_ty, Some(Linkage::External));
    let bb = cx.ctx.append_basic_block(all, "entry");
    cx.b.position_at_end(bb);
    let mut a: Vec<BasicMetadataValueEnum> = all.get_param_iter().map(|x| x.into()).collect();
    a.push(i64t.const_zero().into());
    a.push(i64t.const_int(u64::MAX, false).into());
    let rv = be(cx.b.build_call(groups, &a, ""))?
        .try_as_basic_value()
        .basic()
        .ok_or("k_groups returns void")?;
    be(cx.b.build_return(Some(&rv)))?;

    // ---- k__launch ----------------------------------------------------
    let launch_ty = i32t.fn_type(&[ptr.into(), ptr.into(), i64t.into(), i64t.into()], false);
    let launch = cx.module.add_function(
        &format!("{}__launch", kc.name),
        launch_ty,
        Some(Linkage::External),
    );
    let bb = cx.ctx.append_basic_block(launch, "entry");
    cx.b.position_at_end(bb);
    let lp = |i: u32| -> R<BasicValueEnum<'ctx>> {
        launch
            .get_nth_param(i)
            .ok_or_else(|| format!("missing parameter {i}"))
    };
    let args = lp(0)?;
    let mut a: Vec<BasicMetadataValueEnum> = Vec::new();
    for (i, p) in kc.params.iter().enumerate() {
        let slot = cx.gep_bytes(args, cx.i64c(8 * i as u64))?;
        let pi = cx.load(ptr.into(), slot, 8)?;
        let v = match &p.kind {
            ParamKind::Pointer { .. } => cx.load(ptr.into(), pi, 1)?,
            ParamKind::Vector(..) | ParamKind::Struct(_) => pi,
            ParamKind::LocalPointer => cx.load(i64t.into(), pi, 8)?,
            ParamKind::Scalar(t) => {
                let lt = abi_type(cx, &p.kind)?;
                cx.load(lt, pi, (if *t == Ty::I1 { 1 } else { t.bytes() }) as u32)?
            }
        };
        a.push(v.into());
    }
    a.push(lp(1)?.into());
    a.push(lp(2)?.into());
    a.push(lp(3)?.into());
    let rv = be(cx.b.build_call(groups, &a, ""))?
        .try_as_basic_value()
        .basic()
        .ok_or("k_groups returns void")?;
    be(cx.b.build_return(Some(&rv)))?;
    Ok(vec![groups, all, launch])
}

/// True when `f` reads where its SIMD group is within its work-group along
/// dimension 0 or the work-group's place or size along it: a local or group
/// id or local size of dimension 0 (or of a dimension that is not a
/// constant), or the sub-group numbering. Global ids, sizes and offsets,
/// the number of groups and the lanes of the SIMD group itself do not
/// depend on how a row of work-items is split into work-groups.
pub fn reads_column_geometry(f: &lanes_vectorizer::ir::Function) -> bool {
    use lanes_vectorizer::ir::{Const, InstKind, WorkItem as Q};
    f.insts.iter().any(|inst| match &inst.kind {
        InstKind::WorkItem { query, dim } => match query {
            Q::LocalId | Q::GroupId | Q::LocalSize => match dim.and_then(|d| f.as_const(d)) {
                Some(Const::Int(k, t)) => lanes_vectorizer::ir::truncate(k, t.bits()) == 0,
                _ => true,
            },
            Q::NumSubGroups | Q::SubGroupId => true,
            Q::GlobalId
            | Q::GlobalSize
            | Q::NumGroups
            | Q::GlobalOffset
            | Q::WorkDim
            | Q::SubGroupSize
            | Q::SubGroupLocalId
            | Q::MaxSubGroupSize
            | Q::LaneMask => false,
        },
        _ => false,
    })
}

/// Where `k_groups` keeps a work-group's memory: one block holding a save
/// area per SIMD group, the collectives' scratch array, the kernel-scope
/// `__local` variables, then one object per `__local` argument.
struct WorkGroupMemory<'ctx> {
    base: BasicValueEnum<'ctx>,
    /// The collectives' scratch array.
    scratch: BasicValueEnum<'ctx>,
    /// The first `__local` byte.
    local: BasicValueEnum<'ctx>,
    /// True when `base` came from `aligned_alloc` (to free at the end).
    on_heap: BasicValueEnum<'ctx>,
}

/// Sizes and places the work-group memory of one `k_groups` call (reused by
/// every work-group it runs) and points the `__local` arguments into it;
/// returns [`OUT_OF_MEMORY`] from `groups` when it cannot be had. With a
/// required work-group size and no `__local` argument its size is a
/// constant, and up to [`STACK_WORK_GROUP_BYTES`] it is a fixed object of
/// the call's frame.
#[allow(clippy::too_many_arguments)]
fn work_group_memory<'ctx>(
    cx: &Cx<'_, 'ctx>,
    (groups, entry): (FunctionValue<'ctx>, inkwell::basic_block::BasicBlock<'ctx>),
    kc: &KernelCode,
    plan: &Plan,
    save_bytes: u64,
    gs: &[BasicValueEnum<'ctx>],
    ls: &[BasicValueEnum<'ctx>],
    ir_args: &mut [Option<BasicValueEnum<'ctx>>],
) -> R<WorkGroupMemory<'ctx>> {
    let i64t = cx.ctx.i64_type();
    let ptr = cx.ctx.ptr_type(LlvmSpace::default());
    let local_args = kc.params.iter().any(|p| p.kind == ParamKind::LocalPointer);
    if let (Some(reqd), false) = (kc.reqd_work_group_size, local_args) {
        let w = cx.w as u64;
        let simd_groups = (reqd[0] as u64).div_ceil(w) * reqd[1] as u64 * reqd[2] as u64;
        let save = simd_groups * save_bytes;
        let scratch = (simd_groups * crate::workgroup::SCRATCH_SLOT).div_ceil(ALIGN) * ALIGN;
        let local = save + scratch;
        let total = (local + plan.local_bytes).max(ALIGN).div_ceil(ALIGN) * ALIGN;
        if total <= STACK_WORK_GROUP_BYTES {
            let here = cx.b.get_insert_block().ok_or("builder not positioned")?;
            match entry.get_first_instruction() {
                Some(i) => cx.b.position_before(&i),
                None => cx.b.position_at_end(entry),
            }
            let t = cx.ctx.i8_type().array_type(total as u32);
            let base = be(cx.b.build_alloca(t, "wg"))?;
            if let Some(i) = base.as_instruction() {
                i.set_alignment(ALIGN as u32).map_err(|e| e.to_string())?;
            }
            cx.b.position_at_end(here);
            let base: BasicValueEnum = base.into();
            return Ok(WorkGroupMemory {
                base,
                scratch: cx.gep_bytes(base, cx.i64c(save))?,
                local: cx.gep_bytes(base, cx.i64c(local))?,
                on_heap: cx.boolc(false),
            });
        }
    }
    let mut overflow = cx.boolc(false);
    let checked =
        |name: &str, a, b, overflow: &mut BasicValueEnum<'ctx>| -> R<BasicValueEnum<'ctx>> {
            let r = cx
                .intrinsic(name, &[i64t.into()], &[a, b])?
                .into_struct_value();
            let v = be(cx.b.build_extract_value(r, 0, ""))?;
            let o = be(cx.b.build_extract_value(r, 1, ""))?;
            *overflow = cx.binop(Op::LLVMOr, *overflow, o)?;
            Ok(v)
        };
    let round_up =
        |x: BasicValueEnum<'ctx>, overflow: &mut BasicValueEnum<'ctx>| -> R<BasicValueEnum<'ctx>> {
            let x = checked("llvm.uadd.with.overflow", x, cx.i64c(ALIGN - 1), overflow)?;
            cx.binop(Op::LLVMAnd, x, cx.i64c(!(ALIGN - 1)))
        };
    // SIMD groups in the largest work-group.
    let mut simd_groups = cx.i64c(1);
    for d in 0..3 {
        let items = match kc.reqd_work_group_size {
            Some(r) => cx.i64c(r[d] as u64),
            None => cx.intrinsic("llvm.umin", &[i64t.into()], &[ls[d], gs[d]])?,
        };
        let per = if d == 0 {
            let w = cx.i64c(cx.w as u64 - 1);
            let up = cx.binop(Op::LLVMAdd, items, w)?;
            cx.binop(Op::LLVMUDiv, up, cx.i64c(cx.w as u64))?
        } else {
            items
        };
        simd_groups = checked("llvm.umul.with.overflow", simd_groups, per, &mut overflow)?;
    }
    let save = checked(
        "llvm.umul.with.overflow",
        simd_groups,
        cx.i64c(save_bytes),
        &mut overflow,
    )?;
    // The collectives' scratch array: one slot per SIMD group.
    let scratch_bytes = checked(
        "llvm.umul.with.overflow",
        simd_groups,
        cx.i64c(crate::workgroup::SCRATCH_SLOT),
        &mut overflow,
    )?;
    let scratch_bytes = round_up(scratch_bytes, &mut overflow)?;
    let local = checked(
        "llvm.uadd.with.overflow",
        save,
        scratch_bytes,
        &mut overflow,
    )?;
    let mut end = checked(
        "llvm.uadd.with.overflow",
        local,
        cx.i64c(plan.local_bytes),
        &mut overflow,
    )?;
    let mut local_args = Vec::new();
    for (i, p) in kc.params.iter().enumerate() {
        if p.kind != ParamKind::LocalPointer {
            continue;
        }
        let bytes = groups
            .get_nth_param(i as u32)
            .ok_or_else(|| format!("missing parameter {i}"))?;
        local_args.push((p, end));
        let size = round_up(bytes, &mut overflow)?;
        end = checked("llvm.uadd.with.overflow", end, size, &mut overflow)?;
    }
    let total = cx.intrinsic("llvm.umax", &[i64t.into()], &[end, cx.i64c(ALIGN)])?;
    let total = round_up(total, &mut overflow)?;

    let fail = return_if(cx, groups, overflow, OUT_OF_MEMORY)?;
    let small = cx.icmp(IP::LLVMIntULE, total, cx.i64c(STACK_WORK_GROUP_BYTES))?;
    let stack_bb = cx.ctx.append_basic_block(groups, "wg.stack");
    let heap_bb = cx.ctx.append_basic_block(groups, "wg.heap");
    let got_bb = cx.ctx.append_basic_block(groups, "wg.placed");
    be(cx
        .b
        .build_conditional_branch(small.into_int_value(), stack_bb, heap_bb))?;
    cx.b.position_at_end(stack_bb);
    let on_stack = be(cx
        .b
        .build_array_alloca(cx.ctx.i8_type(), total.into_int_value(), "wg"))?;
    if let Some(i) = on_stack.as_instruction() {
        i.set_alignment(ALIGN as u32).map_err(|e| e.to_string())?;
    }
    be(cx.b.build_unconditional_branch(got_bb))?;
    cx.b.position_at_end(heap_bb);
    let alloc = cx.module.get_function("aligned_alloc").unwrap_or_else(|| {
        let t = ptr.fn_type(&[i64t.into(), i64t.into()], false);
        cx.module.add_function("aligned_alloc", t, None)
    });
    let on_heap = be(cx
        .b
        .build_call(alloc, &[cx.i64c(ALIGN).into(), total.into()], ""))?
    .try_as_basic_value()
    .basic()
    .ok_or("aligned_alloc returns void")?;
    let null = cx.icmp(IP::LLVMIntEQ, on_heap, ptr.const_null().into())?;
    be(cx
        .b
        .build_conditional_branch(null.into_int_value(), fail, got_bb))?;
    cx.b.position_at_end(got_bb);
    let base = be(cx.b.build_phi(ptr, "wg.base"))?;
    base.add_incoming(&[(&on_stack, stack_bb), (&on_heap, heap_bb)]);
    let heap = be(cx.b.build_phi(cx.ctx.bool_type(), "wg.heap"))?;
    heap.add_incoming(&[
        (&cx.ctx.bool_type().const_zero(), stack_bb),
        (&cx.ctx.bool_type().const_all_ones(), heap_bb),
    ]);
    let base = base.as_basic_value();
    for (p, off) in local_args {
        let q = cx.gep_bytes(base, off)?;
        set_ir(ir_args, &p.ir_params, 0, q)?;
    }
    Ok(WorkGroupMemory {
        base,
        scratch: cx.gep_bytes(base, save)?,
        local: cx.gep_bytes(base, local)?,
        on_heap: heap.as_basic_value(),
    })
}

/// Frees work-group memory that came from the heap.
fn free_work_group_memory<'ctx>(cx: &Cx<'_, 'ctx>, wg: &WorkGroupMemory<'ctx>) -> R<()> {
    let f =
        cx.b.get_insert_block()
            .and_then(|b| b.get_parent())
            .ok_or("builder not positioned")?;
    let free_bb = cx.ctx.append_basic_block(f, "wg.free");
    let done = cx.ctx.append_basic_block(f, "wg.freed");
    be(cx
        .b
        .build_conditional_branch(wg.on_heap.into_int_value(), free_bb, done))?;
    cx.b.position_at_end(free_bb);
    let ptr = cx.ctx.ptr_type(LlvmSpace::default());
    let free = cx.module.get_function("free").unwrap_or_else(|| {
        let t = cx.ctx.void_type().fn_type(&[ptr.into()], false);
        cx.module.add_function("free", t, None)
    });
    be(cx.b.build_call(free, &[wg.base.into()], ""))?;
    be(cx.b.build_unconditional_branch(done))?;
    cx.b.position_at_end(done);
    Ok(())
}

/// The barriers a work-group body resumes after: the cases of the `switch`
/// on its state that ends its entry block (none without one).
fn resume_points(f: FunctionValue<'_>) -> u64 {
    f.get_first_basic_block()
        .and_then(|b| b.get_terminator())
        .filter(|t| t.get_opcode() == inkwell::values::InstructionOpcode::Switch)
        .map_or(0, |t| (t.get_num_operands() as u64).saturating_sub(2) / 2)
}

fn set_ir<'ctx>(
    ir: &mut [Option<BasicValueEnum<'ctx>>],
    idx: &[u32],
    k: usize,
    v: BasicValueEnum<'ctx>,
) -> R<()> {
    let i = *idx.get(k).ok_or("source parameter without IR parameter")? as usize;
    let slot = ir.get_mut(i).ok_or("IR parameter index out of range")?;
    *slot = Some(v);
    Ok(())
}

/// `if (cond) return status;`, leaving the builder after it; returns the
/// block that returns (for other paths to the same failure).
fn return_if<'ctx>(
    cx: &Cx<'_, 'ctx>,
    f: FunctionValue<'ctx>,
    cond: BasicValueEnum<'ctx>,
    status: i64,
) -> R<inkwell::basic_block::BasicBlock<'ctx>> {
    let fail = cx.ctx.append_basic_block(f, "fail");
    let go_on = cx.ctx.append_basic_block(f, "go_on");
    be(cx
        .b
        .build_conditional_branch(cond.into_int_value(), fail, go_on))?;
    cx.b.position_at_end(fail);
    be(cx
        .b
        .build_return(Some(&cx.ctx.i32_type().const_int(status as u64, true))))?;
    cx.b.position_at_end(go_on);
    Ok(fail)
}

/// `if (cond) then() else otherwise()`, leaving the builder after both.
fn if_then_else<'ctx>(
    cx: &Cx<'_, 'ctx>,
    f: FunctionValue<'ctx>,
    cond: BasicValueEnum<'ctx>,
    then: impl FnOnce() -> R<()>,
    otherwise: impl FnOnce() -> R<()>,
) -> R<()> {
    let yes = cx.ctx.append_basic_block(f, "then");
    let no = cx.ctx.append_basic_block(f, "else");
    let join = cx.ctx.append_basic_block(f, "join");
    be(cx
        .b
        .build_conditional_branch(cond.into_int_value(), yes, no))?;
    cx.b.position_at_end(yes);
    then()?;
    be(cx.b.build_unconditional_branch(join))?;
    cx.b.position_at_end(no);
    otherwise()?;
    be(cx.b.build_unconditional_branch(join))?;
    cx.b.position_at_end(join);
    Ok(())
}

/// `for (iv = lo; iv < hi; iv++) body(iv)` (unsigned), leaving the builder
/// after the loop.
fn for_range<'ctx>(
    cx: &Cx<'_, 'ctx>,
    f: FunctionValue<'ctx>,
    lo: BasicValueEnum<'ctx>,
    hi: BasicValueEnum<'ctx>,
    body: impl FnOnce(BasicValueEnum<'ctx>) -> R<()>,
) -> R<()> {
    for_range_while(cx, f, lo, hi, &|| Ok(cx.boolc(true)), body)
}

/// [`for_range`] that also stops before an iteration where `goes_on()`
/// (evaluated in the loop header) is false.
fn for_range_while<'ctx>(
    cx: &Cx<'_, 'ctx>,
    f: FunctionValue<'ctx>,
    lo: BasicValueEnum<'ctx>,
    hi: BasicValueEnum<'ctx>,
    goes_on: &dyn Fn() -> R<BasicValueEnum<'ctx>>,
    body: impl FnOnce(BasicValueEnum<'ctx>) -> R<()>,
) -> R<()> {
    let pre = cx.b.get_insert_block().ok_or("builder not positioned")?;
    let head = cx.ctx.append_basic_block(f, "loop");
    let bodyb = cx.ctx.append_basic_block(f, "body");
    let exit = cx.ctx.append_basic_block(f, "exit");
    be(cx.b.build_unconditional_branch(head))?;
    cx.b.position_at_end(head);
    let phi = be(cx.b.build_phi(cx.ctx.i64_type(), "iv"))?;
    phi.add_incoming(&[(&lo, pre)]);
    let iv = phi.as_basic_value();
    let c = cx.icmp(IP::LLVMIntULT, iv, hi)?;
    let c = cx.binop(Op::LLVMAnd, c, goes_on()?)?;
    be(cx
        .b
        .build_conditional_branch(c.into_int_value(), bodyb, exit))?;
    cx.b.position_at_end(bodyb);
    body(iv)?;
    let next = cx.binop(Op::LLVMAdd, iv, cx.i64c(1))?;
    let latch = cx.b.get_insert_block().ok_or("builder not positioned")?;
    be(cx.b.build_unconditional_branch(head))?;
    phi.add_incoming(&[(&next, latch)]);
    cx.b.position_at_end(exit);
    Ok(())
}
