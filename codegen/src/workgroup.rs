//! The work-group plan of a kernel body: what the body keeps in memory so
//! that the SIMD groups of a work-group can take turns between barriers
//! (docs/codegen.md, "Work-groups: barriers, `__local` memory, atomics").
//!
//! A body with barriers is a resumable function: the entry points call it
//! once per SIMD group with a *state* (0: from the start, k: after barrier
//! k) and it returns at the next barrier with that barrier's number, or 0
//! at the end. Every value live across some barrier is kept in the SIMD
//! group's *save area* instead of a register: stored where it is defined,
//! loaded where it is used. Private objects (`alloca`s) of such a body live
//! there too. Kernel-scope `__local` variables are laid out in one block
//! per work-group that every SIMD group of the group sees.

use std::collections::HashMap;

use lanes_frontend::ast::AddressSpace;
use lanes_vectorizer::ir::{BlockId, InstId, InstKind, Ty, ValueDef, ValueId};
use lanes_vectorizer::vectorize::VectorFunction;

/// Alignment of the save area of one SIMD group and of `__local` blocks.
pub const ALIGN: u64 = 64;

/// Bytes per SIMD group in the work-group's scratch array, where
/// collectives leave each SIMD group's partial result.
pub const SCRATCH_SLOT: u64 = 8;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// Byte offset in the save area of each value kept there.
    pub spills: HashMap<ValueId, u64>,
    /// Work-item queries live across a barrier: computed again from the
    /// group's geometry where they are used (a lane mask kept in memory
    /// would hide from LLVM that a full SIMD group's mask is all true).
    pub remat: std::collections::HashSet<ValueId>,
    /// Byte offset in the save area of each private object (only when the
    /// body has barriers).
    pub allocas: HashMap<InstId, u64>,
    /// Bytes of one SIMD group's save area (a multiple of [`ALIGN`]).
    pub save_bytes: u64,
    /// Byte offset of each kernel-scope `__local` variable in the
    /// work-group's `__local` block.
    pub locals: Vec<u64>,
    /// Bytes of the kernel-scope `__local` variables (a multiple of
    /// [`ALIGN`]).
    pub local_bytes: u64,
    /// States the body starts in: 0, and one after each barrier (a
    /// work-group collective is two barriers).
    pub states: u32,
}

impl Plan {
    /// True when the body needs the work-group calling convention (save
    /// area, `__local` block, state).
    pub fn needed(vf: &VectorFunction) -> bool {
        let f = &vf.func;
        !f.locals.is_empty()
            || f.params
                .iter()
                .any(|p| p.ty == Ty::Ptr(AddressSpace::Local))
            || f.insts.iter().any(|i| i.kind.is_work_group_sync())
    }

    /// The plan of `vf` for blocks reachable in `order` (reverse
    /// post-order) at width `w`.
    pub fn compute(vf: &VectorFunction, order: &[BlockId], w: u32) -> Plan {
        let f = &vf.func;
        let mut plan = Plan::default();
        let mut local_off = 0u64;
        for l in &f.locals {
            let a = l.align.clamp(1, ALIGN);
            local_off = local_off.div_ceil(a) * a;
            plan.locals.push(local_off);
            local_off += l.size.max(1);
        }
        plan.local_bytes = local_off.div_ceil(ALIGN) * ALIGN;

        plan.states = 1;
        for &b in order {
            for &i in &f.block(b).insts {
                match f.inst(i).kind {
                    InstKind::Barrier { .. } => plan.states += 1,
                    InstKind::WorkGroup { .. } => plan.states += 2,
                    _ => {}
                }
            }
        }
        if plan.states == 1 {
            return plan;
        }
        let mut save = 0u64;
        let mut slot = |bytes: u64, align: u64| {
            let a = align.clamp(1, ALIGN);
            save = save.div_ceil(a) * a;
            let off = save;
            save += bytes.max(1);
            off
        };
        let mut live_across: Vec<ValueId> = live_across_barriers(vf, order).into_iter().collect();
        live_across.sort();
        for v in live_across {
            let query = f.def_inst(v).map(|i| &f.inst(i).kind);
            if let Some(InstKind::WorkItem { dim, .. }) = query {
                if dim.is_none_or(|d| f.as_const(d).is_some()) {
                    plan.remat.insert(v);
                    continue;
                }
            }
            let t = f.ty(v);
            let elem = t.bytes().max(1);
            let bytes = if vf.is_uniform(v) {
                elem
            } else {
                elem * w as u64
            };
            plan.spills
                .insert(v, slot(bytes, bytes.next_power_of_two()));
        }
        for &b in order {
            for &i in &f.block(b).insts {
                let inst = f.inst(i);
                if let InstKind::Alloca { size, align } = inst.kind {
                    let per_lane = inst.result.is_some_and(|r| !vf.is_uniform(r));
                    let bytes = size.max(1) * if per_lane { w as u64 } else { 1 };
                    let a = align.max(if per_lane { 16 } else { 1 });
                    plan.allocas.insert(i, slot(bytes, a));
                }
            }
        }
        plan.save_bytes = save.div_ceil(ALIGN) * ALIGN;
        plan
    }
}

/// The instruction results live just after some barrier: backward
/// liveness over the reachable blocks, where a φ operand is used at the
/// end of its predecessor and every instruction of a block uses the
/// block's mask (the emitter reads it for memory accesses, guards and
/// horizontal operations).
fn live_across_barriers(
    vf: &VectorFunction,
    order: &[BlockId],
) -> std::collections::HashSet<ValueId> {
    use std::collections::HashSet;
    let f = &vf.func;
    let is_inst = |v: ValueId| {
        matches!(
            f.values.get(v.index()).map(|x| &x.def),
            Some(ValueDef::Inst(_))
        )
    };
    let index: HashMap<BlockId, usize> = order.iter().enumerate().map(|(k, &b)| (b, k)).collect();
    let n = order.len();
    // Per block: values used before any definition in it, values defined,
    // φ operands per predecessor.
    let mut gen: Vec<HashSet<ValueId>> = vec![HashSet::new(); n];
    let mut kill: Vec<HashSet<ValueId>> = vec![HashSet::new(); n];
    let mut phi_uses: Vec<HashSet<ValueId>> = vec![HashSet::new(); n];
    for (k, &b) in order.iter().enumerate() {
        let mask = vf.block_mask.get(b.index()).copied();
        for &i in f.block(b).insts.iter().rev() {
            let inst = f.inst(i);
            if let Some(r) = inst.result {
                gen[k].remove(&r);
                kill[k].insert(r);
            }
            match &inst.kind {
                InstKind::Phi { incoming } => {
                    for &(p, v) in incoming {
                        if let Some(&pk) = index.get(&p) {
                            if is_inst(v) {
                                phi_uses[pk].insert(v);
                            }
                        }
                    }
                }
                k2 => {
                    k2.for_each_operand(|v| {
                        if is_inst(v) {
                            gen[k].insert(v);
                        }
                    });
                    if let Some(m) = mask.filter(|&m| is_inst(m)) {
                        gen[k].insert(m);
                    }
                }
            }
        }
    }
    let succs: Vec<Vec<usize>> = order
        .iter()
        .map(|&b| {
            f.successors(b)
                .iter()
                .filter_map(|s| index.get(s).copied())
                .collect()
        })
        .collect();
    let mut live_in: Vec<HashSet<ValueId>> = gen.clone();
    let mut live_out: Vec<HashSet<ValueId>> = vec![HashSet::new(); n];
    let mut changed = true;
    while changed {
        changed = false;
        for k in (0..n).rev() {
            let mut out: HashSet<ValueId> = phi_uses[k].clone();
            for &s in &succs[k] {
                out.extend(live_in[s].iter().copied());
            }
            let mut inn: HashSet<ValueId> = out.difference(&kill[k]).copied().collect();
            inn.extend(gen[k].iter().copied());
            if out != live_out[k] || inn != live_in[k] {
                live_out[k] = out;
                live_in[k] = inn;
                changed = true;
            }
        }
    }
    // Walk each block with a barrier backwards from its end.
    let mut across = HashSet::new();
    for (k, &b) in order.iter().enumerate() {
        let insts = &f.block(b).insts;
        if !insts.iter().any(|&i| f.inst(i).kind.is_work_group_sync()) {
            continue;
        }
        let mask = vf.block_mask.get(b.index()).copied();
        let mut live = live_out[k].clone();
        for &i in insts.iter().rev() {
            let inst = f.inst(i);
            if matches!(inst.kind, InstKind::Barrier { .. }) {
                across.extend(live.iter().copied());
                continue;
            }
            if let InstKind::WorkGroup { .. } = &inst.kind {
                // Its result is made between its two barriers, from its
                // operands and the mask (read again after the first).
                across.extend(live.iter().copied());
                inst.kind.for_each_operand(|v| {
                    if is_inst(v) {
                        across.insert(v);
                    }
                });
                if let Some(m) = mask.filter(|&m| is_inst(m)) {
                    across.insert(m);
                }
            }
            if inst.kind.is_phi() {
                break;
            }
            if let Some(r) = inst.result {
                live.remove(&r);
            }
            inst.kind.for_each_operand(|v| {
                if is_inst(v) {
                    live.insert(v);
                }
            });
            if let Some(m) = mask.filter(|&m| is_inst(m)) {
                live.insert(m);
            }
        }
    }
    across
}
