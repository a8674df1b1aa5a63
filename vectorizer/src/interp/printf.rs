//! `printf` output of the interpreter: each conversion is formatted by the
//! C library's `snprintf` with the same flags, width and precision, so the
//! text is what C prints. Vectors print their components separated by `,`.

use lanes_frontend::printf::{parse, Conversion, Piece};

use super::ops::Val;
use crate::ir::{sign_extend, Ty};

/// One value as C would print it with conversion `c` (`None` if it cannot).
fn one(c: &Conversion, ty: Ty, v: &Val) -> Option<String> {
    let mut spec = format!("%{}", c.spec);
    let mut buf = vec![0u8; 512];
    let n = if c.is_float() {
        let x = match v {
            Val::F32(x) => f64::from(*x),
            Val::F64(x) => *x,
            _ => return None,
        };
        spec.push(c.conv);
        let fmt = std::ffi::CString::new(spec).ok()?;
        // SAFETY: `fmt` has one floating conversion, given one double; the
        // buffer's length is passed.
        unsafe { libc::snprintf(buf.as_mut_ptr().cast(), buf.len(), fmt.as_ptr(), x) }
    } else if c.is_integer() {
        let bits = match v {
            Val::Int(b) => *b,
            _ => return None,
        };
        let width = c.int_bytes().min(ty.bytes() as u32).max(1) * 8;
        let x: i64 = if c.is_signed() {
            sign_extend(bits, width)
        } else if width < 64 {
            (bits & ((1u64 << width) - 1)) as i64
        } else {
            bits as i64
        };
        if c.conv == 'c' {
            spec.push('c');
            let fmt = std::ffi::CString::new(spec).ok()?;
            // SAFETY: one `%c` conversion, given one int.
            unsafe {
                libc::snprintf(
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    fmt.as_ptr(),
                    x as libc::c_int,
                )
            }
        } else {
            spec.push_str("ll");
            spec.push(c.conv);
            let fmt = std::ffi::CString::new(spec).ok()?;
            // SAFETY: one `ll` integer conversion, given one long long.
            unsafe {
                libc::snprintf(
                    buf.as_mut_ptr().cast(),
                    buf.len(),
                    fmt.as_ptr(),
                    x as libc::c_longlong,
                )
            }
        }
    } else if c.conv == 'p' {
        return match v {
            Val::Ptr(p) => Some(format!("{:#x}", p.off)),
            Val::Int(b) => Some(format!("{b:#x}")),
            _ => None,
        };
    } else {
        return None;
    };
    let len = usize::try_from(n).ok()?.min(buf.len() - 1);
    buf.truncate(len);
    String::from_utf8(buf).ok()
}

/// The text `printf(format, args)` prints; values the format does not
/// describe (a mismatch the front end warned about) print as `?`.
pub(crate) fn format(format: &str, args: &[(Ty, Val)]) -> String {
    let Ok(pieces) = parse(format) else {
        return String::new();
    };
    let mut out = String::new();
    let mut next = args.iter();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(&t),
            Piece::Conv(c) => {
                let n = c.vector.unwrap_or(1);
                let mut parts = Vec::with_capacity(n as usize);
                for _ in 0..n {
                    let s = next.next().and_then(|(ty, v)| one(&c, *ty, v));
                    parts.push(s.unwrap_or_else(|| "?".into()));
                }
                out.push_str(&parts.join(","));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_c() {
        let i = |x: i64| (Ty::I32, Val::Int(x as u64 & 0xffff_ffff));
        assert_eq!(
            format("x[%d] = %u\n", &[i(-3), i(-1)]),
            "x[-3] = 4294967295\n"
        );
        assert_eq!(
            format(
                "%5.2f|%-6.1e|%g",
                &[
                    (Ty::F64, Val::F64(3.25159)),
                    (Ty::F64, Val::F64(-12345.0)),
                    (Ty::F64, Val::F64(1e-5))
                ]
            ),
            " 3.25|-1.2e+04|1e-05"
        );
        assert_eq!(format("%#06x %c%%", &[i(255), i(65)]), "0x00ff A%");
        let f = |x: f32| (Ty::F32, Val::F32(x));
        assert_eq!(
            format("(%v2hlf)", &[f(1.5), f(-2.0)]),
            "(1.500000,-2.000000)"
        );
        assert_eq!(format("%v3hhd", &[i(-1), i(127), i(128)]), "-1,127,-128");
        assert_eq!(
            format(
                "%ld %lu",
                &[(Ty::I64, Val::Int(u64::MAX)), (Ty::I64, Val::Int(u64::MAX))]
            ),
            "-1 18446744073709551615"
        );
        // Missing values print as `?`.
        assert_eq!(format("%d %d", &[i(1)]), "1 ?");
    }
}
