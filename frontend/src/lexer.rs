//! The lexer: source text to preprocessing tokens (logos).
//!
//! Keywords are not distinguished here: to the preprocessor every word is an
//! identifier (a macro may be named `inline`); the parser looks at the text.
//! Numbers are C "pp-numbers" and are classified by the parser, which can then
//! say exactly what is wrong with `12abc`.

use std::sync::Arc;

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
    lex_from(file, text, 0, &mut out, diags, |_, _| false);
    out
}

/// Lexes `text` from byte `from`, which is the start of the text or just
/// after a newline token, appending to `out`. After each newline token,
/// `stop(offset after it, out)` is asked whether to stop there.
fn lex_from(
    file: FileId,
    text: &str,
    from: usize,
    out: &mut Vec<Token>,
    diags: &mut Vec<Diagnostic>,
    mut stop: impl FnMut(u32, &mut Vec<Token>) -> bool,
) {
    let base = from as u32;
    let mut lexer = TokenKind::lexer(&text[from..]);
    let mut line_start = true;
    let mut leading_space = false;
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(file, base + range.start as u32, base + range.end as u32);
        let slice = lexer.slice();
        let kind = match result {
            Ok(TokenKind::Newline) => {
                if stop(span.end, out) {
                    return;
                }
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
}

/// The last text a file was lexed from, with its tokens, for [`lex_reusing`].
#[derive(Default)]
pub struct LexMemo {
    last: Option<Lexed>,
}

impl LexMemo {
    /// The file, text and tokens it holds.
    pub fn last(&self) -> Option<(FileId, &Arc<str>, &Arc<[Token]>)> {
        self.last.as_ref().map(|l| (l.file, &l.text, &l.tokens))
    }
}

struct Lexed {
    file: FileId,
    text: Arc<str>,
    tokens: Arc<[Token]>,
    /// For each newline token: the offset just after it, and the index of
    /// the first token after it.
    lines: Vec<(u32, u32)>,
}

/// [`lex`], re-lexing only the lines an edit changed since the text `memo`
/// holds. Lexing restarts fresh after every newline token (`\n` is a token
/// of its own, never inside another one except a block comment or a line
/// continuation, which do not end in a newline token), so the tokens before
/// the last newline in the unchanged prefix are the old ones, and from the
/// first newline in the unchanged suffix at which the old text also had one,
/// they are the old ones moved. The result is exactly `lex(file, text)`.
/// A text with an unterminated block comment (whose extent depends on all
/// the text after it) is lexed whole and not remembered.
pub fn lex_reusing(
    file: FileId,
    text: &Arc<str>,
    memo: &mut LexMemo,
    diags: &mut Vec<Diagnostic>,
) -> Arc<[Token]> {
    let old = memo.last.take().filter(|o| o.file == file);
    let mut found = Vec::new();
    let mut lines: Vec<(u32, u32)> = Vec::new();
    let mut out: Vec<Token>;
    match old {
        Some(old) if old.text == *text => {
            let tokens = old.tokens.clone();
            memo.last = Some(old);
            return tokens;
        }
        Some(old) => {
            let edit = crate::moved::Edit::between(file, &old.text, text);
            let (prefix, delta) = (edit.from as usize, edit.delta);
            let same_from = edit.new_range().end as u32;
            // The last line start inside the unchanged prefix.
            let k = old.lines.partition_point(|&(o, _)| o as usize <= prefix);
            let (from, first) = if k == 0 { (0, 0) } else { old.lines[k - 1] };
            out = Vec::with_capacity(old.tokens.len() + 16);
            out.extend_from_slice(&old.tokens[..first as usize]);
            lines.extend_from_slice(&old.lines[..k]);
            let mut resumed = None;
            lex_from(
                file,
                text,
                from as usize,
                &mut out,
                &mut found,
                |at, out| {
                    lines.push((at, out.len() as u32));
                    if at < same_from {
                        return false;
                    }
                    let was = (at as i64 - delta) as u32;
                    match old.lines.binary_search_by_key(&was, |&(o, _)| o) {
                        Ok(j) => {
                            resumed = Some(j);
                            true
                        }
                        Err(_) => false,
                    }
                },
            );
            if let Some(j) = resumed {
                let shift = |x: u32| (x as i64 + delta) as u32;
                let first = old.lines[j].1 as usize;
                out.extend(old.tokens[first..].iter().map(|t| {
                    let mut t = t.clone();
                    t.span.start = shift(t.span.start);
                    t.span.end = shift(t.span.end);
                    t.spelling = t.span;
                    t
                }));
                let moved = out.len() as i64 - old.tokens.len() as i64;
                lines.extend(
                    old.lines[j + 1..]
                        .iter()
                        .map(|&(o, i)| (shift(o), (i as i64 + moved) as u32)),
                );
            }
        }
        None => {
            out = Vec::new();
            lex_from(file, text, 0, &mut out, &mut found, |at, out| {
                lines.push((at, out.len() as u32));
                false
            });
        }
    }
    let tokens: Arc<[Token]> = out.into();
    if found.is_empty() {
        memo.last = Some(Lexed {
            file,
            text: text.clone(),
            tokens: tokens.clone(),
            lines,
        });
    }
    diags.append(&mut found);
    tokens
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

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

    /// Pieces that lex differently depending on what surrounds them: an
    /// edit that joins or splits them changes tokens beyond the edited line.
    const PIECES: &[&str] = &[
        "a",
        "b1",
        " ",
        "\n",
        "\t",
        "/*",
        "*/",
        "//",
        "\"",
        "'",
        "\\",
        "\\\n",
        "#",
        "##",
        "+",
        "=",
        "0x1",
        ".5e",
        "-",
        "\r\n",
        "x /* c\n d */ y",
        "\"s\\\"q\"",
        "// c \\\n more",
    ];

    fn texts() -> impl proptest::strategy::Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(PIECES), 0..60).prop_map(|v| v.concat())
    }

    proptest::proptest! {
        /// Re-lexing after any sequence of edits gives exactly the tokens
        /// and diagnostics of lexing the final text from scratch.
        #[test]
        fn relexing_equals_lexing(
            first in texts(),
            edits in proptest::collection::vec((0usize..400, 0usize..8, texts()), 1..8),
        ) {
            let mut memo = LexMemo::default();
            let mut text = first;
            let mut d = Vec::new();
            let _ = lex_reusing(FileId(0), &Arc::from(text.as_str()), &mut memo, &mut d);
            for (at, len, insert) in edits {
                let at = at.min(text.len());
                let end = (at + len).min(text.len());
                text.replace_range(at..end, &insert);
                let mut d1 = Vec::new();
                let got = lex_reusing(FileId(0), &Arc::from(text.as_str()), &mut memo, &mut d1);
                let mut d2 = Vec::new();
                let want = lex(FileId(0), &text, &mut d2);
                proptest::prop_assert_eq!(&got[..], &want[..], "{:?}", text);
                proptest::prop_assert_eq!(format!("{d1:?}"), format!("{d2:?}"));
            }
        }
    }

    #[test]
    fn relexing_reuses_the_lines_around_an_edit() {
        let mut memo = LexMemo::default();
        let mut d = Vec::new();
        let a = "int a;\n/* one\n two */\nint b;\nint c;\n";
        let _ = lex_reusing(FileId(3), &Arc::from(a), &mut memo, &mut d);
        // Closing the comment earlier turns `two` into a token: the lines
        // after the edit change too.
        let b = "int a;\n/* one */\n two */\nint b;\nint c;\n";
        let got = lex_reusing(FileId(3), &Arc::from(b), &mut memo, &mut d);
        assert_eq!(&got[..], &lex(FileId(3), b, &mut d)[..]);
        assert!(got.iter().any(|t| t.text == "two"));
        // Another file id: lexed from scratch, with its spans.
        let got = lex_reusing(FileId(4), &Arc::from(b), &mut memo, &mut d);
        assert_eq!(got[0].span.file, FileId(4));
        assert!(d.is_empty());
    }
}
