use cuphase::half::bf16;
use cuphase::prelude::*;

// Each lane writes its row and the warp loads the rows at once: lane `t` reads the row lane
// `t + 1` writes, with no barrier between. The warp's rows reach every lane through the
// instruction, but each row is read where its own lane gave it: that read races.
#[kernel(block = 32)]
fn k(out: &mut [f32], a: &[[bf16; 8]]) {
    let tile = shared::<[[bf16; 8]; 32]>();
    let t = thread_idx().x as usize;
    tile[t] = a[t];
    let mut fa = [bf16::ZERO; 8];
    ldmatrix(&mut fa, &tile[(t + 1) % 32]);
    out[t] = fa[0].to_f32();
}

fn main() {}
