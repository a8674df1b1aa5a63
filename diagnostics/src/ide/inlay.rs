//! Inlay hints: the shape after each declaration (`: contiguous`), the
//! access kind after each memory access (`packed`, `gather`, `broadcast`),
//! `divergent loop` / `uniform loop` after a loop's header and the mask
//! kind after a divergent branch's condition.

use std::collections::BTreeMap;

use lanes_db::{Db, File};
use lanes_frontend::hir::StmtKind;
use lanes_vectorizer::report::ShapeKind;

use super::context::{last_paren_before, stmts_in, Ctx};
use super::hover::{access_words, shape_name};
use super::TextRange;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum InlayKind {
    /// A shape after a declaration (LSP `Type`).
    Shape,
    /// Access kinds, loop and branch notes (LSP kind left unset).
    Note,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlayHint {
    /// Byte offset the hint is shown at (after the text before it).
    pub offset: u32,
    pub label: String,
    pub kind: InlayKind,
    pub padding_left: bool,
    pub padding_right: bool,
    /// Per kernel, when the hint joins several kernels (inlined helpers).
    pub tooltip: Option<String>,
}

/// The hints whose position is inside `range`, by position.
pub fn inlay_hints(db: &dyn Db, file: File, range: TextRange) -> Vec<InlayHint> {
    let ctx = Ctx::new(db, file);
    // Only what can be inside `range`: an editor asks for the lines it
    // shows, and the file may have hundreds of kernels.
    let kernels = ctx.kernels_in(range);
    let outside = |at: TextRange| at.end < range.start || range.end < at.start;
    // Kernels with errors now show their last analysed facts, said so in
    // the tooltip.
    let stale: Vec<String> = kernels
        .iter()
        .filter(|k| k.stale)
        .map(|k| k.name.to_string())
        .collect();
    let stale_note = |names: &mut dyn Iterator<Item = &String>| -> Option<String> {
        let mut old: Vec<&String> = names.filter(|n| stale.contains(n)).collect();
        old.dedup();
        (!old.is_empty()).then(|| {
            let list: Vec<String> = old.iter().map(|n| format!("`{n}`")).collect();
            format!(
                "from the last version of {} without errors",
                list.join(", ")
            )
        })
    };
    let text = ctx.text();
    // Keyed by (offset, label order) so that a helper inlined into several
    // kernels gets one hint, joined.
    let mut shapes: BTreeMap<u32, Vec<(ShapeKind, String, String)>> = BTreeMap::new();
    let mut notes: BTreeMap<(u32, String), Vec<String>> = BTreeMap::new();
    let stmts = stmts_in(&ctx, range);
    for k in &kernels {
        let Some(r) = k.report() else { continue };
        for v in &r.values {
            let Some(at) = ctx.range(v.span).filter(|&at| !outside(at)) else {
                continue;
            };
            shapes.entry(at.end).or_default().push((
                v.kind,
                shape_name(v.shape, v.kind),
                r.name.to_string(),
            ));
        }
        for a in &r.accesses {
            let Some(at) = ctx.range(a.span).filter(|&at| !outside(at)) else {
                continue;
            };
            let (short, _) = access_words(a, r.width);
            notes
                .entry((at.end, short))
                .or_default()
                .push(r.name.to_string());
        }
        for l in &r.loops {
            let Some(at) = ctx.range(l.span).filter(|&at| !outside(at)) else {
                continue;
            };
            let label = if l.divergent {
                "divergent loop"
            } else {
                "uniform loop"
            };
            let Some(s) = stmts.iter().find(|s| ctx.range(s.span) == Some(at)) else {
                continue;
            };
            let pos = match &s.kind {
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                    last_paren_before(text, at.start, body.span.start)
                }
                // After `do`.
                StmtKind::DoWhile { .. } => Some(at.start + 2),
                _ => None,
            };
            if let Some(pos) = pos {
                notes
                    .entry((pos, label.to_string()))
                    .or_default()
                    .push(r.name.to_string());
            }
        }
        for b in r.branches.iter().filter(|b| b.divergent && !b.loop_exit) {
            let Some(at) = ctx.range(b.span).filter(|&at| !outside(at)) else {
                continue;
            };
            let header = stmts.iter().find_map(|s| match &s.kind {
                StmtKind::If { cond, then, .. }
                    if ctx
                        .range(cond.span)
                        .is_some_and(|c| c.start <= at.start && at.end <= c.end) =>
                {
                    Some((s.span.start, then.span.start))
                }
                // A switch's branch is the whole statement.
                StmtKind::Switch { cond, body }
                    if ctx.range(s.span) == Some(at)
                        || ctx
                            .range(cond.span)
                            .is_some_and(|c| c.start <= at.start && at.end <= c.end) =>
                {
                    Some((s.span.start, body.span.start))
                }
                _ => None,
            });
            let Some((s, e)) = header else { continue };
            if let Some(pos) = last_paren_before(text, s, e) {
                notes
                    .entry((pos, "divergent: varying mask".to_string()))
                    .or_default()
                    .push(r.name.to_string());
            }
        }
    }
    let mut out = Vec::new();
    for (offset, facts) in shapes {
        let Some(most) = facts.iter().max_by_key(|f| f.0) else {
            continue;
        };
        let differs = facts.iter().any(|f| f.1 != most.1);
        out.push(InlayHint {
            offset,
            label: format!(": {}", most.1),
            kind: InlayKind::Shape,
            padding_left: false,
            padding_right: true,
            tooltip: join_lines(
                differs.then(|| {
                    facts
                        .iter()
                        .map(|f| format!("{} in `{}`", f.1, f.2))
                        .collect::<Vec<_>>()
                        .join(", ")
                }),
                stale_note(&mut facts.iter().map(|f| &f.2)),
            ),
        });
    }
    for ((offset, label), kernels) in notes {
        out.push(InlayHint {
            offset,
            label,
            kind: InlayKind::Note,
            padding_left: true,
            padding_right: false,
            tooltip: join_lines(
                (kernels.len() > 1).then(|| format!("in kernels {}", kernels.join(", "))),
                stale_note(&mut kernels.iter()),
            ),
        });
    }
    out.retain(|h| range.touches(h.offset));
    out.sort_by_key(|h| (h.offset, h.kind));
    out
}

fn join_lines(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a}\n{b}")),
        (a, b) => a.or(b),
    }
}
