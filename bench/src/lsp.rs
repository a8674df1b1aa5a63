//! `lsp`: language-server latency through the real server over pipes. The
//! benchmark spawns `lanes lsp` (`$LANES`, else the `lanes` binary next to
//! this one: `cargo build --release --bin lanes` first), opens a 5,000-line
//! file with 100 kernels and measures, as an editor sees them:
//! - edit → diagnostics: from sending a one-character `didChange` to
//!   receiving `publishDiagnostics` for that version (includes the server's
//!   debounce and the JSON round trip);
//! - hover and inlay hints (a screenful around the edit): request to answer.
//!
//! p50 and p95 go to the `## Language server latency` section of
//! bench/RESULTS.md. Targets (issue 5): edit → diagnostics p95 under 50 ms,
//! hover p95 under 10 ms.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

const EDITS: usize = 60;

/// A large file: 100 kernels of ~50 lines, each a clipped stencil with a
/// divergent branch and an indirect access.
fn big_file(kernels: usize) -> String {
    let mut s = String::from(
        "// latency.cl - a large generated file\n\n\
         float smooth_step(float a, float b, float t)\n{\n    float u = clamp((t - a) / (b - a), 0.0f, 1.0f);\n    return u * u * (3.0f - 2.0f * u);\n}\n\n",
    );
    for k in 0..kernels {
        let _ = write!(
            s,
            "// ---------------------------------------------------------------\n\
             // kernel {k}: a stencil with a clipped loop, a divergent branch\n\
             // and an indirect access.\n\
             // ---------------------------------------------------------------\n\
             __kernel void kernel_{k}(__global const float *in,\n\
             \x20                       __global float *out,\n\
             \x20                       __global const int *idx,\n\
             \x20                       int width,\n\
             \x20                       int radius)\n\
             {{\n\
             \x20   int x = get_global_id(0);\n\
             \x20   if (x >= width)\n\
             \x20       return;\n\
             \n\
             \x20   // the clipped neighbourhood\n\
             \x20   int left = max(0, x - radius);\n\
             \x20   int right = min(width - 1, x + radius);\n\
             \x20   float sum = 0.0f;\n\
             \x20   for (int i = left; i <= right; ++i)\n\
             \x20       sum += in[i] * {k}.0f;\n\
             \n\
             \x20   // an indirect read\n\
             \x20   float extra = in[idx[x]];\n\
             \x20   if (extra > 0.5f) {{\n\
             \x20       sum = sum * 0.5f;\n\
             \x20   }} else {{\n\
             \x20       sum = sum + extra;\n\
             \x20   }}\n\
             \n\
             \x20   // a uniform loop\n\
             \x20   float acc = 0.0f;\n\
             \x20   for (int j = 0; j < radius; ++j) {{\n\
             \x20       acc += in[j];\n\
             \x20       acc *= 0.25f;\n\
             \x20   }}\n\
             \n\
             \x20   float s = smooth_step(0.0f, 1.0f, sum + acc);\n\
             \x20   int q = x / 3;\n\
             \x20   float w = in[x];\n\
             \x20   w = w * 2.0f + 1.0f;\n\
             \x20   w = w - s;\n\
             \x20   w = fabs(w);\n\
             \x20   w = sqrt(w + 1.0f);\n\
             \x20   w = w * w;\n\
             \x20   out[x] = w + (float)q;\n\
             \x20   out[x] = out[x] * 0.5f;\n\
             \x20   out[x] = out[x] + 1.0f;\n\
             \x20   out[x] = out[x] - 1.0f;\n\
             }}\n\n"
        );
    }
    s
}

/// A minimal JSON-RPC client over the server's pipes. Messages are matched
/// by text (`"id":N`, the publishDiagnostics version): the server writes
/// compact JSON, and the bench crate has no JSON parser of its own.
struct Server {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<String>,
    next_id: u64,
}

impl Server {
    fn start(bin: &Path) -> Result<Server, String> {
        let mut child = Command::new(bin)
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {} lsp: {e}", bin.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    match r.read_line(&mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {}
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length:") {
                        len = v.trim().parse::<usize>().ok();
                    }
                }
                let Some(len) = len else { return };
                let mut body = vec![0; len];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                if tx
                    .send(String::from_utf8_lossy(&body).into_owned())
                    .is_err()
                {
                    return;
                }
            }
        });
        Ok(Server {
            child,
            stdin,
            incoming,
            next_id: 1,
        })
    }

    fn send(&mut self, body: &str) -> Result<(), String> {
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len())
            .and_then(|_| self.stdin.flush())
            .map_err(|e| format!("server pipe: {e}"))
    }

    fn notify(&mut self, method: &str, params: &str) -> Result<(), String> {
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","method":"{method}","params":{params}}}"#
        ))
    }

    /// Sends a request and waits for its answer (other messages are dropped).
    fn request(&mut self, method: &str, params: &str) -> Result<String, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#
        ))?;
        let needle = format!("\"id\":{id}");
        self.wait(|m| {
            !m.contains("\"method\"")
                && m.match_indices(&needle)
                    .any(|(i, _)| !m[i + needle.len()..].starts_with(|c: char| c.is_ascii_digit()))
        })
    }

    fn wait(&mut self, want: impl Fn(&str) -> bool) -> Result<String, String> {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = self
                .incoming
                .recv_timeout(left)
                .map_err(|_| "no answer from the server in 120 s".to_string())?;
            if want(&m) {
                return Ok(m);
            }
        }
    }

    fn diagnostics(&mut self, version: i32) -> Result<String, String> {
        let v = format!("\"version\":{version}");
        self.wait(|m| {
            m.contains("textDocument/publishDiagnostics")
                && m.match_indices(&v)
                    .any(|(i, _)| !m[i + v.len()..].starts_with(|c: char| c.is_ascii_digit()))
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// (line, column) of a byte offset of an ASCII text.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let line = text[..at].matches('\n').count();
    let col = at - text[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    (line, col)
}

fn pct(v: &[Duration], p: f64) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i.min(v.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn lanes_binary() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LANES") {
        return Some(PathBuf::from(p));
    }
    let exe = std::env::current_exe().ok()?;
    let p = exe.parent()?.join("lanes");
    p.is_file().then_some(p)
}

pub fn main() {
    match run() {
        Ok(section) => {
            print!("{section}");
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("RESULTS.md");
            let text =
                std::fs::read_to_string(&path).unwrap_or_else(|_| "# Benchmark results\n".into());
            match std::fs::write(&path, crate::results::splice(&text, &section)) {
                Ok(()) => println!("(written to {})", path.display()),
                Err(e) => eprintln!("could not write {}: {e}", path.display()),
            }
        }
        Err(e) => {
            eprintln!("lsp benchmark: {e}");
            std::process::exit(1);
        }
    }
}

/// Latencies of one server session.
struct Session {
    lines: usize,
    count: usize,
    open: Duration,
    edit: Vec<Duration>,
    hovers: Vec<Duration>,
    hints: Vec<Duration>,
}

/// Counts the analysis diagnostics of a publishDiagnostics message: the
/// precondition ones (L0301/L0302) come and go with the background
/// inference.
fn analysis_codes(message: &str) -> usize {
    message.matches("\"code\":\"L").count()
        - message.matches("\"code\":\"L0301\"").count()
        - message.matches("\"code\":\"L0302\"").count()
}

/// The pause after each edit's requests.
const PAUSE: Duration = Duration::from_millis(400);

fn run() -> Result<String, String> {
    let bin = lanes_binary().ok_or(
        "no lanes binary next to lanes-bench: run `cargo build --release --bin lanes` or set LANES",
    )?;
    // Side by side in one run: background precondition inference off, then on.
    let off = measure(&bin, false)?;
    let on = measure(&bin, true)?;
    let mut s = String::new();
    let _ = writeln!(s, "## Language server latency\n");
    let _ = writeln!(
        s,
        "`cargo run --release -p lanes-bench -- lsp`, through the real server: `lanes lsp` is spawned and driven over pipes \
         like an editor (JSON-RPC framing, serialization and the server's 5 ms debounce included). The file: {} lines, \
         100 kernels (generated by bench/src/lsp.rs), target avx2-i32x8. {EDITS} one-character edits, \
         each in a different kernel (`w * 2.0f` → `w * 3.0f`); after each, a hover on `x` of that kernel and the inlay \
         hints of the 60 lines from its start, then a pause of {} ms. Two sessions, one after the other: with the background precondition \
         inference turned off (`preconditions.enabled = false`) and on (the default: after each publish the server \
         infers, once the file has been unchanged for 300 ms, the kernels whose analysis changed, on a thread at nice 10).\n",
        off.lines,
        PAUSE.as_millis()
    );
    let _ = writeln!(
        s,
        "| measure | inference off p50 | p95 | inference on p50 | p95 | target |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|");
    let _ = writeln!(
        s,
        "| open (first diagnostics of the whole file, {} of them) | {} | | {} | | |",
        off.count,
        ms(off.open),
        ms(on.open)
    );
    for (name, a, b, target) in [
        ("edit → diagnostics", &off.edit, &on.edit, "p95 < 50 ms"),
        ("hover", &off.hovers, &on.hovers, "p95 < 10 ms"),
        ("inlay hints (60 lines)", &off.hints, &on.hints, ""),
    ] {
        let _ = writeln!(
            s,
            "| {name} | {} | {} | {} | {} | {target} |",
            ms(pct(a, 0.5)),
            ms(pct(a, 0.95)),
            ms(pct(b, 0.5)),
            ms(pct(b, 0.95))
        );
    }
    Ok(s)
}

fn measure(bin: &Path, preconditions: bool) -> Result<Session, String> {
    let mut text = big_file(100);
    let lines = text.lines().count();
    let mut server = Server::start(bin)?;
    let dir = std::env::temp_dir().join(format!("lanes-lsp-bench-{}", std::process::id()));
    let uri = format!("file://{}/latency.cl", dir.display());
    server.request(
        "initialize",
        &format!(
            r#"{{"processId":null,"rootUri":null,"capabilities":{{}},"initializationOptions":{{"target":"avx2-i32x8","preconditions":{{"enabled":{preconditions}}}}}}}"#
        ),
    )?;
    server.notify("initialized", "{}")?;

    let t = Instant::now();
    server.notify(
        "textDocument/didOpen",
        &format!(
            r#"{{"textDocument":{{"uri":"{uri}","languageId":"opencl","version":1,"text":{}}}}}"#,
            json_string(&text)
        ),
    )?;
    let first = server.diagnostics(1)?;
    let open = t.elapsed();
    let count = analysis_codes(&first);
    if count < 300 {
        return Err(format!("expected 300+ diagnostics, got {count}"));
    }

    let (mut edit, mut hovers, mut hints) = (Vec::new(), Vec::new(), Vec::new());
    for n in 0..EDITS {
        // A one-character edit inside a kernel: `w * 2.0f` -> `w * 3.0f`.
        let k = (n * 37) % 100;
        let a = text
            .find(&format!("void kernel_{k}("))
            .ok_or("kernel not found")?;
        let i = a + text[a..].find("w * ").ok_or("edit site not found")? + 4;
        let digit = if &text[i..i + 1] == "2" { "3" } else { "2" };
        text.replace_range(i..i + 1, digit);
        let (l, c) = line_col(&text, i);
        let version = n as i32 + 2;

        let t = Instant::now();
        server.notify(
            "textDocument/didChange",
            &format!(
                r#"{{"textDocument":{{"uri":"{uri}","version":{version}}},"contentChanges":[{{"range":{{"start":{{"line":{l},"character":{c}}},"end":{{"line":{l},"character":{}}}}},"text":"{digit}"}}]}}"#,
                c + 1
            ),
        )?;
        let d = server.diagnostics(version)?;
        edit.push(t.elapsed());
        if analysis_codes(&d) != count {
            return Err("the diagnostics changed after a one-character edit".into());
        }

        let (xl, xc) = line_col(&text, a + text[a..].find("int x").ok_or("no x")? + 4);
        let t = Instant::now();
        let h = server.request(
            "textDocument/hover",
            &format!(
                r#"{{"textDocument":{{"uri":"{uri}"}},"position":{{"line":{xl},"character":{xc}}}}}"#
            ),
        )?;
        hovers.push(t.elapsed());
        if !h.contains("contiguous") {
            return Err(format!("unexpected hover: {h}"));
        }

        let (sl, _) = line_col(&text, a);
        let t = Instant::now();
        let ih = server.request(
            "textDocument/inlayHint",
            &format!(
                r#"{{"textDocument":{{"uri":"{uri}"}},"range":{{"start":{{"line":{sl},"character":0}},"end":{{"line":{},"character":0}}}}}}"#,
                sl + 60
            ),
        )?;
        hints.push(t.elapsed());
        if !ih.contains("\"label\"") {
            return Err(format!("no inlay hints: {ih}"));
        }
        // A typist's pause: long enough for the background inference to
        // start (300 ms idle) and be running when the next edit arrives.
        std::thread::sleep(PAUSE);
    }
    let _ = server.request("shutdown", "null");
    let _ = server.notify("exit", "null");

    Ok(Session {
        lines,
        count,
        open,
        edit,
        hovers,
        hints,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::splice;

    #[test]
    fn splice_appends_then_replaces() {
        let t = splice("# R\n\n## A\n\nx\n", "## Language server latency\n\nnew\n");
        assert_eq!(t, "# R\n\n## A\n\nx\n\n## Language server latency\n\nnew\n");
        let t = splice(
            &(t + "\n## B\n\ny\n"),
            "## Language server latency\n\nnewer\n",
        );
        assert_eq!(
            t,
            "# R\n\n## A\n\nx\n\n## Language server latency\n\nnewer\n\n## B\n\ny\n"
        );
    }

    #[test]
    fn big_file_has_5000_lines() {
        assert!(big_file(100).lines().count() >= 5000);
    }
}
