//! Semantic tokens: every token of the file classified, and variables
//! marked `uniform` or `varying` (lane-varying: contiguous, strided or
//! varying) so that themes can colour what differs across SIMD lanes.

use std::collections::{HashMap, HashSet};

use lanes_db::{Db, File};
use lanes_frontend::lexer::TokenKind;
use lanes_vectorizer::report::ShapeKind;
use logos::Logos;

use super::context::{Ctx, KernelView};
use super::index::{Sym, SymbolIndex};
use super::TextRange;

/// The token types, in legend order (the index is the LSP token type).
pub const TOKEN_TYPES: &[&str] = &[
    "variable",
    "parameter",
    "function",
    "type",
    "macro",
    "keyword",
    "number",
    "string",
    "comment",
];

/// The modifiers, in legend order (bit `i` of [`SemanticToken::modifiers`]).
pub const TOKEN_MODIFIERS: &[&str] = &["uniform", "varying"];

pub const MOD_UNIFORM: u32 = 1;
pub const MOD_VARYING: u32 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TokenType {
    Variable = 0,
    Parameter = 1,
    Function = 2,
    Type = 3,
    Macro = 4,
    Keyword = 5,
    Number = 6,
    String = 7,
    Comment = 8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SemanticToken {
    /// Never spans a line break (multi-line comments come in pieces).
    pub range: TextRange,
    pub token_type: TokenType,
    /// Bits of [`TOKEN_MODIFIERS`].
    pub modifiers: u32,
}

const KEYWORDS: &[&str] = &[
    "if",
    "else",
    "for",
    "while",
    "do",
    "switch",
    "case",
    "default",
    "return",
    "break",
    "continue",
    "goto",
    "sizeof",
    "typedef",
    "struct",
    "union",
    "enum",
    "const",
    "volatile",
    "restrict",
    "__restrict",
    "__restrict__",
    "static",
    "extern",
    "register",
    "inline",
    "__inline",
    "__inline__",
    "__kernel",
    "kernel",
    "__global",
    "global",
    "__constant",
    "constant",
    "__local",
    "local",
    "__private",
    "private",
    "__generic",
    "generic",
    "__attribute__",
    "__attribute",
    "__read_only",
    "read_only",
    "__write_only",
    "write_only",
    "__read_write",
    "read_write",
    "unsigned",
    "signed",
    "_Alignof",
    "__alignof__",
    "vec_step",
    "auto",
    "asm",
    "__asm__",
];

const TYPE_WORDS: &[&str] = &[
    "void",
    "size_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
    "image1d_t",
    "image2d_t",
    "image3d_t",
    "image1d_array_t",
    "image2d_array_t",
    "image1d_buffer_t",
    "image2d_depth_t",
    "image2d_array_depth_t",
    "sampler_t",
    "event_t",
    "half",
];

/// Words that can never name a variable, function or field.
pub(crate) fn is_keyword_or_type(word: &str) -> bool {
    KEYWORDS.contains(&word) || is_builtin_type(word)
}

fn is_builtin_type(word: &str) -> bool {
    TYPE_WORDS.contains(&word)
        || lanes_frontend::types::Scalar::from_name(word).is_some()
        || lanes_frontend::types::parse_vector_name(word).is_some()
}

/// The tokens of the file, in order.
pub fn semantic_tokens(db: &dyn Db, file: File) -> Vec<SemanticToken> {
    tokens(db, file, None)
}

/// The tokens that overlap `range`, in order: only the functions there and
/// the kernels that are or inline them are read (the lines an editor
/// shows of a large file).
pub fn semantic_tokens_in(db: &dyn Db, file: File, range: TextRange) -> Vec<SemanticToken> {
    let mut out = tokens(db, file, Some(range));
    out.retain(|t| t.range.start < range.end && range.start < t.range.end);
    out
}

fn tokens(db: &dyn Db, file: File, range: Option<TextRange>) -> Vec<SemanticToken> {
    let ctx = Ctx::new(db, file);
    let text = ctx.text();
    let index = match range {
        Some(r) => SymbolIndex::within(&ctx, r),
        None => SymbolIndex::build(&ctx),
    };
    let by_start: HashMap<u32, &Sym> = index.occ.iter().map(|o| (o.range.start, &o.sym)).collect();
    let kernels = match range {
        Some(r) => ctx.kernels_in(r),
        None => ctx.kernels(),
    };
    let lanes = lane_modifiers(&ctx, &kernels);
    let hir = &ctx.parsed.unit.hir;
    let type_names: HashSet<&str> = hir.structs.iter().map(|s| s.name.as_str()).collect();
    let macro_names: HashSet<&str> = ctx
        .parsed
        .unit
        .preprocessed
        .expansions
        .iter()
        .map(|e| e.macro_name.as_str())
        .collect();

    let mut out = Vec::new();
    let mut lexer = TokenKind::lexer(text);
    // Directive state: after `#` at a line start, the next word is the
    // directive; after `#define`, the word after it is the macro.
    let mut line_start = true;
    let mut after_hash = false;
    let mut after_define = false;
    while let Some(tok) = lexer.next() {
        let span = lexer.span();
        let range = TextRange::new(span.start as u32, span.end as u32);
        let word = lexer.slice();
        let kind = tok.unwrap_or(TokenKind::Unknown);
        if kind == TokenKind::Newline {
            line_start = true;
            after_hash = false;
            after_define = false;
            continue;
        }
        if kind == TokenKind::Whitespace {
            continue;
        }
        let was_line_start = line_start;
        line_start = false;
        let class = match kind {
            TokenKind::LineComment | TokenKind::BlockComment => {
                push_lines(&mut out, text, range, TokenType::Comment, 0);
                line_start = was_line_start;
                continue;
            }
            TokenKind::Hash if was_line_start => {
                after_hash = true;
                Some((TokenType::Keyword, 0))
            }
            TokenKind::Number => Some((TokenType::Number, 0)),
            TokenKind::StringLit | TokenKind::CharLit => Some((TokenType::String, 0)),
            TokenKind::Ident if after_hash => {
                after_hash = false;
                after_define = word == "define";
                Some((TokenType::Keyword, 0))
            }
            TokenKind::Ident if after_define => {
                after_define = false;
                Some((TokenType::Macro, 0))
            }
            TokenKind::Ident => {
                classify(by_start.get(&range.start).copied(), &lanes, hir).or_else(|| {
                    if KEYWORDS.contains(&word) {
                        Some((TokenType::Keyword, 0))
                    } else if is_builtin_type(word) || type_names.contains(word) {
                        Some((TokenType::Type, 0))
                    } else if macro_names.contains(word) {
                        Some((TokenType::Macro, 0))
                    } else if lanes_frontend::builtins::is_builtin_name(word) {
                        Some((TokenType::Function, 0))
                    } else {
                        None
                    }
                })
            }
            _ => None,
        };
        if let Some((t, m)) = class {
            push_lines(&mut out, text, range, t, m);
        }
    }
    out
}

fn classify(
    sym: Option<&Sym>,
    lanes: &HashMap<(u32, u32), u32>,
    hir: &lanes_frontend::hir::Unit,
) -> Option<(TokenType, u32)> {
    Some(match sym? {
        Sym::Local { func, local } => {
            let m = lanes.get(&(*func, *local)).copied().unwrap_or(0);
            let is_param = hir
                .functions
                .get(*func as usize)
                .and_then(|f| f.locals.get(*local as usize))
                .is_some_and(|l| l.is_param);
            let t = if is_param {
                TokenType::Parameter
            } else {
                TokenType::Variable
            };
            (t, m)
        }
        Sym::Global(_) => (TokenType::Variable, MOD_UNIFORM),
        Sym::Function(_) | Sym::Builtin(_) => (TokenType::Function, 0),
        Sym::Struct(_) => (TokenType::Type, 0),
        Sym::Field { .. } => (TokenType::Variable, 0),
        Sym::Macro(_) => (TokenType::Macro, 0),
    })
}

/// `uniform`/`varying` per local `(function, local)`, joined over the
/// kernels that contain it; parameters become [`TokenType::Parameter`]
/// through the caller.
fn lane_modifiers(ctx: &Ctx<'_>, kernels: &[KernelView<'_>]) -> HashMap<(u32, u32), u32> {
    let hir = &ctx.parsed.unit.hir;
    let mut by_span: HashMap<lanes_frontend::source::Span, u32> = HashMap::new();
    for k in kernels {
        let Some(r) = k.report() else { continue };
        for v in &r.values {
            let m = if v.kind == ShapeKind::Uniform {
                MOD_UNIFORM
            } else {
                MOD_VARYING
            };
            let e = by_span.entry(v.span).or_insert(m);
            if m == MOD_VARYING {
                *e = MOD_VARYING;
            }
        }
    }
    let mut out = HashMap::new();
    for (fi, f) in hir.functions.iter().enumerate() {
        for (li, l) in f.locals.iter().enumerate() {
            if let Some(&m) = by_span.get(&l.name_span) {
                out.insert((fi as u32, li as u32), m);
            }
        }
    }
    out
}

/// Pushes a token, split at line breaks.
fn push_lines(out: &mut Vec<SemanticToken>, text: &str, r: TextRange, t: TokenType, m: u32) {
    let slice = &text[r.start as usize..r.end as usize];
    let mut start = r.start;
    for raw in slice.split('\n') {
        let piece = raw.strip_suffix('\r').unwrap_or(raw);
        if !piece.is_empty() {
            out.push(SemanticToken {
                range: TextRange::new(start, start + piece.len() as u32),
                token_type: t,
                modifiers: m,
            });
        }
        start += raw.len() as u32 + 1;
    }
}
