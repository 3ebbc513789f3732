use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32], inp: &[f32], n: u32) {
    let i = global_idx().x;
    // A sub-slice with an end is not supported yet.
    let row = &inp[(i * n) as usize..((i + 1) * n) as usize];
    // A read-only array's sub-slice cannot be taken `&mut`.
    let w = &mut inp[1..];
    // Nor written through, when taken `&`.
    let o = &out[2..];
    o[0] = 1.0;
    out[i] = 0.0;
}

fn main() {}
