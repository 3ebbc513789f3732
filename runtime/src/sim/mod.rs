//! The CPU simulator.
//!
//! The compiler proved every barrier block-uniform, so `#[kernel]` writes most kernels
//! phase-split: the control flow that holds barriers runs once per block, and the code between
//! two barriers is a loop over the block's threads ([`Run`]: the thread order of the phase,
//! which threads have returned, the checks at each barrier; code between barriers that holds
//! warp operations is a loop over the warps, each warp's lanes meeting at each operation). The
//! kernels it cannot split that way (a loop exit from code with warp operations to a loop
//! that syncs, a promise in a condition around warp operations) run as one future per GPU
//! thread, made by an `async fn` whose only await points are barriers and warp operations:
//! [`BlockCtx::run`] polls each until it finishes or waits, then checks that every live thread
//! waits at the same barrier. Both report a barrier some threads never reach as
//! [`Error::BarrierDivergence`]. Blocks run in parallel on the launching thread and rayon's
//! pool (contiguous ranges of blocks, with stealing: `grid`); global memory is
//! atomic cells with relaxed ordering, so even a racy kernel is sound Rust here. Every index
//! is bounds-checked, every fault is an error value, nothing panics.
//!
//! Takes a launch and the Rust code `#[kernel]` generates for the simulator (which names the
//! items here, and the contract's [`WarpKind`] and [`Distribution`], by path). Gives the
//! simulator's device, memory, arithmetic and race detection, and [`Fault`], what ends a GPU
//! thread early, with its conversion into an [`Error`]. Guarantees: Rust's semantics (the same
//! results as the CUDA back end, bit for bit for floats unless the kernel asks for
//! `fast_math`), every fault an error value, and deterministic errors (the lowest-numbered
//! failing block's).
//!
//! The items of this module are used by generated code and are not a stable API.

mod exec;
mod grid;
mod memory;
mod methods;
mod mma;
mod ops;
mod phases;
mod print;
pub mod race;
mod watchdog;
mod wgmma;

/// The warp operations, as generated simulator code names them (`sim::WarpKind::Shuffle`):
/// the contract's [`WarpOp`](cuphase_contract::WarpOp).
pub use cuphase_contract::WarpOp as WarpKind;
pub use cuphase_contract::{Distribution, MatrixLoad, MmaShape, WgmmaShape};
pub use exec::{exchange, BlockCtx, SimBackend, SimOptions, ThreadCtx, ThreadOrder};
pub use memory::{ArrayRef, Field, Global, LocalArrays, Shared};
pub use methods::{
    div_ceil, div_euclid, ilog10, ilog2, isqrt, next_power_of_two, rem_euclid, SimEuclid,
    SimIntMethods, SimUnsigned,
};
pub use mma::{mma, mma_dot, row_element, row_words, tf32};
pub use ops::{
    affine_within, clamp, div, exact_add, exact_mul, exact_sub, fmax, fmin, range, range_inclusive,
    range_rev, rem, step_of, SimDiv, SimInt, SimMinMax, StepRange, ToBits,
};
pub use phases::{Agree, Phase, Run};
pub use print::{capture, ids_prefix, push, Printable, Printer, Spec, LINE_LIMIT};
pub use race::assume_uniform;
pub use watchdog::watchdog;
pub(crate) use watchdog::Watch;
pub use wgmma::{tf32_truncated, wgmma, wgmma_rs};

use crate::dim3::Dim3;
use crate::error::{Error, RaceSite};

/// Coordinates of linear index `t` in a box of `d`.
pub(crate) fn unlinear(t: u64, d: Dim3) -> Dim3 {
    let x = (t % u64::from(d.x.max(1))) as u32;
    let y = ((t / u64::from(d.x.max(1))) % u64::from(d.y.max(1))) as u32;
    let z = (t / (u64::from(d.x.max(1)) * u64::from(d.y.max(1)))) as u32;
    Dim3::new(x, y, z)
}

/// A location in the Rust source of a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loc {
    /// The Rust file.
    pub file: &'static str,
    /// Line, from 1.
    pub line: u32,
    /// Column, from 1.
    pub col: u32,
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// Something that ended a GPU thread early.
#[derive(Clone, Debug)]
pub enum Fault {
    /// An index past the end of a dimension.
    OutOfBounds {
        /// The array's name.
        array: &'static str,
        /// The index.
        index: u64,
        /// The dimension's length.
        len: u64,
        /// Where.
        loc: &'static Loc,
    },
    /// Two threads touched one element in one phase, one writing, not both atomically.
    Race {
        /// The array's name.
        array: &'static str,
        /// The element.
        index: u64,
        /// Which kind.
        kind: race::RaceKind,
        /// The block of the earlier access.
        other_block: u32,
        /// The thread (linear in its block) of the earlier access.
        other_thread: u32,
        /// Where the earlier access is, if known.
        other_loc: Option<&'static Loc>,
        /// Where this access is.
        loc: &'static Loc,
    },
    /// Threads of one block saw different values at one `assume_uniform`.
    BrokenPromise {
        /// Where.
        loc: &'static Loc,
        /// A thread (linear in its block) that saw another value.
        other_thread: u32,
        /// Its value's bits.
        other_bits: u64,
        /// This thread's value's bits.
        bits: u64,
    },
    /// Threads of one block went different ways where the phase-split code needs them to go
    /// one way (a condition or a loop exit on the path to a barrier), or a barrier that some
    /// threads will never reach: the detail says which.
    Divergence(String),
    /// A panic: division by zero, a zero step, ...
    Panic {
        /// Rust's message for it.
        message: &'static str,
        /// Where.
        loc: &'static Loc,
    },
    /// The launch ran past the device's watchdog limit: the thread stopped at a loop.
    Timeout(std::time::Duration),
}

impl Fault {
    /// The user-facing error, with the kernel and the thread that faulted; `grid` and
    /// `block_dim` turn linear ids back into coordinates.
    pub fn into_error(
        self,
        kernel: &'static str,
        block: Dim3,
        thread: Dim3,
        grid: Dim3,
        block_dim: Dim3,
    ) -> Error {
        match self {
            Fault::Race {
                array,
                index,
                kind,
                other_block,
                other_thread,
                other_loc,
                loc,
            } => Error::DataRace {
                kernel,
                array,
                index,
                kind: kind.name(),
                first: Box::new(RaceSite {
                    block: unlinear(u64::from(other_block), grid),
                    thread: unlinear(u64::from(other_thread), block_dim),
                    location: other_loc
                        .map_or_else(|| "an earlier access".to_string(), |l| l.to_string()),
                }),
                second: Box::new(RaceSite {
                    block,
                    thread,
                    location: loc.to_string(),
                }),
            },
            Fault::BrokenPromise { loc, other_thread, other_bits, bits } => Error::BarrierDivergence {
                kernel,
                block,
                detail: format!(
                    "the promise of `assume_uniform` at {loc} is broken: thread {} saw {other_bits:#x} and thread {thread} saw {bits:#x} (the bits of the value)",
                    unlinear(u64::from(other_thread), block_dim)
                ),
            },
            Fault::Divergence(detail) => Error::BarrierDivergence {
                kernel,
                block,
                detail,
            },
            Fault::OutOfBounds {
                array,
                index,
                len,
                loc,
            } => Error::OutOfBounds {
                kernel,
                file: loc.file,
                line: loc.line,
                column: loc.col,
                array,
                index,
                len,
                block,
                thread,
            },
            Fault::Timeout(limit) => Error::Timeout {
                what: format!("the launch of kernel `{kernel}` on the simulator"),
                waited_ms: limit.as_millis(),
                consequence: "its threads were stopped at their next loop iteration; the device is usable",
            },
            Fault::Panic { message, loc } => Error::KernelPanic {
                kernel,
                file: loc.file,
                line: loc.line,
                column: loc.col,
                message,
                block,
                thread,
            },
        }
    }
}
