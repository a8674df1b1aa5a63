//! Addresses and indices as affine forms over IR values, for comparing
//! accesses (the code generator's strided groups) and recognizing how an
//! address moves with a loop counter (`crate::rows`).

use std::collections::BTreeMap;

use crate::ir::{BinOp, CastOp, Const, Function, InstKind, ValueId};

/// An address as `Σ coeff · leaf + constant` (bytes), for comparing the
/// addresses of two accesses.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Affine {
    pub terms: BTreeMap<ValueId, i64>,
    pub konst: i64,
}

impl Affine {
    pub fn leaf(v: ValueId) -> Affine {
        Affine {
            terms: BTreeMap::from([(v, 1)]),
            konst: 0,
        }
    }

    pub fn add(mut self, o: Affine, sign: i64) -> Option<Affine> {
        for (v, c) in o.terms {
            let e = self.terms.entry(v).or_insert(0);
            *e = e.checked_add(c.checked_mul(sign)?)?;
            if *e == 0 {
                self.terms.remove(&v);
            }
        }
        self.konst = self.konst.checked_add(o.konst.checked_mul(sign)?)?;
        Some(self)
    }

    pub fn scale(mut self, k: i64) -> Option<Affine> {
        for c in self.terms.values_mut() {
            *c = c.checked_mul(k)?;
        }
        self.konst = self.konst.checked_mul(k)?;
        self.terms.retain(|_, c| *c != 0);
        Some(self)
    }
}

/// The signed value of an integer constant.
pub fn int_const(f: &Function, v: ValueId) -> Option<i64> {
    match f.as_const(v)? {
        Const::Int(x, t) if t.is_int() => {
            let bits = t.bits();
            Some(if bits >= 64 {
                x as i64
            } else {
                ((x << (64 - bits)) as i64) >> (64 - bits)
            })
        }
        _ => None,
    }
}

/// The affine form of `v`, looking through additions, multiplications and
/// shifts by constants, sign extensions (OpenCL C's signed arithmetic does
/// not wrap) and pointer offsets. Anything else is a leaf.
pub fn affine(f: &Function, v: ValueId, depth: u32) -> Affine {
    if let Some(k) = int_const(f, v) {
        return Affine {
            terms: BTreeMap::new(),
            konst: k,
        };
    }
    let leaf = Affine::leaf(v);
    if depth == 0 {
        return leaf;
    }
    let Some(d) = f.def_inst(v) else { return leaf };
    let sub = |x| affine(f, x, depth - 1);
    let r = match &f.inst(d).kind {
        InstKind::PtrAdd { base, offset } => sub(*base).add(sub(*offset), 1),
        InstKind::Bin {
            op: BinOp::Add,
            lhs,
            rhs,
        } => sub(*lhs).add(sub(*rhs), 1),
        InstKind::Bin {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => sub(*lhs).add(sub(*rhs), -1),
        InstKind::Bin {
            op: BinOp::Mul,
            lhs,
            rhs,
        } => match (int_const(f, *lhs), int_const(f, *rhs)) {
            (_, Some(k)) => sub(*lhs).scale(k),
            (Some(k), _) => sub(*rhs).scale(k),
            _ => None,
        },
        InstKind::Bin {
            op: BinOp::Shl,
            lhs,
            rhs,
        } => match int_const(f, *rhs) {
            Some(k @ 0..=32) => sub(*lhs).scale(1 << k),
            _ => None,
        },
        InstKind::Cast {
            op: CastOp::SExt,
            value,
        } => Some(sub(*value)),
        _ => None,
    };
    r.unwrap_or(leaf)
}
