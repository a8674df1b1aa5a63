//! Code actions, as text edits of the file:
//! - *Guard with any()* on a divergent `if` without `else`: wraps it in
//!   `if (sub_group_any(c)) { ... }` (BOSCC: the SIMD group skips the
//!   masked body when no lane takes it). Offered when evaluating `c` twice
//!   is harmless (no assignment, increment, call of a user function or
//!   comma in it), and not inside such a guard already;
//! - *Suppress* a non-error diagnostic with `#pragma lanes ignore(CODE)` on
//!   the line before it (with that line's indentation), or for the file at
//!   its top;
//! - *Add fast path*: for a loop, branch or access with an inferred
//!   precondition `P` (`lanes_db::kernel_findings`), `if (sub_group_all(P))
//!   { <copy> } else { <original> }` around its statement; inside the copy
//!   the analysis assumes `P`, so the target's diagnostics are gone there.

use lanes_db::{Db, File};
use lanes_frontend::diag::{Code, Severity};
use lanes_frontend::hir::{Expr, ExprKind, Init, StmtKind};
use lanes_frontend::types::{Scalar, Type};

use super::context::{line_indent, stmts_in, Ctx};
use super::diagnostics::diagnostics;
use super::{TextEdit, TextRange};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKind {
    /// Fixes or silences a diagnostic (LSP `quickfix`).
    QuickFix,
    /// Restructures code (LSP `refactor.rewrite`).
    Rewrite,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeAction {
    pub title: String,
    pub kind: ActionKind,
    pub edits: Vec<TextEdit>,
    /// The diagnostic the action addresses (code and range), if any.
    pub diagnostic: Option<(Code, TextRange)>,
    pub preferred: bool,
}

/// The actions available for a range (usually the cursor or a diagnostic).
pub fn code_actions(db: &dyn Db, file: File, range: TextRange) -> Vec<CodeAction> {
    let ctx = Ctx::new(db, file);
    let mut out = Vec::new();
    // Only on current facts: a kernel with errors shows its last analysed
    // facts, but edits are not built on them.
    out.extend(guard_actions(&ctx, range));
    out.extend(fast_path_actions(&ctx, range));
    out.extend(suppress_actions(&ctx, db, file, range));
    out
}

/// Whether *Guard with any()* is offered for the `if` statement at `stmt`.
pub(crate) fn guard_offered(ctx: &Ctx<'_>, stmt: TextRange) -> bool {
    guard_actions(ctx, stmt)
        .iter()
        .any(|a| a.edits[0].range == stmt)
}

fn guard_actions(ctx: &Ctx<'_>, range: TextRange) -> Vec<CodeAction> {
    let text = ctx.text();
    // Only the functions overlapping `range` can hold an `if` that does.
    let stmts = stmts_in(ctx, range);
    let mut out: Vec<CodeAction> = Vec::new();
    for k in ctx.current_kernels_in(range) {
        let Some(r) = k.report() else { continue };
        // A branch already under `if (sub_group_any(c))` is guarded.
        let unguarded = |b: &&lanes_vectorizer::report::BranchFact| {
            b.divergent && !b.loop_exit && b.any_guard.is_none()
        };
        for b in r.branches.iter().filter(unguarded) {
            let Some(at) = ctx.range(b.span) else {
                continue;
            };
            // The `if` whose condition holds the branch.
            let Some(s) = stmts.iter().find(|s| match &s.kind {
                StmtKind::If { cond, .. } => ctx
                    .range(cond.span)
                    .is_some_and(|c| c.start <= at.start && at.end <= c.end),
                _ => false,
            }) else {
                continue;
            };
            let StmtKind::If { cond, els, .. } = &s.kind else {
                continue;
            };
            let Some(srange) = ctx.range(s.span) else {
                continue;
            };
            // An `else` would be skipped too when no lane takes the `if`.
            if els.is_some() || !srange.overlaps(range) || !pure(cond) {
                continue;
            }
            let Some(edit) = guard_edit(text, srange, cond) else {
                continue;
            };
            if out.iter().any(|a| a.edits == [edit.clone()]) {
                continue;
            }
            out.push(CodeAction {
                title: "Guard with any(): skip the branch when no lane takes it".to_string(),
                kind: ActionKind::Rewrite,
                edits: vec![edit],
                diagnostic: Some((Code::DivergentBranch, at)),
                preferred: false,
            });
        }
    }
    out
}

/// Whether evaluating the condition a second time changes nothing.
fn pure(e: &Expr) -> bool {
    let mut ok = true;
    visit(e, &mut |e| {
        if matches!(
            e.kind,
            ExprKind::Assign { .. }
                | ExprKind::CompoundAssign { .. }
                | ExprKind::IncDec { .. }
                | ExprKind::Call { .. }
                | ExprKind::Comma { .. }
                | ExprKind::Error
        ) {
            ok = false;
        }
    });
    ok
}

fn visit(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Unary { operand: x, .. }
        | ExprKind::IncDec { operand: x, .. }
        | ExprKind::Convert { expr: x, .. }
        | ExprKind::Member { base: x, .. }
        | ExprKind::Swizzle { base: x, .. }
        | ExprKind::Deref(x)
        | ExprKind::AddrOf(x) => visit(x, f),
        ExprKind::Binary { lhs, rhs, .. }
        | ExprKind::PtrDiff { lhs, rhs }
        | ExprKind::Logical { lhs, rhs, .. }
        | ExprKind::Assign { lhs, rhs }
        | ExprKind::CompoundAssign { lhs, rhs, .. }
        | ExprKind::Comma { lhs, rhs } => {
            visit(lhs, f);
            visit(rhs, f);
        }
        ExprKind::PtrAdd { ptr, offset, .. } => {
            visit(ptr, f);
            visit(offset, f);
        }
        ExprKind::Index { base, index } => {
            visit(base, f);
            visit(index, f);
        }
        ExprKind::Conditional { cond, then, els } | ExprKind::Select { cond, then, els } => {
            visit(cond, f);
            visit(then, f);
            visit(els, f);
        }
        ExprKind::Call { args, .. } | ExprKind::Builtin { args, .. } => {
            for a in args {
                visit(a, f);
            }
        }
        ExprKind::VectorConstruct { elems } => {
            for a in elems {
                visit(a, f);
            }
        }
        ExprKind::CompoundLiteral { init, .. } => visit_init(init, f),
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Error => {}
    }
}

fn visit_init(init: &Init, f: &mut dyn FnMut(&Expr)) {
    match init {
        Init::Expr(e) => visit(e, f),
        Init::List { elems, .. } => {
            for i in elems.iter().flatten() {
                visit_init(i, f);
            }
        }
    }
}

/// The edit that wraps the `if` statement at `stmt` (with condition
/// `cond`) in `if (sub_group_any(c)) { ... }`, re-indented one level.
fn guard_edit(text: &str, stmt: TextRange, cond: &Expr) -> Option<TextEdit> {
    // The checker wraps a scalar condition in a conversion to bool; the
    // source text is the operand's.
    let inner = match &cond.kind {
        ExprKind::Convert { expr, .. } => expr.as_ref(),
        _ => cond,
    };
    let ctext = text.get(inner.span.start as usize..inner.span.end as usize)?;
    if ctext.trim().is_empty() {
        return None;
    }
    // `sub_group_any` takes an `int`: narrower integers convert, anything
    // else is compared with zero as the `if` does.
    let int_like = matches!(
        inner.ty,
        Type::Scalar(
            Scalar::Bool
                | Scalar::Char
                | Scalar::UChar
                | Scalar::Short
                | Scalar::UShort
                | Scalar::Int
                | Scalar::UInt
        )
    );
    let arg = if int_like {
        ctext.to_string()
    } else {
        format!("({ctext}) != 0")
    };
    let body = text.get(stmt.start as usize..stmt.end as usize)?;
    let (_, indent) = line_indent(text, stmt.start);
    let unit = if indent.contains('\t') { "\t" } else { "    " };
    let mut inner_text = String::new();
    for (i, line) in body.split('\n').enumerate() {
        if i > 0 {
            inner_text.push('\n');
            if !line.trim().is_empty() {
                inner_text.push_str(unit);
            }
        }
        inner_text.push_str(line);
    }
    Some(TextEdit {
        range: stmt,
        new_text: format!("if (sub_group_any({arg})) {{\n{indent}{unit}{inner_text}\n{indent}}}"),
    })
}

/// *Add fast path*: `if (sub_group_all(P)) { <copy> } else { <original> }`
/// around the statement at `stmt`. The copy is where the analysis may
/// assume `P` (issue 6).
pub fn fast_path_edit(text: &str, stmt: TextRange, precondition: &str) -> Option<TextEdit> {
    let new_text = lanes_vectorizer::precond::specialize::fast_path(
        text,
        stmt.start as usize,
        stmt.end as usize,
        precondition,
    )?;
    Some(TextEdit {
        range: stmt,
        new_text,
    })
}

/// Loops, branches and accesses with an inferred precondition (once the
/// server has computed it): the action wraps the statement the inference
/// chose (the target's own statement, or the one that holds it).
fn fast_path_actions(ctx: &Ctx<'_>, range: TextRange) -> Vec<CodeAction> {
    use lanes_vectorizer::precond::Outcome;
    let text = ctx.text();
    let mut out: Vec<CodeAction> = Vec::new();
    for k in ctx.current_kernels_in(range) {
        let Some(found) = &k.findings else { continue };
        for f in found.iter() {
            let Outcome::Found(p) = &f.outcome else {
                continue;
            };
            let (Some(at), Some(stmt)) = (ctx.range(f.span), f.stmt.and_then(|s| ctx.range(s)))
            else {
                continue;
            };
            if !at.overlaps(range) {
                continue;
            }
            let Some(edit) = fast_path_edit(text, stmt, &p.lane) else {
                continue;
            };
            // Two targets of one statement (two accesses) give one action.
            if out.iter().any(|a| a.edits == [edit.clone()]) {
                continue;
            }
            out.push(CodeAction {
                title: format!("Add fast path: if (sub_group_all({}))", p.lane),
                kind: ActionKind::Rewrite,
                edits: vec![edit],
                diagnostic: Some((Code::FastPath, at)),
                preferred: true,
            });
        }
    }
    out
}

fn suppress_actions(ctx: &Ctx<'_>, db: &dyn Db, file: File, range: TextRange) -> Vec<CodeAction> {
    let text = ctx.text();
    let mut out: Vec<CodeAction> = Vec::new();
    for d in diagnostics(db, file) {
        if d.severity == Severity::Error || !d.range.overlaps(range) {
            continue;
        }
        // Only diagnostics of this file's own text (not of an included one).
        if d.message.starts_with("in included file") {
            continue;
        }
        let (line_start, indent) = line_indent(text, d.range.start);
        let code = d.code.as_str();
        let line_edit = TextEdit {
            range: TextRange::empty(line_start),
            new_text: format!("{indent}#pragma lanes ignore({code})\n"),
        };
        if !out.iter().any(|a| a.edits == [line_edit.clone()]) {
            out.push(CodeAction {
                title: format!("Suppress {code} on this line"),
                kind: ActionKind::QuickFix,
                edits: vec![line_edit],
                diagnostic: Some((d.code, d.range)),
                preferred: false,
            });
        }
        let file_edit = TextEdit {
            range: TextRange::empty(0),
            new_text: format!("#pragma lanes ignore({code})\n"),
        };
        if !out.iter().any(|a| a.edits == [file_edit.clone()]) {
            out.push(CodeAction {
                title: format!("Suppress {code} in this file"),
                kind: ActionKind::QuickFix,
                edits: vec![file_edit],
                diagnostic: Some((d.code, d.range)),
                preferred: false,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_path_wraps_and_indents() {
        let text = "void f() {\n    for (;;)\n        g();\n}\n";
        let s = text.find("for").unwrap() as u32;
        let e = text.find("g();").unwrap() as u32 + 4;
        let edit = fast_path_edit(text, TextRange::new(s, e), "x < n").unwrap();
        let out = super::super::apply_edits(text, &[edit]);
        assert_eq!(
            out,
            "void f() {\n    if (sub_group_all(x < n)) {\n        for (;;)\n            g();\n    } else {\n        for (;;)\n            g();\n    }\n}\n"
        );
    }
}
