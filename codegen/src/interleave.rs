//! Interleaved SIMD groups: one body runs G SIMD groups of a work-group
//! side by side (an unroll-and-jam of the entry's loop over SIMD groups).
//!
//! A loop that carries a float value from one iteration to the next (gemm's
//! `acc += a * b`) is one dependent chain of adds or multiply-adds per SIMD
//! group: each waits for the previous one's result (4 cycles for an FMA on
//! Zen 3 and Skylake), while the two FMA units could start two per cycle.
//! Running G groups in one body gives G independent chains, and loads that
//! are the same for the G groups (gemm's `A[i*nk + k]`) are made once.
//!
//! The body for G groups is the kernel vectorized for G·W lanes, lane
//! `g·W + l` being lane `l` of the `g`-th SIMD group of a run of G along
//! dimension 0: each lane computes what it computes alone, in the same
//! order (no reassociation, results bit-identical to W-wide groups and the
//! interpreter). LLVM splits each G·W-lane operation into G operations of
//! the machine's width. The entry points run as many whole runs of G SIMD
//! groups as a row of the work-group holds, the remaining SIMD groups one
//! by one, the partial one last (`abi.rs`).
//!
//! Kernels that could tell the difference run W lanes at a time: those
//! that use sub-groups (`get_sub_group_*`, `sub_group_*`, which would see
//! G·W lanes; this includes the fast paths of `--specialize`, which check
//! their preconditions with `sub_group_all`), barriers and work-group
//! collectives.

use lanes_frontend::hir;
use lanes_vectorizer::ir::{BlockId, Function, InstKind, WorkItem};
use lanes_vectorizer::report::KernelAnalysis;
use lanes_vectorizer::shape::Shape;
use lanes_vectorizer::vectorize::VectorFunction;

use crate::TargetSpec;

/// Independent multiply-add chains that keep two FMA units with a latency
/// of 4 cycles busy.
pub const CHAINS: u32 = 8;

/// A loop whose iteration has at most this many vector instructions is
/// bound by the latency of its chains: one chain step takes 4 cycles, in
/// which two vector units run 8 instructions.
pub const LATENCY_BOUND_OPS: u32 = 8;

/// The widest body (lanes): LLVM legalizes up to 64-lane vectors well, and
/// more would run out of registers.
pub const MAX_LANES: u32 = 64;

/// A kernel's body for runs of `groups` SIMD groups.
#[derive(Clone, Debug)]
pub struct Interleaved {
    pub groups: u32,
    /// The kernel vectorized for `groups · W` lanes.
    pub vf: VectorFunction,
}

/// How many SIMD groups of width `width` one body should run (1: one).
///
/// The rule: the kernel has no sub-group operation, barrier or work-group
/// collective and no divergent loop, and one of its loops is bound by the
/// latency of its chains: it carries c > 0 float values that vary across
/// lanes (its chains) and does less other vector work per iteration than
/// the FMA units could overlap with one chain step ([`LATENCY_BOUND_OPS`]
/// instructions with varying results). G is the largest power of two with
/// G · c <= [`CHAINS`] and G · W <= [`MAX_LANES`]. Loops with more work per
/// iteration (nbody's force computation) already keep the units busy, and
/// interleaving them only adds registers. Kernels with divergent loops are
/// left alone: the lanes of G groups would wait for the slowest of them.
pub fn groups(ka: &KernelAnalysis, width: u32) -> u32 {
    if !interleavable(&ka.func) || !ka.div.divergent_loops.is_empty() {
        return 1;
    }
    let chains = ka
        .cfg
        .loops()
        .loops
        .iter()
        .filter(|l| vector_ops(ka, &l.blocks) <= LATENCY_BOUND_OPS)
        .map(|l| float_chains(ka, l.header))
        .max()
        .unwrap_or(0);
    if chains == 0 {
        return 1;
    }
    let mut g = 1;
    while 2 * g * chains <= CHAINS && 2 * g * width <= MAX_LANES {
        g *= 2;
    }
    g
}

/// Instructions with varying results (vector instructions: uniform and
/// strided values are scalars) in `blocks`.
fn vector_ops(ka: &KernelAnalysis, blocks: &[BlockId]) -> u32 {
    let f = &ka.func;
    blocks
        .iter()
        .flat_map(|b| &f.blocks[b.index()].insts)
        .filter_map(|&i| f.insts[i.index()].result)
        .filter(|&v| matches!(ka.div.shape(v), Shape::Varying { .. }))
        .count() as u32
}

/// Varying float φs of a loop header: values carried around the loop.
fn float_chains(ka: &KernelAnalysis, header: BlockId) -> u32 {
    let f = &ka.func;
    f.blocks[header.index()]
        .insts
        .iter()
        .map(|&i| &f.insts[i.index()])
        .filter(|i| matches!(i.kind, InstKind::Phi { .. }))
        .filter(|i| i.ty.is_float())
        .filter(|i| i.result.is_some_and(|v| !ka.div.is_uniform(v)))
        .count() as u32
}

/// No operation whose result depends on how many lanes a SIMD group has.
fn interleavable(f: &Function) -> bool {
    !f.insts.iter().any(|i| match &i.kind {
        InstKind::Horizontal { .. } | InstKind::Barrier { .. } | InstKind::WorkGroup { .. } => true,
        InstKind::WorkItem { query, .. } => matches!(
            query,
            WorkItem::SubGroupSize
                | WorkItem::SubGroupLocalId
                | WorkItem::NumSubGroups
                | WorkItem::SubGroupId
                | WorkItem::MaxSubGroupSize
        ),
        _ => false,
    })
}

/// The interleaved body of kernel `k` of `unit` (analysed as `ka` for
/// `spec`), when [`groups`] chooses more than one SIMD group.
pub fn plan(
    unit: &hir::Unit,
    k: hir::FuncId,
    ka: &KernelAnalysis,
    spec: &TargetSpec,
) -> Option<Interleaved> {
    let groups = groups(ka, spec.width);
    if groups < 2 {
        return None;
    }
    let width = groups * spec.width;
    let wide =
        lanes_vectorizer::report::analyze_kernel_with(unit, k, width, &spec.lowering()).ok()?;
    let vf = lanes_vectorizer::vectorize::vectorize(&wide.func, &wide.cfg, &wide.div).ok()?;
    Some(Interleaved { groups, vf })
}
