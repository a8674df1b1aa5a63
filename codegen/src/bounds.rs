//! Which bytes of its buffer arguments a kernel can touch, as expressions
//! the Rust bindings evaluate before a launch (docs/rust.md).
//!
//! A buffer is *bounded* when every use of its pointer is an access (load,
//! store, atomic) at `base + offset`, where the byte offset is built from
//! integer constants, the kernel's integer scalar arguments,
//! `get_global_id`, `get_global_size` and `get_global_offset` by `+`, `-`,
//! `*`, `<<` by a constant, `?:`, integer `min`/`max` and integer
//! conversions. Evaluated with
//! intervals over the work-items of a range, such an offset bounds every
//! byte the kernel can reach, guards or not (a guard only makes the bound
//! larger than needed). Anything else (an index loaded from memory or
//! carried around a loop, a pointer chosen by `?:` or stored away) leaves
//! the buffer unbounded, and the binding unsafe.

use std::collections::HashMap;

use lanes_vectorizer::ir::{
    BinOp, CastOp, Const, Function, InstKind, MathFn, Ty, ValueDef, ValueId, WorkItem,
};

/// An integer expression of the IR, over the work-items of a range.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(i128),
    /// The scalar kernel argument with this source index, read as an
    /// integer of `bits` (its IR type; two's complement).
    Arg {
        source: u32,
        bits: u32,
    },
    GlobalId(u32),
    GlobalSize(u32),
    GlobalOffset(u32),
    /// `+`, `-`, `*` in an integer type of `bits`: every value must fit
    /// the type (the back end wraps; the check refuses instead).
    Add(u32, Box<Expr>, Box<Expr>),
    Sub(u32, Box<Expr>, Box<Expr>),
    Mul(u32, Box<Expr>, Box<Expr>),
    /// Either value (`?:`).
    Either(Box<Expr>, Box<Expr>),
    /// Integer `min`/`max` (`unsigned`: of unsigned values, which must then
    /// not be negative as signed ones).
    Min {
        unsigned: bool,
        a: Box<Expr>,
        b: Box<Expr>,
    },
    Max {
        unsigned: bool,
        a: Box<Expr>,
        b: Box<Expr>,
    },
    /// Zero extension: the same value when it is not negative.
    ZExt(Box<Expr>),
    /// Truncation to `bits`: the same value when it fits.
    Trunc(u32, Box<Expr>),
}

/// One access of a buffer: `bytes` bytes at byte `offset` from its start.
#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    pub offset: Expr,
    pub bytes: u64,
    pub write: bool,
}

/// What the kernel does with one pointer argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Buffer {
    /// Every use is one of these accesses (none: the kernel never uses it).
    Bounded(Vec<Access>),
    /// Some use is not understood: why, and whether the kernel may write.
    Unbounded { reason: String, may_write: bool },
}

impl Buffer {
    pub fn written(&self) -> bool {
        match self {
            Buffer::Bounded(a) => a.iter().any(|a| a.write),
            Buffer::Unbounded { may_write, .. } => *may_write,
        }
    }
}

/// What the accesses of a kernel say about its buffers.
#[derive(Clone, Debug, PartialEq)]
pub struct Bounds {
    /// Per pointer argument, by source index.
    pub buffers: HashMap<u32, Buffer>,
    /// An access through a pointer that comes from no argument and is not
    /// the kernel's own memory (private, `__local`, `__constant` data).
    pub stray: Option<String>,
}

/// Largest expression followed per access; beyond it the buffer counts as
/// unbounded (index expressions of real kernels have a few dozen nodes).
const MAX_NODES: usize = 256;

/// Where a pointer value comes from.
#[derive(Clone, Debug)]
enum Origin {
    /// Argument `source` plus a byte offset (`None`: not understood, why).
    Arg(u32, Result<Expr, String>),
    /// Private, `__local` or program-scope `__constant` memory.
    Own,
    Unknown(String),
}

struct Walk<'a> {
    f: &'a Function,
    /// IR values of the function's integer scalar arguments: source index.
    int_args: HashMap<u32, u32>,
}

fn signed(bits_value: u64, bits: u32) -> i128 {
    if bits >= 64 {
        bits_value as i64 as i128
    } else {
        let shift = 64 - bits;
        ((bits_value << shift) as i64 >> shift) as i128
    }
}

impl Walk<'_> {
    fn expr(&self, v: ValueId, nodes: &mut usize) -> Result<Expr, String> {
        *nodes += 1;
        if *nodes > MAX_NODES {
            return Err("its index expression is too large to follow".into());
        }
        let value = self.f.value(v);
        let bits = value.ty.bits();
        match &value.def {
            ValueDef::Const(Const::Int(x, t)) if t.is_int() && *t != Ty::I1 => {
                Ok(Expr::Const(signed(*x, t.bits())))
            }
            ValueDef::Param(i) => match self.int_args.get(i) {
                Some(&source) => Ok(Expr::Arg { source, bits }),
                None => Err("its index depends on an argument that is not an integer".into()),
            },
            ValueDef::Inst(id) => {
                let inst = self.f.inst(*id);
                let mut sub = |v: ValueId| self.expr(v, nodes).map(Box::new);
                match &inst.kind {
                    InstKind::Bin { op, lhs, rhs } if inst.ty.is_int() && inst.ty != Ty::I1 => {
                        match op {
                            BinOp::Add => Ok(Expr::Add(bits, sub(*lhs)?, sub(*rhs)?)),
                            BinOp::Sub => Ok(Expr::Sub(bits, sub(*lhs)?, sub(*rhs)?)),
                            BinOp::Mul => Ok(Expr::Mul(bits, sub(*lhs)?, sub(*rhs)?)),
                            BinOp::Shl => match self.f.value(*rhs).def {
                                ValueDef::Const(Const::Int(k, _)) if (k as u32) < bits - 1 => Ok(
                                    Expr::Mul(bits, sub(*lhs)?, Box::new(Expr::Const(1i128 << k))),
                                ),
                                _ => Err("its index is shifted by a variable amount".into()),
                            },
                            _ => Err(format!(
                                "its index uses `{}`, which the check does not follow",
                                op.name()
                            )),
                        }
                    }
                    InstKind::Math { func, args } if args.len() == 2 && inst.ty.is_int() => {
                        let (a, b) = (sub(args[0])?, sub(args[1])?);
                        match func {
                            MathFn::SMin => Ok(Expr::Min { unsigned: false, a, b }),
                            MathFn::UMin => Ok(Expr::Min { unsigned: true, a, b }),
                            MathFn::SMax => Ok(Expr::Max { unsigned: false, a, b }),
                            MathFn::UMax => Ok(Expr::Max { unsigned: true, a, b }),
                            _ => Err("its index is computed by a built-in function the check does not follow".into()),
                        }
                    }
                    InstKind::Select { then, els, .. } if inst.ty.is_int() => {
                        // Vector IR selects `undef` for lanes that are off
                        // wherever the value is used: it is never an index.
                        let undef = |v: ValueId| {
                            matches!(self.f.value(v).def, ValueDef::Const(Const::Undef(_)))
                        };
                        match (undef(*then), undef(*els)) {
                            (true, false) => self.expr(*els, nodes),
                            (false, true) => self.expr(*then, nodes),
                            _ => Ok(Expr::Either(sub(*then)?, sub(*els)?)),
                        }
                    }
                    InstKind::Cast { op, value: x } if self.f.value(*x).ty != Ty::I1 => match op {
                        CastOp::SExt => self.expr(*x, nodes),
                        CastOp::ZExt => Ok(Expr::ZExt(sub(*x)?)),
                        CastOp::Trunc => Ok(Expr::Trunc(bits, sub(*x)?)),
                        _ => Err("its index is converted from a non-integer".into()),
                    },
                    InstKind::WorkItem {
                        query,
                        dim: Some(d),
                    } => {
                        let ValueDef::Const(Const::Int(d, _)) = self.f.value(*d).def else {
                            return Err(
                                "its index uses a work-item query with a variable dimension".into(),
                            );
                        };
                        let d = d.min(3) as u32;
                        match query {
                            WorkItem::GlobalId => Ok(Expr::GlobalId(d)),
                            WorkItem::GlobalSize => Ok(Expr::GlobalSize(d)),
                            WorkItem::GlobalOffset => Ok(Expr::GlobalOffset(d)),
                            q => Err(format!(
                                "its index uses `get_{}`, which the check does not follow",
                                format!("{q:?}").to_lowercase()
                            )),
                        }
                    }
                    InstKind::Phi { .. } => {
                        Err("its index changes around a loop (or is merged after a branch)".into())
                    }
                    InstKind::Load { .. } => Err("its index is read from memory".into()),
                    _ => Err("its index is computed in a way the check does not follow".into()),
                }
            }
            _ => Err("its index is computed in a way the check does not follow".into()),
        }
    }

    fn origin(&self, v: ValueId, depth: u32) -> Origin {
        if depth > 64 {
            return Origin::Unknown("a pointer built too deeply".into());
        }
        match &self.f.value(v).def {
            ValueDef::Param(i) => match self.f.params.get(*i as usize) {
                Some(p) if matches!(p.ty, Ty::Ptr(_)) => {
                    Origin::Arg(p.source_index, Ok(Expr::Const(0)))
                }
                _ => Origin::Unknown("a pointer made from a non-pointer argument".into()),
            },
            ValueDef::Global(_) | ValueDef::Local(_) => Origin::Own,
            ValueDef::Const(_) => Origin::Unknown("a constant pointer".into()),
            ValueDef::Inst(id) => {
                let inst = self.f.inst(*id);
                match &inst.kind {
                    InstKind::Alloca { .. } => Origin::Own,
                    InstKind::PtrAdd { base, offset } => match self.origin(*base, depth + 1) {
                        Origin::Arg(s, Ok(e)) => {
                            let mut nodes = 0;
                            let off = self.expr(*offset, &mut nodes);
                            Origin::Arg(s, off.map(|o| Expr::Add(64, Box::new(e), Box::new(o))))
                        }
                        o => o,
                    },
                    InstKind::Cast {
                        op: CastOp::PtrCast,
                        value,
                    } => self.origin(*value, depth + 1),
                    InstKind::Select { then, els, .. } => {
                        let a = self.origin(*then, depth + 1);
                        let b = self.origin(*els, depth + 1);
                        match (a, b) {
                            (Origin::Own, Origin::Own) => Origin::Own,
                            (Origin::Arg(s, _), _) | (_, Origin::Arg(s, _)) => {
                                Origin::Arg(s, Err("the pointer is chosen by `?:`".into()))
                            }
                            _ => Origin::Unknown("a pointer chosen by `?:`".into()),
                        }
                    }
                    InstKind::Phi { incoming } => {
                        let arg =
                            incoming
                                .iter()
                                .find_map(|&(_, x)| match self.origin(x, depth + 1) {
                                    Origin::Arg(s, _) => Some(s),
                                    _ => None,
                                });
                        match arg {
                            Some(s) => Origin::Arg(
                                s,
                                Err("the pointer is advanced around a loop (or merged after a branch)".into()),
                            ),
                            None => Origin::Unknown("a pointer merged from several places".into()),
                        }
                    }
                    _ => Origin::Unknown(
                        "a pointer computed from an integer or read from memory".into(),
                    ),
                }
            }
        }
    }
}

/// The accesses of every pointer argument of `f` (a kernel's IR, scalar or
/// vector: both have the same accesses); `scalar_args` are the source
/// indices of its scalar (not vector or struct) arguments.
pub fn bounds(f: &Function, scalar_args: &[u32]) -> Bounds {
    let mut int_args = HashMap::new();
    let mut buffers: HashMap<u32, Buffer> = HashMap::new();
    for (i, p) in f.params.iter().enumerate() {
        if p.ty.is_int() && p.ty != Ty::I1 && scalar_args.contains(&p.source_index) {
            int_args.insert(i as u32, p.source_index);
        }
        if matches!(p.ty, Ty::Ptr(_)) {
            buffers.insert(p.source_index, Buffer::Bounded(Vec::new()));
        }
    }
    let w = Walk { f, int_args };
    let mut stray = None;
    let mut access =
        |buffers: &mut HashMap<u32, Buffer>, ptr: ValueId, bytes: u64, write: bool| match w
            .origin(ptr, 0)
        {
            Origin::Own => {}
            Origin::Unknown(why) => {
                stray.get_or_insert(format!("the kernel accesses memory through {why}"));
            }
            Origin::Arg(s, off) => {
                let entry = buffers.entry(s).or_insert(Buffer::Bounded(Vec::new()));
                match (entry, off) {
                    (Buffer::Bounded(list), Ok(offset)) => list.push(Access {
                        offset,
                        bytes,
                        write,
                    }),
                    (e @ Buffer::Bounded(_), Err(reason)) => {
                        let may_write = e.written() || write;
                        *e = Buffer::Unbounded { reason, may_write };
                    }
                    (Buffer::Unbounded { may_write, .. }, _) => *may_write |= write,
                }
            }
        };
    let mut escapes: Vec<(ValueId, &str)> = Vec::new();
    for b in f.block_ids() {
        for &i in &f.block(b).insts {
            let inst = f.inst(i);
            match &inst.kind {
                InstKind::Load { ptr, .. } => access(&mut buffers, *ptr, inst.ty.bytes(), false),
                InstKind::Store { ptr, value, .. } => {
                    access(&mut buffers, *ptr, f.value(*value).ty.bytes(), true);
                    escapes.push((*value, "the pointer is stored to memory"));
                }
                InstKind::Atomic { ptr, args, .. } => {
                    let bytes = args
                        .iter()
                        .map(|&a| f.value(a).ty.bytes())
                        .chain([inst.ty.bytes()])
                        .max()
                        .unwrap_or(0);
                    access(&mut buffers, *ptr, bytes, true);
                }
                // Followed from the accesses; comparing pointers reads nothing.
                InstKind::PtrAdd { .. }
                | InstKind::Cast {
                    op: CastOp::PtrCast,
                    ..
                }
                | InstKind::Cmp { .. } => {}
                InstKind::Select { .. } | InstKind::Phi { .. } => inst.kind.for_each_operand(|v| {
                    escapes.push((v, "the pointer is chosen by `?:` or advanced around a loop"))
                }),
                InstKind::Cast { value, .. } => {
                    escapes.push((*value, "the pointer is converted to an integer"))
                }
                k => k.for_each_operand(|v| {
                    escapes.push((v, "the pointer is passed to a built-in function"))
                }),
            }
        }
    }
    // A pointer argument that leaves the accesses above (stored, turned into
    // an integer, given to printf) may be used anywhere.
    for (v, why) in escapes {
        if !matches!(f.value(v).ty, Ty::Ptr(_)) {
            continue;
        }
        if let Origin::Arg(s, _) = w.origin(v, 0) {
            buffers.insert(
                s,
                Buffer::Unbounded {
                    reason: why.into(),
                    may_write: true,
                },
            );
        }
    }
    Bounds { buffers, stray }
}
