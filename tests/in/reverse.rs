use cuphase::prelude::*;

/// Reverses each block's part of `input` through a shared tile.
#[kernel]
pub fn reverse(out: &mut [f32], input: &[f32]) {
    let tile = shared::<[f32; 256]>();
    let t = thread_idx().x;
    let i = block_idx().x * block_dim().x + t;
    if i < input.len() as u32 {
        tile[t] = input[i];
    }
    sync_block_threads();
    let r = block_dim().x - 1 - t;
    if i < out.len() as u32 {
        out[i] = tile[r];
    }
}
