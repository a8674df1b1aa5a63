//! Constant-stride accesses as packed vector accesses and shuffles.
//!
//! An address of shape `strided(s)` with `s = k * size` (k = 2..=8 elements)
//! is one field of an array of k-element records: `a[4 * x + j]`, a
//! `float4` element, a struct field. Lane t reads `p0 + t * s`, so the W
//! lanes together span `(W - 1) * s + size` bytes from lane 0's address.
//!
//! Accesses of one block whose addresses differ only by a constant smaller
//! than `s` (the fields of the same records, as the scalarized `float4` or
//! the four terms of NVIDIA's DotProduct) form a group, planned here before
//! emission:
//! - loads: one packed load covering the span of the group's fields
//!   (from the lowest field of lane 0 to the highest field of lane W-1) and
//!   one shuffle per field, emitted at the group's first load;
//! - stores: when the group writes every field of each record, one
//!   interleaving shuffle and one packed store of the W records, emitted at
//!   the group's last store. A group with holes stays a scatter: a wider
//!   store would write bytes the program does not write.
//!
//! The packed form runs only when every lane of the SIMD group is active:
//! then lane 0's first and lane W-1's last accessed bytes are both accessed
//! by the scalar program, so every byte in between lies in the same buffer
//! (nothing past the end of a buffer is touched). Otherwise the group runs as
//! gathers or scatters; LLVM folds the test where the mask is the constant
//! all-true of whole SIMD groups.
//!
//! Loads are only grouped across instructions that do not write memory or
//! synchronize, stores only across instructions that do not access memory,
//! so moving them to one place keeps the program's order of memory
//! operations.

use std::collections::{BTreeMap, HashMap};

use inkwell::llvm_sys::core as c;
use inkwell::types::AsTypeRef;
use inkwell::values::{AsValueRef, BasicValue, BasicValueEnum};

use lanes_vectorizer::ir::{BlockId, InstId, InstKind, Ty, ValueId};
use lanes_vectorizer::shape::Shape;
use lanes_vectorizer::vectorize::VectorFunction;

use super::{align_of, llty, FnGen};
use crate::ll::{bv, vec_of, R};

/// The most elements per record handled as packed: larger strides load
/// more than eight times the bytes they use and stay gathers.
const MAX_FIELDS: u64 = 8;

/// Accesses emitted together as one packed access.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub store: bool,
    /// Element type in memory.
    pub ty: Ty,
    /// Elements per record (the stride in elements).
    pub fields: u32,
    /// Each access and the field it reads or writes (0 = lowest address),
    /// in program order.
    pub members: Vec<(InstId, u32)>,
    /// Byte offset of each member's address from field 0, same order.
    pub offsets: Vec<i64>,
}

impl Group {
    /// The access at which the group is emitted: the first load, the last
    /// store.
    pub fn lead(&self) -> InstId {
        if self.store {
            self.members[self.members.len() - 1].0
        } else {
            self.members[0].0
        }
    }

    /// Whether every field of the records is written (stores) — the only
    /// stores widened.
    pub fn covers_records(&self) -> bool {
        let mut seen = vec![false; self.fields as usize];
        for &(_, f) in &self.members {
            seen[f as usize] = true;
        }
        seen.iter().all(|&s| s)
    }
}

/// The packed groups of one function and where each access belongs.
#[derive(Default)]
pub struct Plan {
    pub groups: Vec<Group>,
    /// Every grouped access → its group.
    pub group_of: HashMap<InstId, usize>,
}

pub(super) use lanes_vectorizer::shape::affine::{affine, int_const, Affine};

/// Whether loads may move across `kind` (it neither writes memory nor
/// synchronizes).
fn loads_pass(kind: &InstKind) -> bool {
    kind.is_pure() || matches!(kind, InstKind::Load { .. })
}

/// Whether stores may move across `kind` (it does not access memory).
fn stores_pass(kind: &InstKind) -> bool {
    !matches!(kind, InstKind::Load { .. }) && loads_pass(kind)
        || matches!(kind, InstKind::Store { .. })
}

/// A candidate access: its element type, stride in elements and address.
struct Access {
    id: InstId,
    ty: Ty,
    fields: u32,
    addr: Affine,
}

/// The stride in elements of a lane-varying access of `ty` through `ptr`
/// when it is a small multiple (2..=8) of the element size.
fn fields_of(vf: &VectorFunction, ptr: ValueId, ty: Ty) -> Option<u32> {
    if vf.is_uniform(ptr) || !(ty.is_int() || ty.is_float()) || ty == Ty::I1 {
        return None;
    }
    let Shape::Strided { stride, .. } = vf.shape(ptr) else {
        return None;
    };
    let size = ty.bytes() as i64;
    if stride <= size || stride % size != 0 || (stride / size) as u64 > MAX_FIELDS {
        return None;
    }
    Some((stride / size) as u32)
}

/// Plans the packed groups of `vf`.
pub fn plan(vf: &VectorFunction) -> Plan {
    let f = &vf.func;
    let mut plan = Plan::default();
    for b in f.block_ids() {
        plan_block(vf, b, false, &mut plan);
        plan_block(vf, b, true, &mut plan);
    }
    plan
}

fn plan_block(vf: &VectorFunction, b: BlockId, stores: bool, plan: &mut Plan) {
    let f = &vf.func;
    let mut run: Vec<Access> = Vec::new();
    for &i in &f.block(b).insts {
        let inst = f.inst(i);
        let access = match (&inst.kind, stores) {
            (InstKind::Load { ptr, .. }, false) => Some((*ptr, inst.ty)),
            (InstKind::Store { ptr, value, .. }, true) => Some((*ptr, f.ty(*value))),
            _ => None,
        };
        if let Some((ptr, ty)) = access {
            if let Some(fields) = fields_of(vf, ptr, ty) {
                run.push(Access {
                    id: i,
                    ty,
                    fields,
                    addr: affine(f, ptr, 24),
                });
                continue;
            }
        }
        let passes = if stores {
            stores_pass(&inst.kind)
        } else {
            loads_pass(&inst.kind)
        };
        if !passes {
            close_run(std::mem::take(&mut run), stores, plan);
        }
    }
    close_run(run, stores, plan);
}

/// Groups the accesses of one run: same element type, stride and
/// non-constant part of the address, constant parts less than one record
/// apart.
fn close_run(run: Vec<Access>, stores: bool, plan: &mut Plan) {
    let mut by_key: BTreeMap<(Vec<(ValueId, i64)>, u32, u64, bool), Vec<&Access>> = BTreeMap::new();
    for a in &run {
        let key = (
            a.addr.terms.iter().map(|(&v, &c)| (v, c)).collect(),
            a.fields,
            a.ty.bytes(),
            a.ty.is_float(),
        );
        by_key.entry(key).or_default().push(a);
    }
    for accesses in by_key.into_values() {
        let mut rest: Vec<&Access> = accesses;
        while !rest.is_empty() {
            let size = rest[0].ty.bytes() as i64;
            let stride = rest[0].fields as i64 * size;
            let low = rest.iter().map(|a| a.addr.konst).min().unwrap_or(0);
            let (inside, outside): (Vec<&Access>, Vec<&Access>) = rest
                .iter()
                .partition(|a| a.addr.konst - low < stride && (a.addr.konst - low) % size == 0);
            // An access at an odd byte offset cannot join; it stays alone.
            if inside.is_empty() {
                rest = outside[1..].to_vec();
                continue;
            }
            let mut members = Vec::new();
            let mut offsets = Vec::new();
            let mut written = vec![false; rest[0].fields as usize];
            let mut twice = false;
            for a in &inside {
                let field = ((a.addr.konst - low) / size) as u32;
                twice |= std::mem::replace(&mut written[field as usize], true);
                members.push((a.id, field));
                offsets.push(a.addr.konst - low);
            }
            let g = Group {
                store: stores,
                ty: inside[0].ty,
                fields: inside[0].fields,
                members,
                offsets,
            };
            // Stores: only whole records, each field written once.
            if !stores || (!twice && g.covers_records()) {
                let k = plan.groups.len();
                for &(id, _) in &g.members {
                    plan.group_of.insert(id, k);
                }
                plan.groups.push(g);
            }
            rest = outside;
        }
    }
}

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// A load or store of a packed group: the group is emitted at its lead
    /// access; the other loads take their value from there.
    pub(super) fn grouped_access(&mut self, b: BlockId, id: InstId) -> R<()> {
        let k = *self.strided.group_of.get(&id).ok_or("access not grouped")?;
        let g = self.strided.groups[k].clone();
        if id == g.lead() {
            let vals = self.strided_group(b, &g)?;
            for (&(m, _), v) in g.members.iter().zip(vals) {
                self.grouped.insert(m, v);
            }
        }
        if g.store {
            return Ok(());
        }
        let v = self
            .grouped
            .remove(&id)
            .ok_or("a grouped load before its group")?;
        self.set(id, v)
    }

    /// `shufflevector a, b, idx`.
    pub(super) fn shuffle(
        &self,
        a: BasicValueEnum<'ctx>,
        b: BasicValueEnum<'ctx>,
        idx: &[u32],
    ) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let i32t = cx.ctx.i32_type();
        let mask: Vec<_> = idx
            .iter()
            .map(|&i| i32t.const_int(i as u64, false))
            .collect();
        let mask = inkwell::types::VectorType::const_vector(&mask);
        Ok(bv(unsafe {
            c::LLVMBuildShuffleVector(
                cx.b.as_mut_ptr(),
                a.as_value_ref(),
                b.as_value_ref(),
                mask.as_value_ref(),
                c"".as_ptr(),
            )
        }))
    }

    fn poison(&self, t: inkwell::types::VectorType<'ctx>) -> BasicValueEnum<'ctx> {
        bv(unsafe { c::LLVMGetPoison(t.as_type_ref()) })
    }

    /// Whether every lane of block `b` is active, as an `i1`.
    fn all_active(&mut self, b: BlockId) -> R<BasicValueEnum<'ctx>> {
        let m = self.mask_own(b)?;
        if !crate::ll::is_vec(m) {
            return Ok(m);
        }
        let t = m.get_type();
        self.cx.intrinsic("llvm.vector.reduce.and", &[t], &[m])
    }

    /// `fast` when every lane of `b` is active, else `slow`; joins their
    /// values.
    fn when_all_active(
        &mut self,
        b: BlockId,
        fast: impl FnOnce(&mut Self) -> R<Option<BasicValueEnum<'ctx>>>,
        slow: impl FnOnce(&mut Self) -> R<Option<BasicValueEnum<'ctx>>>,
    ) -> R<Option<BasicValueEnum<'ctx>>> {
        let cx = self.cx;
        let be = |e: inkwell::builder::BuilderError| format!("{e:?}");
        let all = self.all_active(b)?;
        let fb = cx.ctx.append_basic_block(self.func, "strided.packed");
        let sb = cx.ctx.append_basic_block(self.func, "strided.masked");
        let join = cx.ctx.append_basic_block(self.func, "strided.done");
        cx.b.build_conditional_branch(all.into_int_value(), fb, sb)
            .map_err(be)?;
        cx.b.position_at_end(fb);
        let fv = fast(self)?;
        let fend = cx.b.get_insert_block().ok_or("builder not positioned")?;
        cx.b.build_unconditional_branch(join).map_err(be)?;
        cx.b.position_at_end(sb);
        let sv = slow(self)?;
        let send = cx.b.get_insert_block().ok_or("builder not positioned")?;
        cx.b.build_unconditional_branch(join).map_err(be)?;
        cx.b.position_at_end(join);
        match (fv, sv) {
            (Some(x), Some(y)) => {
                let phi = cx.b.build_phi(x.get_type(), "").map_err(be)?;
                phi.add_incoming(&[(&x as &dyn BasicValue, fend), (&y, send)]);
                Ok(Some(phi.as_basic_value()))
            }
            _ => Ok(None),
        }
    }

    /// Emits group `g` at its lead access; returns the loaded value of each
    /// member (loads) or nothing (stores).
    ///
    /// Whole groups access the span with a plain vector load or store;
    /// others with a masked one whose mask enables exactly the elements the
    /// active lanes access (so nothing past a buffer's end is touched).
    pub(super) fn strided_group(&mut self, b: BlockId, g: &Group) -> R<Vec<BasicValueEnum<'ctx>>> {
        let cx = self.cx;
        let f = self.f;
        let w = self.w();
        let k = g.fields;
        let et = llty(cx, g.ty, false)?;
        let lead = g.lead();
        let lead_at = g.members.iter().position(|&(i, _)| i == lead).unwrap_or(0);
        let (InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. }) = f.inst(lead).kind else {
            return Err("a strided group without an access".into());
        };
        let align = g
            .members
            .iter()
            .map(|&(i, _)| match f.inst(i).kind {
                InstKind::Load { align, .. } | InstKind::Store { align, .. } => {
                    align_of(align, g.ty)
                }
                _ => 1,
            })
            .min()
            .unwrap_or(1);
        let hi = g.members.iter().map(|&(_, f)| f).max().unwrap_or(0);
        let span = if g.store { w * k } else { (w - 1) * k + hi + 1 };
        let vt = vec_of(et, span);
        let m = self.mask_vec(b)?;
        // Element j of the span is field j % k of lane j / k.
        let mut used = vec![false; k as usize];
        for &(_, field) in &g.members {
            used[field as usize] = true;
        }
        let spread: Vec<u32> = (0..span)
            .map(|j| if used[(j % k) as usize] { j / k } else { w })
            .collect();
        let off = cx.i64c(g.offsets[lead_at].wrapping_neg() as u64);
        let lane_bytes = k as u64 * g.ty.bytes();
        let base = self.packed_base(ptr, m, lane_bytes)?;
        let p0 = cx.gep_bytes(base, off)?;
        let no_lanes = vec_of(cx.ctx.bool_type().into(), w).const_zero().into();
        if !g.store {
            let fast = |_: &mut Self| -> R<Option<BasicValueEnum<'ctx>>> {
                Ok(Some(cx.load(vt.into(), p0, align)?))
            };
            let slow = |me: &mut Self| -> R<Option<BasicValueEnum<'ctx>>> {
                let sm = me.shuffle(m, no_lanes, &spread)?;
                let r = cx.intrinsic(
                    "llvm.masked.load",
                    &[vt.into(), p0.get_type()],
                    &[p0, cx.i32c(align as u64), sm, me.poison(vt)],
                )?;
                Ok(Some(r))
            };
            let all = self
                .when_all_active(b, fast, slow)?
                .ok_or("a strided load without a value")?;
            let poison = self.poison(vt);
            return g
                .members
                .iter()
                .map(|&(_, field)| {
                    let idx: Vec<u32> = (0..w).map(|t| t * k + field).collect();
                    self.shuffle(all, poison, &idx)
                })
                .collect();
        }
        // Field j's vector at j*W of one concatenation, then interleaved.
        let mut parts = vec![self.poison(vec_of(et, w)); k.next_power_of_two() as usize];
        for &(id, field) in &g.members {
            let InstKind::Store { value, .. } = f.inst(id).kind else {
                return Err("a strided store group with a load".into());
            };
            parts[field as usize] = self.get(value, true)?;
        }
        while parts.len() > 1 {
            let len = 2 * parts[0].into_vector_value().get_type().get_size();
            let idx: Vec<u32> = (0..len).collect();
            parts = parts
                .chunks(2)
                .map(|p| self.shuffle(p[0], p[1], &idx))
                .collect::<R<_>>()?;
        }
        let idx: Vec<u32> = (0..span).map(|i| (i % k) * w + i / k).collect();
        let inter = self.shuffle(parts[0], parts[0], &idx)?;
        let fast = |_: &mut Self| -> R<Option<BasicValueEnum<'ctx>>> {
            cx.store(p0, inter, align)?;
            Ok(None)
        };
        let slow = |me: &mut Self| -> R<Option<BasicValueEnum<'ctx>>> {
            let sm = me.shuffle(m, no_lanes, &spread)?;
            cx.intrinsic_void(
                "llvm.masked.store",
                &[vt.into(), p0.get_type()],
                &[inter, p0, cx.i32c(align as u64), sm],
            )?;
            Ok(None)
        };
        self.when_all_active(b, fast, slow)?;
        Ok(Vec::new())
    }
}

/// Strides (in elements) a `__local` gather or scatter is tried at when its
/// stride is uniform but not known at compile time.
const RUN_TIME_STRIDES: [u32; 3] = [1, 2, 4];

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// Whether a varying access of `ty` through `ptr` gets versions on its
    /// stride at run time: `__local` memory (scan's `temp[offset * (2 *
    /// thid + 1) - 1]`, whose stride `2 * offset` is uniform but not a
    /// constant), an address the vectorizer could not give a shape.
    pub(super) fn stride_versioned(
        &self,
        b: BlockId,
        ptr: ValueId,
        ty: Ty,
    ) -> Option<(ValueId, i64)> {
        let local = self.f.ty(ptr) == Ty::Ptr(lanes_frontend::ast::AddressSpace::Local);
        if !local
            || !matches!(self.vf.shape(ptr), Shape::Varying { .. })
            || !(ty.is_int() || ty.is_float())
            || ty == Ty::I1
            || self.w() < 2
        {
            return None;
        }
        let (x, c) = self.lane_leaf(ptr)?;
        // Tested where the access is: `x` must be computed in the same
        // block (a block can be emitted in several copies, each with its
        // own values).
        let here = self.f.def_inst(x)?;
        self.f.block(b).insts.contains(&here).then_some((x, c))
    }

    /// The one lane-varying integer `x` and its factor `c` when `ptr` is
    /// `c * x` plus work-group uniform terms (through the additions,
    /// constant factors and sign extensions `affine` follows): lanes are
    /// then `k` elements apart exactly when the lanes of `x` are
    /// `k * size / c` apart, which is tested on `x` (one 32-bit compare for
    /// an `int` index) instead of on the 64-bit lane addresses.
    fn lane_leaf(&self, ptr: ValueId) -> Option<(ValueId, i64)> {
        let a = affine(self.f, ptr, 24);
        let mut varying = a.terms.iter().filter(|(&v, _)| self.is_vec(v));
        let (&x, &c) = varying.next()?;
        if varying.next().is_some() || !self.f.ty(x).is_int() || self.f.ty(x).bits() < 32 {
            return None;
        }
        Some((x, c))
    }

    /// Lane 0's address of the varying access `ptr` in scalars, with the
    /// lane-varying term `x` of its affine form taken as `x0` (an exact
    /// `i64`): the pointer it is based on plus the byte offset of every
    /// other term, sign-extended as `affine` reads them. `None` unless the
    /// form has exactly one pointer term and no other varying one.
    pub(super) fn lane0_address(
        &mut self,
        ptr: ValueId,
        x: ValueId,
        x0: BasicValueEnum<'ctx>,
    ) -> R<Option<BasicValueEnum<'ctx>>> {
        use inkwell::llvm_sys::LLVMOpcode as Op;
        let a = affine(self.f, ptr, 24);
        let cx = self.cx;
        let i64t = cx.ctx.i64_type();
        let mut base = None;
        let mut offset = cx.i64c(a.konst as u64);
        for (&v, &c) in &a.terms {
            let term = if v == x {
                x0
            } else if matches!(self.f.ty(v), Ty::Ptr(_)) {
                if c != 1 || base.is_some() || self.is_vec(v) {
                    return Ok(None);
                }
                base = Some(self.get(v, false)?);
                continue;
            } else if self.is_vec(v) || !self.f.ty(v).is_int() {
                return Ok(None);
            } else {
                let t = self.get(v, false)?;
                if self.f.ty(v) == Ty::I64 {
                    t
                } else {
                    cx.cast(Op::LLVMSExt, t, i64t.into())?
                }
            };
            let scaled = cx.binop(Op::LLVMMul, term, cx.i64c(c as u64))?;
            offset = cx.binop(Op::LLVMAdd, offset, scaled)?;
        }
        match base {
            Some(b) => cx.gep_bytes(b, offset).map(Some),
            None => Ok(None),
        }
    }

    /// A gather (`stored` = None) or scatter of `stored` through the lane
    /// addresses `ps`, elements of LLVM type `et`, with versions for lanes
    /// `k` elements apart (k in `RUN_TIME_STRIDES`) when every lane of `b`
    /// is active: lane t's address is tested to be `p0 + t * k * size`, and
    /// the access is then one vector load of the span from lane 0's element
    /// to lane W-1's (`(W - 1) * k + 1` elements, nothing outside them) and
    /// a shuffle. A store loads the span, puts the lanes' values in and
    /// stores it back: exact on `__local` memory, which only the thread
    /// running the work-group touches, with nothing between the load and
    /// the store. Otherwise `slow` (the gather or scatter) runs.
    pub(super) fn by_run_time_stride(
        &mut self,
        b: BlockId,
        ps: BasicValueEnum<'ctx>,
        (leaf, factor): (ValueId, i64),
        et: inkwell::types::BasicTypeEnum<'ctx>,
        size: u64,
        align: u32,
        stored: Option<BasicValueEnum<'ctx>>,
        slow: impl FnOnce(&mut Self) -> R<Option<BasicValueEnum<'ctx>>>,
    ) -> R<Option<BasicValueEnum<'ctx>>> {
        let cx = self.cx;
        let w = self.w();
        let be = |e: inkwell::builder::BuilderError| format!("{e:?}");
        let all = self.all_active(b)?;
        let check = cx.ctx.append_basic_block(self.func, "stride.check");
        let sb = cx.ctx.append_basic_block(self.func, "stride.gather");
        let join = cx.ctx.append_basic_block(self.func, "stride.done");
        cx.b.build_conditional_branch(all.into_int_value(), check, sb)
            .map_err(be)?;
        cx.b.position_at_end(check);
        let p0 = cx.extract(ps, 0)?;
        let xs = self.get(leaf, true)?;
        let xt = cx.elem_type(xs).into_int_type();
        let x0 = cx.extract(xs, 0)?;
        let x1 = cx.extract(xs, 1)?;
        let d = cx.binop(inkwell::llvm_sys::LLVMOpcode::LLVMSub, x1, x0)?;
        // The strides whose step of `leaf` is a whole number.
        let steps: Vec<(u32, i64)> = RUN_TIME_STRIDES
            .iter()
            .filter_map(|&k| {
                let bytes = k as i64 * size as i64;
                (bytes % factor == 0).then_some((k, bytes / factor))
            })
            .collect();
        let verify: Vec<_> = steps
            .iter()
            .map(|_| cx.ctx.append_basic_block(self.func, "stride.verify"))
            .collect();
        let arms: Vec<_> = steps
            .iter()
            .zip(&verify)
            .map(|(&(_, step), &bb)| (xt.const_int(step as u64, true), bb))
            .collect();
        cx.b.build_switch(d.into_int_value(), sb, &arms)
            .map_err(be)?;
        let mut incoming = Vec::new();
        for (&(k, step), &vb) in steps.iter().zip(&verify) {
            cx.b.position_at_end(vb);
            // Lane t's `leaf` must be lane 0's plus t * step.
            let lanes: Vec<_> = (0..w as i64)
                .map(|t| xt.const_int((t * step) as u64, true))
                .collect();
            let lanes = inkwell::types::VectorType::const_vector(&lanes).into();
            let want = cx.binop(inkwell::llvm_sys::LLVMOpcode::LLVMAdd, cx.splat(x0)?, lanes)?;
            let eq = cx.icmp(inkwell::llvm_sys::LLVMIntPredicate::LLVMIntEQ, xs, want)?;
            let ok = cx.intrinsic("llvm.vector.reduce.and", &[eq.get_type()], &[eq])?;
            let fb = cx.ctx.append_basic_block(self.func, "stride.packed");
            cx.b.build_conditional_branch(ok.into_int_value(), fb, sb)
                .map_err(be)?;
            cx.b.position_at_end(fb);
            let span = (w - 1) * k + 1;
            let vt = vec_of(et, span);
            let v = match stored {
                None if k == 1 => Some(cx.load(vt.into(), p0, align)?),
                None => {
                    let all = cx.load(vt.into(), p0, align)?;
                    let idx: Vec<u32> = (0..w).map(|t| t * k).collect();
                    Some(self.shuffle(all, self.poison(vt), &idx)?)
                }
                Some(x) if k == 1 => {
                    cx.store(p0, x, align)?;
                    None
                }
                Some(x) => {
                    let old = cx.load(vt.into(), p0, align)?;
                    // x spread to every k-th element of the span, then
                    // taken there, the span's own elements elsewhere.
                    let spread: Vec<u32> = (0..span)
                        .map(|j| if j % k == 0 { j / k } else { 0 })
                        .collect();
                    let xs = self.shuffle(x, x, &spread)?;
                    let pick: Vec<u32> = (0..span)
                        .map(|j| if j % k == 0 { span + j } else { j })
                        .collect();
                    let new = self.shuffle(old, xs, &pick)?;
                    cx.store(p0, new, align)?;
                    None
                }
            };
            let end = cx.b.get_insert_block().ok_or("builder not positioned")?;
            cx.b.build_unconditional_branch(join).map_err(be)?;
            incoming.push((v, end));
        }
        cx.b.position_at_end(sb);
        let sv = slow(self)?;
        let send = cx.b.get_insert_block().ok_or("builder not positioned")?;
        cx.b.build_unconditional_branch(join).map_err(be)?;
        incoming.push((sv, send));
        cx.b.position_at_end(join);
        let Some(Some(first)) = incoming.first().map(|x| x.0) else {
            return Ok(None);
        };
        let phi = cx.b.build_phi(first.get_type(), "").map_err(be)?;
        for (v, bb) in &incoming {
            let v = v.ok_or("a run-time stride version without a value")?;
            phi.add_incoming(&[(&v as &dyn BasicValue, *bb)]);
        }
        Ok(Some(phi.as_basic_value()))
    }
}
