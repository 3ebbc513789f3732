//! Tiled matrix multiplication: each block computes a 16x16 tile of `C = A * B`, walking tiles of
//! `A` and `B` through shared memory. Two barriers per tile: after loading (read-after-write),
//! and before the next load overwrites the tiles (write-after-read).
//!
//! Run: `cargo run --release --example tiled_matmul`.

use cuphase::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

/// `c = a * b` for row-major `n x n` matrices; launch with 16x16 blocks.
#[kernel]
pub fn tiled_matmul(c: &mut [f32], a: &[f32], b: &[f32], n: u32) {
    let ta = shared::<[[f32; 16]; 16]>();
    let tb = shared::<[[f32; 16]; 16]>();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let row = block_idx().y * 16 + ty;
    let col = block_idx().x * 16 + tx;
    let mut acc = 0.0f32;
    for t in 0..(n + 15) / 16 {
        let a_col = t * 16 + tx;
        let b_row = t * 16 + ty;
        ta[ty][tx] = if row < n && a_col < n {
            a[row * n + a_col]
        } else {
            0.0
        };
        tb[ty][tx] = if b_row < n && col < n {
            b[b_row * n + col]
        } else {
            0.0
        };
        sync_block_threads();
        for k in 0..16u32 {
            acc += ta[ty][k] * tb[k][tx];
        }
        sync_block_threads();
    }
    if row < n && col < n {
        c[row * n + col] = acc;
    }
}

/// The same sums in the same order as the kernel, so the result must be bit-equal.
fn expected(a: &[f32], b: &[f32], n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0.0f32;
            for k in 0..n {
                acc += a[row * n + k] * b[k * n + col];
            }
            // Tiles past the edge add `0.0 * 0.0`, which does not change a finite sum.
            c[row * n + col] = acc;
        }
    }
    c
}

fn run() -> Result<bool, Error> {
    let dev = Device::default()?;
    let n: usize = 200;
    let a: Vec<f32> = (0..n * n)
        .map(|i| ((i * 37) % 101) as f32 / 50.0 - 1.0)
        .collect();
    let b: Vec<f32> = (0..n * n)
        .map(|i| ((i * 53) % 97) as f32 / 48.0 - 1.0)
        .collect();
    let (da, db) = (dev.upload(&a)?, dev.upload(&b)?);
    let mut dc = dev.zeros::<f32>(n * n)?;
    let tiles = (n as u32).div_ceil(16);
    let t0 = Instant::now();
    tiled_matmul.launch(
        &dev,
        Launch::new((tiles, tiles), (16, 16)),
        &mut dc,
        &da,
        &db,
        n as u32,
    )?;
    let got = dc.to_vec()?;
    let elapsed = t0.elapsed();
    let ok = got == expected(&a, &b, n);
    println!(
        "tiled_matmul: {n}x{n} on {} in {:.2} ms (first launch{}): {}",
        dev.name(),
        elapsed.as_secs_f64() * 1e3,
        if dev.is_cuda() {
            ", with NVRTC compilation"
        } else {
            ""
        },
        if ok {
            "correct (bit-equal to the host)"
        } else {
            "WRONG"
        }
    );
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("tiled_matmul: {e}");
            ExitCode::FAILURE
        }
    }
}
