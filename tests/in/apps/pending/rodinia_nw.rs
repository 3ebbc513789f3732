//! PENDING, compiled by nothing: Rodinia nw `needle_cuda_shared_1` and `_2`, as written.
//! `../PENDING.md` says why it does not compile or run as it stands; the changed version
//! that is compiled and tested is in `../rodinia.rs`.

use cuphase::prelude::*;

/// nw's block size: a block of `NW_BLOCK_SIZE` threads computes one tile of the score matrix.
pub const NW_BLOCK_SIZE: usize = 16;

/// nw's `maximum(a, b, c)` (`cuda/nw/needle_kernel.cu`).
#[device]
fn maximum(a: i32, b: i32, c: i32) -> i32 {
    let k = if a <= b { b } else { a };
    if k <= c {
        c
    } else {
        k
    }
}

/// Rodinia nw (`cuda/nw/needle_kernel.cu`, `needle_cuda_shared_1`): Needleman-Wunsch over the
/// tiles of the upper-left half of the matrix, one anti-diagonal of tiles per launch (block
/// `bx` takes tile (`bx`, `i - 1 - bx`)); in a tile, the threads sweep its anti-diagonals
/// through a (BLOCK_SIZE+1)^2 shared tile that holds the row above and the column left of it.
#[kernel]
pub fn needle_cuda_shared_1(
    referrence: &[i32],
    matrix_cuda: &mut [i32],
    cols: i32,
    penalty: i32,
    i: i32,
    block_width: i32,
) {
    let _ = block_width;
    let bx = block_idx().x as i32;
    let tx = thread_idx().x as i32;

    let b_index_x = bx;
    let b_index_y = i - 1 - bx;

    let bs = NW_BLOCK_SIZE as i32;
    let index = cols * bs * b_index_y + bs * b_index_x + tx + (cols + 1);
    let index_n = cols * bs * b_index_y + bs * b_index_x + tx + 1;
    let index_w = cols * bs * b_index_y + bs * b_index_x + cols;
    let index_nw = cols * bs * b_index_y + bs * b_index_x;

    let temp = shared::<[[i32; NW_BLOCK_SIZE + 1]; NW_BLOCK_SIZE + 1]>();
    let reference = shared::<[[i32; NW_BLOCK_SIZE]; NW_BLOCK_SIZE]>();

    if tx == 0 {
        temp[tx as u32][0] = matrix_cuda[index_nw as u32];
    }

    for ty in 0..bs {
        reference[ty as u32][tx as u32] = referrence[(index + cols * ty) as u32];
    }

    sync_block_threads();

    temp[(tx + 1) as u32][0] = matrix_cuda[(index_w + cols * tx) as u32];

    sync_block_threads();

    temp[0][(tx + 1) as u32] = matrix_cuda[index_n as u32];

    sync_block_threads();

    for m in 0..bs {
        if tx <= m {
            let t_index_x = tx + 1;
            let t_index_y = m - tx + 1;
            let (y, x) = (t_index_y as u32, t_index_x as u32);
            temp[y][x] = maximum(
                temp[y - 1][x - 1] + reference[y - 1][x - 1],
                temp[y][x - 1] - penalty,
                temp[y - 1][x] - penalty,
            );
        }
        sync_block_threads();
    }

    for m in (0..=bs - 2).rev() {
        if tx <= m {
            let t_index_x = tx + bs - m;
            let t_index_y = bs - tx;
            let (y, x) = (t_index_y as u32, t_index_x as u32);
            temp[y][x] = maximum(
                temp[y - 1][x - 1] + reference[y - 1][x - 1],
                temp[y][x - 1] - penalty,
                temp[y - 1][x] - penalty,
            );
        }
        sync_block_threads();
    }

    for ty in 0..bs {
        matrix_cuda[(index + ty * cols) as u32] = temp[(ty + 1) as u32][(tx + 1) as u32];
    }
}

/// Rodinia nw (`cuda/nw/needle_kernel.cu`, `needle_cuda_shared_2`): the same sweep over the
/// tiles of the lower-right half (block `bx` takes tile (`bx + block_width - i`,
/// `block_width - bx - 1`)).
#[kernel]
pub fn needle_cuda_shared_2(
    referrence: &[i32],
    matrix_cuda: &mut [i32],
    cols: i32,
    penalty: i32,
    i: i32,
    block_width: i32,
) {
    let bx = block_idx().x as i32;
    let tx = thread_idx().x as i32;

    let b_index_x = bx + block_width - i;
    let b_index_y = block_width - bx - 1;

    let bs = NW_BLOCK_SIZE as i32;
    let index = cols * bs * b_index_y + bs * b_index_x + tx + (cols + 1);
    let index_n = cols * bs * b_index_y + bs * b_index_x + tx + 1;
    let index_w = cols * bs * b_index_y + bs * b_index_x + cols;
    let index_nw = cols * bs * b_index_y + bs * b_index_x;

    let temp = shared::<[[i32; NW_BLOCK_SIZE + 1]; NW_BLOCK_SIZE + 1]>();
    let reference = shared::<[[i32; NW_BLOCK_SIZE]; NW_BLOCK_SIZE]>();

    for ty in 0..bs {
        reference[ty as u32][tx as u32] = referrence[(index + cols * ty) as u32];
    }

    sync_block_threads();

    if tx == 0 {
        temp[tx as u32][0] = matrix_cuda[index_nw as u32];
    }

    temp[(tx + 1) as u32][0] = matrix_cuda[(index_w + cols * tx) as u32];

    sync_block_threads();

    temp[0][(tx + 1) as u32] = matrix_cuda[index_n as u32];

    sync_block_threads();

    for m in 0..bs {
        if tx <= m {
            let t_index_x = tx + 1;
            let t_index_y = m - tx + 1;
            let (y, x) = (t_index_y as u32, t_index_x as u32);
            temp[y][x] = maximum(
                temp[y - 1][x - 1] + reference[y - 1][x - 1],
                temp[y][x - 1] - penalty,
                temp[y - 1][x] - penalty,
            );
        }
        sync_block_threads();
    }

    for m in (0..=bs - 2).rev() {
        if tx <= m {
            let t_index_x = tx + bs - m;
            let t_index_y = bs - tx;
            let (y, x) = (t_index_y as u32, t_index_x as u32);
            temp[y][x] = maximum(
                temp[y - 1][x - 1] + reference[y - 1][x - 1],
                temp[y][x - 1] - penalty,
                temp[y - 1][x] - penalty,
            );
        }
        sync_block_threads();
    }

    for ty in 0..bs {
        matrix_cuda[(index + ty * cols) as u32] = temp[(ty + 1) as u32][(tx + 1) as u32];
    }
}
