//! PENDING, compiled by nothing: Rodinia backprop `bpnn_layerforward_CUDA` (and `bpnn_adjust_weights_cuda`, which compiles as written), as written.
//! `../PENDING.md` says why it does not compile or run as it stands; the changed version
//! that is compiled and tested is in `../rodinia.rs`.

use cuphase::prelude::*;

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
#[kernel]
pub fn bpnn_layerforward_cuda(
    input_cuda: &[f32],
    output_hidden_cuda: &mut [f32],
    input_hidden_cuda: &mut [f32],
    hidden_partial_sum: &mut [f32],
    n_in: i32,
    hid: i32,
) {
    let _ = n_in;
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

    let mut i = 1;
    while i as f32 <= (BP_HEIGHT as f32).log2() {
        let power_two = 2.0f32.powf(i as f32) as i32;

        if ty % power_two == 0 {
            weight_matrix[ty as u32][tx as u32] = weight_matrix[ty as u32][tx as u32]
                + weight_matrix[(ty + power_two / 2) as u32][tx as u32];
        }

        sync_block_threads();
        i += 1;
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
#[kernel]
pub fn bpnn_adjust_weights_cuda(
    delta: &[f32],
    hid: i32,
    ly: &[f32],
    n_in: i32,
    w: &mut [f32],
    oldw: &mut [f32],
) {
    let _ = n_in;
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
