//! Facts survive errors: an error inside one kernel leaves every other
//! kernel's hints and hovers as they were, and the broken kernel shows its
//! last analysed facts, marked as such.

use std::path::{Path, PathBuf};

use lanes_db::{File, LanesDatabase, Settings};
use lanes_diagnostics::ide::diagnostics::diagnostics;
use lanes_diagnostics::ide::hover::{hover, Hover};
use lanes_diagnostics::ide::inlay::{inlay_hints, InlayHint};
use lanes_diagnostics::ide::semantic::{semantic_tokens, semantic_tokens_in};
use lanes_diagnostics::ide::TextRange;
use lanes_frontend::diag::Severity;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

fn cl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            cl_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "cl") {
            out.push(p);
        }
    }
}

/// A kernel of the file: its name, its definition's range and where its
/// body's `{` ends.
struct KernelAt {
    name: String,
    range: TextRange,
    body_open: u32,
}

/// The kernels written out in the file (not made by a macro: an edit of a
/// macro's body changes every kernel it makes).
fn kernels_of(db: &LanesDatabase, f: File, text: &str) -> Vec<KernelAt> {
    let p = lanes_db::parse(db, f);
    let main = p.unit.main;
    p.unit
        .hir
        .functions
        .iter()
        .filter(|k| k.is_kernel && k.span.file == main)
        .filter_map(|k| {
            let body = k.body.as_ref()?;
            let own = text.get(k.name_span.start as usize..k.name_span.end as usize)
                == Some(k.name.as_str())
                && text.as_bytes().get(body.span.start as usize) == Some(&b'{');
            if !own {
                return None;
            }
            Some(KernelAt {
                name: k.name.to_string(),
                range: TextRange::new(k.span.start, k.span.end),
                body_open: body.span.start + 1,
            })
        })
        .collect()
}

fn inside(r: TextRange, at: u32) -> bool {
    r.start <= at && at < r.end
}

/// Where the analysis has something to say in a kernel's own text: each
/// value, access, loop and branch of its report (in helpers, which other
/// kernels share, hovers also show the broken kernel's facts).
fn probe_points(db: &LanesDatabase, f: File, name: &str, own: TextRange) -> Vec<u32> {
    let mut out = Vec::new();
    for k in lanes_db::kernels(db, f) {
        if k.name(db) != name {
            continue;
        }
        let Some(r) = lanes_db::kernel_report(db, k).clone() else {
            continue;
        };
        let Ok(r) = &*r else { continue };
        out.extend(r.values.iter().map(|v| v.span.start));
        out.extend(r.accesses.iter().map(|a| a.span.start));
        out.extend(r.loops.iter().map(|l| l.span.start));
        out.extend(r.branches.iter().map(|b| b.span.start));
    }
    out.retain(|&p| inside(own, p));
    out.sort();
    out.dedup();
    out
}

fn shifted_hint(h: &InlayHint, at: u32, by: u32) -> InlayHint {
    let mut h = h.clone();
    if h.offset >= at {
        h.offset += by;
    }
    h
}

/// The hover after `by` bytes holding `lines` line breaks were inserted at
/// `at` (on line `at_line`): ranges and the line numbers it names move.
fn shifted_hover(h: Option<Hover>, at: u32, by: u32, at_line: u32, lines: u32) -> Option<Hover> {
    h.map(|mut h| {
        let s = |x: u32| if x >= at { x + by } else { x };
        h.range = TextRange::new(s(h.range.start), s(h.range.end));
        h.markdown = shift_line_numbers(&h.markdown, at_line, lines);
        h
    })
}

/// `line N` with N after `at_line` becomes `line N + lines`.
fn shift_line_numbers(s: &str, at_line: u32, lines: u32) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("line ") {
        out.push_str(&rest[..i + 5]);
        rest = &rest[i + 5..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if let Ok(n) = rest[..digits].parse::<u32>() {
            let n = if n > at_line { n + lines } else { n };
            out.push_str(&n.to_string());
        }
        rest = &rest[digits..];
    }
    out.push_str(rest);
    out
}

/// Breaks each kernel of every clean multi-kernel file of the corpus in
/// turn (a syntax error, then a type error, at the start of its body) and
/// compares every other kernel's hints and hovers with the clean file's.
#[test]
fn an_error_in_one_kernel_leaves_the_others_facts() {
    let mut files = Vec::new();
    for dir in ["examples", "tests/kernels"] {
        cl_files(&repo(dir), &mut files);
    }
    let breaks = ["\n    int = ;\n", "\n    undeclared_name_q = 1;\n"];
    let mut compared_kernels = 0;
    let mut compared_points = 0;
    let mut stale_shown = 0;
    for path in files {
        let path = path.canonicalize().unwrap();
        let Ok(src) = lanes_frontend::source::read_source(&path) else {
            continue;
        };
        let text = src.text;
        let mut db = LanesDatabase::new(Settings::for_target("avx2-i32x8").unwrap());
        let f = db.set_file(path.clone(), &text, 1);
        if lanes_db::parse(&db, f).unit.has_errors() {
            continue;
        }
        let ks = kernels_of(&db, f, &text);
        if ks.len() < 2 {
            continue;
        }
        let clean_hints = inlay_hints(&db, f, TextRange::new(0, text.len() as u32));
        let points: Vec<Vec<u32>> = ks
            .iter()
            .map(|k| probe_points(&db, f, &k.name, k.range))
            .collect();
        let clean_hovers: Vec<Vec<Option<Hover>>> = points
            .iter()
            .map(|ps| ps.iter().map(|&p| hover(&db, f, p)).collect())
            .collect();
        for (bi, broken_k) in ks.iter().enumerate() {
            for (version, insert) in breaks.iter().enumerate() {
                let at = broken_k.body_open;
                let by = insert.len() as u32;
                let lines = insert.matches('\n').count() as u32;
                let at_line = text[..at as usize].matches('\n').count() as u32 + 1;
                let mut broken = text.clone();
                broken.insert_str(at as usize, insert);
                db.set_file(path.clone(), &broken, 2 + version as i32);
                let where_ = format!(
                    "{} with {:?} in kernel {}",
                    path.display(),
                    insert.trim(),
                    broken_k.name
                );
                assert!(
                    diagnostics(&db, f)
                        .iter()
                        .any(|d| d.severity == Severity::Error),
                    "{where_}: no error"
                );
                let hints = inlay_hints(&db, f, TextRange::new(0, broken.len() as u32));
                for (j, other) in ks.iter().enumerate() {
                    if j == bi {
                        continue;
                    }
                    compared_kernels += 1;
                    let want: Vec<InlayHint> = clean_hints
                        .iter()
                        .filter(|h| inside(other.range, h.offset))
                        .map(|h| shifted_hint(h, at, by))
                        .collect();
                    let moved = TextRange::new(
                        other.range.start + if other.range.start >= at { by } else { 0 },
                        other.range.end + if other.range.end >= at { by } else { 0 },
                    );
                    let got: Vec<InlayHint> = hints
                        .iter()
                        .filter(|h| inside(moved, h.offset))
                        .cloned()
                        .collect();
                    assert_eq!(got, want, "{where_}: hints of kernel {}", other.name);
                    for (p, want) in points[j].iter().zip(&clean_hovers[j]) {
                        let q = if *p >= at { p + by } else { *p };
                        let got = hover(&db, f, q);
                        let want = shifted_hover(want.clone(), at, by, at_line, lines);
                        assert_eq!(got, want, "{where_}: hover at {p} in kernel {}", other.name);
                        compared_points += 1;
                    }
                }
                // The broken kernel keeps its facts after the error, marked.
                if let Some(p) = points[bi].iter().find(|&&p| p >= at) {
                    if hover(&db, f, p + by).is_some_and(|h| h.markdown.contains("has errors now"))
                    {
                        stale_shown += 1;
                    }
                }
            }
            db.set_file(path.clone(), &text, 1);
        }
    }
    eprintln!("compared {compared_kernels} kernels at {compared_points} places; {stale_shown} broken kernels showed last facts");
    assert!(compared_kernels > 500, "{compared_kernels}");
    assert!(compared_points > 5000, "{compared_points}");
    assert!(stale_shown > 100, "{stale_shown}");
}

/// A kernel with an error shows its last analysed facts where the text
/// around them is unchanged, says so, and offers no edits built on them.
#[test]
fn the_broken_kernel_shows_its_last_facts_marked() {
    let path = repo("examples/convolution.cl").canonicalize().unwrap();
    let text = lanes_frontend::source::read_source(&path).unwrap().text;
    let mut db = LanesDatabase::new(Settings::for_target("avx2-i32x8").unwrap());
    let f = db.set_file(path.clone(), &text, 1);
    let all = |t: &str| TextRange::new(0, t.len() as u32);
    let clean = inlay_hints(&db, f, all(&text));
    assert!(!clean.is_empty());
    // Typing a new statement at the end of the kernel.
    let end = text.rfind('}').unwrap();
    let mut broken = text.clone();
    broken.insert_str(end, "    float t = sum +\n");
    db.set_file(path.clone(), &broken, 2);
    assert!(lanes_db::parse(&db, f).unit.has_errors());
    let hints = inlay_hints(&db, f, all(&broken));
    // Every hint before the edit is still there, with a tooltip saying where
    // it comes from.
    let before: Vec<&InlayHint> = clean.iter().filter(|h| h.offset < end as u32).collect();
    assert_eq!(hints.len(), before.len());
    for (h, c) in hints.iter().zip(before) {
        assert_eq!((h.offset, &h.label), (c.offset, &c.label));
        assert!(
            h.tooltip
                .as_deref()
                .is_some_and(|t| t.contains("without errors")),
            "{h:?}"
        );
    }
    let x = broken.find("int x =").unwrap() as u32 + 4;
    let h = hover(&db, f, x).unwrap();
    assert!(h.markdown.contains("**contiguous**"), "{}", h.markdown);
    assert!(h.markdown.contains("has errors now"), "{}", h.markdown);
    // No guard or fast-path edits on stale facts.
    let actions = lanes_diagnostics::ide::actions::code_actions(&db, f, all(&broken));
    assert!(
        actions.iter().all(|a| !a.title.starts_with("Guard")),
        "{actions:?}"
    );
    let lens = lanes_diagnostics::ide::lens::code_lens(&db, f);
    assert!(
        lens[0].title.contains("as last analysed"),
        "{}",
        lens[0].title
    );
    // Fixed: current facts again, without the mark.
    db.set_file(path, &text, 3);
    assert_eq!(inlay_hints(&db, f, all(&text)), clean);
}

/// Windows of 7 lines, stepping 5 lines: they start and end inside
/// functions, between them, and on their first and last lines.
fn windows(text: &str) -> Vec<TextRange> {
    let starts: Vec<u32> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1))
        .collect();
    let end = text.len() as u32;
    (0..starts.len())
        .step_by(5)
        .map(|i| TextRange::new(starts[i], starts.get(i + 7).copied().unwrap_or(end)))
        .collect()
}

/// The corpus files with their text, each in a database of its own.
fn corpus_dbs() -> Vec<(PathBuf, String, LanesDatabase, File)> {
    let mut files = Vec::new();
    cl_files(&repo("tests/kernels"), &mut files);
    cl_files(&repo("examples"), &mut files);
    files
        .into_iter()
        .filter_map(|path| {
            let text = lanes_frontend::source::read_source(&path).ok()?.text;
            let mut db = LanesDatabase::new(Settings::for_target("avx2-i32x8").unwrap());
            let f = db.set_file(&path, &text, 1);
            Some((path, text, db, f))
        })
        .collect()
}

/// An editor asks for the hints of the lines it shows, and the server
/// computes only the kernels that can have facts there: every window of
/// every corpus file must get exactly the whole file's hints inside it.
#[test]
fn hints_of_a_window_are_the_whole_files_inside_it() {
    let mut checked = 0;
    for (path, text, db, f) in corpus_dbs() {
        let whole = inlay_hints(&db, f, TextRange::new(0, text.len() as u32));
        if whole.is_empty() {
            continue;
        }
        for range in windows(&text) {
            let want: Vec<&InlayHint> = whole.iter().filter(|h| range.touches(h.offset)).collect();
            let got = inlay_hints(&db, f, range);
            assert_eq!(
                got.iter().collect::<Vec<_>>(),
                want,
                "{}: hints of {range:?}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 1000, "only {checked} windows");
}

/// The same for semantic tokens (`textDocument/semanticTokens/range`).
#[test]
fn semantic_tokens_of_a_window_are_the_whole_files_inside_it() {
    let mut checked = 0;
    for (path, text, db, f) in corpus_dbs() {
        let whole = semantic_tokens(&db, f);
        for range in windows(&text) {
            let want: Vec<_> = whole
                .iter()
                .filter(|t| t.range.start < range.end && range.start < t.range.end)
                .cloned()
                .collect();
            assert_eq!(
                semantic_tokens_in(&db, f, range),
                want,
                "{}: tokens of {range:?}",
                path.display()
            );
            checked += 1;
        }
    }
    assert!(checked > 1000, "only {checked} windows");
}
