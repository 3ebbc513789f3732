//! The CUDA back end: NVRTC compiles the generated CUDA C to a CUBIN for the device's own
//! architecture, the driver loads it once per device and kernel, and launches go on the
//! device's stream. Built on cudarc's layers with dynamic loading, so building needs no CUDA
//! and a machine without it gets an `Err`, never a panic.

use crate::error::{CompileError, Error};
use crate::kernel::KernelInfo;
use crate::launch::Launch;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchArgs, LaunchConfig};
use cudarc::nvrtc::sys as nvrtc_sys;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Mutex};

/// A GPU architecture, `sm_XY`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arch {
    /// Compute capability major version.
    pub major: u32,
    /// Compute capability minor version.
    pub minor: u32,
}

impl Arch {
    /// `sm_XY` as a number `XY`.
    pub fn number(self) -> u32 {
        self.major * 10 + self.minor
    }
}

/// What NVRTC produced.
#[derive(Clone, Debug)]
pub struct CompiledModule {
    /// A CUBIN, or NUL-free PTX text when `is_ptx`.
    pub image: Vec<u8>,
    /// Whether `image` is PTX (NVRTC older than the device).
    pub is_ptx: bool,
    /// NVRTC's log: empty when there were no warnings.
    pub log: String,
    /// The options used.
    pub options: Vec<String>,
}

fn nvrtc_err(what: &str, r: nvrtc_sys::nvrtcResult) -> Error {
    Error::NvrtcUnavailable {
        reason: format!("{what} failed: {r:?}"),
    }
}

/// Whether the NVRTC library can be loaded.
pub fn nvrtc_available() -> bool {
    // SAFETY: only tries to dlopen the library by its known names.
    catch_unwind(|| unsafe { nvrtc_sys::is_culib_present() }).unwrap_or(false)
}

fn nvrtc_missing() -> Error {
    Error::NvrtcUnavailable {
        reason:
            "the NVRTC library (libnvrtc.so) was not found on the library path; install the CUDA \
                 toolkit, or `pip install nvidia-cuda-nvrtc` and add its `lib` directory to \
                 LD_LIBRARY_PATH"
                .into(),
    }
}

/// NVRTC's version, `(major, minor)`.
pub fn nvrtc_version() -> Result<(i32, i32), Error> {
    if !nvrtc_available() {
        return Err(nvrtc_missing());
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: NVRTC writes two ints through valid pointers.
    let r = catch_unwind(AssertUnwindSafe(|| unsafe {
        nvrtc_sys::nvrtcVersion(&mut major, &mut minor)
    }))
    .map_err(|_| nvrtc_missing())?;
    if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(nvrtc_err("nvrtcVersion", r));
    }
    Ok((major, minor))
}

/// The real architectures NVRTC can produce a CUBIN for.
fn supported_archs() -> Result<Vec<u32>, Error> {
    let mut n: c_int = 0;
    // SAFETY: NVRTC writes the count, then that many ints into a buffer of that size.
    unsafe {
        let r = nvrtc_sys::nvrtcGetNumSupportedArchs(&mut n);
        if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
            return Err(nvrtc_err("nvrtcGetNumSupportedArchs", r));
        }
        let mut v = vec![0 as c_int; n.max(0) as usize];
        let r = nvrtc_sys::nvrtcGetSupportedArchs(v.as_mut_ptr());
        if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
            return Err(nvrtc_err("nvrtcGetSupportedArchs", r));
        }
        Ok(v.into_iter().map(|a| a.max(0) as u32).collect())
    }
}

/// Whether a compile came from the disk cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Loaded from the disk cache.
    Hit,
    /// Compiled, then stored in the cache.
    Miss,
    /// The cache is off (`CUPHASE_CACHE=off`) or has no directory.
    Disabled,
}

/// The options NVRTC gets for `arch`, and whether it makes PTX: a CUBIN for `sm_XY` when NVRTC
/// supports it, else PTX for the newest virtual architecture it knows (the driver then
/// compiles it).
fn target_options(arch: Arch, fast_math: bool) -> Result<(Vec<String>, bool), Error> {
    let supported = supported_archs()?;
    let (target, is_ptx) = if supported.contains(&arch.number()) {
        (format!("sm_{}", arch.number()), false)
    } else {
        let newest = supported
            .iter()
            .copied()
            .filter(|a| *a <= arch.number())
            .max()
            .unwrap_or(arch.number());
        (format!("compute_{newest}"), true)
    };
    let mut options = vec![
        format!("--gpu-architecture={target}"),
        "--std=c++17".to_string(),
        "-lineinfo".to_string(),
    ];
    if fast_math {
        options.push("--use_fast_math".into());
    } else {
        // Rust never fuses `a * b + c` into one rounding; the simulator does not either.
        options.push("--fmad=false".into());
    }
    Ok((options, is_ptx))
}

fn lacks_function() -> Error {
    Error::NvrtcUnavailable {
        reason: "the NVRTC library lacks a required function; use NVRTC 12 or newer".into(),
    }
}

/// Compiles CUDA C with NVRTC for `arch`, without the cache. `name` is the NVRTC program
/// name: the Rust file, so that messages point there.
pub fn compile_cuda(
    source: &str,
    name: &str,
    kernel: &str,
    arch: Arch,
    fast_math: bool,
) -> Result<CompiledModule, Error> {
    if !nvrtc_available() {
        return Err(nvrtc_missing());
    }
    catch_unwind(AssertUnwindSafe(|| {
        let (options, is_ptx) = target_options(arch, fast_math)?;
        compile_inner(source, name, kernel, options, is_ptx)
    }))
    .unwrap_or_else(|_| Err(lacks_function()))
}

/// [`compile_cuda`] through the disk cache of `CUPHASE_CACHE_DIR` / `CUPHASE_CACHE` (see
/// [`crate::cache`]).
pub fn compile_cached(
    source: &str,
    name: &str,
    kernel: &str,
    arch: Arch,
    fast_math: bool,
) -> Result<(CompiledModule, CacheOutcome), Error> {
    compile_cached_in(
        crate::cache::dir().as_deref(),
        source,
        name,
        kernel,
        arch,
        fast_math,
    )
}

/// [`compile_cuda`] through the disk cache in `dir` (`None`: no cache).
pub fn compile_cached_in(
    dir: Option<&std::path::Path>,
    source: &str,
    name: &str,
    kernel: &str,
    arch: Arch,
    fast_math: bool,
) -> Result<(CompiledModule, CacheOutcome), Error> {
    if !nvrtc_available() {
        return Err(nvrtc_missing());
    }
    catch_unwind(AssertUnwindSafe(|| {
        let (options, is_ptx) = target_options(arch, fast_math)?;
        let Some(dir) = dir else {
            return Ok((compile_inner(source, name, kernel, options, is_ptx)?, CacheOutcome::Disabled));
        };
        let key = crate::cache::key(source, &options, nvrtc_version()?, arch.number());
        if let Some(e) = crate::cache::load(dir, &key) {
            if e.is_ptx == is_ptx {
                return Ok((CompiledModule { image: e.image, is_ptx, log: String::new(), options }, CacheOutcome::Hit));
            }
        }
        let module = compile_inner(source, name, kernel, options, is_ptx)?;
        let entry = crate::cache::Entry { image: module.image.clone(), is_ptx };
        if let Err(e) = crate::cache::store(dir, &key, &entry) {
            tracing::warn!(dir = %dir.display(), error = %e, "cuphase: cannot write the kernel cache; going on without it");
        }
        Ok((module, CacheOutcome::Miss))
    }))
    .unwrap_or_else(|_| Err(lacks_function()))
}

/// The first error of an NVRTC log as a Rust location (`file:line`, through the `#line`
/// directives of the generated code), and the generated CUDA lines that came from that line.
fn locate(log: &str, source: &str) -> (Option<String>, Option<String>) {
    for line in log.lines() {
        let Some(err_at) = line.find("): error") else {
            continue;
        };
        let head = &line[..err_at];
        let Some(open) = head.rfind('(') else {
            continue;
        };
        let (file, num) = (&head[..open], &head[open + 1..]);
        let Ok(rust_line) = num.parse::<usize>() else {
            continue;
        };
        return (
            Some(format!("{file}:{rust_line}")),
            generated_lines(source, rust_line),
        );
    }
    (None, None)
}

/// The lines of generated CUDA C that `#line` directives attribute to `rust_line`.
fn generated_lines(source: &str, rust_line: usize) -> Option<String> {
    let mut mapped: Option<usize> = None;
    let mut out = Vec::new();
    for l in source.lines() {
        if let Some(rest) = l.strip_prefix("#line ") {
            mapped = rest.split_whitespace().next().and_then(|n| n.parse().ok());
            continue;
        }
        if mapped == Some(rust_line) {
            out.push(l.trim().to_string());
        }
        mapped = mapped.map(|m| m + 1);
    }
    (!out.is_empty()).then(|| out.join("\n"))
}

fn compile_inner(
    source: &str,
    name: &str,
    kernel: &str,
    options: Vec<String>,
    is_ptx: bool,
) -> Result<CompiledModule, Error> {
    tracing::info!(kernel, program = name, options = %options.join(" "), "cuphase: NVRTC compile");
    let bad_text = |what: &str| {
        Error::Compile(Box::new(CompileError {
            kernel: kernel.into(),
            options: String::new(),
            log: format!("{what} contains a NUL byte"),
            location: None,
            generated: None,
        }))
    };
    let c_source = CString::new(source).map_err(|_| bad_text("the source"))?;
    let c_name = CString::new(name).map_err(|_| bad_text("the program name"))?;
    let c_options: Vec<CString> = options
        .iter()
        .filter_map(|o| CString::new(o.as_str()).ok())
        .collect();
    let option_ptrs: Vec<*const c_char> = c_options.iter().map(|o| o.as_ptr()).collect();
    let mut prog: nvrtc_sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: all pointers are to live NUL-terminated strings; `prog` is destroyed below on
    // every path.
    unsafe {
        let r = nvrtc_sys::nvrtcCreateProgram(
            &mut prog,
            c_source.as_ptr(),
            c_name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        );
        if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
            return Err(nvrtc_err("nvrtcCreateProgram", r));
        }
        let result = (|| {
            let r = nvrtc_sys::nvrtcCompileProgram(
                prog,
                option_ptrs.len() as c_int,
                option_ptrs.as_ptr(),
            );
            let log = program_log(prog);
            if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
                let (location, generated) = locate(&log, source);
                return Err(Error::Compile(Box::new(CompileError {
                    kernel: kernel.into(),
                    options: options.join(" "),
                    log,
                    location,
                    generated,
                })));
            }
            let mut size = 0usize;
            let image = if is_ptx {
                let r = nvrtc_sys::nvrtcGetPTXSize(prog, &mut size);
                if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
                    return Err(nvrtc_err("nvrtcGetPTXSize", r));
                }
                let mut buf = vec![0u8; size];
                let r = nvrtc_sys::nvrtcGetPTX(prog, buf.as_mut_ptr() as *mut c_char);
                if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
                    return Err(nvrtc_err("nvrtcGetPTX", r));
                }
                while buf.last() == Some(&0) {
                    buf.pop();
                }
                buf
            } else {
                let r = nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size);
                if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
                    return Err(nvrtc_err("nvrtcGetCUBINSize", r));
                }
                let mut buf = vec![0u8; size];
                let r = nvrtc_sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut c_char);
                if r != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
                    return Err(nvrtc_err("nvrtcGetCUBIN", r));
                }
                buf
            };
            Ok(CompiledModule {
                image,
                is_ptx,
                log,
                options: options.clone(),
            })
        })();
        nvrtc_sys::nvrtcDestroyProgram(&mut prog);
        result
    }
}

/// NVRTC's log for a program, without the trailing NUL.
///
/// # Safety
/// `prog` must be a live program.
unsafe fn program_log(prog: nvrtc_sys::nvrtcProgram) -> String {
    let mut size = 0usize;
    if nvrtc_sys::nvrtcGetProgramLogSize(prog, &mut size) != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS
        || size == 0
    {
        return String::new();
    }
    let mut buf = vec![0u8; size];
    if nvrtc_sys::nvrtcGetProgramLog(prog, buf.as_mut_ptr() as *mut c_char)
        != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS
    {
        return String::new();
    }
    while buf.last() == Some(&0) {
        buf.pop();
    }
    String::from_utf8_lossy(&buf).trim().to_string()
}

fn driver_err(context: &str, e: cudarc::driver::DriverError) -> Error {
    Error::Driver {
        context: context.to_string(),
        message: e.to_string(),
    }
}

/// A CUDA GPU as a device.
pub struct CudaBackend {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    arch: Arch,
    name: String,
    /// Loaded kernels, keyed by the address of their `KernelInfo` static, with their ids.
    functions: Mutex<HashMap<usize, (CudaFunction, u32)>>,
    /// The kernels by id, for the fault record's kernel field.
    kernels: Mutex<Vec<&'static KernelInfo>>,
    /// Where generated code reports the first fault of a launch (16 words).
    fault_record: std::sync::OnceLock<cudarc::driver::CudaSlice<u32>>,
    limits: Limits,
}

/// The launch limits of one device, read from the driver.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Most threads in a block.
    pub max_threads_per_block: u32,
    /// Largest block per axis.
    pub max_block: [u32; 3],
    /// Largest grid per axis.
    pub max_grid: [u32; 3],
    /// Most shared memory a block can have when the kernel opts in.
    pub max_shared_optin: u32,
}

impl std::fmt::Debug for CudaBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CudaBackend")
            .field("name", &self.name)
            .field("arch", &self.arch)
            .finish()
    }
}

fn no_driver() -> Error {
    Error::CudaUnavailable {
        reason: "the CUDA driver library (libcuda.so) was not found; install the NVIDIA driver, or run on \
                 the CPU simulator with `Device::cpu()` or CUPHASE_DEVICE=cpu"
            .into(),
    }
}

impl CudaBackend {
    /// Opens GPU `ordinal`. Every failure, including a missing or incomplete driver library,
    /// is an `Err`.
    pub fn new(ordinal: usize) -> Result<Self, Error> {
        // SAFETY: only tries to dlopen the driver by its known names.
        let present =
            catch_unwind(|| unsafe { cudarc::driver::sys::is_culib_present() }).unwrap_or(false);
        if !present {
            return Err(no_driver());
        }
        catch_unwind(|| Self::open(ordinal)).unwrap_or_else(|_| {
            Err(Error::CudaUnavailable {
                reason:
                    "the CUDA driver library lacks a required function; update the NVIDIA driver"
                        .into(),
            })
        })
    }

    /// A back end on an existing cudarc context.
    pub fn from_context(ctx: Arc<CudaContext>) -> Result<Self, Error> {
        catch_unwind(AssertUnwindSafe(|| Self::on_context(ctx))).unwrap_or_else(|_| {
            Err(Error::CudaUnavailable {
                reason: "the CUDA driver library lacks a required function".into(),
            })
        })
    }

    fn open(ordinal: usize) -> Result<Self, Error> {
        let count = CudaContext::device_count().map_err(|e| Error::CudaUnavailable {
            reason: format!("the CUDA driver found no usable GPU ({e})"),
        })?;
        let count = usize::try_from(count).unwrap_or(0);
        if ordinal >= count {
            return Err(Error::NoSuchDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal).map_err(|e| driver_err("creating a context", e))?;
        Self::on_context(ctx)
    }

    fn on_context(ctx: Arc<CudaContext>) -> Result<Self, Error> {
        let (major, minor) = ctx
            .compute_capability()
            .map_err(|e| driver_err("reading the compute capability", e))?;
        let name = ctx
            .name()
            .map_err(|e| driver_err("reading the device name", e))?;
        let stream = ctx.default_stream();
        use cudarc::driver::sys::CUdevice_attribute as A;
        let attr = |a: A| -> Result<u32, Error> {
            ctx.attribute(a)
                .map(|v| v.max(0) as u32)
                .map_err(|e| driver_err("reading the device limits", e))
        };
        let limits = Limits {
            max_threads_per_block: attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block: [
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_grid: [
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            max_shared_optin: attr(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
        };
        Ok(CudaBackend {
            ctx,
            stream,
            arch: Arch {
                major: major.max(0) as u32,
                minor: minor.max(0) as u32,
            },
            name,
            functions: Mutex::new(HashMap::new()),
            kernels: Mutex::new(Vec::new()),
            fault_record: std::sync::OnceLock::new(),
            limits,
        })
    }

    /// The device's name, e.g. "NVIDIA H200".
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The device's architecture.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The stream launches and copies go on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The loaded function of a kernel: compiled and loaded on first use, then kept.
    pub fn function(&self, info: &'static KernelInfo) -> Result<(CudaFunction, u32), Error> {
        let key = info as *const KernelInfo as usize;
        let mut functions = self.functions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = functions.get(&key) {
            return Ok(f.clone());
        }
        crate::kernel::dump(info);
        let (module, cache) = compile_cached(
            info.cuda_source,
            info.rust_file,
            info.name,
            self.arch,
            info.fast_math,
        )?;
        tracing::debug!(
            kernel = info.name,
            ?cache,
            "cuphase: kernel compiled or loaded from the cache"
        );
        let ptx = if module.is_ptx {
            cudarc::nvrtc::Ptx::from_src(String::from_utf8_lossy(&module.image).into_owned())
        } else {
            cudarc::nvrtc::Ptx::from_binary(module.image)
        };
        let loaded = self
            .ctx
            .load_module(ptx)
            .map_err(|e| driver_err(&format!("loading kernel `{}`", info.name), e))?;
        let f = loaded
            .load_function(info.name)
            .map_err(|e| driver_err(&format!("finding kernel `{}`", info.name), e))?;
        tracing::debug!(kernel = info.name, device = %self.name, "cuphase: module loaded");
        let id = {
            let mut kernels = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
            kernels.push(info);
            (kernels.len() - 1) as u32
        };
        functions.insert(key, (f.clone(), id));
        Ok((f, id))
    }

    /// A launch builder for `f` on this device's stream.
    pub fn launch_builder<'a>(&'a self, f: &'a CudaFunction) -> LaunchArgs<'a> {
        self.stream.launch_builder(f)
    }

    /// Launches with the arguments pushed into `args`, after checking the launch.
    pub fn launch(
        &self,
        info: &'static KernelInfo,
        launch: &Launch,
        func: &CudaFunction,
        mut args: LaunchArgs<'_>,
    ) -> Result<(), Error> {
        // The generated `launch` has checked the device-independent limits (`validate_for`).
        self.check_limits(info, launch)?;
        if launch.shared_bytes > crate::launch::DEFAULT_SHARED_BYTES {
            // Above 48 KiB of dynamic shared memory a kernel must opt in.
            func.set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                launch.shared_bytes as i32,
            )
            .map_err(|e| driver_err(&format!("allowing kernel `{}` more dynamic shared memory", info.name), e))?;
        }
        tracing::trace!(kernel = info.name, grid = %launch.grid, block = %launch.block, "cuphase: CUDA launch");
        let cfg = LaunchConfig {
            grid_dim: (launch.grid.x, launch.grid.y, launch.grid.z),
            block_dim: (launch.block.x, launch.block.y, launch.block.z),
            shared_mem_bytes: launch.shared_bytes,
        };
        // SAFETY: `#[kernel]` pushed one argument per parameter of the generated CUDA function,
        // in order and of the matching types (device pointers, `unsigned long long` lengths,
        // scalars), all generated from the same signature.
        unsafe { args.launch(cfg) }
            .map_err(|e| driver_err(&format!("launching kernel `{}`", info.name), e))?;
        Ok(())
    }

    /// The fault record generated code reports to (allocated on first use).
    pub fn fault_record(&self) -> Result<&cudarc::driver::CudaSlice<u32>, Error> {
        if let Some(r) = self.fault_record.get() {
            return Ok(r);
        }
        let r = self
            .stream
            .alloc_zeros::<u32>(16)
            .map_err(|e| driver_err("allocating the fault record", e))?;
        Ok(self.fault_record.get_or_init(|| r))
    }

    /// Reads the fault record (after the work queued so far) and clears it: the first fault
    /// of the launches since the last check, as the error it is.
    pub fn take_fault(&self) -> Result<(), Error> {
        let Some(record) = self.fault_record.get() else {
            return Ok(());
        };
        let words = self
            .stream
            .clone_dtoh(record)
            .map_err(|e| driver_err("reading the fault record", e))?;
        if words.first().copied().unwrap_or(0) == 0 {
            return Ok(());
        }
        let kernel = words.get(2).copied().unwrap_or(0) as usize;
        let info = self
            .kernels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(kernel)
            .copied();
        // Clear it for the launches that follow.
        {
            use cudarc::driver::DevicePtr;
            let (ptr, _sync) = record.device_ptr(&self.stream);
            // SAFETY: `ptr` is the record's 64-byte allocation, alive while `record` is.
            unsafe { cudarc::driver::result::memset_d8_async(ptr, 0, 64, self.stream.cu_stream()) }
                .map_err(|e| driver_err("clearing the fault record", e))?;
        }
        match info {
            Some(info) => Err(crate::kernel::fault_error(info, &words)),
            None => Err(Error::Driver {
                context: "reading the fault record".into(),
                message: "unknown kernel id".into(),
            }),
        }
    }

    /// The device's launch limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Checks a launch against this device's own limits, naming the limit it breaks.
    fn check_limits(&self, info: &KernelInfo, launch: &Launch) -> Result<(), Error> {
        let l = &self.limits;
        let bad = |reason: String| {
            Err(Error::InvalidLaunch {
                kernel: info.name.to_string(),
                reason,
            })
        };
        let (b, g) = (launch.block, launch.grid);
        if b.volume() > u64::from(l.max_threads_per_block) {
            return bad(format!(
                "the block {b} has {} threads; {} allows {} per block",
                b.volume(),
                self.name,
                l.max_threads_per_block
            ));
        }
        for (axis, (v, m)) in [
            (b.x, l.max_block[0]),
            (b.y, l.max_block[1]),
            (b.z, l.max_block[2]),
        ]
        .into_iter()
        .enumerate()
        {
            if v > m {
                return bad(format!(
                    "the block {b} exceeds {}'s limit of {m} on axis {}",
                    self.name,
                    ["x", "y", "z"][axis]
                ));
            }
        }
        for (axis, (v, m)) in [
            (g.x, l.max_grid[0]),
            (g.y, l.max_grid[1]),
            (g.z, l.max_grid[2]),
        ]
        .into_iter()
        .enumerate()
        {
            if v > m {
                return bad(format!(
                    "the grid {g} exceeds {}'s limit of {m} on axis {}",
                    self.name,
                    ["x", "y", "z"][axis]
                ));
            }
        }
        let shared = u64::from(info.static_shared_bytes) + u64::from(launch.shared_bytes);
        if shared > u64::from(l.max_shared_optin) {
            return bad(format!(
                "{} bytes of shared memory per block ({} static + {} dynamic); {} allows {}",
                shared,
                info.static_shared_bytes,
                launch.shared_bytes,
                self.name,
                l.max_shared_optin
            ));
        }
        Ok(())
    }

    /// Waits for all work on the stream.
    pub fn synchronize(&self) -> Result<(), Error> {
        self.stream
            .synchronize()
            .map_err(|e| driver_err("synchronizing", e))?;
        self.take_fault()
    }
}
