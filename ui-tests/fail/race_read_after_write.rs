use cuphase::prelude::*;

#[kernel]
fn reverse(out: &mut [f32], input: &[f32]) {
    let tile = shared::<[f32; 256]>();
    let t = thread_idx().x;
    let i = block_idx().x * block_dim().x + t;
    tile[t] = input[i];
    let r = block_dim().x - 1 - t;
    out[i] = tile[r];
}

fn main() {}
