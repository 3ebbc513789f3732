//! The CUDA samples' tiled matrix product `C = A * B` (NVIDIA/cuda-samples,
//! `Samples/0_Introduction/matrixMul/matrixMul.cu`, `MatrixMulCUDA<BLOCK_SIZE>`): a block of
//! `BLOCK_SIZE x BLOCK_SIZE` threads computes one tile of `C`, stepping through the tiles of a
//! row of `A` and a column of `B` with two shared tiles and two barriers per step. `wA` is
//! `A`'s width and `wB` `B`'s; as in the sample, the sizes are multiples of `BLOCK_SIZE`. The
//! C `for` with two induction variables (`a` and `b`) is a `while` loop; the indices are
//! unsigned (they never go negative).

use cuphase::prelude::*;

/// The tiles' side (the sample's default `block_size`).
pub const BLOCK_SIZE: u32 = 32;

/// `MatrixMulCUDA<BLOCK_SIZE>`, for `BLOCK_SIZE = 32`.
// changed from the original: `BLOCK_SIZE` is a module constant, not a template (const)
// parameter, as a two-dimensional shared array cannot be sized by a const parameter
// (PENDING.md).
#[kernel]
pub fn matrix_mul_cuda(c: &mut [f32], a: &[f32], b: &[f32], w_a: u32, w_b: u32) {
    let bx = block_idx().x;
    let by = block_idx().y;
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    // The first, the last and the step of the sub-matrices of A the block goes through.
    let a_begin = w_a * BLOCK_SIZE * by;
    let a_end = a_begin + w_a - 1;
    let a_step = BLOCK_SIZE;
    // The first and the step of the sub-matrices of B.
    let b_begin = BLOCK_SIZE * bx;
    let b_step = BLOCK_SIZE * w_b;
    let mut csub = 0.0f32;
    let mut a_i = a_begin;
    let mut b_i = b_begin;
    while a_i <= a_end {
        let as_ = shared::<[[f32; BLOCK_SIZE as usize]; BLOCK_SIZE as usize]>();
        let bs = shared::<[[f32; BLOCK_SIZE as usize]; BLOCK_SIZE as usize]>();
        as_[ty][tx] = a[a_i + w_a * ty + tx];
        bs[ty][tx] = b[b_i + w_b * ty + tx];
        sync_block_threads();
        for k in 0..BLOCK_SIZE {
            csub += as_[ty][k] * bs[k][tx];
        }
        sync_block_threads();
        a_i += a_step;
        b_i += b_step;
    }
    let c_i = w_b * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    c[c_i + w_b * ty + tx] = csub;
}
