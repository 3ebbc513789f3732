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
    vec![Case {
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
    }]
}

pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![(array_values.name(), array_values.cuda_source())]
}
