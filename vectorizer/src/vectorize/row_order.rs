//! Row order for work-group-uniform loops that step through memory by the
//! local size.
//!
//! In histogram's
//!
//! ```c
//! for (int k = 0; k < ITEMS; k++)
//!     atomic_inc(&bins[data[base + k * lsize] & 0xffu]);
//! ```
//!
//! the work-group reads one row of `lsize` consecutive values per iteration.
//! Without a barrier in the loop each SIMD group runs the whole loop before
//! the next starts, so the work-group's block is read column by column (W
//! values from each of ITEMS rows `4 * lsize` bytes apart, then the next W
//! values of the same rows): every load is to another cache line and the
//! hardware prefetcher sees ITEMS interleaved streams. PoCL's kernel
//! compiler puts its work-item loop inside such a loop; lanes gets the same
//! interchange over SIMD groups by putting a barrier at the start of the
//! loop's latch. The loop then spans one region per iteration, which the
//! work-group schedule runs for all SIMD groups before the next (row by
//! row), keeping the loop's live values in each SIMD group's save area. A
//! work-group of one SIMD group runs straight through, the barrier as
//! nothing.
//!
//! A barrier only removes interleavings the kernel already allowed, so it is
//! correct wherever every work-item of the work-group reaches it equally
//! often: the loop and every loop around it must be work-group uniform
//! (the work-group divergence analysis, as for the kernel's own barriers),
//! and so must the latch's control. The cost model is narrow: the kernel
//! already has barriers (so it runs region by region anyway; a kernel
//! without any keeps its interleaved, all-active SIMD-group runs), the loop
//! has none itself and one latch, and it loads from a packed address (the
//! SIMD group's lanes contiguous) whose offset has the term `φ · lsize` or
//! a header φ stepping by `lsize`, with `φ` a header φ of this loop and
//! `lsize` `get_local_size(0)`. Only the innermost such loop of a nest gets
//! the barrier.

use std::collections::BTreeSet;

use crate::cfg::{Cfg, LoopId};
use crate::divergence::{Divergence, MaskKind};
use crate::ir::{fence, BinOp, BlockId, CastOp, Function, InstKind, Src, Ty, ValueId, WorkItem};
use crate::shape::Shape;

/// Puts a barrier into the latch of each loop worth running in row order;
/// `None` when there is none.
pub fn apply(f: &Function, cfg: &Cfg, div: &Divergence) -> Option<Function> {
    if !f.insts.iter().any(|i| i.kind.is_work_group_sync()) {
        return None;
    }
    let loops = candidates(f, cfg, div);
    if loops.is_empty() {
        return None;
    }
    let mut g = f.clone();
    for l in loops {
        let lp = cfg.loops().get(l)?;
        let latch = lp.latches[0];
        let src = f.terminator(latch).map(|t| f.inst(t).src).unwrap_or(Src {
            node: lanes_frontend::ast::NodeId(0),
            span: f.span,
        });
        let pos = g.phis(latch).count();
        g.insert(
            latch,
            pos,
            InstKind::Barrier {
                flags: fence::LOCAL | fence::GLOBAL,
            },
            Ty::Void,
            src,
        );
    }
    Some(g)
}

/// The loops that get a barrier (innermost first, none containing another).
pub(crate) fn candidates(f: &Function, cfg: &Cfg, div: &Divergence) -> Vec<LoopId> {
    let forest = cfg.loops();
    let wg = crate::divergence::analyze_work_group(f, cfg, div.width);
    let mut chosen: Vec<LoopId> = Vec::new();
    let mut ids: Vec<LoopId> = forest.ids().collect();
    ids.sort_by_key(|&l| std::cmp::Reverse(forest.loops[l.index()].depth));
    for l in ids {
        let lp = &forest.loops[l.index()];
        if lp.latches.len() != 1 {
            continue;
        }
        // Innermost only: a chosen loop inside this one has its barrier.
        if chosen
            .iter()
            .any(|&c| lp.contains(forest.loops[c.index()].header))
        {
            continue;
        }
        let has_sync = lp.blocks.iter().any(|&b| {
            f.block(b)
                .insts
                .iter()
                .any(|&i| f.inst(i).kind.is_work_group_sync())
        });
        if has_sync || !work_group_uniform(cfg, &wg, lp.latches[0]) {
            continue;
        }
        let blocks: BTreeSet<BlockId> = lp.blocks.iter().copied().collect();
        let steps_by_lsize = lp.blocks.iter().any(|&b| {
            f.block(b).insts.iter().any(|&i| match f.inst(i).kind {
                InstKind::Load { ptr, .. } => {
                    packed(f, div, ptr, f.inst(i).ty.bytes())
                        && offset_steps_by_local_size(f, &blocks, lp.header, ptr)
                }
                _ => false,
            })
        });
        if steps_by_lsize {
            chosen.push(l);
        }
    }
    chosen
}

/// True when every work-item of the work-group runs block `b` equally often:
/// no divergent branch (across the work-group) decides it, and it is in no
/// divergent loop (the check the analysis makes for the kernel's barriers).
fn work_group_uniform(cfg: &Cfg, wg: &Divergence, b: BlockId) -> bool {
    let mut seen = BTreeSet::new();
    let mut work = vec![b];
    while let Some(x) = work.pop() {
        if !seen.insert(x) {
            continue;
        }
        for &d in cfg.control_deps(x) {
            if wg.divergent_branches.contains(&d) {
                return false;
            }
            if wg.masks.get(d.index()) == Some(&MaskKind::Varying) {
                work.push(d);
            }
        }
    }
    let mut l = cfg.loop_of(b);
    while let Some(id) = l {
        if wg.divergent_loops.contains_key(&id) {
            return false;
        }
        l = cfg.loops().loops[id.index()].parent;
    }
    wg.masks.get(b.index()) != Some(&MaskKind::Varying)
}

/// The SIMD group's lanes access consecutive elements of `bytes` each.
fn packed(f: &Function, div: &Divergence, ptr: ValueId, bytes: u64) -> bool {
    f.ty(ptr).is_ptr()
        && matches!(div.shape(ptr), Shape::Strided { stride, .. } if stride > 0 && stride as u64 == bytes)
}

/// `ptr` is `base + offset` with `base` from outside the loop and `offset`
/// a sum (through casts and constant scales) with a term that grows by the
/// local size each iteration.
fn offset_steps_by_local_size(
    f: &Function,
    blocks: &BTreeSet<BlockId>,
    header: BlockId,
    ptr: ValueId,
) -> bool {
    let Some(d) = f.def_inst(ptr) else {
        return false;
    };
    let InstKind::PtrAdd { base, offset } = f.inst(d).kind else {
        return false;
    };
    if f.def_inst(base)
        .is_some_and(|b| blocks.contains(&f.inst(b).block))
    {
        return false;
    }
    let header_phi = |v: ValueId| {
        f.def_inst(v)
            .is_some_and(|i| f.inst(i).block == header && f.inst(i).kind.is_phi())
    };
    let mut work = vec![offset];
    let mut seen = BTreeSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        let Some(i) = f.def_inst(v) else { continue };
        match &f.inst(i).kind {
            InstKind::Cast {
                op: CastOp::SExt | CastOp::ZExt | CastOp::Trunc,
                value,
            } => work.push(*value),
            InstKind::Bin {
                op: BinOp::Add,
                lhs,
                rhs,
            } => {
                work.push(*lhs);
                work.push(*rhs);
            }
            InstKind::Bin {
                op: BinOp::Shl,
                lhs,
                rhs,
            } if f.as_const(*rhs).is_some() => work.push(*lhs),
            InstKind::Bin {
                op: BinOp::Mul,
                lhs,
                rhs,
            } => {
                let (lhs, rhs) = (*lhs, *rhs);
                if (header_phi(lhs) && local_size(f, rhs))
                    || (header_phi(rhs) && local_size(f, lhs))
                {
                    return true;
                }
                // A constant scale (the element size) keeps the step.
                if f.as_const(rhs).is_some() {
                    work.push(lhs);
                } else if f.as_const(lhs).is_some() {
                    work.push(rhs);
                }
            }
            InstKind::Phi { incoming } if f.inst(i).block == header => {
                // `p = φ(start, p + lsize)`.
                let steps = incoming.iter().any(|&(b, inc)| {
                    blocks.contains(&b)
                        && f.def_inst(inc).is_some_and(|a| {
                            matches!(f.inst(a).kind,
                                InstKind::Bin { op: BinOp::Add, lhs, rhs }
                                    if (lhs == v && local_size(f, rhs)) || (rhs == v && local_size(f, lhs)))
                        })
                });
                if steps {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// `v` is `get_local_size(0)`, possibly truncated or extended.
fn local_size(f: &Function, v: ValueId) -> bool {
    let Some(i) = f.def_inst(v) else { return false };
    match &f.inst(i).kind {
        InstKind::Cast {
            op: CastOp::SExt | CastOp::ZExt | CastOp::Trunc,
            value,
        } => local_size(f, *value),
        InstKind::WorkItem {
            query: WorkItem::LocalSize,
            dim,
        } => {
            dim.and_then(|d| f.as_const(d))
                .and_then(|c| c.as_unsigned())
                == Some(0)
        }
        _ => false,
    }
}
