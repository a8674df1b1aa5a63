//! Statements and blocks.

use super::decl::DeclMode;
use super::{
    describe, is_asm_keyword, is_attribute_keyword, is_function_declarator, is_reserved, Parser,
    SpecCtx, STATEMENT_KEYWORDS,
};
use crate::ast::*;
use crate::diag::{Code, Diagnostic};
use crate::lexer::TokenKind;
use crate::source::Span;

impl Parser<'_> {
    /// `{ statements }`; the current token is `{`. A missing `}` is reported
    /// at the end of file, or at a `__kernel` that starts a line (no kernel
    /// can be inside a block, so the block must have ended before it).
    pub(super) fn parse_block(&mut self) -> Block {
        self.parse_block_with(true)
    }

    /// A block whose `{` is present (`has_brace`) or was found missing
    /// (already reported).
    pub(super) fn parse_block_with(&mut self, has_brace: bool) -> Block {
        let m = self.mark();
        let open = if has_brace {
            self.bump()
        } else {
            self.prev_span.end_point()
        };
        self.push_scope();
        let mut stmts = Vec::new();
        loop {
            match self.kind() {
                TokenKind::RBrace => {
                    self.bump();
                    break;
                }
                TokenKind::Eof => {
                    self.report_unclosed_brace(open);
                    break;
                }
                _ if self.at_kernel_line_start() => {
                    self.report_unclosed(TokenKind::RBrace, open);
                    break;
                }
                _ => {}
            }
            let before = self.pos;
            stmts.push(self.parse_stmt());
            if self.pos == before {
                // Nothing could start a statement here (should not happen).
                self.expected("statement");
                self.bump();
            }
        }
        self.pop_scope();
        Block {
            id: self.id(),
            stmts,
            span: self.finish(m),
        }
    }

    /// "expected `}`" at the end of file, once per file: nested unclosed
    /// blocks all end there, and one message is enough.
    pub(super) fn report_unclosed_brace(&mut self, open: Span) {
        self.error_count += 1;
        if self.eof_brace_reported {
            return;
        }
        self.eof_brace_reported = true;
        self.last_error_pos = Some(self.pos);
        let span = self.missing_token_span();
        self.diags.push(
            Diagnostic::new(Code::Syntax, span, "expected `}`, found end of file")
                .with_related(open, "to match this `{`"),
        );
    }

    pub(super) fn parse_stmt(&mut self) -> Stmt {
        self.with_depth(
            |p| p.parse_stmt_inner(),
            |p| {
                let m = p.mark();
                p.skip_deep();
                p.eat(TokenKind::Semi);
                let span = p.finish(m);
                Stmt {
                    id: p.id(),
                    kind: StmtKind::Error,
                    span,
                }
            },
        )
    }

    fn parse_stmt_inner(&mut self) -> Stmt {
        let m = self.mark();
        let t = self.tok();
        let kind = match t.kind {
            TokenKind::LBrace => StmtKind::Block(self.parse_block()),
            TokenKind::Semi => {
                self.bump();
                StmtKind::Empty
            }
            TokenKind::RBrace | TokenKind::Eof => {
                self.expected("statement");
                StmtKind::Error
            }
            TokenKind::Ident => {
                let text = t.text.clone();
                match text.as_str() {
                    "if" => self.parse_if(),
                    "while" => self.parse_while(),
                    "do" => self.parse_do_while(),
                    "for" => self.parse_for(),
                    "switch" => {
                        self.bump();
                        let cond = self.parse_paren_cond("switch");
                        let body = Box::new(self.parse_stmt());
                        StmtKind::Switch { cond, body }
                    }
                    "case" => self.parse_case(),
                    "default" => {
                        self.bump();
                        self.expect_label_colon("after `default`");
                        StmtKind::Default {
                            body: Box::new(self.parse_label_body()),
                        }
                    }
                    "return" => {
                        self.bump();
                        let errors_before = self.error_count;
                        let value = if matches!(self.kind(), TokenKind::Semi | TokenKind::RBrace) {
                            None
                        } else {
                            Some(self.parse_expr())
                        };
                        self.end_stmt("after `return` statement", errors_before);
                        StmtKind::Return(value)
                    }
                    "break" | "continue" => {
                        self.bump();
                        self.end_stmt(&format!("after `{text}`"), self.error_count);
                        if text == "break" {
                            StmtKind::Break
                        } else {
                            StmtKind::Continue
                        }
                    }
                    "goto" => {
                        self.bump();
                        let errors_before = self.error_count;
                        if self.is_field_name() {
                            let label = self.bump_ident();
                            self.end_stmt("after `goto` statement", errors_before);
                            StmtKind::Goto(label)
                        } else {
                            self.expected("label name after `goto`");
                            self.recover_stmt();
                            StmtKind::Error
                        }
                    }
                    "else" => {
                        let span = self.bump();
                        self.syntax_error(span, "`else` without a previous `if`");
                        // Keep what follows: it is likely meant as code.
                        return self.parse_stmt();
                    }
                    // `__attribute__((opencl_unroll_hint)) for (...)`: the AST has
                    // no place for statement attributes, so they are dropped.
                    _ if is_attribute_keyword(&text) && self.attributes_precede_statement() => {
                        while self.tok().kind == TokenKind::Ident
                            && is_attribute_keyword(&self.tok().text)
                        {
                            let mut dropped = Vec::new();
                            self.parse_attribute_spec(&mut dropped);
                        }
                        return self.parse_stmt_inner();
                    }
                    _ if is_asm_keyword(&text) => {
                        self.skip_asm();
                        StmtKind::Error
                    }
                    _ if self.nth_kind(1) == TokenKind::Colon && !is_reserved(&text) => {
                        let label = self.bump_ident();
                        self.bump();
                        StmtKind::Labeled {
                            label,
                            body: Box::new(self.parse_label_body()),
                        }
                    }
                    _ if self.starts_decl(self.tok())
                        || self.unknown_type_ahead(SpecCtx::Block) =>
                    {
                        return self.parse_decl_stmt();
                    }
                    _ => self.parse_expr_stmt(),
                }
            }
            _ => self.parse_expr_stmt(),
        };
        let mut span = self.finish(m);
        if let StmtKind::Expr(e) = &kind {
            // A missing first operand is an empty `Error` just before `m`.
            span = span.to(e.span);
        }
        Stmt {
            id: self.id(),
            kind,
            span,
        }
    }

    /// At `__attribute__`: do the attribute specifiers precede a statement
    /// keyword or a block rather than a declaration? (Looks ahead only.)
    fn attributes_precede_statement(&self) -> bool {
        let mut i = 0;
        loop {
            let t = self.nth(i);
            if !(t.kind == TokenKind::Ident && is_attribute_keyword(&t.text)) {
                return t.kind == TokenKind::LBrace
                    || (t.kind == TokenKind::Ident
                        && STATEMENT_KEYWORDS.contains(&t.text.as_str()));
            }
            // Skip `__attribute__ ( ... )` with balanced parentheses.
            i += 1;
            if self.nth_kind(i) != TokenKind::LParen {
                return false;
            }
            let mut level = 0u32;
            loop {
                match self.nth_kind(i) {
                    TokenKind::LParen => level += 1,
                    TokenKind::RParen => {
                        level -= 1;
                        if level == 0 {
                            break;
                        }
                    }
                    TokenKind::Eof | TokenKind::Semi | TokenKind::LBrace | TokenKind::RBrace => {
                        return false
                    }
                    _ => {}
                }
                i += 1;
            }
            i += 1;
        }
    }

    fn parse_expr_stmt(&mut self) -> StmtKind {
        let errors_before = self.error_count;
        let e = self.parse_expr();
        self.end_stmt("after expression", errors_before);
        StmtKind::Expr(e)
    }

    /// The `;` ending a statement. If something went wrong inside the
    /// statement, resynchronize (the error is already reported); otherwise a
    /// missing `;` is reported where it belongs and parsing goes on as if it
    /// were there, unless what follows cannot start a statement.
    fn end_stmt(&mut self, what: &str, errors_before: u32) {
        if self.eat(TokenKind::Semi).is_some() {
            return;
        }
        if self.error_count != errors_before {
            // Stopped at the start of a line that can begin a statement: the
            // broken statement most likely ended on the previous line.
            if !(self.tok().line_start && can_start_stmt(self.kind())) {
                self.recover_stmt();
            }
            return;
        }
        self.report_missing_semi(what);
        if !self.plausible_stmt_start() {
            self.recover_stmt();
        }
    }

    /// A declaration statement (also used for old-style parameter
    /// declarations and `for` initializers).
    pub(super) fn parse_decl_stmt(&mut self) -> Stmt {
        let m = self.mark();
        let errors_before = self.error_count;
        let kind = self.parse_declaration(errors_before, false);
        let span = self.finish(m);
        Stmt {
            id: self.id(),
            kind,
            span,
        }
    }

    /// A block-scope declaration with its `;`. In a `for` header a missing `;`
    /// is reported without skipping anything.
    fn parse_declaration(&mut self, errors_before: u32, in_for: bool) -> StmtKind {
        let m = self.mark();
        let spec = self.parse_decl_specs(SpecCtx::Block);
        if self.eat(TokenKind::Semi).is_some() {
            let span = self.finish(m);
            return StmtKind::Decl(Declaration {
                spec,
                declarators: Vec::new(),
                span,
            });
        }
        let declarator = self.parse_declarator(DeclMode::Named);
        if is_function_declarator(&declarator) && self.at(TokenKind::LBrace) {
            let span = self.tok().span;
            self.syntax_error(span, "function definition is not allowed here");
            // Parse the body anyway so that its own errors are found.
            let _ = self.parse_block();
            return StmtKind::Error;
        }
        let mut decl = self.parse_decl_rest(spec, declarator, m);
        if in_for {
            self.expect_for_semi();
        } else {
            self.end_stmt("after declaration", errors_before);
        }
        decl.span = self.finish(m);
        StmtKind::Decl(decl)
    }

    fn parse_if(&mut self) -> StmtKind {
        self.bump();
        let cond = self.parse_paren_cond("if");
        let then = Box::new(self.parse_stmt());
        let els = if self.eat_kw("else").is_some() {
            Some(Box::new(self.parse_stmt()))
        } else {
            None
        };
        StmtKind::If { cond, then, els }
    }

    fn parse_while(&mut self) -> StmtKind {
        self.bump();
        let cond = self.parse_paren_cond("while");
        let body = Box::new(self.parse_stmt());
        StmtKind::While { cond, body }
    }

    fn parse_do_while(&mut self) -> StmtKind {
        self.bump();
        let body = Box::new(self.parse_stmt());
        let errors_before = self.error_count;
        let cond = if self.eat_kw("while").is_some() {
            self.parse_paren_cond("while")
        } else {
            self.expected("`while` in do/while loop");
            self.error_expr_here()
        };
        self.end_stmt("after do/while statement", errors_before);
        StmtKind::DoWhile { body, cond }
    }

    fn parse_for(&mut self) -> StmtKind {
        self.bump();
        // Names declared in the header are scoped to the loop.
        self.push_scope();
        let open = self.eat(TokenKind::LParen);
        if open.is_none() {
            self.expected("`(` after `for`");
        }
        let init = if self.eat(TokenKind::Semi).is_some() {
            None
        } else if self.starts_decl(self.tok()) || self.unknown_type_ahead(SpecCtx::Block) {
            let m = self.mark();
            let errors_before = self.error_count;
            let kind = self.parse_declaration(errors_before, true);
            let span = self.finish(m);
            Some(Box::new(Stmt {
                id: self.id(),
                kind,
                span,
            }))
        } else {
            let m = self.mark();
            let e = self.parse_expr();
            let span = self.finish(m).to(e.span);
            self.expect_for_semi();
            Some(Box::new(Stmt {
                id: self.id(),
                kind: StmtKind::Expr(e),
                span,
            }))
        };
        let cond = if self.eat(TokenKind::Semi).is_some() {
            None
        } else if self.at(TokenKind::RParen) {
            self.report_missing_semi("in `for` statement specifier");
            None
        } else {
            let e = self.parse_expr();
            self.expect_for_semi();
            Some(e)
        };
        let step = if self.at(TokenKind::RParen) {
            None
        } else {
            Some(self.parse_expr())
        };
        if let Some(open) = open {
            self.close_header_paren(open);
        }
        let body = Box::new(self.parse_stmt());
        self.pop_scope();
        StmtKind::For {
            init,
            cond,
            step,
            body,
        }
    }

    fn expect_for_semi(&mut self) {
        if self.eat(TokenKind::Semi).is_none() {
            self.report_missing_semi("in `for` statement specifier");
        }
    }

    fn parse_case(&mut self) -> StmtKind {
        self.bump();
        let value = if self.at(TokenKind::Colon) {
            self.expected("expression");
            self.error_expr_here()
        } else {
            self.parse_conditional()
        };
        self.expect_label_colon("after `case` value");
        StmtKind::Case {
            value,
            body: Box::new(self.parse_label_body()),
        }
    }

    fn expect_label_colon(&mut self, what: &str) {
        if self.eat(TokenKind::Colon).is_none() {
            let message = format!("expected `:` {what}, found {}", describe(self.tok()));
            let span = self.prev_span.end_point();
            self.syntax_error(span, message);
        }
    }

    /// The statement after a label; a label right before `}` labels nothing
    /// (allowed since C23).
    fn parse_label_body(&mut self) -> Stmt {
        if matches!(self.kind(), TokenKind::RBrace | TokenKind::Eof) {
            let span = self.prev_span.end_point();
            return Stmt {
                id: self.id(),
                kind: StmtKind::Empty,
                span,
            };
        }
        self.parse_stmt()
    }

    /// `( expr )` after `if`, `while`, `switch`. Without the `(`, the
    /// condition is still parsed (the user may have forgotten them).
    fn parse_paren_cond(&mut self, keyword: &str) -> Expr {
        let Some(open) = self.eat(TokenKind::LParen) else {
            self.expected(&format!("`(` after `{keyword}`"));
            if matches!(
                self.kind(),
                TokenKind::LBrace | TokenKind::Semi | TokenKind::RBrace
            ) {
                return self.error_expr_here();
            }
            return self.parse_expr();
        };
        let cond = if self.at(TokenKind::RParen) {
            self.expected("expression");
            self.error_expr_here()
        } else {
            self.parse_expr()
        };
        self.close_header_paren(open);
        cond
    }

    /// The `)` of a statement header. If it is missing, the body is parsed
    /// anyway when it plausibly starts here; junk before it on the same line
    /// is skipped up to a `)`.
    fn close_header_paren(&mut self, open: Span) {
        if self.eat(TokenKind::RParen).is_some() {
            return;
        }
        self.report_unclosed(TokenKind::RParen, open);
        let mut level: u32 = 0;
        loop {
            let t = self.tok();
            if t.line_start
                || matches!(
                    t.kind,
                    TokenKind::LBrace | TokenKind::RBrace | TokenKind::Semi | TokenKind::Eof
                )
            {
                return;
            }
            match t.kind {
                TokenKind::LParen => level += 1,
                TokenKind::RParen => {
                    if level == 0 {
                        self.bump();
                        return;
                    }
                    level -= 1;
                }
                _ => {}
            }
            self.bump();
        }
    }
}

/// Tokens that can begin a statement.
fn can_start_stmt(kind: TokenKind) -> bool {
    use TokenKind::*;
    matches!(
        kind,
        Ident
            | Number
            | CharLit
            | StringLit
            | LParen
            | LBrace
            | Semi
            | Star
            | Amp
            | Plus
            | Minus
            | PlusPlus
            | MinusMinus
            | Bang
            | Tilde
    )
}
