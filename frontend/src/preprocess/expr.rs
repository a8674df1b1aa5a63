//! `#if` expressions: C integer constant expressions over intmax_t/uintmax_t
//! (64 bits), evaluated on the macro-expanded tokens of the directive, where
//! `defined` has already been replaced by `0`/`1`.

use crate::diag::{Code, Diagnostic};
use crate::lexer::{Token, TokenKind};
use crate::source::Span;

use super::MAX_EXPR_DEPTH;

/// A value of type intmax_t (`unsigned == false`) or uintmax_t, as bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Value {
    pub v: u64,
    pub unsigned: bool,
}

impl Value {
    fn signed(v: i64) -> Value {
        Value {
            v: v as u64,
            unsigned: false,
        }
    }

    fn truth(b: bool) -> Value {
        Value::signed(b as i64)
    }

    fn is_true(self) -> bool {
        self.v != 0
    }
}

/// Evaluates the expression; reports the first error and returns false then.
/// `end` is where "found end of line" errors point.
pub(super) fn evaluate(toks: &[Token], end: Span, diags: &mut Vec<Diagnostic>) -> bool {
    let mut p = ExprParser {
        toks,
        pos: 0,
        end,
        diags,
        depth: 0,
    };
    p.top().map(Value::is_true).unwrap_or(false)
}

/// Errors are reported when found; `Err(())` only unwinds.
type R = Result<Value, ()>;

struct ExprParser<'t, 'd> {
    toks: &'t [Token],
    pos: usize,
    end: Span,
    diags: &'d mut Vec<Diagnostic>,
    depth: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
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
    And,
    Or,
}

/// Binary operators with their precedence (higher binds tighter).
fn binop(kind: TokenKind) -> Option<(Op, u8)> {
    use TokenKind as K;
    Some(match kind {
        K::PipePipe => (Op::Or, 1),
        K::AmpAmp => (Op::And, 2),
        K::Pipe => (Op::BitOr, 3),
        K::Caret => (Op::BitXor, 4),
        K::Amp => (Op::BitAnd, 5),
        K::EqEq => (Op::Eq, 6),
        K::Ne => (Op::Ne, 6),
        K::Lt => (Op::Lt, 7),
        K::Gt => (Op::Gt, 7),
        K::Le => (Op::Le, 7),
        K::Ge => (Op::Ge, 7),
        K::Shl => (Op::Shl, 8),
        K::Shr => (Op::Shr, 8),
        K::Plus => (Op::Add, 9),
        K::Minus => (Op::Sub, 9),
        K::Star => (Op::Mul, 10),
        K::Slash => (Op::Div, 10),
        K::Percent => (Op::Rem, 10),
        _ => return None,
    })
}

impl ExprParser<'_, '_> {
    fn error(&mut self, code: Code, span: Span, message: impl Into<String>) -> R {
        self.diags.push(Diagnostic::new(code, span, message));
        Err(())
    }

    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += t.is_some() as usize;
        t
    }

    fn eat(&mut self, kind: TokenKind) -> bool {
        let hit = self.peek().is_some_and(|t| t.kind == kind);
        self.pos += hit as usize;
        hit
    }

    /// "found `x`" / "found end of line", and where.
    fn found(&self) -> (String, Span) {
        match self.peek() {
            Some(t) => (format!("`{}`", t.text), t.span),
            None => ("end of line".to_string(), self.end),
        }
    }

    /// Counts one level of recursion; the callers decrement on success.
    fn enter(&mut self) -> Result<(), ()> {
        self.depth += 1;
        if self.depth > MAX_EXPR_DEPTH {
            let (_, span) = self.found();
            self.error(
                Code::TooDeep,
                span,
                format!("`#if` expression nested too deeply (more than {MAX_EXPR_DEPTH} levels)"),
            )?;
        }
        Ok(())
    }

    fn top(&mut self) -> R {
        let v = self.comma(true)?;
        if let Some(t) = self.peek() {
            let (msg, span) = (
                format!("missing binary operator before `{}`", t.text),
                t.span,
            );
            return self.error(Code::BadDirective, span, msg);
        }
        Ok(v)
    }

    fn comma(&mut self, eval: bool) -> R {
        let mut v = self.cond(eval)?;
        while self.eat(TokenKind::Comma) {
            v = self.cond(eval)?;
        }
        Ok(v)
    }

    /// `a ? b : c`; only the chosen branch is evaluated.
    fn cond(&mut self, eval: bool) -> R {
        self.enter()?;
        let c = self.binary(1, eval)?;
        let v = if self.eat(TokenKind::Question) {
            let a = self.comma(eval && c.is_true())?;
            if !self.eat(TokenKind::Colon) {
                let (found, span) = self.found();
                return self.error(
                    Code::BadDirective,
                    span,
                    format!("expected `:` in `#if` expression, found {found}"),
                );
            }
            let b = self.cond(eval && !c.is_true())?;
            let v = if c.is_true() { a.v } else { b.v };
            Value {
                v,
                unsigned: a.unsigned || b.unsigned,
            }
        } else {
            c
        };
        self.depth -= 1;
        Ok(v)
    }

    /// Precedence climbing; recursion here is bounded by the number of
    /// precedence levels, nesting goes through `cond`/`unary`.
    fn binary(&mut self, min_prec: u8, eval: bool) -> R {
        let mut lhs = self.unary(eval)?;
        while let Some((op, prec)) = self.peek().and_then(|t| binop(t.kind)) {
            if prec < min_prec {
                break;
            }
            let op_span = self.peek().map_or(self.end, |t| t.span);
            self.pos += 1;
            let rhs_eval = match op {
                Op::And => eval && lhs.is_true(),
                Op::Or => eval && !lhs.is_true(),
                _ => eval,
            };
            let rhs = self.binary(prec + 1, rhs_eval)?;
            lhs = self.apply(op, lhs, rhs, rhs_eval, op_span)?;
        }
        Ok(lhs)
    }

    fn apply(&mut self, op: Op, a: Value, b: Value, eval: bool, span: Span) -> R {
        // The usual arithmetic conversions: unsigned if either operand is.
        let unsigned = a.unsigned || b.unsigned;
        let (sa, sb) = (a.v as i64, b.v as i64);
        let arith = |v: u64| Value { v, unsigned };
        Ok(match op {
            Op::Mul => arith(a.v.wrapping_mul(b.v)),
            Op::Div | Op::Rem => {
                if b.v == 0 {
                    if eval {
                        let what = if op == Op::Div {
                            "division"
                        } else {
                            "remainder"
                        };
                        return self.error(
                            Code::BadDirective,
                            span,
                            format!("{what} by zero in `#if` expression"),
                        );
                    }
                    arith(0)
                } else if unsigned {
                    arith(if op == Op::Div { a.v / b.v } else { a.v % b.v })
                } else {
                    arith(if op == Op::Div {
                        sa.wrapping_div(sb)
                    } else {
                        sa.wrapping_rem(sb)
                    } as u64)
                }
            }
            Op::Add => arith(a.v.wrapping_add(b.v)),
            Op::Sub => arith(a.v.wrapping_sub(b.v)),
            Op::Shl | Op::Shr => {
                // The result has the type of the left operand. Shifting by a
                // negative amount or by the width or more is undefined in C;
                // here it shifts everything out.
                let amount = if (!b.unsigned && sb < 0) || b.v >= 64 {
                    None
                } else {
                    Some(b.v as u32)
                };
                let negative = !a.unsigned && sa < 0;
                let v = match (op, amount) {
                    (Op::Shl, Some(s)) => a.v << s,
                    (Op::Shl, None) => 0,
                    (_, Some(s)) if a.unsigned => a.v >> s,
                    (_, Some(s)) => (sa >> s) as u64,
                    (_, None) if negative => u64::MAX,
                    (_, None) => 0,
                };
                Value {
                    v,
                    unsigned: a.unsigned,
                }
            }
            Op::Lt | Op::Gt | Op::Le | Op::Ge => {
                let ord = if unsigned { a.v.cmp(&b.v) } else { sa.cmp(&sb) };
                Value::truth(match op {
                    Op::Lt => ord.is_lt(),
                    Op::Gt => ord.is_gt(),
                    Op::Le => ord.is_le(),
                    _ => ord.is_ge(),
                })
            }
            Op::Eq => Value::truth(a.v == b.v),
            Op::Ne => Value::truth(a.v != b.v),
            Op::BitAnd => arith(a.v & b.v),
            Op::BitXor => arith(a.v ^ b.v),
            Op::BitOr => arith(a.v | b.v),
            Op::And => Value::truth(a.is_true() && b.is_true()),
            Op::Or => Value::truth(a.is_true() || b.is_true()),
        })
    }

    fn unary(&mut self, eval: bool) -> R {
        self.enter()?;
        let kind = self.peek().map(|t| t.kind);
        let v = match kind {
            Some(TokenKind::Minus) => {
                self.pos += 1;
                let v = self.unary(eval)?;
                Value {
                    v: v.v.wrapping_neg(),
                    unsigned: v.unsigned,
                }
            }
            Some(TokenKind::Plus) => {
                self.pos += 1;
                self.unary(eval)?
            }
            Some(TokenKind::Tilde) => {
                self.pos += 1;
                let v = self.unary(eval)?;
                Value {
                    v: !v.v,
                    unsigned: v.unsigned,
                }
            }
            Some(TokenKind::Bang) => {
                self.pos += 1;
                let v = self.unary(eval)?;
                Value::truth(!v.is_true())
            }
            _ => self.primary(eval)?,
        };
        self.depth -= 1;
        Ok(v)
    }

    fn primary(&mut self, eval: bool) -> R {
        let (found, span) = self.found();
        let Some(t) = self.next() else {
            return self.error(
                Code::BadDirective,
                span,
                format!("expected value in `#if` expression, found {found}"),
            );
        };
        match t.kind {
            TokenKind::Number => match parse_int(&t.text) {
                Ok(v) => Ok(v),
                Err(msg) => self.error(Code::BadDirective, t.span, msg),
            },
            TokenKind::CharLit => match parse_char(&t.text) {
                Ok(v) => Ok(v),
                Err(msg) => self.error(Code::BadDirective, t.span, msg),
            },
            TokenKind::Ident => {
                if self.peek().is_some_and(|n| n.kind == TokenKind::LParen) {
                    let msg = format!("function-like macro `{}` is not defined", t.text);
                    return self.error(Code::BadDirective, t.span, msg);
                }
                // Identifiers that are not macros are 0.
                Ok(Value::signed(0))
            }
            TokenKind::LParen => {
                let v = self.comma(eval)?;
                if !self.eat(TokenKind::RParen) {
                    let (found, span) = self.found();
                    let d = Diagnostic::new(
                        Code::BadDirective,
                        span,
                        format!("expected `)` in `#if` expression, found {found}"),
                    )
                    .with_related(t.span, "to match this `(`");
                    self.diags.push(d);
                    return Err(());
                }
                Ok(v)
            }
            _ => self.error(
                Code::BadDirective,
                t.span,
                format!("expected value in `#if` expression, found {found}"),
            ),
        }
    }
}

/// An integer constant (decimal, octal, hex, or binary as a clang
/// extension) with an optional `u`/`l`/`ll` suffix. Without `u` it is signed
/// unless it does not fit in intmax_t.
pub(crate) fn parse_int(text: &str) -> Result<Value, String> {
    let b = text.as_bytes();
    let lower1 = b.get(1).map(|c| c | 0x20);
    let (radix, start): (u64, usize) = match (b.first(), lower1) {
        (Some(b'0'), Some(b'x')) => (16, 2),
        (Some(b'0'), Some(b'b')) => (2, 2),
        (Some(b'0'), _) => (8, 1),
        _ => (10, 0),
    };
    let float = text.contains('.')
        || if radix == 16 {
            text.contains(['p', 'P'])
        } else {
            text.contains(['e', 'E'])
        };
    if float {
        return Err("floating-point constant in `#if` expression".to_string());
    }
    let mut i = start;
    let mut value: u64 = 0;
    let mut overflow = false;
    while let Some(&c) = b.get(i) {
        let digit = match c {
            b'0'..=b'9' => (c - b'0') as u64,
            b'a'..=b'f' | b'A'..=b'F' if radix == 16 => ((c | 0x20) - b'a' + 10) as u64,
            _ => break,
        };
        if digit >= radix {
            let what = if radix == 8 { "octal" } else { "binary" };
            return Err(format!("invalid digit `{}` in {what} constant", c as char));
        }
        match value.checked_mul(radix).and_then(|v| v.checked_add(digit)) {
            Some(v) => value = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start && radix != 8 {
        return Err(format!("invalid integer constant `{text}`"));
    }
    let suffix = text.get(i..).unwrap_or("");
    let has_u = match suffix.to_ascii_lowercase().as_str() {
        "" | "l" | "ll" => false,
        "u" | "ul" | "lu" | "ull" | "llu" => true,
        _ => return Err(format!("invalid suffix `{suffix}` on integer constant")),
    };
    if overflow {
        return Err(format!("integer constant `{text}` is too large"));
    }
    Ok(Value {
        v: value,
        unsigned: has_u || value > i64::MAX as u64,
    })
}

/// A character constant: `char` is signed in OpenCL C, so `'\xff'` is -1.
/// Multi-character constants are `int`s, as in clang.
pub(super) fn parse_char(text: &str) -> Result<Value, String> {
    let inner = text
        .strip_prefix('\'')
        .and_then(|s| s.strip_suffix('\''))
        .unwrap_or("");
    let mut bytes: Vec<u8> = Vec::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u8; 4];
            bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let Some(e) = chars.next() else { break };
        let v: u32 = match e {
            'n' => 10,
            't' => 9,
            'r' => 13,
            'a' => 7,
            'b' => 8,
            'f' => 12,
            'v' => 11,
            '0'..='7' => {
                let mut v = e as u32 - '0' as u32;
                for _ in 0..2 {
                    match chars.peek() {
                        Some(&d @ '0'..='7') => {
                            v = v * 8 + (d as u32 - '0' as u32);
                            chars.next();
                        }
                        _ => break,
                    }
                }
                v
            }
            'x' => {
                let mut v: u32 = 0;
                while let Some(d) = chars.peek().and_then(|d| d.to_digit(16)) {
                    v = (v << 4 | d) & 0xff;
                    chars.next();
                }
                v
            }
            // `\\ \' \" \?` and unknown escapes stand for the character.
            other => other as u32,
        };
        bytes.push(v as u8);
    }
    match bytes.as_slice() {
        [] => Err("empty character constant".to_string()),
        [one] => Ok(Value::signed(*one as i8 as i64)),
        many => {
            let v = many.iter().fold(0u32, |v, &b| v << 8 | b as u32);
            Ok(Value::signed(v as i32 as i64))
        }
    }
}
