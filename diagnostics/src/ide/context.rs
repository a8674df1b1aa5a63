//! What every feature needs about one file: its front-end result, its text,
//! and its kernels' reports.

use std::path::PathBuf;
use std::sync::Arc;

use lanes_db::{Db, File, Kernel, KernelResult, Parsed};
use lanes_frontend::source::{FileId, Span};
use lanes_vectorizer::precond::Finding;
use lanes_vectorizer::report::KernelReport;
use smol_str::SmolStr;

use super::{Location, TextRange};

pub(crate) struct Ctx<'db> {
    pub db: &'db dyn Db,
    pub file: File,
    pub parsed: &'db Parsed,
}

pub(crate) struct KernelView<'db> {
    pub kernel: Kernel<'db>,
    pub name: SmolStr,
    /// `None` when the kernel was never analysed.
    pub result: Option<Arc<KernelResult>>,
    /// Inferred preconditions, once the server has computed them for the
    /// kernel's current analysis.
    pub findings: Option<Arc<Vec<Finding>>>,
    /// The kernel has errors now: `result` and `findings` are those of the
    /// last version in which it was analysed, where the text around them
    /// is unchanged ([`lanes_db::kernel_facts`]).
    pub stale: bool,
}

impl KernelView<'_> {
    pub fn report(&self) -> Option<&KernelReport> {
        self.result.as_deref().and_then(|r| r.as_ref().ok())
    }
}

impl<'db> Ctx<'db> {
    pub fn new(db: &'db dyn Db, file: File) -> Ctx<'db> {
        Ctx {
            db,
            file,
            parsed: lanes_db::parse(db, file),
        }
    }

    pub fn main(&self) -> FileId {
        self.parsed.unit.main
    }

    /// The file's text, as the front end saw it.
    pub fn text(&self) -> &'db str {
        let parsed: &'db Parsed = self.parsed;
        &parsed.unit.sources.get(parsed.unit.main).text
    }

    /// The range of a span of this file (`None` for other files).
    pub fn range(&self, span: Span) -> Option<TextRange> {
        (span.file == self.main()).then(|| TextRange::new(span.start, span.end))
    }

    /// The text of a span (any file).
    pub fn span_text(&self, span: Span) -> &'db str {
        let parsed: &'db Parsed = self.parsed;
        if (span.file.0 as usize) < parsed.unit.sources.len() {
            parsed.unit.sources.text(span)
        } else {
            ""
        }
    }

    pub fn path_of(&self, file: FileId) -> Option<PathBuf> {
        let sources = &self.parsed.unit.sources;
        if file.0 as usize >= sources.len() {
            return None;
        }
        let f = sources.get(file);
        if f.name.starts_with('<') {
            // `<built-in>`: no file to show.
            return None;
        }
        Some(f.path.clone().unwrap_or_else(|| PathBuf::from(&f.name)))
    }

    pub fn location(&self, span: Span) -> Option<Location> {
        Some(Location {
            path: self.path_of(span.file)?,
            range: TextRange::new(span.start, span.end),
        })
    }

    /// 1-based line of an offset of this file (for messages).
    pub fn line_number(&self, span: Span) -> u32 {
        let sources = &self.parsed.unit.sources;
        if span.file.0 as usize >= sources.len() {
            return 0;
        }
        sources.get(span.file).line_col(span.start).0
    }

    pub fn kernels(&self) -> Vec<KernelView<'db>> {
        self.views(lanes_db::kernels(self.db, self.file))
    }

    /// The kernels whose facts can be at `offset`: those that are, or
    /// inline, the function definition holding it (all kernels when it is
    /// in none). What a hover reads, without the other kernels' facts.
    pub fn kernels_at(&self, offset: u32) -> Vec<KernelView<'db>> {
        match self.kernels_over(TextRange::new(offset, offset)) {
            Some(ks) => self.views(ks),
            None => self.kernels(),
        }
    }

    /// The kernels whose facts can be inside `range` (facts are in function
    /// bodies): those that are, or inline, a function definition
    /// overlapping it.
    pub fn kernels_in(&self, range: TextRange) -> Vec<KernelView<'db>> {
        self.views(self.kernels_over(range).unwrap_or_default())
    }

    /// `None` when no function definition of this file overlaps `range`.
    fn kernels_over(&self, range: TextRange) -> Option<Vec<Kernel<'db>>> {
        let main = self.main();
        let holders: Vec<&SmolStr> = self
            .parsed
            .unit
            .hir
            .functions
            .iter()
            .filter(|f| {
                let span = f.span();
                f.unmoved().body.is_some()
                    && span.file == main
                    && span.start <= range.end
                    && range.start <= span.end
            })
            .map(|f| &f.unmoved().name)
            .collect();
        if holders.is_empty() {
            return None;
        }
        let graph = lanes_db::call_graph(self.db, self.file);
        let mut ks = lanes_db::kernels(self.db, self.file);
        ks.retain(|k| {
            let needs = graph.closure(k.name(self.db));
            holders.iter().any(|h| needs.contains(h))
        });
        Some(ks)
    }

    fn views(&self, kernels: Vec<Kernel<'db>>) -> Vec<KernelView<'db>> {
        let db = self.db;
        kernels
            .into_iter()
            .map(|k| {
                let facts = lanes_db::kernel_facts(db, k);
                KernelView {
                    kernel: k,
                    name: k.name(db).clone(),
                    result: facts.result,
                    findings: facts.findings,
                    stale: facts.stale,
                }
            })
            .collect()
    }

    /// The kernels whose facts are current (what edits may be built on)
    /// and can be inside `range` ([`Ctx::kernels_in`]).
    pub fn current_kernels_in(&self, range: TextRange) -> Vec<KernelView<'db>> {
        let mut ks = self.kernels_in(range);
        ks.retain(|k| !k.stale);
        ks
    }

    pub fn has_errors(&self) -> bool {
        self.parsed.unit.has_errors()
    }

    /// The target's display name (`avx512skx-x16`; `host` resolved) and width.
    pub fn target(&self) -> (String, u32) {
        let c = self.db.config();
        let name = c.target(self.db).clone();
        let width = c.width(self.db);
        let shown = if name == "host" {
            lanes_vectorizer::target::Target::host().name.to_string()
        } else {
            name
        };
        (shown, width)
    }
}

/// The short ISA name of a target (`avx512`, `avx2`, `sse4`, `neon`), or
/// the name itself for targets lanes does not know.
pub(crate) fn isa_short(target: &str) -> String {
    use lanes_vectorizer::target::{Isa, Target};
    match Target::from_name(target).map(|t| t.isa) {
        Some(Isa::Avx512Skx) => "avx512".into(),
        Some(Isa::Avx2) => "avx2".into(),
        Some(Isa::Sse4) => "sse4".into(),
        Some(Isa::Neon) => "neon".into(),
        None => target.to_string(),
    }
}

/// Leading whitespace of the line holding `offset`, and the line's start.
pub(crate) fn line_indent(text: &str, offset: u32) -> (u32, &str) {
    let off = (offset as usize).min(text.len());
    let start = text[..off].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let rest = &text[start..];
    let n = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    (start as u32, &rest[..n])
}

pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// Calls `f` on every statement of a block, outer before inner.
pub(crate) fn walk_stmts<'a>(
    stmts: &'a [lanes_frontend::hir::Stmt],
    f: &mut dyn FnMut(&'a lanes_frontend::hir::Stmt),
) {
    use lanes_frontend::hir::StmtKind;
    for s in stmts {
        f(s);
        match &s.kind {
            StmtKind::Block(b) => walk_stmts(&b.stmts, f),
            StmtKind::If { then, els, .. } => {
                walk_stmts(std::slice::from_ref(then), f);
                if let Some(e) = els {
                    walk_stmts(std::slice::from_ref(e), f);
                }
            }
            StmtKind::While { body, .. } | StmtKind::DoWhile { body, .. } => {
                walk_stmts(std::slice::from_ref(body), f)
            }
            StmtKind::For { init, body, .. } => {
                walk_stmts(init, f);
                walk_stmts(std::slice::from_ref(body), f);
            }
            StmtKind::Switch { body, .. } => walk_stmts(&body.stmts, f),
            _ => {}
        }
    }
}

/// The statements of the function bodies that overlap `range` (and of
/// those in other files).
pub(crate) fn stmts_in<'a>(ctx: &Ctx<'a>, range: TextRange) -> Vec<&'a lanes_frontend::hir::Stmt> {
    let parsed: &'a lanes_db::Parsed = ctx.parsed;
    let main = ctx.main();
    let mut out = Vec::new();
    for f in &parsed.unit.hir.functions {
        let span = f.span();
        let elsewhere = span.file == main && (span.end < range.start || range.end < span.start);
        if elsewhere {
            continue;
        }
        if let Some(b) = f.body.as_ref() {
            walk_stmts(&b.stmts, &mut |s| out.push(s));
        }
    }
    out
}

/// The end of the last `)` of this file's text in `start..end` (outside
/// comments): where a statement's header `if (...)` / `for (...)` ends.
pub(crate) fn last_paren_before(text: &str, start: u32, end: u32) -> Option<u32> {
    let slice = text.get(start as usize..end as usize)?;
    let mut diags = Vec::new();
    let toks = lanes_frontend::lexer::lex(FileId(0), slice, &mut diags);
    toks.iter()
        .rev()
        .find(|t| t.kind == lanes_frontend::lexer::TokenKind::RParen)
        .map(|t| start + t.span.end)
}

/// A declaration as C spells it: `float *p`, `int a[4]`, `float x`.
pub(crate) fn decl_text(ty: &str, name: &str) -> String {
    if let Some(i) = ty.find('[') {
        return format!("{} {name}{}", ty[..i].trim_end(), &ty[i..]);
    }
    if ty.ends_with('*') {
        format!("{ty}{name}")
    } else {
        format!("{ty} {name}")
    }
}
