//! Suppression pragmas and configured severities: what every face of lanes
//! (`lanes check` in every format, `lanes explain`, the editor) applies to a
//! file's diagnostics before showing them (DESIGN §2, docs/diagnostics.md).
//!
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

use std::collections::{BTreeMap, HashMap};

use crate::diag::{Code, Diagnostic, Severity};
use crate::source::{FileId, SourceMap};
use crate::unit::CheckedUnit;

/// Configured severities: a code's new severity, `None` for off.
pub type Severities = BTreeMap<Code, Option<Severity>>;

/// `diags` of `unit` with the configured severities, without the codes
/// turned off and without what the unit's pragmas suppress.
pub fn filter(
    unit: &CheckedUnit,
    diags: Vec<Diagnostic>,
    severities: &Severities,
) -> Vec<Diagnostic> {
    let sup = Suppressions::of(unit);
    diags
        .into_iter()
        .filter_map(|d| sup.apply(&unit.sources, severities, d))
        .collect()
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
#[derive(Clone, Debug, PartialEq, Eq)]
struct Suppression {
    file: FileId,
    /// 0-based line the pragma applies to; `None` for the whole file.
    line: Option<usize>,
    codes: Codes,
}

/// A unit's suppression pragmas (equal for two units whose pragmas
/// suppress the same codes on the same lines).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suppressions(Vec<Suppression>);

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
    pub fn of(unit: &CheckedUnit) -> Suppressions {
        // Most files have none: no walk over every token then.
        if !unit
            .preprocessed
            .pragmas
            .iter()
            .any(|p| parse_pragma(&p.text).is_some())
        {
            return Suppressions(Vec::new());
        }
        // The first token of each file: a pragma before it is file-wide.
        let mut first: HashMap<FileId, u32> = HashMap::new();
        for t in &unit.preprocessed.tokens {
            if t.kind == crate::lexer::TokenKind::Eof {
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

    /// The last line of `file` that a pragma suppresses diagnostics on
    /// alone (`None`: no such pragma; pragmas for the whole file apply on
    /// every line).
    pub fn last_line(&self, file: FileId) -> Option<usize> {
        self.0
            .iter()
            .filter(|s| s.file == file)
            .filter_map(|s| s.line)
            .max()
    }

    /// `d` with its configured severity, or `None` when the configuration
    /// turns it off or a pragma suppresses it: what [`filter`] does to each
    /// diagnostic.
    pub fn apply(
        &self,
        sources: &SourceMap,
        severities: &Severities,
        mut d: Diagnostic,
    ) -> Option<Diagnostic> {
        if d.code.default_severity() != Severity::Error {
            if let Some(s) = severities.get(&d.code) {
                d.severity = (*s)?;
            }
        }
        (!self.suppresses(sources, &d)).then_some(d)
    }

    /// Whether a pragma suppresses `d` (never an error).
    pub fn suppresses(&self, sources: &SourceMap, d: &Diagnostic) -> bool {
        if d.severity == Severity::Error || self.0.is_empty() {
            return false;
        }
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
fn next_code_line(src: &crate::source::SourceFile, line: usize) -> usize {
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
    }
}
