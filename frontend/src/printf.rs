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

/// The type of one `printf` argument: as written (what messages name, as
/// clang's do) and after the default argument promotions (what is
/// checked: `float` is passed as `double`, since `cl_khr_fp64` is
/// available, and small integers as `int`). A string literal has neither.
#[derive(Clone, Copy, Debug)]
pub enum ArgType<'t> {
    Value {
        written: &'t Type,
        promoted: &'t Type,
    },
    String,
}

/// What is wrong with printing an argument of type `arg` with `c`, in
/// clang's words, if anything.
pub fn check_argument(c: &Conversion, arg: ArgType<'_>) -> Option<String> {
    let want = describe(c);
    let (ty, is_string, written) = match arg {
        ArgType::Value { written, promoted } => (promoted, false, written.to_string()),
        ArgType::String => (&Type::Error, true, "__constant char *".to_string()),
    };
    let bad = || {
        Some(format!(
            "format specifies type `{want}` but the argument has type `{written}`"
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
        let v = |t: &'static Type| ArgType::Value {
            written: t,
            promoted: t,
        };
        static FLOAT4: Type = Type::Vector(Scalar::Float, 4);
        static FLOAT2: Type = Type::Vector(Scalar::Float, 2);
        static INT2: Type = Type::Vector(Scalar::Int, 2);
        assert_eq!(check_argument(&c("%d"), v(&Type::INT)), None);
        assert_eq!(check_argument(&c("%u"), v(&Type::UINT)), None);
        assert_eq!(check_argument(&c("%ld"), v(&Type::LONG)), None);
        assert_eq!(check_argument(&c("%f"), v(&Type::DOUBLE)), None);
        assert_eq!(check_argument(&c("%v4hlf"), v(&FLOAT4)), None);
        assert_eq!(check_argument(&c("%v2hld"), v(&INT2)), None);
        assert_eq!(check_argument(&c("%s"), ArgType::String), None);
        assert!(check_argument(&c("%d"), v(&Type::DOUBLE)).is_some());
        assert!(check_argument(&c("%d"), v(&Type::LONG)).is_some());
        assert!(check_argument(&c("%f"), v(&Type::INT)).is_some());
        assert!(check_argument(&c("%v4hlf"), v(&FLOAT2)).is_some());
        assert!(check_argument(&c("%v4f"), v(&FLOAT4)).is_some());
    }

    #[test]
    fn messages_name_the_argument_type_as_written() {
        let c = |f: &str| convs(f).remove(0);
        // A float is checked as the double it is passed as, and named as
        // the float it is (clang: "the argument has type 'float'").
        let float = ArgType::Value {
            written: &Type::FLOAT,
            promoted: &Type::DOUBLE,
        };
        assert_eq!(check_argument(&c("%f"), float), None);
        assert_eq!(
            check_argument(&c("%d"), float).unwrap(),
            "format specifies type `int` but the argument has type `float`"
        );
        let char_arg = ArgType::Value {
            written: &Type::Scalar(Scalar::Char),
            promoted: &Type::INT,
        };
        assert_eq!(check_argument(&c("%d"), char_arg), None);
        assert_eq!(
            check_argument(&c("%ld"), char_arg).unwrap(),
            "format specifies type `long` but the argument has type `char`"
        );
        assert_eq!(
            check_argument(&c("%d"), ArgType::String).unwrap(),
            "format specifies type `int` but the argument has type `__constant char *`"
        );
    }
}
