//! Collectives over buffers on several devices: all-reduce, all-gather, reduce-scatter and
//! broadcast, the four operations NCCL users know, over a [`Group`] of devices.
//!
//! Takes [`Buffer`]s, one per device of the group, in the group's order (rank `r` is
//! `devices[r]`), as any iterator of references: `&mut bufs`, `bufs.iter_mut()`, `[&mut a,
//! &mut b]`. Gives [`Group`], [`ReduceOp`] and [`Reduce`] (the element types a reduction
//! combines). Guarantees: every operation checks its buffers before it moves anything (one
//! per rank, each on its rank's device, lengths that fit), returning [`Error::Collective`]
//! that says which buffer is wrong, with every buffer as it was (a copy that fails later, a
//! device fault say, can leave some ranks updated and others not); results are the same on
//! every back end: a reduction combines the ranks' values in rank order, `((v0 op v1) op v2)
//! ...`, so float sums are deterministic (NCCL's order is unspecified, so a GPU
//! implementation through NCCL may differ in the last bits). Integer sums and products wrap,
//! as NCCL's do.
//!
//! This version moves data through the host on every back end (a copy to the host of each
//! rank's buffer, the reduction on the CPU, a copy back): correct everywhere, and the whole
//! story on the simulator, where devices are host memory anyway. On GPUs it is not fast: NCCL
//! (through cudarc's bindings, loaded at run time like the driver) is the next step, which
//! needs a machine with several GPUs to be tested; see the README.

use crate::buffer::Buffer;
use crate::device::Device;
use crate::error::Error;
use crate::scalar::Scalar;

/// How a reduction combines two values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    /// `a + b` (wrapping for integers).
    Sum,
    /// `a * b` (wrapping for integers).
    Prod,
    /// The smaller (for floats, `f32::min`'s rule: a NaN loses to a number).
    Min,
    /// The larger (likewise).
    Max,
}

/// An element type a reduction can combine: the integer types, `f32`, `f64`, `half::f16` and
/// `half::bf16` (the types NCCL reduces).
pub trait Reduce: Scalar {
    /// `a op b`.
    fn combine(op: ReduceOp, a: Self, b: Self) -> Self;
}

macro_rules! reduce_int {
    ($($t:ty),*) => {$(
        impl Reduce for $t {
            fn combine(op: ReduceOp, a: Self, b: Self) -> Self {
                match op {
                    ReduceOp::Sum => a.wrapping_add(b),
                    ReduceOp::Prod => a.wrapping_mul(b),
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Max => a.max(b),
                }
            }
        }
    )*};
}
reduce_int!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

macro_rules! reduce_float {
    ($($t:ty),*) => {$(
        impl Reduce for $t {
            fn combine(op: ReduceOp, a: Self, b: Self) -> Self {
                match op {
                    ReduceOp::Sum => a + b,
                    ReduceOp::Prod => a * b,
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Max => a.max(b),
                }
            }
        }
    )*};
}
reduce_float!(f32, f64, half::f16, half::bf16);

/// Devices that take part in collectives together, rank `r` being `devices[r]`: all GPUs
/// (`Device::all()`), or simulated devices (`Device::cpus(n)`), or any list of distinct
/// devices.
#[derive(Clone, Debug)]
pub struct Group {
    devices: Vec<Device>,
}

impl Group {
    /// A group of these devices, in rank order. `Err` for an empty list or a device listed
    /// twice.
    pub fn new(devices: &[Device]) -> Result<Group, Error> {
        if devices.is_empty() {
            return Err(collective_err("a group needs at least one device"));
        }
        for (i, d) in devices.iter().enumerate() {
            if devices[..i]
                .iter()
                .any(|e| e.same_device(d) || e.same_gpu(d))
            {
                return Err(collective_err(format!(
                    "device {i} ({}) is listed twice in the group (two `Device`s of one GPU are one rank)",
                    d.name()
                )));
            }
        }
        Ok(Group {
            devices: devices.to_vec(),
        })
    }

    /// The devices, in rank order.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// How many ranks.
    pub fn size(&self) -> usize {
        self.devices.len()
    }

    /// Checks that `bufs` has one buffer per rank, each on its rank's device, each `len` long
    /// (`None`: a length that overflowed, left to the copy to refuse).
    fn check<T: Scalar>(
        &self,
        what: &str,
        bufs: &[&Buffer<T>],
        len: Option<usize>,
    ) -> Result<(), Error> {
        if bufs.len() != self.size() {
            return Err(collective_err(format!(
                "{what}: {} buffers for a group of {} devices (one per rank)",
                bufs.len(),
                self.size()
            )));
        }
        for (r, (b, d)) in bufs.iter().zip(&self.devices).enumerate() {
            if !b.device().same_device(d) {
                let (found, want) = (b.device().name(), d.name());
                let want = if found == want {
                    format!("another {want} (the rank's own `Device`)")
                } else {
                    want
                };
                return Err(collective_err(format!(
                    "{what}: the buffer of rank {r} lives on {found}, not on the rank's device {want}"
                )));
            }
            if let Some(want) = len {
                if b.len() != want {
                    return Err(collective_err(format!(
                        "{what}: the buffer of rank {r} has {} elements; {want} expected",
                        b.len()
                    )));
                }
            }
        }
        Ok(())
    }

    /// Every rank's buffer becomes the element-wise reduction of all of them. The buffers
    /// have one length.
    pub fn all_reduce<'a, T: Reduce>(
        &self,
        bufs: impl IntoIterator<Item = &'a mut Buffer<T>>,
        op: ReduceOp,
    ) -> Result<(), Error> {
        let mut bufs: Vec<&mut Buffer<T>> = bufs.into_iter().collect();
        let n = bufs.first().map_or(0, |b| b.len());
        self.check("all_reduce", &shared(&bufs), Some(n))?;
        let sum = reduce_all(&shared(&bufs), op)?;
        for b in bufs.iter_mut() {
            b.copy_from_host(&sum)?;
        }
        Ok(())
    }

    /// `recv[r]` becomes the ranks' `send` buffers one after the other (rank 0's first): each
    /// `send` has one length `n`, each `recv` holds `n * size()`.
    pub fn all_gather<'a, 'b, T: Scalar>(
        &self,
        send: impl IntoIterator<Item = &'a Buffer<T>>,
        recv: impl IntoIterator<Item = &'b mut Buffer<T>>,
    ) -> Result<(), Error> {
        let send: Vec<&Buffer<T>> = send.into_iter().collect();
        let mut recv: Vec<&mut Buffer<T>> = recv.into_iter().collect();
        let n = send.first().map_or(0, |b| b.len());
        self.check("all_gather (send)", &send, Some(n))?;
        let total = n.checked_mul(self.size());
        self.check("all_gather (recv)", &shared(&recv), total)?;
        let mut all = Vec::with_capacity(total.unwrap_or(0));
        for b in &send {
            all.extend(b.to_vec()?);
        }
        for b in recv.iter_mut() {
            b.copy_from_host(&all)?;
        }
        Ok(())
    }

    /// The element-wise reduction of the ranks' `send` buffers (each `n * size()` long), split
    /// in `size()` parts of `n`: rank `r`'s `recv` gets part `r`.
    pub fn reduce_scatter<'a, 'b, T: Reduce>(
        &self,
        send: impl IntoIterator<Item = &'a Buffer<T>>,
        recv: impl IntoIterator<Item = &'b mut Buffer<T>>,
        op: ReduceOp,
    ) -> Result<(), Error> {
        let send: Vec<&Buffer<T>> = send.into_iter().collect();
        let mut recv: Vec<&mut Buffer<T>> = recv.into_iter().collect();
        let total = send.first().map_or(0, |b| b.len());
        self.check("reduce_scatter (send)", &send, Some(total))?;
        if !total.is_multiple_of(self.size()) {
            return Err(collective_err(format!(
                "reduce_scatter: {total} elements do not split in {} equal parts",
                self.size()
            )));
        }
        let n = total / self.size();
        self.check("reduce_scatter (recv)", &shared(&recv), Some(n))?;
        let sum = reduce_all(&send, op)?;
        for (r, b) in recv.iter_mut().enumerate() {
            b.copy_from_host(&sum[r * n..(r + 1) * n])?;
        }
        Ok(())
    }

    /// Every rank's buffer becomes rank `root`'s. The buffers have one length.
    pub fn broadcast<'a, T: Scalar>(
        &self,
        bufs: impl IntoIterator<Item = &'a mut Buffer<T>>,
        root: usize,
    ) -> Result<(), Error> {
        let mut bufs: Vec<&mut Buffer<T>> = bufs.into_iter().collect();
        let n = bufs.first().map_or(0, |b| b.len());
        self.check("broadcast", &shared(&bufs), Some(n))?;
        let Some(src) = bufs.get(root) else {
            return Err(collective_err(format!(
                "broadcast: root {root} is not a rank of a group of {}",
                self.size()
            )));
        };
        let data = src.to_vec()?;
        for (r, b) in bufs.iter_mut().enumerate() {
            if r != root {
                b.copy_from_host(&data)?;
            }
        }
        Ok(())
    }
}

/// The buffers, read-only.
fn shared<'a, T: Scalar>(bufs: &'a [&mut Buffer<T>]) -> Vec<&'a Buffer<T>> {
    bufs.iter().map(|b| &**b).collect()
}

/// The element-wise reduction of the buffers, in rank order.
fn reduce_all<T: Reduce>(bufs: &[&Buffer<T>], op: ReduceOp) -> Result<Vec<T>, Error> {
    let mut acc: Option<Vec<T>> = None;
    for b in bufs {
        let v = b.to_vec()?;
        acc = Some(match acc {
            None => v,
            Some(mut a) => {
                for (x, y) in a.iter_mut().zip(v) {
                    *x = T::combine(op, *x, y);
                }
                a
            }
        });
    }
    Ok(acc.unwrap_or_default())
}

fn collective_err(reason: impl Into<String>) -> Error {
    Error::Collective {
        reason: reason.into(),
    }
}
