//! The one error type of cuphase: [`Error`], with the parts some variants carry
//! ([`RaceSite`], [`CompileError`]).
//!
//! Takes only [`Dim3`] (to say which block and thread). Gives the error every fallible call of
//! the runtime returns. Guarantees: every variant carries what a user needs to act on it (the
//! kernel, the Rust location, the block and thread, the limit broken), and its `Display` says
//! it in one message.

use crate::dim3::Dim3;

/// One side of a data race.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaceSite {
    /// The block.
    pub block: Dim3,
    /// The thread within the block.
    pub thread: Dim3,
    /// The Rust location (`file:line:column`).
    pub location: String,
}

impl std::fmt::Display for RaceSite {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "block {}, thread {} at {}",
            self.block, self.thread, self.location
        )
    }
}

/// Everything that can go wrong when setting up a device, moving data or launching a kernel.
/// Every variant carries what a user needs to act on it.
///
/// `Debug` prints the same readable message as `Display` (as `anyhow::Error` does), so a
/// `fn main() -> Result<(), cuphase::Error>` that fails shows the message, not a struct;
/// match on the variant for its fields.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No usable CUDA driver or GPU.
    #[error("CUDA is not available: {reason}")]
    CudaUnavailable {
        /// What is missing and how to get it.
        reason: String,
    },
    /// A CUDA device ordinal that does not exist.
    #[error("there is no CUDA device {ordinal}: this machine has {count}")]
    NoSuchDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices the driver reports.
        count: usize,
    },
    /// A CUDA driver call failed.
    #[error("CUDA driver error while {context}: {message}")]
    Driver {
        /// What cuphase was doing.
        context: String,
        /// The driver's own message.
        message: String,
    },
    /// The NVRTC library could not be loaded.
    #[error("NVRTC is not available: {reason}")]
    NvrtcUnavailable {
        /// What is missing and how to get it.
        reason: String,
    },
    /// NVRTC rejected the generated CUDA C ([`CompileError`]: the log and the source). Locations in the log are Rust locations, through
    /// the `#line` directives of the generated code.
    #[error("{0}")]
    Compile(Box<CompileError>),
    /// A launch configuration that no launch can have, found before anything runs.
    #[error("invalid launch of kernel `{kernel}`: {reason}")]
    InvalidLaunch {
        /// The kernel's name.
        kernel: String,
        /// Which limit was broken.
        reason: String,
    },
    /// A buffer passed to a kernel, or copied, lives on another device.
    #[error("{what} lives on {found}, but the operation runs on {expected}")]
    WrongDevice {
        /// The buffer or parameter.
        what: String,
        /// Where it lives.
        found: String,
        /// Where it was needed.
        expected: String,
    },
    /// A host slice whose length does not fit the buffer.
    #[error("length mismatch: the buffer holds {expected} elements, the host slice {found}")]
    LengthMismatch {
        /// The buffer's length.
        expected: usize,
        /// The host slice's length.
        found: usize,
    },
    /// A kernel thread panicked (`panic!`, division by zero, `step_by(0)`, ...).
    #[error("kernel `{kernel}` panicked at {file}:{line}:{column} in block {block}, thread {thread}: {message}")]
    KernelPanic {
        /// The kernel's name.
        kernel: &'static str,
        /// Rust source file.
        file: &'static str,
        /// Line in the file.
        line: u32,
        /// Column in the line.
        column: u32,
        /// The panic message.
        message: &'static str,
        /// The block of the thread that panicked.
        block: Dim3,
        /// The thread that panicked, within its block.
        thread: Dim3,
    },
    /// An index out of bounds, caught by a bounds check.
    #[error("index out of bounds in kernel `{kernel}` at {file}:{line}:{column}: the len of `{array}` is {len} but the index is {index} (block {block}, thread {thread})")]
    OutOfBounds {
        /// The kernel's name.
        kernel: &'static str,
        /// Rust source file.
        file: &'static str,
        /// Line in the file.
        line: u32,
        /// Column in the line.
        column: u32,
        /// The slice or shared array.
        array: &'static str,
        /// The index used.
        index: u64,
        /// The length of the indexed dimension.
        len: u64,
        /// The block of the faulting thread.
        block: Dim3,
        /// The faulting thread, within its block.
        thread: Dim3,
    },
    /// Threads of one block did not all reach the same barrier (found by the simulator).
    #[error("barrier divergence in kernel `{kernel}`, block {block}: {detail}")]
    BarrierDivergence {
        /// The kernel's name.
        kernel: &'static str,
        /// The block in which it happened.
        block: Dim3,
        /// Which threads wait where, with Rust locations and counts.
        detail: String,
    },
    /// Two threads touched one element in one phase, at least one writing, not both atomically
    /// (found by the simulator's race detection).
    #[error(
        "data race in kernel `{kernel}` on `{array}[{index}]`: {kind} between {first} and {second}"
    )]
    DataRace {
        /// The kernel's name.
        kernel: &'static str,
        /// The shared array or buffer parameter.
        array: &'static str,
        /// The element (flat index).
        index: u64,
        /// "read-after-write", "write-after-read" or "write-after-write".
        kind: &'static str,
        /// The earlier access.
        first: Box<RaceSite>,
        /// The access that found the race.
        second: Box<RaceSite>,
    },
    /// The kernel had compile errors; its `launch` cannot run.
    #[error("kernel `{0}` did not compile; see the errors of `#[kernel]`")]
    NotCompiled(String),
    /// A buffer does not fit in the device's free memory (or its size in bytes overflows).
    /// Nothing was allocated; the device stays usable.
    #[error(
        "out of memory on {device}: a buffer of {len} elements of {elem} ({bytes}) does not fit"
    )]
    OutOfMemory {
        /// The device.
        device: String,
        /// Elements asked for.
        len: usize,
        /// The element type.
        elem: &'static str,
        /// The size asked for, in words (`"4.0 TiB"`, or "more than 2^64 bytes").
        bytes: String,
    },
    /// A synchronising call waited longer than the device's watchdog
    /// ([`Device::set_watchdog`](crate::Device::set_watchdog)) allows.
    #[error("{what} waited {waited_ms} ms, longer than the watchdog allows: {consequence}")]
    Timeout {
        /// What waited (`"Stream::synchronize"`, a launch of kernel `k`, ...).
        what: String,
        /// How long it waited, in milliseconds.
        waited_ms: u128,
        /// What state the device is left in.
        consequence: &'static str,
    },
    /// A collective's buffers do not fit its group (a buffer missing or on the wrong device, a
    /// wrong length, a device listed twice), or NCCL is missing or failed (the reason says
    /// which call, and what to install).
    #[error("collective: {reason}")]
    Collective {
        /// What is wrong.
        reason: String,
    },
    /// `CUPHASE_DEVICE` has a value cuphase does not understand.
    #[error("CUPHASE_DEVICE={value:?} is not a device: use `cpu`, `cuda` or `cuda:N`")]
    BadDeviceSpec {
        /// The variable's value.
        value: String,
    },
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// NVRTC rejected generated CUDA C. Locations in the log are Rust locations, through the
/// `#line` directives of the generated code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    /// The kernel's name.
    pub kernel: String,
    /// The NVRTC options used.
    pub options: String,
    /// NVRTC's log.
    pub log: String,
    /// The Rust `file:line` of the first error.
    pub location: Option<String>,
    /// The generated CUDA C lines of that Rust line.
    pub generated: Option<String>,
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NVRTC could not compile kernel `{}`", self.kernel)?;
        if let Some(l) = &self.location {
            write!(f, " at {l}")?;
        }
        if let Some(g) = &self.generated {
            write!(
                f,
                "; the generated CUDA C of that line:\n    {}",
                g.replace('\n', "\n    ")
            )?;
        }
        write!(f, "\n{}\n(NVRTC options: {})", self.log, self.options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `main() -> Result<(), Error>` prints the error's `Debug`: the readable message.
    #[test]
    fn debug_is_the_readable_message() {
        let e = Error::OutOfBounds {
            kernel: "conv1d",
            file: "src/main.rs",
            line: 12,
            column: 9,
            array: "x",
            index: 4096,
            len: 4096,
            block: Dim3::new(16, 0, 0),
            thread: Dim3::new(0, 0, 0),
        };
        let text = "index out of bounds in kernel `conv1d` at src/main.rs:12:9: the len of `x` is 4096 but the index is 4096 (block (16, 0, 0), thread (0, 0, 0))";
        assert_eq!(e.to_string(), text);
        assert_eq!(format!("{e:?}"), text);
    }
}
