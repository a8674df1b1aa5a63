//! A small expression builder over inkwell so the algorithms read like their
//! C originals. Every operation works on scalars and on vectors alike (the
//! operands carry their types); constants are splatted to the current shape.
//!
//! Builder failures are rare (they only happen on an unpositioned builder), so
//! instead of threading `Result` through every arithmetic step the first error
//! is recorded and reported by [`Em::finish`].

use std::cell::RefCell;

use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::intrinsics::Intrinsic;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicTypeEnum, VectorType};
use inkwell::values::InstructionOpcode as Op;
use inkwell::values::{BasicMetadataValueEnum, BasicValue, BasicValueEnum, GlobalValue, IntValue};
use inkwell::{FloatPredicate, IntPredicate};

pub(crate) type V<'ctx> = BasicValueEnum<'ctx>;

/// The floating-point format a kernel computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fp {
    F32,
    F64,
}

impl Fp {
    pub(crate) fn bits(self) -> u32 {
        match self {
            Fp::F32 => 32,
            Fp::F64 => 64,
        }
    }
    /// Explicit mantissa bits.
    pub(crate) fn mant(self) -> u32 {
        match self {
            Fp::F32 => 23,
            Fp::F64 => 52,
        }
    }
    /// Precision in bits (mantissa + implicit bit).
    pub(crate) fn prec(self) -> i64 {
        self.mant() as i64 + 1
    }
    pub(crate) fn bias(self) -> i64 {
        match self {
            Fp::F32 => 127,
            Fp::F64 => 1023,
        }
    }
    pub(crate) fn emax(self) -> i64 {
        self.bias()
    }
    pub(crate) fn emin(self) -> i64 {
        1 - self.bias()
    }
    pub(crate) fn min_normal(self) -> f64 {
        match self {
            Fp::F32 => f32::MIN_POSITIVE as f64,
            Fp::F64 => f64::MIN_POSITIVE,
        }
    }
    pub(crate) fn tag(self) -> &'static str {
        match self {
            Fp::F32 => "f32",
            Fp::F64 => "f64",
        }
    }
    /// Picks the f32 or the f64 variant of a constant.
    pub(crate) fn pick<T>(self, f: T, d: T) -> T {
        match self {
            Fp::F32 => f,
            Fp::F64 => d,
        }
    }
}

/// Emission context: where to build, the lane count, the float format of the
/// constants made by `k`, and whether polynomials use fused multiply-adds.
#[derive(Clone, Copy)]
pub(crate) struct Em<'a, 'ctx> {
    pub ctx: &'ctx Context,
    pub module: &'a Module<'ctx>,
    pub b: &'a Builder<'ctx>,
    pub lanes: Option<u32>,
    pub fp: Fp,
    /// `true`: `llvm.fma` (tests exercise the fused evaluation order);
    /// `false`: `llvm.fmuladd`, which fuses only where the target has FMA.
    pub fused: bool,
    err: &'a RefCell<Option<String>>,
}

impl<'a, 'ctx> Em<'a, 'ctx> {
    pub(crate) fn new(
        ctx: &'ctx Context,
        module: &'a Module<'ctx>,
        b: &'a Builder<'ctx>,
        lanes: Option<u32>,
        fp: Fp,
        fused: bool,
        err: &'a RefCell<Option<String>>,
    ) -> Self {
        Em {
            ctx,
            module,
            b,
            lanes,
            fp,
            fused,
            err,
        }
    }

    /// The same context computing in another float format.
    pub(crate) fn with_fp(&self, fp: Fp) -> Self {
        Em { fp, ..*self }
    }

    pub(crate) fn finish(&self) -> Result<(), String> {
        match self.err.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    fn fail(&self, msg: String) {
        let mut e = self.err.borrow_mut();
        if e.is_none() {
            *e = Some(msg);
        }
    }

    fn ok<T>(&self, r: Result<T, inkwell::builder::BuilderError>, fallback: T) -> T {
        match r {
            Ok(v) => v,
            Err(e) => {
                self.fail(format!("math: LLVM builder error: {e}"));
                fallback
            }
        }
    }

    // ---- types ----

    fn shape(&self, t: BasicTypeEnum<'ctx>) -> BasicTypeEnum<'ctx> {
        match (self.lanes, t) {
            (Some(n), BasicTypeEnum::FloatType(f)) => f.vec_type(n).into(),
            (Some(n), BasicTypeEnum::IntType(i)) => i.vec_type(n).into(),
            _ => t,
        }
    }
    pub(crate) fn fscalar(&self, fp: Fp) -> BasicTypeEnum<'ctx> {
        match fp {
            Fp::F32 => self.ctx.f32_type().into(),
            Fp::F64 => self.ctx.f64_type().into(),
        }
    }
    /// The float type of `fp` in the current shape.
    pub(crate) fn fty_of(&self, fp: Fp) -> BasicTypeEnum<'ctx> {
        self.shape(self.fscalar(fp))
    }
    pub(crate) fn fty(&self) -> BasicTypeEnum<'ctx> {
        self.fty_of(self.fp)
    }
    /// An integer type of `bits` in the current shape.
    pub(crate) fn ity(&self, bits: u32) -> BasicTypeEnum<'ctx> {
        self.shape(self.int_scalar(bits).into())
    }

    fn int_scalar(&self, bits: u32) -> inkwell::types::IntType<'ctx> {
        match bits {
            1 => self.ctx.bool_type(),
            8 => self.ctx.i8_type(),
            16 => self.ctx.i16_type(),
            32 => self.ctx.i32_type(),
            64 => self.ctx.i64_type(),
            _ => self.ctx.i128_type(),
        }
    }

    // ---- constants ----

    fn splat(&self, s: V<'ctx>) -> V<'ctx> {
        match self.lanes {
            Some(n) => VectorType::const_vector(&vec![s; n as usize]).into(),
            None => s,
        }
    }
    /// Float constant of the current format.
    pub(crate) fn k(&self, x: f64) -> V<'ctx> {
        self.kf(self.fp, x)
    }
    pub(crate) fn kf(&self, fp: Fp, x: f64) -> V<'ctx> {
        let s: V<'ctx> = match fp {
            Fp::F32 => self.ctx.f32_type().const_float(x).into(),
            Fp::F64 => self.ctx.f64_type().const_float(x).into(),
        };
        self.splat(s)
    }
    /// Integer constant as wide as the current float format.
    pub(crate) fn ki(&self, x: i64) -> V<'ctx> {
        self.kib(self.fp.bits(), x)
    }
    pub(crate) fn kib(&self, bits: u32, x: i64) -> V<'ctx> {
        let s: V<'ctx> = self.int_scalar(bits).const_int(x as u64, true).into();
        self.splat(s)
    }
    pub(crate) fn nan(&self) -> V<'ctx> {
        self.k(f64::NAN)
    }
    pub(crate) fn inf(&self) -> V<'ctx> {
        self.k(f64::INFINITY)
    }

    // ---- arithmetic ----

    fn binop(&self, op: Op, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        let r = self.b.build_binop(op, a, b, "");
        self.ok(r, a)
    }
    pub(crate) fn add(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::FAdd, a, b)
    }
    pub(crate) fn sub(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::FSub, a, b)
    }
    pub(crate) fn mul(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::FMul, a, b)
    }
    pub(crate) fn div(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::FDiv, a, b)
    }
    pub(crate) fn neg(&self, a: V<'ctx>) -> V<'ctx> {
        let r = match a {
            BasicValueEnum::FloatValue(f) => self
                .b
                .build_float_neg(f, "")
                .map(|v| v.as_basic_value_enum()),
            BasicValueEnum::VectorValue(f) => self
                .b
                .build_float_neg(f, "")
                .map(|v| v.as_basic_value_enum()),
            _ => {
                self.fail("math: neg of a non-float".into());
                return a;
            }
        };
        self.ok(r, a)
    }
    /// `a*b + c`, fused or not as the target prefers (`llvm.fmuladd`); the
    /// algorithms are accurate either way.
    pub(crate) fn mla(&self, a: V<'ctx>, b: V<'ctx>, c: V<'ctx>) -> V<'ctx> {
        if self.fused {
            self.intr("llvm.fma", &[a, b, c])
        } else {
            self.intr("llvm.fmuladd", &[a, b, c])
        }
    }
    /// Horner evaluation of `c[0] + c[1] x + ...` in the current format.
    pub(crate) fn poly(&self, x: V<'ctx>, c: &[f64]) -> V<'ctx> {
        let n = c.len();
        let mut acc = self.k(c[n - 1]);
        for i in (0..n - 1).rev() {
            acc = self.mla(acc, x, self.k(c[i]));
        }
        acc
    }

    pub(crate) fn iadd(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::Add, a, b)
    }
    pub(crate) fn isub(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::Sub, a, b)
    }
    pub(crate) fn imul(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::Mul, a, b)
    }
    pub(crate) fn udiv(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::UDiv, a, b)
    }
    pub(crate) fn urem(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::URem, a, b)
    }
    pub(crate) fn and(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::And, a, b)
    }
    pub(crate) fn or(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::Or, a, b)
    }
    pub(crate) fn xor(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::Xor, a, b)
    }
    pub(crate) fn shl(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::Shl, a, b)
    }
    pub(crate) fn lshr(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::LShr, a, b)
    }
    pub(crate) fn ashr(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.binop(Op::AShr, a, b)
    }
    pub(crate) fn not(&self, c: V<'ctx>) -> V<'ctx> {
        let t = self.kib(1, -1);
        self.xor(c, t)
    }

    // ---- comparisons and selects ----

    pub(crate) fn fcmp(&self, p: FloatPredicate, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        let r = match (a, b) {
            (BasicValueEnum::FloatValue(x), BasicValueEnum::FloatValue(y)) => self
                .b
                .build_float_compare(p, x, y, "")
                .map(|v| v.as_basic_value_enum()),
            (BasicValueEnum::VectorValue(x), BasicValueEnum::VectorValue(y)) => self
                .b
                .build_float_compare(p, x, y, "")
                .map(|v| v.as_basic_value_enum()),
            _ => {
                self.fail("math: fcmp operand mismatch".into());
                return self.kib(1, 0);
            }
        };
        let f = self.kib(1, 0);
        self.ok(r, f)
    }
    pub(crate) fn icmp(&self, p: IntPredicate, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        let r = match (a, b) {
            (BasicValueEnum::IntValue(x), BasicValueEnum::IntValue(y)) => self
                .b
                .build_int_compare(p, x, y, "")
                .map(|v| v.as_basic_value_enum()),
            (BasicValueEnum::VectorValue(x), BasicValueEnum::VectorValue(y)) => self
                .b
                .build_int_compare(p, x, y, "")
                .map(|v| v.as_basic_value_enum()),
            _ => {
                self.fail("math: icmp operand mismatch".into());
                return self.kib(1, 0);
            }
        };
        let f = self.kib(1, 0);
        self.ok(r, f)
    }
    pub(crate) fn lt(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.fcmp(FloatPredicate::OLT, a, b)
    }
    pub(crate) fn gt(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.fcmp(FloatPredicate::OGT, a, b)
    }
    pub(crate) fn ge(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.fcmp(FloatPredicate::OGE, a, b)
    }
    pub(crate) fn eq(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.fcmp(FloatPredicate::OEQ, a, b)
    }
    pub(crate) fn une(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.fcmp(FloatPredicate::UNE, a, b)
    }
    pub(crate) fn isnan(&self, a: V<'ctx>) -> V<'ctx> {
        self.fcmp(FloatPredicate::UNO, a, a)
    }
    /// `|a| == inf`.
    pub(crate) fn isinf(&self, a: V<'ctx>) -> V<'ctx> {
        let ab = self.fabs(a);
        let inf = self.kf(self.fp_of(a), f64::INFINITY);
        self.eq(ab, inf)
    }
    /// Finite and not NaN.
    pub(crate) fn isfinite(&self, a: V<'ctx>) -> V<'ctx> {
        let ab = self.fabs(a);
        let inf = self.kf(self.fp_of(a), f64::INFINITY);
        self.lt(ab, inf)
    }
    /// The sign bit of `a` (true for -0 and negative NaNs too).
    pub(crate) fn signbit(&self, a: V<'ctx>) -> V<'ctx> {
        let fp = self.fp_of(a);
        let e = self.with_fp(fp);
        let i = e.as_int(a);
        e.icmp(IntPredicate::SLT, i, e.ki(0))
    }
    pub(crate) fn sel(&self, c: V<'ctx>, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        let r = match c {
            BasicValueEnum::IntValue(x) => self.b.build_select(x, a, b, ""),
            BasicValueEnum::VectorValue(x) => self.b.build_select(x, a, b, ""),
            _ => {
                self.fail("math: select condition is not i1".into());
                return a;
            }
        };
        self.ok(r, a)
    }

    // ---- conversions ----

    pub(crate) fn cast(&self, op: Op, v: V<'ctx>, t: BasicTypeEnum<'ctx>) -> V<'ctx> {
        let r = self.b.build_cast(op, v, t, "");
        self.ok(r, v)
    }
    /// Float format of a value (scalar or vector element).
    pub(crate) fn fp_of(&self, v: V<'ctx>) -> Fp {
        let t = match v {
            BasicValueEnum::VectorValue(x) => x.get_type().get_element_type(),
            other => other.get_type(),
        };
        match t {
            BasicTypeEnum::FloatType(f) if f == self.ctx.f64_type() => Fp::F64,
            _ => Fp::F32,
        }
    }
    /// Reinterpret float bits as an integer of the same width.
    pub(crate) fn as_int(&self, v: V<'ctx>) -> V<'ctx> {
        let t = self.ity(self.fp.bits());
        self.cast(Op::BitCast, v, t)
    }
    /// Reinterpret integer bits as a float of the current format.
    pub(crate) fn as_float(&self, v: V<'ctx>) -> V<'ctx> {
        let t = self.fty();
        self.cast(Op::BitCast, v, t)
    }
    /// `fptosi` to an integer of `bits`; callers keep the value in range.
    pub(crate) fn f2i(&self, v: V<'ctx>, bits: u32) -> V<'ctx> {
        let t = self.ity(bits);
        self.cast(Op::FPToSI, v, t)
    }
    /// `sitofp` to the current format.
    pub(crate) fn i2f(&self, v: V<'ctx>) -> V<'ctx> {
        let t = self.fty();
        self.cast(Op::SIToFP, v, t)
    }
    pub(crate) fn sext(&self, v: V<'ctx>, bits: u32) -> V<'ctx> {
        let t = self.ity(bits);
        self.cast(Op::SExt, v, t)
    }
    pub(crate) fn zext(&self, v: V<'ctx>, bits: u32) -> V<'ctx> {
        let t = self.ity(bits);
        self.cast(Op::ZExt, v, t)
    }
    pub(crate) fn itrunc(&self, v: V<'ctx>, bits: u32) -> V<'ctx> {
        let t = self.ity(bits);
        self.cast(Op::Trunc, v, t)
    }
    /// i32 lanes to integers as wide as the current format.
    pub(crate) fn i32_to_iw(&self, v: V<'ctx>) -> V<'ctx> {
        match self.fp {
            Fp::F32 => v,
            Fp::F64 => self.sext(v, 64),
        }
    }
    /// Integers as wide as the current format to i32 lanes.
    pub(crate) fn iw_to_i32(&self, v: V<'ctx>) -> V<'ctx> {
        match self.fp {
            Fp::F32 => v,
            Fp::F64 => self.itrunc(v, 32),
        }
    }
    pub(crate) fn fpext(&self, v: V<'ctx>) -> V<'ctx> {
        let t = self.fty_of(Fp::F64);
        self.cast(Op::FPExt, v, t)
    }
    pub(crate) fn fptrunc(&self, v: V<'ctx>) -> V<'ctx> {
        let t = self.fty_of(Fp::F32);
        self.cast(Op::FPTrunc, v, t)
    }

    // ---- intrinsics ----

    /// Calls an intrinsic overloaded on the type of its first operand.
    pub(crate) fn intr(&self, name: &str, args: &[V<'ctx>]) -> V<'ctx> {
        let t = args[0].get_type();
        self.intr_t(name, &[t], args)
    }
    pub(crate) fn intr_t(
        &self,
        name: &str,
        tys: &[BasicTypeEnum<'ctx>],
        args: &[V<'ctx>],
    ) -> V<'ctx> {
        let Some(i) = Intrinsic::find(name) else {
            self.fail(format!("math: LLVM has no intrinsic {name}"));
            return args[0];
        };
        let Some(f) = i.get_declaration(self.module, tys) else {
            self.fail(format!("math: cannot declare {name}"));
            return args[0];
        };
        let a: Vec<BasicMetadataValueEnum<'ctx>> = args.iter().map(|v| (*v).into()).collect();
        match self.b.build_call(f, &a, "") {
            Ok(cs) => match cs.try_as_basic_value().basic() {
                Some(v) => v,
                None => {
                    self.fail(format!("math: {name} returned void"));
                    args[0]
                }
            },
            Err(e) => {
                self.fail(format!("math: LLVM builder error: {e}"));
                args[0]
            }
        }
    }
    pub(crate) fn fabs(&self, a: V<'ctx>) -> V<'ctx> {
        self.intr("llvm.fabs", &[a])
    }
    pub(crate) fn copysign(&self, mag: V<'ctx>, sign: V<'ctx>) -> V<'ctx> {
        self.intr("llvm.copysign", &[mag, sign])
    }
    pub(crate) fn rint(&self, a: V<'ctx>) -> V<'ctx> {
        self.intr("llvm.rint", &[a])
    }
    pub(crate) fn trunc(&self, a: V<'ctx>) -> V<'ctx> {
        self.intr("llvm.trunc", &[a])
    }
    pub(crate) fn sqrt(&self, a: V<'ctx>) -> V<'ctx> {
        self.intr("llvm.sqrt", &[a])
    }
    pub(crate) fn minnum(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.intr("llvm.minnum", &[a, b])
    }
    pub(crate) fn maxnum(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.intr("llvm.maxnum", &[a, b])
    }
    /// `min(max(x, lo), hi)`; NaN becomes `lo`, so later integer conversions
    /// never see NaN (callers restore NaN results with a select).
    pub(crate) fn clamp(&self, x: V<'ctx>, lo: f64, hi: f64) -> V<'ctx> {
        let a = self.maxnum(x, self.k(lo));
        self.minnum(a, self.k(hi))
    }
    pub(crate) fn smax(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.intr("llvm.smax", &[a, b])
    }
    pub(crate) fn smin(&self, a: V<'ctx>, b: V<'ctx>) -> V<'ctx> {
        self.intr("llvm.smin", &[a, b])
    }

    // ---- exponent manipulation ----

    /// `2^q` for integer lanes `q` (as wide as the format), valid for
    /// `emin <= q <= emax`.
    pub(crate) fn pow2i(&self, q: V<'ctx>) -> V<'ctx> {
        let b = self.iadd(q, self.ki(self.fp.bias()));
        let s = self.shl(b, self.ki(self.fp.mant() as i64));
        self.as_float(s)
    }
    /// `x * 2^q` in two exact steps (SLEEF's ldexp2k), valid for
    /// `2*emin <= q <= 2*emax`; the second step rounds once.
    pub(crate) fn ldexp2(&self, x: V<'ctx>, q: V<'ctx>) -> V<'ctx> {
        let h = self.ashr(q, self.ki(1));
        let r = self.isub(q, h);
        let a = self.mul(x, self.pow2i(h));
        self.mul(a, self.pow2i(r))
    }
    /// Integer lanes (as wide as the format) from a float holding an integer
    /// that fits in i32 (the conversion goes through i32 so it is one
    /// instruction on every SIMD target).
    pub(crate) fn f2iw(&self, v: V<'ctx>) -> V<'ctx> {
        let i = self.f2i(v, 32);
        self.i32_to_iw(i)
    }
    /// Float from integer lanes as wide as the format, holding an i32 value.
    pub(crate) fn iw2f(&self, v: V<'ctx>) -> V<'ctx> {
        let i = self.iw_to_i32(v);
        self.i2f(i)
    }

    // ---- tables ----

    /// An internal constant `[N x i64]` global (created once per module).
    pub(crate) fn table_i64(&self, name: &str, data: &[i64]) -> GlobalValue<'ctx> {
        if let Some(g) = self.module.get_global(name) {
            return g;
        }
        let t = self.ctx.i64_type();
        let vals: Vec<IntValue<'ctx>> = data.iter().map(|&v| t.const_int(v as u64, true)).collect();
        let arr = t.const_array(&vals);
        let g = self.module.add_global(arr.get_type(), None, name);
        g.set_initializer(&arr);
        g.set_constant(true);
        g.set_linkage(Linkage::Internal);
        g
    }

    /// `table[idx]` per lane (`idx` i64 lanes). Loads lane by lane: only the
    /// rare huge-argument path of sin/cos/tan uses it.
    pub(crate) fn load_table(&self, g: GlobalValue<'ctx>, idx: V<'ctx>) -> V<'ctx> {
        let t = self.ctx.i64_type();
        let load1 = |i: IntValue<'ctx>| -> Option<V<'ctx>> {
            // SAFETY: callers keep idx within the table.
            let p = unsafe {
                self.b
                    .build_in_bounds_gep(t, g.as_pointer_value(), &[i], "")
            }
            .ok()?;
            self.b.build_load(t, p, "").ok()
        };
        match idx {
            BasicValueEnum::IntValue(i) => match load1(i) {
                Some(v) => v,
                None => {
                    self.fail("math: table load failed".into());
                    idx
                }
            },
            BasicValueEnum::VectorValue(iv) => {
                let n = iv.get_type().get_size();
                let mut acc: V<'ctx> = t.vec_type(n).get_poison().into();
                for lane in 0..n {
                    let li = self.ctx.i32_type().const_int(lane as u64, false);
                    let r = (|| {
                        let x = self.b.build_extract_element(iv, li, "").ok()?;
                        let v = load1(x.into_int_value())?;
                        let a = self
                            .b
                            .build_insert_element(acc.into_vector_value(), v, li, "")
                            .ok()?;
                        Some(a.as_basic_value_enum())
                    })();
                    match r {
                        Some(a) => acc = a,
                        None => {
                            self.fail("math: table load failed".into());
                            return idx;
                        }
                    }
                }
                acc
            }
            _ => {
                self.fail("math: bad table index".into());
                idx
            }
        }
    }

    /// True when any lane of the i1 (vector) is set, as a scalar i1.
    pub(crate) fn any(&self, c: V<'ctx>) -> V<'ctx> {
        match self.lanes {
            Some(_) => self.intr("llvm.vector.reduce.or", &[c]),
            None => c,
        }
    }

    // ---- double-word arithmetic (Dekker; Shewchuk; SLEEF's dd helpers) ----

    /// Exact `a + b = s + e`.
    pub(crate) fn two_sum(&self, a: V<'ctx>, b: V<'ctx>) -> (V<'ctx>, V<'ctx>) {
        let s = self.add(a, b);
        let bb = self.sub(s, a);
        let e1 = self.sub(a, self.sub(s, bb));
        let e2 = self.sub(b, bb);
        (s, self.add(e1, e2))
    }
    /// Exact `a + b = s + e` when `|a| >= |b|` (or a == 0).
    pub(crate) fn fast_two_sum(&self, a: V<'ctx>, b: V<'ctx>) -> (V<'ctx>, V<'ctx>) {
        let s = self.add(a, b);
        let e = self.sub(b, self.sub(s, a));
        (s, e)
    }
    /// Splits `a` into a high half with at most `prec/2` significant bits and
    /// an exact rest, by masking the low mantissa bits (no overflow, unlike
    /// Veltkamp's multiplication by 2^27+1).
    pub(crate) fn split(&self, a: V<'ctx>) -> (V<'ctx>, V<'ctx>) {
        let mask = match self.fp {
            Fp::F32 => !0xfffi64,
            Fp::F64 => !0x7ff_ffffi64,
        };
        let hi = self.as_float(self.and(self.as_int(a), self.ki(mask)));
        (hi, self.sub(a, hi))
    }
    /// Exact `a * b = p + e` (Dekker), barring overflow/underflow.
    pub(crate) fn two_prod(&self, a: V<'ctx>, b: V<'ctx>) -> (V<'ctx>, V<'ctx>) {
        let p = self.mul(a, b);
        let (ah, al) = self.split(a);
        let (bh, bl) = self.split(b);
        let t = self.sub(self.mul(ah, bh), p);
        let t = self.add(t, self.mul(ah, bl));
        let t = self.add(t, self.mul(al, bh));
        (p, self.add(t, self.mul(al, bl)))
    }
    /// Double-word + double-word (accurate: two_sum on the high parts).
    pub(crate) fn dd_add(
        &self,
        x: (V<'ctx>, V<'ctx>),
        y: (V<'ctx>, V<'ctx>),
    ) -> (V<'ctx>, V<'ctx>) {
        let (s, e) = self.two_sum(x.0, y.0);
        let e = self.add(e, self.add(x.1, y.1));
        self.fast_two_sum(s, e)
    }
    /// Double-word * double-word.
    pub(crate) fn dd_mul(
        &self,
        x: (V<'ctx>, V<'ctx>),
        y: (V<'ctx>, V<'ctx>),
    ) -> (V<'ctx>, V<'ctx>) {
        let (p, e) = self.two_prod(x.0, y.0);
        let e = self.add(e, self.add(self.mul(x.0, y.1), self.mul(x.1, y.0)));
        self.fast_two_sum(p, e)
    }
    /// Double-word * word.
    pub(crate) fn dd_mul_d(&self, x: (V<'ctx>, V<'ctx>), y: V<'ctx>) -> (V<'ctx>, V<'ctx>) {
        let (p, e) = self.two_prod(x.0, y);
        let e = self.add(e, self.mul(x.1, y));
        self.fast_two_sum(p, e)
    }
    /// Double-word / word.
    pub(crate) fn dd_div_d(&self, x: (V<'ctx>, V<'ctx>), d: V<'ctx>) -> (V<'ctx>, V<'ctx>) {
        let q1 = self.div(x.0, d);
        let (p, pe) = self.two_prod(q1, d);
        let r = self.sub(self.sub(x.0, p), pe);
        let r = self.add(r, x.1);
        let q2 = self.div(r, d);
        self.fast_two_sum(q1, q2)
    }
    /// Double-word / double-word.
    pub(crate) fn dd_div(
        &self,
        n: (V<'ctx>, V<'ctx>),
        d: (V<'ctx>, V<'ctx>),
    ) -> (V<'ctx>, V<'ctx>) {
        let q1 = self.div(n.0, d.0);
        let (p, pe) = self.two_prod(q1, d.0);
        let r = self.sub(self.sub(n.0, p), pe);
        let r = self.add(r, self.sub(n.1, self.mul(q1, d.1)));
        let q2 = self.div(r, d.0);
        self.fast_two_sum(q1, q2)
    }
}
