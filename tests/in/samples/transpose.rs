//! The CUDA samples' matrix transposes (NVIDIA/cuda-samples,
//! `Samples/6_Performance/transpose/transpose.cu`): `transposeNaive`, `transposeCoalesced`
//! (a 32 x 32 shared tile) and `transposeNoBankConflicts` (a 32 x 33 tile), with
//! `TILE_DIM = 32` and `BLOCK_ROWS = 8`: blocks of 32 x 8 threads, each moving four elements.
//! As in the sample, `width` and `height` are multiples of `TILE_DIM` (no bounds tests).
//! The block shape is declared (`block = (32, 8)`): each thread's four rows `ty + i` are
//! distinct from the other threads' only for that shape.

use cuphase::prelude::*;

/// The tile's side.
pub const TILE_DIM: u32 = 32;
/// The block's rows: each thread moves `TILE_DIM / BLOCK_ROWS` elements.
pub const BLOCK_ROWS: u32 = 8;

/// `transposeNaive`: reads coalesced, writes strided.
#[kernel(block = (32, 8))]
pub fn transpose_naive(odata: &mut [f32], idata: &[f32], width: u32, height: u32) {
    let x_index = block_idx().x * TILE_DIM + thread_idx().x;
    let y_index = block_idx().y * TILE_DIM + thread_idx().y;
    let index_in = x_index + width * y_index;
    let index_out = y_index + height * x_index;
    for i in (0..TILE_DIM).step_by(BLOCK_ROWS as usize) {
        odata[index_out + i] = idata[index_in + i * width];
    }
}

/// `transposeCoalesced`: through a `TILE_DIM x TILE_DIM` tile (bank conflicts on the reads).
#[kernel(block = (32, 8))]
pub fn transpose_coalesced(odata: &mut [f32], idata: &[f32], width: u32, height: u32) {
    let tile = shared::<[[f32; TILE_DIM as usize]; TILE_DIM as usize]>();
    let mut x_index = block_idx().x * TILE_DIM + thread_idx().x;
    let mut y_index = block_idx().y * TILE_DIM + thread_idx().y;
    let index_in = x_index + y_index * width;
    x_index = block_idx().y * TILE_DIM + thread_idx().x;
    y_index = block_idx().x * TILE_DIM + thread_idx().y;
    let index_out = x_index + y_index * height;
    for i in (0..TILE_DIM).step_by(BLOCK_ROWS as usize) {
        tile[thread_idx().y + i][thread_idx().x] = idata[index_in + i * width];
    }
    sync_block_threads();
    for i in (0..TILE_DIM).step_by(BLOCK_ROWS as usize) {
        odata[index_out + i * height] = tile[thread_idx().x][thread_idx().y + i];
    }
}

/// `transposeNoBankConflicts`: the tile padded to `TILE_DIM + 1` columns.
#[kernel(block = (32, 8))]
pub fn transpose_no_bank_conflicts(odata: &mut [f32], idata: &[f32], width: u32, height: u32) {
    let tile = shared::<[[f32; TILE_DIM as usize + 1]; TILE_DIM as usize]>();
    let mut x_index = block_idx().x * TILE_DIM + thread_idx().x;
    let mut y_index = block_idx().y * TILE_DIM + thread_idx().y;
    let index_in = x_index + y_index * width;
    x_index = block_idx().y * TILE_DIM + thread_idx().x;
    y_index = block_idx().x * TILE_DIM + thread_idx().y;
    let index_out = x_index + y_index * height;
    for i in (0..TILE_DIM).step_by(BLOCK_ROWS as usize) {
        tile[thread_idx().y + i][thread_idx().x] = idata[index_in + i * width];
    }
    sync_block_threads();
    for i in (0..TILE_DIM).step_by(BLOCK_ROWS as usize) {
        odata[index_out + i * height] = tile[thread_idx().x][thread_idx().y + i];
    }
}
