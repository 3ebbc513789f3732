//! Pending (PENDING.md, P1): the CUDA samples' `reduce0` as written (NVIDIA/cuda-samples,
//! `Samples/2_Concepts_and_Techniques/reduction/reduction_kernel.cu`). cuphase rejects it: the
//! race proof cannot decide `tid % (2 * s) == 0` with a loop variable `s`. No compiled version.
//! Not compiled by anything.

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
