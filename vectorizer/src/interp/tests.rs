//! Unit tests of the interpreter on hand-built IR.

use super::*;
use crate::ir::{BinOp, CastOp, CmpPred, Param, Src};
use lanes_frontend::ast::NodeId;
use lanes_frontend::source::FileId;

const G: Ty = Ty::Ptr(AddressSpace::Global);
const C: Ty = Ty::Ptr(AddressSpace::Constant);
const L: Ty = Ty::Ptr(AddressSpace::Local);

fn span(start: u32, end: u32) -> Span {
    Span::new(FileId(0), start, end)
}

fn src(start: u32) -> Src {
    Src {
        node: NodeId(start),
        span: span(start, start + 1),
    }
}

/// A small IR builder: appends to the current block; every instruction
/// gets a distinct span (its creation order) so tests can check locations.
struct B {
    f: Function,
    cur: BlockId,
    next_span: u32,
}

impl B {
    fn new() -> B {
        let mut f = Function::new("k", span(0, 1));
        let cur = f.add_block("entry");
        B {
            f,
            cur,
            next_span: 100,
        }
    }

    fn param(&mut self, name: &str, ty: Ty) -> ValueId {
        let n = self.f.params.len() as u32;
        self.f.add_param(Param {
            name: name.into(),
            ty,
            source_index: n,
            component: None,
            span: span(n, n + 1),
        })
    }

    fn block(&mut self, label: &str) -> BlockId {
        self.f.add_block(label)
    }

    fn at(&mut self, b: BlockId) {
        self.cur = b;
    }

    fn int(&mut self, v: i64, ty: Ty) -> ValueId {
        self.f.const_int(v, ty)
    }

    fn i32(&mut self, v: i64) -> ValueId {
        self.int(v, Ty::I32)
    }

    fn i64(&mut self, v: i64) -> ValueId {
        self.int(v, Ty::I64)
    }

    fn f32(&mut self, x: f32) -> ValueId {
        self.f.add_const(Const::Float(x as f64, Ty::F32))
    }

    fn f64(&mut self, x: f64) -> ValueId {
        self.f.add_const(Const::Float(x, Ty::F64))
    }

    fn undef(&mut self, ty: Ty) -> ValueId {
        self.f.add_const(Const::Undef(ty))
    }

    /// Appends an instruction; returns its result (or a dummy for void).
    fn ins(&mut self, kind: InstKind, ty: Ty) -> ValueId {
        self.ins_src(kind, ty).1
    }

    fn ins_src(&mut self, kind: InstKind, ty: Ty) -> (Src, ValueId) {
        let s = src(self.next_span);
        self.next_span += 1;
        let (_, v) = self.f.append(self.cur, kind, ty, s);
        (s, v.unwrap_or(ValueId(u32::MAX)))
    }

    fn bin(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId {
        let ty = self.f.ty(a);
        self.ins(InstKind::Bin { op, lhs: a, rhs: b }, ty)
    }

    fn cmp(&mut self, pred: CmpPred, a: ValueId, b: ValueId) -> ValueId {
        self.ins(
            InstKind::Cmp {
                pred,
                lhs: a,
                rhs: b,
            },
            Ty::I1,
        )
    }

    fn cast(&mut self, op: CastOp, v: ValueId, to: Ty) -> ValueId {
        self.ins(InstKind::Cast { op, value: v }, to)
    }

    fn math(&mut self, func: MathFn, args: &[ValueId], ty: Ty) -> ValueId {
        self.ins(
            InstKind::Math {
                func,
                args: args.to_vec(),
            },
            ty,
        )
    }

    fn hor(&mut self, op: Horizontal, args: &[ValueId], ty: Ty) -> ValueId {
        self.ins(
            InstKind::Horizontal {
                op,
                args: args.to_vec(),
            },
            ty,
        )
    }

    fn wi(&mut self, query: WorkItem, dim: u32) -> ValueId {
        let ty = if query.has_dim() { Ty::I64 } else { Ty::I32 };
        let d = query.has_dim().then(|| self.i32(dim as i64));
        self.ins(InstKind::WorkItem { query, dim: d }, ty)
    }

    /// `base + index * size`, index an i64.
    fn elem(&mut self, base: ValueId, index: ValueId, size: i64) -> ValueId {
        let s = self.i64(size);
        let off = self.bin(BinOp::Mul, index, s);
        let ty = self.f.ty(base);
        self.ins(InstKind::PtrAdd { base, offset: off }, ty)
    }

    fn load(&mut self, ptr: ValueId, ty: Ty) -> ValueId {
        self.ins(
            InstKind::Load {
                ptr,
                align: ty.bytes(),
            },
            ty,
        )
    }

    fn store(&mut self, ptr: ValueId, value: ValueId) -> Src {
        let align = self.f.ty(value).bytes();
        self.ins_src(InstKind::Store { ptr, value, align }, Ty::Void)
            .0
    }

    fn br(&mut self, b: BlockId) {
        self.ins(InstKind::Br(b), Ty::Void);
    }

    fn cond_br(&mut self, cond: ValueId, then: BlockId, els: BlockId) {
        self.ins(InstKind::CondBr { cond, then, els }, Ty::Void);
    }

    fn ret(&mut self) {
        self.ins(InstKind::Ret, Ty::Void);
    }

    fn phi(&mut self, ty: Ty, incoming: Vec<(BlockId, ValueId)>) -> (InstId, ValueId) {
        let s = src(self.next_span);
        self.next_span += 1;
        self.f.add_phi(self.cur, ty, incoming, s)
    }
}

fn i32s(bytes: &[u8]) -> Vec<i32> {
    bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes_i32(xs: &[i32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn bytes_f32(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn buffer(a: &ArgValue) -> &[u8] {
    match a {
        ArgValue::Buffer(b) => b,
        _ => panic!("not a buffer"),
    }
}

/// Builds a one-work-item kernel whose body `body` computes one value,
/// stores it to `out[0]` and returns the stored little-endian bits.
fn eval(body: impl FnOnce(&mut B) -> ValueId) -> Result<u64, InterpError> {
    let mut b = B::new();
    let out = b.param("out", G);
    let v = body(&mut b);
    b.store(out, v);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 8])];
    run(&b.f, &NdRange::new_1d(1, 1), &mut args, 1)?;
    let mut raw = [0u8; 8];
    raw.copy_from_slice(buffer(&args[0]));
    Ok(u64::from_le_bytes(raw))
}

fn eval_int(body: impl FnOnce(&mut B) -> ValueId) -> i64 {
    let mut ty = Ty::I64;
    let bits = eval(|b| {
        let v = body(b);
        ty = b.f.ty(v);
        v
    })
    .unwrap_or_else(|e| panic!("{e}"));
    sign_extend(bits, ty.bits())
}

fn eval_f32(body: impl FnOnce(&mut B) -> ValueId) -> f32 {
    f32::from_bits(eval(body).unwrap_or_else(|e| panic!("{e}")) as u32)
}

fn eval_f64(body: impl FnOnce(&mut B) -> ValueId) -> f64 {
    f64::from_bits(eval(body).unwrap_or_else(|e| panic!("{e}")))
}

fn eval_err(body: impl FnOnce(&mut B) -> ValueId) -> InterpError {
    match eval(body) {
        Ok(v) => panic!("expected an error, got {v:#x}"),
        Err(e) => e,
    }
}

fn int_bin(op: BinOp, ty: Ty, x: i64, y: i64) -> Result<u64, InterpError> {
    eval(|b| {
        let (x, y) = (b.int(x, ty), b.int(y, ty));
        b.bin(op, x, y)
    })
}

fn ibin(op: BinOp, ty: Ty, x: i64, y: i64) -> i64 {
    let v = int_bin(op, ty, x, y).unwrap_or_else(|e| panic!("{e}"));
    sign_extend(v, ty.bits())
}

// ---- integer arithmetic ---------------------------------------------------

#[test]
fn integer_ops_wrap_at_the_type_width() {
    assert_eq!(
        ibin(BinOp::Add, Ty::I32, i32::MAX as i64, 1),
        i32::MIN as i64
    );
    assert_eq!(ibin(BinOp::Sub, Ty::I16, 0, 1), -1);
    assert_eq!(ibin(BinOp::Mul, Ty::I8, 16, 16), 0);
    assert_eq!(ibin(BinOp::Mul, Ty::I8, 100, 3), 44); // 300 - 256
    assert_eq!(ibin(BinOp::Add, Ty::I64, i64::MAX, 1), i64::MIN);
    // The stored bits of an i16 are exactly two bytes.
    let bits = int_bin(BinOp::Sub, Ty::I16, 0, 1).unwrap();
    assert_eq!(bits, 0xffff);
}

#[test]
fn division_truncates_and_traps() {
    assert_eq!(ibin(BinOp::SDiv, Ty::I32, -7, 2), -3);
    assert_eq!(ibin(BinOp::SRem, Ty::I32, -7, 2), -1);
    assert_eq!(ibin(BinOp::SRem, Ty::I32, 7, -2), 1);
    assert_eq!(ibin(BinOp::UDiv, Ty::I32, -1, 2), 0x7fff_ffff);
    assert_eq!(ibin(BinOp::URem, Ty::I8, -1, 10), 5); // 255 % 10
    for op in [BinOp::SDiv, BinOp::SRem, BinOp::UDiv, BinOp::URem] {
        let e = int_bin(op, Ty::I32, 5, 0).unwrap_err();
        assert_eq!(e.kind, ErrorKind::DivisionByZero, "{op:?}");
    }
    for (ty, min) in [
        (Ty::I8, i8::MIN as i64),
        (Ty::I32, i32::MIN as i64),
        (Ty::I64, i64::MIN),
    ] {
        let e = int_bin(BinOp::SDiv, ty, min, -1).unwrap_err();
        assert_eq!(e.kind, ErrorKind::DivisionByZero);
        assert!(e.message.contains("overflow"), "{}", e.message);
        let e = int_bin(BinOp::SRem, ty, min, -1).unwrap_err();
        assert_eq!(e.kind, ErrorKind::DivisionByZero);
    }
    // MIN / 1 and -MAX / -1 are fine.
    assert_eq!(
        ibin(BinOp::SDiv, Ty::I32, i32::MIN as i64, 1),
        i32::MIN as i64
    );
    assert_eq!(
        ibin(BinOp::SDiv, Ty::I32, -(i32::MAX as i64), -1),
        i32::MAX as i64
    );
}

#[test]
fn shifts_and_their_range() {
    assert_eq!(ibin(BinOp::Shl, Ty::I32, 1, 31), i32::MIN as i64);
    assert_eq!(ibin(BinOp::Shl, Ty::I8, 0x41, 1), -126); // 0x82
    assert_eq!(ibin(BinOp::AShr, Ty::I32, -8, 1), -4);
    assert_eq!(ibin(BinOp::LShr, Ty::I32, -8, 28), 0xf);
    assert_eq!(ibin(BinOp::AShr, Ty::I16, i16::MIN as i64, 15), -1);
    for op in [BinOp::Shl, BinOp::LShr, BinOp::AShr] {
        let e = int_bin(op, Ty::I32, 1, 32).unwrap_err();
        assert_eq!(e.kind, ErrorKind::ShiftOutOfRange);
        // A negative count is a huge unsigned one.
        let e = int_bin(op, Ty::I32, 1, -1).unwrap_err();
        assert_eq!(e.kind, ErrorKind::ShiftOutOfRange);
    }
    assert_eq!(ibin(BinOp::Shl, Ty::I64, 1, 63), i64::MIN);
}

#[test]
fn bitwise_and_integer_compares() {
    assert_eq!(ibin(BinOp::And, Ty::I32, 0b1100, 0b1010), 0b1000);
    assert_eq!(ibin(BinOp::Or, Ty::I32, 0b1100, 0b1010), 0b1110);
    assert_eq!(ibin(BinOp::Xor, Ty::I32, 0b1100, 0b1010), 0b0110);
    let cmp = |pred, x, y| {
        eval_int(|b| {
            let (x, y) = (b.i32(x), b.i32(y));
            let c = b.cmp(pred, x, y);
            b.cast(CastOp::ZExt, c, Ty::I32)
        })
    };
    assert_eq!(cmp(CmpPred::Slt, -1, 0), 1);
    assert_eq!(cmp(CmpPred::Ult, -1, 0), 0);
    assert_eq!(cmp(CmpPred::Sge, 5, 5), 1);
    assert_eq!(cmp(CmpPred::Ugt, -1, 7), 1);
    assert_eq!(cmp(CmpPred::Ne, 3, 3), 0);
    assert_eq!(cmp(CmpPred::Eq, -3, -3), 1);
}

// ---- floats -------------------------------------------------------------

#[test]
fn f32_arithmetic_rounds_every_step() {
    // In f64 this would be 1; in f32, 1e8 + 1 rounds back to 1e8.
    let r = eval_f32(|b| {
        let (big, one) = (b.f32(1e8), b.f32(1.0));
        let s = b.bin(BinOp::FAdd, big, one);
        b.bin(BinOp::FSub, s, big)
    });
    assert_eq!(r, 0.0);
    let r = eval_f64(|b| {
        let (big, one) = (b.f64(1e8), b.f64(1.0));
        let s = b.bin(BinOp::FAdd, big, one);
        b.bin(BinOp::FSub, s, big)
    });
    assert_eq!(r, 1.0);
    let r = eval_f32(|b| {
        let (x, y) = (b.f32(-5.5), b.f32(2.0));
        b.bin(BinOp::FRem, x, y)
    });
    assert_eq!(r, -1.5);
    let r = eval_f32(|b| {
        let (x, y) = (b.f32(1.0), b.f32(0.0));
        b.bin(BinOp::FDiv, x, y)
    });
    assert_eq!(r, f32::INFINITY);
    let r = eval_f32(|b| {
        let x = b.f32(0.0);
        b.ins(InstKind::FNeg(x), Ty::F32)
    });
    assert!(r == 0.0 && r.is_sign_negative());
}

#[test]
fn float_compares_with_nan() {
    let cmp = |pred, x: f32, y: f32| {
        eval_int(|b| {
            let (x, y) = (b.f32(x), b.f32(y));
            let c = b.cmp(pred, x, y);
            b.cast(CastOp::ZExt, c, Ty::I32)
        })
    };
    let nan = f32::NAN;
    assert_eq!(cmp(CmpPred::FOlt, nan, 1.0), 0);
    assert_eq!(cmp(CmpPred::FOge, nan, 1.0), 0);
    assert_eq!(cmp(CmpPred::FOeq, nan, nan), 0);
    assert_eq!(cmp(CmpPred::FUne, nan, nan), 1);
    assert_eq!(cmp(CmpPred::FUne, 1.0, 1.0), 0);
    assert_eq!(cmp(CmpPred::FUno, nan, 1.0), 1);
    assert_eq!(cmp(CmpPred::FUno, 2.0, 1.0), 0);
    assert_eq!(cmp(CmpPred::FOrd, 2.0, 1.0), 1);
    assert_eq!(cmp(CmpPred::FOrd, 2.0, nan), 0);
    assert_eq!(cmp(CmpPred::FOle, 1.0, 1.0), 1);
    assert_eq!(cmp(CmpPred::FOeq, 0.0, -0.0), 1);
}

#[test]
fn fmin_fmax_ignore_nan() {
    let mm = |func, x: f32, y: f32| {
        eval_f32(|b| {
            let (x, y) = (b.f32(x), b.f32(y));
            b.math(func, &[x, y], Ty::F32)
        })
    };
    assert_eq!(mm(MathFn::Fmin, f32::NAN, 1.0), 1.0);
    assert_eq!(mm(MathFn::Fmin, 1.0, f32::NAN), 1.0);
    assert_eq!(mm(MathFn::Fmax, f32::NAN, -3.0), -3.0);
    assert_eq!(mm(MathFn::Fmax, 2.0, -3.0), 2.0);
    assert_eq!(mm(MathFn::Fmin, 2.0, -3.0), -3.0);
    assert!(mm(MathFn::Fmin, f32::NAN, f32::NAN).is_nan());
    assert!(mm(MathFn::Fmin, 0.0, -0.0).is_sign_negative());
    assert!(mm(MathFn::Fmax, -0.0, 0.0).is_sign_positive());
}

fn cast_int(op: CastOp, from: Const, to: Ty) -> Result<i64, InterpError> {
    eval(|b| {
        let v = b.f.add_const(from);
        b.cast(op, v, to)
    })
    .map(|bits| sign_extend(bits, to.bits()))
}

fn f(x: f64, ty: Ty) -> Const {
    Const::Float(x, ty)
}

#[test]
fn integer_casts() {
    assert_eq!(
        cast_int(CastOp::Trunc, Const::int(0x1234, Ty::I32), Ty::I8).unwrap(),
        0x34
    );
    assert_eq!(
        cast_int(CastOp::SExt, Const::int(-1, Ty::I8), Ty::I32).unwrap(),
        -1
    );
    assert_eq!(
        eval(|b| {
            let v = b.int(-1, Ty::I8);
            b.cast(CastOp::SExt, v, Ty::I32)
        })
        .unwrap(),
        0xffff_ffff
    );
    assert_eq!(
        cast_int(CastOp::ZExt, Const::int(-1, Ty::I8), Ty::I32).unwrap(),
        255
    );
    assert_eq!(
        cast_int(CastOp::ZExt, Const::int(1, Ty::I1), Ty::I32).unwrap(),
        1
    );
    assert_eq!(
        cast_int(CastOp::SExt, Const::int(1, Ty::I1), Ty::I32).unwrap(),
        -1
    );
}

#[test]
fn float_to_int_conversions_check_the_range() {
    use CastOp::*;
    assert_eq!(cast_int(FpToSi, f(3.9, Ty::F32), Ty::I32).unwrap(), 3);
    assert_eq!(cast_int(FpToSi, f(-3.9, Ty::F32), Ty::I32).unwrap(), -3);
    assert_eq!(cast_int(FpToUi, f(-0.5, Ty::F32), Ty::I32).unwrap(), 0);
    assert_eq!(
        cast_int(FpToSi, f(-2147483648.0, Ty::F32), Ty::I32).unwrap(),
        i32::MIN as i64
    );
    assert_eq!(cast_int(FpToSi, f(127.99, Ty::F64), Ty::I8).unwrap(), 127);
    assert_eq!(
        cast_int(FpToUi, f(4294967295.0, Ty::F64), Ty::I32).unwrap(),
        -1
    );
    for (op, x, ty) in [
        (FpToSi, 2147483648.0, Ty::I32),
        (FpToSi, 128.0, Ty::I8),
        (FpToSi, -129.0, Ty::I8),
        (FpToUi, -1.0, Ty::I32),
        (FpToUi, 4294967296.0, Ty::I32),
        (FpToSi, f64::NAN, Ty::I32),
        (FpToSi, f64::INFINITY, Ty::I64),
        (FpToSi, 9.3e18, Ty::I64),
    ] {
        let e = cast_int(op, f(x, Ty::F64), ty).unwrap_err();
        assert_eq!(e.kind, ErrorKind::ConversionOverflow, "{op:?} {x} {ty}");
    }
}

#[test]
fn saturating_conversions() {
    use CastOp::*;
    assert_eq!(
        cast_int(FpToSiSat, f(1e10, Ty::F32), Ty::I32).unwrap(),
        i32::MAX as i64
    );
    assert_eq!(
        cast_int(FpToSiSat, f(-1e10, Ty::F32), Ty::I32).unwrap(),
        i32::MIN as i64
    );
    assert_eq!(
        cast_int(FpToSiSat, f(f64::NAN, Ty::F32), Ty::I32).unwrap(),
        0
    );
    assert_eq!(
        cast_int(FpToSiSat, f(f64::NEG_INFINITY, Ty::F64), Ty::I64).unwrap(),
        i64::MIN
    );
    assert_eq!(cast_int(FpToSiSat, f(-3.7, Ty::F32), Ty::I8).unwrap(), -3);
    assert_eq!(cast_int(FpToUiSat, f(-5.0, Ty::F32), Ty::I8).unwrap(), 0);
    assert_eq!(cast_int(FpToUiSat, f(300.0, Ty::F32), Ty::I8).unwrap(), -1); // 255
    assert_eq!(
        cast_int(FpToUiSat, f(f64::NAN, Ty::F64), Ty::I16).unwrap(),
        0
    );
    assert_eq!(cast_int(FpToSiSat, f(200.0, Ty::F32), Ty::I8).unwrap(), 127);
}

#[test]
fn int_to_float_rounds_to_nearest_and_bitcasts() {
    // 2^24 + 1 is not an f32: ties to even gives 2^24.
    let r = eval_f32(|b| {
        let v = b.i32(16_777_217);
        b.cast(CastOp::SiToFp, v, Ty::F32)
    });
    assert_eq!(r, 16_777_216.0);
    let r = eval_f32(|b| {
        let v = b.i32(-1);
        b.cast(CastOp::UiToFp, v, Ty::F32)
    });
    assert_eq!(r, 4_294_967_296.0);
    let r = eval_f32(|b| {
        let v = b.i32(-3);
        b.cast(CastOp::SiToFp, v, Ty::F32)
    });
    assert_eq!(r, -3.0);
    // No double rounding through f64: 2^62 + 2^38 + 1 rounds up in one step.
    let x: i64 = (1 << 62) + (1 << 38) + 1;
    let r = eval_f32(|b| {
        let v = b.i64(x);
        b.cast(CastOp::SiToFp, v, Ty::F32)
    });
    assert_eq!(r, x as f32);
    assert_eq!(
        eval(|b| {
            let v = b.f32(1.0);
            b.cast(CastOp::Bitcast, v, Ty::I32)
        })
        .unwrap(),
        0x3f80_0000
    );
    let r = eval_f32(|b| {
        let v = b.f64(0.1);
        b.cast(CastOp::FpTrunc, v, Ty::F32)
    });
    assert_eq!(r, 0.1f32);
}

// ---- math built-ins -----------------------------------------------------

fn m32(func: MathFn, xs: &[f32]) -> f32 {
    eval_f32(|b| {
        let args: Vec<ValueId> = xs.iter().map(|&x| b.f32(x)).collect();
        b.math(func, &args, Ty::F32)
    })
}

fn m32n(func: MathFn, x: f32, n: i32) -> f32 {
    eval_f32(|b| {
        let (x, n) = (b.f32(x), b.i32(n as i64));
        b.math(func, &[x, n], Ty::F32)
    })
}

fn mint(func: MathFn, ty: Ty, xs: &[i64]) -> i64 {
    eval_int(|b| {
        let args: Vec<ValueId> = xs.iter().map(|&x| b.int(x, ty)).collect();
        b.math(func, &args, ty)
    })
}

#[test]
fn rounding_functions() {
    assert_eq!(m32(MathFn::Rint, &[2.5]), 2.0);
    assert_eq!(m32(MathFn::Rint, &[3.5]), 4.0);
    assert_eq!(m32(MathFn::Rint, &[-2.5]), -2.0);
    assert_eq!(m32(MathFn::Round, &[2.5]), 3.0);
    assert_eq!(m32(MathFn::Round, &[-2.5]), -3.0);
    assert_eq!(m32(MathFn::Trunc, &[-2.7]), -2.0);
    assert_eq!(m32(MathFn::Floor, &[-2.1]), -3.0);
    assert_eq!(m32(MathFn::Ceil, &[-2.1]), -2.0);
    assert_eq!(m32(MathFn::Fabs, &[-0.5]), 0.5);
}

#[test]
fn float_functions_in_the_types_precision() {
    assert_eq!(m32(MathFn::Exp, &[1.5]), 1.5f32.exp());
    assert_eq!(m32(MathFn::Sqrt, &[2.0]), 2.0f32.sqrt());
    assert_eq!(m32(MathFn::Rsqrt, &[4.0]), 0.5);
    assert_eq!(m32(MathFn::Log2, &[8.0]), 3.0);
    assert_eq!(m32(MathFn::Exp10, &[2.0]), 100.0);
    assert_eq!(m32(MathFn::Pow, &[2.0, 10.0]), 1024.0);
    assert_eq!(m32(MathFn::Fma, &[2.0, 3.0, 1.0]), 7.0);
    // fma rounds once: (1 + 2^-23)^2 - 1 keeps the 2^-46 term.
    let e = f32::EPSILON;
    assert_eq!(m32(MathFn::Fma, &[1.0 + e, 1.0 + e, -1.0]), 2.0 * e + e * e);
    assert_eq!(m32(MathFn::Fdim, &[5.0, 3.0]), 2.0);
    assert_eq!(m32(MathFn::Fdim, &[3.0, 5.0]), 0.0);
    assert!(m32(MathFn::Fdim, &[f32::NAN, 5.0]).is_nan());
    assert_eq!(m32(MathFn::Copysign, &[2.0, -0.0]), -2.0);
    assert_eq!(m32(MathFn::Fmod, &[7.0, -4.0]), 3.0);
    assert_eq!(m32(MathFn::Hypot, &[3.0, 4.0]), 5.0);
    assert_eq!(m32(MathFn::Atan2, &[1.0, 1.0]), 1.0f32.atan2(1.0));
    assert_eq!(m32(MathFn::Cbrt, &[-27.0]), -3.0);
    let d = eval_f64(|b| {
        let x = b.f64(0.7);
        b.math(MathFn::Sin, &[x], Ty::F64)
    });
    assert_eq!(d, 0.7f64.sin());
}

#[test]
fn sinpi_cospi_are_exact_at_special_points() {
    assert_eq!(m32(MathFn::Sinpi, &[0.5]), 1.0);
    assert_eq!(m32(MathFn::Sinpi, &[1.0]).to_bits(), 0.0f32.to_bits());
    assert_eq!(m32(MathFn::Sinpi, &[-1.0]).to_bits(), (-0.0f32).to_bits());
    assert_eq!(m32(MathFn::Sinpi, &[1e7]), 0.0);
    assert_eq!(m32(MathFn::Sinpi, &[1.5]), -1.0);
    assert_eq!(m32(MathFn::Sinpi, &[0.25]), (0.5f64.sqrt()) as f32);
    assert_eq!(m32(MathFn::Cospi, &[0.5]), 0.0);
    assert_eq!(m32(MathFn::Cospi, &[1.0]), -1.0);
    assert_eq!(m32(MathFn::Cospi, &[-2.0]), 1.0);
    assert_eq!(m32(MathFn::Cospi, &[1e7 + 1.0]), -1.0);
    assert!(m32(MathFn::Sinpi, &[f32::INFINITY]).is_nan());
    assert!((super::ops::sinpi(1.0 / 6.0) - 0.5).abs() <= 1e-16);
    assert!((super::ops::cospi(1.0 / 3.0) - 0.5).abs() <= 1e-16);
}

#[test]
fn pown_rootn_ldexp_take_an_int() {
    assert_eq!(m32n(MathFn::Pown, 2.0, -2), 0.25);
    assert_eq!(m32n(MathFn::Pown, -2.0, 3), -8.0);
    assert_eq!(m32n(MathFn::Pown, 0.0, 0), 1.0);
    assert_eq!(m32n(MathFn::Rootn, -8.0, 3), -2.0);
    assert!(m32n(MathFn::Rootn, -8.0, 2).is_nan());
    assert!(m32n(MathFn::Rootn, 8.0, 0).is_nan());
    assert_eq!(m32n(MathFn::Rootn, 16.0, 4), 2.0);
    assert_eq!(m32n(MathFn::Rootn, -0.0, -3), f32::NEG_INFINITY);
    assert_eq!(m32n(MathFn::Ldexp, 1.0, -149), f32::from_bits(1));
    assert_eq!(m32n(MathFn::Ldexp, 1.0, 128), f32::INFINITY);
    assert_eq!(m32n(MathFn::Ldexp, 3.0, 4), 48.0);
    // 1.5 * 2^-149 rounds to even (2^-148) in one step.
    assert_eq!(m32n(MathFn::Ldexp, 1.5, -149), f32::from_bits(2));
    assert_eq!(m32n(MathFn::Ldexp, f32::MAX, -300), f32::from_bits(0));
    assert_eq!(super::ops::ldexp64(1.0, -1074), f64::from_bits(1));
    assert_eq!(super::ops::ldexp64(1.0, 1024), f64::INFINITY);
    assert_eq!(super::ops::ldexp64(f64::MIN_POSITIVE, 2000), 2f64.powi(978));
}

#[test]
fn powr_special_cases() {
    assert!(m32(MathFn::Powr, &[-2.0, 2.0]).is_nan());
    assert!(m32(MathFn::Powr, &[0.0, 0.0]).is_nan());
    assert!(m32(MathFn::Powr, &[1.0, f32::INFINITY]).is_nan());
    assert_eq!(m32(MathFn::Powr, &[0.0, -1.0]), f32::INFINITY);
    assert_eq!(m32(MathFn::Powr, &[4.0, 0.5]), 2.0);
}

#[test]
fn integer_functions() {
    use MathFn::*;
    assert_eq!(mint(Clz, Ty::I32, &[0]), 32);
    assert_eq!(mint(Clz, Ty::I32, &[1]), 31);
    assert_eq!(mint(Clz, Ty::I8, &[1]), 7);
    assert_eq!(mint(Clz, Ty::I64, &[-1]), 0);
    assert_eq!(mint(Ctz, Ty::I16, &[0]), 16);
    assert_eq!(mint(Ctz, Ty::I32, &[8]), 3);
    assert_eq!(mint(Popcount, Ty::I32, &[-1]), 32);
    assert_eq!(mint(Popcount, Ty::I8, &[0x55]), 4);
    assert_eq!(mint(Rotate, Ty::I32, &[0x8000_0001u32 as i32 as i64, 1]), 3);
    assert_eq!(
        mint(Rotate, Ty::I32, &[0x8000_0001u32 as i32 as i64, 33]),
        3
    );
    assert_eq!(mint(Rotate, Ty::I8, &[0x81, 4]), 0x18);
    assert_eq!(mint(Rotate, Ty::I32, &[5, 0]), 5);
    assert_eq!(mint(IAbs, Ty::I32, &[i32::MIN as i64]), i32::MIN as i64);
    assert_eq!(mint(IAbs, Ty::I32, &[-5]), 5);
    assert_eq!(mint(SMulHi, Ty::I32, &[i32::MIN as i64, 2]), -1);
    assert_eq!(mint(UMulHi, Ty::I32, &[-1, -1]), -2); // 0xfffffffe
    assert_eq!(
        mint(SMulHi, Ty::I64, &[i64::MAX, i64::MAX]),
        ((i64::MAX as i128 * i64::MAX as i128) >> 64) as i64
    );
    assert_eq!(mint(UMulHi, Ty::I64, &[-1, 2]), 1);
    assert_eq!(
        mint(SAddSat, Ty::I32, &[i32::MAX as i64, 1]),
        i32::MAX as i64
    );
    assert_eq!(mint(SSubSat, Ty::I8, &[-100, 100]), -128);
    assert_eq!(mint(UAddSat, Ty::I8, &[200, 100]), -1); // 255
    assert_eq!(mint(USubSat, Ty::I32, &[3, 5]), 0);
    assert_eq!(mint(SMin, Ty::I32, &[-1, 1]), -1);
    assert_eq!(mint(UMin, Ty::I32, &[-1, 1]), 1);
    assert_eq!(mint(SMax, Ty::I16, &[-1, 1]), 1);
    assert_eq!(mint(UMax, Ty::I16, &[-1, 1]), -1);
}

// ---- control flow -------------------------------------------------------

/// `out[gid] = sum(i for i in 0..n[gid])` with a φ loop.
fn sum_loop() -> Function {
    let mut b = B::new();
    let out = b.param("out", G);
    let ns = b.param("n", C);
    let entry = b.cur;
    let (header, body, exit) = (b.block("for.cond"), b.block("for.body"), b.block("for.end"));
    let gid = b.wi(WorkItem::GlobalId, 0);
    let np = b.elem(ns, gid, 4);
    let n = b.load(np, Ty::I32);
    let zero = b.i32(0);
    b.br(header);
    b.at(header);
    let (i_phi, i) = b.phi(Ty::I32, vec![(entry, zero)]);
    let (s_phi, s) = b.phi(Ty::I32, vec![(entry, zero)]);
    let c = b.cmp(CmpPred::Slt, i, n);
    b.cond_br(c, body, exit);
    b.at(body);
    let s2 = b.bin(BinOp::Add, s, i);
    let one = b.i32(1);
    let i2 = b.bin(BinOp::Add, i, one);
    b.br(header);
    for (phi, v) in [(i_phi, i2), (s_phi, s2)] {
        if let InstKind::Phi { incoming } = &mut b.f.inst_mut(phi).kind {
            incoming.push((body, v));
        }
    }
    b.at(exit);
    let p = b.elem(out, gid, 4);
    b.store(p, s);
    b.ret();
    b.f
}

#[test]
fn loop_with_phis() {
    let f = sum_loop();
    let mut args = vec![
        ArgValue::Buffer(vec![0; 16]),
        ArgValue::Buffer(bytes_i32(&[0, 1, 5, 100])),
    ];
    let stats = run(&f, &NdRange::new_1d(4, 2), &mut args, 4).unwrap();
    assert_eq!(i32s(buffer(&args[0])), vec![0, 0, 10, 4950]);
    assert_eq!(stats.work_items, 4);
    assert_eq!(stats.work_groups, 2);
    assert_eq!(stats.sub_groups, 2);
    // Per work-item: entry 5 (wi, mul, ptradd, load, br), header 4 per
    // visit (2 φs, cmp, condbr), body 3 per iteration, exit 4.
    let per = |n: u64| 5 + (n + 1) * 4 + n * 3 + 4;
    assert_eq!(stats.instructions, per(0) + per(1) + per(5) + per(100));
}

#[test]
fn switch_picks_the_case_or_the_default() {
    let mut b = B::new();
    let out = b.param("out", G);
    let gid = b.wi(WorkItem::GlobalId, 0);
    let x = b.cast(CastOp::Trunc, gid, Ty::I32);
    let (c1, c3, def, end) = (
        b.block("sw.1"),
        b.block("sw.3"),
        b.block("sw.default"),
        b.block("sw.end"),
    );
    b.ins(
        InstKind::Switch {
            value: x,
            default: def,
            cases: vec![(1, c1), (3, c3), (0xffff_ffff, c1)],
        },
        Ty::Void,
    );
    let mut vals = Vec::new();
    for (blk, v) in [(c1, 10), (c3, 30), (def, 99)] {
        b.at(blk);
        vals.push((blk, b.i32(v)));
        b.br(end);
    }
    b.at(end);
    let (_, r) = b.phi(Ty::I32, vals);
    let p = b.elem(out, gid, 4);
    b.store(p, r);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 20])];
    run(&b.f, &NdRange::new_1d(5, 5), &mut args, 8).unwrap();
    assert_eq!(i32s(buffer(&args[0])), vec![99, 10, 99, 30, 99]);
}

#[test]
fn step_limit_stops_an_endless_loop() {
    let mut b = B::new();
    let l = b.block("loop");
    b.br(l);
    b.at(l);
    b.br(l);
    let opts = Options {
        sub_group_width: 4,
        step_limit: 1000,
        check_all_races: false,
    };
    let e = run_with(&b.f, &NdRange::new_1d(8, 8), &mut [], &opts).unwrap_err();
    assert_eq!(e.kind, ErrorKind::StepLimit);
    assert_eq!(e.work_item, [0, 0, 0]);
    // The loop's branch is the second instruction (span 101).
    assert_eq!(e.span, span(101, 102));
}

#[test]
fn unreachable_is_reported() {
    let mut b = B::new();
    let (s, _) = b.ins_src(InstKind::Unreachable, Ty::Void);
    let e = run(&b.f, &NdRange::new_1d(1, 1), &mut [], 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unreachable);
    assert_eq!(e.span, s.span);
}

// ---- memory errors ------------------------------------------------------

#[test]
fn out_of_bounds_load_names_span_work_item_and_buffer() {
    // out[gid] = in[gid + 1] on 4 elements: work-item 3 reads in[4].
    let mut b = B::new();
    let out = b.param("out", G);
    let inp = b.param("in", C);
    let gid = b.wi(WorkItem::GlobalId, 0);
    let one = b.i64(1);
    let j = b.bin(BinOp::Add, gid, one);
    let p = b.elem(inp, j, 4);
    let load_src = src(b.next_span);
    let x = b.load(p, Ty::F32);
    let q = b.elem(out, gid, 4);
    b.store(q, x);
    b.ret();
    let mut args = vec![
        ArgValue::Buffer(vec![0; 16]),
        ArgValue::Buffer(bytes_f32(&[1.0, 2.0, 3.0, 4.0])),
    ];
    let e = run(&b.f, &NdRange::new_1d(4, 4), &mut args, 4).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfBounds);
    assert_eq!(e.span, load_src.span);
    assert_eq!(e.work_item, [3, 0, 0]);
    assert_eq!(
        e.message,
        "load of 4 bytes at offset 16 of buffer `in` (16 bytes)"
    );
    // The work-items before it ran and their stores are kept.
    assert_eq!(f32s(buffer(&args[0])), vec![2.0, 3.0, 4.0, 0.0]);
}

#[test]
fn out_of_bounds_store_and_straddling_access() {
    let mut b = B::new();
    let out = b.param("out", G);
    let gid = b.wi(WorkItem::GlobalId, 0);
    // Byte offset gid * 3 with 4-byte stores, alignment 1: work-item 2
    // writes bytes 6..10 of an 8-byte buffer.
    let p = b.elem(out, gid, 3);
    let v = b.i32(7);
    let s = b.ins_src(
        InstKind::Store {
            ptr: p,
            value: v,
            align: 1,
        },
        Ty::Void,
    );
    b.ret();
    // The stores overlap (a race inside a group): one work-item per group.
    let mut args = vec![ArgValue::Buffer(vec![0; 8])];
    let e = run(&b.f, &NdRange::new_1d(3, 1), &mut args, 4).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfBounds);
    assert_eq!(e.span, s.0.span);
    assert_eq!(e.work_item, [2, 0, 0]);
    assert!(
        e.message.starts_with("store of 4 bytes at offset 6"),
        "{}",
        e.message
    );
}

#[test]
fn misaligned_access_is_reported() {
    let r = eval(|b| {
        let a = b.ins(
            InstKind::Alloca { size: 8, align: 4 },
            Ty::Ptr(AddressSpace::Private),
        );
        let two = b.i64(2);
        let p = b.ins(
            InstKind::PtrAdd {
                base: a,
                offset: two,
            },
            Ty::Ptr(AddressSpace::Private),
        );
        let v = b.i32(1);
        b.store(p, v);
        v
    });
    assert_eq!(r.unwrap_err().kind, ErrorKind::Misaligned);
}

#[test]
fn uninitialized_private_read() {
    let e = eval_err(|b| {
        let a = b.ins(
            InstKind::Alloca { size: 8, align: 4 },
            Ty::Ptr(AddressSpace::Private),
        );
        let v = b.i32(5);
        b.store(a, v);
        let four = b.i64(4);
        let p = b.ins(
            InstKind::PtrAdd {
                base: a,
                offset: four,
            },
            Ty::Ptr(AddressSpace::Private),
        );
        b.load(p, Ty::I32)
    });
    assert_eq!(e.kind, ErrorKind::UninitializedRead);
    assert_eq!(e.span, span(103, 104));
    // The initialized half reads fine.
    let v = eval_int(|b| {
        let a = b.ins(
            InstKind::Alloca { size: 8, align: 4 },
            Ty::Ptr(AddressSpace::Private),
        );
        let v = b.i32(5);
        b.store(a, v);
        b.load(a, Ty::I32)
    });
    assert_eq!(v, 5);
}

#[test]
fn each_alloca_execution_is_a_fresh_object() {
    // A loop whose body allocates, writes on the first iteration only and
    // reads on every one: the second iteration's object is uninitialized.
    let mut b = B::new();
    let out = b.param("out", G);
    let entry = b.cur;
    let (body, exit) = (b.block("body"), b.block("exit"));
    let zero = b.i32(0);
    b.br(body);
    b.at(body);
    let (phi, i) = b.phi(Ty::I32, vec![(entry, zero)]);
    let a = b.ins(
        InstKind::Alloca { size: 4, align: 4 },
        Ty::Ptr(AddressSpace::Private),
    );
    let first = b.cmp(CmpPred::Eq, i, zero);
    let (w, r) = (b.block("write"), b.block("read"));
    b.cond_br(first, w, r);
    b.at(w);
    let seven = b.i32(7);
    b.store(a, seven);
    b.br(r);
    b.at(r);
    let x = b.load(a, Ty::I32);
    b.store(out, x);
    let one = b.i32(1);
    let i2 = b.bin(BinOp::Add, i, one);
    let two = b.i32(2);
    let more = b.cmp(CmpPred::Slt, i2, two);
    b.cond_br(more, body, exit);
    if let InstKind::Phi { incoming } = &mut b.f.inst_mut(phi).kind {
        incoming.push((r, i2));
    }
    b.at(exit);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 4])];
    let e = run(&b.f, &NdRange::new_1d(1, 1), &mut args, 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UninitializedRead);
    assert_eq!(i32s(buffer(&args[0])), vec![7]);
}

#[test]
fn store_into_constant_memory() {
    let mut b = B::new();
    let c = b.param("table", C);
    let v = b.i32(1);
    let s = b.store(c, v);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 4])];
    let e = run(&b.f, &NdRange::new_1d(1, 1), &mut args, 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ConstantWrite);
    assert_eq!(e.span, s.span);
    assert!(e.message.contains("buffer `table`"), "{}", e.message);

    // Program-scope __constant globals are read-only too, and readable.
    let mut b = B::new();
    let out = b.param("out", G);
    let g = b.f.add_global(ir::Global {
        name: "lut".into(),
        bytes: bytes_i32(&[11, 22]),
        align: 4,
        span: span(5, 8),
    });
    let four = b.i64(4);
    let p = b.ins(
        InstKind::PtrAdd {
            base: g,
            offset: four,
        },
        C,
    );
    let x = b.load(p, Ty::I32);
    b.store(out, x);
    b.store(g, x);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 4])];
    let e = run(&b.f, &NdRange::new_1d(1, 1), &mut args, 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ConstantWrite);
    assert!(e.message.contains("__constant `lut`"), "{}", e.message);
    assert_eq!(i32s(buffer(&args[0])), vec![22]);
}

#[test]
fn null_pointer_dereference() {
    let e = eval_err(|b| {
        let n = b.f.add_const(Const::Null(AddressSpace::Global));
        b.load(n, Ty::I32)
    });
    assert_eq!(e.kind, ErrorKind::InvalidPointer);
}

#[test]
fn pointers_in_memory_and_ptrtoint() {
    // A private slot holding a pointer to out[1]; store through it; and
    // ptrtoint(&out[3]) - ptrtoint(&out[0]) == 12.
    let mut b = B::new();
    let out = b.param("out", G);
    let slot = b.ins(
        InstKind::Alloca { size: 8, align: 8 },
        Ty::Ptr(AddressSpace::Private),
    );
    let one = b.i64(1);
    let p1 = b.elem(out, one, 4);
    b.store(slot, p1);
    let q = b.load(slot, G);
    let v = b.i32(42);
    b.store(q, v);
    let three = b.i64(3);
    let p3 = b.elem(out, three, 4);
    let a3 = b.cast(CastOp::PtrToInt, p3, Ty::I64);
    let a0 = b.cast(CastOp::PtrToInt, out, Ty::I64);
    let d = b.bin(BinOp::Sub, a3, a0);
    let d32 = b.cast(CastOp::Trunc, d, Ty::I32);
    let back = b.cast(CastOp::IntToPtr, a3, G);
    b.store(back, d32);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 16])];
    run(&b.f, &NdRange::new_1d(1, 1), &mut args, 1).unwrap();
    assert_eq!(i32s(buffer(&args[0])), vec![0, 42, 0, 12]);
}

// ---- undef --------------------------------------------------------------

#[test]
fn undef_use_is_an_error_but_phi_and_select_pass_it_on() {
    let e = eval_err(|b| {
        let u = b.undef(Ty::I32);
        let one = b.i32(1);
        b.bin(BinOp::Add, u, one)
    });
    assert_eq!(e.kind, ErrorKind::UninitializedRead);
    // select picks the defined operand; the undef one is never used.
    let v = eval_int(|b| {
        let u = b.undef(Ty::I32);
        let five = b.i32(5);
        let t = b.int(1, Ty::I1);
        let s = b.ins(
            InstKind::Select {
                cond: t,
                then: five,
                els: u,
            },
            Ty::I32,
        );
        let s2 = b.ins(
            InstKind::Select {
                cond: t,
                then: u,
                els: five,
            },
            Ty::I32,
        );
        // s2 is undef but never used; s is 5.
        let _ = s2;
        s
    });
    assert_eq!(v, 5);
    // An undef select condition is a use.
    let e = eval_err(|b| {
        let c = b.undef(Ty::I1);
        let (x, y) = (b.i32(1), b.i32(2));
        b.ins(
            InstKind::Select {
                cond: c,
                then: x,
                els: y,
            },
            Ty::I32,
        )
    });
    assert_eq!(e.kind, ErrorKind::UninitializedRead);
    // Storing undef is a use too.
    let e = eval_err(|b| b.undef(Ty::I32));
    assert_eq!(e.kind, ErrorKind::UninitializedRead);
}

#[test]
fn undef_through_a_phi_names_the_variable() {
    // x = undef on entry; if (gid == 0) x = 1; out = x + 0.
    let mut b = B::new();
    let out = b.param("out", G);
    let entry = b.cur;
    let (then, end) = (b.block("if.then"), b.block("if.end"));
    let gid = b.wi(WorkItem::GlobalId, 0);
    let zero = b.i64(0);
    let c = b.cmp(CmpPred::Eq, gid, zero);
    b.cond_br(c, then, end);
    b.at(then);
    let one = b.i32(1);
    b.br(end);
    b.at(end);
    let u = b.undef(Ty::I32);
    let (_, x) = b.phi(Ty::I32, vec![(entry, u), (then, one)]);
    b.f.vars.push(ir::Var {
        name: "x".into(),
        span: span(1, 2),
        node: NodeId(1),
        values: vec![x],
        in_memory: false,
        is_param: false,
        block: Some(entry),
    });
    let z = b.i32(0);
    let y = b.bin(BinOp::Add, x, z);
    let p = b.elem(out, gid, 4);
    b.store(p, y);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 8])];
    let e = run(&b.f, &NdRange::new_1d(2, 2), &mut args, 2).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UninitializedRead);
    assert_eq!(e.work_item, [1, 0, 0]);
    assert_eq!(e.message, "`x` is used before it is assigned");
    assert_eq!(i32s(buffer(&args[0])), vec![1, 0]);
}

// ---- ranges and arguments -----------------------------------------------

/// Stores eight work-item queries per work-item: out[gid * 8 + k].
fn queries_kernel(queries: &[(WorkItem, u32)]) -> Function {
    let mut b = B::new();
    let out = b.param("out", G);
    // Linear global id over up to 2 dimensions.
    let g0 = b.wi(WorkItem::GlobalId, 0);
    let g1 = b.wi(WorkItem::GlobalId, 1);
    let s0 = b.wi(WorkItem::GlobalSize, 0);
    let row = b.bin(BinOp::Mul, g1, s0);
    let lin = b.bin(BinOp::Add, row, g0);
    let n = b.i64(queries.len() as i64);
    let base = b.bin(BinOp::Mul, lin, n);
    for (k, &(q, d)) in queries.iter().enumerate() {
        let v = b.wi(q, d);
        let v = if b.f.ty(v) == Ty::I32 {
            b.cast(CastOp::ZExt, v, Ty::I64)
        } else {
            v
        };
        let kk = b.i64(k as i64);
        let idx = b.bin(BinOp::Add, base, kk);
        let p = b.elem(out, idx, 8);
        b.store(p, v);
    }
    b.ret();
    b.f
}

fn u64s(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn non_uniform_work_groups_and_partial_sub_groups() {
    use WorkItem::*;
    let qs = [
        (LocalId, 0),
        (GroupId, 0),
        (LocalSize, 0),
        (NumGroups, 0),
        (SubGroupId, 0),
        (SubGroupLocalId, 0),
        (SubGroupSize, 0),
        (NumSubGroups, 0),
    ];
    let f = queries_kernel(&qs);
    // 10 work-items in groups of 4: sizes 4, 4, 2. Width 3: sub-groups of
    // 3 + 1 in full groups, 2 in the last.
    let mut args = vec![ArgValue::Buffer(vec![0; 10 * 8 * 8])];
    let stats = run(&f, &NdRange::new_1d(10, 4), &mut args, 3).unwrap();
    assert_eq!(stats.work_groups, 3);
    assert_eq!(stats.sub_groups, 5);
    let v = u64s(buffer(&args[0]));
    let row = |i: usize| v[i * 8..i * 8 + 8].to_vec();
    assert_eq!(row(0), vec![0, 0, 4, 3, 0, 0, 3, 2]);
    assert_eq!(row(3), vec![3, 0, 4, 3, 1, 0, 1, 2]);
    assert_eq!(row(5), vec![1, 1, 4, 3, 0, 1, 3, 2]);
    assert_eq!(row(8), vec![0, 2, 2, 3, 0, 0, 2, 1]);
    assert_eq!(row(9), vec![1, 2, 2, 3, 0, 1, 2, 1]);
}

#[test]
fn two_dimensional_range_and_unused_dimensions() {
    use WorkItem::*;
    let qs = [
        (GlobalId, 0),
        (GlobalId, 1),
        (LocalId, 1),
        (GlobalId, 2),
        (GlobalSize, 2),
        (LocalSize, 1),
        (SubGroupLocalId, 0),
        (WorkDim, 0),
    ];
    let f = queries_kernel(&qs);
    let mut range = NdRange::new_2d([3, 4], [2, 3]);
    range.global_offset = [0, 0, 77]; // ignored: dimension 2 is unused
    let mut args = vec![ArgValue::Buffer(vec![0; 12 * 8 * 8])];
    run(&f, &range, &mut args, 4).unwrap();
    let v = u64s(buffer(&args[0]));
    let at = |x: usize, y: usize| v[(y * 3 + x) * 8..(y * 3 + x) * 8 + 8].to_vec();
    // (2, 1): group (1, 0) of size 1 x 3; local id (0, 1): a row of one
    // work-item, so its own sub-group (sub-groups never span rows), lane 0.
    assert_eq!(at(2, 1), vec![2, 1, 1, 0, 1, 3, 0, 2]);
    // (1, 3): group (0, 1) of size 2 x 1; local (1, 0); linear local 1.
    assert_eq!(at(1, 3), vec![1, 3, 0, 0, 1, 1, 1, 2]);
    // (0, 2): group (0, 0) of size 2 x 3; local (0, 2): row 2, lane 0.
    assert_eq!(at(0, 2), vec![0, 2, 2, 0, 1, 3, 0, 2]);
}

#[test]
fn global_offset_shifts_ids() {
    use WorkItem::*;
    let f = {
        let mut b = B::new();
        let out = b.param("out", G);
        let g = b.wi(GlobalId, 0);
        let off = b.wi(GlobalOffset, 0);
        let i = b.bin(BinOp::Sub, g, off);
        let p = b.elem(out, i, 8);
        b.store(p, g);
        b.ret();
        b.f
    };
    let mut range = NdRange::new_1d(3, 2);
    range.global_offset[0] = 100;
    let mut args = vec![ArgValue::Buffer(vec![0; 24])];
    run(&f, &range, &mut args, 2).unwrap();
    assert_eq!(u64s(buffer(&args[0])), vec![100, 101, 102]);
}

#[test]
fn invalid_ranges_are_rejected() {
    let f = sum_loop();
    let mut args = vec![ArgValue::Buffer(vec![]), ArgValue::Buffer(vec![])];
    let bad = [
        (NdRange::new_1d(4, 0), 4),
        (NdRange::new_1d(0, 4), 4),
        (NdRange::new_1d(4, 4), 0),
        (NdRange::new_1d(4, 4), MAX_SUB_GROUP_WIDTH + 1),
        (
            NdRange {
                work_dim: 0,
                ..NdRange::new_1d(4, 4)
            },
            4,
        ),
        (
            NdRange {
                work_dim: 4,
                ..NdRange::new_1d(4, 4)
            },
            4,
        ),
        (
            NdRange {
                global_offset: [u64::MAX, 0, 0],
                ..NdRange::new_1d(4, 4)
            },
            4,
        ),
        (NdRange::new_2d([u64::MAX, 4], [1, 1]), 4),
    ];
    for (r, w) in bad {
        let e = run(&f, &r, &mut args, w).unwrap_err();
        assert_eq!(e.kind, ErrorKind::InvalidRange, "{r:?} {w}");
    }
}

#[test]
fn bad_arguments_are_rejected() {
    let mut b = B::new();
    let _out = b.param("out", G);
    let _n = b.param("n", Ty::I32);
    b.ret();
    let f = b.f;
    let r = NdRange::new_1d(1, 1);
    let cases = vec![
        vec![ArgValue::Buffer(vec![])],
        vec![
            ArgValue::Buffer(vec![]),
            ArgValue::Scalar(Const::int(1, Ty::I64)),
        ],
        vec![ArgValue::Buffer(vec![]), ArgValue::Buffer(vec![])],
        vec![
            ArgValue::Scalar(Const::int(0, Ty::I64)),
            ArgValue::Scalar(Const::int(1, Ty::I32)),
        ],
    ];
    for mut args in cases {
        let e = run(&f, &r, &mut args, 1).unwrap_err();
        assert_eq!(e.kind, ErrorKind::BadArgument, "{args:?}");
    }
    let mut ok = vec![
        ArgValue::Scalar(Const::Null(AddressSpace::Global)),
        ArgValue::Scalar(Const::int(1, Ty::I32)),
    ];
    assert!(run(&f, &r, &mut ok, 1).is_ok());
    // Private pointers take no buffers.
    let mut b = B::new();
    b.param("p", Ty::Ptr(AddressSpace::Private));
    b.ret();
    let e = run(&b.f, &r, &mut [ArgValue::Buffer(vec![])], 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadArgument);
    assert_eq!(e.span, span(0, 1));
}

#[test]
fn scalar_arguments_are_passed() {
    let mut b = B::new();
    let out = b.param("out", G);
    let a = b.param("a", Ty::F32);
    let k = b.param("k", Ty::I16);
    let kk = b.cast(CastOp::SiToFp, k, Ty::F32);
    let r = b.bin(BinOp::FMul, a, kk);
    b.store(out, r);
    b.ret();
    let mut args = vec![
        ArgValue::Buffer(vec![0; 4]),
        ArgValue::Scalar(Const::Float(1.5, Ty::F32)),
        ArgValue::Scalar(Const::int(-4, Ty::I16)),
    ];
    run(&b.f, &NdRange::new_1d(1, 1), &mut args, 1).unwrap();
    assert_eq!(f32s(buffer(&args[0])), vec![-6.0]);
}

// ---- horizontal operations ----------------------------------------------

/// A kernel: `x = in[gid]; if (mask[gid]) out[gid] = OP(x[, lane]) else
/// out[gid] = sentinel`. The operand and result type is `ty` (i32 or f32,
/// or i1 from `x != 0` for any/all, stored as i32).
fn horizontal_kernel(op: Horizontal, ty: Ty, lane: Option<i64>) -> Function {
    let mut b = B::new();
    let out = b.param("out", G);
    let inp = b.param("in", C);
    let mask = b.param("mask", C);
    let elem_ty = if ty == Ty::I1 { Ty::I32 } else { ty };
    let gid = b.wi(WorkItem::GlobalId, 0);
    let pm = b.elem(mask, gid, 4);
    let m = b.load(pm, Ty::I32);
    let zero = b.i32(0);
    let on = b.cmp(CmpPred::Ne, m, zero);
    let px = b.elem(inp, gid, 4);
    let x = b.load(px, elem_ty);
    let (then, els, end) = (b.block("if.then"), b.block("if.else"), b.block("if.end"));
    b.cond_br(on, then, els);
    b.at(then);
    let arg = if ty == Ty::I1 {
        b.cmp(CmpPred::Ne, x, zero)
    } else {
        x
    };
    let mut args = vec![arg];
    if let Some(l) = lane {
        args.push(b.i32(l));
    }
    let r = b.hor(op, &args, ty);
    let r = if ty == Ty::I1 {
        b.cast(CastOp::ZExt, r, Ty::I32)
    } else {
        r
    };
    let po = b.elem(out, gid, 4);
    b.store(po, r);
    b.br(end);
    b.at(els);
    let sentinel = if elem_ty == Ty::F32 {
        b.f32(-999.0)
    } else {
        b.i32(-999)
    };
    let po = b.elem(out, gid, 4);
    b.store(po, sentinel);
    b.br(end);
    b.at(end);
    b.ret();
    b.f
}

/// Runs a horizontal kernel over `xs.len()` work-items in one work-group.
fn run_h(
    op: Horizontal,
    ty: Ty,
    lane: Option<i64>,
    xs: Vec<u8>,
    mask: &[i32],
    width: u32,
) -> Result<Vec<u8>, InterpError> {
    let f = horizontal_kernel(op, ty, lane);
    let n = mask.len();
    let mut args = vec![
        ArgValue::Buffer(vec![0; n * 4]),
        ArgValue::Buffer(xs),
        ArgValue::Buffer(bytes_i32(mask)),
    ];
    run(&f, &NdRange::new_1d(n as u64, n as u64), &mut args, width)?;
    Ok(buffer(&args[0]).to_vec())
}

fn hi(op: Horizontal, xs: &[i32], mask: &[i32], width: u32) -> Vec<i32> {
    i32s(&run_h(op, Ty::I32, None, bytes_i32(xs), mask, width).unwrap())
}

fn hf(op: Horizontal, xs: &[f32], mask: &[i32], width: u32) -> Vec<f32> {
    f32s(&run_h(op, Ty::F32, None, bytes_f32(xs), mask, width).unwrap())
}

const S: i32 = -999;

#[test]
fn any_and_all_over_active_lanes() {
    let any = |xs: &[i32], mask: &[i32]| {
        i32s(&run_h(Horizontal::Any, Ty::I1, None, bytes_i32(xs), mask, 4).unwrap())
    };
    let all = |xs: &[i32], mask: &[i32]| {
        i32s(&run_h(Horizontal::All, Ty::I1, None, bytes_i32(xs), mask, 4).unwrap())
    };
    let full = [1; 8];
    assert_eq!(
        any(&[0, 0, 1, 0, 0, 0, 0, 0], &full),
        vec![1, 1, 1, 1, 0, 0, 0, 0]
    );
    assert_eq!(
        all(&[1, 1, 1, 1, 1, 0, 1, 1], &full),
        vec![1, 1, 1, 1, 0, 0, 0, 0]
    );
    // Lane 2 holds the only true value but is inactive.
    let mask = [1, 1, 0, 1, 1, 1, 1, 1];
    assert_eq!(
        any(&[0, 0, 1, 0, 0, 0, 0, 0], &mask),
        vec![0, 0, S, 0, 0, 0, 0, 0]
    );
    // Lane 1 holds the only false value but is inactive.
    let mask = [1, 0, 1, 1, 0, 0, 0, 0];
    assert_eq!(
        all(&[1, 0, 1, 1, 0, 0, 0, 0], &mask),
        vec![1, S, 1, 1, S, S, S, S]
    );
}

#[test]
fn broadcast_from_an_active_lane() {
    let xs = [10, 11, 12, 13, 14, 15, 16, 17];
    let run_b = |lane, mask: &[i32]| {
        run_h(
            Horizontal::Broadcast,
            Ty::I32,
            Some(lane),
            bytes_i32(&xs),
            mask,
            4,
        )
        .map(|b| i32s(&b))
    };
    assert_eq!(
        run_b(2, &[1; 8]).unwrap(),
        vec![12, 12, 12, 12, 16, 16, 16, 16]
    );
    let mask = [0, 1, 1, 0, 1, 1, 1, 1];
    assert_eq!(run_b(2, &mask).unwrap(), vec![S, 12, 12, S, 16, 16, 16, 16]);
    // Lane 0 of the first sub-group is inactive.
    let e = run_b(0, &mask).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidSubGroupOp);
    assert_eq!(e.work_item, [1, 0, 0]);
    // Lane 5 does not exist in a sub-group of 4.
    assert_eq!(
        run_b(5, &[1; 8]).unwrap_err().kind,
        ErrorKind::InvalidSubGroupOp
    );
}

#[test]
fn broadcast_lane_must_be_uniform() {
    // broadcast(x, sub_group_local_id) asks each lane for its own lane.
    let mut b = B::new();
    let out = b.param("out", G);
    let gid = b.wi(WorkItem::GlobalId, 0);
    let l = b.wi(WorkItem::SubGroupLocalId, 0);
    let x = b.cast(CastOp::Trunc, gid, Ty::I32);
    let r = b.hor(Horizontal::Broadcast, &[x, l], Ty::I32);
    let p = b.elem(out, gid, 4);
    b.store(p, r);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 16])];
    let e = run(&b.f, &NdRange::new_1d(4, 4), &mut args, 4).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidSubGroupOp);
    assert_eq!(e.work_item, [1, 0, 0]);
}

#[test]
fn integer_reductions() {
    use ReduceOp::*;
    let xs = [3, -1, 4, 1, -5, 9, 2, 6];
    let full = [1; 8];
    let r = |op, mask: &[i32]| hi(Horizontal::Reduce(op), &xs, mask, 4);
    assert_eq!(r(Add, &full), vec![7, 7, 7, 7, 12, 12, 12, 12]);
    assert_eq!(r(SMin, &full), vec![-1, -1, -1, -1, -5, -5, -5, -5]);
    assert_eq!(r(SMax, &full), vec![4, 4, 4, 4, 9, 9, 9, 9]);
    assert_eq!(r(UMin, &full), vec![1, 1, 1, 1, 2, 2, 2, 2]);
    assert_eq!(r(UMax, &full), vec![-1, -1, -1, -1, -5, -5, -5, -5]);
    let mask = [1, 0, 1, 0, 0, 0, 0, 1];
    assert_eq!(r(Add, &mask), vec![7, S, 7, S, S, S, S, 6]);
    assert_eq!(r(SMin, &mask), vec![3, S, 3, S, S, S, S, 6]);
    // Wrapping sum.
    let big = [i32::MAX, 1, 0, 0];
    assert_eq!(
        hi(Horizontal::Reduce(Add), &big, &[1; 4], 4),
        vec![i32::MIN; 4]
    );
}

#[test]
fn float_reductions() {
    use ReduceOp::*;
    let xs = [1.5, -2.0, f32::NAN, 8.0, 0.25, 0.5, 1.0, 2.0];
    let full = [1; 8];
    let r = |op| hf(Horizontal::Reduce(op), &xs, &full, 4);
    let s = r(FAdd);
    assert!(s[0].is_nan() && s[3].is_nan());
    assert_eq!(s[4..], [3.75; 4]);
    assert_eq!(r(FMin)[..4], [-2.0; 4]);
    assert_eq!(r(FMax)[..4], [8.0; 4]);
    // Sequential lane order: (1e8 + 1) + (-1e8) + 1 = 1 in f32, not 2.
    let ys = [1e8, 1.0, -1e8, 1.0];
    assert_eq!(hf(Horizontal::Reduce(FAdd), &ys, &[1; 4], 4), vec![1.0; 4]);
}

#[test]
fn scans_inclusive_and_exclusive() {
    use ReduceOp::*;
    let xs = [3, -1, 4, 1, -5, 9, 2, 6];
    let full = [1; 8];
    assert_eq!(
        hi(Horizontal::ScanInclusive(Add), &xs, &full, 4),
        vec![3, 2, 6, 7, -5, 4, 6, 12]
    );
    assert_eq!(
        hi(Horizontal::ScanExclusive(Add), &xs, &full, 4),
        vec![0, 3, 2, 6, 0, -5, 4, 6]
    );
    assert_eq!(
        hi(Horizontal::ScanInclusive(SMax), &xs, &full, 4),
        vec![3, 3, 4, 4, -5, 9, 9, 9]
    );
    assert_eq!(
        hi(Horizontal::ScanExclusive(SMax), &xs, &full, 4),
        vec![i32::MIN, 3, 3, 4, i32::MIN, -5, 9, 9]
    );
    assert_eq!(
        hi(Horizontal::ScanExclusive(SMin), &xs, &full, 4),
        vec![i32::MAX, 3, -1, -1, i32::MAX, -5, -5, -5]
    );
    assert_eq!(
        hi(Horizontal::ScanExclusive(UMin), &xs, &full, 4),
        vec![-1, 3, 3, 3, -1, -5, 9, 2]
    );
    assert_eq!(
        hi(Horizontal::ScanExclusive(UMax), &xs, &full, 4),
        vec![0, 3, -1, -1, 0, -5, -5, -5]
    );
    // Partially active: inactive lanes are skipped, not zeros.
    let mask = [0, 1, 1, 0, 1, 0, 0, 1];
    assert_eq!(
        hi(Horizontal::ScanInclusive(Add), &xs, &mask, 4),
        vec![S, -1, 3, S, -5, S, S, 1]
    );
    assert_eq!(
        hi(Horizontal::ScanExclusive(Add), &xs, &mask, 4),
        vec![S, 0, -1, S, 0, S, S, -5]
    );
    let fs = [1.0, 2.0, 3.0, 4.0];
    assert_eq!(
        hf(Horizontal::ScanExclusive(FMin), &fs, &[1; 4], 4),
        vec![f32::INFINITY, 1.0, 1.0, 1.0]
    );
    assert_eq!(
        hf(Horizontal::ScanExclusive(FMax), &fs, &[1; 4], 4),
        vec![f32::NEG_INFINITY, 1.0, 2.0, 3.0]
    );
    assert_eq!(
        hf(Horizontal::ScanInclusive(FAdd), &fs, &[1; 4], 4),
        vec![1.0, 3.0, 6.0, 10.0]
    );
    assert_eq!(
        hf(Horizontal::ScanExclusive(FAdd), &fs, &[1; 4], 4),
        vec![0.0, 1.0, 3.0, 6.0]
    );
}

#[test]
fn last_partial_sub_group() {
    // 10 work-items, width 4: sub-groups 0..4, 4..8, 8..10.
    let xs: Vec<i32> = (1..=10).collect();
    let mask = [1; 10];
    assert_eq!(
        hi(Horizontal::Reduce(ReduceOp::Add), &xs, &mask, 4),
        vec![10, 10, 10, 10, 26, 26, 26, 26, 19, 19]
    );
    assert_eq!(
        hi(Horizontal::ScanExclusive(ReduceOp::Add), &xs, &mask, 4),
        vec![0, 1, 3, 6, 0, 5, 11, 18, 0, 9]
    );
}

#[test]
fn divergent_branches_each_see_their_own_lanes() {
    // if (x > 0) a = reduce_add(x) else b = reduce_add(-x); out = a or b.
    let mut b = B::new();
    let out = b.param("out", G);
    let inp = b.param("in", C);
    let gid = b.wi(WorkItem::GlobalId, 0);
    let px = b.elem(inp, gid, 4);
    let x = b.load(px, Ty::I32);
    let zero = b.i32(0);
    let pos = b.cmp(CmpPred::Sgt, x, zero);
    let (t, e, end) = (b.block("then"), b.block("else"), b.block("end"));
    b.cond_br(pos, t, e);
    b.at(t);
    let rt = b.hor(Horizontal::Reduce(ReduceOp::Add), &[x], Ty::I32);
    b.br(end);
    b.at(e);
    let nx = b.bin(BinOp::Sub, zero, x);
    let thousand = b.i32(1000);
    let nx = b.bin(BinOp::Mul, nx, thousand);
    let re = b.hor(Horizontal::Reduce(ReduceOp::Add), &[nx], Ty::I32);
    b.br(end);
    b.at(end);
    let (_, r) = b.phi(Ty::I32, vec![(t, rt), (e, re)]);
    let po = b.elem(out, gid, 4);
    b.store(po, r);
    b.ret();
    let mut args = vec![
        ArgValue::Buffer(vec![0; 16]),
        ArgValue::Buffer(bytes_i32(&[1, -2, 3, -4])),
    ];
    run(&b.f, &NdRange::new_1d(4, 4), &mut args, 4).unwrap();
    assert_eq!(i32s(buffer(&args[0])), vec![4, 6000, 4, 6000]);
}

#[test]
fn divergent_loop_with_a_reduction_runs_in_lock_step() {
    // for (i = 0; i < n[gid]; i++) acc += sub_group_reduce_add(1);
    // Iteration k is executed by the lanes with n > k only, so lane l gets
    // sum over k < n[l] of #{lanes with n > k}.
    let mut b = B::new();
    let out = b.param("out", G);
    let ns = b.param("n", C);
    let entry = b.cur;
    let (header, body, exit) = (b.block("for.cond"), b.block("for.body"), b.block("for.end"));
    let gid = b.wi(WorkItem::GlobalId, 0);
    let pn = b.elem(ns, gid, 4);
    let n = b.load(pn, Ty::I32);
    let zero = b.i32(0);
    let one = b.i32(1);
    b.br(header);
    b.at(header);
    let (ip, i) = b.phi(Ty::I32, vec![(entry, zero)]);
    let (ap, acc) = b.phi(Ty::I32, vec![(entry, zero)]);
    let c = b.cmp(CmpPred::Slt, i, n);
    b.cond_br(c, body, exit);
    b.at(body);
    let cnt = b.hor(Horizontal::Reduce(ReduceOp::Add), &[one], Ty::I32);
    let acc2 = b.bin(BinOp::Add, acc, cnt);
    let i2 = b.bin(BinOp::Add, i, one);
    b.br(header);
    for (phi, v) in [(ip, i2), (ap, acc2)] {
        if let InstKind::Phi { incoming } = &mut b.f.inst_mut(phi).kind {
            incoming.push((body, v));
        }
    }
    b.at(exit);
    let total = b.hor(Horizontal::Reduce(ReduceOp::Add), &[acc], Ty::I32);
    let po = b.elem(out, gid, 8);
    b.store(po, acc);
    let four = b.i64(4);
    let po2 = b.ins(
        InstKind::PtrAdd {
            base: po,
            offset: four,
        },
        G,
    );
    b.store(po2, total);
    b.ret();
    let n = [3, 1, 0, 2];
    let mut args = vec![
        ArgValue::Buffer(vec![0; 32]),
        ArgValue::Buffer(bytes_i32(&n)),
    ];
    run(&b.f, &NdRange::new_1d(4, 4), &mut args, 4).unwrap();
    // Active counts per iteration: k=0: 3 lanes, k=1: 2, k=2: 1.
    let v = i32s(buffer(&args[0]));
    assert_eq!(v, vec![6, 14, 3, 14, 0, 14, 5, 14]);
}

#[test]
fn block_predicates_disable_effects() {
    // A block predicated on "gid is even": the reduction sees the even
    // work-items only and only they store; odd ones keep 0.
    let mut b = B::new();
    let out = b.param("out", G);
    let gid = b.wi(WorkItem::GlobalId, 0);
    let two = b.i64(2);
    let r = b.bin(BinOp::URem, gid, two);
    let zero = b.i64(0);
    let even = b.cmp(CmpPred::Eq, r, zero);
    let masked = b.block("masked");
    b.br(masked);
    b.at(masked);
    b.f.block_mut(masked).predicate = Some(even);
    let one = b.i32(1);
    let cnt = b.hor(Horizontal::Reduce(ReduceOp::Add), &[one], Ty::I32);
    let p = b.elem(out, gid, 4);
    b.store(p, cnt);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 20])];
    run(&b.f, &NdRange::new_1d(5, 5), &mut args, 8).unwrap();
    assert_eq!(i32s(buffer(&args[0])), vec![3, 0, 3, 0, 3]);
}

#[test]
fn errors_render_with_line_and_column() {
    let mut sources = SourceMap::new();
    sources.add(lanes_frontend::source::SourceFile::new(
        "k.cl",
        None,
        "kernel void k() {\n  x = 1 / 0;\n}\n",
    ));
    let e = InterpError {
        kind: ErrorKind::DivisionByZero,
        span: span(22, 27),
        work_item: [1, 2, 3],
        message: "signed division by zero".into(),
        related: None,
    };
    assert_eq!(
        e.render(&sources),
        "k.cl:2:5: division by zero: signed division by zero (work-item [1, 2, 3])"
    );
}

#[test]
fn loop_iterations_stay_in_lock_step_across_divergent_branches() {
    // for (i = 0; i < 2; i++) { acc += reduce_add(1); if (lane is odd)
    // acc += 100 * reduce_add(1); }. Even lanes skip the second reduction
    // and reach the back edge first; they must wait for the odd lanes, so
    // that the first reduction of iteration 1 sees all four lanes again.
    let mut b = B::new();
    let out = b.param("out", G);
    let entry = b.cur;
    let (header, body, odd, latch, exit) = (
        b.block("for.cond"),
        b.block("for.body"),
        b.block("if.then"),
        b.block("for.inc"),
        b.block("for.end"),
    );
    let gid = b.wi(WorkItem::GlobalId, 0);
    let zero = b.i32(0);
    let one = b.i32(1);
    b.br(header);
    b.at(header);
    let (ip, i) = b.phi(Ty::I32, vec![(entry, zero)]);
    let (ap, acc) = b.phi(Ty::I32, vec![(entry, zero)]);
    let two = b.i32(2);
    let c = b.cmp(CmpPred::Slt, i, two);
    b.cond_br(c, body, exit);
    b.at(body);
    let r1 = b.hor(Horizontal::Reduce(ReduceOp::Add), &[one], Ty::I32);
    let acc1 = b.bin(BinOp::Add, acc, r1);
    let one64 = b.i64(1);
    let bit = b.bin(BinOp::And, gid, one64);
    let zero64 = b.i64(0);
    let is_odd = b.cmp(CmpPred::Ne, bit, zero64);
    b.cond_br(is_odd, odd, latch);
    b.at(odd);
    let r2 = b.hor(Horizontal::Reduce(ReduceOp::Add), &[one], Ty::I32);
    let hundred = b.i32(100);
    let r2h = b.bin(BinOp::Mul, r2, hundred);
    let acc2 = b.bin(BinOp::Add, acc1, r2h);
    b.br(latch);
    b.at(latch);
    let (_, acc3) = b.phi(Ty::I32, vec![(body, acc1), (odd, acc2)]);
    let i2 = b.bin(BinOp::Add, i, one);
    b.br(header);
    for (phi, v) in [(ip, i2), (ap, acc3)] {
        if let InstKind::Phi { incoming } = &mut b.f.inst_mut(phi).kind {
            incoming.push((latch, v));
        }
    }
    b.at(exit);
    let p = b.elem(out, gid, 4);
    b.store(p, acc);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 16])];
    run(&b.f, &NdRange::new_1d(4, 4), &mut args, 4).unwrap();
    assert_eq!(i32s(buffer(&args[0])), vec![8, 408, 8, 408]);
}

// ---------------------------------------------------------------------------
// Work-groups: barriers, __local memory, atomics, collectives, races.

impl B {
    fn barrier(&mut self, flags: u32) -> Src {
        self.ins_src(InstKind::Barrier { flags }, Ty::Void).0
    }

    fn atomic(&mut self, op: AtomicOp, ptr: ValueId, args: &[ValueId], ty: Ty) -> ValueId {
        self.ins(
            InstKind::Atomic {
                op,
                ptr,
                args: args.to_vec(),
            },
            ty,
        )
    }

    fn work_group(&mut self, op: Horizontal, args: &[ValueId], ty: Ty) -> ValueId {
        self.ins(
            InstKind::WorkGroup {
                op,
                args: args.to_vec(),
            },
            ty,
        )
    }

    fn local_var(&mut self, name: &str, size: u64) -> ValueId {
        self.f.add_local(ir::LocalVar {
            name: name.into(),
            size,
            align: 4,
            span: span(0, 1),
        })
    }

    /// `(lid + 1) % local_size` as an i64.
    fn next_lid(&mut self) -> ValueId {
        let lid = self.wi(WorkItem::LocalId, 0);
        let one = self.i64(1);
        let n = self.wi(WorkItem::LocalSize, 0);
        let l1 = self.bin(BinOp::Add, lid, one);
        self.bin(BinOp::URem, l1, n)
    }
}

fn line_of(e: &InterpError) -> u32 {
    e.span.start
}

/// tile[lid] = in[gid]; barrier(flags); out[gid] = tile[(lid + 1) % L]:
/// each work-item reads what its right neighbour in the group wrote.
fn rotate_kernel(tile_is_param: bool, flags: u32) -> (Function, Src, Src) {
    let mut b = B::new();
    let input = b.param("in", G);
    let out = b.param("out", G);
    let tile = if tile_is_param {
        b.param("tile", L)
    } else {
        b.local_var("tile", 64)
    };
    let gid = b.wi(WorkItem::GlobalId, 0);
    let lid = b.wi(WorkItem::LocalId, 0);
    let pi = b.elem(input, gid, 4);
    let x = b.load(pi, Ty::I32);
    let pt = b.elem(tile, lid, 4);
    let store = b.store(pt, x);
    b.barrier(flags);
    let next = b.next_lid();
    let pn = b.elem(tile, next, 4);
    let load_src = src(b.next_span + 2);
    let y = b.load(pn, Ty::I32);
    let _ = load_src;
    let po = b.elem(out, gid, 4);
    b.store(po, y);
    b.ret();
    let load =
        b.f.insts
            .iter()
            .filter(|i| matches!(i.kind, InstKind::Load { .. }))
            .nth(1)
            .unwrap()
            .src;
    (b.f, store, load)
}

#[test]
fn barrier_lets_work_items_read_their_neighbours_local_writes() {
    for tile_is_param in [false, true] {
        let (f, _, _) = rotate_kernel(tile_is_param, ir::fence::LOCAL);
        let input: Vec<i32> = (0..12).map(|i| i * 10).collect();
        let mut args = vec![
            ArgValue::Buffer(bytes_i32(&input)),
            ArgValue::Buffer(vec![0; 48]),
        ];
        if tile_is_param {
            args.push(ArgValue::Local(64));
        }
        // Groups of 6 with sub-groups of 4: the barrier spans sub-groups.
        let stats = run(&f, &NdRange::new_1d(12, 6), &mut args, 4).unwrap();
        assert_eq!(
            i32s(buffer(&args[1])),
            vec![10, 20, 30, 40, 50, 0, 70, 80, 90, 100, 110, 60]
        );
        assert_eq!((stats.work_groups, stats.sub_groups), (2, 4));
    }
}

#[test]
fn local_memory_is_fresh_and_uninitialized_in_every_group() {
    // Group 0 writes tile[0]; every group reads it after a barrier.
    let mut b = B::new();
    let out = b.param("out", G);
    let tile = b.local_var("tile", 4);
    let grp = b.wi(WorkItem::GroupId, 0);
    let lid = b.wi(WorkItem::LocalId, 0);
    let zero = b.i64(0);
    let is0 = b.cmp(CmpPred::Eq, grp, zero);
    let lid0 = b.cmp(CmpPred::Eq, lid, zero);
    let both = b.bin(BinOp::And, is0, lid0);
    let (write, join) = (b.block("write"), b.block("join"));
    b.cond_br(both, write, join);
    b.at(write);
    let seven = b.i32(7);
    b.store(tile, seven);
    b.br(join);
    b.at(join);
    b.barrier(ir::fence::LOCAL);
    let x = b.load(tile, Ty::I32);
    let gid = b.wi(WorkItem::GlobalId, 0);
    let p = b.elem(out, gid, 4);
    b.store(p, x);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 16])];
    let e = run(&b.f, &NdRange::new_1d(4, 2), &mut args, 2).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UninitializedRead, "{e}");
    assert_eq!(e.work_item, [2, 0, 0]);
    assert!(e.message.contains("__local `tile`"), "{}", e.message);
    assert_eq!(i32s(buffer(&args[0])), vec![7, 7, 0, 0]);
}

#[test]
fn local_write_read_without_a_local_fence_is_a_race() {
    // barrier(CLK_GLOBAL_MEM_FENCE) does not order __local memory.
    let (f, store, load) = rotate_kernel(false, ir::fence::GLOBAL);
    let mut args = vec![
        ArgValue::Buffer(bytes_i32(&[1, 2, 3, 4])),
        ArgValue::Buffer(vec![0; 16]),
    ];
    let e = run(&f, &NdRange::new_1d(4, 4), &mut args, 4).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DataRace, "{e}");
    // Work-item 0 reads tile[1], which work-item 1 wrote.
    assert_eq!(line_of(&e), load.span.start);
    assert_eq!(e.work_item, [0, 0, 0]);
    let (other, what) = e.related.clone().unwrap();
    assert_eq!(other, store.span);
    assert!(
        what.contains("write by work-item local [1, 0, 0]"),
        "{what}"
    );
    assert!(
        e.message
            .contains("read of byte 4 of __local `tile` by work-item local [0, 0, 0]"),
        "{}",
        e.message
    );
    let mut sources = SourceMap::new();
    sources.add(lanes_frontend::source::SourceFile::new(
        "k.cl",
        None,
        " ".repeat(200).as_str(),
    ));
    let text = e.render(&sources);
    assert!(
        text.starts_with(&format!("k.cl:1:{}: data race: ", load.span.start + 1)),
        "{text}"
    );
    assert!(
        text.ends_with(&format!("is at k.cl:1:{}", store.span.start + 1)),
        "{text}"
    );
}

#[test]
fn global_stores_to_one_address_race_but_not_across_groups() {
    // out[group] = lid: every work-item of a group writes the same int;
    // then a barrier (races are checked in kernels with work-group
    // features).
    let mut b = B::new();
    let out = b.param("out", G);
    let grp = b.wi(WorkItem::GroupId, 0);
    let lid = b.wi(WorkItem::LocalId, 0);
    let v = b.cast(CastOp::Trunc, lid, Ty::I32);
    let p = b.elem(out, grp, 4);
    let st = b.store(p, v);
    b.barrier(ir::fence::GLOBAL);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 16])];
    let e = run(&b.f, &NdRange::new_1d(8, 2), &mut args, 4).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DataRace);
    assert_eq!(e.span, st.span);
    assert_eq!(e.work_item, [1, 0, 0]);
    // One work-item per group: no race between groups is reported.
    let mut args = vec![ArgValue::Buffer(vec![0; 16])];
    let mut b2 = b.f.clone();
    b2.name = "k".into();
    run(&b2, &NdRange::new_1d(4, 1), &mut args, 4).unwrap();
}

#[test]
fn barrier_clears_global_accesses_when_it_fences_global_memory() {
    // out[0] = lid by work-item 0; barrier(flags); every work-item reads out[0].
    for (flags, races) in [(ir::fence::GLOBAL, false), (ir::fence::LOCAL, true)] {
        let mut b = B::new();
        let out = b.param("out", G);
        let dst = b.param("dst", G);
        let lid = b.wi(WorkItem::LocalId, 0);
        let zero = b.i64(0);
        let first = b.cmp(CmpPred::Eq, lid, zero);
        let (w, join) = (b.block("w"), b.block("join"));
        b.cond_br(first, w, join);
        b.at(w);
        let five = b.i32(5);
        b.store(out, five);
        b.br(join);
        b.at(join);
        b.barrier(flags);
        let x = b.load(out, Ty::I32);
        let p = b.elem(dst, lid, 4);
        b.store(p, x);
        b.ret();
        let mut args = vec![ArgValue::Buffer(vec![0; 4]), ArgValue::Buffer(vec![0; 16])];
        let r = run(&b.f, &NdRange::new_1d(4, 4), &mut args, 4);
        assert_eq!(r.is_err(), races, "{r:?}");
        if races {
            assert_eq!(r.unwrap_err().kind, ErrorKind::DataRace);
        } else {
            assert_eq!(i32s(buffer(&args[1])), vec![5; 4]);
        }
    }
}

/// if (lid < split) { barrier A } else { barrier B or return }.
fn divergent_kernel(second_barrier: bool) -> (Function, Src, Src) {
    let mut b = B::new();
    let lid = b.wi(WorkItem::LocalId, 0);
    let two = b.i64(2);
    let c = b.cmp(CmpPred::Ult, lid, two);
    let (t, e) = (b.block("then"), b.block("else"));
    b.cond_br(c, t, e);
    b.at(t);
    let first = b.barrier(ir::fence::LOCAL);
    b.ret();
    b.at(e);
    let other = if second_barrier {
        let s = b.barrier(ir::fence::LOCAL);
        b.ret();
        s
    } else {
        b.ins_src(InstKind::Ret, Ty::Void).0
    };
    (b.f, first, other)
}

#[test]
fn barrier_divergence_is_reported_at_the_barrier() {
    for second_barrier in [false, true] {
        let (f, first, other) = divergent_kernel(second_barrier);
        let e = run(&f, &NdRange::new_1d(8, 4), &mut [], 4).unwrap_err();
        assert_eq!(e.kind, ErrorKind::BarrierDivergence, "{e}");
        assert_eq!(e.span, first.span);
        assert_eq!(e.work_item, [0, 0, 0]);
        let (span, what) = e.related.unwrap();
        assert_eq!(span, other.span);
        assert!(what.contains("work-item local [2, 0, 0]"), "{what}");
        assert!(
            e.message
                .contains("work-item local [0, 0, 0] waits at this barrier"),
            "{}",
            e.message
        );
        // A group where every work-item takes the same side is fine.
        run(&f, &NdRange::new_1d(2, 2), &mut [], 4).unwrap();
    }
}

#[test]
fn atomics_on_global_and_local_memory() {
    // Each work-item: old = atomic_add(&hist_local[0], 1); out[gid] = old;
    // atomic_max(&gmax, gid); atomic_xchg on a float; after a barrier
    // work-item 0 copies the local counter to count[group].
    let mut b = B::new();
    let out = b.param("out", G);
    let gmax = b.param("gmax", G);
    let count = b.param("count", G);
    let fl = b.param("fl", G);
    let tile = b.local_var("counter", 4);
    let gid = b.wi(WorkItem::GlobalId, 0);
    let lid = b.wi(WorkItem::LocalId, 0);
    let grp = b.wi(WorkItem::GroupId, 0);
    let zero64 = b.i64(0);
    let first = b.cmp(CmpPred::Eq, lid, zero64);
    let (init, join) = (b.block("init"), b.block("join"));
    b.cond_br(first, init, join);
    b.at(init);
    let zero = b.i32(0);
    b.atomic(AtomicOp::Store, tile, &[zero], Ty::Void);
    b.br(join);
    b.at(join);
    b.barrier(ir::fence::LOCAL);
    let one = b.i32(1);
    let old = b.atomic(AtomicOp::Add, tile, &[one], Ty::I32);
    let po = b.elem(out, gid, 4);
    b.store(po, old);
    b.atomic(AtomicOp::UMax, gmax, &[gid], Ty::I64);
    let g32 = b.cast(CastOp::SiToFp, gid, Ty::F32);
    b.atomic(AtomicOp::Xchg, fl, &[g32], Ty::F32);
    b.barrier(ir::fence::LOCAL);
    let (copy, end) = (b.block("copy"), b.block("end"));
    b.cond_br(first, copy, end);
    b.at(copy);
    let n = b.atomic(AtomicOp::Load, tile, &[], Ty::I32);
    let pc = b.elem(count, grp, 4);
    b.store(pc, n);
    // cmpxchg: succeeds once per group (count[group] == n), then fails.
    let hundred = b.i32(100);
    b.atomic(AtomicOp::CmpXchg, pc, &[n, hundred], Ty::I32);
    b.atomic(AtomicOp::CmpXchg, pc, &[n, zero], Ty::I32);
    b.br(end);
    b.at(end);
    b.ret();
    let mut args = vec![
        ArgValue::Buffer(vec![0; 24]),
        ArgValue::Buffer(vec![0; 8]),
        ArgValue::Buffer(vec![0; 8]),
        ArgValue::Buffer(vec![0; 4]),
    ];
    run(&b.f, &NdRange::new_1d(6, 3), &mut args, 2).unwrap();
    assert_eq!(i32s(buffer(&args[0])), vec![0, 1, 2, 0, 1, 2]);
    assert_eq!(u64s(buffer(&args[1])), vec![5]);
    assert_eq!(i32s(buffer(&args[2])), vec![100, 100]);
    assert_eq!(f32s(buffer(&args[3])), vec![5.0]);
}

#[test]
fn atomic_ops_compute_the_opencl_results() {
    // One work-item applies `op` with operand x to memory holding m.
    let cases: [(AtomicOp, Ty, i64, i64, i64); 9] = [
        (AtomicOp::Sub, Ty::I32, 5, 7, -2),
        (AtomicOp::And, Ty::I32, 0b1100, 0b1010, 0b1000),
        (AtomicOp::Or, Ty::I32, 0b1100, 0b1010, 0b1110),
        (AtomicOp::Xor, Ty::I32, 0b1100, 0b1010, 0b0110),
        (AtomicOp::SMin, Ty::I32, -3, 2, -3),
        (AtomicOp::UMin, Ty::I32, -3, 2, 2),
        (AtomicOp::SMax, Ty::I64, -3, 2, 2),
        (AtomicOp::UMax, Ty::I64, -3, 2, -3),
        (AtomicOp::Add, Ty::I64, i64::MAX, 1, i64::MIN),
    ];
    for (op, ty, m, x, want) in cases {
        let mut b = B::new();
        let mem = b.param("m", G);
        let out = b.param("old", G);
        let xv = b.int(x, ty);
        let old = b.atomic(op, mem, &[xv], ty);
        b.store(out, old);
        b.ret();
        let n = ty.bytes() as usize;
        let mut args = vec![
            ArgValue::Buffer(m.to_le_bytes()[..n].to_vec()),
            ArgValue::Buffer(vec![0; n]),
        ];
        run(&b.f, &NdRange::new_1d(1, 1), &mut args, 1).unwrap();
        let read = |a: &ArgValue| {
            let mut raw = [0u8; 8];
            raw[..n].copy_from_slice(buffer(a));
            sign_extend(u64::from_le_bytes(raw), ty.bits())
        };
        assert_eq!(read(&args[0]), want, "{op:?}");
        assert_eq!(read(&args[1]), m, "{op:?} returns the old value");
    }
}

#[test]
fn atomic_and_plain_access_race_but_two_atomics_do_not() {
    // Every work-item: atomic_add(&c, 1); work-item 3 then reads c plainly.
    for plain_read in [false, true] {
        let mut b = B::new();
        let c = b.param("c", G);
        let one = b.i32(1);
        b.atomic(AtomicOp::Add, c, &[one], Ty::I32);
        if plain_read {
            let lid = b.wi(WorkItem::LocalId, 0);
            let three = b.i64(3);
            let is3 = b.cmp(CmpPred::Eq, lid, three);
            let (rd, end) = (b.block("rd"), b.block("end"));
            b.cond_br(is3, rd, end);
            b.at(rd);
            b.load(c, Ty::I32);
            b.br(end);
            b.at(end);
        }
        b.ret();
        let mut args = vec![ArgValue::Buffer(vec![0; 4])];
        let r = run(&b.f, &NdRange::new_1d(4, 4), &mut args, 4);
        if plain_read {
            let e = r.unwrap_err();
            assert_eq!(e.kind, ErrorKind::DataRace);
            assert_eq!(e.work_item, [3, 0, 0]);
            assert!(
                e.message.contains("races with a atomic update")
                    || e.message.contains("atomic update"),
                "{}",
                e.message
            );
        } else {
            r.unwrap();
            assert_eq!(i32s(buffer(&args[0])), vec![4]);
        }
    }
}

#[test]
fn atomic_on_private_memory_is_refused() {
    let mut b = B::new();
    let p = b.ins(
        InstKind::Alloca { size: 4, align: 4 },
        Ty::Ptr(AddressSpace::Private),
    );
    let one = b.i32(1);
    b.store(p, one);
    b.atomic(AtomicOp::Add, p, &[one], Ty::I32);
    b.ret();
    let e = run(&b.f, &NdRange::new_1d(1, 1), &mut [], 1).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidPointer);
    assert!(
        e.message.contains("neither __global nor __local"),
        "{}",
        e.message
    );
}

#[test]
fn work_group_collectives_span_sub_groups_in_local_id_order() {
    // 2-D groups of 3 x 2 with sub-groups of 2: x = 10 * lid.y + lid.x.
    let mut b = B::new();
    let sum = b.param("sum", G);
    let scan = b.param("scan", G);
    let bc = b.param("bc", G);
    let any = b.param("any", G);
    let lx = b.wi(WorkItem::LocalId, 0);
    let ly = b.wi(WorkItem::LocalId, 1);
    let ten = b.i64(10);
    let t = b.bin(BinOp::Mul, ly, ten);
    let x64 = b.bin(BinOp::Add, t, lx);
    let x = b.cast(CastOp::Trunc, x64, Ty::I32);
    let r = b.work_group(Horizontal::Reduce(ReduceOp::Add), &[x], Ty::I32);
    let s = b.work_group(Horizontal::ScanExclusive(ReduceOp::Add), &[x], Ty::I32);
    let two = b.i64(2);
    let one = b.i64(1);
    let v = b.work_group(Horizontal::Broadcast, &[x, two, one], Ty::I32);
    let big = b.i32(11);
    let gt = b.cmp(CmpPred::Sgt, x, big);
    let a = b.work_group(Horizontal::Any, &[gt], Ty::I1);
    let a32 = b.cast(CastOp::ZExt, a, Ty::I32);
    let flat = {
        let three = b.i64(3);
        let row = b.bin(BinOp::Mul, ly, three);
        b.bin(BinOp::Add, row, lx)
    };
    let lin = b.cast(CastOp::Trunc, flat, Ty::I32);
    let zero = b.i64(0);
    let p = b.elem(scan, flat, 4);
    b.store(p, s);
    let is0 = b.cmp(CmpPred::Eq, flat, zero);
    let (w, end) = (b.block("w"), b.block("end"));
    b.cond_br(is0, w, end);
    b.at(w);
    b.store(sum, r);
    b.store(bc, v);
    b.store(any, a32);
    b.br(end);
    b.at(end);
    b.ret();
    let _ = lin;
    let mut args = vec![
        ArgValue::Buffer(vec![0; 4]),
        ArgValue::Buffer(vec![0; 24]),
        ArgValue::Buffer(vec![0; 4]),
        ArgValue::Buffer(vec![0; 4]),
    ];
    run(&b.f, &NdRange::new_2d([3, 2], [3, 2]), &mut args, 2).unwrap();
    assert_eq!(i32s(buffer(&args[0])), vec![36]);
    assert_eq!(i32s(buffer(&args[1])), vec![0, 0, 1, 3, 13, 24]);
    assert_eq!(i32s(buffer(&args[2])), vec![12]);
    assert_eq!(i32s(buffer(&args[3])), vec![1]);
}

#[test]
fn sub_group_operations_keep_working_between_barriers() {
    // y = sub_group_reduce_add(lid); barrier; out[gid] = y.
    let mut b = B::new();
    let out = b.param("out", G);
    let lid = b.wi(WorkItem::LocalId, 0);
    let x = b.cast(CastOp::Trunc, lid, Ty::I32);
    let y = b.hor(Horizontal::Reduce(ReduceOp::Add), &[x], Ty::I32);
    b.barrier(ir::fence::LOCAL);
    let z = b.hor(Horizontal::ScanInclusive(ReduceOp::Add), &[y], Ty::I32);
    let gid = b.wi(WorkItem::GlobalId, 0);
    let p = b.elem(out, gid, 4);
    b.store(p, z);
    b.ret();
    let mut args = vec![ArgValue::Buffer(vec![0; 20])];
    run(&b.f, &NdRange::new_1d(5, 5), &mut args, 2).unwrap();
    // Sub-groups {0,1}, {2,3}, {4}: sums 1, 5, 4.
    assert_eq!(i32s(buffer(&args[0])), vec![1, 2, 5, 10, 4]);
}

#[test]
fn local_arguments_are_checked() {
    let (f, _, _) = rotate_kernel(true, ir::fence::LOCAL);
    let mut args = vec![
        ArgValue::Local(16),
        ArgValue::Buffer(vec![0; 16]),
        ArgValue::Local(16),
    ];
    let e = run(&f, &NdRange::new_1d(4, 4), &mut args, 4).unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadArgument);
    let mut args = vec![
        ArgValue::Buffer(vec![0; 16]),
        ArgValue::Buffer(vec![0; 16]),
        ArgValue::Buffer(vec![0; 16]),
    ];
    let e = run(&f, &NdRange::new_1d(4, 4), &mut args, 4).unwrap_err();
    assert_eq!(e.kind, ErrorKind::BadArgument);
    // Too small a __local argument is out of bounds.
    let mut args = vec![
        ArgValue::Buffer(vec![0; 16]),
        ArgValue::Buffer(vec![0; 16]),
        ArgValue::Local(8),
    ];
    let e = run(&f, &NdRange::new_1d(4, 4), &mut args, 4).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfBounds);
    assert!(
        e.message.contains("__local argument `tile`"),
        "{}",
        e.message
    );
}

#[test]
fn reading_local_memory_another_work_item_writes_later_is_a_race() {
    // x = tile[(lid + 1) % L]; tile[lid] = 1; (no barrier): work-item 0
    // reads tile[1] before work-item 1 writes it.
    let mut b = B::new();
    let tile = b.local_var("tile", 16);
    let next = b.next_lid();
    let pn = b.elem(tile, next, 4);
    let (read, _) = b.ins_src(InstKind::Load { ptr: pn, align: 4 }, Ty::I32);
    let lid = b.wi(WorkItem::LocalId, 0);
    let pt = b.elem(tile, lid, 4);
    let one = b.i32(1);
    let write = b.store(pt, one);
    b.ret();
    let e = run(&b.f, &NdRange::new_1d(4, 4), &mut [], 4).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DataRace, "{e}");
    assert_eq!(e.span, write.span);
    assert_eq!(e.work_item, [1, 0, 0]);
    assert_eq!(e.related.unwrap().0, read.span);
    // Alone in its group, the work-item reads memory nobody writes.
    let e = run(&b.f, &NdRange::new_1d(1, 1), &mut [], 4).unwrap_err();
    assert_eq!(e.kind, ErrorKind::UninitializedRead, "{e}");
    assert_eq!(e.span, read.span);
}
