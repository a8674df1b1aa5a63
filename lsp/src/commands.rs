//! `workspace/executeCommand`: `lanes.build`, `lanes.showVectorIR`,
//! `lanes.showAsm`, `lanes.explain`. Arguments: `[uri-or-path, kernel?]`.
//! Results: `{"object","header"}` for a build, `{"text","language"}` for
//! the others (the contract of editors/test/mock-lanes-lsp.js).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use lanes_db::{File, LanesDatabase};
use lanes_frontend::diag::Diagnostic;
use serde_json::{json, Value};
use tower_lsp_server::gen_lsp_types::{ExecuteCommandParams, ProgressToken};
use tower_lsp_server::jsonrpc::{Error, Result};

use crate::convert::uri_to_path;
use crate::server::{content_modified, run_blocking, Backend};

/// LLVM code generation runs one at a time: it is the slow part, and the
/// cores are better spent on the analyses of other requests.
static CODEGEN: Mutex<()> = Mutex::new(());

/// The arguments of every command: `[uri-or-path, kernel?]`.
struct Args {
    path: PathBuf,
    kernel: Option<String>,
}

const USAGE: &str =
    "arguments: [uri or path of the file (a string), kernel name (a string, optional)]";

fn parse_args(args: &[Value]) -> Result<Args> {
    let bad = |why: String| Err(Error::invalid_params(format!("{why}; {USAGE}")));
    let Some(first) = args.first() else {
        return bad("no arguments".into());
    };
    let Some(first) = first.as_str().filter(|f| !f.is_empty()) else {
        return bad(format!("the file is {first}"));
    };
    if args.len() > 2 {
        return bad(format!("{} arguments", args.len()));
    }
    let kernel = match args.get(1) {
        None | Some(Value::Null) => None,
        Some(Value::String(k)) if k.is_empty() => None,
        Some(Value::String(k)) => Some(k.clone()),
        Some(other) => return bad(format!("the kernel is {other}")),
    };
    let path = if first.contains("://") || first.starts_with("untitled:") {
        uri_to_path(first)
    } else {
        PathBuf::from(first)
    };
    Ok(Args { path, kernel })
}

pub async fn execute(b: &Backend, params: ExecuteCommandParams) -> Result<Value> {
    // A test hook: with LANES_LSP_TEST_PANIC set, `lanes.test.panic` panics
    // inside a request, to prove that the panic is answered with an
    // internal error and the server keeps serving (tests/lsp).
    if params.command == "lanes.test.panic" && std::env::var_os("LANES_LSP_TEST_PANIC").is_some() {
        return run_blocking(|| -> Value { std::panic::panic_any("lanes.test.panic") }).await;
    }
    if !crate::server::COMMANDS.contains(&params.command.as_str()) {
        return Err(Error::invalid_params(format!(
            "unknown command `{}`",
            params.command
        )));
    }
    let Args { path, kernel } = parse_args(params.arguments.as_deref().unwrap_or_default())?;
    // Build and Show Assembly need the target; the analyses run without.
    if matches!(params.command.as_str(), "lanes.build" | "lanes.showAsm") {
        if let Some(e) = b.state().target_error.clone() {
            return Err(crate::server::internal_message(e));
        }
    }

    // The open document's text if it is open, else the file on disk.
    let (snap, file, version, out_dir, progress) = {
        let mut st = b.state();
        let open = st.open_file(&path);
        let (file, version) = match open {
            Some((_, f, v)) => (f, Some(v)),
            None => {
                if !path.is_file() {
                    return Err(Error::invalid_params(format!(
                        "no such file: {}",
                        path.display()
                    )));
                }
                (st.db.reload_from_disk(&path), None)
            }
        };
        let out = st.db.settings().out_dir;
        (st.db.clone(), file, version, out, st.progress())
    };

    let command = params.command.clone();
    let run = move || -> Result<Value> {
        if let Some(k) = &kernel {
            known_kernel(&snap, file, k)?;
        }
        let done = match command.as_str() {
            "lanes.build" => build(snap, file, out_dir.as_deref()),
            "lanes.showVectorIR" => vector_ir(&snap, file, kernel.as_deref())
                .map(|text| json!({"text": text, "language": "llvm"})),
            "lanes.showAsm" => assembly(snap, file, kernel.as_deref())
                .map(|text| json!({"text": text, "language": "asm"})),
            "lanes.explain" => explain(&snap, file, kernel.as_deref())
                .map(|text| json!({"text": text, "language": "plaintext"})),
            other => Err(format!("unknown command `{other}`")),
        };
        done.map_err(crate::server::internal_message)
    };

    // `$/progress` for builds: the client's token, or one we create.
    let mut ongoing = None;
    if params.command == "lanes.build" {
        let token = match params.work_done_progress_params.work_done_token.clone() {
            Some(t) => Some(t),
            None if progress => {
                let t = ProgressToken::String(format!("lanes-build-{}", next_token()));
                b.0.client
                    .create_work_done_progress(t.clone())
                    .await
                    .ok()
                    .map(|_| t)
            }
            None => None,
        };
        if let Some(t) = token {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            ongoing = Some(
                b.0.client
                    .progress(t, "lanes: build")
                    .with_message(format!("compiling {name}"))
                    .begin()
                    .await,
            );
        }
    }

    let result = run_blocking(run).await.and_then(|r| r);
    if let Some(p) = ongoing {
        let msg = match &result {
            Ok(_) => "done".to_string(),
            Err(e) => format!("failed: {}", e.message),
        };
        p.finish_with_message(msg).await;
    }
    // Text results of an open document must be of its current text.
    if let (Ok(_), Some(v)) = (&result, version) {
        let now = b.state().open_file(&path).map(|(_, _, v)| v);
        if now != Some(v) && params.command != "lanes.build" {
            return Err(content_modified());
        }
    }
    result
}

fn next_token() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(1);
    N.fetch_add(1, Ordering::Relaxed)
}

fn checked(
    db: &LanesDatabase,
    file: File,
) -> std::result::Result<std::sync::Arc<lanes_db::Parsed>, String> {
    let parsed = lanes_db::parse(db, file);
    if parsed.unit.has_errors() {
        return Err(format!(
            "`{}` has errors; fix them first (see the diagnostics)",
            file.path(db).display()
        ));
    }
    Ok(parsed.clone())
}

/// An error naming the kernels of the file unless it has one named `name`
/// (after the file's own errors, which the commands report first).
fn known_kernel(db: &LanesDatabase, file: File, name: &str) -> Result<()> {
    checked(db, file).map_err(crate::server::internal_message)?;
    let names: Vec<String> = lanes_db::kernels(db, file)
        .iter()
        .map(|k| k.name(db).to_string())
        .collect();
    if names.iter().any(|n| n == name) {
        return Ok(());
    }
    let shown = file
        .path(db)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let have = if names.is_empty() {
        "it has no kernels".to_string()
    } else {
        let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        format!("its kernels: {}", list.join(", "))
    };
    Err(Error::invalid_params(format!(
        "no kernel named `{name}` in {shown}; {have}"
    )))
}

/// What codegen needs, taken from the snapshot, which is then dropped: an
/// edit waits for every snapshot to go, and LLVM does not check for
/// cancellation, so codegen must not hold one.
struct Unit {
    parsed: std::sync::Arc<lanes_db::Parsed>,
    path: PathBuf,
    target: String,
}

/// The code of every target of the settings' `target` (one name, or a list
/// for one object choosing among them at run time, as `lanes build`), and
/// the code generator's warnings, placed in the file's text (each once).
fn compile(
    db: LanesDatabase,
    file: File,
) -> std::result::Result<(Unit, Vec<lanes_codegen::Compiled>, Vec<Diagnostic>), String> {
    let parsed = checked(&db, file)?;
    if parsed.unit.hir.kernels().is_empty() {
        return Err("the file has no kernels (functions declared `__kernel`)".into());
    }
    let mut settings = db.settings();
    // The editor's findings, where they are current for its options: a
    // target built at the editor's width reuses them instead of running
    // the solver again (the editor's analysis is the kernel's IR without
    // multiply-add contraction, which fuses float operations that no
    // precondition on ids and uniform integers depends on).
    let editor = settings.precond_options();
    let known = editor
        .as_ref()
        .map(|o| lanes_db::current_findings(&db, file, o))
        .unwrap_or_default();
    let unit = Unit {
        parsed,
        path: file.path(&db).clone(),
        target: settings.target.clone(),
    };
    drop(db);
    let parsed = &unit.parsed;
    let mut out = Vec::new();
    let mut warnings: Vec<Diagnostic> = Vec::new();
    for name in unit.target.split(',').map(str::trim) {
        let spec = lanes_codegen::target_spec(name)?;
        settings.width = spec.width;
        settings.lowering = spec.lowering();
        // The one pipeline, as `lanes build` runs it (the same settings and
        // fast paths, on the editor's budget, with the editor's findings),
        // off the database: headers of the specialized text are read from
        // disk.
        let reuse = settings.precond_options() == editor;
        let plan = lanes_pipeline::plan_build_reusing(
            &parsed.unit,
            &settings,
            lanes_pipeline::Specialize::Auto,
            &lanes_frontend::preprocess::RealFs,
            &|name| {
                known
                    .get(name)
                    .filter(|_| reuse)
                    .map(|f| f.as_ref().clone())
            },
        );
        let hir = &plan.specialized.as_ref().unwrap_or(&parsed.unit).hir;
        let _one = CODEGEN.lock().unwrap_or_else(|e| e.into_inner());
        let options = lanes_codegen::Options { opt_level: 2 };
        match lanes_codegen::compile_analysed(hir, plan.analysed(), &spec, &options) {
            Ok(c) => {
                for w in plan.loop_warnings_in(&parsed.unit, c.warnings()) {
                    if !warnings
                        .iter()
                        .any(|o| o.code == w.code && o.span == w.span)
                    {
                        warnings.push(w);
                    }
                }
                out.push(c)
            }
            Err(diags) => {
                return Err(diags
                    .iter()
                    .map(|d| format!("{}: {}", d.code.as_str(), d.message))
                    .collect::<Vec<_>>()
                    .join("; "))
            }
        }
    }
    Ok((unit, out, warnings))
}

fn build(
    db: LanesDatabase,
    file: File,
    out_dir: Option<&Path>,
) -> std::result::Result<Value, String> {
    let (unit, mut variants, warnings) = compile(db, file)?;
    let parsed = &unit.parsed;
    let src = unit.path.clone();
    let dir = match out_dir {
        Some(d) => d.to_path_buf(),
        None => src.parent().map(Path::to_path_buf).unwrap_or_default(),
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let stem = src
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kernels".into());
    let object = dir.join(format!("{stem}.o"));
    let header = dir.join(format!("{stem}.h"));
    let guard = format!("{stem}.h");
    let (bytes, text) = if variants.len() > 1 {
        let multi = lanes_codegen::link_targets(variants)?;
        let h = lanes_codegen::multi_target_header(&parsed.unit.hir, &multi, &guard);
        (multi.object()?, h)
    } else {
        let compiled = variants.pop().ok_or("no target")?;
        let h = lanes_codegen::header(&parsed.unit.hir, &compiled, &guard);
        (compiled.object()?, h)
    };
    lanes_codegen::write_atomically(&object, &bytes)
        .map_err(|e| format!("cannot write {}: {e}", object.display()))?;
    lanes_codegen::write_atomically(&header, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", header.display()))?;
    // As `lanes build` prints them, one line each: `FILE:LINE:COL: warning[L0103]: ...`.
    let warnings: Vec<String> = warnings
        .iter()
        .map(|w| {
            let (line, col) = parsed.unit.sources.line_col(w.span.file, w.span.start);
            let name = &parsed.unit.sources.get(w.span.file).name;
            format!(
                "{name}:{line}:{col}: warning[{}]: {}",
                w.code.as_str(),
                w.message
            )
        })
        .collect();
    Ok(json!({
        "object": object.display().to_string(),
        "header": header.display().to_string(),
        "warnings": warnings,
    }))
}

fn assembly(
    db: LanesDatabase,
    file: File,
    kernel: Option<&str>,
) -> std::result::Result<String, String> {
    let (unit, variants, _) = compile(db, file)?;
    // A target list: each variant's code, one after the other.
    let mut asm = String::new();
    for c in &variants {
        if variants.len() > 1 {
            asm.push_str(&format!("# ---- {} ----\n", c.spec.name));
        }
        asm.push_str(&c.assembly()?);
    }
    let mut head = format!(
        "# lanes: assembly of {} for {}",
        unit.path.display(),
        unit.target
    );
    if let Some(k) = kernel {
        // The whole file is compiled; the kernel's symbol is in there.
        head.push_str(&format!(" (kernel `{k}` among the others)"));
    }
    Ok(format!("{head}\n{asm}"))
}

fn vector_ir(
    db: &LanesDatabase,
    file: File,
    kernel: Option<&str>,
) -> std::result::Result<String, String> {
    checked(db, file)?;
    let mut out = String::new();
    let s = db.settings();
    out.push_str(&format!(
        "; lanes: vector IR of {} for {} ({} lanes)\n",
        file.path(db).display(),
        s.target,
        s.width
    ));
    let mut found = false;
    for k in lanes_db::kernels(db, file) {
        let name = k.name(db).clone();
        if kernel.is_some_and(|want| want != name.as_str()) {
            continue;
        }
        found = true;
        match lanes_db::kernel_vector_ir(db, k) {
            Some(vir) => match &vir.result {
                Ok(vf) => out.push_str(&lanes_vectorizer::vectorize::print(vf)),
                Err(e) => {
                    out.push_str(&format!("; kernel {name}: not vectorized: {}\n", e.message))
                }
            },
            None => out.push_str(&format!("; kernel {name}: not analysed\n")),
        }
        out.push('\n');
    }
    if !found {
        return Err(match kernel {
            Some(k) => format!("no kernel named `{k}`"),
            None => "the file has no kernels".into(),
        });
    }
    Ok(out)
}

fn explain(
    db: &LanesDatabase,
    file: File,
    kernel: Option<&str>,
) -> std::result::Result<String, String> {
    let parsed = checked(db, file)?;
    let s = db.settings();
    let hir = &parsed.unit.hir;
    let mut reports = Vec::new();
    let mut spans = Vec::new();
    let mut problems = String::new();
    for (name, result) in lanes_db::file_reports(db, file) {
        if kernel.is_some_and(|want| want != name.as_str()) {
            continue;
        }
        let Some(f) = hir
            .kernels()
            .into_iter()
            .map(|k| hir.function(k))
            .find(|f| f.name == name)
        else {
            continue;
        };
        match &*result {
            Ok(r) => {
                reports.push(r.clone());
                spans.push(f.span);
            }
            Err(diags) => {
                for d in diags {
                    problems.push_str(&format!(
                        "kernel {name}: {}: {}\n",
                        d.code.as_str(),
                        d.message
                    ));
                }
            }
        }
    }
    if reports.is_empty() && problems.is_empty() {
        return Err(match kernel {
            Some(k) => format!("no kernel named `{k}`"),
            None => "the file has no kernels".into(),
        });
    }
    let mut text = lanes_diagnostics::explain::text(
        &s.target,
        s.width,
        &parsed.unit.sources,
        &reports,
        &spans,
    );
    text.push_str(&problems);
    Ok(text)
}
