//! The lanes language server: transport, document store, scheduling.
//!
//! - Transport: `tower-lsp-server` on tokio, behind a reader of stdin that
//!   answers malformed input itself and a single writer of stdout
//!   (`transport`, `framing`): no input stops the server ([`serve_stdio`],
//!   [`run`]).
//! - Documents: one [`ropey::Rope`] per open document; incremental edits are
//!   applied in arrival order (which is version order: tower-lsp polls each
//!   message's handler for the first time in order, and the edit is applied
//!   before the handler's first `.await`), then the text is set in the salsa
//!   database, which cancels every running query.
//! - Requests run on `db.clone()` snapshots in `spawn_blocking`, under
//!   `salsa::Cancelled::catch` and `catch_unwind`: a cancelled request is
//!   answered with `ContentModified` (-32801), a panic with an internal error.
//!   A request whose document changed while it ran is answered with
//!   `ContentModified` too, so no answer describes an older text.
//!   Diagnostics are computed on one thread of their own
//!   (`analysis_thread`: one malloc arena for the front end's revisions).
//! - Diagnostics are computed 5 ms after the last edit of a document and
//!   pushed, or, for clients that advertise LSP 3.17 pull diagnostics,
//!   answered to `textDocument/diagnostic` (`unchanged` when they did not
//!   change; `workspace/diagnostic/refresh` after background findings).
//! - Commands: `lanes.build` (object + header, `$/progress`),
//!   `lanes.showVectorIR`, `lanes.showAsm`, `lanes.explain`, each with the
//!   arguments `[uri-or-path, kernel?]`, answering `{"object","header"}` or
//!   `{"text","language"}`.
//!
//! No protocol types leave this crate (DESIGN §4).

mod analysis_thread;
mod background;
mod changes;
mod commands;
mod config;
mod convert;
mod framing;
mod server;
mod transport;

pub use server::Backend;

/// Serves the protocol on stdin/stdout until the client exits; whether the
/// client sent `shutdown` first.
pub async fn serve_stdio() -> bool {
    let (input, output, pipes) = transport::stdio();
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let backend_flag = flag.clone();
    let out = pipes.out();
    let (service, socket) = tower_lsp_server::LspService::new(move |client| {
        Backend::on_stdio(client, backend_flag.clone(), out.clone())
    });
    tower_lsp_server::Server::new(input, output, socket)
        // Enough slots that long requests never hold back the edits that
        // cancel them.
        .concurrency_level(64)
        .serve(service)
        .await;
    pipes.finish().await;
    flag.load(std::sync::atomic::Ordering::SeqCst)
}

/// Runs the server on stdio on its own tokio runtime (for `lanes lsp`);
/// whether the client sent `shutdown` before `exit` (or the end of input),
/// which makes the exit status 0 rather than 1.
pub fn run() -> std::io::Result<bool> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // The analyses recurse over the syntax tree: big stacks, as the CLI.
        .thread_stack_size(64 << 20)
        .build()?;
    Ok(rt.block_on(serve_stdio()))
}
