//! Fast paths in the source: `if (sub_group_all(P)) { <copy> } else {
//! <original> }` around a statement. The *Add fast path* code action
//! inserts one with the readable P; `lanes build --specialize auto`
//! inserts one for every proven loop and access target with P evaluated in
//! `long` (so the check itself cannot overflow) and compiles that text.
//! Both sides compute the same values on every lane, so the results equal
//! the unspecialized program's for every group; inside the copy the
//! analyses assume P ([`super::assume`]).

use lanes_frontend::unit::CheckedUnit;
use smol_str::SmolStr;

use super::{infer, Options, Outcome, TargetKind};

/// One fast path inserted by [`specialize`].
#[derive(Clone, Debug, PartialEq)]
pub struct Applied {
    pub kernel: SmolStr,
    /// 1-based line of the wrapped statement in the original text.
    pub line: u32,
    /// The readable precondition (the inserted one is its `long` form).
    pub condition: String,
    pub kind: TargetKind,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Specialization {
    /// The main file's text with the fast paths inserted.
    pub text: String,
    pub applied: Vec<Applied>,
}

/// The text replacing `text[start..end]` (a statement) by a fast path on
/// `cond`: the copy and the original, both indented one level deeper than
/// the statement's line.
pub fn fast_path(text: &str, start: usize, end: usize, cond: &str) -> Option<String> {
    let body = text.get(start..end)?;
    let line_start = text[..start].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line = &text[line_start..];
    let indent = &line[..line.len() - line.trim_start_matches([' ', '\t']).len()];
    let unit = if indent.contains('\t') { "\t" } else { "    " };
    let indented: String = body
        .split('\n')
        .enumerate()
        .map(|(i, l)| {
            if i > 0 && !l.trim().is_empty() {
                format!("{unit}{l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    Some(format!(
        "if (sub_group_all({cond})) {{\n{indent}{unit}{indented}\n{indent}}} else {{\n{indent}{unit}{indented}\n{indent}}}"
    ))
}

/// Fast paths for every proven divergent loop and non-contiguous access
/// of every kernel of the main file (outermost first, never nested). The
/// caller re-checks the text and falls back to the original on errors.
pub fn specialize(unit: &CheckedUnit, opts: &Options) -> Specialization {
    let text = unit.sources.get(unit.main).text.to_string();
    let mut edits: Vec<(usize, usize, String, Applied)> = Vec::new();
    for k in unit.hir.kernels() {
        let Ok(ka) = crate::report::analyze_kernel(&unit.hir, k, opts.width) else {
            continue;
        };
        let name = unit.hir.function(k).name.clone();
        let mut found = infer(&ka, &unit.hir, k, opts);
        // Loops before accesses; larger statements first.
        found.sort_by_key(|f| {
            let len = f.stmt.map_or(0, |s| s.end - s.start);
            (f.kind, std::cmp::Reverse(len))
        });
        for f in found {
            let (Outcome::Found(p), Some(stmt)) = (&f.outcome, f.stmt) else {
                continue;
            };
            if f.kind == TargetKind::Branch || stmt.file != unit.main || p.exact.is_empty() {
                continue;
            }
            let (s, e) = (stmt.start as usize, stmt.end as usize);
            if edits.iter().any(|(a, b, ..)| s < *b && *a < e) {
                continue;
            }
            let Some(new) = fast_path(&text, s, e, &p.exact) else {
                continue;
            };
            let line = text[..s].matches('\n').count() as u32 + 1;
            edits.push((
                s,
                e,
                new,
                Applied {
                    kernel: name.clone(),
                    line,
                    condition: p.lane.clone(),
                    kind: f.kind,
                },
            ));
        }
    }
    edits.sort_by_key(|(s, ..)| *s);
    let mut out = String::with_capacity(text.len() * 2);
    let mut at = 0;
    let mut applied = Vec::new();
    for (s, e, new, a) in edits {
        out.push_str(&text[at..s]);
        out.push_str(&new);
        at = e;
        applied.push(a);
    }
    out.push_str(&text[at..]);
    Specialization { text: out, applied }
}
