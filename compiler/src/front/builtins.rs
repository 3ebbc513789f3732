//! The one table of the kernel language's own functions (warp operations and strided loops
//! take their spellings from the contract, which the simulator shares).
//!
//! Every other part of the front end asks [`BuiltinFn::from_name`] whether a name is the
//! language's (`thread_idx`, `sync_block_threads`, `warp_shuffle`, ...) and which it is; a call
//! of any other path is a `#[device]` helper call. Naga's `map_built_in` is the model: the
//! spellings live here and nowhere else.

use crate::ir::{Builtin, Distribution, FenceScope, MmaShape, WarpOp};

/// A function the kernel language defines itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinFn {
    /// `thread_idx()`, `block_idx()`, `block_dim()`, `grid_dim()`, `global_idx()` (a `Dim3`),
    /// `lane_id()`, `warp_size()` (a `u32`).
    Index(Builtin),
    /// `sync_block_threads()`.
    SyncBlockThreads,
    /// `sync_warp()`, `warp_shuffle(..)`, ...
    Warp(WarpOp),
    /// `shared::<[T; N]>()`.
    Shared,
    /// `shared_slice::<T>()`.
    SharedSlice,
    /// `uniform_load(&tile[i])`.
    UniformLoad,
    /// `assume_uniform(v)`.
    AssumeUniform,
    /// `threads_in_block(r)`, `blocks_in_grid(r)`, `threads_in_grid(r)`: never `Sequential`.
    Loop(Distribution),
    /// `fence_block()`, `fence_device()`, `fence_system()`.
    Fence(FenceScope),
    /// `mma_m16n8k16(&mut acc, &a, &b)`, `mma_m16n8k8_tf32(..)`: the fragments' element type
    /// picks the [`MmaShape`].
    Mma(&'static str),
    /// `ldmatrix(&mut frag, &tile[r])`, or `ldmatrix_trans(..)` when `true`.
    LoadMatrix(bool),
    /// `cp_async(&mut tile[i], &src[j])`.
    AsyncCopy,
    /// `cp_async_commit()`.
    AsyncCommit,
    /// `cp_async_wait(n)`.
    AsyncWait,
    /// `wgmma_m64n{N}k16(&mut acc, &a_tile[ra], &b_tile[rb])`, `wgmma_m64n{N}k8_tf32(..)`: the
    /// tiles' element type picks the [`WgmmaShape`](crate::ir::WgmmaShape).
    Wgmma,
    /// `wgmma_commit()`.
    WgmmaCommit,
    /// `wgmma_wait(n)`.
    WgmmaWait,
}

/// Every builtin function with its Rust name.
const TABLE: &[(&str, BuiltinFn)] = &[
    ("thread_idx", BuiltinFn::Index(Builtin::ThreadIdx)),
    ("block_idx", BuiltinFn::Index(Builtin::BlockIdx)),
    ("block_dim", BuiltinFn::Index(Builtin::BlockDim)),
    ("grid_dim", BuiltinFn::Index(Builtin::GridDim)),
    ("global_idx", BuiltinFn::Index(Builtin::GlobalIdx)),
    ("lane_id", BuiltinFn::Index(Builtin::LaneId)),
    ("warp_size", BuiltinFn::Index(Builtin::WarpSize)),
    ("sync_block_threads", BuiltinFn::SyncBlockThreads),
    ("shared", BuiltinFn::Shared),
    ("shared_slice", BuiltinFn::SharedSlice),
    ("uniform_load", BuiltinFn::UniformLoad),
    ("assume_uniform", BuiltinFn::AssumeUniform),
    ("fence_block", BuiltinFn::Fence(FenceScope::Block)),
    ("fence_device", BuiltinFn::Fence(FenceScope::Device)),
    ("fence_system", BuiltinFn::Fence(FenceScope::System)),
    ("ldmatrix", BuiltinFn::LoadMatrix(false)),
    ("ldmatrix_trans", BuiltinFn::LoadMatrix(true)),
    ("cp_async", BuiltinFn::AsyncCopy),
    ("cp_async_commit", BuiltinFn::AsyncCommit),
    ("cp_async_wait", BuiltinFn::AsyncWait),
    ("wgmma_commit", BuiltinFn::WgmmaCommit),
    ("wgmma_wait", BuiltinFn::WgmmaWait),
];

impl BuiltinFn {
    /// The builtin a function name calls, if it is one.
    pub fn from_name(name: &str) -> Option<BuiltinFn> {
        if let Some(op) = WarpOp::from_name(name) {
            return Some(BuiltinFn::Warp(op));
        }
        if let Some((_, d)) = Distribution::FUNCTIONS.iter().find(|(n, _)| *n == name) {
            return Some(BuiltinFn::Loop(*d));
        }
        if let Some(s) = MmaShape::ALL.iter().find(|s| s.function() == name) {
            return Some(BuiltinFn::Mma(s.function()));
        }
        if crate::ir::WgmmaShape::is_function(name) {
            return Some(BuiltinFn::Wgmma);
        }
        TABLE.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
    }

    /// The Rust name of the builtin.
    pub fn name(self) -> &'static str {
        match self {
            BuiltinFn::Warp(op) => return op.name(),
            BuiltinFn::Loop(d) => return d.function().unwrap_or_default(),
            BuiltinFn::Mma(name) => return name,
            BuiltinFn::Wgmma => return "wgmma_m64nNk16",
            _ => {}
        }
        TABLE
            .iter()
            .find(|(_, b)| *b == self)
            .map_or("", |(n, _)| n)
    }

    /// Whether the builtin is a `Dim3` index (`thread_idx()` ..), whose value is a struct.
    pub fn is_dim3(self) -> bool {
        matches!(
            self,
            BuiltinFn::Index(
                Builtin::ThreadIdx
                    | Builtin::BlockIdx
                    | Builtin::BlockDim
                    | Builtin::GridDim
                    | Builtin::GlobalIdx
            )
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &(name, b) in TABLE {
            assert_eq!(BuiltinFn::from_name(name), Some(b));
            assert_eq!(b.name(), name);
        }
        for &(name, d) in Distribution::FUNCTIONS {
            assert_eq!(BuiltinFn::from_name(name), Some(BuiltinFn::Loop(d)));
            assert_eq!(BuiltinFn::Loop(d).name(), name);
        }
        for &(name, op) in WarpOp::ALL {
            assert_eq!(BuiltinFn::from_name(name), Some(BuiltinFn::Warp(op)));
            assert_eq!(BuiltinFn::Warp(op).name(), name);
        }
        assert_eq!(BuiltinFn::from_name("thread_id"), None);
    }
}
