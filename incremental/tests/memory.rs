//! Memory over editing: what an edit replaces is freed, however many edits
//! come. Counted by strong references (weak handles that no longer
//! upgrade), not by bytes or time.

mod common;

use std::sync::{Arc, Weak};

use lanes_db::{Analysis, LanesDatabase, Parsed};
use lanes_vectorizer::precond::Options;

const PATH: &str = "/virtual/memory.cl";
const KERNELS: usize = 8;

/// Infers every pending kernel's preconditions and stores them, as the
/// server does.
fn infer_all(db: &mut LanesDatabase, file: lanes_db::File) -> usize {
    let o = Options::new(8);
    let pending = lanes_db::pending(db, file, &o);
    let n = pending.len();
    let found: Vec<_> = pending
        .into_iter()
        .map(|p| {
            let findings = lanes_db::infer(&p.analysis, &o);
            (
                p.name,
                lanes_db::KernelFindings {
                    analysis: Arc::downgrade(&p.analysis),
                    options: o.clone(),
                    findings,
                },
            )
        })
        .collect();
    lanes_db::set_kernel_preconditions(db, file, found);
    n
}

fn analyses(db: &LanesDatabase, file: lanes_db::File) -> Vec<Weak<Analysis>> {
    lanes_db::kernels(db, file)
        .into_iter()
        .map(|k| Arc::downgrade(lanes_db::kernel_analysis(db, k)))
        .collect()
}

/// Typing a digit inside each kernel in turn, and deleting it at the next
/// visit, with no time for inference in between (back-to-back edits): after
/// each edit's diagnostics and `free_replaced`, the previous revision's
/// parse is gone and so is exactly the edited kernel's previous analysis,
/// though the stored findings were computed on it.
#[test]
fn an_edit_frees_what_it_replaced() {
    let mut text = common::generated(KERNELS);
    let mut db = LanesDatabase::new(common::settings(8));
    let file = db.set_file(PATH, &text, 1);
    lanes_db::live_diagnostics(&db, file);
    assert_eq!(infer_all(&mut db, file), KERNELS);
    lanes_db::live_diagnostics(&db, file);
    let mut typed = [false; KERNELS];
    for edit in 0..3 * KERNELS {
        let k = edit % KERNELS;
        let digits = if typed[k] {
            format!("7{k}")
        } else {
            k.to_string()
        };
        let at = text
            .find(&format!("v * 0.5f + {digits}.0f"))
            .expect("edit site")
            + 11;
        if typed[k] {
            text.remove(at);
        } else {
            text.insert(at, '7');
        }
        typed[k] = !typed[k];
        let parsed: Weak<Parsed> = Arc::downgrade(lanes_db::parse(&db, file));
        let before = analyses(&db, file);
        db.set_file(PATH, &text, edit as i32 + 2);
        lanes_db::live_diagnostics(&db, file);
        db.free_replaced();
        lanes_db::reclaim::free_parked();
        assert!(
            parsed.upgrade().is_none(),
            "edit {edit}: the previous parse is alive"
        );
        let freed: Vec<usize> = (0..KERNELS)
            .filter(|&i| before[i].upgrade().is_none())
            .collect();
        assert_eq!(freed, [k], "edit {edit}: analyses freed");
    }
}
