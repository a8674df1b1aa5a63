//! Images and samplers through lowering and analysis: reads and writes are
//! image instructions whose coordinates have shapes; the access report
//! classifies them like loads and stores (space `image`).

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::{check_text, CheckedUnit};
use lanes_vectorizer::interp::{self, ErrorKind};
use lanes_vectorizer::ir::print::{print, Plain};
use lanes_vectorizer::ir::{ImageElem, InstKind, Ty};
use lanes_vectorizer::report::{self, AccessKind, KernelReport, MemSpace, Pattern};

fn check(src: &str) -> CheckedUnit {
    let unit = check_text("img.cl", None, src, &PreprocessOptions::default(), &RealFs);
    let errors: Vec<_> = unit.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "front-end errors: {errors:#?}");
    unit
}

fn analyse(src: &str) -> (report::KernelAnalysis, KernelReport) {
    let unit = check(src);
    let k = unit.hir.kernels()[0];
    let ka = report::analyze_kernel(&unit.hir, k, 8).expect("analysis");
    lanes_vectorizer::ir::verify::verify(&ka.func)
        .unwrap_or_else(|e| panic!("{e:#?}\n{}", print(&ka.func, &Plain)));
    let r = report::report(&ka, &unit.hir, k, &unit.sources);
    (ka, r)
}

/// (source text, kind, pattern) of the image accesses.
fn image_accesses(src: &str, r: &KernelReport) -> Vec<(String, AccessKind, Pattern)> {
    r.accesses
        .iter()
        .filter(|a| a.space == MemSpace::Image)
        .map(|a| {
            let text = &src[a.span.start as usize..a.span.end as usize];
            (text.to_string(), a.kind, a.pattern)
        })
        .collect()
}

const FILTERS: &str = r#"
__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
__kernel void k(__read_only image2d_t src, __write_only image2d_t dst, sampler_t lin, int dx)
{
    int x = get_global_id(0);
    int y = get_global_id(1);
    float4 row = read_imagef(src, nearest, (int2)(x + dx, y));
    float4 col = read_imagef(src, nearest, (int2)(y, x));
    float4 one = read_imagef(src, (int2)(dx, y));
    float4 twice = read_imagef(src, nearest, (int2)(2 * x, y));
    float4 smp = read_imagef(src, lin, (float2)(x, y));
    int w = get_image_width(src);
    int2 dim = get_image_dim(dst);
    write_imagef(dst, (int2)(x, y), row + col + one + twice + smp + (float)(w + dim.y));
    write_imagef(dst, (int2)(y, x), row);
}
"#;

#[test]
fn image_reads_and_writes_are_classified_by_their_coordinates() {
    let (_, r) = analyse(FILTERS);
    let got = image_accesses(FILTERS, &r);
    let want = [
        (
            "read_imagef(src, nearest, (int2)(x + dx, y))",
            AccessKind::Load,
            Pattern::Contiguous,
        ),
        (
            "read_imagef(src, nearest, (int2)(y, x))",
            AccessKind::Load,
            Pattern::Gather,
        ),
        (
            "read_imagef(src, (int2)(dx, y))",
            AccessKind::Load,
            Pattern::Uniform,
        ),
        (
            "read_imagef(src, nearest, (int2)(2 * x, y))",
            AccessKind::Load,
            Pattern::Gather,
        ),
        (
            "read_imagef(src, lin, (float2)(x, y))",
            AccessKind::Load,
            Pattern::Gather,
        ),
        (
            "write_imagef(dst, (int2)(x, y), row + col + one + twice + smp + (float)(w + dim.y))",
            AccessKind::Store,
            Pattern::Contiguous,
        ),
        (
            "write_imagef(dst, (int2)(y, x), row)",
            AccessKind::Store,
            Pattern::Scatter,
        ),
    ];
    for w in want {
        assert!(
            got.iter().any(|g| (g.0.as_str(), g.1, g.2) == w),
            "{w:?} not in {got:#?}"
        );
    }
    assert_eq!(got.len(), want.len(), "{got:#?}");
    // A read is one access (16 bytes) for its four channel instructions.
    let row = r
        .accesses
        .iter()
        .find(|a| a.space == MemSpace::Image)
        .unwrap();
    assert_eq!(row.size, 16);
    // Gathers and scatters of pixels are the usual findings.
    let codes: Vec<&str> = r.diagnostics.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(
        codes.iter().filter(|c| **c == "L0202").count(),
        3,
        "{codes:?}"
    );
    assert_eq!(
        codes.iter().filter(|c| **c == "L0203").count(),
        1,
        "{codes:?}"
    );
}

#[test]
fn image_values_have_shapes() {
    let (_, r) = analyse(FILTERS);
    let shape = |name: &str| {
        r.values
            .iter()
            .find(|v| v.name == name)
            .unwrap_or_else(|| panic!("no fact for {name}"))
            .shape
    };
    // Queries and reads at uniform coordinates are uniform.
    assert!(shape("w").is_uniform());
    assert!(shape("dim").is_uniform());
    assert!(shape("one").is_uniform());
    assert!(!shape("row").is_uniform());
}

#[test]
fn reads_lower_to_one_instruction_per_channel_with_the_sampler_bits() {
    let (ka, _) = analyse(FILTERS);
    let f = &ka.func;
    assert_eq!(f.params[0].ty, Ty::Image);
    assert_eq!(f.params[2].ty, Ty::I32, "a sampler argument is its bits");
    let reads: Vec<_> = f
        .insts
        .iter()
        .filter_map(|i| match &i.kind {
            InstKind::ImageRead {
                sampler,
                coords,
                elem,
                component,
                ..
            } => Some((*sampler, coords.len(), *elem, *component, i.ty)),
            _ => None,
        })
        .collect();
    assert_eq!(reads.len(), 5 * 4);
    assert!(reads
        .iter()
        .all(|r| r.1 == 2 && r.2 == ImageElem::Float && r.4 == Ty::F32));
    // The program-scope sampler is the constant of its CLK_* bits.
    let s = reads[0].0.expect("sampled");
    assert_eq!(
        f.as_const(s).and_then(|c| c.as_unsigned()),
        Some(0x10 | 0x4)
    );
    let text = print(f, &Plain);
    assert!(text.contains("read_imagef.w f32"), "{text}");
    assert!(text.contains("get_image_height i32"), "{text}");
    assert!(text.contains("write_imagef"), "{text}");
}

#[test]
fn depth_and_integer_images_lower_to_their_channels() {
    let src = "__kernel void k(read_only image2d_depth_t d, read_write image3d_t v, \
               __global float *o) {\n\
               int i = get_global_id(0);\n\
               float z = read_imagef(d, (int2)(i, 0));\n\
               uint4 u = read_imageui(v, (int4)(i, 1, 2, 0));\n\
               write_imageui(v, (int4)(i, 1, 2, 0), u + 1u);\n\
               int4 dim = get_image_dim(v);\n\
               o[i] = z + (float)u.x + (float)dim.z;\n}\n";
    let (ka, r) = analyse(src);
    let f = &ka.func;
    let count = |elem: ImageElem| {
        f.insts
            .iter()
            .filter(|i| matches!(&i.kind, InstKind::ImageRead { elem: e, .. } if *e == elem))
            .count()
    };
    assert_eq!(count(ImageElem::Float), 1, "a depth image has one channel");
    assert_eq!(count(ImageElem::UInt), 4);
    let got = image_accesses(src, &r);
    assert!(got.contains(&(
        "read_imageui(v, (int4)(i, 1, 2, 0))".into(),
        AccessKind::Load,
        Pattern::Contiguous
    )));
    assert!(got.contains(&(
        "write_imageui(v, (int4)(i, 1, 2, 0), u + 1u)".into(),
        AccessKind::Store,
        Pattern::Contiguous
    )));
}

#[test]
fn the_interpreter_refuses_images_with_the_place() {
    let (ka, _) = analyse(FILTERS);
    let e = interp::unsupported_feature(&ka.func).expect("refused");
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert!(e.message.contains("images and samplers"), "{}", e.message);
    assert_eq!(&FILTERS[e.span.start as usize..e.span.end as usize], "src");
}
