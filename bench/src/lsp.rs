//! `lsp`: language-server latency through the real server over pipes. The
//! benchmark spawns `lanes lsp` (`$LANES`, else the `lanes` binary next to
//! this one: `cargo build --release --bin lanes` first) and clangd-19 as a
//! reference, opens a 5,000- and a 20,000-line file with 100 and 400
//! kernels and measures, as an editor sees them:
//! - edit → diagnostics: from sending a one-character `didChange` to
//!   receiving `publishDiagnostics` for that version (includes the server's
//!   debounce and the JSON round trip);
//! - hover and inlay hints (a screenful around the edit): request to answer.
//!
//! - memory: the server's RSS after opening, once the opened file is settled
//!   (its first background inference ended), and after 1,000 more edits.
//!
//! p50 and p95 go to the `## Language server latency` section of
//! bench/RESULTS.md. Targets: edit → diagnostics p95 under 50 ms, hover p95
//! under 10 ms on both files, RSS within 1.5× after the edits.

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
    incoming: Receiver<Incoming>,
    next_id: u64,
    /// Diagnostics received: pushed notifications, or pull answers with
    /// items (`full`), and their bytes.
    diagnostics_sent: usize,
    diagnostics_bytes: usize,
    /// `workspace/diagnostic/refresh` requests answered, and whether one
    /// came since the last pull.
    refreshes: usize,
    refresh_pending: bool,
    /// Lines `preconditions of` in lanes' log (`LANES_LSP_TIMING`): the end
    /// of a background inference run.
    inference_runs: usize,
}

/// A message from the server, or a line of its log (stderr).
enum Incoming {
    Message(String),
    Log(String),
}

impl Server {
    fn start(bin: &Path, args: &[&str]) -> Result<Server, String> {
        let mut child = Command::new(bin)
            .args(args)
            .env("LANES_LSP_TIMING", "1")
            // Settling is timed from a cold start: no findings from the
            // cache of an earlier run.
            .env("LANES_CACHE", "off")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {} lsp: {e}", bin.display()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let stderr = child.stderr.take().ok_or("no stderr")?;
        let (tx, incoming) = channel();
        let log = tx.clone();
        // The log goes on to ours, and is read for the end of inference runs.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                eprintln!("{line}");
                if log.send(Incoming::Log(line)).is_err() {
                    return;
                }
            }
        });
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
                    .send(Incoming::Message(
                        String::from_utf8_lossy(&body).into_owned(),
                    ))
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
            diagnostics_sent: 0,
            diagnostics_bytes: 0,
            refreshes: 0,
            refresh_pending: false,
            inference_runs: 0,
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
        // A response has no method (clangd's initialize result has a
        // `"method"` key inside its capabilities, not a method name).
        self.wait(|m| {
            !m.contains("\"method\":\"")
                && m.match_indices(&needle)
                    .any(|(i, _)| !m[i + needle.len()..].starts_with(|c: char| c.is_ascii_digit()))
        })
    }

    fn wait(&mut self, want: impl Fn(&str) -> bool) -> Result<String, String> {
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = self
                .next(left)?
                .ok_or("no answer from the server in 600 s")?;
            if want(&m) {
                return Ok(m);
            }
        }
    }

    /// The next message within `timeout` (`None`: none came), counting
    /// pushed diagnostics and inference runs and answering refreshes on
    /// the way.
    fn next(&mut self, timeout: Duration) -> Result<Option<String>, String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = match self.incoming.recv_timeout(left) {
                Ok(Incoming::Message(m)) => m,
                Ok(Incoming::Log(line)) => {
                    if line.contains("preconditions of") {
                        self.inference_runs += 1;
                    }
                    continue;
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => return Ok(None),
                Err(_) => return Err("the server closed its output".into()),
            };
            if m.contains("\"method\":\"textDocument/publishDiagnostics\"") {
                self.diagnostics_sent += 1;
                self.diagnostics_bytes += m.len();
            }
            if m.contains("\"method\":\"workspace/diagnostic/refresh\"") {
                let id = request_id(&m).ok_or("a refresh without an id")?;
                self.send(&format!(r#"{{"jsonrpc":"2.0","id":{id},"result":null}}"#))?;
                self.refreshes += 1;
                self.refresh_pending = true;
            }
            return Ok(Some(m));
        }
    }

    /// `textDocument/diagnostic` with the result id the client has (a pull
    /// client after a change or a refresh); a cancelled pull (the server
    /// asks to retrigger) is sent again. Counts the answers with items.
    fn pull(&mut self, uri: &str, result_id: &mut Option<String>) -> Result<String, String> {
        self.refresh_pending = false;
        loop {
            let previous = match result_id {
                Some(id) => format!(r#","previousResultId":{}"#, json_string(id)),
                None => String::new(),
            };
            let m = self.request(
                "textDocument/diagnostic",
                &format!(r#"{{"textDocument":{{"uri":"{uri}"}}{previous}}}"#),
            )?;
            if m.contains("\"retriggerRequest\":true") {
                continue;
            }
            if m.contains("\"error\"") {
                return Err(format!("pull failed: {m}"));
            }
            *result_id = string_field(&m, "resultId");
            if m.contains("\"kind\":\"full\"") {
                self.diagnostics_sent += 1;
                self.diagnostics_bytes += m.len();
            }
            return Ok(m);
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

/// The numeric id of a request from the server.
fn request_id(m: &str) -> Option<u64> {
    let at = m.find("\"id\":")? + 5;
    let digits: String = m[at..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().ok()
}

/// The value of a string field `"name":"..."` (no escapes in it).
fn string_field(m: &str, name: &str) -> Option<String> {
    let key = format!("\"{name}\":\"");
    let at = m.find(&key)? + key.len();
    Some(m[at..at + m[at..].find('"')?].to_string())
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

/// `options` (shared with the other benchmarks of the run): `--no-write`
/// prints the section without writing it to bench/RESULTS.md.
pub fn main(options: &[String]) {
    let write = !options.iter().any(|o| o == "--no-write");
    match run() {
        Ok(section) => {
            print!("{section}");
            if !write {
                return;
            }
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

/// Latencies and memory of one server session.
struct Session {
    lines: usize,
    count: usize,
    open: Duration,
    edit: Vec<Duration>,
    comment: Vec<Duration>,
    hovers: Vec<Duration>,
    hints: Vec<Duration>,
    /// Resident set size (kB; `None` where not measured): after the first
    /// diagnostics, once settled (the first background inference of the
    /// opened file ended: the file is then fully analysed, as an editor
    /// leaves it open), after the first [`WARM_EDITS`] edits and at the end.
    rss: Option<Rss>,
    /// Whether the server answered pulls (LSP 3.17 pull diagnostics).
    pull: bool,
    /// From opening until the first background inference run ended
    /// (lanes): the time, and the diagnostics sent meanwhile (pushes, or
    /// pull answers with items) and their bytes.
    settle: Option<(Duration, usize, usize)>,
    /// Over the timed edits: diagnostics sent and their bytes.
    edits_sent: usize,
    edits_bytes: usize,
}

/// The resident set at the points of [`Session::rss`] (kB).
struct Rss {
    open: u64,
    settled: u64,
    warm: u64,
    after: u64,
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

/// Edits without pauses after the timed ones, for the memory measure
/// (`LANES_LSP_BENCH_RSS_EDITS`, 1,000 by default).
fn rss_edits() -> usize {
    std::env::var("LANES_LSP_BENCH_RSS_EDITS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000)
}

/// Edits after which the resident set is read a second time.
const WARM_EDITS: usize = 100;

/// The servers compared.
#[derive(Clone, Copy, PartialEq)]
enum Peer {
    /// `lanes lsp` with its defaults (background precondition inference on).
    Lanes,
    /// clangd-19 on the same file as OpenCL C (`compile_flags.txt`).
    Clangd,
}

fn clangd_binary() -> Option<PathBuf> {
    ["clangd-19", "clangd"].iter().find_map(|n| {
        std::env::var_os("PATH")?
            .to_str()?
            .split(':')
            .map(|d| Path::new(d).join(n))
            .find(|p| p.is_file())
    })
}

fn run() -> Result<String, String> {
    let bin = lanes_binary().ok_or(
        "no lanes binary next to lanes-bench: run `cargo build --release --bin lanes` or set LANES",
    )?;
    let clangd = clangd_binary();
    let mut s = String::new();
    let _ = writeln!(s, "## Language server latency\n");
    let _ = writeln!(
        s,
        "`cargo run --release -p lanes-bench -- lsp`, through the real servers: each is spawned and driven over pipes \
         like an editor (JSON-RPC framing and serialization included; lanes' 5 ms debounce too). Files generated by \
         bench/src/lsp.rs: 100 and 400 kernels of 50 lines (5,000 and 20,000 lines), target avx2-i32x8. {EDITS} edits, \
         alternating between a one-character edit inside a kernel and one inside the comment above a kernel, {}; \
         after each, a hover on `x` of that kernel and the inlay hints of the 60 lines from its start, then \
         a pause of {} ms. lanes runs with its defaults (background precondition inference on: once the file has been \
         unchanged for 300 ms the server infers, at nice 10, the kernels whose analysis changed). clangd-19 \
         reads the same file as OpenCL C 2.0 with the default header (`compile_flags.txt`), the same session one after \
         the other. RSS: the server's resident set after the first diagnostics (before any inference), once settled \
         (the first background inference of the opened file ended: every kernel analysed and inferred, what opening \
         the file comes to; the ratio of the target is against this), after {WARM_EDITS} edits (the working set of editing and inference: every kernel analysed at least twice, \
         findings for most), and after {} more edits without pauses (each waiting for its diagnostics; \
         lanes only). Flat memory is the last two equal. The client advertises pull diagnostics as VS Code does \
         (`textDocument.diagnostic`, `workspace.diagnostics.refreshSupport`; `LANES_LSP_BENCH_PULL=0` does not; \
         lanes answers pulls only with `LANES_LSP_BENCH_PULL=1`, its `pullDiagnostics` option): \
         a server that answers pulls is asked after each change and after each refresh, one that does not pushes. \
         Edit → diagnostics is until the publish of that version, or the answer to the pull after the change \
         (`full` or `unchanged`).\n",
        if typing_edits() {
            "each a keystroke that types a character where there was none (`w * 2.0f` → `w * 25.0f`, `a stencil` → \
             `a xstencil`) or deletes it at the next visit, so the text after the edit moves by one character \
             (`LANES_LSP_BENCH_EDITS=replace`: one character replaced by another, as measured before 2026-11-27 12:40)"
        } else {
            "each replacing one character by another (`w * 2.0f` → `w * 3.0f`, `a stencil` → `a Stencil`), so the \
             text keeps its length (`LANES_LSP_BENCH_EDITS=replace`)"
        },
        PAUSE.as_millis(),
        rss_edits()
    );
    let _ = writeln!(
        s,
        "| file | server | open | edit → diagnostics p50 | p95 | comment edit p50 | p95 | hover p50 | p95 | inlay hints p50 | p95 | RSS open | settled | after {WARM_EDITS} edits | after {} edits |",
        EDITS + rss_edits()
    );
    let _ = writeln!(
        s,
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    );
    let mut settles = Vec::new();
    for kernels in [100, 400] {
        let mut peers = Vec::new();
        // `LANES_LSP_BENCH_PEERS=clangd` (or `lanes`) runs one of them.
        let only = std::env::var("LANES_LSP_BENCH_PEERS").unwrap_or_default();
        if only.is_empty() || only.contains("lanes") {
            peers.push((Peer::Lanes, bin.clone()));
        }
        if let Some(c) = clangd
            .as_ref()
            .filter(|_| only.is_empty() || only.contains("clangd"))
        {
            peers.push((Peer::Clangd, c.clone()));
        }
        for (peer, path) in peers {
            let r = measure(&path, peer, kernels)?;
            let name = match peer {
                Peer::Lanes => "lanes",
                Peer::Clangd => "clangd-19",
            };
            let rss = match &r.rss {
                Some(m) => format!(
                    "{} MB | {} MB | {} MB | {} MB ({:.2}× settled, {:.2}× open, {:.2}× after {WARM_EDITS})",
                    m.open / 1024,
                    m.settled / 1024,
                    m.warm / 1024,
                    m.after / 1024,
                    m.after as f64 / m.settled.max(1) as f64,
                    m.after as f64 / m.open.max(1) as f64,
                    m.after as f64 / m.warm.max(1) as f64
                ),
                None => " | | | ".to_string(),
            };
            let _ = writeln!(
                s,
                "| {} lines, {} diagnostics | {name} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {rss} |",
                r.lines,
                r.count,
                ms(r.open),
                ms(pct(&r.edit, 0.5)),
                ms(pct(&r.edit, 0.95)),
                ms(pct(&r.comment, 0.5)),
                ms(pct(&r.comment, 0.95)),
                ms(pct(&r.hovers, 0.5)),
                ms(pct(&r.hovers, 0.95)),
                ms(pct(&r.hints, 0.5)),
                ms(pct(&r.hints, 0.95)),
            );
            if peer == Peer::Lanes {
                settles.push((r.lines, name, r));
            }
        }
    }
    let _ = writeln!(
        s,
        "\nDiagnostics sent (pushes, or pull answers with items; `unchanged` answers not counted): from opening until the \
         end of lanes' first background inference run (the `preconditions of` line of `LANES_LSP_TIMING`), and over the \
         {EDITS} timed edits with their pauses.\n"
    );
    let _ = writeln!(
        s,
        "| file | server | diagnostics | settle: time | sent | MB | timed edits: sent per edit | kB per edit |"
    );
    let _ = writeln!(s, "|---|---|---|--:|--:|--:|--:|--:|");
    for (lines, name, r) in &settles {
        let (time, sent, bytes) = r.settle.unwrap_or_default();
        let _ = writeln!(
            s,
            "| {lines} lines | {name} | {} | {:.1} s | {sent} | {:.1} | {:.2} | {:.1} |",
            if r.pull { "pull" } else { "push" },
            time.as_secs_f64(),
            bytes as f64 / 1e6,
            r.edits_sent as f64 / EDITS as f64,
            r.edits_bytes as f64 / 1e3 / EDITS as f64,
        );
    }
    let _ = writeln!(
        s,
        "\nTargets (issue 14): edit → diagnostics p95 < 50 ms and hover p95 < 10 ms on both files; RSS after 1,000 edits within 1.5× of RSS after open (settled)."
    );
    Ok(s)
}

/// The resident set size of a process (kB), from /proc.
fn rss_kb(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// One edit as an editor sends a keystroke: at byte `at`, `removed` bytes
/// replaced by `inserted`; in kernel `k`'s code or in the comment above it.
/// `LANES_LSP_BENCH_EDITS=replace` replaces one character by another (the
/// text keeps its length: what the tables before 2026-11-27 12:40 measured);
/// by default a character is typed where there was none and deleted at the
/// next visit, so the text after the edit moves, as when a user types.
struct Edit {
    at: usize,
    removed: usize,
    inserted: &'static str,
}

fn typing_edits() -> bool {
    std::env::var("LANES_LSP_BENCH_EDITS").as_deref() != Ok("replace")
}

fn edit_site(text: &str, k: usize, in_comment: bool, typing: bool) -> Result<Edit, String> {
    let a = text
        .find(&format!("void kernel_{k}("))
        .ok_or("kernel not found")?;
    // Replacing: the character at `at` toggles between `a` and `b`. Typing:
    // `typed` is inserted at `typed_at`, or deleted where it was inserted.
    let toggle =
        |at: usize, (a, b): (&'static str, &'static str), typed_at: usize, typed: &'static str| {
            if typing {
                let present = &text[typed_at..typed_at + 1] == typed;
                Edit {
                    at: typed_at,
                    removed: usize::from(present),
                    inserted: if present { "" } else { typed },
                }
            } else {
                Edit {
                    at,
                    removed: 1,
                    inserted: if &text[at..at + 1] == a { b } else { a },
                }
            }
        };
    if in_comment {
        // `// kernel {k}: a stencil ...` -> `... a Stencil ...` and back, or
        // `... a xstencil ...` and back.
        let c = text[..a].rfind(": a ").ok_or("comment not found")? + 4;
        return Ok(toggle(c, ("s", "S"), c, "x"));
    }
    // `w * 2.0f` -> `w * 3.0f` and back, or `w * 25.0f` and back.
    let i = a + text[a..].find("w * ").ok_or("edit site not found")? + 4;
    Ok(toggle(i, ("2", "3"), i + 1, "5"))
}

fn measure(bin: &Path, peer: Peer, kernels: usize) -> Result<Session, String> {
    let mut text = big_file(kernels);
    let lines = text.lines().count();
    let dir =
        std::env::temp_dir().join(format!("lanes-lsp-bench-{}-{kernels}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join("latency.cl");
    std::fs::write(&path, &text).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut server = match peer {
        Peer::Lanes => Server::start(bin, &["lsp"])?,
        Peer::Clangd => {
            std::fs::write(
                dir.join("compile_flags.txt"),
                "-xcl\n-cl-std=CL2.0\n-Xclang\n-finclude-default-header\n",
            )
            .map_err(|e| format!("compile_flags.txt: {e}"))?;
            Server::start(bin, &["--log=error", "--background-index=false", "-j=1"])?
        }
    };
    let uri = format!("file://{}", path.display());
    let root = format!("file://{}", dir.display());
    // As VS Code: pull diagnostics with refreshes advertised; the server
    // answers pulls only when asked to (`LANES_LSP_BENCH_PULL=1` sends
    // `pullDiagnostics`), else it pushes, which is what users get by default;
    // `LANES_LSP_BENCH_PULL=0` advertises no pull (a client such as Neovim 0.10).
    let mode = std::env::var("LANES_LSP_BENCH_PULL").unwrap_or_default();
    let (pull_caps, workspace_caps) = if mode != "0" {
        (
            r#","diagnostic":{"dynamicRegistration":false}"#,
            r#","workspace":{"diagnostics":{"refreshSupport":true}}"#,
        )
    } else {
        ("", "")
    };
    let opt_in = if mode == "1" {
        r#","pullDiagnostics":true"#
    } else {
        ""
    };
    let init = server.request(
        "initialize",
        &format!(
            r#"{{"processId":null,"rootUri":"{root}","capabilities":{{"textDocument":{{"publishDiagnostics":{{"versionSupport":true}}{pull_caps}}}{workspace_caps}}},"initializationOptions":{{"target":"avx2-i32x8"{opt_in}}}}}"#
        ),
    )?;
    let pull = init.contains("\"diagnosticProvider\"");
    server.notify("initialized", "{}")?;
    let mut result_id = None;

    let t = Instant::now();
    server.notify(
        "textDocument/didOpen",
        &format!(
            r#"{{"textDocument":{{"uri":"{uri}","languageId":"opencl","version":1,"text":{}}}}}"#,
            json_string(&text)
        ),
    )?;
    eprintln!("lsp bench: {} on {lines} lines: opening", bin.display());
    let first = if pull {
        server.pull(&uri, &mut result_id)?
    } else {
        server.diagnostics(1)?
    };
    let open = t.elapsed();
    let count = match peer {
        Peer::Lanes => analysis_codes(&first),
        Peer::Clangd => first.matches("\"range\"").count(),
    };
    if peer == Peer::Lanes && count < 3 * kernels {
        return Err(format!(
            "expected {}+ diagnostics, got {count}",
            3 * kernels
        ));
    }
    let rss_open = rss_kb(server.child.id());
    let mut rss_settled = None;
    let mut rss_warm = None;

    // Until the background inference of the opened file ends, pulling
    // again after each refresh as an editor would.
    let settle = if peer == Peer::Lanes {
        eprintln!("lsp bench: {} on {lines} lines: settling", bin.display());
        let (sent, bytes) = (server.diagnostics_sent, server.diagnostics_bytes);
        let mut ended: Option<Instant> = None;
        loop {
            if server.refresh_pending {
                server.pull(&uri, &mut result_id)?;
            }
            if server.inference_runs > 0 && ended.is_none() {
                ended = Some(Instant::now());
            }
            // A refresh or publish may follow the log line by a little.
            if ended.is_some_and(|e| e.elapsed() > Duration::from_secs(1)) {
                break;
            }
            if t.elapsed() > Duration::from_secs(1200) {
                return Err("the background inference did not end in 1200 s".into());
            }
            server.next(Duration::from_millis(100))?;
        }
        rss_settled = rss_kb(server.child.id());
        Some((
            ended.map_or(t.elapsed(), |e| e.duration_since(t)),
            server.diagnostics_sent - sent,
            server.diagnostics_bytes - bytes,
        ))
    } else {
        None
    };
    let (sent_before_edits, bytes_before_edits) =
        (server.diagnostics_sent, server.diagnostics_bytes);
    let mut edits_counted = None;

    let (mut edit, mut comment, mut hovers, mut hints) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut version = 1;
    let typing = typing_edits();
    for n in 0..EDITS + if peer == Peer::Lanes { rss_edits() } else { 0 } {
        let timed = n < EDITS;
        if n == EDITS {
            edits_counted = Some((
                server.diagnostics_sent - sent_before_edits,
                server.diagnostics_bytes - bytes_before_edits,
            ));
        }
        if n == WARM_EDITS {
            rss_warm = rss_kb(server.child.id());
        }
        if n % 100 == 0 {
            eprintln!("lsp bench: {} on {lines} lines: edit {n}", bin.display());
        }
        let k = (n * 37) % kernels;
        let in_comment = n % 2 == 1;
        let e = edit_site(&text, k, in_comment, typing)?;
        let (l, c) = line_col(&text, e.at);
        text.replace_range(e.at..e.at + e.removed, e.inserted);
        version += 1;

        let t = Instant::now();
        server.notify(
            "textDocument/didChange",
            &format!(
                r#"{{"textDocument":{{"uri":"{uri}","version":{version}}},"contentChanges":[{{"range":{{"start":{{"line":{l},"character":{c}}},"end":{{"line":{l},"character":{}}}}},"text":"{}"}}]}}"#,
                c + e.removed,
                e.inserted
            ),
        )?;
        let d = if pull {
            server.pull(&uri, &mut result_id)?
        } else {
            server.diagnostics(version)?
        };
        let took = t.elapsed();
        let unchanged = pull && d.contains("\"kind\":\"unchanged\"");
        if peer == Peer::Lanes && !unchanged && analysis_codes(&d) != count {
            return Err("the diagnostics changed after a one-character edit".into());
        }
        if !timed {
            continue;
        }
        if in_comment {
            comment.push(took);
        } else {
            edit.push(took);
        }

        let a = text.find(&format!("void kernel_{k}(")).ok_or("no kernel")?;
        let (xl, xc) = line_col(&text, a + text[a..].find("int x").ok_or("no x")? + 4);
        let t = Instant::now();
        let h = server.request(
            "textDocument/hover",
            &format!(
                r#"{{"textDocument":{{"uri":"{uri}"}},"position":{{"line":{xl},"character":{xc}}}}}"#
            ),
        )?;
        hovers.push(t.elapsed());
        if peer == Peer::Lanes && !h.contains("contiguous") {
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
        if peer == Peer::Lanes && !ih.contains("\"label\"") {
            return Err(format!("no inlay hints: {ih}"));
        }
        // A typist's pause: long enough for the background inference to
        // start (300 ms idle) and be running when the next edit arrives.
        let pause = Instant::now() + PAUSE;
        while let Some(left) = pause.checked_duration_since(Instant::now()) {
            server.next(left)?;
            if server.refresh_pending {
                server.pull(&uri, &mut result_id)?;
            }
        }
    }
    let (edits_sent, edits_bytes) = edits_counted.unwrap_or((
        server.diagnostics_sent - sent_before_edits,
        server.diagnostics_bytes - bytes_before_edits,
    ));
    let rss_after = rss_kb(server.child.id());
    let _ = server.request("shutdown", "null");
    let _ = server.notify("exit", "null");
    let _ = std::fs::remove_dir_all(&dir);

    Ok(Session {
        lines,
        count,
        open,
        edit,
        comment,
        hovers,
        hints,
        rss: match (peer, rss_open, rss_settled, rss_warm, rss_after) {
            (Peer::Lanes, Some(open), Some(settled), Some(warm), Some(after)) => Some(Rss {
                open,
                settled,
                warm,
                after,
            }),
            _ => None,
        },
        pull,
        settle,
        edits_sent,
        edits_bytes,
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

    #[test]
    fn a_typed_character_is_deleted_at_the_next_visit() {
        let original = big_file(3);
        for k in 0..3 {
            for in_comment in [false, true] {
                let mut text = original.clone();
                let typed = edit_site(&text, k, in_comment, true).unwrap();
                assert_eq!((typed.removed, typed.inserted.len()), (0, 1));
                text.replace_range(typed.at..typed.at, typed.inserted);
                assert_eq!(text.len(), original.len() + 1);
                let deleted = edit_site(&text, k, in_comment, true).unwrap();
                assert_eq!(
                    (deleted.at, deleted.removed, deleted.inserted),
                    (typed.at, 1, "")
                );
                text.replace_range(deleted.at..deleted.at + 1, "");
                assert_eq!(text, original);
            }
        }
    }

    #[test]
    fn a_replaced_character_is_replaced_back_at_the_next_visit() {
        let original = big_file(3);
        for k in 0..3 {
            for in_comment in [false, true] {
                let mut text = original.clone();
                for _ in 0..2 {
                    let e = edit_site(&text, k, in_comment, false).unwrap();
                    assert_eq!((e.removed, e.inserted.len()), (1, 1));
                    assert_ne!(&text[e.at..e.at + 1], e.inserted);
                    text.replace_range(e.at..e.at + 1, e.inserted);
                    assert_eq!(text.len(), original.len());
                }
                assert_eq!(text, original);
            }
        }
    }
}
