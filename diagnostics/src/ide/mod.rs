//! Protocol-independent IDE features, computed from the database
//! (`lanes_db`): each is a pure function of `(&dyn Db, File, position or
//! range)` returning plain structs. Positions are byte offsets into the
//! file's current text; [`LineIndex`] (from [`line_index`]) converts them
//! to and from the LSP's (line, UTF-16 column). Nothing here knows LSP
//! types: the server converts [`TextRange`]s, [`Diag`]s, ... one to one.
//!
//! | feature | function |
//! |---|---|
//! | diagnostics (severities, `#pragma lanes ignore`, reason chains) | [`diagnostics::diagnostics`] |
//! | hover | [`hover::hover`] |
//! | inlay hints | [`inlay::inlay_hints`] |
//! | semantic tokens | [`semantic::semantic_tokens`] |
//! | code actions | [`actions::code_actions`] |
//! | code lens | [`lens::code_lens`] |
//! | symbols, definition, references, rename, highlight | [`symbols`] |

pub mod actions;
pub mod diagnostics;
pub mod hover;
pub mod inlay;
pub mod lens;
pub mod semantic;
pub mod symbols;

mod context;
mod control;
mod index;

use std::path::PathBuf;

pub use lanes_db::{line_index, LineIndex};

/// A half-open range of byte offsets `start..end` in one file's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct TextRange {
    pub start: u32,
    pub end: u32,
}

impl TextRange {
    pub fn new(start: u32, end: u32) -> TextRange {
        TextRange {
            start: start.min(end),
            end: start.max(end),
        }
    }

    pub fn empty(at: u32) -> TextRange {
        TextRange { start: at, end: at }
    }

    /// The cursor is in the range, or just after it (the end of a word
    /// still names the word, as editors place the cursor).
    pub fn touches(self, offset: u32) -> bool {
        self.start <= offset && offset <= self.end
    }

    /// The two ranges share a character, or one is empty and inside the other.
    pub fn overlaps(self, other: TextRange) -> bool {
        self.start < other.end && other.start < self.end
            || (self.start == self.end && other.touches(self.start))
            || (other.start == other.end && self.touches(other.start))
    }

    pub fn len(self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

/// A range in some file (a header, for a definition or a reason step that
/// lives there).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Location {
    pub path: PathBuf,
    pub range: TextRange,
}

/// Replace `range` of the file's text with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub range: TextRange,
    pub new_text: String,
}

/// Applies edits (non-overlapping, any order) to a text: for tests and for
/// clients that want the result.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> String {
    let mut edits: Vec<&TextEdit> = edits.iter().collect();
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    for e in edits {
        let s = (e.range.start as usize).clamp(at, text.len());
        let t = (e.range.end as usize).clamp(s, text.len());
        if !text.is_char_boundary(s) || !text.is_char_boundary(t) {
            continue;
        }
        out.push_str(&text[at..s]);
        out.push_str(&e.new_text);
        at = t;
    }
    out.push_str(&text[at..]);
    out
}
