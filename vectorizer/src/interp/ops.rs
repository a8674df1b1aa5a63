//! Scalar semantics of single instructions: integer and float arithmetic,
//! comparisons, casts and the math built-ins. Pure functions of their
//! operands; the machine (`super`) reads operands, rejects `undef` before
//! calling in here, and attaches the source location to a [`Fault`].

use super::memory::{self, Pointer};
use super::ErrorKind;
use crate::ir::{sign_extend, truncate, BinOp, CastOp, CmpPred, MathFn, Ty};
use lanes_frontend::source::Span;

/// A runtime value of one work-item.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Val {
    /// Never computed: reading it means the IR is malformed (a use not
    /// dominated by its definition).
    Unset,
    /// An `undef` value: may flow through φs and `select` operands only.
    Undef,
    /// Integer bits, truncated to the type's width (zero-extended).
    Int(u64),
    F32(f32),
    F64(f64),
    Ptr(Pointer),
}

/// An error without its location; the machine adds span and work-item.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fault {
    pub kind: ErrorKind,
    pub message: String,
    /// A second place the error is about ([`super::InterpError::related`]).
    pub related: Option<(Span, String)>,
}

pub(crate) fn fault(kind: ErrorKind, message: impl Into<String>) -> Fault {
    Fault {
        kind,
        message: message.into(),
        related: None,
    }
}

fn malformed(message: impl Into<String>) -> Fault {
    fault(ErrorKind::MalformedIr, message)
}

/// The bit width of an integer type, or a fault.
pub(crate) fn int_bits(ty: Ty) -> Result<u32, Fault> {
    if ty.is_int() {
        Ok(ty.bits())
    } else {
        Err(malformed(format!("expected an integer type, found {ty}")))
    }
}

pub(crate) fn as_int(v: Val) -> Result<u64, Fault> {
    match v {
        Val::Int(x) => Ok(x),
        other => Err(malformed(format!(
            "expected an integer operand, found {other:?}"
        ))),
    }
}

fn signed_min(bits: u32) -> i64 {
    sign_extend(1u64 << (bits - 1), bits)
}

fn signed_max(bits: u32) -> i64 {
    (truncate(u64::MAX, bits) >> 1) as i64
}

/// A binary operator on operands of type `ty`.
pub(crate) fn binary(op: BinOp, ty: Ty, a: Val, b: Val) -> Result<Val, Fault> {
    if op.is_float() {
        return match (ty, a, b) {
            (Ty::F32, Val::F32(x), Val::F32(y)) => Ok(Val::F32(match op {
                BinOp::FAdd => x + y,
                BinOp::FSub => x - y,
                BinOp::FMul => x * y,
                BinOp::FDiv => x / y,
                // Rust's `%` on floats is C's fmod (exact, sign of x).
                _ => x % y,
            })),
            (Ty::F64, Val::F64(x), Val::F64(y)) => Ok(Val::F64(match op {
                BinOp::FAdd => x + y,
                BinOp::FSub => x - y,
                BinOp::FMul => x * y,
                BinOp::FDiv => x / y,
                _ => x % y,
            })),
            _ => Err(malformed(format!(
                "`{}` on {ty} with operands {a:?}, {b:?}",
                op.name()
            ))),
        };
    }
    let bits = int_bits(ty)?;
    let (x, y) = (as_int(a)?, as_int(b)?);
    let (sx, sy) = (sign_extend(x, bits), sign_extend(y, bits));
    let r = match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::UDiv | BinOp::URem => {
            if y == 0 {
                return Err(fault(
                    ErrorKind::DivisionByZero,
                    format!("unsigned {} by zero", div_word(op)),
                ));
            }
            if op == BinOp::UDiv {
                x / y
            } else {
                x % y
            }
        }
        BinOp::SDiv | BinOp::SRem => {
            if sy == 0 {
                return Err(fault(
                    ErrorKind::DivisionByZero,
                    format!("signed {} by zero", div_word(op)),
                ));
            }
            if sx == signed_min(bits) && sy == -1 {
                // C leaves both `MIN / -1` and `MIN % -1` undefined.
                return Err(fault(
                    ErrorKind::DivisionByZero,
                    format!(
                        "signed {} overflow: {} / -1 does not fit in {ty}",
                        div_word(op),
                        sx
                    ),
                ));
            }
            if op == BinOp::SDiv {
                (sx / sy) as u64
            } else {
                (sx % sy) as u64
            }
        }
        BinOp::Shl | BinOp::LShr | BinOp::AShr => {
            if y >= bits as u64 {
                return Err(fault(
                    ErrorKind::ShiftOutOfRange,
                    format!("`{}` by {y}, not less than the width {bits}", op.name()),
                ));
            }
            match op {
                BinOp::Shl => x << y,
                BinOp::LShr => x >> y,
                _ => (sx >> y) as u64,
            }
        }
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        _ => return Err(malformed(format!("`{}` on {ty}", op.name()))),
    };
    Ok(Val::Int(truncate(r, bits)))
}

fn div_word(op: BinOp) -> &'static str {
    match op {
        BinOp::SRem | BinOp::URem => "remainder",
        _ => "division",
    }
}

pub(crate) fn fneg(ty: Ty, a: Val) -> Result<Val, Fault> {
    match (ty, a) {
        (Ty::F32, Val::F32(x)) => Ok(Val::F32(-x)),
        (Ty::F64, Val::F64(x)) => Ok(Val::F64(-x)),
        _ => Err(malformed(format!("fneg on {ty} with operand {a:?}"))),
    }
}

/// A comparison of two operands of type `ty`. Pointers compare by address.
pub(crate) fn compare(pred: CmpPred, ty: Ty, a: Val, b: Val) -> Result<bool, Fault> {
    use CmpPred::*;
    if pred.is_float() {
        let (x, y) = match (a, b) {
            // f32 compares exactly after widening.
            (Val::F32(x), Val::F32(y)) => (x as f64, y as f64),
            (Val::F64(x), Val::F64(y)) => (x, y),
            _ => {
                return Err(malformed(format!(
                    "`{}` on {ty} with operands {a:?}, {b:?}",
                    pred.name()
                )))
            }
        };
        return Ok(match pred {
            FOeq => x == y,
            FUne => x != y,
            FOlt => x < y,
            FOle => x <= y,
            FOgt => x > y,
            FOge => x >= y,
            FOrd => !x.is_nan() && !y.is_nan(),
            _ => x.is_nan() || y.is_nan(),
        });
    }
    let (x, y, bits) = match (a, b) {
        (Val::Ptr(p), Val::Ptr(q)) => (memory::address(p), memory::address(q), 64),
        (Val::Int(x), Val::Int(y)) => (x, y, int_bits(ty)?),
        _ => {
            return Err(malformed(format!(
                "`{}` on {ty} with operands {a:?}, {b:?}",
                pred.name()
            )))
        }
    };
    let (sx, sy) = (sign_extend(x, bits), sign_extend(y, bits));
    Ok(match pred {
        Eq => x == y,
        Ne => x != y,
        Slt => sx < sy,
        Sle => sx <= sy,
        Sgt => sx > sy,
        Sge => sx >= sy,
        Ult => x < y,
        Ule => x <= y,
        Ugt => x > y,
        _ => x >= y,
    })
}

/// `2^n` as an exact f64 (n <= 64).
fn pow2(n: u32) -> f64 {
    (1u128 << n) as f64
}

/// Float (exactly widened to f64) to an integer of `bits` bits, rounding
/// toward zero. Out of range (and NaN) is C undefined behaviour unless
/// `sat`, which clamps and maps NaN to 0 (OpenCL `convert_T_sat`).
fn float_to_int(x: f64, bits: u32, signed: bool, sat: bool) -> Result<u64, Fault> {
    let (lo, hi) = if signed {
        (-pow2(bits - 1), pow2(bits - 1))
    } else {
        (0.0, pow2(bits))
    };
    if x.is_nan() {
        return if sat {
            Ok(0)
        } else {
            Err(fault(
                ErrorKind::ConversionOverflow,
                format!("conversion of NaN to a {bits}-bit integer"),
            ))
        };
    }
    let t = x.trunc();
    // Valid results satisfy lo <= t < hi (both bounds are exact powers of 2).
    if t < lo || t >= hi {
        if !sat {
            let kind = if signed { "signed" } else { "unsigned" };
            return Err(fault(
                ErrorKind::ConversionOverflow,
                format!("conversion of {x} to a {bits}-bit {kind} integer is out of range"),
            ));
        }
        return Ok(match (signed, t < lo) {
            (true, true) => truncate(signed_min(bits) as u64, bits),
            (true, false) => signed_max(bits) as u64,
            (false, true) => 0,
            (false, false) => truncate(u64::MAX, bits),
        });
    }
    Ok(if signed {
        truncate(t as i64 as u64, bits)
    } else {
        t as u64
    })
}

fn float_of(v: Val) -> Option<f64> {
    match v {
        Val::F32(x) => Some(x as f64),
        Val::F64(x) => Some(x),
        _ => None,
    }
}

/// A cast of `v` (of type `from`) to type `to`.
pub(crate) fn cast(op: CastOp, from: Ty, to: Ty, v: Val) -> Result<Val, Fault> {
    use CastOp::*;
    let bad = || {
        malformed(format!(
            "`{}` from {from} to {to} of operand {v:?}",
            op.name()
        ))
    };
    match op {
        Trunc | ZExt | SExt => {
            let (fb, tb) = (int_bits(from)?, int_bits(to)?);
            let x = as_int(v)?;
            let wide = if op == SExt {
                sign_extend(x, fb) as u64
            } else {
                x
            };
            Ok(Val::Int(truncate(wide, tb)))
        }
        FpTrunc | FpExt => match (to, float_of(v)) {
            // f64 -> f32 rounds to nearest even, as C does.
            (Ty::F32, Some(x)) => Ok(Val::F32(x as f32)),
            (Ty::F64, Some(x)) => Ok(Val::F64(x)),
            _ => Err(bad()),
        },
        HalfToFp => {
            let h = crate::half::half_bits_to_f32(as_int(v)? as u16);
            match to {
                Ty::F32 => Ok(Val::F32(h)),
                Ty::F64 => Ok(Val::F64(f64::from(h))),
                _ => Err(bad()),
            }
        }
        // Straight from the source precision: one rounding.
        FpToHalf => match v {
            Val::F32(x) => Ok(Val::Int(u64::from(crate::half::f32_to_half_bits(x)))),
            Val::F64(x) => Ok(Val::Int(u64::from(crate::half::f64_to_half_bits(x)))),
            _ => Err(bad()),
        },
        FpToSi | FpToUi | FpToSiSat | FpToUiSat => {
            let bits = int_bits(to)?;
            let x = float_of(v).ok_or_else(bad)?;
            let signed = matches!(op, FpToSi | FpToSiSat);
            let sat = matches!(op, FpToSiSat | FpToUiSat);
            Ok(Val::Int(float_to_int(x, bits, signed, sat)?))
        }
        SiToFp | UiToFp => {
            let fb = int_bits(from)?;
            let x = as_int(v)?;
            // One rounding, straight from the 64-bit integer (no double
            // rounding through f64 for f32 results).
            match (to, op) {
                (Ty::F32, SiToFp) => Ok(Val::F32(sign_extend(x, fb) as f32)),
                (Ty::F64, SiToFp) => Ok(Val::F64(sign_extend(x, fb) as f64)),
                (Ty::F32, _) => Ok(Val::F32(x as f32)),
                (Ty::F64, _) => Ok(Val::F64(x as f64)),
                _ => Err(bad()),
            }
        }
        Bitcast => match (to, v) {
            (Ty::F32, Val::Int(x)) if from == Ty::I32 => Ok(Val::F32(f32::from_bits(x as u32))),
            (Ty::F64, Val::Int(x)) if from == Ty::I64 => Ok(Val::F64(f64::from_bits(x))),
            (Ty::I32, Val::F32(x)) => Ok(Val::Int(x.to_bits() as u64)),
            (Ty::I64, Val::F64(x)) => Ok(Val::Int(x.to_bits())),
            _ if from == to => Ok(v),
            _ => Err(bad()),
        },
        PtrToInt => match v {
            Val::Ptr(p) => Ok(Val::Int(truncate(memory::address(p), int_bits(to)?))),
            _ => Err(bad()),
        },
        IntToPtr => {
            if !to.is_ptr() {
                return Err(bad());
            }
            Ok(Val::Ptr(memory::from_address(as_int(v)?)))
        }
        PtrCast => match v {
            Val::Ptr(_) if to.is_ptr() => Ok(v),
            _ => Err(bad()),
        },
    }
}

// ---- math built-ins -----------------------------------------------------

/// `sin(pi * x)` with an exact argument reduction: `x mod 2` is exact, the
/// reflections below are exact (Sterbenz), so only `pi * r` rounds.
pub(crate) fn sinpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = x % 2.0; // (-2, 2), exact
    if r > 1.0 {
        r -= 2.0;
    } else if r < -1.0 {
        r += 2.0;
    }
    // r in [-1, 1]; sin(pi r) = sin(pi (1 - r)).
    if r > 0.5 {
        r = 1.0 - r;
    } else if r < -0.5 {
        r = -1.0 - r;
    }
    let s = (std::f64::consts::PI * r).sin();
    if s == 0.0 {
        // sinpi is odd: +0 for positive integers, -0 for negative ones.
        0.0f64.copysign(x)
    } else {
        s
    }
}

/// `cos(pi * x)`, reduced exactly to `[0, 1]` first.
pub(crate) fn cospi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = x.abs() % 2.0; // [0, 2)
    if r > 1.0 {
        r = 2.0 - r;
    }
    // r in [0, 1].
    if r == 0.5 {
        0.0
    } else if r < 0.25 {
        (std::f64::consts::PI * r).cos()
    } else if r <= 0.75 {
        // cos(pi r) = -sin(pi (r - 1/2)); r - 0.5 is exact here.
        -(std::f64::consts::PI * (r - 0.5)).sin()
    } else {
        -(std::f64::consts::PI * (1.0 - r)).cos()
    }
}

/// `x * 2^n` with one rounding (musl's scalbn).
pub(crate) fn ldexp64(x: f64, n: i32) -> f64 {
    let mut y = x;
    let mut n = n;
    let p1023 = f64::from_bits(0x7fe0_0000_0000_0000); // 2^1023
    let pm969 = f64::from_bits(0x0360_0000_0000_0000); // 2^-1022 * 2^53
    if n > 1023 {
        y *= p1023;
        n -= 1023;
        if n > 1023 {
            y *= p1023;
            n -= 1023;
            n = n.min(1023);
        }
    } else if n < -1022 {
        y *= pm969;
        n += 1022 - 53;
        if n < -1022 {
            y *= pm969;
            n += 1022 - 53;
            n = n.max(-1022);
        }
    }
    y * f64::from_bits(((0x3ff + n) as u64) << 52)
}

/// `x * 2^n` for f32 with one rounding (musl's scalbnf).
pub(crate) fn ldexp32(x: f32, n: i32) -> f32 {
    let mut y = x;
    let mut n = n;
    let p127 = f32::from_bits(0x7f00_0000); // 2^127
    let pm102 = f32::from_bits(0x0c80_0000); // 2^-126 * 2^24 = 2^-102
    if n > 127 {
        y *= p127;
        n -= 127;
        if n > 127 {
            y *= p127;
            n -= 127;
            n = n.min(127);
        }
    } else if n < -126 {
        y *= pm102;
        n += 126 - 24;
        if n < -126 {
            y *= pm102;
            n += 126 - 24;
            n = n.max(-126);
        }
    }
    y * f32::from_bits(((0x7f + n) as u32) << 23)
}

/// OpenCL `powr`: `pow` for `x >= 0` with the special cases of the spec.
pub(crate) fn powr(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        if y == 0.0 {
            return f64::NAN;
        }
        return if y < 0.0 { f64::INFINITY } else { 0.0 };
    }
    if x == f64::INFINITY && y == 0.0 {
        return f64::NAN;
    }
    if x == 1.0 {
        return if y.is_infinite() { f64::NAN } else { 1.0 };
    }
    x.powf(y)
}

/// OpenCL `rootn`: the `n`-th root, with odd roots of negative numbers.
pub(crate) fn rootn(x: f64, n: i32) -> f64 {
    if n == 0 || x.is_nan() || (x < 0.0 && n % 2 == 0) {
        return f64::NAN;
    }
    let odd = n % 2 != 0;
    if x == 0.0 {
        // ±0 keeps its sign for odd n; n < 0 gives the matching infinity.
        let sign = if odd { x } else { 0.0 };
        return if n < 0 {
            f64::INFINITY.copysign(sign)
        } else {
            0.0f64.copysign(sign)
        };
    }
    let m = match n {
        1 => x.abs(),
        2 => x.abs().sqrt(),
        3 => x.abs().cbrt(),
        -1 => 1.0 / x.abs(),
        _ => x.abs().powf(1.0 / n as f64),
    };
    if x < 0.0 {
        -m
    } else {
        m
    }
}

/// IEEE minNum/maxNum: a NaN operand is ignored; -0 < +0.
macro_rules! min_max {
    ($name:ident, $t:ty, $min:expr) => {
        pub(crate) fn $name(x: $t, y: $t) -> $t {
            if x.is_nan() {
                return y;
            }
            if y.is_nan() {
                return x;
            }
            let x_first = if x == y {
                // Only ±0 compare equal with different bits.
                x.is_sign_negative() == $min
            } else {
                (x < y) == $min
            };
            if x_first {
                x
            } else {
                y
            }
        }
    };
}
min_max!(fmin32, f32, true);
min_max!(fmax32, f32, false);
min_max!(fmin64, f64, true);
min_max!(fmax64, f64, false);

/// The float functions, written once for f32 and f64: every function is
/// computed in the type's own precision with Rust's methods (which call the
/// C library), except those Rust lacks, which go through the f64 helpers
/// above and round once.
macro_rules! float_math {
    ($name:ident, $t:ty, $fmin:ident, $fmax:ident, $ldexp:expr) => {
        fn $name(func: MathFn, a: &[$t], n: i32) -> Option<$t> {
            use MathFn::*;
            let x = *a.first()?;
            let y = || a.get(1).copied();
            Some(match func {
                Sqrt => x.sqrt(),
                Rsqrt => 1.0 / x.sqrt(),
                Fabs => x.abs(),
                Floor => x.floor(),
                Ceil => x.ceil(),
                Round => x.round(),
                Trunc => x.trunc(),
                Rint => x.round_ties_even(),
                Exp => x.exp(),
                Exp2 => x.exp2(),
                Exp10 => (10.0 as $t).powf(x),
                Expm1 => x.exp_m1(),
                Log => x.ln(),
                Log2 => x.log2(),
                Log10 => x.log10(),
                Log1p => x.ln_1p(),
                Sin => x.sin(),
                Cos => x.cos(),
                Tan => x.tan(),
                Asin => x.asin(),
                Acos => x.acos(),
                Atan => x.atan(),
                Sinh => x.sinh(),
                Cosh => x.cosh(),
                Tanh => x.tanh(),
                Asinh => x.asinh(),
                Acosh => x.acosh(),
                Atanh => x.atanh(),
                Sinpi => sinpi(x as f64) as $t,
                Cospi => cospi(x as f64) as $t,
                Cbrt => x.cbrt(),
                Lgamma => libm::lgamma(x as f64) as $t,
                Pow => x.powf(y()?),
                Powr => powr(x as f64, y()? as f64) as $t,
                Atan2 => x.atan2(y()?),
                Hypot => x.hypot(y()?),
                Copysign => x.copysign(y()?),
                Fmod => x % y()?,
                Fdim => {
                    let y = y()?;
                    if x.is_nan() || y.is_nan() {
                        <$t>::NAN
                    } else if x > y {
                        x - y
                    } else {
                        0.0
                    }
                }
                Fmin => $fmin(x, y()?),
                Fmax => $fmax(x, y()?),
                // pow with an exactly representable integer exponent.
                Pown => (x as f64).powf(n as f64) as $t,
                Rootn => rootn(x as f64, n) as $t,
                Ldexp => $ldexp(x, n),
                Fma => x.mul_add(y()?, *a.get(2)?),
                _ => return None,
            })
        }
    };
}
float_math!(math_f32, f32, fmin32, fmax32, ldexp32);
float_math!(math_f64, f64, fmin64, fmax64, ldexp64);

/// A math built-in with result type `ty` on already-checked operands.
pub(crate) fn math(func: MathFn, ty: Ty, args: &[Val]) -> Result<Val, Fault> {
    if args.len() != func.arity() {
        return Err(malformed(format!(
            "`{}` takes {} operands, found {}",
            func.name(),
            func.arity(),
            args.len()
        )));
    }
    let bad = || {
        malformed(format!(
            "`{}` returning {ty} on operands {args:?}",
            func.name()
        ))
    };
    if func.is_integer() {
        return integer_math(func, ty, args);
    }
    // pown/rootn/ldexp take an i32 as the second operand.
    let int_arg = matches!(func, MathFn::Pown | MathFn::Rootn | MathFn::Ldexp);
    let n = if int_arg {
        match args.get(1) {
            Some(Val::Int(v)) => sign_extend(*v, 32) as i32,
            _ => return Err(bad()),
        }
    } else {
        0
    };
    let floats = if int_arg { &args[..1] } else { args };
    match ty {
        Ty::F32 => {
            let mut xs = Vec::with_capacity(floats.len());
            for v in floats {
                match v {
                    Val::F32(x) => xs.push(*x),
                    _ => return Err(bad()),
                }
            }
            math_f32(func, &xs, n).map(Val::F32).ok_or_else(bad)
        }
        Ty::F64 => {
            let mut xs = Vec::with_capacity(floats.len());
            for v in floats {
                match v {
                    Val::F64(x) => xs.push(*x),
                    _ => return Err(bad()),
                }
            }
            math_f64(func, &xs, n).map(Val::F64).ok_or_else(bad)
        }
        _ => Err(bad()),
    }
}

fn integer_math(func: MathFn, ty: Ty, args: &[Val]) -> Result<Val, Fault> {
    use MathFn::*;
    let bits = int_bits(ty)?;
    let x = as_int(args[0])?;
    let y = match args.get(1) {
        Some(v) => as_int(*v)?,
        None => 0,
    };
    let (sx, sy) = (sign_extend(x, bits) as i128, sign_extend(y, bits) as i128);
    let (smin, smax) = (signed_min(bits) as i128, signed_max(bits) as i128);
    let umax = truncate(u64::MAX, bits);
    let r: u64 = match func {
        SMin => sx.min(sy) as u64,
        SMax => sx.max(sy) as u64,
        UMin => x.min(y),
        UMax => x.max(y),
        // |MIN| wraps to MIN's bits, the OpenCL unsigned result.
        IAbs => sx.unsigned_abs() as u64,
        SMulHi => ((sx * sy) >> bits) as u64,
        UMulHi => (((x as u128) * (y as u128)) >> bits) as u64,
        SAddSat => (sx + sy).clamp(smin, smax) as u64,
        SSubSat => (sx - sy).clamp(smin, smax) as u64,
        UAddSat => ((x as u128) + (y as u128)).min(umax as u128) as u64,
        USubSat => x.saturating_sub(y),
        Popcount => x.count_ones() as u64,
        // x is zero-extended, so 64-bit counts include 64 - bits extra zeros.
        Clz => (x.leading_zeros() - (64 - bits)) as u64,
        Ctz => {
            if x == 0 {
                bits as u64
            } else {
                x.trailing_zeros() as u64
            }
        }
        Rotate => {
            let k = (y % bits as u64) as u32;
            if k == 0 {
                x
            } else {
                (x << k) | (x >> (bits - k))
            }
        }
        _ => {
            return Err(malformed(format!(
                "`{}` is not an integer function",
                func.name()
            )))
        }
    };
    Ok(Val::Int(truncate(r, bits)))
}
