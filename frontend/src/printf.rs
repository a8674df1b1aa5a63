//! `printf` format strings: parsed into literal text and conversions, and
//! checked against the arguments the way clang's `-Wformat` does (the
//! number of arguments, the kind of each conversion, OpenCL's vector
//! specifier `vN`).

use crate::types::{Scalar, Type};

/// The length modifier of a conversion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Length {
    None,
    /// `hh`: char.
    Char,
    /// `h`: short.
    Short,
    /// `hl`: 32 bits (OpenCL, vectors only).
    Word,
    /// `l`: long (64 bits), or double.
    Long,
}

/// One `%` conversion.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Conversion {
    /// Flags, width and precision as written (`-08.3`).
    pub spec: String,
    /// OpenCL's `vN`: the argument is a vector of N components.
    pub vector: Option<u8>,
    pub length: Length,
    /// `d i o u x X f F e E g G a A c s p`.
    pub conv: char,
}

impl Conversion {
    pub fn is_integer(&self) -> bool {
        matches!(self.conv, 'd' | 'i' | 'o' | 'u' | 'x' | 'X' | 'c')
    }

    pub fn is_float(&self) -> bool {
        matches!(self.conv, 'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A')
    }

    pub fn is_signed(&self) -> bool {
        matches!(self.conv, 'd' | 'i')
    }

    /// Bytes of each integer component the conversion prints.
    pub fn int_bytes(&self) -> u32 {
        match self.length {
            Length::Char => 1,
            Length::Short => 2,
            Length::Long => 8,
            Length::Word | Length::None => 4,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    Text(String),
    Conv(Conversion),
}

/// Parses a format string; `Err` says what is malformed.
pub fn parse(format: &str) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut it = format.chars().peekable();
    while let Some(c) = it.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        if it.peek() == Some(&'%') {
            it.next();
            text.push('%');
            continue;
        }
        let mut spec = String::new();
        while let Some(&f) = it.peek() {
            if "-+ #0".contains(f) {
                spec.push(f);
                it.next();
            } else {
                break;
            }
        }
        let digits = |spec: &mut String, it: &mut std::iter::Peekable<std::str::Chars>| {
            while let Some(&d) = it.peek() {
                if d.is_ascii_digit() {
                    spec.push(d);
                    it.next();
                } else {
                    break;
                }
            }
        };
        if it.peek() == Some(&'*') {
            return Err("`*` widths and precisions are not allowed in OpenCL C".into());
        }
        digits(&mut spec, &mut it);
        if it.peek() == Some(&'.') {
            spec.push('.');
            it.next();
            if it.peek() == Some(&'*') {
                return Err("`*` widths and precisions are not allowed in OpenCL C".into());
            }
            digits(&mut spec, &mut it);
        }
        let mut vector = None;
        if it.peek() == Some(&'v') {
            it.next();
            let mut n = String::new();
            digits(&mut n, &mut it);
            vector = match n.as_str() {
                "2" => Some(2),
                "3" => Some(3),
                "4" => Some(4),
                "8" => Some(8),
                "16" => Some(16),
                _ => return Err(format!("invalid vector width `v{n}`")),
            };
        }
        let mut length = Length::None;
        let take = |ch: char, it: &mut std::iter::Peekable<std::str::Chars>| {
            if it.peek() == Some(&ch) {
                it.next();
                true
            } else {
                false
            }
        };
        if take('h', &mut it) {
            length = if take('h', &mut it) {
                Length::Char
            } else if take('l', &mut it) {
                Length::Word
            } else {
                Length::Short
            };
        } else if take('l', &mut it) {
            length = Length::Long;
        }
        let conv = match it.next() {
            Some(c) if "diouxXfFeEgGaAcsp".contains(c) => c,
            Some(c) => return Err(format!("invalid conversion specifier `{c}`")),
            None => return Err("incomplete format specifier at the end".into()),
        };
        if length == Length::Word && vector.is_none() {
            return Err("the `hl` length modifier applies to vectors only".into());
        }
        if vector.is_some() && matches!(conv, 'c' | 's' | 'p') {
            return Err(format!("`%{conv}` cannot print a vector"));
        }
        if !text.is_empty() {
            out.push(Piece::Text(std::mem::take(&mut text)));
        }
        out.push(Piece::Conv(Conversion {
            spec,
            vector,
            length,
            conv,
        }));
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

/// What is wrong with printing an argument of type `ty` (after the
/// default argument promotions) with `c`, in clang's words, if anything.
/// `is_string` says the argument is a string literal.
pub fn check_argument(c: &Conversion, ty: &Type, is_string: bool) -> Option<String> {
    let want = describe(c);
    let bad = || {
        Some(format!(
            "format specifies type `{want}` but the argument has type `{ty}`"
        ))
    };
    if c.conv == 's' {
        return if is_string { None } else { bad() };
    }
    if is_string {
        return bad();
    }
    let (elem, width) = match ty {
        Type::Scalar(s) => (*s, None),
        Type::Vector(s, n) => (*s, Some(*n)),
        Type::Pointer(_) if c.conv == 'p' => return None,
        _ => return bad(),
    };
    if c.conv == 'p' || width != c.vector {
        return bad();
    }
    if c.is_float() {
        let ok = match (width, elem) {
            (None, Scalar::Double) => true,
            // Vectors: `hl` is float, `l` (or nothing) double.
            (Some(_), Scalar::Float) => c.length == Length::Word,
            (Some(_), Scalar::Double) => matches!(c.length, Length::None | Length::Long),
            _ => false,
        };
        return if ok { None } else { bad() };
    }
    if !elem.is_integer() {
        return bad();
    }
    let size = elem.size();
    let ok = match width {
        // Promoted scalars: int, or long with `l`.
        None => (size == 8) == (c.length == Length::Long),
        Some(_) => c.length != Length::None && size == c.int_bytes(),
    };
    if ok {
        None
    } else {
        bad()
    }
}

/// The C type a conversion expects, for messages.
fn describe(c: &Conversion) -> String {
    let base = match (c.conv, c.length) {
        ('s', _) => "char *",
        ('p', _) => "void *",
        (f, Length::Word) if "fFeEgGaA".contains(f) => "float",
        (f, _) if "fFeEgGaA".contains(f) => "double",
        (_, Length::Char) => "char",
        (_, Length::Short) => "short",
        (_, Length::Long) => "long",
        _ => "int",
    };
    let unsigned = matches!(c.conv, 'o' | 'u' | 'x' | 'X') && !matches!(c.length, Length::None);
    let u = if unsigned { "u" } else { "" };
    match c.vector {
        Some(n) => format!("{u}{base}{n}"),
        None if unsigned => format!("unsigned {base}"),
        None => base.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convs(f: &str) -> Vec<Conversion> {
        parse(f)
            .unwrap()
            .into_iter()
            .filter_map(|p| match p {
                Piece::Conv(c) => Some(c),
                Piece::Text(_) => None,
            })
            .collect()
    }

    #[test]
    fn parses_c_and_opencl_conversions() {
        let p = parse("x[%d] = %-8.3f%%\n").unwrap();
        assert_eq!(p.len(), 5);
        assert_eq!(p[0], Piece::Text("x[".into()));
        let c = convs("%v4hlf %#010lx %hhu %v2hd %s");
        assert_eq!(
            (c[0].vector, c[0].length, c[0].conv),
            (Some(4), Length::Word, 'f')
        );
        assert_eq!(
            (c[1].spec.as_str(), c[1].length, c[1].conv),
            ("#010", Length::Long, 'x')
        );
        assert_eq!(c[2].length, Length::Char);
        assert_eq!((c[3].vector, c[3].length), (Some(2), Length::Short));
        assert_eq!(c[4].conv, 's');
        assert!(parse("%y").is_err());
        assert!(parse("%v5d").is_err());
        assert!(parse("%*d").is_err());
        assert!(parse("%hlf").is_err());
        assert!(parse("50%").is_err());
    }

    #[test]
    fn argument_types_follow_clang() {
        let c = |f: &str| convs(f).remove(0);
        assert_eq!(check_argument(&c("%d"), &Type::INT, false), None);
        assert_eq!(check_argument(&c("%u"), &Type::UINT, false), None);
        assert_eq!(check_argument(&c("%ld"), &Type::LONG, false), None);
        assert_eq!(check_argument(&c("%f"), &Type::DOUBLE, false), None);
        assert_eq!(
            check_argument(&c("%v4hlf"), &Type::Vector(Scalar::Float, 4), false),
            None
        );
        assert_eq!(
            check_argument(&c("%v2hld"), &Type::Vector(Scalar::Int, 2), false),
            None
        );
        assert_eq!(check_argument(&c("%s"), &Type::Error, true), None);
        assert!(check_argument(&c("%d"), &Type::DOUBLE, false).is_some());
        assert!(check_argument(&c("%d"), &Type::LONG, false).is_some());
        assert!(check_argument(&c("%f"), &Type::INT, false).is_some());
        assert!(check_argument(&c("%v4hlf"), &Type::Vector(Scalar::Float, 2), false).is_some());
        assert!(check_argument(&c("%v4f"), &Type::Vector(Scalar::Float, 4), false).is_some());
        let m = check_argument(&c("%d"), &Type::DOUBLE, false).unwrap();
        assert_eq!(
            m,
            "format specifies type `int` but the argument has type `double`"
        );
    }
}
