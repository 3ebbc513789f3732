//! Collectives over buffers on several devices: all-reduce, all-gather, reduce-scatter and
//! broadcast, the four operations NCCL users know, over a [`Group`] of devices.
//!
//! Takes [`Buffer`]s, one per device of the group, in the group's order (rank `r` is
//! `devices[r]`), as any iterator of references: `&mut bufs`, `bufs.iter_mut()`, `[&mut a,
//! &mut b]`. Gives [`Group`], [`ReduceOp`] and [`Reduce`] (the element types a reduction
//! combines). Guarantees: every operation checks its buffers before it moves anything (one
//! per rank, each on its rank's device, lengths that fit), returning [`Error::Collective`]
//! that says which buffer is wrong, with every buffer as it was (a copy that fails later, a
//! device fault say, can leave some ranks updated and others not).
//!
//! Two ways to move the data:
//!
//! - **NCCL**, for a group of GPUs made with [`Group::new`]: NCCL (loaded at run time, like
//!   the driver; a missing library is an `Err` that says what to install) runs each
//!   operation as one group call over every rank, on each device's own stream: ordered after
//!   the launches queued there before it and before those queued after, and asynchronous to
//!   the host like a launch. NCCL's order of a floating-point reduction is its own, so float
//!   sums may differ from the host's in the last bits. The element types NCCL does not reduce
//!   (`i16`, `u16`) go through the host.
//! - **Through the host**, for simulated devices, groups that mix kinds, and any group made
//!   with [`Group::staged`]: each rank's buffer copied to the host, the reduction on the CPU,
//!   the result copied back. A reduction combines the ranks' values in rank order, `((v0 op
//!   v1) op v2) ...`, so float sums are deterministic. On the simulator, where devices are
//!   host memory anyway, this is the whole story; on GPUs it is correct but slow.
//!
//! Integer sums and products wrap on both, as NCCL's do.

use crate::buffer::Buffer;
use crate::cuda::nccl::{Comms, DataType, Nccl, Op, RankOp, RedOp, UniqueId};
use crate::device::Device;
use crate::error::Error;
use crate::scalar::Scalar;
use cudarc::driver::{DevicePtr, DevicePtrMut};
use std::any::TypeId;
use std::sync::Arc;

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
/// `half::bf16` (NCCL reduces all but `i16` and `u16`, which go through the host).
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
    /// This process's devices, in rank order (all of the group's but in the rank-per-process
    /// form, where it is one).
    devices: Vec<Device>,
    /// The rank of `devices[0]`.
    first: usize,
    /// How many ranks, in every process.
    world: usize,
    /// NCCL's communicators, where every rank is a GPU and the group was made with `new` or
    /// `process_rank`.
    nccl: Option<Arc<Comms>>,
    /// Made with [`Group::process_rank`]: one rank per process, so no host path, even where
    /// the group has one rank (a program tried on one GPU gets the errors it would on two).
    processes: bool,
}

/// What the processes of one group share (NCCL's unique id): made by one process with
/// [`GroupId::new`], sent to the others as bytes ([`GroupId::to_bytes`], over whatever the
/// processes already share: a pipe, a file, an MPI broadcast), and given to every
/// [`Group::process_rank`].
#[derive(Clone, Copy)]
pub struct GroupId(UniqueId);

impl GroupId {
    /// A new id (NCCL must be installed).
    pub fn new() -> Result<GroupId, Error> {
        Ok(GroupId(Nccl::get()?.unique_id()?))
    }

    /// The id as bytes, to send to the other processes.
    pub fn to_bytes(&self) -> [u8; 128] {
        self.0.bytes
    }

    /// The id another process made, from its bytes.
    pub fn from_bytes(bytes: [u8; 128]) -> GroupId {
        GroupId(UniqueId { bytes })
    }
}

impl std::fmt::Debug for GroupId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let head: String = self.0.bytes[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        write!(f, "GroupId({head}..)")
    }
}

impl Group {
    /// A group of these devices, in rank order. A group of GPUs moves data with NCCL, which
    /// must be installed (else `Err`, saying what to install; [`Group::staged`] needs
    /// nothing); a group of simulated devices, or of both kinds, moves it through the host.
    /// `Err` for an empty list or a device listed twice.
    pub fn new(devices: &[Device]) -> Result<Group, Error> {
        let mut group = Group::staged(devices)?;
        if devices.iter().all(Device::is_cuda) {
            let streams = devices
                .iter()
                .filter_map(|d| d.cuda_stream().cloned())
                .collect();
            group.nccl = Some(Arc::new(Comms::new(streams)?));
        }
        Ok(group)
    }

    /// A group of these devices, in rank order, that moves every collective's data through
    /// the host, on every kind of device (no NCCL needed). `Err` for an empty list or a device
    /// listed twice.
    pub fn staged(devices: &[Device]) -> Result<Group, Error> {
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
            first: 0,
            world: devices.len(),
            nccl: None,
            processes: false,
        })
    }

    /// Rank `rank` of a group of `world` ranks, one per process, that every process joins with
    /// the same `id` (NCCL's rank-per-process form): this process's part is `device`, a GPU.
    /// Waits until every rank has joined. Its collectives take this process's buffer alone
    /// (an iterator of one: `[&mut buf]`), with the lengths of the whole group (an all-gather's
    /// `recv` holds `world` parts). Needs NCCL; element types NCCL does not reduce (`i16`,
    /// `u16`) are an `Err` here, having no host path between processes.
    pub fn process_rank(
        device: &Device,
        rank: usize,
        world: usize,
        id: &GroupId,
    ) -> Result<Group, Error> {
        if rank >= world {
            return Err(collective_err(format!(
                "rank {rank} is not a rank of a group of {world}"
            )));
        }
        let Some(stream) = device.cuda_stream() else {
            return Err(collective_err(format!(
                "a group of processes needs a GPU on every rank ({} is not one)",
                device.name()
            )));
        };
        let comms = Comms::rank(stream.clone(), rank, world, &id.0)?;
        Ok(Group {
            devices: vec![device.clone()],
            first: rank,
            world,
            nccl: Some(Arc::new(comms)),
            processes: true,
        })
    }

    /// The ranks of this process's devices (`0..size()` but in the rank-per-process form).
    pub fn local_ranks(&self) -> std::ops::Range<usize> {
        self.first..self.first + self.devices.len()
    }

    /// Whether the group's collectives go through NCCL (a group of GPUs made with
    /// [`Group::new`]) rather than through the host.
    pub fn uses_nccl(&self) -> bool {
        self.nccl.is_some()
    }

    /// This process's devices, in rank order (every device of the group but in the
    /// rank-per-process form).
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// How many ranks, in every process.
    pub fn size(&self) -> usize {
        self.world
    }

    /// Whether the group spans processes (made with [`Group::process_rank`]).
    fn spans_processes(&self) -> bool {
        self.processes
    }

    /// The path of a reduction over `T`: NCCL's type, or `None` for the host's; `Err` where
    /// neither can run it.
    fn reduce_path<T: 'static>(&self, what: &str) -> Result<Option<(&Comms, DataType)>, Error> {
        match (&self.nccl, reduce_type::<T>()) {
            (Some(c), Some(t)) => Ok(Some((c, t))),
            (Some(_), None) if self.spans_processes() => Err(collective_err(format!(
                "{what}: NCCL does not reduce {}, and a group of processes has no host path",
                std::any::type_name::<T>()
            ))),
            _ => Ok(None),
        }
    }

    /// Checks that `bufs` has one buffer per rank of this process, each on its rank's device,
    /// each `len` long.
    fn check<T: Scalar>(&self, what: &str, bufs: &[&Buffer<T>], len: usize) -> Result<(), Error> {
        if bufs.len() != self.devices.len() {
            let whose = if self.spans_processes() {
                format!(
                    "this process's {} rank(s) of a group of {} processes",
                    self.devices.len(),
                    self.world
                )
            } else {
                format!("a group of {} devices", self.world)
            };
            return Err(collective_err(format!(
                "{what}: {} buffers for {whose} (one per rank)",
                bufs.len()
            )));
        }
        for ((b, d), r) in bufs.iter().zip(&self.devices).zip(self.local_ranks()) {
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
            if b.len() != len {
                return Err(collective_err(format!(
                    "{what}: the buffer of rank {r} has {} elements; {len} expected",
                    b.len()
                )));
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
        self.check("all_reduce", &shared(&bufs), n)?;
        if let Some((comms, dtype)) = self.reduce_path::<T>("all_reduce")? {
            let op = Op::AllReduce {
                count: n,
                op: red_op(op),
            };
            return nccl_run(comms, op, dtype, &[], &mut bufs);
        }
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
        self.check("all_gather (send)", &send, n)?;
        let Some(total) = n.checked_mul(self.size()) else {
            return Err(collective_err(format!(
                "all_gather: {n} elements from each of {} ranks overflow a length",
                self.size()
            )));
        };
        self.check("all_gather (recv)", &shared(&recv), total)?;
        if let Some(comms) = &self.nccl {
            let op = Op::AllGather {
                count: n * std::mem::size_of::<T>(),
            };
            return nccl_run(comms, op, DataType::U8, &send, &mut recv);
        }
        let mut all = Vec::with_capacity(total);
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
        self.check("reduce_scatter (send)", &send, total)?;
        if !total.is_multiple_of(self.size()) {
            return Err(collective_err(format!(
                "reduce_scatter: {total} elements do not split in {} equal parts",
                self.size()
            )));
        }
        let n = total / self.size();
        self.check("reduce_scatter (recv)", &shared(&recv), n)?;
        if let Some((comms, dtype)) = self.reduce_path::<T>("reduce_scatter")? {
            let op = Op::ReduceScatter {
                count: n,
                op: red_op(op),
            };
            return nccl_run(comms, op, dtype, &send, &mut recv);
        }
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
        self.check("broadcast", &shared(&bufs), n)?;
        if root >= self.size() {
            return Err(collective_err(format!(
                "broadcast: root {root} is not a rank of a group of {}",
                self.size()
            )));
        }
        if let Some(comms) = &self.nccl {
            let op = Op::Broadcast {
                count: n * std::mem::size_of::<T>(),
                root,
            };
            return nccl_run(comms, op, DataType::U8, &[], &mut bufs);
        }
        let data = bufs[root].to_vec()?;
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

/// NCCL's type for reducing `T`, where NCCL reduces it.
fn reduce_type<T: 'static>() -> Option<DataType> {
    let t = TypeId::of::<T>();
    let word = if std::mem::size_of::<usize>() == 8 {
        DataType::U64
    } else {
        DataType::U32
    };
    [
        (TypeId::of::<i8>(), DataType::I8),
        (TypeId::of::<u8>(), DataType::U8),
        (TypeId::of::<i32>(), DataType::I32),
        (TypeId::of::<u32>(), DataType::U32),
        (TypeId::of::<i64>(), DataType::I64),
        (TypeId::of::<u64>(), DataType::U64),
        (TypeId::of::<usize>(), word),
        (TypeId::of::<half::f16>(), DataType::F16),
        (TypeId::of::<f32>(), DataType::F32),
        (TypeId::of::<f64>(), DataType::F64),
        (TypeId::of::<half::bf16>(), DataType::Bf16),
    ]
    .into_iter()
    .find_map(|(id, d)| (id == t).then_some(d))
}

/// NCCL's reduction for `op`.
fn red_op(op: ReduceOp) -> RedOp {
    match op {
        ReduceOp::Sum => RedOp::Sum,
        ReduceOp::Prod => RedOp::Prod,
        ReduceOp::Min => RedOp::Min,
        ReduceOp::Max => RedOp::Max,
    }
}

/// Runs `op` through NCCL: rank `r` reads `send[r]` (or, where `send` is empty, works in
/// place on `recv[r]`) and writes `recv[r]`, on its device's own stream. cudarc's views make
/// each stream wait for the buffers' earlier writers and record the new reads and writes
/// once the whole group is enqueued.
fn nccl_run<T: Scalar>(
    comms: &Comms,
    op: Op,
    dtype: DataType,
    send: &[&Buffer<T>],
    recv: &mut [&mut Buffer<T>],
) -> Result<(), Error> {
    if op.count() == 0 {
        return Ok(());
    }
    let not_gpu = || collective_err("an NCCL group was given a buffer that is not on a GPU");
    let mut reads = Vec::with_capacity(send.len());
    for (r, b) in send.iter().enumerate() {
        let slice = b.cuda_slice().ok_or_else(not_gpu)?;
        reads.push(slice.device_ptr(comms.stream(r).ok_or_else(not_gpu)?));
    }
    let mut writes = Vec::with_capacity(recv.len());
    for (r, b) in recv.iter_mut().enumerate() {
        let slice = b.cuda_slice_mut().ok_or_else(not_gpu)?;
        writes.push(slice.device_ptr_mut(comms.stream(r).ok_or_else(not_gpu)?));
    }
    let ranks: Vec<RankOp> = writes
        .iter()
        .enumerate()
        .map(|(r, (recv, _))| RankOp {
            send: reads.get(r).map_or(*recv, |(p, _)| *p),
            recv: *recv,
        })
        .collect();
    comms.run(op, dtype, &ranks)
    // `reads` and `writes` drop here: the events they record follow the enqueued group.
}

fn collective_err(reason: impl Into<String>) -> Error {
    Error::Collective {
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each element type reduces through NCCL's type of the same width and kind, and the
    /// types NCCL lacks go through the host.
    #[test]
    fn element_types_map_to_nccls() {
        assert_eq!(reduce_type::<f32>(), Some(DataType::F32));
        assert_eq!(reduce_type::<f64>(), Some(DataType::F64));
        assert_eq!(reduce_type::<half::f16>(), Some(DataType::F16));
        assert_eq!(reduce_type::<half::bf16>(), Some(DataType::Bf16));
        assert_eq!(reduce_type::<i8>(), Some(DataType::I8));
        assert_eq!(reduce_type::<u8>(), Some(DataType::U8));
        assert_eq!(reduce_type::<i32>(), Some(DataType::I32));
        assert_eq!(reduce_type::<u32>(), Some(DataType::U32));
        assert_eq!(reduce_type::<i64>(), Some(DataType::I64));
        assert_eq!(reduce_type::<u64>(), Some(DataType::U64));
        let word = if usize::BITS == 64 {
            DataType::U64
        } else {
            DataType::U32
        };
        assert_eq!(reduce_type::<usize>(), Some(word));
        assert_eq!(reduce_type::<i16>(), None);
        assert_eq!(reduce_type::<u16>(), None);
        assert_eq!(red_op(ReduceOp::Sum), RedOp::Sum);
        assert_eq!(red_op(ReduceOp::Prod), RedOp::Prod);
        assert_eq!(red_op(ReduceOp::Min), RedOp::Min);
        assert_eq!(red_op(ReduceOp::Max), RedOp::Max);
    }
}
