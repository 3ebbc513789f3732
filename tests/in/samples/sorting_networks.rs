//! The CUDA samples' bitonic sort of short arrays in shared memory (NVIDIA/cuda-samples,
//! `Samples/2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu`, `bitonicSortShared`,
//! with `Comparator` of `sortingNetworks_common.cuh`): each block sorts `SHARED_SIZE_LIMIT`
//! (key, value) pairs, as one or more arrays of `array_length` elements (a power of two), with
//! `SHARED_SIZE_LIMIT / 2` threads; at each comparator step thread `t` compares the pairs at
//! `pos = 2 * t - (t & (stride - 1))` and `pos + stride`. `dir` is 1 for ascending order. The
//! sample moves the four pointers to the thread's first element; here that offset is an index
//! base. C's `for` loops with computed steps are `while` loops.

use cuphase::prelude::*;

/// Pairs per block.
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

/// `bitonicSortShared`, with the block shape the sample launches declared
/// (`SHARED_SIZE_LIMIT / 2` threads): with more threads, `t` and `t + SHARED_SIZE_LIMIT / 2`
/// would meet.
#[kernel(block = 512)]
pub fn bitonic_sort_shared(
    d_dst_key: &mut [u32],
    d_dst_val: &mut [u32],
    d_src_key: &[u32],
    d_src_val: &[u32],
    array_length: u32,
    dir: u32,
) {
    // changed from the original: the host's `assert(arrayLength is a power of two)` is stated
    // in the kernel too. The last merge's stride starts at `arrayLength / 2`, and for other
    // lengths two threads meet (`arrayLength = 6`: threads 0 and 3 both write `s_key[3]`).
    assert!(array_length.is_power_of_two());
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
