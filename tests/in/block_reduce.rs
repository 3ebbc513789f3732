use cuphase::prelude::*;

/// Tree reduction of each block's 256 elements.
#[kernel]
pub fn block_reduce(partial: &mut [f32], input: &[f32]) {
    let buf = shared::<[f32; 256]>();
    let t = thread_idx().x;
    let i = global_idx().x;
    buf[t] = if i < input.len() as u32 {
        input[i]
    } else {
        0.0
    };
    sync_block_threads();
    let mut s = block_dim().x / 2;
    while s > 0 {
        if t < s {
            buf[t] += buf[t + s];
        }
        sync_block_threads();
        s /= 2;
    }
    if t == 0 {
        partial[block_idx().x] = buf[0];
    }
}
