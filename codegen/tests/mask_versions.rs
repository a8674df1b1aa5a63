//! Bodies with barriers on the emitted code (AVX2, 8 lanes; and stores in
//! bodies without barriers, `border_stores_…`): a guarded
//! block whose mask may be empty runs in three versions chosen by the
//! mask's bits (`codegen/src/emit/mask_versions.rs`): SIMD groups with no
//! active lane skip it, whole ones run it without masks, the others
//! masked (a block whose mask cannot be empty: the last two); and each
//! state's pass loop holds only its region (`abi.rs`).
//! Results under work-group sizes of one SIMD group, several, not a
//! multiple of W and the whole range are compared with the interpreter in
//! workgroup.rs; guard pages in guard_pages.rs (`tree_sum`).

mod common;

/// The SDK's reduction with sequential addressing.
const REDUCE: &str = include_str!("../../bench/kernels/reduction.cl");

/// The LLVM blocks of `ir`: label to the lines up to the next label.
fn blocks(ir: &str) -> std::collections::HashMap<String, Vec<&str>> {
    let mut out = std::collections::HashMap::new();
    let mut cur: Option<String> = None;
    for l in ir.lines() {
        if let Some(label) = l.split_once(':').filter(|_| !l.starts_with(' ')) {
            if !label.0.contains(' ') && !label.0.is_empty() {
                cur = Some(label.0.to_string());
                out.insert(label.0.to_string(), Vec::new());
                continue;
            }
        }
        if l.trim().is_empty() || l.starts_with('}') {
            cur = None;
        }
        if let Some(c) = &cur {
            if let Some(v) = out.get_mut(c) {
                v.push(l)
            }
        }
    }
    out
}

/// `(default, case 0, case all-ones)` of every `switch i8` on mask bits.
fn mask_switches(ir: &str) -> Vec<(String, String, String)> {
    let lines: Vec<&str> = ir.lines().collect();
    let label = |s: &str| {
        s.split("label %")
            .nth(1)
            .map(|x| x.trim_end_matches([' ', '[', ',']).to_string())
    };
    let mut out = Vec::new();
    for (k, l) in lines.iter().enumerate() {
        if !l.trim_start().starts_with("switch i8 ") {
            continue;
        }
        let (Some(d), Some(z), Some(a)) = (
            label(l),
            lines
                .get(k + 1)
                .filter(|c| c.contains("i8 0,"))
                .and_then(|c| label(c)),
            lines
                .get(k + 2)
                .filter(|c| c.contains("i8 -1,"))
                .and_then(|c| label(c)),
        ) else {
            continue;
        };
        out.push((d, z, a));
    }
    out
}

#[test]
fn tree_step_skips_empty_groups_and_unmasks_whole_ones() {
    let (ir, _) = common::emit_avx2("reduce.cl", REDUCE, 2);
    let bb = blocks(&ir);
    let step = mask_switches(&ir).into_iter().find(|(some, _, all)| {
        let has = |b: &str, pat: &str| bb.get(b).is_some_and(|v| v.iter().any(|l| l.contains(pat)));
        has(some, "@llvm.masked.store.v8f32") && has(all, "store <8 x float>")
    });
    let Some((_, none, all)) = step else {
        panic!("no three-way mask switch around the tree step:\n{ir}");
    };
    let all_lines = &bb[&all];
    assert!(
        all_lines.iter().all(|l| !l.contains("@llvm.masked")),
        "the all-active version of the tree step masks:\n{}",
        all_lines.join("\n")
    );
    let none_lines = bb.get(&none).cloned().unwrap_or_default();
    assert!(
        none_lines
            .iter()
            .all(|l| !l.contains("store ") && !l.contains("@llvm.masked")),
        "SIMD groups with no active lane still access memory:\n{}",
        none_lines.join("\n")
    );
}

/// bench/kernels/sobel.cl: border pixels store 0 and return, in a block
/// whose mask may be empty (most SIMD groups have no border pixel). Without
/// barriers too it runs in the mask versions: SIMD groups with no border
/// lane skip the store. A `vmaskmov` store with an empty mask right after a
/// streaming store to the same line made sobel 70 times slower on AMD
/// (bench/RESULTS.md, 2026-11-28).
#[test]
fn border_stores_skip_groups_with_no_active_lane_without_barriers() {
    let sobel = include_str!("../../bench/kernels/sobel.cl");
    let (ir, _) = common::emit_avx2("sobel.cl", sobel, 2);
    let bb = blocks(&ir);
    let has = |b: &str, pat: &str| bb.get(b).is_some_and(|v| v.iter().any(|l| l.contains(pat)));
    let border = mask_switches(&ir).into_iter().find(|(some, _, all)| {
        has(
            some,
            "@llvm.masked.store.v8f32.p0(<8 x float> zeroinitializer",
        ) && has(all, "store <8 x float> zeroinitializer")
    });
    let Some((_, none, _)) = border else {
        panic!("no three-way mask switch around the border store:\n{ir}");
    };
    assert!(
        !has(&none, "@llvm.masked.store"),
        "SIMD groups with no border lane store with a mask:\n{}",
        bb.get(&none).cloned().unwrap_or_default().join("\n")
    );
}

/// The NVIDIA SDK's transpose through a `__local` tile.
const TRANSPOSE: &str = include_str!("../../bench/kernels/transpose.cl");

/// `(otherwise, all lanes)` of every two-way choice on mask bits with no
/// case for the empty mask: LLVM turns the one-case `switch i8` into `br
/// i1 (icmp eq i8 bits, -1)`.
fn two_way_mask_branches(ir: &str) -> Vec<(String, String)> {
    let mut all_ones = std::collections::HashSet::new();
    let mut out = Vec::new();
    for l in ir.lines().map(str::trim) {
        if let Some((name, rest)) = l.split_once(" = icmp eq i8 ") {
            if rest.ends_with(", -1") {
                all_ones.insert(name.to_string());
            }
        }
        let Some(rest) = l.strip_prefix("br i1 ") else {
            continue;
        };
        let parts: Vec<&str> = rest.split(", label %").collect();
        if let [cond, all, some] = parts[..] {
            if all_ones.contains(cond) {
                out.push((some.to_string(), all.to_string()));
            }
        }
    }
    out
}

/// The bounds checks around transpose's tile (`if (x < width && y <
/// height)`) sit behind the vectorizer's `sub_group.any` branch, so their
/// mask is never empty: two versions, and SIMD groups whose lanes are all
/// in bounds load and store without `vmaskmov`.
#[test]
fn bounds_checked_tile_accesses_are_plain_in_whole_groups() {
    let (ir, _) = common::emit_avx2("transpose.cl", TRANSPOSE, 2);
    let bb = blocks(&ir);
    let has = |b: &str, pat: &str| bb.get(b).is_some_and(|v| v.iter().any(|l| l.contains(pat)));
    let versions: Vec<_> = two_way_mask_branches(&ir)
        .into_iter()
        .filter(|(some, all)| has(some, "@llvm.masked.") && !has(all, "@llvm.masked."))
        .collect();
    assert!(
        versions.iter().any(|(_, all)| has(all, "load <8 x float>")),
        "no unmasked version of the tile's load:\n{ir}"
    );
    assert!(
        versions
            .iter()
            .any(|(_, all)| has(all, "store <8 x float>")),
        "no unmasked version of the output's store:\n{ir}"
    );
}

#[test]
fn pass_loops_resume_with_a_constant_state() {
    // -O0: no optimization pipeline, only the bodies inlined.
    let (ir, _) = common::emit_avx2("reduce.cl", REDUCE, 0);
    let groups = ir
        .split("define ")
        .find(|f| f.contains("@reduce_sum_groups("))
        .expect("reduce_sum_groups");
    let switches: Vec<&str> = groups
        .lines()
        .filter(|l| l.trim_start().starts_with("switch i32 "))
        .collect();
    // One switch picks the pass loop of the state (0: start, 1: the first
    // barrier, 2: the loop's barrier); inside the loops the bodies' own
    // switch on the state folded away, the state being a constant there.
    // The pass loops are there twice: for work-groups one item tall and
    // deep (the rows as constants) and for the others.
    assert_eq!(switches.len(), 2, "{groups}");
    let pass = groups
        .split("\npass:")
        .nth(1)
        .expect("a pass block")
        .split("\n\n")
        .next()
        .unwrap_or_default();
    for k in 1..3 {
        assert!(
            pass.contains(&format!("i32 {k}, label %pass.{k}")),
            "state {k}:\n{pass}"
        );
    }
}
