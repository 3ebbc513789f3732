//! Compiled modules: the NVRTC options for a device, the disk cache around NVRTC, and the
//! per-device table of loaded kernels.
//!
//! Takes a kernel's [`KernelInfo`] (or CUDA C and its names), the device's [`Arch`] and the
//! cache directory of [`crate::cache`]. Gives [`compile_cuda`], [`compile_cached`],
//! [`compile_cached_in`], [`CacheOutcome`] and [`CudaBackend::function`]. Guarantees: a cache
//! entry is used only for the exact source, options and architecture it was made from (by
//! whichever NVRTC made it: a hit never loads NVRTC), and a cache that cannot be written is
//! logged and skipped; a kernel is compiled
//! and loaded at most once per device, and gets one id per device (the fault record's kernel
//! field).

use super::nvrtc::{compile_inner, lacks_function, nvrtc_missing, supported_archs};
use super::{driver_err, Arch, CudaBackend};
use crate::error::Error;
use crate::kernel::KernelInfo;
use cudarc::driver::CudaFunction;
use std::panic::{catch_unwind, AssertUnwindSafe};

pub use super::nvrtc::{nvrtc_available, nvrtc_version, CompiledModule};

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

/// The options that do not depend on NVRTC: the language, line info, and how floats round.
fn common_options(fast_math: bool) -> Vec<String> {
    let mut options = vec!["--std=c++17".to_string(), "-lineinfo".to_string()];
    if fast_math {
        options.push("--use_fast_math".into());
    } else {
        // Rust never fuses `a * b + c` into one rounding; the simulator does not either.
        options.push("--fmad=false".into());
    }
    options
}

/// NVRTC's target option for `arch`, and whether it makes PTX: a CUBIN for `sm_XY` when NVRTC
/// supports it, else PTX for the newest virtual architecture it knows (the driver then
/// compiles it).
///
/// CUDA C that uses architecture-specific instructions (the compiler marks it with
/// [`cuphase_contract::wgmma::ARCH_SPECIFIC`]: `wgmma`) gets the `a` target of its
/// architecture (`sm_90a`), which runs on that architecture only; on another device it is an
/// error.
fn target_option(arch: Arch, source: &str, kernel: &str) -> Result<(String, bool), Error> {
    let supported = supported_archs()?;
    if source.contains(cuphase_contract::wgmma::ARCH_SPECIFIC) {
        let want = cuphase_contract::wgmma::ARCH;
        if arch.number() != want {
            return Err(Error::InvalidLaunch {
                kernel: kernel.to_string(),
                reason: format!(
                    "it multiplies by warpgroups (`wgmma_*`), which only sm_{want} GPUs (Hopper) run; this device is sm_{}",
                    arch.number()
                ),
            });
        }
        let (target, is_ptx) = if supported.contains(&want) {
            (format!("sm_{want}a"), false)
        } else {
            (format!("compute_{want}a"), true)
        };
        return Ok((format!("--gpu-architecture={target}"), is_ptx));
    }
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
    Ok((format!("--gpu-architecture={target}"), is_ptx))
}

/// Every option NVRTC gets: the target first, then the common ones.
fn with_target(target: String, common: &[String]) -> Vec<String> {
    std::iter::once(target)
        .chain(common.iter().cloned())
        .collect()
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
        let (target, is_ptx) = target_option(arch, source, kernel)?;
        let options = with_target(target, &common_options(fast_math));
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

/// [`compile_cuda`] through the disk cache in `dir` (`None`: no cache). A hit loads nothing
/// of NVRTC (it works without NVRTC, and costs a file read); a miss compiles and stores.
pub fn compile_cached_in(
    dir: Option<&std::path::Path>,
    source: &str,
    name: &str,
    kernel: &str,
    arch: Arch,
    fast_math: bool,
) -> Result<(CompiledModule, CacheOutcome), Error> {
    let Some(dir) = dir else {
        return Ok((
            compile_cuda(source, name, kernel, arch, fast_math)?,
            CacheOutcome::Disabled,
        ));
    };
    let common = common_options(fast_math);
    if let Some(e) = crate::cache::load(dir, &crate::cache::key(source, &common, arch.number())) {
        tracing::debug!(kernel, nvrtc = ?e.nvrtc, "cuphase: kernel from the disk cache");
        let options = with_target(e.target, &common);
        return Ok((
            CompiledModule {
                image: e.image,
                is_ptx: e.is_ptx,
                log: String::new(),
                options,
            },
            CacheOutcome::Hit,
        ));
    }
    Ok((
        compile_into_cache(dir, source, name, kernel, arch, fast_math)?,
        CacheOutcome::Miss,
    ))
}

/// [`compile_cuda`], then the result stored as the cache entry of `source` for `arch` (a
/// miss, or an entry the driver could not load, replaced).
fn compile_into_cache(
    dir: &std::path::Path,
    source: &str,
    name: &str,
    kernel: &str,
    arch: Arch,
    fast_math: bool,
) -> Result<CompiledModule, Error> {
    let module = compile_cuda(source, name, kernel, arch, fast_math)?;
    let key = crate::cache::key(source, &common_options(fast_math), arch.number());
    let entry = crate::cache::Entry {
        image: module.image.clone(),
        is_ptx: module.is_ptx,
        // `with_target` puts the target first.
        target: module.options.first().cloned().unwrap_or_default(),
        nvrtc: nvrtc_version()?,
    };
    if let Err(e) = crate::cache::store(dir, &key, &entry) {
        cache_unwritable(dir, &e);
    }
    Ok(module)
}

/// A cache that cannot be written (read-only, full, not a directory) is skipped: kernels are
/// compiled as if there were none. Said once per process on standard error, and as a `tracing`
/// warning every time.
fn cache_unwritable(dir: &std::path::Path, e: &std::io::Error) {
    static NOTICE: std::sync::Once = std::sync::Once::new();
    tracing::warn!(dir = %dir.display(), error = %e, "cuphase: cannot write the kernel cache; going on without it");
    NOTICE.call_once(|| {
        eprintln!(
            "cuphase: cannot write the kernel cache in {} ({e}); kernels are compiled without it (set CUPHASE_CACHE_DIR to a writable directory, or CUPHASE_CACHE=off)",
            dir.display()
        );
    });
}

/// One loaded function as the per-thread cache holds it: the back end's serial, the kernel's
/// `KernelInfo` address, and the boxed entry of that back end's map.
type Recent = (u64, usize, *const (CudaFunction, u32));

/// How many functions each thread remembers (a loop launching a few kernels in turn hits).
const RECENT: usize = 4;

thread_local! {
    /// The functions this thread launched last, most recent first: a launch finds its function
    /// here without the map's lock or hash (a few nanoseconds of a launch's few microseconds).
    static RECENT_FUNCTIONS: std::cell::Cell<[Recent; RECENT]> =
        const { std::cell::Cell::new([(0, 0, std::ptr::null()); RECENT]) };
}

/// A number for a new back end, never given before in this process (0 is never given, so an
/// empty slot of the per-thread cache matches no back end).
pub(super) fn next_serial() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl CudaBackend {
    /// The loaded function of a kernel and its id on this device: compiled and loaded on
    /// first use, then kept for the device's life.
    ///
    /// No lock is held while NVRTC compiles or the driver loads the module, so other threads'
    /// launches of kernels already loaded never wait behind a compile. Two threads may then
    /// compile the same kernel at once; the first to finish is kept, and every launch uses it.
    pub fn function(&self, info: &'static KernelInfo) -> Result<(&CudaFunction, u32), Error> {
        let key = info as *const KernelInfo as usize;
        let in_place = |p: *const (CudaFunction, u32)| {
            // SAFETY: an entry is boxed, inserted once and never removed or replaced while the
            // back end lives, so the box's contents stay where they are for as long as `self`
            // is borrowed, however the map grows. A pointer from the per-thread cache is one of
            // `self`'s entries: it is kept with the serial of the back end whose map holds it,
            // and serials are never reused.
            let (f, id) = unsafe { &*p };
            (f, *id)
        };
        let recent = RECENT_FUNCTIONS.with(std::cell::Cell::get);
        if let Some(&(_, _, p)) = recent
            .iter()
            .find(|&&(serial, k, _)| serial == self.serial && k == key)
        {
            return Ok(in_place(p));
        }
        let remember = |p: *const (CudaFunction, u32)| {
            let mut next = [(self.serial, key, p); RECENT];
            next[1..].copy_from_slice(&recent[..RECENT - 1]);
            RECENT_FUNCTIONS.with(|r| r.set(next));
            in_place(p)
        };
        if let Some(e) = self
            .functions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(remember(&**e));
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
        let load = |module: CompiledModule| {
            let ptx = if module.is_ptx {
                cudarc::nvrtc::Ptx::from_src(String::from_utf8_lossy(&module.image).into_owned())
            } else {
                cudarc::nvrtc::Ptx::from_binary(module.image)
            };
            self.ctx
                .load_module(ptx)
                .map_err(|e| driver_err(&format!("loading kernel `{}`", info.name), e))
        };
        let loaded = match (load(module), cache) {
            (Ok(m), _) => m,
            // An entry this driver cannot load (made by a newer NVRTC, say, in a cache shared
            // between machines) is compiled again by this NVRTC and replaced.
            (Err(e), CacheOutcome::Hit) => {
                tracing::warn!(kernel = info.name, error = %e, "cuphase: a cached kernel did not load; compiling it again");
                let (source, file, name) = (info.cuda_source, info.rust_file, info.name);
                let fresh = match crate::cache::dir() {
                    Some(dir) => {
                        compile_into_cache(&dir, source, file, name, self.arch, info.fast_math)?
                    }
                    None => compile_cuda(source, file, name, self.arch, info.fast_math)?,
                };
                load(fresh)?
            }
            (Err(e), _) => return Err(e),
        };
        let f = loaded
            .load_function(info.name)
            .map_err(|e| driver_err(&format!("finding kernel `{}`", info.name), e))?;
        tracing::debug!(kernel = info.name, device = %self.name, "cuphase: module loaded");
        let mut functions = self.functions.lock().unwrap_or_else(|p| p.into_inner());
        let entry = functions.entry(key).or_insert_with(|| {
            let mut kernels = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
            kernels.push(info);
            Box::new((f, (kernels.len() - 1) as u32))
        });
        let p: *const (CudaFunction, u32) = &**entry;
        drop(functions);
        Ok(remember(p))
    }
}
