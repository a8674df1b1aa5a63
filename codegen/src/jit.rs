//! In-process execution of a compiled module (MCJIT), for `lanes run`,
//! tests and benchmarks. It parses the same optimized bitcode that
//! [`Compiled::object`] lowers; every function carries the target's
//! `target-cpu`/`target-features` attributes, so MCJIT generates the same
//! code as the object file.
//!
//! The LLVM context and engine are owned through raw handles (disposed in
//! `Drop`), so [`Jit`] has no lifetime parameter.

use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};

use inkwell::llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use inkwell::llvm_sys::core::{
    LLVMContextCreate, LLVMContextDispose, LLVMCreateMemoryBufferWithMemoryRangeCopy,
    LLVMDisposeMemoryBuffer, LLVMDisposeMessage, LLVMDisposeModule,
};
use inkwell::llvm_sys::execution_engine::LLVMExecutionEngineRef;
use inkwell::llvm_sys::execution_engine::{
    LLVMCreateMCJITCompilerForModule, LLVMDisposeExecutionEngine, LLVMGetFunctionAddress,
    LLVMInitializeMCJITCompilerOptions, LLVMLinkInMCJIT, LLVMMCJITCompilerOptions,
};
use inkwell::llvm_sys::prelude::{LLVMContextRef, LLVMModuleRef};

use crate::{host_can_run, Compiled};

/// The launch range, laid out as C's `lanes_range`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LanesRange {
    pub work_dim: u32,
    pub global_offset: [usize; 3],
    pub global_size: [usize; 3],
    pub local_size: [usize; 3],
}

/// `k__launch`: `args[i]` points to the bytes of source argument `i` (for a
/// pointer argument: to the pointer; for a vector: to its components);
/// runs work-groups `[first, last)`; returns 0 or -1 for an invalid range.
pub type LaunchFn =
    unsafe extern "C" fn(*const *mut std::ffi::c_void, *const LanesRange, usize, usize) -> i32;

/// A module loaded for execution in this process.
pub struct Jit {
    ctx: LLVMContextRef,
    ee: LLVMExecutionEngineRef,
    launchers: HashMap<String, LaunchFn>,
    compiled: Compiled,
}

impl Jit {
    pub fn new(compiled: Compiled) -> Result<Jit, String> {
        if !host_can_run(&compiled.spec) {
            return Err(format!(
                "this machine cannot run code for target {}",
                compiled.spec.name
            ));
        }
        crate::init_llvm();
        // SAFETY: plain LLVM C API calls on handles created here; every
        // handle is disposed exactly once (on error here, else in Drop).
        unsafe {
            LLVMLinkInMCJIT();
            let ctx = LLVMContextCreate();
            let bc = compiled.bitcode();
            let name = c"lanes";
            let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
                bc.as_ptr() as *const c_char,
                bc.len(),
                name.as_ptr(),
            );
            let mut module: LLVMModuleRef = std::ptr::null_mut();
            let failed = LLVMParseBitcodeInContext2(ctx, buf, &mut module);
            LLVMDisposeMemoryBuffer(buf);
            if failed != 0 || module.is_null() {
                LLVMContextDispose(ctx);
                return Err("cannot read the compiled module".into());
            }
            let mut opts: LLVMMCJITCompilerOptions = std::mem::zeroed();
            let size = std::mem::size_of::<LLVMMCJITCompilerOptions>();
            LLVMInitializeMCJITCompilerOptions(&mut opts, size);
            opts.OptLevel = if compiled.opts.opt_level == 0 { 0 } else { 2 };
            let mut ee: LLVMExecutionEngineRef = std::ptr::null_mut();
            let mut err: *mut c_char = std::ptr::null_mut();
            // The engine owns the module from here on.
            if LLVMCreateMCJITCompilerForModule(&mut ee, module, &mut opts, size, &mut err) != 0 {
                let msg = if err.is_null() {
                    "unknown error".to_string()
                } else {
                    let m = CStr::from_ptr(err).to_string_lossy().into_owned();
                    LLVMDisposeMessage(err);
                    m
                };
                LLVMDisposeModule(module);
                LLVMContextDispose(ctx);
                return Err(format!("cannot create the JIT: {msg}"));
            }
            let mut jit = Jit {
                ctx,
                ee,
                launchers: HashMap::new(),
                compiled,
            };
            let names: Vec<String> = jit
                .compiled
                .kernels()
                .iter()
                .map(|k| k.name.clone())
                .collect();
            for k in names {
                let sym = CString::new(format!("{k}__launch")).map_err(|e| e.to_string())?;
                let addr = LLVMGetFunctionAddress(jit.ee, sym.as_ptr());
                if addr == 0 {
                    return Err(format!("the JIT has no `{k}__launch`"));
                }
                let f: LaunchFn = std::mem::transmute::<usize, LaunchFn>(addr as usize);
                jit.launchers.insert(k, f);
            }
            Ok(jit)
        }
    }

    /// The `k__launch` entry of kernel `kernel`.
    pub fn launcher(&self, kernel: &str) -> Option<LaunchFn> {
        self.launchers.get(kernel).copied()
    }

    /// Address of any exported function (`k`, `k_groups`, ...), 0 if absent.
    pub fn address(&self, symbol: &str) -> usize {
        let Ok(sym) = CString::new(symbol) else {
            return 0;
        };
        // SAFETY: `ee` is live until Drop.
        unsafe { LLVMGetFunctionAddress(self.ee, sym.as_ptr()) as usize }
    }

    pub fn compiled(&self) -> &Compiled {
        &self.compiled
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        // SAFETY: disposing the engine frees its module and code; the
        // context goes last.
        unsafe {
            LLVMDisposeExecutionEngine(self.ee);
            LLVMContextDispose(self.ctx);
        }
    }
}
