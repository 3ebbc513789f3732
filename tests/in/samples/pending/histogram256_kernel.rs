//! Pending (PENDING.md, P5): the CUDA samples' `histogram256Kernel`, `addByte` and `addWord`
//! as written (NVIDIA/cuda-samples,
//! `Samples/2_Concepts_and_Techniques/histogram/histogram256.cu`), `s_WarpHist` as a sub-slice.
//! cuphase rejects the reference to a sub-slice; with the offset passed instead, the unused
//! `threadTag` makes NVRTC warn. `tests/in/samples/histogram.rs` holds the compiled version.
//! Not compiled by anything.

use cuphase::prelude::*;

pub const HISTOGRAM256_BIN_COUNT: u32 = 256;
const UINT_BITS: u32 = 32;
const LOG2_WARP_SIZE: u32 = 5;
pub const WARP_COUNT: u32 = 6;
pub const HISTOGRAM256_THREADBLOCK_SIZE: u32 = WARP_COUNT * (1 << LOG2_WARP_SIZE);
const HISTOGRAM256_THREADBLOCK_MEMORY: usize =
    WARP_COUNT as usize * HISTOGRAM256_BIN_COUNT as usize;
const TAG_MASK: u32 = 0xFFFF_FFFF;
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
