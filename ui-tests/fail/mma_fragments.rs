use cuphase::half::{bf16, f16};
use cuphase::prelude::*;

// Fragments of the wrong length or type, a missing reference, mixed input types, an
// accumulator not declared `mut`, and a multiply used as a value.
#[kernel]
fn k(out: &mut [f32]) {
    let i = global_idx().x as usize;
    let a8: [bf16; 8] = [bf16::ONE; 8];
    let a6: [bf16; 6] = [bf16::ONE; 6];
    let b4: [bf16; 4] = [bf16::ONE; 4];
    let h4: [f16; 4] = [f16::ONE; 4];
    let mut acc = [0.0f32; 4];
    let mut acc8 = [0.0f32; 8];
    let fixed = [0.0f32; 4];
    let ints = [0u32; 8];
    mma_m16n8k16(&mut acc, &a6, &b4);
    mma_m16n8k16(&mut acc8, &a8, &b4);
    mma_m16n8k16(&mut acc, a8, &b4);
    mma_m16n8k16(&mut acc, &a8, &h4);
    mma_m16n8k16(&mut fixed, &a8, &b4);
    mma_m16n8k16(&mut acc, &ints, &b4);
    mma_m16n8k8_tf32(&mut acc, &a8, &b4);
    let v = mma_m16n8k16(&mut acc, &a8, &b4);
    if i < out.len() {
        out[i] = acc[0] + acc8[0] + fixed[0];
    }
}

fn main() {}
