//! Snapshots of whole hovers and of the edits code actions make. Each
//! fixture is a file with a `$0` cursor; `UPDATE_EXPECT=1 cargo test -p
//! lanes-diagnostics --test snapshots` rewrites the `expect!` blocks after
//! an intended change (review the diff).

mod common;
use common::infer_preconditions;

use expect_test::{expect, Expect};
use lanes_db::{File, LanesDatabase, Settings};
use lanes_diagnostics::ide::actions::code_actions;
use lanes_diagnostics::ide::diagnostics::diagnostics;
use lanes_diagnostics::ide::hover::hover;
use lanes_diagnostics::ide::inlay::inlay_hints;
use lanes_diagnostics::ide::{apply_edits, TextRange};

const CURSOR: &str = "$0";

/// The fixture without its cursor, opened in a database for a 16-lane
/// target, and the cursor's offset.
fn open(fixture: &str) -> (LanesDatabase, File, String, u32) {
    let offset = fixture.find(CURSOR).expect("the fixture has no $0") as u32;
    let text = fixture.replacen(CURSOR, "", 1);
    let mut db = LanesDatabase::new(Settings::for_target("avx512skx-x16").unwrap());
    let file = db.set_file("/virtual/fixture.cl", &text, 1);
    (db, file, text, offset)
}

fn render_hover(db: &LanesDatabase, f: File, text: &str, offset: u32) -> String {
    match hover(db, f, offset) {
        Some(h) => format!(
            "on `{}`\n\n{}\n",
            &text[h.range.start as usize..h.range.end as usize],
            without_millis(&h.markdown)
        ),
        None => "no hover\n".to_string(),
    }
}

/// The text with every `<number> ms` (wall-clock, informational) as `N ms`.
fn without_millis(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find(" ms") {
        let head = &rest[..i];
        let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        out.push_str(&head[..head.len() - digits]);
        out.push_str(if digits > 0 { "N ms" } else { " ms" });
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
    out
}

fn check_hover(fixture: &str, expect: Expect) {
    let (db, f, text, offset) = open(fixture);
    expect.assert_eq(&render_hover(&db, f, &text, offset));
}

/// The hover once the precondition inference has run.
fn check_hover_with_preconditions(fixture: &str, expect: Expect) {
    let (mut db, f, text, offset) = open(fixture);
    infer_preconditions(&mut db, f);
    expect.assert_eq(&render_hover(&db, f, &text, offset));
}

/// The file after the action whose title starts with `title`, offered at
/// the cursor (after the precondition inference).
fn check_action(fixture: &str, title: &str, expect: Expect) {
    let (mut db, f, text, offset) = open(fixture);
    infer_preconditions(&mut db, f);
    let actions = code_actions(&db, f, TextRange::empty(offset));
    let Some(a) = actions.iter().find(|a| a.title.starts_with(title)) else {
        panic!(
            "no action {title:?} at the cursor; offered: {:?}",
            actions.iter().map(|a| &a.title).collect::<Vec<_>>()
        );
    };
    let after = apply_edits(&text, &a.edits);
    expect.assert_eq(&format!("{}\n\n{}", a.title, changed_lines(&text, &after)));
}

/// The file after the action whose title starts with `title` at the
/// cursor, re-analysed (with the precondition inference run again).
fn applied(fixture: &str, title: &str) -> (LanesDatabase, File, String) {
    let (mut db, f, text, offset) = open(fixture);
    infer_preconditions(&mut db, f);
    let actions = code_actions(&db, f, TextRange::empty(offset));
    let a = actions
        .iter()
        .find(|a| a.title.starts_with(title))
        .unwrap_or_else(|| panic!("no action {title:?} at the cursor"));
    let after = apply_edits(&text, &a.edits);
    db.set_file("/virtual/fixture.cl", &after, 2);
    infer_preconditions(&mut db, f);
    (db, f, after)
}

/// The inlay hints of `range`, one line of the file per line, each hint
/// in brackets where it is shown.
fn render_hints(db: &LanesDatabase, f: File, text: &str, range: TextRange) -> String {
    let hints = inlay_hints(db, f, range);
    let mut out = String::new();
    let first = text[..range.start as usize]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let mut at = first;
    for h in &hints {
        let o = h.offset as usize;
        out.push_str(&text[at..o]);
        out.push_str(&format!("[{}]", h.label.trim()));
        at = o;
    }
    let end = text[range.end as usize..]
        .find('\n')
        .map_or(text.len(), |i| range.end as usize + i + 1);
    out.push_str(&text[at..end]);
    // Numbered, so that the snapshot keeps the lines' own indentation.
    let line0 = text[..first].matches('\n').count() + 1;
    out.lines()
        .enumerate()
        .map(|(i, l)| format!("{:>2} |{l}\n", line0 + i))
        .collect()
}

/// The lines of `after` that differ from `before`, with one line of
/// context on each side.
fn changed_lines(before: &str, after: &str) -> String {
    let (b, a): (Vec<&str>, Vec<&str>) = (before.lines().collect(), after.lines().collect());
    let head = b.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let tail = b[head..]
        .iter()
        .rev()
        .zip(a[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let from = head.saturating_sub(1);
    let to = (a.len() - tail + 1).min(a.len());
    a[from..to].iter().map(|l| format!("{l}\n")).collect()
}

const MANDELBROT: &str = r#"__kernel void mandelbrot(__global uint *iterations, int width, int height,
                         float x_min, float y_min, float step, uint max_iter)
{
    int px = get_global_id(0);
    int py = get_global_id(1);
    if (px >= width || py >= height)
        return;
    float cr = x_min + px * step;
    float ci = y_min + py * step;
    float zr = 0.0f;
    float zi = 0.0f;
    uint it = 0;
    $0while (it < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        it++;
    }
    iterations[py * width + px] = it;
}
"#;

#[test]
fn hover_on_the_while_of_a_divergent_loop() {
    check_hover(
        MANDELBROT,
        expect![[r#"
        on `while`

        **divergent loop** in kernel `mandelbrot` (16 lanes): lanes leave it in different iterations (L0201).

        vectorized as a masked loop: the SIMD group iterates until its last lane is done; lanes that are done wait under the loop's mask.

        **why**:
        - line 13: `zr * zr + zi * zi <= 4.0f` is varying
        - line 13: `zr * zr + zi * zi` is varying
        - …
        - line 8: `px` is varying
        - line 4: `get_global_id(0)` is contiguous
    "#]],
    );
}

const CONVOLUTION: &str = r#"__kernel void convolution(__global const float *input,
                          __global float *output,
                          __global const float *stencil,
                          int width,
                          int stencilWidth)
{
    int x = get_global_id(0);
    if (x >= width)
        return;
    int vstep = (stencilWidth - 1) / 2;
    int left = max(0, x - vstep);
    int right = min(width - 1, x + vstep);
    float sum = 0.0f;
    // The stencil, clipped at the image border.
    for (int i = left; i <= right; ++i)  // clipped
        sum += input[i] * stencil[i - (x - vstep)];
    output[x] = sum;
}
"#;

/// `CONVOLUTION` with the cursor before the first `needle` after `anchor`.
fn conv_at(anchor: &str, needle: &str) -> String {
    let a = CONVOLUTION.find(anchor).unwrap();
    let at = a + CONVOLUTION[a..].find(needle).unwrap();
    format!("{}$0{}", &CONVOLUTION[..at], &CONVOLUTION[at..])
}

#[test]
fn hover_on_the_for_of_a_divergent_loop_with_its_fast_path() {
    check_hover_with_preconditions(
        &conv_at("// The stencil", "for"),
        expect![[r#"
            on `for`

            **divergent loop** in kernel `convolution` (16 lanes): lanes leave it in different iterations (L0201).

            vectorized as a masked loop: the SIMD group iterates until its last lane is done; lanes that are done wait under the loop's mask.

            **why**:
            - line 15: `i <= right` is varying
            - line 15: `i` is varying
            - line 11: `max(0, x - vstep)` is varying
            - line 11: `x - vstep` is contiguous
            - line 7: `get_global_id(0)` is contiguous

            ---

            **Fast path**: when every lane of the SIMD group satisfies `vstep <= x && x < width - vstep`, the loop runs the same number of iterations on every lane.

            For the group, with x0 the value of lane 0: `vstep <= x0 && x0 + 15 < width - vstep`.

            Found by deciding the min/max/select pieces it depends on; proven with Z3 for every lane (5 queries, N ms). The code action *Add fast path* inserts `if (sub_group_all(P)) { <copy> } else { <original> }`; inside the copy the analysis assumes P.
        "#]],
    );
}

#[test]
fn hover_on_the_if_of_a_divergent_branch_with_its_fast_path() {
    check_hover_with_preconditions(
        &conv_at("int x", "if"),
        expect![[r#"
            on `if`

            **divergent branch** (`if`) in kernel `convolution` (16 lanes): lanes take different sides, so both sides run under a mask (L0300).

            vectorized as masked code with a BOSCC skip: the group first tests whether any lane takes the side and jumps over it when none does.

            **why**:
            - line 8: `x >= width` is varying
            - line 7: `get_global_id(0)` is contiguous

            ---

            **Fast path**: when every lane of the SIMD group satisfies `x < width`, the branch goes the same way on every lane.

            For the group, with x0 the value of lane 0: `x0 + 15 < width`.

            Found by deciding the min/max/select pieces it depends on; proven with Z3 for every lane (3 queries, N ms). The code action *Add fast path* inserts `if (sub_group_all(P)) { <copy> } else { <original> }`; inside the copy the analysis assumes P.
        "#]],
    );
}

#[test]
fn hover_on_return_under_a_divergent_branch() {
    check_hover(
        &conv_at("int x", "return"),
        expect![[r#"
        on `return`

        **`return`**: leaves the kernel.

        Under the divergent branch at line 8: the lanes that return stay inactive for the rest of the kernel, so the code after it runs under a mask (its memory accesses are masked).
    "#]],
    );
}

#[test]
fn hover_on_a_contiguous_variable() {
    check_hover(
        &conv_at("int x", "x"),
        expect![[r#"
        on `x`

        ```c
        int x
        ```
        local variable of `convolution`

        **contiguous** in kernel `convolution` (16 lanes): lane `l` holds `v0 + l`

        vectorized as a vector register of 16 × `int` (one per lane)

        **why**:
        - line 7: `get_global_id(0)` is contiguous
    "#]],
    );
}

#[test]
fn hover_on_a_uniform_variable() {
    check_hover(
        &conv_at("int vstep", "vstep"),
        expect![[r#"
        on `vstep`

        ```c
        int vstep
        ```
        local variable of `convolution`

        **uniform** in kernel `convolution` (16 lanes): the same value in every lane

        vectorized as a scalar: one register for the whole SIMD group
    "#]],
    );
}

#[test]
fn hover_on_a_varying_variable() {
    check_hover(
        &conv_at("int left", "left"),
        expect![[r#"
        on `left`

        ```c
        int left
        ```
        local variable of `convolution`

        **varying** in kernel `convolution` (16 lanes): lanes hold unrelated values

        vectorized as a vector register of 16 × `int` (one per lane)

        **why**:
        - line 11: `max(0, x - vstep)` is varying
        - line 11: `x - vstep` is contiguous
        - line 7: `get_global_id(0)` is contiguous
    "#]],
    );
}

#[test]
fn hover_on_a_masked_gather() {
    check_hover(
        &conv_at("sum +=", "[i]"),
        expect![[r#"
            on `input[i]`

            **masked gather** load `input[i]` in kernel `convolution` (16 lanes)

            vectorized as a gather: 16 unrelated addresses, about one scalar load per lane, masked (only the active lanes access memory) (vector IR: 1 memory operation under a block mask).

            masked: lanes are off here because of the divergent branch on `i <= right` (line 15)

            **why**:
            - line 16: `input[i]` is varying
            - line 16: `i` is varying
            - line 15: `i` is varying
            - line 11: `max(0, x - vstep)` is varying
            - line 11: `x - vstep` is contiguous
            - line 7: `get_global_id(0)` is contiguous
        "#]],
    );
}

#[test]
fn hover_on_a_masked_packed_store() {
    check_hover(
        &conv_at("output[x]", "[x]"),
        expect![[r#"
            on `output[x]`

            **masked packed store** `output[x]` in kernel `convolution` (16 lanes)

            vectorized as one packed vector store of 16 consecutive elements, masked (only the active lanes access memory) (vector IR: 1 memory operation under a block mask).

            masked: lanes are off here because of the divergent branch on `x >= width` (line 8)

            **why**:
            - line 17: `output[x]` is strided(4)
            - line 17: `x` is contiguous
            - line 7: `get_global_id(0)` is contiguous
        "#]],
    );
}

const BRANCHES: &str = r#"__kernel void threshold(__global const float *in, __global float *out,
                        __global const int *index, __global float *hist,
                        float limit, int n)
{
    int gid = get_global_id(0);
    float v = in[gid];
    $0if (v > limit) {
        out[gid] = limit;
    } else {
        out[gid] = v;
    }
    hist[index[gid]] = v;
}
"#;

fn branches_at(anchor: &str, needle: &str) -> String {
    let text = BRANCHES.replacen(CURSOR, "", 1);
    let a = text.find(anchor).unwrap();
    let at = a + text[a..].find(needle).unwrap();
    format!("{}$0{}", &text[..at], &text[at..])
}

#[test]
fn hover_on_the_if_and_else_of_a_divergent_branch() {
    check_hover(
        BRANCHES,
        expect![[r#"
        on `if`

        **divergent branch** (`if`) in kernel `threshold` (16 lanes): lanes take different sides, so both sides run under a mask (L0300).

        vectorized as masked code: both sides run one after the other, each under its mask (no jump).

        **why**:
        - line 7: `v > limit` is varying
        - line 6: `in[gid]` is varying
        - line 6: `gid` is contiguous
        - line 5: `get_global_id(0)` is contiguous
    "#]],
    );
    check_hover(
        &branches_at("} else", "else"),
        expect![[r#"
        on `else`

        **divergent branch** (`else` of the `if` at line 7) in kernel `threshold` (16 lanes): the `else` side runs for the lanes whose condition is false, so both sides run under a mask (L0300).

        vectorized as masked code: both sides run one after the other, each under its mask (no jump).

        **why**:
        - line 7: `v > limit` is varying
        - line 6: `in[gid]` is varying
        - line 6: `gid` is contiguous
        - line 5: `get_global_id(0)` is contiguous
    "#]],
    );
}

#[test]
fn hover_on_a_packed_load_and_a_scatter() {
    check_hover(
        &branches_at("float v", "in["),
        expect![[r#"
        on `in`

        ```c
        __global const float *in
        ```
        parameter of `threshold`

        **uniform** in kernel `threshold` (16 lanes): the same value in every lane

        vectorized as a scalar: one register for the whole SIMD group

        ---

        **packed** load `in[gid]` in kernel `threshold` (16 lanes)

        vectorized as one packed vector load of 16 consecutive elements (vector IR: in a block that runs with the group's entry mask).

        **why**:
        - line 6: `in[gid]` is strided(4)
        - line 6: `gid` is contiguous
        - line 5: `get_global_id(0)` is contiguous
    "#]],
    );
    check_hover(
        &branches_at("hist[", "hist["),
        expect![[r#"
        on `hist`

        ```c
        __global float *hist
        ```
        parameter of `threshold`

        **uniform** in kernel `threshold` (16 lanes): the same value in every lane

        vectorized as a scalar: one register for the whole SIMD group

        ---

        **scatter** store `hist[index[gid]]` in kernel `threshold` (16 lanes)

        vectorized as a scatter: 16 unrelated addresses, about one scalar store per lane (vector IR: in a block that runs with the group's entry mask).

        **why**:
        - line 12: `hist[index[gid]]` is varying
        - line 12: `index[gid]` is varying
        - line 12: `gid` is contiguous
        - line 5: `get_global_id(0)` is contiguous
    "#]],
    );
}

const UNIFORM_LOOPS: &str = r#"__kernel void row_sums(__global const float *a, __global float *sums,
                       int cols, int mode)
{
    int row = get_global_id(0);
    float s = 0.0f;
    int c = 0;
    do {
        s += a[c * get_global_size(0) + row];
        c++;
    } while (c < cols);
    switch (mode) {
    case 0:
        sums[row] = s;
        break;
    default:
        sums[row] = s / cols;
        break;
    }
}
"#;

fn uniform_at(anchor: &str, needle: &str) -> String {
    let a = UNIFORM_LOOPS.find(anchor).unwrap();
    let at = a + UNIFORM_LOOPS[a..].find(needle).unwrap();
    format!("{}$0{}", &UNIFORM_LOOPS[..at], &UNIFORM_LOOPS[at..])
}

#[test]
fn hover_on_do_and_while_of_a_uniform_loop() {
    check_hover(
        &uniform_at("int c", "do"),
        expect![[r#"
        on `do`

        **uniform loop** in kernel `row_sums` (16 lanes): every lane leaves it in the same iteration (its exit conditions are the same across the lanes).

        vectorized with a uniform exit: one scalar branch for the whole SIMD group, no loop mask.
    "#]],
    );
    check_hover(
        &uniform_at("c++", "while"),
        expect![[r#"
        on `while`

        **uniform loop** in kernel `row_sums` (16 lanes): every lane leaves it in the same iteration (its exit conditions are the same across the lanes).

        vectorized with a uniform exit: one scalar branch for the whole SIMD group, no loop mask.
    "#]],
    );
}

#[test]
fn hover_on_a_loop_with_an_unroll_pragma() {
    let src = UNIFORM_LOOPS.replace("    do {", "    #pragma unroll 4\n    do {");
    let a = src.find("int c").unwrap();
    let at = a + src[a..].find("do").unwrap();
    check_hover(
        &format!("{}$0{}", &src[..at], &src[at..]),
        expect![[r#"
            on `do`

            **uniform loop** in kernel `row_sums` (16 lanes): every lane leaves it in the same iteration (its exit conditions are the same across the lanes).

            vectorized with a uniform exit: one scalar branch for the whole SIMD group, no loop mask.

            **unrolled by 4** (its `#pragma`); each iteration runs a whole SIMD group.
        "#]],
    );
}

#[test]
fn hover_on_a_uniform_switch_and_its_break() {
    check_hover(
        &uniform_at("c < cols", "switch"),
        expect![[r#"
        on `switch`

        **uniform branch** (`switch`) in kernel `row_sums` (16 lanes): every lane of the SIMD group goes the same way.

        vectorized as a scalar branch: the whole group jumps, no mask.
    "#]],
    );
    check_hover(
        &uniform_at("case 0", "break"),
        expect![[r#"
        on `break`

        **`break`**: leaves the switch at line 11.
    "#]],
    );
}

#[test]
fn action_guard_with_any() {
    let fixture = r#"__kernel void clamp_high(__global float *data, float limit)
{
    int gid = get_global_id(0);
    float v = data[gid];
    $0if (v > limit) {
        data[gid] = limit;
    }
}
"#;
    check_action(
        fixture,
        "Guard with any()",
        expect![[r#"
            Guard with any(): skip the branch when no lane takes it

                float v = data[gid];
                if (sub_group_any(v > limit)) {
                    if (v > limit) {
                        data[gid] = limit;
                    }
                }
        "#]],
    );
}

#[test]
fn action_add_fast_path_around_a_loop() {
    check_action(
        &conv_at("// The stencil", "for"),
        "Add fast path",
        expect![[r#"
            Add fast path: if (sub_group_all(vstep <= x && x < width - vstep))

                // The stencil, clipped at the image border.
                if (sub_group_all(vstep <= x && x < width - vstep)) {
                    for (int i = left; i <= right; ++i)  // clipped
                        sum += input[i] * stencil[i - (x - vstep)];
                } else {
                    for (int i = left; i <= right; ++i)  // clipped
                        sum += input[i] * stencil[i - (x - vstep)];
                }
                output[x] = sum;
        "#]],
    );
}

#[test]
fn action_suppress_on_this_line_and_in_this_file() {
    let fixture = conv_at("// The stencil", "for");
    check_action(
        &fixture,
        "Suppress L0201 on this line",
        expect![[r#"
            Suppress L0201 on this line

                // The stencil, clipped at the image border.
                #pragma lanes ignore(L0201)
                for (int i = left; i <= right; ++i)  // clipped
        "#]],
    );
    check_action(
        &fixture,
        "Suppress L0201 in this file",
        expect![[r#"
            Suppress L0201 in this file

            #pragma lanes ignore(L0201)
            __kernel void convolution(__global const float *input,
        "#]],
    );
}

#[test]
fn the_fast_copy_is_analysed_under_its_guard() {
    let (db, f, text) = applied(&conv_at("// The stencil", "for"), "Add fast path");
    let copy = text.find("if (sub_group_all").unwrap();
    let els = text.find("} else {").unwrap();
    let i = copy + text[copy..].find("int i").unwrap() + 4;
    expect![[r#"
        on `i`

        ```c
        int i
        ```
        local variable of `convolution`

        **contiguous** in kernel `convolution` (16 lanes): lane `l` holds `v0 + l`

        vectorized as a vector register of 16 × `int` (one per lane)

        **why**:
        - line 11: `x - vstep` is contiguous
        - line 7: `get_global_id(0)` is contiguous
    "#]]
    .assert_eq(&render_hover(&db, f, &text, i as u32));
    // Masked by the early `return`, not by the loop.
    let load = copy + text[copy..].find("input[i]").unwrap() + 5;
    expect![[r#"
        on `input[i]`

        **masked packed** load `input[i]` in kernel `convolution` (16 lanes)

        vectorized as one packed vector load of 16 consecutive elements, masked (only the active lanes access memory) (vector IR: 1 memory operation under a block mask).

        masked: lanes are off here because of the divergent branch on `x >= width` (line 8)

        **why**:
        - line 17: `input[i]` is strided(4)
        - line 17: `i` is contiguous
        - line 16: `i` is contiguous
        - line 11: `x - vstep` is contiguous
        - line 7: `get_global_id(0)` is contiguous
    "#]].assert_eq(&render_hover(&db, f, &text, load as u32));
    let for_at = copy + text[copy..].find("for").unwrap();
    expect![[r#"
        on `for`

        **uniform loop** in kernel `convolution` (16 lanes): every lane leaves it in the same iteration (its exit conditions are the same across the lanes).

        vectorized with a uniform exit: one scalar branch for the whole SIMD group, no loop mask.
    "#]].assert_eq(&render_hover(&db, f, &text, for_at as u32));
    expect![[r#"
        15 |    if (sub_group_all(vstep <= x && x < width - vstep)) {
        16 |        for (int i[: contiguous] = left; i <= right; ++i)[uniform loop]  // clipped
        17 |            sum += input[i][masked packed] * stencil[i - (x - vstep)][masked broadcast];
        18 |    } else {
    "#]]
    .assert_eq(&render_hints(
        &db,
        f,
        &text,
        TextRange::new(copy as u32, els as u32),
    ));
}

/// Without the early `return` before it, no lane of the group is off in
/// the fast copy: its accesses are not masked either.
#[test]
fn the_fast_copy_without_an_early_return_is_unmasked() {
    let fixture =
        conv_at("// The stencil", "for").replace("    if (x >= width)\n        return;\n", "");
    let (db, f, text) = applied(&fixture, "Add fast path");
    let copy = text.find("if (sub_group_all").unwrap();
    let end = text.find("output[x]").unwrap();
    expect![[r#"
        13 |    if (sub_group_all(vstep <= x && x < width - vstep)) {
        14 |        for (int i[: contiguous] = left; i <= right; ++i)[uniform loop]  // clipped
        15 |            sum += input[i][packed] * stencil[i - (x - vstep)][broadcast];
        16 |    } else {
        17 |        for (int i[: varying] = left; i <= right; ++i)[divergent loop]  // clipped
        18 |            sum += input[i][masked gather] * stencil[i - (x - vstep)][masked gather];
        19 |    }
        20 |    output[x] = sum;
    "#]]
    .assert_eq(&render_hints(
        &db,
        f,
        &text,
        TextRange::new(copy as u32, end as u32),
    ));
}

/// The diagnostics and actions of the lines from `from` to `to` (exclusive).
fn render_findings(db: &LanesDatabase, f: File, text: &str, from: usize, to: usize) -> String {
    let range = TextRange::new(from as u32, to as u32);
    let line = |o: u32| text[..o as usize].matches('\n').count() + 1;
    let mut out = String::new();
    for d in diagnostics(db, f)
        .iter()
        .filter(|d| d.range.overlaps(range))
    {
        out.push_str(&format!(
            "line {}: {} {}\n",
            line(d.range.start),
            d.code.as_str(),
            d.message.lines().next().unwrap_or("")
        ));
    }
    for a in code_actions(db, f, range) {
        out.push_str(&format!("action: {}\n", a.title));
    }
    out
}

/// The `else` copy of a fast path is not offered the same fast path again.
#[test]
fn no_fast_path_again_in_the_original_copy() {
    let (db, f, text) = applied(&conv_at("// The stencil", "for"), "Add fast path");
    let els = text.find("} else {").unwrap();
    let end = text.find("output[x]").unwrap();
    expect![[r#"
        line 19: L0201 divergent loop: lanes leave it in different iterations
        line 20: L0202 gather: `input[i]` loads from 16 unrelated addresses
        line 20: L0202 gather: `stencil[i - (x - vstep)]` loads from 16 unrelated addresses
        action: Suppress L0201 on this line
        action: Suppress L0201 in this file
        action: Suppress L0202 on this line
        action: Suppress L0202 in this file
    "#]]
    .assert_eq(&render_findings(&db, f, &text, els, end));
    let for_at = els + text[els..].find("for").unwrap();
    expect![[r#"
        on `for`

        **divergent loop** in kernel `convolution` (16 lanes): lanes leave it in different iterations (L0201).

        vectorized as a masked loop: the SIMD group iterates until its last lane is done; lanes that are done wait under the loop's mask.

        **why**:
        - line 19: `i <= right` is varying
        - line 19: `i` is varying
        - line 11: `max(0, x - vstep)` is varying
        - line 11: `x - vstep` is contiguous
        - line 7: `get_global_id(0)` is contiguous

        ---

        **No fast path** for this loop: it is the original copy, in the `else` of an `if (sub_group_all(P))` whose fast copy runs when P holds.
    "#]].assert_eq(&render_hover(&db, f, &text, for_at as u32));
}

/// A branch inside its own `sub_group_any` guard is not offered the guard
/// again, and L0300 is gone there.
#[test]
fn no_guard_again_inside_the_guard() {
    let fixture = r#"__kernel void clamp_high(__global float *data, float limit)
{
    int gid = get_global_id(0);
    float v = data[gid];
    $0if (v > limit) {
        data[gid] = limit;
    }
}
"#;
    let (db, f, text) = applied(fixture, "Guard with any()");
    let guard = text.find("if (sub_group_any").unwrap();
    expect![[r#"
        on `if`

        **uniform branch** (`if`) in kernel `clamp_high` (16 lanes): every lane of the SIMD group goes the same way.

        vectorized as a scalar branch: the whole group jumps, no mask.

        A guard: the SIMD group skips its body when no active lane satisfies `v > limit`.
    "#]].assert_eq(&render_hover(&db, f, &text, guard as u32));
    let inner = text.find("if (v > limit)").unwrap();
    let line_end = inner + text[inner..].find('\n').unwrap();
    expect![[r#""#]].assert_eq(&render_findings(&db, f, &text, inner, line_end));
    expect![[r#"
        on `if`

        **divergent branch** (`if`) in kernel `clamp_high` (16 lanes): lanes take different sides, so both sides run under a mask.

        vectorized as masked code behind the `sub_group_any` guard at line 5: the group skips it when no lane takes it.

        **why**:
        - line 6: `v > limit` is varying
        - line 4: `data[gid]` is varying
        - line 4: `gid` is contiguous
        - line 3: `get_global_id(0)` is contiguous

        ---

        **No fast path** for this branch: it depends on values in memory or on control flow.
    "#]].assert_eq(&render_hover(&db, f, &text, inner as u32));
}

/// Written by hand: a guard on `c || d` covers `if (c)`; a guard on
/// another condition does not.
#[test]
fn l0300_only_where_the_guard_does_not_cover_the_branch() {
    let fixture = r#"__kernel void clip(__global float *data, float limit)
{
    int gid = get_global_id(0);
    float v = data[gid];
    if (sub_group_any(v > limit || v < 0.0f)) {
        if (v < 0.0f)
            data[gid] = 0.0f;
    }
    if (sub_group_any(v < 1.0f)) {
        if (v < 2.0f)
            data[gid] = 1.0f;
    }
}
$0"#;
    let (db, f, text, _) = open(fixture);
    expect![[r#"
        line 10: L0300 divergent branch: lanes take different sides, so both sides run under a mask
        action: Guard with any(): skip the branch when no lane takes it
        action: Suppress L0300 on this line
        action: Suppress L0300 in this file
    "#]]
    .assert_eq(&render_findings(&db, f, &text, 0, text.len()));
}

/// Renaming to a name the preprocessor would replace, or that is a
/// keyword or built-in, is refused with the reason.
#[test]
fn rename_refuses_names_a_macro_would_capture() {
    use lanes_diagnostics::ide::symbols::rename;
    let fixture = r#"#define TILE 16
#define SCALE(v) ((v) * 2.0f)
__kernel void scale(__global float *data)
{
    int g$0id = get_global_id(0);
    data[gid] = SCALE(data[gid]) + TILE;
}
"#;
    let (db, f, _, offset) = open(fixture);
    let answers: String = [
        "M_PI_F",
        "CLK_LOCAL_MEM_FENCE",
        "TILE",
        "SCALE",
        "while",
        "float4",
        "get_local_id",
        "index",
    ]
    .iter()
    .map(|n| match rename(&db, f, offset, n) {
        Ok(edits) => format!("{n}: {} edits\n", edits.len()),
        Err(e) => format!("{n}: {e}\n"),
    })
    .collect();
    expect![[r#"
        M_PI_F: `M_PI_F` is a predefined macro: the preprocessor would replace the renamed name by its expansion
        CLK_LOCAL_MEM_FENCE: `CLK_LOCAL_MEM_FENCE` is a predefined macro: the preprocessor would replace the renamed name by its expansion
        TILE: `TILE` is a macro (`#define` at line 1 of `/virtual/fixture.cl`): the preprocessor would replace the renamed name by its expansion
        SCALE: `SCALE` is a macro (`#define` at line 2 of `/virtual/fixture.cl`): the preprocessor would replace the renamed name by its expansion
        while: `while` is a keyword, type or built-in of OpenCL C
        float4: `float4` is a keyword, type or built-in of OpenCL C
        get_local_id: `get_local_id` is a keyword, type or built-in of OpenCL C
        index: 3 edits
    "#]].assert_eq(&answers);
}

#[test]
fn hover_on_the_if_of_a_fast_path_check() {
    let (db, f, text) = applied(&conv_at("// The stencil", "for"), "Add fast path");
    let check = text.find("if (sub_group_all").unwrap();
    expect![[r#"
        on `if`

        **uniform branch** (`if`) in kernel `convolution` (16 lanes): every lane of the SIMD group goes the same way.

        vectorized as a scalar branch: the whole group jumps, no mask.

        A fast path's check: its body runs when every active lane satisfies `vstep <= x && x < width - vstep`, and the analysis assumes that there (the `else` is the original).
    "#]].assert_eq(&render_hover(&db, f, &text, check as u32));
}

/// A clamp-to-edge read: packed where the clamp moves no lane, so the
/// hover and the finding say where it gathers.
const CLAMPED: &str = r#"__kernel void blur(__global const float *in, __global float *out, int w)
{
    int x = get_global_id(0);
    out[x] = $0in[clamp(x - 1, 0, w - 1)] + in[x];
}
"#;

#[test]
fn hover_on_a_clamped_load() {
    check_hover(
        CLAMPED,
        expect![[r#"
            on `in`

            ```c
            __global const float *in
            ```
            parameter of `blur`

            **uniform** in kernel `blur` (16 lanes): the same value in every lane

            vectorized as a scalar: one register for the whole SIMD group

            ---

            **packed inside the clamp** load `in[clamp(x - 1, 0, w - 1)]` in kernel `blur` (16 lanes)

            vectorized as one packed load where the clamp moves no lane of the SIMD group; a gather (16 unrelated addresses, about one scalar load per lane) at the clamp's bounds (vector IR: in a block that runs with the group's entry mask).

            **why**:
            - line 4: `in[clamp(x - 1, 0, w - 1)]` is varying
            - line 4: `clamp(x - 1, 0, w - 1)` is varying
            - line 4: `x - 1` is contiguous
            - line 3: `get_global_id(0)` is contiguous
        "#]],
    );
}

#[test]
fn a_clamped_load_gathers_only_at_the_bounds() {
    assert_eq!(
        gather_findings(CLAMPED),
        ["gather at the clamp's bounds: `in[clamp(x - 1, 0, w - 1)]` loads from 16 unrelated addresses only where the clamp moves a lane"],
    );
}

/// The messages of the L0202 findings of `src`.
fn gather_findings(src: &str) -> Vec<String> {
    let (db, f, _, _) = open(src);
    diagnostics(&db, f)
        .iter()
        .filter(|d| d.code == lanes_frontend::diag::Code::Gather)
        .map(|d| d.message.clone())
        .collect()
}

/// A row per work-item (PolyBench/GPU's mvt): the load of the rows is read
/// through transposed tiles where every lane is active.
const ROWS: &str = r#"__kernel void mvt(__global float *a, __global float *x1, __global const float *y1, int n)
{
    int i = get_global_id(0);
    for (int j = 0; j < n; j++)
        x1[i] += $0a[i * n + j] * y1[j];
}
"#;

#[test]
fn hover_on_a_load_of_rows() {
    check_hover(
        ROWS,
        expect![[r#"
        on `a`

        ```c
        __global float *a
        ```
        parameter of `mvt`

        **uniform** in kernel `mvt` (16 lanes): the same value in every lane

        vectorized as a scalar: one register for the whole SIMD group

        ---

        **rows, transposed tiles** load `a[i * n + j]` in kernel `mvt` (16 lanes)

        vectorized as transposed tiles: each lane walks its own row, so where every lane is active 16 elements of each row are loaded at once and transposed, once every 16 iterations; a gather (16 unrelated addresses) where not (vector IR: in a block that runs with the group's entry mask).

        **why**:
        - line 5: `a[i * n + j]` is varying
        - line 5: `i * n + j` is varying
        - line 5: `i * n` is varying
        - line 3: `get_global_id(0)` is contiguous
    "#]],
    );
}

#[test]
fn a_load_of_rows_is_read_through_tiles() {
    assert_eq!(
        gather_findings(ROWS),
        ["rows side by side: `a[i * n + j]` loads 16 rows, one element of each per iteration"],
    );
}
