//! `half` conversions as branch-free integer code: the algorithm of
//! `lanes_vectorizer::half` (which the interpreter runs), bit for bit.
//! LLVM's `fptrunc`/`fpext` to `half` would become library calls on CPUs
//! without F16C and round `double`s twice, so objects would not stay
//! self-contained or exact.

use inkwell::llvm_sys::{LLVMIntPredicate as IP, LLVMOpcode as Op};
use inkwell::types::BasicTypeEnum;
use inkwell::values::BasicValueEnum;

use crate::ll::{Cx, R};

type V<'ctx> = BasicValueEnum<'ctx>;

/// A scalar or splatted constant of type `t` shaped like `like`.
fn k<'ctx>(cx: &Cx<'_, 'ctx>, t: BasicTypeEnum<'ctx>, bits: u64, f: f64, vec: bool) -> R<V<'ctx>> {
    let c = cx.const_of(t, bits, f);
    if vec {
        cx.splat(c)
    } else {
        Ok(c)
    }
}

/// `i16` bits of a `half` to `float` (then `double` if `to_double`).
pub fn half_to_fp<'ctx>(cx: &Cx<'_, 'ctx>, h: V<'ctx>, to_double: bool, vec: bool) -> R<V<'ctx>> {
    let i32t: BasicTypeEnum = cx.ctx.i32_type().into();
    let f32t: BasicTypeEnum = cx.ctx.f32_type().into();
    let i32v = if vec {
        crate::ll::vec_of(i32t, cx.w).into()
    } else {
        i32t
    };
    let f32v = if vec {
        crate::ll::vec_of(f32t, cx.w).into()
    } else {
        f32t
    };
    let x = cx.cast(Op::LLVMZExt, h, i32v)?;
    let sign = cx.binop(Op::LLVMAnd, x, k(cx, i32t, 0x8000, 0.0, vec)?)?;
    let sign = cx.binop(Op::LLVMShl, sign, k(cx, i32t, 16, 0.0, vec)?)?;
    let em = cx.binop(Op::LLVMAnd, x, k(cx, i32t, 0x7fff, 0.0, vec)?)?;
    let shifted = cx.binop(Op::LLVMShl, em, k(cx, i32t, 13, 0.0, vec)?)?;
    // Inf/NaN: all exponent bits set.
    let special = cx.binop(Op::LLVMOr, shifted, k(cx, i32t, 0x7f80_0000, 0.0, vec)?)?;
    // Finite: the shifted bits are the value times 2^-112.
    let f = cx.cast(Op::LLVMBitCast, shifted, f32v)?;
    let scale = k(cx, f32t, 0, 2f64.powi(112), vec)?;
    let f = cx.binop(Op::LLVMFMul, f, scale)?;
    let finite = cx.cast(Op::LLVMBitCast, f, i32v)?;
    let is_special = cx.icmp(IP::LLVMIntUGE, em, k(cx, i32t, 0x7c00, 0.0, vec)?)?;
    let mag = cx.select(is_special, special, finite)?;
    let bits = cx.binop(Op::LLVMOr, mag, sign)?;
    let r = cx.cast(Op::LLVMBitCast, bits, f32v)?;
    if to_double {
        let f64t: BasicTypeEnum = cx.ctx.f64_type().into();
        let t = if vec {
            crate::ll::vec_of(f64t, cx.w).into()
        } else {
            f64t
        };
        cx.cast(Op::LLVMFPExt, r, t)
    } else {
        Ok(r)
    }
}

/// `float`/`double` to the `i16` bits of the nearest `half` (ties to even).
pub fn fp_to_half<'ctx>(cx: &Cx<'_, 'ctx>, x: V<'ctx>, double: bool, vec: bool) -> R<V<'ctx>> {
    let (it, ft, mant, bias): (BasicTypeEnum, BasicTypeEnum, u64, u64) = if double {
        (cx.ctx.i64_type().into(), cx.ctx.f64_type().into(), 52, 1023)
    } else {
        (cx.ctx.i32_type().into(), cx.ctx.f32_type().into(), 23, 127)
    };
    let shape = |t: BasicTypeEnum<'ctx>| -> BasicTypeEnum<'ctx> {
        if vec {
            crate::ll::vec_of(t, cx.w).into()
        } else {
            t
        }
    };
    let (iv, fv) = (shape(it), shape(ft));
    let i16v = shape(cx.ctx.i16_type().into());
    let c = |bits: u64| k(cx, it, bits, 0.0, vec);
    let drop = mant - 10;
    let b = cx.cast(Op::LLVMBitCast, x, iv)?;
    let total = if double { 64 } else { 32 };
    let sign_mask = 1u64 << (total - 1);
    let sign = cx.binop(Op::LLVMAnd, b, c(sign_mask)?)?;
    let a = cx.binop(Op::LLVMAnd, b, c(sign_mask - 1)?)?;
    let inf = (2 * bias + 1) << mant;
    let overflow = (bias + 16) << mant;
    let min_normal = (bias - 14) << mant;
    // Overflow, infinity, NaN (quiet, top mantissa bits kept).
    let payload = cx.binop(Op::LLVMLShr, a, c(drop)?)?;
    let payload = cx.binop(Op::LLVMAnd, payload, c(0x3ff)?)?;
    let nan = cx.binop(Op::LLVMOr, payload, c(0x7e00)?)?;
    let is_nan = cx.icmp(IP::LLVMIntUGT, a, c(inf)?)?;
    let big = cx.select(is_nan, nan, c(0x7c00)?)?;
    // Subnormal results: one float addition of a constant whose ulp is the
    // smallest half subnormal rounds to nearest even.
    let magic_bits = (bias + mant - 24) << mant;
    let af = cx.cast(Op::LLVMBitCast, a, fv)?;
    let magic = k(cx, ft, 0, 2f64.powi(mant as i32 - 24), vec)?;
    let sum = cx.binop(Op::LLVMFAdd, af, magic)?;
    let sum = cx.cast(Op::LLVMBitCast, sum, iv)?;
    let small = cx.binop(Op::LLVMSub, sum, c(magic_bits)?)?;
    // Normal results: rebias, add half an ulp minus one plus the ulp's low bit.
    let odd = cx.binop(Op::LLVMAnd, payload, c(1)?)?;
    let rebias = ((15i64 - bias as i64) << mant) as u64;
    let n = cx.binop(
        Op::LLVMAdd,
        a,
        c(rebias.wrapping_add((1 << (drop - 1)) - 1))?,
    )?;
    let n = cx.binop(Op::LLVMAdd, n, odd)?;
    let normal = cx.binop(Op::LLVMLShr, n, c(drop)?)?;
    let is_small = cx.icmp(IP::LLVMIntULT, a, c(min_normal)?)?;
    let is_big = cx.icmp(IP::LLVMIntUGE, a, c(overflow)?)?;
    let r = cx.select(is_small, small, normal)?;
    let r = cx.select(is_big, big, r)?;
    let sign = cx.binop(Op::LLVMLShr, sign, c(total - 16)?)?;
    let r = cx.binop(Op::LLVMOr, r, sign)?;
    cx.cast(Op::LLVMTrunc, r, i16v)
}
