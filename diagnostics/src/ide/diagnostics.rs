//! The diagnostics of a file for the editor: what `lanes check` reports
//! (and, while some kernels have errors, the findings of the others),
//! with the configured severities, without what `#pragma lanes ignore`
//! suppresses, each with its reason chain as related information and a link
//! to its entry in `docs/diagnostics.md`.
//!
//! Severities and suppression pragmas are applied by
//! [`lanes_frontend::suppress`], as in `lanes check`.
use std::collections::HashMap;
use std::sync::Arc;

use lanes_db::{Db, File, KernelResult};
use lanes_frontend::diag::{Code, Diagnostic, Severity};
use lanes_frontend::source::{FileId, Span};
use lanes_frontend::suppress::{Severities, Suppressions};
use smol_str::SmolStr;

use super::context::Ctx;
use super::{Location, TextRange};

/// Where the catalogue lives, relative to the repository root; the code's
/// anchor is its lowercase spelling (`#l0202`, GitHub's heading anchors).
pub const CATALOGUE: &str = "docs/diagnostics.md";

/// The catalogue link of a code: `docs/diagnostics.md#l0202`.
pub fn doc_link(code: Code) -> String {
    format!("{CATALOGUE}#{}", code.as_str().to_ascii_lowercase())
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diag {
    /// In this file. A problem inside an included file is shown at the
    /// `#include` that brings it in (its own place is the first related).
    pub range: TextRange,
    pub severity: Severity,
    pub code: Code,
    /// [`doc_link`] of the code.
    pub doc: String,
    pub message: String,
    /// What the caret's label and the notes say (rustc's `= note:`).
    pub label: String,
    pub notes: Vec<String>,
    /// The reason chain (or earlier definitions, macro origins): each step
    /// with its place.
    pub related: Vec<Related>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub location: Location,
    pub message: String,
}

impl Diag {
    /// The message with its label and notes, for clients that show one text.
    pub fn full_message(&self) -> String {
        let mut s = self.message.clone();
        if !self.label.is_empty() {
            s.push_str(&format!(" ({})", self.label));
        }
        for n in &self.notes {
            s.push_str("\nnote: ");
            s.push_str(n);
        }
        s
    }
}

/// The file's diagnostics, sorted by position.
pub fn diagnostics(db: &dyn Db, file: File) -> Vec<Diag> {
    let ctx = Ctx::new(db, file);
    // Remembers each analysed kernel's facts as its last good ones, so that
    // a kernel broken by the next keystroke keeps showing them even in an
    // editor that has asked for nothing else yet.
    let _ = ctx.kernels();
    // Every analysed kernel's findings, also while another kernel has
    // errors (`lanes check` reports none then).
    let all = lanes_db::live_diagnostics(db, file);
    let kept = filter(&ctx, all);
    let mut out: Vec<Diag> = kept.iter().filter_map(|d| to_diag(&ctx, d)).collect();
    out.sort_by_key(sort_key);
    out
}

/// What the editor's diagnostics are sorted by: the range, then severity
/// and code.
type SortKey = (u32, u32, Severity, Code);

fn sort_key(d: &Diag) -> SortKey {
    (d.range.start, d.range.end, d.severity, d.code)
}

/// The renderings of the last [`diagnostics_reusing`] call, per kernel, for
/// the next call to reuse: a large file has thousands of diagnostics, and a
/// keystroke changes one kernel's.
pub struct Reuse<R> {
    made: Option<Made>,
    kernels: HashMap<SmolStr, Rendered<R>>,
}

impl<R> Default for Reuse<R> {
    fn default() -> Self {
        Reuse {
            made: None,
            kernels: HashMap::new(),
        }
    }
}

/// What every rendering of the last call depended on besides its kernel's
/// report: the file, its text (the rendering holds lines and columns), the
/// configured severities, the suppression pragmas, and the caller's
/// context (what its renderer reads besides the [`Diag`]).
struct Made {
    file: File,
    lines: Arc<lanes_db::LineIndex>,
    severities: Severities,
    suppressions: Suppressions,
    context: String,
}

/// One kernel's diagnostics, rendered.
struct Rendered<R> {
    /// The report they were rendered from: the same `Arc` again means the
    /// same diagnostics at the same byte offsets (`kernel_report` made
    /// nothing new).
    report: Arc<KernelResult>,
    rendered: Vec<(SortKey, R)>,
    /// Every offset of the main file the rendering and the filtering read
    /// (diagnostics' and related places' starts and ends, also of
    /// suppressed ones), sorted.
    offsets: Vec<u32>,
}

/// How the places of the last text map to the new one, for renderings kept
/// across an edit: the offsets up to `prefix` keep their line and column
/// (the text before them is the old one), and so do, when the edit kept the
/// length and the number of lines, all from `suffix_line` on (their line
/// starts in the unchanged end of the text). When it did not, the offsets
/// from `suffix_line` on move by the edit's length and their lines by its
/// number of lines, and keep their column ([`Shift`]).
struct Unmoved {
    prefix: u32,
    suffix_line: u32,
    shift: Shift,
    /// The line of the first changed byte (the same in both texts).
    first_line: u32,
}

/// What an edit does to the places after it that sit on a line of their
/// own after the edited text: offsets move by `delta`, lines after
/// `after_line` (the last line of the edited text, in the old text) by
/// `lines`, columns stay. Places up to the edit's start do not move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shift {
    from: u32,
    delta: i64,
    after_line: u32,
    lines: i64,
}

impl Shift {
    /// An offset of the old text in the new one.
    pub fn offset(&self, o: u32) -> u32 {
        if o <= self.from {
            o
        } else {
            (o as i64 + self.delta) as u32
        }
    }

    pub fn range(&self, r: TextRange) -> TextRange {
        TextRange::new(self.offset(r.start), self.offset(r.end))
    }

    /// A (0-based) line of the old text in the new one.
    pub fn line(&self, l: u32) -> u32 {
        if l > self.after_line {
            (l as i64 + self.lines) as u32
        } else {
            l
        }
    }

    /// True when nothing moves.
    pub fn is_identity(&self) -> bool {
        self.delta == 0 && self.lines == 0
    }
}

impl Unmoved {
    fn between(old: &lanes_db::LineIndex, new: &str) -> Unmoved {
        let edit = lanes_frontend::moved::Edit::between(FileId(0), old.text(), new);
        let (a, b) = (old.text().as_bytes(), new.as_bytes());
        let (from, to) = (edit.from as usize, edit.to as usize);
        let count = |t: &[u8]| t.iter().filter(|&&c| c == b'\n').count() as i64;
        let lines = count(&b[edit.new_range()]) - count(&a[from..to]);
        let suffix_line = match a[to..].iter().position(|&c| c == b'\n') {
            Some(i) => (to + i + 1) as u32,
            None => u32::MAX,
        };
        Unmoved {
            prefix: edit.from,
            suffix_line,
            shift: Shift {
                from: edit.from,
                delta: edit.delta,
                after_line: old.position(edit.to).0,
                lines,
            },
            first_line: old.position(edit.from).0,
        }
    }

    /// Every offset keeps its line and column (the offsets are those of
    /// the old text and of the new one alike).
    fn keeps(&self, sorted: &[u32]) -> bool {
        let i = sorted.partition_point(|&o| o <= self.prefix);
        sorted
            .get(i)
            .is_none_or(|&o| self.shift.is_identity() && o >= self.suffix_line)
    }

    /// Every offset of the old text is before the edit or on a line after
    /// it, so that [`Shift`] gives its place in the new text.
    fn moves(&self, sorted: &[u32]) -> bool {
        let i = sorted.partition_point(|&o| o <= self.prefix);
        sorted.get(i).is_none_or(|&o| o >= self.suffix_line)
    }
}

/// The new report's diagnostics are the old ones with their places moved by
/// `shift` (every place in `main`).
fn moved_equal(old: &[Diagnostic], new: &[Diagnostic], shift: &Shift, main: FileId) -> bool {
    let span = |a: Span, b: Span| {
        a.file == main
            && b.file == main
            && shift.offset(a.start) == b.start
            && shift.offset(a.end) == b.end
    };
    old.len() == new.len()
        && old.iter().zip(new).all(|(a, b)| {
            a.code == b.code
                && a.severity == b.severity
                && span(a.span, b.span)
                && a.message == b.message
                && a.label == b.label
                && a.notes == b.notes
                && a.related.len() == b.related.len()
                && a.related
                    .iter()
                    .zip(&b.related)
                    .all(|(x, y)| span(x.span, y.span) && x.message == y.message)
        })
}

/// [`diagnostics`], each rendered by `render`, reusing the renderings of
/// the kernels whose diagnostics did not change since the last call with
/// `reuse` (the front end's diagnostics are rendered every time: there are
/// few). A kernel that only moved (text typed or deleted before it: the
/// same diagnostics, every place moved by the edit) keeps its renderings,
/// moved by `shift` when a place of theirs is after the edit: each such
/// place is on a line after the edited text, so it keeps its column and
/// its line moves by the edit's number of lines. The result is exactly
/// `diagnostics(db, file)` rendered, as long as `render` depends only on
/// the [`Diag`], the line and column of its offsets in the file's text,
/// and what `context` names, and `shift` gives what `render` gives for the
/// diagnostic with its offsets and lines moved by the [`Shift`].
pub fn diagnostics_reusing<R: Clone>(
    db: &dyn Db,
    file: File,
    context: &str,
    reuse: &mut Reuse<R>,
    render: &mut dyn FnMut(&Diag) -> R,
    shift: &mut dyn FnMut(&R, &Shift) -> R,
) -> Vec<R> {
    let ctx = Ctx::new(db, file);
    // As in `diagnostics`: remembers each analysed kernel's facts.
    let _ = ctx.kernels();
    let lines = lanes_db::line_index(db, file).clone();
    let severities = db.config().severities(db).clone();
    let suppressions = Suppressions::of(&ctx.parsed.unit);
    // Taken out until the end: a call cancelled on the way (an edit) leaves
    // nothing half updated.
    let mut old = std::mem::take(reuse);
    let unmoved = match old.made.take() {
        Some(m)
            if m.file == file
                && m.severities == severities
                && m.suppressions == suppressions
                && m.context == context =>
        {
            Some(Unmoved::between(&m.lines, lines.text()))
        }
        _ => None,
    };
    // A renderer's line moves only if no pragma of the file suppresses
    // diagnostics on a line at or after the edit (a moved diagnostic could
    // come onto or leave its line).
    let movable = unmoved.as_ref().is_some_and(|u| {
        suppressions
            .last_line(ctx.main())
            .is_none_or(|l| l < u.first_line as usize)
    });
    let sources = &ctx.parsed.unit.sources;
    let mut out: Vec<(SortKey, R)> = Vec::new();
    for d in &ctx.parsed.unit.diagnostics {
        if let Some(d) = suppressions.apply(sources, &severities, d.clone()) {
            if let Some(d) = to_diag(&ctx, &d) {
                out.push((sort_key(&d), render(&d)));
            }
        }
    }
    let mut kernels = HashMap::new();
    for k in lanes_db::kernels(db, file) {
        let Some(report) = lanes_db::kernel_report(db, k).clone() else {
            continue;
        };
        let name = k.name(db).clone();
        let kept = old.kernels.remove(&name).and_then(|r| match &unmoved {
            Some(u) if Arc::ptr_eq(&r.report, &report) && u.keeps(&r.offsets) => Some(r),
            Some(u) if movable && u.moves(&r.offsets) => {
                moved_equal(diags(&r.report), diags(&report), &u.shift, ctx.main())
                    .then(|| moved(r, report.clone(), &u.shift, shift))
            }
            _ => None,
        });
        let r = match kept {
            Some(r) => r,
            None => {
                let diags = match &*report {
                    Ok(r) => &r.diagnostics,
                    Err(ds) => ds,
                };
                let mut offsets = Vec::new();
                // Only places in the main file are kept across edits.
                let mut reusable = true;
                for d in diags {
                    for s in std::iter::once(d.span).chain(d.related.iter().map(|l| l.span)) {
                        reusable &= s.file == ctx.main();
                        offsets.extend([s.start, s.end]);
                    }
                }
                offsets.sort_unstable();
                let rendered = diags
                    .iter()
                    .filter_map(|d| suppressions.apply(sources, &severities, d.clone()))
                    .filter_map(|d| to_diag(&ctx, &d))
                    .map(|d| (sort_key(&d), render(&d)))
                    .collect();
                let r = Rendered {
                    report,
                    rendered,
                    offsets,
                };
                if !reusable {
                    out.extend(r.rendered);
                    continue;
                }
                r
            }
        };
        out.extend(r.rendered.iter().cloned());
        kernels.insert(name, r);
    }
    // Stable, as in `diagnostics`: equal keys keep the order of the file's
    // diagnostics (front end, then kernel by kernel).
    out.sort_by_key(|(k, _)| *k);
    *reuse = Reuse {
        made: Some(Made {
            file,
            lines,
            severities,
            suppressions,
            context: context.to_string(),
        }),
        kernels,
    };
    out.into_iter().map(|(_, r)| r).collect()
}

/// The diagnostics of a kernel's result.
fn diags(r: &KernelResult) -> &[Diagnostic] {
    match r {
        Ok(r) => &r.diagnostics,
        Err(ds) => ds,
    }
}

/// A kernel's renderings, for its `report` whose diagnostics are those of
/// `r`'s moved by `shift`.
fn moved<R: Clone>(
    r: Rendered<R>,
    report: Arc<KernelResult>,
    s: &Shift,
    shift: &mut dyn FnMut(&R, &Shift) -> R,
) -> Rendered<R> {
    let (from, offsets) = (s.from, r.offsets);
    if offsets.last().is_none_or(|&o| o <= from) {
        // Every place is before the edit: nothing moves.
        return Rendered {
            report,
            rendered: r.rendered,
            offsets,
        };
    }
    let rendered = r
        .rendered
        .iter()
        .map(|((start, end, severity, code), x)| {
            let key = (s.offset(*start), s.offset(*end), *severity, *code);
            (key, shift(x, s))
        })
        .collect();
    Rendered {
        report,
        rendered,
        offsets: offsets.iter().map(|&o| s.offset(o)).collect(),
    }
}

/// Severities from the configuration, then suppression pragmas: the
/// pipeline's last step, as every face runs it ([`lanes_pipeline::suppress`]).
pub(crate) fn filter(ctx: &Ctx<'_>, diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let severities = ctx.db.config().severities(ctx.db);
    lanes_pipeline::suppress(&ctx.parsed.unit, diags, severities)
}

fn to_diag(ctx: &Ctx<'_>, d: &Diagnostic) -> Option<Diag> {
    let mut related: Vec<Related> = Vec::new();
    let mut message = d.message.clone();
    let range = match ctx.range(d.span) {
        Some(r) => r,
        None => {
            match ctx.path_of(d.span.file) {
                // In an included file: at the `#include` of this file that
                // brings it in, with its own place first.
                Some(name) => {
                    if let Some(loc) = ctx.location(d.span) {
                        related.push(Related {
                            location: loc,
                            message: d.message.clone(),
                        });
                    }
                    message = format!("in included file `{}`: {message}", name.display());
                    match include_site(ctx, d.span.file) {
                        Some(s) => TextRange::new(s.start, s.end),
                        None => TextRange::empty(0),
                    }
                }
                // In the predefined macros (`-D` from the configuration):
                // no text to point at, so the top of the file.
                None => {
                    message = format!("in the configured macro definitions: {message}");
                    TextRange::empty(0)
                }
            }
        }
    };
    for l in &d.related {
        if let Some(location) = ctx.location(l.span) {
            related.push(Related {
                location,
                message: l.message.clone(),
            });
        }
    }
    Some(Diag {
        range,
        severity: d.severity,
        code: d.code,
        doc: doc_link(d.code),
        message,
        label: d.label.clone(),
        notes: d.notes.clone(),
        related,
    })
}

/// The `#include` directive of the main file through which `file` is
/// included (directly or not).
fn include_site(ctx: &Ctx<'_>, file: FileId) -> Option<Span> {
    let includes = &ctx.parsed.unit.preprocessed.includes;
    let mut f = file;
    for _ in 0..=includes.len() {
        let (span, _) = includes.iter().find(|(_, id)| *id == f)?;
        if span.file == ctx.main() {
            return Some(*span);
        }
        f = span.file;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_links() {
        assert_eq!(doc_link(Code::Gather), "docs/diagnostics.md#l0202");
    }
}
