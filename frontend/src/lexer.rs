//! The lexer: source text to preprocessing tokens (logos).
//!
//! Keywords are not distinguished here: to the preprocessor every word is an
//! identifier (a macro may be named `inline`); the parser looks at the text.
//! Numbers are C "pp-numbers" and are classified by the parser, which can then
//! say exactly what is wrong with `12abc`.

use logos::Logos;
use smol_str::SmolStr;

use crate::diag::{Code, Diagnostic};
use crate::source::{FileId, Span};

#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    #[regex(r"[ \t\x0B\x0C\r]+")]
    #[regex(r"\\\r?\n")]
    Whitespace,
    #[token("\n")]
    Newline,
    #[regex(r"//[^\n]*", allow_greedy = true)]
    LineComment,
    #[token("/*", block_comment)]
    BlockComment,

    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Ident,
    #[regex(r"\.?[0-9]([0-9A-Za-z_.]|[eEpP][+-])*")]
    Number,
    #[regex(r"'([^'\\\n]|\\.)*'")]
    CharLit,
    #[regex(r#""([^"\\\n]|\\.)*""#)]
    StringLit,

    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(".")]
    Dot,
    #[token("->")]
    Arrow,
    #[token("++")]
    PlusPlus,
    #[token("--")]
    MinusMinus,
    #[token("&")]
    Amp,
    #[token("*")]
    Star,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("~")]
    Tilde,
    #[token("!")]
    Bang,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("<=")]
    Le,
    #[token(">=")]
    Ge,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("^")]
    Caret,
    #[token("|")]
    Pipe,
    #[token("&&")]
    AmpAmp,
    #[token("||")]
    PipePipe,
    #[token("?")]
    Question,
    #[token(":")]
    Colon,
    #[token(";")]
    Semi,
    #[token("...")]
    Ellipsis,
    #[token("=")]
    Eq,
    #[token("*=")]
    StarEq,
    #[token("/=")]
    SlashEq,
    #[token("%=")]
    PercentEq,
    #[token("+=")]
    PlusEq,
    #[token("-=")]
    MinusEq,
    #[token("<<=")]
    ShlEq,
    #[token(">>=")]
    ShrEq,
    #[token("&=")]
    AmpEq,
    #[token("^=")]
    CaretEq,
    #[token("|=")]
    PipeEq,
    #[token(",")]
    Comma,
    #[token("#")]
    Hash,
    #[token("##")]
    HashHash,

    /// A character that starts no token (`@`, `$`, a stray quote).
    Unknown,
    /// Stands where the preprocessor dropped text it already reported (a
    /// macro invocation with the wrong number of arguments), so the parser
    /// sees an operand there and reports nothing more.
    Poisoned,
    /// End of input; the parser's sentinel.
    Eof,
}

fn block_comment(lex: &mut logos::Lexer<TokenKind>) -> bool {
    let rest = lex.remainder();
    match rest.find("*/") {
        Some(i) => {
            lex.bump(i + 2);
            true
        }
        None => {
            lex.bump(rest.len());
            false
        }
    }
}

impl TokenKind {
    /// The spelling of a punctuator, for messages (`expected `;``).
    pub fn describe(self) -> &'static str {
        use TokenKind::*;
        match self {
            Whitespace => "whitespace",
            Newline => "end of line",
            LineComment | BlockComment => "comment",
            Ident => "identifier",
            Number => "number",
            CharLit => "character literal",
            StringLit => "string literal",
            LBracket => "[",
            RBracket => "]",
            LParen => "(",
            RParen => ")",
            LBrace => "{",
            RBrace => "}",
            Dot => ".",
            Arrow => "->",
            PlusPlus => "++",
            MinusMinus => "--",
            Amp => "&",
            Star => "*",
            Plus => "+",
            Minus => "-",
            Tilde => "~",
            Bang => "!",
            Slash => "/",
            Percent => "%",
            Shl => "<<",
            Shr => ">>",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            EqEq => "==",
            Ne => "!=",
            Caret => "^",
            Pipe => "|",
            AmpAmp => "&&",
            PipePipe => "||",
            Question => "?",
            Colon => ":",
            Semi => ";",
            Ellipsis => "...",
            Eq => "=",
            StarEq => "*=",
            SlashEq => "/=",
            PercentEq => "%=",
            PlusEq => "+=",
            MinusEq => "-=",
            ShlEq => "<<=",
            ShrEq => ">>=",
            AmpEq => "&=",
            CaretEq => "^=",
            PipeEq => "|=",
            Comma => ",",
            Hash => "#",
            HashHash => "##",
            Unknown => "unknown character",
            Poisoned => "invalid macro invocation",
            Eof => "end of file",
        }
    }

    pub fn is_trivia(self) -> bool {
        matches!(
            self,
            TokenKind::Whitespace
                | TokenKind::Newline
                | TokenKind::LineComment
                | TokenKind::BlockComment
        )
    }
}

/// Index into the expansion table of a preprocessed unit
/// ([`crate::preprocess::Expansion`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExpnId(pub u32);

/// A token with its text and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub text: SmolStr,
    /// Where the token stands in the file being compiled: its own location if
    /// it was written there, otherwise the span of the (outermost) macro
    /// invocation that produced it. AST spans are built from this, so they
    /// always cover contiguous text of one file.
    pub span: Span,
    /// Where its characters were written: in the file, in a macro body, or in
    /// a macro argument.
    pub spelling: Span,
    /// The macro expansion that produced the token, if any.
    pub expansion: Option<ExpnId>,
    /// First token on its line (after comments and whitespace).
    pub line_start: bool,
    /// Preceded by whitespace or a comment.
    pub leading_space: bool,
}

/// Why an `Unknown` token is not a token, for the error message. The
/// preprocessor reports these only in groups that are not skipped by `#if`.
pub fn unknown_token_message(text: &str) -> String {
    if text.starts_with('"') {
        "missing terminating `\"` character".to_string()
    } else if text.starts_with('\'') {
        "missing terminating `'` character".to_string()
    } else {
        format!("unexpected character `{}`", text.escape_debug())
    }
}

/// Lexes a whole file into tokens without trivia. Text that starts no token
/// becomes an `Unknown` token (reported by the preprocessor where it is not
/// skipped, see [`unknown_token_message`]); an unterminated block comment is
/// reported here since it swallows the rest of the file.
pub fn lex(file: FileId, text: &str, diags: &mut Vec<Diagnostic>) -> Vec<Token> {
    let mut out = Vec::new();
    let mut lexer = TokenKind::lexer(text);
    let mut line_start = true;
    let mut leading_space = false;
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(file, range.start as u32, range.end as u32);
        let slice = lexer.slice();
        let kind = match result {
            Ok(TokenKind::Newline) => {
                line_start = true;
                leading_space = false;
                continue;
            }
            Ok(k) if k.is_trivia() => {
                leading_space = true;
                continue;
            }
            Ok(k) => k,
            Err(()) if slice.starts_with("/*") => {
                let start = Span::new(file, span.start, span.start + 2);
                diags.push(
                    Diagnostic::new(Code::InvalidToken, start, "unterminated block comment")
                        .with_label("comment starts here"),
                );
                continue;
            }
            Err(()) => TokenKind::Unknown,
        };
        out.push(Token {
            kind,
            text: SmolStr::new(slice),
            span,
            spelling: span,
            expansion: None,
            line_start,
            leading_space,
        });
        line_start = false;
        leading_space = false;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<TokenKind> {
        let mut d = Vec::new();
        lex(FileId(0), src, &mut d)
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn punctuators_and_words() {
        use TokenKind::*;
        assert_eq!(
            kinds("a+=b->c ... <<= ##"),
            vec![Ident, PlusEq, Ident, Arrow, Ident, Ellipsis, ShlEq, HashHash]
        );
    }

    #[test]
    fn numbers_are_pp_numbers() {
        let mut d = Vec::new();
        let toks = lex(FileId(0), "1.5e-3f 0x1Fu .5 12abc 1e+", &mut d);
        let texts: Vec<&str> = toks.iter().map(|t| t.text.as_str()).collect();
        assert_eq!(texts, vec!["1.5e-3f", "0x1Fu", ".5", "12abc", "1e+"]);
        assert!(d.is_empty());
    }

    #[test]
    fn line_start_and_space_flags() {
        let mut d = Vec::new();
        let toks = lex(FileId(0), "#define F(x) x\n  # if /* c */ 1\\\n 2", &mut d);
        let flags: Vec<(bool, bool)> = toks
            .iter()
            .map(|t| (t.line_start, t.leading_space))
            .collect();
        assert_eq!(toks[0].kind, TokenKind::Hash);
        assert_eq!(flags[0], (true, false));
        assert_eq!(flags[2], (false, true)); // F
        assert_eq!(flags[3], (false, false)); // ( directly after F
        assert_eq!(toks[7].kind, TokenKind::Hash);
        assert!(toks[7].line_start);
        // the continued line does not start a new line
        assert_eq!(toks.last().unwrap().text, "2");
        assert!(!toks.last().unwrap().line_start);
    }

    #[test]
    fn errors_are_reported_not_dropped() {
        let mut d = Vec::new();
        let toks = lex(FileId(0), "a @ \"abc\n/* open", &mut d);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].code, Code::InvalidToken);
        let unknown: Vec<&Token> = toks
            .iter()
            .filter(|t| t.kind == TokenKind::Unknown)
            .collect();
        assert_eq!(unknown.len(), 2);
        assert_eq!(
            unknown_token_message(&unknown[0].text),
            "unexpected character `@`"
        );
        assert!(unknown_token_message(&unknown[1].text).contains("terminating"));
    }
}
