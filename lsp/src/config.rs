//! The server's settings: `lanes.toml` of the workspace root under the
//! client's settings (initializationOptions, `workspace/didChangeConfiguration`;
//! the contract of editors/vscode/src/config.ts), both read into the one
//! settings model of lanes (lanes-pipeline's `settings`, which documents
//! the keys) with the same validation as the command line. The client's
//! keys override `lanes.toml`'s; the `diagnostics` tables merge. A bad
//! setting is logged (`lanes.toml:line:column: message` for the file) and
//! skipped; the others apply.

use std::path::Path;

use lanes_pipeline::settings::{self, Layer};
use lanes_pipeline::Settings;
use serde_json::Value;

/// A source of settings as read: what it says, and its errors (for the log).
#[derive(Clone, Debug, Default)]
pub struct Source {
    pub layer: Layer,
    pub errors: Vec<String>,
    /// The `target` it names, known or not (an unknown one is not in
    /// `layer`).
    pub target: Option<String>,
    /// `catalogueUrl`: where the diagnostics catalogue is published.
    pub catalogue_url: Option<String>,
}

impl Source {
    fn raw(mut self, get: impl Fn(&str) -> Option<String>) -> Source {
        self.target = get("target");
        self.catalogue_url = get("catalogueUrl");
        self
    }
}

/// The error of an unknown target, of the client's settings over
/// `lanes.toml`'s; `None` when the target is known (or not set).
pub fn target_error(toml: &Source, client: &Source) -> Option<String> {
    let (name, from) = match (&client.target, &toml.target) {
        (Some(t), _) => (t, "the editor's settings"),
        (None, Some(t)) => (t, "lanes.toml"),
        (None, None) => return None,
    };
    // One name, or a list for a multi-target object, as `lanes build`.
    use lanes_vectorizer::target::Target;
    let e = Target::parse_list(name).err()?;
    Some(if name.contains(',') {
        format!("{e} in {from}; fix the setting to build and show assembly")
    } else {
        format!(
            "unknown target `{name}` in {from} (known: {}); fix the setting to build and show assembly",
            Target::names().join(", ")
        )
    })
}

/// `catalogueUrl`, of the client's settings over `lanes.toml`'s.
pub fn catalogue_url(toml: &Source, client: &Source) -> Option<String> {
    client.catalogue_url.clone().or(toml.catalogue_url.clone())
}

/// `lanes.toml` of the root (nothing when there is none).
pub fn toml_source(root: Option<&Path>) -> Source {
    let Some(root) = root else {
        return Source::default();
    };
    let path = root.join("lanes.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Source::default();
    };
    let (layer, errors) = settings::parse_toml(&text, root);
    let table = text.parse::<toml::Table>().unwrap_or_default();
    Source {
        layer,
        errors: errors.iter().map(|e| e.in_file(&path, &text)).collect(),
        ..Source::default()
    }
    .raw(|key| table.get(key)?.as_str().map(String::from))
}

/// The client's settings (sent as `{"lanes": {...}}` or bare); relative
/// paths are relative to the root.
pub fn client_source(v: &Value, root: Option<&Path>) -> Source {
    let (layer, errors) = settings::parse_json(v, root.unwrap_or(Path::new(".")));
    let inner = v.get("lanes").filter(|l| l.is_object()).unwrap_or(v);
    Source {
        layer,
        errors: errors
            .into_iter()
            .map(|e| format!("editor settings: {}", e.message))
            .collect(),
        ..Source::default()
    }
    .raw(|key| inner.get(key)?.as_str().map(String::from))
}

/// The settings: the client's over `lanes.toml`'s.
pub fn resolve(toml: &Source, client: &Source) -> Settings {
    client.layer.clone().over(toml.layer.clone()).resolve()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn client_overrides_toml_and_merges_severities() {
        let dir = std::env::temp_dir().join(format!("lanes-lsp-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("lanes.toml"),
            "target = \"sse4-i32x4\"\ndiagnostics = { L0202 = \"hint\" }\n[preconditions]\nfileBudget = 900000\n",
        )
        .unwrap();
        let toml = toml_source(Some(&dir));
        assert!(toml.errors.is_empty(), "{:?}", toml.errors);
        let client = client_source(
            &json!({"lanes": {"target": "avx2-i32x8", "diagnostics": {"L0201": "off"}}}),
            Some(&dir),
        );
        let s = resolve(&toml, &client);
        assert_eq!((s.target.as_str(), s.width), ("avx2-i32x8", 8));
        assert_eq!(s.severities.len(), 2);
        let o = s.precond_options().unwrap();
        assert_eq!(o.budget.file, 900_000);
        std::fs::write(dir.join("lanes.toml"), "[launch]\nglobalSize = \"big\"\n").unwrap();
        let toml = toml_source(Some(&dir));
        assert_eq!(toml.errors.len(), 1);
        assert!(
            toml.errors[0].ends_with("lanes.toml:2:14: `launch.globalSize` must be 1 to 3 positive integers, not a string"),
            "{:?}",
            toml.errors
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_values_are_reported_and_skipped() {
        let c = client_source(
            &json!({"target": "pdp11", "defines": ["N=4", "DEBUG"], "diagnostics": {"X1": "warning"},
                    "preconditions": {"enabled": false}}),
            Some(Path::new("/r")),
        );
        let s = resolve(&Source::default(), &c);
        assert_eq!(s.target, "host");
        assert_eq!(
            s.defines,
            vec![("N".into(), Some("4".into())), ("DEBUG".into(), None)]
        );
        assert!(s.precond_options().is_none());
        assert_eq!(c.errors.len(), 2, "{:?}", c.errors);
        assert!(c.errors[0].starts_with("editor settings: "));
        let e = target_error(&Source::default(), &c).expect("an unknown target");
        assert!(
            e.starts_with("unknown target `pdp11` in the editor's settings (known: sse4-i32x4, "),
            "{e}"
        );
        let good = client_source(&json!({"lanes": {"target": "sse4-i32x4"}}), None);
        assert_eq!(target_error(&c, &good), None);
        // A list, as `lanes build` takes it, for a multi-target object.
        let list = client_source(&json!({"lanes": {"target": "sse4-i32x4,avx2-i32x8"}}), None);
        assert_eq!(target_error(&c, &list), None);
        let bad = client_source(&json!({"lanes": {"target": "sse4-i32x4,avx9"}}), None);
        let e = target_error(&Source::default(), &bad).expect("a bad list");
        assert!(e.starts_with("unknown target `avx9` in the list"), "{e}");
    }
}
