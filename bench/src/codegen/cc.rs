//! The plain-C column: bench/kernels/c/*.c compiled with `gcc -O3
//! -march=native` into a shared library at benchmark time, loaded with
//! `libloading`; threads take chunks of the C function's outer loop
//! ([`super::run_split`]).

use std::path::{Path, PathBuf};
use std::process::Command;

use super::problems::{CVal, HostArg, Problem};
use super::Instance;

pub const FLAGS: &[&str] = &["-O3", "-march=native", "-shared", "-fPIC"];

pub struct CLib {
    lib: libloading::Library,
    dir: PathBuf,
    pub version: String,
}

impl CLib {
    /// Compiles `NAME.c` in `src_dir` for every name into one library.
    pub fn build(src_dir: &Path, files: &[&str]) -> Result<CLib, String> {
        let version = Command::new("gcc")
            .arg("--version")
            .output()
            .map_err(|e| format!("gcc not found ({e})"))?;
        let version = String::from_utf8_lossy(&version.stdout)
            .lines()
            .next()
            .unwrap_or("gcc")
            .to_string();
        let dir = std::env::temp_dir().join(format!("lanes-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let so = dir.join("libbench_c.so");
        let mut cmd = Command::new("gcc");
        cmd.args(FLAGS).arg("-o").arg(&so);
        for f in files {
            cmd.arg(src_dir.join(format!("{f}.c")));
        }
        cmd.arg("-lm");
        let out = cmd.output().map_err(|e| format!("gcc: {e}"))?;
        if !out.status.success() {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!(
                "gcc failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        // SAFETY: our own library; its initializers are gcc's defaults.
        let lib = unsafe { libloading::Library::new(&so) }.map_err(|e| format!("{e}"))?;
        Ok(CLib { lib, dir, version })
    }

    pub fn instance(&self, p: &Problem) -> Result<Box<dyn Instance + '_>, String> {
        // SAFETY: only the address is taken; the glue casts it to the signature.
        let f = unsafe {
            self.lib
                .get::<unsafe extern "C" fn()>(p.kernel.as_bytes())
                .map_err(|e| format!("{}: {e}", p.kernel))?
        };
        let f = *f as usize;
        Ok(Box::new(CInstance {
            f,
            args: HostArg::copies_of(&p.args),
            glue: p.c_glue,
            extent: p.c_extent,
        }))
    }
}

impl Drop for CLib {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

struct CInstance {
    f: usize,
    args: Vec<HostArg>,
    glue: super::problems::CGlue,
    extent: usize,
}

impl Instance for CInstance {
    fn run(&mut self, threads: usize) -> Result<(), String> {
        let vals: Vec<CVal> = self
            .args
            .iter_mut()
            .map(|a| match a {
                HostArg::Buf(b) => CVal::P(b.as_mut_ptr() as usize),
                HostArg::I32(v) => CVal::I(*v),
                HostArg::U32(v) => CVal::U(*v),
                HostArg::F32(v) => CVal::F(*v),
            })
            .collect();
        let (f, glue, n) = (self.f, self.glue, self.extent);
        super::run_split(n, threads, |lo, hi| {
            glue(f, &vals, lo as i32, hi as i32);
            0
        });
        Ok(())
    }

    fn output(&mut self, arg: usize) -> Result<Vec<u8>, String> {
        HostArg::output(&self.args, arg)
    }
}
