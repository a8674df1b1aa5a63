//! The typed, resolved tree (HIR) produced by [`crate::sema::check`].
//!
//! This is what the vectorizer lowers to its SSA IR, so everything is explicit:
//! every name is resolved to a [`LocalId`], [`GlobalId`] or [`FuncId`], every
//! expression carries its [`Type`], every implicit conversion of C and OpenCL
//! is a [`ExprKind::Convert`] node, and every built-in call is resolved to one
//! concrete overload ([`BuiltinCall`]). Every expression, statement and local
//! keeps the [`NodeId`] and [`Span`] of the AST node it came from, so analyses
//! can report at the user's text.
//!
//! Conventions a consumer can rely on (when checking reported no error):
//! - Operands of [`ExprKind::Binary`] already have the common type (for
//!   shifts: the right operand has the left operand's type, splatted if the
//!   left is a vector). Comparisons yield `int` for scalars and the signed
//!   integer vector of the operands' element size for vectors (-1 / 0).
//! - Conditions of `if`/loops/`?:`/`&&`/`||`/`!` on scalars are `bool`
//!   (an explicit [`ConvertKind::ToBool`]).
//! - Arrays used as values are decayed explicitly ([`ConvertKind::ArrayDecay`]).
//! - Indices of [`ExprKind::Index`] and offsets of [`ExprKind::PtrAdd`] are `long`.

use smol_str::SmolStr;

use crate::ast::{AddressSpace, NodeId};
use crate::builtins::BuiltinCall;
use crate::source::Span;
use crate::types::{Scalar, StructId, Type};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GlobalId(pub u32);

/// A checked translation unit.
#[derive(Clone, Debug, Default)]
pub struct Unit {
    /// Indexed by [`FuncId`]. A prototype and its later definition are one entry.
    /// Shared: a unit checked again after an edit
    /// ([`crate::sema::check_function_again`]) keeps the functions the edit
    /// did not move without copying them, and those it moved with the edit
    /// pending ([`crate::moved::Pending`]).
    pub functions: Vec<crate::moved::Pending<Function>>,
    /// Indexed by [`StructId`].
    pub structs: Vec<StructDef>,
    /// Program-scope (and kernel-scope) `__constant` variables, indexed by [`GlobalId`].
    pub globals: Vec<Global>,
    /// Where `#pragma OPENCL FP_CONTRACT OFF` holds ([`crate::fp_contract`]).
    pub fp_contract_off: Vec<Span>,
    /// `#pragma unroll` and its kin, by the loop they precede
    /// ([`crate::loop_pragma`]).
    pub loop_hints: Vec<LoopHint>,
}

/// How a loop asks to be unrolled (clang's loop hints, given to LLVM's
/// unroller as loop metadata).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unroll {
    /// `#pragma unroll`, `#pragma clang loop unroll(enable)`: fully when the
    /// trip count is a known constant, else as the unroller sees fit.
    Enable,
    /// `#pragma clang loop unroll(full)`.
    Full,
    /// `#pragma unroll N` (N > 1), `#pragma clang loop unroll_count(N)`.
    Count(u32),
    /// `#pragma nounroll`, `#pragma unroll 1`, `#pragma clang loop unroll(disable)`.
    Disable,
}

/// An unroll hint and the `for`, `while` or `do` keyword of its loop.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopHint {
    pub span: Span,
    pub unroll: Unroll,
}

impl Unit {
    pub fn function(&self, id: FuncId) -> &Function {
        &self.functions[id.0 as usize]
    }

    pub fn struct_def(&self, id: StructId) -> &StructDef {
        &self.structs[id.0 as usize]
    }

    pub fn global(&self, id: GlobalId) -> &Global {
        &self.globals[id.0 as usize]
    }

    /// Whether the expression at `span` may contract a multiply and an add
    /// into one fused operation (OpenCL C's `FP_CONTRACT`, on by default).
    pub fn contracts(&self, span: Span) -> bool {
        !self
            .fp_contract_off
            .iter()
            .any(|r| r.file == span.file && r.start <= span.start && span.start < r.end)
    }

    /// The unroll hint of the loop statement at `span`, if a pragma asks.
    pub fn unroll(&self, span: Span) -> Option<Unroll> {
        self.loop_hints
            .iter()
            .find(|h| h.span.file == span.file && h.span.start == span.start)
            .map(|h| h.unroll)
    }

    /// The kernels (`__kernel` functions with a body), in source order.
    pub fn kernels(&self) -> Vec<FuncId> {
        self.functions
            .iter()
            .enumerate()
            .filter(|(_, f)| f.unmoved().is_kernel && f.unmoved().body.is_some())
            .map(|(i, _)| FuncId(i as u32))
            .collect()
    }

    pub fn function_by_name(&self, name: &str) -> Option<FuncId> {
        self.functions
            .iter()
            .position(|f| f.unmoved().name == name)
            .map(|i| FuncId(i as u32))
    }

    /// Size in bytes of a type (OpenCL/C layout: 3-vectors take 4 elements,
    /// pointers are 8 bytes). `None` for `void`, opaque and error types.
    pub fn size_of(&self, ty: &Type) -> Option<u64> {
        layout_of(ty, &self.structs).map(|(s, _)| s)
    }

    pub fn align_of(&self, ty: &Type) -> Option<u64> {
        layout_of(ty, &self.structs).map(|(_, a)| a)
    }

    /// The type as the user would spell it (`struct S`, `__global float *`).
    pub fn type_name(&self, ty: &Type) -> String {
        type_name(ty, &self.structs)
    }
}

/// Size and alignment of a type, given the struct table.
pub fn layout_of(ty: &Type, structs: &[StructDef]) -> Option<(u64, u64)> {
    match ty {
        Type::Scalar(s) => Some((s.size() as u64, s.size() as u64)),
        Type::Vector(s, n) => {
            // 3-component vectors are laid out (and aligned) as 4.
            let n = if *n == 3 { 4 } else { *n as u64 };
            let size = s.size() as u64 * n;
            Some((size, size))
        }
        Type::Pointer(_) => Some((8, 8)),
        Type::Array(elem, n) => {
            let (s, a) = layout_of(elem, structs)?;
            Some((s.checked_mul(*n)?, a))
        }
        Type::Struct(id) => {
            let def = structs.get(id.0 as usize)?;
            def.complete.then_some((def.size, def.align))
        }
        // An event is a handle the size of a pointer.
        Type::Opaque(crate::types::Opaque::Event, _) => Some((8, 8)),
        // A sampler is its `CLK_*` bits, as in clang's initializers.
        Type::Opaque(crate::types::Opaque::Sampler, _) => Some((4, 4)),
        Type::Void | Type::Opaque(..) | Type::Error => None,
    }
}

/// Formats a type for messages, naming structs by their tag or typedef name.
pub fn type_name(ty: &Type, structs: &[StructDef]) -> String {
    match ty {
        Type::Struct(id) => match structs.get(id.0 as usize) {
            Some(def) if def.is_typedef_name => def.name.to_string(),
            Some(def) => format!("{} {}", def.keyword(), def.name),
            None => "struct <unknown>".to_string(),
        },
        Type::Pointer(p) => {
            let space = match p.space {
                AddressSpace::Private => "",
                s => s.keyword(),
            };
            let c = if p.pointee_const && p.space != AddressSpace::Constant {
                "const "
            } else {
                ""
            };
            let inner = type_name(&p.pointee, structs);
            if space.is_empty() {
                format!("{c}{inner} *")
            } else {
                format!("{space} {c}{inner} *")
            }
        }
        Type::Array(t, n) => format!("{}[{n}]", type_name(t, structs)),
        other => other.to_string(),
    }
}

/// A struct definition with its C layout.
#[derive(Clone, Debug, PartialEq)]
pub struct StructDef {
    /// The tag, or the typedef name of an anonymous struct, or `<anonymous>`.
    pub name: SmolStr,
    /// True when `name` is a typedef name (printed without `struct `).
    pub is_typedef_name: bool,
    pub span: Span,
    pub fields: Vec<Field>,
    pub size: u64,
    pub align: u64,
    /// False for a struct only declared (`struct S;`) and never defined.
    pub complete: bool,
    /// A union: every field is at offset 0 (one memory object, so reading
    /// a member other than the one last written reinterprets its bytes, as
    /// in C).
    pub is_union: bool,
}

impl StructDef {
    /// `struct` or `union`.
    pub fn keyword(&self) -> &'static str {
        if self.is_union {
            "union"
        } else {
            "struct"
        }
    }

    pub fn field_index(&self, name: &str) -> Option<usize> {
        self.fields.iter().position(|f| f.name == name)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: SmolStr,
    pub ty: Type,
    /// Byte offset from the start of the struct.
    pub offset: u64,
    pub span: Span,
    pub is_const: bool,
}

/// A `__constant` variable with its constant-folded initializer.
#[derive(Clone, Debug, PartialEq)]
pub struct Global {
    pub name: SmolStr,
    pub ty: Type,
    pub span: Span,
    pub name_span: Span,
    pub node: NodeId,
    /// `Constant` for every variable of a program without errors.
    pub space: AddressSpace,
    pub is_const: bool,
    /// The folded value (zero-filled like C). `None` only after an error.
    pub init: Option<ConstInit>,
}

/// A compile-time scalar value. Integers are kept as the two's-complement
/// bits of the value in its type, sign- or zero-extended to 64 bits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstValue {
    Int(u64, Scalar),
    Float(f64, Scalar),
}

impl ConstValue {
    pub fn scalar(self) -> Scalar {
        match self {
            ConstValue::Int(_, s) | ConstValue::Float(_, s) => s,
        }
    }

    /// The value as a signed integer (floats truncate toward zero).
    pub fn as_i64(self) -> i64 {
        match self {
            ConstValue::Int(v, _) => v as i64,
            ConstValue::Float(f, _) => f as i64,
        }
    }

    pub fn is_zero(self) -> bool {
        match self {
            ConstValue::Int(v, _) => v == 0,
            ConstValue::Float(f, _) => f == 0.0,
        }
    }
}

/// A folded initializer of a `__constant` variable. Aggregates list every
/// element or field in order, with zeros where the source gave none.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstInit {
    Scalar(ConstValue),
    Vector(Vec<ConstValue>),
    Array(Vec<ConstInit>),
    Struct(Vec<ConstInit>),
    /// All zero bytes: an element the source did not initialize.
    Zero,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct FunctionAttrs {
    /// `__attribute__((reqd_work_group_size(x, y, z)))`, folded.
    pub reqd_work_group_size: Option<[u32; 3]>,
    /// `__attribute__((work_group_size_hint(x, y, z)))`, folded.
    pub work_group_size_hint: Option<[u32; 3]>,
    /// `__attribute__((vec_type_hint(T)))`.
    pub vec_type_hint: Option<crate::types::Type>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: SmolStr,
    pub name_span: Span,
    /// The whole definition (or the prototype when there is no definition).
    pub span: Span,
    pub node: NodeId,
    pub is_kernel: bool,
    pub ret: Type,
    /// The parameters, in order, as entries of `locals`.
    pub params: Vec<LocalId>,
    /// Every parameter and local variable, indexed by [`LocalId`].
    pub locals: Vec<Local>,
    /// `None` for a function that is only declared.
    pub body: Option<Block>,
    /// User functions called from the body, each once, in order of first call.
    pub callees: Vec<FuncId>,
    pub attrs: FunctionAttrs,
}

impl Function {
    pub fn local(&self, id: LocalId) -> &Local {
        &self.locals[id.0 as usize]
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    pub name: SmolStr,
    pub ty: Type,
    /// The declarator (`*p = q`), or the parameter.
    pub span: Span,
    pub name_span: Span,
    pub node: NodeId,
    pub is_const: bool,
    pub is_param: bool,
    /// Where the object lives: `Private`, or `Local` for a kernel-scope
    /// `__local` variable (one object per work-group).
    pub space: AddressSpace,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub span: Span,
    pub node: NodeId,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    pub node: NodeId,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Block(Block),
    /// A local variable comes into scope here; `init` runs if present. A
    /// declaration without initializer leaves the variable undefined (C).
    Decl {
        local: LocalId,
        init: Option<Init>,
    },
    Expr(Expr),
    If {
        cond: Expr,
        then: Box<Stmt>,
        els: Option<Box<Stmt>>,
    },
    While {
        cond: Expr,
        body: Box<Stmt>,
    },
    DoWhile {
        body: Box<Stmt>,
        cond: Expr,
    },
    For {
        init: Vec<Stmt>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    /// `cond` is integer-promoted (`int`, `uint`, `long` or `ulong`). The body
    /// contains [`StmtKind::Case`]/[`StmtKind::Default`] marker statements;
    /// control jumps to the matching marker and falls through from there
    /// (C semantics), leaving at `break`.
    Switch {
        cond: Expr,
        body: Block,
    },
    /// A `case` label: the value converted to the switch's promoted type
    /// (two's complement bits as `i64`). Followed by the labelled statement.
    /// Labels are usually direct children of the switch body, but C allows
    /// them inside nested blocks and statements of the body too.
    Case(i64),
    Default,
    Break,
    Continue,
    Return(Option<Expr>),
}

/// A checked initializer.
#[derive(Clone, Debug, PartialEq)]
pub enum Init {
    /// A single expression, already converted to the variable's type.
    Expr(Expr),
    /// A brace list for an array, struct or vector. `elems` has exactly one
    /// entry per element / field / component of the aggregate, in order;
    /// `None` means zero-fill (C's rule for omitted initializers).
    List {
        ty: Type,
        elems: Vec<Option<Init>>,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
    pub node: NodeId,
    /// `Some` when the expression designates an object (an lvalue).
    pub place: Option<Place>,
}

/// Where an lvalue lives and whether it may be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub space: AddressSpace,
    pub is_const: bool,
}

impl Expr {
    pub fn is_lvalue(&self) -> bool {
        self.place.is_some()
    }

    pub fn is_error(&self) -> bool {
        self.ty.is_error()
    }

    pub(crate) fn error(span: Span, node: NodeId) -> Expr {
        Expr {
            kind: ExprKind::Error,
            ty: Type::Error,
            span,
            node,
            place: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// Arithmetic negation (scalars or vectors).
    Neg,
    /// Bitwise complement (integers).
    BitNot,
    /// Logical not: on a `bool` operand gives `int` 0/1; on a vector gives
    /// the signed integer vector -1/0 (component-wise `x == 0`).
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    /// Component-wise `&&`/`||` on vectors (both sides evaluated; -1/0 result).
    VecAnd,
    VecOr,
}

impl BinaryOp {
    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Lt | Gt | Le | Ge | Eq | Ne)
    }

    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            VecAnd => "&&",
            VecOr => "||",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LogicalOp {
    And,
    Or,
}

/// Every conversion, implicit or explicit. Arithmetic kinds also apply
/// component-wise between vectors of the same width (used for shift counts
/// and `select`-style conditions only; the language forbids implicit vector
/// conversions).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConvertKind {
    /// Integer to integer of another size or signedness (truncate / extend).
    IntToInt,
    IntToFloat,
    /// Float to integer, truncating toward zero.
    FloatToInt,
    FloatToFloat,
    /// Scalar or pointer to `bool` (`x != 0`, `p != NULL`).
    ToBool,
    /// `bool` to an integer or float (0 or 1).
    FromBool,
    /// Scalar (already of the element type) to every component of a vector.
    Splat,
    /// Array lvalue to a pointer to its first element, same address space.
    ArrayDecay,
    /// Pointer to pointer in the same address space (pointee type or
    /// const-ness changes).
    PointerCast,
    /// The null pointer constant to a pointer type.
    NullToPointer,
    /// Pointer to integer (explicit casts only).
    PointerToInt,
    /// Integer to pointer (explicit casts only).
    IntToPointer,
    /// `(void)e`: evaluate and discard.
    ToVoid,
    /// A `uint` (the `CLK_*` bits) to a `sampler_t`, in the initializer of
    /// a sampler or as the sampler argument of a read.
    IntToSampler,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer constant: the two's-complement bits of the value in `ty`,
    /// sign- or zero-extended to 64 bits. Also the value of `sizeof`,
    /// `vec_step`, `_Alignof` and character literals.
    Int(u64),
    Float(f64),
    Local(LocalId),
    Global(GlobalId),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `p + i` / `p - i` (`negate` for `-`): `ptr` is a pointer rvalue,
    /// `offset` is `long`, counted in elements.
    PtrAdd {
        ptr: Box<Expr>,
        offset: Box<Expr>,
        negate: bool,
    },
    /// `p - q` of the same pointee type: a `long` (`ptrdiff_t`) element count.
    PtrDiff {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// Short-circuit `&&`/`||` on scalars: both operands `bool`, result `int`.
    Logical {
        op: LogicalOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `lhs = rhs`, `rhs` converted to the type of `lhs`; the value is the
    /// stored value.
    Assign {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `lhs op= rhs`: `lhs = (type of lhs)((computation)lhs op rhs)`. `rhs`
    /// already has the type the operation needs: `computation` for
    /// arithmetic, the (splatted) left type for shifts, `long` for pointer
    /// `+=`/`-=` (where `computation` is the pointer type).
    CompoundAssign {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
        computation: Type,
    },
    /// `++x`, `x++`, `--x`, `x--` on an arithmetic or pointer lvalue.
    IncDec {
        pre: bool,
        increment: bool,
        operand: Box<Expr>,
    },
    /// `c ? a : b` with a scalar condition (converted to `bool`); only the
    /// chosen operand is evaluated.
    Conditional {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },
    /// `c ? a : b` with a vector condition (OpenCL): component-wise, both
    /// operands evaluated, a component of `then` is chosen where the most
    /// significant bit of the condition component is set (like `select`).
    /// `cond` is an integer vector with the element size of the result.
    Select {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },
    /// A call of a user function; arguments converted to the parameter types.
    Call {
        func: FuncId,
        args: Vec<Expr>,
    },
    /// A built-in function, resolved to one overload; arguments converted
    /// to its parameter types.
    Builtin {
        call: Box<BuiltinCall>,
        args: Vec<Expr>,
    },
    Convert {
        kind: ConvertKind,
        expr: Box<Expr>,
    },
    /// `base[index]`: `base` is an array lvalue, a pointer rvalue, or a
    /// vector (component access); `index` is `long`.
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// A struct field. For `p->f` the base is an explicit `Deref`.
    Member {
        base: Box<Expr>,
        field: u32,
    },
    /// Vector components (0-based) taken from `base`, in order; a single
    /// component gives a scalar.
    Swizzle {
        base: Box<Expr>,
        components: Vec<u8>,
    },
    /// `(float4)(a.xy, b, c)`: the components of `elems` (scalars of the
    /// element type or vectors of it), concatenated in order. The total
    /// count equals the width of `ty`.
    VectorConstruct {
        elems: Vec<Expr>,
    },
    /// A compound literal: the unnamed private object `local`, initialized
    /// by `init` each time the expression is evaluated; an lvalue (an array
    /// one decays like any array).
    CompoundLiteral {
        local: LocalId,
        init: Box<Init>,
    },
    Deref(Box<Expr>),
    AddrOf(Box<Expr>),
    Comma {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// Something that failed to check (already reported).
    Error,
}
