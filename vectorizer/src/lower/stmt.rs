//! Statements and control flow, local variables, and the inlining of
//! helper calls.

use std::collections::{HashMap, HashSet};

use lanes_frontend::ast::AddressSpace;
use lanes_frontend::hir::{
    self, ConvertKind, Expr, ExprKind, FuncId, Init, LocalId, Stmt, StmtKind,
};
use lanes_frontend::types::Type;

use super::expr::esrc;
use super::types::{is_register_type, leaves, reg_comps};
use super::{src_of, Frame, Lowerer, Ret, Slot, Targets, Vals, MAX_INLINE_DEPTH};
use crate::ir::{InstKind, Param, Src, Ty, Var};

impl<'u> Lowerer<'u> {
    /// The kernel: its parameters, then its body.
    pub(super) fn kernel_body(
        &mut self,
        id: FuncId,
        func: &'u hir::Function,
        body: &'u hir::Block,
    ) {
        self.push_frame(id, func, None);
        for (i, &pid) in func.params.iter().enumerate() {
            let Some(local) = func.locals.get(pid.0 as usize) else {
                continue;
            };
            let vals = self.kernel_param(i as u32, local);
            let src = src_of(local.node, local.span);
            if let Some(slot) = self.declare_local(pid, local, src) {
                self.bind(&slot, &local.ty, &vals, src);
            }
        }
        self.block(body);
        let end = src_of(body.node, closing_brace(body.span));
        if self.cur_is_dead() {
            self.terminate(InstKind::Unreachable, end);
        } else {
            self.terminate(InstKind::Ret, end);
        }
        self.frames.pop();
    }

    /// The IR parameters of one kernel parameter (one per vector component).
    fn kernel_param(&mut self, index: u32, local: &hir::Local) -> Vals {
        let span = local.span;
        match &local.ty {
            Type::Struct(_) => {
                // One IR parameter per scalar field (the ABI passes a
                // pointer to the struct; see docs/codegen.md).
                return match super::kernel_param_layout(self.unit, &local.ty) {
                    Ok(layout) => layout
                        .into_iter()
                        .enumerate()
                        .map(|(c, (_, ty))| {
                            self.f.add_param(Param {
                                name: local.name.clone(),
                                ty,
                                source_index: index,
                                component: Some(c as u32),
                                span: local.name_span,
                            })
                        })
                        .collect(),
                    Err(msg) => {
                        self.error(span, msg);
                        self.undef_vals(&local.ty, span)
                    }
                };
            }
            Type::Pointer(p) if p.space == AddressSpace::Generic => {
                self.error(
                    span,
                    "the generic address space is not supported by the vectorizer yet",
                );
                return self.undef_vals(&local.ty, span);
            }
            _ => {}
        }
        let Some(comps) = reg_comps(&local.ty) else {
            let msg = format!(
                "kernel arguments of type `{}` are not supported by the vectorizer",
                self.unit.type_name(&local.ty)
            );
            self.error(span, msg);
            return Vec::new();
        };
        let vector = local.ty.is_vector();
        comps
            .into_iter()
            .enumerate()
            .map(|(c, leaf)| {
                self.f.add_param(Param {
                    name: local.name.clone(),
                    ty: leaf.reg(),
                    source_index: index,
                    component: vector.then_some(c as u32),
                    span: local.name_span,
                })
            })
            .collect()
    }

    fn push_frame(&mut self, id: FuncId, func: &'u hir::Function, ret: Option<Ret>) {
        self.addr_taken.entry(id).or_insert_with(|| {
            let mut set = HashSet::new();
            if let Some(body) = &func.body {
                scan_block(body, &mut set);
            }
            set
        });
        self.frames.push(Frame {
            func: id,
            hir: func,
            slots: vec![None; func.locals.len()],
            ret,
            targets: Vec::new(),
            cases: Vec::new(),
        });
    }

    /// Creates the variable of a parameter or local declaration: SSA
    /// variables for scalars, vectors and pointers whose address is never
    /// taken, an `alloca` for everything else.
    pub(super) fn declare_local(
        &mut self,
        id: LocalId,
        local: &hir::Local,
        src: Src,
    ) -> Option<Slot> {
        let func = self.frame()?.func;
        let taken = self.addr_taken.get(&func).is_some_and(|s| s.contains(&id));
        let var_index = self.f.vars.len();
        let slot = if local.space == AddressSpace::Local {
            let ptr = self.local_variable(local)?;
            self.f.vars.push(Var {
                name: local.name.clone(),
                span: local.name_span,
                node: local.node,
                values: vec![ptr],
                in_memory: true,
                is_param: false,
                block: Some(self.cur),
            });
            Slot::Mem(ptr)
        } else if is_register_type(&local.ty) && !taken {
            let comps = reg_comps(&local.ty).unwrap_or_default();
            let vars = comps
                .into_iter()
                .map(|c| self.new_ssa_var(c.reg(), Some(var_index)))
                .collect();
            self.f.vars.push(Var {
                name: local.name.clone(),
                span: local.name_span,
                node: local.node,
                values: Vec::new(),
                in_memory: false,
                is_param: local.is_param,
                block: Some(self.cur),
            });
            Slot::Ssa(vars)
        } else {
            if let Err(msg) = leaves(self.unit, &local.ty) {
                self.error(local.span, msg);
                return None;
            }
            let ptr = self.alloca(&local.ty, local.span, src)?;
            self.f.vars.push(Var {
                name: local.name.clone(),
                span: local.name_span,
                node: local.node,
                values: vec![ptr],
                in_memory: true,
                is_param: local.is_param,
                block: Some(self.cur),
            });
            Slot::Mem(ptr)
        };
        if let Some(s) = self
            .frame_mut()
            .and_then(|f| f.slots.get_mut(id.0 as usize))
        {
            *s = Some(slot.clone());
        }
        Some(slot)
    }

    /// A kernel-scope `__local` variable: one object per work-group
    /// ([`crate::ir::Function::locals`]), uninitialized.
    fn local_variable(&mut self, local: &hir::Local) -> Option<crate::ir::ValueId> {
        let layout = self
            .unit
            .size_of(&local.ty)
            .zip(self.unit.align_of(&local.ty));
        let Some((size, align)) = layout else {
            let msg = format!(
                "cannot allocate a `__local` variable of type `{}`",
                self.unit.type_name(&local.ty)
            );
            self.error(local.span, msg);
            return None;
        };
        if let Err(msg) = leaves(self.unit, &local.ty) {
            self.error(local.span, msg);
            return None;
        }
        Some(self.f.add_local(crate::ir::LocalVar {
            name: local.name.clone(),
            size: size.max(1),
            align: align.max(1),
            span: local.name_span,
        }))
    }

    /// Gives a variable its value (a parameter's argument, an initializer).
    fn bind(&mut self, slot: &Slot, ty: &Type, vals: &[crate::ir::ValueId], src: Src) {
        match slot {
            Slot::Ssa(vars) => {
                for (i, &var) in vars.iter().enumerate() {
                    let t = self.var_ty(var);
                    let v = self.at(vals, i, t);
                    self.assign_var(var, v);
                }
            }
            Slot::Mem(ptr) => self.store_vals(*ptr, ty, vals, src),
        }
    }

    // ---- statements -----------------------------------------------------

    pub(super) fn block(&mut self, b: &hir::Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        if !self.enter(s.span) {
            return;
        }
        self.stmt_inner(s);
        self.leave();
    }

    fn stmt_inner(&mut self, s: &Stmt) {
        let src = src_of(s.node, s.span);
        match &s.kind {
            StmtKind::Block(b) => self.block(b),
            StmtKind::Decl { local, init } => self.decl(*local, init.as_ref(), src),
            StmtKind::Expr(e) => {
                self.rvalue(e);
            }
            StmtKind::If { cond, then, els } => {
                let tb = self.new_block("if.then", src);
                let eb = els.as_ref().map(|_| self.new_block("if.else", src));
                let end = self.new_block("if.end", src);
                self.branch_on(cond, tb, eb.unwrap_or(end));
                self.seal(tb);
                self.cur = tb;
                self.stmt(then);
                self.jump(end, src);
                if let (Some(eb), Some(els)) = (eb, els) {
                    self.seal(eb);
                    self.cur = eb;
                    self.stmt(els);
                    self.jump(end, src);
                }
                self.seal(end);
                self.cur = end;
            }
            StmtKind::While { cond, body } => {
                let header = self.new_block("while.cond", src);
                self.mark_unroll(header, s.span);
                let bb = self.new_block("while.body", src);
                let end = self.new_block("while.end", src);
                self.jump(header, src);
                self.cur = header;
                self.branch_on(cond, bb, end);
                self.seal(bb);
                self.cur = bb;
                self.loop_body(body, end, header);
                self.jump(header, src);
                self.seal(header);
                self.seal(end);
                self.cur = end;
            }
            StmtKind::DoWhile { body, cond } => {
                let bb = self.new_block("do.body", src);
                self.mark_unroll(bb, s.span);
                let cb = self.new_block("do.cond", src);
                let end = self.new_block("do.end", src);
                self.jump(bb, src);
                self.cur = bb;
                self.loop_body(body, end, cb);
                self.jump(cb, src);
                self.seal(cb);
                self.cur = cb;
                self.branch_on(cond, bb, end);
                self.seal(bb);
                self.seal(end);
                self.cur = end;
            }
            StmtKind::For {
                init,
                cond,
                step,
                body,
            } => {
                for i in init {
                    self.stmt(i);
                }
                let header = self.new_block("for.cond", src);
                self.mark_unroll(header, s.span);
                let bb = self.new_block("for.body", src);
                let inc = step.as_ref().map(|_| self.new_block("for.inc", src));
                let end = self.new_block("for.end", src);
                self.jump(header, src);
                self.cur = header;
                match cond {
                    Some(c) => self.branch_on(c, bb, end),
                    None => self.jump(bb, src),
                }
                self.seal(bb);
                self.cur = bb;
                self.loop_body(body, end, inc.unwrap_or(header));
                self.jump(inc.unwrap_or(header), src);
                if let (Some(inc), Some(step)) = (inc, step) {
                    self.seal(inc);
                    self.cur = inc;
                    self.rvalue(step);
                    self.jump(header, src);
                }
                self.seal(header);
                self.seal(end);
                self.cur = end;
            }
            StmtKind::Switch { cond, body } => self.switch(cond, body, src),
            StmtKind::Case(_) | StmtKind::Default => self.case_label(s, src),
            StmtKind::Break => {
                let target = self.frame().and_then(|f| f.targets.last()).map(|t| t.brk);
                match target {
                    Some(t) => self.jump(t, src),
                    None => self.error(s.span, "`break` outside a loop or switch"),
                }
                self.start_dead_block(src);
            }
            StmtKind::Continue => {
                let target = self
                    .frame()
                    .and_then(|f| f.targets.iter().rev().find_map(|t| t.cont));
                match target {
                    Some(t) => self.jump(t, src),
                    None => self.error(s.span, "`continue` outside a loop"),
                }
                self.start_dead_block(src);
            }
            StmtKind::Return(value) => self.return_stmt(value.as_ref(), src),
        }
    }

    fn loop_body(&mut self, body: &Stmt, brk: crate::ir::BlockId, cont: crate::ir::BlockId) {
        if let Some(f) = self.frame_mut() {
            f.targets.push(Targets {
                brk,
                cont: Some(cont),
            });
        }
        self.stmt(body);
        if let Some(f) = self.frame_mut() {
            f.targets.pop();
        }
    }

    fn return_stmt(&mut self, value: Option<&Expr>, src: Src) {
        let vals = match value {
            Some(e) => self.rvalue(e),
            None => Vec::new(),
        };
        let ret = self.frame().and_then(|f| f.ret.clone());
        match ret {
            // A return of the kernel.
            None => {
                if self.cur_is_dead() {
                    self.terminate(InstKind::Unreachable, src);
                } else {
                    self.terminate(InstKind::Ret, src);
                }
            }
            // A return of an inlined helper: the value goes to the call.
            Some(ret) => {
                for (i, &var) in ret.vars.iter().enumerate() {
                    let t = self.var_ty(var);
                    let v = self.at(&vals, i, t);
                    self.assign_var(var, v);
                }
                self.jump(ret.block, src);
            }
        }
        self.start_dead_block(src);
    }

    pub(super) fn decl(&mut self, id: LocalId, init: Option<&Init>, src: Src) {
        let Some(hir) = self.frame().map(|f| f.hir) else {
            return;
        };
        let Some(local) = hir.locals.get(id.0 as usize) else {
            self.error(src.span, "internal error: unknown local variable");
            return;
        };
        let existing = self
            .frame()
            .and_then(|f| f.slots.get(id.0 as usize))
            .and_then(|s| s.clone());
        let slot = match existing {
            Some(s) => s,
            None => match self.declare_local(id, local, src) {
                Some(s) => s,
                None => return,
            },
        };
        match slot {
            Slot::Ssa(vars) => {
                // Without an initializer the variable is undefined (C); a
                // declaration in a loop starts undefined in every iteration.
                let vals = match init {
                    Some(i) => self.init_vals(&local.ty, i),
                    None => Vec::new(),
                };
                for (i, &var) in vars.iter().enumerate() {
                    let t = self.var_ty(var);
                    let v = self.at(&vals, i, t);
                    self.assign_var(var, v);
                }
            }
            Slot::Mem(ptr) => {
                if let Some(i) = init {
                    self.store_init(ptr, &local.ty, i, src);
                }
            }
        }
    }

    /// The values of an initializer of a scalar, vector or pointer.
    fn init_vals(&mut self, ty: &Type, init: &Init) -> Vals {
        match init {
            Init::Expr(e) => self.rvalue(e),
            Init::List { elems, span, .. } => {
                if !self.enter(*span) {
                    return self.undef_vals(ty, *span);
                }
                let tys = self.val_tys(ty, *span);
                let elem_ty = match ty {
                    Type::Vector(s, _) => Type::Scalar(*s),
                    other => other.clone(),
                };
                let mut out = Vec::with_capacity(tys.len());
                for (i, &t) in tys.iter().enumerate() {
                    let v = match elems.get(i) {
                        Some(Some(el)) => {
                            let vals = self.init_vals(&elem_ty, el);
                            self.first(&vals, t)
                        }
                        _ => self.zero(t),
                    };
                    out.push(v);
                }
                self.leave();
                out
            }
        }
    }

    /// Initializes an object in memory like C: one store per scalar leaf,
    /// zeros where the brace list gives nothing.
    fn store_init(&mut self, ptr: crate::ir::ValueId, ty: &Type, init: &Init, src: Src) {
        let Init::List { elems, span, .. } = init else {
            let vals = self.init_vals(ty, init);
            self.store_vals(ptr, ty, &vals, src);
            return;
        };
        if !self.enter(*span) {
            return;
        }
        match ty {
            Type::Array(elem, n) => {
                let size = self.size_of(elem, *span);
                for i in 0..*n {
                    let p = self.ptr_offset(ptr, (i * size) as i64, src);
                    match elems.get(i as usize) {
                        Some(Some(el)) => self.store_init(p, elem, el, src),
                        _ => self.store_zero(p, elem, src),
                    }
                }
            }
            Type::Struct(id) => {
                let def = self.unit.structs.get(id.0 as usize);
                let is_union = def.is_some_and(|d| d.is_union);
                let fields: Vec<(u64, Type)> = def
                    .map(|d| d.fields.iter().map(|f| (f.offset, f.ty.clone())).collect())
                    .unwrap_or_default();
                if is_union {
                    // Zero bytes (C's rule for the rest of a union), then the
                    // one member the list initializes.
                    self.store_zero(ptr, ty, src);
                    for (i, (_, fty)) in fields.iter().enumerate() {
                        if let Some(Some(el)) = elems.get(i) {
                            self.store_init(ptr, fty, el, src);
                        }
                    }
                    self.leave();
                    return;
                }
                for (i, (off, fty)) in fields.iter().enumerate() {
                    let p = self.ptr_offset(ptr, *off as i64, src);
                    match elems.get(i) {
                        Some(Some(el)) => self.store_init(p, fty, el, src),
                        _ => self.store_zero(p, fty, src),
                    }
                }
            }
            _ => {
                let vals = self.init_vals(ty, init);
                self.store_vals(ptr, ty, &vals, src);
            }
        }
        self.leave();
    }

    // ---- switch ---------------------------------------------------------

    fn switch(&mut self, cond: &Expr, body: &hir::Block, src: Src) {
        let v = self.rvalue(cond);
        let cty = cond
            .ty
            .element()
            .and_then(super::types::scalar_ty)
            .unwrap_or(Ty::I32);
        let value = self.first(&v, cty);
        let mut labels = Vec::new();
        self.collect_labels(&body.stmts, false, &mut labels);
        let end = self.new_block("sw.end", src);
        let mut default = end;
        let mut cases = Vec::new();
        let mut map = HashMap::new();
        for (ptr, k, lsrc) in labels {
            let b = self.new_block(if k.is_some() { "sw.case" } else { "sw.default" }, lsrc);
            map.insert(ptr, b);
            match k {
                Some(k) => {
                    let bits = crate::ir::truncate(k as u64, cty.bits());
                    if !cases.iter().any(|&(c, _)| c == bits) {
                        cases.push((bits, b));
                    }
                }
                None => default = b,
            }
        }
        if self.cur_is_dead() {
            self.terminate(InstKind::Unreachable, src);
        } else {
            self.terminate(
                InstKind::Switch {
                    value,
                    default,
                    cases,
                },
                src,
            );
        }
        // Code before the first label is unreachable.
        self.start_dead_block(src);
        let blocks: Vec<_> = map.values().copied().collect();
        if let Some(f) = self.frame_mut() {
            f.targets.push(Targets {
                brk: end,
                cont: None,
            });
            f.cases.push(map);
        }
        self.block(body);
        if let Some(f) = self.frame_mut() {
            f.targets.pop();
            f.cases.pop();
        }
        self.jump(end, src);
        // Labels that lowering never reached (only after an error).
        for b in blocks {
            self.seal(b);
        }
        self.seal(end);
        self.cur = end;
    }

    /// The `case`/`default` markers of a switch body, wherever they are
    /// nested (not inside inner switches), with their values.
    fn collect_labels(
        &mut self,
        stmts: &[Stmt],
        in_loop: bool,
        out: &mut Vec<(usize, Option<i64>, Src)>,
    ) {
        for s in stmts {
            self.collect_labels_stmt(s, in_loop, out);
        }
    }

    fn collect_labels_stmt(
        &mut self,
        s: &Stmt,
        in_loop: bool,
        out: &mut Vec<(usize, Option<i64>, Src)>,
    ) {
        let key = s as *const Stmt as usize;
        let src = src_of(s.node, s.span);
        match &s.kind {
            StmtKind::Case(_) | StmtKind::Default if in_loop => self.error(
                s.span,
                "a `case` label inside a loop within its `switch` makes the control flow irreducible; this is not supported by the vectorizer",
            ),
            StmtKind::Case(k) => out.push((key, Some(*k), src)),
            StmtKind::Default => out.push((key, None, src)),
            StmtKind::Block(b) => self.collect_labels(&b.stmts, in_loop, out),
            StmtKind::If { then, els, .. } => {
                self.collect_labels_stmt(then, in_loop, out);
                if let Some(e) = els {
                    self.collect_labels_stmt(e, in_loop, out);
                }
            }
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
                self.collect_labels_stmt(body, true, out)
            }
            StmtKind::For { init, body, .. } => {
                self.collect_labels(init, true, out);
                self.collect_labels_stmt(body, true, out);
            }
            _ => {}
        }
    }

    /// A `case`/`default` marker: falls through from the code before it.
    fn case_label(&mut self, s: &Stmt, src: Src) {
        let key = s as *const Stmt as usize;
        let block = self
            .frame()
            .and_then(|f| f.cases.last())
            .and_then(|m| m.get(&key).copied());
        let Some(b) = block else {
            // Labels inside loops were reported by `collect_labels`.
            return;
        };
        self.jump(b, src);
        self.seal(b);
        self.cur = b;
    }

    // ---- calls ----------------------------------------------------------

    /// Inlines a call of a helper: arguments left to right, bound to the
    /// callee's parameters; `return` jumps to the `call.ret` block, where
    /// the value is merged by φs.
    pub(super) fn inline_call(&mut self, e: &Expr, func: FuncId, args: &[Expr]) -> Vals {
        let src = esrc(e);
        let vals: Vec<Vals> = args.iter().map(|a| self.rvalue(a)).collect();
        let unit = self.unit;
        let Some(callee) = unit.functions.get(func.0 as usize) else {
            self.error(e.span, "internal error: unknown function");
            return self.undef_vals(&e.ty, e.span);
        };
        let Some(body) = &callee.body else {
            self.error(
                e.span,
                format!(
                    "`{}` is declared but never defined; the vectorizer needs its body to inline it",
                    callee.name
                ),
            );
            return self.undef_vals(&e.ty, e.span);
        };
        if self.frames.len() > MAX_INLINE_DEPTH {
            self.error(
                e.span,
                format!(
                    "calls nested more than {MAX_INLINE_DEPTH} levels deep cannot be inlined (`{}`)",
                    callee.name
                ),
            );
            return self.undef_vals(&e.ty, e.span);
        }
        if self.frames.iter().any(|f| f.func == func) {
            self.error(
                e.span,
                format!("recursive call of `{}` cannot be inlined", callee.name),
            );
            return self.undef_vals(&e.ty, e.span);
        }
        if callee.params.len() != vals.len() {
            self.error(
                e.span,
                format!(
                    "`{}` takes {} arguments but the call passes {}",
                    callee.name,
                    callee.params.len(),
                    vals.len()
                ),
            );
            return self.undef_vals(&e.ty, e.span);
        }
        if !self.enter(e.span) {
            return self.undef_vals(&e.ty, e.span);
        }
        let ret_tys = self.val_tys(&callee.ret, e.span);
        let ret_vars: Vec<_> = ret_tys.iter().map(|&t| self.new_ssa_var(t, None)).collect();
        let ret_block = self.new_block("call.ret", src);
        self.push_frame(
            func,
            callee,
            Some(Ret {
                block: ret_block,
                vars: ret_vars.clone(),
            }),
        );
        for (&pid, v) in callee.params.iter().zip(&vals) {
            let Some(local) = callee.locals.get(pid.0 as usize) else {
                continue;
            };
            let psrc = src_of(local.node, local.span);
            if let Some(slot) = self.declare_local(pid, local, psrc) {
                self.bind(&slot, &local.ty, v, psrc);
            }
        }
        self.block(body);
        // Falling off the end: fine for `void`, undefined otherwise.
        let end = src_of(body.node, closing_brace(body.span));
        if callee.ret.is_void() {
            self.jump(ret_block, end);
        } else {
            self.terminate(InstKind::Unreachable, end);
        }
        self.frames.pop();
        self.seal(ret_block);
        self.cur = ret_block;
        let out = ret_vars.into_iter().map(|v| self.use_var(v)).collect();
        self.leave();
        out
    }
}

/// The last character of a block (its `}`), where falling off its end
/// happens.
fn closing_brace(span: lanes_frontend::source::Span) -> lanes_frontend::source::Span {
    if span.end > span.start {
        lanes_frontend::source::Span::new(span.file, span.end - 1, span.end)
    } else {
        span
    }
}

/// Locals whose address is taken somewhere in a function body (`&x`,
/// `&s.f`, `&a[i]` for an array `a`): they live in memory.
fn scan_block(b: &hir::Block, out: &mut HashSet<LocalId>) {
    for s in &b.stmts {
        scan_stmt(s, out, 0);
    }
}

/// The HIR is at most a few hundred levels deep (the parser and checker
/// bound it); the depth guard keeps this walk bounded regardless.
const MAX_SCAN_DEPTH: u32 = 4_000;

fn scan_stmt(s: &Stmt, out: &mut HashSet<LocalId>, depth: u32) {
    if depth > MAX_SCAN_DEPTH {
        return;
    }
    let d = depth + 1;
    match &s.kind {
        StmtKind::Block(b) => b.stmts.iter().for_each(|s| scan_stmt(s, out, d)),
        StmtKind::Decl { init, .. } => {
            if let Some(i) = init {
                scan_init(i, out, d);
            }
        }
        StmtKind::Expr(e) => scan_expr(e, out, d),
        StmtKind::If { cond, then, els } => {
            scan_expr(cond, out, d);
            scan_stmt(then, out, d);
            if let Some(e) = els {
                scan_stmt(e, out, d);
            }
        }
        StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
            scan_expr(cond, out, d);
            scan_stmt(body, out, d);
        }
        StmtKind::For {
            init,
            cond,
            step,
            body,
        } => {
            init.iter().for_each(|s| scan_stmt(s, out, d));
            if let Some(c) = cond {
                scan_expr(c, out, d);
            }
            if let Some(st) = step {
                scan_expr(st, out, d);
            }
            scan_stmt(body, out, d);
        }
        StmtKind::Switch { cond, body } => {
            scan_expr(cond, out, d);
            body.stmts.iter().for_each(|s| scan_stmt(s, out, d));
        }
        StmtKind::Return(Some(e)) => scan_expr(e, out, d),
        StmtKind::Return(None)
        | StmtKind::Case(_)
        | StmtKind::Default
        | StmtKind::Break
        | StmtKind::Continue => {}
    }
}

fn scan_init(i: &Init, out: &mut HashSet<LocalId>, depth: u32) {
    if depth > MAX_SCAN_DEPTH {
        return;
    }
    match i {
        Init::Expr(e) => scan_expr(e, out, depth + 1),
        Init::List { elems, .. } => elems
            .iter()
            .flatten()
            .for_each(|el| scan_init(el, out, depth + 1)),
    }
}

fn scan_expr(e: &Expr, out: &mut HashSet<LocalId>, depth: u32) {
    if depth > MAX_SCAN_DEPTH {
        return;
    }
    let d = depth + 1;
    if let ExprKind::AddrOf(inner) = &e.kind {
        if let Some(l) = addr_root(inner, 0) {
            out.insert(l);
        }
    }
    match &e.kind {
        ExprKind::Int(_)
        | ExprKind::Float(_)
        | ExprKind::Local(_)
        | ExprKind::Global(_)
        | ExprKind::Error => {}
        ExprKind::Unary { operand: x, .. }
        | ExprKind::Deref(x)
        | ExprKind::AddrOf(x)
        | ExprKind::Convert { expr: x, .. }
        | ExprKind::Member { base: x, .. }
        | ExprKind::Swizzle { base: x, .. }
        | ExprKind::IncDec { operand: x, .. } => scan_expr(x, out, d),
        ExprKind::Binary { lhs, rhs, .. }
        | ExprKind::PtrDiff { lhs, rhs }
        | ExprKind::Logical { lhs, rhs, .. }
        | ExprKind::Assign { lhs, rhs }
        | ExprKind::CompoundAssign { lhs, rhs, .. }
        | ExprKind::Comma { lhs, rhs } => {
            scan_expr(lhs, out, d);
            scan_expr(rhs, out, d);
        }
        ExprKind::PtrAdd { ptr, offset, .. } => {
            scan_expr(ptr, out, d);
            scan_expr(offset, out, d);
        }
        ExprKind::Index { base, index } => {
            scan_expr(base, out, d);
            scan_expr(index, out, d);
        }
        ExprKind::Conditional { cond, then, els } | ExprKind::Select { cond, then, els } => {
            scan_expr(cond, out, d);
            scan_expr(then, out, d);
            scan_expr(els, out, d);
        }
        ExprKind::Call { args, .. } | ExprKind::Builtin { args, .. } => {
            args.iter().for_each(|a| scan_expr(a, out, d))
        }
        ExprKind::VectorConstruct { elems } => elems.iter().for_each(|a| scan_expr(a, out, d)),
        ExprKind::CompoundLiteral { init, .. } => scan_init(init, out, d),
    }
}

/// The local an address is taken of: `x`, `x.f`, `x[i]` (array), `x.s0`.
fn addr_root(e: &Expr, depth: u32) -> Option<LocalId> {
    if depth > MAX_SCAN_DEPTH {
        return None;
    }
    match &e.kind {
        ExprKind::Local(l) | ExprKind::CompoundLiteral { local: l, .. } => Some(*l),
        ExprKind::Member { base, .. } | ExprKind::Swizzle { base, .. } => {
            addr_root(base, depth + 1)
        }
        ExprKind::Index { base, .. } if !base.ty.is_pointer() => addr_root(base, depth + 1),
        ExprKind::Convert {
            kind: ConvertKind::ArrayDecay,
            expr,
        } => addr_root(expr, depth + 1),
        _ => None,
    }
}
