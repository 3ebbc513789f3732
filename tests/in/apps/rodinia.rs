//! Rodinia (github: yuhc/gpu-rodinia, `cuda/`) kernels ported to cuphase as their authors wrote
//! them: the same loops, indices, shared tiles and barriers, with C's `int` arithmetic as
//! `i32` and indices cast to `u32` where they are used.

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

/// hotspot's block size: blocks are `HS_BLOCK_SIZE` x `HS_BLOCK_SIZE` threads.
pub const HS_BLOCK_SIZE: usize = 16;

/// Rodinia hotspot (`cuda/hotspot/hotspot.cu`, `calculate_temp`): `iteration` steps of the
/// thermal stencil in one launch over 16 x 16 tiles with a pyramid of halos. The literals
/// `2.0` make C compute the stencil's sums in `double`; the port does too.
#[kernel]
pub fn calculate_temp(
    iteration: i32,
    power: &[f32],
    temp_src: &[f32],
    temp_dst: &mut [f32],
    grid_cols: i32,
    grid_rows: i32,
    border_cols: i32,
    border_rows: i32,
    cap: f32,
    rx: f32,
    ry: f32,
    rz: f32,
    step: f32,
    time_elapsed: f32,
) {
    let temp_on_cuda = shared::<[[f32; HS_BLOCK_SIZE]; HS_BLOCK_SIZE]>();
    let power_on_cuda = shared::<[[f32; HS_BLOCK_SIZE]; HS_BLOCK_SIZE]>();
    let temp_t = shared::<[[f32; HS_BLOCK_SIZE]; HS_BLOCK_SIZE]>();
    let _ = time_elapsed;

    let amb_temp = 80.0f32;

    let bx = block_idx().x as i32;
    let by = block_idx().y as i32;
    let tx = thread_idx().x as i32;
    let ty = thread_idx().y as i32;

    let step_div_cap = step / cap;
    let rx_1 = 1.0 / rx;
    let ry_1 = 1.0 / ry;
    let rz_1 = 1.0 / rz;

    let small_block_rows = HS_BLOCK_SIZE as i32 - iteration * 2;
    let small_block_cols = HS_BLOCK_SIZE as i32 - iteration * 2;

    let blk_y = small_block_rows * by - border_rows;
    let blk_x = small_block_cols * bx - border_cols;
    let blk_y_max = blk_y + HS_BLOCK_SIZE as i32 - 1;
    let blk_x_max = blk_x + HS_BLOCK_SIZE as i32 - 1;

    let yidx = blk_y + ty;
    let xidx = blk_x + tx;

    let (load_yidx, load_xidx) = (yidx, xidx);
    let index = grid_cols * load_yidx + load_xidx;

    if in_range(load_yidx, 0, grid_rows - 1) && in_range(load_xidx, 0, grid_cols - 1) {
        temp_on_cuda[ty as u32][tx as u32] = temp_src[index as u32];
        power_on_cuda[ty as u32][tx as u32] = power[index as u32];
    }
    sync_block_threads();

    let valid_y_min = if blk_y < 0 { -blk_y } else { 0 };
    let valid_y_max = if blk_y_max > grid_rows - 1 {
        HS_BLOCK_SIZE as i32 - 1 - (blk_y_max - grid_rows + 1)
    } else {
        HS_BLOCK_SIZE as i32 - 1
    };
    let valid_x_min = if blk_x < 0 { -blk_x } else { 0 };
    let valid_x_max = if blk_x_max > grid_cols - 1 {
        HS_BLOCK_SIZE as i32 - 1 - (blk_x_max - grid_cols + 1)
    } else {
        HS_BLOCK_SIZE as i32 - 1
    };

    let mut n = ty - 1;
    let mut s = ty + 1;
    let mut w = tx - 1;
    let mut e = tx + 1;

    n = if n < valid_y_min { valid_y_min } else { n };
    s = if s > valid_y_max { valid_y_max } else { s };
    w = if w < valid_x_min { valid_x_min } else { w };
    e = if e > valid_x_max { valid_x_max } else { e };

    let (ty, tx, n, s, w, e) = (ty as u32, tx as u32, n as u32, s as u32, w as u32, e as u32);
    let mut computed = false;
    for i in 0..iteration {
        computed = false;
        if in_range(tx as i32, i + 1, HS_BLOCK_SIZE as i32 - i - 2)
            && in_range(ty as i32, i + 1, HS_BLOCK_SIZE as i32 - i - 2)
            && in_range(tx as i32, valid_x_min, valid_x_max)
            && in_range(ty as i32, valid_y_min, valid_y_max)
        {
            computed = true;
            temp_t[ty][tx] = (temp_on_cuda[ty][tx] as f64
                + step_div_cap as f64
                    * (power_on_cuda[ty][tx] as f64
                        + ((temp_on_cuda[s][tx] + temp_on_cuda[n][tx]) as f64
                            - 2.0 * temp_on_cuda[ty][tx] as f64)
                            * ry_1 as f64
                        + ((temp_on_cuda[ty][e] + temp_on_cuda[ty][w]) as f64
                            - 2.0 * temp_on_cuda[ty][tx] as f64)
                            * rx_1 as f64
                        + ((amb_temp - temp_on_cuda[ty][tx]) * rz_1) as f64))
                as f32;
        }
        sync_block_threads();
        if i == iteration - 1 {
            break;
        }
        if computed {
            temp_on_cuda[ty][tx] = temp_t[ty][tx];
        }
        sync_block_threads();
    }

    if computed {
        temp_dst[index as u32] = temp_t[ty][tx];
    }
}

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

/// backprop's shared tile: `BP_HEIGHT` input units by `BP_WIDTH` hidden units per block.
pub const BP_WIDTH: usize = 16;
/// See [`BP_WIDTH`].
pub const BP_HEIGHT: usize = 16;
/// backprop's learning rate and momentum (C `double` literals).
const ETA: f64 = 0.3;
const MOMENTUM: f64 = 0.3;

/// Rodinia backprop (`cuda/backprop/backprop_cuda_kernel.cu`, `bpnn_layerforward_CUDA`): each
/// block multiplies `BP_HEIGHT` input units into their weights and sums the products of each
/// hidden unit by a tree over the tile's rows, strides `2^i` computed by `pow(2, i)` up to
/// `log2(HEIGHT)`.
// changed from the original: the block shape Rodinia launches (16 x 16) is declared, and
// `hid >= 15` asserted. Rows of the weight matrix are `hid + 1` apart and a row of the block
// is 16 wide, so the original races (two threads write one weight) when `hid + 1 < 16` or
// for wider blocks: the compiler shows such a pair (`hid = 2`, threads (3, 0) and (0, 1)).
#[kernel(block = (16, 16))]
pub fn bpnn_layerforward_cuda(
    input_cuda: &[f32],
    output_hidden_cuda: &mut [f32],
    input_hidden_cuda: &mut [f32],
    hidden_partial_sum: &mut [f32],
    n_in: i32,
    hid: i32,
) {
    let _ = n_in;
    assert!(hid >= 15);
    let by = block_idx().y as i32;
    let tx = thread_idx().x as i32;
    let ty = thread_idx().y as i32;

    let height = BP_HEIGHT as i32;
    let index = (hid + 1) * height * by + (hid + 1) * ty + tx + 1 + (hid + 1);
    let index_in = height * by + ty + 1;

    let input_node = shared::<[f32; BP_HEIGHT]>();
    let weight_matrix = shared::<[[f32; BP_WIDTH]; BP_HEIGHT]>();

    if tx == 0 {
        input_node[ty as u32] = input_cuda[index_in as u32];
    }

    sync_block_threads();

    weight_matrix[ty as u32][tx as u32] = input_hidden_cuda[index as u32];

    sync_block_threads();

    weight_matrix[ty as u32][tx as u32] =
        weight_matrix[ty as u32][tx as u32] * input_node[ty as u32];

    sync_block_threads();

    // changed from the original: `power_two` (C's `int power_two = __powf(2, i);`) is an
    // unsigned variable that starts at 2 and doubles with `i`, the values `__powf(2, i)`
    // gives, and the remainder is taken of `ty as u32`. The race proof decides `ty % p` for a
    // doubling unsigned `p`; it does not for a `powf` result, nor for `i32` operands.
    let mut i = 1;
    let mut power_two = 2u32;
    while i as f32 <= (BP_HEIGHT as f32).log2() {
        if ty as u32 % power_two == 0 {
            weight_matrix[ty as u32][tx as u32] = weight_matrix[ty as u32][tx as u32]
                + weight_matrix[ty as u32 + power_two / 2][tx as u32];
        }

        sync_block_threads();
        i += 1;
        power_two *= 2;
    }

    input_hidden_cuda[index as u32] = weight_matrix[ty as u32][tx as u32];

    sync_block_threads();

    if tx == 0 {
        hidden_partial_sum[(by * hid + ty) as u32] = weight_matrix[tx as u32][ty as u32];
    }
}

/// Rodinia backprop (`cuda/backprop/backprop_cuda_kernel.cu`, `bpnn_adjust_weights_cuda`): the
/// weight update with momentum, in C's `double` arithmetic (`ETA` and `MOMENTUM` are `double`
/// literals), then block 0's first row updates the bias weights.
// changed from the original: the block shape Rodinia launches (16 x 16) is declared, and
// `hid >= 15` asserted. Rows of the weight matrix are `hid + 1` apart and a row of the block
// is 16 wide, so the original races (two threads write one weight) when `hid + 1 < 16` or
// for wider blocks: the compiler shows such a pair (`hid = 2`, threads (3, 0) and (0, 1)).
#[kernel(block = (16, 16))]
pub fn bpnn_adjust_weights_cuda(
    delta: &[f32],
    hid: i32,
    ly: &[f32],
    n_in: i32,
    w: &mut [f32],
    oldw: &mut [f32],
) {
    let _ = n_in;
    assert!(hid >= 15);
    let by = block_idx().y as i32;
    let tx = thread_idx().x as i32;
    let ty = thread_idx().y as i32;

    let height = BP_HEIGHT as i32;
    let index = ((hid + 1) * height * by + (hid + 1) * ty + tx + 1 + (hid + 1)) as u32;
    let index_y = (height * by + ty + 1) as u32;
    let index_x = (tx + 1) as u32;

    w[index] = (w[index] as f64
        + ((ETA * delta[index_x] as f64 * ly[index_y] as f64) + (MOMENTUM * oldw[index] as f64)))
        as f32;
    oldw[index] = ((ETA * delta[index_x] as f64 * ly[index_y] as f64)
        + (MOMENTUM * oldw[index] as f64)) as f32;

    sync_block_threads();

    if ty == 0 && by == 0 {
        w[index_x] = (w[index_x] as f64
            + ((ETA * delta[index_x] as f64) + (MOMENTUM * oldw[index_x] as f64)))
            as f32;
        oldw[index_x] = ((ETA * delta[index_x] as f64) + (MOMENTUM * oldw[index_x] as f64)) as f32;
    }
}
