//! `lanes check --format json`: one JSON object with every diagnostic and a summary.

use lanes_frontend::diag::Diagnostic;
use lanes_frontend::source::SourceMap;
use serde::Serialize;

#[derive(Serialize)]
pub struct Report {
    pub diagnostics: Vec<JsonDiagnostic>,
    pub summary: Summary,
}

#[derive(Serialize)]
pub struct Summary {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
}

#[derive(Serialize)]
pub struct JsonDiagnostic {
    pub file: String,
    pub code: &'static str,
    pub severity: &'static str,
    pub message: String,
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    pub end_col: u32,
    /// Text attached to the primary location (may be empty).
    pub label: String,
    pub related: Vec<JsonRelated>,
    pub notes: Vec<String>,
}

#[derive(Serialize)]
pub struct JsonRelated {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    pub end_col: u32,
    pub message: String,
}

pub fn diagnostic(sources: &SourceMap, d: &Diagnostic) -> JsonDiagnostic {
    let p = crate::position(sources, d.span);
    JsonDiagnostic {
        file: p.file,
        code: d.code.as_str(),
        severity: d.severity.as_str(),
        message: d.message.clone(),
        line: p.line,
        col: p.col,
        end_line: p.end_line,
        end_col: p.end_col,
        label: d.label.clone(),
        related: d
            .related
            .iter()
            .map(|r| {
                let p = crate::position(sources, r.span);
                JsonRelated {
                    file: p.file,
                    line: p.line,
                    col: p.col,
                    end_line: p.end_line,
                    end_col: p.end_col,
                    message: r.message.clone(),
                }
            })
            .collect(),
        notes: d.notes.clone(),
    }
}

/// The report for several checked files, each with its own source map.
pub fn report<'a>(units: impl IntoIterator<Item = (&'a SourceMap, &'a [Diagnostic])>) -> Report {
    let mut diagnostics = Vec::new();
    let mut files = 0;
    let mut counts = crate::Counts::default();
    for (sources, diags) in units {
        files += 1;
        let c = crate::count(diags);
        counts.errors += c.errors;
        counts.warnings += c.warnings;
        diagnostics.extend(
            crate::sorted(diags)
                .into_iter()
                .map(|d| diagnostic(sources, d)),
        );
    }
    Report {
        diagnostics,
        summary: Summary {
            files,
            errors: counts.errors,
            warnings: counts.warnings,
        },
    }
}
