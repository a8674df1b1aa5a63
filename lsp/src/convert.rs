//! Protocol conversion: byte ranges of the IDE layer to LSP positions
//! (UTF-16) and its plain structs to LSP JSON. Results are built as JSON and
//! then read into the typed protocol structs, which keeps this file close to
//! the protocol's text.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lanes_db::{line_index, File, LanesDatabase, LineIndex};
use lanes_diagnostics::ide::{self, Location, TextRange};
use lanes_frontend::diag::Severity;
use serde_json::{json, Value};
use tower_lsp_server::gen_lsp_types as lsp;

/// A `file://` URI of a path, percent-encoding what is not safe in a path.
pub fn path_to_uri(path: &Path) -> String {
    let s = path.to_string_lossy();
    let mut out = String::from("file://");
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path of a URI: the file of a `file://` URI; other schemes
/// (`untitled:`) get a made-up absolute path that is unique per URI.
pub fn uri_to_path(uri: &str) -> PathBuf {
    if let Some(rest) = uri.strip_prefix("file://") {
        // `file://host/path` is rare; drop a host if there is one.
        let rest = match rest.find('/') {
            Some(i) => &rest[i..],
            None => rest,
        };
        return PathBuf::from(percent_decode(rest));
    }
    PathBuf::from(format!(
        "/lanes-virtual/{}",
        percent_decode(uri).replace(':', "_")
    ))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(v) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .map_err(|_| ())
                .and_then(|h| u8::from_str_radix(h, 16).map_err(|_| ()))
            {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A diagnostic ready to publish: the protocol value, and its JSON text
/// (what a push writes; equal JSON means an equal diagnostic).
#[derive(Debug)]
pub struct Published {
    pub diag: lsp::Diagnostic,
    pub json: Box<[u8]>,
}

impl PartialEq for Published {
    fn eq(&self, other: &Published) -> bool {
        self.json == other.json
    }
}

/// The body of a `textDocument/publishDiagnostics` notification made of
/// the diagnostics' JSON texts: the bytes serde writes for the
/// notification with those diagnostics, without serializing them again.
pub fn publish_body(uri: &lsp::Uri, diags: &[Arc<Published>], version: Option<i32>) -> Vec<u8> {
    let uri = serde_json::to_vec(uri).unwrap_or_default();
    let mut body =
        Vec::with_capacity(diags.iter().map(|d| d.json.len() + 1).sum::<usize>() + uri.len() + 128);
    body.extend_from_slice(
        br#"{"jsonrpc":"2.0","method":"textDocument/publishDiagnostics","params":{"uri":"#,
    );
    body.extend_from_slice(&uri);
    body.extend_from_slice(br#","diagnostics":["#);
    for (i, d) in diags.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(&d.json);
    }
    body.push(b']');
    if let Some(v) = version {
        body.extend_from_slice(format!(r#","version":{v}"#).as_bytes());
    }
    body.extend_from_slice(b"}}");
    body
}

/// The body of a `textDocument/publishDiagnostics` notification, serialized
/// by serde without an intermediate `serde_json::Value`.
pub fn publish_json(
    uri: &lsp::Uri,
    diagnostics: &[lsp::Diagnostic],
    version: Option<i32>,
) -> serde_json::Result<Vec<u8>> {
    #[derive(serde::Serialize)]
    struct Params<'a> {
        uri: &'a lsp::Uri,
        diagnostics: &'a [lsp::Diagnostic],
        #[serde(skip_serializing_if = "Option::is_none")]
        version: Option<i32>,
    }
    #[derive(serde::Serialize)]
    struct Notification<'a> {
        jsonrpc: &'static str,
        method: &'static str,
        params: Params<'a>,
    }
    serde_json::to_vec(&Notification {
        jsonrpc: "2.0",
        method: "textDocument/publishDiagnostics",
        params: Params {
            uri,
            diagnostics,
            version,
        },
    })
}

/// Positions of one file of a snapshot, and the places of other files.
pub struct Conv<'a> {
    pub db: &'a LanesDatabase,
    pub file: File,
    /// The file's path (read once: compared for every related location).
    path: PathBuf,
    pub uri: String,
    pub li: Arc<LineIndex>,
    /// Where the diagnostics catalogue is (codeDescription links; none
    /// without one).
    pub docs: Option<&'a str>,
}

impl<'a> Conv<'a> {
    pub fn new(db: &'a LanesDatabase, file: File, uri: String, docs: Option<&'a str>) -> Conv<'a> {
        let li = line_index(db, file).clone();
        Conv {
            db,
            file,
            path: file.path(db).clone(),
            uri,
            li,
            docs,
        }
    }

    pub fn offset(&self, p: &Value) -> u32 {
        let line = p.get("line").and_then(Value::as_u64).unwrap_or(0) as u32;
        let col = p.get("character").and_then(Value::as_u64).unwrap_or(0) as u32;
        self.li.offset(line, col)
    }

    pub fn text_range(&self, r: &Value) -> TextRange {
        TextRange::new(
            self.offset(r.get("start").unwrap_or(&Value::Null)),
            self.offset(r.get("end").unwrap_or(&Value::Null)),
        )
    }

    pub fn pos(&self, offset: u32) -> Value {
        pos(&self.li, offset)
    }

    pub fn range(&self, r: TextRange) -> Value {
        range(&self.li, r)
    }

    /// A location in this file or another one (a header).
    pub fn location(&self, loc: &Location) -> Value {
        use lanes_db::Db;
        if loc.path == self.path {
            return json!({"uri": self.uri, "range": self.range(loc.range)});
        }
        let r = match self.db.file(&loc.path) {
            Some(f) => range(line_index(self.db, f), loc.range),
            None => {
                json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}})
            }
        };
        json!({"uri": path_to_uri(&loc.path), "range": r})
    }

    pub fn diagnostic(&self, d: &ide::diagnostics::Diag) -> Value {
        let severity = match d.severity {
            Severity::Error => 1,
            Severity::Warning => 2,
            Severity::Info => 3,
            Severity::Hint => 4,
        };
        let related: Vec<Value> = d
            .related
            .iter()
            .map(|r| json!({"location": self.location(&r.location), "message": r.message}))
            .collect();
        let mut v = json!({
            "range": self.range(d.range),
            "severity": severity,
            "code": d.code.as_str(),
            "source": "lanes",
            "message": d.full_message(),
        });
        if let Some(href) = self.catalogue_link(d) {
            v["codeDescription"] = json!({ "href": href });
        }
        if !related.is_empty() {
            v["relatedInformation"] = Value::Array(related);
        }
        v
    }

    /// The typed protocol diagnostic (built directly, not through JSON:
    /// a file can have hundreds, each with its reason chain, and this is on
    /// the path from a keystroke to the new diagnostics).
    pub fn lsp_diagnostic(&self, d: &ide::diagnostics::Diag) -> lsp::Diagnostic {
        let severity = match d.severity {
            Severity::Error => lsp::DiagnosticSeverity::Error,
            Severity::Warning => lsp::DiagnosticSeverity::Warning,
            Severity::Info => lsp::DiagnosticSeverity::Information,
            Severity::Hint => lsp::DiagnosticSeverity::Hint,
        };
        let related: Vec<lsp::DiagnosticRelatedInformation> = d
            .related
            .iter()
            .map(|r| lsp::DiagnosticRelatedInformation {
                location: self.lsp_location(&r.location),
                message: r.message.clone(),
            })
            .collect();
        lsp::Diagnostic {
            range: lsp_range(&self.li, d.range),
            severity: Some(severity),
            code: Some(lsp::Code::String(d.code.as_str().to_string())),
            code_description: self.catalogue_link(d).map(|href| lsp::CodeDescription {
                href: lsp::Uri::from(href),
            }),
            source: Some("lanes".to_string()),
            message: lsp::Message::String(d.full_message()),
            tags: None,
            related_information: (!related.is_empty()).then_some(related),
            data: None,
        }
    }

    /// The protocol diagnostic and its JSON, as published (kept per kernel
    /// and reused while the kernel's diagnostics do not change:
    /// [`ide::diagnostics::diagnostics_reusing`]).
    pub fn published(&self, d: &ide::diagnostics::Diag) -> Arc<Published> {
        let diag = self.lsp_diagnostic(d);
        let json = serde_json::to_vec(&diag)
            .unwrap_or_default()
            .into_boxed_slice();
        Arc::new(Published { diag, json })
    }

    /// [`Conv::published`] of the diagnostic `p` was made from, with its
    /// places moved by `s` (text typed or deleted before them): the lines
    /// of the protocol value and of its JSON text move, nothing is
    /// serialized again. Every place of `p` is in this document.
    pub fn shifted(&self, p: &Published, s: &ide::diagnostics::Shift) -> Arc<Published> {
        let mut diag = p.diag.clone();
        map_lines(&mut diag, &|l| s.line(l));
        let json = shift_lines(&p.json, &|l| s.line(l)).into_boxed_slice();
        Arc::new(Published { diag, json })
    }

    /// What [`Conv::published`] reads besides the diagnostic and its
    /// positions: the document and the catalogue.
    pub fn rendering_context(&self) -> String {
        format!("{}\n{}", self.uri, self.docs.unwrap_or(""))
    }

    /// The code's entry in the catalogue (its heading's anchor).
    fn catalogue_link(&self, d: &ide::diagnostics::Diag) -> Option<String> {
        let anchor = d.code.as_str().to_ascii_lowercase();
        self.docs.map(|docs| format!("{docs}#{anchor}"))
    }

    fn lsp_location(&self, loc: &Location) -> lsp::Location {
        use lanes_db::Db;
        if loc.path == self.path {
            return lsp::Location {
                uri: lsp::Uri::from(self.uri.as_str()),
                range: lsp_range(&self.li, loc.range),
            };
        }
        let range = match self.db.file(&loc.path) {
            Some(f) => lsp_range(line_index(self.db, f), loc.range),
            None => lsp_range(&LineIndex::new(Arc::from("")), TextRange::empty(0)),
        };
        lsp::Location {
            uri: lsp::Uri::from(path_to_uri(&loc.path)),
            range,
        }
    }

    pub fn edits(&self, edits: &[ide::TextEdit]) -> Value {
        Value::Array(
            edits
                .iter()
                .map(|e| json!({"range": self.range(e.range), "newText": e.new_text}))
                .collect(),
        )
    }
}

/// Maps the lines of a diagnostic's places by `f`.
fn map_lines(diag: &mut lsp::Diagnostic, f: &dyn Fn(u32) -> u32) {
    let range = |r: &mut lsp::Range| {
        r.start.line = f(r.start.line);
        r.end.line = f(r.end.line);
    };
    range(&mut diag.range);
    for r in diag.related_information.iter_mut().flatten() {
        range(&mut r.location.range);
    }
}

/// A diagnostic's JSON text with the value of every `"line"` key mapped
/// by `f`. In JSON text a `"` inside a string is always escaped, so
/// `"line":` outside a string is a key (of a position: the diagnostic's
/// range and its related places' ranges), and never inside one.
fn shift_lines(json: &[u8], f: &dyn Fn(u32) -> u32) -> Vec<u8> {
    const KEY: &[u8] = br#""line":"#;
    let mut out = Vec::with_capacity(json.len() + 8);
    let mut i = 0;
    while let Some(k) = json[i..].windows(KEY.len()).position(|w| w == KEY) {
        let at = i + k + KEY.len();
        let digits = json[at..].iter().take_while(|c| c.is_ascii_digit()).count();
        out.extend_from_slice(&json[i..at]);
        let line: u32 = std::str::from_utf8(&json[at..at + digits])
            .ok()
            .and_then(|d| d.parse().ok())
            .unwrap_or(0);
        out.extend_from_slice(f(line).to_string().as_bytes());
        i = at + digits;
    }
    out.extend_from_slice(&json[i..]);
    out
}

fn lsp_range(li: &LineIndex, r: TextRange) -> lsp::Range {
    let p = |o| {
        let (line, character) = li.position(o);
        lsp::Position { line, character }
    };
    lsp::Range {
        start: p(r.start),
        end: p(r.end),
    }
}

pub fn pos(li: &LineIndex, offset: u32) -> Value {
    let (line, character) = li.position(offset);
    json!({"line": line, "character": character})
}

pub fn range(li: &LineIndex, r: TextRange) -> Value {
    json!({"start": pos(li, r.start), "end": pos(li, r.end)})
}

/// Semantic tokens, relative-encoded (line delta, start delta, length in
/// UTF-16 units, type, modifiers).
pub fn semantic_tokens(c: &Conv<'_>, tokens: &[ide::semantic::SemanticToken]) -> Value {
    let mut data = Vec::with_capacity(tokens.len() * 5);
    let (mut last_line, mut last_col) = (0u32, 0u32);
    for t in tokens {
        let (line, col) = c.li.position(t.range.start);
        let (eline, ecol) = c.li.position(t.range.end);
        // Tokens never span lines; a defensive skip if one did.
        if eline != line || ecol <= col {
            continue;
        }
        let dl = line - last_line;
        let dc = if dl == 0 { col - last_col } else { col };
        data.extend([dl, dc, ecol - col, t.token_type as u32, t.modifiers]);
        last_line = line;
        last_col = col;
    }
    json!({ "data": data })
}

pub fn symbol(c: &Conv<'_>, s: &ide::symbols::DocumentSymbol) -> Value {
    use ide::symbols::SymbolKind as K;
    let kind = match s.kind {
        K::Kernel | K::Function => 12,
        K::Struct => 23,
        K::Field => 8,
        K::Constant => 14,
    };
    let mut v = json!({
        "name": s.name,
        "detail": s.detail,
        "kind": kind,
        "range": c.range(s.range),
        "selectionRange": c.range(s.selection_range),
    });
    if !s.children.is_empty() {
        v["children"] = Value::Array(s.children.iter().map(|ch| symbol(c, ch)).collect());
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The joined body is what serde writes for the whole notification.
    #[test]
    fn publish_body_is_the_serialized_notification() {
        let at = |l| lsp::Position {
            line: l,
            character: 2,
        };
        let diag = |l, m: &str| lsp::Diagnostic {
            range: lsp::Range {
                start: at(l),
                end: at(l + 1),
            },
            severity: Some(lsp::DiagnosticSeverity::Warning),
            code: Some(lsp::Code::String("L0202".into())),
            message: lsp::Message::String(m.into()),
            source: Some("lanes".into()),
            ..Default::default()
        };
        let uri = lsp::Uri::from("file:///tmp/a%20b.cl");
        for n in 0..3 {
            let diags: Vec<lsp::Diagnostic> = (0..n).map(|i| diag(i, "a \"gather\"\n")).collect();
            let published: Vec<Arc<Published>> = diags
                .iter()
                .map(|d| {
                    Arc::new(Published {
                        diag: d.clone(),
                        json: serde_json::to_vec(d).unwrap().into_boxed_slice(),
                    })
                })
                .collect();
            for version in [None, Some(7), Some(-1)] {
                let whole = publish_json(&uri, &diags, version).unwrap();
                assert_eq!(
                    String::from_utf8(publish_body(&uri, &published, version)).unwrap(),
                    String::from_utf8(whole).unwrap()
                );
            }
        }
    }

    /// Moving the lines of a diagnostic's JSON text gives what serde
    /// writes for the diagnostic with its lines moved, whatever its
    /// messages hold.
    #[test]
    fn shifted_json_is_the_serialized_shifted_diagnostic() {
        let range = |a, b| lsp::Range {
            start: lsp::Position {
                line: a,
                character: 3,
            },
            end: lsp::Position {
                line: b,
                character: 0,
            },
        };
        let related = |l, m: &str| lsp::DiagnosticRelatedInformation {
            location: lsp::Location {
                uri: lsp::Uri::from("file:///tmp/line.cl"),
                range: range(l, l + 2),
            },
            message: m.into(),
        };
        let tricky = r#"{"line":7} "line": \"line\":9 line:"#;
        let diag = lsp::Diagnostic {
            range: range(4, 12),
            severity: Some(lsp::DiagnosticSeverity::Information),
            code: Some(lsp::Code::String("L0300".into())),
            message: lsp::Message::String(format!("{tricky}\nnote: line 4")),
            source: Some("lanes".into()),
            related_information: Some(vec![related(1, tricky), related(40, "\"line\":")]),
            ..Default::default()
        };
        let json = serde_json::to_vec(&diag).unwrap();
        let f = |l: u32| if l > 3 { l + 1000 } else { l };
        let mut moved = diag.clone();
        map_lines(&mut moved, &f);
        assert_eq!(moved.range, range(1004, 1012));
        assert_eq!(
            String::from_utf8(shift_lines(&json, &f)).unwrap(),
            String::from_utf8(serde_json::to_vec(&moved).unwrap()).unwrap()
        );
    }

    #[test]
    fn uri_round_trip() {
        let p = Path::new("/tmp/a b/c%d.cl");
        let u = path_to_uri(p);
        assert_eq!(u, "file:///tmp/a%20b/c%25d.cl");
        assert_eq!(uri_to_path(&u), p);
        assert_eq!(uri_to_path("file:///x/y.cl"), Path::new("/x/y.cl"));
        assert!(uri_to_path("untitled:Untitled-1").is_absolute());
    }
}
