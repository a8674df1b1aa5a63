//! Every name occurrence of a file, resolved: built from the checked HIR
//! (locals, globals, functions, fields), the AST (prototypes) and the
//! preprocessor's expansion table (macros). Go to definition, references,
//! rename, highlights and semantic tokens read it.

use std::collections::HashSet;

use lanes_frontend::ast::ItemKind;
use lanes_frontend::hir::{self, Expr, ExprKind, Init, StmtKind};
use lanes_frontend::source::Span;
use lanes_frontend::types::Type;
use smol_str::SmolStr;

use super::context::Ctx;
use super::TextRange;

/// What a name refers to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Sym {
    Local { func: u32, local: u32 },
    Global(u32),
    Function(u32),
    Struct(u32),
    Field { strukt: u32, field: u32 },
    Macro(SmolStr),
    Builtin(SmolStr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Role {
    /// Where the name is defined (declarator, function name, `#define`).
    Definition,
    /// Declared again without definition (a prototype).
    Declaration,
    Write,
    Read,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Occurrence {
    pub range: TextRange,
    pub sym: Sym,
    pub role: Role,
}

pub(crate) struct SymbolIndex {
    /// Occurrences in this file, sorted by start.
    pub occ: Vec<Occurrence>,
}

impl SymbolIndex {
    pub fn build(ctx: &Ctx<'_>) -> SymbolIndex {
        SymbolIndex::collect(ctx, None)
    }

    /// Only the occurrences touching `offset` (what a hover asks [`at`]
    /// and [`at_strict`]): the bodies of the other functions are not
    /// walked, so a hover costs the function it is in, not the file.
    ///
    /// [`at`]: SymbolIndex::at
    /// [`at_strict`]: SymbolIndex::at_strict
    pub fn around(ctx: &Ctx<'_>, offset: u32) -> SymbolIndex {
        SymbolIndex::collect(ctx, Some(TextRange::new(offset, offset)))
    }

    /// Only the occurrences touching `range` (the lines an editor shows).
    pub fn within(ctx: &Ctx<'_>, range: TextRange) -> SymbolIndex {
        SymbolIndex::collect(ctx, Some(range))
    }

    fn collect(ctx: &Ctx<'_>, near: Option<TextRange>) -> SymbolIndex {
        let mut b = Builder {
            ctx,
            near,
            out: Vec::new(),
        };
        b.run();
        let mut seen = HashSet::new();
        let mut occ: Vec<Occurrence> = b
            .out
            .into_iter()
            .filter(|o| seen.insert((o.range, o.sym.clone())))
            .collect();
        occ.sort_by_key(|o| (o.range.start, o.range.end, o.role));
        SymbolIndex { occ }
    }

    /// The occurrence at the cursor: the innermost one touching it,
    /// preferring a name that starts at the cursor (`a|+b`: neither, `|b`).
    pub fn at(&self, offset: u32) -> Option<&Occurrence> {
        self.occ
            .iter()
            .filter(|o| o.range.touches(offset))
            .min_by_key(|o| {
                (
                    o.range.end == offset && o.range.start != offset,
                    o.range.len(),
                )
            })
    }

    /// The innermost occurrence the cursor is strictly inside of.
    pub fn at_strict(&self, offset: u32) -> Option<&Occurrence> {
        self.occ
            .iter()
            .filter(|o| o.range.start <= offset && offset < o.range.end)
            .min_by_key(|o| o.range.len())
    }

    pub fn of<'a>(&'a self, sym: &'a Sym) -> impl Iterator<Item = &'a Occurrence> + 'a {
        self.occ.iter().filter(move |o| &o.sym == sym)
    }
}

/// Where a symbol is defined (any file).
pub(crate) fn definition(ctx: &Ctx<'_>, sym: &Sym) -> Option<Span> {
    let hir = &ctx.parsed.unit.hir;
    match sym {
        Sym::Local { func, local } => Some(
            hir.functions
                .get(*func as usize)?
                .locals
                .get(*local as usize)?
                .name_span,
        ),
        Sym::Global(g) => Some(hir.globals.get(*g as usize)?.name_span),
        Sym::Function(f) => Some(hir.functions.get(*f as usize)?.name_span),
        Sym::Struct(s) => Some(hir.structs.get(*s as usize)?.span),
        Sym::Field { strukt, field } => Some(
            hir.structs
                .get(*strukt as usize)?
                .fields
                .get(*field as usize)?
                .span,
        ),
        Sym::Macro(name) => ctx
            .parsed
            .unit
            .preprocessed
            .expansions
            .iter()
            .find(|e| &e.macro_name == name)
            .and_then(|e| e.definition),
        Sym::Builtin(_) => None,
    }
}

/// The name a symbol is spelled with.
pub(crate) fn name_of(ctx: &Ctx<'_>, sym: &Sym) -> SmolStr {
    let hir = &ctx.parsed.unit.hir;
    let n = match sym {
        Sym::Local { func, local } => hir
            .functions
            .get(*func as usize)
            .and_then(|f| f.locals.get(*local as usize))
            .map(|l| l.name.clone()),
        Sym::Global(g) => hir.globals.get(*g as usize).map(|g| g.name.clone()),
        Sym::Function(f) => hir.functions.get(*f as usize).map(|f| f.name.clone()),
        Sym::Struct(s) => hir.structs.get(*s as usize).map(|s| s.name.clone()),
        Sym::Field { strukt, field } => hir
            .structs
            .get(*strukt as usize)
            .and_then(|s| s.fields.get(*field as usize))
            .map(|f| f.name.clone()),
        Sym::Macro(n) | Sym::Builtin(n) => Some(n.clone()),
    };
    n.unwrap_or_default()
}

struct Builder<'a, 'db> {
    ctx: &'a Ctx<'db>,
    /// Keep only the occurrences touching this range.
    near: Option<TextRange>,
    out: Vec<Occurrence>,
}

impl Builder<'_, '_> {
    /// Records `name` at `span` when the text there is exactly the name
    /// (a name produced by a macro has the invocation's span instead).
    fn name_at(&mut self, span: Span, name: &str, sym: Sym, role: Role) {
        if self
            .near
            .is_some_and(|r| span.end < r.start || r.end < span.start)
        {
            return;
        }
        if self.ctx.range(span).is_some() && self.ctx.span_text(span) == name {
            self.out.push(Occurrence {
                range: TextRange::new(span.start, span.end),
                sym,
                role,
            });
        }
    }

    fn run(&mut self) {
        let hir = &self.ctx.parsed.unit.hir;
        let main = self.ctx.main();
        for (fi, pending) in hir.functions.iter().enumerate() {
            // Nothing of a function away from `near` is recorded: its body
            // is skipped and its names filtered out (below). Decided on its
            // places as they are now, without moving it.
            if let Some(r) = self.near {
                let base = pending.unmoved();
                let apart = |s: Span| {
                    let s = pending.current(s);
                    s.end < r.start || r.end < s.start
                };
                if base.span.file == main
                    && apart(base.span)
                    && apart(base.name_span)
                    && base.params.iter().all(|&p| apart(base.local(p).name_span))
                {
                    continue;
                }
            }
            let f: &lanes_frontend::hir::Function = pending;
            let fi = fi as u32;
            self.name_at(f.name_span, &f.name, Sym::Function(fi), Role::Definition);
            for &p in &f.params {
                let l = f.local(p);
                let sym = Sym::Local {
                    func: fi,
                    local: p.0,
                };
                self.name_at(l.name_span, &l.name, sym, Role::Definition);
            }
            // A body elsewhere in this file holds nothing touching `near`.
            let elsewhere = self.near.is_some_and(|r| {
                f.span.file == self.ctx.main() && (f.span.end < r.start || r.end < f.span.start)
            });
            if let Some(body) = f.body.as_ref().filter(|_| !elsewhere) {
                for s in &body.stmts {
                    self.stmt(fi, f, s);
                }
            }
        }
        for (gi, g) in hir.globals.iter().enumerate() {
            self.name_at(
                g.name_span,
                &g.name,
                Sym::Global(gi as u32),
                Role::Definition,
            );
        }
        for (si, s) in hir.structs.iter().enumerate() {
            let si = si as u32;
            self.name_at(s.span, &s.name, Sym::Struct(si), Role::Definition);
            for (fi, field) in s.fields.iter().enumerate() {
                let sym = Sym::Field {
                    strukt: si,
                    field: fi as u32,
                };
                self.name_at(field.span, &field.name, sym, Role::Definition);
            }
        }
        // Prototypes: the AST keeps each declaration's name.
        for item in &self.ctx.parsed.unit.ast.items {
            // An item away from `near` has its names inside it.
            let s = item.span();
            if self
                .near
                .is_some_and(|r| s.file == main && (s.end < r.start || r.end < s.start))
            {
                continue;
            }
            if let ItemKind::Function(f) = &item.kind {
                if let Some(fi) = hir.function_by_name(&f.name.name) {
                    let role = if f.body.is_some() {
                        Role::Definition
                    } else {
                        Role::Declaration
                    };
                    self.name_at(f.name.span, &f.name.name, Sym::Function(fi.0), role);
                }
            }
        }
        // Macros: definitions and the invocations written in this file
        // (also those inside another macro's arguments; an invocation made
        // by a macro body has no name of its own in the text, which
        // `name_at` checks).
        for e in &self.ctx.parsed.unit.preprocessed.expansions {
            let sym = Sym::Macro(e.macro_name.clone());
            if let Some(d) = e.definition {
                self.name_at(d, &e.macro_name, sym.clone(), Role::Definition);
            }
            let len = e.macro_name.len() as u32;
            let at = Span::new(e.call_site.file, e.call_site.start, e.call_site.start + len);
            self.name_at(at, &e.macro_name, sym, Role::Read);
        }
    }

    fn stmt(&mut self, fi: u32, f: &hir::Function, s: &hir::Stmt) {
        match &s.kind {
            StmtKind::Block(b) => {
                for s in &b.stmts {
                    self.stmt(fi, f, s);
                }
            }
            StmtKind::Decl { local, init } => {
                let l = f.local(*local);
                let sym = Sym::Local {
                    func: fi,
                    local: local.0,
                };
                self.name_at(l.name_span, &l.name, sym, Role::Definition);
                if let Some(init) = init {
                    self.init(fi, f, init);
                }
            }
            StmtKind::Expr(e) => self.expr(fi, f, e, false),
            StmtKind::If { cond, then, els } => {
                self.expr(fi, f, cond, false);
                self.stmt(fi, f, then);
                if let Some(e) = els {
                    self.stmt(fi, f, e);
                }
            }
            StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                self.expr(fi, f, cond, false);
                self.stmt(fi, f, body);
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                for s in init {
                    self.stmt(fi, f, s);
                }
                if let Some(c) = cond {
                    self.expr(fi, f, c, false);
                }
                if let Some(c) = step {
                    self.expr(fi, f, c, false);
                }
                self.stmt(fi, f, body);
            }
            StmtKind::Switch { cond, body } => {
                self.expr(fi, f, cond, false);
                for s in &body.stmts {
                    self.stmt(fi, f, s);
                }
            }
            StmtKind::Return(Some(e)) => self.expr(fi, f, e, false),
            StmtKind::Case(_)
            | StmtKind::Default
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(None) => {}
        }
    }

    fn init(&mut self, fi: u32, f: &hir::Function, init: &Init) {
        match init {
            Init::Expr(e) => self.expr(fi, f, e, false),
            Init::List { elems, .. } => {
                for i in elems.iter().flatten() {
                    self.init(fi, f, i);
                }
            }
        }
    }

    /// `write`: the expression is (part of) the target of an assignment.
    fn expr(&mut self, fi: u32, f: &hir::Function, e: &Expr, write: bool) {
        let role = if write { Role::Write } else { Role::Read };
        match &e.kind {
            ExprKind::Local(id) => {
                if let Some(l) = f.locals.get(id.0 as usize) {
                    let sym = Sym::Local {
                        func: fi,
                        local: id.0,
                    };
                    self.name_at(e.span, &l.name, sym, role);
                }
            }
            ExprKind::Global(id) => {
                let hir = &self.ctx.parsed.unit.hir;
                if let Some(g) = hir.globals.get(id.0 as usize) {
                    self.name_at(e.span, &g.name, Sym::Global(id.0), role);
                }
            }
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Error => {}
            ExprKind::Unary { operand, .. } => self.expr(fi, f, operand, false),
            ExprKind::Binary { lhs, rhs, .. }
            | ExprKind::PtrDiff { lhs, rhs }
            | ExprKind::Logical { lhs, rhs, .. }
            | ExprKind::Comma { lhs, rhs } => {
                self.expr(fi, f, lhs, false);
                self.expr(fi, f, rhs, false);
            }
            ExprKind::PtrAdd { ptr, offset, .. } => {
                self.expr(fi, f, ptr, false);
                self.expr(fi, f, offset, false);
            }
            ExprKind::Assign { lhs, rhs } | ExprKind::CompoundAssign { lhs, rhs, .. } => {
                self.expr(fi, f, lhs, true);
                self.expr(fi, f, rhs, false);
            }
            ExprKind::IncDec { operand, .. } => self.expr(fi, f, operand, true),
            ExprKind::Conditional { cond, then, els } | ExprKind::Select { cond, then, els } => {
                self.expr(fi, f, cond, false);
                self.expr(fi, f, then, false);
                self.expr(fi, f, els, false);
            }
            ExprKind::Call { func, args } => {
                let hir = &self.ctx.parsed.unit.hir;
                if let Some(callee) = hir.functions.get(func.0 as usize) {
                    let n = callee.name.len() as u32;
                    let at = Span::new(e.span.file, e.span.start, e.span.start + n);
                    self.name_at(at, &callee.name, Sym::Function(func.0), Role::Read);
                }
                for a in args {
                    self.expr(fi, f, a, false);
                }
            }
            ExprKind::Builtin { args, .. } => {
                let word = (e.span.file == self.ctx.main())
                    .then(|| ident_at(self.ctx.text(), e.span))
                    .flatten();
                if let Some((w, at)) = word {
                    if lanes_frontend::builtins::is_builtin_name(w) {
                        self.name_at(at, w, Sym::Builtin(SmolStr::from(w)), Role::Read);
                    }
                }
                for a in args {
                    self.expr(fi, f, a, false);
                }
            }
            ExprKind::VectorConstruct { elems } => {
                for a in elems {
                    self.expr(fi, f, a, false);
                }
            }
            ExprKind::CompoundLiteral { init, .. } => self.init(fi, f, init),
            ExprKind::Convert { expr, .. } => self.expr(fi, f, expr, false),
            ExprKind::Index { base, index } => {
                self.expr(fi, f, base, write);
                self.expr(fi, f, index, false);
            }
            ExprKind::Member { base, field } => {
                if let Type::Struct(sid) = &base.ty {
                    let hir = &self.ctx.parsed.unit.hir;
                    if let Some(fd) = hir
                        .structs
                        .get(sid.0 as usize)
                        .and_then(|s| s.fields.get(*field as usize))
                    {
                        let n = fd.name.len() as u32;
                        if e.span.end >= e.span.start + n {
                            let at = Span::new(e.span.file, e.span.end - n, e.span.end);
                            let sym = Sym::Field {
                                strukt: sid.0,
                                field: *field,
                            };
                            self.name_at(at, &fd.name, sym, role);
                        }
                    }
                }
                self.expr(fi, f, base, write);
            }
            ExprKind::Swizzle { base, .. } => self.expr(fi, f, base, write),
            ExprKind::Deref(x) | ExprKind::AddrOf(x) => self.expr(fi, f, x, false),
        }
    }
}

/// The identifier starting at a span's start, in this file's text.
fn ident_at(text: &str, span: Span) -> Option<(&str, Span)> {
    let s = span.start as usize;
    let rest = text.get(s..)?;
    let n = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
        .count();
    (n > 0).then(|| {
        (
            &rest[..n],
            Span::new(span.file, span.start, span.start + n as u32),
        )
    })
}
