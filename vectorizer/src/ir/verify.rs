//! IR verifier (structure, types, SSA dominance).
//!
//! [`verify`] checks everything the rest of the vectorizer relies on and
//! never panics, whatever the input: every id is bounds-checked before use.
//! Messages name the block and the instruction, e.g.
//! `bb3: %7 uses %9 which does not dominate it`.
//!
//! Checked:
//! - structure: the entry exists and has no predecessors; every block is
//!   non-empty, lists φs first and ends in its only terminator; successors are
//!   valid blocks; every block is reachable from the entry; no instruction is
//!   listed twice and `inst.block` names the block that lists it; results and
//!   values agree (`Value::def` points back at the instruction, same type);
//! - φs: the incoming blocks are exactly the predecessors, as a multiset by
//!   edge (a switch with two cases to one block needs two entries);
//! - operands: valid ids, defined by a placed instruction, a parameter, a
//!   constant or a global, and of the types the instruction needs;
//! - SSA dominance: every use is dominated by its definition (a φ operand is
//!   used at the end of its incoming block); block predicates are `i1` values
//!   whose definition dominates the block.

use lanes_frontend::ast::AddressSpace;
use std::collections::HashMap;

use super::{
    AtomicOp, CastOp, CmpPred, Function, Horizontal, ImageElem, ImageQuery, InstId, InstKind,
    MathFn, ReduceOp, Ty, ValueDef, ValueId, WorkItem,
};
use crate::cfg::dom::DomTree;

/// Checks `f`; on failure returns every problem found (at most a few hundred).
pub fn verify(f: &Function) -> Result<(), Vec<String>> {
    verify_with(f, false)
}

/// Like [`verify`], but blocks unreachable from the entry are allowed (and
/// their contents are not checked for dominance). Loop canonicalization
/// accepts such functions and removes the unreachable blocks.
pub(crate) fn verify_with(f: &Function, allow_unreachable: bool) -> Result<(), Vec<String>> {
    let mut v = Verifier {
        f,
        errors: Vec::new(),
        pos: HashMap::new(),
    };
    v.run(allow_unreachable);
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

/// Stops collecting after this many messages (a broken function could
/// otherwise produce one per instruction).
const MAX_ERRORS: usize = 200;

struct Verifier<'a> {
    f: &'a Function,
    errors: Vec<String>,
    /// Placement of every listed instruction: (block, position).
    pos: HashMap<InstId, (usize, usize)>,
}

impl Verifier<'_> {
    fn err(&mut self, msg: String) {
        if self.errors.len() < MAX_ERRORS {
            self.errors.push(msg);
        }
    }

    fn run(&mut self, allow_unreachable: bool) {
        let f = self.f;
        let nb = f.blocks.len();
        if f.entry.index() >= nb {
            self.err(format!(
                "entry block bb{} does not exist ({} blocks)",
                f.entry.0, nb
            ));
            return;
        }

        // Placement and block layout.
        let mut layout_ok = true;
        for (bi, block) in f.blocks.iter().enumerate() {
            if block.insts.is_empty() {
                self.err(format!("bb{bi}: empty block (no terminator)"));
                layout_ok = false;
                continue;
            }
            let mut seen_non_phi = false;
            let last = block.insts.len() - 1;
            for (k, &id) in block.insts.iter().enumerate() {
                let Some(inst) = f.insts.get(id.index()) else {
                    self.err(format!(
                        "bb{bi}: lists instruction #{} which does not exist",
                        id.0
                    ));
                    layout_ok = false;
                    continue;
                };
                if let Some(&(ob, _)) = self.pos.get(&id) {
                    self.err(format!(
                        "bb{bi}: instruction #{} is also listed in bb{ob}",
                        id.0
                    ));
                    layout_ok = false;
                    continue;
                }
                self.pos.insert(id, (bi, k));
                if inst.block.index() != bi {
                    self.err(format!(
                        "bb{bi}: {} says it is in bb{}",
                        self.name(id),
                        inst.block.0
                    ));
                }
                if inst.kind.is_phi() {
                    if seen_non_phi {
                        self.err(format!(
                            "bb{bi}: φ {} after a non-φ instruction",
                            self.name(id)
                        ));
                    }
                } else {
                    seen_non_phi = true;
                }
                let term = inst.kind.is_terminator();
                if term && k != last {
                    self.err(format!(
                        "bb{bi}: terminator {} is not the last instruction",
                        self.name(id)
                    ));
                    layout_ok = false;
                }
                if !term && k == last {
                    self.err(format!(
                        "bb{bi}: does not end in a terminator (last is {})",
                        self.name(id)
                    ));
                    layout_ok = false;
                }
            }
        }

        // Successors (only where valid) and predecessors by edge.
        let mut succs: Vec<Vec<usize>> = vec![Vec::new(); nb];
        for (bi, block) in f.blocks.iter().enumerate() {
            let Some(&last) = block.insts.last() else {
                continue;
            };
            let Some(inst) = f.insts.get(last.index()) else {
                continue;
            };
            for s in inst.kind.successors() {
                if s.index() < nb {
                    succs[bi].push(s.index());
                } else {
                    self.err(format!(
                        "bb{bi}: {} branches to bb{} which does not exist",
                        self.name(last),
                        s.0
                    ));
                    layout_ok = false;
                }
            }
        }
        let mut preds: Vec<Vec<usize>> = vec![Vec::new(); nb];
        for (b, ss) in succs.iter().enumerate() {
            for &s in ss {
                preds[s].push(b);
            }
        }
        if !preds[f.entry.index()].is_empty() {
            self.err(format!(
                "bb{}: the entry block has predecessors ({})",
                f.entry.0,
                list_blocks(&preds[f.entry.index()])
            ));
        }
        let dom = DomTree::compute(nb, f.entry.index(), &succs);
        if !allow_unreachable {
            for b in 0..nb {
                if !dom.is_reachable(b) {
                    self.err(format!("bb{b}: not reachable from the entry"));
                }
            }
        }

        // Instructions.
        let placed: Vec<(InstId, usize, usize)> = {
            let mut v: Vec<_> = self.pos.iter().map(|(&i, &(b, k))| (i, b, k)).collect();
            v.sort_by_key(|&(i, b, k)| (b, k, i));
            v
        };
        for &(id, bi, k) in &placed {
            self.check_result(id, bi);
            self.check_operands_valid(id, bi);
            self.check_types(id, bi);
            if layout_ok {
                self.check_phi_preds(id, bi, &preds);
            }
            if dom.is_reachable(bi) {
                self.check_dominance(id, bi, k, &dom);
            }
        }

        // Block predicates.
        for (bi, block) in f.blocks.iter().enumerate() {
            let Some(p) = block.predicate else { continue };
            let Some(val) = f.values.get(p.index()) else {
                self.err(format!("bb{bi}: predicate %{} does not exist", p.0));
                continue;
            };
            if val.ty != Ty::I1 {
                self.err(format!("bb{bi}: predicate %{} is {}, not i1", p.0, val.ty));
            }
            if let ValueDef::Inst(d) = val.def {
                match self.pos.get(&d) {
                    None => self.err(format!(
                        "bb{bi}: predicate %{} is defined by an instruction in no block",
                        p.0
                    )),
                    Some(&(db, _)) => {
                        if dom.is_reachable(bi) && !dom.dominates(db, bi) {
                            self.err(format!(
                                "bb{bi}: predicate %{} is defined in bb{db}, which does not dominate the block",
                                p.0
                            ));
                        }
                    }
                }
            }
        }
    }

    /// `%N` for instructions with a result, `#N kind` otherwise.
    fn name(&self, id: InstId) -> String {
        match self.f.insts.get(id.index()) {
            Some(inst) => match inst.result {
                Some(v) => format!("%{}", v.0),
                None => format!("#{} ({})", id.0, kind_name(&inst.kind)),
            },
            None => format!("#{}", id.0),
        }
    }

    fn check_result(&mut self, id: InstId, bi: usize) {
        let f = self.f;
        let inst = &f.insts[id.index()];
        let name = self.name(id);
        match inst.result {
            None => {
                if inst.ty != Ty::Void {
                    self.err(format!(
                        "bb{bi}: {name} has type {} but no result value",
                        inst.ty
                    ));
                }
            }
            Some(v) => {
                if inst.ty == Ty::Void {
                    self.err(format!("bb{bi}: {name} is void but has a result value"));
                }
                match f.values.get(v.index()) {
                    None => self.err(format!("bb{bi}: result %{} does not exist", v.0)),
                    Some(val) => {
                        if val.def != ValueDef::Inst(id) {
                            self.err(format!(
                                "bb{bi}: {name}'s value is not defined by instruction #{}",
                                id.0
                            ));
                        }
                        if val.ty != inst.ty {
                            self.err(format!(
                                "bb{bi}: {name} has type {} but its value has type {}",
                                inst.ty, val.ty
                            ));
                        }
                    }
                }
            }
        }
    }

    fn check_operands_valid(&mut self, id: InstId, bi: usize) {
        let f = self.f;
        let inst = &f.insts[id.index()];
        let mut bad = Vec::new();
        inst.kind.for_each_operand(|v| bad.push(v));
        for v in bad {
            if let Some(msg) = self.operand_problem(v) {
                let name = self.name(id);
                self.err(format!("bb{bi}: {name} {msg}"));
            }
        }
    }

    /// Why an operand is invalid, if it is.
    fn operand_problem(&self, v: ValueId) -> Option<String> {
        let f = self.f;
        let Some(val) = f.values.get(v.index()) else {
            return Some(format!("uses %{} which does not exist", v.0));
        };
        match val.def {
            ValueDef::Param(n) if n as usize >= f.params.len() => Some(format!(
                "uses %{} = parameter {n} which does not exist",
                v.0
            )),
            ValueDef::Global(g) if g as usize >= f.globals.len() => {
                Some(format!("uses %{} = global {g} which does not exist", v.0))
            }
            ValueDef::Inst(d) => {
                if f.insts.get(d.index()).is_none() {
                    Some(format!(
                        "uses %{} defined by missing instruction #{}",
                        v.0, d.0
                    ))
                } else if !self.pos.contains_key(&d) {
                    Some(format!("uses %{} whose instruction is in no block", v.0))
                } else if f.insts[d.index()].result != Some(v) {
                    Some(format!(
                        "uses %{} which its instruction does not define",
                        v.0
                    ))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// Type of a valid operand (None if invalid; reported elsewhere).
    fn ty(&self, v: ValueId) -> Option<Ty> {
        self.f.values.get(v.index()).map(|val| val.ty)
    }

    fn check_types(&mut self, id: InstId, bi: usize) {
        let f = self.f;
        let inst = &f.insts[id.index()];
        let name = self.name(id);
        let rty = inst.ty;
        let mut errs: Vec<String> = Vec::new();
        let ty = |v: ValueId| self.ty(v);
        // Every check below skips invalid operands (already reported).
        let want = |errs: &mut Vec<String>,
                    what: &str,
                    v: ValueId,
                    ok: &dyn Fn(Ty) -> bool,
                    expect: &str| {
            if let Some(t) = ty(v) {
                if !ok(t) {
                    errs.push(format!("{what} %{} is {t}, expected {expect}", v.0));
                }
            }
        };
        match &inst.kind {
            InstKind::Phi { incoming } => {
                if rty == Ty::Void {
                    errs.push("φ of type void".into());
                }
                for &(_, v) in incoming {
                    want(
                        &mut errs,
                        "incoming value",
                        v,
                        &|t| t == rty,
                        &rty.to_string(),
                    );
                }
            }
            InstKind::Bin { op, lhs, rhs } => {
                let ok_ty = if op.is_float() {
                    rty.is_float()
                } else {
                    rty.is_int()
                };
                if !ok_ty {
                    errs.push(format!("{} on type {rty}", op.name()));
                }
                want(
                    &mut errs,
                    "left operand",
                    *lhs,
                    &|t| t == rty,
                    &rty.to_string(),
                );
                want(
                    &mut errs,
                    "right operand",
                    *rhs,
                    &|t| t == rty,
                    &rty.to_string(),
                );
            }
            InstKind::FNeg(v) => {
                if !rty.is_float() {
                    errs.push(format!("fneg on type {rty}"));
                }
                want(&mut errs, "operand", *v, &|t| t == rty, &rty.to_string());
            }
            InstKind::Cmp { pred, lhs, rhs } => {
                if rty != Ty::I1 {
                    errs.push(format!("comparison result is {rty}, not i1"));
                }
                let float = pred.is_float();
                let ok = move |t: Ty| {
                    if float {
                        t.is_float()
                    } else {
                        t.is_int() || (t.is_ptr() && matches!(pred, CmpPred::Eq | CmpPred::Ne))
                    }
                };
                let expect = if float { "a float" } else { "an integer" };
                want(&mut errs, "left operand", *lhs, &ok, expect);
                want(&mut errs, "right operand", *rhs, &ok, expect);
                if let (Some(a), Some(b)) = (ty(*lhs), ty(*rhs)) {
                    if a != b {
                        errs.push(format!("compares {a} with {b}"));
                    }
                }
            }
            InstKind::Select { cond, then, els } => {
                want(&mut errs, "condition", *cond, &|t| t == Ty::I1, "i1");
                want(
                    &mut errs,
                    "true value",
                    *then,
                    &|t| t == rty,
                    &rty.to_string(),
                );
                want(
                    &mut errs,
                    "false value",
                    *els,
                    &|t| t == rty,
                    &rty.to_string(),
                );
            }
            InstKind::Cast { op, value } => {
                if let Some(from) = ty(*value) {
                    if !cast_ok(*op, from, rty) {
                        errs.push(format!("invalid {} from {from} to {rty}", op.name()));
                    }
                }
            }
            InstKind::Alloca { size: _, align } => {
                if rty != Ty::Ptr(lanes_frontend::ast::AddressSpace::Private) {
                    errs.push(format!("alloca of type {rty}, expected ptr(private)"));
                }
                if !align.is_power_of_two() {
                    errs.push(format!("alignment {align} is not a power of two"));
                }
            }
            InstKind::Load { ptr, align } => {
                want(&mut errs, "address", *ptr, &|t| t.is_ptr(), "a pointer");
                if rty == Ty::Void {
                    errs.push("load of type void".into());
                }
                if !align.is_power_of_two() {
                    errs.push(format!("alignment {align} is not a power of two"));
                }
            }
            InstKind::Store { ptr, value, align } => {
                want(&mut errs, "address", *ptr, &|t| t.is_ptr(), "a pointer");
                want(
                    &mut errs,
                    "stored value",
                    *value,
                    &|t| t != Ty::Void,
                    "a non-void type",
                );
                if rty != Ty::Void {
                    errs.push(format!("store has type {rty}"));
                }
                if !align.is_power_of_two() {
                    errs.push(format!("alignment {align} is not a power of two"));
                }
            }
            InstKind::PtrAdd { base, offset } => {
                want(&mut errs, "base", *base, &|t| t.is_ptr(), "a pointer");
                want(&mut errs, "offset", *offset, &|t| t == Ty::I64, "i64");
                if let Some(b) = ty(*base) {
                    if b != rty {
                        errs.push(format!("ptradd of a {b} has type {rty}"));
                    }
                }
            }
            InstKind::WorkItem { query, dim } => {
                match (query.has_dim(), dim) {
                    (true, None) => errs.push(format!("{} without a dimension", query.name())),
                    (false, Some(_)) => errs.push(format!("{} with a dimension", query.name())),
                    (_, Some(d)) => want(&mut errs, "dimension", *d, &|t| t == Ty::I32, "i32"),
                    _ => {}
                }
                let expect = workitem_ty(*query);
                if rty != expect {
                    errs.push(format!(
                        "{} has type {rty}, expected {expect}",
                        query.name()
                    ));
                }
            }
            InstKind::Math { func, args } => {
                if args.len() != func.arity() {
                    errs.push(format!(
                        "{} takes {} arguments, has {}",
                        func.name(),
                        func.arity(),
                        args.len()
                    ));
                } else {
                    let ok_ret = if func.is_integer() {
                        rty.is_int()
                    } else {
                        rty.is_float()
                    };
                    if !ok_ret {
                        errs.push(format!("{} of type {rty}", func.name()));
                    }
                    for (k, &a) in args.iter().enumerate() {
                        // pown/rootn/ldexp take an i32 second argument.
                        let expect = if k == 1
                            && matches!(func, MathFn::Pown | MathFn::Rootn | MathFn::Ldexp)
                        {
                            Ty::I32
                        } else {
                            rty
                        };
                        want(
                            &mut errs,
                            "argument",
                            a,
                            &|t| t == expect,
                            &expect.to_string(),
                        );
                    }
                }
            }
            InstKind::Printf { args, .. } => {
                if rty != Ty::I32 {
                    errs.push(format!("printf has type {rty}, expected i32"));
                }
                for &a in args {
                    want(&mut errs, "argument", a, &|t| t != Ty::Void, "a value");
                }
            }
            // Sub-group and work-group collectives share their checks; only
            // broadcast differs (a lane index, or 1 to 3 local ids).
            InstKind::Horizontal { op, args } | InstKind::WorkGroup { op, args } => {
                let scope = match inst.kind {
                    InstKind::WorkGroup { .. } => "work_group",
                    _ => "sub_group",
                };
                match op {
                    Horizontal::Any | Horizontal::All => {
                        if args.len() != 1 {
                            errs.push(format!("{scope}.{} takes 1 argument", op.name()));
                        } else {
                            want(&mut errs, "argument", args[0], &|t| t == Ty::I1, "i1");
                        }
                        if rty != Ty::I1 {
                            errs.push(format!("{scope}.{} has type {rty}, expected i1", op.name()));
                        }
                    }
                    Horizontal::Broadcast if scope == "sub_group" => {
                        if args.len() != 2 {
                            errs.push("sub_group.broadcast takes 2 arguments".into());
                        } else {
                            want(&mut errs, "value", args[0], &|t| t == rty, &rty.to_string());
                            want(&mut errs, "lane", args[1], &|t| t == Ty::I32, "i32");
                        }
                    }
                    Horizontal::Broadcast => {
                        if !(2..=4).contains(&args.len()) {
                            errs.push("work_group.broadcast takes a value and 1 to 3 ids".into());
                        } else {
                            want(&mut errs, "value", args[0], &|t| t == rty, &rty.to_string());
                            for &id in &args[1..] {
                                want(&mut errs, "local id", id, &|t| t == Ty::I64, "i64");
                            }
                        }
                    }
                    Horizontal::Reduce(r)
                    | Horizontal::ScanInclusive(r)
                    | Horizontal::ScanExclusive(r) => {
                        if args.len() != 1 {
                            errs.push(format!("{scope}.{} takes 1 argument", op.name()));
                        } else {
                            want(
                                &mut errs,
                                "argument",
                                args[0],
                                &|t| t == rty,
                                &rty.to_string(),
                            );
                        }
                        let float = matches!(r, ReduceOp::FAdd | ReduceOp::FMin | ReduceOp::FMax);
                        if (float && !rty.is_float()) || (!float && !rty.is_int()) {
                            errs.push(format!("{scope}.{} on type {rty}", op.name()));
                        }
                    }
                }
            }
            InstKind::Barrier { .. } => {
                if rty != Ty::Void {
                    errs.push(format!("barrier has type {rty}"));
                }
            }
            InstKind::Atomic { op, ptr, args } => {
                want(
                    &mut errs,
                    "address",
                    *ptr,
                    &|t| {
                        matches!(
                            t,
                            Ty::Ptr(AddressSpace::Global)
                                | Ty::Ptr(AddressSpace::Local)
                                | Ty::Ptr(AddressSpace::Generic)
                        )
                    },
                    "a __global or __local pointer",
                );
                if args.len() != op.arity() {
                    errs.push(format!(
                        "atomic.{} takes {} value operands",
                        op.name(),
                        op.arity()
                    ));
                }
                let value_ty = match op {
                    AtomicOp::Store => args.first().and_then(|&v| ty(v)),
                    _ => Some(rty),
                };
                match value_ty {
                    Some(t) if t.is_int() && t.bits() >= 32 => {}
                    Some(t)
                        if t.is_float()
                            && matches!(
                                op,
                                AtomicOp::Xchg
                                    | AtomicOp::Load
                                    | AtomicOp::Store
                                    | AtomicOp::CmpXchg
                            ) => {}
                    Some(t) => errs.push(format!("atomic.{} on type {t}", op.name())),
                    None => {}
                }
                if *op == AtomicOp::Store && rty != Ty::Void {
                    errs.push(format!("atomic.store has type {rty}"));
                }
                if let Some(t) = value_ty {
                    for &a in args {
                        want(&mut errs, "operand", a, &|u| u == t, &t.to_string());
                    }
                }
            }
            InstKind::ImageRead {
                image,
                sampler,
                coords,
                elem,
                component,
            } => {
                want(&mut errs, "image", *image, &|t| t == Ty::Image, "image");
                if let Some(s) = sampler {
                    want(&mut errs, "sampler", *s, &|t| t == Ty::I32, "i32");
                }
                let sampled = sampler.is_some();
                for &c in coords {
                    want(
                        &mut errs,
                        "coordinate",
                        c,
                        &|t| t == Ty::I32 || (sampled && t == Ty::F32),
                        if sampled { "i32 or f32" } else { "i32" },
                    );
                }
                if !matches!(coords.len(), 1 | 2 | 4) {
                    errs.push(format!("image read with {} coordinates", coords.len()));
                }
                let want_ty = match elem {
                    ImageElem::Float => Ty::F32,
                    ImageElem::Int | ImageElem::UInt => Ty::I32,
                };
                if rty != want_ty {
                    errs.push(format!("read_image{} has type {rty}", elem.suffix()));
                }
                if *component > 3 {
                    errs.push(format!("image channel {component}"));
                }
            }
            InstKind::ImageWrite {
                image,
                coords,
                values,
                elem,
            } => {
                want(&mut errs, "image", *image, &|t| t == Ty::Image, "image");
                for &c in coords {
                    want(&mut errs, "coordinate", c, &|t| t == Ty::I32, "i32");
                }
                if !matches!(coords.len(), 1 | 2 | 4) || !matches!(values.len(), 1 | 4) {
                    errs.push(format!(
                        "image write with {} coordinates and {} channels",
                        coords.len(),
                        values.len()
                    ));
                }
                let want_ty = match elem {
                    ImageElem::Float => Ty::F32,
                    ImageElem::Int | ImageElem::UInt => Ty::I32,
                };
                for &v in values {
                    want(
                        &mut errs,
                        "channel",
                        v,
                        &|t| t == want_ty,
                        &want_ty.to_string(),
                    );
                }
                if rty != Ty::Void {
                    errs.push(format!("image write has type {rty}"));
                }
            }
            InstKind::ImageQuery { query, image } => {
                want(&mut errs, "image", *image, &|t| t == Ty::Image, "image");
                let want_ty = match query {
                    ImageQuery::ArraySize => Ty::I64,
                    _ => Ty::I32,
                };
                if *query == ImageQuery::Dim {
                    errs.push("get_image_dim is lowered to one query per component".into());
                } else if rty != want_ty {
                    errs.push(format!("{} has type {rty}", query.name()));
                }
            }
            InstKind::Br(_) | InstKind::Ret | InstKind::Unreachable => {}
            InstKind::CondBr { cond, .. } => {
                want(&mut errs, "condition", *cond, &|t| t == Ty::I1, "i1");
            }
            InstKind::Switch { value, cases, .. } => {
                want(&mut errs, "value", *value, &|t| t.is_int(), "an integer");
                if let Some(t) = ty(*value) {
                    let mut seen = std::collections::HashSet::new();
                    for &(c, _) in cases {
                        if super::truncate(c, t.bits()) != c {
                            errs.push(format!("case {c} does not fit {t}"));
                        }
                        if !seen.insert(c) {
                            errs.push(format!("duplicate case {c}"));
                        }
                    }
                }
            }
        }
        if inst.kind.is_terminator() && (rty != Ty::Void || inst.result.is_some()) {
            errs.push("terminator with a result".into());
        }
        for e in errs {
            self.err(format!("bb{bi}: {name}: {e}"));
        }
    }

    fn check_phi_preds(&mut self, id: InstId, bi: usize, preds: &[Vec<usize>]) {
        let f = self.f;
        let InstKind::Phi { incoming } = &f.insts[id.index()].kind else {
            return;
        };
        let mut want: Vec<usize> = preds[bi].clone();
        let mut have: Vec<usize> = incoming.iter().map(|&(b, _)| b.index()).collect();
        want.sort_unstable();
        have.sort_unstable();
        if want != have {
            let name = self.name(id);
            self.err(format!(
                "bb{bi}: φ {name} has incoming blocks [{}] but the predecessors are [{}]",
                list_blocks(&have),
                list_blocks(&want)
            ));
        }
    }

    fn check_dominance(&mut self, id: InstId, bi: usize, k: usize, dom: &DomTree) {
        let f = self.f;
        let inst = &f.insts[id.index()];
        let mut uses: Vec<(ValueId, usize, Option<usize>)> = Vec::new();
        match &inst.kind {
            // A φ operand is used at the end of its incoming block.
            InstKind::Phi { incoming } => {
                for &(b, v) in incoming {
                    uses.push((v, b.index(), None));
                }
            }
            kind => kind.for_each_operand(|v| uses.push((v, bi, Some(k)))),
        }
        for (v, use_block, use_pos) in uses {
            let Some(val) = f.values.get(v.index()) else {
                continue;
            };
            let ValueDef::Inst(d) = val.def else { continue };
            let Some(&(db, dk)) = self.pos.get(&d) else {
                continue;
            };
            if use_block >= f.blocks.len() || !dom.is_reachable(use_block) {
                continue; // an invalid or unreachable incoming block: reported elsewhere
            }
            let ok = if db == use_block {
                match use_pos {
                    Some(p) => dk < p,
                    None => true, // the end of the block comes after every definition
                }
            } else {
                dom.dominates(db, use_block)
            };
            if !ok {
                let name = self.name(id);
                let at = if use_pos.is_none() {
                    format!(" on the edge from bb{use_block}")
                } else {
                    String::new()
                };
                self.err(format!(
                    "bb{bi}: {name} uses %{}{at} which does not dominate it (defined in bb{db})",
                    v.0
                ));
            }
        }
    }
}

fn list_blocks(bs: &[usize]) -> String {
    bs.iter()
        .map(|b| format!("bb{b}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn kind_name(k: &InstKind) -> &'static str {
    match k {
        InstKind::Phi { .. } => "phi",
        InstKind::Bin { .. } => "bin",
        InstKind::FNeg(_) => "fneg",
        InstKind::Cmp { .. } => "cmp",
        InstKind::Select { .. } => "select",
        InstKind::Cast { .. } => "cast",
        InstKind::Alloca { .. } => "alloca",
        InstKind::Load { .. } => "load",
        InstKind::Store { .. } => "store",
        InstKind::PtrAdd { .. } => "ptradd",
        InstKind::WorkItem { .. } => "work-item query",
        InstKind::Math { .. } => "math",
        InstKind::Horizontal { .. } => "sub_group",
        InstKind::WorkGroup { .. } => "work_group",
        InstKind::Barrier { .. } => "barrier",
        InstKind::Atomic { .. } => "atomic",
        InstKind::Printf { .. } => "printf",
        InstKind::ImageRead { .. } => "image read",
        InstKind::ImageWrite { .. } => "image write",
        InstKind::ImageQuery { .. } => "image query",
        InstKind::Br(_) => "br",
        InstKind::CondBr { .. } => "br",
        InstKind::Switch { .. } => "switch",
        InstKind::Ret => "ret",
        InstKind::Unreachable => "unreachable",
    }
}

/// Result type of a work-item query (see [`WorkItem`]).
fn workitem_ty(q: WorkItem) -> Ty {
    use WorkItem::*;
    match q {
        LaneMask => Ty::I1,
        WorkDim | SubGroupSize | SubGroupLocalId | NumSubGroups | SubGroupId | MaxSubGroupSize => {
            Ty::I32
        }
        _ => Ty::I64,
    }
}

/// Whether a cast from `from` to `to` is well-typed (LLVM's rules: width
/// changes are strict, bitcasts keep the width and never touch pointers).
fn cast_ok(op: CastOp, from: Ty, to: Ty) -> bool {
    use CastOp::*;
    match op {
        Trunc => from.is_int() && to.is_int() && to.bits() < from.bits(),
        ZExt | SExt => from.is_int() && to.is_int() && to.bits() > from.bits(),
        FpTrunc => from.is_float() && to.is_float() && to.bits() < from.bits(),
        HalfToFp => from == Ty::I16 && to.is_float(),
        FpToHalf => from.is_float() && to == Ty::I16,
        FpExt => from.is_float() && to.is_float() && to.bits() > from.bits(),
        FpToSi | FpToUi | FpToSiSat | FpToUiSat => from.is_float() && to.is_int(),
        SiToFp | UiToFp => from.is_int() && to.is_float(),
        Bitcast => {
            (from.is_int() || from.is_float())
                && (to.is_int() || to.is_float())
                && from.bits() == to.bits()
        }
        PtrToInt => from.is_ptr() && to.is_int(),
        IntToPtr => from.is_int() && to.is_ptr(),
        PtrCast => from.is_ptr() && to.is_ptr(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{BinOp, BlockId, Const, Src};
    use lanes_frontend::ast::NodeId;
    use lanes_frontend::source::Span;

    fn src() -> Src {
        Src {
            node: NodeId(0),
            span: Span::default(),
        }
    }

    /// entry: %c = cmp; br %c, then, join ; then: %x = add; br join ;
    /// join: %p = phi [entry: 0], [then: %x]; ret
    fn diamond() -> (Function, [BlockId; 3], ValueId) {
        let mut f = Function::new("k", Span::default());
        let a = f.add_param(crate::ir::Param {
            name: "a".into(),
            ty: Ty::I32,
            source_index: 0,
            component: None,
            span: Span::default(),
        });
        let entry = f.add_block("entry");
        let then = f.add_block("if.then");
        let join = f.add_block("if.end");
        let zero = f.const_int(0, Ty::I32);
        let (_, c) = f.append(
            entry,
            InstKind::Cmp {
                pred: CmpPred::Slt,
                lhs: a,
                rhs: zero,
            },
            Ty::I1,
            src(),
        );
        let c = c.unwrap();
        f.append(
            entry,
            InstKind::CondBr {
                cond: c,
                then,
                els: join,
            },
            Ty::Void,
            src(),
        );
        let (_, x) = f.append(
            then,
            InstKind::Bin {
                op: BinOp::Add,
                lhs: a,
                rhs: a,
            },
            Ty::I32,
            src(),
        );
        let x = x.unwrap();
        f.append(then, InstKind::Br(join), Ty::Void, src());
        f.add_phi(join, Ty::I32, vec![(entry, zero), (then, x)], src());
        f.append(join, InstKind::Ret, Ty::Void, src());
        (f, [entry, then, join], x)
    }

    fn has(errs: &[String], needle: &str) -> bool {
        errs.iter().any(|e| e.contains(needle))
    }

    #[test]
    fn valid_function_passes() {
        let (f, _, _) = diamond();
        assert_eq!(verify(&f), Ok(()));
    }

    #[test]
    fn use_not_dominated() {
        let (mut f, [_, _, join], x) = diamond();
        // ret -> use %x in the join block through a new instruction before ret.
        let pos = f.block(join).insts.len() - 1;
        f.insert(
            join,
            pos,
            InstKind::Bin {
                op: BinOp::Add,
                lhs: x,
                rhs: x,
            },
            Ty::I32,
            src(),
        );
        let errs = verify(&f).unwrap_err();
        assert!(
            has(&errs, &format!("uses %{} which does not dominate it", x.0)),
            "{errs:?}"
        );
        assert!(errs[0].starts_with("bb2: %"), "{errs:?}");
    }

    #[test]
    fn phi_use_checked_at_incoming_edge() {
        let (mut f, [entry, then, join], x) = diamond();
        // φ [entry: %x] is wrong: %x is not available at the end of entry.
        let phi = f.block(join).insts[0];
        f.inst_mut(phi).kind = InstKind::Phi {
            incoming: vec![(entry, x), (then, x)],
        };
        let errs = verify(&f).unwrap_err();
        assert!(
            has(&errs, "on the edge from bb0 which does not dominate it"),
            "{errs:?}"
        );
    }

    #[test]
    fn phi_incoming_must_match_predecessors() {
        let (mut f, [entry, _, join], _) = diamond();
        let phi = f.block(join).insts[0];
        let z = f.const_int(1, Ty::I32);
        f.inst_mut(phi).kind = InstKind::Phi {
            incoming: vec![(entry, z)],
        };
        let errs = verify(&f).unwrap_err();
        assert!(
            has(
                &errs,
                "incoming blocks [bb0] but the predecessors are [bb0, bb1]"
            ),
            "{errs:?}"
        );
    }

    #[test]
    fn phi_incoming_multiset_for_switch() {
        let (mut f, [entry, then, join], _) = diamond();
        // entry: switch with two cases to `join` and default `then`.
        let term = *f.block(entry).insts.last().unwrap();
        let v = f.const_int(3, Ty::I32);
        f.inst_mut(term).kind = InstKind::Switch {
            value: v,
            default: then,
            cases: vec![(1, join), (2, join)],
        };
        assert!(verify(&f).is_err(), "one entry for two edges");
        let phi = f.block(join).insts[0];
        if let InstKind::Phi { incoming } = &mut f.inst_mut(phi).kind {
            let e = incoming[0];
            incoming.push(e);
        }
        assert_eq!(verify(&f), Ok(()));
    }

    #[test]
    fn layout_errors() {
        let (mut f, [entry, then, join], _) = diamond();
        // Missing terminator.
        f.block_mut(then).insts.pop();
        let errs = verify(&f).unwrap_err();
        assert!(has(&errs, "bb1: does not end in a terminator"), "{errs:?}");

        let (mut f, _, _) = diamond();
        // Terminator in the middle, φ after a non-φ.
        let t = f.block(entry).insts[1];
        f.block_mut(entry).insts.insert(0, t);
        let errs = verify(&f).unwrap_err();
        assert!(has(&errs, "also listed in bb0"), "{errs:?}");

        let (mut f, _, x) = diamond();
        let _ = x;
        let one = f.const_int(1, Ty::I32);
        f.insert(
            join,
            0,
            InstKind::Bin {
                op: BinOp::Add,
                lhs: one,
                rhs: one,
            },
            Ty::I32,
            src(),
        );
        let errs = verify(&f).unwrap_err();
        assert!(has(&errs, "after a non-φ instruction"), "{errs:?}");

        let (mut f, _, _) = diamond();
        f.add_block("empty");
        let errs = verify(&f).unwrap_err();
        assert!(has(&errs, "bb3: empty block"), "{errs:?}");
    }

    #[test]
    fn invalid_ids_do_not_panic() {
        let (mut f, [entry, _, join], _) = diamond();
        let term = *f.block(entry).insts.last().unwrap();
        f.inst_mut(term).kind = InstKind::CondBr {
            cond: ValueId(999),
            then: BlockId(77),
            els: join,
        };
        f.block_mut(join).insts.push(InstId(12345));
        f.block_mut(join).predicate = Some(ValueId(4242));
        let errs = verify(&f).unwrap_err();
        assert!(
            has(&errs, "branches to bb77 which does not exist"),
            "{errs:?}"
        );
        assert!(has(&errs, "uses %999 which does not exist"), "{errs:?}");
        assert!(has(&errs, "lists instruction #12345"), "{errs:?}");
        assert!(has(&errs, "predicate %4242 does not exist"), "{errs:?}");

        let mut f = Function::new("k", Span::default());
        f.entry = BlockId(3);
        assert!(verify(&f).is_err());
    }

    #[test]
    fn unreachable_and_entry_preds() {
        let (mut f, [entry, _, _], _) = diamond();
        let dead = f.add_block("dead");
        f.append(dead, InstKind::Ret, Ty::Void, src());
        let errs = verify(&f).unwrap_err();
        assert_eq!(errs, vec!["bb3: not reachable from the entry".to_string()]);
        assert_eq!(verify_with(&f, true), Ok(()));

        let (mut f, [entry2, then, _], _) = diamond();
        let _ = entry;
        let t = *f.block(then).insts.last().unwrap();
        f.inst_mut(t).kind = InstKind::Br(entry2);
        let errs = verify(&f).unwrap_err();
        assert!(has(&errs, "the entry block has predecessors"), "{errs:?}");
    }

    #[test]
    fn type_errors() {
        let (mut f, [entry, then, _], x) = diamond();
        // add i32 with an i64 operand
        let big = f.const_int(1, Ty::I64);
        let add = f.block(then).insts[0];
        f.inst_mut(add).kind = InstKind::Bin {
            op: BinOp::Add,
            lhs: x,
            rhs: big,
        };
        // condbr on an i32
        let term = *f.block(entry).insts.last().unwrap();
        if let InstKind::CondBr { cond, .. } = &mut f.inst_mut(term).kind {
            *cond = big;
        }
        let fl = f.add_const(Const::Float(1.0, Ty::F32));
        let pos = f.block(then).insts.len() - 1;
        f.insert(
            then,
            pos,
            InstKind::Cast {
                op: CastOp::Trunc,
                value: fl,
            },
            Ty::I8,
            src(),
        );
        f.insert(
            then,
            pos,
            InstKind::Load { ptr: big, align: 4 },
            Ty::I32,
            src(),
        );
        let errs = verify(&f).unwrap_err();
        assert!(has(&errs, "right operand %"), "{errs:?}");
        assert!(has(&errs, "condition %"), "{errs:?}");
        assert!(has(&errs, "invalid trunc from f32 to i8"), "{errs:?}");
        assert!(has(&errs, "address %"), "{errs:?}");
        // The self-use of %x in its own definition is a dominance error.
        assert!(
            has(&errs, &format!("uses %{} which does not dominate it", x.0)),
            "{errs:?}"
        );
    }

    #[test]
    fn removed_definition_is_reported() {
        let (mut f, [_, then, _], _) = diamond();
        let add = f.block(then).insts[0];
        f.remove_inst(add);
        let errs = verify(&f).unwrap_err();
        assert!(has(&errs, "whose instruction is in no block"), "{errs:?}");
    }

    #[test]
    fn wrong_block_field() {
        let (mut f, [entry, then, _], _) = diamond();
        let add = f.block(then).insts[0];
        f.inst_mut(add).block = entry;
        let errs = verify(&f).unwrap_err();
        assert!(has(&errs, "says it is in bb0"), "{errs:?}");
    }

    /// A kernel with a `__local` array, an atomic on it, a barrier and a
    /// work-group reduction verifies and prints; an atomic on private
    /// memory and a mistyped collective do not verify.
    #[test]
    fn work_group_instructions() {
        let mut f = Function::new("k", Span::default());
        let tile = f.add_local(crate::ir::LocalVar {
            name: "tile".into(),
            size: 256,
            align: 4,
            span: Span::default(),
        });
        let entry = f.add_block("entry");
        let one = f.const_int(1, Ty::I32);
        let (_, old) = f.append(
            entry,
            InstKind::Atomic {
                op: AtomicOp::Add,
                ptr: tile,
                args: vec![one],
            },
            Ty::I32,
            src(),
        );
        f.append(
            entry,
            InstKind::Barrier {
                flags: crate::ir::fence::LOCAL,
            },
            Ty::Void,
            src(),
        );
        let (_, sum) = f.append(
            entry,
            InstKind::WorkGroup {
                op: Horizontal::Reduce(ReduceOp::Add),
                args: vec![old.unwrap()],
            },
            Ty::I32,
            src(),
        );
        f.append(entry, InstKind::Ret, Ty::Void, src());
        assert_eq!(verify(&f), Ok(()));
        assert!(f.uses_work_group_features());
        let text = crate::ir::print::print(&f, &crate::ir::print::Plain);
        assert!(text.contains("atomic.add i32 @local.tile, i32 1"), "{text}");
        assert!(text.contains("barrier local"), "{text}");
        assert!(text.contains("work_group.reduce.add i32("), "{text}");

        let mut bad = f.clone();
        let (_, priv_ptr) = bad.insert(
            entry,
            0,
            InstKind::Alloca { size: 4, align: 4 },
            Ty::Ptr(AddressSpace::Private),
            src(),
        );
        let InstKind::Atomic { ptr, .. } = &mut bad.insts[0].kind else {
            unreachable!()
        };
        *ptr = priv_ptr.unwrap();
        assert!(verify(&bad).is_err());

        let mut bad = f.clone();
        bad.insts[2].ty = Ty::F32;
        assert!(verify(&bad).is_err());
        let _ = sum;
    }
}
