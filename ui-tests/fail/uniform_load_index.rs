use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let tile = shared::<[f32; 64]>();
    let v = uniform_load(&tile[thread_idx().x]);
    out[0] = v;
}

fn main() {}
