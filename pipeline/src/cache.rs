//! The on-disk cache of precondition findings (`lanes build`, `lanes
//! check`): a kernel whose inputs did not change since a run that found
//! its preconditions gets the findings of that run instead of running Z3
//! again (docs/preconditions.md, "The findings cache").
//!
//! Where: `$LANES_CACHE_DIR`, else `$XDG_CACHE_HOME/lanes`, else
//! `~/.cache/lanes`; `LANES_CACHE=off` (or a command's `--no-cache`) turns
//! it off. One file per kernel key, `findings-v2/ab/cdef....json`, written
//! to a temporary file and renamed into place, so that concurrent builds
//! never read half an entry. A cache that cannot be written is reported
//! once per process and the build goes on without it; an entry that cannot
//! be read or parsed is a miss (and is written again). The entries are
//! kept within `LANES_CACHE_MAX_SIZE` bytes, least recently used first out.
//!
//! The key of a kernel is everything its findings depend on: the tokens
//! (after preprocessing: macros expanded) of the kernel and of every
//! top-level item it names, directly or through those items, with their
//! positions relative to the item; the pragmas; the width, the lowering and the
//! precondition options (budgets, launch hint); the version of lanes and
//! the executable (size and modification time, as ccache checks a
//! compiler). The file's budget left when the kernel's turn comes is not
//! in the key but in the entry: findings made with enough left that no
//! target was held back by the file's account hold for every such amount
//! (the targets then get the same units), others only for the same amount.
//! Findings' spans are stored relative to the item they are in, so a line
//! added above a kernel changes no key.

use std::cell::Cell;
use std::hash::Hasher;
use std::io::Write;
use std::path::{Path, PathBuf};

use lanes_frontend::ast::{BaseType, ItemKind};
use lanes_frontend::hir;
use lanes_frontend::lexer::{Token, TokenKind};
use lanes_frontend::source::Span;
use lanes_frontend::unit::CheckedUnit;
use lanes_vectorizer::precond::{Coverage, Exhausted, Finding, Outcome, Precondition, TargetKind};
use serde_json::{json, Value};

/// The entries' format: its number is in the directory name and in every
/// entry; a change of the format or of what a key holds takes the next.
pub const FORMAT: u32 = 2;

/// How a run reads and writes the cache.
pub struct Cache {
    dir: PathBuf,
    tool: String,
    warned: Cell<bool>,
    hits: Cell<u32>,
    misses: Cell<u32>,
    debug: bool,
    max_bytes: u64,
}

/// The bound on the entries' bytes unless `LANES_CACHE_MAX_SIZE` says
/// otherwise: about 50,000 entries of the corpora's average size.
pub const DEFAULT_MAX_BYTES: u64 = 100 << 20;

/// Entries live in 256 directories named by their hash's first two hex
/// digits, which spreads them evenly: each directory is kept within its
/// share of the bound, so a write lists one directory, never the cache
/// (as ccache does with its 16).
const SHARDS: u64 = 256;

/// `100M`, `1G`, `512K`, `1000000` (bytes; powers of 1024); `0` is no bound.
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, unit) = match t.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => t.split_at(i),
        None => (t, ""),
    };
    let n: u64 = digits.parse().ok()?;
    let shift = match unit
        .trim()
        .to_ascii_uppercase()
        .trim_end_matches("IB")
        .trim_end_matches('B')
    {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        "T" => 40,
        _ => return None,
    };
    n.checked_mul(1 << shift)
}

impl Cache {
    /// The cache the environment asks for, `None` when it is turned off
    /// (`off`: a command's `--no-cache`).
    pub fn from_env(off: bool) -> Option<Cache> {
        let var = |n: &str| std::env::var_os(n).filter(|v| !v.is_empty());
        if off
            || var("LANES_CACHE").is_some_and(|v| {
                matches!(
                    v.to_string_lossy().to_ascii_lowercase().as_str(),
                    "off" | "0" | "false" | "no"
                )
            })
        {
            return None;
        }
        let max_bytes = match var("LANES_CACHE_MAX_SIZE") {
            None => DEFAULT_MAX_BYTES,
            Some(v) => parse_size(&v.to_string_lossy()).unwrap_or_else(|| {
                eprintln!(
                    "warning: LANES_CACHE_MAX_SIZE=`{}` is not a size (such as 100M or 1G); the findings cache keeps at most {}M",
                    v.to_string_lossy(),
                    DEFAULT_MAX_BYTES >> 20
                );
                DEFAULT_MAX_BYTES
            }),
        };
        let dir = var("LANES_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| var("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("lanes")))
            .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache").join("lanes")))?;
        Some(Cache::at(dir).with_max_bytes(max_bytes))
    }

    /// The bound on the entries' bytes (`0`: none). Writing an entry
    /// removes the least recently used ones of its directory beyond its
    /// share; reading one marks it used.
    pub fn with_max_bytes(mut self, max_bytes: u64) -> Cache {
        self.max_bytes = max_bytes;
        self
    }

    pub fn max_bytes(&self) -> u64 {
        self.max_bytes
    }

    /// A cache in `dir` (created when first written).
    pub fn at(dir: PathBuf) -> Cache {
        Cache {
            dir,
            tool: tool_identity(),
            warned: Cell::new(false),
            hits: Cell::new(0),
            misses: Cell::new(0),
            debug: std::env::var_os("LANES_CACHE_DEBUG").is_some(),
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Kernels whose findings came from the cache in this run.
    pub fn hits(&self) -> u32 {
        self.hits.get()
    }

    /// Kernels whose findings were inferred in this run.
    pub fn misses(&self) -> u32 {
        self.misses.get()
    }

    /// Where the entries of this format are (what `lanes cache clean`
    /// removes).
    pub fn entries(&self) -> PathBuf {
        self.dir.join(format!("findings-v{FORMAT}"))
    }

    fn path(&self, key: &Key) -> PathBuf {
        self.entries()
            .join(&key.name[..2])
            .join(format!("{}.json", &key.name[2..]))
    }

    fn warn(&self, what: String) {
        if !self.warned.replace(true) {
            eprintln!(
                "warning: {what}; the findings cache ({}) is not used by this run",
                self.dir.display()
            );
        }
    }

    /// The findings stored for kernel `k` when its turn comes with
    /// `file_left` units of the file's budget left.
    pub fn get(&self, key: &Key, name: &str, file_left: u64) -> Option<Vec<Finding>> {
        let path = self.path(key);
        let found = std::fs::read(&path)
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .and_then(|v| key.decode(&v, file_left));
        match &found {
            Some(_) => {
                self.hits.set(self.hits.get() + 1);
                // Used now: the bound removes it last. A cache shared
                // read-only stays as it is.
                let _ = std::fs::File::options()
                    .write(true)
                    .open(&path)
                    .and_then(|f| f.set_modified(std::time::SystemTime::now()));
            }
            None => self.misses.set(self.misses.get() + 1),
        }
        if self.debug {
            let what = if found.is_some() { "hit" } else { "miss" };
            eprintln!("cache: {what} {name} ({} units left)", file_left);
        }
        found
    }

    pub fn put(&self, key: &Key, file_left: u64, target_budget: u64, findings: &[Finding]) {
        if self.warned.get() {
            return;
        }
        let Some(entry) = key.encode(file_left, target_budget, findings) else {
            return;
        };
        let path = self.path(key);
        let bytes = entry.to_string().into_bytes();
        if let Err(e) = write_atomically(&path, &bytes) {
            self.warn(format!("cannot write `{}`: {e}", path.display()));
            return;
        }
        if self.max_bytes > 0 {
            if let Some(dir) = path.parent() {
                trim(dir, &path, self.max_bytes.div_ceil(SHARDS));
            }
        }
    }

    /// Removes every entry; what was removed (files, bytes).
    pub fn clean(&self) -> std::io::Result<(u64, u64)> {
        let mut n = (0, 0);
        let root = self.dir.clone();
        if !root.exists() {
            return Ok(n);
        }
        for e in std::fs::read_dir(&root)? {
            let p = e?.path();
            // Only what lanes wrote: entries of any format and their
            // temporary files.
            let ours = p
                .file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with("findings-v"));
            if ours && p.is_dir() {
                count(&p, &mut n);
                std::fs::remove_dir_all(&p)?;
            }
        }
        Ok(n)
    }

    /// Entries and their bytes.
    pub fn size(&self) -> (u64, u64) {
        let mut n = (0, 0);
        count(&self.dir, &mut n);
        n
    }
}

/// Removes the least recently used entries of `dir` (not `keep`, just
/// written) until their bytes are within `share` (ccache's way: down to 80%
/// of it, so that the next writes do not trim again at once). Entries
/// another process removes first are skipped.
fn trim(dir: &Path, keep: &Path, share: u64) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<(std::time::SystemTime, u64, PathBuf)> = rd
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .filter_map(|e| {
            let m = e.metadata().ok()?;
            Some((m.modified().ok()?, m.len(), e.path()))
        })
        .collect();
    let mut total: u64 = entries.iter().map(|e| e.1).sum();
    if total <= share {
        return;
    }
    // Oldest first; the name breaks ties so every process picks alike.
    entries.sort_by(|a, b| (a.0, &a.2).cmp(&(b.0, &b.2)));
    let goal = share / 5 * 4;
    for (_, len, p) in entries {
        if total <= goal {
            break;
        }
        if p == keep {
            continue;
        }
        match std::fs::remove_file(&p) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {}
            _ => total -= len,
        }
    }
}

fn count(dir: &Path, n: &mut (u64, u64)) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            count(&p, n);
        } else if let Ok(m) = e.metadata() {
            n.0 += 1;
            n.1 += m.len();
        }
    }
}

/// Temporary file in the same directory, then rename: a reader sees the
/// old entry or the new one, never a part.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    static SEQ: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let tmp = dir.join(format!(
        ".tmp-{}-{}-{nanos}",
        std::process::id(),
        SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let written = std::fs::File::create(&tmp).and_then(|mut f| f.write_all(bytes));
    let renamed = written.and_then(|_| std::fs::rename(&tmp, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    renamed
}

/// lanes' version and the executable's size and modification time: a
/// rebuilt lanes (inference changed, version not) does not read the
/// findings of the one before.
fn tool_identity() -> String {
    let exe = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map(|m| {
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{} {t}", m.len())
        })
        .unwrap_or_default();
    format!("lanes {} {exe}", env!("CARGO_PKG_VERSION"))
}

/// A kernel's key: the file name of its entry, a second hash checked in
/// the entry, and where the items of the key are now (to map the findings'
/// spans).
pub struct Key {
    name: String,
    check: String,
    pieces: Vec<Span>,
}

/// FNV-1a, 128 bits: the entry's name (stable across builds and machines).
struct Fnv(u128);

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u128::from(b);
            self.0 = self.0.wrapping_mul(0x0000000001000000000000000000013B);
        }
    }
    fn finish(&self) -> u64 {
        self.0 as u64
    }
}

/// Feeds both hashes.
struct Both {
    fnv: Fnv,
    sip: std::hash::DefaultHasher,
}

impl Both {
    /// Both hashes of the key of `what`, made by this lanes with `context`.
    fn start(what: &str, cache: &Cache, context: &str) -> Both {
        let mut h = Both {
            fnv: Fnv(0x6C62272E07BB014262B821756295C58D),
            sip: std::hash::DefaultHasher::new(),
        };
        h.str(what);
        h.num(FORMAT.into());
        h.str(&cache.tool);
        h.str(context);
        h
    }

    /// The key: named by one hash, checked by the other.
    fn key(self, pieces: Vec<Span>) -> Key {
        Key {
            name: format!("{:032x}", self.fnv.0),
            check: format!("{:016x}", self.sip.finish()),
            pieces,
        }
    }

    fn bytes(&mut self, b: &[u8]) {
        // Length first: no two sequences of fields feed the same bytes.
        self.fnv.write(&(b.len() as u64).to_le_bytes());
        self.fnv.write(b);
        self.sip.write(&(b.len() as u64).to_le_bytes());
        self.sip.write(b);
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    fn num(&mut self, n: u64) {
        self.bytes(&n.to_le_bytes());
    }
}

impl Cache {
    /// The key of findings made on a unit of the kernel's own items (the
    /// editor's analyses: `lanes_db::kernel_inputs`): `texts` are all that
    /// unit is made of, one per file of its source map in order, so the
    /// findings' spans, already relative to those files, are stored as
    /// they are. `context`: what else the analysis and inference depend
    /// on (width, options), as text.
    pub fn key_of_texts<'t>(&self, context: &str, texts: impl IntoIterator<Item = &'t str>) -> Key {
        let mut h = Both::start("lanes findings of a kernel's own unit", self, context);
        let mut pieces = Vec::new();
        for (i, t) in texts.into_iter().enumerate() {
            h.str(t);
            pieces.push(Span::new(
                lanes_frontend::source::FileId(i as u32),
                0,
                t.len() as u32,
            ));
        }
        h.key(pieces)
    }
}

/// The key of kernel `k` of `unit` with the options of the run (`context`:
/// width, lowering, precondition options, as text). `None` when the
/// file's items cannot be told apart (the kernel is then inferred).
pub(crate) fn key(cache: &Cache, unit: &CheckedUnit, k: hir::FuncId, context: &str) -> Option<Key> {
    let tokens = &unit.preprocessed.tokens;
    // Without the Eof token.
    let tokens = &tokens[..tokens.len().saturating_sub(1)];
    // Each item is the run of tokens from its first to the next item's.
    let items = &unit.ast.items;
    let mut starts = Vec::with_capacity(items.len());
    let mut j = 0;
    for item in items {
        let s = item.span;
        while j < tokens.len() {
            let t = tokens[j].span;
            if t.file == s.file && t.start >= s.start && t.end <= s.end {
                break;
            }
            j += 1;
        }
        if j == tokens.len() {
            return None;
        }
        starts.push(j);
    }
    let range = |i: usize| starts[i]..starts.get(i + 1).copied().unwrap_or(tokens.len());
    let kernel = unit.hir.function(k);
    let kernel_item = items
        .iter()
        .position(|i| matches!(&i.kind, ItemKind::Function(f) if f.body.is_some() && f.name.name == kernel.name));
    // The kernel and every item it names, directly or through the items
    // taken: a function by its name, a declaration by its declarators'
    // names and its struct's tag. A value of a struct type comes from an
    // item that names the type, so the tag or typedef is reached; an item
    // nothing taken names cannot change what the kernel means, so editing
    // it keeps the key.
    let is_name = |t: &&Token| t.kind == TokenKind::Ident;
    let declares: Vec<Vec<&str>> = items
        .iter()
        .map(|item| match &item.kind {
            ItemKind::Function(f) => vec![f.name.name.as_str()],
            ItemKind::Declaration(d) => {
                let tag = match &d.spec.base {
                    BaseType::Struct(s) | BaseType::Union(s) => s.tag.as_ref(),
                    BaseType::Enum(e) => e.tag.as_ref(),
                    _ => None,
                };
                let variants = match &d.spec.base {
                    BaseType::Enum(e) => e.variants.iter().flatten().map(|(v, _)| v).collect(),
                    _ => Vec::new(),
                };
                d.declarators
                    .iter()
                    .filter_map(|i| i.declarator.name.as_ref())
                    .chain(tag)
                    .chain(variants)
                    .map(|n| n.name.as_str())
                    .collect()
            }
            ItemKind::Error => Vec::new(),
        })
        .collect();
    let mut take = vec![false; items.len()];
    let mut named: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let prelude = &tokens[..starts.first().copied().unwrap_or(tokens.len())];
    named.extend(prelude.iter().filter(is_name).map(|t| t.text.as_str()));
    let mut todo: Vec<usize> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        // Text the parser could not read is kept in every key.
        if Some(i) == kernel_item || matches!(item.kind, ItemKind::Error) {
            todo.push(i);
        }
    }
    kernel_item?;
    loop {
        for i in todo.drain(..) {
            if !take[i] {
                take[i] = true;
                named.extend(
                    tokens[range(i)]
                        .iter()
                        .filter(is_name)
                        .map(|t| t.text.as_str()),
                );
            }
        }
        todo.extend(
            (0..items.len()).filter(|&i| !take[i] && declares[i].iter().any(|n| named.contains(n))),
        );
        if todo.is_empty() {
            break;
        }
    }
    let mut h = Both::start("lanes findings", cache, context);
    h.str(&kernel.name);
    for p in &unit.preprocessed.pragmas {
        // Where it stands from the kernel: before, inside, after.
        let at = match kernel_item.map(range) {
            Some(r) if p.token < r.start => 0,
            Some(r) if p.token < r.end => 1,
            _ => 2,
        };
        h.str(&p.text);
        h.num(at);
    }
    let mut pieces = Vec::new();
    h.str("prelude");
    for t in prelude {
        h.str(&t.text);
    }
    for (i, item) in items.iter().enumerate() {
        if !take[i] {
            continue;
        }
        let base = item.span;
        h.str("item");
        h.num((base.end - base.start).into());
        for t in &tokens[range(i)] {
            h.str(&t.text);
            if t.span.file == base.file {
                h.num(u64::from(t.span.start.wrapping_sub(base.start)));
                h.num(u64::from(t.span.end.wrapping_sub(base.start)));
            } else {
                // Text included in the middle of an item.
                h.str(&unit.sources.get(t.span.file).name);
                h.num(t.span.start.into());
                h.num(t.span.end.into());
            }
        }
        pieces.push(base);
    }
    Some(h.key(pieces))
}

/// What the findings need of the file's budget to have been found as if
/// the file had no budget: each target began with its whole budget.
fn need(findings: &[Finding], target_budget: u64) -> u64 {
    match findings.split_last() {
        None => 0,
        Some((_, before)) => before.iter().map(|f| f.spent).sum::<u64>() + target_budget,
    }
}

impl Key {
    fn relative(&self, s: Span) -> Option<Value> {
        let i = self
            .pieces
            .iter()
            .position(|p| p.file == s.file && p.start <= s.start && s.end <= p.end)?;
        let p = self.pieces[i];
        Some(json!([i, s.start - p.start, s.end - p.start]))
    }

    fn absolute(&self, v: &Value) -> Option<Span> {
        let a = v.as_array()?;
        let (i, s, e) = (
            a.first()?.as_u64()? as usize,
            a.get(1)?.as_u64()? as u32,
            a.get(2)?.as_u64()? as u32,
        );
        let p = self.pieces.get(i)?;
        let span = Span::new(p.file, p.start.checked_add(s)?, p.start.checked_add(e)?);
        (span.start <= span.end && span.end <= p.end).then_some(span)
    }

    /// The entry; `None` when a finding cannot be stored (a span outside
    /// the key's items, or a finding the wall clock cut off: that depends
    /// on the machine).
    fn encode(&self, file_left: u64, target_budget: u64, findings: &[Finding]) -> Option<Value> {
        let mut out = Vec::new();
        for f in findings {
            let outcome = match &f.outcome {
                Outcome::Found(p) => json!({"found": {
                    "lane": p.lane,
                    "exact": p.exact,
                    "group": p.group,
                    "rejected": p.rejected,
                    "coverage": p.coverage.map(|c| [c.groups, c.total]),
                    "method": p.method,
                    "effect": p.effect,
                }}),
                Outcome::NotFound(why) => json!({ "not_found": why }),
                Outcome::OutOfBudget(Exhausted::Target) => json!({"out_of_budget": "target"}),
                Outcome::OutOfBudget(Exhausted::File) => json!({"out_of_budget": "file"}),
                Outcome::OutOfBudget(Exhausted::Wall) => return None,
            };
            out.push(json!({
                "kind": f.kind.as_str(),
                "span": self.relative(f.span)?,
                "stmt": match f.stmt { Some(s) => self.relative(s)?, None => Value::Null },
                "outcome": outcome,
                "spent": f.spent,
                "millis": f.millis,
                "queries": f.queries,
            }));
        }
        Some(json!({
            "format": FORMAT,
            "check": self.check,
            "file_left": file_left,
            "need": need(findings, target_budget),
            "findings": out,
        }))
    }

    fn decode(&self, v: &Value, file_left: u64) -> Option<Vec<Finding>> {
        if v.get("format")?.as_u64()? != u64::from(FORMAT)
            || v.get("check")?.as_str()? != self.check
        {
            return None;
        }
        let stored_left = v.get("file_left")?.as_u64()?;
        let mut out = Vec::new();
        for f in v.get("findings")?.as_array()? {
            let kind = match f.get("kind")?.as_str()? {
                "loop" => TargetKind::Loop,
                "branch" => TargetKind::Branch,
                "access" => TargetKind::Access,
                _ => return None,
            };
            let o = f.get("outcome")?;
            let outcome = if let Some(p) = o.get("found") {
                let text = |n: &str| p.get(n)?.as_str().map(str::to_string);
                Outcome::Found(Precondition {
                    lane: text("lane")?,
                    exact: text("exact")?,
                    group: match p.get("group")? {
                        Value::Null => None,
                        g => Some(g.as_str()?.to_string()),
                    },
                    rejected: p
                        .get("rejected")?
                        .as_array()?
                        .iter()
                        .map(|r| r.as_str().map(str::to_string))
                        .collect::<Option<_>>()?,
                    coverage: match p.get("coverage")? {
                        Value::Null => None,
                        c => Some(Coverage {
                            groups: c.get(0)?.as_u64()?,
                            total: c.get(1)?.as_u64()?,
                        }),
                    },
                    method: match p.get("method")?.as_str()? {
                        "pieces" => "pieces",
                        "cegis" => "cegis",
                        _ => return None,
                    },
                    effect: text("effect")?,
                })
            } else if let Some(why) = o.get("not_found") {
                Outcome::NotFound(why.as_str()?.to_string())
            } else {
                match o.get("out_of_budget")?.as_str()? {
                    "target" => Outcome::OutOfBudget(Exhausted::Target),
                    "file" => Outcome::OutOfBudget(Exhausted::File),
                    _ => return None,
                }
            };
            out.push(Finding {
                kind,
                span: self.absolute(f.get("span")?)?,
                stmt: match f.get("stmt")? {
                    Value::Null => None,
                    s => Some(self.absolute(s)?),
                },
                outcome,
                spent: f.get("spent")?.as_u64()?,
                millis: f.get("millis")?.as_f64()?,
                queries: f.get("queries")?.as_u64()? as u32,
            });
        }
        // Made with as much of the file's budget as now, or with enough
        // that no target was held back, and enough now.
        let need = v.get("need")?.as_u64()?;
        let holds = stored_left == file_left || (stored_left >= need && file_left >= need);
        holds.then_some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn sizes_read_as_ccache_writes_them() {
        assert_eq!(parse_size("0"), Some(0));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size("512K"), Some(512 << 10));
        assert_eq!(parse_size("100M"), Some(100 << 20));
        assert_eq!(parse_size(" 2G "), Some(2 << 30));
        assert_eq!(parse_size("2GiB"), Some(2 << 30));
        assert_eq!(parse_size("5mb"), Some(5 << 20));
        assert_eq!(parse_size("M"), None);
        assert_eq!(parse_size("-1"), None);
        assert_eq!(parse_size("1.5G"), None);
        assert_eq!(parse_size("10X"), None);
        assert_eq!(parse_size("99999999999T"), None);
    }

    /// The least recently used go first, down to 80% of the share; the
    /// entry just written and files that are not entries stay.
    #[test]
    fn trimming_removes_the_least_recently_used() {
        let dir = std::env::temp_dir().join(format!("lanes-cache-trim-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let t0 = SystemTime::now() - Duration::from_secs(1000);
        let mut paths = Vec::new();
        for i in 0..10u64 {
            let p = dir.join(format!("{i:02}.json"));
            std::fs::write(&p, [b'x'; 100]).unwrap();
            let f = std::fs::File::options().write(true).open(&p).unwrap();
            // Entry 0 was used last, entry 9 (just written) is the oldest.
            let age = if i == 0 { 20 } else { i };
            f.set_modified(t0 + Duration::from_secs(age)).unwrap();
            paths.push(p);
        }
        std::fs::write(dir.join(".tmp-1-2-3"), [b'x'; 500]).unwrap();
        trim(&dir, &paths[9], 2000);
        assert!(
            paths.iter().all(|p| p.exists()),
            "within the share: nothing removed"
        );
        trim(&dir, &paths[9], 500);
        let left: Vec<bool> = paths.iter().map(|p| p.exists()).collect();
        // 1,000 bytes down to 400: six go, oldest first (1..=6), not 9.
        assert_eq!(
            left,
            [true, false, false, false, false, false, false, true, true, true]
        );
        assert!(dir.join(".tmp-1-2-3").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
