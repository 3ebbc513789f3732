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

/// `Comparator`: swaps the pairs at `a` and `b` when their keys are out of the order `dir`.
// changed from the original: the sample's `Comparator` takes four references to shared
// elements (`&mut s_key[pos]`, ...); a helper's `&mut T` parameter takes a local variable only,
// so this one takes the two arrays and the two positions.
#[device]
fn comparator(
    s_key: &mut [u32; SHARED_SIZE_LIMIT as usize],
    s_val: &mut [u32; SHARED_SIZE_LIMIT as usize],
    a: u32,
    b: u32,
    dir: u32,
) {
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
// changed from the original: the last merge starts at `stride = size / 2`, not
// `arrayLength / 2`. The two are equal for the lengths the sample takes (powers of two, at
// least 2: its host asserts it), and `size` is then a power of two by construction; from
// `arrayLength / 2` the proof cannot know that `stride` is a power of two, and rejects the comparator's
// pair `pos = 2 * t - (t & (stride - 1))` (PENDING.md). The block shape is declared
// (`SHARED_SIZE_LIMIT / 2` threads, as the sample launches it): with more threads, `t` and
// `t + SHARED_SIZE_LIMIT / 2` would meet.
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
            comparator(s_key, s_val, pos, pos + stride, ddd);
            stride >>= 1;
        }
        size <<= 1;
    }
    // ddd == dir for the last bitonic merge step.
    {
        let mut stride = size / 2;
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
    d_dst_key[base + (SHARED_SIZE_LIMIT / 2)] = s_key[thread_idx().x + (SHARED_SIZE_LIMIT / 2)];
    d_dst_val[base + (SHARED_SIZE_LIMIT / 2)] = s_val[thread_idx().x + (SHARED_SIZE_LIMIT / 2)];
}
