//! Unit tests of the lowering: small kernels, their printed IR, and (for
//! the expansions of built-ins and the control flow) their results on the
//! reference interpreter.

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::{check_text, CheckedUnit};

use super::{lower_kernel, LowerError};
use crate::interp::{run, ArgValue, NdRange};
use crate::ir::print::{print, Plain};
use crate::ir::{Const, Function, InstKind, Ty};

fn check(src: &str) -> CheckedUnit {
    let unit = check_text("test.cl", None, src, &PreprocessOptions::default(), &RealFs);
    let errors: Vec<String> = unit
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{d:?}"))
        .collect();
    assert!(errors.is_empty(), "front-end errors: {errors:#?}");
    unit
}

/// Lowers the first kernel of `src` (which must check without errors) and
/// verifies the result.
pub(crate) fn lower(src: &str) -> Function {
    let unit = check(src);
    let k = unit.hir.kernels()[0];
    let f = match lower_kernel(&unit.hir, k) {
        Ok(f) => f,
        Err(e) => panic!("lowering failed: {e:#?}"),
    };
    if let Err(e) = crate::ir::verify::verify(&f) {
        panic!("verifier: {e:#?}\n{}", print(&f, &Plain));
    }
    f
}

/// The printed IR of the first kernel.
fn ir(src: &str) -> String {
    print(&lower(src), &Plain)
}

/// The errors of lowering the first kernel of `src`, which the front end
/// may reject too.
fn lower_errors(src: &str) -> Vec<LowerError> {
    let unit = check_text("test.cl", None, src, &PreprocessOptions::default(), &RealFs);
    let k = unit.hir.kernels()[0];
    match lower_kernel(&unit.hir, k) {
        Ok(f) => panic!("lowering succeeded:\n{}", print(&f, &Plain)),
        Err(e) => e,
    }
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

fn assert_has(ir: &str, needles: &[&str]) {
    for n in needles {
        assert!(ir.contains(n), "missing `{n}` in\n{ir}");
    }
}

/// The text of a span of `src` (the test file is the only file).
fn text(src: &str, span: lanes_frontend::source::Span) -> &str {
    &src[span.start as usize..span.end as usize]
}

// ---- running kernels ----------------------------------------------------

fn ints(v: &[i32]) -> ArgValue {
    ArgValue::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

fn floats(v: &[f32]) -> ArgValue {
    ArgValue::Buffer(v.iter().flat_map(|x| x.to_le_bytes()).collect())
}

fn as_ints(a: &ArgValue) -> Vec<i32> {
    match a {
        ArgValue::Buffer(b) => b
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        other => panic!("not a buffer: {other:?}"),
    }
}

fn as_floats(a: &ArgValue) -> Vec<f32> {
    as_ints(a)
        .into_iter()
        .map(|x| f32::from_bits(x as u32))
        .collect()
}

/// Runs the first kernel of `src` over `n` work-items (one sub-group of
/// width 4 per group of 4).
fn exec(src: &str, n: u64, args: &mut [ArgValue]) {
    let f = lower(src);
    if let Err(e) = run(&f, &NdRange::new_1d(n, 4), args, 4) {
        panic!("{e}\n{}", print(&f, &Plain));
    }
}

/// `out[i] = f(in[i])` for int inputs, one work-item per input.
fn map_ints(src: &str, input: &[i32]) -> Vec<i32> {
    let mut args = [ints(input), ints(&vec![0; input.len()])];
    exec(src, input.len() as u64, &mut args);
    as_ints(&args[1])
}

// ---- SSA and variables --------------------------------------------------

#[test]
fn loop_counter_is_a_phi_and_scalars_have_no_alloca() {
    let f = lower(
        "__kernel void k(__global int *out, int n) {
            int s = 0;
            for (int i = 0; i < n; i++)
                s += i;
            out[0] = s;
        }",
    );
    let s = print(&f, &Plain);
    assert!(!s.contains("alloca"), "{s}");
    assert_has(
        &s,
        &[
            "bb1.for.cond:\n  %",
            "= phi i32 [bb0.entry: i32 0], [bb3.for.inc: %",
            "bb3.for.inc:\n  %",
            "= add nsw i32 %",
            "br bb1.for.cond",
        ],
    );
    // Two φs in the header: the counter and the sum.
    assert_eq!(count(&s, "phi i32"), 2, "{s}");
    // The counter's variable lists its initial value, its φ and its step.
    let i = f.vars.iter().find(|v| v.name == "i").expect("var i");
    assert!(!i.in_memory);
    // The initial 0, the φ and i + 1.
    assert_eq!(i.values.len(), 3, "{:?}", i.values);
    assert_eq!(f.as_const(i.values[0]), Some(Const::Int(0, Ty::I32)));
    let phi = i.values.iter().any(|&v| {
        f.def_inst(v)
            .is_some_and(|d| matches!(f.inst(d).kind, InstKind::Phi { .. }))
    });
    assert!(phi);
}

#[test]
fn trivial_phis_are_removed() {
    // `n` is never assigned in the loop: no φ for it, and none for `x`,
    // which is only read.
    let s = ir("__kernel void k(__global int *out, int n) {
        int x = n * 2;
        int i = 0;
        while (i < n) { out[i] = x; i++; }
    }");
    assert_eq!(count(&s, "phi"), 1, "{s}");
}

#[test]
fn undefined_variable_reads_undef() {
    let s = ir("__kernel void k(__global int *out, int n) {
        int x;
        if (n > 0) x = 1;
        out[0] = x;
    }");
    assert_has(
        &s,
        &["phi i32 [bb0.entry: i32 undef], [bb1.if.then: i32 1]"],
    );
}

#[test]
fn arrays_and_address_taken_scalars_live_in_memory() {
    let f = lower(
        "void bump(int *p) { *p += 1; }
        __kernel void k(__global float *out, int n) {
            float w[5];
            int c = 0;
            bump(&c);
            for (int k = 0; k < 5; k++) w[k] = k;
            out[0] = w[n] + c;
        }",
    );
    let s = print(&f, &Plain);
    assert_has(&s, &["alloca 20 bytes, align 4", "alloca 4 bytes, align 4"]);
    assert_eq!(count(&s, "alloca"), 2, "{s}");
    // All allocas come first in the entry block.
    let entry = &f.blocks[0];
    assert!(matches!(
        f.inst(entry.insts[0]).kind,
        InstKind::Alloca { .. }
    ));
    assert!(matches!(
        f.inst(entry.insts[1]).kind,
        InstKind::Alloca { .. }
    ));
    for name in ["w", "c"] {
        let v = f.vars.iter().find(|v| v.name == name).expect("var");
        assert!(v.in_memory, "{name}");
        assert_eq!(v.values.len(), 1);
    }
    // The array element address: index * 4 (the loop counter k).
    assert_has(&s, &["= mul i64 %", ", i64 4"]);
}

#[test]
fn compound_literals_are_initialized_where_evaluated() {
    // Each literal is an object of its own (allocas in the entry block,
    // like declared variables); the array literal is stored again in every
    // iteration of the loop that evaluates it, the omitted element as 0.
    let src = "struct pair { int a; int b; };
        __kernel void k(__global const int *in, __global int *out) {
            int i = get_global_id(0);
            int acc = 0;
            for (int r = 0; r < 3; r++) {
                int *q = (int[2]){ in[i] + r };
                acc += q[0] + q[1];
                q[1] = 100;
            }
            struct pair p = (struct pair){ .b = acc, .a = i };
            out[i] = p.a * 1000 + p.b;
        }";
    let f = lower(src);
    let s = print(&f, &Plain);
    // The array literal, the struct literal and `p`.
    assert_eq!(count(&s, "alloca 8 bytes, align 4"), 3, "{s}");
    let entry = &f.blocks[0];
    for &i in &entry.insts[..3] {
        assert!(matches!(f.inst(i).kind, InstKind::Alloca { .. }), "{s}");
    }
    let body = f
        .blocks
        .iter()
        .find(|b| b.label == "for.body")
        .expect("loop body");
    let stores = body
        .insts
        .iter()
        .filter(|&&i| matches!(f.inst(i).kind, InstKind::Store { .. }))
        .count();
    // The two elements of the literal, then `q[1] = 100`.
    assert_eq!(stores, 3, "{s}");
    assert_has(&s, &["store i32 i32 0, %"]);
    assert_eq!(map_ints(src, &[1, 5, -2]), vec![6, 1018, 1997]);
}

#[test]
fn var_spans_name_the_declarator_and_params_are_recorded() {
    let src = "__kernel void k(__global float *out, float4 v, int n) {
        float sum = v.x;
        out[n] = sum;
    }";
    let f = lower(src);
    let sum = f.vars.iter().find(|v| v.name == "sum").expect("sum");
    assert_eq!(text(src, sum.span), "sum");
    assert!(!sum.is_param);
    let v = f.vars.iter().find(|v| v.name == "v").expect("v");
    assert!(v.is_param);
    assert_eq!(v.values.len(), 4);
    // A float4 parameter is four IR parameters.
    let comps: Vec<_> = f
        .params
        .iter()
        .filter(|p| p.name == "v")
        .map(|p| (p.component, p.source_index, p.ty))
        .collect();
    assert_eq!(
        comps,
        vec![
            (Some(0), 1, Ty::F32),
            (Some(1), 1, Ty::F32),
            (Some(2), 1, Ty::F32),
            (Some(3), 1, Ty::F32)
        ]
    );
    assert_eq!(
        f.params[0].ty,
        Ty::Ptr(lanes_frontend::ast::AddressSpace::Global)
    );
    assert_eq!(f.params[0].component, None);
    assert_eq!(f.params.len(), 6);
}

// ---- vectors ------------------------------------------------------------

#[test]
fn float4_add_is_scalarized() {
    let s = ir(
        "__kernel void k(__global const float4 *a, __global const float4 *b,
                               __global float4 *out) {
        int i = get_global_id(0);
        out[i] = a[i] + b[i];
    }",
    );
    assert_eq!(count(&s, "fadd f32"), 4, "{s}");
    assert_eq!(count(&s, "load f32"), 8, "{s}");
    assert_eq!(count(&s, "store f32"), 4, "{s}");
    // Components at byte offsets 4, 8, 12 of the element (16 bytes).
    assert_has(&s, &["i64 16", "i64 4\n", "i64 8\n", "i64 12\n"]);
    assert!(!s.contains("alloca"), "{s}");
}

#[test]
fn swizzles_pick_values_and_store_single_components() {
    let s = ir("__kernel void k(__global float4 *p, __global float *out) {
        float4 v = p[0];
        float2 h = v.hi;
        p[1].y = h.x + v.s0;
        out[0] = p[2].w;
    }");
    // `p[1].y = ...` stores one component; `p[2].w` loads one.
    assert_eq!(count(&s, "store f32"), 2, "{s}");
    assert_eq!(count(&s, "load f32"), 5, "{s}");
    assert_eq!(count(&s, "fadd f32"), 1, "{s}");
    assert!(!s.contains("select"), "{s}");
}

#[test]
fn float3_in_memory_takes_four_elements_but_vload3_three() {
    let s = ir("__kernel void k(__global float3 *p, __global float *q) {
        float3 v = p[1];
        vstore3(v, 1, q);
    }");
    // p[1] is 16 bytes in: float3 is laid out as float4.
    assert_has(&s, &["ptradd %0, i64 16", "ptradd %1, i64 12"]);
    assert_eq!(count(&s, "load f32"), 3, "{s}");
    assert_eq!(count(&s, "store f32"), 3, "{s}");
}

#[test]
fn vload4_and_vstore4() {
    let s = ir(
        "__kernel void k(__global const float *in, __global float *out) {
        int i = get_global_id(0);
        float4 v = vload4(i, in);
        vstore4(v * 2.0f, i, out);
    }",
    );
    assert_eq!(count(&s, "load f32"), 4, "{s}");
    assert_eq!(count(&s, "store f32"), 4, "{s}");
    assert_eq!(count(&s, "fmul f32"), 4, "{s}");
    // offset * 16 bytes, then each component at +4, +8, +12.
    assert_eq!(count(&s, ", i64 16"), 2, "{s}");
    let mut args = [
        floats(&(0..8).map(|x| x as f32).collect::<Vec<_>>()),
        floats(&[0.0; 8]),
    ];
    exec(
        "__kernel void k(__global const float *in, __global float *out) {
            int i = get_global_id(0);
            float4 v = vload4(i, in);
            vstore4(v * 2.0f, i, out);
        }",
        2,
        &mut args,
    );
    assert_eq!(
        as_floats(&args[1]),
        vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]
    );
}

#[test]
fn dynamic_vector_index_uses_selects() {
    let s = ir("__kernel void k(__global int *out, int n) {
        int4 v = (int4)(1, 2, 3, 4);
        v[n & 3] = 9;
        out[0] = v[n >> 2];
    }");
    // The write blends each component, the read chains 3 selects.
    assert_eq!(count(&s, "select i32"), 7, "{s}");
    let out = map_ints(
        "__kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            int4 v = (int4)(10, 20, 30, 40);
            v[in[i] & 3] = 9;
            out[i] = v[in[i] >> 2] * 100 + v.x;
        }",
        &[0, 1, 6, 15],
    );
    assert_eq!(out, vec![909, 1010, 2010, 910]);
}

#[test]
fn vector_conditional_tests_the_most_significant_bit() {
    let s = ir("__kernel void k(__global int4 *p, __global float4 *f) {
        int4 a = p[0];
        f[0] = a < 0 ? f[1] : f[2];
    }");
    assert_eq!(count(&s, "cmp slt i32"), 8, "{s}");
    assert_eq!(count(&s, "select f32"), 4, "{s}");
    assert_eq!(count(&s, "sext i1"), 4, "{s}");
}

// ---- booleans -----------------------------------------------------------

#[test]
fn bool_is_i1_in_registers_and_a_byte_in_memory() {
    let s = ir("__kernel void k(__global int *out, int n) {
        bool flags[4];
        int i = get_global_id(0);
        bool b = i > n;
        flags[i & 3] = b;
        if (flags[0]) out[i] = 1;
    }");
    assert_has(
        &s,
        &[
            "alloca 4 bytes, align 1",
            "zext i1 %",
            " to i8",
            "store i8 %",
            "load i8 %",
            "cmp ne i8 %",
        ],
    );
    assert!(!s.contains("zext i1 %6 to i32"), "{s}");
}

#[test]
fn conditions_branch_on_comparisons() {
    let src_cond = "__kernel void k(__global int *out, int n) {
        int i = get_global_id(0);
        if (!(i < n)) return;
        while (i > 0 && out[i] != 0) i--;
        out[i] = i > 3;
    }";
    let s = ir(src_cond);
    // Every conditional branch tests a comparison (no comparison result
    // is widened and compared with 0 again).
    let f = lower(src_cond);
    for inst in &f.insts {
        if let InstKind::CondBr { cond, .. } = inst.kind {
            let def = f.def_inst(cond).map(|d| &f.inst(d).kind);
            assert!(matches!(def, Some(InstKind::Cmp { .. })), "{s}");
        }
    }
    assert!(!s.contains("cmp ne i32 %22"), "{s}");
    // `!` swaps the targets instead of computing a negation.
    assert!(!s.contains("xor i1"), "{s}");
    assert_has(&s, &["land.rhs", "cmp sgt i32"]);
    // The stored `i > 3` is an int 0/1.
    assert_has(&s, &["zext i1 %"]);
}

#[test]
fn short_circuit_and_or() {
    let s = ir("__kernel void k(__global int *a, int n) {
        int i = get_global_id(0);
        if (i < n && a[i] > 0) a[i] = 0;
        int c = i == 0 || a[0] == 1;
        a[1] = c;
    }");
    assert_has(
        &s,
        &[
            "br %",
            "bb1.land.rhs",
            "bb4.lor.rhs",
            "bb5.lor.end",
            "phi i1 [bb3.if.end: true], [bb4.lor.rhs: %",
        ],
    );
    // a[i] is only loaded in the right-hand block.
    let rhs = s.split("bb1.land.rhs:").nth(1).expect("land.rhs");
    let before = s.split("bb1.land.rhs:").next().expect("entry");
    assert!(!before.contains("load"), "{s}");
    assert!(rhs.contains("load i32"), "{s}");
    let out = map_ints(
        "__kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            int x = in[i];
            out[i] = (x > 2 && 10 / x > 2) * 10 + (x == 0 || 10 / x == 5);
        }",
        &[0, 2, 3, 4, 5],
    );
    assert_eq!(out, vec![1, 1, 10, 0, 0]);
}

// ---- control flow -------------------------------------------------------

#[test]
fn switch_with_fall_through_and_nested_labels() {
    let src = "__kernel void k(__global int *in, __global int *out) {
        int i = get_global_id(0);
        int r = 0;
        switch (in[i]) {
        case 0:
            r = 1;
        case 1:
            r += 2;
            break;
        case -3:
            r = 5;
            break;
        default:
            if (i > 100) {
        case 7:
                r = 70;
            }
            r += 1000;
        }
        out[i] = r;
    }";
    let s = ir(src);
    assert_has(
        &s,
        &[
            "switch i32 %",
            "default bb",
            "0 => bb",
            "1 => bb",
            "-3 => bb",
            "7 => bb",
            ".sw.case:\n  br bb",
            "sw.end",
        ],
    );
    let out = map_ints(src, &[0, 1, -3, 7, 4, 100]);
    assert_eq!(out, vec![3, 2, 5, 1070, 1000, 1000]);
}

#[test]
fn case_inside_a_loop_is_an_error() {
    let errors = lower_errors(
        "__kernel void k(__global int *out, int n) {
            switch (n) {
            case 0:
                for (int i = 0; i < 3; i++) {
            case 1:
                    out[i] = 1;
                }
            }
        }",
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].message.contains("irreducible"),
        "{}",
        errors[0].message
    );
}

#[test]
fn loops_have_natural_shapes() {
    let s = ir("__kernel void k(__global int *out, int n) {
        int i = 0;
        do {
            if (out[i] < 0) continue;
            out[i] = 1;
        } while (++i < n);
        for (int j = 0; j < n; j++) {
            if (j == 5) break;
            if (j == 2) continue;
            out[j] = 2;
        }
    }");
    // `continue` in a do loop goes to its condition, in a for loop to the
    // step block.
    assert_has(
        &s,
        &[
            "bb1.do.body",
            "do.cond",
            "for.cond",
            "for.body",
            "for.inc",
            "for.end",
        ],
    );
    let f = lower(
        "__kernel void k(__global int *out, int n) {
        for (int j = 0; j < n; j++) {
            if (j == 2) continue;
            out[j] = 2;
        }
    }",
    );
    // The header has the entry edge and one back edge (the step block,
    // which the `continue` and the end of the body share).
    let preds = f.predecessors();
    let header = f
        .block_ids()
        .find(|&b| f.block(b).label == "for.cond")
        .expect("header");
    assert_eq!(preds[header.index()].len(), 2);
    let inc = f
        .block_ids()
        .find(|&b| f.block(b).label == "for.inc")
        .expect("inc");
    assert_eq!(preds[inc.index()].len(), 2);
    let out = map_ints(
        "__kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            int s = 0;
            for (int j = 0; j < 10; j++) {
                if (j == in[i]) break;
                if (j % 2) continue;
                s += j;
            }
            int d = 0;
            do { d++; } while (d < in[i]);
            out[i] = s * 100 + d;
        }",
        &[0, 3, 5, 20],
    );
    assert_eq!(out, vec![1, 203, 605, 2020]);
}

#[test]
fn unreachable_code_is_dropped() {
    let s = ir("__kernel void k(__global int *out, int n) {
        for (;;) {
            if (n > 0) return;
            out[0] = 1;
            break;
            out[1] = 2;
        }
        return;
        out[2] = 3;
        while (n) { n--; }
    }");
    assert!(!s.contains("dead"), "{s}");
    assert!(!s.contains("i32 2,"), "{s}");
    assert!(!s.contains("i32 3,"), "{s}");
    assert!(!s.contains("while"), "{s}");
    assert_eq!(count(&s, "ret"), 2, "{s}");
}

#[test]
fn inlined_helper_with_early_return_merges_by_phi() {
    let src = "int clamp_index(int i, int n) {
            if (i < 0)
                return 0;
            if (i >= n)
                return n - 1;
            return i;
        }
        __kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            out[i] = clamp_index(in[i], 10);
        }";
    let f = lower(src);
    let s = print(&f, &Plain);
    assert_has(
        &s,
        &[
            "call.ret:\n  %",
            "= phi i32 [bb1.if.then: i32 0], [bb3.if.then: i32 9], [bb4.if.end: %",
        ],
    );
    assert!(!s.contains("unreachable"), "{s}");
    // The helper's parameters are variables too.
    assert!(f.vars.iter().any(|v| v.name == "n" && v.is_param));
    assert_eq!(map_ints(src, &[-5, 3, 12]), vec![0, 3, 9]);
}

#[test]
fn falling_off_a_non_void_helper_is_unreachable() {
    let s = ir("int g(int x) { if (x) return 1; }
        __kernel void k(__global int *out, int n) { out[0] = g(n); }");
    assert_has(&s, &["unreachable"]);
}

#[test]
fn void_helpers_and_pointer_arguments() {
    let src = "void accumulate(float *acc, float v) { *acc += v; }
        void store_pair(__global float *out, int i, float a, float b) {
            out[2 * i] = a;
            out[2 * i + 1] = b;
            return;
        }
        __kernel void k(__global const float *in, __global float *out) {
            int i = get_global_id(0);
            float acc = 0.0f;
            accumulate(&acc, in[i]);
            accumulate(&acc, 1.5f);
            store_pair(out, i, acc, -acc);
        }";
    let mut args = [floats(&[1.0, 2.0]), floats(&[0.0; 4])];
    exec(src, 2, &mut args);
    assert_eq!(as_floats(&args[1]), vec![2.5, -2.5, 3.5, -3.5]);
}

#[test]
fn deep_call_chains_are_refused_not_overflowed() {
    // 70 helpers calling each other in a chain (no recursion).
    let mut src = String::from("int f0(int x) { return x + 1; }\n");
    for k in 1..70 {
        src.push_str(&format!(
            "int f{k}(int x) {{ return f{}(x) + 1; }}\n",
            k - 1
        ));
    }
    src.push_str("__kernel void k(__global int *out) { out[0] = f69(0); }\n");
    let errors = lower_errors(&src);
    assert!(
        errors
            .iter()
            .any(|e| e.message.contains("nested more than 64")),
        "{errors:?}"
    );
}

#[test]
fn deeply_nested_expressions_lower_on_a_small_stack() {
    // Close to the front end's nesting limit, on the 2 MiB stack of a
    // test thread.
    let mut e = String::from("x");
    for _ in 0..120 {
        e = format!("(x + {e})");
    }
    let src = format!(
        "__kernel void k(__global int *out, int x) {{ if (x > 0 && (x < 9 || x == {e})) out[0] = {e}; }}"
    );
    let unit = check_text("t.cl", None, &src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics.first());
    let k = unit.hir.kernels()[0];
    let f = lower_kernel(&unit.hir, k).expect("lowers");
    assert!(count(&print(&f, &Plain), "add nsw i32") >= 240);
    // Nested statements, and 60 levels of inlined helpers each nesting
    // loops and conditions.
    let mut body = String::from("out[0] += x;");
    for k in 0..100 {
        body = if k % 2 == 0 {
            format!("if (x > {k}) {{ {body} }}")
        } else {
            format!("for (int i{k} = 0; i{k} < x; i{k}++) {{ {body} }}")
        };
    }
    let mut src = String::from(
        "int f0(int x) { int r = x; for (int i = 0; i < x; i++) { if (i > 2) { while (r > 0) r -= i; } } return r; }\n",
    );
    for k in 1..60 {
        src.push_str(&format!(
            "int f{k}(int x) {{ int r = 0; for (int i = 0; i < x; i++) {{ if (i & 1) {{ r += f{}(i); }} }} return r; }}\n",
            k - 1
        ));
    }
    src.push_str(&format!(
        "__kernel void k(__global int *out, int x) {{ out[1] = f59(x); {body} }}\n"
    ));
    let unit = check_text("t.cl", None, &src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics.first());
    let k = unit.hir.kernels()[0];
    let f = lower_kernel(&unit.hir, k).expect("lowers");
    crate::ir::verify::verify(&f).expect("verifies");
}

// ---- memory and pointers --------------------------------------------------

#[test]
fn memory_accesses_point_at_the_access() {
    let src = "typedef struct { float x; float y; } P;
        __kernel void k(__global const float *input, __global P *ps, __global float *out) {
            int i = get_global_id(0);
            __global P *p = &ps[i];
            out[i] = input[i] + p->y + *out;
        }";
    let f = lower(src);
    let mut loads: Vec<&str> = f
        .insts
        .iter()
        .filter(|i| matches!(i.kind, InstKind::Load { .. }))
        .map(|i| text(src, i.src.span))
        .collect();
    loads.sort();
    assert_eq!(loads, vec!["*out", "input[i]", "p->y"]);
    let stores: Vec<&str> = f
        .insts
        .iter()
        .filter(|i| matches!(i.kind, InstKind::Store { .. }))
        .map(|i| text(src, i.src.span))
        .collect();
    assert_eq!(stores, vec!["out[i]"]);
}

#[test]
fn index_scaling() {
    let s = ir(
        "__kernel void k(__global char *c, __global double *d, uint u, long l) {
        c[u] = 1;
        d[u] = 2.0;
        d[l] = 3.0;
        c[0] = 4;
        d[3] = 5.0;
    }",
    );
    // A uint index is zero-extended, char needs no multiply, a constant
    // index is a constant offset, index 0 needs no ptradd.
    assert_has(
        &s,
        &[
            "= zext i32 %2 to i64",
            "= ptradd %0, %",
            "= mul i64 %",
            ", i64 8",
            "ptradd %1, i64 24",
            "store i8 i8 4, %0,",
        ],
    );
    assert_eq!(count(&s, "mul i64"), 2, "{s}");
}

#[test]
fn pointer_arithmetic_difference_and_comparison() {
    let s = ir("__kernel void k(__global float *out, int n) {
        __global float *p = out + n;
        p++;
        p -= 2;
        out[p - out] = p < out + 4 ? 1.0f : 0.0f;
    }");
    assert_has(
        &s,
        &[
            "ptrtoint ptr(global) %",
            "sub i64 %",
            "sdiv i64 %",
            ", i64 4",
            "cmp ult i64 %",
            "ptradd %",
            "i64 -8",
        ],
    );
    let mut args = [floats(&[9.0; 6]), ArgValue::Scalar(Const::Int(3, Ty::I32))];
    exec(
        "__kernel void k(__global float *out, int n) {
            __global float *p = out + n;
            p++;
            p -= 2;
            out[p - out] = p < out + 4 ? 1.0f : 0.0f;
            out[5] = (float)(p - out);
        }",
        1,
        &mut args,
    );
    assert_eq!(as_floats(&args[0]), vec![9.0, 9.0, 1.0, 9.0, 9.0, 2.0]);
}

#[test]
fn struct_copy_and_struct_values() {
    let src = "typedef struct { float x; int y; bool b; } S;
        S mk(float v) { S s; s.x = v; s.y = 2; s.b = v > 0; return s; }
        __kernel void k(__global S *in, __global S *out) {
            int i = get_global_id(0);
            S a = in[i];
            S b = a;
            b.x += mk(1.5f).x;
            b.y = mk(-1.0f).b ? 100 : b.y;
            out[i] = b;
        }";
    let s = ir(src);
    // A copy is a load and a store per field (the bool as a byte).
    // a, b, and the helper's s once per inlined call.
    assert_eq!(count(&s, "alloca 12 bytes, align 4"), 4, "{s}");
    assert_has(&s, &["load i8", "store i8", "ptradd %0, %"]);
    let mut bytes = Vec::new();
    for (x, y, b) in [(1.0f32, 7i32, 1u8), (-2.0, 8, 0)] {
        bytes.extend(x.to_le_bytes());
        bytes.extend(y.to_le_bytes());
        bytes.extend([b, 0, 0, 0]);
    }
    let mut args = [ArgValue::Buffer(bytes), ArgValue::Buffer(vec![0; 24])];
    exec(src, 2, &mut args);
    let ArgValue::Buffer(out) = &args[1] else {
        unreachable!()
    };
    let field = |k: usize| i32::from_le_bytes([out[k], out[k + 1], out[k + 2], out[k + 3]]);
    assert_eq!(f32::from_bits(field(0) as u32), 2.5);
    assert_eq!(field(4), 7);
    assert_eq!(out[8], 1);
    assert_eq!(f32::from_bits(field(12) as u32), -0.5);
    assert_eq!(field(16), 8);
    assert_eq!(out[20], 0);
}

#[test]
fn initializer_lists_store_every_leaf_and_zero_fill() {
    let src = "typedef struct { int a; float b[2]; } T;
        __kernel void k(__global int *out) {
            int t[4] = { 5, 6 };
            T s = { 1, { 2.5f } };
            int4 v = { 1, 2 };
            out[0] = t[0] + t[1] + t[2] + t[3] + s.a + (int)(s.b[0] * 2) + (int)s.b[1] + v.y + v.z;
        }";
    let s = ir(src);
    // 4 stores for t, 3 for s; the vector stays in registers.
    assert_eq!(count(&s, "store i32"), 4 + 1 + 1, "{s}");
    assert_eq!(count(&s, "store f32"), 2, "{s}");
    let mut args = [ints(&[0])];
    exec(src, 1, &mut args);
    assert_eq!(as_ints(&args[0]), vec![5 + 6 + 1 + 5 + 2]);
}

#[test]
fn constant_globals_are_serialized() {
    let src = "typedef struct { char c; float f; } S;
        __constant int table[3] = { 1, -2 };
        __constant S s = { 'a', 1.0f };
        __constant float3 v3 = (float3)(1.0f, 2.0f, 3.0f);
        __constant int unused = 7;
        __kernel void k(__global float *out, int i) {
            out[0] = table[i] + s.f + v3.y;
        }";
    let f = lower(src);
    assert_eq!(f.globals.len(), 3);
    let g = |name: &str| {
        f.globals
            .iter()
            .find(|g| g.name == name)
            .unwrap_or_else(|| panic!("{name}"))
    };
    assert_eq!(
        g("table").bytes,
        vec![1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 0, 0, 0, 0]
    );
    assert_eq!(g("table").align, 4);
    let mut sb = vec![b'a', 0, 0, 0];
    sb.extend(1.0f32.to_le_bytes());
    assert_eq!(g("s").bytes, sb);
    let mut vb = Vec::new();
    for x in [1.0f32, 2.0, 3.0, 0.0] {
        vb.extend(x.to_le_bytes());
    }
    assert_eq!(g("v3").bytes, vb);
    assert_eq!(text(src, g("table").span), "table");
    let s = print(&f, &Plain);
    assert_has(
        &s,
        &[
            "@table",
            "@s",
            "@v3",
            "ptradd @s, i64 4",
            "ptradd @v3, i64 4",
        ],
    );
}

// ---- integer semantics ----------------------------------------------------

#[test]
fn shifts_mask_their_count() {
    let s = ir("__kernel void k(__global int *out, int n, uint u, long l) {
        out[0] = n << u;
        out[1] = n >> 3;
        out[2] = u >> n;
        out[3] = (int)(l << 70);
    }");
    assert_has(
        &s,
        &[
            "= and i32 %2, i32 31",
            "= shl i32 %1, %",
            "= ashr i32 %1, i32 3",
            "= lshr i32 %2, %",
            // 70 & 63
            "= shl i64 %3, i64 6",
        ],
    );
    let out = map_ints(
        "__kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            out[i] = (1 << in[i]) + ((-64) >> in[i]);
        }",
        &[1, 33, 3],
    );
    assert_eq!(out, vec![2 - 32, 2 - 32, 8 - 8]);
}

#[test]
fn division_and_conversions_follow_c() {
    let s = ir(
        "__kernel void k(__global int *out, int a, uint b, float f, char c) {
        out[0] = a / 3 + a % 3;
        out[1] = b / 3u + b % 3u;
        out[2] = (int)f;
        out[3] = (uint)f;
        out[4] = c;
        out[5] = (uchar)a;
        float g = a;
        double d = f;
        out[6] = g + d;
    }",
    );
    assert_has(
        &s,
        &[
            "sdiv i32",
            "srem i32",
            "udiv i32",
            "urem i32",
            "fptosi f32",
            "fptoui f32",
            "sext i8",
            "trunc i32",
            "zext i8",
            "sitofp i32",
            "fpext f32",
        ],
    );
}

#[test]
fn compound_assignment_converts_through_the_computation_type() {
    let s = ir("__kernel void k(__global int *out, float f) {
        int x = out[0];
        x += f;
        char c = x;
        c += 100;
        out[1] = x + c;
    }");
    assert_has(&s, &["sitofp i32", "fadd f32", "fptosi f32", "trunc i32"]);
    let out = map_ints(
        "__kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            char c = in[i];
            c += 100;
            uchar u = in[i];
            u -= 1;
            int x = in[i];
            x *= 2.5f;
            out[i] = c * 10000 + u * 100 + x;
        }",
        &[0, 100],
    );
    // 0: c=100, u=255, x=0; 100: c=200-256=-56, u=99, x=250.
    assert_eq!(
        out,
        vec![100 * 10000 + 255 * 100, -56 * 10000 + 99 * 100 + 250]
    );
}

#[test]
fn increments_of_every_kind() {
    let out = map_ints(
        "__kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            int x = in[i];
            int a = x++;
            int b = ++x;
            float f = 1.5f;
            f--;
            bool t = x > 100;
            t++;
            bool u = x > 100;
            u--;
            int4 v = (int4)(x);
            v++;
            out[i] = a * 1000 + b * 10 + (int)(f * 2) + t + u + v.w;
        }",
        &[5, 200],
    );
    // x = 5: a=5, b=7, f=0.5, t=1, u=!0=1, v.w=8
    // x = 200: a=200, b=202, t=1, u=!1=0, v.w=203
    assert_eq!(
        out,
        vec![5000 + 70 + 1 + 1 + 1 + 8, 200000 + 2020 + 1 + 1 + 203]
    );
}

#[test]
fn conditional_operator_evaluates_one_side() {
    let s = ir("__kernel void k(__global int *out, int n) {
        out[0] = n > 0 ? out[n] : 0;
    }");
    assert_has(&s, &["cond.then", "cond.else", "cond.end", "phi i32"]);
    let then = s.split("cond.then:").nth(1).expect("then");
    assert!(then.contains("load i32"));
    let out = map_ints(
        "__kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            int x = in[i];
            out[i] = x != 0 ? 100 / x : -1;
        }",
        &[0, 5],
    );
    assert_eq!(out, vec![-1, 20]);
}

#[test]
fn comma_sizeof_and_assignment_values() {
    let out = map_ints(
        "__kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            int a, b;
            a = (b = in[i] + 1) * 2;
            int c = (a++, a + b);
            out[i] = c * 100 + (int)sizeof(float4) + (int)sizeof(struct { char x; int y; });
        }",
        &[1, 10],
    );
    // in=1: b=2, a=4 -> 5, c=7. in=10: b=11, a=22 -> 23, c=34.
    assert_eq!(out, vec![700 + 16 + 8, 3400 + 24]);
}

// ---- built-ins ------------------------------------------------------------

#[test]
fn work_item_functions() {
    let s = ir("__kernel void k(__global ulong *out) {
        out[0] = get_global_id(1) + get_local_size(0) + get_work_dim();
        out[1] = get_sub_group_size() + get_sub_group_local_id();
        int i = get_group_id(2);
    }");
    assert_has(
        &s,
        &[
            "get_global_id i64(i32 1)",
            "get_local_size i64(i32 0)",
            "get_work_dim i32()",
            "get_sub_group_size i32()",
            "get_sub_group_local_id i32()",
            "get_group_id i64(i32 2)",
            "zext i32",
        ],
    );
}

#[test]
fn clamp_on_ints_and_floats() {
    let s = ir(
        "__kernel void k(__global int *i, __global uint *u, __global float4 *f) {
        i[0] = clamp(i[1], -1000, 1000);
        u[0] = clamp(u[1], 2u, 9u);
        f[0] = clamp(f[1], 0.0f, 1.0f);
        i[2] = min(i[3], 4) + max(i[3], i[4]);
    }",
    );
    assert_has(
        &s,
        &[
            "smax i32(%",
            ", i32 -1000)",
            "smin i32(%",
            ", i32 1000)",
            "umax i32(%",
            "umin i32(%",
            "fmax f32(%",
            ", f32 0.0)",
            "fmin f32(%",
            ", f32 1.0)",
        ],
    );
    assert_eq!(count(&s, "fmax f32"), 4, "{s}");
    assert_eq!(count(&s, "fmin f32"), 4, "{s}");
    assert_eq!(
        map_ints(
            "__kernel void k(__global int *in, __global int *out) {
                int i = get_global_id(0);
                out[i] = clamp(in[i], -5, 5);
            }",
            &[-9, 3, 77]
        ),
        vec![-5, 3, 5]
    );
}

#[test]
fn as_char4_of_int_is_shifts_and_truncations() {
    let s = ir("__kernel void k(__global int *in, __global char4 *out) {
        out[0] = as_char4(in[0]);
    }");
    assert_has(
        &s,
        &[
            "lshr i32 %",
            ", i32 8",
            ", i32 16",
            ", i32 24",
            "trunc i32",
            " to i8",
        ],
    );
    assert_eq!(count(&s, "trunc i32"), 4, "{s}");
    let out = map_ints(
        "__kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            char4 c = as_char4(in[i]);
            out[i] = c.x + c.y * 1000 + as_int(c.wzyx) / 256 * 0 + as_int(c);
        }",
        &[0x04_03_02_01, 0x7f_80_ff_10],
    );
    assert_eq!(
        out,
        vec![1 + 2000 + 0x04_03_02_01, 0x10 - 1000 + 0x7f_80_ff_10]
    );
}

#[test]
fn as_float_and_back() {
    let s = ir("__kernel void k(__global uint *u, __global float2 *f) {
        u[0] = as_uint(f[0].x);
        f[1] = as_float2(as_ulong(f[2]));
    }");
    assert_has(
        &s,
        &[
            "bitcast f32",
            "to i32",
            "zext i32",
            "shl i64",
            "or i64",
            "lshr i64",
        ],
    );
}

#[test]
fn convert_int_rte_rounds_then_converts() {
    let s = ir("__kernel void k(__global float *f, __global int *i) {
        i[0] = convert_int_rte(f[0]);
        i[1] = convert_int(f[1]);
        i[2] = convert_int_sat_rtn(f[2]);
    }");
    assert_has(
        &s,
        &["rint f32(%", "fptosi f32", "floor f32(%", "fptosi.sat f32"],
    );
    let mut args = [
        floats(&[2.5, 3.5, -2.5, 1e20, f32::NAN, -1.5]),
        ints(&[0; 6]),
    ];
    exec(
        "__kernel void k(__global float *f, __global int *o) {
            int i = get_global_id(0);
            o[i] = i < 3 ? convert_int_rte(f[i]) : convert_int_sat_rtn(f[i]);
        }",
        6,
        &mut args,
    );
    assert_eq!(as_ints(&args[1]), vec![2, 4, -2, i32::MAX, 0, -2]);
}

#[test]
fn saturating_and_directed_conversions_are_exact() {
    let out = map_ints(
        "__kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            int x = in[i];
            uchar a = convert_uchar_sat(x);
            char b = convert_char_sat(x);
            uint c = convert_uint_sat(x);
            float z = convert_float_rtz(x);
            float p = convert_float_rtp(x);
            float n = convert_float_rtn(x);
            float e = convert_float(x);
            out[i] = a + b * 1000 + (c == 0) * 1000000
                   + (z < e) * 2 + (p > e) * 4 + (n < e) * 8 + (p != n) * 16;
        }",
        &[300, -300, 7, 16777217, -16777217, 16777219],
    );
    // 16777217 = 2^24 + 1: nearest (even) is 2^24, rtz/rtn 2^24, rtp 2^24 + 2.
    // -16777217: nearest -2^24, rtz -2^24, rtp -2^24, rtn -2^24 - 2.
    // 16777219: nearest (even) 2^24 + 4, rtz/rtn 2^24 + 2, rtp 2^24 + 4.
    assert_eq!(
        out,
        vec![
            255 + 127 * 1000,
            -128 * 1000 + 1000000,
            7 + 7000,
            255 + 127 * 1000 + 4 + 16,
            -128 * 1000 + 1000000 + 8 + 16,
            255 + 127 * 1000 + 2 + 8 + 16,
        ]
    );
}

#[test]
fn narrowing_double_with_directed_rounding() {
    let mut args = [floats(&[0.0; 4])];
    exec(
        "__kernel void k(__global float *o) {
            double d = 1.0 + 1e-12;
            o[0] = convert_float_rtp(d);
            o[1] = convert_float_rtz(d);
            o[2] = convert_float_rtn(-d);
            o[3] = convert_float_rtp(1e-60);
        }",
        1,
        &mut args,
    );
    let o = as_floats(&args[0]);
    assert_eq!(o[0], 1.0 + f32::EPSILON);
    assert_eq!(o[1], 1.0);
    assert_eq!(o[2], -1.0 - f32::EPSILON);
    assert_eq!(o[3].to_bits(), 1);
}

#[test]
fn sub_group_any_takes_the_comparison() {
    let s = ir("__kernel void k(__global float *x, int n) {
        int i = get_global_id(0);
        bool neg = x[i] < 0.0f;
        if (sub_group_any(neg)) x[i] = 0.0f;
        int c = sub_group_all(i < n);
        x[0] = sub_group_reduce_add(c) + sub_group_broadcast(x[i], 0)
             + sub_group_scan_exclusive_min(x[1]);
    }");
    assert_has(
        &s,
        &[
            "= cmp folt f32 %",
            "= sub_group.any i1(%",
            "= sub_group.all i1(%",
            "= sub_group.reduce.add i32(%",
            "= sub_group.broadcast f32(%",
            ", i32 0)",
            "= sub_group.scan_excl.fmin f32(%",
        ],
    );
    // The branch tests the horizontal result itself.
    let any_line = s
        .lines()
        .find(|l| l.contains("sub_group.any"))
        .expect("any");
    let any_val = any_line.trim().split(' ').next().expect("value");
    assert!(s.contains(&format!("br {any_val}, ")), "{s}");
}

#[test]
fn math_and_common_functions() {
    let s = ir("__kernel void k(__global float4 *f, __global double *d) {
        f[0] = mad(f[1], f[2], f[3]) + fma(f[1], f[2], f[3]) + native_sin(f[1])
             + pown(f[2].x, 3) + mix(f[1], f[2], 0.5f) + step(0.5f, f[1]) + sign(f[2]);
        d[0] = sqrt(d[1]) + half_divide(1.0f, 2.0f);
    }");
    assert_has(
        &s,
        &[
            "fma f32(%",
            "sin f32(%",
            "pown f32(%",
            ", i32 3)",
            "sqrt f64(%",
            "fdiv f32 f32 1.0, f32 2.0",
            "funo f32",
        ],
    );
    let mut args = [floats(&[0.0; 8])];
    exec(
        "__kernel void k(__global float *o) {
            float4 a = (float4)(1.0f, -2.0f, 0.0f, -0.0f);
            float4 s = sign(a);
            o[0] = s.x; o[1] = s.y; o[2] = s.z; o[3] = s.w;
            o[4] = sign(NAN);
            o[5] = smoothstep(0.0f, 2.0f, 1.0f);
            o[6] = mix(2.0f, 4.0f, 0.25f);
            o[7] = step(1.0f, 0.5f) + step(1.0f, 1.0f) * 10;
        }",
        1,
        &mut args,
    );
    let o = as_floats(&args[0]);
    assert_eq!(&o[..4], &[1.0, -1.0, 0.0, -0.0]);
    assert!(o[3].is_sign_negative());
    assert_eq!(o[4], 0.0);
    assert_eq!(o[5], 0.5);
    assert_eq!(o[6], 2.5);
    assert_eq!(o[7], 10.0);
}

#[test]
fn integer_builtins_are_exact() {
    let out = map_ints(
        "__kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            int x = in[i];
            int y = in[(i + 1) % 6];
            uint ux = (uint)x, uy = (uint)y;
            int r = 0;
            r ^= hadd(x, y) * 3;
            r ^= rhadd(x, y) * 5;
            r ^= (int)hadd(ux, uy) * 7;
            r ^= (int)rhadd(ux, uy) * 11;
            r ^= (int)abs_diff(x, y) * 13;
            r ^= (int)abs_diff(ux, uy) * 17;
            r ^= mad_sat(x, y, x) * 19;
            r ^= (int)mad_sat(ux, uy, ux) * 23;
            r ^= (int)abs(x) * 29;
            r ^= (int)upsample((short)x, (ushort)y) * 31;
            r ^= mul_hi(x, y) * 37;
            r ^= add_sat(x, y) * 41;
            r ^= sub_sat(ux, uy) * 43;
            r ^= select(x, y, x > y) * 47;
            r ^= select(x, y, (uint)(x & 0x80000000u)) * 53;
            r ^= bitselect(x, y, 0x0f0f0f0f) * 59;
            r ^= popcount(x) * 61 + clz(ux) * 67 + ctz(ux) * 71;
            r ^= rotate(x, y) * 73;
            out[i] = r;
        }",
        &[7, -9, i32::MAX, i32::MIN, 123456789, 0],
    );
    let input = [7i32, -9, i32::MAX, i32::MIN, 123456789, 0];
    let expected: Vec<i32> = (0..6)
        .map(|i| {
            let x = input[i];
            let y = input[(i + 1) % 6];
            let (ux, uy) = (x as u32, y as u32);
            let (xl, yl) = (x as i64, y as i64);
            let m = |a: i32, k: i32| a.wrapping_mul(k);
            let mut r = 0i32;
            r ^= m(((xl + yl) >> 1) as i32, 3);
            r ^= m(((xl + yl + 1) >> 1) as i32, 5);
            r ^= m(((ux as u64 + uy as u64) >> 1) as i32, 7);
            r ^= m(((ux as u64 + uy as u64 + 1) >> 1) as i32, 11);
            r ^= m((xl - yl).unsigned_abs() as u32 as i32, 13);
            r ^= m(ux.abs_diff(uy) as i32, 17);
            r ^= m(
                (xl * yl + xl).clamp(i32::MIN as i64, i32::MAX as i64) as i32,
                19,
            );
            r ^= m(
                ((ux as u64) * (uy as u64) + ux as u64).min(u32::MAX as u64) as u32 as i32,
                23,
            );
            r ^= m(x.unsigned_abs() as i32, 29);
            r ^= m(((x as i16 as i32) << 16) | (y as u16 as i32), 31);
            r ^= m(((xl * yl) >> 32) as i32, 37);
            r ^= m(x.saturating_add(y), 41);
            r ^= m(ux.saturating_sub(uy) as i32, 43);
            r ^= m(if x > y { y } else { x }, 47);
            r ^= m(if (ux & 0x8000_0000) != 0 { y } else { x }, 53);
            r ^= m((x & !0x0f0f0f0f) | (y & 0x0f0f0f0f), 59);
            r ^= m(x.count_ones() as i32, 61)
                .wrapping_add(m(ux.leading_zeros() as i32, 67))
                .wrapping_add(m(ux.trailing_zeros() as i32, 71));
            r ^= m(ux.rotate_left(uy % 32) as i32, 73);
            r
        })
        .collect();
    assert_eq!(out, expected);
}

#[test]
fn long_mad_sat_is_exact() {
    let mut args = [ArgValue::Buffer(vec![0; 8 * 6])];
    exec(
        "__kernel void k(__global long *o) {
            long big = 0x7fffffffffffffffL;
            o[0] = mad_sat(big, 2L, 0L);
            o[1] = mad_sat(big, -2L, 5L);
            o[2] = mad_sat(3L, 4L, -20L);
            o[3] = mad_sat(big, 1L, -1L);
            o[4] = (long)mad_sat(0xffffffffffffffffUL, 2UL, 0UL);
            o[5] = (long)mad_sat(3UL, 4UL, 0xfffffffffffffff0UL);
        }",
        1,
        &mut args,
    );
    let ArgValue::Buffer(b) = &args[0] else {
        unreachable!()
    };
    let o: Vec<i64> = b
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    assert_eq!(o, vec![i64::MAX, i64::MIN, -8, i64::MAX - 1, -1, -4]);
}

#[test]
fn geometric_and_relational_functions() {
    let s = ir(
        "__kernel void k(__global float4 *f, __global int4 *i, __global int *r) {
        r[0] = dot(f[0], f[1]) + length(f[0]) + distance(f[0], f[1]);
        f[2] = normalize(f[0]) + cross(f[0], f[1]);
        i[0] = isnan(f[0]) + isless(f[0], f[1]);
        r[1] = isinf(f[0].x) + any(i[1]) + all(i[2]);
    }",
    );
    assert_has(&s, &["sqrt f32", "funo f32", "folt f32", "cmp slt i32"]);
    let mut args = [ints(&[0; 8])];
    exec(
        "__kernel void k(__global int *o) {
            float4 a = (float4)(3.0f, 4.0f, 0.0f, 0.0f);
            o[0] = (int)length(a);
            o[1] = (int)dot(a, (float4)(1.0f, 2.0f, 3.0f, 4.0f));
            int4 n = isnan((float4)(NAN, 1.0f, INFINITY, -NAN));
            o[2] = n.x * 1000 + n.y * 100 + n.z * 10 + n.w;
            o[3] = isinf(-INFINITY) * 10 + isfinite(INFINITY) + isnormal(1e-40f) * 100;
            o[4] = any((int4)(0, 0, -1, 0)) * 10 + all((int4)(-1, -1, 5, -1));
            float3 c = cross((float3)(1.0f, 0.0f, 0.0f), (float3)(0.0f, 1.0f, 0.0f));
            o[5] = (int)(c.z * 10 + c.x + c.y);
            float2 u = normalize((float2)(0.0f, -2.0f));
            o[6] = (int)(u.y * 10) + (int)normalize((float2)(0.0f)).x;
            o[7] = signbit(-0.0f) + islessgreater(NAN, 1.0f) * 10 + isunordered(NAN, 1.0f) * 100;
        }",
        1,
        &mut args,
    );
    assert_eq!(as_ints(&args[0]), vec![5, 11, -1001, 10, 10, 10, -10, 101]);
}

#[test]
fn bool_conversions_and_float_truth() {
    let out = map_ints(
        "__kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            float f = in[i] == 2 ? NAN : (float)in[i];
            bool b = f;
            bool c = (bool)in[i];
            out[i] = b * 10 + c + !f * 100;
        }",
        &[0, 1, 2],
    );
    assert_eq!(out, vec![100, 11, 11]);
}

// ---- errors ---------------------------------------------------------------

#[test]
fn struct_kernel_arguments_are_one_parameter_per_field() {
    let src = "struct B { float lo; int n; char c; };
        __kernel void k(__global float *out, struct B box) { out[box.n] = box.lo + box.c; }";
    let f = lower(src);
    let fields: Vec<(Ty, Option<u32>, u32)> = f
        .params
        .iter()
        .filter(|p| p.name == "box")
        .map(|p| (p.ty, p.component, p.source_index))
        .collect();
    assert_eq!(
        fields,
        vec![
            (Ty::F32, Some(0), 1),
            (Ty::I32, Some(1), 1),
            (Ty::I8, Some(2), 1)
        ]
    );
    let unit = check(src);
    let k = unit.hir.kernels()[0];
    let p = unit.hir.function(k).params[1];
    let ty = &unit.hir.function(k).local(p).ty;
    assert_eq!(
        crate::lower::kernel_param_layout(&unit.hir, ty).unwrap(),
        vec![(0, Ty::F32), (4, Ty::I32), (8, Ty::I8)]
    );
}

#[test]
fn hir_with_errors_gives_lower_errors_not_panics() {
    let src = "__kernel void k(__global int *out, int n) {
        int x = undefined_name + 1;
        out[n] = x * nope(3);
        float4 v = (float4)(1.0f, 2.0f);
        if (v) out[0] = 1;
    }";
    let errors = lower_errors(src);
    assert!(!errors.is_empty());
    assert!(
        errors
            .iter()
            .all(|e| e.message.contains("did not type-check")),
        "{errors:?}"
    );
}

#[test]
fn undefined_helper_is_an_error() {
    let errors = lower_errors(
        "int helper(int x);
        __kernel void k(__global int *out) { out[0] = helper(1); }",
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].message.contains("declared but never defined"));
}

#[test]
fn non_kernels_are_not_lowered() {
    let unit =
        check("int f(int x) { return x; } __kernel void k(__global int *o) { o[0] = f(1); }");
    let f = unit.hir.function_by_name("f").expect("f");
    let e = lower_kernel(&unit.hir, f).expect_err("not a kernel");
    assert!(e[0].message.contains("not a kernel"));
    let e = lower_kernel(&unit.hir, lanes_frontend::hir::FuncId(99)).expect_err("no such function");
    assert!(!e.is_empty());
}

#[test]
fn the_nesting_limit_is_an_error_not_a_stack_overflow() {
    // 62 helpers, each nesting 30 additions around the call of the next:
    // beyond the nesting limit, lowered on a thread with Rust's default
    // 2 MiB stack.
    let mut src = String::from("int f0(int x) { return x; }\n");
    for k in 1..63 {
        let mut e = format!("f{}(x)", k - 1);
        for _ in 0..30 {
            e = format!("({e} + x)");
        }
        src.push_str(&format!("int f{k}(int x) {{ return {e}; }}\n"));
    }
    src.push_str("__kernel void k(__global int *out, int x) { out[0] = f62(x); }\n");
    let unit = check_text("t.cl", None, &src, &PreprocessOptions::default(), &RealFs);
    assert!(!unit.has_errors(), "{:?}", unit.diagnostics.first());
    let k = unit.hir.kernels()[0];
    let hir = unit.hir.clone();
    let h = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            lower_kernel(&hir, k)
                .map(|f| f.insts.len())
                .map_err(|e| e.into_iter().map(|x| x.message).collect::<Vec<_>>())
        })
        .expect("thread");
    let errors = h.join().expect("no stack overflow").expect_err("too deep");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].contains("nested too deeply"), "{errors:?}");
}

#[test]
fn nested_control_flow_matches_a_reference() {
    let src = "int collatz(int x) {
            if (x % 2 == 0) return x / 2;
            return 3 * x + 1;
        }
        __kernel void k(__global int *in, __global int *out) {
            int i = get_global_id(0);
            int x = in[i];
            int steps = 0, odd = 0, acc = 0;
            while (x != 1) {
                x = collatz(x);
                steps++;
                if (steps > 200) break;
                switch (x & 3) {
                case 1:
                    odd++;
                    if (odd > 5) continue;
                case 3:
                    acc += x;
                    break;
                default:
                    for (int j = 0; j < 3; j++) {
                        if (j == x % 3) continue;
                        acc ^= j;
                        if (acc > 1000) break;
                    }
                }
                acc &= 0xffff;
            }
            out[i] = steps * 1000000 + odd * 10000 + acc;
        }";
    let reference = |mut x: i32| {
        let (mut steps, mut odd, mut acc) = (0, 0, 0);
        while x != 1 {
            x = if x % 2 == 0 { x / 2 } else { 3 * x + 1 };
            steps += 1;
            if steps > 200 {
                break;
            }
            match x & 3 {
                1 | 3 => {
                    let mut skip = false;
                    if x & 3 == 1 {
                        odd += 1;
                        skip = odd > 5;
                    }
                    if skip {
                        continue;
                    }
                    acc += x;
                }
                _ => {
                    for j in 0..3 {
                        if j == x % 3 {
                            continue;
                        }
                        acc ^= j;
                        if acc > 1000 {
                            break;
                        }
                    }
                }
            }
            acc &= 0xffff;
        }
        steps * 1000000 + odd * 10000 + acc
    };
    let input = [1, 2, 3, 6, 7, 27, 97, 871];
    let expected: Vec<i32> = input.iter().map(|&x| reference(x)).collect();
    assert_eq!(map_ints(src, &input), expected);
}

// ---- half storage and pointer-output math --------------------------------

/// Special and ordinary float inputs for the math expansions.
fn math_inputs() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.5,
        -2.5,
        3.0,
        -7.25,
        1e-40,
        -1e-42,
        f32::MIN_POSITIVE,
        1e30,
        -3e38,
        f32::MAX,
        16_777_215.5,
        -0.999_999_94,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let mut s = 0x1234_5678u32;
    for _ in 0..200 {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        // Random bit patterns, mostly finite.
        v.push(f32::from_bits(s & 0xbfff_ffff));
    }
    v
}

fn same(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

#[test]
fn fract_modf_frexp_sincos_follow_opencl() {
    let src = "__kernel void k(__global const float *x, __global float *fr,
            __global float *fl, __global float *mf, __global float *ip,
            __global float *mant, __global int *ex, __global float *s,
            __global float *c) {
        int i = get_global_id(0);
        float p;
        fr[i] = fract(x[i], &fl[i]);
        mf[i] = modf(x[i], &p);
        ip[i] = p;
        int e;
        mant[i] = frexp(x[i], &e);
        ex[i] = e;
        s[i] = sincos(x[i], &c[i]);
    }";
    let xs = math_inputs();
    let n = xs.len();
    let z = vec![0.0f32; n];
    let mut args = [
        floats(&xs),
        floats(&z),
        floats(&z),
        floats(&z),
        floats(&z),
        floats(&z),
        ints(&vec![0; n]),
        floats(&z),
        floats(&z),
    ];
    exec(src, n as u64, &mut args);
    let out: Vec<Vec<f32>> = args.iter().map(as_floats).collect();
    let ex = as_ints(&args[6]);
    for (i, &x) in xs.iter().enumerate() {
        // fract: fmin(x - floor(x), 0x1.fffffep-1f); ±0 for ±0 and ±inf.
        let want = if x.is_nan() {
            f32::NAN
        } else if x.is_infinite() || x == 0.0 {
            0f32.copysign(x)
        } else {
            (x - x.floor()).min(f32::from_bits(0x3f7f_ffff))
        };
        assert!(same(out[1][i], want), "fract({x:e}) = {:e}", out[1][i]);
        assert!(same(out[2][i], x.floor()), "fract({x:e}) floor");
        assert!((0.0..1.0).contains(&out[1][i]) || !x.is_finite() || x == 0.0);
        let (wf, wi) = libm::modff(x);
        assert!(
            same(out[3][i], wf),
            "modf({x:e}) = {:e}, want {wf:e}",
            out[3][i]
        );
        assert!(same(out[4][i], wi), "modf({x:e}) int part");
        let (wm, we) = libm::frexpf(x);
        assert!(
            same(out[5][i], wm),
            "frexp({x:e}) = {:e}, want {wm:e}",
            out[5][i]
        );
        if x.is_finite() {
            assert_eq!(ex[i], we, "frexp({x:e}) exponent");
        } else {
            assert_eq!(ex[i], 0, "frexp({x:e}) exponent");
        }
        assert!(
            same(out[7][i], x.sin()) && same(out[8][i], x.cos()),
            "sincos({x:e})"
        );
    }
}

#[test]
fn remquo_and_remainder_round_the_quotient_to_nearest_even() {
    let src = "__kernel void k(__global const float *x, __global const float *y,
            __global float *r, __global int *q, __global float *rem) {
        int i = get_global_id(0);
        r[i] = remquo(x[i], y[i], &q[i]);
        rem[i] = remainder(x[i], y[i]);
    }";
    let base = math_inputs();
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for (i, &a) in base.iter().enumerate() {
        for &b in &[base[(i * 7 + 3) % base.len()], 3.0, -0.75, 1e-41, 2.5, 0.0] {
            xs.push(a);
            ys.push(b);
        }
    }
    // Exact ties: 2.5 / 1 and 3.5 / 1 (to even), -5 / 2.
    xs.extend([2.5, 3.5, -5.0, 1e38, 7.0]);
    ys.extend([1.0, 1.0, 2.0, 1e-38, f32::INFINITY]);
    let n = xs.len();
    let mut args = [
        floats(&xs),
        floats(&ys),
        floats(&vec![0.0; n]),
        ints(&vec![0; n]),
        floats(&vec![0.0; n]),
    ];
    exec(src, n as u64, &mut args);
    let r = as_floats(&args[2]);
    let q = as_ints(&args[3]);
    let rem = as_floats(&args[4]);
    for i in 0..n {
        let (x, y) = (xs[i], ys[i]);
        let (wr, wq) = libm::remquof(x, y);
        assert!(
            same(r[i], wr),
            "remquo({x:e}, {y:e}) = {:e}, want {wr:e}",
            r[i]
        );
        assert!(
            same(rem[i], libm::remainderf(x, y)),
            "remainder({x:e}, {y:e})"
        );
        if wr.is_nan() {
            continue;
        }
        // The sign of x/y and the low 7 bits (libm keeps 31).
        if q[i] != 0 {
            assert_eq!(
                q[i].signum(),
                wq.signum(),
                "remquo({x:e}, {y:e}) sign: {}",
                q[i]
            );
        }
        assert_eq!(
            q[i].abs(),
            wq.abs() & 127,
            "remquo({x:e}, {y:e}) quo {} vs {wq}",
            q[i]
        );
        assert!(q[i].abs() < 128);
        // The 7 bits against an exact quotient where it is small enough.
        let exact = (f64::from(x) / f64::from(y)).round_ties_even();
        if exact.abs() < 1e6 && f64::from(x) - exact * f64::from(y) == f64::from(wr) {
            assert_eq!(
                i64::from(q[i].abs()),
                exact.abs() as i64 % 128,
                "remquo({x:e}, {y:e})"
            );
        }
    }
    assert_eq!(&q[n - 5..n - 1], &[2, 4, -2, q[n - 2]]);
}

#[test]
fn lgamma_r_stores_the_sign_of_gamma() {
    let src = "__kernel void k(__global const float *x, __global float *r, __global int *s) {
        int i = get_global_id(0);
        r[i] = lgamma_r(x[i], &s[i]);
    }";
    let xs = [0.5f32, 3.0, -0.5, -1.5, -2.5, 10.0, -0.0, -3.0];
    let n = xs.len();
    let mut args = [floats(&xs), floats(&vec![0.0; n]), ints(&vec![0; n])];
    exec(src, n as u64, &mut args);
    let r = as_floats(&args[1]);
    let s = as_ints(&args[2]);
    for i in 0..n {
        let (wr, ws) = libm::lgammaf_r(xs[i]);
        assert!(
            same(r[i], wr) || (r[i] - wr).abs() <= 1e-6 * wr.abs(),
            "lgamma({})",
            xs[i]
        );
        assert_eq!(s[i], ws, "sign of gamma({})", xs[i]);
    }
}

#[test]
fn vload_half_and_vstore_half_convert_exactly() {
    let src = "__kernel void k(__global const float *x, __global half *h,
            __global half *rtz, __global half *rtp, __global half *rtn,
            __global float *back, __global const half *pairs, __global float *wide) {
        int i = get_global_id(0);
        vstore_half(x[i], i, h);
        vstore_half_rtz(x[i], i, rtz);
        vstore_half_rtp(x[i], i, rtp);
        vstore_half_rtn(x[i], i, rtn);
        back[i] = vload_half(i, h);
        vstore2(vload_half2(i, pairs), i, wide);
    }";
    let mut xs = math_inputs();
    xs.extend([
        65504.0,
        65519.0,
        65520.0,
        1e5,
        -1e5,
        5.960_464_5e-8,
        2.98e-8,
        1.000_488_3,
        1.000_976_6,
    ]);
    let n = xs.len();
    let pairs: Vec<u8> = (0..2 * n as u32)
        .flat_map(|k| ((k * 2477) as u16).to_le_bytes())
        .collect();
    let halves = ArgValue::Buffer(vec![0; 2 * n]);
    let mut args = [
        floats(&xs),
        halves.clone(),
        halves.clone(),
        halves.clone(),
        halves,
        floats(&vec![0.0; n]),
        ArgValue::Buffer(pairs.clone()),
        floats(&vec![0.0; 2 * n]),
    ];
    exec(src, n as u64, &mut args);
    let h16 = |a: &ArgValue| -> Vec<u16> {
        match a {
            ArgValue::Buffer(b) => b
                .chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect(),
            other => panic!("{other:?}"),
        }
    };
    let (h, rtz, rtp, rtn) = (h16(&args[1]), h16(&args[2]), h16(&args[3]), h16(&args[4]));
    let back = as_floats(&args[5]);
    use crate::half::{f32_to_half_bits, half_bits_to_f32};
    for (i, &x) in xs.iter().enumerate() {
        assert_eq!(h[i], f32_to_half_bits(x), "vstore_half({x:e})");
        assert!(same(back[i], half_bits_to_f32(h[i])));
        if x.is_nan() {
            continue;
        }
        let v = |b: u16| half_bits_to_f32(b);
        // Directed roundings bracket x and are neighbours of the nearest.
        assert!(
            v(rtp[i]) >= x && v(rtn[i]) <= x,
            "rtp/rtn of {x:e}: {:e} {:e}",
            v(rtp[i]),
            v(rtn[i])
        );
        assert!(v(rtz[i]).abs() <= x.abs(), "rtz of {x:e}: {:e}", v(rtz[i]));
        if v(h[i]) == x {
            assert!(v(rtz[i]) == x && v(rtp[i]) == x && v(rtn[i]) == x);
        } else {
            assert!(v(rtp[i]) > x && v(rtn[i]) < x, "{x:e}");
            assert!(
                v(rtz[i]).is_finite() || x.is_infinite(),
                "rtz of {x:e} overflowed"
            );
        }
    }
    let wide = as_floats(&args[7]);
    for k in 0..2 * n {
        let b = u16::from_le_bytes([pairs[2 * k], pairs[2 * k + 1]]);
        assert!(same(wide[k], half_bits_to_f32(b)), "vload_half2 of {b:#x}");
    }
}

// ---- work-group features ------------------------------------------------

/// Kernel-scope `__local` variables (an array, a 2-D array, a struct) are
/// `Function::locals` addressed by `ValueDef::Local`; a `__local` pointer
/// parameter is a `ptr.local` parameter, and helpers taking one are inlined.
#[test]
fn local_variables_and_parameters() {
    let src = "typedef struct { int n; float sum; } Acc;
        void put(__local float *t, int i, float v) { t[i] = v; }
        __kernel void k(__global float *out, __local float *scratch) {
            __local float tile[16][17];
            __local Acc acc;
            __local int counts[4];
            int l = get_local_id(0);
            put(&tile[l][0], 1, out[l]);
            scratch[l] = tile[l][1];
            acc.sum = scratch[l];
            __local int *c = counts + 1;
            c[l] = (int)acc.sum;
            out[l] = (float)counts[l];
        }";
    let f = lower(src);
    assert_eq!(
        f.locals
            .iter()
            .map(|l| (l.name.as_str(), l.size, l.align))
            .collect::<Vec<_>>(),
        vec![("tile", 16 * 17 * 4, 4), ("acc", 8, 4), ("counts", 16, 4)]
    );
    assert!(f
        .params
        .iter()
        .any(|p| p.name == "scratch" && p.ty == Ty::Ptr(lanes_frontend::ast::AddressSpace::Local)));
    assert!(f.uses_work_group_features());
    let text = print(&f, &Plain);
    assert_has(&text, &["@local.tile", "@local.acc", "@local.counts"]);
    // No private copy of a __local variable.
    assert_eq!(count(&text, "alloca"), 0, "{text}");
}

#[test]
fn barriers_take_their_fence_flags_and_fences_lower_to_nothing() {
    let text = ir("__kernel void k(__global int *p) {
            p[0] = 1;
            barrier(CLK_LOCAL_MEM_FENCE);
            work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
            mem_fence(CLK_GLOBAL_MEM_FENCE);
            read_mem_fence(CLK_LOCAL_MEM_FENCE);
            write_mem_fence(CLK_LOCAL_MEM_FENCE);
            atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
            p[1] = 2;
        }");
    assert_has(
        &text,
        &[
            "barrier local\n",
            "barrier global\n",
            "barrier local|global\n",
        ],
    );
    assert_eq!(count(&text, "barrier"), 3, "{text}");
}

/// OpenCL 1.0, 1.1 and 2.0 atomics become `atomic.*` with the old value;
/// `atomic_inc` is an add of 1, min/max follow the signedness.
#[test]
fn atomics_of_every_generation() {
    let text = ir("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
        __kernel void k(volatile __global int *g, volatile __global uint *u,
                        __global long *w, __global atomic_int *a, __global float *f) {
            __local int l[2];
            int x = atomic_add(g, 2) + atomic_inc(&l[0]) + atomic_dec(g)
                + atomic_min(g, 3) + (int)atomic_max(u, 4u) + atomic_cmpxchg(g, 1, 5)
                + atom_xchg(&l[1], 6) + (int)atom_add(w, 7L);
            float y = atomic_xchg(f, 1.5f);
            atomic_store_explicit(a, x, memory_order_relaxed);
            int z = atomic_load(a) + atomic_fetch_or_explicit(a, 8, memory_order_acq_rel, memory_scope_device);
            g[1] = z + (int)y;
        }");
    assert_has(
        &text,
        &[
            "atomic.add i32",
            "atomic.sub i32",
            "atomic.smin i32",
            "atomic.umax i32",
            "atomic.cmpxchg i32",
            "atomic.add i32 @local.l, i32 1",
            "atomic.xchg i32 %",
            "atomic.add i64",
            "atomic.xchg f32",
            "atomic.store",
            "atomic.load i32",
            "atomic.or i32",
        ],
    );
    assert_eq!(count(&text, "atomic.add i32"), 2, "{text}");
}

/// `atomic_compare_exchange_*`: the expected value is loaded, the old value
/// stored back into `*expected`, and the result is the comparison.
#[test]
fn compare_exchange_updates_expected() {
    let text = ir("__kernel void k(__global atomic_uint *r, __global uint *out) {
            uint seen = 0;
            bool ok = atomic_compare_exchange_strong(r, &seen, 5u);
            atomic_flag_clear((__global atomic_flag *)out);
            out[0] = seen + (ok ? 1u : 0u) + (atomic_flag_test_and_set((__global atomic_flag *)out) ? 1u : 0u);
        }");
    assert_has(&text, &["atomic.cmpxchg i32", "atomic.xchg i32"]);
    assert_eq!(count(&text, "atomic.store"), 1, "{text}");
}

#[test]
fn work_group_collectives_lower_to_work_group_instructions() {
    let text = ir("__kernel void k(__global float *x, __global int *o) {
            size_t i = get_global_id(0);
            float s = work_group_reduce_add(x[i]);
            int m = work_group_scan_exclusive_max((int)i);
            int b = work_group_broadcast(m, 0, 1);
            o[i] = (int)s + b + work_group_any(m > 3) + work_group_all(m < 9)
                + (int)work_group_scan_inclusive_min((uint)i);
        }");
    assert_has(
        &text,
        &[
            "work_group.reduce.fadd f32(",
            "work_group.scan_excl.smax i32(",
            "work_group.broadcast i32(",
            "work_group.any i1(",
            "work_group.all i1(",
            "work_group.scan_incl.umin i32(",
        ],
    );
}

/// `async_work_group_copy` is a loop over the linear local id stepping by
/// the work-group size; `wait_group_events` is a barrier on both memories.
#[test]
fn async_copies_are_loops_over_the_local_id() {
    let text = ir(
        "__kernel void k(__global float4 *in, __local float4 *tile, __global float *col) {
            event_t e = async_work_group_copy(tile, in + 4, 64, 0);
            wait_group_events(1, &e);
            event_t f = async_work_group_strided_copy(col, (__local float *)tile, 16, 8, 0);
            prefetch(in, 16);
            wait_group_events(1, &f);
        }",
    );
    assert_eq!(count(&text, "async.cond"), 2 * 3, "{text}");
    assert_eq!(count(&text, "barrier local|global"), 2, "{text}");
    assert_eq!(count(&text, "get_local_id"), 6, "{text}");
    assert_eq!(count(&text, "get_local_size"), 6, "{text}");
}
