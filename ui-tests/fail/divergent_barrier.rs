use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let t = thread_idx().x;
    let k = t * 2;
    if k < 16 {
        sync_block_threads();
    }
    out[t] = 1.0;
}

fn main() {}
