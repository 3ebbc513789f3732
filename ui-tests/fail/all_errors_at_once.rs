use cuphase::prelude::*;

// Three independent mistakes: all are reported in one build.
#[kernel]
fn k(out: &mut [f32], n: u32) {
    let i = thread_idx().x;
    println!("{:e}", i);
    let v = out[i].to_degrees();
    n = 3;
}

fn main() {}
