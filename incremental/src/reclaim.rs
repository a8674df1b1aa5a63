//! Freeing large results off the edit's path. When an edit makes a new
//! revision, salsa drops the previous `parse` result inside the setter: a
//! whole file's tokens, syntax tree and HIR, a third of what the new parse
//! costs on a 20,000-line file. Handing it to a thread that only frees
//! memory lets the new revision's queries start at once.
//!
//! The language server holds that thread ([`hold`], [`release`]) while it
//! answers an edit: freeing on the other core while the front end allocates
//! slows the front end down (both take the allocator's locks). At most
//! [`PENDING`] results wait; past that the caller frees inline, so edits
//! that come faster than the thread frees cannot make memory grow.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The longest [`hold`] keeps garbage waiting (a holder that forgot to
/// release cannot keep memory for good).
const HOLD: Duration = Duration::from_secs(2);

/// Results waiting to be freed, at most (besides the one being freed).
pub const PENDING: usize = 1;

static HELD: (Mutex<bool>, Condvar) = (Mutex::new(false), Condvar::new());

/// Results handed over and not freed yet.
static WAITING: AtomicUsize = AtomicUsize::new(0);

/// Garbage waits from now on (what is being freed is finished first).
pub fn hold() {
    *HELD.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
}

/// Garbage is freed again.
pub fn release() {
    *HELD.0.lock().unwrap_or_else(|e| e.into_inner()) = false;
    HELD.1.notify_all();
}

/// Waits while held, at most [`HOLD`].
fn wait_released() {
    let start = Instant::now();
    let mut held = HELD.0.lock().unwrap_or_else(|e| e.into_inner());
    while *held {
        let left = HOLD.saturating_sub(start.elapsed());
        if left.is_zero() {
            return;
        }
        held = match HELD.1.wait_timeout(held, left) {
            Ok((g, _)) => g,
            Err(e) => e.into_inner().0,
        };
    }
}

type Garbage = Box<dyn Send>;

/// Frees `value` on the reclaiming thread, or inline when [`PENDING`]
/// results already wait there (or the thread cannot be started).
pub(crate) fn drop_later<T: Send + 'static>(value: T) {
    static QUEUE: OnceLock<Option<Mutex<Sender<Garbage>>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (tx, rx) = channel::<Garbage>();
        std::thread::Builder::new()
            .name("lanes-reclaim".into())
            .spawn(move || {
                for garbage in rx {
                    wait_released();
                    WAITING.fetch_sub(1, Ordering::SeqCst);
                    drop(garbage);
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    });
    let Some(tx) = queue else {
        return drop(value);
    };
    if WAITING.fetch_add(1, Ordering::SeqCst) >= PENDING {
        WAITING.fetch_sub(1, Ordering::SeqCst);
        return drop(value);
    }
    let sent = match tx.lock() {
        Ok(tx) => tx.send(Box::new(value) as Garbage).err().map(|e| e.0),
        Err(_) => {
            WAITING.fetch_sub(1, Ordering::SeqCst);
            return drop(value);
        }
    };
    if let Some(value) = sent {
        WAITING.fetch_sub(1, Ordering::SeqCst);
        drop(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{channel, Sender};

    /// Reports the name of the thread that drops it.
    struct Probe(Sender<Option<String>>);
    impl Drop for Probe {
        fn drop(&mut self) {
            let _ = self.0.send(std::thread::current().name().map(String::from));
        }
    }

    /// One test, as the queue and the hold are the process's.
    #[test]
    fn garbage_is_freed_on_the_reclaiming_thread_and_never_piles_up() {
        let (tx, rx) = channel();
        drop_later(Probe(tx.clone()));
        assert_eq!(rx.recv().unwrap().as_deref(), Some("lanes-reclaim"));

        // Held: the first value waits, the ones past PENDING are freed by
        // the caller at once.
        hold();
        drop_later(Probe(tx.clone()));
        let caller = std::thread::current().name().map(String::from);
        for _ in 0..3 {
            drop_later(Probe(tx.clone()));
            assert_eq!(rx.recv().unwrap(), caller);
        }
        release();
        assert_eq!(rx.recv().unwrap().as_deref(), Some("lanes-reclaim"));
    }
}
