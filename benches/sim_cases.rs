//! The simulator benchmark's cases: each kernel with its inputs, the check of its output, and
//! the same computation as a plain single-threaded Rust loop and as a rayon loop. The plain
//! loops are written as a Rust programmer would write them (cache-friendly orders, no GPU
//! structure), and compute what the kernel computes in the same order where the kernel's
//! result is exact (checked for equality), otherwise within a tolerance that says so.

use cuphase::prelude::*;
use rayon::prelude::*;
use std::hint::black_box;

pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

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
pub fn saxpy(y: &mut [f32], x: &[f32], a: f32) {
    let i = global_idx().x as usize;
    if i < y.len() {
        y[i] = a * x[i] + y[i];
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

/// The softening of the n-body interaction.
const SOFT: f32 = 1e-3;

/// Accelerations of `n` bodies (x, y, z, mass) from all bodies, through tiles of 256 bodies
/// in shared memory (`n` a multiple of 256).
#[kernel(block = 256)]
pub fn nbody(acc: &mut [[f32; 4]], pos: &[[f32; 4]]) {
    let tile = shared::<[[f32; 4]; 256]>();
    let t = thread_idx().x;
    let i = global_idx().x;
    let me = pos[i];
    let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
    for base in (0..pos.len() as u32).step_by(256) {
        tile[t] = pos[base + t];
        sync_block_threads();
        for j in 0..256u32 {
            let p = tile[j];
            let (dx, dy, dz) = (p[0] - me[0], p[1] - me[1], p[2] - me[2]);
            let d2 = dx * dx + dy * dy + dz * dz + SOFT;
            let inv = 1.0 / d2.sqrt();
            let s = p[3] * (inv * inv * inv);
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        sync_block_threads();
    }
    acc[i] = [ax, ay, az, 0.0];
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

/// One element a thread, every other one: a launch that touches a few elements of a large
/// buffer. (At `global_idx().x` itself the compiler would prove the buffer one element per
/// thread and the simulator would keep no race shadow for it at all; the stride keeps the
/// shadow, whose cost this measures.)
#[kernel]
pub fn touch(out: &mut [f32]) {
    let i = global_idx().x as usize * 2;
    if i < out.len() {
        out[i] = i as f32;
    }
}

/// Deterministic inputs in [-1, 1).
pub fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

pub(crate) fn chunks4<T: Copy>(v: &[T]) -> Vec<[T; 4]> {
    v.chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

/// Whether `got` is within a relative `tol` of `want` everywhere.
pub(crate) fn close(got: &[f32], want: &[f32], tol: f32) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| (g - w).abs() <= tol * w.abs().max(1.0))
}

/// A case's simulator run: the device and the repetitions; the median seconds of a launch.
pub type SimRun = Box<dyn Fn(&Device, usize) -> Result<f64>>;

/// One benchmark case: what the kernel launch and the two host loops take.
pub struct Case {
    pub name: &'static str,
    /// GPU threads a launch runs.
    pub threads: u64,
    /// Runs the kernel on `dev` `reps` times and checks the last output against the plain
    /// loop's; the median seconds of a launch (inputs uploaded before, outputs read after).
    pub sim: SimRun,
    /// The plain single-threaded loop.
    pub plain: Box<dyn Fn()>,
    /// The rayon loop.
    pub rayon: Box<dyn Fn()>,
}

/// The median of `reps` timed runs of `launch`, each after an untimed `reset`, after one
/// untimed run (a warm-up: the pool's threads awake, the caches and allocator primed).
pub fn timed(
    reps: usize,
    mut reset: impl FnMut() -> Result<()>,
    mut launch: impl FnMut() -> Result<()>,
) -> Result<f64> {
    reset()?;
    launch()?;
    let mut v = Vec::new();
    for _ in 0..reps.max(1) {
        reset()?;
        let t = std::time::Instant::now();
        launch()?;
        v.push(t.elapsed().as_secs_f64());
    }
    v.sort_by(f64::total_cmp);
    Ok(v[v.len() / 2])
}

pub(crate) fn check(ok: bool, name: &str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(format!("{name}: the simulator's result differs from the plain loop's").into())
    }
}

fn case_reverse(n: usize) -> Case {
    let input: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let want: Vec<f32> = input
        .chunks(256)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    let (i1, i2) = (input.clone(), input.clone());
    Case {
        name: "reverse",
        threads: n as u64,
        sim: Box::new(move |dev, reps| {
            let x = dev.upload(&input)?;
            let mut out = dev.zeros::<f32>(n)?;
            let secs = timed(
                reps,
                || Ok(()),
                || Ok(reverse.launch(dev, Launch::cover(n, 256), &mut out, &x)?),
            )?;
            check(out.to_vec()? == want, "reverse")?;
            Ok(secs)
        }),
        plain: Box::new(move || {
            let mut out = vec![0.0f32; n];
            for (o, i) in out.chunks_mut(256).zip(black_box(&i1).chunks(256)) {
                for t in 0..256 {
                    o[t] = i[255 - t];
                }
            }
            black_box(&out);
        }),
        rayon: Box::new(move || {
            let mut out = vec![0.0f32; n];
            out.par_chunks_mut(256)
                .zip(black_box(&i2).par_chunks(256))
                .for_each(|(o, i)| {
                    for t in 0..256 {
                        o[t] = i[255 - t];
                    }
                });
            black_box(&out);
        }),
    }
}

fn case_saxpy(n: usize) -> Case {
    let (x, y) = (random(n, 1), random(n, 2));
    let a = 1.5f32;
    let want: Vec<f32> = x.iter().zip(&y).map(|(x, y)| a * x + y).collect();
    let (x1, y1, x2, y2) = (x.clone(), y.clone(), x.clone(), y.clone());
    Case {
        name: "saxpy",
        threads: n as u64,
        sim: Box::new(move |dev, reps| {
            let dx = dev.upload(&x)?;
            let dy = std::cell::RefCell::new(dev.upload(&y)?);
            let secs = timed(
                reps,
                || Ok(dy.borrow_mut().copy_from_host(&y)?),
                || Ok(saxpy.launch(dev, Launch::cover(n, 256), &mut dy.borrow_mut(), &dx, a)?),
            )?;
            check(dy.borrow().to_vec()? == want, "saxpy")?;
            Ok(secs)
        }),
        plain: Box::new(move || {
            let mut y = y1.clone();
            for (y, x) in y.iter_mut().zip(black_box(&x1)) {
                *y += a * x;
            }
            black_box(&y);
        }),
        rayon: Box::new(move || {
            let mut y = y2.clone();
            y.par_iter_mut()
                .zip(black_box(&x2).par_iter())
                .for_each(|(y, x)| *y += a * x);
            black_box(&y);
        }),
    }
}

/// The tree sum of one block of 256, in the kernel's order.
fn tree_sum(c: &[f32]) -> f32 {
    let mut buf = [0.0f32; 256];
    buf[..c.len()].copy_from_slice(c);
    let mut s = 128;
    while s > 0 {
        for t in 0..s {
            buf[t] += buf[t + s];
        }
        s /= 2;
    }
    buf[0]
}

fn case_block_reduce(n: usize) -> Case {
    let input = random(n, 3);
    let want: Vec<f32> = input.chunks(256).map(tree_sum).collect();
    let (i1, i2) = (input.clone(), input.clone());
    Case {
        name: "block_reduce",
        threads: n as u64,
        sim: Box::new(move |dev, reps| {
            let x = dev.upload(&input)?;
            let mut partial = dev.zeros::<f32>(n / 256)?;
            let secs = timed(
                reps,
                || Ok(()),
                || Ok(block_reduce.launch(dev, Launch::cover(n, 256), &mut partial, &x)?),
            )?;
            check(partial.to_vec()? == want, "block_reduce")?;
            Ok(secs)
        }),
        plain: Box::new(move || {
            let p: Vec<f32> = black_box(&i1).chunks(256).map(tree_sum).collect();
            black_box(&p);
        }),
        rayon: Box::new(move || {
            let p: Vec<f32> = black_box(&i2).par_chunks(256).map(tree_sum).collect();
            black_box(&p);
        }),
    }
}

/// `c = a b` for `n x n` row-major matrices, in the order `i, k, j` (each `c[i][j]` sums its
/// products in increasing `k`, as the kernel does).
fn matmul_rows(a: &[f32], b: &[f32], n: usize, rows: &mut [f32], first_row: usize) {
    for (r, c) in rows.chunks_mut(n).enumerate() {
        let i = first_row + r;
        c.fill(0.0);
        for k in 0..n {
            let aik = a[i * n + k];
            for (cj, bkj) in c.iter_mut().zip(&b[k * n..(k + 1) * n]) {
                *cj += aik * bkj;
            }
        }
    }
}

fn case_tiled_matmul(n: usize) -> Case {
    let (a, b) = (random(n * n, 4), random(n * n, 5));
    let mut want = vec![0.0f32; n * n];
    matmul_rows(&a, &b, n, &mut want, 0);
    let (a1, b1, a2, b2) = (a.clone(), b.clone(), a.clone(), b.clone());
    let tiles = (n as u32).div_ceil(16);
    Case {
        name: "tiled_matmul",
        threads: (n * n) as u64,
        sim: Box::new(move |dev, reps| {
            let (da, db) = (dev.upload(&a)?, dev.upload(&b)?);
            let mut dc = dev.zeros::<f32>(n * n)?;
            let launch = Launch::new((tiles, tiles), (16, 16));
            let secs = timed(
                reps,
                || Ok(()),
                || Ok(tiled_matmul.launch(dev, launch, &mut dc, &da, &db, n as u32)?),
            )?;
            check(dc.to_vec()? == want, "tiled_matmul")?;
            Ok(secs)
        }),
        plain: Box::new(move || {
            let mut c = vec![0.0f32; n * n];
            matmul_rows(black_box(&a1), &b1, n, &mut c, 0);
            black_box(&c);
        }),
        rayon: Box::new(move || {
            let mut c = vec![0.0f32; n * n];
            c.par_chunks_mut(n)
                .enumerate()
                .for_each(|(i, row)| matmul_rows(black_box(&a2), &b2, n, row, i));
            black_box(&c);
        }),
    }
}

/// The acceleration of body `i`, in the kernel's order.
fn nbody_one(pos: &[[f32; 4]], i: usize) -> [f32; 4] {
    let me = pos[i];
    let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
    for p in pos {
        let (dx, dy, dz) = (p[0] - me[0], p[1] - me[1], p[2] - me[2]);
        let d2 = dx * dx + dy * dy + dz * dz + SOFT;
        let inv = 1.0 / d2.sqrt();
        let s = p[3] * (inv * inv * inv);
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    [ax, ay, az, 0.0]
}

fn case_nbody(n: usize) -> Case {
    let pos = chunks4(&random(4 * n, 6));
    let want: Vec<[f32; 4]> = (0..n).map(|i| nbody_one(&pos, i)).collect();
    let (p1, p2) = (pos.clone(), pos.clone());
    Case {
        name: "n-body",
        threads: n as u64,
        sim: Box::new(move |dev, reps| {
            let dp = dev.upload(&pos)?;
            let mut da = dev.zeros::<[f32; 4]>(n)?;
            let secs = timed(
                reps,
                || Ok(()),
                || Ok(nbody.launch(dev, Launch::cover(n, 256), &mut da, &dp)?),
            )?;
            check(da.to_vec()? == want, "n-body")?;
            Ok(secs)
        }),
        plain: Box::new(move || {
            let p = black_box(&p1);
            let a: Vec<[f32; 4]> = (0..n).map(|i| nbody_one(p, i)).collect();
            black_box(&a);
        }),
        rayon: Box::new(move || {
            let p = black_box(&p2);
            let a: Vec<[f32; 4]> = (0..n).into_par_iter().map(|i| nbody_one(p, i)).collect();
            black_box(&a);
        }),
    }
}

/// The cases, in the README's order; `quick` shrinks them for a smoke run.
pub fn cases(quick: bool) -> Vec<Case> {
    let s = |full: usize, small: usize| if quick { small } else { full };
    vec![
        case_reverse(s(1 << 20, 1 << 12)),
        case_saxpy(s(1 << 20, 1 << 12)),
        case_block_reduce(s(1 << 20, 1 << 12)),
        case_tiled_matmul(s(512, 64)),
        case_nbody(s(8192, 512)),
        crate::sim_suite_cases::case_softmax(s(64, 2)),
        crate::sim_suite_cases::case_scan(s(1 << 22, 1 << 14)),
        crate::sim_suite_cases::case_transpose(s(2048, 64)),
        crate::sim_suite_cases::case_histogram(s(1 << 24, 1 << 16)),
        crate::sim_suite_cases::case_reduce_sum(s(1 << 22, 1 << 14)),
        crate::sim_suite_cases::case_layernorm(s(64, 2)),
        crate::sim_suite_cases::case_stencil(s(2048, 64)),
    ]
}
