//! The contract between cuphase's compiler and its runtime.
//!
//! The compiler writes code (CUDA C for NVRTC, Rust for the simulator, the host glue) that the
//! runtime executes and decodes; every fact both sides must agree on is defined here, once:
//!
//! - [`fault`]: why a generated check fires ([`FaultKind`]), where it is ([`FaultSite`]), and
//!   the layout of the fault record the GPU writes and the runtime reads ([`fault::record`]);
//! - [`WarpOp`]: the warp operations, with their Rust names;
//! - [`MmaShape`]: the warp-level matrix multiply-accumulates and their fragment layouts;
//! - [`WgmmaShape`]: Hopper's warpgroup multiply-accumulates, their operands' layout in shared
//!   memory and their accumulators';
//! - [`MatrixLoad`]: the warp-collective fragment loads from shared memory (`ldmatrix`);
//! - [`Distribution`]: how a `for` loop spreads its range over threads;
//! - [`Bound`]: the bounds of generic kernels and helpers, and the types each admits.
//!
//! The crate has no dependencies, so the proc-macro side and the runtime can both use it
//! without pulling anything into the other.

pub mod fault;
pub mod ldmatrix;
pub mod mma;
pub mod wgmma;

pub use fault::{FaultKind, FaultSite};
pub use ldmatrix::MatrixLoad;
pub use mma::MmaShape;
pub use wgmma::{WgmmaInput, WgmmaShape};

/// The warp operations.
///
/// The compiler lowers calls of the Rust names in [`WarpOp::ALL`] to these; the simulator runs
/// them by this enum and the CUDA writer maps each to a hardware shuffle or vote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WarpOp {
    /// `sync_warp()`.
    Sync,
    /// `warp_shuffle(v, lane)`.
    Shuffle,
    /// `warp_shuffle_xor(v, mask)`.
    ShuffleXor,
    /// `warp_shuffle_up(v, d)`.
    ShuffleUp,
    /// `warp_shuffle_down(v, d)`.
    ShuffleDown,
    /// `warp_ballot(p)`.
    Ballot,
    /// `warp_all(p)`.
    All,
    /// `warp_any(p)`.
    Any,
}

impl WarpOp {
    /// Every warp operation with the Rust function that calls it.
    pub const ALL: &'static [(&'static str, WarpOp)] = &[
        ("sync_warp", WarpOp::Sync),
        ("warp_shuffle", WarpOp::Shuffle),
        ("warp_shuffle_xor", WarpOp::ShuffleXor),
        ("warp_shuffle_up", WarpOp::ShuffleUp),
        ("warp_shuffle_down", WarpOp::ShuffleDown),
        ("warp_ballot", WarpOp::Ballot),
        ("warp_all", WarpOp::All),
        ("warp_any", WarpOp::Any),
    ];

    /// The operation a Rust function name calls.
    pub fn from_name(name: &str) -> Option<WarpOp> {
        WarpOp::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, op)| *op)
    }

    /// The Rust function that calls this operation.
    pub fn name(self) -> &'static str {
        WarpOp::ALL
            .iter()
            .find(|(_, op)| *op == self)
            .map_or("", |(n, _)| n)
    }

    /// The name of this enum's variant, for generated code that names it by path.
    pub fn variant(self) -> &'static str {
        match self {
            WarpOp::Sync => "Sync",
            WarpOp::Shuffle => "Shuffle",
            WarpOp::ShuffleXor => "ShuffleXor",
            WarpOp::ShuffleUp => "ShuffleUp",
            WarpOp::ShuffleDown => "ShuffleDown",
            WarpOp::Ballot => "Ballot",
            WarpOp::All => "All",
            WarpOp::Any => "Any",
        }
    }

    /// How many arguments the Rust call takes.
    pub fn arity(self) -> usize {
        match self {
            WarpOp::Sync => 0,
            WarpOp::Ballot | WarpOp::All | WarpOp::Any => 1,
            _ => 2,
        }
    }
}

/// How a kernel `for` loop spreads its range over threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Distribution {
    /// `for i in a..b` or `(a..b).step_by(s)`: every thread runs every iteration.
    Sequential,
    /// `threads_in_block(r)`: thread `t` takes `r[t], r[t + block_dim.x], ...`.
    ThreadsInBlock,
    /// `blocks_in_grid(r)`: block `b` takes `r[b], r[b + grid_dim.x], ...` (block-uniform).
    BlocksInGrid,
    /// `threads_in_grid(r)`: the global thread index `g` takes `r[g], r[g + total], ...`.
    ThreadsInGrid,
}

impl Distribution {
    /// Every distribution a kernel writes as a function around a range, with that function.
    pub const FUNCTIONS: &'static [(&'static str, Distribution)] = &[
        ("threads_in_block", Distribution::ThreadsInBlock),
        ("blocks_in_grid", Distribution::BlocksInGrid),
        ("threads_in_grid", Distribution::ThreadsInGrid),
    ];

    /// The function that writes this distribution (`None` for a plain range).
    pub fn function(self) -> Option<&'static str> {
        Distribution::FUNCTIONS
            .iter()
            .find(|(_, d)| *d == self)
            .map(|(n, _)| *n)
    }

    /// The name of this enum's variant, for generated code that names it by path.
    pub fn variant(self) -> &'static str {
        match self {
            Distribution::Sequential => "Sequential",
            Distribution::ThreadsInBlock => "ThreadsInBlock",
            Distribution::BlocksInGrid => "BlocksInGrid",
            Distribution::ThreadsInGrid => "ThreadsInGrid",
        }
    }
}

/// A bound of a generic kernel's or helper's type parameter (`T: Float`).
///
/// A bound is a finite set of scalar types: the compiler instantiates a generic kernel once
/// per admitted type, and the runtime implements its marker trait of the same name for exactly
/// these types. `half::f16` and `half::bf16` are admitted by none: a kernel body written for
/// `T: Float` may use float literals, which are not half values in Rust.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// `T: Scalar`: `bool`, the integers and the floats.
    Scalar,
    /// `T: Num`: the integers and the floats.
    Num,
    /// `T: Int`: the integers.
    Int,
    /// `T: Float`: `f32` and `f64`.
    Float,
}

const INTS: &[&str] = &[
    "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "usize",
];

impl Bound {
    /// Every bound, with the name of its trait.
    pub const ALL: &'static [(&'static str, Bound)] = &[
        ("Scalar", Bound::Scalar),
        ("Num", Bound::Num),
        ("Int", Bound::Int),
        ("Float", Bound::Float),
    ];

    /// The bound a trait name writes.
    pub fn from_name(name: &str) -> Option<Bound> {
        Bound::ALL.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
    }

    /// The Rust names of the types the bound admits, in instantiation order.
    pub fn admitted(self) -> Vec<&'static str> {
        let floats = ["f32", "f64"];
        match self {
            Bound::Float => floats.to_vec(),
            Bound::Int => INTS.to_vec(),
            Bound::Num => INTS.iter().copied().chain(floats).collect(),
            Bound::Scalar => std::iter::once("bool")
                .chain(INTS.iter().copied())
                .chain(floats)
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warp_names_round_trip() {
        for &(name, op) in WarpOp::ALL {
            assert_eq!(WarpOp::from_name(name), Some(op));
            assert_eq!(op.name(), name);
        }
        assert_eq!(WarpOp::from_name("warp_sum"), None);
    }

    #[test]
    fn bounds_nest() {
        let has = |b: Bound, t: &str| b.admitted().contains(&t);
        for t in Bound::Scalar.admitted() {
            assert_eq!(has(Bound::Num, t), t != "bool", "{t}");
            assert_eq!(
                has(Bound::Int, t) || has(Bound::Float, t),
                has(Bound::Num, t),
                "{t}"
            );
        }
        assert!(!has(Bound::Float, "half::f16") && !has(Bound::Scalar, "half::bf16"));
    }
}
