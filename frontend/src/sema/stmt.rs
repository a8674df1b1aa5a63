//! Statements, local declarations and initializers.

use super::consteval::cast_value;
use super::conv::ConvCtx;
use super::{Checker, SwitchCtx, Sym};
use crate::ast::{self, AddressSpace, Derived, Storage};
use crate::diag::{Code, Diagnostic};
use crate::hir::{self, Block, Expr, Init, LocalId, Stmt, StmtKind};
use crate::source::Span;
use crate::types::{Scalar, Type};

/// Brace-initialized arrays larger than this are refused (they would be
/// private arrays of that size, and the HIR lists every element).
const MAX_LIST_ELEMENTS: u64 = 1 << 16;

impl Checker<'_> {
    /// A block whose scope was already pushed (a function body shares the
    /// scope of the parameters).
    pub(crate) fn block_in_current_scope(&mut self, b: &ast::Block) -> Block {
        let mut stmts = Vec::with_capacity(b.stmts.len());
        for s in &b.stmts {
            self.stmt(s, &mut stmts);
        }
        Block {
            stmts,
            span: b.span,
            node: b.id,
        }
    }

    fn block(&mut self, b: &ast::Block) -> Block {
        self.push_scope();
        let r = self.block_in_current_scope(b);
        self.pop_scope();
        r
    }

    /// A sub-statement (of `if`, loops): its own scope, one HIR statement.
    fn sub_stmt(&mut self, s: &ast::Stmt) -> Box<Stmt> {
        self.push_scope();
        let mut v = Vec::new();
        self.stmt(s, &mut v);
        self.pop_scope();
        if v.len() == 1 {
            if let Some(one) = v.pop() {
                return Box::new(one);
            }
        }
        Box::new(Stmt {
            kind: StmtKind::Block(Block {
                stmts: v,
                span: s.span,
                node: s.id,
            }),
            span: s.span,
            node: s.id,
        })
    }

    /// Checks a statement, appending its HIR (zero or more statements: a
    /// declaration gives one per declarator, a `case` label two) to `out`.
    pub(crate) fn stmt(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) {
        if !self.enter(s.span) {
            return;
        }
        self.stmt_inner(s, out);
        self.leave();
    }

    fn stmt_inner(&mut self, s: &ast::Stmt, out: &mut Vec<Stmt>) {
        let mk = |kind| Stmt {
            kind,
            span: s.span,
            node: s.id,
        };
        use ast::StmtKind as K;
        match &s.kind {
            K::Block(b) => {
                let b = self.block(b);
                out.push(mk(StmtKind::Block(b)));
            }
            K::Decl(d) => self.local_declaration(d, out),
            K::Expr(e) => {
                let v = self.expr(e);
                if !v.is_error() {
                    out.push(mk(StmtKind::Expr(v)));
                }
            }
            K::If { cond, then, els } => {
                let c = self.value(cond);
                let c = self.condition(c, "`if` condition");
                let then = self.sub_stmt(then);
                let els = els.as_ref().map(|e| self.sub_stmt(e));
                out.push(mk(StmtKind::If { cond: c, then, els }));
            }
            K::While { cond, body } => {
                let c = self.value(cond);
                let c = self.condition(c, "`while` condition");
                let body = self.loop_body(body);
                out.push(mk(StmtKind::While { cond: c, body }));
            }
            K::DoWhile { body, cond } => {
                let body = self.loop_body(body);
                let c = self.value(cond);
                let c = self.condition(c, "`do`-`while` condition");
                out.push(mk(StmtKind::DoWhile { body, cond: c }));
            }
            K::For {
                init,
                cond,
                step,
                body,
            } => {
                self.push_scope();
                let mut init_stmts = Vec::new();
                if let Some(i) = init {
                    self.stmt(i, &mut init_stmts);
                }
                let cond = cond.as_ref().map(|c| {
                    let v = self.value(c);
                    self.condition(v, "`for` condition")
                });
                let step = step
                    .as_ref()
                    .map(|e| self.expr(e))
                    .filter(|e| !e.is_error());
                let body = self.loop_body(body);
                self.pop_scope();
                out.push(mk(StmtKind::For {
                    init: init_stmts,
                    cond,
                    step,
                    body,
                }));
            }
            K::Switch { cond, body } => self.switch(cond, body, s, out),
            K::Case { value, body } => {
                let label = Span::new(s.span.file, s.span.start, value.span.end.max(s.span.start));
                self.case_label(value, label, out);
                self.stmt(body, out);
            }
            K::Default { body } => {
                let label = Span::new(
                    s.span.file,
                    s.span.start,
                    s.span.start.saturating_add(7).min(s.span.end),
                );
                match self.func.as_mut().and_then(|f| f.switches.last_mut()) {
                    None => self.error(
                        Code::MisplacedJump,
                        label,
                        "`default` label not within a switch statement",
                    ),
                    Some(sw) => {
                        if let Some(prev) = sw.default {
                            let d = Diagnostic::new(
                                Code::Redefinition,
                                label,
                                "multiple `default` labels in one switch",
                            )
                            .with_related(prev, "previous `default` label is here");
                            self.report(d);
                        } else {
                            sw.default = Some(label);
                            out.push(Stmt {
                                kind: StmtKind::Default,
                                span: label,
                                node: s.id,
                            });
                        }
                    }
                }
                self.stmt(body, out);
            }
            K::Break => {
                if self.func.as_ref().is_some_and(|f| f.breakable > 0) {
                    out.push(mk(StmtKind::Break));
                } else {
                    self.error(
                        Code::MisplacedJump,
                        s.span,
                        "`break` statement not in a loop or switch statement",
                    );
                }
            }
            K::Continue => {
                if self.func.as_ref().is_some_and(|f| f.loop_depth > 0) {
                    out.push(mk(StmtKind::Continue));
                } else {
                    self.error(
                        Code::MisplacedJump,
                        s.span,
                        "`continue` statement not in a loop statement",
                    );
                }
            }
            K::Return(v) => {
                let r = self.return_value(v.as_ref(), s.span);
                out.push(mk(StmtKind::Return(r)));
            }
            K::Goto(label) => {
                self.unsupported(
                    Code::UnsupportedGoto,
                    s.span,
                    format!("`goto` is not supported yet (`goto {}`)", label.name),
                );
            }
            K::Labeled { label, body } => {
                self.unsupported(
                    Code::UnsupportedGoto,
                    label.span,
                    format!("labels are not supported yet (`{}:`)", label.name),
                );
                self.stmt(body, out);
            }
            K::Empty | K::Error => {}
        }
    }

    fn loop_body(&mut self, body: &ast::Stmt) -> Box<Stmt> {
        if let Some(f) = &mut self.func {
            f.loop_depth += 1;
            f.breakable += 1;
        }
        let b = self.sub_stmt(body);
        if let Some(f) = &mut self.func {
            f.loop_depth = f.loop_depth.saturating_sub(1);
            f.breakable = f.breakable.saturating_sub(1);
        }
        b
    }

    fn switch(&mut self, cond: &ast::Expr, body: &ast::Stmt, s: &ast::Stmt, out: &mut Vec<Stmt>) {
        let c = self.value(cond);
        let c = if c.is_error() {
            c
        } else if c
            .ty
            .scalar()
            .is_some_and(|t| t.is_integer() || t == Scalar::Bool)
        {
            self.promote(c)
        } else {
            let msg = format!(
                "`switch` requires an expression of integer type (`{}` invalid)",
                self.tn(&c.ty)
            );
            self.error(Code::TypeMismatch, c.span, msg);
            Expr::error(c.span, c.node)
        };
        let ty = c.ty.clone();
        if let Some(f) = &mut self.func {
            f.switches.push(SwitchCtx {
                ty,
                cases: Default::default(),
                default: None,
            });
            f.breakable += 1;
        }
        let block = match &body.kind {
            ast::StmtKind::Block(b) => self.block(b),
            _ => {
                self.push_scope();
                let mut v = Vec::new();
                self.stmt(body, &mut v);
                self.pop_scope();
                Block {
                    stmts: v,
                    span: body.span,
                    node: body.id,
                }
            }
        };
        if let Some(f) = &mut self.func {
            f.switches.pop();
            f.breakable = f.breakable.saturating_sub(1);
        }
        out.push(Stmt {
            kind: StmtKind::Switch {
                cond: c,
                body: block,
            },
            span: s.span,
            node: s.id,
        });
    }

    fn case_label(&mut self, value: &ast::Expr, label: Span, out: &mut Vec<Stmt>) {
        let v = self.value(value);
        let Some(sw_ty) = self
            .func
            .as_ref()
            .and_then(|f| f.switches.last())
            .map(|s| s.ty.clone())
        else {
            self.error(
                Code::MisplacedJump,
                label,
                "`case` label not within a switch statement",
            );
            return;
        };
        if v.is_error() {
            return;
        }
        let constant = if v
            .ty
            .scalar()
            .is_some_and(|s| s.is_integer() || s == Scalar::Bool)
        {
            self.eval(&v)
        } else {
            None
        };
        let Some(c) = constant else {
            self.error(
                Code::NotConstant,
                v.span,
                "case value is not an integer constant expression",
            );
            return;
        };
        let Some(target) = sw_ty.scalar() else { return };
        let k = cast_value(c, target).as_i64();
        let Some(sw) = self.func.as_mut().and_then(|f| f.switches.last_mut()) else {
            return;
        };
        if let Some(prev) = sw.cases.get(&k).copied() {
            let shown = if target.is_signed() {
                k.to_string()
            } else {
                (k as u64).to_string()
            };
            let d = Diagnostic::new(
                Code::Redefinition,
                v.span,
                format!("duplicate case value `{shown}`"),
            )
            .with_related(prev, "previous case is here");
            self.report(d);
            return;
        }
        sw.cases.insert(k, v.span);
        out.push(Stmt {
            kind: StmtKind::Case(k),
            span: label,
            node: v.node,
        });
    }

    fn return_value(&mut self, v: Option<&ast::Expr>, span: Span) -> Option<Expr> {
        let (ret, name) = match &self.func {
            Some(f) => (f.ret.clone(), f.name.clone()),
            None => return None,
        };
        match v {
            None => {
                if !ret.is_void() && !ret.is_error() {
                    self.error(
                        Code::BadReturn,
                        span,
                        format!("non-void function `{name}` should return a value"),
                    );
                }
                None
            }
            Some(e) => {
                let x = self.value(e);
                if x.is_error() || ret.is_error() {
                    return None;
                }
                if ret.is_void() {
                    if !x.ty.is_void() {
                        self.error(
                            Code::BadReturn,
                            x.span,
                            format!("void function `{name}` should not return a value"),
                        );
                    }
                    return Some(x);
                }
                if x.ty.is_void() {
                    self.error(
                        Code::BadReturn,
                        x.span,
                        format!(
                            "function `{name}` returns `{}` but the expression has type `void`",
                            self.tn(&ret)
                        ),
                    );
                    return None;
                }
                let x = self.assign_convert(x, &ret, ConvCtx::Return);
                (!x.is_error()).then_some(x)
            }
        }
    }

    // --- declarations ---------------------------------------------------------

    fn local_declaration(&mut self, d: &ast::Declaration, out: &mut Vec<Stmt>) {
        let base = self.base_type(&d.spec);
        if d.spec.storage == Storage::Typedef {
            for decl in &d.declarators {
                self.typedef(&base, decl);
            }
            return;
        }
        if matches!(d.spec.storage, Storage::Static | Storage::Extern) {
            let which = if d.spec.storage == Storage::Static {
                "static"
            } else {
                "extern"
            };
            self.error(
                Code::InvalidDeclaration,
                d.spec.span,
                format!("variables in function scope cannot be declared `{which}`"),
            );
        }
        for decl in &d.declarators {
            let Some(name) = &decl.declarator.name else {
                if !decl.declarator.derived.is_empty() {
                    self.error(
                        Code::InvalidDeclaration,
                        decl.span,
                        "declaration does not declare anything",
                    );
                }
                continue;
            };
            if let Some(Derived::Function { .. }) = decl.declarator.derived.last() {
                self.error(
                    Code::InvalidDeclaration,
                    decl.span,
                    format!("function declarations inside functions are not supported; declare `{}` at file scope", name.name),
                );
                continue;
            }
            let q = self.apply_declarator(base.clone(), &decl.declarator.derived);
            match q.space.map(|s| s.0) {
                Some(AddressSpace::Global) => {
                    let span = q.space.map_or(decl.span, |s| s.1);
                    self.error(
                        Code::AddressSpace,
                        span,
                        format!("function-scope variable `{}` cannot be declared in the `__global` address space", name.name),
                    );
                }
                Some(AddressSpace::Constant) => {
                    if self.func.as_ref().is_some_and(|f| f.is_kernel) {
                        // A kernel-scope `__constant` is a program constant.
                        self.constant_variable(q, name, decl, AddressSpace::Constant);
                        continue;
                    }
                    let span = q.space.map_or(decl.span, |s| s.1);
                    self.error(
                        Code::AddressSpace,
                        span,
                        format!("variable `{}` in a non-kernel function cannot be declared in the `__constant` address space", name.name),
                    );
                }
                Some(AddressSpace::Local) => self.check_local_variable(name, decl),
                _ => {}
            }
            let space = match q.space {
                Some((AddressSpace::Local, _)) => AddressSpace::Local,
                _ => AddressSpace::Private,
            };
            let Some(ctx) = self.func.as_mut() else {
                continue;
            };
            let id = LocalId(ctx.locals.len() as u32);
            ctx.locals.push(hir::Local {
                name: name.name.clone(),
                ty: q.ty.clone(),
                span: decl.span,
                name_span: name.span,
                node: decl.id,
                is_const: q.is_const,
                is_param: false,
                space,
            });
            // The variable is in scope in its own initializer (C).
            self.declare(&name.name, name.span, Sym::Local(id));
            let mut ty = q.ty.clone();
            let init = match &decl.init {
                Some(i) => {
                    let (init, t) = self.initializer(&ty, i);
                    ty = t;
                    init
                }
                None => None,
            };
            if let Type::Array(_, 0) = ty {
                if decl.init.is_none() {
                    self.error(
                        Code::InvalidDeclaration,
                        name.span,
                        format!("definition of variable `{}` with array type needs an explicit size or an initializer", name.name),
                    );
                }
                ty = Type::Error;
            }
            self.check_object_type(&ty, name);
            if let Some(ctx) = self.func.as_mut() {
                if let Some(l) = ctx.locals.get_mut(id.0 as usize) {
                    l.ty = ty.clone();
                }
            }
            if q.is_const {
                if let Some(Init::Expr(e)) = &init {
                    if let Some(v) = self.eval(e) {
                        if let Some(ctx) = self.func.as_mut() {
                            ctx.const_locals.insert(id, v);
                        }
                    }
                }
            }
            out.push(Stmt {
                kind: StmtKind::Decl { local: id, init },
                span: decl.span,
                node: decl.id,
            });
        }
    }

    /// clang's rules for a `__local` variable: only in the outermost scope
    /// of a kernel (one object per work-group, alive for the whole kernel)
    /// and without an initializer (no work-item owns the initialization).
    /// Errors are reported at the name; the variable is declared anyway.
    fn check_local_variable(&mut self, name: &ast::Ident, decl: &ast::InitDeclarator) {
        let Some(ctx) = self.func.as_ref() else {
            return;
        };
        if !ctx.is_kernel {
            self.error(
                Code::AddressSpace,
                name.span,
                format!("non-kernel function variable `{}` cannot be declared in the `__local` address space", name.name),
            );
            return;
        }
        // File scope, then the kernel's parameters and outermost block.
        if self.scopes.len() > 2 {
            self.error(
                Code::AddressSpace,
                name.span,
                format!("`__local` variable `{}` can only be declared in the outermost scope of a kernel function", name.name),
            );
        } else if decl.init.is_some() {
            self.error(
                Code::AddressSpace,
                name.span,
                format!(
                    "`__local` variable `{}` cannot have an initializer",
                    name.name
                ),
            );
        }
    }

    /// Checks an initializer for an object of type `ty`. Returns the checked
    /// initializer and the object's type (an array declared `[]` gets its
    /// length from the initializer).
    pub(crate) fn initializer(
        &mut self,
        ty: &Type,
        init: &ast::Initializer,
    ) -> (Option<Init>, Type) {
        match init {
            ast::Initializer::Expr(e) => {
                let v = self.value(e);
                if v.is_error() || ty.is_error() {
                    return (None, ty.clone());
                }
                if let Type::Array(..) = ty {
                    self.error(
                        Code::TypeMismatch,
                        e.span,
                        "an array must be initialized with a brace-enclosed list",
                    );
                    return (None, ty.clone());
                }
                let v = self.assign_convert(v, ty, ConvCtx::Init);
                if v.is_error() {
                    return (None, ty.clone());
                }
                (Some(Init::Expr(v)), ty.clone())
            }
            ast::Initializer::List { items, span } => {
                let mut idx = 0;
                let (init, ty) = self.init_list(ty, items, &mut idx, true, *span, None);
                if let Some((_, extra)) = items.get(idx) {
                    self.warning(
                        Code::InvalidDeclaration,
                        extra.span(),
                        "excess elements in initializer list",
                    );
                }
                (init, ty)
            }
        }
    }

    /// Initializes an aggregate (or a scalar in braces) from `items[*idx..]`.
    /// `braced`: the items are a brace list of their own (designators apply
    /// and excess items are reported); otherwise the aggregate takes what it
    /// needs from its parent's list (C's brace elision). `pending` is the
    /// already checked expression of `items[*idx]`, if any.
    fn init_list(
        &mut self,
        ty: &Type,
        items: &[(Option<ast::Designator>, ast::Initializer)],
        idx: &mut usize,
        braced: bool,
        span: Span,
        mut pending: Option<Expr>,
    ) -> (Option<Init>, Type) {
        if !self.enter(span) {
            *idx = items.len();
            return (None, Type::Error);
        }
        let r = match ty {
            Type::Array(elem, n) => {
                let growable = *n == 0;
                if *n > MAX_LIST_ELEMENTS {
                    self.error(
                        Code::InvalidDeclaration,
                        span,
                        format!("array of {n} elements is too large for an initializer list (at most {MAX_LIST_ELEMENTS})"),
                    );
                    *idx = items.len();
                    return self.leave_with((None, Type::Error));
                }
                let mut elems: Vec<Option<Init>> = vec![None; *n as usize];
                let mut cursor = 0usize;
                while *idx < items.len() {
                    // A pending item's designator belonged to the parent list.
                    if let Some(d) = items[*idx].0.as_ref().filter(|_| pending.is_none()) {
                        if !braced {
                            break;
                        }
                        match d {
                            ast::Designator::Index(e) => {
                                if let Some(k) = self.integer_constant(e, "array designator") {
                                    if k < 0
                                        || (!growable && k as u64 >= *n)
                                        || k as u64 >= MAX_LIST_ELEMENTS
                                    {
                                        self.error(Code::InvalidDeclaration, e.span, format!("array designator index {k} exceeds the array bounds"));
                                        *idx += 1;
                                        continue;
                                    }
                                    cursor = k as usize;
                                }
                            }
                            ast::Designator::Field(f) => {
                                self.error(
                                    Code::TypeMismatch,
                                    f.span,
                                    format!(
                                        "field designator `.{}` cannot initialize an array",
                                        f.name
                                    ),
                                );
                                *idx += 1;
                                continue;
                            }
                        }
                    }
                    if !growable && cursor >= *n as usize {
                        if braced {
                            self.warning(
                                Code::InvalidDeclaration,
                                items[*idx].1.span(),
                                "excess elements in array initializer",
                            );
                            *idx = items.len();
                        }
                        break;
                    }
                    if growable && cursor >= elems.len() {
                        if cursor as u64 >= MAX_LIST_ELEMENTS {
                            break;
                        }
                        elems.resize(cursor + 1, None);
                    }
                    let el = self.init_element(elem, items, idx, pending.take());
                    elems[cursor] = el;
                    cursor += 1;
                }
                let ty = if growable {
                    Type::Array(elem.clone(), elems.len() as u64)
                } else {
                    ty.clone()
                };
                (
                    Some(Init::List {
                        ty: ty.clone(),
                        elems,
                        span,
                    }),
                    ty,
                )
            }
            Type::Struct(id) => {
                let is_union = self
                    .unit
                    .structs
                    .get(id.0 as usize)
                    .is_some_and(|d| d.is_union);
                let fields: Vec<(smol_str::SmolStr, Type)> =
                    match self.unit.structs.get(id.0 as usize) {
                        Some(def) if def.complete => def
                            .fields
                            .iter()
                            .map(|f| (f.name.clone(), f.ty.clone()))
                            .collect(),
                        _ => {
                            let msg =
                                format!("cannot initialize incomplete type `{}`", self.tn(ty));
                            self.error(Code::InvalidDeclaration, span, msg);
                            *idx = items.len();
                            return self.leave_with((None, Type::Error));
                        }
                    };
                let mut elems: Vec<Option<Init>> = vec![None; fields.len()];
                let mut cursor = 0usize;
                while *idx < items.len() {
                    if let Some(d) = items[*idx].0.as_ref().filter(|_| pending.is_none()) {
                        if !braced {
                            break;
                        }
                        match d {
                            ast::Designator::Field(f) => {
                                match fields.iter().position(|(n, _)| *n == f.name) {
                                    Some(i) => cursor = i,
                                    None => {
                                        let msg = format!(
                                            "no member named `{}` in `{}`",
                                            f.name,
                                            self.tn(ty)
                                        );
                                        self.error(Code::NoMember, f.span, msg);
                                        *idx += 1;
                                        continue;
                                    }
                                }
                            }
                            ast::Designator::Index(e) => {
                                self.error(
                                    Code::TypeMismatch,
                                    e.span,
                                    "array designator cannot initialize a struct",
                                );
                                *idx += 1;
                                continue;
                            }
                        }
                    }
                    if cursor >= fields.len() {
                        if braced {
                            self.warning(
                                Code::InvalidDeclaration,
                                items[*idx].1.span(),
                                if is_union {
                                    "excess elements in union initializer"
                                } else {
                                    "excess elements in struct initializer"
                                },
                            );
                            *idx = items.len();
                        }
                        break;
                    }
                    let fty = fields[cursor].1.clone();
                    if is_union {
                        // One member at a time: the last one named wins.
                        elems.iter_mut().for_each(|e| *e = None);
                    }
                    elems[cursor] = self.init_element(&fty, items, idx, pending.take());
                    cursor = if is_union { fields.len() } else { cursor + 1 };
                }
                (
                    Some(Init::List {
                        ty: ty.clone(),
                        elems,
                        span,
                    }),
                    ty.clone(),
                )
            }
            Type::Vector(e, n) => {
                let mut elems: Vec<Option<Init>> = vec![None; *n as usize];
                let mut cursor = 0usize;
                let scalar = Type::Scalar(*e);
                while *idx < items.len() && cursor < *n as usize {
                    if items[*idx].0.is_some() && pending.is_none() {
                        if !braced {
                            break;
                        }
                        self.error(
                            Code::TypeMismatch,
                            items[*idx].1.span(),
                            "designators cannot initialize vector components",
                        );
                        *idx += 1;
                        continue;
                    }
                    let v = match pending.take() {
                        Some(v) => Some(v),
                        None => {
                            match &items[*idx].1 {
                                ast::Initializer::Expr(x) => Some(self.value(x)),
                                ast::Initializer::List { span, .. } => {
                                    self.error(Code::TypeMismatch, *span, "a vector component cannot be initialized with a brace list");
                                    None
                                }
                            }
                        }
                    };
                    *idx += 1;
                    if let Some(v) = v {
                        if v.ty.is_vector() && !v.is_error() {
                            let msg = "vector initializer lists take scalars; use a vector literal such as `(float4)(a.xy, b.xy)`";
                            self.error(Code::TypeMismatch, v.span, msg);
                        } else if !v.is_error() {
                            let v = self.assign_convert(v, &scalar, ConvCtx::Init);
                            if !v.is_error() {
                                elems[cursor] = Some(Init::Expr(v));
                            }
                        }
                    }
                    cursor += 1;
                }
                if braced && *idx < items.len() {
                    self.warning(
                        Code::InvalidDeclaration,
                        items[*idx].1.span(),
                        "excess elements in vector initializer",
                    );
                    *idx = items.len();
                }
                (
                    Some(Init::List {
                        ty: ty.clone(),
                        elems,
                        span,
                    }),
                    ty.clone(),
                )
            }
            Type::Error => {
                // Check the items for their own errors, then give up quietly.
                for (_, item) in &items[(*idx).min(items.len())..] {
                    if let ast::Initializer::Expr(e) = item {
                        self.value(e);
                    }
                }
                *idx = items.len();
                (None, Type::Error)
            }
            _ => {
                // A scalar or pointer in braces: `int x = {1};`.
                let el = self.init_element(ty, items, idx, pending.take());
                let elems = vec![el];
                (
                    Some(Init::List {
                        ty: ty.clone(),
                        elems,
                        span,
                    }),
                    ty.clone(),
                )
            }
        };
        self.leave_with(r)
    }

    fn leave_with<T>(&mut self, v: T) -> T {
        self.leave();
        v
    }

    /// One element of an aggregate from `items[*idx]` (or `pending`).
    fn init_element(
        &mut self,
        elem: &Type,
        items: &[(Option<ast::Designator>, ast::Initializer)],
        idx: &mut usize,
        pending: Option<Expr>,
    ) -> Option<Init> {
        let aggregate = matches!(elem, Type::Array(..) | Type::Struct(_));
        let v = match pending {
            Some(v) => v,
            None => match items.get(*idx).map(|i| &i.1) {
                None => return None,
                Some(ast::Initializer::List { items: sub, span }) => {
                    *idx += 1;
                    let mut j = 0;
                    let (init, _) = self.init_list(elem, sub, &mut j, true, *span, None);
                    if let Some((_, extra)) = sub.get(j) {
                        self.warning(
                            Code::InvalidDeclaration,
                            extra.span(),
                            "excess elements in initializer list",
                        );
                    }
                    return init;
                }
                Some(ast::Initializer::Expr(e)) => self.value(e),
            },
        };
        if v.is_error() {
            *idx += 1;
            return None;
        }
        if aggregate && v.ty != *elem {
            // Brace elision: the element takes the following items.
            let span = v.span;
            return self.init_list(elem, items, idx, false, span, Some(v)).0;
        }
        *idx += 1;
        let v = self.assign_convert(v, elem, ConvCtx::Init);
        (!v.is_error()).then_some(Init::Expr(v))
    }
}
