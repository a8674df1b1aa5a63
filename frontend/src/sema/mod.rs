//! Name resolution and type checking: from the AST to the typed [`hir`].
//!
//! One pass over the items in source order (C requires declaration before
//! use; OpenCL forbids implicit function declarations), then whole-unit
//! checks on the call graph (recursion, functions called but never defined).
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
    let mut c = Checker::new(diags);
    for item in &unit.items {
        c.item(item);
    }
    c.finish()
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
        }
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
        if self.reported.insert((code, span)) {
            self.diags.push(Diagnostic::new(code, span, message));
        }
    }

    /// Enters one level of nesting; false (after reporting once) when the
    /// tree is too deep to check safely.
    pub fn enter(&mut self, span: Span) -> bool {
        if self.depth >= MAX_DEPTH {
            if !self.too_deep_reported {
                self.too_deep_reported = true;
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

    fn finish(mut self) -> hir::Unit {
        self.check_undefined_calls();
        self.check_recursion();
        self.unit
    }

    /// A call to a function that is declared but never defined: lanes
    /// compiles whole programs and needs every body.
    fn check_undefined_calls(&mut self) {
        let mut seen = HashSet::new();
        for f in 0..self.calls.len() {
            for i in 0..self.calls[f].len() {
                let (callee, span) = self.calls[f][i];
                let ci = callee.0 as usize;
                if self.sigs.get(ci).is_some_and(|s| !s.defined) && seen.insert(callee) {
                    let def = &self.unit.functions[ci];
                    let d = Diagnostic::new(
                        Code::InvalidDeclaration,
                        span,
                        format!("function `{}` is declared but never defined; lanes needs the body to compile it", def.name),
                    )
                    .with_related(def.name_span, format!("`{}` is declared here", def.name));
                    self.report(d);
                }
            }
        }
    }

    /// Finds cycles in the call graph with an iterative depth-first search and
    /// reports the call that closes each one.
    fn check_recursion(&mut self) {
        #[derive(Clone, Copy, PartialEq)]
        enum Color {
            White,
            Gray,
            Black,
        }
        let n = self.calls.len();
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
                if let Some(&(callee, span)) = self.calls[f].get(next) {
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
            let callee_name = self.unit.functions[callee].name.clone();
            let msg = if caller == callee {
                format!("function `{callee_name}` calls itself; recursion is not supported (lanes inlines every call)")
            } else {
                format!(
                    "call to `{callee_name}` closes a recursive cycle through `{}`; recursion is not supported (lanes inlines every call)",
                    self.unit.functions[caller].name
                )
            };
            let d = Diagnostic::new(Code::Recursion, span, msg).with_related(
                self.unit.functions[callee].name_span,
                format!("`{callee_name}` is defined here"),
            );
            self.report(d);
        }
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
