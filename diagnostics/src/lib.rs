//! Protocol-independent presentation of what lanes finds: rendering of
//! diagnostics for terminals (rustc/clang style), JSON and SARIF 2.1.0,
//! and the IDE features ([`ide`]: diagnostics, hover, inlay hints, code
//! actions, ...) computed from the incremental database.

pub mod explain;
pub mod human;
pub mod ide;
pub mod json;
pub mod sarif;

use lanes_frontend::diag::Diagnostic;
use lanes_frontend::source::SourceMap;

/// 1-based line and column (in characters) of the start and end of a
/// diagnostic's primary span, and the file name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

pub fn position(sources: &SourceMap, span: lanes_frontend::source::Span) -> Position {
    let file = sources.get(span.file);
    let (line, col) = file.line_col(span.start);
    let (end_line, end_col) = file.line_col(span.end);
    Position {
        file: file.name.clone(),
        line,
        col,
        end_line,
        end_col,
    }
}

/// Diagnostics in reading order: by file, then position, errors first on ties.
pub fn sorted(diags: &[Diagnostic]) -> Vec<&Diagnostic> {
    let mut v: Vec<&Diagnostic> = diags.iter().collect();
    v.sort_by_key(|d| (d.span.file, d.span.start, d.severity, d.code));
    v
}

/// Counts of errors and warnings, for summaries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub errors: usize,
    pub warnings: usize,
}

pub fn count(diags: &[Diagnostic]) -> Counts {
    use lanes_frontend::diag::Severity;
    let mut c = Counts::default();
    for d in diags {
        match d.severity {
            Severity::Error => c.errors += 1,
            Severity::Warning => c.warnings += 1,
            _ => {}
        }
    }
    c
}
