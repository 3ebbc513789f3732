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
}
