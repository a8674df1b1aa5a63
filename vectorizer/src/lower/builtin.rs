//! Built-in functions: work-item queries, math, integer, common,
//! geometric and relational functions, conversions, reinterpretation,
//! `vloadN`/`vstoreN`, and the sub-group functions. Everything is
//! element-wise on scalarized vectors; functions OpenCL defines by a formula
//! are expanded into that formula.

use lanes_frontend::ast::AddressSpace;
use lanes_frontend::builtins::{Builtin, BuiltinCall, BuiltinFn, Rounding};
use lanes_frontend::hir::{BinaryOp, Expr};
use lanes_frontend::types::{Scalar, Type};

use super::expr::esrc;
use super::types::scalar_ty;
use super::{Lowerer, Vals};
use crate::ir::{
    BinOp, CastOp, CmpPred, Horizontal, InstKind, MathFn, ReduceOp, Src, Ty, ValueId, WorkItem,
};

/// Component `i` of an argument, broadcasting scalars.
fn comp_of(vals: &[ValueId], i: usize) -> Option<ValueId> {
    if vals.len() == 1 {
        vals.first().copied()
    } else {
        vals.get(i).copied()
    }
}

fn int_range(s: Scalar) -> (i128, i128) {
    let bits = s.size() * 8;
    if s.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

impl Lowerer<'_> {
    pub(super) fn builtin(&mut self, e: &Expr, call: &BuiltinCall, args: &[Expr]) -> Vals {
        match &call.func {
            BuiltinFn::Table(b) => self.table_builtin(e, *b, call, args),
            BuiltinFn::WorkGroup(f) => self.work_group_builtin(e, *f, args),
            BuiltinFn::Image(f) => self.image_builtin(e, *f, args),
            BuiltinFn::Convert { to, sat, rounding } => {
                let src = esrc(e);
                let Some(arg) = args.first() else {
                    return self.bad_builtin(e);
                };
                let vals = self.rvalue(arg);
                let (Some(from), Some(te)) = (arg.ty.element(), to.element()) else {
                    return self.bad_builtin(e);
                };
                let fty = scalar_ty(from).unwrap_or(Ty::I32);
                let n = to.width().unwrap_or(1) as usize;
                (0..n)
                    .map(|i| {
                        let v = self.at(&vals, i, fty);
                        self.convert_builtin_elem(v, from, te, *sat, *rounding, src)
                    })
                    .collect()
            }
            BuiltinFn::As { to } => {
                let Some(arg) = args.first() else {
                    return self.bad_builtin(e);
                };
                let vals = self.rvalue(arg);
                self.reinterpret(e, &vals, &arg.ty, to)
            }
            BuiltinFn::VLoad(n) => {
                let src = esrc(e);
                let (Some(off), Some(p)) = (args.first(), args.get(1)) else {
                    return self.bad_builtin(e);
                };
                let off = self.rvalue(off);
                let ptr = self.rvalue(p);
                let Some((elem, base)) = self.vector_address(e, *n, &off, &ptr, &p.ty) else {
                    return self.bad_builtin(e);
                };
                let size = u64::from(elem.size());
                let Some(ty) = scalar_ty(elem) else {
                    return self.bad_builtin(e);
                };
                (0..u64::from(*n))
                    .map(|c| {
                        let p = self.ptr_offset(base, (c * size) as i64, src);
                        self.emit(
                            InstKind::Load {
                                ptr: p,
                                align: size,
                            },
                            ty,
                            src,
                        )
                    })
                    .collect()
            }
            BuiltinFn::VLoadHalf(h) => self.vload_half(e, *h, args),
            BuiltinFn::Printf(format) => {
                let mut vals = Vec::new();
                for a in args {
                    vals.extend(self.rvalue(a));
                }
                let r = self.emit(
                    InstKind::Printf {
                        format: format.clone(),
                        args: vals,
                    },
                    Ty::I32,
                    esrc(e),
                );
                vec![r]
            }
            BuiltinFn::VStoreHalf(h) => self.vstore_half(e, *h, args),
            BuiltinFn::VStore(n) => {
                let src = esrc(e);
                let (Some(data), Some(off), Some(p)) = (args.first(), args.get(1), args.get(2))
                else {
                    return self.bad_builtin(e);
                };
                let data = self.rvalue(data);
                let off = self.rvalue(off);
                let ptr = self.rvalue(p);
                let Some((elem, base)) = self.vector_address(e, *n, &off, &ptr, &p.ty) else {
                    return Vec::new();
                };
                let size = u64::from(elem.size());
                let ty = scalar_ty(elem).unwrap_or(Ty::I32);
                for c in 0..u64::from(*n) {
                    let v = self.at(&data, c as usize, ty);
                    let p = self.ptr_offset(base, (c * size) as i64, src);
                    self.emit_void(
                        InstKind::Store {
                            ptr: p,
                            value: v,
                            align: size,
                        },
                        src,
                    );
                }
                Vec::new()
            }
        }
    }

    fn bad_builtin(&mut self, e: &Expr) -> Vals {
        self.error(
            e.span,
            "internal error: a built-in call with unexpected arguments",
        );
        self.undef_vals(&e.ty, e.span)
    }

    /// `p + offset * n` elements for `vloadN`/`vstoreN`: the element type
    /// and the address of the first component.
    fn vector_address(
        &mut self,
        e: &Expr,
        n: u8,
        off: &[ValueId],
        ptr: &[ValueId],
        ptr_ty: &Type,
    ) -> Option<(Scalar, ValueId)> {
        let src = esrc(e);
        let elem = ptr_ty.pointee().and_then(|p| p.pointee.scalar())?;
        if scalar_ty(elem).is_none() {
            self.error(
                e.span,
                "`half` values are not supported by the vectorizer yet",
            );
            return None;
        }
        let space = ptr_ty.pointee().map_or(AddressSpace::Private, |p| p.space);
        let off = self.first(off, Ty::I64);
        let ptr = self.first(ptr, Ty::Ptr(space));
        let bytes = self.scale_index(off, u64::from(elem.size()) * u64::from(n), false, src);
        Some((elem, self.ptr_add(ptr, bytes, src)))
    }

    /// `sub_group_any(x)` / `sub_group_all(x)` as an `i1` (`x != 0` is the
    /// operand, with the comparison peephole).
    pub(super) fn horizontal_predicate(
        &mut self,
        e: &Expr,
        call: &BuiltinCall,
        args: &[Expr],
    ) -> Option<ValueId> {
        let (op, work_group) = match call.func {
            BuiltinFn::Table(Builtin::SubGroupAny) => (Horizontal::Any, false),
            BuiltinFn::Table(Builtin::SubGroupAll) => (Horizontal::All, false),
            BuiltinFn::Table(Builtin::WorkGroupAny) => (Horizontal::Any, true),
            BuiltinFn::Table(Builtin::WorkGroupAll) => (Horizontal::All, true),
            _ => return None,
        };
        let arg = args.first()?;
        let c = self.truth(arg);
        let args = vec![c];
        let kind = if work_group {
            InstKind::WorkGroup { op, args }
        } else {
            InstKind::Horizontal { op, args }
        };
        Some(self.emit(kind, Ty::I1, esrc(e)))
    }

    fn table_builtin(&mut self, e: &Expr, b: Builtin, call: &BuiltinCall, args: &[Expr]) -> Vals {
        use Builtin::*;
        let src = esrc(e);
        if let Some(v) = self.horizontal_predicate(e, call, args) {
            return vec![self.widen_bool(v, &e.ty, src)];
        }
        if let Some(v) = self.pointer_output_builtin(e, b, call, args) {
            return v;
        }
        // Arguments left to right.
        let a: Vec<Vals> = args.iter().map(|x| self.rvalue(x)).collect();
        let ret = &e.ty;
        let n = ret.width().unwrap_or(1) as usize;
        // The element type of the generic arguments.
        let elem = call
            .params
            .first()
            .and_then(Type::element)
            .or_else(|| ret.element())
            .unwrap_or(Scalar::Int);
        let ety = scalar_ty(elem).unwrap_or(Ty::I32);
        let rty = ret.element().and_then(scalar_ty).unwrap_or(ety);
        let signed = elem.is_signed();
        let float = elem.is_float();
        let arg = |this: &mut Self, k: usize, i: usize| -> ValueId {
            match a.get(k).and_then(|v| comp_of(v, i)) {
                Some(v) => v,
                None => this.undef(ety),
            }
        };
        macro_rules! each {
            (|$this:ident, $i:ident| $body:expr) => {
                (0..n)
                    .map(|$i| {
                        let $this = &mut *self;
                        $body
                    })
                    .collect::<Vals>()
            };
        }
        let math1 = |this: &mut Self, f: MathFn| -> Vals {
            (0..n)
                .map(|i| {
                    let x = arg(this, 0, i);
                    this.math(f, vec![x], ety, src)
                })
                .collect()
        };
        let math2 = |this: &mut Self, f: MathFn| -> Vals {
            (0..n)
                .map(|i| {
                    let x = arg(this, 0, i);
                    let y = arg(this, 1, i);
                    let ty = this.ty(x);
                    this.math(f, vec![x, y], ty, src)
                })
                .collect()
        };
        let fbin = |this: &mut Self, op: BinOp| -> Vals {
            (0..n)
                .map(|i| {
                    let x = arg(this, 0, i);
                    let y = arg(this, 1, i);
                    this.bin(op, x, y, src)
                })
                .collect()
        };
        let minf = if float {
            MathFn::Fmin
        } else if signed {
            MathFn::SMin
        } else {
            MathFn::UMin
        };
        let maxf = if float {
            MathFn::Fmax
        } else if signed {
            MathFn::SMax
        } else {
            MathFn::UMax
        };
        match b {
            // Work-item functions.
            GetWorkDim => vec![self.work_item(WorkItem::WorkDim, None, ret, src)],
            GetGlobalSize | GetGlobalId | GetLocalSize | GetLocalId | GetNumGroups | GetGroupId
            | GetGlobalOffset => {
                let q = match b {
                    GetGlobalSize => WorkItem::GlobalSize,
                    GetGlobalId => WorkItem::GlobalId,
                    GetLocalSize => WorkItem::LocalSize,
                    GetLocalId => WorkItem::LocalId,
                    GetNumGroups => WorkItem::NumGroups,
                    GetGroupId => WorkItem::GroupId,
                    _ => WorkItem::GlobalOffset,
                };
                let d = arg(self, 0, 0);
                let dty = self.ty(d);
                let d = self.convert_int(d, dty, Ty::I32, false, src);
                vec![self.work_item(q, Some(d), ret, src)]
            }
            GetSubGroupSize => vec![self.work_item(WorkItem::SubGroupSize, None, ret, src)],
            GetMaxSubGroupSize => vec![self.work_item(WorkItem::MaxSubGroupSize, None, ret, src)],
            GetNumSubGroups => vec![self.work_item(WorkItem::NumSubGroups, None, ret, src)],
            GetSubGroupId => vec![self.work_item(WorkItem::SubGroupId, None, ret, src)],
            GetSubGroupLocalId => vec![self.work_item(WorkItem::SubGroupLocalId, None, ret, src)],

            // Math: one function per component; native_/half_ are the
            // precise functions.
            Sqrt | NativeSqrt | HalfSqrt => math1(self, MathFn::Sqrt),
            Rsqrt | NativeRsqrt | HalfRsqrt => math1(self, MathFn::Rsqrt),
            Fabs => math1(self, MathFn::Fabs),
            Floor => math1(self, MathFn::Floor),
            Ceil => math1(self, MathFn::Ceil),
            Round => math1(self, MathFn::Round),
            Trunc => math1(self, MathFn::Trunc),
            Rint => math1(self, MathFn::Rint),
            Exp | NativeExp | HalfExp => math1(self, MathFn::Exp),
            Exp2 | NativeExp2 | HalfExp2 => math1(self, MathFn::Exp2),
            Exp10 | NativeExp10 | HalfExp10 => math1(self, MathFn::Exp10),
            Expm1 => math1(self, MathFn::Expm1),
            Log | NativeLog | HalfLog => math1(self, MathFn::Log),
            Log2 | NativeLog2 | HalfLog2 => math1(self, MathFn::Log2),
            Log10 | NativeLog10 | HalfLog10 => math1(self, MathFn::Log10),
            Log1p => math1(self, MathFn::Log1p),
            Sin | NativeSin | HalfSin => math1(self, MathFn::Sin),
            Cos | NativeCos | HalfCos => math1(self, MathFn::Cos),
            Tan | NativeTan | HalfTan => math1(self, MathFn::Tan),
            Asin => math1(self, MathFn::Asin),
            Acos => math1(self, MathFn::Acos),
            Atan => math1(self, MathFn::Atan),
            Sinh => math1(self, MathFn::Sinh),
            Cosh => math1(self, MathFn::Cosh),
            Tanh => math1(self, MathFn::Tanh),
            Asinh => math1(self, MathFn::Asinh),
            Acosh => math1(self, MathFn::Acosh),
            Atanh => math1(self, MathFn::Atanh),
            Sinpi => math1(self, MathFn::Sinpi),
            Cospi => math1(self, MathFn::Cospi),
            Cbrt => math1(self, MathFn::Cbrt),
            Lgamma => math1(self, MathFn::Lgamma),
            // Expanded by `pointer_output_builtin` above.
            Remainder | Fract | Modf | Sincos | Frexp | Remquo | LgammaR => self.bad_builtin(e),
            NativeRecip | HalfRecip => each!(|this, i| {
                let x = arg(this, 0, i);
                let one = this.const_float(1.0, ety);
                this.bin(BinOp::FDiv, one, x, src)
            }),
            Pow => math2(self, MathFn::Pow),
            Powr | NativePowr | HalfPowr => math2(self, MathFn::Powr),
            Atan2 => math2(self, MathFn::Atan2),
            Hypot => math2(self, MathFn::Hypot),
            Copysign => math2(self, MathFn::Copysign),
            Fmod => math2(self, MathFn::Fmod),
            Fdim => math2(self, MathFn::Fdim),
            NativeDivide | HalfDivide => fbin(self, BinOp::FDiv),
            Fmin => math2(self, MathFn::Fmin),
            Fmax => math2(self, MathFn::Fmax),
            Pown => math2(self, MathFn::Pown),
            Rootn => math2(self, MathFn::Rootn),
            Ldexp => math2(self, MathFn::Ldexp),
            Fma => each!(|this, i| {
                let x = arg(this, 0, i);
                let y = arg(this, 1, i);
                let z = arg(this, 2, i);
                this.math(MathFn::Fma, vec![x, y, z], ety, src)
            }),
            Mad => each!(|this, i| {
                let x = arg(this, 0, i);
                let y = arg(this, 1, i);
                let z = arg(this, 2, i);
                let p = this.bin(BinOp::FMul, x, y, src);
                this.bin(BinOp::FAdd, p, z, src)
            }),

            // Integer functions (min/max/clamp also on floats).
            Min => math2(self, minf),
            Max => math2(self, maxf),
            Clamp => each!(|this, i| {
                let x = arg(this, 0, i);
                let lo = arg(this, 1, i);
                let hi = arg(this, 2, i);
                let m = this.math(maxf, vec![x, lo], ety, src);
                this.math(minf, vec![m, hi], ety, src)
            }),
            Abs => each!(|this, i| {
                let x = arg(this, 0, i);
                if signed {
                    this.math(MathFn::IAbs, vec![x], ety, src)
                } else {
                    x
                }
            }),
            AbsDiff => each!(|this, i| {
                // |x - y| exactly: the larger minus the smaller, which fits
                // the unsigned result.
                let x = arg(this, 0, i);
                let y = arg(this, 1, i);
                let gt = this.compare(BinaryOp::Gt, elem, x, y, src);
                let d1 = this.bin(BinOp::Sub, x, y, src);
                let d2 = this.bin(BinOp::Sub, y, x, src);
                this.select(gt, d1, d2, src)
            }),
            Hadd | Rhadd => each!(|this, i| {
                // (x + y) >> 1 without overflow: (x >> 1) + (y >> 1) plus
                // the carry of the low bits (x & y & 1, or (x | y) & 1 when
                // rounding up).
                let x = arg(this, 0, i);
                let y = arg(this, 1, i);
                let sh = if signed { BinOp::AShr } else { BinOp::LShr };
                let one = this.const_int(1, ety);
                let hx = this.bin(sh, x, one, src);
                let hy = this.bin(sh, y, one, src);
                let low = if b == Hadd {
                    this.bin(BinOp::And, x, y, src)
                } else {
                    this.bin(BinOp::Or, x, y, src)
                };
                let carry = this.bin(BinOp::And, low, one, src);
                let s = this.bin(BinOp::Add, hx, hy, src);
                this.bin(BinOp::Add, s, carry, src)
            }),
            // Operands outside 24 bits are implementation-defined in OpenCL;
            // lanes defines them as the full 32-bit product.
            Mul24 => fbin(self, BinOp::Mul),
            Mad24 => each!(|this, i| {
                let x = arg(this, 0, i);
                let y = arg(this, 1, i);
                let z = arg(this, 2, i);
                let p = this.bin(BinOp::Mul, x, y, src);
                this.bin(BinOp::Add, p, z, src)
            }),
            MulHi => math2(
                self,
                if signed {
                    MathFn::SMulHi
                } else {
                    MathFn::UMulHi
                },
            ),
            MadHi => each!(|this, i| {
                let x = arg(this, 0, i);
                let y = arg(this, 1, i);
                let z = arg(this, 2, i);
                let f = if signed {
                    MathFn::SMulHi
                } else {
                    MathFn::UMulHi
                };
                let h = this.math(f, vec![x, y], ety, src);
                this.bin(BinOp::Add, h, z, src)
            }),
            MadSat => each!(|this, i| {
                let x = arg(this, 0, i);
                let y = arg(this, 1, i);
                let z = arg(this, 2, i);
                this.mad_sat(x, y, z, elem, src)
            }),
            AddSat => math2(
                self,
                if signed {
                    MathFn::SAddSat
                } else {
                    MathFn::UAddSat
                },
            ),
            SubSat => math2(
                self,
                if signed {
                    MathFn::SSubSat
                } else {
                    MathFn::USubSat
                },
            ),
            Popcount => math1(self, MathFn::Popcount),
            Clz => math1(self, MathFn::Clz),
            Ctz => math1(self, MathFn::Ctz),
            Rotate => math2(self, MathFn::Rotate),
            Upsample => each!(|this, i| {
                // (hi << bits) | lo in the type of twice the width.
                let hi = arg(this, 0, i);
                let lo = arg(this, 1, i);
                let w = this.convert_int(hi, ety, rty, signed, src);
                let k = this.const_int(i64::from(ety.bits()), rty);
                let w = this.bin(BinOp::Shl, w, k, src);
                let l = this.convert_int(lo, ety, rty, false, src);
                this.bin(BinOp::Or, w, l, src)
            }),

            // Common functions.
            Select => {
                let cvec = call.params.get(2).is_some_and(Type::is_vector);
                let celem = call
                    .params
                    .get(2)
                    .and_then(Type::element)
                    .unwrap_or(Scalar::Int);
                each!(|this, i| {
                    let x = arg(this, 0, i);
                    let y = arg(this, 1, i);
                    let c = match a.get(2).and_then(|v| comp_of(v, i)) {
                        Some(c) => c,
                        None => this.undef(Ty::I32),
                    };
                    // Vectors test the most significant bit, scalars `!= 0`.
                    let t = if cvec {
                        this.msb_set(c, src)
                    } else {
                        this.truth_of(c, celem, src)
                    };
                    this.select(t, y, x, src)
                })
            }
            Bitselect => each!(|this, i| {
                let x = arg(this, 0, i);
                let y = arg(this, 1, i);
                let c = arg(this, 2, i);
                this.bitselect(x, y, c, src)
            }),
            Mix => each!(|this, i| {
                let x = arg(this, 0, i);
                let y = arg(this, 1, i);
                let t = arg(this, 2, i);
                let d = this.bin(BinOp::FSub, y, x, src);
                let m = this.bin(BinOp::FMul, d, t, src);
                this.bin(BinOp::FAdd, x, m, src)
            }),
            Step => each!(|this, i| {
                let edge = arg(this, 0, i);
                let x = arg(this, 1, i);
                let lt = this.cmp(CmpPred::FOlt, x, edge, src);
                let zero = this.const_float(0.0, rty);
                let one = this.const_float(1.0, rty);
                this.select(lt, zero, one, src)
            }),
            Smoothstep => each!(|this, i| {
                let e0 = arg(this, 0, i);
                let e1 = arg(this, 1, i);
                let x = arg(this, 2, i);
                let num = this.bin(BinOp::FSub, x, e0, src);
                let den = this.bin(BinOp::FSub, e1, e0, src);
                let t = this.bin(BinOp::FDiv, num, den, src);
                let zero = this.const_float(0.0, rty);
                let one = this.const_float(1.0, rty);
                let t = this.math(MathFn::Fmax, vec![t, zero], rty, src);
                let t = this.math(MathFn::Fmin, vec![t, one], rty, src);
                let two = this.const_float(2.0, rty);
                let three = this.const_float(3.0, rty);
                let tt = this.bin(BinOp::FMul, two, t, src);
                let k = this.bin(BinOp::FSub, three, tt, src);
                let t2 = this.bin(BinOp::FMul, t, t, src);
                this.bin(BinOp::FMul, t2, k, src)
            }),
            Sign => each!(|this, i| {
                // 1.0 for x > 0, -1.0 for x < 0, x itself for ±0, 0.0 for NaN.
                let x = arg(this, 0, i);
                let zero = this.const_float(0.0, rty);
                let one = this.const_float(1.0, rty);
                let mone = this.const_float(-1.0, rty);
                let nan = this.cmp(CmpPred::FUno, x, x, src);
                let r = this.select(nan, zero, x, src);
                let lt = this.cmp(CmpPred::FOlt, x, zero, src);
                let r = this.select(lt, mone, r, src);
                let gt = this.cmp(CmpPred::FOgt, x, zero, src);
                this.select(gt, one, r, src)
            }),
            Degrees | Radians => each!(|this, i| {
                let x = arg(this, 0, i);
                let k = if b == Degrees {
                    180.0 / std::f64::consts::PI
                } else {
                    std::f64::consts::PI / 180.0
                };
                let k = this.const_float(k, rty);
                this.bin(BinOp::FMul, x, k, src)
            }),

            // Geometric functions.
            Dot => {
                let w = a.first().map_or(0, Vec::len);
                vec![self.dot(&a, w, ety, src)]
            }
            Cross => {
                let c = |this: &mut Self, k: usize, i: usize| arg(this, k, i);
                let mut out = Vec::with_capacity(n);
                for (p, q) in [(1, 2), (2, 0), (0, 1)] {
                    let ap = c(self, 0, p);
                    let bq = c(self, 1, q);
                    let aq = c(self, 0, q);
                    let bp = c(self, 1, p);
                    let l = self.bin(BinOp::FMul, ap, bq, src);
                    let r = self.bin(BinOp::FMul, aq, bp, src);
                    out.push(self.bin(BinOp::FSub, l, r, src));
                }
                if n == 4 {
                    out.push(self.const_float(0.0, ety));
                }
                out
            }
            Length | FastLength => {
                let p = a.first().cloned().unwrap_or_default();
                vec![self.length(&p, ety, src)]
            }
            Distance | FastDistance => {
                let w = a.first().map_or(0, Vec::len);
                let d: Vals = (0..w)
                    .map(|i| {
                        let x = arg(self, 0, i);
                        let y = arg(self, 1, i);
                        self.bin(BinOp::FSub, x, y, src)
                    })
                    .collect();
                vec![self.length(&d, ety, src)]
            }
            Normalize | FastNormalize => {
                let p = a.first().cloned().unwrap_or_default();
                let len = self.length(&p, ety, src);
                let zero = self.const_float(0.0, ety);
                // A zero vector stays zero (OpenCL 2.0) instead of NaN.
                let is0 = self.cmp(CmpPred::FOeq, len, zero, src);
                p.iter()
                    .map(|&x| {
                        let q = self.bin(BinOp::FDiv, x, len, src);
                        self.select(is0, x, q, src)
                    })
                    .collect()
            }

            // Relational functions: `int` 1/0 for scalars, -1/0 for vectors.
            Isnan | Isinf | Isfinite | Isnormal | Signbit => each!(|this, i| {
                let x = arg(this, 0, i);
                let t = this.classify(b, x, ety, src);
                this.rel_result(t, ret, src)
            }),
            Isequal | Isnotequal | Isgreater | Isgreaterequal | Isless | Islessequal
            | Islessgreater | Isordered | Isunordered => each!(|this, i| {
                let x = arg(this, 0, i);
                let y = arg(this, 1, i);
                let t = match b {
                    Isequal => this.cmp(CmpPred::FOeq, x, y, src),
                    Isnotequal => this.cmp(CmpPred::FUne, x, y, src),
                    Isgreater => this.cmp(CmpPred::FOgt, x, y, src),
                    Isgreaterequal => this.cmp(CmpPred::FOge, x, y, src),
                    Isless => this.cmp(CmpPred::FOlt, x, y, src),
                    Islessequal => this.cmp(CmpPred::FOle, x, y, src),
                    Islessgreater => {
                        let l = this.cmp(CmpPred::FOlt, x, y, src);
                        let g = this.cmp(CmpPred::FOgt, x, y, src);
                        this.bin(BinOp::Or, l, g, src)
                    }
                    Isordered => this.cmp(CmpPred::FOrd, x, y, src),
                    _ => this.cmp(CmpPred::FUno, x, y, src),
                };
                this.rel_result(t, ret, src)
            }),
            Any | All => {
                let vals = a.first().cloned().unwrap_or_default();
                let mut acc: Option<ValueId> = None;
                for v in vals {
                    let m = self.msb_set(v, src);
                    acc = Some(match acc {
                        None => m,
                        Some(p) => {
                            let op = if b == Any { BinOp::Or } else { BinOp::And };
                            self.bin(op, p, m, src)
                        }
                    });
                }
                let t = match acc {
                    Some(t) => t,
                    None => self.const_bool(b == All),
                };
                vec![self.widen_bool(t, ret, src)]
            }

            // Sub-group functions (any/all were handled above).
            SubGroupAny | SubGroupAll | WorkGroupAny | WorkGroupAll => self.bad_builtin(e),
            WorkGroupBroadcast => {
                let x = arg(self, 0, 0);
                let mut ops = vec![x];
                for ids in a.iter().skip(1) {
                    let id = match ids.first() {
                        Some(&v) => v,
                        None => self.undef(Ty::I64),
                    };
                    ops.push(id);
                }
                vec![self.emit(
                    InstKind::WorkGroup {
                        op: Horizontal::Broadcast,
                        args: ops,
                    },
                    ety,
                    src,
                )]
            }
            SubGroupBroadcast => {
                let x = arg(self, 0, 0);
                let lane = match a.get(1).and_then(|v| v.first().copied()) {
                    Some(l) => l,
                    None => self.undef(Ty::I32),
                };
                let lty = self.ty(lane);
                let lane = self.convert_int(lane, lty, Ty::I32, false, src);
                vec![self.emit(
                    InstKind::Horizontal {
                        op: Horizontal::Broadcast,
                        args: vec![x, lane],
                    },
                    ety,
                    src,
                )]
            }
            SubGroupReduceAdd
            | SubGroupReduceMin
            | SubGroupReduceMax
            | SubGroupScanInclusiveAdd
            | SubGroupScanInclusiveMin
            | SubGroupScanInclusiveMax
            | SubGroupScanExclusiveAdd
            | SubGroupScanExclusiveMin
            | SubGroupScanExclusiveMax
            | WorkGroupReduceAdd
            | WorkGroupReduceMin
            | WorkGroupReduceMax
            | WorkGroupScanInclusiveAdd
            | WorkGroupScanInclusiveMin
            | WorkGroupScanInclusiveMax
            | WorkGroupScanExclusiveAdd
            | WorkGroupScanExclusiveMin
            | WorkGroupScanExclusiveMax => {
                let kind = match b {
                    SubGroupReduceAdd
                    | SubGroupScanInclusiveAdd
                    | SubGroupScanExclusiveAdd
                    | WorkGroupReduceAdd
                    | WorkGroupScanInclusiveAdd
                    | WorkGroupScanExclusiveAdd => 0,
                    SubGroupReduceMin
                    | SubGroupScanInclusiveMin
                    | SubGroupScanExclusiveMin
                    | WorkGroupReduceMin
                    | WorkGroupScanInclusiveMin
                    | WorkGroupScanExclusiveMin => 1,
                    _ => 2,
                };
                let rop = match (kind, float, signed) {
                    (0, true, _) => ReduceOp::FAdd,
                    (0, false, _) => ReduceOp::Add,
                    (1, true, _) => ReduceOp::FMin,
                    (1, false, true) => ReduceOp::SMin,
                    (1, false, false) => ReduceOp::UMin,
                    (_, true, _) => ReduceOp::FMax,
                    (_, false, true) => ReduceOp::SMax,
                    (_, false, false) => ReduceOp::UMax,
                };
                let op = match b {
                    SubGroupReduceAdd | SubGroupReduceMin | SubGroupReduceMax
                    | WorkGroupReduceAdd | WorkGroupReduceMin | WorkGroupReduceMax => {
                        Horizontal::Reduce(rop)
                    }
                    SubGroupScanInclusiveAdd
                    | SubGroupScanInclusiveMin
                    | SubGroupScanInclusiveMax
                    | WorkGroupScanInclusiveAdd
                    | WorkGroupScanInclusiveMin
                    | WorkGroupScanInclusiveMax => Horizontal::ScanInclusive(rop),
                    _ => Horizontal::ScanExclusive(rop),
                };
                let args = vec![arg(self, 0, 0)];
                let kind = if b.name().starts_with("work_group_") {
                    InstKind::WorkGroup { op, args }
                } else {
                    InstKind::Horizontal { op, args }
                };
                vec![self.emit(kind, ety, src)]
            }

            // Constants behind INFINITY, NAN, HUGE_VALF and HUGE_VAL.
            InfF | HugeValF => vec![self.const_float(f64::INFINITY, Ty::F32)],
            HugeVal => vec![self.const_float(f64::INFINITY, Ty::F64)],
            NanF => vec![self.const_float(f64::NAN, Ty::F32)],
        }
    }

    /// A work-item query, converted from its IR type (`i64` or `i32`) to
    /// the HIR result type.
    fn work_item(&mut self, q: WorkItem, dim: Option<ValueId>, ret: &Type, src: Src) -> ValueId {
        let ty = match q {
            WorkItem::WorkDim
            | WorkItem::SubGroupSize
            | WorkItem::SubGroupLocalId
            | WorkItem::NumSubGroups
            | WorkItem::SubGroupId
            | WorkItem::MaxSubGroupSize => Ty::I32,
            WorkItem::LaneMask => Ty::I1,
            _ => Ty::I64,
        };
        let v = self.emit(InstKind::WorkItem { query: q, dim }, ty, src);
        let to = ret.element().and_then(scalar_ty).unwrap_or(ty);
        self.convert_int(v, ty, to, false, src)
    }

    fn rel_result(&mut self, t: ValueId, ret: &Type, src: Src) -> ValueId {
        match ret {
            Type::Vector(s, _) => {
                let ty = scalar_ty(*s).unwrap_or(Ty::I32);
                self.cast(CastOp::SExt, t, ty, src)
            }
            _ => self.widen_bool(t, ret, src),
        }
    }

    fn classify(&mut self, b: Builtin, x: ValueId, ty: Ty, src: Src) -> ValueId {
        let inf = self.const_float(f64::INFINITY, ty);
        match b {
            Builtin::Isnan => self.cmp(CmpPred::FUno, x, x, src),
            Builtin::Isinf => {
                let a = self.math(MathFn::Fabs, vec![x], ty, src);
                self.cmp(CmpPred::FOeq, a, inf, src)
            }
            Builtin::Isfinite => {
                let a = self.math(MathFn::Fabs, vec![x], ty, src);
                self.cmp(CmpPred::FOlt, a, inf, src)
            }
            Builtin::Isnormal => {
                let a = self.math(MathFn::Fabs, vec![x], ty, src);
                let min = if ty == Ty::F32 {
                    f64::from(f32::MIN_POSITIVE)
                } else {
                    f64::MIN_POSITIVE
                };
                let min = self.const_float(min, ty);
                let ge = self.cmp(CmpPred::FOge, a, min, src);
                let lt = self.cmp(CmpPred::FOlt, a, inf, src);
                self.bin(BinOp::And, ge, lt, src)
            }
            _ => {
                // signbit: the sign bit of the representation.
                let ity = if ty == Ty::F32 { Ty::I32 } else { Ty::I64 };
                let bits = self.cast(CastOp::Bitcast, x, ity, src);
                let z = self.const_int(0, ity);
                self.cmp(CmpPred::Slt, bits, z, src)
            }
        }
    }

    fn dot(&mut self, a: &[Vals], w: usize, ty: Ty, src: Src) -> ValueId {
        let mut acc: Option<ValueId> = None;
        for i in 0..w {
            let x = a.first().and_then(|v| v.get(i).copied());
            let y = a.get(1).and_then(|v| v.get(i).copied());
            let (Some(x), Some(y)) = (x, y) else { break };
            let p = self.bin(BinOp::FMul, x, y, src);
            acc = Some(match acc {
                None => p,
                Some(s) => self.bin(BinOp::FAdd, s, p, src),
            });
        }
        match acc {
            Some(v) => v,
            None => self.undef(ty),
        }
    }

    /// `sqrt(dot(p, p))`; for a scalar `fabs(p)`, which is exact.
    fn length(&mut self, p: &[ValueId], ty: Ty, src: Src) -> ValueId {
        if p.len() == 1 {
            return self.math(MathFn::Fabs, vec![p[0]], ty, src);
        }
        let d = self.dot(&[p.to_vec(), p.to_vec()], p.len(), ty, src);
        self.math(MathFn::Sqrt, vec![d], ty, src)
    }

    /// `(x & ~c) | (y & c)` on the bits (floats through their bits).
    fn bitselect(&mut self, x: ValueId, y: ValueId, c: ValueId, src: Src) -> ValueId {
        let ty = self.ty(x);
        let ity = match ty {
            Ty::F32 => Ty::I32,
            Ty::F64 => Ty::I64,
            other => other,
        };
        let to_int = |this: &mut Self, v: ValueId| {
            if ty.is_float() {
                this.cast(CastOp::Bitcast, v, ity, src)
            } else {
                v
            }
        };
        let (xi, yi, ci) = (to_int(self, x), to_int(self, y), to_int(self, c));
        let ones = self.const_int(-1, ity);
        let nc = self.bin(BinOp::Xor, ci, ones, src);
        let l = self.bin(BinOp::And, xi, nc, src);
        let r = self.bin(BinOp::And, yi, ci, src);
        let v = self.bin(BinOp::Or, l, r, src);
        if ty.is_float() {
            self.cast(CastOp::Bitcast, v, ty, src)
        } else {
            v
        }
    }

    /// `mad_sat(x, y, z)`: `x * y + z` saturated to the type, exactly.
    fn mad_sat(&mut self, x: ValueId, y: ValueId, z: ValueId, elem: Scalar, src: Src) -> ValueId {
        let ty = self.ty(x);
        let signed = elem.is_signed();
        let (lo, hi) = int_range(elem);
        if ty.bits() < 64 {
            // Exact in 64 bits: |x * y + z| < 2^63 for 32-bit operands.
            let ext = if signed { CastOp::SExt } else { CastOp::ZExt };
            let (x, y, z) = (
                self.cast(ext, x, Ty::I64, src),
                self.cast(ext, y, Ty::I64, src),
                self.cast(ext, z, Ty::I64, src),
            );
            let p = self.bin(BinOp::Mul, x, y, src);
            let s = self.bin(BinOp::Add, p, z, src);
            let hic = self.const_int(hi as i64, Ty::I64);
            let clamped = if signed {
                let loc = self.const_int(lo as i64, Ty::I64);
                let m = self.math(MathFn::SMax, vec![s, loc], Ty::I64, src);
                self.math(MathFn::SMin, vec![m, hic], Ty::I64, src)
            } else {
                self.math(MathFn::UMin, vec![s, hic], Ty::I64, src)
            };
            return self.cast(CastOp::Trunc, clamped, ty, src);
        }
        // 64 bits: the 128-bit product as (high, low) words plus z.
        let plo = self.bin(BinOp::Mul, x, y, src);
        let sum = self.bin(BinOp::Add, plo, z, src);
        let carry = self.cmp(CmpPred::Ult, sum, plo, src);
        if signed {
            let phi = self.math(MathFn::SMulHi, vec![x, y], ty, src);
            let k63 = self.const_int(63, ty);
            let zhi = self.bin(BinOp::AShr, z, k63, src);
            let c = self.cast(CastOp::ZExt, carry, ty, src);
            let h = self.bin(BinOp::Add, phi, zhi, src);
            let h = self.bin(BinOp::Add, h, c, src);
            let sign = self.bin(BinOp::AShr, sum, k63, src);
            let fits = self.cmp(CmpPred::Eq, h, sign, src);
            let z0 = self.const_int(0, ty);
            let neg = self.cmp(CmpPred::Slt, h, z0, src);
            let min = self.const_int(i64::MIN, ty);
            let max = self.const_int(i64::MAX, ty);
            let sat = self.select(neg, min, max, src);
            self.select(fits, sum, sat, src)
        } else {
            let phi = self.math(MathFn::UMulHi, vec![x, y], ty, src);
            let z0 = self.const_int(0, ty);
            let big = self.cmp(CmpPred::Ne, phi, z0, src);
            let ovf = self.bin(BinOp::Or, big, carry, src);
            let max = self.const_int(-1, ty);
            self.select(ovf, max, sum, src)
        }
    }

    // ---- convert_T ------------------------------------------------------

    fn convert_builtin_elem(
        &mut self,
        v: ValueId,
        from: Scalar,
        to: Scalar,
        sat: bool,
        rounding: Rounding,
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
            return self.undef(Ty::I16);
        };
        if from == Scalar::Bool {
            return self.convert_scalar(v, from, to, src);
        }
        match (from.is_float(), to.is_float()) {
            (false, false) => {
                let v = if sat {
                    self.clamp_to_range(v, from, to, src)
                } else {
                    v
                };
                self.convert_int(v, fty, tty, from.is_signed(), src)
            }
            (false, true) => {
                let op = if from.is_signed() {
                    CastOp::SiToFp
                } else {
                    CastOp::UiToFp
                };
                let r = self.cast(op, v, tty, src);
                match rounding {
                    Rounding::Default | Rounding::Rte => r,
                    _ => {
                        // Where the nearest float lies relative to the exact
                        // integer, compared in the integer type (a saturating
                        // conversion back is exact for integral floats).
                        let signed = from.is_signed();
                        let back_op = if signed {
                            CastOp::FpToSiSat
                        } else {
                            CastOp::FpToUiSat
                        };
                        let back = self.cast(back_op, r, fty, src);
                        let (gt_p, lt_p) = if signed {
                            (CmpPred::Sgt, CmpPred::Slt)
                        } else {
                            (CmpPred::Ugt, CmpPred::Ult)
                        };
                        let gt_int = self.cmp(gt_p, back, v, src);
                        let bits = fty.bits() - u32::from(signed);
                        let lim = self.const_float(2f64.powi(bits as i32), tty);
                        let big = self.cmp(CmpPred::FOge, r, lim, src);
                        let gt = self.bin(BinOp::Or, gt_int, big, src);
                        let lt = self.cmp(lt_p, back, v, src);
                        let z = self.const_int(0, fty);
                        let (pos, neg) = if signed {
                            (
                                self.cmp(CmpPred::Sgt, v, z, src),
                                self.cmp(CmpPred::Slt, v, z, src),
                            )
                        } else {
                            (self.cmp(CmpPred::Ne, v, z, src), self.const_bool(false))
                        };
                        self.adjust_rounding(r, rounding, gt, lt, pos, neg, src)
                    }
                }
            }
            (true, false) => {
                let x = match rounding {
                    Rounding::Default | Rounding::Rtz => v,
                    Rounding::Rte => self.math(MathFn::Rint, vec![v], fty, src),
                    Rounding::Rtp => self.math(MathFn::Ceil, vec![v], fty, src),
                    Rounding::Rtn => self.math(MathFn::Floor, vec![v], fty, src),
                };
                let op = match (sat, to.is_signed()) {
                    (true, true) => CastOp::FpToSiSat,
                    (true, false) => CastOp::FpToUiSat,
                    (false, true) => CastOp::FpToSi,
                    (false, false) => CastOp::FpToUi,
                };
                self.cast(op, x, tty, src)
            }
            (true, true) => {
                if tty.bits() >= fty.bits() {
                    // Widening is exact.
                    return self.cast(CastOp::FpExt, v, tty, src);
                }
                let r = self.cast(CastOp::FpTrunc, v, tty, src);
                match rounding {
                    Rounding::Default | Rounding::Rte => r,
                    _ => {
                        let back = self.cast(CastOp::FpExt, r, fty, src);
                        let gt = self.cmp(CmpPred::FOgt, back, v, src);
                        let lt = self.cmp(CmpPred::FOlt, back, v, src);
                        let z = self.const_float(0.0, fty);
                        let pos = self.cmp(CmpPred::FOgt, v, z, src);
                        let neg = self.cmp(CmpPred::FOlt, v, z, src);
                        self.adjust_rounding(r, rounding, gt, lt, pos, neg, src)
                    }
                }
            }
        }
    }

    /// Turns the round-to-nearest result `r` into a directed rounding, given
    /// whether `r` is above (`gt`) or below (`lt`) the exact value and the
    /// exact value's sign.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn adjust_rounding(
        &mut self,
        r: ValueId,
        rounding: Rounding,
        gt: ValueId,
        lt: ValueId,
        pos: ValueId,
        neg: ValueId,
        src: Src,
    ) -> ValueId {
        match rounding {
            Rounding::Rtz => {
                // Too large in magnitude: one step toward zero.
                let a = self.bin(BinOp::And, gt, pos, src);
                let b = self.bin(BinOp::And, lt, neg, src);
                let c = self.bin(BinOp::Or, a, b, src);
                let down = self.float_step(r, false, true, src);
                self.select(c, down, r, src)
            }
            Rounding::Rtp => {
                let up = self.float_step(r, true, false, src);
                self.select(lt, up, r, src)
            }
            Rounding::Rtn => {
                let down = self.float_step(r, false, false, src);
                self.select(gt, down, r, src)
            }
            Rounding::Default | Rounding::Rte => r,
        }
    }

    /// The neighbouring float of `r`: toward zero, or up / down.
    /// An `i16` `r` is the bits of a `half`.
    fn float_step(&mut self, r: ValueId, up: bool, toward_zero: bool, src: Src) -> ValueId {
        let ty = self.ty(r);
        let half = ty == Ty::I16;
        let ity = match ty {
            Ty::F32 => Ty::I32,
            Ty::F64 => Ty::I64,
            _ => ty,
        };
        let from_bits = |this: &mut Self, b: ValueId| {
            if half {
                b
            } else {
                this.cast(CastOp::Bitcast, b, ty, src)
            }
        };
        let bits = if half {
            r
        } else {
            self.cast(CastOp::Bitcast, r, ity, src)
        };
        let one = self.const_int(1, ity);
        let dec = self.bin(BinOp::Sub, bits, one, src);
        if toward_zero {
            return from_bits(self, dec);
        }
        let inc = self.bin(BinOp::Add, bits, one, src);
        let z = self.const_int(0, ity);
        let negative = self.cmp(CmpPred::Slt, bits, z, src);
        // Away from zero is +1 on the bits, toward zero -1.
        let stepped = if up {
            self.select(negative, dec, inc, src)
        } else {
            self.select(negative, inc, dec, src)
        };
        // From ±0 the next value is the smallest denormal of the direction.
        let is0 = if half {
            let m = self.const_int(0x7fff, ity);
            let mag = self.bin(BinOp::And, bits, m, src);
            let z = self.const_int(0, ity);
            self.cmp(CmpPred::Eq, mag, z, src)
        } else {
            let fz = self.const_float(0.0, ty);
            self.cmp(CmpPred::FOeq, r, fz, src)
        };
        let tiny = if up {
            one
        } else {
            let sign = match ity {
                Ty::I16 => 0x8001u16 as i16 as i64,
                Ty::I32 => 0x8000_0001u32 as i32 as i64,
                _ => i64::MIN + 1,
            };
            self.const_int(sign, ity)
        };
        let b = self.select(is0, tiny, stepped, src);
        from_bits(self, b)
    }

    /// Clamps an integer to the range of `to` (for `convert_T_sat`).
    fn clamp_to_range(&mut self, v: ValueId, from: Scalar, to: Scalar, src: Src) -> ValueId {
        let ty = self.ty(v);
        let (smin, smax) = int_range(from);
        let (dmin, dmax) = int_range(to);
        let lo = smin.max(dmin);
        let hi = smax.min(dmax);
        let signed = from.is_signed();
        let mut v = v;
        if lo > smin {
            let c = self.const_int(lo as i64, ty);
            let f = if signed { MathFn::SMax } else { MathFn::UMax };
            v = self.math(f, vec![v, c], ty, src);
        }
        if hi < smax {
            let c = self.const_int(hi as i64, ty);
            let f = if signed { MathFn::SMin } else { MathFn::UMin };
            v = self.math(f, vec![v, c], ty, src);
        }
        v
    }

    // ---- as_T -----------------------------------------------------------

    /// `as_T(x)`: the same bytes as another type. Components of different
    /// sizes are cut and joined with shifts in little-endian order.
    fn reinterpret(&mut self, e: &Expr, vals: &[ValueId], from: &Type, to: &Type) -> Vals {
        let src = esrc(e);
        let (Some(fe), Some(te)) = (from.element(), to.element()) else {
            return self.bad_builtin(e);
        };
        let (Some(fty), Some(tty)) = (scalar_ty(fe), scalar_ty(te)) else {
            return self.bad_builtin(e);
        };
        let fi = Ty::int(fty.bits()).unwrap_or(Ty::I32);
        let ti = Ty::int(tty.bits()).unwrap_or(Ty::I32);
        // 3-component vectors occupy 4 components.
        let padded = |n: u8| if n == 3 { 4 } else { n as usize };
        let fnum = padded(from.width().unwrap_or(1));
        let tnum = to.width().unwrap_or(1) as usize;
        let tpad = padded(tnum as u8);
        let ints: Vals = (0..fnum)
            .map(|i| {
                let v = self.at(vals, i, fty);
                if fty.is_float() {
                    self.cast(CastOp::Bitcast, v, fi, src)
                } else {
                    v
                }
            })
            .collect();
        let (fs, ts) = (fi.bits(), ti.bits());
        let mut out = Vec::with_capacity(tpad);
        for d in 0..tpad {
            let v = if fs == ts {
                self.at(&ints, d, fi)
            } else if ts > fs {
                // Several source components make one: low bytes first.
                let k = (ts / fs) as usize;
                let mut acc: Option<ValueId> = None;
                for j in 0..k {
                    let part = self.at(&ints, d * k + j, fi);
                    let w = self.cast(CastOp::ZExt, part, ti, src);
                    let w = if j == 0 {
                        w
                    } else {
                        let sh = self.const_int((j as u32 * fs) as i64, ti);
                        self.bin(BinOp::Shl, w, sh, src)
                    };
                    acc = Some(match acc {
                        None => w,
                        Some(a) => self.bin(BinOp::Or, a, w, src),
                    });
                }
                match acc {
                    Some(a) => a,
                    None => self.undef(ti),
                }
            } else {
                // One source component makes several.
                let k = (fs / ts) as usize;
                let part = self.at(&ints, d / k, fi);
                let shift = ((d % k) as u32 * ts) as i64;
                let s = if shift == 0 {
                    part
                } else {
                    let sh = self.const_int(shift, fi);
                    self.bin(BinOp::LShr, part, sh, src)
                };
                self.cast(CastOp::Trunc, s, ti, src)
            };
            out.push(if tty.is_float() {
                self.cast(CastOp::Bitcast, v, tty, src)
            } else {
                v
            });
        }
        out.truncate(tnum);
        out
    }
}
