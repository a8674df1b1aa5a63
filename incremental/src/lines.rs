//! Byte offsets ↔ (line, UTF-16 column), the positions of the Language
//! Server Protocol, for a file's current text.

use std::sync::Arc;

use crate::db::{Db, File};

/// Line starts of a text, for converting positions both ways.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineIndex {
    text: Arc<str>,
    /// Byte offset of the start of each line (after `\n`).
    starts: Vec<u32>,
}

impl LineIndex {
    pub fn new(text: Arc<str>) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        LineIndex { text, starts }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn line_count(&self) -> u32 {
        self.starts.len() as u32
    }

    /// 0-based line and UTF-16 column of a byte offset (clamped to the text,
    /// and moved back to a character boundary).
    pub fn position(&self, offset: u32) -> (u32, u32) {
        let mut off = (offset as usize).min(self.text.len());
        while !self.text.is_char_boundary(off) {
            off -= 1;
        }
        let line = match self.starts.binary_search(&(off as u32)) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.starts[line] as usize;
        let col: usize = self.text[start..off].chars().map(char::len_utf16).sum();
        (line as u32, col as u32)
    }

    /// Byte offset of a 0-based line and UTF-16 column. Columns past the
    /// end of the line (or inside a surrogate pair) clamp to the line's end
    /// (to the character's start); lines past the end give the text's end.
    pub fn offset(&self, line: u32, col: u32) -> u32 {
        let Some(&start) = self.starts.get(line as usize) else {
            return self.text.len() as u32;
        };
        let end = self
            .starts
            .get(line as usize + 1)
            .map(|&e| e as usize)
            .unwrap_or(self.text.len());
        let line_text = &self.text[start as usize..end];
        // The line's end excludes its terminator.
        let content = line_text.trim_end_matches(['\n', '\r']);
        let mut units = 0u32;
        for (i, ch) in content.char_indices() {
            let w = ch.len_utf16() as u32;
            if units + w > col {
                return start + i as u32;
            }
            units += w;
        }
        start + content.len() as u32
    }

    /// Byte offset of the start of a 0-based line (clamped).
    pub fn line_start(&self, line: u32) -> u32 {
        self.starts
            .get(line as usize)
            .copied()
            .unwrap_or(self.text.len() as u32)
    }

    /// The text of a 0-based line without its terminator.
    pub fn line_text(&self, line: u32) -> &str {
        let start = self.line_start(line) as usize;
        let end = self
            .starts
            .get(line as usize + 1)
            .map(|&e| e as usize)
            .unwrap_or(self.text.len());
        self.text
            .get(start..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }
}

/// The line index of a file's current text.
#[salsa::tracked(returns(ref))]
pub fn line_index(db: &dyn Db, file: File) -> Arc<LineIndex> {
    let text = file.contents(db).clone().unwrap_or_else(|| Arc::from(""));
    Arc::new(LineIndex::new(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_with_utf16() {
        // `é` is 2 bytes and 1 UTF-16 unit; `𝄞` is 4 bytes and 2 units.
        let li = LineIndex::new(Arc::from("ab\né𝄞x\r\nlast"));
        assert_eq!(li.position(0), (0, 0));
        assert_eq!(li.position(3), (1, 0));
        assert_eq!(li.position(5), (1, 1)); // after é
        assert_eq!(li.position(9), (1, 3)); // after 𝄞
        assert_eq!(li.position(10), (1, 4)); // before \r
        assert_eq!(li.offset(1, 3), 9);
        assert_eq!(li.offset(1, 2), 5); // inside the pair: its start
        assert_eq!(li.offset(1, 99), 10); // clamped before \r\n
        assert_eq!(li.offset(2, 2), 14);
        assert_eq!(li.offset(7, 0), 16);
        assert_eq!(li.position(6), (1, 1)); // inside 𝄞: its start
        assert_eq!(li.line_text(1), "é𝄞x");
        for off in 0..=16u32 {
            let (l, c) = li.position(off);
            let back = li.offset(l, c);
            assert!(back <= off, "{off} -> ({l},{c}) -> {back}");
        }
    }
}
