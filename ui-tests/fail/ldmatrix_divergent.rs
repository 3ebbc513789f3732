use cuphase::half::bf16;
use cuphase::prelude::*;

// A fragment load that only half of each warp reaches: an error, as for any warp operation.
#[kernel(block = 64)]
fn k(out: &mut [f32], a: &[[bf16; 8]]) {
    let tile = shared::<[[bf16; 8]; 64]>();
    let t = thread_idx().x as usize;
    tile[t] = a[t];
    sync_block_threads();
    let mut fa = [bf16::ZERO; 8];
    if t % 32 < 16 {
        ldmatrix(&mut fa, &tile[t]);
    }
    out[t] = fa[0].to_f32();
}

fn main() {}
