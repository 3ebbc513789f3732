//! CPU simulator benchmark: the kernels of the GPU suite and classic ones (reverse, SAXPY,
//! a tree reduction, tiled matmul, n-body; the suite's softmax, scan, transpose, histogram,
//! reduce_sum, layernorm, stencil), each with
//! race detection on and off, against the same computation as a plain single-threaded Rust
//! loop and as a rayon loop, all in one run; then a launch that touches little of a large
//! buffer, a Needleman-Wunsch-like loop of 255 launches over a 4M-element matrix, and the
//! ratio to Numba's CUDA simulator running the same kernels (benches/numba_sim.py), measured
//! in the same run when a Python with numba, numba-cuda and nvidia-cuda-runtime is found
//! (`CUPHASE_NUMBA_PYTHON`, else `.venv-numba/bin/python`).
//!
//! Run: `cargo run --release --example bench_sim` (`-- --quick` for a smoke run on small
//! inputs; `-- tiled_matmul scan` for those rows only).

#[path = "gpu_suite.rs"]
#[allow(dead_code)]
mod gpu_suite;
#[path = "sim_cases.rs"]
mod sim_cases;
#[path = "sim_suite_cases.rs"]
mod sim_suite_cases;

use cuphase::prelude::*;
use cuphase::sim::{SimOptions, ThreadOrder};
use rayon::prelude::*;
use sim_cases::{timed, Result};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

/// Median seconds of `reps` runs of `f`.
fn median(reps: usize, mut f: impl FnMut()) -> f64 {
    timed(
        reps,
        || Ok(()),
        || {
            f();
            Ok(())
        },
    )
    .unwrap_or(f64::NAN)
}

fn numba() -> Option<BTreeMap<String, f64>> {
    let python =
        std::env::var("CUPHASE_NUMBA_PYTHON").unwrap_or_else(|_| ".venv-numba/bin/python".into());
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/numba_sim.py");
    let out = std::process::Command::new(&python)
        .arg(script)
        .output()
        .ok()?;
    if !out.status.success() {
        eprintln!(
            "bench_sim: Numba's simulator did not run ({python}): {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        );
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // The script prints a flat JSON object of names to numbers.
    let mut map = BTreeMap::new();
    for part in text
        .trim()
        .trim_matches(|c| c == '{' || c == '}')
        .split(',')
    {
        let mut kv = part.split(':');
        let (Some(k), Some(v)) = (kv.next(), kv.next()) else {
            continue;
        };
        if let Ok(v) = v.trim().parse::<f64>() {
            map.insert(k.trim().trim_matches('"').to_string(), v);
        }
    }
    Some(map)
}

/// The Needleman-Wunsch-like loop: `sweeps` launches, each computing row `k + 1` of an
/// `n x n` matrix from row `k`; seconds for the simulator on `dev`, checked against `want`.
fn sweep(dev: &Device, start: &[u32], want: &[u32], n: usize, sweeps: u32) -> Result<f64> {
    let mut m = dev.upload(start)?;
    let t = Instant::now();
    for k in 0..sweeps {
        sim_cases::sweep_row.launch(dev, Launch::cover(n, 256), &mut m, n as u32, k)?;
    }
    let secs = t.elapsed().as_secs_f64();
    if m.to_vec()? != want {
        return Err("sweep_row: wrong result".into());
    }
    Ok(secs)
}

fn bench() -> Result<()> {
    let quick = std::env::args().any(|a| a == "--quick");
    let reps = if quick { 1 } else { 21 };
    // The default: race detection on, shared memory skipped where the compiler proved it.
    let sim = |race_detection| {
        Device::cpu_with(SimOptions {
            race_detection,
            order: ThreadOrder::Forward,
            trust_compiler: true,
        })
    };
    let (on, off) = (sim(true)?, sim(false)?);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("CPU simulator and rayon on {cores} CPU threads; medians of {reps} runs; times in ms");
    println!("| kernel | GPU threads | races on | races off | plain loop | rayon loop | on / plain | off / plain | off / rayon |");
    println!("|---|---|---|---|---|---|---|---|---|");
    let mut ours = BTreeMap::new();
    // Names given on the command line pick the rows (all of them by default).
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    for case in sim_cases::cases(quick) {
        if !only.is_empty() && !only.iter().any(|o| case.name.starts_with(o.as_str())) {
            continue;
        }
        let t_on = (case.sim)(&on, reps)?;
        let t_off = (case.sim)(&off, reps)?;
        let plain = median(reps, &case.plain);
        let par = median(reps, &case.rayon);
        ours.insert(case.name, case.threads as f64 / t_on);
        println!(
            "| {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1}x | {:.1}x | {:.1}x |",
            case.name,
            case.threads,
            t_on * 1e3,
            t_off * 1e3,
            plain * 1e3,
            par * 1e3,
            t_on / plain,
            t_off / plain,
            t_off / par,
        );
    }
    // A launch's race-detection cost on a large buffer it barely touches.
    let big: usize = if quick { 1 << 16 } else { 1 << 24 };
    let small_launch = |dev: &Device| -> Result<f64> {
        let mut buf = dev.zeros::<f32>(big)?;
        let secs = timed(
            reps,
            || Ok(()),
            || Ok(sim_cases::touch.launch(dev, Launch::new(1, 32), &mut buf)?),
        )?;
        if buf.to_vec()?[62] != 62.0 {
            return Err("touch: wrong result".into());
        }
        Ok(secs)
    };
    let (t_on, t_off) = (small_launch(&on)?, small_launch(&off)?);
    println!(
        "\n32 threads writing 32 elements of a {big}-element `&mut [f32]`: {:.3} ms a launch with race detection on, {:.3} ms off",
        t_on * 1e3,
        t_off * 1e3
    );
    // A launch loop over a 2048 x 2048 matrix (4M elements), 255 launches of one row each.
    let (sn, sweeps) = if quick {
        (256usize, 15u32)
    } else {
        (2048, 255)
    };
    let start: Vec<u32> = (0..sn * sn)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761) >> 20)
        .collect();
    let row = |m: &[u32], k: usize, j: usize| m[k * sn + j].max(m[k * sn + (j + 1) % sn]) + 1;
    let mut want = start.clone();
    let plain = median(reps, || {
        want.copy_from_slice(&start);
        for k in 0..sweeps as usize {
            for j in 0..sn {
                want[(k + 1) * sn + j] = row(&want, k, j);
            }
        }
        black_box(&want);
    });
    let mut m = start.clone();
    let par = median(reps, || {
        m.copy_from_slice(&start);
        for k in 0..sweeps as usize {
            let (done, rest) = m.split_at_mut((k + 1) * sn);
            rest[..sn]
                .par_iter_mut()
                .enumerate()
                .for_each(|(j, v)| *v = row(done, k, j));
        }
        black_box(&m);
    });
    let (s_on, s_off) = (
        sweep(&on, &start, &want, sn, sweeps)?,
        sweep(&off, &start, &want, sn, sweeps)?,
    );
    println!(
        "{sweeps} launches of one row each over a {sn} x {sn} `&mut [u32]` (Needleman-Wunsch-like): {:.1} ms races on, {:.1} ms off, plain loop {:.2} ms, rayon loop {:.2} ms ({:.0}x and {:.0}x the plain loop)",
        s_on * 1e3,
        s_off * 1e3,
        plain * 1e3,
        par * 1e3,
        s_on / plain,
        s_off / plain
    );
    // Same sizes as the Python script for matmul, whose work per thread grows with n; timed
    // before the script runs, so that its process (seconds of Python on both cores) is gone
    // from neither the timing nor the caches.
    let a = sim_cases::random(64 * 64, 9);
    let (da, db) = (on.upload(&a)?, on.upload(&a)?);
    let mut dc = on.zeros::<f32>(64 * 64)?;
    let small = timed(
        reps,
        || Ok(()),
        || {
            Ok(sim_cases::tiled_matmul.launch(
                &on,
                Launch::new((4, 4), (16, 16)),
                &mut dc,
                &da,
                &db,
                64,
            )?)
        },
    )?;
    match numba() {
        Some(nb) => {
            ours.insert("tiled_matmul", 64.0 * 64.0 / small);
            println!("\n| kernel | Numba CUDA simulator: threads/s | cuphase (races on): threads/s | ratio |");
            println!("|---|---|---|---|");
            for name in ["reverse", "block_reduce", "tiled_matmul"] {
                if let (Some(theirs), Some(t)) = (nb.get(name), ours.get(name)) {
                    println!("| {name} | {theirs:.3e} | {t:.3e} | {:.0}x |", t / theirs);
                }
            }
            println!("(tiled_matmul compared at 64x64, the size the Numba script runs)");
        }
        None => println!("\nNumba's CUDA simulator: not measured (no Python with numba, numba-cuda and nvidia-cuda-runtime; set CUPHASE_NUMBA_PYTHON)"),
    }
    Ok(())
}

fn main() -> ExitCode {
    match bench() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench_sim: {e}");
            ExitCode::FAILURE
        }
    }
}
