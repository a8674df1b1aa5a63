//! The precondition inference worker: one thread at a lower scheduling
//! priority (nice 10), so that the solver takes only the CPU that the
//! interactive requests leave (on a 2-core machine the difference between
//! sharing a core and yielding it is the editor's latency). Jobs run in
//! order; a panic in the inference of one kernel is reported as no findings.

use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};

use lanes_db::Analysis;
use lanes_vectorizer::precond::{Finding, Gate, Options};
use tokio::sync::oneshot;

type Job = (Arc<Analysis>, Options, oneshot::Sender<Vec<Finding>>);

pub(crate) struct Worker {
    jobs: Mutex<Option<Sender<Job>>>,
    /// Closed while an edit's diagnostics are being computed: the solver
    /// waits between two queries (see [`Gate`]).
    gate: Gate,
}

impl Worker {
    pub fn new() -> Worker {
        Worker {
            jobs: Mutex::new(None),
            gate: Gate::default(),
        }
    }

    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// The findings of one kernel's analysis; `None` if the worker is gone.
    pub async fn infer(&self, analysis: Arc<Analysis>, options: Options) -> Option<Vec<Finding>> {
        let rx = self.submit(analysis, options)?;
        rx.await.ok()
    }

    fn submit(
        &self,
        analysis: Arc<Analysis>,
        options: Options,
    ) -> Option<oneshot::Receiver<Vec<Finding>>> {
        let (tx, rx) = oneshot::channel();
        let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        let sender = jobs.get_or_insert_with(|| spawn(self.gate.clone()));
        if let Err(e) = sender.send((analysis, options, tx)) {
            // The thread died (it never should): start another once.
            let fresh = spawn(self.gate.clone());
            fresh.send(e.0).ok()?;
            *jobs = Some(fresh);
        }
        Some(rx)
    }
}

fn spawn(gate: Gate) -> Sender<Job> {
    let (tx, rx) = channel::<Job>();
    let spawned = std::thread::Builder::new()
        .name("lanes-preconditions".into())
        .spawn(move || {
            lower_priority();
            for (analysis, options, reply) in rx {
                let found = lanes_db::infer_gated(&analysis, &options, Some(&gate));
                let _ = reply.send(found);
                release_free_memory();
            }
        });
    if let Err(e) = spawned {
        eprintln!("lanes lsp: cannot start the precondition thread: {e}");
    }
    tx
}

/// nice 10 for the calling thread (Linux schedules threads individually;
/// elsewhere this is a no-op).
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and setpriority on the calling thread have no memory
    // effects; failure only leaves the priority as it was.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 10);
    }
}

/// Gives the memory the solver freed back to the system. Z3 allocates
/// tens of megabytes per kernel through malloc, on this thread's arena;
/// glibc keeps the freed pages, and the server's resident set would stay at
/// the high-water mark of every inference so far.
pub(crate) fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the system.
    unsafe {
        libc::malloc_trim(0);
    }
}
