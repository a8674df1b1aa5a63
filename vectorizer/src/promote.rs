//! Scalar replacement of private variables: a private struct, vector or
//! array whose every access is at a constant byte offset (fields,
//! components, constant indices, also through pointers handed to inlined
//! helpers) becomes one SSA value per accessed field, so the vectorizer
//! keeps each field in a register per lane (structure of arrays) instead
//! of W copies of the object in memory reached by gathers and scatters.
//!
//! An object stays in memory when an access is not at a constant offset
//! (an index computed at run time), when a pointer into it is chosen at
//! run time (`φ`, `select`), escapes (stored, passed to an atomic or an
//! address comparison), or when its bytes are read with another type than
//! they were written with. [`blocker`] says which instruction keeps it
//! there; the report shows that as the reason of `L0206`.
//!
//! φ placement is the classic one (Cytron et al. 1991: iterated dominance
//! frontiers of the blocks that store a field), renaming walks the
//! dominator tree, and φs nobody reads are dropped.

use std::collections::{BTreeMap, HashMap};

use crate::cfg::Cfg;
use crate::ir::{BlockId, Const, Function, InstId, InstKind, Src, Ty, ValueId};

/// More fields than this in one object keep it in memory: each promoted
/// field is a register per lane.
pub const MAX_FIELDS: usize = 32;

pub use indexed::MAX_ELEMENTS as MAX_INDEXED_ELEMENTS;

/// Why a private object stays in memory: the instruction and what it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocker {
    /// An address into the object computed with a run-time offset.
    DynamicIndex(InstId),
    /// A pointer into the object chosen at run time (`φ`, `select`).
    SelectedPointer(InstId),
    /// A pointer into the object stored to memory or used other than by
    /// loads, stores and constant offsets.
    Escapes(InstId),
    /// Bytes read with another type (or at another offset) than written.
    Reinterpreted(InstId),
    /// An access outside the object.
    OutOfBounds(InstId),
    /// More than [`MAX_FIELDS`] fields accessed.
    TooManyFields,
}

impl Blocker {
    /// The instruction to show the reason at.
    pub fn inst(self) -> Option<InstId> {
        match self {
            Blocker::DynamicIndex(i)
            | Blocker::SelectedPointer(i)
            | Blocker::Escapes(i)
            | Blocker::Reinterpreted(i)
            | Blocker::OutOfBounds(i) => Some(i),
            Blocker::TooManyFields => None,
        }
    }

    /// Why, in words (the subject is the instruction's source text).
    pub fn reason(self) -> String {
        match self {
            Blocker::DynamicIndex(_) => "indexes it with a value computed at run time".into(),
            Blocker::SelectedPointer(_) => "chooses a pointer into it at run time".into(),
            Blocker::Escapes(_) => "lets its address escape".into(),
            Blocker::Reinterpreted(_) => "reads its bytes as another type".into(),
            Blocker::OutOfBounds(_) => "accesses outside of it".into(),
            Blocker::TooManyFields => format!("it has more than {MAX_FIELDS} fields accessed"),
        }
    }
}

/// One field of a promotable object: byte offset and type.
type Field = (u64, Ty);

/// The accesses of a promotable object: each load and store with its field,
/// and the pointer arithmetic into it.
struct Accesses {
    loads: HashMap<InstId, Field>,
    stores: HashMap<InstId, Field>,
    ptr_adds: Vec<InstId>,
}

/// Why the alloca `alloca` must stay in memory, or `None` when it can be
/// promoted. `users` is [`Function::users`].
pub fn blocker(f: &Function, alloca: InstId, users: &[Vec<InstId>]) -> Option<Blocker> {
    accesses(f, alloca, users).err()
}

fn accesses(f: &Function, alloca: InstId, users: &[Vec<InstId>]) -> Result<Accesses, Blocker> {
    let size = match f.inst(alloca).kind {
        InstKind::Alloca { size, .. } => size,
        _ => return Err(Blocker::Escapes(alloca)),
    };
    let Some(root) = f.inst(alloca).result else {
        return Err(Blocker::Escapes(alloca));
    };
    let mut acc = Accesses {
        loads: HashMap::new(),
        stores: HashMap::new(),
        ptr_adds: Vec::new(),
    };
    // (pointer, its byte offset in the object); offsets are signed so that
    // a pointer may step outside and back before it is used.
    let mut work: Vec<(ValueId, i64)> = vec![(root, 0)];
    let field = |i: InstId, off: i64, ty: Ty| -> Result<Field, Blocker> {
        if off < 0 || off as u64 + ty.bytes() > size || ty.bytes() == 0 {
            return Err(Blocker::OutOfBounds(i));
        }
        Ok((off as u64, ty))
    };
    while let Some((p, off)) = work.pop() {
        for &u in &users[p.index()] {
            let inst = f.inst(u);
            if !f.is_placed(u) {
                continue;
            }
            match inst.kind {
                InstKind::Load { ptr, .. } if ptr == p => {
                    acc.loads.insert(u, field(u, off, inst.ty)?);
                }
                InstKind::Store { ptr, value, .. } if ptr == p && value != p => {
                    acc.stores.insert(u, field(u, off, f.ty(value))?);
                }
                InstKind::PtrAdd { base, offset } if base == p && offset != p => {
                    let c = f.as_const(offset).and_then(Const::as_signed);
                    let Some(c) = c else {
                        return Err(Blocker::DynamicIndex(u));
                    };
                    let Some(result) = inst.result else { continue };
                    acc.ptr_adds.push(u);
                    work.push((result, off.saturating_add(c)));
                }
                InstKind::Phi { .. } | InstKind::Select { .. } => {
                    return Err(Blocker::SelectedPointer(u))
                }
                _ => return Err(Blocker::Escapes(u)),
            }
        }
    }
    // Fields must not overlap unless they are the same field.
    let mut fields: BTreeMap<u64, (Ty, InstId)> = BTreeMap::new();
    let all = acc.loads.iter().chain(acc.stores.iter());
    let mut sorted: Vec<(InstId, Field)> = all.map(|(&i, &fl)| (i, fl)).collect();
    sorted.sort_by_key(|&(i, _)| i);
    for (i, (off, ty)) in sorted {
        match fields.get(&off) {
            Some(&(t, _)) if t != ty => return Err(Blocker::Reinterpreted(i)),
            Some(_) => {}
            None => {
                let before = fields.range(..off).next_back();
                let after = fields.range(off + 1..).next();
                let clash = before.is_some_and(|(&o, &(t, _))| o + t.bytes() > off)
                    || after.is_some_and(|(&o, _)| off + ty.bytes() > o);
                if clash {
                    return Err(Blocker::Reinterpreted(i));
                }
                fields.insert(off, (ty, i));
            }
        }
    }
    if fields.len() > MAX_FIELDS {
        return Err(Blocker::TooManyFields);
    }
    Ok(acc)
}

/// Promotes every private object that can be to SSA values; returns how
/// many were. Run before [`crate::cfg::canonicalize`] (which then puts the
/// new values of loops in LCSSA form).
pub fn promote(f: &mut Function) -> usize {
    let users = f.users();
    let allocas: Vec<InstId> = f
        .blocks
        .iter()
        .flat_map(|b| b.insts.iter().copied())
        .filter(|&i| matches!(f.inst(i).kind, InstKind::Alloca { .. }))
        .collect();
    let mut promotable: Vec<(InstId, Accesses)> = Vec::new();
    for a in allocas {
        if let Ok(acc) = accesses(f, a, &users) {
            promotable.push((a, acc));
        }
    }
    if promotable.is_empty() {
        return 0;
    }
    let cfg = Cfg::compute(f);
    let frontiers = crate::divergence::dominance_frontiers(f, &cfg);

    // One variable per (object, field).
    let mut var_of: HashMap<(usize, Field), usize> = HashMap::new();
    let mut var_ty: Vec<Ty> = Vec::new();
    let mut var_src: Vec<Src> = Vec::new();
    let mut var_obj: Vec<usize> = Vec::new();
    let mut load_var: HashMap<InstId, usize> = HashMap::new();
    let mut store_var: HashMap<InstId, usize> = HashMap::new();
    let mut def_blocks: Vec<Vec<BlockId>> = Vec::new();
    for (k, (a, acc)) in promotable.iter().enumerate() {
        let src = f.inst(*a).src;
        let mut fields: Vec<(InstId, Field, bool)> = acc
            .loads
            .iter()
            .map(|(&i, &fl)| (i, fl, false))
            .chain(acc.stores.iter().map(|(&i, &fl)| (i, fl, true)))
            .collect();
        fields.sort_by_key(|&(i, _, _)| i);
        for (i, fl, is_store) in fields {
            let v = *var_of.entry((k, fl)).or_insert_with(|| {
                var_ty.push(fl.1);
                var_src.push(src);
                var_obj.push(k);
                def_blocks.push(Vec::new());
                var_ty.len() - 1
            });
            if is_store {
                store_var.insert(i, v);
                def_blocks[v].push(f.inst(i).block);
            } else {
                load_var.insert(i, v);
            }
        }
    }

    // φ placement: the iterated dominance frontier of the storing blocks.
    let mut phi_var: HashMap<InstId, usize> = HashMap::new();
    let mut block_phis: HashMap<BlockId, Vec<(usize, InstId, ValueId)>> = HashMap::new();
    for v in 0..var_ty.len() {
        let mut placed: Vec<BlockId> = Vec::new();
        let mut work = def_blocks[v].clone();
        let mut seen = work.clone();
        while let Some(b) = work.pop() {
            for &d in frontiers.get(b.index()).map(Vec::as_slice).unwrap_or(&[]) {
                if !placed.contains(&d) {
                    placed.push(d);
                    let (pi, pv) = f.add_phi(d, var_ty[v], Vec::new(), var_src[v]);
                    phi_var.insert(pi, v);
                    block_phis.entry(d).or_default().push((v, pi, pv));
                }
                if !seen.contains(&d) {
                    seen.push(d);
                    work.push(d);
                }
            }
        }
    }

    // Renaming along the dominator tree. A load's value becomes the
    // variable's current value; `repl` maps each removed load to it.
    let mut undef: HashMap<Ty, ValueId> = HashMap::new();
    let mut current: Vec<ValueId> = Vec::with_capacity(var_ty.len());
    for &t in &var_ty {
        let u = *undef
            .entry(t)
            .or_insert_with(|| f.add_const(Const::Undef(t)));
        current.push(u);
    }
    let mut repl: HashMap<ValueId, ValueId> = HashMap::new();
    let mut stored: Vec<Vec<ValueId>> = vec![Vec::new(); var_ty.len()];
    enum Step {
        Enter(BlockId),
        Restore(Vec<(usize, ValueId)>),
    }
    let mut stack = vec![Step::Enter(f.entry)];
    while let Some(step) = stack.pop() {
        let b = match step {
            Step::Enter(b) => b,
            Step::Restore(saved) => {
                // Newest first: a block may set a variable more than once.
                for (v, val) in saved.into_iter().rev() {
                    current[v] = val;
                }
                continue;
            }
        };
        let mut saved: Vec<(usize, ValueId)> = Vec::new();
        let mut set = |current: &mut Vec<ValueId>, v: usize, val: ValueId| {
            saved.push((v, current[v]));
            current[v] = val;
        };
        for &(v, _, pv) in block_phis.get(&b).map(Vec::as_slice).unwrap_or(&[]) {
            set(&mut current, v, pv);
        }
        let insts = f.block(b).insts.clone();
        for i in insts {
            if let Some(&v) = load_var.get(&i) {
                if let Some(r) = f.inst(i).result {
                    repl.insert(r, current[v]);
                }
                f.remove_inst(i);
            } else if let Some(&v) = store_var.get(&i) {
                if let InstKind::Store { value, .. } = f.inst(i).kind {
                    let value = resolve(&repl, value);
                    stored[v].push(value);
                    set(&mut current, v, value);
                }
                f.remove_inst(i);
            }
        }
        for s in f.successors(b) {
            for &(v, pi, _) in block_phis.get(&s).map(Vec::as_slice).unwrap_or(&[]) {
                let val = current[v];
                if let InstKind::Phi { incoming } = &mut f.inst_mut(pi).kind {
                    incoming.push((b, val));
                }
            }
        }
        stack.push(Step::Restore(saved));
        for c in cfg.dom_children(b).into_iter().rev() {
            stack.push(Step::Enter(c));
        }
    }
    // Accesses the walk did not reach (in blocks the entry does not reach)
    // go too; what they loaded is undefined.
    for (&i, &v) in &load_var {
        if f.is_placed(i) {
            if let Some(r) = f.inst(i).result {
                repl.insert(r, undef[&var_ty[v]]);
            }
            f.remove_inst(i);
        }
    }
    for &i in store_var.keys() {
        f.remove_inst(i);
    }
    for inst in &mut f.insts {
        inst.kind.for_each_operand_mut(|v| *v = resolve(&repl, *v));
    }
    for blk in &mut f.blocks {
        if let Some(p) = blk.predicate {
            blk.predicate = Some(resolve(&repl, p));
        }
    }
    for list in &mut stored {
        for v in list.iter_mut() {
            *v = resolve(&repl, *v);
        }
    }

    let removed_phis = simplify_phis(f, &phi_var);
    // The pointer arithmetic and the objects are dead now.
    for (a, acc) in &promotable {
        for &p in acc.ptr_adds.iter().rev() {
            f.remove_inst(p);
        }
        f.remove_inst(*a);
    }
    // Each promoted variable is now held by its stored values and φs.
    for (k, (a, _)) in promotable.iter().enumerate() {
        let Some(av) = f.inst(*a).result else {
            continue;
        };
        let mut values: Vec<ValueId> = Vec::new();
        for v in (0..var_ty.len()).filter(|&v| var_obj[v] == k) {
            for &x in &stored[v] {
                let x = match f.def_inst(x).and_then(|d| removed_phis.get(&d)) {
                    Some(&to) => to,
                    None => Some(x),
                };
                values.extend(x.filter(|&x| f.def_inst(x).is_none_or(|d| f.is_placed(d))));
            }
        }
        for (&pi, &v) in &phi_var {
            if var_obj[v] == k && !removed_phis.contains_key(&pi) {
                values.extend(f.inst(pi).result);
            }
        }
        values.sort();
        values.dedup();
        for var in f
            .vars
            .iter_mut()
            .filter(|var| var.values.first() == Some(&av))
        {
            var.in_memory = false;
            var.values = values.clone();
        }
    }
    promotable.len()
}

fn resolve(repl: &HashMap<ValueId, ValueId>, mut v: ValueId) -> ValueId {
    // Chains are short (a load replaced by a load's value); the bound only
    // guards against a cycle.
    for _ in 0..1_000_000 {
        match repl.get(&v) {
            Some(&w) if w != v => v = w,
            _ => return v,
        }
    }
    v
}

/// Removes the inserted φs that are trivial (every operand the same value or
/// the φ itself) or that nothing reads; returns the removed ones with the
/// value that replaced them (`None` when unused).
fn simplify_phis(
    f: &mut Function,
    phi_var: &HashMap<InstId, usize>,
) -> HashMap<InstId, Option<ValueId>> {
    let mut removed: HashMap<InstId, Option<ValueId>> = HashMap::new();
    let mut phis: Vec<InstId> = phi_var.keys().copied().collect();
    phis.sort();
    // Trivial φs, until none is left.
    let mut changed = true;
    while changed {
        changed = false;
        for &pi in &phis {
            if removed.contains_key(&pi) {
                continue;
            }
            let Some(pv) = f.inst(pi).result else {
                continue;
            };
            let InstKind::Phi { incoming } = &f.inst(pi).kind else {
                continue;
            };
            let mut same: Option<ValueId> = None;
            let mut trivial = true;
            for &(_, v) in incoming {
                if v == pv || Some(v) == same {
                    continue;
                }
                if same.is_some() {
                    trivial = false;
                    break;
                }
                same = Some(v);
            }
            if trivial {
                let to = match same {
                    Some(v) => v,
                    None => f.add_const(Const::Undef(f.ty(pv))),
                };
                f.replace_all_uses(pv, to);
                f.remove_inst(pi);
                removed.insert(pi, Some(to));
                changed = true;
            }
        }
    }
    // Unused φs: live when a placed non-φ reads them or a live φ does.
    let users = f.users();
    let mut live: std::collections::HashSet<InstId> = Default::default();
    let mut work: Vec<InstId> = Vec::new();
    for &pi in phis.iter().filter(|pi| !removed.contains_key(pi)) {
        let Some(pv) = f.inst(pi).result else {
            continue;
        };
        let read = users[pv.index()]
            .iter()
            .any(|&u| f.is_placed(u) && !phi_var.contains_key(&u))
            || f.blocks.iter().any(|b| b.predicate == Some(pv));
        if read {
            live.insert(pi);
            work.push(pi);
        }
    }
    while let Some(pi) = work.pop() {
        let ops = f.inst(pi).kind.operands();
        for o in ops {
            if let Some(d) = f.def_inst(o) {
                if phi_var.contains_key(&d) && !removed.contains_key(&d) && live.insert(d) {
                    work.push(d);
                }
            }
        }
    }
    for &pi in &phis {
        if !removed.contains_key(&pi) && !live.contains(&pi) {
            f.remove_inst(pi);
            removed.insert(pi, None);
        }
    }
    removed
}

mod indexed;
#[cfg(test)]
mod tests;

/// Small arrays indexed at run time with values the same on every lane of
/// a SIMD group of `width` (see `indexed`) become SSA values too; returns
/// how many. Runs the divergence analysis on a canonical copy only when
/// some array could qualify.
pub fn promote_uniformly_indexed(f: &mut Function, width: u32) -> usize {
    if indexed::plans(f, &|_| true).is_empty() {
        return 0;
    }
    let mut probe = f.clone();
    if crate::cfg::canonicalize(&mut probe).is_err() {
        return 0;
    }
    let cfg = Cfg::compute(&probe);
    let div = crate::divergence::analyze(&probe, &cfg, width);
    let plans = indexed::plans(f, &|v| div.is_uniform(v));
    if plans.is_empty() {
        return 0;
    }
    indexed::expand(f, &plans);
    promote(f)
}
