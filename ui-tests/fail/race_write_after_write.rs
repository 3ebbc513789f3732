use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let flag = shared::<[u32; 1]>();
    flag[0] = thread_idx().x;
    sync_block_threads();
    out[thread_idx().x] = flag[0];
}

fn main() {}
