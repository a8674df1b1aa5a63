//! Hover on a control-flow keyword (`for`, `while`, `do`, `if`, `else`,
//! `switch`, `break`, `continue`, `return`): whether the loop or branch is
//! divergent across the lanes of a SIMD group, why, how the vectorizer
//! runs it, and the fast path the precondition inference found for it.

use std::fmt::Write;

use lanes_frontend::hir::{Stmt, StmtKind, Unroll};
use lanes_frontend::source::Span;
use lanes_vectorizer::precond::TargetKind;
use lanes_vectorizer::report::{BranchFact, KernelReport, LoopFact};

use super::context::{stmts_in, Ctx, KernelView};
use super::hover::{chain, fast_path_text};
use super::TextRange;
use lanes_vectorizer::report::Step;

/// The keywords this hover explains.
const KEYWORDS: &[&str] = &[
    "for", "while", "do", "if", "else", "switch", "break", "continue", "return",
];

/// The hover on the control-flow keyword at `offset`, if the cursor is on one.
pub(crate) fn keyword_hover(
    ctx: &Ctx<'_>,
    kernels: &[KernelView<'_>],
    offset: u32,
) -> Option<(TextRange, String)> {
    let (word, range) = word_at(ctx.text(), offset)?;
    if !KEYWORDS.contains(&word) {
        return None;
    }
    // The statements of the function the keyword is in.
    let stmts = stmts_in(ctx, range);
    let (stmt, role) = stmts.iter().find_map(|s| role_of(ctx, s, word, range))?;
    let text = match role {
        Role::Loop => loop_text(ctx, kernels, stmt),
        Role::Branch { else_side } => branch_text(ctx, kernels, stmt, else_side),
        Role::Jump => jump_text(ctx, kernels, &stmts, stmt, word),
    };
    Some((range, text))
}

/// The identifier-like word around `offset` and its range.
fn word_at(text: &str, offset: u32) -> Option<(&str, TextRange)> {
    let bytes = text.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut start = (offset as usize).min(bytes.len());
    while start > 0 && ident(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = start;
    while end < bytes.len() && ident(bytes[end]) {
        end += 1;
    }
    (end > start && end >= offset as usize)
        .then(|| (&text[start..end], TextRange::new(start as u32, end as u32)))
}

#[derive(Clone, Copy)]
enum Role {
    Loop,
    Branch { else_side: bool },
    Jump,
}

/// What the keyword `word` at `at` is in statement `s`, if it belongs to it.
fn role_of<'a>(ctx: &Ctx<'_>, s: &'a Stmt, word: &str, at: TextRange) -> Option<(&'a Stmt, Role)> {
    let r = ctx.range(s.span)?;
    let starts = r.start == at.start;
    match (&s.kind, word) {
        (StmtKind::For { .. }, "for") | (StmtKind::While { .. }, "while") if starts => {
            Some((s, Role::Loop))
        }
        (StmtKind::DoWhile { .. }, "do") if starts => Some((s, Role::Loop)),
        // The `while` of `do ... while (c);`, after the body.
        (StmtKind::DoWhile { body, .. }, "while") => {
            let b = ctx.range(body.span)?;
            (b.end <= at.start && at.end <= r.end).then_some((s, Role::Loop))
        }
        (StmtKind::If { .. }, "if") | (StmtKind::Switch { .. }, "switch") if starts => {
            Some((s, Role::Branch { else_side: false }))
        }
        (
            StmtKind::If {
                then, els: Some(e), ..
            },
            "else",
        ) => {
            let t = ctx.range(then.span)?;
            let e = ctx.range(e.span)?;
            let between = ctx.text().get(t.end as usize..at.start as usize)?;
            (t.end <= at.start && at.end <= e.start && !between.contains("else"))
                .then_some((s, Role::Branch { else_side: true }))
        }
        (StmtKind::Break, "break")
        | (StmtKind::Continue, "continue")
        | (StmtKind::Return(_), "return")
            if starts =>
        {
            Some((s, Role::Jump))
        }
        _ => None,
    }
}

/// The reports of the kernels that analysed code of this file.
fn reports<'a>(kernels: &'a [KernelView<'_>]) -> impl Iterator<Item = &'a KernelReport> + 'a {
    kernels.iter().filter_map(|k| k.report())
}

/// Said when no kernel has a fact about the statement.
fn not_analysed(ctx: &Ctx<'_>, what: &str) -> String {
    if ctx.has_errors() {
        format!("{what}\n\n*not analysed: the file has errors*")
    } else {
        format!("{what}\n\n*not part of any analysed kernel*")
    }
}

fn loop_text(ctx: &Ctx<'_>, kernels: &[KernelView<'_>], stmt: &Stmt) -> String {
    let Some(range) = ctx.range(stmt.span) else {
        return String::new();
    };
    let facts: Vec<(&KernelReport, &LoopFact)> = reports(kernels)
        .flat_map(|r| r.loops.iter().map(move |l| (r, l)))
        .filter(|(_, l)| ctx.range(l.span) == Some(range))
        .collect();
    if facts.is_empty() {
        return not_analysed(ctx, "**loop**");
    }
    let mut s = String::new();
    for (r, l) in facts {
        if !s.is_empty() {
            s.push('\n');
        }
        if l.divergent {
            let _ = write!(
                s,
                "**divergent loop** in kernel `{}` ({} lanes): lanes leave it in different iterations (L0201).\n\nvectorized as a masked loop: the SIMD group iterates until its last lane is done; lanes that are done wait under the loop's mask.\n",
                r.name, r.width
            );
            if !l.reason.is_empty() {
                let _ = write!(s, "\n**why**:\n{}", short_chain(ctx, &l.reason));
            }
        } else {
            let _ = writeln!(
                s,
                "**uniform loop** in kernel `{}` ({} lanes): every lane leaves it in the same iteration (its exit conditions are the same across the lanes).\n\nvectorized with a uniform exit: one scalar branch for the whole SIMD group, no loop mask.",
                r.name, r.width
            );
        }
    }
    if let Some(u) = ctx.parsed.unit.hir.unroll(stmt.span) {
        let _ = write!(s, "\n{}\n", unroll_text(u));
    }
    with_fast_path(kernels, s, |f| {
        f.kind == TargetKind::Loop && ctx.range(f.span) == Some(range)
    })
}

/// What the loop's unrolling pragma asks of the code generator.
fn unroll_text(u: Unroll) -> String {
    let what = match u {
        Unroll::Enable => {
            "unrolled: fully when its trip count is a known constant, else as LLVM sees fit"
                .to_string()
        }
        Unroll::Full => "unrolled fully".to_string(),
        Unroll::Count(n) => format!("unrolled by {n}"),
        Unroll::Disable => "not unrolled".to_string(),
    };
    format!("**{what}** (its `#pragma`); each iteration runs a whole SIMD group.")
}

/// A reason chain cut to its first two and last two steps: the condition
/// and the source of the difference (the diagnostic has the whole chain).
fn short_chain(ctx: &Ctx<'_>, steps: &[Step]) -> String {
    if steps.len() <= 5 {
        return chain(ctx, steps);
    }
    let n = steps.len();
    format!(
        "{}- …\n{}",
        chain(ctx, &steps[..2]),
        chain(ctx, &steps[n - 2..])
    )
}

/// The branch facts of an `if` or `switch` statement: those whose source
/// is in its condition (`a && b` gives one branch per operand), or for a
/// `switch`, the statement itself.
fn branch_facts<'a>(
    ctx: &Ctx<'_>,
    kernels: &'a [KernelView<'_>],
    stmt: &Stmt,
) -> Vec<(&'a KernelReport, &'a BranchFact)> {
    let (cond, whole) = match &stmt.kind {
        StmtKind::If { cond, .. } => (cond.span, None),
        StmtKind::Switch { cond, .. } => (cond.span, ctx.range(stmt.span)),
        _ => return Vec::new(),
    };
    let Some(cond) = ctx.range(cond) else {
        return Vec::new();
    };
    reports(kernels)
        .flat_map(|r| r.branches.iter().map(move |b| (r, b)))
        .filter(|(_, b)| {
            ctx.range(b.span).is_some_and(|at| {
                (cond.start <= at.start && at.end <= cond.end) || Some(at) == whole
            })
        })
        .collect()
}

fn branch_text(ctx: &Ctx<'_>, kernels: &[KernelView<'_>], stmt: &Stmt, else_side: bool) -> String {
    let (cond, what) = match &stmt.kind {
        StmtKind::If { cond, .. } => (cond.span, "if"),
        StmtKind::Switch { cond, .. } => (cond.span, "switch"),
        _ => return String::new(),
    };
    let Some(crange) = ctx.range(cond) else {
        return String::new();
    };
    let facts = branch_facts(ctx, kernels, stmt);
    let title = if else_side {
        format!("`else` of the `if` at line {}", ctx.line_number(stmt.span))
    } else {
        format!("`{what}`")
    };
    if facts.is_empty() {
        return not_analysed(ctx, &format!("**{title}**"));
    }
    // One paragraph per kernel: the first divergent fact, else the first.
    let mut s = String::new();
    let mut seen: Vec<&str> = Vec::new();
    for &(r, _) in &facts {
        if seen.contains(&r.name.as_str()) {
            continue;
        }
        seen.push(r.name.as_str());
        let mine = facts.iter().filter(|(k, _)| k.name == r.name);
        let b = mine
            .clone()
            .find(|(_, b)| b.divergent)
            .or_else(|| mine.clone().next())
            .map(|(_, b)| *b);
        let Some(b) = b else { continue };
        if !s.is_empty() {
            s.push('\n');
        }
        let side = if else_side {
            "the `else` side runs for the lanes whose condition is false"
        } else {
            "lanes take different sides"
        };
        if b.divergent {
            let _ = writeln!(
                s,
                "**divergent branch** ({title}) in kernel `{}` ({} lanes): {side}, so both sides run under a mask{}.\n\nvectorized as {}",
                r.name,
                r.width,
                if b.any_guard.is_some() { "" } else { " (L0300)" },
                how_divergent(ctx, kernels, r, b, stmt)
            );
            if !b.reason.is_empty() {
                let _ = write!(s, "\n**why**:\n{}", short_chain(ctx, &b.reason));
            }
        } else {
            let _ = writeln!(
                s,
                "**uniform branch** ({title}) in kernel `{}` ({} lanes): every lane of the SIMD group goes the same way.\n\nvectorized as a scalar branch: the whole group jumps, no mask.",
                r.name, r.width
            );
        }
    }
    if !else_side {
        if let Some(note) = guard_note(ctx, stmt) {
            s = format!("{}\n\n{note}\n", s.trim_end());
        }
    }
    with_fast_path(kernels, s, |f| {
        f.kind == TargetKind::Branch
            && ctx
                .range(f.span)
                .is_some_and(|at| crange.start <= at.start && at.end <= crange.end)
    })
}

/// What an `if (sub_group_all(P))` or `if (sub_group_any(c))` is for.
fn guard_note(ctx: &Ctx<'_>, stmt: &Stmt) -> Option<String> {
    use lanes_frontend::hir::ExprKind;
    let StmtKind::If { cond, .. } = &stmt.kind else {
        return None;
    };
    let mut e = cond;
    while let ExprKind::Convert { expr, .. } = &e.kind {
        e = expr;
    }
    let ExprKind::Builtin { call, args } = &e.kind else {
        return None;
    };
    let arg = ctx.range(args.first()?.span)?;
    let text = ctx.text().get(arg.start as usize..arg.end as usize)?;
    match call.name().as_str() {
        "sub_group_all" => Some(format!(
            "A fast path's check: its body runs when every active lane satisfies `{text}`, and the analysis assumes that there (the `else` is the original)."
        )),
        "sub_group_any" => Some(format!(
            "A guard: the SIMD group skips its body when no active lane satisfies `{text}`."
        )),
        _ => None,
    }
}

/// How a divergent branch is vectorized: linearized under masks, with a
/// BOSCC skip when the vectorizer placed one, and the code action that
/// adds one by hand when none is there.
fn how_divergent(
    ctx: &Ctx<'_>,
    kernels: &[KernelView<'_>],
    r: &KernelReport,
    b: &BranchFact,
    stmt: &Stmt,
) -> String {
    if let Some(g) = b.any_guard {
        return format!(
            "masked code behind the `sub_group_any` guard at line {}: the group skips it when no lane takes it.",
            ctx.line_number(g)
        );
    }
    let boscc = kernels
        .iter()
        .filter(|k| k.name == r.name)
        .any(|k| has_boscc(ctx, k, b.span));
    if boscc {
        return "masked code with a BOSCC skip: the group first tests whether any lane takes the side and jumps over it when none does.".to_string();
    }
    let guard = ctx
        .range(stmt.span)
        .is_some_and(|at| super::actions::guard_offered(ctx, at));
    let mut s = "masked code: both sides run one after the other, each under its mask (no jump)."
        .to_string();
    if guard {
        s.push_str(" The code action *Guard with any()* skips the body when no lane takes it.");
    }
    s
}

/// Whether the vector IR of kernel `k` tests `any(mask)` before the branch
/// at `span` (a `boscc.branch` block from that branch).
fn has_boscc(ctx: &Ctx<'_>, k: &KernelView<'_>, span: Span) -> bool {
    let Some(vir) = lanes_db::kernel_vector_ir(ctx.db, k.kernel) else {
        return false;
    };
    let Ok(vf) = &vir.result else { return false };
    let map = lanes_db::span_map(ctx.db, k.kernel);
    let f = &vf.func;
    f.blocks.iter().enumerate().any(|(i, blk)| {
        blk.label == "boscc.branch"
            && f.terminator(lanes_vectorizer::ir::BlockId(i as u32))
                .is_some_and(|t| map.map(f.inst(t).src.span) == span)
    })
}

/// `break`, `continue` and `return`: what the jump leaves, and what it
/// means for the lanes that take it when the control around is divergent.
fn jump_text(
    ctx: &Ctx<'_>,
    kernels: &[KernelView<'_>],
    stmts: &[&Stmt],
    stmt: &Stmt,
    word: &str,
) -> String {
    let Some(at) = ctx.range(stmt.span) else {
        return String::new();
    };
    let around = |s: &&&Stmt| {
        ctx.range(s.span)
            .is_some_and(|r| r.start <= at.start && at.end <= r.end && r != at)
    };
    // The innermost enclosing statements (later in `stmts` is inner).
    let inner_loop = stmts.iter().filter(around).rev().find(|s| {
        matches!(
            s.kind,
            StmtKind::For { .. } | StmtKind::While { .. } | StmtKind::DoWhile { .. }
        ) || (word == "break" && matches!(s.kind, StmtKind::Switch { .. }))
    });
    // The divergent `if`s (or `switch`es) the jump is under.
    let divergent_ifs: Vec<&Stmt> = stmts
        .iter()
        .filter(around)
        .filter(|s| {
            branch_facts(ctx, kernels, s)
                .iter()
                .any(|(_, b)| b.divergent)
        })
        .copied()
        .collect();
    let mut s = format!("**`{word}`**");
    match (word, inner_loop) {
        ("return", _) => {
            s.push_str(": leaves the kernel.");
            if let Some(d) = divergent_ifs.last() {
                let _ = write!(
                    s,
                    "\n\nUnder the divergent branch at line {}: the lanes that return stay inactive for the rest of the kernel, so the code after it runs under a mask (its memory accesses are masked).",
                    ctx.line_number(d.span)
                );
            }
        }
        (_, Some(l)) => {
            let what = if matches!(l.kind, StmtKind::Switch { .. }) {
                "switch"
            } else {
                "loop"
            };
            let _ = write!(
                s,
                ": {} the {what} at line {}.",
                if word == "break" {
                    "leaves"
                } else {
                    "goes to the next iteration of"
                },
                ctx.line_number(l.span)
            );
            let lrange = ctx.range(l.span);
            let divergent_loop = reports(kernels)
                .flat_map(|r| r.loops.iter())
                .any(|f| f.divergent && ctx.range(f.span) == lrange);
            let under = divergent_ifs.iter().rev().find(|d| {
                ctx.range(d.span)
                    .is_some_and(|r| lrange.is_some_and(|l| l.start <= r.start))
            });
            if let Some(d) = under {
                let _ = write!(
                    s,
                    "\n\nUnder the divergent branch at line {}: only some lanes take it; they wait under a mask {}.",
                    ctx.line_number(d.span),
                    if word == "break" && what == "loop" {
                        "until the loop's last lane is done"
                    } else {
                        "while the others go on"
                    }
                );
            } else if divergent_loop && word == "break" {
                s.push_str("\n\nThe loop is divergent: lanes that leave early wait under a mask until its last lane is done.");
            }
        }
        _ => {}
    }
    s
}

/// `s` followed by the fast path of the targets `pick` selects (once the
/// inference has run).
fn with_fast_path(
    kernels: &[KernelView<'_>],
    s: String,
    pick: impl Fn(&lanes_vectorizer::precond::Finding) -> bool,
) -> String {
    let mut out = s.trim_end().to_string();
    let mut shown: Vec<String> = Vec::new();
    for k in kernels {
        let Some(found) = &k.findings else { continue };
        for f in found.iter().filter(|f| pick(f)) {
            let t = fast_path_text(f);
            if !shown.contains(&t) {
                let _ = write!(out, "\n\n---\n\n{t}");
                shown.push(t);
            }
        }
    }
    out
}
