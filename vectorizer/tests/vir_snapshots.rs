//! Snapshots of the vector IR for the thesis's examples (regenerate with
//! `UPDATE_EXPECT=1 cargo test -p lanes-vectorizer --test vir_snapshots`,
//! then read the diff: every change must be explainable).

use expect_test::{expect, Expect};
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_text;
use lanes_vectorizer::report::analyze_kernel;
use lanes_vectorizer::vectorize::{print, vectorize};

fn vir(src: &str, width: u32) -> String {
    let unit = check_text("t.cl", None, src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors());
    let k = *unit.hir.kernels().first().expect("a kernel");
    let ka = analyze_kernel(&unit.hir, k, width).expect("analyses");
    let vf = vectorize(&ka.func, &ka.cfg, &ka.div).expect("vectorizes");
    print(&vf)
}

fn check(src: &str, expect: Expect) {
    expect.assert_eq(&vir(src, 8));
}

/// Thesis fig. 8.1: the uniform `if (p)` stays a branch around the
/// linearized divergent `if`, so nothing runs when `p` is false.
#[test]
fn uniform_branch_kept_around_divergent_one() {
    check(
        r#"
kernel void k(global int *a, int p) {
    int t = get_global_id(0);
    if (p) {
        if (a[t] > 0) a[t] = 1;
        else a[t] = 2;
    }
}
"#,
        expect![[r#"
            ; vector IR of `k`, W = 8
            kernel @k(%0: ptr(global) a : uniform, %1: i32 p : uniform) {
            bb0.entry: ; entry ; mask %24
              %24 = lanes.active i1() : varying
              %3 = get_global_id i64(i32 0) : strided(1)
              %4 = trunc i64 %3 to i32 : strided(1)
              %6 = cmp ne i32 %1, i32 0 : uniform
              br %6, bb1.if.then, bb5.if.end
            bb1.if.then: ; mask %24
              %7 = sext i32 %4 to i64 : strided(1)
              %9 = mul i64 %7, i64 4 : strided(4, align 4)
              %10 = ptradd %0, %9 : strided(4)
              %11 = load i32 %10, align 4 : varying
              %13 = cmp sgt i32 %11, i32 0 : varying
              %32 = select i1 %24, %13, false : varying
              %33 = xor i1 %13, true : varying
              %34 = select i1 %24, %33, false : varying
              br bb3.if.else
            bb2.if.then: ; mask %32, may be empty
              %15 = sext i32 %4 to i64 : strided(1)
              %17 = mul i64 %15, i64 4 : strided(4, align 4)
              %18 = ptradd %0, %17 : strided(4)
              store i32 i32 1, %18, align 4
              br bb4.if.end
            bb3.if.else: ; mask %34, may be empty
              %20 = sext i32 %4 to i64 : strided(1)
              %22 = mul i64 %20, i64 4 : strided(4, align 4)
              %23 = ptradd %0, %22 : strided(4)
              store i32 i32 2, %23, align 4
              br bb2.if.then
            bb4.if.end: ; mask %24
              br bb5.if.end
            bb5.if.end: ; mask %24
              br bb6.exit
            bb6.exit: ; mask %24
              ret
            }
        "#]],
    );
}

/// Thesis §3 `logstar`: a divergent loop with a live-out (`i`), which must
/// be tracked per lane when the lane leaves. `i` is the loop's induction
/// variable, so each lane counts its iterations: `+ 1` on the back edge
/// for the lanes that go round again, no `select` when a lane leaves.
#[test]
fn divergent_loop_with_live_out() {
    check(
        r#"
kernel void logstar(global const float *x, global int *out) {
    int t = get_global_id(0);
    float v = x[t];
    int i = 0;
    while (v > 1.0f) {
        v = log(v);
        i++;
    }
    out[t] = i;
}
"#,
        expect![[r#"
            ; vector IR of `logstar`, W = 8
            kernel @logstar(%0: ptr(global) x : uniform, %1: ptr(global) out : uniform) {
            bb0.entry: ; entry ; mask %25
              %25 = lanes.active i1() : varying
              %3 = get_global_id i64(i32 0) : strided(1)
              %4 = trunc i64 %3 to i32 : strided(1)
              %5 = sext i32 %4 to i64 : strided(1)
              %7 = mul i64 %5, i64 4 : strided(4, align 4)
              %8 = ptradd %0, %7 : strided(4)
              %9 = load f32 %8, align 4 : varying
              %47 = sub_group.any i1(%25) : uniform
              br %47, bb1.while.cond, bb5.loop.dispatch
            bb1.while.cond: ; mask %49
              %49 = phi i1 [bb0.entry: %25], [bb2.while.body: %38] : varying
              %53 = phi f32 [bb0.entry: %9], [bb2.while.body: %14] : varying
              %57 = phi i32 [bb0.entry: i32 0], [bb2.while.body: %46] : varying
              %13 = cmp fogt f32 %53, f32 1.0 : varying
              %38 = select i1 %49, %13, false : varying
              br bb2.while.body
            bb2.while.body: ; mask %38, may be empty
              %14 = log f32(%53) : varying
              %44 = select i32 %38, i32 1, i32 0 : varying
              %46 = add i32 %57, %44 : varying
              %48 = sub_group.any i1(%38) : uniform
              br %48, bb1.while.cond, bb5.loop.dispatch
            bb3.while.end: ; mask %25
              %20 = sext i32 %4 to i64 : strided(1)
              %22 = mul i64 %20, i64 4 : strided(4, align 4)
              %23 = ptradd %1, %22 : strided(4)
              store i32 %58, %23, align 4
              br bb4.exit
            bb4.exit: ; mask %25
              ret
            bb5.loop.dispatch: ; mask %25
              %58 = phi i32 [bb0.entry: i32 0], [bb2.while.body: %46] : varying
              br bb3.while.end
            }
        "#]],
    );
}

/// A user `sub_group_any` guard (BOSCC): the guard is a uniform branch, so
/// the divergent branch inside is skipped when no lane takes it.
#[test]
fn user_any_guard_is_a_uniform_skip() {
    check(
        r#"
kernel void k(global float *a, int n) {
    int t = get_global_id(0);
    float v = a[t];
    if (sub_group_any(v < 0.0f)) {
        if (v < 0.0f) a[t] = -v;
    }
}
"#,
        expect![[r#"
            ; vector IR of `k`, W = 8
            kernel @k(%0: ptr(global) a : uniform, %1: i32 n : uniform) {
            bb0.entry: ; entry ; mask %20
              %20 = lanes.active i1() : varying
              %3 = get_global_id i64(i32 0) : strided(1)
              %4 = trunc i64 %3 to i32 : strided(1)
              %5 = sext i32 %4 to i64 : strided(1)
              %7 = mul i64 %5, i64 4 : strided(4, align 4)
              %8 = ptradd %0, %7 : strided(4)
              %9 = load f32 %8, align 4 : varying
              %11 = cmp folt f32 %9, f32 0.0 : varying
              %12 = sub_group.any i1(%11) : uniform
              br %12, bb1.if.then, bb4.if.end
            bb1.if.then: ; mask %20
              %14 = cmp folt f32 %9, f32 0.0 : varying
              %27 = select i1 %20, %14, false : varying
              br bb2.if.then
            bb2.if.then: ; mask %27, may be empty
              %15 = fneg f32 %9 : varying
              %16 = sext i32 %4 to i64 : strided(1)
              %18 = mul i64 %16, i64 4 : strided(4, align 4)
              %19 = ptradd %0, %18 : strided(4)
              store f32 %15, %19, align 4
              br bb3.if.end
            bb3.if.end: ; mask %20
              br bb4.if.end
            bb4.if.end: ; mask %20
              br bb5.exit
            bb5.exit: ; mask %20
              ret
            }
        "#]],
    );
}

/// Heuristic BOSCC: a divergent `if` guarding enough work (here gathers)
/// gets an `any()` test in front, a uniform branch that skips the body
/// when no lane takes it.
#[test]
fn heuristic_boscc_skips_a_heavy_divergent_branch() {
    check(
        r#"
kernel void k(global float *a, global const int *idx) {
    int t = get_global_id(0);
    float v = a[t];
    if (v > 0.0f) {
        int j = idx[t];
        v = a[j] * a[j + 1] + a[j + 2];
    }
    a[t] = v;
}
"#,
        expect![[r#"
            ; vector IR of `k`, W = 8
            kernel @k(%0: ptr(global) a : uniform, %1: ptr(global) idx : uniform) {
            bb0.entry: ; entry ; mask %45
              %45 = lanes.active i1() : varying
              %3 = get_global_id i64(i32 0) : strided(1)
              %4 = trunc i64 %3 to i32 : strided(1)
              %5 = sext i32 %4 to i64 : strided(1)
              %7 = mul i64 %5, i64 4 : strided(4, align 4)
              %8 = ptradd %0, %7 : strided(4)
              %9 = load f32 %8, align 4 : varying
              %11 = cmp fogt f32 %9, f32 0.0 : varying
              %51 = select i1 %45, %11, false : varying
              %52 = xor i1 %11, true : varying
              %53 = select i1 %45, %52, false : varying
              %57 = select f32 %53, %9, f32 undef : varying
              %60 = sub_group.any i1(%51) : uniform
              br %60, bb4.boscc.branch, bb2.if.end
            bb1.if.then: ; mask %51
              %12 = sext i32 %4 to i64 : strided(1)
              %14 = mul i64 %12, i64 4 : strided(4, align 4)
              %15 = ptradd %1, %14 : strided(4)
              %16 = load i32 %15, align 4 : varying
              %17 = sext i32 %16 to i64 : varying
              %19 = mul i64 %17, i64 4 : varying (align 4)
              %20 = ptradd %0, %19 : varying
              %21 = load f32 %20, align 4 : varying
              %23 = add nsw i32 %16, i32 1 : varying
              %24 = sext i32 %23 to i64 : varying
              %26 = mul i64 %24, i64 4 : varying (align 4)
              %27 = ptradd %0, %26 : varying
              %28 = load f32 %27, align 4 : varying
              %29 = fmul f32 %21, %28 : varying
              %31 = add nsw i32 %16, i32 2 : varying
              %32 = sext i32 %31 to i64 : varying
              %34 = mul i64 %32, i64 4 : varying (align 4)
              %35 = ptradd %0, %34 : varying
              %36 = load f32 %35, align 4 : varying
              %37 = fadd f32 %29, %36 : varying
              %59 = select f32 %51, %37, %57 : varying
              br bb2.if.end
            bb2.if.end: ; mask %45
              %61 = phi f32 [bb0.entry: %57], [bb1.if.then: %59] : varying
              %41 = sext i32 %4 to i64 : strided(1)
              %43 = mul i64 %41, i64 4 : strided(4, align 4)
              %44 = ptradd %0, %43 : strided(4)
              store f32 %61, %44, align 4
              br bb3.exit
            bb3.exit: ; mask %45
              ret
            bb4.boscc.branch: ; mask %45
              br bb1.if.then
            }
        "#]],
    );
}

/// CSR-style rows: each lane walks its own index range, so the loop runs
/// once per lane with the lane's bounds broadcast; its loads are scalar
/// (uniform) streams instead of gathers. Binary search has no per-lane
/// stream and stays a divergent SIMD loop.
#[test]
fn per_lane_stream_loop_is_serialized() {
    let spmv = vir(
        r#"
kernel void spmv(int n, global const int *ptr, global const int *col,
                 global const float *val, global const float *x, global float *y) {
    int r = get_global_id(0);
    if (r >= n) return;
    float dot = 0.0f;
    for (int k = ptr[r]; k < ptr[r + 1]; k++)
        dot += val[k] * x[col[k]];
    y[r] = dot;
}
"#,
        8,
    );
    assert!(spmv.contains("lanes.serial.cond"), "{spmv}");
    assert!(spmv.contains("sub_group.broadcast"), "{spmv}");
    let loads: Vec<&str> = spmv.lines().filter(|l| l.contains(" load ")).collect();
    // ptr[r] and ptr[r + 1] (the loop condition's bound, loaded once) before
    // the loop (packed); col[k], x[col[k]] and val[k] inside (scalar).
    assert_eq!(
        loads.iter().filter(|l| l.ends_with(": uniform")).count(),
        3,
        "{spmv}"
    );
    assert_eq!(loads.len(), 5, "{spmv}");
    let search = vir(
        r#"
kernel void search(global const uint *s, int n, global const uint *keys, global int *out) {
    int q = get_global_id(0);
    uint key = keys[q];
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (s[mid] < key) lo = mid + 1; else hi = mid;
    }
    out[q] = lo;
}
"#,
        8,
    );
    assert!(!search.contains("lanes.serial"), "{search}");
}

/// A uniform loop inside the region of a divergent guard: the loop's exit
/// is uniform and the guarded region's lanes all leave it together, so the
/// live-out `sum` is the header's value, with no per-lane blend in the loop.
#[test]
fn uniform_loop_under_guard_has_no_exit_blend() {
    check(
        r#"
kernel void k(global const float *a, global const float *w, global float *out,
              int n, int taps) {
    int i = get_global_id(0);
    if (i < n) {
        float sum = 0.0f;
        for (int t = 0; t < taps; t++)
            sum += w[t] * a[i + t];
        out[i] = sum;
    }
}
"#,
        expect![[r#"
            ; vector IR of `k`, W = 8
            kernel @k(%0: ptr(global) a : uniform, %1: ptr(global) w : uniform, %2: ptr(global) out : uniform, %3: i32 n : uniform, %4: i32 taps : uniform) {
            bb0.entry: ; entry ; mask %39
              %39 = lanes.active i1() : varying
              %6 = get_global_id i64(i32 0) : strided(1)
              %7 = trunc i64 %6 to i32 : strided(1)
              %8 = cmp slt i32 %7, %3 : varying
              %49 = select i1 %39, %8, false : varying
              %57 = sub_group.any i1(%49) : uniform
              br %57, bb8.boscc.branch, bb6.if.end
            bb1.if.then: ; mask %49
              br bb2.for.cond
            bb2.for.cond: ; mask %49
              %58 = phi i32 [bb1.if.then: i32 0], [bb4.for.inc: %32] : uniform
              %60 = phi f32 [bb1.if.then: f32 0.0], [bb4.for.inc: %30] : varying
              %13 = cmp slt i32 %58, %4 : uniform
              br %13, bb3.for.body, bb5.for.end
            bb3.for.body: ; mask %49
              %15 = sext i32 %58 to i64 : uniform
              %17 = mul i64 %15, i64 4 : uniform (align 4)
              %18 = ptradd %1, %17 : uniform
              %19 = load f32 %18, align 4 : uniform
              %22 = add nsw i32 %7, %58 : strided(1)
              %23 = sext i32 %22 to i64 : strided(1)
              %25 = mul i64 %23, i64 4 : strided(4, align 4)
              %26 = ptradd %0, %25 : strided(4)
              %27 = load f32 %26, align 4 : varying
              %28 = fmul f32 %19, %27 : varying
              %30 = fadd f32 %60, %28 : varying
              br bb4.for.inc
            bb4.for.inc: ; mask %49
              %32 = add nsw i32 %58, i32 1 : uniform
              br bb2.for.cond
            bb5.for.end: ; mask %49
              %34 = sext i32 %7 to i64 : strided(1)
              %36 = mul i64 %34, i64 4 : strided(4, align 4)
              %37 = ptradd %2, %36 : strided(4)
              store f32 %60, %37, align 4
              br bb6.if.end
            bb6.if.end: ; mask %39
              br bb7.exit
            bb7.exit: ; mask %39
              ret
            bb8.boscc.branch: ; mask %39
              br bb1.if.then
            }
        "#]],
    );
}
