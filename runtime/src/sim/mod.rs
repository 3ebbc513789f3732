//! The CPU simulator.
//!
//! Every GPU thread is one future, made by the `async fn` that `#[kernel]` generates; its only
//! await point is the barrier. A block runs on one CPU thread: [`BlockCtx::run`] polls each GPU
//! thread until it finishes or waits at a barrier, then checks that every live thread waits at
//! the same barrier and that none has finished while others wait (both are
//! [`Error::BarrierDivergence`]), and starts the next phase. Blocks run in parallel on rayon's
//! pool; global memory is atomic cells with relaxed ordering, so even a racy kernel is sound
//! Rust here. Every index is bounds-checked, every fault is an error value, nothing panics.
//!
//! The items of this module are used by generated code and are not a stable API.

mod exec;
mod memory;
mod ops;

pub use exec::{BlockCtx, SimBackend, ThreadCtx};
pub use memory::{Global, Shared};
pub use ops::{div, range, rem, step_of, Distribution, SimDiv, SimInt, StepRange};

use crate::error::Error;
use crate::launch::Dim3;

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
    /// A panic: division by zero, a zero step, ...
    Panic {
        /// Rust's message for it.
        message: &'static str,
        /// Where.
        loc: &'static Loc,
    },
}

impl Fault {
    /// The user-facing error, with the kernel and the thread that faulted.
    pub fn into_error(self, kernel: &str, block: Dim3, thread: Dim3) -> Error {
        match self {
            Fault::OutOfBounds {
                array,
                index,
                len,
                loc,
            } => Error::OutOfBounds {
                kernel: kernel.to_string(),
                file: loc.file.to_string(),
                line: loc.line,
                column: loc.col,
                array: array.to_string(),
                index,
                len,
                block,
                thread,
            },
            Fault::Panic { message, loc } => Error::KernelPanic {
                kernel: kernel.to_string(),
                file: loc.file.to_string(),
                line: loc.line,
                column: loc.col,
                message: message.to_string(),
                block,
                thread,
            },
        }
    }
}
