//! Small arrays as values (issue 12 §2): copies (`let b = a;`, `b = a;`), `[T; N]` helper
//! parameters and results, and loops over elements (`for v in a`, `&a`, `a.iter()`,
//! `.iter().enumerate()`, over a slice too). The case joins `cases::all()`, so the GPU is
//! compared with the simulator bit for bit; here it is checked against the host's own Rust.

use crate::cases::Case;
use cuphase::prelude::*;

/// The taps reversed: an array parameter and an array result.
#[device]
fn mirror(a: [f32; 3]) -> [f32; 3] {
    [a[2], a[1], a[0]]
}

/// A weighted sum of a copy the helper changes (`mut`): the caller's array stays as it was.
#[device]
fn weigh(mut a: [f32; 3], k: f32) -> f32 {
    a[0] *= k;
    let mut t = 0.0;
    for v in a {
        t += v;
    }
    t
}

/// Two taps, by an early `return` or the tail.
#[device]
fn taps(wide: bool) -> [f32; 2] {
    if wide {
        return [0.5, 0.5];
    }
    let t = [1.0f32, 0.0];
    t
}

/// Each thread: a 3-tap filter of its neighbourhood, through copies and element loops.
#[kernel]
pub fn array_values(out: &mut [f32], xs: &[f32], counts: &mut [u32]) {
    let i = global_idx().x as usize;
    if i < out.len() {
        let w = [0.25f32, 0.5, 0.25];
        let mut c = w;
        c[1] = 2.0;
        let r = mirror(c);
        let mut acc = 0.0f32;
        for (j, &v) in r.iter().enumerate() {
            let at = (i + j) % xs.len();
            acc += v * xs[at];
        }
        for v in w.iter() {
            acc -= *v;
        }
        for v in &c {
            if *v > 1.0 {
                break;
            }
            acc += v * 0.125;
        }
        let mut d = [1.0f32; 3];
        d = w;
        let t = taps(xs[i] > 0.0);
        acc += weigh(d, 3.0) + d[0] + t[0] - t[1] + c[0];
        out[i] = acc;
        let mut n = 0u32;
        for x in xs {
            if x > xs[i] {
                n += 1;
            }
        }
        counts[i] = n;
    }
}

/// Local arrays the simulator keeps in variables (literal indices), across barriers in a
/// loop, beside one indexed by a value (kept in memory). 64 threads a block.
#[kernel(block = 64)]
pub fn register_phases(out: &mut [u32], xs: &[[u32; 4]]) {
    let tile = shared::<[u32; 64]>();
    let t = thread_idx().x;
    let i = global_idx().x;
    let c = xs[i];
    let mut acc = [0u32; 2];
    let mut hist = [0u32; 4];
    for r in 0..3u32 {
        tile[t] = c[0] + r;
        sync_block_threads();
        let n = tile[(t + 1) % 64];
        acc[0] += n;
        acc[1] += c[3] * r;
        hist[n % 4] += 1;
        sync_block_threads();
    }
    out[i] = acc[0] * 1000 + acc[1] * 10 + hist[0] + hist[1] * 2 + c[1];
}

/// A register array in a kernel the simulator runs as one future per thread (a loop exit
/// leaves the warp operation's region for the loop that syncs).
#[kernel(block = 64)]
pub fn register_future(out: &mut [u32]) {
    let t = thread_idx().x;
    let mut r = [0u32; 2];
    for k in 0..4u32 {
        sync_block_threads();
        let s = warp_shuffle(t + k, 0);
        r[0] += s;
        r[1] += k;
        if k == 2 {
            break;
        }
    }
    out[global_idx().x] = r[0] * 100 + r[1];
}

/// A register array read by a promised condition around a barrier (every thread evaluates it,
/// and the block votes) and written in the loop's body.
#[kernel(block = 64)]
pub fn register_promise(out: &mut [u32], limit: u32) {
    let t = thread_idx().x;
    let mut st = [0u32, 1];
    while unsafe { assume_uniform(st[0] < limit) } {
        st[0] += 1;
        st[1] *= 2;
        sync_block_threads();
    }
    out[global_idx().x] = st[1] + t;
}

/// A two-dimensional register array: elements by row and column, its `len()` (the rows), and
/// its values across a barrier.
#[kernel(block = 64)]
pub fn register_grid(out: &mut [u32]) {
    let t = thread_idx().x;
    let mut m = [[0u32; 3]; 2];
    m[1][2] = t;
    m[0][1] = m[1][2] + 1;
    sync_block_threads();
    m[1][0] = m[0][1] * 2;
    out[global_idx().x] = m[1][0] * 100 + m[0][1] * 10 + m.len() as u32 + m[0][0];
}

/// The inputs of `register_phases`: two blocks.
fn chunks() -> Vec<[u32; 4]> {
    (0..128u32)
        .map(|i| [i * 7 % 13, i % 5, 0, i % 3 + 1])
        .collect()
}

/// Both kernels' outputs on `dev`, one after the other.
fn registers_on(dev: &Device) -> Result<Vec<u64>, Error> {
    let xs = dev.upload(&chunks())?;
    let mut a = dev.zeros::<u32>(128)?;
    register_phases.launch(dev, Launch::new(2, 64), &mut a, &xs)?;
    let mut b = dev.zeros::<u32>(128)?;
    register_future.launch(dev, Launch::new(2, 64), &mut b)?;
    let mut c = dev.zeros::<u32>(128)?;
    register_promise.launch(dev, Launch::new(2, 64), &mut c, 5)?;
    let mut d = dev.zeros::<u32>(128)?;
    register_grid.launch(dev, Launch::new(2, 64), &mut d)?;
    let (a, b, c, d) = (a.to_vec()?, b.to_vec()?, c.to_vec()?, d.to_vec()?);
    Ok(a.into_iter()
        .chain(b)
        .chain(c)
        .chain(d)
        .map(u64::from)
        .collect())
}

/// The host's own Rust of both kernels.
fn registers_host() -> Vec<u64> {
    let xs = chunks();
    let phases = (0..128usize).map(|i| {
        let (block, t) = (i / 64, i % 64);
        let c = xs[i];
        let (mut acc, mut hist) = ([0u32; 2], [0u32; 4]);
        for r in 0..3u32 {
            let n = xs[block * 64 + (t + 1) % 64][0] + r;
            acc[0] += n;
            acc[1] += c[3] * r;
            hist[(n % 4) as usize] += 1;
        }
        acc[0] * 1000 + acc[1] * 10 + hist[0] + hist[1] * 2 + c[1]
    });
    let future = (0..128u32).map(|i| {
        let lane0 = (i % 64) / 32 * 32;
        (3 * lane0 + 3) * 100 + 3
    });
    let promise = (0..128u32).map(|i| 32 + i % 64);
    let grid = (0..128u32).map(|i| {
        let t = i % 64;
        (t + 1) * 2 * 100 + (t + 1) * 10 + 2
    });
    phases
        .chain(future)
        .chain(promise)
        .chain(grid)
        .map(u64::from)
        .collect()
}

/// Register arrays keep their values through barriers in every thread order.
#[test]
fn register_arrays_keep_their_values_in_every_thread_order() {
    use cuphase::sim::{SimOptions, ThreadOrder};
    let want = registers_host();
    for order in [
        ThreadOrder::Forward,
        ThreadOrder::Reverse,
        ThreadOrder::Shuffle(7),
    ] {
        let dev = Device::cpu_with(SimOptions {
            order,
            ..SimOptions::default()
        })
        .unwrap();
        assert_eq!(registers_on(&dev).unwrap(), want, "{order:?}");
    }
}

fn inputs() -> Vec<f32> {
    (0..37)
        .map(|k| ((k * 7919) % 23) as f32 * 0.5 - 5.0)
        .collect()
}

/// The host's own Rust of `array_values`, thread `i`.
fn host(xs: &[f32], i: usize) -> (f32, u32) {
    let w = [0.25f32, 0.5, 0.25];
    let mut c = w;
    c[1] = 2.0;
    let r = [c[2], c[1], c[0]];
    let mut acc = 0.0f32;
    for (j, &v) in r.iter().enumerate() {
        acc += v * xs[(i + j) % xs.len()];
    }
    for v in w.iter() {
        acc -= *v;
    }
    for v in &c {
        if *v > 1.0 {
            break;
        }
        acc += v * 0.125;
    }
    let d = w;
    let t = if xs[i] > 0.0 {
        [0.5, 0.5]
    } else {
        [1.0f32, 0.0]
    };
    let mut e = d;
    e[0] *= 3.0;
    let weighed = e[0] + e[1] + e[2];
    acc += weighed + d[0] + t[0] - t[1] + c[0];
    let n = xs.iter().filter(|x| **x > xs[i]).count() as u32;
    (acc, n)
}

pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "array_values",
            run: |dev| {
                let xs = inputs();
                let n = xs.len();
                let mut out = dev.zeros::<f32>(n)?;
                let mut counts = dev.zeros::<u32>(n)?;
                let xs = dev.upload(&xs)?;
                array_values.launch(dev, Launch::cover(n, 32), &mut out, &xs, &mut counts)?;
                let mut v: Vec<u64> = out
                    .to_vec()?
                    .iter()
                    .map(|x| u64::from(x.to_bits()))
                    .collect();
                v.extend(counts.to_vec()?.iter().map(|c| u64::from(*c)));
                Ok(v)
            },
            expected: || {
                let xs = inputs();
                let r: Vec<(f32, u32)> = (0..xs.len()).map(|i| host(&xs, i)).collect();
                let mut v: Vec<u64> = r.iter().map(|(a, _)| u64::from(a.to_bits())).collect();
                v.extend(r.iter().map(|(_, c)| u64::from(*c)));
                v
            },
        },
        Case {
            name: "register_arrays",
            run: registers_on,
            expected: registers_host,
        },
    ]
}

pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (array_values.name(), array_values.cuda_source()),
        (register_phases.name(), register_phases.cuda_source()),
        (register_future.name(), register_future.cuda_source()),
        (register_promise.name(), register_promise.cuda_source()),
        (register_grid.name(), register_grid.cuda_source()),
    ]
}
