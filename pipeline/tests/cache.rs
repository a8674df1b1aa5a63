//! The findings cache: a run that reads it gives what a run without it
//! gives, and infers again only the kernels whose key changed.

use std::path::{Path, PathBuf};

mod common;

use lanes_frontend::preprocess::RealFs;
use lanes_frontend::unit::{check_text, CheckedUnit};
use lanes_pipeline::{plan_build, plan_build_cached, run_file, run_file_cached, Cache};
use lanes_pipeline::{FileRun, Settings, Specialize};

use common::corpus;

fn settings() -> Settings {
    Settings::for_target("avx2-i32x8").unwrap().for_build()
}

fn unit(name: &str, text: &str) -> CheckedUnit {
    let s = settings();
    let u = check_text(name, None, text, &s.preprocess_options(), &RealFs);
    assert!(!u.has_errors(), "{name}");
    u
}

/// A fresh cache directory of this test (under the system's temporary
/// directory, never the user's cache).
fn cache_dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lanes-cache-test-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// What a run says, without the informational times.
fn said(run: &FileRun) -> String {
    let mut out = String::new();
    for k in &run.kernels {
        for f in &k.findings {
            let mut f = f.clone();
            f.millis = 0.0;
            out.push_str(&format!("{} {f:?}\n", k.name));
        }
    }
    for d in &run.diagnostics {
        out.push_str(&format!("{d:?}\n"));
    }
    out.push_str(&format!("spent {}\n", run.spent));
    out
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out)
            } else {
                out.push(p)
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out
}

/// Cold, filling and warm runs say the same; the warm run infers nothing,
/// and builds the same specialized text.
#[test]
fn a_warm_run_says_what_a_cold_run_says() {
    let s = settings();
    let dir = cache_dir("warm");
    for path in corpus("tests/kernels/precond") {
        let text = std::fs::read_to_string(&path).unwrap();
        let u = unit(&path.display().to_string(), &text);
        let cold = said(&run_file(&u, &s, None));
        let cache = Cache::at(dir.clone());
        let fill = run_file_cached(&u, &s, None, Some(&cache));
        assert_eq!(cache.hits(), 0, "{}", path.display());
        assert_eq!(cache.misses() as usize, fill.kernels.len());
        assert_eq!(said(&fill), cold, "{}", path.display());
        let cache = Cache::at(dir.clone());
        let warm = run_file_cached(&u, &s, None, Some(&cache));
        assert_eq!(cache.misses(), 0, "{}", path.display());
        assert_eq!(cache.hits() as usize, warm.kernels.len());
        assert_eq!(said(&warm), cold, "{}", path.display());

        let specialized = |p: lanes_pipeline::BuildPlan| {
            p.specialized
                .map(|u| u.sources.get(u.main).text.to_string())
        };
        let built = specialized(plan_build(&u, &s, Specialize::Auto, &RealFs));
        let cache = Cache::at(dir.clone());
        let from_cache = specialized(plan_build_cached(
            &u,
            &s,
            Specialize::Auto,
            &RealFs,
            Some(&cache),
        ));
        assert_eq!(cache.misses(), 0);
        assert_eq!(from_cache, built, "{}", path.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn prefix_sum() -> String {
    let path = corpus("tests/kernels/precond")
        .into_iter()
        .find(|p| p.ends_with("prefix_sum.cl"))
        .unwrap();
    std::fs::read_to_string(path).unwrap()
}

/// Runs `text` with the cache (filled by the runs before), checks it
/// against a run without, and returns (hits, misses).
fn run_against_cold(dir: &Path, text: &str) -> (u32, u32) {
    let s = settings();
    let u = unit("prefix_sum.cl", text);
    let cache = Cache::at(dir.to_path_buf());
    let cached = run_file_cached(&u, &s, None, Some(&cache));
    assert_eq!(said(&cached), said(&run_file(&u, &s, None)));
    (cache.hits(), cache.misses())
}

/// Lines added above the kernels change no key (the findings' spans are
/// stored relative to their items); an edit in the last kernel infers that
/// kernel again only; an edit in the first infers it again, and the
/// kernels after it again only if it spent a different amount of the file's
/// budget that held them back.
#[test]
fn only_the_edited_kernel_is_inferred_again() {
    let dir = cache_dir("edit");
    let text = prefix_sum();
    assert_eq!(run_against_cold(&dir, &text), (0, 3));
    assert_eq!(run_against_cold(&dir, &text), (3, 0));
    let moved = format!("// a line\n#define UNUSED 1\n\n{text}");
    assert_eq!(run_against_cold(&dir, &moved), (3, 0));

    let last = moved.replace(
        "    int offset = 1;\n",
        "    int offset = 1;\n    int unused = base + 1;\n",
    );
    assert_ne!(last, moved);
    assert_eq!(run_against_cold(&dir, &last), (2, 1));
    assert_eq!(run_against_cold(&dir, &last), (3, 0));

    let first = last.replacen(
        "    uint lid = get_local_id(0);\n",
        "    uint lid = get_local_id(0);\n    uint unused = lid;\n",
        1,
    );
    assert_ne!(first, last);
    let (hits, misses) = run_against_cold(&dir, &first);
    assert!(misses >= 1 && hits + misses == 3, "{hits} {misses}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A kernel that spends the file's budget, and one after it.
fn unsettled_file() -> String {
    common::unsettled("first")
        + r#"
__kernel void second(__global int *out, int n)
{
    int x = get_global_id(0);
    if (x < n)
        out[x] = 1;
}
"#
}

/// A kernel the file's budget held back (the kernels before it spent it)
/// is inferred again when it gets more; findings made with enough of the
/// file's budget that no target was held back hold for any such amount.
#[test]
fn findings_held_back_by_the_file_budget_hold_for_that_budget_only() {
    let dir = cache_dir("budget");
    let s = settings();
    let unsettled = unsettled_file();
    let run = run_file(&unit("unsettled.cl", &unsettled), &s, None);
    // The first kernel spends the file's budget: the second gets nothing.
    assert_eq!(run.spent, s.preconditions.budget.file);
    assert_eq!(
        run.kernels[1].findings.iter().map(|f| f.spent).sum::<u64>(),
        0
    );
    assert_eq!(run_against_cold(&dir, &unsettled), (0, 2));
    assert_eq!(run_against_cold(&dir, &unsettled), (2, 0));
    // The first kernel spends little now: the second is inferred again.
    let cheap = |body: &str| {
        let a = unsettled.find("    int acc = in[x];").unwrap();
        let b = unsettled.find("__kernel void second").unwrap();
        format!(
            "{}{body}}}

{}",
            &unsettled[..a],
            &unsettled[b..]
        )
    };
    let one = cheap(
        "    out[x] = in[x] + m;
",
    );
    let two = cheap(
        "    if (x < m) out[x] = in[x] + s;
",
    );
    let spent = |text: &str| {
        run_file(&unit("cheap.cl", text), &s, None).kernels[0]
            .findings
            .iter()
            .map(|f| f.spent)
            .sum::<u64>()
    };
    assert_ne!(spent(&one), spent(&two));
    assert_eq!(run_against_cold(&dir, &one), (0, 2));
    // Again another amount, but enough: the second kernel's findings hold.
    assert_eq!(run_against_cold(&dir, &two), (1, 1));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An entry that cannot be parsed, or holds another key's check, is a
/// miss, and is written again.
#[test]
fn a_corrupt_entry_is_a_miss_and_is_replaced() {
    let dir = cache_dir("corrupt");
    let text = prefix_sum();
    assert_eq!(run_against_cold(&dir, &text), (0, 3));
    let files = entries(&dir);
    assert_eq!(files.len(), 3, "{files:?}");
    let whole = std::fs::read(&files[0]).unwrap();
    std::fs::write(&files[0], &whole[..whole.len() / 2]).unwrap();
    std::fs::write(&files[1], b"").unwrap();
    let other = String::from_utf8(std::fs::read(&files[2]).unwrap())
        .unwrap()
        .replace("\"check\":\"", "\"check\":\"0");
    std::fs::write(&files[2], other).unwrap();
    assert_eq!(run_against_cold(&dir, &text), (0, 3));
    assert_eq!(run_against_cold(&dir, &text), (3, 0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A cache directory that cannot be made: the run goes on without it.
#[test]
fn an_unwritable_cache_changes_nothing() {
    let dir = cache_dir("unwritable");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let text = prefix_sum();
    assert_eq!(run_against_cold(&file.join("cache"), &text), (0, 3));
    assert_eq!(run_against_cold(&file.join("cache"), &text), (0, 3));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two kernels, each with its own helper and struct.
fn two_kernels_with_helpers() -> String {
    r#"
typedef struct { uint lo; uint hi; } Range;

inline uint left(uint offset, uint lid) { return offset * (2 * lid + 1) - 1; }

__kernel void up(__global float *data, uint d, uint offset)
{
    uint lid = get_local_id(0);
    if (lid < d) {
        uint ai = left(offset, lid);
        data[ai + offset] += data[ai];
    }
}

typedef struct { uint step; } Step;

inline uint right(Step s, uint lid) { return s.step * (lid + 1) - 1; }

__kernel void down(__global float *data, uint d, uint offset)
{
    uint lid = get_local_id(0);
    Step s = { offset };
    if (lid < d) {
        uint ai = right(s, lid);
        data[ai + (offset >> 1)] += data[ai];
    }
}
"#
    .to_string()
}

/// A kernel's key holds the items it names, directly or through them, and
/// nothing else: an edit in a helper or struct only the other kernel uses,
/// or a new function above both (which renumbers every function), keeps
/// its entry; an edit in its own helper or struct does not.
#[test]
fn only_the_items_a_kernel_names_are_in_its_key() {
    let dir = cache_dir("names");
    let run = |text: &str| {
        let s = settings();
        let u = unit("two.cl", text);
        let cache = Cache::at(dir.clone());
        let cached = run_file_cached(&u, &s, None, Some(&cache));
        assert_eq!(said(&cached), said(&run_file(&u, &s, None)), "{text}");
        (cache.hits(), cache.misses())
    };
    let text = two_kernels_with_helpers();
    assert_eq!(run(&text), (0, 2));
    assert_eq!(run(&text), (2, 0));

    // Only `up` calls `left`.
    let helper = text.replace("offset * (2 * lid + 1) - 1", "offset * (2 * lid + 1) - 1u");
    assert_ne!(helper, text);
    assert_eq!(run(&helper), (1, 1));
    // Only `down` names `Step` (and `right`).
    let field = helper.replace("uint step; }", "uint step; uint pad; }");
    assert_ne!(field, helper);
    assert_eq!(run(&field), (1, 1));
    // `Range` is named by neither.
    let unused = field.replace("uint hi; }", "uint hi; uint mid; }");
    assert_ne!(unused, field);
    assert_eq!(run(&unused), (2, 0));
    // A function and a global above both: every function id moves.
    let above = format!("__constant int table[2] = {{1, 2}};\nint unrelated(int x) {{ return table[x & 1]; }}\n{unused}");
    assert_eq!(run(&above), (2, 0));
    let _ = std::fs::remove_dir_all(&dir);
}
