//! Diagnostics: stable codes, severities, labelled spans and notes.
//!
//! Every code of the project is declared here, once, so that the catalogue in
//! `docs/diagnostics.md` can be checked against it by a test. Later stages
//! (the vectorizer's performance diagnostics) use the same type.

use crate::source::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Info,
    Hint,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
            Severity::Hint => "hint",
        }
    }
}

macro_rules! codes {
    ($($variant:ident = $code:literal, $sev:ident, $title:literal;)*) => {
        /// A stable diagnostic code (`L0003`). See `docs/diagnostics.md`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code { $($variant,)* }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            /// The code as users see it, e.g. `"L0003"`.
            pub fn as_str(self) -> &'static str {
                match self { $(Code::$variant => $code,)* }
            }

            /// Severity unless configured otherwise.
            pub fn default_severity(self) -> Severity {
                match self { $(Code::$variant => Severity::$sev,)* }
            }

            /// A one-line title for catalogues and SARIF rule descriptions.
            pub fn title(self) -> &'static str {
                match self { $(Code::$variant => $title,)* }
            }

            // Not `FromStr`: an unknown code is `None`, not an error value.
            #[allow(clippy::should_implement_trait)]
            pub fn from_str(s: &str) -> Option<Code> {
                match s { $($code => Some(Code::$variant),)* _ => None }
            }
        }
    };
}

codes! {
    // Syntax and lexical errors.
    Syntax = "L0001", Error, "syntax error";
    InvalidToken = "L0002", Error, "invalid token";
    Undeclared = "L0003", Error, "use of undeclared identifier";
    TypeMismatch = "L0004", Error, "mismatched or invalid operand types";
    Redefinition = "L0005", Error, "redefinition";
    ArgCount = "L0006", Error, "wrong number of arguments";
    NoOverload = "L0007", Error, "no matching overload of a built-in function";
    NotAssignable = "L0008", Error, "expression is not assignable";
    NoMember = "L0009", Error, "no such field or invalid swizzle";
    IncludeNotFound = "L0010", Error, "included file not found";
    BadDirective = "L0011", Error, "malformed preprocessor directive";
    UnbalancedConditional = "L0012", Error, "unbalanced `#if`/`#endif`";
    ErrorDirective = "L0013", Error, "`#error` directive";
    MacroCall = "L0014", Error, "invalid macro invocation";
    InvalidCast = "L0015", Error, "invalid conversion";
    AddressSpace = "L0016", Error, "invalid address space";
    KernelSignature = "L0017", Error, "invalid kernel signature";
    MisplacedJump = "L0018", Error, "`break`, `continue`, `case` or `default` out of place";
    BadReturn = "L0019", Error, "return value does not match the function";
    NotCallable = "L0020", Error, "called object is not a function";
    Recursion = "L0021", Error, "recursive call";
    TooDeep = "L0022", Error, "nesting too deep";
    NotConstant = "L0023", Error, "integer constant expression required";
    InvalidDeclaration = "L0024", Error, "invalid declaration";
    // Front-end warnings.
    MacroRedefined = "L0100", Warning, "macro redefined";
    UnknownPragma = "L0101", Hint, "unknown `#pragma` ignored";
    NotUtf8 = "L0102", Hint, "source is not UTF-8: bytes read as Latin-1";
    UnrollNotHonoured = "L0103", Warning, "loop not unrolled as its pragma asks";
    PrintfFormat = "L0110", Warning, "`printf` format does not match its arguments";
    // Performance: how the kernel will run on SIMD lanes (the vectorizer's findings).
    DivergentLoop = "L0201", Warning, "divergent loop";
    Gather = "L0202", Warning, "gather: load from lane-varying addresses";
    Scatter = "L0203", Warning, "scatter: store to lane-varying addresses";
    StridedAccess = "L0204", Warning, "strided memory access";
    VaryingDivision = "L0205", Warning, "integer division or remainder on lane-varying values";
    PerLanePrivateArray = "L0206", Warning, "private object made per-lane";
    SameAddressStore = "L0207", Warning, "all lanes store to one address";
    AtomicSameAddress = "L0208", Warning, "atomic on one address from all lanes";
    AtomicVaryingAddress = "L0209", Warning, "atomic on lane-varying addresses";
    // Information about SIMD execution.
    DivergentBranch = "L0300", Info, "divergent branch";
    FastPath = "L0301", Info, "fast path on an inferred precondition";
    NoPrecondition = "L0302", Hint, "no precondition found within the budget";
    // Correctness across the work-group.
    BarrierDivergence = "L0401", Error, "barrier not reached by every work-item of the work-group";
    // Features of OpenCL C that lanes does not compile yet (DESIGN.md §1, "later").
    // L0902 (`__local` memory), L0903 (atomics) and L0917 (work-group
    // collectives) are retired: `lanes build` compiles them.
    UnsupportedBarrier = "L0901", Error, "unsupported: sub-group barriers";
    UnsupportedImages = "L0904", Error, "unsupported: images and samplers";
    UnsupportedPrintf = "L0905", Error, "unsupported: `printf`";
    UnsupportedHalf = "L0906", Error, "unsupported: `half` arithmetic";
    UnsupportedGoto = "L0907", Error, "unsupported: `goto` and labels";
    UnsupportedFunctionPointer = "L0908", Error, "unsupported: function pointers";
    UnsupportedDeviceEnqueue = "L0909", Error, "unsupported: pipes, blocks and device-side enqueue";
    UnsupportedProgramScopeVariable = "L0910", Error, "unsupported: program-scope variables outside `__constant`";
    UnsupportedVariadic = "L0913", Error, "unsupported: variadic functions";
    UnsupportedVla = "L0914", Error, "unsupported: variable-length arrays";
    UnsupportedAsm = "L0915", Error, "unsupported: inline assembly";
    UnsupportedBitField = "L0916", Error, "unsupported: bit-fields";
    UnsupportedString = "L0918", Error, "unsupported: string literals";
    UnsupportedGenericAddressSpace = "L0919", Error, "unsupported: the generic address space";
    UnsupportedByVectorizer = "L0920", Error, "unsupported by the vectorizer";
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A span with a message, pointing at source text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// One finding: a code, a severity, the primary location and message, and any
/// secondary labels (reason chains, earlier definitions, macro expansions) and notes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// Text shown under the caret of the primary span (may be empty).
    pub label: String,
    pub related: Vec<Label>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.default_severity(),
            message: message.into(),
            span,
            label: String::new(),
            related: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Self {
        self.related.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// An accumulator of diagnostics.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    pub items: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    pub fn error(&mut self, code: Code, span: Span, message: impl Into<String>) -> &mut Diagnostic {
        self.items.push(Diagnostic::new(code, span, message));
        self.items.last_mut().unwrap()
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(Diagnostic::is_error)
    }

    pub fn extend(&mut self, other: impl IntoIterator<Item = Diagnostic>) {
        self.items.extend(other);
    }
}
