//! Rows walked by each lane: loads that the code generator reads through
//! transposed tiles (`codegen/src/emit/row_tiles.rs`) instead of gathers.
//!
//! PolyBench's matrix-vector kernels (mvt, atax, bicg, gesummv, gemver)
//! give each work-item a row: `for (j = 0; j < n; j++) x[i] += a[i * n +
//! j] * y[j]`. Across a SIMD group the lanes read W rows side by side, `n`
//! elements apart, so the load's shape is varying (a gather of W cache
//! lines per iteration), while each lane reads its own row contiguously.
//! Every W iterations the code can load W consecutive elements of each
//! lane's row, transpose the W x W tile and serve the next W iterations
//! from it, when those iterations are certain to run, to read those
//! elements and to see the values the tile holds:
//!
//! - the loop is innermost, its counter `j` is the header's `φ(start, j +
//!   1)` and uniform, the load runs in every iteration (its block dominates
//!   the latch), and its address is `j` elements plus terms that do not
//!   change in the loop;
//! - the loop's only exit is a uniform signed test `j + c < n` (or `<=`,
//!   `>`, `>=`, on either side of the branch) with `n` invariant: the tile
//!   at `j` is loaded when `j + c + W - 1 < n`;
//! - nothing in the loop writes memory but stores to addresses that do not
//!   change in the loop (`x[i] += ...`, their address terms defined before
//!   it): the code generator checks at each fill that they do not overlap
//!   the tile's bytes. An atomic, a barrier or a store whose address moves
//!   with the loop keeps the gather.
//!
//! The report and the code generator decide with [`row_walk`]; only SIMD
//! groups whose lanes are all active take tiles.

use crate::cfg::{Cfg, Loop};
use crate::ir::{BinOp, BlockId, CmpPred, Function, InstKind, Ty, ValueId};
use crate::shape::affine::{affine, int_const};
use crate::shape::Shape;

/// A load through lane rows, and what its tiles need of its loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RowWalk {
    /// The loop's preheader, where each entry of the loop starts without
    /// a tile.
    pub preheader: BlockId,
    /// The loop counter: a header φ that rises by one.
    pub iv: ValueId,
    /// The loop runs on while `iv + offset < bound` (signed).
    pub offset: i64,
    pub bound: ValueId,
    /// The loop's stores: address (its terms defined before the loop) and
    /// bytes written.
    pub stores: Vec<(ValueId, u64)>,
    /// Bytes of an element (4 or 8).
    pub elem_bytes: u64,
}

/// Whether `v` has the same value in every iteration of `lp`: defined
/// outside it, or computed inside from such values without memory.
fn invariant(f: &Function, lp: &Loop, v: ValueId, depth: u32) -> bool {
    let Some(d) = f.def_inst(v) else { return true };
    let inst = f.inst(d);
    if !lp.contains(inst.block) {
        return true;
    }
    if depth == 0 {
        return false;
    }
    let ops: Vec<ValueId> = match &inst.kind {
        InstKind::Bin { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => vec![*lhs, *rhs],
        InstKind::Cast { value, .. } => vec![*value],
        InstKind::FNeg(x) => vec![*x],
        InstKind::PtrAdd { base, offset } => vec![*base, *offset],
        InstKind::Select { cond, then, els } => vec![*cond, *then, *els],
        _ => return false,
    };
    ops.into_iter().all(|o| invariant(f, lp, o, depth - 1))
}

/// Whether `v` is the header φ of `lp` that is `v + 1` on the back edge.
fn is_counter(f: &Function, lp: &Loop, v: ValueId) -> bool {
    let Some(d) = f.def_inst(v) else { return false };
    let inst = f.inst(d);
    let InstKind::Phi { incoming } = &inst.kind else {
        return false;
    };
    if inst.block != lp.header || incoming.len() != 2 || !matches!(f.ty(v), Ty::I32 | Ty::I64) {
        return false;
    }
    let Some(&(_, next)) = incoming.iter().find(|(b, _)| lp.contains(*b)) else {
        return false;
    };
    let Some(nd) = f.def_inst(next) else {
        return false;
    };
    match f.inst(nd).kind {
        InstKind::Bin {
            op: BinOp::Add,
            lhs,
            rhs,
        } => {
            (lhs == v && int_const(f, rhs) == Some(1)) || (rhs == v && int_const(f, lhs) == Some(1))
        }
        _ => false,
    }
}

/// The test of the loop's only exit as `(offset, bound)`: the loop runs
/// on while `iv + offset < bound` (signed).
fn limit(
    f: &Function,
    uniform: &impl Fn(ValueId) -> bool,
    lp: &Loop,
    iv: ValueId,
) -> Option<(i64, ValueId)> {
    let [exiting] = lp.exiting[..] else {
        return None;
    };
    let InstKind::CondBr { cond, then, els } = f.inst(f.terminator(exiting)?).kind else {
        return None;
    };
    if !uniform(cond) || lp.contains(then) == lp.contains(els) {
        return None;
    }
    let InstKind::Cmp { pred, lhs, rhs } = f.inst(f.def_inst(cond)?).kind else {
        return None;
    };
    // The test under which the loop goes on.
    let pred = if lp.contains(then) {
        pred
    } else {
        match pred {
            CmpPred::Slt => CmpPred::Sge,
            CmpPred::Sge => CmpPred::Slt,
            CmpPred::Sle => CmpPred::Sgt,
            CmpPred::Sgt => CmpPred::Sle,
            _ => return None,
        }
    };
    // As `x < y` or `x <= y` with `x` on the counter's side.
    let (x, y, inclusive) = match pred {
        CmpPred::Slt => (lhs, rhs, false),
        CmpPred::Sle => (lhs, rhs, true),
        CmpPred::Sgt => (rhs, lhs, false),
        CmpPred::Sge => (rhs, lhs, true),
        _ => return None,
    };
    let a = affine(f, x, 8);
    if a.terms.len() != 1 || a.terms.get(&iv) != Some(&1) {
        return None;
    }
    if !uniform(y) || !invariant(f, lp, y, 8) || !matches!(f.ty(y), Ty::I32 | Ty::I64) {
        return None;
    }
    // `iv + k <= y` is `iv + k - 1 < y`.
    let offset = a.konst.checked_sub(inclusive as i64)?;
    Some((offset, y))
}

/// The stores of `lp`, when it writes memory only through them and their
/// addresses' terms are defined before it.
fn invariant_stores(f: &Function, lp: &Loop) -> Option<Vec<(ValueId, u64)>> {
    let mut out = Vec::new();
    for &b in &lp.blocks {
        for &i in &f.block(b).insts {
            match &f.inst(i).kind {
                InstKind::Store { ptr, value, .. } => {
                    let a = affine(f, *ptr, 24);
                    let before = a.terms.keys().all(|&v| match f.def_inst(v) {
                        Some(d) => !lp.contains(f.inst(d).block),
                        None => true,
                    });
                    if !before {
                        return None;
                    }
                    let bytes = match f.ty(*value) {
                        Ty::I1 => 1,
                        t => t.bits().div_ceil(8) as u64,
                    };
                    out.push((*ptr, bytes));
                }
                k if k.is_pure() || k.is_terminator() => {}
                InstKind::Load { .. } => {}
                _ => return None,
            }
        }
    }
    Some(out)
}

/// The row walk of the load `(b, ptr, ty)` (its block, address and type)
/// at SIMD width `w`, given each value's shape: see the module's comment.
/// 4- and 8-byte elements, W a power of two, kernels without barriers
/// (whose stack, where tiles live, does not survive a barrier).
pub fn row_walk(
    f: &Function,
    shape: impl Fn(ValueId) -> Shape,
    cfg: &Cfg,
    w: u32,
    (b, ptr, ty): (BlockId, ValueId, Ty),
) -> Option<RowWalk> {
    if !matches!(shape(ptr), Shape::Varying { .. })
        || !matches!(ty, Ty::I32 | Ty::F32 | Ty::I64 | Ty::F64)
        || !w.is_power_of_two()
        || w < 2
        || f.insts.iter().any(|i| i.kind.is_work_group_sync())
    {
        return None;
    }
    let uniform = |v| {
        let s = shape(v);
        s.is_bottom() || s.is_uniform()
    };
    let lp = cfg.loops().get(cfg.loop_of(b)?)?;
    if !lp.children.is_empty() {
        return None;
    }
    let [latch] = lp.latches[..] else {
        return None;
    };
    if !cfg.dominates(b, latch) {
        return None;
    }
    // The counter: the one term that changes in the loop, one element per
    // step.
    let elem_bytes = ty.bits() as i64 / 8;
    let a = affine(f, ptr, 24);
    let mut iv = None;
    for (&v, &c) in &a.terms {
        if invariant(f, lp, v, 8) {
            continue;
        }
        if iv.is_some() || c != elem_bytes || !is_counter(f, lp, v) || !uniform(v) {
            return None;
        }
        iv = Some(v);
    }
    let iv = iv?;
    let outside: Vec<BlockId> = cfg
        .preds(lp.header)
        .iter()
        .copied()
        .filter(|&p| !lp.contains(p))
        .collect();
    let [preheader] = outside[..] else {
        return None;
    };
    if !matches!(f.inst(f.terminator(preheader)?).kind, InstKind::Br(_)) {
        return None;
    }
    let (offset, bound) = limit(f, &uniform, lp, iv)?;
    let stores = invariant_stores(f, lp)?;
    Some(RowWalk {
        preheader,
        iv,
        offset,
        bound,
        stores,
        elem_bytes: elem_bytes as u64,
    })
}
