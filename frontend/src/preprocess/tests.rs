//! Tests of the preprocessor, with an in-memory file system.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::*;

/// Files as bytes, decoded as from disk.
struct MemFs(HashMap<PathBuf, Vec<u8>>);

impl FileLoader for MemFs {
    fn read(&self, path: &Path) -> std::io::Result<SourceText> {
        self.0
            .get(path)
            .map(|bytes| crate::source::decode_source(bytes))
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"))
    }
}

struct Out {
    pp: Preprocessed,
    diags: Vec<Diagnostic>,
    sources: SourceMap,
    main: FileId,
}

impl Out {
    /// The output tokens (without Eof) joined by single spaces.
    fn text(&self) -> String {
        self.toks()
            .iter()
            .map(|t| t.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn toks(&self) -> &[Token] {
        &self.pp.tokens[..self.pp.tokens.len() - 1]
    }

    fn codes(&self) -> Vec<Code> {
        self.diags.iter().map(|d| d.code).collect()
    }

    /// The first output token with this text.
    fn tok(&self, text: &str) -> &Token {
        self.toks()
            .iter()
            .find(|t| t.text == text)
            .unwrap_or_else(|| panic!("no token `{text}` in {}", self.text()))
    }

    /// The source text of a span.
    fn at(&self, span: Span) -> &str {
        self.sources.text(span)
    }

    /// The span of the first occurrence of `needle` in the main file.
    fn find(&self, needle: &str) -> Span {
        let text = &self.sources.get(self.main).text;
        let start = text
            .find(needle)
            .unwrap_or_else(|| panic!("`{needle}` not in main")) as u32;
        Span::new(self.main, start, start + needle.len() as u32)
    }

    /// The span of the first `len` bytes of the first occurrence of `needle`.
    fn find_first(&self, needle: &str, len: u32) -> Span {
        let s = self.find(needle);
        Span::new(s.file, s.start, s.start + len)
    }

    fn only_diag(&self, code: Code) -> &Diagnostic {
        assert_eq!(self.codes(), vec![code], "{:#?}", self.diags);
        &self.diags[0]
    }
}

fn run_with(files: &[(&str, &str)], src: &str, opts: &PreprocessOptions) -> Out {
    let fs = MemFs(
        files
            .iter()
            .map(|(p, t)| (PathBuf::from(p), t.as_bytes().to_vec()))
            .collect(),
    );
    let mut sources = SourceMap::new();
    let main = sources.add(SourceFile::new(
        "main.cl",
        Some(PathBuf::from("/src/main.cl")),
        src,
    ));
    let mut diags = Vec::new();
    let pp = preprocess(&mut sources, main, opts, &fs, &mut diags);
    let last = pp.tokens.last().expect("the stream always ends with Eof");
    assert_eq!(last.kind, TokenKind::Eof);
    assert_eq!(
        pp.tokens
            .iter()
            .filter(|t| t.kind == TokenKind::Eof)
            .count(),
        1
    );
    Out {
        pp,
        diags,
        sources,
        main,
    }
}

fn run(src: &str) -> Out {
    run_with(&[], src, &PreprocessOptions::default())
}

/// Output text of a source that must preprocess without diagnostics.
fn expand(src: &str) -> String {
    let out = run(src);
    assert!(
        out.diags.is_empty(),
        "unexpected diagnostics: {:#?}",
        out.diags
    );
    out.text()
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether `#if expr` takes the group (the expression must be error-free).
fn cond(expr: &str) -> bool {
    let out = run(&format!("#if {expr}\nyes\n#else\nno\n#endif\n"));
    assert!(out.diags.is_empty(), "`{expr}`: {:#?}", out.diags);
    match out.text().as_str() {
        "yes" => true,
        "no" => false,
        other => panic!("`{expr}` gave `{other}`"),
    }
}

/// The diagnostics of `#if expr`, and whether it took the group.
fn cond_diags(expr: &str) -> (bool, Vec<Diagnostic>) {
    let out = run(&format!("#if {expr}\nyes\n#endif\n"));
    (out.text() == "yes", out.diags)
}

// ---- object-like and function-like macros ----

#[test]
fn object_like_macro() {
    assert_eq!(expand("#define N 4\nint a[N];"), "int a [ 4 ] ;");
    assert_eq!(expand("#define E\nE int E x E;"), "int x ;");
    assert_eq!(expand("#define A B\n#define B C\n#define C 7\nA"), "7");
}

#[test]
fn function_like_macro() {
    let src = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\nMAX(x, y + 1)";
    assert_eq!(expand(src), "( ( x ) > ( y + 1 ) ? ( x ) : ( y + 1 ) )");
}

#[test]
fn function_like_name_without_paren_is_not_invoked() {
    assert_eq!(
        expand("#define f(x) [x]\nint f; f (1) f"),
        "int f ; [ 1 ] f"
    );
    // Nor when the `(` only comes from another macro.
    assert_eq!(expand("#define f(x) [x]\n#define LP (\nf LP 1)"), "f ( 1 )");
}

#[test]
fn invocation_spanning_lines_with_nested_parens_and_commas() {
    let src = "#define F(a, b) a | b\nF((1, 2),\n  g(3,\n 4))\nafter";
    assert_eq!(expand(src), "( 1 , 2 ) | g ( 3 , 4 ) after");
}

#[test]
fn empty_arguments() {
    assert_eq!(expand("#define F(a, b) [a|b]\nF(,) F(x,)"), "[ | ] [ x | ]");
    assert_eq!(expand("#define G() 1\nG()"), "1");
    assert_eq!(expand("#define H(x) <x>\nH()"), "< >");
}

#[test]
fn directives_inside_macro_arguments() {
    assert_eq!(
        expand("#define F(x) [x]\nF(1\n#ifdef NOPE\n2\n#endif\n)"),
        "[ 1 ]"
    );
}

// ---- # and ## ----

#[test]
fn stringize() {
    let out = run("#define S(x) #x\nS(a + b) S(  lots   of\n  space  ) S(\"q\\\"\" 'c' '\\n') S()");
    assert!(out.diags.is_empty(), "{:#?}", out.diags);
    let texts: Vec<&str> = out.toks().iter().map(|t| t.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            r#""a + b""#,
            r#""lots of space""#,
            r#""\"q\\\"\" 'c' '\\n'""#,
            r#""""#
        ]
    );
    assert!(out.toks().iter().all(|t| t.kind == TokenKind::StringLit));
}

#[test]
fn paste() {
    let out =
        run("#define CAT(a, b) a ## b\nCAT(x, y) CAT(1, 2) CAT(+, =) CAT(, z) CAT(w, ) CAT(,)");
    assert!(out.diags.is_empty(), "{:#?}", out.diags);
    assert_eq!(out.text(), "xy 12 += z w");
    assert_eq!(out.tok("xy").kind, TokenKind::Ident);
    assert_eq!(out.tok("12").kind, TokenKind::Number);
    assert_eq!(out.tok("+=").kind, TokenKind::PlusEq);
}

#[test]
fn paste_result_is_rescanned_and_operands_are_not_expanded() {
    assert_eq!(
        expand("#define ab 42\n#define CAT(a, b) a##b\nCAT(a, b)"),
        "42"
    );
    let src =
        "#define A 1\n#define CAT(a, b) a##b\n#define XCAT(a, b) CAT(a, b)\nCAT(A, 2) XCAT(A, 2)";
    assert_eq!(expand(src), "A2 12");
    // Pasting in an object-like macro.
    assert_eq!(expand("#define P x ## 1\nP"), "x1");
}

#[test]
fn invalid_paste() {
    let out = run("#define CAT(a, b) a ## b\nCAT(+, -) CAT(/, /)");
    assert_eq!(out.codes(), vec![Code::MacroCall, Code::MacroCall]);
    assert!(
        out.diags[0].message.contains("`+-`"),
        "{}",
        out.diags[0].message
    );
    assert_eq!(out.diags[0].span, out.find("CAT(+, -)"));
    assert_eq!(out.at(out.diags[0].related[0].span), "##");
    assert_eq!(out.text(), "+ - / /");
}

#[test]
fn variadic_macros() {
    assert_eq!(
        expand("#define V(f, ...) f(__VA_ARGS__)\nV(g, b, (c, d))"),
        "g ( b , ( c , d ) )"
    );
    assert_eq!(
        expand("#define E(...) [__VA_ARGS__]\nE() E(1, 2)"),
        "[ ] [ 1 , 2 ]"
    );
    // The variadic part may be left out entirely.
    assert_eq!(expand("#define V(f, ...) f(__VA_ARGS__)\nV(g)"), "g ( )");
    // GNU `, ## __VA_ARGS__` drops the comma when there are no arguments.
    assert_eq!(
        expand("#define G(f, ...) h(f, ## __VA_ARGS__)\nG(a) G(a, b)"),
        "h ( a ) h ( a , b )"
    );
}

// ---- rescanning and hide sets ----

#[test]
fn self_referential_macros() {
    assert_eq!(expand("#define x x\nx"), "x");
    assert_eq!(expand("#define x 1 + x\nx"), "1 + x");
    assert_eq!(expand("#define a b\n#define b a\na b"), "a b");
    assert_eq!(expand("#define f(x) x f\nf(1)(2)"), "1 f ( 2 )");
    // C 6.10.3.4p4: either is allowed; this is clang's and gcc's answer.
    assert_eq!(
        squash(&expand("#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)")),
        "2*9*g"
    );
    // A hidden name stays hidden when passed through another macro.
    assert_eq!(expand("#define ID(x) x\n#define x ID(x)\nx"), "x");
}

#[test]
fn arguments_are_expanded_before_substitution_but_not_next_to_hash() {
    let src = "#define N 4\n#define S(x) #x\n#define XS(x) S(x)\n#define ID(x) x\nS(N) XS(N) ID(N)";
    assert_eq!(expand(src), "\"N\" \"4\" 4");
}

#[test]
fn c_standard_example_3() {
    let src = r#"#define x 3
#define f(a) f(x * (a))
#undef x
#define x 2
#define g f
#define z z[0]
#define h g(~
#define m(a) a(w)
#define w 0,1
#define t(a) a
#define p() int
#define q(x) x
#define r(x,y) x ## y
#define str(x) # x
f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);
g(x+(3,4)-w) | h 5) & m
(f)^m(m);
p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };
char c[2][6] = { str(hello), str() };
"#;
    let expected = r#"f(2 * (y+1)) + f(2 * (f(2 * (z[0])))) % f(2 * (0)) + t(1);
f(2 * (2+(3,4)-0,1)) | f(2 * (~ 5)) & f(2 * (0,1))^m(0,1);
int i[] = { 1, 23, 4, 5, };
char c[2][6] = { "hello", "" };"#;
    assert_eq!(squash(&expand(src)), squash(expected));
}

#[test]
fn c_standard_example_4() {
    let src = r#"#define str(s) # s
#define xstr(s) str(s)
#define debug(s, t) printf("x" # s "= %d, x" # t "= %s", \
 x ## s, x ## t)
#define INCFILE(n) vers ## n
#define glue(a, b) a ## b
#define xglue(a, b) glue(a, b)
#define HIGHLOW "hello"
#define LOW LOW ", world"
debug(1, 2);
fputs(str(strncmp("abc\0d", "abc", '\4') // this goes away
 == 0), s);
xstr(INCFILE(2).h)
glue(HIGH, LOW);
xglue(HIGH, LOW)
"#;
    let out = run(src);
    assert!(out.diags.is_empty(), "{:#?}", out.diags);
    let texts: Vec<&str> = out.toks().iter().map(|t| t.text.as_str()).collect();
    let expected = vec![
        "printf",
        "(",
        r#""x""#,
        r#""1""#,
        r#""= %d, x""#,
        r#""2""#,
        r#""= %s""#,
        ",",
        "x1",
        ",",
        "x2",
        ")",
        ";",
        "fputs",
        "(",
        r#""strncmp(\"abc\\0d\", \"abc\", '\\4') == 0""#,
        ",",
        "s",
        ")",
        ";",
        r#""vers2.h""#,
        r#""hello""#,
        ";",
        r#""hello""#,
        r#"", world""#,
    ];
    assert_eq!(texts, expected);
}

#[test]
fn pasted_hash_hash_is_not_an_operator() {
    // C 6.10.3.3p4.
    let src = "#define hash_hash # ## #\n#define mkstr(a) # a\n#define in_between(a) mkstr(a)\n#define join(c, d) in_between(c hash_hash d)\nchar p[] = join(x, y);";
    assert_eq!(expand(src), "char p [ ] = \"x ## y\" ;");
}

#[test]
fn name_from_an_argument_invoked_with_body_parens() {
    let src =
        "#define NIL(xxx) xxx\n#define G_0(arg) NIL(G_1)(arg)\n#define G_1(arg) NIL(arg)\nG_0(42)";
    assert_eq!(expand(src), "42");
    assert_eq!(expand("#define f(a) a\nf(f)(1)"), "f ( 1 )");
    assert_eq!(expand("#define g(x) x\n#define h g(\nh 1))"), "1 )");
}

#[test]
fn c_standard_example_5_placemarkers() {
    let src = "#define t(x,y,z) x ## y ## z\nint j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,),\n t(10,,), t(,11,), t(,,12), t(,,) };";
    assert_eq!(
        expand(src),
        "int j [ ] = { 123 , 45 , 67 , 89 , 10 , 11 , 12 , } ;"
    );
}

#[test]
fn c_standard_example_7_variadic() {
    let src = r#"#define debug(...) fprintf(stderr, __VA_ARGS__)
#define showlist(...) puts(#__VA_ARGS__)
#define report(test, ...) ((test)?puts(#test): printf(__VA_ARGS__))
debug("Flag");
debug("X = %d\n", x);
showlist(The first, second, and third items.);
report(x>y, "x is %d but y is %d", x, y);
"#;
    let expected = r#"fprintf(stderr, "Flag");
fprintf(stderr, "X = %d\n", x);
puts("The first, second, and third items.");
((x>y)?puts("x>y"): printf("x is %d but y is %d", x, y));"#;
    let out = run(src);
    assert!(out.diags.is_empty(), "{:#?}", out.diags);
    assert_eq!(squash(&out.text()), squash(expected));
    assert!(out
        .toks()
        .iter()
        .any(|t| t.text == "\"The first, second, and third items.\""));
}

// ---- #if ----

#[test]
fn if_arithmetic() {
    assert!(cond("1 + 2 * 3 == 7"));
    assert!(!cond("(1 + 2) * 3 == 7"));
    assert!(cond("10 - 2 - 3 == 5"));
    assert!(cond("5 / 2 == 2 && -5 / 2 == -2 && -5 % 2 == -1"));
    assert!(cond("0x10 == 16 && 010 == 8 && 0b11 == 3 && 10UL == 10"));
    assert!(cond(
        "(1 << 4) == 16 && (256 >> 4) == 16 && (-16 >> 2) == -4"
    ));
    assert!(cond(
        "(6 & 3) == 2 && (6 | 3) == 7 && (6 ^ 3) == 5 && ~0 == -1"
    ));
    assert!(cond("!0 && !!5 == 1 && -(-3) == 3 && +3 == 3"));
    assert!(cond("1 ? 2 : 3") && cond("(0 ? 0 : 3) == 3"));
    assert!(cond("(1, 2) == 2"));
    assert!(cond("UNDEFINED_NAME == 0"));
    assert!(!cond("UNDEFINED_NAME"));
    // No panic on overflow: wrapping intmax arithmetic.
    assert!(cond("(-9223372036854775807 - 1) / -1 < 0"));
    assert!(cond("9223372036854775807 + 1 < 0"));
    assert!(cond("(1 << 63) < 0 && (1 << 64) == 0 && (1 << -1) == 0"));
}

#[test]
fn if_unsigned_rules() {
    assert!(cond("-1 > 0u"));
    assert!(!cond("-1 > 0"));
    assert!(cond("-1 == 18446744073709551615u"));
    // Too big for intmax_t: unsigned.
    assert!(cond("18446744073709551615 > 0"));
    assert!(cond("~0u == 18446744073709551615"));
    assert!(cond("(0 ? -1 : 0u) - 1 > 0"));
    assert!(cond("-1 / 2u > 0"));
    assert!(cond("(-1u >> 63) == 1"));
}

#[test]
fn if_character_constants() {
    assert!(cond(
        "'a' == 97 && '\\n' == 10 && '\\0' == 0 && '\\x41' == 65 && '\\101' == 65"
    ));
    assert!(cond("'\\xff' < 0"));
    assert!(cond("'\\'' == 39 && '\\\\' == 92"));
    assert!(cond("'ab' == 24930"));
}

#[test]
fn if_short_circuit() {
    assert!(!cond("0 && (1 / 0)"));
    assert!(cond("1 || (1 / 0)"));
    assert!(cond("1 ? 1 : 1 / 0"));
    // A broken invocation makes the condition false with one error.
    let out = run("#define F(x) x\n#if F(1\nyes\n#endif\nno");
    assert_eq!(out.codes(), vec![Code::MacroCall]);
    assert_eq!(out.text(), "no");
    assert!(cond("0 ? 1 / 0 : 1"));
    assert!(!cond("0 && 1 % 0"));
}

#[test]
fn if_errors() {
    let (taken, d) = cond_diags("1 / 0");
    assert!(!taken);
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].code, d[0].message.as_str()),
        (Code::BadDirective, "division by zero in `#if` expression")
    );
    let (taken, d) = cond_diags("(1");
    assert!(!taken);
    assert_eq!(
        d[0].message,
        "expected `)` in `#if` expression, found end of line"
    );
    assert_eq!(
        cond_diags("1 2").1[0].message,
        "missing binary operator before `2`"
    );
    assert_eq!(
        cond_diags("1 +").1[0].message,
        "expected value in `#if` expression, found end of line"
    );
    assert_eq!(
        cond_diags("1 ? 2").1[0].message,
        "expected `:` in `#if` expression, found end of line"
    );
    assert!(cond_diags("1.5").1[0].message.contains("floating-point"));
    assert!(cond_diags("12abc").1[0]
        .message
        .contains("invalid suffix `abc`"));
    assert!(cond_diags("099").1[0]
        .message
        .contains("invalid digit `9` in octal"));
    assert!(cond_diags("99999999999999999999").1[0]
        .message
        .contains("too large"));
    assert_eq!(
        cond_diags("F(1)").1[0].message,
        "function-like macro `F` is not defined"
    );
    assert_eq!(
        cond_diags("\"s\"").1[0].message,
        "expected value in `#if` expression, found `\"s\"`"
    );
    let out = run("#if\n#endif\n#elif\n");
    assert_eq!(
        out.codes(),
        vec![Code::BadDirective, Code::UnbalancedConditional]
    );
    // Every one of these is an error, never a panic.
    for e in ["''", "'", "0x", "0b", "1 = 2", "()", "#", "1 ? : 2"] {
        let (taken, d) = cond_diags(e);
        assert!(!taken && !d.is_empty(), "`{e}`");
    }
}

#[test]
fn if_expression_depth_is_limited() {
    let deep = format!("{}1{}", "(".repeat(300), ")".repeat(300));
    let (_, d) = cond_diags(&deep);
    assert_eq!(
        d.iter().map(|d| d.code).collect::<Vec<_>>(),
        vec![Code::TooDeep]
    );
    let (_, d) = cond_diags(&format!("{}1", "- ".repeat(300)));
    assert_eq!(d[0].code, Code::TooDeep);
    let (_, d) = cond_diags(&format!("{}1", "1 ? 1 : ".repeat(300)));
    assert_eq!(d[0].code, Code::TooDeep);
    // A long flat chain is not nesting.
    assert!(cond(&format!("1{}", " + 1".repeat(5000))));
    // Below the limit is fine.
    assert!(cond(&format!("{}1{}", "(".repeat(100), ")".repeat(100))));
}

#[test]
fn if_uses_macros() {
    assert!(cond("__OPENCL_C_VERSION__ >= CL_VERSION_1_2"));
    let out = run("#define W 8\n#define TWICE(x) (2 * (x))\n#if TWICE(W) == 16\nyes\n#endif");
    assert_eq!(out.text(), "yes");
}

#[test]
fn defined_forms() {
    let src = "#define A\n#if defined A && defined(A) && defined ( A ) && !defined B\nyes\n#endif";
    assert_eq!(expand(src), "yes");
    assert_eq!(
        expand("#define D defined(A)\n#define A\n#if D\nyes\n#endif"),
        "yes"
    );
    // The operand of `defined` is not expanded.
    assert_eq!(
        expand("#define A B\n#if defined(A) && !defined(B)\nyes\n#endif"),
        "yes"
    );
    assert_eq!(
        expand("#if defined(__LINE__) && defined __FILE__\nyes\n#endif"),
        "yes"
    );
    assert_eq!(
        expand("#define A\n#ifdef A\na\n#endif\n#ifndef A\nnot_a\n#endif\n#ifndef B\nb\n#endif"),
        "a b"
    );
    for bad in [
        "#if defined(A\n#endif",
        "#if defined\n#endif",
        "#if defined(\n#endif",
        "#ifdef\n#endif",
        "#ifdef 3\n#endif",
    ] {
        let out = run(&format!("#define A\n{bad}\nx"));
        assert_eq!(out.codes(), vec![Code::BadDirective], "{bad}");
        assert_eq!(out.text(), "x", "{bad}");
    }
}

#[test]
fn elif_chains() {
    let chain = |x: u32| {
        expand(&format!(
            "#define X {x}\n#if X == 1\none\n#elif X == 2\ntwo\n#elif X >= 2\nbig\n#else\nother\n#endif"
        ))
    };
    assert_eq!(chain(1), "one");
    assert_eq!(chain(2), "two");
    assert_eq!(chain(3), "big");
    assert_eq!(chain(0), "other");
    // Conditions after the taken group are not evaluated.
    assert_eq!(expand("#if 1\na\n#elif 1/0\nb\n#else\nc\n#endif"), "a");
    assert_eq!(
        expand("#define A\n#if 0\n#elifdef A\nyes\n#elifndef A\nno\n#endif"),
        "yes"
    );
    // Nested conditionals in skipped and taken groups.
    let src = "#if 0\n#if 1\nx\n#else\ny\n#endif\n#elif 1\n#if 0\nz\n#else\nw\n#endif\n#endif";
    assert_eq!(expand(src), "w");
}

#[test]
fn skipped_groups_may_hold_anything() {
    let src = "#if 0\ndon't @ \"unterminated\n#foo bar\n#define F(\n#include <nope.h>\n#error no\n#if 1/0\n#else\n#endif\n#endif\nok";
    assert_eq!(expand(src), "ok");
}

#[test]
fn unbalanced_conditionals() {
    let out = run("#else\n#endif\n#elif 1\nx");
    assert_eq!(out.codes(), vec![Code::UnbalancedConditional; 3]);
    assert_eq!(out.diags[0].message, "`#else` without `#if`");
    assert_eq!(out.diags[1].message, "`#endif` without `#if`");
    assert_eq!(out.diags[2].message, "`#elif` without `#if`");
    assert_eq!(out.text(), "x");

    let out = run("#if 0\n#else\na\n#elif 1\nb\n#endif");
    let d = out.only_diag(Code::UnbalancedConditional);
    assert_eq!(d.message, "`#elif` after `#else`");
    assert_eq!(out.at(d.related[0].span), "#else");
    assert_eq!(out.text(), "a");

    let out = run("#if 1\na\n#else\nb\n#else\nc\n#endif");
    assert_eq!(
        out.only_diag(Code::UnbalancedConditional).message,
        "`#else` after `#else`"
    );
    assert_eq!(out.text(), "a");

    let out = run("x\n#ifdef X\ny\n");
    let d = out.only_diag(Code::UnbalancedConditional);
    assert_eq!(d.message, "unterminated `#ifdef`");
    assert_eq!(out.at(d.span), "#ifdef");
    assert_eq!(out.text(), "x");
}

#[test]
fn unterminated_if_in_included_file_is_reported_there() {
    let out = run_with(
        &[("/src/a.h", "#if 1\nin_a\n")],
        "#include \"a.h\"\nafter",
        &PreprocessOptions::default(),
    );
    let d = out.only_diag(Code::UnbalancedConditional);
    assert_eq!(out.sources.get(d.span.file).name, "/src/a.h");
    assert_eq!(out.text(), "in_a after");
}

// ---- directive errors ----

#[test]
fn bad_directives() {
    let cases = [
        ("#foo", "invalid preprocessing directive `#foo`"),
        ("#define", "macro name missing after `#define`"),
        ("#define 3 x", "macro name must be an identifier, found `3`"),
        (
            "#define defined 1",
            "`defined` cannot be used as a macro name",
        ),
        ("#define F(a", "expected `)` in macro parameter list"),
        (
            "#define F(a b) x",
            "expected `,` or `)` in macro parameter list, found `b`",
        ),
        ("#define F(a, a) x", "duplicate macro parameter `a`"),
        ("#define F(1) x", "expected parameter name, found `1`"),
        ("#define F(..., a) x", "expected `)` after `...`, found `,`"),
        (
            "#define F(x) #y",
            "`#` is not followed by a macro parameter",
        ),
        (
            "#define F(x) ## x",
            "`##` cannot appear at either end of a macro expansion",
        ),
        (
            "#define F x ##",
            "`##` cannot appear at either end of a macro expansion",
        ),
        ("#undef", "macro name missing after `#undef`"),
        (
            "#include",
            "expected \"FILENAME\" or <FILENAME> after `#include`",
        ),
        (
            "#include <a.h",
            "expected `>` after the file name of `#include <...`",
        ),
        ("#include \"\"", "empty file name in `#include`"),
        (
            "#define F(__VA_ARGS__) x",
            "`__VA_ARGS__` can only appear in the expansion of a variadic macro",
        ),
    ];
    for (src, msg) in cases {
        let out = run(&format!("{src}\nafter"));
        let d = out.only_diag(Code::BadDirective);
        assert_eq!(d.message, msg, "{src}");
        assert_eq!(out.text(), "after", "{src}");
    }
    // A bad definition defines nothing.
    assert_eq!(run("#define F(x) #y\nF(1)").text(), "F ( 1 )");
}

#[test]
fn accepted_directives() {
    assert_eq!(
        expand("#\n# /* null */\n#line 10\n#line 5 \"x.cl\"\n# 33 \"file.cl\" 1\nok"),
        "ok"
    );
    // `#` not at the start of a line is an ordinary token.
    assert_eq!(expand("a # b"), "a # b");
    // An object-like macro's `#` is ordinary too.
    assert_eq!(expand("#define H # x\nH"), "# x");
}

#[test]
fn error_and_warning_directives() {
    let out =
        run("#error bad  thing: \"x\"\n#warning careful\n#if 0\n#error skipped\n#endif\n#error\n");
    assert_eq!(out.codes(), vec![Code::ErrorDirective; 3]);
    assert_eq!(out.diags[0].message, "bad  thing: \"x\"");
    assert_eq!(out.diags[0].severity, Severity::Error);
    assert_eq!(out.at(out.diags[0].span), "#error bad  thing: \"x\"");
    assert_eq!(out.diags[1].message, "careful");
    assert_eq!(out.diags[1].severity, Severity::Warning);
    assert_eq!(out.diags[2].message, "`#error` directive");
}

#[test]
fn unknown_characters_are_reported_and_dropped() {
    let out = run("a @ b");
    let d = out.only_diag(Code::InvalidToken);
    assert_eq!(d.message, "unexpected character `@`");
    assert_eq!(out.at(d.span), "@");
    assert_eq!(out.text(), "a b");
    let out = run("#define M a $ b\nM");
    assert_eq!(out.codes(), vec![Code::InvalidToken]);
    assert_eq!(out.text(), "a b");
}

// ---- macro call errors and redefinition ----

#[test]
fn wrong_argument_count() {
    let out = run("#define MAX(a, b) ((a) > (b) ? (a) : (b))\nx MAX(1) y");
    let d = out.only_diag(Code::MacroCall);
    assert_eq!(d.message, "macro `MAX` requires 2 arguments, but 1 given");
    assert_eq!(out.at(d.span), "MAX(1)");
    assert_eq!(out.at(d.related[0].span), "MAX");
    // The invocation is replaced by one placeholder the parser skips silently.
    assert_eq!(out.text(), "x MAX y");
    assert_eq!(out.pp.tokens[1].kind, TokenKind::Poisoned);

    let out = run("#define MAX(a, b) a\nMAX(1, 2, 3)");
    assert_eq!(
        out.only_diag(Code::MacroCall).message,
        "macro `MAX` requires 2 arguments, but 3 given"
    );
    let out = run("#define ONE(a) a\nONE(1, (2, 3))");
    assert_eq!(
        out.only_diag(Code::MacroCall).message,
        "macro `ONE` requires 1 argument, but 2 given"
    );
    let out = run("#define Z() z\nZ(1)");
    assert_eq!(
        out.only_diag(Code::MacroCall).message,
        "macro `Z` takes no arguments, but 1 given"
    );
    let out = run("#define V(a, b, ...) a\nV(1)");
    assert_eq!(
        out.only_diag(Code::MacroCall).message,
        "macro `V` requires at least 2 arguments, but 1 given"
    );
}

#[test]
fn unterminated_invocation() {
    let out = run("#define MAX(a, b) a\nx MAX(1, (2)\n y");
    let d = out.only_diag(Code::MacroCall);
    assert_eq!(d.message, "unterminated invocation of macro `MAX`");
    assert_eq!(out.at(d.span), "MAX");
    assert_eq!(out.text(), "x MAX");
    assert_eq!(out.pp.tokens[1].kind, TokenKind::Poisoned);
    // An invocation cannot run past the end of an included file.
    let out = run_with(
        &[("/src/a.h", "#define F(x) x\nF(1")],
        "#include \"a.h\"\n)after",
        &PreprocessOptions::default(),
    );
    assert_eq!(out.codes(), vec![Code::MacroCall]);
    assert_eq!(out.text(), "F ) after");
}

#[test]
fn macro_redefinition() {
    let out = run("#define A 1\n#define A 2\nA");
    let d = out.only_diag(Code::MacroRedefined);
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(d.message, "`A` macro redefined");
    assert_eq!(d.span, Span::new(out.main, 20, 21));
    assert_eq!(d.related[0].span, Span::new(out.main, 8, 9));
    assert_eq!(out.text(), "2");
    // Identical redefinitions are fine; whitespace differences are not.
    assert!(run("#define A 1 + 2\n#define A 1 /* c */ + 2")
        .diags
        .is_empty());
    assert_eq!(
        run("#define A 1+2\n#define A 1 + 2").codes(),
        vec![Code::MacroRedefined]
    );
    assert_eq!(
        run("#define F(x) x\n#define F(y) y").codes(),
        vec![Code::MacroRedefined]
    );
    // Redefining a predefined macro.
    let out = run("#define __LANES__ 2\n__LANES__");
    assert_eq!(out.only_diag(Code::MacroRedefined).related.len(), 0);
    assert_eq!(out.text(), "2");
    // After #undef there is nothing to redefine.
    assert!(run("#define A 1\n#undef A\n#define A 2").diags.is_empty());
    assert_eq!(expand("#define A 1\n#undef A\nA"), "A");
}

// ---- spans and expansions ----

#[test]
fn argument_tokens_keep_their_span_body_tokens_get_the_call_site() {
    let out = run("#define MAX(a, b) ((a) > (b) ? (a) : (b))\nint m = MAX(a, bb);");
    assert!(out.diags.is_empty());
    let call = out.find("MAX(a, bb)");
    let bb = out.tok("bb");
    assert_eq!(bb.span, out.find("bb"));
    assert_eq!(bb.spelling, bb.span);
    assert_eq!(bb.expansion, Some(ExpnId(0)));
    let gt = out.tok(">");
    assert_eq!(gt.span, call);
    assert_eq!(out.at(gt.spelling), ">");
    assert!(gt.spelling.end < call.start, "spelled in the #define");
    assert_eq!(gt.expansion, Some(ExpnId(0)));
    // Plain tokens.
    let int = out.tok("int");
    assert_eq!((int.expansion, int.span), (None, int.spelling));
    let e = &out.pp.expansions[0];
    assert_eq!(e.macro_name, "MAX");
    assert_eq!(e.call_site, call);
    assert_eq!(out.at(e.definition.unwrap()), "MAX");
    assert_eq!(e.parent, None);
}

#[test]
fn nested_expansions_and_parent_chain() {
    let src = "#define MUL(a, b) a * b\n#define SQ(x) MUL(x, x)\nr = SQ(q);";
    let out = run(src);
    assert!(out.diags.is_empty());
    assert_eq!(out.text(), "r = q * q ;");
    let ex = &out.pp.expansions;
    assert_eq!(ex.len(), 2);
    assert_eq!((ex[0].macro_name.as_str(), ex[0].parent), ("SQ", None));
    assert_eq!(
        (ex[1].macro_name.as_str(), ex[1].parent),
        ("MUL", Some(ExpnId(0)))
    );
    assert_eq!(ex[0].call_site, out.find("SQ(q)"));
    // MUL's invocation was written in SQ's body.
    assert_eq!(out.at(ex[1].call_site), "MUL(x, x)");
    let star = out.tok("*");
    assert_eq!(star.expansion, Some(ExpnId(1)));
    assert_eq!(
        star.span,
        out.find("SQ(q)"),
        "body tokens stand at the outermost call site"
    );
    let qs: Vec<&Token> = out.toks().iter().filter(|t| t.text == "q").collect();
    for q in qs {
        assert_eq!(
            q.span,
            out.find_first("q)", 1),
            "argument tokens keep their span"
        );
        assert_eq!(q.expansion, Some(ExpnId(0)));
    }
}

#[test]
fn invocations_inside_arguments_have_the_argument_owner_as_parent() {
    let out = run("#define ID(x) x\n#define ONE 1\nID(ONE) ID(ID(z))");
    assert!(out.diags.is_empty());
    let ex = &out.pp.expansions;
    let names: Vec<&str> = ex.iter().map(|e| e.macro_name.as_str()).collect();
    assert_eq!(names, vec!["ID", "ONE", "ID", "ID"]);
    assert_eq!(ex[1].parent, Some(ExpnId(0)));
    assert_eq!(ex[3].parent, Some(ExpnId(2)));
    let one = out.tok("1");
    assert_eq!(one.expansion, Some(ExpnId(1)));
    // `ONE` stood in the file, so its expansion stands there.
    assert_eq!(one.span, out.find_first("ONE)", 3));
    assert_eq!(ex[3].call_site, out.find("ID(z)"));
    let z = out.tok("z");
    assert_eq!(z.span, out.find("z"));
    assert_eq!(z.expansion, Some(ExpnId(3)));
}

#[test]
fn predefined_macros_have_no_definition_but_valid_spans() {
    let out = run("x = M_PI_F;");
    let e = &out.pp.expansions[0];
    assert_eq!(e.definition, None);
    let v = out.tok("3.14159265358979323846264338327950288f");
    assert_eq!(v.span, out.find("M_PI_F"));
    assert_eq!(out.sources.get(v.spelling.file).name, "<built-in>");
    assert_eq!(out.at(v.spelling), "3.14159265358979323846264338327950288f");
}

#[test]
fn space_and_line_flags() {
    let out = run("#define N 42\n#define E\nint a =N;\n  N\nE int\nx E y");
    assert!(out.diags.is_empty());
    let t = out.toks();
    assert_eq!(out.text(), "int a = 42 ; 42 int x y");
    assert!(
        !t[3].leading_space && !t[3].line_start,
        "42 after `=` inherits N's flags"
    );
    assert!(t[5].line_start && t[5].leading_space);
    assert!(
        t[6].line_start,
        "`int` after an empty macro at line start starts the line"
    );
    assert!(t[8].leading_space && !t[8].line_start);
    let out = run("#define T(x) a  b x\nT( c)");
    let t = out.toks();
    assert!(!t[0].leading_space && t[0].line_start);
    assert!(t[1].leading_space && !t[1].line_start);
    assert!(
        t[2].leading_space,
        "an argument takes the spacing of its parameter"
    );
}

#[test]
fn line_and_file() {
    assert_eq!(expand("a __LINE__\n\nb __LINE__"), "a 1 b 3");
    assert_eq!(expand("#define L __LINE__\n\nL"), "3");
    // A multi-line invocation: the line where the invocation starts.
    assert_eq!(expand("#define L2(x) __LINE__ x\nL2(\n1)"), "2 1");
    let out = run("__FILE__");
    assert_eq!(out.text(), "\"main.cl\"");
    assert_eq!(out.toks()[0].kind, TokenKind::StringLit);
    let out = run_with(
        &[("/src/a.h", "__FILE__ __LINE__")],
        "\n#include \"a.h\"",
        &PreprocessOptions::default(),
    );
    assert_eq!(out.text(), "\"/src/a.h\" 1");
}

#[test]
fn eof_token() {
    let src = "int x;\n";
    let out = run(src);
    let eof = out.pp.tokens.last().unwrap();
    assert_eq!(eof.text, "");
    assert_eq!(
        eof.span,
        Span::new(out.main, src.len() as u32, src.len() as u32)
    );
    let empty = run("");
    assert_eq!(empty.pp.tokens.len(), 1);
}

// ---- #include ----

#[test]
fn include_relative_to_the_including_file() {
    let files = [
        ("/src/inc/a.h", "int a;\n#include \"b.h\"\n"),
        ("/src/inc/b.h", "int b;"),
    ];
    let out = run_with(
        &files,
        "#include \"inc/a.h\"\nx",
        &PreprocessOptions::default(),
    );
    assert!(out.diags.is_empty(), "{:#?}", out.diags);
    assert_eq!(out.text(), "int a ; int b ; x");
    let a = out.sources.find_path(Path::new("/src/inc/a.h")).unwrap();
    let b = out.sources.find_path(Path::new("/src/inc/b.h")).unwrap();
    assert_eq!(
        out.pp.includes.iter().map(|i| i.1).collect::<Vec<_>>(),
        vec![a, b]
    );
    assert_eq!(out.at(out.pp.includes[0].0), "#include \"inc/a.h\"");
    assert_eq!(out.tok("a").span.file, a);
    assert_eq!(out.tok("b").span.file, b);
    assert_eq!(out.tok("x").span.file, out.main);
}

#[test]
fn include_through_dash_i() {
    let opts = PreprocessOptions {
        include_dirs: vec!["/usr/include/lanes".into(), "/opt/inc".into()],
        ..Default::default()
    };
    let files = [
        ("/opt/inc/b.h", "int b;"),
        ("/src/c.h", "int c;"),
        ("/usr/include/lanes/c.h", "int lib_c;"),
    ];
    let out = run_with(&files, "#include <b.h>\n#include \"b.h\"\n#include \"c.h\"\n#include <c.h>\n#include \"./sub/../c.h\"", &opts);
    assert!(out.diags.is_empty(), "{:#?}", out.diags);
    assert_eq!(out.text(), "int b ; int b ; int c ; int lib_c ; int c ;");
    // Each file is loaded once.
    assert_eq!(
        out.sources
            .files()
            .filter(|(_, f)| f.name == "/src/c.h")
            .count(),
        1
    );
}

#[test]
fn include_not_found() {
    let opts = PreprocessOptions {
        include_dirs: vec!["/inc".into()],
        ..Default::default()
    };
    let out = run_with(
        &[("/src/c.h", "int c;")],
        "#include <c.h>\n#include \"nope.h\"\nx",
        &opts,
    );
    assert_eq!(out.codes(), vec![Code::IncludeNotFound; 2]);
    assert_eq!(out.diags[0].message, "file `c.h` not found");
    assert_eq!(out.diags[0].notes, vec!["searched: `/inc`".to_string()]);
    assert_eq!(out.at(out.diags[0].span), "<c.h>");
    assert_eq!(
        out.diags[1].notes,
        vec!["searched: `/src`, `/inc`".to_string()]
    );
    assert_eq!(out.at(out.diags[1].span), "\"nope.h\"");
    assert_eq!(out.text(), "x");
    let out = run("#include <x.h>");
    assert_eq!(
        out.diags[0].notes,
        vec!["no directory was searched (add one with `-I`)".to_string()]
    );
}

#[test]
fn include_name_from_a_macro() {
    let opts = PreprocessOptions {
        include_dirs: vec!["/inc".into()],
        ..Default::default()
    };
    let files = [("/src/a.h", "A"), ("/inc/b.h", "B"), ("/src/vers2.h", "V")];
    let src = "#define HDR \"a.h\"\n#define SYS <b.h>\n#define str(s) # s\n#define xstr(s) str(s)\n#define INCFILE(n) vers ## n\n#include HDR\n#include SYS\n#include xstr(INCFILE(2).h)";
    let out = run_with(&files, src, &opts);
    assert!(out.diags.is_empty(), "{:#?}", out.diags);
    assert_eq!(out.text(), "A B V");
}

#[test]
fn pragma_once_and_include_guards() {
    let files = [
        ("/src/once.h", "#pragma once\nint once;"),
        (
            "/src/guard.h",
            "#ifndef GUARD_H\n#define GUARD_H\nint guarded;\n#endif\n",
        ),
    ];
    let src =
        "#include \"once.h\"\n#include \"guard.h\"\n#include \"once.h\"\n#include \"guard.h\"\nend";
    let out = run_with(&files, src, &PreprocessOptions::default());
    assert!(out.diags.is_empty(), "{:#?}", out.diags);
    assert_eq!(out.text(), "int once ; int guarded ; end");
    assert_eq!(out.pp.includes.len(), 4);
}

#[test]
fn self_inclusion_is_too_deep_not_a_crash() {
    let out = run("x\n#include \"main.cl\"\n#include \"main.cl\"\n");
    assert_eq!(out.codes(), vec![Code::TooDeep]);
    assert!(out.diags[0].message.contains("nested too deeply"));
    assert!(out.toks().len() <= 202);
    // Two headers including each other.
    let files = [
        ("/src/a.h", "#include \"b.h\"\na"),
        ("/src/b.h", "#include \"a.h\"\nb"),
    ];
    let out = run_with(&files, "#include \"a.h\"", &PreprocessOptions::default());
    assert_eq!(out.codes(), vec![Code::TooDeep]);
}

// ---- pragmas ----

#[test]
fn pragmas_are_collected() {
    let src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#pragma unroll 4\n#pragma lanes ignore(L0203)\n#pragma foo bar\n#pragma\nx";
    let out = run(src);
    let d = out.only_diag(Code::UnknownPragma);
    assert_eq!(d.message, "unknown pragma `foo` ignored");
    assert_eq!(d.severity, Severity::Hint);
    assert_eq!(out.at(d.span), "foo");
    let texts: Vec<&str> = out.pp.pragmas.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(
        texts,
        vec![
            "OPENCL EXTENSION cl_khr_fp64 : enable",
            "unroll 4",
            "lanes ignore ( L0203 )",
            "foo bar"
        ]
    );
    assert_eq!(out.at(out.pp.pragmas[1].span), "#pragma unroll 4");
    assert_eq!(out.text(), "x");
}

#[test]
fn pragma_operator() {
    let out = run("#define UNROLL(n) _Pragma(\"unroll n\") for\na _Pragma(\"OPENCL EXTENSION x : \\\"enable\\\"\") b\nUNROLL(2)");
    assert!(out.diags.is_empty(), "{:#?}", out.diags);
    assert_eq!(out.text(), "a b for");
    let texts: Vec<&str> = out.pp.pragmas.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(texts, vec!["OPENCL EXTENSION x : \"enable\"", "unroll n"]);
    assert_eq!(
        out.pp.pragmas[0].span,
        out.find("_Pragma(\"OPENCL EXTENSION x : \\\"enable\\\"\")")
    );
    let out = run("_Pragma(1) x");
    assert_eq!(
        out.only_diag(Code::BadDirective).message,
        "`_Pragma` takes a parenthesized string literal"
    );
    assert_eq!(out.text(), "1 ) x");
    let out = run_with(
        &[("/src/o.h", "_Pragma(\"once\") o")],
        "#include \"o.h\"\n#include \"o.h\"",
        &Default::default(),
    );
    assert_eq!(out.text(), "o");
}

// ---- options and predefined macros ----

#[test]
fn command_line_defines_and_undefines() {
    let opts = PreprocessOptions {
        defines: vec![
            ("FOO".into(), None),
            ("BAR".into(), Some("2+3".into())),
            ("F(x)".into(), Some("[x]".into())),
            ("EVIL".into(), Some("1\n#define INJECTED 1".into())),
        ],
        undefines: vec!["CL_VERSION_1_0".into(), "FOO_NOT_DEFINED".into()],
        ..Default::default()
    };
    let out = run_with(
        &[],
        "FOO BAR F(1) CL_VERSION_1_0 CL_VERSION_1_1\n#ifdef INJECTED\ninjected\n#endif",
        &opts,
    );
    // `#define EVIL 1 #define INJECTED 1` is one line: `#` in an object-like body is a token.
    assert!(out.diags.is_empty(), "{:#?}", out.diags);
    assert_eq!(out.text(), "1 2 + 3 [ 1 ] CL_VERSION_1_0 110");
    let out = run_with(
        &[],
        "__LANES_WIDTH__",
        &PreprocessOptions {
            width: 16,
            ..Default::default()
        },
    );
    assert_eq!(out.text(), "16");
    assert_eq!(expand("__LANES_WIDTH__"), "8");
}

#[test]
fn predefined_macros() {
    assert_eq!(
        expand(
            "__OPENCL_VERSION__ __OPENCL_C_VERSION__ __LANES__ __ENDIAN_LITTLE__ CL_VERSION_2_0"
        ),
        "120 120 1 1 200"
    );
    assert_eq!(expand("#ifdef __IMAGE_SUPPORT__\nimages\n#endif\n#if cl_khr_fp64 && cl_khr_subgroups\nsub\n#endif"), "sub");
    assert_eq!(
        expand("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"),
        "barrier ( 0x01 | 0x02 ) ;"
    );
    assert_eq!(expand("INFINITY NAN HUGE_VALF HUGE_VAL"), "( __builtin_inff ( ) ) ( __builtin_nanf ( ) ) ( __builtin_huge_valf ( ) ) ( __builtin_huge_val ( ) )");
    assert_eq!(
        squash(&expand("INT_MIN FP_ILOGB0 CHAR_MIN ULONG_MAX")),
        "(-2147483647-1)(-2147483647-1)(-128)0xffffffffffffffffUL"
    );
    assert_eq!(
        expand("__kernel_exec(64, float4) void k() {}"),
        "__kernel __attribute__ ( ( work_group_size_hint ( 64 , 1 , 1 ) ) ) __attribute__ ( ( vec_type_hint ( float4 ) ) ) void k ( ) { }"
    );
    assert_eq!(
        expand("kernel_exec(1, int)"),
        expand("__kernel_exec(1, int)")
    );
    assert!(cond("INT_MAX == 2147483647 && INT_MIN < 0 && UINT_MAX == 4294967295 && LONG_MIN < 0 && ULONG_MAX > 0"));
    assert!(cond(
        "FLT_MAX_10_EXP == 38 && DBL_MIN_EXP == -1021 && CHAR_BIT == 8 && SHRT_MIN == -32768"
    ));
    for name in [
        "M_E_F",
        "M_SQRT1_2_F",
        "M_E",
        "M_SQRT1_2",
        "FLT_EPSILON",
        "DBL_MAX",
        "MAXFLOAT",
        "FP_ILOGBNAN",
    ] {
        let out = run(name);
        assert!(out.diags.is_empty());
        assert_ne!(out.text(), name, "{name} is predefined");
    }
}

// ---- limits ----

#[test]
fn runaway_expansion_is_capped() {
    let mut src = String::from("#define A0 x x\n");
    for i in 1..40 {
        src.push_str(&format!("#define A{i} A{p} A{p}\n", p = i - 1));
    }
    src.push_str("A39\n");
    let out = run(&src);
    assert_eq!(out.codes(), vec![Code::TooDeep]);
    assert!(out.pp.tokens.len() <= MAX_OUTPUT_TOKENS + 1);
    // Empty expansions cost too, so this ends.
    let mut src = String::from("#define E0\n");
    for i in 1..40 {
        src.push_str(&format!("#define E{i} E{p} E{p}\n", p = i - 1));
    }
    src.push_str("E39 end\n");
    let out = run(&src);
    assert_eq!(out.codes(), vec![Code::TooDeep]);
}

#[test]
fn argument_expansion_depth_is_capped() {
    let ok = format!("#define ID(x) x\n{}1{}", "ID(".repeat(199), ")".repeat(199));
    assert_eq!(expand(&ok), "1");
    let deep = format!("#define ID(x) x\n{}1{}", "ID(".repeat(300), ")".repeat(300));
    assert_eq!(run(&deep).codes(), vec![Code::TooDeep]);
    // Exponential growth through arguments.
    let src = "#define F(x) x x x x x x x x x x\nF(F(F(F(F(F(F(F(F(1)))))))))";
    let out = run(src);
    assert_eq!(out.codes(), vec![Code::TooDeep]);
}

#[test]
fn expansion_nesting_depth_is_capped() {
    // Each body ends after the inner macro, so no expansion finishes early.
    let chain = |n: usize| {
        let mut src = String::from("#define M0 x\n");
        for i in 1..n {
            src.push_str(&format!("#define M{i} M{} y\n", i - 1));
        }
        src.push_str(&format!("M{}\n", n - 1));
        run(&src)
    };
    let out = chain(900);
    assert!(out.diags.is_empty());
    assert_eq!(out.toks().len(), 900);
    let out = chain(1100);
    assert_eq!(out.codes(), vec![Code::TooDeep]);
    assert!(out.diags[0].message.contains("nested too deeply"));
}

#[test]
fn large_file_is_fast() {
    let mut src = String::from(
        "#define IDX(i, n) ((i) * (n))\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#define N 64\n",
    );
    for k in 0..200 {
        src.push_str(&format!(
            "__kernel void k{k}(__global float *a, __global const float *b) {{\n"
        ));
        src.push_str("  int i = get_global_id(0);\n");
        for _ in 0..45 {
            src.push_str(
                "  a[IDX(i, N)] = MAX(b[i], a[i]) + b[IDX(i + 1, N)] * 2.0f; // comment\n",
            );
        }
        src.push_str("#if N > 32\n  a[i] += 1.0f;\n#endif\n}\n");
    }
    assert!(src.lines().count() >= 10_000);
    let start = std::time::Instant::now();
    let out = run(&src);
    let took = start.elapsed();
    eprintln!(
        "{} lines, {} tokens: {took:?}",
        src.lines().count(),
        out.pp.tokens.len()
    );
    assert!(out.diags.is_empty());
    assert!(out.pp.tokens.len() > 200_000);
    // Debug builds of tests are slower than release; this only catches
    // quadratic behaviour.
    assert!(took.as_millis() < 2000, "took {took:?}");
}

// ---- robustness ----

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "#define ",
        "#undef ",
        "#if ",
        "#ifdef ",
        "#elif ",
        "#else",
        "#endif",
        "#include ",
        "#pragma ",
        "#error ",
        "\n",
        " ",
        "(",
        ")",
        ",",
        "#",
        "##",
        "...",
        "__VA_ARGS__",
        "defined",
        "f",
        "g",
        "x",
        "f(x)",
        "g(a, b)",
        "1",
        "0",
        "/",
        "'",
        "\"",
        "a ## b",
        "#x",
        "_Pragma(\"once\")",
        "__LINE__",
        "<",
        ">",
        "\"main.cl\"",
        "\\\n",
        "/*",
        "*/",
        "@",
        "?",
        ":",
        "-",
        "&&",
        "||",
    ];

    /// The invariants of any output: one Eof at the end, no `Unknown`
    /// token, valid spans, and expansion ids that exist with acyclic parents.
    fn check(out: &Out) -> Result<(), TestCaseError> {
        prop_assert_eq!(out.pp.tokens.last().map(|t| t.kind), Some(TokenKind::Eof));
        for t in &out.pp.tokens {
            prop_assert!(t.kind != TokenKind::Unknown);
            for span in [t.span, t.spelling] {
                let f = out.sources.get(span.file);
                prop_assert!(span.start <= span.end && span.end as usize <= f.text.len());
            }
            if let Some(e) = t.expansion {
                prop_assert!((e.0 as usize) < out.pp.expansions.len());
            }
        }
        for (i, e) in out.pp.expansions.iter().enumerate() {
            // Parents come first, so every chain ends.
            prop_assert!(e.parent.is_none_or(|p| (p.0 as usize) < i));
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        #[test]
        fn never_panics_on_directive_soup(parts in proptest::collection::vec(0..PIECES.len(), 0..80)) {
            let src: String = parts.iter().map(|&i| PIECES[i]).collect();
            check(&run(&src))?;
        }

        #[test]
        fn never_panics_on_any_text(src in "[#a-fx0-9 ()\n,\"'\\\\/*@<>.&|!?:_-]{0,200}") {
            check(&run(&format!("#define f(x, ...) #x a##x __VA_ARGS__ f\n#define a(b) b(b)\n{src}")))?;
        }
    }
}

#[test]
fn latin1_header_is_read_with_one_hint_at_its_first_byte() {
    // "/* (c) 2009 Advanced Micro Devices, Inc.\xA9 D\xE9j\xE0 */"
    let mut header = b"/* Copyright \xA9 2009 D\xE9j\xE0 */\n#define SCALE 2\n".to_vec();
    header.extend_from_slice("/* \u{e9} is UTF-8 here */\n".as_bytes());
    let fs = MemFs(HashMap::from([(PathBuf::from("/src/h.h"), header)]));
    let mut sources = SourceMap::new();
    let main = sources.add(SourceFile::new(
        "main.cl",
        Some(PathBuf::from("/src/main.cl")),
        "#include \"h.h\"\n#include \"h.h\"\nint x = SCALE;\n",
    ));
    let mut diags = Vec::new();
    let pp = preprocess(
        &mut sources,
        main,
        &PreprocessOptions::default(),
        &fs,
        &mut diags,
    );
    let codes: Vec<Code> = diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, vec![Code::NotUtf8], "{diags:#?}");
    let d = &diags[0];
    let header = sources.get(d.span.file);
    assert_eq!(header.name, "/src/h.h");
    assert_eq!(sources.text(d.span), "\u{a9}");
    assert_eq!(header.line_col(d.span.start), (1, 14));
    assert!(header
        .text
        .starts_with("/* Copyright \u{a9} 2009 D\u{e9}j\u{e0} */"));
    // The macro defined after the Latin-1 line expands as usual.
    let text: Vec<&str> = pp.tokens.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(text, vec!["int", "x", "=", "2", ";", ""]);
}
