//! The kernel language: the builtins a `#[kernel]` or `#[device]` body calls, as searchable
//! items with their signatures.
//!
//! These items exist in the documentation only (the module is compiled for rustdoc and
//! doctests, not into the crate): inside a kernel, `#[kernel]` translates each call into CUDA C
//! and into the simulator's code, so a kernel names them without importing anything. Outside a
//! kernel they do not exist, so host code cannot call them by mistake. The README's section
//! "The kernel language" lists the rest of what kernels may write (Rust's own operators,
//! methods, loops, structs, `Option`, helpers). Each example here runs on the simulator as a
//! doctest.
//!
//! Every index builtin is a [`Dim3`] of `u32`s: read `.x`, `.y`, `.z`.
#![allow(clippy::missing_panics_doc, unused_variables)]

use crate::Dim3;

/// Why a documentation item is never called: `#[kernel]` replaces every call.
const TRANSLATED: &str =
    "a kernel builtin exists in the documentation only; #[kernel] translates its calls";

/// The thread's index in its block (CUDA's `threadIdx`).
///
/// ```
/// use cuphase::prelude::*;
///
/// #[kernel]
/// fn ids(out: &mut [u32]) {
///     let i = global_idx().x;
///     out[i] = thread_idx().x + 1000 * block_idx().x;
/// }
///
/// let dev = Device::cpu()?;
/// let mut out = dev.zeros::<u32>(8)?;
/// ids.launch(&dev, Launch::new(2, 4), &mut out)?;
/// assert_eq!(out.to_vec()?, [0, 1, 2, 3, 1000, 1001, 1002, 1003]);
/// # Ok::<(), cuphase::Error>(())
/// ```
pub fn thread_idx() -> Dim3 {
    unreachable!("{TRANSLATED}")
}

/// The block's index in the grid (CUDA's `blockIdx`).
pub fn block_idx() -> Dim3 {
    unreachable!("{TRANSLATED}")
}

/// The block's extent (CUDA's `blockDim`): the `block` of the [`Launch`](crate::Launch).
pub fn block_dim() -> Dim3 {
    unreachable!("{TRANSLATED}")
}

/// The grid's extent in blocks (CUDA's `gridDim`).
pub fn grid_dim() -> Dim3 {
    unreachable!("{TRANSLATED}")
}

/// `block_idx() * block_dim() + thread_idx()` on each axis, in wrapping `u32` arithmetic as
/// the GPU computes it: the thread's index in the whole grid.
pub fn global_idx() -> Dim3 {
    unreachable!("{TRANSLATED}")
}

/// The thread's lane in its warp, `0..32` (a warp is 32 consecutive linear thread indices).
pub fn lane_id() -> u32 {
    unreachable!("{TRANSLATED}")
}

/// 32, the threads of a warp.
pub fn warp_size() -> u32 {
    unreachable!("{TRANSLATED}")
}

/// A barrier for the block's threads (CUDA's `__syncthreads()`): every thread of the block
/// waits here until all have arrived, and shared-memory writes before it are seen by reads
/// after it. The compiler proves that every thread of the block reaches the same barriers (a
/// barrier under a thread-dependent condition is a compile error), and that no two threads
/// race on shared memory between two barriers; `#[kernel(sync = "auto")]` places them.
///
/// ```
/// use cuphase::prelude::*;
///
/// #[kernel]
/// fn reverse(out: &mut [u32]) {
///     let tile = shared::<[u32; 64]>();
///     let t = thread_idx().x;
///     tile[t] = t;
///     sync_block_threads();
///     out[t] = tile[63 - t];
/// }
///
/// let dev = Device::cpu()?;
/// let mut out = dev.zeros::<u32>(64)?;
/// reverse.launch(&dev, Launch::new(1, 64), &mut out)?;
/// assert_eq!(out.to_vec()?, (0..64).rev().collect::<Vec<u32>>());
/// # Ok::<(), cuphase::Error>(())
/// ```
pub fn sync_block_threads() {
    unreachable!("{TRANSLATED}")
}

/// A barrier for the warp's threads (CUDA's `__syncwarp()`). It orders nothing between warps.
pub fn sync_warp() {
    unreachable!("{TRANSLATED}")
}

/// A shared array of the block: `let tile = shared::<[f32; 256]>();` or
/// `shared::<[[f32; 16]; 16]>()` (indexed `tile[y][x]`), of scalars, `[T; N]` rows or
/// `DeviceStruct`s. Every thread of the block sees the same array; it starts zeroed. Sized by
/// literals or module constants (a constant expression sizes it at launch).
pub fn shared<A>() -> &'static mut A {
    unreachable!("{TRANSLATED}")
}

/// The block's dynamic shared memory as a slice of `T` (one per kernel), sized by
/// [`Launch::shared_bytes`](crate::Launch::shared_bytes): `buf.len()` is
/// `shared_bytes / size_of::<T>()`.
pub fn shared_slice<T>() -> &'static mut [T] {
    unreachable!("{TRANSLATED}")
}

/// `uniform_load(&tile[i])`: a barrier, then every thread reads the one element, so the
/// result is block-uniform (a condition on it may guard a barrier).
pub fn uniform_load<T: Copy>(element: &T) -> T {
    unreachable!("{TRANSLATED}")
}

/// `unsafe { assume_uniform(v) }`: the programmer vouches that `v` is the same in every thread
/// of the block, so a condition on it may guard a barrier. The simulator checks the promise
/// across the block (`Error::BarrierDivergence` when it is broken); the GPU trusts it.
///
/// # Safety
///
/// `v` must be the same in every thread of the block wherever the result decides a barrier.
pub unsafe fn assume_uniform<T: Copy>(v: T) -> T {
    unreachable!("{TRANSLATED}")
}

/// A memory fence at block scope (CUDA's `__threadfence_block()`): no barrier.
pub fn fence_block() {
    unreachable!("{TRANSLATED}")
}

/// A memory fence at device scope (CUDA's `__threadfence()`): no barrier.
pub fn fence_device() {
    unreachable!("{TRANSLATED}")
}

/// A memory fence at system scope (CUDA's `__threadfence_system()`): no barrier.
pub fn fence_system() {
    unreachable!("{TRANSLATED}")
}

/// The value of `v` in lane `lane` of the warp (CUDA's `__shfl_sync`), on any scalar. Every
/// thread of the warp must reach it (warp-uniform control flow); a lane that does not exist
/// (a partial last warp) is not read: the thread keeps its own value.
pub fn warp_shuffle<T: Copy>(v: T, lane: u32) -> T {
    unreachable!("{TRANSLATED}")
}

/// The value of `v` in lane `lane_id() ^ mask` (CUDA's `__shfl_xor_sync`).
pub fn warp_shuffle_xor<T: Copy>(v: T, mask: u32) -> T {
    unreachable!("{TRANSLATED}")
}

/// The value of `v` in lane `lane_id() - d`, or the thread's own below lane `d` (CUDA's
/// `__shfl_up_sync`).
pub fn warp_shuffle_up<T: Copy>(v: T, d: u32) -> T {
    unreachable!("{TRANSLATED}")
}

/// The value of `v` in lane `lane_id() + d`, or the thread's own past the warp's last lane
/// (CUDA's `__shfl_down_sync`).
///
/// ```
/// use cuphase::prelude::*;
///
/// #[kernel]
/// fn warp_sums(out: &mut [u32]) {
///     let t = thread_idx().x;
///     let mut v = t;
///     let mut d = 16u32;
///     while d > 0 {
///         v += warp_shuffle_down(v, d);
///         d /= 2;
///     }
///     if lane_id() == 0 {
///         out[t / 32] = v;
///     }
/// }
///
/// let dev = Device::cpu()?;
/// let mut out = dev.zeros::<u32>(2)?;
/// warp_sums.launch(&dev, Launch::new(1, 64), &mut out)?;
/// assert_eq!(out.to_vec()?, [(0..32).sum::<u32>(), (32..64).sum()]);
/// # Ok::<(), cuphase::Error>(())
/// ```
pub fn warp_shuffle_down<T: Copy>(v: T, d: u32) -> T {
    unreachable!("{TRANSLATED}")
}

/// The lanes of the warp whose `p` holds, as bits of a `u32` (CUDA's `__ballot_sync`).
pub fn warp_ballot(p: bool) -> u32 {
    unreachable!("{TRANSLATED}")
}

/// Whether `p` holds in every lane of the warp (CUDA's `__all_sync`); warp-uniform.
pub fn warp_all(p: bool) -> bool {
    unreachable!("{TRANSLATED}")
}

/// Whether `p` holds in some lane of the warp (CUDA's `__any_sync`); warp-uniform.
pub fn warp_any(p: bool) -> bool {
    unreachable!("{TRANSLATED}")
}

/// Warp-level matrix multiply-accumulate on the tensor cores (PTX's `mma.sync.m16n8k16` with
/// `f32` accumulators): `acc += a * b` for a 16x16 `A` and a 16x8 `B` of `bf16` or `f16`,
/// spread over the 32 lanes of the warp as fragments. Each lane holds 8 elements of `A`, 4 of
/// `B` and 4 of the 16x8 accumulator, in PTX's layouts (`g = lane_id() / 4`,
/// `q = lane_id() % 4`):
///
/// - `a[e]` is `A[g + 8 * ((e >> 1) & 1)][2 * q + (e & 1) + 8 * (e >> 2)]`;
/// - `b[e]` is `B[2 * q + (e & 1) + 8 * (e >> 1)][g]`;
/// - `acc[e]` is `C[g + 8 * (e >> 1)][2 * q + (e & 1)]`.
///
/// The fragments are thread-local arrays, or rows of two-dimensional ones (`&mut acc[i]`,
/// `&fa[i]`). Every thread of the warp must reach the call (warp-uniform control flow, checked
/// at compile time), and the kernel launches only with blocks whose x extent is a multiple of
/// 32 (checked at launch). Needs sm_80 or later on a GPU. The simulator rounds each element of
/// the result once (exact products, summed in `f64`); the tensor cores' rounding inside a step
/// is NVIDIA's, so a GPU's result may differ in the last bits (see the README).
///
/// ```
/// use cuphase::half::bf16;
/// use cuphase::prelude::*;
///
/// // A warp a block: A is all ones, B holds k + 1 in row k, so every element of A * B is
/// // 1 + 2 + ... + 16 = 136.
/// #[kernel(block = 32)]
/// fn ones_times_rows(out: &mut [f32]) {
///     let lane = thread_idx().x as usize;
///     let i = global_idx().x as usize;
///     let q = lane % 4;
///     let a: [bf16; 8] = [bf16::ONE; 8];
///     let mut b: [bf16; 4] = [bf16::ZERO; 4];
///     for e in 0..4 {
///         b[e] = bf16::from_f32((2 * q + (e & 1) + 8 * (e >> 1) + 1) as f32);
///     }
///     let mut acc = [0.0f32; 4];
///     mma_m16n8k16(&mut acc, &a, &b);
///     for e in 0..4 {
///         out[i * 4 + e] = acc[e];
///     }
/// }
///
/// let dev = Device::cpu()?;
/// let mut out = dev.zeros::<f32>(256)?;
/// ones_times_rows.launch(&dev, Launch::new(2, 32), &mut out)?;
/// assert_eq!(out.to_vec()?, vec![136.0; 256]);
/// # Ok::<(), cuphase::Error>(())
/// ```
pub fn mma_m16n8k16<T: Copy>(acc: &mut [f32; 4], a: &[T; 8], b: &[T; 4]) {
    unreachable!("{TRANSLATED}")
}

/// Warp-level matrix multiply-accumulate in TF32 (PTX's `mma.sync.m16n8k8.tf32`): `acc +=
/// a * b` for a 16x8 `A` and an 8x8 `B` of `f32`, each input rounded to TF32 first (10
/// mantissa bits, to nearest, ties away from zero: [`crate::sim::tf32`]). Each lane holds 4
/// elements of `A`, 2 of `B` and 4 of the accumulator (`g = lane_id() / 4`, `q = lane_id() %
/// 4`): `a[e]` is `A[g + 8 * (e & 1)][q + 4 * (e >> 1)]`, `b[e]` is `B[q + 4 * e][g]`, and
/// `acc` is laid out as for [`mma_m16n8k16`], whose rules it shares.
pub fn mma_m16n8k8_tf32(acc: &mut [f32; 4], a: &[f32; 4], b: &[f32; 2]) {
    unreachable!("{TRANSLATED}")
}

/// Loads matrix fragments from shared memory for the whole warp at once (PTX's
/// `ldmatrix.sync.aligned.m8n8`, sm_75 and later): every lane gives one 16-byte row, `row` of a
/// two-dimensional shared array of `[bf16; 8]`, `[f16; 8]` or `[f32; 4]` rows, and receives
/// its elements of the warp's rows in `frag`, a thread-local array (or a row of one) of the
/// same element type.
///
/// The fragment's length picks how many 8x8 matrices (of 16-bit elements; 8x4 of `f32`) the
/// warp loads: `[T; 2]`, `[T; 4]`, `[T; 8]` load one, two or four (`[f32; 1]`, `[f32; 2]`,
/// `[f32; 4]`). Lanes `8 j .. 8 j + 7` give the rows of matrix `j` (the others' rows are
/// checked against the tile's bounds, not read); with `p` elements of a matrix per lane (2 of
/// 16 bits, 1 of `f32`), `frag[p j + h]` is element `p * (lane % 4) + h` of the row lane
/// `8 j + lane / 4` gave. That is the layout of `mma`'s fragments: lane `l` giving row
/// `l % 16`, columns `8 * (l / 16) ..` of a row-major 16x16 `A` tile loads its
/// [`mma_m16n8k16`] `A` fragment into a `[bf16; 8]`, and the same of a 16x8 `f32` tile its
/// [`mma_m16n8k8_tf32`] `A` fragment into an `[f32; 4]`. See [`ldmatrix_trans`] for `B`.
///
/// Rows whose addresses fall in distinct 16-byte columns of the 128 bytes of shared memory's
/// banks load without conflicts: pad a tile's rows to an odd number of 16-byte chunks. Every
/// thread of the warp must reach the call (warp-uniform control flow, checked at compile
/// time); blocks must be whole warps (checked at launch). For the race proof and the
/// simulator's race detection, each lane reads the row it gives.
///
/// ```
/// use cuphase::half::bf16;
/// use cuphase::prelude::*;
///
/// // The 16x16 matrix A[r][c] = 16 r + c, row-major in rows of 8 elements (two a row of A):
/// // each lane gets its `mma_m16n8k16` A fragment.
/// #[kernel(block = 32)]
/// fn a_fragment(out: &mut [f32], a: &[[bf16; 8]]) {
///     let tile = shared::<[[bf16; 8]; 32]>();
///     let lane = thread_idx().x as usize;
///     tile[lane] = a[lane];
///     sync_block_threads();
///     let mut fa = [bf16::ZERO; 8];
///     ldmatrix(&mut fa, &tile[(lane % 16) * 2 + lane / 16]);
///     for e in 0..8 {
///         out[lane * 8 + e] = fa[e].to_f32();
///     }
/// }
///
/// let dev = Device::cpu()?;
/// let rows: Vec<[bf16; 8]> = (0..32)
///     .map(|i| std::array::from_fn(|e| bf16::from_f32((i * 8 + e) as f32)))
///     .collect();
/// let a = dev.upload(&rows)?;
/// let mut out = dev.zeros::<f32>(256)?;
/// a_fragment.launch(&dev, Launch::new(1, 32), &mut out, &a)?;
/// let out = out.to_vec()?;
/// for lane in 0..32 {
///     let (g, q) = (lane / 4, lane % 4);
///     for e in 0..8 {
///         let (r, c) = (g + 8 * ((e >> 1) & 1), 2 * q + (e & 1) + 8 * (e >> 2));
///         assert_eq!(out[lane * 8 + e], (16 * r + c) as f32);
///     }
/// }
/// # Ok::<(), cuphase::Error>(())
/// ```
pub fn ldmatrix<T: Copy, const N: usize, const R: usize>(frag: &mut [T; N], row: &[T; R]) {
    unreachable!("{TRANSLATED}")
}

/// [`ldmatrix`] transposed (PTX's `.trans`, 16-bit elements only): lane `l` receives a column
/// pair instead, `frag[2 j + h]` being element `l / 4` of the row lane `8 j + 2 (l % 4) + h`
/// gave. Lane `l` giving row `l % 16` (that is, `k`) of a row-major 16x8 `B` tile loads its
/// [`mma_m16n8k16`] `B` fragment into a `[bf16; 4]`: the 8 columns of each row are one 16-byte
/// row of the tile. The rules of [`ldmatrix`] apply.
pub fn ldmatrix_trans<T: Copy, const N: usize, const R: usize>(frag: &mut [T; N], row: &[T; R]) {
    unreachable!("{TRANSLATED}")
}

/// Starts an asynchronous copy of one element of a slice in global memory into shared memory
/// (CUDA's `cp.async`, sm_80 and later): `dst` is an element of a shared array, or a row
/// `tile[r]` of a two-dimensional one, of the type of `src`'s element, 4, 8 or 16 bytes in all
/// (`f32`, `[f32; 4]`, `[bf16; 8]`, ...), from a read-only slice (`&[T]`: an element of a
/// `&mut` slice could change while the copy is in flight). The copy belongs to the thread's
/// current group:
/// [`cp_async_commit`] closes the group, [`cp_async_wait`] waits for groups. Until the thread
/// waits for it, the copy is in flight: `dst` may hold its old value or the new one.
///
/// The compiler checks the pipeline: an access to `dst`, by any thread (this one included),
/// while the copy may be in flight is a compile error that names the copy and the
/// `cp_async_wait` that lands it; other threads see the copied value only after a barrier that
/// follows the wait. `sync = "auto"` places the waits and barriers. The simulator reads `src`
/// at the copy and writes `dst` at the wait, so a read before the wait sees the old value,
/// and its race detection reports it.
///
/// ```
/// use cuphase::prelude::*;
///
/// // Two stages: the copy of the next slice of `x` overlaps the sum of the current one.
/// #[kernel(block = 64)]
/// fn sum_slices(out: &mut [f32], x: &[f32], slices: u32) {
///     let tile = shared::<[[f32; 64]; 2]>();
///     let t = thread_idx().x as usize;
///     let n = slices as usize;
///     let mut acc = 0.0f32;
///     cp_async(&mut tile[0][t], &x[t]);
///     cp_async_commit();
///     for s in 0..n {
///         if s + 1 < n {
///             cp_async(&mut tile[(s + 1) % 2][t], &x[(s + 1) * 64 + t]);
///         }
///         cp_async_commit();
///         cp_async_wait(1); // all but the latest group have landed: slice `s` has
///         sync_block_threads(); // every thread's copies of slice `s` are visible
///         acc += tile[s % 2][63 - t];
///         sync_block_threads(); // every thread is done with slice `s` before its refill
///     }
///     out[t] = acc;
/// }
///
/// let dev = Device::cpu()?;
/// let x: Vec<f32> = (0..64 * 3).map(|i| i as f32).collect();
/// let x = dev.upload(&x)?;
/// let mut out = dev.zeros::<f32>(64)?;
/// sum_slices.launch(&dev, Launch::new(1, 64), &mut out, &x, 3)?;
/// // Thread t sums x[63 - t], x[127 - t], x[191 - t].
/// assert_eq!(out.to_vec()?[0], 63.0 + 127.0 + 191.0);
/// # Ok::<(), cuphase::Error>(())
/// ```
pub fn cp_async<T: Copy>(dst: &mut T, src: &T) {
    unreachable!("{TRANSLATED}")
}

/// Closes the thread's current group of asynchronous copies ([`cp_async`]): the copies issued
/// since its last commit (possibly none) become one group, which [`cp_async_wait`] counts.
pub fn cp_async_commit() {
    unreachable!("{TRANSLATED}")
}

/// Waits until at most the `n` latest groups the thread committed may still be in flight: the
/// copies of every earlier group have landed in shared memory (CUDA's `cp.async.wait_group`).
/// Copies not committed yet are not waited for. `n` is an integer literal or a constant (0 to
/// 255); `cp_async_wait(0)` waits for every committed group. Only the thread's own copies
/// land: other threads read them after a barrier that follows their wait.
pub fn cp_async_wait(n: u32) {
    unreachable!("{TRANSLATED}")
}

/// Hopper's warpgroup matrix multiply-accumulate (PTX's `wgmma.mma_async`, sm_90 only): `acc
/// += A * Bᵀ` for a 64x16 tile `A` and an Nx16 tile `B` of `bf16` (or `f16`) in shared memory,
/// into the warpgroup's 64xN `f32` accumulator. One function per `N`, a multiple of 8 from 8
/// to 256 (`wgmma_m64n8k16` .. `wgmma_m64n256k16`); `wgmma_m64n{N}k8_tf32` multiplies 64x8 by
/// Nx8 tiles of `f32` read as TF32 (their low 13 mantissa bits ignored).
///
/// A warpgroup is four consecutive warps (128 threads); each thread holds `N / 2` accumulator
/// values: value `4 j + e` of thread `t` of its warpgroup (warp `w = t / 32`, lane `l = t %
/// 32`) is row `16 w + l / 4 + 8 (e / 2)`, column `8 j + 2 (l % 4) + e % 2`. Both tiles are
/// read from shared arrays of 16-byte rows (`shared::<[[bf16; 8]; R]>()`, `R` a multiple of
/// 64), holding matrices 64 elements (8 rows of the array) a row: row `m` of the `A` tile is
/// rows `ra + 8 m` and `ra + 8 m + 1` of `a_tile`, row `n` of `B` rows `rb + 8 n` and `rb + 8 n
/// + 1` of `b_tile`; `ra % 64` and `rb % 64` must be 0, 2, 4 or 6 (a fault otherwise). cuphase
/// lays those arrays out in the 128-byte swizzle the hardware reads; indices stay plain.
///
/// `A` may instead come from registers (16-bit inputs): `&a` a thread-local `[bf16; 8]` (or a
/// row of a `[[bf16; 8]; C]`) holding its warp's 16 rows of the 64x16 `A` as
/// [`mma_m16n8k16`]'s `A` fragment: element `i` of lane `l` of warp `w` is row `16 w + l / 4 +
/// 8 ((i / 2) % 2)`, column `2 (l % 4) + i % 2 + 8 (i / 4)`. That is where accumulator values
/// `8 c + i` are, `16 c` columns to the right, so `p[i] = bf16::from_f32(f(s[8 c + i]))` makes
/// the fragment of columns `16 c ..` of an accumulator `s` (attention's `p = softmax(q kᵀ)`).
///
/// The multiply is asynchronous: it reads its operands and writes `acc` until the thread's
/// [`wgmma_wait`] that covers its group ([`wgmma_commit`]). Touching `acc` (or an `A` fragment
/// in registers) before then, or writing a tile another warpgroup's multiply may still read,
/// is a compile error; so is a
/// multiply where the block does not go as one, or in a kernel without a fixed block shape of
/// whole warpgroups (`#[kernel(block = (..))]`, a multiple of 128 threads).
///
/// ```
/// use cuphase::half::bf16;
/// use cuphase::prelude::*;
///
/// #[kernel(block = 128)]
/// fn ones_times_rows(out: &mut [f32]) {
///     let a_tile = shared::<[[bf16; 8]; 512]>();
///     let b_tile = shared::<[[bf16; 8]; 64]>();
///     let t = thread_idx().x as usize;
///     // `A` is ones; row `n` of `B` holds `n` (its 16 values are chunks `8 n`, `8 n + 1`).
///     for i in 0..4 {
///         for e in 0..8 {
///             a_tile[i * 128 + t][e] = bf16::ONE;
///         }
///     }
///     if t < 64 {
///         for e in 0..8 {
///             b_tile[t][e] = bf16::from_f32((t / 8) as f32);
///         }
///     }
///     sync_block_threads();
///     let mut acc = [0.0f32; 4];
///     wgmma_m64n8k16(&mut acc, &a_tile[0], &b_tile[0]);
///     wgmma_commit();
///     wgmma_wait(0);
///     for e in 0..4 {
///         out[t * 4 + e] = acc[e];
///     }
/// }
///
/// let dev = Device::cpu()?;
/// let mut out = dev.zeros::<f32>(512)?;
/// ones_times_rows.launch(&dev, Launch::new(1, 128), &mut out)?;
/// let got = out.to_vec()?;
/// for t in 0..128 {
///     for e in 0..4 {
///         assert_eq!(got[t * 4 + e], (16 * (2 * (t % 4) + e % 2)) as f32);
///     }
/// }
/// # Ok::<(), cuphase::Error>(())
/// ```
pub fn wgmma_m64n128k16<T: Copy, const R: usize>(
    acc: &mut [f32; 64],
    a_tile: &[T; R],
    b_tile: &[T; R],
) {
    unreachable!("{TRANSLATED}")
}

/// Closes the thread's current group of warpgroup multiplies ([`wgmma_m64n128k16`]): those
/// issued since its last commit become one group, which [`wgmma_wait`] counts.
pub fn wgmma_commit() {
    unreachable!("{TRANSLATED}")
}

/// Waits until at most the `n` latest groups of warpgroup multiplies the thread committed may
/// still be in flight (PTX's `wgmma.wait_group`): the multiplies of every earlier group have
/// read their tiles and written their accumulators. `n` is an integer literal or a constant
/// (0 to 7). A tile another warpgroup read is free to refill once that warpgroup has waited
/// and a barrier follows.
pub fn wgmma_wait(n: u32) {
    unreachable!("{TRANSLATED}")
}

/// The strided loop of alpaka's style: `for i in threads_in_block(a..b)` gives thread `t` the
/// values `a + t`, `a + t + block_dim().x`, ... (also `.step_by(s)` and `a..=b`).
pub fn threads_in_block(range: std::ops::Range<u32>) -> std::ops::Range<u32> {
    unreachable!("{TRANSLATED}")
}

/// `for b in blocks_in_grid(a..b)`: block `k` takes `a + k`, `a + k + grid_dim().x`, ...
pub fn blocks_in_grid(range: std::ops::Range<u32>) -> std::ops::Range<u32> {
    unreachable!("{TRANSLATED}")
}

/// `for i in threads_in_grid(a..b)`: the grid-stride loop, thread `g` of the grid taking
/// `a + g`, `a + g + grid_dim().x * block_dim().x`, ...
pub fn threads_in_grid(range: std::ops::Range<u32>) -> std::ops::Range<u32> {
    unreachable!("{TRANSLATED}")
}

/// The atomics of shared arrays and `&mut` slices in kernels: each combines element `i` with
/// `v` atomically and returns the old value (32- and 64-bit integers; `atomic_add` also on
/// `f32` and `f64`).
///
/// ```
/// use cuphase::prelude::*;
///
/// #[kernel]
/// fn histogram(bins: &mut [u32], values: &[u32]) {
///     let i = global_idx().x as usize;
///     if i < values.len() {
///         bins.atomic_add(values[i] % 4, 1);
///     }
/// }
///
/// let dev = Device::cpu()?;
/// let values = dev.upload(&(0..100u32).collect::<Vec<_>>())?;
/// let mut bins = dev.zeros::<u32>(4)?;
/// histogram.launch(&dev, Launch::cover(100, 32), &mut bins, &values)?;
/// assert_eq!(bins.to_vec()?, [25, 25, 25, 25]);
/// # Ok::<(), cuphase::Error>(())
/// ```
pub trait Atomics<T> {
    /// `a[i] += v`.
    fn atomic_add(&mut self, i: u32, v: T) -> T;
    /// `a[i] -= v` (integers, wrapping).
    fn atomic_sub(&mut self, i: u32, v: T) -> T;
    /// `a[i] = a[i].min(v)`.
    fn atomic_min(&mut self, i: u32, v: T) -> T;
    /// `a[i] = a[i].max(v)`.
    fn atomic_max(&mut self, i: u32, v: T) -> T;
    /// `a[i] &= v`.
    fn atomic_and(&mut self, i: u32, v: T) -> T;
    /// `a[i] |= v`.
    fn atomic_or(&mut self, i: u32, v: T) -> T;
    /// `a[i] ^= v`.
    fn atomic_xor(&mut self, i: u32, v: T) -> T;
    /// `a[i] = v`.
    fn atomic_exchange(&mut self, i: u32, v: T) -> T;
}

/// `println!`/`print!` in a kernel: a literal format string over scalars (`{}`, `{:?}`, `{x}`,
/// `{0}`, a width, a precision, `<`, `>` and `0`). On the GPU it is CUDA's `printf`; on the
/// simulator the same text, each call written whole. `{}` of a float prints as C's `%g` on
/// both back ends (`0.333333`); integers, `bool` and `{:.N}` as Rust prints them.
/// [`Launch::print_ids`](crate::Launch::print_ids) starts each call's text with its block and
/// thread. The simulator writes at most 10,000 calls a launch, then says how many it dropped;
/// the GPU keeps what fits its `printf` buffer (1 MiB by default).
///
/// ```
/// use cuphase::prelude::*;
///
/// #[kernel]
/// fn hello(x: &[f32]) {
///     let t = thread_idx().x;
///     if t < 2 {
///         println!("thread {t}: {:.2} {}", x[t as usize], x[t as usize]);
///     }
/// }
///
/// let dev = Device::cpu()?;
/// let x = dev.upload(&[0.5f32, 1.0 / 3.0])?;
/// hello.launch(&dev, Launch::new(1, 32), &x)?; // thread 0: 0.50 0.5, thread 1: 0.33 0.333333
/// # Ok::<(), cuphase::Error>(())
/// ```
pub mod println {}
