use cuphase::prelude::*;

/// `c = a * b` for row-major `n x n` matrices with 16x16 tiles.
#[kernel]
pub fn tiled_matmul(c: &mut [f32], a: &[f32], b: &[f32], n: u32) {
    let ta = shared::<[[f32; 16]; 16]>();
    let tb = shared::<[[f32; 16]; 16]>();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let row = block_idx().y * 16 + ty;
    let col = block_idx().x * 16 + tx;
    let mut acc = 0.0f32;
    for t in 0..(n + 15) / 16 {
        let a_col = t * 16 + tx;
        let b_row = t * 16 + ty;
        ta[ty][tx] = if row < n && a_col < n {
            a[row * n + a_col]
        } else {
            0.0
        };
        tb[ty][tx] = if b_row < n && col < n {
            b[b_row * n + col]
        } else {
            0.0
        };
        sync_block_threads();
        for k in 0..16u32 {
            acc += ta[ty][k] * tb[k][tx];
        }
        sync_block_threads();
    }
    if row < n && col < n {
        c[row * n + col] = acc;
    }
}
