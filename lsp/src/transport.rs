//! stdin/stdout in front of tower-lsp-server, so that no input stops the
//! server: tower-lsp-server's reader stops at the first message it cannot
//! decode, and takes some malformed messages (`{}`) for responses.
//!
//! - A thread reads stdin through [`Framer`] and checks each message
//!   ([`check`]): a valid one is forwarded to the service through an
//!   in-memory pipe; an invalid one is answered here with the JSON-RPC
//!   error (-32700 parse error, -32600 invalid request); skipped input and
//!   ignored messages are logged (`window/logMessage`).
//! - Everything the service writes goes through one writer task, frame by
//!   frame, with the answers given here: one writer, no interleaving.
//!
//! JSON-RPC batches (arrays) are not part of LSP: a batch is answered with
//! one invalid-request error.

use std::io::Read;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc;
use tower_lsp_server::jsonrpc::{Request, Response};

use crate::framing::{frame, Frame, Framer};

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

/// What to do with one message.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Valid: to the service.
    Forward,
    /// Invalid: this error response, sent back.
    Reply(Value),
    /// A notification the service would misread: dropped, with why.
    Ignore(String),
}

/// Checks one body against JSON-RPC 2.0 (LSP's subset: integer or string
/// ids, no batches) and what the service decodes.
pub fn check(body: &[u8]) -> Verdict {
    let v: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Reply(error(Value::Null, PARSE_ERROR, format!("parse error: {e}")))
        }
    };
    let invalid = |id: &Value, why: String| Verdict::Reply(error(id.clone(), INVALID_REQUEST, why));
    let Value::Object(o) = &v else {
        let why = match v {
            Value::Array(_) => {
                "a JSON array (batch) is not a message of the language server protocol"
            }
            _ => "a message is a JSON object",
        };
        return invalid(&Value::Null, why.into());
    };
    let id = o.get("id");
    let id_ok = |id: &Value| id.is_string() || id.as_i64().is_some();
    // The id to answer with: the message's if it is one.
    let reply_id = id.filter(|i| id_ok(i)).cloned().unwrap_or(Value::Null);
    if o.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(&reply_id, "`jsonrpc` must be \"2.0\"".into());
    }
    if let Some(method) = o.get("method") {
        let Some(method) = method.as_str() else {
            return invalid(&reply_id, "`method` must be a string".into());
        };
        if id.is_some_and(|i| !id_ok(i)) {
            return invalid(&Value::Null, "`id` must be an integer or a string".into());
        }
        if o.contains_key("result") || o.contains_key("error") {
            return invalid(&reply_id, "a request has no `result` or `error`".into());
        }
        // `null` as well: clients send it for requests without parameters.
        if o.get("params")
            .is_some_and(|p| !p.is_object() && !p.is_array() && !p.is_null())
        {
            return invalid(&reply_id, "`params` must be an object or an array".into());
        }
        if serde_json::from_value::<Request>(v.clone()).is_err() {
            return invalid(&reply_id, "not a request".into());
        }
        if method == "textDocument/didChange" && id.is_none() {
            if let Some(why) = crate::changes::malformed(o.get("params")) {
                return Verdict::Ignore(format!("textDocument/didChange ignored: {why}"));
            }
        }
        return Verdict::Forward;
    }
    // A response to a request of the server.
    let shape_ok = id.is_some_and(|i| id_ok(i) || i.is_null())
        && (o.contains_key("result") != o.contains_key("error"))
        && o.get("error").is_none_or(|e| {
            e.get("code").and_then(Value::as_i64).is_some()
                && e.get("message").is_some_and(Value::is_string)
        });
    if !shape_ok || serde_json::from_value::<Response>(v.clone()).is_err() {
        return invalid(
            &Value::Null,
            "neither a request (no `method`) nor a response (`id` and one of `result`, `error`)"
                .into(),
        );
    }
    Verdict::Forward
}

fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// A `window/logMessage` warning.
fn log(message: String) -> Value {
    json!({"jsonrpc": "2.0", "method": "window/logMessage",
           "params": {"type": 2, "message": format!("lanes: {message}")}})
}

fn framed(v: &Value) -> Vec<u8> {
    frame(v.to_string().as_bytes())
}

/// The tasks that connect the service's pipes to the process's stdin and
/// stdout.
pub struct Pipes {
    forward: tokio::task::JoinHandle<()>,
    relay: tokio::task::JoinHandle<()>,
    writer: tokio::task::JoinHandle<()>,
    out: mpsc::Sender<Option<Vec<u8>>>,
}

const PIPE: usize = 1 << 16;

/// The service's input and output (tower-lsp-server's stdin and stdout),
/// connected to the process's. Run the service on them, then
/// [`Pipes::finish`].
pub fn stdio() -> (DuplexStream, DuplexStream, Pipes) {
    let (out, out_rx) = mpsc::channel::<Option<Vec<u8>>>(256);
    let writer = tokio::spawn(write_stdout(out_rx));
    let (to_service, service_in) = tokio::io::duplex(PIPE);
    let (service_out, from_service) = tokio::io::duplex(PIPE);
    let (bodies, bodies_rx) = mpsc::channel::<Vec<u8>>(64);
    let replies = out.clone();
    // A thread, not tokio's stdin: a blocked read of tokio's would hold up
    // the runtime's shutdown after `exit`.
    let spawned = std::thread::Builder::new()
        .name("lanes-stdin".into())
        .spawn(move || read_stdin(bodies, replies));
    if let Err(e) = spawned {
        eprintln!("lanes lsp: cannot start the input thread: {e}");
    }
    let pipes = Pipes {
        forward: tokio::spawn(forward(bodies_rx, to_service)),
        relay: tokio::spawn(relay(from_service, out.clone())),
        writer,
        out,
    };
    (service_in, service_out, pipes)
}

/// A writer of whole messages to stdout, for bodies the server serializes
/// itself.
#[derive(Clone)]
pub struct Out(mpsc::Sender<Option<Vec<u8>>>);

impl Out {
    /// Writes one message body, framed; dropped once stdout is closed.
    pub async fn send(&self, body: Vec<u8>) {
        let _ = self.0.send(Some(frame(&body))).await;
    }
}

impl Pipes {
    pub fn out(&self) -> Out {
        Out(self.out.clone())
    }

    /// After the service stopped: writes what it wrote, then stops.
    pub async fn finish(self) {
        self.forward.abort();
        let _ = self.relay.await;
        let _ = self.out.send(None).await;
        let _ = self.writer.await;
    }
}

fn read_stdin(bodies: mpsc::Sender<Vec<u8>>, replies: mpsc::Sender<Option<Vec<u8>>>) {
    let mut framer = Framer::default();
    let mut stdin = std::io::stdin().lock();
    let mut buf = vec![0u8; 1 << 16];
    let reply = |v: Value| replies.blocking_send(Some(framed(&v))).is_ok();
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("lanes lsp: cannot read the input: {e}");
                break;
            }
        };
        framer.push(&buf[..n]);
        while let Some(f) = framer.next_frame() {
            let ok = match f {
                Frame::Body(body) => match check(&body) {
                    Verdict::Forward => bodies.blocking_send(body).is_ok(),
                    Verdict::Reply(e) => reply(e),
                    Verdict::Ignore(why) => reply(log(why)),
                },
                Frame::Truncated { declared, body } => reply(error(
                    Value::Null,
                    PARSE_ERROR,
                    format!(
                        "parse error: a message of {declared} bytes ended after {} bytes, where the next header starts",
                        body.len()
                    ),
                )),
                Frame::Skipped { bytes, reason } => {
                    reply(log(format!("skipped {bytes} bytes of input: {reason}")))
                }
            };
            if !ok {
                // The server stopped.
                return;
            }
        }
    }
    if let Some(Frame::Skipped { bytes, reason }) = framer.finish() {
        eprintln!("lanes lsp: skipped {bytes} bytes of input: {reason}");
    }
}

/// Checked bodies to the service, framed.
async fn forward(mut bodies: mpsc::Receiver<Vec<u8>>, mut to: DuplexStream) {
    while let Some(body) = bodies.recv().await {
        if to.write_all(&frame(&body)).await.is_err() {
            return;
        }
    }
    // End of input: the service sees it and stops.
    let _ = to.shutdown().await;
}

/// The service's output, frame by frame, to the writer.
async fn relay(mut from: DuplexStream, out: mpsc::Sender<Option<Vec<u8>>>) {
    let mut framer = Framer::default();
    let mut buf = vec![0u8; PIPE];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        framer.push(&buf[..n]);
        while let Some(f) = framer.next_frame() {
            // The service writes only well-framed JSON.
            if let Frame::Body(body) = f {
                if out.send(Some(frame(&body))).await.is_err() {
                    return;
                }
            }
        }
    }
}

async fn write_stdout(mut frames: mpsc::Receiver<Option<Vec<u8>>>) {
    let mut stdout = tokio::io::stdout();
    while let Some(Some(bytes)) = frames.recv().await {
        if stdout.write_all(&bytes).await.is_err() || stdout.flush().await.is_err() {
            return;
        }
    }
    let _ = stdout.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(v: Verdict) -> (Value, i64) {
        match v {
            Verdict::Reply(e) => (e["id"].clone(), e["error"]["code"].as_i64().unwrap()),
            other => panic!("not an error: {other:?}"),
        }
    }

    #[test]
    fn invalid_messages_get_the_json_rpc_errors() {
        assert_eq!(code(check(b"{")), (Value::Null, PARSE_ERROR));
        assert_eq!(code(check(b"\xff")), (Value::Null, PARSE_ERROR));
        for body in [
            &b"[1,2,3]"[..],
            b"[]",
            b"\"hello\"",
            b"42",
            b"null",
            b"{}",
            br#"{"id":1,"method":"shutdown"}"#,
            br#"{"jsonrpc":"1.0","id":1,"method":"shutdown"}"#,
            br#"{"jsonrpc":"2.0","id":1.5,"method":"shutdown"}"#,
            br#"{"jsonrpc":"2.0","id":{},"method":"shutdown"}"#,
            br#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"shutdown"}"#,
            br#"{"jsonrpc":"2.0","method":7}"#,
            br#"{"jsonrpc":"2.0","method":"initialized","params":"x"}"#,
            br#"{"jsonrpc":"2.0","id":3,"method":"x","result":1}"#,
            br#"{"jsonrpc":"2.0","id":3}"#,
            br#"{"jsonrpc":"2.0","id":3,"result":1,"error":{"code":1,"message":"m"}}"#,
            br#"{"jsonrpc":"2.0","id":3,"error":{"code":"x"}}"#,
        ] {
            let (_, c) = code(check(body));
            assert_eq!(c, INVALID_REQUEST, "{}", String::from_utf8_lossy(body));
        }
        // The id is echoed when it is one.
        let (id, _) = code(check(br#"{"jsonrpc":"1.0","id":"a","method":"x"}"#));
        assert_eq!(id, json!("a"));
    }

    #[test]
    fn valid_messages_are_forwarded() {
        for body in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"shutdown"}"#[..],
            br#"{"jsonrpc":"2.0","id":"x","method":"a/b","params":[1]}"#,
            br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
            br#"{"jsonrpc":"2.0","method":"exit","params":null}"#,
            br#"{"jsonrpc":"2.0","id":4,"result":null}"#,
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"m"}}"#,
        ] {
            assert_eq!(
                check(body),
                Verdict::Forward,
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn a_change_with_a_malformed_range_is_ignored() {
        let body = json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": "file:///a.cl", "version": 2},
            "contentChanges": [{"range": {"start": {"line": -1, "character": 0},
                                          "end": {"line": 0, "character": 0}}, "text": "x"}]}});
        let Verdict::Ignore(why) = check(body.to_string().as_bytes()) else {
            panic!("forwarded");
        };
        assert!(why.contains("contentChanges[0].range.start.line"), "{why}");
    }
}
