//! The front end never panics and never overflows its stack, whatever the
//! input: single-character edits of every corpus file (the editor's life),
//! pathological nesting, and runaway macros.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::Command;

use lanes_frontend::diag::Code;
use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::{check_text, CheckedUnit};
use proptest::prelude::*;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn corpus() -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    for dir in ["tests/kernels/valid", "tests/kernels/invalid", "examples"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "cl") {
                let text = lanes_frontend::source::read_source(&p).unwrap().text;
                files.push((p, text));
            }
        }
    }
    files.sort();
    files
}

fn check(path: &Path, text: &str) -> CheckedUnit {
    let opts = PreprocessOptions {
        width: 8,
        ..Default::default()
    };
    check_text(
        &path.display().to_string(),
        Some(path.to_path_buf()),
        text,
        &opts,
        &RealFs,
    )
}

fn survives(path: &Path, text: &str) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| {
        check(path, text);
    }))
    .map_err(|e| {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
        msg.unwrap_or_else(|| "panic".into())
    })
}

/// The byte offsets of `text`'s characters at which an edit is tried: every
/// character except those inside a run of one class (identifier characters,
/// or spaces), where an edit at one position is the same case for the lexer
/// and the parser as at the next (a shorter or split identifier, a narrower
/// indent); of those every `RUN_STRIDE`th is kept. This halves the edits
/// (and the suite's longest test) and keeps every boundary between tokens.
fn edit_positions(text: &str) -> Vec<usize> {
    const RUN_STRIDE: usize = 8;
    fn class(c: char) -> u8 {
        match c {
            c if c.is_ascii_alphanumeric() || c == '_' => 1,
            ' ' => 2,
            _ => 0,
        }
    }
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut kept = Vec::new();
    let mut run = 0;
    for (k, &(i, c)) in chars.iter().enumerate() {
        let cls = class(c);
        let interior = cls != 0
            && k > 0
            && k + 1 < chars.len()
            && class(chars[k - 1].1) == cls
            && class(chars[k + 1].1) == cls;
        if interior {
            run += 1;
            if run % RUN_STRIDE != 0 {
                continue;
            }
        } else {
            run = 0;
        }
        kept.push(i);
    }
    kept
}

#[test]
fn edit_positions_keep_token_boundaries() {
    let text = "int  value_of_x = a(b);";
    let kept: Vec<char> = edit_positions(text)
        .into_iter()
        .map(|i| text[i..].chars().next().unwrap())
        .collect();
    // Every character at a token boundary; of the interior of `value_of_x`, the 8th.
    assert_eq!(kept.iter().collect::<String>(), "it  v_x = a(b);");
}

/// Deleting any one character at the positions of `edit_positions` in any
/// corpus file never panics.
#[test]
fn deleting_any_character_never_panics() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for (path, text) in corpus() {
        for i in edit_positions(&text) {
            let c = text[i..].chars().next().unwrap();
            let mut edited = text.clone();
            edited.replace_range(i..i + c.len_utf8(), "");
            runs += 1;
            if let Err(e) = survives(&path, &edited) {
                failures.push(format!(
                    "{} without the character at byte {i}: {e}",
                    path.display()
                ));
            }
        }
    }
    assert!(runs > 10_000, "{runs} edits");
    assert!(
        failures.is_empty(),
        "{} panics, first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

/// Inserting a character that matters to the syntax at the positions of
/// `edit_positions` of every corpus file never panics. The characters rotate with the position
/// so that every (position, character) class is covered across the corpus.
#[test]
fn inserting_syntax_characters_never_panics() {
    const INSERT: &[&str] = &[
        "(", ")", "{", "}", "[", "]", "\"", "'", "/", "*", "#", ";", "\\", "\n", ",", ".", "<",
        "a", "0", "é",
    ];
    let mut failures = Vec::new();
    for (path, text) in corpus() {
        let positions: Vec<usize> = edit_positions(&text)
            .into_iter()
            .chain(std::iter::once(text.len()))
            .collect();
        for (k, &i) in positions.iter().enumerate() {
            for j in 0..2 {
                let ins = INSERT[(k * 2 + j) % INSERT.len()];
                let mut edited = text.clone();
                edited.insert_str(i, ins);
                if let Err(e) = survives(&path, &edited) {
                    failures.push(format!(
                        "{} with {ins:?} inserted at byte {i}: {e}",
                        path.display()
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} panics, first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]
    /// Any single character inserted anywhere in any corpus file.
    #[test]
    fn inserting_any_character_never_panics(file in any::<prop::sample::Index>(), pos in any::<prop::sample::Index>(), c in any::<char>()) {
        let files = corpus_cached();
        let (path, text) = &files[file.index(files.len())];
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).chain(std::iter::once(text.len())).collect();
        let i = boundaries[pos.index(boundaries.len())];
        let mut edited = text.clone();
        edited.insert(i, c);
        prop_assert!(survives(path, &edited).is_ok(), "{} with {:?} inserted at byte {}", path.display(), c, i);
    }
}

fn corpus_cached() -> &'static [(PathBuf, String)] {
    static CORPUS: std::sync::OnceLock<Vec<(PathBuf, String)>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(corpus)
}

fn has_code(u: &CheckedUnit, code: Code) -> bool {
    u.diagnostics.iter().any(|d| d.code == code)
}

/// Pathological nesting gives an error, not a stack overflow, on an ordinary
/// 2 MiB test thread (the command line has a bigger stack on top of that).
#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let p = Path::new("deep.cl");
    let n = 10_000;
    let parens = format!(
        "__kernel void k(__global int *a) {{ a[0] = {}1{}; }}",
        "(".repeat(n),
        ")".repeat(n)
    );
    let blocks = format!(
        "__kernel void k(__global int *a) {{ {} a[0] = 1; {} }}",
        "{".repeat(n),
        "}".repeat(n)
    );
    let ifs = format!(
        "__kernel void k(__global int *a) {{ {} a[0] = 1; }}",
        "if (a[1]) ".repeat(n)
    );
    let unary = format!(
        "__kernel void k(__global int *a) {{ a[0] = {}1; }}",
        "-".repeat(n)
    );
    let chain = format!(
        "__kernel void k(__global int *a) {{ a[0] = 1{}; }}",
        "+a[1]".repeat(100_000)
    );
    let index = format!(
        "__kernel void k(__global int *a) {{ a[0] = {}0{}; }}",
        "a[".repeat(n),
        "]".repeat(n)
    );
    let conds = format!("{}\nint x;\n{}", "#if 1\n".repeat(n), "#endif\n".repeat(n));
    for (name, src) in [
        ("parens", parens),
        ("blocks", blocks),
        ("ifs", ifs),
        ("unary", unary),
        ("chain", chain),
        ("index", index),
        ("conds", conds),
    ] {
        let u = check(p, &src);
        if name != "conds" {
            assert!(
                has_code(&u, Code::TooDeep),
                "{name}: no L0022 in {:?}",
                u.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>()
            );
        }
    }
}

#[test]
fn runaway_macros_and_self_inclusion_stop() {
    let p = Path::new("macros.cl");
    // Each level doubles the expansion: 2^40 tokens if nothing stopped it.
    let mut src = String::from("#define M0 x x\n");
    for i in 1..40 {
        src.push_str(&format!("#define M{i} M{} M{}\n", i - 1, i - 1));
    }
    src.push_str("M39\n");
    let u = check(p, &src);
    assert!(has_code(&u, Code::TooDeep), "{:?}", u.diagnostics);

    let dir = std::env::temp_dir().join(format!("lanes-selfinc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("self.cl");
    std::fs::write(&f, "#include \"self.cl\"\n").unwrap();
    let u = check(&f, &lanes_frontend::source::read_source(&f).unwrap().text);
    assert!(has_code(&u, Code::TooDeep), "{:?}", u.diagnostics);
    std::fs::remove_dir_all(&dir).ok();
}

/// The real binary on a deeply nested file: an error and exit status 1.
#[test]
fn lanes_check_on_ten_thousand_parentheses() {
    let dir = std::env::temp_dir().join(format!("lanes-deep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("deep.cl");
    std::fs::write(
        &f,
        format!(
            "__kernel void k(__global int *a) {{ a[0] = {}1{}; }}\n",
            "(".repeat(10_000),
            ")".repeat(10_000)
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lanes"))
        .args(["check", "--format", "json"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "L0022"),
        "{v}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
