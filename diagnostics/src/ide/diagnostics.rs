//! The diagnostics of a file for the editor: what `lanes check` reports,
//! with the configured severities, without what `#pragma lanes ignore`
//! suppresses, each with its reason chain as related information and a link
//! to its entry in `docs/diagnostics.md`.
//!
//! Suppression (DESIGN §2):
//! - `#pragma lanes ignore(L0202)` (several codes: `ignore(L0202, L0204)`)
//!   suppresses those codes on the next line holding code (blank lines,
//!   comments and other directives in between are skipped, so pragmas
//!   stack); before any code of the file, it suppresses them in the whole
//!   file;
//! - ISPC's spelling `#pragma ignore warning(perf)` does the same for every
//!   performance and SIMD-information code (`L02xx`, `L03xx`), and
//!   `#pragma ignore warning` / `ignore warning(all)` for every warning,
//!   information and hint.
//!
//! Errors are never suppressed, and configured severities apply only to
//! codes that are not errors by default: a program with an error cannot be
//! analysed or built, whatever the settings say.

use std::collections::HashMap;

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
    let all = lanes_db::file_diagnostics(db, file);
    let kept = filter(&ctx, all);
    let mut out: Vec<Diag> = kept.iter().filter_map(|d| to_diag(&ctx, d)).collect();
    out.sort_by_key(|d| (d.range.start, d.range.end, d.severity, d.code));
    out
}

/// Severities from the configuration, then suppression pragmas.
pub(crate) fn filter(ctx: &Ctx<'_>, diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let severities = ctx.db.config().severities(ctx.db).clone();
    let sup = Suppressions::of(ctx);
    diags
        .into_iter()
        .filter_map(|mut d| {
            if d.code.default_severity() != Severity::Error {
                if let Some(s) = severities.get(&d.code) {
                    d.severity = (*s)?;
                }
            }
            (!sup.suppresses(ctx, &d)).then_some(d)
        })
        .collect()
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

#[derive(Clone, Debug, PartialEq, Eq)]
enum Codes {
    List(Vec<Code>),
    /// ISPC's `warning(perf)`: performance and SIMD information.
    Perf,
    /// Every warning, information and hint.
    All,
}

impl Codes {
    fn matches(&self, code: Code) -> bool {
        match self {
            Codes::List(l) => l.contains(&code),
            Codes::Perf => {
                let n: u32 = code.as_str()[1..].parse().unwrap_or(0);
                (200..400).contains(&n)
            }
            Codes::All => true,
        }
    }
}

/// One suppression pragma: which codes, in which file, for which line
/// (`None`: the whole file).
#[derive(Clone, Debug)]
struct Suppression {
    file: FileId,
    /// 0-based line the pragma applies to; `None` for the whole file.
    line: Option<usize>,
    codes: Codes,
}

pub(crate) struct Suppressions(Vec<Suppression>);

/// The codes a pragma's text (`lanes ignore ( L0203 , L0202 )`, tokens
/// joined by spaces) suppresses, if it is a suppression.
fn parse_pragma(text: &str) -> Option<Codes> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '(' || c == ')' || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    match words.as_slice() {
        ["lanes", "ignore", rest @ ..] => {
            let codes: Vec<Code> = rest.iter().filter_map(|w| Code::from_str(w)).collect();
            (!codes.is_empty()).then_some(Codes::List(codes))
        }
        ["ignore", "warning"] | ["ignore", "warning", "all"] => Some(Codes::All),
        ["ignore", "warning", "perf"] => Some(Codes::Perf),
        _ => None,
    }
}

impl Suppressions {
    pub(crate) fn of(ctx: &Ctx<'_>) -> Suppressions {
        let unit = &ctx.parsed.unit;
        // The first token of each file: a pragma before it is file-wide.
        let mut first: HashMap<FileId, u32> = HashMap::new();
        for t in &unit.preprocessed.tokens {
            if t.kind == lanes_frontend::lexer::TokenKind::Eof {
                continue;
            }
            let e = first.entry(t.span.file).or_insert(t.span.start);
            *e = (*e).min(t.span.start);
        }
        let mut out = Vec::new();
        for p in &unit.preprocessed.pragmas {
            let Some(codes) = parse_pragma(&p.text) else {
                continue;
            };
            let f = p.span.file;
            if f.0 as usize >= unit.sources.len() {
                continue;
            }
            let src = unit.sources.get(f);
            let top = first.get(&f).is_none_or(|&s| p.span.start < s);
            let line = if top {
                None
            } else {
                Some(next_code_line(src, src.line_index(p.span.start)))
            };
            out.push(Suppression {
                file: f,
                line,
                codes,
            });
        }
        Suppressions(out)
    }

    pub(crate) fn suppresses(&self, ctx: &Ctx<'_>, d: &Diagnostic) -> bool {
        if d.severity == Severity::Error || self.0.is_empty() {
            return false;
        }
        let sources = &ctx.parsed.unit.sources;
        if d.span.file.0 as usize >= sources.len() {
            return false;
        }
        let line = sources.get(d.span.file).line_index(d.span.start);
        self.0.iter().any(|s| {
            s.file == d.span.file && s.codes.matches(d.code) && s.line.is_none_or(|l| l == line)
        })
    }
}

/// The first line after `line` that holds code: not blank, not only a
/// comment, not a directive (so that several pragmas can stack).
fn next_code_line(src: &lanes_frontend::source::SourceFile, line: usize) -> usize {
    let mut l = line + 1;
    while l < src.line_count() {
        let t = src.text.get(src.line_range(l)).unwrap_or("").trim_start();
        let skip = t.is_empty()
            || t.starts_with("//")
            || t.starts_with('#')
            || t.starts_with("/*")
            || t.starts_with('*');
        if !skip {
            return l;
        }
        l += 1;
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pragma_spellings() {
        assert_eq!(
            parse_pragma("lanes ignore ( L0203 )"),
            Some(Codes::List(vec![Code::Scatter]))
        );
        assert_eq!(
            parse_pragma("lanes ignore ( L0202 , L0204 )"),
            Some(Codes::List(vec![Code::Gather, Code::StridedAccess]))
        );
        assert_eq!(parse_pragma("ignore warning ( perf )"), Some(Codes::Perf));
        assert_eq!(parse_pragma("ignore warning"), Some(Codes::All));
        assert_eq!(parse_pragma("lanes ignore ( X )"), None);
        assert_eq!(parse_pragma("unroll 4"), None);
        assert!(Codes::Perf.matches(Code::DivergentBranch));
        assert!(Codes::Perf.matches(Code::Gather));
        assert!(!Codes::Perf.matches(Code::MacroRedefined));
        assert_eq!(doc_link(Code::Gather), "docs/diagnostics.md#l0202");
    }
}
