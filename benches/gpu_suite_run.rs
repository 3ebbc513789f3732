//! Runs the suite of `gpu_suite` (its cuphase kernels and their hand-written CUDA C) on one
//! device: inputs, launches, checks against host references, timing and the table rows.

use cudarc::driver::{LaunchConfig, PushKernelArg};
use cuphase::prelude::*;

use super::gpu_suite::*;
use super::{load_handwritten, time_ms, BenchResult};

/// Random floats in [-10, 10), from a fixed seed.
fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(6_364_136_223_846_793_005) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 / (1u64 << 24) as f32 * 20.0 - 10.0
        })
        .collect()
}

fn chunked<T: Copy>(v: &[T]) -> Vec<[T; 4]> {
    v.chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

/// Prints one row: cuphase and hand-written times, their ratio, the throughput.
fn row(name: &str, ours: f64, theirs: Option<f64>, throughput: String, ok: bool) {
    let (t, r) = match theirs {
        Some(t) => (format!("{t:.3}"), format!("{:.3}", t / ours)),
        None => (String::new(), String::new()),
    };
    println!(
        "| {name} | {ours:.3} | {t} | {r} | {throughput}{} |",
        if ok { "" } else { " WRONG RESULT" }
    );
}

/// Runs the suite on `dev` (sizes by `small`: the simulator's), comparing with the
/// hand-written kernels on CUDA and with the copy bandwidth `copy` (GB/s). `Ok(false)` when a
/// result is wrong.
pub fn bench(dev: &Device, small: bool, copy: f64) -> BenchResult<bool> {
    let cuda = dev.cuda_stream().cloned();
    let (warm, reps) = if small { (0, 1) } else { (5, 30) };
    let time = |f: &mut dyn FnMut() -> BenchResult<()>| -> BenchResult<f64> {
        match &cuda {
            Some(s) => time_ms(s, warm, reps, f),
            None => {
                f()?;
                Ok(f64::NAN)
            }
        }
    };
    let gbs = |bytes: f64, ms: f64| bytes / (ms * 1e-3) / 1e9;
    let pct = |g: f64| format!("{g:.0} GB/s ({:.1}% of the copy)", 100.0 * g / copy);
    let mut all_ok = true;
    println!("\n| kernel (suite) | cuphase (ms) | hand-written CUDA C (ms) | ratio (hand-written / cuphase) | cuphase throughput |");
    println!("|---|---|---|---|---|");

    // reduce_sum: 2^28 floats (2^16 on the simulator).
    let n = if small { 1 << 16 } else { 1 << 28 };
    let host = random(n, 1);
    let input = dev.upload(&chunked(&host))?;
    let blocks = if small { 4 } else { 132 * 16 };
    let mut partials = dev.upload(&vec![f32::NAN; blocks])?;
    let launch = Launch::new(blocks as u32, 256);
    let chunks = (n / 4) as u32;
    let ours = time(&mut || Ok(reduce_sum.launch(dev, launch, &mut partials, &input)?))?;
    let got: f64 = partials.to_vec()?.iter().map(|x| f64::from(*x)).sum();
    let want: f64 = host.iter().map(|x| f64::from(*x)).sum();
    let ok = (got - want).abs() <= 1e-4 * host.iter().map(|x| f64::from(x.abs())).sum::<f64>();
    all_ok &= ok;
    let theirs = match &cuda {
        Some(s) => {
            let f = load_handwritten(dev, HANDWRITTEN, "reduce_sum_ref")?;
            let in_ref = s.clone_htod(&chunked(&host))?;
            let mut p_ref = s.alloc_zeros::<f32>(blocks)?;
            let cfg = LaunchConfig {
                grid_dim: (blocks as u32, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            Some(time_ms(s, warm, reps, || {
                let mut b = s.launch_builder(&f);
                b.arg(&mut p_ref).arg(&in_ref).arg(&chunks);
                // SAFETY: the arguments match `reduce_sum_ref`'s parameters.
                unsafe { b.launch(cfg) }?;
                Ok(())
            })?)
        }
        None => None,
    };
    row(
        "reduce_sum, 2^28 f32",
        ours,
        theirs,
        pct(gbs(n as f64 * 4.0, ours)),
        ok,
    );
    drop((input, partials));

    // softmax: 8192 rows of 8192 floats (8 rows on the simulator).
    let rows = if small { 8 } else { 8192 };
    let cols = COLS as usize;
    let host = random(rows * cols, 2);
    let input = dev.upload(&chunked(&host))?;
    let mut out = dev.upload(&vec![[f32::NAN; 4]; rows * cols / 4])?;
    let launch = Launch::new(rows as u32, 256);
    let ours = time(&mut || Ok(softmax.launch(dev, launch, &mut out, &input)?))?;
    let got: Vec<f32> = out.to_vec()?.into_iter().flatten().collect();
    let mut ok = true;
    for r in (0..rows).step_by((rows / 8).max(1)) {
        let x = &host[r * cols..(r + 1) * cols];
        let m = x
            .iter()
            .fold(f64::NEG_INFINITY, |m, v| m.max(f64::from(*v)));
        let s: f64 = x.iter().map(|v| (f64::from(*v) - m).exp()).sum();
        for (c, v) in x.iter().enumerate() {
            let want = (f64::from(*v) - m).exp() / s;
            ok &= (f64::from(got[r * cols + c]) - want).abs() <= 1e-6 + 1e-4 * want;
        }
    }
    all_ok &= ok;
    let theirs = match &cuda {
        Some(s) => {
            let f = load_handwritten(dev, HANDWRITTEN, "softmax_ref")?;
            let in_ref = s.clone_htod(&chunked(&host))?;
            let mut o_ref = s.alloc_zeros::<[f32; 4]>(rows * cols / 4)?;
            let cfg = LaunchConfig {
                grid_dim: (rows as u32, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            Some(time_ms(s, warm, reps, || {
                let mut b = s.launch_builder(&f);
                b.arg(&mut o_ref).arg(&in_ref);
                // SAFETY: the arguments match `softmax_ref`'s parameters.
                unsafe { b.launch(cfg) }?;
                Ok(())
            })?)
        }
        None => None,
    };
    let bytes = 2.0 * (rows * cols) as f64 * 4.0;
    row(
        "softmax, 8192 rows of 8192 f32",
        ours,
        theirs,
        pct(gbs(bytes, ours)),
        ok,
    );
    drop((input, out));

    // transpose: 8192 x 8192 (64 x 64 on the simulator), with tiles of 32 and of 64.
    let n = if small { 64 } else { 8192 };
    let host = random(n * n, 3);
    let input = dev.upload(&host)?;
    for (size, name) in [(32usize, "transpose_ref"), (64, "transpose64_ref")] {
        let mut out = dev.upload(&vec![f32::NAN; n * n])?;
        let tiles = (n / size) as u32;
        let launch = Launch::new((tiles, tiles), (32, 8));
        let nn = n as u32;
        let ours = time(&mut || {
            if size == 32 {
                transpose.launch(dev, launch, &mut out, &input, nn)?;
            } else {
                transpose64.launch(dev, launch, &mut out, &input, nn)?;
            }
            Ok(())
        })?;
        let got = out.to_vec()?;
        let ok = (0..n).all(|r| (0..n).all(|c| got[c * n + r] == host[r * n + c]));
        all_ok &= ok;
        let theirs = match &cuda {
            Some(s) => {
                let f = load_handwritten(dev, HANDWRITTEN, name)?;
                let in_ref = s.clone_htod(&host)?;
                let mut o_ref = s.alloc_zeros::<f32>(n * n)?;
                let cfg = LaunchConfig {
                    grid_dim: (tiles, tiles, 1),
                    block_dim: (32, 8, 1),
                    shared_mem_bytes: 0,
                };
                Some(time_ms(s, warm, reps, || {
                    let mut b = s.launch_builder(&f);
                    b.arg(&mut o_ref).arg(&in_ref).arg(&nn);
                    // SAFETY: the arguments match the transpose kernels' parameters.
                    unsafe { b.launch(cfg) }?;
                    Ok(())
                })?)
            }
            None => None,
        };
        let bytes = 2.0 * (n * n) as f64 * 4.0;
        row(
            &format!("transpose ({size} x {size} tiles), 8192^2 f32"),
            ours,
            theirs,
            pct(gbs(bytes, ours)),
            ok,
        );
    }
    drop(input);

    // histogram: 2^28 bytes (2^16 on the simulator).
    let n = if small { 1 << 16 } else { 1 << 28 };
    let bytes_in: Vec<u8> = random(n, 4)
        .iter()
        .map(|x| ((x + 10.0) * 12.75) as u8)
        .collect();
    let data = dev.upload(&chunked(&bytes_in))?;
    let mut bins = dev.zeros::<u32>(256)?;
    let blocks = if small { 4 } else { 132 * 8 };
    let launch = Launch::new(blocks as u32, 256);
    let mut runs = 0u32;
    let ours = time(&mut || {
        runs += 1;
        Ok(histogram.launch(dev, launch, &mut bins, &data)?)
    })?;
    let got = bins.to_vec()?;
    let mut want = [0u32; 256];
    for b in &bytes_in {
        want[*b as usize] += runs;
    }
    let ok = got == want;
    all_ok &= ok;
    let theirs = match &cuda {
        Some(s) => {
            let f = load_handwritten(dev, HANDWRITTEN, "histogram_ref")?;
            let d_ref = s.clone_htod(&chunked(&bytes_in))?;
            let mut b_ref = s.alloc_zeros::<u32>(256)?;
            let cfg = LaunchConfig {
                grid_dim: (blocks as u32, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            let nq = (n / 4) as u32;
            Some(time_ms(s, warm, reps, || {
                let mut b = s.launch_builder(&f);
                b.arg(&mut b_ref).arg(&d_ref).arg(&nq);
                // SAFETY: the arguments match `histogram_ref`'s parameters.
                unsafe { b.launch(cfg) }?;
                Ok(())
            })?)
        }
        None => None,
    };
    row(
        "histogram (256 bins), 2^28 u8",
        ours,
        theirs,
        pct(gbs(n as f64, ours)),
        ok,
    );
    drop((data, bins));
    all_ok &= more(dev, small, copy)?;
    Ok(all_ok)
}

/// Layer normalization, the block scan and the stencil, as [`bench`].
fn more(dev: &Device, small: bool, copy: f64) -> BenchResult<bool> {
    let cuda = dev.cuda_stream().cloned();
    let (warm, reps) = if small { (0, 1) } else { (5, 30) };
    let time = |f: &mut dyn FnMut() -> BenchResult<()>| -> BenchResult<f64> {
        match &cuda {
            Some(s) => time_ms(s, warm, reps, f),
            None => {
                f()?;
                Ok(f64::NAN)
            }
        }
    };
    let gbs = |bytes: f64, ms: f64| bytes / (ms * 1e-3) / 1e9;
    let pct = |g: f64| format!("{g:.0} GB/s ({:.1}% of the copy)", 100.0 * g / copy);
    let mut all_ok = true;

    // layernorm: 8192 rows of 8192 floats (8 rows on the simulator).
    let rows = if small { 8 } else { 8192 };
    let cols = COLS as usize;
    let host = random(rows * cols, 5);
    let (g, b) = (random(cols, 6), random(cols, 7));
    let input = dev.upload(&chunked(&host))?;
    let (gamma, beta) = (dev.upload(&chunked(&g))?, dev.upload(&chunked(&b))?);
    let mut out = dev.upload(&vec![[f32::NAN; 4]; rows * cols / 4])?;
    let launch = Launch::new(rows as u32, 256);
    let ours = time(&mut || Ok(layernorm.launch(dev, launch, &mut out, &input, &gamma, &beta)?))?;
    let got: Vec<f32> = out.to_vec()?.into_iter().flatten().collect();
    let mut ok = true;
    for r in (0..rows).step_by((rows / 8).max(1)) {
        let x = &host[r * cols..(r + 1) * cols];
        let mean = x.iter().map(|v| f64::from(*v)).sum::<f64>() / cols as f64;
        let var = x
            .iter()
            .map(|v| (f64::from(*v) - mean).powi(2))
            .sum::<f64>()
            / cols as f64;
        let rstd = 1.0 / (var + 1e-5).sqrt();
        for c in 0..cols {
            let want = (f64::from(x[c]) - mean) * rstd * f64::from(g[c]) + f64::from(b[c]);
            ok &= (f64::from(got[r * cols + c]) - want).abs() <= 1e-3 * (1.0 + want.abs());
        }
    }
    all_ok &= ok;
    let theirs = match &cuda {
        Some(s) => {
            let f = load_handwritten(dev, HANDWRITTEN, "layernorm_ref")?;
            let in_ref = s.clone_htod(&chunked(&host))?;
            let (g_ref, b_ref) = (s.clone_htod(&chunked(&g))?, s.clone_htod(&chunked(&b))?);
            let mut o_ref = s.alloc_zeros::<[f32; 4]>(rows * cols / 4)?;
            let cfg = LaunchConfig {
                grid_dim: (rows as u32, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            Some(time_ms(s, warm, reps, || {
                let mut bld = s.launch_builder(&f);
                bld.arg(&mut o_ref).arg(&in_ref).arg(&g_ref).arg(&b_ref);
                // SAFETY: the arguments match `layernorm_ref`'s parameters.
                unsafe { bld.launch(cfg) }?;
                Ok(())
            })?)
        }
        None => None,
    };
    let bytes = 2.0 * (rows * cols) as f64 * 4.0;
    row(
        "layernorm, 8192 rows of 8192 f32",
        ours,
        theirs,
        pct(gbs(bytes, ours)),
        ok,
    );
    drop((input, gamma, beta, out));

    // block_scan: 2^28 u32 (2^14 on the simulator) in blocks of 1024.
    let n = if small { 1 << 14 } else { 1 << 28 };
    let host: Vec<u32> = random(n, 8)
        .iter()
        .map(|x| (x.to_bits() >> 7) % 1000)
        .collect();
    let input = dev.upload(&chunked(&host))?;
    let mut out = dev.upload(&vec![[u32::MAX; 4]; n / 4])?;
    let launch = Launch::new((n / 1024) as u32, 256);
    let ours = time(&mut || Ok(block_scan.launch(dev, launch, &mut out, &input)?))?;
    let got: Vec<u32> = out.to_vec()?.into_iter().flatten().collect();
    let ok = host.chunks(1024).zip(got.chunks(1024)).all(|(h, g)| {
        let mut s = 0u32;
        h.iter().zip(g).all(|(x, y)| {
            s = s.wrapping_add(*x);
            s == *y
        })
    });
    all_ok &= ok;
    let theirs = match &cuda {
        Some(s) => {
            let f = load_handwritten(dev, HANDWRITTEN, "block_scan_ref")?;
            let in_ref = s.clone_htod(&chunked(&host))?;
            let mut o_ref = s.alloc_zeros::<[u32; 4]>(n / 4)?;
            let cfg = LaunchConfig {
                grid_dim: ((n / 1024) as u32, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            Some(time_ms(s, warm, reps, || {
                let mut bld = s.launch_builder(&f);
                bld.arg(&mut o_ref).arg(&in_ref);
                // SAFETY: the arguments match `block_scan_ref`'s parameters.
                unsafe { bld.launch(cfg) }?;
                Ok(())
            })?)
        }
        None => None,
    };
    row(
        "block_scan (1024 a block), 2^28 u32",
        ours,
        theirs,
        pct(gbs(2.0 * n as f64 * 4.0, ours)),
        ok,
    );
    drop((input, out));

    // stencil: 8192 x 8192 (64 x 64 on the simulator).
    let n = if small { 64 } else { 8192 };
    let host = random(n * n, 9);
    let input = dev.upload(&chunked(&host))?;
    let mut out = dev.upload(&vec![[f32::NAN; 4]; n * n / 4])?;
    let launch = Launch::new(((n / 4).div_ceil(32) as u32, (n / 8) as u32), (32, 8));
    let nn = n as u32;
    let ours = time(&mut || Ok(stencil.launch(dev, launch, &mut out, &input, nn)?))?;
    let got = out.to_vec()?.concat();
    let ok = (0..n * n).all(|i| {
        let (x, y) = (i % n, i / n);
        let want = if x > 0 && y > 0 && x + 1 < n && y + 1 < n {
            0.5 * host[i] + 0.125 * ((host[i - 1] + host[i + 1]) + (host[i - n] + host[i + n]))
        } else {
            host[i]
        };
        got[i] == want
    });
    all_ok &= ok;
    let theirs = match &cuda {
        Some(s) => {
            let f = load_handwritten(dev, HANDWRITTEN, "stencil_ref")?;
            let in_ref = s.clone_htod(&host)?;
            let mut o_ref = s.alloc_zeros::<f32>(n * n)?;
            let cfg = LaunchConfig {
                grid_dim: (launch.grid.x, launch.grid.y, 1),
                block_dim: (32, 8, 1),
                shared_mem_bytes: 0,
            };
            Some(time_ms(s, warm, reps, || {
                let mut bld = s.launch_builder(&f);
                bld.arg(&mut o_ref).arg(&in_ref).arg(&nn);
                // SAFETY: the arguments match `stencil_ref`'s parameters.
                unsafe { bld.launch(cfg) }?;
                Ok(())
            })?)
        }
        None => None,
    };
    row(
        "stencil (5-point, 4 points a thread), 8192^2 f32",
        ours,
        theirs,
        pct(gbs(2.0 * (n * n) as f64 * 4.0, ours)),
        ok,
    );
    Ok(all_ok)
}
