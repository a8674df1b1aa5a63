//! The incrementality claims, proved with salsa's event log (`WillExecute`
//! events) on a generated file with 20 kernels and three helpers.

mod common;

use std::path::PathBuf;

use common::*;

const PATH: &str = "/virtual/generated.cl";

/// Everything the editor asks for one file: diagnostics, reports and the
/// vector IR of every kernel.
fn query_all(db: &lanes_db::LanesDatabase, file: lanes_db::File) {
    let _ = lanes_db::file_diagnostics(db, file);
    let _ = lanes_db::live_diagnostics(db, file);
    for k in lanes_db::kernels(db, file) {
        let _ = lanes_db::kernel_vector_ir(db, k);
    }
}

fn setup() -> (
    lanes_db::LanesDatabase,
    std::sync::Arc<std::sync::Mutex<Vec<lanes_db::salsa::DatabaseKeyIndex>>>,
    lanes_db::File,
    String,
) {
    let text = generated(20);
    let (mut db, log) = logging_db(settings(8));
    let file = db.set_file(PATH, &text, 1);
    query_all(&db, file);
    let first = executed(&db, &log);
    // The first run analyses every kernel once.
    assert_eq!(ran(&first, "kernel_analysis").len(), 20);
    assert_eq!(ran(&first, "kernel_vector_ir").len(), 20);
    (db, log, file, text)
}

fn check_equal(db: &lanes_db::LanesDatabase, file: lanes_db::File, text: &str) {
    let fs = MemFs(Default::default());
    let (d1, r1) = from_db(db, file);
    let (d2, r2) = oracle(&PathBuf::from(PATH), text, 8, &fs);
    assert_eq!(d1, d2);
    assert_eq!(r1, r2);
    // Every kernel took the incremental path (no whole-unit fallback).
    if d1.iter().any(|d| d.is_error()) {
        return;
    }
    for k in lanes_db::kernels(db, file) {
        assert!(
            lanes_db::kernel_analysis(db, k).incremental,
            "{} fell back",
            k.name(db)
        );
    }
}

/// Replaces the first occurrence of `from` after `anchor`.
fn edit_after(text: &str, anchor: &str, from: &str, to: &str) -> String {
    let a = text.find(anchor).expect("anchor");
    let i = a + text[a..].find(from).expect("from");
    format!("{}{}{}", &text[..i], to, &text[i + from.len()..])
}

#[test]
fn edit_inside_one_kernel_reanalyses_that_kernel_only() {
    let (mut db, log, file, text) = setup();
    // Same length: nothing after kernel 7 moves.
    let edited = edit_after(&text, "void k7(", "v * 0.5f + 7.0f", "v * 0.5f - 7.0f");
    db.set_file(PATH, &edited, 2);
    query_all(&db, file);
    let ev = executed(&db, &log);
    assert_eq!(ran(&ev, "kernel_analysis"), vec!["k7"]);
    assert_eq!(ran(&ev, "kernel_vector_ir"), vec!["k7"]);
    // The positions of kernels after k7 did not move (same length), so no
    // other report was even re-mapped.
    assert_eq!(ran(&ev, "kernel_report"), vec!["k7"]);
    check_equal(&db, file, &edited);

    // An edit that changes the length of kernel 7 moves kernels 8..19: their
    // reports are re-mapped to the new positions, not re-analysed.
    let longer = edit_after(
        &edited,
        "void k7(",
        "int i = get_global_id(0);",
        "int i = get_global_id(0);   // the lane's pixel",
    );
    db.set_file(PATH, &longer, 3);
    query_all(&db, file);
    let ev = executed(&db, &log);
    assert_eq!(ran(&ev, "kernel_analysis"), vec!["k7"]);
    let remapped = ran(&ev, "kernel_report");
    assert!(remapped.contains(&"k19".to_string()), "{remapped:?}");
    assert!(!remapped.contains(&"k6".to_string()), "{remapped:?}");
    check_equal(&db, file, &longer);
}

#[test]
fn edit_in_a_comment_reanalyses_nothing() {
    let (mut db, log, file, text) = setup();
    // A longer comment at the top moves every item.
    let edited = text.replacen(
        "// generated.cl - many kernels",
        "// generated.cl - a file with very many kernels",
        1,
    );
    db.set_file(PATH, &edited, 2);
    query_all(&db, file);
    let ev = executed(&db, &log);
    assert!(ev.iter().any(|(q, _)| q == "parse"), "{ev:?}");
    assert_eq!(ran(&ev, "kernel_analysis"), Vec::<String>::new());
    assert_eq!(ran(&ev, "kernel_vector_ir"), Vec::<String>::new());
    assert_eq!(ran(&ev, "kernel_report").len(), 20);
    check_equal(&db, file, &edited);

    // A comment between kernels 10 and 11, and blank lines.
    let edited2 = edited.replacen(
        "// kernel number 11\n",
        "// kernel number 11\n\n// eleven\n\n",
        1,
    );
    let bodies = |db: &lanes_db::LanesDatabase| -> Vec<_> {
        let p = lanes_db::parse(db, file);
        p.items.iter().map(|i| (i.body.clone(), i.pos)).collect()
    };
    let before = bodies(&db);
    db.set_file(PATH, &edited2, 3);
    query_all(&db, file);
    let ev = executed(&db, &log);
    assert_eq!(ran(&ev, "kernel_analysis"), Vec::<String>::new());
    check_equal(&db, file, &edited2);
    // The front end was not run again: the previous result was moved, its
    // item bodies kept (the same allocations), the items after the comment
    // moved by its length.
    let after = bodies(&db);
    let line = "// kernel number 11\n";
    let k11 = (edited.find(line).unwrap() + line.len()) as u32;
    assert_eq!(before.len(), after.len());
    for ((b0, p0), (b1, p1)) in before.iter().zip(&after) {
        assert!(std::sync::Arc::ptr_eq(b0, b1));
        let moved = if p0.start >= k11 { 12 } else { 0 };
        assert_eq!(p1.start, p0.start + moved);
    }
}

#[test]
fn edit_inside_a_helper_reanalyses_its_callers_only() {
    let (mut db, log, file, text) = setup();
    let edited = edit_after(&text, "float helper_shared(", "v * 2.0f", "v * 3.0f + v");
    db.set_file(PATH, &edited, 2);
    query_all(&db, file);
    let ev = executed(&db, &log);
    assert_eq!(ran(&ev, "kernel_analysis"), vec!["k12", "k3"]);
    assert_eq!(ran(&ev, "kernel_vector_ir"), vec!["k12", "k3"]);
    check_equal(&db, file, &edited);

    // A helper called through another helper: kernel 5 only.
    let edited2 = edit_after(&edited, "float helper_leaf(", "v * v", "v * v * v");
    db.set_file(PATH, &edited2, 3);
    query_all(&db, file);
    let ev = executed(&db, &log);
    assert_eq!(ran(&ev, "kernel_analysis"), vec!["k5"]);
    check_equal(&db, file, &edited2);
}

#[test]
fn edit_to_a_declaration_or_the_width_reanalyses_everything() {
    let (mut db, log, file, text) = setup();
    let edited = text.replacen("4.0f};", "5.0f};", 1);
    db.set_file(PATH, &edited, 2);
    query_all(&db, file);
    assert_eq!(ran(&executed(&db, &log), "kernel_analysis").len(), 20);
    check_equal(&db, file, &edited);

    let mut s = db.settings();
    s.width = 16;
    db.set_settings(s);
    query_all(&db, file);
    assert_eq!(ran(&executed(&db, &log), "kernel_analysis").len(), 20);

    // Severities are applied by the IDE layer: nothing re-runs.
    let mut s = db.settings();
    s.severities
        .insert(lanes_frontend::diag::Code::Gather, None);
    db.set_settings(s);
    query_all(&db, file);
    let ev = executed(&db, &log);
    assert!(ev.is_empty(), "{ev:?}");
}

#[test]
fn same_text_again_runs_nothing() {
    let (mut db, log, file, text) = setup();
    db.set_file(PATH, &text, 2);
    query_all(&db, file);
    let ev = executed(&db, &log);
    assert!(
        ev.iter()
            .all(|(q, _)| q != "parse" && q != "kernel_analysis"),
        "{ev:?}"
    );
}

#[test]
fn a_new_call_edge_reanalyses_the_caller() {
    let (mut db, log, file, text) = setup();
    let edited = edit_after(&text, "void k9(", "v = v * 0.5f;", "v = helper_other(v);");
    db.set_file(PATH, &edited, 2);
    query_all(&db, file);
    let ev = executed(&db, &log);
    assert_eq!(ran(&ev, "kernel_analysis"), vec!["k9"]);
    check_equal(&db, file, &edited);
}

#[test]
fn broken_then_fixed_kernel() {
    let (mut db, log, file, text) = setup();
    // A syntax error in kernel 7: `lanes check` reports no kernel, but the
    // database still reports every other kernel (re-running none of their
    // analyses), and kernel 7, which holds the error, is not analysed.
    let broken = edit_after(&text, "void k7(", "float v = in[i];", "float v = in[i;");
    db.set_file(PATH, &broken, 2);
    query_all(&db, file);
    let ev = executed(&db, &log);
    assert_eq!(ran(&ev, "kernel_analysis"), Vec::<String>::new());
    check_equal(&db, file, &broken);
    assert!(lanes_db::file_diagnostics(&db, file)
        .iter()
        .any(|d| d.is_error()));
    let reported: Vec<String> = lanes_db::file_reports(&db, file)
        .into_iter()
        .map(|(n, _)| n.to_string())
        .collect();
    assert_eq!(reported.len(), 19, "{reported:?}");
    assert!(!reported.contains(&"k7".to_string()));
    // The editor's diagnostics are the error and every other kernel's.
    let live = lanes_db::live_diagnostics(&db, file);
    assert!(live.iter().any(|d| d.is_error()));
    assert!(live.len() > lanes_db::file_diagnostics(&db, file).len());
    // Fixed again: kernel 7 alone is analysed (its inputs were read while
    // broken, so they changed twice).
    db.set_file(PATH, &text, 3);
    query_all(&db, file);
    let ev = executed(&db, &log);
    assert_eq!(ran(&ev, "kernel_analysis"), vec!["k7"]);
    check_equal(&db, file, &text);
}

/// Typing inside one function (a digit typed or deleted, a parenthesis
/// pair: the text after it moves, the token count may change) cuts the
/// same items as a fresh database, and keeps every other item's body.
#[test]
fn typing_inside_a_function_cuts_only_that_item_again() {
    let (mut db, _log, file, mut text) = setup();
    let items = |db: &lanes_db::LanesDatabase, f: lanes_db::File| {
        let p = lanes_db::parse(db, f);
        p.items
            .iter()
            .map(|e| {
                let body = (*e.body).clone();
                (
                    e.key.clone(),
                    e.range.clone(),
                    body,
                    e.pos,
                    e.foreign.clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    let edits: [(&str, &str, &str, bool); 5] = [
        ("void k7(", "+ 7.0f", "+ 17.0f", true),
        ("void k7(", "+ 17.0f", "+ 7.0f", true),
        ("float helper_leaf(", "v * v", "v * (v)", false),
        ("void k19(", "0.5f", "0.25f", true),
        ("void k2(", "i >= n", "i >= (n)", false),
    ];
    for (v, (anchor, from, to, keeps)) in edits.into_iter().enumerate() {
        let before: Vec<_> = lanes_db::parse(&db, file)
            .items
            .iter()
            .map(|e| e.body.clone())
            .collect();
        text = edit_after(&text, anchor, from, to);
        db.set_file(PATH, &text, v as i32 + 2);
        let mut fresh = lanes_db::LanesDatabase::new(settings(8));
        let ff = fresh.set_file(PATH, &text, 1);
        assert_eq!(items(&db, file), items(&fresh, ff), "after {to}");
        if keeps {
            let p = lanes_db::parse(&db, file);
            let kept = p
                .items
                .iter()
                .zip(&before)
                .filter(|(e, b)| std::sync::Arc::ptr_eq(&e.body, b))
                .count();
            assert_eq!(kept, before.len() - 1, "after {to}");
        }
        query_all(&db, file);
        check_equal(&db, file, &text);
    }
}
