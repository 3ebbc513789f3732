use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [i32], n: i32) {
    let i = global_idx().x;
    // `div_ceil` and `next_power_of_two` are methods of the unsigned integers.
    out[i] = n.div_ceil(4) + n.next_power_of_two();
}

fn main() {}
