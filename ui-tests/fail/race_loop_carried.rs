use cuphase::prelude::*;

#[kernel]
fn matmul(c: &mut [f32], a: &[f32], b: &[f32], n: u32) {
    let ta = shared::<[[f32; 16]; 16]>();
    let tb = shared::<[[f32; 16]; 16]>();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let row = block_idx().y * 16 + ty;
    let col = block_idx().x * 16 + tx;
    let mut acc = 0.0f32;
    for t in 0..n / 16 {
        ta[ty][tx] = a[row * n + t * 16 + tx];
        tb[ty][tx] = b[(t * 16 + ty) * n + col];
        sync_block_threads();
        for k in 0..16u32 {
            acc += ta[ty][k] * tb[k][tx];
        }
    }
    c[row * n + col] = acc;
}

fn main() {}
