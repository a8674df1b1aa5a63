//! An edit cancels the queries running on snapshots (`db.clone()` on other
//! threads), which unwind with `salsa::Cancelled`; the server answers those
//! requests with `ContentModified`.

mod common;

use std::panic::AssertUnwindSafe;
use std::sync::mpsc;

use common::*;
use lanes_db::salsa::Cancelled;

#[test]
fn an_edit_cancels_a_running_snapshot() {
    let text = generated(300);
    let mut db = lanes_db::LanesDatabase::new(settings(8));
    let file = db.set_file("/virtual/many.cl", &text, 1);
    let snapshot = db.clone();
    let (started, wait) = mpsc::channel();
    let worker = std::thread::spawn(move || {
        Cancelled::catch(AssertUnwindSafe(|| {
            started.send(()).unwrap();
            lanes_db::file_diagnostics(&snapshot, file).len()
        }))
        // The snapshot is dropped here, which lets the edit proceed.
    });
    wait.recv().unwrap();
    // Blocks until the snapshot's query has unwound and the snapshot is gone.
    db.set_file("/virtual/many.cl", &text.replace("k7(", "k7b("), 2);
    let outcome = worker.join().expect("the worker must not panic otherwise");
    assert!(
        outcome.is_err(),
        "the analysis of 300 kernels finished before the edit"
    );
    // The database still answers, for the new text.
    let d = lanes_db::file_diagnostics(&db, file);
    assert!(!d.iter().any(|d| d.is_error()));
    assert!(lanes_db::kernels(&db, file)
        .iter()
        .any(|k| k.name(&db) == "k7b"));
}
