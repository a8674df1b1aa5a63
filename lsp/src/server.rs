//! The `LanguageServer` implementation: document store, snapshots,
//! cancellation, debounced diagnostics.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use lanes_db::{salsa, File, LanesDatabase};
use lanes_diagnostics::ide;
use ropey::Rope;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use smol_str::SmolStr;
use tower_lsp_server::gen_lsp_types::*;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::{Client, LanguageServer};

use crate::analysis_thread::{panic_message, AnalysisThread, Outcome};
use crate::changes;
use crate::commands;
use crate::config;
use crate::convert::{self, uri_to_path, Conv, Published};

/// How long diagnostics wait for the next keystroke before being computed.
/// Short: an edit cancels the work of the previous one anyway (salsa), so
/// the debounce only coalesces bursts (a paste, a multi-cursor edit), and
/// every millisecond of it is latency (issue 5: edit → diagnostics p95
/// under 50 ms).
const DEBOUNCE: Duration = Duration::from_millis(5);

/// How long the document must stay unchanged after its diagnostics before
/// precondition inference starts: none runs while the user types.
const INFERENCE_IDLE: Duration = Duration::from_millis(300);

/// The first wait between two publishes (or refreshes) of a background
/// inference run; each publish doubles it up to [`PUBLISH_EVERY_MAX`]. The
/// first findings show quickly, and a run of 100 s on a large file sends
/// about ten whole-file publishes instead of one every half second.
const PUBLISH_EVERY_MIN: Duration = Duration::from_secs(1);
const PUBLISH_EVERY_MAX: Duration = Duration::from_secs(16);

pub const COMMANDS: &[&str] = &[
    "lanes.build",
    "lanes.showVectorIR",
    "lanes.showAsm",
    "lanes.explain",
];

struct Doc {
    rope: Rope,
    version: i32,
    file: File,
    /// Bumped by every change; a debounced diagnostics run only publishes
    /// if it is still the latest.
    generation: u64,
    /// The version and diagnostics last published: background runs (new
    /// preconditions) that change nothing publish nothing.
    published: Option<(i32, Arc<Vec<Arc<Published>>>)>,
    /// The last diagnostics rendered, per kernel, for the next run to reuse
    /// (used on the analysis thread only).
    reuse: Arc<Mutex<Reuse>>,
    /// Pull clients: the result id and diagnostics of the last
    /// `textDocument/diagnostic` answer; the next pull of equal diagnostics
    /// answers `unchanged`.
    pulled: Option<(String, Arc<Vec<Diagnostic>>)>,
    /// Pull clients: the diagnostics computed for a generation and a count
    /// of stored findings, shared by the edit's own run and the client's
    /// pull (whichever comes first computes them).
    computed: Option<(Stamp, Arc<Vec<Diagnostic>>)>,
}

type Reuse = ide::diagnostics::Reuse<Arc<Published>>;

/// The document's diagnostics ready to publish, reusing the renderings of
/// the kernels whose diagnostics did not change since the last run.
fn rendered(c: &Conv<'_>, reuse: &Mutex<Reuse>) -> Vec<Arc<Published>> {
    let mut reuse = reuse.lock().unwrap_or_else(|e| e.into_inner());
    let context = c.rendering_context();
    ide::diagnostics::diagnostics_reusing(
        c.db,
        c.file,
        &context,
        &mut reuse,
        &mut |d| c.published(d),
        &mut |p, s| c.shifted(p, s),
    )
}

/// What a document's diagnostics depend on that the server changes: the
/// document's generation and the number of findings stores so far.
type Stamp = (u64, u64);

pub(crate) struct State {
    pub db: LanesDatabase,
    docs: HashMap<String, Doc>,
    pub root: Option<PathBuf>,
    toml: config::Source,
    client: config::Source,
    progress: bool,
    refresh: Refresh,
    /// Options of the precondition inference (`None`: turned off).
    precond: Option<lanes_vectorizer::precond::Options>,
    /// Findings computed by a run a newer change stopped, per document.
    unstored: HashMap<String, Vec<(SmolStr, lanes_db::KernelFindings)>>,
    /// The settings name an unknown target: why the commands that need
    /// one fail.
    pub target_error: Option<String>,
    /// The `catalogueUrl` setting.
    catalogue_url: Option<String>,
    /// How the client gets diagnostics.
    pull: Pull,
    /// The last result id given to a pull answer (ids are never reused, so
    /// an id from before a close or a restart of the count never matches).
    last_result_id: u64,
    /// Bumped by every store of background findings.
    stores: u64,
}

/// LSP 3.17 pull diagnostics, for clients that advertise
/// `textDocument.diagnostic`: the client asks after each change and gets
/// `unchanged` when the file's diagnostics did not change (on a large file
/// a push carries every kernel's diagnostics after every keystroke).
#[derive(Default, Clone, Copy)]
struct Pull {
    on: bool,
    /// `workspace.diagnostics.refreshSupport`: background findings ask the
    /// client to pull again.
    refresh: bool,
}

#[derive(Default, Clone, Copy)]
struct Refresh {
    inlay: bool,
    lens: bool,
    tokens: bool,
}

pub(crate) struct Inner {
    pub client: Client,
    state: Mutex<State>,
    /// `file://` URL of the installed diagnostics catalogue, if there is
    /// one (codeDescription links; `catalogueUrl` overrides it).
    pub catalogue: Option<String>,
    /// The low-priority thread that runs precondition inference.
    worker: crate::background::Worker,
    /// The thread that computes the diagnostics of every edit.
    analysis: AnalysisThread,
    /// Set by `shutdown`: the process exit status is 0 only after it.
    shutdown_requested: Arc<std::sync::atomic::AtomicBool>,
    /// The writer of stdout, when the server runs on [`crate::transport`]:
    /// diagnostics are serialized straight to it. tower-lsp-server's
    /// `Client` turns them into a `serde_json::Value` first, which costs
    /// 30 ms for the 2,500 diagnostics of a 20,000-line file.
    raw_out: Option<crate::transport::Out>,
}

/// The server. Cheap to clone (tasks hold a clone).
#[derive(Clone)]
pub struct Backend(pub(crate) Arc<Inner>);

impl Backend {
    pub fn new(client: Client) -> Backend {
        Backend::with_shutdown_flag(client, Arc::default())
    }

    /// The server of [`crate::serve_stdio`]: `shutdown` sets the flag, and
    /// diagnostics go straight to the writer of stdout.
    pub(crate) fn on_stdio(
        client: Client,
        shutdown_requested: Arc<std::sync::atomic::AtomicBool>,
        out: crate::transport::Out,
    ) -> Backend {
        let mut inner = Backend::with_shutdown_flag(client, shutdown_requested).0;
        if let Some(inner) = Arc::get_mut(&mut inner) {
            inner.raw_out = Some(out);
        }
        Backend(inner)
    }

    /// A server that sets `shutdown_requested` when the client sends
    /// `shutdown` (LSP: exit status 0 after `shutdown`, 1 without it).
    pub fn with_shutdown_flag(
        client: Client,
        shutdown_requested: Arc<std::sync::atomic::AtomicBool>,
    ) -> Backend {
        Backend(Arc::new(Inner {
            client,
            state: Mutex::new(State {
                db: LanesDatabase::new(lanes_db::Settings::default()),
                docs: HashMap::new(),
                root: None,
                toml: config::Source::default(),
                client: config::Source::default(),
                progress: false,
                refresh: Refresh::default(),
                precond: Some(lanes_vectorizer::precond::Options::new(16)),
                unstored: HashMap::new(),
                target_error: None,
                catalogue_url: None,
                pull: Pull::default(),
                last_result_id: 0,
                stores: 0,
            }),
            catalogue: installed_catalogue(),
            worker: crate::background::Worker::new(),
            analysis: AnalysisThread::new(),
            shutdown_requested,
            raw_out: None,
        }))
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held cannot leave the state half
        // updated in a way that matters more than stopping the server.
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on a snapshot of the database for the open document `uri`,
    /// off the async threads. Cancellation by an edit, or an edit of the
    /// document while `f` ran, answers `ContentModified`; a cancellation by
    /// another input (new preconditions, settings) runs `f` again; a panic
    /// answers an internal error.
    pub(crate) async fn with_snapshot<T, F>(&self, uri: &Uri, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&Conv<'_>) -> T + Send + Sync + 'static,
    {
        self.snapshot_run(uri, f, false).await
    }

    /// [`Backend::with_snapshot`] on the analysis thread (for the
    /// diagnostics of an edit: see [`crate::analysis_thread`]).
    async fn with_snapshot_on_analysis_thread<T, F>(&self, uri: &Uri, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&Conv<'_>) -> T + Send + Sync + 'static,
    {
        self.snapshot_run(uri, f, true).await
    }

    async fn snapshot_run<T, F>(&self, uri: &Uri, f: F, analysis_thread: bool) -> Result<T>
    where
        T: Send + 'static,
        F: Fn(&Conv<'_>) -> T + Send + Sync + 'static,
    {
        let key = uri.to_string();
        let f = Arc::new(f);
        for _ in 0..3 {
            let (snap, file, version) = {
                let st = self.state();
                let Some(doc) = st.docs.get(&key) else {
                    return Err(Error::invalid_params(format!("{key} is not open")));
                };
                (st.db.clone(), doc.file, doc.version)
            };
            let docs = self.catalogue();
            let (k, f) = (key.clone(), f.clone());
            let job = move || {
                let c = Conv::new(&snap, file, k, docs.as_deref());
                f(&c)
            };
            let out = if analysis_thread {
                match self.0.analysis.run(job).await {
                    Some(outcome) => answer(outcome),
                    None => Err(internal("internal error in lanes: no analysis thread")),
                }
            } else {
                run_blocking(job).await
            };
            let current = self.state().docs.get(&key).map(|d| d.version);
            match out {
                Ok(v) if current == Some(version) => return Ok(v),
                Ok(_) => return Err(content_modified()),
                Err(e) if e.code == ErrorCode::ContentModified && current == Some(version) => {}
                Err(e) => return Err(e),
            }
        }
        Err(content_modified())
    }

    /// Where the diagnostics catalogue is: `catalogueUrl`, else the
    /// installed file, else nowhere.
    pub(crate) fn catalogue(&self) -> Option<String> {
        let configured = self.state().catalogue_url.clone();
        configured.or_else(|| self.0.catalogue.clone())
    }

    /// Applies the merged settings to the database. An unknown target is
    /// shown to the user (`window/showMessage`, once per new error): the
    /// analyses go on at the default target's width, the commands that need
    /// the target fail until it is fixed.
    async fn apply_settings(&self) {
        let (warnings, new_target_error) = {
            let mut st = self.state();
            let s = config::resolve(&st.toml, &st.client);
            st.precond = s.precond_options();
            st.db.set_settings(s);
            st.catalogue_url = config::catalogue_url(&st.toml, &st.client);
            let target_error = config::target_error(&st.toml, &st.client);
            let new = target_error
                .clone()
                .filter(|e| st.target_error.as_ref() != Some(e));
            st.target_error = target_error;
            let warnings = st
                .toml
                .errors
                .iter()
                .chain(&st.client.errors)
                .cloned()
                .collect::<Vec<_>>();
            (warnings, new)
        };
        for w in warnings {
            self.0
                .client
                .log_message(MessageType::Warning, format!("lanes: {w}"))
                .await;
        }
        if let Some(e) = new_target_error {
            self.0
                .client
                .show_message(MessageType::Error, format!("lanes: {e}"))
                .await;
        }
    }

    /// After a settings change: new diagnostics for every document, and the
    /// client asked to re-request what it caches.
    async fn settings_changed(&self) {
        self.apply_settings().await;
        let (uris, refresh, pull) = {
            let st = self.state();
            (
                st.docs.keys().cloned().collect::<Vec<_>>(),
                st.refresh,
                st.pull,
            )
        };
        for u in uris {
            self.schedule_diagnostics(u);
        }
        let client = self.0.client.clone();
        tokio::spawn(async move {
            // Failures only mean the client does not cache these.
            if pull.on && pull.refresh {
                let _ = client.workspace_diagnostic_refresh().await;
            }
            if refresh.inlay {
                let _ = client.inlay_hint_refresh().await;
            }
            if refresh.lens {
                let _ = client.code_lens_refresh().await;
            }
            if refresh.tokens {
                let _ = client.semantic_tokens_refresh().await;
            }
        });
    }

    fn schedule_diagnostics(&self, key: String) {
        let generation = {
            let mut st = self.state();
            let Some(doc) = st.docs.get_mut(&key) else {
                return;
            };
            doc.generation += 1;
            doc.generation
        };
        // The solver waits until this version's diagnostics are out.
        self.0.worker.gate().close();
        let this = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(DEBOUNCE).await;
            let published = this.publish(&key, generation, "diagnostics").await;
            // A newer change opens it after its own diagnostics.
            if this.current(&key, generation).is_some() {
                this.0.worker.gate().open();
                // What this edit's queries replaced (the previous revision's
                // parse, moved kernels' reports) would stay until the next
                // edit: two revisions held while the user pauses. Like a
                // setter, here and not on the analysis thread: it waits for
                // every snapshot to be dropped, also one queued there.
                this.state().db.free_replaced();
                this.0.analysis.free_parked();
            }
            if !published {
                return;
            }
            // Preconditions only after the diagnostics are out: Z3 never
            // delays them.
            this.infer_preconditions(&key, generation).await;
        });
    }

    /// The version of `key` if `generation` is still its latest change.
    fn current(&self, key: &str, generation: u64) -> Option<i32> {
        self.state()
            .docs
            .get(key)
            .filter(|d| d.generation == generation)
            .map(|d| d.version)
    }

    /// The LSP diagnostics of `key` now, and what they were computed for:
    /// the ones already computed for the same generation and findings if
    /// any, else computed on the analysis thread and kept for the next
    /// asker (pull clients: the edit's run and the client's pull).
    async fn current_diagnostics(&self, key: &str) -> Result<(Stamp, Arc<Vec<Diagnostic>>)> {
        let stamp = {
            let st = self.state();
            let Some(doc) = st.docs.get(key) else {
                return Err(Error::invalid_params(format!("{key} is not open")));
            };
            let stamp = (doc.generation, st.stores);
            if let Some((s, d)) = doc.computed.as_ref().filter(|(s, _)| *s == stamp) {
                return Ok((*s, d.clone()));
            }
            (stamp, doc.reuse.clone())
        };
        let (stamp, reuse) = stamp;
        let diags = self
            .with_snapshot_on_analysis_thread(&uri_owned(key), move |c| {
                rendered(c, &reuse)
                    .iter()
                    .map(|d| d.diag.clone())
                    .collect::<Vec<_>>()
            })
            .await?;
        let diags = Arc::new(diags);
        let mut st = self.state();
        let stores = st.stores;
        match st.docs.get_mut(key) {
            Some(doc) if doc.generation == stamp.0 => {
                // Findings stored since are shown by the run that stored
                // them: these are not kept for the next asker.
                if stores == stamp.1 {
                    doc.computed = Some((stamp, diags.clone()));
                }
                Ok((stamp, diags))
            }
            // A change arrived meanwhile.
            _ => Err(content_modified()),
        }
    }

    /// Pull clients: after background findings were stored, asks the
    /// client to pull again if the diagnostics differ from its last pull.
    async fn refresh_if_changed(&self, key: &str) {
        let Ok((_, diags)) = self.current_diagnostics(key).await else {
            return;
        };
        let (changed, refresh) = {
            let st = self.state();
            let changed = st
                .docs
                .get(key)
                .is_some_and(|d| d.pulled.as_ref().is_none_or(|(_, p)| *p != diags));
            (changed, st.pull.refresh)
        };
        if changed && refresh {
            let client = self.0.client.clone();
            // Not awaited: the client answers once it has pulled again.
            tokio::spawn(async move {
                let _ = client.workspace_diagnostic_refresh().await;
            });
        }
    }

    /// Computes and publishes the diagnostics of `key` unless a newer change
    /// (generation) overtook it; true when published. Pull clients get
    /// nothing pushed: the diagnostics are computed for their pull.
    async fn publish(&self, key: &str, generation: u64, what: &str) -> bool {
        let Some(version) = self.current(key, generation) else {
            return false;
        };
        if self.state().pull.on {
            return self.current_diagnostics(key).await.is_ok();
        }
        let uri = uri_owned(key);
        let started = std::time::Instant::now();
        let Some(reuse) = self.state().docs.get(key).map(|d| d.reuse.clone()) else {
            return false;
        };
        let diags = self
            .with_snapshot_on_analysis_thread(&uri, move |c| {
                let t = std::time::Instant::now();
                // The analysis: the front end and every kernel's report
                // (what the rendering below reads, then from salsa's memos).
                let _ = lanes_db::parse(c.db, c.file);
                for k in lanes_db::kernels(c.db, c.file) {
                    let _ = lanes_db::kernel_report(c.db, k);
                }
                let computed = t.elapsed();
                let out = rendered(c, &reuse);
                (out, computed, t.elapsed())
            })
            .await;
        // Cancelled or outdated: the newer change has its own run.
        let Ok((diags, computed, converted)) = diags else {
            return false;
        };
        let diags = Arc::new(diags);
        {
            let mut st = self.state();
            let Some(doc) = st.docs.get_mut(key).filter(|d| d.generation == generation) else {
                return false;
            };
            if doc
                .published
                .as_ref()
                .is_some_and(|(v, d)| *v == version && *d == diags)
            {
                // Already shown: nothing changed since.
                return true;
            }
            doc.published = Some((version, diags.clone()));
        }
        let n = diags.len();
        self.publish_rendered(uri, &diags, Some(version)).await;
        if timing() {
            eprintln!(
                "lanes lsp: {what} v{version}: {n} in {:?} (analysis {computed:?}, conversion {:?}) after the debounce",
                started.elapsed(),
                converted - computed
            );
        }
        true
    }

    /// `textDocument/publishDiagnostics` of rendered diagnostics: their JSON
    /// texts joined when the server owns stdout.
    async fn publish_rendered(&self, uri: Uri, diags: &[Arc<Published>], version: Option<i32>) {
        match &self.0.raw_out {
            Some(out) => out.send(convert::publish_body(&uri, diags, version)).await,
            None => {
                let diags: Vec<Diagnostic> = diags.iter().map(|d| d.diag.clone()).collect();
                self.publish_diagnostics(uri, &diags, version).await
            }
        }
    }

    /// `textDocument/publishDiagnostics`, serialized without an
    /// intermediate `serde_json::Value` when the server owns stdout.
    async fn publish_diagnostics(&self, uri: Uri, diags: &[Diagnostic], version: Option<i32>) {
        let Some(out) = &self.0.raw_out else {
            self.0
                .client
                .publish_diagnostics(uri, diags.to_vec(), version)
                .await;
            return;
        };
        let body = convert::publish_json(&uri, diags, version);
        match body {
            Ok(body) => out.send(body).await,
            Err(e) => eprintln!("lanes lsp: cannot serialize diagnostics: {e}"),
        }
    }

    /// Stores findings unless the document was closed or the options
    /// changed meanwhile (then they are of no use); false in that case.
    /// Shows the diagnostics after background findings were stored: a
    /// publish (only if they changed), or for pull clients a refresh.
    async fn show_background(&self, key: &str, generation: u64) {
        if self.state().pull.on {
            if self.current(key, generation).is_some() {
                self.refresh_if_changed(key).await;
            }
        } else {
            self.publish(key, generation, "preconditions").await;
        }
    }

    fn store_preconditions(
        &self,
        key: &str,
        file: File,
        options: &lanes_vectorizer::precond::Options,
        found: Vec<(SmolStr, lanes_db::KernelFindings)>,
    ) -> bool {
        let mut st = self.state();
        let st = &mut *st;
        if !st.docs.contains_key(key) || st.precond.as_ref() != Some(options) {
            return false;
        }
        lanes_db::set_kernel_preconditions(&mut st.db, file, found);
        st.stores += 1;
        true
    }

    /// Once the document has been idle for [`INFERENCE_IDLE`], infers the
    /// preconditions of the kernels of `key` whose analysis has none yet,
    /// one kernel at a time on the low-priority worker thread without a
    /// database snapshot (an edit never waits for Z3), stores the results
    /// in the database and publishes the diagnostics again. A newer change
    /// stops the run after the kernel in progress; its results are kept
    /// (they belong to that kernel's analysis, which the change may not
    /// have touched) and stored by the newer change's run.
    async fn infer_preconditions(&self, key: &str, generation: u64) {
        tokio::time::sleep(INFERENCE_IDLE).await;
        if self.current(key, generation).is_none() {
            return;
        }
        let Some(options) = self.state().precond.clone() else {
            return;
        };
        let Some(file) = self.state().docs.get(key).map(|d| d.file) else {
            return;
        };
        let stashed = self.state().unstored.remove(key).unwrap_or_default();
        // Whether findings were stored and not shown yet.
        let mut unshown = !stashed.is_empty();
        if unshown && !self.store_preconditions(key, file, &options, stashed) {
            return;
        }
        let snap = self.state().db.clone();
        let o = options.clone();
        let Ok((pending, spent, cache)) = run_blocking(move || {
            let spent = lanes_db::spent(&snap, file, &o);
            // The findings cache `lanes build` and `lanes check` use
            // (LANES_CACHE, LANES_CACHE_DIR): a file opened again, or in
            // another editor, gets the findings of its unchanged kernels
            // without running Z3.
            let cache = lanes_pipeline::Cache::from_env(false);
            let pending: Vec<_> = lanes_db::pending(&snap, file, &o)
                .into_iter()
                .map(|p| {
                    let key = cache
                        .as_ref()
                        .and_then(|c| lanes_db::cache_key(&snap, file, &p, &o, c));
                    (p, key)
                })
                .collect();
            (pending, spent, cache)
        })
        .await
        else {
            return;
        };
        // The file's budget, less what the kernels whose findings are kept
        // spent; the pending kernels spend the rest in file order.
        let mut file_left = options.budget.file.saturating_sub(spent);
        let started = std::time::Instant::now();
        let mut last = std::time::Instant::now();
        let mut last_shown = std::time::Instant::now();
        let mut show_every = PUBLISH_EVERY_MIN;
        let mut done = Vec::new();
        let total = pending.len();
        for (i, (p, entry)) in pending.into_iter().enumerate() {
            if self.current(key, generation).is_none() {
                break;
            }
            let cached = match (&cache, &entry) {
                (Some(c), Some(e)) => c.get(e, &p.name, file_left),
                _ => None,
            };
            let findings = match cached {
                Some(f) => f,
                None => {
                    let mut job = options.clone();
                    job.budget.file = file_left;
                    let inferred = self.0.worker.infer(p.analysis.clone(), job);
                    let Some(findings) = inferred.await else {
                        break;
                    };
                    if let (Some(c), Some(e)) = (&cache, &entry) {
                        c.put(e, file_left, options.budget.target, &findings);
                    }
                    findings
                }
            };
            let used: u64 = findings.iter().map(|f| f.spent).sum();
            file_left = file_left.saturating_sub(used);
            done.push((
                p.name,
                lanes_db::KernelFindings {
                    analysis: std::sync::Arc::downgrade(&p.analysis),
                    options: options.clone(),
                    findings,
                },
            ));
            // Storing cancels running queries (a newer edit's diagnostics):
            // store in batches, at the end or every half second.
            // Hovers and hints see the stored findings at once; the
            // diagnostics (a whole-file publish, or a refresh that makes a
            // pull client ask) go out at growing intervals and at the end.
            if i + 1 == total || last.elapsed() > Duration::from_millis(500) {
                if !self.store_preconditions(key, file, &options, std::mem::take(&mut done)) {
                    return;
                }
                last = std::time::Instant::now();
                unshown = true;
                if i + 1 == total || last_shown.elapsed() >= show_every {
                    self.show_background(key, generation).await;
                    unshown = false;
                    last_shown = std::time::Instant::now();
                    show_every = (show_every * 2).min(PUBLISH_EVERY_MAX);
                }
            }
        }
        // Stored and not shown (only findings of a stopped run, no kernel
        // left): show them. Stopped by a newer change: that change's
        // diagnostics include them.
        if unshown && self.current(key, generation).is_some() {
            self.show_background(key, generation).await;
        }
        // Stopped by a newer change: storing now would cancel that change's
        // diagnostics; the newer run stores these once it has published.
        if !done.is_empty() {
            self.state()
                .unstored
                .entry(key.to_string())
                .or_default()
                .extend(done);
        }
        if timing() {
            eprintln!(
                "lanes lsp: preconditions of {key} in {:?}",
                started.elapsed()
            );
        }
    }
}

fn uri_owned(s: &str) -> Uri {
    Uri::from(s)
}

/// `LANES_LSP_TIMING=1` logs how long diagnostics took (to stderr, the
/// client's log).
/// The protocol's name of an action's kind.
fn action_kind(k: ide::actions::ActionKind) -> &'static str {
    match k {
        ide::actions::ActionKind::QuickFix => "quickfix",
        ide::actions::ActionKind::Rewrite => "refactor.rewrite",
    }
}

fn timing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("LANES_LSP_TIMING").is_some())
}

pub(crate) fn content_modified() -> Error {
    Error {
        code: ErrorCode::ContentModified,
        message: "the document changed; ask again".into(),
        data: None,
    }
}

pub(crate) fn internal(msg: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: msg.into().into(),
        data: None,
    }
}

/// A command that could not be done, with why (LSP RequestFailed).
pub(crate) fn internal_message(msg: String) -> Error {
    request_failed(msg)
}

/// `f` on a blocking thread under `Cancelled::catch` and `catch_unwind`.
pub(crate) async fn run_blocking<T, F>(f: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let joined = tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(AssertUnwindSafe(|| {
            salsa::Cancelled::catch(AssertUnwindSafe(f))
        }))
    })
    .await;
    match joined {
        Ok(outcome) => answer(outcome),
        Err(e) => Err(internal(format!("internal error in lanes: {e}"))),
    }
}

/// The answer for what running a request gave: a cancelled one is
/// answered with `ContentModified`, a panic with an internal error.
fn answer<T>(outcome: Outcome<T>) -> Result<T> {
    match outcome {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(_cancelled)) => Err(content_modified()),
        Err(panic) => {
            let what = panic_message(&*panic);
            eprintln!("lanes lsp: internal error (panic) in a request: {what}");
            Err(internal(format!("internal error in lanes: {what}")))
        }
    }
}

/// A protocol struct from JSON built by `convert`.
fn typed<T: DeserializeOwned>(v: Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| internal(format!("bad result: {e}")))
}

/// `file://` URL of the diagnostics catalogue installed with the binary:
/// `<prefix>/share/doc/lanes/diagnostics.md` for `<prefix>/bin/lanes`.
/// A build tree has none: its links would name a checkout the user of an
/// installed binary does not have.
fn installed_catalogue() -> Option<String> {
    let exe = std::env::current_exe().ok()?;
    let prefix = exe.parent()?.parent()?;
    let path = prefix.join("share/doc/lanes/diagnostics.md");
    let path = path.canonicalize().ok().filter(|p| p.is_file())?;
    Some(convert::path_to_uri(&path))
}

fn pos_json(p: &Position) -> Value {
    json!({"line": p.line, "character": p.character})
}

fn range_json(r: &Range) -> Value {
    json!({"start": pos_json(&r.start), "end": pos_json(&r.end)})
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        #[allow(deprecated)]
        let root = params
            .workspace_folders_initialize_params
            .workspace_folders
            .as_ref()
            .and_then(|f| serde_json::to_value(f).ok())
            .and_then(|v| {
                v.as_array()
                    .and_then(|a| a.first())
                    .and_then(|f| f.get("uri"))
                    .and_then(Value::as_str)
                    .map(String::from)
            })
            .or_else(|| params.root_uri.as_ref().map(|u| u.to_string()))
            .map(|u| uri_to_path(&u));
        let caps = serde_json::to_value(&params.capabilities).unwrap_or_default();
        {
            let mut st = self.state();
            st.progress = caps
                .pointer("/window/workDoneProgress")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let flag = |p: &str| caps.pointer(p).and_then(Value::as_bool).unwrap_or(false);
            // Pull only when the client asks for it in its options as well:
            // a `full` answer goes through tower-lsp-server's response path,
            // which builds a `serde_json::Value` of every diagnostic, and
            // made code edits slower than pushes (bench/RESULTS.md).
            let opts = params
                .initialization_options
                .as_ref()
                .unwrap_or(&Value::Null);
            let opts = opts.get("lanes").filter(|l| l.is_object()).unwrap_or(opts);
            st.pull = Pull {
                on: caps
                    .pointer("/textDocument/diagnostic")
                    .is_some_and(Value::is_object)
                    && opts.get("pullDiagnostics").and_then(Value::as_bool) == Some(true),
                refresh: flag("/workspace/diagnostics/refreshSupport"),
            };
            st.refresh = Refresh {
                inlay: flag("/workspace/inlayHint/refreshSupport"),
                lens: flag("/workspace/codeLens/refreshSupport"),
                tokens: flag("/workspace/semanticTokens/refreshSupport"),
            };
            st.toml = config::toml_source(root.as_deref());
            st.client = config::client_source(
                params
                    .initialization_options
                    .as_ref()
                    .unwrap_or(&Value::Null),
                root.as_deref(),
            );
            st.root = root;
        }
        self.apply_settings().await;
        let pull = self.state().pull.on;
        let mut caps = json!({
            "positionEncoding": "utf-16",
            "textDocumentSync": {"openClose": true, "change": 2},
            "hoverProvider": true,
            "inlayHintProvider": true,
            "semanticTokensProvider": {
                "legend": {
                    "tokenTypes": ide::semantic::TOKEN_TYPES,
                    "tokenModifiers": ide::semantic::TOKEN_MODIFIERS,
                },
                "full": true,
                "range": true,
            },
            "codeActionProvider": {"codeActionKinds": ["quickfix", "refactor.rewrite"]},
            "codeLensProvider": {"resolveProvider": false},
            "documentSymbolProvider": true,
            "definitionProvider": true,
            "referencesProvider": true,
            "renameProvider": {"prepareProvider": true},
            "documentHighlightProvider": true,
            "executeCommandProvider": {"commands": COMMANDS},
        });
        if pull {
            // Diagnostics depend on included headers (interFileDependencies);
            // there are no workspace diagnostics beyond the open files.
            caps["diagnosticProvider"] = json!({
                "identifier": "lanes",
                "interFileDependencies": true,
                "workspaceDiagnostics": false,
            });
        }
        Ok(InitializeResult {
            capabilities: typed(caps)?,
            server_info: Some(typed(
                json!({"name": "lanes", "version": env!("CARGO_PKG_VERSION")}),
            )?),
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        // Nothing to register: the clients that watch files (the VS Code
        // extension watches `**/lanes.toml`) send didChangeWatchedFiles, the
        // others didChangeConfiguration.
    }

    async fn shutdown(&self) -> Result<()> {
        self.0
            .shutdown_requested
            .store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let td = params.text_document;
        let key = td.uri.to_string();
        {
            let mut st = self.state();
            let path = uri_to_path(&key);
            let file = st.db.set_file(path, &td.text, td.version);
            st.docs.insert(
                key.clone(),
                Doc {
                    rope: Rope::from_str(&td.text),
                    version: td.version,
                    file,
                    generation: 0,
                    published: None,
                    reuse: Arc::default(),
                    pulled: None,
                    computed: None,
                },
            );
        }
        self.schedule_diagnostics(key);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let key = params
            .text_document
            .text_document_identifier
            .uri
            .to_string();
        let version = params.text_document.version;
        let applied = {
            let mut st = self.state();
            let st = &mut *st;
            match st.docs.get_mut(&key) {
                None => Ok(false),
                Some(doc) => match changes::apply(&doc.rope, &params.content_changes) {
                    Err(why) => Err(format!(
                        "{key}: change to version {version} ignored: {why}; the document stays at version {}",
                        doc.version
                    )),
                    Ok(rope) => {
                        if version <= doc.version {
                            eprintln!(
                                "lanes lsp: {key}: version {version} after {}; applied anyway",
                                doc.version
                            );
                        }
                        doc.rope = rope;
                        doc.version = version;
                        let path = uri_to_path(&key);
                        let text = doc.rope.to_string();
                        // Cancels every running snapshot query; the previous
                        // revision is parked, and freed on the analysis thread
                        // once this one's diagnostics are out.
                        doc.file = st.db.set_file(path, &text, version);
                        Ok(true)
                    }
                },
            }
        };
        match applied {
            Ok(true) => self.schedule_diagnostics(key),
            Ok(false) => {}
            Err(why) => {
                self.0
                    .client
                    .log_message(MessageType::Warning, format!("lanes: {why}"))
                    .await
            }
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let key = params.text_document.uri.to_string();
        {
            let mut st = self.state();
            st.unstored.remove(&key);
            if st.docs.remove(&key).is_some() {
                // No diagnostics of this document are pending any more.
                self.0.worker.gate().open();
                // The file may still be included by others: its disk text.
                let f = st.db.reload_from_disk(&uri_to_path(&key));
                lanes_db::Db::last_good(&st.db).forget(f);
                lanes_db::Db::parse_memos(&st.db).forget(f);
                // No diagnostics job may follow to free what was parked.
                lanes_db::reclaim::free_parked();
            }
            if st.pull.on {
                // A pull client forgets a closed document's diagnostics.
                return;
            }
        }
        self.publish_diagnostics(params.text_document.uri, &[], None)
            .await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        // `null` settings (clients that expect a pull) keep what we have.
        if params.settings.is_null() {
            return;
        }
        {
            let mut st = self.state();
            let root = st.root.clone();
            st.client = config::client_source(&params.settings, root.as_deref());
        }
        self.settings_changed().await;
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let mut toml = false;
        {
            let mut st = self.state();
            for ch in &params.changes {
                let key = ch.uri.to_string();
                let path = uri_to_path(&key);
                if path.file_name().is_some_and(|n| n == "lanes.toml") {
                    toml = true;
                } else if !st.docs.contains_key(&key) && st.db_has(&path) {
                    // A header changed on disk: its includers re-run.
                    st.db.reload_from_disk(&path);
                }
            }
            if toml {
                st.toml = config::toml_source(st.root.as_deref());
            }
        }
        self.settings_changed().await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let tp = params.text_document_position_params;
        let p = pos_json(&tp.position);
        let v = self
            .with_snapshot(&tp.text_document.uri, move |c| {
                ide::hover::hover(c.db, c.file, c.offset(&p)).map(|h| {
                    json!({
                        "contents": {"kind": "markdown", "value": h.markdown},
                        "range": c.range(h.range),
                    })
                })
            })
            .await?;
        v.map(typed).transpose()
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let r = range_json(&params.range);
        let v = self
            .with_snapshot(&params.text_document.uri, move |c| {
                let range = c.text_range(&r);
                let hints = ide::inlay::inlay_hints(c.db, c.file, range);
                Value::Array(
                    hints
                        .iter()
                        .map(|h| {
                            let mut v = json!({
                                "position": c.pos(h.offset),
                                "label": h.label,
                                "paddingLeft": h.padding_left,
                                "paddingRight": h.padding_right,
                            });
                            if h.kind == ide::inlay::InlayKind::Shape {
                                v["kind"] = json!(1);
                            }
                            if let Some(t) = &h.tooltip {
                                v["tooltip"] = json!(t);
                            }
                            v
                        })
                        .collect(),
                )
            })
            .await?;
        Ok(Some(typed(v)?))
    }

    async fn semantic_tokens_full(
        &self,
        params: SemanticTokensParams,
    ) -> Result<Option<SemanticTokens>> {
        let v = self
            .with_snapshot(&params.text_document.uri, |c| {
                convert::semantic_tokens(c, &ide::semantic::semantic_tokens(c.db, c.file))
            })
            .await?;
        Ok(Some(typed(v)?))
    }

    async fn semantic_tokens_range(
        &self,
        params: SemanticTokensRangeParams,
    ) -> Result<Option<SemanticTokens>> {
        let r = range_json(&params.range);
        let v = self
            .with_snapshot(&params.text_document.uri, move |c| {
                let range = c.text_range(&r);
                convert::semantic_tokens(c, &ide::semantic::semantic_tokens_in(c.db, c.file, range))
            })
            .await?;
        Ok(Some(typed(v)?))
    }

    async fn code_action(
        &self,
        params: CodeActionParams,
    ) -> Result<Option<Vec<CodeActionResponse>>> {
        let r = range_json(&params.range);
        let uri = params.text_document.uri.to_string();
        // The kinds the client asked for (`context.only`): a kind matches
        // itself and its sub-kinds (`refactor` matches `refactor.rewrite`).
        let only: Option<Vec<String>> = params
            .context
            .only
            .map(|ks| ks.iter().map(|k| k.as_str().to_string()).collect());
        let wanted = move |kind: &str| {
            only.as_ref().is_none_or(|ks| {
                ks.iter()
                    .any(|k| kind == k || kind.starts_with(&format!("{k}.")))
            })
        };
        let v = self
            .with_snapshot(&params.text_document.uri, move |c| {
                let range = c.text_range(&r);
                let mut actions = ide::actions::code_actions(c.db, c.file, range);
                actions.retain(|a| wanted(action_kind(a.kind)));
                let diags = ide::diagnostics::diagnostics(c.db, c.file);
                Value::Array(
                    actions
                        .iter()
                        .map(|a| {
                            let mut v = json!({
                                "title": a.title,
                                "kind": action_kind(a.kind),
                                "edit": {"changes": {uri.clone(): c.edits(&a.edits)}},
                                "isPreferred": a.preferred,
                            });
                            if let Some((code, range)) = a.diagnostic {
                                let d: Vec<Value> = diags
                                    .iter()
                                    .filter(|d| d.code == code && d.range == range)
                                    .map(|d| c.diagnostic(d))
                                    .collect();
                                if !d.is_empty() {
                                    v["diagnostics"] = Value::Array(d);
                                }
                            }
                            v
                        })
                        .collect(),
                )
            })
            .await?;
        Ok(Some(typed(v)?))
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = params.text_document.uri.to_string();
        let v = self
            .with_snapshot(&params.text_document.uri, move |c| {
                let lenses = ide::lens::code_lens(c.db, c.file);
                Value::Array(
                    lenses
                        .iter()
                        .map(|l| {
                            // The clients pass `[uri, kernel]` (not the path).
                            let kernel = l.arguments.get(1).cloned().unwrap_or_default();
                            json!({
                                "range": c.range(l.range),
                                "command": {
                                    "title": l.title,
                                    "command": l.command,
                                    "arguments": [uri, kernel],
                                },
                            })
                        })
                        .collect(),
                )
            })
            .await?;
        Ok(Some(typed(v)?))
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let v = self
            .with_snapshot(&params.text_document.uri, |c| {
                let syms = ide::symbols::document_symbols(c.db, c.file);
                Value::Array(syms.iter().map(|s| convert::symbol(c, s)).collect())
            })
            .await?;
        Ok(Some(typed(v)?))
    }

    async fn goto_definition(
        &self,
        params: DefinitionParams,
    ) -> Result<Option<DefinitionResponse>> {
        let tp = params.text_document_position_params;
        let p = pos_json(&tp.position);
        let v = self
            .with_snapshot(&tp.text_document.uri, move |c| {
                ide::symbols::goto_definition(c.db, c.file, c.offset(&p)).map(|l| c.location(&l))
            })
            .await?;
        v.map(typed).transpose()
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let tp = params.text_document_position_params;
        let p = pos_json(&tp.position);
        let decl = params.context.include_declaration;
        let uri = tp.text_document.uri.to_string();
        let v = self
            .with_snapshot(&tp.text_document.uri, move |c| {
                let refs = ide::symbols::references(c.db, c.file, c.offset(&p), decl);
                Value::Array(
                    refs.iter()
                        .map(|r| json!({"uri": uri, "range": c.range(*r)}))
                        .collect(),
                )
            })
            .await?;
        Ok(Some(typed(v)?))
    }

    async fn document_highlight(
        &self,
        params: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        let tp = params.text_document_position_params;
        let p = pos_json(&tp.position);
        let v = self
            .with_snapshot(&tp.text_document.uri, move |c| {
                use ide::symbols::HighlightKind as H;
                let hs = ide::symbols::document_highlight(c.db, c.file, c.offset(&p));
                Value::Array(
                    hs.iter()
                        .map(|h| {
                            let kind = match h.kind {
                                H::Text => 1,
                                H::Read => 2,
                                H::Write => 3,
                            };
                            json!({"range": c.range(h.range), "kind": kind})
                        })
                        .collect(),
                )
            })
            .await?;
        Ok(Some(typed(v)?))
    }

    async fn prepare_rename(
        &self,
        tp: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResult>> {
        let p = pos_json(&tp.position);
        let v = self
            .with_snapshot(&tp.text_document.uri, move |c| {
                ide::symbols::prepare_rename(c.db, c.file, c.offset(&p))
                    .map(|(r, name)| json!({"range": c.range(r), "placeholder": name}))
            })
            .await?;
        match v {
            Ok(v) => Ok(Some(typed(v)?)),
            Err(msg) => Err(request_failed(msg)),
        }
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let tp = params.text_document_position_params;
        let p = pos_json(&tp.position);
        let new_name = params.new_name;
        let uri = tp.text_document.uri.to_string();
        let v = self
            .with_snapshot(&tp.text_document.uri, move |c| {
                ide::symbols::rename(c.db, c.file, c.offset(&p), &new_name)
                    .map(|edits| json!({"changes": {uri.clone(): c.edits(&edits)}}))
            })
            .await?;
        match v {
            Ok(v) => Ok(Some(typed(v)?)),
            Err(msg) => Err(request_failed(msg)),
        }
    }

    /// `textDocument/diagnostic`: the document's diagnostics, or
    /// `unchanged` when they equal those of the result id the client has.
    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReport> {
        let key = params.text_document.uri.to_string();
        let (stamp, diags) = self
            .current_diagnostics(&key)
            .await
            .map_err(retrigger_if_modified)?;
        let mut st = self.state();
        let st = &mut *st;
        let Some(doc) = st.docs.get_mut(&key) else {
            return Err(Error::invalid_params(format!("{key} is not open")));
        };
        if doc.generation != stamp.0 {
            return Err(retrigger_if_modified(content_modified()));
        }
        let id = match &doc.pulled {
            Some((id, d)) if *d == diags => id.clone(),
            _ => {
                st.last_result_id += 1;
                let id = st.last_result_id.to_string();
                doc.pulled = Some((id.clone(), diags.clone()));
                id
            }
        };
        if params.previous_result_id.as_deref() == Some(id.as_str()) {
            return Ok(RelatedUnchangedDocumentDiagnosticReport::new(
                None,
                UnchangedDocumentDiagnosticReport::new(id),
            )
            .into());
        }
        Ok(RelatedFullDocumentDiagnosticReport::new(
            None,
            FullDocumentDiagnosticReport::new(Some(id), diags.to_vec()),
        )
        .into())
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LspAny>> {
        commands::execute(self, params).await.map(Some)
    }
}

/// A pull cancelled by a change answers ServerCancelled (-32802) with
/// `retriggerRequest`: the client asks again. (ContentModified would make
/// vscode-languageclient show an empty list until its next pull.)
fn retrigger_if_modified(e: Error) -> Error {
    if e.code != ErrorCode::ContentModified {
        return e;
    }
    Error {
        code: ErrorCode::ServerError(-32802),
        message: "the document changed; ask again".into(),
        data: Some(json!({"retriggerRequest": true})),
    }
}

/// LSP's RequestFailed (-32803): the request was valid but cannot be done
/// (the client shows the message).
fn request_failed(msg: String) -> Error {
    Error {
        code: ErrorCode::ServerError(-32803),
        message: msg.into(),
        data: None,
    }
}

impl State {
    fn db_has(&self, path: &Path) -> bool {
        use lanes_db::Db;
        self.db.file(path).is_some()
    }

    /// The open document with this path, if any: its URI and file.
    pub(crate) fn open_file(&self, path: &Path) -> Option<(String, File, i32)> {
        self.docs
            .iter()
            .find(|(k, _)| uri_to_path(k) == path)
            .map(|(k, d)| (k.clone(), d.file, d.version))
    }

    pub(crate) fn progress(&self) -> bool {
        self.progress
    }
}
