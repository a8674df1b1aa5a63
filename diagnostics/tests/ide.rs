//! The IDE features on real kernels (examples/ and tests/kernels/valid/).

mod common;
use common::infer_preconditions;

use std::path::{Path, PathBuf};

use lanes_db::{File, LanesDatabase, Settings};
use lanes_diagnostics::ide::actions::{code_actions, ActionKind};
use lanes_diagnostics::ide::diagnostics::diagnostics;
use lanes_diagnostics::ide::hover::hover;
use lanes_diagnostics::ide::inlay::inlay_hints;
use lanes_diagnostics::ide::lens::code_lens;
use lanes_diagnostics::ide::semantic::{semantic_tokens, TokenType, MOD_UNIFORM, MOD_VARYING};
use lanes_diagnostics::ide::symbols::{
    document_highlight, document_symbols, goto_definition, prepare_rename, references, rename,
    HighlightKind, SymbolKind,
};
use lanes_diagnostics::ide::{apply_edits, TextRange};
use lanes_frontend::diag::{Code, Severity};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

fn open(rel: &str) -> (LanesDatabase, File, String) {
    let path = repo(rel).canonicalize().unwrap();
    let text = lanes_frontend::source::read_source(&path).unwrap().text;
    let mut db = LanesDatabase::new(Settings::for_target("avx512skx-x16").unwrap());
    let file = db.set_file(path, &text, 1);
    (db, file, text)
}

/// Offset of the `n`-th (0-based) occurrence of `needle` after `anchor`.
fn at(text: &str, anchor: &str, needle: &str) -> u32 {
    let a = text.find(anchor).unwrap_or_else(|| panic!("no {anchor:?}"));
    (a + text[a..]
        .find(needle)
        .unwrap_or_else(|| panic!("no {needle:?}"))) as u32
}

fn all(text: &str) -> TextRange {
    TextRange::new(0, text.len() as u32)
}

const CONV_KERNEL: &str = "__kernel void convolution";

#[test]
fn hover_on_a_contiguous_variable_explains_why() {
    let (db, f, text) = open("examples/convolution.cl");
    let h = hover(&db, f, at(&text, CONV_KERNEL, "int x =") + 4).unwrap();
    assert_eq!(&text[h.range.start as usize..h.range.end as usize], "x");
    assert!(h.markdown.contains("**contiguous**"), "{}", h.markdown);
    assert!(h.markdown.contains("get_global_id(0)"), "{}", h.markdown);
    assert!(
        h.markdown.contains("vector register of 16"),
        "{}",
        h.markdown
    );
    // A use of the variable says the same.
    let h2 = hover(&db, f, at(&text, "output[x] = sum", "x]")).unwrap();
    assert!(h2.markdown.contains("**contiguous**"), "{}", h2.markdown);

    let u = hover(&db, f, at(&text, CONV_KERNEL, "int vstep") + 4).unwrap();
    assert!(u.markdown.contains("**uniform**"), "{}", u.markdown);
    assert!(u.markdown.contains("a scalar"), "{}", u.markdown);
    assert!(!u.markdown.contains("why"), "{}", u.markdown);

    let v = hover(&db, f, at(&text, CONV_KERNEL, "int left") + 4).unwrap();
    assert!(v.markdown.contains("**varying**"), "{}", v.markdown);
    assert!(v.markdown.contains("max(0, x - vstep)"), "{}", v.markdown);
}

#[test]
fn hover_on_accesses_expressions_and_kernels() {
    let (db, f, text) = open("examples/convolution.cl");
    let g = hover(&db, f, at(&text, "sum += ", "input[i]") + 5).unwrap();
    assert_eq!(
        &text[g.range.start as usize..g.range.end as usize],
        "input[i]"
    );
    assert!(g.markdown.contains("gather"), "{}", g.markdown);
    assert!(g.markdown.contains("masked"), "{}", g.markdown);
    // On the array's name: the parameter, then the access.
    let both = hover(&db, f, at(&text, "sum += ", "input[i]")).unwrap();
    assert_eq!(
        &text[both.range.start as usize..both.range.end as usize],
        "input"
    );
    assert!(
        both.markdown.contains("parameter of `convolution`"),
        "{}",
        both.markdown
    );
    assert!(both.markdown.contains("gather"), "{}", both.markdown);
    // On the index: the index variable only.
    let i = hover(&db, f, at(&text, "sum += ", "input[i]") + 6).unwrap();
    assert_eq!(&text[i.range.start as usize..i.range.end as usize], "i");
    assert!(!i.markdown.contains("gather"), "{}", i.markdown);
    let s = hover(&db, f, at(&text, "output[x] = sum", "[")).unwrap();
    assert!(s.markdown.contains("packed store"), "{}", s.markdown);

    let e = hover(&db, f, at(&text, "int right", "x + vstep") + 2).unwrap();
    assert_eq!(
        &text[e.range.start as usize..e.range.end as usize],
        "x + vstep"
    );
    assert!(e.markdown.contains("**contiguous**"), "{}", e.markdown);

    let k = hover(&db, f, at(&text, CONV_KERNEL, "convolution")).unwrap();
    assert!(
        k.markdown.contains("SIMD x16 on `avx512skx-x16`"),
        "{}",
        k.markdown
    );
    assert!(
        k.markdown.contains("| loops | 1 (1 divergent) |"),
        "{}",
        k.markdown
    );
    assert!(k.markdown.contains("2 gather"), "{}", k.markdown);

    // Nothing to say in a comment.
    assert_eq!(hover(&db, f, at(&text, "// One work-item", "work")), None);
}

#[test]
fn hover_in_a_helper_lists_each_kernel() {
    let (db, f, text) = open("tests/kernels/valid/helpers.cl");
    // `i` of clamp_index is contiguous in smooth3 (its only caller).
    let h = hover(&db, f, at(&text, "int clamp_index(int i", "i,")).unwrap();
    assert!(h.markdown.contains("in kernel `smooth3`"), "{}", h.markdown);
    assert!(h.markdown.contains("**contiguous**"), "{}", h.markdown);
    let sq = hover(&db, f, at(&text, "inline float sq", "sq")).unwrap();
    assert!(
        sq.markdown
            .contains("inlined into `smooth3`, `nearest_point`"),
        "{}",
        sq.markdown
    );
}

#[test]
fn inlay_hints_show_shapes_accesses_loops_and_masks() {
    let (db, f, text) = open("examples/convolution.cl");
    let hints = inlay_hints(&db, f, all(&text));
    let find = |label: &str, after: &str| {
        let off = at(&text, CONV_KERNEL, after) + after.len() as u32;
        hints.iter().any(|h| h.label == label && h.offset == off)
    };
    assert!(find(": contiguous", "int x"), "{hints:#?}");
    assert!(find(": uniform", "int vstep"), "{hints:#?}");
    assert!(find(": varying", "float sum"), "{hints:#?}");
    assert!(find("masked gather", "sum += input[i]"), "{hints:#?}");
    assert!(find("masked packed store", "output[x]"), "{hints:#?}");
    assert!(
        find("divergent loop", "for (int i = left; i <= right; ++i)"),
        "{hints:#?}"
    );
    assert!(
        find("divergent: varying mask", "if (x >= width)"),
        "{hints:#?}"
    );
    // A range selects hints.
    let line = at(&text, CONV_KERNEL, "int x");
    let few = inlay_hints(&db, f, TextRange::new(line, line + 10));
    assert_eq!(few.len(), 1, "{few:#?}");

    let (db, f, text) = open("tests/kernels/valid/helpers.cl");
    let hints = inlay_hints(&db, f, all(&text));
    let loop_end = at(&text, "for (int k = 1", ")") + 1;
    assert!(
        hints
            .iter()
            .any(|h| h.offset == loop_end && h.label == "uniform loop"),
        "{hints:#?}"
    );
    let acc = at(&text, "float bd = dist2(p, points[0]", "points[0]") + "points[0]".len() as u32;
    assert!(
        hints
            .iter()
            .any(|h| h.offset == acc && h.label == "masked broadcast"),
        "{hints:#?}"
    );
}

#[test]
fn semantic_tokens_mark_lane_varying_values() {
    let (db, f, text) = open("examples/convolution.cl");
    let toks = semantic_tokens(&db, f);
    let tok = |off: u32| toks.iter().find(|t| t.range.start == off).copied();
    let x = tok(at(&text, CONV_KERNEL, "int x") + 4).unwrap();
    assert_eq!(
        (x.token_type, x.modifiers),
        (TokenType::Variable, MOD_VARYING)
    );
    let vstep = tok(at(&text, CONV_KERNEL, "int vstep") + 4).unwrap();
    assert_eq!(
        (vstep.token_type, vstep.modifiers),
        (TokenType::Variable, MOD_UNIFORM)
    );
    let width = tok(at(&text, CONV_KERNEL, "width")).unwrap();
    assert_eq!(
        (width.token_type, width.modifiers),
        (TokenType::Parameter, MOD_UNIFORM)
    );
    let gid = tok(at(&text, CONV_KERNEL, "get_global_id")).unwrap();
    assert_eq!(gid.token_type, TokenType::Function);
    assert_eq!(
        tok(at(&text, CONV_KERNEL, "__kernel")).unwrap().token_type,
        TokenType::Keyword
    );
    assert_eq!(
        tok(at(&text, CONV_KERNEL, "float")).unwrap().token_type,
        TokenType::Type
    );
    assert_eq!(
        tok(at(&text, CONV_KERNEL, "0.0f")).unwrap().token_type,
        TokenType::Number
    );
    assert_eq!(tok(0).unwrap().token_type, TokenType::Comment);
    // Sorted, non-overlapping, single-line.
    for w in toks.windows(2) {
        assert!(w[0].range.end <= w[1].range.start);
    }
    assert!(toks
        .iter()
        .all(|t| !text[t.range.start as usize..t.range.end as usize].contains('\n')));

    let (db, f, text) = open("tests/kernels/valid/macros.cl");
    let toks = semantic_tokens(&db, f);
    let def = at(&text, "#define TAPS", "TAPS");
    assert_eq!(
        toks.iter()
            .find(|t| t.range.start == def)
            .unwrap()
            .token_type,
        TokenType::Macro
    );
}

#[test]
fn diagnostics_carry_reason_chains_and_links() {
    let (db, f, text) = open("examples/convolution.cl");
    let ds = diagnostics(&db, f);
    let codes: Vec<Code> = ds.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        vec![
            Code::DivergentBranch,
            Code::DivergentLoop,
            Code::Gather,
            Code::Gather
        ]
    );
    let lp = &ds[1];
    assert_eq!(lp.doc, "docs/diagnostics.md#l0201");
    assert_eq!(lp.severity, Severity::Warning);
    assert!(
        lp.related
            .iter()
            .any(|r| r.message.contains("get_global_id(0)")),
        "{lp:#?}"
    );
    let last = lp.related.last().unwrap();
    assert_eq!(
        &text[last.location.range.start as usize..last.location.range.end as usize],
        "get_global_id(0)"
    );
    assert!(lp.full_message().contains("note: "));
    // The docs have the anchor the link names.
    let catalogue = std::fs::read_to_string(repo("docs/diagnostics.md")).unwrap();
    assert!(catalogue.contains("\n### L0201\n"));
}

#[test]
fn configured_severities_apply() {
    let (mut db, f, _) = open("examples/convolution.cl");
    let mut s = db.settings();
    s.severities.insert(Code::Gather, None);
    s.severities
        .insert(Code::DivergentBranch, Some(Severity::Warning));
    // Errors keep their severity whatever the configuration says.
    s.severities.insert(Code::Syntax, Some(Severity::Hint));
    db.set_settings(s);
    let ds = diagnostics(&db, f);
    assert!(ds.iter().all(|d| d.code != Code::Gather));
    let b = ds.iter().find(|d| d.code == Code::DivergentBranch).unwrap();
    assert_eq!(b.severity, Severity::Warning);
}

fn codes_and_messages(ds: &[lanes_diagnostics::ide::diagnostics::Diag]) -> Vec<(Code, String)> {
    let mut v: Vec<(Code, String)> = ds.iter().map(|d| (d.code, d.message.clone())).collect();
    v.sort();
    v
}

#[test]
fn suppress_action_removes_exactly_that_diagnostic() {
    let (mut db, f, text) = open("examples/convolution.cl");
    let before = diagnostics(&db, f);
    // The divergent loop: the only L0201.
    let lp = before
        .iter()
        .find(|d| d.code == Code::DivergentLoop)
        .unwrap()
        .clone();
    let actions = code_actions(&db, f, lp.range);
    let a = actions
        .iter()
        .find(|a| a.title == "Suppress L0201 on this line")
        .unwrap_or_else(|| panic!("{actions:#?}"));
    assert_eq!(a.kind, ActionKind::QuickFix);
    let edited = apply_edits(&text, &a.edits);
    assert!(
        edited.contains("\n    #pragma lanes ignore(L0201)\n    for (int i = left;"),
        "{edited}"
    );
    db.set_file(f.path(&db).clone(), &edited, 2);
    let after = diagnostics(&db, f);
    let mut expected = codes_and_messages(&before);
    expected.retain(|(c, _)| *c != Code::DivergentLoop);
    assert_eq!(codes_and_messages(&after), expected);

    // Per file, at the top: every gather goes, the rest stays.
    let a = code_actions(
        &db,
        f,
        after.iter().find(|d| d.code == Code::Gather).unwrap().range,
    )
    .into_iter()
    .find(|a| a.title == "Suppress L0202 in this file")
    .unwrap();
    let edited2 = apply_edits(&edited, &a.edits);
    assert!(edited2.starts_with("#pragma lanes ignore(L0202)\n"));
    db.set_file(f.path(&db).clone(), &edited2, 3);
    let after2 = diagnostics(&db, f);
    assert_eq!(
        after2.iter().map(|d| d.code).collect::<Vec<_>>(),
        vec![Code::DivergentBranch]
    );
}

#[test]
fn pragma_spellings_and_scopes() {
    let (mut db, f, text) = open("examples/convolution.cl");
    let path = f.path(&db).clone();
    // ISPC's spelling, at the top: every performance finding goes.
    db.set_file(
        path.clone(),
        &format!("#pragma ignore warning(perf)\n{text}"),
        2,
    );
    assert!(diagnostics(&db, f).is_empty());
    // After code it is per line only: it suppresses nothing here (the next
    // line has no finding).
    let late = text.replace(
        "    // One work-item per pixel.\n",
        "    // One work-item per pixel.\n#pragma lanes ignore(L0202)\n",
    );
    db.set_file(path.clone(), &late, 3);
    assert_eq!(diagnostics(&db, f).len(), 4);
    // Per line, two codes, stacked over a comment line: both gathers go.
    let both = text.replace(
        "        sum += input[i]",
        "        #pragma lanes ignore(L0202, L0204)\n        // the gathers\n        sum += input[i]",
    );
    db.set_file(path.clone(), &both, 4);
    let ds = diagnostics(&db, f);
    assert_eq!(ds.len(), 2, "{ds:#?}");
    assert!(ds.iter().all(|d| d.code != Code::Gather));
}

#[test]
fn guard_with_any_keeps_results_and_adds_a_uniform_guard() {
    let (mut db, f, text) = open("examples/convolution.cl");
    let path = f.path(&db).clone();
    let branch = diagnostics(&db, f)
        .into_iter()
        .find(|d| d.code == Code::DivergentBranch)
        .unwrap();
    let before = explain(&db, f);
    let actions = code_actions(&db, f, branch.range);
    let guard = actions
        .iter()
        .find(|a| a.title.starts_with("Guard with any()"))
        .unwrap_or_else(|| panic!("{actions:#?}"));
    let edited = apply_edits(&text, &guard.edits);
    assert!(
        edited.contains(
            "    if (sub_group_any(x >= width)) {\n        if (x >= width)  //~ branch: divergent\n            return;\n    }\n"
        ),
        "{edited}"
    );
    db.set_file(path, &edited, 2);
    assert!(!lanes_db::file_diagnostics(&db, f)
        .iter()
        .any(|d| d.is_error()));
    let after = explain(&db, f);
    // The guard is a uniform branch; the original `if` is still divergent.
    let guard_line = edited[..edited.find("if (sub_group_any").unwrap()]
        .matches('\n')
        .count() as u32
        + 1;
    let k = &after["kernels"][0];
    let branches = k["branches"].as_array().unwrap();
    assert!(
        branches
            .iter()
            .any(|b| b["line"] == guard_line && b["divergent"] == false),
        "{branches:#?}"
    );
    assert!(branches
        .iter()
        .any(|b| b["line"] == guard_line + 1 && b["divergent"] == true));
    // Everything else is the same: shapes, loops, accesses, diagnostics
    // but the L0300 of the guarded branch (its guard is there now).
    let strip = |e: &serde_json::Value, key: &str, fields: &[&str]| -> Vec<Vec<String>> {
        e["kernels"][0][key]
            .as_array()
            .unwrap()
            .iter()
            .filter(|v| v["code"] != "L0300")
            .map(|v| fields.iter().map(|f| v[*f].to_string()).collect())
            .collect()
    };
    let l0300 = |e: &serde_json::Value| {
        e["kernels"][0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["code"] == "L0300")
            .count()
    };
    assert_eq!(l0300(&after), l0300(&before) - 1);
    for (key, fields) in [
        ("values", &["name", "shape"][..]),
        ("loops", &["divergent"][..]),
        ("accesses", &["text", "kind", "pattern", "mask"][..]),
        ("diagnostics", &["code", "message"][..]),
    ] {
        assert_eq!(
            strip(&before, key, fields),
            strip(&after, key, fields),
            "{key}"
        );
    }
}

#[test]
fn guard_with_any_in_a_helper() {
    let (mut db, f, text) = open("tests/kernels/valid/helpers.cl");
    let off = at(&text, "int clamp_index", "if (i >= n)");
    let actions = code_actions(&db, f, TextRange::empty(off));
    let guard = actions
        .iter()
        .find(|a| a.title.starts_with("Guard with any()"))
        .unwrap_or_else(|| panic!("{actions:#?}"));
    let edited = apply_edits(&text, &guard.edits);
    assert!(
        edited.contains("    if (sub_group_any(i >= n)) {\n        if (i >= n)"),
        "{edited}"
    );
    let before = lanes_db::file_diagnostics(&db, f).len();
    db.set_file(f.path(&db).clone(), &edited, 2);
    let ds = lanes_db::file_diagnostics(&db, f);
    assert!(!ds.iter().any(|d| d.is_error()), "{ds:#?}");
    // The same, but the guarded branch's L0300.
    assert_eq!(ds.len(), before - 1, "{ds:#?}");
    let inner = edited.find("        if (i >= n)").unwrap() as u32;
    assert!(
        !ds.iter().any(|d| d.code == Code::DivergentBranch
            && d.span.start > inner
            && d.span.start < inner + 20),
        "{ds:#?}"
    );
}

#[test]
fn no_guard_for_impure_conditions_or_else() {
    let src = "__kernel void k(__global int *p, int n)\n{\n    int i = get_global_id(0);\n    if (i++ < n)\n        p[0] = 1;\n    if (i < n)\n        p[1] = 1;\n    else\n        p[2] = 2;\n}\n";
    let mut db = LanesDatabase::new(Settings::for_target("avx2-i32x8").unwrap());
    let f = db.set_file("/virtual/impure.cl", src, 1);
    let acts = code_actions(&db, f, TextRange::new(0, src.len() as u32));
    assert!(
        acts.iter().all(|a| !a.title.starts_with("Guard")),
        "{acts:#?}"
    );
}

#[test]
fn code_lens_per_kernel() {
    let (db, f, text) = open("examples/convolution.cl");
    let lenses = code_lens(&db, f);
    assert_eq!(lenses.len(), 1);
    assert_eq!(
        lenses[0].title,
        "SIMD x16 avx512 · 1 divergent loop · 1 divergent branch · 2 gathers · Build"
    );
    assert_eq!(lenses[0].command, "lanes.build");
    assert_eq!(lenses[0].arguments[1], "convolution");
    assert_eq!(
        &text[lenses[0].range.start as usize..lenses[0].range.end as usize],
        "convolution"
    );

    let (db, f, _) = open("examples/saxpy.cl");
    let lenses = code_lens(&db, f);
    assert!(
        lenses.iter().all(|l| l.title.ends_with(" · Build")),
        "{lenses:#?}"
    );

    // A clamp-to-edge read is counted apart: it gathers only at the bounds.
    let (db, f, _) = open("bench/kernels/convolution_2d.cl");
    let lenses = code_lens(&db, f);
    assert_eq!(
        lenses[0].title,
        "SIMD x16 avx512 · 1 divergent branch · 1 gather at a clamp's bounds · Build"
    );

    // So is a load of rows read through transposed tiles.
    let (db, f, _) = open("bench/kernels/mvt.cl");
    let lenses = code_lens(&db, f);
    assert_eq!(
        lenses[0].title,
        "SIMD x16 avx512 · 1 divergent branch · 1 load of rows by tiles · Build"
    );
}

#[test]
fn symbols_definition_references_highlight_rename() {
    let (mut db, f, text) = open("tests/kernels/valid/helpers.cl");
    let syms = document_symbols(&db, f);
    let names: Vec<(&str, SymbolKind)> = syms.iter().map(|s| (s.name.as_str(), s.kind)).collect();
    assert!(names.contains(&("sq", SymbolKind::Function)));
    assert!(names.contains(&("smooth3", SymbolKind::Kernel)));
    assert!(names.contains(&("nearest_point", SymbolKind::Kernel)));
    let smooth = syms.iter().find(|s| s.name == "smooth3").unwrap();
    assert!(text[smooth.range.start as usize..smooth.range.end as usize].ends_with('}'));

    // `sq(` in smooth3 goes to `inline float sq`.
    let call = at(&text, "__kernel void smooth3", "sq(");
    let def = goto_definition(&db, f, call + 1).unwrap();
    assert_eq!(def.range.start, at(&text, "inline float sq", "sq"));

    // `i` of smooth3: its declaration and five uses, none of the other
    // functions' `i`.
    let decl = at(&text, "__kernel void smooth3", "int i =") + 4;
    let refs = references(&db, f, decl, true);
    assert_eq!(refs.len(), 6, "{refs:?}");
    let body = at(&text, "__kernel void smooth3", "{");
    let end = at(&text, "__kernel void nearest_point", "__kernel");
    assert!(refs
        .iter()
        .all(|r| body < r.start && r.end < end && &text[r.start as usize..r.end as usize] == "i"));
    assert_eq!(references(&db, f, decl, false).len(), 5);

    let hl = document_highlight(&db, f, decl);
    assert_eq!(
        hl.iter().filter(|h| h.kind == HighlightKind::Write).count(),
        1
    );
    assert_eq!(
        hl.iter().filter(|h| h.kind == HighlightKind::Read).count(),
        5
    );

    assert_eq!(prepare_rename(&db, f, decl).unwrap().1, "i");
    assert!(rename(&db, f, decl, "int").is_err());
    assert!(rename(&db, f, decl, "2x").is_err());
    assert!(rename(&db, f, decl, "sqrt").is_err());
    assert!(
        rename(&db, f, decl, "s").is_err(),
        "clashes with `s` of smooth3"
    );
    assert!(rename(
        &db,
        f,
        at(&text, "__kernel void smooth3", "get_global_id"),
        "g"
    )
    .is_err());
    let before = lanes_db::file_diagnostics(&db, f);
    let edits = rename(&db, f, decl, "gid").unwrap();
    assert_eq!(edits.len(), 6);
    let renamed = apply_edits(&text, &edits);
    db.set_file(f.path(&db).clone(), &renamed, 2);
    let after = lanes_db::file_diagnostics(&db, f);
    assert!(!after.iter().any(|d| d.is_error()), "{after:#?}");
    assert_eq!(
        before.iter().map(|d| d.code).collect::<Vec<_>>(),
        after.iter().map(|d| d.code).collect::<Vec<_>>()
    );

    // Renaming a helper renames its calls.
    let sq = at(&renamed, "inline float sq", "sq");
    let edits = rename(&db, f, sq, "square").unwrap();
    assert_eq!(edits.len(), 4, "{edits:?}");
}

#[test]
fn definition_in_a_header_and_macros() {
    let (db, f, text) = open("tests/kernels/valid/includes.cl");
    let def = goto_definition(&db, f, at(&text, "float v = ", "lerp") + 1).unwrap();
    assert!(def.path.ends_with("include/common.h"), "{def:?}");
    let header = std::fs::read_to_string(&def.path).unwrap();
    assert_eq!(
        &header[def.range.start as usize..def.range.end as usize],
        "lerp"
    );
    assert!(rename(&db, f, at(&text, "float v = ", "lerp"), "mix2").is_err());

    let (db, f, text) = open("tests/kernels/valid/macros.cl");
    let use_ = text.rfind("TAPS").unwrap() as u32;
    let def = goto_definition(&db, f, use_).unwrap();
    assert_eq!(def.range.start, at(&text, "#define TAPS", "TAPS"));
}

#[test]
fn line_index_round_trips() {
    let text = "// é𝄞\nint x;\r\n";
    let li = lanes_db::LineIndex::new(std::sync::Arc::from(text));
    let x = text.find('x').unwrap() as u32;
    assert_eq!(li.position(x), (1, 4));
    assert_eq!(li.offset(1, 4), x);
    // After `𝄞` (2 UTF-16 units) on line 0.
    assert_eq!(li.position(text.find('\n').unwrap() as u32), (0, 6));
}

#[test]
fn features_survive_broken_text() {
    let (mut db, f, text) = open("examples/convolution.cl");
    let broken = text.replace(
        "int vstep = (stencilWidth - 1) / 2;",
        "int vstep = (stencilWidth - 1 / 2",
    );
    db.set_file(f.path(&db).clone(), &broken, 2);
    let ds = diagnostics(&db, f);
    assert!(ds.iter().any(|d| d.severity == Severity::Error));
    let off = at(&broken, CONV_KERNEL, "int x") + 4;
    let h = hover(&db, f, off).unwrap();
    assert!(h.markdown.contains("not analysed"), "{}", h.markdown);
    assert!(inlay_hints(&db, f, all(&broken)).is_empty());
    assert!(!semantic_tokens(&db, f).is_empty());
    assert!(code_lens(&db, f)[0].title.contains("not analysed"));
    for off in (0..broken.len() as u32).step_by(7) {
        let _ = hover(&db, f, off);
        let _ = code_actions(&db, f, TextRange::empty(off));
        let _ = goto_definition(&db, f, off);
        let _ = references(&db, f, off, true);
    }
}

/// `lanes explain --format json` of the file's current text.
fn explain(db: &LanesDatabase, f: File) -> serde_json::Value {
    let p = lanes_db::parse(db, f);
    let reports: Vec<_> = lanes_db::file_reports(db, f)
        .into_iter()
        .filter_map(|(_, r)| r.as_ref().as_ref().ok().cloned())
        .collect();
    let e = lanes_diagnostics::explain::json("avx512skx-x16", 16, &p.unit.sources, &reports);
    serde_json::to_value(&e).unwrap()
}

#[test]
fn problems_in_headers_and_defines_are_shown_in_the_file() {
    let mut db = LanesDatabase::new(Settings::for_target("avx2-i32x8").unwrap());
    db.set_file("/virtual/inc/h.h", "int broken(\n", 1);
    let main = "#include \"h.h\"\n__kernel void k(__global int *p) { p[get_global_id(0)] = 1; }\n";
    let f = db.set_file("/virtual/inc/main.cl", main, 1);
    let ds = diagnostics(&db, f);
    let d = ds.iter().find(|d| d.severity == Severity::Error).unwrap();
    assert!(
        d.message.starts_with("in included file `/virtual/inc/h.h`"),
        "{d:#?}"
    );
    assert_eq!(
        &main[d.range.start as usize..d.range.end as usize],
        "#include \"h.h\""
    );
    assert_eq!(
        d.related[0].location.path,
        PathBuf::from("/virtual/inc/h.h")
    );

    // A bad configured macro is reported at the top of the file.
    let mut s = db.settings();
    s.defines.push(("1X".to_string(), None));
    db.set_settings(s);
    let ds = diagnostics(&db, f);
    assert!(ds.iter().any(|d| d.range == TextRange::empty(0)), "{ds:#?}");
}

#[test]
fn fast_path_hover_and_action_once_preconditions_are_known() {
    let (mut db, f, text) = open("examples/convolution.cl");
    let header = at(&text, CONV_KERNEL, "for (int i") + 1;
    let before = hover(&db, f, header);
    assert!(before.is_none_or(|h| !h.markdown.contains("Fast path")));
    assert!(!code_actions(&db, f, TextRange::empty(header))
        .iter()
        .any(|a| a.title.starts_with("Add fast path")));

    infer_preconditions(&mut db, f);
    let h = hover(&db, f, header).unwrap();
    assert!(
        h.markdown
            .contains("**Fast path**: when every lane of the SIMD group satisfies `vstep <= x && x < width - vstep`, the loop runs the same number of iterations on every lane."),
        "{}",
        h.markdown
    );
    assert!(
        h.markdown
            .contains("`vstep <= x0 && x0 + 15 < width - vstep`"),
        "{}",
        h.markdown
    );
    // Inside the loop's body, the hover is about the body, not the loop.
    let body = hover(&db, f, at(&text, CONV_KERNEL, "sum += ") + 1).unwrap();
    assert!(!body.markdown.contains("Fast path"), "{}", body.markdown);
    // L0301 is among the diagnostics, as information.
    let fast: Vec<_> = diagnostics(&db, f)
        .into_iter()
        .filter(|d| d.code == Code::FastPath)
        .collect();
    assert_eq!(fast.len(), 2, "{fast:#?}");
    assert!(fast.iter().all(|d| d.severity == Severity::Info));

    let actions = code_actions(&db, f, TextRange::empty(header));
    let add: Vec<_> = actions
        .iter()
        .filter(|a| a.title.starts_with("Add fast path"))
        .collect();
    assert_eq!(add.len(), 1, "{actions:#?}");
    assert_eq!(add[0].kind, ActionKind::Rewrite);
    let edited = apply_edits(&text, &add[0].edits);
    assert!(
        edited.contains(
            "    if (sub_group_all(vstep <= x && x < width - vstep)) {\n        for (int i = left; i <= right; ++i)"
        ),
        "{edited}"
    );
    let path = f.path(&db).clone();
    db.set_file(path, &edited, 2);
    let e = explain(&db, f);
    let loops = e["kernels"][0]["loops"].as_array().unwrap();
    let divergent: Vec<_> = loops.iter().map(|l| l["divergent"] == true).collect();
    assert_eq!(divergent, vec![false, true], "{loops:#?}");
    // The warnings of the loop are left only in the original (else) copy.
    let else_at = edited.find("} else {").unwrap() as u32;
    for d in diagnostics(&db, f) {
        if matches!(d.code, Code::DivergentLoop | Code::Gather) {
            assert!(d.range.start > else_at, "{d:#?}");
        }
    }
    // The copy's `i` is contiguous in its hint and its hover.
    let copy_i = at(&edited, "if (sub_group_all", "int i") + 4;
    let h = hover(&db, f, copy_i).unwrap();
    assert!(h.markdown.contains("**contiguous**"), "{}", h.markdown);
    let copy_line = at(&edited, "if (sub_group_all", "for (int i");
    let hints = inlay_hints(&db, f, TextRange::new(copy_line, copy_line + 40));
    assert!(
        hints.iter().any(|h| h.label == ": contiguous"),
        "{hints:#?}"
    );
    // Inferred again, the original copy has no L0301 and no fast path.
    infer_preconditions(&mut db, f);
    let else_for = at(&edited, "} else {", "for (int i");
    assert!(
        !diagnostics(&db, f)
            .iter()
            .any(|d| d.code == Code::FastPath && d.range.start > else_at),
        "{:#?}",
        diagnostics(&db, f)
    );
    assert!(!code_actions(&db, f, TextRange::empty(else_for))
        .iter()
        .any(|a| a.title.starts_with("Add fast path")));
}

/// A divergent `switch` gets its hint after `switch (...)`, as an `if` does.
#[test]
fn a_divergent_switch_has_its_hint() {
    let text = "__kernel void sw(__global const int *k, __global float *o)\n{\n    int i = get_global_id(0);\n    switch (k[i]) {\n    case 0:\n        o[i] = 1.0f;\n        break;\n    default:\n        o[i] = 2.0f;\n    }\n}\n";
    let mut db = LanesDatabase::new(Settings::for_target("avx2-i32x8").unwrap());
    let f = db.set_file("/tmp/switch.cl", text, 1);
    let hints = inlay_hints(&db, f, TextRange::new(0, text.len() as u32));
    let after = text.find("switch (k[i])").unwrap() as u32 + "switch (k[i])".len() as u32;
    assert!(
        hints
            .iter()
            .any(|h| h.offset == after && h.label.contains("divergent")),
        "{hints:?}"
    );
}
