//! Expressions: C precedence climbing, casts versus parentheses, OpenCL
//! vector literals, and literal tokens.

use smol_str::SmolStr;

use super::literal::{
    classify_char, classify_number, classify_string, Classified, LitError, Number,
};
use super::{is_alignof_keyword, is_reserved, Mark, Parser};
use crate::ast::*;
use crate::diag::Code;
use crate::lexer::{Token, TokenKind};
use crate::source::Span;

/// Binary operators with their precedence (higher binds tighter).
fn binary_op(kind: TokenKind) -> Option<(BinaryOp, u8)> {
    use BinaryOp::*;
    Some(match kind {
        TokenKind::Star => (Mul, 10),
        TokenKind::Slash => (Div, 10),
        TokenKind::Percent => (Rem, 10),
        TokenKind::Plus => (Add, 9),
        TokenKind::Minus => (Sub, 9),
        TokenKind::Shl => (Shl, 8),
        TokenKind::Shr => (Shr, 8),
        TokenKind::Lt => (Lt, 7),
        TokenKind::Gt => (Gt, 7),
        TokenKind::Le => (Le, 7),
        TokenKind::Ge => (Ge, 7),
        TokenKind::EqEq => (Eq, 6),
        TokenKind::Ne => (Ne, 6),
        TokenKind::Amp => (BitAnd, 5),
        TokenKind::Caret => (BitXor, 4),
        TokenKind::Pipe => (BitOr, 3),
        TokenKind::AmpAmp => (LogicalAnd, 2),
        TokenKind::PipePipe => (LogicalOr, 1),
        _ => return None,
    })
}

/// `=` gives `Some(None)`, `+=` gives `Some(Some(Add))`.
fn assign_op(kind: TokenKind) -> Option<Option<BinaryOp>> {
    use BinaryOp::*;
    Some(match kind {
        TokenKind::Eq => None,
        TokenKind::StarEq => Some(Mul),
        TokenKind::SlashEq => Some(Div),
        TokenKind::PercentEq => Some(Rem),
        TokenKind::PlusEq => Some(Add),
        TokenKind::MinusEq => Some(Sub),
        TokenKind::ShlEq => Some(Shl),
        TokenKind::ShrEq => Some(Shr),
        TokenKind::AmpEq => Some(BitAnd),
        TokenKind::CaretEq => Some(BitXor),
        TokenKind::PipeEq => Some(BitOr),
        _ => return None,
    })
}

fn prefix_op(kind: TokenKind) -> Option<UnaryOp> {
    Some(match kind {
        TokenKind::Minus => UnaryOp::Neg,
        TokenKind::Plus => UnaryOp::Plus,
        TokenKind::Bang => UnaryOp::Not,
        TokenKind::Tilde => UnaryOp::BitNot,
        TokenKind::Star => UnaryOp::Deref,
        TokenKind::Amp => UnaryOp::AddrOf,
        TokenKind::PlusPlus => UnaryOp::PreInc,
        TokenKind::MinusMinus => UnaryOp::PreDec,
        _ => return None,
    })
}

impl Parser<'_> {
    fn mk(&mut self, kind: ExprKind, m: Mark) -> Expr {
        let span = self.finish(m);
        Expr {
            id: self.id(),
            kind,
            span,
        }
    }

    /// A node that starts where its first operand starts (which may be an
    /// empty `Error` before the current mark).
    fn mk_after(&mut self, kind: ExprKind, first: Span) -> Expr {
        let span = first.to(self.prev_span);
        Expr {
            id: self.id(),
            kind,
            span,
        }
    }

    /// An `Error` expression at the current position (nothing consumed).
    pub(super) fn error_expr_here(&mut self) -> Expr {
        let m = self.mark();
        self.mk(ExprKind::Error, m)
    }

    /// Too deep: skip the construct and stand an `Error` in for it.
    fn bail_expr(&mut self) -> Expr {
        let m = self.mark();
        self.skip_deep();
        self.mk(ExprKind::Error, m)
    }

    /// A full expression, including the comma operator.
    pub(super) fn parse_expr(&mut self) -> Expr {
        let mut lhs = self.parse_assign();
        let first = lhs.span;
        let mut chain = 0;
        while self.at(TokenKind::Comma) {
            if !self.chain_step(&mut chain) {
                break;
            }
            self.bump();
            let rhs = self.parse_assign();
            lhs = self.mk_after(
                ExprKind::Comma {
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                first,
            );
        }
        self.depth -= chain;
        lhs
    }

    /// An assignment expression (right-associative).
    pub(super) fn parse_assign(&mut self) -> Expr {
        self.with_depth(|p| p.parse_assign_inner(), |p| p.bail_expr())
    }

    fn parse_assign_inner(&mut self) -> Expr {
        let lhs = self.parse_conditional();
        let Some(op) = assign_op(self.kind()) else {
            return lhs;
        };
        self.bump();
        let rhs = self.parse_assign();
        let first = lhs.span;
        self.mk_after(
            ExprKind::Assign {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            first,
        )
    }

    /// `c ? a : b` (right-associative; the middle operand is a full
    /// expression).
    pub(super) fn parse_conditional(&mut self) -> Expr {
        let cond = self.parse_binary(1);
        let Some(question) = self.eat(TokenKind::Question) else {
            return cond;
        };
        let then = if self.at(TokenKind::Colon) {
            self.expected("expression");
            self.error_expr_here()
        } else {
            self.parse_expr()
        };
        let els = if self.eat(TokenKind::Colon).is_some() {
            self.with_depth(|p| p.parse_conditional(), |p| p.bail_expr())
        } else {
            let message = format!("expected `:`, found {}", super::describe(self.tok()));
            let span = self.tok().span;
            self.report(
                crate::diag::Diagnostic::new(Code::Syntax, span, message)
                    .with_related(question, "to match this `?`"),
            );
            self.error_expr_here()
        };
        let first = cond.span;
        self.mk_after(
            ExprKind::Conditional {
                cond: Box::new(cond),
                then: Box::new(then),
                els: Box::new(els),
            },
            first,
        )
    }

    /// Binary operators of precedence `min_prec` and above, by precedence
    /// climbing. Left-associative chains are built in a loop; each link
    /// counts against the depth limit because it deepens the tree.
    fn parse_binary(&mut self, min_prec: u8) -> Expr {
        let mut lhs = self.parse_cast_expr();
        let first = lhs.span;
        let mut chain = 0;
        while let Some((op, prec)) = binary_op(self.kind()) {
            if prec < min_prec {
                break;
            }
            if !self.chain_step(&mut chain) {
                break;
            }
            self.bump();
            let rhs = self.parse_binary(prec + 1);
            lhs = self.mk_after(
                ExprKind::Binary {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                first,
            );
        }
        self.depth -= chain;
        lhs
    }

    /// A cast expression: `(type) operand`, an OpenCL vector literal
    /// `(float4)(a, b, c, d)`, or a unary expression.
    /// The operand of a prefix operator or cast: one level deeper. (A
    /// parenthesized expression is counted once, in `parse_assign`.)
    fn parse_operand(&mut self) -> Expr {
        self.with_depth(|p| p.parse_cast_expr(), |p| p.bail_expr())
    }

    fn parse_cast_expr(&mut self) -> Expr {
        if !(self.at(TokenKind::LParen) && self.starts_type_name(self.nth(1))) {
            return self.parse_unary();
        }
        let m = self.mark();
        let open = self.bump();
        let ty = Box::new(self.parse_type_name());
        self.expect_closing(TokenKind::RParen, open);
        match self.kind() {
            TokenKind::LBrace => {
                let init = Box::new(self.parse_initializer());
                let lit = self.mk(ExprKind::CompoundLiteral { ty, init }, m);
                self.parse_postfix_suffixes(lit, m)
            }
            // `(float4)(a, b)`, `(float)(x)`; `(int)(float)x` is a cast of a cast.
            TokenKind::LParen if !self.starts_type_name(self.nth(1)) => {
                let lm = self.mark();
                let open = self.bump();
                let mut elems = Vec::new();
                loop {
                    elems.push(self.parse_assign());
                    if self.eat(TokenKind::Comma).is_none() {
                        break;
                    }
                }
                self.expect_closing(TokenKind::RParen, open);
                if elems.len() >= 2 {
                    let lit = self.mk(ExprKind::VectorLiteral { ty, elems }, m);
                    return self.parse_postfix_suffixes(lit, m);
                }
                let inner = match elems.pop() {
                    Some(e) => e,
                    None => self.error_expr_here(),
                };
                let paren = self.mk(ExprKind::Paren(Box::new(inner)), lm);
                let operand = self.parse_postfix_suffixes(paren, lm);
                self.mk(
                    ExprKind::Cast {
                        ty,
                        expr: Box::new(operand),
                    },
                    m,
                )
            }
            _ => {
                let operand = self.parse_operand();
                self.mk(
                    ExprKind::Cast {
                        ty,
                        expr: Box::new(operand),
                    },
                    m,
                )
            }
        }
    }

    /// `( type )` right after `sizeof`, `_Alignof`, `vec_step`?
    fn at_paren_type(&self) -> bool {
        self.at(TokenKind::LParen) && self.starts_type_name(self.nth(1))
    }

    /// `( type )`; the current token is `(`.
    fn parse_paren_type(&mut self) -> Box<TypeName> {
        let open = self.bump();
        let ty = Box::new(self.parse_type_name());
        self.expect_closing(TokenKind::RParen, open);
        ty
    }

    fn parse_unary(&mut self) -> Expr {
        let m = self.mark();
        if let Some(op) = prefix_op(self.kind()) {
            self.bump();
            let operand = self.parse_operand();
            return self.mk(
                ExprKind::Unary {
                    op,
                    operand: Box::new(operand),
                },
                m,
            );
        }
        let t = self.tok();
        if t.kind == TokenKind::Ident {
            let text = t.text.clone();
            if text == "sizeof" {
                self.bump();
                if self.at_paren_type() {
                    let ty = self.parse_paren_type();
                    return self.mk(ExprKind::SizeofType(ty), m);
                }
                let operand = self.parse_operand();
                return self.mk(ExprKind::SizeofExpr(Box::new(operand)), m);
            }
            if is_alignof_keyword(&text) {
                self.bump();
                if self.at_paren_type() {
                    let ty = self.parse_paren_type();
                    return self.mk(ExprKind::AlignofType(ty), m);
                }
                let span = self.tok().span;
                self.syntax_error(
                    span,
                    format!("expected a type name in parentheses after `{text}`"),
                );
                let _ = self.parse_operand();
                return self.mk(ExprKind::Error, m);
            }
            if text == "vec_step"
                && self.nth_kind(1) == TokenKind::LParen
                && self.starts_type_name(self.nth(2))
            {
                self.bump();
                let ty = self.parse_paren_type();
                return self.mk(ExprKind::VecStepType(ty), m);
            }
        }
        self.parse_postfix()
    }

    fn parse_postfix(&mut self) -> Expr {
        let m = self.mark();
        let e = self.parse_primary();
        if self.pos == m.pos {
            // No operand (already reported): a following `[` or `(` is not
            // a suffix of anything.
            return e;
        }
        self.parse_postfix_suffixes(e, m)
    }

    /// `[i]`, `(args)`, `.f`, `->f`, `++`, `--` after `e` (which starts at `m`).
    fn parse_postfix_suffixes(&mut self, mut e: Expr, m: Mark) -> Expr {
        let mut chain = 0;
        loop {
            let kind = self.kind();
            if !matches!(
                kind,
                TokenKind::LBracket
                    | TokenKind::LParen
                    | TokenKind::Dot
                    | TokenKind::Arrow
                    | TokenKind::PlusPlus
                    | TokenKind::MinusMinus
            ) {
                break;
            }
            if !self.chain_step(&mut chain) {
                break;
            }
            let open = self.bump();
            let new = match kind {
                TokenKind::LBracket => {
                    let index = if self.at(TokenKind::RBracket) {
                        self.expected("expression");
                        self.error_expr_here()
                    } else {
                        self.parse_expr()
                    };
                    self.expect_closing(TokenKind::RBracket, open);
                    ExprKind::Index {
                        base: Box::new(e),
                        index: Box::new(index),
                    }
                }
                TokenKind::LParen => {
                    let mut args = Vec::new();
                    if !self.at(TokenKind::RParen) {
                        loop {
                            args.push(self.parse_assign());
                            if self.eat(TokenKind::Comma).is_none() {
                                break;
                            }
                        }
                    }
                    self.expect_closing(TokenKind::RParen, open);
                    ExprKind::Call {
                        callee: Box::new(e),
                        args,
                    }
                }
                TokenKind::Dot | TokenKind::Arrow => {
                    if !self.is_field_name() {
                        self.expected(&format!("field name after `{}`", kind.describe()));
                        // `v.` while typing: the member access is unusable,
                        // but it covers what was written.
                        e = self.mk(ExprKind::Error, m);
                        break;
                    }
                    let field = self.bump_ident();
                    ExprKind::Member {
                        base: Box::new(e),
                        field,
                        arrow: kind == TokenKind::Arrow,
                    }
                }
                TokenKind::PlusPlus => ExprKind::Unary {
                    op: UnaryOp::PostInc,
                    operand: Box::new(e),
                },
                _ => ExprKind::Unary {
                    op: UnaryOp::PostDec,
                    operand: Box::new(e),
                },
            };
            e = self.mk(new, m);
        }
        self.depth -= chain;
        e
    }

    fn parse_primary(&mut self) -> Expr {
        let m = self.mark();
        let t = self.tok();
        match t.kind {
            // Reported by the preprocessor already.
            TokenKind::Poisoned => {
                self.bump();
                self.mk(ExprKind::Error, m)
            }
            // A block literal `^{ ... }` / `^(int x){ ... }` (device-side enqueue).
            TokenKind::Caret
                if matches!(self.nth_kind(1), TokenKind::LBrace | TokenKind::LParen) =>
            {
                let caret = self.bump();
                self.semantic_error(
                    Code::UnsupportedDeviceEnqueue,
                    caret,
                    "blocks are not supported (`^{ ... }`)",
                );
                if self.at(TokenKind::LParen) {
                    self.skip_balanced();
                }
                if self.at(TokenKind::LBrace) {
                    self.skip_balanced();
                }
                self.mk(ExprKind::Error, m)
            }
            TokenKind::Number => {
                let t = t.clone();
                self.bump();
                let kind = self.number_literal(&t);
                self.mk(kind, m)
            }
            TokenKind::CharLit => {
                let t = t.clone();
                self.bump();
                let kind = match self.literal_value(&t, classify_char(&t.text)) {
                    Some(v) => ExprKind::CharLit(v),
                    None => ExprKind::Error,
                };
                self.mk(kind, m)
            }
            TokenKind::StringLit => {
                // Adjacent string literals concatenate.
                let mut text = String::new();
                let mut ok = true;
                while self.at(TokenKind::StringLit) {
                    let t = self.tok().clone();
                    self.bump();
                    match self.literal_value(&t, classify_string(&t.text)) {
                        Some(s) => text.push_str(&s),
                        None => ok = false,
                    }
                }
                let kind = if ok {
                    ExprKind::StringLit(SmolStr::new(text))
                } else {
                    ExprKind::Error
                };
                self.mk(kind, m)
            }
            TokenKind::LParen => {
                let open = self.bump();
                let inner = if self.at(TokenKind::RParen) {
                    self.expected("expression");
                    self.error_expr_here()
                } else {
                    self.parse_expr()
                };
                self.expect_closing(TokenKind::RParen, open);
                self.mk(ExprKind::Paren(Box::new(inner)), m)
            }
            TokenKind::Ident if !is_reserved(&t.text) => {
                if self.is_typedef_name(&t.text) {
                    let message = format!("unexpected type name `{}`: expected expression", t.text);
                    let span = t.span;
                    self.syntax_error(span, message);
                    self.bump();
                    return self.mk(ExprKind::Error, m);
                }
                let ident = self.bump_ident();
                self.mk(ExprKind::Ident(ident), m)
            }
            _ => {
                self.expected("expression");
                self.mk(ExprKind::Error, m)
            }
        }
    }

    /// Classifies a number token, reporting problems at the exact digits or
    /// suffix when the token's text is where its span says.
    fn number_literal(&mut self, t: &Token) -> ExprKind {
        match self.literal_value(t, classify_number(&t.text)) {
            Some(Number::Int {
                value,
                suffix,
                decimal,
            }) => ExprKind::IntLit {
                value,
                suffix,
                decimal,
            },
            Some(Number::Float { value, suffix }) => ExprKind::FloatLit { value, suffix },
            None => ExprKind::Error,
        }
    }

    /// Reports a literal's problem (if any) and returns its value (if any).
    fn literal_value<T>(&mut self, t: &Token, c: Classified<T>) -> Option<T> {
        if let Some(LitError { message, range }) = c.error {
            let span = literal_error_span(t, range);
            self.semantic_error(Code::InvalidToken, span, message);
        }
        c.value
    }
}

/// The span of `range` inside the token: exact when the token was written
/// in place, the whole token when it came from a macro.
fn literal_error_span(t: &Token, range: std::ops::Range<usize>) -> Span {
    let written_here = t.span.len() as usize == t.text.len() && t.expansion.is_none();
    if written_here && range.start <= range.end && range.end <= t.text.len() {
        Span {
            start: t.span.start + range.start as u32,
            end: t.span.start + range.end as u32,
            ..t.span
        }
    } else {
        t.span
    }
}
