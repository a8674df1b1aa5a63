//! Declarations: specifiers (with the normalization of multi-keyword type
//! names), declarators, parameter lists, structs, unions, enums, attributes,
//! initializers and type names.

use smol_str::SmolStr;

use super::{
    address_space, describe, is_access_qualifier, is_attribute_keyword, is_const_keyword,
    is_inline_keyword, is_kernel_keyword, is_reserved, is_restrict_keyword, is_type_keyword,
    is_volatile_keyword, Mark, Parser, SpecCtx, MAX_DEPTH,
};
use crate::ast::*;
use crate::diag::Code;
use crate::lexer::TokenKind;
use crate::source::Span;

/// Whether a declarator must, may or must not name something.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum DeclMode {
    /// Variables, fields, functions.
    Named,
    /// Type names in casts and `sizeof`.
    Abstract,
    /// Parameters (unnamed in prototypes).
    Either,
}

/// The type specifier keywords seen so far in one declaration.
#[derive(Default)]
struct TypeSpec {
    /// `true` for `unsigned`.
    sign: Option<(bool, Span)>,
    short: Option<Span>,
    long: Option<Span>,
    long_long_reported: bool,
    /// `int`, `char`, `double`, `float4`, `size_t`, ...
    base: Option<SmolStr>,
    /// A typedef name, struct, union, enum, or an unknown type (`Error`).
    other: Option<BaseType>,
    /// The first type specifier word, for messages.
    first: Option<SmolStr>,
    span: Option<Span>,
}

impl TypeSpec {
    fn has_type(&self) -> bool {
        self.sign.is_some()
            || self.short.is_some()
            || self.long.is_some()
            || self.base.is_some()
            || self.other.is_some()
    }

    fn extend(&mut self, span: Span) {
        self.span = Some(self.span.map_or(span, |s| s.to(span)));
    }

    fn note_first(&mut self, word: &str) {
        if self.first.is_none() {
            self.first = Some(SmolStr::new(word));
        }
    }

    /// The normalized built-in name (`unsigned long int` is `ulong`).
    fn finish(&self) -> Option<BaseType> {
        if let Some(other) = &self.other {
            return Some(other.clone());
        }
        let unsigned = matches!(self.sign, Some((true, _)));
        let int_family = |short: bool, long: bool| -> &'static str {
            match (unsigned, short, long) {
                (true, true, _) => "ushort",
                (true, _, true) => "ulong",
                (true, _, _) => "uint",
                (false, true, _) => "short",
                (false, _, true) => "long",
                (false, _, _) => "int",
            }
        };
        let name: SmolStr = match self.base.as_deref() {
            Some("char") => SmolStr::new_static(if unsigned { "uchar" } else { "char" }),
            Some("int") => {
                SmolStr::new_static(int_family(self.short.is_some(), self.long.is_some()))
            }
            Some("_Bool") => SmolStr::new_static("bool"),
            Some(other) => SmolStr::new(other),
            None if self.has_type() => {
                SmolStr::new_static(int_family(self.short.is_some(), self.long.is_some()))
            }
            None => return None,
        };
        Some(BaseType::Builtin(name))
    }
}

impl Parser<'_> {
    /// Is the current token an unknown type name, i.e. a plain identifier
    /// used where a type must be (`foo x;`, `foo *x` outside statements)?
    /// Only declaration-shaped text qualifies, so that junk is not taken
    /// for a declaration.
    pub(super) fn unknown_type_ahead(&self, ctx: SpecCtx) -> bool {
        if !self.is_plain_ident(self.tok()) {
            return false;
        }
        let next = self.nth(1);
        if ctx == SpecCtx::TypeName || (ctx == SpecCtx::Block && next.line_start) {
            return false;
        }
        // `kernal void f()`, `foo const x`: a type keyword follows.
        if self.starts_decl(next) {
            return true;
        }
        // In a block `foo * x` is a multiplication.
        if next.kind == TokenKind::Star {
            return ctx != SpecCtx::Block;
        }
        // `foo x` followed by what can follow a declarator.
        if !self.is_plain_ident(next) {
            return false;
        }
        use TokenKind::*;
        let after = self.nth_kind(2);
        match ctx {
            SpecCtx::File => matches!(after, LParen | Semi | Eq | Comma | LBracket),
            SpecCtx::Block => matches!(after, Semi | Eq | Comma | LBracket),
            SpecCtx::Param => matches!(after, RParen | Comma | LBracket),
            SpecCtx::Field => matches!(after, Semi | Comma | LBracket | Colon),
            SpecCtx::TypeName => false,
        }
    }

    /// Declaration specifiers: storage class, qualifiers, address space,
    /// `__kernel`, `inline`, attributes and the type, in any order.
    pub(super) fn parse_decl_specs(&mut self, ctx: SpecCtx) -> DeclSpec {
        let m = self.mark();
        let mut ts = TypeSpec::default();
        let mut quals = Qualifiers::default();
        let mut address_space_seen: Option<(AddressSpace, Span)> = None;
        let mut storage = Storage::None;
        let mut kernel = None;
        let mut inline = false;
        let mut attributes = Vec::new();
        loop {
            let t = self.tok();
            if t.kind != TokenKind::Ident {
                break;
            }
            let text = t.text.clone();
            let span = t.span;
            match text.as_str() {
                "typedef" | "static" | "extern" => {
                    self.bump();
                    let new = match text.as_str() {
                        "typedef" => Storage::Typedef,
                        "static" => Storage::Static,
                        _ => Storage::Extern,
                    };
                    if !matches!(ctx, SpecCtx::File | SpecCtx::Block) {
                        self.semantic_error(
                            Code::InvalidDeclaration,
                            span,
                            format!("`{text}` is not allowed here"),
                        );
                    } else if storage == new {
                        self.semantic_error(
                            Code::InvalidDeclaration,
                            span,
                            format!("duplicate `{text}`"),
                        );
                    } else if storage != Storage::None {
                        self.semantic_error(
                            Code::InvalidDeclaration,
                            span,
                            format!("cannot combine `{text}` with another storage class"),
                        );
                    } else {
                        storage = new;
                    }
                }
                // Accepted and meaningless, as in C.
                "register" => {
                    self.bump();
                }
                _ if is_const_keyword(&text) => {
                    self.bump();
                    quals.is_const = true;
                }
                _ if is_volatile_keyword(&text) => {
                    self.bump();
                    quals.is_volatile = true;
                }
                _ if is_restrict_keyword(&text) => {
                    self.bump();
                    quals.is_restrict = true;
                }
                _ if address_space(&text).is_some() => {
                    self.bump();
                    let space = address_space(&text).unwrap_or(AddressSpace::Private);
                    match address_space_seen {
                        Some((old, _)) if old != space => self.semantic_error(
                            Code::AddressSpace,
                            span,
                            format!(
                                "conflicting address spaces `{}` and `{}`",
                                old.keyword(),
                                space.keyword()
                            ),
                        ),
                        _ => address_space_seen = Some((space, span)),
                    }
                }
                _ if is_access_qualifier(&text) => {
                    self.bump();
                    let access = crate::types::ImageAccess::from_keyword(&text).unwrap_or_default();
                    if quals.access.is_some() {
                        self.semantic_error(
                            Code::InvalidDeclaration,
                            span,
                            "multiple access qualifiers",
                        );
                    } else {
                        quals.access = Some((access, span));
                    }
                }
                _ if is_kernel_keyword(&text) => {
                    self.bump();
                    kernel = Some(span);
                }
                _ if is_inline_keyword(&text) => {
                    self.bump();
                    inline = true;
                }
                _ if is_attribute_keyword(&text) => self.parse_attribute_spec(&mut attributes),
                "struct" | "union" | "enum" => {
                    let had_type = ts.has_type() && !matches!(ts.other, Some(BaseType::Error));
                    let base = if text == "enum" {
                        let e = self.parse_enum();
                        if e.tag.is_none() && e.variants.is_none() {
                            BaseType::Error
                        } else {
                            BaseType::Enum(e)
                        }
                    } else {
                        let st = self.parse_struct_or_union();
                        if st.tag.is_none() && st.fields.is_none() {
                            // `struct` alone (reported): let a type that
                            // follows take its place without more errors.
                            BaseType::Error
                        } else if text == "union" {
                            BaseType::Union(st)
                        } else {
                            BaseType::Struct(st)
                        }
                    };
                    attributes.append(&mut self.pending_attrs);
                    // After a struct body that never closed, what follows
                    // belongs to the next declaration.
                    let unclosed = std::mem::take(&mut self.struct_unclosed);
                    if had_type {
                        self.semantic_error(
                            Code::InvalidDeclaration,
                            span,
                            format!(
                                "cannot combine `{text}` with previous `{}`",
                                ts.first.as_deref().unwrap_or("type")
                            ),
                        );
                    } else {
                        ts = TypeSpec {
                            first: Some(text.clone()),
                            ..TypeSpec::default()
                        };
                        ts.other = Some(base);
                        ts.extend(span.to(self.prev_span));
                    }
                    if unclosed {
                        break;
                    }
                }
                _ if is_type_keyword(&text) => {
                    self.bump();
                    self.add_type_keyword(&mut ts, &text, span);
                }
                _ if !ts.has_type() && self.is_typedef_name(&text) => {
                    let ident = self.bump_ident();
                    ts.note_first(&text);
                    ts.other = Some(BaseType::Typedef(ident));
                    ts.extend(span);
                }
                _ if !ts.has_type()
                    && self.unknown_type_ahead(if ctx == SpecCtx::Block {
                        SpecCtx::File
                    } else {
                        ctx
                    }) =>
                {
                    self.bump();
                    self.semantic_error(
                        Code::Undeclared,
                        span,
                        format!("unknown type name `{text}`"),
                    );
                    ts.other = Some(BaseType::Error);
                    ts.extend(span);
                }
                _ => break,
            }
        }
        let span = self.finish(m);
        let (base, base_span) = match ts.finish() {
            Some(base) => (base, ts.span.unwrap_or(span)),
            None => {
                let at = span.end_point();
                self.semantic_error(Code::InvalidDeclaration, span, "missing type specifier");
                (BaseType::Error, at)
            }
        };
        DeclSpec {
            base,
            base_span,
            quals,
            address_space: address_space_seen,
            storage,
            kernel,
            inline,
            attributes,
            span,
        }
    }

    /// Adds one type keyword, reporting impossible combinations (`int float`,
    /// `unsigned float`) and `long long` / `long double`.
    fn add_type_keyword(&mut self, ts: &mut TypeSpec, word: &str, span: Span) {
        if matches!(ts.other, Some(BaseType::Error)) {
            // An unknown type name was reported; the real type follows
            // (`kernal void f()`), so start over silently.
            *ts = TypeSpec::default();
        }
        if ts.base.as_deref() == Some("pipe") {
            // `pipe int p`: the element type is dropped (pipes are rejected
            // as unsupported later).
            ts.extend(span);
            return;
        }
        let base = ts.base.as_deref();
        if word == "long" && ts.long.is_some() {
            if !ts.long_long_reported {
                ts.long_long_reported = true;
                self.semantic_error(
                    Code::InvalidDeclaration,
                    span,
                    "`long long` is not supported in OpenCL C; use `long` (64 bits)",
                );
            }
            ts.extend(span);
            return;
        }
        let modifiers = ts.sign.is_some() || ts.short.is_some() || ts.long.is_some();
        let conflict = ts.other.is_some()
            || match word {
                "signed" | "unsigned" => {
                    ts.sign.is_some() || base.is_some_and(|b| b != "char" && b != "int")
                }
                "short" => {
                    ts.short.is_some() || ts.long.is_some() || base.is_some_and(|b| b != "int")
                }
                "long" => ts.short.is_some() || base.is_some_and(|b| b != "int" && b != "double"),
                "char" => base.is_some() || ts.short.is_some() || ts.long.is_some(),
                "int" => base.is_some(),
                "double" => base.is_some() || ts.sign.is_some() || ts.short.is_some(),
                _ => base.is_some() || modifiers,
            };
        if conflict {
            let duplicate = ts.base.as_deref() == Some(word)
                || (ts.short.is_some() && word == "short")
                || matches!(ts.sign, Some((u, _)) if (word == "unsigned") == u && matches!(word, "signed" | "unsigned"));
            let message = if duplicate {
                format!("duplicate `{word}`")
            } else {
                format!(
                    "cannot combine `{word}` with previous `{}`",
                    ts.first.as_deref().unwrap_or("type")
                )
            };
            self.semantic_error(Code::InvalidDeclaration, span, message);
            return;
        }
        if (word == "double" && ts.long.is_some()) || (word == "long" && base == Some("double")) {
            self.semantic_error(
                Code::InvalidDeclaration,
                span,
                "`long double` is not supported in OpenCL C; use `double`",
            );
        }
        match word {
            "signed" => ts.sign = Some((false, span)),
            "unsigned" => ts.sign = Some((true, span)),
            "short" => ts.short = Some(span),
            "long" => ts.long = Some(span),
            _ => ts.base = Some(SmolStr::new(word)),
        }
        ts.note_first(word);
        ts.extend(span);
    }

    // -- attributes ---------------------------------------------------------

    /// `__attribute__((name, name(args), ...))`; the current token is the
    /// keyword.
    pub(super) fn parse_attribute_spec(&mut self, out: &mut Vec<Attribute>) {
        self.bump();
        let Some(open1) = self.eat(TokenKind::LParen) else {
            self.expected("`(` after `__attribute__`");
            return;
        };
        let Some(open2) = self.eat(TokenKind::LParen) else {
            self.expected("`(`");
            self.skip_to_close_paren();
            return;
        };
        loop {
            match self.kind() {
                TokenKind::RParen => break,
                TokenKind::Comma => {
                    self.bump();
                }
                TokenKind::Ident => {
                    let name = self.bump_ident();
                    let mut args = None;
                    let mut exprs = Vec::new();
                    let mut type_arg = None;
                    // A syntax error in the arguments is the only error
                    // about the attribute, which is then left out.
                    let mut well_formed = true;
                    if let Some(open) = self.eat(TokenKind::LParen) {
                        let first = self.pos;
                        match name.name.trim_matches('_') {
                            "reqd_work_group_size" | "work_group_size_hint" | "aligned" => {
                                exprs = self.parse_attribute_arguments();
                                well_formed = self.expect_before_close_paren();
                            }
                            "vec_type_hint" if self.kind() != TokenKind::RParen => {
                                type_arg = Some(Box::new(self.parse_type_name()));
                                well_formed = self.expect_before_close_paren();
                            }
                            _ => {}
                        }
                        let closed = self.skip_to_close_paren();
                        // The inside of the parentheses, without them.
                        let last = if closed {
                            self.pos.saturating_sub(1)
                        } else {
                            self.pos
                        };
                        args = Some(if last > first {
                            self.toks[first].span.to(self.toks[last - 1].span)
                        } else {
                            open.end_point()
                        });
                        if !closed {
                            self.report_unclosed(TokenKind::RParen, open);
                            return;
                        }
                    }
                    let span = name.span.to(self.prev_span);
                    if !well_formed {
                        continue;
                    }
                    out.push(Attribute {
                        name,
                        args,
                        exprs,
                        type_arg,
                        span,
                    });
                }
                _ => {
                    self.expected("attribute name");
                    self.skip_to_close_paren();
                    break;
                }
            }
        }
        if self.expect_closing(TokenKind::RParen, open2) {
            self.expect_closing(TokenKind::RParen, open1);
        }
    }

    /// The comma-separated expressions of an attribute whose arguments are
    /// integer constants, up to (not including) the closing `)`. They are
    /// parsed from the preprocessed tokens, so macros in them are expanded.
    fn parse_attribute_arguments(&mut self) -> Vec<Expr> {
        let mut exprs = Vec::new();
        while self.kind() != TokenKind::RParen && exprs.len() < 16 {
            exprs.push(self.parse_assign());
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        exprs
    }

    /// After an attribute's arguments: anything but the closing `)` is an
    /// error there (`reqd_work_group_size(16 17, 1, 1)`), as clang says.
    fn expect_before_close_paren(&mut self) -> bool {
        if matches!(self.kind(), TokenKind::RParen | TokenKind::Eof) {
            return true;
        }
        self.expected("`)`");
        false
    }

    /// Inside parentheses: skips to the matching `)` and consumes it (true),
    /// or stops before a `;`, `{`, `}` or the end of file (false).
    pub(super) fn skip_to_close_paren(&mut self) -> bool {
        let mut level: u32 = 0;
        loop {
            match self.kind() {
                TokenKind::Eof | TokenKind::Semi | TokenKind::LBrace | TokenKind::RBrace => {
                    return false
                }
                TokenKind::LParen => level += 1,
                TokenKind::RParen => {
                    if level == 0 {
                        self.bump();
                        return true;
                    }
                    level -= 1;
                }
                _ => {}
            }
            self.bump();
        }
    }

    // -- declarators --------------------------------------------------------

    pub(super) fn parse_declarator(&mut self, mode: DeclMode) -> Declarator {
        self.with_depth(
            |p| p.parse_declarator_inner(mode),
            |p| {
                let m = p.mark();
                p.skip_deep();
                Declarator {
                    name: None,
                    derived: Vec::new(),
                    span: p.finish(m),
                }
            },
        )
    }

    fn parse_declarator_inner(&mut self, mode: DeclMode) -> Declarator {
        let m = self.mark();
        let mut derived = Vec::new();
        // Pointers, in source order, are from the base type outwards.
        while self.at(TokenKind::Star) {
            let star = self.bump();
            let mut quals = Qualifiers::default();
            let mut space = None;
            loop {
                let t = self.tok();
                if t.kind != TokenKind::Ident {
                    break;
                }
                let text = t.text.clone();
                match text.as_str() {
                    _ if is_const_keyword(&text) => quals.is_const = true,
                    _ if is_volatile_keyword(&text) => quals.is_volatile = true,
                    _ if is_restrict_keyword(&text) => quals.is_restrict = true,
                    _ if address_space(&text).is_some() => space = address_space(&text),
                    _ if is_attribute_keyword(&text) => {
                        let mut attrs = Vec::new();
                        self.parse_attribute_spec(&mut attrs);
                        self.pending_attrs.append(&mut attrs);
                        continue;
                    }
                    _ => break,
                }
                self.bump();
            }
            derived.push(Derived::Pointer {
                quals,
                address_space: space,
                span: star.to(self.prev_span),
            });
        }
        let mut name = None;
        let mut inner = None;
        let t = self.tok();
        if t.kind == TokenKind::LParen && self.paren_starts_nested_declarator(mode) {
            let open = self.bump();
            inner = Some(self.parse_declarator(mode));
            self.expect_closing(TokenKind::RParen, open);
        } else if t.kind == TokenKind::Ident && !is_reserved(&t.text) && mode != DeclMode::Abstract
        {
            name = Some(self.bump_ident());
        } else if mode == DeclMode::Named {
            self.expected("identifier");
        }
        // Array and function suffixes, in source order from the name outwards.
        let mut suffixes = Vec::new();
        loop {
            match self.kind() {
                TokenKind::LBracket => {
                    let open = self.bump();
                    let size = if self.at(TokenKind::RBracket) {
                        None
                    } else {
                        Some(Box::new(self.parse_assign()))
                    };
                    self.expect_closing(TokenKind::RBracket, open);
                    suffixes.push(Derived::Array {
                        size,
                        span: open.to(self.prev_span),
                    });
                }
                TokenKind::LParen
                    if name.is_some() || inner.is_some() || mode != DeclMode::Named =>
                {
                    let (params, variadic, span) = self.parse_param_list();
                    suffixes.push(Derived::Function {
                        params,
                        variadic,
                        span,
                    });
                }
                TokenKind::Ident if is_attribute_keyword(&self.tok().text) => {
                    let mut attrs = Vec::new();
                    self.parse_attribute_spec(&mut attrs);
                    self.pending_attrs.append(&mut attrs);
                }
                _ => break,
            }
        }
        derived.extend(suffixes.into_iter().rev());
        if let Some(inner) = inner {
            derived.extend(inner.derived);
            name = inner.name;
        }
        if derived.len() > MAX_DEPTH as usize {
            // Types nested this deep are not code anyone writes; later
            // passes recurse over them.
            self.too_deep();
            derived.truncate(MAX_DEPTH as usize);
        }
        Declarator {
            name,
            derived,
            span: self.finish(m),
        }
    }

    /// At a `(` where a declarator's name would be: does it open a nested
    /// declarator (`(*p)`) rather than a parameter list (`(int)`)?
    fn paren_starts_nested_declarator(&self, mode: DeclMode) -> bool {
        let next = self.nth(1);
        match next.kind {
            TokenKind::Star | TokenKind::LParen => true,
            TokenKind::Ident => {
                if is_attribute_keyword(&next.text) {
                    true
                } else if self.starts_decl(next) || is_reserved(&next.text) {
                    false
                } else {
                    mode != DeclMode::Abstract
                }
            }
            _ => false,
        }
    }

    /// `( params )`; the current token is `(`. Returns the parameters, the
    /// variadic flag and the span of the list.
    fn parse_param_list(&mut self) -> (Vec<Param>, bool, Span) {
        let open = self.bump();
        let mut params = Vec::new();
        let mut variadic = false;
        let mut list_broken = false;
        if self.eat(TokenKind::RParen).is_some() {
            return (params, variadic, open.to(self.prev_span));
        }
        if self.at_kw("void") && self.nth_kind(1) == TokenKind::RParen {
            self.bump();
            self.bump();
            return (params, variadic, open.to(self.prev_span));
        }
        loop {
            if self.eat(TokenKind::Ellipsis).is_some() {
                variadic = true;
                break;
            }
            if self.at_kernel_line_start() {
                // The list never closed; the next kernel starts here.
                break;
            }
            let t = self.tok();
            if self.starts_decl(t) || self.unknown_type_ahead(SpecCtx::Param) {
                params.push(self.parse_param());
            } else if self.is_plain_ident(t)
                && matches!(self.nth_kind(1), TokenKind::Comma | TokenKind::RParen)
            {
                // `f(a, b)`: an old-style identifier list.
                let span = t.span;
                if !self.knr_seen {
                    self.syntax_error(
                        span,
                        "old-style (K&R) parameter lists are not supported; declare each parameter with its type",
                    );
                }
                self.knr_seen = true;
                let m = self.mark();
                let name = self.bump_ident();
                let spec = error_spec(span.start_point());
                let declarator = Declarator {
                    name: Some(name),
                    derived: Vec::new(),
                    span,
                };
                params.push(Param {
                    id: self.id(),
                    spec,
                    declarator,
                    span: self.finish(m),
                });
            } else {
                // One error per list: the rest of a broken list is likely
                // broken for the same reason.
                if !list_broken {
                    self.expected("parameter declaration");
                }
                list_broken = true;
                self.skip_param_garbage();
            }
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        if self.eat(TokenKind::RParen).is_none() {
            self.report_unclosed(TokenKind::RParen, open);
            let t = self.tok();
            if !(t.line_start
                || matches!(
                    t.kind,
                    TokenKind::LBrace | TokenKind::Semi | TokenKind::RBrace
                ))
            {
                self.skip_param_garbage();
                self.eat(TokenKind::RParen);
            }
        }
        (params, variadic, open.to(self.prev_span))
    }

    /// Skips a broken parameter up to the next `,` or `)` of the list (not
    /// consumed), stopping at a `{`, `;` or `}` that belongs to what follows.
    fn skip_param_garbage(&mut self) {
        let mut level: u32 = 0;
        loop {
            if self.at_kernel_line_start() {
                return;
            }
            match self.kind() {
                TokenKind::Eof | TokenKind::LBrace | TokenKind::RBrace | TokenKind::Semi => return,
                TokenKind::Comma if level == 0 => return,
                TokenKind::LParen | TokenKind::LBracket => level += 1,
                TokenKind::RParen | TokenKind::RBracket => {
                    if level == 0 {
                        return;
                    }
                    level -= 1;
                }
                _ => {}
            }
            self.bump();
        }
    }

    fn parse_param(&mut self) -> Param {
        let m = self.mark();
        let mut spec = self.parse_decl_specs(SpecCtx::Param);
        let declarator = self.parse_declarator(DeclMode::Either);
        self.take_attrs(&mut spec);
        Param {
            id: self.id(),
            spec,
            declarator,
            span: self.finish(m),
        }
    }

    // -- declarations -------------------------------------------------------

    /// The rest of a declaration after its first declarator: attributes,
    /// initializers and further declarators (not the `;`). Declares the names
    /// in the current scope.
    pub(super) fn parse_decl_rest(
        &mut self,
        mut spec: DeclSpec,
        first: Declarator,
        m: Mark,
    ) -> Declaration {
        let mut declarators = Vec::new();
        let mut declarator = first;
        loop {
            self.take_attrs(&mut spec);
            if let Some(name) = &declarator.name {
                let name = name.name.clone();
                self.declare(&name, spec.storage == Storage::Typedef);
            }
            let init = if self.eat(TokenKind::Eq).is_some() {
                Some(self.parse_initializer())
            } else {
                None
            };
            let span = if init.is_some() {
                declarator.span.to(self.prev_span)
            } else {
                declarator.span
            };
            declarators.push(InitDeclarator {
                id: self.id(),
                declarator,
                init,
                span,
            });
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
            declarator = self.parse_declarator(DeclMode::Named);
        }
        Declaration {
            spec,
            declarators,
            span: self.finish(m),
        }
    }

    // -- initializers -------------------------------------------------------

    pub(super) fn parse_initializer(&mut self) -> Initializer {
        if !self.at(TokenKind::LBrace) {
            return Initializer::Expr(self.parse_assign());
        }
        self.with_depth(
            |p| p.parse_init_list(),
            |p| {
                let m = p.mark();
                p.skip_deep();
                Initializer::List {
                    items: Vec::new(),
                    span: p.finish(m),
                }
            },
        )
    }

    /// `{ a, .x = b, [2] = c, }`; the current token is `{`.
    fn parse_init_list(&mut self) -> Initializer {
        let m = self.mark();
        let open = self.bump();
        let mut items = Vec::new();
        loop {
            if self.eat(TokenKind::RBrace).is_some() {
                break;
            }
            if self.at(TokenKind::Eof) {
                self.report_unclosed(TokenKind::RBrace, open);
                break;
            }
            let designator = self.parse_designator();
            let init = self.parse_initializer();
            items.push((designator, init));
            if self.eat(TokenKind::Comma).is_some() {
                continue;
            }
            if self.eat(TokenKind::RBrace).is_some() {
                break;
            }
            self.report_unclosed(TokenKind::RBrace, open);
            // Resynchronize at the next element or the end of the list; give
            // up at what looks like the next statement.
            if self.plausible_stmt_start() || self.at(TokenKind::Semi) {
                break;
            }
            self.skip_init_garbage();
            if self.eat(TokenKind::Comma).is_none() {
                self.eat(TokenKind::RBrace);
                break;
            }
        }
        Initializer::List {
            items,
            span: self.finish(m),
        }
    }

    /// Skips to the next `,` or `}` of an initializer list (not consumed).
    fn skip_init_garbage(&mut self) {
        let mut level: u32 = 0;
        loop {
            match self.kind() {
                TokenKind::Eof | TokenKind::Semi => return,
                TokenKind::Comma | TokenKind::RBrace if level == 0 => return,
                TokenKind::LParen | TokenKind::LBracket | TokenKind::LBrace => level += 1,
                TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace => {
                    level = level.saturating_sub(1)
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// `.x =` or `[i] =` before an initializer, if present.
    fn parse_designator(&mut self) -> Option<Designator> {
        let designator = match self.kind() {
            TokenKind::Dot => {
                self.bump();
                if self.is_field_name() {
                    Designator::Field(self.bump_ident())
                } else {
                    self.expected("field name");
                    return None;
                }
            }
            TokenKind::LBracket => {
                let open = self.bump();
                let index = self.parse_conditional();
                self.expect_closing(TokenKind::RBracket, open);
                Designator::Index(index)
            }
            _ => return None,
        };
        if matches!(self.kind(), TokenKind::Dot | TokenKind::LBracket) {
            let span = self.tok().span;
            self.syntax_error(
                span,
                "nested designators (`.a.b =`, `[i][j] =`) are not supported; use nested braces",
            );
            while !matches!(
                self.kind(),
                TokenKind::Eq
                    | TokenKind::Comma
                    | TokenKind::RBrace
                    | TokenKind::Semi
                    | TokenKind::Eof
            ) {
                self.bump();
            }
        }
        if self.eat(TokenKind::Eq).is_none() {
            let message = format!(
                "expected `=` after designator, found {}",
                describe(self.tok())
            );
            let span = self.tok().span;
            self.syntax_error(span, message);
        }
        Some(designator)
    }

    /// A field or swizzle name after `.`/`->` (any non-keyword identifier).
    pub(super) fn is_field_name(&self) -> bool {
        let t = self.tok();
        t.kind == TokenKind::Ident && !is_reserved(&t.text)
    }

    // -- type names ---------------------------------------------------------

    /// A type in a cast or `sizeof`: specifiers and an abstract declarator.
    pub(super) fn parse_type_name(&mut self) -> TypeName {
        let m = self.mark();
        let mut spec = self.parse_decl_specs(SpecCtx::TypeName);
        let declarator = self.parse_declarator(DeclMode::Abstract);
        self.take_attrs(&mut spec);
        TypeName {
            spec,
            declarator,
            span: self.finish(m),
        }
    }

    // -- structs, unions, enums ---------------------------------------------

    /// `struct`/`union` with an optional tag and an optional field list; the
    /// current token is the keyword.
    fn parse_struct_or_union(&mut self) -> StructType {
        let m = self.mark();
        let keyword = self.tok().text.clone();
        self.bump();
        // Attributes of the type itself; kept apart from those of the fields.
        let mut attrs = self.parse_type_attributes();
        let tag = if self.is_field_name() {
            Some(self.bump_ident())
        } else {
            None
        };
        let fields = if self.at(TokenKind::LBrace) {
            Some(self.with_depth(
                |p| p.parse_fields(),
                |p| {
                    p.skip_deep();
                    Vec::new()
                },
            ))
        } else {
            if tag.is_none() {
                self.expected(&format!("identifier or `{{` after `{keyword}`"));
            }
            None
        };
        attrs.append(&mut self.parse_type_attributes());
        self.pending_attrs.append(&mut attrs);
        StructType {
            tag,
            fields,
            span: self.finish(m),
        }
    }

    /// Attributes next to a struct or enum keyword or body (`packed`).
    fn parse_type_attributes(&mut self) -> Vec<Attribute> {
        let mut attrs = Vec::new();
        while self.tok().kind == TokenKind::Ident && is_attribute_keyword(&self.tok().text) {
            self.parse_attribute_spec(&mut attrs);
        }
        attrs
    }

    /// `{ field declarations }`; the current token is `{`.
    fn parse_fields(&mut self) -> Vec<FieldDecl> {
        let open = self.bump();
        let mut fields = Vec::new();
        loop {
            match self.kind() {
                TokenKind::RBrace => {
                    self.bump();
                    break;
                }
                TokenKind::Eof => {
                    self.report_unclosed_brace(open);
                    self.struct_unclosed = true;
                    break;
                }
                // An extra `;` between fields is harmless.
                TokenKind::Semi => {
                    self.bump();
                    continue;
                }
                _ => {}
            }
            if self.at_non_field_line_start() {
                self.report_unclosed(TokenKind::RBrace, open);
                self.struct_unclosed = true;
                break;
            }
            let before = self.pos;
            if self.starts_decl(self.tok()) || self.unknown_type_ahead(SpecCtx::Field) {
                self.parse_field_decl(&mut fields);
            } else {
                self.expected("field declaration");
                self.skip_field_garbage();
            }
            if self.pos == before {
                self.bump();
            }
        }
        fields
    }

    /// One `spec declarator [: width], ...;` line of a struct.
    fn parse_field_decl(&mut self, out: &mut Vec<FieldDecl>) {
        let m = self.mark();
        let errors_before = self.error_count;
        let mut spec = self.parse_decl_specs(SpecCtx::Field);
        if self.at(TokenKind::Semi) {
            // An anonymous struct or union member.
            self.bump();
            let declarator = Declarator {
                name: None,
                derived: Vec::new(),
                span: self.prev_span.start_point(),
            };
            out.push(FieldDecl {
                id: self.id(),
                spec,
                declarator,
                bit_width: None,
                span: self.finish(m),
            });
            return;
        }
        loop {
            let declarator = if self.at(TokenKind::Colon) {
                // An unnamed bit-field.
                Declarator {
                    name: None,
                    derived: Vec::new(),
                    span: self.tok().span.start_point(),
                }
            } else {
                self.parse_declarator(DeclMode::Named)
            };
            let bit_width = if self.eat(TokenKind::Colon).is_some() {
                Some(self.parse_conditional())
            } else {
                None
            };
            self.take_attrs(&mut spec);
            let span = self.finish(m);
            out.push(FieldDecl {
                id: self.id(),
                spec: spec.clone(),
                declarator,
                bit_width,
                span,
            });
            if self.eat(TokenKind::Comma).is_none() {
                break;
            }
        }
        if self.eat(TokenKind::Semi).is_none() {
            if self.error_count == errors_before {
                self.report_missing_semi("at end of field declaration");
            }
            if !(self.at(TokenKind::RBrace) || self.tok().line_start) {
                self.skip_field_garbage();
            }
        }
    }

    /// A line that starts with what no field can start with (a storage
    /// class, `inline`, an address space, `__kernel`): the struct's `}` is
    /// missing before it.
    fn at_non_field_line_start(&self) -> bool {
        let t = self.tok();
        t.line_start
            && t.kind == TokenKind::Ident
            && (matches!(t.text.as_str(), "typedef" | "static" | "extern")
                || is_kernel_keyword(&t.text)
                || is_inline_keyword(&t.text)
                || address_space(&t.text).is_some())
    }

    /// Skips to after the next `;` or to the `}` ending the struct.
    fn skip_field_garbage(&mut self) {
        let mut braces: u32 = 0;
        loop {
            match self.kind() {
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
            if self.at_non_field_line_start() {
                return;
            }
            self.bump();
        }
    }

    /// `enum` with an optional tag and enumerator list; the current token is
    /// the keyword. Enumerators are ordinary identifiers in the current scope.
    fn parse_enum(&mut self) -> EnumType {
        let m = self.mark();
        self.bump();
        let mut attrs = self.parse_type_attributes();
        let tag = if self.is_field_name() {
            Some(self.bump_ident())
        } else {
            None
        };
        let mut variants = None;
        if let Some(open) = self.eat(TokenKind::LBrace) {
            let mut list = Vec::new();
            loop {
                if self.eat(TokenKind::RBrace).is_some() {
                    break;
                }
                if self.at(TokenKind::Eof) || self.at_kernel_line_start() {
                    self.report_unclosed(TokenKind::RBrace, open);
                    break;
                }
                if !self.is_field_name() {
                    self.expected("enumerator name");
                    self.skip_init_garbage();
                    if self.eat(TokenKind::Comma).is_none() {
                        self.eat(TokenKind::RBrace);
                        break;
                    }
                    continue;
                }
                let name = self.bump_ident();
                self.declare(&name.name, false);
                let value = if self.eat(TokenKind::Eq).is_some() {
                    Some(self.parse_conditional())
                } else {
                    None
                };
                list.push((name, value));
                if self.eat(TokenKind::Comma).is_some() {
                    continue;
                }
                if self.eat(TokenKind::RBrace).is_some() {
                    break;
                }
                self.report_unclosed(TokenKind::RBrace, open);
                self.skip_init_garbage();
                if self.eat(TokenKind::Comma).is_none() {
                    self.eat(TokenKind::RBrace);
                    break;
                }
            }
            variants = Some(list);
        } else if tag.is_none() {
            self.expected("identifier or `{` after `enum`");
        }
        attrs.append(&mut self.parse_type_attributes());
        self.pending_attrs.append(&mut attrs);
        EnumType {
            tag,
            variants,
            span: self.finish(m),
        }
    }
}

/// Specifiers of a parameter written without a type (old-style lists).
fn error_spec(at: Span) -> DeclSpec {
    DeclSpec {
        base: BaseType::Error,
        base_span: at,
        quals: Qualifiers::default(),
        address_space: None,
        storage: Storage::None,
        kernel: None,
        inline: false,
        attributes: Vec::new(),
        span: at,
    }
}

trait StartPoint {
    fn start_point(self) -> Span;
}

impl StartPoint for Span {
    /// An empty span at the start of `self`.
    fn start_point(self) -> Span {
        Span {
            end: self.start,
            ..self
        }
    }
}
