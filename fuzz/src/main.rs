//! Differential testing: every generated kernel (see build.rs) runs on the CPU simulator and on
//! the GPU with the same random inputs; integer results must be equal, float results equal bit
//! for bit (NaN equal to NaN), and a kernel that panics must panic on both with the same message
//! at the same Rust location (where the two report different threads, each may have panicked
//! elsewhere: the GPU reports the thread that claimed the fault record first).
//!
//! Build and run on the GPU machine: `cargo build --release --manifest-path fuzz/Cargo.toml`,
//! then `fuzz/target/release/cuphase-differential`. Without a GPU it compares the simulator
//! with itself: its straight thread loops against every loop checked
//! (`CUPHASE_SIM_STRAIGHT=off`), and compiles every kernel's CUDA C with NVRTC where found.

#![allow(clippy::too_many_arguments)]

use cuphase::prelude::*;
use std::process::ExitCode;

mod generated {
    #![allow(unused_variables, unused_mut, clippy::all)]
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

const N: usize = 100;

#[derive(Debug, PartialEq)]
enum Outcome {
    Values(Vec<i64>, Vec<u64>),
    /// The message and Rust location, and the thread that reported it.
    Panic(String, String),
}

fn run(dev: &Device, k: generated::Run, seed: u64) -> Result<Outcome, Error> {
    let mut x = seed | 1;
    let mut rnd = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let xa: Vec<i64> = (0..N).map(|_| (rnd() as i64) >> (rnd() % 60)).collect();
    let xb: Vec<f32> = (0..N)
        .map(|_| ((rnd() % 20000) as f32 - 10000.0) / 64.0)
        .collect();
    let xc: Vec<f64> = (0..N)
        .map(|_| ((rnd() % 2_000_000) as f64 - 1e6) / 1024.0)
        .collect();
    let (p, q) = ((rnd() % 2000) as i32 - 1000, (rnd() % 100) as u32);
    let (a, b, c) = (dev.upload(&xa)?, dev.upload(&xb)?, dev.upload(&xc)?);
    let mut oi = dev.zeros::<i64>(N)?;
    let mut of = dev.zeros::<f64>(N)?;
    let launched = k(dev, Launch::new(2, 64), &mut oi, &mut of, &a, &b, &c, p, q);
    let result = launched.and_then(|()| Ok((oi.to_vec()?, of.to_vec()?)));
    match result {
        Ok((i, f)) => Ok(Outcome::Values(
            i,
            f.iter()
                .map(|v| if v.is_nan() { u64::MAX } else { v.to_bits() })
                .collect(),
        )),
        Err(Error::KernelPanic {
            message,
            line,
            column,
            block,
            thread,
            ..
        }) => Ok(Outcome::Panic(
            format!("{message} at {line}:{column}"),
            format!("block {block}, thread {thread}"),
        )),
        // A checked index past the end (kernels compiled with bounds checks): a fault of the
        // kernel, compared as a panic is.
        Err(Error::OutOfBounds {
            array,
            index,
            len,
            line,
            column,
            block,
            thread,
            ..
        }) => Ok(Outcome::Panic(
            format!("{array}: index {index} of {len} at {line}:{column}"),
            format!("block {block}, thread {thread}"),
        )),
        Err(e) => Err(e),
    }
}

fn main() -> ExitCode {
    let kernels = generated::kernels();
    let cpu = match Device::cpu() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("differential: {e}");
            return ExitCode::FAILURE;
        }
    };
    let gpu = match Device::cuda(0) {
        Ok(d) => Some(d),
        Err(e) => {
            println!("differential: no GPU ({e}); running the simulator only");
            None
        }
    };
    // The simulator with every thread loop checked (`CUPHASE_SIM_STRAIGHT=off`, read when a
    // device is made; nothing else runs yet).
    // Race detection off in both: a shadowed array keeps its thread loop checked.
    let quiet = cuphase::sim::SimOptions {
        race_detection: false,
        ..Default::default()
    };
    let straight = Device::cpu_with(quiet);
    std::env::set_var("CUPHASE_SIM_STRAIGHT", "off");
    let checked = Device::cpu_with(quiet);
    std::env::remove_var("CUPHASE_SIM_STRAIGHT");
    let (straight, checked) = match (straight, checked) {
        (Ok(s), Ok(c)) => (s, c),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("differential: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut elsewhere = 0usize;
    let (mut equal, mut both_panicked, mut mismatches, mut errors) =
        (0usize, 0usize, 0usize, 0usize);
    if gpu.is_none() && cuphase::cuda::nvrtc_available() {
        // No GPU, but NVRTC: at least every kernel's CUDA C must compile.
        let arch = cuphase::cuda::Arch { major: 9, minor: 0 };
        let sources = generated::sources();
        let failed: Vec<String> = sources
            .iter()
            .zip(&kernels)
            .filter_map(|(src, (name, _))| {
                cuphase::cuda::compile_cuda(src, "fuzz.rs", name, arch, false)
                    .err()
                    .map(|e| format!("{name}: {e}"))
            })
            .collect();
        println!(
            "differential: NVRTC compiled {} of {} kernels for sm_90",
            sources.len() - failed.len(),
            sources.len()
        );
        for f in failed.iter().take(5) {
            println!("{f}");
        }
        if !failed.is_empty() {
            return ExitCode::FAILURE;
        }
    }
    if let Some(arch) = gpu.as_ref().and_then(|g| g.cuda_arch()) {
        let names: Vec<&str> = kernels.iter().map(|(name, _)| *name).collect();
        warm_the_cache(&generated::sources(), &names, arch);
    }
    for (i, (name, k)) in kernels.iter().enumerate() {
        let seed = 0x5EED_0000 + i as u64;
        let Some(gpu) = &gpu else {
            // No GPU: the simulator's straight thread loops against its checked ones, which
            // must agree exactly (values, and a fault's message, place and thread).
            match (run(&straight, *k, seed), run(&checked, *k, seed)) {
                (Ok(a), Ok(b)) if a == b => {
                    if matches!(a, Outcome::Panic(..)) {
                        both_panicked += 1;
                    } else {
                        equal += 1;
                    }
                }
                (Ok(a), Ok(b)) => {
                    mismatches += 1;
                    if mismatches <= 10 {
                        println!("{name}: MISMATCH\n  straight: {a:?}\n  checked:  {b:?}");
                    }
                }
                (a, b) => {
                    errors += 1;
                    println!("{name}: error: straight {a:?}, checked {b:?}");
                }
            }
            continue;
        };
        let on_cpu = run(&cpu, *k, seed);
        let on_gpu = run(gpu, *k, seed);
        match (on_cpu, on_gpu) {
            (Ok(Outcome::Panic(a, ta)), Ok(Outcome::Panic(b, tb))) if a == b || ta != tb => {
                // Threads that panic at different places: the GPU reports whichever claimed
                // the fault record first, the simulator its first thread in order. Both are
                // panics of the kernel; the same thread must panic at the same place.
                both_panicked += 1;
                if a != b {
                    elsewhere += 1;
                    println!("{name}: panicked in other threads: simulator {a} ({ta}), GPU {b} ({tb})");
                }
            }
            (Ok(a), Ok(b)) if a == b => equal += 1,
            (Ok(a), Ok(b)) => {
                mismatches += 1;
                if mismatches <= 10 {
                    println!("{name}: MISMATCH\n  simulator: {a:?}\n  GPU:       {b:?}");
                }
            }
            (a, b) => {
                errors += 1;
                println!("{name}: error: simulator {a:?}, GPU {b:?}");
            }
        }
    }
    println!(
        "differential: {} kernels: {equal} equal results, {both_panicked} panicked alike ({elsewhere} in other threads at other places), {mismatches} mismatches, {errors} errors",
        kernels.len()
    );
    if mismatches == 0 && errors == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Compiles every kernel through the disk cache on all cores, so that the launches that follow
/// (one at a time, in order) find their CUBIN there instead of waiting for NVRTC one by one.
/// A kernel that fails to compile here fails again at its launch, where it is counted.
fn warm_the_cache(sources: &[&str], names: &[&str], arch: cuphase::cuda::Arch) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let started = std::time::Instant::now();
    let workers = std::thread::available_parallelism().map_or(4, |n| n.get());
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let (Some(src), Some(name)) = (sources.get(i), names.get(i)) else {
                    break;
                };
                let _ = cuphase::cuda::compile_cached(src, "fuzz.rs", name, arch, false);
            });
        }
    });
    println!(
        "differential: {} kernels compiled through the cache on {workers} threads in {:.1} s",
        sources.len(),
        started.elapsed().as_secs_f64()
    );
}
