//! The parser: preprocessed tokens to the syntax tree of [`crate::ast`].
//!
//! Hand-written recursive descent, built for an editor that re-parses on every
//! keystroke, so it never gives up:
//! - every problem becomes a diagnostic and an `Error` node, never a panic;
//! - after a syntax error it resynchronizes at the statement level (the next
//!   `;`, a `}` closing the current block, or a statement keyword starting a
//!   new line) or, at file scope, at the next line that starts a declaration;
//!   a `__kernel` at the start of a line always ends whatever was open, so a
//!   broken kernel cannot swallow the next one;
//! - a missing `;` is reported at the end of the previous token and parsing
//!   goes on as if it were there when the next token plausibly starts a new
//!   statement;
//! - one mistake gives one diagnostic: a second syntax error at the very
//!   token where the previous one was reported is dropped (a cascade);
//! - every recursion on user input counts against [`MAX_DEPTH`], and long
//!   operator chains count too, because the tree they build is as deep as the
//!   chain is long and later passes (and `Drop`) recurse over it.
//!
//! Keywords are identifiers whose text is a keyword (the lexer does not tell
//! them apart). Whether `foo * bar;` declares `bar` depends on whether `foo`
//! is a typedef name in scope, so the parser tracks typedef names with C's
//! block scoping.

use std::collections::HashMap;

use smol_str::SmolStr;

use crate::ast::*;
use crate::diag::{Code, Diagnostic};
use crate::lexer::{Token, TokenKind};
use crate::source::Span;

mod decl;
mod expr;
mod literal;
mod stmt;
#[cfg(test)]
mod tests;

/// The deepest nesting of recursive constructs (parentheses, blocks,
/// statements, unary operators, declarators, initializer lists, operator
/// chains) the parser accepts; deeper input gets one `Code::TooDeep`.
pub const MAX_DEPTH: u32 = 256;

/// Parses a translation unit. `tokens` normally ends with a `TokenKind::Eof`
/// token (from the preprocessor); if it does not, behave as if one followed
/// the last token. Never panics; every problem becomes a diagnostic.
pub fn parse(tokens: &[Token], diags: &mut Vec<Diagnostic>) -> TranslationUnit {
    parse_recording(tokens, diags).0
}

/// What each item declared at file scope (the parser's only state carried
/// from one item to the next when it reports nothing), so that one function
/// definition can be parsed again on its own ([`parse_items_after`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileScope {
    /// `(item index, name, is a typedef name)`, in the order declared.
    pub decls: Vec<(u32, SmolStr, bool)>,
    /// The parser reported nothing.
    pub clean: bool,
}

/// [`parse`], also returning the file scope's declarations.
pub fn parse_recording(
    tokens: &[Token],
    diags: &mut Vec<Diagnostic>,
) -> (TranslationUnit, FileScope) {
    let mut p = Parser::new(tokens);
    let items = p.parse_items();
    let scope = FileScope {
        decls: std::mem::take(&mut p.file_decls),
        clean: p.diags.is_empty(),
    };
    diags.append(&mut p.diags);
    let unit = TranslationUnit {
        items: items.into_iter().map(crate::moved::Pending::new).collect(),
        node_count: p.next_id,
    };
    (unit, scope)
}

/// Parses `tokens` at file scope as [`parse`] would after items that
/// declared `earlier` (names, typedef or not, in order), numbering nodes
/// from `first_id`. Returns the items, what they declared at file scope
/// (item indices from 0) and the next node id; `None` when the parser
/// reported anything.
pub fn parse_items_after<'a>(
    tokens: &[Token],
    earlier: impl Iterator<Item = (&'a SmolStr, bool)>,
    first_id: u32,
) -> Option<(Vec<Item>, Vec<(u32, SmolStr, bool)>, u32)> {
    let mut p = Parser::new(tokens);
    for (name, is_typedef) in earlier {
        p.scopes[0].insert(name.clone(), is_typedef);
    }
    p.next_id = first_id;
    let items = p.parse_items();
    p.diags
        .is_empty()
        .then(|| (items, std::mem::take(&mut p.file_decls), p.next_id))
}

/// A position to measure a node's span from.
#[derive(Clone, Copy, Debug)]
struct Mark {
    pos: usize,
    span: Span,
}

/// Where declaration specifiers are being parsed (decides what is allowed
/// and how an unknown type name is recognized).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SpecCtx {
    File,
    Block,
    Param,
    Field,
    TypeName,
}

struct Parser<'t> {
    /// The tokens up to (not including) the first `Eof`, without `Unknown`s.
    toks: Vec<&'t Token>,
    /// The end-of-file sentinel returned past the last token.
    eof: Token,
    pos: usize,
    /// Span of the last consumed token (where a missing `;` is reported).
    prev_span: Span,
    diags: Vec<Diagnostic>,
    next_id: u32,
    depth: u32,
    too_deep_reported: bool,
    /// Counts syntax errors, including dropped cascades, so that a statement
    /// can tell whether something went wrong inside it.
    error_count: u32,
    /// Token index of the last reported syntax error (cascade suppression).
    last_error_pos: Option<usize>,
    eof_brace_reported: bool,
    /// Typedef scopes, innermost last: `true` for a typedef name, `false` for
    /// an ordinary identifier that shadows an outer typedef.
    scopes: Vec<HashMap<SmolStr, bool>>,
    /// Attributes met inside a declarator, moved to the enclosing `DeclSpec`.
    pending_attrs: Vec<Attribute>,
    /// Set when a parameter list was an old-style identifier list.
    knr_seen: bool,
    /// Set when a struct body ended without its `}`.
    struct_unclosed: bool,
    /// The index of the item being parsed, and what the items declared at
    /// file scope (see [`FileScope`]).
    item_index: u32,
    file_decls: Vec<(u32, SmolStr, bool)>,
}

/// How a token is named in a message: `` `)` `` or `end of file`.
fn describe(t: &Token) -> String {
    if t.kind == TokenKind::Eof {
        return "end of file".to_string();
    }
    let text = t.text.as_str();
    if text.chars().count() > 32 {
        let short: String = text.chars().take(29).collect();
        format!("`{short}...`")
    } else {
        format!("`{text}`")
    }
}

// ---------------------------------------------------------------------------
// Keyword tables. Keywords are identifiers with these texts.

const SCALAR_TYPES: &[&str] = &[
    "void",
    "bool",
    "_Bool",
    "char",
    "uchar",
    "short",
    "ushort",
    "int",
    "uint",
    "long",
    "ulong",
    "float",
    "double",
    "half",
    "size_t",
    "ptrdiff_t",
    "intptr_t",
    "uintptr_t",
    "signed",
    "unsigned",
];

const VECTOR_ELEMENTS: &[&str] = &[
    "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "half",
];

const OPAQUE_TYPES: &[&str] = &[
    "image1d_t",
    "image1d_array_t",
    "image1d_buffer_t",
    "image2d_t",
    "image2d_array_t",
    "image2d_depth_t",
    "image2d_array_depth_t",
    "image3d_t",
    "sampler_t",
    "event_t",
    "queue_t",
    "clk_event_t",
    "ndrange_t",
    "reserve_id_t",
    "pipe",
];

/// Words that are a type specifier on their own or combined (`unsigned`).
fn is_type_keyword(text: &str) -> bool {
    if SCALAR_TYPES.contains(&text)
        || OPAQUE_TYPES.contains(&text)
        || crate::workgroup::atomic_type_alias(text).is_some()
    {
        return true;
    }
    // Vector types: an element type name followed by 2, 3, 4, 8 or 16.
    VECTOR_ELEMENTS.iter().any(|elem| {
        text.strip_prefix(elem)
            .is_some_and(|n| matches!(n, "2" | "3" | "4" | "8" | "16"))
    })
}

fn address_space(text: &str) -> Option<AddressSpace> {
    Some(match text {
        "__global" | "global" => AddressSpace::Global,
        "__constant" | "constant" => AddressSpace::Constant,
        "__local" | "local" => AddressSpace::Local,
        "__private" | "private" => AddressSpace::Private,
        "__generic" | "generic" => AddressSpace::Generic,
        _ => return None,
    })
}

fn is_qualifier(text: &str) -> bool {
    is_const_keyword(text) || is_volatile_keyword(text) || is_restrict_keyword(text)
}

/// `const` and its GNU spellings: clang reads `__const` as `const` (not as
/// `__constant`) in OpenCL C too.
fn is_const_keyword(text: &str) -> bool {
    matches!(text, "const" | "__const" | "__const__")
}

fn is_volatile_keyword(text: &str) -> bool {
    matches!(text, "volatile" | "__volatile" | "__volatile__")
}

fn is_restrict_keyword(text: &str) -> bool {
    matches!(text, "restrict" | "__restrict" | "__restrict__")
}

fn is_access_qualifier(text: &str) -> bool {
    matches!(
        text,
        "__read_only" | "read_only" | "__write_only" | "write_only" | "__read_write" | "read_write"
    )
}

fn is_kernel_keyword(text: &str) -> bool {
    matches!(text, "__kernel" | "kernel")
}

fn is_inline_keyword(text: &str) -> bool {
    matches!(text, "inline" | "__inline" | "__inline__")
}

fn is_storage_keyword(text: &str) -> bool {
    matches!(text, "typedef" | "static" | "extern" | "register")
}

fn is_attribute_keyword(text: &str) -> bool {
    matches!(text, "__attribute__" | "__attribute")
}

fn is_asm_keyword(text: &str) -> bool {
    matches!(text, "asm" | "__asm__" | "__asm")
}

fn is_alignof_keyword(text: &str) -> bool {
    matches!(text, "_Alignof" | "__alignof__" | "__alignof" | "alignof")
}

/// A word that starts declaration specifiers without being a typedef name.
fn is_decl_spec_keyword(text: &str) -> bool {
    is_type_keyword(text)
        || is_storage_keyword(text)
        || is_qualifier(text)
        || address_space(text).is_some()
        || is_access_qualifier(text)
        || is_kernel_keyword(text)
        || is_inline_keyword(text)
        || is_attribute_keyword(text)
        || matches!(text, "struct" | "union" | "enum")
}

const STATEMENT_KEYWORDS: &[&str] = &[
    "if", "else", "for", "while", "do", "switch", "case", "default", "return", "break", "continue",
    "goto",
];

/// Words that can never be an identifier (a variable, function or field name).
fn is_reserved(text: &str) -> bool {
    is_decl_spec_keyword(text)
        || STATEMENT_KEYWORDS.contains(&text)
        || is_asm_keyword(text)
        || is_alignof_keyword(text)
        || matches!(
            text,
            "sizeof" | "auto" | "_Alignas" | "_Static_assert" | "_Noreturn" | "_Thread_local"
        )
}

impl<'t> Parser<'t> {
    fn new(tokens: &'t [Token]) -> Parser<'t> {
        let mut diags = Vec::new();
        let mut toks = Vec::with_capacity(tokens.len());
        let mut eof_span = None;
        for t in tokens {
            match t.kind {
                TokenKind::Eof => {
                    eof_span = Some(t.span);
                    break;
                }
                // The preprocessor reports these; a bare lexer does not.
                TokenKind::Unknown => diags.push(Diagnostic::new(
                    Code::Syntax,
                    t.span,
                    crate::lexer::unknown_token_message(&t.text),
                )),
                _ => toks.push(t),
            }
        }
        let eof_span =
            eof_span.unwrap_or_else(|| toks.last().map(|t| t.span.end_point()).unwrap_or_default());
        let eof = Token {
            kind: TokenKind::Eof,
            text: SmolStr::default(),
            span: eof_span,
            spelling: eof_span,
            expansion: None,
            line_start: true,
            leading_space: false,
        };
        let prev_span = toks
            .first()
            .map(|t| Span {
                end: t.span.start,
                ..t.span
            })
            .unwrap_or(eof_span);
        Parser {
            toks,
            eof,
            pos: 0,
            prev_span,
            diags,
            next_id: 0,
            depth: 0,
            too_deep_reported: false,
            error_count: 0,
            last_error_pos: None,
            eof_brace_reported: false,
            scopes: vec![HashMap::new()],
            pending_attrs: Vec::new(),
            knr_seen: false,
            struct_unclosed: false,
            item_index: 0,
            file_decls: Vec::new(),
        }
    }

    /// Items up to the end of the tokens.
    fn parse_items(&mut self) -> Vec<Item> {
        let mut items = Vec::new();
        while !self.at(TokenKind::Eof) {
            let before = self.pos;
            self.item_index = items.len() as u32;
            if let Some(item) = self.parse_item() {
                items.push(item);
            }
            if self.pos == before {
                // Cannot happen by construction; guarantees termination anyway.
                self.bump();
            }
        }
        items
    }

    // -- token cursor -------------------------------------------------------

    fn nth(&self, n: usize) -> &Token {
        match self.toks.get(self.pos.saturating_add(n)) {
            Some(t) => t,
            None => &self.eof,
        }
    }

    fn tok(&self) -> &Token {
        self.nth(0)
    }

    fn kind(&self) -> TokenKind {
        self.tok().kind
    }

    fn nth_kind(&self, n: usize) -> TokenKind {
        self.nth(n).kind
    }

    fn at(&self, kind: TokenKind) -> bool {
        self.kind() == kind
    }

    /// Is the current token the keyword `kw`?
    fn at_kw(&self, kw: &str) -> bool {
        let t = self.tok();
        t.kind == TokenKind::Ident && t.text == kw
    }

    /// Consumes the current token (nothing at end of file) and returns its span.
    fn bump(&mut self) -> Span {
        match self.toks.get(self.pos) {
            Some(t) => {
                self.prev_span = t.span;
                self.pos += 1;
                t.span
            }
            None => self.eof.span,
        }
    }

    fn eat(&mut self, kind: TokenKind) -> Option<Span> {
        if self.at(kind) {
            Some(self.bump())
        } else {
            None
        }
    }

    fn eat_kw(&mut self, kw: &str) -> Option<Span> {
        if self.at_kw(kw) {
            Some(self.bump())
        } else {
            None
        }
    }

    /// The current token as an identifier (consumed).
    fn bump_ident(&mut self) -> Ident {
        let name = self.tok().text.clone();
        let span = self.bump();
        Ident { name, span }
    }

    fn mark(&self) -> Mark {
        Mark {
            pos: self.pos,
            span: self.tok().span,
        }
    }

    /// The span from `m` to the last consumed token. If nothing was consumed
    /// since, an empty span at the end of the previous token, so that it
    /// lies inside the span of the enclosing node.
    fn finish(&self, m: Mark) -> Span {
        if self.pos > m.pos {
            m.span.to(self.prev_span)
        } else {
            self.prev_span.end_point()
        }
    }

    fn id(&mut self) -> NodeId {
        let id = NodeId(self.next_id);
        self.next_id = self.next_id.saturating_add(1);
        id
    }

    // -- diagnostics --------------------------------------------------------

    /// Reports a syntax error unless it continues a cascade: one already
    /// reported at this very token.
    fn report(&mut self, d: Diagnostic) {
        self.error_count += 1;
        if self.last_error_pos == Some(self.pos) || self.kind() == TokenKind::Poisoned {
            return;
        }
        self.last_error_pos = Some(self.pos);
        self.diags.push(d);
    }

    fn syntax_error(&mut self, span: Span, message: impl Into<String>) {
        self.report(Diagnostic::new(Code::Syntax, span, message));
    }

    /// "expected {what}, found `tok`" at the current token.
    fn expected(&mut self, what: &str) {
        let message = format!("expected {what}, found {}", describe(self.tok()));
        let span = self.tok().span;
        self.syntax_error(span, message);
    }

    /// Consumes the closing delimiter of `open`, or reports it missing with a
    /// label at the opening one.
    fn expect_closing(&mut self, close: TokenKind, open: Span) -> bool {
        if self.eat(close).is_some() {
            return true;
        }
        self.report_unclosed(close, open);
        false
    }

    fn report_unclosed(&mut self, close: TokenKind, open: Span) {
        let open_text = match close {
            TokenKind::RParen => "(",
            TokenKind::RBracket => "[",
            TokenKind::RBrace => "{",
            _ => "?",
        };
        let message = format!(
            "expected `{}`, found {}",
            close.describe(),
            describe(self.tok())
        );
        let span = self.missing_token_span();
        self.report(
            Diagnostic::new(Code::Syntax, span, message)
                .with_related(open, format!("to match this `{open_text}`")),
        );
    }

    /// Where a missing closing token is reported: at the end of the previous
    /// token when the current one is on a later line or is the end of file
    /// (where clang puts its caret), else at the current token.
    pub(super) fn missing_token_span(&self) -> Span {
        let t = self.tok();
        if (t.kind == TokenKind::Eof || t.line_start) && self.pos > 0 {
            self.prev_span.end_point()
        } else {
            t.span
        }
    }

    /// Reports a missing `;` at the end of the previous token, where it belongs.
    fn report_missing_semi(&mut self, what: &str) {
        let message = format!("expected `;` {what}, found {}", describe(self.tok()));
        let span = self.prev_span.end_point();
        self.report(Diagnostic::new(Code::Syntax, span, message));
    }

    /// A non-syntax problem (invalid token, invalid declaration) that does not
    /// disturb the parse, so it takes no part in cascade suppression.
    fn semantic_error(&mut self, code: Code, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::new(code, span, message));
    }

    // -- depth limits -------------------------------------------------------

    fn too_deep(&mut self) {
        self.error_count += 1;
        if !self.too_deep_reported {
            self.too_deep_reported = true;
            let span = self.tok().span;
            self.diags.push(Diagnostic::new(
                Code::TooDeep,
                span,
                format!("nesting too deep: more than {MAX_DEPTH} levels"),
            ));
        }
    }

    /// Runs `f` one level deeper, or `bail` (after reporting) at the limit.
    fn with_depth<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> T,
        bail: impl FnOnce(&mut Self) -> T,
    ) -> T {
        if self.depth >= MAX_DEPTH {
            self.too_deep();
            return bail(self);
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    /// One more link of an operator chain (`a+b+c`, `a[0][1]`): the tree gets
    /// one level deeper per link. At the limit, reports, skips the rest of the
    /// construct and returns false. The caller subtracts `chain` from the
    /// depth when the chain ends.
    fn chain_step(&mut self, chain: &mut u32) -> bool {
        if self.depth >= MAX_DEPTH {
            self.too_deep();
            self.skip_deep();
            return false;
        }
        self.depth += 1;
        *chain += 1;
        true
    }

    /// Skips the rest of a too-deep construct: balanced brackets, up to a `;`
    /// or a closing bracket of an enclosing construct (neither consumed).
    fn skip_deep(&mut self) {
        let mut level: u32 = 0;
        loop {
            match self.kind() {
                TokenKind::Eof => return,
                TokenKind::LParen | TokenKind::LBracket | TokenKind::LBrace => level += 1,
                TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace => {
                    if level == 0 {
                        return;
                    }
                    level -= 1;
                }
                TokenKind::Semi if level == 0 => return,
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips one bracketed group starting at the current opening bracket,
    /// including everything nested in it (iteratively, so depth is no issue).
    fn skip_balanced(&mut self) {
        let mut level: u32 = 0;
        loop {
            match self.kind() {
                TokenKind::Eof => return,
                TokenKind::LParen | TokenKind::LBracket | TokenKind::LBrace => level += 1,
                TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace => {
                    level = level.saturating_sub(1);
                    if level == 0 {
                        self.bump();
                        return;
                    }
                }
                _ => {}
            }
            self.bump();
        }
    }

    // -- typedef scopes -----------------------------------------------------

    fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    fn pop_scope(&mut self) {
        // The file scope is never popped.
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    /// Declares `name` in the innermost scope, as a typedef name or as an
    /// ordinary identifier (which hides an outer typedef of the same name).
    fn declare(&mut self, name: &SmolStr, is_typedef: bool) {
        if self.scopes.len() == 1 {
            self.file_decls
                .push((self.item_index, name.clone(), is_typedef));
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.clone(), is_typedef);
        }
    }

    fn is_typedef_name(&self, name: &str) -> bool {
        for scope in self.scopes.iter().rev() {
            if let Some(&is_typedef) = scope.get(name) {
                return is_typedef;
            }
        }
        false
    }

    // -- token classes ------------------------------------------------------

    /// Does `t` start declaration specifiers (a keyword or a typedef name)?
    fn starts_decl(&self, t: &Token) -> bool {
        t.kind == TokenKind::Ident
            && (is_decl_spec_keyword(&t.text) || self.is_typedef_name(&t.text))
    }

    /// Does `t`, after a `(`, start a type name (so the parentheses are a cast)?
    fn starts_type_name(&self, t: &Token) -> bool {
        if t.kind != TokenKind::Ident {
            return false;
        }
        let text = t.text.as_str();
        is_type_keyword(text)
            || matches!(text, "struct" | "union" | "enum")
            || is_qualifier(text)
            || address_space(text).is_some()
            || self.is_typedef_name(text)
    }

    /// A plain identifier: not a keyword, not a typedef name.
    fn is_plain_ident(&self, t: &Token) -> bool {
        t.kind == TokenKind::Ident && !is_reserved(&t.text) && !self.is_typedef_name(&t.text)
    }

    fn at_kernel_line_start(&self) -> bool {
        let t = self.tok();
        t.line_start && t.kind == TokenKind::Ident && is_kernel_keyword(&t.text)
    }

    /// A word that begins a statement, for resynchronizing after an error.
    fn is_stmt_start_keyword(&self, t: &Token) -> bool {
        t.kind == TokenKind::Ident
            && (STATEMENT_KEYWORDS.contains(&t.text.as_str())
                || self.starts_decl(t)
                || is_asm_keyword(&t.text))
    }

    // -- recovery -----------------------------------------------------------

    /// Statement-level resynchronization: skips to the next `;` (consumed),
    /// a `}` closing the current block, or a statement keyword that begins a
    /// line (neither consumed). Braces in between are skipped as a whole.
    fn recover_stmt(&mut self) {
        let mut braces: u32 = 0;
        loop {
            if self.at_kernel_line_start() {
                return;
            }
            let t = self.tok();
            if braces == 0 && t.line_start && self.is_stmt_start_keyword(t) {
                return;
            }
            match t.kind {
                TokenKind::Eof => return,
                TokenKind::Semi if braces == 0 => {
                    self.bump();
                    return;
                }
                TokenKind::RBrace => {
                    if braces == 0 {
                        return;
                    }
                    braces -= 1;
                }
                TokenKind::LBrace => braces += 1,
                _ => {}
            }
            self.bump();
        }
    }

    /// File-scope resynchronization: skips to a declaration keyword that
    /// starts a line or follows a `;` or a skipped `{ ... }` group (at brace
    /// level 0), or to a `__kernel` at a line start anywhere.
    fn skip_to_item_start(&mut self) {
        let start = self.pos;
        let mut braces: u32 = 0;
        let mut after_terminator = false;
        loop {
            if self.pos > start && self.at_kernel_line_start() {
                return;
            }
            let t = self.tok();
            if self.pos > start
                && braces == 0
                && (t.line_start || after_terminator)
                && self.starts_decl(t)
            {
                return;
            }
            after_terminator = false;
            match t.kind {
                TokenKind::Eof => return,
                TokenKind::Semi if braces == 0 => after_terminator = true,
                TokenKind::LBrace => braces += 1,
                TokenKind::RBrace if braces > 0 => {
                    braces -= 1;
                    after_terminator = braces == 0;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Could the current token begin a new statement (so a missing `;` before
    /// it is the likely mistake)?
    fn plausible_stmt_start(&self) -> bool {
        let t = self.tok();
        matches!(t.kind, TokenKind::Eof | TokenKind::RBrace)
            || t.line_start
            || self.is_stmt_start_keyword(t)
    }

    // -- items --------------------------------------------------------------

    /// One file-scope item; `None` for a stray `;`.
    fn parse_item(&mut self) -> Option<Item> {
        let m = self.mark();
        if self.at(TokenKind::Semi) {
            // An empty declaration at file scope is harmless.
            self.bump();
            return None;
        }
        let t = self.tok();
        if t.kind == TokenKind::Ident && is_asm_keyword(&t.text) {
            self.skip_asm();
            let span = self.finish(m);
            return Some(Item {
                id: self.id(),
                kind: ItemKind::Error,
                span,
            });
        }
        if self.starts_decl(t) || self.unknown_type_ahead(SpecCtx::File) {
            return Some(self.parse_external_decl());
        }
        // Garbage: one diagnostic, then skip to something that looks like
        // the start of the next item.
        let message = if t.kind == TokenKind::RBrace {
            "extraneous closing brace `}`".to_string()
        } else {
            format!("expected a declaration, found {}", describe(t))
        };
        let span = t.span;
        self.syntax_error(span, message);
        self.skip_to_item_start();
        let span = self.finish(m);
        Some(Item {
            id: self.id(),
            kind: ItemKind::Error,
            span,
        })
    }

    /// `asm ...;` is reported once and skipped.
    fn skip_asm(&mut self) {
        let span = self.bump();
        self.semantic_error(
            Code::UnsupportedAsm,
            span,
            "inline assembly is not supported",
        );
        self.recover_stmt();
    }

    fn parse_external_decl(&mut self) -> Item {
        let m = self.mark();
        let errors_before = self.error_count;
        let mut spec = self.parse_decl_specs(SpecCtx::File);
        if self.eat(TokenKind::Semi).is_some() {
            let span = self.finish(m);
            let kind = ItemKind::Declaration(Declaration {
                spec,
                declarators: Vec::new(),
                span,
            });
            return Item {
                id: self.id(),
                kind,
                span,
            };
        }
        self.knr_seen = false;
        let declarator = self.parse_declarator(decl::DeclMode::Named);
        self.take_attrs(&mut spec);
        if is_function_declarator(&declarator) && spec.storage != Storage::Typedef {
            if self.knr_seen && !self.at(TokenKind::LBrace) && self.starts_decl(self.tok()) {
                // Old-style parameter declarations (already reported): skip
                // them, in a scope of their own so that their names do not
                // leak into the file scope.
                self.push_scope();
                while self.starts_decl(self.tok()) && !self.at_kernel_line_start() {
                    let before = self.pos;
                    let _ = self.parse_decl_stmt();
                    if self.pos == before {
                        break;
                    }
                }
                self.pop_scope();
            }
            if self.at(TokenKind::LBrace) {
                let function = self.parse_function_body(spec, declarator, true);
                let span = self.finish(m);
                return Item {
                    id: self.id(),
                    kind: ItemKind::Function(function),
                    span,
                };
            }
            let is_prototype = match self.kind() {
                TokenKind::Semi => {
                    self.bump();
                    true
                }
                TokenKind::Comma | TokenKind::Eq => false,
                _ => {
                    let message = format!(
                        "expected `;` or `{{` after function declarator, found {}",
                        describe(self.tok())
                    );
                    let span = self.prev_span.end_point();
                    self.report(Diagnostic::new(Code::Syntax, span, message));
                    if self.body_brace_missing() {
                        let function = self.parse_function_body(spec, declarator, false);
                        let span = self.finish(m);
                        return Item {
                            id: self.id(),
                            kind: ItemKind::Function(function),
                            span,
                        };
                    }
                    if !(self.tok().line_start || self.at(TokenKind::Eof)) {
                        self.skip_to_item_start();
                    }
                    true
                }
            };
            if is_prototype {
                if let Some(name) = &declarator.name {
                    self.declare(&name.name, false);
                }
                let function = into_function(spec, declarator, None);
                let span = self.finish(m);
                return Item {
                    id: self.id(),
                    kind: ItemKind::Function(function),
                    span,
                };
            }
        }
        let mut decl = self.parse_decl_rest(spec, declarator, m);
        if self.eat(TokenKind::Semi).is_none() {
            if self.error_count != errors_before {
                if !self.plausible_item_start() {
                    self.skip_to_item_start();
                }
            } else {
                self.report_missing_semi("after top-level declarator");
                if !self.plausible_item_start() {
                    self.skip_to_item_start();
                }
            }
        }
        decl.span = self.finish(m);
        let span = decl.span;
        Item {
            id: self.id(),
            kind: ItemKind::Declaration(decl),
            span,
        }
    }

    /// Could the current token begin the next item? Only at a line start:
    /// a type keyword in the middle of a line after a declarator is more
    /// likely part of the same broken declaration (`void f int a)`).
    fn plausible_item_start(&self) -> bool {
        let t = self.tok();
        t.kind == TokenKind::Eof || t.line_start
    }

    /// After a function declarator followed by neither `;` nor `{`: is the
    /// body's `{` missing? It is when a `}` without its `{` comes before the
    /// next `__kernel` line (a prototype missing its `;` is followed by
    /// balanced code).
    fn body_brace_missing(&self) -> bool {
        let mut level: u32 = 0;
        for (i, t) in self.toks.iter().enumerate().skip(self.pos) {
            match t.kind {
                TokenKind::LBrace => level += 1,
                TokenKind::RBrace if level == 0 => return true,
                TokenKind::RBrace => level -= 1,
                TokenKind::Ident if i > self.pos && t.line_start && is_kernel_keyword(&t.text) => {
                    return false
                }
                _ => {}
            }
        }
        false
    }

    /// Parses the body of a function definition (the current token is `{`,
    /// unless `has_brace` is false), with the parameters in scope.
    fn parse_function_body(
        &mut self,
        spec: DeclSpec,
        declarator: Declarator,
        has_brace: bool,
    ) -> Function {
        if let Some(name) = &declarator.name {
            self.declare(&name.name, false);
        }
        self.push_scope();
        if let Some(Derived::Function { params, .. }) = declarator.derived.last() {
            let names: Vec<SmolStr> = params
                .iter()
                .filter_map(|p| p.declarator.name.as_ref().map(|n| n.name.clone()))
                .collect();
            for name in &names {
                self.declare(name, false);
            }
        }
        let body = self.parse_block_with(has_brace);
        self.pop_scope();
        into_function(spec, declarator, Some(body))
    }

    /// Moves attributes found inside a declarator to its specifiers.
    fn take_attrs(&mut self, spec: &mut DeclSpec) {
        spec.attributes.append(&mut self.pending_attrs);
    }
}

/// A named declarator whose outermost derived type is a function.
fn is_function_declarator(d: &Declarator) -> bool {
    d.name.is_some() && matches!(d.derived.last(), Some(Derived::Function { .. }))
}

/// Splits a function declarator into a `Function` item.
fn into_function(spec: DeclSpec, mut declarator: Declarator, body: Option<Block>) -> Function {
    let (params, variadic) = match declarator.derived.pop() {
        Some(Derived::Function {
            params, variadic, ..
        }) => (params, variadic),
        // Callers check `is_function_declarator` first.
        Some(other) => {
            declarator.derived.push(other);
            (Vec::new(), false)
        }
        None => (Vec::new(), false),
    };
    let name = declarator.name.unwrap_or_else(|| Ident {
        name: SmolStr::default(),
        span: declarator.span,
    });
    Function {
        spec,
        name,
        return_derived: declarator.derived,
        params,
        variadic,
        body,
    }
}
