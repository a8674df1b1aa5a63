//! Text form of the IR. Shapes (or any other per-value fact) are printed as
//! trailing `: contiguous` annotations, as RV prints them.

use std::fmt::Write;

use super::{Const, Function, InstKind, ValueDef, ValueId};

/// Facts to print next to the IR.
pub trait Annotate {
    /// Appended as ` : <text>` after the instruction defining `v` (and after
    /// parameters).
    fn value(&self, _f: &Function, _v: ValueId) -> Option<String> {
        None
    }
    /// Appended as a comment after a block's label.
    fn block(&self, _f: &Function, _b: super::BlockId) -> Option<String> {
        None
    }
}

/// No annotations.
pub struct Plain;
impl Annotate for Plain {}

/// An operand as text: `%N` for instruction results and parameters, the
/// literal for constants, `@name` for globals.
pub fn operand(f: &Function, v: ValueId) -> String {
    let Some(value) = f.values.get(v.index()) else {
        return format!("%<bad {}>", v.0);
    };
    match &value.def {
        ValueDef::Const(c) => const_text(*c),
        ValueDef::Global(g) => match f.globals.get(*g as usize) {
            Some(gl) => format!("@{}", gl.name),
            None => format!("@<bad {g}>"),
        },
        ValueDef::Local(l) => match f.locals.get(*l as usize) {
            Some(lv) => format!("@local.{}", lv.name),
            None => format!("@local<bad {l}>"),
        },
        ValueDef::Param(_) | ValueDef::Inst(_) => format!("%{}", v.0),
    }
}

pub fn const_text(c: Const) -> String {
    match c {
        Const::Int(v, t) if t.bits() == 1 => {
            if v & 1 == 1 {
                "true".into()
            } else {
                "false".into()
            }
        }
        Const::Int(v, t) => format!("{t} {}", super::sign_extend(v, t.bits())),
        Const::Float(x, t) => format!("{t} {x:?}"),
        Const::Null(_) => "null".into(),
        Const::Undef(t) => format!("{t} undef"),
    }
}

/// The whole function.
pub fn print(f: &Function, ann: &dyn Annotate) -> String {
    let mut out = String::new();
    let params: Vec<String> = f
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let v = f
                .values
                .iter()
                .position(|val| val.def == ValueDef::Param(i as u32))
                .map(|n| ValueId(n as u32));
            let mut s = match v {
                Some(v) => format!("{}: {} {}", operand(f, v), p.ty, p.name),
                None => format!("?: {} {}", p.ty, p.name),
            };
            if let Some(c) = p.component {
                let _ = write!(s, ".s{c:x}");
            }
            if let Some(a) = v.and_then(|v| ann.value(f, v)) {
                let _ = write!(s, " : {a}");
            }
            s
        })
        .collect();
    let _ = writeln!(out, "kernel @{}({}) {{", f.name, params.join(", "));
    for g in &f.globals {
        let _ = writeln!(out, "  ; @{} = constant [{} bytes]", g.name, g.bytes.len());
    }
    for l in &f.locals {
        let _ = writeln!(
            out,
            "  ; @local.{} = local [{} bytes, align {}]",
            l.name, l.size, l.align
        );
    }
    for b in f.block_ids() {
        let block = f.block(b);
        let mut head = format!("bb{}", b.0);
        if !block.label.is_empty() {
            let _ = write!(head, ".{}", block.label);
        }
        head.push(':');
        if b == f.entry {
            head.push_str(" ; entry");
        }
        if let Some(p) = block.predicate {
            let _ = write!(head, " ; predicate {}", operand(f, p));
        }
        if let Some(u) = block.unroll {
            let _ = write!(head, " ; {}", unroll_text(u));
        }
        if let Some(a) = ann.block(f, b) {
            let _ = write!(head, " ; {a}");
        }
        let _ = writeln!(out, "{head}");
        for &i in &block.insts {
            let _ = writeln!(out, "  {}", inst_text(f, i, ann));
        }
    }
    out.push_str("}\n");
    out
}

/// A loop header's unroll hint as printed (and read back by the parser).
pub fn unroll_text(u: super::Unroll) -> String {
    match u {
        super::Unroll::Enable => "unroll".to_string(),
        super::Unroll::Full => "unroll full".to_string(),
        super::Unroll::Count(n) => format!("unroll {n}"),
        super::Unroll::Disable => "nounroll".to_string(),
    }
}

fn label(f: &Function, b: super::BlockId) -> String {
    match f.blocks.get(b.index()) {
        Some(block) if !block.label.is_empty() => format!("bb{}.{}", b.0, block.label),
        _ => format!("bb{}", b.0),
    }
}

/// Barrier flags as OpenCL spells them (`local|global`, or `none`).
fn fence_text(flags: u32) -> String {
    use super::fence;
    let names: Vec<&str> = [
        (fence::LOCAL, "local"),
        (fence::GLOBAL, "global"),
        (fence::IMAGE, "image"),
    ]
    .iter()
    .filter(|(bit, _)| flags & bit != 0)
    .map(|&(_, n)| n)
    .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join("|")
    }
}

/// One instruction as text (without indentation).
pub fn inst_text(f: &Function, i: super::InstId, ann: &dyn Annotate) -> String {
    let inst = f.inst(i);
    let op = |v: ValueId| operand(f, v);
    let body = match &inst.kind {
        InstKind::Phi { incoming } => {
            let parts: Vec<String> = incoming
                .iter()
                .map(|&(b, v)| format!("[{}: {}]", label(f, b), op(v)))
                .collect();
            format!("phi {} {}", inst.ty, parts.join(", "))
        }
        InstKind::Bin { op: o, lhs, rhs } => {
            let nsw = if inst.result.is_some_and(|r| f.nsw.contains(&r)) {
                " nsw"
            } else {
                ""
            };
            format!("{}{nsw} {} {}, {}", o.name(), inst.ty, op(*lhs), op(*rhs))
        }
        InstKind::FNeg(v) => format!("fneg {} {}", inst.ty, op(*v)),
        InstKind::Cmp { pred, lhs, rhs } => format!(
            "cmp {} {} {}, {}",
            pred.name(),
            f.ty(*lhs),
            op(*lhs),
            op(*rhs)
        ),
        InstKind::Select { cond, then, els } => format!(
            "select {} {}, {}, {}",
            inst.ty,
            op(*cond),
            op(*then),
            op(*els)
        ),
        InstKind::Cast { op: c, value } => {
            format!(
                "{} {} {} to {}",
                c.name(),
                f.ty(*value),
                op(*value),
                inst.ty
            )
        }
        InstKind::Alloca { size, align } => format!("alloca {size} bytes, align {align}"),
        InstKind::Load { ptr, align } => format!("load {} {}, align {align}", inst.ty, op(*ptr)),
        InstKind::Store { ptr, value, align } => format!(
            "store {} {}, {}, align {align}",
            f.ty(*value),
            op(*value),
            op(*ptr)
        ),
        InstKind::PtrAdd { base, offset } => format!("ptradd {}, {}", op(*base), op(*offset)),
        InstKind::WorkItem { query, dim } => match dim {
            Some(d) => format!("{} {}({})", query.name(), inst.ty, op(*d)),
            None => format!("{} {}()", query.name(), inst.ty),
        },
        InstKind::Math { func, args } => {
            let a: Vec<String> = args.iter().map(|&v| op(v)).collect();
            format!("{} {}({})", func.name(), inst.ty, a.join(", "))
        }
        InstKind::Horizontal { op: h, args } => {
            let a: Vec<String> = args.iter().map(|&v| op(v)).collect();
            format!("sub_group.{} {}({})", h.name(), inst.ty, a.join(", "))
        }
        InstKind::WorkGroup { op: h, args } => {
            let a: Vec<String> = args.iter().map(|&v| op(v)).collect();
            format!("work_group.{} {}({})", h.name(), inst.ty, a.join(", "))
        }
        InstKind::Barrier { flags } => format!("barrier {}", fence_text(*flags)),
        InstKind::Atomic { op: a, ptr, args } => {
            let mut parts = vec![op(*ptr)];
            parts.extend(args.iter().map(|&v| op(v)));
            format!("atomic.{} {} {}", a.name(), inst.ty, parts.join(", "))
        }
        InstKind::Printf { format, args } => {
            let a: Vec<String> = args.iter().map(|&v| op(v)).collect();
            format!("printf {} {:?}({})", inst.ty, format.as_str(), a.join(", "))
        }
        InstKind::ImageRead {
            image,
            sampler,
            coords,
            elem,
            component,
        } => {
            let mut parts = vec![op(*image)];
            parts.extend(sampler.map(op));
            parts.push(format!(
                "({})",
                coords.iter().map(|&v| op(v)).collect::<Vec<_>>().join(", ")
            ));
            format!(
                "read_image{}.{} {} {}",
                elem.suffix(),
                ["x", "y", "z", "w"][usize::from(*component).min(3)],
                inst.ty,
                parts.join(", ")
            )
        }
        InstKind::ImageWrite {
            image,
            coords,
            values,
            elem,
        } => format!(
            "write_image{} {}, ({}), ({})",
            elem.suffix(),
            op(*image),
            coords.iter().map(|&v| op(v)).collect::<Vec<_>>().join(", "),
            values.iter().map(|&v| op(v)).collect::<Vec<_>>().join(", ")
        ),
        InstKind::ImageQuery { query, image } => {
            format!("{} {}({})", query.name(), inst.ty, op(*image))
        }
        InstKind::Br(b) => format!("br {}", label(f, *b)),
        InstKind::CondBr { cond, then, els } => {
            format!("br {}, {}, {}", op(*cond), label(f, *then), label(f, *els))
        }
        InstKind::Switch {
            value,
            default,
            cases,
        } => {
            let c: Vec<String> = cases
                .iter()
                .map(|&(k, b)| {
                    format!(
                        "{} => {}",
                        super::sign_extend(k, f.ty(*value).bits()),
                        label(f, b)
                    )
                })
                .collect();
            format!(
                "switch {} {}, default {} [{}]",
                f.ty(*value),
                op(*value),
                label(f, *default),
                c.join(", ")
            )
        }
        InstKind::Ret => "ret".into(),
        InstKind::Unreachable => "unreachable".into(),
    };
    match inst.result {
        Some(v) => {
            let mut s = format!("%{} = {body}", v.0);
            if let Some(a) = ann.value(f, v) {
                let _ = write!(s, " : {a}");
            }
            s
        }
        None => body,
    }
}
