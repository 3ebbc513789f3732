//! Test bodies written once and run on any device (the simulator always, the GPU when there is
//! one): each returns the bits of every output element, so results can be compared exactly
//! across back ends, and has a host reference for the simulator tests.

use crate::kernels::*;
use cuphase::half::{bf16, f16};
use cuphase::prelude::*;

mod original;

/// A case: its name, the run on a device, and the expected outputs computed on the host.
pub struct Case {
    pub name: &'static str,
    pub run: fn(&Device) -> Result<Vec<u64>, Error>,
    pub expected: fn() -> Vec<u64>,
}

fn bits_f32(v: &[f32]) -> Vec<u64> {
    v.iter().map(|x| u64::from(x.to_bits())).collect()
}
fn bits_i32(v: &[i32]) -> Vec<u64> {
    v.iter().map(|x| *x as u32 as u64).collect()
}
fn bits_i64(v: &[i64]) -> Vec<u64> {
    v.iter().map(|x| *x as u64).collect()
}

fn reverse_input() -> Vec<f32> {
    (0..4096).map(|i| i as f32 * 0.5).collect()
}

fn neighbor_input() -> Vec<i32> {
    (0..256 * 37)
        .map(|i: i32| i.wrapping_mul(7919) % 1000 - 500)
        .collect()
}

const MATMUL_N: usize = 50;
fn matmul_inputs() -> (Vec<f32>, Vec<f32>) {
    let n = MATMUL_N;
    let a = (0..n * n)
        .map(|i| ((i * 37) % 101) as f32 / 50.0 - 1.0)
        .collect();
    let b = (0..n * n)
        .map(|i| ((i * 53) % 97) as f32 / 48.0 - 1.0)
        .collect();
    (a, b)
}

fn reduce_input() -> Vec<f32> {
    (0..5000).map(|i| (i % 13) as f32 - 6.0).collect()
}

const ARITH: (i32, u32, f32, u32) = (123_456, 7, 3.7, 35);

fn control_flow_reference(len: usize, n: u32, limit: i64) -> Vec<i64> {
    (0..len as u32)
        .map(|g| {
            let mut acc: i64 = 0;
            'outer: for j in 0..n {
                for k in (0..n).step_by(3) {
                    if k == g % 7 {
                        continue 'outer;
                    }
                    if acc > limit {
                        break 'outer;
                    }
                    acc += (j * k) as i64;
                }
            }
            let mut w = g;
            while w > 1 {
                w = if w % 2 == 0 { w / 2 } else { 3 * w + 1 };
                acc += 1;
            }
            let mut steps = 0u32;
            loop {
                steps += 1;
                if steps >= g % 5 {
                    break;
                }
            }
            let bonus = (steps / 2) as i64 * 10;
            let sign = if acc % 2 == 0 {
                acc / 2
            } else if acc % 3 == 0 {
                -acc
            } else {
                acc - 1
            };
            sign + bonus
        })
        .collect()
}

fn scan_input() -> Vec<u32> {
    (0..1000u32)
        .map(|i| i.wrapping_mul(2654435761) % 1000)
        .collect()
}
fn scan_expected() -> Vec<u64> {
    scan_input()
        .chunks(256)
        .flat_map(|c| {
            c.iter().scan(0u32, |acc, v| {
                *acc = acc.wrapping_add(*v);
                Some(u64::from(*acc))
            })
        })
        .collect()
}
const TR_W: u32 = 70;
const TR_H: u32 = 45;
fn transpose_input() -> Vec<f32> {
    (0..TR_W * TR_H).map(|i| i as f32).collect()
}
fn transpose_expected() -> Vec<u64> {
    let input = transpose_input();
    let mut out = vec![0.0f32; input.len()];
    for y in 0..TR_H {
        for x in 0..TR_W {
            out[(x * TR_H + y) as usize] = input[(y * TR_W + x) as usize];
        }
    }
    bits_f32(&out)
}
fn stencil_input() -> Vec<f32> {
    (0..1000)
        .map(|i| ((i * 7919) % 113) as f32 * 0.25)
        .collect()
}
fn stencil_expected() -> Vec<u64> {
    let input = stencil_input();
    let n = input.len() as i64;
    let out: Vec<f32> = (0..n)
        .map(|g| {
            let mut acc = 0.0f32;
            for o in 0..7 {
                let j = g + o - 3;
                acc += if (0..n).contains(&j) {
                    input[j as usize]
                } else {
                    0.0
                };
            }
            acc
        })
        .collect();
    bits_f32(&out)
}
fn histogram_input() -> Vec<u32> {
    (0..5000u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect()
}
fn histogram_expected() -> Vec<u64> {
    let mut bins = vec![0u64; 64];
    for v in histogram_input() {
        bins[(v % 64) as usize] += 1;
    }
    bins
}

type ScanKernel = fn(&Device, Launch, &mut Buffer<u32>, &Buffer<u32>) -> Result<(), Error>;
fn run_scan(dev: &Device, k: ScanKernel) -> Result<Vec<u64>, Error> {
    let input = dev.upload(&scan_input())?;
    let mut out = dev.zeros::<u32>(1000)?;
    k(dev, Launch::cover(1000, 256), &mut out, &input)?;
    Ok(out.to_vec()?.iter().map(|v| u64::from(*v)).collect())
}
type TransposeKernel =
    fn(&Device, Launch, &mut Buffer<f32>, &Buffer<f32>, u32, u32) -> Result<(), Error>;
fn run_transpose(dev: &Device, k: TransposeKernel) -> Result<Vec<u64>, Error> {
    let input = dev.upload(&transpose_input())?;
    let mut out = dev.zeros::<f32>((TR_W * TR_H) as usize)?;
    k(
        dev,
        Launch::new((TR_W.div_ceil(32), TR_H.div_ceil(32)), (32, 32)),
        &mut out,
        &input,
        TR_W,
        TR_H,
    )?;
    Ok(bits_f32(&out.to_vec()?))
}
type StencilKernel = fn(&Device, Launch, &mut Buffer<f32>, &Buffer<f32>) -> Result<(), Error>;
fn run_stencil(dev: &Device, k: StencilKernel) -> Result<Vec<u64>, Error> {
    let input = dev.upload(&stencil_input())?;
    let mut out = dev.zeros::<f32>(1000)?;
    k(dev, Launch::cover(1000, 256), &mut out, &input)?;
    Ok(bits_f32(&out.to_vec()?))
}
type HistogramKernel = fn(&Device, Launch, &mut Buffer<u32>, &Buffer<u32>) -> Result<(), Error>;
fn run_histogram(dev: &Device, k: HistogramKernel) -> Result<Vec<u64>, Error> {
    let data = dev.upload(&histogram_input())?;
    let mut bins = dev.zeros::<u32>(64)?;
    k(dev, Launch::new(8, 128), &mut bins, &data)?;
    Ok(bins.to_vec()?.iter().map(|v| u64::from(*v)).collect())
}

pub fn all() -> Vec<Case> {
    let mut cases = classic();
    cases.extend(original::cases());
    cases.extend(crate::edges::cases());
    cases.extend(crate::methods::cases());
    cases.extend(crate::structs::cases());
    cases.extend(crate::array_fields::cases());
    cases.extend(crate::vectors::cases());
    cases.extend(crate::specialize::cases());
    cases.extend(crate::options::cases());
    cases.extend(crate::arrays::cases());
    cases.extend(crate::ports::cases());
    cases.extend(crate::samples::cases());
    cases.extend(crate::apps::cases());
    cases.extend(crate::blocks::cases());
    cases.extend(crate::cfgs::cases());
    cases
}

/// The classic barrier kernels, as written and with `sync = "auto"` and no barriers.
fn classic() -> Vec<Case> {
    vec![
        Case {
            name: "scan",
            run: |d| run_scan(d, |d, l, o, i| classic::scan.launch(d, l, o, i)),
            expected: scan_expected,
        },
        Case {
            name: "scan_auto",
            run: |d| run_scan(d, |d, l, o, i| auto::scan_auto.launch(d, l, o, i)),
            expected: scan_expected,
        },
        Case {
            name: "transpose",
            run: |d| {
                run_transpose(d, |d, l, o, i, w, h| {
                    classic::transpose.launch(d, l, o, i, w, h)
                })
            },
            expected: transpose_expected,
        },
        Case {
            name: "transpose_auto",
            run: |d| {
                run_transpose(d, |d, l, o, i, w, h| {
                    auto::transpose_auto.launch(d, l, o, i, w, h)
                })
            },
            expected: transpose_expected,
        },
        Case {
            name: "stencil",
            run: |d| run_stencil(d, |d, l, o, i| classic::stencil.launch(d, l, o, i)),
            expected: stencil_expected,
        },
        Case {
            name: "stencil_auto",
            run: |d| run_stencil(d, |d, l, o, i| auto::stencil_auto.launch(d, l, o, i)),
            expected: stencil_expected,
        },
        Case {
            name: "histogram",
            run: |d| run_histogram(d, |d, l, b, x| classic::histogram.launch(d, l, b, x)),
            expected: histogram_expected,
        },
        Case {
            name: "histogram_auto",
            run: |d| run_histogram(d, |d, l, b, x| auto::histogram_auto.launch(d, l, b, x)),
            expected: histogram_expected,
        },
        Case {
            name: "reverse_auto",
            run: |dev| {
                let input = dev.upload(&reverse_input())?;
                let mut out = dev.zeros::<f32>(4096)?;
                auto::reverse_auto.launch(dev, Launch::cover(4096, 256), &mut out, &input)?;
                Ok(bits_f32(&out.to_vec()?))
            },
            expected: reverse_expected,
        },
        Case {
            name: "neighbor_reuse_auto",
            run: |dev| {
                let host = neighbor_input();
                let input = dev.upload(&host)?;
                let mut out = dev.zeros::<i32>(host.len())?;
                auto::neighbor_reuse_auto.launch(dev, Launch::new(8, 64), &mut out, &input)?;
                Ok(bits_i32(&out.to_vec()?))
            },
            expected: neighbor_expected,
        },
        Case {
            name: "tiled_matmul_auto",
            run: |dev| {
                let (a, b) = matmul_inputs();
                let (da, db) = (dev.upload(&a)?, dev.upload(&b)?);
                let mut dc = dev.zeros::<f32>(MATMUL_N * MATMUL_N)?;
                let tiles = (MATMUL_N as u32).div_ceil(16);
                auto::tiled_matmul_auto.launch(
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
            name: "block_reduce_auto",
            run: |dev| {
                let input = dev.upload(&reduce_input())?;
                let launch = Launch::cover(5000, 256);
                let mut partial = dev.zeros::<f32>(launch.grid.x as usize)?;
                auto::block_reduce_auto.launch(dev, launch, &mut partial, &input)?;
                Ok(bits_f32(&partial.to_vec()?))
            },
            expected: reduce_expected,
        },
        Case {
            name: "useless_barriers",
            run: |dev| {
                let mut out = dev.zeros::<u32>(300)?;
                auto::useless_barriers.launch(dev, Launch::cover(300, 128), &mut out)?;
                Ok(out.to_vec()?.iter().map(|v| u64::from(*v)).collect())
            },
            expected: || (0..300).collect(),
        },
    ]
}

fn reverse_expected() -> Vec<u64> {
    bits_f32(
        &reverse_input()
            .chunks(256)
            .flat_map(|c| c.iter().rev().copied())
            .collect::<Vec<_>>(),
    )
}

fn neighbor_expected() -> Vec<u64> {
    let host = neighbor_input();
    let v: Vec<i32> = host
        .chunks(256)
        .flat_map(|c| (0..256).map(move |i| c[i].wrapping_add(c[(i + 1) % 256])))
        .collect();
    bits_i32(&v)
}

fn matmul_expected() -> Vec<u64> {
    let (a, b) = matmul_inputs();
    let n = MATMUL_N;
    let mut c = vec![0.0f32; n * n];
    for row in 0..n {
        for col in 0..n {
            let mut acc = 0.0f32;
            for k in 0..n.div_ceil(16) * 16 {
                let (x, y) = if k < n {
                    (a[row * n + k], b[k * n + col])
                } else {
                    (0.0, 0.0)
                };
                acc += x * y;
            }
            c[row * n + col] = acc;
        }
    }
    bits_f32(&c)
}

/// Block sums of `input` in blocks of `n`, in the tree order of the reduction kernels (on the
/// host, so the float sums are the same).
fn tree_sums(input: &[f32], n: usize) -> Vec<f32> {
    input
        .chunks(n)
        .map(|c| {
            let mut buf = vec![0.0f32; n];
            buf[..c.len()].copy_from_slice(c);
            let mut s = n / 2;
            while s > 0 {
                for t in 0..s {
                    buf[t] += buf[t + s];
                }
                s /= 2;
            }
            buf[0]
        })
        .collect()
}

fn reduce_expected() -> Vec<u64> {
    bits_f32(&tree_sums(&reduce_input(), 256))
}
