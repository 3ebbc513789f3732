//! All-reduce bandwidth over every GPU (`Device::all()`) through NCCL, for messages of 8 MiB
//! to 1 GiB: the median of 5 samples of 20 back-to-back `f32` max all-reduces each (max keeps
//! the values finite; NCCL moves the same bytes for a sum), after a warm-up, each sample timed
//! on the host from the first enqueue to the end of every device's work, as
//! `benches/peers_nccl.py` times torch's.
//! Prints the algorithm bandwidth (bytes / time) and NCCL's bus bandwidth (times `2 (k - 1) /
//! k` for `k` ranks), the figure `nccl-tests` and `benches/peers_nccl.py` (torch.distributed,
//! the same sizes) print. The first all-reduce of each size is checked: rank `r` holds `r + 1`
//! everywhere, the result is `k (k + 1) / 2`.
//!
//! Run on a machine with GPUs and NCCL: `cargo run --release --example bench_collective`
//! (`-- --quick` for 8 and 64 MiB only). Without a GPU or NCCL it says so and exits with 0.

use cuphase::collective::{Group, ReduceOp};
use cuphase::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

fn bench() -> Result<(), Error> {
    let quick = std::env::args().any(|a| a == "--quick");
    let devices = match Device::all() {
        Ok(d) => d,
        Err(e) => {
            println!("bench_collective: skipped: no GPU ({e})");
            return Ok(());
        }
    };
    let group = match Group::new(&devices) {
        Ok(g) => g,
        Err(e) => {
            println!("bench_collective: skipped: {e}");
            return Ok(());
        }
    };
    let k = devices.len();
    println!("cuphase all-reduce (f32 max) over {k} GPU(s) through NCCL; medians of 5 x 20");
    println!("| bytes | time (us) | algbw (GB/s) | busbw (GB/s) |");
    println!("|---|---|---|---|");
    let sizes: Vec<usize> = if quick {
        vec![8 << 20, 64 << 20]
    } else {
        vec![8 << 20, 32 << 20, 128 << 20, 512 << 20, 1 << 30]
    };
    for bytes in sizes {
        let n = bytes / 4;
        let mut bufs = devices
            .iter()
            .enumerate()
            .map(|(r, d)| d.upload(&vec![(r + 1) as f32; n]))
            .collect::<Result<Vec<_>, _>>()?;
        group.all_reduce(&mut bufs, ReduceOp::Sum)?;
        let want = (k * (k + 1) / 2) as f32;
        for (r, b) in bufs.iter().enumerate() {
            let v = b.to_vec()?;
            if v.iter().any(|x| *x != want) {
                return Err(Error::Collective {
                    reason: format!("rank {r}: the all-reduce of {bytes} bytes is wrong"),
                });
            }
        }
        let sync = || -> Result<(), Error> {
            for d in &devices {
                d.synchronize()?;
            }
            Ok(())
        };
        for _ in 0..5 {
            group.all_reduce(&mut bufs, ReduceOp::Max)?;
        }
        sync()?;
        let mut samples = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            for _ in 0..20 {
                // Max keeps the values finite over any number of rounds.
                group.all_reduce(&mut bufs, ReduceOp::Max)?;
            }
            sync()?;
            samples.push(t.elapsed().as_secs_f64() / 20.0);
        }
        samples.sort_by(f64::total_cmp);
        let secs = samples[samples.len() / 2];
        let algbw = bytes as f64 / secs / 1e9;
        let busbw = algbw * 2.0 * (k as f64 - 1.0) / k as f64;
        println!("| {bytes} | {:.1} | {algbw:.1} | {busbw:.1} |", secs * 1e6);
    }
    Ok(())
}

fn main() -> ExitCode {
    match bench() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_collective: {e}");
            ExitCode::FAILURE
        }
    }
}
