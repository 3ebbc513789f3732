//! The fault records of a CUDA device: where generated code reports the first fault of a
//! launch, and how the runtime reads it back as an [`Error`].
//!
//! Takes the record layout of `cuphase_contract::fault::record` (the same constants the
//! compiler writes into the CUDA C) and the kernels' [`KernelInfo`] fault sites. Gives
//! [`FaultRecord`] (one per stream: the device's own stream has one, every
//! [`Stream`](crate::Stream) another) and [`CudaBackend::take_fault`] (read, clear, decode).
//! Guarantees: a record is allocated on its stream at its first use, zeroed; it is read and
//! cleared on its own stream, after the work queued there, so a fault is reported to the
//! stream whose launch caused it and to no other, once; a corrupt record (an unknown kernel or
//! site) is still an error, never a panic.

use super::{driver_err, CudaBackend};
use crate::dim3::Dim3;
use crate::error::Error;
use crate::kernel::{FaultKind, KernelInfo};
use cudarc::driver::{CudaSlice, CudaStream};
use cuphase_contract::fault::record;
use std::sync::{Arc, OnceLock};

/// The fault record of one stream: the launches on that stream report their first fault here,
/// and that stream's synchronising calls read it.
pub struct FaultRecord {
    stream: Arc<CudaStream>,
    slice: OnceLock<CudaSlice<u32>>,
    /// Held from reading the record to clearing it, so that two threads checking one stream
    /// (clones of a `Stream`, or its `synchronize` beside a `to_vec`) report a fault once.
    reading: std::sync::Mutex<()>,
}

impl std::fmt::Debug for FaultRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FaultRecord")
    }
}

impl FaultRecord {
    /// The record of `stream`, allocated at its first use.
    pub(crate) fn new(stream: Arc<CudaStream>) -> Arc<Self> {
        Arc::new(FaultRecord {
            stream,
            slice: OnceLock::new(),
            reading: std::sync::Mutex::new(()),
        })
    }

    /// The stream the record belongs to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The device memory generated code writes the fault to (allocated on first use).
    pub fn slice(&self) -> Result<&CudaSlice<u32>, Error> {
        if let Some(r) = self.slice.get() {
            return Ok(r);
        }
        let r = self
            .stream
            .alloc_zeros::<u32>(record::WORDS)
            .map_err(|e| driver_err("allocating the fault record", e))?;
        Ok(self.slice.get_or_init(|| r))
    }
}

impl CudaBackend {
    /// Reads `rec` on its own stream (after the work queued there so far) and clears it: the
    /// first fault of that stream's launches since the last check, as the error it is.
    pub fn take_fault(&self, rec: &FaultRecord) -> Result<(), Error> {
        let Some(slice) = rec.slice.get() else {
            return Ok(());
        };
        let stream = &rec.stream;
        let _reading = rec.reading.lock().unwrap_or_else(|p| p.into_inner());
        let words = stream
            .clone_dtoh(slice)
            .map_err(|e| driver_err("reading the fault record", e))?;
        if words.get(record::FLAG).copied().unwrap_or(0) == 0 {
            return Ok(());
        }
        let kernel = words.get(record::KERNEL).copied().unwrap_or(0) as usize;
        let info = self
            .kernels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(kernel)
            .copied();
        // Clear it for the launches that follow.
        {
            use cudarc::driver::DevicePtr;
            let (ptr, _sync) = slice.device_ptr(stream);
            // SAFETY: `ptr` is the record's allocation of `record::BYTES` bytes, alive while
            // `slice` is.
            unsafe {
                cudarc::driver::result::memset_d8_async(ptr, 0, record::BYTES, stream.cu_stream())
            }
            .map_err(|e| driver_err("clearing the fault record", e))?;
        }
        match info {
            Some(info) => Err(fault_error(info, &words)),
            None => Err(Error::Driver {
                context: "reading the fault record".into(),
                message: "unknown kernel id".into(),
            }),
        }
    }
}

/// The first fault of a launch as the GPU recorded it (the words of the record, laid out as
/// `cuphase_contract::fault::record` says) as the error it is: the site's kind decides the
/// variant and what the two 64-bit values mean.
fn fault_error(info: &KernelInfo, words: &[u32]) -> Error {
    let get = |i: usize| words.get(i).copied().unwrap_or(0);
    let wide = |i: usize| u64::from(get(i)) | (u64::from(get(i + 1)) << 32);
    let block = Dim3::new(
        get(record::BLOCK),
        get(record::BLOCK + 1),
        get(record::BLOCK + 2),
    );
    let thread = Dim3::new(
        get(record::THREAD),
        get(record::THREAD + 1),
        get(record::THREAD + 2),
    );
    let (a, b) = (wide(record::A), wide(record::B));
    let Some(site) = info.fault_sites.get(get(record::SITE) as usize) else {
        return Error::KernelPanic {
            kernel: info.name,
            file: info.rust_file,
            line: info.rust_line,
            column: 1,
            message: "a fault at an unknown site (the fault record is corrupt)",
            block,
            thread,
        };
    };
    let panic = |message: &'static str| Error::KernelPanic {
        kernel: info.name,
        file: site.file,
        line: site.line,
        column: site.col,
        message,
        block,
        thread,
    };
    match site.kind {
        FaultKind::OutOfBounds(array) => Error::OutOfBounds {
            kernel: info.name,
            file: site.file,
            line: site.line,
            column: site.col,
            array,
            index: a,
            len: b,
            block,
            thread,
        },
        FaultKind::Div if a == 0 => panic("attempt to divide by zero"),
        FaultKind::Div => panic("attempt to divide with overflow"),
        FaultKind::Rem if a == 0 => {
            panic("attempt to calculate the remainder with a divisor of zero")
        }
        FaultKind::Rem => panic("attempt to calculate the remainder with overflow"),
        FaultKind::ZeroStep if a == 0 => panic("assertion failed: step != 0"),
        FaultKind::ZeroStep => panic("a loop step must not be negative"),
        FaultKind::Panic(message) => panic(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::FaultSite;

    static SITES: [FaultSite; 2] = [
        FaultSite {
            kind: FaultKind::OutOfBounds("xs"),
            file: "k.rs",
            line: 4,
            col: 9,
        },
        FaultSite {
            kind: FaultKind::Div,
            file: "k.rs",
            line: 5,
            col: 13,
        },
    ];

    fn info() -> KernelInfo {
        KernelInfo {
            name: "k",
            cuda_source: "",
            rust_file: "k.rs",
            rust_line: 1,
            fast_math: false,
            report: "",
            whole_warps: false,
            block_shape: None,
            block_rank: 3,
            shared_proven: false,
            static_shared_bytes: 0,
            dynamic_shared_base: 0,
            fault_sites: &SITES,
            uses_fault_record: true,
            prints: false,
            instance: "",
        }
    }

    /// A record as generated CUDA C writes it.
    fn words(site: u32, a: u64, b: u64) -> Vec<u32> {
        let mut w = vec![0u32; record::WORDS];
        w[record::FLAG] = 1;
        w[record::SITE] = site;
        w[record::BLOCK..record::BLOCK + 3].copy_from_slice(&[1, 2, 3]);
        w[record::THREAD..record::THREAD + 3].copy_from_slice(&[4, 5, 6]);
        for (at, v) in [(record::A, a), (record::B, b)] {
            w[at] = v as u32;
            w[at + 1] = (v >> 32) as u32;
        }
        w
    }

    #[test]
    fn records_decode_to_the_errors_of_their_sites() {
        let e = fault_error(&info(), &words(0, 1 << 33, 7));
        match e {
            Error::OutOfBounds {
                array,
                index,
                len,
                line,
                column,
                block,
                thread,
                ..
            } => {
                assert_eq!((array, index, len), ("xs", 1 << 33, 7));
                assert_eq!((line, column), (4, 9));
                assert_eq!((block, thread), (Dim3::new(1, 2, 3), Dim3::new(4, 5, 6)));
            }
            other => panic!("{other:?}"),
        }
        let e = fault_error(&info(), &words(1, 1, 0));
        assert!(
            matches!(
                e,
                Error::KernelPanic {
                    message: "attempt to divide with overflow",
                    line: 5,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = fault_error(&info(), &words(9, 0, 0));
        assert!(
            matches!(e, Error::KernelPanic { line: 1, .. }),
            "an unknown site is still an error: {e:?}"
        );
    }
}
