//! Splats built where they are used, when their users exclude each other.
//!
//! The body of a SIMD group builds the lane vector of `(int)get_global_id(0)`
//! (a splat of lane 0's value plus the lane numbers) at each use, and only
//! the masked slow paths use it; the all-active path reads lane 0. LLVM's
//! pipeline merges the splats of the two slow paths into one in their common
//! dominator, the head of the loop over SIMD groups, so the all-active path
//! ran a `vmovd` and a `vpbroadcastd` it never reads (jacobi_2d: 2 of the 23
//! instructions of its iteration; docs/codegen.md). The back end sinks an
//! instruction into one successor, never a copy into each of several.
//!
//! Here, after the pipeline, a splat (`insertelement` into lane 0 and a
//! `shufflevector` with an all-zero mask) whose users are in other blocks
//! than its own is built again in each block that uses it, when that costs
//! no path anything: no block that uses it reaches itself or another such
//! block without passing through the splat's block again (so each run of
//! that block is followed by at most one copy, and a path through none of
//! them builds none), and no user is a φ.

use std::collections::{HashMap, HashSet};

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMOpcode;

type R<T> = Result<T, String>;

/// Sinks the splats of every function of `module`.
pub fn sink_splats(module: &inkwell::module::Module<'_>) -> R<()> {
    for f in module.get_functions() {
        if f.count_basic_blocks() > 0 {
            unsafe { sink_in(inkwell::values::AsValueRef::as_value_ref(&f))? };
        }
    }
    Ok(())
}

fn opcode(v: LLVMValueRef) -> Option<LLVMOpcode> {
    unsafe {
        if c::LLVMIsAInstruction(v).is_null() {
            None
        } else {
            Some(c::LLVMGetInstructionOpcode(v))
        }
    }
}

/// `(insertelement, scalar)` when `v` is `shufflevector (insertelement _, s,
/// 0), _, zeroinitializer` and the `insertelement` has no other user.
unsafe fn splat_parts(v: LLVMValueRef) -> Option<(LLVMValueRef, LLVMValueRef)> {
    if opcode(v) != Some(LLVMOpcode::LLVMShuffleVector) {
        return None;
    }
    let n = c::LLVMGetNumMaskElements(v);
    if n == 0 || (0..n).any(|i| c::LLVMGetMaskValue(v, i) != 0) {
        return None;
    }
    let ins = c::LLVMGetOperand(v, 0);
    if opcode(ins) != Some(LLVMOpcode::LLVMInsertElement) {
        return None;
    }
    let idx = c::LLVMGetOperand(ins, 2);
    if c::LLVMIsAConstantInt(idx).is_null() || c::LLVMConstIntGetZExtValue(idx) != 0 {
        return None;
    }
    let only_user = {
        let u = c::LLVMGetFirstUse(ins);
        !u.is_null() && c::LLVMGetNextUse(u).is_null()
    };
    if !only_user {
        return None;
    }
    Some((ins, c::LLVMGetOperand(ins, 1)))
}

fn successors(b: LLVMBasicBlockRef) -> Vec<LLVMBasicBlockRef> {
    unsafe {
        let t = c::LLVMGetBasicBlockTerminator(b);
        if t.is_null() {
            return Vec::new();
        }
        (0..c::LLVMGetNumSuccessors(t))
            .map(|i| c::LLVMGetSuccessor(t, i))
            .collect()
    }
}

/// Blocks reachable from `from`'s successors without entering `stop`.
fn reach_avoiding(
    from: LLVMBasicBlockRef,
    stop: LLVMBasicBlockRef,
    succ: &HashMap<LLVMBasicBlockRef, Vec<LLVMBasicBlockRef>>,
) -> HashSet<LLVMBasicBlockRef> {
    let mut seen = HashSet::new();
    let mut work: Vec<_> = succ.get(&from).cloned().unwrap_or_default();
    while let Some(b) = work.pop() {
        if b == stop || !seen.insert(b) {
            continue;
        }
        work.extend(succ.get(&b).into_iter().flatten().copied());
    }
    seen
}

unsafe fn sink_in(f: LLVMValueRef) -> R<()> {
    let mut succ = HashMap::new();
    let mut splats = Vec::new();
    let mut b = c::LLVMGetFirstBasicBlock(f);
    while !b.is_null() {
        succ.insert(b, successors(b));
        let mut i = c::LLVMGetFirstInstruction(b);
        while !i.is_null() {
            if splat_parts(i).is_some() {
                splats.push(i);
            }
            i = c::LLVMGetNextInstruction(i);
        }
        b = c::LLVMGetNextBasicBlock(b);
    }
    let builder = c::LLVMCreateBuilderInContext(c::LLVMGetTypeContext(c::LLVMTypeOf(f)));
    for s in splats {
        sink_one(s, &succ, builder)?;
    }
    c::LLVMDisposeBuilder(builder);
    Ok(())
}

unsafe fn sink_one(
    s: LLVMValueRef,
    succ: &HashMap<LLVMBasicBlockRef, Vec<LLVMBasicBlockRef>>,
    builder: inkwell::llvm_sys::prelude::LLVMBuilderRef,
) -> R<()> {
    let Some((ins, scalar)) = splat_parts(s) else {
        return Ok(());
    };
    let home = c::LLVMGetInstructionParent(s);
    // The users, by block, in order of appearance.
    let mut blocks: Vec<LLVMBasicBlockRef> = Vec::new();
    let mut u = c::LLVMGetFirstUse(s);
    while !u.is_null() {
        let user = c::LLVMGetUser(u);
        if opcode(user).is_none() || opcode(user) == Some(LLVMOpcode::LLVMPHI) {
            return Ok(());
        }
        let ub = c::LLVMGetInstructionParent(user);
        if ub == home {
            return Ok(());
        }
        if !blocks.contains(&ub) {
            blocks.push(ub);
        }
        u = c::LLVMGetNextUse(u);
    }
    if blocks.len() < 2 {
        return Ok(());
    }
    for &ub in &blocks {
        let r = reach_avoiding(ub, home, succ);
        if r.contains(&ub) || blocks.iter().any(|o| *o != ub && r.contains(o)) {
            return Ok(());
        }
    }
    let ty = c::LLVMTypeOf(s);
    let ctx = c::LLVMGetTypeContext(ty);
    let poison = c::LLVMGetPoison(c::LLVMTypeOf(ins));
    for &ub in &blocks {
        // Before the block's first user of the splat.
        let mut first = c::LLVMGetFirstInstruction(ub);
        'find: while !first.is_null() {
            for k in 0..c::LLVMGetNumOperands(first) {
                if c::LLVMGetOperand(first, k as u32) == s {
                    break 'find;
                }
            }
            first = c::LLVMGetNextInstruction(first);
        }
        if first.is_null() {
            return Err("sinking a splat: a user block without its user".into());
        }
        c::LLVMPositionBuilderBefore(builder, first);
        let zero = c::LLVMConstInt(c::LLVMInt64TypeInContext(ctx), 0, 0);
        let one = c::LLVMBuildInsertElement(builder, poison, scalar, zero, c"".as_ptr());
        let mask = c::LLVMConstNull(c::LLVMVectorType(
            c::LLVMInt32TypeInContext(ctx),
            c::LLVMGetNumMaskElements(s),
        ));
        let copy = c::LLVMBuildShuffleVector(builder, one, poison, mask, c"".as_ptr());
        // Every use of `s` in this block.
        let mut i = first;
        while !i.is_null() {
            for k in 0..c::LLVMGetNumOperands(i) {
                if c::LLVMGetOperand(i, k as u32) == s {
                    c::LLVMSetOperand(i, k as u32, copy);
                }
            }
            i = c::LLVMGetNextInstruction(i);
        }
    }
    if c::LLVMGetFirstUse(s).is_null() {
        c::LLVMInstructionEraseFromParent(s);
        c::LLVMInstructionEraseFromParent(ins);
    }
    Ok(())
}
