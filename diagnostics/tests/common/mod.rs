//! What the IDE tests share.

use lanes_db::{File, LanesDatabase};

/// Runs the precondition inference the way the server does (outside the
/// database) and stores the findings.
pub fn infer_preconditions(db: &mut LanesDatabase, f: File) {
    let o = lanes_vectorizer::precond::Options::new(16);
    for p in lanes_db::pending(db, f, &o) {
        let findings = lanes_db::infer(&p.analysis, &o);
        lanes_db::set_kernel_preconditions(
            db,
            f,
            [(
                p.name,
                lanes_db::KernelFindings {
                    analysis: std::sync::Arc::downgrade(&p.analysis),
                    options: o.clone(),
                    findings,
                },
            )],
        );
    }
}
