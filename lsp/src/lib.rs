//! The lanes language server: transport, document store, scheduling.
//!
//! - Transport: `tower-lsp-server` on tokio, over stdio ([`serve_stdio`],
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
//! - Diagnostics are pushed 5 ms after the last edit of a document.
//! - Commands: `lanes.build` (object + header, `$/progress`),
//!   `lanes.showVectorIR`, `lanes.showAsm`, `lanes.explain`, each with the
//!   arguments `[uri-or-path, kernel?]`, answering `{"object","header"}` or
//!   `{"text","language"}`.
//!
//! No protocol types leave this crate (DESIGN §4).

mod background;
mod commands;
mod config;
mod convert;
mod server;

pub use server::Backend;

/// Serves the protocol on stdin/stdout until the client exits.
pub async fn serve_stdio() {
    let (stdin, stdout) = (tokio::io::stdin(), tokio::io::stdout());
    let (service, socket) = tower_lsp_server::LspService::new(Backend::new);
    tower_lsp_server::Server::new(stdin, stdout, socket)
        // Enough slots that long requests never hold back the edits that
        // cancel them.
        .concurrency_level(64)
        .serve(service)
        .await;
}

/// Runs the server on stdio on its own tokio runtime (for `lanes lsp`).
pub fn run() -> std::io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // The analyses recurse over the syntax tree: big stacks, as the CLI.
        .thread_stack_size(64 << 20)
        .build()?;
    rt.block_on(serve_stdio());
    Ok(())
}
