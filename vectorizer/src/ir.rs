//! The lanes IR: an SSA control-flow graph with φ nodes and optional block
//! predicates, after P-LLVM (Moll 2021, ch. 4).
//!
//! One [`Function`] is one kernel with every helper inlined. The IR is
//! *scalar*: OpenCL vector types are scalarized per component during
//! lowering, so every value has one of the scalar types of [`Ty`]. Memory is
//! byte-addressed: [`InstKind::PtrAdd`] adds a byte offset, which is what the
//! stride analysis wants (pointer strides are in bytes).
//!
//! Every instruction carries a [`Src`] (the AST node and span it came from)
//! so that every fact can be shown at the user's text.
//!
//! Layout of a block: φs first, then ordinary instructions, then exactly one
//! terminator ([`InstKind::is_terminator`]).

use std::fmt;

use lanes_frontend::ast::{AddressSpace, NodeId};
pub use lanes_frontend::hir::Unroll;
use lanes_frontend::source::Span;
use smol_str::SmolStr;

pub mod parse;
pub mod print;
pub mod verify;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

impl BlockId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl InstId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
impl ValueId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where an instruction comes from in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Src {
    pub node: NodeId,
    pub span: Span,
}

/// Scalar IR types. Integers carry no signedness: operations say it
/// (`SDiv`/`UDiv`, `Slt`/`Ult`, `SExt`/`ZExt`), as in LLVM.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    I1,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    Ptr(AddressSpace),
    /// An image: an opaque handle the image instructions take (never in
    /// memory, never an operand of arithmetic).
    Image,
    Void,
}

impl Ty {
    /// Width in bits of an integer or float type (pointers: 64, void: 0).
    pub fn bits(self) -> u32 {
        match self {
            Ty::I1 => 1,
            Ty::I8 => 8,
            Ty::I16 => 16,
            Ty::I32 | Ty::F32 => 32,
            Ty::I64 | Ty::F64 | Ty::Ptr(_) | Ty::Image => 64,
            Ty::Void => 0,
        }
    }

    /// Size in bytes in memory (`i1` is stored as one byte).
    pub fn bytes(self) -> u64 {
        match self {
            Ty::I1 | Ty::I8 => 1,
            Ty::I16 => 2,
            Ty::I32 | Ty::F32 => 4,
            Ty::I64 | Ty::F64 | Ty::Ptr(_) | Ty::Image => 8,
            Ty::Void => 0,
        }
    }

    pub fn is_int(self) -> bool {
        matches!(self, Ty::I1 | Ty::I8 | Ty::I16 | Ty::I32 | Ty::I64)
    }

    pub fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }

    pub fn is_ptr(self) -> bool {
        matches!(self, Ty::Ptr(_))
    }

    /// The integer type of `bits` bits (1, 8, 16, 32, 64).
    pub fn int(bits: u32) -> Option<Ty> {
        match bits {
            1 => Some(Ty::I1),
            8 => Some(Ty::I8),
            16 => Some(Ty::I16),
            32 => Some(Ty::I32),
            64 => Some(Ty::I64),
            _ => None,
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::I1 => f.write_str("i1"),
            Ty::I8 => f.write_str("i8"),
            Ty::I16 => f.write_str("i16"),
            Ty::I32 => f.write_str("i32"),
            Ty::I64 => f.write_str("i64"),
            Ty::F32 => f.write_str("f32"),
            Ty::F64 => f.write_str("f64"),
            Ty::Ptr(space) => write!(f, "ptr({})", space_name(*space)),
            Ty::Image => f.write_str("image"),
            Ty::Void => f.write_str("void"),
        }
    }
}

pub fn space_name(space: AddressSpace) -> &'static str {
    match space {
        AddressSpace::Private => "private",
        AddressSpace::Global => "global",
        AddressSpace::Constant => "constant",
        AddressSpace::Local => "local",
        AddressSpace::Generic => "generic",
    }
}

/// A constant. Integers are the two's-complement bits of the value,
/// truncated to the type's width (zero-extended to 64 bits).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Const {
    Int(u64, Ty),
    Float(f64, Ty),
    Null(AddressSpace),
    Undef(Ty),
}

impl Const {
    pub fn ty(self) -> Ty {
        match self {
            Const::Int(_, t) | Const::Float(_, t) | Const::Undef(t) => t,
            Const::Null(s) => Ty::Ptr(s),
        }
    }

    /// An integer constant, truncated to the width of `ty`.
    pub fn int(value: i64, ty: Ty) -> Const {
        Const::Int(truncate(value as u64, ty.bits()), ty)
    }

    /// The value of an integer constant sign-extended from its width.
    pub fn as_signed(self) -> Option<i64> {
        match self {
            Const::Int(v, t) => Some(sign_extend(v, t.bits())),
            _ => None,
        }
    }

    /// The bits of an integer constant (zero-extended).
    pub fn as_unsigned(self) -> Option<u64> {
        match self {
            Const::Int(v, _) => Some(v),
            _ => None,
        }
    }
}

/// Keeps the low `bits` bits of `v`.
pub fn truncate(v: u64, bits: u32) -> u64 {
    if bits >= 64 {
        v
    } else {
        v & ((1u64 << bits) - 1)
    }
}

/// Sign-extends the low `bits` bits of `v` to 64 bits (`i1` true is -1).
pub fn sign_extend(v: u64, bits: u32) -> i64 {
    if bits == 0 || bits >= 64 {
        v as i64
    } else {
        let shift = 64 - bits;
        ((v << shift) as i64) >> shift
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::EnumIter)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    SDiv,
    UDiv,
    SRem,
    URem,
    Shl,
    LShr,
    AShr,
    And,
    Or,
    Xor,
    FAdd,
    FSub,
    FMul,
    FDiv,
    FRem,
}

impl BinOp {
    pub fn name(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            SDiv => "sdiv",
            UDiv => "udiv",
            SRem => "srem",
            URem => "urem",
            Shl => "shl",
            LShr => "lshr",
            AShr => "ashr",
            And => "and",
            Or => "or",
            Xor => "xor",
            FAdd => "fadd",
            FSub => "fsub",
            FMul => "fmul",
            FDiv => "fdiv",
            FRem => "frem",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            BinOp::FAdd | BinOp::FSub | BinOp::FMul | BinOp::FDiv | BinOp::FRem
        )
    }

    /// Integer division or remainder (the kinds that trap on zero).
    pub fn is_int_division(self) -> bool {
        matches!(self, BinOp::SDiv | BinOp::UDiv | BinOp::SRem | BinOp::URem)
    }
}

/// Comparison predicates. Float predicates are ordered (false on NaN)
/// except `FUne` (true on NaN), as C's `!=`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::EnumIter)]
pub enum CmpPred {
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Sge,
    Ult,
    Ule,
    Ugt,
    Uge,
    FOeq,
    FUne,
    FOlt,
    FOle,
    FOgt,
    FOge,
    /// Both operands are not NaN.
    FOrd,
    /// Either operand is NaN.
    FUno,
}

impl CmpPred {
    pub fn name(self) -> &'static str {
        use CmpPred::*;
        match self {
            Eq => "eq",
            Ne => "ne",
            Slt => "slt",
            Sle => "sle",
            Sgt => "sgt",
            Sge => "sge",
            Ult => "ult",
            Ule => "ule",
            Ugt => "ugt",
            Uge => "uge",
            FOeq => "foeq",
            FUne => "fune",
            FOlt => "folt",
            FOle => "fole",
            FOgt => "fogt",
            FOge => "foge",
            FOrd => "ford",
            FUno => "funo",
        }
    }

    pub fn is_float(self) -> bool {
        use CmpPred::*;
        matches!(self, FOeq | FUne | FOlt | FOle | FOgt | FOge | FOrd | FUno)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::EnumIter)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
    FpTrunc,
    FpExt,
    /// Float to signed integer, rounding toward zero. Out-of-range values
    /// are undefined in C; the interpreter reports them.
    FpToSi,
    FpToUi,
    /// Float to signed integer with saturation (NaN gives 0), for
    /// `convert_T_sat`.
    FpToSiSat,
    FpToUiSat,
    SiToFp,
    UiToFp,
    /// Same size reinterpretation between integers and floats (`as_T`).
    Bitcast,
    PtrToInt,
    IntToPtr,
    /// Pointer to pointer of another address space or pointee (no-op).
    PtrCast,
    /// `i16` bits of an IEEE binary16 (`half`) to `f32`/`f64` (exact).
    HalfToFp,
    /// `f32`/`f64` to the `i16` bits of the nearest `half` (ties to even;
    /// overflow gives infinity, NaN stays NaN).
    FpToHalf,
}

impl CastOp {
    pub fn name(self) -> &'static str {
        use CastOp::*;
        match self {
            Trunc => "trunc",
            ZExt => "zext",
            SExt => "sext",
            FpTrunc => "fptrunc",
            FpExt => "fpext",
            FpToSi => "fptosi",
            FpToUi => "fptoui",
            FpToSiSat => "fptosi.sat",
            FpToUiSat => "fptoui.sat",
            SiToFp => "sitofp",
            UiToFp => "uitofp",
            Bitcast => "bitcast",
            PtrToInt => "ptrtoint",
            IntToPtr => "inttoptr",
            PtrCast => "ptrcast",
            HalfToFp => "halftofp",
            FpToHalf => "fptohalf",
        }
    }
}

/// Work-item queries. The dimension is the first argument where the
/// OpenCL function has one (an `i32`, usually a constant). All return `i64`
/// (`size_t`) except `WorkDim`, `SubGroupSize`, `SubGroupLocalId`,
/// `NumSubGroups`, `SubGroupId` and `MaxSubGroupSize`, which return `i32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::EnumIter)]
pub enum WorkItem {
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
    /// `i1`: true on the lanes of a SIMD group that are work-items (a
    /// remainder group at the end of a row has fewer). Only in vector IR,
    /// where it is the entry mask; one work-item alone is always active.
    LaneMask,
}

impl WorkItem {
    pub fn name(self) -> &'static str {
        use WorkItem::*;
        match self {
            GlobalId => "get_global_id",
            LocalId => "get_local_id",
            GroupId => "get_group_id",
            GlobalSize => "get_global_size",
            LocalSize => "get_local_size",
            NumGroups => "get_num_groups",
            GlobalOffset => "get_global_offset",
            WorkDim => "get_work_dim",
            SubGroupSize => "get_sub_group_size",
            SubGroupLocalId => "get_sub_group_local_id",
            NumSubGroups => "get_num_sub_groups",
            SubGroupId => "get_sub_group_id",
            MaxSubGroupSize => "get_max_sub_group_size",
            LaneMask => "lanes.active",
        }
    }

    pub fn has_dim(self) -> bool {
        use WorkItem::*;
        matches!(
            self,
            GlobalId | LocalId | GroupId | GlobalSize | LocalSize | NumGroups | GlobalOffset
        )
    }
}

/// Element-wise math on one lane: floats unless the name says otherwise.
/// `native_*`/`half_*` variants lower to the precise function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::EnumIter)]
pub enum MathFn {
    // float -> float
    Sqrt,
    Rsqrt,
    Fabs,
    Floor,
    Ceil,
    Round,
    Trunc,
    Rint,
    Exp,
    Exp2,
    Exp10,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Sinpi,
    Cospi,
    Cbrt,
    /// `log(|gamma(x)|)`.
    Lgamma,
    // (float, float) -> float
    Pow,
    Powr,
    Atan2,
    Hypot,
    Copysign,
    Fmod,
    Fdim,
    /// IEEE minNum / maxNum (OpenCL `fmin`/`fmax`, and `min`/`max` on floats).
    Fmin,
    Fmax,
    // (float, int) -> float; the int is `i32`.
    Pown,
    Rootn,
    Ldexp,
    // (float, float, float) -> float
    Fma,
    // integers
    SMin,
    SMax,
    UMin,
    UMax,
    /// `abs` of a signed integer (the result's bits, as OpenCL's unsigned).
    IAbs,
    /// High half of the full product.
    SMulHi,
    UMulHi,
    SAddSat,
    UAddSat,
    SSubSat,
    USubSat,
    Popcount,
    Clz,
    Ctz,
    /// Rotate left by the second operand (modulo the width).
    Rotate,
}

impl MathFn {
    pub fn name(self) -> &'static str {
        use MathFn::*;
        match self {
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            Fabs => "fabs",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Trunc => "trunc",
            Rint => "rint",
            Exp => "exp",
            Exp2 => "exp2",
            Exp10 => "exp10",
            Expm1 => "expm1",
            Log => "log",
            Log2 => "log2",
            Log10 => "log10",
            Log1p => "log1p",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Asinh => "asinh",
            Acosh => "acosh",
            Atanh => "atanh",
            Sinpi => "sinpi",
            Cospi => "cospi",
            Cbrt => "cbrt",
            Lgamma => "lgamma",
            Pow => "pow",
            Powr => "powr",
            Atan2 => "atan2",
            Hypot => "hypot",
            Copysign => "copysign",
            Fmod => "fmod",
            Fdim => "fdim",
            Fmin => "fmin",
            Fmax => "fmax",
            Pown => "pown",
            Rootn => "rootn",
            Ldexp => "ldexp",
            Fma => "fma",
            SMin => "smin",
            SMax => "smax",
            UMin => "umin",
            UMax => "umax",
            IAbs => "iabs",
            SMulHi => "smul_hi",
            UMulHi => "umul_hi",
            SAddSat => "sadd_sat",
            UAddSat => "uadd_sat",
            SSubSat => "ssub_sat",
            USubSat => "usub_sat",
            Popcount => "popcount",
            Clz => "clz",
            Ctz => "ctz",
            Rotate => "rotate",
        }
    }

    pub fn arity(self) -> usize {
        use MathFn::*;
        match self {
            Pow | Powr | Atan2 | Hypot | Copysign | Fmod | Fdim | Fmin | Fmax | Pown | Rootn
            | Ldexp | SMin | SMax | UMin | UMax | SMulHi | UMulHi | SAddSat | UAddSat | SSubSat
            | USubSat | Rotate => 2,
            Fma => 3,
            _ => 1,
        }
    }

    /// True for the integer functions (operands and result are integers).
    pub fn is_integer(self) -> bool {
        use MathFn::*;
        matches!(
            self,
            SMin | SMax
                | UMin
                | UMax
                | IAbs
                | SMulHi
                | UMulHi
                | SAddSat
                | UAddSat
                | SSubSat
                | USubSat
                | Popcount
                | Clz
                | Ctz
                | Rotate
        )
    }
}

/// Operations across the lanes of a SIMD group (= OpenCL sub-group). They
/// see the *active* lanes only (DESIGN §1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Horizontal {
    /// `sub_group_any(c)`: one `i1` operand, `i1` result, uniform.
    Any,
    /// `sub_group_all(c)`.
    All,
    /// `sub_group_broadcast(x, lane)`: value of `x` on lane `lane` (uniform
    /// `i32`).
    Broadcast,
    Reduce(ReduceOp),
    ScanInclusive(ReduceOp),
    ScanExclusive(ReduceOp),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::EnumIter)]
pub enum ReduceOp {
    Add,
    FAdd,
    SMin,
    UMin,
    FMin,
    SMax,
    UMax,
    FMax,
}

impl Horizontal {
    pub fn name(self) -> String {
        let op = |o: ReduceOp| match o {
            ReduceOp::Add => "add",
            ReduceOp::FAdd => "fadd",
            ReduceOp::SMin => "smin",
            ReduceOp::UMin => "umin",
            ReduceOp::FMin => "fmin",
            ReduceOp::SMax => "smax",
            ReduceOp::UMax => "umax",
            ReduceOp::FMax => "fmax",
        };
        match self {
            Horizontal::Any => "any".into(),
            Horizontal::All => "all".into(),
            Horizontal::Broadcast => "broadcast".into(),
            Horizontal::Reduce(o) => format!("reduce.{}", op(o)),
            Horizontal::ScanInclusive(o) => format!("scan_incl.{}", op(o)),
            Horizontal::ScanExclusive(o) => format!("scan_excl.{}", op(o)),
        }
    }
}

/// Atomic read-modify-write operations on `__global` or `__local` memory
/// (OpenCL C 1.1 `atomic_*`, 1.0 `atom_*`, 2.0 `atomic_fetch_*`,
/// `atomic_load`/`atomic_store`/`atomic_exchange`/`atomic_compare_exchange_*`).
/// Every one but `Store` returns the value the memory held before. The
/// operands (`InstKind::Atomic::args`) are the value (none for `Load`;
/// `cmp, new` for `CmpXchg`). `atomic_inc`/`atomic_dec` are `Add`/`Sub` of 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::EnumIter)]
pub enum AtomicOp {
    Add,
    Sub,
    Xchg,
    And,
    Or,
    Xor,
    SMin,
    SMax,
    UMin,
    UMax,
    /// Stores `new` if the memory holds `cmp`; returns the old value.
    CmpXchg,
    Load,
    Store,
}

impl AtomicOp {
    pub fn name(self) -> &'static str {
        use AtomicOp::*;
        match self {
            Add => "add",
            Sub => "sub",
            Xchg => "xchg",
            And => "and",
            Or => "or",
            Xor => "xor",
            SMin => "smin",
            SMax => "smax",
            UMin => "umin",
            UMax => "umax",
            CmpXchg => "cmpxchg",
            Load => "load",
            Store => "store",
        }
    }

    /// The number of value operands after the pointer.
    pub fn arity(self) -> usize {
        match self {
            AtomicOp::Load => 0,
            AtomicOp::CmpXchg => 2,
            _ => 1,
        }
    }
}

/// The `flags` of a barrier or fence: OpenCL's `cl_mem_fence_flags`.
pub mod fence {
    pub const LOCAL: u32 = 1;
    pub const GLOBAL: u32 = 2;
    pub const IMAGE: u32 = 4;
}

/// What an image read returns or a write takes per channel: `read_imagef`
/// (`float`), `read_imagei` (`int`), `read_imageui` (`uint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, strum::EnumIter)]
pub enum ImageElem {
    Float,
    Int,
    UInt,
}

impl ImageElem {
    pub fn suffix(self) -> &'static str {
        match self {
            ImageElem::Float => "f",
            ImageElem::Int => "i",
            ImageElem::UInt => "ui",
        }
    }
}

pub use lanes_frontend::image::ImageQuery;

#[derive(Clone, Debug, PartialEq)]
pub enum InstKind {
    /// `incoming` has one entry per predecessor edge, in any order.
    Phi {
        incoming: Vec<(BlockId, ValueId)>,
    },
    Bin {
        op: BinOp,
        lhs: ValueId,
        rhs: ValueId,
    },
    /// Float negation (integer negation is `sub 0, x`).
    FNeg(ValueId),
    /// Result `i1`.
    Cmp {
        pred: CmpPred,
        lhs: ValueId,
        rhs: ValueId,
    },
    /// `cond` is `i1`.
    Select {
        cond: ValueId,
        then: ValueId,
        els: ValueId,
    },
    Cast {
        op: CastOp,
        value: ValueId,
    },
    /// `size` bytes of private memory, one object per work-item.
    Alloca {
        size: u64,
        align: u64,
    },
    /// Loads a value of the instruction's type.
    Load {
        ptr: ValueId,
        align: u64,
    },
    Store {
        ptr: ValueId,
        value: ValueId,
        align: u64,
    },
    /// `base + offset` where `offset` is an `i64` count of bytes.
    PtrAdd {
        base: ValueId,
        offset: ValueId,
    },
    WorkItem {
        query: WorkItem,
        /// The dimension operand (`i32`) for queries that have one.
        dim: Option<ValueId>,
    },
    Math {
        func: MathFn,
        args: Vec<ValueId>,
    },
    Horizontal {
        op: Horizontal,
        args: Vec<ValueId>,
    },
    /// A work-group barrier (`barrier`, `work_group_barrier`,
    /// `wait_group_events`): every work-item of the work-group reaches it
    /// before any continues; `flags` ([`fence`]) say which memory it orders.
    Barrier {
        flags: u32,
    },
    /// An atomic operation on the memory at `ptr` (see [`AtomicOp`]); the
    /// result type is the memory's type (`Void` for `Store`).
    Atomic {
        op: AtomicOp,
        ptr: ValueId,
        args: Vec<ValueId>,
    },
    /// A work-group collective (`work_group_reduce_add`, `_scan_*`,
    /// `_broadcast`, `_any`, `_all`): the operation of [`Horizontal`] over
    /// all work-items of the work-group, with an implicit barrier. For
    /// `Broadcast` the operands are the value and the local id in each
    /// dimension the call names (`i64`).
    WorkGroup {
        op: Horizontal,
        args: Vec<ValueId>,
    },
    /// `printf`: the format (with `%s` strings spliced in) and the values
    /// of its conversions, vectors as their components; returns `i32` 0.
    Printf {
        format: SmolStr,
        args: Vec<ValueId>,
    },
    /// One channel (`component` 0-3: x, y, z, w) of the pixel of `image`
    /// at `coords` (`i32`s, or `f32`s when sampled; one per coordinate
    /// component of the image type), read through `sampler` (the `i32`
    /// `CLK_*` bits) if given. A source read is four of these with the same
    /// operands (one for a depth image); the pixel address is not known
    /// statically, so the analysis classifies the read by the shapes of
    /// the coordinates (docs/analysis.md).
    ImageRead {
        image: ValueId,
        sampler: Option<ValueId>,
        coords: Vec<ValueId>,
        elem: ImageElem,
        component: u8,
    },
    /// Writes the pixel of `image` at `coords` (`i32`s): `values` are its
    /// four channels (one for a depth image).
    ImageWrite {
        image: ValueId,
        coords: Vec<ValueId>,
        values: Vec<ValueId>,
        elem: ImageElem,
    },
    /// A property of `image` (`get_image_width`, ...): `i32`, or `i64` for
    /// `ArraySize`. `get_image_dim` is lowered to one query per component
    /// and never appears here.
    ImageQuery {
        query: ImageQuery,
        image: ValueId,
    },
    // Terminators.
    Br(BlockId),
    CondBr {
        cond: ValueId,
        then: BlockId,
        els: BlockId,
    },
    /// `value` is an integer; `cases` are values truncated to its width.
    Switch {
        value: ValueId,
        default: BlockId,
        cases: Vec<(u64, BlockId)>,
    },
    Ret,
    /// Reached only on paths C leaves undefined (e.g. falling off the end of a
    /// non-void helper); the interpreter reports it.
    Unreachable,
}

impl InstKind {
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstKind::Br(_)
                | InstKind::CondBr { .. }
                | InstKind::Switch { .. }
                | InstKind::Ret
                | InstKind::Unreachable
        )
    }

    pub fn is_phi(&self) -> bool {
        matches!(self, InstKind::Phi { .. })
    }

    /// The value operands, in order.
    pub fn operands(&self) -> Vec<ValueId> {
        let mut out = Vec::new();
        self.for_each_operand(|v| out.push(v));
        out
    }

    pub fn for_each_operand(&self, mut f: impl FnMut(ValueId)) {
        match self {
            InstKind::Phi { incoming } => incoming.iter().for_each(|&(_, v)| f(v)),
            InstKind::Bin { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
                f(*lhs);
                f(*rhs)
            }
            InstKind::FNeg(v) | InstKind::Cast { value: v, .. } => f(*v),
            InstKind::Select { cond, then, els } => {
                f(*cond);
                f(*then);
                f(*els)
            }
            InstKind::Alloca { .. } => {}
            InstKind::Load { ptr, .. } => f(*ptr),
            InstKind::Store { ptr, value, .. } => {
                f(*ptr);
                f(*value)
            }
            InstKind::PtrAdd { base, offset } => {
                f(*base);
                f(*offset)
            }
            InstKind::WorkItem { dim, .. } => {
                if let Some(d) = dim {
                    f(*d)
                }
            }
            InstKind::Math { args, .. }
            | InstKind::Horizontal { args, .. }
            | InstKind::WorkGroup { args, .. }
            | InstKind::Printf { args, .. } => args.iter().for_each(|&v| f(v)),
            InstKind::Atomic { ptr, args, .. } => {
                f(*ptr);
                args.iter().for_each(|&v| f(v))
            }
            InstKind::ImageRead {
                image,
                sampler,
                coords,
                ..
            } => {
                f(*image);
                if let Some(s) = sampler {
                    f(*s)
                }
                coords.iter().for_each(|&v| f(v))
            }
            InstKind::ImageWrite {
                image,
                coords,
                values,
                ..
            } => {
                f(*image);
                coords.iter().for_each(|&v| f(v));
                values.iter().for_each(|&v| f(v))
            }
            InstKind::ImageQuery { image, .. } => f(*image),
            InstKind::CondBr { cond, .. } => f(*cond),
            InstKind::Switch { value, .. } => f(*value),
            InstKind::Br(_) | InstKind::Ret | InstKind::Unreachable | InstKind::Barrier { .. } => {}
        }
    }

    pub fn for_each_operand_mut(&mut self, mut f: impl FnMut(&mut ValueId)) {
        match self {
            InstKind::Phi { incoming } => incoming.iter_mut().for_each(|(_, v)| f(v)),
            InstKind::Bin { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
                f(lhs);
                f(rhs)
            }
            InstKind::FNeg(v) | InstKind::Cast { value: v, .. } => f(v),
            InstKind::Select { cond, then, els } => {
                f(cond);
                f(then);
                f(els)
            }
            InstKind::Alloca { .. } => {}
            InstKind::Load { ptr, .. } => f(ptr),
            InstKind::Store { ptr, value, .. } => {
                f(ptr);
                f(value)
            }
            InstKind::PtrAdd { base, offset } => {
                f(base);
                f(offset)
            }
            InstKind::WorkItem { dim, .. } => {
                if let Some(d) = dim {
                    f(d)
                }
            }
            InstKind::Math { args, .. }
            | InstKind::Horizontal { args, .. }
            | InstKind::WorkGroup { args, .. }
            | InstKind::Printf { args, .. } => args.iter_mut().for_each(f),
            InstKind::Atomic { ptr, args, .. } => {
                f(ptr);
                args.iter_mut().for_each(f)
            }
            InstKind::ImageRead {
                image,
                sampler,
                coords,
                ..
            } => {
                f(image);
                if let Some(s) = sampler {
                    f(s)
                }
                coords.iter_mut().for_each(f)
            }
            InstKind::ImageWrite {
                image,
                coords,
                values,
                ..
            } => {
                f(image);
                coords.iter_mut().for_each(&mut f);
                values.iter_mut().for_each(f)
            }
            InstKind::ImageQuery { image, .. } => f(image),
            InstKind::CondBr { cond, .. } => f(cond),
            InstKind::Switch { value, .. } => f(value),
            InstKind::Br(_) | InstKind::Ret | InstKind::Unreachable | InstKind::Barrier { .. } => {}
        }
    }

    /// Successor blocks of a terminator, in order (a switch lists the
    /// default first, then its cases; duplicates are kept).
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            InstKind::Br(b) => vec![*b],
            InstKind::CondBr { then, els, .. } => vec![*then, *els],
            InstKind::Switch { default, cases, .. } => {
                let mut v = vec![*default];
                v.extend(cases.iter().map(|&(_, b)| b));
                v
            }
            _ => Vec::new(),
        }
    }

    /// Rewrites every successor equal to `from` into `to`.
    pub fn replace_successor(&mut self, from: BlockId, to: BlockId) {
        let fix = |b: &mut BlockId| {
            if *b == from {
                *b = to
            }
        };
        match self {
            InstKind::Br(b) => fix(b),
            InstKind::CondBr { then, els, .. } => {
                fix(then);
                fix(els)
            }
            InstKind::Switch { default, cases, .. } => {
                fix(default);
                cases.iter_mut().for_each(|(_, b)| fix(b))
            }
            _ => {}
        }
    }

    /// True for instructions with an effect besides their value.
    pub fn has_side_effect(&self) -> bool {
        matches!(
            self,
            InstKind::Store { .. }
                | InstKind::Barrier { .. }
                | InstKind::Atomic { .. }
                | InstKind::WorkGroup { .. }
                | InstKind::Printf { .. }
                | InstKind::ImageWrite { .. }
        ) || self.is_terminator()
    }

    /// Computes its result from its operands alone: no memory access, no
    /// synchronization, no other effect (φs, arithmetic, casts, pointer
    /// offsets, work-item and image queries, math, sub-group operations).
    pub fn is_pure(&self) -> bool {
        matches!(
            self,
            InstKind::Phi { .. }
                | InstKind::Bin { .. }
                | InstKind::FNeg(_)
                | InstKind::Cmp { .. }
                | InstKind::Select { .. }
                | InstKind::Cast { .. }
                | InstKind::PtrAdd { .. }
                | InstKind::WorkItem { .. }
                | InstKind::Math { .. }
                | InstKind::Horizontal { .. }
                | InstKind::ImageQuery { .. }
        )
    }

    /// True for the instructions every work-item of a work-group must reach
    /// together: barriers and work-group collectives.
    pub fn is_work_group_sync(&self) -> bool {
        matches!(self, InstKind::Barrier { .. } | InstKind::WorkGroup { .. })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Inst {
    pub kind: InstKind,
    /// The result type (`Void` for stores and terminators).
    pub ty: Ty,
    pub block: BlockId,
    pub result: Option<ValueId>,
    pub src: Src,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ValueDef {
    /// The `n`-th IR parameter of the function.
    Param(u32),
    Inst(InstId),
    Const(Const),
    /// The address of a `__constant` program-scope variable.
    Global(u32),
    /// The address of the `n`-th kernel-scope `__local` variable
    /// ([`Function::locals`]): one object per work-group.
    Local(u32),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub def: ValueDef,
    pub ty: Ty,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    /// φs first, then instructions, then one terminator.
    pub insts: Vec<InstId>,
    /// The P-LLVM block predicate (`i1`); `None` means true.
    pub predicate: Option<ValueId>,
    /// A readable label for printing (`for.body`, `if.then`, ...).
    pub label: SmolStr,
    /// On a loop's header: how the source asks the loop to be unrolled
    /// (`#pragma unroll`); the code generator hands it to LLVM's unroller.
    /// Printed as `; unroll ...` after the label.
    pub unroll: Option<Unroll>,
    /// The loop statement the hint is on (not printed): where a hint LLVM
    /// could not honour is reported (L0103).
    pub unroll_at: Option<Span>,
}

/// A parameter of the IR function. Kernel parameters of vector type are
/// split into one IR parameter per component.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: SmolStr,
    pub ty: Ty,
    /// Index of the kernel parameter in the source.
    pub source_index: u32,
    /// The vector component, for scalarized vector parameters.
    pub component: Option<u32>,
    pub span: Span,
}

/// A `__constant` variable the kernel refers to, with its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    pub name: SmolStr,
    pub bytes: Vec<u8>,
    pub align: u64,
    pub span: Span,
}

/// A `__local` variable declared at kernel scope: one object per work-group,
/// shared by its work-items, uninitialized at the start of the group.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalVar {
    pub name: SmolStr,
    pub size: u64,
    pub align: u64,
    pub span: Span,
}

/// A source variable and the SSA values that hold it (every assignment
/// and every φ created for it; several per component for vectors), or the
/// `alloca` that stores it. Used to show a variable's shape at its
/// declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: SmolStr,
    /// The name in the declarator (or the parameter).
    pub span: Span,
    pub node: NodeId,
    pub values: Vec<ValueId>,
    /// True when the variable lives in memory (`values` holds its alloca).
    pub in_memory: bool,
    pub is_param: bool,
    /// The block the declaration is in (`None` once that block is gone):
    /// the assumption-aware analysis rewrites the values of variables
    /// declared inside a `sub_group_all` region.
    pub block: Option<BlockId>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: SmolStr,
    pub span: Span,
    pub params: Vec<Param>,
    pub blocks: Vec<Block>,
    pub insts: Vec<Inst>,
    pub values: Vec<Value>,
    pub globals: Vec<Global>,
    /// Kernel-scope `__local` variables (`ValueDef::Local`).
    pub locals: Vec<LocalVar>,
    pub vars: Vec<Var>,
    pub entry: BlockId,
    /// Results of signed integer `+`, `-`, `*` in the source: their overflow
    /// is undefined in OpenCL C, so reasoning may assume it does not happen
    /// (LLVM's `nsw`). Printed as `add nsw`. The interpreter wraps; the
    /// code generator sign-extends such values in 64 bits (docs/codegen.md,
    /// "Signed index arithmetic in 64 bits").
    pub nsw: std::collections::BTreeSet<ValueId>,
    /// Latches of loops that run once per lane (lane serialization,
    /// `vectorize/serialize.rs`): each lane's trip count is its own and
    /// data-dependent, so the code generator asks LLVM not to unroll them
    /// at run time (docs/codegen.md, "Serialized loops without run-time
    /// unrolling").
    pub serial_latches: std::collections::BTreeSet<BlockId>,
}

impl Function {
    pub fn new(name: impl Into<SmolStr>, span: Span) -> Function {
        Function {
            name: name.into(),
            span,
            params: Vec::new(),
            blocks: Vec::new(),
            insts: Vec::new(),
            values: Vec::new(),
            globals: Vec::new(),
            locals: Vec::new(),
            vars: Vec::new(),
            entry: BlockId(0),
            nsw: Default::default(),
            serial_latches: Default::default(),
        }
    }

    pub fn inst(&self, id: InstId) -> &Inst {
        &self.insts[id.index()]
    }

    pub fn inst_mut(&mut self, id: InstId) -> &mut Inst {
        &mut self.insts[id.index()]
    }

    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.index()]
    }

    pub fn block_mut(&mut self, id: BlockId) -> &mut Block {
        &mut self.blocks[id.index()]
    }

    pub fn value(&self, id: ValueId) -> &Value {
        &self.values[id.index()]
    }

    pub fn ty(&self, v: ValueId) -> Ty {
        self.values[v.index()].ty
    }

    pub fn block_ids(&self) -> impl Iterator<Item = BlockId> + '_ {
        (0..self.blocks.len() as u32).map(BlockId)
    }

    /// The constant a value is, if it is one.
    pub fn as_const(&self, v: ValueId) -> Option<Const> {
        match self.values[v.index()].def {
            ValueDef::Const(c) => Some(c),
            _ => None,
        }
    }

    /// `v` is `1 << k` (maybe zero-extended to a wider type): the shift
    /// amount `k` and the width of the shift's type, which masks `k`. A
    /// division or remainder by it is a shift or a mask: the back end emits
    /// it so, and the report does not call it a per-lane division.
    pub fn one_shifted(&self, v: ValueId) -> Option<(ValueId, u32)> {
        match self.inst(self.def_inst(v)?).kind {
            InstKind::Bin {
                op: BinOp::Shl,
                lhs,
                rhs,
            } => {
                let bits = self.ty(v).bits();
                match self.as_const(lhs)? {
                    Const::Int(c, _) if bits >= 2 && truncate(c, bits) == 1 => Some((rhs, bits)),
                    _ => None,
                }
            }
            InstKind::Cast {
                op: CastOp::ZExt,
                value,
            } if self.ty(value).bits() <= self.ty(v).bits() => self.one_shifted(value),
            _ => None,
        }
    }

    /// The instruction defining a value, if any.
    pub fn def_inst(&self, v: ValueId) -> Option<InstId> {
        match self.values[v.index()].def {
            ValueDef::Inst(i) => Some(i),
            _ => None,
        }
    }

    /// The terminator of a block (the last instruction), if the block has one.
    pub fn terminator(&self, b: BlockId) -> Option<InstId> {
        let last = *self.blocks[b.index()].insts.last()?;
        self.insts[last.index()]
            .kind
            .is_terminator()
            .then_some(last)
    }

    pub fn successors(&self, b: BlockId) -> Vec<BlockId> {
        match self.terminator(b) {
            Some(t) => self.insts[t.index()].kind.successors(),
            None => Vec::new(),
        }
    }

    /// Predecessors of every block, each listed once per edge, in block order.
    pub fn predecessors(&self) -> Vec<Vec<BlockId>> {
        let mut preds = vec![Vec::new(); self.blocks.len()];
        for b in self.block_ids() {
            for s in self.successors(b) {
                preds[s.index()].push(b);
            }
        }
        preds
    }

    /// The φ instructions at the start of a block.
    pub fn phis(&self, b: BlockId) -> impl Iterator<Item = InstId> + '_ {
        self.blocks[b.index()]
            .insts
            .iter()
            .copied()
            .take_while(|&i| self.insts[i.index()].kind.is_phi())
    }

    /// Users of every value: the instructions that read it (once per
    /// instruction, in instruction order). Block predicates are not included.
    pub fn users(&self) -> Vec<Vec<InstId>> {
        let mut users: Vec<Vec<InstId>> = vec![Vec::new(); self.values.len()];
        for (i, inst) in self.insts.iter().enumerate() {
            let id = InstId(i as u32);
            inst.kind.for_each_operand(|v| {
                let list = &mut users[v.index()];
                if list.last() != Some(&id) {
                    list.push(id);
                }
            });
        }
        users
    }

    // ---- construction -------------------------------------------------

    pub fn add_block(&mut self, label: impl Into<SmolStr>) -> BlockId {
        let id = BlockId(self.blocks.len() as u32);
        self.blocks.push(Block {
            insts: Vec::new(),
            predicate: None,
            label: label.into(),
            unroll: None,
            unroll_at: None,
        });
        id
    }

    pub fn add_param(&mut self, param: Param) -> ValueId {
        let n = self.params.len() as u32;
        let ty = param.ty;
        self.params.push(param);
        self.add_value(ValueDef::Param(n), ty)
    }

    pub fn add_global(&mut self, global: Global) -> ValueId {
        let n = self.globals.len() as u32;
        self.globals.push(global);
        self.add_value(ValueDef::Global(n), Ty::Ptr(AddressSpace::Constant))
    }

    pub fn add_local(&mut self, local: LocalVar) -> ValueId {
        let n = self.locals.len() as u32;
        self.locals.push(local);
        self.add_value(ValueDef::Local(n), Ty::Ptr(AddressSpace::Local))
    }

    /// True when the kernel uses work-group features that need all
    /// work-items of a group together (barriers, collectives) or memory
    /// shared by them (`__local` variables or arguments, atomics).
    pub fn uses_work_group_features(&self) -> bool {
        !self.locals.is_empty()
            || self
                .params
                .iter()
                .any(|p| p.ty == Ty::Ptr(AddressSpace::Local))
            || self.insts.iter().any(|i| {
                matches!(
                    i.kind,
                    InstKind::Barrier { .. } | InstKind::Atomic { .. } | InstKind::WorkGroup { .. }
                )
            })
    }

    /// A constant value. Each call makes a new value id (constants are not
    /// interned; compare with [`Function::as_const`]).
    pub fn add_const(&mut self, c: Const) -> ValueId {
        self.add_value(ValueDef::Const(c), c.ty())
    }

    pub fn const_int(&mut self, v: i64, ty: Ty) -> ValueId {
        self.add_const(Const::int(v, ty))
    }

    fn add_value(&mut self, def: ValueDef, ty: Ty) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(Value { def, ty });
        id
    }

    /// Creates an instruction (not yet placed in any block's list; see
    /// [`Function::append`] and [`Function::insert`]). Returns the
    /// instruction and its result value (none for `Void`).
    pub fn create_inst(
        &mut self,
        block: BlockId,
        kind: InstKind,
        ty: Ty,
        src: Src,
    ) -> (InstId, Option<ValueId>) {
        let id = InstId(self.insts.len() as u32);
        let result = (ty != Ty::Void).then(|| self.add_value(ValueDef::Inst(id), ty));
        self.insts.push(Inst {
            kind,
            ty,
            block,
            result,
            src,
        });
        (id, result)
    }

    /// Appends an instruction at the end of `block`.
    pub fn append(
        &mut self,
        block: BlockId,
        kind: InstKind,
        ty: Ty,
        src: Src,
    ) -> (InstId, Option<ValueId>) {
        let (id, v) = self.create_inst(block, kind, ty, src);
        self.blocks[block.index()].insts.push(id);
        (id, v)
    }

    /// Inserts an instruction at position `pos` of `block`'s list.
    pub fn insert(
        &mut self,
        block: BlockId,
        pos: usize,
        kind: InstKind,
        ty: Ty,
        src: Src,
    ) -> (InstId, Option<ValueId>) {
        let (id, v) = self.create_inst(block, kind, ty, src);
        let list = &mut self.blocks[block.index()].insts;
        let pos = pos.min(list.len());
        list.insert(pos, id);
        (id, v)
    }

    /// Inserts a φ at the start of `block` (after the existing φs).
    pub fn add_phi(
        &mut self,
        block: BlockId,
        ty: Ty,
        incoming: Vec<(BlockId, ValueId)>,
        src: Src,
    ) -> (InstId, ValueId) {
        let pos = self.phis(block).count();
        let (id, v) = self.insert(block, pos, InstKind::Phi { incoming }, ty, src);
        // A φ always has a value: its type is never Void.
        (id, v.unwrap_or(ValueId(u32::MAX)))
    }

    /// Replaces every use of `from` (operands and block predicates) by `to`.
    pub fn replace_all_uses(&mut self, from: ValueId, to: ValueId) {
        for inst in &mut self.insts {
            inst.kind.for_each_operand_mut(|v| {
                if *v == from {
                    *v = to
                }
            });
        }
        for b in &mut self.blocks {
            if b.predicate == Some(from) {
                b.predicate = Some(to);
            }
        }
        for var in &mut self.vars {
            for v in &mut var.values {
                if *v == from {
                    *v = to;
                }
            }
        }
    }

    /// Removes an instruction from its block's list (the arena keeps it, so
    /// ids stay stable; a removed instruction is in no block).
    pub fn remove_inst(&mut self, id: InstId) {
        let b = self.insts[id.index()].block;
        self.blocks[b.index()].insts.retain(|&i| i != id);
    }

    /// True when the instruction is still placed in its block.
    pub fn is_placed(&self, id: InstId) -> bool {
        let b = self.insts[id.index()].block;
        self.blocks
            .get(b.index())
            .is_some_and(|blk| blk.insts.contains(&id))
    }
}
