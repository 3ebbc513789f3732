use cuphase::prelude::*;

#[kernel]
fn k(out: &mut [f32]) {
    let i = global_idx().x;
    // Rows of one length.
    let m = [[1.0f32, 2.0], [3.0]];
    // Integer literals without a suffix are `i32`, as in Rust.
    let w = [1, 2, 3];
    // A literal of an array the registers hold.
    let big = [[0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16], [0u8; 16]];
    out[i] = m[0][0] + w[0] as f32 + big[0][0] as f32;
}

fn main() {}
