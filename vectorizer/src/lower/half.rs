//! `vload_half*` / `vstore_half*`: `half` is a storage format, moved as
//! `i16` bits and converted with [`CastOp::HalfToFp`] / [`CastOp::FpToHalf`].

use lanes_frontend::ast::AddressSpace;
use lanes_frontend::builtins::{HalfAccess, Rounding};
use lanes_frontend::hir::Expr;

use super::expr::esrc;
use super::{Lowerer, Vals};
use crate::ir::{CastOp, CmpPred, InstKind, Src, Ty, ValueId};

impl Lowerer<'_> {
    /// `p + offset * stride` halves: the address of the first component.
    fn half_address(&mut self, e: &Expr, h: HalfAccess, off: &Expr, p: &Expr) -> ValueId {
        let src = esrc(e);
        let off = self.rvalue(off);
        let ptr = self.rvalue(p);
        let space = p.ty.pointee().map_or(AddressSpace::Private, |q| q.space);
        let off = self.first(&off, Ty::I64);
        let ptr = self.first(&ptr, Ty::Ptr(space));
        let bytes = self.scale_index(off, 2 * u64::from(h.stride()), false, src);
        self.ptr_add(ptr, bytes, src)
    }

    pub(super) fn vload_half(&mut self, e: &Expr, h: HalfAccess, args: &[Expr]) -> Vals {
        let src = esrc(e);
        let (Some(off), Some(p)) = (args.first(), args.get(1)) else {
            return self.undef_vals(&e.ty, e.span);
        };
        let base = self.half_address(e, h, off, p);
        (0..i64::from(h.n))
            .map(|c| {
                let p = self.ptr_offset(base, 2 * c, src);
                let bits = self.emit(InstKind::Load { ptr: p, align: 2 }, Ty::I16, src);
                self.cast(CastOp::HalfToFp, bits, Ty::F32, src)
            })
            .collect()
    }

    pub(super) fn vstore_half(&mut self, e: &Expr, h: HalfAccess, args: &[Expr]) -> Vals {
        let src = esrc(e);
        let (Some(data), Some(off), Some(p)) = (args.first(), args.get(1), args.get(2)) else {
            return Vec::new();
        };
        let fty = match data.ty.element() {
            Some(lanes_frontend::types::Scalar::Double) => Ty::F64,
            _ => Ty::F32,
        };
        let vals = self.rvalue(data);
        let base = self.half_address(e, h, off, p);
        for c in 0..h.n {
            let v = self.at(&vals, c as usize, fty);
            let bits = self.round_to_half(v, h.rounding, src);
            let p = self.ptr_offset(base, 2 * i64::from(c), src);
            self.emit_void(
                InstKind::Store {
                    ptr: p,
                    value: bits,
                    align: 2,
                },
                src,
            );
        }
        Vec::new()
    }

    /// The `half` bits of `v` rounded as `rounding` says (nearest even by
    /// default): the nearest value, stepped by one when it lies on the wrong
    /// side of `v`.
    fn round_to_half(&mut self, v: ValueId, rounding: Rounding, src: Src) -> ValueId {
        let r = self.cast(CastOp::FpToHalf, v, Ty::I16, src);
        if matches!(rounding, Rounding::Default | Rounding::Rte) {
            return r;
        }
        let fty = self.ty(v);
        let back = self.cast(CastOp::HalfToFp, r, fty, src);
        let gt = self.cmp(CmpPred::FOgt, back, v, src);
        let lt = self.cmp(CmpPred::FOlt, back, v, src);
        let z = self.const_float(0.0, fty);
        let pos = self.cmp(CmpPred::FOgt, v, z, src);
        let neg = self.cmp(CmpPred::FOlt, v, z, src);
        self.adjust_rounding(r, rounding, gt, lt, pos, neg, src)
    }
}
