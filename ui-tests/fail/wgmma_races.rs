use cuphase::half::bf16;
use cuphase::prelude::*;

// The multiplies of a step read its stage until `wgmma_wait` covers them. Waiting for all but
// the latest two leaves those of two steps back in flight, and their stage is the one this
// step refills.
#[kernel(block = (32, 4, 1))]
fn early_refill(c: &mut [f32], a: &[[bf16; 8]], bt: &[[bf16; 8]], steps: u32) {
    let a_tile = shared::<[[bf16; 8]; 2048]>();
    let b_tile = shared::<[[bf16; 8]; 2048]>();
    let t = (thread_idx().y * 32 + thread_idx().x) as usize;
    let steps = steps as usize;
    let mut acc = [0.0f32; 32];
    for p in 0..2 {
        for i in 0..4 {
            cp_async(&mut a_tile[p * 512 + i * 128 + t], &a[p * 512 + i * 128 + t]);
            cp_async(&mut b_tile[p * 512 + i * 128 + t], &bt[p * 512 + i * 128 + t]);
        }
        cp_async_commit();
    }
    for step in 0..steps {
        cp_async_wait(1);
        sync_block_threads();
        let s = (step + 2) % 4;
        for i in 0..4 {
            cp_async(&mut a_tile[s * 512 + i * 128 + t], &a[(step + 2) * 512 + i * 128 + t]);
            cp_async(&mut b_tile[s * 512 + i * 128 + t], &bt[(step + 2) * 512 + i * 128 + t]);
        }
        cp_async_commit();
        let s = step % 4;
        wgmma_m64n64k16(&mut acc, &a_tile[s * 512], &b_tile[s * 512]);
        wgmma_commit();
        wgmma_wait(2);
    }
    wgmma_wait(0);
    c[t] = acc[0];
}

// No wait at all before the barrier: a thread may refill the tile while its warpgroup's
// multiply still reads it.
#[kernel(block = 128)]
fn refill_in_flight(c: &mut [f32], a: &[[bf16; 8]], bt: &[[bf16; 8]]) {
    let a_tile = shared::<[[bf16; 8]; 512]>();
    let b_tile = shared::<[[bf16; 8]; 512]>();
    let t = thread_idx().x as usize;
    for i in 0..4 {
        a_tile[i * 128 + t] = a[i * 128 + t];
        b_tile[i * 128 + t] = bt[i * 128 + t];
    }
    sync_block_threads();
    let mut acc = [0.0f32; 32];
    wgmma_m64n64k16(&mut acc, &a_tile[0], &b_tile[0]);
    wgmma_commit();
    sync_block_threads();
    a_tile[t] = a[512 + t];
    wgmma_wait(0);
    c[t] = acc[0];
}

// `A` from registers, rewritten while the multiply reads it.
#[kernel(block = 128)]
fn fragment_rewritten(c: &mut [f32], a: &[[bf16; 8]]) {
    let tile = shared::<[[bf16; 8]; 512]>();
    let t = thread_idx().x as usize;
    tile[t] = a[t];
    sync_block_threads();
    let mut acc = [0.0f32; 32];
    let mut p = [bf16::ONE; 8];
    wgmma_m64n64k16(&mut acc, &p, &tile[0]);
    p[0] = bf16::ZERO;
    wgmma_commit();
    wgmma_wait(0);
    c[t] = acc[0] + p[1].to_f32();
}

fn main() {}
