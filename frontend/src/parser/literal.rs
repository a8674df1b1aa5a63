//! Classification of literal tokens: C pp-numbers into integer and floating
//! constants, and the escapes of character and string literals.
//!
//! The lexer accepts any pp-number (`12abc`, `0x`, `1e+`), so every check of
//! C's number grammar happens here, where the message can name exactly what is
//! wrong. Errors carry a byte range inside the token text so the caller can
//! point at the offending suffix or digit.

use std::ops::Range;

use crate::ast::{FloatSuffix, IntSuffix};

/// A classified number token.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Number {
    Int {
        value: u64,
        suffix: IntSuffix,
        decimal: bool,
    },
    Float {
        value: f64,
        suffix: FloatSuffix,
    },
}

/// A problem in a literal: the message and the bytes of the token it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LitError {
    pub message: String,
    pub range: Range<usize>,
}

impl LitError {
    fn new(message: impl Into<String>, range: Range<usize>) -> LitError {
        LitError {
            message: message.into(),
            range,
        }
    }
}

/// The outcome of classifying a literal: a value (possibly with a reported
/// problem that still has an obvious meaning, like the `ll` suffix), or only
/// an error.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Classified<T> {
    pub value: Option<T>,
    pub error: Option<LitError>,
}

impl<T> Classified<T> {
    fn ok(value: T) -> Self {
        Classified {
            value: Some(value),
            error: None,
        }
    }
    fn err(error: LitError) -> Self {
        Classified {
            value: None,
            error: Some(error),
        }
    }
    fn warned(value: T, error: LitError) -> Self {
        Classified {
            value: Some(value),
            error: Some(error),
        }
    }
}

/// Classifies a pp-number (`42`, `0x1Fu`, `1.5e-3f`, `0x1.8p3`).
pub(crate) fn classify_number(text: &str) -> Classified<Number> {
    let b = text.as_bytes();
    let is_hex = b.len() >= 2 && b[0] == b'0' && (b[1] == b'x' || b[1] == b'X');
    let is_bin = b.len() >= 2 && b[0] == b'0' && (b[1] == b'b' || b[1] == b'B');
    if is_hex {
        // Hex digits first; a `.` or a `p` exponent afterwards makes it a float.
        let mut i = 2;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            i += 1;
        }
        if i < b.len() && matches!(b[i], b'.' | b'p' | b'P') {
            return classify_hex_float(text);
        }
        return classify_int(text, 16, 2);
    }
    if is_bin {
        return classify_int(text, 2, 2);
    }
    // Decimal or octal: a `.` or an exponent after the leading digits makes it
    // a float (`09.5` is a valid decimal float even though `09` is no octal).
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i < b.len() && matches!(b[i], b'.' | b'e' | b'E') {
        return classify_dec_float(text);
    }
    if b.first() == Some(&b'0') {
        classify_int(text, 8, 1)
    } else {
        classify_int(text, 10, 0)
    }
}

fn base_name(radix: u32) -> &'static str {
    match radix {
        2 => "binary",
        8 => "octal",
        16 => "hexadecimal",
        _ => "decimal",
    }
}

fn classify_int(text: &str, radix: u32, prefix: usize) -> Classified<Number> {
    let b = text.as_bytes();
    // The digit run: for octal and binary take all decimal digits so that a
    // stray `9` is reported as a bad digit rather than as a suffix.
    let mut end = prefix;
    while end < b.len()
        && (if radix == 16 {
            b[end].is_ascii_hexdigit()
        } else {
            b[end].is_ascii_digit()
        })
    {
        end += 1;
    }
    if end == prefix && prefix > 0 && radix != 8 {
        let what = if radix == 16 { "hexadecimal" } else { "binary" };
        return Classified::err(LitError::new(
            format!("expected {what} digits after `{}`", &text[..prefix]),
            0..text.len(),
        ));
    }
    let mut value: u64 = 0;
    let mut overflow = false;
    for (i, &c) in b.iter().enumerate().take(end).skip(prefix) {
        let d = (c as char).to_digit(16).unwrap_or(0);
        if d >= radix {
            return Classified::err(LitError::new(
                format!(
                    "invalid digit `{}` in {} constant",
                    c as char,
                    base_name(radix)
                ),
                i..i + 1,
            ));
        }
        match value
            .checked_mul(radix as u64)
            .and_then(|v| v.checked_add(d as u64))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
    }
    let suffix_text = &text[end..];
    let (suffix, long_long) = match suffix_text.to_ascii_lowercase().as_str() {
        "" => (IntSuffix::None, false),
        "u" => (IntSuffix::U, false),
        "l" => (IntSuffix::L, false),
        "ul" | "lu" => (IntSuffix::UL, false),
        "ll" => (IntSuffix::L, true),
        "ull" | "llu" => (IntSuffix::UL, true),
        _ => {
            return Classified::err(LitError::new(
                format!("invalid suffix `{suffix_text}` on integer constant"),
                end..text.len(),
            ));
        }
    };
    if overflow {
        return Classified::err(LitError::new(
            "integer constant is too large",
            0..text.len(),
        ));
    }
    let number = Number::Int {
        value,
        suffix,
        decimal: radix == 10,
    };
    if long_long {
        return Classified::warned(
            number,
            LitError::new(
                "`long long` literals are not supported in OpenCL C; use `l` (64 bits)",
                end..text.len(),
            ),
        );
    }
    Classified::ok(number)
}

/// The suffix of a floating constant starting at byte `at`.
fn float_suffix(text: &str, at: usize, value: f64) -> Classified<Number> {
    let suffix_text = &text[at..];
    let suffix = match suffix_text {
        "" => FloatSuffix::None,
        "f" | "F" => FloatSuffix::F,
        "h" | "H" => FloatSuffix::H,
        "l" | "L" => {
            return Classified::warned(
                Number::Float {
                    value,
                    suffix: FloatSuffix::None,
                },
                LitError::new("`long double` is not supported in OpenCL C", at..text.len()),
            );
        }
        _ => {
            return Classified::err(LitError::new(
                format!("invalid suffix `{suffix_text}` on floating constant"),
                at..text.len(),
            ));
        }
    };
    Classified::ok(Number::Float { value, suffix })
}

/// Scans an exponent's `[+-]digits` from `i`; returns the end or an error.
fn scan_exponent(text: &str, marker: usize) -> Result<usize, LitError> {
    let b = text.as_bytes();
    let mut i = marker + 1;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == digits {
        return Err(LitError::new("exponent has no digits", marker..i));
    }
    Ok(i)
}

fn classify_dec_float(text: &str) -> Classified<Number> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        match scan_exponent(text, i) {
            Ok(end) => i = end,
            Err(e) => return Classified::err(e),
        }
    }
    // The slice is `digits [. digits] [e [+-] digits]` with at least one digit
    // (the lexer guarantees one), which Rust's parser accepts.
    match text[..i].parse::<f64>() {
        Ok(value) => float_suffix(text, i, value),
        Err(_) => Classified::err(LitError::new("invalid floating constant", 0..text.len())),
    }
}

fn classify_hex_float(text: &str) -> Classified<Number> {
    let b = text.as_bytes();
    let mut i = 2;
    // Mantissa bits kept in a u64; digits beyond its precision only move the
    // binary point, which is far below f64's 53 bits of precision.
    let mut mantissa: u64 = 0;
    let mut exp_adjust: i64 = 0;
    let mut any_digit = false;
    let mut seen_dot = false;
    while i < b.len() {
        let c = b[i];
        if c == b'.' && !seen_dot {
            seen_dot = true;
        } else if let Some(d) = (c as char).to_digit(16) {
            any_digit = true;
            if mantissa >> 60 == 0 {
                mantissa = mantissa * 16 + d as u64;
                if seen_dot {
                    exp_adjust -= 4;
                }
            } else if !seen_dot {
                exp_adjust += 4;
            }
        } else {
            break;
        }
        i += 1;
    }
    if !any_digit {
        return Classified::err(LitError::new(
            "expected hexadecimal digits after `0x`",
            0..text.len(),
        ));
    }
    if i >= b.len() || !(b[i] == b'p' || b[i] == b'P') {
        return Classified::err(LitError::new(
            "hexadecimal floating constant requires an exponent",
            0..text.len(),
        ));
    }
    let exp_start = i + 1;
    let end = match scan_exponent(text, i) {
        Ok(end) => end,
        Err(e) => return Classified::err(e),
    };
    // Huge exponents saturate; the scaling below then gives inf or 0.
    let exp: i64 = text[exp_start..end]
        .parse::<i64>()
        .unwrap_or(if b[exp_start] == b'-' {
            -100_000
        } else {
            100_000
        });
    let value = scale_by_pow2(mantissa as f64, exp.saturating_add(exp_adjust));
    float_suffix(text, end, value)
}

/// `x * 2^e` without overflowing the intermediate power.
fn scale_by_pow2(mut x: f64, mut e: i64) -> f64 {
    e = e.clamp(-3000, 3000);
    while e > 0 {
        let step = e.min(1000);
        x *= 2f64.powi(step as i32);
        e -= step;
    }
    while e < 0 {
        let step = (-e).min(1000);
        x /= 2f64.powi(step as i32);
        e += step;
    }
    x
}

/// Decodes the body of a character or string literal (without the quotes).
/// Returns the values of its characters; `offset` is the byte position of the
/// body inside the token (for error ranges).
pub(crate) fn decode_escapes(body: &str, offset: usize) -> Result<Vec<u32>, LitError> {
    let mut out = Vec::new();
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c as u32);
            continue;
        }
        let Some((j, e)) = chars.next() else {
            // The lexer never ends a literal on a backslash; be safe anyway.
            return Err(LitError::new(
                "incomplete escape sequence",
                offset + i..offset + i + 1,
            ));
        };
        let value = match e {
            'n' => 0x0A,
            't' => 0x09,
            'r' => 0x0D,
            'a' => 0x07,
            'b' => 0x08,
            'f' => 0x0C,
            'v' => 0x0B,
            '0'..='7' => {
                let mut v = e as u32 - '0' as u32;
                let mut end = j + 1;
                for _ in 0..2 {
                    match chars.peek() {
                        Some(&(k, d @ '0'..='7')) => {
                            v = v * 8 + (d as u32 - '0' as u32);
                            end = k + 1;
                            chars.next();
                        }
                        _ => break,
                    }
                }
                if v > 0xFF {
                    return Err(LitError::new(
                        "octal escape sequence out of range",
                        offset + i..offset + end,
                    ));
                }
                v
            }
            'x' => {
                let mut v: u32 = 0;
                let mut end = j + 1;
                let mut any = false;
                while let Some(&(k, d)) = chars.peek() {
                    let Some(dv) = d.to_digit(16) else { break };
                    any = true;
                    v = v.saturating_mul(16).saturating_add(dv);
                    end = k + 1;
                    chars.next();
                }
                if !any {
                    return Err(LitError::new(
                        "`\\x` used with no following hex digits",
                        offset + i..offset + end,
                    ));
                }
                if v > 0xFF {
                    return Err(LitError::new(
                        "hex escape sequence out of range",
                        offset + i..offset + end,
                    ));
                }
                v
            }
            'u' | 'U' => {
                let n = if e == 'u' { 4 } else { 8 };
                let mut v: u32 = 0;
                let mut end = j + 1;
                for _ in 0..n {
                    match chars.peek() {
                        Some(&(k, d)) if d.is_ascii_hexdigit() => {
                            v = v
                                .saturating_mul(16)
                                .saturating_add(d.to_digit(16).unwrap_or(0));
                            end = k + 1;
                            chars.next();
                        }
                        _ => {
                            return Err(LitError::new(
                                "incomplete universal character name",
                                offset + i..offset + end,
                            ));
                        }
                    }
                }
                if char::from_u32(v).is_none() {
                    return Err(LitError::new(
                        "invalid universal character",
                        offset + i..offset + end,
                    ));
                }
                v
            }
            // `\\ \' \" \?`, and (as clang, with only a warning there) any
            // other character escapes to itself.
            other => other as u32,
        };
        out.push(value);
    }
    Ok(out)
}

/// Classifies a character literal token (`'a'`, `'\n'`, `'\x41'`).
pub(crate) fn classify_char(text: &str) -> Classified<u32> {
    let Some(body) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) else {
        return Classified::err(LitError::new(
            "missing terminating `'` character",
            0..text.len(),
        ));
    };
    match decode_escapes(body, 1) {
        Err(e) => Classified::err(e),
        Ok(values) => match values.as_slice() {
            [] => Classified::err(LitError::new("empty character constant", 0..text.len())),
            [v] => Classified::ok(*v),
            _ => Classified::err(LitError::new(
                "multi-character character constants are not supported",
                0..text.len(),
            )),
        },
    }
}

/// Decodes a string literal token (`"abc\n"`) to its text.
pub(crate) fn classify_string(text: &str) -> Classified<String> {
    let Some(body) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) else {
        return Classified::err(LitError::new(
            "missing terminating `\"` character",
            0..text.len(),
        ));
    };
    match decode_escapes(body, 1) {
        Err(e) => Classified::err(e),
        Ok(values) => Classified::ok(
            values
                .into_iter()
                .map(|v| char::from_u32(v).unwrap_or('\u{FFFD}'))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(text: &str) -> (u64, IntSuffix, bool) {
        match classify_number(text) {
            Classified {
                value:
                    Some(Number::Int {
                        value,
                        suffix,
                        decimal,
                    }),
                error: None,
            } => (value, suffix, decimal),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn float(text: &str) -> (f64, FloatSuffix) {
        match classify_number(text) {
            Classified {
                value: Some(Number::Float { value, suffix }),
                error: None,
            } => (value, suffix),
            other => panic!("{text}: {other:?}"),
        }
    }

    fn error(text: &str) -> (String, Range<usize>) {
        let c = classify_number(text);
        assert!(c.value.is_none(), "{text}: {c:?}");
        let e = c.error.expect("an error");
        (e.message, e.range)
    }

    #[test]
    fn integers_in_every_base() {
        assert_eq!(int("0"), (0, IntSuffix::None, false));
        assert_eq!(int("42"), (42, IntSuffix::None, true));
        assert_eq!(int("0x1F"), (31, IntSuffix::None, false));
        assert_eq!(int("0XffU"), (255, IntSuffix::U, false));
        assert_eq!(int("0777"), (511, IntSuffix::None, false));
        assert_eq!(int("0b101"), (5, IntSuffix::None, false));
        assert_eq!(
            int("18446744073709551615"),
            (u64::MAX, IntSuffix::None, true)
        );
    }

    #[test]
    fn integer_suffixes_in_any_case() {
        for (s, want) in [
            ("1u", IntSuffix::U),
            ("1U", IntSuffix::U),
            ("1l", IntSuffix::L),
            ("1L", IntSuffix::L),
            ("1ul", IntSuffix::UL),
            ("1Lu", IntSuffix::UL),
            ("1UL", IntSuffix::UL),
            ("1lU", IntSuffix::UL),
        ] {
            assert_eq!(int(s).1, want, "{s}");
        }
    }

    #[test]
    fn long_long_literal_is_reported_and_treated_as_long() {
        let c = classify_number("5ll");
        assert_eq!(
            c.value,
            Some(Number::Int {
                value: 5,
                suffix: IntSuffix::L,
                decimal: true
            })
        );
        let e = c.error.expect("reported");
        assert!(
            e.message.contains("`long long` literals are not supported"),
            "{}",
            e.message
        );
        assert_eq!(e.range, 1..3);
        let c = classify_number("5ULL");
        assert_eq!(
            c.value,
            Some(Number::Int {
                value: 5,
                suffix: IntSuffix::UL,
                decimal: true
            })
        );
    }

    #[test]
    fn bad_integers() {
        assert_eq!(
            error("12abc"),
            ("invalid suffix `abc` on integer constant".to_string(), 2..5)
        );
        assert_eq!(error("0x").0, "expected hexadecimal digits after `0x`");
        assert_eq!(error("0b").0, "expected binary digits after `0b`");
        assert_eq!(
            error("09"),
            ("invalid digit `9` in octal constant".to_string(), 1..2)
        );
        assert_eq!(
            error("0b102"),
            ("invalid digit `2` in binary constant".to_string(), 4..5)
        );
        assert_eq!(
            error("18446744073709551616").0,
            "integer constant is too large"
        );
        assert_eq!(error("0x1_0").0, "invalid suffix `_0` on integer constant");
        assert_eq!(error("1f").0, "invalid suffix `f` on integer constant");
    }

    #[test]
    fn decimal_floats() {
        assert_eq!(float("1.5"), (1.5, FloatSuffix::None));
        assert_eq!(float("1."), (1.0, FloatSuffix::None));
        assert_eq!(float(".5f"), (0.5, FloatSuffix::F));
        assert_eq!(float("1e3"), (1000.0, FloatSuffix::None));
        assert_eq!(float("1.5e-3F"), (0.0015, FloatSuffix::F));
        assert_eq!(float("2.5E+2h"), (250.0, FloatSuffix::H));
        assert_eq!(float("09.5"), (9.5, FloatSuffix::None));
        assert_eq!(float("1.e1"), (10.0, FloatSuffix::None));
    }

    #[test]
    fn hex_floats() {
        assert_eq!(float("0x1.8p3"), (12.0, FloatSuffix::None));
        assert_eq!(float("0x1p-2f"), (0.25, FloatSuffix::F));
        assert_eq!(float("0xA.8P0"), (10.5, FloatSuffix::None));
        assert_eq!(float("0x.8p1"), (1.0, FloatSuffix::None));
        assert_eq!(float("0x1p99999").0, f64::INFINITY);
    }

    #[test]
    fn bad_floats() {
        assert_eq!(error("1e+"), ("exponent has no digits".to_string(), 1..3));
        assert_eq!(error("1e").0, "exponent has no digits");
        assert_eq!(
            error("1.5x"),
            ("invalid suffix `x` on floating constant".to_string(), 3..4)
        );
        assert_eq!(error("1.5.3").0, "invalid suffix `.3` on floating constant");
        assert_eq!(
            error("0x1.8").0,
            "hexadecimal floating constant requires an exponent"
        );
        assert_eq!(error("0x1p").0, "exponent has no digits");
        assert_eq!(error("1.0ff").0, "invalid suffix `ff` on floating constant");
    }

    #[test]
    fn long_double_literal_is_reported_and_treated_as_double() {
        let c = classify_number("1.0L");
        assert_eq!(
            c.value,
            Some(Number::Float {
                value: 1.0,
                suffix: FloatSuffix::None
            })
        );
        assert!(c.error.expect("reported").message.contains("`long double`"));
    }

    #[test]
    fn characters_and_escapes() {
        let ch = |t: &str| classify_char(t).value;
        assert_eq!(ch("'a'"), Some(97));
        assert_eq!(ch(r"'\n'"), Some(10));
        assert_eq!(ch(r"'\x41'"), Some(0x41));
        assert_eq!(ch(r"'\0'"), Some(0));
        assert_eq!(ch(r"'\''"), Some(39));
        assert_eq!(ch(r"'\\'"), Some(92));
        assert_eq!(ch(r"'\101'"), Some(65));
        assert_eq!(ch(r"'\u00e9'"), Some(0xE9));
        assert_eq!(ch("'é'"), Some(0xE9));
    }

    #[test]
    fn bad_characters() {
        let msg = |t: &str| classify_char(t).error.map(|e| e.message);
        assert_eq!(msg("''").as_deref(), Some("empty character constant"));
        assert_eq!(
            msg("'ab'").as_deref(),
            Some("multi-character character constants are not supported")
        );
        assert_eq!(
            msg(r"'\x'").as_deref(),
            Some("`\\x` used with no following hex digits")
        );
        assert_eq!(
            msg(r"'\x100'").as_deref(),
            Some("hex escape sequence out of range")
        );
        assert_eq!(
            msg(r"'\777'").as_deref(),
            Some("octal escape sequence out of range")
        );
        assert_eq!(
            msg(r"'\u12'").as_deref(),
            Some("incomplete universal character name")
        );
        assert_eq!(classify_char(r"'\x'").error.map(|e| e.range), Some(1..3));
    }

    #[test]
    fn strings() {
        assert_eq!(
            classify_string(r#""a\tb\"""#).value.as_deref(),
            Some("a\tb\"")
        );
        assert_eq!(classify_string(r#""""#).value.as_deref(), Some(""));
        assert!(classify_string(r#""\x""#).error.is_some());
    }
}
