//! Pending (PENDING.md, P8): `bitonicSortShared` with the changes that get it past the first
//! errors (literal array sizes and offsets, a declared block of 512 threads, `Comparator` taking
//! the arrays and two positions), still rejected: the race proof cannot model
//! `pos = 2 * t - (t & (stride - 1))` with a loop variable `stride`. Not compiled by anything
//! (`unsafe_check.rs` runs it on the simulator with the comparator under `unsafe`).
//!
//! The CUDA samples' bitonic sort of short arrays in shared memory (NVIDIA/cuda-samples,
//! `Samples/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu`, `bitonicSortShared`,
//! with `Comparator` of `sortingNetworks_common.cuh`): each block sorts `SHARED_SIZE_LIMIT`
//! (key, value) pairs, as one or more arrays of `array_length` elements, with
//! `SHARED_SIZE_LIMIT / 2` threads; each comparator step, thread `t` compares the pair at
//! `pos = 2 * t - (t & (stride - 1))` and `pos + stride`. `dir` is 1 for ascending order.
//! The sample moves the four pointers to the thread's first element; here that offset is an
//! index base.

use cuphase::prelude::*;

/// Pairs per block (the sample's 1024).
pub const SHARED_SIZE_LIMIT: u32 = 1024;

/// `Comparator`: swaps the pairs at `a` and `b` when their keys are out of the order `dir`.
// changed from the original: the sample's `Comparator` takes four references to shared
// elements; a helper's `&mut T` takes a local variable only, so this one takes the two
// arrays and the two positions.
#[device]
fn comparator(s_key: &mut [u32; 1024], s_val: &mut [u32; 1024], a: u32, b: u32, dir: u32) {
    let mut t: u32;
    if (s_key[a] > s_key[b]) as u32 == dir {
        t = s_key[a];
        s_key[a] = s_key[b];
        s_key[b] = t;
        t = s_val[a];
        s_val[a] = s_val[b];
        s_val[b] = t;
    }
}

/// `bitonicSortShared`.
// changed from the original: the shared arrays' length is the literal 1024
// (`SHARED_SIZE_LIMIT`), as only one shared array of a kernel may be sized by a constant, and
// so is the half 512 in the indices (with the constant, the proof reports a data race); the
// block shape is declared (512 threads, so `t` and `t + 512` never meet); `Comparator` takes
// the arrays and positions (see `comparator`).
#[kernel(block = 512)]
pub fn bitonic_sort_shared(
    d_dst_key: &mut [u32],
    d_dst_val: &mut [u32],
    d_src_key: &[u32],
    d_src_val: &[u32],
    array_length: u32,
    dir: u32,
) {
    let s_key = shared::<[u32; 1024]>();
    let s_val = shared::<[u32; 1024]>();
    let base = block_idx().x * SHARED_SIZE_LIMIT + thread_idx().x;
    s_key[thread_idx().x] = d_src_key[base];
    s_val[thread_idx().x] = d_src_val[base];
    s_key[thread_idx().x + 512] = d_src_key[base + 512];
    s_val[thread_idx().x + 512] = d_src_val[base + 512];
    let mut size = 2u32;
    while size < array_length {
        // Bitonic merge.
        let ddd = dir ^ ((thread_idx().x & (size / 2)) != 0) as u32;
        let mut stride = size / 2;
        while stride > 0 {
            sync_block_threads();
            let pos = 2 * thread_idx().x - (thread_idx().x & (stride - 1));
            comparator(s_key, s_val, pos, pos + stride, ddd);
            stride >>= 1;
        }
        size <<= 1;
    }
    // ddd == dir for the last bitonic merge step.
    {
        let mut stride = array_length / 2;
        while stride > 0 {
            sync_block_threads();
            let pos = 2 * thread_idx().x - (thread_idx().x & (stride - 1));
            comparator(s_key, s_val, pos, pos + stride, dir);
            stride >>= 1;
        }
    }
    sync_block_threads();
    d_dst_key[base] = s_key[thread_idx().x];
    d_dst_val[base] = s_val[thread_idx().x];
    d_dst_key[base + 512] = s_key[thread_idx().x + 512];
    d_dst_val[base + 512] = s_val[thread_idx().x + 512];
}
