// A call of a function that is not a `#[device]` helper is rustc's error at the call.
use cuphase::prelude::*;

fn plain(x: u32) -> u32 {
    x + 1
}

#[kernel]
pub fn k(out: &mut [u32]) {
    if thread_idx().x == 0 {
        out[0] = missing_helper(1) + plain(2);
    }
}

fn main() {}
