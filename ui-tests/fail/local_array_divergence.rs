use cuphase::prelude::*;

// A thread-local array holds per-thread values: a barrier under a branch on one diverges.
#[kernel]
fn k(out: &mut [u32]) {
    let mut seen = [0u32; 2];
    seen[1] = out[0];
    if seen[1] > 3 {
        sync_block_threads();
    }
    out[0] = seen[0];
}

fn main() {}
