//! Property: after any sequence of edits (insertions, deletions,
//! replacements, and undos that re-fix what an edit broke) applied to one
//! database, its diagnostics and reports equal those of a fresh database
//! and of a from-scratch `lanes check` on the final text, and nothing panics
//! on the way.

mod common;

use std::collections::HashMap;
use std::path::PathBuf;

use common::*;
use proptest::prelude::*;

const SNIPPETS: &[&str] = &[
    "x",
    " ",
    "\n",
    "// note\n",
    "/* c */",
    "{",
    "}",
    ";",
    "(",
    ")",
    "if (i < n) ",
    "int t = i * 2;\n",
    "get_global_id(0)",
    "i",
    " + 1",
    "#define Q 3\n",
    "\n__kernel void extra(__global int *p) { p[get_global_id(0)] = 1; }\n",
    "return;",
    "for (int z = 0; z < i; z++) ",
    "float",
    "0.5f",
    "out[i] = 0;",
    "helper_leaf(",
    "#include \"h.h\"\n",
    // Two kernels from one macro invocation (analysed in the whole unit).
    "\n#define TWO __kernel void m1(__global int *p) { p[0] = 1; } __kernel void m2(__global int *p) { p[1] = __LINE__; }\nTWO\n",
    "__LINE__",
    "\ntypedef struct { float a; int b; } S2;\n",
    "from_header(",
];

#[derive(Clone, Debug)]
enum Op {
    Insert(usize, usize),
    Delete(usize, usize),
    Replace(usize, usize, usize),
    /// Back to the text before the previous edit.
    Undo,
    /// Change the header the file may include.
    Header(usize),
    /// Insert trivia or a harmless statement after the next `;`, `{` or
    /// `}` (edits that usually keep the file valid, so that the final
    /// states are often analysed).
    Benign(usize, usize),
}

const BENIGN: &[&str] = &[
    " ",
    "\n",
    "\n\n",
    " // c\n",
    " /* c */",
    "\n    ;",
    "\n    if (get_global_id(0) > 3u) { }",
    "\n    for (int z9 = 0; z9 < 2; z9++) { }",
];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (any::<usize>(), 0..SNIPPETS.len()).prop_map(|(p, s)| Op::Insert(p, s)),
        3 => (any::<usize>(), 1usize..24).prop_map(|(p, l)| Op::Delete(p, l)),
        3 => (any::<usize>(), 1usize..12, 0..SNIPPETS.len()).prop_map(|(p, l, s)| Op::Replace(p, l, s)),
        3 => Just(Op::Undo),
        1 => (0..3usize).prop_map(Op::Header),
        4 => (any::<usize>(), 0..BENIGN.len()).prop_map(|(p, s)| Op::Benign(p, s)),
    ]
}

const HEADERS: &[&str] = &[
    "float from_header(float v) { return v * 2.0f; }\n",
    "float from_header(float v) { return v + get_global_id(0); }\n",
    "#define FROM_HEADER 1\n",
];

fn base_text() -> String {
    let helpers = include_str!("../../tests/kernels/valid/helpers.cl");
    format!("{}\n{}", helpers, generated(3))
}

fn clamp_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(text: &str, op: &Op) -> String {
    let pos = |p: usize| {
        clamp_boundary(
            text,
            if text.is_empty() {
                0
            } else {
                p % (text.len() + 1)
            },
        )
    };
    match *op {
        Op::Insert(p, s) => {
            let i = pos(p);
            format!("{}{}{}", &text[..i], SNIPPETS[s], &text[i..])
        }
        Op::Delete(p, l) => {
            let i = pos(p);
            let j = clamp_boundary(text, i + l);
            format!("{}{}", &text[..i], &text[j..])
        }
        Op::Replace(p, l, s) => {
            let i = pos(p);
            let j = clamp_boundary(text, i + l);
            format!("{}{}{}", &text[..i], SNIPPETS[s], &text[j..])
        }
        Op::Benign(p, s) => {
            let i = pos(p);
            match text[i..].find([';', '{', '}']) {
                Some(j) => {
                    let k = i + j + 1;
                    format!("{}{}{}", &text[..k], BENIGN[s], &text[k..])
                }
                None => text.to_string(),
            }
        }
        Op::Undo | Op::Header(_) => text.to_string(),
    }
}

const MAIN: &str = "/virtual/dir/main.cl";
const HEADER: &str = "/virtual/dir/h.h";

fn check(db: &lanes_db::LanesDatabase, file: lanes_db::File, text: &str, header: &str) {
    let fs = MemFs(HashMap::from([(PathBuf::from(HEADER), header.to_string())]));
    let (d_db, r_db) = from_db(db, file);
    let (d_or, r_or) = oracle(&PathBuf::from(MAIN), text, 8, &fs);
    assert_eq!(d_db, d_or, "diagnostics differ on:\n{text}");
    assert_eq!(r_db, r_or, "reports differ on:\n{text}");

    let mut fresh = lanes_db::LanesDatabase::new(settings(8));
    fresh.set_file(HEADER, header, 0);
    let f2 = fresh.set_file(MAIN, text, 0);
    let (d_fr, r_fr) = from_db(&fresh, f2);
    assert_eq!(d_db, d_fr);
    assert_eq!(r_db, r_fr);
}

fn benign_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (any::<usize>(), 0..BENIGN.len()).prop_map(|(p, s)| Op::Benign(p, s)),
        1 => Just(Op::Undo),
        1 => (0..2usize).prop_map(Op::Header),
    ]
}

/// Applies the operations to one database as an editor would (asking for
/// everything after each version), then checks the final text.
fn run(ops: &[Op]) -> (bool, bool) {
    let mut db = lanes_db::LanesDatabase::new(settings(8));
    let mut header = HEADERS[0].to_string();
    db.set_file(HEADER, &header, 0);
    let mut text = base_text();
    let file = db.set_file(MAIN, &text, 0);
    let _ = from_db(&db, file);
    let mut history: Vec<String> = Vec::new();
    for (v, op) in ops.iter().enumerate() {
        match op {
            Op::Undo => {
                if let Some(prev) = history.pop() {
                    text = prev;
                }
            }
            Op::Header(h) => {
                header = HEADERS[*h].to_string();
                db.set_file(HEADER, &header, v as i32 + 1);
            }
            _ => {
                history.push(text.clone());
                text = apply(&text, op);
            }
        }
        db.set_file(MAIN, &text, v as i32 + 1);
        // Ask on every version, as an editor does, so that the caches of
        // intermediate (often broken) texts are what the last answer is
        // built from.
        let _ = from_db(&db, file);
        for k in lanes_db::kernels(&db, file) {
            let _ = lanes_db::kernel_vector_ir(&db, k);
        }
    }
    check(&db, file, &text, &header);
    let clean = !lanes_db::file_diagnostics(&db, file)
        .iter()
        .any(|d| d.is_error());
    let changed = text != base_text();
    // Undo everything: the original text must come out right too.
    while let Some(prev) = history.pop() {
        text = prev;
        db.set_file(MAIN, &text, 1000);
        let _ = from_db(&db, file);
    }
    check(&db, file, &text, &header);
    (clean, changed)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_edits_match_a_fresh_analysis(ops in proptest::collection::vec(op(), 1..14)) {
        let (clean, _) = run(&ops);
        if std::env::var_os("LANES_EDIT_STATS").is_some() {
            eprintln!("final state: {}", if clean { "clean" } else { "errors" });
        }
    }

    /// Edits that keep the file valid most of the time, so that the final
    /// states are analysed (and differ from the original).
    #[test]
    fn benign_edits_match_a_fresh_analysis(ops in proptest::collection::vec(benign_op(), 1..14)) {
        let (clean, changed) = run(&ops);
        if std::env::var_os("LANES_EDIT_STATS").is_some() {
            eprintln!("benign final state: {} {}", if clean { "clean" } else { "errors" }, if changed { "changed" } else { "same" });
        }
    }
}

#[test]
fn header_edits_invalidate_includers() {
    let main = "#include \"h.h\"\n__kernel void k(__global float *o) { int i = get_global_id(0); o[i] = from_header(o[i]); }\n";
    let mut db = lanes_db::LanesDatabase::new(settings(8));
    db.set_file(HEADER, HEADERS[0], 0);
    let file = db.set_file(MAIN, main, 0);
    check(&db, file, main, HEADERS[0]);
    assert!(!lanes_db::file_diagnostics(&db, file)
        .iter()
        .any(|d| d.is_error()));
    db.set_file(HEADER, HEADERS[1], 1);
    check(&db, file, main, HEADERS[1]);
    // The header no longer defines the function: an error in main.cl.
    db.set_file(HEADER, HEADERS[2], 2);
    check(&db, file, main, HEADERS[2]);
    assert!(lanes_db::file_diagnostics(&db, file)
        .iter()
        .any(|d| d.is_error()));
}

/// An edit whose lines alone were preprocessed again reads no header, yet
/// the next header edit still re-runs the includer (the last reads stand).
#[test]
fn header_edits_after_typing_invalidate_includers() {
    let main = "#include \"h.h\"\n__kernel void k(__global float *o) {\n    int i = get_global_id(0);\n    o[i] = from_header(o[i]) * 2.0f;\n}\n";
    let mut db = lanes_db::LanesDatabase::new(settings(8));
    db.set_file(HEADER, HEADERS[0], 0);
    let file = db.set_file(MAIN, main, 0);
    check(&db, file, main, HEADERS[0]);
    let typed = main.replace("* 2.0f", "* 12.0f");
    db.set_file(MAIN, &typed, 1);
    check(&db, file, &typed, HEADERS[0]);
    assert!(lanes_db::parse(&db, file).unit.preprocessed_edited);
    for (v, h) in [HEADERS[1], HEADERS[2], HEADERS[0]].into_iter().enumerate() {
        db.set_file(HEADER, h, v as i32 + 2);
        check(&db, file, &typed, h);
        // Typing again after the header changed.
        let again = typed.replace("* 12.0f", "* 123.0f");
        db.set_file(MAIN, &again, v as i32 + 10);
        check(&db, file, &again, h);
        db.set_file(MAIN, &typed, v as i32 + 20);
        check(&db, file, &typed, h);
    }
}
