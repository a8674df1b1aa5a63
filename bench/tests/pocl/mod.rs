//! PoCL's CPU device through the OpenCL ICD loader, shared by the tests
//! that use PoCL as an oracle.
#![allow(dead_code)]

use std::path::Path;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL, CL_DEVICE_TYPE_CPU};
use opencl3::platform::get_platforms;
use opencl3::program::Program;

/// Held by every test that uses PoCL: PoCL 3.1 initialises its devices
/// lazily and not thread-safely (two threads in `clGetDeviceInfo` during
/// the first `clGetPlatformIDs` crash in `strlen` inside libpocl), and the
/// test harness runs tests on parallel threads.
static POCL_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub fn pocl_lock() -> std::sync::MutexGuard<'static, ()> {
    POCL_LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

pub struct Pocl {
    pub context: Context,
    pub queue: CommandQueue,
    pub description: String,
    /// `CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT` (false for PoCL 3.1).
    pub non_uniform: bool,
}

impl Pocl {
    /// PoCL's CPU device; Err (never a panic) when there is none.
    pub fn new() -> Result<Pocl, String> {
        let platforms = get_platforms().map_err(|e| format!("no OpenCL platform: {e}"))?;
        let platform = platforms
            .into_iter()
            .find(|p| {
                let name = p.name().unwrap_or_default().to_lowercase();
                let vendor = p.vendor().unwrap_or_default().to_lowercase();
                name.contains("portable computing language") || vendor.contains("pocl")
            })
            .ok_or("no PoCL platform among the OpenCL platforms")?;
        let ids = platform
            .get_devices(CL_DEVICE_TYPE_CPU)
            .or_else(|_| platform.get_devices(CL_DEVICE_TYPE_ALL))
            .map_err(|e| format!("PoCL has no device: {e}"))?;
        let id = *ids.first().ok_or("PoCL has no device")?;
        let device = Device::new(id);
        let context = Context::from_device(&device).map_err(|e| format!("context: {e}"))?;
        let queue = CommandQueue::create_default_with_properties(&context, 0, 0)
            .map_err(|e| format!("command queue: {e}"))?;
        let non_uniform = device.non_uniform_work_group_support().unwrap_or(false);
        let description = format!(
            "{}, device {}, non-uniform work-groups: {}",
            platform.version().unwrap_or_default(),
            device.name().unwrap_or_default(),
            if non_uniform { "yes" } else { "no" }
        );
        Ok(Pocl {
            context,
            queue,
            description,
            non_uniform,
        })
    }

    /// Builds `src` (the text of the file in `dir`) without floating-point
    /// contraction, as OpenCL C 2.0 (for non-uniform work-groups) or, when
    /// PoCL's OpenCL C 2.0 headers reject the file, as OpenCL C 1.2 (the
    /// version lanes implements). PoCL 3.1 in 2.0 mode has no `vload4`/
    /// `vstore4` for `__global` pointers ("no matching function for call to
    /// '_cl_vload4'"). The second value says which fallback was taken.
    pub fn build(&self, src: &str, dir: &Path) -> Result<(Program, Option<String>), String> {
        self.build_with(src, dir, "")
    }

    /// [`Pocl::build`] with more build options (`-D NAME=V`).
    pub fn build_with(
        &self,
        src: &str,
        dir: &Path,
        extra: &str,
    ) -> Result<(Program, Option<String>), String> {
        let text = format!("#pragma OPENCL FP_CONTRACT OFF\n#line 1\n{src}");
        let build = |std: &str| {
            let opts = format!("-cl-std={std} -I {} {extra}", dir.display());
            Program::create_and_build_from_source(&self.context, &text, &opts)
        };
        match build("CL2.0") {
            Ok(p) => Ok((p, None)),
            Err(log20) => match build("CL1.2") {
                Ok(p) => {
                    let first = log20.lines().find(|l| l.contains("error")).unwrap_or("");
                    Ok((p, Some(format!("built as CL1.2 (CL2.0: {first})"))))
                }
                Err(log) => Err(format!("PoCL build failed: {log}")),
            },
        }
    }
}
