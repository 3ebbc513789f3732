//! The cases of the first version's kernels beyond the classic barrier ones: arithmetic,
//! control flow, narrow and half types, warp operations, helpers, float edges; their inputs
//! and host references.

use super::*;

/// A noisy signal for the per-thread median.
fn narrow_inputs() -> (Vec<i16>, Vec<i8>) {
    let words = (0..200i32)
        .map(|i| [i16::MIN, -1, 0, 1, i16::MAX, -12345][(i % 6) as usize].wrapping_add(i as i16))
        .collect();
    let bytes = (0..200i32)
        .map(|i| [i8::MIN, -1, 0, 1, i8::MAX][(i % 5) as usize].wrapping_add((i / 5) as i8))
        .collect();
    (words, bytes)
}

fn half_inputs() -> (Vec<f16>, Vec<bf16>) {
    let xs = (0..200)
        .map(|i: i32| f16::from_f32(((i * 37) % 101 - 50) as f32 * 0.125))
        .collect();
    let ys = (0..200)
        .map(|i: i32| bf16::from_f32(((i * 13) % 29) as f32 * 0.5 - 3.0))
        .collect();
    (xs, ys)
}

/// Threads of the warp cases: 10 blocks of 48 (a full warp and a partial one each), or 5 of
/// 96 (whole warps: the runtime launches the kernels' whole-warp variant).
const WARP_THREADS: usize = 480;

fn warp_input() -> Vec<i32> {
    (0..200).map(|i: i32| (i * 37) % 101 - 50).collect()
}

/// Every thread's value in the warp cases (0 past the input).
fn warp_values() -> Vec<i32> {
    let mut v = warp_input();
    v.resize(WARP_THREADS, 0);
    v
}

/// First thread and lane count of each warp of 1-D blocks of `block` threads.
fn warps_of(block: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for b in 0..WARP_THREADS / block {
        let mut base = 0;
        while base < block {
            out.push((b * block + base, (block - base).min(32)));
            base += 32;
        }
    }
    out
}

fn helper_input() -> Vec<f32> {
    (0..1000u32)
        .map(|i| ((i * 613) % 401) as f32 * 0.01 - 1.5)
        .collect()
}

fn median_input() -> Vec<f32> {
    (0..1000u32)
        .map(|i| ((i * 7919) % 1000) as f32 * 0.25 - 100.0)
        .collect()
}

/// Inputs at the edges of every float-to-integer conversion.
fn float_edge_inputs() -> (Vec<f32>, Vec<f64>) {
    let ys = vec![
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        -0.99,
        3.7,
        -3.7,
        127.5,
        -128.9,
        255.9,
        300.0,
        -200.0,
        65_535.5,
        70_000.0,
        2_147_483_647.0,
        2_147_483_648.0,
        -2_147_483_649.0,
        4_294_967_296.0,
        9.223_372_036_854_776e18,
        -9.223_372_036_854_776e18,
        1.844_674_407_370_955_2e19,
        1e300,
        -1e300,
        f64::MIN_POSITIVE,
    ];
    let xs = ys.iter().map(|y| *y as f32).collect();
    (xs, ys)
}

/// The kernels of the foundation: examples and language features.
pub(super) fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "warp_ids",
            run: |dev| {
                let mut out = dev.zeros::<u32>(100)?;
                methods::warp_ids.launch(dev, Launch::new(2, 64), &mut out)?;
                Ok(out.to_vec()?.iter().map(|v| u64::from(*v)).collect())
            },
            expected: || (0..100u64).map(|g| (g % 64) % 32 + 32_000).collect(),
        },
        Case {
            name: "float_exact",
            run: |dev| {
                let mut out = dev.zeros::<f32>(12)?;
                methods::float_exact.launch(dev, Launch::new(1, 32), &mut out, 2.75, -0.3)?;
                Ok(bits_f32(&out.to_vec()?))
            },
            expected: || {
                let (x, y) = (2.75f32, -0.3f32);
                bits_f32(&[
                    x.sqrt(),
                    x.floor(),
                    x.ceil(),
                    x.round(),
                    x.trunc(),
                    x.mul_add(y, 1.5),
                    (-x).abs(),
                    x.min(y),
                    x.max(y),
                    x.clamp(-1.0, 1.0),
                    x.recip(),
                    (x - 0.5).round(),
                ])
            },
        },
        Case {
            name: "local_median",
            run: |dev| {
                let input = dev.upload(&median_input())?;
                let mut out = dev.zeros::<f32>(1000)?;
                let mut table = dev.zeros::<u32>(1000)?;
                crate::kernels::locals::local_median.launch(
                    dev,
                    Launch::cover(1000, 128),
                    &mut out,
                    &mut table,
                    &input,
                )?;
                let mut v = bits_f32(&out.to_vec()?);
                v.extend(table.to_vec()?.iter().map(|t| u64::from(*t)));
                Ok(v)
            },
            expected: || {
                let input = median_input();
                let n = input.len();
                let mut medians = Vec::new();
                let mut table = Vec::new();
                for i in 0..n {
                    let mut w: Vec<f32> = (0..5).map(|k| input[(i + k) % n]).collect();
                    w.sort_by(f32::total_cmp);
                    medians.push(w[2]);
                    let seed = i as u32 * 3 + 1;
                    table.push((seed + 12).wrapping_mul(seed + 1));
                }
                let mut v = bits_f32(&medians);
                v.extend(table.iter().map(|t| u64::from(*t)));
                v
            },
        },
        Case {
            name: "warp_sums",
            run: |dev| {
                let input = warp_input();
                let inp = dev.upload(&input)?;
                let mut v = Vec::new();
                for block in [48, 96] {
                    let mut down = dev.zeros::<i32>(WARP_THREADS)?;
                    let mut xor = dev.zeros::<f64>(WARP_THREADS)?;
                    crate::kernels::warp::warp_sums.launch(
                        dev,
                        Launch::new((WARP_THREADS / block) as u32, block as u32),
                        &mut down,
                        &mut xor,
                        &inp,
                    )?;
                    v.extend(bits_i32(&down.to_vec()?));
                    v.extend(xor.to_vec()?.iter().map(|x| x.to_bits()));
                }
                Ok(v)
            },
            expected: || {
                let vals = warp_values();
                let mut v = Vec::new();
                for block in [48, 96] {
                    let mut down = Vec::new();
                    let mut xor = Vec::new();
                    for (base, lanes) in warps_of(block) {
                        let w = &vals[base..base + lanes];
                        let mut s: Vec<i32> = w.to_vec();
                        for d in [16, 8, 4, 2, 1] {
                            let old = s.clone();
                            for l in 0..lanes {
                                let src = if l + d < lanes { old[l + d] } else { old[l] };
                                s[l] = old[l].wrapping_add(src);
                            }
                        }
                        let mut x: Vec<f64> = w.iter().map(|v| f64::from(*v) * 0.5).collect();
                        for m in [1, 2, 4, 8, 16] {
                            let old = x.clone();
                            for l in 0..lanes {
                                let src = if (l ^ m) < lanes { old[l ^ m] } else { old[l] };
                                x[l] = old[l] + src;
                            }
                        }
                        down.extend(s);
                        xor.extend(x);
                    }
                    v.extend(bits_i32(&down));
                    v.extend(xor.iter().map(|x| x.to_bits()));
                }
                v
            },
        },
        Case {
            name: "const_block_sum",
            run: |dev| {
                let input = reduce_input();
                let inp = dev.upload(&input)?;
                let mut v = Vec::new();
                let mut out = dev.zeros::<f32>(input.len().div_ceil(128))?;
                crate::kernels::helpers::const_block_sum::<128>.launch(
                    dev,
                    Launch::new(input.len().div_ceil(128) as u32, 128),
                    &mut out,
                    &inp,
                )?;
                v.extend(bits_f32(&out.to_vec()?));
                let mut out = dev.zeros::<f32>(input.len().div_ceil(256))?;
                crate::kernels::helpers::const_block_sum::<256>.launch(
                    dev,
                    Launch::new(input.len().div_ceil(256) as u32, 256),
                    &mut out,
                    &inp,
                )?;
                v.extend(bits_f32(&out.to_vec()?));
                Ok(v)
            },
            expected: || {
                let input = reduce_input();
                let mut v = bits_f32(&tree_sums(&input, 128));
                v.extend(bits_f32(&tree_sums(&input, 256)));
                v
            },
        },
        Case {
            name: "narrow_abs",
            run: |dev| {
                let (words, bytes) = narrow_inputs();
                let w = dev.upload(&words)?;
                let b = dev.upload(&bytes)?;
                let mut out = dev.zeros::<i64>(2 * words.len())?;
                crate::kernels::arithmetic::narrow_abs.launch(
                    dev,
                    Launch::cover(words.len(), 64),
                    &mut out,
                    &w,
                    &b,
                )?;
                Ok(bits_i64(&out.to_vec()?))
            },
            expected: || {
                let (words, bytes) = narrow_inputs();
                let mut out = Vec::new();
                for (w, b) in words.iter().zip(&bytes) {
                    let pick = (if *w < 0 { i16::MIN } else { *w }).wrapping_abs();
                    out.push(i64::from(pick) + i64::from(w.wrapping_abs()));
                    let pb = (if *b < 0 { i8::MIN } else { *b }).wrapping_abs();
                    out.push(i64::from(pb) ^ i64::from(b.wrapping_abs()));
                }
                bits_i64(&out)
            },
        },
        Case {
            name: "local_closures",
            run: |dev| {
                let input: Vec<i64> = (0..300).map(|i| (i * 7) % 90 - 20).collect();
                let inp = dev.upload(&input)?;
                let mut out = dev.zeros::<i64>(input.len())?;
                crate::kernels::helpers::local_closures.launch(
                    dev,
                    Launch::cover(input.len(), 128),
                    &mut out,
                    &inp,
                )?;
                Ok(bits_i64(&out.to_vec()?))
            },
            expected: || {
                let input: Vec<i64> = (0..300).map(|i| (i * 7) % 90 - 20).collect();
                let out: Vec<i64> = input
                    .iter()
                    .map(|&v| 3 * v + 10 + v.min(50) + (v + 2) + 1000)
                    .collect();
                bits_i64(&out)
            },
        },
        Case {
            name: "half_math",
            run: |dev| {
                let (xs, ys) = half_inputs();
                let n = xs.len();
                let xs = dev.upload(&xs)?;
                let ys = dev.upload(&ys)?;
                let mut h = dev.zeros::<f16>(3 * n)?;
                let mut b = dev.zeros::<bf16>(2 * n)?;
                let mut flags = dev.zeros::<u32>(2 * n)?;
                crate::kernels::half::half_math.launch(
                    dev,
                    Launch::new(n.div_ceil(64) as u32, 64),
                    &mut h,
                    &mut b,
                    &mut flags,
                    &xs,
                    &ys,
                )?;
                let mut v: Vec<u64> = h.to_vec()?.iter().map(|x| u64::from(x.to_bits())).collect();
                v.extend(b.to_vec()?.iter().map(|x| u64::from(x.to_bits())));
                v.extend(flags.to_vec()?.iter().map(|x| u64::from(*x)));
                Ok(v)
            },
            expected: || {
                let (xs, ys) = half_inputs();
                let n = xs.len();
                let threads = n.div_ceil(64) * 64;
                let x_of = |i: usize| if i < n { xs[i] } else { f16::ZERO };
                let y_of = |i: usize| if i < n { ys[i] } else { bf16::ONE };
                let yb_of = |i: usize| y_of(i) * bf16::from_f32(1.5) - bf16::from_f32(0.25);
                let mut h = Vec::new();
                let mut b = Vec::new();
                let mut flags = Vec::new();
                for i in 0..threads.min(n) {
                    let (blk, t) = (i / 64, i % 64);
                    let x = x_of(i);
                    let other = x_of(blk * 64 + 63 - t);
                    let k = f16::from_f32(0.1);
                    let prod = x * other + k;
                    let quot = (x - other) / (k + f16::ONE);
                    let yb = yb_of(i);
                    let up = yb_of(i ^ 1);
                    h.extend([prod, -prod, f16::from_f32(yb.to_f32())]);
                    b.extend([yb, up]);
                    let f =
                        (x < other) as u32 + 2 * (prod >= quot) as u32 + 4 * (y_of(i) == yb) as u32;
                    flags.extend([f, ((quot.to_f32() * 100.0) as i32) as u32]);
                }
                let mut v: Vec<u64> = h.iter().map(|x| u64::from(x.to_bits())).collect();
                v.extend(b.iter().map(|x| u64::from(x.to_bits())));
                v.extend(flags.iter().map(|x| u64::from(*x)));
                v
            },
        },
        Case {
            name: "dyn_reverse",
            run: |dev| {
                let input = reverse_input();
                let inp = dev.upload(&input)?;
                let mut out = dev.zeros::<f32>(input.len())?;
                // 96 threads per block, 96 floats of dynamic shared memory.
                crate::kernels::warp::dyn_reverse.launch(
                    dev,
                    Launch::cover(input.len(), 96).shared_bytes(96 * 4),
                    &mut out,
                    &inp,
                )?;
                Ok(bits_f32(&out.to_vec()?))
            },
            expected: || {
                let input = reverse_input();
                let n = input.len();
                let out: Vec<f32> = (0..n)
                    .map(|i| {
                        let (b, t) = (i / 96, i % 96);
                        let src = b * 96 + (95 - t);
                        if src < n {
                            input[src]
                        } else {
                            0.0
                        }
                    })
                    .collect();
                bits_f32(&out)
            },
        },
        Case {
            name: "warp_votes",
            run: |dev| {
                let input = warp_input();
                let inp = dev.upload(&input)?;
                let mut out = dev.zeros::<u32>(WARP_THREADS * 6)?;
                crate::kernels::warp::warp_votes.launch(
                    dev,
                    Launch::new((WARP_THREADS / 48) as u32, 48),
                    &mut out,
                    &inp,
                )?;
                Ok(out.to_vec()?.iter().map(|x| u64::from(*x)).collect())
            },
            expected: || {
                let vals = warp_values();
                let mut out = Vec::new();
                for (base, lanes) in warps_of(48) {
                    let w = &vals[base..base + lanes];
                    let ballot = (0..lanes)
                        .filter(|l| w[*l] > 0)
                        .fold(0u32, |m, l| m | (1 << l));
                    let all = w.iter().all(|v| *v > -100);
                    let any = w.contains(&7);
                    for l in 0..lanes {
                        let up = if l >= 3 { w[l - 3] } else { w[l] } as u8;
                        let src = (l + 20) % 32;
                        let far = if src < lanes { src + 100 } else { l + 100 } as u32;
                        let flag = if l + 1 < lanes {
                            w[l + 1] % 2 == 0
                        } else {
                            w[l] % 2 == 0
                        };
                        out.push(u64::from(ballot));
                        out.push(u64::from(all as u32 + 2 * any as u32 + 4 * flag as u32));
                        out.push(u64::from(w[0] as i16 as i32 as u32));
                        out.push(u64::from(up));
                        out.push(u64::from(far));
                        out.push(l as u64);
                    }
                }
                out
            },
        },
        Case {
            name: "helper_math",
            run: |dev| {
                let input = helper_input();
                let mut out = dev.zeros::<f32>(input.len())?;
                let mut bits = dev.zeros::<u32>(input.len())?;
                let inp = dev.upload(&input)?;
                crate::kernels::helpers::helper_math.launch(
                    dev,
                    Launch::cover(input.len(), 128),
                    &mut out,
                    &mut bits,
                    &inp,
                )?;
                let mut v = bits_f32(&out.to_vec()?);
                v.extend(bits.to_vec()?.iter().map(|b| u64::from(*b)));
                Ok(v)
            },
            expected: || {
                let input = helper_input();
                let out: Vec<f32> = input
                    .iter()
                    .map(|&x| {
                        let clamped = if x < 0.0 { 0.0 } else { x.min(1.0) };
                        0.0 + (x * x + 1.0 * 1.0) + clamped
                    })
                    .collect();
                let bits = (0..input.len() as u32).map(|i| {
                    let low = if i == 0 { 32 } else { i.trailing_zeros() };
                    u64::from(low + (i % 7) * (i % 7) + 4)
                });
                let mut v = bits_f32(&out);
                v.extend(bits);
                v
            },
        },
        Case {
            name: "helper_reduce",
            run: |dev| {
                let input = reduce_input();
                let blocks = input.len().div_ceil(256);
                let inp = dev.upload(&input)?;
                let mut out = dev.zeros::<f32>(blocks)?;
                crate::kernels::helpers::helper_reduce.launch(
                    dev,
                    Launch::new(blocks as u32, 256),
                    &mut out,
                    &inp,
                )?;
                Ok(bits_f32(&out.to_vec()?))
            },
            // The helper's tree order is the kernel's.
            expected: reduce_expected,
        },
        Case {
            name: "local_scopes",
            run: |dev| {
                let mut out = dev.zeros::<i64>(100)?;
                crate::kernels::locals::local_scopes.launch(
                    dev,
                    Launch::cover(100, 64),
                    &mut out,
                )?;
                Ok(bits_i64(&out.to_vec()?))
            },
            // The passes r = 0, 1, 2 each sum 4 * r + 100; then -1 * 2.
            expected: || vec![(4 + 8 + 300 - 2) as u64; 100],
        },
        Case {
            name: "float_edges",
            run: |dev| {
                let (xs, ys) = float_edge_inputs();
                let mut out = dev.zeros::<i64>(xs.len() * 16)?;
                let mut zeros = dev.zeros::<f64>(4)?;
                let (xs, ys) = (dev.upload(&xs)?, dev.upload(&ys)?);
                methods::float_edges.launch(
                    dev,
                    Launch::new(1, 32),
                    &mut out,
                    &mut zeros,
                    &xs,
                    &ys,
                )?;
                let mut v = bits_i64(&out.to_vec()?);
                v.extend(zeros.to_vec()?.iter().map(|z| z.to_bits()));
                Ok(v)
            },
            expected: || {
                let (xs, ys) = float_edge_inputs();
                let mut v = Vec::new();
                for (x, y) in xs.iter().zip(&ys) {
                    let (x, y) = (*x, *y);
                    v.extend([
                        (x as i8) as i64,
                        (x as i16) as i64,
                        (x as i32) as i64,
                        x as i64,
                        (x as u8) as i64,
                        (x as u16) as i64,
                        (x as u32) as i64,
                        (x as u64) as i64,
                        (y as i8) as i64,
                        (y as i16) as i64,
                        (y as i32) as i64,
                        y as i64,
                        (y as u8) as i64,
                        (y as u16) as i64,
                        (y as u32) as i64,
                        (y as u64) as i64,
                    ]);
                }
                let mut v = bits_i64(&v);
                // The GPU's `fmin`/`fmax` order -0.0 below +0.0, and cuphase defines it so.
                v.extend([-0.0f64, -0.0, 0.0, 0.0].iter().map(|z| z.to_bits()));
                v
            },
        },
        Case {
            name: "int_methods",
            run: |dev| {
                let mut ints = dev.zeros::<i32>(7)?;
                let mut uints = dev.zeros::<u32>(10)?;
                methods::int_methods.launch(
                    dev,
                    Launch::new(1, 32),
                    &mut ints,
                    &mut uints,
                    -123_457,
                    0x00f0_1200,
                    13,
                )?;
                let mut v = bits_i32(&ints.to_vec()?);
                v.extend(uints.to_vec()?.iter().map(|u| u64::from(*u)));
                Ok(v)
            },
            expected: || {
                let (a, b, e) = (-123_457i32, 0x00f0_1200u32, 13u32);
                let ints = [
                    a.wrapping_abs(),
                    a.min(7),
                    a.max(7),
                    a.wrapping_pow(e),
                    a.wrapping_mul(a),
                    a.clamp(-5, 5),
                    i32::MIN.wrapping_abs(),
                ];
                let uints = [
                    b.count_ones(),
                    b.leading_zeros(),
                    b.trailing_zeros(),
                    0u32.trailing_zeros(),
                    0u32.leading_zeros(),
                    b.rotate_left(e),
                    b.rotate_right(e),
                    b.wrapping_pow(e),
                    b.min(3),
                    b.wrapping_sub(b + 1),
                ];
                let mut v = bits_i32(&ints);
                v.extend(uints.iter().map(|u| u64::from(*u)));
                v
            },
        },
        Case {
            name: "reverse",
            run: |dev| {
                let input = dev.upload(&reverse_input())?;
                let mut out = dev.zeros::<f32>(4096)?;
                reverse::reverse.launch(dev, Launch::cover(4096, 256), &mut out, &input)?;
                Ok(bits_f32(&out.to_vec()?))
            },
            expected: reverse_expected,
        },
        Case {
            name: "neighbor_reuse",
            run: |dev| {
                let host = neighbor_input();
                let input = dev.upload(&host)?;
                let mut out = dev.zeros::<i32>(host.len())?;
                neighbor_reuse::neighbor_reuse.launch(dev, Launch::new(8, 64), &mut out, &input)?;
                Ok(bits_i32(&out.to_vec()?))
            },
            expected: neighbor_expected,
        },
        Case {
            name: "tiled_matmul",
            run: |dev| {
                let (a, b) = matmul_inputs();
                let (da, db) = (dev.upload(&a)?, dev.upload(&b)?);
                let mut dc = dev.zeros::<f32>(MATMUL_N * MATMUL_N)?;
                let tiles = (MATMUL_N as u32).div_ceil(16);
                tiled_matmul::tiled_matmul.launch(
                    dev,
                    Launch::new((tiles, tiles), (16, 16)),
                    &mut dc,
                    &da,
                    &db,
                    MATMUL_N as u32,
                )?;
                Ok(bits_f32(&dc.to_vec()?))
            },
            expected: matmul_expected,
        },
        Case {
            name: "block_reduce",
            run: |dev| {
                let input = dev.upload(&reduce_input())?;
                let launch = Launch::cover(5000, 256);
                let mut partial = dev.zeros::<f32>(launch.grid.x as usize)?;
                block_reduce::block_reduce.launch(dev, launch, &mut partial, &input)?;
                Ok(bits_f32(&partial.to_vec()?))
            },
            expected: reduce_expected,
        },
        Case {
            name: "control_flow",
            run: |dev| {
                let mut out = dev.zeros::<i64>(300)?;
                control_flow::control_flow.launch(
                    dev,
                    Launch::cover(300, 64),
                    &mut out,
                    20,
                    500,
                )?;
                Ok(out.to_vec()?.iter().map(|v| *v as u64).collect())
            },
            expected: || {
                control_flow_reference(300, 20, 500)
                    .iter()
                    .map(|v| *v as u64)
                    .collect()
            },
        },
        Case {
            name: "arithmetic",
            run: |dev| {
                let (a, b, x, shift) = ARITH;
                let mut ints = dev.zeros::<i32>(10)?;
                let mut uints = dev.zeros::<u32>(6)?;
                let mut floats = dev.zeros::<f32>(5)?;
                arithmetic::arithmetic.launch(
                    dev,
                    Launch::new(1, 32),
                    &mut ints,
                    &mut uints,
                    &mut floats,
                    a,
                    b,
                    x,
                    shift,
                )?;
                let mut v = bits_i32(&ints.to_vec()?);
                v.extend(uints.to_vec()?.iter().map(|u| u64::from(*u)));
                v.extend(bits_f32(&floats.to_vec()?));
                Ok(v)
            },
            expected: || {
                let (a, b, x, shift) = ARITH;
                let ints = [
                    a.wrapping_add(i32::MAX),
                    a.wrapping_mul(1_000_000),
                    a.wrapping_neg(),
                    a.wrapping_shl(shift),
                    a.wrapping_shr(shift),
                    a / 7 + a % 7,
                    x as i32,
                    (x * 1.0e10) as i32,
                    (-x * 1.0e10) as i32,
                    !a ^ (a & 0xff) | 3,
                ];
                let uints = [
                    b.wrapping_sub(10),
                    b.wrapping_shl(shift),
                    b.wrapping_shr(shift + 1),
                    (-x) as u32,
                    (x * 1.0e10) as u32,
                    (a as u32) % (b | 1),
                ];
                let floats = [x * 2.5 + 1.0, (a as f32) / 3.0, x % 0.75, b as f32, -x];
                let mut v = bits_i32(&ints);
                v.extend(uints.iter().map(|u| u64::from(*u)));
                v.extend(bits_f32(&floats));
                v
            },
        },
    ]
}
