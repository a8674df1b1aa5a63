//! Freeing large results off the edit's path. When an edit makes a new
//! revision, salsa drops the previous `parse` result inside the setter: a
//! whole file's tokens, syntax tree and HIR, a third of what the new parse
//! costs on a 20,000-line file. The setter parks it instead ([`drop_later`]),
//! so the new revision's queries start at once, and whoever computes the
//! edits frees it when it has nothing else to do ([`free_parked`]): the
//! language server's analysis thread between two jobs.
//!
//! Freeing on the thread that allocates the next revision, and never at the
//! same time as it, keeps the two from taking the allocator's locks in
//! turn (a thread of its own that freed while the next edit's front end ran
//! made that front end slower). At most [`PENDING`] results are parked; past
//! that the caller frees inline, so edits that come faster than the parked
//! results are freed cannot make memory grow.

use std::sync::Mutex;

/// Results parked at most.
pub const PENDING: usize = 1;

type Garbage = Box<dyn Send>;

static PARKED: Mutex<Vec<Garbage>> = Mutex::new(Vec::new());

/// Parks `value` until [`free_parked`], or frees it inline when [`PENDING`]
/// results are parked already.
pub(crate) fn drop_later<T: Send + 'static>(value: T) {
    let mut parked = PARKED.lock().unwrap_or_else(|e| e.into_inner());
    if parked.len() < PENDING {
        parked.push(Box::new(value));
        return;
    }
    drop(parked);
    drop(value);
}

/// Frees the parked results on the calling thread.
pub fn free_parked() {
    let parked = std::mem::take(&mut *PARKED.lock().unwrap_or_else(|e| e.into_inner()));
    drop(parked);
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

    /// One test, as the parked results are the process's.
    #[test]
    fn garbage_is_freed_by_free_parked_and_never_piles_up() {
        let (tx, rx) = channel();
        free_parked();
        drop_later(Probe(tx.clone()));
        assert!(rx.try_recv().is_err(), "parked, not freed");
        // Past PENDING the caller frees at once.
        let caller = std::thread::current().name().map(String::from);
        for _ in 0..3 {
            drop_later(Probe(tx.clone()));
            assert_eq!(rx.try_recv().ok(), Some(caller.clone()));
        }
        // The parked one is freed by whoever frees, here another thread.
        std::thread::Builder::new()
            .name("freer".into())
            .spawn(free_parked)
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(rx.try_recv().ok(), Some(Some("freer".into())));
        assert!(rx.try_recv().is_err());
    }
}
