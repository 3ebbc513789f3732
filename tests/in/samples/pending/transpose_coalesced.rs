//! Pending (PENDING.md, P5): the CUDA samples' `transposeCoalesced` and
//! `transposeNoBankConflicts` as written (NVIDIA/cuda-samples,
//! `Samples/6_Performance/transpose/transpose.cu`), with `TILE_DIM` and `BLOCK_ROWS` module
//! constants. cuphase rejects the 2-D tiles sized by constants, and (with literal sizes) claims
//! a data race for `step_by(BLOCK_ROWS)`; `tests/in/samples/transpose.rs` holds the compiled
//! versions with literals. Not compiled by anything.

use cuphase::prelude::*;

pub const TILE_DIM: u32 = 32;
pub const BLOCK_ROWS: u32 = 8;

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
