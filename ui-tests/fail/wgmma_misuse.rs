use cuphase::half::bf16;
use cuphase::prelude::*;

// The accumulator read before the multiply into it is waited for.
#[kernel(block = 128)]
fn read_before_wait(c: &mut [f32], a: &[[bf16; 8]]) {
    let tile = shared::<[[bf16; 8]; 512]>();
    let t = thread_idx().x as usize;
    tile[t] = a[t];
    sync_block_threads();
    let mut acc = [0.0f32; 32];
    wgmma_m64n64k16(&mut acc, &tile[0], &tile[0]);
    wgmma_commit();
    c[t] = acc[0];
    wgmma_wait(0);
}

// Under a condition that splits the block.
#[kernel(block = 256)]
fn divergent(c: &mut [f32], a: &[[bf16; 8]]) {
    let tile = shared::<[[bf16; 8]; 512]>();
    let t = thread_idx().x as usize;
    tile[t] = a[t];
    sync_block_threads();
    let mut acc = [0.0f32; 32];
    if t < 128 {
        wgmma_m64n64k16(&mut acc, &tile[0], &tile[0]);
    }
    wgmma_commit();
    wgmma_wait(0);
    c[t] = acc[0];
}

// No fixed block shape of whole warpgroups.
#[kernel]
fn any_block(c: &mut [f32], a: &[[bf16; 8]]) {
    let tile = shared::<[[bf16; 8]; 512]>();
    let t = thread_idx().x as usize;
    tile[t] = a[t];
    sync_block_threads();
    let mut acc = [0.0f32; 32];
    wgmma_m64n64k16(&mut acc, &tile[0], &tile[0]);
    wgmma_commit();
    wgmma_wait(0);
    c[t] = acc[0];
}

// Operands of the wrong forms.
#[kernel(block = 128)]
fn forms(c: &mut [f32], a: &[[bf16; 8]]) {
    let tile = shared::<[[bf16; 8]; 100]>();
    let wide = shared::<[[bf16; 16]; 128]>();
    let good = shared::<[[bf16; 8]; 512]>();
    let t = thread_idx().x as usize;
    let mut acc = [0.0f32; 32];
    let mut short = [0.0f32; 16];
    wgmma_m64n64k16(&mut acc, &tile[0], &good[0]);
    wgmma_m64n64k16(&mut acc, &wide[0], &good[0]);
    wgmma_m64n64k16(&mut short, &good[0], &good[0]);
    wgmma_m64n12k16(&mut acc, &good[0], &good[0]);
    wgmma_m64n64k8_tf32(&mut acc, &good[0], &good[0]);
    wgmma_commit();
    wgmma_wait(8);
    c[t] = acc[0] + short[0] + a[0][0].to_f32();
}

// `A` from registers of the wrong length.
#[kernel(block = 128)]
fn short_fragment(c: &mut [f32], a: &[[bf16; 8]]) {
    let tile = shared::<[[bf16; 8]; 512]>();
    let t = thread_idx().x as usize;
    tile[t] = a[t];
    sync_block_threads();
    let mut acc = [0.0f32; 32];
    let four = [bf16::ONE; 4];
    wgmma_m64n64k16(&mut acc, &four, &tile[0]);
    wgmma_commit();
    wgmma_wait(0);
    c[t] = acc[0];
}

fn main() {}
