use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32]) -> f32 {
    out[0] = 1.0;
}

fn main() {}
