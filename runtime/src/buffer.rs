//! Buffers: arrays of scalars (or of `#[derive(DeviceStruct)]` structs) on a device.
//!
//! Takes a [`Device`] and its back end's storage (cudarc device memory, or the simulator's
//! atomic cells). Gives [`Buffer`], the [`Device::upload`] and [`Device::zeros`] that make one,
//! and the views generated launch code passes to a kernel. Guarantees: a buffer is used only on
//! its own device (else [`Error::WrongDevice`]); a copy to the host waits for the work queued
//! before it and reports a fault a kernel recorded rather than return what it left; lengths
//! must match ([`Error::LengthMismatch`]).

use crate::cuda::{CudaBackend, FaultRecord};
use crate::device::{Backend, Device};
use crate::error::Error;
use crate::scalar::Element;
use crate::sim::race::GlobalShadow;
use crate::sim::{Global, SimBackend};
use cudarc::driver::CudaSlice;

enum Storage<T: Element> {
    /// Device memory; at least one element is allocated so that empty buffers need no special
    /// pointer.
    Cuda(CudaSlice<T>),
    Sim(Box<[T::Cell]>),
}

/// A typed array on a [`Device`]: `&Buffer<T>` is passed for a kernel's `&[T]` parameter,
/// `&mut Buffer<T>` for `&mut [T]`.
pub struct Buffer<T: Element> {
    storage: Storage<T>,
    len: usize,
    device: Device,
    /// On the simulator: the race-detection shadow of the launches that write the buffer,
    /// made by the first and kept for the next (see [`GlobalShadow`]).
    shadow: std::sync::OnceLock<GlobalShadow>,
    /// On a GPU: the fault record of the stream of the last launch that wrote the buffer
    /// (`None`: the device's own stream), which `to_vec` reads.
    writer: Option<std::sync::Arc<FaultRecord>>,
}

impl<T: Element> std::fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Buffer<{}>[{}] on {}",
            T::NAME,
            self.len,
            self.device.name()
        )
    }
}

fn copy_err(context: &str, e: cudarc::driver::DriverError) -> Error {
    Error::Driver {
        context: context.to_string(),
        message: e.to_string(),
    }
}

impl Device {
    /// Copies host data into a new buffer.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<Buffer<T>, Error> {
        Buffer::upload(self, data)
    }

    /// A new buffer of `len` zeros.
    pub fn zeros<T: Element>(&self, len: usize) -> Result<Buffer<T>, Error> {
        Buffer::zeros(self, len)
    }
}

impl<T: Element> Buffer<T> {
    fn upload(device: &Device, data: &[T]) -> Result<Self, Error> {
        let storage =
            match &*device.inner {
                Backend::Cuda(cu) => {
                    let slice = if data.is_empty() {
                        cu.stream().alloc_zeros::<T>(1)
                    } else {
                        cu.stream().clone_htod(data)
                    };
                    Storage::Cuda(slice.map_err(|e| {
                        alloc_err::<T>(device, data.len(), "copying to the device", e)
                    })?)
                }
                Backend::Sim(_) => Storage::Sim(sim_cells(device, data.len(), |i| data[i])?),
            };
        Ok(Buffer {
            storage,
            len: data.len(),
            device: device.clone(),
            shadow: std::sync::OnceLock::new(),
            writer: None,
        })
    }

    fn zeros(device: &Device, len: usize) -> Result<Self, Error> {
        let storage = match &*device.inner {
            Backend::Cuda(cu) => {
                // cudarc multiplies the length by the element size unchecked.
                byte_size::<T>(device, len)?;
                Storage::Cuda(
                    cu.stream()
                        .alloc_zeros::<T>(len.max(1))
                        .map_err(|e| alloc_err::<T>(device, len, "allocating device memory", e))?,
                )
            }
            Backend::Sim(_) => Storage::Sim(sim_cells(device, len, |_| T::zero())?),
        };
        Ok(Buffer {
            storage,
            len,
            device: device.clone(),
            shadow: std::sync::OnceLock::new(),
            writer: None,
        })
    }

    /// Wraps a cudarc device slice of `device`'s context as a buffer (no copy). `Err` when the
    /// device is not a CUDA device or the slice belongs to another context.
    pub fn from_cuda_slice(device: &Device, slice: CudaSlice<T>) -> Result<Self, Error> {
        match &*device.inner {
            Backend::Cuda(cu) if std::sync::Arc::ptr_eq(slice.context(), cu.context()) => {
                let len = slice.len();
                Ok(Buffer {
                    storage: Storage::Cuda(slice),
                    len,
                    device: device.clone(),
                    shadow: std::sync::OnceLock::new(),
                    writer: None,
                })
            }
            _ => Err(Error::WrongDevice {
                what: "a cudarc CudaSlice".into(),
                found: "another CUDA context".into(),
                expected: device.name(),
            }),
        }
    }

    /// The cudarc device slice of a CUDA buffer (no copy); the buffer back as `Err` for a
    /// simulator buffer. An empty buffer's slice holds one unused element.
    pub fn into_cuda_slice(self) -> Result<CudaSlice<T>, Self> {
        match self.storage {
            Storage::Cuda(s) => Ok(s),
            storage => Err(Buffer {
                storage,
                len: self.len,
                device: self.device,
                shadow: self.shadow,
                writer: self.writer,
            }),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device the buffer lives on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Copies the buffer to the host, after the work queued before that writes it. A fault of
    /// a launch on the stream that last wrote the buffer (the device's own stream if none did)
    /// surfaces here, rather than the data it left.
    pub fn to_vec(&self) -> Result<Vec<T>, Error> {
        match &self.storage {
            Storage::Cuda(s) => {
                let Backend::Cuda(cu) = &*self.device.inner else {
                    return Err(self.wrong("the host copy"));
                };
                // Under a watchdog, wait for the writer's stream and the device's own stream
                // within its limit first (the copy itself then waits for nothing long).
                if cu.has_watchdog() {
                    if let Some(w) = &self.writer {
                        cu.wait(w.stream(), "Buffer::to_vec")?;
                    }
                    cu.wait(cu.stream(), "Buffer::to_vec")?;
                }
                let mut v = cu
                    .stream()
                    .clone_dtoh(s)
                    .map_err(|e| copy_err("copying to the host", e))?;
                // A kernel that wrote this buffer may have faulted: say so rather than return
                // what it left. The record is read on its own stream, after the work there.
                cu.take_fault(self.writer.as_ref().unwrap_or(cu.fault_record()))?;
                v.truncate(self.len);
                Ok(v)
            }
            Storage::Sim(cells) => Ok(cells.iter().map(T::load).collect()),
        }
    }

    /// A copy of the buffer on `to`, after the work queued before that writes it (faults
    /// surface as with [`Buffer::to_vec`]). Between devices the data goes through the host;
    /// direct GPU-to-GPU copies are not used yet.
    pub fn copy_to(&self, to: &Device) -> Result<Buffer<T>, Error> {
        to.upload(&self.to_vec()?)
    }

    /// Overwrites the buffer with host data of the same length.
    pub fn copy_from_host(&mut self, data: &[T]) -> Result<(), Error> {
        if data.len() != self.len {
            return Err(Error::LengthMismatch {
                expected: self.len,
                found: data.len(),
            });
        }
        match &mut self.storage {
            Storage::Cuda(s) => {
                let Backend::Cuda(cu) = &*self.device.inner else {
                    return Err(Error::NotCompiled("copy".into()));
                };
                if !data.is_empty() {
                    let mut view = s.slice_mut(0..data.len());
                    cu.stream()
                        .memcpy_htod(data, &mut view)
                        .map_err(|e| copy_err("copying to the device", e))?;
                }
                Ok(())
            }
            Storage::Sim(cells) => {
                for (c, v) in cells.iter().zip(data) {
                    T::store(c, *v);
                }
                Ok(())
            }
        }
    }

    fn wrong(&self, expected: &str) -> Error {
        wrong_device::<T>(&self.device, expected)
    }

    /// The device slice of a CUDA buffer, for work on the device's own stream that reads it.
    pub(crate) fn cuda_slice(&self) -> Option<&CudaSlice<T>> {
        match &self.storage {
            Storage::Cuda(s) => Some(s),
            Storage::Sim(_) => None,
        }
    }

    /// The device slice of a CUDA buffer, for work on the device's own stream that writes it.
    /// The buffer keeps the stream of the launch that last wrote it, if another: a fault of
    /// that launch still surfaces at its `to_vec` (the own stream's work is ordered after it
    /// by cudarc's events, and `to_vec` copies on the own stream).
    pub(crate) fn cuda_slice_mut(&mut self) -> Option<&mut CudaSlice<T>> {
        match &mut self.storage {
            Storage::Cuda(s) => Some(s),
            Storage::Sim(_) => None,
        }
    }

    /// The device slice, for generated launch code.
    #[doc(hidden)]
    pub fn __cuda_slice(&self, cu: &CudaBackend) -> Result<&CudaSlice<T>, Error> {
        match &self.storage {
            Storage::Cuda(s) if self.device.same_as_cuda(cu) => Ok(s),
            _ => Err(self.wrong(cu.name())),
        }
    }

    /// The device slice of a buffer the launch writes, for generated launch code; `record` is
    /// the fault record of the launch's stream, which `to_vec` then reads.
    #[doc(hidden)]
    pub fn __cuda_slice_mut(
        &mut self,
        cu: &CudaBackend,
        record: &std::sync::Arc<FaultRecord>,
    ) -> Result<&mut CudaSlice<T>, Error> {
        if !self.device.same_as_cuda(cu) {
            return Err(self.wrong(cu.name()));
        }
        let own = std::sync::Arc::ptr_eq(record, cu.fault_record());
        match &self.writer {
            None if own => {}
            Some(w) if std::sync::Arc::ptr_eq(w, record) => {}
            _ => self.writer = (!own).then(|| record.clone()),
        }
        match &mut self.storage {
            Storage::Cuda(s) => Ok(s),
            Storage::Sim(_) => Err(wrong_device::<T>(&self.device, cu.name())),
        }
    }

    /// The simulator's argument for this buffer (with the launch's race-detection shadow),
    /// for generated launch code.
    #[doc(hidden)]
    pub fn __sim_global(
        &self,
        sim: &SimBackend,
        name: &'static str,
    ) -> Result<SimArg<'_, T>, Error> {
        self.sim_arg(sim, name, true, false)
    }

    /// The simulator's argument for a `&mut [T]` parameter each thread accesses only at its
    /// `global_idx().x` (the compiler's proof): in a launch whose grid and blocks are
    /// one-dimensional and hold fewer than 2^32 threads, no two threads touch one element, so
    /// it needs no race shadow; other launches keep it.
    #[doc(hidden)]
    pub fn __sim_global_exclusive(
        &self,
        sim: &SimBackend,
        name: &'static str,
        launch: &crate::launch::Launch,
    ) -> Result<SimArg<'_, T>, Error> {
        let (g, b) = (launch.grid, launch.block);
        let one_dimensional = g.y == 1 && g.z == 1 && b.y == 1 && b.z == 1;
        let distinct = u64::from(g.x) * u64::from(b.x) <= 1 << 32;
        let exclusive = one_dimensional && distinct;
        self.sim_arg(sim, name, !exclusive, exclusive)
    }

    /// The simulator's argument for a read-only (`&[T]`) parameter: nothing writes it during
    /// the launch (Rust's borrow rules at the launch site), so it needs no race shadow.
    #[doc(hidden)]
    pub fn __sim_global_read_only(
        &self,
        sim: &SimBackend,
        name: &'static str,
    ) -> Result<SimArg<'_, T>, Error> {
        self.sim_arg(sim, name, false, true)
    }

    /// `written`: whether threads may race on it (it gets a shadow with race detection on);
    /// `plain`: whether no two CPU threads of the launch ever touch one element while one of
    /// them writes it (a read-only buffer, or an exclusive one in a launch that keeps it so),
    /// so the simulator may access it with plain loads and stores.
    fn sim_arg(
        &self,
        sim: &SimBackend,
        name: &'static str,
        written: bool,
        plain: bool,
    ) -> Result<SimArg<'_, T>, Error> {
        match &self.storage {
            Storage::Sim(cells) if self.device.same_as_sim(sim) => {
                let shadow = (written && sim.options().race_detection).then(|| {
                    let shadow = self
                        .shadow
                        .get_or_init(|| GlobalShadow::new(cells.len().saturating_mul(T::LEAVES)));
                    shadow.begin_launch();
                    shadow
                });
                Ok(SimArg {
                    cells,
                    name,
                    shadow,
                    plain,
                })
            }
            _ => Err(self.wrong("CPU simulator")),
        }
    }
}

/// `len` elements of `T` in bytes, or [`Error::OutOfMemory`] when that overflows.
fn byte_size<T: Element>(device: &Device, len: usize) -> Result<usize, Error> {
    len.checked_mul(std::mem::size_of::<T>())
        .ok_or_else(|| out_of_memory::<T>(device, len, None))
}

fn out_of_memory<T: Element>(device: &Device, len: usize, bytes: Option<usize>) -> Error {
    let bytes = match bytes {
        None => "more than 2^64 bytes".to_string(),
        Some(b) => {
            let units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
            let (mut v, mut u) = (b as f64, 0);
            while v >= 1024.0 && u + 1 < units.len() {
                v /= 1024.0;
                u += 1;
            }
            if u == 0 {
                format!("{b} bytes")
            } else {
                format!("{v:.1} {}", units[u])
            }
        }
    };
    Error::OutOfMemory {
        device: device.name(),
        len,
        elem: T::NAME,
        bytes,
    }
}

/// A failed CUDA allocation or upload: out of memory as [`Error::OutOfMemory`], anything else
/// as the driver's error.
fn alloc_err<T: Element>(
    device: &Device,
    len: usize,
    context: &str,
    e: cudarc::driver::DriverError,
) -> Error {
    if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        out_of_memory::<T>(device, len, len.checked_mul(std::mem::size_of::<T>()))
    } else {
        copy_err(context, e)
    }
}

/// The simulator's storage of `len` elements, element `i` being `at(i)`; a size the host
/// cannot hold is [`Error::OutOfMemory`], not an aborted process. Beyond the memory the host
/// has available (`MemAvailable` on Linux) the allocation is refused before it is tried, since
/// an overcommitting kernel would grant it and then kill the process while it is filled.
fn sim_cells<T: Element>(
    device: &Device,
    len: usize,
    at: impl Fn(usize) -> T,
) -> Result<Box<[T::Cell]>, Error> {
    let bytes = len
        .checked_mul(std::mem::size_of::<T::Cell>())
        .ok_or_else(|| out_of_memory::<T>(device, len, None))?;
    const CHECK_ABOVE: usize = 1 << 30;
    if bytes > CHECK_ABOVE && available_host_memory().is_some_and(|a| bytes > a) {
        return Err(out_of_memory::<T>(device, len, Some(bytes)));
    }
    let mut cells = Vec::new();
    cells
        .try_reserve_exact(len)
        .map_err(|_| out_of_memory::<T>(device, len, Some(bytes)))?;
    cells.extend((0..len).map(|i| T::new_cell(at(i))));
    Ok(cells.into_boxed_slice())
}

/// The host memory available to new allocations, where the system says (Linux): the
/// machine's `MemAvailable`, or less where a cgroup (v1 or v2) limits this process (a container).
fn available_host_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    let machine = kib.checked_mul(1024)?;
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    let read =
        |path: String| -> Option<usize> { std::fs::read_to_string(path).ok()?.trim().parse().ok() };
    // The process's cgroup, where a container's limit is: v2 (the line `0::/path`, files
    // `memory.max`, which is "max" without a limit, and `memory.current`) or v1 (the line
    // `N:memory:/path`, files `memory.limit_in_bytes` and `memory.usage_in_bytes`).
    let v2 = cgroups
        .lines()
        .find_map(|l| l.strip_prefix("0::"))
        .and_then(|p| {
            let dir = format!("/sys/fs/cgroup{}", p.trim().trim_end_matches('/'));
            let max = read(format!("{dir}/memory.max"))?;
            Some(max.saturating_sub(read(format!("{dir}/memory.current")).unwrap_or(0)))
        });
    let v1 = cgroups
        .lines()
        .find_map(|l| l.split_once(":memory:").map(|(_, p)| p))
        .and_then(|p| {
            let dir = format!("/sys/fs/cgroup/memory{}", p.trim().trim_end_matches('/'));
            let max = read(format!("{dir}/memory.limit_in_bytes"))?;
            Some(max.saturating_sub(read(format!("{dir}/memory.usage_in_bytes")).unwrap_or(0)))
        });
    let cgroup = match (v2, v1) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    Some(cgroup.map_or(machine, |c| c.min(machine)))
}

/// The error for a `Buffer<T>` of `device` used where `expected` is.
fn wrong_device<T: Element>(device: &Device, expected: &str) -> Error {
    let found = device.name();
    // Two devices of one kind (two `Device::cpu()`s, two contexts on one GPU) have the
    // same name: say which one.
    let expected = if found == expected {
        format!("another {expected} device (each `Device` has its own memory: make the buffer with the device that uses it)")
    } else {
        expected.to_string()
    };
    Error::WrongDevice {
        what: format!("a Buffer<{}>", T::NAME),
        found,
        expected,
    }
}

/// A buffer passed to a kernel on the simulator, with its race-detection shadow for one launch.
#[doc(hidden)]
pub struct SimArg<'a, T: Element> {
    cells: &'a [T::Cell],
    name: &'static str,
    shadow: Option<&'a GlobalShadow>,
    plain: bool,
}

impl<T: Element> SimArg<'_, T> {
    /// The kernel's view.
    pub fn view(&self) -> Global<'_, T> {
        let g = Global::new(self.cells, self.name, self.shadow);
        if self.plain {
            // SAFETY: `plain` is set only for a read-only buffer (nothing writes it during the
            // launch: the launch borrows it shared, and every write needs it borrowed
            // `&mut`) and for an exclusive one in a launch where each element belongs to one
            // GPU thread of the grid (`__sim_global_exclusive`).
            unsafe { g.assume_plain() }
        } else {
            g
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::Launch;

    #[test]
    fn exclusive_buffers_have_no_shadow_only_in_one_dimensional_launches_of_distinct_indices() {
        let dev = Device::cpu().unwrap();
        let buf = dev.zeros::<f32>(8).unwrap();
        let Backend::Sim(sim) = &*dev.inner else {
            panic!("the simulator")
        };
        let shadowed = |launch: Launch| {
            buf.__sim_global_exclusive(sim, "b", &launch)
                .unwrap()
                .shadow
                .is_some()
        };
        assert!(!shadowed(Launch::new(2, 4)), "1-D: no shadow");
        assert!(
            shadowed(Launch::new((2, 2), 4)),
            "a 2-D grid repeats x indices"
        );
        assert!(
            shadowed(Launch::new(2, (4, 2))),
            "a 2-D block repeats x indices"
        );
        assert!(
            shadowed(Launch::new(1 << 23, 1024)),
            "2^33 threads: `global_idx().x` wraps"
        );
        assert!(
            !shadowed(Launch::new(1 << 22, 1024)),
            "2^32 threads: distinct"
        );
        // The plain `&mut` argument always has one.
        assert!(buf.__sim_global(sim, "b").unwrap().shadow.is_some());
    }
}
