//! The C preprocessor: turns a main file into the token stream the parser
//! consumes, keeping for every token where it stands in the main text, where
//! its characters were written and which macro expansion produced it.
//!
//! Layers, bottom up:
//! - the file layer ([`Preprocessor::next_file_token`]) walks the lexed files
//!   of the include stack, runs directives and skips inactive `#if` groups;
//! - the macro engine (`macros.rs`) expands macros with hide sets (Prosser's
//!   algorithm) over a stack of expansion contexts on top of the file layer;
//! - `#if` expressions are evaluated in `expr.rs`.
//!
//! Nothing here recurses on user input without a limit, and every loop
//! consumes input or a bounded budget, so no input can hang or crash it.

mod builtins;
mod edited;
mod expr;
pub(crate) use expr::parse_int;
mod macros;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

use smol_str::SmolStr;

use crate::diag::{Code, Diagnostic, Severity};
use crate::lexer::{self, ExpnId, Token, TokenKind};
use crate::source::{FileId, SourceFile, SourceMap, SourceText, Span};

use macros::{HideSets, Input, Macro, PTok};

pub(crate) use edited::line_expanded_after;
pub use edited::{preprocess_edited, SameEnds};

/// Where `#include` reads files from.
pub trait FileLoader {
    fn read(&self, path: &Path) -> std::io::Result<SourceText>;
}

/// Reads from the file system, decoding as [`crate::source::decode_source`] does.
pub struct RealFs;

impl FileLoader for RealFs {
    fn read(&self, path: &Path) -> std::io::Result<SourceText> {
        crate::source::read_source(path)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PreprocessOptions {
    /// `-D NAME` (value None means "1") and `-D NAME=VALUE`, in command-line order.
    pub defines: Vec<(String, Option<String>)>,
    /// `-U NAME`
    pub undefines: Vec<String>,
    /// `-I DIR`, searched in order after the including file's directory.
    pub include_dirs: Vec<PathBuf>,
    /// SIMD width, the value of `__LANES_WIDTH__` (0 means 8).
    pub width: u32,
}

/// One macro invocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expansion {
    pub macro_name: SmolStr,
    /// The invocation in the text it was found in: `MAX(a, b)` from the macro name to the `)`.
    pub call_site: Span,
    /// The macro's definition (its name in the `#define`), None for predefined/command-line macros.
    pub definition: Option<Span>,
    /// The enclosing expansion when this invocation was itself produced by a macro.
    pub parent: Option<ExpnId>,
}

/// A `#pragma` directive or `_Pragma` operator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pragma {
    pub span: Span,
    /// tokens after `pragma`, joined with single spaces
    pub text: String,
    /// Index in [`Preprocessed::tokens`] of the first token after it.
    pub token: usize,
}

#[derive(Clone, Debug, Default)]
pub struct Preprocessed {
    /// The tokens for the parser, always ending with one `TokenKind::Eof` token
    /// (empty text, span at the end of the main file).
    pub tokens: Vec<Token>,
    /// Indexed by [`ExpnId`].
    pub expansions: Vec<Expansion>,
    pub pragmas: Vec<Pragma>,
    /// Every file that was included, with the span of the `#include` directive.
    pub includes: Vec<(Span, FileId)>,
    /// The main file's tokens as lexed (to preprocess again only the lines
    /// an edit changed, [`preprocess_edited`]).
    pub main_tokens: Arc<[Token]>,
    /// Every name a `#define` defined (in any file, predefined or from the
    /// command line), sorted.
    pub macro_names: Arc<Vec<SmolStr>>,
}

/// Preprocesses `main` (already in `sources`); included files and the
/// `<built-in>` file of predefined macros are added to `sources`.
pub fn preprocess(
    sources: &mut SourceMap,
    main: FileId,
    opts: &PreprocessOptions,
    loader: &dyn FileLoader,
    diags: &mut Vec<Diagnostic>,
) -> Preprocessed {
    preprocess_in(sources, main, opts, loader, diags, None)
}

/// [`preprocess`], lexing the main file with [`lexer::lex_reusing`]: only
/// the lines changed since the text `memo` holds are lexed again. The
/// result is exactly [`preprocess`]'s.
pub fn preprocess_reusing(
    sources: &mut SourceMap,
    main: FileId,
    opts: &PreprocessOptions,
    loader: &dyn FileLoader,
    diags: &mut Vec<Diagnostic>,
    memo: &mut lexer::LexMemo,
) -> Preprocessed {
    preprocess_in(sources, main, opts, loader, diags, Some(memo))
}

fn preprocess_in(
    sources: &mut SourceMap,
    main: FileId,
    opts: &PreprocessOptions,
    loader: &dyn FileLoader,
    diags: &mut Vec<Diagnostic>,
    memo: Option<&mut lexer::LexMemo>,
) -> Preprocessed {
    if main.0 as usize >= sources.len() {
        // Not a file of this map: nothing to read, but still a valid stream.
        let eof = eof_token(Span::new(main, 0, 0));
        return Preprocessed {
            tokens: vec![eof],
            ..Preprocessed::default()
        };
    }
    let builtin = sources.add(SourceFile::new("<built-in>", None, builtins::text(opts)));
    let mut pp = Preprocessor::new(sources, loader, opts, diags, builtin);
    pp.memo = memo;
    pp.main = Some(main);
    pp.note_latin1(main);
    pp.enter_file(main);
    // Most output tokens are the main file's; growing the vector is costly.
    let main_len = pp.files.last().map_or(0, |f| f.tokens.len());
    pp.out.reserve(main_len + 1);
    // On top of the main file, so that it runs first.
    pp.enter_file(builtin);
    pp.run();
    let end = pp.sources.get(main).text.len() as u32;
    pp.out.push(eof_token(Span::new(main, end, end)));
    let mut macro_names: Vec<SmolStr> = pp.defined_names.into_iter().collect();
    macro_names.sort_unstable();
    Preprocessed {
        tokens: pp.out,
        expansions: pp.expansions,
        pragmas: pp.pragmas,
        includes: pp.includes,
        main_tokens: pp.lexed.get(&main).cloned().unwrap_or_default(),
        macro_names: Arc::new(macro_names),
    }
}

fn eof_token(span: Span) -> Token {
    Token {
        kind: TokenKind::Eof,
        text: SmolStr::default(),
        span,
        spelling: span,
        expansion: None,
        line_start: true,
        leading_space: false,
    }
}

// Limits that keep hostile input from exhausting time, memory or the stack.
// Each is far above anything real code needs.
const MAX_INCLUDE_DEPTH: usize = 200;
const MAX_INCLUDES: usize = 100_000;
const MAX_OUTPUT_TOKENS: usize = 5_000_000;
/// Tokens all macro substitutions together may produce (rescans count again).
const MAX_EXPANDED_TOKENS: usize = 5_000_000;
const MAX_EXPANSIONS: usize = 1_000_000;
/// Nested, unfinished macro expansions.
const MAX_CONTEXT_DEPTH: usize = 1_000;
/// Macro invocations nested inside macro arguments (each level recurses).
const MAX_ARG_DEPTH: usize = 200;
/// Parentheses and operators nested in an `#if` expression (each level recurses).
const MAX_EXPR_DEPTH: usize = 256;

/// Pragmas lanes or the OpenCL/C world knows; others get a hint.
const KNOWN_PRAGMAS: &[&str] = &[
    "OPENCL", "unroll", "nounroll", "lanes", "ignore", "once", "clang", "GCC", "STDC",
];

/// One file of the include stack.
struct FileState {
    id: FileId,
    tokens: Arc<[Token]>,
    /// Index of the next token to read.
    pos: usize,
    /// Open `#if`s of this file, innermost last.
    conds: Vec<Cond>,
}

struct Cond {
    /// The `#if` (from `#` to the directive name), for "unterminated" errors.
    span: Span,
    directive: SmolStr,
    state: CondState,
    /// The `#else`, once seen.
    else_span: Option<Span>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum CondState {
    /// The current group is active.
    Taking,
    /// An earlier group was active: skip all the others.
    Taken,
    /// No group was active yet: the next true `#elif` or `#else` is.
    Searching,
}

struct Preprocessor<'a> {
    sources: &'a mut SourceMap,
    loader: &'a dyn FileLoader,
    opts: &'a PreprocessOptions,
    diags: &'a mut Vec<Diagnostic>,
    builtin_file: FileId,
    macros: HashMap<SmolStr, Rc<Macro>, BuildHasherDefault<FxHasher>>,
    /// Every name ever defined ([`Preprocessed::macro_names`]).
    defined_names: HashSet<SmolStr>,
    /// Macro name -> its element in hide sets.
    names: HashMap<SmolStr, u32>,
    hidesets: HideSets,
    files: Vec<FileState>,
    /// Lexed files, so that a header included many times is lexed (and its
    /// lexical errors reported) once.
    lexed: HashMap<FileId, Arc<[Token]>>,
    /// The main file's previous tokens, to re-lex only what changed.
    memo: Option<&'a mut lexer::LexMemo>,
    main: Option<FileId>,
    /// Paths already resolved to files, so that a header included many
    /// times is looked up in constant time.
    paths: HashMap<PathBuf, FileId>,
    /// Files with `#pragma once`.
    once: HashSet<FileId>,
    input: Input,
    out: Vec<Token>,
    expansions: Vec<Expansion>,
    /// Span of the body of the macro of each expansion (parallel to `expansions`).
    expansion_bodies: Vec<Option<Span>>,
    pragmas: Vec<Pragma>,
    includes: Vec<(Span, FileId)>,
    /// What macro substitution may still produce, see [`MAX_EXPANDED_TOKENS`].
    expand_budget: usize,
    /// Current nesting of argument pre-expansions.
    arg_depth: usize,
    /// Set by the `defined` operator when it is malformed.
    if_failed: bool,
    /// A limit was hit and reported: produce nothing more.
    halted: bool,
}

impl<'a> Preprocessor<'a> {
    fn new(
        sources: &'a mut SourceMap,
        loader: &'a dyn FileLoader,
        opts: &'a PreprocessOptions,
        diags: &'a mut Vec<Diagnostic>,
        builtin_file: FileId,
    ) -> Self {
        Preprocessor {
            sources,
            loader,
            opts,
            diags,
            builtin_file,
            macros: HashMap::default(),
            defined_names: HashSet::new(),
            names: HashMap::new(),
            hidesets: HideSets::new(),
            files: Vec::new(),
            lexed: HashMap::new(),
            memo: None,
            main: None,
            paths: HashMap::new(),
            once: HashSet::new(),
            input: Input::files(),
            out: Vec::new(),
            expansions: Vec::new(),
            expansion_bodies: Vec::new(),
            pragmas: Vec::new(),
            includes: Vec::new(),
            expand_budget: MAX_EXPANDED_TOKENS,
            arg_depth: 0,
            if_failed: false,
            halted: false,
        }
    }

    fn run(&mut self) {
        while let Some(t) = self.next_expanded() {
            if self.out.len() >= MAX_OUTPUT_TOKENS {
                let msg = format!(
                    "preprocessing produces too many tokens (more than {MAX_OUTPUT_TOKENS})"
                );
                self.halt(t.tok.span, msg);
                break;
            }
            self.out.push(t.tok);
        }
    }

    /// Reports a limit and stops all further output.
    fn halt(&mut self, span: Span, message: String) {
        if !self.halted {
            self.diags
                .push(Diagnostic::new(Code::TooDeep, span, message));
            self.halted = true;
        }
    }

    fn error(&mut self, code: Code, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::new(code, span, message));
    }

    // ---- files ----

    fn tokens_of(&mut self, id: FileId) -> Arc<[Token]> {
        if let Some(t) = self.lexed.get(&id) {
            return Arc::clone(t);
        }
        let text = Arc::clone(&self.sources.get(id).text);
        let toks: Arc<[Token]> = match self.memo.as_deref_mut() {
            Some(memo) if self.main == Some(id) => lexer::lex_reusing(id, &text, memo, self.diags),
            _ => lexer::lex(id, &text, self.diags).into(),
        };
        self.lexed.insert(id, Arc::clone(&toks));
        toks
    }

    fn enter_file(&mut self, id: FileId) {
        let tokens = self.tokens_of(id);
        self.files.push(FileState {
            id,
            tokens,
            pos: 0,
            conds: Vec::new(),
        });
    }

    fn leave_file(&mut self) {
        if let Some(file) = self.files.pop() {
            for c in file.conds {
                let d = Diagnostic::new(
                    Code::UnbalancedConditional,
                    c.span,
                    format!("unterminated `#{}`", c.directive),
                )
                .with_label("this conditional has no matching `#endif`");
                self.diags.push(d);
            }
        }
    }

    fn current_file(&self) -> Option<FileId> {
        self.files.last().map(|f| f.id)
    }

    /// The next token of active text, running directives on the way. At the
    /// end of a file, the file is left only when `cross_files`; otherwise
    /// None is returned, so that a macro invocation cannot run past the end
    /// of the file it starts in.
    fn next_file_token(&mut self, cross_files: bool) -> Option<Token> {
        loop {
            if self.halted {
                return None;
            }
            let file = self.files.last_mut()?;
            let Some(tok) = file.tokens.get(file.pos) else {
                if !cross_files {
                    return None;
                }
                self.leave_file();
                continue;
            };
            if tok.kind == TokenKind::Hash && tok.line_start {
                self.directive();
                continue;
            }
            let tok = tok.clone();
            file.pos += 1;
            if tok.kind == TokenKind::Unknown {
                self.error(
                    Code::InvalidToken,
                    tok.span,
                    lexer::unknown_token_message(&tok.text),
                );
                continue;
            }
            return Some(tok);
        }
    }

    // ---- directives ----

    /// Runs the directive whose `#` is the next token of the current file.
    fn directive(&mut self) {
        let Some(file) = self.files.last_mut() else {
            return;
        };
        let toks = Arc::clone(&file.tokens);
        let start = file.pos;
        let mut end = start + 1;
        while end < toks.len() && !toks[end].line_start {
            end += 1;
        }
        file.pos = end;
        let Some(line) = toks.get(start..end) else {
            return;
        };
        let (Some(hash), Some(last)) = (line.first(), line.last()) else {
            return;
        };
        let line_span = hash.span.to(last.span);
        // `#` alone is the null directive.
        let Some(name) = line.get(1) else { return };
        let rest = &line[2..];
        let dir_span = hash.span.to(name.span);
        match name.kind {
            TokenKind::Ident => {}
            // GNU line marker `# 33 "file.cl"`: accepted and ignored like `#line`.
            TokenKind::Number => return,
            _ => {
                let msg = format!("invalid preprocessing directive `#{}`", name.text);
                self.error(Code::BadDirective, name.span, msg);
                return;
            }
        }
        match name.text.as_str() {
            "define" => self.define(dir_span, rest),
            "undef" => self.undef(dir_span, rest),
            "include" => self.include(dir_span, line_span, rest),
            "if" => {
                let v = self.eval_if(name, rest, line_span.end_point());
                self.push_cond(dir_span, &name.text, v);
            }
            "ifdef" | "ifndef" => {
                let v = self.ifdef_operand(name, rest) == (name.text == "ifdef");
                self.push_cond(dir_span, &name.text, v);
            }
            "elif" | "elifdef" | "elifndef" => self.elif(dir_span, name, rest, line_span),
            "else" => self.else_directive(dir_span),
            "endif" => {
                let popped = self.files.last_mut().and_then(|f| f.conds.pop());
                if popped.is_none() {
                    self.error(
                        Code::UnbalancedConditional,
                        dir_span,
                        "`#endif` without `#if`",
                    );
                }
            }
            "pragma" => {
                let name_span = rest.first().map_or(line_span, |t| t.span);
                self.pragma(line_span, name_span, rest);
            }
            "error" | "warning" => {
                let text = self.rest_of_line(rest);
                let message = if text.is_empty() {
                    format!("`#{}` directive", name.text)
                } else {
                    text
                };
                let mut d = Diagnostic::new(Code::ErrorDirective, line_span, message);
                if name.text == "warning" {
                    d.severity = Severity::Warning;
                }
                self.diags.push(d);
            }
            // Line numbers are not remapped: diagnostics point at the real text.
            "line" => {}
            _ => {
                let msg = format!("invalid preprocessing directive `#{}`", name.text);
                self.error(Code::BadDirective, name.span, msg);
            }
        }
    }

    /// The text of a directive's operand tokens as written (for `#error`).
    fn rest_of_line(&self, rest: &[Token]) -> String {
        match (rest.first(), rest.last()) {
            (Some(a), Some(b)) if a.span.file == b.span.file => self
                .sources
                .text(Span::new(a.span.file, a.span.start, b.span.end))
                .to_string(),
            _ => String::new(),
        }
    }

    // ---- conditionals ----

    fn push_cond(&mut self, span: Span, directive: &str, active: bool) {
        let Some(file) = self.files.last_mut() else {
            return;
        };
        let state = if active {
            CondState::Taking
        } else {
            CondState::Searching
        };
        file.conds.push(Cond {
            span,
            directive: directive.into(),
            state,
            else_span: None,
        });
        if !active {
            self.skip_group();
        }
    }

    /// The value of `#ifdef NAME` / `#elifdef NAME`.
    fn ifdef_operand(&mut self, directive: &Token, rest: &[Token]) -> bool {
        match rest.first() {
            Some(t) if t.kind == TokenKind::Ident => self.is_defined(&t.text),
            Some(t) => {
                let msg = format!("macro name must be an identifier, found `{}`", t.text);
                self.error(Code::BadDirective, t.span, msg);
                false
            }
            None => {
                let msg = format!("macro name missing after `#{}`", directive.text);
                self.error(Code::BadDirective, directive.span, msg);
                false
            }
        }
    }

    fn is_defined(&self, name: &str) -> bool {
        self.macros.contains_key(name) || matches!(name, "__FILE__" | "__LINE__")
    }

    fn elif(&mut self, dir_span: Span, name: &Token, rest: &[Token], line_span: Span) {
        let Some(cond) = self.files.last().and_then(|f| f.conds.last()) else {
            let msg = format!("`#{}` without `#if`", name.text);
            self.error(Code::UnbalancedConditional, dir_span, msg);
            return;
        };
        let (state, else_span) = (cond.state, cond.else_span);
        if let Some(e) = else_span {
            let d = Diagnostic::new(
                Code::UnbalancedConditional,
                dir_span,
                format!("`#{}` after `#else`", name.text),
            )
            .with_related(e, "the `#else` is here");
            self.diags.push(d);
            self.set_cond_state(CondState::Taken);
            self.skip_group();
            return;
        }
        let new_state = match state {
            CondState::Taking | CondState::Taken => CondState::Taken,
            // Only here is the condition evaluated: skipped `#elif`s report nothing.
            CondState::Searching => {
                let v = match name.text.as_str() {
                    "elif" => self.eval_if(name, rest, line_span.end_point()),
                    "elifdef" => self.ifdef_operand(name, rest),
                    _ => !self.ifdef_operand(name, rest),
                };
                if v {
                    CondState::Taking
                } else {
                    CondState::Searching
                }
            }
        };
        self.set_cond_state(new_state);
        if new_state != CondState::Taking {
            self.skip_group();
        }
    }

    fn else_directive(&mut self, dir_span: Span) {
        let Some(cond) = self.files.last_mut().and_then(|f| f.conds.last_mut()) else {
            self.error(
                Code::UnbalancedConditional,
                dir_span,
                "`#else` without `#if`",
            );
            return;
        };
        if let Some(e) = cond.else_span {
            cond.state = CondState::Taken;
            let d = Diagnostic::new(
                Code::UnbalancedConditional,
                dir_span,
                "`#else` after `#else`",
            )
            .with_related(e, "the first `#else` is here");
            self.diags.push(d);
            self.skip_group();
            return;
        }
        cond.else_span = Some(dir_span);
        cond.state = match cond.state {
            CondState::Searching => CondState::Taking,
            CondState::Taking | CondState::Taken => CondState::Taken,
        };
        if cond.state != CondState::Taking {
            self.skip_group();
        }
    }

    fn set_cond_state(&mut self, state: CondState) {
        if let Some(c) = self.files.last_mut().and_then(|f| f.conds.last_mut()) {
            c.state = state;
        }
    }

    /// Skips an inactive group: moves to the `#elif`, `#else` or `#endif`
    /// that ends it (not consuming it), or to the end of the file. Nothing in
    /// the group is reported, so it may hold any text (`don't`).
    fn skip_group(&mut self) {
        let Some(file) = self.files.last_mut() else {
            return;
        };
        let toks = &file.tokens;
        let mut depth = 0usize;
        let mut i = file.pos;
        while i < toks.len() {
            if toks[i].kind == TokenKind::Hash && toks[i].line_start {
                if let Some(n) = toks
                    .get(i + 1)
                    .filter(|n| !n.line_start && n.kind == TokenKind::Ident)
                {
                    match n.text.as_str() {
                        "if" | "ifdef" | "ifndef" => depth += 1,
                        "elif" | "elifdef" | "elifndef" | "else" if depth == 0 => break,
                        "endif" if depth == 0 => break,
                        "endif" => depth -= 1,
                        _ => {}
                    }
                }
            }
            i += 1;
        }
        file.pos = i;
    }

    /// Evaluates the expression of `#if`/`#elif` (reporting its errors; an
    /// erroneous expression is false).
    fn eval_if(&mut self, directive: &Token, rest: &[Token], end: Span) -> bool {
        if rest.is_empty() {
            let msg = format!("expected expression after `#{}`", directive.text);
            self.error(Code::BadDirective, directive.span, msg);
            return false;
        }
        if let Some(t) = rest.iter().find(|t| t.kind == TokenKind::Unknown) {
            self.error(
                Code::InvalidToken,
                t.span,
                lexer::unknown_token_message(&t.text),
            );
            return false;
        }
        let toks: Vec<PTok> = rest.iter().map(|t| PTok::new(t.clone())).collect();
        self.if_failed = false;
        let expanded = self.expand_isolated(toks, None, true);
        if self.if_failed || self.halted {
            return false;
        }
        let toks: Vec<Token> = expanded.into_iter().map(|t| t.tok).collect();
        expr::evaluate(&toks, end, self.diags)
    }

    // ---- #include ----

    fn include(&mut self, dir_span: Span, line_span: Span, rest: &[Token]) {
        let Some((name, angled, name_span)) = self.include_name(dir_span, rest) else {
            return;
        };
        if name.is_empty() {
            self.error(
                Code::BadDirective,
                name_span,
                "empty file name in `#include`",
            );
            return;
        }
        if self.files.len() > MAX_INCLUDE_DEPTH {
            let msg =
                format!("`#include` nested too deeply (more than {MAX_INCLUDE_DEPTH} levels)");
            self.halt(line_span, msg);
            return;
        }
        if self.includes.len() >= MAX_INCLUDES {
            let msg = format!("too many `#include`s (more than {MAX_INCLUDES})");
            self.halt(line_span, msg);
            return;
        }
        let Some(id) = self.resolve_include(&name, angled, name_span) else {
            return;
        };
        self.includes.push((line_span, id));
        if !self.once.contains(&id) {
            self.enter_file(id);
        }
    }

    /// The file name of an `#include`: `"name"`, `<name>` (raw characters),
    /// or either of these produced by macros.
    fn include_name(&mut self, dir_span: Span, rest: &[Token]) -> Option<(String, bool, Span)> {
        let missing = "expected \"FILENAME\" or <FILENAME> after `#include`";
        let first = match rest.first() {
            Some(t) => t,
            None => {
                self.error(Code::BadDirective, dir_span, missing);
                return None;
            }
        };
        match first.kind {
            TokenKind::StringLit => Some((unquote(&first.text).to_string(), false, first.span)),
            TokenKind::Lt => {
                let Some(gt) = rest.iter().find(|t| t.text.starts_with('>')) else {
                    self.error(
                        Code::BadDirective,
                        first.span,
                        "expected `>` after the file name of `#include <...`",
                    );
                    return None;
                };
                let inner = Span::new(first.span.file, first.span.end, gt.span.start);
                Some((
                    self.sources.text(inner).to_string(),
                    true,
                    first.span.to(gt.span),
                ))
            }
            _ => {
                let toks = rest.iter().map(|t| PTok::new(t.clone())).collect();
                let expanded: Vec<Token> = self
                    .expand_isolated(toks, None, false)
                    .into_iter()
                    .map(|t| t.tok)
                    .collect();
                let span = rest.iter().fold(first.span, |s, t| s.to(t.span));
                match expanded.first() {
                    Some(t) if t.kind == TokenKind::StringLit => {
                        Some((unquote(&t.text).to_string(), false, span))
                    }
                    Some(t) if t.kind == TokenKind::Lt => {
                        let mut name = String::new();
                        for t in &expanded[1..] {
                            if t.kind == TokenKind::Gt {
                                return Some((name, true, span));
                            }
                            if t.leading_space && !name.is_empty() {
                                name.push(' ');
                            }
                            name.push_str(&t.text);
                        }
                        self.error(
                            Code::BadDirective,
                            span,
                            "expected `>` after the file name of `#include <...`",
                        );
                        None
                    }
                    _ => {
                        self.error(Code::BadDirective, span, missing);
                        None
                    }
                }
            }
        }
    }

    /// The hint that a file was not UTF-8, at its first byte read as Latin-1.
    fn note_latin1(&mut self, file: FileId) {
        let source = self.sources.get(file);
        let Some(at) = source.latin1_at else { return };
        let ch = source.text[at as usize..]
            .chars()
            .next()
            .unwrap_or('\u{80}');
        let span = Span::new(file, at, at + ch.len_utf8() as u32);
        let d = Diagnostic::new(
            Code::NotUtf8,
            span,
            "source is not UTF-8: bytes read as Latin-1",
        )
        .with_note(format!(
            "byte 0x{:02X} is read as `{ch}` (U+{:04X}), as clang reads it; every byte that is not part of a UTF-8 sequence is read the same way",
            ch as u32, ch as u32
        ));
        self.diags.push(d);
    }

    /// Finds and loads an included file: `"name"` relative to the including
    /// file's directory, then each `-I` directory; `<name>` only the latter.
    fn resolve_include(&mut self, name: &str, angled: bool, span: Span) -> Option<FileId> {
        let mut dirs: Vec<PathBuf> = Vec::new();
        let mut candidates: Vec<PathBuf> = Vec::new();
        if Path::new(name).is_absolute() {
            candidates.push(PathBuf::from(name));
        } else {
            if !angled {
                let here = self
                    .current_file()
                    .and_then(|f| self.sources.get(f).path.as_deref());
                if let Some(dir) = here.and_then(Path::parent) {
                    dirs.push(dir.to_path_buf());
                }
            }
            dirs.extend(self.opts.include_dirs.iter().cloned());
            candidates.extend(dirs.iter().map(|d| d.join(name)));
        }
        for path in candidates {
            let path = normalize(&path);
            if let Some(&id) = self.paths.get(&path) {
                return Some(id);
            }
            // The main file, or a file loaded by an earlier run on this map.
            if let Some(id) = self.sources.find_path(&path) {
                self.paths.insert(path, id);
                return Some(id);
            }
            match self.loader.read(&path) {
                Ok(text) => {
                    let id = self.sources.add_path(&path, text);
                    self.note_latin1(id);
                    self.paths.insert(path, id);
                    return Some(id);
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    let msg = format!("cannot read included file `{}`: {e}", path.display());
                    self.error(Code::IncludeNotFound, span, msg);
                    return None;
                }
            }
        }
        let note = if dirs.is_empty() {
            "no directory was searched (add one with `-I`)".to_string()
        } else {
            let list: Vec<String> = dirs.iter().map(|d| format!("`{}`", d.display())).collect();
            format!("searched: {}", list.join(", "))
        };
        let d = Diagnostic::new(
            Code::IncludeNotFound,
            span,
            format!("file `{name}` not found"),
        )
        .with_note(note);
        self.diags.push(d);
        None
    }

    // ---- #pragma ----

    fn pragma(&mut self, span: Span, name_span: Span, toks: &[Token]) {
        let Some(first) = toks.first() else { return };
        // A loop hint's count is a constant whose macros expand, as in
        // clang (`#pragma unroll BLOCK_SIZE`); other pragmas keep their words.
        let loop_hint = matches!(first.text.as_str(), "unroll" | "nounroll")
            || (first.text == "clang" && toks.get(1).is_some_and(|t| t.text == "loop"));
        let words: Vec<Token> = if loop_hint && toks.len() > 1 {
            let rest = toks[1..].iter().map(|t| PTok::new(t.clone())).collect();
            let expanded = self.expand_isolated(rest, None, false);
            std::iter::once(first.clone())
                .chain(expanded.into_iter().map(|t| t.tok))
                .collect()
        } else {
            toks.to_vec()
        };
        let text = words
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        if first.text == "once" {
            if let Some(f) = self.current_file() {
                self.once.insert(f);
            }
        }
        if !KNOWN_PRAGMAS.contains(&first.text.as_str()) {
            let msg = format!("unknown pragma `{}` ignored", first.text);
            self.error(Code::UnknownPragma, name_span, msg);
        }
        let token = self.out.len();
        self.pragmas.push(Pragma { span, text, token });
    }
}

/// The multiply-rotate hash of rustc (FxHash): the macro table is looked up
/// for every identifier, and SipHash's DoS resistance buys nothing here.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        for &b in chunks.remainder() {
            self.add(b as u64);
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// The characters between the quotes of a string literal.
fn unquote(text: &str) -> &str {
    text.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(text)
}

/// Removes `.` and folds `dir/..` so that one file has one path (for
/// `#pragma once` and for not loading a file twice).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
