//! Kernels with `reqd_work_group_size`, whose work-group geometry is
//! compiled in: required sizes of one SIMD group, of one partial SIMD
//! group, of several with a partial one per row, in one and two
//! dimensions, each launched with the required size (several work-groups,
//! the whole range in one, a smaller last work-group, the local size left
//! to lanes) and compared with the interpreter; launches with any other
//! local size must return -3 without touching memory.

mod common;

use common::*;
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_vectorizer::interp::NdRange;

/// A tile in `__local` memory read across a barrier, a `__local` atomic
/// counter and a work-group reduction; every value of the first half is
/// live across the barriers.
const TILES: &str = r#"
#ifndef LX
#define LX 8
#endif
#ifndef LY
#define LY 1
#endif
__kernel __attribute__((reqd_work_group_size(LX, LY, 1)))
void tiles(__global const int *in, __global int *out)
{
    __local int tile[LY][LX];
    __local int hits;
    int x = get_local_id(0);
    int y = get_local_id(1);
    int gid = get_global_id(1) * get_global_size(0) + get_global_id(0);
    int v = in[gid];
    if (x == 0 && y == 0)
        hits = 0;
    tile[y][x] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    int left = x > 0 ? tile[y][x - 1] : 0;
    int up = y > 0 ? tile[y - 1][x] : 0;
    if (left > up)
        atomic_inc(&hits);
    int total = work_group_reduce_add(v);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = total + 3 * left - up + 5 * hits + v * (int)get_local_size(0);
}
"#;

fn check(target: &str, src: &str, defines: &[(&str, u64)]) -> usize {
    let spec = lanes_codegen::target_spec(target).unwrap();
    if !lanes_codegen::host_can_run(&spec) {
        eprintln!("SKIPPED: this machine cannot run {target}");
        return 0;
    }
    let opts = PreprocessOptions {
        defines: defines
            .iter()
            .map(|(n, v)| (n.to_string(), Some(v.to_string())))
            .collect(),
        ..Default::default()
    };
    let unit = lanes_frontend::unit::check_text("reqd.cl", None, src, &opts, &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics);
    let kid = unit.hir.kernels()[0];
    let what = format!("{defines:?} [{target}]");
    // Local sizes other than the required one (and the stock launches,
    // which mostly differ too).
    let others = |dims: u32, w: u64| -> Vec<NdRange> {
        let mut v = launches(dims, w);
        let lx = defines[0].1;
        v.push(nd_range(2, [2 * (lx + 1), 2, 1], [lx + 1, 1, 1]));
        v.push(nd_range(3, [lx, 1, 2], [lx, 1, 2]));
        v
    };
    let o = check_kernel_with(
        &unit.hir,
        kid,
        &spec,
        &lanes_codegen::Options::default(),
        &what,
        &others,
    );
    assert!(o.not_run.is_none(), "{what}: {:?}", o.not_run);
    assert!(o.failures.is_empty(), "{}", o.failures.join("\n"));
    assert!(o.refused >= 2, "{what}: {} launches refused", o.refused);
    assert!(
        o.compared >= 4,
        "{what}: {} launches compared ({:?})",
        o.compared,
        o.skipped
    );
    o.compared
}

fn sizes(target: &str) {
    let Ok(spec) = lanes_codegen::target_spec(target) else {
        return;
    };
    let w = spec.width as u64;
    for (lx, ly) in [
        (w, 1),         // one SIMD group
        (w - 3, 1),     // one partial SIMD group
        (3 * w + 5, 1), // several, the last of the row partial
        (2 * w, 1),
        (w, 3), // one SIMD group per row
        (w + 3, 2),
    ] {
        check(target, TILES, &[("LX", lx), ("LY", ly)]);
    }
    let running_max =
        std::fs::read_to_string(root().join("tests/kernels/workgroup/reqd_work_group_size.cl"))
            .unwrap();
    for block in [w, w / 2, 4 * w, 64] {
        check(target, &running_max, &[("BLOCK_SIZE", block)]);
    }
}

#[test]
fn sse4_x4() {
    sizes("sse4-i32x4");
}

#[test]
fn avx2_x8() {
    sizes("avx2-i32x8");
}

#[test]
fn avx512_x16() {
    sizes("avx512skx-x16");
}

/// A required size of one SIMD group keeps nothing in memory across the
/// barriers: `k_groups` runs the straight body, whose values stay in
/// registers, and its work-group memory is a fixed object of the frame
/// holding only the `__local` variables (64 bytes: the tile and the
/// counter) and the collective's scratch slot (64 bytes).
#[test]
fn one_simd_group_keeps_values_in_registers() {
    let (ir, _) = emit_avx2("tiles.cl", TILES, 2);
    let groups = function(&ir, "tiles_groups");
    assert!(!groups.contains("aligned_alloc"), "{groups}");
    assert_eq!(work_group_bytes(groups), 128, "{groups}");
    // Three SIMD groups: a save area for each.
    let several = TILES.replace("#define LX 8", "#define LX 24");
    let (ir, _) = emit_avx2("tiles.cl", &several, 2);
    let groups = function(&ir, "tiles_groups");
    assert!(!groups.contains("aligned_alloc"), "{groups}");
    assert!(work_group_bytes(groups) >= 128 + 3 * 64, "{groups}");
}

/// The size of the fixed work-group memory object of `k_groups`.
fn work_group_bytes(f: &str) -> u64 {
    let at = f.find("%wg = alloca [").expect("a fixed work-group object") + 14;
    f[at..].split(' ').next().unwrap().parse().unwrap()
}

/// The text of LLVM function `name` in `ir`.
fn function<'a>(ir: &'a str, name: &str) -> &'a str {
    let start = ir
        .find(&format!("@{name}("))
        .unwrap_or_else(|| panic!("no function {name}"));
    let end = ir[start..].find("\n}\n").map_or(ir.len(), |e| start + e);
    &ir[start..end]
}
