//! The base protocol's framing (`Content-Length: N\r\n\r\n` + N bytes), read
//! so that no input stops the reading:
//!
//! - A header block that is not `Name: value` lines with one decimal
//!   `Content-Length` (at most [`MAX_BODY`]) is skipped up to the next
//!   `Content-Length` in the input: the reader resynchronises on the next
//!   header. Bytes before any header are skipped the same way.
//! - A body shorter than its `Content-Length` (the sender cut it, or the
//!   length is wrong) is detected by the next header inside it: the bytes up
//!   to that header are the message, and reading goes on at the header. A
//!   header (`Content-Length:`, digits, CR LF) cannot occur in a JSON text
//!   (CR LF is not allowed inside a string, and a key is followed by `"`),
//!   so a valid body is never cut by this rule. An incomplete body is
//!   checked as its bytes arrive, so a huge length does not make the next
//!   message wait.
//!
//! Pure and synchronous: bytes in ([`Framer::push`]), [`Frame`]s out.

use memchr::memmem;

/// The largest body accepted. A header with a larger length is skipped
/// (documents of a million lines are some tens of MB).
pub const MAX_BODY: usize = 256 << 20;

/// A header block without its end this long is garbage.
const MAX_HEADER: usize = 8 << 10;

const LENGTH: &[u8] = b"content-length";

/// What the input holds, in order.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A body as framed (not necessarily JSON).
    Body(Vec<u8>),
    /// A body cut short by the next header: the bytes that arrived.
    Truncated { declared: usize, body: Vec<u8> },
    /// Input skipped, and why.
    Skipped { bytes: usize, reason: String },
}

#[derive(Default)]
pub struct Framer {
    buf: Vec<u8>,
    /// Start of the unread input in `buf`.
    pos: usize,
    /// The length of the body being read (its header is consumed).
    body: Option<usize>,
    /// How far the incomplete body was searched for a header.
    scanned: usize,
}

impl Framer {
    pub fn push(&mut self, bytes: &[u8]) {
        if self.pos > 0 && self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
        } else if self.pos > (1 << 16) && self.pos * 2 > self.buf.len() {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        self.buf.extend_from_slice(bytes);
    }

    /// The next frame, or `None` until more input arrives.
    pub fn next_frame(&mut self) -> Option<Frame> {
        match self.body {
            Some(len) => self.read_body(len),
            None => self.read_header(),
        }
    }

    /// At the end of the input: what is left, if anything.
    pub fn finish(&mut self) -> Option<Frame> {
        let left = self.buf.len() - self.pos;
        if left == 0 && self.body.is_none() {
            return None;
        }
        self.pos = self.buf.len();
        let reason = match self.body.take() {
            Some(len) => format!("the input ended inside a message of {len} bytes"),
            None => "the input ended inside a header".to_string(),
        };
        Some(Frame::Skipped {
            bytes: left,
            reason,
        })
    }

    fn unread(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    fn read_body(&mut self, len: usize) -> Option<Frame> {
        let avail = self.unread();
        if avail.len() >= len {
            let body = &avail[..len];
            // A complete body is cut only if it is not JSON and a header
            // starts inside it (and may end after it).
            let cut = if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok() {
                None
            } else {
                match header_inside(avail, 0).filter(|&at| at < len) {
                    Some(at) => Some(at),
                    None if header_may_start(avail, len) => return None,
                    None => None,
                }
            };
            let frame = match cut {
                None => Frame::Body(body.to_vec()),
                Some(at) => Frame::Truncated {
                    declared: len,
                    body: body[..at].to_vec(),
                },
            };
            self.pos += cut.unwrap_or(len);
            self.body = None;
            self.scanned = 0;
            return Some(frame);
        }
        let from = self.scanned.saturating_sub(LENGTH.len() + 32);
        let Some(at) = header_inside(avail, from) else {
            self.scanned = avail.len();
            return None;
        };
        let body = avail[..at].to_vec();
        self.pos += at;
        self.body = None;
        self.scanned = 0;
        Some(Frame::Truncated {
            declared: len,
            body,
        })
    }

    fn read_header(&mut self) -> Option<Frame> {
        let avail = self.unread();
        let Some(end) = memmem::find(avail, b"\r\n\r\n") else {
            if avail.len() <= MAX_HEADER {
                return None;
            }
            // No header ends here: keep only what may be the start of one.
            let keep = find_length(&avail[1..])
                .map(|i| i + 1)
                .unwrap_or(avail.len() - LENGTH.len());
            self.pos += keep;
            return Some(Frame::Skipped {
                bytes: keep,
                reason: "no header in the input".into(),
            });
        };
        match parse_header(&avail[..end]) {
            Ok(len) => {
                self.pos += end + 4;
                self.body = Some(len);
                self.scanned = 0;
                self.next_frame()
            }
            Err(reason) => {
                // Resynchronise on the next `Content-Length` after this
                // header's start, or after the header if there is none.
                let skip = find_length(&avail[1..]).map(|i| i + 1).unwrap_or(end + 4);
                let reason = if skip < end {
                    // A header follows other bytes.
                    let shown = String::from_utf8_lossy(&avail[..skip.min(60)]).into_owned();
                    format!("{shown:?} is not a header")
                } else {
                    reason
                };
                self.pos += skip;
                Some(Frame::Skipped {
                    bytes: skip,
                    reason,
                })
            }
        }
    }
}

/// The length a header block gives, or why it gives none.
fn parse_header(block: &[u8]) -> Result<usize, String> {
    let mut length = None;
    for line in block.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let shown = String::from_utf8_lossy(&line[..line.len().min(60)]).into_owned();
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return Err(format!("`{shown}` is not a header (`Name: value`)"));
        };
        let (name, value) = (&line[..colon], trim(&line[colon + 1..]));
        if !name.eq_ignore_ascii_case(LENGTH) {
            // Content-Type and others: the body is read as UTF-8 anyway.
            continue;
        }
        let digits = std::str::from_utf8(value).unwrap_or("");
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("`{shown}`: the length is not a decimal number"));
        }
        let n = digits.parse::<u64>().unwrap_or(u64::MAX);
        if n > MAX_BODY as u64 {
            return Err(format!(
                "`{shown}`: longer than the largest message accepted ({MAX_BODY} bytes)"
            ));
        }
        if length.is_some_and(|l| l != n) {
            return Err("two different Content-Length headers".into());
        }
        length = Some(n);
    }
    length
        .map(|n| n as usize)
        .ok_or_else(|| "a header without Content-Length".into())
}

fn trim(s: &[u8]) -> &[u8] {
    let mut s = trim_start(s);
    while let [rest @ .., b' ' | b'\t'] = s {
        s = rest;
    }
    s
}

/// The first `Content-Length` (any case) in `s`.
fn find_length(s: &[u8]) -> Option<usize> {
    s.windows(LENGTH.len())
        .position(|w| w.eq_ignore_ascii_case(LENGTH))
}

/// How far `s` begins like a header line (`Content-Length:`, digits, CR LF).
#[derive(Debug, PartialEq, Eq)]
enum Header {
    /// `s` begins with a header line.
    Whole,
    /// `s` is the beginning of one: more bytes decide.
    Start,
    No,
}

/// Longest header line considered (spaces and digits included).
const MAX_HEADER_LINE: usize = 64;

fn header_at(s: &[u8]) -> Header {
    let s = &s[..s.len().min(MAX_HEADER_LINE)];
    let name = s.len().min(LENGTH.len());
    if !s[..name].eq_ignore_ascii_case(&LENGTH[..name]) {
        return Header::No;
    }
    let Some(rest) = s[name..].strip_prefix(b":") else {
        return if s.len() == name && s.len() < MAX_HEADER_LINE {
            Header::Start
        } else {
            Header::No
        };
    };
    let rest = trim_start(rest);
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let after = trim_start(&rest[digits..]);
    if digits > 0 && after.starts_with(b"\r\n") {
        Header::Whole
    } else if (after.is_empty() || after == b"\r") && s.len() < MAX_HEADER_LINE {
        Header::Start
    } else {
        Header::No
    }
}

/// The start of a complete header line in `s` at or after `from`.
fn header_inside(s: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    while let Some(i) = find_length(s.get(at..)?) {
        if header_at(&s[at + i..]) == Header::Whole {
            return Some(at + i);
        }
        at += i + 1;
    }
    None
}

/// Whether a header line may start in `s` before `end` and go on past what
/// has arrived.
fn header_may_start(s: &[u8], end: usize) -> bool {
    (end.saturating_sub(MAX_HEADER_LINE)..end).any(|p| header_at(&s[p..]) == Header::Start)
}

fn trim_start(mut s: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    s
}

/// A body framed for output.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Frame> {
        let mut f = Framer::default();
        f.push(input);
        std::iter::from_fn(|| f.next_frame()).collect()
    }

    fn body(s: &str) -> Frame {
        Frame::Body(s.as_bytes().to_vec())
    }

    const A: &str = r#"{"jsonrpc":"2.0","id":1,"method":"a"}"#;

    #[test]
    fn messages_split_anywhere_come_out_whole() {
        let input = [frame(A.as_bytes()), frame(b"{}")].concat();
        let mut f = Framer::default();
        let mut out = Vec::new();
        for b in &input {
            f.push(std::slice::from_ref(b));
            out.extend(std::iter::from_fn(|| f.next_frame()));
        }
        assert_eq!(out, vec![body(A), body("{}")]);
        assert_eq!(f.finish(), None);
    }

    #[test]
    fn bad_headers_are_skipped_up_to_the_next_header() {
        let input = [
            &b"garbage\r\n\r\n"[..],
            b"Content-Length: x\r\n\r\n",
            // Skipped with the header before it: no Content-Length between.
            b"Content-Type: text\r\n\r\n",
            b"Content-Length: 99999999999999999999\r\n\r\n",
            b"Content-Type: text\r\n\r\n",
            b"\x00\xffjunk",
            &frame(A.as_bytes()),
        ]
        .concat();
        let out = frames(&input);
        let skipped: Vec<&str> = out
            .iter()
            .filter_map(|f| match f {
                Frame::Skipped { reason, .. } => Some(reason.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(skipped.len(), 3, "{out:?}");
        assert!(skipped[0].contains("not a header"));
        assert!(skipped[1].contains("not a decimal number"));
        assert!(skipped[2].contains("largest message"));
        assert_eq!(out.last(), Some(&body(A)));
        let out = frames(&[&b"Content-Type: text\r\n\r\n"[..], &frame(A.as_bytes())].concat());
        assert!(
            matches!(&out[0], Frame::Skipped { bytes: 22, reason } if reason.contains("without Content-Length")),
            "{out:?}"
        );
        assert_eq!(out[1..], [body(A)]);
    }

    #[test]
    fn a_short_body_ends_at_the_next_header() {
        // Declared longer than sent, then a whole message: the next message
        // is not swallowed, whether the length is reached or not.
        for declared in [50, 5000] {
            let input = [
                format!("Content-Length: {declared}\r\n\r\n{{\"jsonrpc\"").into_bytes(),
                frame(A.as_bytes()),
            ]
            .concat();
            assert_eq!(
                frames(&input),
                vec![
                    Frame::Truncated {
                        declared,
                        body: b"{\"jsonrpc\"".to_vec()
                    },
                    body(A)
                ]
            );
        }
    }

    #[test]
    fn a_short_body_ends_at_a_header_that_its_length_cuts() {
        // The declared length ends inside the next header.
        let cut = &A[..A.len() - 5];
        let input = [
            format!("Content-Length: {}\r\n\r\n{cut}", A.len() + 3).into_bytes(),
            frame(A.as_bytes()),
        ]
        .concat();
        let mut f = Framer::default();
        let mut out = Vec::new();
        for b in &input {
            f.push(std::slice::from_ref(b));
            out.extend(std::iter::from_fn(|| f.next_frame()));
        }
        assert_eq!(
            out,
            vec![
                Frame::Truncated {
                    declared: A.len() + 3,
                    body: cut.as_bytes().to_vec()
                },
                body(A)
            ]
        );
        // A body that is not JSON and ends like a header's start waits for
        // the bytes that decide.
        let mut f = Framer::default();
        f.push(b"Content-Length: 6\r\n\r\n{cont");
        f.push(b"e");
        assert_eq!(f.next_frame(), None);
        f.push(b"nt!");
        assert_eq!(f.next_frame(), Some(body("{conte")));
        assert_eq!(header_at(b"Content-Length: 12\r"), Header::Start);
        assert_eq!(header_at(b"Content-Length: 12\r\n"), Header::Whole);
        assert_eq!(header_at(b"Content-Length: x"), Header::No);
    }

    #[test]
    fn a_header_inside_a_json_string_does_not_cut() {
        let text = r#"{"text":"Content-Length: 3\\r\\n\\r\\nabc","x":"Content-Length: 4"}"#;
        assert_eq!(frames(&frame(text.as_bytes())), vec![body(text)]);
    }

    #[test]
    fn a_short_body_at_the_end_of_the_input_is_reported() {
        let mut f = Framer::default();
        f.push(b"Content-Length: 10\r\n\r\n{");
        assert_eq!(f.next_frame(), None);
        assert!(matches!(f.finish(), Some(Frame::Skipped { bytes: 1, .. })));
    }

    #[test]
    fn endless_garbage_is_dropped_as_it_comes() {
        let mut f = Framer::default();
        let mut skipped = 0;
        for _ in 0..10 {
            f.push(&[b'x'; 4096]);
            while let Some(fr) = f.next_frame() {
                let Frame::Skipped { bytes, .. } = fr else {
                    panic!("{fr:?}")
                };
                skipped += bytes;
            }
        }
        assert!(skipped > 30_000, "{skipped}");
        f.push(&frame(A.as_bytes()));
        assert_eq!(std::iter::from_fn(|| f.next_frame()).last(), Some(body(A)));
    }
}
