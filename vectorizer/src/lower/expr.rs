//! Expressions: values, places (lvalues), conversions, operators, and the
//! branching forms of conditions.

use lanes_frontend::ast::AddressSpace;
use lanes_frontend::hir::{
    BinaryOp, ConstInit, ConstValue, ConvertKind, Expr, ExprKind, GlobalId, LocalId, LogicalOp,
    UnaryOp,
};
use lanes_frontend::source::Span;
use lanes_frontend::types::{Scalar, Type};

use super::types::{leaves, reg_comps, scalar_ty, LeafTy};
use super::{src_of, Lowerer, Place, Slot, Vals};
use crate::ir::{BinOp, BlockId, CastOp, CmpPred, Const, Global, InstKind, Src, Ty, ValueId};

pub(super) fn esrc(e: &Expr) -> Src {
    src_of(e.node, e.span)
}

/// True when the value of `e` can be read through a place (so that a
/// component of a vector in memory is loaded alone).
fn has_place(e: &Expr) -> bool {
    e.place.is_some()
        || match &e.kind {
            ExprKind::Swizzle { base, .. } => has_place(base),
            _ => false,
        }
}

impl Lowerer<'_> {
    // ---- values ---------------------------------------------------------

    /// The value of an expression.
    pub(super) fn rvalue(&mut self, e: &Expr) -> Vals {
        if !self.enter(e.span) {
            return self.undef_vals(&e.ty, e.span);
        }
        let v = self.rvalue_inner(e);
        self.leave();
        v
    }

    fn rvalue_inner(&mut self, e: &Expr) -> Vals {
        let src = esrc(e);
        match &e.kind {
            ExprKind::Int(v) => self.int_const(*v, &e.ty, e.span),
            ExprKind::Float(x) => match e.ty.element().and_then(scalar_ty) {
                Some(ty) if ty.is_float() => {
                    let c = self.const_float(*x, ty);
                    vec![c; e.ty.width().unwrap_or(1) as usize]
                }
                _ => self.unsupported_value(e, "this floating-point constant"),
            },
            ExprKind::Global(g) if e.ty.is_image_or_sampler() => {
                // A program-scope sampler is a constant, not memory.
                match self
                    .unit
                    .globals
                    .get(g.0 as usize)
                    .and_then(|g| g.init.as_ref())
                {
                    Some(ConstInit::Scalar(ConstValue::Int(bits, _))) => {
                        vec![self.const_int(*bits as i64, Ty::I32)]
                    }
                    _ => self.unsupported_value(e, "this sampler"),
                }
            }
            ExprKind::Local(_)
            | ExprKind::Global(_)
            | ExprKind::Deref(_)
            | ExprKind::CompoundLiteral { .. } => {
                let p = self.place(e);
                self.read_place(&p, &e.ty, src)
            }
            ExprKind::Member { base, field } => {
                if e.place.is_some() {
                    let p = self.place(e);
                    self.read_place(&p, &e.ty, src)
                } else {
                    self.member_of_value(e, base, *field)
                }
            }
            ExprKind::Index { base, index } => {
                if e.place.is_some() || !base.ty.is_vector() {
                    let p = self.place(e);
                    self.read_place(&p, &e.ty, src)
                } else {
                    let vals = self.rvalue(base);
                    let idx = self.rvalue(index);
                    let idx = self.first(&idx, Ty::I64);
                    vec![self.pick_dynamic(&vals, idx, e, src)]
                }
            }
            ExprKind::Swizzle { base, components } => {
                if has_place(e) {
                    let p = self.place(e);
                    self.read_place(&p, &e.ty, src)
                } else {
                    let vals = self.rvalue(base);
                    let ty = base.ty.element().and_then(scalar_ty).unwrap_or(Ty::I32);
                    components
                        .iter()
                        .map(|&c| self.at(&vals, c as usize, ty))
                        .collect()
                }
            }
            ExprKind::Unary { op, operand } => self.unary(e, *op, operand),
            ExprKind::Binary { op, lhs, rhs } => self.binary(e, *op, lhs, rhs),
            ExprKind::PtrAdd {
                ptr,
                offset,
                negate,
            } => {
                let base = self.rvalue(ptr);
                let base = self.first(&base, Ty::Ptr(AddressSpace::Private));
                let off = self.rvalue(offset);
                let off = self.first(&off, Ty::I64);
                let size = self.pointee_size(&ptr.ty, e.span);
                let bytes = self.scale_index(off, size, *negate, src);
                vec![self.ptr_add(base, bytes, src)]
            }
            ExprKind::PtrDiff { lhs, rhs } => {
                let a = self.rvalue(lhs);
                let a = self.first(&a, Ty::Ptr(AddressSpace::Private));
                let b = self.rvalue(rhs);
                let b = self.first(&b, Ty::Ptr(AddressSpace::Private));
                let size = self.pointee_size(&lhs.ty, e.span);
                let a = self.cast(CastOp::PtrToInt, a, Ty::I64, src);
                let b = self.cast(CastOp::PtrToInt, b, Ty::I64, src);
                let d = self.bin(BinOp::Sub, a, b, src);
                if size > 1 {
                    let s = self.const_int(size as i64, Ty::I64);
                    vec![self.bin(BinOp::SDiv, d, s, src)]
                } else {
                    vec![d]
                }
            }
            ExprKind::Logical { op, lhs, rhs } => {
                let b = self.logical(*op, lhs, rhs, src);
                vec![self.widen_bool(b, &e.ty, src)]
            }
            ExprKind::Assign { lhs, rhs } => {
                let vals = self.rvalue(rhs);
                let p = self.place(lhs);
                self.write_place(&p, &lhs.ty, &vals, esrc(lhs));
                vals
            }
            ExprKind::CompoundAssign {
                op,
                lhs,
                rhs,
                computation,
            } => self.compound_assign(e, *op, lhs, rhs, computation),
            ExprKind::IncDec {
                pre,
                increment,
                operand,
            } => self.inc_dec(e, *pre, *increment, operand),
            ExprKind::Conditional { cond, then, els } => self.conditional(e, cond, then, els),
            ExprKind::Select { cond, then, els } => {
                let c = self.rvalue(cond);
                let t = self.rvalue(then);
                let f = self.rvalue(els);
                let ty = e.ty.element().and_then(scalar_ty).unwrap_or(Ty::I32);
                let cty = cond.ty.element().and_then(scalar_ty).unwrap_or(Ty::I32);
                (0..t.len())
                    .map(|i| {
                        let ci = self.at(&c, i, cty);
                        let ti = self.at(&t, i, ty);
                        let fi = self.at(&f, i, ty);
                        let msb = self.msb_set(ci, src);
                        self.select(msb, ti, fi, src)
                    })
                    .collect()
            }
            ExprKind::Call { func, args } => self.inline_call(e, *func, args),
            ExprKind::Builtin { call, args } => self.builtin(e, call, args),
            ExprKind::Convert { kind, expr } => self.convert(e, *kind, expr),
            ExprKind::VectorConstruct { elems } => {
                let mut out = Vec::new();
                for el in elems {
                    out.extend(self.rvalue(el));
                }
                out
            }
            ExprKind::AddrOf(inner) => {
                let p = self.place(inner);
                match p {
                    Place::Mem { ptr } => vec![ptr],
                    Place::Invalid => self.undef_vals(&e.ty, e.span),
                    _ => {
                        self.error(
                            e.span,
                            "internal error: the address of a value kept in registers was taken",
                        );
                        self.undef_vals(&e.ty, e.span)
                    }
                }
            }
            ExprKind::Comma { lhs, rhs } => {
                self.rvalue(lhs);
                self.rvalue(rhs)
            }
            ExprKind::Error => {
                self.error(
                    e.span,
                    "this expression did not type-check; fix the errors above before vectorizing",
                );
                self.undef_vals(&e.ty, e.span)
            }
        }
    }

    fn unsupported_value(&mut self, e: &Expr, what: &str) -> Vals {
        let msg = format!(
            "{what} of type `{}` is not supported by the vectorizer",
            self.unit.type_name(&e.ty)
        );
        self.error(e.span, msg);
        self.undef_vals(&e.ty, e.span)
    }

    /// `vals[i]`, or `undef` of `ty` when lowering went wrong before.
    pub(super) fn at(&mut self, vals: &[ValueId], i: usize, ty: Ty) -> ValueId {
        match vals.get(i) {
            Some(&v) => v,
            None => self.undef(ty),
        }
    }

    pub(super) fn first(&mut self, vals: &[ValueId], ty: Ty) -> ValueId {
        self.at(vals, 0, ty)
    }

    /// The component types of a value of type `ty` (leaves for aggregates);
    /// reports types without a representation.
    pub(super) fn val_tys(&mut self, ty: &Type, span: Span) -> Vec<Ty> {
        if ty.is_void() {
            return Vec::new();
        }
        if let Some(c) = reg_comps(ty) {
            return c.into_iter().map(LeafTy::reg).collect();
        }
        match leaves(self.unit, ty) {
            Ok(l) => l.into_iter().map(|(_, leaf)| leaf.reg()).collect(),
            Err(msg) => {
                self.error(span, msg);
                Vec::new()
            }
        }
    }

    pub(super) fn undef_vals(&mut self, ty: &Type, span: Span) -> Vals {
        let tys = self.val_tys(ty, span);
        tys.into_iter().map(|t| self.undef(t)).collect()
    }

    fn int_const(&mut self, v: u64, ty: &Type, span: Span) -> Vals {
        let n = ty.width().unwrap_or(1) as usize;
        let c = match ty {
            Type::Scalar(s) | Type::Vector(s, _) => match scalar_ty(*s) {
                Some(Ty::I1) => self.const_bool(v != 0),
                Some(t) if t.is_float() => {
                    let x = if s.is_signed() {
                        v as i64 as f64
                    } else {
                        v as f64
                    };
                    self.const_float(x, t)
                }
                Some(t) => self
                    .f
                    .add_const(Const::Int(crate::ir::truncate(v, t.bits()), t)),
                None => {
                    self.error(
                        span,
                        "`half` values are not supported by the vectorizer yet",
                    );
                    self.undef(Ty::I16)
                }
            },
            Type::Pointer(p) if v == 0 => self.f.add_const(Const::Null(p.space)),
            _ => {
                let msg = format!(
                    "an integer constant of type `{}` is not supported by the vectorizer",
                    self.unit.type_name(ty)
                );
                self.error(span, msg);
                return self.undef_vals(ty, span);
            }
        };
        vec![c; n]
    }

    // ---- places ---------------------------------------------------------

    /// Where an lvalue lives. Expressions that are not lvalues (a struct
    /// returned by a helper, say) are stored into a temporary.
    pub(super) fn place(&mut self, e: &Expr) -> Place {
        if !self.enter(e.span) {
            return Place::Invalid;
        }
        let p = self.place_inner(e);
        self.leave();
        p
    }

    fn local_place(&mut self, id: LocalId, span: Span) -> Place {
        match self.slot(id, span) {
            Some(Slot::Ssa(vars)) => Place::Ssa(vars),
            Some(Slot::Mem(ptr)) => Place::Mem { ptr },
            None => Place::Invalid,
        }
    }

    fn place_inner(&mut self, e: &Expr) -> Place {
        let src = esrc(e);
        match &e.kind {
            ExprKind::Local(id) => self.local_place(*id, e.span),
            // The object is (re)initialized where the literal is evaluated.
            ExprKind::CompoundLiteral { local, init } => {
                self.decl(*local, Some(init), src);
                self.local_place(*local, e.span)
            }
            ExprKind::Global(g) => match self.global_ptr(*g, e.span) {
                Some(ptr) => Place::Mem { ptr },
                None => Place::Invalid,
            },
            ExprKind::Deref(p) => {
                let v = self.rvalue(p);
                let ptr = self.first(&v, Ty::Ptr(AddressSpace::Private));
                Place::Mem { ptr }
            }
            ExprKind::Index { base, index } => match &base.ty {
                Type::Array(elem, _) => {
                    let bp = self.place(base);
                    let idx = self.rvalue(index);
                    let idx = self.first(&idx, Ty::I64);
                    match bp {
                        Place::Mem { ptr } => {
                            let size = self.size_of(elem, e.span);
                            let off = self.scale_index(idx, size, false, src);
                            Place::Mem {
                                ptr: self.ptr_add(ptr, off, src),
                            }
                        }
                        _ => self.bad_place(e),
                    }
                }
                Type::Pointer(_) => {
                    let b = self.rvalue(base);
                    let ptr = self.first(&b, Ty::Ptr(AddressSpace::Private));
                    let idx = self.rvalue(index);
                    let idx = self.first(&idx, Ty::I64);
                    let size = self.pointee_size(&base.ty, e.span);
                    let off = self.scale_index(idx, size, false, src);
                    Place::Mem {
                        ptr: self.ptr_add(ptr, off, src),
                    }
                }
                Type::Vector(s, n) => {
                    let bp = if has_place(base) {
                        self.place(base)
                    } else {
                        self.spill(base)
                    };
                    let idx = self.rvalue(index);
                    let idx = self.first(&idx, Ty::I64);
                    self.component_place(bp, *s, *n, idx, e, src)
                }
                _ => self.bad_place(e),
            },
            ExprKind::Member { base, field } => {
                let Type::Struct(id) = &base.ty else {
                    return self.bad_place(e);
                };
                let offset = self
                    .unit
                    .structs
                    .get(id.0 as usize)
                    .and_then(|d| d.fields.get(*field as usize))
                    .map(|f| f.offset);
                let bp = self.place(base);
                match (bp, offset) {
                    (Place::Mem { ptr }, Some(off)) => Place::Mem {
                        ptr: self.ptr_offset(ptr, off as i64, src),
                    },
                    (Place::Invalid, _) => Place::Invalid,
                    _ => self.bad_place(e),
                }
            }
            ExprKind::Swizzle { base, components } => {
                let Type::Vector(s, _) = base.ty else {
                    return self.bad_place(e);
                };
                let bp = if has_place(base) {
                    self.place(base)
                } else {
                    self.spill(base)
                };
                self.swizzle_place(bp, s, components, e.span)
            }
            _ => self.spill(e),
        }
    }

    fn bad_place(&mut self, e: &Expr) -> Place {
        self.error(
            e.span,
            "internal error: this expression does not designate an object the vectorizer can address",
        );
        Place::Invalid
    }

    /// Stores the value of a non-lvalue into a temporary (a member of a
    /// struct returned by a helper, say).
    fn spill(&mut self, e: &Expr) -> Place {
        let vals = self.rvalue(e);
        let src = esrc(e);
        match self.alloca(&e.ty, e.span, src) {
            Some(ptr) => {
                self.store_vals(ptr, &e.ty, &vals, src);
                Place::Mem { ptr }
            }
            None => Place::Invalid,
        }
    }

    fn swizzle_place(&mut self, base: Place, elem: Scalar, comps: &[u8], span: Span) -> Place {
        match base {
            Place::Ssa(vars) => {
                let mut out = Vec::with_capacity(comps.len());
                for &c in comps {
                    match vars.get(c as usize) {
                        Some(&v) => out.push(v),
                        None => {
                            self.error(span, "vector component out of range");
                            return Place::Invalid;
                        }
                    }
                }
                Place::Ssa(out)
            }
            Place::Mem { ptr } => Place::MemComps {
                ptr,
                elem,
                comps: comps.to_vec(),
            },
            Place::MemComps {
                ptr,
                elem,
                comps: inner,
            } => {
                let mut out = Vec::with_capacity(comps.len());
                for &c in comps {
                    match inner.get(c as usize) {
                        Some(&k) => out.push(k),
                        None => {
                            self.error(span, "vector component out of range");
                            return Place::Invalid;
                        }
                    }
                }
                Place::MemComps {
                    ptr,
                    elem,
                    comps: out,
                }
            }
            Place::Dyn { .. } => {
                self.error(span, "internal error: a swizzle of a scalar");
                Place::Invalid
            }
            Place::Invalid => Place::Invalid,
        }
    }

    /// Component `idx` (an `i64`) of a vector place.
    fn component_place(
        &mut self,
        base: Place,
        elem: Scalar,
        n: u8,
        idx: ValueId,
        e: &Expr,
        src: Src,
    ) -> Place {
        if let Some(k) = self.f.as_const(idx).and_then(Const::as_signed) {
            if k < 0 || k >= i64::from(n) {
                self.error(
                    e.span,
                    format!("vector component index {k} is out of range"),
                );
                return Place::Invalid;
            }
            return self.swizzle_place(base, elem, &[k as u8], e.span);
        }
        match base {
            // A run-time index into a vector in memory is an address.
            Place::Mem { ptr } => {
                let off = self.scale_index(idx, u64::from(elem.size()), false, src);
                Place::Mem {
                    ptr: self.ptr_add(ptr, off, src),
                }
            }
            Place::Invalid => Place::Invalid,
            other => Place::Dyn {
                base: Box::new(other),
                index: idx,
            },
        }
    }

    /// The values at a place; `ty` is the type of the lvalue expression and
    /// `src` its source (loads point at the access).
    pub(super) fn read_place(&mut self, p: &Place, ty: &Type, src: Src) -> Vals {
        match p {
            Place::Ssa(vars) => vars.iter().map(|&v| self.use_var(v)).collect(),
            Place::Dyn { base, index } => {
                let vals = self.read_place(base, ty, src);
                let Some(&first) = vals.first() else {
                    return self.undef_vals(ty, src.span);
                };
                let ity = self.ty(*index);
                let mut r = first;
                for (c, &v) in vals.iter().enumerate().skip(1) {
                    let k = self.const_int(c as i64, ity);
                    let is = self.cmp(CmpPred::Eq, *index, k, src);
                    r = self.select(is, v, r, src);
                }
                vec![r]
            }
            Place::Mem { ptr } => self.load_vals(*ptr, ty, src),
            Place::MemComps { ptr, elem, comps } => {
                let Some(ety) = scalar_ty(*elem) else {
                    self.error(
                        src.span,
                        "`half` values are not supported by the vectorizer yet",
                    );
                    return self.undef_vals(ty, src.span);
                };
                let size = u64::from(elem.size());
                comps
                    .iter()
                    .map(|&c| {
                        let p = self.ptr_offset(*ptr, (u64::from(c) * size) as i64, src);
                        self.load(p, LeafTy::Scalar(*elem), ety, src)
                    })
                    .collect()
            }
            Place::Invalid => self.undef_vals(ty, src.span),
        }
    }

    /// Stores `vals` (the value of type `ty`) to a place.
    pub(super) fn write_place(&mut self, p: &Place, ty: &Type, vals: &[ValueId], src: Src) {
        match p {
            Place::Ssa(vars) => {
                for (i, &var) in vars.iter().enumerate() {
                    let t = self.var_ty(var);
                    let v = self.at(vals, i, t);
                    self.assign_var(var, v);
                }
            }
            Place::Dyn { base, index } => {
                let old = self.read_place(base, ty, src);
                let Some(&new) = vals.first() else { return };
                let ity = self.ty(*index);
                let blended: Vals = old
                    .iter()
                    .enumerate()
                    .map(|(c, &o)| {
                        let k = self.const_int(c as i64, ity);
                        let is = self.cmp(CmpPred::Eq, *index, k, src);
                        self.select(is, new, o, src)
                    })
                    .collect();
                self.write_place(base, ty, &blended, src);
            }
            Place::Mem { ptr } => self.store_vals(*ptr, ty, vals, src),
            Place::MemComps { ptr, elem, comps } => {
                let size = u64::from(elem.size());
                for (i, &c) in comps.iter().enumerate() {
                    let Some(&v) = vals.get(i) else { return };
                    let p = self.ptr_offset(*ptr, (u64::from(c) * size) as i64, src);
                    self.store(p, LeafTy::Scalar(*elem), v, src);
                }
            }
            Place::Invalid => {}
        }
    }

    // ---- memory ---------------------------------------------------------

    fn load(&mut self, ptr: ValueId, leaf: LeafTy, _reg: Ty, src: Src) -> ValueId {
        let mem = leaf.mem();
        let v = self.emit(
            InstKind::Load {
                ptr,
                align: leaf.size().max(1),
            },
            mem,
            src,
        );
        if leaf.is_bool() {
            let zero = self.const_int(0, Ty::I8);
            self.cmp(CmpPred::Ne, v, zero, src)
        } else {
            v
        }
    }

    fn store(&mut self, ptr: ValueId, leaf: LeafTy, value: ValueId, src: Src) {
        let value = if leaf.is_bool() {
            self.cast(CastOp::ZExt, value, Ty::I8, src)
        } else {
            value
        };
        self.emit_void(
            InstKind::Store {
                ptr,
                value,
                align: leaf.size().max(1),
            },
            src,
        );
    }

    /// Loads a value of type `ty` from `ptr`: one load per scalar leaf.
    pub(super) fn load_vals(&mut self, ptr: ValueId, ty: &Type, src: Src) -> Vals {
        let ls = match leaves(self.unit, ty) {
            Ok(l) => l,
            Err(msg) => {
                self.error(src.span, msg);
                return Vec::new();
            }
        };
        ls.into_iter()
            .map(|(off, leaf)| {
                let p = self.ptr_offset(ptr, off as i64, src);
                self.load(p, leaf, leaf.reg(), src)
            })
            .collect()
    }

    /// Stores a value of type `ty` to `ptr`: one store per scalar leaf.
    pub(super) fn store_vals(&mut self, ptr: ValueId, ty: &Type, vals: &[ValueId], src: Src) {
        let ls = match leaves(self.unit, ty) {
            Ok(l) => l,
            Err(msg) => {
                self.error(src.span, msg);
                return;
            }
        };
        for (i, (off, leaf)) in ls.into_iter().enumerate() {
            let v = self.at(vals, i, leaf.reg());
            let p = self.ptr_offset(ptr, off as i64, src);
            self.store(p, leaf, v, src);
        }
    }

    /// Stores zeros to every scalar leaf of a `ty` at `ptr`.
    pub(super) fn store_zero(&mut self, ptr: ValueId, ty: &Type, src: Src) {
        let ls = match leaves(self.unit, ty) {
            Ok(l) => l,
            Err(msg) => {
                self.error(src.span, msg);
                return;
            }
        };
        for (off, leaf) in ls {
            let z = self.zero(leaf.reg());
            let p = self.ptr_offset(ptr, off as i64, src);
            self.store(p, leaf, z, src);
        }
    }

    pub(super) fn size_of(&mut self, ty: &Type, span: Span) -> u64 {
        match self.unit.size_of(ty) {
            Some(s) => s,
            None => {
                let msg = format!("`{}` has no size", self.unit.type_name(ty));
                self.error(span, msg);
                1
            }
        }
    }

    fn pointee_size(&mut self, ptr_ty: &Type, span: Span) -> u64 {
        match ptr_ty.pointee() {
            Some(p) => {
                let pointee = p.pointee.clone();
                self.size_of(&pointee, span)
            }
            None => {
                self.error(span, "internal error: pointer arithmetic on a non-pointer");
                1
            }
        }
    }

    /// The byte offset of element `idx` (an `i64` count) of `size` bytes,
    /// negated for `p - i`. Constant indices give a constant.
    pub(super) fn scale_index(
        &mut self,
        idx: ValueId,
        size: u64,
        negate: bool,
        src: Src,
    ) -> ValueId {
        let idx = if self.ty(idx) == Ty::I64 {
            idx
        } else {
            self.cast(CastOp::SExt, idx, Ty::I64, src)
        };
        if let Some(k) = self.f.as_const(idx).and_then(Const::as_signed) {
            let b = k.wrapping_mul(size as i64);
            return self.const_int(if negate { b.wrapping_neg() } else { b }, Ty::I64);
        }
        let scaled = if size == 1 {
            idx
        } else {
            let s = self.const_int(size as i64, Ty::I64);
            self.bin(BinOp::Mul, idx, s, src)
        };
        if negate {
            let z = self.const_int(0, Ty::I64);
            self.bin(BinOp::Sub, z, scaled, src)
        } else {
            scaled
        }
    }

    /// The address of a `__constant` program-scope variable, one
    /// `ir::Global` per variable used.
    fn global_ptr(&mut self, g: GlobalId, span: Span) -> Option<ValueId> {
        if let Some(&v) = self.globals.get(&g) {
            return Some(v);
        }
        let Some(glob) = self.unit.globals.get(g.0 as usize) else {
            self.error(span, "internal error: unknown program-scope variable");
            return None;
        };
        if glob.space != AddressSpace::Constant {
            self.error(
                span,
                format!(
                    "program-scope variable `{}` is not in the `__constant` address space; only `__constant` ones are supported",
                    glob.name
                ),
            );
            return None;
        }
        let bytes = match super::types::const_bytes(self.unit, &glob.ty, glob.init.as_ref()) {
            Ok(b) => b,
            Err(msg) => {
                self.error(glob.name_span, msg);
                return None;
            }
        };
        let align = self.unit.align_of(&glob.ty).unwrap_or(1).max(1);
        let v = self.f.add_global(Global {
            name: glob.name.clone(),
            bytes,
            align,
            span: glob.name_span,
        });
        self.globals.insert(g, v);
        Some(v)
    }

    // ---- aggregates -----------------------------------------------------

    /// A field of a struct value that is not in memory (returned by a
    /// helper, say): its leaves.
    fn member_of_value(&mut self, e: &Expr, base: &Expr, field: u32) -> Vals {
        let vals = self.rvalue(base);
        let Type::Struct(id) = &base.ty else {
            return self.undef_vals(&e.ty, e.span);
        };
        let Some(def) = self.unit.structs.get(id.0 as usize) else {
            return self.undef_vals(&e.ty, e.span);
        };
        let mut start = 0usize;
        for f in def.fields.iter().take(field as usize) {
            match leaves(self.unit, &f.ty) {
                Ok(l) => start += l.len(),
                Err(msg) => {
                    self.error(e.span, msg);
                    return self.undef_vals(&e.ty, e.span);
                }
            }
        }
        let tys = self.val_tys(&e.ty, e.span);
        tys.into_iter()
            .enumerate()
            .map(|(i, t)| self.at(&vals, start + i, t))
            .collect()
    }

    /// Component `idx` of a vector value, by a chain of selects unless the
    /// index is a constant.
    fn pick_dynamic(&mut self, vals: &[ValueId], idx: ValueId, e: &Expr, src: Src) -> ValueId {
        let ty = e.ty.element().and_then(scalar_ty).unwrap_or(Ty::I32);
        if let Some(k) = self.f.as_const(idx).and_then(Const::as_signed) {
            if k < 0 || k as usize >= vals.len() {
                self.error(
                    e.span,
                    format!("vector component index {k} is out of range"),
                );
                return self.undef(ty);
            }
            return self.at(vals, k as usize, ty);
        }
        let mut r = self.first(vals, ty);
        let ity = self.ty(idx);
        for (c, &v) in vals.iter().enumerate().skip(1) {
            let k = self.const_int(c as i64, ity);
            let is = self.cmp(CmpPred::Eq, idx, k, src);
            r = self.select(is, v, r, src);
        }
        r
    }

    // ---- operators ------------------------------------------------------

    fn unary(&mut self, e: &Expr, op: UnaryOp, operand: &Expr) -> Vals {
        let src = esrc(e);
        match op {
            UnaryOp::Neg => {
                let vals = self.rvalue(operand);
                let float = operand.ty.is_float();
                vals.into_iter()
                    .map(|v| {
                        if float {
                            let ty = self.ty(v);
                            if let Some(Const::Float(x, t)) = self.f.as_const(v) {
                                // A negative literal.
                                return self.f.add_const(Const::Float(-x, t));
                            }
                            self.emit(InstKind::FNeg(v), ty, src)
                        } else {
                            let z = self.zero(self.ty(v));
                            self.bin(BinOp::Sub, z, v, src)
                        }
                    })
                    .collect()
            }
            UnaryOp::BitNot => {
                let vals = self.rvalue(operand);
                vals.into_iter()
                    .map(|v| {
                        let ones = self.const_int(-1, self.ty(v));
                        self.bin(BinOp::Xor, v, ones, src)
                    })
                    .collect()
            }
            UnaryOp::Not if operand.ty.is_vector() => {
                // Component-wise `x == 0`: -1 / 0.
                let vals = self.rvalue(operand);
                let elem = operand.ty.element().unwrap_or(Scalar::Int);
                let rty = e.ty.element().and_then(scalar_ty).unwrap_or(Ty::I32);
                vals.into_iter()
                    .map(|v| {
                        let nz = self.truth_of(v, elem, src);
                        let t = self.const_bool(true);
                        let z = self.bin(BinOp::Xor, nz, t, src);
                        self.cast(CastOp::SExt, z, rty, src)
                    })
                    .collect()
            }
            UnaryOp::Not => {
                let b = self.bool_value(operand);
                let t = self.const_bool(true);
                let nb = self.bin(BinOp::Xor, b, t, src);
                vec![self.widen_bool(nb, &e.ty, src)]
            }
        }
    }

    fn binary(&mut self, e: &Expr, op: BinaryOp, lhs: &Expr, rhs: &Expr) -> Vals {
        let src = esrc(e);
        if op.is_comparison() && !e.ty.is_vector() {
            let b = self.comparison(op, lhs, rhs, src);
            return vec![self.widen_bool(b, &e.ty, src)];
        }
        if let Some(fused) = self.contracted(e, op, lhs, rhs) {
            return fused;
        }
        let l = self.rvalue(lhs);
        let r = self.rvalue(rhs);
        let Some(elem) = lhs.ty.element() else {
            let msg = format!(
                "the operator `{}` on `{}` is not supported by the vectorizer",
                op.symbol(),
                self.unit.type_name(&lhs.ty)
            );
            self.error(e.span, msg);
            return self.undef_vals(&e.ty, e.span);
        };
        let ety = scalar_ty(elem).unwrap_or(Ty::I16);
        let rty = e.ty.element().and_then(scalar_ty).unwrap_or(Ty::I32);
        (0..l.len())
            .map(|c| {
                let a = self.at(&l, c, ety);
                let b = self.at(&r, c, ety);
                match op {
                    BinaryOp::Lt
                    | BinaryOp::Gt
                    | BinaryOp::Le
                    | BinaryOp::Ge
                    | BinaryOp::Eq
                    | BinaryOp::Ne => {
                        let x = self.compare(op, elem, a, b, src);
                        self.cast(CastOp::SExt, x, rty, src)
                    }
                    BinaryOp::VecAnd | BinaryOp::VecOr => {
                        let x = self.truth_of(a, elem, src);
                        let y = self.truth_of(b, elem, src);
                        let o = if op == BinaryOp::VecAnd {
                            BinOp::And
                        } else {
                            BinOp::Or
                        };
                        let z = self.bin(o, x, y, src);
                        self.cast(CastOp::SExt, z, rty, src)
                    }
                    _ => self.arith(op, elem, a, b, src),
                }
            })
            .collect()
    }

    /// A scalar comparison as `i1` (pointers compare as integers).
    fn comparison(&mut self, op: BinaryOp, lhs: &Expr, rhs: &Expr, src: Src) -> ValueId {
        let l = self.rvalue(lhs);
        let r = self.rvalue(rhs);
        if lhs.ty.is_pointer() || rhs.ty.is_pointer() {
            let a = self.first(&l, Ty::Ptr(AddressSpace::Private));
            let b = self.first(&r, Ty::Ptr(AddressSpace::Private));
            let a = self.cast(CastOp::PtrToInt, a, Ty::I64, src);
            let b = self.cast(CastOp::PtrToInt, b, Ty::I64, src);
            return self.compare(op, Scalar::ULong, a, b, src);
        }
        let elem = lhs.ty.element().unwrap_or(Scalar::Int);
        let ety = scalar_ty(elem).unwrap_or(Ty::I32);
        let a = self.first(&l, ety);
        let b = self.first(&r, ety);
        self.compare(op, elem, a, b, src)
    }

    /// `a op b` for a comparison `op` on elements of type `elem`.
    pub(super) fn compare(
        &mut self,
        op: BinaryOp,
        elem: Scalar,
        a: ValueId,
        b: ValueId,
        src: Src,
    ) -> ValueId {
        use CmpPred::*;
        let float = elem.is_float();
        let signed = elem.is_signed() && !float;
        let pred = match (op, float, signed) {
            (BinaryOp::Eq, true, _) => FOeq,
            (BinaryOp::Ne, true, _) => FUne,
            (BinaryOp::Lt, true, _) => FOlt,
            (BinaryOp::Le, true, _) => FOle,
            (BinaryOp::Gt, true, _) => FOgt,
            (BinaryOp::Ge, true, _) => FOge,
            (BinaryOp::Eq, false, _) => Eq,
            (BinaryOp::Ne, false, _) => Ne,
            (BinaryOp::Lt, false, true) => Slt,
            (BinaryOp::Le, false, true) => Sle,
            (BinaryOp::Gt, false, true) => Sgt,
            (BinaryOp::Ge, false, true) => Sge,
            (BinaryOp::Lt, false, false) => Ult,
            (BinaryOp::Le, false, false) => Ule,
            (BinaryOp::Gt, false, false) => Ugt,
            (BinaryOp::Ge, false, false) => Uge,
            _ => {
                self.error(src.span, "internal error: not a comparison");
                Eq
            }
        };
        self.cmp(pred, a, b, src)
    }

    /// An arithmetic or bitwise operation on one component.
    pub(super) fn arith(
        &mut self,
        op: BinaryOp,
        elem: Scalar,
        a: ValueId,
        b: ValueId,
        src: Src,
    ) -> ValueId {
        let float = elem.is_float();
        let signed = elem.is_signed() && !float;
        let bop = match op {
            BinaryOp::Add => {
                if float {
                    BinOp::FAdd
                } else {
                    BinOp::Add
                }
            }
            BinaryOp::Sub => {
                if float {
                    BinOp::FSub
                } else {
                    BinOp::Sub
                }
            }
            BinaryOp::Mul => {
                if float {
                    BinOp::FMul
                } else {
                    BinOp::Mul
                }
            }
            BinaryOp::Div => {
                if float {
                    BinOp::FDiv
                } else if signed {
                    BinOp::SDiv
                } else {
                    BinOp::UDiv
                }
            }
            BinaryOp::Rem => {
                if float {
                    BinOp::FRem
                } else if signed {
                    BinOp::SRem
                } else {
                    BinOp::URem
                }
            }
            BinaryOp::Shl | BinaryOp::Shr => {
                let count = self.shift_count(a, b, src);
                let op = match (op, signed) {
                    (BinaryOp::Shl, _) => BinOp::Shl,
                    (_, true) => BinOp::AShr,
                    (_, false) => BinOp::LShr,
                };
                return self.bin(op, a, count, src);
            }
            BinaryOp::BitAnd => BinOp::And,
            BinaryOp::BitOr => BinOp::Or,
            BinaryOp::BitXor => BinOp::Xor,
            _ => {
                self.error(src.span, "internal error: not an arithmetic operator");
                return self.undef(self.ty(a));
            }
        };
        let v = self.bin(bop, a, b, src);
        if signed && matches!(bop, BinOp::Add | BinOp::Sub | BinOp::Mul) {
            self.f.nsw.insert(v);
        }
        v
    }

    /// OpenCL's shift count: `n & (bits - 1)` (folded for constants).
    fn shift_count(&mut self, a: ValueId, count: ValueId, src: Src) -> ValueId {
        let ty = self.ty(a);
        let mask = i64::from(ty.bits().max(1)) - 1;
        let count = if self.ty(count) == ty {
            count
        } else {
            self.convert_int(count, self.ty(count), ty, false, src)
        };
        if let Some(k) = self.f.as_const(count).and_then(Const::as_unsigned) {
            return self.const_int((k & mask as u64) as i64, ty);
        }
        let m = self.const_int(mask, ty);
        self.bin(BinOp::And, count, m, src)
    }

    fn compound_assign(
        &mut self,
        e: &Expr,
        op: BinaryOp,
        lhs: &Expr,
        rhs: &Expr,
        computation: &Type,
    ) -> Vals {
        let src = esrc(e);
        let lsrc = esrc(lhs);
        if let Some(product) = self.contracted_operand(e, op, rhs, computation) {
            let p = self.place(lhs);
            let old = self.read_place(&p, &lhs.ty, lsrc);
            let a = self.convert_vals(&old, &lhs.ty, computation, src);
            let ety = computation.element().and_then(scalar_ty).unwrap_or(Ty::F32);
            let res = self.fuse_into(product, a, ety, src);
            let new = self.convert_vals(&res, computation, &lhs.ty, src);
            self.write_place(&p, &lhs.ty, &new, lsrc);
            return new;
        }
        let r = self.rvalue(rhs);
        let p = self.place(lhs);
        let old = self.read_place(&p, &lhs.ty, lsrc);
        let new: Vals = if lhs.ty.is_pointer() {
            let base = self.first(&old, Ty::Ptr(AddressSpace::Private));
            let off = self.first(&r, Ty::I64);
            let size = self.pointee_size(&lhs.ty, e.span);
            let bytes = self.scale_index(off, size, op == BinaryOp::Sub, src);
            vec![self.ptr_add(base, bytes, src)]
        } else {
            let a = self.convert_vals(&old, &lhs.ty, computation, src);
            let elem = computation.element().unwrap_or(Scalar::Int);
            let ety = scalar_ty(elem).unwrap_or(Ty::I32);
            let res: Vals = (0..a.len())
                .map(|c| {
                    let x = self.at(&a, c, ety);
                    let y = self.at(&r, c, ety);
                    self.arith(op, elem, x, y, src)
                })
                .collect();
            self.convert_vals(&res, computation, &lhs.ty, src)
        };
        self.write_place(&p, &lhs.ty, &new, lsrc);
        new
    }

    fn inc_dec(&mut self, e: &Expr, pre: bool, increment: bool, operand: &Expr) -> Vals {
        let src = esrc(e);
        let osrc = esrc(operand);
        let p = self.place(operand);
        let old = self.read_place(&p, &operand.ty, osrc);
        let new: Vals = match &operand.ty {
            Type::Pointer(_) => {
                let size = self.pointee_size(&operand.ty, e.span) as i64;
                let base = self.first(&old, Ty::Ptr(AddressSpace::Private));
                vec![self.ptr_offset(base, if increment { size } else { -size }, src)]
            }
            Type::Scalar(Scalar::Bool) => {
                // `b++` is true; `b--` is `!b` (C: (int)b - 1 != 0).
                let b = self.first(&old, Ty::I1);
                if increment {
                    vec![self.const_bool(true)]
                } else {
                    let t = self.const_bool(true);
                    vec![self.bin(BinOp::Xor, b, t, src)]
                }
            }
            ty => {
                let float = ty.is_float();
                // `i++` on int/long is `i + 1` in C (no overflow); narrower
                // types wrap through the conversion back.
                let signed_inc = ty.element().is_some_and(|s| {
                    s.is_signed() && !s.is_float() && scalar_ty(s).is_some_and(|t| t.bits() >= 32)
                });
                old.iter()
                    .map(|&v| {
                        let vty = self.ty(v);
                        if float {
                            let one = self.const_float(1.0, vty);
                            let op = if increment { BinOp::FAdd } else { BinOp::FSub };
                            self.bin(op, v, one, src)
                        } else {
                            let one = self.const_int(1, vty);
                            let op = if increment { BinOp::Add } else { BinOp::Sub };
                            let r = self.bin(op, v, one, src);
                            if signed_inc {
                                self.f.nsw.insert(r);
                            }
                            r
                        }
                    })
                    .collect()
            }
        };
        self.write_place(&p, &operand.ty, &new, osrc);
        if pre {
            new
        } else {
            old
        }
    }

    /// Scalar `c ? a : b`: only the chosen operand is evaluated.
    fn conditional(&mut self, e: &Expr, cond: &Expr, then: &Expr, els: &Expr) -> Vals {
        let src = esrc(e);
        let tys = self.val_tys(&e.ty, e.span);
        let tmps: Vec<_> = tys.iter().map(|&t| self.new_ssa_var(t, None)).collect();
        let tb = self.new_block("cond.then", src);
        let eb = self.new_block("cond.else", src);
        let end = self.new_block("cond.end", src);
        self.branch_on(cond, tb, eb);
        for (block, arm) in [(tb, then), (eb, els)] {
            self.seal(block);
            self.cur = block;
            let v = self.rvalue(arm);
            for (i, &t) in tmps.iter().enumerate() {
                let x = self.at(&v, i, tys[i]);
                self.assign_var(t, x);
            }
            self.jump(end, src);
        }
        self.seal(end);
        self.cur = end;
        tmps.into_iter().map(|t| self.use_var(t)).collect()
    }

    /// Short-circuit `&&` / `||` as an `i1`: the right operand is evaluated
    /// in its own block, the result is a φ.
    fn logical(&mut self, op: LogicalOp, lhs: &Expr, rhs: &Expr, src: Src) -> ValueId {
        // A right operand that can neither trap nor write is evaluated
        // unconditionally: `and`/`or` instead of a branch, so that
        // `sub_group_all(a && b)` stays one uniform test.
        if cheap_and_safe(rhs, 0) && !lhs.ty.is_vector() {
            let a = self.bool_value(lhs);
            let b = self.bool_value(rhs);
            let op = match op {
                LogicalOp::And => BinOp::And,
                LogicalOp::Or => BinOp::Or,
            };
            return self.bin(op, a, b, src);
        }
        let (rl, el) = match op {
            LogicalOp::And => ("land.rhs", "land.end"),
            LogicalOp::Or => ("lor.rhs", "lor.end"),
        };
        let tmp = self.new_ssa_var(Ty::I1, None);
        let a = self.bool_value(lhs);
        let rb = self.new_block(rl, src);
        let end = self.new_block(el, src);
        let short = self.const_bool(op == LogicalOp::Or);
        self.assign_var(tmp, short);
        match op {
            LogicalOp::And => self.cond_br(a, rb, end, src),
            LogicalOp::Or => self.cond_br(a, end, rb, src),
        }
        self.seal(rb);
        self.cur = rb;
        let b = self.bool_value(rhs);
        self.assign_var(tmp, b);
        self.jump(end, src);
        self.seal(end);
        self.cur = end;
        self.use_var(tmp)
    }

    // ---- conditions -----------------------------------------------------

    /// The `i1` of a `bool` expression.
    pub(super) fn bool_value(&mut self, e: &Expr) -> ValueId {
        match &e.kind {
            ExprKind::Convert {
                kind: ConvertKind::ToBool,
                expr,
            } => self.truth(expr),
            _ => {
                let v = self.rvalue(e);
                let v = self.first(&v, Ty::I1);
                if self.ty(v) == Ty::I1 {
                    v
                } else {
                    let elem = e.ty.element().unwrap_or(Scalar::Int);
                    self.truth_of(v, elem, esrc(e))
                }
            }
        }
    }

    /// `e != 0` as an `i1` for a scalar or pointer `e`. A comparison, `!`,
    /// `&&` and `||` give their `i1` directly (no `zext` and `cmp ne 0`),
    /// so conditions are the comparisons themselves.
    pub(super) fn truth(&mut self, e: &Expr) -> ValueId {
        if !self.enter(e.span) {
            return self.undef(Ty::I1);
        }
        let v = self.truth_inner(e);
        self.leave();
        v
    }

    fn truth_inner(&mut self, e: &Expr) -> ValueId {
        let src = esrc(e);
        match &e.kind {
            ExprKind::Binary { op, lhs, rhs } if op.is_comparison() && !e.ty.is_vector() => {
                self.comparison(*op, lhs, rhs, src)
            }
            ExprKind::Unary {
                op: UnaryOp::Not,
                operand,
            } if !operand.ty.is_vector() => {
                let b = self.bool_value(operand);
                let t = self.const_bool(true);
                self.bin(BinOp::Xor, b, t, src)
            }
            ExprKind::Logical { op, lhs, rhs } => self.logical(*op, lhs, rhs, src),
            ExprKind::Convert {
                kind: ConvertKind::FromBool,
                expr,
            } => self.bool_value(expr),
            ExprKind::Comma { lhs, rhs } => {
                self.rvalue(lhs);
                self.truth(rhs)
            }
            ExprKind::Builtin { call, args } => {
                if let Some(b) = self.horizontal_predicate(e, call, args) {
                    return b;
                }
                self.truth_of_expr_value(e)
            }
            _ => self.truth_of_expr_value(e),
        }
    }

    fn truth_of_expr_value(&mut self, e: &Expr) -> ValueId {
        let src = esrc(e);
        let v = self.rvalue(e);
        match &e.ty {
            Type::Pointer(p) => {
                let v = self.first(&v, Ty::Ptr(p.space));
                let i = self.cast(CastOp::PtrToInt, v, Ty::I64, src);
                let z = self.const_int(0, Ty::I64);
                self.cmp(CmpPred::Ne, i, z, src)
            }
            ty => {
                let elem = ty.element().unwrap_or(Scalar::Int);
                let v = self.first(&v, scalar_ty(elem).unwrap_or(Ty::I32));
                self.truth_of(v, elem, src)
            }
        }
    }

    /// `v != 0` for a component of type `elem` (`(bool)NaN` is true).
    pub(super) fn truth_of(&mut self, v: ValueId, elem: Scalar, src: Src) -> ValueId {
        let ty = self.ty(v);
        if ty == Ty::I1 {
            return v;
        }
        if ty.is_ptr() {
            let i = self.cast(CastOp::PtrToInt, v, Ty::I64, src);
            let z = self.const_int(0, Ty::I64);
            return self.cmp(CmpPred::Ne, i, z, src);
        }
        let z = self.zero(ty);
        if elem.is_float() || ty.is_float() {
            self.cmp(CmpPred::FUne, v, z, src)
        } else {
            self.cmp(CmpPred::Ne, v, z, src)
        }
    }

    /// Is the most significant bit of an integer set (`x < 0` signed)?
    pub(super) fn msb_set(&mut self, v: ValueId, src: Src) -> ValueId {
        let ty = self.ty(v);
        if ty == Ty::I1 {
            return v;
        }
        let z = self.zero(ty);
        self.cmp(CmpPred::Slt, v, z, src)
    }

    /// Branches to `t` when the `bool` expression `e` holds, else to `f`:
    /// `&&`, `||` and `!` become branches, so every conditional branch tests
    /// a comparison.
    pub(super) fn branch_on(&mut self, e: &Expr, t: BlockId, f: BlockId) {
        if !self.enter(e.span) {
            let u = self.undef(Ty::I1);
            self.cond_br(u, t, f, esrc(e));
            return;
        }
        match &e.kind {
            ExprKind::Convert {
                kind: ConvertKind::ToBool,
                expr,
            } => self.branch_truth(expr, t, f),
            _ => {
                let c = self.bool_value(e);
                self.cond_br(c, t, f, esrc(e));
            }
        }
        self.leave();
    }

    /// Branches on `e != 0`.
    fn branch_truth(&mut self, e: &Expr, t: BlockId, f: BlockId) {
        let src = esrc(e);
        match &e.kind {
            ExprKind::Logical { op, lhs, rhs } => {
                let label = match op {
                    LogicalOp::And => "land.rhs",
                    LogicalOp::Or => "lor.rhs",
                };
                let rb = self.new_block(label, src);
                match op {
                    LogicalOp::And => self.branch_on(lhs, rb, f),
                    LogicalOp::Or => self.branch_on(lhs, t, rb),
                }
                self.seal(rb);
                self.cur = rb;
                self.branch_on(rhs, t, f);
            }
            ExprKind::Unary {
                op: UnaryOp::Not,
                operand,
            } if !operand.ty.is_vector() => self.branch_on(operand, f, t),
            ExprKind::Convert {
                kind: ConvertKind::FromBool,
                expr,
            } => self.branch_on(expr, t, f),
            ExprKind::Comma { lhs, rhs } => {
                self.rvalue(lhs);
                if self.enter(rhs.span) {
                    self.branch_truth(rhs, t, f);
                    self.leave();
                }
            }
            _ => {
                let c = self.truth(e);
                self.cond_br(c, t, f, src);
            }
        }
    }

    // ---- conversions ----------------------------------------------------

    fn convert(&mut self, e: &Expr, kind: ConvertKind, inner: &Expr) -> Vals {
        let src = esrc(e);
        match kind {
            ConvertKind::IntToInt
            | ConvertKind::IntToFloat
            | ConvertKind::FloatToInt
            | ConvertKind::FloatToFloat
            | ConvertKind::FromBool => {
                let vals = self.rvalue(inner);
                self.convert_vals(&vals, &inner.ty, &e.ty, src)
            }
            ConvertKind::ToBool => vec![self.bool_value(e)],
            ConvertKind::Splat => {
                let v = self.rvalue(inner);
                let ty = e.ty.element().and_then(scalar_ty).unwrap_or(Ty::I32);
                let v = self.first(&v, ty);
                vec![v; e.ty.width().unwrap_or(1) as usize]
            }
            ConvertKind::ArrayDecay => match self.place(inner) {
                Place::Mem { ptr } => {
                    let to = self.ptr_ty(&e.ty);
                    vec![self.cast(CastOp::PtrCast, ptr, to, src)]
                }
                Place::Invalid => self.undef_vals(&e.ty, e.span),
                _ => {
                    self.error(e.span, "internal error: an array kept in registers");
                    self.undef_vals(&e.ty, e.span)
                }
            },
            ConvertKind::PointerCast => {
                let v = self.rvalue(inner);
                let to = self.ptr_ty(&e.ty);
                let v = self.first(&v, to);
                vec![self.cast(CastOp::PtrCast, v, to, src)]
            }
            ConvertKind::NullToPointer => {
                let to = self.ptr_ty(&e.ty);
                match to {
                    Ty::Ptr(space) => vec![self.f.add_const(Const::Null(space))],
                    _ => self.undef_vals(&e.ty, e.span),
                }
            }
            ConvertKind::PointerToInt => {
                let v = self.rvalue(inner);
                let v = self.first(&v, Ty::Ptr(AddressSpace::Private));
                let i = self.cast(CastOp::PtrToInt, v, Ty::I64, src);
                let to = e.ty.element().and_then(scalar_ty).unwrap_or(Ty::I64);
                vec![self.convert_int(i, Ty::I64, to, false, src)]
            }
            ConvertKind::IntToPointer => {
                let v = self.rvalue(inner);
                let from = inner.ty.element().unwrap_or(Scalar::Long);
                let fty = scalar_ty(from).unwrap_or(Ty::I64);
                let v = self.first(&v, fty);
                let i = self.convert_int(v, fty, Ty::I64, from.is_signed(), src);
                let to = self.ptr_ty(&e.ty);
                vec![self.cast(CastOp::IntToPtr, i, to, src)]
            }
            ConvertKind::ToVoid => {
                self.rvalue(inner);
                Vec::new()
            }
            // A sampler is its `uint` bits.
            ConvertKind::IntToSampler => self.rvalue(inner),
        }
    }

    fn ptr_ty(&self, ty: &Type) -> Ty {
        match ty {
            Type::Pointer(p) => Ty::Ptr(p.space),
            _ => Ty::Ptr(AddressSpace::Private),
        }
    }

    /// Converts a scalar or vector value component-wise from `from` to `to`
    /// (a scalar converted to a vector type is splatted).
    pub(super) fn convert_vals(
        &mut self,
        vals: &[ValueId],
        from: &Type,
        to: &Type,
        src: Src,
    ) -> Vals {
        let (Some(fe), Some(te)) = (from.element(), to.element()) else {
            if from == to {
                return vals.to_vec();
            }
            let msg = format!(
                "the conversion from `{}` to `{}` is not supported by the vectorizer",
                self.unit.type_name(from),
                self.unit.type_name(to)
            );
            self.error(src.span, msg);
            return self.undef_vals(to, src.span);
        };
        let n = to.width().unwrap_or(1) as usize;
        let fty = scalar_ty(fe).unwrap_or(Ty::I16);
        (0..n)
            .map(|c| {
                let v = if vals.len() == 1 {
                    vals[0]
                } else {
                    self.at(vals, c, fty)
                };
                self.convert_scalar(v, fe, te, src)
            })
            .collect()
    }

    /// C's conversion of one scalar value between arithmetic types.
    pub(super) fn convert_scalar(
        &mut self,
        v: ValueId,
        from: Scalar,
        to: Scalar,
        src: Src,
    ) -> ValueId {
        if from == to {
            return v;
        }
        let (Some(fty), Some(tty)) = (scalar_ty(from), scalar_ty(to)) else {
            self.error(
                src.span,
                "`half` values are not supported by the vectorizer yet",
            );
            return self.undef(scalar_ty(to).unwrap_or(Ty::I16));
        };
        if to == Scalar::Bool {
            return self.truth_of(v, from, src);
        }
        if from == Scalar::Bool {
            return if tty.is_float() {
                self.cast(CastOp::UiToFp, v, tty, src)
            } else {
                self.cast(CastOp::ZExt, v, tty, src)
            };
        }
        match (from.is_float(), to.is_float()) {
            (false, false) => self.convert_int(v, fty, tty, from.is_signed(), src),
            (false, true) => {
                let op = if from.is_signed() {
                    CastOp::SiToFp
                } else {
                    CastOp::UiToFp
                };
                self.cast(op, v, tty, src)
            }
            (true, false) => {
                let op = if to.is_signed() {
                    CastOp::FpToSi
                } else {
                    CastOp::FpToUi
                };
                self.cast(op, v, tty, src)
            }
            (true, true) => {
                if tty.bits() > fty.bits() {
                    self.cast(CastOp::FpExt, v, tty, src)
                } else if tty.bits() < fty.bits() {
                    self.cast(CastOp::FpTrunc, v, tty, src)
                } else {
                    v
                }
            }
        }
    }

    /// Integer resize: truncate, or extend by the source's signedness.
    pub(super) fn convert_int(
        &mut self,
        v: ValueId,
        from: Ty,
        to: Ty,
        signed: bool,
        src: Src,
    ) -> ValueId {
        if to.bits() < from.bits() {
            self.cast(CastOp::Trunc, v, to, src)
        } else if to.bits() > from.bits() {
            let op = if signed { CastOp::SExt } else { CastOp::ZExt };
            self.cast(op, v, to, src)
        } else {
            v
        }
    }

    /// An `i1` as a value of type `ty` (`int` 0/1 for comparisons and `!`).
    pub(super) fn widen_bool(&mut self, b: ValueId, ty: &Type, src: Src) -> ValueId {
        match ty.element() {
            Some(Scalar::Bool) => b,
            Some(s) => self.convert_scalar(b, Scalar::Bool, s, src),
            None => b,
        }
    }

    // ---- locals ---------------------------------------------------------

    /// The slot of a local of the current function (declared on first use
    /// if the declaration was not lowered, which C does not allow).
    pub(super) fn slot(&mut self, id: hir::LocalId, span: Span) -> Option<Slot> {
        let existing = self
            .frame()
            .and_then(|f| f.slots.get(id.0 as usize))
            .and_then(|s| s.clone());
        if existing.is_some() {
            return existing;
        }
        let hir = self.frame()?.hir;
        let Some(local) = hir.locals.get(id.0 as usize) else {
            self.error(span, "internal error: unknown local variable");
            return None;
        };
        self.declare_local(id, local, esrc_local(local))
    }
}

use lanes_frontend::hir;

pub(super) fn esrc_local(l: &hir::Local) -> Src {
    src_of(l.node, l.span)
}

/// An expression without side effects, traps or memory reads, small enough
/// that evaluating it when C would skip it costs less than a branch:
/// variables, constants, `+ - * & | ^ << >>`, comparisons, casts, `!`, and
/// nested `&&`/`||` of those.
fn cheap_and_safe(e: &Expr, depth: u32) -> bool {
    if depth > 8 || e.ty.is_vector() {
        return false;
    }
    let d = depth + 1;
    match &e.kind {
        ExprKind::Int(_) | ExprKind::Float(_) => true,
        ExprKind::Local(_) => true,
        ExprKind::Unary { op, operand } => {
            matches!(op, UnaryOp::Not | UnaryOp::Neg | UnaryOp::BitNot)
                && cheap_and_safe(operand, d)
        }
        ExprKind::Binary { op, lhs, rhs } => {
            !matches!(op, BinaryOp::Div | BinaryOp::Rem)
                && cheap_and_safe(lhs, d)
                && cheap_and_safe(rhs, d)
        }
        ExprKind::Logical { lhs, rhs, .. } => cheap_and_safe(lhs, d) && cheap_and_safe(rhs, d),
        ExprKind::Convert { expr, .. } => cheap_and_safe(expr, d),
        _ => false,
    }
}
