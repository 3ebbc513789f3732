use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [u32]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = warp_ballot(i % 2 == 0);
    }
}

fn main() {}
