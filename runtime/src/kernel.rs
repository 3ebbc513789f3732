//! What the runtime knows of a compiled kernel.

/// A kernel as `#[kernel]` compiled it: one `static` per kernel, so its address identifies it.
#[derive(Debug)]
pub struct KernelInfo {
    /// The kernel's name, in Rust and in CUDA C.
    pub name: &'static str,
    /// The generated CUDA C.
    pub cuda_source: &'static str,
    /// The Rust file that defines the kernel; the NVRTC program name.
    pub rust_file: &'static str,
    /// The line of the kernel's name in that file.
    pub rust_line: u32,
    /// Whether to compile with `--use_fast_math`.
    pub fast_math: bool,
    /// The barrier analyses' report.
    pub report: &'static str,
    /// The block rank the kernel's shared-memory proof assumes: 1 (blocks must be 1-D),
    /// 2 (z must be 1) or 3 (no constraint).
    pub block_rank: u8,
    /// The compiler proved every shared-memory access of the kernel race-free (none is in
    /// `unsafe`): the simulator may skip shared-memory race detection.
    pub shared_proven: bool,
    /// Bytes of `shared::<..>()` arrays per block.
    pub static_shared_bytes: u32,
    /// The generated code's fault checks, by the site number it reports.
    pub fault_sites: &'static [FaultSite],
    /// The kernel takes the fault record parameters.
    pub uses_fault_record: bool,
}

/// What a fault check of generated CUDA code catches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// An index past the end of the named array.
    OutOfBounds(&'static str),
    /// Integer division by zero or with overflow.
    Div,
    /// Integer remainder by zero or with overflow.
    Rem,
    /// A zero (or negative) `step_by`.
    ZeroStep,
    /// `panic!`, a failed `assert!`, ...: the message.
    Panic(&'static str),
}

/// A fault check in generated CUDA code, with its Rust location (in the kernel's file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FaultSite {
    /// What it catches.
    pub kind: FaultKind,
    /// Rust file (a helper inlined into the kernel may be in another file than the kernel).
    pub file: &'static str,
    /// Rust line.
    pub line: u32,
    /// Rust column.
    pub col: u32,
}

/// The first fault of a launch as the GPU recorded it: 16 words (flag, site, kernel id,
/// block x y z, thread x y z, padding, two 64-bit values).
pub(crate) fn fault_error(info: &KernelInfo, words: &[u32]) -> crate::error::Error {
    use crate::error::Error;
    use crate::launch::Dim3;
    let get = |i: usize| words.get(i).copied().unwrap_or(0);
    let wide = |i: usize| u64::from(get(i)) | (u64::from(get(i + 1)) << 32);
    let block = Dim3::new(get(3), get(4), get(5));
    let thread = Dim3::new(get(6), get(7), get(8));
    let (a, b) = (wide(10), wide(12));
    let Some(site) = info.fault_sites.get(get(1) as usize) else {
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

/// With `CUPHASE_DUMP_DIR` set, writes the kernel's CUDA C (`<name>.cu`) and report
/// (`<name>.report.txt`) there, once per kernel and process. Failures are logged, not fatal.
pub fn dump(info: &'static KernelInfo) {
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static DONE: OnceLock<Mutex<HashSet<usize>>> = OnceLock::new();
    let Some(dir) = std::env::var_os("CUPHASE_DUMP_DIR").filter(|d| !d.is_empty()) else {
        return;
    };
    let done = DONE.get_or_init(|| Mutex::new(HashSet::new()));
    let first = done
        .lock()
        .map(|mut d| d.insert(info as *const KernelInfo as usize))
        .unwrap_or(false);
    if !first {
        return;
    }
    let dir = std::path::PathBuf::from(dir);
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("{}.cu", info.name)), info.cuda_source)?;
        std::fs::write(dir.join(format!("{}.report.txt", info.name)), info.report)
    };
    if let Err(e) = write() {
        tracing::warn!(kernel = info.name, dir = %dir.display(), error = %e, "cuphase: CUPHASE_DUMP_DIR not written");
    }
}
