//! Document edits (`textDocument/didChange`): checked, then applied to the
//! document's rope, all changes of a notification or none.
//!
//! A change whose range is not a position of the document (a line past the
//! last one, a start after the end) is never applied: the whole
//! notification is ignored and the document kept as it was, with a log
//! message (the editor's copy and the server's may differ from then on; a
//! guess would make them differ silently). A character past the end of its
//! line means the end of the line, as the protocol says. A range that is
//! not a range at all (negative numbers, numbers of 2^32 or more) is caught
//! before the typed protocol layer reads the message ([`malformed`]): that
//! layer would read such a change as a whole-document replacement.

use ropey::Rope;
use serde_json::Value;
use tower_lsp_server::gen_lsp_types::{Position, TextDocumentContentChangeEvent};

/// Why the params of a didChange notification are not what the protocol
/// says about `contentChanges`, if they are not.
pub fn malformed(params: Option<&Value>) -> Option<String> {
    let Some(changes) = params.and_then(|p| p.get("contentChanges")) else {
        return Some("no `contentChanges`".into());
    };
    let Some(changes) = changes.as_array() else {
        return Some("`contentChanges` is not an array".into());
    };
    for (i, ch) in changes.iter().enumerate() {
        let at = format!("contentChanges[{i}]");
        if !ch.get("text").is_some_and(Value::is_string) {
            return Some(format!("`{at}.text` is not a string"));
        }
        let Some(range) = ch.get("range") else {
            continue;
        };
        for end in ["start", "end"] {
            for field in ["line", "character"] {
                let v = range.get(end).and_then(|p| p.get(field));
                if v.and_then(Value::as_u64)
                    .is_none_or(|n| n > u32::MAX as u64)
                {
                    let shown = v.map_or("missing".to_string(), Value::to_string);
                    return Some(format!(
                        "`{at}.range.{end}.{field}` is {shown}, not a position (an integer from 0 to 2^32-1)"
                    ));
                }
            }
        }
    }
    None
}

/// The document after `changes`, or why they cannot be applied.
pub fn apply(rope: &Rope, changes: &[TextDocumentContentChangeEvent]) -> Result<Rope, String> {
    let mut rope = rope.clone();
    for (i, change) in changes.iter().enumerate() {
        match change {
            TextDocumentContentChangeEvent::TextDocumentContentChangeWholeDocument(w) => {
                rope = Rope::from_str(&w.text);
            }
            TextDocumentContentChangeEvent::TextDocumentContentChangePartial(p) => {
                let at = |p: &Position, which: &str| {
                    char_index(&rope, p).ok_or_else(|| {
                        format!(
                            "contentChanges[{i}].range.{which} is line {}, past the last line ({}) of the document",
                            p.line,
                            rope.len_lines() - 1
                        )
                    })
                };
                let a = at(&p.range.start, "start")?;
                let b = at(&p.range.end, "end")?;
                if b < a {
                    return Err(format!(
                        "contentChanges[{i}].range starts ({}:{}) after it ends ({}:{})",
                        p.range.start.line,
                        p.range.start.character,
                        p.range.end.line,
                        p.range.end.character
                    ));
                }
                rope.remove(a..b);
                rope.insert(a, &p.text);
            }
        }
    }
    Ok(rope)
}

/// The char index of a UTF-16 position; a character past the line's end is
/// the line's end; `None` for a line past the last.
fn char_index(rope: &Rope, p: &Position) -> Option<usize> {
    let line = p.line as usize;
    if line >= rope.len_lines() {
        return None;
    }
    let start = rope.line_to_char(line);
    let line_slice = rope.line(line);
    // The line's length without its terminator, in UTF-16 units.
    let mut len = line_slice.len_chars();
    while len > 0 && matches!(line_slice.char(len - 1), '\n' | '\r') {
        len -= 1;
    }
    let units = line_slice.char_to_utf16_cu(len);
    let col = (p.character as usize).min(units);
    Some(start + line_slice.utf16_cu_to_char(col))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn partial(sl: u32, sc: u32, el: u32, ec: u32, text: &str) -> TextDocumentContentChangeEvent {
        serde_json::from_value(json!({
            "range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}},
            "text": text,
        }))
        .unwrap()
    }

    #[test]
    fn edits_apply_in_order_with_utf16_columns() {
        let rope = Rope::from_str("a\u{1F600}b\nsecond\n");
        let out = apply(
            &rope,
            &[
                partial(0, 3, 0, 4, "B"),
                partial(1, 0, 1, 99, "2nd"),
                partial(2, 0, 2, 0, "end"),
            ],
        )
        .unwrap();
        assert_eq!(out.to_string(), "a\u{1F600}B\n2nd\nend");
    }

    #[test]
    fn invalid_ranges_apply_nothing() {
        let rope = Rope::from_str("one\ntwo\n");
        let past = apply(&rope, &[partial(0, 0, 0, 1, "O"), partial(5, 0, 5, 0, "x")]);
        assert!(past.unwrap_err().contains("line 5, past the last line (2)"));
        let reversed = apply(&rope, &[partial(1, 2, 0, 1, "x")]);
        assert!(reversed
            .unwrap_err()
            .contains("starts (1:2) after it ends (0:1)"));
        assert_eq!(rope.to_string(), "one\ntwo\n");
    }

    #[test]
    fn only_newlines_end_lines() {
        // Form feeds and Unicode line separators are not line ends in the
        // protocol (nor in the analyses' line index).
        let rope = Rope::from_str("a\u{c}b\u{2028}c\nd");
        let out = apply(&rope, &[partial(1, 0, 1, 1, "D")]).unwrap();
        assert_eq!(out.to_string(), "a\u{c}b\u{2028}c\nD");
    }

    #[test]
    fn malformed_ranges_are_named() {
        let change = |range: Value| json!({"contentChanges": [{"range": range, "text": "x"}]});
        let pos = |l: Value, c: Value| json!({"line": l, "character": c});
        let ok = json!({"start": pos(json!(0), json!(0)), "end": pos(json!(1), json!(2))});
        assert_eq!(malformed(Some(&change(ok))), None);
        for (range, what) in [
            (
                json!({"start": pos(json!(-1), json!(0)), "end": pos(json!(0), json!(0))}),
                "start.line` is -1",
            ),
            (
                json!({"start": pos(json!(0), json!(0)), "end": pos(json!(0), json!(4294967296u64))}),
                "end.character` is 4294967296",
            ),
            (
                json!({"start": pos(json!(0), json!(0.5)), "end": pos(json!(0), json!(0))}),
                "start.character` is 0.5",
            ),
            (
                json!({"start": pos(json!(0), json!(0))}),
                "end.line` is missing",
            ),
            (json!("x"), "start.line` is missing"),
        ] {
            let why = malformed(Some(&change(range))).expect("malformed");
            assert!(why.contains(what), "{why}");
        }
        assert!(malformed(Some(&json!({"contentChanges": [{"text": 3}]}))).is_some());
        assert!(malformed(None).is_some());
    }
}
