//! Small private arrays indexed at run time with an index that is the same
//! on every lane (`m[r][c]` in loops over `r` and `c`): each access becomes
//! accesses of every element at constant offsets, the load picking its
//! element and the store keeping the others with `select`s on the index.
//! [`super::promote`] then keeps the elements in registers. A uniform
//! condition selects whole registers (and folds away once LLVM unrolls the
//! loop); the object in per-lane memory was a gather or a scatter per
//! access.

use crate::ir::{BinOp, CastOp, CmpPred, Const, Function, InstId, InstKind, Src, Ty, ValueId};

/// Arrays of more elements than this stay in memory: each access costs one
/// `select` per element.
pub const MAX_ELEMENTS: u64 = 16;

/// An access through a pointer `alloca + offset + Σ terms`.
struct Access {
    inst: InstId,
    offset: i64,
    terms: Vec<ValueId>,
}

/// An array to expand: its alloca, element type and count, the accesses
/// at run-time offsets and the pointer arithmetic that computes them.
pub struct Plan {
    alloca: InstId,
    elem: Ty,
    count: u64,
    accesses: Vec<Access>,
    dynamic_ptr_adds: Vec<InstId>,
}

/// The arrays whose every run-time offset `uniform` accepts, with one
/// element type throughout and at most [`MAX_ELEMENTS`] elements.
pub fn plans(f: &Function, uniform: &dyn Fn(ValueId) -> bool) -> Vec<Plan> {
    let users = f.users();
    let mut out = Vec::new();
    for a in f.blocks.iter().flat_map(|b| b.insts.iter().copied()) {
        if let Some(p) = plan(f, a, &users, uniform) {
            out.push(p);
        }
    }
    out
}

fn plan(
    f: &Function,
    alloca: InstId,
    users: &[Vec<InstId>],
    uniform: &dyn Fn(ValueId) -> bool,
) -> Option<Plan> {
    let InstKind::Alloca { size, .. } = f.inst(alloca).kind else {
        return None;
    };
    let root = f.inst(alloca).result?;
    let mut elem: Option<Ty> = None;
    let mut accesses = Vec::new();
    let mut dynamic_ptr_adds = Vec::new();
    let mut work: Vec<(ValueId, i64, Vec<ValueId>)> = vec![(root, 0, Vec::new())];
    while let Some((p, off, terms)) = work.pop() {
        for &u in &users[p.index()] {
            if !f.is_placed(u) {
                continue;
            }
            let inst = f.inst(u);
            let ty = match inst.kind {
                InstKind::Load { ptr, .. } if ptr == p => inst.ty,
                InstKind::Store { ptr, value, .. } if ptr == p && value != p => f.ty(value),
                InstKind::PtrAdd { base, offset } if base == p && offset != p => {
                    let result = inst.result?;
                    match f.as_const(offset).and_then(Const::as_signed) {
                        Some(c) => {
                            if !terms.is_empty() {
                                dynamic_ptr_adds.push(u);
                            }
                            work.push((result, off.checked_add(c)?, terms.clone()))
                        }
                        None if uniform(offset) && f.ty(offset).is_int() => {
                            let mut t = terms.clone();
                            t.push(offset);
                            dynamic_ptr_adds.push(u);
                            work.push((result, off, t));
                        }
                        None => return None,
                    }
                    continue;
                }
                _ => return None,
            };
            if *elem.get_or_insert(ty) != ty || off.rem_euclid(ty.bytes().max(1) as i64) != 0 {
                return None;
            }
            if terms.is_empty() && (off < 0 || off as u64 >= size) {
                return None;
            }
            accesses.push(Access {
                inst: u,
                offset: off,
                terms: terms.clone(),
            });
        }
    }
    let elem = elem?;
    let count = size / elem.bytes().max(1);
    let fits = size % elem.bytes().max(1) == 0 && (2..=MAX_ELEMENTS).contains(&count);
    accesses.retain(|a| !a.terms.is_empty());
    (fits && !accesses.is_empty()).then_some(Plan {
        alloca,
        elem,
        count,
        accesses,
        dynamic_ptr_adds,
    })
}

/// Rewrites the accesses of `plans` (see the module documentation).
pub fn expand(f: &mut Function, plans: &[Plan]) {
    for p in plans {
        let Some(base) = f.inst(p.alloca).result else {
            continue;
        };
        for a in &p.accesses {
            let mut at = Cursor::before(f, a.inst);
            // The byte offset of the access.
            let mut off = f.const_int(a.offset, Ty::I64);
            for &t in &a.terms {
                let t = match f.ty(t) {
                    Ty::I64 => t,
                    _ => at.emit(
                        f,
                        InstKind::Cast {
                            op: CastOp::SExt,
                            value: t,
                        },
                        Ty::I64,
                    ),
                };
                off = at.emit(
                    f,
                    InstKind::Bin {
                        op: BinOp::Add,
                        lhs: off,
                        rhs: t,
                    },
                    Ty::I64,
                );
            }
            let stored = match f.inst(a.inst).kind {
                InstKind::Store { value, .. } => Some(value),
                _ => None,
            };
            let align = p.elem.bytes();
            let mut picked: Option<ValueId> = None;
            for j in (0..p.count).rev() {
                let byte = f.const_int((j * p.elem.bytes()) as i64, Ty::I64);
                let ptr = at.emit(f, InstKind::PtrAdd { base, offset: byte }, f.ty(base));
                let old = at.emit(f, InstKind::Load { ptr, align }, p.elem);
                let is_j = at.emit(
                    f,
                    InstKind::Cmp {
                        pred: CmpPred::Eq,
                        lhs: off,
                        rhs: byte,
                    },
                    Ty::I1,
                );
                match stored {
                    Some(value) => {
                        let new = at.emit(
                            f,
                            InstKind::Select {
                                cond: is_j,
                                then: value,
                                els: old,
                            },
                            p.elem,
                        );
                        at.emit(
                            f,
                            InstKind::Store {
                                ptr,
                                value: new,
                                align,
                            },
                            Ty::Void,
                        );
                    }
                    None => {
                        picked = Some(match picked {
                            None => old,
                            Some(rest) => at.emit(
                                f,
                                InstKind::Select {
                                    cond: is_j,
                                    then: old,
                                    els: rest,
                                },
                                p.elem,
                            ),
                        });
                    }
                }
            }
            if let (Some(r), Some(v)) = (f.inst(a.inst).result, picked) {
                f.replace_all_uses(r, v);
            }
            f.remove_inst(a.inst);
        }
        for &i in p.dynamic_ptr_adds.iter().rev() {
            f.remove_inst(i);
        }
    }
}

/// Where new instructions go: before `inst`, in order.
struct Cursor {
    block: crate::ir::BlockId,
    pos: usize,
    src: Src,
}

impl Cursor {
    fn before(f: &Function, inst: InstId) -> Cursor {
        let block = f.inst(inst).block;
        let pos = f
            .block(block)
            .insts
            .iter()
            .position(|&i| i == inst)
            .unwrap_or(0);
        Cursor {
            block,
            pos,
            src: f.inst(inst).src,
        }
    }

    fn emit(&mut self, f: &mut Function, kind: InstKind, ty: Ty) -> ValueId {
        let (_, v) = f.insert(self.block, self.pos, kind, ty, self.src);
        self.pos += 1;
        v.unwrap_or(ValueId(u32::MAX))
    }
}
