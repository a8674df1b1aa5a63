//! Operations the analysis and the interpreter handle but the back end
//! cannot emit yet. A kernel using one is refused at its first use in the
//! source, before anything is written, with a code naming the feature.

use lanes_frontend::diag::{Code, Diagnostic};
use lanes_frontend::hir;
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

/// The first image or sampler (in source order) of kernel `k`, lowered to
/// `f`, as the code-generation error `L0904`: an image or sampler
/// parameter, or an image read, write or query (a program-scope sampler is
/// only used by reads). `check` and `explain` analyse these kernels.
pub fn first_image_use(unit: &hir::Unit, k: hir::FuncId, f: &Function) -> Option<Diagnostic> {
    let hf = unit.function(k);
    let params = hf
        .params
        .iter()
        .map(|&l| hf.local(l))
        .filter(|l| l.ty.is_image_or_sampler())
        .map(|l| {
            let what = if l.ty.image().is_some() {
                "image arguments"
            } else {
                "sampler arguments"
            };
            (l.span, what)
        });
    let insts = f
        .insts
        .iter()
        .filter(|i| f.blocks.get(i.block.0 as usize).is_some())
        .filter_map(|i| {
            let what = match i.kind {
                InstKind::ImageRead { .. } => "image reads",
                InstKind::ImageWrite { .. } => "image writes",
                InstKind::ImageQuery { .. } => "image queries",
                _ => return None,
            };
            Some((i.src.span, what))
        });
    let (span, what) = params
        .chain(insts)
        .min_by_key(|(span, _)| (span.file.0, span.start))?;
    Some(Diagnostic::new(
        Code::UnsupportedImages,
        span,
        format!(
            "`lanes build` cannot compile {what} yet (kernel `{}`); `lanes check` and `lanes explain` analyse it",
            f.name
        ),
    ))
}
