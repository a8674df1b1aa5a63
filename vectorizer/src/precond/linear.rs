//! Linear conditions over SSA values, exact in the integers: the language
//! in which preconditions are found, simplified, printed and assumed.
//!
//! A [`Lin`] is `Σ c·v + k` over *atoms* (SSA values the form does not look
//! into). Only steps that are exact in ℤ are looked through: constants,
//! signed `+ - *` of the source (their overflow is undefined, see
//! [`Function::nsw`]) and sign extension. Everything else is an atom, so a
//! form is always exactly the value it describes when no `nsw` operation
//! overflows.

use std::collections::BTreeMap;

use crate::ir::{BinOp, CastOp, CmpPred, Const, Function, InstKind, Ty, ValueDef, ValueId};

/// `Σ terms[v]·v + k`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Lin {
    pub terms: BTreeMap<ValueId, i64>,
    pub k: i64,
}

impl Lin {
    pub fn constant(k: i64) -> Lin {
        Lin {
            terms: BTreeMap::new(),
            k,
        }
    }

    pub fn atom(v: ValueId) -> Lin {
        Lin {
            terms: BTreeMap::from([(v, 1)]),
            k: 0,
        }
    }

    pub fn add(&self, o: &Lin, sign: i64) -> Option<Lin> {
        let mut r = self.clone();
        for (&v, &c) in &o.terms {
            let e = r.terms.entry(v).or_insert(0);
            *e = e.checked_add(c.checked_mul(sign)?)?;
            if *e == 0 {
                r.terms.remove(&v);
            }
        }
        r.k = r.k.checked_add(o.k.checked_mul(sign)?)?;
        Some(r)
    }

    pub fn scale(&self, s: i64) -> Option<Lin> {
        if s == 0 {
            return Some(Lin::constant(0));
        }
        let mut r = Lin::constant(self.k.checked_mul(s)?);
        for (&v, &c) in &self.terms {
            r.terms.insert(v, c.checked_mul(s)?);
        }
        Some(r)
    }

    pub fn is_const(&self) -> bool {
        self.terms.is_empty()
    }
}

/// How atoms are read as integers: C compares `int`s signed and `uint`s
/// unsigned; a condition uses one reading for all its atoms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ext {
    Signed,
    Unsigned,
}

/// `lin >= 0`, atoms read as `ext` says.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cond {
    pub lin: Lin,
    pub ext: Ext,
}

impl Cond {
    /// `c` implies `self` when both read atoms alike and `self - c` is a
    /// non-negative constant.
    pub fn implied_by(&self, c: &Cond) -> bool {
        self.ext == c.ext
            && self
                .lin
                .add(&c.lin, -1)
                .is_some_and(|d| d.is_const() && d.k >= 0)
    }
}

/// The signed value of an integer constant of type `ty`.
pub fn signed_const(c: u64, ty: Ty) -> i64 {
    let bits = ty.bits();
    if bits == 0 || bits >= 64 {
        return c as i64;
    }
    let shift = 64 - bits;
    ((c << shift) as i64) >> shift
}

fn unsigned_const(c: u64, ty: Ty) -> Option<i64> {
    let bits = ty.bits();
    let v = if bits >= 64 || bits == 0 {
        c
    } else {
        c & ((1u64 << bits) - 1)
    };
    i64::try_from(v).ok()
}

/// The exact linear form of `v` for reading `ext`.
pub fn lin(f: &Function, v: ValueId, ext: Ext) -> Option<Lin> {
    lin_depth(f, v, ext, 0)
}

fn lin_depth(f: &Function, v: ValueId, ext: Ext, depth: u32) -> Option<Lin> {
    let value = f.values.get(v.index())?;
    if !value.ty.is_int() || value.ty == Ty::I1 {
        return None;
    }
    match &value.def {
        ValueDef::Const(Const::Int(c, ty)) => {
            return Some(Lin::constant(match ext {
                Ext::Signed => signed_const(*c, *ty),
                Ext::Unsigned => unsigned_const(*c, *ty)?,
            }))
        }
        ValueDef::Const(_) => return None,
        _ => {}
    }
    if depth > 24 || ext == Ext::Unsigned {
        return Some(Lin::atom(v));
    }
    let Some(i) = f.def_inst(v) else {
        return Some(Lin::atom(v));
    };
    let d = depth + 1;
    match &f.inst(i).kind {
        InstKind::Bin { op, lhs, rhs } if f.nsw.contains(&v) => match op {
            BinOp::Add | BinOp::Sub => {
                let a = lin_depth(f, *lhs, ext, d)?;
                let b = lin_depth(f, *rhs, ext, d)?;
                a.add(&b, if *op == BinOp::Add { 1 } else { -1 })
            }
            BinOp::Mul => {
                let a = lin_depth(f, *lhs, ext, d)?;
                let b = lin_depth(f, *rhs, ext, d)?;
                match (a.is_const(), b.is_const()) {
                    (_, true) => a.scale(b.k),
                    (true, false) => b.scale(a.k),
                    _ => Some(Lin::atom(v)),
                }
            }
            _ => Some(Lin::atom(v)),
        },
        InstKind::Cast {
            op: CastOp::SExt,
            value,
        } => lin_depth(f, *value, ext, d),
        _ => Some(Lin::atom(v)),
    }
}

/// The conditions (a conjunction) equivalent to `lhs pred rhs` being
/// `truth`, or `None` when that is not linear (`!=`, floats).
pub fn cmp_conds(
    f: &Function,
    pred: CmpPred,
    lhs: ValueId,
    rhs: ValueId,
    truth: bool,
) -> Option<Vec<Cond>> {
    use CmpPred::*;
    let pred = if truth {
        pred
    } else {
        match pred {
            Eq => Ne,
            Ne => Eq,
            Slt => Sge,
            Sle => Sgt,
            Sgt => Sle,
            Sge => Slt,
            Ult => Uge,
            Ule => Ugt,
            Ugt => Ule,
            Uge => Ult,
            _ => return None,
        }
    };
    let ext = match pred {
        Ult | Ule | Ugt | Uge => Ext::Unsigned,
        _ => Ext::Signed,
    };
    let a = lin(f, lhs, ext)?;
    let b = lin(f, rhs, ext)?;
    // `x >= 0` forms: b - a - 1 for a < b, and so on.
    let ge = |x: &Lin, y: &Lin, strict: bool| -> Option<Cond> {
        let mut d = x.add(y, -1)?;
        if strict {
            d.k = d.k.checked_sub(1)?;
        }
        Some(Cond { lin: d, ext })
    };
    Some(match pred {
        Slt | Ult => vec![ge(&b, &a, true)?],
        Sle | Ule => vec![ge(&b, &a, false)?],
        Sgt | Ugt => vec![ge(&a, &b, true)?],
        Sge | Uge => vec![ge(&a, &b, false)?],
        Eq => vec![ge(&a, &b, false)?, ge(&b, &a, false)?],
        _ => return None,
    })
}

/// Prints `lin >= 0` in C, solved for `pivot` when it occurs with
/// coefficient ±1 (`vstep <= x`, `x < width - vstep`), else as
/// `positive terms >= negative terms`. `name` spells an atom.
pub fn print_cond(c: &Cond, pivot: Option<ValueId>, name: &dyn Fn(ValueId) -> String) -> String {
    let l = &c.lin;
    if let Some(p) = pivot {
        match l.terms.get(&p).copied() {
            Some(1) => {
                // p + R >= 0  <=>  -R <= p
                let mut r = l.clone();
                r.terms.remove(&p);
                let neg = r.scale(-1).unwrap_or_default();
                return format!("{} <= {}", print_lin(&neg, name), name(p));
            }
            Some(-1) => {
                // R - p >= 0  <=>  p <= R  <=>  p < R + 1
                let mut r = l.clone();
                r.terms.remove(&p);
                if r.k == -1 || (r.k < 0 && !r.is_const()) {
                    let mut s = r.clone();
                    s.k += 1;
                    return format!("{} < {}", name(p), print_lin(&s, name));
                }
                return format!("{} <= {}", name(p), print_lin(&r, name));
            }
            _ => {}
        }
    }
    // Split into sides with positive coefficients.
    let mut lhs = Lin::constant(0);
    let mut rhs = Lin::constant(0);
    for (&v, &k) in &l.terms {
        if k > 0 {
            lhs.terms.insert(v, k);
        } else {
            rhs.terms.insert(v, -k);
        }
    }
    if l.k > 0 && !lhs.is_const() {
        lhs.k = l.k;
    } else if l.k < 0 && !rhs.is_const() {
        rhs.k = -l.k;
    } else if l.k > 0 {
        lhs.k = l.k;
    } else {
        rhs.k = -l.k;
    }
    // lhs >= rhs; prefer `rhs < lhs + 1` shapes only when it reads better.
    format!("{} >= {}", print_lin(&lhs, name), print_lin(&rhs, name))
}

/// `a + 2*b - c - 3`.
pub fn print_lin(l: &Lin, name: &dyn Fn(ValueId) -> String) -> String {
    let mut pos = Vec::new();
    let mut neg = Vec::new();
    for (&v, &k) in &l.terms {
        let n = name(v);
        let term = |k: i64| {
            if k == 1 {
                n.clone()
            } else {
                format!("{k} * {n}")
            }
        };
        if k > 0 {
            pos.push(term(k));
        } else {
            neg.push(term(-k));
        }
    }
    let mut s = String::new();
    for (i, p) in pos.iter().enumerate() {
        if i > 0 {
            s.push_str(" + ");
        }
        s.push_str(p);
    }
    for n in &neg {
        if s.is_empty() {
            s.push('-');
        } else {
            s.push_str(" - ");
        }
        s.push_str(n);
    }
    if l.k != 0 || s.is_empty() {
        if s.is_empty() {
            s = l.k.to_string();
        } else if l.k > 0 {
            s.push_str(&format!(" + {}", l.k));
        } else {
            s.push_str(&format!(" - {}", l.k.unsigned_abs()));
        }
    }
    s
}
