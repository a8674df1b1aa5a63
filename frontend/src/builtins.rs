//! The OpenCL C built-in functions lanes knows, with table-driven overload
//! resolution that follows clang (C++-style ranking of argument conversions:
//! exact match, promotion, conversion; ambiguity is an error).
//!
//! Most functions are described by generic signatures over a family of
//! element types and widths (OpenCL's `gentype`, `sgentype`, `ugentype`, ...);
//! `convert_<T>`, `as_<T>`, `vloadN` and `vstoreN` are resolved by rule.
//! Built-ins that lanes does not compile yet are recognised separately
//! ([`unsupported`]) so that they get their own diagnostic code.

use crate::ast::AddressSpace;
use crate::diag::Code;
use crate::types::{Pointer, Scalar, Type};

use Scalar::*;

macro_rules! builtins {
    ($($variant:ident = $name:literal,)*) => {
        /// A built-in function family with generic signatures in the table.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Builtin { $($variant,)* }

        impl Builtin {
            pub const ALL: &'static [Builtin] = &[$(Builtin::$variant,)*];

            pub fn name(self) -> &'static str {
                match self { $(Builtin::$variant => $name,)* }
            }

            pub fn from_name(name: &str) -> Option<Builtin> {
                match name { $($name => Some(Builtin::$variant),)* _ => None }
            }
        }
    };
}

builtins! {
    // Work-item functions.
    GetWorkDim = "get_work_dim",
    GetGlobalSize = "get_global_size",
    GetGlobalId = "get_global_id",
    GetLocalSize = "get_local_size",
    GetLocalId = "get_local_id",
    GetNumGroups = "get_num_groups",
    GetGroupId = "get_group_id",
    GetGlobalOffset = "get_global_offset",
    // Math.
    Sqrt = "sqrt",
    Rsqrt = "rsqrt",
    Fabs = "fabs",
    Fmin = "fmin",
    Fmax = "fmax",
    Fma = "fma",
    Mad = "mad",
    Floor = "floor",
    Ceil = "ceil",
    Round = "round",
    Trunc = "trunc",
    Rint = "rint",
    Exp = "exp",
    Exp2 = "exp2",
    Exp10 = "exp10",
    Expm1 = "expm1",
    Log = "log",
    Log2 = "log2",
    Log10 = "log10",
    Log1p = "log1p",
    Pow = "pow",
    Pown = "pown",
    Powr = "powr",
    Rootn = "rootn",
    Sin = "sin",
    Cos = "cos",
    Tan = "tan",
    Asin = "asin",
    Acos = "acos",
    Atan = "atan",
    Atan2 = "atan2",
    Sinh = "sinh",
    Cosh = "cosh",
    Tanh = "tanh",
    Asinh = "asinh",
    Acosh = "acosh",
    Atanh = "atanh",
    Sinpi = "sinpi",
    Cospi = "cospi",
    Hypot = "hypot",
    Cbrt = "cbrt",
    Copysign = "copysign",
    Fmod = "fmod",
    Fdim = "fdim",
    Ldexp = "ldexp",
    Remainder = "remainder",
    Lgamma = "lgamma",
    // Math with a pointer output (any address space but `__constant`).
    Fract = "fract",
    Modf = "modf",
    Sincos = "sincos",
    Frexp = "frexp",
    Remquo = "remquo",
    LgammaR = "lgamma_r",
    NativeSin = "native_sin",
    NativeCos = "native_cos",
    NativeTan = "native_tan",
    NativeExp = "native_exp",
    NativeExp2 = "native_exp2",
    NativeExp10 = "native_exp10",
    NativeLog = "native_log",
    NativeLog2 = "native_log2",
    NativeLog10 = "native_log10",
    NativeSqrt = "native_sqrt",
    NativeRsqrt = "native_rsqrt",
    NativeRecip = "native_recip",
    NativeDivide = "native_divide",
    NativePowr = "native_powr",
    HalfSin = "half_sin",
    HalfCos = "half_cos",
    HalfTan = "half_tan",
    HalfExp = "half_exp",
    HalfExp2 = "half_exp2",
    HalfExp10 = "half_exp10",
    HalfLog = "half_log",
    HalfLog2 = "half_log2",
    HalfLog10 = "half_log10",
    HalfSqrt = "half_sqrt",
    HalfRsqrt = "half_rsqrt",
    HalfRecip = "half_recip",
    HalfDivide = "half_divide",
    HalfPowr = "half_powr",
    // Integer (min/max/clamp also have the float versions of the common functions).
    Min = "min",
    Max = "max",
    Clamp = "clamp",
    Abs = "abs",
    AbsDiff = "abs_diff",
    Mul24 = "mul24",
    Mad24 = "mad24",
    MulHi = "mul_hi",
    MadHi = "mad_hi",
    MadSat = "mad_sat",
    AddSat = "add_sat",
    SubSat = "sub_sat",
    Hadd = "hadd",
    Rhadd = "rhadd",
    Popcount = "popcount",
    Clz = "clz",
    Ctz = "ctz",
    Rotate = "rotate",
    Upsample = "upsample",
    // Common.
    Select = "select",
    Mix = "mix",
    Step = "step",
    Smoothstep = "smoothstep",
    Sign = "sign",
    Degrees = "degrees",
    Radians = "radians",
    // Geometric.
    Dot = "dot",
    Cross = "cross",
    Length = "length",
    Distance = "distance",
    Normalize = "normalize",
    FastLength = "fast_length",
    FastDistance = "fast_distance",
    FastNormalize = "fast_normalize",
    // Relational.
    Isnan = "isnan",
    Isinf = "isinf",
    Isfinite = "isfinite",
    Isnormal = "isnormal",
    Signbit = "signbit",
    Isequal = "isequal",
    Isnotequal = "isnotequal",
    Isgreater = "isgreater",
    Isgreaterequal = "isgreaterequal",
    Isless = "isless",
    Islessequal = "islessequal",
    Islessgreater = "islessgreater",
    Isordered = "isordered",
    Isunordered = "isunordered",
    Any = "any",
    All = "all",
    Bitselect = "bitselect",
    // Sub-groups (OpenCL C 2.x / cl_khr_subgroups).
    GetSubGroupSize = "get_sub_group_size",
    GetMaxSubGroupSize = "get_max_sub_group_size",
    GetNumSubGroups = "get_num_sub_groups",
    GetSubGroupId = "get_sub_group_id",
    GetSubGroupLocalId = "get_sub_group_local_id",
    SubGroupAny = "sub_group_any",
    SubGroupAll = "sub_group_all",
    SubGroupBroadcast = "sub_group_broadcast",
    SubGroupReduceAdd = "sub_group_reduce_add",
    SubGroupReduceMin = "sub_group_reduce_min",
    SubGroupReduceMax = "sub_group_reduce_max",
    SubGroupScanInclusiveAdd = "sub_group_scan_inclusive_add",
    SubGroupScanInclusiveMin = "sub_group_scan_inclusive_min",
    SubGroupScanInclusiveMax = "sub_group_scan_inclusive_max",
    SubGroupScanExclusiveAdd = "sub_group_scan_exclusive_add",
    SubGroupScanExclusiveMin = "sub_group_scan_exclusive_min",
    SubGroupScanExclusiveMax = "sub_group_scan_exclusive_max",
    // Work-group collectives (OpenCL C 2.0).
    WorkGroupAny = "work_group_any",
    WorkGroupAll = "work_group_all",
    WorkGroupBroadcast = "work_group_broadcast",
    WorkGroupReduceAdd = "work_group_reduce_add",
    WorkGroupReduceMin = "work_group_reduce_min",
    WorkGroupReduceMax = "work_group_reduce_max",
    WorkGroupScanInclusiveAdd = "work_group_scan_inclusive_add",
    WorkGroupScanInclusiveMin = "work_group_scan_inclusive_min",
    WorkGroupScanInclusiveMax = "work_group_scan_inclusive_max",
    WorkGroupScanExclusiveAdd = "work_group_scan_exclusive_add",
    WorkGroupScanExclusiveMin = "work_group_scan_exclusive_min",
    WorkGroupScanExclusiveMax = "work_group_scan_exclusive_max",
    // lanes' own, behind INFINITY / NAN / HUGE_VALF / HUGE_VAL.
    InfF = "__builtin_inff",
    NanF = "__builtin_nanf",
    HugeValF = "__builtin_huge_valf",
    HugeVal = "__builtin_huge_val",
}

/// Rounding mode suffix of `convert_<T>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// No suffix: the default (`_rtz` to integers, `_rte` to floats).
    Default,
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

impl Rounding {
    pub fn suffix(self) -> &'static str {
        match self {
            Rounding::Default => "",
            Rounding::Rte => "_rte",
            Rounding::Rtz => "_rtz",
            Rounding::Rtp => "_rtp",
            Rounding::Rtn => "_rtn",
        }
    }

    /// Strips a rounding suffix from `name`.
    fn strip(name: &str) -> (&str, Rounding) {
        for r in [Rounding::Rte, Rounding::Rtz, Rounding::Rtp, Rounding::Rtn] {
            if let Some(rest) = name.strip_suffix(r.suffix()) {
                return (rest, r);
            }
        }
        (name, Rounding::Default)
    }
}

/// What a resolved built-in call does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum BuiltinFn {
    /// A function of the table.
    Table(Builtin),
    /// `convert_<to>[_sat][_<rounding>]`: component-wise value conversion.
    Convert {
        to: Type,
        sat: bool,
        rounding: Rounding,
    },
    /// `as_<to>`: reinterpretation of the bits (sizes match).
    As { to: Type },
    /// `vloadN(offset, p)`: reads `p[offset*N .. offset*N+N]`.
    VLoad(u8),
    /// `vstoreN(data, offset, p)`: writes `data` to `p[offset*N ..]`.
    VStore(u8),
    /// `vload_half[N]` / `vloada_halfN`: reads `half`s and widens them to
    /// `float`s (exact).
    VLoadHalf(HalfAccess),
    /// `vstore_half[N][_<rounding>]` / `vstorea_halfN[_<rounding>]`: rounds
    /// `float`s or `double`s to `half` and writes them.
    VStoreHalf(HalfAccess),
    /// Barriers, fences, atomics and asynchronous copies, checked by rule.
    WorkGroup(crate::workgroup::WorkGroupFn),
    /// `printf(format, ...)`: the format string (arguments after the
    /// default promotions, vectors flattened by the lowering).
    Printf(smol_str::SmolStr),
    /// Image reads, writes and queries, checked by rule.
    Image(crate::image::ImageFn),
}

/// The shape of a `half` load or store: N components (1 for the scalar
/// form) at `p + offset * N`, or `p + offset * 4` for `vloada_half3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HalfAccess {
    pub n: u8,
    /// `vloada_` / `vstorea_`: the address is aligned to the padded width.
    pub aligned: bool,
    pub rounding: Rounding,
}

impl HalfAccess {
    /// Elements between consecutive offsets.
    pub fn stride(self) -> u8 {
        if self.aligned && self.n == 3 {
            4
        } else {
            self.n
        }
    }
}

/// A built-in call resolved to one overload: the parameter types the
/// arguments have been converted to, and the result type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BuiltinCall {
    pub func: BuiltinFn,
    pub params: Vec<Type>,
    pub ret: Type,
}

impl BuiltinCall {
    pub fn name(&self) -> String {
        match &self.func {
            BuiltinFn::Table(b) => b.name().to_string(),
            BuiltinFn::Convert { to, sat, rounding } => {
                let mut s = format!("convert_{to}");
                if *sat {
                    s.push_str("_sat");
                }
                s.push_str(rounding.suffix());
                s
            }
            BuiltinFn::As { to } => format!("as_{to}"),
            BuiltinFn::VLoad(n) => format!("vload{n}"),
            BuiltinFn::VStore(n) => format!("vstore{n}"),
            BuiltinFn::VLoadHalf(h) | BuiltinFn::VStoreHalf(h) => {
                let store = matches!(self.func, BuiltinFn::VStoreHalf(_));
                half_access_name(store, *h)
            }
            BuiltinFn::WorkGroup(f) => format!("{f:?}"),
            BuiltinFn::Printf(_) => "printf".to_string(),
            BuiltinFn::Image(f) => match f {
                crate::image::ImageFn::Read { elem, .. } => {
                    format!("read_image{}", image_suffix(*elem))
                }
                crate::image::ImageFn::Write { elem } => {
                    format!("write_image{}", image_suffix(*elem))
                }
                crate::image::ImageFn::Query(q) => q.name().to_string(),
            },
        }
    }
}

fn image_suffix(elem: Scalar) -> &'static str {
    match elem {
        Scalar::Float => "f",
        Scalar::UInt => "ui",
        _ => "i",
    }
}

// ---------------------------------------------------------------------------
// The signature table.

/// A parameter or result of a generic signature, instantiated with an
/// element type `E` and width `N` of the signature's family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum P {
    /// `gentype`: `E` (N = 1) or `EN`.
    G,
    /// `sgentype`: the scalar `E`.
    S,
    /// `ugentype`: the unsigned version of `G`.
    U,
    /// The result of a relational function: `int` for scalars, the signed
    /// integer vector of `E`'s size for vectors.
    Rel,
    /// `int` / `intN` (exponents of `pown`, `rootn`, `ldexp`).
    IntN,
    /// The signed / unsigned integer type of `E`'s size, width N (`select`).
    SignedSame,
    UnsignedSame,
    /// `upsample`'s result: the integer of twice `E`'s size, same signedness.
    Wide,
    /// A fixed scalar type.
    Fx(Scalar),
    /// Pointer outputs: `gentype *` / `intn *` in the address space of the
    /// argument (written, so not `const` and not `__constant`).
    PtrG,
    PtrIntN,
}

#[derive(Clone, Copy, Debug)]
struct Sig {
    elems: &'static [Scalar],
    widths: &'static [u8],
    ret: P,
    params: &'static [P],
}

const fn sig(elems: &'static [Scalar], widths: &'static [u8], ret: P, params: &'static [P]) -> Sig {
    Sig {
        elems,
        widths,
        ret,
        params,
    }
}

const W_ALL: &[u8] = &[1, 2, 3, 4, 8, 16];
const W_VEC: &[u8] = &[2, 3, 4, 8, 16];
const W_GEO: &[u8] = &[1, 2, 3, 4];
const W_CROSS: &[u8] = &[3, 4];
const W_1: &[u8] = &[1];

const E_FLOAT: &[Scalar] = &[Float, Double];
const E_F32: &[Scalar] = &[Float];
const E_INT: &[Scalar] = &[Char, UChar, Short, UShort, Int, UInt, Long, ULong];
const E_ALL: &[Scalar] = &[
    Char, UChar, Short, UShort, Int, UInt, Long, ULong, Float, Double,
];
const E_SIGNED: &[Scalar] = &[Char, Short, Int, Long];
const E_32: &[Scalar] = &[Int, UInt];
const E_UPSAMPLE: &[Scalar] = &[Char, UChar, Short, UShort, Int, UInt];
const E_SUBGROUP: &[Scalar] = &[Int, UInt, Long, ULong, Float, Double];
/// For signatures without generic types: one instantiation.
const E_FIXED: &[Scalar] = &[Int];

use P::*;

const F_UNARY: &[Sig] = &[sig(E_FLOAT, W_ALL, G, &[G])];
const F_BINARY: &[Sig] = &[sig(E_FLOAT, W_ALL, G, &[G, G])];
const F_TERNARY: &[Sig] = &[sig(E_FLOAT, W_ALL, G, &[G, G, G])];
const F_MINMAX: &[Sig] = &[
    sig(E_FLOAT, W_ALL, G, &[G, G]),
    sig(E_FLOAT, W_VEC, G, &[G, S]),
];
const F_POWN: &[Sig] = &[sig(E_FLOAT, W_ALL, G, &[G, IntN])];
const F_LDEXP: &[Sig] = &[
    sig(E_FLOAT, W_ALL, G, &[G, IntN]),
    sig(E_FLOAT, W_VEC, G, &[G, Fx(Int)]),
];
const NATIVE_UNARY: &[Sig] = &[sig(E_F32, W_ALL, G, &[G])];
const NATIVE_BINARY: &[Sig] = &[sig(E_F32, W_ALL, G, &[G, G])];
const MINMAX: &[Sig] = &[
    sig(E_INT, W_ALL, G, &[G, G]),
    sig(E_INT, W_VEC, G, &[G, S]),
    sig(E_FLOAT, W_ALL, G, &[G, G]),
    sig(E_FLOAT, W_VEC, G, &[G, S]),
];
const CLAMP: &[Sig] = &[
    sig(E_INT, W_ALL, G, &[G, G, G]),
    sig(E_INT, W_VEC, G, &[G, S, S]),
    sig(E_FLOAT, W_ALL, G, &[G, G, G]),
    sig(E_FLOAT, W_VEC, G, &[G, S, S]),
];
const I_ABS: &[Sig] = &[sig(E_INT, W_ALL, U, &[G])];
const I_ABS_DIFF: &[Sig] = &[sig(E_INT, W_ALL, U, &[G, G])];
const I_UNARY: &[Sig] = &[sig(E_INT, W_ALL, G, &[G])];
const I_BINARY: &[Sig] = &[sig(E_INT, W_ALL, G, &[G, G])];
const I_TERNARY: &[Sig] = &[sig(E_INT, W_ALL, G, &[G, G, G])];
const I_MUL24: &[Sig] = &[sig(E_32, W_ALL, G, &[G, G])];
const I_MAD24: &[Sig] = &[sig(E_32, W_ALL, G, &[G, G, G])];
const I_UPSAMPLE: &[Sig] = &[sig(E_UPSAMPLE, W_ALL, Wide, &[G, U])];
const SELECT: &[Sig] = &[
    sig(E_ALL, W_ALL, G, &[G, G, SignedSame]),
    sig(E_ALL, W_ALL, G, &[G, G, UnsignedSame]),
];
const BITSELECT: &[Sig] = &[sig(E_ALL, W_ALL, G, &[G, G, G])];
const MIX: &[Sig] = &[
    sig(E_FLOAT, W_ALL, G, &[G, G, G]),
    sig(E_FLOAT, W_VEC, G, &[G, G, S]),
];
const STEP: &[Sig] = &[
    sig(E_FLOAT, W_ALL, G, &[G, G]),
    sig(E_FLOAT, W_VEC, G, &[S, G]),
];
const SMOOTHSTEP: &[Sig] = &[
    sig(E_FLOAT, W_ALL, G, &[G, G, G]),
    sig(E_FLOAT, W_VEC, G, &[S, S, G]),
];
const DOT: &[Sig] = &[sig(E_FLOAT, W_GEO, S, &[G, G])];
const CROSS: &[Sig] = &[sig(E_FLOAT, W_CROSS, G, &[G, G])];
const LENGTH: &[Sig] = &[sig(E_FLOAT, W_GEO, S, &[G])];
const DISTANCE: &[Sig] = &[sig(E_FLOAT, W_GEO, S, &[G, G])];
const NORMALIZE: &[Sig] = &[sig(E_FLOAT, W_GEO, G, &[G])];
const FAST_LENGTH: &[Sig] = &[sig(E_F32, W_GEO, S, &[G])];
const FAST_DISTANCE: &[Sig] = &[sig(E_F32, W_GEO, S, &[G, G])];
const FAST_NORMALIZE: &[Sig] = &[sig(E_F32, W_GEO, G, &[G])];
const REL_UNARY: &[Sig] = &[sig(E_FLOAT, W_ALL, Rel, &[G])];
const REL_BINARY: &[Sig] = &[sig(E_FLOAT, W_ALL, Rel, &[G, G])];
const ANY_ALL: &[Sig] = &[sig(E_SIGNED, W_ALL, Fx(Int), &[G])];
const WORK_ITEM: &[Sig] = &[sig(E_FIXED, W_1, Fx(ULong), &[Fx(UInt)])];
const NO_ARG_UINT: &[Sig] = &[sig(E_FIXED, W_1, Fx(UInt), &[])];
const SG_PREDICATE: &[Sig] = &[sig(E_FIXED, W_1, Fx(Int), &[Fx(Int)])];
const SG_BROADCAST: &[Sig] = &[sig(E_SUBGROUP, W_1, G, &[G, Fx(UInt)])];
const SG_COLLECTIVE: &[Sig] = &[sig(E_SUBGROUP, W_1, G, &[G])];
const F_PTR_G: &[Sig] = &[sig(E_FLOAT, W_ALL, G, &[G, PtrG])];
const F_PTR_INT: &[Sig] = &[sig(E_FLOAT, W_ALL, G, &[G, PtrIntN])];
const F_REMQUO: &[Sig] = &[sig(E_FLOAT, W_ALL, G, &[G, G, PtrIntN])];
/// `work_group_broadcast(x, local_id)` for 1, 2 or 3 dimensions.
const WG_BROADCAST: &[Sig] = &[
    sig(E_SUBGROUP, W_1, G, &[G, Fx(ULong)]),
    sig(E_SUBGROUP, W_1, G, &[G, Fx(ULong), Fx(ULong)]),
    sig(E_SUBGROUP, W_1, G, &[G, Fx(ULong), Fx(ULong), Fx(ULong)]),
];
const CONST_FLOAT: &[Sig] = &[sig(E_FIXED, W_1, Fx(Float), &[])];
const CONST_DOUBLE: &[Sig] = &[sig(E_FIXED, W_1, Fx(Double), &[])];

impl Builtin {
    fn sigs(self) -> &'static [Sig] {
        use Builtin::*;
        match self {
            GetWorkDim => NO_ARG_UINT,
            GetGlobalSize | GetGlobalId | GetLocalSize | GetLocalId | GetNumGroups | GetGroupId
            | GetGlobalOffset => WORK_ITEM,
            Sqrt | Rsqrt | Fabs | Floor | Ceil | Round | Trunc | Rint | Exp | Exp2 | Exp10
            | Expm1 | Log | Log2 | Log10 | Log1p | Sin | Cos | Tan | Asin | Acos | Atan | Sinh
            | Cosh | Tanh | Asinh | Acosh | Atanh | Sinpi | Cospi | Cbrt | Lgamma => F_UNARY,
            Pow | Powr | Atan2 | Hypot | Copysign | Fmod | Fdim | Remainder => F_BINARY,
            Fract | Modf | Sincos => F_PTR_G,
            Frexp | LgammaR => F_PTR_INT,
            Remquo => F_REMQUO,
            Fmin | Fmax => F_MINMAX,
            Fma | Mad => F_TERNARY,
            Pown | Rootn => F_POWN,
            Ldexp => F_LDEXP,
            NativeSin | NativeCos | NativeTan | NativeExp | NativeExp2 | NativeExp10
            | NativeLog | NativeLog2 | NativeLog10 | NativeSqrt | NativeRsqrt | NativeRecip
            | HalfSin | HalfCos | HalfTan | HalfExp | HalfExp2 | HalfExp10 | HalfLog | HalfLog2
            | HalfLog10 | HalfSqrt | HalfRsqrt | HalfRecip => NATIVE_UNARY,
            NativeDivide | NativePowr | HalfDivide | HalfPowr => NATIVE_BINARY,
            Min | Max => MINMAX,
            Clamp => CLAMP,
            Abs => I_ABS,
            AbsDiff => I_ABS_DIFF,
            Mul24 => I_MUL24,
            Mad24 => I_MAD24,
            MulHi | AddSat | SubSat | Hadd | Rhadd | Rotate => I_BINARY,
            MadHi | MadSat => I_TERNARY,
            Popcount | Clz | Ctz => I_UNARY,
            Upsample => I_UPSAMPLE,
            Select => SELECT,
            Mix => MIX,
            Step => STEP,
            Smoothstep => SMOOTHSTEP,
            Sign | Degrees | Radians => F_UNARY,
            Dot => DOT,
            Cross => CROSS,
            Length => LENGTH,
            Distance => DISTANCE,
            Normalize => NORMALIZE,
            FastLength => FAST_LENGTH,
            FastDistance => FAST_DISTANCE,
            FastNormalize => FAST_NORMALIZE,
            Isnan | Isinf | Isfinite | Isnormal | Signbit => REL_UNARY,
            Isequal | Isnotequal | Isgreater | Isgreaterequal | Isless | Islessequal
            | Islessgreater | Isordered | Isunordered => REL_BINARY,
            Any | All => ANY_ALL,
            Bitselect => BITSELECT,
            GetSubGroupSize | GetMaxSubGroupSize | GetNumSubGroups | GetSubGroupId
            | GetSubGroupLocalId => NO_ARG_UINT,
            SubGroupAny | SubGroupAll => SG_PREDICATE,
            SubGroupBroadcast => SG_BROADCAST,
            SubGroupReduceAdd
            | SubGroupReduceMin
            | SubGroupReduceMax
            | SubGroupScanInclusiveAdd
            | SubGroupScanInclusiveMin
            | SubGroupScanInclusiveMax
            | SubGroupScanExclusiveAdd
            | SubGroupScanExclusiveMin
            | SubGroupScanExclusiveMax => SG_COLLECTIVE,
            WorkGroupAny | WorkGroupAll => SG_PREDICATE,
            WorkGroupBroadcast => WG_BROADCAST,
            WorkGroupReduceAdd
            | WorkGroupReduceMin
            | WorkGroupReduceMax
            | WorkGroupScanInclusiveAdd
            | WorkGroupScanInclusiveMin
            | WorkGroupScanInclusiveMax
            | WorkGroupScanExclusiveAdd
            | WorkGroupScanExclusiveMin
            | WorkGroupScanExclusiveMax => SG_COLLECTIVE,
            InfF | NanF | HugeValF => CONST_FLOAT,
            HugeVal => CONST_DOUBLE,
        }
    }

    /// Number of parameters (every overload of a family has the same count).
    pub fn arity(self) -> usize {
        self.sigs().first().map_or(0, |s| s.params.len())
    }

    /// True when some signature takes `n` arguments.
    pub fn takes(self, n: usize) -> bool {
        self.sigs().iter().any(|s| s.params.len() == n)
    }
}

fn vec_or_scalar(e: Scalar, n: u8) -> Type {
    if n == 1 {
        Type::Scalar(e)
    } else {
        Type::Vector(e, n)
    }
}

fn unsigned_of_size(size: u32) -> Scalar {
    match size {
        1 => UChar,
        2 => UShort,
        4 => UInt,
        _ => ULong,
    }
}

fn widen(e: Scalar) -> Scalar {
    match e {
        Char => Short,
        UChar => UShort,
        Short => Int,
        UShort => UInt,
        Int => Long,
        UInt => ULong,
        other => other,
    }
}

/// `p` instantiated for an argument of type `arg`: pointer outputs take the
/// argument's address space (`__constant` stays, and then fails to match).
fn instantiate_for(p: P, e: Scalar, n: u8, arg: &Type) -> Type {
    let pointee = match p {
        PtrG => vec_or_scalar(e, n),
        PtrIntN => vec_or_scalar(Int, n),
        _ => return instantiate(p, e, n),
    };
    let space = match arg {
        Type::Pointer(q) if q.space != AddressSpace::Constant => q.space,
        _ => AddressSpace::Private,
    };
    Type::Pointer(Box::new(Pointer {
        pointee,
        space,
        pointee_const: false,
    }))
}

fn instantiate(p: P, e: Scalar, n: u8) -> Type {
    match p {
        G => vec_or_scalar(e, n),
        S => Type::Scalar(e),
        U => vec_or_scalar(e.to_unsigned(), n),
        Rel => {
            if n == 1 {
                Type::INT
            } else {
                Type::Vector(e.to_signed_integer(), n)
            }
        }
        IntN => vec_or_scalar(Int, n),
        SignedSame => vec_or_scalar(e.to_signed_integer(), n),
        UnsignedSame => vec_or_scalar(unsigned_of_size(e.size()), n),
        Wide => vec_or_scalar(widen(e), n),
        Fx(s) => Type::Scalar(s),
        PtrG => Type::Pointer(Box::new(Pointer {
            pointee: vec_or_scalar(e, n),
            space: AddressSpace::Private,
            pointee_const: false,
        })),
        PtrIntN => Type::Pointer(Box::new(Pointer {
            pointee: vec_or_scalar(Int, n),
            space: AddressSpace::Private,
            pointee_const: false,
        })),
    }
}

/// How well an argument type matches a parameter type (C++ ranking, as
/// clang applies it to OpenCL's overloadable built-ins).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    Exact,
    Promotion,
    Conversion,
}

/// The rank of the implicit conversion of an argument of type `from` to a
/// parameter of type `to`, or `None` when there is none. Vectors only match
/// exactly (no implicit vector conversions or splats in overloading).
pub fn conversion_rank(from: &Type, to: &Type) -> Option<Rank> {
    if from == to {
        return Some(Rank::Exact);
    }
    match (from, to) {
        (Type::Scalar(a), Type::Scalar(b)) => {
            if *a == Half || *b == Half {
                return None;
            }
            let promotion = (matches!(a, Bool | Char | UChar | Short | UShort) && *b == Int)
                || (*a == Float && *b == Double);
            Some(if promotion {
                Rank::Promotion
            } else {
                Rank::Conversion
            })
        }
        // Adding `const` to the pointee is a qualification adjustment: exact.
        (Type::Pointer(p), Type::Pointer(q)) => {
            (p.space == q.space && p.pointee == q.pointee && (q.pointee_const || !p.pointee_const))
                .then_some(Rank::Exact)
        }
        _ => None,
    }
}

/// The outcome of overload resolution.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolution {
    Found(BuiltinCall),
    /// No overload accepts the arguments.
    NoMatch,
    /// Several overloads match equally well (their signatures, for the note).
    Ambiguous(Vec<String>),
}

struct Candidate {
    params: Vec<Type>,
    ret: Type,
    ranks: Vec<Rank>,
}

/// Resolves a call of a table built-in with arguments of the given types
/// (arrays already decayed; no argument has the error type).
pub fn resolve(b: Builtin, args: &[Type]) -> Resolution {
    let mut viable: Vec<Candidate> = Vec::new();
    for s in b.sigs() {
        if s.params.len() != args.len() {
            continue;
        }
        for &e in s.elems {
            'width: for &n in s.widths {
                let mut ranks = Vec::with_capacity(args.len());
                let params: Vec<Type> = s
                    .params
                    .iter()
                    .zip(args)
                    .map(|(p, a)| instantiate_for(*p, e, n, a))
                    .collect();
                for (p, a) in params.iter().zip(args) {
                    match conversion_rank(a, p) {
                        Some(r) => ranks.push(r),
                        None => continue 'width,
                    }
                }
                // An exact match beats every other candidate (those differ
                // from the arguments somewhere): the common case, decided early.
                if ranks.iter().all(|r| *r == Rank::Exact) {
                    let ret = instantiate(s.ret, e, n);
                    return Resolution::Found(BuiltinCall {
                        func: BuiltinFn::Table(b),
                        params,
                        ret,
                    });
                }
                if viable.iter().any(|c| c.params == params) {
                    continue;
                }
                viable.push(Candidate {
                    params,
                    ret: instantiate(s.ret, e, n),
                    ranks,
                });
            }
        }
    }
    if viable.is_empty() {
        return Resolution::NoMatch;
    }
    // The best candidate is at least as good for every argument as every
    // other candidate, and strictly better than each for some argument.
    let better = |a: &Candidate, b: &Candidate| {
        a.ranks.iter().zip(&b.ranks).all(|(x, y)| x <= y)
            && a.ranks.iter().zip(&b.ranks).any(|(x, y)| x < y)
    };
    let best = (0..viable.len())
        .find(|&i| (0..viable.len()).all(|j| i == j || better(&viable[i], &viable[j])));
    match best {
        Some(i) => {
            let c = viable.swap_remove(i);
            Resolution::Found(BuiltinCall {
                func: BuiltinFn::Table(b),
                params: c.params,
                ret: c.ret,
            })
        }
        None => {
            // The candidates nobody beats are the ambiguous ones.
            let top: Vec<String> = (0..viable.len())
                .filter(|&i| !(0..viable.len()).any(|j| j != i && better(&viable[j], &viable[i])))
                .map(|i| {
                    let c = &viable[i];
                    let ps: Vec<String> = c.params.iter().map(Type::to_string).collect();
                    format!("`{} {}({})`", c.ret, b.name(), ps.join(", "))
                })
                .collect();
            Resolution::Ambiguous(top)
        }
    }
}

fn generic_name(p: P, e: Scalar, vector: bool, generic: bool) -> String {
    if generic {
        return match p {
            G => "gentype".into(),
            S => "sgentype".into(),
            U | UnsignedSame => "ugentype".into(),
            SignedSame => "igentype".into(),
            Rel => "intn".into(),
            IntN => "intn".into(),
            Wide => "upsampled gentype".into(),
            Fx(s) => s.name().into(),
            PtrG => "gentype *".into(),
            PtrIntN => "intn *".into(),
        };
    }
    let n = if vector { "N" } else { "" };
    match p {
        G => format!("{}{n}", e.name()),
        S => e.name().into(),
        U => format!("{}{n}", e.to_unsigned().name()),
        Rel if vector => format!("{}N", e.to_signed_integer().name()),
        Rel => "int".into(),
        IntN => format!("int{n}"),
        SignedSame => format!("{}{n}", e.to_signed_integer().name()),
        UnsignedSame => format!("{}{n}", unsigned_of_size(e.size()).name()),
        Wide => format!("{}{n}", widen(e).name()),
        Fx(s) => s.name().into(),
        PtrG => format!("{}{n} *", e.name()),
        PtrIntN => format!("int{n} *"),
    }
}

/// The signatures of a table built-in for a "candidates:" note, concise:
/// `float sqrt(float)`, `floatN sqrt(floatN)`, ...
pub fn candidate_signatures(b: Builtin) -> Vec<String> {
    let mut out = Vec::new();
    for s in b.sigs() {
        // Families of many integer types are shown with OpenCL's generic names.
        let generic = s.elems.len() > 2;
        let elems: &[Scalar] = if generic { &s.elems[..1] } else { s.elems };
        for &e in elems {
            let mut shapes = Vec::new();
            if s.widths.contains(&1) {
                shapes.push(false);
            }
            if s.widths.iter().any(|&n| n > 1) && !generic {
                shapes.push(true);
            }
            if generic && shapes.is_empty() {
                shapes.push(true);
            }
            for vector in shapes {
                let ps: Vec<String> = s
                    .params
                    .iter()
                    .map(|p| generic_name(*p, e, vector, generic))
                    .collect();
                let sig = format!(
                    "`{} {}({})`",
                    generic_name(s.ret, e, vector, generic),
                    b.name(),
                    ps.join(", ")
                );
                if !out.contains(&sig) {
                    out.push(sig);
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Functions resolved by rule.

/// The destination of a `convert_<T>` name: (type, saturating, rounding).
pub fn parse_convert_name(name: &str) -> Option<(Type, bool, Rounding)> {
    let (mut rest, rounding) = Rounding::strip(name.strip_prefix("convert_")?);
    let mut sat = false;
    if let Some(r2) = rest.strip_suffix("_sat") {
        rest = r2;
        sat = true;
    }
    let ty = parse_value_type_name(rest)?;
    Some((ty, sat, rounding))
}

/// The destination of an `as_<T>` name.
pub fn parse_as_name(name: &str) -> Option<Type> {
    parse_value_type_name(name.strip_prefix("as_")?)
}

/// A scalar or vector type name other than `bool`/`half` (`int`, `float4`).
fn parse_value_type_name(name: &str) -> Option<Type> {
    let ty = match Scalar::from_name(name) {
        Some(s) => Type::Scalar(s),
        None => {
            let (s, n) = crate::types::parse_vector_name(name)?;
            Type::Vector(s, n)
        }
    };
    match ty.element() {
        Some(Bool | Half) | None => None,
        _ => Some(ty),
    }
}

/// `vloadN` / `vstoreN`: the width N.
pub fn parse_vload_name(name: &str) -> Option<(bool, u8)> {
    let (is_store, digits) = if let Some(d) = name.strip_prefix("vload") {
        (false, d)
    } else {
        (true, name.strip_prefix("vstore")?)
    };
    let n = match digits {
        "2" => 2,
        "3" => 3,
        "4" => 4,
        "8" => 8,
        "16" => 16,
        _ => return None,
    };
    Some((is_store, n))
}

fn half_access_name(store: bool, h: HalfAccess) -> String {
    let op = if store { "store" } else { "load" };
    let a = if h.aligned { "a" } else { "" };
    let n = if h.n == 1 {
        String::new()
    } else {
        h.n.to_string()
    };
    format!("v{op}{a}_half{n}{}", h.rounding.suffix())
}

/// `vload_half[N]`, `vloada_halfN`, `vstore_half[N][_<r>]`,
/// `vstorea_halfN[_<r>]`: (is a store, shape).
pub fn parse_half_access_name(name: &str) -> Option<(bool, HalfAccess)> {
    let (store, aligned, rest) = [
        (false, false, "vload_half"),
        (false, true, "vloada_half"),
        (true, false, "vstore_half"),
        (true, true, "vstorea_half"),
    ]
    .into_iter()
    .find_map(|(st, al, prefix)| Some((st, al, name.strip_prefix(prefix)?)))?;
    let (digits, rounding) = if store {
        Rounding::strip(rest)
    } else {
        (rest, Rounding::Default)
    };
    let n = match digits {
        "" if !aligned => 1,
        "2" => 2,
        "3" => 3,
        "4" => 4,
        "8" => 8,
        "16" => 16,
        _ => return None,
    };
    Some((
        store,
        HalfAccess {
            n,
            aligned,
            rounding,
        },
    ))
}

/// Is `name` the name of a built-in function lanes knows (table or rule)?
pub fn is_builtin_name(name: &str) -> bool {
    Builtin::from_name(name).is_some()
        || parse_convert_name(name).is_some()
        || parse_as_name(name).is_some()
        || parse_vload_name(name).is_some()
        || parse_half_access_name(name).is_some()
        || name == "vec_step"
        || crate::workgroup::parse(name).is_some()
        || name == "printf"
        || crate::image::parse(name).is_some()
}

/// Built-in functions of OpenCL C that lanes does not compile yet: the
/// diagnostic code and the message naming the feature.
pub fn unsupported(name: &str) -> Option<(Code, String)> {
    let (code, what) = match name {
        "sub_group_barrier" => (Code::UnsupportedBarrier, "sub-group barriers are"),
        "to_global" | "to_local" | "to_private" | "get_fence" => (
            Code::UnsupportedGenericAddressSpace,
            "the generic address space is",
        ),
        "enqueue_kernel"
        | "enqueue_marker"
        | "get_default_queue"
        | "ndrange_1D"
        | "ndrange_2D"
        | "ndrange_3D"
        | "retain_event"
        | "release_event"
        | "create_user_event"
        | "set_user_event_status"
        | "capture_event_profiling_info"
        | "is_valid_event"
        | "get_kernel_work_group_size"
        | "get_kernel_preferred_work_group_size_multiple"
        | "read_pipe"
        | "write_pipe"
        | "reserve_read_pipe"
        | "reserve_write_pipe"
        | "commit_read_pipe"
        | "commit_write_pipe"
        | "is_valid_reserve_id"
        | "get_pipe_num_packets"
        | "get_pipe_max_packets"
        | "work_group_reserve_read_pipe"
        | "work_group_reserve_write_pipe"
        | "work_group_commit_read_pipe"
        | "work_group_commit_write_pipe"
        | "sub_group_reserve_read_pipe"
        | "sub_group_reserve_write_pipe"
        | "sub_group_commit_read_pipe"
        | "sub_group_commit_write_pipe" => (
            Code::UnsupportedDeviceEnqueue,
            "pipes and device-side enqueue are",
        ),
        _ => return None,
    };
    Some((code, format!("{what} not supported yet (`{name}`)")))
}

/// The opaque or unsupported type names and what they need: (code, message).
pub fn unsupported_type(name: &str) -> Option<(Code, String)> {
    let (code, what) = match name {
        "queue_t" | "clk_event_t" | "ndrange_t" | "reserve_id_t" | "pipe" => (
            Code::UnsupportedDeviceEnqueue,
            "pipes and device-side enqueue are",
        ),
        _ if name.starts_with("half") && crate::types::parse_vector_name(name).is_some() => {
            (Code::UnsupportedHalf, "`half` values are")
        }
        _ => return None,
    };
    Some((code, format!("{what} not supported yet (`{name}`)")))
}

/// Names for "did you mean" suggestions.
pub fn all_names() -> impl Iterator<Item = &'static str> {
    Builtin::ALL.iter().map(|b| b.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: Scalar, n: u8) -> Type {
        Type::Vector(s, n)
    }

    fn found(b: Builtin, args: &[Type]) -> (Vec<Type>, Type) {
        match resolve(b, args) {
            Resolution::Found(c) => (c.params, c.ret),
            other => panic!("{} {:?}: {:?}", b.name(), args, other),
        }
    }

    #[test]
    fn names_round_trip() {
        for b in Builtin::ALL {
            assert_eq!(Builtin::from_name(b.name()), Some(*b));
            assert!(!b.sigs().is_empty());
        }
        assert_eq!(Builtin::from_name("nope"), None);
    }

    #[test]
    fn resolution_table() {
        let f = Type::FLOAT;
        let d = Type::DOUBLE;
        let i = Type::INT;
        let u = Type::UINT;
        // (function, args, expected params, expected result)
        let cases: Vec<(Builtin, Vec<Type>, Vec<Type>, Type)> = vec![
            (Builtin::Sqrt, vec![f.clone()], vec![f.clone()], f.clone()),
            (Builtin::Sqrt, vec![d.clone()], vec![d.clone()], d.clone()),
            (
                Builtin::Sqrt,
                vec![v(Float, 4)],
                vec![v(Float, 4)],
                v(Float, 4),
            ),
            (
                Builtin::GetGlobalId,
                vec![i.clone()],
                vec![u.clone()],
                Type::SIZE_T,
            ),
            (Builtin::GetWorkDim, vec![], vec![], u.clone()),
            (
                Builtin::Fmin,
                vec![f.clone(), i.clone()],
                vec![f.clone(), f.clone()],
                f.clone(),
            ),
            (
                Builtin::Fmin,
                vec![v(Float, 4), f.clone()],
                vec![v(Float, 4), f.clone()],
                v(Float, 4),
            ),
            (
                Builtin::Max,
                vec![u.clone(), u.clone()],
                vec![u.clone(), u.clone()],
                u.clone(),
            ),
            (
                Builtin::Max,
                vec![v(Int, 4), i.clone()],
                vec![v(Int, 4), i.clone()],
                v(Int, 4),
            ),
            (
                Builtin::Clamp,
                vec![v(Int, 4), i.clone(), i.clone()],
                vec![v(Int, 4), i.clone(), i.clone()],
                v(Int, 4),
            ),
            (Builtin::Abs, vec![i.clone()], vec![i.clone()], u.clone()),
            (
                Builtin::Abs,
                vec![v(Char, 8)],
                vec![v(Char, 8)],
                v(UChar, 8),
            ),
            (
                Builtin::Mad24,
                vec![i.clone(), i.clone(), i.clone()],
                vec![i.clone(); 3],
                i.clone(),
            ),
            (
                Builtin::Upsample,
                vec![Type::Scalar(Short), Type::Scalar(UShort)],
                vec![Type::Scalar(Short), Type::Scalar(UShort)],
                i.clone(),
            ),
            (
                Builtin::Dot,
                vec![v(Float, 3), v(Float, 3)],
                vec![v(Float, 3); 2],
                f.clone(),
            ),
            (
                Builtin::Cross,
                vec![v(Float, 4), v(Float, 4)],
                vec![v(Float, 4); 2],
                v(Float, 4),
            ),
            (Builtin::Isnan, vec![f.clone()], vec![f.clone()], i.clone()),
            (
                Builtin::Isnan,
                vec![v(Double, 2)],
                vec![v(Double, 2)],
                v(Long, 2),
            ),
            (Builtin::Any, vec![v(Int, 4)], vec![v(Int, 4)], i.clone()),
            (
                Builtin::Select,
                vec![v(Float, 4), v(Float, 4), v(Int, 4)],
                vec![v(Float, 4), v(Float, 4), v(Int, 4)],
                v(Float, 4),
            ),
            (
                Builtin::Select,
                vec![v(Float, 4), v(Float, 4), v(UInt, 4)],
                vec![v(Float, 4), v(Float, 4), v(UInt, 4)],
                v(Float, 4),
            ),
            (
                Builtin::Step,
                vec![f.clone(), v(Float, 2)],
                vec![f.clone(), v(Float, 2)],
                v(Float, 2),
            ),
            (
                Builtin::Mix,
                vec![v(Float, 4), v(Float, 4), f.clone()],
                vec![v(Float, 4), v(Float, 4), f.clone()],
                v(Float, 4),
            ),
            (
                Builtin::Pown,
                vec![f.clone(), i.clone()],
                vec![f.clone(), i.clone()],
                f.clone(),
            ),
            (
                Builtin::SubGroupReduceAdd,
                vec![f.clone()],
                vec![f.clone()],
                f.clone(),
            ),
            (
                Builtin::SubGroupBroadcast,
                vec![i.clone(), i.clone()],
                vec![i.clone(), u.clone()],
                i.clone(),
            ),
            (
                Builtin::SubGroupAny,
                vec![Type::BOOL],
                vec![i.clone()],
                i.clone(),
            ),
            (
                Builtin::NativeSin,
                vec![v(Float, 8)],
                vec![v(Float, 8)],
                v(Float, 8),
            ),
            (
                Builtin::Popcount,
                vec![Type::ULONG],
                vec![Type::ULONG],
                Type::ULONG,
            ),
        ];
        for (b, args, params, ret) in cases {
            let (p, r) = found(b, &args);
            assert_eq!((p, r), (params, ret), "{}({:?})", b.name(), args);
        }
    }

    #[test]
    fn ambiguity_follows_clang() {
        // clang: "call to 'sqrt' is ambiguous", "call to 'max' is ambiguous"
        assert!(matches!(
            resolve(Builtin::Sqrt, &[Type::INT]),
            Resolution::Ambiguous(_)
        ));
        assert!(matches!(
            resolve(Builtin::Max, &[Type::UINT, Type::INT]),
            Resolution::Ambiguous(_)
        ));
        assert!(matches!(
            resolve(Builtin::Max, &[Type::INT, Type::UINT]),
            Resolution::Ambiguous(_)
        ));
        assert!(matches!(
            resolve(Builtin::Fmin, &[Type::FLOAT, Type::DOUBLE]),
            Resolution::Ambiguous(_)
        ));
        // float -> double is a promotion: sqrt of a float literal is not ambiguous.
        assert!(matches!(
            resolve(Builtin::Fmin, &[Type::FLOAT, Type::FLOAT]),
            Resolution::Found(_)
        ));
        match resolve(Builtin::Sqrt, &[Type::INT]) {
            Resolution::Ambiguous(c) => {
                assert_eq!(c, vec!["`float sqrt(float)`", "`double sqrt(double)`"])
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn no_match() {
        assert_eq!(resolve(Builtin::Sqrt, &[v(Int, 4)]), Resolution::NoMatch);
        assert_eq!(resolve(Builtin::Any, &[v(Float, 4)]), Resolution::NoMatch);
        assert_eq!(
            resolve(Builtin::Dot, &[v(Float, 8), v(Float, 8)]),
            Resolution::NoMatch
        );
        assert_eq!(resolve(Builtin::Sqrt, &[]), Resolution::NoMatch);
        assert_eq!(
            resolve(Builtin::NativeSin, &[v(Double, 4)]),
            Resolution::NoMatch
        );
    }

    #[test]
    fn candidate_notes() {
        assert_eq!(
            candidate_signatures(Builtin::Sqrt),
            vec![
                "`float sqrt(float)`",
                "`floatN sqrt(floatN)`",
                "`double sqrt(double)`",
                "`doubleN sqrt(doubleN)`"
            ]
        );
        let m = candidate_signatures(Builtin::Abs);
        assert_eq!(m, vec!["`ugentype abs(gentype)`"]);
        assert_eq!(
            candidate_signatures(Builtin::GetGlobalId),
            vec!["`ulong get_global_id(uint)`"]
        );
    }

    #[test]
    fn rule_names() {
        assert_eq!(
            parse_convert_name("convert_int4_sat_rte"),
            Some((v(Int, 4), true, Rounding::Rte))
        );
        assert_eq!(
            parse_convert_name("convert_float"),
            Some((Type::FLOAT, false, Rounding::Default))
        );
        assert_eq!(parse_convert_name("convert_bool"), None);
        assert_eq!(parse_convert_name("convert_int5"), None);
        assert_eq!(parse_as_name("as_uint4"), Some(v(UInt, 4)));
        assert_eq!(parse_vload_name("vload4"), Some((false, 4)));
        assert_eq!(parse_vload_name("vstore16"), Some((true, 16)));
        assert_eq!(parse_vload_name("vload5"), None);
        assert!(is_builtin_name("convert_uchar16_sat"));
        assert!(!is_builtin_name("foo"));
    }

    #[test]
    fn unsupported_names() {
        // Work-group built-ins are checked and lowered (`workgroup`).
        for name in ["barrier", "mem_fence", "atomic_add", "atom_inc", "prefetch"] {
            assert_eq!(unsupported(name), None, "{name}");
            assert!(is_builtin_name(name), "{name}");
        }
        assert_eq!(
            unsupported("sub_group_barrier").map(|u| u.1),
            Some("sub-group barriers are not supported yet (`sub_group_barrier`)".into())
        );
        assert_eq!(unsupported("read_imagef"), None);
        assert_eq!(unsupported("work_group_reduce_add"), None);
        assert_eq!(
            unsupported("to_global").map(|u| u.0),
            Some(Code::UnsupportedGenericAddressSpace)
        );
        assert_eq!(
            unsupported("read_pipe").map(|u| u.0),
            Some(Code::UnsupportedDeviceEnqueue)
        );
        assert_eq!(unsupported("vload_half4"), None);
        assert_eq!(unsupported("sqrt"), None);
        assert_eq!(unsupported_type("image2d_t"), None);
        assert_eq!(unsupported_type("sampler_t"), None);
        assert_eq!(unsupported_type("atomic_int"), None);
        assert_eq!(unsupported_type("event_t"), None);
        assert_eq!(
            unsupported_type("half4").map(|u| u.0),
            Some(Code::UnsupportedHalf)
        );
        assert_eq!(unsupported_type("float4"), None);
        // `half` itself is a storage type; only values of it are refused.
        assert_eq!(unsupported_type("half"), None);
    }

    #[test]
    fn half_access_names() {
        let h = |n, aligned, rounding| HalfAccess {
            n,
            aligned,
            rounding,
        };
        assert_eq!(
            parse_half_access_name("vload_half"),
            Some((false, h(1, false, Rounding::Default)))
        );
        assert_eq!(
            parse_half_access_name("vloada_half3"),
            Some((false, h(3, true, Rounding::Default)))
        );
        assert_eq!(
            parse_half_access_name("vstore_half16_rtz"),
            Some((true, h(16, false, Rounding::Rtz)))
        );
        assert_eq!(
            parse_half_access_name("vstorea_half4_rtn"),
            Some((true, h(4, true, Rounding::Rtn)))
        );
        assert_eq!(h(3, true, Rounding::Rte).stride(), 4);
        assert_eq!(h(3, false, Rounding::Rte).stride(), 3);
        // Loads have no rounding; the aligned forms have no scalar variant.
        assert_eq!(parse_half_access_name("vload_half_rte"), None);
        assert_eq!(parse_half_access_name("vloada_half"), None);
        assert_eq!(parse_half_access_name("vstore_half5"), None);
        for name in [
            "vload_half",
            "vloada_half8",
            "vstore_half2_rtp",
            "vstorea_half3",
        ] {
            let (store, a) = parse_half_access_name(name).unwrap();
            let call = BuiltinCall {
                func: if store {
                    BuiltinFn::VStoreHalf(a)
                } else {
                    BuiltinFn::VLoadHalf(a)
                },
                params: vec![],
                ret: Type::Void,
            };
            assert_eq!(call.name(), name);
        }
    }

    #[test]
    fn pointer_outputs_take_the_address_space_of_the_argument() {
        let ptr = |pointee: Type, space, pointee_const| {
            Type::Pointer(Box::new(Pointer {
                pointee,
                space,
                pointee_const,
            }))
        };
        for space in [
            AddressSpace::Global,
            AddressSpace::Local,
            AddressSpace::Private,
        ] {
            let (params, ret) = found(
                Builtin::Fract,
                &[v(Float, 4), ptr(v(Float, 4), space, false)],
            );
            assert_eq!(params[1], ptr(v(Float, 4), space, false));
            assert_eq!(ret, v(Float, 4));
            let (params, _) = found(
                Builtin::Remquo,
                &[Type::DOUBLE, Type::DOUBLE, ptr(Type::INT, space, false)],
            );
            assert_eq!(params[2], ptr(Type::INT, space, false));
        }
        // Outputs must be writable and of the right type.
        for bad in [
            ptr(Type::FLOAT, AddressSpace::Constant, true),
            ptr(Type::FLOAT, AddressSpace::Global, true),
            ptr(Type::INT, AddressSpace::Global, false),
            Type::FLOAT,
        ] {
            assert_eq!(
                resolve(Builtin::Modf, &[Type::FLOAT, bad.clone()]),
                Resolution::NoMatch,
                "{bad:?}"
            );
        }
        assert_eq!(
            resolve(
                Builtin::Frexp,
                &[v(Float, 2), ptr(Type::INT, AddressSpace::Global, false)]
            ),
            Resolution::NoMatch
        );
        assert!(candidate_signatures(Builtin::Sincos)
            .contains(&"`floatN sincos(floatN, floatN *)`".to_string()));
    }
}
