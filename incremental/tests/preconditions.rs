//! Preconditions in the database: computed outside salsa, stored per
//! kernel with the analysis they belong to, shown (mapped to the current
//! text) only while that analysis is current.

use lanes_db::{LanesDatabase, Settings};
use lanes_vectorizer::precond::{Options, Outcome, TargetKind};

const PATH: &str = "/virtual/pre.cl";

const TEXT: &str = "\
__kernel void clamp3(__global const float *in, __global float *out, int n)
{
    int i = get_global_id(0);
    float s = 0.0f;
    for (int j = max(0, i - 1); j <= min(n - 1, i + 1); ++j)
        s += in[j];
    out[i] = s;
}

__kernel void other(__global float *a)
{
    a[get_global_id(0)] = 1.0f;
}
";

fn settings() -> Settings {
    Settings::for_target("avx2-i32x8").unwrap()
}

/// Runs the inference for every pending kernel and stores the results,
/// as the server does.
fn infer_all(db: &mut LanesDatabase, file: lanes_db::File, o: &Options) -> usize {
    let pending = lanes_db::pending(db, file, o);
    let n = pending.len();
    for p in pending {
        let findings = lanes_db::infer(&p.analysis, o);
        lanes_db::set_kernel_preconditions(
            db,
            file,
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
    n
}

fn kernel<'db>(db: &'db LanesDatabase, file: lanes_db::File, name: &str) -> lanes_db::Kernel<'db> {
    lanes_db::kernels(db, file)
        .into_iter()
        .find(|k| k.name(db) == name)
        .unwrap()
}

fn loop_precondition(db: &LanesDatabase, file: lanes_db::File) -> Option<(String, u32)> {
    let k = kernel(db, file, "clamp3");
    let found = lanes_db::kernel_findings(db, k).clone()?;
    found.iter().find_map(|f| match (&f.kind, &f.outcome) {
        (TargetKind::Loop, Outcome::Found(p)) => Some((p.lane.clone(), f.span.start)),
        _ => None,
    })
}

#[test]
fn findings_follow_the_analysis_they_belong_to() {
    let mut db = LanesDatabase::new(settings());
    let file = db.set_file(PATH, TEXT, 1);
    let o = Options::new(8);
    assert!(
        loop_precondition(&db, file).is_none(),
        "nothing before inference"
    );
    assert_eq!(infer_all(&mut db, file, &o), 2);
    let (p, at) = loop_precondition(&db, file).expect("a loop precondition");
    assert_eq!(p, "1 <= i && i < n - 1");
    assert_eq!(at as usize, TEXT.find("for (int j").unwrap());
    assert_eq!(infer_all(&mut db, file, &o), 0, "nothing left to do");

    // The report carries it, and the file's diagnostics have L0301 (as
    // `lanes check` prints them).
    let k = kernel(&db, file, "clamp3");
    let r = lanes_db::kernel_report(&db, k).clone().unwrap();
    let r = r.as_ref().as_ref().unwrap();
    assert_eq!(
        r.loops[0].precondition.as_deref(),
        Some("1 <= i && i < n - 1")
    );
    let codes: Vec<_> = lanes_db::file_diagnostics(&db, file)
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert!(codes.contains(&"L0301"), "{codes:?}");

    // Three lines above the kernels: the analysis is reused, the finding
    // stays and moves with the text.
    let moved = format!("// a\n// b\n// c\n{TEXT}");
    db.set_file(PATH, &moved, 2);
    let (p2, at2) = loop_precondition(&db, file).expect("kept across an edit outside the kernel");
    assert_eq!(p2, p);
    assert_eq!(at2 as usize, moved.find("for (int j").unwrap());
    assert_eq!(infer_all(&mut db, file, &o), 0);

    // An edit in the other kernel keeps clamp3's finding too.
    let other = moved.replace("= 1.0f;", "= 2.0f;");
    db.set_file(PATH, &other, 3);
    assert!(loop_precondition(&db, file).is_some());
    assert_eq!(
        infer_all(&mut db, file, &o),
        1,
        "only `other` is re-inferred"
    );

    // An edit inside clamp3 hides the stale finding until inference re-runs.
    let edited = other.replace("i + 1", "i + 2");
    db.set_file(PATH, &edited, 4);
    assert!(
        loop_precondition(&db, file).is_none(),
        "stale finding hidden"
    );
    assert!(!lanes_db::file_diagnostics(&db, file)
        .iter()
        .any(|d| d.code.as_str() == "L0301"
            && d.span.start as usize == edited.find("for (int j").unwrap()));
    assert_eq!(infer_all(&mut db, file, &o), 1);
    let (p3, _) = loop_precondition(&db, file).unwrap();
    assert_eq!(p3, "1 <= i && i < n - 2");

    // Other options (a budget, a launch hint) make every kernel pending.
    let mut o2 = o.clone();
    o2.budget.target = 900_000;
    assert_eq!(lanes_db::pending(&db, file, &o2).len(), 2);
}

#[test]
fn a_file_with_errors_has_nothing_pending() {
    let mut db = LanesDatabase::new(settings());
    let file = db.set_file(PATH, "__kernel void k(__global int *a) { a[0] = ; }", 1);
    assert!(lanes_db::pending(&db, file, &Options::new(8)).is_empty());
}
