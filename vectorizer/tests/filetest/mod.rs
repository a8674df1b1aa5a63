//! The file-test format (after Cranelift's filetests), shared by
//! `vectorizer/tests/filetests.rs` and `codegen/tests/filetests.rs` (which
//! includes this file by path: test-only code has no crate to live in).
//!
//! A test file is an input (OpenCL C in a `.cl` file, printed IR in a
//! `.vir` file) with comment lines (`;` in IR, `//` in C) that say what to
//! run and what to expect:
//!
//! ```text
//! ; test: vectorize            passes to run, in order (required)
//! ; width: 8                   SIMD width of the analyses (default 8)
//! ; target: avx2-i32x8         back-end target (codegen tests)
//! ; opt: 0                     LLVM optimization level (codegen tests, default 2)
//! ; fma: off                   lower without contraction (default on)
//! ; check: %5 = phi i32        `filecheck` directives on the output
//! ; nextln: ...   ; not: ...   ; sameln: ...   ; unordered: ...   ; regex: V=...
//! ```
//!
//! The directive lines are blanked in the input (so line numbers of errors
//! stay the file's); a failed check is reported at its own line.
//! `FILETEST_SHOW=1` prints every output (to write the checks of a new
//! test).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lanes_frontend::preprocess::{PreprocessOptions, RealFs};
use lanes_frontend::unit::check_file;
use lanes_vectorizer::cfg::{canonicalize, Cfg};
use lanes_vectorizer::ir::parse::parse_functions;
use lanes_vectorizer::ir::print::{print, Plain};
use lanes_vectorizer::ir::Function;
use lanes_vectorizer::lower::{lower_kernel_with, Options};
use lanes_vectorizer::report::{annotated_ir, work_group_divergence, KernelAnalysis};
use lanes_vectorizer::vectorize::{self, VectorFunction};

const OPTIONS: [&str; 5] = ["test", "width", "target", "opt", "fma"];
const CHECKS: [&str; 6] = ["check", "sameln", "nextln", "unordered", "not", "regex"];

pub struct TestFile {
    pub path: PathBuf,
    /// The file with its directive lines blanked.
    pub input: String,
    pub passes: Vec<String>,
    options: BTreeMap<String, (String, u32)>,
    /// `filecheck` directives with their line numbers.
    checks: Vec<(u32, String)>,
}

impl TestFile {
    pub fn read(path: &Path) -> Result<TestFile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut input = String::new();
        let mut options = BTreeMap::new();
        let mut checks = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let no = i as u32 + 1;
            let t = line.trim_start();
            let body = t
                .strip_prefix("//")
                .or_else(|| t.strip_prefix(';'))
                .map(str::trim_start);
            let directive = body.and_then(|b| {
                let (key, value) = b.split_once(':')?;
                (OPTIONS.contains(&key) || CHECKS.contains(&key)).then_some((key, value.trim()))
            });
            match directive {
                Some((key, value)) if OPTIONS.contains(&key) => {
                    if options
                        .insert(key.to_string(), (value.to_string(), no))
                        .is_some()
                    {
                        return Err(format!("{}:{no}: `{key}:` given twice", path.display()));
                    }
                }
                Some(_) => checks.push((no, body.unwrap_or_default().to_string())),
                None => {
                    input.push_str(line);
                }
            }
            input.push('\n');
        }
        let passes: Vec<String> = match options.get("test") {
            Some((p, _)) => p.split_whitespace().map(str::to_string).collect(),
            None => {
                return Err(format!(
                    "{}:1: no `test:` line naming the passes",
                    path.display()
                ))
            }
        };
        if checks.is_empty() {
            return Err(format!("{}: no `check:` lines", path.display()));
        }
        Ok(TestFile {
            path: path.to_path_buf(),
            input,
            passes,
            options,
            checks,
        })
    }

    /// An option's value (`width`, `target`, ...), parsed.
    pub fn option<T: std::str::FromStr>(&self, key: &str, default: T) -> Result<T, String> {
        match self.options.get(key) {
            None => Ok(default),
            Some((v, line)) => v.parse().map_err(|_| {
                format!(
                    "{}:{line}: bad value `{v}` for `{key}:`",
                    self.path.display()
                )
            }),
        }
    }

    pub fn option_text(&self, key: &str) -> Option<&str> {
        self.options.get(key).map(|(v, _)| v.as_str())
    }

    /// An error of the input, with the file's name in front.
    pub fn error(&self, e: impl std::fmt::Display) -> String {
        format!("{}:{e}", self.path.display())
    }

    /// Runs the `filecheck` directives on `output`; a failure names the
    /// line of the directive that failed.
    pub fn check(&self, output: &str) -> Result<(), String> {
        let mut builder = filecheck::CheckerBuilder::new();
        for (line, d) in &self.checks {
            match builder.directive(d) {
                Ok(true) => {}
                Ok(false) => {
                    return Err(format!("{}:{line}: not a directive", self.path.display()))
                }
                Err(e) => return Err(format!("{}:{line}: {e}", self.path.display())),
            }
        }
        let checker = builder.finish();
        let (ok, explanation) = checker
            .explain(output, filecheck::NO_VARIABLES)
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        if ok {
            return Ok(());
        }
        // The explanation numbers directives from 0: `Missed #3: ...` for
        // a check not found, `Matched #4 not: ...` for a `not:` found.
        let failed = explanation.lines().find_map(|l| {
            let rest = l
                .strip_prefix("Missed #")
                .filter(|r| !r.contains(" not: "))
                .or_else(|| l.strip_prefix("Matched #").filter(|r| r.contains(" not: ")))?;
            let n: usize = rest
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()?;
            self.checks.get(n)
        });
        let at = match failed {
            Some((line, d)) => format!("{}:{line}: `{d}` failed", self.path.display()),
            None => format!("{}: the checks failed", self.path.display()),
        };
        Err(format!(
            "{at}\n--- how the checks matched the output\n{explanation}--- output\n{output}"
        ))
    }
}

/// Every `.vir` and `.cl` file under `dir`, sorted.
pub fn discover(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.expect("a directory entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "vir" || x == "cl") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// What a pass works on.
pub enum State {
    /// The input file: OpenCL C or printed IR.
    Text(String),
    Scalar(Vec<Function>),
    Vector(Vec<VectorFunction>),
    /// The last pass printed its result.
    Printed(String),
}

impl State {
    /// The output the checks see.
    pub fn output(self, t: &TestFile) -> Result<String, String> {
        Ok(match self {
            State::Printed(s) => s,
            State::Scalar(fs) => fs.iter().map(|f| print(f, &Plain)).collect(),
            State::Vector(vs) => vs
                .iter()
                .map(vectorize::print)
                .collect::<Vec<_>>()
                .join("\n"),
            State::Text(_) => return Err(t.error(" no pass ran")),
        })
    }

    /// The functions of a scalar IR input (or of the previous pass).
    pub fn scalar(self, t: &TestFile) -> Result<Vec<Function>, String> {
        match self {
            State::Scalar(fs) => Ok(fs),
            State::Text(text) => Ok(parse_functions(&text)
                .map_err(|e| t.error(e))?
                .into_iter()
                .map(|p| p.func)
                .collect()),
            _ => Err(t.error(" this pass takes scalar IR")),
        }
    }

    pub fn vector(self, t: &TestFile) -> Result<Vec<VectorFunction>, String> {
        match self {
            State::Vector(vs) => Ok(vs),
            State::Text(text) => vectorize::parse(&text).map_err(|e| t.error(e)),
            _ => Err(t.error(" this pass takes vector IR")),
        }
    }
}

/// Runs a pass of the vectorizer crate; `None` for a name it does not know.
///
/// - `lower`: OpenCL C to scalar IR (every kernel of the file);
/// - `promote`: private objects accessed at constant offsets to SSA values;
/// - `canonicalize`: canonical loops (preheaders, one latch, LCSSA);
/// - `divergence`: the shapes and divergence facts, printed as `lanes
///   explain --format ir` prints them (must be last);
/// - `vectorize`: scalar IR to vector IR;
/// - `schedule`: the vector IR followed by its work-group schedule (must be
///   last);
/// - `idle_tails`: the vector IR followed by its idle tails (which effects
///   are bounded, which regions skip their tail; must be last).
pub fn vectorizer_pass(t: &TestFile, pass: &str, state: State) -> Option<Result<State, String>> {
    let width = match t.option("width", 8u32) {
        Ok(w) => w,
        Err(e) => return Some(Err(e)),
    };
    Some(match pass {
        "lower" => lower(t),
        "promote" => state.scalar(t).map(|mut fs| {
            fs.iter_mut().for_each(|f| {
                lanes_vectorizer::promote::promote(f);
            });
            State::Scalar(fs)
        }),
        "canonicalize" => state.scalar(t).and_then(|mut fs| {
            for f in &mut fs {
                canonicalize(f).map_err(|e| t.error(format!(" {}: {e}", f.name)))?;
            }
            Ok(State::Scalar(fs))
        }),
        "divergence" => state.scalar(t).map(|fs| {
            State::Printed(
                fs.into_iter()
                    .map(|func| {
                        let cfg = Cfg::compute(&func);
                        let div = lanes_vectorizer::divergence::analyze(&func, &cfg, width);
                        let wg = work_group_divergence(&func, &cfg, &div, None);
                        annotated_ir(&KernelAnalysis { func, cfg, div, wg })
                    })
                    .collect(),
            )
        }),
        "hoist" => state.scalar(t).map(|fs| {
            State::Scalar(
                fs.into_iter()
                    .map(|f| {
                        let cfg = Cfg::compute(&f);
                        let div = lanes_vectorizer::divergence::analyze(&f, &cfg, width);
                        vectorize::hoist_invariant_loads(&f, &cfg, &div).unwrap_or(f)
                    })
                    .collect(),
            )
        }),
        "vectorize" => state.scalar(t).and_then(|fs| {
            fs.iter()
                .map(|f| {
                    let cfg = Cfg::compute(f);
                    let div = lanes_vectorizer::divergence::analyze(f, &cfg, width);
                    vectorize::vectorize(f, &cfg, &div)
                        .map_err(|e| t.error(format!(" {}: {}", f.name, e.message)))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(State::Vector)
        }),
        "schedule" => state.vector(t).map(|vs| {
            State::Printed(
                vs.iter()
                    .map(|v| {
                        let schedule = lanes_vectorizer::schedule::Schedule::of(v);
                        format!("{}{}", vectorize::print(v), schedule.print(v))
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        }),
        "idle_tails" => state.vector(t).map(|vs| {
            State::Printed(
                vs.iter()
                    .map(|v| {
                        let schedule = lanes_vectorizer::schedule::Schedule::of(v);
                        let tails = lanes_vectorizer::idle_tail::IdleTails::of(v, &schedule);
                        format!("{}{}", vectorize::print(v), tails.print(v))
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            )
        }),
        _ => return None,
    })
}

fn lower(t: &TestFile) -> Result<State, String> {
    let unit = check_file(&t.path, &PreprocessOptions::default(), &RealFs)
        .map_err(|e| t.error(format!(" {e:?}")))?;
    if unit.has_errors() {
        return Err(t.error(format!(" {:?}", unit.diagnostics)));
    }
    let fma = t.option_text("fma") != Some("off");
    unit.hir
        .kernels()
        .into_iter()
        .map(|k| {
            lower_kernel_with(&unit.hir, k, &Options { fma })
                .map_err(|e| t.error(format!(" {e:?}")))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(State::Scalar)
}

/// Runs every file under `dir` with `run_pass` and fails with every file
/// that failed (each at its line).
pub fn run_all(
    dir: &Path,
    run_pass: impl Fn(&TestFile, &str, State) -> Option<Result<State, String>>,
) {
    let files = discover(dir);
    assert!(!files.is_empty(), "no file tests in {}", dir.display());
    let mut failures = Vec::new();
    for path in &files {
        let result = TestFile::read(path).and_then(|t| {
            let mut state = State::Text(t.input.clone());
            for pass in &t.passes {
                state = run_pass(&t, pass, state)
                    .unwrap_or_else(|| Err(t.error(format!(" unknown pass `{pass}`"))))?;
            }
            let output = state.output(&t)?;
            if std::env::var_os("FILETEST_SHOW").is_some() {
                eprintln!("=== {}\n{output}", path.display());
            }
            t.check(&output)
        });
        if let Err(e) = result {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} file tests failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
    eprintln!("{} file tests passed", files.len());
}
