//! The vector math library: every [`MathFn`] as LLVM IR on `float`/`double`
//! (and `i8`..`i64` for the integer ones), scalar or `<N x T>` for any N.
//!
//! Objects stay self-contained (DESIGN §3): functions with an exact LLVM
//! intrinsic that lowers to instructions (sqrt, fabs, floor, ceil, trunc,
//! rint, round, fma, copysign, minnum/maxnum, integer min/max/abs, ctpop,
//! ctlz, cttz, fshl, saturating add/sub) are emitted inline; everything
//! else is our own branch-free implementation (see `math/kernels.rs`),
//! emitted once per module as an internal `alwaysinline` function named
//! `lanes.math.<name>.<shape>` (e.g. `lanes.math.exp.v16f32`) and called.
//! `llvm.exp`/`llvm.sin`/... are never used: on x86 they become libm calls.
//!
//! f32 `sin`/`cos`/`tan`, `pow`/`pown`/`powr`/`rootn`, `cbrt`, `hypot` and
//! `rsqrt` compute in double internally (vector `fpext`/`fptrunc`, never
//! scalarized), which makes them nearly correctly rounded; the rest of f32
//! is pure f32 arithmetic.
//!
//! # Accuracy
//!
//! Maximum error in ulps measured by `tests/math.rs` (~200k points per
//! function and type: dense linear and log-spaced sweeps of the interesting
//! ranges, random bit patterns, all combinations of special values), over
//! widths 1/4/8/16 (f32) and 1/2/4/8 (f64), each compiled for generic x86-64
//! (polynomials unfused) and for the host CPU (fused multiply-adds).
//! f32 is compared with the double-precision libm result, so its column is
//! the true error. f64 is compared with glibc 2.36 (whose own error reaches
//! ~1.5 ulp for tanh/sinh/cosh/log10), so the f64 column is an upper bound
//! of whole ulps; except sinpi/cospi/cbrt/rsqrt, whose references are refined
//! to double-double. mpmath checks of the worst f64 cases found true errors
//! tan 2.68, tanh 1.53, expm1 1.77, log10 0.65, cosh 0.53, sinh 0.32.
//! Bounds: OpenCL C 1.2 full profile, tables 7.1/7.2 ("exact": correctly
//! rounded, compared bit for bit).
//!
//! | function | f32 | f64 (vs glibc) | bound |
//! |---|---|---|---|
//! | sqrt, fabs, floor, ceil, trunc, rint, round, copysign, fmin, fmax, fma | 0 | 0 | exact |
//! | fmod, fdim, ldexp | 0 | 0 | exact |
//! | rsqrt | 0.50 | 0.50 | 2 |
//! | exp | 0.98 | 1 | 3 |
//! | exp2 | 1.10 | 1 | 3 |
//! | exp10 | 1.15 | 1 | 3 |
//! | expm1 | 1.51 | 2 | 3 |
//! | log | 0.77 | 1 | 3 |
//! | log2 | 0.76 | 1 | 3 |
//! | log10 | 0.64 | 2 | 3 |
//! | log1p | 0.79 | 1 | 2 |
//! | sin | 0.50 | 2 | 4 |
//! | cos | 0.50 | 2 | 4 |
//! | tan | 0.50 | 3 | 5 |
//! | asin | 2.43 | 2 | 4 |
//! | acos | 1.26 | 1 | 4 |
//! | atan | 0.79 | 1 | 5 |
//! | atan2 | 1.36 | 2 | 6 |
//! | sinh | 1.56 | 2 | 4 |
//! | cosh | 1.38 | 2 | 4 |
//! | tanh | 2.27 | 3 | 5 |
//! | asinh | 1.47 | 1 | 4 |
//! | acosh | 2.21 | 2 | 4 |
//! | atanh | 1.59 | 1 | 5 |
//! | sinpi | 1.62 | 1.89 | 4 |
//! | cospi | 1.64 | 1.86 | 4 |
//! | cbrt | 0.50 | 1 | 2 |
//! | hypot | 0.50 | 1 | 4 |
//! | pow, powr, pown | 0.50 | 1 | 16 |
//! | rootn | 0.50 | 1 | 16 |
//!
//! Special values follow C99 Annex F (NaN, ±inf, ±0, overflow, gradual
//! underflow, pow's and atan2's cases) and OpenCL's rules for powr, pown,
//! rootn, sinpi and cospi; the tests check them bit for bit (sign of zero
//! included).
//!
//! Ranges: every finite argument is handled. sin/cos/tan reduce with a
//! 4-piece Cody–Waite reduction in double (exact for |x| <= 1.5 * 2^20) and
//! switch, only when some lane needs it, to an exact Payne–Hanek reduction
//! (7 chunks of 2/pi from a 50-entry table, loaded lane by lane). `fmod` is
//! exact; it loops (a vector loop that exits when every lane is done) once
//! per ~9 (f32) / ~23 (f64) bits of exponent difference between x and y.
//! `fma` is `llvm.fma`, a libm call on x86 CPUs without FMA (the SSE4
//! targets); everything else compiles to instructions on SSE4, AVX2,
//! AVX-512 and NEON (`tests/math.rs` checks the assembly).

mod coef;
mod emit;
mod kernels;

use std::cell::RefCell;

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::builder::Builder;
use inkwell::context::Context;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum};
use inkwell::values::InstructionOpcode as Op;
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue};
use lanes_vectorizer::ir::MathFn;

use emit::{Em, Fp, V};
use kernels::Trig;

/// Emits (or reuses) the implementation of `func` for the argument types and
/// returns a call to it at the builder's position.
pub fn call_math<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    func: MathFn,
    args: &[BasicValueEnum<'ctx>],
) -> Result<BasicValueEnum<'ctx>, String> {
    call_math_with(ctx, module, builder, func, args, false)
}

/// [`call_math`], optionally evaluating the polynomials with `llvm.fma`
/// instead of `llvm.fmuladd` (tests use it to check the FMA evaluation order
/// on machines whose JIT target has no FMA).
#[doc(hidden)]
pub fn call_math_with<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    func: MathFn,
    args: &[BasicValueEnum<'ctx>],
    fused: bool,
) -> Result<BasicValueEnum<'ctx>, String> {
    let name = func.name();
    if args.len() != func.arity() {
        return Err(format!(
            "math: {name} takes {} operands, got {}",
            func.arity(),
            args.len()
        ));
    }
    // Common shape: the vector length of the vector operands (scalars are
    // splatted to it).
    let mut lanes: Option<u32> = None;
    for a in args {
        if let BasicValueEnum::VectorValue(v) = a {
            let n = v.get_type().get_size();
            match lanes {
                Some(m) if m != n => {
                    return Err(format!("math: {name}: operands have {m} and {n} lanes"));
                }
                _ => lanes = Some(n),
            }
        }
    }
    let mut xs = Vec::with_capacity(args.len());
    for &a in args {
        xs.push(match (lanes, a) {
            (Some(n), BasicValueEnum::FloatValue(_) | BasicValueEnum::IntValue(_)) => {
                splat(builder, a, n)?
            }
            _ => a,
        });
    }
    let elem = |v: V<'ctx>| match v {
        BasicValueEnum::VectorValue(x) => x.get_type().get_element_type(),
        o => o.get_type(),
    };
    let err = RefCell::new(None);
    if func.is_integer() {
        let BasicTypeEnum::IntType(it) = elem(xs[0]) else {
            return Err(format!("math: {name} needs integer operands"));
        };
        if xs.iter().any(|&x| elem(x) != it.into()) {
            return Err(format!("math: {name}: operand types differ"));
        }
        let e = Em::new(ctx, module, builder, lanes, Fp::F32, fused, &err);
        let r = integer(&e, func, &xs, it.get_bit_width());
        e.finish()?;
        return Ok(r);
    }
    let fp = match elem(xs[0]) {
        BasicTypeEnum::FloatType(f) if f == ctx.f32_type() => Fp::F32,
        BasicTypeEnum::FloatType(f) if f == ctx.f64_type() => Fp::F64,
        t => return Err(format!("math: {name} on unsupported type {t}")),
    };
    let int_second = matches!(func, MathFn::Pown | MathFn::Rootn | MathFn::Ldexp);
    let t0 = elem(xs[0]);
    for (i, x) in xs.iter_mut().enumerate().skip(1) {
        let t = elem(*x);
        if int_second && i == 1 {
            let BasicTypeEnum::IntType(it) = t else {
                return Err(format!("math: {name} needs an integer second operand"));
            };
            if it.get_bit_width() != 32 {
                // The IR says i32; accept other widths by converting.
                let e = Em::new(ctx, module, builder, lanes, fp, fused, &err);
                let op = if it.get_bit_width() > 32 {
                    Op::Trunc
                } else {
                    Op::SExt
                };
                *x = e.cast(op, *x, e.ity(32));
                e.finish()?;
            }
        } else if t != t0 {
            return Err(format!("math: {name}: operand types differ"));
        }
    }
    if let Some(r) = float_intrinsic(ctx, module, builder, lanes, fp, fused, func, &xs, &err)? {
        return Ok(r);
    }
    let shape = match lanes {
        Some(n) => format!("v{n}{}", fp.tag()),
        None => fp.tag().to_string(),
    };
    let fname = format!(
        "lanes.math.{name}.{shape}{}",
        if fused { ".fma" } else { "" }
    );
    let f = match module.get_function(&fname) {
        Some(f) => f,
        None => build_function(ctx, module, &fname, lanes, fp, fused, func, &xs)?,
    };
    let margs: Vec<_> = xs.iter().map(|v| (*v).into()).collect();
    let cs = builder
        .build_call(f, &margs, "")
        .map_err(|e| format!("math: LLVM builder error: {e}"))?;
    cs.try_as_basic_value()
        .basic()
        .ok_or_else(|| format!("math: {fname} returns void"))
}

/// `<n x T>` with every lane `v`.
fn splat<'ctx>(b: &Builder<'ctx>, v: V<'ctx>, n: u32) -> Result<V<'ctx>, String> {
    let err = |e: inkwell::builder::BuilderError| format!("math: LLVM builder error: {e}");
    let vt = match v {
        BasicValueEnum::FloatValue(f) => f.get_type().vec_type(n),
        BasicValueEnum::IntValue(i) => i.get_type().vec_type(n),
        _ => return Err("math: cannot splat this operand".into()),
    };
    let ctx = vt.get_context();
    let i32t = ctx.i32_type();
    let ins = b
        .build_insert_element(vt.get_poison(), v, i32t.const_zero(), "")
        .map_err(err)?;
    let mask = i32t.vec_type(n).const_zero();
    b.build_shuffle_vector(ins, vt.get_poison(), mask, "")
        .map(|v| v.as_basic_value_enum())
        .map_err(err)
}

/// The integer functions, inline.
fn integer<'ctx>(e: &Em<'_, 'ctx>, func: MathFn, x: &[V<'ctx>], bits: u32) -> V<'ctx> {
    use MathFn::*;
    let f = e.ctx.bool_type().const_zero().as_basic_value_enum();
    match func {
        SMin => e.intr("llvm.smin", &[x[0], x[1]]),
        SMax => e.intr("llvm.smax", &[x[0], x[1]]),
        UMin => e.intr("llvm.umin", &[x[0], x[1]]),
        UMax => e.intr("llvm.umax", &[x[0], x[1]]),
        // INT_MIN stays INT_MIN (OpenCL's abs returns the unsigned bits).
        IAbs => e.intr("llvm.abs", &[x[0], f]),
        SAddSat => e.intr("llvm.sadd.sat", &[x[0], x[1]]),
        UAddSat => e.intr("llvm.uadd.sat", &[x[0], x[1]]),
        SSubSat => e.intr("llvm.ssub.sat", &[x[0], x[1]]),
        USubSat => e.intr("llvm.usub.sat", &[x[0], x[1]]),
        Popcount => e.intr("llvm.ctpop", &[x[0]]),
        // clz(0) = ctz(0) = width, as OpenCL requires.
        Clz => e.intr("llvm.ctlz", &[x[0], f]),
        Ctz => e.intr("llvm.cttz", &[x[0], f]),
        // fshl(x, x, n) rotates left by n mod width.
        Rotate => e.intr("llvm.fshl", &[x[0], x[0], x[1]]),
        SMulHi | UMulHi => {
            let (ext, w) = (if func == SMulHi { Op::SExt } else { Op::ZExt }, bits * 2);
            let a = e.cast(ext, x[0], e.ity(w));
            let b = e.cast(ext, x[1], e.ity(w));
            let p = e.imul(a, b);
            let h = e.lshr(p, e.kib(w, bits as i64));
            e.cast(Op::Trunc, h, e.ity(bits))
        }
        _ => x[0],
    }
}

/// Float functions that are exactly one LLVM intrinsic lowering to
/// instructions; `None` for the others.
#[allow(clippy::too_many_arguments)]
fn float_intrinsic<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    builder: &Builder<'ctx>,
    lanes: Option<u32>,
    fp: Fp,
    fused: bool,
    func: MathFn,
    x: &[V<'ctx>],
    err: &RefCell<Option<String>>,
) -> Result<Option<V<'ctx>>, String> {
    use MathFn::*;
    let name = match func {
        Sqrt => "llvm.sqrt",
        Fabs => "llvm.fabs",
        Floor => "llvm.floor",
        Ceil => "llvm.ceil",
        Trunc => "llvm.trunc",
        Rint => "llvm.rint",
        // Half-way cases away from zero, as C's round.
        Round => "llvm.round",
        // Correctly rounded; a libm call only on x86 without FMA (SSE4).
        Fma => "llvm.fma",
        Copysign => "llvm.copysign",
        // IEEE minNum/maxNum: a NaN operand yields the other one.
        Fmin => "llvm.minnum",
        Fmax => "llvm.maxnum",
        _ => return Ok(None),
    };
    let e = Em::new(ctx, module, builder, lanes, fp, fused, err);
    let r = e.intr(name, x);
    e.finish()?;
    Ok(Some(r))
}

/// Builds `lanes.math.<name>.<shape>` around the kernel of `func`.
#[allow(clippy::too_many_arguments)]
fn build_function<'ctx>(
    ctx: &'ctx Context,
    module: &Module<'ctx>,
    fname: &str,
    lanes: Option<u32>,
    fp: Fp,
    fused: bool,
    func: MathFn,
    args: &[V<'ctx>],
) -> Result<FunctionValue<'ctx>, String> {
    let params: Vec<BasicMetadataTypeEnum<'ctx>> =
        args.iter().map(|a| a.get_type().into()).collect();
    let ret = args[0].get_type();
    let f = module.add_function(fname, ret.fn_type(&params, false), Some(Linkage::Internal));
    for a in ["alwaysinline", "nounwind", "willreturn", "nosync", "nofree"] {
        let id = Attribute::get_named_enum_kind_id(a);
        f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(id, 0));
    }
    // memory(none): no memory access, except sin/cos/tan, which read a
    // constant table on their huge-argument path.
    if !matches!(func, MathFn::Sin | MathFn::Cos | MathFn::Tan) {
        let id = Attribute::get_named_enum_kind_id("memory");
        f.add_attribute(AttributeLoc::Function, ctx.create_enum_attribute(id, 0));
    }
    let entry = ctx.append_basic_block(f, "entry");
    let b = ctx.create_builder();
    b.position_at_end(entry);
    let err = RefCell::new(None);
    let e = Em::new(ctx, module, &b, lanes, fp, fused, &err);
    let ps: Vec<V<'ctx>> = f.get_param_iter().collect();
    let r = body(&e, func, &ps).and_then(|r| {
        e.finish()?;
        b.build_return(Some(&r))
            .map_err(|x| format!("math: LLVM builder error: {x}"))?;
        Ok(())
    });
    match r {
        Ok(()) => Ok(f),
        Err(m) => {
            // SAFETY: the function was created above and nothing refers to it.
            unsafe { f.delete() };
            Err(m)
        }
    }
}

fn body<'ctx>(e: &Em<'_, 'ctx>, func: MathFn, x: &[V<'ctx>]) -> Result<V<'ctx>, String> {
    use kernels as k;
    use MathFn::*;
    Ok(match func {
        Rsqrt => k::rsqrt(e, x[0]),
        Exp => k::exp(e, x[0]),
        Exp2 => k::exp2(e, x[0]),
        Exp10 => k::exp10(e, x[0]),
        Expm1 => k::expm1(e, x[0]),
        Log => k::log(e, x[0]),
        Log2 => k::log2(e, x[0]),
        Log10 => k::log10(e, x[0]),
        Log1p => k::log1p(e, x[0]),
        Sin => k::trig(e, x[0], Trig::Sin)?,
        Cos => k::trig(e, x[0], Trig::Cos)?,
        Tan => k::trig(e, x[0], Trig::Tan)?,
        Asin => k::asin_acos(e, x[0], false),
        Acos => k::asin_acos(e, x[0], true),
        Atan => k::atan(e, x[0]),
        Sinh => k::sinh(e, x[0]),
        Cosh => k::cosh(e, x[0]),
        Tanh => k::tanh(e, x[0]),
        Asinh => k::asinh(e, x[0]),
        Acosh => k::acosh(e, x[0]),
        Atanh => k::atanh(e, x[0]),
        Sinpi => k::sincospi(e, x[0], false),
        Cospi => k::sincospi(e, x[0], true),
        Cbrt => k::cbrt(e, x[0]),
        Pow => k::pow(e, x[0], x[1]),
        Powr => k::powr(e, x[0], x[1]),
        Atan2 => k::atan2(e, x[0], x[1]),
        Hypot => k::hypot(e, x[0], x[1]),
        Fmod => k::fmod(e, x[0], x[1])?,
        Fdim => k::fdim(e, x[0], x[1]),
        Pown => k::pown(e, x[0], x[1]),
        Rootn => k::rootn(e, x[0], x[1]),
        Ldexp => k::ldexp(e, x[0], x[1]),
        other => return Err(format!("math: no implementation of {}", other.name())),
    })
}
