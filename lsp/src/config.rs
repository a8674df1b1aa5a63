//! Settings from `lanes.toml`, initializationOptions and
//! `workspace/didChangeConfiguration`, all with the same keys (the contract
//! of editors/vscode/src/config.ts): `target`, `width`, `defines`,
//! `includePaths`, `diagnostics` (code → warning|information|hint|error|off),
//! `launch` (a typical launch: `globalSize`, `args`; coverage of inferred
//! preconditions is counted on it), `preconditions` (`enabled`,
//! `targetBudget` and `fileBudget` in solver resource units) and `outDir` (where `lanes.build` writes; default: next to
//! the source file).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lanes_db::Settings;
use lanes_frontend::diag::{Code, Severity};
use lanes_vectorizer::precond::{Launch, Options};
use serde_json::{Map, Value};

/// The settings of the client (sent as `{"lanes": {...}}` or bare).
pub fn client_options(v: &Value) -> Value {
    match v.get("lanes") {
        Some(inner) if inner.is_object() => inner.clone(),
        _ if v.is_object() => v.clone(),
        _ => Value::Object(Map::new()),
    }
}

/// `lanes.toml` of the root as JSON (an empty object when there is none or
/// it does not parse; the error is returned for the log).
pub fn toml_options(root: Option<&Path>) -> (Value, Option<String>) {
    let Some(root) = root else {
        return (Value::Object(Map::new()), None);
    };
    let path = root.join("lanes.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return (Value::Object(Map::new()), None);
    };
    match toml::from_str::<Value>(&text) {
        Ok(v) if v.is_object() => (v, None),
        Ok(_) => (Value::Object(Map::new()), None),
        Err(e) => (
            Value::Object(Map::new()),
            Some(format!("{}: {e}", path.display())),
        ),
    }
}

/// Client keys override `lanes.toml` keys; the `diagnostics` tables merge.
pub fn merge(toml: &Value, client: &Value) -> Value {
    let mut out = toml.as_object().cloned().unwrap_or_default();
    if let Some(c) = client.as_object() {
        for (k, v) in c {
            match (k.as_str(), out.get_mut(k)) {
                ("diagnostics", Some(Value::Object(base))) if v.is_object() => {
                    if let Some(m) = v.as_object() {
                        for (code, sev) in m {
                            base.insert(code.clone(), sev.clone());
                        }
                    }
                }
                _ => {
                    out.insert(k.clone(), v.clone());
                }
            }
        }
    }
    Value::Object(out)
}

/// The database settings of merged options; problems (unknown target,
/// code or severity) are returned as warnings for the log and skipped.
pub fn settings(options: &Value, root: Option<&Path>) -> (Settings, Vec<String>) {
    let mut warnings = Vec::new();
    let mut s = Settings::default();
    if let Some(t) = options.get("target").and_then(Value::as_str) {
        match Settings::for_target(t) {
            Some(ts) => s = ts,
            None => warnings.push(format!("unknown target `{t}`; using host")),
        }
    }
    if let Some(w) = options.get("width").and_then(Value::as_u64) {
        if matches!(w, 1 | 2 | 4 | 8 | 16 | 32 | 64) {
            s.width = w as u32;
        } else {
            warnings.push(format!("width {w} is not a power of two up to 64"));
        }
    }
    for d in strings(options.get("defines")) {
        match d.split_once('=') {
            Some((n, v)) => s.defines.push((n.trim().to_string(), Some(v.to_string()))),
            None => s.defines.push((d.trim().to_string(), None)),
        }
    }
    for p in strings(options.get("includePaths")) {
        let p = PathBuf::from(p);
        s.include_dirs.push(match root {
            Some(r) if p.is_relative() => r.join(p),
            _ => p,
        });
    }
    if let Some(m) = options.get("diagnostics").and_then(Value::as_object) {
        let mut sev = BTreeMap::new();
        for (code, v) in m {
            let Some(c) = Code::from_str(&code.to_ascii_uppercase()) else {
                warnings.push(format!("unknown diagnostic code `{code}`"));
                continue;
            };
            let level = match v.as_str().unwrap_or("") {
                "error" => Some(Severity::Error),
                "warning" => Some(Severity::Warning),
                "information" | "info" => Some(Severity::Info),
                "hint" => Some(Severity::Hint),
                "off" | "none" => None,
                other => {
                    warnings.push(format!("unknown severity `{other}` for {code}"));
                    continue;
                }
            };
            sev.insert(c, level);
        }
        s.severities = sev;
    }
    (s, warnings)
}

/// Options of the precondition inference (`None`: turned off with
/// `preconditions.enabled = false`); problems are warnings for the log.
pub fn precond_options(options: &Value, width: u32) -> (Option<Options>, Vec<String>) {
    let mut warnings = Vec::new();
    let mut o = Options::new(width);
    if let Some(p) = options.get("preconditions") {
        if p.get("enabled").and_then(Value::as_bool) == Some(false) {
            return (None, warnings);
        }
        for (key, slot) in [
            ("targetBudget", &mut o.budget.target),
            ("fileBudget", &mut o.budget.file),
        ] {
            match p.get(key).map(|b| (b, b.as_u64())) {
                None => {}
                Some((_, Some(units))) if units > 0 => *slot = units,
                Some((b, _)) => warnings.push(format!(
                    "preconditions.{key} must be a positive number of solver resource units, not {b}"
                )),
            }
        }
        if p.get("budgetMs").is_some() {
            warnings.push(
                "preconditions.budgetMs is no longer read: budgets are counted in solver resource units (targetBudget, fileBudget)".into(),
            );
        }
    }
    if let Some(l) = options.get("launch") {
        let mut launch = Launch::default();
        if let Some(g) = l.get("globalSize") {
            match g
                .as_array()
                .map(|a| a.iter().map(Value::as_u64).collect::<Option<Vec<_>>>())
            {
                Some(Some(sizes)) if (1..=3).contains(&sizes.len()) && !sizes.contains(&0) => {
                    launch.global = sizes
                }
                _ => warnings.push(format!(
                    "launch.globalSize must be 1 to 3 positive integers, not {g}"
                )),
            }
        }
        if let Some(args) = l.get("args").and_then(Value::as_object) {
            for (name, v) in args {
                match v.as_i64() {
                    Some(x) => {
                        launch.args.insert(name.clone(), x);
                    }
                    None => warnings.push(format!(
                        "launch.args.{name} must be an integer (only integer arguments take part in the estimate)"
                    )),
                }
            }
        }
        if !launch.global.is_empty() {
            o.launch = Some(launch);
        }
    }
    (Some(o), warnings)
}

/// Where `lanes.build` writes: `outDir` (relative to the root) if set.
pub fn out_dir(options: &Value, root: Option<&Path>) -> Option<PathBuf> {
    let d = PathBuf::from(options.get("outDir")?.as_str()?);
    Some(match root {
        Some(r) if d.is_relative() => r.join(d),
        _ => d,
    })
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn client_overrides_toml_and_merges_severities() {
        let toml = json!({"target": "sse4-i32x4", "diagnostics": {"L0202": "hint"}});
        let client = json!({"target": "avx2-i32x8", "diagnostics": {"L0201": "off"}});
        let m = merge(&toml, &client_options(&json!({ "lanes": client })));
        let (s, w) = settings(&m, None);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s.target, "avx2-i32x8");
        assert_eq!(s.width, 8);
        assert_eq!(s.severities.len(), 2);
    }

    #[test]
    fn precondition_options() {
        let (o, w) = precond_options(
            &json!({"launch": {"globalSize": [1920, 1080], "args": {"width": 1920}},
                    "preconditions": {"targetBudget": 500000, "fileBudget": 900000}}),
            8,
        );
        assert!(w.is_empty(), "{w:?}");
        let o = o.unwrap();
        assert_eq!(o.width, 8);
        assert_eq!((o.budget.target, o.budget.file), (500_000, 900_000));
        let l = o.launch.unwrap();
        assert_eq!(l.global, vec![1920, 1080]);
        assert_eq!(l.args.get("width"), Some(&1920));
        let (o, _) = precond_options(&json!({"preconditions": {"enabled": false}}), 8);
        assert!(o.is_none());
        let (o, w) = precond_options(
            &json!({"launch": {"globalSize": [0], "args": {"w": "x"}}, "preconditions": {"targetBudget": -1}}),
            4,
        );
        assert_eq!(w.len(), 3, "{w:?}");
        let o = o.unwrap();
        assert!(o.launch.is_none());
        assert_eq!(o.budget, Options::new(4).budget);
    }

    #[test]
    fn bad_values_are_warnings() {
        let (s, w) = settings(
            &json!({"target": "pdp11", "defines": ["N=4", "DEBUG"], "diagnostics": {"X1": "warning"}}),
            Some(Path::new("/r")),
        );
        assert_eq!(s.target, "host");
        assert_eq!(
            s.defines,
            vec![("N".into(), Some("4".into())), ("DEBUG".into(), None)]
        );
        assert_eq!(w.len(), 2);
    }
}
