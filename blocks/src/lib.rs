//! Block- and warp-cooperative building blocks for cuphase kernels, in the style of CUB's
//! `BlockReduce`/`BlockScan`/`BlockLoad` and GLASS: `#[device]` helpers that a kernel in any
//! crate calls by path, inlined at the call so that cuphase's barrier and race analyses see
//! through them exactly as through code written in the kernel.
//!
//! ```
//! use cuphase::prelude::*;
//! use cuphase_blocks::block_reduce_sum;
//!
//! /// One sum per block of 256 threads.
//! #[kernel(block = 256)]
//! fn block_sums(out: &mut [f32], x: &[f32]) {
//!     let scratch = shared::<[f32; 256]>();
//!     let i = global_idx().x;
//!     let v = if i < x.len() as u32 { x[i] } else { 0.0 };
//!     let total = block_reduce_sum(&mut scratch, v);
//!     if thread_idx().x == 0 {
//!         out[block_idx().x] = total;
//!     }
//! }
//!
//! let dev = Device::cpu()?;
//! let x = dev.upload(&vec![1.0f32; 1000])?;
//! let mut out = dev.zeros::<f32>(4)?;
//! block_sums.launch(&dev, Launch::new(4, 256), &mut out, &x)?;
//! assert_eq!(out.to_vec()?, [256.0, 256.0, 256.0, 232.0]);
//! # Ok::<(), cuphase::Error>(())
//! ```
//!
//! # Conventions
//!
//! - **Block shape.** The block operations are written for a one-dimensional block whose size
//!   is the length `N` of the shared array passed in (`scratch`, `tile`, `keys`): every thread
//!   of the block calls them, with the same array (control flow uniform across the block, as
//!   for any helper with a barrier; cuphase checks it). They check `block_dim().x == N` with
//!   an `assert!` (a kernel fault naming the line when the launch has another block size).
//!   [`block_load`], [`block_store`] and [`block_histogram`] take any block size.
//! - **Powers of two.** [`block_reduce_sum`], [`block_reduce_max`] and [`block_sort`] need `N`
//!   a power of two (asserted).
//! - **Warp operations** need whole warps: a block size that is a multiple of 32, every lane
//!   calling.
//! - **Trailing barrier.** A helper that writes shared memory ends on a barrier (cuphase's
//!   trailing sync), so the array can be written again right after the call; where the caller
//!   synchronizes anyway, or nothing after the call touches shared memory, cuphase drops that
//!   barrier at the call (the kernel's report says so). A helper that only reads or writes
//!   global memory ([`block_store`]) ends on none.
//! - **Results.** Sums are computed in a fixed tree order, the same on the GPU and on the
//!   simulator, so float results are bit-identical between them.

#![warn(missing_docs)]

use cuphase::prelude::*;

/// The sum of `v` over the 32 lanes of the warp, in every lane (a butterfly of
/// `warp_shuffle_xor`).
#[device]
pub fn warp_reduce_sum<T: Num>(v: T) -> T {
    let mut acc = v;
    let mut d = 16u32;
    while d > 0 {
        acc += warp_shuffle_xor(acc, d);
        d /= 2;
    }
    acc
}

/// The largest `v` of the 32 lanes of the warp, in every lane.
#[device]
pub fn warp_reduce_max<T: Num>(v: T) -> T {
    let mut acc = v;
    let mut d = 16u32;
    while d > 0 {
        acc = acc.max(warp_shuffle_xor(acc, d));
        d /= 2;
    }
    acc
}

/// The sum of `v` over lanes `0..=lane_id()` (inclusive scan across the warp,
/// Kogge-Stone with `warp_shuffle_up`).
#[device]
pub fn warp_inclusive_scan_sum<T: Num>(v: T) -> T {
    let lane = lane_id();
    let mut acc = v;
    let mut d = 1u32;
    while d < 32 {
        let below = warp_shuffle_up(acc, d);
        if lane >= d {
            acc += below;
        }
        d *= 2;
    }
    acc
}

/// The sum of `v` over lanes `0..lane_id()` (exclusive scan across the warp; zero in lane 0).
#[device]
pub fn warp_exclusive_scan_sum<T: Num>(v: T) -> T {
    let inclusive = warp_inclusive_scan_sum(v);
    let below = warp_shuffle_up(inclusive, 1);
    if lane_id() == 0 {
        0 as T
    } else {
        below
    }
}

/// The sum of `v` over the block's `N` threads, in every thread (a tree in shared memory,
/// `N` a power of two and the block's size). `scratch` is the block's shared array.
#[device]
pub fn block_reduce_sum<T: Num, const N: usize>(scratch: &mut [T; N], v: T) -> T {
    assert!(block_dim().x == N as u32 && (N as u32).is_power_of_two());
    let t = thread_idx().x;
    scratch[t] = v;
    sync_block_threads();
    let mut s = N as u32 / 2;
    while s > 0 {
        if t < s {
            scratch[t] += scratch[t + s];
        }
        sync_block_threads();
        s /= 2;
    }
    uniform_load(&scratch[0])
}

/// The largest `v` of the block's `N` threads, in every thread (as [`block_reduce_sum`]).
#[device]
pub fn block_reduce_max<T: Num, const N: usize>(scratch: &mut [T; N], v: T) -> T {
    assert!(block_dim().x == N as u32 && (N as u32).is_power_of_two());
    let t = thread_idx().x;
    scratch[t] = v;
    sync_block_threads();
    let mut s = N as u32 / 2;
    while s > 0 {
        if t < s {
            scratch[t] = scratch[t].max(scratch[t + s]);
        }
        sync_block_threads();
        s /= 2;
    }
    uniform_load(&scratch[0])
}

/// The sum of `v` over threads `0..=thread_idx().x` of the block's `N` threads (inclusive
/// scan, Hillis-Steele: `log2 N` steps of two barriers). Afterwards `scratch[k]` holds thread
/// `k`'s inclusive sum, so `scratch[N - 1]` is the block's total.
#[device]
pub fn block_inclusive_scan_sum<T: Num, const N: usize>(scratch: &mut [T; N], v: T) -> T {
    assert!(block_dim().x == N as u32);
    let t = thread_idx().x;
    scratch[t] = v;
    sync_block_threads();
    let mut acc = v;
    let mut d = 1u32;
    while d < N as u32 {
        if t >= d {
            acc += scratch[t - d];
        }
        sync_block_threads();
        scratch[t] = acc;
        sync_block_threads();
        d *= 2;
    }
    acc
}

/// The sum of `v` over threads `0..thread_idx().x` (exclusive scan; zero in thread 0), and
/// `scratch` as [`block_inclusive_scan_sum`] leaves it.
#[device]
pub fn block_exclusive_scan_sum<T: Num, const N: usize>(scratch: &mut [T; N], v: T) -> T {
    let t = thread_idx().x;
    let _inclusive = block_inclusive_scan_sum(scratch, v);
    if t == 0 {
        0 as T
    } else {
        scratch[t - 1]
    }
}

/// `tile[k] = input[base + k]` for every `k < N`, `fill` past the end of `input`; the block's
/// threads take the elements in turn (thread `t` the elements `t`, `t + block_dim().x`, ..), so
/// neighbouring threads read neighbouring words. Any block size.
#[device]
pub fn block_load<T: Scalar, const N: usize>(tile: &mut [T; N], input: &[T], base: u32, fill: T) {
    for k in threads_in_block(0..N as u32) {
        let i = base + k;
        tile[k] = if i < input.len() as u32 {
            input[i]
        } else {
            fill
        };
    }
}

/// `out[base + k] = tile[k]` for every `k < N` with `base + k < out.len()` (the block's
/// threads in turn, as [`block_load`]). Any block size; ends on no barrier (it writes only
/// global memory).
#[device]
pub fn block_store<T: Scalar, const N: usize>(tile: &[T; N], out: &mut [T], base: u32) {
    for k in threads_in_block(0..N as u32) {
        let i = base + k;
        if i < out.len() as u32 {
            out[i] = tile[k];
        }
    }
}

/// Sorts `keys` ascending (a bitonic network: `N` a power of two, the block's size; threads
/// `0..N / 2` each compare one pair a step, one barrier a step).
#[device]
pub fn block_sort<const N: usize>(keys: &mut [u32; N]) {
    assert!(block_dim().x == N as u32 && (N as u32).is_power_of_two());
    let t = thread_idx().x;
    let half = N as u32 / 2;
    let mut size = 2u32;
    while size <= N as u32 {
        let mut stride = size / 2;
        while stride > 0 {
            sync_block_threads();
            if t < half {
                let pos = 2 * t - (t & (stride - 1));
                let a = keys[pos];
                let b = keys[pos + stride];
                // Ascending where `pos` is in an even run of `size`, descending in an odd one;
                // the last merge (`size == N`) is all ascending.
                let ascending = (pos & size) == 0;
                if (a > b) == ascending {
                    keys[pos] = b;
                    keys[pos + stride] = a;
                }
            }
            stride /= 2;
        }
        size *= 2;
    }
}

/// Counts `key` (below `B`) into the block's `bins`: zeroes them, adds every thread's key with
/// shared atomics, and leaves the block's counts in `bins` (any block size). Keys `>= B` are
/// not counted.
#[device]
pub fn block_histogram<const B: usize>(bins: &mut [u32; B], key: u32) {
    for k in threads_in_block(0..B as u32) {
        bins[k] = 0;
    }
    sync_block_threads();
    if key < B as u32 {
        bins.atomic_add(key, 1);
    }
}
