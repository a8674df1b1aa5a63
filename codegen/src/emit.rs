//! Vector IR to LLVM IR: one internal LLVM function per kernel body and
//! variant (full SIMD group / partial group), instruction by instruction.
//!
//! Widening rules (see `vectorize.rs`): a value whose shape is uniform is an
//! LLVM scalar, every other value a `<W x T>` vector. Operands are brought
//! to the form an instruction needs at its use (scalars splatted). Memory
//! accesses and horizontal operations use the mask of their block.
//!
//! Poison discipline: masked-off lanes may hold garbage, so nothing here
//! lets a masked-off lane turn a scalar branch condition or an address into
//! poison: no `nsw`/`nuw`/`exact`/`inbounds` (signed index arithmetic is
//! widened to 64 bits instead, see `widened`), divisors of masked-off lanes
//! replaced by 1 where they could trap, shift amounts masked, `fptosi`
//! results frozen, `undef` operands a frozen poison (a fixed arbitrary
//! value).

use lanes_frontend::source::Span;
use std::collections::HashMap;

use inkwell::basic_block::BasicBlock;
use inkwell::llvm_sys::{LLVMIntPredicate as IP, LLVMOpcode as Op, LLVMRealPredicate as FP};
use inkwell::module::Linkage;
use inkwell::types::{BasicMetadataTypeEnum, BasicTypeEnum};
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue, InstructionValue, PhiValue};
use inkwell::AddressSpace as LlvmSpace;

use lanes_vectorizer::cfg::Cfg;
use lanes_vectorizer::idle_tail::IdleTails;
use lanes_vectorizer::ir::{
    BinOp, BlockId, CastOp, CmpPred, Const, Function, Horizontal, InstId, InstKind, MathFn,
    ReduceOp, Ty, Unroll, ValueDef, ValueId, WorkItem,
};
use lanes_vectorizer::schedule::{Schedule, SimdGroupOrder};
use lanes_vectorizer::shape::Shape;
use lanes_vectorizer::vectorize::VectorFunction;

use crate::ll::{bv, is_vec, vec_of, Cx, R};
use crate::math_impl::call_math;
use crate::workgroup::Plan;

mod all_active;
mod atomic;
mod clamped;
mod collective;
mod lane_loads;
mod lane_range;
mod lane_slots;
mod mask_versions;
mod prefetch;
mod row_tiles;
pub mod streaming;
pub mod strided;

/// Fields of the group context the entry points pass to a body: an array
/// of `i64` (see `abi.rs`, which fills it).
pub mod geo {
    pub const WORK_DIM: u32 = 0;
    /// Global offset of dimensions 0..3.
    pub const OFF: u32 = 1;
    pub const GLOBAL: u32 = 4;
    /// The enqueued (uniform) local size.
    pub const LOCAL: u32 = 7;
    pub const NUM_GROUPS: u32 = 10;
    pub const GROUP_ID: u32 = 13;
    /// The actual size of this work-group (the last one may be smaller).
    pub const SIZE: u32 = 16;
    /// Local id of the row in dimensions 1 and 2.
    pub const LY: u32 = 19;
    pub const LZ: u32 = 20;
    /// Local id (dimension 0) of lane 0 of the SIMD group.
    pub const XSTART: u32 = 21;
    /// Number of work-items in the SIMD group (W in the full variant).
    pub const NLANES: u32 = 22;
    /// Set by a row body whose rows disagree on a branch (`rows.rs`).
    pub const ROWS_BAIL: u32 = 23;
    /// Set by a body with barriers when the SIMD group it ran begins the
    /// idle tail of the region (`idle_tail`, docs/codegen.md).
    pub const IDLE_TAIL: u32 = 24;
    pub const COUNT: u32 = 25;
}

/// The LLVM type of an IR type, as a scalar or a `<W x T>` vector.
pub fn llty<'ctx>(cx: &Cx<'_, 'ctx>, ty: Ty, vec: bool) -> R<BasicTypeEnum<'ctx>> {
    let s: BasicTypeEnum = match ty {
        Ty::I1 => cx.ctx.bool_type().into(),
        Ty::I8 => cx.ctx.i8_type().into(),
        Ty::I16 => cx.ctx.i16_type().into(),
        Ty::I32 => cx.ctx.i32_type().into(),
        Ty::I64 => cx.ctx.i64_type().into(),
        Ty::F32 => cx.ctx.f32_type().into(),
        Ty::F64 => cx.ctx.f64_type().into(),
        Ty::Ptr(_) => cx.ctx.ptr_type(LlvmSpace::default()).into(),
        Ty::Void => return Err("a value of type void".into()),
        Ty::Image => return Err("an image (images are not compiled yet)".into()),
    };
    Ok(if vec { vec_of(s, cx.w).into() } else { s })
}

/// The type a value of IR type `ty` has in memory (`i1` is one byte).
fn mem_ty(ty: Ty) -> Ty {
    if ty == Ty::I1 {
        Ty::I8
    } else {
        ty
    }
}

fn align_of(align: u64, ty: Ty) -> u32 {
    let a = if align == 0 { ty.bytes().max(1) } else { align };
    if a.is_power_of_two() && a <= (1 << 16) {
        a as u32
    } else {
        1
    }
}

/// The operands of `lhs pred rhs` before a widening both went through,
/// when the narrower compare gives the same result: sign extension keeps
/// signed and unsigned order, zero extension unsigned order. `(int)gid <
/// n` becomes `sext(i) < sext(n)` on `i64` in the lowering; LLVM narrows
/// it back only while both sides are `sext` instructions, not once one is
/// a splat of a scalar `sext` (four 64-bit compares on AVX2 instead of one).
fn narrow_compare(f: &Function, pred: CmpPred, lhs: ValueId, rhs: ValueId) -> (ValueId, ValueId) {
    let ext = |v: ValueId| match f.def_inst(v).map(|i| &f.inst(i).kind) {
        Some(InstKind::Cast { op, value }) if f.ty(*value).is_int() => Some((*op, *value)),
        _ => None,
    };
    let unsigned = matches!(
        pred,
        CmpPred::Eq | CmpPred::Ne | CmpPred::Ult | CmpPred::Ule | CmpPred::Ugt | CmpPred::Uge
    );
    match (ext(lhs), ext(rhs)) {
        (Some((a_op, a)), Some((b_op, b)))
            if a_op == b_op
                && f.ty(a) == f.ty(b)
                && (a_op == CastOp::SExt || a_op == CastOp::ZExt && unsigned) =>
        {
            (a, b)
        }
        _ => (lhs, rhs),
    }
}

/// True when the module is for x86-64.
pub fn is_x86(cx: &Cx<'_, '_>) -> bool {
    cx.module
        .get_triple()
        .as_str()
        .to_bytes()
        .starts_with(b"x86_64")
}

/// Emits the body of `vf` as an internal function `name(params..., ptr ctx)`.
/// `full`: the variant for whole SIMD groups (`LaneMask` all true).
///
/// With a work-group plan (see [`crate::workgroup`]) the body is
/// `i32 name(params..., ptr ctx, ptr save, ptr local, ptr scratch, ptr
/// shared, i32 state)` (`shared`: the values kept once per work-group): it
/// starts at the beginning (state 0) or after barrier `state`, and returns
/// the number of the barrier it stopped at, or 0 at its end. With
/// `one_group` (a work-group of one SIMD group) it is the same function
/// run once from the start: barriers are nothing and every value stays in
/// a register.
pub fn emit_body<'ctx>(
    cx: &Cx<'_, 'ctx>,
    vf: &VectorFunction,
    name: &str,
    full: bool,
    plan: Option<&Plan>,
    one_group: bool,
) -> R<FunctionValue<'ctx>> {
    let f = &vf.func;
    let ptr = cx.ctx.ptr_type(LlvmSpace::default());
    let mut params: Vec<BasicMetadataTypeEnum> = Vec::new();
    for p in &f.params {
        params.push(llty(cx, p.ty, false)?.into());
    }
    params.push(ptr.into());
    let fty = if plan.is_some() {
        params.extend::<[BasicMetadataTypeEnum; 5]>([
            ptr.into(),
            ptr.into(),
            ptr.into(),
            ptr.into(),
            cx.ctx.i32_type().into(),
        ]);
        cx.ctx.i32_type().fn_type(&params, false)
    } else {
        cx.ctx.void_type().fn_type(&params, false)
    };
    let func = cx.module.add_function(name, fty, Some(Linkage::Internal));
    if plan.is_some() {
        // Nothing but the body reaches a SIMD group's save area or the
        // shared slots.
        let noalias = inkwell::attributes::Attribute::get_named_enum_kind_id("noalias");
        for k in [1, 4] {
            func.add_attribute(
                inkwell::attributes::AttributeLoc::Param(f.params.len() as u32 + k),
                cx.ctx.create_enum_attribute(noalias, 0),
            );
        }
    }
    // Bands of work-groups walked global row by global row (`abi.rs`).
    let rows = plan.is_none() && Schedule::of(vf).order == SimdGroupOrder::Rows;
    let synchronizes = f.insts.iter().any(|i| i.kind.is_work_group_sync());
    let mut g = FnGen {
        cx,
        vf,
        f,
        func,
        full,
        vals: vec![None; f.values.len()],
        blocks: vec![None; f.blocks.len()],
        terms: vec![None; f.blocks.len()],
        edges: HashMap::new(),
        entry: cx.ctx.append_basic_block(func, "entry"),
        geo: Vec::new(),
        undefs: HashMap::new(),
        globals: Vec::new(),
        allocas: HashMap::new(),
        plan,
        one_group: one_group && plan.is_some(),
        resumes: Vec::new(),
        copy: None,
        copy_start: None,
        strided: strided::plan(vf),
        streams: streaming::plan(vf, full && plan.is_none() && is_x86(cx), rows),
        prefetched: prefetch::plan(
            vf,
            !(one_group && plan.is_some())
                && (plan.is_some() || streaming::reads_at_several_addresses(f)),
            if rows {
                prefetch::Step::Row
            } else {
                prefetch::Step::Group
            },
        ),
        grouped: HashMap::new(),
        versioned: Vec::new(),
        pinned: HashMap::new(),
        synchronizes,
        lane_seq: HashMap::new(),
        packed_loads: HashMap::new(),
        last_packed: None,
        idle: None,
        after_sync: Vec::new(),
        at: None,
        latch_unroll: latch_unroll(f),
        row_tiles: row_tiles::plan(vf, cx.w),
        row_tile_states: HashMap::new(),
        lane_slots: lane_slots::plan(f, vf, synchronizes)
            .into_iter()
            .map(|v| (v, None))
            .collect(),
    };
    g.run()?;
    Ok(func)
}

struct FnGen<'a, 'b, 'ctx> {
    /// The back-edge blocks of loops with an unroll hint, the hint and the
    /// loop statement it is on.
    latch_unroll: HashMap<BlockId, (Unroll, Option<Span>)>,
    /// Vectors a lane loop reads one lane at a time (`lane_slots.rs`).
    lane_slots: lane_slots::Slots<'ctx>,
    /// Loads of lane rows read through transposed tiles (`row_tiles.rs`),
    /// and their tiles' stack objects once a preheader made them.
    row_tiles: row_tiles::Plan,
    row_tile_states: row_tiles::States<'ctx>,
    cx: &'a Cx<'b, 'ctx>,
    vf: &'a VectorFunction,
    f: &'a Function,
    func: FunctionValue<'ctx>,
    full: bool,
    vals: Vec<Option<BasicValueEnum<'ctx>>>,
    blocks: Vec<Option<BasicBlock<'ctx>>>,
    terms: Vec<Option<InstructionValue<'ctx>>>,
    /// Number of LLVM edges from block to block (φs need one entry each).
    edges: HashMap<(BlockId, BlockId), usize>,
    /// The LLVM entry block: geometry loads, allocas, frozen undefs.
    entry: BasicBlock<'ctx>,
    geo: Vec<BasicValueEnum<'ctx>>,
    undefs: HashMap<(Ty, bool), BasicValueEnum<'ctx>>,
    globals: Vec<BasicValueEnum<'ctx>>,
    allocas: HashMap<InstId, BasicValueEnum<'ctx>>,
    /// The work-group plan: save area, `__local` block, barriers.
    plan: Option<&'a Plan>,
    /// The work-group is this one SIMD group: no suspension at barriers,
    /// no save area.
    one_group: bool,
    /// The block each barrier resumes in (state k: `resumes[k - 1]`).
    resumes: Vec<BasicBlock<'ctx>>,
    /// The all-active copy to make, and the block it starts in.
    copy: Option<all_active::Copy>,
    copy_start: Option<BasicBlock<'ctx>>,
    /// Constant-stride accesses emitted together (see `strided.rs`).
    strided: strided::Plan,
    /// Stores that may be non-temporal (`streaming.rs`).
    streams: std::collections::HashSet<InstId>,
    /// Loads that prefetch the work-groups ahead (`prefetch.rs`).
    prefetched: prefetch::Plan,
    /// Values of grouped loads, loaded at their group's first load.
    grouped: HashMap<InstId, BasicValueEnum<'ctx>>,
    /// By block: emitted in mask versions (`mask_versions.rs`).
    versioned: Vec<bool>,
    /// Masks replaced by a constant in the version being emitted.
    pinned: HashMap<ValueId, BasicValueEnum<'ctx>>,
    /// The kernel has barriers or other work-group synchronization.
    synchronizes: bool,
    /// Lane vectors `x0 + <0, 1, ..., W-1>` kept as lane 0's scalar `x0`:
    /// the vector is built where it is used, so a value that only slow
    /// paths need as a vector (`(int)get_global_id(0)` in a stencil's
    /// guards) costs nothing on the path that only reads lane 0.
    lane_seq: HashMap<ValueId, BasicValueEnum<'ctx>>,
    /// Loads emitted as packed vector loads, in the block being emitted:
    /// lane 0's address, for lowerings that read one lane's element again
    /// (`lane_loads.rs`).
    packed_loads: HashMap<ValueId, lane_loads::PackedLoad<'ctx>>,
    /// The packed load `load` just emitted.
    last_packed: Option<lane_loads::PackedLoad<'ctx>>,
    /// Idle tails of the regions, and the body's flag: every block with an
    /// effect this SIMD group ran in the region had a bound it is past.
    idle: Option<(IdleTails, BasicValueEnum<'ctx>)>,
    /// By block, in a body with barriers: reachable from a barrier or
    /// collective, so it may run in a later call of the body than the
    /// values it uses were computed in (`widens`).
    after_sync: Vec<bool>,
    /// The block whose instruction is being emitted.
    at: Option<BlockId>,
}

impl<'a, 'b, 'ctx> FnGen<'a, 'b, 'ctx> {
    fn is_vec(&self, v: ValueId) -> bool {
        !self.vf.is_uniform(v)
    }

    fn w(&self) -> u32 {
        self.cx.w
    }

    /// `x` and the element type when `offset` is `x * 2`, `x * 4` or
    /// `x * 8` on `i64`.
    fn scaled_offset(&self, offset: ValueId) -> Option<(ValueId, BasicTypeEnum<'ctx>)> {
        let ValueDef::Inst(i) = self.f.values[offset.index()].def else {
            return None;
        };
        let InstKind::Bin {
            op: BinOp::Mul,
            lhs,
            rhs,
        } = self.f.inst(i).kind
        else {
            return None;
        };
        if self.f.ty(lhs) != Ty::I64 || !self.is_vec(lhs) {
            return None;
        }
        let ctx = self.cx.ctx;
        match self.f.as_const(rhs)? {
            Const::Int(2, _) => Some((lhs, ctx.i16_type().into())),
            Const::Int(4, _) => Some((lhs, ctx.i32_type().into())),
            Const::Int(8, _) => Some((lhs, ctx.i64_type().into())),
            _ => None,
        }
    }

    fn run(&mut self) -> R<()> {
        let cx = self.cx;
        let f = self.f;
        if self.vf.block_mask.len() < f.blocks.len() || self.vf.mask_nonempty.len() < f.blocks.len()
        {
            return Err("vector function without a mask for every block".into());
        }
        cx.b.position_at_end(self.entry);
        // Group geometry, loaded once.
        let ctxp: BasicValueEnum = self
            .func
            .get_nth_param(f.params.len() as u32)
            .ok_or("missing context parameter")?;
        for k in 0..geo::COUNT {
            let p = cx.gep_bytes(ctxp, cx.i64c(8 * k as u64))?;
            self.geo.push(cx.load(cx.ctx.i64_type().into(), p, 8)?);
        }
        // `__constant` data.
        for gl in &f.globals {
            let arr = cx.ctx.i8_type().array_type(gl.bytes.len() as u32);
            let gv = cx
                .module
                .add_global(arr, None, &format!("{}.{}", f.name, gl.name));
            gv.set_linkage(Linkage::Private);
            gv.set_constant(true);
            gv.set_initializer(&cx.ctx.const_string(&gl.bytes, false));
            gv.set_alignment(align_of(gl.align, Ty::I8));
            self.globals.push(gv.as_pointer_value().into());
        }
        // Reachable blocks in reverse post-order: definitions come before
        // their uses (dominance) except for φ operands, filled in at the end.
        let order = self.rpo();
        for &b in &order {
            let label = &f.block(b).label;
            self.blocks[b.index()] = Some(cx.ctx.append_basic_block(self.func, label));
        }
        // Allocas go to the entry block.
        for &b in &order {
            for &i in &f.block(b).insts {
                if let InstKind::Alloca { size, align } = f.inst(i).kind {
                    self.alloca(i, size, align)?;
                }
            }
        }
        // Whole SIMD groups whose guard mask is all-true run a copy
        // without it (`all_active.rs`).
        self.copy = if self.full && self.plan.is_none() {
            all_active::plan(self.vf, &order)
        } else {
            None
        };
        self.versioned = mask_versions::plan(self.vf, &order, self.synchronizes);
        if self.saved().is_some() {
            self.after_sync = after_sync(self.f);
            let tails = IdleTails::of(self.vf, &Schedule::of(self.vf));
            if tails.any() {
                cx.b.position_at_end(self.entry);
                let flag =
                    cx.b.build_alloca(cx.ctx.bool_type(), "idle")
                        .map_err(|e| format!("{e:?}"))?;
                cx.store(flag.into(), cx.boolc(true), 1)?;
                self.idle = Some((tails, flag.into()));
            }
        }
        let phis = self.emit_blocks(&order)?;
        // The entry block jumps to the IR entry; the IR entry may have φs
        // only if it has predecessors, which then include our entry.
        cx.b.position_at_end(self.entry);
        let first = self.bb(f.entry)?;
        if self.resumes.is_empty() {
            cx.b.build_unconditional_branch(first)
                .map_err(|e| format!("{e:?}"))?;
        } else {
            let state = self
                .func
                .get_last_param()
                .ok_or("missing state parameter")?
                .into_int_value();
            let arms: Vec<_> = self
                .resumes
                .iter()
                .enumerate()
                .map(|(k, &bb)| (cx.ctx.i32_type().const_int(k as u64 + 1, false), bb))
                .collect();
            cx.b.build_switch(state, first, &arms)
                .map_err(|e| format!("{e:?}"))?;
        }
        self.complete_phis(phis)?;
        if let (Some(c), Some(start)) = (self.copy.take(), self.copy_start) {
            self.emit_copy(&c, start)?;
        }
        Ok(())
    }

    /// Emits the instructions of `order` (blocks already created), φs
    /// first so that back edges find them; returns the φs, whose incoming
    /// values [`Self::complete_phis`] adds once every block is done.
    fn emit_blocks(&mut self, order: &[BlockId]) -> R<Vec<(InstId, PhiValue<'ctx>)>> {
        let cx = self.cx;
        let f = self.f;
        let mut phis: Vec<(InstId, PhiValue<'ctx>)> = Vec::new();
        for &b in order {
            cx.b.position_at_end(self.bb(b)?);
            for i in f.phis(b) {
                let inst = f.inst(i);
                let r = inst.result.ok_or("φ without a result")?;
                let t = llty(cx, inst.ty, self.is_vec(r))?;
                let phi = cx.b.build_phi(t, "").map_err(|e| format!("{e:?}"))?;
                self.vals[r.index()] = Some(phi.as_basic_value());
                phis.push((i, phi));
            }
        }
        for &b in order {
            cx.b.position_at_end(self.bb(b)?);
            for i in f.phis(b) {
                if let Some(r) = f.inst(i).result {
                    let v = self.vals[r.index()].ok_or("φ not created")?;
                    self.spill(r, v)?;
                    self.store_lane_slot(r, v)?;
                }
            }
            self.idle_test(b)?;
            let mut terminated = false;
            let mut insts: &[InstId] = &f.block(b).insts;
            if self.versioned.get(b.index()).copied().unwrap_or(false) {
                let body: Vec<InstId> = insts
                    .iter()
                    .copied()
                    .filter(|&i| !f.inst(i).kind.is_phi() && !f.inst(i).kind.is_terminator())
                    .collect();
                self.emit_mask_versions(b, &body)?;
                insts = &insts[insts.len().saturating_sub(1)..];
            }
            for &i in insts {
                let inst = f.inst(i);
                if inst.kind.is_phi() {
                    continue;
                }
                if terminated {
                    return Err(format!("instruction after the terminator of block {}", b.0));
                }
                if let Some(c) = self.copy.as_ref().filter(|c| c.split == b) {
                    if inst.kind.is_terminator() {
                        let c = c.clone();
                        self.copy_start = Some(self.branch_to_copy(&c)?);
                    }
                }
                if inst.kind.is_terminator() {
                    self.idle_branch_test(b)?;
                    self.clear_row_tiles(b)?;
                }
                self.inst(b, i)?;
                if inst.kind.is_work_group_sync() {
                    // The rest of the block runs after resuming.
                    self.idle_test(b)?;
                }
                terminated = inst.kind.is_terminator();
            }
            if !terminated {
                return Err(format!("block {} has no terminator", b.0));
            }
        }
        Ok(phis)
    }

    /// Adds the incoming values of `phis` from the predecessors emitted.
    fn complete_phis(&mut self, phis: Vec<(InstId, PhiValue<'ctx>)>) -> R<()> {
        let cx = self.cx;
        let f = self.f;
        for (i, phi) in phis {
            let inst = f.inst(i);
            let InstKind::Phi { incoming } = &inst.kind else {
                continue;
            };
            let r = inst.result.ok_or("φ without a result")?;
            let vec = self.is_vec(r);
            let b = inst.block;
            let mut done: Vec<BlockId> = Vec::new();
            for &(pred, v) in incoming {
                if done.contains(&pred) || self.blocks.get(pred.index()).is_none_or(|x| x.is_none())
                {
                    continue;
                }
                done.push(pred);
                let n = self.edges.get(&(pred, b)).copied().unwrap_or(0);
                if n == 0 {
                    continue;
                }
                let term = self.terms[pred.index()].ok_or("predecessor without terminator")?;
                cx.b.position_before(&term);
                let x = self.get(v, vec)?;
                // The LLVM block that ends the IR block (a barrier or a
                // lane loop may have split it).
                let pb = term.get_parent().ok_or("terminator without block")?;
                for _ in 0..n {
                    phi.add_incoming(&[(&x as &dyn BasicValue, pb)]);
                }
            }
            if b == f.entry {
                cx.b.position_before(
                    &self
                        .entry
                        .get_terminator()
                        .ok_or("entry without terminator")?,
                );
                let x = self.undef(inst.ty, vec)?;
                phi.add_incoming(&[(&x as &dyn BasicValue, self.entry)]);
            }
        }
        Ok(())
    }

    fn rpo(&self) -> Vec<BlockId> {
        reachable(self.f)
    }

    fn bb(&self, b: BlockId) -> R<BasicBlock<'ctx>> {
        self.blocks
            .get(b.index())
            .copied()
            .flatten()
            .ok_or_else(|| format!("block {} is not reachable", b.0))
    }

    /// A frozen poison of the type, created once in the entry block.
    fn undef(&mut self, ty: Ty, vec: bool) -> R<BasicValueEnum<'ctx>> {
        if let Some(&v) = self.undefs.get(&(ty, vec)) {
            return Ok(v);
        }
        let cx = self.cx;
        let t = llty(cx, ty, vec)?;
        let here = cx.b.get_insert_block();
        match self.entry.get_first_instruction() {
            Some(i) => cx.b.position_before(&i),
            None => cx.b.position_at_end(self.entry),
        }
        let poison = unsafe {
            bv(inkwell::llvm_sys::core::LLVMGetPoison(
                inkwell::types::AsTypeRef::as_type_ref(&t),
            ))
        };
        let v = cx.freeze(poison)?;
        if let Some(h) = here {
            self.restore(h);
        }
        self.undefs.insert((ty, vec), v);
        Ok(v)
    }

    /// Puts the builder back where it was (end of block, or before its
    /// terminator when the block is already terminated).
    fn restore(&self, h: BasicBlock<'ctx>) {
        match h.get_terminator() {
            Some(t) => self.cx.b.position_before(&t),
            None => self.cx.b.position_at_end(h),
        }
    }

    /// Value `v` in the wanted form.
    fn get(&mut self, v: ValueId, vec: bool) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let val = self
            .f
            .values
            .get(v.index())
            .ok_or_else(|| format!("value %{} does not exist", v.0))?;
        if let Some(&p) = self.pinned.get(&v) {
            return cx.coerce(p, vec);
        }
        let base = match &val.def {
            ValueDef::Const(c) => match *c {
                Const::Int(bits, t) => {
                    let lt = llty(cx, t, false)?;
                    cx.const_of(lt, bits, 0.0)
                }
                Const::Float(x, t) => {
                    let lt = llty(cx, t, false)?;
                    let x = if t == Ty::F32 { x as f32 as f64 } else { x };
                    cx.const_of(lt, 0, x)
                }
                Const::Null(_) => cx.ctx.ptr_type(LlvmSpace::default()).const_null().into(),
                Const::Undef(t) => return self.undef(t, vec),
            },
            ValueDef::Local(n) => {
                let off = self
                    .plan
                    .and_then(|p| p.locals.get(*n as usize))
                    .ok_or_else(|| format!("`__local` variable {n} has no place"))?;
                let base = self.wg_param(1)?;
                cx.gep_bytes(base, cx.i64c(*off))?
            }
            ValueDef::Param(n) => self
                .func
                .get_nth_param(*n)
                .ok_or_else(|| format!("parameter {n} does not exist"))?,
            ValueDef::Global(n) => *self
                .globals
                .get(*n as usize)
                .ok_or_else(|| format!("global {n} does not exist"))?,
            ValueDef::Inst(i) if self.saved().is_some_and(|p| p.remat.contains(&v)) => {
                let own = self.is_vec(v);
                match self.f.inst(*i).kind {
                    InstKind::WorkItem { query, dim } => {
                        let r = self.work_item(query, dim, val.ty)?;
                        cx.coerce(r, own)?
                    }
                    // A conversion of a query: the query again, converted.
                    InstKind::Cast { op, value } => {
                        let InstKind::WorkItem { query, dim } = self
                            .f
                            .def_inst(value)
                            .map(|q| self.f.inst(q).kind.clone())
                            .ok_or_else(|| format!("value %{} is not a query", value.0))?
                        else {
                            return Err(format!("value %{} is not a work-item query", value.0));
                        };
                        let from = self.f.ty(value);
                        let x = self.work_item(query, dim, from)?;
                        let x = cx.coerce(x, own)?;
                        let r = self.cast(op, from, val.ty, x, own)?;
                        cx.coerce(r, own)?
                    }
                    _ => return Err(format!("value %{} is not a work-item query", v.0)),
                }
            }
            ValueDef::Inst(_) => match self.slot(v) {
                // Kept in the save area or the shared slots: it may come
                // from before a barrier.
                Some((k, off)) => {
                    let own = self.is_vec(v);
                    let t = llty(cx, val.ty, own)?;
                    let q = cx.gep_bytes(self.wg_param(k)?, cx.i64c(off))?;
                    cx.load(t, q, slot_align(off))?
                }
                None => match self.lane_seq.get(&v) {
                    Some(&x0) if vec => {
                        let t = x0.get_type().into_int_type();
                        return cx.binop(Op::LLVMAdd, cx.splat(x0)?, cx.iota(t));
                    }
                    Some(&x0) => x0,
                    None => self.vals[v.index()]
                        .ok_or_else(|| format!("value %{} used before its definition", v.0))?,
                },
            },
        };
        cx.coerce(base, vec)
    }

    /// A barrier: stop here; the entry points run the other SIMD groups of
    /// the work-group up to it, then resume each in the block that follows.
    fn suspend(&mut self) -> R<()> {
        if self.one_group {
            // Nothing else of the work-group runs in between.
            return Ok(());
        }
        let cx = self.cx;
        let k = self.resumes.len() as u64 + 1;
        self.report_idle()?;
        cx.b.build_return(Some(&cx.ctx.i32_type().const_int(k, false)))
            .map_err(|e| format!("{e:?}"))?;
        let resume = cx.ctx.append_basic_block(self.func, &format!("resume.{k}"));
        self.resumes.push(resume);
        cx.b.position_at_end(resume);
        Ok(())
    }

    /// Before block `b` with an effect: the SIMD group stays idle only if
    /// it is past the block's bound (no lane of it or of a later SIMD group
    /// is active in the block).
    fn idle_test(&mut self, b: BlockId) -> R<()> {
        let Some((tails, _)) = &self.idle else {
            return Ok(());
        };
        match tails.effects.get(&b).copied() {
            Some(bound) => self.idle_past(bound),
            None => Ok(()),
        }
    }

    /// Before the terminator of `b`: a branch on `sub_group_any(c)` with a
    /// bound in `c` keeps the SIMD group idle only past the bound (then it
    /// and every later SIMD group take the same side).
    fn idle_branch_test(&mut self, b: BlockId) -> R<()> {
        let Some((tails, _)) = &self.idle else {
            return Ok(());
        };
        match tails.branches.get(&b).copied() {
            Some(bound) => self.idle_past(Some(bound)),
            None => Ok(()),
        }
    }

    /// The idle flag and'ed with "past `bound`" (false for `None`).
    fn idle_past(&mut self, bound: Option<lanes_vectorizer::idle_tail::Bound>) -> R<()> {
        let Some((_, flag)) = &self.idle else {
            return Ok(());
        };
        let (cx, flag) = (self.cx, *flag);
        let past = match bound {
            None => cx.boolc(false),
            Some(bd) => {
                let u = self.get(bd.value, false)?;
                let t = u.get_type();
                let x = self.geo[geo::XSTART as usize];
                let x = if t == x.get_type() {
                    x
                } else {
                    cx.cast(Op::LLVMTrunc, x, t)?
                };
                let p = match (bd.strict, bd.signed) {
                    (false, true) => IP::LLVMIntSGE,
                    (true, true) => IP::LLVMIntSGT,
                    (false, false) => IP::LLVMIntUGE,
                    (true, false) => IP::LLVMIntUGT,
                };
                cx.icmp(p, x, u)?
            }
        };
        let old = cx.load(cx.ctx.bool_type().into(), flag, 1)?;
        let now = cx.binop(Op::LLVMAnd, old, past)?;
        cx.store(flag, now, 1)
    }

    /// Where the body returns: tells the entry points whether this SIMD
    /// group begins the idle tail of the region it ran.
    fn report_idle(&mut self) -> R<()> {
        let Some((_, flag)) = &self.idle else {
            return Ok(());
        };
        let cx = self.cx;
        let idle = cx.load(cx.ctx.bool_type().into(), *flag, 1)?;
        let idle = cx.cast(Op::LLVMZExt, idle, cx.ctx.i64_type().into())?;
        let ctxp: BasicValueEnum = self
            .func
            .get_nth_param(self.f.params.len() as u32)
            .ok_or("missing context parameter")?;
        let p = cx.gep_bytes(ctxp, cx.i64c(8 * geo::IDLE_TAIL as u64))?;
        cx.store(p, idle, 8)
    }

    /// The plan of what the body keeps in its save area across barriers
    /// (none when the work-group is one SIMD group).
    fn saved(&self) -> Option<&'a Plan> {
        self.plan.filter(|_| !self.one_group)
    }

    /// Where `v` is kept across barriers: the work-group parameter (0, the
    /// save area, or 3, the shared slots) and the byte offset there.
    fn slot(&self, v: ValueId) -> Option<(u32, u64)> {
        let p = self.saved()?;
        if let Some(&off) = p.shared.get(&v) {
            return Some((3, off));
        }
        p.spills.get(&v).map(|&off| (0, off))
    }

    /// The save area (`k` = 0), the `__local` block (`k` = 1), the
    /// collectives' scratch array (`k` = 2) or the shared slots (`k` = 3)
    /// of a body with a work-group plan.
    fn wg_param(&self, k: u32) -> R<BasicValueEnum<'ctx>> {
        self.func
            .get_nth_param(self.f.params.len() as u32 + 1 + k)
            .ok_or_else(|| "work-group memory outside a work-group body".into())
    }

    /// Stores `v`, the value of `r` in its own form, to its save slot if it
    /// has one.
    fn spill(&mut self, r: ValueId, v: BasicValueEnum<'ctx>) -> R<()> {
        let Some((k, off)) = self.slot(r) else {
            return Ok(());
        };
        let cx = self.cx;
        let q = cx.gep_bytes(self.wg_param(k)?, cx.i64c(off))?;
        cx.store(q, v, slot_align(off))
    }

    /// The mask of block `b` as a `<W x i1>` vector.
    fn mask_vec(&mut self, b: BlockId) -> R<BasicValueEnum<'ctx>> {
        let m = self.vf.block_mask[b.index()];
        self.get(m, true)
    }

    /// The mask of block `b` in its own form (scalar when uniform).
    fn mask_own(&mut self, b: BlockId) -> R<BasicValueEnum<'ctx>> {
        let m = self.vf.block_mask[b.index()];
        let v = self.is_vec(m);
        self.get(m, v)
    }

    /// True when some lane of block `b` is active.
    fn mask_any(&mut self, b: BlockId) -> R<BasicValueEnum<'ctx>> {
        let m = self.mask_own(b)?;
        self.cx.any(m)
    }

    fn set(&mut self, id: InstId, v: BasicValueEnum<'ctx>) -> R<()> {
        if let Some(r) = self.f.inst(id).result {
            self.lane_seq.remove(&r);
            let v = self.cx.coerce(v, self.is_vec(r))?;
            self.vals[r.index()] = Some(v);
            self.spill(r, v)?;
            self.store_lane_slot(r, v)?;
        }
        Ok(())
    }

    fn alloca(&mut self, id: InstId, size: u64, align: u64) -> R<()> {
        let cx = self.cx;
        let here = cx.b.get_insert_block();
        cx.b.position_at_end(self.entry);
        let r = self.f.inst(id).result.ok_or("alloca without result")?;
        let per_lane = self.is_vec(r);
        let size = size.max(1);
        if let Some(&off) = self.saved().and_then(|p| p.allocas.get(&id)) {
            // A body with barriers keeps private objects in its save area.
            let p = cx.gep_bytes(self.wg_param(0)?, cx.i64c(off))?;
            let v = if per_lane {
                let offs: Vec<_> = (0..self.w() as u64)
                    .map(|l| cx.ctx.i64_type().const_int(l * size, false))
                    .collect();
                let offs = inkwell::types::VectorType::const_vector(&offs);
                cx.gep_bytes(p, offs.into())?
            } else {
                p
            };
            self.allocas.insert(id, v);
            if let Some(h) = here {
                self.restore(h);
            }
            return Ok(());
        }
        let total = if per_lane {
            size.checked_mul(self.w() as u64)
        } else {
            Some(size)
        }
        .filter(|&t| t <= u32::MAX as u64)
        .ok_or("private object too large")?;
        let arr = cx.ctx.i8_type().array_type(total as u32);
        let p = cx.b.build_alloca(arr, "").map_err(|e| format!("{e:?}"))?;
        let al = align_of(align, Ty::I64).max(if per_lane { 16 } else { 1 });
        if let Some(i) = p.as_instruction() {
            i.set_alignment(al).map_err(|e| e.to_string())?;
        }
        let v: BasicValueEnum = if per_lane {
            // Lane l's object at base + l * size.
            let offs: Vec<_> = (0..self.w() as u64)
                .map(|l| cx.ctx.i64_type().const_int(l * size, false))
                .collect();
            let offs = inkwell::types::VectorType::const_vector(&offs);
            cx.gep_bytes(p.into(), offs.into())?
        } else {
            p.into()
        };
        self.allocas.insert(id, v);
        if let Some(h) = here {
            self.restore(h);
        }
        Ok(())
    }

    fn inst(&mut self, b: BlockId, id: InstId) -> R<()> {
        self.at = Some(b);
        let cx = self.cx;
        let f = self.f;
        let inst = f.inst(id);
        let rv = inst.result.is_some_and(|r| self.is_vec(r));
        let ty = inst.ty;
        match &inst.kind {
            InstKind::Phi { .. } => Ok(()),
            InstKind::Bin { op, lhs, rhs } => {
                let vec = rv || self.is_vec(*lhs) || self.is_vec(*rhs);
                let x = self.get(*lhs, vec)?;
                let y = self.get(*rhs, vec)?;
                let r = self.binary(b, *op, ty, x, y, *rhs, vec)?;
                self.set(id, r)
            }
            InstKind::FNeg(x) => {
                let vec = rv || self.is_vec(*x);
                let x = self.get(*x, vec)?;
                let r = cx.fneg(x)?;
                self.set(id, r)
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                let vec = rv || self.is_vec(*lhs) || self.is_vec(*rhs);
                let (lhs, rhs) = narrow_compare(f, *pred, *lhs, *rhs);
                let x = self.get(lhs, vec)?;
                let y = self.get(rhs, vec)?;
                let r = compare(cx, *pred, x, y)?;
                self.set(id, r)
            }
            InstKind::Select { cond, then, els } => {
                let cvec = self.is_vec(*cond);
                if cvec && !rv {
                    // A uniform select on a varying condition: the shape
                    // analysis found both arms equal, or one arm `undef`
                    // (which may be anything, so it takes the other arm's
                    // value). A lane-wise select would leave undef lanes
                    // with garbage, so take the defined arm.
                    let is_undef = |v: ValueId| {
                        matches!(f.as_const(v), Some(Const::Undef(_)))
                            || self.vf.shape(v).is_bottom()
                    };
                    let pick = if is_undef(*then) { *els } else { *then };
                    let r = self.get(pick, false)?;
                    return self.set(id, r);
                }
                let vec = rv || cvec || self.is_vec(*then) || self.is_vec(*els);
                let c = self.get(*cond, cvec)?;
                let t = self.get(*then, vec)?;
                let e = self.get(*els, vec)?;
                let r = cx.select(c, t, e)?;
                self.set(id, r)
            }
            InstKind::Cast {
                op: CastOp::SExt,
                value,
            } if ty == Ty::I64 && self.widens(*value) => {
                let vec = rv || self.is_vec(*value);
                let r = self.widened(*value, vec, 0)?;
                self.set(id, r)
            }
            InstKind::Cast {
                op: CastOp::Trunc,
                value,
            } if rv && (8..64).contains(&ty.bits()) && self.is_row_id(*value) => {
                // `(int)get_global_id(0)`: lane 0's id truncated, plus the
                // lane numbers, so the `<W x i64>` ids (which the widened
                // addresses read lane 0 of) need no narrowing shuffles.
                let x = self.get(*value, true)?;
                let x0 = cx.extract(x, 0)?;
                let t = llty(cx, ty, false)?;
                let n0 = cx.cast(Op::LLVMTrunc, x0, t)?;
                let r = cx.binop(Op::LLVMAdd, cx.splat(n0)?, cx.iota(t.into_int_type()))?;
                self.set(id, r)?;
                // Users take the vector from `n0` where they are (`get`);
                // `r` is kept for a save slot and is dead otherwise.
                if let Some(v) = inst.result {
                    self.lane_seq.insert(v, n0);
                }
                Ok(())
            }
            InstKind::Cast { op, value } => {
                let vec = rv || self.is_vec(*value);
                let x = self.get(*value, vec)?;
                let from = f.ty(*value);
                let r = self.cast(*op, from, ty, x, vec)?;
                self.set(id, r)
            }
            InstKind::Alloca { .. } => {
                let v = *self.allocas.get(&id).ok_or("alloca not prepared")?;
                self.set(id, v)
            }
            InstKind::Load { .. } | InstKind::Store { .. }
                if self.strided.group_of.contains_key(&id) =>
            {
                if let Some(r) = inst.result {
                    self.packed_loads.remove(&r);
                }
                self.grouped_access(b, id)
            }
            InstKind::Load { ptr, align } => {
                self.last_packed = None;
                let r = self.load(b, *ptr, ty, *align)?;
                if self.prefetched.loads.contains(&id) {
                    if let Some(p0) = self.last_packed.as_ref().map(|pl| pl.p0) {
                        self.prefetch_ahead(*ptr, p0)?;
                    }
                }
                if let Some(v) = inst.result {
                    match self.last_packed.take() {
                        Some(pl) => self.packed_loads.insert(v, pl),
                        None => self.packed_loads.remove(&v),
                    };
                }
                self.set(id, r)
            }
            InstKind::Store { ptr, value, align } if self.streams.contains(&id) => {
                self.streaming_store(b, *ptr, *value, *align)
            }
            InstKind::Store { ptr, value, align } => self.store(b, *ptr, *value, *align),
            InstKind::PtrAdd { base, offset } => {
                let bvec = self.is_vec(*base);
                let ovec = self.is_vec(*offset);
                let p = self.get(*base, bvec)?;
                let mut o = self.get(*offset, ovec)?;
                let oty = f.ty(*offset);
                if oty != Ty::I64 {
                    if !oty.is_int() {
                        return Err(format!("pointer offset of type {oty}"));
                    }
                    let t = llty(cx, Ty::I64, ovec)?;
                    o = cx.cast(Op::LLVMSExt, o, t)?;
                }
                // A vector base with a scalar offset: splat the offset so
                // the GEP's operands agree.
                if bvec && !ovec {
                    o = cx.splat(o)?;
                }
                let gathered = inst
                    .result
                    .is_some_and(|r| matches!(self.vf.shape(r), Shape::Varying { .. }));
                let r = match self.scaled_offset(*offset).filter(|_| ovec && gathered) {
                    // The address of a gather or scatter, `base + x * size`,
                    // as `&base[x]`: LLVM then gathers
                    // with `x` as the index and `size` as the scale, in
                    // 32-bit lanes (`vpgatherdd`, one instruction for 8
                    // lanes) when `x` is a sign-extended `int`; byte offsets
                    // need 64-bit lanes (two `vpgatherqd`).
                    Some((x, elem)) => {
                        let x = self.get(x, true)?;
                        let p = if bvec { p } else { cx.splat(p)? };
                        cx.gep_elems(elem, p, x)?
                    }
                    None => cx.gep_bytes(p, o)?,
                };
                self.set(id, r)
            }
            InstKind::WorkItem { query, dim } => {
                let r = self.work_item(*query, *dim, ty)?;
                self.set(id, r)
            }
            InstKind::Math { func, args } => {
                let vec = rv || args.iter().any(|&a| self.is_vec(a));
                let mut xs = Vec::with_capacity(args.len());
                for &a in args {
                    xs.push(self.get(a, vec)?);
                }
                let r = call_math(cx.ctx, cx.module, cx.b, *func, &xs)?;
                self.set(id, r)
            }
            InstKind::Horizontal { op, args } => {
                let r = self.horizontal(b, *op, args, ty)?;
                self.set(id, r)
            }
            // `kernel_code` refuses kernels with work-group features before
            // they get here.
            InstKind::Barrier { .. } => self.suspend(),
            InstKind::Atomic { op, ptr, args } => {
                let r = self.atomic(b, id, *op, *ptr, args, ty)?;
                if let Some(r) = r {
                    self.set(id, r)?;
                }
                Ok(())
            }
            InstKind::WorkGroup { op, args } => self.collective(b, id, *op, args, ty),
            // Refused before code generation (`refuse.rs`).
            InstKind::Printf { .. } => Err("`printf` cannot be compiled".into()),
            // Refused by `kernel_code` too (`L0904`).
            InstKind::ImageRead { .. }
            | InstKind::ImageWrite { .. }
            | InstKind::ImageQuery { .. } => Err("images are not compiled yet".into()),
            InstKind::Br(t) => {
                let tb = self.bb(*t)?;
                let i =
                    cx.b.build_unconditional_branch(tb)
                        .map_err(|e| format!("{e:?}"))?;
                self.terminated(b, i, &[*t]);
                Ok(())
            }
            InstKind::CondBr { cond, then, els } => {
                if self.is_vec(*cond) {
                    return Err(
                        "a branch on a lane-varying condition in vector IR (not linearized)".into(),
                    );
                }
                if f.ty(*cond) != Ty::I1 {
                    return Err("branch condition is not i1".into());
                }
                let c = self.get(*cond, false)?;
                let (tb, eb) = (self.bb(*then)?, self.bb(*els)?);
                let i =
                    cx.b.build_conditional_branch(c.into_int_value(), tb, eb)
                        .map_err(|e| format!("{e:?}"))?;
                self.terminated(b, i, &[*then, *els]);
                Ok(())
            }
            InstKind::Switch {
                value,
                default,
                cases,
            } => {
                if self.is_vec(*value) {
                    return Err("a switch on a lane-varying value in vector IR".into());
                }
                if !f.ty(*value).is_int() {
                    return Err("switch on a non-integer".into());
                }
                let x = self.get(*value, false)?.into_int_value();
                let it = x.get_type();
                let bits = f.ty(*value).bits();
                let mut seen: Vec<u64> = Vec::new();
                let mut arms = Vec::new();
                let mut succ = vec![*default];
                for &(c, t) in cases {
                    let c = lanes_vectorizer::ir::truncate(c, bits);
                    if seen.contains(&c) {
                        continue; // the first matching case wins
                    }
                    seen.push(c);
                    arms.push((it.const_int(c, false), self.bb(t)?));
                    succ.push(t);
                }
                let i =
                    cx.b.build_switch(x, self.bb(*default)?, &arms)
                        .map_err(|e| format!("{e:?}"))?;
                self.terminated(b, i, &succ);
                Ok(())
            }
            InstKind::Ret => {
                self.report_idle()?;
                let i = if self.plan.is_some() {
                    cx.b.build_return(Some(&cx.ctx.i32_type().const_zero()))
                } else {
                    cx.b.build_return(None)
                }
                .map_err(|e| format!("{e:?}"))?;
                self.terminated(b, i, &[]);
                Ok(())
            }
            InstKind::Unreachable => {
                let i = cx.b.build_unreachable().map_err(|e| format!("{e:?}"))?;
                self.terminated(b, i, &[]);
                Ok(())
            }
        }
    }

    fn terminated(&mut self, b: BlockId, i: InstructionValue<'ctx>, succ: &[BlockId]) {
        self.terms[b.index()] = Some(i);
        let serial = self.f.serial_latches.contains(&b);
        let hint = self.latch_unroll.get(&b).copied();
        if serial || hint.is_some() {
            loop_metadata(self.cx, i, serial, hint);
        }
        for &s in succ {
            *self.edges.entry((b, s)).or_insert(0) += 1;
        }
    }

    fn binary(
        &mut self,
        b: BlockId,
        op: BinOp,
        ty: Ty,
        x: BasicValueEnum<'ctx>,
        y: BasicValueEnum<'ctx>,
        divisor: ValueId,
        vec: bool,
    ) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let code = match op {
            BinOp::Add => Op::LLVMAdd,
            BinOp::Sub => Op::LLVMSub,
            BinOp::Mul => Op::LLVMMul,
            BinOp::SDiv => Op::LLVMSDiv,
            BinOp::UDiv => Op::LLVMUDiv,
            BinOp::SRem => Op::LLVMSRem,
            BinOp::URem => Op::LLVMURem,
            BinOp::Shl => Op::LLVMShl,
            BinOp::LShr => Op::LLVMLShr,
            BinOp::AShr => Op::LLVMAShr,
            BinOp::And => Op::LLVMAnd,
            BinOp::Or => Op::LLVMOr,
            BinOp::Xor => Op::LLVMXor,
            BinOp::FAdd => Op::LLVMFAdd,
            BinOp::FSub => Op::LLVMFSub,
            BinOp::FMul => Op::LLVMFMul,
            BinOp::FDiv => Op::LLVMFDiv,
            BinOp::FRem => {
                return call_math(cx.ctx, cx.module, cx.b, MathFn::Fmod, &[x, y]);
            }
        };
        if op.is_int_division() {
            if let Some((amount, bits)) = self.f.one_shifted(divisor) {
                return self.divide_by_power_of_two(op, x, amount, bits, vec);
            }
        }
        let mut y = y;
        if op.is_int_division() && self.divisor_may_trap(op, divisor, y) {
            // Lanes (or whole groups) that do not run this division must not
            // trap: their divisor becomes 1.
            let one = cx.coerce(cx.const_of(cx.elem_type(y), 1, 1.0), vec)?;
            if vec {
                let m = self.mask_own(b)?;
                y = cx.select(m, y, one)?;
            } else if !self.vf.mask_nonempty[b.index()] {
                let any = self.mask_any(b)?;
                y = cx.select(any, y, one)?;
            }
        }
        if matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr) {
            let bits = ty.bits().max(1) as u64;
            let m = cx.coerce(cx.const_of(cx.elem_type(y), bits - 1, 0.0), vec)?;
            y = cx.binop(Op::LLVMAnd, y, m)?;
        }
        cx.binop(code, x, y)
    }

    /// Whether a lane that does not run an integer division or remainder
    /// (an inactive lane, or the whole group in a block no lane may reach)
    /// could trap in it. Such a lane still executes the LLVM instruction on
    /// whatever its operands hold, and that traps only for a divisor of 0,
    /// or -1 with an `INT_MIN` dividend when signed. So the divisor needs
    /// no guard when every lane of it is known to be neither 0 nor, for
    /// `sdiv`/`srem`, -1 (see docs/codegen.md, "Integer division"):
    /// - an integer constant, splat or per lane, none of whose lanes is 0
    ///   (or -1 when signed);
    /// - `c << k` with `c` an odd constant other than -1: the shift amount
    ///   is masked to `k mod bits` (OpenCL's rule), so bit `k` of the result
    ///   is set, and only `-1 << 0` is -1; this is OpenCL's `1u << k`;
    /// - a `zext` or `sext` of such a shift (nonzero stays nonzero; a
    ///   widening `zext` clears the sign bit, a `sext` of a value other than
    ///   -1 is not -1).
    ///
    /// An unguarded constant divisor lets LLVM turn the division into
    /// shifts or a multiplication; `1 << k` is lowered by
    /// `divide_by_power_of_two`.
    fn divisor_may_trap(&self, op: BinOp, divisor: ValueId, y: BasicValueEnum<'ctx>) -> bool {
        let signed = matches!(op, BinOp::SDiv | BinOp::SRem);
        if let Some(lanes) = const_int_lanes(y) {
            return lanes.iter().any(|&d| d == 0 || (signed && d == -1));
        }
        !self.is_odd_shift(divisor)
    }

    /// `divisor` is `c << k` (through widening or same-width `zext`s and
    /// `sext`s) with `c` an odd constant other than -1: never 0 and never -1.
    fn is_odd_shift(&self, divisor: ValueId) -> bool {
        let f = self.f;
        let Some(id) = f.def_inst(divisor) else {
            return false;
        };
        match f.inst(id).kind {
            InstKind::Bin {
                op: BinOp::Shl,
                lhs,
                ..
            } => match f.as_const(lhs) {
                Some(Const::Int(c, t)) => {
                    let bits = t.bits();
                    let c = lanes_vectorizer::ir::truncate(c, bits);
                    c & 1 == 1 && c != lanes_vectorizer::ir::truncate(u64::MAX, bits)
                }
                _ => false,
            },
            InstKind::Cast {
                op: CastOp::ZExt | CastOp::SExt,
                value,
            } => f.ty(value).bits() <= f.ty(divisor).bits() && self.is_odd_shift(value),
            _ => false,
        }
    }

    /// `x / (1 << k)` or `x % (1 << k)` as shifts and masks, where the shift
    /// was done in a type of `shl_bits` bits (so `k` is taken modulo that).
    /// Signed division rounds toward zero: a negative dividend is biased by
    /// `2^k - 1` before the arithmetic shift; `1 << (n - 1)` in an `n`-bit
    /// type is `INT_MIN`, by which only `INT_MIN` itself has quotient 1.
    /// The remainder is `x - (q << k)` in wrapping arithmetic.
    fn divide_by_power_of_two(
        &mut self,
        op: BinOp,
        x: BasicValueEnum<'ctx>,
        amount: ValueId,
        shl_bits: u32,
        vec: bool,
    ) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let et = cx.elem_type(x);
        let n = match et {
            BasicTypeEnum::IntType(t) => t.get_bit_width(),
            _ => return Err(format!("integer `{}` of a non-integer", op.name())),
        };
        let c = |v: u64| cx.coerce(cx.const_of(et, v, 0.0), vec);
        let k = self.get(amount, vec)?;
        let kmask = cx.coerce(
            cx.const_of(cx.elem_type(k), u64::from(shl_bits - 1), 0.0),
            vec,
        )?;
        let mut s = cx.binop(Op::LLVMAnd, k, kmask)?;
        if shl_bits < n {
            s = cx.cast(Op::LLVMZExt, s, x.get_type())?;
        }
        let d = cx.binop(Op::LLVMShl, c(1)?, s)?;
        let low = cx.binop(Op::LLVMSub, d, c(1)?)?;
        match op {
            BinOp::UDiv => return cx.binop(Op::LLVMLShr, x, s),
            BinOp::URem => return cx.binop(Op::LLVMAnd, x, low),
            _ => {}
        }
        let sign = cx.binop(Op::LLVMAShr, x, c(u64::from(n - 1))?)?;
        let bias = cx.binop(Op::LLVMAnd, sign, low)?;
        let biased = cx.binop(Op::LLVMAdd, x, bias)?;
        let mut q = cx.binop(Op::LLVMAShr, biased, s)?;
        if shl_bits == n {
            let by_min = cx.icmp(IP::LLVMIntEQ, s, c(u64::from(n - 1))?)?;
            let is_min = cx.icmp(IP::LLVMIntEQ, x, c(1u64 << (n - 1))?)?;
            let q_min = cx.cast(Op::LLVMZExt, is_min, x.get_type())?;
            q = cx.select(by_min, q_min, q)?;
        }
        if op == BinOp::SDiv {
            Ok(q)
        } else {
            let qd = cx.binop(Op::LLVMShl, q, s)?;
            cx.binop(Op::LLVMSub, x, qd)
        }
    }

    fn cast(
        &mut self,
        op: CastOp,
        from: Ty,
        to: Ty,
        x: BasicValueEnum<'ctx>,
        vec: bool,
    ) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let t = llty(cx, to, vec)?;
        let (fb, tb) = (from.bits(), to.bits());
        let int_change = |grow: Op| -> R<BasicValueEnum<'ctx>> {
            if !from.is_int() || !to.is_int() {
                return Err(format!("`{}` from {from} to {to}", op.name()));
            }
            if fb == tb {
                Ok(x)
            } else if fb > tb {
                cx.cast(Op::LLVMTrunc, x, t)
            } else {
                cx.cast(grow, x, t)
            }
        };
        match op {
            CastOp::Trunc | CastOp::ZExt => int_change(Op::LLVMZExt),
            CastOp::SExt => int_change(Op::LLVMSExt),
            CastOp::FpTrunc | CastOp::FpExt => {
                if fb == tb {
                    Ok(x)
                } else if fb > tb {
                    cx.cast(Op::LLVMFPTrunc, x, t)
                } else {
                    cx.cast(Op::LLVMFPExt, x, t)
                }
            }
            CastOp::FpToSi => {
                let r = cx.cast(Op::LLVMFPToSI, x, t)?;
                cx.freeze(r)
            }
            CastOp::FpToUi => {
                let r = cx.cast(Op::LLVMFPToUI, x, t)?;
                cx.freeze(r)
            }
            CastOp::FpToSiSat => cx.intrinsic("llvm.fptosi.sat", &[t, x.get_type()], &[x]),
            CastOp::FpToUiSat => cx.intrinsic("llvm.fptoui.sat", &[t, x.get_type()], &[x]),
            // An i1 `true` is -1 as a signed value, in LLVM as in the interpreter.
            CastOp::SiToFp => cx.cast(Op::LLVMSIToFP, x, t),
            CastOp::UiToFp => cx.cast(Op::LLVMUIToFP, x, t),
            CastOp::Bitcast => {
                if from == to {
                    Ok(x)
                } else if fb == tb {
                    cx.cast(Op::LLVMBitCast, x, t)
                } else {
                    Err(format!("bitcast from {from} to {to}"))
                }
            }
            CastOp::PtrToInt => {
                if !from.is_ptr() {
                    return Err(format!("ptrtoint from {from}"));
                }
                cx.cast(Op::LLVMPtrToInt, x, t)
            }
            CastOp::IntToPtr => {
                if from.is_ptr() {
                    return Ok(x);
                }
                cx.cast(Op::LLVMIntToPtr, x, t)
            }
            CastOp::PtrCast => Ok(x),
            CastOp::HalfToFp => crate::half::half_to_fp(cx, x, to == Ty::F64, vec),
            CastOp::FpToHalf => crate::half::fp_to_half(cx, x, from == Ty::F64, vec),
        }
    }

    /// True when `v`, a narrower signed `+`, `-` or `*` whose overflow is
    /// undefined ([`Function::nsw`]) or an id truncated to `int`, is
    /// sign-extended to `i64` in 64 bits ([`Self::widened`]): its shape is
    /// uniform or unit-stride, so the result is a
    /// scalar or lane 0 of a packed access, never a gather's index (which
    /// stays 32-bit for `vpgatherdd`).
    fn widens(&self, v: ValueId) -> bool {
        // Across a barrier only the values the save plan keeps are
        // available, not the operands a widened value is recomputed from;
        // in a block no barrier reaches (the first region: reduction's and
        // scan's loads) every operand was computed in this call of the
        // body, as they dominate the block.
        let same_call = self.saved().is_none()
            || self
                .at
                .is_some_and(|b| !self.after_sync.get(b.index()).copied().unwrap_or(true));
        same_call
            && matches!(self.vf.shape(v), Shape::Strided { stride: -1..=1, .. })
            && self.f.ty(v).is_int()
            && self
                .f
                .def_inst(v)
                .is_some_and(|d| match self.f.inst(d).kind {
                    InstKind::Bin {
                        op: BinOp::Add | BinOp::Sub | BinOp::Mul,
                        ..
                    } => self.f.nsw.contains(&v),
                    InstKind::Cast {
                        op: CastOp::Trunc,
                        value,
                    } => self.f.ty(v).bits() >= 32 && self.is_id(value),
                    _ => false,
                })
    }

    /// True when `v` is a global, local or group id (in `[0, 2^31)`).
    fn is_id(&self, v: ValueId) -> bool {
        self.f.ty(v) == Ty::I64
            && self.f.def_inst(v).is_some_and(|d| {
                matches!(
                    self.f.inst(d).kind,
                    InstKind::WorkItem {
                        query: WorkItem::GlobalId | WorkItem::LocalId | WorkItem::GroupId,
                        ..
                    }
                )
            })
    }

    /// True when `v` is a global or local id of lanes one apart: lane 0's
    /// id plus the lane number.
    fn is_row_id(&self, v: ValueId) -> bool {
        self.f.ty(v) == Ty::I64
            && matches!(self.vf.shape(v), Shape::Strided { stride: 1, .. })
            && self.f.def_inst(v).is_some_and(|d| {
                matches!(
                    self.f.inst(d).kind,
                    InstKind::WorkItem {
                        query: WorkItem::GlobalId | WorkItem::LocalId,
                        ..
                    }
                )
            })
    }

    /// `sext v to i64` computed in 64 bits: a signed `+`, `-`, `*` whose
    /// overflow is undefined equals the same operation on its widened
    /// operands on every lane that runs it, and a global, local or group
    /// id truncated to `int` is the id itself (launches stay below 2^31
    /// work-items per dimension, as the analysis assumes). LLVM then sees
    /// `base + 4 * (i * n + j)` as an affine address it can walk with a
    /// pointer, as clang's `nsw` lets it. No poison-generating flag is
    /// emitted: a masked-off lane computes another value, not poison.
    fn widened(&mut self, v: ValueId, vec: bool, depth: u32) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let f = self.f;
        if let (true, Shape::Strided { stride, .. }) = (vec && self.widens(v), self.vf.shape(v)) {
            // Lane 0 in a scalar plus the lane numbers times the stride:
            // packed accesses read lane 0 only, which LLVM then takes from
            // the scalar chain.
            let x0 = self.widened(v, false, depth)?;
            let i64t = cx.ctx.i64_type();
            let steps = cx.binop(
                Op::LLVMMul,
                cx.iota(i64t),
                cx.splat(cx.i64c(stride as u64))?,
            )?;
            return cx.binop(Op::LLVMAdd, cx.splat(x0)?, steps);
        }
        let kind = f.def_inst(v).map(|d| &f.inst(d).kind);
        match kind {
            Some(&InstKind::Bin { op, lhs, rhs }) if depth < 8 && self.widens(v) => {
                let x = self.widened(lhs, vec, depth + 1)?;
                let y = self.widened(rhs, vec, depth + 1)?;
                let o = match op {
                    BinOp::Add => Op::LLVMAdd,
                    BinOp::Sub => Op::LLVMSub,
                    _ => Op::LLVMMul,
                };
                return cx.binop(o, x, y);
            }
            Some(&InstKind::Cast {
                op: CastOp::Trunc,
                value,
            }) if f.ty(v).bits() >= 32 && self.is_id(value) => {
                return self.get(value, vec);
            }
            _ => {}
        }
        let x = self.get(v, vec)?;
        if f.ty(v) == Ty::I64 {
            return Ok(x);
        }
        let t = llty(cx, Ty::I64, vec)?;
        cx.cast(Op::LLVMSExt, x, t)
    }

    // ---- memory -----------------------------------------------------------

    /// True when `p` (a non-uniform pointer) is contiguous for elements of
    /// `ty`: a packed access from lane 0's address.
    fn packed(&self, p: ValueId, ty: Ty) -> bool {
        matches!(self.vf.shape(p), Shape::Strided { stride, .. } if stride > 0 && stride as u64 == mem_ty(ty).bytes())
    }

    /// The address of lane 0 of an access through `ptr` under mask `m`,
    /// lanes `lane_bytes` apart. Lane 0's own address is right when its index computation
    /// cannot wrap; an index widened from a narrower unsigned value can
    /// (`hist[lid - 1]` with `uint lid` is 2^32 - 1 elements away in lane
    /// 0 where `lid` is 0), and lane 0 is then off when it is inactive, so
    /// the base comes from the first active lane.
    fn packed_base(
        &mut self,
        ptr: ValueId,
        m: BasicValueEnum<'ctx>,
        lane_bytes: u64,
    ) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        // Kernels without barriers only, where it was measured (jacobi_2d);
        // in reduction's, scan's and stencil_2d's entry points it moves
        // register allocation everywhere, and the benchmark and a C driver
        // disagreed on reduction (bench/RESULTS.md, 2026-11-28).
        let wraps = self.may_wrap(ptr);
        if !self.synchronizes && !wraps {
            if let Some(p0) = self.split_address(ptr)? {
                return Ok(p0);
            }
        }
        let ps = self.get(ptr, true)?;
        if !wraps {
            return cx.extract(ps, 0);
        }
        let it = std::num::NonZeroU32::new(self.w())
            .and_then(|n| cx.ctx.custom_width_int_type(n).ok())
            .ok_or("bad SIMD width")?;
        let bits = cx.cast(Op::LLVMBitCast, m, it.into())?;
        let first = cx.intrinsic("llvm.cttz", &[it.into()], &[bits, cx.boolc(false)])?;
        let first = cx.cast(Op::LLVMZExt, first, cx.ctx.i64_type().into())?;
        let first = cx.binop(Op::LLVMAnd, first, cx.i64c(self.w() as u64 - 1))?;
        let pf = cx.extract_dyn(ps, first)?;
        let back = cx.binop(Op::LLVMMul, first, cx.i64c(lane_bytes))?;
        let back = cx.binop(Op::LLVMSub, cx.i64c(0), back)?;
        cx.gep_bytes(pf, back)
    }

    /// Lane 0's address of `base + elem * sext(x)` (a uniform base) as
    /// `(base + elem * rest) + elem * k`, where `x` widened is `rest + k`
    /// with the constant `k` taken out of its sums (`None` when there is no
    /// constant, or the address has another form). A stencil's `A[i * n +
    /// (j - 1)]`, `A[i * n + j]` and `A[i * n + (j + 1)]` then share
    /// `A + 4 * (i * n + j)`, read at byte offsets -4, 0 and 4; widened
    /// whole, LLVM folds each constant into the row's loop-invariant part,
    /// a register (and a reload from the stack) per access.
    fn split_address(&mut self, ptr: ValueId) -> R<Option<BasicValueEnum<'ctx>>> {
        let f = self.f;
        let def = |v: ValueId| f.def_inst(v).map(|d| f.inst(d).kind.clone());
        let Some(InstKind::PtrAdd { base, offset }) = def(ptr) else {
            return Ok(None);
        };
        if self.is_vec(base) {
            return Ok(None);
        }
        let (x, elem) = match def(offset) {
            Some(InstKind::Bin {
                op: BinOp::Mul,
                lhs,
                rhs,
            }) => match f.as_const(rhs) {
                Some(Const::Int(e @ 1..=16, _)) => (lhs, e as i64),
                _ => return Ok(None),
            },
            Some(InstKind::Bin {
                op: BinOp::Shl,
                lhs,
                rhs,
            }) => match f.as_const(rhs) {
                Some(Const::Int(s @ 0..=4, _)) => (lhs, 1i64 << s),
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        let Some(InstKind::Cast {
            op: CastOp::SExt,
            value,
        }) = def(x)
        else {
            return Ok(None);
        };
        if f.ty(x) != Ty::I64 || !self.widens(value) {
            return Ok(None);
        }
        let (rest, k) = self.split_constant(value, 0)?;
        let (Some(rest), 1..) = (rest, k.unsigned_abs()) else {
            return Ok(None);
        };
        let cx = self.cx;
        let p = self.get(base, false)?;
        let bytes = cx.binop(Op::LLVMMul, rest, cx.i64c(elem as u64))?;
        let row = cx.gep_bytes(p, bytes)?;
        let k = k.checked_mul(elem).ok_or("address offset overflows")?;
        cx.gep_bytes(row, cx.i64c(k as u64)).map(Some)
    }

    /// Lane 0's value of `v` widened to `i64` (as [`Self::widened`]) as a
    /// value and a constant: through the sums and differences that widen
    /// (`nsw`, lanes one apart), the constants they add apart. `(None, k)`
    /// for the constant `k`.
    fn split_constant(&mut self, v: ValueId, depth: u32) -> R<(Option<BasicValueEnum<'ctx>>, i64)> {
        let cx = self.cx;
        let f = self.f;
        if let Some(k) = strided::int_const(f, v) {
            return Ok((None, k));
        }
        if let Some(InstKind::Bin {
            op: op @ (BinOp::Add | BinOp::Sub),
            lhs,
            rhs,
        }) = f.def_inst(v).map(|d| f.inst(d).kind.clone())
        {
            if depth < 8 && self.widens(v) {
                let (a, ka) = self.split_constant(lhs, depth + 1)?;
                let (b, kb) = self.split_constant(rhs, depth + 1)?;
                let sub = op == BinOp::Sub;
                let k = if sub {
                    ka.checked_sub(kb)
                } else {
                    ka.checked_add(kb)
                };
                let k = k.ok_or("address offset overflows")?;
                let rest = match (a, b) {
                    (Some(a), Some(b)) => {
                        let o = if sub { Op::LLVMSub } else { Op::LLVMAdd };
                        Some(cx.binop(o, a, b)?)
                    }
                    (Some(a), None) => Some(a),
                    (None, Some(b)) if sub => Some(cx.binop(Op::LLVMSub, cx.i64c(0), b)?),
                    (None, b) => b,
                };
                return Ok((rest, k));
            }
        }
        Ok((Some(self.widened(v, false, depth)?), 0))
    }

    /// True when the address `ptr` is computed from a lane-varying integer
    /// zero-extended from a narrower type (whose lanes may wrap apart).
    fn may_wrap(&self, ptr: ValueId) -> bool {
        let f = self.f;
        let mut work = vec![ptr];
        let mut seen = std::collections::HashSet::new();
        while let Some(v) = work.pop() {
            // A chain too long to follow counts as one that may wrap.
            if seen.len() > 64 {
                return true;
            }
            if !seen.insert(v) {
                continue;
            }
            let Some(d) = f.def_inst(v) else { continue };
            match &f.inst(d).kind {
                InstKind::Cast {
                    op: CastOp::ZExt,
                    value,
                } if self.is_vec(*value) => return true,
                InstKind::PtrAdd { base, offset } => work.extend([*base, *offset]),
                InstKind::Bin { lhs, rhs, .. } => work.extend([*lhs, *rhs]),
                InstKind::Cast { value, .. } => work.push(*value),
                _ => {}
            }
        }
        false
    }

    fn load(&mut self, b: BlockId, ptr: ValueId, ty: Ty, align: u64) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let mt = mem_ty(ty);
        let al = align_of(align, mt);
        let v = if !self.is_vec(ptr) {
            let p = self.get(ptr, false)?;
            let st = llty(cx, mt, false)?;
            if self.vf.mask_nonempty[b.index()] {
                cx.load(st, p, al)?
            } else {
                // The group may have no active lane here: load only if any.
                let any = self.mask_any(b)?;
                let one = vec_of(st, 1);
                let m1 = vec1(cx, any)?;
                let r = cx.intrinsic(
                    "llvm.masked.load",
                    &[one.into(), p.get_type()],
                    &[p, cx.i32c(al as u64), m1, one.const_zero().into()],
                )?;
                cx.extract(r, 0)?
            }
        } else {
            let m = self.mask_vec(b)?;
            let vt = llty(cx, mt, true)?;
            let zero = vt.const_zero();
            if self.packed(ptr, ty) {
                let p0 = self.packed_base(ptr, m, mt.bytes())?;
                if ty != Ty::I1 {
                    self.last_packed = Some(lane_loads::PackedLoad {
                        p0,
                        elem: llty(cx, mt, false)?,
                        bytes: mt.bytes(),
                        align: al,
                    });
                }
                cx.intrinsic(
                    "llvm.masked.load",
                    &[vt, p0.get_type()],
                    &[p0, cx.i32c(al as u64), m, zero],
                )?
            } else {
                let ps = self.get(ptr, true)?;
                let gather = |_: &mut Self| -> R<Option<BasicValueEnum<'ctx>>> {
                    Ok(Some(cx.intrinsic(
                        "llvm.masked.gather",
                        &[vt, ps.get_type()],
                        &[ps, cx.i32c(al as u64), m, zero],
                    )?))
                };
                if let Some(leaf) = self.stride_versioned(b, ptr, ty) {
                    let et = llty(cx, mt, false)?;
                    self.by_run_time_stride(b, ps, leaf, et, mt.bytes(), al, None, gather)?
                } else if let Some(c) = self.clamp_versioned(ptr, ty) {
                    self.by_clamp_range(&c, ps, vt, al, m, gather)?
                } else {
                    // The gather itself unless `ptr` is a row load.
                    self.by_row_tile(b, ptr, ps, vt, al, m, gather)?
                }
                .ok_or("a gather without a value")?
            }
        };
        if ty == Ty::I1 {
            let t = llty(cx, Ty::I1, is_vec(v))?;
            cx.cast(Op::LLVMTrunc, v, t)
        } else {
            Ok(v)
        }
    }

    fn store(&mut self, b: BlockId, ptr: ValueId, value: ValueId, align: u64) -> R<()> {
        let cx = self.cx;
        let ty = self.f.ty(value);
        let mt = mem_ty(ty);
        let al = align_of(align, mt);
        let pvec = self.is_vec(ptr);
        let vvec = self.is_vec(value);
        let widen = |x: BasicValueEnum<'ctx>| -> R<BasicValueEnum<'ctx>> {
            if ty == Ty::I1 {
                let t = llty(cx, Ty::I8, is_vec(x))?;
                cx.cast(Op::LLVMZExt, x, t)
            } else {
                Ok(x)
            }
        };
        if !pvec && !vvec {
            let p = self.get(ptr, false)?;
            let x = widen(self.get(value, false)?)?;
            if self.vf.mask_nonempty[b.index()] {
                return cx.store(p, x, al);
            }
            let any = self.mask_any(b)?;
            let m1 = vec1(cx, any)?;
            let x1 = vec1(cx, x)?;
            return cx.intrinsic_void(
                "llvm.masked.store",
                &[x1.get_type(), p.get_type()],
                &[x1, p, cx.i32c(al as u64), m1],
            );
        }
        let m = self.mask_vec(b)?;
        let x = widen(self.get(value, true)?)?;
        if pvec && self.packed(ptr, ty) {
            let p0 = self.packed_base(ptr, m, mt.bytes())?;
            return cx.intrinsic_void(
                "llvm.masked.store",
                &[x.get_type(), p0.get_type()],
                &[x, p0, cx.i32c(al as u64), m],
            );
        }
        // Scatter; with a uniform pointer the last active lane wins (LLVM
        // stores duplicate addresses in lane order), as in the scalar order.
        let ps = self.get(ptr, true)?;
        let scatter = |_: &mut Self| -> R<Option<BasicValueEnum<'ctx>>> {
            cx.intrinsic_void(
                "llvm.masked.scatter",
                &[x.get_type(), ps.get_type()],
                &[x, ps, cx.i32c(al as u64), m],
            )?;
            Ok(None)
        };
        let versioned = if pvec {
            self.stride_versioned(b, ptr, ty)
        } else {
            None
        };
        if let Some(leaf) = versioned {
            let et = llty(cx, mt, false)?;
            self.by_run_time_stride(b, ps, leaf, et, mt.bytes(), al, Some(x), scatter)?;
        } else {
            scatter(self)?;
        }
        Ok(())
    }

    // ---- work-items -------------------------------------------------------

    fn g(&self, k: u32) -> BasicValueEnum<'ctx> {
        self.geo[k as usize]
    }

    fn work_item(&mut self, q: WorkItem, dim: Option<ValueId>, ty: Ty) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let i64t = cx.ctx.i64_type();
        let add = |a, b| cx.binop(Op::LLVMAdd, a, b);
        let mul = |a, b| cx.binop(Op::LLVMMul, a, b);
        let w = self.w() as u64;
        let r: BasicValueEnum = if q.has_dim() {
            let d = dim.ok_or_else(|| format!("`{}` without a dimension", q.name()))?;
            let dv_vec = self.is_vec(d);
            let dv_val = match self.f.as_const(d) {
                Some(Const::Int(..)) => None,
                _ => Some(self.get(d, dv_vec)?),
            };
            let geo_vals = self.geo.clone();
            let per_dim = |d: u32| -> R<BasicValueEnum<'ctx>> {
                let g = |k: u32| geo_vals[k as usize];
                Ok(match q {
                    WorkItem::GlobalId => {
                        let base = add(
                            g(geo::OFF + d),
                            mul(g(geo::GROUP_ID + d), g(geo::LOCAL + d))?,
                        )?;
                        match d {
                            0 => {
                                let x0 = add(base, g(geo::XSTART))?;
                                add(cx.splat(x0)?, cx.iota(i64t))?
                            }
                            1 => add(base, g(geo::LY))?,
                            _ => add(base, g(geo::LZ))?,
                        }
                    }
                    WorkItem::LocalId => match d {
                        0 => add(cx.splat(g(geo::XSTART))?, cx.iota(i64t))?,
                        1 => g(geo::LY),
                        _ => g(geo::LZ),
                    },
                    WorkItem::GroupId => g(geo::GROUP_ID + d),
                    WorkItem::GlobalSize => g(geo::GLOBAL + d),
                    WorkItem::LocalSize => g(geo::SIZE + d),
                    WorkItem::NumGroups => g(geo::NUM_GROUPS + d),
                    _ => g(geo::OFF + d),
                })
            };
            let dflt = cx.i64c(matches!(
                q,
                WorkItem::GlobalSize | WorkItem::LocalSize | WorkItem::NumGroups
            ) as u64);
            match self.f.as_const(d) {
                Some(Const::Int(k, t)) => {
                    // The interpreter reads the operand zero-extended from its width.
                    let k = lanes_vectorizer::ir::truncate(k, t.bits());
                    if k < 3 {
                        per_dim(k as u32)?
                    } else {
                        dflt
                    }
                }
                _ => {
                    let mut dv = dv_val.ok_or("dimension operand missing")?;
                    let dt = self.f.ty(d);
                    if !dt.is_int() {
                        return Err(format!("dimension operand of type {dt}"));
                    }
                    if dt != Ty::I64 {
                        let t = llty(cx, Ty::I64, dv_vec)?;
                        dv = cx.cast(Op::LLVMZExt, dv, t)?;
                    }
                    let vals = [per_dim(0)?, per_dim(1)?, per_dim(2)?];
                    let vec = dv_vec || vals.iter().any(|&v| is_vec(v));
                    let mut r = cx.coerce(dflt, vec)?;
                    for k in (0..3).rev() {
                        let kc = cx.coerce(cx.i64c(k as u64), dv_vec)?;
                        let c = cx.icmp(IP::LLVMIntEQ, dv, kc)?;
                        let v = cx.coerce(vals[k], vec)?;
                        r = cx.select(c, v, r)?;
                    }
                    r
                }
            }
        } else {
            let g = |k: u32| self.g(k);
            let wc = cx.i64c(w);
            let per_row = || -> R<BasicValueEnum<'ctx>> {
                // ceil(size0 / W)
                let s = add(g(geo::SIZE), cx.i64c(w - 1))?;
                cx.binop(Op::LLVMUDiv, s, wc)
            };
            match q {
                WorkItem::WorkDim => g(geo::WORK_DIM),
                WorkItem::SubGroupSize => {
                    if self.full {
                        wc
                    } else {
                        g(geo::NLANES)
                    }
                }
                WorkItem::SubGroupLocalId => cx.iota(i64t),
                WorkItem::NumSubGroups => {
                    mul(per_row()?, mul(g(geo::SIZE + 1), g(geo::SIZE + 2))?)?
                }
                WorkItem::SubGroupId => {
                    let row = add(g(geo::LY), mul(g(geo::SIZE + 1), g(geo::LZ))?)?;
                    let chunk = cx.binop(Op::LLVMUDiv, g(geo::XSTART), wc)?;
                    add(mul(row, per_row()?)?, chunk)?
                }
                WorkItem::MaxSubGroupSize => wc,
                WorkItem::LaneMask => {
                    if self.full {
                        let t = cx.ctx.bool_type();
                        let ones: Vec<_> = (0..self.w()).map(|_| t.const_int(1, false)).collect();
                        return Ok(inkwell::types::VectorType::const_vector(&ones).into());
                    }
                    let n = cx.splat(g(geo::NLANES))?;
                    return cx.icmp(IP::LLVMIntULT, cx.iota(i64t), n);
                }
                _ => return Err(format!("`{}` without its dimension", q.name())),
            }
        };
        if ty == Ty::I64 {
            Ok(r)
        } else if ty.is_int() {
            let t = llty(cx, ty, is_vec(r))?;
            cx.cast(Op::LLVMTrunc, r, t)
        } else {
            Err(format!("`{}` of type {ty}", q.name()))
        }
    }

    // ---- horizontal operations -------------------------------------------

    fn horizontal(
        &mut self,
        b: BlockId,
        op: Horizontal,
        args: &[ValueId],
        ty: Ty,
    ) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let want = if op == Horizontal::Broadcast { 2 } else { 1 };
        if args.len() != want {
            return Err(format!("`{}` with {} operands", op.name(), args.len()));
        }
        let m = self.mask_vec(b)?;
        let a0 = args[0];
        let xv = self.is_vec(a0);
        match op {
            Horizontal::Any | Horizontal::All => {
                let is_any = op == Horizontal::Any;
                if is_any && xv {
                    if let Some(r) = self.any_lane_is(a0, m)? {
                        return Ok(r);
                    }
                }
                if xv && self.is_full_lane_mask(self.vf.block_mask[b.index()]) {
                    if let Some(r) = self.range_test(a0, is_any)? {
                        return Ok(r);
                    }
                }
                let x = self.get(a0, xv)?;
                if !xv {
                    // Uniform operand: its value if any lane is active, else
                    // the empty any/all.
                    let any = cx.any(m)?;
                    return cx.select(any, x, cx.boolc(!is_any));
                }
                let zero = cx.splat(cx.boolc(false))?;
                let t = if is_any { x } else { cx.not(x)? };
                let sel = cx.select(m, t, zero)?;
                let r = cx.any(sel)?;
                if is_any {
                    Ok(r)
                } else {
                    cx.not(r)
                }
            }
            Horizontal::Broadcast => {
                let x = self.get(a0, xv)?;
                if !xv {
                    return Ok(x);
                }
                let lv = self.is_vec(args[1]);
                let mut lane = self.get(args[1], lv)?;
                let w = self.w() as u64;
                let lane_ty = cx.elem_type(lane);
                if lv {
                    // Every active lane names the same lane: read it from
                    // the first active one.
                    let it = std::num::NonZeroU32::new(self.w())
                        .and_then(|n| cx.ctx.custom_width_int_type(n).ok())
                        .ok_or("bad SIMD width")?;
                    let bits = cx.cast(Op::LLVMBitCast, m, it.into())?;
                    let first =
                        cx.intrinsic("llvm.cttz", &[it.into()], &[bits, cx.boolc(false)])?;
                    let first = cx.cast(Op::LLVMZExt, first, cx.ctx.i64_type().into())?;
                    let first = cx.binop(Op::LLVMAnd, first, cx.i64c(w - 1))?;
                    lane = cx.extract_dyn(lane, first)?;
                }
                let li = match lane_ty {
                    BasicTypeEnum::IntType(t) if t.get_bit_width() > 32 => {
                        cx.cast(Op::LLVMTrunc, lane, cx.ctx.i32_type().into())?
                    }
                    BasicTypeEnum::IntType(t) if t.get_bit_width() < 32 => {
                        cx.cast(Op::LLVMZExt, lane, cx.ctx.i32_type().into())?
                    }
                    BasicTypeEnum::IntType(_) => lane,
                    _ => return Err("broadcast lane is not an integer".into()),
                };
                // An out-of-range lane would make extractelement poison.
                let li = cx.binop(Op::LLVMAnd, li, cx.i32c(w - 1))?;
                if !lv {
                    if let Some(r) = self.lane_from_slot(a0, li)? {
                        return Ok(r);
                    }
                }
                cx.extract_dyn(x, li)
            }
            Horizontal::Reduce(r) => {
                let x = self.get(a0, true)?;
                let et = llty(cx, ty, false)?;
                match r {
                    ReduceOp::FMin | ReduceOp::FMax => {
                        let (_, acc) = self.scan(r, ty, x, m, false)?;
                        Ok(acc)
                    }
                    ReduceOp::FAdd => {
                        // Ordered (no reassoc flag), -0.0 in inactive lanes:
                        // exactly the lane-order sum of the active lanes.
                        let nz = cx.const_of(et, 0, -0.0);
                        let sel = cx.select(m, x, cx.splat(nz)?)?;
                        cx.intrinsic("llvm.vector.reduce.fadd", &[x.get_type()], &[nz, sel])
                    }
                    _ => {
                        let (name, idv) = int_reduce(r, ty)?;
                        let id = cx.splat(cx.const_of(et, idv, 0.0))?;
                        let sel = cx.select(m, x, id)?;
                        cx.intrinsic(name, &[x.get_type()], &[sel])
                    }
                }
            }
            Horizontal::ScanInclusive(r) | Horizontal::ScanExclusive(r) => {
                let x = self.get(a0, true)?;
                let incl = matches!(op, Horizontal::ScanInclusive(_));
                let (v, _) = self.scan(r, ty, x, m, incl)?;
                Ok(v)
            }
        }
    }

    /// A lane-by-lane scan over the active lanes, exactly as the
    /// interpreter combines them (the first active value, then the others
    /// left to right; the identity before the first active lane). Returns
    /// the scan vector and the total.
    fn scan(
        &mut self,
        r: ReduceOp,
        ty: Ty,
        x: BasicValueEnum<'ctx>,
        m: BasicValueEnum<'ctx>,
        inclusive: bool,
    ) -> R<(BasicValueEnum<'ctx>, BasicValueEnum<'ctx>)> {
        let cx = self.cx;
        let et = llty(cx, ty, false)?;
        let identity = interp_identity(cx, r, ty, et)?;
        let mut acc = identity;
        let mut seen = cx.boolc(false);
        let vt = vec_of(et, self.w());
        let mut out: BasicValueEnum = unsafe {
            bv(inkwell::llvm_sys::core::LLVMGetPoison(
                inkwell::types::AsTypeRef::as_type_ref(&vt),
            ))
        };
        for l in 0..self.w() as u64 {
            let ml = cx.extract(m, l)?;
            let xl = cx.extract(x, l)?;
            let excl = cx.select(seen, acc, identity)?;
            let comb = combine(cx, r, acc, xl)?;
            let next = cx.select(seen, comb, xl)?;
            acc = cx.select(ml, next, acc)?;
            seen = cx.binop(Op::LLVMOr, seen, ml)?;
            let o = if inclusive { acc } else { excl };
            out = cx.insert(out, o, l)?;
        }
        Ok((out, acc))
    }
}

/// The blocks reachable from the entry of `f`, in reverse post-order.
pub fn reachable(f: &Function) -> Vec<BlockId> {
    // The order the work-group schedule numbers barriers in.
    lanes_vectorizer::schedule::reverse_post_order(f)
}

/// The alignment a save slot at byte offset `off` has (slots are aligned
/// to their size, up to the save area's own alignment).
fn slot_align(off: u64) -> u32 {
    let a = if off == 0 {
        crate::workgroup::ALIGN
    } else {
        1 << off.trailing_zeros()
    };
    a.min(crate::workgroup::ALIGN) as u32
}

/// `<1 x T>` holding a scalar.
fn vec1<'ctx>(cx: &Cx<'_, 'ctx>, x: BasicValueEnum<'ctx>) -> R<BasicValueEnum<'ctx>> {
    let vt = vec_of(x.get_type(), 1);
    let poison = unsafe {
        bv(inkwell::llvm_sys::core::LLVMGetPoison(
            inkwell::types::AsTypeRef::as_type_ref(&vt),
        ))
    };
    cx.insert(poison, x, 0)
}

fn compare<'ctx>(
    cx: &Cx<'_, 'ctx>,
    pred: CmpPred,
    x: BasicValueEnum<'ctx>,
    y: BasicValueEnum<'ctx>,
) -> R<BasicValueEnum<'ctx>> {
    use CmpPred::*;
    let int = |p| cx.icmp(p, x, y);
    let flt = |p| cx.fcmp(p, x, y);
    match pred {
        Eq => int(IP::LLVMIntEQ),
        Ne => int(IP::LLVMIntNE),
        Slt => int(IP::LLVMIntSLT),
        Sle => int(IP::LLVMIntSLE),
        Sgt => int(IP::LLVMIntSGT),
        Sge => int(IP::LLVMIntSGE),
        Ult => int(IP::LLVMIntULT),
        Ule => int(IP::LLVMIntULE),
        Ugt => int(IP::LLVMIntUGT),
        Uge => int(IP::LLVMIntUGE),
        FOeq => flt(FP::LLVMRealOEQ),
        FUne => flt(FP::LLVMRealUNE),
        FOlt => flt(FP::LLVMRealOLT),
        FOle => flt(FP::LLVMRealOLE),
        FOgt => flt(FP::LLVMRealOGT),
        FOge => flt(FP::LLVMRealOGE),
        FOrd => flt(FP::LLVMRealORD),
        FUno => flt(FP::LLVMRealUNO),
    }
}

/// The `llvm.vector.reduce.*` intrinsic of an integer reduction and the
/// identity (bits) that inactive lanes get.
fn int_reduce(r: ReduceOp, ty: Ty) -> R<(&'static str, u64)> {
    if !ty.is_int() {
        return Err(format!("integer reduction of type {ty}"));
    }
    let bits = ty.bits();
    let all = lanes_vectorizer::ir::truncate(u64::MAX, bits);
    Ok(match r {
        ReduceOp::Add => ("llvm.vector.reduce.add", 0),
        ReduceOp::SMin => ("llvm.vector.reduce.smin", all >> 1),
        ReduceOp::UMin => ("llvm.vector.reduce.umin", all),
        ReduceOp::SMax => ("llvm.vector.reduce.smax", 1u64 << (bits - 1)),
        ReduceOp::UMax => ("llvm.vector.reduce.umax", 0),
        _ => return Err(format!("{r:?} is not an integer reduction")),
    })
}

/// The interpreter's identity of a reduction (what an exclusive scan gives
/// before the first active lane).
fn interp_identity<'ctx>(
    cx: &Cx<'_, 'ctx>,
    r: ReduceOp,
    ty: Ty,
    et: BasicTypeEnum<'ctx>,
) -> R<BasicValueEnum<'ctx>> {
    Ok(match r {
        ReduceOp::FAdd => cx.const_of(et, 0, 0.0),
        ReduceOp::FMin => cx.const_of(et, 0, f64::INFINITY),
        ReduceOp::FMax => cx.const_of(et, 0, f64::NEG_INFINITY),
        _ => cx.const_of(et, int_reduce(r, ty)?.1, 0.0),
    })
}

/// One step of a reduction, as the interpreter computes it.
fn combine<'ctx>(
    cx: &Cx<'_, 'ctx>,
    r: ReduceOp,
    a: BasicValueEnum<'ctx>,
    b: BasicValueEnum<'ctx>,
) -> R<BasicValueEnum<'ctx>> {
    let t = a.get_type();
    match r {
        ReduceOp::Add => cx.binop(Op::LLVMAdd, a, b),
        ReduceOp::FAdd => cx.binop(Op::LLVMFAdd, a, b),
        ReduceOp::SMin => cx.intrinsic("llvm.smin", &[t], &[a, b]),
        ReduceOp::UMin => cx.intrinsic("llvm.umin", &[t], &[a, b]),
        ReduceOp::SMax => cx.intrinsic("llvm.smax", &[t], &[a, b]),
        ReduceOp::UMax => cx.intrinsic("llvm.umax", &[t], &[a, b]),
        ReduceOp::FMin | ReduceOp::FMax => {
            // IEEE minNum/maxNum with -0 < +0 (LLVM leaves the order of
            // zeros open): equal operands combine their bits.
            let min = r == ReduceOp::FMin;
            let name = if min { "llvm.minnum" } else { "llvm.maxnum" };
            let mm = cx.intrinsic(name, &[t], &[a, b])?;
            let it: BasicTypeEnum = match t {
                BasicTypeEnum::FloatType(f) if f == cx.ctx.f32_type() => cx.ctx.i32_type().into(),
                _ => cx.ctx.i64_type().into(),
            };
            let ai = cx.cast(Op::LLVMBitCast, a, it)?;
            let bi = cx.cast(Op::LLVMBitCast, b, it)?;
            let joined = cx.binop(if min { Op::LLVMOr } else { Op::LLVMAnd }, ai, bi)?;
            let joined = cx.cast(Op::LLVMBitCast, joined, t)?;
            let eq = cx.fcmp(FP::LLVMRealOEQ, a, b)?;
            cx.select(eq, joined, mm)
        }
    }
}

/// The lanes of an integer constant (a scalar is one lane), sign-extended;
/// `None` when `v` is not a constant or a lane is not a plain integer
/// (undef, poison, a constant expression).
fn const_int_lanes(v: BasicValueEnum<'_>) -> Option<Vec<i64>> {
    use inkwell::llvm_sys::core as c;
    use inkwell::values::AsValueRef;
    let int = |r| unsafe {
        if c::LLVMIsAConstantInt(r).is_null() {
            None
        } else {
            Some(c::LLVMConstIntGetSExtValue(r))
        }
    };
    match v {
        BasicValueEnum::IntValue(x) => int(x.as_value_ref()).map(|d| vec![d]),
        BasicValueEnum::VectorValue(x) => {
            let r = x.as_value_ref();
            if unsafe { c::LLVMIsConstant(r) } == 0 {
                return None;
            }
            (0..x.get_type().get_size())
                .map(|i| {
                    // SAFETY: `r` is a constant of vector type with more than `i` lanes.
                    let e = unsafe { c::LLVMGetAggregateElement(r, i) };
                    if e.is_null() {
                        None
                    } else {
                        int(e)
                    }
                })
                .collect()
        }
        _ => None,
    }
}

/// The blocks that branch back to the header of a loop with an unroll
/// hint (`#pragma unroll`), with the hint: LLVM reads a loop's metadata
/// from its latch's branch.
fn latch_unroll(f: &Function) -> HashMap<BlockId, (Unroll, Option<Span>)> {
    let headers: Vec<(BlockId, (Unroll, Option<Span>))> = f
        .block_ids()
        .filter_map(|b| f.block(b).unroll.map(|u| (b, (u, f.block(b).unroll_at))))
        .collect();
    if headers.is_empty() {
        return HashMap::new();
    }
    let cfg = Cfg::compute(f);
    let mut out = HashMap::new();
    for (h, u) in headers {
        for &p in cfg.preds(h) {
            if cfg.dominates(h, p) {
                out.insert(p, u);
            }
        }
    }
    out
}

/// Gives the loop whose latch ends in `br` its loop ID with the
/// unroller's properties:
/// - `llvm.loop.unroll.runtime.disable` for a loop run once per lane (lane
///   serialization): it has a trip count of its own on every lane, and
///   LLVM's run-time unrolling would put a remainder loop, with one more
///   unpredictable exit, in front of every lane's turn (docs/codegen.md,
///   "Serialized loops without run-time unrolling");
/// - the source's unroll hint, spelled as clang spells it
///   (`llvm.loop.unroll.enable`, `.full`, `.count N`, `.disable`), and
///   for a hint that asks for unrolling the loop statement it is on
///   (`lanes.unroll.at`, file, start, end): a loop that still carries the
///   request after LLVM's passes was not unrolled ([`crate::unhonoured_unroll`]).
fn loop_metadata(
    cx: &Cx<'_, '_>,
    br: InstructionValue<'_>,
    serial: bool,
    hint: Option<(Unroll, Option<Span>)>,
) {
    use inkwell::llvm_sys::core as c;
    use inkwell::llvm_sys::debuginfo as d;
    use inkwell::llvm_sys::prelude::LLVMMetadataRef;
    use inkwell::values::AsValueRef;
    let ctx = cx.ctx.raw();
    const KIND: &str = "llvm.loop";
    let mut props: Vec<(&str, Vec<u32>)> = Vec::new();
    if serial {
        props.push(("llvm.loop.unroll.runtime.disable", vec![]));
    }
    let (hint, at) = match hint {
        Some((u, at)) => (Some(u), at),
        None => (None, None),
    };
    match hint {
        Some(Unroll::Enable) => props.push(("llvm.loop.unroll.enable", vec![])),
        Some(Unroll::Full) => props.push(("llvm.loop.unroll.full", vec![])),
        Some(Unroll::Count(n)) => props.push(("llvm.loop.unroll.count", vec![n])),
        Some(Unroll::Disable) => props.push(("llvm.loop.unroll.disable", vec![])),
        None => {}
    }
    if let (Some(at), Some(Unroll::Enable | Unroll::Full | Unroll::Count(_))) = (at, hint) {
        props.push((crate::UNROLL_AT, vec![at.file.0, at.start, at.end]));
    }
    // SAFETY: every pointer comes from this context; the loop ID refers to
    // itself (LLVM's form of a loop ID), made through a temporary node that
    // `LLVMMetadataReplaceAllUsesWith` frees.
    unsafe {
        let tmp = d::LLVMTemporaryMDNode(ctx, std::ptr::null_mut(), 0);
        let mut ops: Vec<LLVMMetadataRef> = vec![tmp];
        for (name, arg) in props {
            let mut prop_ops = vec![c::LLVMMDStringInContext2(
                ctx,
                name.as_ptr().cast(),
                name.len(),
            )];
            for n in arg {
                let v = c::LLVMConstInt(c::LLVMInt32TypeInContext(ctx), n as u64, 0);
                prop_ops.push(c::LLVMValueAsMetadata(v));
            }
            ops.push(c::LLVMMDNodeInContext2(
                ctx,
                prop_ops.as_mut_ptr(),
                prop_ops.len(),
            ));
        }
        let id = c::LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), ops.len());
        d::LLVMMetadataReplaceAllUsesWith(tmp, id);
        let kind = c::LLVMGetMDKindIDInContext(ctx, KIND.as_ptr().cast(), KIND.len() as u32);
        c::LLVMSetMetadata(br.as_value_ref(), kind, c::LLVMMetadataAsValue(ctx, id));
    }
}

/// By block: reachable from a work-group synchronization point (the
/// block holding it included, for what follows the barrier in it).
fn after_sync(f: &Function) -> Vec<bool> {
    let cfg = Cfg::compute(f);
    let mut seen = vec![false; f.blocks.len()];
    let mut work: Vec<BlockId> = (0..f.blocks.len())
        .map(|i| BlockId(i as u32))
        .filter(|&b| {
            f.block(b)
                .insts
                .iter()
                .any(|&i| f.inst(i).kind.is_work_group_sync())
        })
        .collect();
    while let Some(b) = work.pop() {
        if std::mem::replace(&mut seen[b.index()], true) {
            continue;
        }
        work.extend(cfg.succs(b).iter().copied());
    }
    seen
}
