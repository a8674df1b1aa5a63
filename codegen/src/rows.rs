//! Row blocks: one body runs R rows of a work-group (dimension 1) for the
//! same SIMD groups of columns, so that what the rows share is computed and
//! loaded once (gemm's `B[k*nj + j]`: one vector load of B per k feeds R
//! rows' multiply-adds, each row's `A[i*nk + k]` a broadcast).
//!
//! The row body is the vectorized body with every instruction whose value
//! depends on the row copied R times (copy r reads `get_global_id(1) + r`
//! and `get_local_id(1) + r`; a private `alloca` is per row), and the
//! rest, loads included, made once. Stores, atomics and `printf` run once
//! per row. Each copy computes what its row computes alone, in the same
//! order (no reassociation): results are bit-identical to one row at a time.
//!
//! Control flow is shared by the R rows. A branch on a value that depends
//! on the row (gemm's `if (i >= ni ...) return`) checks that the R rows
//! agree and otherwise leaves through the bail block ([`BAIL_LABEL`]),
//! after which the entry point runs the R rows one at a time. So that
//! nothing has happened yet when it bails, such a branch must come before
//! any store, atomic or `printf` on every path from the entry (and test a
//! value defined in its own block); a kernel whose block masks depend on
//! the row is not blocked. See docs/codegen.md, "Row blocks".

use std::collections::{HashMap, HashSet};

use lanes_vectorizer::ir::{
    BinOp, BlockId, CmpPred, Function, InstId, InstKind, Ty, ValueId, WorkItem,
};
use lanes_vectorizer::shape::Shape;
use lanes_vectorizer::vectorize::VectorFunction;

/// The label of the block a row body returns through when its rows do not
/// agree on a branch; the back end makes it set the context's bail slot.
pub const BAIL_LABEL: &str = "rows.bail";

/// The values of `f` that differ between rows, when the values in `agreed`
/// are taken to be the same for all rows; `None` when a query's dimension
/// is not a constant.
pub fn row_dependent(f: &Function, agreed: &HashSet<ValueId>) -> Option<HashSet<ValueId>> {
    let mut dep = HashSet::new();
    for inst in &f.insts {
        let Some(r) = inst.result else { continue };
        match &inst.kind {
            InstKind::WorkItem {
                query: WorkItem::GlobalId | WorkItem::LocalId,
                dim: Some(d),
            } => match f.as_const(*d) {
                Some(c) if c.as_unsigned() == Some(1) => {
                    dep.insert(r);
                }
                Some(_) => {}
                None => return None,
            },
            InstKind::WorkItem {
                query: WorkItem::GlobalId | WorkItem::LocalId,
                dim: None,
            } => return None,
            InstKind::Alloca { .. } => {
                dep.insert(r);
            }
            _ => {}
        }
    }
    let mut grew = true;
    while grew {
        grew = false;
        for inst in &f.insts {
            let Some(r) = inst.result else { continue };
            if dep.contains(&r) || agreed.contains(&r) {
                continue;
            }
            let mut any = false;
            inst.kind.for_each_operand(|v| any |= dep.contains(&v));
            if any {
                dep.insert(r);
                grew = true;
            }
        }
    }
    Some(dep)
}

/// Effects that each row must have: stores, atomics, `printf`, image writes.
fn per_row_effect(kind: &InstKind) -> bool {
    matches!(
        kind,
        InstKind::Store { .. }
            | InstKind::Atomic { .. }
            | InstKind::Printf { .. }
            | InstKind::ImageWrite { .. }
    )
}

/// The condition a terminator branches on.
fn branch_condition(kind: &InstKind) -> Option<ValueId> {
    match kind {
        InstKind::CondBr { cond, .. } => Some(*cond),
        InstKind::Switch { value, .. } => Some(*value),
        _ => None,
    }
}

/// The body of `vf` for `rows` consecutive rows, or `None` when the kernel
/// cannot run so (see the module documentation).
pub fn block(vf: &VectorFunction, rows: u32) -> Option<VectorFunction> {
    if rows < 2 {
        return None;
    }
    let src_f = &vf.func;
    // Branches on row-dependent values: the rows must agree on them.
    let all = row_dependent(src_f, &HashSet::new())?;
    let mut agreed = HashSet::new();
    for b in src_f.block_ids() {
        if let Some(t) = src_f.terminator(b) {
            if let Some(c) = branch_condition(&src_f.inst(t).kind) {
                if all.contains(&c) {
                    agreed.insert(c);
                }
            }
        }
    }
    let dep = row_dependent(src_f, &agreed)?;
    // The branches to check: on an agreed value that some row computes
    // differently (its instruction reads a row-dependent value).
    let mut checks: Vec<(BlockId, ValueId)> = Vec::new();
    let mut effects_before: HashSet<BlockId> = HashSet::new();
    {
        // Blocks at or after an effect on some path from the entry.
        let mut work: Vec<BlockId> = src_f
            .block_ids()
            .filter(|&b| {
                src_f.blocks[b.index()]
                    .insts
                    .iter()
                    .any(|&i| per_row_effect(&src_f.inst(i).kind))
            })
            .collect();
        while let Some(b) = work.pop() {
            if effects_before.insert(b) {
                work.extend(src_f.successors(b));
            }
        }
    }
    for b in src_f.block_ids() {
        let Some(t) = src_f.terminator(b) else {
            continue;
        };
        let Some(c) = branch_condition(&src_f.inst(t).kind) else {
            continue;
        };
        if !agreed.contains(&c) {
            continue;
        }
        let def = src_f.def_inst(c)?;
        let mut reads_row = false;
        src_f
            .inst(def)
            .kind
            .for_each_operand(|v| reads_row |= dep.contains(&v));
        if !reads_row {
            continue;
        }
        if src_f.inst(def).block != b
            || src_f.inst(def).kind.is_phi()
            || effects_before.contains(&b)
            || !vf.is_uniform(c)
        {
            return None;
        }
        checks.push((b, c));
    }
    // One mask per block serves all rows.
    for b in src_f.block_ids() {
        let m = vf.block_mask.get(b.index())?;
        if dep.contains(m) || src_f.block(b).predicate.is_some_and(|p| dep.contains(&p)) {
            return None;
        }
    }

    let mut out = vf.clone();
    let f = &mut out.func;
    let n = rows as usize;
    // copies[r - 1][v]: row r's copy of row-dependent value v.
    let mut copies: Vec<HashMap<ValueId, ValueId>> = vec![HashMap::new(); n - 1];
    // Row r's copy of an agreed value, for its check only.
    let mut check_copies: Vec<HashMap<ValueId, ValueId>> = vec![HashMap::new(); n - 1];
    let check_values: HashSet<ValueId> = checks.iter().map(|&(_, c)| c).collect();
    // Copies whose operands are to be renamed to their row's values.
    let mut renamed: Vec<(usize, InstId)> = Vec::new();
    let mut shapes: Vec<(ValueId, Shape)> = Vec::new();
    for b in src_f.block_ids() {
        let list = src_f.blocks[b.index()].insts.clone();
        for &i in &list {
            let inst = src_f.inst(i).clone();
            let seed = matches!(
                inst.kind,
                InstKind::WorkItem {
                    query: WorkItem::GlobalId | WorkItem::LocalId,
                    ..
                }
            ) && inst.result.is_some_and(|v| dep.contains(&v));
            let copied = inst.result.is_some_and(|v| dep.contains(&v))
                || per_row_effect(&inst.kind)
                || inst.result.is_some_and(|v| check_values.contains(&v));
            if !copied {
                continue;
            }
            for r in 1..n {
                let pos = f.blocks[b.index()]
                    .insts
                    .iter()
                    .position(|&x| x == i)
                    .expect("instruction in its block")
                    + r;
                let v = if seed {
                    let v = inst.result.expect("query has a value");
                    let k = f.const_int(r as i64, Ty::I64);
                    let kind = InstKind::Bin {
                        op: BinOp::Add,
                        lhs: v,
                        rhs: k,
                    };
                    f.insert(b, pos, kind, inst.ty, inst.src).1
                } else {
                    let (id, v) = f.insert(b, pos, inst.kind.clone(), inst.ty, inst.src);
                    renamed.push((r, id));
                    v
                };
                if let (Some(orig), Some(v)) = (inst.result, v) {
                    shapes.push((v, vf.shape(orig)));
                    if src_f.nsw.contains(&orig) {
                        f.nsw.insert(v);
                    }
                    if check_values.contains(&orig) {
                        check_copies[r - 1].insert(orig, v);
                    } else {
                        copies[r - 1].insert(orig, v);
                    }
                }
            }
        }
    }
    for (r, id) in renamed {
        let map = &copies[r - 1];
        f.inst_mut(id).kind.for_each_operand_mut(|v| {
            if let Some(&c) = map.get(v) {
                *v = c;
            }
        });
    }
    // The checks: `diff` is true when some row decides otherwise than row 0.
    let entry_mask = *vf.block_mask.get(src_f.entry.index())?;
    let mut bail = None;
    for (b, c) in checks {
        let src = f.inst(f.terminator(b)?).src;
        let bail = *bail.get_or_insert_with(|| {
            let bb = f.add_block(BAIL_LABEL);
            f.append(bb, InstKind::Ret, Ty::Void, src);
            out.block_mask.push(entry_mask);
            out.mask_nonempty.push(false);
            bb
        });
        let t = f.terminator(b)?;
        let src = f.inst(t).src;
        let before_terminator = |f: &Function| f.blocks[b.index()].insts.len() - 1;
        let mut diff: Option<ValueId> = None;
        for r in 1..n {
            let cr = *check_copies[r - 1].get(&c)?;
            let kind = if f.ty(c) == Ty::I1 {
                InstKind::Bin {
                    op: BinOp::Xor,
                    lhs: c,
                    rhs: cr,
                }
            } else {
                InstKind::Cmp {
                    pred: CmpPred::Ne,
                    lhs: c,
                    rhs: cr,
                }
            };
            let (_, d) = f.insert(b, before_terminator(f), kind, Ty::I1, src);
            let d = d?;
            shapes.push((d, Shape::uniform()));
            let d = match diff {
                None => d,
                Some(prev) => {
                    let kind = InstKind::Bin {
                        op: BinOp::Or,
                        lhs: prev,
                        rhs: d,
                    };
                    let (_, o) = f.insert(b, before_terminator(f), kind, Ty::I1, src);
                    let o = o?;
                    shapes.push((o, Shape::uniform()));
                    o
                }
            };
            diff = Some(d);
        }
        let diff = diff?;
        // The original terminator moves to a new block that runs when the
        // rows agree.
        let agree = f.add_block("rows.agree");
        out.block_mask.push(vf.block_mask[b.index()]);
        out.mask_nonempty.push(vf.mask_nonempty[b.index()]);
        f.blocks[b.index()].insts.pop();
        f.blocks[agree.index()].insts.push(t);
        f.inst_mut(t).block = agree;
        for s in f.inst(t).kind.successors() {
            for p in f.phis(s).collect::<Vec<_>>() {
                if let InstKind::Phi { incoming } = &mut f.inst_mut(p).kind {
                    for (from, _) in incoming.iter_mut() {
                        if *from == b {
                            *from = agree;
                        }
                    }
                }
            }
        }
        f.append(
            b,
            InstKind::CondBr {
                cond: diff,
                then: bail,
                els: agree,
            },
            Ty::Void,
            src,
        );
    }
    out.shapes.resize(out.func.values.len(), Shape::Bottom);
    for (v, s) in shapes {
        out.shapes[v.index()] = s;
    }
    // Constants made above are uniform.
    for v in 0..out.func.values.len() {
        if out.func.as_const(ValueId(v as u32)).is_some() && out.shapes[v].is_bottom() {
            out.shapes[v] = Shape::uniform();
        }
    }
    lanes_vectorizer::ir::verify::verify(&out.func).ok()?;
    Some(out)
}
