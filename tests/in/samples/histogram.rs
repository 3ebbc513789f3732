//! The CUDA samples' 256-bin histogram (NVIDIA/cuda-samples,
//! `Samples/2_Concepts_and_Techniques/histogram/histogram256.cu`): `histogram256Kernel`
//! counts the four bytes of every word into one shared sub-histogram per warp with shared
//! atomics (`addByte`/`addWord`), merges the warps' sub-histograms per block and writes one
//! partial histogram per block; `mergeHistogram256Kernel` sums the partial histograms, one
//! block per bin, with a shared tree. The constants are `histogram_common.h`'s.

use cuphase::prelude::*;

pub const HISTOGRAM256_BIN_COUNT: u32 = 256;
const UINT_BITS: u32 = 32;
const LOG2_WARP_SIZE: u32 = 5;
/// Warps, and so sub-histograms, per block.
pub const WARP_COUNT: u32 = 6;
/// Threads per block of `histogram256_kernel`.
pub const HISTOGRAM256_THREADBLOCK_SIZE: u32 = WARP_COUNT * (1 << LOG2_WARP_SIZE);
const HISTOGRAM256_THREADBLOCK_MEMORY: usize =
    WARP_COUNT as usize * HISTOGRAM256_BIN_COUNT as usize;
const TAG_MASK: u32 = 0xFFFF_FFFF;
/// Threads per block of `merge_histogram256_kernel`.
pub const MERGE_THREADBLOCK_SIZE: u32 = 256;

/// `addByte`: one shared atomic increment of the warp's bin `data`.
#[device]
fn add_byte(s_warp_hist: &mut [u32], data: u32, _thread_tag: u32) {
    s_warp_hist.atomic_add(data, 1);
}

/// `addWord`: the four bytes of a word.
#[device]
fn add_word(s_warp_hist: &mut [u32], data: u32, tag: u32) {
    add_byte(s_warp_hist, data & 0xFF, tag);
    add_byte(s_warp_hist, (data >> 8) & 0xFF, tag);
    add_byte(s_warp_hist, (data >> 16) & 0xFF, tag);
    add_byte(s_warp_hist, (data >> 24) & 0xFF, tag);
}

/// `histogram256Kernel`: one partial histogram per block in `d_partial_histograms`.
#[kernel(block = 192)]
pub fn histogram256_kernel(d_partial_histograms: &mut [u32], d_data: &[u32], data_count: u32) {
    let s_hist = shared::<[u32; HISTOGRAM256_THREADBLOCK_MEMORY]>();
    let warp_base = (thread_idx().x >> LOG2_WARP_SIZE) * HISTOGRAM256_BIN_COUNT;
    let s_warp_hist = &mut s_hist[warp_base as usize..];
    for i in 0..(HISTOGRAM256_THREADBLOCK_MEMORY as u32 / HISTOGRAM256_THREADBLOCK_SIZE) {
        s_hist[thread_idx().x + i * HISTOGRAM256_THREADBLOCK_SIZE] = 0;
    }
    let tag = thread_idx().x << (UINT_BITS - LOG2_WARP_SIZE);
    sync_block_threads();
    let mut pos = block_idx().x * block_dim().x + thread_idx().x;
    while pos < data_count {
        let data = d_data[pos];
        add_word(s_warp_hist, data, tag);
        pos += block_dim().x * grid_dim().x;
    }
    sync_block_threads();
    let mut bin = thread_idx().x;
    while bin < HISTOGRAM256_BIN_COUNT {
        let mut sum = 0u32;
        for i in 0..WARP_COUNT {
            sum += s_hist[bin + i * HISTOGRAM256_BIN_COUNT] & TAG_MASK;
        }
        d_partial_histograms[block_idx().x * HISTOGRAM256_BIN_COUNT + bin] = sum;
        bin += HISTOGRAM256_THREADBLOCK_SIZE;
    }
}

/// `mergeHistogram256Kernel`: block `b` sums bin `b` of every partial histogram.
#[kernel(block = 256)]
pub fn merge_histogram256_kernel(
    d_histogram: &mut [u32],
    d_partial_histograms: &[u32],
    histogram_count: u32,
) {
    let mut sum = 0u32;
    let mut i = thread_idx().x;
    while i < histogram_count {
        sum += d_partial_histograms[block_idx().x + i * HISTOGRAM256_BIN_COUNT];
        i += MERGE_THREADBLOCK_SIZE;
    }
    let data = shared::<[u32; MERGE_THREADBLOCK_SIZE as usize]>();
    data[thread_idx().x] = sum;
    let mut stride = MERGE_THREADBLOCK_SIZE / 2;
    while stride > 0 {
        sync_block_threads();
        if thread_idx().x < stride {
            data[thread_idx().x] += data[thread_idx().x + stride];
        }
        stride >>= 1;
    }
    if thread_idx().x == 0 {
        d_histogram[block_idx().x] = data[0];
    }
}
