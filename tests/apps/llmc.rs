//! The cases of the llm.c kernels (`tests/in/apps/llmc*.rs`).

use super::{bits_f32, lcg, within};
use crate::cases::Case;
use crate::kernels::llmc;
use cuphase::prelude::*;

/// The llm.c kernels, for the NVRTC tier.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            llmc::softmax_forward_kernel1.name(),
            llmc::softmax_forward_kernel1.cuda_source(),
        ),
        (
            llmc::softmax_forward_kernel2.name(),
            llmc::softmax_forward_kernel2.cuda_source(),
        ),
        (
            llmc::softmax_forward_kernel3.name(),
            llmc::softmax_forward_kernel3.cuda_source(),
        ),
        (
            llmc::softmax_forward_kernel4.name(),
            llmc::softmax_forward_kernel4.cuda_source(),
        ),
        (
            llmc::softmax_forward_online_kernel1.name(),
            llmc::softmax_forward_online_kernel1.cuda_source(),
        ),
        (
            llmc::layernorm_forward_kernel1.name(),
            llmc::layernorm_forward_kernel1.cuda_source(),
        ),
        (llmc::mean_kernel.name(), llmc::mean_kernel.cuda_source()),
        (llmc::rstd_kernel.name(), llmc::rstd_kernel.cuda_source()),
        (
            llmc::normalization_kernel.name(),
            llmc::normalization_kernel.cuda_source(),
        ),
    ]
}

pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "llmc_softmax1",
            run: |dev| {
                run_softmax(dev, |dev, out, inp| {
                    let launch = Launch::new((SM_N as u32).div_ceil(4), 4);
                    llmc::softmax_forward_kernel1.launch(
                        dev,
                        launch,
                        out,
                        inp,
                        SM_N as i32,
                        SM_C as i32,
                    )
                })
            },
            expected: softmax_expected,
        },
        Case {
            name: "llmc_softmax2",
            run: |dev| {
                run_softmax(dev, |dev, out, inp| {
                    let launch = Launch::new(SM_N as u32, 64).shared_bytes(64 * 4);
                    llmc::softmax_forward_kernel2.launch(
                        dev,
                        launch,
                        out,
                        inp,
                        SM_N as i32,
                        SM_C as i32,
                    )
                })
            },
            expected: softmax_expected,
        },
        Case {
            name: "llmc_softmax3",
            run: |dev| {
                run_softmax(dev, |dev, out, inp| {
                    let launch = Launch::new(SM_N as u32, 32);
                    llmc::softmax_forward_kernel3.launch(
                        dev,
                        launch,
                        out,
                        inp,
                        SM_N as i32,
                        SM_C as i32,
                    )
                })
            },
            expected: softmax_expected,
        },
        Case {
            name: "llmc_softmax4",
            run: |dev| {
                run_softmax(dev, |dev, out, inp| {
                    let launch = Launch::new(SM_N as u32, 128).shared_bytes(128 / 32 * 4);
                    llmc::softmax_forward_kernel4.launch(
                        dev,
                        launch,
                        out,
                        inp,
                        SM_N as i32,
                        SM_C as i32,
                    )
                })
            },
            expected: softmax_expected,
        },
        Case {
            name: "llmc_softmax_online1",
            run: |dev| {
                run_softmax(dev, |dev, out, inp| {
                    let launch = Launch::new((SM_N as u32).div_ceil(4), 4);
                    llmc::softmax_forward_online_kernel1.launch(
                        dev,
                        launch,
                        out,
                        inp,
                        SM_N as i32,
                        SM_C as i32,
                    )
                })
            },
            expected: softmax_expected,
        },
        Case {
            name: "llmc_layernorm1",
            run: run_layernorm1,
            expected: layernorm1_expected,
        },
        Case {
            name: "llmc_layernorm2",
            run: run_layernorm2,
            expected: layernorm2_expected,
        },
    ]
}

// softmax: `SM_N` rows of `SM_C` logits (not a multiple of the blocks' widths).
const SM_N: usize = 10;
const SM_C: usize = 100;

fn softmax_input() -> Vec<f32> {
    lcg(41, SM_N * SM_C)
        .iter()
        .map(|v| (v % 8001) as f32 / 1000.0 - 4.0)
        .collect()
}

type SoftmaxLaunch = fn(&Device, &mut Buffer<f32>, &Buffer<f32>) -> Result<(), Error>;

/// The kernels' `expf` is CUDA's or the host's: each output is checked within 1e-5 of the
/// exact softmax (in `f64`) and the case compares the flags.
fn run_softmax(dev: &Device, launch: SoftmaxLaunch) -> Result<Vec<u64>, Error> {
    let inp = dev.upload(&softmax_input())?;
    let mut out = dev.zeros::<f32>(SM_N * SM_C)?;
    launch(dev, &mut out, &inp)?;
    let want: Vec<f64> = softmax_input()
        .chunks(SM_C)
        .flat_map(|row| {
            let max = row.iter().fold(f32::NEG_INFINITY, |m, v| m.max(*v));
            let e: Vec<f64> = row.iter().map(|v| f64::from(v - max).exp()).collect();
            let sum: f64 = e.iter().sum();
            e.into_iter().map(move |v| v / sum)
        })
        .collect();
    Ok(within(&out.to_vec()?, &want, 1e-5, 1e-9))
}

fn softmax_expected() -> Vec<u64> {
    vec![0; SM_N * SM_C]
}

// layernorm: `LN_B` x `LN_T` rows of `LN_C` channels; `LN_B * LN_T * LN_C` is a multiple of
// 256, as `normalization_kernel` (which has no bounds check) needs.
const LN_B: usize = 2;
const LN_T: usize = 4;
const LN_C: usize = 96;

fn layernorm_inputs() -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let n = LN_B * LN_T;
    let inp = lcg(43, n * LN_C)
        .iter()
        .map(|v| (v % 2001) as f32 / 500.0 - 2.0)
        .collect();
    let weight = lcg(47, LN_C)
        .iter()
        .map(|v| (v % 1001) as f32 / 1000.0 + 0.5)
        .collect();
    let bias = lcg(53, LN_C)
        .iter()
        .map(|v| (v % 1001) as f32 / 1000.0 - 0.5)
        .collect();
    (inp, weight, bias)
}

fn layernorm_outputs(
    out: &Buffer<f32>,
    mean: &Buffer<f32>,
    rstd: &Buffer<f32>,
) -> Result<Vec<u64>, Error> {
    let mut v = bits_f32(&out.to_vec()?);
    v.extend(bits_f32(&mean.to_vec()?));
    v.extend(bits_f32(&rstd.to_vec()?));
    Ok(v)
}

fn run_layernorm1(dev: &Device) -> Result<Vec<u64>, Error> {
    let n = LN_B * LN_T;
    let (inp, weight, bias) = layernorm_inputs();
    let (inp, weight, bias) = (dev.upload(&inp)?, dev.upload(&weight)?, dev.upload(&bias)?);
    let mut out = dev.zeros::<f32>(n * LN_C)?;
    let (mut mean, mut rstd) = (dev.zeros::<f32>(n)?, dev.zeros::<f32>(n)?);
    llmc::layernorm_forward_kernel1.launch(
        dev,
        Launch::new((n as u32).div_ceil(3), 3),
        &mut out,
        &mut mean,
        &mut rstd,
        &inp,
        &weight,
        &bias,
        n as i32,
        LN_C as i32,
    )?;
    layernorm_outputs(&out, &mean, &rstd)
}

/// `layernorm_forward_cpu` of layernorm_forward.cu, sums in order (as kernel 1 makes them).
fn layernorm1_expected() -> Vec<u64> {
    let (inp, weight, bias) = layernorm_inputs();
    let (mut out, mut means, mut rstds) = (Vec::new(), Vec::new(), Vec::new());
    for x in inp.chunks(LN_C) {
        let mut m = 0.0f32;
        for v in x {
            m += v;
        }
        m /= LN_C as f32;
        let mut var = 0.0f32;
        for v in x {
            var += (v - m) * (v - m);
        }
        var /= LN_C as f32;
        let s = 1.0 / (var + 1e-5).sqrt();
        out.extend(
            x.iter()
                .enumerate()
                .map(|(i, v)| s * (v - m) * weight[i] + bias[i]),
        );
        means.push(m);
        rstds.push(s);
    }
    let mut v = bits_f32(&out);
    v.extend(bits_f32(&means));
    v.extend(bits_f32(&rstds));
    v
}

/// `layernorm_forward2` of layernorm_forward.cu: mean, rstd (blocks of 64 threads), then the
/// flattened normalisation (blocks of 256).
fn run_layernorm2(dev: &Device) -> Result<Vec<u64>, Error> {
    let n = LN_B * LN_T;
    let block_size = 64u32;
    let (inp, weight, bias) = layernorm_inputs();
    let (inp, weight, bias) = (dev.upload(&inp)?, dev.upload(&weight)?, dev.upload(&bias)?);
    let mut out = dev.zeros::<f32>(n * LN_C)?;
    let (mut mean, mut rstd) = (dev.zeros::<f32>(n)?, dev.zeros::<f32>(n)?);
    let reduce = Launch::new(n as u32, block_size).shared_bytes(block_size * 4);
    let c = LN_C as i32;
    llmc::mean_kernel.launch(dev, reduce, &mut mean, &inp, n as i32, c, block_size as i32)?;
    llmc::rstd_kernel.launch(
        dev,
        reduce,
        &mut rstd,
        &inp,
        &mean,
        n as i32,
        c,
        block_size as i32,
    )?;
    llmc::normalization_kernel.launch(
        dev,
        Launch::new((n * LN_C).div_ceil(256) as u32, 256),
        &mut out,
        &inp,
        &mean,
        &rstd,
        &weight,
        &bias,
        LN_B as i32,
        LN_T as i32,
        c,
    )?;
    layernorm_outputs(&out, &mean, &rstd)
}

/// The sum of `vals` as a block of `block` threads makes it: strided partial sums per thread,
/// then the tree of halving strides in shared memory.
pub(crate) fn block_tree_sum(vals: &[f32], block: usize) -> f32 {
    let mut shared: Vec<f32> = (0..block)
        .map(|t| {
            vals.iter()
                .skip(t)
                .step_by(block)
                .fold(0.0f32, |a, v| a + v)
        })
        .collect();
    let mut stride = block / 2;
    while stride >= 1 {
        for t in 0..stride {
            shared[t] += shared[t + stride];
        }
        stride /= 2;
    }
    shared[0]
}

fn layernorm2_expected() -> Vec<u64> {
    let (inp, weight, bias) = layernorm_inputs();
    let (mut out, mut means, mut rstds) = (Vec::new(), Vec::new(), Vec::new());
    for x in inp.chunks(LN_C) {
        let m = block_tree_sum(x, 64) / LN_C as f32;
        let sq: Vec<f32> = x.iter().map(|v| (v - m) * (v - m)).collect();
        let s = 1.0 / (block_tree_sum(&sq, 64) / LN_C as f32 + 1e-5).sqrt();
        out.extend(
            x.iter()
                .enumerate()
                .map(|(i, v)| s * (v - m) * weight[i] + bias[i]),
        );
        means.push(m);
        rstds.push(s);
    }
    let mut v = bits_f32(&out);
    v.extend(bits_f32(&means));
    v.extend(bits_f32(&rstds));
    v
}
