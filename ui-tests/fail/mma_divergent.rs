use cuphase::half::bf16;
use cuphase::prelude::*;

// A warp-wide matrix multiply where only some lanes of a warp go: an error, as for any warp
// operation.
#[kernel]
fn k(out: &mut [f32]) {
    let i = global_idx().x as usize;
    let fa: [bf16; 8] = [bf16::ONE; 8];
    let fb: [bf16; 4] = [bf16::ONE; 4];
    let mut acc = [0.0f32; 4];
    if i % 2 == 0 {
        mma_m16n8k16(&mut acc, &fa, &fb);
    }
    if i < out.len() {
        out[i] = acc[0];
    }
}

fn main() {}
