//! Vectorization: from the scalar IR of a kernel and its divergence analysis
//! to *vector IR*, the form the code generator widens instruction by
//! instruction.
//!
//! Vector IR is the same [`Function`] type with three guarantees:
//! - it is **control-uniform**: every `CondBr`/`Switch` condition has a
//!   uniform shape, so branches stay scalar branches of the SIMD group;
//! - every block has an explicit **mask** value (`i1`, one bit per lane):
//!   the lanes whose scalar program executes that block now. Memory
//!   accesses, horizontal operations and integer divisions in the block use
//!   it; everything else computes on all lanes;
//! - every value has a **shape**: uniform values stay scalar (one copy for
//!   the group), the others are vectors of W lanes.
//!
//! The entry mask is [`WorkItem::LaneMask`] (all lanes, except in the
//! remainder group of a row).

use crate::cfg::Cfg;
use crate::divergence::Divergence;
use crate::ir::{BlockId, Function, InstKind, Src, Ty, ValueId, WorkItem};
use crate::shape::Shape;

/// A kernel in vector IR (see the module documentation).
#[derive(Clone, Debug)]
pub struct VectorFunction {
    pub func: Function,
    /// The SIMD width W.
    pub width: u32,
    /// By [`ValueId`]. `is_uniform()` (or `Bottom`, for values never
    /// reached) means scalar; anything else a vector of `width` lanes.
    /// `Strided { stride, .. }` on a pointer: lane `l` holds
    /// `lane0 + l * stride` bytes (a packed access when `stride` equals the
    /// accessed element size). An `Alloca` with a non-uniform shape is a
    /// per-lane private object: W copies, lane `l`'s at `base + l * size`.
    pub shapes: Vec<Shape>,
    /// By [`BlockId`]: the `i1` mask value of the block (defined in a block
    /// that dominates it, usually the `LaneMask` of the entry block).
    pub block_mask: Vec<ValueId>,
    /// By [`BlockId`]: true when the block never runs with an all-false
    /// mask, so a uniform load or store there needs no guard (a block whose
    /// mask may be empty must guard uniform memory accesses with
    /// `any(mask)` and uniform divisions against a zero divisor).
    pub mask_nonempty: Vec<bool>,
}

impl VectorFunction {
    pub fn shape(&self, v: ValueId) -> Shape {
        self.shapes.get(v.index()).copied().unwrap_or(Shape::Bottom)
    }

    /// True when the value is one scalar for the whole SIMD group.
    pub fn is_uniform(&self, v: ValueId) -> bool {
        let s = self.shape(v);
        s.is_bottom() || s.is_uniform()
    }
}

/// Why a kernel could not be vectorized.
#[derive(Clone, Debug, PartialEq)]
pub struct VectorizeError {
    pub span: lanes_frontend::source::Span,
    pub message: String,
}

/// Vectorizes a canonical kernel (see [`crate::cfg::canonicalize`]) for
/// width `div.width`.
pub fn vectorize(
    func: &Function,
    cfg: &Cfg,
    div: &Divergence,
) -> Result<VectorFunction, VectorizeError> {
    if let Some(&b) = div.divergent_branches.iter().next() {
        let span = func
            .terminator(b)
            .map(|t| func.inst(t).src.span)
            .unwrap_or(func.span);
        return Err(VectorizeError {
            span,
            message: "divergent control flow is not vectorized yet".into(),
        });
    }
    let _ = cfg;
    let mut f = func.clone();
    let mut shapes = div.shapes.clone();
    let entry = f.entry;
    let src = Src {
        node: lanes_frontend::ast::NodeId(0),
        span: f.span,
    };
    let (_, mask) = f.insert(
        entry,
        f.phis(entry).count(),
        InstKind::WorkItem {
            query: WorkItem::LaneMask,
            dim: None,
        },
        Ty::I1,
        src,
    );
    let mask = mask.expect("i1 result");
    shapes.resize(f.values.len(), Shape::Bottom);
    shapes[mask.index()] = Shape::varying();
    let n = f.blocks.len();
    Ok(VectorFunction {
        func: f,
        width: div.width,
        shapes,
        block_mask: vec![mask; n],
        mask_nonempty: vec![true; n],
    })
}

/// The block masks of `vf` for printing.
pub fn mask_of(vf: &VectorFunction, b: BlockId) -> ValueId {
    vf.block_mask[b.index()]
}
