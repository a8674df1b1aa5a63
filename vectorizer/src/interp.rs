//! The scalar reference interpreter: runs a kernel ([`ir::Function`]) over
//! an NDRange, one work-item at a time, on byte buffers. It is the oracle of
//! the differential tests, so it is written to be obviously right, not fast:
//! exact C/OpenCL semantics, and every undefined behaviour it can see is
//! reported with the source span and the work-item ([`InterpError`]).
//!
//! # Values and memory
//! Integers are `u64` bits truncated to the type's width, floats are `f32`
//! or `f64` (f32 arithmetic rounds to f32 at every step), pointers are a
//! memory object plus a byte offset, and `undef` is a value of its own that
//! may flow through φs and `select` operands but is an
//! [`ErrorKind::UninitializedRead`] as soon as anything else uses it.
//! Memory objects are the buffer arguments (never aliasing each other;
//! `__constant` ones read-only), the `__constant` globals (read-only), one
//! `__local` object per kernel-scope `__local` variable and per `__local`
//! pointer argument ([`ArgValue::Local`]) for each work-group, and one
//! private object per *execution* of an `alloca`. Private and `__local`
//! objects have a per-byte "written" map so that reading bytes never
//! written is an error.
//! Every access must lie entirely inside one object and be aligned as the
//! instruction says. Memory is little-endian; `i1` occupies one byte;
//! pointers stored to memory are 8-byte fake addresses (see `memory`).
//!
//! # NDRange
//! OpenCL 2.0 non-uniform work-groups: the local size need not divide the
//! global size; the last group of a dimension is then smaller and
//! `get_local_size` returns its actual size (`get_num_groups` rounds up).
//! A local size larger than the global size makes one smaller group.
//! Dimensions at or above `work_dim` have size 1, offset 0 and id 0.
//!
//! # Execution order, work-groups and barriers
//! Work-groups run one after the other in linear order (dimension 0
//! fastest), and inside a group its sub-groups in order. A sub-group is
//! up to `sub_group_width` consecutive work-items along dimension 0 of one
//! row of the group (DESIGN §1: one SIMD group never spans two rows, so a
//! row whose length is not a multiple of the width ends in a smaller
//! sub-group).
//!
//! Every work-item of a group is a paused state machine (below). Each
//! sub-group in turn runs until all its work-items have returned or wait
//! at a work-group synchronization point: a [`InstKind::Barrier`] or a
//! [`InstKind::WorkGroup`] collective. When no work-item can move, either
//! all have returned (the group is done), or all wait at the same
//! instruction, which then executes — a collective over all work-items of
//! the group in linear local-id order, a barrier by ordering memory (see
//! races below) — and they resume; anything else (work-items at different
//! synchronization points, or some returned while others wait) is
//! [`ErrorKind::BarrierDivergence`]. Whether all work-items are in the same
//! *iteration* of a loop around the barrier is not compared.
//!
//! Two accesses by different work-items of a group to the same byte of
//! `__local` or `__global` memory, at least one a write and not both
//! atomic, with no barrier fencing that space between them, are an
//! [`ErrorKind::DataRace`] (see `races`). Collectives synchronize the
//! work-items but, as in OpenCL 2.0, fence no memory. Races between
//! work-groups are not looked for. Atomics act on `__global` and `__local`
//! memory as one indivisible read-modify-write.
//!
//! Work-items of a sub-group run one at a time too, but each is a paused
//! state machine (block, position, value table), so horizontal operations
//! can meet: every work-item of the sub-group runs until it reaches a
//! [`InstKind::Horizontal`] instruction, returns, or (in kernels that use
//! horizontal operations) is about to take a loop back edge. Among the
//! waiting work-items, the point that comes first in a *loop-compact*
//! reverse post-order of the blocks (every loop contiguous; see `order`)
//! is served next:
//! - a horizontal instruction, at (block position, instruction position):
//!   it is executed for the work-items waiting there — its *active lanes*
//!   (DESIGN §1: horizontal operations see the active lanes only) — which
//!   then resume;
//! - the back edges of a loop, placed just after the loop's last block:
//!   no work-item is left in the loop's current iteration, so all waiting
//!   ones start the next iteration together.
//!
//! Repeat until all returned. This is the lock-step (greedy) order in
//! which the vectorizer executes structured code: a divergent branch runs
//! its sides one after the other, a divergent loop iterates while any lane
//! is in it, and lanes that left it wait at its exit. (A plain RPO would
//! not do: it may place a loop exit before the loop body, and it does not
//! keep the iterations of different lanes together.) OpenCL leaves
//! sub-group functions in divergent control flow undefined; this schedule
//! is the definition lanes implements.
//!
//! Reductions and scans combine the active lanes' values in lane order,
//! left to right; exclusive scans start from the identity (0, `+inf` /
//! `-inf` for float min / max, the type's max / min for integer min / max).
//!
//! # Block predicates
//! Lowered IR has none. If a block has a predicate (P-LLVM) that is false
//! for a work-item, its φs and terminator still run but every other
//! instruction yields `undef` without any effect (a horizontal operation
//! does not count the work-item as active).
//!
//! # Budget
//! [`Options::step_limit`] bounds the number of executed instructions of a
//! whole run, so an endless loop ends in [`ErrorKind::StepLimit`].

use std::collections::HashMap;
use std::fmt;

use lanes_frontend::ast::AddressSpace;
use lanes_frontend::source::{SourceMap, Span};

use crate::ir::{
    self, sign_extend, truncate, AtomicOp, BlockId, Const, Function, Horizontal, InstId, InstKind,
    MathFn, ReduceOp, Ty, ValueDef, ValueId, WorkItem,
};

mod memory;
mod ops;
mod order;
mod printf;
mod races;
mod vector;
pub use vector::run_vector;
#[cfg(test)]
mod tests;

use memory::{Memory, Object, Pointer};
use ops::{fault, Fault, Val};
use order::Order;
use races::{Access, AccessKind, Races, Shared};

/// The index space of one kernel launch. Entries of dimensions at or above
/// `work_dim` are ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NdRange {
    pub work_dim: u32,
    pub global_offset: [u64; 3],
    pub global_size: [u64; 3],
    pub local_size: [u64; 3],
}

impl NdRange {
    /// A one-dimensional range without offset.
    pub fn new_1d(global: u64, local: u64) -> NdRange {
        NdRange {
            work_dim: 1,
            global_offset: [0; 3],
            global_size: [global, 1, 1],
            local_size: [local, 1, 1],
        }
    }

    /// A two-dimensional range without offset.
    pub fn new_2d(global: [u64; 2], local: [u64; 2]) -> NdRange {
        NdRange {
            work_dim: 2,
            global_offset: [0; 3],
            global_size: [global[0], global[1], 1],
            local_size: [local[0], local[1], 1],
        }
    }
}

/// One kernel argument per IR parameter (`Function::params`).
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// The bytes of a `__global` or `__constant` buffer; modified in place.
    Buffer(Vec<u8>),
    /// A scalar of exactly the parameter's type (`Const::Null` for a null
    /// pointer argument).
    Scalar(Const),
    /// A `__local` pointer argument: this many bytes of `__local` memory,
    /// a fresh uninitialized object for each work-group.
    Local(u64),
}

/// The default [`Options::step_limit`].
pub const DEFAULT_STEP_LIMIT: u64 = 200_000_000;
/// The largest accepted sub-group width.
pub const MAX_SUB_GROUP_WIDTH: u32 = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Work-items per sub-group (the SIMD width W), 1..=MAX_SUB_GROUP_WIDTH.
    pub sub_group_width: u32,
    /// The most instructions the whole run may execute.
    pub step_limit: u64,
    /// Check data races in every kernel. Off, races are checked only in
    /// kernels with work-group features: the test suites catch a plain
    /// kernel's races by running it in two orders, and tracking every byte
    /// it touches costs memory and time there.
    pub check_all_races: bool,
}

impl Options {
    pub fn new(sub_group_width: u32) -> Options {
        Options {
            sub_group_width,
            step_limit: DEFAULT_STEP_LIMIT,
            check_all_races: false,
        }
    }
}

/// What a successful run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Executed instructions (φs and terminators included).
    pub instructions: u64,
    pub work_items: u64,
    pub work_groups: u64,
    pub sub_groups: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// A load or store not entirely inside its memory object.
    OutOfBounds,
    /// Integer division or remainder by zero, or `MIN / -1`, `MIN % -1`.
    DivisionByZero,
    /// A load of private memory never written, or a use of `undef`.
    UninitializedRead,
    /// An `unreachable` instruction was executed.
    Unreachable,
    /// The instruction budget ran out (probably an endless loop).
    StepLimit,
    /// The NDRange or the sub-group width is invalid.
    InvalidRange,
    /// Argument count or kind does not match the parameters.
    BadArgument,
    /// A shift count not less than the width.
    ShiftOutOfRange,
    /// A float-to-integer conversion of NaN or of a value out of range.
    ConversionOverflow,
    /// A store into `__constant` memory.
    ConstantWrite,
    /// Dereference of a null, dangling or foreign pointer.
    InvalidPointer,
    /// An access not aligned as the instruction requires.
    Misaligned,
    /// A sub-group operation used against its contract (e.g. broadcast
    /// from a lane that is not active, or from different lanes).
    InvalidSubGroupOp,
    /// The IR itself is inconsistent (the verifier should have caught it).
    MalformedIr,
    /// A feature the interpreter does not run.
    Unsupported,
    /// Two work-items of one work-group access the same bytes of
    /// `__local` or `__global` memory with no barrier between them, at
    /// least one writing, not both atomically.
    DataRace,
    /// Work-items of one work-group wait at different barriers or
    /// collectives, or some returned while others wait.
    BarrierDivergence,
}

impl ErrorKind {
    pub fn name(self) -> &'static str {
        use ErrorKind::*;
        match self {
            OutOfBounds => "out of bounds",
            DivisionByZero => "division by zero",
            UninitializedRead => "uninitialized read",
            Unreachable => "unreachable",
            StepLimit => "step limit",
            InvalidRange => "invalid range",
            BadArgument => "bad argument",
            ShiftOutOfRange => "shift out of range",
            ConversionOverflow => "conversion overflow",
            ConstantWrite => "write to constant memory",
            InvalidPointer => "invalid pointer",
            Misaligned => "misaligned access",
            InvalidSubGroupOp => "invalid sub-group operation",
            MalformedIr => "malformed IR",
            Unsupported => "unsupported",
            DataRace => "data race",
            BarrierDivergence => "barrier divergence",
        }
    }
}

/// A run-time error: what, where in the source, and for which work-item
/// (its global id; zeros for errors before any work-item ran).
#[derive(Clone, Debug, PartialEq)]
pub struct InterpError {
    pub kind: ErrorKind,
    pub span: Span,
    pub work_item: [u64; 3],
    pub message: String,
    /// A second place the error is about and what is there: the other
    /// access of a data race, the other barrier or the `return` of a
    /// barrier divergence.
    pub related: Option<(Span, String)>,
}

impl InterpError {
    /// `file:line:col: kind: message (work-item [x, y, z])`, with the
    /// position looked up in `sources`, then `; WHAT is at file:line:col`
    /// for the related place.
    pub fn render(&self, sources: &SourceMap) -> String {
        let at = |span: Span| {
            if (span.file.0 as usize) < sources.len() {
                let file = sources.get(span.file);
                let (line, col) = file.line_col(span.start);
                Some(format!("{}:{line}:{col}", file.name))
            } else {
                None
            }
        };
        let here = at(self.span).map_or(String::new(), |p| format!("{p}: "));
        let there = match &self.related {
            Some((span, what)) => match at(*span) {
                Some(p) => format!("; {what} is at {p}"),
                None => String::new(),
            },
            None => String::new(),
        };
        format!("{here}{self}{there}")
    }
}

impl fmt::Display for InterpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.work_item;
        write!(
            f,
            "{}: {} (work-item [{x}, {y}, {z}])",
            self.kind.name(),
            self.message
        )
    }
}

impl std::error::Error for InterpError {}

/// Runs `f` over `range` with the default step limit. See [`run_with`].
pub fn run(
    f: &Function,
    range: &NdRange,
    args: &mut [ArgValue],
    sub_group_width: u32,
) -> Result<RunStats, InterpError> {
    run_with(f, range, args, &Options::new(sub_group_width))
}

/// Runs `f` over `range`: one argument per IR parameter, buffers for
/// pointer parameters. Buffers are modified in place, also when the run
/// stops with an error (they then hold what was written until then).
pub fn run_with(
    f: &Function,
    range: &NdRange,
    args: &mut [ArgValue],
    opts: &Options,
) -> Result<RunStats, InterpError> {
    run_printing(f, range, args, opts).map(|(stats, _)| stats)
}

/// What one work-item printed with `printf`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Printed {
    pub global_id: [u64; 3],
    pub text: String,
}

/// [`run_with`], also returning the `printf` output: every work-item's
/// output together, work-items in launch order (work-group by work-group,
/// linear id within the group), each in the order it printed.
pub fn run_printing(
    f: &Function,
    range: &NdRange,
    args: &mut [ArgValue],
    opts: &Options,
) -> Result<(RunStats, Vec<Printed>), InterpError> {
    if let Some(e) = unsupported_feature(f) {
        return Err(e);
    }
    let geo = Geometry::new(f, range, opts.sub_group_width)?;
    check_args(f, args)?;
    if f.blocks.get(f.entry.index()).is_none() {
        return Err(pre_run(
            f.span,
            ErrorKind::MalformedIr,
            "the entry block does not exist",
        ));
    }
    let mut m = Machine::new(f, geo, opts, args);
    let result = m.run_all();
    // Give every buffer back, whatever happened.
    for (&i, &obj) in &m.buffer_objs {
        if let (Some(ArgValue::Buffer(bytes)), Some(o)) =
            (args.get_mut(i), m.mem.fixed.get_mut(obj as usize))
        {
            *bytes = std::mem::take(&mut o.bytes);
        }
    }
    let mut printed = std::mem::take(&mut m.printed);
    printed.sort_by_key(|p| p.0);
    let printed = printed
        .into_iter()
        .map(|(_, global_id, text)| Printed { global_id, text })
        .collect();
    result.map(|()| (m.stats, printed))
}

/// The first use (in source order) of a feature the interpreter does not
/// run: image parameters and image instructions.
pub fn unsupported_feature(f: &Function) -> Option<InterpError> {
    let params = f
        .params
        .iter()
        .filter(|p| p.ty == Ty::Image)
        .map(|p| (p.span, format!("image argument `{}`", p.name)));
    let insts = f
        .insts
        .iter()
        .filter(|i| f.blocks.get(i.block.index()).is_some())
        .filter_map(|i| {
            let what = match &i.kind {
                InstKind::ImageRead { elem, .. } => format!("`read_image{}`", elem.suffix()),
                InstKind::ImageWrite { elem, .. } => format!("`write_image{}`", elem.suffix()),
                InstKind::ImageQuery { query, .. } => format!("`{}`", query.name()),
                _ => return None,
            };
            Some((i.src.span, what))
        });
    let (span, what) = params
        .chain(insts)
        .min_by_key(|(s, _)| (s.file.0, s.start))?;
    Some(pre_run(
        span,
        ErrorKind::Unsupported,
        format!(
            "the reference interpreter does not run images and samplers yet ({what} in kernel `{}`)",
            f.name
        ),
    ))
}

fn pre_run(span: Span, kind: ErrorKind, message: impl Into<String>) -> InterpError {
    InterpError {
        kind,
        span,
        work_item: [0; 3],
        message: message.into(),
        related: None,
    }
}

/// The validated index space; unused dimensions normalized to size 1.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    work_dim: u32,
    offset: [u64; 3],
    global: [u64; 3],
    /// The enqueued (uniform) local size.
    local: [u64; 3],
    groups: [u64; 3],
    width: u64,
}

impl Geometry {
    fn new(f: &Function, r: &NdRange, width: u32) -> Result<Geometry, InterpError> {
        let bad = |m: String| pre_run(f.span, ErrorKind::InvalidRange, m);
        if !(1..=3).contains(&r.work_dim) {
            return Err(bad(format!("work_dim is {}, not 1, 2 or 3", r.work_dim)));
        }
        if !(1..=MAX_SUB_GROUP_WIDTH).contains(&width) {
            return Err(bad(format!(
                "sub-group width {width} is not in 1..={MAX_SUB_GROUP_WIDTH}"
            )));
        }
        let mut g = Geometry {
            work_dim: r.work_dim,
            offset: [0; 3],
            global: [1; 3],
            local: [1; 3],
            groups: [1; 3],
            width: width as u64,
        };
        let mut total: u64 = 1;
        for d in 0..r.work_dim as usize {
            let (gs, ls, off) = (r.global_size[d], r.local_size[d], r.global_offset[d]);
            if gs == 0 {
                return Err(bad(format!("global size of dimension {d} is 0")));
            }
            if ls == 0 {
                return Err(bad(format!("local size of dimension {d} is 0")));
            }
            if off.checked_add(gs).is_none() {
                return Err(bad(format!(
                    "global offset + global size of dimension {d} overflows"
                )));
            }
            total = total
                .checked_mul(gs)
                .ok_or_else(|| bad("the number of work-items overflows".into()))?;
            g.offset[d] = off;
            g.global[d] = gs;
            g.local[d] = ls;
            g.groups[d] = gs.div_ceil(ls);
        }
        Ok(g)
    }
}

fn check_args(f: &Function, args: &[ArgValue]) -> Result<(), InterpError> {
    if args.len() != f.params.len() {
        return Err(pre_run(
            f.span,
            ErrorKind::BadArgument,
            format!(
                "kernel `{}` takes {} arguments, {} given",
                f.name,
                f.params.len(),
                args.len()
            ),
        ));
    }
    for (p, a) in f.params.iter().zip(args) {
        let bad = |m: String| pre_run(p.span, ErrorKind::BadArgument, m);
        match (p.ty, a) {
            (Ty::Ptr(AddressSpace::Global | AddressSpace::Constant), ArgValue::Buffer(_)) => {}
            (Ty::Ptr(space), ArgValue::Buffer(_)) => {
                return Err(bad(format!(
                "argument `{}` is a {} pointer; only __global and __constant pointers take buffers",
                p.name,
                ir::space_name(space)
            )))
            }
            (Ty::Ptr(_), ArgValue::Scalar(Const::Null(_))) => {}
            (Ty::Ptr(AddressSpace::Local), ArgValue::Local(_)) => {}
            (ty, ArgValue::Local(_)) => {
                return Err(bad(format!(
                    "argument `{}` has type {ty}; only __local pointers take a __local size",
                    p.name
                )))
            }
            (Ty::Ptr(AddressSpace::Local), ArgValue::Scalar(c)) => {
                return Err(bad(format!(
                    "argument `{}` is a __local pointer, given a {} scalar instead of a size",
                    p.name,
                    c.ty()
                )))
            }
            (ty, ArgValue::Scalar(c)) if c.ty() == ty && !ty.is_ptr() && ty != Ty::Void => {}
            (ty, ArgValue::Scalar(c)) => {
                return Err(bad(format!(
                    "argument `{}` has type {ty}, given a {} scalar",
                    p.name,
                    c.ty()
                )))
            }
            (ty, ArgValue::Buffer(_)) => {
                return Err(bad(format!(
                    "argument `{}` has type {ty}, given a buffer",
                    p.name
                )))
            }
        }
    }
    Ok(())
}

fn const_val(c: Const) -> Val {
    match c {
        Const::Int(v, t) => Val::Int(truncate(v, t.bits())),
        Const::Float(x, Ty::F32) => Val::F32(x as f32),
        Const::Float(x, _) => Val::F64(x),
        Const::Null(_) => Val::Ptr(Pointer::NULL),
        Const::Undef(_) => Val::Undef,
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Running,
    /// Waiting at this horizontal instruction.
    Paused(InstId),
    /// Waiting at this barrier or work-group collective for the other
    /// work-items of the group.
    AtSync(InstId),
    /// Waiting to take a back edge of loop `l` (an index into
    /// `Order::loops`) to its header `to`, until no work-item of the
    /// sub-group is still in the current iteration.
    AtBackEdge {
        l: usize,
        to: BlockId,
        span: Span,
    },
    /// Returned, at the `ret` with this span.
    Done(Span),
}

/// One work-item: where it is and what it computed.
struct Lane {
    gid: [u64; 3],
    lid: [u64; 3],
    group: [u64; 3],
    /// The actual size of its work-group.
    local_size: [u64; 3],
    sub_group_id: u64,
    sub_group_local_id: u64,
    sub_group_size: u64,
    num_sub_groups: u64,
    /// Linear index of the work-item in the run (owner of private memory).
    index: u64,
    /// Linear local id in the work-group.
    local_index: u64,
    block: BlockId,
    /// Position of the next instruction in `block`.
    pos: usize,
    values: Vec<Val>,
    state: State,
    allocas: Vec<u32>,
}

/// What to do after an instruction.
enum Flow {
    Next,
    Jump(BlockId),
    Pause,
    /// Wait for the whole work-group.
    Sync,
    Done,
}

struct Machine<'f> {
    f: &'f Function,
    geo: Geometry,
    step_limit: u64,
    stats: RunStats,
    mem: Memory,
    /// Parameter index -> memory object of its buffer.
    buffer_objs: HashMap<usize, u32>,
    /// The `__local` objects each work-group gets: a name, a size and the
    /// value (a `ValueDef::Local` or a `__local` parameter) pointing to it.
    local_objs: Vec<(String, u64, ValueId)>,
    /// Objects shared by the work-items of a group (`__global` buffers,
    /// the current group's `__local` objects) and their space.
    shared: HashMap<u32, Shared>,
    /// Accesses to shared memory since the last barrier of the group.
    races: Races,
    /// Whether accesses are tracked for races (see `Options::check_all_races`).
    check_races: bool,
    /// The first read of never-written `__local` bytes since the last
    /// barrier fencing `__local` memory: reported at that barrier unless
    /// another work-item writes the bytes before it (a data race).
    uninit_local_read: Option<InterpError>,
    /// Initial value table of every work-item (constants, parameters,
    /// globals; instruction results unset).
    template: Vec<Val>,
    /// The loop-compact block order and the loops.
    order: Order,
    /// Only kernels with horizontal operations need the lock-step
    /// schedule (back-edge waits); the others run each work-item through.
    lock_step: bool,
    /// Names for messages: alloca instruction -> variable, value -> variable.
    alloca_names: HashMap<InstId, String>,
    value_names: HashMap<ValueId, String>,
    /// `printf` output: (work-item index, global id, text) in execution order.
    printed: Vec<(u64, [u64; 3], String)>,
}

impl<'f> Machine<'f> {
    /// Moves the buffers into memory; [`run_with`] moves them back.
    fn new(f: &'f Function, geo: Geometry, opts: &Options, args: &mut [ArgValue]) -> Machine<'f> {
        let mut mem = Memory::default();
        let mut buffer_objs = HashMap::new();
        let mut shared = HashMap::new();
        let mut local_sizes = HashMap::new();
        let mut param_vals = Vec::with_capacity(f.params.len());
        for (i, (p, a)) in f.params.iter().zip(args.iter_mut()).enumerate() {
            let v = match a {
                ArgValue::Local(size) => {
                    local_sizes.insert(i as u32, *size);
                    Val::Unset
                }
                ArgValue::Buffer(bytes) => {
                    let id = mem.add_fixed(Object {
                        name: format!("buffer `{}`", p.name),
                        bytes: std::mem::take(bytes),
                        writable: p.ty == Ty::Ptr(AddressSpace::Global),
                        init: None,
                        owner: None,
                    });
                    buffer_objs.insert(i, id);
                    if p.ty == Ty::Ptr(AddressSpace::Global) {
                        shared.insert(id, Shared::Global);
                    }
                    Val::Ptr(Pointer {
                        obj: Some(id),
                        off: 0,
                    })
                }
                ArgValue::Scalar(c) => const_val(*c),
            };
            param_vals.push(v);
        }
        let global_objs: Vec<u32> = f
            .globals
            .iter()
            .map(|g| {
                mem.add_fixed(Object {
                    name: format!("__constant `{}`", g.name),
                    bytes: g.bytes.clone(),
                    writable: false,
                    init: None,
                    owner: None,
                })
            })
            .collect();
        let template = f
            .values
            .iter()
            .map(|v| match &v.def {
                ValueDef::Const(c) => const_val(*c),
                ValueDef::Param(n) => param_vals.get(*n as usize).copied().unwrap_or(Val::Unset),
                ValueDef::Global(n) => match global_objs.get(*n as usize) {
                    Some(&id) => Val::Ptr(Pointer {
                        obj: Some(id),
                        off: 0,
                    }),
                    None => Val::Unset,
                },
                ValueDef::Inst(_) | ValueDef::Local(_) => Val::Unset,
            })
            .collect();
        let mut local_objs = Vec::new();
        for (i, v) in f.values.iter().enumerate() {
            let id = ValueId(i as u32);
            match v.def {
                ValueDef::Local(n) => {
                    if let Some(l) = f.locals.get(n as usize) {
                        local_objs.push((format!("__local `{}`", l.name), l.size, id));
                    }
                }
                ValueDef::Param(n) => {
                    if let (Some(&size), Some(p)) = (local_sizes.get(&n), f.params.get(n as usize))
                    {
                        local_objs.push((format!("__local argument `{}`", p.name), size, id));
                    }
                }
                _ => {}
            }
        }
        let mut alloca_names = HashMap::new();
        let mut value_names = HashMap::new();
        for var in &f.vars {
            for &v in &var.values {
                if var.in_memory {
                    if let Some(i) = f.values.get(v.index()).and_then(|_| f.def_inst(v)) {
                        alloca_names.insert(i, format!("private `{}`", var.name));
                    }
                } else {
                    value_names.insert(v, var.name.to_string());
                }
            }
        }
        Machine {
            f,
            geo,
            step_limit: opts.step_limit,
            stats: RunStats::default(),
            mem,
            buffer_objs,
            local_objs,
            shared,
            races: Races::default(),
            check_races: opts.check_all_races || f.uses_work_group_features(),
            uninit_local_read: None,
            template,
            order: Order::new(f),
            lock_step: f
                .insts
                .iter()
                .any(|i| matches!(i.kind, InstKind::Horizontal { .. })),
            alloca_names,
            value_names,
            printed: Vec::new(),
        }
    }

    fn error(&self, e: Fault, span: Span, lane: &Lane) -> InterpError {
        InterpError {
            kind: e.kind,
            span,
            work_item: lane.gid,
            message: e.message,
            related: e.related,
        }
    }

    /// All work-groups, in order.
    fn run_all(&mut self) -> Result<(), InterpError> {
        let g = self.geo;
        let mut index = 0u64;
        for gz in 0..g.groups[2] {
            for gy in 0..g.groups[1] {
                for gx in 0..g.groups[0] {
                    let group = [gx, gy, gz];
                    let mut size = [1u64; 3];
                    for d in 0..3 {
                        // Non-uniform groups: the last one may be smaller.
                        size[d] = g.local[d].min(g.global[d] - group[d] * g.local[d]);
                    }
                    let n = size[0] * size[1] * size[2];
                    let result = self.run_group(group, size, index);
                    index += n;
                    result?;
                }
            }
        }
        Ok(())
    }

    /// One work-group: its `__local` objects, its work-items in linear
    /// local order, and its sub-groups as ranges of them.
    fn run_group(
        &mut self,
        group: [u64; 3],
        size: [u64; 3],
        index: u64,
    ) -> Result<(), InterpError> {
        let g = self.geo;
        self.stats.work_groups += 1;
        let mut template = self.template.clone();
        let mut locals = Vec::with_capacity(self.local_objs.len());
        for (name, bytes, value) in &self.local_objs {
            let obj = self
                .mem
                .local(name.clone(), *bytes)
                .map_err(|e| self.group_error(e, self.f.span, group))?;
            locals.push(obj);
            self.shared.insert(obj, Shared::Local);
            template[value.index()] = Val::Ptr(Pointer {
                obj: Some(obj),
                off: 0,
            });
        }
        let per_row = size[0].div_ceil(g.width);
        let num_sg = per_row * size[1] * size[2];
        let n = size[0] * size[1] * size[2];
        let mut lanes: Vec<Lane> = (0..n)
            .map(|l| {
                let lid = [
                    l % size[0],
                    (l / size[0]) % size[1],
                    l / (size[0] * size[1]),
                ];
                let mut gid = [0u64; 3];
                for d in 0..3 {
                    gid[d] = g.offset[d] + group[d] * g.local[d] + lid[d];
                }
                let row = l / size[0];
                let x_first = lid[0] / g.width * g.width;
                Lane {
                    gid,
                    lid,
                    group,
                    local_size: size,
                    sub_group_id: row * per_row + lid[0] / g.width,
                    sub_group_local_id: lid[0] - x_first,
                    sub_group_size: (x_first + g.width).min(size[0]) - x_first,
                    num_sub_groups: num_sg,
                    index: index + l,
                    local_index: l,
                    block: self.f.entry,
                    pos: 0,
                    values: template.clone(),
                    state: State::Running,
                    allocas: Vec::new(),
                }
            })
            .collect();
        // Sub-group k covers the work-items `ranges[k]` (consecutive in
        // linear local order: one row segment).
        let ranges: Vec<std::ops::Range<usize>> = (0..num_sg)
            .map(|sg| {
                let row = sg / per_row;
                let x_first = (sg % per_row) * g.width;
                let x_last = (x_first + g.width).min(size[0]);
                (row * size[0] + x_first) as usize..(row * size[0] + x_last) as usize
            })
            .collect();
        self.stats.sub_groups += num_sg;
        self.stats.work_items += n;
        let mut result = self.schedule_group(&mut lanes, &ranges);
        // A never-written __local byte read: the error, unless a race on it
        // (or on anything) was found first; any other error came after the
        // read and may be its consequence.
        if let Some(e) = self.uninit_local_read.take() {
            if !matches!(&result, Err(r) if r.kind == ErrorKind::DataRace) {
                result = Err(e);
            }
        }
        for lane in &lanes {
            for &a in &lane.allocas {
                self.mem.free(a);
            }
        }
        for obj in locals {
            self.mem.free(obj);
            self.shared.remove(&obj);
        }
        self.races.clear();
        result
    }

    /// Runs the sub-groups of a group until every work-item waits at a
    /// barrier or collective or has returned; executes the barrier or
    /// collective they all wait at, and again, until all returned.
    fn schedule_group(
        &mut self,
        lanes: &mut [Lane],
        ranges: &[std::ops::Range<usize>],
    ) -> Result<(), InterpError> {
        let entry = self.f.entry;
        for lane in lanes.iter_mut() {
            self.enter(lane, entry, None)?;
        }
        loop {
            for r in ranges {
                self.run_sub_group(&mut lanes[r.clone()])?;
            }
            let Some(w) = lanes
                .iter()
                .position(|l| matches!(l.state, State::AtSync(_)))
            else {
                return Ok(());
            };
            let State::AtSync(id) = lanes[w].state else {
                unreachable!("position found a waiting work-item")
            };
            let span = self.f.insts[id.index()].src.span;
            for other in lanes.iter() {
                let at = |l: &Lane| format!("work-item local {}", fmt_id(l.lid));
                let e = match other.state {
                    State::AtSync(o) if o == id => continue,
                    State::AtSync(o) => {
                        let there = self.f.insts[o.index()].src.span;
                        let mut e = fault(
                            ErrorKind::BarrierDivergence,
                            format!(
                                "{} waits at this {} while {} waits at another {}",
                                at(&lanes[w]),
                                sync_name(&self.f.insts[id.index()].kind),
                                at(other),
                                sync_name(&self.f.insts[o.index()].kind),
                            ),
                        );
                        e.related = Some((
                            there,
                            format!(
                                "the {} of {}",
                                sync_name(&self.f.insts[o.index()].kind),
                                at(other)
                            ),
                        ));
                        e
                    }
                    State::Done(ret) => {
                        let mut e = fault(
                            ErrorKind::BarrierDivergence,
                            format!(
                                "{} waits at this {} but {} returned without reaching it",
                                at(&lanes[w]),
                                sync_name(&self.f.insts[id.index()].kind),
                                at(other),
                            ),
                        );
                        e.related = Some((ret, format!("the return of {}", at(other))));
                        e
                    }
                    _ => fault(
                        ErrorKind::MalformedIr,
                        "a work-item neither waits nor returned",
                    ),
                };
                return Err(self.error(e, span, &lanes[w]));
            }
            self.synchronize(lanes, id)?;
        }
    }

    /// Executes the barrier or collective `id` all work-items of the group
    /// wait at, and lets them continue.
    fn synchronize(&mut self, lanes: &mut [Lane], id: InstId) -> Result<(), InterpError> {
        let f = self.f;
        let inst = &f.insts[id.index()];
        let span = inst.src.span;
        let results = match &inst.kind {
            InstKind::Barrier { flags } => {
                if flags & ir::fence::LOCAL != 0 {
                    if let Some(e) = self.uninit_local_read.take() {
                        return Err(e);
                    }
                    self.races.barrier(Shared::Local);
                }
                if flags & ir::fence::GLOBAL != 0 {
                    self.races.barrier(Shared::Global);
                }
                vec![Val::Undef; lanes.len()]
            }
            _ => {
                let all: Vec<usize> = (0..lanes.len()).collect();
                self.horizontal(lanes, &all, inst)
                    .map_err(|(lane, e)| self.error(e, span, &lanes[lane]))?
            }
        };
        for (lane, v) in lanes.iter_mut().zip(results) {
            self.tick(span, lane)?;
            if let Some(r) = inst.result {
                self.set(lane, r, v)?;
            }
            lane.pos += 1;
            lane.state = State::Running;
        }
        Ok(())
    }

    /// An error before any work-item of `group` ran.
    fn group_error(&self, e: Fault, span: Span, group: [u64; 3]) -> InterpError {
        let mut gid = [0u64; 3];
        for d in 0..3 {
            gid[d] = self.geo.offset[d] + group[d] * self.geo.local[d];
        }
        InterpError {
            kind: e.kind,
            span,
            work_item: gid,
            message: e.message,
            related: e.related,
        }
    }

    /// Runs the work-items of one sub-group until each has returned or
    /// waits at a work-group synchronization point.
    fn run_sub_group(&mut self, lanes: &mut [Lane]) -> Result<(), InterpError> {
        loop {
            for lane in lanes.iter_mut() {
                if lane.state == State::Running {
                    self.run_lane(lane)?;
                }
            }
            // The waiting point first in the loop-compact order: a
            // horizontal instruction at (block position, instruction
            // position), or the back edges of loop l just after its last
            // block (inner loops first when two end at the same block).
            let next = lanes
                .iter()
                .filter_map(|lane| match lane.state {
                    State::Paused(id) => {
                        let b = self.order.pos.get(lane.block.index()).copied();
                        Some(((b.unwrap_or(u32::MAX), lane.pos as u64, 0), Some(id), 0))
                    }
                    State::AtBackEdge { l, .. } => {
                        let lp = &self.order.loops[l];
                        let size = lp.members.iter().filter(|&&m| m).count();
                        Some(((lp.end, u64::MAX, size), None, l))
                    }
                    _ => None,
                })
                .min_by_key(|&(key, _, _)| key);
            match next {
                None => return Ok(()),
                Some((_, Some(id), _)) => self.resolve(lanes, id)?,
                Some((_, None, l)) => {
                    // Every work-item still in loop l's current iteration
                    // has arrived: all take their back edges together.
                    for lane in lanes.iter_mut() {
                        if let State::AtBackEdge { l: w, to, span } = lane.state {
                            if w == l {
                                lane.state = State::Running;
                                self.enter(lane, to, Some(span))?;
                            }
                        }
                    }
                }
            }
        }
    }

    /// Counts one executed instruction against the budget.
    fn tick(&mut self, span: Span, lane: &Lane) -> Result<(), InterpError> {
        self.stats.instructions += 1;
        if self.stats.instructions > self.step_limit {
            return Err(self.error(
                fault(
                    ErrorKind::StepLimit,
                    format!(
                        "executed more than {} instructions (an endless loop?)",
                        self.step_limit
                    ),
                ),
                span,
                lane,
            ));
        }
        Ok(())
    }

    /// Runs one work-item until it returns or pauses at a horizontal
    /// operation.
    fn run_lane(&mut self, lane: &mut Lane) -> Result<(), InterpError> {
        let f = self.f;
        loop {
            let Some(&id) = f
                .blocks
                .get(lane.block.index())
                .and_then(|b| b.insts.get(lane.pos))
            else {
                let span = f.span;
                return Err(self.error(
                    fault(
                        ErrorKind::MalformedIr,
                        format!("block {} ends without a terminator", lane.block.0),
                    ),
                    span,
                    lane,
                ));
            };
            let Some(inst) = f.insts.get(id.index()) else {
                return Err(self.error(
                    fault(ErrorKind::MalformedIr, "instruction id out of range"),
                    f.span,
                    lane,
                ));
            };
            let flow = self
                .exec(lane, id)
                .map_err(|e| self.error(e, inst.src.span, lane))?;
            if !matches!(flow, Flow::Pause | Flow::Sync) {
                self.tick(inst.src.span, lane)?;
            }
            match flow {
                Flow::Next => lane.pos += 1,
                Flow::Jump(target) => {
                    let back = self.order.back_edge(lane.block, target);
                    match back {
                        Some(l) if self.lock_step => {
                            lane.state = State::AtBackEdge {
                                l,
                                to: target,
                                span: inst.src.span,
                            };
                            return Ok(());
                        }
                        _ => self.enter(lane, target, Some(inst.src.span))?,
                    }
                }
                Flow::Pause => {
                    lane.state = State::Paused(id);
                    return Ok(());
                }
                Flow::Sync => {
                    lane.state = State::AtSync(id);
                    return Ok(());
                }
                Flow::Done => {
                    lane.state = State::Done(inst.src.span);
                    for a in lane.allocas.drain(..) {
                        self.mem.free(a);
                    }
                    return Ok(());
                }
            }
        }
    }

    /// Moves `lane` into `target`, evaluating its φs in parallel with the
    /// values on the edge from the current block (`from` is the span of the
    /// branch; `None` for the entry block, which must have no φs).
    fn enter(
        &mut self,
        lane: &mut Lane,
        target: BlockId,
        from: Option<Span>,
    ) -> Result<(), InterpError> {
        let f = self.f;
        let span = from.unwrap_or(f.span);
        let Some(block) = f.blocks.get(target.index()) else {
            return Err(self.error(
                fault(
                    ErrorKind::MalformedIr,
                    format!("branch to block {} which does not exist", target.0),
                ),
                span,
                lane,
            ));
        };
        let prev = lane.block;
        let mut phis = Vec::new();
        for &id in &block.insts {
            let Some(inst) = f.insts.get(id.index()) else {
                break;
            };
            let InstKind::Phi { incoming } = &inst.kind else {
                break;
            };
            let v = match (from, incoming.iter().find(|(b, _)| *b == prev)) {
                (Some(_), Some(&(_, v))) => self.val(lane, v),
                (None, _) => Err(fault(ErrorKind::MalformedIr, "φ in the entry block")),
                (Some(_), None) => Err(fault(
                    ErrorKind::MalformedIr,
                    format!("φ without a value for predecessor block {}", prev.0),
                )),
            }
            .map_err(|e| self.error(e, inst.src.span, lane))?;
            phis.push((inst.result, v, inst.src.span));
        }
        let n = phis.len();
        for (result, v, span) in phis {
            self.tick(span, lane)?;
            if let Some(r) = result {
                self.set(lane, r, v)?;
            }
        }
        lane.block = target;
        lane.pos = n;
        Ok(())
    }

    fn set(&self, lane: &mut Lane, r: ValueId, v: Val) -> Result<(), InterpError> {
        match lane.values.get_mut(r.index()) {
            Some(slot) => {
                *slot = v;
                Ok(())
            }
            None => Err(self.error(
                fault(ErrorKind::MalformedIr, "result value id out of range"),
                self.f.span,
                lane,
            )),
        }
    }

    /// The current value of an operand (`undef` allowed).
    fn val(&self, lane: &Lane, v: ValueId) -> Result<Val, Fault> {
        match lane.values.get(v.index()) {
            Some(Val::Unset) | None => Err(fault(
                ErrorKind::MalformedIr,
                format!("%{} is used before it is defined", v.0),
            )),
            Some(x) => Ok(*x),
        }
    }

    /// An operand that is really used: `undef` is an error.
    fn used(&self, lane: &Lane, v: ValueId) -> Result<Val, Fault> {
        let x = self.val(lane, v)?;
        if matches!(x, Val::Undef) {
            let what = match self.value_names.get(&v) {
                Some(name) => format!("`{name}` is used before it is assigned"),
                None => format!("use of an undefined value (%{})", v.0),
            };
            return Err(fault(ErrorKind::UninitializedRead, what));
        }
        Ok(x)
    }

    fn used_ptr(&self, lane: &Lane, v: ValueId) -> Result<Pointer, Fault> {
        match self.used(lane, v)? {
            Val::Ptr(p) => Ok(p),
            other => Err(fault(
                ErrorKind::MalformedIr,
                format!("expected a pointer, found {other:?}"),
            )),
        }
    }

    fn used_int(&self, lane: &Lane, v: ValueId) -> Result<u64, Fault> {
        ops::as_int(self.used(lane, v)?)
    }

    /// Is the block's predicate (if any) true for this work-item?
    fn predicate_on(&self, lane: &Lane) -> Result<bool, Fault> {
        match self
            .f
            .blocks
            .get(lane.block.index())
            .and_then(|b| b.predicate)
        {
            None => Ok(true),
            Some(p) => Ok(self.used_int(lane, p)? & 1 == 1),
        }
    }

    /// Executes the instruction at the lane's position (φs are executed
    /// by `enter`).
    fn exec(&mut self, lane: &mut Lane, id: InstId) -> Result<Flow, Fault> {
        let f = self.f;
        let inst = &f.insts[id.index()];
        let ty = inst.ty;
        if !inst.kind.is_terminator() && !inst.kind.is_phi() && !self.predicate_on(lane)? {
            if let Some(r) = inst.result {
                self.set_fault(lane, r, Val::Undef)?;
            }
            return Ok(Flow::Next);
        }
        let value = match &inst.kind {
            InstKind::Phi { .. } => {
                return Err(fault(
                    ErrorKind::MalformedIr,
                    "φ after the start of its block",
                ))
            }
            InstKind::Bin { op, lhs, rhs } => {
                ops::binary(*op, ty, self.used(lane, *lhs)?, self.used(lane, *rhs)?)?
            }
            InstKind::FNeg(x) => ops::fneg(ty, self.used(lane, *x)?)?,
            InstKind::Cmp { pred, lhs, rhs } => {
                let b = ops::compare(
                    *pred,
                    f.ty(*lhs),
                    self.used(lane, *lhs)?,
                    self.used(lane, *rhs)?,
                )?;
                Val::Int(b as u64)
            }
            InstKind::Select { cond, then, els } => {
                if self.used_int(lane, *cond)? & 1 == 1 {
                    self.val(lane, *then)?
                } else {
                    self.val(lane, *els)?
                }
            }
            InstKind::Cast { op, value } => {
                ops::cast(*op, f.ty(*value), ty, self.used(lane, *value)?)?
            }
            InstKind::Alloca { size, .. } => {
                let name = self
                    .alloca_names
                    .get(&id)
                    .cloned()
                    .unwrap_or_else(|| format!("private memory (%{})", inst.result.map_or(0, |r| r.0)));
                let obj = self.mem.alloca(name, *size, lane.index)?;
                lane.allocas.push(obj);
                Val::Ptr(Pointer {
                    obj: Some(obj),
                    off: 0,
                })
            }
            InstKind::Load { ptr, align } => {
                let p = self.used_ptr(lane, *ptr)?;
                if ty == Ty::Void {
                    return Err(fault(ErrorKind::MalformedIr, "load of void"));
                }
                let v = self.load_shared(lane, id, p, ty, *align)?;
                self.track(lane, id, p, ty.bytes(), AccessKind::Read)?;
                v
            }
            InstKind::Store { ptr, value, align } => {
                let p = self.used_ptr(lane, *ptr)?;
                let v = self.used(lane, *value)?;
                let bytes = encode(f.ty(*value), v)?;
                self.mem.store(p, &bytes, *align, lane.index)?;
                self.track(lane, id, p, bytes.len() as u64, AccessKind::Write)?;
                return Ok(Flow::Next);
            }
            InstKind::PtrAdd { base, offset } => {
                let p = self.used_ptr(lane, *base)?;
                let d = sign_extend(self.used_int(lane, *offset)?, f.ty(*offset).bits());
                Val::Ptr(Pointer {
                    obj: p.obj,
                    off: p.off.wrapping_add(d),
                })
            }
            InstKind::WorkItem { query, dim } => {
                let d = match dim {
                    Some(d) => Some(self.used_int(lane, *d)?),
                    None if query.has_dim() => {
                        return Err(fault(
                            ErrorKind::MalformedIr,
                            format!("`{}` without a dimension", query.name()),
                        ))
                    }
                    None => None,
                };
                Val::Int(truncate(self.work_item(lane, *query, d), ty.bits()))
            }
            InstKind::Math { func, args } => {
                let mut xs = Vec::with_capacity(args.len());
                for a in args {
                    xs.push(self.used(lane, *a)?);
                }
                ops::math(*func, ty, &xs)?
            }
            InstKind::Horizontal { .. } => return Ok(Flow::Pause),
            InstKind::Barrier { .. } | InstKind::WorkGroup { .. } => return Ok(Flow::Sync),
            // Refused before the run (`unsupported_feature`).
            InstKind::ImageRead { .. } | InstKind::ImageWrite { .. } | InstKind::ImageQuery { .. } => {
                return Err(fault(
                    ErrorKind::Unsupported,
                    "the reference interpreter does not run images and samplers yet",
                ))
            }
            InstKind::Atomic { op, ptr, args } => {
                let p = self.used_ptr(lane, *ptr)?;
                let mut xs = Vec::with_capacity(args.len());
                for a in args {
                    xs.push(self.used(lane, *a)?);
                }
                if xs.len() != op.arity() {
                    return Err(fault(
                        ErrorKind::MalformedIr,
                        format!("atomic.{} with {} operands", op.name(), xs.len()),
                    ));
                }
                let vty = match (op, args.first()) {
                    (AtomicOp::Store, Some(&a)) => f.ty(a),
                    _ => ty,
                };
                let size = vty.bytes();
                if let Some(obj) = p.obj {
                    if !self.shared.contains_key(&obj) {
                        return Err(fault(
                            ErrorKind::InvalidPointer,
                            format!(
                                "atomic on {}, which is neither __global nor __local memory",
                                self.mem.name(obj)
                            ),
                        ));
                    }
                }
                // An atomic store does not read; the others see the old value.
                let old = match op {
                    AtomicOp::Store => Val::Undef,
                    _ => self.load_shared(lane, id, p, vty, size)?,
                };
                let new = atomic_update(*op, vty, old, &xs)?;
                let kind = match new {
                    Some(v) => {
                        self.mem.store(p, &encode(vty, v)?, size, lane.index)?;
                        AccessKind::AtomicWrite
                    }
                    None => AccessKind::AtomicRead,
                };
                self.track(lane, id, p, size, kind)?;
                if *op == AtomicOp::Store {
                    return Ok(Flow::Next);
                }
                old
            }
            InstKind::Printf { format, args } => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push((f.ty(*a), self.used(lane, *a)?));
                }
                let text = printf::format(format, &vals);
                self.printed.push((lane.index, lane.gid, text));
                Val::Int(0)
            }
            InstKind::Br(b) => return Ok(Flow::Jump(*b)),
            InstKind::CondBr { cond, then, els } => {
                let c = self.used_int(lane, *cond)? & 1 == 1;
                return Ok(Flow::Jump(if c { *then } else { *els }));
            }
            InstKind::Switch {
                value,
                default,
                cases,
            } => {
                let bits = f.ty(*value).bits();
                let x = self.used_int(lane, *value)?;
                let target = cases
                    .iter()
                    .find(|(c, _)| truncate(*c, bits) == x)
                    .map_or(*default, |&(_, b)| b);
                return Ok(Flow::Jump(target));
            }
            InstKind::Ret => return Ok(Flow::Done),
            InstKind::Unreachable => {
                return Err(fault(
                    ErrorKind::Unreachable,
                    "reached a point C leaves undefined (e.g. the end of a non-void function without `return`)",
                ))
            }
        };
        if let Some(r) = inst.result {
            self.set_fault(lane, r, value)?;
        }
        Ok(Flow::Next)
    }

    fn set_fault(&self, lane: &mut Lane, r: ValueId, v: Val) -> Result<(), Fault> {
        match lane.values.get_mut(r.index()) {
            Some(slot) => {
                *slot = v;
                Ok(())
            }
            None => Err(fault(
                ErrorKind::MalformedIr,
                "result value id out of range",
            )),
        }
    }

    /// A work-item query; `dim` out of range gives the OpenCL defaults
    /// (ids and offsets 0, sizes 1).
    fn work_item(&self, lane: &Lane, q: WorkItem, dim: Option<u64>) -> u64 {
        let g = &self.geo;
        let d = dim.filter(|&d| d < g.work_dim as u64).map(|d| d as usize);
        let pick = |a: &[u64; 3], default: u64| d.map_or(default, |d| a[d]);
        match q {
            WorkItem::GlobalId => pick(&lane.gid, 0),
            WorkItem::LocalId => pick(&lane.lid, 0),
            WorkItem::GroupId => pick(&lane.group, 0),
            WorkItem::GlobalSize => pick(&g.global, 1),
            WorkItem::LocalSize => pick(&lane.local_size, 1),
            WorkItem::NumGroups => pick(&g.groups, 1),
            WorkItem::GlobalOffset => pick(&g.offset, 0),
            WorkItem::WorkDim => g.work_dim as u64,
            WorkItem::SubGroupSize => lane.sub_group_size,
            WorkItem::SubGroupLocalId => lane.sub_group_local_id,
            WorkItem::NumSubGroups => lane.num_sub_groups,
            WorkItem::SubGroupId => lane.sub_group_id,
            WorkItem::MaxSubGroupSize => g.width,
            // The interpreter runs work-items, never absent lanes.
            WorkItem::LaneMask => 1,
        }
    }

    /// A load; a read of never-written `__local` bytes is remembered
    /// (`uninit_local_read`) instead of failing at once, since another
    /// work-item may still write them before the next barrier, a race.
    fn load_shared(
        &mut self,
        lane: &Lane,
        id: InstId,
        p: Pointer,
        ty: Ty,
        align: u64,
    ) -> Result<Val, Fault> {
        let local = p
            .obj
            .is_some_and(|o| self.shared.get(&o) == Some(&Shared::Local));
        let (bytes, uninit) = self.mem.load_any(p, ty.bytes(), align, lane.index)?;
        let v = decode(ty, bytes);
        match uninit {
            None => Ok(v),
            Some(e) if local => {
                if self.uninit_local_read.is_none() {
                    let span = self.f.insts[id.index()].src.span;
                    self.uninit_local_read = Some(self.error(e, span, lane));
                }
                Ok(v)
            }
            Some(e) => Err(e),
        }
    }

    /// Records an access to shared memory for race detection; a race is
    /// reported at this access, with the earlier one as the related place.
    fn track(
        &mut self,
        lane: &Lane,
        id: InstId,
        p: Pointer,
        size: u64,
        kind: AccessKind,
    ) -> Result<(), Fault> {
        let Some(obj) = p.obj else { return Ok(()) };
        if !self.check_races {
            return Ok(());
        }
        let Some(&space) = self.shared.get(&obj) else {
            return Ok(());
        };
        let access = Access {
            item: lane.local_index,
            inst: id,
            kind,
        };
        let Some(race) = self.races.access(space, obj, p.off as u64, size, access) else {
            return Ok(());
        };
        let local = |item: u64| {
            let s = lane.local_size;
            fmt_id([item % s[0], (item / s[0]) % s[1], item / (s[0] * s[1])])
        };
        let earlier = race.earlier;
        let fence = match space {
            Shared::Local => "CLK_LOCAL_MEM_FENCE",
            Shared::Global => "CLK_GLOBAL_MEM_FENCE",
        };
        let mut e = fault(
            ErrorKind::DataRace,
            format!(
                "{} of byte {} of {} by work-item local {} races with a {} of it by work-item local {} of the same work-group, with no barrier({fence}) between them",
                kind.name(),
                race.byte,
                self.mem.name(obj),
                fmt_id(lane.lid),
                earlier.kind.name(),
                local(earlier.item),
            ),
        );
        let there = self
            .f
            .insts
            .get(earlier.inst.index())
            .map_or(self.f.span, |i| i.src.span);
        e.related = Some((
            there,
            format!(
                "the {} by work-item local {}",
                earlier.kind.name(),
                local(earlier.item)
            ),
        ));
        Err(e)
    }

    /// `work_group_broadcast(x, id...)`: the value of the work-item with
    /// that local id, which must be the same on every work-item.
    fn work_group_broadcast(
        &self,
        lanes: &[Lane],
        args: &[ValueId],
    ) -> Result<Vec<Val>, (usize, Fault)> {
        if !(2..=4).contains(&args.len()) {
            return Err((
                0,
                fault(
                    ErrorKind::MalformedIr,
                    "work_group_broadcast takes a value and 1 to 3 local ids",
                ),
            ));
        }
        let mut src: Option<[u64; 3]> = None;
        for (i, lane) in lanes.iter().enumerate() {
            let mut want = [0u64; 3];
            for (d, &a) in args[1..].iter().enumerate() {
                want[d] = self.used_int(lane, a).map_err(|e| (i, e))?;
            }
            match src {
                None => src = Some(want),
                Some(s) if s != want => {
                    return Err((
                        i,
                        fault(
                            ErrorKind::InvalidSubGroupOp,
                            format!(
                                "work_group_broadcast from local id {} here but from {} on an earlier work-item; the id must be the same for the whole work-group",
                                fmt_id(want),
                                fmt_id(s)
                            ),
                        ),
                    ))
                }
                Some(_) => {}
            }
        }
        let want = src.unwrap_or([0; 3]);
        let Some(k) = lanes.iter().position(|l| l.lid == want) else {
            return Err((
                0,
                fault(
                    ErrorKind::InvalidSubGroupOp,
                    format!(
                        "work_group_broadcast from local id {}, which is not in the work-group (size {})",
                        fmt_id(want),
                        fmt_id(lanes[0].local_size)
                    ),
                ),
            ));
        };
        let v = self.used(&lanes[k], args[0]).map_err(|e| (k, e))?;
        Ok(vec![v; lanes.len()])
    }

    /// Executes horizontal instruction `id` for the lanes paused at it.
    fn resolve(&mut self, lanes: &mut [Lane], id: InstId) -> Result<(), InterpError> {
        let f = self.f;
        let inst = &f.insts[id.index()];
        let span = inst.src.span;
        let active: Vec<usize> = (0..lanes.len())
            .filter(|&i| lanes[i].state == State::Paused(id))
            .collect();
        if active.is_empty() {
            return Ok(());
        }
        let results = self
            .horizontal(lanes, &active, inst)
            .map_err(|(lane, e)| self.error(e, span, &lanes[lane]))?;
        for (&i, v) in active.iter().zip(results) {
            self.tick(span, &lanes[i])?;
            let lane = &mut lanes[i];
            if let Some(r) = inst.result {
                self.set(lane, r, v)?;
            }
            lane.pos += 1;
            lane.state = State::Running;
        }
        Ok(())
    }

    /// The results of a horizontal operation for the active lanes (in
    /// order); an error names the lane it is about.
    fn horizontal(
        &self,
        lanes: &[Lane],
        active: &[usize],
        inst: &ir::Inst,
    ) -> Result<Vec<Val>, (usize, Fault)> {
        let first = active[0];
        let (op, args, work_group) = match &inst.kind {
            InstKind::Horizontal { op, args } => (op, args, false),
            InstKind::WorkGroup { op, args } => (op, args, true),
            _ => {
                return Err((
                    first,
                    fault(ErrorKind::MalformedIr, "not a horizontal operation"),
                ))
            }
        };
        if work_group && *op == Horizontal::Broadcast {
            return self.work_group_broadcast(lanes, args);
        }
        let want = if *op == Horizontal::Broadcast { 2 } else { 1 };
        if args.len() != want {
            return Err((
                first,
                fault(
                    ErrorKind::MalformedIr,
                    format!(
                        "`{}` takes {want} operands, found {}",
                        op.name(),
                        args.len()
                    ),
                ),
            ));
        }
        let ty = inst.ty;
        let mut xs = Vec::with_capacity(active.len());
        for &i in active {
            xs.push(self.used(&lanes[i], args[0]).map_err(|e| (i, e))?);
        }
        let n = active.len();
        let bool_of =
            |(i, v): (usize, &Val)| ops::as_int(*v).map(|x| x & 1 == 1).map_err(|e| (i, e));
        Ok(match op {
            Horizontal::Any | Horizontal::All => {
                let mut bits = Vec::with_capacity(n);
                for (k, v) in xs.iter().enumerate() {
                    bits.push(bool_of((active[k], v))?);
                }
                let r = if *op == Horizontal::Any {
                    bits.iter().any(|&b| b)
                } else {
                    bits.iter().all(|&b| b)
                };
                vec![Val::Int(r as u64); n]
            }
            Horizontal::Broadcast => {
                let mut src = None;
                for &i in active {
                    let l = self.used_int(&lanes[i], args[1]).map_err(|e| (i, e))?;
                    match src {
                        None => src = Some(l),
                        Some(s) if s != l => {
                            return Err((
                                i,
                                fault(
                                    ErrorKind::InvalidSubGroupOp,
                                    format!(
                                        "sub_group_broadcast from lane {l} here but from lane {s} on an earlier lane; the lane must be the same for the whole sub-group"
                                    ),
                                ),
                            ))
                        }
                        Some(_) => {}
                    }
                }
                let l = src.unwrap_or(0);
                let Some(k) = active
                    .iter()
                    .position(|&i| lanes[i].sub_group_local_id == l)
                else {
                    return Err((
                        first,
                        fault(
                            ErrorKind::InvalidSubGroupOp,
                            format!(
                                "sub_group_broadcast from lane {l}, which is not an active lane of the sub-group (active: {:?})",
                                active.iter().map(|&i| lanes[i].sub_group_local_id).collect::<Vec<_>>()
                            ),
                        ),
                    ));
                };
                vec![xs[k]; n]
            }
            Horizontal::Reduce(r) => {
                let mut acc = xs[0];
                for (k, x) in xs.iter().enumerate().skip(1) {
                    acc = combine(*r, ty, acc, *x).map_err(|e| (active[k], e))?;
                }
                vec![acc; n]
            }
            Horizontal::ScanInclusive(r) => {
                let mut out = Vec::with_capacity(n);
                let mut acc = xs[0];
                out.push(acc);
                for (k, x) in xs.iter().enumerate().skip(1) {
                    acc = combine(*r, ty, acc, *x).map_err(|e| (active[k], e))?;
                    out.push(acc);
                }
                out
            }
            Horizontal::ScanExclusive(r) => {
                let mut out = Vec::with_capacity(n);
                out.push(identity(*r, ty).map_err(|e| (first, e))?);
                let mut acc = xs[0];
                for (k, x) in xs.iter().enumerate().skip(1) {
                    out.push(acc);
                    acc = combine(*r, ty, acc, *x).map_err(|e| (active[k], e))?;
                }
                out
            }
        })
    }
}

/// The value an atomic operation stores, given the old value and the
/// operands (`None`: it stores nothing, as a load or a failed
/// compare-and-exchange).
fn atomic_update(op: AtomicOp, ty: Ty, old: Val, xs: &[Val]) -> Result<Option<Val>, Fault> {
    use ir::BinOp;
    let arith = |b: BinOp| ops::binary(b, ty, old, xs[0]).map(Some);
    let minmax = |m: MathFn| ops::math(m, ty, &[old, xs[0]]).map(Some);
    match op {
        AtomicOp::Load => Ok(None),
        AtomicOp::Store | AtomicOp::Xchg => Ok(Some(xs[0])),
        // Compared bit for bit, as the hardware does (also for floats).
        AtomicOp::CmpXchg => Ok((encode(ty, old)? == encode(ty, xs[0])?).then_some(xs[1])),
        AtomicOp::Add => arith(BinOp::Add),
        AtomicOp::Sub => arith(BinOp::Sub),
        AtomicOp::And => arith(BinOp::And),
        AtomicOp::Or => arith(BinOp::Or),
        AtomicOp::Xor => arith(BinOp::Xor),
        AtomicOp::SMin => minmax(MathFn::SMin),
        AtomicOp::SMax => minmax(MathFn::SMax),
        AtomicOp::UMin => minmax(MathFn::UMin),
        AtomicOp::UMax => minmax(MathFn::UMax),
    }
}

/// `[x, y, z]`.
fn fmt_id(id: [u64; 3]) -> String {
    format!("[{}, {}, {}]", id[0], id[1], id[2])
}

/// How a synchronization instruction is named in messages.
fn sync_name(kind: &InstKind) -> &'static str {
    match kind {
        InstKind::WorkGroup { .. } => "work-group collective",
        _ => "barrier",
    }
}

/// One step of a reduction.
fn combine(op: ReduceOp, ty: Ty, a: Val, b: Val) -> Result<Val, Fault> {
    match op {
        ReduceOp::Add => ops::binary(ir::BinOp::Add, ty, a, b),
        ReduceOp::FAdd => ops::binary(ir::BinOp::FAdd, ty, a, b),
        ReduceOp::SMin => ops::math(MathFn::SMin, ty, &[a, b]),
        ReduceOp::UMin => ops::math(MathFn::UMin, ty, &[a, b]),
        ReduceOp::SMax => ops::math(MathFn::SMax, ty, &[a, b]),
        ReduceOp::UMax => ops::math(MathFn::UMax, ty, &[a, b]),
        ReduceOp::FMin => ops::math(MathFn::Fmin, ty, &[a, b]),
        ReduceOp::FMax => ops::math(MathFn::Fmax, ty, &[a, b]),
    }
}

/// The identity of a reduction, for exclusive scans.
fn identity(op: ReduceOp, ty: Ty) -> Result<Val, Fault> {
    let bits = ops::int_bits(ty);
    let float = |x: f64| match ty {
        Ty::F32 => Ok(Val::F32(x as f32)),
        Ty::F64 => Ok(Val::F64(x)),
        _ => Err(fault(
            ErrorKind::MalformedIr,
            format!("float reduction of type {ty}"),
        )),
    };
    Ok(match op {
        ReduceOp::Add | ReduceOp::UMax => {
            bits?;
            Val::Int(0)
        }
        ReduceOp::UMin => Val::Int(truncate(u64::MAX, bits?)),
        ReduceOp::SMin => Val::Int(truncate(u64::MAX, bits?) >> 1),
        ReduceOp::SMax => {
            let b = bits?;
            Val::Int(1u64 << (b - 1))
        }
        ReduceOp::FAdd => float(0.0)?,
        ReduceOp::FMin => float(f64::INFINITY)?,
        ReduceOp::FMax => float(f64::NEG_INFINITY)?,
    })
}

/// A value of type `ty` from its little-endian bytes (`bytes.len() ==
/// ty.bytes()`).
fn decode(ty: Ty, bytes: &[u8]) -> Val {
    let mut raw = [0u8; 8];
    let n = bytes.len().min(8);
    raw[..n].copy_from_slice(&bytes[..n]);
    let bits = u64::from_le_bytes(raw);
    match ty {
        Ty::F32 => Val::F32(f32::from_bits(bits as u32)),
        Ty::F64 => Val::F64(f64::from_bits(bits)),
        Ty::Ptr(_) => Val::Ptr(memory::from_address(bits)),
        _ => Val::Int(truncate(bits, ty.bits())),
    }
}

/// The little-endian bytes of a value of type `ty`.
fn encode(ty: Ty, v: Val) -> Result<Vec<u8>, Fault> {
    let bits = match v {
        Val::Int(x) if ty.is_int() => x,
        Val::F32(x) if ty == Ty::F32 => x.to_bits() as u64,
        Val::F64(x) if ty == Ty::F64 => x.to_bits(),
        Val::Ptr(p) if ty.is_ptr() => memory::address(p),
        _ => {
            return Err(fault(
                ErrorKind::MalformedIr,
                format!("store of {v:?} as {ty}"),
            ))
        }
    };
    Ok(bits.to_le_bytes()[..ty.bytes() as usize].to_vec())
}
