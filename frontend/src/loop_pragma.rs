//! Loop unrolling pragmas, as clang reads them in OpenCL C and CUDA:
//! `#pragma unroll`, `#pragma unroll N` (also `unroll(N)`), `#pragma
//! nounroll`, and `#pragma clang loop unroll(enable|disable|full)` or
//! `unroll_count(N)`. Each applies to the `for`, `while` or `do` loop that
//! follows it; the code generator passes it to LLVM's unroller as loop
//! metadata, as clang does. The count's macros are expanded by the
//! preprocessor (`#pragma unroll BLOCK_SIZE` with `-D BLOCK_SIZE=16`).
//!
//! A hint that does not precede a loop, or whose count is not a positive
//! integer constant, is reported and ignored (clang rejects both; here it
//! costs only the hint, so the kernel still builds).

use crate::diag::{Code, Diagnostic};
use crate::hir::{LoopHint, Unroll};
use crate::lexer::{Token, TokenKind};
use crate::preprocess::{parse_int, Pragma};

/// What a pragma asks for: `None` when it is not an unroll pragma, `Err`
/// with a message when it is one with a malformed argument.
fn requested(text: &str) -> Option<Result<Unroll, String>> {
    let words: Vec<&str> = text.split_whitespace().collect();
    match words.as_slice() {
        ["nounroll"] => Some(Ok(Unroll::Disable)),
        ["unroll"] => Some(Ok(Unroll::Enable)),
        ["unroll", count @ ..] => Some(count_hint(count, "#pragma unroll")),
        ["clang", "loop", rest @ ..] => clang_loop(rest),
        _ => None,
    }
}

/// `unroll(enable)` and its kin among the options of `#pragma clang loop`
/// (the others, such as `vectorize(...)`, concern LLVM's own vectorizer
/// and are ignored).
fn clang_loop(words: &[&str]) -> Option<Result<Unroll, String>> {
    let mut found = None;
    let mut i = 0;
    while i < words.len() {
        let option = words[i];
        // The option's parenthesized argument.
        let arg_end = match words.get(i + 1) {
            Some(&"(") => words[i..].iter().position(|w| *w == ")").map(|p| i + p),
            _ => None,
        };
        let arg = arg_end.map_or(&[][..], |e| &words[i + 2..e]);
        match option {
            "unroll" => {
                found = Some(match arg {
                    ["enable"] => Ok(Unroll::Enable),
                    ["full"] => Ok(Unroll::Full),
                    ["disable"] => Ok(Unroll::Disable),
                    _ => Err(
                        "`#pragma clang loop unroll` takes `enable`, `full` or `disable`; ignored"
                            .to_string(),
                    ),
                })
            }
            "unroll_count" => found = Some(count_hint(arg, "#pragma clang loop unroll_count")),
            _ => {}
        }
        i = arg_end.map_or(i + 1, |e| e + 1);
    }
    found
}

/// A count given as `N` or `( N )`: 1 turns unrolling off, as in clang.
fn count_hint(words: &[&str], what: &str) -> Result<Unroll, String> {
    let inner = match words {
        ["(", inner @ .., ")"] => inner,
        _ => words,
    };
    let count = match inner {
        [n] => parse_int(n).ok().and_then(|v| u32::try_from(v.v).ok()),
        _ => None,
    };
    match count {
        Some(0) | None => Err(format!(
            "`{what}` takes a positive integer constant; ignored"
        )),
        Some(1) => Ok(Unroll::Disable),
        Some(n) => Ok(Unroll::Count(n)),
    }
}

/// The unroll hints of the unit, each at the loop keyword it precedes.
/// Malformed or misplaced hints are reported as [`Code::UnknownPragma`]
/// and left out. Of several hints before one loop, the last holds.
pub fn loop_hints(
    tokens: &[Token],
    pragmas: &[Pragma],
    diags: &mut Vec<Diagnostic>,
) -> Vec<LoopHint> {
    let mut hints: Vec<LoopHint> = Vec::new();
    for p in pragmas {
        let unroll = match requested(&p.text) {
            None => continue,
            Some(Ok(u)) => u,
            Some(Err(msg)) => {
                diags.push(Diagnostic::new(Code::UnknownPragma, p.span, msg));
                continue;
            }
        };
        let next = tokens.get(p.token).filter(|t| {
            t.kind == TokenKind::Ident && matches!(t.text.as_str(), "for" | "while" | "do")
        });
        let Some(next) = next else {
            diags.push(Diagnostic::new(
                Code::UnknownPragma,
                p.span,
                "a loop unrolling pragma must be followed by a `for`, `while` or `do` loop; ignored",
            ));
            continue;
        };
        hints.retain(|h| h.span != next.span);
        hints.push(LoopHint {
            span: next.span,
            unroll,
        });
    }
    hints
}

#[cfg(test)]
mod tests {
    use crate::diag::Code;
    use crate::hir::{StmtKind, Unroll};
    use crate::preprocess::{PreprocessOptions, RealFs};
    use crate::unit::{check_text, CheckedUnit};

    fn check(src: &str) -> CheckedUnit {
        check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs)
    }

    fn check_with(src: &str, defines: &[(&str, &str)]) -> CheckedUnit {
        let opts = PreprocessOptions {
            defines: defines
                .iter()
                .map(|(n, v)| (n.to_string(), Some(v.to_string())))
                .collect(),
            ..PreprocessOptions::default()
        };
        check_text("t.cl", None, src, &opts, &RealFs)
    }

    /// The hints of the kernel's loops, in source order (`None` for a loop
    /// without one), found through [`crate::hir::Unit::unroll`] as the
    /// lowering asks.
    fn loop_hints(u: &CheckedUnit) -> Vec<Option<Unroll>> {
        fn walk(s: &crate::hir::Stmt, u: &CheckedUnit, out: &mut Vec<Option<Unroll>>) {
            match &s.kind {
                StmtKind::For { body, .. }
                | StmtKind::While { body, .. }
                | StmtKind::DoWhile { body, .. } => {
                    out.push(u.hir.unroll(s.span));
                    walk(body, u, out);
                }
                StmtKind::Block(b) => b.stmts.iter().for_each(|s| walk(s, u, out)),
                StmtKind::If { then, els, .. } => {
                    walk(then, u, out);
                    if let Some(e) = els {
                        walk(e, u, out);
                    }
                }
                _ => {}
            }
        }
        let mut out = Vec::new();
        for f in u.hir.kernels() {
            if let Some(body) = &u.hir.function(f).body {
                body.stmts.iter().for_each(|s| walk(s, u, &mut out));
            }
        }
        out
    }

    fn messages(u: &CheckedUnit) -> Vec<String> {
        u.diagnostics
            .iter()
            .map(|d| format!("{}: {}", d.code, d.message))
            .collect()
    }

    #[test]
    fn every_spelling_reaches_its_loop() {
        let src = "kernel void k(global float *p) {\n\
            #pragma unroll\n\
            for (int i = 0; i < 4; i++) p[i] += 1.0f;\n\
            #pragma unroll 8\n\
            for (int i = 0; i < 64; i++) p[i] += 1.0f;\n\
            #pragma unroll(0x10)\n\
            while (p[0] < 9.0f) p[0] += 1.0f;\n\
            #pragma nounroll\n\
            do p[1] += 1.0f; while (p[1] < 5.0f);\n\
            #pragma unroll 1\n\
            for (;;) { if (p[2] > 0.0f) break; p[2] += 1.0f; }\n\
            #pragma clang loop vectorize(enable) unroll(full)\n\
            for (int i = 0; i < 4; i++) p[i] *= 2.0f;\n\
            #pragma clang loop unroll_count(4)\n\
            for (int i = 0; i < 4; i++) {\n\
              for (int j = 0; j < 4; j++) p[j] += p[i];\n\
            }\n\
            #pragma clang loop unroll(disable)\n\
            for (int i = 0; i < 4; i++) p[i] -= 1.0f;\n\
            for (int i = 0; i < 4; i++) p[i] -= 2.0f;\n\
        }\n";
        let u = check(src);
        assert_eq!(messages(&u), Vec::<String>::new());
        assert_eq!(
            loop_hints(&u),
            vec![
                Some(Unroll::Enable),
                Some(Unroll::Count(8)),
                Some(Unroll::Count(16)),
                Some(Unroll::Disable),
                Some(Unroll::Disable),
                Some(Unroll::Full),
                Some(Unroll::Count(4)),
                None,
                Some(Unroll::Disable),
                None,
            ]
        );
    }

    #[test]
    fn the_count_expands_macros() {
        let src = "#define TILE 4\n\
            kernel void k(global float *p) {\n\
            #pragma unroll TILE\n\
            for (int i = 0; i < 16; i++) p[i] += 1.0f;\n\
            #pragma unroll (BLOCK_SIZE)\n\
            for (int i = 0; i < 16; i++) p[i] += 1.0f;\n\
            }\n";
        let u = check_with(src, &[("BLOCK_SIZE", "8")]);
        assert_eq!(messages(&u), Vec::<String>::new());
        assert_eq!(
            loop_hints(&u),
            vec![Some(Unroll::Count(4)), Some(Unroll::Count(8))]
        );
    }

    #[test]
    fn misplaced_and_malformed_hints_are_reported_and_ignored() {
        let src = "kernel void k(global float *p, int n) {\n\
            #pragma unroll\n\
            p[0] = 1.0f;\n\
            #pragma unroll 0\n\
            for (int i = 0; i < 4; i++) p[i] += 1.0f;\n\
            #pragma unroll n\n\
            for (int i = 0; i < 4; i++) p[i] += 1.0f;\n\
            #pragma clang loop unroll(sometimes)\n\
            for (int i = 0; i < 4; i++) p[i] += 1.0f;\n\
        }\n";
        let u = check(src);
        let diags = messages(&u);
        assert_eq!(
            diags,
            vec![
                "L0101: a loop unrolling pragma must be followed by a `for`, `while` or `do` loop; ignored",
                "L0101: `#pragma unroll` takes a positive integer constant; ignored",
                "L0101: `#pragma unroll` takes a positive integer constant; ignored",
                "L0101: `#pragma clang loop unroll` takes `enable`, `full` or `disable`; ignored",
            ]
        );
        assert!(u.diagnostics.iter().all(|d| d.code == Code::UnknownPragma));
        // The pragma's line, with the line and column users see.
        let first = &u.diagnostics[0];
        assert_eq!(
            &src[first.span.start as usize..first.span.end as usize],
            "#pragma unroll"
        );
        assert_eq!(loop_hints(&u), vec![None, None, None]);
    }
}
