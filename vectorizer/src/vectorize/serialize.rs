//! Lane serialization of divergent loops that walk per-lane streams.
//!
//! A loop like CSR's `for (k = begin; k < end; k++) dot += vals[k] *
//! x[col[k]]` has a different start on every lane: in SIMD each iteration
//! gathers from W unrelated rows and the loop runs as long as its longest
//! lane. Run it instead once per active lane, with the lane's live-ins
//! broadcast: inside, every value is uniform, the accesses are scalar
//! streams, and the lane's results are written back to its lane (ISPC's
//! `foreach_active`, done automatically). The scalar IR becomes
//!
//! ```text
//! P:    br SH
//! SH:   l = φ(P: 0, SL: l+1); t = φ(P: undef, SL: t')   ; t: per-lane live-outs
//!       br l < W, SB, E
//! SB:   isl = sub_group_local_id == l; br any(isl), SPRE, SL
//! SPRE: v_l = broadcast(v, l) for each varying live-in; br H   ; the loop, on v_l
//! X:    (the exit edge) → SX
//! SX:   t'' = select(isl, live-out, t); br SL
//! SL:   t' = φ(SB: t, SX: t''); br SH
//! E:    uses of the live-outs read t
//! ```
//!
//! The cost model is deliberately narrow: a divergent loop with one exit,
//! no sub-group operations or lane-dependent work-item queries inside, at
//! least two gathers or scatters, and an induction variable whose start
//! differs between lanes (each lane walks its own range).

use std::collections::{BTreeMap, BTreeSet};

use crate::cfg::{Cfg, LoopId};
use crate::divergence::Divergence;
use crate::ir::{
    BinOp, BlockId, CmpPred, Const, Function, Horizontal, InstId, InstKind, Src, Ty, ValueId,
    WorkItem,
};

/// The loops worth serializing (outermost divergent loops only).
fn candidates(f: &Function, cfg: &Cfg, div: &Divergence) -> Vec<LoopId> {
    let forest = cfg.loops();
    let mut out = Vec::new();
    for &l in div.divergent_loops.keys() {
        let Some(lp) = forest.get(l) else { continue };
        // Outermost divergent loop.
        let mut p = lp.parent;
        let mut nested = false;
        while let Some(q) = p {
            if div.divergent_loops.contains_key(&q) {
                nested = true;
            }
            p = forest.parent(q);
        }
        if nested || lp.exits.len() != 1 || lp.latches.len() != 1 {
            continue;
        }
        let blocks: BTreeSet<BlockId> = lp.blocks.iter().copied().collect();
        let mut gathers = 0;
        let mut ok = true;
        for &b in &lp.blocks {
            for &i in &f.block(b).insts {
                match &f.inst(i).kind {
                    InstKind::Horizontal { .. }
                    | InstKind::Alloca { .. }
                    | InstKind::Barrier { .. }
                    | InstKind::Atomic { .. }
                    | InstKind::WorkGroup { .. }
                    | InstKind::ImageRead { .. }
                    | InstKind::ImageWrite { .. }
                    | InstKind::ImageQuery { .. } => ok = false,
                    InstKind::WorkItem { .. } => {
                        if let Some(r) = f.inst(i).result {
                            if !div.is_uniform(r) {
                                ok = false;
                            }
                        }
                    }
                    InstKind::Load { ptr, .. } | InstKind::Store { ptr, .. }
                        if div.shape(*ptr).is_varying() =>
                    {
                        gathers += 1;
                    }
                    _ => {}
                }
            }
        }
        if !ok || gathers < 2 || !has_per_lane_stream(f, div, lp.header, &blocks) {
            continue;
        }
        out.push(l);
    }
    out
}

/// An integer header φ `p = φ(start, p ± c)` whose start is not uniform.
fn has_per_lane_stream(
    f: &Function,
    div: &Divergence,
    header: BlockId,
    blocks: &BTreeSet<BlockId>,
) -> bool {
    f.phis(header).any(|i| {
        let InstKind::Phi { incoming } = &f.inst(i).kind else {
            return false;
        };
        let Some(p) = f.inst(i).result else {
            return false;
        };
        let mut start_varying = false;
        let mut steps = false;
        for &(b, v) in incoming {
            if blocks.contains(&b) {
                let Some(d) = f.def_inst(v) else { return false };
                steps = matches!(
                    f.inst(d).kind,
                    InstKind::Bin { op: BinOp::Add | BinOp::Sub, lhs, rhs }
                        if lhs == p && f.as_const(rhs).is_some()
                );
            } else {
                start_varying = !div.is_uniform(v);
            }
        }
        f.ty(p).is_int() && start_varying && steps
    })
}

/// Serializes the candidate loops of a canonical kernel; `None` when there
/// is none (or one would not have the expected canonical shape).
pub fn apply(f: &Function, cfg: &Cfg, div: &Divergence) -> Option<Function> {
    let loops = candidates(f, cfg, div);
    if loops.is_empty() {
        return None;
    }
    let mut g = f.clone();
    for l in loops {
        serialize_loop(&mut g, cfg, div, l)?;
    }
    Some(g)
}

fn serialize_loop(f: &mut Function, cfg: &Cfg, div: &Divergence, l: LoopId) -> Option<()> {
    let lp = cfg.loops().get(l)?.clone();
    let blocks: BTreeSet<BlockId> = lp.blocks.iter().copied().collect();
    let h = lp.header;
    let e = *lp.exits.first()?;
    let outside: Vec<BlockId> = cfg
        .preds(h)
        .iter()
        .copied()
        .filter(|b| !blocks.contains(b))
        .collect();
    let [p] = outside.as_slice() else { return None };
    let p = *p;
    let exiting: Vec<BlockId> = cfg.preds(e).to_vec();
    let [x] = exiting.as_slice() else { return None };
    let x = *x;
    if !matches!(f.terminator(p).map(|t| &f.inst(t).kind), Some(InstKind::Br(t)) if *t == h) {
        return None;
    }
    let src = f.terminator(h).map(|t| f.inst(t).src).unwrap_or(Src {
        node: lanes_frontend::ast::NodeId(0),
        span: f.span,
    });
    let w = div.width as i64;

    // Varying live-ins: values defined outside the loop, used inside.
    let defined_inside = |f: &Function, v: ValueId| {
        f.def_inst(v)
            .is_some_and(|d| blocks.contains(&f.inst(d).block))
    };
    let mut live_ins: BTreeSet<ValueId> = BTreeSet::new();
    for &b in &lp.blocks {
        for &i in &f.block(b).insts {
            f.inst(i).kind.for_each_operand(|v| {
                if !defined_inside(f, v) && f.def_inst(v).is_some() && !div.is_uniform(v) {
                    live_ins.insert(v);
                }
            });
        }
    }
    // The exit block's LCSSA φs (one incoming, from x).
    let lcssa: Vec<(InstId, ValueId, ValueId, Ty)> = f
        .phis(e)
        .filter_map(|i| {
            let inst = f.inst(i);
            let InstKind::Phi { incoming } = &inst.kind else {
                return None;
            };
            Some((i, inst.result?, incoming.first()?.1, inst.ty))
        })
        .collect();

    let sh = f.add_block("lanes.serial.cond");
    let sb = f.add_block("lanes.serial.lane");
    let spre = f.add_block("lanes.serial.enter");
    let sx = f.add_block("lanes.serial.done");
    let sl = f.add_block("lanes.serial.next");

    // SH: the lane counter and the per-lane live-out accumulators.
    let zero = f.const_int(0, Ty::I32);
    let one = f.const_int(1, Ty::I32);
    let wc = f.const_int(w, Ty::I32);
    let (l_phi_i, l_val) = f.add_phi(sh, Ty::I32, vec![], src);
    let mut accs: Vec<(InstId, ValueId)> = Vec::new();
    for &(_, _, _, ty) in &lcssa {
        let undef = f.add_const(Const::Undef(ty));
        let (i, v) = f.add_phi(sh, ty, vec![(p, undef)], src);
        accs.push((i, v));
    }
    let (_, more) = f.append(
        sh,
        InstKind::Cmp {
            pred: CmpPred::Slt,
            lhs: l_val,
            rhs: wc,
        },
        Ty::I1,
        src,
    );
    f.append(
        sh,
        InstKind::CondBr {
            cond: more?,
            then: sb,
            els: e,
        },
        Ty::Void,
        src,
    );
    // SB: is lane l active?
    let (_, lid) = f.append(
        sb,
        InstKind::WorkItem {
            query: WorkItem::SubGroupLocalId,
            dim: None,
        },
        Ty::I32,
        src,
    );
    let (_, isl) = f.append(
        sb,
        InstKind::Cmp {
            pred: CmpPred::Eq,
            lhs: lid?,
            rhs: l_val,
        },
        Ty::I1,
        src,
    );
    let isl = isl?;
    let (_, any) = f.append(
        sb,
        InstKind::Horizontal {
            op: Horizontal::Any,
            args: vec![isl],
        },
        Ty::I1,
        src,
    );
    f.append(
        sb,
        InstKind::CondBr {
            cond: any?,
            then: spre,
            els: sl,
        },
        Ty::Void,
        src,
    );
    // SPRE: the lane's live-ins.
    let mut bmap: BTreeMap<ValueId, ValueId> = BTreeMap::new();
    for &v in &live_ins {
        let ty = f.ty(v);
        let (_, b) = f.append(
            spre,
            InstKind::Horizontal {
                op: Horizontal::Broadcast,
                args: vec![v, l_val],
            },
            ty,
            src,
        );
        bmap.insert(v, b?);
    }
    f.append(spre, InstKind::Br(h), Ty::Void, src);
    for &b in &lp.blocks {
        for i in f.block(b).insts.clone() {
            f.inst_mut(i).kind.for_each_operand_mut(|v| {
                if let Some(&n) = bmap.get(v) {
                    *v = n;
                }
            });
            if let InstKind::Phi { incoming } = &mut f.inst_mut(i).kind {
                for (pb, _) in incoming.iter_mut() {
                    if *pb == p {
                        *pb = spre;
                    }
                }
            }
        }
    }
    // The exit edge now ends the lane's turn.
    let t = f.terminator(x)?;
    f.inst_mut(t).kind.replace_successor(e, sx);
    let mut merged: Vec<ValueId> = Vec::new();
    for (k, &(_, _, out, ty)) in lcssa.iter().enumerate() {
        let (_, m) = f.append(
            sx,
            InstKind::Select {
                cond: isl,
                then: out,
                els: accs[k].1,
            },
            ty,
            src,
        );
        merged.push(m?);
    }
    f.append(sx, InstKind::Br(sl), Ty::Void, src);
    // SL: next lane.
    let mut next_accs = Vec::new();
    for (k, &(_, _, _, ty)) in lcssa.iter().enumerate() {
        let (_, v) = f.add_phi(sl, ty, vec![(sb, accs[k].1), (sx, merged[k])], src);
        next_accs.push(v);
    }
    let (_, l1) = f.append(
        sl,
        InstKind::Bin {
            op: BinOp::Add,
            lhs: l_val,
            rhs: one,
        },
        Ty::I32,
        src,
    );
    let l1 = l1?;
    f.append(sl, InstKind::Br(sh), Ty::Void, src);
    if let InstKind::Phi { incoming } = &mut f.inst_mut(l_phi_i).kind {
        incoming.push((p, zero));
        incoming.push((sl, l1));
    }
    for (k, &(i, _)) in accs.iter().enumerate() {
        if let InstKind::Phi { incoming } = &mut f.inst_mut(i).kind {
            incoming.push((sl, next_accs[k]));
        }
    }
    // E: the live-outs are the accumulators; the preheader enters SH.
    for (k, &(i, phi, _, _)) in lcssa.iter().enumerate() {
        f.replace_all_uses(phi, accs[k].1);
        f.remove_inst(i);
    }
    let pt = f.terminator(p)?;
    f.inst_mut(pt).kind = InstKind::Br(sh);
    f.serial_latches.insert(*lp.latches.first()?);
    Some(())
}
