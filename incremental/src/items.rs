//! The file-level queries: the front end on the whole file, and the file cut
//! into items with position-independent bodies.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use lanes_frontend::ast::ItemKind;
use lanes_frontend::lexer::LexMemo;
use lanes_frontend::lexer::{ExpnId, Token};
use lanes_frontend::moved::Edit;
use lanes_frontend::preprocess::{FileLoader, PreprocessOptions};
use lanes_frontend::source::{FileId, SourceMap, Span};
use lanes_frontend::source::{SourceFile, SourceText};
use lanes_frontend::unit::{
    check_source_reparsing, check_source_reusing, recheck_moved, CheckedUnit,
};
use smol_str::SmolStr;

use crate::db::{preprocess_options, Db, DbLoader, File};

/// How an item is known across edits: a function definition by its name,
/// any other top-level declaration by its rank among those.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ItemKey {
    Function(SmolStr),
    Decl(u32),
}

/// An item's tokens with spans relative to the item. In the spans, file 0
/// is the item's own text (`text`, starting at the item's first token),
/// file `k >= 1` is `foreign[k - 1]` with absolute offsets (text included
/// from another file in the middle of the item).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemBody {
    pub tokens: Vec<Token>,
    pub text: Arc<str>,
    /// Name of the file the item is written in (for messages of the small
    /// unit; never shown).
    pub file_name: String,
    pub foreign: Vec<ForeignFile>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignFile {
    pub name: String,
    pub path: Option<PathBuf>,
    pub text: Arc<str>,
}

/// Where an item is in the current text: its own file and the offset of
/// its first token, and the files of its foreign slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ItemPos {
    pub file: FileId,
    pub start: u32,
}

#[derive(Clone, Debug)]
pub struct ItemEntry {
    pub key: ItemKey,
    /// Its tokens in the unit's token stream.
    pub range: std::ops::Range<usize>,
    pub body: Arc<ItemBody>,
    pub pos: ItemPos,
    /// Files of the foreign slots, in slot order.
    pub foreign: Vec<FileId>,
    /// True when the item shares its tokens' span with a neighbour (both
    /// made by one macro invocation): its body is not reliable, and kernels
    /// that need it are analysed in the whole unit.
    pub shared: bool,
    /// True for file-scope text the parser skipped (`ItemKind::Error`): it
    /// declares nothing, so kernels' small units leave it out.
    pub garbage: bool,
}

/// The front end's result for a file, and its items.
pub struct Parsed {
    pub unit: CheckedUnit,
    /// Every item in source order.
    pub items: Vec<ItemEntry>,
    pub by_key: HashMap<ItemKey, usize>,
    /// True when item boundaries could not be told apart (two items made by
    /// one macro invocation, or two definitions with one name): kernels are
    /// then analysed in the whole unit.
    pub opaque: bool,
}

/// The previous revision's result is freed off the edit's path (see
/// [`crate::reclaim`]).
impl Drop for Parsed {
    fn drop(&mut self) {
        let unit = std::mem::take(&mut self.unit);
        let items = std::mem::take(&mut self.items);
        let by_key = std::mem::take(&mut self.by_key);
        crate::reclaim::drop_later((unit, items, by_key));
    }
}

impl Parsed {
    pub fn item(&self, key: &ItemKey) -> Option<&ItemEntry> {
        self.by_key.get(key).map(|&i| &self.items[i])
    }
}

/// Preprocesses, parses and checks a file (re-runs on every edit of it or of
/// a header it includes), then cuts the token stream into items. An edit
/// of comments and whitespace only moves the previous result's positions
/// ([`lanes_frontend::unit::recheck_moved`]).
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse(db: &dyn Db, file: File) -> Arc<Parsed> {
    let path = file.path(db).clone();
    let text = file.contents(db).clone().unwrap_or_else(|| Arc::from(""));
    let options = preprocess_options(db);
    let main = || {
        let source = SourceText {
            text: text.to_string(),
            latin1_at: file.latin1_at(db),
        };
        SourceFile::decoded(path.display().to_string(), Some(path.clone()), source)
    };
    // The previous revision's result, taken out while this one runs (a
    // concurrent run of another revision starts from scratch).
    let mut memo = db.parse_memos().take(file);
    let last = memo.last.take();
    // The options and every file the last run read are the same (reading
    // them again makes this query depend on them, as the preprocessor's
    // reads did).
    let same_inputs = last
        .as_ref()
        .is_some_and(|last| last.options == options && last.reads.iter().all(|r| r.still(db)));
    if let Some(last) = &last {
        if same_inputs {
            if let Some(unit) = recheck_moved(&last.parsed.unit, main(), &mut memo.lex) {
                let parsed = Arc::new(move_items(&last.parsed, unit));
                let reads = last.reads.iter().map(Read::clone).collect();
                memo.last = Some(LastParse {
                    parsed: parsed.clone(),
                    options,
                    reads,
                });
                db.parse_memos().put(file, memo);
                return parsed;
            }
        }
    }
    let loader = RecordingLoader {
        db,
        reads: Mutex::default(),
    };
    // An edit inside one function definition parses only that one again;
    // one that cannot change the preprocessor's state preprocesses only the
    // lines it changed.
    let unit = match &last {
        Some(last) => check_source_reparsing(
            main(),
            &options,
            &loader,
            &mut memo.lex,
            &last.parsed.unit,
            same_inputs,
        ),
        None => check_source_reusing(main(), &options, &loader, &mut memo.lex),
    };
    // No file was read: the last run's reads stand.
    let reads = match &last {
        Some(last) if unit.preprocessed_edited => last.reads.clone(),
        _ => loader.reads.into_inner().unwrap_or_else(|e| e.into_inner()),
    };
    // Only one function definition was parsed again: the other items are
    // the last ones, moved.
    let reparsed = match (&last, unit.reparsed) {
        (Some(last), Some(k)) => reparsed_items(&last.parsed, &unit, k),
        _ => None,
    };
    let parsed = match reparsed {
        Some(items) => {
            let old = &last.as_ref().expect("a last parse").parsed;
            Parsed {
                unit,
                items,
                by_key: old.by_key.clone(),
                opaque: false,
            }
        }
        None => cut_items(unit),
    };
    drop(last);
    let parsed = Arc::new(parsed);
    memo.last = Some(LastParse {
        parsed: parsed.clone(),
        options,
        reads,
    });
    db.parse_memos().put(file, memo);
    parsed
}

/// What the last [`parse`] of a file read, to start the next one from
/// (outside salsa: a cache whose use gives exactly the result of parsing
/// from scratch).
#[derive(Default)]
pub struct ParseMemo {
    /// The main file's last text and tokens, so that an edit re-lexes only
    /// the lines it changed.
    lex: LexMemo,
    last: Option<LastParse>,
}

struct LastParse {
    parsed: Arc<Parsed>,
    options: PreprocessOptions,
    /// Every file the preprocessor read, in order.
    reads: Vec<Read>,
}

/// A file the preprocessor read (or tried to: `contents` is `None` for one
/// that does not exist).
#[derive(Clone)]
struct Read {
    path: PathBuf,
    contents: Option<Arc<str>>,
    latin1_at: Option<u32>,
}

impl Read {
    /// Reads the file again (so that the query depends on it, as the
    /// preprocessor's read made it) and tells whether it is unchanged.
    fn still(&self, db: &dyn Db) -> bool {
        let f = db.load(&self.path);
        *f.contents(db) == self.contents && f.latin1_at(db) == self.latin1_at
    }
}

/// [`DbLoader`], keeping what it read.
struct RecordingLoader<'a> {
    db: &'a dyn Db,
    reads: Mutex<Vec<Read>>,
}

impl FileLoader for RecordingLoader<'_> {
    fn read(&self, path: &Path) -> std::io::Result<SourceText> {
        let f = self.db.load(path);
        let read = Read {
            path: path.to_path_buf(),
            contents: f.contents(self.db).clone(),
            latin1_at: f.latin1_at(self.db),
        };
        self.reads
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(read);
        DbLoader { db: self.db }.read(path)
    }
}

/// Each file's [`ParseMemo`].
#[derive(Clone, Default)]
pub struct ParseMemos(Arc<Mutex<HashMap<File, ParseMemo>>>);

impl ParseMemos {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<File, ParseMemo>> {
        // A poisoned lock only means a panic elsewhere; a memo is always
        // whole (it is taken out while in use).
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn take(&self, file: File) -> ParseMemo {
        self.lock().remove(&file).unwrap_or_default()
    }

    fn put(&self, file: File, memo: ParseMemo) {
        self.lock().insert(file, memo);
    }

    /// Drops a file's memo (the editor closed it).
    pub fn forget(&self, file: File) {
        self.lock().remove(&file);
    }
}

/// The items of `old` for `unit`, its unit with positions moved: the
/// bodies of items away from the edit are kept (so they stay the same
/// `Arc`), the others are cut again.
fn move_items(old: &Parsed, unit: CheckedUnit) -> Parsed {
    let main = unit.main;
    let old_text = &old.unit.sources.get(main).text;
    let edit = Edit::between(main, old_text, &unit.sources.get(main).text);
    let shift = |x: u32| (x as i64 + edit.delta) as u32;
    let tokens = &unit.preprocessed.tokens;
    let items = old
        .items
        .iter()
        .map(|e| {
            let pos = e.pos;
            let own_main = pos.file == main;
            if own_main && pos.start + e.body.text.len() as u32 <= edit.from {
                return e.clone();
            }
            // (An item that starts where text was inserted moves.)
            if own_main && pos.start >= edit.to {
                return ItemEntry {
                    pos: ItemPos {
                        file: main,
                        start: shift(pos.start),
                    },
                    ..e.clone()
                };
            }
            if !own_main && !e.foreign.contains(&main) {
                return e.clone();
            }
            let (body, pos, foreign) = rebase(&unit.sources, &tokens[e.range.clone()]);
            ItemEntry {
                body: Arc::new(body),
                pos,
                foreign,
                ..e.clone()
            }
        })
        .collect();
    Parsed {
        unit,
        items,
        by_key: old.by_key.clone(),
        opaque: old.opaque,
    }
}

/// The items of `unit`, made by parsing only `ast.items[k]` of `old`'s
/// unit again ([`CheckedUnit::reparsed`]): what [`cut_items`] gives, without
/// cutting every item again. Every token outside item `k` is the old one
/// moved by the edit, so the other items keep their bodies (the same
/// `Arc`) and their flags, those after the edit move by its length and
/// their tokens by the number of tokens it added; item `k` is cut again.
/// `None` (cut every item) unless the old items are item for item those
/// of the syntax tree and only item `k` holds edited text.
fn reparsed_items(old: &Parsed, unit: &CheckedUnit, k: usize) -> Option<Vec<ItemEntry>> {
    let main = unit.main;
    if old.opaque
        || old.items.len() != unit.ast.items.len()
        || old.unit.ast.items.len() != unit.ast.items.len()
        || old.unit.main != main
    {
        return None;
    }
    let edit = Edit::between(
        main,
        &old.unit.sources.get(main).text,
        &unit.sources.get(main).text,
    );
    let tokens = &unit.preprocessed.tokens;
    let added = tokens.len() as i64 - old.unit.preprocessed.tokens.len() as i64;
    let shift = |x: usize, by: i64| (x as i64 + by) as usize;
    let mut items = Vec::with_capacity(old.items.len());
    for (j, e) in old.items.iter().enumerate() {
        let own_main = e.pos.file == main;
        let end = e.pos.start + e.body.text.len() as u32;
        // An item of a header keeps its place unless the main file's text
        // is inside it.
        let header = !own_main && !e.foreign.contains(&main);
        if j < k && (header || own_main && end <= edit.from) {
            items.push(e.clone());
        } else if j > k && (header || own_main && e.pos.start >= edit.to) {
            let start = match own_main {
                true => (e.pos.start as i64 + edit.delta) as u32,
                false => e.pos.start,
            };
            items.push(ItemEntry {
                range: shift(e.range.start, added)..shift(e.range.end, added),
                pos: ItemPos {
                    file: e.pos.file,
                    start,
                },
                ..e.clone()
            });
        } else if j == k && own_main && e.foreign.is_empty() {
            // The edited definition, cut again.
            let range = e.range.start..shift(e.range.end, added);
            let (body, pos, foreign) = rebase(&unit.sources, tokens.get(range.clone())?);
            items.push(ItemEntry {
                range,
                body: Arc::new(body),
                pos,
                foreign,
                ..e.clone()
            });
        } else {
            return None;
        }
    }
    Some(items)
}

/// The shape of a file that decides which items a kernel needs, with no
/// positions in it: it changes only when items are added, removed,
/// renamed, reordered or change whom they call.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallGraph {
    /// Every item in source order.
    pub items: Vec<ItemKey>,
    /// Kernels (functions with `__kernel` and a body), in the order the
    /// checker numbers them (`lanes check` analyses them in this order).
    pub kernels: Vec<SmolStr>,
    /// For each function definition, the functions it calls.
    pub callees: BTreeMap<SmolStr, Vec<SmolStr>>,
    pub has_errors: bool,
    /// Items holding an error of the front end (each error belongs to the
    /// last item starting at or before it in its file): kernels that need
    /// one of them are not analysed.
    pub broken: Vec<ItemKey>,
    /// Skipped file-scope text (see `ItemEntry::garbage`).
    pub garbage: Vec<ItemKey>,
    /// No kernel can be analysed from item bodies (see [`Parsed::opaque`]).
    pub opaque: bool,
    /// Items whose bodies are not reliable (see `ItemEntry::shared`).
    pub shared: Vec<ItemKey>,
}

impl CallGraph {
    /// The function definitions a kernel needs: itself and every function it
    /// calls, transitively.
    pub fn closure(&self, kernel: &str) -> Vec<SmolStr> {
        let mut out: Vec<SmolStr> = vec![SmolStr::from(kernel)];
        let mut i = 0;
        while i < out.len() {
            if let Some(cs) = self.callees.get(&out[i]) {
                for c in cs {
                    if !out.contains(c) {
                        out.push(c.clone());
                    }
                }
            }
            i += 1;
        }
        out
    }
}

#[salsa::tracked(returns(ref))]
pub fn call_graph(db: &dyn Db, file: File) -> CallGraph {
    let p = parse(db, file);
    let hir = &p.unit.hir;
    let mut callees = BTreeMap::new();
    // Names and callees only: the functions as shared, not moved.
    for f in hir.functions.iter().map(|f| f.unmoved()) {
        if f.body.is_some() {
            let names = f
                .callees
                .iter()
                .filter_map(|c| hir.functions.get(c.0 as usize))
                .map(|c| c.unmoved().name.clone())
                .collect();
            callees.insert(f.name.clone(), names);
        }
    }
    CallGraph {
        items: p.items.iter().map(|i| i.key.clone()).collect(),
        kernels: hir
            .kernels()
            .into_iter()
            .map(|k| hir.functions[k.0 as usize].unmoved().name.clone())
            .collect(),
        callees,
        has_errors: p.unit.has_errors(),
        broken: broken_items(p),
        garbage: p
            .items
            .iter()
            .filter(|i| i.garbage)
            .map(|i| i.key.clone())
            .collect(),
        opaque: p.opaque,
        shared: p
            .items
            .iter()
            .filter(|i| i.shared)
            .map(|i| i.key.clone())
            .collect(),
    }
}

/// The items that hold an error diagnostic, in source order.
fn broken_items(p: &Parsed) -> Vec<ItemKey> {
    let mut out: Vec<ItemKey> = Vec::new();
    for d in p.unit.diagnostics.iter().filter(|d| d.is_error()) {
        let at = d.span;
        let holder = p
            .items
            .iter()
            .filter(|i| i.pos.file == at.file && i.pos.start <= at.start)
            .max_by_key(|i| i.pos.start);
        if let Some(i) = holder {
            if !out.contains(&i.key) {
                out.push(i.key.clone());
            }
        }
    }
    out
}

/// One item's position-independent body (equal across edits elsewhere, so
/// salsa backdates it and its dependents stay valid).
#[salsa::tracked(returns(ref))]
pub fn item_body(db: &dyn Db, file: File, key: ItemKey) -> Option<Arc<ItemBody>> {
    parse(db, file).item(&key).map(|e| e.body.clone())
}

/// Cuts the unit's tokens into items: item `j` owns the tokens from its
/// first one up to the first token of item `j + 1` (stray tokens between
/// items, which the parser skipped, stay with the item before them and are
/// skipped again when the item is parsed alone).
fn cut_items(unit: CheckedUnit) -> Parsed {
    let tokens = &unit.preprocessed.tokens;
    // Without the final Eof token.
    let n = tokens.len().saturating_sub(1);
    let mut opaque = false;
    let mut starts: Vec<Option<usize>> = Vec::with_capacity(unit.ast.items.len());
    // Items whose tokens cannot be told from their neighbours'.
    let mut shared = vec![false; unit.ast.items.len()];
    let mut cursor = 0;
    let mut prev_start: Option<Span> = None;
    for (j, item) in unit.ast.items.iter().enumerate() {
        let s = item.span;
        if prev_start.is_some_and(|p| p.file == s.file && p.start == s.start) {
            // Two items start at one place: both came from one macro
            // invocation, whose tokens all carry its span.
            shared[j] = true;
            shared[j - 1] = true;
        }
        prev_start = Some(s);
        let found = (cursor..n).find(|&i| {
            let t = &tokens[i].span;
            t.file == s.file && t.start == s.start
        });
        match found {
            Some(i) => {
                starts.push(Some(i));
                cursor = i + 1;
            }
            None => {
                // An item without tokens of its own: nothing can be cut
                // reliably (and leaving it out would change the unit).
                opaque = true;
                starts.push(None);
            }
        }
    }
    let mut items = Vec::with_capacity(starts.len());
    let mut by_key = HashMap::new();
    let mut decls = 0u32;
    for (j, item) in unit.ast.items.iter().enumerate() {
        let key = match &item.kind {
            ItemKind::Function(f) if f.body.is_some() => ItemKey::Function(f.name.name.clone()),
            _ => {
                decls += 1;
                ItemKey::Decl(decls - 1)
            }
        };
        let Some(a) = starts[j] else { continue };
        let b = starts[j + 1..]
            .iter()
            .flatten()
            .next()
            .copied()
            .unwrap_or(n);
        let (body, pos, foreign) = rebase(&unit.sources, &tokens[a..b.max(a)]);
        if by_key.insert(key.clone(), items.len()).is_some() {
            // Two definitions of one name (an error the checker reports).
            opaque = true;
        }
        items.push(ItemEntry {
            key,
            range: a..b.max(a),
            body: Arc::new(body),
            pos,
            foreign,
            shared: shared[j],
            garbage: matches!(item.kind, ItemKind::Error),
        });
    }
    Parsed {
        unit,
        items,
        by_key,
        opaque,
    }
}

/// The tokens of one item with spans relative to its first token.
fn rebase(sources: &SourceMap, toks: &[Token]) -> (ItemBody, ItemPos, Vec<FileId>) {
    let Some(first) = toks.first() else {
        let body = ItemBody {
            tokens: Vec::new(),
            text: Arc::from(""),
            file_name: String::new(),
            foreign: Vec::new(),
        };
        return (
            body,
            ItemPos {
                file: FileId(0),
                start: 0,
            },
            Vec::new(),
        );
    };
    let own = first.span.file;
    let start = first.span.start;
    let end = toks
        .iter()
        .filter(|t| t.span.file == own && t.span.start >= start)
        .map(|t| t.span.end)
        .max()
        .unwrap_or(start);
    let mut foreign_ids: Vec<FileId> = Vec::new();
    let mut tokens = Vec::with_capacity(toks.len());
    for t in toks {
        let span = if t.span.file == own && t.span.start >= start {
            Span::new(FileId(0), t.span.start - start, t.span.end - start)
        } else {
            let k = match foreign_ids.iter().position(|&f| f == t.span.file) {
                Some(k) => k,
                None => {
                    foreign_ids.push(t.span.file);
                    foreign_ids.len() - 1
                }
            };
            Span::new(FileId(k as u32 + 1), t.span.start, t.span.end)
        };
        tokens.push(Token {
            kind: t.kind,
            text: t.text.clone(),
            span,
            // The parser reads neither where a token was spelled nor which
            // expansion made it (only whether one did): both hold absolute
            // positions that move with unrelated edits.
            spelling: span,
            expansion: t.expansion.map(|_| ExpnId(0)),
            line_start: t.line_start,
            leading_space: t.leading_space,
        });
    }
    let file = file_of(sources, own);
    let text = file
        .map(|f| {
            f.text
                .get(start as usize..end as usize)
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default();
    let foreign = foreign_ids
        .iter()
        .map(|&id| match file_of(sources, id) {
            Some(f) => ForeignFile {
                name: f.name.clone(),
                path: f.path.clone(),
                text: f.text.clone(),
            },
            None => ForeignFile {
                name: String::new(),
                path: None,
                text: Arc::from(""),
            },
        })
        .collect();
    let body = ItemBody {
        tokens,
        text: Arc::from(text),
        file_name: file.map(|f| f.name.clone()).unwrap_or_default(),
        foreign,
    };
    (body, ItemPos { file: own, start }, foreign_ids)
}

fn file_of(sources: &SourceMap, id: FileId) -> Option<&lanes_frontend::source::SourceFile> {
    ((id.0 as usize) < sources.len()).then(|| sources.get(id))
}
