//! PENDING, compiled by nothing: Rodinia pathfinder `dynproc_kernel`, as written.
//! `../PENDING.md` says why it does not compile or run as it stands; the changed version
//! that is compiled and tested is in `../rodinia.rs`.

use cuphase::prelude::*;

/// Rodinia's `IN_RANGE(x, min, max)` macro.
#[device]
fn in_range(x: i32, min: i32, max: i32) -> bool {
    x >= min && x <= max
}

/// Rodinia's `MIN(a, b)` macro.
#[device]
fn min_of(a: i32, b: i32) -> i32 {
    if a <= b {
        a
    } else {
        b
    }
}

/// pathfinder's block size (threads per block, and the length of its shared rows).
pub const PF_BLOCK_SIZE: usize = 256;
/// pathfinder's halo width along one direction per iteration.
const PF_HALO: i32 = 1;

/// Rodinia pathfinder (`cuda/pathfinder/pathfinder.cu`, `dynproc_kernel`): `iteration` rows of
/// the dynamic-programming wall in one launch, each block computing a pyramid whose base is
/// its `BLOCK_SIZE` columns and whose top is the non-overlapping small block it writes.
#[kernel]
pub fn dynproc_kernel(
    iteration: i32,
    gpu_wall: &[i32],
    gpu_src: &[i32],
    gpu_results: &mut [i32],
    cols: i32,
    rows: i32,
    start_step: i32,
    border: i32,
) {
    let prev = shared::<[i32; PF_BLOCK_SIZE]>();
    let result = shared::<[i32; PF_BLOCK_SIZE]>();
    let _ = rows;

    let bx = block_idx().x as i32;
    let tx = thread_idx().x as i32;

    let small_block_cols = PF_BLOCK_SIZE as i32 - iteration * PF_HALO * 2;
    let blk_x = small_block_cols * bx - border;
    let blk_x_max = blk_x + PF_BLOCK_SIZE as i32 - 1;
    let xidx = blk_x + tx;

    let valid_x_min = if blk_x < 0 { -blk_x } else { 0 };
    let valid_x_max = if blk_x_max > cols - 1 {
        PF_BLOCK_SIZE as i32 - 1 - (blk_x_max - cols + 1)
    } else {
        PF_BLOCK_SIZE as i32 - 1
    };

    let mut w = tx - 1;
    let mut e = tx + 1;
    w = if w < valid_x_min { valid_x_min } else { w };
    e = if e > valid_x_max { valid_x_max } else { e };

    let is_valid = in_range(tx, valid_x_min, valid_x_max);

    if in_range(xidx, 0, cols - 1) {
        prev[tx as u32] = gpu_src[xidx as u32];
    }
    sync_block_threads();
    let mut computed = false;
    for i in 0..iteration {
        computed = false;
        if in_range(tx, i + 1, PF_BLOCK_SIZE as i32 - i - 2) && is_valid {
            computed = true;
            let left = prev[w as u32];
            let up = prev[tx as u32];
            let right = prev[e as u32];
            let mut shortest = min_of(left, up);
            shortest = min_of(shortest, right);
            let index = cols * (start_step + i) + xidx;
            result[tx as u32] = shortest + gpu_wall[index as u32];
        }
        sync_block_threads();
        if i == iteration - 1 {
            break;
        }
        if computed {
            prev[tx as u32] = result[tx as u32];
        }
        sync_block_threads();
    }

    if computed {
        gpu_results[xidx as u32] = result[tx as u32];
    }
}
