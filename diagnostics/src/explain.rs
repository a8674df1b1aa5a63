//! `lanes explain`: how each kernel will run on SIMD lanes, as annotated
//! source (text) or as the stable JSON interface of DESIGN §2.

use std::collections::BTreeMap;
use std::fmt::Write;

use lanes_frontend::source::{SourceMap, Span};
use lanes_vectorizer::report::{KernelReport, MemSpace, Step};
use lanes_vectorizer::shape::Shape;
use serde::Serialize;

#[derive(Serialize)]
pub struct Explain {
    pub target: TargetJson,
    pub kernels: Vec<KernelJson>,
}

#[derive(Serialize)]
pub struct TargetJson {
    pub name: String,
    pub width: u32,
}

#[derive(Serialize)]
pub struct KernelJson {
    pub name: String,
    pub file: String,
    pub line: u32,
    pub values: Vec<ValueJson>,
    pub branches: Vec<BranchJson>,
    pub loops: Vec<LoopJson>,
    pub accesses: Vec<AccessJson>,
    pub barriers: Vec<BarrierJson>,
    pub diagnostics: Vec<DiagnosticJson>,
}

/// A barrier or work-group collective.
#[derive(Serialize)]
pub struct BarrierJson {
    pub line: u32,
    pub col: u32,
    /// `barrier` or `collective` (`work_group_*`).
    pub kind: &'static str,
    /// The memory a barrier orders: `local`, `global`, `image`.
    pub fences: Vec<&'static str>,
    /// Reached by every work-item of the work-group (or by none).
    pub uniform: bool,
    /// Why not: the branch work-items take differently, back to the value
    /// that differs across the work-group.
    pub reason: Vec<StepJson>,
}

#[derive(Serialize)]
pub struct ValueJson {
    pub name: String,
    pub line: u32,
    pub col: u32,
    pub shape: &'static str,
    /// Distance between consecutive lanes (uniform: 0), when constant.
    pub stride: Option<i64>,
    /// Lane 0 (or every lane, for varying values) is a multiple of this.
    pub align: Option<u64>,
    pub reason: Vec<StepJson>,
}

#[derive(Serialize)]
pub struct BranchJson {
    pub line: u32,
    pub col: u32,
    pub divergent: bool,
    /// True when the branch decides a loop's exit (reported with the loop).
    pub loop_exit: bool,
    pub reason: Vec<StepJson>,
}

#[derive(Serialize)]
pub struct LoopJson {
    pub line: u32,
    pub col: u32,
    pub divergent: bool,
    pub precondition: Option<String>,
    pub divergent_exits: Vec<PosJson>,
    pub reason: Vec<StepJson>,
}

#[derive(Serialize)]
pub struct AccessJson {
    pub line: u32,
    pub col: u32,
    pub end_col: u32,
    pub text: String,
    pub kind: &'static str,
    pub pattern: &'static str,
    pub stride_bytes: Option<i64>,
    /// A gather load through a clamp of consecutive lanes: packed in the
    /// SIMD groups where the clamp moves no lane.
    pub clamped: bool,
    /// A gather load through rows each lane walks in a loop: read through
    /// transposed tiles in SIMD groups whose lanes are all active.
    pub rows: bool,
    pub mask: &'static str,
    pub space: &'static str,
    pub reason: Vec<StepJson>,
}

#[derive(Serialize)]
pub struct DiagnosticJson {
    pub code: &'static str,
    pub severity: &'static str,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

#[derive(Serialize)]
pub struct StepJson {
    pub line: u32,
    pub col: u32,
    pub text: String,
}

#[derive(Serialize)]
pub struct PosJson {
    pub line: u32,
    pub col: u32,
}

fn pos(sources: &SourceMap, span: Span) -> (u32, u32) {
    sources.get(span.file).line_col(span.start)
}

fn steps(sources: &SourceMap, reason: &[Step]) -> Vec<StepJson> {
    reason
        .iter()
        .map(|s| {
            let (line, col) = pos(sources, s.span);
            StepJson {
                line,
                col,
                text: s.text.to_string(),
            }
        })
        .collect()
}

/// The memory a barrier's flags order, as in `accesses[].space`.
pub fn fence_words(flags: u32) -> Vec<&'static str> {
    use lanes_vectorizer::ir::fence;
    [
        (fence::LOCAL, "local"),
        (fence::GLOBAL, "global"),
        (fence::IMAGE, "image"),
    ]
    .into_iter()
    .filter(|(bit, _)| flags & bit != 0)
    .map(|(_, name)| name)
    .collect()
}

/// What an access to an image is called: a read or a write.
pub fn image_verb(kind: lanes_vectorizer::report::AccessKind) -> &'static str {
    match kind {
        lanes_vectorizer::report::AccessKind::Load => "read",
        _ => "write",
    }
}

/// The JSON form.
pub fn json(
    target_name: &str,
    width: u32,
    sources: &SourceMap,
    reports: &[KernelReport],
) -> Explain {
    let kernels = reports
        .iter()
        .map(|k| {
            let (line, _) = pos(sources, k.span);
            KernelJson {
                name: k.name.to_string(),
                file: sources.get(k.span.file).name.clone(),
                line,
                values: k
                    .values
                    .iter()
                    .map(|v| {
                        let (line, col) = pos(sources, v.span);
                        let (stride, align) = match v.shape {
                            Shape::Strided { stride, align } => (Some(stride), Some(align)),
                            Shape::Varying { align } => (None, Some(align)),
                            Shape::Bottom => (Some(0), None),
                        };
                        ValueJson {
                            name: v.name.to_string(),
                            line,
                            col,
                            shape: v.kind.as_str(),
                            stride,
                            align,
                            reason: steps(sources, &v.reason),
                        }
                    })
                    .collect(),
                branches: k
                    .branches
                    .iter()
                    .map(|b| {
                        let (line, col) = pos(sources, b.span);
                        BranchJson {
                            line,
                            col,
                            divergent: b.divergent,
                            loop_exit: b.loop_exit,
                            reason: steps(sources, &b.reason),
                        }
                    })
                    .collect(),
                loops: k
                    .loops
                    .iter()
                    .map(|l| {
                        let (line, col) = pos(sources, l.span);
                        LoopJson {
                            line,
                            col,
                            divergent: l.divergent,
                            precondition: l.precondition.clone(),
                            divergent_exits: l
                                .divergent_exits
                                .iter()
                                .map(|&s| {
                                    let (line, col) = pos(sources, s);
                                    PosJson { line, col }
                                })
                                .collect(),
                            reason: steps(sources, &l.reason),
                        }
                    })
                    .collect(),
                accesses: k
                    .accesses
                    .iter()
                    .map(|a| {
                        let (line, col) = pos(sources, a.span);
                        let (_, end_col) = sources.get(a.span.file).line_col(a.span.end);
                        AccessJson {
                            line,
                            col,
                            end_col,
                            text: sources.text(a.span).to_string(),
                            kind: a.kind.as_str(),
                            pattern: a.pattern.as_str(),
                            stride_bytes: a.stride_bytes,
                            clamped: a.clamped,
                            rows: a.rows,
                            mask: a.mask.as_str(),
                            space: a.space.as_str(),
                            reason: steps(sources, &a.reason),
                        }
                    })
                    .collect(),
                barriers: k
                    .barriers
                    .iter()
                    .map(|b| {
                        let (line, col) = pos(sources, b.span);
                        BarrierJson {
                            line,
                            col,
                            kind: b.kind.as_str(),
                            fences: fence_words(b.flags),
                            uniform: b.uniform,
                            reason: steps(sources, &b.reason),
                        }
                    })
                    .collect(),
                diagnostics: k
                    .diagnostics
                    .iter()
                    .map(|d| {
                        let (line, col) = pos(sources, d.span);
                        DiagnosticJson {
                            code: d.code.as_str(),
                            severity: d.severity.as_str(),
                            line,
                            col,
                            message: d.message.clone(),
                        }
                    })
                    .collect(),
            }
        })
        .collect();
    Explain {
        target: TargetJson {
            name: target_name.to_string(),
            width,
        },
        kernels,
    }
}

/// The text form: for each kernel, its source lines with the facts of each
/// line as a trailing comment, then a summary.
pub fn text(
    target_name: &str,
    width: u32,
    sources: &SourceMap,
    reports: &[KernelReport],
    kernel_spans: &[Span],
) -> String {
    let mut out = String::new();
    for (k, kspan) in reports.iter().zip(kernel_spans) {
        let file = sources.get(k.span.file);
        let _ = writeln!(
            out,
            "kernel {} ({}:{}) on {target_name}: {width} lanes per SIMD group",
            k.name,
            file.name,
            file.line_col(k.span.start).0
        );
        // Facts per (file, line).
        let mut notes: BTreeMap<(u32, u32), Vec<String>> = BTreeMap::new();
        let mut add = |span: Span, text: String| {
            let (line, _) = pos(sources, span);
            notes.entry((span.file.0, line)).or_default().push(text);
        };
        for v in &k.values {
            add(v.span, format!("{}: {}", v.name, v.kind.as_str()));
        }
        for l in &k.loops {
            add(
                l.span,
                match (l.divergent, &l.precondition) {
                    (true, Some(p)) => {
                        format!(
                            "divergent loop; uniform where every lane satisfies `{p}` (fast path)"
                        )
                    }
                    (true, None) => "divergent loop".to_string(),
                    _ => "uniform loop".to_string(),
                },
            );
        }
        for b in k.branches.iter().filter(|b| !b.loop_exit) {
            add(
                b.span,
                if b.divergent {
                    "divergent branch (mask varying)".to_string()
                } else {
                    "uniform branch".to_string()
                },
            );
        }
        for a in &k.accesses {
            let what = sources
                .text(a.span)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let kind = match a.space {
                MemSpace::Addr(lanes_frontend::ast::AddressSpace::Local) => {
                    format!("__local {}", a.kind.as_str())
                }
                MemSpace::Image => format!("image {}", image_verb(a.kind)),
                _ => a.kind.as_str().to_string(),
            };
            let pattern = match (a.pattern, a.stride_bytes) {
                (lanes_vectorizer::report::Pattern::Uniform, _) => "uniform".to_string(),
                (lanes_vectorizer::report::Pattern::Contiguous, _) => "packed".to_string(),
                (lanes_vectorizer::report::Pattern::Strided, Some(s)) => format!("strided({s} B)"),
                (p, _) => p.as_str().to_string(),
            };
            let mask = match a.mask {
                lanes_vectorizer::divergence::MaskKind::Varying => ", masked",
                _ => "",
            };
            if a.clamped {
                add(
                    a.span,
                    format!(
                        "{what}: packed {kind} where the clamp moves no lane, else gather{mask}"
                    ),
                );
                continue;
            }
            if a.rows {
                add(
                    a.span,
                    format!(
                        "{what}: {kind} of rows side by side, through transposed tiles where every lane is active, else gather{mask}"
                    ),
                );
                continue;
            }
            add(a.span, format!("{what}: {pattern} {kind}{mask}"));
        }
        for b in &k.barriers {
            add(
                b.span,
                match (b.kind, b.uniform) {
                    (lanes_vectorizer::report::BarrierKind::Barrier, true) => {
                        "barrier: reached by the whole work-group".to_string()
                    }
                    (lanes_vectorizer::report::BarrierKind::Barrier, false) => {
                        "barrier: NOT reached by every work-item".to_string()
                    }
                    (_, true) => {
                        "work-group collective: reached by the whole work-group".to_string()
                    }
                    (_, false) => {
                        "work-group collective: NOT reached by every work-item".to_string()
                    }
                },
            );
        }
        // Lines to show: the kernel's own, plus lines of helpers with facts.
        let (kfirst, _) = pos(sources, *kspan);
        let (klast, _) = sources.get(kspan.file).line_col(kspan.end);
        let mut lines: Vec<(u32, u32)> = (kfirst..=klast).map(|l| (kspan.file.0, l)).collect();
        lines.extend(notes.keys().copied());
        lines.sort();
        lines.dedup();
        let texts: Vec<(u32, u32, String)> = lines
            .iter()
            .filter_map(|&(f, l)| {
                let sf = sources.files().find(|(id, _)| id.0 == f)?.1;
                let range = sf.line_range(l.checked_sub(1)? as usize);
                let t = sf.text.get(range)?.trim_end().replace('\t', "    ");
                Some((f, l, t))
            })
            .collect();
        let code_width = texts
            .iter()
            .map(|(_, _, t)| t.chars().count())
            .max()
            .unwrap_or(0)
            .min(72);
        let num_width = texts
            .iter()
            .map(|(_, l, _)| l.to_string().len())
            .max()
            .unwrap_or(1);
        let mut prev: Option<(u32, u32)> = None;
        for (f, l, t) in &texts {
            if let Some((pf, pl)) = prev {
                if pf != *f || pl + 1 != *l {
                    let _ = writeln!(out, "{:>num_width$} |", "...");
                }
            }
            prev = Some((*f, *l));
            match notes.get(&(*f, *l)) {
                Some(n) => {
                    let pad = code_width.saturating_sub(t.chars().count());
                    let _ = writeln!(
                        out,
                        "{l:>num_width$} | {t}{} // {}",
                        " ".repeat(pad),
                        n.join("; ")
                    );
                }
                None => {
                    let _ = writeln!(out, "{l:>num_width$} | {t}");
                }
            }
        }
        let divergent_loops = k.loops.iter().filter(|l| l.divergent).count();
        let divergent_branches = k
            .branches
            .iter()
            .filter(|b| b.divergent && !b.loop_exit)
            .count();
        let count = |p: lanes_vectorizer::report::Pattern| {
            k.accesses.iter().filter(|a| a.pattern == p).count()
        };
        use lanes_vectorizer::report::Pattern as P;
        let clamped = k.accesses.iter().filter(|a| a.clamped).count();
        let rows = k.accesses.iter().filter(|a| a.rows).count();
        let _ = writeln!(
            out,
            "summary: {} loop{} ({divergent_loops} divergent), {} branch{} ({divergent_branches} divergent), {} memory access{}: {} packed, {} uniform, {} strided, {} gather{}{}, {} scatter",
            k.loops.len(),
            if k.loops.len() == 1 { "" } else { "s" },
            k.branches.iter().filter(|b| !b.loop_exit).count(),
            if k.branches.iter().filter(|b| !b.loop_exit).count() == 1 { "" } else { "es" },
            k.accesses.len(),
            if k.accesses.len() == 1 { "" } else { "es" },
            count(P::Contiguous),
            count(P::Uniform),
            count(P::Strided),
            count(P::Gather) - clamped - rows,
            if clamped > 0 {
                format!(", {clamped} packed but gathered at a clamp's bounds")
            } else {
                String::new()
            },
            if rows > 0 {
                format!(
                    ", {rows} load{} of rows through transposed tiles",
                    if rows == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            },
            count(P::Scatter),
        );
        if !k.barriers.is_empty() {
            let barriers = k
                .barriers
                .iter()
                .filter(|b| b.kind == lanes_vectorizer::report::BarrierKind::Barrier)
                .count();
            let collectives = k.barriers.len() - barriers;
            let _ = writeln!(
                out,
                "work-group: {barriers} barrier{}, {collectives} collective{}, {} not reached by every work-item",
                if barriers == 1 { "" } else { "s" },
                if collectives == 1 { "" } else { "s" },
                k.barriers.iter().filter(|b| !b.uniform).count()
            );
        }
        for d in &k.diagnostics {
            let (line, col) = pos(sources, d.span);
            let _ = writeln!(
                out,
                "{}[{}] {line}:{col}: {}",
                d.severity.as_str(),
                d.code,
                d.message
            );
            for r in &d.related {
                let (line, col) = pos(sources, r.span);
                let _ = writeln!(out, "    {line}:{col}: {}", r.message);
            }
        }
        out.push('\n');
    }
    out
}
