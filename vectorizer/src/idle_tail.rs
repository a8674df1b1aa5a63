//! Idle tails of a region: the SIMD groups of a work-group that have
//! nothing to do between two barriers because a guard such as
//! `if (lid < stride)` excludes all their lanes.
//!
//! The work-group schedule runs every region for every SIMD group, column
//! block after column block ([`SimdGroupOrder::Columns`]), so the local id
//! along dimension 0 of a SIMD group's first lane (`xstart`) never
//! decreases from one SIMD group to the next within a region. A block whose
//! mask includes a term `get_local_id(0) < u` with `u` work-group uniform has
//! no active lane in a SIMD group with `xstart >= u`, nor in any SIMD group
//! after it. When every block with a memory access or other effect that a
//! SIMD group ran in a region had such a *bound* it is past, and every
//! branch of the region is work-group uniform (so the later SIMD groups
//! take the same path, meet the same bounds and do nothing either), the
//! rest of the region's SIMD groups are an *idle tail*: all that running
//! them would do is recompute the region's kept values, which are then
//! required to be work-group uniform scalars, the same in every SIMD group.
//! The back end skips them and copies those values from the SIMD group
//! that found the tail (docs/codegen.md, "Idle tails").

use std::collections::{BTreeMap, BTreeSet};

use crate::cfg::Cfg;
use crate::ir::{
    BinOp, BlockId, CastOp, CmpPred, Const, Function, Horizontal, InstId, InstKind, ValueId,
    WorkItem,
};
use crate::schedule::{Schedule, SimdGroupOrder};
use crate::vectorize::VectorFunction;

/// When a SIMD group whose first lane has local id `xstart` (dimension 0)
/// has no active lane in a block: `xstart >= value` (`strict`: `>`),
/// compared signed or unsigned in `value`'s type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    pub value: ValueId,
    pub strict: bool,
    pub signed: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct IdleTails {
    /// Blocks with an access or another effect: the bound past which a SIMD
    /// group has no active lane in them, or `None` (a SIMD group that runs
    /// the block is not idle).
    pub effects: BTreeMap<BlockId, Option<Bound>>,
    /// Blocks that end in a branch on `sub_group_any(c)` (the vectorizer's
    /// skip of a guarded block) with a bound in `c`: a SIMD group past it
    /// takes the branch's `else` side, as every later one does.
    pub branches: BTreeMap<BlockId, Bound>,
    /// Per region (as [`Schedule::regions`] numbers them): the kept values
    /// the region defines, which a skipped SIMD group takes from the one
    /// that found the idle tail; `None` where a region's tail is never
    /// skipped.
    pub copies: Vec<Option<Vec<ValueId>>>,
}

impl IdleTails {
    /// True when some region's idle tail may be skipped.
    pub fn any(&self) -> bool {
        self.copies.iter().any(Option::is_some)
    }

    pub fn of(vf: &VectorFunction, schedule: &Schedule) -> IdleTails {
        let f = &vf.func;
        let mut out = IdleTails {
            copies: vec![None; schedule.regions()],
            ..IdleTails::default()
        };
        let collectives = schedule
            .syncs
            .iter()
            .any(|s| matches!(f.inst(s.inst).kind, InstKind::WorkGroup { .. }));
        if schedule.syncs.is_empty() || collectives || schedule.order != SimdGroupOrder::Columns {
            return out;
        }
        let cfg = Cfg::compute(f);
        let wg = crate::divergence::analyze_work_group(f, &cfg, vf.width);
        let wg_uniform = |v: ValueId| vf.is_uniform(v) && wg.is_uniform(v);
        for &b in &schedule.blocks {
            let effect = f.block(b).insts.iter().any(|&i| !pure(&f.inst(i).kind));
            if effect {
                // The bound is tested before the block: its mask comes from
                // another block.
                let m = vf.block_mask[b.index()];
                let before = f.def_inst(m).is_some_and(|d| f.inst(d).block != b);
                let bd = if before {
                    bound(f, m, &wg_uniform)
                } else {
                    None
                };
                out.effects.insert(b, bd);
            }
        }
        for &b in &schedule.blocks {
            let Some(t) = f.terminator(b) else { continue };
            let InstKind::CondBr { cond, .. } = f.inst(t).kind else {
                continue;
            };
            if wg_uniform(cond) {
                continue;
            }
            let any = f.def_inst(cond).map(|i| &f.inst(i).kind);
            if let Some(InstKind::Horizontal {
                op: Horizontal::Any,
                args,
            }) = any
            {
                if let Some(bd) = args.first().and_then(|&c| bound(f, c, &wg_uniform)) {
                    out.branches.insert(b, bd);
                }
            }
        }
        // The instructions each region runs: from its start to the next
        // synchronization point, on every path.
        let starts: Vec<(BlockId, usize)> = std::iter::once((cfg.entry(), 0))
            .chain(schedule.syncs.iter().map(|s| {
                let b = f.inst(s.inst).block;
                let at = f
                    .block(b)
                    .insts
                    .iter()
                    .position(|&i| i == s.inst)
                    .unwrap_or(0);
                (b, at + 1)
            }))
            .collect();
        for (k, &(b0, at0)) in starts.iter().enumerate() {
            let mut insts: Vec<InstId> = Vec::new();
            let mut seen = BTreeSet::new();
            let mut work = vec![(b0, at0)];
            let mut entered = BTreeSet::new();
            while let Some((b, at)) = work.pop() {
                if !seen.insert((b, at)) {
                    continue;
                }
                let mut stopped = false;
                for &i in &f.block(b).insts[at.min(f.block(b).insts.len())..] {
                    if f.inst(i).kind.is_work_group_sync() {
                        stopped = true;
                        break;
                    }
                    insts.push(i);
                }
                if !stopped {
                    for &s in cfg.succs(b) {
                        if entered.insert(s) {
                            work.push((s, 0));
                        }
                    }
                }
            }
            let ok = insts.iter().all(|&i| {
                let inst = f.inst(i);
                let uniform_branch = match inst.kind {
                    InstKind::CondBr { cond, .. } => {
                        wg_uniform(cond) || out.branches.contains_key(&inst.block)
                    }
                    InstKind::Switch { value, .. } => wg_uniform(value),
                    _ => true,
                };
                let kept_ok = inst.result.is_none_or(|r| {
                    !schedule.kept.contains(&r)
                        || (wg_uniform(r) && vf.mask_nonempty[inst.block.index()])
                });
                uniform_branch && kept_ok
            });
            let reaches_bound = insts.iter().any(|&i| {
                let b = f.inst(i).block;
                matches!(out.effects.get(&b), Some(Some(_))) || out.branches.contains_key(&b)
            });
            if ok && reaches_bound {
                let copies: BTreeSet<ValueId> = insts
                    .iter()
                    .filter_map(|&i| f.inst(i).result)
                    .filter(|r| schedule.kept.contains(r))
                    .collect();
                out.copies[k] = Some(copies.into_iter().collect());
            }
        }
        out
    }
}

impl IdleTails {
    /// The blocks with effects and their bounds, the bounded branches and
    /// the regions whose idle tail is skipped, for the file tests.
    pub fn print(&self, vf: &VectorFunction) -> String {
        use std::fmt::Write;
        let f = &vf.func;
        let label = |b: BlockId| crate::schedule::block_label(f, b);
        let bound = |bd: &Bound| {
            format!(
                "xstart {}{} {}",
                if bd.strict { ">" } else { ">=" },
                if bd.signed { "" } else { "u" },
                crate::ir::print::operand(f, bd.value)
            )
        };
        let mut out = String::from("idle tails:\n");
        for (b, bd) in &self.effects {
            let past = bd.as_ref().map_or("never".to_string(), bound);
            let _ = writeln!(out, "  effects in {}: idle when {past}", label(*b));
        }
        for (b, bd) in &self.branches {
            let _ = writeln!(out, "  branch in {}: idle when {}", label(*b), bound(bd));
        }
        for (k, c) in self.copies.iter().enumerate() {
            let what = match c {
                None => "runs every SIMD group".to_string(),
                Some(c) => {
                    let c: Vec<String> =
                        c.iter().map(|&v| crate::ir::print::operand(f, v)).collect();
                    format!("idle tail skipped, copies [{}]", c.join(", "))
                }
            };
            let _ = writeln!(out, "  region {k}: {what}");
        }
        out
    }
}

/// No memory access and no other effect: a SIMD group with no active lane
/// that skipped it would miss nothing. The kernel's `ret` is none either:
/// a region that ends the kernel (reduction's `if (lid == 0)` store of
/// the group's sum) has an idle tail as one that ends at a barrier.
fn pure(kind: &InstKind) -> bool {
    kind.is_pure()
        || matches!(
            kind,
            InstKind::Br(_)
                | InstKind::CondBr { .. }
                | InstKind::Switch { .. }
                | InstKind::Barrier { .. }
                | InstKind::Ret
        )
}

/// `v` is `get_local_id(0)`, maybe truncated or extended (local ids are
/// small non-negative numbers, the same in every width).
fn is_local_id0(f: &Function, v: ValueId) -> bool {
    let Some(i) = f.def_inst(v) else {
        return false;
    };
    match f.inst(i).kind {
        InstKind::WorkItem {
            query: WorkItem::LocalId,
            dim: Some(d),
        } => matches!(f.as_const(d), Some(Const::Int(0, _))),
        InstKind::Cast {
            op: CastOp::Trunc | CastOp::SExt | CastOp::ZExt,
            value,
        } => f.ty(value).bits() >= 16 && is_local_id0(f, value),
        _ => false,
    }
}

/// The bound of a block mask: one of its conjuncts (`select c, x, false`,
/// `and`) compares `get_local_id(0)` with a work-group uniform value.
fn bound(f: &Function, mask: ValueId, wg_uniform: &dyn Fn(ValueId) -> bool) -> Option<Bound> {
    let i = f.def_inst(mask)?;
    match f.inst(i).kind {
        InstKind::Select { cond, then, els }
            if matches!(f.as_const(els), Some(Const::Int(0, _))) =>
        {
            bound(f, cond, wg_uniform).or_else(|| bound(f, then, wg_uniform))
        }
        InstKind::Bin {
            op: BinOp::And,
            lhs,
            rhs,
        } => bound(f, lhs, wg_uniform).or_else(|| bound(f, rhs, wg_uniform)),
        InstKind::Cmp { pred, lhs, rhs } => {
            // As `lid PRED u`.
            let (pred, u) = if is_local_id0(f, lhs) && wg_uniform(rhs) {
                (pred, rhs)
            } else if is_local_id0(f, rhs) && wg_uniform(lhs) {
                (swapped(pred)?, lhs)
            } else {
                return None;
            };
            let (strict, signed) = match pred {
                CmpPred::Slt => (false, true),
                CmpPred::Sle | CmpPred::Eq => (true, true),
                CmpPred::Ult => (false, false),
                CmpPred::Ule => (true, false),
                _ => return None,
            };
            Some(Bound {
                value: u,
                strict,
                signed,
            })
        }
        _ => None,
    }
}

fn swapped(p: CmpPred) -> Option<CmpPred> {
    Some(match p {
        CmpPred::Eq => CmpPred::Eq,
        CmpPred::Sgt => CmpPred::Slt,
        CmpPred::Sge => CmpPred::Sle,
        CmpPred::Ugt => CmpPred::Ult,
        CmpPred::Uge => CmpPred::Ule,
        _ => return None,
    })
}
