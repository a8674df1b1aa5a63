//! Rows walked by each lane: transposed tiles instead of gathers.
//!
//! PolyBench's matrix-vector kernels (mvt, atax, bicg, gesummv, gemver)
//! give each work-item a row: `for (j = 0; j < n; j++) x[i] += a[i * n +
//! j] * y[j]`. Across a SIMD group the lanes read W rows side by side, `n`
//! elements apart, so the load is a gather of W cache lines in every
//! iteration, while each lane reads its own row contiguously. In a loop
//! whose counter `j` rises by one, every W iterations the code loads W
//! consecutive elements of each lane's row (W vector loads), transposes
//! the W x W tile in registers and keeps it in a stack buffer; iteration
//! `j` reads column `j - j0` of it. bench/experiments/mvt has the C model:
//! 2048 x 2048, cold caches, one thread: gather 2.86 ms, tile 1.02 ms
//! (gcc's scalar loop 1.94).
//!
//! The tile reads elements of iterations the loop has not reached yet, so
//! only loads that `lanes_vectorizer::rows::row_walk` accepts (the same
//! decision the report makes; its module comment has the conditions) take
//! tiles, and only in SIMD groups whose mask is the constant all-true. A
//! fill runs at `j` when the loop's bound leaves the W iterations it serves
//! (`j + c + W - 1 < n`) and the tile's bytes, from the lowest lane's
//! element to the highest's plus W elements, do not overlap what the loop's
//! stores write; otherwise the gather runs.
//!
//! The tile's state (the `j` it starts at and whether it holds anything)
//! is cleared in the loop's preheader, so each entry of the loop starts
//! without one.

use std::collections::HashMap;

use inkwell::llvm_sys::LLVMIntPredicate as IP;
use inkwell::llvm_sys::LLVMOpcode as Op;
use inkwell::values::{BasicValue, BasicValueEnum};

use lanes_vectorizer::cfg::Cfg;
use lanes_vectorizer::ir::{BlockId, InstKind, Ty, ValueId};
use lanes_vectorizer::rows::{row_walk, RowWalk};
use lanes_vectorizer::shape::affine::affine;
use lanes_vectorizer::vectorize::VectorFunction;

use super::FnGen;
use crate::ll::R;

/// A row load: its block and its walk.
#[derive(Clone, Debug)]
pub(super) struct RowTile {
    block: BlockId,
    walk: RowWalk,
}

/// The row loads, by address value, and the loads whose tile each
/// preheader clears.
#[derive(Default)]
pub(super) struct Plan {
    tiles: HashMap<ValueId, RowTile>,
    by_preheader: HashMap<BlockId, Vec<ValueId>>,
}

/// A tile's stack objects: W vectors, the counter value of its first
/// column, whether it holds a tile.
#[derive(Clone, Copy)]
pub(super) struct State<'ctx> {
    tile: BasicValueEnum<'ctx>,
    start: BasicValueEnum<'ctx>,
    full: BasicValueEnum<'ctx>,
}

pub(super) type States<'ctx> = HashMap<ValueId, State<'ctx>>;

/// The loads of `vf` that take tiles ([`row_walk`]).
pub(super) fn plan(vf: &VectorFunction, w: u32) -> Plan {
    let f = &vf.func;
    let mut plan = Plan::default();
    let mut cfg = None;
    for inst in &f.insts {
        let InstKind::Load { ptr, .. } = inst.kind else {
            continue;
        };
        if plan.tiles.contains_key(&ptr) || inst.result.is_none_or(|r| vf.is_uniform(r)) {
            continue;
        }
        let cfg = cfg.get_or_insert_with(|| Cfg::compute(f));
        let Some(walk) = row_walk(f, |v| vf.shape(v), cfg, w, (inst.block, ptr, inst.ty)) else {
            continue;
        };
        plan.by_preheader
            .entry(walk.preheader)
            .or_default()
            .push(ptr);
        plan.tiles.insert(
            ptr,
            RowTile {
                block: inst.block,
                walk,
            },
        );
    }
    plan
}

impl<'ctx> FnGen<'_, '_, 'ctx> {
    /// At the end of block `b` (before its terminator): when `b` is the
    /// preheader of row loads, their tiles are made empty.
    pub(super) fn clear_row_tiles(&mut self, b: BlockId) -> R<()> {
        let Some(ptrs) = self.row_tiles.by_preheader.get(&b).cloned() else {
            return Ok(());
        };
        let cx = self.cx;
        let be = |e: inkwell::builder::BuilderError| format!("{e:?}");
        for ptr in ptrs {
            let Some(walk_bytes) = self.row_tiles.tiles.get(&ptr).map(|t| t.walk.elem_bytes) else {
                continue;
            };
            let state = match self.row_tile_states.get(&ptr) {
                Some(s) => *s,
                None => {
                    let here = cx.b.get_insert_block().ok_or("builder not positioned")?;
                    match self.entry.get_terminator() {
                        Some(t) => cx.b.position_before(&t),
                        None => cx.b.position_at_end(self.entry),
                    }
                    let w = self.w();
                    let bytes = w * w * walk_bytes as u32;
                    let tile =
                        cx.b.build_alloca(cx.ctx.i8_type().array_type(bytes), "row.tile")
                            .map_err(be)?;
                    tile.as_instruction()
                        .ok_or("alloca without an instruction")?
                        .set_alignment(64)
                        .map_err(|e| e.to_string())?;
                    let start =
                        cx.b.build_alloca(cx.ctx.i64_type(), "row.tile.start")
                            .map_err(be)?;
                    let full =
                        cx.b.build_alloca(cx.ctx.bool_type(), "row.tile.full")
                            .map_err(be)?;
                    self.restore(here);
                    let s = State {
                        tile: tile.into(),
                        start: start.into(),
                        full: full.into(),
                    };
                    self.row_tile_states.insert(ptr, s);
                    s
                }
            };
            // `start` too: the hit test reads it, and `false & poison` is
            // poison.
            cx.store(state.full, cx.boolc(false), 1)?;
            cx.store(state.start, cx.i64c(0), 8)?;
        }
        Ok(())
    }

    /// The load of `vt` through the lane addresses `ps` in block `b`: from
    /// its tile when `ptr` is a row load and every lane is active (mask
    /// `m` the constant all-true), else `gather`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn by_row_tile(
        &mut self,
        b: BlockId,
        ptr: ValueId,
        ps: BasicValueEnum<'ctx>,
        vt: inkwell::types::BasicTypeEnum<'ctx>,
        align: u32,
        m: BasicValueEnum<'ctx>,
        gather: impl FnOnce(&mut Self) -> R<Option<BasicValueEnum<'ctx>>>,
    ) -> R<Option<BasicValueEnum<'ctx>>> {
        let Some(tile) = self
            .row_tiles
            .tiles
            .get(&ptr)
            .filter(|t| t.block == b)
            .cloned()
        else {
            return gather(self);
        };
        let Some(state) = self.row_tile_states.get(&ptr).copied() else {
            return gather(self);
        };
        let all_active = super::const_int_lanes(m).is_some_and(|l| l.iter().all(|&x| x != 0));
        if !all_active {
            return gather(self);
        }
        let cx = self.cx;
        let be = |e: inkwell::builder::BuilderError| format!("{e:?}");
        let w = self.w() as u64;
        let i64t = cx.ctx.i64_type();
        // A tile row is W elements.
        let row_bytes = tile.walk.elem_bytes * w;
        let sext64 = |this: &mut Self, v: ValueId| -> R<BasicValueEnum<'ctx>> {
            let x = this.get(v, false)?;
            if this.f.ty(v) == Ty::I64 {
                Ok(x)
            } else {
                cx.cast(Op::LLVMSExt, x, i64t.into())
            }
        };
        let j = sext64(self, tile.walk.iv)?;
        let full = cx.load(cx.ctx.bool_type().into(), state.full, 1)?;
        let start = cx.load(i64t.into(), state.start, 8)?;
        let col = cx.binop(Op::LLVMSub, j, start)?;
        let inside = cx.icmp(IP::LLVMIntULT, col, cx.i64c(w))?;
        let hit = cx.binop(Op::LLVMAnd, full, inside)?;
        let hit_bb = cx.ctx.append_basic_block(self.func, "row.tile.hit");
        let miss_bb = cx.ctx.append_basic_block(self.func, "row.tile.miss");
        let fill_bb = cx.ctx.append_basic_block(self.func, "row.tile.fill");
        let gather_bb = cx.ctx.append_basic_block(self.func, "row.tile.gather");
        let join = cx.ctx.append_basic_block(self.func, "row.tile.done");
        cx.b.build_conditional_branch(hit.into_int_value(), hit_bb, miss_bb)
            .map_err(be)?;

        // A column of the tile.
        cx.b.position_at_end(hit_bb);
        let off = cx.binop(Op::LLVMMul, col, cx.i64c(row_bytes))?;
        let p = cx.gep_bytes(state.tile, off)?;
        let column = cx.load(vt, p, (row_bytes as u32).min(64))?;
        cx.b.build_unconditional_branch(join).map_err(be)?;

        // A new tile when its W iterations all run and no store of the
        // loop writes its bytes.
        cx.b.position_at_end(miss_bb);
        let last = cx.binop(
            Op::LLVMAdd,
            j,
            cx.i64c((tile.walk.offset + w as i64 - 1) as u64),
        )?;
        let bound = sext64(self, tile.walk.bound)?;
        let mut ok = cx.icmp(IP::LLVMIntSLT, last, bound)?;
        if !tile.walk.stores.is_empty() {
            let vi64 = i64t.vec_type(w as u32);
            let lanes = cx.cast(Op::LLVMPtrToInt, ps, vi64.into())?;
            let lo = cx.intrinsic("llvm.vector.reduce.umin", &[vi64.into()], &[lanes])?;
            let hi = cx.intrinsic("llvm.vector.reduce.umax", &[vi64.into()], &[lanes])?;
            let hi = cx.binop(Op::LLVMAdd, hi, cx.i64c(row_bytes))?;
            for &(sp, bytes) in &tile.walk.stores {
                let Some((slo, shi)) = self.store_extent(sp)? else {
                    // An address this cannot bound: no tiles.
                    ok = cx.boolc(false);
                    continue;
                };
                let shi = cx.binop(Op::LLVMAdd, shi, cx.i64c(bytes))?;
                let below = cx.icmp(IP::LLVMIntULE, hi, slo)?;
                let above = cx.icmp(IP::LLVMIntULE, shi, lo)?;
                let apart = cx.binop(Op::LLVMOr, below, above)?;
                ok = cx.binop(Op::LLVMAnd, ok, apart)?;
            }
        }
        cx.b.build_conditional_branch(ok.into_int_value(), fill_bb, gather_bb)
            .map_err(be)?;

        cx.b.position_at_end(fill_bb);
        let mut rows = Vec::with_capacity(w as usize);
        for l in 0..w {
            let pl = cx.extract(ps, l)?;
            rows.push(cx.load(vt, pl, align)?);
        }
        let cols = self.transpose(rows)?;
        for (k, c) in cols.iter().enumerate() {
            let p = cx.gep_bytes(state.tile, cx.i64c(k as u64 * row_bytes))?;
            cx.store(p, *c, (row_bytes as u32).min(64))?;
        }
        cx.store(state.start, j, 8)?;
        cx.store(state.full, cx.boolc(true), 1)?;
        let first = cols[0];
        cx.b.build_unconditional_branch(join).map_err(be)?;

        cx.b.position_at_end(gather_bb);
        let gathered = gather(self)?.ok_or("a gather without a value")?;
        let gather_end = cx.b.get_insert_block().ok_or("builder not positioned")?;
        cx.b.build_unconditional_branch(join).map_err(be)?;

        cx.b.position_at_end(join);
        let phi = cx.b.build_phi(vt, "").map_err(be)?;
        phi.add_incoming(&[
            (&column as &dyn BasicValue, hit_bb),
            (&first, fill_bb),
            (&gathered, gather_end),
        ]);
        Ok(Some(phi.as_basic_value()))
    }

    /// The lowest and highest address (`i64`) the lanes store to through
    /// `ptr`, from its affine form over values defined before the loop.
    fn store_extent(
        &mut self,
        ptr: ValueId,
    ) -> R<Option<(BasicValueEnum<'ctx>, BasicValueEnum<'ctx>)>> {
        let cx = self.cx;
        let a = affine(self.f, ptr, 24);
        let i64t = cx.ctx.i64_type();
        let vec = a.terms.keys().any(|&v| self.is_vec(v));
        let vi64 = i64t.vec_type(self.w());
        let mut sum = cx.i64c(a.konst as u64);
        if vec {
            sum = cx.splat(sum)?;
        }
        for (&v, &c) in &a.terms {
            let x = self.get(v, vec)?;
            let x = match self.f.ty(v) {
                Ty::Ptr(_) => {
                    let t = if vec { vi64.into() } else { i64t.into() };
                    cx.cast(Op::LLVMPtrToInt, x, t)?
                }
                Ty::I64 => x,
                t if t.is_int() => {
                    let to = if vec { vi64.into() } else { i64t.into() };
                    cx.cast(Op::LLVMSExt, x, to)?
                }
                _ => return Ok(None),
            };
            let k = if vec {
                cx.splat(cx.i64c(c as u64))?
            } else {
                cx.i64c(c as u64)
            };
            let term = cx.binop(Op::LLVMMul, x, k)?;
            sum = cx.binop(Op::LLVMAdd, sum, term)?;
        }
        if !vec {
            return Ok(Some((sum, sum)));
        }
        let lo = cx.intrinsic("llvm.vector.reduce.umin", &[vi64.into()], &[sum])?;
        let hi = cx.intrinsic("llvm.vector.reduce.umax", &[vi64.into()], &[sum])?;
        Ok(Some((lo, hi)))
    }

    /// The columns of the W x W tile whose rows are `rows`.
    fn transpose(&self, mut rows: Vec<BasicValueEnum<'ctx>>) -> R<Vec<BasicValueEnum<'ctx>>> {
        let w = rows.len() as u32;
        if w == 8 {
            // AVX's network: unpack in 128-bit halves, shuffle pairs,
            // then swap halves (24 shuffles).
            let r = &rows;
            let lo = [0, 8, 1, 9, 4, 12, 5, 13];
            let hi = [2, 10, 3, 11, 6, 14, 7, 15];
            let mut t = Vec::with_capacity(8);
            for k in 0..4 {
                t.push(self.shuffle(r[2 * k], r[2 * k + 1], &lo)?);
                t.push(self.shuffle(r[2 * k], r[2 * k + 1], &hi)?);
            }
            let even = [0, 1, 8, 9, 4, 5, 12, 13];
            let odd = [2, 3, 10, 11, 6, 7, 14, 15];
            // s[0..4] from rows 0-3, s[4..8] from rows 4-7.
            let mut s = Vec::with_capacity(8);
            for base in [0, 4] {
                s.push(self.shuffle(t[base], t[base + 2], &even)?);
                s.push(self.shuffle(t[base], t[base + 2], &odd)?);
                s.push(self.shuffle(t[base + 1], t[base + 3], &even)?);
                s.push(self.shuffle(t[base + 1], t[base + 3], &odd)?);
            }
            let low = [0, 1, 2, 3, 8, 9, 10, 11];
            let high = [4, 5, 6, 7, 12, 13, 14, 15];
            let mut out = Vec::with_capacity(8);
            for k in 0..4 {
                out.push(self.shuffle(s[k], s[k + 4], &low)?);
            }
            for k in 0..4 {
                out.push(self.shuffle(s[k], s[k + 4], &high)?);
            }
            return Ok(out);
        }
        // log2(W) rounds of interleaving row i with row i + W/2.
        let half = w / 2;
        let zip_lo: Vec<u32> = (0..half).flat_map(|i| [i, w + i]).collect();
        let zip_hi: Vec<u32> = (half..w).flat_map(|i| [i, w + i]).collect();
        let mut step = 1;
        while step < w {
            let mut next = Vec::with_capacity(w as usize);
            for i in 0..half as usize {
                next.push(self.shuffle(rows[i], rows[i + half as usize], &zip_lo)?);
                next.push(self.shuffle(rows[i], rows[i + half as usize], &zip_hi)?);
            }
            rows = next;
            step *= 2;
        }
        Ok(rows)
    }
}
