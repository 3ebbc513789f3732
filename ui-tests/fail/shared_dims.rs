use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let tile = shared::<[[f32; 16]; 16]>();
    let t = thread_idx().x;
    tile[t] = 1.0;
    out[t] = 0.0;
}

fn main() {}
