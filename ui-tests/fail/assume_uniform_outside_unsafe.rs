use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    if assume_uniform(thread_idx().x < 4) {
        sync_block_threads();
    }
    out[0] = 1.0;
}

fn main() {}
