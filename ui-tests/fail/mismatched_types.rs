use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [i32], n: u32) {
    let i = thread_idx().x;
    let x: i32 = n;
    out[i] = x;
}

fn main() {}
