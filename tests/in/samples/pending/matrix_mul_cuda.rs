//! Pending (PENDING.md, P3): the CUDA samples' `MatrixMulCUDA<BLOCK_SIZE>` as written
//! (NVIDIA/cuda-samples, `Samples/0_Introduction/matrixMul/matrixMul.cu`), the template
//! parameter as a const parameter. cuphase rejects the two 2-D tiles sized by it;
//! `tests/in/samples/matrix_mul.rs` holds the compiled version with `BLOCK_SIZE` a module
//! constant (32). Not compiled by anything.

use cuphase::prelude::*;

/// `MatrixMulCUDA<BLOCK_SIZE>`.
#[kernel]
pub fn matrix_mul_cuda<const BLOCK_SIZE: u32>(
    c: &mut [f32],
    a: &[f32],
    b: &[f32],
    w_a: u32,
    w_b: u32,
) {
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
        let as_ = shared::<[[f32; BLOCK_SIZE]; BLOCK_SIZE]>();
        let bs = shared::<[[f32; BLOCK_SIZE]; BLOCK_SIZE]>();
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
