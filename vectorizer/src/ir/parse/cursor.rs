//! Lines of the text and a cursor over one line: words, punctuation,
//! `%N`, strings, each with its line and column.

use super::{ParseError, Pos, CONST_BASE};

pub(super) struct SrcLine<'a> {
    pub(super) text: &'a str,
    pub(super) no: u32,
    /// Byte offset of the line in the whole text.
    pub(super) offset: usize,
}

impl SrcLine<'_> {
    pub(super) fn column_of(&self, byte: usize) -> u32 {
        self.text[..byte.min(self.text.len())].chars().count() as u32
    }
}

pub(super) fn split_lines(text: &str) -> Vec<SrcLine<'_>> {
    let mut out = Vec::new();
    let mut offset = 0;
    for (n, raw) in text.split_inclusive('\n').enumerate() {
        let body = raw.strip_suffix('\n').unwrap_or(raw);
        let body = body.strip_suffix('\r').unwrap_or(body);
        out.push(SrcLine {
            text: body,
            no: n as u32 + 1,
            offset,
        });
        offset += raw.len();
    }
    out
}

/// A cursor over one line.
pub(super) struct Cursor<'a> {
    pub(super) line: &'a SrcLine<'a>,
    pub(super) pos: usize,
}

pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | '+' | '|' | '$')
}

impl<'a> Cursor<'a> {
    pub(super) fn new(line: &'a SrcLine<'a>) -> Cursor<'a> {
        Cursor { line, pos: 0 }
    }

    pub(super) fn rest(&self) -> &'a str {
        &self.line.text[self.pos..]
    }

    pub(super) fn skip_ws(&mut self) {
        let r = self.rest();
        self.pos += r.len() - r.trim_start().len();
    }

    pub(super) fn here(&mut self) -> Pos {
        self.skip_ws();
        self.pos_at(self.pos)
    }

    pub(super) fn pos_at(&self, byte: usize) -> Pos {
        Pos {
            line: self.line.no,
            column: self.line.column_of(byte) + 1,
        }
    }

    pub(super) fn error(&mut self, message: impl Into<String>) -> ParseError {
        self.here().error(message)
    }

    /// What comes next, for messages.
    pub(super) fn found(&mut self) -> String {
        self.skip_ws();
        let r = self.rest();
        if r.is_empty() {
            return "end of line".into();
        }
        let n = r
            .char_indices()
            .find(|&(_, c)| !is_word_char(c))
            .map(|(i, _)| i)
            .unwrap_or(r.len());
        let tok = if n == 0 {
            &r[..r.chars().next().map_or(0, char::len_utf8)]
        } else {
            &r[..n]
        };
        format!("`{tok}`")
    }

    pub(super) fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.rest().is_empty()
    }

    pub(super) fn expect_end(&mut self) -> Result<(), ParseError> {
        if self.at_end() {
            Ok(())
        } else {
            let f = self.found();
            Err(self.error(format!("expected end of line, found {f}")))
        }
    }

    pub(super) fn peek_punct(&mut self, p: &str) -> bool {
        self.skip_ws();
        self.rest().starts_with(p)
    }

    /// Consumes punctuation `p` if it is next.
    pub(super) fn eat(&mut self, p: &str) -> bool {
        if self.peek_punct(p) {
            self.pos += p.len();
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, p: &str) -> Result<(), ParseError> {
        if self.eat(p) {
            Ok(())
        } else {
            let f = self.found();
            Err(self.error(format!("expected `{p}`, found {f}")))
        }
    }

    pub(super) fn peek_word(&mut self) -> &'a str {
        self.skip_ws();
        let r = self.rest();
        let n = r
            .char_indices()
            .find(|&(_, c)| !is_word_char(c))
            .map(|(i, _)| i)
            .unwrap_or(r.len());
        &r[..n]
    }

    /// The next word (letters, digits, `_ . - + |`), with where it starts.
    pub(super) fn word(&mut self, what: &str) -> Result<(&'a str, Pos), ParseError> {
        let at = self.here();
        let w = self.peek_word();
        if w.is_empty() {
            let f = self.found();
            return Err(self.error(format!("expected {what}, found {f}")));
        }
        self.pos += w.len();
        Ok((w, at))
    }

    pub(super) fn eat_word(&mut self, w: &str) -> bool {
        if self.peek_word() == w {
            self.pos += w.len();
            true
        } else {
            false
        }
    }

    pub(super) fn expect_word(&mut self, w: &str) -> Result<(), ParseError> {
        if self.eat_word(w) {
            Ok(())
        } else {
            let f = self.found();
            Err(self.error(format!("expected `{w}`, found {f}")))
        }
    }

    pub(super) fn number<T: std::str::FromStr>(&mut self, what: &str) -> Result<T, ParseError> {
        let (w, at) = self.word(what)?;
        w.parse()
            .map_err(|_| at.error(format!("expected {what}, found `{w}`")))
    }

    /// `%N`.
    pub(super) fn value_id(&mut self) -> Result<(u32, Pos), ParseError> {
        let at = self.here();
        if !self.eat("%") {
            let f = self.found();
            return Err(self.error(format!("expected a value `%N`, found {f}")));
        }
        let (w, _) = self.word("a value number")?;
        match w.parse::<u32>() {
            Ok(n) if n < CONST_BASE => Ok((n, at)),
            _ => Err(at.error(format!("expected a value number after `%`, found `{w}`"))),
        }
    }

    /// A string as Rust's `{:?}` writes it.
    pub(super) fn string(&mut self) -> Result<String, ParseError> {
        let at = self.here();
        if !self.eat("\"") {
            let f = self.found();
            return Err(self.error(format!("expected a string, found {f}")));
        }
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => {
                    let esc_at = self.pos_at(self.pos + i);
                    let bad = || esc_at.error("unknown escape in string");
                    match chars.next().ok_or_else(bad)?.1 {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        '0' => out.push('\0'),
                        '\\' => out.push('\\'),
                        '"' => out.push('"'),
                        '\'' => out.push('\''),
                        'u' => {
                            if chars.next().map(|p| p.1) != Some('{') {
                                return Err(bad());
                            }
                            let mut hex = String::new();
                            for (_, h) in chars.by_ref() {
                                if h == '}' {
                                    break;
                                }
                                hex.push(h);
                            }
                            let c = u32::from_str_radix(&hex, 16)
                                .ok()
                                .and_then(char::from_u32)
                                .ok_or_else(bad)?;
                            out.push(c);
                        }
                        _ => return Err(bad()),
                    }
                }
                c => out.push(c),
            }
        }
        Err(at.error("unterminated string"))
    }
}
