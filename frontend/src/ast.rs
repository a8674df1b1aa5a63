//! The syntax tree produced by the parser: everything the user wrote, with spans.
//!
//! Every item, statement and expression has a [`NodeId`], unique within the
//! translation unit, so later stages can attach facts (types, shapes) to nodes
//! without changing the tree. Spans cover contiguous text of one file (see
//! [`crate::lexer::Token::span`]).

use smol_str::SmolStr;

use crate::source::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId(pub u32);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub name: SmolStr,
    pub span: Span,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct TranslationUnit {
    /// Shared: a unit made after an edit ([`crate::reparse`]) keeps the
    /// items before the edited one without copying them, and those after it
    /// with the edit pending ([`crate::moved::Pending`]).
    pub items: Vec<crate::moved::Pending<Item>>,
    /// One more than the largest [`NodeId`] in the tree.
    pub node_count: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub id: NodeId,
    pub kind: ItemKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ItemKind {
    /// A function definition or prototype (`body` is `None` for a prototype).
    Function(Function),
    /// Any other top-level declaration: `typedef ...;`, `struct S {...};`,
    /// `__constant float k[3] = {...};`.
    Declaration(Declaration),
    /// Text the parser could not make sense of; already reported.
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Return type, storage and function specifiers (`__kernel`, `inline`, `static`).
    pub spec: DeclSpec,
    pub name: Ident,
    /// Derived types applied to the return type (`float *f(...)` has one pointer).
    pub return_derived: Vec<Derived>,
    pub params: Vec<Param>,
    /// `(...)` or `(int a, ...)`.
    pub variadic: bool,
    pub body: Option<Block>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub id: NodeId,
    pub spec: DeclSpec,
    pub declarator: Declarator,
    pub span: Span,
}

/// Declaration specifiers: the base type with its qualifiers, address space,
/// storage class and function specifiers.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclSpec {
    pub base: BaseType,
    pub base_span: Span,
    pub quals: Qualifiers,
    pub address_space: Option<(AddressSpace, Span)>,
    pub storage: Storage,
    pub kernel: Option<Span>,
    pub inline: bool,
    pub attributes: Vec<Attribute>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Qualifiers {
    pub is_const: bool,
    pub is_volatile: bool,
    pub is_restrict: bool,
    /// An image access qualifier (`__read_only`, ...) and where it is written.
    pub access: Option<(crate::types::ImageAccess, Span)>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Storage {
    #[default]
    None,
    Typedef,
    Static,
    Extern,
}

/// Address-space qualifiers as written (`__global`/`global`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AddressSpace {
    Private,
    Global,
    Constant,
    Local,
    Generic,
}

impl AddressSpace {
    pub fn keyword(self) -> &'static str {
        match self {
            AddressSpace::Private => "__private",
            AddressSpace::Global => "__global",
            AddressSpace::Constant => "__constant",
            AddressSpace::Local => "__local",
            AddressSpace::Generic => "__generic",
        }
    }
}

/// `__attribute__((name(args)))`; arguments are kept as the span of their
/// text, and for the attributes lanes evaluates also parsed from the
/// preprocessed tokens (so macros in them are expanded).
#[derive(Clone, Debug, PartialEq)]
pub struct Attribute {
    pub name: Ident,
    pub args: Option<Span>,
    /// The integer arguments of `reqd_work_group_size`,
    /// `work_group_size_hint` and `aligned`, as expressions.
    pub exprs: Vec<Expr>,
    /// The type argument of `vec_type_hint`.
    pub type_arg: Option<Box<TypeName>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum BaseType {
    /// A built-in type name, normalized to its OpenCL spelling: `void`, `bool`,
    /// `uint` (for `unsigned int` and `unsigned`), `float4`, `size_t`,
    /// `image2d_t`, `half`, ...
    Builtin(SmolStr),
    /// A name introduced by `typedef`.
    Typedef(Ident),
    Struct(StructType),
    /// `union`; parsed like a struct, rejected later (unsupported).
    Union(StructType),
    /// `enum`; parsed, rejected later (unsupported).
    Enum(EnumType),
    /// No type could be parsed; already reported.
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct StructType {
    pub tag: Option<Ident>,
    /// `Some` when this is a definition (`struct S { ... }`).
    pub fields: Option<Vec<FieldDecl>>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FieldDecl {
    pub id: NodeId,
    pub spec: DeclSpec,
    pub declarator: Declarator,
    /// `: width` of a bit-field (unsupported).
    pub bit_width: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct EnumType {
    pub tag: Option<Ident>,
    pub variants: Option<Vec<(Ident, Option<Expr>)>>,
    pub span: Span,
}

/// A declarator: the declared name (absent in abstract declarators such as
/// type names in casts) and the derived types applied to the base type, from
/// the base outwards. `float *a[3]` gives `[Pointer, Array(3)]`: the base
/// `float`, a pointer to it, then an array of three such pointers.
#[derive(Clone, Debug, PartialEq)]
pub struct Declarator {
    pub name: Option<Ident>,
    pub derived: Vec<Derived>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Derived {
    Pointer {
        quals: Qualifiers,
        address_space: Option<AddressSpace>,
        span: Span,
    },
    /// `[N]` or `[]` (size from the initializer).
    Array { size: Option<Box<Expr>>, span: Span },
    /// A function declarator inside a declaration, i.e. a function pointer or
    /// a function returning a function (unsupported).
    Function {
        params: Vec<Param>,
        variadic: bool,
        span: Span,
    },
}

/// A declaration statement or top-level declaration:
/// `const float a = 1, *b;`.
#[derive(Clone, Debug, PartialEq)]
pub struct Declaration {
    pub spec: DeclSpec,
    pub declarators: Vec<InitDeclarator>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct InitDeclarator {
    pub id: NodeId,
    pub declarator: Declarator,
    pub init: Option<Initializer>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Initializer {
    Expr(Expr),
    /// `{ a, .x = b, [2] = c }`
    List {
        items: Vec<(Option<Designator>, Initializer)>,
        span: Span,
    },
}

impl Initializer {
    pub fn span(&self) -> Span {
        match self {
            Initializer::Expr(e) => e.span,
            Initializer::List { span, .. } => *span,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Designator {
    Field(Ident),
    Index(Expr),
}

/// A type in a cast, `sizeof`, or vector literal: `__global float *`.
#[derive(Clone, Debug, PartialEq)]
pub struct TypeName {
    pub spec: DeclSpec,
    pub declarator: Declarator,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    pub id: NodeId,
    pub stmts: Vec<Stmt>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub id: NodeId,
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Block(Block),
    Decl(Declaration),
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
    /// `init` is a declaration or an expression statement.
    For {
        init: Option<Box<Stmt>>,
        cond: Option<Expr>,
        step: Option<Expr>,
        body: Box<Stmt>,
    },
    Switch {
        cond: Expr,
        body: Box<Stmt>,
    },
    Case {
        value: Expr,
        body: Box<Stmt>,
    },
    Default {
        body: Box<Stmt>,
    },
    Break,
    Continue,
    Return(Option<Expr>),
    /// Unsupported; kept so that it can be reported at its place.
    Goto(Ident),
    /// `label: stmt` (only meaningful with `goto`; unsupported).
    Labeled {
        label: Ident,
        body: Box<Stmt>,
    },
    Empty,
    /// A statement the parser could not make sense of; already reported.
    Error,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub id: NodeId,
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntSuffix {
    None,
    U,
    L,
    UL,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatSuffix {
    /// `double` (no suffix)
    None,
    /// `f` / `F`
    F,
    /// `h` / `H` (half)
    H,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// The value is the literal's magnitude (a leading `-` is a unary operator).
    /// `decimal` matters for the type rules: a decimal literal without suffix
    /// never becomes unsigned.
    IntLit {
        value: u64,
        suffix: IntSuffix,
        decimal: bool,
    },
    FloatLit {
        value: f64,
        suffix: FloatSuffix,
    },
    /// `'a'`: an `int` with the character's value.
    CharLit(u32),
    /// String literals are only meaningful for `printf` (unsupported).
    StringLit(SmolStr),
    Ident(Ident),
    /// `(e)`: kept so that spans and code actions see what the user wrote.
    Paren(Box<Expr>),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `a = b` (`op` is `None`) or `a += b` (`op` is `Some(Add)`).
    Assign {
        op: Option<BinaryOp>,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Conditional {
        cond: Box<Expr>,
        then: Box<Expr>,
        els: Box<Expr>,
    },
    Comma {
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Call {
        callee: Box<Expr>,
        args: Vec<Expr>,
    },
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// `base.field` or `base->field` (also vector swizzles: `v.xy`).
    Member {
        base: Box<Expr>,
        field: Ident,
        arrow: bool,
    },
    Cast {
        ty: Box<TypeName>,
        expr: Box<Expr>,
    },
    /// `(float4)(a, b, c, d)`: a cast applied to a parenthesized list of two or
    /// more expressions. For a non-vector type this is a cast of a comma
    /// expression, which the type checker handles.
    VectorLiteral {
        ty: Box<TypeName>,
        elems: Vec<Expr>,
    },
    /// `(struct range){ .lo = a, .hi = b }`, `(float[]){ 0.25f, 0.5f }`: a
    /// C99 compound literal, an unnamed object initialized in place.
    CompoundLiteral {
        ty: Box<TypeName>,
        init: Box<Initializer>,
    },
    SizeofType(Box<TypeName>),
    SizeofExpr(Box<Expr>),
    /// `_Alignof(type)` / `__alignof__(type)`
    AlignofType(Box<TypeName>),
    /// `vec_step(type)`; `vec_step(expr)` is an ordinary call.
    VecStepType(Box<TypeName>),
    /// An expression the parser could not make sense of; already reported.
    Error,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
    /// `*p`
    Deref,
    /// `&x`
    AddrOf,
    PreInc,
    PreDec,
    PostInc,
    PostDec,
}

impl UnaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Plus => "+",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
            UnaryOp::Deref => "*",
            UnaryOp::AddrOf => "&",
            UnaryOp::PreInc | UnaryOp::PostInc => "++",
            UnaryOp::PreDec | UnaryOp::PostDec => "--",
        }
    }
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
    LogicalAnd,
    LogicalOr,
}

impl BinaryOp {
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
            LogicalAnd => "&&",
            LogicalOr => "||",
        }
    }

    pub fn is_comparison(self) -> bool {
        use BinaryOp::*;
        matches!(self, Lt | Gt | Le | Ge | Eq | Ne)
    }

    pub fn is_logical(self) -> bool {
        matches!(self, BinaryOp::LogicalAnd | BinaryOp::LogicalOr)
    }
}
