//! The facts a kernel shows in the editor, and the last good ones of a
//! kernel that has errors now.
//!
//! While someone types inside a kernel, its code has errors most of the
//! time and the kernel is not analysed ([`crate::kernel::analysable`]).
//! Its facts from the last text in which it was analysed are still right
//! wherever the text around them is unchanged: [`kernel_facts`] keeps each
//! kernel's last analysed result (outside salsa: it is a cache of what the
//! editor was shown, not a query) and maps it onto the current text through
//! the common prefix and suffix of the two texts. Facts inside the changed
//! part are dropped; the rest are marked stale.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use lanes_frontend::source::{FileId, Span};
use lanes_vectorizer::precond::Finding;
use smol_str::SmolStr;

use crate::db::{Db, File};
use crate::kernel::{analysable, kernel_report, map_diag, map_report, Kernel, KernelResult};
use crate::precond::kernel_findings;

/// What the editor shows for a kernel.
#[derive(Clone, Default)]
pub struct KernelFacts {
    /// The report (or the vectorizer's refusal); `None` when the kernel was
    /// never analysed.
    pub result: Option<Arc<KernelResult>>,
    /// Inferred preconditions, once computed for the analysis shown.
    pub findings: Option<Arc<Vec<Finding>>>,
    /// True when the facts come from the last version in which the kernel
    /// was analysed (it has errors now).
    pub stale: bool,
}

/// The last analysed facts of each kernel, shared by every snapshot of a
/// database.
#[derive(Clone, Default)]
pub struct LastGood(Arc<Mutex<HashMap<(File, SmolStr), Entry>>>);

struct Entry {
    /// The file's text the facts are in.
    text: Arc<str>,
    main: FileId,
    width: u32,
    result: Arc<KernelResult>,
    findings: Option<Arc<Vec<Finding>>>,
}

impl LastGood {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(File, SmolStr), Entry>> {
        // Entries are replaced whole: a panic elsewhere cannot leave one
        // half-written.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets the kernels of a file (closed in the editor).
    pub fn forget(&self, file: File) {
        self.lock().retain(|(f, _), _| *f != file);
    }
}

/// The kernel's facts: its current report when it is analysed, else the
/// last good one mapped onto the current text.
pub fn kernel_facts(db: &dyn Db, kernel: Kernel<'_>) -> KernelFacts {
    let file = kernel.file(db);
    let name = kernel.name(db).clone();
    let text = file.contents(db).clone().unwrap_or_else(|| Arc::from(""));
    let width = db.config().width(db);
    let main = crate::parse(db, file).unit.main;
    if analysable(db, kernel) {
        let result = kernel_report(db, kernel).clone();
        let findings = kernel_findings(db, kernel).clone();
        if let Some(r) = &result {
            let entry = Entry {
                text,
                main,
                width,
                result: r.clone(),
                findings: findings.clone(),
            };
            db.last_good().lock().insert((file, name), entry);
        }
        return KernelFacts {
            result,
            findings,
            stale: false,
        };
    }
    let store = db.last_good();
    let map = store.lock();
    let Some(e) = map.get(&(file, name)) else {
        return KernelFacts::default();
    };
    if e.width != width || e.main != main {
        return KernelFacts::default();
    }
    let shift = TextShift::new(&e.text, &text);
    let m = |s: Span| shift.map(s, main);
    let result = match &*e.result {
        Ok(r) => Ok(map_report(r, &m)),
        Err(ds) => Err(ds.iter().filter_map(|d| map_diag(d, &m)).collect()),
    };
    let findings = e.findings.as_ref().map(|fs| {
        Arc::new(
            fs.iter()
                .filter_map(|f| {
                    let mut f = f.clone();
                    f.span = m(f.span)?;
                    f.stmt = match f.stmt {
                        Some(s) => Some(m(s)?),
                        None => None,
                    };
                    Some(f)
                })
                .collect(),
        )
    });
    KernelFacts {
        result: Some(Arc::new(result)),
        findings,
        stale: true,
    }
}

/// How offsets of an old text map to a new one: the common prefix stays,
/// the common suffix moves by the change in length, the rest is gone.
struct TextShift {
    prefix: u32,
    /// Where the common suffix starts in the old text.
    old_suffix: u32,
    delta: i64,
}

impl TextShift {
    fn new(old: &str, new: &str) -> TextShift {
        let (a, b) = (old.as_bytes(), new.as_bytes());
        let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let max_suffix = a.len().min(b.len()) - prefix;
        let suffix = a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take(max_suffix)
            .take_while(|(x, y)| x == y)
            .count();
        TextShift {
            prefix: prefix as u32,
            old_suffix: (a.len() - suffix) as u32,
            delta: b.len() as i64 - a.len() as i64,
        }
    }

    /// The span in the new text; `None` when it touches the changed part or
    /// lies in another file (whose numbering may have changed).
    fn map(&self, s: Span, main: FileId) -> Option<Span> {
        if s.file != main {
            return None;
        }
        if s.end <= self.prefix {
            return Some(s);
        }
        if s.start >= self.old_suffix {
            let at = |x: u32| (x as i64 + self.delta) as u32;
            return Some(Span::new(s.file, at(s.start), at(s.end)));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_around_an_edit_move_and_spans_inside_it_go() {
        let old = "int a; int b; int c;";
        let new = "int a; int bb_; int c;";
        let t = TextShift::new(old, new);
        let f = FileId(0);
        assert_eq!(t.map(Span::new(f, 0, 5), f), Some(Span::new(f, 0, 5)));
        assert_eq!(t.map(Span::new(f, 11, 12), f), Some(Span::new(f, 11, 12)));
        assert_eq!(t.map(Span::new(f, 11, 13), f), None);
        assert_eq!(t.map(Span::new(f, 18, 19), f), Some(Span::new(f, 20, 21)));
        assert_eq!(t.map(Span::new(FileId(1), 0, 1), f), None);
    }

    #[test]
    fn an_unchanged_text_maps_everything() {
        let t = TextShift::new("abc", "abc");
        let f = FileId(0);
        assert_eq!(t.map(Span::new(f, 0, 3), f), Some(Span::new(f, 0, 3)));
    }
}
