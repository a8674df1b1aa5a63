//! Name resolution and type checking: from the AST to the typed [`hir`].
//!
//! One pass over the items in source order (C requires declaration before
//! use; OpenCL forbids implicit function declarations), then whole-unit
//! checks on the call graph (recursion, functions called but never defined).
//! After an edit inside one function body, [`check_function_again`] checks
//! that function alone when no item's checking depends on another's body.
//!
//! Error recovery: an expression that failed to check has [`Type::Error`],
//! which is compatible with everything, and no diagnostic is reported for an
//! operation on such an operand, so one mistake gives one message.
//!
//! Submodules: `decl` (types, declarations, items), `expr` (expressions),
//! `conv` (implicit conversions and operand rules), `stmt` (statements and
//! initializers), `consteval` (constant folding over the HIR).

mod compound;
mod consteval;
mod conv;
mod decl;
mod expr;
mod image;
mod stmt;
#[cfg(test)]
mod tests;
mod workgroup;

use std::collections::{HashMap, HashSet};

use smol_str::SmolStr;

use crate::ast::{self, AddressSpace};
use crate::diag::{Code, Diagnostic, Severity};
use crate::hir::{self, ConstValue, FuncId, GlobalId, LocalId};
use crate::source::Span;
use crate::types::{StructId, Type};

/// Nesting limit for expressions and statements. The parser caps its trees at
/// 256 levels; this guards hand-built or future trees.
pub const MAX_DEPTH: u32 = 300;

/// Checks a translation unit. Every problem becomes a diagnostic; the
/// returned HIR is complete for the parts that checked.
pub fn check(unit: &ast::TranslationUnit, diags: &mut Vec<Diagnostic>) -> hir::Unit {
    check_recording(unit, diags).0
}

/// [`check`], also returning what checking each item did ([`Checks`]), to
/// check one function definition again after an edit
/// ([`check_function_again`]).
pub fn check_recording(
    unit: &ast::TranslationUnit,
    diags: &mut Vec<Diagnostic>,
) -> (hir::Unit, Checks) {
    let mut c = Checker::new(diags);
    let items = unit
        .items
        .iter()
        .map(|item| c.item_recorded(item))
        .collect();
    let calls = c.calls.clone();
    let defined = c.sigs.iter().map(|s| s.defined).collect();
    let before = c.diags.len();
    let hir = c.finish();
    let finish = (diags.len() - before) as u32;
    let checks = Checks {
        items,
        calls,
        defined,
        finish,
        first: 0,
    };
    (hir, checks)
}

/// What checking each item of a unit did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Checks {
    /// One per item of the translation unit, in order.
    pub items: Vec<ItemCheck>,
    /// The calls each function makes (callee, call), indexed by [`FuncId`].
    pub calls: Vec<Vec<(FuncId, Span)>>,
    /// Whether each function has a body, indexed by [`FuncId`].
    pub defined: Vec<bool>,
    /// How many diagnostics the whole-unit checks (after the items) reported.
    pub finish: u32,
    /// Where checking's diagnostics start among the unit's (set by
    /// [`crate::unit`], after the preprocessor's and the parser's).
    pub first: u32,
}

/// What checking one item did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ItemCheck {
    /// How many diagnostics it reported (they follow the earlier items').
    pub diagnostics: u32,
    /// The function whose body it is, for a function definition.
    pub function: Option<FuncId>,
    /// Its checking depends on no other item's body and no other item's
    /// checking depends on its body: the body added nothing to the file's
    /// tables (functions, structs, globals, file-scope names), every place
    /// it reported once (`reported`) lies inside the item, and it did not
    /// reach the nesting limit (reported once per unit).
    pub alone: bool,
}

/// The checked unit after an edit strictly inside the body of the
/// function definition `ast.items[k]`, from the previous unit's HIR,
/// [`Checks`] and checking diagnostics (`previous`, whose positions `m`
/// moves to the new text): the items before it are declared again without
/// their bodies, it is checked, every other item's result is the previous
/// one moved, and the whole-unit checks run again. Exactly what
/// [`check_recording`] gives, or `None` when that cannot be told: an item
/// that is not checked alone, or the function's id changed.
pub fn check_function_again(
    ast: &ast::TranslationUnit,
    k: usize,
    previous: (&hir::Unit, &Checks, &[Diagnostic]),
    m: &mut crate::moved::Move,
) -> Option<(hir::Unit, Checks, Vec<Diagnostic>)> {
    use crate::moved::MoveSpans;
    let (old_hir, old_checks, old_diags) = previous;
    if old_checks.items.len() != ast.items.len() || !old_checks.items.iter().all(|i| i.alone) {
        return None;
    }
    let counts: Vec<usize> = old_checks
        .items
        .iter()
        .map(|i| i.diagnostics as usize)
        .collect();
    let items_end: usize = counts.iter().sum();
    if items_end + old_checks.finish as usize != old_diags.len() {
        return None;
    }
    let mut scratch = Vec::new();
    let mut c = Checker::new(&mut scratch);
    c.skip_bodies = true;
    for item in &ast.items[..k] {
        c.item(item);
    }
    c.skip_bodies = false;
    let before = c.diags.len();
    let record = c.item_recorded(&ast.items[k]);
    let id = record.function?;
    if !record.alone || record.function != old_checks.items[k].function {
        return None;
    }
    let i = id.0 as usize;
    if c.unit.functions.len() <= i || c.calls.len() <= i {
        return None;
    }
    // (The checker is dropped below.)
    let mut function = Some(c.unit.functions.swap_remove(i));
    let calls = c.calls.swap_remove(i);
    let item_diags = c.diags.split_off(before);
    drop(c);
    if old_hir.functions.len() <= i || old_checks.calls.len() <= i {
        return None;
    }

    let mut functions = Vec::with_capacity(old_hir.functions.len());
    for (j, f) in old_hir.functions.iter().enumerate() {
        if j == i {
            functions.extend(function.take());
        } else {
            functions.push(moved_function(m, f));
        }
    }
    let mut structs = old_hir.structs.clone();
    structs.move_spans(m);
    let mut globals = old_hir.globals.clone();
    globals.move_spans(m);
    let hir = hir::Unit {
        functions,
        structs,
        globals,
        fp_contract_off: Vec::new(),
        loop_hints: Vec::new(),
    };
    let mut all_calls = old_checks.calls.clone();
    all_calls[i] = Vec::new();
    all_calls.move_spans(m);
    all_calls[i] = calls;

    let at: usize = counts[..k].iter().sum();
    let mut diags = old_diags[..at].to_vec();
    diags.move_spans(m);
    diags.extend(item_diags);
    let mut after = old_diags[at + counts[k]..items_end].to_vec();
    after.move_spans(m);
    diags.extend(after);
    if m.lost {
        return None;
    }
    let mut items = old_checks.items.clone();
    items[k] = record;
    let defined = old_checks.defined.clone();
    let before = diags.len();
    check_undefined_calls(&hir, &all_calls, &defined, &mut diags);
    check_recursion(&hir, &all_calls, &mut diags);
    let finish = (diags.len() - before) as u32;
    let checks = Checks {
        items,
        calls: all_calls,
        defined,
        finish,
        first: 0,
    };
    Some((hir, checks, diags))
}

/// `f` after the edit of `m`: shared when the edit moves none of its
/// spans, shared with the edit pending when it moves them all by its length
/// (a function after the edited one), else copied and moved now.
pub(crate) fn moved_function(
    m: &mut crate::moved::Move,
    f: &crate::moved::Pending<hir::Function>,
) -> crate::moved::Pending<hir::Function> {
    use crate::moved::MoveSpans;
    let base = f.unmoved();
    let edit = m.edit();
    // Its own span, its locals' and its body's, where they are now: each
    // kept, or wholly after the edit.
    let (mut kept, mut after) = (true, true);
    let mut see = |s: Span| {
        let s = f.current(s);
        let keeps = m.keeps(s);
        kept &= keeps;
        after &= keeps || s.file == edit.file && s.start >= edit.to && s.start > edit.from;
    };
    see(base.span);
    see(base.name_span);
    for l in &base.locals {
        see(l.span);
        see(l.name_span);
    }
    if let Some(b) = &base.body {
        see(b.span);
    }
    if kept {
        return f.clone();
    }
    if after && edit.delta != 0 {
        return f.moved_by(edit);
    }
    let mut g = hir::Function::clone(f);
    g.move_spans(m);
    crate::moved::Pending::new(g)
}

/// A type with the qualifiers of the outermost level, as declarations need
/// them before they become a [`Type`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct QualType {
    pub ty: Type,
    pub is_const: bool,
    pub space: Option<(AddressSpace, Span)>,
    /// `size_t`, `ptrdiff_t`, `intptr_t` or `uintptr_t` as spelled (they are
    /// `ulong`/`long` but may not be kernel parameter types).
    pub spelled: Option<&'static str>,
}

impl QualType {
    pub fn plain(ty: Type) -> QualType {
        QualType {
            ty,
            is_const: false,
            space: None,
            spelled: None,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Sym {
    Local(LocalId),
    Global(GlobalId),
    Func(FuncId),
    Typedef(Box<QualType>),
    /// An enumerator (enums are unsupported but their constants are typed
    /// as `int` so that checking can go on).
    EnumConst(i64),
}

#[derive(Clone, Debug)]
pub(crate) struct Binding {
    pub sym: Sym,
    pub span: Span,
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Tag {
    /// A struct or union (`StructDef::is_union` tells which).
    Struct(StructId),
    /// An enum; `defined` is false for a forward reference (`enum E;`).
    Enum { defined: bool },
}

/// A fast non-cryptographic hasher for identifiers (the FxHash function used
/// by rustc): name lookups dominate checking time, and inputs are not
/// adversarial enough for hash flooding to matter in an editor.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type FxMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

#[derive(Default)]
pub(crate) struct Scope {
    pub names: FxMap<SmolStr, Binding>,
    pub tags: FxMap<SmolStr, (Tag, Span)>,
}

/// The signature of a user function, for calls.
pub(crate) struct FuncSig {
    pub params: Vec<Type>,
    pub ret: Type,
    /// `f(int n, ...)`: unsupported, but calls with extra arguments are not
    /// reported a second time.
    pub variadic: bool,
    pub defined: bool,
}

pub(crate) struct SwitchCtx {
    pub ty: Type,
    pub cases: HashMap<i64, Span>,
    pub default: Option<Span>,
}

/// State of the function being checked.
pub(crate) struct FnCtx {
    pub id: FuncId,
    pub name: SmolStr,
    pub locals: Vec<hir::Local>,
    pub ret: Type,
    pub is_kernel: bool,
    pub loop_depth: u32,
    pub switches: Vec<SwitchCtx>,
    /// Loops and switches enclosing the current statement (for `break`).
    pub breakable: u32,
    pub callees: Vec<FuncId>,
    /// Values of `const` locals with constant initializers (clang folds them
    /// in array sizes and case labels).
    pub const_locals: HashMap<LocalId, ConstValue>,
}

pub(crate) struct Checker<'a> {
    pub diags: &'a mut Vec<Diagnostic>,
    pub unit: hir::Unit,
    pub sigs: Vec<FuncSig>,
    /// Calls made by each function (callee, call span), for the call graph.
    pub calls: Vec<Vec<(FuncId, Span)>>,
    pub scopes: Vec<Scope>,
    pub func: Option<FnCtx>,
    /// Unsupported features already reported at a location.
    pub reported: HashSet<(Code, Span)>,
    pub depth: u32,
    pub too_deep_reported: bool,
    /// Function definitions are declared, their bodies not checked (to
    /// rebuild the file scope before one item, [`check_function_again`]).
    pub skip_bodies: bool,
    /// The item being checked, and whether it is still checked alone
    /// ([`ItemCheck::alone`]).
    pub item_span: Option<Span>,
    pub alone: bool,
    /// The function whose body was checked last.
    pub defined_last: Option<FuncId>,
}

impl<'a> Checker<'a> {
    fn new(diags: &'a mut Vec<Diagnostic>) -> Self {
        Checker {
            diags,
            unit: hir::Unit::default(),
            sigs: Vec::new(),
            calls: Vec::new(),
            scopes: vec![Scope::default()],
            func: None,
            reported: HashSet::new(),
            depth: 0,
            too_deep_reported: false,
            skip_bodies: false,
            item_span: None,
            alone: true,
            defined_last: None,
        }
    }

    /// Checks an item and records what that did.
    pub(crate) fn item_recorded(&mut self, item: &ast::Item) -> ItemCheck {
        let before = self.diags.len();
        self.item_span = Some(item.span);
        self.alone = true;
        self.defined_last = None;
        self.item(item);
        self.item_span = None;
        ItemCheck {
            diagnostics: (self.diags.len() - before) as u32,
            function: self.defined_last.take(),
            alone: self.alone,
        }
    }

    /// Whether `(code, span)` is reported here for the first time.
    pub(crate) fn first_report(&mut self, code: Code, span: Span) -> bool {
        let inside = self
            .item_span
            .is_some_and(|i| i.file == span.file && i.start <= span.start && span.end <= i.end);
        if !inside {
            self.alone = false;
        }
        self.reported.insert((code, span))
    }

    /// The sizes of the file's tables, to tell whether a body added to them.
    pub(crate) fn table_sizes(&self) -> [usize; 7] {
        [
            self.unit.functions.len(),
            self.unit.structs.len(),
            self.unit.globals.len(),
            self.sigs.len(),
            self.calls.len(),
            self.scopes[0].names.len(),
            self.scopes[0].tags.len(),
        ]
    }

    // --- diagnostics -------------------------------------------------------

    pub fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    pub fn error(&mut self, code: Code, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::new(code, span, message));
    }

    pub fn warning(&mut self, code: Code, span: Span, message: impl Into<String>) {
        let mut d = Diagnostic::new(code, span, message);
        d.severity = Severity::Warning;
        self.diags.push(d);
    }

    /// Reports an unsupported feature once per location.
    pub fn unsupported(&mut self, code: Code, span: Span, message: impl Into<String>) {
        if self.first_report(code, span) {
            self.diags.push(Diagnostic::new(code, span, message));
        }
    }

    /// Enters one level of nesting; false (after reporting once) when the
    /// tree is too deep to check safely.
    pub fn enter(&mut self, span: Span) -> bool {
        if self.depth >= MAX_DEPTH {
            if !self.too_deep_reported {
                self.too_deep_reported = true;
                self.alone = false;
                self.error(
                    Code::TooDeep,
                    span,
                    format!("nesting too deep: more than {MAX_DEPTH} levels"),
                );
            }
            return false;
        }
        self.depth += 1;
        true
    }

    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// A type as the user would spell it.
    pub fn tn(&self, ty: &Type) -> String {
        hir::type_name(ty, &self.unit.structs)
    }

    // --- scopes -------------------------------------------------------------

    pub fn push_scope(&mut self) {
        self.scopes.push(Scope::default());
    }

    pub fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    pub fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.names.get(name))
    }

    pub fn lookup_tag(&self, name: &str) -> Option<(Tag, Span)> {
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.tags.get(name).copied())
    }

    /// Declares `name` in the innermost scope; a second declaration in the
    /// same scope is a redefinition (reported; the new binding wins so
    /// later uses resolve to something).
    pub fn declare(&mut self, name: &SmolStr, span: Span, sym: Sym) {
        let scope = self
            .scopes
            .last_mut()
            .expect("the file scope always exists");
        if let Some(prev) = scope.names.get(name) {
            let prev_span = prev.span;
            let d = Diagnostic::new(
                Code::Redefinition,
                span,
                format!("redefinition of `{name}`"),
            )
            .with_label("redefined here")
            .with_related(
                prev_span,
                format!("previous definition of `{name}` is here"),
            );
            self.report(d);
        }
        let scope = self
            .scopes
            .last_mut()
            .expect("the file scope always exists");
        scope.names.insert(name.clone(), Binding { sym, span });
    }

    /// Names visible here, for "did you mean" suggestions.
    pub fn visible_names(&self) -> Vec<SmolStr> {
        let mut out = Vec::new();
        for s in &self.scopes {
            for (name, b) in &s.names {
                if !matches!(b.sym, Sym::Typedef(_)) {
                    out.push(name.clone());
                }
            }
        }
        out
    }

    // --- whole-unit checks -------------------------------------------------

    fn finish(self) -> hir::Unit {
        let defined: Vec<bool> = self.sigs.iter().map(|s| s.defined).collect();
        check_undefined_calls(&self.unit, &self.calls, &defined, self.diags);
        check_recursion(&self.unit, &self.calls, self.diags);
        self.unit
    }
}

/// A call to a function that is declared but never defined: lanes
/// compiles whole programs and needs every body.
fn check_undefined_calls(
    unit: &hir::Unit,
    calls: &[Vec<(FuncId, Span)>],
    defined: &[bool],
    diags: &mut Vec<Diagnostic>,
) {
    let mut seen = HashSet::new();
    for f in calls {
        for &(callee, span) in f {
            let ci = callee.0 as usize;
            if defined.get(ci).is_some_and(|d| !d) && seen.insert(callee) {
                let def = &unit.functions[ci];
                let d = Diagnostic::new(
                    Code::InvalidDeclaration,
                    span,
                    format!("function `{}` is declared but never defined; lanes needs the body to compile it", def.name),
                )
                .with_related(def.name_span, format!("`{}` is declared here", def.name));
                diags.push(d);
            }
        }
    }
}

/// Finds cycles in the call graph with an iterative depth-first search and
/// reports the call that closes each one.
fn check_recursion(unit: &hir::Unit, calls: &[Vec<(FuncId, Span)>], diags: &mut Vec<Diagnostic>) {
    #[derive(Clone, Copy, PartialEq)]
    enum Color {
        White,
        Gray,
        Black,
    }
    let n = calls.len();
    let mut color = vec![Color::White; n];
    let mut found: Vec<(usize, usize, Span)> = Vec::new();
    for root in 0..n {
        if color[root] != Color::White {
            continue;
        }
        // (function, index of the next call to follow)
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        color[root] = Color::Gray;
        while let Some(top) = stack.last_mut() {
            let (f, next) = *top;
            if let Some(&(callee, span)) = calls[f].get(next) {
                top.1 += 1;
                let c = callee.0 as usize;
                if c >= n {
                    continue;
                }
                match color[c] {
                    Color::White => {
                        color[c] = Color::Gray;
                        stack.push((c, 0));
                    }
                    Color::Gray => found.push((f, c, span)),
                    Color::Black => {}
                }
            } else {
                color[f] = Color::Black;
                stack.pop();
            }
        }
    }
    for (caller, callee, span) in found {
        let callee_name = unit.functions[callee].name.clone();
        let msg = if caller == callee {
            format!("function `{callee_name}` calls itself; recursion is not supported (lanes inlines every call)")
        } else {
            format!(
                "call to `{callee_name}` closes a recursive cycle through `{}`; recursion is not supported (lanes inlines every call)",
                unit.functions[caller].name
            )
        };
        let d = Diagnostic::new(Code::Recursion, span, msg).with_related(
            unit.functions[callee].name_span,
            format!("`{callee_name}` is defined here"),
        );
        diags.push(d);
    }
}

/// Edit distance with adjacent transpositions (optimal string alignment),
/// capped: `None` when above `max`. `widht` is one edit from `width`.
fn edit_distance(a: &str, b: &str, max: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let w = b.len() + 1;
    // Three rows: i-2, i-1, i.
    let mut rows = vec![vec![0usize; w]; 3];
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        let (cur, prev, prev2) = (i % 3, (i + 2) % 3, (i + 1) % 3);
        rows[cur][0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (rows[prev][j] + 1)
                .min(rows[cur][j - 1] + 1)
                .min(rows[prev][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(rows[prev2][j - 2] + 1);
            }
            rows[cur][j] = d;
        }
    }
    let d = rows[a.len() % 3][b.len()];
    (d <= max).then_some(d)
}

/// The closest candidate within a small edit distance, for "did you mean".
pub(crate) fn suggest<'s>(
    name: &str,
    candidates: impl IntoIterator<Item = &'s str>,
) -> Option<String> {
    let max = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name {
            continue;
        }
        if let Some(d) = edit_distance(name, c, max) {
            if best.is_none_or(|(bd, bc)| d < bd || (d == bd && c < bc)) {
                best = Some((d, c));
            }
        }
    }
    best.map(|(_, c)| c.to_string())
}

#[cfg(test)]
mod unit_tests {
    use super::*;

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("widht", "width", 1), Some(1));
        assert_eq!(edit_distance("kitten", "sitting", 5), Some(3));
        assert_eq!(edit_distance("abc", "abcdef", 2), None);
        assert_eq!(edit_distance("", "a", 1), Some(1));
        assert_eq!(
            suggest("get_global_idx", ["get_global_id", "get_local_id"]),
            Some("get_global_id".to_string())
        );
        assert_eq!(suggest("x", ["y"]), Some("y".to_string()));
        assert_eq!(suggest("foo", ["width"]), None);
    }
}
