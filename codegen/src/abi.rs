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
//! block by column block, each through all rows (local ids 1 and 2): the
//! body's full variant for whole groups, its partial variant (lane mask
//! from the row remainder) for the last column block.

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::llvm_sys::{LLVMIntPredicate as IP, LLVMOpcode as Op};
use inkwell::module::Linkage;
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum};
use inkwell::values::{BasicMetadataValueEnum, BasicValueEnum, FunctionValue};
use inkwell::AddressSpace as LlvmSpace;

use lanes_vectorizer::ir::Ty;

use crate::emit::{geo, llty};
use crate::ll::{Cx, R};
use crate::{KernelCode, ParamKind};

/// Byte offsets of the fields of `lanes_range` (LP64: `uint32_t` then
/// three `size_t[3]` arrays).
const R_WORK_DIM: u64 = 0;
const R_OFFSET: u64 = 8;
const R_GLOBAL: u64 = 32;
const R_LOCAL: u64 = 56;

/// Largest number of SIMD groups per row when the local size is chosen.
pub const CHOSEN_GROUPS_PER_ROW: u64 = 8;

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
    })
}

pub fn add_fn_attr(cx: &Cx<'_, '_>, f: FunctionValue<'_>, name: &str) {
    let id = Attribute::get_named_enum_kind_id(name);
    f.add_attribute(AttributeLoc::Function, cx.ctx.create_enum_attribute(id, 0));
}

/// Emits `k`, `k_groups` and `k__launch` for a kernel whose body variants
/// are `full` and `part`.
pub fn emit_entry_points<'ctx>(
    cx: &Cx<'_, 'ctx>,
    kc: &KernelCode,
    full: FunctionValue<'ctx>,
    part: FunctionValue<'ctx>,
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
    let ir_args: Vec<BasicValueEnum> = ir_args
        .into_iter()
        .enumerate()
        .map(|(i, a)| a.ok_or_else(|| format!("IR parameter {i} has no source argument")))
        .collect::<R<_>>()?;

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

    let call = |f: FunctionValue<'ctx>| -> R<()> {
        let mut a: Vec<BasicMetadataValueEnum> = ir_args.iter().map(|&x| x.into()).collect();
        a.push(ctxp.into());
        be(cx.b.build_call(f, &a, ""))?;
        Ok(())
    };
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
            let s = cx.intrinsic("llvm.umin", &[i64t.into()], &[ls[d], left])?;
            put(geo::SIZE + d as u32, s)?;
            size.push(s);
        }
        let nfull = cx.binop(Op::LLVMUDiv, size[0], wc)?;
        let rem = cx.binop(Op::LLVMURem, size[0], wc)?;
        // SIMD groups column by column: the W columns of one SIMD group
        // are visited for every row before the next W columns, so a column
        // block of memory a kernel walks (gemm's B[k][j..j+W]) is reused
        // from L1 across the rows of the work-group. Work-items of a group
        // are unordered in OpenCL without barriers.
        let rows =
            |x: BasicValueEnum<'ctx>, lanes: BasicValueEnum<'ctx>, f: FunctionValue<'ctx>| {
                put(geo::XSTART, x)?;
                put(geo::NLANES, lanes)?;
                for_range(cx, groups, cx.i64c(0), size[2], |lz| {
                    put(geo::LZ, lz)?;
                    for_range(cx, groups, cx.i64c(0), size[1], |ly| {
                        put(geo::LY, ly)?;
                        call(f)
                    })
                })
            };
        for_range(cx, groups, cx.i64c(0), nfull, |c| {
            let x = cx.binop(Op::LLVMMul, c, wc)?;
            rows(x, wc, full)
        })?;
        let has_rem = cx.icmp(IP::LLVMIntNE, rem, cx.i64c(0))?;
        let part_bb = cx.ctx.append_basic_block(groups, "part");
        let after = cx.ctx.append_basic_block(groups, "after");
        be(cx
            .b
            .build_conditional_branch(has_rem.into_int_value(), part_bb, after))?;
        cx.b.position_at_end(part_bb);
        let x = cx.binop(Op::LLVMMul, nfull, wc)?;
        rows(x, rem, part)?;
        be(cx.b.build_unconditional_branch(after))?;
        cx.b.position_at_end(after);
        Ok(())
    })?;
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

/// `for (iv = lo; iv < hi; iv++) body(iv)` (unsigned), leaving the builder
/// after the loop.
fn for_range<'ctx>(
    cx: &Cx<'_, 'ctx>,
    f: FunctionValue<'ctx>,
    lo: BasicValueEnum<'ctx>,
    hi: BasicValueEnum<'ctx>,
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
