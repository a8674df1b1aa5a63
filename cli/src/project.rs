//! `lanes.toml` for `lanes check` and `lanes explain`: the nearest one in
//! the file's directory or a parent directory (the root of the project, as
//! the language server's workspace root), with the keys of the editor
//! settings (lsp/src/config.rs, editors/vscode/src/config.ts):
//!
//! ```toml
//! target = "avx2-i32x8"
//! defines = ["N=16", "DEBUG"]
//! includePaths = ["include"]        # relative to the lanes.toml
//! [launch]                          # a typical launch: coverage of preconditions
//! globalSize = [1920, 1080]
//! args = { width = 1920, vstep = 3 }
//! ```
//!
//! `diagnostics = { L0202 = "off", L0201 = "hint" }` sets severities
//! (error, warning, information, hint, off) of codes that are not errors,
//! as in the editor. `[preconditions]` takes `targetBudget` and
//! `fileBudget` (solver resource units, docs/preconditions.md).
//! Flags on the command line override the file: `--target` replaces
//! `target`, `-D`/`-U` of a name replace the file's definition of it, and
//! `-I` directories are searched before the file's. Other keys
//! (`outDir`, `width`) belong to the editor and are ignored here. A file that does not parse, or a key of the wrong type,
//! is an error at `file:line:column`.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use lanes_frontend::diag::{Code, Severity};
use lanes_frontend::suppress::Severities;
use lanes_vectorizer::precond::{Budget, Launch};
use serde::Deserialize;
use toml::Spanned;

/// What `lanes.toml` says for the command line.
#[derive(Clone, Debug, Default)]
pub struct Project {
    /// The file read.
    pub path: PathBuf,
    pub target: Option<Spanned<String>>,
    /// `NAME` or `NAME=VALUE`, as `-D` takes them.
    pub defines: Vec<String>,
    /// Absolute, or relative to the current directory.
    pub include_dirs: Vec<PathBuf>,
    pub launch: Option<Launch>,
    /// Severities of codes (`diagnostics`).
    pub severities: Severities,
    /// Precondition budgets (`[preconditions]`).
    pub budget: Budget,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    target: Option<Spanned<String>>,
    #[serde(default)]
    defines: Vec<String>,
    #[serde(default)]
    include_paths: Vec<String>,
    launch: Option<Spanned<LaunchFile>>,
    #[serde(default)]
    diagnostics: BTreeMap<Spanned<String>, Spanned<String>>,
    preconditions: Option<PreconditionsFile>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PreconditionsFile {
    target_budget: Option<Spanned<i64>>,
    file_budget: Option<Spanned<i64>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LaunchFile {
    global_size: Option<Spanned<Vec<Spanned<i64>>>>,
    #[serde(default)]
    args: BTreeMap<String, Spanned<toml::Value>>,
}

/// The nearest `lanes.toml` for `file`: in its directory or a parent.
pub fn find(file: &Path) -> Option<PathBuf> {
    let abs = std::path::absolute(file).ok()?;
    abs.parent()?
        .ancestors()
        .map(|d| d.join("lanes.toml"))
        .find(|p| p.is_file())
}

/// The project settings for `file`: `Ok(None)` without a `lanes.toml`,
/// `Err` with a `file:line:column: message` for a bad one.
pub fn for_file(file: &Path) -> Result<Option<Project>, String> {
    match find(file) {
        Some(path) => load(&path).map(Some),
        None => Ok(None),
    }
}

/// Reads and checks one `lanes.toml`.
pub fn load(path: &Path) -> Result<Project, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    parse(path, &text)
}

/// `path:line:column` of a byte offset of `text` (1-based, columns in
/// characters).
fn location(path: &Path, text: &str, at: usize) -> String {
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("{}:{line}:{col}", path.display())
}

fn error_at(path: &Path, text: &str, span: Option<Range<usize>>, msg: &str) -> String {
    match span {
        Some(s) => format!("{}: {msg}", location(path, text, s.start)),
        None => format!("{}: {msg}", path.display()),
    }
}

pub fn parse(path: &Path, text: &str) -> Result<Project, String> {
    let file: File = toml::from_str(text).map_err(|e| {
        let msg = e.message().trim().replace('\n', "; ");
        error_at(path, text, e.span(), &msg)
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut project = Project {
        path: path.to_path_buf(),
        target: file.target,
        defines: file
            .defines
            .iter()
            .map(|d| d.trim().to_string())
            .filter(|d| !d.is_empty())
            .collect(),
        include_dirs: file
            .include_paths
            .iter()
            .map(|p| {
                let p = PathBuf::from(p.trim());
                if p.is_relative() {
                    dir.join(p)
                } else {
                    p
                }
            })
            .collect(),
        launch: None,
        severities: Severities::new(),
        budget: Budget::default(),
    };
    for (code, level) in &file.diagnostics {
        let Some(c) = Code::from_str(&code.get_ref().to_ascii_uppercase()) else {
            return Err(error_at(
                path,
                text,
                Some(code.span()),
                &format!("unknown diagnostic code `{}`", code.get_ref()),
            ));
        };
        let sev = match level.get_ref().as_str() {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "information" | "info" => Some(Severity::Info),
            "hint" => Some(Severity::Hint),
            "off" | "none" => None,
            other => {
                return Err(error_at(
                    path,
                    text,
                    Some(level.span()),
                    &format!("unknown severity `{other}` (error, warning, information, hint, off)"),
                ))
            }
        };
        project.severities.insert(c, sev);
    }
    if let Some(p) = &file.preconditions {
        for (value, slot) in [
            (&p.target_budget, &mut project.budget.target),
            (&p.file_budget, &mut project.budget.file),
        ] {
            if let Some(v) = value {
                match u64::try_from(*v.get_ref()) {
                    Ok(units) if units > 0 => *slot = units,
                    _ => {
                        return Err(error_at(
                            path,
                            text,
                            Some(v.span()),
                            "a budget is a positive number of solver resource units",
                        ))
                    }
                }
            }
        }
    }
    if let Some(launch) = file.launch {
        let at = launch.span();
        let launch = launch.into_inner();
        let Some(global) = launch.global_size else {
            return Err(error_at(
                path,
                text,
                Some(at),
                "`[launch]` needs `globalSize` (1 to 3 positive integers)",
            ));
        };
        let gspan = global.span();
        let global = global.into_inner();
        if global.is_empty() || global.len() > 3 {
            return Err(error_at(
                path,
                text,
                Some(gspan),
                "`globalSize` takes 1 to 3 positive integers",
            ));
        }
        let mut sizes = Vec::new();
        for g in global {
            match u64::try_from(*g.get_ref()) {
                Ok(v) if v > 0 && v < (1 << 31) => sizes.push(v),
                _ => {
                    return Err(error_at(
                        path,
                        text,
                        Some(g.span()),
                        "a global size is a positive integer below 2^31",
                    ))
                }
            }
        }
        let mut args = BTreeMap::new();
        for (name, v) in launch.args {
            match v.get_ref() {
                toml::Value::Integer(i) => {
                    args.insert(name, *i);
                }
                // Floating-point arguments take no part in preconditions.
                toml::Value::Float(_) => {}
                _ => {
                    return Err(error_at(
                        path,
                        text,
                        Some(v.span()),
                        &format!("the launch argument `{name}` must be a number"),
                    ))
                }
            }
        }
        project.launch = Some(Launch {
            global: sizes,
            args,
        });
    }
    Ok(project)
}

/// `location` of a span of the file, for errors about its values.
pub fn span_location(project: &Project, span: Range<usize>) -> String {
    match std::fs::read_to_string(&project.path) {
        Ok(text) => location(&project.path, &text, span.start),
        Err(_) => project.path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<Project, String> {
        parse(Path::new("/p/lanes.toml"), text)
    }

    #[test]
    fn reads_every_key() {
        let p = parse_str(
            "target = \"sse4-i32x4\"\ndefines = [\"N=4\", \" DEBUG \"]\nincludePaths = [\"inc\", \"/abs\"]\ndiagnostics = { L0202 = \"off\" }\n[launch]\nglobalSize = [1000, 2]\nargs = { width = 1000, scale = 0.5 }\n",
        )
        .unwrap();
        assert_eq!(
            p.target.as_ref().map(|t| t.get_ref().as_str()),
            Some("sse4-i32x4")
        );
        assert_eq!(p.defines, ["N=4", "DEBUG"]);
        assert_eq!(
            p.include_dirs,
            [PathBuf::from("/p/inc"), PathBuf::from("/abs")]
        );
        assert_eq!(p.severities.get(&Code::Gather), Some(&None));
        let l = p.launch.unwrap();
        assert_eq!(l.global, [1000, 2]);
        assert_eq!(l.args, BTreeMap::from([("width".to_string(), 1000)]));
    }

    #[test]
    fn errors_have_a_line_and_column() {
        let e = parse_str("target = \"x\"\n[launch\n").unwrap_err();
        assert!(e.starts_with("/p/lanes.toml:2:"), "{e}");
        let e = parse_str("[launch]\nglobalSize = \"big\"\n").unwrap_err();
        assert!(e.starts_with("/p/lanes.toml:2:14: "), "{e}");
        let e = parse_str("[launch]\nglobalSize = [64, 0]\n").unwrap_err();
        assert!(e.starts_with("/p/lanes.toml:2:19: "), "{e}");
        let e = parse_str("[launch]\nglobalSize = [64]\nargs = { n = \"x\" }\n").unwrap_err();
        assert!(e.starts_with("/p/lanes.toml:3:14: "), "{e}");
        assert!(e.contains("`n`"), "{e}");
        let e = parse_str("[launch]\nargs = { n = 1 }\n").unwrap_err();
        assert!(e.starts_with("/p/lanes.toml:1:1: "), "{e}");
        let e = parse_str("defines = 3\n").unwrap_err();
        assert!(e.starts_with("/p/lanes.toml:1:11: "), "{e}");
        let e = parse_str("diagnostics = { L0202 = \"loud\" }\n").unwrap_err();
        assert!(e.starts_with("/p/lanes.toml:1:25: "), "{e}");
        let e = parse_str("[preconditions]\nfileBudget = 0\n").unwrap_err();
        assert!(e.starts_with("/p/lanes.toml:2:14: "), "{e}");
        let p = parse_str("[preconditions]\ntargetBudget = 1000\n").unwrap();
        assert_eq!(p.budget.target, 1000);
    }

    #[test]
    fn found_in_a_parent_directory() {
        let dir = std::env::temp_dir().join(format!("lanes-project-{}", std::process::id()));
        let sub = dir.join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(dir.join("lanes.toml"), "target = \"host\"\n").unwrap();
        assert_eq!(find(&sub.join("k.cl")), Some(dir.join("lanes.toml")));
        std::fs::write(sub.join("lanes.toml"), "").unwrap();
        assert_eq!(find(&sub.join("k.cl")), Some(sub.join("lanes.toml")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
