use cuphase::prelude::*;

const OFFSET: f32 = 0.5;

// A name whose type nothing in the kernel fixes: cuphase says so, at the use.
#[kernel]
pub fn unfixed(out: &mut [f32]) {
    let x = OFFSET;
    out[0] = x as f32;
}

fn main() {}
