//! The simulator benchmark's cases for the kernels of the GPU suite (`gpu_suite.rs`): softmax,
//! scan, transpose, histogram, reduce_sum, layernorm and stencil, each with its inputs, the
//! check of its output, and the same computation as a plain Rust loop and a rayon loop (see
//! `sim_cases.rs` for the classic kernels and the rules the loops follow).

use crate::gpu_suite;
use crate::sim_cases::{check, chunks4, close, random, timed, Case};
use cuphase::prelude::*;
use rayon::prelude::*;
use std::hint::black_box;

/// Softmax of one row.
fn softmax_row(x: &[f32], out: &mut [f32]) {
    let m = x.iter().fold(f32::NEG_INFINITY, |m, v| m.max(*v));
    let mut s = 0.0f32;
    for (o, v) in out.iter_mut().zip(x) {
        *o = (v - m).exp();
        s += *o;
    }
    let inv = 1.0 / s;
    out.iter_mut().for_each(|o| *o *= inv);
}

pub fn case_softmax(rows: usize) -> Case {
    let cols = gpu_suite::COLS as usize;
    let x = random(rows * cols, 7);
    let mut want = vec![0.0f32; rows * cols];
    for (r, o) in x.chunks(cols).zip(want.chunks_mut(cols)) {
        softmax_row(r, o);
    }
    let (x1, x2) = (x.clone(), x.clone());
    Case {
        name: "softmax (suite)",
        threads: (rows * 256) as u64,
        sim: Box::new(move |dev, reps| {
            let dx = dev.upload(&chunks4(&x))?;
            let mut out = dev.zeros::<[f32; 4]>(rows * cols / 4)?;
            let secs = timed(
                reps,
                || Ok(()),
                || {
                    Ok(gpu_suite::softmax.launch(
                        dev,
                        Launch::new(rows as u32, 256),
                        &mut out,
                        &dx,
                    )?)
                },
            )?;
            let got: Vec<f32> = out.to_vec()?.into_iter().flatten().collect();
            // The kernel sums in a tree, the loop in a row: within 1e-5.
            check(close(&got, &want, 1e-5), "softmax")?;
            Ok(secs)
        }),
        plain: Box::new(move || {
            let mut o = vec![0.0f32; rows * cols];
            for (r, o) in black_box(&x1).chunks(cols).zip(o.chunks_mut(cols)) {
                softmax_row(r, o);
            }
            black_box(&o);
        }),
        rayon: Box::new(move || {
            let mut o = vec![0.0f32; rows * cols];
            black_box(&x2)
                .par_chunks(cols)
                .zip(o.par_chunks_mut(cols))
                .for_each(|(r, o)| softmax_row(r, o));
            black_box(&o);
        }),
    }
}

/// Inclusive wrapping prefix sums within each chunk of 1024.
fn scan_chunk(x: &[u32], out: &mut [u32]) {
    let mut s = 0u32;
    for (o, v) in out.iter_mut().zip(x) {
        s = s.wrapping_add(*v);
        *o = s;
    }
}

pub fn case_scan(n: usize) -> Case {
    let x: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 12)
        .collect();
    let mut want = vec![0u32; n];
    for (c, o) in x.chunks(1024).zip(want.chunks_mut(1024)) {
        scan_chunk(c, o);
    }
    let (x1, x2) = (x.clone(), x.clone());
    Case {
        name: "scan (suite)",
        threads: (n / 4) as u64,
        sim: Box::new(move |dev, reps| {
            let dx = dev.upload(&chunks4(&x))?;
            let mut out = dev.zeros::<[u32; 4]>(n / 4)?;
            let secs = timed(
                reps,
                || Ok(()),
                || {
                    Ok(gpu_suite::block_scan.launch(
                        dev,
                        Launch::cover(n / 4, 256),
                        &mut out,
                        &dx,
                    )?)
                },
            )?;
            let got: Vec<u32> = out.to_vec()?.into_iter().flatten().collect();
            check(got == want, "scan")?;
            Ok(secs)
        }),
        plain: Box::new(move || {
            let mut o = vec![0u32; n];
            for (c, o) in black_box(&x1).chunks(1024).zip(o.chunks_mut(1024)) {
                scan_chunk(c, o);
            }
            black_box(&o);
        }),
        rayon: Box::new(move || {
            let mut o = vec![0u32; n];
            black_box(&x2)
                .par_chunks(1024)
                .zip(o.par_chunks_mut(1024))
                .for_each(|(c, o)| scan_chunk(c, o));
            black_box(&o);
        }),
    }
}

pub fn case_transpose(n: usize) -> Case {
    let x = random(n * n, 8);
    let mut want = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            want[j * n + i] = x[i * n + j];
        }
    }
    let (x1, x2) = (x.clone(), x.clone());
    let tiles = (n / 32) as u32;
    Case {
        name: "transpose (suite)",
        threads: (n * n / 4) as u64,
        sim: Box::new(move |dev, reps| {
            let dx = dev.upload(&x)?;
            let mut out = dev.zeros::<f32>(n * n)?;
            let launch = Launch::new((tiles, tiles), (32, 8));
            let secs = timed(
                reps,
                || Ok(()),
                || Ok(gpu_suite::transpose.launch(dev, launch, &mut out, &dx, n as u32)?),
            )?;
            check(out.to_vec()? == want, "transpose")?;
            Ok(secs)
        }),
        plain: Box::new(move || {
            let x = black_box(&x1);
            let mut o = vec![0.0f32; n * n];
            // 32 x 32 blocks, as a cache-aware loop would.
            for bi in (0..n).step_by(32) {
                for bj in (0..n).step_by(32) {
                    for i in bi..bi + 32 {
                        for j in bj..bj + 32 {
                            o[j * n + i] = x[i * n + j];
                        }
                    }
                }
            }
            black_box(&o);
        }),
        rayon: Box::new(move || {
            let x = black_box(&x2);
            let mut o = vec![0.0f32; n * n];
            o.par_chunks_mut(32 * n).enumerate().for_each(|(bj, rows)| {
                for bi in (0..n).step_by(32) {
                    for j in 0..32 {
                        for i in bi..bi + 32 {
                            rows[j * n + i] = x[i * n + bj * 32 + j];
                        }
                    }
                }
            });
            black_box(&o);
        }),
    }
}

pub fn case_histogram(n: usize) -> Case {
    let data: Vec<u8> = (0..n as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut want = vec![0u32; 256];
    for b in &data {
        want[*b as usize] += 1;
    }
    let (d1, d2) = (data.clone(), data.clone());
    let blocks = 64u32;
    Case {
        name: "histogram (suite)",
        threads: u64::from(blocks) * 256,
        sim: Box::new(move |dev, reps| {
            let dd = dev.upload(&chunks4(&data))?;
            let bins = std::cell::RefCell::new(dev.zeros::<u32>(256)?);
            let secs = timed(
                reps,
                || Ok(bins.borrow_mut().copy_from_host(&[0; 256])?),
                || {
                    Ok(gpu_suite::histogram.launch(
                        dev,
                        Launch::new(blocks, 256),
                        &mut bins.borrow_mut(),
                        &dd,
                    )?)
                },
            )?;
            check(bins.borrow().to_vec()? == want, "histogram")?;
            Ok(secs)
        }),
        plain: Box::new(move || {
            let mut h = [0u32; 256];
            for b in black_box(&d1) {
                h[*b as usize] += 1;
            }
            black_box(&h);
        }),
        rayon: Box::new(move || {
            let h = black_box(&d2)
                .par_chunks(1 << 16)
                .map(|c| {
                    let mut h = [0u32; 256];
                    for b in c {
                        h[*b as usize] += 1;
                    }
                    h
                })
                .reduce(
                    || [0u32; 256],
                    |mut a, b| {
                        a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                        a
                    },
                );
            black_box(&h);
        }),
    }
}

pub fn case_reduce_sum(n: usize) -> Case {
    let x = random(n, 11);
    let blocks = 64usize;
    let want: f64 = x.iter().map(|v| f64::from(*v)).sum();
    let (x1, x2) = (x.clone(), x.clone());
    Case {
        name: "reduce_sum (suite)",
        threads: (blocks * 256) as u64,
        sim: Box::new(move |dev, reps| {
            let dx = dev.upload(&chunks4(&x))?;
            let mut partials = dev.zeros::<f32>(blocks)?;
            let secs = timed(
                reps,
                || Ok(()),
                || {
                    Ok(gpu_suite::reduce_sum.launch(
                        dev,
                        Launch::new(blocks as u32, 256),
                        &mut partials,
                        &dx,
                    )?)
                },
            )?;
            let got: f64 = partials.to_vec()?.iter().map(|v| f64::from(*v)).sum();
            // A tree of f32 sums against an f64 loop: within 1e-3 of the magnitude summed.
            let scale: f64 = x.iter().map(|v| f64::from(v.abs())).sum();
            check((got - want).abs() <= 1e-3 * scale.max(1.0), "reduce_sum")?;
            Ok(secs)
        }),
        plain: Box::new(move || {
            black_box(black_box(&x1).iter().sum::<f32>());
        }),
        rayon: Box::new(move || {
            black_box(black_box(&x2).par_iter().sum::<f32>());
        }),
    }
}

/// Layer normalization of one row, as the suite's kernel defines it.
fn layernorm_row(x: &[f32], g: &[f32], b: &[f32], out: &mut [f32]) {
    let n = x.len() as f32;
    let mean = x.iter().sum::<f32>() / n;
    let var = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
    let rstd = 1.0 / (var + 1e-5).sqrt();
    for (((o, v), g), b) in out.iter_mut().zip(x).zip(g).zip(b) {
        *o = (v - mean) * rstd * g + b;
    }
}

pub fn case_layernorm(rows: usize) -> Case {
    let cols = gpu_suite::COLS as usize;
    let x = random(rows * cols, 12);
    let (g, b) = (random(cols, 13), random(cols, 14));
    let mut want = vec![0.0f32; rows * cols];
    for (r, o) in x.chunks(cols).zip(want.chunks_mut(cols)) {
        layernorm_row(r, &g, &b, o);
    }
    let (x1, x2, g1, g2, b1, b2) = (
        x.clone(),
        x.clone(),
        g.clone(),
        g.clone(),
        b.clone(),
        b.clone(),
    );
    Case {
        name: "layernorm (suite)",
        threads: (rows * 256) as u64,
        sim: Box::new(move |dev, reps| {
            let dx = dev.upload(&chunks4(&x))?;
            let dg = dev.upload(&chunks4(&g))?;
            let db = dev.upload(&chunks4(&b))?;
            let mut out = dev.zeros::<[f32; 4]>(rows * cols / 4)?;
            let secs = timed(
                reps,
                || Ok(()),
                || {
                    Ok(gpu_suite::layernorm.launch(
                        dev,
                        Launch::new(rows as u32, 256),
                        &mut out,
                        &dx,
                        &dg,
                        &db,
                    )?)
                },
            )?;
            let got: Vec<f32> = out.to_vec()?.into_iter().flatten().collect();
            // Tree sums against row sums: within 1e-4.
            check(close(&got, &want, 1e-4), "layernorm")?;
            Ok(secs)
        }),
        plain: Box::new(move || {
            let mut o = vec![0.0f32; rows * cols];
            for (r, o) in black_box(&x1).chunks(cols).zip(o.chunks_mut(cols)) {
                layernorm_row(r, &g1, &b1, o);
            }
            black_box(&o);
        }),
        rayon: Box::new(move || {
            let mut o = vec![0.0f32; rows * cols];
            black_box(&x2)
                .par_chunks(cols)
                .zip(o.par_chunks_mut(cols))
                .for_each(|(r, o)| layernorm_row(r, &g2, &b2, o));
            black_box(&o);
        }),
    }
}

/// One Jacobi step of the suite's 5-point stencil on row `y` of an `n x n` grid, in the
/// kernel's order of additions (so the results are equal).
fn stencil_row(x: &[f32], n: usize, y: usize, out: &mut [f32]) {
    for (j, o) in out.iter_mut().enumerate().take(n) {
        let i = y * n + j;
        *o = if y > 0 && y + 1 < n && j > 0 && j + 1 < n {
            0.5 * x[i] + 0.125 * ((x[i - 1] + x[i + 1]) + (x[i - n] + x[i + n]))
        } else {
            x[i]
        };
    }
}

pub fn case_stencil(n: usize) -> Case {
    let x = random(n * n, 15);
    let mut want = vec![0.0f32; n * n];
    for (y, o) in want.chunks_mut(n).enumerate() {
        stencil_row(&x, n, y, o);
    }
    let (x1, x2) = (x.clone(), x.clone());
    Case {
        name: "stencil (suite)",
        threads: (n * n / 4) as u64,
        sim: Box::new(move |dev, reps| {
            let dx = dev.upload(&chunks4(&x))?;
            let mut out = dev.zeros::<[f32; 4]>(n * n / 4)?;
            let launch = Launch::new(((n / 4).div_ceil(32) as u32, n.div_ceil(8) as u32), (32, 8));
            let secs = timed(
                reps,
                || Ok(()),
                || Ok(gpu_suite::stencil.launch(dev, launch, &mut out, &dx, n as u32)?),
            )?;
            let got: Vec<f32> = out.to_vec()?.into_iter().flatten().collect();
            check(got == want, "stencil")?;
            Ok(secs)
        }),
        plain: Box::new(move || {
            let x = black_box(&x1);
            let mut o = vec![0.0f32; n * n];
            for (y, row) in o.chunks_mut(n).enumerate() {
                stencil_row(x, n, y, row);
            }
            black_box(&o);
        }),
        rayon: Box::new(move || {
            let x = black_box(&x2);
            let mut o = vec![0.0f32; n * n];
            o.par_chunks_mut(n)
                .enumerate()
                .for_each(|(y, row)| stencil_row(x, n, y, row));
            black_box(&o);
        }),
    }
}
