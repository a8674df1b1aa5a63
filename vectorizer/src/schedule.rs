//! The work-group schedule of a vectorized kernel: how the SIMD groups of
//! one work-group run its body (docs/codegen.md, "The work-group
//! schedule"). The back end lowers it (`codegen/src/abi.rs` and
//! `workgroup.rs`: region loops, save areas) and the vector-IR executor
//! runs it ([`crate::interp::run_vector`]); the scalar interpreter does not
//! use it (it runs work-items, and is the oracle of both).
//!
//! - **Regions.** The body's work-group synchronization points (a barrier,
//!   or a collective, which is two) cut it into regions: region 0 starts at
//!   the entry, region k just after synchronization point k, numbered in
//!   the reverse post-order of the reachable blocks. Every SIMD group of
//!   the work-group runs one region, to the next synchronization point or
//!   the end, before any SIMD group starts the next: barriers are
//!   work-group uniform (the analysis refuses others), so all stop at the
//!   same one.
//! - **What crosses a region boundary.** The instruction results live just
//!   after some synchronization point are kept per SIMD group (the back
//!   end's save area); nothing else survives a boundary. Work-item queries
//!   among them are not kept but computed again from the SIMD group's
//!   geometry. Those the work-group analysis finds the same in every SIMD
//!   group (`shared`: a work-group-uniform loop's counter, the row start)
//!   are kept once per work-group: each region reads the value they had
//!   when it started, and the value the last SIMD group leaves is the one
//!   the next region reads.
//! - **The order of the SIMD groups** in a region: column block by column
//!   block, each through all rows, or row by row (see [`SimdGroupOrder`]).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::fmt::Write;

use lanes_frontend::ast::AddressSpace;

use crate::ir::{print, BlockId, Function, InstId, InstKind, Ty, ValueDef, ValueId};
use crate::vectorize::VectorFunction;

/// A point where the SIMD groups of a work-group wait for each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncPart {
    /// A barrier.
    Barrier,
    /// Before a work-group collective: each SIMD group has left its
    /// partial result in its slot of the work-group's scratch array.
    CollectiveSlots,
    /// After a collective: every SIMD group has read the slots.
    CollectiveDone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyncPoint {
    pub inst: InstId,
    pub part: SyncPart,
}

/// The order the SIMD groups of a work-group run a region in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimdGroupOrder {
    /// Column block by column block (W work-items of dimension 0), each
    /// through all rows (dimensions 1 and 2): a column block of memory the
    /// kernel walks (gemm's `B[k][j..j+W]`) is reused from L1 across rows.
    Columns,
    /// Row after row: consecutive SIMD groups write consecutive memory
    /// (whole cache lines in turn, which streaming stores need). Kernels
    /// without loops and without work-group memory.
    Rows,
    /// `Rows` when a row of the work-group has at least as many SIMD groups
    /// as it has rows, `Columns` otherwise: the longer loop innermost, so
    /// what the outer loop's index decides (the row offsets of a tile,
    /// the mask of a column) is computed once for most SIMD groups. Kernels
    /// without loops with work-group memory, unless a region's idle tail
    /// needs the column blocks (`crate::idle_tail`).
    Longer,
}

/// Where one SIMD group of a work-group sits: its first local column, its
/// lanes (W, or fewer for the partial group at the end of a row), its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimdGroupAt {
    pub x: u64,
    pub lanes: u64,
    pub ly: u64,
    pub lz: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// The reachable blocks in reverse post-order (the order
    /// synchronization points are numbered in).
    pub blocks: Vec<BlockId>,
    /// Region k >= 1 starts just after `syncs[k - 1]`.
    pub syncs: Vec<SyncPoint>,
    /// Instruction results live just after some synchronization point:
    /// kept by each SIMD group from one region to the next.
    pub kept: BTreeSet<ValueId>,
    /// The values of `kept` that are the same in every SIMD group of the
    /// work-group: work-group uniform by
    /// [`crate::divergence::analyze_work_group`] (so every SIMD group
    /// computes them alike) and defined in a block whose mask is never
    /// empty (a uniform load there is not skipped). Kept once per
    /// work-group: every SIMD group of a region reads the value they had at
    /// the region's start, and the next region reads what the last SIMD
    /// group left.
    pub shared: BTreeSet<ValueId>,
    /// Work-item queries live across a synchronization point: computed
    /// again where they are used (a lane mask kept in memory would hide
    /// from LLVM that a full SIMD group's mask is all true).
    pub requeried: BTreeSet<ValueId>,
    pub order: SimdGroupOrder,
    /// True when the body needs work-group memory (`__local` variables or
    /// arguments, or synchronization points).
    pub work_group_memory: bool,
}

impl Schedule {
    /// The schedule of `vf`.
    pub fn of(vf: &VectorFunction) -> Schedule {
        let f = &vf.func;
        let blocks = reverse_post_order(f);
        let mut syncs = Vec::new();
        for &b in &blocks {
            for &i in &f.block(b).insts {
                match f.inst(i).kind {
                    InstKind::Barrier { .. } => syncs.push(SyncPoint {
                        inst: i,
                        part: SyncPart::Barrier,
                    }),
                    InstKind::WorkGroup { .. } => {
                        for part in [SyncPart::CollectiveSlots, SyncPart::CollectiveDone] {
                            syncs.push(SyncPoint { inst: i, part });
                        }
                    }
                    _ => {}
                }
            }
        }
        let work_group_memory = !f.locals.is_empty()
            || f.params
                .iter()
                .any(|p| p.ty == Ty::Ptr(lanes_frontend::ast::AddressSpace::Local))
            || f.insts.iter().any(|i| i.kind.is_work_group_sync());
        let without_loops = crate::cfg::Cfg::compute(f).loops().is_empty();
        let mut kept = BTreeSet::new();
        let mut requeried = BTreeSet::new();
        if !syncs.is_empty() {
            // A work-item query of a constant dimension is asked again
            // after the barrier, and so is a conversion of one
            // (`(int)get_local_id(0)`): nothing to save and load.
            let query = |v: ValueId| {
                matches!(
                    f.def_inst(v).map(|i| &f.inst(i).kind),
                    Some(InstKind::WorkItem { dim, .. })
                        if dim.is_none_or(|d| f.as_const(d).is_some())
                )
            };
            for v in live_across_syncs(vf, &blocks) {
                let again = query(v)
                    || matches!(
                        f.def_inst(v).map(|i| &f.inst(i).kind),
                        Some(InstKind::Cast { value, .. }) if f.ty(*value).is_int() && query(*value)
                    );
                if again {
                    requeried.insert(v);
                } else {
                    kept.insert(v);
                }
            }
        }
        let shared = if kept.is_empty() {
            BTreeSet::new()
        } else {
            let cfg = crate::cfg::Cfg::compute(f);
            let wg = crate::divergence::analyze_work_group(f, &cfg, vf.width);
            kept.iter()
                .copied()
                .filter(|&v| {
                    let nonempty = f.def_inst(v).is_some_and(|i| {
                        let b = f.inst(i).block;
                        vf.mask_nonempty.get(b.index()).copied().unwrap_or(false)
                    });
                    // Each SIMD group has its own private objects: a
                    // pointer that may point into one is its own.
                    let own_object = matches!(
                        f.ty(v),
                        Ty::Ptr(AddressSpace::Private | AddressSpace::Generic)
                    );
                    nonempty && !own_object && vf.is_uniform(v) && wg.is_uniform(v)
                })
                .collect()
        };
        let mut schedule = Schedule {
            blocks,
            syncs,
            kept,
            shared,
            requeried,
            order: SimdGroupOrder::Columns,
            work_group_memory,
        };
        // Without loops a SIMD group walks no memory that the next row's
        // could reuse from L1 (the reason for column blocks): the order
        // is free, and the longer loop goes inside (stencil_2d's 8 SIMD
        // groups a row against 4 rows: row by row; transpose's 2 against
        // 16: column blocks). A region whose idle tail can be skipped
        // needs the column blocks (`xstart` never decreasing), so such a
        // kernel keeps them.
        if without_loops {
            if !work_group_memory {
                schedule.order = SimdGroupOrder::Rows;
            } else if !crate::idle_tail::IdleTails::of(vf, &schedule).any() {
                schedule.order = SimdGroupOrder::Longer;
            }
        }
        schedule
    }

    /// Regions: one more than the synchronization points.
    pub fn regions(&self) -> usize {
        self.syncs.len() + 1
    }

    /// The region that starts after `inst` (its second half for a
    /// collective), if `inst` is a synchronization point.
    pub fn region_after(&self, inst: InstId) -> Option<usize> {
        self.syncs
            .iter()
            .rposition(|s| s.inst == inst)
            .map(|k| k + 1)
    }

    /// The SIMD groups of a work-group of `size` work-items at width `w`,
    /// in the order they run each region.
    pub fn simd_groups(&self, size: [u64; 3], w: u64) -> Vec<SimdGroupAt> {
        let per_row = size[0].div_ceil(w);
        let at = |c: u64, ly: u64, lz: u64| SimdGroupAt {
            x: c * w,
            lanes: (size[0] - c * w).min(w),
            ly,
            lz,
        };
        let mut out = Vec::new();
        let rows_first = match self.order {
            SimdGroupOrder::Rows => true,
            SimdGroupOrder::Columns => false,
            SimdGroupOrder::Longer => per_row >= size[1] * size[2],
        };
        if rows_first {
            for lz in 0..size[2] {
                for ly in 0..size[1] {
                    out.extend((0..per_row).map(|c| at(c, ly, lz)));
                }
            }
        } else {
            for c in 0..per_row {
                for lz in 0..size[2] {
                    out.extend((0..size[1]).map(|ly| at(c, ly, lz)));
                }
            }
        }
        out
    }

    /// The schedule as text, for file tests and `--emit vir` readers.
    pub fn print(&self, vf: &VectorFunction) -> String {
        let f = &vf.func;
        let mut out = String::new();
        let order = match self.order {
            SimdGroupOrder::Columns => "column block by column block",
            SimdGroupOrder::Rows => "row by row",
            SimdGroupOrder::Longer => "the longer of rows and column blocks innermost",
        };
        let _ = writeln!(
            out,
            "schedule @{}: {} region{}, SIMD groups {order}{}",
            f.name,
            self.regions(),
            if self.regions() == 1 { "" } else { "s" },
            if self.work_group_memory {
                ", work-group memory"
            } else {
                ""
            }
        );
        let _ = writeln!(out, "  region 0: from the entry");
        for (k, s) in self.syncs.iter().enumerate() {
            let block = self
                .blocks
                .iter()
                .find(|&&b| f.block(b).insts.contains(&s.inst))
                .map_or("?".to_string(), |&b| block_label(f, b));
            let what = match s.part {
                SyncPart::Barrier => "",
                SyncPart::CollectiveSlots => " (slots written)",
                SyncPart::CollectiveDone => " (slots read)",
            };
            let _ = writeln!(
                out,
                "  region {}: after `{}`{what} in {block}",
                k + 1,
                print::inst_text(f, s.inst, &print::Plain)
            );
        }
        let shape = |v: ValueId| {
            if vf.is_uniform(v) {
                "uniform"
            } else {
                "varying"
            }
        };
        let kept: Vec<String> = self
            .kept
            .iter()
            .filter(|v| !self.shared.contains(v))
            .map(|&v| format!("{} {} {}", print::operand(f, v), f.ty(v), shape(v)))
            .collect();
        let _ = writeln!(out, "  kept per SIMD group: [{}]", kept.join(", "));
        let shared: Vec<String> = self
            .shared
            .iter()
            .map(|&v| format!("{} {}", print::operand(f, v), f.ty(v)))
            .collect();
        let _ = writeln!(out, "  kept per work-group: [{}]", shared.join(", "));
        let again: Vec<String> = self
            .requeried
            .iter()
            .map(|&v| print::operand(f, v))
            .collect();
        let _ = writeln!(out, "  computed again: [{}]", again.join(", "));
        out
    }
}

pub(crate) fn block_label(f: &Function, b: BlockId) -> String {
    let block = f.block(b);
    if block.label.is_empty() {
        format!("bb{}", b.0)
    } else {
        format!("bb{}.{}", b.0, block.label)
    }
}

/// The blocks reachable from the entry, in reverse post-order (successors
/// visited in their order).
pub fn reverse_post_order(f: &Function) -> Vec<BlockId> {
    let n = f.blocks.len();
    let mut seen = vec![false; n];
    let mut post = Vec::new();
    if f.entry.index() >= n {
        return post;
    }
    // Iterative DFS: (block, next successor index).
    let mut stack = vec![(f.entry, 0usize)];
    seen[f.entry.index()] = true;
    while let Some(&mut (b, ref mut k)) = stack.last_mut() {
        let succs = f.successors(b);
        if *k < succs.len() {
            let s = succs[*k];
            *k += 1;
            if s.index() < n && !seen[s.index()] {
                seen[s.index()] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// The instruction results live just after some synchronization point:
/// backward liveness over the reachable blocks, where a φ operand is used
/// at the end of its predecessor and every instruction of a block uses the
/// block's mask (memory accesses, guards and horizontal operations read
/// it).
fn live_across_syncs(vf: &VectorFunction, order: &[BlockId]) -> HashSet<ValueId> {
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
    // Walk each block with a synchronization point backwards from its end.
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
                // Its result is made between its two halves, from its
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

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(order: SimdGroupOrder) -> Schedule {
        Schedule {
            blocks: Vec::new(),
            syncs: Vec::new(),
            kept: BTreeSet::new(),
            shared: BTreeSet::new(),
            requeried: BTreeSet::new(),
            order,
            work_group_memory: false,
        }
    }

    #[test]
    fn simd_groups_walk_column_blocks_through_all_rows_or_row_by_row() {
        // 10 x 2 work-items at W = 4: three column blocks (the last of two
        // lanes), two rows.
        let at = |x, lanes, ly| SimdGroupAt {
            x,
            lanes,
            ly,
            lz: 0,
        };
        assert_eq!(
            schedule(SimdGroupOrder::Columns).simd_groups([10, 2, 1], 4),
            vec![
                at(0, 4, 0),
                at(0, 4, 1),
                at(4, 4, 0),
                at(4, 4, 1),
                at(8, 2, 0),
                at(8, 2, 1)
            ]
        );
        assert_eq!(
            schedule(SimdGroupOrder::Rows).simd_groups([10, 2, 1], 4),
            vec![
                at(0, 4, 0),
                at(4, 4, 0),
                at(8, 2, 0),
                at(0, 4, 1),
                at(4, 4, 1),
                at(8, 2, 1)
            ]
        );
    }
}
