//! Freeing large results off the edit's path. When an edit makes a new
//! revision, salsa drops the previous `parse` result inside the setter: a
//! whole file's tokens, syntax tree and HIR, a third of what the new parse
//! costs on a 20,000-line file. Handing it to a thread that only frees
//! memory lets the new revision's queries start at once. That thread runs
//! at the lowest priority, and the language server holds it ([`hold`],
//! [`release`]) while it answers an edit: freeing on the other core while
//! the front end allocates slows the front end down (both take the
//! allocator's locks).

use std::sync::mpsc::{channel, Sender};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The longest [`hold`] keeps garbage (a holder that forgot to release
/// cannot make memory grow for good).
const HOLD: Duration = Duration::from_secs(2);

static HELD: (Mutex<bool>, Condvar) = (Mutex::new(false), Condvar::new());

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

/// Frees `value` on the reclaiming thread (inline if that thread cannot be
/// started).
pub(crate) fn drop_later<T: Send + 'static>(value: T) {
    static QUEUE: OnceLock<Option<Mutex<Sender<Garbage>>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        let (tx, rx) = channel::<Garbage>();
        std::thread::Builder::new()
            .name("lanes-reclaim".into())
            .spawn(move || {
                lowest_priority();
                for garbage in rx {
                    wait_released();
                    drop(garbage);
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    });
    let value: Garbage = Box::new(value);
    let rejected = match queue {
        Some(tx) => match tx.lock() {
            Ok(tx) => tx.send(value).err().map(|e| e.0),
            Err(_) => Some(value),
        },
        None => Some(value),
    };
    drop(rejected);
}

/// nice 19 for the calling thread (Linux schedules threads individually).
fn lowest_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and setpriority on the calling thread have no memory
    // effects; a failure leaves the priority as it was.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, 19);
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

    #[test]
    fn values_are_dropped_on_the_reclaiming_thread() {
        let (tx, rx) = channel();
        drop_later(Probe(tx));
        assert_eq!(rx.recv().unwrap().as_deref(), Some("lanes-reclaim"));
    }

    #[test]
    fn held_garbage_is_freed_on_release() {
        let (tx, rx) = channel();
        hold();
        drop_later(Probe(tx));
        release();
        assert_eq!(rx.recv().unwrap().as_deref(), Some("lanes-reclaim"));
    }
}
