//! Reverses each block's part of an array through shared memory: the shared-memory example of
//! the CUDA barrier lesson. Without the barrier a thread could read `tile[r]` before thread `r`
//! wrote it.
//!
//! Run: `cargo run --release --example reverse` (on the GPU if there is one, else the
//! simulator; `CUPHASE_DEVICE=cpu` forces the simulator).

use cuphase::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

const BLOCK: u32 = 256;

/// Reverses every block of 256 elements in place into `out`.
#[kernel]
pub fn reverse(out: &mut [f32], input: &[f32]) {
    let tile = shared::<[f32; 256]>();
    let t = thread_idx().x;
    let i = block_idx().x * block_dim().x + t;
    if i < input.len() as u32 {
        tile[t] = input[i];
    }
    sync_block_threads();
    let r = block_dim().x - 1 - t;
    if i < out.len() as u32 {
        out[i] = tile[r];
    }
}

fn run() -> Result<bool, Error> {
    let dev = Device::default()?;
    let n = 1 << 20;
    let host: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let input = dev.upload(&host)?;
    let mut out = dev.zeros::<f32>(n)?;
    let start = Instant::now();
    reverse.launch(&dev, Launch::cover(n, BLOCK), &mut out, &input)?;
    let got = out.to_vec()?;
    let elapsed = start.elapsed();
    let expected: Vec<f32> = host
        .chunks(BLOCK as usize)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    let ok = got == expected;
    println!(
        "reverse: {n} elements on {} in {:.2} ms (first launch, including compilation on CUDA): {}",
        dev.name(),
        elapsed.as_secs_f64() * 1e3,
        if ok { "correct" } else { "WRONG" }
    );
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("reverse: {e}");
            ExitCode::FAILURE
        }
    }
}
