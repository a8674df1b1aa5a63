//! The settings of lanes, one typed model for every face: `lanes.toml`
//! (the nearest one for `lanes check`/`explain`/`build`, the workspace
//! root's in the editor), the editor's settings (initializationOptions and
//! `workspace/didChangeConfiguration`, the contract of
//! editors/vscode/src/config.ts) and the command line's flags.
//!
//! ```toml
//! target = "avx2-i32x8"               # ISPC names (`lanes targets`); W is the width;
//!                                     # a list ("sse4-i32x4,avx2-i32x8"): one object for all
//! width = 8                           # W without a target's code generation (analysis only)
//! defines = ["N=16", "DEBUG"]         # as -D
//! includePaths = ["include"]          # as -I; relative to the lanes.toml (editor: the root)
//! diagnostics = { L0202 = "off" }     # error|warning|information|hint|off, codes that are not errors
//! specialize = "auto"                 # lanes build: fast paths on proven preconditions (auto|off)
//! outDir = "build"                    # where the editor's lanes.build writes
//! [preconditions]
//! enabled = true
//! targetBudget = 2000000              # solver resource units per loop, branch or access
//! fileBudget = 4000000                # ... for all of a file's targets together
//!                                     # (lanes build: 500000 and 1000000 unless set)
//! [launch]                            # a typical launch: coverage of preconditions
//! globalSize = [1920, 1080]
//! args = { width = 1920, vstep = 3 }
//! ```
//!
//! Both sources are read by one validator ([`parse_toml`], [`parse_json`])
//! into a [`Layer`]; layers stack ([`Layer::over`]: the editor's over
//! `lanes.toml`, the command line's over both) and resolve into
//! [`Settings`]. An unknown key or a value of the wrong type is the same
//! error from either source; in `lanes.toml` it has a line and column.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use lanes_frontend::diag::{Code, Severity};
use lanes_frontend::preprocess::PreprocessOptions;
use lanes_frontend::suppress::Severities;
use lanes_vectorizer::precond::{Budget, Launch};
use lanes_vectorizer::target::Target;

use crate::tree::{self, Node, Value};

/// `lanes build --specialize`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Specialize {
    Auto,
    Off,
}

/// Precondition inference (`[preconditions]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Preconditions {
    pub enabled: bool,
    /// What `lanes check`, `lanes explain` and the editor spend.
    pub budget: Budget,
    /// What `lanes build` spends: [`Budget::build`], each part replaced by
    /// `targetBudget`/`fileBudget` when a layer sets it.
    pub build_budget: Budget,
}

/// Everything a face needs to know to analyse, explain or build a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The target name as the user gave it (`avx512skx-x16`, `host`).
    pub target: String,
    /// SIMD width W (the target's, unless `width` says otherwise).
    pub width: u32,
    /// The target's lowering (fused multiply-add: contraction).
    pub lowering: lanes_vectorizer::lower::Options,
    /// `-D NAME[=VALUE]`, in order.
    pub defines: Vec<(String, Option<String>)>,
    pub undefines: Vec<String>,
    pub include_dirs: Vec<PathBuf>,
    /// Severity per code; `None` turns the code off.
    pub severities: Severities,
    pub preconditions: Preconditions,
    pub launch: Option<Launch>,
    /// `None`: `auto` at `-O2`, `off` at `-O0`.
    pub specialize: Option<Specialize>,
    pub out_dir: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            target: "host".to_string(),
            width: Target::host().width,
            lowering: Target::host().isa.lowering(),
            defines: Vec::new(),
            undefines: Vec::new(),
            include_dirs: Vec::new(),
            severities: BTreeMap::new(),
            preconditions: Preconditions {
                enabled: true,
                budget: Budget::default(),
                build_budget: Budget::build(),
            },
            launch: None,
            specialize: None,
            out_dir: None,
        }
    }
}

impl Settings {
    /// Settings for a named target or a target list (`None` for an unknown
    /// name); a list is analysed at the width of its first target (`lanes
    /// build` analyses each target at its own).
    pub fn for_target(name: &str) -> Option<Settings> {
        let t = *Target::parse_list(name).ok()?.first()?;
        Some(Settings {
            target: name.to_string(),
            width: t.width,
            lowering: t.isa.lowering(),
            ..Settings::default()
        })
    }

    /// The preprocessor's options.
    pub fn preprocess_options(&self) -> PreprocessOptions {
        PreprocessOptions {
            defines: self.defines.clone(),
            undefines: self.undefines.clone(),
            include_dirs: self.include_dirs.clone(),
            width: self.width,
        }
    }

    /// The settings `lanes build` runs the pipeline with: its own budget
    /// ([`Preconditions::build_budget`]).
    pub fn for_build(&self) -> Settings {
        let mut s = self.clone();
        s.preconditions.budget = s.preconditions.build_budget;
        s
    }

    /// The options of precondition inference; `None` when turned off.
    pub fn precond_options(&self) -> Option<lanes_vectorizer::precond::Options> {
        if !self.preconditions.enabled {
            return None;
        }
        let mut o = lanes_vectorizer::precond::Options::new(self.width);
        o.budget = self.preconditions.budget;
        o.launch = self.launch.clone();
        Some(o)
    }
}

/// What one source says; `None`/empty where it says nothing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layer {
    pub target: Option<String>,
    pub width: Option<u32>,
    pub defines: Option<Vec<(String, Option<String>)>>,
    pub undefines: Option<Vec<String>>,
    /// Absolute (resolved against the source's directory).
    pub include_dirs: Option<Vec<PathBuf>>,
    pub severities: Severities,
    pub enabled: Option<bool>,
    pub target_budget: Option<u64>,
    pub file_budget: Option<u64>,
    pub launch: Option<Launch>,
    pub specialize: Option<Specialize>,
    pub out_dir: Option<PathBuf>,
}

impl Layer {
    /// `self` over `base`: each key of `self` replaces `base`'s; the
    /// severities merge code by code.
    pub fn over(self, base: Layer) -> Layer {
        let mut severities = base.severities;
        severities.extend(self.severities);
        Layer {
            target: self.target.or(base.target),
            width: self.width.or(base.width),
            defines: self.defines.or(base.defines),
            undefines: self.undefines.or(base.undefines),
            include_dirs: self.include_dirs.or(base.include_dirs),
            severities,
            enabled: self.enabled.or(base.enabled),
            target_budget: self.target_budget.or(base.target_budget),
            file_budget: self.file_budget.or(base.file_budget),
            launch: self.launch.or(base.launch),
            specialize: self.specialize.or(base.specialize),
            out_dir: self.out_dir.or(base.out_dir),
        }
    }

    /// The settings: defaults where no layer said anything. Target names
    /// were checked when the layer was read.
    pub fn resolve(self) -> Settings {
        let mut s = self
            .target
            .as_deref()
            .and_then(Settings::for_target)
            .unwrap_or_default();
        if let Some(w) = self.width {
            s.width = w;
        }
        s.defines = self.defines.unwrap_or_default();
        s.undefines = self.undefines.unwrap_or_default();
        s.include_dirs = self.include_dirs.unwrap_or_default();
        s.severities = self.severities;
        if let Some(e) = self.enabled {
            s.preconditions.enabled = e;
        }
        if let Some(t) = self.target_budget {
            s.preconditions.budget.target = t;
            s.preconditions.build_budget.target = t;
        }
        if let Some(f) = self.file_budget {
            s.preconditions.budget.file = f;
            s.preconditions.build_budget.file = f;
        }
        s.launch = self.launch;
        s.specialize = self.specialize;
        s.out_dir = self.out_dir;
        s
    }
}

/// A problem with a setting: the message, and where it is in `lanes.toml`
/// (byte range; `None` for the editor's settings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SettingsError {
    pub message: String,
    pub at: Option<Range<usize>>,
}

impl SettingsError {
    /// `path:line:column: message` for an error of `lanes.toml` text.
    pub fn in_file(&self, path: &Path, text: &str) -> String {
        match &self.at {
            Some(r) => format!("{}: {}", location(path, text, r.start), self.message),
            None => format!("{}: {}", path.display(), self.message),
        }
    }
}

/// `path:line:column` of a byte offset of `text` (1-based, columns in
/// characters).
pub fn location(path: &Path, text: &str, at: usize) -> String {
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("{}:{line}:{col}", path.display())
}

/// Reads `lanes.toml` text; `dir` resolves relative include paths. The
/// layer holds every valid key; the errors are in source order.
pub fn parse_toml(text: &str, dir: &Path) -> (Layer, Vec<SettingsError>) {
    match tree::from_toml(text) {
        Ok(root) => read(&root, dir),
        Err(e) => (
            Layer::default(),
            vec![SettingsError {
                message: e.message,
                at: e.at,
            }],
        ),
    }
}

/// Reads the editor's settings (sent as `{"lanes": {...}}` or bare);
/// `root` resolves relative include paths and `outDir`.
pub fn parse_json(v: &serde_json::Value, root: &Path) -> (Layer, Vec<SettingsError>) {
    let inner = match v.get("lanes") {
        Some(inner) if inner.is_object() => inner,
        _ => v,
    };
    if inner.is_null() {
        return (Layer::default(), Vec::new());
    }
    read(&tree::from_json(inner), root)
}

/// The nearest `lanes.toml` for `file`: in its directory or a parent.
pub fn find(file: &Path) -> Option<PathBuf> {
    let abs = std::path::absolute(file).ok()?;
    abs.parent()?
        .ancestors()
        .map(|d| d.join("lanes.toml"))
        .find(|p| p.is_file())
}

/// Reads one `lanes.toml`: its layer, or the errors as
/// `path:line:column: message`.
pub fn load(path: &Path) -> Result<Layer, Vec<String>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| vec![format!("{}: cannot read: {e}", path.display())])?;
    let (layer, errors) = parse_toml(&text, path.parent().unwrap_or(Path::new(".")));
    if errors.is_empty() {
        Ok(layer)
    } else {
        Err(errors.iter().map(|e| e.in_file(path, &text)).collect())
    }
}

/// The keys of the settings, as both sources spell them.
const KEYS: &[&str] = &[
    "target",
    "width",
    "defines",
    "includePaths",
    "diagnostics",
    "specialize",
    "outDir",
    "preconditions",
    "launch",
];
/// Keys of editor clients' own settings that they may send along (the
/// server path and trace level of the VS Code extension), and the language
/// server's own (`catalogueUrl`, the diagnostics' links; `pullDiagnostics`,
/// read at initialization); not read here.
const CLIENT_KEYS: &[&str] = &["server", "trace", "catalogueUrl", "pullDiagnostics"];

struct Reader {
    errors: Vec<SettingsError>,
}

impl Reader {
    fn error(&mut self, at: &Option<Range<usize>>, message: String) {
        self.errors.push(SettingsError {
            message,
            at: at.clone(),
        });
    }

    fn wrong(&mut self, key: &str, node: &Node, expected: &str) {
        self.error(
            &node.at,
            format!("`{key}` must be {expected}, not {}", node.value.kind()),
        );
    }

    fn table<'n>(
        &mut self,
        key: &str,
        node: &'n Node,
        known: &[&str],
    ) -> Option<Vec<(&'n str, &'n Node)>> {
        let Value::Table(entries) = &node.value else {
            self.wrong(key, node, "a table");
            return None;
        };
        let mut out = Vec::new();
        for (k, at, v) in entries {
            if known.contains(&k.as_str()) {
                out.push((k.as_str(), v));
            } else if !(key.is_empty() && CLIENT_KEYS.contains(&k.as_str())) {
                let name = if key.is_empty() {
                    k.clone()
                } else {
                    format!("{key}.{k}")
                };
                self.error(
                    at,
                    format!(
                        "unknown setting `{name}` (known: {})",
                        known
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
        }
        Some(out)
    }

    fn string(&mut self, key: &str, node: &Node) -> Option<String> {
        match &node.value {
            Value::Str(s) => Some(s.trim().to_string()),
            _ => {
                self.wrong(key, node, "a string");
                None
            }
        }
    }

    /// A list of strings, trimmed, empty ones dropped.
    fn strings(&mut self, key: &str, node: &Node) -> Option<Vec<String>> {
        let Value::Array(items) = &node.value else {
            self.wrong(key, node, "an array of strings");
            return None;
        };
        let mut out = Vec::new();
        for item in items {
            match &item.value {
                Value::Str(s) if s.trim().is_empty() => {}
                Value::Str(s) => out.push(s.trim().to_string()),
                _ => {
                    self.wrong(&format!("{key}[]"), item, "a string");
                    return None;
                }
            }
        }
        Some(out)
    }

    fn positive(&mut self, key: &str, node: &Node, what: &str) -> Option<u64> {
        match node.value {
            Value::Int(i) if i > 0 => Some(i as u64),
            Value::Int(_) => {
                self.error(&node.at, format!("`{key}` must be {what}"));
                None
            }
            _ => {
                self.wrong(key, node, what);
                None
            }
        }
    }
}

fn read(root: &Node, dir: &Path) -> (Layer, Vec<SettingsError>) {
    let mut r = Reader { errors: Vec::new() };
    let mut layer = Layer::default();
    let Some(entries) = r.table("", root, KEYS) else {
        return (layer, r.errors);
    };
    let resolve = |p: &str| {
        let p = PathBuf::from(p);
        if p.is_relative() {
            dir.join(p)
        } else {
            p
        }
    };
    for (key, node) in entries {
        match key {
            "target" => {
                if let Some(t) = r.string(key, node) {
                    match Target::parse_list(&t) {
                        Ok(_) => layer.target = Some(t),
                        Err(e) => r.error(&node.at, e),
                    }
                }
            }
            "width" => match node.value {
                Value::Int(w) if matches!(w, 1 | 2 | 4 | 8 | 16 | 32 | 64) => {
                    layer.width = Some(w as u32)
                }
                Value::Int(w) => r.error(
                    &node.at,
                    format!("`width` must be a power of two up to 64, not {w}"),
                ),
                _ => r.wrong(key, node, "an integer"),
            },
            "defines" => {
                layer.defines = r.strings(key, node).map(|ds| {
                    ds.iter()
                        .map(|d| match d.split_once('=') {
                            Some((n, v)) => (n.trim().to_string(), Some(v.to_string())),
                            None => (d.clone(), None),
                        })
                        .collect()
                })
            }
            "includePaths" => {
                layer.include_dirs = r
                    .strings(key, node)
                    .map(|ps| ps.iter().map(|p| resolve(p)).collect())
            }
            "outDir" => layer.out_dir = r.string(key, node).map(|p| resolve(&p)),
            "specialize" => match r.string(key, node).as_deref() {
                Some("auto") => layer.specialize = Some(Specialize::Auto),
                Some("off") => layer.specialize = Some(Specialize::Off),
                Some(other) => r.error(
                    &node.at,
                    format!("`specialize` must be `auto` or `off`, not `{other}`"),
                ),
                None => {}
            },
            "diagnostics" => read_severities(&mut r, node, &mut layer),
            "preconditions" => read_preconditions(&mut r, node, &mut layer),
            "launch" => layer.launch = read_launch(&mut r, node),
            _ => unreachable!("a key of KEYS"),
        }
    }
    r.errors
        .sort_by_key(|e| e.at.as_ref().map_or(0, |a| a.start));
    (layer, r.errors)
}

fn read_severities(r: &mut Reader, node: &Node, layer: &mut Layer) {
    let Value::Table(entries) = &node.value else {
        r.wrong("diagnostics", node, "a table of codes");
        return;
    };
    for (code, at, level) in entries {
        let Some(c) = Code::from_str(&code.to_ascii_uppercase()) else {
            r.error(at, format!("unknown diagnostic code `{code}`"));
            continue;
        };
        let sev = match &level.value {
            Value::Str(s) => match s.as_str() {
                "error" => Some(Severity::Error),
                "warning" => Some(Severity::Warning),
                "information" | "info" => Some(Severity::Info),
                "hint" => Some(Severity::Hint),
                "off" | "none" => None,
                other => {
                    r.error(
                        &level.at,
                        format!(
                            "unknown severity `{other}` for {code} (error, warning, information, hint, off)"
                        ),
                    );
                    continue;
                }
            },
            _ => {
                r.wrong(&format!("diagnostics.{code}"), level, "a severity string");
                continue;
            }
        };
        layer.severities.insert(c, sev);
    }
}

fn read_preconditions(r: &mut Reader, node: &Node, layer: &mut Layer) {
    let Some(entries) = r.table(
        "preconditions",
        node,
        &["enabled", "targetBudget", "fileBudget"],
    ) else {
        return;
    };
    const UNITS: &str = "a positive number of solver resource units";
    for (key, v) in entries {
        match key {
            "enabled" => match v.value {
                Value::Bool(b) => layer.enabled = Some(b),
                _ => r.wrong("preconditions.enabled", v, "a boolean"),
            },
            "targetBudget" => {
                layer.target_budget = r.positive("preconditions.targetBudget", v, UNITS)
            }
            _ => layer.file_budget = r.positive("preconditions.fileBudget", v, UNITS),
        }
    }
}

fn read_launch(r: &mut Reader, node: &Node) -> Option<Launch> {
    let entries = r.table("launch", node, &["globalSize", "args"])?;
    let mut launch = Launch::default();
    let mut ok = true;
    let mut has_global = false;
    for (key, v) in entries {
        match key {
            "globalSize" => {
                has_global = true;
                let Value::Array(items) = &v.value else {
                    r.wrong("launch.globalSize", v, "1 to 3 positive integers");
                    ok = false;
                    continue;
                };
                if items.is_empty() || items.len() > 3 {
                    r.error(
                        &v.at,
                        "`launch.globalSize` must be 1 to 3 positive integers".into(),
                    );
                    ok = false;
                    continue;
                }
                for g in items {
                    match g.value {
                        Value::Int(n) if n > 0 && n < (1 << 31) => launch.global.push(n as u64),
                        _ => {
                            r.error(
                                &g.at,
                                "a global size is a positive integer below 2^31".into(),
                            );
                            ok = false;
                        }
                    }
                }
            }
            _ => {
                let Value::Table(args) = &v.value else {
                    r.wrong("launch.args", v, "a table of numbers");
                    ok = false;
                    continue;
                };
                for (name, _, a) in args {
                    match a.value {
                        Value::Int(i) => {
                            launch.args.insert(name.clone(), i);
                        }
                        // Floating-point arguments take no part in preconditions.
                        Value::Float => {}
                        _ => {
                            r.error(
                                &a.at,
                                format!(
                                    "the launch argument `{name}` must be a number, not {}",
                                    a.value.kind()
                                ),
                            );
                            ok = false;
                        }
                    }
                }
            }
        }
    }
    if !has_global {
        r.error(
            &node.at,
            "`launch` needs `globalSize` (1 to 3 positive integers)".into(),
        );
        return None;
    }
    ok.then_some(launch)
}

/// The command line's flags over the file's settings: `--target` replaces
/// `target`, `-D`/`-U` of a name replace the file's definition of it, and
/// `-I` directories are searched before the file's.
#[derive(Clone, Debug, Default)]
pub struct CommandLine {
    pub target: Option<String>,
    /// `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
    pub undefines: Vec<String>,
    pub include_dirs: Vec<PathBuf>,
    pub specialize: Option<Specialize>,
}

impl CommandLine {
    /// `file` (the layer of `lanes.toml`) with the flags applied; an
    /// unknown `--target` is an error.
    pub fn over(&self, file: Layer) -> Result<Settings, String> {
        if let Some(t) = &self.target {
            Target::parse_list(t)?;
        }
        let flags = Layer {
            target: self.target.clone(),
            // A target on the command line also sets its width.
            width: None,
            specialize: self.specialize,
            ..Layer::default()
        };
        let file_width = if self.target.is_some() {
            None
        } else {
            file.width
        };
        let mut s = Layer {
            width: file_width,
            ..flags.over(file.clone())
        }
        .resolve();
        let defines: Vec<(String, Option<String>)> = self
            .defines
            .iter()
            .map(|d| match d.split_once('=') {
                Some((n, v)) => (n.to_string(), Some(v.to_string())),
                None => (d.clone(), None),
            })
            .collect();
        let flagged: Vec<&str> = defines
            .iter()
            .map(|(n, _)| n.as_str())
            .chain(self.undefines.iter().map(String::as_str))
            .collect();
        s.defines.retain(|(n, _)| !flagged.contains(&n.as_str()));
        s.defines.extend(defines);
        s.undefines.extend(self.undefines.iter().cloned());
        let mut dirs = self.include_dirs.clone();
        dirs.append(&mut s.include_dirs);
        s.include_dirs = dirs;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn toml_errors(text: &str) -> Vec<String> {
        let (_, errors) = parse_toml(text, Path::new("/p"));
        errors
            .iter()
            .map(|e| e.in_file(Path::new("/p/lanes.toml"), text))
            .collect()
    }

    fn first(text: &str) -> String {
        toml_errors(text).into_iter().next().expect("an error")
    }

    #[test]
    fn reads_every_key() {
        let (l, e) = parse_toml(
            "target = \"sse4-i32x4\"\ndefines = [\"N=4\", \" DEBUG \"]\nincludePaths = [\"inc\", \"/abs\"]\ndiagnostics = { L0202 = \"off\" }\nspecialize = \"off\"\n[preconditions]\ntargetBudget = 1000\n[launch]\nglobalSize = [1000, 2]\nargs = { width = 1000, scale = 0.5 }\n",
            Path::new("/p"),
        );
        assert!(e.is_empty(), "{e:?}");
        let s = l.resolve();
        assert_eq!((s.target.as_str(), s.width), ("sse4-i32x4", 4));
        assert_eq!(
            s.defines,
            [
                ("N".to_string(), Some("4".to_string())),
                ("DEBUG".into(), None)
            ]
        );
        assert_eq!(
            s.include_dirs,
            [PathBuf::from("/p/inc"), PathBuf::from("/abs")]
        );
        assert_eq!(s.severities.get(&Code::Gather), Some(&None));
        assert_eq!(s.specialize, Some(Specialize::Off));
        assert_eq!(s.preconditions.budget.target, 1000);
        assert_eq!(s.preconditions.build_budget.target, 1000);
        let l = s.launch.unwrap();
        assert_eq!(l.global, [1000, 2]);
        assert_eq!(l.args, BTreeMap::from([("width".to_string(), 1000)]));
    }

    #[test]
    fn build_has_its_own_budget_unless_a_layer_sets_one() {
        let s = Layer::default().resolve();
        assert_eq!(s.preconditions.budget, Budget::default());
        assert_eq!(s.for_build().preconditions.budget, Budget::build());
        assert!(Budget::build().file < Budget::default().file);
        // A part the layer sets is what every face spends; the other part
        // keeps the build's default.
        let (l, e) = parse_toml("[preconditions]\nfileBudget = 3000000\n", Path::new("/p"));
        assert!(e.is_empty(), "{e:?}");
        let b = l.resolve().for_build().preconditions.budget;
        assert_eq!((b.target, b.file), (Budget::build().target, 3_000_000));
    }

    #[test]
    fn errors_have_a_line_and_column() {
        assert!(first("target = \"x\"\n[launch\n").starts_with("/p/lanes.toml:2:"));
        let e = first("[launch]\nglobalSize = \"big\"\n");
        assert!(e.starts_with("/p/lanes.toml:2:14: "), "{e}");
        let e = first("[launch]\nglobalSize = [64, 0]\n");
        assert!(e.starts_with("/p/lanes.toml:2:19: "), "{e}");
        let e = first("[launch]\nglobalSize = [64]\nargs = { n = \"x\" }\n");
        assert!(
            e.starts_with("/p/lanes.toml:3:14: ") && e.contains("`n`"),
            "{e}"
        );
        let e = first("[launch]\nargs = { n = 1 }\n");
        assert!(e.starts_with("/p/lanes.toml:1:1: "), "{e}");
        let e = first("defines = 3\n");
        assert_eq!(
            e,
            "/p/lanes.toml:1:11: `defines` must be an array of strings, not an integer"
        );
        let e = first("diagnostics = { L0202 = \"loud\" }\n");
        assert!(e.starts_with("/p/lanes.toml:1:25: "), "{e}");
        let e = first("[preconditions]\nfileBudget = 0\n");
        assert!(e.starts_with("/p/lanes.toml:2:14: "), "{e}");
        let e = first("target = \"pdp11\"\n");
        assert!(
            e.starts_with("/p/lanes.toml:1:10: unknown target `pdp11`"),
            "{e}"
        );
    }

    #[test]
    fn target_lists() {
        let (l, e) = parse_toml("target = \"avx2-i32x8,sse4-i32x4\"\n", Path::new("/p"));
        assert!(e.is_empty(), "{e:?}");
        let s = l.resolve();
        // Analysed at the first target's width.
        assert_eq!((s.target.as_str(), s.width), ("avx2-i32x8,sse4-i32x4", 8));
        let e = first("target = \"sse4-i32x4,avx9\"\n");
        assert!(
            e.starts_with("/p/lanes.toml:1:10: unknown target `avx9` in the list"),
            "{e}"
        );
        let flags = CommandLine {
            target: Some("sse4-i32x4,avx2-i32x16".into()),
            ..CommandLine::default()
        };
        assert_eq!(flags.over(Layer::default()).unwrap().width, 4);
    }

    #[test]
    fn unknown_keys_are_errors() {
        assert_eq!(
            toml_errors("targett = \"host\"\n[preconditions]\nbudgetMs = 3\n")
                .iter()
                .map(|e| e.split(" (known").next().unwrap().to_string())
                .collect::<Vec<_>>(),
            [
                "/p/lanes.toml:1:1: unknown setting `targett`",
                "/p/lanes.toml:3:1: unknown setting `preconditions.budgetMs`"
            ]
        );
    }

    /// The editor's settings get the same messages, without a position.
    #[test]
    fn editor_settings_give_the_same_errors() {
        let cases = [
            ("defines = 3\n", json!({"defines": 3})),
            ("targett = \"host\"\n", json!({"targett": "host"})),
            (
                "[preconditions]\ntargetBudget = -1\n",
                json!({"preconditions": {"targetBudget": -1}}),
            ),
            (
                "[launch]\nglobalSize = [0]\n",
                json!({"launch": {"globalSize": [0]}}),
            ),
            (
                "diagnostics = { X1 = \"warning\" }\n",
                json!({"diagnostics": {"X1": "warning"}}),
            ),
            ("target = \"pdp11\"\n", json!({"target": "pdp11"})),
            ("width = 3\n", json!({"width": 3})),
        ];
        for (text, j) in cases {
            let (_, te) = parse_toml(text, Path::new("/p"));
            let (_, je) = parse_json(&json!({ "lanes": j }), Path::new("/p"));
            let msgs =
                |es: &[SettingsError]| es.iter().map(|e| e.message.clone()).collect::<Vec<_>>();
            assert_eq!(msgs(&te), msgs(&je), "{text}");
            assert_eq!(te.len(), 1, "{text}: {te:?}");
            assert!(te[0].at.is_some() && je[0].at.is_none());
        }
        // The VS Code client's own keys are not the server's business.
        let (_, e) = parse_json(
            &json!({"server": {"path": "lanes"}, "trace": {"server": "off"}}),
            Path::new("/"),
        );
        assert!(e.is_empty(), "{e:?}");
    }

    #[test]
    fn layers_stack() {
        let (file, _) = parse_toml(
            "target = \"sse4-i32x4\"\ndefines = [\"N=4\", \"M=1\"]\nincludePaths = [\"inc\"]\ndiagnostics = { L0202 = \"hint\" }\n",
            Path::new("/p"),
        );
        let (editor, _) = parse_json(
            &json!({"target": "avx2-i32x8", "diagnostics": {"L0201": "off"}}),
            Path::new("/p"),
        );
        let s = editor.over(file.clone()).resolve();
        assert_eq!((s.target.as_str(), s.width), ("avx2-i32x8", 8));
        assert_eq!(s.severities.len(), 2);
        let cl = CommandLine {
            defines: vec!["N=8".into()],
            undefines: vec!["M".into()],
            include_dirs: vec![PathBuf::from("first")],
            ..CommandLine::default()
        };
        let s = cl.over(file).unwrap();
        assert_eq!(s.target, "sse4-i32x4");
        assert_eq!(s.defines, [("N".to_string(), Some("8".to_string()))]);
        assert_eq!(s.undefines, ["M"]);
        assert_eq!(
            s.include_dirs,
            [PathBuf::from("first"), PathBuf::from("/p/inc")]
        );
        assert!(CommandLine {
            target: Some("vax".into()),
            ..CommandLine::default()
        }
        .over(Layer::default())
        .is_err());
    }

    #[test]
    fn found_in_a_parent_directory() {
        let dir = std::env::temp_dir().join(format!("lanes-settings-{}", std::process::id()));
        let sub = dir.join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(dir.join("lanes.toml"), "target = \"host\"\n").unwrap();
        assert_eq!(find(&sub.join("k.cl")), Some(dir.join("lanes.toml")));
        std::fs::write(sub.join("lanes.toml"), "").unwrap();
        assert_eq!(find(&sub.join("k.cl")), Some(sub.join("lanes.toml")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
