//! Warp-collective fragment loads from shared memory (`ldmatrix`, `ldmatrix_trans`): every
//! form, lane by lane; the same loads in a kernel the simulator runs as one future per thread;
//! and GEMMs whose fragments come from `ldmatrix` over `cp_async` pipelines.

use cuphase::half::bf16;
use cuphase::prelude::*;

/// Every 16-bit form: lane `l` gives row `(7 l + 3) % 32` of a 32-row tile (a permutation, so
/// each lane's elements show which lane's row they came from) and writes its fragments of one,
/// two and four matrices, untransposed then transposed: 28 values a lane.
#[kernel(block = 32)]
pub fn ldmatrix_forms(out: &mut [f32], a: &[[bf16; 8]]) {
    let tile = shared::<[[bf16; 8]; 32]>();
    let lane = thread_idx().x as usize;
    tile[lane] = a[lane];
    sync_block_threads();
    let r = (7 * lane + 3) % 32;
    let mut f1 = [bf16::ZERO; 2];
    let mut f2 = [bf16::ZERO; 4];
    let mut f4 = [bf16::ZERO; 8];
    ldmatrix(&mut f1, &tile[r]);
    ldmatrix(&mut f2, &tile[r]);
    ldmatrix(&mut f4, &tile[r]);
    let mut t1 = [bf16::ZERO; 2];
    let mut t2 = [bf16::ZERO; 4];
    let mut t4 = [[bf16::ZERO; 8]; 2];
    ldmatrix_trans(&mut t1, &tile[r]);
    ldmatrix_trans(&mut t2, &tile[r]);
    ldmatrix_trans(&mut t4[1], &tile[r]);
    let o = lane * 28;
    for e in 0..2 {
        out[o + e] = f1[e].to_f32();
        out[o + 14 + e] = t1[e].to_f32();
    }
    for e in 0..4 {
        out[o + 2 + e] = f2[e].to_f32();
        out[o + 16 + e] = t2[e].to_f32();
    }
    for e in 0..8 {
        out[o + 6 + e] = f4[e].to_f32();
        out[o + 20 + e] = t4[1][e].to_f32();
    }
}

/// The `f32` forms (rows of 4): lane `l` gives row `(7 l + 3) % 32`; one, two and four
/// matrices, 7 values a lane.
#[kernel(block = 32)]
pub fn ldmatrix_f32_forms(out: &mut [f32], a: &[[f32; 4]]) {
    let tile = shared::<[[f32; 4]; 32]>();
    let lane = thread_idx().x as usize;
    tile[lane] = a[lane];
    sync_block_threads();
    let r = (7 * lane + 3) % 32;
    let mut f1 = [0.0f32; 1];
    let mut f2 = [0.0f32; 2];
    let mut f4 = [0.0f32; 4];
    ldmatrix(&mut f1, &tile[r]);
    ldmatrix(&mut f2, &tile[r]);
    ldmatrix(&mut f4, &tile[r]);
    out[lane * 7] = f1[0];
    for e in 0..2 {
        out[lane * 7 + 1 + e] = f2[e];
    }
    for e in 0..4 {
        out[lane * 7 + 3 + e] = f4[e];
    }
}

/// [`ldmatrix_forms`]' four-matrix loads, `rounds` times with a barrier between, in a loop
/// whose exit leaves code with a fragment load for a loop that syncs: the simulator runs it
/// as one future per thread, moving the rows by shuffles. 16 values a lane.
#[kernel(block = 32)]
pub fn ldmatrix_rounds(out: &mut [f32], a: &[[bf16; 8]], rounds: u32) {
    let tile = shared::<[[bf16; 8]; 32]>();
    let lane = thread_idx().x as usize;
    tile[lane] = a[lane];
    sync_block_threads();
    let r = (7 * lane + 3) % 32;
    let mut f4 = [bf16::ZERO; 8];
    let mut t4 = [bf16::ZERO; 8];
    let mut n = 0u32;
    loop {
        ldmatrix(&mut f4, &tile[r]);
        ldmatrix_trans(&mut t4, &tile[r]);
        n += 1;
        if n >= rounds {
            break;
        }
        sync_block_threads();
    }
    for e in 0..8 {
        out[lane * 16 + e] = f4[e].to_f32();
        out[lane * 16 + 8 + e] = t4[e].to_f32();
    }
}
