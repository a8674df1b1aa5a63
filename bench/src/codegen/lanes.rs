//! The lanes column: the `.cl` file through the front end and the
//! `lanes-codegen` back end for the chosen target (`host` unless
//! `--target` names another), JIT-compiled, launched
//! through `LaunchFn`; threads split the work-groups `[0, groups)` into
//! contiguous slices (`first_group`, `last_group`).
//!
//! Everything that touches the back end's API is in this file. Without the
//! `lanes` feature (or when compiling fails) the column reads "back end
//! unavailable: <error>" and the other columns still run.

use std::path::Path;

use super::problems::Problem;
use super::Instance;

/// Compiles `p.kernel` from `cl_path` for `target` (a `lanes targets` name).
pub fn instance(p: &Problem, cl_path: &Path, target: &str) -> Result<Box<dyn Instance>, String> {
    imp::instance(p, cl_path, target)
}

/// The target description printed with the results.
pub fn target_description(target: &str) -> String {
    imp::target_description(target)
}

#[cfg(not(feature = "lanes"))]
mod imp {
    use super::*;

    pub fn instance(
        _p: &Problem,
        _cl_path: &Path,
        _target: &str,
    ) -> Result<Box<dyn Instance>, String> {
        Err("lanes-bench was built without the `lanes` feature".into())
    }

    pub fn target_description(target: &str) -> String {
        format!("{target} (unavailable)")
    }
}

#[cfg(feature = "lanes")]
mod imp {
    use std::ffi::c_void;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    use lanes_codegen::{LanesRange, LaunchFn};
    use lanes_frontend::preprocess::{PreprocessOptions, RealFs};

    use super::super::problems::Arg;
    use super::*;

    /// `launcher` may return an Option or a Result; take either.
    trait IntoOption<T> {
        fn into_option(self) -> Option<T>;
    }
    impl<T> IntoOption<T> for Option<T> {
        fn into_option(self) -> Option<T> {
            self
        }
    }
    impl<T, E> IntoOption<T> for Result<T, E> {
        fn into_option(self) -> Option<T> {
            self.ok()
        }
    }

    pub fn target_description(target: &str) -> String {
        match catch_unwind(|| lanes_codegen::target_spec(target)) {
            Ok(Ok(s)) => format!("{target} (W = {}, {})", s.width, s.cpu),
            Ok(Err(e)) => format!("{target} (unavailable: {e})"),
            Err(_) => format!("{target} (unavailable)"),
        }
    }

    pub fn instance(
        p: &Problem,
        cl_path: &Path,
        target: &str,
    ) -> Result<Box<dyn Instance>, String> {
        // The back end is young: a panic while compiling is reported, not fatal.
        catch_unwind(AssertUnwindSafe(|| compile(p, cl_path, target))).unwrap_or_else(|e| {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(format!("panic while compiling: {msg}"))
        })
    }

    // `..Default::default()` keeps working when Options grows.
    #[allow(clippy::needless_update)]
    fn compile(p: &Problem, cl_path: &Path, target: &str) -> Result<Box<dyn Instance>, String> {
        let spec =
            lanes_codegen::target_spec(target).map_err(|e| format!("target {target}: {e}"))?;
        let opts = PreprocessOptions {
            width: spec.width,
            ..Default::default()
        };
        let checked = lanes_frontend::unit::check_file(cl_path, &opts, &RealFs)
            .map_err(|e| format!("{}: {e}", cl_path.display()))?;
        if checked.has_errors() {
            let first = checked
                .diagnostics
                .iter()
                .find(|d| d.is_error())
                .map(|d| d.message.clone())
                .unwrap_or_default();
            return Err(format!("{}: {first}", cl_path.display()));
        }
        let compiled = lanes_codegen::compile_unit(
            &checked.hir,
            &spec,
            &lanes_codegen::Options {
                opt_level: 2,
                ..Default::default()
            },
        )
        .map_err(|ds| {
            let msgs: Vec<String> = ds.iter().map(|d| d.message.clone()).collect();
            format!("compile: {}", msgs.join("; "))
        })?;
        let jit = lanes_codegen::Jit::new(compiled).map_err(|e| format!("JIT: {e}"))?;
        let launch: LaunchFn = jit
            .launcher(p.kernel)
            .into_option()
            .ok_or_else(|| format!("no launcher for kernel {}", p.kernel))?;
        Ok(Box::new(LanesInstance {
            _jit: jit,
            launch,
            args: p.args.clone(),
            range: LanesRange {
                work_dim: p.work_dim,
                global_offset: [0; 3],
                global_size: p.global,
                local_size: p.local,
            },
            groups: p.groups(),
        }))
    }

    struct LanesInstance {
        /// Owns the code `launch` points into.
        _jit: lanes_codegen::Jit,
        launch: LaunchFn,
        args: Vec<Arg>,
        range: LanesRange,
        groups: usize,
    }

    /// Raw pointers handed to the worker threads; the kernel's contract is
    /// that distinct work-groups write distinct elements.
    #[derive(Clone, Copy)]
    struct Shared(*const *mut c_void, *const LanesRange);
    unsafe impl Send for Shared {}
    unsafe impl Sync for Shared {}

    impl Instance for LanesInstance {
        fn run(&mut self, threads: usize) -> Result<(), String> {
            // One 8-byte slot per argument: a buffer's address, or a scalar's
            // value in the low bytes (little endian); args[i] points to slot i.
            let mut slots: Vec<u64> = self
                .args
                .iter_mut()
                .map(|a| match a {
                    Arg::Buf(b) => b.as_mut_ptr() as usize as u64,
                    Arg::I32(v) => *v as u32 as u64,
                    Arg::U32(v) => *v as u64,
                    Arg::F32(v) => v.to_bits() as u64,
                })
                .collect();
            let ptrs: Vec<*mut c_void> = slots
                .iter_mut()
                .map(|s| s as *mut u64 as *mut c_void)
                .collect();
            let (launch, groups) = (self.launch, self.groups);
            let shared = Shared(ptrs.as_ptr(), &self.range);
            let call = move |first: usize, last: usize| -> i32 {
                let s = shared;
                // SAFETY: the arguments match the kernel's parameters; slots
                // and buffers outlive the call.
                unsafe { launch(s.0, s.1, first, last) }
            };
            let rc = if threads <= 1 {
                call(0, groups)
            } else {
                std::thread::scope(|sc| {
                    let hs: Vec<_> = (0..threads)
                        .map(|t| {
                            let (first, last) = (groups * t / threads, groups * (t + 1) / threads);
                            sc.spawn(move || call(first, last))
                        })
                        .collect();
                    hs.into_iter()
                        .map(|h| h.join().unwrap_or(-1))
                        .find(|&rc| rc != 0)
                        .unwrap_or(0)
                })
            };
            drop(slots);
            if rc != 0 {
                return Err(format!("kernel returned {rc}"));
            }
            Ok(())
        }

        fn output(&mut self, arg: usize) -> Result<Vec<u8>, String> {
            match &self.args[arg] {
                Arg::Buf(b) => Ok(b.bytes().to_vec()),
                _ => Err(format!("argument {arg} is not a buffer")),
            }
        }
    }
}
