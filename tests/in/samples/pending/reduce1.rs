//! Pending (PENDING.md, P1): the CUDA samples' `reduce1` as written (NVIDIA/cuda-samples,
//! `Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu`). cuphase claims a data
//! race that needs `s = 0`, which the loop never reaches; `tests/in/samples/reduction.rs` holds
//! the compiled version with the loop test `s > 0 && s < blockDim.x`. Not compiled by anything.

use cuphase::prelude::*;

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
