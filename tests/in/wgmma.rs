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
pub fn gemm_bf16_wgmma(c: &mut [[f32; 2]], a: &[[bf16; 8]], bt: &[[bf16; 8]], n: u32, k: u32) {
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
    // Values `4 j + 2 h` and `4 j + 2 h + 1` of a thread: row `16 y + x / 4 + 8 h` of its
    // warpgroup's 64, columns `8 j + 2 (x % 4)` and the next, one 8-byte pair of `c`.
    let g = tx / 4;
    let q = tx % 4;
    for j in 0..32 {
        for h in 0..2 {
            let r = row0 + tz * 64 + ty * 16 + g + 8 * h;
            c[r * (n / 2) + col0 / 2 + j * 4 + q] = [acc[j * 4 + 2 * h], acc[j * 4 + 2 * h + 1]];
        }
    }
}

/// [`gemm_bf16_wgmma`] in TF32: `c = a * bt^T` for row-major `f32` `a` (`m x k`) and `bt`
/// (`n x k`) read as 16-byte chunks, `k` a multiple of 32; `wgmma_m64n256k8_tf32`, whose
/// inputs are the `f32` values with their low 13 mantissa bits ignored. A matrix row of 128
/// bytes is 32 values here, so a stage is 32 deep (the same 192 KiB in four stages).
#[kernel(block = (32, 4, 2))]
pub fn gemm_tf32_wgmma(c: &mut [[f32; 2]], a: &[[f32; 4]], bt: &[[f32; 4]], n: u32, k: u32) {
    let a_tile = shared::<[[f32; 4]; 4096]>();
    let b_tile = shared::<[[f32; 4]; 8192]>();
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
    let kc = k as usize / 4;
    let steps = k as usize / 32;
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
            wgmma_m64n256k8_tf32(
                &mut acc,
                &a_tile[s * 1024 + tz * 512 + kk * 2],
                &b_tile[s * 2048 + kk * 2],
            );
        }
        wgmma_commit();
        wgmma_wait(1);
    }
    wgmma_wait(0);
    // Values `4 j + 2 h` and `4 j + 2 h + 1` of a thread: row `16 y + x / 4 + 8 h` of its
    // warpgroup's 64, columns `8 j + 2 (x % 4)` and the next, one 8-byte pair of `c`.
    let g = tx / 4;
    let q = tx % 4;
    for j in 0..32 {
        for h in 0..2 {
            let r = row0 + tz * 64 + ty * 16 + g + 8 * h;
            c[r * (n / 2) + col0 / 2 + j * 4 + q] = [acc[j * 4 + 2 * h], acc[j * 4 + 2 * h + 1]];
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

/// `wgmma_tile` with `A` from registers, `rounds` times into one accumulator (`out = rounds *
/// a btᵀ`): each thread's fragment of `a` (64x16, row-major) loaded as
/// `WgmmaShape::a_frag_at` places it, `wgmma_m64n16k16(&mut acc, &fa, &b_tile[0])`, its wait.
/// The loop's exit leaves code with a warp-wide operation for a loop that syncs, so the
/// simulator runs it as one future per thread (the fragments' rows move by shuffles); with
/// `rounds == 1` straight-line code would be the same.
#[kernel(block = 128)]
pub fn wgmma_rs_rounds(out: &mut [f32], a: &[bf16], bt: &[[bf16; 8]], rounds: u32) {
    let b_tile = shared::<[[bf16; 8]; 128]>();
    let t = thread_idx().x as usize;
    if t < 32 {
        b_tile[8 * (t / 2) + t % 2] = bt[t];
    }
    let w = t / 32;
    let l = t % 32;
    let mut fa = [bf16::ZERO; 8];
    for i in 0..8 {
        let r = 16 * w + l / 4 + 8 * ((i >> 1) & 1);
        let kk = 2 * (l % 4) + (i & 1) + 8 * (i >> 2);
        fa[i] = a[r * 16 + kk];
    }
    let mut acc = [0.0f32; 8];
    let mut r = 0u32;
    loop {
        sync_block_threads();
        wgmma_m64n16k16(&mut acc, &fa, &b_tile[0]);
        wgmma_commit();
        wgmma_wait(0);
        r += 1;
        if r >= rounds {
            break;
        }
    }
    for j in 0..2 {
        for e in 0..4 {
            let row = 16 * w + l / 4 + 8 * (e / 2);
            let col = 8 * j + 2 * (l % 4) + e % 2;
            out[row * 16 + col] = acc[j * 4 + e];
        }
    }
}

/// `wgmma_rs_rounds` once, in straight-line code (phase-split in the simulator: the warp's
/// fragments gathered, then each lane's part), with `B` given `k x n` (`wgmma_m64n64k16_kn`:
/// `b` is 16x64, row-major, one 128-byte row of chunks a `k`).
#[kernel(block = 128)]
pub fn wgmma_rs_kn(out: &mut [f32], a: &[bf16], b: &[[bf16; 8]]) {
    let b_tile = shared::<[[bf16; 8]; 128]>();
    let t = thread_idx().x as usize;
    b_tile[t] = b[t];
    sync_block_threads();
    let w = t / 32;
    let l = t % 32;
    let mut fa = [bf16::ZERO; 8];
    for i in 0..8 {
        let r = 16 * w + l / 4 + 8 * ((i >> 1) & 1);
        let kk = 2 * (l % 4) + (i & 1) + 8 * (i >> 2);
        fa[i] = a[r * 16 + kk];
    }
    let mut acc = [0.0f32; 32];
    wgmma_m64n64k16_kn(&mut acc, &fa, &b_tile[0]);
    wgmma_commit();
    wgmma_wait(0);
    for j in 0..8 {
        for e in 0..4 {
            let row = 16 * w + l / 4 + 8 * (e / 2);
            let col = 8 * j + 2 * (l % 4) + e % 2;
            out[row * 64 + col] = acc[j * 4 + e];
        }
    }
}

/// `attention_forward` (`o = softmax(q kᵀ / 8) v` per head, `d = 64`, no mask, `seq` a
/// multiple of 128) on warpgroup multiplies: 128 queries a block of two warpgroups
/// (`block = (32, 4, 2)`), each 64, walking the keys 64 at a time:
///
/// - `s = q kᵀ` by `wgmma_m64n64k16` from the queries' tile and the keys' stage (both
///   K-major: a query's and a key's 64 values are one 128-byte row), waited for at once;
/// - the online softmax on `s` in registers (a row's 64 scores are spread over the four lanes
///   of a quad: two shuffles give its maximum), `o` rescaled;
/// - `p` (rounded to bf16) made in registers as `A` fragments (values `8 c .. 8 c + 7` of an
///   accumulator are the fragment of its columns `16 c ..`), and `o += p v` by
///   `wgmma_m64n64k16_kn` with `A` from them (`v` given keys x `d`), left in flight: it runs
///   beside the next step's barrier and `q kᵀ`, and one wait covers both.
///
/// Four `cp_async` stages of the keys and values, filled two steps ahead; each step's refill
/// comes right after the step's barrier, which follows every warpgroup's wait for the
/// multiplies that read the stage it refills (those of two steps before): one barrier a step.
/// `fast_math`, as `attention_forward`.
#[kernel(block = (32, 4, 2), fast_math)]
pub fn attention_wgmma(
    o: &mut [[f32; 2]],
    q: &[[bf16; 8]],
    k: &[[bf16; 8]],
    v: &[[bf16; 8]],
    seq: u32,
) {
    // Row `r` (a query, a key) at chunks `8 r ..`; stage `s` of the keys and values at `512 s`.
    let q_tile = shared::<[[bf16; 8]; 1024]>();
    let k_tile = shared::<[[bf16; 8]; 2048]>();
    let v_tile = shared::<[[bf16; 8]; 2048]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let tz = thread_idx().z as usize;
    // This thread's chunk of each 256: row `16 z + 4 y + x / 8` of 32, chunk `x % 8`.
    let me = tz * 128 + ty * 32 + tx;
    let r8 = tz * 16 + ty * 4 + tx / 8;
    let c8 = tx % 8;
    let seq = seq as usize;
    let head = block_idx().y as usize * seq;
    let q0 = head + block_idx().x as usize * 128;
    let tiles = seq / 64;
    for p in 0..2 {
        // The queries with the first keys.
        if p == 0 {
            for i in 0..4 {
                cp_async(&mut q_tile[i * 256 + me], &q[(q0 + i * 32 + r8) * 8 + c8]);
            }
        }
        if p < tiles {
            for i in 0..2 {
                let key = head + p * 64 + i * 32 + r8;
                cp_async(&mut k_tile[p * 512 + i * 256 + me], &k[key * 8 + c8]);
                cp_async(&mut v_tile[p * 512 + i * 256 + me], &v[key * 8 + c8]);
            }
        }
        cp_async_commit();
    }
    // Value `4 j + e` of `s` and of `o`: row `16 y + x / 4 + 8 (e / 2)` of the warpgroup's 64,
    // column (key, `d`) `8 j + 2 (x % 4) + e % 2`.
    let mut s = [0.0f32; 32];
    let mut oacc = [0.0f32; 32];
    // `p`'s `A` fragments, one per 16 keys: element `i` of `p[c]` is value `8 c + i` of `s`.
    let mut p = [[bf16::ZERO; 8]; 4];
    // The two rows' running maximum (in units of `log2`) and this lane's part of their sums.
    let mut m: [f32; 2] = [f32::NEG_INFINITY; 2];
    let mut l = [0.0f32; 2];
    let scale = 0.125f32 * 1.442_695_f32;
    let g = tx / 4;
    let qd = tx % 4;
    for j in 0..tiles {
        let st = j % 4;
        cp_async_wait(1);
        // Stage `st` is in, and every warpgroup has waited for the multiplies of two steps
        // before: the stage they read is free.
        sync_block_threads();
        if j + 2 < tiles {
            let ns = (j + 2) % 4;
            for i in 0..2 {
                let key = head + (j + 2) * 64 + i * 32 + r8;
                cp_async(&mut k_tile[ns * 512 + i * 256 + me], &k[key * 8 + c8]);
                cp_async(&mut v_tile[ns * 512 + i * 256 + me], &v[key * 8 + c8]);
            }
        }
        cp_async_commit();
        for i in 0..32 {
            s[i] = 0.0;
        }
        for kk in 0..4 {
            wgmma_m64n64k16(
                &mut s,
                &q_tile[tz * 512 + kk * 2],
                &k_tile[st * 512 + kk * 2],
            );
        }
        wgmma_commit();
        // This step's `s`, and the step before's `o += p v`: `o` and `p` are free.
        wgmma_wait(0);
        for h in 0..2 {
            let mut mx = f32::NEG_INFINITY;
            for jj in 0..8 {
                mx = mx.max(s[jj * 4 + 2 * h]).max(s[jj * 4 + 2 * h + 1]);
            }
            mx = mx.max(warp_shuffle_xor(mx, 1));
            mx = mx.max(warp_shuffle_xor(mx, 2));
            let m_new = m[h].max(mx * scale);
            let alpha = (m[h] - m_new).exp2();
            let mut sum = 0.0f32;
            for jj in 0..8 {
                for e in 0..2 {
                    let pe = (s[jj * 4 + 2 * h + e] * scale - m_new).exp2();
                    p[jj / 2][4 * (jj % 2) + 2 * h + e] = bf16::from_f32(pe);
                    sum += pe;
                }
                oacc[jj * 4 + 2 * h] *= alpha;
                oacc[jj * 4 + 2 * h + 1] *= alpha;
            }
            l[h] = l[h] * alpha + sum;
            m[h] = m_new;
        }
        for kk in 0..4 {
            wgmma_m64n64k16_kn(&mut oacc, &p[kk], &v_tile[st * 512 + kk * 128]);
        }
        wgmma_commit();
    }
    wgmma_wait(0);
    // A row's sum is over its quad's four lanes.
    for h in 0..2 {
        l[h] += warp_shuffle_xor(l[h], 1);
        l[h] += warp_shuffle_xor(l[h], 2);
    }
    // Columns `8 jj + 2 (x % 4)` and the next of a row: one 8-byte pair of `o`.
    for jj in 0..8 {
        for h in 0..2 {
            let row = q0 + tz * 64 + ty * 16 + g + 8 * h;
            o[row * 32 + jj * 4 + qd] =
                [oacc[jj * 4 + 2 * h] / l[h], oacc[jj * 4 + 2 * h + 1] / l[h]];
        }
    }
}
