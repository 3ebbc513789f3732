//! Warp-level matrix multiply-accumulate (`mma_m16n8k16`, `mma_m16n8k8_tf32`): one tile per
//! warp with the fragments loaded by the documented layouts, a bf16 GEMM over shared-memory
//! tiles with two-dimensional fragment arrays, and a kernel whose loop keeps the simulator on
//! one future per thread (the shuffle form of the multiply).

use cuphase::half::{bf16, f16};
use cuphase::prelude::*;

/// `d = a * b + c` for 16x8 tiles, `a` 16x16 and `b` 16x8 row-major bf16: block `i` (one
/// warp) computes tile `i` of each slice.
#[kernel(block = 32)]
pub fn mma_tile_bf16(d: &mut [f32], a: &[bf16], b: &[bf16], c: &[f32]) {
    let lane = thread_idx().x as usize;
    let tile = block_idx().x as usize;
    let g = lane / 4;
    let q = lane % 4;
    let mut fa: [bf16; 8] = [bf16::ZERO; 8];
    for e in 0..8 {
        fa[e] = a[tile * 256 + (g + 8 * ((e >> 1) & 1)) * 16 + 2 * q + (e & 1) + 8 * (e >> 2)];
    }
    let mut fb: [bf16; 4] = [bf16::ZERO; 4];
    for e in 0..4 {
        fb[e] = b[tile * 128 + (2 * q + (e & 1) + 8 * (e >> 1)) * 8 + g];
    }
    let mut acc = [0.0f32; 4];
    for e in 0..4 {
        acc[e] = c[tile * 128 + (g + 8 * (e >> 1)) * 8 + 2 * q + (e & 1)];
    }
    mma_m16n8k16(&mut acc, &fa, &fb);
    for e in 0..4 {
        d[tile * 128 + (g + 8 * (e >> 1)) * 8 + 2 * q + (e & 1)] = acc[e];
    }
}

/// The same tiles with f16 inputs.
#[kernel(block = 32)]
pub fn mma_tile_f16(d: &mut [f32], a: &[f16], b: &[f16], c: &[f32]) {
    let lane = thread_idx().x as usize;
    let tile = block_idx().x as usize;
    let g = lane / 4;
    let q = lane % 4;
    let mut fa: [f16; 8] = [f16::ZERO; 8];
    for e in 0..8 {
        fa[e] = a[tile * 256 + (g + 8 * ((e >> 1) & 1)) * 16 + 2 * q + (e & 1) + 8 * (e >> 2)];
    }
    let mut fb: [f16; 4] = [f16::ZERO; 4];
    for e in 0..4 {
        fb[e] = b[tile * 128 + (2 * q + (e & 1) + 8 * (e >> 1)) * 8 + g];
    }
    let mut acc = [0.0f32; 4];
    for e in 0..4 {
        acc[e] = c[tile * 128 + (g + 8 * (e >> 1)) * 8 + 2 * q + (e & 1)];
    }
    mma_m16n8k16(&mut acc, &fa, &fb);
    for e in 0..4 {
        d[tile * 128 + (g + 8 * (e >> 1)) * 8 + 2 * q + (e & 1)] = acc[e];
    }
}

/// `d = a * b + c` for 16x8 tiles, `a` 16x8 and `b` 8x8 row-major `f32` rounded to TF32.
#[kernel(block = 32)]
pub fn mma_tile_tf32(d: &mut [f32], a: &[f32], b: &[f32], c: &[f32]) {
    let lane = thread_idx().x as usize;
    let tile = block_idx().x as usize;
    let g = lane / 4;
    let q = lane % 4;
    let mut fa = [0.0f32; 4];
    for e in 0..4 {
        fa[e] = a[tile * 128 + (g + 8 * (e & 1)) * 8 + q + 4 * (e >> 1)];
    }
    let mut fb = [0.0f32; 2];
    for e in 0..2 {
        fb[e] = b[tile * 64 + (q + 4 * e) * 8 + g];
    }
    let mut acc = [0.0f32; 4];
    for e in 0..4 {
        acc[e] = c[tile * 128 + (g + 8 * (e >> 1)) * 8 + 2 * q + (e & 1)];
    }
    mma_m16n8k8_tf32(&mut acc, &fa, &fb);
    for e in 0..4 {
        d[tile * 128 + (g + 8 * (e >> 1)) * 8 + 2 * q + (e & 1)] = acc[e];
    }
}

/// `d = a * b` repeated `rounds` times into one accumulator (`d = rounds * a * b`, tile `i`
/// of `d` by block `i`), in a loop
/// whose exit leaves code with a warp-wide multiply for a loop that syncs: the simulator runs
/// it as one future per thread, multiplying by shuffles.
#[kernel(block = 32)]
pub fn mma_rounds_bf16(d: &mut [f32], a: &[bf16], b: &[bf16], rounds: u32) {
    let lane = thread_idx().x as usize;
    let tile = block_idx().x as usize;
    let g = lane / 4;
    let q = lane % 4;
    let mut fa: [bf16; 8] = [bf16::ZERO; 8];
    for e in 0..8 {
        fa[e] = a[(g + 8 * ((e >> 1) & 1)) * 16 + 2 * q + (e & 1) + 8 * (e >> 2)];
    }
    let mut fb: [bf16; 4] = [bf16::ZERO; 4];
    for e in 0..4 {
        fb[e] = b[(2 * q + (e & 1) + 8 * (e >> 1)) * 8 + g];
    }
    let mut acc = [0.0f32; 4];
    let mut r = 0u32;
    loop {
        mma_m16n8k16(&mut acc, &fa, &fb);
        r += 1;
        if r >= rounds {
            break;
        }
        sync_block_threads();
    }
    for e in 0..4 {
        d[tile * 128 + (g + 8 * (e >> 1)) * 8 + 2 * q + (e & 1)] = acc[e];
    }
}

/// `c = a * b` for row-major bf16 `a` (`m x k`) and `b` (`k x n`), `f32` `c`; `m` and `n`
/// multiples of 64, `k` of 32. A block of 4 warps computes a 64x64 tile through 64x32 and
/// 32x64 tiles of shared memory; each warp a 32x32 part: 2 x 4 accumulators of 16x8.
#[kernel(block = 128)]
pub fn gemm_bf16(c: &mut [f32], a: &[bf16], b: &[bf16], n: u32, k: u32) {
    let a_tile = shared::<[[bf16; 32]; 64]>();
    let b_tile = shared::<[[bf16; 64]; 32]>();
    let t = thread_idx().x as usize;
    let warp = t / 32;
    let lane = t % 32;
    let g = lane / 4;
    let q = lane % 4;
    let wm = (warp / 2) * 32;
    let wn = (warp % 2) * 32;
    let row0 = block_idx().y as usize * 64;
    let col0 = block_idx().x as usize * 64;
    let n = n as usize;
    let k = k as usize;
    let mut acc = [[0.0f32; 4]; 8];
    let mut fa: [[bf16; 8]; 2] = [[bf16::ZERO; 8]; 2];
    let mut fb: [[bf16; 4]; 4] = [[bf16::ZERO; 4]; 4];
    for k0 in (0..k).step_by(32) {
        for e in 0..16 {
            let idx = e * 128 + t;
            a_tile[idx / 32][idx % 32] = a[(row0 + idx / 32) * k + k0 + idx % 32];
            b_tile[idx / 64][idx % 64] = b[(k0 + idx / 64) * n + col0 + idx % 64];
        }
        sync_block_threads();
        for kk in (0..32).step_by(16) {
            for i in 0..2 {
                for e in 0..8 {
                    fa[i][e] = a_tile[wm + i * 16 + g + 8 * ((e >> 1) & 1)]
                        [kk + 2 * q + (e & 1) + 8 * (e >> 2)];
                }
            }
            for j in 0..4 {
                for e in 0..4 {
                    fb[j][e] = b_tile[kk + 2 * q + (e & 1) + 8 * (e >> 1)][wn + j * 8 + g];
                }
            }
            for i in 0..2 {
                for j in 0..4 {
                    mma_m16n8k16(&mut acc[i * 4 + j], &fa[i], &fb[j]);
                }
            }
        }
        sync_block_threads();
    }
    for i in 0..2 {
        for j in 0..4 {
            for e in 0..4 {
                let r = row0 + wm + i * 16 + g + 8 * (e >> 1);
                let col = col0 + wn + j * 8 + 2 * q + (e & 1);
                c[r * n + col] = acc[i * 4 + j][e];
            }
        }
    }
}

/// Every thread's first accumulator element after multiplying fragments of ones: 16. No block
/// shape is declared, so the launch checks that blocks are whole warps.
#[kernel]
pub fn mma_ones(out: &mut [f32]) {
    let i = global_idx().x as usize;
    let fa: [bf16; 8] = [bf16::ONE; 8];
    let fb: [bf16; 4] = [bf16::ONE; 4];
    let mut acc = [0.0f32; 4];
    mma_m16n8k16(&mut acc, &fa, &fb);
    if i < out.len() {
        out[i] = acc[0];
    }
}

/// The bf16 GEMM with larger tiles: `m` and `n` multiples of 128, `k` of 32, rows of `a` and
/// `b` read as 16-byte chunks (`[bf16; 8]`). A block of 8 warps computes a 128x128 tile through
/// a 128x32 tile of `a` (rows of 4 chunks, padded to 5) and a 32x128 tile of `b` (pairs of rows,
/// 32 chunks padded to 33) in shared memory, laid out so that the fragments' loads meet no
/// bank conflicts; warp `(y, z)` computes the 64x32 part at rows `64 z`, columns `32 y`: 4 x 4
/// accumulators. The block's three axes make each thread's chunk of the tiles an affine index,
/// which the hazard proof separates.
#[kernel(block = (32, 4, 2))]
pub fn gemm_bf16_128(c: &mut [f32], a: &[[bf16; 8]], b: &[[bf16; 8]], n: u32, k: u32) {
    let a_tile = shared::<[[bf16; 8]; 640]>();
    let b_tile = shared::<[[bf16; 8]; 528]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let tz = thread_idx().z as usize;
    let g = tx / 4;
    let q = tx % 4;
    let wm = tz * 64;
    let wn = ty * 32;
    let row0 = block_idx().y as usize * 128;
    let col0 = block_idx().x as usize * 128;
    let n = n as usize;
    let k = k as usize;
    let mut acc = [[0.0f32; 4]; 16];
    let mut fa: [[bf16; 8]; 4] = [[bf16::ZERO; 8]; 4];
    let mut fb: [[bf16; 4]; 4] = [[bf16::ZERO; 4]; 4];
    for k0 in (0..k).step_by(32) {
        for e in 0..2 {
            // Row `64 z + 32 e + x` of the a tile, chunk `y`; row pair `4 y + 2 z + e` of the
            // b tile, chunk `x` of its two rows' 32.
            let r = tz * 64 + e * 32 + tx;
            a_tile[r * 5 + ty] = a[(row0 + r) * (k / 8) + k0 / 8 + ty];
            let d = ty * 4 + tz * 2 + e;
            b_tile[d * 33 + tx] = b[(k0 + 2 * d + tx / 16) * (n / 8) + col0 / 8 + tx % 16];
        }
        sync_block_threads();
        for kk in (0..32).step_by(16) {
            for i in 0..4 {
                for e in 0..8 {
                    let r = wm + i * 16 + g + 8 * ((e >> 1) & 1);
                    let col = kk + 2 * q + (e & 1) + 8 * (e >> 2);
                    fa[i][e] = a_tile[r * 5 + col / 8][col % 8];
                }
            }
            for j in 0..4 {
                for e in 0..4 {
                    let r = kk + 2 * q + (e & 1) + 8 * (e >> 1);
                    let col = wn + j * 8 + g;
                    fb[j][e] = b_tile[r / 2 * 33 + r % 2 * 16 + col / 8][col % 8];
                }
            }
            for i in 0..4 {
                for j in 0..4 {
                    mma_m16n8k16(&mut acc[i * 4 + j], &fa[i], &fb[j]);
                }
            }
        }
        sync_block_threads();
    }
    for i in 0..4 {
        for j in 0..4 {
            for e in 0..4 {
                let r = row0 + wm + i * 16 + g + 8 * (e >> 1);
                let col = col0 + wn + j * 8 + 2 * q + (e & 1);
                c[r * n + col] = acc[i * 4 + j][e];
            }
        }
    }
}

/// [`gemm_bf16_128`] with 64-deep tiles (half the barriers) and the next tiles' chunks loaded
/// into registers while the warps multiply the current ones (`k` a multiple of 64).
#[kernel(block = (32, 4, 2))]
pub fn gemm_bf16_128_k64(c: &mut [f32], a: &[[bf16; 8]], b: &[[bf16; 8]], n: u32, k: u32) {
    // 128 rows of 8 chunks (and one of padding); 32 pairs of rows of 32 chunks (and one).
    let a_tile = shared::<[[bf16; 8]; 1152]>();
    let b_tile = shared::<[[bf16; 8]; 1056]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let tz = thread_idx().z as usize;
    let g = tx / 4;
    let q = tx % 4;
    let wm = tz * 64;
    let wn = ty * 32;
    let row0 = block_idx().y as usize * 128;
    let col0 = block_idx().x as usize * 128;
    let n = n as usize;
    let k = k as usize;
    let mut acc = [[0.0f32; 4]; 16];
    let mut fa: [[bf16; 8]; 4] = [[bf16::ZERO; 8]; 4];
    let mut fb: [[bf16; 4]; 4] = [[bf16::ZERO; 4]; 4];
    // This thread's chunks of the next tiles: a rows `64 z + 32 e1 + x`, chunks `y + 4 e2`;
    // b row pairs `8 y + 4 z + e`, chunk `x` of the pair's 32.
    let mut next_a: [[bf16; 8]; 4] = [[bf16::ZERO; 8]; 4];
    let mut next_b: [[bf16; 8]; 4] = [[bf16::ZERO; 8]; 4];
    for e1 in 0..2 {
        for e2 in 0..2 {
            next_a[e1 * 2 + e2] = a[(row0 + tz * 64 + e1 * 32 + tx) * (k / 8) + ty + 4 * e2];
        }
    }
    for e in 0..4 {
        let d = ty * 8 + tz * 4 + e;
        next_b[e] = b[(2 * d + tx / 16) * (n / 8) + col0 / 8 + tx % 16];
    }
    for k0 in (0..k).step_by(64) {
        for e1 in 0..2 {
            let r = tz * 64 + e1 * 32 + tx;
            a_tile[r * 9 + ty] = next_a[e1 * 2];
            a_tile[r * 9 + ty + 4] = next_a[e1 * 2 + 1];
        }
        for e in 0..4 {
            b_tile[(ty * 8 + tz * 4 + e) * 33 + tx] = next_b[e];
        }
        sync_block_threads();
        if k0 + 64 < k {
            let k1 = k0 + 64;
            for e1 in 0..2 {
                for e2 in 0..2 {
                    let r = row0 + tz * 64 + e1 * 32 + tx;
                    next_a[e1 * 2 + e2] = a[r * (k / 8) + k1 / 8 + ty + 4 * e2];
                }
            }
            for e in 0..4 {
                let d = ty * 8 + tz * 4 + e;
                next_b[e] = b[(k1 + 2 * d + tx / 16) * (n / 8) + col0 / 8 + tx % 16];
            }
        }
        for kk in (0..64).step_by(16) {
            for i in 0..4 {
                for e in 0..8 {
                    let r = wm + i * 16 + g + 8 * ((e >> 1) & 1);
                    let col = kk + 2 * q + (e & 1) + 8 * (e >> 2);
                    fa[i][e] = a_tile[r * 9 + col / 8][col % 8];
                }
            }
            for j in 0..4 {
                for e in 0..4 {
                    let r = kk + 2 * q + (e & 1) + 8 * (e >> 1);
                    let col = wn + j * 8 + g;
                    fb[j][e] = b_tile[r / 2 * 33 + r % 2 * 16 + col / 8][col % 8];
                }
            }
            for i in 0..4 {
                for j in 0..4 {
                    mma_m16n8k16(&mut acc[i * 4 + j], &fa[i], &fb[j]);
                }
            }
        }
        sync_block_threads();
    }
    for i in 0..4 {
        for j in 0..4 {
            for e in 0..4 {
                let r = row0 + wm + i * 16 + g + 8 * (e >> 1);
                let col = col0 + wn + j * 8 + 2 * q + (e & 1);
                c[r * n + col] = acc[i * 4 + j][e];
            }
        }
    }
}
