//! CPU simulator benchmark: the block-reverse kernel, a tree reduction and tiled matmul at
//! 2^20 GPU threads each, reporting simulated GPU threads per second with race detection on
//! and off, the slowdown against the same computation as a plain Rust loop, and the ratio to
//! Numba's CUDA simulator running the same kernels (benches/numba_sim.py), measured in the same
//! run when a Python with numba, numba-cuda and nvidia-cuda-runtime is found
//! (`CUPHASE_NUMBA_PYTHON`, else `.venv-numba/bin/python`).
//!
//! Run: `cargo run --release --example bench_sim`.

use cuphase::prelude::*;
use cuphase::sim::{SimOptions, ThreadOrder};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

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

/// One element a thread: a launch that touches a few elements of a large buffer.
#[kernel]
pub fn touch(out: &mut [f32]) {
    let i = global_idx().x as usize;
    if i < out.len() {
        out[i] = i as f32;
    }
}

/// One row of a dynamic-programming sweep over a row-major `n x n` matrix: row `k + 1` from
/// row `k` (a Needleman-Wunsch-like launch loop: many launches, each touching little of a
/// large buffer).
#[kernel]
pub fn sweep_row(m: &mut [u32], n: u32, k: u32) {
    let j = global_idx().x;
    if j < n {
        let up = m[(k * n + j) as usize];
        let diag = m[(k * n + (j + 1) % n) as usize];
        m[((k + 1) * n + j) as usize] = up.max(diag) + 1;
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Median seconds of `reps` runs.
fn median_secs(reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    let mut v = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        f()?;
        v.push(t.elapsed().as_secs_f64());
    }
    v.sort_by(f64::total_cmp);
    Ok(v[v.len() / 2])
}

struct Row {
    name: &'static str,
    threads: u64,
    on: f64,
    off: f64,
    plain: f64,
}

fn run_reverse(dev: &Device, n: usize) -> Result<f64> {
    let host: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let input = dev.upload(&host)?;
    let mut out = dev.zeros::<f32>(n)?;
    let secs = median_secs(5, || {
        Ok(reverse.launch(dev, Launch::cover(n, 256), &mut out, &input)?)
    })?;
    let got = out.to_vec()?;
    if got[0] != 255.0 || got[n - 1] != (n - 256) as f32 {
        return Err("reverse: wrong result".into());
    }
    Ok(secs)
}

fn plain_reverse(n: usize) -> f64 {
    let input: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let mut out = vec![0.0f32; n];
    median_secs(5, || {
        for (o, i) in out.chunks_mut(256).zip(black_box(&input).chunks(256)) {
            for t in 0..256 {
                o[t] = i[255 - t];
            }
        }
        black_box(&out);
        Ok(())
    })
    .unwrap_or(f64::NAN)
}

fn run_reduce(dev: &Device, n: usize) -> Result<f64> {
    let host: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let input = dev.upload(&host)?;
    let launch = Launch::cover(n, 256);
    let mut partial = dev.zeros::<f32>(launch.grid.x as usize)?;
    let secs = median_secs(5, || {
        Ok(block_reduce.launch(dev, launch, &mut partial, &input)?)
    })?;
    let expected: f32 = host[..256].iter().sum();
    if partial.to_vec()?[0] != expected {
        return Err("block_reduce: wrong result".into());
    }
    Ok(secs)
}

fn plain_reduce(n: usize) -> f64 {
    let input: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let mut partial = vec![0.0f32; n / 256];
    median_secs(5, || {
        for (p, c) in partial.iter_mut().zip(black_box(&input).chunks(256)) {
            let mut buf = [0.0f32; 256];
            buf.copy_from_slice(c);
            let mut s = 128;
            while s > 0 {
                for t in 0..s {
                    buf[t] += buf[t + s];
                }
                s /= 2;
            }
            *p = buf[0];
        }
        black_box(&partial);
        Ok(())
    })
    .unwrap_or(f64::NAN)
}

fn matmul_inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    let a = (0..n * n)
        .map(|i| ((i * 37) % 101) as f32 / 50.0 - 1.0)
        .collect();
    let b = (0..n * n)
        .map(|i| ((i * 53) % 97) as f32 / 48.0 - 1.0)
        .collect();
    (a, b)
}

fn run_matmul(dev: &Device, n: usize, reps: usize) -> Result<f64> {
    let (a, b) = matmul_inputs(n);
    let (da, db) = (dev.upload(&a)?, dev.upload(&b)?);
    let mut dc = dev.zeros::<f32>(n * n)?;
    let tiles = (n as u32).div_ceil(16);
    let secs = median_secs(reps, || {
        Ok(tiled_matmul.launch(
            dev,
            Launch::new((tiles, tiles), (16, 16)),
            &mut dc,
            &da,
            &db,
            n as u32,
        )?)
    })?;
    let mut acc = 0.0f32;
    for k in 0..n {
        acc += a[k] * b[k * n];
    }
    if dc.to_vec()?[0] != acc {
        return Err("tiled_matmul: wrong result".into());
    }
    Ok(secs)
}

fn plain_matmul(n: usize) -> f64 {
    let (a, b) = matmul_inputs(n);
    let mut c = vec![0.0f32; n * n];
    median_secs(3, || {
        let (a, b) = (black_box(&a), black_box(&b));
        for row in 0..n {
            for col in 0..n {
                let mut acc = 0.0f32;
                for k in 0..n {
                    acc += a[row * n + k] * b[k * n + col];
                }
                c[row * n + col] = acc;
            }
        }
        black_box(&c);
        Ok(())
    })
    .unwrap_or(f64::NAN)
}

/// Numba's simulator throughput per kernel, if a suitable Python is found.
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

fn bench() -> Result<()> {
    // The default: race detection on, shared memory skipped where the compiler proved it.
    let on = Device::cpu_with(SimOptions {
        race_detection: true,
        order: ThreadOrder::Forward,
        trust_compiler: true,
    })?;
    let off = Device::cpu_with(SimOptions {
        race_detection: false,
        order: ThreadOrder::Forward,
        trust_compiler: true,
    })?;
    let n: usize = 1 << 20;
    let mn: usize = 1024;
    let rows = vec![
        Row {
            name: "reverse",
            threads: n as u64,
            on: run_reverse(&on, n)?,
            off: run_reverse(&off, n)?,
            plain: plain_reverse(n),
        },
        Row {
            name: "block_reduce",
            threads: n as u64,
            on: run_reduce(&on, n)?,
            off: run_reduce(&off, n)?,
            plain: plain_reduce(n),
        },
        Row {
            name: "tiled_matmul (1024^2)",
            threads: (mn * mn) as u64,
            on: run_matmul(&on, mn, 3)?,
            off: run_matmul(&off, mn, 3)?,
            plain: plain_matmul(mn),
        },
    ];
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("CPU simulator, {cores} CPU threads; medians of 3-5 runs");
    println!("| kernel | GPU threads | races on: threads/s | races off: threads/s | plain Rust loop (ms) | slowdown vs plain, races on | races off |");
    println!("|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {:.3e} | {:.3e} | {:.2} | {:.1}x | {:.1}x |",
            r.name,
            r.threads,
            r.threads as f64 / r.on,
            r.threads as f64 / r.off,
            r.plain * 1e3,
            r.on / r.plain,
            r.off / r.plain
        );
    }
    // A launch's race-detection cost on a large buffer it barely touches.
    let big: usize = 1 << 24;
    let small_launch = |dev: &Device| -> Result<f64> {
        let mut buf = dev.zeros::<f32>(big)?;
        let secs = median_secs(5, || Ok(touch.launch(dev, Launch::new(1, 32), &mut buf)?))?;
        if buf.to_vec()?[31] != 31.0 {
            return Err("touch: wrong result".into());
        }
        Ok(secs)
    };
    let (t_on, t_off) = (small_launch(&on)?, small_launch(&off)?);
    println!(
        "\n32 threads writing 32 elements of a 2^24-element `&mut [f32]`: {:.3} ms a launch with race detection on, {:.3} ms off",
        t_on * 1e3,
        t_off * 1e3
    );
    // A launch loop over a 2048 x 2048 matrix (4M elements), 255 launches of one row each.
    let (sn, sweeps) = (2048usize, 255u32);
    let sweep_host = |m: &mut [u32]| {
        for k in 0..sweeps as usize {
            for j in 0..sn {
                m[(k + 1) * sn + j] = m[k * sn + j].max(m[k * sn + (j + 1) % sn]) + 1;
            }
        }
    };
    let start: Vec<u32> = (0..sn * sn)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761) >> 20)
        .collect();
    let mut want = start.clone();
    let t = Instant::now();
    sweep_host(black_box(&mut want));
    let plain_sweep = t.elapsed().as_secs_f64();
    let sweep = |dev: &Device| -> Result<f64> {
        let mut m = dev.upload(&start)?;
        let t = Instant::now();
        for k in 0..sweeps {
            sweep_row.launch(dev, Launch::cover(sn, 256), &mut m, sn as u32, k)?;
        }
        let secs = t.elapsed().as_secs_f64();
        if m.to_vec()? != want {
            return Err("sweep_row: wrong result".into());
        }
        Ok(secs)
    };
    let (s_on, s_off) = (sweep(&on)?, sweep(&off)?);
    println!(
        "{sweeps} launches of one row each over a 2048 x 2048 `&mut [u32]` (Needleman-Wunsch-like): {:.1} ms races on, {:.1} ms off, plain Rust loop {:.2} ms ({:.0}x and {:.0}x)",
        s_on * 1e3,
        s_off * 1e3,
        plain_sweep * 1e3,
        s_on / plain_sweep,
        s_off / plain_sweep
    );
    match numba() {
        Some(nb) => {
            // Same sizes as the Python script for matmul, whose work per thread grows with n.
            let small = run_matmul(&on, 64, 5)?;
            let ours = [
                ("reverse", rows[0].threads as f64 / rows[0].on),
                ("block_reduce", rows[1].threads as f64 / rows[1].on),
                ("tiled_matmul", 64.0 * 64.0 / small),
            ];
            println!("\n| kernel | Numba CUDA simulator: threads/s | cuphase (races on): threads/s | ratio |");
            println!("|---|---|---|---|");
            for (name, t) in ours {
                if let Some(theirs) = nb.get(name) {
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
