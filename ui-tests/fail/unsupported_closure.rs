use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let f = |x: f32| x * 2.0;
    out[0] = 1.0;
}

fn main() {}
