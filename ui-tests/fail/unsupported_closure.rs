use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let f = |x: f32| x * 2.0;
    let g = f;
    out[0] = f(1.0, 2.0);
    out[1] = g(1.0);
}

fn main() {}
