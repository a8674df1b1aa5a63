//! Macro definitions and expansion.
//!
//! Expansion follows Prosser's algorithm (the reference semantics of the C
//! standard): every token carries a hide set, the macros whose expansion
//! produced it; a macro name is not expanded when the macro is in its hide
//! set. An object-like expansion adds the macro to the hide set of the name;
//! a function-like one to the intersection of the hide sets of the name and
//! of the closing `)`. Arguments are fully expanded before substitution
//! (except next to `#` and `##`), and the result is rescanned together with
//! the rest of the input.
//!
//! The rest of the input is a stack of contexts (the remaining tokens of
//! unfinished expansions) on top of the file layer; contexts are consumed
//! lazily, so an expansion costs no more than the tokens it produces.

use std::collections::HashMap;
use std::rc::Rc;

use smol_str::SmolStr;

use super::{
    Expansion, Preprocessor, MAX_ARG_DEPTH, MAX_CONTEXT_DEPTH, MAX_EXPANDED_TOKENS, MAX_EXPANSIONS,
};
use crate::diag::{Code, Diagnostic};
use crate::lexer::{self, ExpnId, Token, TokenKind};
use crate::source::{FileId, Span};

/// A token inside the preprocessor: the token and its hide set.
#[derive(Clone, Debug)]
pub(super) struct PTok {
    pub tok: Token,
    pub hs: u32,
}

impl PTok {
    pub fn new(tok: Token) -> PTok {
        PTok {
            tok,
            hs: HideSets::EMPTY,
        }
    }
}

/// A `#define`d macro.
#[derive(Debug)]
pub(super) struct Macro {
    pub name: SmolStr,
    /// Its element in hide sets.
    pub id: u32,
    /// The name in the `#define`; None for predefined and command-line macros.
    pub definition: Option<Span>,
    /// None for object-like macros. `__VA_ARGS__` is parameter `params.len()`.
    pub params: Option<Vec<SmolStr>>,
    pub variadic: bool,
    pub body: Vec<BodyTok>,
    /// From the first to the last body token (same file).
    pub body_span: Option<Span>,
}

#[derive(Debug)]
pub(super) struct BodyTok {
    pub tok: Token,
    /// The parameter this token names, if any.
    pub param: Option<usize>,
}

impl Macro {
    /// Same parameters and same body, spacing included (C 6.10.3p2).
    fn same_definition(&self, other: &Macro) -> bool {
        self.params == other.params
            && self.variadic == other.variadic
            && self.body.len() == other.body.len()
            && self
                .body
                .iter()
                .zip(&other.body)
                .enumerate()
                .all(|(i, (a, b))| {
                    a.tok.text == b.tok.text
                        && (i == 0 || a.tok.leading_space == b.tok.leading_space)
                })
    }
}

/// Where the macro engine reads its tokens from.
#[derive(Default)]
pub(super) struct Input {
    /// Remaining tokens of unfinished expansions, innermost last; each stored
    /// in reverse order, so that the next token is popped off the end.
    pub ctx: Vec<Vec<PTok>>,
    /// Read the files when the contexts run dry (false when expanding a
    /// macro argument or a directive line: that input ends where it ends).
    pub read_files: bool,
    /// The expansion whose argument is being expanded: the parent of
    /// expansions found in it.
    pub owner: Option<ExpnId>,
    /// In `#if`: `defined` is an operator.
    pub if_mode: bool,
    /// The flags of a macro name that expanded to nothing, given to the next
    /// token so that line structure and spacing survive.
    pub pending_space: bool,
    pub pending_line_start: bool,
}

impl Input {
    pub fn files() -> Input {
        Input {
            read_files: true,
            ..Input::default()
        }
    }
}

/// Interned hide sets: sorted lists of macro ids, named by index.
pub(super) struct HideSets {
    sets: Vec<Rc<[u32]>>,
    index: HashMap<Rc<[u32]>, u32>,
    /// (operation, a, b) -> result.
    memo: HashMap<(u8, u32, u32), u32>,
    /// Elements stored over all sets.
    storage: usize,
    /// The storage limit was hit: results are no longer exact.
    pub exhausted: bool,
}

/// Elements all hide sets together may hold; only pathological chains of
/// thousands of distinct nested macros come near it.
const MAX_HIDESET_STORAGE: usize = 16_000_000;
const MAX_MEMO: usize = 1 << 20;

impl HideSets {
    pub const EMPTY: u32 = 0;

    pub fn new() -> HideSets {
        let empty: Rc<[u32]> = Rc::from(Vec::new());
        let mut index = HashMap::new();
        index.insert(Rc::clone(&empty), 0);
        HideSets {
            sets: vec![empty],
            index,
            memo: HashMap::new(),
            storage: 0,
            exhausted: false,
        }
    }

    fn get(&self, hs: u32) -> &[u32] {
        self.sets.get(hs as usize).map_or(&[], |s| s)
    }

    pub fn contains(&self, hs: u32, m: u32) -> bool {
        self.get(hs).binary_search(&m).is_ok()
    }

    fn intern(&mut self, v: Vec<u32>) -> u32 {
        if let Some(&id) = self.index.get(v.as_slice()) {
            return id;
        }
        if self.storage + v.len() > MAX_HIDESET_STORAGE {
            self.exhausted = true;
            return Self::EMPTY;
        }
        self.storage += v.len();
        let id = self.sets.len() as u32;
        let rc: Rc<[u32]> = v.into();
        self.sets.push(Rc::clone(&rc));
        self.index.insert(rc, id);
        id
    }

    fn memoized(&mut self, key: (u8, u32, u32), f: impl FnOnce(&[u32], &[u32]) -> Vec<u32>) -> u32 {
        if let Some(&r) = self.memo.get(&key) {
            return r;
        }
        let v = f(self.get(key.1), self.get(key.2));
        let r = self.intern(v);
        if self.memo.len() >= MAX_MEMO {
            self.memo.clear();
        }
        self.memo.insert(key, r);
        r
    }

    pub fn add(&mut self, hs: u32, m: u32) -> u32 {
        if self.contains(hs, m) {
            return hs;
        }
        self.memoized((0, hs, m), |a, _| {
            let mut v = a.to_vec();
            let at = v.partition_point(|&x| x < m);
            v.insert(at, m);
            v
        })
    }

    pub fn union(&mut self, a: u32, b: u32) -> u32 {
        if a == b || b == Self::EMPTY {
            return a;
        }
        if a == Self::EMPTY {
            return b;
        }
        self.memoized((1, a.min(b), a.max(b)), |x, y| {
            let mut v: Vec<u32> = x.iter().chain(y).copied().collect();
            v.sort_unstable();
            v.dedup();
            v
        })
    }

    pub fn intersect(&mut self, a: u32, b: u32) -> u32 {
        if a == b {
            return a;
        }
        if a == Self::EMPTY || b == Self::EMPTY {
            return Self::EMPTY;
        }
        self.memoized((2, a.min(b), a.max(b)), |x, y| {
            x.iter()
                .copied()
                .filter(|m| y.binary_search(m).is_ok())
                .collect()
        })
    }
}

impl Preprocessor<'_> {
    // ---- #define / #undef ----

    pub(super) fn define(&mut self, dir_span: Span, rest: &[Token]) {
        let Some(name) = self.macro_name(dir_span, "define", rest) else {
            return;
        };
        let Some(m) = self.parse_define(&name, &rest[1..]) else {
            return;
        };
        if let Some(old) = self.macros.get(&m.name) {
            if !old.same_definition(&m) {
                let mut d = Diagnostic::new(
                    Code::MacroRedefined,
                    name.span,
                    format!("`{}` macro redefined", m.name),
                );
                d = match old.definition {
                    Some(prev) => d.with_related(prev, "previous definition is here"),
                    None => d.with_note(
                        "the previous definition is predefined or from the command line",
                    ),
                };
                self.diags.push(d);
            }
        }
        self.defined_names.insert(m.name.clone());
        self.macros.insert(m.name.clone(), Rc::new(m));
    }

    pub(super) fn undef(&mut self, dir_span: Span, rest: &[Token]) {
        if let Some(name) = self.macro_name(dir_span, "undef", rest) {
            self.macros.remove(&name.text);
        }
    }

    /// The name operand of `#define`/`#undef`, checked.
    fn macro_name(&mut self, dir_span: Span, directive: &str, rest: &[Token]) -> Option<Token> {
        let Some(name) = rest.first() else {
            self.error(
                Code::BadDirective,
                dir_span,
                format!("macro name missing after `#{directive}`"),
            );
            return None;
        };
        if name.kind != TokenKind::Ident {
            let msg = format!("macro name must be an identifier, found `{}`", name.text);
            self.error(Code::BadDirective, name.span, msg);
            return None;
        }
        if name.text == "defined" {
            self.error(
                Code::BadDirective,
                name.span,
                "`defined` cannot be used as a macro name",
            );
            return None;
        }
        Some(name.clone())
    }

    fn parse_define(&mut self, name: &Token, rest: &[Token]) -> Option<Macro> {
        let mut i = 0;
        let mut params = None;
        let mut variadic = false;
        // Function-like only when `(` directly follows the name.
        if rest
            .first()
            .is_some_and(|t| t.kind == TokenKind::LParen && !t.leading_space)
        {
            let (p, v, used) = self.parse_params(name, rest)?;
            params = Some(p);
            variadic = v;
            i = used;
        }
        let fn_like = params.is_some();
        let param_names: &[SmolStr] = params.as_deref().unwrap_or(&[]);
        let mut body = Vec::new();
        for t in &rest[i..] {
            if t.kind == TokenKind::Unknown {
                self.error(
                    Code::InvalidToken,
                    t.span,
                    lexer::unknown_token_message(&t.text),
                );
                continue;
            }
            let param = if t.kind != TokenKind::Ident || !fn_like {
                None
            } else if variadic && t.text == "__VA_ARGS__" {
                Some(param_names.len())
            } else {
                param_names.iter().position(|p| *p == t.text)
            };
            body.push(BodyTok {
                tok: t.clone(),
                param,
            });
        }
        for (k, b) in body.iter().enumerate() {
            if b.tok.kind == TokenKind::HashHash && (k == 0 || k + 1 == body.len()) {
                self.error(
                    Code::BadDirective,
                    b.tok.span,
                    "`##` cannot appear at either end of a macro expansion",
                );
                return None;
            }
            if fn_like
                && b.tok.kind == TokenKind::Hash
                && body.get(k + 1).and_then(|n| n.param).is_none()
            {
                self.error(
                    Code::BadDirective,
                    b.tok.span,
                    "`#` is not followed by a macro parameter",
                );
                return None;
            }
        }
        let body_span = match (body.first(), body.last()) {
            (Some(a), Some(b)) => Some(a.tok.spelling.to(b.tok.spelling)),
            _ => None,
        };
        let definition = (name.span.file != self.builtin_file).then_some(name.span);
        Some(Macro {
            name: name.text.clone(),
            id: self.name_id(&name.text),
            definition,
            params,
            variadic,
            body,
            body_span,
        })
    }

    /// Parses `(a, b, ...)` at the start of `rest`; returns the parameters,
    /// whether the macro is variadic, and the number of tokens used.
    fn parse_params(
        &mut self,
        name: &Token,
        rest: &[Token],
    ) -> Option<(Vec<SmolStr>, bool, usize)> {
        let mut params: Vec<SmolStr> = Vec::new();
        let mut variadic = false;
        let end = rest.last().map_or(name.span, |t| t.span).end_point();
        let mut i = 1;
        loop {
            let Some(t) = rest.get(i) else {
                self.error(
                    Code::BadDirective,
                    end,
                    "expected `)` in macro parameter list",
                );
                return None;
            };
            i += 1;
            match t.kind {
                TokenKind::RParen if params.is_empty() && i == 2 => {
                    return Some((params, false, i))
                }
                TokenKind::Ident if t.text == "__VA_ARGS__" => {
                    self.error(
                        Code::BadDirective,
                        t.span,
                        "`__VA_ARGS__` can only appear in the expansion of a variadic macro",
                    );
                    return None;
                }
                TokenKind::Ident => {
                    if params.contains(&t.text) {
                        self.error(
                            Code::BadDirective,
                            t.span,
                            format!("duplicate macro parameter `{}`", t.text),
                        );
                        return None;
                    }
                    params.push(t.text.clone());
                }
                TokenKind::Ellipsis => variadic = true,
                _ => {
                    self.error(
                        Code::BadDirective,
                        t.span,
                        format!("expected parameter name, found `{}`", t.text),
                    );
                    return None;
                }
            }
            let Some(sep) = rest.get(i) else {
                self.error(
                    Code::BadDirective,
                    end,
                    "expected `)` in macro parameter list",
                );
                return None;
            };
            i += 1;
            match sep.kind {
                TokenKind::RParen => return Some((params, variadic, i)),
                TokenKind::Comma if !variadic => {}
                _ => {
                    let msg = if variadic {
                        format!("expected `)` after `...`, found `{}`", sep.text)
                    } else {
                        format!(
                            "expected `,` or `)` in macro parameter list, found `{}`",
                            sep.text
                        )
                    };
                    self.error(Code::BadDirective, sep.span, msg);
                    return None;
                }
            }
        }
    }

    fn name_id(&mut self, name: &SmolStr) -> u32 {
        let next = self.names.len() as u32;
        *self.names.entry(name.clone()).or_insert(next)
    }

    // ---- reading ----

    /// The next token of the input, unexpanded: from the contexts, then (if
    /// this input reads files) from the files.
    pub(super) fn next_raw(&mut self, cross_files: bool) -> Option<PTok> {
        if self.halted {
            return None;
        }
        while let Some(ctx) = self.input.ctx.last_mut() {
            if let Some(t) = ctx.pop() {
                return Some(t);
            }
            self.input.ctx.pop();
        }
        if !self.input.read_files {
            return None;
        }
        self.next_file_token(cross_files).map(PTok::new)
    }

    /// Puts back the token just read by [`Self::next_raw`].
    fn unread(&mut self, t: PTok) {
        match self.input.ctx.last_mut() {
            Some(ctx) => ctx.push(t),
            None => self.input.ctx.push(vec![t]),
        }
    }

    /// The next fully macro-expanded token.
    pub(super) fn next_expanded(&mut self) -> Option<PTok> {
        loop {
            let mut t = self.next_raw(true)?;
            if self.input.pending_space || self.input.pending_line_start {
                t.tok.leading_space |= self.input.pending_space;
                t.tok.line_start |= self.input.pending_line_start;
                self.input.pending_space = false;
                self.input.pending_line_start = false;
            }
            if t.tok.kind != TokenKind::Ident {
                return Some(t);
            }
            if self.input.if_mode && t.tok.text == "defined" {
                return Some(self.defined_operator(t));
            }
            let Some(m) = self.macros.get(&t.tok.text).cloned() else {
                match t.tok.text.as_str() {
                    "__LINE__" | "__FILE__" => return Some(self.builtin_macro(t)),
                    "_Pragma" => {
                        self.pragma_operator(t);
                        continue;
                    }
                    _ => return Some(t),
                }
            };
            if self.hidesets.contains(t.hs, m.id) {
                return Some(t);
            }
            if m.params.is_none() {
                self.expand(&m, t, None, Vec::new());
                continue;
            }
            // A function-like macro name not followed by `(` is not invoked.
            match self.next_raw(false) {
                Some(p) if p.tok.kind == TokenKind::LParen => {
                    if let Some((args, rparen)) = self.collect_args(&m, &t) {
                        self.expand(&m, t, Some(rparen), args);
                    } else if !self.input.if_mode && !self.halted {
                        // Already reported: leave a placeholder operand so the
                        // parser does not report the hole again.
                        t.tok.kind = TokenKind::Poisoned;
                        return Some(t);
                    }
                }
                Some(p) => {
                    self.unread(p);
                    return Some(t);
                }
                None => return Some(t),
            }
        }
    }

    /// Reads the arguments after `name (` up to the matching `)` and checks
    /// their number. On error, the invocation is reported and dropped.
    fn collect_args(&mut self, m: &Macro, name: &PTok) -> Option<(Vec<Vec<PTok>>, PTok)> {
        let nparams = m.params.as_ref().map_or(0, Vec::len);
        let mut args: Vec<Vec<PTok>> = vec![Vec::new()];
        let mut depth = 0usize;
        let rparen = loop {
            let Some(t) = self.next_raw(false) else {
                // An `#if` with a broken invocation is false, without more errors.
                self.if_failed |= self.input.if_mode;
                if !self.halted {
                    let d = Diagnostic::new(
                        Code::MacroCall,
                        name.tok.span,
                        format!("unterminated invocation of macro `{}`", m.name),
                    )
                    .with_label("the `(` after this macro name is never closed");
                    self.diags.push(d);
                }
                return None;
            };
            match t.tok.kind {
                TokenKind::LParen => depth += 1,
                TokenKind::RParen if depth == 0 => break t,
                TokenKind::RParen => depth -= 1,
                // In the variadic part, commas belong to `__VA_ARGS__`.
                TokenKind::Comma if depth == 0 && (!m.variadic || args.len() <= nparams) => {
                    args.push(Vec::new());
                    continue;
                }
                _ => {}
            }
            if let Some(a) = args.last_mut() {
                a.push(t);
            }
        };
        let given = if args.len() == 1 && args[0].is_empty() {
            0
        } else {
            args.len()
        };
        let ok = if m.variadic {
            if args.len() == nparams && nparams > 0 {
                // `f(a)` for `f(x, ...)`: an empty `__VA_ARGS__`.
                args.push(Vec::new());
            }
            args.len() == nparams + 1
        } else if nparams == 0 {
            let ok = given == 0;
            args.clear();
            ok
        } else {
            args.len() == nparams
        };
        if !ok {
            let s = if nparams == 1 { "" } else { "s" };
            let msg = match (m.variadic, nparams) {
                (true, _) => format!(
                    "macro `{}` requires at least {nparams} argument{s}, but {given} given",
                    m.name
                ),
                (false, 0) => format!("macro `{}` takes no arguments, but {given} given", m.name),
                (false, _) => format!(
                    "macro `{}` requires {nparams} argument{s}, but {given} given",
                    m.name
                ),
            };
            let mut d = Diagnostic::new(Code::MacroCall, name.tok.span.to(rparen.tok.span), msg);
            if let Some(def) = m.definition {
                d = d.with_related(def, format!("macro `{}` defined here", m.name));
            }
            self.diags.push(d);
            self.if_failed |= self.input.if_mode;
            return None;
        }
        Some((args, rparen))
    }

    // ---- expansion ----

    /// Records an expansion; None (after halting) when there are too many.
    fn new_expansion(&mut self, name: &PTok, call_site: Span, m: Option<&Macro>) -> Option<ExpnId> {
        if self.expansions.len() >= MAX_EXPANSIONS {
            let msg = format!("too many macro expansions (more than {MAX_EXPANSIONS})");
            self.halt(name.tok.span, msg);
            return None;
        }
        let id = ExpnId(self.expansions.len() as u32);
        self.expansions.push(Expansion {
            macro_name: name.tok.text.clone(),
            call_site,
            definition: m.and_then(|m| m.definition),
            parent: name.tok.expansion.or(self.input.owner),
        });
        self.expansion_bodies.push(m.and_then(|m| m.body_span));
        Some(id)
    }

    /// The invocation as spelled: from the name to the `)` when both were
    /// written in the same text (the file, or one macro body), else the name.
    fn call_site(&self, name: &PTok, rparen: Option<&PTok>) -> Span {
        let (n, Some(r)) = (&name.tok, rparen.map(|r| &r.tok)) else {
            return name.tok.spelling;
        };
        let ordered = n.spelling.file == r.spelling.file && n.spelling.start <= r.spelling.start;
        let both_in_file = n.span == n.spelling && r.span == r.spelling;
        let both_in_body = n.expansion.is_some()
            && n.expansion == r.expansion
            && n.expansion
                .and_then(|e| self.expansion_bodies.get(e.0 as usize).copied().flatten())
                .is_some_and(|b| b.contains(n.spelling) && b.contains(r.spelling));
        if ordered && (both_in_file || both_in_body) {
            Span::new(n.spelling.file, n.spelling.start, r.spelling.end)
        } else {
            n.spelling
        }
    }

    /// Expands one invocation and pushes the result as a new context.
    fn expand(&mut self, m: &Macro, name: PTok, rparen: Option<PTok>, args: Vec<Vec<PTok>>) {
        let call_site = self.call_site(&name, rparen.as_ref());
        let Some(id) = self.new_expansion(&name, call_site, Some(m)) else {
            return;
        };
        // Where the produced tokens stand in the main text.
        let site = match &rparen {
            Some(r) => name.tok.span.to(r.tok.span),
            None => name.tok.span,
        };
        let hs = match &rparen {
            Some(r) => self.hidesets.intersect(name.hs, r.hs),
            None => name.hs,
        };
        let hs = self.hidesets.add(hs, m.id);
        let Some(mut os) = self.substitute(m, &args, id, site, hs) else {
            return;
        };
        if self.hidesets.exhausted {
            self.halt(
                site,
                "macro expansion too complex (hide sets exhausted)".to_string(),
            );
            return;
        }
        match os.first_mut() {
            Some(first) => {
                first.tok.leading_space = name.tok.leading_space;
                first.tok.line_start = name.tok.line_start;
            }
            None => {
                self.input.pending_space |= name.tok.leading_space;
                self.input.pending_line_start |= name.tok.line_start;
                return;
            }
        }
        while self.input.ctx.last().is_some_and(Vec::is_empty) {
            self.input.ctx.pop();
        }
        if self.input.ctx.len() >= MAX_CONTEXT_DEPTH {
            let msg =
                format!("macro expansion nested too deeply (more than {MAX_CONTEXT_DEPTH} levels)");
            self.halt(site, msg);
            return;
        }
        os.reverse();
        self.input.ctx.push(os);
    }

    /// Takes `n` tokens from the expansion budget; halts when it is spent.
    fn charge(&mut self, n: usize, span: Span) -> bool {
        if n > self.expand_budget {
            let msg = format!(
                "macro expansion produces too many tokens (more than {MAX_EXPANDED_TOKENS})"
            );
            self.expand_budget = 0;
            self.halt(span, msg);
            return false;
        }
        self.expand_budget -= n;
        true
    }

    /// Replaces the parameters of the body by the arguments, handling `#` and
    /// `##`; every produced token gets the hide set `hs` added. None when a
    /// limit was hit.
    fn substitute(
        &mut self,
        m: &Macro,
        args: &[Vec<PTok>],
        id: ExpnId,
        site: Span,
        hs: u32,
    ) -> Option<Vec<PTok>> {
        let fn_like = m.params.is_some();
        let va_index = m.params.as_ref().map_or(0, Vec::len);
        let body = &m.body;
        let mut os: Vec<PTok> = Vec::with_capacity(body.len());
        // Fully expanded arguments, computed on first use.
        let mut expanded: Vec<Option<Vec<PTok>>> = vec![None; args.len()];
        // The previous body token was `##`, and which one.
        let mut paste: Option<Span> = None;
        // The operand left of a pending `##` was an empty argument.
        let mut left_empty = false;
        let mut i = 0;
        while let Some(b) = body.get(i) {
            if b.tok.kind == TokenKind::HashHash {
                paste = Some(b.tok.spelling);
                i += 1;
                continue;
            }
            let (item, from_arg): (Vec<PTok>, Option<usize>) =
                if fn_like && b.tok.kind == TokenKind::Hash {
                    // `# param` (checked at definition).
                    let p = body.get(i + 1);
                    let arg = p
                        .and_then(|p| p.param)
                        .and_then(|k| args.get(k))
                        .map_or(&[][..], Vec::as_slice);
                    let end = p.map_or(b.tok.spelling, |p| p.tok.spelling);
                    let text = stringize(arg);
                    i += 2;
                    let tok = Token {
                        kind: TokenKind::StringLit,
                        text: text.into(),
                        span: site,
                        spelling: b.tok.spelling.to(end),
                        expansion: Some(id),
                        line_start: false,
                        leading_space: b.tok.leading_space,
                    };
                    (vec![PTok { tok, hs }], None)
                } else if let Some(k) = b.param {
                    i += 1;
                    let raw = args.get(k).map_or(&[][..], Vec::as_slice);
                    let next_is_paste = body
                        .get(i)
                        .is_some_and(|n| n.tok.kind == TokenKind::HashHash);
                    let src: Vec<PTok> = if paste.is_some() || next_is_paste {
                        raw.to_vec()
                    } else {
                        if expanded.get(k).is_some_and(Option::is_none) {
                            let e = self.expand_arg(raw, id);
                            if self.halted {
                                return None;
                            }
                            expanded[k] = Some(e);
                        }
                        expanded.get(k).cloned().flatten().unwrap_or_default()
                    };
                    if !self.charge(src.len(), site) {
                        return None;
                    }
                    let mut item = src;
                    for (j, t) in item.iter_mut().enumerate() {
                        t.tok.expansion = t.tok.expansion.or(Some(id));
                        t.tok.line_start = false;
                        if j == 0 {
                            t.tok.leading_space = b.tok.leading_space;
                        }
                        t.hs = self.hidesets.union(t.hs, hs);
                    }
                    (item, Some(k))
                } else {
                    i += 1;
                    let tok = Token {
                        kind: b.tok.kind,
                        text: b.tok.text.clone(),
                        span: site,
                        spelling: b.tok.spelling,
                        expansion: Some(id),
                        line_start: false,
                        leading_space: b.tok.leading_space,
                    };
                    (vec![PTok { tok, hs }], None)
                };
            if !self.charge(1, site) {
                return None;
            }
            let Some(hash_hash) = paste.take() else {
                left_empty = from_arg.is_some() && item.is_empty();
                os.extend(item);
                continue;
            };
            // `, ## __VA_ARGS__` (GNU): the comma goes when the arguments are empty.
            let gnu_comma = m.variadic
                && from_arg == Some(va_index)
                && !left_empty
                && os.last().is_some_and(|t| t.tok.kind == TokenKind::Comma);
            if gnu_comma {
                if item.is_empty() {
                    os.pop();
                }
                os.extend(item);
                left_empty = false;
                continue;
            }
            if left_empty {
                // Placemarker ## x = x.
                left_empty = from_arg.is_some() && item.is_empty();
                os.extend(item);
                continue;
            }
            let mut rest = item.into_iter();
            match (os.pop(), rest.next()) {
                (Some(l), Some(r)) => {
                    let pasted = self.paste(m, (l, r), id, site, hash_hash);
                    os.extend(pasted);
                }
                (l, r) => os.extend(l.into_iter().chain(r)),
            }
            os.extend(rest);
            left_empty = false;
        }
        Some(os)
    }

    /// `l ## r`: one token if the joined text lexes as exactly one token;
    /// otherwise an error, and both tokens stay.
    fn paste(
        &mut self,
        m: &Macro,
        (l, r): (PTok, PTok),
        id: ExpnId,
        site: Span,
        hash_hash: Span,
    ) -> Vec<PTok> {
        let text = format!("{}{}", l.tok.text, r.tok.text);
        let mut lex_diags = Vec::new();
        let toks = lexer::lex(FileId(0), &text, &mut lex_diags);
        match toks.as_slice() {
            [one]
                if lex_diags.is_empty()
                    && one.kind != TokenKind::Unknown
                    && one.text.len() == text.len() =>
            {
                let in_body = |s: Span| m.body_span.is_some_and(|b| b.contains(s));
                let spelling = if in_body(l.tok.spelling) && in_body(r.tok.spelling) {
                    l.tok.spelling.to(r.tok.spelling)
                } else {
                    l.tok.spelling
                };
                let hs = self.hidesets.intersect(l.hs, r.hs);
                let tok = Token {
                    kind: one.kind,
                    text: text.into(),
                    span: site,
                    spelling,
                    expansion: Some(id),
                    line_start: l.tok.line_start,
                    leading_space: l.tok.leading_space,
                };
                vec![PTok { tok, hs }]
            }
            _ => {
                let d = Diagnostic::new(
                    Code::MacroCall,
                    site,
                    format!(
                        "pasting `{}` and `{}` does not give a valid token (`{text}`)",
                        l.tok.text, r.tok.text
                    ),
                )
                .with_related(hash_hash, "in this `##`");
                self.diags.push(d);
                vec![l, r]
            }
        }
    }

    /// Fully expands a macro argument on its own.
    fn expand_arg(&mut self, arg: &[PTok], owner: ExpnId) -> Vec<PTok> {
        // Most arguments name no macro: they expand to themselves.
        if !arg
            .iter()
            .any(|t| t.tok.kind == TokenKind::Ident && self.may_expand(&t.tok.text))
        {
            return arg.to_vec();
        }
        let if_mode = self.input.if_mode;
        self.expand_isolated(arg.to_vec(), Some(owner), if_mode)
    }

    /// Whether an identifier may be replaced by something else.
    fn may_expand(&self, name: &str) -> bool {
        self.macros.contains_key(name)
            || matches!(name, "__LINE__" | "__FILE__" | "_Pragma")
            || (self.input.if_mode && name == "defined")
    }

    /// Expands `toks` as if they were the rest of the input (a macro
    /// argument, or a directive line when `owner` is None).
    pub(super) fn expand_isolated(
        &mut self,
        toks: Vec<PTok>,
        owner: Option<ExpnId>,
        if_mode: bool,
    ) -> Vec<PTok> {
        if self.arg_depth >= MAX_ARG_DEPTH {
            let span = toks.first().map_or_else(Span::default, |t| t.tok.span);
            let msg = format!("macro invocations nested too deeply in macro arguments (more than {MAX_ARG_DEPTH} levels)");
            self.halt(span, msg);
            return toks;
        }
        let mut rev = toks;
        rev.reverse();
        let inner = Input {
            ctx: vec![rev],
            read_files: false,
            owner,
            if_mode,
            ..Input::default()
        };
        let saved = std::mem::replace(&mut self.input, inner);
        self.arg_depth += 1;
        let mut out = Vec::new();
        while let Some(t) = self.next_expanded() {
            out.push(t);
        }
        self.arg_depth -= 1;
        self.input = saved;
        out
    }

    // ---- operators and built-in macros ----

    /// `defined NAME` or `defined ( NAME )` in `#if`, as `1` or `0`.
    fn defined_operator(&mut self, kw: PTok) -> PTok {
        let mut end = kw.tok.span;
        let mut name = None;
        match self.next_raw(false) {
            Some(t) if t.tok.kind == TokenKind::Ident => {
                end = t.tok.span;
                name = Some(t.tok.text);
            }
            Some(open) if open.tok.kind == TokenKind::LParen => match self.next_raw(false) {
                Some(t) if t.tok.kind == TokenKind::Ident => match self.next_raw(false) {
                    Some(close) if close.tok.kind == TokenKind::RParen => {
                        end = close.tok.span;
                        name = Some(t.tok.text);
                    }
                    other => {
                        let span = other
                            .as_ref()
                            .map_or(t.tok.span.end_point(), |o| o.tok.span);
                        let d = Diagnostic::new(
                            Code::BadDirective,
                            span,
                            "expected `)` after `defined(NAME`",
                        )
                        .with_related(open.tok.span, "to match this `(`");
                        self.diags.push(d);
                    }
                },
                other => {
                    let span = other
                        .as_ref()
                        .map_or(open.tok.span.end_point(), |o| o.tok.span);
                    self.error(
                        Code::BadDirective,
                        span,
                        "macro name missing after `defined(`",
                    );
                }
            },
            other => {
                let span = other
                    .as_ref()
                    .map_or(kw.tok.span.end_point(), |o| o.tok.span);
                self.error(
                    Code::BadDirective,
                    span,
                    "macro name missing after `defined`",
                );
            }
        }
        let value = match &name {
            Some(n) => self.is_defined(n),
            None => {
                self.if_failed = true;
                false
            }
        };
        let tok = Token {
            kind: TokenKind::Number,
            text: if value { "1" } else { "0" }.into(),
            span: kw.tok.span.to(end),
            ..kw.tok
        };
        PTok { tok, hs: kw.hs }
    }

    /// `__LINE__` (the line where the token stands in the main text, so the
    /// line of the outermost invocation) and `__FILE__`.
    fn builtin_macro(&mut self, t: PTok) -> PTok {
        let span = t.tok.span;
        let (kind, text) = if t.tok.text == "__LINE__" {
            let (line, _) = self.sources.line_col(span.file, span.start);
            (TokenKind::Number, line.to_string())
        } else {
            let name = &self.sources.get(span.file).name;
            (TokenKind::StringLit, quote(name))
        };
        let call_site = t.tok.spelling;
        let id = self.new_expansion(&t, call_site, None);
        let tok = Token {
            kind,
            text: text.into(),
            expansion: id.or(t.tok.expansion),
            ..t.tok
        };
        PTok { tok, hs: t.hs }
    }

    /// The next unexpanded token if it has `kind`; otherwise reports `message`
    /// at `after` and leaves the token unread.
    fn expect_raw(&mut self, kind: TokenKind, after: Span, message: &str) -> Option<PTok> {
        match self.next_raw(false) {
            Some(t) if t.tok.kind == kind => Some(t),
            other => {
                self.error(Code::BadDirective, after, message);
                if let Some(o) = other {
                    self.unread(o);
                }
                None
            }
        }
    }

    /// `_Pragma ( "string" )`: handled like `#pragma string`.
    fn pragma_operator(&mut self, kw: PTok) {
        let bad = "`_Pragma` takes a parenthesized string literal";
        let Some(open) = self.expect_raw(TokenKind::LParen, kw.tok.span, bad) else {
            return;
        };
        let Some(string) = self.expect_raw(TokenKind::StringLit, open.tok.span, bad) else {
            return;
        };
        let Some(close) = self.expect_raw(TokenKind::RParen, string.tok.span, bad) else {
            return;
        };
        let text = destringize(&string.tok.text);
        let toks = lexer::lex(FileId(0), &text, &mut Vec::new());
        let span = kw.tok.span.to(close.tok.span);
        self.pragma(span, string.tok.span, &toks);
    }
}

/// `#param`: the spelling of the argument tokens as a string literal, one
/// space where there was whitespace, `"` and `\` escaped inside literals.
fn stringize(arg: &[PTok]) -> String {
    let mut s = String::from("\"");
    for (i, t) in arg.iter().enumerate() {
        if i > 0 && (t.tok.leading_space || t.tok.line_start) {
            s.push(' ');
        }
        if matches!(t.tok.kind, TokenKind::StringLit | TokenKind::CharLit) {
            for c in t.tok.text.chars() {
                if c == '"' || c == '\\' {
                    s.push('\\');
                }
                s.push(c);
            }
        } else {
            s.push_str(&t.tok.text);
        }
    }
    s.push('"');
    s
}

/// The text of `_Pragma("...")`: quotes removed, `\"` and `\\` unescaped.
fn destringize(lit: &str) -> String {
    let inner = lit
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or("");
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some(n @ ('"' | '\\')) => out.push(n),
                Some(n) => {
                    out.push('\\');
                    out.push(n);
                }
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A string literal whose value is `s`.
fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}
