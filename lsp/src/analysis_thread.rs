//! The thread that computes every edit's diagnostics.
//!
//! Each edit runs the front end on the whole file, which allocates a new
//! revision of it (tokens, syntax tree, HIR: tens of megabytes on 20,000
//! lines) and frees the previous one. glibc's malloc gives each thread its
//! own arena and keeps what is freed there for that arena; when edits ran on
//! whichever thread of tokio's blocking pool was free, several arenas each
//! grew to a whole revision and the resident set kept growing with the
//! number of threads that had run one. On one thread, one arena holds them
//! and the memory freed by one edit is what the next one reuses. Requests
//! (hovers, hints) stay on the blocking pool: they allocate little and must
//! not wait behind an edit.
//!
//! The previous revision, parked by the edit's setter, is freed here too
//! ([`AnalysisThread::free_parked`]), as a job of its own that the server
//! gives once the edit's diagnostics are published: never while the next
//! edit's front end allocates, nor while the diagnostics are sent.

use std::any::Any;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;

use lanes_db::salsa;
use tokio::sync::oneshot;

/// What running a job gave: its value, a cancellation, or a panic.
pub(crate) type Outcome<T> = std::thread::Result<Result<T, salsa::Cancelled>>;

type Job = Box<dyn FnOnce() + Send>;

pub(crate) struct AnalysisThread {
    jobs: Mutex<Option<Sender<Job>>>,
}

impl AnalysisThread {
    pub fn new() -> AnalysisThread {
        AnalysisThread {
            jobs: Mutex::new(None),
        }
    }

    /// Runs `f` on the thread, under `Cancelled::catch` and `catch_unwind`;
    /// jobs run in the order they were given. `None` when the thread
    /// cannot be started.
    pub async fn run<T, F>(&self, f: F) -> Option<Outcome<T>>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move || {
            let out = std::panic::catch_unwind(AssertUnwindSafe(|| {
                salsa::Cancelled::catch(AssertUnwindSafe(f))
            }));
            let _ = tx.send(out);
        });
        self.submit(job)?;
        rx.await.ok()
    }

    /// Frees the results the setters parked, after the jobs given before.
    pub fn free_parked(&self) {
        let _ = self.submit(Box::new(lanes_db::reclaim::free_parked));
    }

    fn submit(&self, job: Job) -> Option<()> {
        let mut jobs = self.jobs.lock().unwrap_or_else(|e| e.into_inner());
        let sender = match jobs.as_ref() {
            Some(s) => s.clone(),
            None => jobs.insert(spawn()?).clone(),
        };
        if let Err(e) = sender.send(job) {
            // The thread is gone (it never should be): start another once.
            let fresh = spawn()?;
            fresh.send(e.0).ok()?;
            *jobs = Some(fresh);
        }
        Some(())
    }
}

fn spawn() -> Option<Sender<Job>> {
    let (tx, rx) = channel::<Job>();
    let spawned = std::thread::Builder::new()
        .name("lanes-analysis".into())
        .spawn(move || {
            for job in rx {
                job();
            }
        });
    match spawned {
        Ok(_) => Some(tx),
        Err(e) => {
            eprintln!("lanes lsp: cannot start the analysis thread: {e}");
            None
        }
    }
}

/// The message of a panic's payload.
pub(crate) fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn jobs_run_in_order_on_one_thread() {
        let t = AnalysisThread::new();
        let mut ids = Vec::new();
        for i in 0..4 {
            let out = t.run(move || (i, std::thread::current().id())).await;
            let (j, id) = out.expect("ran").expect("no panic").expect("not cancelled");
            assert_eq!(j, i);
            ids.push(id);
        }
        assert!(ids.iter().all(|&id| id == ids[0]));
        assert_ne!(ids[0], std::thread::current().id());
    }

    #[tokio::test]
    async fn a_panic_is_returned_and_the_thread_goes_on() {
        let t = AnalysisThread::new();
        let out = t.run(|| -> u32 { panic!("broken kernel") }).await;
        let panic = out.expect("ran").expect_err("panicked");
        assert_eq!(panic_message(&*panic), "broken kernel");
        let out = t.run(|| 7u32).await;
        assert_eq!(
            out.expect("ran").expect("no panic").expect("not cancelled"),
            7
        );
    }
}
