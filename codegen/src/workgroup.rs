//! The work-group plan of a kernel body: what the body keeps in memory so
//! that the SIMD groups of a work-group can take turns between barriers
//! (docs/codegen.md, "Work-groups: barriers, `__local` memory, atomics").
//!
//! A body with barriers is a resumable function: the entry points call it
//! once per SIMD group with a *state* (0: from the start, k: after barrier
//! k) and it returns at the next barrier with that barrier's number, or 0
//! at the end. Every value the work-group schedule keeps across a region
//! boundary ([`lanes_vectorizer::schedule`]) is kept in the SIMD
//! group's *save area* instead of a register: stored where it is defined,
//! loaded where it is used. Private objects (`alloca`s) of such a body live
//! there too. Kernel-scope `__local` variables are laid out in one block
//! per work-group that every SIMD group of the group sees.

use std::collections::HashMap;

use lanes_vectorizer::ir::{InstId, InstKind, ValueId};
use lanes_vectorizer::schedule::Schedule;
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
    /// Byte offset in the work-group's shared slots of each value kept once
    /// per work-group (the schedule's `shared`: the same in every SIMD
    /// group). `k_groups` keeps them in a frame object of its own, copied
    /// in before each SIMD group's turn and back after a region's last, so
    /// that once the body is inlined they are registers of the region
    /// loop, not loads from each SIMD group's save area.
    pub shared: HashMap<ValueId, u64>,
    /// Bytes of the shared slots (a multiple of 8, 0 without any).
    pub shared_bytes: u64,
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
        Schedule::of(vf).work_group_memory
    }

    /// The plan of `vf` under its work-group `schedule` at width `w`: the
    /// values the schedule keeps across regions get save slots.
    pub fn compute(vf: &VectorFunction, schedule: &Schedule, w: u32) -> Plan {
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

        plan.states = schedule.regions() as u32;
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
        plan.remat = schedule.requeried.iter().copied().collect();
        let mut shared = 0u64;
        for &v in &schedule.shared {
            let bytes = f.ty(v).bytes().max(1);
            let a = bytes.next_power_of_two().clamp(1, 8);
            shared = shared.div_ceil(a) * a;
            plan.shared.insert(v, shared);
            shared += bytes;
        }
        // No padding beyond whole words: `k_groups` copies exactly these
        // bytes, and LLVM makes registers of every slot only when no part
        // of the object is left over.
        plan.shared_bytes = shared.div_ceil(8) * 8;
        for &v in schedule
            .kept
            .iter()
            .filter(|v| !schedule.shared.contains(v))
        {
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
        for &b in &schedule.blocks {
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
