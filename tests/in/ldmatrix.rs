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

/// `c = a * b` for row-major bf16 `a` (`m x k`) and `b` (`k x n`) read as 16-byte chunks,
/// `m` and `n` multiples of 128, `k` of 32: 128x128 block tiles of 4 warps (`(32, 2, 2)`),
/// each warp 64x64 through 4 x 8 accumulators, its fragments loaded by `ldmatrix` (4 of `a`,
/// 8 of `b` transposed, per 16-deep step) from three stages of 32-deep tiles that `cp_async`
/// fills two steps ahead (one wait and one barrier a step).
///
/// A stage holds its tiles by 16-byte columns: chunk column `c` of the 128 rows of `a` is
/// `c * 128 + row`, of the 32 rows of `b` `c * 32 + k`. The 8 rows each matrix of a fragment
/// load reads are then 8 consecutive chunks, in 8 distinct groups of banks, with no padding
/// (three stages are the 48 KiB of static shared memory); and lane `x` of a warp copies row
/// `x` of a column, an index affine in the thread ids, which the race proof separates.
#[kernel(block = (32, 2, 2))]
pub fn gemm_bf16_ldmatrix(c: &mut [f32], a: &[[bf16; 8]], b: &[[bf16; 8]], n: u32, k: u32) {
    let a_tile = shared::<[[bf16; 8]; 1536]>();
    let b_tile = shared::<[[bf16; 8]; 1536]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let tz = thread_idx().z as usize;
    let wm = tz * 64;
    let wn = ty * 64;
    let row0 = block_idx().y as usize * 128;
    let col0 = block_idx().x as usize * 128;
    let n = n as usize;
    let k = k as usize;
    let steps = k / 32;
    let mut acc = [[0.0f32; 4]; 32];
    let mut fa: [[bf16; 8]; 4] = [[bf16::ZERO; 8]; 4];
    let mut fb: [[bf16; 4]; 8] = [[bf16::ZERO; 4]; 8];
    // This thread's chunks of a stage: row `64 z + 32 y + x` of `a`, chunk columns `e`; row
    // `x` of `b`, chunk columns `8 z + 4 y + e`.
    for s in 0..2 {
        if s < steps {
            for e in 0..4 {
                let row = tz * 64 + ty * 32 + tx;
                cp_async(
                    &mut a_tile[s * 512 + e * 128 + row],
                    &a[(row0 + row) * (k / 8) + s * 4 + e],
                );
                let cb = tz * 8 + ty * 4 + e;
                cp_async(
                    &mut b_tile[s * 512 + cb * 32 + tx],
                    &b[(s * 32 + tx) * (n / 8) + col0 / 8 + cb],
                );
            }
        }
        cp_async_commit();
    }
    for step in 0..steps {
        // This step's stage has landed, and every warp is done with the previous step's.
        cp_async_wait(1);
        sync_block_threads();
        if step + 2 < steps {
            let s1 = (step + 2) % 3;
            let k1 = (step + 2) * 32;
            for e in 0..4 {
                let row = tz * 64 + ty * 32 + tx;
                cp_async(
                    &mut a_tile[s1 * 512 + e * 128 + row],
                    &a[(row0 + row) * (k / 8) + k1 / 8 + e],
                );
                let cb = tz * 8 + ty * 4 + e;
                cp_async(
                    &mut b_tile[s1 * 512 + cb * 32 + tx],
                    &b[(k1 + tx) * (n / 8) + col0 / 8 + cb],
                );
            }
        }
        cp_async_commit();
        let s = step % 3;
        for ks in 0..2 {
            // Lane `l` gives row `l % 16` of the 16x16 part of `a` (chunk `2 ks + l / 16`), and
            // row `16 ks + l % 16` of `b` at the 8 columns of accumulator column `j`.
            for i in 0..4 {
                let row = wm + i * 16 + tx % 16;
                ldmatrix(
                    &mut fa[i],
                    &a_tile[s * 512 + (ks * 2 + tx / 16) * 128 + row],
                );
            }
            for j in 0..8 {
                let kr = ks * 16 + tx % 16;
                ldmatrix_trans(&mut fb[j], &b_tile[s * 512 + (wn / 8 + j) * 32 + kr]);
            }
            for i in 0..4 {
                for j in 0..8 {
                    mma_m16n8k16(&mut acc[i * 8 + j], &fa[i], &fb[j]);
                }
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

/// [`gemm_bf16_ldmatrix`] with its fragments double-buffered in registers, as CUTLASS's
/// multistage kernels do: each step loads the second 16-deep half of its stage while it
/// multiplies the first, then (after the step's one wait and barrier) refills the stage it is
/// done with, three steps ahead, and loads the next stage's first half while it multiplies its
/// own second: no multiply waits on a fragment load just issued. The race proof sees that the
/// refill, issued after the barrier, meets only the next step's reads before its barrier, of
/// another stage.
#[kernel(block = (32, 2, 2))]
pub fn gemm_bf16_ldmatrix_db(c: &mut [f32], a: &[[bf16; 8]], b: &[[bf16; 8]], n: u32, k: u32) {
    let a_tile = shared::<[[bf16; 8]; 1536]>();
    let b_tile = shared::<[[bf16; 8]; 1536]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let tz = thread_idx().z as usize;
    let wm = tz * 64;
    let wn = ty * 64;
    let row0 = block_idx().y as usize * 128;
    let col0 = block_idx().x as usize * 128;
    let n = n as usize;
    let k = k as usize;
    let steps = k / 32;
    let mut acc = [[0.0f32; 4]; 32];
    // Two sets of fragments: `[4 * set + i]` of `a`, `[8 * set + j]` of `b`.
    let mut fa: [[bf16; 8]; 8] = [[bf16::ZERO; 8]; 8];
    let mut fb: [[bf16; 4]; 16] = [[bf16::ZERO; 4]; 16];
    // The first three stages, each its own group.
    if 0 < steps {
        for e in 0..4 {
            let row = tz * 64 + ty * 32 + tx;
            cp_async(
                &mut a_tile[0 + e * 128 + row],
                &a[(row0 + row) * (k / 8) + 0 + e],
            );
            let cb = tz * 8 + ty * 4 + e;
            cp_async(
                &mut b_tile[0 + cb * 32 + tx],
                &b[(0 + tx) * (n / 8) + col0 / 8 + cb],
            );
        }
    }
    cp_async_commit();
    if 1 < steps {
        for e in 0..4 {
            let row = tz * 64 + ty * 32 + tx;
            cp_async(
                &mut a_tile[512 + e * 128 + row],
                &a[(row0 + row) * (k / 8) + 4 + e],
            );
            let cb = tz * 8 + ty * 4 + e;
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
                &mut a_tile[1024 + e * 128 + row],
                &a[(row0 + row) * (k / 8) + 8 + e],
            );
            let cb = tz * 8 + ty * 4 + e;
            cp_async(
                &mut b_tile[1024 + cb * 32 + tx],
                &b[(64 + tx) * (n / 8) + col0 / 8 + cb],
            );
        }
    }
    cp_async_commit();
    cp_async_wait(2);
    sync_block_threads();
    for i in 0..4 {
        ldmatrix(&mut fa[i], &a_tile[(tx / 16) * 128 + wm + i * 16 + tx % 16]);
    }
    for j in 0..8 {
        ldmatrix_trans(&mut fb[j], &b_tile[(wn / 8 + j) * 32 + tx % 16]);
    }
    for step in 0..steps {
        let s = step % 3;
        // The second 16 of this stage into set 1, then set 0's multiplies.
        for i in 0..4 {
            let row = wm + i * 16 + tx % 16;
            ldmatrix(&mut fa[4 + i], &a_tile[s * 512 + (2 + tx / 16) * 128 + row]);
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
        // The next stage has landed; every warp holds all of this one in registers: refill it
        // with the step three ahead, and load the next stage's first 16 into set 0.
        cp_async_wait(1);
        sync_block_threads();
        if step + 3 < steps {
            let k1 = (step + 3) * 32;
            for e in 0..4 {
                let row = tz * 64 + ty * 32 + tx;
                cp_async(
                    &mut a_tile[s * 512 + e * 128 + row],
                    &a[(row0 + row) * (k / 8) + k1 / 8 + e],
                );
                let cb = tz * 8 + ty * 4 + e;
                cp_async(
                    &mut b_tile[s * 512 + cb * 32 + tx],
                    &b[(k1 + tx) * (n / 8) + col0 / 8 + cb],
                );
            }
        }
        cp_async_commit();
        if step + 1 < steps {
            let s1 = (step + 1) % 3;
            for i in 0..4 {
                let row = wm + i * 16 + tx % 16;
                ldmatrix(&mut fa[i], &a_tile[s1 * 512 + (tx / 16) * 128 + row]);
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

/// [`gemm_bf16_ldmatrix_db`] with its copies along rows: the eight lanes `l % 8` of each
/// quarter-warp copy eight rows, the four quarters `l / 8` four neighbouring 16-byte chunks of
/// them, so one `cp.async` instruction reads 8 rows x 64 bytes (16 sectors) where the
/// column-wise copies read 32 rows x 16 bytes (32 lines); the 8 lanes of a quarter write
/// 8 consecutive chunks of the column-major tiles, in 8 distinct groups of banks. The race
/// proof separates the lanes (`128 * (l / 8) + 32 * e + 8 * w + l % 8` is one division's
/// quotient and remainder, and the integers' rounding does the rest).
#[kernel(block = (32, 2, 2))]
pub fn gemm_bf16_ldmatrix_rows(c: &mut [f32], a: &[[bf16; 8]], b: &[[bf16; 8]], n: u32, k: u32) {
    let a_tile = shared::<[[bf16; 8]; 1536]>();
    let b_tile = shared::<[[bf16; 8]; 1536]>();
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let tz = thread_idx().z as usize;
    let wm = tz * 64;
    let wn = ty * 64;
    let row0 = block_idx().y as usize * 128;
    let col0 = block_idx().x as usize * 128;
    let n = n as usize;
    let k = k as usize;
    let steps = k / 32;
    let mut acc = [[0.0f32; 4]; 32];
    // Two sets of fragments: `[4 * set + i]` of `a`, `[8 * set + j]` of `b`.
    let mut fa: [[bf16; 8]; 8] = [[bf16::ZERO; 8]; 8];
    let mut fb: [[bf16; 4]; 16] = [[bf16::ZERO; 4]; 16];
    // The first three stages, each its own group.
    if 0 < steps {
        for e in 0..4 {
            let row = e * 32 + (tz * 2 + ty) * 8 + tx % 8;
            cp_async(
                &mut a_tile[0 + (tx / 8) * 128 + row],
                &a[(row0 + row) * (k / 8) + 0 + tx / 8],
            );
            let kr = e * 8 + tx % 8;
            let cb = (tz * 2 + ty) * 4 + tx / 8;
            cp_async(
                &mut b_tile[0 + cb * 32 + kr],
                &b[(0 + kr) * (n / 8) + col0 / 8 + cb],
            );
        }
    }
    cp_async_commit();
    if 1 < steps {
        for e in 0..4 {
            let row = e * 32 + (tz * 2 + ty) * 8 + tx % 8;
            cp_async(
                &mut a_tile[512 + (tx / 8) * 128 + row],
                &a[(row0 + row) * (k / 8) + 4 + tx / 8],
            );
            let kr = e * 8 + tx % 8;
            let cb = (tz * 2 + ty) * 4 + tx / 8;
            cp_async(
                &mut b_tile[512 + cb * 32 + kr],
                &b[(32 + kr) * (n / 8) + col0 / 8 + cb],
            );
        }
    }
    cp_async_commit();
    if 2 < steps {
        for e in 0..4 {
            let row = e * 32 + (tz * 2 + ty) * 8 + tx % 8;
            cp_async(
                &mut a_tile[1024 + (tx / 8) * 128 + row],
                &a[(row0 + row) * (k / 8) + 8 + tx / 8],
            );
            let kr = e * 8 + tx % 8;
            let cb = (tz * 2 + ty) * 4 + tx / 8;
            cp_async(
                &mut b_tile[1024 + cb * 32 + kr],
                &b[(64 + kr) * (n / 8) + col0 / 8 + cb],
            );
        }
    }
    cp_async_commit();
    cp_async_wait(2);
    sync_block_threads();
    for i in 0..4 {
        ldmatrix(&mut fa[i], &a_tile[(tx / 16) * 128 + wm + i * 16 + tx % 16]);
    }
    for j in 0..8 {
        ldmatrix_trans(&mut fb[j], &b_tile[(wn / 8 + j) * 32 + tx % 16]);
    }
    for step in 0..steps {
        let s = step % 3;
        // The second 16 of this stage into set 1, then set 0's multiplies.
        for i in 0..4 {
            let row = wm + i * 16 + tx % 16;
            ldmatrix(&mut fa[4 + i], &a_tile[s * 512 + (2 + tx / 16) * 128 + row]);
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
        // The next stage has landed; every warp holds all of this one in registers: refill it
        // with the step three ahead, and load the next stage's first 16 into set 0.
        cp_async_wait(1);
        sync_block_threads();
        if step + 3 < steps {
            let k1 = (step + 3) * 32;
            for e in 0..4 {
                let row = e * 32 + (tz * 2 + ty) * 8 + tx % 8;
                cp_async(
                    &mut a_tile[s * 512 + (tx / 8) * 128 + row],
                    &a[(row0 + row) * (k / 8) + k1 / 8 + tx / 8],
                );
                let kr = e * 8 + tx % 8;
                let cb = (tz * 2 + ty) * 4 + tx / 8;
                cp_async(
                    &mut b_tile[s * 512 + cb * 32 + kr],
                    &b[(k1 + kr) * (n / 8) + col0 / 8 + cb],
                );
            }
        }
        cp_async_commit();
        if step + 1 < steps {
            let s1 = (step + 1) % 3;
            for i in 0..4 {
                let row = wm + i * 16 + tx % 16;
                ldmatrix(&mut fa[i], &a_tile[s1 * 512 + (tx / 16) * 128 + row]);
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
