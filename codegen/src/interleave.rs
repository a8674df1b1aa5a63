//! Interleaved SIMD groups: one body runs G SIMD groups of a work-group
//! side by side (an unroll-and-jam of the entry's loop over SIMD groups).
//!
//! A loop that carries a float value from one iteration to the next (gemm's
//! `acc += a * b`) is one dependent chain of adds or multiply-adds per SIMD
//! group: each waits for the previous one's result (4 cycles for an FMA on
//! Zen 3 and Skylake), while the two FMA units could start two per cycle.
//! Running G groups in one body gives G independent chains, and loads that
//! are the same for the G groups (gemm's `A[i*nk + k]`) are made once.
//! A divergent loop whose exit waits on a recurrence (mandelbrot's `z`,
//! binary search's dependent gathers) is a chain the same way: G groups'
//! iterations overlap, each group with its own masks and exit state.
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
//! A loop-free kernel whose lanes each wait on a long chain of divisions
//! and math functions (black_scholes) runs several groups per body the
//! same way: the core overlaps the groups' chains.
//!
//! When the loads of the loop favour it, the G groups of one row become
//! fewer groups of several rows of the work-group ([`row_block`],
//! `rows.rs`): gemm's body runs 2 groups of 4 rows that share each load of
//! B.
//!
//! Kernels that could tell the difference run W lanes at a time: those
//! that use sub-groups (`get_sub_group_*`, `sub_group_*`, which would see
//! G·W lanes; this includes the fast paths of `--specialize`, which check
//! their preconditions with `sub_group_all`), barriers and work-group
//! collectives.

use std::collections::HashSet;

use lanes_frontend::hir;
use lanes_vectorizer::cfg::Loop;
use lanes_vectorizer::ir::{BlockId, Function, InstId, InstKind, ValueId, WorkItem};
use lanes_vectorizer::report::KernelAnalysis;
use lanes_vectorizer::schedule::{Schedule, SimdGroupOrder};
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
    /// Rows of the work-group one body runs (1: one row; see
    /// [`crate::rows`]) and, for more, that body: `vf` for `rows` rows.
    pub rows: u32,
    pub rows_vf: Option<VectorFunction>,
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
/// interleaving them only adds registers. Kernels with divergent loops
/// follow [`divergent_groups`], loop-free ones [`latency_groups`].
pub fn groups(ka: &KernelAnalysis, width: u32) -> u32 {
    if !interleavable(&ka.func) {
        return 1;
    }
    if !ka.div.divergent_loops.is_empty() {
        return divergent_groups(ka, width);
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
        return latency_groups(ka, width);
    }
    let mut g = 1;
    while 2 * g * chains <= CHAINS && 2 * g * width <= MAX_LANES {
        g *= 2;
    }
    g
}

/// Long-latency operations one after another on the longest dependence
/// chain of a loop-free kernel from which it runs several SIMD groups per
/// body. black_scholes computes `log(s / x)`, divides by `V sqrt(t)`,
/// divides 1 by `1 + k |d|` and takes `exp(-d^2 / 2)`: a chain of about
/// 150 cycles for 280 instructions a SIMD group, so that the core
/// overlapped less than two SIMD groups' chains (bench/RESULTS.md,
/// 2026-11-28).
pub const LATENCY_CHAIN: u32 = 3;

/// Lanes one body of a loop-free, latency-bound kernel runs: black_scholes
/// on AVX2 took 4.37 ms with one SIMD group per body, 3.17 with 2, 2.78
/// with 4 and 2.56 with 8 (64 lanes; the constants are broadcast once for
/// the 8 groups, and the spills cost less than the waits they replace).
pub const LATENCY_LANES: u32 = 64;

/// True for the operations whose latency is long next to their issue
/// cost: float division and remainder, and the math functions that are
/// not a few instructions (everything but rounding, sign, min/max, fma
/// and the integer ones).
fn long_latency(kind: &InstKind) -> bool {
    use lanes_vectorizer::ir::{BinOp, MathFn::*};
    match kind {
        InstKind::Bin { op, .. } => matches!(op, BinOp::FDiv | BinOp::FRem),
        InstKind::Math { func, .. } => {
            !func.is_integer()
                && !matches!(
                    func,
                    Fabs | Floor
                        | Ceil
                        | Round
                        | Trunc
                        | Rint
                        | Copysign
                        | Fdim
                        | Fmin
                        | Fmax
                        | Ldexp
                        | Fma
                )
        }
        _ => false,
    }
}

/// How many SIMD groups one body of a kernel without a latency-bound loop
/// runs: [`LATENCY_LANES`] / W when the kernel has no loop and the longest
/// chain of values that vary across lanes passes through
/// [`LATENCY_CHAIN`] or more long-latency operations ([`long_latency`])
/// one after another; else one. Each group's chain is independent of the
/// others', so the core runs them side by side.
fn latency_groups(ka: &KernelAnalysis, width: u32) -> u32 {
    if !ka.cfg.loops().loops.is_empty() || 2 * width > LATENCY_LANES {
        return 1;
    }
    let f = &ka.func;
    // Longest chain (in long-latency operations) ending at each value.
    let mut depth: Vec<Option<u32>> = vec![None; f.values.len()];
    fn chain(
        ka: &KernelAnalysis,
        v: ValueId,
        depth: &mut Vec<Option<u32>>,
        budget: &mut u32,
    ) -> u32 {
        if let Some(d) = depth[v.index()] {
            return d;
        }
        let f = &ka.func;
        let Some(i) = f.def_inst(v) else { return 0 };
        if ka.div.is_uniform(v) || *budget == 0 {
            return 0;
        }
        *budget -= 1;
        depth[v.index()] = Some(0);
        let kind = &f.inst(i).kind;
        let inputs = kind
            .operands()
            .into_iter()
            .map(|o| chain(ka, o, depth, budget))
            .max()
            .unwrap_or(0);
        let d = inputs + long_latency(kind) as u32;
        depth[v.index()] = Some(d);
        d
    }
    // A bound on the values followed, as on every walk of a kernel's IR.
    let mut budget = 100_000;
    let longest = f
        .insts
        .iter()
        .filter_map(|i| i.result)
        .map(|v| chain(ka, v, &mut depth, &mut budget))
        .max()
        .unwrap_or(0);
    if longest >= LATENCY_CHAIN {
        LATENCY_LANES / width
    } else {
        1
    }
}

/// Lanes in flight for a divergent loop whose exit waits on a float
/// recurrence (mandelbrot's `z = z*z + c`: three dependent float operations,
/// 10-12 cycles, against about 20 instructions a SIMD group issues per
/// iteration, 5 cycles on four vector pipes): two groups of 8 fill the wait,
/// more run out of the 16 vector registers of AVX2.
pub const FLOAT_RECURRENCE_LANES: u32 = 16;

/// Lanes in flight for a divergent loop whose exit waits on a load it
/// carries (binary search: the next probe's address is the result of this
/// one's gather, 20 cycles from L1, more from L2 and beyond).
pub const LOAD_RECURRENCE_LANES: u32 = 32;

/// What the exit test of a divergent loop waits for from one iteration to
/// the next: the longest kind of operation on a cycle through a varying
/// value the loop carries and its exit depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Recurrence {
    /// Integer operations (a counter `j++`): the core runs iterations of
    /// one SIMD group ahead by itself.
    Integer,
    Float,
    Load,
}

/// How many SIMD groups run one body when the kernel has divergent loops
/// (and nothing that sees the number of lanes): G·W lanes keep G masks and
/// exit states side by side and the loop runs while any of the G·W lanes
/// is active, so each group's lanes may wait for the slowest of the G
/// groups. That pays when every divergent loop is latency-bound: its exit
/// waits on a float recurrence ([`FLOAT_RECURRENCE_LANES`]) or on a load
/// it carries ([`LOAD_RECURRENCE_LANES`]). A loop whose exit only waits on
/// integer steps (spmv_csr's row loop, bound by its memory accesses and
/// with trip counts that differ a lot between lanes) keeps one group.
fn divergent_groups(ka: &KernelAnalysis, width: u32) -> u32 {
    let loops = &ka.cfg.loops().loops;
    let lanes = ka
        .div
        .divergent_loops
        .keys()
        .filter_map(|l| loops.get(l.index()))
        .map(|l| match exit_recurrence(ka, l) {
            Recurrence::Integer => width,
            Recurrence::Float => FLOAT_RECURRENCE_LANES,
            Recurrence::Load => LOAD_RECURRENCE_LANES,
        })
        .min()
        .unwrap_or(width);
    (lanes.min(MAX_LANES) / width).max(1)
}

/// The [`Recurrence`] the exits of loop `l` wait on.
fn exit_recurrence(ka: &KernelAnalysis, l: &Loop) -> Recurrence {
    let f = &ka.func;
    let def_in_loop = |v: ValueId| f.def_inst(v).filter(|&i| l.contains(f.inst(i).block));
    let inputs = |i: InstId| inputs(ka, l, i);
    // The values the exit tests depend on inside the loop, through φs.
    let mut exit_slice = HashSet::new();
    let mut work: Vec<ValueId> = l
        .exiting
        .iter()
        .filter_map(|&b| f.terminator(b))
        .flat_map(|t| f.inst(t).kind.operands())
        .collect();
    while let Some(v) = work.pop() {
        if exit_slice.insert(v) {
            if let Some(i) = def_in_loop(v) {
                work.extend(inputs(i));
            }
        }
    }
    let carried = f.blocks[l.header.index()]
        .insts
        .iter()
        .map(|&i| (i, f.inst(i)))
        .filter(|(_, i)| i.kind.is_phi())
        .filter_map(|(id, i)| Some((id, i.result?)))
        .filter(|&(_, v)| exit_slice.contains(&v) && !ka.div.is_uniform(v));
    let mut worst = Recurrence::Integer;
    for (phi, p) in carried {
        // Values of the loop that depend on `p` ...
        let mut depends = HashSet::from([p]);
        let mut grew = true;
        while grew {
            grew = false;
            for &b in &l.blocks {
                for &i in &f.blocks[b.index()].insts {
                    let inst = f.inst(i);
                    let Some(r) = inst.result else { continue };
                    if i != phi
                        && !depends.contains(&r)
                        && inputs(i).iter().any(|o| depends.contains(o))
                    {
                        depends.insert(r);
                        grew = true;
                    }
                }
            }
        }
        // ... and that the next iteration's `p` depends on: the cycle.
        let InstKind::Phi { incoming } = &f.inst(phi).kind else {
            continue;
        };
        let mut seen = HashSet::new();
        let mut work: Vec<ValueId> = incoming
            .iter()
            .filter(|(from, _)| l.contains(*from))
            .map(|&(_, v)| v)
            .collect();
        while let Some(v) = work.pop() {
            if v == p || !depends.contains(&v) || !seen.insert(v) {
                continue;
            }
            let Some(i) = def_in_loop(v) else { continue };
            let inst = f.inst(i);
            let kind = match inst.kind {
                InstKind::Load { .. } => Recurrence::Load,
                _ if inst.ty.is_float() => Recurrence::Float,
                _ => Recurrence::Integer,
            };
            worst = worst.max(kind);
            work.extend(inputs(i));
        }
    }
    worst
}

/// The values instruction `i` of loop `l` depends on: its operands and,
/// for a φ that joins paths inside the loop body, the conditions of the
/// branches that choose its incoming value (binary search's `lo` and `hi`
/// depend on the comparison of the loaded probe so).
fn inputs(ka: &KernelAnalysis, l: &Loop, i: InstId) -> Vec<ValueId> {
    let f = &ka.func;
    let inst = f.inst(i);
    let mut out = inst.kind.operands();
    let InstKind::Phi { incoming } = &inst.kind else {
        return out;
    };
    if inst.block == l.header {
        return out;
    }
    for &(from, _) in incoming {
        let deciding = std::iter::once(from).chain(ka.cfg.control_deps(from).iter().copied());
        for b in deciding.filter(|&b| l.contains(b)) {
            if let Some(t) = f.terminator(b) {
                if matches!(
                    f.inst(t).kind,
                    InstKind::CondBr { .. } | InstKind::Switch { .. }
                ) {
                    out.extend(f.inst(t).kind.operands());
                }
            }
        }
    }
    out
}

/// Instructions with varying results (vector instructions: uniform and
/// strided values are scalars) in `blocks`. φs are not counted: a carried
/// value stays in its register and issues nothing.
fn vector_ops(ka: &KernelAnalysis, blocks: &[BlockId]) -> u32 {
    let f = &ka.func;
    blocks
        .iter()
        .flat_map(|b| &f.blocks[b.index()].insts)
        .map(|&i| &f.insts[i.index()])
        .filter(|i| !i.kind.is_phi())
        .filter_map(|i| i.result)
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
    let vectorized = |groups: u32| {
        let width = groups * spec.width;
        let wide =
            lanes_vectorizer::report::analyze_kernel_with(unit, k, width, &spec.lowering()).ok()?;
        lanes_vectorizer::vectorize::vectorize(&wide.func, &wide.cfg, &wide.div).ok()
    };
    let groups = groups(ka, spec.width);
    if let Some((g, rows)) = row_block(ka, groups) {
        if let Some(vf) = vectorized(g) {
            if Schedule::of(&vf).order == SimdGroupOrder::Columns {
                if let Some(rows_vf) = crate::rows::block(&vf, rows) {
                    return Some(Interleaved {
                        groups: g,
                        vf,
                        rows,
                        rows_vf: Some(rows_vf),
                    });
                }
            }
        }
    }
    if groups < 2 {
        return None;
    }
    Some(Interleaved {
        groups,
        vf: vectorized(groups)?,
        rows: 1,
        rows_vf: None,
    })
}

/// Groups and rows of a row block for a kernel the rule gives `groups`
/// SIMD groups (G·c <= [`CHAINS`] chains): the same chains as G' groups
/// times R rows, R·G' = G, with the fewest loads per iteration of its
/// latency-bound loops. Per iteration G groups of one row make G copies of
/// each vector load and one of each uniform load; G' groups of R rows make
/// G' copies of a vector load the rows share (gemm's `B[k*nj + j]`), R of
/// a uniform load of the row (`A[i*nk + k]`, a broadcast) and G of a
/// vector load of the row. gemm on `avx2-i32x8`: G = 8, one load of each
/// kind: 8 + 1 loads for 8 groups, 2 + 4 for 2 groups of 4 rows (ties go
/// to more rows: fewer columns of B per body). `None` unless rows make
/// fewer loads than one row (convolution_2d's loads are all of the row); kernels with divergent loops keep their groups.
fn row_block(ka: &KernelAnalysis, groups: u32) -> Option<(u32, u32)> {
    if groups < 2 || !ka.div.divergent_loops.is_empty() {
        return None;
    }
    let f = &ka.func;
    let dep = crate::rows::row_dependent(f, &HashSet::new())?;
    // A kernel that does not read its row (a 1-D kernel) has nothing to
    // share between rows but its stores.
    let reads_row = f.insts.iter().any(|i| {
        matches!(i.kind, InstKind::WorkItem { .. }) && i.result.is_some_and(|v| dep.contains(&v))
    });
    if !reads_row {
        return None;
    }
    // Loads per iteration: vector loads the rows share, uniform and vector
    // loads of the row.
    let (mut shared, mut row_uniform, mut row_vector) = (0, 0, 0);
    for l in &ka.cfg.loops().loops {
        if vector_ops(ka, &l.blocks) > LATENCY_BOUND_OPS || float_chains(ka, l.header) == 0 {
            continue;
        }
        for &b in &l.blocks {
            for &i in &f.blocks[b.index()].insts {
                let inst = f.inst(i);
                let (InstKind::Load { .. }, Some(v)) = (&inst.kind, inst.result) else {
                    continue;
                };
                match (dep.contains(&v), ka.div.is_uniform(v)) {
                    (false, false) => shared += 1,
                    (true, true) => row_uniform += 1,
                    (true, false) => row_vector += 1,
                    (false, true) => {}
                }
            }
        }
    }
    let loads = |g: u32, r: u32| g * shared + r * row_uniform + groups * row_vector;
    let mut best = (groups / 2, 2);
    let (mut g, mut r) = best;
    while g > 1 {
        g /= 2;
        r *= 2;
        if loads(g, r) <= loads(best.0, best.1) {
            best = (g, r);
        }
    }
    (loads(best.0, best.1) < loads(groups, 1)).then_some(best)
}
