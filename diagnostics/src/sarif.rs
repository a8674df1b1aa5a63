//! `lanes check --format sarif`: SARIF 2.1.0 for code-scanning UIs.
//!
//! Hand-written serde structs for the part of the standard lanes fills in
//! (DESIGN.md §9). Results point at files relative to the directory `lanes`
//! ran in (`%SRCROOT%`), which is what code-scanning services expect.

use std::path::Path;

use lanes_frontend::diag::{Code, Diagnostic, Severity};
use lanes_frontend::source::{SourceMap, Span};
use serde::Serialize;

#[derive(Serialize)]
pub struct Log {
    #[serde(rename = "$schema")]
    pub schema: &'static str,
    pub version: &'static str,
    pub runs: Vec<Run>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub tool: Tool,
    pub column_kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub original_uri_base_ids: Option<serde_json::Value>,
    pub artifacts: Vec<Artifact>,
    pub results: Vec<SarifResult>,
}

#[derive(Serialize)]
pub struct Tool {
    pub driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Driver {
    pub name: &'static str,
    pub semantic_version: &'static str,
    pub rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    pub id: &'static str,
    pub name: String,
    pub short_description: Message,
    pub help: Message,
    pub default_configuration: Configuration,
}

#[derive(Serialize)]
pub struct Configuration {
    pub level: &'static str,
}

#[derive(Serialize)]
pub struct Message {
    pub text: String,
}

#[derive(Serialize)]
pub struct Artifact {
    pub location: ArtifactLocation,
}

#[derive(Serialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactLocation {
    pub uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SarifResult {
    pub rule_id: &'static str,
    pub rule_index: usize,
    pub level: &'static str,
    pub message: Message,
    pub locations: Vec<Location>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related_locations: Vec<Location>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Location {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<usize>,
    pub physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PhysicalLocation {
    pub artifact_location: ArtifactLocation,
    pub region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Region {
    pub start_line: u32,
    pub start_column: u32,
    pub end_line: u32,
    pub end_column: u32,
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info | Severity::Hint => "note",
    }
}

/// Percent-encodes a path for a URI reference (RFC 3986 unreserved characters
/// and `/` stay as they are).
fn encode_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// The artifact location of a file: relative to `root` when it lies below it,
/// otherwise an absolute `file://` URI.
fn artifact(sources: &SourceMap, span: Span, root: &Path) -> ArtifactLocation {
    let f = sources.get(span.file);
    let path = f.path.clone().unwrap_or_else(|| f.name.clone().into());
    let abs = if path.is_absolute() {
        path.clone()
    } else {
        root.join(&path)
    };
    match abs.strip_prefix(root) {
        Ok(rel) => ArtifactLocation {
            uri: encode_path(&rel.to_string_lossy()),
            uri_base_id: Some("SRCROOT"),
        },
        Err(_) => ArtifactLocation {
            uri: format!("file://{}", encode_path(&abs.to_string_lossy())),
            uri_base_id: None,
        },
    }
}

fn region(sources: &SourceMap, span: Span) -> Region {
    let p = crate::position(sources, span);
    // SARIF regions may not be empty at the end of a line in some viewers;
    // an empty span (e.g. a missing `;`) is widened to one column.
    let end_column = if p.end_line == p.line && p.end_col <= p.col {
        p.col + 1
    } else {
        p.end_col
    };
    Region {
        start_line: p.line,
        start_column: p.col,
        end_line: p.end_line,
        end_column,
    }
}

/// Builds the SARIF log for several checked files; `root` is the directory
/// relative paths are resolved against (the current directory).
pub fn log<'a>(
    units: impl IntoIterator<Item = (&'a SourceMap, &'a [Diagnostic])>,
    root: &Path,
) -> Log {
    let mut used: Vec<Code> = Vec::new();
    let mut results = Vec::new();
    let mut artifacts: Vec<String> = Vec::new();
    let mut artifact_list = Vec::new();
    for (sources, diags) in units {
        for d in crate::sorted(diags) {
            let rule_index = match used.iter().position(|&c| c == d.code) {
                Some(i) => i,
                None => {
                    used.push(d.code);
                    used.len() - 1
                }
            };
            let location = artifact(sources, d.span, root);
            if !artifacts.contains(&location.uri) {
                artifacts.push(location.uri.clone());
                artifact_list.push(Artifact {
                    location: location.clone(),
                });
            }
            let mut text = d.message.clone();
            if !d.label.is_empty() {
                text.push_str(&format!(" ({})", d.label));
            }
            for n in &d.notes {
                text.push_str("\nnote: ");
                text.push_str(n);
            }
            results.push(SarifResult {
                rule_id: d.code.as_str(),
                rule_index,
                level: level(d.severity),
                message: Message { text },
                locations: vec![Location {
                    id: None,
                    physical_location: PhysicalLocation {
                        artifact_location: location,
                        region: region(sources, d.span),
                    },
                    message: None,
                }],
                related_locations: d
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, r)| Location {
                        id: Some(i),
                        physical_location: PhysicalLocation {
                            artifact_location: artifact(sources, r.span, root),
                            region: region(sources, r.span),
                        },
                        message: Some(Message {
                            text: r.message.clone(),
                        }),
                    })
                    .collect(),
            });
        }
    }
    let rules = used
        .iter()
        .map(|&c| Rule {
            id: c.as_str(),
            name: format!("{c:?}"),
            short_description: Message {
                text: c.title().to_string(),
            },
            help: Message {
                text: format!(
                    "See the entry {} in docs/diagnostics.md of the lanes documentation.",
                    c.as_str()
                ),
            },
            default_configuration: Configuration {
                level: level(c.default_severity()),
            },
        })
        .collect();
    let root_uri = format!(
        "file://{}/",
        encode_path(root.to_string_lossy().trim_end_matches('/'))
    );
    Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "lanes",
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    rules,
                },
            },
            column_kind: "unicodeCodePoints",
            original_uri_base_ids: Some(serde_json::json!({ "SRCROOT": { "uri": root_uri } })),
            artifacts: artifact_list,
            results,
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lanes_frontend::source::SourceFile;

    #[test]
    fn relative_uris_and_rules() {
        let mut sm = SourceMap::new();
        let f = sm.add(SourceFile::new(
            "k.cl",
            Some("/proj/src/my k.cl".into()),
            "int x\n",
        ));
        let d = Diagnostic::new(
            Code::Syntax,
            Span::new(f, 5, 5),
            "expected `;` after declaration",
        );
        let log = log([(&sm, &[d][..])], Path::new("/proj"));
        let v = serde_json::to_value(&log).unwrap();
        let r = &v["runs"][0]["results"][0];
        assert_eq!(r["ruleId"], "L0001");
        assert_eq!(r["level"], "error");
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uri"], "src/my%20k.cl");
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "SRCROOT");
        assert_eq!(loc["region"]["startLine"], 1);
        assert_eq!(loc["region"]["startColumn"], 6);
        assert_eq!(loc["region"]["endColumn"], 7);
        assert_eq!(v["runs"][0]["tool"]["driver"]["rules"][0]["id"], "L0001");
    }
}
