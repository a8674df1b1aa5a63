//! Images and samplers: types, access qualifiers, the built-ins and the
//! misuses clang-19 rejects (the same places, with lanes' codes).

use super::{ok, one, run, typed, v};
use crate::diag::Code;
use crate::hir::{ConstInit, ConstValue, ExprKind};
use crate::image::{ImageFn, ImageQuery};
use crate::types::{ImageAccess, ImageDim, Opaque, Scalar, Type};

use Scalar::*;

/// The type of parameter `i` of the first function.
fn param_ty(h: &crate::hir::Unit, i: usize) -> Type {
    let f = &h.functions[0];
    f.local(f.params[i]).ty.clone()
}

#[test]
fn image_types_take_their_access_qualifiers() {
    let h = ok(
        "kernel void k(image2d_t a, __read_only image3d_t b, write_only image1d_t c, \
                __write_only image2d_array_t d, read_write image1d_buffer_t e, \
                __read_write image1d_array_t f, read_only image2d_depth_t g, \
                image2d_array_depth_t h, sampler_t s) { }",
    );
    let want = [
        (ImageDim::D2, ImageAccess::ReadOnly),
        (ImageDim::D3, ImageAccess::ReadOnly),
        (ImageDim::D1, ImageAccess::WriteOnly),
        (ImageDim::D2Array, ImageAccess::WriteOnly),
        (ImageDim::D1Buffer, ImageAccess::ReadWrite),
        (ImageDim::D1Array, ImageAccess::ReadWrite),
        (ImageDim::D2Depth, ImageAccess::ReadOnly),
        (ImageDim::D2ArrayDepth, ImageAccess::ReadOnly),
    ];
    for (i, w) in want.into_iter().enumerate() {
        assert_eq!(param_ty(&h, i).image(), Some(w), "parameter {i}");
    }
    assert_eq!(param_ty(&h, 8), Type::Opaque(Opaque::Sampler, "sampler_t"));
    assert_eq!(param_ty(&h, 2).to_string(), "__write_only image1d_t");
    // A typedef'd image takes the qualifier of its use.
    let h = ok("typedef image2d_t img; kernel void k(write_only img a) { }");
    assert_eq!(
        param_ty(&h, 0).image(),
        Some((ImageDim::D2, ImageAccess::WriteOnly))
    );
}

#[test]
fn reads_writes_and_queries_have_clangs_result_types() {
    let p = "read_only image2d_t a, write_only image2d_t w, read_write image3d_t rw, \
             read_only image2d_depth_t d, read_only image2d_array_t arr, sampler_t s";
    let cases = [
        ("read_imagef(a, s, (int2)(0, 1))", v(Float, 4)),
        ("read_imagef(a, s, (float2)(0.5f, 1.0f))", v(Float, 4)),
        ("read_imagei(a, s, (int2)(0, 1))", v(Int, 4)),
        ("read_imageui(a, (int2)(0, 1))", v(UInt, 4)),
        ("read_imagef(rw, (int4)(0))", v(Float, 4)),
        ("read_imagef(d, s, (int2)(0))", Type::FLOAT),
        ("read_imagef(a, 0x12, (int2)(0))", v(Float, 4)),
        ("write_imagef(w, (int2)(0), (float4)(1.0f))", Type::Void),
        ("write_imagef(w, (int2)(0), 1.0f)", Type::Void),
        ("write_imageui(rw, (int4)(0), (uint4)(1))", Type::Void),
        ("get_image_width(w)", Type::INT),
        ("get_image_height(a)", Type::INT),
        ("get_image_depth(rw)", Type::INT),
        ("get_image_dim(a)", v(Int, 2)),
        ("get_image_dim(rw)", v(Int, 4)),
        ("get_image_array_size(arr)", Type::SIZE_T),
        ("get_image_channel_order(a)", Type::INT),
        ("get_image_channel_data_type(w)", Type::INT),
    ];
    for (call, ty) in cases {
        let e = typed(p, "", call);
        assert_eq!(e.ty, ty, "{call}");
        let ExprKind::Builtin { call: c, .. } = &e.kind else {
            panic!("{call}: not a built-in call: {e:?}");
        };
        assert!(
            matches!(c.func, crate::builtins::BuiltinFn::Image(_)),
            "{call}"
        );
    }
    let e = typed(p, "", "read_imagef(a, s, (int2)(0))");
    let ExprKind::Builtin { call, args } = &e.kind else {
        unreachable!()
    };
    assert_eq!(
        call.func,
        crate::builtins::BuiltinFn::Image(ImageFn::Read {
            elem: Float,
            sampled: true
        })
    );
    assert_eq!(args.len(), 3);
    let e = typed(p, "", "get_image_dim(a)");
    let ExprKind::Builtin { call, .. } = &e.kind else {
        unreachable!()
    };
    assert_eq!(
        call.func,
        crate::builtins::BuiltinFn::Image(ImageFn::Query(ImageQuery::Dim))
    );
}

#[test]
fn samplers_are_constants_of_their_bits() {
    let h = ok("__constant sampler_t s = 0x10 | 0x2 | 0x0; \
                const sampler_t t = 0x21; \
                kernel void k(read_only image2d_t a, global float4 *o) { \
                  const sampler_t u = 0x14; \
                  o[0] = read_imagef(a, s, (int2)(0)) + read_imagef(a, u, (int2)(0)); }");
    let bits: Vec<_> = h.globals.iter().map(|g| g.init.clone()).collect();
    assert!(
        matches!(
            bits[0],
            Some(ConstInit::Scalar(ConstValue::Int(0x12, UInt)))
        ),
        "{bits:?}"
    );
    assert!(
        matches!(
            bits[1],
            Some(ConstInit::Scalar(ConstValue::Int(0x21, UInt)))
        ),
        "{bits:?}"
    );
}

#[test]
fn images_and_samplers_are_only_parameters_and_constants() {
    let d = one(
        "struct S { image2d_t im; };",
        Code::InvalidDeclaration,
        "im;",
    );
    assert!(
        d.message.contains("structure or union field"),
        "{}",
        d.message
    );
    one(
        "struct T { int n; sampler_t s; };",
        Code::InvalidDeclaration,
        "s;",
    );
    let d = one(
        "void f(image2d_t a) { image2d_t c = a; }",
        Code::InvalidDeclaration,
        "c =",
    );
    assert!(d.message.contains("function parameter"), "{}", d.message);
    one("image3d_t g;", Code::InvalidDeclaration, "g;");
    let d = one("void f(image2d_t *p) { }", Code::InvalidDeclaration, "*p");
    assert!(d.message.contains("pointer to type"), "{}", d.message);
    one("void f(sampler_t *p) { }", Code::InvalidDeclaration, "*p");
    one(
        "void f(image2d_t a) { image2d_t arr[2]; }",
        Code::InvalidDeclaration,
        "[2]",
    );
    let d = one("sampler_t s = 0x10;", Code::InvalidDeclaration, "s =");
    assert!(
        d.message.contains("`const` or `__constant`"),
        "{}",
        d.message
    );
    // A sampler in a function is any uint's bits (clang accepts it too).
    ok("void f(int n) { sampler_t s = n; const sampler_t t = 0x10; }");
}

#[test]
fn access_qualifiers_belong_to_images() {
    let d = one(
        "void f() { read_only int x; }",
        Code::InvalidDeclaration,
        "read_only",
    );
    assert!(d.message.contains("pipe and image types"), "{}", d.message);
    // Found by the parser.
    let src = "kernel void k(read_only write_only image2d_t a) { }";
    let mut d = Vec::new();
    let toks = crate::lexer::lex(crate::source::FileId(0), src, &mut d);
    crate::parser::parse(&toks, &mut d);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].code, Code::InvalidDeclaration);
    assert_eq!(d[0].span.start as usize, src.find("write_only").unwrap());
}

#[test]
fn images_and_samplers_have_no_arithmetic_or_assignment() {
    one(
        "void f(image2d_t a) { int z = a == a; }",
        Code::TypeMismatch,
        "a == a",
    );
    one(
        "void f(image2d_t a) { a + 1; }",
        Code::TypeMismatch,
        "a + 1",
    );
    one(
        "void f(image2d_t img) { if (img) {} }",
        Code::TypeMismatch,
        "img) {}",
    );
    one(
        "void f(image2d_t a) { int n = (int)a; }",
        Code::InvalidCast,
        "(int)a",
    );
    let d = one(
        "void f(sampler_t s, sampler_t t) { s = t; }",
        Code::TypeMismatch,
        "s = t",
    );
    assert!(d.message.contains("cannot assign"), "{}", d.message);
    one(
        "void f(sampler_t s) { int n = s; }",
        Code::TypeMismatch,
        "s; }",
    );
    one(
        "void f() { sampler_t s = 1.0f; }",
        Code::TypeMismatch,
        "1.0f",
    );
}

#[test]
fn image_built_ins_follow_access_and_coordinates() {
    let p = "void f(read_only image2d_t r, write_only image2d_t w, read_write image2d_t rw, \
             read_only image1d_buffer_t buf, read_only image2d_array_t arr, \
             read_only image2d_depth_t d, sampler_t s) {";
    let no = |body: &str, why: &str| {
        let src = format!("{p} {body}; }}");
        let d = one(&src, Code::NoOverload, body);
        assert!(
            d.notes.iter().any(|n| n.contains(why)),
            "{body}: {:?}",
            d.notes
        );
    };
    no("read_imagef(w, s, (int2)(0))", "`__write_only`");
    no("read_imagef(w, (int2)(0))", "`__write_only`");
    no("write_imagef(r, (int2)(0), (float4)(0))", "`__read_only`");
    no("read_imagef(rw, s, (int2)(0))", "without a sampler");
    no(
        "read_imagef(r, (float2)(0))",
        "float coordinates need a sampler",
    );
    no("read_imagef(arr, s, (int2)(0))", "`int4` or `float4`");
    no("read_imagef(buf, s, 0)", "without a sampler");
    no("read_imagei(d, s, (int2)(0))", "`read_imagef`");
    no("write_imagei(w, (int2)(0), (float4)(0))", "`int4`");
    no("get_image_depth(r)", "no depth");
    no("get_image_array_size(r)", "no array size");
    no("get_image_height(buf)", "no height");
    no("read_imagef(s, s, (int2)(0))", "must be an image");
    no("read_imagef(r, 1.5f, (int2)(0))", "`sampler_t`");
    let d = one(
        &format!("{p} read_imagef(r); }}"),
        Code::ArgCount,
        "read_imagef(r)",
    );
    assert!(d.message.contains("2 or 3 arguments"), "{}", d.message);
    let (_, d) = run(&format!("{p} get_image_width(r, r); }}"));
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].code, Code::ArgCount);
}
