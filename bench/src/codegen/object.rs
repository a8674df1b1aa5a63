//! The lanes column as users get it: `lanes build FILE --target T -o k.o`
//! (the real binary, default options: -O2, fast paths on inferred
//! preconditions), linked with `gcc -shared` and loaded with `libloading`;
//! the kernel runs through the object's `k__launch`. Also the launch glue
//! shared with the JIT column ([`Launcher`]): threads take chunks of the
//! work-groups `[0, groups)` from a shared counter ([`super::run_split`]).

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::problems::{HostArg, Problem};
use super::Instance;

/// The header's `lanes_range`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Range {
    pub work_dim: u32,
    pub global_offset: [usize; 3],
    pub global_size: [usize; 3],
    pub local_size: [usize; 3],
}

impl Range {
    pub fn of(p: &Problem) -> Range {
        Range {
            work_dim: p.work_dim,
            global_offset: [0; 3],
            global_size: p.global,
            local_size: p.local,
        }
    }
}

/// `int k__launch(void *const *args, const lanes_range *r, size_t first, size_t last)`.
pub type Launch = unsafe extern "C" fn(*const *mut c_void, *const Range, usize, usize) -> i32;

/// A kernel's `k__launch` with its arguments.
pub struct Launcher {
    pub launch: Launch,
    pub args: Vec<HostArg>,
    pub range: Range,
    pub groups: usize,
}

/// Raw pointers handed to the worker threads; the kernel's contract is
/// that distinct work-groups write distinct elements.
#[derive(Clone, Copy)]
struct Shared(*const *mut c_void, *const Range);
unsafe impl Send for Shared {}
unsafe impl Sync for Shared {}

impl Launcher {
    pub fn run(&mut self, threads: usize) -> Result<(), String> {
        // One 8-byte slot per argument: a buffer's address, or a scalar's
        // value in the low bytes (little endian); args[i] points to slot i.
        let mut slots: Vec<u64> = self
            .args
            .iter_mut()
            .map(|a| match a {
                HostArg::Buf(b) => b.as_mut_ptr() as usize as u64,
                HostArg::I32(v) => *v as u32 as u64,
                HostArg::U32(v) => *v as u64,
                HostArg::F32(v) => v.to_bits() as u64,
            })
            .collect();
        let ptrs: Vec<*mut c_void> = slots
            .iter_mut()
            .map(|s| s as *mut u64 as *mut c_void)
            .collect();
        let (launch, groups) = (self.launch, self.groups);
        let shared = Shared(ptrs.as_ptr(), &self.range);
        let rc = super::run_split(groups, threads, move |first, last| {
            let s = shared;
            // SAFETY: the arguments match the kernel's parameters; slots
            // and buffers outlive the call.
            unsafe { launch(s.0, s.1, first, last) }
        });
        drop(slots);
        if rc != 0 {
            return Err(format!("kernel returned {rc}"));
        }
        Ok(())
    }

    pub fn output(&self, arg: usize) -> Result<Vec<u8>, String> {
        HostArg::output(&self.args, arg)
    }
}

/// The `lanes` binary: `$LANES`, else the one next to this benchmark
/// (`target/release/lanes`, which `make bench` builds first).
pub fn lanes_binary() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("LANES") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = exe.parent().ok_or("no directory for this executable")?;
    // target/release/lanes-bench, or target/debug/deps/lanes_bench-HASH under test.
    for d in [dir, dir.parent().unwrap_or(dir)] {
        let p = d.join("lanes");
        if p.is_file() {
            return Ok(p);
        }
    }
    Err(format!(
        "no `lanes` binary next to {} (build it with `cargo build --release -p lanes`, or set LANES)",
        exe.display()
    ))
}

/// `lanes --version`'s line, for the results' header.
pub fn lanes_version(bin: &Path) -> String {
    Command::new(bin)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "lanes".into())
}

/// "avx2-i32x8 (W = 8, x86-64 AVX2 + FMA)" from `lanes targets`.
pub fn target_description(bin: &Path, target: &str) -> String {
    let out = Command::new(bin).arg("targets").output();
    let text = out
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    text.lines()
        .skip(1)
        .find_map(|l| {
            let mut f = l.split_whitespace();
            (f.next()? == target).then(|| {
                let width = f.next().unwrap_or("?");
                let rest: Vec<&str> = f.collect();
                // The last column says whether it runs here.
                let what = rest[..rest.len().saturating_sub(1)].join(" ");
                format!("{target} (W = {width}, {what})")
            })
        })
        .unwrap_or_else(|| format!("{target} (not in `lanes targets`)"))
}

/// A loaded kernel: `_code` owns what `launcher.launch` points into (a
/// shared library, a JIT).
pub struct Loaded<T> {
    pub _code: T,
    pub launcher: Launcher,
}

impl<T> Instance for Loaded<T> {
    fn run(&mut self, threads: usize) -> Result<(), String> {
        self.launcher.run(threads)
    }
    fn output(&mut self, arg: usize) -> Result<Vec<u8>, String> {
        self.launcher.output(arg)
    }
}

/// Removes a directory when dropped (also on the error paths).
struct TempDir(PathBuf);
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Builds `cl_path` with `lanes build --target TARGET` (otherwise default
/// options), links the object into a shared library and loads `p.kernel`.
pub fn instance(
    p: &Problem,
    cl_path: &Path,
    target: &str,
    bin: &Path,
) -> Result<Box<dyn Instance>, String> {
    let dir = std::env::temp_dir().join(format!("lanes-bench-{}-{}", std::process::id(), p.name));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let dir = TempDir(dir);
    let (obj, so) = (dir.0.join("k.o"), dir.0.join("libk.so"));
    let out = Command::new(bin)
        .arg("build")
        .arg(cl_path)
        .args(["--target", target, "-o"])
        .arg(&obj)
        .output()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    if !out.status.success() {
        return Err(format!(
            "lanes build failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let out = Command::new("gcc")
        .args(["-shared", "-o"])
        .arg(&so)
        .arg(&obj)
        .arg("-lm")
        .output()
        .map_err(|e| format!("gcc: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "linking the object failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    // SAFETY: an object lanes built; it has no initializers.
    let lib = unsafe { libloading::Library::new(&so) }.map_err(|e| format!("{e}"))?;
    let symbol = format!("{}__launch", p.kernel);
    // SAFETY: `k__launch` has the header's signature, which `Launch` mirrors.
    let launch: Launch = unsafe {
        *lib.get::<Launch>(symbol.as_bytes())
            .map_err(|e| format!("{symbol}: {e}"))?
    };
    Ok(Box::new(Loaded {
        _code: lib,
        launcher: Launcher {
            launch,
            args: HostArg::copies_of(&p.args),
            range: Range::of(p),
            groups: p.groups(),
        },
    }))
}
