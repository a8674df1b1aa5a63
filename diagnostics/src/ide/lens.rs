//! Code lens on each kernel: how it runs and a button to build it, e.g.
//! `SIMD x16 avx512 · 2 divergent branches · 1 gather · Build`, with the
//! number of barriers (and collectives) and atomics of work-group kernels.

use lanes_db::{Db, File};

use super::context::{isa_short, plural, Ctx};
use super::hover::Counts;
use super::TextRange;

/// The command a lens runs (`workspace/executeCommand`).
pub const BUILD_COMMAND: &str = "lanes.build";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lens {
    /// The kernel's name.
    pub range: TextRange,
    pub title: String,
    pub command: &'static str,
    /// The file's path and the kernel's name.
    pub arguments: Vec<String>,
}

pub fn code_lens(db: &dyn Db, file: File) -> Vec<Lens> {
    let ctx = Ctx::new(db, file);
    let (target, width) = ctx.target();
    let head = format!("SIMD x{width} {}", isa_short(&target));
    let hir = &ctx.parsed.unit.hir;
    let views = ctx.kernels();
    let path = file.path(db).display().to_string();
    let mut out = Vec::new();
    for f in hir
        .functions
        .iter()
        .filter(|f| f.is_kernel && f.body.is_some())
    {
        let Some(range) = ctx.range(f.name_span) else {
            continue;
        };
        let mut parts = vec![head.clone()];
        let view = views.iter().find(|k| k.name == f.name);
        match view.and_then(|k| k.result.clone()) {
            None => parts.push("not analysed (errors)".to_string()),
            Some(r) => match &*r {
                Err(_) => parts.push("not vectorizable".to_string()),
                Ok(r) => {
                    let c = Counts::of(r);
                    let items = [
                        (c.divergent_loops, "divergent loop", "divergent loops"),
                        (
                            c.divergent_branches,
                            "divergent branch",
                            "divergent branches",
                        ),
                        (c.gathers, "gather", "gathers"),
                        (
                            c.clamped,
                            "gather at a clamp's bounds",
                            "gathers at clamp bounds",
                        ),
                        (c.rows, "load of rows by tiles", "loads of rows by tiles"),
                        (c.scatters, "scatter", "scatters"),
                        (c.strided, "strided access", "strided accesses"),
                    ];
                    let mut any = false;
                    for (n, one, many) in items {
                        if n > 0 {
                            parts.push(plural(n, one, many));
                            any = true;
                        }
                    }
                    if !any {
                        parts.push("no divergence".to_string());
                    }
                    if c.barriers > 0 {
                        let mut b = plural(c.barriers, "barrier", "barriers");
                        if c.divergent_barriers > 0 {
                            b.push_str(&format!(
                                " ({} not reached by all work-items)",
                                c.divergent_barriers
                            ));
                        }
                        parts.push(b);
                    }
                    if c.atomics > 0 {
                        parts.push(plural(c.atomics, "atomic", "atomics"));
                    }
                }
            },
        }
        if view.is_some_and(|k| k.stale) {
            parts.push("as last analysed (errors now)".to_string());
        }
        parts.push("Build".to_string());
        out.push(Lens {
            range,
            title: parts.join(" · "),
            command: BUILD_COMMAND,
            arguments: vec![path.clone(), f.name.to_string()],
        });
    }
    out
}
