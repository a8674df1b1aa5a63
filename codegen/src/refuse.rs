//! Operations the analysis and the interpreter handle but the back end
//! cannot emit yet. A kernel using one is refused at its first use in the
//! source, before anything is written, with a code naming the feature.

use lanes_frontend::diag::{Code, Diagnostic};
use lanes_vectorizer::ir::{Function, InstKind, MathFn};

/// What instruction `k` needs that code generation lacks, if anything.
fn missing(k: &InstKind) -> Option<(Code, String)> {
    match k {
        InstKind::Math {
            func: MathFn::Lgamma,
            ..
        } => Some((
            Code::UnsupportedByVectorizer,
            "code generation for `lgamma`/`lgamma_r` is not available yet: the vector math library has no `lgamma` (`lanes run --interpret` runs the kernel)".into(),
        )),
        InstKind::Printf { .. } => Some((
            Code::UnsupportedPrintf,
            "`printf` cannot be compiled yet: generated code has no output channel (`lanes check` and `lanes explain` analyse the call; `lanes run --interpret` prints its output)".into(),
        )),
        _ => None,
    }
}

/// The diagnostic for the first use (in source order) of an operation that
/// cannot be compiled, if `f` has one.
pub fn first_unsupported(f: &Function) -> Option<Diagnostic> {
    f.insts
        .iter()
        .filter(|i| f.blocks.get(i.block.0 as usize).is_some())
        .filter_map(|i| missing(&i.kind).map(|m| (i.src.span, m)))
        .min_by_key(|(span, _)| (span.file.0, span.start))
        .map(|(span, (code, msg))| Diagnostic::new(code, span, msg))
}
