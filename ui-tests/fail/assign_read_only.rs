use cuphase::prelude::*;

#[kernel]
fn k(input: &[f32]) {
    let i = thread_idx().x;
    input[i] = 0.0;
}

fn main() {}
