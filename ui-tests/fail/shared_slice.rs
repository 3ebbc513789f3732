use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let a = shared_slice::<f32>();
    let b = shared_slice::<u32>();
    let c = shared_slice::<f32>(64);
    let t = thread_idx().x;
    a[t] = 1.0;
    b[t] = 2;
    c[t] = 3.0;
    out[t] = a[t];
}

fn main() {}
