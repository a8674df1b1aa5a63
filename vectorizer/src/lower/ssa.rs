//! SSA construction on the fly (Braun, Buchwald, Hack, Leißa, Mallon,
//! Zwinkau 2013): `writeVariable`, `readVariable` (with
//! `readVariableRecursive`), `addPhiOperands`, `tryRemoveTrivialPhi` and
//! sealed blocks.
//!
//! Two deviations from the paper's pseudo code, both for robustness:
//! - `readVariable` runs on an explicit stack: a long chain of joins must not
//!   overflow the Rust stack.
//! - A removed trivial φ is *forwarded* to its replacement instead of having
//!   its uses rewritten at once; [`super::finish`] rewrites every operand
//!   through [`SsaState::resolve`] at the end. Values the lowering holds
//!   while a φ is removed therefore stay usable.

use std::collections::HashMap;

use super::Lowerer;
use crate::ir::{BlockId, InstId, InstKind, Ty, ValueId};

/// One scalar variable of the SSA construction: a component of a source
/// variable, or a temporary (the value of `?:`, of `&&`, of a call).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct SsaVar(pub u32);

#[derive(Default)]
pub(crate) struct SsaState {
    /// Type of each variable.
    var_ty: Vec<Ty>,
    /// The `Function::vars` entry each variable belongs to, if any.
    var_owner: Vec<Option<usize>>,
    /// `currentDef[variable][block]`.
    defs: HashMap<(SsaVar, BlockId), ValueId>,
    /// Replacement of removed trivial φs.
    forward: HashMap<ValueId, ValueId>,
    /// φs that use a φ's value, by that value (for the cascade of
    /// `tryRemoveTrivialPhi`).
    phi_users: HashMap<ValueId, Vec<InstId>>,
    /// The φ instruction of each φ value.
    phi_inst: HashMap<ValueId, InstId>,
    /// One `undef` constant per type (so that φs of `undef` compare equal).
    pub undefs: HashMap<Ty, ValueId>,
}

impl SsaState {
    /// The value `v` stands for after trivial-φ removal.
    pub fn resolve(&self, mut v: ValueId) -> ValueId {
        // Chains are short; the bound only guards against a cycle.
        for _ in 0..1_000_000 {
            match self.forward.get(&v) {
                Some(&w) if w != v => v = w,
                _ => return v,
            }
        }
        v
    }

    pub fn is_forwarded(&self, v: ValueId) -> bool {
        self.forward.contains_key(&v)
    }
}

enum Task {
    Read(BlockId),
    /// Completes a φ whose operands (one per predecessor) are the top
    /// `preds.len()` results, then records the value in the blocks of
    /// `chain` (the single-predecessor blocks walked to reach it).
    Finish {
        phi: InstId,
        preds: Vec<BlockId>,
        chain: Vec<BlockId>,
    },
}

impl Lowerer<'_> {
    pub(super) fn new_ssa_var(&mut self, ty: Ty, owner: Option<usize>) -> SsaVar {
        let v = SsaVar(self.ssa.var_ty.len() as u32);
        self.ssa.var_ty.push(ty);
        self.ssa.var_owner.push(owner);
        v
    }

    pub(super) fn var_ty(&self, var: SsaVar) -> Ty {
        self.ssa
            .var_ty
            .get(var.0 as usize)
            .copied()
            .unwrap_or(Ty::Void)
    }

    /// Records `value` as a value of the source variable owning `var`.
    fn record(&mut self, var: SsaVar, value: ValueId) {
        if self.is_undef(value) {
            return;
        }
        if let Some(Some(owner)) = self.ssa.var_owner.get(var.0 as usize) {
            if let Some(v) = self.f.vars.get_mut(*owner) {
                v.values.push(value);
            }
        }
    }

    /// `writeVariable` in the current block, recording the value for the
    /// source variable.
    pub(super) fn assign_var(&mut self, var: SsaVar, value: ValueId) {
        let b = self.cur;
        self.ssa.defs.insert((var, b), value);
        self.record(var, value);
    }

    /// `writeVariable` without recording (internal bookkeeping).
    fn write_var(&mut self, var: SsaVar, block: BlockId, value: ValueId) {
        self.ssa.defs.insert((var, block), value);
    }

    /// `readVariable` in the current block.
    pub(super) fn use_var(&mut self, var: SsaVar) -> ValueId {
        let b = self.cur;
        self.read_var(var, b)
    }

    /// `readVariable(variable, block)`.
    pub(super) fn read_var(&mut self, var: SsaVar, block: BlockId) -> ValueId {
        if let Some(&v) = self.ssa.defs.get(&(var, block)) {
            return self.ssa.resolve(v);
        }
        let ty = self.var_ty(var);
        let mut tasks = vec![Task::Read(block)];
        let mut results: Vec<ValueId> = Vec::new();
        while let Some(task) = tasks.pop() {
            match task {
                Task::Read(start) => {
                    let mut chain = Vec::new();
                    let mut b = start;
                    let known = loop {
                        if let Some(&v) = self.ssa.defs.get(&(var, b)) {
                            break Some(self.ssa.resolve(v));
                        }
                        // A walk longer than the block count went round a
                        // cycle of single-predecessor blocks: unreachable code.
                        if chain.len() > self.blocks.len() {
                            break Some(self.undef(ty));
                        }
                        let Some(state) = self.blocks.get(b.index()) else {
                            break Some(self.undef(ty));
                        };
                        if !state.sealed {
                            // Incomplete φ, completed when the block is sealed.
                            let (phi, v) = self.new_phi(var, b);
                            if let Some(st) = self.blocks.get_mut(b.index()) {
                                st.incomplete.push((var, phi));
                            }
                            self.write_var(var, b, v);
                            break Some(v);
                        }
                        match state.preds.len() {
                            // Never written on any path: undefined (C).
                            0 => {
                                let u = self.undef(ty);
                                self.write_var(var, b, u);
                                break Some(u);
                            }
                            1 => {
                                chain.push(b);
                                b = state.preds[0];
                            }
                            _ => {
                                let preds = state.preds.clone();
                                // The φ is the definition before its operands
                                // are read, which breaks cycles.
                                let (phi, v) = self.new_phi(var, b);
                                self.write_var(var, b, v);
                                tasks.push(Task::Finish {
                                    phi,
                                    preds: preds.clone(),
                                    chain: std::mem::take(&mut chain),
                                });
                                for &p in preds.iter().rev() {
                                    tasks.push(Task::Read(p));
                                }
                                break None;
                            }
                        }
                    };
                    if let Some(v) = known {
                        for c in chain {
                            self.write_var(var, c, v);
                        }
                        results.push(v);
                    }
                }
                Task::Finish { phi, preds, chain } => {
                    let n = preds.len();
                    let start = results.len().saturating_sub(n);
                    let ops = results.split_off(start);
                    self.set_phi_operands(phi, &preds, &ops);
                    let v = self.try_remove_trivial_phi(phi);
                    for c in chain {
                        self.write_var(var, c, v);
                    }
                    results.push(v);
                }
            }
        }
        match results.pop() {
            Some(v) => self.ssa.resolve(v),
            None => self.undef(ty),
        }
    }

    fn new_phi(&mut self, var: SsaVar, b: BlockId) -> (InstId, ValueId) {
        let ty = self.var_ty(var);
        let src = self
            .blocks
            .get(b.index())
            .map_or(self.kernel_src, |s| s.src);
        let (inst, v) = self.f.add_phi(b, ty, Vec::new(), src);
        self.ssa.phi_inst.insert(v, inst);
        self.record(var, v);
        (inst, v)
    }

    fn set_phi_operands(&mut self, phi: InstId, preds: &[BlockId], ops: &[ValueId]) {
        let incoming: Vec<(BlockId, ValueId)> = preds
            .iter()
            .zip(ops)
            .map(|(&b, &v)| (b, self.ssa.resolve(v)))
            .collect();
        for &(_, v) in &incoming {
            if self.ssa.phi_inst.contains_key(&v) {
                self.ssa.phi_users.entry(v).or_default().push(phi);
            }
        }
        if let Some(inst) = self.f.insts.get_mut(phi.index()) {
            inst.kind = InstKind::Phi { incoming };
        }
    }

    /// `sealBlock`: no predecessors will be added to `b`; completes its
    /// incomplete φs.
    pub(super) fn seal(&mut self, b: BlockId) {
        let Some(state) = self.blocks.get_mut(b.index()) else {
            return;
        };
        if state.sealed {
            return;
        }
        let incomplete = std::mem::take(&mut state.incomplete);
        let preds = state.preds.clone();
        for (var, phi) in incomplete {
            // addPhiOperands
            let ops: Vec<ValueId> = preds.iter().map(|&p| self.read_var(var, p)).collect();
            self.set_phi_operands(phi, &preds, &ops);
            self.try_remove_trivial_phi(phi);
        }
        if let Some(state) = self.blocks.get_mut(b.index()) {
            state.sealed = true;
        }
    }

    /// `tryRemoveTrivialPhi`, with its cascade over φ users run as a
    /// worklist. Returns the value the φ stands for now.
    pub(super) fn try_remove_trivial_phi(&mut self, phi: InstId) -> ValueId {
        let Some(result) = self.f.insts.get(phi.index()).and_then(|i| i.result) else {
            return self.undef(Ty::Void);
        };
        let mut work = vec![phi];
        while let Some(p) = work.pop() {
            let Some(inst) = self.f.insts.get(p.index()) else {
                continue;
            };
            let (Some(pv), InstKind::Phi { incoming }) = (inst.result, &inst.kind) else {
                continue;
            };
            if self.ssa.is_forwarded(pv) {
                continue;
            }
            let ty = inst.ty;
            let ops: Vec<ValueId> = incoming.iter().map(|&(_, v)| v).collect();
            let mut same: Option<ValueId> = None;
            let mut trivial = true;
            for op in ops {
                let op = self.ssa.resolve(op);
                if Some(op) == same || op == pv {
                    continue;
                }
                if same.is_some() {
                    trivial = false;
                    break;
                }
                same = Some(op);
            }
            if !trivial {
                continue;
            }
            // A φ without operands other than itself is unreachable or
            // undefined.
            let same = match same {
                Some(s) => s,
                None => self.undef(ty),
            };
            self.ssa.forward.insert(pv, same);
            self.f.remove_inst(p);
            if let Some(users) = self.ssa.phi_users.remove(&pv) {
                for u in users {
                    if u != p {
                        work.push(u);
                        if self.ssa.phi_inst.contains_key(&same) {
                            self.ssa.phi_users.entry(same).or_default().push(u);
                        }
                    }
                }
            }
        }
        self.ssa.resolve(result)
    }
}
