//! The instruction and operation names the printer writes, back to the
//! IR's enums.

use lanes_frontend::ast::AddressSpace;

use crate::ir::*;

pub(super) fn space_of(name: &str) -> Option<AddressSpace> {
    Some(match name {
        "private" => AddressSpace::Private,
        "global" => AddressSpace::Global,
        "constant" => AddressSpace::Constant,
        "local" => AddressSpace::Local,
        "generic" => AddressSpace::Generic,
        _ => return None,
    })
}

pub(super) fn binop(name: &str) -> Option<BinOp> {
    use BinOp::*;
    [
        Add, Sub, Mul, SDiv, UDiv, SRem, URem, Shl, LShr, AShr, And, Or, Xor, FAdd, FSub, FMul,
        FDiv, FRem,
    ]
    .into_iter()
    .find(|o| o.name() == name)
}

pub(super) fn cmp_pred(name: &str) -> Option<CmpPred> {
    use CmpPred::*;
    [
        Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge, FOeq, FUne, FOlt, FOle, FOgt, FOge, FOrd,
        FUno,
    ]
    .into_iter()
    .find(|p| p.name() == name)
}

pub(super) fn cast_op(name: &str) -> Option<CastOp> {
    use CastOp::*;
    [
        Trunc, ZExt, SExt, FpTrunc, FpExt, FpToSi, FpToUi, FpToSiSat, FpToUiSat, SiToFp, UiToFp,
        Bitcast, PtrToInt, IntToPtr, PtrCast, HalfToFp, FpToHalf,
    ]
    .into_iter()
    .find(|o| o.name() == name)
}

pub(super) fn work_item(name: &str) -> Option<WorkItem> {
    use WorkItem::*;
    [
        GlobalId,
        LocalId,
        GroupId,
        GlobalSize,
        LocalSize,
        NumGroups,
        GlobalOffset,
        WorkDim,
        SubGroupSize,
        SubGroupLocalId,
        NumSubGroups,
        SubGroupId,
        MaxSubGroupSize,
        LaneMask,
    ]
    .into_iter()
    .find(|q| q.name() == name)
}

pub(super) fn math_fn(name: &str) -> Option<MathFn> {
    use MathFn::*;
    [
        Sqrt, Rsqrt, Fabs, Floor, Ceil, Round, Trunc, Rint, Exp, Exp2, Exp10, Expm1, Log, Log2,
        Log10, Log1p, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, Asinh, Acosh, Atanh,
        Sinpi, Cospi, Cbrt, Lgamma, Pow, Powr, Atan2, Hypot, Copysign, Fmod, Fdim, Fmin, Fmax,
        Pown, Rootn, Ldexp, Fma, SMin, SMax, UMin, UMax, IAbs, SMulHi, UMulHi, SAddSat, UAddSat,
        SSubSat, USubSat, Popcount, Clz, Ctz, Rotate,
    ]
    .into_iter()
    .find(|m| m.name() == name)
}

pub(super) fn horizontal(name: &str) -> Option<Horizontal> {
    use ReduceOp::*;
    let ops = [Add, FAdd, SMin, UMin, FMin, SMax, UMax, FMax];
    let mut all = vec![Horizontal::Any, Horizontal::All, Horizontal::Broadcast];
    for o in ops {
        all.extend([
            Horizontal::Reduce(o),
            Horizontal::ScanInclusive(o),
            Horizontal::ScanExclusive(o),
        ]);
    }
    all.into_iter().find(|h| h.name() == name)
}

pub(super) fn atomic_op(name: &str) -> Option<AtomicOp> {
    use AtomicOp::*;
    [
        Add, Sub, Xchg, And, Or, Xor, SMin, SMax, UMin, UMax, CmpXchg, Load, Store,
    ]
    .into_iter()
    .find(|o| o.name() == name)
}

pub(super) fn image_query(name: &str) -> Option<ImageQuery> {
    use ImageQuery::*;
    [
        Width,
        Height,
        Depth,
        Dim,
        ArraySize,
        ChannelDataType,
        ChannelOrder,
    ]
    .into_iter()
    .find(|q| q.name() == name)
}

pub(super) fn image_elem(suffix: &str) -> Option<ImageElem> {
    [ImageElem::Float, ImageElem::Int, ImageElem::UInt]
        .into_iter()
        .find(|e| e.suffix() == suffix)
}

pub(super) fn fence_flags(text: &str) -> Option<u32> {
    if text == "none" {
        return Some(0);
    }
    let mut flags = 0;
    for part in text.split('|') {
        flags |= match part {
            "local" => fence::LOCAL,
            "global" => fence::GLOBAL,
            "image" => fence::IMAGE,
            _ => return None,
        };
    }
    Some(flags)
}
