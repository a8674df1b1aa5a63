//! An executor for vector IR ([`VectorFunction`]): runs each SIMD group
//! the way the generated code does — uniform values once, the others on W
//! lanes, branches on uniform conditions, memory and sub-group operations
//! only on the lanes of the block mask — and checks the vectorizer's
//! claims on the way:
//! - a value of uniform shape is equal on all active lanes;
//! - a packed access's address is lane 0's plus `l * stride` on every
//!   active lane (the code generator only computes lane 0's address);
//! - no lane accesses memory the scalar program would not (bounds,
//!   ownership and initialization of private memory as in the interpreter).
//!
//! A work-group runs by its [`Schedule`], as the generated code does: each
//! region (barrier to barrier) for every SIMD group, in the schedule's
//! order, before the next region; a SIMD group keeps only the values the
//! schedule says cross a region boundary (the others are forgotten, so a
//! value missing from the schedule shows as a garbage read).
//!
//! It is the oracle of the vectorizer's own differential tests (against
//! [`super::run`]), independent of the LLVM back end.

use super::*;
use crate::ir::BinOp;
use crate::schedule::Schedule;
use crate::shape::Shape;
use crate::vectorize::VectorFunction;

/// Runs vector IR over `range` (the same arguments as [`super::run`]).
pub fn run_vector(
    vf: &VectorFunction,
    range: &NdRange,
    args: &mut [ArgValue],
) -> Result<RunStats, InterpError> {
    let f = &vf.func;
    let geo = Geometry::new(f, range, vf.width)?;
    check_args(f, args)?;
    let opts = Options::new(vf.width);
    let mut m = Machine::new(f, geo, &opts, args);
    let schedule = Schedule::of(vf);
    let result = run_groups(vf, &schedule, &mut m);
    // Buffers go back to the caller even after an error.
    for (i, a) in args.iter_mut().enumerate() {
        if let (ArgValue::Buffer(bytes), Some(&id)) = (a, m.buffer_objs.get(&i)) {
            if let Some(obj) = m.mem.fixed.get_mut(id as usize) {
                *bytes = std::mem::take(&mut obj.bytes);
            }
        }
    }
    result.map(|_| m.stats)
}

/// One SIMD group's geometry, per lane.
struct Group {
    gid: Vec<[u64; 3]>,
    lid: Vec<[u64; 3]>,
    group: [u64; 3],
    size: [u64; 3],
    exists: Vec<bool>,
    sub_group_id: u64,
    num_sub_groups: u64,
    lanes: u64,
    owner: u64,
}

/// Where a SIMD group stands in the body: the next instruction to run.
#[derive(Clone, Copy)]
struct At {
    block: BlockId,
    prev: Option<BlockId>,
    /// Index in the block's instructions; 0 runs its φs first.
    pos: usize,
}

/// Why a SIMD group stopped.
#[derive(Clone, Copy, PartialEq)]
enum Stop {
    Done,
    /// At a synchronization point (a barrier or collective), not run yet.
    Sync(InstId),
}

/// A SIMD group between regions: its geometry, values, private objects and
/// place in the body.
struct SimdGroup {
    grp: Group,
    vals: Vec<Vec<Val>>,
    allocas: Vec<u32>,
    at: At,
}

fn run_groups(
    vf: &VectorFunction,
    schedule: &Schedule,
    m: &mut Machine,
) -> Result<(), InterpError> {
    let g = m.geo;
    let w = vf.width as u64;
    let f = &vf.func;
    // Instruction results a SIMD group forgets at a region boundary.
    let forgotten: Vec<ValueId> = (0..f.values.len())
        .map(|i| ValueId(i as u32))
        .filter(|&v| matches!(f.values[v.index()].def, ValueDef::Inst(_)))
        .filter(|v| !schedule.kept.contains(v) && !schedule.requeried.contains(v))
        .collect();
    let shared: Vec<ValueId> = schedule.shared.iter().copied().collect();
    let mut owner = 0u64;
    for gz in 0..g.groups[2] {
        for gy in 0..g.groups[1] {
            for gx in 0..g.groups[0] {
                let group = [gx, gy, gz];
                let mut size = [1u64; 3];
                for d in 0..3 {
                    size[d] = g.local[d].min(g.global[d] - group[d] * g.local[d]);
                }
                // The work-group's `__local` objects.
                let mut template = m.template.clone();
                let mut locals = Vec::new();
                for (name, bytes, value) in m.local_objs.clone() {
                    let obj = m.mem.local(name, bytes).map_err(|e| InterpError {
                        kind: e.kind,
                        span: f.span,
                        work_item: [0; 3],
                        message: e.message,
                        related: None,
                    })?;
                    locals.push(obj);
                    template[value.index()] = Val::Ptr(Pointer {
                        obj: Some(obj),
                        off: 0,
                    });
                }
                let per_row = size[0].div_ceil(w);
                let num_sg = per_row * size[1] * size[2];
                let mut sgs = Vec::new();
                for at in schedule.simd_groups(size, w) {
                    let mut grp = Group {
                        gid: Vec::new(),
                        lid: Vec::new(),
                        group,
                        size,
                        exists: Vec::new(),
                        sub_group_id: (at.lz * size[1] + at.ly) * per_row + at.x / w,
                        num_sub_groups: num_sg,
                        lanes: at.lanes,
                        owner,
                    };
                    for l in 0..w {
                        let lid = [at.x + l, at.ly, at.lz];
                        let mut gid = [0u64; 3];
                        for d in 0..3 {
                            gid[d] = g.offset[d] + group[d] * g.local[d] + lid[d];
                        }
                        grp.gid.push(gid);
                        grp.lid.push(lid);
                        grp.exists.push(l < at.lanes);
                    }
                    owner += 1;
                    m.stats.sub_groups += 1;
                    m.stats.work_items += grp.lanes;
                    sgs.push(SimdGroup {
                        grp,
                        vals: template.iter().map(|&v| vec![v; w as usize]).collect(),
                        allocas: Vec::new(),
                        at: At {
                            block: f.entry,
                            prev: None,
                            pos: 0,
                        },
                    });
                }
                let result = run_work_group(vf, m, &mut sgs, &forgotten, &shared);
                for sg in &sgs {
                    for &a in &sg.allocas {
                        m.mem.free(a);
                    }
                }
                for obj in locals {
                    m.mem.free(obj);
                }
                result?;
                m.stats.work_groups += 1;
            }
        }
    }
    Ok(())
}

/// Runs the regions of one work-group: every SIMD group to the next
/// synchronization point, which all must have reached, then past it.
fn run_work_group(
    vf: &VectorFunction,
    m: &mut Machine,
    sgs: &mut [SimdGroup],
    forgotten: &[ValueId],
    shared: &[ValueId],
) -> Result<(), InterpError> {
    let f = &vf.func;
    let w = vf.width as usize;
    loop {
        let mut stops = Vec::with_capacity(sgs.len());
        for sg in sgs.iter_mut() {
            let mut r = Run {
                vf,
                m: &mut *m,
                g: &sg.grp,
                vals: std::mem::take(&mut sg.vals),
                allocas: std::mem::take(&mut sg.allocas),
            };
            let stop = r.blocks(&mut sg.at);
            sg.vals = std::mem::take(&mut r.vals);
            sg.allocas = std::mem::take(&mut r.allocas);
            stops.push(stop?);
        }
        let Some(&first) = stops.first() else {
            return Ok(());
        };
        if let Some(k) = stops.iter().position(|&s| s != first) {
            return Err(divergence(vf, &sgs[k].grp, stops[k]));
        }
        let Stop::Sync(id) = first else {
            return Ok(());
        };
        let inst = f.inst(id);
        if let InstKind::WorkGroup { op, args } = &inst.kind {
            collective(vf, sgs, id, *op, args)?;
        }
        // A work-group of one SIMD group runs straight through (the back
        // end's straight bodies keep every value in registers).
        let several = sgs.len() > 1;
        // Values kept once per work-group: the next region reads what the
        // last SIMD group left (the back end keeps one copy).
        if several {
            if let Some(last) = sgs.last() {
                let left: Vec<Vec<Val>> = shared
                    .iter()
                    .map(|v| last.vals[v.index()].clone())
                    .collect();
                for sg in sgs.iter_mut() {
                    for (v, val) in shared.iter().zip(&left) {
                        sg.vals[v.index()] = val.clone();
                    }
                }
            }
        }
        for sg in sgs.iter_mut() {
            sg.at.pos += 1;
            if several {
                for &v in forgotten {
                    sg.vals[v.index()] = vec![Val::Unset; w];
                }
            }
        }
    }
}

struct Run<'a, 'm, 'f> {
    vf: &'a VectorFunction,
    m: &'m mut Machine<'f>,
    g: &'a Group,
    vals: Vec<Vec<Val>>,
    allocas: Vec<u32>,
}

/// SIMD groups of one work-group that stopped at different places: the
/// schedule cannot run them (the analysis refuses such kernels, L0401).
fn divergence(vf: &VectorFunction, g: &Group, stop: Stop) -> InterpError {
    let f = &vf.func;
    let (span, what) = match stop {
        Stop::Sync(i) => (f.inst(i).src.span, "stopped at this synchronization point"),
        Stop::Done => (f.span, "returned"),
    };
    InterpError {
        kind: ErrorKind::BarrierDivergence,
        span,
        work_item: g.gid.first().copied().unwrap_or([0; 3]),
        message: format!(
            "SIMD group {} {what} while the first SIMD group of its work-group did not",
            g.sub_group_id
        ),
        related: None,
    }
}

/// A work-group collective, as the generated code computes it: each SIMD
/// group combines its active lanes (its slot), then the slots are combined
/// in linear local-id order (all of them, or the earlier ones and the SIMD
/// group's own lanes for a scan).
fn collective(
    vf: &VectorFunction,
    sgs: &mut [SimdGroup],
    id: InstId,
    op: Horizontal,
    args: &[ValueId],
) -> Result<(), InterpError> {
    let f = &vf.func;
    let inst = f.inst(id);
    let ty = inst.ty;
    let w = vf.width as usize;
    let span = inst.src.span;
    let err = |g: &Group, e: Fault| InterpError {
        kind: e.kind,
        span,
        work_item: g.gid.first().copied().unwrap_or([0; 3]),
        message: e.message,
        related: None,
    };
    let mut order: Vec<usize> = (0..sgs.len()).collect();
    order.sort_by_key(|&k| sgs[k].grp.sub_group_id);
    let block = sgs[0].at.block;
    let mask = vf.block_mask[block.index()];
    let active = |sg: &SimdGroup| -> Vec<usize> {
        (0..w)
            .filter(|&l| matches!(sg.vals[mask.index()][l], Val::Int(1)))
            .collect()
    };
    let Some(&x) = args.first() else {
        return Err(err(
            &sgs[0].grp,
            fault(ErrorKind::MalformedIr, "collective without operand"),
        ));
    };
    let bit = |v: Val| matches!(v, Val::Int(b) if b & 1 == 1);
    let results: Vec<Vec<Val>> = match op {
        Horizontal::Any | Horizontal::All => {
            let mut any = false;
            let mut all = true;
            for sg in sgs.iter() {
                for l in active(sg) {
                    any |= bit(sg.vals[x.index()][l]);
                    all &= bit(sg.vals[x.index()][l]);
                }
            }
            let v = Val::Int(if op == Horizontal::Any { any } else { all } as u64);
            vec![vec![v; w]; sgs.len()]
        }
        Horizontal::Broadcast => {
            let mut lid = [0u64; 3];
            for (d, a) in args[1..].iter().enumerate().take(3) {
                match sgs[0].vals[a.index()][0] {
                    Val::Int(v) => lid[d] = v,
                    _ => {
                        return Err(err(
                            &sgs[0].grp,
                            fault(ErrorKind::InvalidSubGroupOp, "broadcast local id"),
                        ))
                    }
                }
            }
            let v = sgs
                .iter()
                .find_map(|sg| {
                    (0..w)
                        .find(|&l| sg.grp.exists[l] && sg.grp.lid[l] == lid)
                        .map(|l| sg.vals[x.index()][l])
                })
                .ok_or_else(|| {
                    err(
                        &sgs[0].grp,
                        fault(ErrorKind::InvalidSubGroupOp, "broadcast from no work-item"),
                    )
                })?;
            vec![vec![v; w]; sgs.len()]
        }
        Horizontal::Reduce(r) | Horizontal::ScanInclusive(r) | Horizontal::ScanExclusive(r) => {
            let mut out = vec![vec![Val::Undef; w]; sgs.len()];
            let mut prefix = identity(r, ty).map_err(|e| err(&sgs[0].grp, e))?;
            for &k in &order {
                let sg = &sgs[k];
                let mut acc = identity(r, ty).map_err(|e| err(&sg.grp, e))?;
                for (n, l) in active(sg).into_iter().enumerate() {
                    let v = sg.vals[x.index()][l];
                    let next = if n == 0 {
                        v
                    } else {
                        combine(r, ty, acc, v).map_err(|e| err(&sg.grp, e))?
                    };
                    let lane = match op {
                        Horizontal::ScanInclusive(_) => Some(next),
                        Horizontal::ScanExclusive(_) => Some(acc),
                        _ => None,
                    };
                    if let Some(lane) = lane {
                        out[k][l] = combine(r, ty, prefix, lane).map_err(|e| err(&sg.grp, e))?;
                    }
                    acc = next;
                }
                prefix = combine(r, ty, prefix, acc).map_err(|e| err(&sg.grp, e))?;
            }
            if let Horizontal::Reduce(_) = op {
                out = vec![vec![prefix; w]; sgs.len()];
            }
            out
        }
    };
    if let Some(res) = inst.result {
        for (sg, v) in sgs.iter_mut().zip(results) {
            sg.vals[res.index()] = v;
        }
    }
    Ok(())
}

fn is_int_div(op: BinOp) -> bool {
    matches!(op, BinOp::SDiv | BinOp::UDiv | BinOp::SRem | BinOp::URem)
}

impl Run<'_, '_, '_> {
    fn w(&self) -> usize {
        self.vf.width as usize
    }

    fn err(
        &self,
        kind: ErrorKind,
        span: Span,
        lane: usize,
        message: impl Into<String>,
    ) -> InterpError {
        InterpError {
            kind,
            span,
            work_item: self.g.gid.get(lane).copied().unwrap_or([0; 3]),
            message: message.into(),
            related: None,
        }
    }

    fn fault(&self, e: Fault, span: Span, lane: usize) -> InterpError {
        self.err(e.kind, span, lane, e.message)
    }

    fn active(&self, b: BlockId) -> Vec<bool> {
        let m = self.vf.block_mask[b.index()];
        self.vals[m.index()]
            .iter()
            .map(|v| matches!(v, Val::Int(1)))
            .collect()
    }

    /// Runs from `at` to the end of the body or the next synchronization
    /// point (left unrun, `at` on it).
    fn blocks(&mut self, at: &mut At) -> Result<Stop, InterpError> {
        let f = &self.vf.func;
        loop {
            let b = at.block;
            self.m.stats.instructions += 1;
            if self.m.stats.instructions > self.m.step_limit {
                return Err(self.err(ErrorKind::StepLimit, f.span, 0, "step limit"));
            }
            let phis: Vec<InstId> = f.phis(b).collect();
            if at.pos == 0 {
                // φs read their operands in parallel.
                let mut new = Vec::new();
                for &i in &phis {
                    let InstKind::Phi { incoming } = &f.inst(i).kind else {
                        continue;
                    };
                    let p = at.prev.ok_or_else(|| {
                        self.err(
                            ErrorKind::MalformedIr,
                            f.inst(i).src.span,
                            0,
                            "φ in the entry block",
                        )
                    })?;
                    let v = incoming
                        .iter()
                        .find(|(q, _)| *q == p)
                        .map(|&(_, v)| v)
                        .ok_or_else(|| {
                            self.err(
                                ErrorKind::MalformedIr,
                                f.inst(i).src.span,
                                0,
                                format!("φ without an incoming value from bb{}", p.0),
                            )
                        })?;
                    new.push((f.inst(i).result, self.vals[v.index()].clone()));
                }
                for (r, v) in new {
                    if let Some(r) = r {
                        self.vals[r.index()] = v;
                    }
                }
                at.pos = phis.len();
            }
            let insts = &f.block(b).insts;
            let mut next = None;
            while at.pos < insts.len() {
                let i = insts[at.pos];
                if f.inst(i).kind.is_work_group_sync() {
                    return Ok(Stop::Sync(i));
                }
                // The mask may be defined in this block (the entry's).
                let active = self.active(b);
                match self.exec(i, &active)? {
                    Some(Some(t)) => next = Some(t),
                    Some(None) => return Ok(Stop::Done),
                    None => {}
                }
                at.pos += 1;
            }
            let Some(t) = next else {
                return Err(self.err(
                    ErrorKind::MalformedIr,
                    f.span,
                    0,
                    "block without terminator",
                ));
            };
            at.prev = Some(b);
            at.block = t;
            at.pos = 0;
        }
    }

    /// Lane 0's value of a uniform operand; `Undef` stands for garbage.
    fn uni(&self, v: ValueId) -> Val {
        self.vals[v.index()][0]
    }

    fn cond(&self, v: ValueId) -> bool {
        matches!(self.uni(v), Val::Int(x) if x & 1 == 1)
    }

    /// Executes one instruction; `Some(Some(b))` jumps, `Some(None)` returns.
    fn exec(
        &mut self,
        id: InstId,
        active: &[bool],
    ) -> Result<Option<Option<BlockId>>, InterpError> {
        let f = &self.vf.func;
        let inst = f.inst(id);
        let span = inst.src.span;
        let w = self.w();
        let any_active = active.iter().any(|&a| a);
        match &inst.kind {
            InstKind::Br(t) => return Ok(Some(Some(*t))),
            InstKind::CondBr { cond, then, els } => {
                return Ok(Some(Some(if self.cond(*cond) { *then } else { *els })));
            }
            InstKind::Switch {
                value,
                default,
                cases,
            } => {
                let t = match self.uni(*value) {
                    Val::Int(x) => cases
                        .iter()
                        .find(|(c, _)| *c == x)
                        .map_or(*default, |&(_, b)| b),
                    _ => *default,
                };
                return Ok(Some(Some(t)));
            }
            InstKind::Ret => return Ok(Some(None)),
            InstKind::Unreachable => {
                return Err(self.err(ErrorKind::Unreachable, span, 0, "unreachable executed"))
            }
            _ => {}
        }
        let ty = inst.ty;
        let result = inst.result;
        let uniform = result.is_some_and(|r| self.vf.is_uniform(r));
        let out: Vec<Val> = match &inst.kind {
            InstKind::Alloca { size, .. } => {
                let per_lane = !uniform;
                let total = if per_lane { size * w as u64 } else { *size };
                let obj = self
                    .m
                    .mem
                    .alloca(
                        format!("private memory (%{})", result.map_or(0, |r| r.0)),
                        total.max(1),
                        self.g.owner,
                    )
                    .map_err(|e| self.fault(e, span, 0))?;
                self.allocas.push(obj);
                (0..w)
                    .map(|l| {
                        Val::Ptr(Pointer {
                            obj: Some(obj),
                            off: if per_lane {
                                (l as u64 * size) as i64
                            } else {
                                0
                            },
                        })
                    })
                    .collect()
            }
            InstKind::Load { ptr, align } => {
                if self.vf.is_uniform(*ptr) {
                    let v = if any_active {
                        let p = self.ptr(self.uni(*ptr), span)?;
                        let bytes = self
                            .m
                            .mem
                            .load(p, ty.bytes(), *align, self.g.owner)
                            .map_err(|e| self.fault(e, span, 0))?;
                        decode(ty, bytes)
                    } else {
                        Val::Undef
                    };
                    vec![v; w]
                } else {
                    self.check_packed(*ptr, ty, active, span)?;
                    let mut out = vec![Val::Undef; w];
                    for l in 0..w {
                        if active[l] {
                            let p = self.ptr(self.vals[ptr.index()][l], span)?;
                            let bytes = self
                                .m
                                .mem
                                .load(p, ty.bytes(), *align, self.g.owner)
                                .map_err(|e| self.fault(e, span, l))?;
                            out[l] = decode(ty, bytes);
                        }
                    }
                    out
                }
            }
            InstKind::Store { ptr, value, align } => {
                let vty = f.ty(*value);
                let lanes: Vec<usize> = if self.vf.is_uniform(*ptr) && self.vf.is_uniform(*value) {
                    if any_active {
                        vec![0]
                    } else {
                        vec![]
                    }
                } else {
                    if !self.vf.is_uniform(*ptr) {
                        self.check_packed(*ptr, vty, active, span)?;
                    }
                    (0..w).filter(|&l| active[l]).collect()
                };
                for l in lanes {
                    let p = self.ptr(self.vals[ptr.index()][l], span)?;
                    let v = self.vals[value.index()][l];
                    let bytes = encode(vty, v).map_err(|e| self.fault(e, span, l))?;
                    self.m
                        .mem
                        .store(p, &bytes, *align, self.g.owner)
                        .map_err(|e| self.fault(e, span, l))?;
                }
                return Ok(None);
            }
            InstKind::Horizontal { op, args } => self.horizontal(*op, args, ty, active, span)?,
            InstKind::Atomic { op, ptr, args } => {
                // Each active lane in lane order, as the generated code
                // (or its one combined operation) leaves memory.
                let vty = match (op, args.first()) {
                    (AtomicOp::Store, Some(&a)) => f.ty(a),
                    _ => ty,
                };
                let size = vty.bytes();
                let mut out = vec![Val::Undef; w];
                for l in (0..w).filter(|&l| active[l]) {
                    let p = self.ptr(self.vals[ptr.index()][l], span)?;
                    let xs: Vec<Val> = args.iter().map(|a| self.vals[a.index()][l]).collect();
                    let old = match op {
                        AtomicOp::Store => Val::Undef,
                        _ => {
                            let bytes = self
                                .m
                                .mem
                                .load(p, size, size, self.g.owner)
                                .map_err(|e| self.fault(e, span, l))?;
                            decode(vty, bytes)
                        }
                    };
                    if let Some(new) =
                        atomic_update(*op, vty, old, &xs).map_err(|e| self.fault(e, span, l))?
                    {
                        let bytes = encode(vty, new).map_err(|e| self.fault(e, span, l))?;
                        self.m
                            .mem
                            .store(p, &bytes, size, self.g.owner)
                            .map_err(|e| self.fault(e, span, l))?;
                    }
                    out[l] = old;
                }
                out
            }
            // The executor checks memory; `printf` output is the scalar
            // interpreter's.
            InstKind::Printf { .. } => vec![Val::Int(0); w],
            InstKind::WorkItem { query, dim } => {
                let d = match dim {
                    Some(d) => match self.uni(*d) {
                        Val::Int(x) => Some(x),
                        _ => None,
                    },
                    None => None,
                };
                (0..w)
                    .map(|l| Val::Int(truncate(self.work_item(l, *query, d), ty.bits())))
                    .collect()
            }
            kind => {
                // Pure operations: on every lane (garbage in, garbage out);
                // integer division only where the block's lanes divide.
                let lanes: Vec<usize> = if uniform {
                    (0..w).filter(|&l| active[l]).collect::<Vec<_>>()
                } else {
                    (0..w).collect()
                };
                let mut out = vec![Val::Undef; w];
                for &l in &lanes {
                    if let InstKind::Bin { op, .. } = kind {
                        if is_int_div(*op) && !active[l] {
                            continue;
                        }
                    }
                    out[l] = match self.pure(kind, ty, l) {
                        Ok(v) => v,
                        Err(e)
                            if active[l]
                                && matches!(kind, InstKind::Bin { op, .. } if is_int_div(*op)) =>
                        {
                            return Err(self.fault(e, span, l))
                        }
                        Err(_) => Val::Undef,
                    };
                }
                if uniform {
                    // The generated code computes a uniform value once: all
                    // active lanes must agree on it.
                    // `undef` may be refined to anything: it agrees with
                    // every value, and the value computed once replaces it.
                    let mut first: Option<Val> = None;
                    for &l in &lanes {
                        if matches!(out[l], Val::Undef) {
                            continue;
                        }
                        match first {
                            None => first = Some(out[l]),
                            Some(v) if !same(v, out[l]) => {
                                return Err(self.err(
                                    ErrorKind::MalformedIr,
                                    span,
                                    l,
                                    format!(
                                        "%{} has a uniform shape but lane {l} computes {:?}, an earlier lane {v:?}",
                                        result.map_or(0, |r| r.0),
                                        out[l]
                                    ),
                                ))
                            }
                            Some(_) => {}
                        }
                    }
                    let v = match first {
                        Some(v) => v,
                        // No active lane: what lane 0 computes.
                        None => self.pure(kind, ty, 0).unwrap_or(Val::Undef),
                    };
                    out = vec![v; w];
                }
                out
            }
        };
        if let Some(r) = result {
            self.vals[r.index()] = out;
        }
        Ok(None)
    }

    fn ptr(&self, v: Val, span: Span) -> Result<Pointer, InterpError> {
        match v {
            Val::Ptr(p) => Ok(p),
            other => Err(self.err(
                ErrorKind::InvalidPointer,
                span,
                0,
                format!("memory access through {other:?} on an active lane"),
            )),
        }
    }

    /// A packed access uses lane 0's address plus `l * stride`.
    fn check_packed(
        &self,
        ptr: ValueId,
        ty: Ty,
        active: &[bool],
        span: Span,
    ) -> Result<(), InterpError> {
        let Shape::Strided { stride, .. } = self.vf.shape(ptr) else {
            return Ok(());
        };
        if stride != ty.bytes() as i64 || !active.iter().any(|&a| a) {
            return Ok(());
        }
        let lanes = &self.vals[ptr.index()];
        let Val::Ptr(p0) = lanes[0] else {
            return Err(self.err(
                ErrorKind::MalformedIr,
                span,
                0,
                "packed access without lane 0's address",
            ));
        };
        for (l, &a) in active.iter().enumerate() {
            let want = Pointer {
                obj: p0.obj,
                off: p0.off + l as i64 * stride,
            };
            if a && lanes[l] != Val::Ptr(want) {
                return Err(self.err(
                    ErrorKind::MalformedIr,
                    span,
                    l,
                    format!(
                        "packed access: lane {l} has {:?}, not lane 0's address + {}",
                        lanes[l],
                        l as i64 * stride
                    ),
                ));
            }
        }
        Ok(())
    }

    fn operand(&self, v: ValueId, l: usize) -> Result<Val, Fault> {
        match self.vals[v.index()][l] {
            Val::Undef | Val::Unset => Err(fault(ErrorKind::UninitializedRead, "garbage")),
            x => Ok(x),
        }
    }

    fn pure(&self, kind: &InstKind, ty: Ty, l: usize) -> Result<Val, Fault> {
        let f = &self.vf.func;
        Ok(match kind {
            InstKind::Bin { op, lhs, rhs } => {
                ops::binary(*op, ty, self.operand(*lhs, l)?, self.operand(*rhs, l)?)?
            }
            InstKind::FNeg(x) => ops::fneg(ty, self.operand(*x, l)?)?,
            InstKind::Cmp { pred, lhs, rhs } => Val::Int(ops::compare(
                *pred,
                f.ty(*lhs),
                self.operand(*lhs, l)?,
                self.operand(*rhs, l)?,
            )? as u64),
            InstKind::Select { cond, then, els } => match self.operand(*cond, l)? {
                Val::Int(c) if c & 1 == 1 => self.vals[then.index()][l],
                _ => self.vals[els.index()][l],
            },
            InstKind::Cast { op, value } => {
                ops::cast(*op, f.ty(*value), ty, self.operand(*value, l)?)?
            }
            InstKind::PtrAdd { base, offset } => {
                let Val::Ptr(p) = self.operand(*base, l)? else {
                    return Err(fault(ErrorKind::MalformedIr, "ptradd of a non-pointer"));
                };
                let Val::Int(d) = self.operand(*offset, l)? else {
                    return Err(fault(ErrorKind::MalformedIr, "ptradd of a non-integer"));
                };
                Val::Ptr(Pointer {
                    obj: p.obj,
                    off: p.off.wrapping_add(sign_extend(d, f.ty(*offset).bits())),
                })
            }
            InstKind::Math { func, args } => {
                let mut xs = Vec::with_capacity(args.len());
                for a in args {
                    xs.push(self.operand(*a, l)?);
                }
                ops::math(*func, ty, &xs)?
            }
            _ => return Err(fault(ErrorKind::MalformedIr, "not a pure instruction")),
        })
    }

    fn work_item(&self, l: usize, q: WorkItem, dim: Option<u64>) -> u64 {
        let g = &self.m.geo;
        let d = dim.filter(|&d| d < g.work_dim as u64).map(|d| d as usize);
        let pick = |a: &[u64; 3], default: u64| d.map_or(default, |d| a[d]);
        match q {
            WorkItem::GlobalId => pick(&self.g.gid[l], 0),
            WorkItem::LocalId => pick(&self.g.lid[l], 0),
            WorkItem::GroupId => pick(&self.g.group, 0),
            WorkItem::GlobalSize => pick(&g.global, 1),
            WorkItem::LocalSize => pick(&self.g.size, 1),
            WorkItem::NumGroups => pick(&g.groups, 1),
            WorkItem::GlobalOffset => pick(&g.offset, 0),
            WorkItem::WorkDim => g.work_dim as u64,
            WorkItem::SubGroupSize => self.g.lanes,
            WorkItem::SubGroupLocalId => l as u64,
            WorkItem::NumSubGroups => self.g.num_sub_groups,
            WorkItem::SubGroupId => self.g.sub_group_id,
            WorkItem::MaxSubGroupSize => g.width,
            WorkItem::LaneMask => self.g.exists[l] as u64,
        }
    }

    fn horizontal(
        &self,
        op: Horizontal,
        args: &[ValueId],
        ty: Ty,
        active: &[bool],
        span: Span,
    ) -> Result<Vec<Val>, InterpError> {
        let w = self.w();
        let lanes: Vec<usize> = (0..w).filter(|&l| active[l]).collect();
        let Some(&first) = lanes.first() else {
            // With no active lane, any() is false and all() true (what the
            // masked reductions of the generated code give); the rest is
            // garbage.
            return Ok(match op {
                Horizontal::Any => vec![Val::Int(0); w],
                Horizontal::All => vec![Val::Int(1); w],
                _ => vec![Val::Undef; w],
            });
        };
        let x = args.first().copied().ok_or_else(|| {
            self.err(
                ErrorKind::MalformedIr,
                span,
                0,
                "horizontal operation without operand",
            )
        })?;
        let xs: Vec<Val> = lanes.iter().map(|&l| self.vals[x.index()][l]).collect();
        let bit = |v: &Val| matches!(v, Val::Int(b) if b & 1 == 1);
        let wrap = |e: Fault| self.fault(e, span, first);
        Ok(match op {
            Horizontal::Any => vec![Val::Int(xs.iter().any(bit) as u64); w],
            Horizontal::All => vec![Val::Int(xs.iter().all(bit) as u64); w],
            Horizontal::Broadcast => {
                let src = args
                    .get(1)
                    .map(|&s| self.uni(s))
                    .and_then(|v| {
                        if let Val::Int(i) = v {
                            Some(i as usize)
                        } else {
                            None
                        }
                    })
                    .ok_or_else(|| {
                        self.err(ErrorKind::InvalidSubGroupOp, span, first, "broadcast lane")
                    })?;
                if !lanes.contains(&src) {
                    return Err(self.err(
                        ErrorKind::InvalidSubGroupOp,
                        span,
                        first,
                        format!("broadcast from inactive lane {src}"),
                    ));
                }
                vec![self.vals[x.index()][src]; w]
            }
            Horizontal::Reduce(r) => {
                let mut acc = xs[0];
                for v in &xs[1..] {
                    acc = combine(r, ty, acc, *v).map_err(wrap)?;
                }
                vec![acc; w]
            }
            Horizontal::ScanInclusive(r) | Horizontal::ScanExclusive(r) => {
                let inclusive = matches!(op, Horizontal::ScanInclusive(_));
                let mut out = vec![Val::Undef; w];
                let mut acc = identity(r, ty).map_err(wrap)?;
                for (k, &l) in lanes.iter().enumerate() {
                    let next = if k == 0 {
                        xs[0]
                    } else {
                        combine(r, ty, acc, xs[k]).map_err(wrap)?
                    };
                    out[l] = if inclusive { next } else { acc };
                    acc = next;
                }
                out
            }
        })
    }
}

/// Equality of lane values, with NaN equal to itself (bitwise for floats).
fn same(a: Val, b: Val) -> bool {
    match (a, b) {
        (Val::F32(x), Val::F32(y)) => x.to_bits() == y.to_bits(),
        (Val::F64(x), Val::F64(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}
