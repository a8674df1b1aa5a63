//! One lane of a value computed from a packed load, read again from memory.
//!
//! A lowering that runs once per lane (`atomic_per_lane`) needs each
//! lane's index and operands as scalars. Taken out of a vector register
//! they cost a `vmovd`/`vpextrd` each (two uops on Zen 3), and lanes 4-7
//! of a `ymm` more (`vextracti128` first). When the value is computed
//! lane-wise from a packed (unit-stride) load, with uniform or constant
//! other operands (`data[i] & 0xff`, `(x >> 8) + off`), lane `l` is
//! instead the scalar load of lane `l`'s element (lane 0's address plus
//! `l` elements) and the same operations on scalars: `and (load i32),
//! 255` becomes one `movzbl` from memory, as gcc's scalar loop does.
//!
//! Reading the element again is sound when nothing can have written it
//! since the vector load ([`FnGen::lane_chain`]):
//! - the load is in the block of the instruction that reads the lane,
//!   before it, with no barrier or collective between them, and no store,
//!   atomic or image write between them through a pointer of the load's
//!   address space or a generic one;
//! - the per-lane operation itself writes another address space than the
//!   load's (the histogram's `__local` bins, its `__global` data), and not
//!   a generic one; or the load is from `__constant` memory, which nothing
//!   writes. An `atomic_inc` on the `__global` buffer being read, or bins
//!   and data both `__local`, keep the extraction: lane 0's increment may
//!   be the element lane 1 reads.
//!
//! Another work-group writing the element concurrently (a `__global`
//! buffer) would be a data race, undefined in OpenCL C: the kernel reads
//! it without an atomic.
//!
//! Lane `l` is read only where lane `l` is active (in its branch of the
//! per-lane lowering), an element the masked vector load read too, so no
//! new memory is touched.

use std::collections::HashMap;

use inkwell::llvm_sys::LLVMOpcode as Op;
use inkwell::types::BasicTypeEnum;
use inkwell::values::BasicValueEnum;

use lanes_frontend::ast::AddressSpace;
use lanes_vectorizer::ir::{BinOp, BlockId, CastOp, InstId, InstKind, Ty, ValueId};

use super::{llty, FnGen};
use crate::ll::R;

/// Bound on the instructions of a chain followed back to its loads.
const MAX_CHAIN: usize = 16;

/// The packed load just emitted: lane 0's address, the element type and
/// size, and the access's alignment.
#[derive(Clone, Copy)]
pub(super) struct PackedLoad<'ctx> {
    pub p0: BasicValueEnum<'ctx>,
    pub elem: BasicTypeEnum<'ctx>,
    pub bytes: u64,
    pub align: u32,
}

/// A lane-wise computation from packed loads: its varying values in
/// definition order (loads first where they come first).
pub(super) struct LaneChain {
    values: Vec<ValueId>,
}

/// The address space `p` points into, if it is a pointer.
fn space_of(f: &lanes_vectorizer::ir::Function, p: ValueId) -> Option<AddressSpace> {
    match f.ty(p) {
        Ty::Ptr(s) => Some(s),
        _ => None,
    }
}

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// How lane `l` of `v` can be computed from memory at instruction `at`
    /// of block `b`, which writes address space `writes` once per lane
    /// (see the module comment for the rule), or `None` when it has to be
    /// extracted from the vector.
    pub(super) fn lane_chain(
        &self,
        b: BlockId,
        at: InstId,
        v: ValueId,
        writes: AddressSpace,
    ) -> Option<LaneChain> {
        let f = self.f;
        if !self.is_vec(v) {
            return None;
        }
        let insts = &f.block(b).insts;
        let at_pos = insts.iter().position(|&i| i == at)?;
        // Depth-first, emitting each value after its operands.
        let mut order: Vec<ValueId> = Vec::new();
        let mut stack: Vec<(ValueId, bool)> = vec![(v, false)];
        let mut loads = 0;
        while let Some((w, done)) = stack.pop() {
            if order.contains(&w) {
                continue;
            }
            if done {
                order.push(w);
                if order.len() > MAX_CHAIN {
                    return None;
                }
                continue;
            }
            let d = f.def_inst(w)?;
            let inst = f.inst(d);
            if inst.block != b {
                return None;
            }
            let operands: Vec<ValueId> = match &inst.kind {
                InstKind::Load { ptr, .. } => {
                    self.packed_loads.get(&w)?;
                    let pos = insts.iter().position(|&i| i == d)?;
                    if pos >= at_pos || !self.unwritten(b, pos, at_pos, *ptr, writes) {
                        return None;
                    }
                    loads += 1;
                    Vec::new()
                }
                InstKind::Bin { op, lhs, rhs }
                    if matches!(
                        op,
                        BinOp::Add
                            | BinOp::Sub
                            | BinOp::Mul
                            | BinOp::Shl
                            | BinOp::LShr
                            | BinOp::AShr
                            | BinOp::And
                            | BinOp::Or
                            | BinOp::Xor
                    ) && inst.ty.is_int() =>
                {
                    vec![*lhs, *rhs]
                }
                InstKind::Cast {
                    op: CastOp::ZExt | CastOp::SExt | CastOp::Trunc,
                    value,
                } if inst.ty.is_int() && f.ty(*value).is_int() => vec![*value],
                _ => return None,
            };
            stack.push((w, true));
            for o in operands.into_iter().filter(|&o| self.is_vec(o)) {
                stack.push((o, false));
            }
        }
        (loads > 0).then_some(LaneChain { values: order })
    }

    /// True when nothing between instructions `from` and `to` (positions
    /// in block `b`), nor the per-lane writes to `writes`, can write the
    /// memory the load through `ptr` read.
    fn unwritten(
        &self,
        b: BlockId,
        from: usize,
        to: usize,
        ptr: ValueId,
        writes: AddressSpace,
    ) -> bool {
        let f = self.f;
        let Some(read) = space_of(f, ptr) else {
            return false;
        };
        if matches!(read, AddressSpace::Private | AddressSpace::Generic) {
            return false;
        }
        if read == AddressSpace::Constant {
            return true;
        }
        if writes == read || writes == AddressSpace::Generic {
            return false;
        }
        f.block(b).insts[from + 1..to].iter().all(|&i| {
            let k = &f.inst(i).kind;
            let written = match k {
                InstKind::Store { ptr, .. } | InstKind::Atomic { ptr, .. } => space_of(f, *ptr),
                _ if k.is_work_group_sync() => return false,
                InstKind::ImageWrite { .. } | InstKind::Printf { .. } => return false,
                _ => return true,
            };
            !matches!(written, Some(s) if s == read || s == AddressSpace::Generic)
                && written.is_some()
        })
    }

    /// Lane `l` of the last value of `chain`, as a scalar: each load's
    /// element at lane 0's address plus `l` elements, and the operations
    /// after it on scalars.
    pub(super) fn lane_from_memory(
        &mut self,
        chain: &LaneChain,
        l: u64,
    ) -> R<BasicValueEnum<'ctx>> {
        let cx = self.cx;
        let f = self.f;
        let mut done: HashMap<ValueId, BasicValueEnum<'ctx>> = HashMap::new();
        for &w in &chain.values {
            let d = f
                .def_inst(w)
                .ok_or("lane chain value without a definition")?;
            let inst = f.inst(d);
            let operand = |s: &mut Self, o: ValueId| -> R<BasicValueEnum<'ctx>> {
                match done.get(&o) {
                    Some(&x) => Ok(x),
                    None if !s.is_vec(o) => s.get(o, false),
                    None => Err(format!("value %{} of a lane chain not computed", o.0)),
                }
            };
            let x = match inst.kind {
                InstKind::Load { .. } => {
                    let pl = *self
                        .packed_loads
                        .get(&w)
                        .ok_or("lane chain load not emitted packed")?;
                    let p = cx.gep_bytes(pl.p0, cx.i64c(l * pl.bytes))?;
                    cx.load(pl.elem, p, pl.align)?
                }
                InstKind::Bin { op, lhs, rhs } => {
                    let x = operand(self, lhs)?;
                    let y = operand(self, rhs)?;
                    let b = inst.block;
                    self.binary(b, op, inst.ty, x, y, rhs, false)?
                }
                InstKind::Cast { op, value } => {
                    let x = operand(self, value)?;
                    let code = match op {
                        CastOp::ZExt => Op::LLVMZExt,
                        CastOp::SExt => Op::LLVMSExt,
                        _ => Op::LLVMTrunc,
                    };
                    cx.cast(code, x, llty(cx, inst.ty, false)?)?
                }
                _ => return Err("lane chain through an unexpected instruction".into()),
            };
            done.insert(w, x);
        }
        let last = chain.values.last().ok_or("empty lane chain")?;
        done.get(last)
            .copied()
            .ok_or_else(|| "lane chain without a value".into())
    }
}
