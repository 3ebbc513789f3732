use cuphase::half::{bf16, f16};
use cuphase::prelude::*;

// The forms `ldmatrix` refuses, each with what it takes.
#[kernel(block = 32)]
fn k(out: &mut [f32], a: &[[bf16; 8]]) {
    let tile = shared::<[[bf16; 8]; 32]>();
    let wide = shared::<[[bf16; 16]; 32]>();
    let flat = shared::<[bf16; 256]>();
    let t = thread_idx().x as usize;
    tile[t] = a[t];
    wide[t][0] = a[t][0];
    flat[t] = a[t][0];
    sync_block_threads();
    let mut f3 = [bf16::ZERO; 3];
    let mut fh = [f16::ZERO; 8];
    let mut ff = [0.0f32; 2];
    let fixed = [bf16::ZERO; 8];
    let mut ok = [bf16::ZERO; 8];
    ldmatrix(&mut f3, &tile[t]);
    ldmatrix(&mut fh, &tile[t]);
    ldmatrix_trans(&mut ff, &tile[t]);
    ldmatrix(&mut fixed, &tile[t]);
    ldmatrix(&mut ok, &wide[t]);
    ldmatrix(&mut ok, &flat[t]);
    ldmatrix(&ok, &tile[t]);
    ldmatrix(&mut ok, tile[t]);
    let v = ldmatrix(&mut ok, &tile[t]);
    out[t] = f3[0].to_f32() + fh[0].to_f32() + ff[0] + fixed[0].to_f32() + ok[0].to_f32();
}

fn main() {}
