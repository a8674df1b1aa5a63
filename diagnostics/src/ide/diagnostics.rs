//! The diagnostics of a file for the editor: what `lanes check` reports
//! (and, while some kernels have errors, the findings of the others),
//! with the configured severities, without what `#pragma lanes ignore`
//! suppresses, each with its reason chain as related information and a link
//! to its entry in `docs/diagnostics.md`.
//!
//! Severities and suppression pragmas are applied by
//! [`lanes_frontend::suppress`], as in `lanes check`.
use lanes_db::{Db, File};
use lanes_frontend::diag::{Code, Diagnostic, Severity};
use lanes_frontend::source::{FileId, Span};

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
    out.sort_by_key(|d| (d.range.start, d.range.end, d.severity, d.code));
    out
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
