//! Fast paths in the source: `if (sub_group_all(P)) { <copy> } else {
//! <original> }` around a statement. The *Add fast path* code action
//! inserts one with the readable P; `lanes build --specialize auto`
//! inserts one for every proven loop, access and branch target with P
//! evaluated in `long` (so the check itself cannot overflow) and compiles
//! that text. Accesses with the same P share one fast path around the
//! statements that hold them and compute their indices.
//! Both sides compute the same values on every lane, so the results equal
//! the unspecialized program's for every group; inside the copy the
//! analyses assume P ([`super::assume`]).

use rustc_hash::FxHashSet;

use lanes_frontend::hir::{self, StmtKind};
use lanes_frontend::source::Span;
use lanes_frontend::unit::CheckedUnit;
use smol_str::SmolStr;

use super::{Options, Outcome, TargetKind};

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
    Some(wrap(text, start, body, cond))
}

/// [`fast_path`] for `body`, the text at `start` (with its own fast paths
/// inserted, possibly).
fn wrap(text: &str, start: usize, body: &str, cond: &str) -> String {
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
    format!(
        "if (sub_group_all({cond})) {{\n{indent}{unit}{indented}\n{indent}}} else {{\n{indent}{unit}{indented}\n{indent}}}"
    )
}

/// One fast path to insert.
struct Edit {
    start: usize,
    end: usize,
    cond: String,
    applied: Applied,
}

/// `text[lo..hi]` with the fast paths of `edits` inside it inserted
/// (inner ones inside the copies of outer ones).
fn render(text: &str, lo: usize, hi: usize, edits: &[&Edit]) -> String {
    let inside: Vec<&Edit> = edits
        .iter()
        .copied()
        .filter(|e| lo <= e.start && e.end <= hi && (e.start, e.end) != (lo, hi))
        .collect();
    let mut top: Vec<&Edit> = inside
        .iter()
        .copied()
        .filter(|e| {
            !inside.iter().any(|o| {
                o.start <= e.start && e.end <= o.end && (o.start, o.end) != (e.start, e.end)
            })
        })
        .collect();
    top.sort_by_key(|e| e.start);
    let mut out = String::new();
    let mut at = lo;
    for e in top {
        out.push_str(&text[at..e.start]);
        let body = render(text, e.start, e.end, &inside);
        out.push_str(&wrap(text, e.start, &body, &e.cond));
        at = e.end;
    }
    out.push_str(&text[at..hi]);
    out
}

/// Where a target is: the innermost block holding it and the index of the
/// statement of that block that contains it.
fn locate(block: &hir::Block, span: Span) -> Option<(&hir::Block, usize)> {
    let inside =
        |outer: Span| outer.file == span.file && outer.start <= span.start && span.end <= outer.end;
    let idx = block.stmts.iter().position(|s| inside(s.span))?;
    fn deeper(st: &hir::Stmt) -> Vec<&hir::Block> {
        fn block_of(x: &hir::Stmt) -> Option<&hir::Block> {
            match &x.kind {
                StmtKind::Block(b) => Some(b),
                _ => None,
            }
        }
        match &st.kind {
            StmtKind::Block(b) => vec![b],
            StmtKind::If { then, els, .. } => block_of(then)
                .into_iter()
                .chain(els.as_deref().and_then(block_of))
                .collect(),
            StmtKind::While { body, .. }
            | StmtKind::DoWhile { body, .. }
            | StmtKind::For { body, .. } => block_of(body).into_iter().collect(),
            _ => Vec::new(),
        }
    }
    for b in deeper(&block.stmts[idx]) {
        if inside(b.span) {
            if let Some(r) = locate(b, span) {
                return Some(r);
            }
        }
    }
    Some((block, idx))
}

/// `s` returns (a fast path around an early exit does not help the code
/// after it).
fn returns(s: &hir::Stmt) -> bool {
    match &s.kind {
        StmtKind::Return(_) => true,
        StmtKind::Block(b) => b.stmts.iter().any(returns),
        StmtKind::If { then, els, .. } => returns(then) || els.as_deref().is_some_and(returns),
        StmtKind::While { body, .. }
        | StmtKind::DoWhile { body, .. }
        | StmtKind::For { body, .. } => returns(body),
        StmtKind::Switch { body, .. } => body.stmts.iter().any(returns),
        _ => false,
    }
}

/// The text range of statement `i` of `block`: a declaration's span
/// starts at its declarator, so the type before it on the line is taken
/// too, and the `;` after it. `None` where that is not plain (several
/// declarators, a type on another line).
fn stmt_range(text: &str, block: &hir::Block, i: usize) -> Option<(usize, usize)> {
    let st = &block.stmts[i];
    let (mut s, mut e) = (st.span.start as usize, st.span.end as usize);
    if !matches!(st.kind, StmtKind::Decl { .. }) {
        return Some((s, e));
    }
    let line = text[..s].rfind('\n').map_or(0, |i| i + 1);
    let head = text.get(line..s)?;
    let ty = head.trim_start();
    if ty.is_empty()
        || !ty
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ' ' || c == '\t' || c == '*')
    {
        return None;
    }
    s = line + (head.len() - ty.len());
    if !text.get(..e)?.ends_with(';') {
        let rest = text.get(e..)?;
        let k = rest.find(|c: char| !c.is_whitespace())?;
        if !rest[k..].starts_with(';') {
            return None;
        }
        e += k + 1;
    }
    Some((s, e))
}

/// The identifiers of C text.
fn idents(text: &str) -> FxHashSet<&str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| {
            w.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        })
        .collect()
}

/// The statements `lo..=hi` of `block` grown so that they can be wrapped
/// in a fast path checking `cond`: the declarations just before them that
/// they use (so that the computation of an index, `tid % step`, is in the
/// guarded region where [`super::assume`] can decide it), unless `cond`
/// names the variable; and the statements after them that use a variable
/// they declare (a declaration cannot move into braces).
fn extend(
    text: &str,
    func: &hir::Function,
    block: &hir::Block,
    mut lo: usize,
    mut hi: usize,
    cond: &str,
) -> (usize, usize) {
    let slice = |a: usize, b: usize| -> &str {
        let s = stmt_range(text, block, a).map_or(block.stmts[a].span.start, |r| r.0 as u32);
        let e = stmt_range(text, block, b).map_or(block.stmts[b].span.end, |r| r.1 as u32);
        text.get(s as usize..e as usize).unwrap_or("")
    };
    let declared = |st: &hir::Stmt| match &st.kind {
        StmtKind::Decl { local, .. } => Some(func.local(*local).name.to_string()),
        _ => None,
    };
    let in_cond = idents(cond)
        .into_iter()
        .map(str::to_string)
        .collect::<FxHashSet<String>>();
    loop {
        let (lo0, hi0) = (lo, hi);
        // Backward: consecutive declarations not named in the condition,
        // then drop leading ones nothing after them uses.
        let mut start = lo;
        while start > 0 && declared(&block.stmts[start - 1]).is_some_and(|n| !in_cond.contains(&n))
        {
            start -= 1;
        }
        while start < lo {
            let n = declared(&block.stmts[start]).unwrap_or_default();
            if idents(slice(start + 1, hi)).contains(n.as_str()) {
                break;
            }
            start += 1;
        }
        lo = start;
        // Forward: later uses of what the statements declare.
        let names: Vec<String> = (lo..=hi)
            .filter_map(|i| declared(&block.stmts[i]))
            .collect();
        for j in (hi + 1..block.stmts.len()).rev() {
            let used = idents(slice(j, j));
            if names.iter().any(|n| used.contains(n.as_str())) {
                hi = j;
                break;
            }
        }
        if (lo, hi) == (lo0, hi0) {
            return (lo, hi);
        }
    }
}

/// Fast paths for every proven divergent loop, non-contiguous access and
/// divergent branch (not an early exit) of every kernel of the main file,
/// never nested: loops first, then accesses, then branches, larger
/// statements first. Targets with the same condition in one block share
/// one fast path around the statements that hold them (see [`extend`]).
/// The caller re-checks the text and falls back to the original on errors.
pub fn specialize(unit: &CheckedUnit, opts: &Options) -> Specialization {
    // The kernels share the file's budget, in file order.
    let mut meter = super::Meter::new(&opts.budget);
    let found: Vec<(hir::FuncId, Vec<super::Finding>)> = unit
        .hir
        .kernels()
        .into_iter()
        .filter_map(|k| {
            let ka = crate::report::analyze_kernel(&unit.hir, k, opts.width).ok()?;
            Some((k, super::infer_with(&ka, &unit.hir, k, opts, &mut meter)))
        })
        .collect();
    specialize_found(unit, found.iter().map(|(k, f)| (*k, f.as_slice())))
}

/// [`specialize`] with the findings of each kernel already inferred (by
/// the one pipeline, lanes-pipeline, as `lanes build` runs it).
pub fn specialize_found<'f>(
    unit: &CheckedUnit,
    found: impl IntoIterator<Item = (hir::FuncId, &'f [super::Finding])>,
) -> Specialization {
    let text = unit.sources.get(unit.main).text.to_string();
    let mut edits: Vec<Edit> = Vec::new();
    for (k, found) in found {
        let func = unit.hir.function(k);
        let Some(body) = &func.body else { continue };
        // Groups: (rank, condition, readable condition, kind, block, lo, hi).
        struct Group<'b> {
            rank: u8,
            exact: String,
            lane: String,
            kind: TargetKind,
            block: &'b hir::Block,
            lo: usize,
            hi: usize,
        }
        let mut groups: Vec<Group<'_>> = Vec::new();
        for f in found {
            let Outcome::Found(p) = &f.outcome else {
                continue;
            };
            let span = f.stmt.unwrap_or(f.span);
            if p.exact.is_empty() || span.file != unit.main {
                continue;
            }
            if f.kind != TargetKind::Access && f.stmt.is_none() {
                continue;
            }
            let Some((block, idx)) = locate(body, span) else {
                continue;
            };
            if f.kind == TargetKind::Branch && returns(&block.stmts[idx]) {
                continue;
            }
            let rank = match f.kind {
                TargetKind::Loop => 0,
                TargetKind::Access => 1,
                TargetKind::Branch => 2,
            };
            match groups
                .iter_mut()
                .find(|g| g.exact == p.exact && std::ptr::eq(g.block, block))
            {
                Some(g) => {
                    g.lo = g.lo.min(idx);
                    g.hi = g.hi.max(idx);
                    if rank < g.rank {
                        g.rank = rank;
                        g.kind = f.kind;
                    }
                }
                None => groups.push(Group {
                    rank,
                    exact: p.exact.clone(),
                    lane: p.lane.clone(),
                    kind: f.kind,
                    block,
                    lo: idx,
                    hi: idx,
                }),
            }
        }
        let mut spans: Vec<(u8, usize, usize, &Group<'_>)> = groups
            .iter()
            .filter_map(|g| {
                let (lo, hi) = extend(&text, func, g.block, g.lo, g.hi, &g.exact);
                let s = stmt_range(&text, g.block, lo)?.0;
                let e = stmt_range(&text, g.block, hi)?.1;
                // Never around a barrier or collective: the check differs
                // across the SIMD groups of a work-group.
                let sync = ["barrier", "work_group_", "wait_group_events"];
                if sync.iter().any(|w| text[s..e].contains(w)) {
                    return None;
                }
                Some((g.rank, s, e, g))
            })
            .collect();
        spans.sort_by_key(|&(rank, s, e, _)| (rank, std::cmp::Reverse(e - s)));
        for (_, s, e, g) in spans {
            // Disjoint, or nested at most two deep (a branch around an
            // access's fast path); never the same statement twice.
            let clash = edits.iter().any(|x| {
                let nested = (x.start <= s && e <= x.end) || (s <= x.start && x.end <= e);
                (s < x.end && x.start < e && !nested) || (x.start, x.end) == (s, e)
            });
            let depth = edits
                .iter()
                .filter(|x| (x.start <= s && e <= x.end) || (s <= x.start && x.end <= e))
                .count();
            // Inside a fast path on the same condition it holds already.
            let redundant = edits
                .iter()
                .any(|x| x.start <= s && e <= x.end && x.cond == g.exact);
            if clash || depth >= 2 || redundant {
                continue;
            }
            let line = text[..s].matches('\n').count() as u32 + 1;
            edits.push(Edit {
                start: s,
                end: e,
                cond: g.exact.clone(),
                applied: Applied {
                    kernel: func.name.clone(),
                    line,
                    condition: g.lane.clone(),
                    kind: g.kind,
                },
            });
        }
    }
    edits.sort_by_key(|e| e.start);
    let all: Vec<&Edit> = edits.iter().collect();
    let out = render(&text, 0, text.len(), &all);
    let applied = edits.iter().map(|e| e.applied.clone()).collect();
    Specialization { text: out, applied }
}
