//! Tests of the type checker on OpenCL C snippets (lexed and parsed by the
//! real lexer and parser). Each error test asserts the code and the line and
//! column of the primary span (given as the text the span starts at).

use crate::diag::{Code, Diagnostic, Severity};
use crate::hir::{
    self, BinaryOp, ConstInit, ConstValue, ConvertKind, Expr, ExprKind, Init, StmtKind,
};
use crate::lexer::lex;
use crate::parser::parse;
use crate::source::{FileId, SourceFile};
use crate::types::{AddressSpace, Scalar, StructId, Type};

use Scalar::*;

/// Lexes, parses and checks `src`. Parse errors fail the test (the inputs
/// here are meant to be syntactically valid).
fn run(src: &str) -> (hir::Unit, Vec<Diagnostic>) {
    let mut d = Vec::new();
    let toks = lex(FileId(0), src, &mut d);
    let unit = parse(&toks, &mut d);
    assert!(d.is_empty(), "parse errors in test input:\n{src}\n{d:#?}");
    let h = super::check(&unit, &mut d);
    (h, d)
}

fn pos(src: &str, offset: u32) -> (u32, u32) {
    SourceFile::new("t.cl", None, src).line_col(offset)
}

/// Line and column of the first occurrence of `needle`.
fn at(src: &str, needle: &str) -> (u32, u32) {
    let off = src
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` not in source"));
    pos(src, off as u32)
}

/// Asserts that checking reports nothing and returns the HIR.
#[track_caller]
fn ok(src: &str) -> hir::Unit {
    let (h, d) = run(src);
    assert!(d.is_empty(), "unexpected diagnostics for\n{src}\n{d:#?}");
    h
}

/// Asserts exactly one diagnostic, with `code`, whose primary span starts
/// where `needle` first occurs. Returns it for message checks.
#[track_caller]
fn one(src: &str, code: Code, needle: &str) -> Diagnostic {
    let (_, d) = run(src);
    assert_eq!(
        d.len(),
        1,
        "expected exactly one diagnostic for\n{src}\n{d:#?}"
    );
    let got = pos(src, d[0].span.start);
    assert_eq!(
        (d[0].code, got),
        (code, at(src, needle)),
        "{src}\n{:#?}",
        d[0]
    );
    d.into_iter().next().unwrap()
}

/// The expression statement `expr;` at the end of `void f(params) { decls expr; }`.
#[track_caller]
fn typed(params: &str, decls: &str, expr: &str) -> Expr {
    let src = format!("void f({params}) {{ {decls} {expr}; }}");
    let h = ok(&src);
    let body = h.functions[0].body.as_ref().unwrap();
    match &body.stmts.last().unwrap().kind {
        StmtKind::Expr(e) => e.clone(),
        other => panic!("not an expression statement: {other:?}"),
    }
}

fn v(s: Scalar, n: u8) -> Type {
    Type::Vector(s, n)
}

fn conv(e: &Expr) -> Option<(ConvertKind, &Expr)> {
    match &e.kind {
        ExprKind::Convert { kind, expr } => Some((*kind, expr)),
        _ => None,
    }
}

fn binary(e: &Expr) -> (BinaryOp, &Expr, &Expr) {
    match &e.kind {
        ExprKind::Binary { op, lhs, rhs } => (*op, lhs, rhs),
        other => panic!("not a binary expression: {other:?}"),
    }
}

// --- conversions and operator typing --------------------------------------------

#[test]
fn usual_arithmetic_conversions() {
    let e = typed("uint u, int i", "", "u + i");
    assert_eq!(e.ty, Type::UINT);
    let (_, l, r) = binary(&e);
    assert!(matches!(l.kind, ExprKind::Local(_)));
    assert_eq!(conv(r).map(|c| c.0), Some(ConvertKind::IntToInt));
    assert_eq!(r.ty, Type::UINT);

    assert_eq!(typed("char a, char b", "", "a + b").ty, Type::INT);
    assert_eq!(typed("long a, uint b", "", "a + b").ty, Type::LONG);
    assert_eq!(typed("ulong a, long b", "", "a * b").ty, Type::ULONG);
    assert_eq!(typed("int a, float b", "", "a + b").ty, Type::FLOAT);
    assert_eq!(typed("float a, double b", "", "a - b").ty, Type::DOUBLE);
    assert_eq!(typed("bool a, bool b", "", "a + b").ty, Type::INT);
    assert_eq!(typed("float a, float b", "", "a < b").ty, Type::INT);
    assert_eq!(typed("uchar a", "", "~a").ty, Type::INT);
    assert_eq!(typed("short a", "", "-a").ty, Type::INT);
    assert_eq!(typed("float a", "", "!a").ty, Type::INT);
}

#[test]
fn vector_scalar_operands_splat() {
    let e = typed("float4 v", "", "v * 2");
    assert_eq!(e.ty, v(Float, 4));
    let (_, _, r) = binary(&e);
    let (k, inner) = conv(r).unwrap();
    assert_eq!(k, ConvertKind::Splat);
    assert_eq!(r.ty, v(Float, 4));
    let (k2, lit) = conv(inner).unwrap();
    assert_eq!((k2, &inner.ty), (ConvertKind::IntToFloat, &Type::FLOAT));
    assert!(matches!(lit.kind, ExprKind::Int(2)));

    assert_eq!(typed("uint4 a", "", "a + 1").ty, v(UInt, 4));
    assert_eq!(typed("float4 a, int i", "", "i * a").ty, v(Float, 4));
    assert_eq!(typed("char4 c, char a", "", "c + a").ty, v(Char, 4));
}

#[test]
fn vector_comparisons_give_signed_integer_vectors() {
    let h = ok("void f(float4 v) { int4 m = v < v; }");
    let body = h.functions[0].body.as_ref().unwrap();
    let StmtKind::Decl {
        init: Some(Init::Expr(e)),
        ..
    } = &body.stmts[0].kind
    else {
        panic!()
    };
    assert_eq!(e.ty, v(Int, 4));
    assert_eq!(typed("double4 a", "", "a == a").ty, v(Long, 4));
    assert_eq!(typed("uchar4 a", "", "a < a").ty, v(Char, 4));
    assert_eq!(typed("float4 a", "", "!a").ty, v(Int, 4));
    assert_eq!(typed("float4 a, float4 b", "", "a && b").ty, v(Int, 4));
    assert_eq!(typed("int4 a, int4 b", "", "a || b").ty, v(Int, 4));
}

#[test]
fn vector_rank_rules_follow_clang() {
    let src = "void f(float4 v) { float4 r = v * 2.0; }";
    let d = one(src, Code::TypeMismatch, "v * 2.0");
    assert!(d.message.contains("`double`"), "{}", d.message);
    one(
        "void f(int4 v) { int4 r = v + 1L; }",
        Code::TypeMismatch,
        "v + 1L",
    );
    one(
        "void f(char4 c) { char4 r = c + 1; }",
        Code::TypeMismatch,
        "c + 1",
    );
    one(
        "void f(int4 v, uint u) { int4 r = v + u; }",
        Code::TypeMismatch,
        "v + u",
    );
    one(
        "void f(int4 i) { int4 r = i * 2.5f; }",
        Code::TypeMismatch,
        "i * 2.5f",
    );
    let d = one(
        "void f(float4 a, int4 b) { a + b; }",
        Code::TypeMismatch,
        "a + b",
    );
    assert_eq!(
        d.message,
        "cannot convert between vector types `float4` and `int4`"
    );
}

#[test]
fn operator_operand_restrictions() {
    one(
        "void f(float4 a) { float4 r = a % a; }",
        Code::TypeMismatch,
        "a % a",
    );
    one(
        "void f(float a) { float r = ~a; }",
        Code::TypeMismatch,
        "~a",
    );
    one(
        "void f(float a, float b) { a & b; }",
        Code::TypeMismatch,
        "a & b",
    );
    one("void f(float4 a) { a++; }", Code::TypeMismatch, "a++");
    ok("void f(int4 a, float x, global int *p) { a++; --a; x++; p++; }");
}

#[test]
fn shifts() {
    let e = typed("uint4 a, int s", "", "a << s");
    assert_eq!(e.ty, v(UInt, 4));
    let (_, _, r) = binary(&e);
    assert_eq!(conv(r).map(|c| c.0), Some(ConvertKind::Splat));
    let e = typed("char c, long n", "", "c << n");
    assert_eq!(e.ty, Type::INT);
    let (_, _, r) = binary(&e);
    assert_eq!(r.ty, Type::INT);
    assert_eq!(typed("int4 a, uint4 b", "", "a >> b").ty, v(Int, 4));
    one(
        "void f(int4 a, int s) { int4 r = s << a; }",
        Code::TypeMismatch,
        "s << a",
    );
    one("void f(float a) { a << 1; }", Code::TypeMismatch, "a << 1");
}

#[test]
fn pointer_arithmetic_and_comparisons() {
    let e = typed("global float *p, int i", "", "p + i");
    assert!(matches!(e.kind, ExprKind::PtrAdd { negate: false, .. }));
    assert_eq!(
        e.ty,
        Type::pointer(Type::FLOAT, crate::types::AddressSpace::Global, false)
    );
    let e = typed("global float *p, global float *q", "", "p - q");
    assert!(matches!(e.kind, ExprKind::PtrDiff { .. }));
    assert_eq!(e.ty, Type::LONG);
    assert_eq!(
        typed("global int *a, global int *b", "", "a < b").ty,
        Type::INT
    );
    assert_eq!(typed("global int *a", "", "a == 0").ty, Type::INT);
    one(
        "void f(global int *a, global float *b) { long e = a < b; }",
        Code::TypeMismatch,
        "a < b",
    );
    one(
        "void f(global int *a, global float *b) { a - b; }",
        Code::TypeMismatch,
        "a - b",
    );
    one(
        "void f(global int *a, global int *b) { a + b; }",
        Code::TypeMismatch,
        "a + b",
    );
    one(
        "void f(global int *a, int *b) { a == b; }",
        Code::AddressSpace,
        "a == b",
    );
    // distinct pointer types compare equal with a warning, as in clang
    let (_, d) = run("void f(global int *a, global float *b) { a == b; }");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].severity, Severity::Warning);
}

#[test]
fn logical_operators_short_circuit_on_scalars() {
    let e = typed("int a, global int *p", "", "a && p");
    assert_eq!(e.ty, Type::INT);
    let ExprKind::Logical { lhs, rhs, .. } = &e.kind else {
        panic!("{e:?}")
    };
    assert_eq!((lhs.ty.clone(), rhs.ty.clone()), (Type::BOOL, Type::BOOL));
    one(
        "void f(int a) { struct S { int x; } s; a || s; }",
        Code::TypeMismatch,
        "s; }",
    );
}

#[test]
fn conditional_operator() {
    let e = typed("int c, float4 b", "", "c ? b : 2.0f");
    assert_eq!(e.ty, v(Float, 4));
    let ExprKind::Conditional { cond, els, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(cond.ty, Type::BOOL);
    assert_eq!(conv(els).map(|c| c.0), Some(ConvertKind::Splat));
    let e = typed("int4 m, float4 a", "", "m ? a : 1.0f");
    assert!(matches!(e.kind, ExprKind::Select { .. }));
    assert_eq!(e.ty, v(Float, 4));
    assert_eq!(typed("int4 m", "", "m ? 1 : 2").ty, v(Int, 4));
    assert_eq!(
        typed("int c, global int *p", "", "c ? p : 0").ty,
        Type::pointer(Type::INT, crate::types::AddressSpace::Global, false)
    );
    one(
        "void f(short4 m, float4 a) { float4 r = m ? a : a; }",
        Code::TypeMismatch,
        "m ? a : a",
    );
    one(
        "void f(float4 m, float4 a) { float4 r = m ? a : a; }",
        Code::TypeMismatch,
        "m ?",
    );
    one(
        "void f(int c, float4 a, int4 b) { c ? a : b; }",
        Code::TypeMismatch,
        "c ? a",
    );
}

#[test]
fn integer_literal_types() {
    let lit = |s: &str| typed("", "", s).ty;
    assert_eq!(lit("2147483647"), Type::INT);
    assert_eq!(lit("2147483648"), Type::LONG);
    assert_eq!(lit("0x7fffffff"), Type::INT);
    assert_eq!(lit("0x80000000"), Type::UINT);
    assert_eq!(lit("0x100000000"), Type::LONG);
    assert_eq!(lit("0xFFFFFFFFFFFFFFFF"), Type::ULONG);
    assert_eq!(lit("1u"), Type::UINT);
    assert_eq!(lit("5000000000u"), Type::ULONG);
    assert_eq!(lit("1l"), Type::LONG);
    assert_eq!(lit("1ul"), Type::ULONG);
    assert_eq!(lit("'a'"), Type::INT);
    assert_eq!(lit("1.0"), Type::DOUBLE);
    assert_eq!(lit("1.0f"), Type::FLOAT);
}

#[test]
fn sizeof_alignof_vec_step() {
    let int_of = |e: &Expr| match e.kind {
        ExprKind::Int(n) => n,
        _ => panic!("{e:?}"),
    };
    let e = typed("", "", "sizeof(float3)");
    assert_eq!((int_of(&e), e.ty.clone()), (16, Type::SIZE_T));
    assert_eq!(int_of(&typed("", "", "vec_step(float3)")), 4);
    assert_eq!(int_of(&typed("float8 x", "", "vec_step(x)")), 8);
    assert_eq!(int_of(&typed("", "", "_Alignof(double)")), 8);
    assert_eq!(int_of(&typed("", "int a[5];", "sizeof(a)")), 20);
    assert_eq!(int_of(&typed("", "", "sizeof(global int *)")), 8);
    one("void f() { sizeof(void); }", Code::TypeMismatch, "sizeof");
}

#[test]
fn casts() {
    let e = typed("int x", "", "(float4)(x)");
    assert_eq!(e.ty, v(Float, 4));
    let (k, inner) = conv(&e).unwrap();
    assert_eq!((k, inner.ty.clone()), (ConvertKind::Splat, Type::FLOAT));
    assert_eq!(
        conv(&typed("int i", "", "(float)i")).map(|c| c.0),
        Some(ConvertKind::IntToFloat)
    );
    assert_eq!(
        conv(&typed("float f", "", "(void)f")).map(|c| c.0),
        Some(ConvertKind::ToVoid)
    );
    assert_eq!(
        conv(&typed("global char *p", "", "(global int *)p")).map(|c| c.0),
        Some(ConvertKind::PointerCast)
    );
    assert_eq!(
        conv(&typed("global char *p", "", "(ulong)p")).map(|c| c.0),
        Some(ConvertKind::PointerToInt)
    );
    let d = one(
        "void f(float4 f) { int4 r = (int4)f; }",
        Code::InvalidCast,
        "(int4)f",
    );
    assert!(d.notes[0].contains("convert_int4"), "{:?}", d.notes);
    one(
        "void f(global int *g) { private int *p = (private int *)g; }",
        Code::AddressSpace,
        "(private int *)g",
    );
    ok("typedef struct T { float a; } T; void f(T t) { T u = (T)t; }");
}

#[test]
fn vector_literals() {
    let e = typed("float4 a, float b, float c", "", "(float4)(a.xy, b, c)");
    assert_eq!(e.ty, v(Float, 4));
    let ExprKind::VectorConstruct { elems } = &e.kind else {
        panic!()
    };
    assert_eq!(elems.len(), 3);
    assert_eq!(elems[0].ty, v(Float, 2));
    // integer scalars convert to the element type
    let e = typed("", "", "(float2)(1, 2)");
    let ExprKind::VectorConstruct { elems } = &e.kind else {
        panic!()
    };
    assert_eq!(conv(&elems[0]).map(|c| c.0), Some(ConvertKind::IntToFloat));
    let d = one(
        "void f() { float4 v = (float4)(1.0f, 2.0f); }",
        Code::TypeMismatch,
        "(float4)(1.0f",
    );
    assert!(d.message.contains("too few"), "{}", d.message);
    one(
        "void f() { float4 v = (float4)((int2)(1,2), 1.0f, 2.0f); }",
        Code::TypeMismatch,
        "(int2)(1,2)",
    );
    // a non-vector "vector literal" is a cast of a comma expression
    assert_eq!(typed("", "", "(int)(1.5f, 2.5f)").ty, Type::INT);
}

// --- assignment, const, address spaces --------------------------------------------

#[test]
fn assignment_targets() {
    one(
        "void f(const int x) { x = 2; }",
        Code::NotAssignable,
        "x = 2",
    );
    one(
        "void f(constant int *c) { c[0] = 2; }",
        Code::NotAssignable,
        "c[0]",
    );
    one(
        "void f(global const int *c) { c[0] = 2; }",
        Code::NotAssignable,
        "c[0]",
    );
    one(
        "void f(int a, int b) { (a + b) = 1; }",
        Code::NotAssignable,
        "a + b",
    );
    let d = one(
        "void f(float4 v) { v.xx = (float2)(1.0f); }",
        Code::NotAssignable,
        "v.xx",
    );
    assert!(d.message.contains("duplicate"), "{}", d.message);
    one(
        "void f() { int a[2], b[2]; a = b; }",
        Code::NotAssignable,
        "a = b",
    );
    one("void f(int a) { a++ = 1; }", Code::NotAssignable, "a++");
    ok("void f(float4 v, global float4 *p) { v.xy = (float2)(1.0f); v.s3 = 2; p->x = 1; p[0].w = 2; v[1] = 3.0f; }");
}

#[test]
fn compound_assignment() {
    let e = typed("int x", "", "x += 1.5f");
    let ExprKind::CompoundAssign {
        computation, rhs, ..
    } = &e.kind
    else {
        panic!()
    };
    assert_eq!(
        (computation.clone(), rhs.ty.clone(), e.ty.clone()),
        (Type::FLOAT, Type::FLOAT, Type::INT)
    );
    let e = typed("float4 v", "", "v *= 2");
    let ExprKind::CompoundAssign { computation, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(computation, &v(Float, 4));
    let e = typed("global float *p", "", "p += 3");
    let ExprKind::CompoundAssign { rhs, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(rhs.ty, Type::LONG);
    one(
        "void f(int s, int4 v) { s += v; }",
        Code::TypeMismatch,
        "s += v",
    );
    one("void f(float x) { x %= 2; }", Code::TypeMismatch, "x %= 2");
}

#[test]
fn address_spaces() {
    one(
        "void f() { int x = 1; global int *q = &x; }",
        Code::AddressSpace,
        "&x",
    );
    one(
        "void f(global int *g) { int *p = g; }",
        Code::AddressSpace,
        "g; }",
    );
    one(
        "void f() { global int x; }",
        Code::AddressSpace,
        "global int x",
    );
    one(
        "void f() { constant int x = 1; }",
        Code::AddressSpace,
        "constant int x",
    );
    // &x of a private variable is a private pointer
    let e = typed("", "int x;", "&x");
    assert_eq!(
        e.ty,
        Type::pointer(Type::INT, crate::types::AddressSpace::Private, false)
    );
    // const-dropping and incompatible pointers warn like clang
    let (_, d) = run("void f(global int *g) { global const int *c = g; global int *d = c; }");
    assert_eq!(
        d.iter().map(|d| (d.code, d.severity)).collect::<Vec<_>>(),
        vec![(Code::TypeMismatch, Severity::Warning)]
    );
    let (_, d) = run("void f(global char *g) { global int *d = g; }");
    assert_eq!(
        d.iter().map(|d| d.severity).collect::<Vec<_>>(),
        vec![Severity::Warning]
    );
    ok("void f(global char *g) { global void *v = g; global int *d = v; global int *n = 0; }");
    // a __constant variable in a kernel is a program constant
    let h = ok("kernel void k(global int *o) { constant int t[2] = {3, 4}; o[0] = t[1]; }");
    assert_eq!(h.globals.len(), 1);
}

// --- kernels ----------------------------------------------------------------------

#[test]
fn kernel_signatures() {
    one(
        "kernel int k(global int *p) { return 0; }",
        Code::KernelSignature,
        "int k",
    );
    one("kernel void k(bool b) { }", Code::KernelSignature, "bool b");
    let d = one(
        "kernel void k(size_t n) { }",
        Code::KernelSignature,
        "size_t n",
    );
    assert!(d.message.contains("size_t"));
    one(
        "kernel void k(ptrdiff_t n) { }",
        Code::KernelSignature,
        "ptrdiff_t",
    );
    one(
        "kernel void k(global int **pp) { }",
        Code::KernelSignature,
        "global int **pp",
    );
    one("kernel void k(int *p) { }", Code::KernelSignature, "int *p");
    one(
        "kernel void k(private int *p) { }",
        Code::KernelSignature,
        "private int *p",
    );
    one(
        "kernel void k(global int g) { }",
        Code::AddressSpace,
        "global int g",
    );
    ok("kernel void k(local float *p) { }");
    one(
        "kernel void k(local float **p) { }",
        Code::KernelSignature,
        "local float **p",
    );
    one(
        "typedef struct { global int *p; } S; kernel void k(S s) { }",
        Code::KernelSignature,
        "S s",
    );
    ok("typedef struct { int a; float b; } S; kernel void k(S s, global S *ps, constant float *c, float4 v, uint n) { ps[0] = s; }");
    // clang allows calling a kernel from another kernel
    ok("kernel void a(global int *p) { p[0] = 1; } kernel void b(global int *p) { a(p); }");
}

// --- names --------------------------------------------------------------------------

#[test]
fn scoping_and_redefinition() {
    ok("void f(int x) { { float x = 1.0f; x += 1; } for (int i = 0; i < 2; i++) { int i2 = i; } int i = 3; }");
    let src = "void f() { int x; float x; }";
    let d = one(src, Code::Redefinition, "x; }");
    assert_eq!(d.related.len(), 1);
    assert_eq!(d.related[0].message, "previous definition of `x` is here");
    assert_eq!(pos(src, d.related[0].span.start), at(src, "x; float"));
    one("void f(int a) { int a; }", Code::Redefinition, "a; }");
    one("void f(int a, int a) { }", Code::Redefinition, "a) {");
    one("void f() { } void f() {}", Code::Redefinition, "f() {}");
    ok("void g(int); void g(int x) { } void h() { g(1); }");
    one(
        "void g(int); void g(float x) { }",
        Code::InvalidDeclaration,
        "g(float",
    );
    let d = one(
        "float sqrt(float x) { return x; }",
        Code::Redefinition,
        "sqrt",
    );
    assert!(d.message.contains("built-in"));
}

#[test]
fn undeclared_names_with_suggestions() {
    let d = one(
        "void f(int width) { int x = widht + 1; }",
        Code::Undeclared,
        "widht",
    );
    assert_eq!(d.notes, vec!["did you mean `width`?".to_string()]);
    let d = one(
        "void f() { int x = get_global_idx(0); }",
        Code::Undeclared,
        "get_global_idx",
    );
    assert_eq!(d.notes, vec!["did you mean `get_global_id`?".to_string()]);
    let d = one(
        "void helper_fn(int a) { } void f() { helpr_fn(1); }",
        Code::Undeclared,
        "helpr_fn",
    );
    assert_eq!(d.notes, vec!["did you mean `helper_fn`?".to_string()]);
    let d = one("void f() { int x = zzzzzz; }", Code::Undeclared, "zzzzzz");
    assert!(d.notes.is_empty());
}

#[test]
fn jumps_and_returns() {
    one("void f() { break; }", Code::MisplacedJump, "break");
    one("void f() { continue; }", Code::MisplacedJump, "continue");
    one(
        "void f(int x) { switch (x) { case 1: continue; } }",
        Code::MisplacedJump,
        "continue",
    );
    ok("void f(int x) { for (;;) { switch (x) { case 1: continue; default: break; } } }");
    one(
        "void f(int x) { case 1: x++; }",
        Code::MisplacedJump,
        "case 1",
    );
    one(
        "void f(int x) { default: x++; }",
        Code::MisplacedJump,
        "default",
    );
    one(
        "void f(int x) { switch (x) { case 1: case 1: break; } }",
        Code::Redefinition,
        "1: break",
    );
    one(
        "void f(float x) { switch (x) { case 1: break; } }",
        Code::TypeMismatch,
        "x) { case",
    );
    one(
        "void f(int x, int y) { switch (x) { case y: break; } }",
        Code::NotConstant,
        "y:",
    );
    one("int f() { return; }", Code::BadReturn, "return");
    one("void f() { return 1; }", Code::BadReturn, "1;");
    one("float4 f(int4 i) { return i; }", Code::TypeMismatch, "i; }");
}

#[test]
fn switch_hir() {
    let h = ok("int f(long x) { switch (x) { case 1L << 40: return 1; case -1: default: return 2; } return 0; }");
    let body = h.functions[0].body.as_ref().unwrap();
    let StmtKind::Switch { cond, body } = &body.stmts[0].kind else {
        panic!()
    };
    assert_eq!(cond.ty, Type::LONG);
    let labels: Vec<&StmtKind> = body
        .stmts
        .iter()
        .map(|s| &s.kind)
        .filter(|k| matches!(k, StmtKind::Case(_) | StmtKind::Default))
        .collect();
    assert_eq!(
        labels,
        vec![
            &StmtKind::Case(1 << 40),
            &StmtKind::Case(-1),
            &StmtKind::Default
        ]
    );
}

#[test]
fn conditions_are_bool() {
    let h = ok("void f(int x, global int *p) { if (x) {} while (p) {} for (; x;) {} do {} while (x > 1); }");
    let body = h.functions[0].body.as_ref().unwrap();
    for s in &body.stmts {
        let c = match &s.kind {
            StmtKind::If { cond, .. }
            | StmtKind::While { cond, .. }
            | StmtKind::DoWhile { cond, .. } => cond,
            StmtKind::For { cond: Some(c), .. } => c,
            other => panic!("{other:?}"),
        };
        assert_eq!(c.ty, Type::BOOL);
    }
    let d = one("void f(int4 v) { if (v) {} }", Code::TypeMismatch, "v) {}");
    assert!(d.notes[0].contains("any()"));
}

// --- compound literals ------------------------------------------------------------------

#[test]
fn compound_literals_are_unnamed_lvalues() {
    let h = ok("struct range { float lo; float hi; };\n\
        float f(float a, int i) {\n\
        struct range r = (struct range){ .hi = a, .lo = -a };\n\
        struct range *p = &(struct range){ a };\n\
        float w = ((float[]){ 0.25f, 0.5f, 0.25f })[i];\n\
        int n = ((int[]){ 1, 2, 3, 4 })[0];\n\
        (struct range){ 1.0f, 2.0f }.lo = 3.0f;\n\
        return r.lo + p->hi + w + n; }");
    let f = &h.functions[0];
    // Each literal is one more private local of the function, sized by its
    // initializer when declared `[]`.
    let literals: Vec<&hir::Local> = f
        .locals
        .iter()
        .filter(|l| l.name == "compound literal")
        .collect();
    assert_eq!(literals.len(), 5);
    assert_eq!(literals[2].ty, Type::Array(Box::new(Type::FLOAT), 3));
    assert_eq!(literals[3].ty, Type::Array(Box::new(Type::INT), 4));
    assert!(literals.iter().all(|l| l.space == AddressSpace::Private));
    // The designated fields are in field order in the checked list.
    let body = f.body.as_ref().unwrap();
    let StmtKind::Decl {
        init: Some(Init::Expr(e)),
        ..
    } = &body.stmts[0].kind
    else {
        panic!("{:?}", body.stmts[0]);
    };
    let ExprKind::CompoundLiteral { init, .. } = &e.kind else {
        panic!("{e:?}");
    };
    let Init::List { elems, .. } = &**init else {
        panic!("{init:?}");
    };
    assert!(matches!(&elems[0], Some(Init::Expr(x)) if matches!(x.kind, ExprKind::Unary { .. })));
    assert!(e.place.is_some(), "a compound literal is an lvalue");
}

#[test]
fn compound_literal_errors() {
    one(
        "float f(float a) { return (float[]){ a, a }; }",
        Code::TypeMismatch,
        "(float[])",
    );
    one(
        "struct range { float lo; float hi; }; float f(float a) { return (struct range){ .mid = a }.lo; }",
        Code::NoMember,
        "mid",
    );
    one(
        "float f(float a) { return ((__local float[]){ a })[0]; }",
        Code::AddressSpace,
        "__local",
    );
    one(
        "struct s; void f(void) { (struct s){ 0 }; }",
        Code::InvalidDeclaration,
        "struct s)",
    );
}

// --- constants and initializers -------------------------------------------------------

#[test]
fn constant_expressions() {
    let h = ok("constant int N = 4; void f() { const int n = 2 * 3; int a[4 > 2 ? 3 : 1]; int b[sizeof(float4)]; int c[(int)2.5f]; int d[n]; int e[N << 1]; int g[-(-5) % 3]; }");
    let tys: Vec<Type> = h.functions[0].locals.iter().map(|l| l.ty.clone()).collect();
    let arr = |n| Type::Array(Box::new(Type::INT), n);
    assert_eq!(
        tys,
        vec![Type::INT, arr(3), arr(16), arr(2), arr(6), arr(8), arr(2)]
    );
    one("void f(int x) { int a[x]; }", Code::UnsupportedVla, "x]");
    one("void f() { int a[0]; }", Code::InvalidDeclaration, "0]");
    one("void f() { int a[1 / 0]; }", Code::UnsupportedVla, "1 / 0");
}

#[test]
fn constant_globals_are_folded() {
    let h = ok("typedef struct { float a; int b[3]; } S; constant S s = { 1.5f, { 7 } }; constant float4 k = (float4)(1, 2, 3, 4); constant uint m = -1; constant float z[4] = { [2] = 1 };");
    assert_eq!(
        h.globals[0].init,
        Some(ConstInit::Struct(vec![
            ConstInit::Scalar(ConstValue::Float(1.5, Float)),
            ConstInit::Array(vec![
                ConstInit::Scalar(ConstValue::Int(7, Int)),
                ConstInit::Zero,
                ConstInit::Zero
            ]),
        ]))
    );
    let f = |x: f64| ConstValue::Float(x, Float);
    assert_eq!(
        h.globals[1].init,
        Some(ConstInit::Vector(vec![f(1.0), f(2.0), f(3.0), f(4.0)]))
    );
    assert_eq!(
        h.globals[2].init,
        Some(ConstInit::Scalar(ConstValue::Int(0xffff_ffff, UInt)))
    );
    assert_eq!(
        h.globals[3].init,
        Some(ConstInit::Array(vec![
            ConstInit::Zero,
            ConstInit::Zero,
            ConstInit::Scalar(f(1.0)),
            ConstInit::Zero
        ]))
    );
    one("constant int g; ", Code::InvalidDeclaration, "g;");
    one(
        "int h(int); constant int g = h(1) + 1; int h(int x) { return x; }",
        Code::NotConstant,
        "h(1) + 1",
    );
}

#[test]
fn local_initializers() {
    let h = ok("typedef struct { float a; int b; } P; void f() { int a[] = {1, 2, 3}; int m[2][3] = {{1, 2}, {3}}; int e[2][2] = {1, 2, 3}; P p = { .b = 3, .a = 2 }; float4 v = {1, 2, 3, 4}; int x = {5}; }");
    let f = &h.functions[0];
    assert_eq!(f.locals[0].ty, Type::Array(Box::new(Type::INT), 3));
    let inits: Vec<&Init> = f
        .body
        .as_ref()
        .unwrap()
        .stmts
        .iter()
        .map(|s| match &s.kind {
            StmtKind::Decl { init: Some(i), .. } => i,
            other => panic!("{other:?}"),
        })
        .collect();
    // nested lists keep their structure, with None for zero-filled elements
    let Init::List { elems, .. } = inits[1] else {
        panic!()
    };
    let Some(Init::List { elems: row1, .. }) = &elems[1] else {
        panic!()
    };
    assert!(row1[0].is_some() && row1[1].is_none() && row1[2].is_none());
    // brace elision: {1, 2, 3} fills e[0] and e[1][0]
    let Init::List { elems, .. } = inits[2] else {
        panic!()
    };
    let Some(Init::List { elems: row1, .. }) = &elems[1] else {
        panic!("{elems:?}")
    };
    assert!(row1[0].is_some() && row1[1].is_none());
    // designators
    let Init::List { elems, .. } = inits[3] else {
        panic!()
    };
    let Some(Init::Expr(a)) = &elems[0] else {
        panic!()
    };
    assert_eq!(a.ty, Type::FLOAT);
    // excess elements warn like clang
    let (_, d) = run("void f() { int a[2] = {1, 2, 3}; }");
    assert_eq!(
        d.iter().map(|d| (d.code, d.severity)).collect::<Vec<_>>(),
        vec![(Code::InvalidDeclaration, Severity::Warning)]
    );
    one("void f() { int a[]; }", Code::InvalidDeclaration, "a[]");
    one(
        "void f(int4 i) { int a[2] = i; }",
        Code::TypeMismatch,
        "i; }",
    );
    one(
        "void f(float4 f4) { int4 i = f4; }",
        Code::TypeMismatch,
        "f4; }",
    );
    ok("void f() { float4 a = 1.0f; float4 b = 1.0; int4 d = 1; }");
}

// --- calls ------------------------------------------------------------------------------

#[test]
fn user_calls() {
    let h = ok("float g(float x, int n) { return x * n; } void f(int i) { float r = g(i, 2.5f); }");
    let body = h.functions[1].body.as_ref().unwrap();
    let StmtKind::Decl {
        init: Some(Init::Expr(e)),
        ..
    } = &body.stmts[0].kind
    else {
        panic!()
    };
    let ExprKind::Call { func, args } = &e.kind else {
        panic!()
    };
    assert_eq!(func.0, 0);
    assert_eq!(
        (args[0].ty.clone(), args[1].ty.clone()),
        (Type::FLOAT, Type::INT)
    );
    assert_eq!(h.functions[1].callees, vec![hir::FuncId(0)]);

    let src = "int g(int a, int b) { return a; } void f() { g(1, 2, 3); }";
    let d = one(src, Code::ArgCount, "g(1, 2, 3)");
    assert_eq!(d.message, "function `g` takes 2 arguments but 3 were given");
    assert_eq!(pos(src, d.related[0].span.start), at(src, "g(int"));
    one("void f(int x) { x(1); }", Code::NotCallable, "x(1)");
    one("void f(float4 v) { v.x(1); }", Code::NotCallable, "v.x");
    let d = one(
        "int g(int); void f() { g(1); }",
        Code::InvalidDeclaration,
        "g(1)",
    );
    assert!(
        d.message.contains("declared but never defined"),
        "{}",
        d.message
    );
    ok("int g(int); void f() { } ");
    one(
        "void g(global int *p) {} void f() { int x; g(&x); }",
        Code::AddressSpace,
        "&x",
    );
}

#[test]
fn recursion_is_reported_at_the_closing_call() {
    let src = "int f(int n) { return n ? f(n - 1) : 0; }";
    let d = one(src, Code::Recursion, "f(n - 1)");
    assert!(d.message.contains("calls itself"));
    let src = "int b(int); int a(int n) { return b(n); } int b(int n) { return a(n); } kernel void k(global int *o) { o[0] = a(1); }";
    one(src, Code::Recursion, "b(n); }");
    ok("int c(int n) { return n; } int b(int n) { return c(n) + c(n); } int a(int n) { return b(n) + c(n); }");
}

// --- built-ins ------------------------------------------------------------------------

#[test]
fn builtin_overload_table() {
    let params = "float f, double d, int i, uint u, short s, ushort us, float2 f2, float3 f3, float4 f4, int4 i4, uint4 u4, double2 d2, \
                  global float *gp, constant float *cp, global int *ip, global half *hp, constant half *chp, \
                  global float4 *g4, global int4 *gi4";
    let cases: &[(&str, Type)] = &[
        ("get_global_id(0)", Type::ULONG),
        ("get_local_size(1u)", Type::ULONG),
        ("get_work_dim()", Type::UINT),
        ("get_sub_group_local_id()", Type::UINT),
        ("sqrt(f)", Type::FLOAT),
        ("sqrt(d)", Type::DOUBLE),
        ("sqrt(2.0f)", Type::FLOAT),
        ("native_sin(f4)", v(Float, 4)),
        ("half_exp(f)", Type::FLOAT),
        ("pow(f, 2.0f)", Type::FLOAT),
        ("pown(f4, i4)", v(Float, 4)),
        ("fmin(f, 1)", Type::FLOAT),
        ("fmax(f4, f)", v(Float, 4)),
        ("fma(f, f, f)", Type::FLOAT),
        ("mad(d2, d2, d2)", v(Double, 2)),
        ("atan2(f2, f2)", v(Float, 2)),
        ("max(u, 1u)", Type::UINT),
        ("max(f4, 0.0f)", v(Float, 4)),
        ("min(i4, 3)", v(Int, 4)),
        ("clamp(i4, 0, 5)", v(Int, 4)),
        ("clamp(f, 0.0f, 1.0f)", Type::FLOAT),
        ("abs(i)", Type::UINT),
        ("abs_diff(i4, i4)", v(UInt, 4)),
        ("mul24(i, i)", Type::INT),
        ("mad24(u, u, u)", Type::UINT),
        ("popcount(u4)", v(UInt, 4)),
        ("clz(i)", Type::INT),
        ("rotate(u, 3u)", Type::UINT),
        ("upsample(s, us)", Type::INT),
        ("add_sat(i, i)", Type::INT),
        ("select(f4, f4, i4)", v(Float, 4)),
        ("select(i, i, u)", Type::INT),
        ("mix(f4, f4, 0.5f)", v(Float, 4)),
        ("step(0.5f, f4)", v(Float, 4)),
        ("smoothstep(0.0f, 1.0f, f)", Type::FLOAT),
        ("sign(f)", Type::FLOAT),
        ("dot(f3, f3)", Type::FLOAT),
        ("cross(f4, f4)", v(Float, 4)),
        ("length(f2)", Type::FLOAT),
        ("distance(f4, f4)", Type::FLOAT),
        ("normalize(f3)", v(Float, 3)),
        ("fast_normalize(f4)", v(Float, 4)),
        ("isnan(f)", Type::INT),
        ("isnan(f4)", v(Int, 4)),
        ("isless(d2, d2)", v(Long, 2)),
        ("signbit(f)", Type::INT),
        ("any(i4 < 0)", Type::INT),
        ("all(i4)", Type::INT),
        ("bitselect(u4, u4, u4)", v(UInt, 4)),
        ("convert_int4(f4)", v(Int, 4)),
        ("convert_uchar4_sat_rte(f4)", v(UChar, 4)),
        ("convert_float(i)", Type::FLOAT),
        ("as_uint(f)", Type::UINT),
        ("as_int4(f3)", v(Int, 4)),
        ("as_float2(d)", v(Float, 2)),
        ("vload4(0, gp)", v(Float, 4)),
        ("vload2(i, cp)", v(Float, 2)),
        ("vstore4(f4, 1, gp)", Type::Void),
        ("vload_half(i, hp)", Type::FLOAT),
        ("vload_half4(0, chp)", v(Float, 4)),
        ("vloada_half3(u, hp)", v(Float, 3)),
        ("vstore_half(f, 0, hp)", Type::Void),
        ("vstore_half2_rtz(d2, 0, hp)", Type::Void),
        ("vstorea_half4_rtp(f4, i, hp)", Type::Void),
        ("fract(f4, g4)", v(Float, 4)),
        ("modf(f, gp)", Type::FLOAT),
        ("sincos(f, gp)", Type::FLOAT),
        ("frexp(f4, gi4)", v(Float, 4)),
        ("remquo(f, f, ip)", Type::FLOAT),
        ("lgamma_r(f, ip)", Type::FLOAT),
        ("lgamma(d)", Type::DOUBLE),
        ("remainder(f2, f2)", v(Float, 2)),
        ("sub_group_any(i < 3)", Type::INT),
        ("sub_group_all(i)", Type::INT),
        ("sub_group_broadcast(f, 0)", Type::FLOAT),
        ("sub_group_reduce_add(u)", Type::UINT),
        ("sub_group_scan_exclusive_max(d)", Type::DOUBLE),
        ("__builtin_inff()", Type::FLOAT),
        ("__builtin_huge_val()", Type::DOUBLE),
    ];
    for (call, ty) in cases {
        let e = typed(params, "", call);
        assert_eq!(&e.ty, ty, "{call}");
        if !call.starts_with("__builtin") {
            assert!(matches!(e.kind, ExprKind::Builtin { .. }), "{call}: {e:?}");
        }
    }
    // arguments are converted to the chosen overload's parameters
    let e = typed("float f", "", "fmin(f, 1)");
    let ExprKind::Builtin { args, call } = &e.kind else {
        panic!()
    };
    assert_eq!(call.params, vec![Type::FLOAT, Type::FLOAT]);
    assert_eq!(conv(&args[1]).map(|c| c.0), Some(ConvertKind::IntToFloat));
    let e = typed("", "", "get_global_id(0)");
    let ExprKind::Builtin { args, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(args[0].ty, Type::UINT);
    // INFINITY and friends are constants
    assert!(
        matches!(typed("", "", "__builtin_inff()").kind, ExprKind::Float(f) if f.is_infinite())
    );
}

#[test]
fn half_access_errors() {
    // A store needs a writable half pointer and float/double data of the width.
    for (body, text) in [
        ("vstore_half(f, 0, chp);", "vstore_half(f, 0, chp)"),
        ("vstore_half(i, 0, hp);", "vstore_half(i, 0, hp)"),
        ("vstore_half4(f, 0, hp);", "vstore_half4(f, 0, hp)"),
        ("float x = vload_half(0, gp);", "vload_half(0, gp)"),
        ("float x = vload_half(f, hp);", "vload_half(f, hp)"),
    ] {
        let src = format!(
            "void g(float f, int i, global half *hp, constant half *chp, global float *gp) {{ {body} }}"
        );
        let d = one(&src, Code::NoOverload, text);
        assert!(d.notes[0].starts_with("candidates: "), "{:?}", d.notes);
    }
    // Pointer outputs: `__constant` and const pointers are not writable.
    one(
        "void g(float f, constant float *cp) { fract(f, cp); }",
        Code::NoOverload,
        "fract(f, cp)",
    );
}

#[test]
fn builtin_errors() {
    let d = one(
        "void f() { float a = sqrt(2); }",
        Code::NoOverload,
        "sqrt(2)",
    );
    assert!(d.message.contains("ambiguous"), "{}", d.message);
    assert!(d.notes[0].contains("`float sqrt(float)`"), "{:?}", d.notes);
    one(
        "void f(uint u) { uint r = max(u, 1); }",
        Code::NoOverload,
        "max(u, 1)",
    );
    let d = one("void f(int4 i) { sqrt(i); }", Code::NoOverload, "sqrt(i)");
    assert!(
        d.notes[0].starts_with("candidates: `float sqrt(float)`, `floatN sqrt(floatN)`"),
        "{:?}",
        d.notes
    );
    one(
        "void f() { sqrt(1.0f, 2.0f); }",
        Code::ArgCount,
        "sqrt(1.0f",
    );
    one(
        "void f(float2 x) { convert_int4(x); }",
        Code::NoOverload,
        "convert_int4",
    );
    one(
        "void f(float x) { convert_float_sat(x); }",
        Code::NoOverload,
        "convert_float_sat",
    );
    one(
        "void f(float2 x) { as_int4(x); }",
        Code::NoOverload,
        "as_int4",
    );
    one(
        "void f(constant float *c, float4 x) { vstore4(x, 0, c); }",
        Code::NoOverload,
        "vstore4",
    );
    one(
        "void f(global float *p, int4 x) { vstore4(x, 0, p); }",
        Code::NoOverload,
        "vstore4",
    );
    one(
        "void f(global float4 *p) { vload4(0, p); }",
        Code::NoOverload,
        "vload4",
    );
    one("void f(float4 x) { any(x); }", Code::NoOverload, "any(x)");
}

// --- members and swizzles ---------------------------------------------------------

#[test]
fn members_and_swizzles() {
    assert_eq!(typed("float4 v", "", "v.s01").ty, v(Float, 2));
    assert_eq!(typed("float4 v", "", "v.xyz").ty, v(Float, 3));
    assert_eq!(typed("float4 v", "", "v.hi").ty, v(Float, 2));
    assert_eq!(typed("float3 v", "", "v.lo").ty, v(Float, 2));
    assert_eq!(typed("float2 v", "", "v.odd").ty, Type::FLOAT);
    assert_eq!(typed("float16 v", "", "v.sF").ty, Type::FLOAT);
    assert_eq!(typed("float16 v", "", "v.S0123").ty, v(Float, 4));
    assert_eq!(typed("float8 v", "", "v.xyzw").ty, v(Float, 4));
    assert_eq!(typed("float4 v", "", "v.xxyyzzww.s0246").ty, v(Float, 4));
    assert_eq!(typed("global float4 *p", "", "p->w").ty, Type::FLOAT);
    let e = typed("float4 v", "", "v.zyx");
    let ExprKind::Swizzle { components, .. } = &e.kind else {
        panic!()
    };
    assert_eq!(components, &vec![2, 1, 0]);
    assert!(e.is_lvalue());
    assert!(!typed("float4 v", "", "v.xx").is_lvalue());

    one("void f(float2 v) { float x = v.z; }", Code::NoMember, "z;");
    one(
        "void f(float4 v) { float2 x = v.xs1; }",
        Code::NoMember,
        "xs1",
    );
    one("void f(float4 v) { float x = v.s5; }", Code::NoMember, "s5");
    one(
        "void f(float4 v) { float r = v.xyzwx.x; }",
        Code::NoMember,
        "xyzwx",
    );
    one("void f(float x) { x.x; }", Code::NoMember, "x; }");

    let src = "struct P { float x; int count; }; void f(struct P p, global struct P *q) { p.x = q->count; q->cuont = 1; }";
    let d = one(src, Code::NoMember, "cuont");
    assert_eq!(
        d.notes,
        vec![
            "did you mean `count`?".to_string(),
            "fields: `x`, `count`".to_string()
        ]
    );
    let h = ok("struct Q { int a; float b; }; void f(global struct Q *q) { q->b; }");
    let StmtKind::Expr(e) = &h.functions[0].body.as_ref().unwrap().stmts[0].kind else {
        panic!()
    };
    assert_eq!(e.ty, Type::FLOAT);
    let ExprKind::Member { base, field } = &e.kind else {
        panic!()
    };
    assert_eq!(*field, 1);
    assert!(matches!(base.kind, ExprKind::Deref(_)));
}

#[test]
fn struct_layout() {
    let h = ok("struct S { char c; float4 v; double d; float3 t; }; struct N { char a; struct S s; short b; int arr[3]; }; void f(struct S s, struct N n) {}");
    let s = &h.structs[0];
    let offs: Vec<u64> = s.fields.iter().map(|f| f.offset).collect();
    assert_eq!(offs, vec![0, 16, 32, 48]);
    assert_eq!((s.size, s.align), (64, 16));
    let n = &h.structs[1];
    let offs: Vec<u64> = n.fields.iter().map(|f| f.offset).collect();
    assert_eq!(offs, vec![0, 16, 80, 84]);
    assert_eq!((n.size, n.align), (96, 16));
    assert_eq!(
        h.type_name(&Type::Struct(crate::types::StructId(0))),
        "struct S"
    );
    let h = ok("typedef struct { char a; int b; } T; void f(T t) {}");
    assert_eq!(
        (
            h.structs[0].size,
            h.type_name(&Type::Struct(crate::types::StructId(0)))
        ),
        (8, "T".to_string())
    );
}

// --- unsupported features -----------------------------------------------------------

#[test]
fn unsupported_features_have_their_codes() {
    let cases: &[(&str, Code, &str)] = &[
        ("kernel void k() { half hv; }", Code::UnsupportedHalf, "hv"),
        (
            "kernel void k(global half *p, global float *o) { o[0] = p[1]; }",
            Code::UnsupportedHalf,
            "p[1]",
        ),
        (
            "kernel void k() { float f = 1.0h; }",
            Code::UnsupportedHalf,
            "1.0h",
        ),
        (
            "kernel void k() { goto out; }",
            Code::UnsupportedGoto,
            "goto",
        ),
        ("kernel void k() { out: ; }", Code::UnsupportedGoto, "out"),
        (
            "kernel void k() { int (*fp)(int); }",
            Code::UnsupportedFunctionPointer,
            "(int)",
        ),
        (
            "kernel void k(queue_t q) { }",
            Code::UnsupportedDeviceEnqueue,
            "queue_t",
        ),
        (
            "kernel void k() { enqueue_kernel(0); }",
            Code::UnsupportedDeviceEnqueue,
            "enqueue_kernel",
        ),
        ("global int g;", Code::UnsupportedProgramScopeVariable, "g;"),
        ("int g = 1;", Code::UnsupportedProgramScopeVariable, "g = 1"),
        (
            "int v(int a, ...) { return a; }",
            Code::UnsupportedVariadic,
            "v(",
        ),
        ("struct B { int a : 3; };", Code::UnsupportedBitField, "3"),
        (
            "kernel void k() { \"abc\"; }",
            Code::UnsupportedString,
            "\"abc\"",
        ),
        (
            "kernel void k(global int *p) { generic int *q; }",
            Code::UnsupportedGenericAddressSpace,
            "generic",
        ),
        (
            "kernel void k(global int *p) { to_global(p); }",
            Code::UnsupportedGenericAddressSpace,
            "to_global",
        ),
    ];
    for (src, code, needle) in cases {
        let d = one(src, *code, needle);
        assert!(
            d.message.contains("not supported yet"),
            "{src}: {}",
            d.message
        );
    }
    let d = one(
        "kernel void k() { sub_group_barrier(1); }",
        Code::UnsupportedBarrier,
        "sub_group_barrier",
    );
    assert_eq!(
        d.message,
        "sub-group barriers are not supported yet (`sub_group_barrier`)"
    );
}

#[test]
fn unsupported_feature_reported_once_per_place() {
    // uses of an unsupported program-scope variable check normally
    let (_, d) = run("global int counter; kernel void k() { counter++; counter = 2; }");
    assert_eq!(
        d.iter().map(|d| d.code).collect::<Vec<_>>(),
        vec![Code::UnsupportedProgramScopeVariable]
    );
    // two sub-group barriers are two places
    let (_, d) = run("kernel void k() { sub_group_barrier(1); sub_group_barrier(2); }");
    assert_eq!(d.len(), 2);
}

#[test]
fn one_error_one_message() {
    let cases = [
        "void f() { int x = undefined_a + 1; float y = x * 2; }",
        "void f(float4 v) { float4 w = (v + undeclared_b) * 2.0f + sqrt(v); }",
        "void f() { float r = sqrt(undeclared_c) * 2; }",
        "void f(global float *p) { p[undeclared_d].x = 1; }",
        "int g(int a) { return a; } void f() { int r = g(nope) + g(1, 2); }",
        "void f(float4 v) { v.q.x = (v.q + 1) * 2; }",
        "void f(int4 a, float4 b) { int4 r = (a + b) * 2 + (a + b); }",
        "void f() { unknown_fn(1)++; }",
    ];
    for src in cases {
        let (_, d) = run(src);
        let expected = if src.contains("(v.q + 1)")
            || src.contains("(a + b) * 2 + (a + b)")
            || src.contains("g(nope)")
        {
            2
        } else {
            1
        };
        assert_eq!(d.len(), expected, "{src}\n{d:#?}");
    }
}

// --- attributes ------------------------------------------------------------------

#[test]
fn attribute_arguments_are_constant_expressions_after_preprocessing() {
    use crate::preprocess::{PreprocessOptions, RealFs};
    let src = "#define BLOCK_SIZE 16\n\
        __kernel __attribute__((reqd_work_group_size(BLOCK_SIZE, 1, 1))) void k(global int *p) { }\n\
        __attribute__((reqd_work_group_size(WG * 2, 1, 1))) __attribute__((work_group_size_hint(8, 1 << 1, 1)))\n\
        kernel __attribute__((vec_type_hint(float4))) void q() { int x __attribute__((aligned(BLOCK_SIZE))) = 1; }\n\
        __attribute__((always_inline)) int f(int x) { return x; }\n";
    let options = PreprocessOptions {
        defines: vec![("WG".into(), Some("32".into()))],
        ..Default::default()
    };
    let u = crate::unit::check_text("t.cl", None, src, &options, &RealFs);
    assert!(u.diagnostics.is_empty(), "{:#?}", u.diagnostics);
    let f = &u.hir.functions;
    assert_eq!(f[0].attrs.reqd_work_group_size, Some([16, 1, 1]));
    assert_eq!(f[1].attrs.reqd_work_group_size, Some([64, 1, 1]));
    assert_eq!(f[1].attrs.work_group_size_hint, Some([8, 2, 1]));
    assert_eq!(
        f[1].attrs.vec_type_hint,
        Some(Type::Vector(Scalar::Float, 4))
    );
    assert_eq!(f[0].attrs.vec_type_hint, None);
}

#[test]
fn attribute_argument_errors_are_clangs_at_the_argument() {
    let cases: &[(&str, Code, &str, &str)] = &[
        (
            "float n(void); kernel __attribute__((reqd_work_group_size(16, n(), 1))) void k() {}",
            Code::NotConstant,
            "n(), 1)",
            "`reqd_work_group_size` attribute requires parameter 1 to be an integer constant",
        ),
        (
            "kernel __attribute__((reqd_work_group_size(1.5f, 1, 1))) void k() {}",
            Code::NotConstant,
            "1.5f",
            "`reqd_work_group_size` attribute requires parameter 0 to be an integer constant",
        ),
        (
            "kernel __attribute__((reqd_work_group_size(16, 0, 1))) void k() {}",
            Code::InvalidDeclaration,
            "0, 1)",
            "`reqd_work_group_size` attribute must be greater than 0",
        ),
        (
            "#define W (-2)\nkernel __attribute__((work_group_size_hint(W, 1, 1))) void k() {}",
            Code::InvalidDeclaration,
            "W, 1",
            "`work_group_size_hint` attribute requires a non-negative integral compile time constant expression",
        ),
        (
            "kernel __attribute__((reqd_work_group_size(1ul << 32, 1, 1))) void k() {}",
            Code::InvalidDeclaration,
            "1ul",
            "integer constant expression evaluates to value 4294967296 that cannot be represented in a 32-bit unsigned integer type",
        ),
        (
            "kernel __attribute__((work_group_size_hint(4, 1))) void k() {}",
            Code::InvalidDeclaration,
            "4, 1)",
            "`work_group_size_hint` attribute requires exactly 3 arguments",
        ),
        (
            "__attribute__((reqd_work_group_size(1, 1, 1))) void f() {}",
            Code::InvalidDeclaration,
            "reqd_work_group_size(1",
            "attribute `reqd_work_group_size` can only be applied to an OpenCL kernel function",
        ),
        (
            "kernel void k() { int x __attribute__((aligned(12))) = 1; }",
            Code::InvalidDeclaration,
            "12",
            "requested alignment is not a power of 2",
        ),
        (
            "kernel void k() { int x __attribute__((aligned(-4))), y; }",
            Code::InvalidDeclaration,
            "-4",
            "requested alignment is not a power of 2",
        ),
        (
            "kernel void k() { int x __attribute__((aligned(1ul << 33))) = 1; }",
            Code::InvalidDeclaration,
            "1ul",
            "requested alignment must be 4294967296 bytes or smaller",
        ),
        (
            "kernel void k() { int x __attribute__((aligned(2.0f))) = 1; }",
            Code::NotConstant,
            "2.0f",
            "`aligned` attribute requires integer constant",
        ),
        (
            "kernel void k() { int x __attribute__((aligned(4, 8))) = 1; }",
            Code::InvalidDeclaration,
            "8)",
            "`aligned` attribute takes no more than 1 argument",
        ),
        (
            "struct s { int a; }; kernel __attribute__((vec_type_hint(struct s))) void k() {}",
            Code::InvalidDeclaration,
            "struct s)",
            "a non-vector or non-vectorizable scalar type is an invalid argument to attribute `vec_type_hint`",
        ),
        (
            "kernel __attribute__((vec_type_hint(bool))) void k() {}",
            Code::InvalidDeclaration,
            "bool)",
            "a non-vector or non-vectorizable scalar type is an invalid argument to attribute `vec_type_hint`",
        ),
        (
            "kernel __attribute__((reqd_work_group_size(16 17, 1, 1))) void k() {}",
            Code::Syntax,
            "17",
            "expected `)`, found `17`",
        ),
    ];
    for &(src, code, needle, message) in cases {
        let u = crate::unit::check_text(
            "t.cl",
            None,
            src,
            &crate::preprocess::PreprocessOptions::default(),
            &crate::preprocess::RealFs,
        );
        let d = u.diagnostics;
        assert_eq!(d.len(), 1, "{src}\n{d:#?}");
        assert_eq!(
            (d[0].code, pos(src, d[0].span.start), d[0].message.as_str()),
            (code, at(src, needle), message),
            "{src}"
        );
    }
}

// --- robustness ----------------------------------------------------------------------

#[test]
fn deep_expressions_do_not_overflow() {
    // The parser caps nesting at 256; a tree of that depth must check on a
    // default test thread (2 MiB of stack).
    let depth = 250;
    let src = format!(
        "void f(int a) {{ int x = {}a{}; int y = {}1; }}",
        "(".repeat(depth),
        " + 1)".repeat(depth),
        "- ".repeat(depth)
    );
    let mut d = Vec::new();
    let toks = lex(FileId(0), &src, &mut d);
    let unit = parse(&toks, &mut d);
    let _ = super::check(&unit, &mut d);
    assert!(
        d.iter().all(|d| d.code == Code::TooDeep),
        "{:?}",
        d.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
}

#[test]
fn hand_built_deep_tree_reports_too_deep() {
    use crate::ast;
    let sp = crate::source::Span::default();
    let mut e = ast::Expr {
        id: ast::NodeId(0),
        kind: ast::ExprKind::IntLit {
            value: 1,
            suffix: ast::IntSuffix::None,
            decimal: true,
        },
        span: sp,
    };
    for i in 0..1000 {
        e = ast::Expr {
            id: ast::NodeId(i + 1),
            kind: ast::ExprKind::Paren(Box::new(e)),
            span: sp,
        };
    }
    let spec = ast::DeclSpec {
        base: ast::BaseType::Builtin("void".into()),
        base_span: sp,
        quals: Default::default(),
        address_space: None,
        storage: ast::Storage::None,
        kernel: None,
        inline: false,
        attributes: Vec::new(),
        span: sp,
    };
    let body = ast::Block {
        id: ast::NodeId(2000),
        stmts: vec![ast::Stmt {
            id: ast::NodeId(2001),
            kind: ast::StmtKind::Expr(e),
            span: sp,
        }],
        span: sp,
    };
    let f = ast::Function {
        spec,
        name: ast::Ident {
            name: "f".into(),
            span: sp,
        },
        return_derived: vec![],
        params: vec![],
        variadic: false,
        body: Some(body),
    };
    let unit = ast::TranslationUnit {
        items: vec![crate::moved::Pending::new(ast::Item {
            id: ast::NodeId(2002),
            kind: ast::ItemKind::Function(f),
            span: sp,
        })],
        node_count: 2003,
    };
    let mut d = Vec::new();
    // A thread with a small stack shows the limit holds.
    let d = std::thread::Builder::new()
        .stack_size(4 << 20)
        .spawn(move || {
            super::check(&unit, &mut d);
            d
        })
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(
        d.iter().map(|d| d.code).collect::<Vec<_>>(),
        vec![Code::TooDeep]
    );
}

#[test]
fn garbage_does_not_panic() {
    // Whatever the parser makes of broken text, checking must not panic.
    let inputs = [
        "kernel void k(global float *p) { p[ = 1; }",
        "struct S { struct S s; }; void f(struct S x) { x.s.s.s = 1; }",
        "void f() { int a[2][] = {1}; }",
        "void f() { float4 v = (float4)(; }",
        "typedef int T; T T; void f() { T x = T; }",
        "void f() { switch (1) { case 1: case 2: default: default: ; } }",
        "int f(int a[]) { return a[0]; } void g() { int b[3]; f(b); f(&b); }",
        "void f() { int x = sizeof(struct Undefined); struct Undefined *p; p->x = 1; p + 1; }",
        "constant int a[3] = {1, 2, 3, 4, 5}; constant float b = a[0]; constant int c[] = {1};",
        "void f(global int *p) { p->x; *p->y; (*p).z; &f; f; }",
        "int x; int x; void x() {}",
        "void f() { int a = {}; int b[2] = {{{{1}}}}; struct { int q; } s = {1, 2}; }",
    ];
    for src in inputs {
        let mut d = Vec::new();
        let toks = lex(FileId(0), src, &mut d);
        let unit = parse(&toks, &mut d);
        let _ = super::check(&unit, &mut d);
    }
}

// --- whole kernels ------------------------------------------------------------------

#[test]
fn convolution_kernel() {
    let h = ok(r#"
        #define RADIUS 3
        __kernel void conv1d(__global const float *in, __global float *out,
                             __constant float *weights, int n) {
            int i = get_global_id(0);
            if (i >= n) return;
            float acc = 0.0f;
            for (int k = -3; k <= 3; ++k) {
                int j = clamp(i + k, 0, n - 1);
                acc += in[j] * weights[k + 3];
            }
            out[i] = acc;
        }
    "#
    .replace("#define RADIUS 3", "")
    .as_str());
    assert_eq!(h.kernels().len(), 1);
}

#[test]
fn gemm_kernel() {
    ok(r#"
        typedef struct { int m, n, k; } Dims;
        static float dot_row(__global const float *a, __global const float *b, int row, int col, Dims d) {
            float sum = 0.0f;
            for (int p = 0; p < d.k; p++)
                sum = fma(a[row * d.k + p], b[p * d.n + col], sum);
            return sum;
        }
        __kernel void gemm(__global const float *a, __global const float *b, __global float *c,
                           Dims d, float alpha, float beta) {
            const size_t row = get_global_id(1);
            const size_t col = get_global_id(0);
            if (row >= (size_t)d.m || col >= (size_t)d.n) return;
            float acc = dot_row(a, b, (int)row, (int)col, d);
            __global float *dst = c + row * d.n + col;
            *dst = alpha * acc + beta * *dst;
        }
    "#);
}

#[test]
fn mandelbrot_kernel() {
    let h = ok(r#"
        float2 cmul(float2 a, float2 b) { return (float2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
        __kernel void mandelbrot(__global uchar4 *img, int width, int height, int max_iter) {
            int x = get_global_id(0), y = get_global_id(1);
            float2 c = (float2)(3.0f * x / width - 2.0f, 2.0f * y / height - 1.0f);
            float2 z = (float2)(0.0f);
            int it = 0;
            while (it < max_iter && dot(z, z) < 4.0f) {
                z = cmul(z, z) + c;
                it++;
            }
            uchar v = (uchar)(255 * it / max_iter);
            float4 col = (float4)(v, v, v, 255) / 255.0f;
            img[y * width + x] = convert_uchar4_sat(col * 255.0f);
            int4 m = isnan(col);
            if (any(m)) img[0].x = 0;
        }
    "#);
    assert_eq!(h.functions[1].callees, vec![hir::FuncId(0)]);
}

#[test]
fn checking_is_fast_enough() {
    // 200 kernels of about 50 lines each (10,000 lines).
    let mut src = String::new();
    for k in 0..200 {
        src.push_str(&format!(
            "__kernel void k{k}(__global float *a, __global const float *b, int n) {{\n"
        ));
        for j in 0..48 {
            src.push_str(&format!("  {{ int i{j} = get_global_id(0) + {j}; if (i{j} < n) a[i{j}] = b[i{j}] * {j}.0f + sqrt(fabs(b[i{j}])); }}\n"));
        }
        src.push_str("}\n");
    }
    let mut d = Vec::new();
    let toks = lex(FileId(0), &src, &mut d);
    let unit = parse(&toks, &mut d);
    let t = std::time::Instant::now();
    let h = super::check(&unit, &mut d);
    let dt = t.elapsed();
    assert!(d.is_empty());
    assert_eq!(h.kernels().len(), 200);
    // Generous for unoptimized test builds; release is far below 50 ms.
    eprintln!("checked 10,000 lines in {dt:?}");
    assert!(dt.as_millis() < 2000, "checking took {dt:?}");
}

/// Builds `void g(int a) {}` followed by `void f(int a) { <stmt> }`, where the
/// statement nests `depth` levels of one construct, and checks it on a thread
/// with half the default test stack: this bounds the stack used per level.
fn check_nested(
    depth: usize,
    build: impl Fn(ast::Expr, u32) -> ast::ExprKind + Send + 'static,
) -> Vec<Code> {
    std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let sp = crate::source::Span::default();
            let ident = |n: &str| ast::Ident {
                name: n.into(),
                span: sp,
            };
            let mut e = ast::Expr {
                id: ast::NodeId(0),
                kind: ast::ExprKind::Ident(ident("a")),
                span: sp,
            };
            for i in 0..depth as u32 {
                e = ast::Expr {
                    id: ast::NodeId(i + 1),
                    kind: build(e, i),
                    span: sp,
                };
            }
            let mut d = Vec::new();
            let prelude = "float4 g(float4 a) { return a; } struct S { struct S *p; float4 v; };";
            let toks = lex(FileId(0), prelude, &mut d);
            let mut unit = parse(&toks, &mut d);
            let spec = ast::DeclSpec {
                base: ast::BaseType::Builtin("void".into()),
                base_span: sp,
                quals: Default::default(),
                address_space: None,
                storage: ast::Storage::None,
                kernel: None,
                inline: false,
                attributes: Vec::new(),
                span: sp,
            };
            let param = ast::Param {
                id: ast::NodeId(900_000),
                spec: ast::DeclSpec {
                    base: ast::BaseType::Builtin("float4".into()),
                    ..spec.clone()
                },
                declarator: ast::Declarator {
                    name: Some(ident("a")),
                    derived: vec![],
                    span: sp,
                },
                span: sp,
            };
            let stmt = ast::Stmt {
                id: ast::NodeId(900_001),
                kind: ast::StmtKind::Expr(e),
                span: sp,
            };
            let body = ast::Block {
                id: ast::NodeId(900_002),
                stmts: vec![stmt],
                span: sp,
            };
            let f = ast::Function {
                spec,
                name: ident("f"),
                return_derived: vec![],
                params: vec![param],
                variadic: false,
                body: Some(body),
            };
            unit.items.push(crate::moved::Pending::new(ast::Item {
                id: ast::NodeId(900_003),
                kind: ast::ItemKind::Function(f),
                span: sp,
            }));
            super::check(&unit, &mut d);
            d.iter().map(|d| d.code).collect()
        })
        .unwrap()
        .join()
        .unwrap()
}

use crate::ast;

#[test]
fn stack_per_nesting_level_is_bounded() {
    let n = super::MAX_DEPTH as usize - 4;
    let b = |e: ast::Expr| Box::new(e);
    let sp = crate::source::Span::default();
    let lit = move |i: u32| ast::Expr {
        id: ast::NodeId(500_000 + i),
        kind: ast::ExprKind::IntLit {
            value: 1,
            suffix: ast::IntSuffix::None,
            decimal: true,
        },
        span: sp,
    };
    let ident = move |n: &str| ast::Ident {
        name: n.into(),
        span: sp,
    };
    assert_eq!(
        check_nested(n, move |e, _| ast::ExprKind::Paren(b(e))),
        vec![]
    );
    assert_eq!(
        check_nested(n, move |e, _| ast::ExprKind::Unary {
            op: ast::UnaryOp::Neg,
            operand: b(e)
        }),
        vec![]
    );
    assert_eq!(
        check_nested(n, move |e, i| ast::ExprKind::Binary {
            op: ast::BinaryOp::Add,
            lhs: b(e),
            rhs: b(lit(i))
        }),
        vec![]
    );
    assert_eq!(
        check_nested(n, move |e, i| ast::ExprKind::Binary {
            op: ast::BinaryOp::LogicalAnd,
            lhs: b(lit(i)),
            rhs: b(e)
        }),
        vec![]
    );
    assert_eq!(
        check_nested(n, move |e, _| ast::ExprKind::Call {
            callee: b(ast::Expr {
                id: ast::NodeId(0),
                kind: ast::ExprKind::Ident(ident("g")),
                span: sp
            }),
            args: vec![e]
        }),
        vec![]
    );
    assert_eq!(
        check_nested(n, move |e, _| ast::ExprKind::Call {
            callee: b(ast::Expr {
                id: ast::NodeId(0),
                kind: ast::ExprKind::Ident(ident("sqrt")),
                span: sp
            }),
            args: vec![e]
        }),
        vec![]
    );
    assert_eq!(
        check_nested(n, move |e, i| ast::ExprKind::Conditional {
            cond: b(lit(i)),
            then: b(e),
            els: b(ast::Expr {
                id: ast::NodeId(0),
                kind: ast::ExprKind::Ident(ident("a")),
                span: sp
            })
        }),
        vec![]
    );
    assert_eq!(
        check_nested(n, move |e, _| ast::ExprKind::Member {
            base: b(e),
            field: ident("xyzw"),
            arrow: false
        }),
        vec![]
    );
    assert_eq!(
        check_nested(n / 2, move |e, i| ast::ExprKind::Assign {
            op: Some(ast::BinaryOp::Mul),
            lhs: b(ast::Expr {
                id: ast::NodeId(0),
                kind: ast::ExprKind::Ident(ident("a")),
                span: sp
            }),
            rhs: b(ast::Expr {
                id: ast::NodeId(i),
                kind: ast::ExprKind::Paren(b(e)),
                span: sp
            })
        }),
        vec![]
    );
    // Beyond the limit: one TooDeep, no overflow.
    assert_eq!(
        check_nested(3 * n, move |e, _| ast::ExprKind::Unary {
            op: ast::UnaryOp::Neg,
            operand: b(e)
        }),
        vec![Code::TooDeep]
    );
}

#[test]
fn hir_nodes_stay_compact() {
    // Expressions are moved around a lot while checking; keep them small.
    assert!(
        std::mem::size_of::<Expr>() <= 104,
        "{}",
        std::mem::size_of::<Expr>()
    );
}

/// A small deterministic fuzzer: mutated kernels through parser and checker
/// must never panic (checking runs under `catch_unwind` to name the input).
#[test]
fn mutated_inputs_never_panic() {
    let corpus: Vec<&str> = vec![
        "typedef struct { float4 a; int b[3]; } S; constant S k = {(float4)(1), {1,2}}; float g(float x, int n) { return x * n; }",
        "kernel void k(global float *a, global const float4 *b, int n, S s) { int i = get_global_id(0); float4 v = b[i].wzyx * 2 + s.a; switch (i) { case 1: a[i] = dot(v, v); break; default: a[i] = g(v.x, n) ? 1 : 0; } for (int j = 0; j < n; j++) { if (j % 2) continue; a[j] += clamp(v.y, 0.0f, 1.0f); } }",
        "int h(int x) { return x > 0 ? h(x - 1) : 0; } void q(float4 *p) { *p = (float4)(p->xy, 1, 2); p[0].s3 = as_float(1u); vstore4(*p, 0, (float *)p); }",
    ];
    let base: String = corpus.join("\n");
    let bytes = base.as_bytes();
    let mut state: u64 = 0x1234_5678;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let pieces = [
        "(", ")", "{", "}", ";", ",", "[", "]", ".", "->", "*", "&", "=", "+=", "<<", "?", ":",
        "int", "float4", "struct", "x", "1", "0.5f", "sizeof", "(float4)", "__local", "goto",
    ];
    for _ in 0..2000 {
        let mut s = bytes.to_vec();
        for _ in 0..(1 + rnd() % 12) {
            let pos = (rnd() as usize) % s.len();
            match rnd() % 3 {
                0 => {
                    let len = (rnd() as usize % 8).min(s.len() - pos);
                    s.drain(pos..pos + len);
                }
                1 => {
                    let p = pieces[rnd() as usize % pieces.len()];
                    for (k, b) in p.bytes().enumerate() {
                        s.insert(pos + k, b);
                    }
                }
                _ => {
                    let other = (rnd() as usize) % s.len();
                    let b = s[other];
                    s.insert(pos, b);
                }
            }
        }
        let src = String::from_utf8_lossy(&s).to_string();
        let mut d = Vec::new();
        let toks = lex(FileId(0), &src, &mut d);
        let unit = parse(&toks, &mut d);
        let r = std::panic::catch_unwind(|| {
            let mut d2 = Vec::new();
            super::check(&unit, &mut d2);
        });
        assert!(r.is_ok(), "checker panicked on:\n{src}");
    }
}

// --- work-group features -------------------------------------------------------------

#[test]
fn local_variables_follow_clangs_rules() {
    let h = ok("typedef struct { int n; float s; } Acc;
        kernel void k(global float *o, local float *scratch) {
            local float tile[16][17];
            __local Acc acc;
            __local int a, b[4];
            local float *t = &tile[1][0];
            t[get_local_id(0)] = scratch[0];
            acc.s = (float)(a + b[1]);
            o[0] = acc.s + tile[1][2];
        }");
    let f = &h.functions[0];
    let spaces: Vec<(&str, AddressSpace)> = f
        .locals
        .iter()
        .map(|l| (l.name.as_str(), l.space))
        .collect();
    assert!(
        spaces.contains(&("tile", AddressSpace::Local)),
        "{spaces:?}"
    );
    assert!(spaces.contains(&("b", AddressSpace::Local)), "{spaces:?}");
    assert!(spaces.contains(&("t", AddressSpace::Private)), "{spaces:?}");
    // `&tile[..]` is a `__local` pointer: it does not convert to private.
    one(
        "kernel void k() { local int x; int *p = &x; }",
        Code::AddressSpace,
        "&x",
    );
    one("void h() { local int x[4]; }", Code::AddressSpace, "x[4]");
    one(
        "kernel void k() { local int x = 1; }",
        Code::AddressSpace,
        "x = 1",
    );
    one(
        "kernel void k() { if (1) { local int x; } }",
        Code::AddressSpace,
        "x; }",
    );
    // Helpers take `__local` pointers and do arithmetic and casts on them.
    ok("float first(local float *p, int i) { local int *q = (local int *)(p + i); return (float)q[0]; }
        kernel void k(global float *o, local float *t) { o[0] = first(t + 1, 2); }");
}

#[test]
fn barriers_and_fences_check_their_arguments() {
    ok("kernel void k() {
            barrier(1 | 2);
            work_group_barrier(4u, memory_scope_work_group);
            mem_fence(1); read_mem_fence(1); write_mem_fence(2);
            atomic_work_item_fence(2, memory_order_seq_cst, memory_scope_device);
        }");
    one(
        "kernel void k() { barrier(); }",
        Code::ArgCount,
        "barrier()",
    );
    one(
        "kernel void k() { barrier(1.5f); }",
        Code::NoOverload,
        "1.5f",
    );
    one(
        "kernel void k() { atomic_work_item_fence(1, 2); }",
        Code::ArgCount,
        "atomic_work_item_fence",
    );
}

#[test]
fn atomics_check_types_and_address_spaces() {
    let h = ok("kernel void k(volatile global int *g, volatile local uint *l, global float *f,
                      global long *w, global atomic_int *a, global atomic_flag *fl) {
            int x = atomic_add(g, 1) + atomic_inc(g) + atomic_cmpxchg(g, 0, 1) + atom_min(g, 2);
            uint y = atomic_max(l, 3u) + atomic_xor(l, 1u);
            float z = atomic_xchg(f, 2.0f);
            long v = atom_add(w, 1L);
            atomic_init(a, 0);
            int e = 0;
            bool ok = atomic_compare_exchange_weak_explicit(a, &e, 3, memory_order_acq_rel,
                                                            memory_order_relaxed, memory_scope_device);
            bool set = atomic_flag_test_and_set_explicit(fl, memory_order_acquire);
            atomic_flag_clear(fl);
            g[0] = x + (int)y + (int)z + (int)v + atomic_fetch_add(a, 1) + atomic_load(a) + ok + set;
        }");
    let _ = h;
    // An atomic needs shared memory: L0016 at the pointer argument.
    let d = one(
        "kernel void k() { int c = 0; atomic_inc(&c); }",
        Code::AddressSpace,
        "&c",
    );
    assert!(
        d.message.contains("`__global` or `__local`"),
        "{}",
        d.message
    );
    one(
        "kernel void k(constant int *c) { atomic_add(c, 1); }",
        Code::AddressSpace,
        "c, 1",
    );
    // Types: 1.1 atomics take int/uint (and float for xchg only).
    one(
        "kernel void k(global float *f) { atomic_add(f, 1.0f); }",
        Code::NoOverload,
        "f, 1",
    );
    one(
        "kernel void k(global long *w) { atomic_add(w, 1); }",
        Code::NoOverload,
        "w, 1",
    );
    one(
        "kernel void k(global const int *p) { atomic_inc(p); }",
        Code::NoOverload,
        "p); }",
    );
    // `_explicit` forms need their memory order; the plain ones take none.
    one(
        "kernel void k(global atomic_int *a) { atomic_load_explicit(a); }",
        Code::ArgCount,
        "atomic_load_explicit",
    );
    one(
        "kernel void k(global atomic_int *a) { atomic_load(a, memory_order_relaxed); }",
        Code::ArgCount,
        "atomic_load",
    );
    one(
        "kernel void k(global atomic_int *a) { int e; atomic_compare_exchange_strong(a, e, 1); }",
        Code::NoOverload,
        "e, 1",
    );
}

#[test]
fn async_copies_and_events() {
    ok(
        "kernel void k(global float4 *g, local float4 *t, global const int *src, local int *dst) {
            event_t e = async_work_group_copy(t, g, 16, 0);
            event_t f = async_work_group_strided_copy(dst, src, 8, 4, e);
            event_t both[2];
            both[0] = e;
            both[1] = async_work_group_copy(g, t, 16, f);
            wait_group_events(2, both);
            prefetch(src, 8);
        }",
    );
    // Both sides in global memory: no overload.
    one(
        "kernel void k(global int *a, global int *b) { async_work_group_copy(a, b, 4, 0); }",
        Code::NoOverload,
        "async_work_group_copy",
    );
    one(
        "kernel void k(global int *a, local int *b) { async_work_group_copy(b, a, 4, 1); }",
        Code::NoOverload,
        "1)",
    );
    one(
        "kernel void k(local int *b) { wait_group_events(1, b); }",
        Code::NoOverload,
        "b); }",
    );
}

#[test]
fn work_group_collectives_resolve() {
    ok("kernel void k(global int *o, global float *f) {
            o[0] = work_group_reduce_add(o[1]) + work_group_scan_inclusive_max(o[2])
                 + work_group_any(o[3] > 0) + work_group_all(1)
                 + work_group_broadcast(o[4], 1) + work_group_broadcast(o[5], 0, 1, 2);
            f[0] = work_group_scan_exclusive_min(f[1]) + work_group_broadcast(f[2], 3, 4);
        }");
    one(
        "kernel void k(global int *o) { o[0] = work_group_broadcast(o[1], 1, 2, 3, 4); }",
        Code::ArgCount,
        "work_group_broadcast",
    );
}

#[test]
fn enums_are_int_constants_usable_in_constant_expressions() {
    let h = ok(
        "enum Mode { ADD, MUL = 4, MAX }; typedef enum { LO = -1 } W;
        void f(enum Mode m) { int a[MAX]; W w = LO; enum Mode n = m;
          switch (n) { case ADD: break; case MAX: break; } }",
    );
    let f = &h.functions[0];
    assert_eq!(f.locals[0].ty, Type::INT);
    assert_eq!(f.locals[1].ty, Type::Array(Box::new(Type::INT), 5));
    assert_eq!(f.locals[2].ty, Type::INT);
    // A redefinition and a union tag used as an enum are errors.
    one("enum E { A }; enum E { B };", Code::Redefinition, "E { B");
    one("union U { int a; }; enum U u;", Code::TypeMismatch, "U u");
}

#[test]
fn union_members_share_offset_zero() {
    let h = ok("union U { char c; float4 v; int a[5]; };
        void f() { union U u = { 'a' }; u.v = (float4)(1.0f); int x = u.a[4]; union U w = { .a = { 1 } }; }");
    let def = &h.structs[0];
    assert!(def.is_union);
    assert!(def.fields.iter().all(|f| f.offset == 0));
    // The largest member (20 bytes) rounded up to the alignment of float4.
    assert_eq!((def.size, def.align), (32, 16));
    assert_eq!(
        hir::type_name(&Type::Struct(StructId(0)), &h.structs),
        "union U"
    );
    let (_, d) = run("union U { int a; float b; }; void f() { union U u = { 1, 2.0f }; }");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(d[0]
        .message
        .contains("excess elements in union initializer"));
    one("union U { int a; }; struct U s;", Code::TypeMismatch, "U s");
}

#[test]
fn true_false_and_gnu_const() {
    let h =
        ok("void f(__const int n) { bool b = true; int x = false + n; __const__ float c = 1.0f; }");
    let f = &h.functions[0];
    assert!(f.locals[0].is_const);
    assert_eq!(f.locals[1].ty, Type::BOOL);
    assert!(f.locals[3].is_const);
    one(
        "void f() { __const int c = 1; c = 2; }",
        Code::NotAssignable,
        "c = 2",
    );
}

#[path = "image_tests.rs"]
mod image_tests;
