use cuphase::prelude::*;

// The blocks' size is not known: the bound says nothing.
#[kernel(min_blocks_per_sm = 2)]
fn unknown_size(out: &mut [f32]) {
    out[0] = 1.0;
}

// A count out of range.
#[kernel(block = 128, min_blocks_per_sm = 0)]
fn zero(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}
