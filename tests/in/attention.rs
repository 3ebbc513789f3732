//! A fused attention forward pass (FlashAttention-2's structure) on tensor cores: `mma.sync`,
//! `ldmatrix` and a two-stage `cp_async` pipeline, the softmax online in registers.

use cuphase::half::bf16;
use cuphase::prelude::*;

/// `o = softmax(q kᵀ / 8) v` for each of the `grid.y` heads (`q`, `k`, `v`: `seq x 64` bf16,
/// row-major, heads one after another, read as 16-byte chunks; `o` the same in f32), without
/// a mask, `seq` a multiple of 128. A block of 4 warps (`(32, 4)`) takes 128 queries, each
/// warp 32 (two 16-row tiles), and walks the keys 64 at a time:
///
/// - `s = q kᵀ` for its 32 queries and the 64 keys: 2 x 8 accumulators, `q`'s fragments
///   loaded once into registers, `k`'s by `ldmatrix` (a key's row is a column of `kᵀ`);
/// - the online softmax: each row's running maximum `m` and sum `l` (a row's 64 scores are
///   spread over the four lanes of a quad: two shuffles give its maximum), the scores turned
///   into `exp2(s * log2(e) / 8 - m)` and the accumulators of `o` rescaled by the change of `m`;
/// - `o += p v`, `p`'s fragments made from the score accumulators (an accumulator's layout is
///   an `a` fragment's, once rounded to bf16) and `v`'s loaded by `ldmatrix_trans`.
///
/// The keys and values of the next 64 keys are copied by `cp_async` while these are used (two
/// stages); `o` is divided by `l` at the end. Tiles are stored by 16-byte columns (chunk `c`
/// of row `r` at `c * rows + r`), so each matrix of a fragment load reads 8 consecutive chunks.
///
/// `fast_math`: `exp2` is the GPU's `ex2.approx` (one instruction; cuphase's own `exp2`, the
/// same bits on both back ends, takes dozens, 64 a lane per 64 keys) and products may fuse
/// with sums, as in FlashAttention; the simulator computes the library's `exp2`, so the two
/// back ends agree within the test's tolerance, not bit for bit.
#[kernel(block = (32, 4), fast_math)]
pub fn attention_forward(
    o: &mut [f32],
    q: &[[bf16; 8]],
    k: &[[bf16; 8]],
    v: &[[bf16; 8]],
    seq: u32,
) {
    let q_tile = shared::<[[bf16; 8]; 1024]>();
    // Two stages of 64 keys: `512 s + 64 c + key`.
    let k_tile = shared::<[[bf16; 8]; 1024]>();
    let v_tile = shared::<[[bf16; 8]; 1024]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let t = ty * 32 + tx;
    let seq = seq as usize;
    let head = block_idx().y as usize * seq;
    let q0 = block_idx().x as usize * 128;
    let wm = ty * 32;
    let tiles = seq / 64;
    // This thread copies row `t` of the queries and, of a stage, row `t % 64` of the keys and
    // of the values, chunk columns `4 (t / 64) + e`.
    for e in 0..8 {
        cp_async(&mut q_tile[e * 128 + t], &q[(head + q0 + t) * 8 + e]);
    }
    for e in 0..4 {
        let c = (t / 64) * 4 + e;
        cp_async(&mut k_tile[c * 64 + t % 64], &k[(head + t % 64) * 8 + c]);
        cp_async(&mut v_tile[c * 64 + t % 64], &v[(head + t % 64) * 8 + c]);
    }
    cp_async_commit();
    if 1 < tiles {
        for e in 0..4 {
            let c = (t / 64) * 4 + e;
            cp_async(
                &mut k_tile[512 + c * 64 + t % 64],
                &k[(head + 64 + t % 64) * 8 + c],
            );
            cp_async(
                &mut v_tile[512 + c * 64 + t % 64],
                &v[(head + 64 + t % 64) * 8 + c],
            );
        }
    }
    cp_async_commit();
    cp_async_wait(1);
    sync_block_threads();
    // The queries' fragments, `[4 mi + kk]`: rows `wm + 16 mi ..`, `d` in `16 kk ..`.
    let mut fq: [[bf16; 8]; 8] = [[bf16::ZERO; 8]; 8];
    for mi in 0..2 {
        for kk in 0..4 {
            let row = wm + mi * 16 + tx % 16;
            ldmatrix(
                &mut fq[mi * 4 + kk],
                &q_tile[(2 * kk + tx / 16) * 128 + row],
            );
        }
    }
    // `[8 mi + j]`: 16 rows by 8 columns (keys for `s`, `d` for `o`); a lane holds rows
    // `tx / 4` (elements 0, 1) and `tx / 4 + 8` (2, 3).
    let mut oacc = [[0.0f32; 4]; 16];
    let mut s = [[0.0f32; 4]; 16];
    // The rows' running maximum (in units of `log2`) and this lane's part of their sums: `[2 mi + h]`.
    let mut m: [f32; 4] = [f32::NEG_INFINITY; 4];
    let mut l = [0.0f32; 4];
    let scale = 0.125f32 * 1.442_695_f32;
    let mut fk = [bf16::ZERO; 4];
    let mut fv = [bf16::ZERO; 4];
    let mut fp = [bf16::ZERO; 8];
    for j in 0..tiles {
        let st = j % 2;
        for i in 0..16 {
            for e in 0..4 {
                s[i][e] = 0.0;
            }
        }
        for kk in 0..4 {
            for nj in 0..8 {
                // Keys `8 nj + tx % 8`, `d` chunk `2 kk + (tx / 8) % 2`.
                let c = 2 * kk + (tx / 8) % 2;
                ldmatrix(&mut fk, &k_tile[st * 512 + c * 64 + nj * 8 + tx % 8]);
                for mi in 0..2 {
                    mma_m16n8k16(&mut s[mi * 8 + nj], &fq[mi * 4 + kk], &fk);
                }
            }
        }
        for mi in 0..2 {
            for h in 0..2 {
                let r = mi * 2 + h;
                let mut mx = f32::NEG_INFINITY;
                for nj in 0..8 {
                    mx = mx.max(s[mi * 8 + nj][2 * h]).max(s[mi * 8 + nj][2 * h + 1]);
                }
                mx = mx.max(warp_shuffle_xor(mx, 1));
                mx = mx.max(warp_shuffle_xor(mx, 2));
                let m_new = m[r].max(mx * scale);
                let alpha = (m[r] - m_new).exp2();
                let mut sum = 0.0f32;
                for nj in 0..8 {
                    for e in 0..2 {
                        let p = (s[mi * 8 + nj][2 * h + e] * scale - m_new).exp2();
                        s[mi * 8 + nj][2 * h + e] = p;
                        sum += p;
                    }
                }
                l[r] = l[r] * alpha + sum;
                m[r] = m_new;
                for dj in 0..8 {
                    oacc[mi * 8 + dj][2 * h] *= alpha;
                    oacc[mi * 8 + dj][2 * h + 1] *= alpha;
                }
            }
        }
        for kk in 0..4 {
            for dj in 0..8 {
                // Keys `16 kk + tx % 16`, `d` chunk `dj`.
                ldmatrix_trans(&mut fv, &v_tile[st * 512 + dj * 64 + kk * 16 + tx % 16]);
                for mi in 0..2 {
                    // Keys `16 kk ..` of rows `wm + 16 mi ..`: score blocks `2 kk` and `2 kk + 1`.
                    for e in 0..4 {
                        fp[e] = bf16::from_f32(s[mi * 8 + 2 * kk][e]);
                        fp[4 + e] = bf16::from_f32(s[mi * 8 + 2 * kk + 1][e]);
                    }
                    mma_m16n8k16(&mut oacc[mi * 8 + dj], &fp, &fv);
                }
            }
        }
        // Every warp is done with this stage: refill it with the keys two tiles on, and wait
        // for the next tile's.
        sync_block_threads();
        if j + 2 < tiles {
            let key0 = head + (j + 2) * 64;
            for e in 0..4 {
                let c = (t / 64) * 4 + e;
                cp_async(
                    &mut k_tile[st * 512 + c * 64 + t % 64],
                    &k[(key0 + t % 64) * 8 + c],
                );
                cp_async(
                    &mut v_tile[st * 512 + c * 64 + t % 64],
                    &v[(key0 + t % 64) * 8 + c],
                );
            }
        }
        cp_async_commit();
        cp_async_wait(1);
        sync_block_threads();
    }
    // A row's sum is over its quad's four lanes.
    for r in 0..4 {
        l[r] += warp_shuffle_xor(l[r], 1);
        l[r] += warp_shuffle_xor(l[r], 2);
    }
    let g = tx / 4;
    let qd = tx % 4;
    for mi in 0..2 {
        for dj in 0..8 {
            for e in 0..4 {
                let h = e / 2;
                let row = head + q0 + wm + mi * 16 + g + 8 * h;
                let col = dj * 8 + 2 * qd + e % 2;
                o[row * 64 + col] = oacc[mi * 8 + dj][e] / l[mi * 2 + h];
            }
        }
    }
}
