//! Property: after a sequence of edits to a corpus file in one database,
//! with the editor's requests answered after each, every answer on the
//! final text equals the answer of a fresh database given that text:
//! diagnostics, hovers at every word, inlay hints, semantic tokens,
//! document symbols and code lenses. Edits are trivia (comments, blank
//! lines, spaces), statements inside bodies, comments, continued lines,
//! conditionals, macros and typedefs that reach past the edited line or
//! item, characters typed and deleted (the text after them moves) also in
//! `#define` lines, errors and undos; a final text with errors is compared on its
//! diagnostics only (the database then shows the broken kernel's last good
//! facts, which a fresh one has not seen). After every edit, the
//! diagnostics rendered reusing the last edit's renderings (as the language
//! server publishes them) equal those rendered afresh, with the line and
//! column of every place.

use std::path::{Path, PathBuf};

use lanes_db::{File, LanesDatabase, Settings};
use lanes_diagnostics::ide::diagnostics::{diagnostics, diagnostics_reusing, Diag, Reuse, Shift};
use lanes_diagnostics::ide::hover::hover;
use lanes_diagnostics::ide::inlay::inlay_hints;
use lanes_diagnostics::ide::lens::code_lens;
use lanes_diagnostics::ide::semantic::semantic_tokens;
use lanes_diagnostics::ide::symbols::document_symbols;
use lanes_diagnostics::ide::TextRange;
use proptest::prelude::*;

/// Files with several kernels or helpers, where an edit in one item leaves
/// others to be reused.
const FILES: &[&str] = &[
    "tests/kernels/valid/helpers.cl",
    "tests/kernels/valid/macros.cl",
    "tests/kernels/valid/control_flow.cl",
    "tests/kernels/valid/black_scholes.cl",
    "tests/kernels/valid/float4_ops.cl",
    "tests/kernels/valid/includes.cl",
    "tests/kernels/valid/enum_modes.cl",
    "tests/kernels/valid/constant_memory.cl",
    "examples/convolution.cl",
];

const SNIPPETS: &[&str] = &[
    " ",
    "\n",
    "\n\n",
    "// a note\n",
    "/* c */",
    "\n/* a longer\n   comment */\n",
    "int lanes_t = 1;\n",
    "lanes_t",
    "@",
    "}",
    // Edits whose effect reaches past their line: a comment opened here
    // and closed by a later insertion (or never), a continued line, a
    // conditional or macro or typedef that changes the items after it.
    "/*",
    "*/",
    "\\\n",
    "\n#if 0\n",
    "\n#endif\n",
    "\n#define lanes_t 2\n",
    "\ntypedef int lanes_i;\n",
    "lanes_i lanes_v = 0;",
    "\n#pragma lanes ignore(L0202, L0300)\n",
];

/// What [`Op::InDefine`] types at the end of a `#define` line.
const IN_DEFINE: &[&str] = &["1", " ", "\n", " + 1", "x"];

#[derive(Clone, Debug)]
enum Op {
    /// Snippet `.1` after the first `;`, `{` or `}` at or after the
    /// fraction `.0` of the text (past the end: at the end).
    Insert(f64, usize),
    /// Removes up to `.1` bytes at the fraction `.0` of the text.
    Delete(f64, usize),
    /// The first digit at or after the fraction `.0` of the text becomes
    /// the next digit (typing inside a literal: as many syntax-tree nodes
    /// as before, so only the function around it is parsed again).
    Digit(f64),
    /// The first lowercase letter at or after the fraction `.0` of the text
    /// becomes the next letter (a name, or a keyword, changed).
    Letter(f64),
    /// The first space at or after the fraction `.0` of the text becomes a
    /// newline (the same length, one line more: every later diagnostic
    /// keeps its offsets and moves down a line).
    Break(f64),
    /// The first newline at or after the fraction `.0` becomes a space.
    Join(f64),
    /// A digit typed before the first digit at or after the fraction `.0`
    /// (the text after it moves by one byte, as when a user types).
    Type(f64),
    /// The first digit at or after the fraction `.0` deleted when a digit
    /// follows it (a typed character deleted).
    Erase(f64),
    /// Text `.1` (a digit, a space, a line break, a name) at the end of the
    /// first `#define` line at or after the fraction `.0` (typing inside a
    /// macro definition changes what every later use expands to).
    InDefine(f64, usize),
    /// The name of the first `#define` at or after the fraction `.0` (or
    /// else the first one), or `__LINE__`, typed with ` + ` before the
    /// first digit at or after the fraction `.1` (a macro's name changes
    /// what the preprocessor does with the lines after it).
    MacroName(f64, f64),
    /// `1 + ` typed after the first `(` at or after the fraction `.0` that
    /// follows an uppercase letter (inside a macro invocation's arguments).
    InCall(f64),
    /// Back to the text before the previous edit.
    Undo,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0.0..1.0f64, 0..SNIPPETS.len()).prop_map(|(a, s)| Op::Insert(a, s)),
        1 => (0.0..1.0f64, 1..6usize).prop_map(|(a, n)| Op::Delete(a, n)),
        2 => (0.0..1.0f64).prop_map(Op::Digit),
        1 => (0.0..1.0f64).prop_map(Op::Letter),
        1 => (0.0..1.0f64).prop_map(Op::Break),
        1 => (0.0..1.0f64).prop_map(Op::Join),
        2 => (0.0..1.0f64).prop_map(Op::Type),
        1 => (0.0..1.0f64).prop_map(Op::Erase),
        1 => (0.0..1.0f64, 0..IN_DEFINE.len()).prop_map(|(a, s)| Op::InDefine(a, s)),
        1 => (0.0..1.1f64, 0.0..1.0f64).prop_map(|(a, b)| Op::MacroName(a, b)),
        1 => (0.0..1.0f64).prop_map(Op::InCall),
        2 => Just(Op::Undo),
    ]
}

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

fn boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

fn apply(text: &str, op: &Op) -> String {
    match *op {
        Op::Insert(at, s) => {
            let from = boundary(text, (at * text.len() as f64) as usize);
            let i = text[from..]
                .find([';', '{', '}'])
                .map_or(text.len(), |k| from + k + 1);
            format!("{}{}{}", &text[..i], SNIPPETS[s], &text[i..])
        }
        Op::Delete(at, n) => {
            let a = boundary(text, (at * text.len() as f64) as usize);
            let b = boundary(text, a + n);
            format!("{}{}", &text[..a], &text[b..])
        }
        Op::Digit(at) => next_char(text, at, '0'..='9'),
        Op::Letter(at) => next_char(text, at, 'a'..='z'),
        Op::Break(at) => replace_first(text, at, ' ', '\n'),
        Op::Join(at) => replace_first(text, at, '\n', ' '),
        Op::Type(at) => {
            let from = boundary(text, (at * text.len() as f64) as usize);
            match text[from..].find(|c: char| c.is_ascii_digit()) {
                Some(k) => format!("{}1{}", &text[..from + k], &text[from + k..]),
                None => text.to_string(),
            }
        }
        Op::Erase(at) => {
            let from = boundary(text, (at * text.len() as f64) as usize);
            let b = text.as_bytes();
            match (from..b.len().saturating_sub(1))
                .find(|&i| b[i].is_ascii_digit() && b[i + 1].is_ascii_digit())
            {
                Some(i) => format!("{}{}", &text[..i], &text[i + 1..]),
                None => text.to_string(),
            }
        }
        Op::InDefine(at, s) => {
            let from = boundary(text, (at * text.len() as f64) as usize);
            let line = text[from..].find("#define").map(|k| from + k);
            match line {
                Some(i) => {
                    let end = text[i..].find('\n').map_or(text.len(), |k| i + k);
                    format!("{}{}{}", &text[..end], IN_DEFINE[s], &text[end..])
                }
                None => text.to_string(),
            }
        }
        Op::MacroName(name_at, at) => {
            let from = boundary(text, (name_at * text.len() as f64) as usize);
            let define = text[from..]
                .find("#define ")
                .map(|k| from + k)
                .or_else(|| text.find("#define "));
            let name = match define {
                Some(i) => {
                    let rest = &text[i + "#define ".len()..];
                    let end = rest
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len());
                    &rest[..end]
                }
                None => "__LINE__",
            };
            let from = boundary(text, (at * text.len() as f64) as usize);
            match text[from..].find(|c: char| c.is_ascii_digit()) {
                Some(k) => format!("{}{name} + {}", &text[..from + k], &text[from + k..]),
                None => text.to_string(),
            }
        }
        Op::InCall(at) => {
            let from = boundary(text, (at * text.len() as f64) as usize);
            let b = text.as_bytes();
            match (from.max(1)..b.len()).find(|&i| b[i] == b'(' && b[i - 1].is_ascii_uppercase()) {
                Some(i) => format!("{}1 + {}", &text[..i + 1], &text[i + 1..]),
                None => text.to_string(),
            }
        }
        Op::Undo => text.to_string(),
    }
}

/// The first character of `range` at or after the fraction `at` of the
/// text, replaced by the next one of the range (the last by the first).
fn next_char(text: &str, at: f64, range: std::ops::RangeInclusive<char>) -> String {
    let from = boundary(text, (at * text.len() as f64) as usize);
    let Some(k) = text[from..].find(|c| range.contains(&c)) else {
        return text.to_string();
    };
    let i = from + k;
    let c = text[i..].chars().next().unwrap_or(*range.start());
    let next = if c == *range.end() {
        *range.start()
    } else {
        char::from(c as u8 + 1)
    };
    format!("{}{next}{}", &text[..i], &text[i + 1..])
}

/// The first `from` at or after the fraction `at` of the text, as `to`.
fn replace_first(text: &str, at: f64, from: char, to: char) -> String {
    let start = boundary(text, (at * text.len() as f64) as usize);
    match text[start..].find(from) {
        Some(k) => {
            let i = start + k;
            format!("{}{to}{}", &text[..i], &text[i + 1..])
        }
        None => text.to_string(),
    }
}

fn settings() -> Settings {
    Settings {
        target: "avx2-i32x8".into(),
        width: 8,
        ..Settings::default()
    }
}

/// Word starts: where an editor asks for hovers.
fn word_starts(text: &str) -> Vec<u32> {
    let b = text.as_bytes();
    (0..b.len())
        .filter(|&i| {
            let w = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
            w(b[i]) && (i == 0 || !w(b[i - 1]))
        })
        .map(|i| i as u32)
        .collect()
}

/// What the editor asks after an edit (fills the caches the next edit
/// reuses).
fn answer(db: &LanesDatabase, f: File, text: &str) {
    let all = TextRange::new(0, text.len() as u32);
    let _ = diagnostics(db, f);
    let _ = inlay_hints(db, f, all);
    let _ = code_lens(db, f);
    for at in word_starts(text).into_iter().step_by(7) {
        let _ = hover(db, f, at);
    }
}

/// The editor's diagnostics reusing the last renderings equal those
/// computed afresh, rendered with their lines and columns (what the
/// language server publishes).
fn same_reused_diagnostics(db: &LanesDatabase, f: File, reuse: &mut Reuse<Rendered>) {
    let li = lanes_db::line_index(db, f).clone();
    let mut render = |d: &Diag| -> Rendered {
        let at = |r: TextRange| (li.position(r.start), li.position(r.end));
        let related = d.related.iter().map(|r| at(r.location.range)).collect();
        (d.clone(), at(d.range), related)
    };
    let reused = diagnostics_reusing(db, f, "ctx", reuse, &mut render, &mut moved);
    let fresh: Vec<Rendered> = diagnostics(db, f).iter().map(&mut render).collect();
    assert_eq!(reused, fresh, "diagnostics reusing the last renderings");
}

/// A rendering moved by an edit before it: the offsets of its places and
/// the lines after the edit.
fn moved(r: &Rendered, s: &Shift) -> Rendered {
    let (d, range, related) = r;
    let mut d = d.clone();
    d.range = s.range(d.range);
    for r in &mut d.related {
        r.location.range = s.range(r.location.range);
    }
    let at = |((a, b), (c, e)): Positions| ((s.line(a), b), (s.line(c), e));
    (d, at(*range), related.iter().map(|&p| at(p)).collect())
}

/// A diagnostic with the line and column of its range and related places.
type Rendered = (Diag, Positions, Vec<Positions>);
type Positions = ((u32, u32), (u32, u32));

fn same_answers(edited: &LanesDatabase, fe: File, fresh: &LanesDatabase, ff: File, text: &str) {
    assert_eq!(
        diagnostics(edited, fe),
        diagnostics(fresh, ff),
        "diagnostics"
    );
    if lanes_db::parse(fresh, ff).unit.has_errors() {
        return;
    }
    let all = TextRange::new(0, text.len() as u32);
    assert_eq!(
        inlay_hints(edited, fe, all),
        inlay_hints(fresh, ff, all),
        "hints"
    );
    assert_eq!(
        semantic_tokens(edited, fe),
        semantic_tokens(fresh, ff),
        "tokens"
    );
    assert_eq!(
        document_symbols(edited, fe),
        document_symbols(fresh, ff),
        "symbols"
    );
    assert_eq!(code_lens(edited, fe), code_lens(fresh, ff), "lens");
    for at in word_starts(text) {
        assert_eq!(hover(edited, fe, at), hover(fresh, ff, at), "hover at {at}");
    }
}

fn run(file: &str, ops: &[Op]) {
    let path = repo(file);
    let original = std::fs::read_to_string(&path).expect("corpus file");
    let mut db = LanesDatabase::new(settings());
    let mut text = original.clone();
    let f = db.set_file(&path, &text, 1);
    answer(&db, f, &text);
    let mut reuse = Reuse::default();
    same_reused_diagnostics(&db, f, &mut reuse);
    let mut history = vec![text.clone()];
    for (v, op) in ops.iter().enumerate() {
        text = match op {
            Op::Undo if history.len() > 1 => {
                history.pop();
                history.last().cloned().unwrap_or_default()
            }
            _ => {
                let t = apply(&text, op);
                history.push(t.clone());
                t
            }
        };
        db.set_file(&path, &text, v as i32 + 2);
        answer(&db, f, &text);
        same_reused_diagnostics(&db, f, &mut reuse);
    }
    let mut fresh = LanesDatabase::new(settings());
    let ff = fresh.set_file(&path, &text, 1);
    same_answers(&db, f, &fresh, ff, &text);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn edited_answers_equal_fresh_answers(
        file in 0..FILES.len(),
        ops in proptest::collection::vec(op(), 1..10),
    ) {
        run(FILES[file], &ops);
    }
}

/// Typing and deleting characters in every file (the text after the edit
/// moves: later kernels' renderings are moved, not made again), also in
/// macro definitions.
#[test]
fn every_file_after_typed_and_deleted_characters() {
    for file in FILES {
        run(
            file,
            &[
                Op::Type(0.2),
                Op::Type(0.5),
                Op::Erase(0.5),
                Op::Break(0.4),
                Op::InDefine(0.0, 0),
                Op::InDefine(0.0, 2),
                Op::Undo,
                Op::Erase(0.1),
            ],
        );
    }
}

/// Typing in every file where only the edited lines are preprocessed again
/// and where they are not: digits typed and deleted, a macro's name typed
/// (then deleted), text typed inside a macro invocation's arguments, a
/// line broken after and before `__LINE__`.
#[test]
fn every_file_after_typing_around_macros() {
    for file in FILES {
        run(
            file,
            &[
                Op::Type(0.6),
                Op::MacroName(0.0, 0.5),
                Op::Type(0.3),
                Op::Undo,
                Op::Erase(0.6),
                Op::InCall(0.2),
                Op::Break(0.9),
                Op::Type(0.1),
                Op::MacroName(1.05, 0.8),
                Op::Break(0.1),
            ],
        );
    }
}

/// Every file, with a comment between items and a statement inside a body
/// (the edits the per-item reuse is for), then both undone.
#[test]
fn every_file_after_trivia_and_body_edits() {
    for file in FILES {
        run(
            file,
            &[
                Op::Insert(0.5, 3),
                Op::Insert(0.3, 6),
                Op::Insert(0.7, 1),
                Op::Undo,
                Op::Undo,
            ],
        );
    }
}

/// Every kernel file of tests/kernels and examples, after typing inside
/// literals and names (the edits that parse one function again) and an
/// undo: every answer equals a fresh database's on the final text.
#[test]
fn every_corpus_file_after_digit_and_name_edits() {
    let mut files = Vec::new();
    for dir in ["tests/kernels", "examples"] {
        collect(&repo(dir), &mut files);
    }
    files.sort();
    assert!(files.len() > 100, "{} corpus files", files.len());
    for path in &files {
        let rel = path.strip_prefix(repo("")).unwrap_or(path);
        run(
            &rel.to_string_lossy(),
            &[
                Op::Digit(0.4),
                Op::Digit(0.6),
                Op::Letter(0.5),
                Op::Undo,
                Op::Digit(0.8),
                Op::Type(0.3),
            ],
        );
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("corpus directory").flatten() {
        let p = entry.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "cl") && std::fs::read_to_string(&p).is_ok() {
            // (An editor's text is UTF-8; the Latin-1 files are for `lanes check`.)
            out.push(p);
        }
    }
}
