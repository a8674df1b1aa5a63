//! Lowering of one kernel's typed HIR to the lanes IR, with every helper
//! function inlined.
//!
//! - SSA is built on the fly with the algorithm of Braun et al. 2013 ("Simple
//!   and Efficient Construction of Static Single Assignment Form": sealed
//!   blocks, incomplete φs, trivial-φ removal), for every scalar, vector or
//!   pointer variable whose address is never taken ([`ssa`]). Arrays,
//!   structs and address-taken variables live in memory: one `alloca` each,
//!   all in the entry block.
//! - Vector values are scalarized: a `float4` is four SSA values
//!   ([`Vals`]); aggregates in registers are their scalar leaves in offset
//!   order ([`types::leaves`]).
//! - `bool` is `i1` in registers and one byte in memory.
//! - Control flow comes out structured, with readable block labels, and
//!   conditions branch on the comparisons themselves (`&&`/`||` as
//!   branches), which the shape analysis and precondition inference rely on.
//! - Unreachable code is lowered into blocks nobody reaches, which
//!   [`finish`] drops at the end together with every trivial φ left.
//!
//! Lowering never panics: anything it cannot handle becomes a
//! [`LowerError`] and lowering goes on with `undef` values, so one call
//! reports every problem of a kernel.

use std::collections::{HashMap, HashSet};

use lanes_frontend::ast::{AddressSpace, NodeId};
use lanes_frontend::hir::{self, FuncId, GlobalId, LocalId};
use lanes_frontend::source::Span;
use lanes_frontend::types::Type;

use crate::ir::{self, BlockId, Const, Function, InstId, InstKind, Src, Ty, ValueId};

mod builtin;
mod contract;
mod expr;
mod finish;
mod half;
mod image;
mod ptrmath;
mod ssa;
mod stmt;
mod types;
pub(crate) mod workgroup;

#[cfg(test)]
pub(crate) mod tests;

use ssa::SsaVar;

/// A construct the vectorizer cannot lower, at the user's text.
#[derive(Clone, Debug, PartialEq)]
pub struct LowerError {
    pub span: Span,
    pub message: String,
}

/// Lowers kernel `kernel` of a unit that checked without errors, with every
/// helper function inlined.
/// The scalar fields of a struct kernel argument in memory order: byte
/// offset and register type (`i1` for `bool`, stored as one byte). A kernel
/// receives such an argument as one IR parameter per field; the C ABI
/// passes a pointer to the struct. Pointers inside kernel-argument structs
/// are not valid OpenCL C.
pub fn kernel_param_layout(
    unit: &hir::Unit,
    ty: &lanes_frontend::types::Type,
) -> Result<Vec<(u64, ir::Ty)>, String> {
    let leaves = types::leaves(unit, ty)?;
    let mut out = Vec::with_capacity(leaves.len());
    for (off, leaf) in leaves {
        if let types::LeafTy::Ptr(_) = leaf {
            return Err(format!(
                "a kernel argument of type `{}` contains a pointer, which OpenCL C does not allow",
                unit.type_name(ty)
            ));
        }
        out.push((off, leaf.reg()));
    }
    Ok(out)
}

/// What lowering needs to know about the target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Options {
    /// The target has fused multiply-add. Where OpenCL C's `FP_CONTRACT` is
    /// on, a multiply feeding an add or subtract of the same expression
    /// becomes one `fma` (rounded once), which the interpreter runs as
    /// `mul_add` and the back end as one instruction. Without it nothing is
    /// contracted: a library call would stand in for the instruction.
    pub fma: bool,
}

/// [`lower_kernel_with`] for a target without fused multiply-add.
pub fn lower_kernel(unit: &hir::Unit, kernel: FuncId) -> Result<ir::Function, Vec<LowerError>> {
    lower_kernel_with(unit, kernel, &Options::default())
}

pub fn lower_kernel_with(
    unit: &hir::Unit,
    kernel: FuncId,
    opts: &Options,
) -> Result<ir::Function, Vec<LowerError>> {
    let Some(func) = unit.functions.get(kernel.0 as usize) else {
        return Err(vec![LowerError {
            span: Span::default(),
            message: format!("there is no function #{} to lower", kernel.0),
        }]);
    };
    let Some(body) = &func.body else {
        return Err(vec![LowerError {
            span: func.name_span,
            message: format!("`{}` has no body to lower", func.name),
        }]);
    };
    if !func.is_kernel {
        return Err(vec![LowerError {
            span: func.name_span,
            message: format!(
                "`{}` is not a kernel; only kernels are lowered (helpers are inlined)",
                func.name
            ),
        }]);
    }
    let mut l = Lowerer::new(unit, func, *opts);
    l.kernel_body(kernel, func, body);
    l.finish()
}

/// The scalar values of one HIR value: one per component for scalars,
/// vectors and pointers (a scalar has one), one per scalar leaf for structs
/// and arrays ([`types::leaves`] order), none for `void`.
pub(crate) type Vals = Vec<ValueId>;

/// Where an lvalue lives.
#[derive(Clone, Debug)]
pub(crate) enum Place {
    /// Components of a variable in SSA form (all of them for the whole
    /// variable, a selection for a swizzle).
    Ssa(Vec<SsaVar>),
    /// One component of an SSA vector variable chosen at run time.
    Dyn { base: Box<Place>, index: ValueId },
    /// The object of the expression's type at `ptr`.
    Mem { ptr: ValueId },
    /// Selected components of a vector at `ptr` with element size `elem`.
    MemComps {
        ptr: ValueId,
        elem: lanes_frontend::types::Scalar,
        comps: Vec<u8>,
    },
    /// After an error: reads give `undef`, writes are dropped.
    Invalid,
}

/// Where `break` and `continue` go.
#[derive(Clone, Copy, Debug)]
struct Targets {
    brk: BlockId,
    /// `None` for a `switch` (a `continue` inside goes to the enclosing loop).
    cont: Option<BlockId>,
}

/// A local variable of one inlined function instance.
#[derive(Clone, Debug)]
enum Slot {
    Ssa(Vec<SsaVar>),
    Mem(ValueId),
}

/// The return of an inlined helper: where `return` jumps and the SSA
/// variables (one per component or leaf) that carry the value.
#[derive(Clone, Debug)]
struct Ret {
    block: BlockId,
    vars: Vec<SsaVar>,
}

/// One function instance being lowered: the kernel, or one inlined call.
struct Frame<'u> {
    func: FuncId,
    hir: &'u hir::Function,
    slots: Vec<Option<Slot>>,
    ret: Option<Ret>,
    targets: Vec<Targets>,
    /// The case blocks of the enclosing `switch` statements, by the address
    /// of their marker statement.
    cases: Vec<HashMap<usize, BlockId>>,
}

/// Per-block construction state.
struct BlockState {
    /// One entry per incoming edge.
    preds: Vec<BlockId>,
    sealed: bool,
    /// φs created while the block was not sealed, completed at sealing.
    incomplete: Vec<(SsaVar, InstId)>,
    /// The source construct that made the block (the src of its φs).
    src: Src,
}

/// More nesting than this (expressions, statements and inlined calls
/// together) is refused, so lowering cannot overflow the stack.
/// At the limit lowering needs about 1 MiB of stack (2 MiB is the default
/// of a Rust thread).
const MAX_NESTING: u32 = 1_200;
/// Inlined calls deeper than this are refused (recursion is already an
/// error in the front end; this bounds long call chains).
const MAX_INLINE_DEPTH: usize = 64;

pub(crate) struct Lowerer<'u> {
    unit: &'u hir::Unit,
    opts: Options,
    f: Function,
    /// The block instructions are appended to.
    cur: BlockId,
    blocks: Vec<BlockState>,
    errors: Vec<LowerError>,
    frames: Vec<Frame<'u>>,
    /// Allocas placed so far at the start of the entry block.
    allocas: usize,
    globals: HashMap<GlobalId, ValueId>,
    addr_taken: HashMap<FuncId, HashSet<LocalId>>,
    depth: u32,
    too_deep: bool,
    /// The kernel as a whole, for instructions no expression stands for.
    kernel_src: Src,
    ssa: ssa::SsaState,
}

/// A conversion of a constant, as C converts constants of other types
/// (`(float)1`, `(char)-1`, `1.0f` widened). Conversions that can be
/// undefined (float to integer) are left to run time.
fn fold_cast(op: ir::CastOp, c: Const, to: Ty) -> Option<Const> {
    use ir::CastOp::*;
    Some(match (op, c) {
        (Trunc | ZExt, Const::Int(v, _)) if to.is_int() => {
            Const::Int(ir::truncate(v, to.bits()), to)
        }
        (SExt, Const::Int(v, from)) if to.is_int() => Const::Int(
            ir::truncate(ir::sign_extend(v, from.bits()) as u64, to.bits()),
            to,
        ),
        (SiToFp, Const::Int(v, from)) => {
            let x = ir::sign_extend(v, from.bits());
            match to {
                Ty::F32 => Const::Float(f64::from(x as f32), to),
                Ty::F64 => Const::Float(x as f64, to),
                _ => return None,
            }
        }
        (UiToFp, Const::Int(v, _)) => match to {
            Ty::F32 => Const::Float(f64::from(v as f32), to),
            Ty::F64 => Const::Float(v as f64, to),
            _ => return None,
        },
        (FpExt, Const::Float(x, Ty::F32)) if to == Ty::F64 => Const::Float(x, to),
        (FpTrunc, Const::Float(x, Ty::F64)) if to == Ty::F32 => {
            Const::Float(f64::from(x as f32), to)
        }
        _ => return None,
    })
}

pub(crate) fn src_of(node: NodeId, span: Span) -> Src {
    Src { node, span }
}

impl<'u> Lowerer<'u> {
    fn new(unit: &'u hir::Unit, func: &'u hir::Function, opts: Options) -> Lowerer<'u> {
        let mut f = Function::new(func.name.clone(), func.span);
        let kernel_src = src_of(func.node, func.span);
        let entry = f.add_block("entry");
        f.entry = entry;
        Lowerer {
            unit,
            opts,
            f,
            cur: entry,
            blocks: vec![BlockState {
                preds: Vec::new(),
                sealed: true,
                incomplete: Vec::new(),
                src: kernel_src,
            }],
            errors: Vec::new(),
            frames: Vec::new(),
            allocas: 0,
            globals: HashMap::new(),
            addr_taken: HashMap::new(),
            depth: 0,
            too_deep: false,
            kernel_src,
            ssa: ssa::SsaState::default(),
        }
    }

    // ---- errors ---------------------------------------------------------

    fn error(&mut self, span: Span, message: impl Into<String>) {
        let message = message.into();
        // One construct reached several times (e.g. a helper inlined twice)
        // is reported once.
        if !self
            .errors
            .iter()
            .any(|e| e.span == span && e.message == message)
        {
            self.errors.push(LowerError { span, message });
        }
    }

    /// Counts one level of recursion; false (after reporting) when the
    /// nesting limit is reached.
    fn enter(&mut self, span: Span) -> bool {
        if self.depth >= MAX_NESTING {
            // Reported once: every enclosing construct would hit it again.
            if !self.too_deep {
                self.too_deep = true;
                self.error(
                    span,
                    format!("this kernel is nested too deeply to lower (more than {MAX_NESTING} levels of expressions, statements and inlined calls)"),
                );
            }
            return false;
        }
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ---- blocks ---------------------------------------------------------

    /// Gives the loop header `b` the unroll hint of the loop statement at
    /// `span`, if the source has one.
    fn mark_unroll(&mut self, b: BlockId, span: Span) {
        let hint = self.unit.unroll(span);
        let block = self.f.block_mut(b);
        block.unroll = hint;
        block.unroll_at = hint.map(|_| span);
    }

    fn new_block(&mut self, label: &str, src: Src) -> BlockId {
        let b = self.f.add_block(label);
        self.blocks.push(BlockState {
            preds: Vec::new(),
            sealed: false,
            incomplete: Vec::new(),
            src,
        });
        b
    }

    /// A block nobody jumps to, for the code after `return`, `break` or
    /// `continue` (dropped at the end).
    fn start_dead_block(&mut self, src: Src) {
        let b = self.new_block("dead", src);
        self.seal(b);
        self.cur = b;
    }

    /// True when the current block can never be reached: sealed without
    /// predecessors (and not the entry).
    fn cur_is_dead(&self) -> bool {
        self.cur != self.f.entry
            && self
                .blocks
                .get(self.cur.index())
                .is_some_and(|b| b.sealed && b.preds.is_empty())
    }

    fn has_terminator(&self, b: BlockId) -> bool {
        self.f.terminator(b).is_some()
    }

    /// Ends the current block with a terminator and records its edges.
    fn terminate(&mut self, kind: InstKind, src: Src) {
        let cur = self.cur;
        if self.has_terminator(cur) {
            self.error(
                src.span,
                "internal error: lowering emitted two terminators in one block",
            );
            return;
        }
        let succs = kind.successors();
        self.f.append(cur, kind, Ty::Void, src);
        for s in succs {
            let sealed = self.blocks.get(s.index()).is_some_and(|b| b.sealed);
            if sealed {
                self.error(
                    src.span,
                    "internal error: an edge was added to a sealed block",
                );
            }
            if let Some(state) = self.blocks.get_mut(s.index()) {
                state.preds.push(cur);
            }
        }
    }

    /// Jumps from the current block to `target` (nothing but an
    /// `unreachable` when the current block is dead, so that dead code adds
    /// no edges).
    fn jump(&mut self, target: BlockId, src: Src) {
        if self.cur_is_dead() {
            self.terminate(InstKind::Unreachable, src);
        } else {
            self.terminate(InstKind::Br(target), src);
        }
    }

    fn cond_br(&mut self, cond: ValueId, then: BlockId, els: BlockId, src: Src) {
        if self.cur_is_dead() {
            self.terminate(InstKind::Unreachable, src);
        } else {
            self.terminate(InstKind::CondBr { cond, then, els }, src);
        }
    }

    // ---- instructions ---------------------------------------------------

    /// Appends an instruction with a result to the current block.
    fn emit(&mut self, kind: InstKind, ty: Ty, src: Src) -> ValueId {
        if self.has_terminator(self.cur) {
            // Only reachable through an internal mistake; keep the IR valid.
            self.error(
                src.span,
                "internal error: an instruction was emitted after a terminator",
            );
            let b = self.new_block("dead", src);
            self.seal(b);
            self.cur = b;
        }
        let (_, v) = self.f.append(self.cur, kind, ty, src);
        match v {
            Some(v) => v,
            None => self.undef(ty),
        }
    }

    /// Appends an instruction without a result (a store).
    fn emit_void(&mut self, kind: InstKind, src: Src) {
        if self.has_terminator(self.cur) {
            self.error(
                src.span,
                "internal error: an instruction was emitted after a terminator",
            );
            return;
        }
        self.f.append(self.cur, kind, Ty::Void, src);
    }

    fn undef(&mut self, ty: Ty) -> ValueId {
        if let Some(&v) = self.ssa.undefs.get(&ty) {
            return v;
        }
        let v = self.f.add_const(Const::Undef(ty));
        self.ssa.undefs.insert(ty, v);
        v
    }

    fn is_undef(&self, v: ValueId) -> bool {
        matches!(self.f.as_const(v), Some(Const::Undef(_)))
    }

    fn const_int(&mut self, v: i64, ty: Ty) -> ValueId {
        self.f.const_int(v, ty)
    }

    fn const_float(&mut self, v: f64, ty: Ty) -> ValueId {
        // A float constant is exactly representable in its type.
        let v = if ty == Ty::F32 { v as f32 as f64 } else { v };
        self.f.add_const(Const::Float(v, ty))
    }

    fn const_bool(&mut self, b: bool) -> ValueId {
        self.f.add_const(Const::Int(b as u64, Ty::I1))
    }

    /// A zero of an IR type (null for pointers).
    fn zero(&mut self, ty: Ty) -> ValueId {
        match ty {
            Ty::F32 | Ty::F64 => self.const_float(0.0, ty),
            Ty::Ptr(space) => self.f.add_const(Const::Null(space)),
            Ty::Void => self.undef(Ty::Void),
            _ => self.const_int(0, ty),
        }
    }

    fn ty(&self, v: ValueId) -> Ty {
        self.f.values.get(v.index()).map_or(Ty::Void, |x| x.ty)
    }

    fn bin(&mut self, op: ir::BinOp, lhs: ValueId, rhs: ValueId, src: Src) -> ValueId {
        let ty = self.ty(lhs);
        if let Some(c) = self.fold_bin(op, lhs, rhs, ty) {
            return self.f.add_const(c);
        }
        self.emit(InstKind::Bin { op, lhs, rhs }, ty, src)
    }

    /// Integer arithmetic on two constants, as C evaluates constant
    /// expressions (`-1`, `INT_MIN`, `4 * 16`): wrapping, exact. Division
    /// is left to run time (it can trap).
    fn fold_bin(&self, op: ir::BinOp, lhs: ValueId, rhs: ValueId, ty: Ty) -> Option<Const> {
        use ir::BinOp::*;
        let (Some(Const::Int(a, ta)), Some(Const::Int(b, tb))) =
            (self.f.as_const(lhs), self.f.as_const(rhs))
        else {
            return None;
        };
        if ta != ty || tb != ty || !ty.is_int() {
            return None;
        }
        let bits = ty.bits();
        let sa = ir::sign_extend(a, bits);
        let v = match op {
            Add => a.wrapping_add(b),
            Sub => a.wrapping_sub(b),
            Mul => a.wrapping_mul(b),
            And => a & b,
            Or => a | b,
            Xor => a ^ b,
            Shl if b < u64::from(bits) => a << b,
            LShr if b < u64::from(bits) => a >> b,
            AShr if b < u64::from(bits) => (sa >> b) as u64,
            _ => return None,
        };
        Some(Const::Int(ir::truncate(v, bits), ty))
    }

    fn cmp(&mut self, pred: ir::CmpPred, lhs: ValueId, rhs: ValueId, src: Src) -> ValueId {
        self.emit(InstKind::Cmp { pred, lhs, rhs }, Ty::I1, src)
    }

    fn select(&mut self, cond: ValueId, then: ValueId, els: ValueId, src: Src) -> ValueId {
        let ty = self.ty(then);
        self.emit(InstKind::Select { cond, then, els }, ty, src)
    }

    fn cast(&mut self, op: ir::CastOp, value: ValueId, to: Ty, src: Src) -> ValueId {
        if self.ty(value) == to
            && matches!(
                op,
                ir::CastOp::Trunc | ir::CastOp::ZExt | ir::CastOp::SExt | ir::CastOp::PtrCast
            )
        {
            return value;
        }
        if let Some(c) = self.f.as_const(value).and_then(|c| fold_cast(op, c, to)) {
            return self.f.add_const(c);
        }
        self.emit(InstKind::Cast { op, value }, to, src)
    }

    fn math(&mut self, func: ir::MathFn, args: Vec<ValueId>, ty: Ty, src: Src) -> ValueId {
        self.emit(InstKind::Math { func, args }, ty, src)
    }

    /// `ptr + bytes` for a constant byte count (no instruction for 0).
    fn ptr_offset(&mut self, ptr: ValueId, bytes: i64, src: Src) -> ValueId {
        if bytes == 0 {
            return ptr;
        }
        let offset = self.const_int(bytes, Ty::I64);
        let ty = self.ty(ptr);
        self.emit(InstKind::PtrAdd { base: ptr, offset }, ty, src)
    }

    /// `ptr + offset` for an `i64` byte offset (no instruction for a
    /// constant 0).
    fn ptr_add(&mut self, ptr: ValueId, offset: ValueId, src: Src) -> ValueId {
        if let Some(Const::Int(0, _)) = self.f.as_const(offset) {
            return ptr;
        }
        let ty = self.ty(ptr);
        self.emit(InstKind::PtrAdd { base: ptr, offset }, ty, src)
    }

    /// An `alloca` of `ty` in the entry block (so it dominates every use).
    fn alloca(&mut self, ty: &Type, span: Span, src: Src) -> Option<ValueId> {
        let (Some(size), Some(align)) = (self.unit.size_of(ty), self.unit.align_of(ty)) else {
            self.error(
                span,
                format!(
                    "cannot allocate a variable of type `{}`",
                    self.unit.type_name(ty)
                ),
            );
            return None;
        };
        let entry = self.f.entry;
        let pos = self.allocas;
        self.allocas += 1;
        let (_, v) = self.f.insert(
            entry,
            pos,
            InstKind::Alloca {
                size: size.max(1),
                align: align.max(1),
            },
            Ty::Ptr(AddressSpace::Private),
            src,
        );
        v
    }

    /// The frame of the function being lowered.
    fn frame(&self) -> Option<&Frame<'u>> {
        self.frames.last()
    }

    fn frame_mut(&mut self) -> Option<&mut Frame<'u>> {
        self.frames.last_mut()
    }
}
