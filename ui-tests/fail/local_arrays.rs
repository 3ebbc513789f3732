use cuphase::prelude::*;

// Thread-local arrays: the mistakes Rust would reject, and the limits of registers.
#[kernel]
fn k(out: &mut [u32], x: u32) {
    let t = thread_idx().x;
    let fixed = [0u32; 4];
    fixed[t % 4] = 1;
    let mut counts = [0u32; 4];
    counts.atomic_add(0, 1);
    let typed = [x; 4];
    let y = x + 1;
    let mut untyped = [y; 4];
    let mut big = [0.0f32; 300];
    let mut cube = [[[0u8; 2]; 2]; 2];
    out[t] = fixed[0] + typed[3];
}

fn main() {}
