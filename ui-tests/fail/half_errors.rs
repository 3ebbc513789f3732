use cuphase::half::f16;
use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f16]) {
    let i = global_idx().x;
    out[i] = out[i] * 2.0;
    out[i] = out[i].sqrt();
    out[i] = f16::from_f32(out[i].to_f32().sqrt());
}

fn main() {}
