//! NCCL, loaded at run time: communicators over several GPUs of this process and the four
//! collectives cuphase offers (all-reduce, all-gather, reduce-scatter, broadcast).
//!
//! The library is opened by its own name, `libnccl.so.2` (what NVIDIA's runtime package and
//! the `nvidia-nccl-cu13` wheel install), then `libnccl.so`, or from the path in
//! `CUPHASE_NCCL_LIB` (read once per process, at the first use). cudarc binds NCCL too, but its
//! loader tries `libnccl.so` (which only development packages install) and names with CUDA's
//! version (`libnccl.so.13`, ..), never `libnccl.so.2`, and its communicator panics where it
//! cannot tear down; the dozen entry points cuphase needs are written here instead, each
//! call's status checked.
//!
//! Takes the devices' contexts and streams, and raw device pointers from cudarc's slices
//! (with cudarc's stream ordering around them, done by the caller). Gives [`Nccl`] (the
//! library, once per process) and [`Comms`] (one communicator per rank). Guarantees: a machine
//! without NCCL gets an [`Error::Collective`] that says what to install, never a panic;
//! every call that enqueues work for several ranks is one NCCL group (so one host thread can
//! drive every GPU without deadlock).

use crate::error::Error;
use cudarc::driver::CudaStream;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::{Arc, OnceLock};

/// `ncclComm_t`.
type RawComm = *mut c_void;
/// `ncclResult_t`.
type Status = c_int;

/// NCCL's element types (`ncclDataType_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum DataType {
    /// `ncclInt8`.
    I8 = 0,
    /// `ncclUint8`, also the type of raw bytes.
    U8 = 1,
    /// `ncclInt32`.
    I32 = 2,
    /// `ncclUint32`.
    U32 = 3,
    /// `ncclInt64`.
    I64 = 4,
    /// `ncclUint64`.
    U64 = 5,
    /// `ncclFloat16`.
    F16 = 6,
    /// `ncclFloat32`.
    F32 = 7,
    /// `ncclFloat64`.
    F64 = 8,
    /// `ncclBfloat16`.
    Bf16 = 9,
}

/// NCCL's reductions (`ncclRedOp_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(i32)]
pub enum RedOp {
    /// `ncclSum`.
    Sum = 0,
    /// `ncclProd`.
    Prod = 1,
    /// `ncclMax`.
    Max = 2,
    /// `ncclMin`.
    Min = 3,
}

type GetVersion = unsafe extern "C" fn(*mut c_int) -> Status;
type GetErrorString = unsafe extern "C" fn(Status) -> *const c_char;
type CommInitAll = unsafe extern "C" fn(*mut RawComm, c_int, *const c_int) -> Status;
type GetUniqueId = unsafe extern "C" fn(*mut UniqueId) -> Status;
type CommInitRank = unsafe extern "C" fn(*mut RawComm, c_int, UniqueId, c_int) -> Status;

/// `ncclUniqueId`: what the processes of one communicator share, made by one of them.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct UniqueId {
    /// NCCL's bytes (`NCCL_UNIQUE_ID_BYTES`).
    pub bytes: [u8; 128],
}
type CommDestroy = unsafe extern "C" fn(RawComm) -> Status;
type GroupCall = unsafe extern "C" fn() -> Status;
type AllReduce = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    usize,
    c_int,
    c_int,
    RawComm,
    *mut c_void,
) -> Status;
type AllGather =
    unsafe extern "C" fn(*const c_void, *mut c_void, usize, c_int, RawComm, *mut c_void) -> Status;
type ReduceScatter = AllReduce;
type Broadcast = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    usize,
    c_int,
    c_int,
    RawComm,
    *mut c_void,
) -> Status;

/// The NCCL library and the entry points cuphase calls.
pub struct Nccl {
    version: c_int,
    get_error_string: GetErrorString,
    comm_init_all: CommInitAll,
    get_unique_id: GetUniqueId,
    comm_init_rank: CommInitRank,
    comm_destroy: CommDestroy,
    group_start: GroupCall,
    group_end: GroupCall,
    all_reduce: AllReduce,
    all_gather: AllGather,
    reduce_scatter: ReduceScatter,
    broadcast: Broadcast,
    /// Kept open for the process's life (the function pointers above point into it).
    _lib: libloading::Library,
}

/// What to do where NCCL is missing.
const INSTALL: &str = "install NCCL (`pip install nvidia-nccl-cu13` and put its `nvidia/nccl/lib` folder on LD_LIBRARY_PATH, or the `libnccl2` package), set CUPHASE_NCCL_LIB to the library's path, or use `Group::staged`, which moves data through the host";

impl Nccl {
    /// The library, opened on first use; `Err` (each time) where it cannot be.
    pub fn get() -> Result<&'static Nccl, Error> {
        static NCCL: OnceLock<Result<Nccl, String>> = OnceLock::new();
        NCCL.get_or_init(Nccl::open)
            .as_ref()
            .map_err(|reason| Error::Collective {
                reason: reason.clone(),
            })
    }

    /// NCCL's version as the number it reports (`22306` for 2.23.6).
    pub fn version(&self) -> u32 {
        self.version.unsigned_abs()
    }

    fn open() -> Result<Nccl, String> {
        match std::env::var("CUPHASE_NCCL_LIB") {
            Ok(path) if !path.is_empty() => Nccl::open_first(&[&path]),
            _ => Nccl::open_first(&["libnccl.so.2", "libnccl.so"]),
        }
    }

    /// The first of `names` that loads as NCCL.
    fn open_first(names: &[&str]) -> Result<Nccl, String> {
        let mut tried = Vec::new();
        let lib = names.iter().find_map(|name| {
            // SAFETY: loading NCCL runs its initialisers, which only set up its own state.
            match unsafe { libloading::Library::new(*name) } {
                Ok(lib) => Some(lib),
                Err(e) => {
                    tried.push(format!("{name}: {e}"));
                    None
                }
            }
        });
        let Some(lib) = lib else {
            return Err(format!(
                "NCCL could not be loaded ({}); {INSTALL}",
                tried.join("; ")
            ));
        };
        /// One entry point by name, copied out of the library.
        fn sym<F: Copy>(lib: &libloading::Library, name: &str) -> Result<F, String> {
            // SAFETY: each `F` below is the C signature NCCL's header gives `name`.
            unsafe { lib.get::<F>(name.as_bytes()) }
                .map(|s| *s)
                .map_err(|e| format!("the NCCL library has no `{name}` ({e}); {INSTALL}"))
        }
        let get_version: GetVersion = sym(&lib, "ncclGetVersion")?;
        let mut version = 0;
        // SAFETY: writes one int.
        if unsafe { get_version(&mut version) } != 0 {
            return Err(format!("ncclGetVersion failed; {INSTALL}"));
        }
        Ok(Nccl {
            version,
            get_error_string: sym(&lib, "ncclGetErrorString")?,
            comm_init_all: sym(&lib, "ncclCommInitAll")?,
            get_unique_id: sym(&lib, "ncclGetUniqueId")?,
            comm_init_rank: sym(&lib, "ncclCommInitRank")?,
            comm_destroy: sym(&lib, "ncclCommDestroy")?,
            group_start: sym(&lib, "ncclGroupStart")?,
            group_end: sym(&lib, "ncclGroupEnd")?,
            all_reduce: sym(&lib, "ncclAllReduce")?,
            all_gather: sym(&lib, "ncclAllGather")?,
            reduce_scatter: sym(&lib, "ncclReduceScatter")?,
            broadcast: sym(&lib, "ncclBroadcast")?,
            _lib: lib,
        })
    }

    /// A new id for a communicator that spans processes.
    pub fn unique_id(&self) -> Result<UniqueId, Error> {
        let mut id = UniqueId { bytes: [0; 128] };
        // SAFETY: NCCL writes the 128 bytes of the id.
        self.check("ncclGetUniqueId", unsafe { (self.get_unique_id)(&mut id) })?;
        Ok(id)
    }

    /// A call's status as a result; `what` names the call.
    fn check(&self, what: &str, status: Status) -> Result<(), Error> {
        if status == 0 {
            return Ok(());
        }
        // SAFETY: NCCL returns a static string for any status.
        let text = unsafe { (self.get_error_string)(status) };
        let text = if text.is_null() {
            format!("status {status}")
        } else {
            // SAFETY: non-null, NUL-terminated, static.
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        };
        Err(Error::Collective {
            reason: format!("NCCL's {what} failed: {text}"),
        })
    }
}

/// One communicator per rank over GPUs of this process, and the stream each rank's work goes
/// on (its device's own stream, so collectives are ordered with that device's launches).
pub struct Comms {
    nccl: &'static Nccl,
    comms: Vec<RawComm>,
    streams: Vec<Arc<CudaStream>>,
    /// One group call at a time on these communicators: two host threads enqueueing on them
    /// at once would interleave their operations differently on different ranks. (Not one
    /// lock for the process: the ranks of a group of threads, each with its own `Comms`, must
    /// be able to be inside their calls together, as NCCL connects them there.)
    busy: std::sync::Mutex<()>,
}

// SAFETY: NCCL communicators may be used from any thread, one call at a time.
unsafe impl Send for Comms {}
// SAFETY: as above; every enqueueing call holds `busy`.
unsafe impl Sync for Comms {}

/// One operation of one rank inside a group call: the pointers and counts it takes.
pub struct RankOp {
    /// What the rank sends (equal to `recv` for an in-place operation).
    pub send: u64,
    /// Where the rank's result goes.
    pub recv: u64,
}

/// The collective a group call runs on every rank.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// `count` elements reduced into every rank.
    AllReduce { count: usize, op: RedOp },
    /// `count` elements from each rank, gathered in rank order into every rank.
    AllGather { count: usize },
    /// `count` elements of the reduction into each rank (its part).
    ReduceScatter { count: usize, op: RedOp },
    /// `count` elements from rank `root` into every rank.
    Broadcast { count: usize, root: usize },
}

impl Op {
    /// The element count NCCL is given.
    pub fn count(self) -> usize {
        match self {
            Op::AllReduce { count, .. }
            | Op::AllGather { count }
            | Op::ReduceScatter { count, .. }
            | Op::Broadcast { count, .. } => count,
        }
    }
}

impl Comms {
    /// Communicators for the GPUs of `streams` (one per rank, each its device's stream).
    pub fn new(streams: Vec<Arc<CudaStream>>) -> Result<Comms, Error> {
        let nccl = Nccl::get()?;
        let ordinals: Vec<c_int> = streams
            .iter()
            .map(|s| c_int::try_from(s.context().ordinal()).unwrap_or(c_int::MAX))
            .collect();
        let n = c_int::try_from(streams.len()).map_err(|_| Error::Collective {
            reason: "too many ranks for NCCL".into(),
        })?;
        let mut comms: Vec<RawComm> = vec![std::ptr::null_mut(); streams.len()];
        // SAFETY: `comms` has one slot per ordinal.
        let status = unsafe { (nccl.comm_init_all)(comms.as_mut_ptr(), n, ordinals.as_ptr()) };
        nccl.check("ncclCommInitAll", status)?;
        Ok(Comms {
            nccl,
            comms,
            streams,
            busy: Default::default(),
        })
    }

    /// This process's communicator of rank `rank` among `world`, on the GPU of `stream`,
    /// which every rank joins with the same `id`; waits until they all have.
    pub fn rank(
        stream: Arc<CudaStream>,
        rank: usize,
        world: usize,
        id: &UniqueId,
    ) -> Result<Comms, Error> {
        let nccl = Nccl::get()?;
        let (Ok(rank), Ok(world)) = (c_int::try_from(rank), c_int::try_from(world)) else {
            return Err(Error::Collective {
                reason: "too many ranks for NCCL".into(),
            });
        };
        // NCCL takes the device from the thread's current context.
        stream
            .context()
            .bind_to_thread()
            .map_err(|e| Error::Collective {
                reason: format!("making the GPU current for NCCL: {e}"),
            })?;
        let mut comm: RawComm = std::ptr::null_mut();
        // SAFETY: one slot for the communicator; the id is NCCL's 128 bytes.
        let status = unsafe { (nccl.comm_init_rank)(&mut comm, world, *id, rank) };
        nccl.check("ncclCommInitRank", status)?;
        Ok(Comms {
            nccl,
            comms: vec![comm],
            streams: vec![stream],
            busy: Default::default(),
        })
    }

    /// Enqueues `op` on every rank of this process, rank `r` with `ranks[r]`'s pointers, as
    /// one group call. The pointers must stay valid until the streams have run the work (the caller's cudarc
    /// views record that on the streams).
    pub fn run(&self, op: Op, dtype: DataType, ranks: &[RankOp]) -> Result<(), Error> {
        if ranks.len() != self.comms.len() {
            return Err(Error::Collective {
                reason: format!(
                    "{} buffers for {} NCCL ranks",
                    ranks.len(),
                    self.comms.len()
                ),
            });
        }
        let nccl = self.nccl;
        let _busy = self.busy.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: no arguments.
        nccl.check("ncclGroupStart", unsafe { (nccl.group_start)() })?;
        let mut first_err = Ok(());
        for ((rank, comm), stream) in ranks.iter().zip(&self.comms).zip(&self.streams) {
            let (send, recv) = (rank.send as *const c_void, rank.recv as *mut c_void);
            let s = stream.cu_stream() as *mut c_void;
            let t = dtype as c_int;
            // SAFETY: the pointers are device memory of this rank's GPU holding what `op`
            // reads and writes (the caller checked the lengths); the stream is that GPU's.
            let status = unsafe {
                match op {
                    Op::AllReduce { count, op } => {
                        (nccl.all_reduce)(send, recv, count, t, op as c_int, *comm, s)
                    }
                    Op::AllGather { count } => (nccl.all_gather)(send, recv, count, t, *comm, s),
                    Op::ReduceScatter { count, op } => {
                        (nccl.reduce_scatter)(send, recv, count, t, op as c_int, *comm, s)
                    }
                    Op::Broadcast { count, root } => {
                        let root = c_int::try_from(root).unwrap_or(c_int::MAX);
                        (nccl.broadcast)(send, recv, count, t, root, *comm, s)
                    }
                }
            };
            if first_err.is_ok() {
                first_err = nccl.check("collective", status);
            }
        }
        // The group ends whatever happened inside, so NCCL's state stays balanced.
        // SAFETY: no arguments.
        let end = nccl.check("ncclGroupEnd", unsafe { (nccl.group_end)() });
        first_err.and(end)
    }

    /// Rank `r`'s stream (of this process's ranks).
    pub fn stream(&self, r: usize) -> Option<&CudaStream> {
        self.streams.get(r).map(|s| &**s)
    }
}

impl Drop for Comms {
    fn drop(&mut self) {
        for comm in &self.comms {
            // SAFETY: each communicator was made by `ncclCommInitAll` and is destroyed once.
            // A failure here has no one to report to; the process's NCCL state is NCCL's.
            let _ = unsafe { (self.nccl.comm_destroy)(*comm) };
        }
    }
}

impl std::fmt::Debug for Comms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Comms")
            .field("ranks", &self.comms.len())
            .field("nccl_version", &self.nccl.version())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where NCCL is installed, it loads and reports a 2.x version; where it is not, the error
    /// says what to install. Either way nothing panics.
    #[test]
    fn nccl_loads_or_says_what_to_install() {
        match Nccl::get() {
            Ok(n) => {
                assert!(
                    (20000..30000).contains(&n.version()),
                    "NCCL version {}",
                    n.version()
                );
                println!("NCCL {} loaded", n.version());
                // Ids need no GPU: two are different, and not all zero.
                match (n.unique_id(), n.unique_id()) {
                    (Ok(a), Ok(b)) => {
                        assert_ne!(a.bytes, b.bytes, "two ids are the same");
                        assert!(a.bytes.iter().any(|&x| x != 0), "an id of zeros");
                    }
                    (a, b) => println!("NCCL could not make an id here: {:?}", a.err().or(b.err())),
                }
            }
            Err(e) => {
                let text = e.to_string();
                assert!(text.contains("nvidia-nccl-cu13"), "{text}");
                assert!(text.contains("Group::staged"), "{text}");
                println!("NCCL not installed here (the error path was checked): {text}");
            }
        }
    }

    /// A library that is not there, or is not NCCL, is an error naming it and what to do.
    #[test]
    fn a_missing_or_foreign_library_is_an_error_that_says_what_to_install() {
        let Err(missing) = Nccl::open_first(&["/nonexistent/libnccl.so.2"]) else {
            unreachable!("a path that does not exist loaded");
        };
        assert!(missing.contains("/nonexistent/libnccl.so.2"), "{missing}");
        assert!(missing.contains("nvidia-nccl-cu13"), "{missing}");
        // libc loads but has none of NCCL's entry points.
        match Nccl::open_first(&["libc.so.6"]) {
            Err(foreign) => assert!(foreign.contains("ncclGetVersion"), "{foreign}"),
            Ok(_) => unreachable!("libc passed for NCCL"),
        }
    }
}
