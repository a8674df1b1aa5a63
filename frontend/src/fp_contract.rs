//! `#pragma OPENCL FP_CONTRACT ON|OFF|DEFAULT` (also spelled `STDC`): where
//! a floating-point multiply and the add or subtract it feeds within one
//! expression may be contracted into one fused multiply-add (C11 6.5p8 and
//! 7.12.2). OpenCL C's default is ON, as in clang's OpenCL mode.
//!
//! The scoping is C's. At file scope a pragma holds until the next one; at
//! the start of a compound statement it holds until the next one or the end
//! of the statement, where the state from before the statement comes back.
//! Anywhere else it is an error, as in clang. Braces and pragmas are read in
//! the preprocessed token stream, so a pragma in a header or a `_Pragma`
//! from a macro counts where it is expanded.

use crate::diag::{Code, Diagnostic};
use crate::lexer::{Token, TokenKind};
use crate::preprocess::Pragma;
use crate::source::Span;

/// The state a pragma asks for: `Some(true)` for ON and DEFAULT,
/// `Some(false)` for OFF; `None` for a pragma that is not `FP_CONTRACT`.
/// A malformed argument is reported (and the pragma ignored).
fn requested(p: &Pragma, diags: &mut Vec<Diagnostic>) -> Option<bool> {
    let words: Vec<&str> = p.text.split_whitespace().collect();
    match words.as_slice() {
        ["OPENCL" | "STDC", "FP_CONTRACT", "ON" | "DEFAULT"] => Some(true),
        ["OPENCL" | "STDC", "FP_CONTRACT", "OFF"] => Some(false),
        [_, "FP_CONTRACT", ..] if matches!(words[0], "OPENCL" | "STDC") => {
            diags.push(Diagnostic::new(
                Code::UnknownPragma,
                p.span,
                "`#pragma OPENCL FP_CONTRACT` takes `ON`, `OFF` or `DEFAULT`; ignored",
            ));
            None
        }
        _ => None,
    }
}

/// The text where contraction is off: for each stretch of consecutive
/// tokens of one file under `FP_CONTRACT OFF`, the span from its first
/// token to its last (macro expansions stand at their invocation). Empty
/// when the unit never turns contraction off. Misplaced pragmas are
/// reported as errors and ignored.
pub fn off_regions(tokens: &[Token], pragmas: &[Pragma], diags: &mut Vec<Diagnostic>) -> Vec<Span> {
    let mut changes: Vec<(usize, Span, bool)> = pragmas
        .iter()
        .filter_map(|p| requested(p, diags).map(|on| (p.token, p.span, on)))
        .collect();
    if changes.is_empty() {
        return Vec::new();
    }
    changes.sort_by_key(|c| c.0);
    let mut changes = changes.into_iter().peekable();
    let mut on = true;
    // The state before each open brace, restored at its closing brace.
    let mut outer: Vec<bool> = Vec::new();
    let mut out: Vec<Span> = Vec::new();
    let mut run: Option<Span> = None;
    for (i, t) in tokens.iter().enumerate() {
        while let Some((_, span, want)) = changes.next_if(|c| c.0 <= i) {
            let after_open = i > 0 && tokens[i - 1].kind == TokenKind::LBrace;
            if outer.is_empty() || after_open {
                on = want;
            } else {
                diags.push(Diagnostic::new(
                    Code::BadDirective,
                    span,
                    "`#pragma OPENCL FP_CONTRACT` can only appear at file scope or at the start of a compound statement",
                ));
            }
        }
        if t.kind == TokenKind::Eof {
            break;
        }
        if on {
            out.extend(run.take());
        } else if let Some(r) = run.as_mut().filter(|r| r.file == t.span.file) {
            r.end = r.end.max(t.span.end);
        } else {
            out.extend(run.replace(t.span));
        }
        match t.kind {
            TokenKind::LBrace => outer.push(on),
            TokenKind::RBrace => on = outer.pop().unwrap_or(on),
            _ => {}
        }
    }
    out.extend(run);
    out
}

#[cfg(test)]
mod tests {
    use crate::diag::{Code, Diagnostic};
    use crate::preprocess::{PreprocessOptions, RealFs};
    use crate::source::Span;
    use crate::unit::{check_text, CheckedUnit};

    fn check(src: &str) -> CheckedUnit {
        check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs)
    }

    /// Whether the expression starting at the (unique) text `needle`
    /// contracts.
    fn contracts(u: &CheckedUnit, src: &str, needle: &str) -> bool {
        let at = src.find(needle).unwrap_or_else(|| panic!("no `{needle}`")) as u32;
        assert_eq!(src.matches(needle).count(), 1, "`{needle}` is not unique");
        u.hir
            .contracts(Span::new(u.main, at, at + needle.len() as u32))
    }

    fn errors(u: &CheckedUnit) -> Vec<&Diagnostic> {
        u.diagnostics.iter().filter(|d| d.is_error()).collect()
    }

    #[test]
    fn on_by_default() {
        let src = "kernel void k(global float *p) { p[0] = p[1] * p[2] + p[3]; }";
        let u = check(src);
        assert!(u.diagnostics.is_empty(), "{:?}", u.diagnostics);
        assert!(u.hir.fp_contract_off.is_empty());
        assert!(contracts(&u, src, "p[1] * p[2]"));
    }

    #[test]
    fn file_scope_pragmas_hold_until_the_next() {
        let src = "float f(float a) { return a * a + 1.0f; }\n\
            #pragma OPENCL FP_CONTRACT OFF\n\
            float g(float a) { return a * a + 2.0f; }\n\
            float h(float a) { return a * a + 3.0f; }\n\
            #pragma OPENCL FP_CONTRACT DEFAULT\n\
            float i(float a) { return a * a + 4.0f; }\n\
            #pragma STDC FP_CONTRACT OFF\n\
            kernel void k(global float *p) { p[0] = f(p[0]) + g(p[0]) + h(p[0]) + i(p[0]); }";
        let u = check(src);
        assert!(u.diagnostics.is_empty(), "{:?}", u.diagnostics);
        assert!(contracts(&u, src, "a * a + 1.0f"));
        assert!(!contracts(&u, src, "a * a + 2.0f"));
        assert!(!contracts(&u, src, "a * a + 3.0f"));
        assert!(contracts(&u, src, "a * a + 4.0f"));
        assert!(!contracts(&u, src, "f(p[0]) +"));
    }

    #[test]
    fn a_compound_statement_restores_the_state_at_its_end() {
        let src = "kernel void k(global float *p) {\n\
              #pragma OPENCL FP_CONTRACT OFF\n\
              p[0] = p[1] * p[2] + 0.5f;\n\
              if (p[3] > 0.0f) {\n\
                p[4] = p[1] * p[2] + 1.5f;\n\
              }\n\
              for (int i = 0; i < 4; i++) {\n\
                #pragma OPENCL FP_CONTRACT ON\n\
                p[5] = p[1] * p[2] + 2.5f;\n\
                { p[6] = p[1] * p[2] + 3.5f; }\n\
              }\n\
              p[7] = p[1] * p[2] + 4.5f;\n\
            }\n\
            kernel void q(global float *p) { p[8] = p[1] * p[2] + 5.5f; }";
        let u = check(src);
        assert!(u.diagnostics.is_empty(), "{:?}", u.diagnostics);
        assert!(!contracts(&u, src, "p[1] * p[2] + 0.5f"));
        // Nested statements inherit the state.
        assert!(!contracts(&u, src, "p[1] * p[2] + 1.5f"));
        assert!(contracts(&u, src, "p[1] * p[2] + 2.5f"));
        assert!(contracts(&u, src, "p[1] * p[2] + 3.5f"));
        // The loop body's ON ends with it.
        assert!(!contracts(&u, src, "p[1] * p[2] + 4.5f"));
        // The kernel body's OFF ends with it.
        assert!(contracts(&u, src, "p[1] * p[2] + 5.5f"));
    }

    #[test]
    fn pragmas_from_macros_count_where_expanded() {
        let src = "#define STRICT _Pragma(\"OPENCL FP_CONTRACT OFF\")\n\
            #define MAD(a, b, c) ((a) * (b) + (c))\n\
            kernel void k(global float *p) {\n\
              STRICT\n\
              p[0] = MAD(p[1], p[2], p[3]);\n\
            }\n\
            kernel void q(global float *p) { p[0] = MAD(p[4], p[5], p[6]); }";
        let u = check(src);
        assert!(u.diagnostics.is_empty(), "{:?}", u.diagnostics);
        assert!(!contracts(&u, src, "MAD(p[1]"));
        assert!(contracts(&u, src, "MAD(p[4]"));
    }

    #[test]
    fn a_pragma_after_a_statement_is_an_error() {
        let src = "kernel void k(global float *p) {\n\
              p[0] = 1.0f;\n\
              #pragma OPENCL FP_CONTRACT OFF\n\
              p[1] = p[2] * p[3] + p[4];\n\
            }";
        let u = check(src);
        let e = errors(&u);
        assert_eq!(e.len(), 1, "{:?}", u.diagnostics);
        assert_eq!(e[0].code, Code::BadDirective);
        assert_eq!(
            e[0].message,
            "`#pragma OPENCL FP_CONTRACT` can only appear at file scope or at the start of a compound statement"
        );
        let line = u.sources.get(u.main).line_index(e[0].span.start);
        assert_eq!(line, 2);
    }

    #[test]
    fn an_unknown_state_is_a_hint_and_ignored() {
        let src = "#pragma OPENCL FP_CONTRACT FAST\n\
            kernel void k(global float *p) { p[0] = p[1] * p[2] + p[3]; }";
        let u = check(src);
        assert_eq!(u.diagnostics.len(), 1, "{:?}", u.diagnostics);
        assert_eq!(u.diagnostics[0].code, Code::UnknownPragma);
        assert!(contracts(&u, src, "p[1] * p[2]"));
    }
}
