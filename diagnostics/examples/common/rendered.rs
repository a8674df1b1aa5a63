//! The editor's rendering of diagnostics for the examples: what the server
//! publishes (each diagnostic with the lines and columns of its places),
//! reusing the renderings of the kernels whose diagnostics did not change.

use lanes_db::LanesDatabase;

/// What the server publishes, reusing the renderings of the kernels whose
/// diagnostics did not change: each diagnostic with the lines and columns
/// of its places (the server also makes the protocol value and its JSON).
pub fn rendered(
    db: &LanesDatabase,
    file: lanes_db::File,
    reuse: &mut lanes_diagnostics::ide::diagnostics::Reuse<Rendered>,
) -> Vec<Rendered> {
    let li = lanes_db::line_index(db, file).clone();
    lanes_diagnostics::ide::diagnostics::diagnostics_reusing(
        db,
        file,
        "",
        reuse,
        &mut |d| {
            let at =
                |r: lanes_diagnostics::ide::TextRange| (li.position(r.start), li.position(r.end));
            let related = d.related.iter().map(|r| at(r.location.range)).collect();
            std::sync::Arc::new((d.clone(), at(d.range), related))
        },
        &mut |r, s| {
            let (d, range, related) = &**r;
            let mut d = d.clone();
            d.range = s.range(d.range);
            for r in &mut d.related {
                r.location.range = s.range(r.location.range);
            }
            let at = |((a, b), (c, e)): Positions| ((s.line(a), b), (s.line(c), e));
            std::sync::Arc::new((d, at(*range), related.iter().map(|&p| at(p)).collect()))
        },
    )
}

pub type Positions = ((u32, u32), (u32, u32));
pub type Rendered = std::sync::Arc<(
    lanes_diagnostics::ide::diagnostics::Diag,
    Positions,
    Vec<Positions>,
)>;
