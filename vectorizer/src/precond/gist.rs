//! Gist of a proven precondition against its context (DESIGN §6 step 3;
//! the `gist(P, ctx)` of the polyhedral literature, notes §1.4): a conjunct
//! of P is dropped when Z3 proves it implied by the other conjuncts
//! together with what holds on every lane that is active at the target.
//!
//! The context of a target block is
//! - the launch facts every group satisfies (ids in `[0, 2^31)`; they are
//!   [`super::smt::Enc::assumptions`] already), and
//! - the conditions of the *guards* on every path to the block: a branch
//!   whose edge every path to the block takes (`if (x >= n) return;`
//!   before a loop, an enclosing `if (x < width)`), see [`guard_edges`].
//!
//! Why this is sound for the per-lane form: a lane that is not active at
//! the target takes no part in `sub_group_all(P)` there, and does not
//! take part in the loop, branch or access either. Every active lane
//! satisfies the context, so `P' ∧ context ⇒ P` at each of them, and the
//! search proves the gisted P' again (with the context as an assumption)
//! exactly as it proves P before anything is shown.
//!
//! At least one conjunct is always kept: a P that the context implies
//! entirely means the target never diverges among the lanes that reach
//! it, and is shown as it is.

use z3::ast::Bool;
use z3::{SatResult, Solver};

use crate::cfg::Cfg;
use crate::ir::{BlockId, Function, InstKind, ValueId};

/// The branches whose edge every path from the entry to `block` takes:
/// `(condition, truth)` pairs. The edge `d → s` is such an edge when `d`
/// strictly dominates `block`, `s` dominates `block`, `s` is only reached
/// from `d`, and `d`'s two successors differ. The condition's current value
/// at `block` is the one that took the edge (its definition dominates `d`,
/// and every way back to it passes `d` again).
pub(crate) fn guard_edges(f: &Function, cfg: &Cfg, block: BlockId) -> Vec<(ValueId, bool)> {
    let mut out = Vec::new();
    if !cfg.is_reachable(block) {
        return out;
    }
    let mut cur = block;
    let mut steps = 0;
    while let Some(d) = cfg.idom(cur) {
        steps += 1;
        if steps > 10_000 || d == cur {
            break;
        }
        if let Some(InstKind::CondBr { cond, then, els }) = f.terminator(d).map(|t| &f.inst(t).kind)
        {
            if then != els {
                for (s, truth) in [(*then, true), (*els, false)] {
                    if cfg.preds(s) == [d] && cfg.dominates(s, block) {
                        out.push((*cond, truth));
                    }
                }
            }
        }
        cur = d;
    }
    out
}

/// Which of `conjuncts` to keep: each one, last first, is dropped when
/// `base` (assumptions and context) and the conjuncts still kept imply it.
/// Returns the mask of kept conjuncts; `check` runs each query (on the
/// target's budget). A query that is not answered keeps its conjunct.
pub(crate) fn drop_implied(
    s: &Solver,
    base: &Bool,
    conjuncts: &[Bool],
    mut check: impl FnMut(&Solver) -> SatResult,
) -> Vec<bool> {
    let mut keep = vec![true; conjuncts.len()];
    for i in (0..conjuncts.len()).rev() {
        if keep.iter().filter(|&&k| k).count() <= 1 {
            break;
        }
        let others: Vec<Bool> = conjuncts
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i && keep[j])
            .map(|(_, c)| c.clone())
            .collect();
        s.push();
        s.assert(base);
        s.assert(Bool::and(&others));
        s.assert(conjuncts[i].not());
        if check(s) == SatResult::Unsat {
            keep[i] = false;
        }
        s.pop(1);
    }
    keep
}
