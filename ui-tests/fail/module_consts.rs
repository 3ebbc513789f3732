use cuphase::prelude::*;

const SCALE: f32 = 2.0;
const LIMIT: u64 = 4;

// A misspelt name is rustc's own error, at its use in the kernel.
#[kernel]
pub fn scale(out: &mut [f32]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = out[i] * SCLAE;
    }
}

// A module constant of another type than the kernel uses: rustc's mismatch, at the use.
#[kernel]
pub fn limited(out: &mut [u32]) {
    let t = thread_idx().x;
    if t < LIMIT {
        out[t] = SCALE as u32;
    }
}

fn main() {}
