//! The incremental database of lanes (salsa 0.28, pinned).
//!
//! What the editor asks after every keystroke: the diagnostics, shapes and
//! reports of a file. This crate answers from cached results and recomputes
//! only what an edit can have changed.
//!
//! # Inputs
//! - [`File`]: one source file (path, text, version). Headers reached by
//!   `#include` are files too: the preprocessor reads them through the
//!   database ([`Db::load`]), so editing a header invalidates the files that
//!   include it.
//! - [`Config`]: target name and width, `-D`/`-U` macros, include
//!   directories and diagnostic severities (one input for the database).
//!
//! # Queries
//! ```text
//! parse(file)                 preprocess + parse + check, items cut out    (every edit)
//!  ├─ call_graph(file)        item keys in order, kernels, callee names    (backdated)
//!  ├─ item_body(file, key)    one item's tokens, spans relative to it      (backdated)
//!  └─ kernel_positions(k)     where the items of a kernel are now          (backdated)
//! kernel_inputs(k)            the bodies kernel k needs (itself, callees,
//!                             declarations)                                (backdated)
//! kernel_analysis(k)          lowering, canonicalization, divergence,
//!                             report — in item-relative coordinates        (only if inputs changed)
//! kernel_vector_ir(k)         vectorize                                    (only if analysis re-ran)
//! kernel_report(k)            the report with spans of the current text    (cheap re-mapping)
//! kernel_findings(k)          inferred preconditions, mapped; set from outside
//!                             (see [`precond`](crate::pending)): Z3 runs off-salsa
//! ```
//!
//! # Position independence
//! Every item (function definition, or any other top-level declaration) of
//! a preprocessed file is the run of tokens from its first token to the next
//! item's. [`item_body`] stores those tokens with spans *relative to the
//! item's first token* (in a virtual file holding just the item's text) and
//! the item's current start separately ([`kernel_positions`]). Typing inside
//! kernel 7 changes kernel 7's body only; the bodies of all other items
//! compare equal, salsa backdates them, and the analyses that depend on them
//! are not re-run. A comment or blank line between items changes no body.
//!
//! [`kernel_analysis`] re-runs the front end's parser and checker on a small
//! unit made of the kernel's bodies only (the kernel, the helpers it calls
//! transitively — they are inlined — and every declaration, in source
//! order), then lowers and analyses the kernel there. The result is in the
//! small unit's coordinates (one virtual file per body); [`kernel_report`]
//! maps it back to the current text with [`SpanMap`]. Since the small unit
//! holds the same tokens in the same order and the same text under every
//! span, the analysis sees exactly what it would see in the whole file;
//! when that cannot be guaranteed (the small unit does not check without
//! errors, or two items come out of one macro invocation) the kernel is
//! analysed in the whole unit instead, which is correct but not incremental.
//! In a file with errors a kernel is analysed only when none of the items it
//! needs holds one ([`analysable`]); a kernel that has errors shows its last
//! analysed facts ([`kernel_facts`]).
//!
//! Consequences: an edit inside a kernel re-analyses that kernel; an edit
//! inside a helper re-analyses the kernels that call it (directly or not);
//! an edit to a declaration (struct, typedef, `__constant`, prototype) or
//! to the configuration re-analyses every kernel; an edit in a comment or
//! whitespace outside items re-analyses nothing.
//!
//! Long queries call [`salsa::Database::unwind_if_revision_cancelled`]
//! between stages, so an edit cancels them (callers run requests under
//! [`salsa::Cancelled::catch`]).

mod db;
mod items;
mod kernel;
mod lines;
mod precond;
pub mod reclaim;
mod stale;

pub use db::{Config, Db, File, LanesDatabase, Settings};
pub use items::{call_graph, item_body, parse, CallGraph, ItemBody, ItemKey, ParseMemos, Parsed};
pub use kernel::{
    analysable, file_diagnostics, file_reports, kernel_analysis, kernel_inputs, kernel_positions,
    kernel_report, kernel_vector_ir, kernels, live_diagnostics, span_map, Analysis, Kernel,
    KernelInputs, KernelResult, SpanMap, UnitRef, VectorIr,
};
pub use lines::{line_index, LineIndex};
pub use precond::{
    cache_key, current_findings, infer, infer_gated, kernel_findings, pending,
    set_kernel_preconditions, spent, FilePreconditions, KernelFindings, Pending,
};
pub use stale::{kernel_facts, KernelFacts, LastGood};

/// Re-exported so that users of the database need not depend on salsa for
/// the common operations (cancellation, events).
pub use salsa;

/// Which query a salsa event key belongs to and, for per-kernel queries,
/// which kernel: `("kernel_analysis", Some("conv"))`. For tests and logs.
pub fn describe_key(db: &dyn Db, key: salsa::DatabaseKeyIndex) -> (String, Option<String>) {
    let query = db.ingredient_debug_name(key.ingredient_index()).to_string();
    let kernel = if kernel::is_kernel_query(&query) {
        kernel::kernel_name_of(db, key.key_index())
    } else {
        None
    };
    (query, kernel)
}
