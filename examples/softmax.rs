//! Row-wise softmax, one block of 256 threads per row: each thread strides over the row for
//! the row's maximum and then the sum of exponentials, each combined across the block by a
//! tree in shared memory (the `cuphase-blocks` library's block reductions), then writes its
//! elements.
//!
//! Run: `cargo run --release --example softmax`.

use cuphase::prelude::*;
use cuphase_blocks::{block_reduce_max, block_reduce_sum};
use std::process::ExitCode;
use std::time::Instant;

/// `out[r][c] = exp(x[r][c] - max_r) / sum_r` for `rows x cols` row-major matrices; launch with
/// one block of 256 threads per row. The two block-wide combinations are the `cuphase-blocks`
/// library's `block_reduce_max` and `block_reduce_sum` (helpers from another crate, inlined and
/// checked here; the trailing barrier of the first lets the second reuse `red`).
#[kernel(block = 256)]
pub fn softmax(out: &mut [f32], x: &[f32], cols: u32) {
    let red = shared::<[f32; 256]>();
    let row = block_idx().x * cols;
    let mut m = f32::NEG_INFINITY;
    for c in threads_in_block(0..cols) {
        m = m.max(x[row + c]);
    }
    let max = block_reduce_max(&mut red, m);
    let mut sum = 0.0f32;
    for c in threads_in_block(0..cols) {
        sum += (x[row + c] - max).exp();
    }
    let total = block_reduce_sum(&mut red, sum);
    for c in threads_in_block(0..cols) {
        out[row + c] = (x[row + c] - max).exp() / total;
    }
}

fn run() -> Result<bool, Error> {
    let dev = Device::default()?;
    let (rows, cols) = (512usize, 1000usize);
    let host: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 7919) % 1000) as f32 / 100.0 - 5.0)
        .collect();
    let x = dev.upload(&host)?;
    let mut out = dev.upload(&vec![f32::NAN; rows * cols])?;
    let t0 = Instant::now();
    softmax.launch(
        &dev,
        Launch::new(rows as u32, 256),
        &mut out,
        &x,
        cols as u32,
    )?;
    let got = out.to_vec()?;
    let elapsed = t0.elapsed();
    // Against an f64 reference: the sums' order differs, so within a relative 1e-5.
    let mut worst = 0.0f64;
    for (r, row) in host.chunks(cols).enumerate() {
        let max = row
            .iter()
            .fold(f64::NEG_INFINITY, |m, v| m.max(f64::from(*v)));
        let sum: f64 = row.iter().map(|v| (f64::from(*v) - max).exp()).sum();
        for (c, v) in row.iter().enumerate() {
            let want = (f64::from(*v) - max).exp() / sum;
            let err = (f64::from(got[r * cols + c]) - want).abs() / want;
            worst = worst.max(err);
        }
    }
    let ok = worst < 1e-5;
    println!(
        "softmax: {rows} rows of {cols} on {} in {:.2} ms (first launch{}): largest relative error {worst:.1e}: {}",
        dev.name(),
        elapsed.as_secs_f64() * 1e3,
        if dev.is_cuda() { ", with NVRTC compilation" } else { "" },
        if ok { "correct" } else { "WRONG" }
    );
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("softmax: {e}");
            ExitCode::FAILURE
        }
    }
}
