//! Hover: on a variable its shape across the lanes, why, and how it is kept
//! (scalar register, vector register, per-lane memory); on a memory access
//! its pattern and the instruction it becomes; on any other expression its
//! shape; on a kernel's name a summary of the kernel; on a loop or branch
//! keyword, the loop or branch ([`super::control`]).

use std::fmt::Write;

use lanes_db::{Db, File};
use lanes_frontend::source::Span;
use lanes_vectorizer::divergence::MaskKind;
use lanes_vectorizer::ir::{InstKind, WorkItem};
use lanes_vectorizer::report::{
    AccessFact, AccessKind, KernelReport, MemSpace, Pattern, ShapeKind, Step,
};
use lanes_vectorizer::shape::Shape;

use super::context::{decl_text, plural, Ctx, KernelView};
use super::index::{self, Sym, SymbolIndex};
use super::TextRange;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    /// What the hover is about (the word, access or expression).
    pub range: TextRange,
    pub markdown: String,
}

/// The hover at a byte offset of the file.
pub fn hover(db: &dyn Db, file: File, offset: u32) -> Option<Hover> {
    let ctx = Ctx::new(db, file);
    let index = SymbolIndex::around(&ctx, offset);
    let kernels = ctx.kernels_at(offset);
    if let Some((range, markdown)) = super::control::keyword_hover(&ctx, &kernels, offset) {
        return Some(Hover { range, markdown });
    }
    // What the cursor is inside; only when that is nothing, what ends
    // right before it (`input|[i]` is on the access, `x|;` on `x`).
    let mut occ = index.at_strict(offset).cloned();
    let mut access = smallest_access(&ctx, &kernels, offset, true);
    if occ.is_none() && access.is_none() {
        occ = index.at(offset).cloned();
        access = smallest_access(&ctx, &kernels, offset, false);
    }

    if let Some(o) = &occ {
        if let Sym::Function(fi) = o.sym {
            let f = ctx.parsed.unit.hir.functions.get(fi as usize)?;
            if f.is_kernel && f.body.is_some() {
                let k = kernels.iter().find(|k| k.name == f.name);
                return Some(Hover {
                    range: o.range,
                    markdown: kernel_summary(&ctx, &f.name, k),
                });
            }
        }
    }
    let mut parts: Vec<String> = Vec::new();
    let mut range = None;
    if let Some(o) = &occ {
        if let Some(s) = symbol_section(&ctx, &kernels, &o.sym) {
            parts.push(s);
            range = Some(o.range);
        }
    }
    // The access itself, unless the cursor is on a name inside its index.
    if let Some((r, text)) = &access {
        let on_base = occ.as_ref().is_none_or(|o| o.range.start == r.start);
        if on_base || parts.is_empty() {
            parts.push(text.clone());
            range = range.or(Some(*r));
        }
    }
    if let Some((r, text)) = barrier_section(&ctx, &kernels, offset) {
        parts.push(text);
        range = range.or(Some(r));
    }
    // On a loop's header, a branch's condition or an access: its fast path.
    let fast = fast_path_section(&ctx, &kernels, offset);
    if parts.is_empty() {
        match (&fast, expression_section(&ctx, &kernels, offset)) {
            (Some((r, _)), _) => range = Some(*r),
            (None, Some((r, text))) => {
                parts.push(text);
                range = Some(r);
            }
            (None, None) => return None,
        }
    }
    if let Some((_, text)) = fast {
        parts.push(text);
    }
    if let Some(k) = stale_kernel_at(&ctx, &kernels, offset) {
        parts.push(stale_note(k));
    }
    Some(Hover {
        range: range?,
        markdown: parts.join("\n\n---\n\n"),
    })
}

/// The kernel with errors whose definition holds `offset`, if its facts
/// are shown from its last analysed version.
fn stale_kernel_at<'k>(
    ctx: &Ctx<'_>,
    kernels: &'k [KernelView<'_>],
    offset: u32,
) -> Option<&'k str> {
    let hir = &ctx.parsed.unit.hir;
    kernels.iter().filter(|k| k.stale).find_map(|k| {
        let f = hir.functions.iter().find(|f| f.unmoved().name == k.name)?;
        let r = ctx.range(f.span)?;
        (r.start <= offset && offset <= r.end).then_some(k.name.as_str())
    })
}

fn stale_note(kernel: &str) -> String {
    format!("*`{kernel}` has errors now: facts from its last version without errors*")
}

/// On a barrier or work-group collective: what it waits for and orders,
/// and whether every work-item of the work-group reaches it (and if not,
/// why).
fn barrier_section(
    ctx: &Ctx<'_>,
    kernels: &[KernelView<'_>],
    offset: u32,
) -> Option<(TextRange, String)> {
    use lanes_vectorizer::report::BarrierKind;
    let mut range = None;
    let mut s = String::new();
    for k in kernels {
        let Some(r) = k.report() else { continue };
        for b in &r.barriers {
            let Some(at) = ctx.range(b.span) else {
                continue;
            };
            if !at.touches(offset) || range.is_some_and(|x: TextRange| x != at) {
                continue;
            }
            range = Some(at);
            if s.is_empty() {
                match b.kind {
                    BarrierKind::Barrier => {
                        let fences = lanes_vectorizer::report::fence_names(b.flags);
                        let _ = writeln!(
                            s,
                            "**work-group barrier**: every work-item of the work-group waits here until all have arrived{}.",
                            if fences.is_empty() {
                                "; it orders no memory".to_string()
                            } else {
                                format!(
                                    "; it makes earlier writes to {} visible to the work-group (`{}`)",
                                    fences
                                        .iter()
                                        .map(|f| match *f {
                                            "CLK_LOCAL_MEM_FENCE" => "`__local` memory",
                                            "CLK_GLOBAL_MEM_FENCE" => "`__global` memory",
                                            _ => "images",
                                        })
                                        .collect::<Vec<_>>()
                                        .join(" and "),
                                    fences.join(" | ")
                                )
                            }
                        );
                    }
                    BarrierKind::Collective => s.push_str(
                        "**work-group collective**: it combines a value of every work-item of the work-group, with a barrier.
",
                    ),
                }
            }
            if b.uniform {
                let _ = write!(
                    s,
                    "
In kernel `{}`: **reached by every work-item** of the work-group (its control is the same for the whole work-group).
",
                    r.name
                );
            } else {
                let _ = write!(
                    s,
                    "
In kernel `{}`: **not reached by every work-item** of the work-group (L0401): work-items that skip it leave the others waiting.
",
                    r.name
                );
                if !b.reason.is_empty() {
                    let _ = write!(
                        s,
                        "
**why**:
{}",
                        chain(ctx, &b.reason)
                    );
                }
            }
        }
    }
    Some((range?, s.trim_end().to_string()))
}

/// For a kernel-scope `__local` variable: its size per work-group and how
/// each kernel accesses it.
fn local_memory_section(
    ctx: &Ctx<'_>,
    kernels: &[KernelView<'_>],
    name: &str,
    name_span: Span,
) -> Option<String> {
    let mut s = String::new();
    for k in kernels {
        let Some(r) = k.report() else { continue };
        let a = lanes_db::kernel_analysis(ctx.db, k.kernel);
        let Some(ka) = &a.analysis else { continue };
        let map = lanes_db::span_map(ctx.db, k.kernel);
        let Some(var) = ka.func.locals.iter().find(|v| {
            let at = map.map(v.span);
            v.name == name
                && at.file == name_span.file
                && at.start <= name_span.start
                && name_span.end <= at.end
        }) else {
            continue;
        };
        if s.is_empty() {
            let _ = writeln!(
                s,
                "`__local`: one object of {} bytes per work-group, shared by its work-items (the SIMD groups of a work-group see each other's writes after a barrier)",
                var.size
            );
        }
        let uses: Vec<&AccessFact> = r
            .accesses
            .iter()
            .filter(|a| {
                a.space == lanes_frontend::ast::AddressSpace::Local
                    && mentions(ctx.span_text(a.span), name)
            })
            .collect();
        if uses.is_empty() {
            continue;
        }
        let _ = writeln!(
            s,
            "
accesses in kernel `{}` ({} lanes):",
            r.name, r.width
        );
        for a in uses {
            let (short, _) = access_words(a, r.width);
            let _ = writeln!(
                s,
                "- line {}: `{}`: {} {}",
                ctx.line_number(a.span),
                ctx.span_text(a.span),
                short,
                a.kind.as_str()
            );
        }
    }
    (!s.is_empty()).then_some(s)
}

/// True when `text` uses the identifier `name`.
fn mentions(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(ident) && !after.is_some_and(ident)
    })
}

/// The inferred precondition of the loop (cursor in its header), branch
/// (in its condition) or access under the cursor: what it is, for the
/// group, how often it holds, how it was proven.
fn fast_path_section(
    ctx: &Ctx<'_>,
    kernels: &[KernelView<'_>],
    offset: u32,
) -> Option<(TextRange, String)> {
    use lanes_vectorizer::precond::TargetKind;
    let mut best: Option<(TextRange, &lanes_vectorizer::precond::Finding)> = None;
    for k in kernels {
        let Some(found) = &k.findings else { continue };
        for f in found.iter() {
            let Some(r) = ctx.range(f.span) else { continue };
            // A loop's span is the whole statement: only its header counts.
            let hot = match f.kind {
                TargetKind::Loop => loop_header(ctx.text(), r),
                _ => r,
            };
            if hot.touches(offset) && best.is_none_or(|(b, _)| hot.len() < b.len()) {
                best = Some((hot, f));
            }
        }
    }
    let (r, f) = best?;
    Some((r, fast_path_text(f)))
}

/// What the precondition inference found for one target: the fast path's
/// condition, for the group, how often it holds, how it was proven, or
/// why there is none.
pub(super) fn fast_path_text(f: &lanes_vectorizer::precond::Finding) -> String {
    use lanes_vectorizer::precond::Outcome;
    let what = f.kind.as_str();
    let mut s = String::new();
    match &f.outcome {
        Outcome::Found(p) => {
            let _ = write!(
                s,
                "**Fast path**: when every lane of the SIMD group satisfies `{}`, {}.",
                p.lane, p.effect
            );
            if let Some(g) = &p.group {
                let _ = write!(s, "\n\nFor the group, with x0 the value of lane 0: `{g}`.");
            }
            if let Some(c) = &p.coverage {
                let _ = write!(
                    s,
                    "\n\nHolds for {:.1}% of the SIMD groups of the launch hint ({} of {}).",
                    c.percent(),
                    c.groups,
                    c.total
                );
            }
            let how = if p.method == "cegis" {
                "Synthesized from samples (CEGIS)"
            } else {
                "Found by deciding the min/max/select pieces it depends on"
            };
            let _ = write!(
                s,
                "\n\n{how}; proven with Z3 for every lane ({} queries, {:.0} ms).",
                f.queries, f.millis
            );
            if f.stmt.is_some() {
                s.push_str(" The code action *Add fast path* inserts `if (sub_group_all(P)) { <copy> } else { <original> }`; inside the copy the analysis assumes P.");
            }
            for r in &p.rejected {
                let _ = write!(s, "\n\nRejected by the verifier: `{r}`.");
            }
        }
        Outcome::OutOfBudget(why) => {
            let budget = match why {
                lanes_vectorizer::precond::Exhausted::Target => "its budget",
                lanes_vectorizer::precond::Exhausted::File => {
                    "the file's budget (spent by earlier targets; not tried)"
                }
                lanes_vectorizer::precond::Exhausted::Wall => "the wall-clock safety limit",
            };
            let _ = write!(
                s,
                "**No fast path** for this {what} found within {budget} ({} resource units, {:.0} ms).",
                f.spent, f.millis
            );
        }
        Outcome::NotFound(why) => {
            let _ = write!(s, "**No fast path** for this {what}: {why}.");
        }
    }
    s
}

/// The header of the loop statement at `r`: `for (...)` / `while (...)`
/// up to the parenthesis that closes the first one, `do` alone.
fn loop_header(text: &str, r: TextRange) -> TextRange {
    use lanes_frontend::lexer::{lex, TokenKind};
    let Some(slice) = text.get(r.start as usize..r.end as usize) else {
        return r;
    };
    let mut diags = Vec::new();
    let toks = lex(lanes_frontend::source::FileId(0), slice, &mut diags);
    let mut depth = 0u32;
    for (i, t) in toks.iter().enumerate() {
        match t.kind {
            TokenKind::LParen => depth += 1,
            TokenKind::RParen if depth == 1 => {
                return TextRange::new(r.start, r.start + t.span.end);
            }
            TokenKind::RParen => depth = depth.saturating_sub(1),
            _ if i == 0 && t.text == "do" => {
                return TextRange::new(r.start, r.start + t.span.end);
            }
            _ => {}
        }
    }
    r
}

/// What a shape means for one lane, in words.
pub(crate) fn shape_words(shape: Shape, kind: ShapeKind) -> String {
    let align = match shape {
        Shape::Strided { align, .. } | Shape::Varying { align } if align > 1 => {
            format!("; lane 0 holds a multiple of {align}")
        }
        _ => String::new(),
    };
    let what = match (kind, shape) {
        (ShapeKind::Uniform, _) => "the same value in every lane".to_string(),
        (ShapeKind::Contiguous, _) => "lane `l` holds `v0 + l`".to_string(),
        (ShapeKind::Strided, Shape::Strided { stride, .. }) => {
            format!("lane `l` holds `v0 + {stride}*l`")
        }
        _ => "lanes hold unrelated values".to_string(),
    };
    format!("{what}{align}")
}

/// The shape's name as users see it: `uniform`, `contiguous`, `strided(4)`.
pub(crate) fn shape_name(shape: Shape, kind: ShapeKind) -> String {
    match (kind, shape) {
        (ShapeKind::Strided, Shape::Strided { stride, .. }) => format!("strided({stride})"),
        _ => kind.as_str().to_string(),
    }
}

/// A reason chain as a compact markdown list.
pub(super) fn chain(ctx: &Ctx<'_>, steps: &[Step]) -> String {
    let mut s = String::new();
    for st in steps {
        let _ = writeln!(s, "- line {}: {}", ctx.line_number(st.span), st.text);
    }
    s
}

/// Short and long description of a memory access: the inlay hint's word
/// and the hover's sentence.
pub(crate) fn access_words(a: &AccessFact, width: u32) -> (String, String) {
    if a.space == MemSpace::Image {
        return image_access_words(a, width);
    }
    let masked = a.mask == MaskKind::Varying;
    let elems = |s: i64| if a.size > 0 { s / a.size as i64 } else { 0 };
    let (short, long) = match (a.kind, a.pattern) {
        (AccessKind::Atomic, Pattern::Uniform) if a.one_lane => (
            "atomic, one lane".to_string(),
            "one atomic operation: at most one lane runs it (its condition holds for a single lane), so there is nothing to aggregate".to_string(),
        ),
        (AccessKind::Atomic, Pattern::Uniform) => (
            "atomic, one address".to_string(),
            format!("{width} atomic operations on one address, one lane after the other; aggregate them: a sub-group reduction (`sub_group_reduce_add`) and one atomic per SIMD group"),
        ),
        (AccessKind::Atomic, _) => (
            "atomic per lane".to_string(),
            format!("{width} atomic operations on lane-varying addresses, serialized lane by lane"),
        ),
        (AccessKind::Load, Pattern::Uniform) => (
            "broadcast".to_string(),
            "one scalar load for the group, broadcast to every lane".to_string(),
        ),
        (AccessKind::Load, Pattern::Contiguous) => (
            "packed".to_string(),
            format!("one packed vector load of {width} consecutive elements"),
        ),
        (AccessKind::Load, Pattern::Strided) => {
            let s = a.stride_bytes.unwrap_or(0);
            (
                format!("strided({})", elems(s)),
                format!("a strided load: {s} bytes between lanes (packed loads of the records and shuffles up to 8 elements apart, else a gather)"),
            )
        }
        (_, Pattern::Gather) if a.clamped => (
            "packed inside the clamp".to_string(),
            format!("one packed load where the clamp moves no lane of the SIMD group; a gather ({width} unrelated addresses, about one scalar load per lane) at the clamp's bounds"),
        ),
        (_, Pattern::Gather) if a.rows => (
            "rows, transposed tiles".to_string(),
            format!("transposed tiles: each lane walks its own row, so where every lane is active {width} elements of each row are loaded at once and transposed, once every {width} iterations; a gather ({width} unrelated addresses) where not"),
        ),
        (_, Pattern::Gather) => (
            "gather".to_string(),
            format!("a gather: {width} unrelated addresses, about one scalar load per lane"),
        ),
        (AccessKind::Store, Pattern::Uniform) => (
            "uniform store".to_string(),
            "one scalar store: every lane writes the same address".to_string(),
        ),
        (AccessKind::Store, Pattern::Contiguous) => (
            "packed store".to_string(),
            format!("one packed vector store of {width} consecutive elements"),
        ),
        (AccessKind::Store, Pattern::Strided) => {
            let s = a.stride_bytes.unwrap_or(0);
            (
                format!("strided({}) store", elems(s)),
                format!("a strided store: {s} bytes between lanes (shuffles and packed stores where the neighbouring stores write every element of the records, else a scatter)"),
            )
        }
        (_, Pattern::Scatter) => (
            "scatter".to_string(),
            format!("a scatter: {width} unrelated addresses, about one scalar store per lane"),
        ),
    };
    if masked {
        (
            format!("masked {short}"),
            format!("{long}, masked (only the active lanes access memory)"),
        )
    } else {
        (short, long)
    }
}

/// The innermost access of this file touching the offset, described.
fn smallest_access(
    ctx: &Ctx<'_>,
    kernels: &[KernelView<'_>],
    offset: u32,
    strict: bool,
) -> Option<(TextRange, String)> {
    let mut best: Option<(TextRange, &AccessFact, &KernelReport)> = None;
    for k in kernels {
        let Some(r) = k.report() else { continue };
        for a in &r.accesses {
            let Some(range) = ctx.range(a.span) else {
                continue;
            };
            let inside = if strict {
                range.start <= offset && offset < range.end
            } else {
                range.touches(offset)
            };
            if inside && best.is_none_or(|(b, _, _)| range.len() < b.len()) {
                best = Some((range, a, r));
            }
        }
    }
    let (range, _, _) = best?;
    // Every kernel that performs this access (a helper inlined in several).
    let mut s = String::new();
    for k in kernels {
        let Some(r) = k.report() else { continue };
        for a in r
            .accesses
            .iter()
            .filter(|a| ctx.range(a.span) == Some(range))
        {
            let (short, long) = access_words(a, r.width);
            let kind = match a.space {
                MemSpace::Addr(lanes_frontend::ast::AddressSpace::Local) => {
                    format!("`__local` {}", a.kind.as_str())
                }
                MemSpace::Image => format!("image {}", crate::explain::image_verb(a.kind)),
                // `packed store` already says it.
                _ if short.ends_with(a.kind.as_str()) => String::new(),
                _ => a.kind.as_str().to_string(),
            };
            let _ = writeln!(
                s,
                "**{short}**{}{kind} `{}` in kernel `{}` ({} lanes)\n\nvectorized as {long}{}.",
                if kind.is_empty() { "" } else { " " },
                ctx.span_text(a.span),
                r.name,
                r.width,
                vector_ir_note(ctx, k, a.span),
            );
            if let Some(m) = a.masked_by {
                let mut cond: String = ctx
                    .span_text(m)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                if let Some((cut, _)) = cond.char_indices().nth(60) {
                    cond.truncate(cut);
                    cond.push('…');
                }
                let _ = writeln!(
                    s,
                    "\nmasked: lanes are off here because of the divergent branch on `{}` (line {})",
                    cond,
                    ctx.line_number(m)
                );
            }
            if !a.reason.is_empty() {
                let _ = write!(s, "\n**why**:\n{}", chain(ctx, &a.reason));
            }
        }
    }
    Some((range, s.trim_end().to_string()))
}

/// What the vector IR does at a source access: confirms the packed /
/// scalar / per-lane form from the pointer's shape after vectorization and
/// whether the block runs under the full entry mask.
fn vector_ir_note(ctx: &Ctx<'_>, k: &KernelView<'_>, span: Span) -> String {
    let Some(vir) = lanes_db::kernel_vector_ir(ctx.db, k.kernel) else {
        return String::new();
    };
    let Ok(vf) = &vir.result else {
        return String::new();
    };
    let map = lanes_db::span_map(ctx.db, k.kernel);
    let f = &vf.func;
    let mut unmasked = 0;
    let mut masked = 0;
    for (bi, b) in f.blocks.iter().enumerate() {
        for &i in &b.insts {
            let inst = f.inst(i);
            if !matches!(inst.kind, InstKind::Load { .. } | InstKind::Store { .. })
                || map.map(inst.src.span) != span
            {
                continue;
            }
            // The entry mask (`lanes.active`) means all lanes of the group.
            let entry = vf
                .block_mask
                .get(bi)
                .and_then(|&m| f.def_inst(m))
                .is_some_and(|d| {
                    matches!(
                        f.inst(d).kind,
                        InstKind::WorkItem {
                            query: WorkItem::LaneMask,
                            ..
                        }
                    )
                });
            if entry {
                unmasked += 1;
            } else {
                masked += 1;
            }
        }
    }
    match (unmasked, masked) {
        (0, 0) => String::new(),
        (_, 0) => " (vector IR: in a block that runs with the group's entry mask)".to_string(),
        (0, n) => format!(
            " (vector IR: {} under a block mask)",
            plural(n, "memory operation", "memory operations")
        ),
        (_, n) => format!(
            " (vector IR: {} under a block mask)",
            plural(n, "component access", "component accesses")
        ),
    }
}

/// A variable, parameter, global, function, field or macro.
fn symbol_section(ctx: &Ctx<'_>, kernels: &[KernelView<'_>], sym: &Sym) -> Option<String> {
    let hir = &ctx.parsed.unit.hir;
    match sym {
        Sym::Local { func, local } => {
            let f = hir.functions.get(*func as usize)?;
            let l = f.locals.get(*local as usize)?;
            let mut s = format!(
                "```c\n{}\n```\n{} of `{}`\n",
                decl_text(&hir.type_name(&l.ty), &l.name),
                if l.is_param {
                    "parameter"
                } else {
                    "local variable"
                },
                f.name
            );
            let facts: Vec<(
                &KernelView<'_>,
                &KernelReport,
                &lanes_vectorizer::report::ValueFact,
            )> = kernels
                .iter()
                .filter_map(|k| Some((k, k.report()?)))
                .flat_map(|(k, r)| {
                    r.values
                        .iter()
                        .filter(|v| v.span == l.name_span)
                        .map(move |v| (k, r, v))
                })
                .collect();
            let local = local_memory_section(ctx, kernels, &l.name, l.name_span);
            if let Some(local) = &local {
                let _ = write!(s, "\n{local}");
            }
            if facts.is_empty() {
                if local.is_some() {
                    return Some(s.trim_end().to_string());
                }
                if ctx.has_errors() {
                    s.push_str("\n*not analysed: errors in the code that uses it*");
                } else {
                    s.push_str("\n*not used by any analysed kernel*");
                }
                return Some(s);
            }
            for (k, r, v) in facts {
                let _ = write!(
                    s,
                    "\n**{}** in kernel `{}` ({} lanes): {}\n",
                    shape_name(v.shape, v.kind),
                    r.name,
                    r.width,
                    shape_words(v.shape, v.kind)
                );
                // How it is held comes from the vector IR, which a kernel
                // shown from its last version without errors does not have.
                if !k.stale {
                    let _ = writeln!(
                        s,
                        "\nvectorized as {}",
                        variable_storage(ctx, k, v, hir.type_name(&l.ty))
                    );
                }
                if !v.reason.is_empty() {
                    let _ = write!(s, "\n**why**:\n{}", chain(ctx, &v.reason));
                }
            }
            Some(s.trim_end().to_string())
        }
        Sym::Global(g) => {
            let g = hir.globals.get(*g as usize)?;
            Some(format!(
                "```c\n__constant {}\n```\nprogram-scope constant: **uniform** (one copy for all lanes)",
                decl_text(&hir.type_name(&g.ty), &g.name)
            ))
        }
        Sym::Function(fi) => {
            let f = hir.functions.get(*fi as usize)?;
            let params: Vec<String> = f
                .params
                .iter()
                .map(|&p| {
                    let l = f.local(p);
                    decl_text(&hir.type_name(&l.ty), &l.name)
                })
                .collect();
            let callers: Vec<&str> = kernels
                .iter()
                .filter(|k| {
                    let g = lanes_db::call_graph(ctx.db, ctx.file);
                    g.closure(&k.name).contains(&f.name)
                })
                .map(|k| k.name.as_str())
                .collect();
            let mut s = format!(
                "```c\n{} {}({})\n```\nhelper function",
                hir.type_name(&f.ret),
                f.name,
                params.join(", ")
            );
            if !callers.is_empty() {
                let _ = write!(
                    s,
                    ", inlined into {}",
                    callers
                        .iter()
                        .map(|c| format!("`{c}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            Some(s)
        }
        Sym::Struct(si) => {
            let st = hir.structs.get(*si as usize)?;
            Some(format!(
                "```c\nstruct {}\n```\n{} bytes, aligned to {}",
                st.name, st.size, st.align
            ))
        }
        Sym::Field { strukt, field } => {
            let st = hir.structs.get(*strukt as usize)?;
            let fd = st.fields.get(*field as usize)?;
            Some(format!(
                "```c\n{}\n```\nfield of `{}` at byte offset {}",
                decl_text(&hir.type_name(&fd.ty), &fd.name),
                st.name,
                fd.offset
            ))
        }
        Sym::Macro(name) => {
            let def = index::definition(ctx, sym)
                .map(|d| format!(", defined at line {}", ctx.line_number(d)))
                .unwrap_or_default();
            Some(format!("```c\n#define {name}\n```\nmacro{def}"))
        }
        Sym::Builtin(name) => {
            let lane = match name.as_str() {
                "get_global_id" | "get_local_id" => {
                    "dimension 0 is **contiguous** across the lanes of a SIMD group; dimensions 1 and 2 are uniform"
                }
                "get_sub_group_local_id" => "**contiguous**: the lane's index",
                n if n.starts_with("sub_group_") => {
                    "a horizontal operation over the active lanes of the SIMD group"
                }
                n if n.starts_with("get_") => "**uniform** in a SIMD group",
                _ => "applied to each lane",
            };
            Some(format!("```c\n{name}\n```\nOpenCL built-in: {lane}"))
        }
    }
}

/// How a variable is held after vectorization: from the vector IR's
/// shapes of the variable's values when available, else from its shape.
fn variable_storage(
    ctx: &Ctx<'_>,
    k: &KernelView<'_>,
    v: &lanes_vectorizer::report::ValueFact,
    ty: String,
) -> String {
    let width = k.report().map_or(0, |r| r.width);
    let from_vir = (|| {
        let vir = lanes_db::kernel_vector_ir(ctx.db, k.kernel).as_ref()?;
        let vf = vir.result.as_ref().ok()?;
        let map = lanes_db::span_map(ctx.db, k.kernel);
        let vars: Vec<_> = vf
            .func
            .vars
            .iter()
            .filter(|var| var.name == v.name && map.map(var.span) == v.span)
            .collect();
        if vars.is_empty() {
            return None;
        }
        let in_memory = vars.iter().any(|var| var.in_memory);
        let vector = vars
            .iter()
            .flat_map(|var| var.values.iter())
            .any(|&val| !vf.is_uniform(val));
        Some((in_memory, vector))
    })();
    let (in_memory, vector) = from_vir.unwrap_or((false, v.kind != ShapeKind::Uniform));
    match (in_memory, vector) {
        (false, false) => "a scalar: one register for the whole SIMD group".to_string(),
        (false, true) => format!("a vector register of {width} × `{ty}` (one per lane)"),
        (true, false) => "private memory, one copy for the whole SIMD group".to_string(),
        (true, true) => format!("private memory, {width} copies (one per lane)"),
    }
}

/// The shape of the innermost expression at the offset, from the scalar
/// IR of the kernels that contain it.
fn expression_section(
    ctx: &Ctx<'_>,
    kernels: &[KernelView<'_>],
    offset: u32,
) -> Option<(TextRange, String)> {
    let mut best: Option<(TextRange, Shape, String)> = None;
    for k in kernels {
        let Some(r) = k.report() else { continue };
        let a = lanes_db::kernel_analysis(ctx.db, k.kernel);
        let Some(ka) = &a.analysis else { continue };
        let map = lanes_db::span_map(ctx.db, k.kernel);
        for b in &ka.func.blocks {
            for &i in &b.insts {
                let inst = ka.func.inst(i);
                // A φ joins a variable's values at a loop or branch: its
                // source is the whole statement, not an expression.
                if matches!(inst.kind, InstKind::Phi { .. }) {
                    continue;
                }
                let Some(res) = inst.result else { continue };
                let Some(range) = ctx.range(map.map(inst.src.span)) else {
                    continue;
                };
                if !range.touches(offset) || range.is_empty() {
                    continue;
                }
                if best.as_ref().is_none_or(|(b, _, _)| range.len() < b.len()) {
                    best = Some((range, ka.div.shown_shape(res), r.name.to_string()));
                }
            }
        }
    }
    let (range, shape, kernel) = best?;
    let text = ctx.text().get(range.start as usize..range.end as usize)?;
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let kind = ShapeKind::of(shape, 1);
    Some((
        range,
        format!(
            "`{}` is **{}** in kernel `{kernel}`: {}",
            one_line,
            shape_name(shape, kind),
            shape_words(shape, kind)
        ),
    ))
}

/// The summary of a kernel: target, width, and what diverges.
fn kernel_summary(ctx: &Ctx<'_>, name: &str, k: Option<&KernelView<'_>>) -> String {
    let (target, width) = ctx.target();
    let mut s = format!("```c\n__kernel void {name}\n```\nSIMD x{width} on `{target}`: {width} work-items per SIMD group\n");
    let Some(k) = k else {
        return s;
    };
    if k.stale {
        let _ = writeln!(s, "\n{}", stale_note(name));
    }
    match k.result.as_deref() {
        None => s.push_str("\n*not analysed: the kernel or code it uses has errors*"),
        Some(Err(ds)) => {
            s.push_str("\n**not vectorizable**:\n");
            for d in ds {
                let _ = writeln!(s, "- {}", d.message);
            }
        }
        Some(Ok(r)) => {
            let c = Counts::of(r);
            let _ = write!(
                s,
                "\n| | |\n|---|---|\n| loops | {} ({} divergent) |\n| branches | {} ({} divergent) |\n| memory accesses | {}: {} packed, {} broadcast/uniform, {} strided, {} gather{}{}, {} scatter |\n| diagnostics | {} |\n",
                r.loops.len(),
                c.divergent_loops,
                c.branches,
                c.divergent_branches,
                r.accesses.len(),
                c.packed,
                c.uniform,
                c.strided,
                c.gathers,
                if c.clamped > 0 {
                    format!(", {} packed but gathered at a clamp's bounds", c.clamped)
                } else {
                    String::new()
                },
                if c.rows > 0 {
                    format!(
                        ", {} load{} of rows through transposed tiles",
                        c.rows,
                        if c.rows == 1 { "" } else { "s" }
                    )
                } else {
                    String::new()
                },
                c.scatters,
                r.diagnostics.len()
            );
        }
    }
    s.trim_end().to_string()
}

/// Counts of what a kernel report says (summaries and code lenses).
pub(crate) struct Counts {
    pub divergent_loops: usize,
    pub branches: usize,
    pub divergent_branches: usize,
    pub packed: usize,
    pub uniform: usize,
    pub strided: usize,
    /// Gathers only at a clamp's bounds (`AccessFact::clamped`) and loads
    /// of rows through tiles (`AccessFact::rows`) are not among `gathers`.
    pub gathers: usize,
    pub clamped: usize,
    pub rows: usize,
    pub scatters: usize,
    pub atomics: usize,
    /// Barriers and work-group collectives.
    pub barriers: usize,
    /// Those not reached by every work-item (L0401).
    pub divergent_barriers: usize,
}

impl Counts {
    pub fn of(r: &KernelReport) -> Counts {
        // Atomics are counted as atomics, not by the pattern of their address.
        let p = |pat: Pattern| {
            r.accesses
                .iter()
                .filter(|a| a.pattern == pat && a.kind != AccessKind::Atomic)
                .count()
        };
        let clamped = r
            .accesses
            .iter()
            .filter(|a| a.pattern == Pattern::Gather && a.clamped && a.kind != AccessKind::Atomic)
            .count();
        let rows = r
            .accesses
            .iter()
            .filter(|a| a.pattern == Pattern::Gather && a.rows && a.kind != AccessKind::Atomic)
            .count();
        Counts {
            divergent_loops: r.loops.iter().filter(|l| l.divergent).count(),
            branches: r.branches.iter().filter(|b| !b.loop_exit).count(),
            divergent_branches: r
                .branches
                .iter()
                .filter(|b| b.divergent && !b.loop_exit)
                .count(),
            packed: p(Pattern::Contiguous),
            uniform: p(Pattern::Uniform),
            strided: p(Pattern::Strided),
            gathers: p(Pattern::Gather) - clamped - rows,
            clamped,
            rows,
            scatters: p(Pattern::Scatter),
            atomics: r
                .accesses
                .iter()
                .filter(|a| a.kind == AccessKind::Atomic)
                .count(),
            barriers: r.barriers.len(),
            divergent_barriers: r.barriers.iter().filter(|b| !b.uniform).count(),
        }
    }
}

/// The words for an image read or write: the pixel address is the
/// runtime's, so the pattern is that of the coordinates.
fn image_access_words(a: &AccessFact, width: u32) -> (String, String) {
    let verb = crate::explain::image_verb(a.kind);
    let (short, long) = match a.pattern {
        Pattern::Uniform => (
            "one pixel".to_string(),
            format!("one pixel {verb} for the group: every lane's coordinates are the same"),
        ),
        Pattern::Contiguous => (
            "packed".to_string(),
            format!("a row of {width} consecutive pixels (x steps by one per lane, the other coordinates are the same)"),
        ),
        _ => (
            if a.kind == AccessKind::Load { "gather" } else { "scatter" }.to_string(),
            format!("{width} pixels at unrelated coordinates, one {verb} per lane"),
        ),
    };
    let masked = if a.mask == MaskKind::Varying {
        ", under a mask"
    } else {
        ""
    };
    (short, format!("{long}{masked}"))
}

#[cfg(test)]
mod image_access_tests {
    use super::*;
    use lanes_frontend::source::Span;

    fn fact(kind: AccessKind, pattern: Pattern) -> AccessFact {
        AccessFact {
            span: Span::default(),
            kind,
            pattern,
            stride_bytes: None,
            size: 16,
            mask: MaskKind::Varying,
            masked_by: None,
            one_lane: false,
            clamped: false,
            rows: false,
            space: MemSpace::Image,
            reason: Vec::new(),
        }
    }

    #[test]
    fn image_accesses_are_described_in_pixels() {
        let (short, long) = access_words(&fact(AccessKind::Load, Pattern::Contiguous), 8);
        assert_eq!(short, "packed");
        assert!(long.contains("a row of 8 consecutive pixels"), "{long}");
        assert!(long.ends_with("under a mask"), "{long}");
        let (short, long) = access_words(&fact(AccessKind::Store, Pattern::Scatter), 8);
        assert_eq!(short, "scatter");
        assert!(long.contains("one write per lane"), "{long}");
        let (short, _) = access_words(&fact(AccessKind::Load, Pattern::Uniform), 8);
        assert_eq!(short, "one pixel");
    }
}
