//! Software prefetch of the work-groups ahead, in kernels whose work-groups
//! run one after another (bodies with barriers or `__local` memory) and in
//! stencils.
//!
//! reduction's work-group reads its 512 floats as two streams, each SIMD
//! group 8 floats of the first 1 KiB and 8 of the second, and then spends
//! most of its time in the tree over `__local` memory. The hardware
//! prefetchers followed neither stream: the kernel read 7 GB/s of a
//! machine's 40, and was slower than gcc's scalar loop (9.2 ms against
//! 7.0) while in the cache it is 2.4 times faster (bench/RESULTS.md,
//! 2026-11-28). A C loop of the same shape runs 2.5 to 3 times faster with
//! one `prefetcht0` per load, [`DISTANCE`] bytes ahead in the direction the
//! work-groups walk (bench/experiments/prefetch). Stencils without
//! barriers (jacobi_2d, sobel: an argument read at several addresses, the
//! rows above and below) run row by row, and read 3 to 6 streams at once;
//! they were 20-25% faster with the prefetches, where stream_triad, one
//! address per argument, was not faster and is left alone.
//!
//! The rule, decided per packed load (lane `k` reads the element after lane
//! `k - 1`'s) from `__global` or `__constant` memory: lane 0's address in
//! work-group `g + 1` of dimension 0 (the next one the entry point runs)
//! less its address in work-group `g` is `S`, the stride of the stream the
//! load walks. It is the difference of the address's expression in the
//! vector IR, term by term: 1 for the group id of dimension 0, the local
//! size for the global id, sums, products by and shifts by values that do
//! not depend on the group id, widenings, pointer offsets, and selects on
//! conditions that do not depend on it; so it is a constant where the
//! address is an affine function of the group id with constant factors,
//! and at most a value of the launch elsewhere. An address that reaches
//! the group id through anything else (a load, a φ, a division, a call)
//! gets no prefetch. Widenings ignore wrap-around: a prefetch is a hint
//! and never faults, so a wrong address costs the instruction and nothing
//! else, as does one past the end of a buffer in the last work-groups.
//! Values kept across barriers are followed in the vector IR, where they
//! are values, not the save-area loads they are emitted as.
//!
//! The prefetch reads `S` ahead when `|S|` is at least [`DISTANCE`], else
//! `S` times the power of two that takes it to [`DISTANCE`] or just past
//! it (less than twice): the same element of a later work-group.
//!
//! Kernels whose bands of work-groups run global row by global row (no
//! barriers, loops or work-group memory; `abi.rs`) step along the rows
//! instead: `S` is the difference between a work-item and the one below it
//! (global or local id 1 plus one), so a stencil's load of row `i + 1`
//! prefetches row `i + 2` at the same column, one row (or the power-of-two
//! multiple of it that reaches [`DISTANCE`]) before the walk gets there.
//! Only the loads whose next row no load reads now, and no other prefetch
//! covers within a cache line, prefetch ([`leading_rows`]): jacobi_2d's
//! five loads make one prefetch. jacobi_2d's row loop in C over 4096 x
//! 4096 (bench/RESULTS.md, 2026-11-28) ran 4.5 ms, 3.4 ms with that
//! prefetch (or one 4 KiB along row `i + 1`), 3.8-3.9 ms with one per
//! load, and with streaming stores 2.0-2.1 ms (2.8 with the prefetch 4 KiB
//! along the row). An address that does not move with the row (a 1-D
//! launch) steps along the work-groups of dimension 0 as above.

use std::collections::{BTreeMap, HashMap, HashSet};

use inkwell::llvm_sys::LLVMOpcode as Op;
use inkwell::values::BasicValueEnum;

use lanes_frontend::ast::AddressSpace;
use lanes_vectorizer::cfg::Cfg;
use lanes_vectorizer::ir::{
    BinOp, CastOp, Const, Function, InstId, InstKind, Ty, ValueDef, ValueId, WorkItem,
};
use lanes_vectorizer::shape::Shape;
use lanes_vectorizer::vectorize::VectorFunction;

use super::{geo, mem_ty, FnGen};
use crate::ll::R;

/// How far ahead of a load its prefetch reads, in bytes (a power of two):
/// 4 KiB was the best of 2, 4, 6 and 8 KiB in the C model of reduction on
/// AMD EPYC.
pub const DISTANCE: u64 = 4096;

/// Values the address of one load may take to follow back to the group
/// id; a longer chain gets no prefetch.
const MAX_TERMS: usize = 256;

/// Why an address's stride is not known: it reaches the group id through
/// something other than the terms above, or too long a chain.
struct Opaque;

/// Lane 0's difference between two steps of the walk of each value
/// followed, as an `i64` (`None`: 0, the value does not depend on the step).
type Differences<'ctx> = HashMap<ValueId, Option<BasicValueEnum<'ctx>>>;

/// The step of the walk over the NDRange whose difference in a load's
/// address is the stream the load walks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Step {
    /// The next work-group of dimension 0 (work-groups run one after
    /// another).
    Group,
    /// The next row of work-items (global id 1 plus one): bands of
    /// work-groups run global row by global row.
    Row,
}

/// The loads that prefetch, and the step they prefetch along.
pub(super) struct Plan {
    pub loads: HashSet<InstId>,
    pub step: Step,
}

/// The loads of `vf` that prefetch the work-groups ahead, when `on` (the
/// body runs its work-groups one after another, or it is a stencil that
/// runs them row by row): packed loads from
/// `__global` or `__constant` memory outside every loop. A load in a loop
/// walks a stream of its own within the work-item, which the hardware
/// follows; matmul_tiled, whose `B` tile loads in its loop over tiles would
/// prefetch rows it reads anyway, was 16% slower with them.
pub(super) fn plan(vf: &VectorFunction, on: bool, step: Step) -> Plan {
    let mut out = HashSet::new();
    if !on {
        return Plan { loads: out, step };
    }
    let f = &vf.func;
    let cfg = Cfg::compute(f);
    for (k, inst) in f.insts.iter().enumerate() {
        let (InstKind::Load { ptr, .. }, Some(v)) = (&inst.kind, inst.result) else {
            continue;
        };
        let ty = f.ty(v);
        let packed = matches!(vf.shape(*ptr), Shape::Strided { stride, .. }
            if stride > 0 && stride as u64 == mem_ty(ty).bytes());
        let memory = matches!(
            f.ty(*ptr),
            Ty::Ptr(AddressSpace::Global | AddressSpace::Constant)
        );
        if packed && memory && ty != Ty::I1 && cfg.loop_of(inst.block).is_none() {
            out.insert(InstId(k as u32));
        }
    }
    if step == Step::Row {
        out = leading_rows(f, out);
    }
    Plan { loads: out, step }
}

/// An address as a polynomial in the values it is computed from: each
/// product of values (sorted; the empty product is the constant term) with
/// its coefficient, in bytes.
type Poly = BTreeMap<Vec<ValueId>, i64>;

/// Products a polynomial may have before it is not followed.
const MAX_PRODUCTS: usize = 16;

/// `v` as a polynomial, through sums, differences, products, shifts by
/// constants, integer casts (wrap-around ignored, as the prefetch is a hint)
/// and pointer offsets; `None` when it grows past [`MAX_PRODUCTS`].
fn poly(f: &Function, v: ValueId, depth: u32) -> Option<Poly> {
    if let Some(k) = super::strided::int_const(f, v) {
        return Some(Poly::from([(Vec::new(), k)]));
    }
    let atom = Poly::from([(vec![v], 1)]);
    let Some(d) = f.def_inst(v).filter(|_| depth > 0) else {
        return Some(atom);
    };
    let sub = |x: ValueId| poly(f, x, depth - 1);
    let r = match &f.inst(d).kind {
        InstKind::PtrAdd { base: a, offset: b }
        | InstKind::Bin {
            op: BinOp::Add,
            lhs: a,
            rhs: b,
        } => add(sub(*a)?, &sub(*b)?, 1),
        InstKind::Bin {
            op: BinOp::Sub,
            lhs,
            rhs,
        } => add(sub(*lhs)?, &sub(*rhs)?, -1),
        InstKind::Bin {
            op: BinOp::Mul,
            lhs,
            rhs,
        } => mul(&sub(*lhs)?, &sub(*rhs)?),
        InstKind::Bin {
            op: BinOp::Shl,
            lhs,
            rhs,
        } => match f.as_const(*rhs) {
            Some(Const::Int(k @ 0..=32, _)) => {
                mul(&sub(*lhs)?, &Poly::from([(Vec::new(), 1 << k)]))
            }
            _ => Some(atom),
        },
        InstKind::Cast {
            op:
                CastOp::SExt
                | CastOp::ZExt
                | CastOp::Trunc
                | CastOp::PtrToInt
                | CastOp::IntToPtr
                | CastOp::PtrCast,
            value,
        } => sub(*value),
        _ => Some(atom),
    }?;
    (r.len() <= MAX_PRODUCTS).then_some(r)
}

fn add(mut a: Poly, b: &Poly, sign: i64) -> Option<Poly> {
    for (m, c) in b {
        let e = a.entry(m.clone()).or_insert(0);
        *e = e.checked_add(c.checked_mul(sign)?)?;
        if *e == 0 {
            a.remove(m);
        }
    }
    Some(a)
}

fn mul(a: &Poly, b: &Poly) -> Option<Poly> {
    let mut out = Poly::new();
    for (ma, ca) in a {
        for (mb, cb) in b {
            let mut m: Vec<ValueId> = ma.iter().chain(mb).copied().collect();
            m.sort();
            add_term(&mut out, m, ca.checked_mul(*cb)?)?;
        }
    }
    (out.len() <= MAX_PRODUCTS).then_some(out)
}

fn add_term(p: &mut Poly, m: Vec<ValueId>, c: i64) -> Option<()> {
    let e = p.entry(m.clone()).or_insert(0);
    *e = e.checked_add(c)?;
    if *e == 0 {
        p.remove(&m);
    }
    Some(())
}

/// True for the global or local id of dimension 1: one more in the next
/// row of work-items.
fn is_row_id(f: &Function, v: ValueId) -> bool {
    f.def_inst(v).is_some_and(|d| {
        matches!(&f.inst(d).kind, InstKind::WorkItem {
            query: WorkItem::GlobalId | WorkItem::LocalId,
            dim: Some(dim),
        } if matches!(f.as_const(*dim), Some(Const::Int(1, _))))
    })
}

/// What `p` grows by from one row of work-items to the next: the
/// polynomial that multiplies the row id (`None` when it multiplies
/// itself, or is 0 when `p` does not depend on the row).
fn row_step(f: &Function, p: &Poly) -> Option<Poly> {
    let mut d = Poly::new();
    for (m, c) in p {
        let rows: Vec<usize> = (0..m.len()).filter(|&k| is_row_id(f, m[k])).collect();
        match rows[..] {
            [] => {}
            [k] => {
                let mut rest = m.clone();
                rest.remove(k);
                add_term(&mut d, rest, *c)?;
            }
            _ => return None,
        }
    }
    Some(d)
}

/// True when `a` and `b` differ by a constant smaller than a cache line.
fn same_line(a: &Poly, b: &Poly) -> bool {
    match add(a.clone(), b, -1) {
        Some(d) => d
            .iter()
            .all(|(m, c)| m.is_empty() && c.unsigned_abs() < LINE),
        None => false,
    }
}

/// Bytes in a cache line.
const LINE: u64 = 64;

/// Of a stencil's loads that prefetch the next row, those whose next-row
/// address no other load reads now and no other prefetch covers (within a
/// line): jacobi_2d's rows `i - 1`, `i` and `i + 1` would prefetch rows
/// `i`, `i + 1` and `i + 2`, of which only the last is not in the cache
/// already (bench/RESULTS.md: one prefetch per SIMD group, 3.5 → 3.3 ms,
/// against five). Loads whose address is not followed keep theirs.
fn leading_rows(f: &Function, loads: HashSet<InstId>) -> HashSet<InstId> {
    let mut ids: Vec<InstId> = loads.iter().copied().collect();
    ids.sort();
    let addresses: Vec<Option<Poly>> = ids
        .iter()
        .map(|&i| match &f.inst(i).kind {
            InstKind::Load { ptr, .. } => poly(f, *ptr, 24),
            _ => None,
        })
        .collect();
    let now: Vec<&Poly> = addresses.iter().flatten().collect();
    let mut ahead: Vec<Poly> = Vec::new();
    let mut out = HashSet::new();
    for (i, address) in ids.into_iter().zip(&addresses) {
        let next = address.clone().and_then(|p| {
            let d = row_step(f, &p)?;
            (!d.is_empty()).then(|| add(p, &d, 1)).flatten()
        });
        match next {
            Some(t) => {
                if !now.iter().copied().chain(&ahead).any(|q| same_line(q, &t)) {
                    ahead.push(t);
                    out.insert(i);
                }
            }
            None => {
                out.insert(i);
            }
        }
    }
    out
}

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// Prefetches the bytes the packed load through `ptr`, from lane 0's
    /// address `p0`, reads in the work-groups ahead (see the module's
    /// comment); nothing when its stride is not known.
    pub(super) fn prefetch_ahead(&mut self, ptr: ValueId, p0: BasicValueEnum<'ctx>) -> R<()> {
        let cx = self.cx;
        let i64t = cx.ctx.i64_type();
        let mut row = Ok(None);
        if self.prefetched.step == Step::Row {
            row = self.difference(ptr, Step::Row, &mut HashMap::new());
        }
        // An address that does not move with the row (a 1-D launch) walks
        // along the work-groups of dimension 0 instead.
        let along = match row {
            Ok(Some(d)) => Ok(Some(d)),
            _ => self.difference(ptr, Step::Group, &mut HashMap::new()),
        };
        let stride = match along {
            Ok(Some(d)) => cx.freeze(d)?,
            // The same address in every work-group, or one whose stride is
            // not known: the hardware's prefetchers, or nothing, do better.
            Ok(None) | Err(Opaque) => return Ok(()),
        };
        // `S` shifted left until it is at least `DISTANCE` (`DISTANCE` is
        // 2^12): by 12 - floor(log2 |S|) bits, none when `|S|` is larger.
        // No division: it would stay in the loop over SIMD groups, since
        // LLVM does not hoist a division by a value it cannot see is not 0.
        let size = cx.intrinsic("llvm.abs", &[i64t.into()], &[stride, cx.boolc(false)])?;
        let zeros = cx.intrinsic("llvm.ctlz", &[i64t.into()], &[size, cx.boolc(false)])?;
        let log2 = DISTANCE.trailing_zeros() as u64;
        let shift = cx.intrinsic(
            "llvm.usub.sat",
            &[i64t.into()],
            &[zeros, cx.i64c(63 - log2)],
        )?;
        let offset = cx.binop(Op::LLVMShl, stride, shift)?;
        let p = cx.gep_bytes(p0, offset)?;
        // Read, keep in every cache level (`prefetcht0`), data.
        cx.intrinsic_void(
            "llvm.prefetch",
            &[p.get_type()],
            &[p, cx.i32c(0), cx.i32c(3), cx.i32c(1)],
        )
    }

    /// Lane 0's value of `v` as an `i64` (sign-extended).
    fn lane0_i64(&mut self, v: ValueId) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let x = if self.is_vec(v) {
            let x = self.get(v, true)?;
            cx.extract(x, 0)?
        } else {
            self.get(v, false)?
        };
        let bits = self.f.ty(v).bits();
        match bits {
            64 => Ok(x),
            b if b < 64 => cx.cast(Op::LLVMSExt, x, cx.ctx.i64_type().into()),
            _ => Err(format!("an integer of {bits} bits")),
        }
    }

    /// Lane 0's difference of `v` between two steps `step` apart.
    fn difference(
        &mut self,
        v: ValueId,
        step: Step,
        done: &mut Differences<'ctx>,
    ) -> Result<Option<BasicValueEnum<'ctx>>, Opaque> {
        if let Some(&d) = done.get(&v) {
            return Ok(d);
        }
        let ValueDef::Inst(i) = self.f.values[v.index()].def else {
            return Ok(None);
        };
        if done.len() >= MAX_TERMS {
            return Err(Opaque);
        }
        let cx = self.cx;
        let f = self.f;
        let i64t = cx.ctx.i64_type();
        let e = |r: R<BasicValueEnum<'ctx>>| r.map_err(|_| Opaque);
        let mut diff = |g: &mut Self, x: ValueId| g.difference(x, step, done);
        let d = match f.inst(i).kind.clone() {
            InstKind::WorkItem { query, dim } => {
                let dim = match dim.map(|d| f.as_const(d)) {
                    Some(Some(Const::Int(k, _))) => Some(k),
                    Some(_) => return Err(Opaque),
                    None => None,
                };
                match (step, query, dim) {
                    (Step::Group, WorkItem::GroupId, Some(0)) => Some(cx.i64c(1)),
                    (Step::Group, WorkItem::GlobalId, Some(0)) => {
                        Some(self.geo[geo::LOCAL as usize])
                    }
                    // The next row within the work-group (its last row's
                    // next is the band's next, the same formula from
                    // the global id).
                    (Step::Row, WorkItem::GlobalId | WorkItem::LocalId, Some(1)) => {
                        Some(cx.i64c(1))
                    }
                    _ => None,
                }
            }
            InstKind::Bin { op, lhs, rhs } => {
                let (a, b) = (diff(self, lhs)?, diff(self, rhs)?);
                match (op, a, b) {
                    (_, None, None) => None,
                    (BinOp::Add, a, b) => Some(match (a, b) {
                        (Some(a), Some(b)) => e(cx.binop(Op::LLVMAdd, a, b))?,
                        (Some(x), None) | (None, Some(x)) => x,
                        _ => unreachable!(),
                    }),
                    (BinOp::Sub, a, b) => {
                        let a = a.unwrap_or(cx.i64c(0));
                        let b = b.unwrap_or(cx.i64c(0));
                        Some(e(cx.binop(Op::LLVMSub, a, b))?)
                    }
                    (BinOp::Mul, Some(a), None) => {
                        let k = e(self.lane0_i64(rhs))?;
                        Some(e(cx.binop(Op::LLVMMul, a, k))?)
                    }
                    (BinOp::Mul, None, Some(b)) => {
                        let k = e(self.lane0_i64(lhs))?;
                        Some(e(cx.binop(Op::LLVMMul, k, b))?)
                    }
                    (BinOp::Shl, Some(a), None) => {
                        let k = e(self.lane0_i64(rhs))?;
                        Some(e(cx.binop(Op::LLVMShl, a, k))?)
                    }
                    _ => return Err(Opaque),
                }
            }
            InstKind::Cast { op, value } => match op {
                CastOp::SExt
                | CastOp::ZExt
                | CastOp::Trunc
                | CastOp::PtrToInt
                | CastOp::IntToPtr
                | CastOp::PtrCast => diff(self, value)?,
                _ => {
                    self.opaque_if_dependent(value, step, done)?;
                    None
                }
            },
            InstKind::PtrAdd { base, offset } => match (diff(self, base)?, diff(self, offset)?) {
                (Some(a), Some(b)) => Some(e(cx.binop(Op::LLVMAdd, a, b))?),
                (Some(x), None) | (None, Some(x)) => Some(x),
                (None, None) => None,
            },
            InstKind::Select { cond, then, els } => {
                if diff(self, cond)?.is_some() {
                    return Err(Opaque);
                }
                match (diff(self, then)?, diff(self, els)?) {
                    (None, None) => None,
                    (a, b) => {
                        let c = if self.is_vec(cond) {
                            let m = e(self.get(cond, true))?;
                            e(cx.extract(m, 0))?
                        } else {
                            e(self.get(cond, false))?
                        };
                        let a = a.unwrap_or(i64t.const_zero().into());
                        let b = b.unwrap_or(i64t.const_zero().into());
                        Some(e(cx.select(c, a, b))?)
                    }
                }
            }
            kind => {
                done.insert(v, None);
                for o in kind.operands() {
                    self.opaque_if_dependent(o, step, done)?;
                }
                None
            }
        };
        done.insert(v, d);
        Ok(d)
    }

    /// `Err` when `v` depends on the step: reached through a value whose
    /// difference is not followed.
    fn opaque_if_dependent(
        &mut self,
        v: ValueId,
        step: Step,
        done: &mut Differences<'ctx>,
    ) -> Result<(), Opaque> {
        match self.difference(v, step, done)? {
            Some(_) => Err(Opaque),
            None => Ok(()),
        }
    }
}
