//! Spelling SSA values in the kernel's own terms at a statement: a
//! variable that holds exactly that value and is in scope there, a
//! parameter, a work-item function, or an expression of those.

use lanes_frontend::hir::{self, StmtKind};
use lanes_frontend::source::Span;

use crate::ir::{BinOp, CastOp, Const, Function, InstKind, Ty, ValueDef, ValueId, WorkItem};

use super::linear::signed_const;

pub struct Namer<'a> {
    f: &'a Function,
    /// Spans that open a scope (blocks, `for` statements, the body).
    scopes: Vec<Span>,
    /// Where the name is used (the statement a fast path wraps); `None`
    /// spells values without scope checks (display only).
    at: Option<Span>,
}

impl<'a> Namer<'a> {
    pub fn new(f: &'a Function, unit: &hir::Unit, kernel: hir::FuncId, at: Option<Span>) -> Self {
        let mut scopes = Vec::new();
        if let Some(body) = &unit.function(kernel).body {
            scopes.push(body.span);
            for s in &body.stmts {
                collect_scopes(s, &mut scopes);
            }
        }
        Namer { f, scopes, at }
    }

    /// The variable holding exactly `v` (assigned once), if in scope.
    fn var_name(&self, v: ValueId) -> Option<String> {
        for var in &self.f.vars {
            if var.in_memory || var.values.len() != 1 || var.values[0] != v {
                continue;
            }
            if var.is_param {
                return Some(var.name.to_string());
            }
            let Some(at) = self.at else {
                return Some(var.name.to_string());
            };
            if var.span.file != at.file || var.span.start >= at.start {
                continue;
            }
            // The innermost scope of the declaration must contain `at`.
            let inner = self
                .scopes
                .iter()
                .filter(|s| {
                    s.file == var.span.file && s.start <= var.span.start && var.span.end <= s.end
                })
                .min_by_key(|s| s.end - s.start);
            if inner.is_some_and(|s| s.start <= at.start && at.end <= s.end) {
                return Some(var.name.to_string());
            }
        }
        None
    }

    /// `v` in C, or `None` when it has no spelling at `at`. `exact` widens
    /// leaves to `long` (for checks that must not overflow).
    pub fn name(&self, v: ValueId, exact: bool) -> Option<String> {
        self.spell(v, exact, 0)
    }

    fn spell(&self, v: ValueId, exact: bool, depth: u32) -> Option<String> {
        let f = self.f;
        let val = f.values.get(v.index())?;
        let widen = |s: String| {
            if exact && val.ty.bits() < 64 {
                format!("(long){s}")
            } else {
                s
            }
        };
        match &val.def {
            ValueDef::Const(Const::Int(c, t)) => return Some(signed_const(*c, *t).to_string()),
            ValueDef::Param(i) => {
                let p = f.params.get(*i as usize)?;
                if p.component.is_some() {
                    return None;
                }
                // A parameter assigned in the body has another value there.
                let reassigned = f
                    .vars
                    .iter()
                    .any(|var| var.is_param && var.name == p.name && var.values.len() > 1);
                return (!reassigned).then(|| widen(p.name.to_string()));
            }
            _ => {}
        }
        if let Some(n) = self.var_name(v) {
            return Some(widen(n));
        }
        if depth > 6 {
            return None;
        }
        let i = f.def_inst(v)?;
        match &f.inst(i).kind {
            InstKind::WorkItem { query, dim } => {
                let d = match dim.and_then(|d| f.as_const(d)) {
                    Some(Const::Int(c, _)) => c.to_string(),
                    None if dim.is_none() => String::new(),
                    _ => return None,
                };
                let call = format!("{}({d})", query.name());
                // size_t: compared with ints only after a cast.
                Some(match query {
                    WorkItem::SubGroupLocalId | WorkItem::SubGroupSize => call,
                    _ => format!("(long){call}"),
                })
            }
            InstKind::Bin { op, lhs, rhs } => {
                let sym = match op {
                    BinOp::Add => "+",
                    BinOp::Sub => "-",
                    BinOp::Mul => "*",
                    BinOp::SDiv => "/",
                    BinOp::SRem => "%",
                    BinOp::And => "&",
                    BinOp::Or => "|",
                    BinOp::Xor => "^",
                    BinOp::Shl => "<<",
                    BinOp::AShr => ">>",
                    _ => return None,
                };
                // Exact checks stay in the program's arithmetic for
                // anything but + - * (division and bit operations of the
                // widened values would differ).
                let inner_exact = exact && matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul);
                if exact && !inner_exact {
                    let a = self.spell(*lhs, false, depth + 1)?;
                    let b = self.spell(*rhs, false, depth + 1)?;
                    return Some(widen(format!("({a} {sym} {b})")));
                }
                let a = self.spell(*lhs, inner_exact, depth + 1)?;
                let b = self.spell(*rhs, inner_exact, depth + 1)?;
                Some(format!("({a} {sym} {b})"))
            }
            InstKind::Cast {
                op: CastOp::SExt | CastOp::ZExt,
                value,
            } => {
                let inner = self.spell(*value, exact, depth + 1)?;
                if exact || f.ty(*value) == Ty::I1 {
                    Some(inner)
                } else {
                    Some(format!("({}){inner}", c_type(val.ty)?))
                }
            }
            InstKind::Cast {
                op: CastOp::Trunc,
                value,
            } => {
                let inner = self.spell(*value, false, depth + 1)?;
                Some(widen(format!("({}){inner}", c_type(val.ty)?)))
            }
            _ => None,
        }
    }
}

fn c_type(t: Ty) -> Option<&'static str> {
    Some(match t {
        Ty::I8 => "char",
        Ty::I16 => "short",
        Ty::I32 => "int",
        Ty::I64 => "long",
        _ => return None,
    })
}

fn collect_scopes(s: &hir::Stmt, out: &mut Vec<Span>) {
    match &s.kind {
        StmtKind::Block(b) => {
            out.push(b.span);
            b.stmts.iter().for_each(|x| collect_scopes(x, out));
        }
        StmtKind::If { then, els, .. } => {
            collect_scopes(then, out);
            if let Some(e) = els {
                collect_scopes(e, out);
            }
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => collect_scopes(body, out),
        StmtKind::For { init, body, .. } => {
            out.push(s.span);
            init.iter().for_each(|x| collect_scopes(x, out));
            collect_scopes(body, out);
        }
        StmtKind::Switch { body, .. } => {
            out.push(body.span);
            body.stmts.iter().for_each(|x| collect_scopes(x, out));
        }
        _ => {}
    }
}

/// The statement a fast path for a target at `span` wraps: the loop
/// statement of a loop, the `if` of a branch, the smallest expression
/// statement, `if` or loop around an access.
pub fn statement(
    unit: &hir::Unit,
    kernel: hir::FuncId,
    span: Span,
    kind: super::TargetKind,
) -> Option<Span> {
    let body = unit.function(kernel).body.as_ref()?;
    let mut best: Option<Span> = None;
    for s in &body.stmts {
        find_stmt(s, span, kind, &mut best);
    }
    best
}

fn contains(outer: Span, inner: Span) -> bool {
    outer.file == inner.file && outer.start <= inner.start && inner.end <= outer.end
}

fn find_stmt(s: &hir::Stmt, span: Span, kind: super::TargetKind, best: &mut Option<Span>) {
    use super::TargetKind as K;
    if !contains(s.span, span) {
        return;
    }
    let fits = match (&s.kind, kind) {
        (StmtKind::For { .. } | StmtKind::While { .. } | StmtKind::DoWhile { .. }, K::Loop) => {
            // The loop statement itself (its span is the target's).
            s.span.start == span.start || contains(span, s.span)
        }
        (StmtKind::If { cond, .. }, K::Branch) => contains(cond.span, span) || cond.span == span,
        (
            StmtKind::If { .. }
            | StmtKind::For { .. }
            | StmtKind::While { .. }
            | StmtKind::DoWhile { .. }
            | StmtKind::Expr(_),
            K::Access,
        ) => true,
        _ => false,
    };
    if fits && best.is_none_or(|b| contains(b, s.span)) {
        *best = Some(s.span);
    }
    match &s.kind {
        StmtKind::Block(b) => b.stmts.iter().for_each(|x| find_stmt(x, span, kind, best)),
        StmtKind::If { then, els, .. } => {
            find_stmt(then, span, kind, best);
            if let Some(e) = els {
                find_stmt(e, span, kind, best);
            }
        }
        StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
            find_stmt(body, span, kind, best)
        }
        StmtKind::For { body, .. } => find_stmt(body, span, kind, best),
        StmtKind::Switch { body, .. } => body
            .stmts
            .iter()
            .for_each(|x| find_stmt(x, span, kind, best)),
        _ => {}
    }
}
