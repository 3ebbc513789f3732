use cuphase::prelude::*;

/// Writes shared memory that other threads read: ends on a barrier (trailing sync).
#[device]
fn fill(tile: &mut [u32; 64], v: u32) {
    tile[thread_idx().x] = v;
}

#[kernel]
fn k(out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let t = thread_idx().x;
    if out[t] > 0 {
        fill(&mut tile, 7);
    }
    out[t] = tile[63 - t];
}

fn main() {}
