//! Tree reduction in shared memory: each block of 256 threads sums its 256 elements, halving
//! the active threads at every step, with a barrier after each step.
//!
//! Run: `cargo run --release --example block_reduce`.

use cuphase::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

/// `partial[b]` = the sum of block `b`'s elements; launch with 256 threads per block.
#[kernel]
pub fn block_reduce(partial: &mut [f32], input: &[f32]) {
    let buf = shared::<[f32; 256]>();
    let t = thread_idx().x;
    let i = global_idx().x;
    buf[t] = if i < input.len() as u32 {
        input[i]
    } else {
        0.0
    };
    sync_block_threads();
    let mut s = block_dim().x / 2;
    while s > 0 {
        if t < s {
            buf[t] += buf[t + s];
        }
        sync_block_threads();
        s /= 2;
    }
    if t == 0 {
        partial[block_idx().x] = buf[0];
    }
}

fn run() -> Result<bool, Error> {
    let dev = Device::default()?;
    let n = 1 << 22;
    // Small integers: every partial sum is exact in f32, whatever the order.
    let host: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let input = dev.upload(&host)?;
    let launch = Launch::cover(n, 256);
    let mut partial = dev.zeros::<f32>(launch.grid.x as usize)?;
    let t0 = Instant::now();
    block_reduce.launch(&dev, launch, &mut partial, &input)?;
    let got = partial.to_vec()?;
    let elapsed = t0.elapsed();
    let expected: Vec<f32> = host.chunks(256).map(|c| c.iter().sum()).collect();
    let total: f64 = got.iter().map(|v| f64::from(*v)).sum();
    let ok = got == expected;
    println!(
        "block_reduce: {n} elements in {} blocks on {} in {:.2} ms (first launch{}), total {total}: {}",
        got.len(),
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
            eprintln!("block_reduce: {e}");
            ExitCode::FAILURE
        }
    }
}
