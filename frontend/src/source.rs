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

/// One source file: its name as shown to the user, and its text.
#[derive(Debug)]
pub struct SourceFile {
    pub name: String,
    /// The path it was read from, if any (used to resolve `#include "..."`).
    pub path: Option<PathBuf>,
    pub text: Arc<str>,
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
            line_starts,
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
#[derive(Debug, Default)]
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
    pub fn add_path(&mut self, path: &Path, text: String) -> FileId {
        if let Some(id) = self.find_path(path) {
            return id;
        }
        let name = path.display().to_string();
        self.add(SourceFile::new(name, Some(path.to_path_buf()), text))
    }

    pub fn find_path(&self, path: &Path) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.path.as_deref() == Some(path))
            .map(|i| FileId(i as u32))
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
