use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let shared = shared_slice::<f32>();
    let other = shared::<[f32; 32]>();
    let mut storage = shared;
    let typed: &mut [f32] = shared;
    let alias = shared;
    alias = other;
    let t = thread_idx().x;
    storage[t] = 1.0;
    typed[t] = 2.0;
    other = shared;
    out[t] = alias[t];
}

fn main() {}
