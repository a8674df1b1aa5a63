//! The on-disk cache of precondition findings (`lanes build`, `lanes
//! check`): a kernel whose inputs did not change since a run that found
//! its preconditions gets the findings of that run instead of running Z3
//! again (docs/preconditions.md, "The findings cache").
//!
//! Where: `$LANES_CACHE_DIR`, else `$XDG_CACHE_HOME/lanes`, else
//! `~/.cache/lanes`; `LANES_CACHE=off` (or a command's `--no-cache`) turns
//! it off. One file per kernel key, `findings-v1/ab/cdef....json`, written
//! to a temporary file and renamed into place, so that concurrent builds
//! never read half an entry. A cache that cannot be written is reported
//! once per process and the build goes on without it; an entry that cannot
//! be read or parsed is a miss (and is written again).
//!
//! The key of a kernel is everything its findings depend on: the tokens
//! (after preprocessing: macros expanded) of every top-level item of the
//! file except the other kernels it does not name, with their positions
//! relative to the item; the pragmas; the kernel's place among the unit's
//! functions, structs and globals; the width, the lowering and the
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

use lanes_frontend::ast::ItemKind;
use lanes_frontend::hir;
use lanes_frontend::source::Span;
use lanes_frontend::unit::CheckedUnit;
use lanes_vectorizer::precond::{Coverage, Exhausted, Finding, Outcome, Precondition, TargetKind};
use serde_json::{json, Value};

/// The entries' format: its number is in the directory name and in every
/// entry; a change of the format or of what a key holds takes the next.
pub const FORMAT: u32 = 1;

/// How a run reads and writes the cache.
pub struct Cache {
    dir: PathBuf,
    tool: String,
    warned: Cell<bool>,
    hits: Cell<u32>,
    misses: Cell<u32>,
    debug: bool,
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
        let dir = var("LANES_CACHE_DIR")
            .map(PathBuf::from)
            .or_else(|| var("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("lanes")))
            .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache").join("lanes")))?;
        Some(Cache::at(dir))
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
    pub(crate) fn get(&self, key: &Key, name: &str, file_left: u64) -> Option<Vec<Finding>> {
        let found = std::fs::read(self.path(key))
            .ok()
            .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            .and_then(|v| key.decode(&v, file_left));
        match &found {
            Some(_) => self.hits.set(self.hits.get() + 1),
            None => self.misses.set(self.misses.get() + 1),
        }
        if self.debug {
            let what = if found.is_some() { "hit" } else { "miss" };
            eprintln!("cache: {what} {name} ({} units left)", file_left);
        }
        found
    }

    pub(crate) fn put(&self, key: &Key, file_left: u64, target_budget: u64, findings: &[Finding]) {
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
pub(crate) struct Key {
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
    let kernels = unit.hir.kernels();
    let other_kernels: Vec<(usize, &str)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match &item.kind {
            ItemKind::Function(f)
                if f.body.is_some()
                    && f.name.name != kernel.name
                    && kernels
                        .iter()
                        .any(|&o| unit.hir.function(o).name == f.name.name) =>
            {
                Some((i, f.name.name.as_str()))
            }
            _ => None,
        })
        .collect();
    // Every item but the other kernels, and those the items taken name
    // (a kernel may call another).
    let mut take: Vec<bool> = (0..items.len())
        .map(|i| !other_kernels.iter().any(|&(o, _)| o == i))
        .collect();
    let prelude = &tokens[..starts.first().copied().unwrap_or(tokens.len())];
    let mut named: std::collections::HashSet<&str> =
        prelude.iter().map(|t| t.text.as_str()).collect();
    for (i, _) in take.iter().enumerate().filter(|(_, &t)| t) {
        named.extend(tokens[range(i)].iter().map(|t| t.text.as_str()));
    }
    loop {
        let more: Vec<usize> = other_kernels
            .iter()
            .filter(|&&(o, n)| !take[o] && named.contains(n))
            .map(|&(o, _)| o)
            .collect();
        if more.is_empty() {
            break;
        }
        for o in more {
            take[o] = true;
            named.extend(tokens[range(o)].iter().map(|t| t.text.as_str()));
        }
    }
    let mut h = Both {
        fnv: Fnv(0x6C62272E07BB014262B821756295C58D),
        sip: std::hash::DefaultHasher::new(),
    };
    h.str("lanes findings");
    h.num(FORMAT.into());
    h.str(&cache.tool);
    h.str(context);
    h.str(&kernel.name);
    h.num(k.0.into());
    h.num(unit.hir.functions.len() as u64);
    h.num(unit.hir.structs.len() as u64);
    h.num(unit.hir.globals.len() as u64);
    let kernel_item = items
        .iter()
        .position(|i| matches!(&i.kind, ItemKind::Function(f) if f.body.is_some() && f.name.name == kernel.name));
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
    Some(Key {
        name: format!("{:032x}", h.fnv.0),
        check: format!("{:016x}", h.sip.finish()),
        pieces,
    })
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
