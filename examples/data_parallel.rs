//! A data-parallel step over every device: the data is split in one shard per device, each
//! device counts its shard into a 256-bin histogram with a kernel, and an all-reduce sums the
//! histograms so that every device holds the whole count (as data-parallel training sums
//! gradients). The result is checked against the host's; the example prints each device's
//! time and the step's speed-up over one device.
//!
//! Run: `cargo run --release --example data_parallel`: on every GPU (`Device::all()`), else
//! on two simulated devices (`Device::cpus(2)`), which share this machine's cores, so expect
//! no speed-up there.

use cuphase::collective::{Group, ReduceOp};
use cuphase::prelude::*;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Adds to `bins` (256 of them) the count of each `data[i] % 256`; 256 threads per block, any
/// number of blocks (a grid-stride loop covers the data).
#[kernel(block = 256)]
pub fn shard_histogram(bins: &mut [u32], data: &[u32]) {
    let local = shared::<[u32; 256]>();
    let t = thread_idx().x;
    local[t] = 0;
    sync_block_threads();
    for i in threads_in_grid(0..data.len() as u32) {
        local.atomic_add(data[i] % 256, 1);
    }
    sync_block_threads();
    bins.atomic_add(t, local[t]);
}

/// What one step gives: every device's histogram, each device's kernel time, the step's time.
struct Step {
    histograms: Vec<Vec<u32>>,
    times: Vec<Duration>,
    elapsed: Duration,
}

/// One step on the devices of `group`: each counts its shard (in its own host thread), then
/// the all-reduce.
fn step(group: &Group, host: &[u32]) -> Result<Step, Error> {
    let devices = group.devices();
    // One shard per device (the first ones a word longer when the words do not split
    // evenly). Uploads first: the step times the counting and the all-reduce.
    let k = devices.len();
    let mut work = Vec::new();
    for (r, d) in devices.iter().enumerate() {
        let part = &host[r * host.len() / k..(r + 1) * host.len() / k];
        work.push((d.clone(), d.upload(part)?, d.zeros::<u32>(256)?));
    }
    let t0 = Instant::now();
    let results: Vec<Result<(Buffer<u32>, Duration), Error>> = std::thread::scope(|s| {
        let handles: Vec<_> = work
            .into_iter()
            .map(|(d, data, mut bins)| {
                s.spawn(move || {
                    let t = Instant::now();
                    shard_histogram.launch(&d, Launch::new(256, 256), &mut bins, &data)?;
                    d.synchronize()?;
                    Ok((bins, t.elapsed()))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::Collective {
                        reason: "a device's thread panicked".into(),
                    })
                })
            })
            .collect()
    });
    let mut bins = Vec::new();
    let mut times = Vec::new();
    for r in results {
        let (b, t) = r?;
        bins.push(b);
        times.push(t);
    }
    group.all_reduce(&mut bins, ReduceOp::Sum)?;
    // The copies back wait for the all-reduce (asynchronous through NCCL).
    let histograms = bins
        .iter()
        .map(|b| b.to_vec())
        .collect::<Result<Vec<_>, _>>()?;
    let elapsed = t0.elapsed();
    Ok(Step {
        histograms,
        times,
        elapsed,
    })
}

/// A group of `devices`: through NCCL where they are GPUs and NCCL is installed, else
/// through the host (saying why).
fn group(devices: &[Device]) -> Result<Group, Error> {
    Group::new(devices).or_else(|e| {
        println!("data_parallel: {e}; the all-reduce goes through the host");
        Group::staged(devices)
    })
}

fn run() -> Result<bool, Error> {
    let devices = match Device::all() {
        Ok(gpus) => gpus,
        Err(e) => {
            println!("data_parallel: no GPU ({e}); two simulated devices instead");
            Device::cpus(2)?
        }
    };
    let n = 1 << 24;
    let mut s = 0x9e37_79b9u32;
    let host: Vec<u32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        })
        .collect();
    let mut want = vec![0u32; 256];
    for v in &host {
        want[(v % 256) as usize] += 1;
    }
    // Warm up (compiles the kernel on each device), then one device alone, then all of them.
    let (group_one, group_all) = (group(&devices[..1])?, group(&devices)?);
    println!(
        "data_parallel: the all-reduce goes through {}",
        if group_all.uses_nccl() {
            "NCCL"
        } else {
            "the host"
        }
    );
    step(&group_all, &host)?;
    let one = step(&group_one, &host)?;
    let all = step(&group_all, &host)?;
    let ok = one.histograms[0] == want && all.histograms.iter().all(|h| *h == want);
    let (t1, tn) = (one.elapsed, all.elapsed);
    for (r, (d, t)) in devices.iter().zip(&all.times).enumerate() {
        let words = (r + 1) * n / devices.len() - r * n / devices.len();
        println!(
            "data_parallel: {} counted {words} words in {:.2} ms",
            d.name(),
            t.as_secs_f64() * 1e3
        );
    }
    println!(
        "data_parallel: {n} words, 1 device {:.2} ms, {} devices {:.2} ms (all-reduce included): {:.2}x; {}",
        t1.as_secs_f64() * 1e3,
        devices.len(),
        tn.as_secs_f64() * 1e3,
        t1.as_secs_f64() / tn.as_secs_f64(),
        if ok {
            "every device holds the host's histogram"
        } else {
            "WRONG: a histogram differs from the host's"
        }
    );
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("data_parallel: {e}");
            ExitCode::FAILURE
        }
    }
}
