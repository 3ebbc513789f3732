//! A Monte-Carlo estimate of pi with a counter-based random number generator: thread `g`
//! draws its points from a hash of (`seed`, `g`, `k`), so every run, on every back end, draws
//! the same points; each block counts its hits with a shared-memory reduction.
//!
//! Run: `cargo run --release --example monte_carlo`.

use cuphase::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

/// A 32-bit mix of a counter (the "lowbias32" hash): a counter-based generator's output.
#[device]
fn mix(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

/// `hits[b]` = how many of block `b`'s points fall in the unit quarter circle; each thread
/// draws `per_thread` points. Launch with 256 threads per block.
#[kernel]
pub fn darts(hits: &mut [u32], seed: u32, per_thread: u32) {
    let count = shared::<[u32; 256]>();
    let t = thread_idx().x;
    let g = global_idx().x;
    let mut inside = 0u32;
    for k in 0..per_thread {
        let base = mix(seed ^ mix(g.wrapping_mul(2654435761) ^ mix(k)));
        let x = (mix(base) >> 8) as f32 / 16777216.0;
        let y = (mix(base ^ 0x9e37_79b9) >> 8) as f32 / 16777216.0;
        if x * x + y * y < 1.0 {
            inside += 1;
        }
    }
    count[t] = inside;
    sync_block_threads();
    let mut s = 128u32;
    while s > 0 {
        if t < s {
            count[t] += count[t + s];
        }
        sync_block_threads();
        s /= 2;
    }
    if t == 0 {
        hits[block_idx().x] = count[0];
    }
}

/// The host's copy of [`mix`], for the check.
fn mix_host(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^= x >> 16;
    x
}

fn run() -> Result<bool, Error> {
    let dev = Device::default()?;
    let (blocks, per_thread, seed) = (256u32, 64u32, 2026u32);
    let mut hits = dev.zeros::<u32>(blocks as usize)?;
    let t0 = Instant::now();
    darts.launch(&dev, Launch::new(blocks, 256), &mut hits, seed, per_thread)?;
    let got: u64 = hits.to_vec()?.iter().map(|h| u64::from(*h)).sum();
    let elapsed = t0.elapsed();
    // The same points on the host.
    let mut want = 0u64;
    for g in 0..blocks * 256 {
        for k in 0..per_thread {
            let base = mix_host(seed ^ mix_host(g.wrapping_mul(2654435761) ^ mix_host(k)));
            let x = (mix_host(base) >> 8) as f32 / 16777216.0;
            let y = (mix_host(base ^ 0x9e37_79b9) >> 8) as f32 / 16777216.0;
            want += u64::from(x * x + y * y < 1.0);
        }
    }
    let points = u64::from(blocks) * 256 * u64::from(per_thread);
    let pi = 4.0 * got as f64 / points as f64;
    let ok = got == want && (pi - std::f64::consts::PI).abs() < 0.01;
    println!(
        "monte_carlo: {points} points on {} in {:.2} ms (first launch{}): pi ~ {pi:.5}: {}",
        dev.name(),
        elapsed.as_secs_f64() * 1e3,
        if dev.is_cuda() {
            ", with NVRTC compilation"
        } else {
            ""
        },
        if ok {
            "correct (the host draws the same hits)"
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
            eprintln!("monte_carlo: {e}");
            ExitCode::FAILURE
        }
    }
}
