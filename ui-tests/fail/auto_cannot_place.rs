use cuphase::prelude::*;

#[kernel(sync = "auto")]
fn k(out: &mut [f32]) {
    let tile = shared::<[f32; 64]>();
    let t = thread_idx().x;
    if t < 32 {
        tile[t] = 1.0;
    } else {
        out[t] = tile[t - 32];
    }
}

fn main() {}
