use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [u32], data: &[u32]) {
    let mut i = 0u32;
    loop {
        sync_block_threads();
        if data[thread_idx().x] == i {
            break;
        }
        i += 1;
    }
    out[thread_idx().x] = i;
}

fn main() {}
