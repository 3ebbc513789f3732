use cuphase::prelude::*;

#[kernel(blocks = 4)]
fn k(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}
