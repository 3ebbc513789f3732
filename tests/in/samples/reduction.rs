//! The CUDA samples' parallel reductions, `reduce0` to `reduce6`
//! (NVIDIA/cuda-samples, `Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu`),
//! instantiated for `T = float`. The shared array is the launch's dynamic shared memory, as in
//! the sample (`SharedMemory<T>`, sized by the host: `blockSize` elements, `2 * blockSize` for
//! blocks of at most 32 threads); `cg::sync(cta)` is `sync_block_threads()`, and the tile32
//! shuffles of `reduce4`..`reduce6` are `warp_shuffle_down` under `if tid < 32`
//! (`cta.thread_rank()` is `thread_idx().x` in the sample's one-dimensional blocks). C's
//! `for (s = a; cond; s = next)` loops are `while` loops, and `sdata[tid] = mySum = e` is two
//! statements (a Rust assignment has no value).

use cuphase::prelude::*;

/// `reduce0`: interleaved addressing, `tid % (2 * s) == 0` picks the active threads.
#[kernel]
pub fn reduce0(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    let sdata = shared_slice::<f32>();
    let tid = thread_idx().x;
    let i = block_idx().x * block_dim().x + thread_idx().x;
    sdata[tid] = if i < n { g_idata[i] } else { 0.0 };
    sync_block_threads();
    let mut s = 1u32;
    while s < block_dim().x {
        if tid % (2 * s) == 0 {
            sdata[tid] += sdata[tid + s];
        }
        sync_block_threads();
        s *= 2;
    }
    if tid == 0 {
        g_odata[block_idx().x] = sdata[0];
    }
}

/// `reduce1`: contiguous threads, strided index `2 * s * tid`.
#[kernel]
pub fn reduce1(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    let sdata = shared_slice::<f32>();
    let tid = thread_idx().x;
    let i = block_idx().x * block_dim().x + thread_idx().x;
    sdata[tid] = if i < n { g_idata[i] } else { 0.0 };
    sync_block_threads();
    let mut s = 1u32;
    while s < block_dim().x {
        let index = 2 * s * tid;
        if index < block_dim().x {
            sdata[index] += sdata[index + s];
        }
        sync_block_threads();
        s *= 2;
    }
    if tid == 0 {
        g_odata[block_idx().x] = sdata[0];
    }
}

/// `reduce2`: sequential addressing, `tid < s`.
#[kernel]
pub fn reduce2(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    let sdata = shared_slice::<f32>();
    let tid = thread_idx().x;
    let i = block_idx().x * block_dim().x + thread_idx().x;
    sdata[tid] = if i < n { g_idata[i] } else { 0.0 };
    sync_block_threads();
    let mut s = block_dim().x / 2;
    while s > 0 {
        if tid < s {
            sdata[tid] += sdata[tid + s];
        }
        sync_block_threads();
        s >>= 1;
    }
    if tid == 0 {
        g_odata[block_idx().x] = sdata[0];
    }
}

/// `reduce3`: each thread adds two elements while loading (`n / 2` threads).
#[kernel]
pub fn reduce3(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    let sdata = shared_slice::<f32>();
    let tid = thread_idx().x;
    let i = block_idx().x * (block_dim().x * 2) + thread_idx().x;
    let mut my_sum = if i < n { g_idata[i] } else { 0.0 };
    if i + block_dim().x < n {
        my_sum += g_idata[i + block_dim().x];
    }
    sdata[tid] = my_sum;
    sync_block_threads();
    let mut s = block_dim().x / 2;
    while s > 0 {
        if tid < s {
            my_sum = my_sum + sdata[tid + s];
            sdata[tid] = my_sum;
        }
        sync_block_threads();
        s >>= 1;
    }
    if tid == 0 {
        g_odata[block_idx().x] = my_sum;
    }
}

/// `reduce4<T, blockSize>`: the tree stops at 64 values; the first warp finishes with shuffles.
#[kernel]
pub fn reduce4<const BLOCK_SIZE: u32>(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    let sdata = shared_slice::<f32>();
    let tid = thread_idx().x;
    let i = block_idx().x * (block_dim().x * 2) + thread_idx().x;
    let mut my_sum = if i < n { g_idata[i] } else { 0.0 };
    if i + BLOCK_SIZE < n {
        my_sum += g_idata[i + BLOCK_SIZE];
    }
    sdata[tid] = my_sum;
    sync_block_threads();
    let mut s = block_dim().x / 2;
    while s > 32 {
        if tid < s {
            my_sum = my_sum + sdata[tid + s];
            sdata[tid] = my_sum;
        }
        sync_block_threads();
        s >>= 1;
    }
    if tid < 32 {
        // Fetch the final intermediate sum from the second warp.
        if BLOCK_SIZE >= 64 {
            my_sum += sdata[tid + 32];
        }
        let mut offset = 32 / 2;
        while offset > 0 {
            my_sum += warp_shuffle_down(my_sum, offset);
            offset /= 2;
        }
    }
    if tid == 0 {
        g_odata[block_idx().x] = my_sum;
    }
}

/// `reduce5<T, blockSize>`: the tree unrolled on the block size.
#[kernel]
pub fn reduce5<const BLOCK_SIZE: u32>(g_idata: &[f32], g_odata: &mut [f32], n: u32) {
    let sdata = shared_slice::<f32>();
    let tid = thread_idx().x;
    let i = block_idx().x * (BLOCK_SIZE * 2) + thread_idx().x;
    let mut my_sum = if i < n { g_idata[i] } else { 0.0 };
    if i + BLOCK_SIZE < n {
        my_sum += g_idata[i + BLOCK_SIZE];
    }
    sdata[tid] = my_sum;
    sync_block_threads();
    if BLOCK_SIZE >= 512 && tid < 256 {
        my_sum = my_sum + sdata[tid + 256];
        sdata[tid] = my_sum;
    }
    sync_block_threads();
    if BLOCK_SIZE >= 256 && tid < 128 {
        my_sum = my_sum + sdata[tid + 128];
        sdata[tid] = my_sum;
    }
    sync_block_threads();
    if BLOCK_SIZE >= 128 && tid < 64 {
        my_sum = my_sum + sdata[tid + 64];
        sdata[tid] = my_sum;
    }
    sync_block_threads();
    if tid < 32 {
        if BLOCK_SIZE >= 64 {
            my_sum += sdata[tid + 32];
        }
        let mut offset = 32 / 2;
        while offset > 0 {
            my_sum += warp_shuffle_down(my_sum, offset);
            offset /= 2;
        }
    }
    if tid == 0 {
        g_odata[block_idx().x] = my_sum;
    }
}

/// `reduce6<T, blockSize, nIsPow2>`: each thread first sums many elements in a grid-stride
/// loop (two per step when `n` is a power of two), then the unrolled tree of `reduce5`.
#[kernel]
pub fn reduce6<const BLOCK_SIZE: u32, const N_IS_POW2: bool>(
    g_idata: &[f32],
    g_odata: &mut [f32],
    n: u32,
) {
    let sdata = shared_slice::<f32>();
    let tid = thread_idx().x;
    let mut grid_size = BLOCK_SIZE * grid_dim().x;
    let mut my_sum = 0.0f32;
    if N_IS_POW2 {
        let mut i = block_idx().x * BLOCK_SIZE * 2 + thread_idx().x;
        grid_size <<= 1;
        while i < n {
            my_sum += g_idata[i];
            if i + BLOCK_SIZE < n {
                my_sum += g_idata[i + BLOCK_SIZE];
            }
            i += grid_size;
        }
    } else {
        let mut i = block_idx().x * BLOCK_SIZE + thread_idx().x;
        while i < n {
            my_sum += g_idata[i];
            i += grid_size;
        }
    }
    sdata[tid] = my_sum;
    sync_block_threads();
    if BLOCK_SIZE >= 512 && tid < 256 {
        my_sum = my_sum + sdata[tid + 256];
        sdata[tid] = my_sum;
    }
    sync_block_threads();
    if BLOCK_SIZE >= 256 && tid < 128 {
        my_sum = my_sum + sdata[tid + 128];
        sdata[tid] = my_sum;
    }
    sync_block_threads();
    if BLOCK_SIZE >= 128 && tid < 64 {
        my_sum = my_sum + sdata[tid + 64];
        sdata[tid] = my_sum;
    }
    sync_block_threads();
    if tid < 32 {
        if BLOCK_SIZE >= 64 {
            my_sum += sdata[tid + 32];
        }
        let mut offset = 32 / 2;
        while offset > 0 {
            my_sum += warp_shuffle_down(my_sum, offset);
            offset /= 2;
        }
    }
    if tid == 0 {
        g_odata[block_idx().x] = my_sum;
    }
}
