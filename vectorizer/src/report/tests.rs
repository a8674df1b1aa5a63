//! Work-group facts of the report on hand-built IR: barriers reached by
//! the whole work-group or not (L0401), atomics (L0208/L0209) and
//! `__local` accesses.

use super::*;
use crate::ir::{AtomicOp, CmpPred, Horizontal, LocalVar, Param, Src, Ty, WorkItem};
use lanes_frontend::ast::{AddressSpace, NodeId};
use lanes_frontend::source::{FileId, SourceFile};

/// A function under construction, with spans into a source text so that
/// snippets and reason chains read like the kernel's.
struct Kernel {
    f: Function,
    text: String,
    sources: SourceMap,
    file: FileId,
    cur: crate::ir::BlockId,
}

impl Kernel {
    fn new(text: &str) -> Kernel {
        let mut sources = SourceMap::new();
        let file = sources.add(SourceFile::new("k.cl", None, text.to_string()));
        let mut f = Function::new("k", Span::new(file, 0, 1));
        let entry = f.add_block("entry");
        f.entry = entry;
        Kernel {
            f,
            text: text.to_string(),
            sources,
            file,
            cur: entry,
        }
    }

    /// The span of the `n`-th occurrence (from 0) of `snippet`.
    fn span(&self, snippet: &str, n: usize) -> Span {
        let (start, _) = self
            .text
            .match_indices(snippet)
            .nth(n)
            .unwrap_or_else(|| panic!("`{snippet}` not in the source"));
        Span::new(self.file, start as u32, (start + snippet.len()) as u32)
    }

    fn src(&self, snippet: &str) -> Src {
        Src {
            node: NodeId(0),
            span: self.span(snippet, 0),
        }
    }

    fn param(&mut self, name: &str, ty: Ty) -> ValueId {
        let span = self.span(name, 0);
        let n = self.f.params.len() as u32;
        self.f.add_param(Param {
            name: name.into(),
            ty,
            source_index: n,
            component: None,
            span,
        })
    }

    fn block(&mut self, label: &str) -> crate::ir::BlockId {
        self.f.add_block(label)
    }

    fn at(&mut self, b: crate::ir::BlockId) {
        self.cur = b;
    }

    fn inst(&mut self, kind: InstKind, ty: Ty, snippet: &str) -> ValueId {
        let src = self.src(snippet);
        let (_, v) = self.f.append(self.cur, kind, ty, src);
        v.unwrap_or(ValueId(u32::MAX))
    }

    fn end(&mut self, kind: InstKind) {
        let src = Src {
            node: NodeId(0),
            span: Span::new(self.file, 0, 1),
        };
        self.f.append(self.cur, kind, Ty::Void, src);
    }

    fn work_item(&mut self, query: WorkItem, dim: i64, snippet: &str) -> ValueId {
        let d = self.f.const_int(dim, Ty::I32);
        self.inst(
            InstKind::WorkItem {
                query,
                dim: Some(d),
            },
            Ty::I64,
            snippet,
        )
    }

    fn cmp(&mut self, pred: CmpPred, lhs: ValueId, rhs: ValueId, snippet: &str) -> ValueId {
        self.inst(InstKind::Cmp { pred, lhs, rhs }, Ty::I1, snippet)
    }

    fn barrier(&mut self, snippet: &str) {
        self.inst(
            InstKind::Barrier {
                flags: crate::ir::fence::LOCAL,
            },
            Ty::Void,
            snippet,
        );
    }

    /// Element `index` (an `i64`) of the `i32` array at `base`.
    fn element(&mut self, base: ValueId, index: ValueId, snippet: &str) -> ValueId {
        let four = self.f.const_int(4, Ty::I64);
        let offset = self.inst(
            InstKind::Bin {
                op: BinOp::Mul,
                lhs: index,
                rhs: four,
            },
            Ty::I64,
            snippet,
        );
        let ty = self.f.ty(base);
        self.inst(InstKind::PtrAdd { base, offset }, ty, snippet)
    }

    fn analyse(mut self, reqd: Option<[u32; 3]>) -> (KernelAnalysis, SourceMap) {
        crate::cfg::canonicalize(&mut self.f).expect("canonical");
        crate::ir::verify::verify(&self.f).expect("valid IR");
        let cfg = Cfg::compute(&self.f);
        let div = divergence::analyze(&self.f, &cfg, 8);
        let wg = work_group_divergence(&self.f, &cfg, &div, reqd);
        (
            KernelAnalysis {
                func: self.f,
                cfg,
                div,
                wg,
            },
            self.sources,
        )
    }
}

struct Findings {
    barriers: Vec<BarrierFact>,
    accesses: Vec<AccessFact>,
    diagnostics: Vec<Diagnostic>,
    sources: SourceMap,
}

fn findings(ka: &KernelAnalysis, sources: SourceMap) -> Findings {
    let r = Reporter {
        private_kinds: Default::default(),
        f: &ka.func,
        cfg: &ka.cfg,
        div: &ka.div,
        sources: &sources,
    };
    let accesses = r.accesses();
    let barriers = ka
        .wg
        .as_ref()
        .map(|wg| {
            Reporter {
                div: wg,
                ..r.clone()
            }
            .barriers()
        })
        .unwrap_or_default();
    let mut diagnostics = Vec::new();
    r.diagnose(&[], &[], &accesses, &mut diagnostics);
    diagnose_barriers(&barriers, &mut diagnostics);
    Findings {
        barriers,
        accesses,
        diagnostics,
        sources,
    }
}

impl Findings {
    fn codes(&self) -> Vec<&'static str> {
        self.diagnostics.iter().map(|d| d.code.as_str()).collect()
    }

    fn text(&self, span: Span) -> &str {
        self.sources.text(span)
    }
}

/// `if (COND) barrier(...)` where COND compares `lhs` (built by `make`) with 0.
fn barrier_under(
    text: &str,
    cond_snippet: &str,
    reqd: Option<[u32; 3]>,
    make: impl FnOnce(&mut Kernel) -> ValueId,
) -> Findings {
    let mut k = Kernel::new(text);
    let then = k.block("then");
    let join = k.block("join");
    let x = make(&mut k);
    let zero = k.f.const_int(0, k.f.ty(x));
    let c = k.cmp(CmpPred::Eq, x, zero, cond_snippet);
    k.end(InstKind::CondBr {
        cond: c,
        then,
        els: join,
    });
    k.at(then);
    k.barrier("barrier(CLK_LOCAL_MEM_FENCE)");
    k.end(InstKind::Br(join));
    k.at(join);
    k.end(InstKind::Ret);
    let (ka, sources) = k.analyse(reqd);
    findings(&ka, sources)
}

#[test]
fn barrier_under_the_local_id_is_not_reached_by_every_work_item() {
    let text =
        "kernel void k() {\n  if (get_local_id(0) == 0)\n    barrier(CLK_LOCAL_MEM_FENCE);\n}\n";
    let r = barrier_under(text, "get_local_id(0) == 0", None, |k| {
        k.work_item(WorkItem::LocalId, 0, "get_local_id(0)")
    });
    assert_eq!(r.barriers.len(), 1);
    assert!(!r.barriers[0].uniform);
    assert_eq!(r.barriers[0].kind, BarrierKind::Barrier);
    assert_eq!(r.codes(), ["L0401"]);
    let d = &r.diagnostics[0];
    assert_eq!(r.text(d.span), "barrier(CLK_LOCAL_MEM_FENCE)");
    let related: Vec<(&str, &str)> = d
        .related
        .iter()
        .map(|l| (r.text(l.span), l.message.as_str()))
        .collect();
    assert!(
        related.iter().any(|(t, m)| *t == "get_local_id(0)"
            && m.contains("differs across the work-items of a work-group")),
        "{related:?}"
    );
    assert!(
        related.iter().any(|(t, _)| *t == "get_local_id(0) == 0"),
        "{related:?}"
    );
}

#[test]
fn the_local_id_of_dimension_one_is_uniform_per_simd_group_but_not_per_work_group() {
    let text =
        "kernel void k() {\n  if (get_local_id(1) == 0)\n    barrier(CLK_LOCAL_MEM_FENCE);\n}\n";
    let r = barrier_under(text, "get_local_id(1) == 0", None, |k| {
        k.work_item(WorkItem::LocalId, 1, "get_local_id(1)")
    });
    assert_eq!(r.codes(), ["L0401"]);
    // A work-group of 8×1×1 work-items is one SIMD group of width 8:
    // get_local_id(1) is 0 for all of them.
    let r = barrier_under(text, "get_local_id(1) == 0", Some([8, 1, 1]), |k| {
        k.work_item(WorkItem::LocalId, 1, "get_local_id(1)")
    });
    assert!(r.barriers[0].uniform);
    assert!(r.codes().is_empty(), "{:?}", r.codes());
}

#[test]
fn a_work_group_of_one_simd_group_still_diverges_on_the_lane() {
    let text =
        "kernel void k() {\n  if (get_local_id(0) == 0)\n    barrier(CLK_LOCAL_MEM_FENCE);\n}\n";
    let r = barrier_under(text, "get_local_id(0) == 0", Some([8, 1, 1]), |k| {
        k.work_item(WorkItem::LocalId, 0, "get_local_id(0)")
    });
    assert_eq!(r.codes(), ["L0401"]);
    assert!(r.diagnostics[0]
        .related
        .iter()
        .any(|l| l.message.contains("differs per lane")));
}

#[test]
fn sub_group_results_differ_across_the_work_group_collectives_do_not() {
    let text = "kernel void k(int x) {\n  if (sub_group_reduce_add(x) == 0)\n    barrier(CLK_LOCAL_MEM_FENCE);\n  if (work_group_reduce_add(x) == 0)\n    barrier(CLK_LOCAL_MEM_FENCE);\n}\n";
    let r = barrier_under(text, "sub_group_reduce_add(x) == 0", None, |k| {
        let x = k.param("x", Ty::I32);
        k.inst(
            InstKind::Horizontal {
                op: Horizontal::Reduce(crate::ir::ReduceOp::Add),
                args: vec![x],
            },
            Ty::I32,
            "sub_group_reduce_add(x)",
        )
    });
    assert_eq!(r.codes(), ["L0401"]);
    let r = barrier_under(text, "work_group_reduce_add(x) == 0", None, |k| {
        let x = k.param("x", Ty::I32);
        k.inst(
            InstKind::WorkGroup {
                op: Horizontal::Reduce(crate::ir::ReduceOp::Add),
                args: vec![x],
            },
            Ty::I32,
            "work_group_reduce_add(x)",
        )
    });
    // Two sync instructions: the collective and the barrier, both reached
    // by the whole work-group.
    assert_eq!(r.barriers.len(), 2);
    assert!(r.barriers.iter().all(|b| b.uniform));
    assert_eq!(
        r.barriers.iter().map(|b| b.kind).collect::<Vec<_>>(),
        // In source order: the first `barrier` comes before the collective.
        [BarrierKind::Barrier, BarrierKind::Collective]
    );
    assert!(r.codes().is_empty(), "{:?}", r.codes());
}

#[test]
fn an_atomic_result_decides_differently_per_work_item() {
    let text = "kernel void k(global int *count) {\n  if (atomic_inc(count) == 0)\n    barrier(CLK_LOCAL_MEM_FENCE);\n}\n";
    let r = barrier_under(text, "atomic_inc(count) == 0", None, |k| {
        let count = k.param("count", Ty::Ptr(AddressSpace::Global));
        let one = k.f.const_int(1, Ty::I32);
        k.inst(
            InstKind::Atomic {
                op: AtomicOp::Add,
                ptr: count,
                args: vec![one],
            },
            Ty::I32,
            "atomic_inc(count)",
        )
    });
    assert!(r.codes().contains(&"L0401"), "{:?}", r.codes());
    assert!(r.codes().contains(&"L0208"), "{:?}", r.codes());
}

/// The tree reduction of the SDKs:
/// `for (s = get_local_size(0) / 2; s > 0; s >>= 1) { if (lid < s) ...; barrier(...); }`
#[test]
fn a_barrier_in_a_tree_reduction_loop_is_reached_by_every_work_item() {
    let text = "kernel void k(local int *sdata) {\n  int lid = get_local_id(0);\n  for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {\n    if (lid < s)\n      sdata[lid] += sdata[lid + s];\n    barrier(CLK_LOCAL_MEM_FENCE);\n  }\n}\n";
    let mut k = Kernel::new(text);
    let sdata = k.param("sdata", Ty::Ptr(AddressSpace::Local));
    let header = k.block("header");
    let body = k.block("body");
    let add = k.block("add");
    let latch = k.block("latch");
    let exit = k.block("exit");
    let lid = k.work_item(WorkItem::LocalId, 0, "get_local_id(0)");
    let size = k.work_item(WorkItem::LocalSize, 0, "get_local_size(0)");
    let one = k.f.const_int(1, Ty::I64);
    let s0 = k.inst(
        InstKind::Bin {
            op: BinOp::LShr,
            lhs: size,
            rhs: one,
        },
        Ty::I64,
        "get_local_size(0) / 2",
    );
    k.end(InstKind::Br(header));
    k.at(header);
    let s = k.inst(InstKind::Phi { incoming: vec![] }, Ty::I64, "s = ");
    let zero = k.f.const_int(0, Ty::I64);
    let more = k.cmp(CmpPred::Sgt, s, zero, "s > 0");
    k.end(InstKind::CondBr {
        cond: more,
        then: body,
        els: exit,
    });
    k.at(body);
    let lt = k.cmp(CmpPred::Slt, lid, s, "lid < s");
    k.end(InstKind::CondBr {
        cond: lt,
        then: add,
        els: latch,
    });
    k.at(add);
    let other = k.inst(
        InstKind::Bin {
            op: BinOp::Add,
            lhs: lid,
            rhs: s,
        },
        Ty::I64,
        "lid + s",
    );
    let p_other = k.element(sdata, other, "sdata[lid + s]");
    let v_other = k.inst(
        InstKind::Load {
            ptr: p_other,
            align: 4,
        },
        Ty::I32,
        "sdata[lid + s]",
    );
    let p = k.element(sdata, lid, "sdata[lid]");
    let v = k.inst(InstKind::Load { ptr: p, align: 4 }, Ty::I32, "sdata[lid]");
    let sum = k.inst(
        InstKind::Bin {
            op: BinOp::Add,
            lhs: v,
            rhs: v_other,
        },
        Ty::I32,
        "sdata[lid] += sdata[lid + s]",
    );
    k.inst(
        InstKind::Store {
            ptr: p,
            value: sum,
            align: 4,
        },
        Ty::Void,
        "sdata[lid] += sdata[lid + s]",
    );
    k.end(InstKind::Br(latch));
    k.at(latch);
    k.barrier("barrier(CLK_LOCAL_MEM_FENCE)");
    let s1 = k.inst(
        InstKind::Bin {
            op: BinOp::LShr,
            lhs: s,
            rhs: one,
        },
        Ty::I64,
        "s >>= 1",
    );
    k.end(InstKind::Br(header));
    k.at(exit);
    k.end(InstKind::Ret);
    let phi = k.f.def_inst(s).expect("phi");
    k.f.inst_mut(phi).kind = InstKind::Phi {
        incoming: vec![(crate::ir::BlockId(0), s0), (latch, s1)],
    };
    let (ka, sources) = k.analyse(None);
    let r = findings(&ka, sources);
    assert_eq!(r.barriers.len(), 1);
    assert!(r.barriers[0].uniform, "{:?}", r.barriers[0].reason);
    assert!(!r.codes().contains(&"L0401"), "{:?}", r.codes());
    // `__local` accesses are analysed like global ones.
    let local: Vec<(&str, AccessKind, Pattern)> = r
        .accesses
        .iter()
        .filter(|a| a.space == AddressSpace::Local)
        .map(|a| (r.text(a.span), a.kind, a.pattern))
        .collect();
    assert!(local.contains(&("sdata[lid]", AccessKind::Load, Pattern::Contiguous)));
    assert!(local.contains(&("sdata[lid + s]", AccessKind::Load, Pattern::Contiguous)));
}

#[test]
fn a_barrier_in_a_loop_with_a_local_id_dependent_exit_is_l0401() {
    let text = "kernel void k() {\n  for (int i = 0; i < get_local_id(0); i++)\n    barrier(CLK_LOCAL_MEM_FENCE);\n}\n";
    let mut k = Kernel::new(text);
    let header = k.block("header");
    let body = k.block("body");
    let exit = k.block("exit");
    let lid = k.work_item(WorkItem::LocalId, 0, "get_local_id(0)");
    k.end(InstKind::Br(header));
    k.at(header);
    let i = k.inst(InstKind::Phi { incoming: vec![] }, Ty::I64, "int i = 0");
    let c = k.cmp(CmpPred::Slt, i, lid, "i < get_local_id(0)");
    k.end(InstKind::CondBr {
        cond: c,
        then: body,
        els: exit,
    });
    k.at(body);
    k.barrier("barrier(CLK_LOCAL_MEM_FENCE)");
    let one = k.f.const_int(1, Ty::I64);
    let next = k.inst(
        InstKind::Bin {
            op: BinOp::Add,
            lhs: i,
            rhs: one,
        },
        Ty::I64,
        "i++",
    );
    k.end(InstKind::Br(header));
    k.at(exit);
    k.end(InstKind::Ret);
    let zero = k.f.const_int(0, Ty::I64);
    let phi = k.f.def_inst(i).expect("phi");
    k.f.inst_mut(phi).kind = InstKind::Phi {
        incoming: vec![(crate::ir::BlockId(0), zero), (body, next)],
    };
    let (ka, sources) = k.analyse(None);
    let r = findings(&ka, sources);
    assert_eq!(r.codes(), ["L0401"]);
    assert!(r.diagnostics[0]
        .related
        .iter()
        .any(|l| r.text(l.span) == "get_local_id(0)"));
}

#[test]
fn atomics_on_one_address_and_on_lane_varying_addresses() {
    let text = "kernel void k(global const int *in, global int *hist, global int *count) {\n  atomic_inc(count);\n  atomic_inc(&hist[in[get_global_id(0)]]);\n}\n";
    let mut k = Kernel::new(text);
    let input = k.param("in", Ty::Ptr(AddressSpace::Global));
    let hist = k.param("hist", Ty::Ptr(AddressSpace::Global));
    let count = k.param("count", Ty::Ptr(AddressSpace::Global));
    let one = k.f.const_int(1, Ty::I32);
    k.inst(
        InstKind::Atomic {
            op: AtomicOp::Add,
            ptr: count,
            args: vec![one],
        },
        Ty::I32,
        "atomic_inc(count)",
    );
    let gid = k.work_item(WorkItem::GlobalId, 0, "get_global_id(0)");
    let p = k.element(input, gid, "in[get_global_id(0)]");
    let bin = k.inst(
        InstKind::Load { ptr: p, align: 4 },
        Ty::I32,
        "in[get_global_id(0)]",
    );
    let bin = k.inst(
        InstKind::Cast {
            op: crate::ir::CastOp::SExt,
            value: bin,
        },
        Ty::I64,
        "in[get_global_id(0)]",
    );
    let q = k.element(hist, bin, "&hist[in[get_global_id(0)]]");
    k.inst(
        InstKind::Atomic {
            op: AtomicOp::Add,
            ptr: q,
            args: vec![one],
        },
        Ty::I32,
        "atomic_inc(&hist[in[get_global_id(0)]])",
    );
    k.end(InstKind::Ret);
    let (ka, sources) = k.analyse(None);
    assert!(ka.wg.is_none(), "no barrier: no work-group analysis");
    let r = findings(&ka, sources);
    let atomics: Vec<(&str, Pattern)> = r
        .accesses
        .iter()
        .filter(|a| a.kind == AccessKind::Atomic)
        .map(|a| (r.text(a.span), a.pattern))
        .collect();
    assert_eq!(
        atomics,
        [
            ("atomic_inc(count)", Pattern::Uniform),
            ("atomic_inc(&hist[in[get_global_id(0)]])", Pattern::Scatter)
        ]
    );
    // The atomics get their own codes, not L0203 (scatter).
    assert_eq!(r.codes(), ["L0208", "L0209"]);
    let same = &r.diagnostics[0];
    assert!(same
        .notes
        .iter()
        .any(|n| n.contains("sub_group_reduce_add")));
    assert!(same
        .related
        .iter()
        .any(|l| r.text(l.span) == "count" && l.message.contains("kernel argument")));
    let varying = &r.diagnostics[1];
    assert!(varying
        .related
        .iter()
        .any(|l| r.text(l.span) == "in[get_global_id(0)]"));
}

#[test]
fn a_strided_local_access_is_l0204_like_a_global_one() {
    let text = "kernel void k(global const int *in) {\n  local int tile[128];\n  tile[2 * get_local_id(0)] = in[get_global_id(0)];\n}\n";
    let mut k = Kernel::new(text);
    let input = k.param("in", Ty::Ptr(AddressSpace::Global));
    let span = k.span("tile[128]", 0);
    let tile = k.f.add_local(LocalVar {
        name: "tile".into(),
        size: 512,
        align: 4,
        span,
    });
    let gid = k.work_item(WorkItem::GlobalId, 0, "get_global_id(0)");
    let p = k.element(input, gid, "in[get_global_id(0)]");
    let v = k.inst(
        InstKind::Load { ptr: p, align: 4 },
        Ty::I32,
        "in[get_global_id(0)]",
    );
    let lid = k.work_item(WorkItem::LocalId, 0, "get_local_id(0)");
    let two = k.f.const_int(2, Ty::I64);
    let i = k.inst(
        InstKind::Bin {
            op: BinOp::Mul,
            lhs: lid,
            rhs: two,
        },
        Ty::I64,
        "2 * get_local_id(0)",
    );
    let q = k.element(tile, i, "tile[2 * get_local_id(0)]");
    k.inst(
        InstKind::Store {
            ptr: q,
            value: v,
            align: 4,
        },
        Ty::Void,
        "tile[2 * get_local_id(0)] = in[get_global_id(0)]",
    );
    k.end(InstKind::Ret);
    let (ka, sources) = k.analyse(None);
    let r = findings(&ka, sources);
    let store = r
        .accesses
        .iter()
        .find(|a| a.kind == AccessKind::Store)
        .expect("store");
    assert_eq!(store.space, AddressSpace::Local);
    assert_eq!(store.pattern, Pattern::Strided);
    assert_eq!(store.stride_bytes, Some(8));
    assert_eq!(r.codes(), ["L0204"]);
}
