//! A helper from another crate (`cuphase-blocks`) waits at barriers: calling it under a
//! thread-dependent branch is the same error as for a helper of this crate.
use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let scratch = shared::<[f32; 256]>();
    let t = thread_idx().x;
    if t < 32 {
        out[t] = cuphase_blocks::block_reduce_sum(&mut scratch, 1.0);
    }
}

fn main() {}
