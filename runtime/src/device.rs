//! Devices: a CUDA GPU or the CPU simulator, and the streams of a device.
//!
//! Takes the two back ends ([`CudaBackend`], [`SimBackend`]). Gives [`Device`] (opening one by
//! ordinal, by `CUPHASE_DEVICE` or on a cudarc context), [`Stream`], [`LaunchTarget`] (where a
//! generated `launch` goes) and [`BackendRef`] (the back end, for generated code); buffers are
//! made on a device by `Device::upload` and `Device::zeros`, defined with [`Buffer`] in
//! `buffer`. Guarantees: opening a device never panics (a missing driver or GPU is an `Err`,
//! and `Device::default` falls back to the simulator, saying so once); synchronising returns
//! the first fault a kernel reported since the last check.
//!
//! [`Buffer`]: crate::buffer::Buffer

use crate::cuda::{CudaBackend, FaultRecord};
use crate::error::Error;
use crate::sim::SimBackend;
use std::sync::{Arc, Once};

// One `Backend` per device, behind an `Arc`: the size difference costs nothing.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Backend {
    Cuda(CudaBackend),
    Sim(SimBackend),
}

/// Where kernels run: a CUDA GPU, or the CPU simulator. Cheap to clone (shared).
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<Backend>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device({})", self.name())
    }
}

/// A device's back end, for generated code.
#[doc(hidden)]
pub enum BackendRef<'a> {
    Cuda(&'a CudaBackend),
    Sim(&'a SimBackend),
}

static FALLBACK_NOTICE: Once = Once::new();

impl Device {
    /// CUDA GPU `ordinal`. `Err` names what is missing (driver, GPU, ordinal).
    pub fn cuda(ordinal: usize) -> Result<Device, Error> {
        Ok(Device {
            inner: Arc::new(Backend::Cuda(CudaBackend::new(ordinal)?)),
        })
    }

    /// A device on an existing cudarc context (its default stream), for mixing cuphase with
    /// other cudarc code: buffers move between them with `Buffer::from_cuda_slice` and
    /// `Buffer::into_cuda_slice`.
    pub fn from_cudarc(ctx: Arc<cudarc::driver::CudaContext>) -> Result<Device, Error> {
        Ok(Device {
            inner: Arc::new(Backend::Cuda(CudaBackend::from_context(ctx)?)),
        })
    }

    /// The CPU simulator, with race detection on and the options of `CUPHASE_SIM_RACES` and
    /// `CUPHASE_SIM_ORDER`. Always available.
    pub fn cpu() -> Result<Device, Error> {
        Ok(Device {
            inner: Arc::new(Backend::Sim(SimBackend::new())),
        })
    }

    /// The CPU simulator with explicit options (race detection, thread order).
    pub fn cpu_with(options: crate::sim::SimOptions) -> Result<Device, Error> {
        Ok(Device {
            inner: Arc::new(Backend::Sim(SimBackend::with_options(options))),
        })
    }

    /// The device `CUPHASE_DEVICE` names (`cpu`, `cuda`, `cuda:N`); without it, the first CUDA
    /// GPU, else the CPU simulator, which is said once on stderr.
    #[allow(clippy::should_implement_trait)]
    pub fn default() -> Result<Device, Error> {
        match std::env::var("CUPHASE_DEVICE") {
            Ok(v) => Self::from_spec(&v),
            Err(_) => {
                match Device::cuda(0) {
                    Ok(d) => Ok(d),
                    Err(e) => {
                        FALLBACK_NOTICE.call_once(|| {
                        eprintln!("cuphase: no CUDA device ({e}); running kernels on the CPU simulator");
                    });
                        Device::cpu()
                    }
                }
            }
        }
    }

    /// Parses a device name: `cpu`, `cuda` or `cuda:N`.
    pub fn from_spec(spec: &str) -> Result<Device, Error> {
        let s = spec.trim();
        match s {
            "cpu" | "sim" => Device::cpu(),
            "cuda" | "gpu" => Device::cuda(0),
            _ => match s
                .strip_prefix("cuda:")
                .and_then(|n| n.parse::<usize>().ok())
            {
                Some(n) => Device::cuda(n),
                None => Err(Error::BadDeviceSpec {
                    value: spec.to_string(),
                }),
            },
        }
    }

    /// Sets a watchdog: the longest a launch may run on the simulator, or a synchronising call
    /// (`synchronize`, `Stream::synchronize`, `Buffer::to_vec`) may wait on a GPU; `None`
    /// removes it (the default). A kernel that never ends then gives [`Error::Timeout`] instead
    /// of a hang. On the simulator its threads stop at their next `loop`/`while` iteration and
    /// the device stays usable. On a GPU the kernel goes on running, since CUDA cannot stop
    /// one: the device is unusable until it ends, and ending the process frees the GPU. Without
    /// a watchdog, a GPU synchronises by blocking (cheapest); with one, by polling.
    /// `Device::synchronize`'s limit covers the device's own stream only: it then waits for the
    /// other streams (of every `Device` on this GPU in the process) without one, so under a
    /// watchdog wait for a [`Stream`] with its own `synchronize`.
    pub fn set_watchdog(&self, limit: Option<std::time::Duration>) {
        match &*self.inner {
            Backend::Cuda(c) => c.set_watchdog(limit),
            Backend::Sim(s) => s.set_watchdog(limit),
        }
    }

    /// The GPU's name, or "CPU simulator" ("CPU simulator 1" for one of several made by
    /// [`Device::cpus`]).
    pub fn name(&self) -> String {
        match &*self.inner {
            Backend::Cuda(c) => c.name().to_string(),
            Backend::Sim(s) => match s.ordinal() {
                Some(n) => format!("CPU simulator {n}"),
                None => "CPU simulator".to_string(),
            },
        }
    }

    /// Every CUDA GPU, in ordinal order; `Err` where there is none (the driver's or
    /// [`Error::NoSuchDevice`]). For collectives without GPUs, use [`Device::cpus`].
    pub fn all() -> Result<Vec<Device>, Error> {
        let first = CudaBackend::new(0)?;
        let count = first.device_count()?;
        let mut all = vec![Device {
            inner: Arc::new(Backend::Cuda(first)),
        }];
        for ordinal in 1..count {
            all.push(Device::cuda(ordinal)?);
        }
        Ok(all)
    }

    /// `n` simulated devices, numbered 0 to `n - 1`, each with its own memory (a buffer of
    /// one is an error on another, as on GPUs): for multi-device code and collectives
    /// without GPUs.
    pub fn cpus(n: usize) -> Result<Vec<Device>, Error> {
        Ok((0..n)
            .map(|k| Device {
                inner: Arc::new(Backend::Sim(SimBackend::numbered(k))),
            })
            .collect())
    }

    /// Whether `self` and `other` are one device (clones of one `Device`). Two `Device`s
    /// opened on one GPU are two devices here (each has its own buffers), but one GPU: see
    /// [`Device::same_gpu`].
    pub fn same_device(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Whether `self` and `other` run on one GPU (false on the simulator).
    pub fn same_gpu(&self, other: &Device) -> bool {
        match (&*self.inner, &*other.inner) {
            (Backend::Cuda(a), Backend::Cuda(b)) => a.context().ordinal() == b.context().ordinal(),
            _ => false,
        }
    }

    /// Whether this is a CUDA GPU.
    pub fn is_cuda(&self) -> bool {
        matches!(&*self.inner, Backend::Cuda(_))
    }

    /// Waits until every launch and copy on this device has finished, on every stream; returns
    /// the first fault of a launch on the device's own stream since the last check (a
    /// [`Stream`]'s launches report theirs to that stream).
    pub fn synchronize(&self) -> Result<(), Error> {
        match &*self.inner {
            Backend::Cuda(c) => c.synchronize(),
            Backend::Sim(_) => Ok(()),
        }
    }

    /// The cudarc stream kernels and copies of this device go on (CUDA only): for timing with
    /// CUDA events and for mixing cuphase with other cudarc code.
    pub fn cuda_stream(&self) -> Option<&std::sync::Arc<cudarc::driver::CudaStream>> {
        match &*self.inner {
            Backend::Cuda(c) => Some(c.stream()),
            Backend::Sim(_) => None,
        }
    }

    /// The GPU's architecture (CUDA only).
    pub fn cuda_arch(&self) -> Option<crate::cuda::Arch> {
        match &*self.inner {
            Backend::Cuda(c) => Some(c.arch()),
            Backend::Sim(_) => None,
        }
    }

    /// The back end, for generated code.
    #[doc(hidden)]
    pub fn __backend(&self) -> BackendRef<'_> {
        match &*self.inner {
            Backend::Cuda(c) => BackendRef::Cuda(c),
            Backend::Sim(s) => BackendRef::Sim(s),
        }
    }

    pub(crate) fn same_as_cuda(&self, cu: &CudaBackend) -> bool {
        matches!(&*self.inner, Backend::Cuda(c) if std::ptr::eq(c, cu))
    }

    pub(crate) fn same_as_sim(&self, s: &SimBackend) -> bool {
        matches!(&*self.inner, Backend::Sim(x) if std::ptr::eq(x, s))
    }
}

/// Where a kernel launch goes: a [`Device`] (its default stream) or a [`Stream`] of it.
pub trait LaunchTarget {
    /// The device.
    fn device(&self) -> &Device;
    /// The CUDA stream to launch on, given the device's back end.
    #[doc(hidden)]
    fn stream_for<'a>(&'a self, cuda: &'a CudaBackend) -> &'a cudarc::driver::CudaStream;
    /// The fault record of that stream, given the device's back end.
    #[doc(hidden)]
    fn fault_record_for<'a>(&'a self, cuda: &'a CudaBackend) -> &'a Arc<FaultRecord>;
}

impl LaunchTarget for Device {
    fn device(&self) -> &Device {
        self
    }
    fn stream_for<'a>(&'a self, cuda: &'a CudaBackend) -> &'a cudarc::driver::CudaStream {
        cuda.stream()
    }
    fn fault_record_for<'a>(&'a self, cuda: &'a CudaBackend) -> &'a Arc<FaultRecord> {
        cuda.fault_record()
    }
}

/// A stream of a device: launches on one stream run in order, launches on different streams
/// may overlap. On the simulator every launch runs to completion, so a stream only orders.
///
/// Each stream has its own fault record: a fault of a launch on this stream is returned by
/// this stream's [`synchronize`](Stream::synchronize) (or by `to_vec` of a buffer the launch
/// wrote), never by another stream's or the device's, so threads that each launch on their own
/// stream see their own faults only.
#[derive(Clone)]
pub struct Stream {
    device: Device,
    /// On a GPU: the stream, with its fault record.
    cuda: Option<Arc<FaultRecord>>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stream on {}", self.device.name())
    }
}

impl Stream {
    /// Waits for every launch on this stream; returns the first fault a kernel reported
    /// (`Error::KernelPanic`, `Error::OutOfBounds`, naming the kernel).
    pub fn synchronize(&self) -> Result<(), Error> {
        match (&*self.device.inner, &self.cuda) {
            (Backend::Cuda(cu), Some(record)) => {
                cu.wait(record.stream(), "Stream::synchronize")?;
                cu.take_fault(record)
            }
            _ => Ok(()),
        }
    }
}

impl LaunchTarget for Stream {
    fn device(&self) -> &Device {
        &self.device
    }
    fn stream_for<'a>(&'a self, cuda: &'a CudaBackend) -> &'a cudarc::driver::CudaStream {
        match &self.cuda {
            Some(record) => record.stream(),
            None => cuda.stream(),
        }
    }
    fn fault_record_for<'a>(&'a self, cuda: &'a CudaBackend) -> &'a Arc<FaultRecord> {
        match &self.cuda {
            Some(record) => record,
            None => cuda.fault_record(),
        }
    }
}

impl Device {
    /// A new stream of this device.
    pub fn stream(&self) -> Result<Stream, Error> {
        let cuda = match &*self.inner {
            Backend::Cuda(cu) => {
                let s = cu.context().new_stream().map_err(|e| Error::Driver {
                    context: "creating a stream".into(),
                    message: e.to_string(),
                })?;
                Some(FaultRecord::new(s))
            }
            Backend::Sim(_) => None,
        };
        Ok(Stream {
            device: self.clone(),
            cuda,
        })
    }
}
