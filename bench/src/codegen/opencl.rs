//! The OpenCL columns: the same `.cl` source built by an OpenCL runtime's
//! CPU device through the ICD loader (`opencl3`, libOpenCL opened at run
//! time): PoCL, and Intel's OpenCL CPU runtime (`opencl-rt` from PyPI,
//! installed by `scripts/intel-opencl.sh` and found through the `.icd` file
//! in `OCL_ICD_VENDORS`). Each runs the work-groups on its own threads; the
//! single-thread figure comes from a child process started with the
//! runtime's own setting ([`Runtime::single_thread_env`]), which it reads
//! once, when its device starts.

use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU};
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, ClMem, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::platform::get_platforms;
use opencl3::program::Program;
use opencl3::types::{cl_mem, CL_BLOCKING};

use super::problems::{Arg, Problem};
use super::Instance;

/// An OpenCL implementation with a CPU device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runtime {
    Pocl,
    /// Intel's OpenCL CPU runtime.
    Intel,
}

impl Runtime {
    pub fn label(self) -> &'static str {
        match self {
            Runtime::Pocl => "PoCL",
            Runtime::Intel => "Intel",
        }
    }

    /// The command-line name of the child mode (`--ocl-child pocl NAME`).
    pub fn key(self) -> &'static str {
        match self {
            Runtime::Pocl => "pocl",
            Runtime::Intel => "intel",
        }
    }

    pub fn from_key(key: &str) -> Option<Runtime> {
        [Runtime::Pocl, Runtime::Intel]
            .into_iter()
            .find(|r| r.key() == key)
    }

    /// The environment variable that makes the runtime use one thread.
    pub fn single_thread_env(self) -> (&'static str, &'static str) {
        match self {
            Runtime::Pocl => ("POCL_MAX_PTHREAD_COUNT", "1"),
            Runtime::Intel => ("CL_CONFIG_CPU_TBB_NUM_WORKERS", "1"),
        }
    }

    fn is(self, name: &str, vendor: &str) -> bool {
        let (name, vendor) = (name.to_lowercase(), vendor.to_lowercase());
        match self {
            Runtime::Pocl => {
                name.contains("portable computing language") || vendor.contains("pocl")
            }
            Runtime::Intel => name.contains("intel(r) opencl") || vendor.contains("intel"),
        }
    }
}

/// The runtime's CPU device: a context, an in-order queue and a
/// description ("PoCL 3.1 (LLVM 15.0.6), device pthread-..., N compute
/// units"). Err (never a panic) when there is none. Shared by the
/// `precond` benchmark.
pub fn connect(runtime: Runtime) -> Result<(Context, CommandQueue, String), String> {
    let label = runtime.label();
    let platforms = get_platforms().map_err(|e| format!("no OpenCL platform ({e})"))?;
    let platform = platforms
        .into_iter()
        .find(|p| {
            runtime.is(
                &p.name().unwrap_or_default(),
                &p.vendor().unwrap_or_default(),
            )
        })
        .ok_or_else(|| format!("no {label} platform among the OpenCL platforms"))?;
    let ids = platform
        .get_devices(CL_DEVICE_TYPE_CPU)
        .or_else(|_| platform.get_devices(CL_DEVICE_TYPE_ALL))
        .map_err(|e| format!("{label} has no device ({e})"))?;
    let id = *ids
        .first()
        .ok_or_else(|| format!("{label} has no CPU device"))?;
    let device = Device::new(id);
    let context = Context::from_device(&device).map_err(|e| format!("context: {e}"))?;
    let queue = CommandQueue::create_default_with_properties(&context, 0, 0)
        .map_err(|e| format!("command queue: {e}"))?;
    let version = platform.version().unwrap_or_default();
    if runtime == Runtime::Intel {
        // "OpenCL 2.1 LINUX", driver "2021.11.3.0.09_160000".
        let description = format!(
            "Intel OpenCL CPU runtime {} ({version}), device {}, {} compute units",
            device.driver_version().unwrap_or_default(),
            device.name().unwrap_or_default(),
            device.max_compute_units().unwrap_or(0)
        );
        return Ok((context, queue, description));
    }
    // "OpenCL 3.0 PoCL 3.1+debian  Linux, None+Asserts, ..., LLVM 15.0.6, ..."
    let mut parts = version.split(',').map(str::trim);
    let first = parts.next().unwrap_or("").split_whitespace();
    let pocl: Vec<&str> = first.skip_while(|w| *w != "PoCL").take(2).collect();
    let llvm = parts.find(|p| p.starts_with("LLVM")).unwrap_or("");
    let description = format!(
        "{} ({llvm}), device {}, {} compute units",
        if pocl.is_empty() {
            version.clone()
        } else {
            pocl.join(" ")
        },
        device.name().unwrap_or_default(),
        device.max_compute_units().unwrap_or(0)
    );
    Ok((context, queue, description))
}

pub struct OpenCl {
    pub runtime: Runtime,
    context: Context,
    queue: CommandQueue,
    /// "PoCL 3.1 ..., device pthread-..., N compute units".
    pub description: String,
}

impl OpenCl {
    /// Finds the runtime's CPU device; Err (never a panic) when there is none.
    pub fn new(runtime: Runtime) -> Result<OpenCl, String> {
        let (context, queue, description) = connect(runtime)?;
        Ok(OpenCl {
            runtime,
            context,
            queue,
            description,
        })
    }

    /// Builds the kernel (not timed) and copies the arguments into buffers.
    pub fn instance(&self, p: &Problem, src: &str) -> Result<Box<dyn Instance + '_>, String> {
        let program = Program::create_and_build_from_source(&self.context, src, "")
            .map_err(|log| format!("{} build failed: {log}", self.runtime.label()))?;
        let kernel = Kernel::create(&program, p.kernel).map_err(|e| format!("{e}"))?;
        let mut buffers = Vec::new();
        for (i, a) in p.args.iter().enumerate() {
            let i = i as u32;
            // SAFETY: arguments match the kernel's parameter types (bench/kernels).
            unsafe {
                match a {
                    Arg::Buf(b) => {
                        let mut host = b.clone();
                        let buf = Buffer::<u8>::create(
                            &self.context,
                            CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            host.byte_len(),
                            host.as_mut_ptr(),
                        )
                        .map_err(|e| format!("buffer: {e}"))?;
                        let mem: cl_mem = buf.get();
                        kernel
                            .set_arg(i, &mem)
                            .map_err(|e| format!("arg {i}: {e}"))?;
                        buffers.push(Some(buf));
                    }
                    Arg::I32(v) => {
                        kernel.set_arg(i, v).map_err(|e| format!("arg {i}: {e}"))?;
                        buffers.push(None);
                    }
                    Arg::U32(v) => {
                        kernel.set_arg(i, v).map_err(|e| format!("arg {i}: {e}"))?;
                        buffers.push(None);
                    }
                    Arg::F32(v) => {
                        kernel.set_arg(i, v).map_err(|e| format!("arg {i}: {e}"))?;
                        buffers.push(None);
                    }
                }
            }
        }
        Ok(Box::new(OpenClInstance {
            queue: &self.queue,
            _program: program,
            kernel,
            buffers,
            work_dim: p.work_dim,
            global: p.global,
            local: p.local,
        }))
    }
}

struct OpenClInstance<'a> {
    queue: &'a CommandQueue,
    _program: Program,
    kernel: Kernel,
    buffers: Vec<Option<Buffer<u8>>>,
    work_dim: u32,
    global: [usize; 3],
    local: [usize; 3],
}

impl Instance for OpenClInstance<'_> {
    /// The runtime chooses its threads itself (`threads` is ignored): one
    /// enqueue and `clFinish`.
    fn run(&mut self, _threads: usize) -> Result<(), String> {
        // SAFETY: the kernel's arguments are set; sizes are arrays of 3.
        unsafe {
            self.queue
                .enqueue_nd_range_kernel(
                    self.kernel.get(),
                    self.work_dim,
                    ptr::null(),
                    self.global.as_ptr(),
                    self.local.as_ptr(),
                    &[],
                )
                .map_err(|e| format!("enqueue: {e}"))?;
        }
        self.queue.finish().map_err(|e| format!("finish: {e}"))
    }

    fn output(&mut self, arg: usize) -> Result<Vec<u8>, String> {
        let buf = self.buffers[arg]
            .as_ref()
            .ok_or_else(|| format!("argument {arg} is not a buffer"))?;
        let n = buf.size().map_err(|e| format!("{e}"))?;
        let mut out = vec![0u8; n];
        // SAFETY: blocking read of the whole buffer into a slice of its size.
        unsafe {
            self.queue
                .enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut out, &[])
                .map_err(|e| format!("read: {e}"))?;
        }
        Ok(out)
    }
}
