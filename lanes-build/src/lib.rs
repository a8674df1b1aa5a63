//! OpenCL C kernels in a Cargo build, compiled by `lanes` (docs/rust.md).
//!
//! In `build.rs`:
//!
//! ```no_run
//! lanes_build::Build::new()
//!     .file("kernels/saxpy.cl")
//!     .include("kernels/include")
//!     .define("RADIUS", Some("2"))
//!     .compile("kernels");
//! ```
//!
//! and in the crate: `mod saxpy { include!(concat!(env!("OUT_DIR"), "/saxpy.rs")); }`.
//!
//! For every `.cl` file this runs `lanes build` twice, for the object (with
//! `--depfile`) and for the Rust bindings (`--emit rust`, written to
//! `OUT_DIR/<file stem>.rs`), archives the objects into a static library
//! linked into the crate, and tells Cargo to run the build script again
//! when a `.cl` file, a file it `#include`s, its `lanes.toml` or the
//! `lanes` binary changes. The crate links no part of lanes: the `lanes`
//! binary is `LANES` from the environment, else `lanes` on `PATH`.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a build failed; [`Build::compile`] prints it and stops the build.
#[derive(Debug)]
pub enum Error {
    /// No `lanes` binary: not in `LANES`, not on `PATH`.
    LanesNotFound,
    /// `lanes` could not be started.
    Spawn(PathBuf, std::io::Error),
    /// `lanes build` failed on `file`; `stderr` has its diagnostics with
    /// `file:line:column`.
    Lanes { file: PathBuf, stderr: String },
    /// A Cargo variable a build script always has is missing (`OUT_DIR`).
    Env(&'static str),
    /// Reading a depfile or writing into `OUT_DIR` failed.
    Io(PathBuf, std::io::Error),
    /// Nothing to build.
    NoFiles,
    /// Cross-compiling without a lanes target: `host` would be wrong.
    NoTarget { target: String },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::LanesNotFound => write!(
                f,
                "cannot find the `lanes` binary: set the LANES environment variable to its path, \
                 or put it on PATH (`cargo install --path cli` in the lanes repository)"
            ),
            Error::Spawn(p, e) => write!(f, "cannot run `{}`: {e}", p.display()),
            Error::Lanes { file, stderr } => write!(
                f,
                "lanes could not compile `{}`:\n{}",
                file.display(),
                stderr.trim_end()
            ),
            Error::Env(v) => write!(f, "`{v}` is not set: lanes-build runs in a build script"),
            Error::Io(p, e) => write!(f, "`{}`: {e}", p.display()),
            Error::NoFiles => write!(f, "no `.cl` files to build: call `.file(...)`"),
            Error::NoTarget { target } => write!(
                f,
                "building for `{target}`, another CPU than this one: choose its lanes target \
                 with `.target(...)` (`lanes targets` lists them)"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// What the build produced.
#[derive(Clone, Debug, Default)]
pub struct Output {
    /// The object of each file, in the order given.
    pub objects: Vec<PathBuf>,
    /// The Rust bindings of each file (`OUT_DIR/<stem>.rs`).
    pub bindings: Vec<PathBuf>,
    /// Every file the build depends on (sources, includes, `lanes.toml`).
    pub dependencies: Vec<PathBuf>,
}

/// A set of `.cl` files compiled with the same options.
#[derive(Clone, Debug, Default)]
pub struct Build {
    files: Vec<PathBuf>,
    target: Option<String>,
    defines: Vec<String>,
    includes: Vec<PathBuf>,
    lanes: Option<PathBuf>,
    out_dir: Option<PathBuf>,
}

impl Build {
    pub fn new() -> Build {
        Build::default()
    }

    /// Adds an OpenCL C file.
    pub fn file(&mut self, path: impl AsRef<Path>) -> &mut Build {
        self.files.push(path.as_ref().to_path_buf());
        self
    }

    /// Adds OpenCL C files.
    pub fn files<P: AsRef<Path>>(&mut self, paths: impl IntoIterator<Item = P>) -> &mut Build {
        for p in paths {
            self.file(p);
        }
        self
    }

    /// The SIMD target (`lanes targets`: `avx2-i32x8`, ...), or a list
    /// (`sse4-i32x4,avx2-i32x8,avx512skx-x16`: one object that runs the best
    /// variant the CPU has); default: the `target` of the nearest
    /// `lanes.toml`, else `host`, the CPU building.
    pub fn target(&mut self, target: &str) -> &mut Build {
        self.target = Some(target.to_string());
        self
    }

    /// Defines a macro (`-D NAME` or `-D NAME=VALUE`).
    pub fn define(&mut self, name: &str, value: Option<&str>) -> &mut Build {
        self.defines.push(match value {
            Some(v) => format!("{name}={v}"),
            None => name.to_string(),
        });
        self
    }

    /// Adds a directory to the `#include` search path (`-I`).
    pub fn include(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.includes.push(dir.as_ref().to_path_buf());
        self
    }

    /// The `lanes` binary to run (default: `LANES`, else `PATH`).
    pub fn lanes(&mut self, path: impl AsRef<Path>) -> &mut Build {
        self.lanes = Some(path.as_ref().to_path_buf());
        self
    }

    /// Where objects, the library and bindings go (default: `OUT_DIR`).
    pub fn out_dir(&mut self, dir: impl AsRef<Path>) -> &mut Build {
        self.out_dir = Some(dir.as_ref().to_path_buf());
        self
    }

    /// Builds everything and links it into the crate as the static library
    /// `lib_name`. On an error it prints lanes' diagnostics (Cargo shows
    /// them when the build script fails) and stops the build.
    pub fn compile(&self, lib_name: &str) -> Output {
        match self.try_compile(lib_name) {
            Ok(out) => out,
            Err(e) => {
                eprintln!("error: {e}");
                panic!("lanes-build: building `{lib_name}` failed (the error is above)");
            }
        }
    }

    /// [`Build::compile`], returning the error instead.
    pub fn try_compile(&self, lib_name: &str) -> Result<Output, Error> {
        if self.files.is_empty() {
            return Err(Error::NoFiles);
        }
        if self.target.is_none() {
            let arch = |v: &str| {
                std::env::var(v)
                    .ok()
                    .map(|t| t.split('-').next().unwrap_or("").to_string())
            };
            if let (Some(target), Some(host)) = (arch("TARGET"), arch("HOST")) {
                if target != host {
                    return Err(Error::NoTarget {
                        target: std::env::var("TARGET").unwrap_or_default(),
                    });
                }
            }
        }
        let lanes = match &self.lanes {
            Some(p) => p.clone(),
            None => find_lanes(std::env::var_os("LANES"), std::env::var_os("PATH"))?,
        };
        println!("cargo:rerun-if-env-changed=LANES");
        println!("cargo:rerun-if-changed={}", lanes.display());
        let out_dir = match &self.out_dir {
            Some(d) => d.clone(),
            None => PathBuf::from(std::env::var_os("OUT_DIR").ok_or(Error::Env("OUT_DIR"))?),
        };
        let obj_dir = out_dir.join("lanes");
        std::fs::create_dir_all(&obj_dir).map_err(|e| Error::Io(obj_dir.clone(), e))?;
        let mut out = Output::default();
        let mut stems: Vec<String> = Vec::new();
        for file in &self.files {
            // Always rerun for the source itself, even if lanes fails on it.
            println!("cargo:rerun-if-changed={}", file.display());
            let stem = unique_stem(file, &stems);
            stems.push(stem.clone());
            let obj = obj_dir.join(format!("{stem}.o"));
            let dep = obj_dir.join(format!("{stem}.d"));
            let rs = out_dir.join(format!("{stem}.rs"));
            self.run_lanes(
                &lanes,
                file,
                &[
                    "-o".as_ref(),
                    obj.as_os_str(),
                    "--depfile".as_ref(),
                    dep.as_os_str(),
                ],
            )?;
            let text = std::fs::read_to_string(&dep).map_err(|e| Error::Io(dep.clone(), e))?;
            for d in depfile_dependencies(&text) {
                if !out.dependencies.contains(&d) {
                    if d != *file {
                        println!("cargo:rerun-if-changed={}", d.display());
                    }
                    out.dependencies.push(d);
                }
            }
            self.run_lanes(
                &lanes,
                file,
                &[
                    "--emit".as_ref(),
                    "rust".as_ref(),
                    "-o".as_ref(),
                    rs.as_os_str(),
                ],
            )?;
            out.objects.push(obj);
            out.bindings.push(rs);
        }
        // The archiver of the target being built; also prints the
        // `cargo:rustc-link-lib` and `-search` lines.
        let mut archive = cc::Build::new();
        archive.out_dir(&out_dir).cargo_warnings(true);
        for o in &out.objects {
            archive.object(o);
        }
        archive.compile(lib_name);
        Ok(out)
    }

    fn run_lanes(
        &self,
        lanes: &Path,
        file: &Path,
        outputs: &[&std::ffi::OsStr],
    ) -> Result<(), Error> {
        let mut cmd = Command::new(lanes);
        cmd.arg("build").arg(file).args(outputs);
        if let Some(t) = &self.target {
            cmd.arg("--target").arg(t);
        }
        for d in &self.defines {
            cmd.arg("-D").arg(d);
        }
        for i in &self.includes {
            cmd.arg("-I").arg(i);
        }
        let done = cmd
            .output()
            .map_err(|e| Error::Spawn(lanes.to_path_buf(), e))?;
        let stderr = String::from_utf8_lossy(&done.stderr).into_owned();
        if !done.status.success() {
            return Err(Error::Lanes {
                file: file.to_path_buf(),
                stderr,
            });
        }
        for line in stderr.lines().filter(|l| l.starts_with("warning:")) {
            println!(
                "cargo:warning=lanes: {}",
                line.trim_start_matches("warning:").trim()
            );
        }
        Ok(())
    }
}

/// `LANES` if set, else the first `lanes` on `PATH`.
fn find_lanes(lanes: Option<OsString>, path: Option<OsString>) -> Result<PathBuf, Error> {
    if let Some(p) = lanes.filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    let name = format!("lanes{}", std::env::consts::EXE_SUFFIX);
    path.iter()
        .flat_map(std::env::split_paths)
        .map(|dir| dir.join(&name))
        .find(|p| p.is_file())
        .ok_or(Error::LanesNotFound)
}

/// The file stem of `file`, with a number added if another file had it.
fn unique_stem(file: &Path, taken: &[String]) -> String {
    let base: String = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kernels".into())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut stem = base.clone();
    let mut n = 2;
    while taken.contains(&stem) {
        stem = format!("{base}_{n}");
        n += 1;
    }
    stem
}

/// The prerequisites of a Makefile-syntax depfile as `lanes build
/// --depfile` (and GCC's `-MD`) write it: backslash-newline continues a
/// line, `\ ` and `\#` escape, `$$` is `$`.
pub fn depfile_dependencies(text: &str) -> Vec<PathBuf> {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        let mut words: Vec<String> = Vec::new();
        let mut word = String::new();
        let mut target_done = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if matches!(chars.peek(), Some(' ') | Some('#')) => {
                    word.push(chars.next().unwrap())
                }
                '$' if chars.peek() == Some(&'$') => {
                    chars.next();
                    word.push('$');
                }
                // The target ends at the first `: ` (a Windows drive's `C:`
                // is followed by a separator, not a space).
                ':' if !target_done && matches!(chars.peek(), None | Some(' ') | Some('\t')) => {
                    target_done = true;
                    word.clear();
                }
                ' ' | '\t' => {
                    if !word.is_empty() {
                        words.push(std::mem::take(&mut word));
                    }
                }
                c => word.push(c),
            }
        }
        if !word.is_empty() {
            words.push(word);
        }
        if target_done {
            out.extend(words.into_iter().map(PathBuf::from));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depfiles_are_read_as_make_reads_them() {
        let text = "out/k.o: \\\n  /src/k.cl \\\n  /src/my\\ dir/a\\#b.h \\\n  /src/c$$d.h\n";
        assert_eq!(
            depfile_dependencies(text),
            vec![
                PathBuf::from("/src/k.cl"),
                PathBuf::from("/src/my dir/a#b.h"),
                PathBuf::from("/src/c$d.h")
            ]
        );
        assert!(depfile_dependencies("").is_empty());
    }

    #[test]
    fn lanes_comes_from_the_variable_then_the_path() {
        assert_eq!(
            find_lanes(Some("/opt/lanes".into()), None).unwrap(),
            PathBuf::from("/opt/lanes")
        );
        let dir = std::env::temp_dir().join(format!("lanes-build-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("lanes"), "").unwrap();
        let path = std::env::join_paths([Path::new("/nonexistent"), &dir]).unwrap();
        assert_eq!(
            find_lanes(Some("".into()), Some(path)).unwrap(),
            dir.join("lanes")
        );
        let e = find_lanes(None, Some("/nonexistent".into())).unwrap_err();
        assert!(
            e.to_string().contains("set the LANES environment variable"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn stems_stay_distinct() {
        let a = unique_stem(Path::new("a/k.cl"), &[]);
        let b = unique_stem(Path::new("b/k.cl"), std::slice::from_ref(&a));
        assert_eq!((a.as_str(), b.as_str()), ("k", "k_2"));
        assert_eq!(unique_stem(Path::new("my kernels.cl"), &[]), "my_kernels");
    }
}
