//! Inferred preconditions (issue 6): what is found, that it is proven,
//! and that nothing is claimed where nothing holds.

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::{check_text, CheckedUnit};
use lanes_vectorizer::precond::{infer, Finding, Options, Outcome, TargetKind};
use lanes_vectorizer::report::analyze_kernel;

fn unit(src: &str) -> CheckedUnit {
    let unit = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    unit
}

fn findings(src: &str, width: u32) -> Vec<Finding> {
    let u = unit(src);
    let k = *u.hir.kernels().first().expect("a kernel");
    let ka = analyze_kernel(&u.hir, k, width).expect("analyses");
    infer(&ka, &u.hir, k, &Options::new(width))
}

fn dump(fs: &[Finding]) -> String {
    fs.iter()
        .map(|f| format!("{:?} {:?}\n", f.kind, f.outcome))
        .collect()
}

const CONVOLUTION: &str = include_str!("../../examples/convolution.cl");

#[test]
fn convolution_loop() {
    for w in [4, 8, 16] {
        let fs = findings(CONVOLUTION, w);
        eprintln!("{}", dump(&fs));
        let lp = fs
            .iter()
            .find(|f| f.kind == TargetKind::Loop)
            .expect("the stencil loop");
        let Outcome::Found(p) = &lp.outcome else {
            panic!("{:?}", lp.outcome)
        };
        assert_eq!(p.lane, "vstep <= x && x < width - vstep");
    }
}

fn loops_of(src: &str, width: u32) -> Vec<(u32, bool)> {
    let u = unit(src);
    let k = *u.hir.kernels().first().expect("a kernel");
    let ka = analyze_kernel(&u.hir, k, width).expect("analyses");
    let r = lanes_vectorizer::report::report(&ka, &u.hir, k, &u.sources);
    r.loops
        .iter()
        .map(|l| (u.sources.line_col(l.span.file, l.span.start).0, l.divergent))
        .collect()
}

/// The fast path the code action inserts: inside the copy the loop is
/// uniform (the analyses assume P), the original stays divergent.
#[test]
fn convolution_fast_path_is_uniform_inside() {
    let u = unit(CONVOLUTION);
    let s = lanes_vectorizer::precond::specialize(&u, &Options::new(8));
    assert_eq!(s.applied.len(), 1, "{:?}", s.applied);
    assert_eq!(s.applied[0].condition, "vstep <= x && x < width - vstep");
    eprintln!("{}", s.text);
    let loops = loops_of(&s.text, 8);
    assert_eq!(loops.len(), 2, "{loops:?}");
    assert!(
        !loops[0].1 && loops[1].1,
        "copy uniform, original divergent: {loops:?}"
    );
    // The readable form, as the code action writes it, works the same way.
    let text = CONVOLUTION;
    let start = text.find("for (int i = left").unwrap();
    let end = start + text[start..].find("];").unwrap() + 2;
    let new = lanes_vectorizer::precond::specialize::fast_path(
        text,
        start,
        end,
        "vstep <= x && x < width - vstep",
    )
    .unwrap();
    let edited = format!("{}{}{}", &text[..start], new, &text[end..]);
    let loops = loops_of(&edited, 16);
    assert!(!loops[0].1 && loops[1].1, "{loops:?}");
}
