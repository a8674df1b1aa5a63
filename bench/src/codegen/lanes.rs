//! The back end in this process: the `.cl` file through the front end and
//! the `lanes-codegen` back end for a target, JIT-compiled without fast
//! paths, launched through `LaunchFn` with the glue of [`super::object`].
//! The benchmark's lanes column times `lanes build` objects
//! ([`super::object`]); the tests use this to check the code generator
//! without the `lanes` binary.
//!
//! Everything that touches the back end's API is in this file. Without the
//! `lanes` feature it reports the back end unavailable.

use std::path::Path;

use super::problems::{HostArg, Problem};
use super::Instance;

/// Compiles `p.kernel` from `cl_path` for `target` (a `lanes targets` name).
pub fn instance(p: &Problem, cl_path: &Path, target: &str) -> Result<Box<dyn Instance>, String> {
    imp::instance(p, cl_path, target)
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
}

#[cfg(feature = "lanes")]
mod imp {
    use std::panic::{catch_unwind, AssertUnwindSafe};

    use lanes_codegen::LaunchFn;
    use lanes_frontend::preprocess::{PreprocessOptions, RealFs};

    use super::super::object::{Launch, Launcher, Loaded, Range};
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
        // SAFETY: both are the C ABI of `k__launch`; `Range` mirrors
        // `LanesRange` field for field.
        let launch: Launch = unsafe { std::mem::transmute::<LaunchFn, Launch>(launch) };
        Ok(Box::new(Loaded {
            _code: jit,
            launcher: Launcher {
                launch,
                args: HostArg::copies_of(&p.args),
                range: Range::of(p),
                groups: p.groups(),
            },
        }))
    }
}
