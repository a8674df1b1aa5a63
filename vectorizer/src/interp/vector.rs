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
//! It is the oracle of the vectorizer's own differential tests (against
//! [`super::run`]), independent of the LLVM back end.

use super::*;
use crate::ir::BinOp;
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
    let result = run_groups(vf, &mut m);
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

fn run_groups(vf: &VectorFunction, m: &mut Machine) -> Result<(), InterpError> {
    let g = m.geo;
    let w = vf.width as u64;
    let mut owner = 0u64;
    for gz in 0..g.groups[2] {
        for gy in 0..g.groups[1] {
            for gx in 0..g.groups[0] {
                let group = [gx, gy, gz];
                let mut size = [1u64; 3];
                for d in 0..3 {
                    size[d] = g.local[d].min(g.global[d] - group[d] * g.local[d]);
                }
                let per_row = size[0].div_ceil(w);
                let num_sg = per_row * size[1] * size[2];
                for sg in 0..num_sg {
                    let row = sg / per_row;
                    let x_first = (sg % per_row) * w;
                    let (ly, lz) = (row % size[1], row / size[1]);
                    let mut grp = Group {
                        gid: Vec::new(),
                        lid: Vec::new(),
                        group,
                        size,
                        exists: Vec::new(),
                        sub_group_id: sg,
                        num_sub_groups: num_sg,
                        lanes: (size[0] - x_first).min(w),
                        owner,
                    };
                    for l in 0..w {
                        let lid = [x_first + l, ly, lz];
                        let mut gid = [0u64; 3];
                        for d in 0..3 {
                            gid[d] = g.offset[d] + group[d] * g.local[d] + lid[d];
                        }
                        grp.gid.push(gid);
                        grp.lid.push(lid);
                        grp.exists.push(x_first + l < size[0]);
                    }
                    owner += 1;
                    m.stats.sub_groups += 1;
                    m.stats.work_items += grp.lanes;
                    run_group(vf, m, &grp)?;
                }
                m.stats.work_groups += 1;
            }
        }
    }
    Ok(())
}

struct Run<'a, 'm, 'f> {
    vf: &'a VectorFunction,
    m: &'m mut Machine<'f>,
    g: &'a Group,
    vals: Vec<Vec<Val>>,
    allocas: Vec<u32>,
}

fn run_group(vf: &VectorFunction, m: &mut Machine, g: &Group) -> Result<(), InterpError> {
    let w = vf.width as usize;
    let vals = m.template.iter().map(|&v| vec![v; w]).collect();
    let mut r = Run {
        vf,
        m,
        g,
        vals,
        allocas: Vec::new(),
    };
    let res = r.blocks();
    for a in std::mem::take(&mut r.allocas) {
        r.m.mem.free(a);
    }
    res
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

    fn blocks(&mut self) -> Result<(), InterpError> {
        let f = &self.vf.func;
        let mut b = f.entry;
        let mut prev: Option<BlockId> = None;
        loop {
            self.m.stats.instructions += 1;
            if self.m.stats.instructions > self.m.step_limit {
                return Err(self.err(ErrorKind::StepLimit, f.span, 0, "step limit"));
            }
            // φs read their operands in parallel.
            let phis: Vec<InstId> = f.phis(b).collect();
            let mut new = Vec::new();
            for &i in &phis {
                let InstKind::Phi { incoming } = &f.inst(i).kind else {
                    continue;
                };
                let p = prev.ok_or_else(|| {
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
            let insts: Vec<InstId> = f.block(b).insts.iter().copied().skip(phis.len()).collect();
            let mut next = None;
            for i in insts {
                // The mask may be defined in this block (the entry's).
                let active = self.active(b);
                match self.exec(i, &active)? {
                    Some(Some(t)) => next = Some(t),
                    Some(None) => return Ok(()),
                    None => {}
                }
            }
            let Some(t) = next else {
                return Err(self.err(
                    ErrorKind::MalformedIr,
                    f.span,
                    0,
                    "block without terminator",
                ));
            };
            prev = Some(b);
            b = t;
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
