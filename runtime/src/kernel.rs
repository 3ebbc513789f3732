//! What the runtime knows of a compiled kernel: its [`KernelInfo`], one `static` per kernel
//! variant that `#[kernel]` generates.
//!
//! Takes the fault sites' types from `cuphase-contract` (re-exported here as [`FaultKind`] and
//! [`FaultSite`], the paths generated code names). Gives the kernel's description (CUDA C,
//! Rust location, the compiler's proofs, its fault sites) and [`dump`] for
//! `CUPHASE_DUMP_DIR`. Guarantees: nothing here fails a launch; a dump that cannot be written
//! is logged.

pub use cuphase_contract::{FaultKind, FaultSite};

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
    /// The kernel's warp operations were proven warp-uniform for blocks whose x extent is a
    /// multiple of 32 (a condition like `thread_idx().x < 32`): launches must have such blocks.
    pub whole_warps: bool,
    /// `#[kernel(block = (x, y, z))]`: the only block shape the kernel launches with.
    pub block_shape: Option<[u32; 3]>,
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
