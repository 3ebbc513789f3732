//! Asynchronous copies into shared memory (`cp_async`): one stage, a two-stage pipeline, rows
//! of 16 bytes, a premature read that only the simulator can see (in `unsafe`), and a bf16
//! GEMM whose tiles are double-buffered through `cp_async`.

use cuphase::half::bf16;
use cuphase::prelude::*;

/// `out[i] = x[block + (255 - t)]`: every thread copies its element of `x` into the tile, waits
/// for it, and after the barrier reads another thread's.
#[kernel(block = 256)]
pub fn reverse_async(out: &mut [f32], x: &[f32]) {
    let tile = shared::<[f32; 256]>();
    let t = thread_idx().x as usize;
    let i = global_idx().x as usize;
    cp_async(&mut tile[t], &x[i]);
    cp_async_commit();
    cp_async_wait(0);
    sync_block_threads();
    out[i] = tile[255 - t];
}

/// [`reverse_async`] without its wait and barrier: `sync = "auto"` places both (the report
/// says so).
#[kernel(block = 256, sync = "auto")]
pub fn reverse_async_auto(out: &mut [f32], x: &[f32]) {
    let tile = shared::<[f32; 256]>();
    let t = thread_idx().x as usize;
    let i = global_idx().x as usize;
    cp_async(&mut tile[t], &x[i]);
    cp_async_commit();
    out[i] = tile[255 - t];
}

/// Thread `t` sums `x[s * 64 + 63 - t]` over the slices `s`: the next slice is copied into the
/// other stage while the current one is read.
#[kernel(block = 64)]
pub fn sum_slices(out: &mut [f32], x: &[f32], slices: u32) {
    let tile = shared::<[[f32; 64]; 2]>();
    let t = thread_idx().x as usize;
    let n = slices as usize;
    let mut acc = 0.0f32;
    cp_async(&mut tile[0][t], &x[t]);
    cp_async_commit();
    for s in 0..n {
        if s + 1 < n {
            cp_async(&mut tile[(s + 1) % 2][t], &x[(s + 1) * 64 + t]);
        }
        cp_async_commit();
        cp_async_wait(1);
        sync_block_threads();
        acc += tile[s % 2][63 - t];
        sync_block_threads();
    }
    out[t] = acc;
}

/// [`sum_slices`] without its waits and barriers: `sync = "auto"` places them, leaving the
/// next slice's copy in flight while the current one is read.
#[kernel(block = 64, sync = "auto")]
pub fn sum_slices_auto(out: &mut [f32], x: &[f32], slices: u32) {
    let tile = shared::<[[f32; 64]; 2]>();
    let t = thread_idx().x as usize;
    let n = slices as usize;
    let mut acc = 0.0f32;
    cp_async(&mut tile[0][t], &x[t]);
    cp_async_commit();
    for s in 0..n {
        if s + 1 < n {
            cp_async(&mut tile[(s + 1) % 2][t], &x[(s + 1) * 64 + t]);
        }
        cp_async_commit();
        acc += tile[s % 2][63 - t];
    }
    out[t] = acc;
}

/// [`sum_slices`] over three stages, without waits or barriers: `sync = "auto"` waits for the
/// slice a step reads with two copies left in flight, and orders each stage's reads before its
/// refill two steps on.
#[kernel(block = 64, sync = "auto")]
pub fn sum_slices3_auto(out: &mut [f32], x: &[f32], slices: u32) {
    let tile = shared::<[[f32; 64]; 3]>();
    let t = thread_idx().x as usize;
    let n = slices as usize;
    let mut acc = 0.0f32;
    cp_async(&mut tile[0][t], &x[t]);
    cp_async_commit();
    if 1 < n {
        cp_async(&mut tile[1][t], &x[64 + t]);
    }
    cp_async_commit();
    for s in 0..n {
        if s + 2 < n {
            cp_async(&mut tile[(s + 2) % 3][t], &x[(s + 2) * 64 + t]);
        }
        cp_async_commit();
        acc += tile[s % 3][63 - t];
    }
    out[t] = acc;
}

/// Rows of 16 bytes: `out[i] = x[i ^ 1]` (the neighbouring row of each pair), each row copied
/// whole by one `cp_async`.
#[kernel(block = 128)]
pub fn swap_rows_async(out: &mut [[f32; 4]], x: &[[f32; 4]]) {
    let tile = shared::<[[f32; 4]; 128]>();
    let t = thread_idx().x as usize;
    let i = global_idx().x as usize;
    cp_async(&mut tile[t], &x[i]);
    cp_async_commit();
    cp_async_wait(0);
    sync_block_threads();
    out[i] = tile[t ^ 1];
}

/// A read of another thread's element before anyone waits, inside `unsafe` (the proof does not
/// look there): the simulator's race detection reports it as a read before the wait; without
/// race detection the read sees the tile's old contents (every read comes before every wait,
/// which lands the copies).
#[kernel(block = 64)]
pub fn read_before_wait(out: &mut [f32], x: &[f32]) {
    let tile = shared::<[f32; 64]>();
    let t = thread_idx().x as usize;
    cp_async(&mut tile[t], &x[t]);
    cp_async_commit();
    sync_block_threads();
    let v = unsafe { tile[63 - t] };
    sync_block_threads();
    cp_async_wait(0);
    out[t] = v;
}

/// `c = a * b` for row-major bf16 `a` (`m x k`) and `b` (`k x n`) read as 16-byte chunks,
/// `m` and `n` multiples of 128, `k` of 32: `gemm_bf16_128`'s tiles and warps, with the tiles
/// of the next 32-deep step copied by `cp_async` into the other half of two-stage tiles while
/// the warps multiply the current ones (one wait and two barriers a step).
#[kernel(block = (32, 4, 2))]
pub fn gemm_bf16_128_async(c: &mut [f32], a: &[[bf16; 8]], b: &[[bf16; 8]], n: u32, k: u32) {
    // Two stages of a 128x32 tile of `a` (rows of 4 chunks, padded to 5) and of a 32x128 tile
    // of `b` (pairs of rows, 32 chunks padded to 33).
    let a_tile = shared::<[[bf16; 8]; 1280]>();
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
    let steps = k / 32;
    let mut acc = [[0.0f32; 4]; 16];
    let mut fa: [[bf16; 8]; 4] = [[bf16::ZERO; 8]; 4];
    let mut fb: [[bf16; 4]; 4] = [[bf16::ZERO; 4]; 4];
    for e in 0..2 {
        let r = tz * 64 + e * 32 + tx;
        cp_async(&mut a_tile[r * 5 + ty], &a[(row0 + r) * (k / 8) + ty]);
        let d = ty * 4 + tz * 2 + e;
        cp_async(
            &mut b_tile[d * 33 + tx],
            &b[(2 * d + tx / 16) * (n / 8) + col0 / 8 + tx % 16],
        );
    }
    cp_async_commit();
    for step in 0..steps {
        if step + 1 < steps {
            let s1 = (step + 1) % 2;
            let k1 = (step + 1) * 32;
            for e in 0..2 {
                let r = tz * 64 + e * 32 + tx;
                cp_async(
                    &mut a_tile[s1 * 640 + r * 5 + ty],
                    &a[(row0 + r) * (k / 8) + k1 / 8 + ty],
                );
                let d = ty * 4 + tz * 2 + e;
                cp_async(
                    &mut b_tile[s1 * 528 + d * 33 + tx],
                    &b[(k1 + 2 * d + tx / 16) * (n / 8) + col0 / 8 + tx % 16],
                );
            }
        }
        cp_async_commit();
        cp_async_wait(1);
        sync_block_threads();
        let s = step % 2;
        for kk in (0..32).step_by(16) {
            for i in 0..4 {
                for e in 0..8 {
                    let r = wm + i * 16 + g + 8 * ((e >> 1) & 1);
                    let col = kk + 2 * q + (e & 1) + 8 * (e >> 2);
                    fa[i][e] = a_tile[s * 640 + r * 5 + col / 8][col % 8];
                }
            }
            for j in 0..4 {
                for e in 0..4 {
                    let r = kk + 2 * q + (e & 1) + 8 * (e >> 1);
                    let col = wn + j * 8 + g;
                    fb[j][e] = b_tile[s * 528 + r / 2 * 33 + r % 2 * 16 + col / 8][col % 8];
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

/// `c = a * b` in TF32 (`f32` inputs rounded to TF32, `f32` accumulation) for row-major `a`
/// (`m x k`) and `b` (`k x n`) read as 16-byte chunks (`[f32; 4]`), `m` and `n` multiples of
/// 128, `k` of 16: 128x128 block tiles of 8 warps (`(32, 4, 2)`), each warp 64x32 through 4 x 4
/// accumulators of `mma_m16n8k8_tf32`, the 16-deep tiles of `a` (rows of 4 chunks, padded to
/// 5) and `b` (rows of 32 chunks, padded to 33) double-buffered through `cp_async`.
#[kernel(block = (32, 4, 2))]
pub fn gemm_tf32_128_async(c: &mut [f32], a: &[[f32; 4]], b: &[[f32; 4]], n: u32, k: u32) {
    let a_tile = shared::<[[f32; 4]; 1280]>();
    let b_tile = shared::<[[f32; 4]; 1056]>();
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
    let steps = k / 16;
    let mut acc = [[0.0f32; 4]; 16];
    let mut fa = [[0.0f32; 4]; 4];
    let mut fb = [[0.0f32; 2]; 4];
    for e in 0..2 {
        let r = tz * 64 + e * 32 + tx;
        cp_async(&mut a_tile[r * 5 + ty], &a[(row0 + r) * (k / 4) + ty]);
        let br = ty * 4 + tz * 2 + e;
        cp_async(&mut b_tile[br * 33 + tx], &b[br * (n / 4) + col0 / 4 + tx]);
    }
    cp_async_commit();
    for step in 0..steps {
        if step + 1 < steps {
            let s1 = (step + 1) % 2;
            let k1 = (step + 1) * 16;
            for e in 0..2 {
                let r = tz * 64 + e * 32 + tx;
                cp_async(
                    &mut a_tile[s1 * 640 + r * 5 + ty],
                    &a[(row0 + r) * (k / 4) + k1 / 4 + ty],
                );
                let br = ty * 4 + tz * 2 + e;
                cp_async(
                    &mut b_tile[s1 * 528 + br * 33 + tx],
                    &b[(k1 + br) * (n / 4) + col0 / 4 + tx],
                );
            }
        }
        cp_async_commit();
        cp_async_wait(1);
        sync_block_threads();
        let s = step % 2;
        for kk in (0..16).step_by(8) {
            for i in 0..4 {
                for e in 0..4 {
                    let r = wm + i * 16 + g + 8 * (e & 1);
                    let col = kk + q + 4 * (e >> 1);
                    fa[i][e] = a_tile[s * 640 + r * 5 + col / 4][col % 4];
                }
            }
            for j in 0..4 {
                for e in 0..2 {
                    let r = kk + q + 4 * e;
                    let col = wn + j * 8 + g;
                    fb[j][e] = b_tile[s * 528 + r * 33 + col / 4][col % 4];
                }
            }
            for i in 0..4 {
                for j in 0..4 {
                    mma_m16n8k8_tf32(&mut acc[i * 4 + j], &fa[i], &fb[j]);
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

/// [`sum_slices`] with three stages, each slice's read before the step's barrier and the
/// refill after it: the copy issued after one step's barrier is still in flight at the next
/// step's read, of another stage.
#[kernel(block = 64)]
pub fn sum_slices_refill_after_barrier(out: &mut [f32], x: &[f32], slices: u32) {
    let tile = shared::<[[f32; 64]; 3]>();
    let t = thread_idx().x as usize;
    let n = slices as usize;
    let mut acc = 0.0f32;
    if n > 0 {
        cp_async(&mut tile[0][t], &x[t]);
    }
    cp_async_commit();
    if n > 1 {
        cp_async(&mut tile[1][t], &x[64 + t]);
    }
    cp_async_commit();
    cp_async_wait(1);
    sync_block_threads();
    for s in 0..n {
        acc += tile[s % 3][63 - t];
        cp_async_wait(0);
        sync_block_threads();
        if s + 2 < n {
            cp_async(&mut tile[(s + 2) % 3][t], &x[(s + 2) * 64 + t]);
        }
        cp_async_commit();
    }
    out[t] = acc;
}
