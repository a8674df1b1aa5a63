//! Source files, byte spans and line/column lookup.

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A half-open byte range `start..end` in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, start: u32, end: u32) -> Span {
        Span { file, start, end }
    }

    /// The smallest span covering `self` and `other`. Spans in different files
    /// cannot be joined; the first one wins (this only happens for constructs
    /// that straddle an `#include`).
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// An empty span at the end of `self`.
    pub fn end_point(self) -> Span {
        Span {
            file: self.file,
            start: self.end,
            end: self.end,
        }
    }

    pub fn len(self) -> u32 {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    pub fn contains(self, other: Span) -> bool {
        self.file == other.file && self.start <= other.start && other.end <= self.end
    }
}

/// The text of a file as the front end reads it (see [`decode_source`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceText {
    pub text: String,
    /// Byte offset in `text` of the first character decoded as Latin-1, when
    /// the file was not valid UTF-8.
    pub latin1_at: Option<u32>,
}

impl From<String> for SourceText {
    fn from(text: String) -> Self {
        SourceText {
            text,
            latin1_at: None,
        }
    }
}

/// Decodes the bytes of a source file the way clang reads them: valid UTF-8
/// sequences stay as they are, and every byte that is not part of one becomes
/// the Latin-1 character of the same value (U+0080..U+00FF). Kernels of the
/// vendor SDKs carry Latin-1 copyright signs and names in their comments;
/// clang accepts them, so lanes must too. Returns the text and the offset in
/// it of the first byte so decoded.
pub fn decode_source(bytes: &[u8]) -> SourceText {
    let mut text = String::with_capacity(bytes.len());
    let mut latin1_at = None;
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        for &b in chunk.invalid() {
            latin1_at.get_or_insert(text.len() as u32);
            text.push(char::from(b));
        }
    }
    SourceText { text, latin1_at }
}

/// Reads a source file from disk with [`decode_source`].
pub fn read_source(path: &Path) -> std::io::Result<SourceText> {
    std::fs::read(path).map(|bytes| decode_source(&bytes))
}

/// One source file: its name as shown to the user, and its text.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    /// The path it was read from, if any (used to resolve `#include "..."`).
    pub path: Option<PathBuf>,
    pub text: Arc<str>,
    /// Where the first byte read as Latin-1 is (see [`decode_source`]).
    pub latin1_at: Option<u32>,
    line_starts: Vec<u32>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, path: Option<PathBuf>, text: impl Into<Arc<str>>) -> Self {
        let text: Arc<str> = text.into();
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i as u32 + 1),
        );
        SourceFile {
            name: name.into(),
            path,
            text,
            latin1_at: None,
            line_starts,
        }
    }

    /// A file read from `path` with [`decode_source`].
    pub fn decoded(name: impl Into<String>, path: Option<PathBuf>, source: SourceText) -> Self {
        SourceFile {
            latin1_at: source.latin1_at,
            ..SourceFile::new(name, path, source.text)
        }
    }

    /// 0-based line index of a byte offset.
    pub fn line_index(&self, offset: u32) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// Byte range of 0-based line `line`, without its line terminator.
    pub fn line_range(&self, line: usize) -> std::ops::Range<usize> {
        let start = self.line_starts[line] as usize;
        let end = self
            .line_starts
            .get(line + 1)
            .map(|&e| e as usize)
            .unwrap_or(self.text.len());
        let bytes = self.text.as_bytes();
        let mut e = end;
        while e > start && (bytes[e - 1] == b'\n' || bytes[e - 1] == b'\r') {
            e -= 1;
        }
        start..e
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// 1-based line and 1-based column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let offset = (offset as usize).min(self.text.len());
        let line = self.line_index(offset as u32);
        let start = self.line_starts[line] as usize;
        let mut off = offset;
        while !self.text.is_char_boundary(off) {
            off -= 1;
        }
        let col = self.text[start..off].chars().count();
        (line as u32 + 1, col as u32 + 1)
    }

    /// Byte offset of 0-based `line` and 0-based `col` counted in UTF-16 code
    /// units (the LSP convention), clamped to the line.
    pub fn offset_utf16(&self, line: usize, col: usize) -> u32 {
        if line >= self.line_starts.len() {
            return self.text.len() as u32;
        }
        let range = self.line_range(line);
        let mut units = 0;
        for (i, ch) in self.text[range.clone()].char_indices() {
            if units >= col {
                return (range.start + i) as u32;
            }
            units += ch.len_utf16();
        }
        range.end as u32
    }
}

/// All files of one compilation: the main file and everything it includes.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> Self {
        SourceMap::default()
    }

    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    /// Adds a file read from disk, or returns the existing one with that path.
    pub fn add_path(&mut self, path: &Path, source: SourceText) -> FileId {
        if let Some(id) = self.find_path(path) {
            return id;
        }
        let name = path.display().to_string();
        self.add(SourceFile::decoded(name, Some(path.to_path_buf()), source))
    }

    pub fn find_path(&self, path: &Path) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.path.as_deref() == Some(path))
            .map(|i| FileId(i as u32))
    }

    /// Puts `file` in the place of file `id`.
    pub fn replace(&mut self, id: FileId, file: SourceFile) {
        self.files[id.0 as usize] = file;
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub fn text(&self, span: Span) -> &str {
        let f = self.get(span.file);
        f.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    pub fn line_col(&self, file: FileId, offset: u32) -> (u32, u32) {
        self.get(file).line_col(offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_is_kept_and_other_bytes_are_latin1() {
        let utf8 = "a \u{e9} \u{20ac} b".as_bytes();
        assert_eq!(
            decode_source(utf8),
            SourceText::from("a \u{e9} \u{20ac} b".to_string())
        );
        // 0xE9 alone, a truncated 3-byte sequence, a lone continuation byte.
        let mixed = b"x\xE9y \xE2\x82z \x80\n\xC3\xA9";
        let s = decode_source(mixed);
        assert_eq!(s.text, "x\u{e9}y \u{e2}\u{82}z \u{80}\n\u{e9}");
        assert_eq!(s.latin1_at, Some(1));
        assert_eq!(decode_source(b"").latin1_at, None);
    }

    #[test]
    fn columns_count_latin1_characters_once() {
        let s = decode_source(b"/* \xA9\xA9 */ int x;");
        let f = SourceFile::decoded("k.cl", None, s);
        assert_eq!(f.latin1_at, Some(3));
        let x = f.text.find('x').unwrap() as u32;
        // 1-based column in characters: `/* ©© */ int ` is 13 characters.
        assert_eq!(f.line_col(x), (1, 14));
        assert_eq!(f.offset_utf16(0, 13), x);
    }
}
