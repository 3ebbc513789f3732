//! Shared arrays of more than 48 KiB together, which cuphase carves from the start of dynamic
//! shared memory (CUDA allows a block 48 KiB of static shared memory, up to 227 KiB of dynamic
//! with the opt-in, which every launch of these kernels makes); and the GEMM they allow: bigger
//! block tiles and deeper pipelines.

use cuphase::half::bf16;
use cuphase::prelude::*;

/// 48 KiB, 16 KiB and the launch's dynamic array after them: each thread writes its column of
/// each, then reads another thread's. A carved array that overlapped another, or the dynamic
/// one, would give a wrong sum.
#[kernel(block = 256)]
pub fn large_tiles(out: &mut [f32]) {
    let big = shared::<[f32; 12288]>();
    let more = shared::<[[f32; 256]; 16]>();
    let rest = shared_slice::<u32>();
    let t = thread_idx().x as usize;
    for i in 0..48 {
        big[i * 256 + t] = (i * 256 + t) as f32;
    }
    for i in 0..16 {
        more[i][t] = -((i * 1000 + t) as f32);
    }
    if t < rest.len() {
        rest[t] = 3 * t as u32;
    }
    sync_block_threads();
    let u = 255 - t;
    let mut sum = 0.0f32;
    for i in 0..48 {
        sum += big[i * 256 + u];
    }
    for i in 0..16 {
        sum += more[i][u];
    }
    if u < rest.len() {
        sum += rest[u] as f32;
    }
    out[block_idx().x as usize * 256 + t] = sum;
}

/// `c = a * b` for row-major bf16 `a` (`m x k`) and `b` (`k x n`) read as 16-byte chunks, `m` a
/// multiple of 256, `n` of 128 and `k` of 32: 256x128 block tiles of 8 warps (`(32, 2, 4)`),
/// each warp 64x64 through 4 x 8 accumulators; four stages of 32-deep tiles (96 KiB, carved
/// from dynamic shared memory) that `cp_async` fills four steps ahead (three copies in flight
/// while a step multiplies, the wait only for the next); fragments double-buffered
/// in registers as in `gemm_bf16_ldmatrix_db`: each step loads the second 16-deep half of its
/// stage while it multiplies the first, and, after its one wait and barrier, refills the stage
/// it is done with and loads the next stage's first half while it multiplies its own second.
///
/// A stage holds its tiles by 16-byte columns, as `gemm_bf16_ldmatrix` does: chunk column `c`
/// of the 256 rows of `a` is `c * 256 + row`, of the 32 rows of `b` `c * 32 + k`, so the 8 rows
/// each matrix of a fragment load reads are 8 consecutive chunks (no bank conflicts, no
/// padding). Against `gemm_bf16_ldmatrix_db` (128x128 tiles of 4 warps, three stages in 48 KiB)
/// each block reads a quarter less of `a` and `b` per product, and three copies are in flight
/// while a stage is multiplied instead of two.
#[kernel(block = (32, 2, 4))]
pub fn gemm_bf16_wide(c: &mut [f32], a: &[[bf16; 8]], b: &[[bf16; 8]], n: u32, k: u32) {
    // Stage `s` of `a` at `1024 s` (4 chunk columns of 256 rows), of `b` at `512 s` (16 of 32).
    let a_tile = shared::<[[bf16; 8]; 4096]>();
    let b_tile = shared::<[[bf16; 8]; 2048]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let tz = thread_idx().z as usize;
    let wm = tz * 64;
    let wn = ty * 64;
    let row0 = block_idx().y as usize * 256;
    let col0 = block_idx().x as usize * 128;
    let n = n as usize;
    let k = k as usize;
    let steps = k / 32;
    let mut acc = [[0.0f32; 4]; 32];
    // Two sets of fragments: `[4 * set + i]` of `a`, `[8 * set + j]` of `b`.
    let mut fa: [[bf16; 8]; 8] = [[bf16::ZERO; 8]; 8];
    let mut fb: [[bf16; 4]; 16] = [[bf16::ZERO; 4]; 16];
    // This thread's chunks of a stage: row `64 z + 32 y + x` of `a`, chunk columns `e`; row `x`
    // of `b`, chunk columns `4 z + 2 y + e`. The first four stages, each its own group, written
    // out (the race proof tells a loop's last iteration from the others, not each iteration).
    if 0 < steps {
        for e in 0..4 {
            let row = tz * 64 + ty * 32 + tx;
            cp_async(&mut a_tile[e * 256 + row], &a[(row0 + row) * (k / 8) + e]);
        }
        for e in 0..2 {
            let cb = tz * 4 + ty * 2 + e;
            cp_async(&mut b_tile[cb * 32 + tx], &b[tx * (n / 8) + col0 / 8 + cb]);
        }
    }
    cp_async_commit();
    if 1 < steps {
        for e in 0..4 {
            let row = tz * 64 + ty * 32 + tx;
            cp_async(
                &mut a_tile[1024 + e * 256 + row],
                &a[(row0 + row) * (k / 8) + 4 + e],
            );
        }
        for e in 0..2 {
            let cb = tz * 4 + ty * 2 + e;
            cp_async(
                &mut b_tile[512 + cb * 32 + tx],
                &b[(32 + tx) * (n / 8) + col0 / 8 + cb],
            );
        }
    }
    cp_async_commit();
    if 2 < steps {
        for e in 0..4 {
            let row = tz * 64 + ty * 32 + tx;
            cp_async(
                &mut a_tile[2048 + e * 256 + row],
                &a[(row0 + row) * (k / 8) + 8 + e],
            );
        }
        for e in 0..2 {
            let cb = tz * 4 + ty * 2 + e;
            cp_async(
                &mut b_tile[1024 + cb * 32 + tx],
                &b[(64 + tx) * (n / 8) + col0 / 8 + cb],
            );
        }
    }
    cp_async_commit();
    if 3 < steps {
        for e in 0..4 {
            let row = tz * 64 + ty * 32 + tx;
            cp_async(
                &mut a_tile[3072 + e * 256 + row],
                &a[(row0 + row) * (k / 8) + 12 + e],
            );
        }
        for e in 0..2 {
            let cb = tz * 4 + ty * 2 + e;
            cp_async(
                &mut b_tile[1536 + cb * 32 + tx],
                &b[(96 + tx) * (n / 8) + col0 / 8 + cb],
            );
        }
    }
    cp_async_commit();
    cp_async_wait(3);
    sync_block_threads();
    for i in 0..4 {
        ldmatrix(&mut fa[i], &a_tile[(tx / 16) * 256 + wm + i * 16 + tx % 16]);
    }
    for j in 0..8 {
        ldmatrix_trans(&mut fb[j], &b_tile[(wn / 8 + j) * 32 + tx % 16]);
    }
    for step in 0..steps {
        let s = step % 4;
        // The second 16 of this stage into set 1, then set 0's multiplies.
        for i in 0..4 {
            let row = wm + i * 16 + tx % 16;
            ldmatrix(
                &mut fa[4 + i],
                &a_tile[s * 1024 + (2 + tx / 16) * 256 + row],
            );
        }
        for j in 0..8 {
            ldmatrix_trans(
                &mut fb[8 + j],
                &b_tile[s * 512 + (wn / 8 + j) * 32 + 16 + tx % 16],
            );
        }
        for i in 0..4 {
            for j in 0..8 {
                mma_m16n8k16(&mut acc[i * 8 + j], &fa[i], &fb[j]);
            }
        }
        // The next stage has landed (the two after it may be in flight); every warp holds
        // all of this one in registers: refill it with the step four ahead, and load the next
        // stage's first 16 into set 0.
        cp_async_wait(2);
        sync_block_threads();
        if step + 4 < steps {
            let k1 = (step + 4) * 32;
            for e in 0..4 {
                let row = tz * 64 + ty * 32 + tx;
                cp_async(
                    &mut a_tile[s * 1024 + e * 256 + row],
                    &a[(row0 + row) * (k / 8) + k1 / 8 + e],
                );
            }
            for e in 0..2 {
                let cb = tz * 4 + ty * 2 + e;
                cp_async(
                    &mut b_tile[s * 512 + cb * 32 + tx],
                    &b[(k1 + tx) * (n / 8) + col0 / 8 + cb],
                );
            }
        }
        cp_async_commit();
        if step + 1 < steps {
            let s1 = (step + 1) % 4;
            for i in 0..4 {
                let row = wm + i * 16 + tx % 16;
                ldmatrix(&mut fa[i], &a_tile[s1 * 1024 + (tx / 16) * 256 + row]);
            }
            for j in 0..8 {
                ldmatrix_trans(&mut fb[j], &b_tile[s1 * 512 + (wn / 8 + j) * 32 + tx % 16]);
            }
        }
        for i in 0..4 {
            for j in 0..8 {
                mma_m16n8k16(&mut acc[i * 8 + j], &fa[4 + i], &fb[8 + j]);
            }
        }
    }
    let g = tx / 4;
    let q = tx % 4;
    for i in 0..4 {
        for j in 0..8 {
            for e in 0..4 {
                let r = row0 + wm + i * 16 + g + 8 * (e >> 1);
                let col = col0 + wn + j * 8 + 2 * q + (e & 1);
                c[r * n + col] = acc[i * 8 + j][e];
            }
        }
    }
}

/// [`gemm_bf16_wide`] with 64-deep stages: three of them (144 KiB), one wait and one barrier
/// per 64 of `k` instead of per 32, and four 16-deep halves of a stage multiplied in turn from
/// two sets of fragments (each set loaded while the other is multiplied). A stage holds 8
/// chunk columns of the 256 rows of `a` (`c * 256 + row`) and 16 of the 64 rows of `b`
/// (`c * 64 + k`); each thread copies row `64 z + 32 y + x` of `a` and rows `x` and `32 + x`
/// of `b`.
#[kernel(block = (32, 2, 4))]
pub fn gemm_bf16_wide_k64(c: &mut [f32], a: &[[bf16; 8]], b: &[[bf16; 8]], n: u32, k: u32) {
    let a_tile = shared::<[[bf16; 8]; 6144]>();
    let b_tile = shared::<[[bf16; 8]; 3072]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let tz = thread_idx().z as usize;
    let wm = tz * 64;
    let wn = ty * 64;
    let row0 = block_idx().y as usize * 256;
    let col0 = block_idx().x as usize * 128;
    let n = n as usize;
    let k = k as usize;
    let steps = k / 64;
    let mut acc = [[0.0f32; 4]; 32];
    let mut fa: [[bf16; 8]; 8] = [[bf16::ZERO; 8]; 8];
    let mut fb: [[bf16; 4]; 16] = [[bf16::ZERO; 4]; 16];
    if 0 < steps {
        for e in 0..8 {
            let row = tz * 64 + ty * 32 + tx;
            cp_async(&mut a_tile[e * 256 + row], &a[(row0 + row) * (k / 8) + e]);
        }
        for e in 0..4 {
            let cb = tz * 4 + ty * 2 + e % 2;
            let kr = (e / 2) * 32 + tx;
            cp_async(&mut b_tile[cb * 64 + kr], &b[kr * (n / 8) + col0 / 8 + cb]);
        }
    }
    cp_async_commit();
    if 1 < steps {
        for e in 0..8 {
            let row = tz * 64 + ty * 32 + tx;
            cp_async(
                &mut a_tile[2048 + e * 256 + row],
                &a[(row0 + row) * (k / 8) + 8 + e],
            );
        }
        for e in 0..4 {
            let cb = tz * 4 + ty * 2 + e % 2;
            let kr = (e / 2) * 32 + tx;
            cp_async(
                &mut b_tile[1024 + cb * 64 + kr],
                &b[(64 + kr) * (n / 8) + col0 / 8 + cb],
            );
        }
    }
    cp_async_commit();
    if 2 < steps {
        for e in 0..8 {
            let row = tz * 64 + ty * 32 + tx;
            cp_async(
                &mut a_tile[4096 + e * 256 + row],
                &a[(row0 + row) * (k / 8) + 16 + e],
            );
        }
        for e in 0..4 {
            let cb = tz * 4 + ty * 2 + e % 2;
            let kr = (e / 2) * 32 + tx;
            cp_async(
                &mut b_tile[2048 + cb * 64 + kr],
                &b[(128 + kr) * (n / 8) + col0 / 8 + cb],
            );
        }
    }
    cp_async_commit();
    cp_async_wait(2);
    sync_block_threads();
    for i in 0..4 {
        let row = wm + i * 16 + tx % 16;
        ldmatrix(&mut fa[i], &a_tile[(tx / 16) * 256 + row]);
    }
    for j in 0..8 {
        let kr = tx % 16;
        ldmatrix_trans(&mut fb[j], &b_tile[(wn / 8 + j) * 64 + kr]);
    }
    for step in 0..steps {
        let s = step % 3;
        for i in 0..4 {
            let row = wm + i * 16 + tx % 16;
            ldmatrix(
                &mut fa[4 + i],
                &a_tile[s * 2048 + (2 + tx / 16) * 256 + row],
            );
        }
        for j in 0..8 {
            let kr = 16 + tx % 16;
            ldmatrix_trans(&mut fb[8 + j], &b_tile[s * 1024 + (wn / 8 + j) * 64 + kr]);
        }
        for i in 0..4 {
            for j in 0..8 {
                mma_m16n8k16(&mut acc[i * 8 + j], &fa[i], &fb[j]);
            }
        }
        for i in 0..4 {
            let row = wm + i * 16 + tx % 16;
            ldmatrix(&mut fa[i], &a_tile[s * 2048 + (4 + tx / 16) * 256 + row]);
        }
        for j in 0..8 {
            let kr = 32 + tx % 16;
            ldmatrix_trans(&mut fb[j], &b_tile[s * 1024 + (wn / 8 + j) * 64 + kr]);
        }
        for i in 0..4 {
            for j in 0..8 {
                mma_m16n8k16(&mut acc[i * 8 + j], &fa[4 + i], &fb[8 + j]);
            }
        }
        for i in 0..4 {
            let row = wm + i * 16 + tx % 16;
            ldmatrix(
                &mut fa[4 + i],
                &a_tile[s * 2048 + (6 + tx / 16) * 256 + row],
            );
        }
        for j in 0..8 {
            let kr = 48 + tx % 16;
            ldmatrix_trans(&mut fb[8 + j], &b_tile[s * 1024 + (wn / 8 + j) * 64 + kr]);
        }
        for i in 0..4 {
            for j in 0..8 {
                mma_m16n8k16(&mut acc[i * 8 + j], &fa[i], &fb[j]);
            }
        }
        // The next stage has landed; every warp holds all of this one in registers: refill it
        // with the step three ahead, and load the next stage's first 16 into set 0.
        cp_async_wait(1);
        sync_block_threads();
        if step + 3 < steps {
            let k1 = (step + 3) * 64;
            for e in 0..8 {
                let row = tz * 64 + ty * 32 + tx;
                cp_async(
                    &mut a_tile[s * 2048 + e * 256 + row],
                    &a[(row0 + row) * (k / 8) + k1 / 8 + e],
                );
            }
            for e in 0..4 {
                let cb = tz * 4 + ty * 2 + e % 2;
                let kr = (e / 2) * 32 + tx;
                cp_async(
                    &mut b_tile[s * 1024 + cb * 64 + kr],
                    &b[(k1 + kr) * (n / 8) + col0 / 8 + cb],
                );
            }
        }
        cp_async_commit();
        if step + 1 < steps {
            let s1 = (step + 1) % 3;
            for i in 0..4 {
                let row = wm + i * 16 + tx % 16;
                ldmatrix(&mut fa[i], &a_tile[s1 * 2048 + (tx / 16) * 256 + row]);
            }
            for j in 0..8 {
                let kr = tx % 16;
                ldmatrix_trans(&mut fb[j], &b_tile[s1 * 1024 + (wn / 8 + j) * 64 + kr]);
            }
        }
        for i in 0..4 {
            for j in 0..8 {
                mma_m16n8k16(&mut acc[i * 8 + j], &fa[4 + i], &fb[8 + j]);
            }
        }
    }
    let g = tx / 4;
    let q = tx % 4;
    for i in 0..4 {
        for j in 0..8 {
            for e in 0..4 {
                let r = row0 + wm + i * 16 + g + 8 * (e >> 1);
                let col = col0 + wn + j * 8 + 2 * q + (e & 1);
                c[r * n + col] = acc[i * 8 + j][e];
            }
        }
    }
}

/// `c = a bᵀ` in TF32 (`mma_m16n8k8_tf32`, f32 accumulators) for row-major f32 `a` (`m x k`)
/// and `b` (`n x k`: the layout of a linear layer's weights) read as 16-byte chunks, `m` a
/// multiple of 256, `n` of 128 and `k` of 32: [`gemm_bf16_wide_k64`]'s structure in f32: 256x128
/// block tiles of 8 warps, each 64x64 through 4 x 8 accumulators, three 32-deep stages (144
/// KiB, carved from dynamic shared memory), four 8-deep steps a stage from two sets of
/// fragments. Both tiles hold rows of `k` by 16-byte columns (chunk `c` of row `r` at
/// `c * rows + r`), so every fragment, `a`'s (`[f32; 4]`, four matrices) and `b`'s
/// (`[f32; 2]`, two), is one `ldmatrix`: TF32 has no transposed form, which is why `b` comes
/// with `k` along its rows. Each thread copies row `64 z + 32 y + x` of `a` and row
/// `64 (z % 2) + 32 y + x` of `b`, chunk columns `4 (z / 2) + e`.
#[kernel(block = (32, 2, 4))]
pub fn gemm_tf32_wide(c: &mut [f32], a: &[[f32; 4]], b: &[[f32; 4]], n: u32, k: u32) {
    // Stage `s` of `a` at `2048 s` (8 chunk columns of 256 rows), of `b` at `1024 s` (8 of 128).
    let a_tile = shared::<[[f32; 4]; 6144]>();
    let b_tile = shared::<[[f32; 4]; 3072]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let tz = thread_idx().z as usize;
    let wm = tz * 64;
    let wn = ty * 64;
    let row0 = block_idx().y as usize * 256;
    let col0 = block_idx().x as usize * 128;
    let n = n as usize;
    let k = k as usize;
    let steps = k / 32;
    let mut acc = [[0.0f32; 4]; 32];
    // Two sets of fragments: `[4 * set + i]` of `a`, `[8 * set + j]` of `b`.
    let mut fa: [[f32; 4]; 8] = [[0.0f32; 4]; 8];
    let mut fb: [[f32; 2]; 16] = [[0.0f32; 2]; 16];
    if 0 < steps {
        for e in 0..8 {
            let row = tz * 64 + ty * 32 + tx;
            cp_async(&mut a_tile[e * 256 + row], &a[(row0 + row) * (k / 4) + e]);
        }
        for e in 0..4 {
            let nr = (tz % 2) * 64 + ty * 32 + tx;
            let cc = (tz / 2) * 4 + e;
            cp_async(&mut b_tile[cc * 128 + nr], &b[(col0 + nr) * (k / 4) + cc]);
        }
    }
    cp_async_commit();
    if 1 < steps {
        for e in 0..8 {
            let row = tz * 64 + ty * 32 + tx;
            cp_async(
                &mut a_tile[2048 + e * 256 + row],
                &a[(row0 + row) * (k / 4) + 8 + e],
            );
        }
        for e in 0..4 {
            let nr = (tz % 2) * 64 + ty * 32 + tx;
            let cc = (tz / 2) * 4 + e;
            cp_async(
                &mut b_tile[1024 + cc * 128 + nr],
                &b[(col0 + nr) * (k / 4) + 8 + cc],
            );
        }
    }
    cp_async_commit();
    if 2 < steps {
        for e in 0..8 {
            let row = tz * 64 + ty * 32 + tx;
            cp_async(
                &mut a_tile[4096 + e * 256 + row],
                &a[(row0 + row) * (k / 4) + 16 + e],
            );
        }
        for e in 0..4 {
            let nr = (tz % 2) * 64 + ty * 32 + tx;
            let cc = (tz / 2) * 4 + e;
            cp_async(
                &mut b_tile[2048 + cc * 128 + nr],
                &b[(col0 + nr) * (k / 4) + 16 + cc],
            );
        }
    }
    cp_async_commit();
    cp_async_wait(2);
    sync_block_threads();
    for i in 0..4 {
        let row = wm + i * 16 + tx % 16;
        ldmatrix(&mut fa[i], &a_tile[(tx / 16) * 256 + row]);
    }
    for j in 0..8 {
        let nr = wn + j * 8 + tx % 8;
        ldmatrix(&mut fb[j], &b_tile[((tx / 8) % 2) * 128 + nr]);
    }
    for step in 0..steps {
        let s = step % 3;
        for i in 0..4 {
            let row = wm + i * 16 + tx % 16;
            ldmatrix(
                &mut fa[4 + i],
                &a_tile[s * 2048 + (2 + tx / 16) * 256 + row],
            );
        }
        for j in 0..8 {
            let nr = wn + j * 8 + tx % 8;
            ldmatrix(
                &mut fb[8 + j],
                &b_tile[s * 1024 + (2 + (tx / 8) % 2) * 128 + nr],
            );
        }
        for i in 0..4 {
            for j in 0..8 {
                mma_m16n8k8_tf32(&mut acc[i * 8 + j], &fa[i], &fb[j]);
            }
        }
        for i in 0..4 {
            let row = wm + i * 16 + tx % 16;
            ldmatrix(&mut fa[i], &a_tile[s * 2048 + (4 + tx / 16) * 256 + row]);
        }
        for j in 0..8 {
            let nr = wn + j * 8 + tx % 8;
            ldmatrix(
                &mut fb[j],
                &b_tile[s * 1024 + (4 + (tx / 8) % 2) * 128 + nr],
            );
        }
        for i in 0..4 {
            for j in 0..8 {
                mma_m16n8k8_tf32(&mut acc[i * 8 + j], &fa[4 + i], &fb[8 + j]);
            }
        }
        for i in 0..4 {
            let row = wm + i * 16 + tx % 16;
            ldmatrix(
                &mut fa[4 + i],
                &a_tile[s * 2048 + (6 + tx / 16) * 256 + row],
            );
        }
        for j in 0..8 {
            let nr = wn + j * 8 + tx % 8;
            ldmatrix(
                &mut fb[8 + j],
                &b_tile[s * 1024 + (6 + (tx / 8) % 2) * 128 + nr],
            );
        }
        for i in 0..4 {
            for j in 0..8 {
                mma_m16n8k8_tf32(&mut acc[i * 8 + j], &fa[i], &fb[j]);
            }
        }
        // The next stage has landed; every warp holds all of this one in registers: refill it
        // with the step three ahead, and load the next stage's first 8 into set 0.
        cp_async_wait(1);
        sync_block_threads();
        if step + 3 < steps {
            let k1 = (step + 3) * 32;
            for e in 0..8 {
                let row = tz * 64 + ty * 32 + tx;
                cp_async(
                    &mut a_tile[s * 2048 + e * 256 + row],
                    &a[(row0 + row) * (k / 4) + k1 / 4 + e],
                );
            }
            for e in 0..4 {
                let nr = (tz % 2) * 64 + ty * 32 + tx;
                let cc = (tz / 2) * 4 + e;
                cp_async(
                    &mut b_tile[s * 1024 + cc * 128 + nr],
                    &b[(col0 + nr) * (k / 4) + k1 / 4 + cc],
                );
            }
        }
        cp_async_commit();
        if step + 1 < steps {
            let s1 = (step + 1) % 3;
            for i in 0..4 {
                let row = wm + i * 16 + tx % 16;
                ldmatrix(&mut fa[i], &a_tile[s1 * 2048 + (tx / 16) * 256 + row]);
            }
            for j in 0..8 {
                let nr = wn + j * 8 + tx % 8;
                ldmatrix(&mut fb[j], &b_tile[s1 * 1024 + ((tx / 8) % 2) * 128 + nr]);
            }
        }
        for i in 0..4 {
            for j in 0..8 {
                mma_m16n8k8_tf32(&mut acc[i * 8 + j], &fa[4 + i], &fb[8 + j]);
            }
        }
    }
    let g = tx / 4;
    let q = tx % 4;
    for i in 0..4 {
        for j in 0..8 {
            for e in 0..4 {
                let r = row0 + wm + i * 16 + g + 8 * (e >> 1);
                let col = col0 + wn + j * 8 + 2 * q + (e & 1);
                c[r * n + col] = acc[i * 8 + j][e];
            }
        }
    }
}
