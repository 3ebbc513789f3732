use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32], input: &[f32]) {
    let tile = shared::<[f32; 256]>();
    let i = global_idx().x;
    if i >= input.len() as u32 {
        return;
    }
    tile[thread_idx().x] = input[i];
    sync_block_threads();
    out[i] = tile[255 - thread_idx().x];
}

fn main() {}
