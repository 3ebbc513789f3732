//! A 64-bin histogram of bytes: each block counts its part in shared memory with atomics,
//! then adds its counts to the global bins.
//!
//! Run: `cargo run --release --example histogram`.

use cuphase::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

/// Adds to `bins` (64 of them) the count of each `data[i] % 64`; launch with 256 threads per
/// block, as many blocks as you like (a grid-stride loop covers the data).
#[kernel]
pub fn histogram(bins: &mut [u32], data: &[u32]) {
    let local = shared::<[u32; 64]>();
    let t = thread_idx().x;
    if t < 64 {
        local[t] = 0;
    }
    sync_block_threads();
    for i in threads_in_grid(0..data.len() as u32) {
        local.atomic_add(data[i] % 64, 1);
    }
    sync_block_threads();
    if t < 64 {
        bins.atomic_add(t, local[t]);
    }
}

fn run() -> Result<bool, Error> {
    let dev = Device::default()?;
    let n = 1 << 22;
    // A deterministic stream of pseudo-random words (xorshift).
    let mut s = 0x2545_f491u32;
    let host: Vec<u32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        })
        .collect();
    let data = dev.upload(&host)?;
    let mut bins = dev.zeros::<u32>(64)?;
    let t0 = Instant::now();
    histogram.launch(&dev, Launch::new(128, 256), &mut bins, &data)?;
    let got = bins.to_vec()?;
    let elapsed = t0.elapsed();
    let mut want = vec![0u32; 64];
    for v in &host {
        want[(v % 64) as usize] += 1;
    }
    let ok = got == want;
    println!(
        "histogram: {n} words into 64 bins on {} in {:.2} ms (first launch{}), fullest bin {}: {}",
        dev.name(),
        elapsed.as_secs_f64() * 1e3,
        if dev.is_cuda() {
            ", with NVRTC compilation"
        } else {
            ""
        },
        got.iter().max().copied().unwrap_or(0),
        if ok { "correct" } else { "WRONG" }
    );
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("histogram: {e}");
            ExitCode::FAILURE
        }
    }
}
