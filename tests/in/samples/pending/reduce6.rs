//! Pending (PENDING.md, P2): the CUDA samples' `reduce6<T, blockSize, nIsPow2>` as written
//! (NVIDIA/cuda-samples, `Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu`).
//! cuphase rejects the `bool` const parameter; `tests/in/samples/reduction.rs` holds the
//! compiled version with `const N_IS_POW2: u32`. Not compiled by anything.

use cuphase::prelude::*;

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
