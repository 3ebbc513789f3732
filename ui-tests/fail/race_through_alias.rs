use cuphase::prelude::*;

// The write goes through the second name, the read through the first: one array, one race.
#[kernel]
fn k(out: &mut [f32]) {
    let shared = shared::<[f32; 64]>();
    let storage = shared;
    let t = thread_idx().x;
    storage[t] = 1.0;
    out[t] = shared[63 - t];
}

fn main() {}
