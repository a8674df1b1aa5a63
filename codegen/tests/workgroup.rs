//! Work-group kernels (`tests/kernels/workgroup` and the corpus kernels
//! with barriers, `__local` memory or atomics), compiled for every target
//! this machine runs and executed through the JIT under work-group shapes
//! that matter for barriers: one SIMD group per work-group, several, a
//! work-group size that is not a multiple of W, a last work-group that is
//! smaller, and the whole NDRange in one work-group. Compared with the
//! scalar reference interpreter (which also checks the launch for data
//! races and barrier divergence; launches it rejects are skipped).

mod common;

use common::*;
use lanes_vectorizer::interp::NdRange;

/// Kernels whose results depend on the order in which work-items run
/// (linear probing with `atom_cmpxchg`): checked against a host reference
/// in tests/kernels/workgroup/references.py instead.
const SCHEDULE_DEPENDENT: &[&str] = &["claim_slots"];

fn shapes(dims: u32, w: u64) -> Vec<NdRange> {
    let r = |g, l| nd_range(dims, g, l);
    match dims {
        1 => vec![
            r([4 * w, 1, 1], [w, 1, 1]),
            r([8 * w, 1, 1], [4 * w, 1, 1]),
            r([64, 1, 1], [64, 1, 1]),
            r([3 * (w + 3), 1, 1], [w + 3, 1, 1]),
            r([3 * w + 5, 1, 1], [2 * w, 1, 1]),
            NdRange {
                global_offset: [3, 0, 0],
                ..r([4 * w, 1, 1], [2 * w, 1, 1])
            },
        ],
        2 => vec![
            r([2 * w, 4, 1], [w, 2, 1]),
            r([16, 16, 1], [16, 16, 1]),
            r([2 * w, 8, 1], [2 * w, 4, 1]),
            r([w + 3, 6, 1], [w + 3, 3, 1]),
            // Rows with more SIMD groups than the work-group has rows:
            // loop-free kernels walk them row by row (`Longer`).
            r([8 * w, 4, 1], [4 * w, 2, 1]),
            r([2 * (3 * w + 2), 2, 1], [3 * w + 2, 2, 1]),
        ],
        _ => vec![r([w, 4, 2], [w, 2, 2]), r([2 * w, 2, 2], [w, 2, 2])],
    }
}

fn work_group(target: &str, opt_level: u8) {
    let width = lanes_codegen::target_spec(target).unwrap().width;
    let select = |unit: &lanes_frontend::hir::Unit, k| {
        let name = unit.function(k).name.as_str();
        lanes_vectorizer::report::analyze_kernel(unit, k, width)
            .is_ok_and(|ka| ka.func.uses_work_group_features())
            && !SCHEDULE_DEPENDENT.contains(&name)
    };
    let mut units = corpus_of(&["tests/kernels/workgroup"]);
    units.extend(corpus());
    if let Some(kernels) = compare_corpus(target, opt_level, units, &select, &shapes) {
        assert!(
            kernels >= 30,
            "only {kernels} work-group kernels were compared"
        );
    }
}

#[test]
fn sse4_x4() {
    work_group("sse4-i32x4", 2);
}

#[test]
fn avx2_x8() {
    work_group("avx2-i32x8", 2);
}

#[test]
fn avx512_x16() {
    work_group("avx512skx-x16", 2);
}

#[test]
fn avx2_x8_unoptimized() {
    work_group("avx2-i32x8", 0);
}

/// `__local` memory belongs to one work-group, which runs on one thread:
/// its atomics are plain read-modify-writes in lane order (no `lock`
/// prefix), while `__global` atomics stay atomic instructions.
#[test]
fn local_atomics_take_no_lock() {
    let histogram = include_str!("../../bench/kernels/histogram.cl");
    let (_, asm) = emit_avx2("histogram.cl", histogram, 2);
    assert!(asm.contains("incl\t("), "no increment in memory:\n{asm}");
    let locked = |asm: &str| asm.lines().any(|l| l.trim_start().starts_with("lock"));
    assert!(!locked(&asm), "a `lock` on `__local` atomics:\n{asm}");
    let global = "__kernel void global_hist(__global const uint *data, __global uint *bins)\n\
                  { atomic_inc(&bins[data[get_global_id(0)] & 255u]); }\n";
    let (_, asm) = emit_avx2("global_hist.cl", global, 2);
    assert!(locked(&asm), "`__global` atomics without `lock`:\n{asm}");
}

/// The loops that run row by row (a barrier in the latch of a loop that
/// steps by the local size, docs/codegen.md "Row order"): histogram and
/// `histogram_rows.cl` (4 bins, so lanes of one SIMD group hit the same bin)
/// on every target this machine runs, widths 4, 8 and 16, against the
/// interpreter under the work-group shapes above.
#[test]
fn row_order_loops_on_every_target() {
    let keep = |units: Vec<(std::path::PathBuf, lanes_frontend::unit::CheckedUnit)>, file: &str| {
        units
            .into_iter()
            .filter(|(p, _)| p.file_name().is_some_and(|n| n == file))
            .collect::<Vec<_>>()
    };
    for target in TEST_TARGETS {
        for opt_level in [0, 2] {
            let mut units = keep(corpus_of(&["tests/kernels/workgroup"]), "histogram_rows.cl");
            units.extend(keep(corpus_of(&["bench/kernels"]), "histogram.cl"));
            if let Some(kernels) = compare_corpus(target, opt_level, units, &|_, _| true, &shapes) {
                assert_eq!(kernels, 3, "{target}: histogram256, count_rows, sum_rows");
            }
        }
    }
}

/// Values the same in every SIMD group (histogram's row-order loop counter,
/// `lsize`, the group id) are kept once per work-group in two objects of
/// the `_groups` frame, which LLVM turns into registers once the bodies are
/// inlined: none is left in memory (docs/codegen.md, "Values kept once per
/// work-group").
#[test]
fn shared_values_live_in_registers() {
    let histogram = include_str!("../../bench/kernels/histogram.cl");
    let frame_objects = |ll: &str| {
        ll.lines()
            .filter(|l| l.contains("alloca") && (l.contains("%shared") || l.contains("%work")))
            .count()
    };
    let (ll, _) = emit_avx2("histogram.cl", histogram, 2);
    assert_eq!(frame_objects(&ll), 0, "shared slots left in memory:\n{ll}");
    let (ll, _) = emit_avx2("histogram.cl", histogram, 0);
    assert_eq!(frame_objects(&ll), 2, "no shared slots at -O0:\n{ll}");
}

/// A scattered `__local` increment through a 32-bit index
/// (`&bins[data[i] & 0xffu]`) takes each lane's index (`movzbl` of its
/// element, `lane_loads.rs`; else `vmovd`/`vpextrd`) into a scaled address (`incl (base,idx,4)`), not a vector of 64-bit
/// addresses widened, shifted and extracted lane by lane.
#[test]
fn local_increments_take_32_bit_lane_indices() {
    let histogram = include_str!("../../bench/kernels/histogram.cl");
    let asm = groups_asm_avx2("histogram.cl", histogram, "histogram256");
    let incs: Vec<&str> = asm
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("incl\t("))
        .collect();
    let scaled = incs.iter().filter(|l| l.ends_with(",4)")).count();
    assert!(scaled >= 8, "fewer than 8 scaled increments:\n{asm}");
    // Every increment indexes the bins (`(base,idx)` or `(base,idx,4)`):
    // none through a whole 64-bit address taken from a vector.
    assert!(
        incs.iter().all(|l| l.contains(',')),
        "an increment through a 64-bit lane address:\n{asm}"
    );
    for l in innermost_loops_with(&asm, "incl") {
        assert!(
            !l.iter()
                .any(|x| x.starts_with("vpextrq") || x.starts_with("vpmovzxdq")),
            "64-bit lane addresses:\n{}",
            l.join("\n")
        );
    }
}

/// The uniform `k < ITEMS` test of histogram's row-order loop (a barrier
/// in each iteration) is taken out of the region loop over SIMD groups
/// (`simple-loop-unswitch<nontrivial>` on kernels with barriers): the
/// loop of whole SIMD groups with the increments compares nothing with 32
/// and sets no next state; before, each SIMD group's run tested `k` and
/// moved the state (`movl $2`, `movl $3`), 5 of its 33 instructions.
#[test]
fn uniform_tests_leave_the_simd_group_loop() {
    let histogram = include_str!("../../bench/kernels/histogram.cl");
    let asm = groups_asm_avx2("histogram.cl", histogram, "histogram256");
    // The loop of whole SIMD groups: its increments are not tested lane by
    // lane (`cmpb $0, ..` on a spilled mask, as in a partial group's).
    let loops: Vec<_> = innermost_loops_with(&asm, "incl")
        .into_iter()
        .filter(|l| !l.iter().any(|x| x.starts_with("cmpb\t$0,")))
        .collect();
    assert!(!loops.is_empty(), "no loop of whole SIMD groups:\n{asm}");
    for l in loops {
        assert!(
            !l.iter().any(|x| x.contains("$32,")
                || x.starts_with("movl\t$2,")
                || x.starts_with("movl\t$3,")),
            "the uniform test or the next state in the SIMD-group loop:\n{}",
            l.join("\n")
        );
    }
}

/// In a body with barriers the first region (no barrier before it) widens
/// its `int` indices to 64 bits as a body without barriers does: the
/// addresses of reduction's `in[i]` and `in[i + GROUP_SIZE]` are lane 0's
/// scalar index, not lane 0 moved out of a vector of indices (`vmovd
/// %xmm, %r32`, three per SIMD group before). The loop is the one that
/// tests the fast path's `i + 256 < n` on lane 7's index (`leaq 7(..)`,
/// `emit/lane_range.rs`), which only region 0 has; before, it was a 64-bit
/// vector compare (`vpmovsxdq`, `vpcmpgtq`, `vpackssdw`, `vmovmskps`),
/// since `i` is `(int)` of a 64-bit sum, and `i < n` a `vpcmpgtd` and
/// `vptest`.
#[test]
fn first_region_indices_are_widened_scalars() {
    let reduction = include_str!("../../bench/kernels/reduction.cl");
    let src = specialized_w8("reduction.cl", reduction, "reduce_sum");
    let asm = groups_asm_avx2("reduction.cl", &src, "reduce_sum");
    let loops: Vec<_> = innermost_loops_with(&asm, "leaq\t7(");
    assert!(!loops.is_empty(), "no loop with the fast path:\n{asm}");
    for l in loops {
        for bad in ["vpcmpgtq", "vpmovsxdq", "vpackssdw", "vptest", "vtestps"] {
            assert!(
                l.iter().all(|x| !x.starts_with(bad)),
                "`{bad}` in the first region's loop:\n{}",
                l.join("\n")
            );
        }
        let moved: Vec<&&str> = l
            .iter()
            .filter(|x| x.starts_with("vmovd\t%xmm") && !x.contains('('))
            .collect();
        assert!(
            moved.is_empty(),
            "lane 0 moved out of a vector: {moved:?}\n{}",
            l.join("\n")
        );
    }
}
