//! Inputs and the database type.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use lanes_frontend::diag::{Code, Severity};
use lanes_frontend::preprocess::{FileLoader, PreprocessOptions};
use lanes_frontend::source::SourceText;
use salsa::Setter;

/// One source file: an editor buffer, a file on disk, or a header found by
/// `#include`. `contents` is `None` for a file that does not exist (an
/// `#include` of it fails until it is created).
#[salsa::input(debug)]
pub struct File {
    #[returns(ref)]
    pub path: PathBuf,
    #[returns(ref)]
    pub contents: Option<Arc<str>>,
    /// Where the first byte read as Latin-1 is, for a file read from disk
    /// that is not UTF-8 (see `lanes_frontend::source::decode_source`).
    #[returns(copy)]
    pub latin1_at: Option<u32>,
    /// The editor's document version (0 for files read from disk).
    #[returns(copy)]
    pub version: i32,
    /// Inferred preconditions of the file's kernels, computed outside the
    /// database (Z3 must not hold a snapshot: an edit would wait for it) and
    /// set by [`crate::set_kernel_preconditions`].
    #[returns(ref)]
    pub preconditions: Arc<crate::precond::FilePreconditions>,
}

/// The configuration: one per database. Each setting is its own field so
/// that changing severities re-runs no analysis, and changing the width
/// re-runs everything.
#[salsa::input(singleton, debug)]
pub struct Config {
    /// The target name as the user gave it (`avx512skx-x16`, `host`).
    #[returns(ref)]
    pub target: String,
    /// SIMD width W of the target.
    #[returns(copy)]
    pub width: u32,
    /// `-D NAME[=VALUE]`, in order.
    #[returns(ref)]
    pub defines: Vec<(String, Option<String>)>,
    #[returns(ref)]
    pub undefines: Vec<String>,
    #[returns(ref)]
    pub include_dirs: Vec<PathBuf>,
    /// Severity per code; `None` turns the code off.
    #[returns(ref)]
    pub severities: BTreeMap<Code, Option<Severity>>,
    /// All the settings, for what no query reads (precondition budgets and
    /// launch hint, `specialize`, `outDir`): a change of those re-runs
    /// nothing.
    #[returns(ref)]
    pub all: Settings,
}

/// The configuration as plain data: the one settings model of lanes
/// (lanes-pipeline), read from `lanes.toml` and the editor's settings.
pub use lanes_pipeline::Settings;

/// The database interface the queries and the IDE features use.
#[salsa::db]
pub trait Db: salsa::Database {
    /// The configuration input.
    fn config(&self) -> Config;
    /// The input for `path`, read from disk the first time (for headers).
    fn load(&self, path: &Path) -> File;
    /// The input for `path` if the database has one.
    fn file(&self, path: &Path) -> Option<File>;
    /// The last analysed facts of kernels that have errors now.
    fn last_good(&self) -> &crate::stale::LastGood;
    /// Each file's last parse, to start the next one from.
    fn parse_memos(&self) -> &crate::items::ParseMemos;
}

/// The database. Cloning gives a snapshot for another thread: it shares the
/// storage, and an edit (a setter on the original) cancels the snapshots'
/// queries.
#[salsa::db]
#[derive(Clone)]
pub struct LanesDatabase {
    storage: salsa::Storage<Self>,
    files: Arc<Mutex<HashMap<PathBuf, File>>>,
    last_good: crate::stale::LastGood,
    parse_memos: crate::items::ParseMemos,
}

#[salsa::db]
impl salsa::Database for LanesDatabase {}

impl Default for LanesDatabase {
    fn default() -> Self {
        LanesDatabase::new(Settings::default())
    }
}

impl LanesDatabase {
    pub fn new(settings: Settings) -> Self {
        Self::with_events(settings, None)
    }

    /// A database that calls `events` for every salsa event (tests use the
    /// `WillExecute` events to see which queries ran).
    pub fn with_events(
        settings: Settings,
        events: Option<Box<dyn Fn(salsa::Event) + Send + Sync + 'static>>,
    ) -> Self {
        let db = LanesDatabase {
            storage: salsa::Storage::new(events),
            files: Arc::default(),
            last_good: Default::default(),
            parse_memos: Default::default(),
        };
        Config::new(
            &db,
            settings.target.clone(),
            settings.width,
            settings.defines.clone(),
            settings.undefines.clone(),
            settings.include_dirs.clone(),
            settings.severities.clone(),
            settings,
        );
        db
    }

    /// The current settings.
    pub fn settings(&self) -> Settings {
        Config::get(self).all(self).clone()
    }

    /// Changes the settings; only the fields that differ are set, so that
    /// e.g. a severity change keeps every analysis.
    pub fn set_settings(&mut self, s: Settings) {
        let c = Config::get(self);
        if *c.all(self) == s {
            return;
        }
        c.set_all(self).to(s.clone());
        if *c.target(self) != s.target {
            c.set_target(self).to(s.target);
        }
        if c.width(self) != s.width {
            c.set_width(self).to(s.width);
        }
        if *c.defines(self) != s.defines {
            c.set_defines(self).to(s.defines);
        }
        if *c.undefines(self) != s.undefines {
            c.set_undefines(self).to(s.undefines);
        }
        if *c.include_dirs(self) != s.include_dirs {
            c.set_include_dirs(self).to(s.include_dirs);
        }
        if *c.severities(self) != s.severities {
            c.set_severities(self).to(s.severities);
        }
    }

    /// Sets (or creates) the text of a file: an opened or edited document.
    pub fn set_file(&mut self, path: impl Into<PathBuf>, text: &str, version: i32) -> File {
        let path = path.into();
        let existing = self.file(&path);
        match existing {
            Some(f) => {
                let same = f.contents(self).as_deref() == Some(text);
                if !same {
                    f.set_contents(self).to(Some(Arc::from(text)));
                }
                // An editor buffer is text already.
                if f.latin1_at(self).is_some() {
                    f.set_latin1_at(self).to(None);
                }
                if f.version(self) != version {
                    f.set_version(self).to(version);
                }
                f
            }
            None => {
                let f = File::new(
                    self,
                    path.clone(),
                    Some(Arc::from(text)),
                    None,
                    version,
                    Arc::default(),
                );
                self.files_map().insert(path, f);
                f
            }
        }
    }

    /// Re-reads a file from disk (a closed document, or a header changed on
    /// disk); a missing file becomes `None` contents.
    pub fn reload_from_disk(&mut self, path: &Path) -> File {
        let (text, latin1_at) = read_from_disk(path);
        match self.file(path) {
            Some(f) => {
                if *f.contents(self) != text {
                    f.set_contents(self).to(text);
                }
                if f.latin1_at(self) != latin1_at {
                    f.set_latin1_at(self).to(latin1_at);
                }
                f
            }
            None => {
                let f = File::new(self, path.to_path_buf(), text, latin1_at, 0, Arc::default());
                self.files_map().insert(path.to_path_buf(), f);
                f
            }
        }
    }

    /// Frees the results that the last revision's queries replaced. salsa
    /// keeps a replaced result until the next revision starts (a reader of
    /// that revision may still borrow it), so between two edits the
    /// database would hold two revisions of everything an edit re-ran: the
    /// whole file's `parse` and every moved kernel's report. Like a setter,
    /// this cancels running snapshot queries and waits until they are
    /// dropped; it changes no result and makes no query run again.
    /// (A `parse` result is parked by its `Drop`: see [`crate::reclaim`].)
    pub fn free_replaced(&mut self) {
        salsa::Database::trigger_lru_eviction(self);
    }

    fn files_map(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, File>> {
        // A poisoned lock only means another thread panicked while holding
        // it; the map itself is always consistent.
        self.files.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[salsa::db]
impl Db for LanesDatabase {
    fn config(&self) -> Config {
        Config::get(self)
    }

    fn load(&self, path: &Path) -> File {
        if let Some(f) = self.file(path) {
            return f;
        }
        let (text, latin1_at) = read_from_disk(path);
        let mut map = self.files_map();
        // Another thread may have loaded it meanwhile.
        if let Some(&f) = map.get(path) {
            return f;
        }
        let f = File::new(self, path.to_path_buf(), text, latin1_at, 0, Arc::default());
        map.insert(path.to_path_buf(), f);
        f
    }

    fn file(&self, path: &Path) -> Option<File> {
        self.files_map().get(path).copied()
    }

    fn last_good(&self) -> &crate::stale::LastGood {
        &self.last_good
    }

    fn parse_memos(&self) -> &crate::items::ParseMemos {
        &self.parse_memos
    }
}

/// The contents of a file on disk as the front end decodes them (`None` when
/// it cannot be read), and where its first Latin-1 byte is.
fn read_from_disk(path: &Path) -> (Option<Arc<str>>, Option<u32>) {
    match lanes_frontend::source::read_source(path) {
        Ok(s) => (Some(Arc::from(s.text)), s.latin1_at),
        Err(_) => (None, None),
    }
}

/// The preprocessor's view of the database: `#include` reads a [`File`]
/// input, which makes the including query depend on the header's text.
pub(crate) struct DbLoader<'a> {
    pub db: &'a dyn Db,
}

impl FileLoader for DbLoader<'_> {
    fn read(&self, path: &Path) -> std::io::Result<SourceText> {
        let f = self.db.load(path);
        match f.contents(self.db) {
            Some(t) => Ok(SourceText {
                text: t.to_string(),
                latin1_at: f.latin1_at(self.db),
            }),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such file",
            )),
        }
    }
}

/// The preprocessor options of the configuration.
pub(crate) fn preprocess_options(db: &dyn Db) -> PreprocessOptions {
    let c = db.config();
    PreprocessOptions {
        defines: c.defines(db).clone(),
        undefines: c.undefines(db).clone(),
        include_dirs: c.include_dirs(db).clone(),
        width: c.width(db),
    }
}
