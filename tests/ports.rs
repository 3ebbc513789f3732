//! Cases of the constructs ports need (`tests/in/ports.rs`), with host references written as
//! plain Rust; they join `cases::all()`, so they run on the simulator and on the GPU.

use crate::cases::Case;
use crate::kernels::ports;
use cuphase::prelude::*;

fn consts_input() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        1.5,
        -2.25,
        // No NaN input: arithmetic on NaN gives the GPU's canonical NaN, not the operand's
        // bits (bit-identical NaN payloads are issue 17's).
        f32::INFINITY,
        f32::NEG_INFINITY,
        3.0e38,
    ]
}

fn float_consts_expected() -> Vec<u64> {
    let xs = consts_input();
    let mut out = Vec::new();
    let mut wide = Vec::new();
    for &x in &xs {
        let (lo, hi) = (f32::NEG_INFINITY, f32::INFINITY);
        let (mut a, b) = (x.max(lo), x.min(hi));
        a *= core::f32::consts::PI;
        let (a, b) = (b, a);
        out.extend([
            a,
            b + f32::EPSILON,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE * x,
            #[allow(clippy::eq_op)]
            if x != x {
                f32::NAN
            } else {
                std::f32::consts::E * x
            },
            lo,
            hi,
            std::f32::consts::FRAC_1_SQRT_2 + std::f32::consts::TAU,
            if x > 0.0 { f32::NAN } else { -f32::NAN },
        ]);
        let (w, z) = (x as f64, std::f64::consts::LN_2);
        wide.extend([
            w * z,
            f64::MAX / 2.0,
            f64::NEG_INFINITY,
            f64::EPSILON + core::f64::consts::SQRT_2,
        ]);
    }
    out.iter()
        .map(|v| u64::from(v.to_bits()))
        .chain(wide.iter().map(|v| v.to_bits()))
        .collect()
}

fn module_consts_input() -> Vec<f32> {
    (0..256).map(|i| (i % 17) as f32 - 8.0).collect()
}

fn module_consts_expected() -> Vec<u64> {
    let input = module_consts_input();
    let block = ports::BLOCK;
    let (radius, scale, shift) = (2usize, 0.5f32, -3i64);
    let mut out = Vec::new();
    let mut wide = Vec::new();
    for (i, _) in input.iter().enumerate() {
        let (b, t) = (i / block, i % block);
        let lo = t.saturating_sub(radius);
        let hi = (t + radius).min(block - 1);
        let mut acc = 0.0f32;
        for j in lo..=hi {
            acc += input[b * block + j];
        }
        out.push(acc * scale + 1.0);
        wide.push(i as i64 * shift);
    }
    out.iter()
        .map(|v| u64::from(v.to_bits()))
        .chain(wide.iter().map(|v| *v as u64))
        .collect()
}

const T_W: usize = 70;
const T_H: usize = 45;

fn transpose_input() -> Vec<f32> {
    (0..T_W * T_H).map(|i| i as f32 * 0.25 - 3.0).collect()
}

fn reduce_input() -> Vec<f32> {
    (0..256 * 7 - 30).map(|i| (i % 7) as f32 - 3.0).collect()
}

fn path_call_input() -> Vec<f32> {
    (0..128)
        .map(|i| ((i * 29) % 23) as f32 * 0.25 - 1.5)
        .collect()
}

fn sub_slice_input() -> Vec<f32> {
    (0..64 * 5 + 8)
        .map(|i| ((i * 7) % 13) as f32 * 0.25)
        .collect()
}

fn borrow_input() -> Vec<u32> {
    (0..128u32).map(|i| (i * 37 + 11) % 23).collect()
}

fn short_circuit_input() -> Vec<f32> {
    (0..100).map(|i| (i % 5) as f32 - 1.0).collect()
}

pub fn cases() -> Vec<Case> {
    let mut v = range_cases();
    v.push(Case {
        name: "array_literals",
        run: |dev| {
            let xs = dev.upload(&path_call_input())?;
            let mut out = dev.zeros::<f32>(128)?;
            let mut counts = dev.zeros::<u32>(100)?;
            ports::array_literals.launch(dev, Launch::new(2, 64), &mut out, &mut counts, &xs)?;
            let mut v: Vec<u64> = out
                .to_vec()?
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect();
            v.extend(counts.to_vec()?.iter().map(|x| u64::from(*x)));
            Ok(v)
        },
        expected: || {
            let xs = path_call_input();
            let w = [0.25f32, 0.5, 0.25];
            let mut v: Vec<u64> = (0..128usize)
                .map(|i| {
                    if i >= 1 && i + 1 < 128 {
                        let mut acc = 0.0f32;
                        for k in 0..3 {
                            acc += w[k] * xs[i + k - 1];
                        }
                        u64::from(acc.to_bits())
                    } else {
                        0
                    }
                })
                .collect();
            v.extend((0..100u64).map(|i| i * 100 + (i + 1) * 10 + (i % 7 + 3)));
            v
        },
    });
    v.push(Case {
        name: "path_calls",
        run: |dev| {
            let xs = dev.upload(&path_call_input())?;
            let small: Vec<u16> = (0..128u16).map(|i| i * 3 % 17).collect();
            let small = dev.upload(&small)?;
            let mut out = dev.zeros::<f32>(128)?;
            let mut wide = dev.zeros::<f64>(128)?;
            ports::path_calls.launch(dev, Launch::new(2, 64), &mut out, &mut wide, &xs, &small)?;
            let mut v: Vec<u64> = out
                .to_vec()?
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect();
            v.extend(wide.to_vec()?.iter().map(|x| x.to_bits()));
            Ok(v)
        },
        expected: || {
            let xs = path_call_input();
            let (mut out, mut wide) = (Vec::new(), Vec::new());
            for g in 0..128usize {
                let (blk, t) = (g / 64 * 64, g % 64);
                let a = f32::max(xs[g], xs[blk + (t + 1) % 64]);
                let b = f32::min(a, 2.5);
                let c = f32::mul_add(a, b, 1.0);
                let s = (g as u16) * 3 % 17;
                let n = u32::from(s) + u32::min(g as u32, 7) + u32::from(g > 3);
                out.push(c + n as f32 + f32::from(s) + f32::from(a > 1.0));
                wide.push(f64::from(a) * 0.5 + f64::from(n));
            }
            let mut v: Vec<u64> = out.iter().map(|x: &f32| u64::from(x.to_bits())).collect();
            v.extend(wide.iter().map(|x: &f64| x.to_bits()));
            v
        },
    });
    v.push(Case {
        name: "sub_slices",
        run: |dev| {
            let inp = dev.upload(&sub_slice_input())?;
            let mut out = dev.zeros::<f32>(64)?;
            let mut counts = dev.zeros::<u32>(16)?;
            ports::sub_slices.launch(dev, Launch::new(1, 64), &mut out, &mut counts, &inp, 5u32)?;
            let mut v: Vec<u64> = out
                .to_vec()?
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect();
            v.extend(counts.to_vec()?.iter().map(|x| u64::from(*x)));
            Ok(v)
        },
        expected: || {
            let inp = sub_slice_input();
            let n = inp.len();
            let mut v: Vec<u64> = (0..64usize)
                .map(|t| {
                    let x = &inp[t * 5..];
                    let s = x[0] + x[1] + x[2] + x[3];
                    let mine_len = 16 - (t / 32) * 8;
                    let r = s + x[1] + (n - t * 5 - 1) as f32 + mine_len as f32;
                    u64::from(r.to_bits())
                })
                .collect();
            // Warp w counts `t % 8` into bins 8w..8w+8: each bin gets 4 threads.
            v.extend([4u64; 16]);
            v
        },
    });
    v.push(Case {
        name: "borrowed_elements",
        run: |dev| {
            let xs = dev.upload(&borrow_input())?;
            let mut out = dev.zeros::<u32>(64)?;
            ports::borrowed_elements.launch(dev, Launch::new(1, 64), &mut out, &xs)?;
            Ok(out.to_vec()?.iter().map(|x| u64::from(*x)).collect())
        },
        expected: || {
            let xs = borrow_input();
            let order = |a: &mut u32, b: &mut u32| {
                if *a > *b {
                    std::mem::swap(a, b);
                }
            };
            (0..64)
                .map(|t| {
                    let (mut lo, mut hi) = (xs[2 * t], xs[2 * t + 1]);
                    order(&mut lo, &mut hi);
                    // bump_by(&mut pair[0], 1): add one, and at least 7.
                    let first = (lo + 1).max(7);
                    u64::from((first * 1000 + hi + 1).max(7))
                })
                .collect()
        },
    });
    v.push(Case {
        name: "unnamed_counter",
        run: |dev| {
            let mut out = dev.zeros::<u32>(70)?;
            ports::unnamed_counter.launch(dev, Launch::new(1, 96), &mut out, 5u32)?;
            Ok(out.to_vec()?.iter().map(|x| u64::from(*x)).collect())
        },
        expected: || {
            (0..70u32)
                .map(|i| u64::from((0..5).fold(i, |a, _| a.wrapping_mul(3).wrapping_add(1))))
                .collect()
        },
    });
    v.push(Case {
        name: "deferred_init",
        run: |dev| {
            let xs = dev.upload(&short_circuit_input())?;
            let mut out = dev.zeros::<f32>(100)?;
            ports::deferred_init.launch(dev, Launch::new(1, 128), &mut out, &xs)?;
            Ok(out
                .to_vec()?
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect())
        },
        expected: || {
            short_circuit_input()
                .iter()
                .map(|x| u64::from((x * if *x > 0.0 { 2.0f32 } else { -1.0 }).to_bits()))
                .collect()
        },
    });
    v.push(Case {
        name: "deferred_tuple",
        run: |dev| {
            let xs = dev.upload(&short_circuit_input())?;
            let mut out = dev.zeros::<f32>(100)?;
            let mut steps = dev.zeros::<u32>(100)?;
            ports::deferred_tuple.launch(dev, Launch::new(1, 128), &mut out, &mut steps, &xs)?;
            let mut v: Vec<u64> = out
                .to_vec()?
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect();
            v.extend(steps.to_vec()?.iter().map(|x| u64::from(*x)));
            Ok(v)
        },
        expected: || {
            let xs = short_circuit_input();
            let mut out = Vec::new();
            let mut steps = Vec::new();
            for (i, &x) in xs.iter().enumerate() {
                let (lo, mut hi, count, bias) = if x > 0.0 {
                    (x - 1.0, x + 1.0, 2u32, 0.5f32)
                } else if x < 0.0 {
                    (x * 2.0, 0.0, 1, -0.5)
                } else {
                    (0.0, 0.0, 0, 0.0)
                };
                hi += bias;
                out.push(u64::from((lo + hi).to_bits()));
                steps.push(u64::from(count + i as u32));
            }
            out.extend(steps);
            out
        },
    });
    v.push(Case {
        name: "tuple_discard",
        run: |dev| {
            let mut out = dev.zeros::<u32>(70)?;
            let mut counter = dev.zeros::<u32>(2)?;
            ports::tuple_discard.launch(
                dev,
                Launch::new(1, 96),
                &mut out,
                &mut counter,
                1.5f32,
                7u32,
            )?;
            let mut v: Vec<u64> = out.to_vec()?.iter().map(|x| u64::from(*x)).collect();
            v.extend(counter.to_vec()?.iter().map(|x| u64::from(*x)));
            Ok(v)
        },
        // Each thread adds one to the first counter and its index to the second.
        expected: || {
            (0..70u64)
                .map(|i| i + 7)
                .chain([70, (0..70).sum()])
                .collect()
        },
    });
    v.push(Case {
        name: "tuple_discard_helper",
        run: |dev| {
            let mut out = dev.zeros::<u32>(70)?;
            ports::tuple_discard_helper.launch(dev, Launch::new(1, 96), &mut out)?;
            Ok(out.to_vec()?.iter().map(|x| u64::from(*x)).collect())
        },
        // Each thread bumps its `n` twice.
        expected: || (0..70u64).map(|i| i + 2).collect(),
    });
    v.push(Case {
        name: "shared_alias",
        run: |dev| {
            let xs = dev.upload(&short_circuit_input()[..70])?;
            let mut out = dev.zeros::<f32>(80)?;
            ports::shared_alias.launch(
                dev,
                Launch::new(3, 32).shared_bytes(24 * 4),
                &mut out,
                &xs,
            )?;
            Ok(out
                .to_vec()?
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect())
        },
        expected: || {
            let xs = &short_circuit_input()[..70];
            let v = |j: usize| xs.get(j).copied().unwrap_or(0.0);
            (0..80usize)
                .map(|i| {
                    let (b, t) = (i / 32, i % 32);
                    if t >= 24 {
                        return 0;
                    }
                    let mut before = 0.0f32;
                    for k in 0..=t {
                        before += v(b * 32 + k);
                    }
                    let r = before + v(b * 32 + 23 - t) + (t / 2) as f32 + 24.0;
                    u64::from(r.to_bits())
                })
                .collect()
        },
    });
    v.push(Case {
        name: "short_circuit_helpers",
        run: |dev| {
            let xs = dev.upload(&short_circuit_input())?;
            // More outputs than inputs: the right sides must not run past `xs`.
            let mut out = dev.zeros::<f32>(130)?;
            ports::short_circuit_helpers.launch(dev, Launch::new(2, 128), &mut out, &xs)?;
            Ok(out
                .to_vec()?
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect())
        },
        expected: || {
            let xs = short_circuit_input();
            (0..130)
                .map(|i| {
                    let x = xs.get(i).copied();
                    let positive = x.is_some_and(|x| x > 0.0);
                    let outside_or_small = x.is_none_or(|x| x < 2.0);
                    let v = if positive { 1.0f32 } else { 0.0 }
                        + if outside_or_small { 2.0 } else { 0.0 };
                    u64::from(v.to_bits())
                })
                .collect()
        },
    });
    v.push(Case {
        name: "reduce_warp_tail",
        run: |dev| {
            let input = reduce_input();
            let blocks = input.len().div_ceil(256) as u32;
            let mut out = dev.zeros::<f32>(blocks as usize)?;
            let input = dev.upload(&input)?;
            ports::reduce_warp_tail.launch(dev, Launch::new(blocks, 256), &mut out, &input)?;
            // Its warp operations are warp-uniform only in blocks of whole warps.
            let wrong = ports::reduce_warp_tail.launch(dev, Launch::new(1, 100), &mut out, &input);
            assert!(
                matches!(&wrong, Err(Error::InvalidLaunch { reason, .. }) if reason.contains("multiple of 32")),
                "{wrong:?}"
            );
            Ok(out.to_vec()?.iter().map(|x| u64::from(x.to_bits())).collect())
        },
        expected: || {
            // Small integers: every order of the additions gives the same sum.
            reduce_input()
                .chunks(256)
                .map(|c| u64::from(c.iter().sum::<f32>().to_bits()))
                .collect()
        },
    });
    v.push(Case {
        name: "halo_stencil",
        run: |dev| {
            let input = module_consts_input();
            let n = input.len();
            let mut out = dev.zeros::<f32>(n)?;
            let input = dev.upload(&input)?;
            ports::halo_stencil.launch(dev, Launch::new(n as u32 / 64, 64), &mut out, &input)?;
            Ok(out
                .to_vec()?
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect())
        },
        expected: || {
            let input = module_consts_input();
            let at = |j: i64| {
                usize::try_from(j)
                    .ok()
                    .and_then(|j| input.get(j).copied())
                    .unwrap_or(0.0)
            };
            (0..input.len() as i64)
                .map(|i| at(i - 2) + at(i - 1) + at(i) + at(i + 1) + at(i + 2))
                .map(|x| u64::from(x.to_bits()))
                .collect()
        },
    });
    v.push(Case {
        name: "transpose_samples",
        run: |dev| {
            let input = dev.upload(&transpose_input())?;
            let mut out = dev.zeros::<f32>(T_W * T_H)?;
            let grid = (T_W.div_ceil(32) as u32, T_H.div_ceil(32) as u32);
            ports::transpose_samples.launch(
                dev,
                Launch::new(grid, (32, 8)),
                &mut out,
                &input,
                T_W as u32,
                T_H as u32,
            )?;
            // Another block shape than the declared one is an error before anything runs.
            let wrong = ports::transpose_samples.launch(
                dev,
                Launch::new(grid, (32, 4)),
                &mut out,
                &input,
                T_W as u32,
                T_H as u32,
            );
            assert!(
                matches!(&wrong, Err(Error::InvalidLaunch { reason, .. }) if reason.contains("(32, 8, 1)")),
                "{wrong:?}"
            );
            Ok(out.to_vec()?.iter().map(|x| u64::from(x.to_bits())).collect())
        },
        expected: || {
            let input = transpose_input();
            let mut out = vec![0.0f32; T_W * T_H];
            for y in 0..T_H {
                for x in 0..T_W {
                    out[x * T_H + y] = input[y * T_W + x];
                }
            }
            out.iter().map(|x| u64::from(x.to_bits())).collect()
        },
    });
    v.push(Case {
        name: "module_consts",
        run: |dev| {
            let input = module_consts_input();
            let n = input.len();
            let mut out = dev.zeros::<f32>(n)?;
            let mut wide = dev.zeros::<i64>(n)?;
            let input = dev.upload(&input)?;
            let block = ports::BLOCK as u32;
            ports::module_consts.launch(
                dev,
                Launch::new(n as u32 / block, block),
                &mut out,
                &input,
                &mut wide,
            )?;
            let mut v: Vec<u64> = out
                .to_vec()?
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect();
            v.extend(wide.to_vec()?.iter().map(|x| *x as u64));
            Ok(v)
        },
        expected: module_consts_expected,
    });
    v.push(Case {
        name: "float_consts",
        run: |dev| {
            let xs = consts_input();
            let n = xs.len();
            let mut out = dev.zeros::<f32>(n * 10)?;
            let mut wide = dev.zeros::<f64>(n * 4)?;
            let xs = dev.upload(&xs)?;
            ports::float_consts.launch(dev, Launch::cover(n, 32), &mut out, &mut wide, &xs)?;
            let mut v: Vec<u64> = out
                .to_vec()?
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect();
            v.extend(wide.to_vec()?.iter().map(|x| x.to_bits()));
            Ok(v)
        },
        expected: float_consts_expected,
    });
    v
}

/// The kernel and a host function with one body: every form of range loop, each folded into
/// an order-sensitive hash written to `out` (thread 0 of the kernel runs it).
macro_rules! ranges_kernel {
    (($out:ident, $n:ident, $a:ident, $s:ident) $body:tt) => {
        /// Every range form a `for` loop takes (issue 11 §3).
        #[kernel]
        pub fn ranges($out: &mut [u32], $n: u32, $a: i32, $s: u32) {
            if thread_idx().x == 0 $body
        }

        /// The same loops on the host, as Rust runs them.
        fn ranges_host($out: &mut [u32], $n: u32, $a: i32, $s: u32) $body
    };
}

ranges_kernel!((out, n, a, s) {
    let mut k = 0usize;
    let mut h = 0u32;
    for i in 0..=n {
        h = h.wrapping_mul(31).wrapping_add(i);
    }
    out[k] = h;
    k += 1;
    h = 0;
    for i in (0..=n).step_by(s as usize) {
        h = h.wrapping_mul(31).wrapping_add(i);
    }
    out[k] = h;
    k += 1;
    h = 0;
    for i in (0..n).rev() {
        h = h.wrapping_mul(31).wrapping_add(i);
    }
    out[k] = h;
    k += 1;
    h = 0;
    for i in (a..5).rev() {
        h = h.wrapping_mul(31).wrapping_add(i as u32);
    }
    out[k] = h;
    k += 1;
    h = 0;
    for i in (0..=n).rev() {
        h = h.wrapping_mul(31).wrapping_add(i);
    }
    out[k] = h;
    k += 1;
    h = 0;
    for i in (1..n).rev().step_by(s as usize) {
        h = h.wrapping_mul(31).wrapping_add(i);
    }
    out[k] = h;
    k += 1;
    h = 0;
    for i in (1..n).step_by(s as usize).rev() {
        h = h.wrapping_mul(31).wrapping_add(i);
    }
    out[k] = h;
    k += 1;
    h = 0;
    // (Rust reverses a stepped inclusive range of 8- and 16-bit integers only.)
    for i in (1..=n as u16).step_by(s as usize).rev() {
        h = h.wrapping_mul(31).wrapping_add(i as u32);
    }
    out[k] = h;
    k += 1;
    h = 0;
    for c in 0..=255u8 {
        h = h.wrapping_mul(31).wrapping_add(c as u32);
    }
    for c in (0..=u8::MAX).rev() {
        h = h.wrapping_mul(31).wrapping_add(c as u32);
    }
    for c in (250u8..=255).step_by(2) {
        h = h.wrapping_mul(31).wrapping_add(c as u32);
    }
    out[k] = h;
    k += 1;
    h = 0;
    for c in (i8::MIN..=i8::MAX).rev().step_by(7) {
        h = h.wrapping_mul(31).wrapping_add(c as u32);
    }
    for c in (i8::MIN..=i8::MAX).step_by(9).rev() {
        h = h.wrapping_mul(31).wrapping_add(c as u32);
    }
    out[k] = h;
    k += 1;
    h = 0;
    for i in ((i32::MAX - 10)..=i32::MAX).step_by(3) {
        h = h.wrapping_mul(31).wrapping_add(i as u32);
    }
    for i in ((i32::MAX - 10)..=i32::MAX).rev() {
        h = h.wrapping_mul(31).wrapping_add(i as u32);
    }
    for i in (i32::MIN..(i32::MIN + 3)).rev() {
        h = h.wrapping_mul(31).wrapping_add(i as u32);
    }
    out[k] = h;
    k += 1;
    h = 0;
    // `continue` and `break` in the flag-driven loops.
    for i in 0..=n {
        if i % 3 == 1 {
            continue;
        }
        h = h.wrapping_mul(31).wrapping_add(i);
    }
    for i in (0..=n).rev().step_by(2) {
        if i < 3 {
            break;
        }
        if i % 4 == 0 {
            continue;
        }
        h = h.wrapping_mul(31).wrapping_add(i);
    }
    for i in 0..=4u32 {
        h = h.wrapping_mul(31).wrapping_add(i);
    }
    out[k] = h;
});

/// Outputs of [`ranges`].
const RANGE_OUTPUTS: usize = 12;

/// The (n, a, s) each launch of [`ranges`] gets: ordinary, empty, and a one-element step.
const RANGE_ARGS: [(u32, i32, u32); 3] = [(10, -3, 3), (0, 7, 1), (1, 4, 5)];

/// `threads_in_block(0..=n)` and `threads_in_block((0..=n).step_by(s))`: each thread counts
/// and sums the values it takes.
#[kernel]
pub fn inclusive_strided(out: &mut [u32], n: u32, s: u32) {
    let t = thread_idx().x;
    let mut count = 0u32;
    let mut sum = 0u32;
    for i in threads_in_block(0..=n) {
        count += 1;
        sum += i;
    }
    for i in threads_in_block((0..=n).step_by(s as usize)) {
        count += 100;
        sum += i;
    }
    out[t * 2] = count;
    out[t * 2 + 1] = sum;
}

fn inclusive_strided_expected(n: u32, s: u32, threads: u32) -> Vec<u32> {
    let mut v = Vec::new();
    for t in 0..threads {
        let (mut count, mut sum) = (0u32, 0u32);
        for i in (0..=n).skip(t as usize).step_by(threads as usize) {
            count += 1;
            sum += i;
        }
        for i in (0..=n)
            .step_by(s as usize)
            .skip(t as usize)
            .step_by(threads as usize)
        {
            count += 100;
            sum += i;
        }
        v.extend([count, sum]);
    }
    v
}

pub fn range_cases() -> Vec<Case> {
    vec![
        Case {
            name: "ranges",
            run: |dev| {
                let mut v = Vec::new();
                for (n, a, s) in RANGE_ARGS {
                    let mut out = dev.zeros::<u32>(RANGE_OUTPUTS)?;
                    ranges.launch(dev, Launch::new(1, 32), &mut out, n, a, s)?;
                    v.extend(out.to_vec()?.iter().map(|x| u64::from(*x)));
                }
                Ok(v)
            },
            expected: || {
                let mut v = Vec::new();
                for (n, a, s) in RANGE_ARGS {
                    let mut out = vec![0u32; RANGE_OUTPUTS];
                    ranges_host(&mut out, n, a, s);
                    v.extend(out.iter().map(|x| u64::from(*x)));
                }
                v
            },
        },
        Case {
            name: "inclusive_strided",
            run: |dev| {
                let mut out = dev.zeros::<u32>(64)?;
                inclusive_strided.launch(dev, Launch::new(1, 32), &mut out, 70, 3)?;
                Ok(out.to_vec()?.iter().map(|x| u64::from(*x)).collect())
            },
            expected: || {
                inclusive_strided_expected(70, 3, 32)
                    .iter()
                    .map(|x| u64::from(*x))
                    .collect()
            },
        },
    ]
}
