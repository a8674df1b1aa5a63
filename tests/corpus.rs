//! The kernel corpus, checked the way a user runs lanes: the real `lanes`
//! binary on every file of tests/kernels and examples/.
//!
//! Expectations are comments at the end of a line:
//! `//~ error[L0003]` — a diagnostic with this severity and code starts on
//! this line; `//~^ error[L0003]` — on the previous line (`//~^^`: two up).
//! Every expectation must be met, and every error or warning must be expected.
//!
//! Facts about SIMD execution are checked against `lanes explain --format
//! json` (only where annotated):
//! `//~ shape: contiguous` — every variable declared on this line has this
//! shape (`//~ shape: x=contiguous, n=uniform` names them);
//! `//~ loop: divergent` / `uniform` — the loop whose statement starts on this line;
//! `//~ branch: divergent` / `uniform` — the `if`/`switch`/`?:`/`&&` here;
//! `//~ access: input[i]=gather, out[i]=store:contiguous` — the accesses with
//! this source text on this line (`load:`/`store:` picks one of the two when
//! the same text is both, `atomic:` picks the atomic; `strided(8)` also
//! checks the stride in bytes);
//! `//~ barrier: uniform` / `divergent` — the barrier or work-group
//! collective here is (not) reached by every work-item of the work-group.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `a, f(b, c)=x` -> [`a`, `f(b, c)=x`]: commas inside parentheses or
/// brackets belong to the access text (`vload4(i, p)`).
fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The binary under test, with the findings cache off: every process infers
/// (and none writes to the user's cache).
fn lanes() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_lanes"));
    c.env("LANES_CACHE", "off");
    c
}

fn cl_files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "cl"))
        .collect();
    v.sort();
    v
}

/// The work-group corpus: its valid kernels and the seeded races (which no
/// static check reports; the interpreter finds them, tests/kernels/workgroup/
/// test_run_specs.py).
fn work_group_corpus() -> Vec<PathBuf> {
    let mut files = cl_files("tests/kernels/workgroup");
    assert!(
        files.len() >= 40,
        "the work-group corpus has {} files, want at least 40",
        files.len()
    );
    files.extend(cl_files("tests/kernels/workgroup/races"));
    files
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Expected {
    line: u32,
    severity: String,
    code: String,
}

/// Parses the `//~` expectations of a file.
fn expectations(path: &Path) -> Result<Vec<Expected>, String> {
    let text = lanes_frontend::source::read_source(path)
        .map_err(|e| e.to_string())?
        .text;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(pos) = line.find("//~") else {
            continue;
        };
        // Several groups may follow each other: `//~ warning[L0202] //~ shape: varying`.
        for group in line[pos + 3..].split("//~") {
            let mut rest = group;
            let mut target = i as i64 + 1;
            while let Some(r) = rest.strip_prefix('^') {
                target -= 1;
                rest = r;
            }
            // `shape:`, `loop:`, `branch:`, `access:` are facts checked
            // against `lanes explain` (see `facts` below).
            if fact_expectation(rest).is_some() {
                continue;
            }
            for item in rest.split_whitespace() {
                let (sev, code) = item
                    .strip_suffix(']')
                    .and_then(|s| s.split_once('['))
                    .ok_or_else(|| {
                        format!(
                            "{}:{}: malformed expectation `{item}`",
                            path.display(),
                            i + 1
                        )
                    })?;
                if sev != "error" && sev != "warning" {
                    return Err(format!(
                        "{}:{}: unknown expectation kind `{sev}`",
                        path.display(),
                        i + 1
                    ));
                }
                out.push(Expected {
                    line: target as u32,
                    severity: sev.into(),
                    code: code.into(),
                });
            }
        }
    }
    Ok(out)
}

/// Runs `lanes check --format json` on one file; returns its error and
/// warning diagnostics located in that file, plus any reported elsewhere.
fn diagnostics(path: &Path) -> (Vec<Expected>, Vec<String>) {
    let out = lanes()
        .args(["check", "--format", "json", "--target", "avx2-i32x8"])
        .arg(path)
        .output()
        .expect("run lanes");
    let code = out.status.code();
    assert!(
        matches!(code, Some(0) | Some(1)),
        "{}: lanes exited with {:?}\n{}",
        path.display(),
        code,
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: invalid JSON ({e}): {}",
            path.display(),
            String::from_utf8_lossy(&out.stdout)
        )
    });
    let errors = report["summary"]["errors"].as_u64().unwrap();
    assert_eq!(
        code == Some(1),
        errors > 0,
        "{}: exit status must be 1 exactly when there are errors",
        path.display()
    );
    let mut found = Vec::new();
    let mut elsewhere = Vec::new();
    for d in report["diagnostics"].as_array().unwrap() {
        let sev = d["severity"].as_str().unwrap();
        if sev != "error" && sev != "warning" {
            continue;
        }
        let e = Expected {
            line: d["line"].as_u64().unwrap() as u32,
            severity: sev.into(),
            code: d["code"].as_str().unwrap().into(),
        };
        if Path::new(d["file"].as_str().unwrap()) == path {
            found.push(e);
        } else {
            elsewhere.push(format!(
                "{}:{}: {}[{}] {}",
                d["file"], e.line, e.severity, e.code, d["message"]
            ));
        }
    }
    (found, elsewhere)
}

fn check_expectations(files: &[PathBuf]) -> Vec<String> {
    let mut failures = Vec::new();
    for path in files {
        let want = match expectations(path) {
            Ok(w) => w,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let (got, elsewhere) = diagnostics(path);
        for e in elsewhere {
            failures.push(format!(
                "{}: diagnostic in another file: {e}",
                path.display()
            ));
        }
        let mut unmatched: BTreeMap<Expected, usize> = BTreeMap::new();
        for g in &got {
            *unmatched.entry(g.clone()).or_default() += 1;
        }
        for w in &want {
            match unmatched.get_mut(w) {
                Some(n) if *n > 0 => *n -= 1,
                _ => failures.push(format!(
                    "{}:{}: expected {}[{}], not reported",
                    path.display(),
                    w.line,
                    w.severity,
                    w.code
                )),
            }
        }
        for (g, n) in unmatched {
            // Several identical diagnostics on one line need only one expectation.
            if n > 0 && !want.contains(&g) {
                failures.push(format!(
                    "{}:{}: unexpected {}[{}]",
                    path.display(),
                    g.line,
                    g.severity,
                    g.code
                ));
            }
        }
    }
    failures
}

#[test]
fn valid_kernels_and_examples_report_exactly_what_they_expect() {
    let mut files = cl_files("tests/kernels/valid");
    assert!(
        files.len() >= 40,
        "the valid corpus has {} files, want at least 40",
        files.len()
    );
    files.extend(cl_files("tests/kernels/divergence"));
    files.extend(work_group_corpus());
    files.extend(cl_files("examples"));
    let failures = check_expectations(&files);
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn invalid_snippets_report_exactly_what_they_expect() {
    let mut files = cl_files("tests/kernels/invalid");
    assert!(
        files.len() >= 40,
        "the invalid corpus has {} files, want at least 40",
        files.len()
    );
    files.extend(cl_files("tests/kernels/workgroup/invalid"));
    for f in &files {
        assert!(
            !expectations(f).unwrap().is_empty(),
            "{}: an invalid snippet without expectations",
            f.display()
        );
    }
    let failures = check_expectations(&files);
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_error_code_is_exercised_by_the_corpus() {
    use lanes_frontend::diag::{Code, Severity};
    let mut seen = std::collections::BTreeSet::new();
    let mut files = cl_files("tests/kernels/invalid");
    // The work-group errors (L0401) have their snippets next to the
    // work-group corpus.
    files.extend(cl_files("tests/kernels/workgroup/invalid"));
    for f in files {
        for e in expectations(&f).unwrap() {
            seen.insert(e.code);
        }
    }
    // Code-generation errors only `lanes build` reports (tests/cli/build.rs
    // and the codegen tests cover them): `check` analyses these kernels.
    let build_only = [Code::UnsupportedImages, Code::UnsupportedPrintf];
    let missing: Vec<&str> = Code::ALL
        .iter()
        .filter(|c| c.default_severity() == Severity::Error && !seen.contains(c.as_str()))
        .filter(|c| !build_only.contains(c))
        .map(|c| c.as_str())
        .collect();
    assert!(
        missing.is_empty(),
        "error codes without an invalid snippet: {missing:?}"
    );
}

#[test]
fn check_of_the_whole_valid_corpus_succeeds_in_one_run() {
    // Files with a kernel the vectorizer cannot lower yet (`//~ error[L0920]`,
    // struct kernel arguments) are checked by the exact-expectation test.
    let files: Vec<PathBuf> = cl_files("tests/kernels/valid")
        .into_iter()
        .filter(|f| {
            !lanes_frontend::source::read_source(f)
                .unwrap()
                .text
                .contains("error[L0920]")
        })
        .collect();
    let out = lanes().arg("check").args(files).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains(": 0 errors, "), "{stderr}");
}

/// Every valid kernel is also valid OpenCL C for clang, so users can run the
/// same file on any OpenCL runtime.
#[test]
fn valid_kernels_pass_clang() {
    let clang = "clang-19";
    if Command::new(clang).arg("--version").output().is_err() {
        if std::env::var_os("CI").is_some() {
            panic!("{clang} is missing on CI; scripts/setup.sh installs it");
        }
        eprintln!(
            "SKIPPED valid_kernels_pass_clang: {clang} is not installed (run scripts/setup.sh)"
        );
        return;
    }
    let mut files = cl_files("tests/kernels/valid");
    files.extend(cl_files("tests/kernels/divergence"));
    files.extend(cl_files("examples"));
    let mut failures = Vec::new();
    for f in &files {
        let out = Command::new(clang)
            .args([
                "-x",
                "cl",
                "-cl-std=CL2.0",
                "-Xclang",
                "-finclude-default-header",
                "-fsyntax-only",
            ])
            .arg(f)
            .output()
            .unwrap();
        if !out.status.success() {
            failures.push(format!(
                "{}:\n{}",
                f.display(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn human_output_is_rustc_style() {
    let dir = std::env::temp_dir().join(format!("lanes-human-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("k.cl");
    std::fs::write(
        &f,
        "__kernel void k(__global float *out, int width) {\n  out[0] = wdth;\n}\n",
    )
    .unwrap();
    let out = lanes()
        .args(["check", "--color", "never"])
        .arg(&f)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr.contains("error[L0003]: "), "{stderr}");
    assert!(
        stderr.contains(&format!("--> {}:2:12", f.display())),
        "{stderr}"
    );
    assert!(stderr.contains("2 |   out[0] = wdth;"), "{stderr}");
    assert!(stderr.contains("^^^^"), "{stderr}");
    assert!(stderr.contains("`width`"), "a did-you-mean note: {stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn defines_and_include_dirs_from_the_command_line() {
    let dir = std::env::temp_dir().join(format!("lanes-defs-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("inc")).unwrap();
    std::fs::write(dir.join("inc/scale.h"), "#define SCALE 2.0f\n").unwrap();
    let f = dir.join("k.cl");
    std::fs::write(
        &f,
        "#include \"scale.h\"\n#ifndef N\n#error N must be defined\n#endif\n\
         __kernel void k(__global float *a) { a[get_global_id(0) % N] *= SCALE; }\n",
    )
    .unwrap();
    let without = lanes().arg("check").arg(&f).output().unwrap();
    assert_eq!(without.status.code(), Some(1));
    let with = lanes()
        .args(["check", "-D", "N=16", "-I"])
        .arg(dir.join("inc"))
        .arg(&f)
        .output()
        .unwrap();
    assert!(
        with.status.success(),
        "{}",
        String::from_utf8_lossy(&with.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unknown_target_and_missing_file_are_reported() {
    let out = lanes()
        .args(["check", "--target", "avx3-i32x8", "x.cl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown target `avx3-i32x8`"));
    let out = lanes()
        .args(["check", "/nonexistent/k.cl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read `/nonexistent/k.cl`"));
}

/// docs/diagnostics.md has one entry per code, and no entry for a code that
/// does not exist.
#[test]
fn diagnostics_catalogue_matches_the_codes() {
    use lanes_frontend::diag::Code;
    let doc = std::fs::read_to_string(root().join("docs/diagnostics.md")).unwrap();
    let documented: Vec<&str> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .map(str::trim)
        .collect();
    for c in Code::ALL {
        assert!(
            documented.contains(&c.as_str()),
            "docs/diagnostics.md lacks an entry `### {}`",
            c.as_str()
        );
    }
    for d in &documented {
        assert!(
            Code::from_str(d).is_some(),
            "docs/diagnostics.md documents `{d}`, which is not a code"
        );
    }
}

/// A fact expectation: `(kind, body)` for `kind: body`.
fn fact_expectation(group: &str) -> Option<(&str, &str)> {
    let (kind, body) = group.trim().split_once(':')?;
    matches!(kind, "shape" | "loop" | "branch" | "access" | "barrier")
        .then_some((kind, body.trim()))
}

struct Fact {
    line: u32,
    kind: String,
    body: String,
}

fn fact_expectations(path: &Path) -> Vec<Fact> {
    let text = lanes_frontend::source::read_source(path).unwrap().text;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(pos) = line.find("//~") else {
            continue;
        };
        for group in line[pos + 3..].split("//~") {
            let mut rest = group;
            let mut target = i as i64 + 1;
            while let Some(r) = rest.strip_prefix('^') {
                target -= 1;
                rest = r;
            }
            if let Some((kind, body)) = fact_expectation(rest) {
                out.push(Fact {
                    line: target as u32,
                    kind: kind.into(),
                    body: body.into(),
                });
            }
        }
    }
    out
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect()
}

/// Checks one file's fact expectations against `lanes explain --format json`.
fn check_facts(path: &Path, target: &str) -> Vec<String> {
    let want = fact_expectations(path);
    if want.is_empty() {
        return Vec::new();
    }
    let out = lanes()
        .args(["explain", "--format", "json", "--target", target])
        .arg(path)
        .output()
        .expect("run lanes");
    let where_ = |l: u32| format!("{}:{l}", path.display());
    if !out.status.success() {
        return vec![format!(
            "{}: lanes explain failed: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        )];
    }
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let kernels = report["kernels"].as_array().unwrap();
    let all = |key: &str| -> Vec<&serde_json::Value> {
        kernels
            .iter()
            .flat_map(|k| k[key].as_array().unwrap().iter())
            .collect()
    };
    let (values, loops, branches, accesses, barriers) = (
        all("values"),
        all("loops"),
        all("branches"),
        all("accesses"),
        all("barriers"),
    );
    let on = |v: &&serde_json::Value, line: u32| v["line"].as_u64() == Some(line as u64);
    let mut failures = Vec::new();
    for f in &want {
        match f.kind.as_str() {
            "shape" => {
                for item in f.body.split(',').map(str::trim) {
                    let (name, shape) = match item.split_once('=') {
                        Some((n, s)) => (Some(n.trim()), s.trim()),
                        None => (None, item),
                    };
                    let here: Vec<_> = values
                        .iter()
                        .filter(|v| on(v, f.line))
                        .filter(|v| name.is_none_or(|n| v["name"] == n))
                        .collect();
                    if here.is_empty() {
                        failures.push(format!(
                            "{}: expected shape {shape} of {}, but no such variable is declared there",
                            where_(f.line),
                            name.unwrap_or("a variable")
                        ));
                    }
                    for v in here {
                        if v["shape"] != shape {
                            failures.push(format!(
                                "{}: `{}` is {}, expected {shape}",
                                where_(f.line),
                                v["name"].as_str().unwrap_or("?"),
                                v["shape"]
                            ));
                        }
                    }
                }
            }
            "loop" | "branch" => {
                let divergent = match f.body.as_str() {
                    "divergent" => true,
                    "uniform" => false,
                    other => {
                        failures.push(format!(
                            "{}: unknown {} kind `{other}`",
                            where_(f.line),
                            f.kind
                        ));
                        continue;
                    }
                };
                let list = if f.kind == "loop" { &loops } else { &branches };
                let here: Vec<_> = list
                    .iter()
                    .filter(|v| on(v, f.line))
                    .filter(|v| f.kind == "loop" || v["loop_exit"] == false)
                    .collect();
                if here.is_empty() {
                    failures.push(format!(
                        "{}: expected a {} here, found none",
                        where_(f.line),
                        f.kind
                    ));
                }
                for v in here {
                    if v["divergent"] != divergent {
                        failures.push(format!(
                            "{}: {} is {}, expected {}",
                            where_(f.line),
                            f.kind,
                            if divergent { "uniform" } else { "divergent" },
                            f.body
                        ));
                    }
                }
            }
            "access" => {
                for item in split_top_level(&f.body) {
                    let Some((text, pat)) = item.rsplit_once('=') else {
                        failures.push(format!(
                            "{}: malformed access expectation `{item}`",
                            where_(f.line)
                        ));
                        continue;
                    };
                    let (kind, pat) = match pat.split_once(':') {
                        Some((k, p)) => (Some(k.trim()), p.trim()),
                        None => (None, pat.trim()),
                    };
                    let (pattern, stride) =
                        match pat.strip_suffix(')').and_then(|p| p.split_once('(')) {
                            Some((p, s)) => (p, s.parse::<i64>().ok()),
                            None => (pat, None),
                        };
                    let here: Vec<_> = accesses
                        .iter()
                        .filter(|a| on(a, f.line))
                        .filter(|a| squash(a["text"].as_str().unwrap_or("")) == squash(text))
                        .filter(|a| kind.is_none_or(|k| a["kind"] == k))
                        .collect();
                    if here.is_empty() {
                        failures.push(format!(
                            "{}: expected an access `{text}`, found none",
                            where_(f.line)
                        ));
                    }
                    for a in here {
                        if a["pattern"] != pattern
                            || stride.is_some_and(|s| a["stride_bytes"].as_i64() != Some(s))
                        {
                            failures.push(format!(
                                "{}: {} `{text}` is {} (stride {}), expected {pat}",
                                where_(f.line),
                                a["kind"].as_str().unwrap_or("?"),
                                a["pattern"],
                                a["stride_bytes"]
                            ));
                        }
                    }
                }
            }
            "barrier" => {
                let uniform = match f.body.as_str() {
                    "uniform" => true,
                    "divergent" => false,
                    other => {
                        failures.push(format!(
                            "{}: unknown barrier kind `{other}`",
                            where_(f.line)
                        ));
                        continue;
                    }
                };
                let here: Vec<_> = barriers.iter().filter(|b| on(b, f.line)).collect();
                if here.is_empty() {
                    failures.push(format!(
                        "{}: expected a barrier here, found none",
                        where_(f.line)
                    ));
                }
                for b in here {
                    if b["uniform"] != uniform {
                        failures.push(format!(
                            "{}: barrier is {}, expected {}",
                            where_(f.line),
                            if uniform { "divergent" } else { "uniform" },
                            f.body
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    failures
}

#[test]
fn corpus_shapes_loops_branches_and_accesses_match_their_expectations() {
    let mut files = cl_files("tests/kernels/valid");
    files.extend(cl_files("tests/kernels/divergence"));
    files.extend(work_group_corpus());
    files.extend(cl_files("examples"));
    let mut failures = Vec::new();
    let mut annotated = 0;
    for f in &files {
        if !fact_expectations(f).is_empty() {
            annotated += 1;
        }
        failures.extend(check_facts(f, "avx2-i32x8"));
    }
    assert!(
        annotated >= 40,
        "only {annotated} corpus files carry shape/loop/access expectations"
    );
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
