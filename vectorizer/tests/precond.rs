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
