//! Hopper's warpgroup multiply-accumulate (`wgmma_m64n{N}k16`): a bf16 GEMM fed by a
//! `cp.async` pipeline, and the smallest kernels that show the rules.

use cuphase::half::bf16;
use cuphase::prelude::*;

/// `c = a * bt^T` for row-major bf16 `a` (`m x k`) and `bt` (`n x k`, the transpose of `b`),
/// both read as 16-byte chunks, `m` a multiple of 128, `n` of 256 and `k` of 64: 128x256 block
/// tiles of two warpgroups (`block = (32, 4, 2)`: warpgroup `z`, warp `y` of it, lane `x`),
/// each warpgroup 64x256 through `wgmma_m64n256k16` (128 accumulators a thread); four stages
/// of 64-deep tiles (192 KiB, carved from dynamic shared memory) that `cp_async` fills two
/// steps ahead.
///
/// A stage holds 128 rows of `a` and 256 of `bt`, each 64 elements (8 chunks) long, chunk `c`
/// of row `r` at `8 r + c`: the layout `wgmma` reads (the writers swizzle it). Each step waits
/// for its stage and passes a barrier, which also tells every thread that the multiplies of
/// two steps back are done (each warpgroup waited for them at the end of the step before):
/// so it refills their stage, then multiplies its own and waits for all but its own
/// multiplies.
#[kernel(block = (32, 4, 2))]
pub fn gemm_bf16_wgmma(c: &mut [f32], a: &[[bf16; 8]], bt: &[[bf16; 8]], n: u32, k: u32) {
    let a_tile = shared::<[[bf16; 8]; 4096]>();
    let b_tile = shared::<[[bf16; 8]; 8192]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let tz = thread_idx().z as usize;
    // This thread's chunk of each 256: row `16 z + 4 y + x / 8` of 32, chunk `x % 8`.
    let me = tz * 128 + ty * 32 + tx;
    let r8 = tz * 16 + ty * 4 + tx / 8;
    let c8 = tx % 8;
    let row0 = block_idx().y as usize * 128;
    let col0 = block_idx().x as usize * 256;
    let n = n as usize;
    let kc = k as usize / 8;
    let steps = k as usize / 64;
    let mut acc = [0.0f32; 128];
    for p in 0..2 {
        if p < steps {
            for i in 0..4 {
                cp_async(
                    &mut a_tile[p * 1024 + i * 256 + me],
                    &a[(row0 + i * 32 + r8) * kc + p * 8 + c8],
                );
            }
            for i in 0..8 {
                cp_async(
                    &mut b_tile[p * 2048 + i * 256 + me],
                    &bt[(col0 + i * 32 + r8) * kc + p * 8 + c8],
                );
            }
        }
        cp_async_commit();
    }
    for step in 0..steps {
        cp_async_wait(1);
        sync_block_threads();
        if step + 2 < steps {
            let s = (step + 2) % 4;
            let kt = (step + 2) * 8;
            for i in 0..4 {
                cp_async(
                    &mut a_tile[s * 1024 + i * 256 + me],
                    &a[(row0 + i * 32 + r8) * kc + kt + c8],
                );
            }
            for i in 0..8 {
                cp_async(
                    &mut b_tile[s * 2048 + i * 256 + me],
                    &bt[(col0 + i * 32 + r8) * kc + kt + c8],
                );
            }
        }
        cp_async_commit();
        let s = step % 4;
        for kk in 0..4 {
            wgmma_m64n256k16(
                &mut acc,
                &a_tile[s * 1024 + tz * 512 + kk * 2],
                &b_tile[s * 2048 + kk * 2],
            );
        }
        wgmma_commit();
        wgmma_wait(1);
    }
    wgmma_wait(0);
    // Value `4 j + e` of a thread: row `16 y + x / 4 + 8 (e / 2)` of its warpgroup's 64,
    // column `8 j + 2 (x % 4) + e % 2`.
    let g = tx / 4;
    let q = tx % 4;
    for j in 0..32 {
        for e in 0..4 {
            let r = row0 + tz * 64 + ty * 16 + g + 8 * (e >> 1);
            let col = col0 + j * 8 + 2 * q + (e & 1);
            c[r * n + col] = acc[j * 4 + e];
        }
    }
}

/// One warpgroup multiplies a 64x16 tile of `a` by the transpose of a 16x16 one of `bt`
/// (`out` is 64x16, row-major): the tiles copied into place, a barrier, one
/// `wgmma_m64n16k16`, its wait.
#[kernel(block = 128)]
pub fn wgmma_tile(out: &mut [f32], a: &[[bf16; 8]], bt: &[[bf16; 8]]) {
    let a_tile = shared::<[[bf16; 8]; 512]>();
    let b_tile = shared::<[[bf16; 8]; 128]>();
    let t = thread_idx().x as usize;
    // Row `r` of a matrix holds its 16 values in chunks `8 r` and `8 r + 1`.
    a_tile[8 * (t / 2) + t % 2] = a[t];
    if t < 32 {
        b_tile[8 * (t / 2) + t % 2] = bt[t];
    }
    sync_block_threads();
    let mut acc = [0.0f32; 8];
    wgmma_m64n16k16(&mut acc, &a_tile[0], &b_tile[0]);
    wgmma_commit();
    wgmma_wait(0);
    let w = t / 32;
    let l = t % 32;
    for j in 0..2 {
        for e in 0..4 {
            let r = 16 * w + l / 4 + 8 * (e / 2);
            let col = 8 * j + 2 * (l % 4) + e % 2;
            out[r * 16 + col] = acc[j * 4 + e];
        }
    }
}
