//! Streaming (non-temporal) stores for buffers a kernel writes once.
//!
//! `a[i] = b[i] + q * c[i]` over 32M floats: an ordinary store first reads
//! the line it writes into the cache (a read for ownership), so memory moves
//! 4 bytes for every 3 the kernel touches, and the written lines push the
//! inputs out of the cache although nothing reads them again. A
//! non-temporal store (`vmovntps`) writes whole lines past the caches.
//!
//! The rule, decided per store of the vector IR of a kernel without
//! barriers (stencil_2d, with barriers, was slower with them):
//! - the store is packed (lane k writes element k after lane 0's: every lane
//!   a distinct consecutive element) into a `__global` buffer that is a
//!   kernel argument, outside every loop (each work-item writes its element
//!   once);
//! - the kernel reads nothing through that argument (what it writes is not
//!   read back by it), and every pointer it reads through comes from a known
//!   argument, private or `__constant` object;
//! - it reads each argument at one address (the same expression of the
//!   same parameters, ids and constants; the specializer's fast and slow
//!   paths repeat it), or its bands of work-groups run global row by
//!   global row, where a stencil prefetches the next row (`prefetch.rs`):
//!   a stencil (jacobi_2d, sobel: neighbours in the same and the adjacent
//!   rows) was slower with streaming stores on Zen 3 without that
//!   prefetch (jacobi_2d's row loop in C: 4.5 ms with ordinary stores,
//!   4.9 streaming, 2.1 streaming with the prefetch; lanes' object
//!   streaming without it 8 ms; bench/RESULTS.md, 2026-11-28),
//!   where the triad, reading each input element once, is faster with
//!   them alone;
//! - it runs with every lane active (the all-active copy or a whole SIMD
//!   group without a guard): a masked store has no non-temporal form;
//! - at run time, the NDRange writes at least [`MIN_BYTES`] through it (less
//!   stays in the last-level cache for whoever reads it next), and lane 0's
//!   address is 16-byte aligned (`vmovntps` needs it; a Rust `Vec` or a
//!   `malloc`ed buffer is 16-byte aligned). Otherwise the ordinary store.
//!
//! Non-temporal stores are weakly ordered: `k_groups` ends with an `sfence`
//! when its body has any (see `abi.rs`), so the results are visible to
//! other threads once it returns. x86 only (`sfence` is an x86 instruction).

use std::collections::{HashMap, HashSet};

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::{LLVMIntPredicate as IP, LLVMOpcode as Op};
use inkwell::values::{AsValueRef, BasicValueEnum, FunctionValue, InstructionOpcode};

use lanes_frontend::ast::AddressSpace;
use lanes_vectorizer::cfg::Cfg;
use lanes_vectorizer::ir::{BlockId, Function, InstId, InstKind, Ty, ValueDef, ValueId};
use lanes_vectorizer::vectorize::VectorFunction;

use super::{geo, mem_ty, FnGen};
use crate::ll::R;

/// Bytes an NDRange must write through a store for it to stream: half the
/// 32 MiB last-level cache of the machine the rule was measured on (AMD
/// EPYC, bench/RESULTS.md); with the kernel's inputs at least as large, the
/// working set no longer fits in it.
pub const MIN_BYTES: u64 = 16 << 20;

/// Alignment of lane 0's address that a streaming store needs.
const ALIGN: u64 = 16;

/// What a pointer is computed from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Root {
    Param(u32),
    /// A private, `__local` or `__constant` object of the kernel itself.
    Own,
    Unknown,
}

fn root(f: &Function, mut p: ValueId) -> Root {
    loop {
        match f.values[p.index()].def {
            ValueDef::Param(n) => return Root::Param(n),
            ValueDef::Inst(i) => match &f.inst(i).kind {
                InstKind::PtrAdd { base, .. } => p = *base,
                InstKind::Cast { value, .. } if matches!(f.ty(*value), Ty::Ptr(_)) => p = *value,
                InstKind::Alloca { .. } => return Root::Own,
                _ => return Root::Unknown,
            },
            ValueDef::Global(_) | ValueDef::Local(_) => return Root::Own,
            _ => return Root::Unknown,
        }
    }
}

/// The expression `v` computes, as text: equal for two computations of
/// one address from the same parameters, ids and constants.
fn address(f: &Function, v: ValueId, depth: u32) -> String {
    let d = match f.values[v.index()].def {
        ValueDef::Param(n) => return format!("p{n}"),
        ValueDef::Const(c) => return format!("{c:?}"),
        ValueDef::Inst(d) if depth < 16 => d,
        _ => return format!("v{}", v.0),
    };
    let k = |x: ValueId| address(f, x, depth + 1);
    match &f.inst(d).kind {
        InstKind::Bin { op, lhs, rhs } => format!("({op:?} {} {})", k(*lhs), k(*rhs)),
        InstKind::Cast { op, value } => format!("({op:?} {:?} {})", f.ty(v), k(*value)),
        InstKind::PtrAdd { base, offset } => format!("(+ {} {})", k(*base), k(*offset)),
        InstKind::WorkItem { query, dim } => {
            format!("({query:?} {})", dim.map_or(String::new(), k))
        }
        _ => format!("v{}", v.0),
    }
}

/// The pointers the kernel reads through (loads and atomics).
fn read_pointers(f: &Function) -> impl Iterator<Item = ValueId> + '_ {
    f.insts.iter().filter_map(|inst| match &inst.kind {
        InstKind::Load { ptr, .. } | InstKind::Atomic { ptr, .. } => Some(*ptr),
        _ => None,
    })
}

/// True when the kernel reads some argument at two or more addresses (a
/// stencil: neighbours in the same and the adjacent rows, which come from
/// the cache). The specializer's fast and slow paths computing one address
/// twice count once.
pub fn reads_at_several_addresses(f: &Function) -> bool {
    let mut addresses: HashMap<u32, String> = HashMap::new();
    read_pointers(f).any(|ptr| match root(f, ptr) {
        Root::Param(n) => {
            let a = address(f, ptr, 0);
            addresses.entry(n).or_insert_with(|| a.clone()) != &a
        }
        _ => false,
    })
}

/// The stores of `vf` that may stream (the static part of the rule);
/// `stencils`: also in a kernel that reads an argument at several
/// addresses (its loads prefetch the next row).
pub fn plan(vf: &VectorFunction, x86: bool, stencils: bool) -> HashSet<InstId> {
    let f = &vf.func;
    let mut out = HashSet::new();
    if !x86 {
        return out;
    }
    if !stencils && reads_at_several_addresses(f) {
        return out;
    }
    let mut read = HashSet::new();
    for ptr in read_pointers(f) {
        match root(f, ptr) {
            Root::Param(n) => {
                read.insert(n);
            }
            Root::Own => {}
            Root::Unknown => return out,
        }
    }
    let cfg = Cfg::compute(f);
    for (k, inst) in f.insts.iter().enumerate() {
        let InstKind::Store { ptr, value, .. } = inst.kind else {
            continue;
        };
        let ty = f.ty(value);
        let packed = matches!(vf.shape(ptr), lanes_vectorizer::shape::Shape::Strided { stride, .. }
            if stride > 0 && stride as u64 == mem_ty(ty).bytes());
        let global = f.ty(ptr) == Ty::Ptr(AddressSpace::Global);
        let once = cfg.loop_of(inst.block).is_none();
        let own = matches!(root(f, ptr), Root::Param(n) if !read.contains(&n));
        if packed && global && once && own && ty != Ty::I1 {
            out.insert(InstId(k as u32));
        }
    }
    out
}

/// True when `m` is the constant all-true mask.
fn all_true(m: BasicValueEnum<'_>) -> bool {
    let BasicValueEnum::VectorValue(v) = m else {
        return false;
    };
    if !v.is_const() {
        return false;
    }
    (0..v.get_type().get_size()).all(|k| {
        // SAFETY: `v` is a constant vector of this many elements; `e` is
        // read as an integer only once known to be a `ConstantInt`.
        unsafe {
            let e = c::LLVMGetAggregateElement(v.as_value_ref(), k);
            !e.is_null()
                && !c::LLVMIsAConstantInt(e).is_null()
                && c::LLVMConstIntGetZExtValue(e) == 1
        }
    })
}

/// True when some store of `f` is non-temporal.
pub fn has_streaming_stores(f: FunctionValue<'_>) -> bool {
    let kind = c_kind("nontemporal");
    f.get_basic_block_iter().any(|b| {
        b.get_instructions().any(|i| {
            i.get_opcode() == InstructionOpcode::Store
                // SAFETY: reading metadata of a live instruction.
                && !unsafe { c::LLVMGetMetadata(i.as_value_ref(), kind) }.is_null()
        })
    })
}

fn c_kind(name: &str) -> u32 {
    // SAFETY: the name and its length describe a valid byte string.
    unsafe { c::LLVMGetMDKindID(name.as_ptr().cast(), name.len() as u32) }
}

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// Emits a store that the plan allows to stream: non-temporal when
    /// every lane is active and the run-time part of the rule holds,
    /// otherwise the ordinary store.
    pub(super) fn streaming_store(
        &mut self,
        b: BlockId,
        ptr: ValueId,
        value: ValueId,
        align: u64,
    ) -> R<()> {
        let m = self.mask_vec(b)?;
        if !all_true(m) {
            return self.store(b, ptr, value, align);
        }
        let cx = self.cx;
        let bytes = mem_ty(self.f.ty(value)).bytes();
        let x = self.get(value, true)?;
        let p0 = self.packed_base(ptr, m, bytes)?;
        // Work-items of the NDRange times the bytes each writes.
        let mut items = self.g(geo::GLOBAL);
        for d in 1..3 {
            items = cx.binop(Op::LLVMMul, items, self.g(geo::GLOBAL + d))?;
        }
        let big = cx.icmp(IP::LLVMIntUGE, items, cx.i64c(MIN_BYTES / bytes))?;
        let addr = cx.cast(Op::LLVMPtrToInt, p0, cx.ctx.i64_type().into())?;
        let low = cx.binop(Op::LLVMAnd, addr, cx.i64c(ALIGN - 1))?;
        let aligned = cx.icmp(IP::LLVMIntEQ, low, cx.i64c(0))?;
        let go = cx.binop(Op::LLVMAnd, big, aligned)?;
        let stream = cx.ctx.append_basic_block(self.func, "stream");
        let plain = cx.ctx.append_basic_block(self.func, "cached");
        let join = cx.ctx.append_basic_block(self.func, "stored");
        let br = |to| {
            cx.b.build_unconditional_branch(to)
                .map(|_| ())
                .map_err(|e| format!("{e:?}"))
        };
        cx.b.build_conditional_branch(go.into_int_value(), stream, plain)
            .map_err(|e| format!("{e:?}"))?;
        cx.b.position_at_end(stream);
        cx.store(p0, x, ALIGN as u32)?;
        let s =
            cx.b.get_insert_block()
                .and_then(|bb| bb.get_last_instruction())
                .ok_or("streaming store not emitted")?;
        // `!nontemporal` takes one `i32 1` operand.
        let one = cx.ctx.i32_type().const_int(1, false);
        s.set_metadata(cx.ctx.metadata_node(&[one.into()]), c_kind("nontemporal"))
            .map_err(|e| format!("{e:?}"))?;
        br(join)?;
        cx.b.position_at_end(plain);
        cx.store(p0, x, super::align_of(align, mem_ty(self.f.ty(value))))?;
        br(join)?;
        cx.b.position_at_end(join);
        Ok(())
    }
}
