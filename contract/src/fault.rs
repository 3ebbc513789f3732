//! Faults: the checks generated code makes (an index out of bounds, a division by zero, a
//! zero `step_by`, `panic!`), where each is, and how the GPU reports the first one.
//!
//! The compiler numbers the checks of a kernel variant ([`FaultSite`]s) and writes them into
//! the host glue; generated CUDA C writes the first fault of a launch into the [`record`] the
//! runtime passes, and the runtime decodes the record into an error at the next synchronising
//! call. The simulator raises the same errors directly.

/// Why a generated check fires. `S` is the text type: `String` in the compiler, which writes
/// the messages into the host glue, `&'static str` in the runtime, which reads them there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FaultKind<S = &'static str> {
    /// An index past the end of the named array.
    OutOfBounds(S),
    /// Integer division by zero or with overflow.
    Div,
    /// Integer remainder by zero or with overflow.
    Rem,
    /// A zero (or negative) `step_by`.
    ZeroStep,
    /// `panic!`, a failed `assert!`, `clamp` with `min > max`: the message.
    Panic(S),
}

impl<S> FaultKind<S> {
    /// The name of this enum's variant, for generated code that names it by path.
    pub fn variant(&self) -> &'static str {
        match self {
            FaultKind::OutOfBounds(_) => "OutOfBounds",
            FaultKind::Div => "Div",
            FaultKind::Rem => "Rem",
            FaultKind::ZeroStep => "ZeroStep",
            FaultKind::Panic(_) => "Panic",
        }
    }

    /// The array name or the message the kind carries, if any.
    pub fn text(&self) -> Option<&S> {
        match self {
            FaultKind::OutOfBounds(s) | FaultKind::Panic(s) => Some(s),
            FaultKind::Div | FaultKind::Rem | FaultKind::ZeroStep => None,
        }
    }
}

/// A fault check in generated code, with its Rust location (a helper inlined into a kernel
/// may be in another file than the kernel).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FaultSite<S = &'static str> {
    /// What it catches.
    pub kind: FaultKind<S>,
    /// Rust file.
    pub file: S,
    /// Rust line.
    pub line: u32,
    /// Rust column (from 1).
    pub col: u32,
}

/// The fault record: `WORDS` 32-bit words in device memory, zero while no fault happened.
///
/// The first faulting thread of a launch claims the record by an atomic compare-and-swap of
/// [`FLAG`](record::FLAG) from 0 to 1, then writes the site number, the kernel id, its block
/// and thread, and two 64-bit values whose meaning depends on the kind: the index and the
/// length for an out-of-bounds index; for a division or remainder, 0 (by zero) or 1 (with
/// overflow); for a loop step, 0 (zero) or 1 (negative).
pub mod record {
    /// Words in the record.
    pub const WORDS: usize = 16;
    /// Bytes in the record.
    pub const BYTES: usize = WORDS * 4;
    /// Nonzero once a fault is recorded.
    pub const FLAG: usize = 0;
    /// The [`FaultSite`](super::FaultSite) number in the kernel variant.
    pub const SITE: usize = 1;
    /// The kernel id the runtime passed.
    pub const KERNEL: usize = 2;
    /// `blockIdx.x`, `.y`, `.z` at `BLOCK`, `BLOCK + 1`, `BLOCK + 2`.
    pub const BLOCK: usize = 3;
    /// `threadIdx.x`, `.y`, `.z` at `THREAD`, `THREAD + 1`, `THREAD + 2`.
    pub const THREAD: usize = 6;
    /// The first 64-bit value, in words `A` (low) and `A + 1` (high); 8-byte aligned.
    pub const A: usize = 10;
    /// The second 64-bit value, in words `B` (low) and `B + 1` (high); 8-byte aligned.
    pub const B: usize = 12;
}

#[cfg(test)]
mod tests {
    use super::record::*;

    #[test]
    fn record_fields_fit_and_do_not_overlap() {
        let fields = [
            (FLAG, 1),
            (SITE, 1),
            (KERNEL, 1),
            (BLOCK, 3),
            (THREAD, 3),
            (A, 2),
            (B, 2),
        ];
        let mut used = [false; WORDS];
        for (start, len) in fields {
            for w in used.iter_mut().skip(start).take(len) {
                assert!(!*w, "word used twice");
                *w = true;
            }
            assert!(start + len <= WORDS);
        }
        // The 64-bit values are written as `unsigned long long` elements.
        assert_eq!(A % 2, 0);
        assert_eq!(B % 2, 0);
    }
}
