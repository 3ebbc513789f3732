//! `half::f16` and `half::bf16`: arithmetic computed through `f32` and rounded back (as the
//! `half` crate does), conversions, comparisons, negation, shared memory and warp shuffles.

use cuphase::half::{bf16, f16};
use cuphase::prelude::*;

#[kernel]
pub fn half_math(h: &mut [f16], b: &mut [bf16], flags: &mut [u32], xs: &[f16], ys: &[bf16]) {
    let tile = shared::<[f16; 64]>();
    let t = thread_idx().x;
    let i = global_idx().x;
    let n = xs.len() as u32;
    let x = if i < n { xs[i] } else { f16::ZERO };
    let y = if i < n { ys[i] } else { bf16::ONE };
    tile[t] = x;
    sync_block_threads();
    let other = tile[63 - t];
    let k = f16::from_f32(0.1);
    let prod = x * other + k;
    let quot = (x - other) / (k + f16::ONE);
    let neg = -prod;
    let yb = y * bf16::from_f32(1.5) - bf16::from_f64(0.25);
    let up = warp_shuffle_xor(yb, 1u32);
    let back = f16::from_f32(yb.to_f32());
    let as_int = (quot.to_f32() * 100.0) as i32;
    if i < n {
        h[3 * i] = prod;
        h[3 * i + 1] = neg;
        h[3 * i + 2] = back;
        b[2 * i] = yb;
        b[2 * i + 1] = up;
        flags[2 * i] = (x < other) as u32 + 2 * (prod >= quot) as u32 + 4 * (y == yb) as u32;
        flags[2 * i + 1] = as_int as u32;
    }
}
