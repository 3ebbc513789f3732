//! Pending (PENDING.md, P4): the CUDA samples' `bitonicSortShared` and `Comparator` as written
//! (NVIDIA/cuda-samples, `Samples/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu`,
//! `sortingNetworks_common.cuh`), with the block shape the sample launches declared
//! (`SHARED_SIZE_LIMIT / 2 = 512` threads). cuphase rejects the `&mut s_key[pos]` arguments of
//! `Comparator`; with those changed, it cannot prove the last merge, whose stride starts at
//! `arrayLength / 2` (a power of two only by the host's assertion).
//! `tests/in/samples/sorting_networks.rs` holds the compiled version. Not compiled by anything.

use cuphase::prelude::*;

pub const SHARED_SIZE_LIMIT: u32 = 1024;

/// `Comparator`: swaps the pairs when their keys are out of the order `dir`.
#[device]
fn comparator(key_a: &mut u32, val_a: &mut u32, key_b: &mut u32, val_b: &mut u32, dir: u32) {
    let mut t: u32;
    if (*key_a > *key_b) as u32 == dir {
        t = *key_a;
        *key_a = *key_b;
        *key_b = t;
        t = *val_a;
        *val_a = *val_b;
        *val_b = t;
    }
}

/// `bitonicSortShared`.
#[kernel(block = 512)]
pub fn bitonic_sort_shared(
    d_dst_key: &mut [u32],
    d_dst_val: &mut [u32],
    d_src_key: &[u32],
    d_src_val: &[u32],
    array_length: u32,
    dir: u32,
) {
    let s_key = shared::<[u32; SHARED_SIZE_LIMIT as usize]>();
    let s_val = shared::<[u32; SHARED_SIZE_LIMIT as usize]>();
    let base = block_idx().x * SHARED_SIZE_LIMIT + thread_idx().x;
    s_key[thread_idx().x] = d_src_key[base];
    s_val[thread_idx().x] = d_src_val[base];
    s_key[thread_idx().x + (SHARED_SIZE_LIMIT / 2)] = d_src_key[base + (SHARED_SIZE_LIMIT / 2)];
    s_val[thread_idx().x + (SHARED_SIZE_LIMIT / 2)] = d_src_val[base + (SHARED_SIZE_LIMIT / 2)];
    let mut size = 2u32;
    while size < array_length {
        // Bitonic merge.
        let ddd = dir ^ ((thread_idx().x & (size / 2)) != 0) as u32;
        let mut stride = size / 2;
        while stride > 0 {
            sync_block_threads();
            let pos = 2 * thread_idx().x - (thread_idx().x & (stride - 1));
            comparator(
                &mut s_key[pos],
                &mut s_val[pos],
                &mut s_key[pos + stride],
                &mut s_val[pos + stride],
                ddd,
            );
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
            comparator(
                &mut s_key[pos],
                &mut s_val[pos],
                &mut s_key[pos + stride],
                &mut s_val[pos + stride],
                dir,
            );
            stride >>= 1;
        }
    }
    sync_block_threads();
    d_dst_key[base] = s_key[thread_idx().x];
    d_dst_val[base] = s_val[thread_idx().x];
    d_dst_key[base + (SHARED_SIZE_LIMIT / 2)] = s_key[thread_idx().x + (SHARED_SIZE_LIMIT / 2)];
    d_dst_val[base + (SHARED_SIZE_LIMIT / 2)] = s_val[thread_idx().x + (SHARED_SIZE_LIMIT / 2)];
}
