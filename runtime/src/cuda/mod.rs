//! The CUDA back end: NVRTC compiles the generated CUDA C to a CUBIN for the device's own
//! architecture, the driver loads it once per device and kernel, and launches go on the
//! device's stream.
//!
//! Takes the kernels' [`KernelInfo`] and [`Launch`](crate::launch::Launch)es; built on
//! cudarc's driver and NVRTC layers with dynamic loading, so building needs no CUDA. Gives
//! [`CudaBackend`] (one GPU: its context, stream, [`Arch`] and [`Limits`]) and NVRTC on its own
//! ([`compile_cuda`], [`compile_cached`], ...). Guarantees: a machine without the driver, a GPU
//! or NVRTC gets an `Err` naming what is missing, never a panic; a kernel's faults surface as
//! errors at the next synchronising call ([`CudaBackend::synchronize`], a copy to the host).
//!
//! - `nvrtc`: the NVRTC library and one compile;
//! - `module`: options per device, the disk cache, loaded kernels;
//! - `launch`: the device's limits and the launch itself;
//! - `fault`: the fault records, one per stream;
//! - `nccl`: NCCL, loaded at run time, for collectives over several GPUs.

mod fault;
mod launch;
mod module;
pub(crate) mod nccl;
mod nvrtc;

pub use fault::FaultRecord;
pub use launch::ArgList;
pub use module::{
    compile_cached, compile_cached_in, compile_cuda, nvrtc_available, nvrtc_version, CacheOutcome,
    CompiledModule,
};

use crate::error::Error;
use crate::kernel::KernelInfo;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream};
use std::collections::HashMap;
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

/// A failed driver call as the error it is, saying what cuphase was doing.
fn driver_err(context: &str, e: cudarc::driver::DriverError) -> Error {
    Error::Driver {
        context: context.to_string(),
        message: e.to_string(),
    }
}

/// A CUDA GPU as a device.
pub struct CudaBackend {
    ctx: Arc<CudaContext>,
    arch: Arch,
    name: String,
    /// Loaded kernels, keyed by the address of their `KernelInfo` static, with their ids;
    /// boxed, and never removed or replaced, so that a launch borrows its function in place.
    #[allow(clippy::type_complexity)]
    functions: Mutex<HashMap<usize, Box<(CudaFunction, u32)>>>,
    /// This back end's number, unique in the process (unlike its address, never reused):
    /// it keys the per-thread cache of the last functions launched (see `module`).
    serial: u64,
    /// The kernels by id, for the fault record's kernel field.
    kernels: Mutex<Vec<&'static KernelInfo>>,
    /// The device's own stream (the default stream, where launches and copies go that name
    /// no `Stream`) with its fault record, where generated code reports the first fault of a
    /// launch (see `fault`).
    fault_record: Arc<FaultRecord>,
    limits: Limits,
    /// The watchdog's limit.
    watchdog: crate::watchdog::Limit,
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
            arch: Arch {
                major: major.max(0) as u32,
                minor: minor.max(0) as u32,
            },
            name,
            functions: Mutex::new(HashMap::new()),
            serial: module::next_serial(),
            kernels: Mutex::new(Vec::new()),
            fault_record: FaultRecord::new(stream),
            limits,
            watchdog: Default::default(),
        })
    }

    /// How many CUDA GPUs the driver sees.
    pub fn device_count(&self) -> Result<usize, Error> {
        CudaContext::device_count()
            .map(|c| usize::try_from(c).unwrap_or(0))
            .map_err(|e| driver_err("counting the GPUs", e))
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
        self.fault_record.stream()
    }

    /// The context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The device's launch limits.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The fault record of the device's own stream (launches on a [`crate::Stream`] use that
    /// stream's record).
    pub fn fault_record(&self) -> &Arc<FaultRecord> {
        &self.fault_record
    }

    /// Waits for all work on the device, on every stream; returns the first fault of the
    /// launches on the device's own stream since the last check (a [`crate::Stream`]'s faults
    /// are that stream's to report).
    pub fn synchronize(&self) -> Result<(), Error> {
        // A watchdog covers the device's own stream; the rest is then waited for as CUDA
        // does.
        if self.has_watchdog() {
            self.wait(self.stream(), "Device::synchronize")?;
        }
        self.ctx
            .synchronize()
            .map_err(|e| driver_err("synchronizing", e))?;
        self.take_fault(&self.fault_record)
    }

    /// Sets the longest a synchronising call may wait (`None`: as long as the work takes).
    pub fn set_watchdog(&self, limit: Option<std::time::Duration>) {
        self.watchdog.set(limit);
    }

    /// Whether a watchdog is set.
    pub(crate) fn has_watchdog(&self) -> bool {
        self.watchdog.get().is_some()
    }

    /// Waits for the work queued on `stream` so far: as CUDA does, or, under a watchdog, by
    /// polling until its limit, then [`Error::Timeout`] (the work goes on: CUDA cannot stop a
    /// running kernel).
    pub(crate) fn wait(&self, stream: &CudaStream, what: &str) -> Result<(), Error> {
        let Some(limit) = self.watchdog.get() else {
            return stream
                .synchronize()
                .map_err(|e| driver_err("synchronizing", e));
        };
        let done = stream
            .record_event(None)
            .map_err(|e| driver_err("recording an event to wait for", e))?;
        let start = std::time::Instant::now();
        let mut pause = std::time::Duration::from_micros(10);
        loop {
            if done
                .try_is_complete()
                .map_err(|e| driver_err("synchronizing", e))?
            {
                return Ok(());
            }
            if start.elapsed() >= limit {
                return Err(Error::Timeout {
                    what: what.to_string(),
                    waited_ms: start.elapsed().as_millis(),
                    consequence: "the kernel goes on running (CUDA cannot stop one), so the device is not usable until it ends; end the process to free the GPU",
                });
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_millis(1));
        }
    }
}
