//! The cases of the llm.c kernels (`tests/in/apps/llmc*.rs`).

use super::{bits_f32, lcg, within};
use crate::cases::Case;
use crate::kernels::{llmc, llmc_train};
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
            llmc::softmax_forward_online_kernel8.name(),
            llmc::softmax_forward_online_kernel8.cuda_source(),
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
        (
            llmc::layernorm_forward_kernel3.name(),
            llmc::layernorm_forward_kernel3.cuda_source(),
        ),
        (
            llmc_train::gelu_forward_kernel1.name(),
            llmc_train::gelu_forward_kernel1.cuda_source(),
        ),
        (
            llmc_train::attention_query_key_kernel1.name(),
            llmc_train::attention_query_key_kernel1.cuda_source(),
        ),
        (
            llmc_train::attention_softmax_kernel1.name(),
            llmc_train::attention_softmax_kernel1.cuda_source(),
        ),
        (
            llmc_train::attention_value_kernel1.name(),
            llmc_train::attention_value_kernel1.cuda_source(),
        ),
        (
            llmc_train::crossentropy_forward_kernel1.name(),
            llmc_train::crossentropy_forward_kernel1.cuda_source(),
        ),
        (
            llmc_train::crossentropy_softmax_backward_kernel1.name(),
            llmc_train::crossentropy_softmax_backward_kernel1.cuda_source(),
        ),
        (
            llmc_train::adamw_kernel1.name(),
            llmc_train::adamw_kernel1.cuda_source(),
        ),
        (
            llmc_train::adamw_kernel2.name(),
            llmc_train::adamw_kernel2.cuda_source(),
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
            name: "llmc_softmax_online8",
            run: |dev| {
                run_softmax(dev, |dev, out, inp| {
                    // `softmax_forward_online8`: one warp per row.
                    let launch = Launch::new((SM_N as u32 * 32).div_ceil(64), 64);
                    llmc::softmax_forward_online_kernel8.launch(
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
        Case {
            name: "llmc_layernorm3",
            run: run_layernorm3,
            expected: layernorm3_expected,
        },
        Case {
            name: "llmc_gelu1",
            run: run_gelu,
            expected: gelu_expected,
        },
        Case {
            name: "llmc_attention1",
            run: run_attention,
            expected: attention_expected,
        },
        Case {
            name: "llmc_crossentropy1",
            run: run_crossentropy,
            expected: crossentropy_expected,
        },
        Case {
            name: "llmc_adamw1",
            run: |dev| run_adamw(dev, false),
            expected: || adamw_expected(false),
        },
        Case {
            name: "llmc_adamw2",
            run: |dev| run_adamw(dev, true),
            expected: || adamw_expected(true),
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

// layernorm kernel 3: the first `LN3_N` rows, two warps (rows) per block, so that the last
// block's second warp has no row and returns.
const LN3_N: usize = 7;

fn run_layernorm3(dev: &Device) -> Result<Vec<u64>, Error> {
    let (inp, weight, bias) = layernorm_inputs();
    let inp = dev.upload(&inp[..LN3_N * LN_C])?;
    let (weight, bias) = (dev.upload(&weight)?, dev.upload(&bias)?);
    let mut out = dev.zeros::<f32>(LN3_N * LN_C)?;
    let (mut mean, mut rstd) = (dev.zeros::<f32>(LN3_N)?, dev.zeros::<f32>(LN3_N)?);
    llmc::layernorm_forward_kernel3.launch(
        dev,
        Launch::new((LN3_N as u32).div_ceil(2), 64),
        &mut out,
        &mut mean,
        &mut rstd,
        &inp,
        &weight,
        &bias,
        LN3_N as i32,
        LN_C as i32,
    )?;
    layernorm_outputs(&out, &mean, &rstd)
}

/// The sum of `vals` as a warp makes it with `warpReduceSum`: strided partial sums per lane,
/// then the butterfly (lane `l` adds lane `l ^ offset`; every lane ends with lane 0's value).
fn warp_butterfly_sum(vals: &[f32]) -> f32 {
    let mut lanes: Vec<f32> = (0..32)
        .map(|l| vals.iter().skip(l).step_by(32).fold(0.0f32, |a, v| a + v))
        .collect();
    let mut offset = 16;
    while offset > 0 {
        lanes = (0..32).map(|l| lanes[l] + lanes[l ^ offset]).collect();
        offset /= 2;
    }
    lanes[0]
}

fn layernorm3_expected() -> Vec<u64> {
    let (inp, weight, bias) = layernorm_inputs();
    let (mut out, mut means, mut rstds) = (Vec::new(), Vec::new(), Vec::new());
    for x in inp[..LN3_N * LN_C].chunks(LN_C) {
        let m = warp_butterfly_sum(x) / LN_C as f32;
        let sq: Vec<f32> = x.iter().map(|v| (v - m) * (v - m)).collect();
        let s = 1.0 / (warp_butterfly_sum(&sq) / LN_C as f32 + 1e-5).sqrt();
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

// gelu: `GELU_N` values in [-5, 5], blocks of 128 (the last one partial); checked within a
// tolerance of the exact GELU (f64), then bit for bit against the same f32 arithmetic on the
// host with cuphase's `tanh` (the one both back ends compute).
const GELU_N: usize = 1000;

fn gelu_input() -> Vec<f32> {
    lcg(59, GELU_N)
        .iter()
        .map(|v| (v % 10001) as f32 / 1000.0 - 5.0)
        .collect()
}

/// The flags of `within` (all 0), then the kernel's bits as the host computes them in the
/// kernel's order.
fn gelu_expected() -> Vec<u64> {
    let g = ((2.0f32 as f64 / std::f64::consts::PI) as f32).sqrt();
    let mut v = vec![0; GELU_N];
    v.extend(gelu_input().iter().map(|&x| {
        let cube = 0.044715f32 * x * x * x;
        let y = 0.5f32 * x * (1.0f32 + cuphase_compiler::math::libm::tanh_f32(g * (x + cube)));
        u64::from(y.to_bits())
    }));
    v
}

fn run_gelu(dev: &Device) -> Result<Vec<u64>, Error> {
    let x = gelu_input();
    let inp = dev.upload(&x)?;
    let mut out = dev.zeros::<f32>(GELU_N)?;
    llmc_train::gelu_forward_kernel1.launch(
        dev,
        Launch::new((GELU_N as u32).div_ceil(128), 128),
        &mut out,
        &inp,
        GELU_N as i32,
    )?;
    let s = (2.0 / std::f64::consts::PI).sqrt();
    let want: Vec<f64> = x
        .iter()
        .map(|&x| {
            let x = f64::from(x);
            0.5 * x * (1.0 + (s * (x + 0.044715 * x * x * x)).tanh())
        })
        .collect();
    let got = out.to_vec()?;
    let mut v = within(&got, &want, 1e-5, 1e-6);
    v.extend(bits_f32(&got));
    Ok(v)
}

// attention: B = 2, T = 8, C = 16, NH = 2 (head size 8), blocks of 96 threads (partial).
const AT_B: usize = 2;
const AT_T: usize = 8;
const AT_C: usize = 16;
const AT_NH: usize = 2;

fn attention_input() -> Vec<f32> {
    lcg(61, AT_B * AT_T * 3 * AT_C)
        .iter()
        .map(|v| (v % 2001) as f32 / 1000.0 - 1.0)
        .collect()
}

/// `preatt` as the kernel computes it: the dot product in order, then the `double` scaling.
fn attention_preatt() -> Vec<f32> {
    let inp = attention_input();
    let (t_len, c, nh) = (AT_T, AT_C, AT_NH);
    let hs = c / nh;
    let mut preatt = vec![0.0f32; AT_B * nh * t_len * t_len];
    for (idx, p) in preatt.iter_mut().enumerate() {
        let (t2, t) = (idx % t_len, (idx / t_len) % t_len);
        let (h, b) = ((idx / (t_len * t_len)) % nh, idx / (nh * t_len * t_len));
        if t2 > t {
            *p = f32::NEG_INFINITY;
            continue;
        }
        let q = b * t_len * 3 * c + t * 3 * c + h * hs;
        let k = b * t_len * 3 * c + t2 * 3 * c + h * hs + c;
        let mut val = 0.0f32;
        for i in 0..hs {
            val += inp[q + i] * inp[k + i];
        }
        *p = (f64::from(val) * (1.0 / f64::from((hs as f32).sqrt()))) as f32;
    }
    preatt
}

/// `attention_forward1`: the three kernels; `preatt` is compared exactly, `att` within a
/// tolerance of the host's softmax (it uses `expf`), and `out` exactly against the host's
/// weighted sums of the device's `att`.
fn run_attention(dev: &Device) -> Result<Vec<u64>, Error> {
    let (b, t, c, nh) = (AT_B as i32, AT_T as i32, AT_C as i32, AT_NH as i32);
    let x = attention_input();
    let inp = dev.upload(&x)?;
    let mut preatt = dev.zeros::<f32>(AT_B * AT_NH * AT_T * AT_T)?;
    let mut att = dev.zeros::<f32>(AT_B * AT_NH * AT_T * AT_T)?;
    let mut out = dev.zeros::<f32>(AT_B * AT_T * AT_C)?;
    let block = 96u32;
    let grid = |total: usize| Launch::new((total as u32).div_ceil(block), block);
    llmc_train::attention_query_key_kernel1.launch(
        dev,
        grid(AT_B * AT_NH * AT_T * AT_T),
        &mut preatt,
        &inp,
        b,
        t,
        c,
        nh,
    )?;
    llmc_train::attention_softmax_kernel1.launch(
        dev,
        grid(AT_B * AT_T * AT_NH),
        &mut att,
        &preatt,
        b,
        t,
        nh,
    )?;
    llmc_train::attention_value_kernel1.launch(
        dev,
        grid(AT_B * AT_T * AT_NH),
        &mut out,
        &att,
        &inp,
        b,
        t,
        c,
        nh,
    )?;
    let (att, out) = (att.to_vec()?, out.to_vec()?);
    let host_preatt = attention_preatt();
    let t_len = AT_T;
    let want_att: Vec<f64> = host_preatt
        .chunks(t_len)
        .enumerate()
        .flat_map(|(row, p)| {
            let t = row % t_len;
            let max = p[..=t].iter().fold(f32::MIN, |m, v| m.max(*v));
            let e: Vec<f64> = (0..t_len)
                .map(|t2| {
                    if t2 <= t {
                        f64::from(p[t2] - max).exp()
                    } else {
                        0.0
                    }
                })
                .collect();
            let sum: f64 = e.iter().sum();
            e.into_iter().map(move |v| v / sum)
        })
        .collect();
    let hs = AT_C / AT_NH;
    let mut want_out = vec![0.0f32; out.len()];
    for idx in 0..AT_B * AT_T * AT_NH {
        let (h, t, bb) = (idx % AT_NH, (idx / AT_NH) % t_len, idx / (AT_NH * t_len));
        let o = bb * t_len * AT_C + t * AT_C + h * hs;
        let a = bb * AT_NH * t_len * t_len + h * t_len * t_len + t * t_len;
        for t2 in 0..=t {
            let v = bb * t_len * 3 * AT_C + t2 * 3 * AT_C + h * hs + 2 * AT_C;
            for i in 0..hs {
                want_out[o + i] += att[a + t2] * x[v + i];
            }
        }
    }
    let mut result = bits_f32(&preatt.to_vec()?);
    result.extend(within(&att, &want_att, 1e-5, 1e-9));
    result.extend(
        out.iter()
            .zip(&want_out)
            .map(|(g, w)| u64::from(g.to_bits() != w.to_bits())),
    );
    Ok(result)
}

fn attention_expected() -> Vec<u64> {
    let mut v = bits_f32(&attention_preatt());
    v.extend(vec![0; AT_B * AT_NH * AT_T * AT_T + AT_B * AT_T * AT_C]);
    v
}

// crossentropy: B = 2, T = 5, V = 37; the losses (`logf`) within a tolerance, the gradients
// (accumulated into non-zero `dlogits`) exactly.
const CE_B: usize = 2;
const CE_T: usize = 5;
const CE_V: usize = 37;

fn crossentropy_inputs() -> (Vec<f32>, Vec<i32>, Vec<f32>, Vec<f32>) {
    let probs = lcg(67, CE_B * CE_T * CE_V)
        .iter()
        .map(|v| ((v % 1000) as f32 + 1.0) / 1000.0)
        .collect();
    let targets = lcg(71, CE_B * CE_T)
        .iter()
        .map(|v| (v % CE_V as u32) as i32)
        .collect();
    let dlosses = lcg(73, CE_B * CE_T)
        .iter()
        .map(|v| (v % 100) as f32 / 1000.0)
        .collect();
    let dlogits = bits_to_f32_range(79, CE_B * CE_T * CE_V);
    (probs, targets, dlosses, dlogits)
}

fn bits_to_f32_range(seed: u32, n: usize) -> Vec<f32> {
    lcg(seed, n)
        .iter()
        .map(|v| (v % 2001) as f32 / 1000.0 - 1.0)
        .collect()
}

fn run_crossentropy(dev: &Device) -> Result<Vec<u64>, Error> {
    let (probs, targets, dlosses, dlogits) = crossentropy_inputs();
    let (b, t, v) = (CE_B as i32, CE_T as i32, CE_V as i32);
    let (probs_d, targets_d) = (dev.upload(&probs)?, dev.upload(&targets)?);
    let dlosses = dev.upload(&dlosses)?;
    let mut dlogits = dev.upload(&dlogits)?;
    let mut losses = dev.zeros::<f32>(CE_B * CE_T)?;
    llmc_train::crossentropy_forward_kernel1.launch(
        dev,
        Launch::new(2, 8),
        &mut losses,
        &probs_d,
        &targets_d,
        b,
        t,
        v,
    )?;
    llmc_train::crossentropy_softmax_backward_kernel1.launch(
        dev,
        Launch::new(((CE_B * CE_T * CE_V) as u32).div_ceil(64), 64),
        &mut dlogits,
        &dlosses,
        &probs_d,
        &targets_d,
        b,
        t,
        v,
    )?;
    let want: Vec<f64> = (0..CE_B * CE_T)
        .map(|bt| -f64::from(probs[bt * CE_V + targets[bt] as usize]).ln())
        .collect();
    let mut out = within(&losses.to_vec()?, &want, 1e-6, 1e-9);
    out.extend(bits_f32(&dlogits.to_vec()?));
    Ok(out)
}

fn crossentropy_expected() -> Vec<u64> {
    let (probs, targets, dlosses, mut dlogits) = crossentropy_inputs();
    for (i, d) in dlogits.iter_mut().enumerate() {
        let (bt, v) = (i / CE_V, i % CE_V);
        let indicator = if v as i32 == targets[bt] { 1.0 } else { 0.0 };
        *d += (probs[i] - indicator) * dlosses[bt];
    }
    let mut out = vec![0; CE_B * CE_T];
    out.extend(bits_f32(&dlogits));
    out
}

// adamw: `AW_N` parameters, blocks of 128 (the last one partial), step 3.
const AW_N: usize = 1000;
const AW_LR: f32 = 1e-3;
const AW_BETAS: (f32, f32) = (0.9, 0.999);
const AW_EPS: f32 = 1e-8;
const AW_DECAY: f32 = 0.01;

fn adamw_inputs() -> [Vec<f32>; 4] {
    [
        bits_to_f32_range(83, AW_N),
        bits_to_f32_range(89, AW_N),
        bits_to_f32_range(97, AW_N)
            .iter()
            .map(|v| v * 0.1)
            .collect(),
        bits_to_f32_range(101, AW_N)
            .iter()
            .map(|v| v.abs() * 0.01)
            .collect(),
    ]
}

/// The bias corrections of step 3, computed on the host as `adamw.cu` does.
fn adamw_corrections() -> (f32, f32) {
    (1.0 - AW_BETAS.0.powi(3), 1.0 - AW_BETAS.1.powi(3))
}

fn run_adamw(dev: &Device, lerp: bool) -> Result<Vec<u64>, Error> {
    let [params, grads, m, v] = adamw_inputs();
    let mut params = dev.upload(&params)?;
    let grads = dev.upload(&grads)?;
    let (mut m, mut v) = (dev.upload(&m)?, dev.upload(&v)?);
    let (c1, c2) = adamw_corrections();
    let launch = Launch::new((AW_N as u32).div_ceil(128), 128);
    if lerp {
        llmc_train::adamw_kernel2.launch(
            dev,
            launch,
            &mut params,
            &grads,
            &mut m,
            &mut v,
            AW_N as i64,
            AW_LR,
            AW_BETAS.0,
            AW_BETAS.1,
            c1,
            c2,
            AW_EPS,
            AW_DECAY,
        )?;
    } else {
        llmc_train::adamw_kernel1.launch(
            dev,
            launch,
            &mut params,
            &grads,
            &mut m,
            &mut v,
            AW_N as i64,
            AW_LR,
            AW_BETAS.0,
            AW_BETAS.1,
            c1,
            c2,
            AW_EPS,
            AW_DECAY,
        )?;
    }
    let mut out = bits_f32(&params.to_vec()?);
    out.extend(bits_f32(&m.to_vec()?));
    out.extend(bits_f32(&v.to_vec()?));
    Ok(out)
}

/// `adamw_cpu` of adamw.cu in each kernel's arithmetic (kernel 2's `lerp` is two fused
/// multiply-adds).
fn adamw_expected(lerp: bool) -> Vec<u64> {
    let [mut params, grads, mut m, mut v] = adamw_inputs();
    let (beta1, beta2) = AW_BETAS;
    let (c1, c2) = adamw_corrections();
    let fma_lerp = |start: f32, end: f32, w: f32| w.mul_add(end, (-w).mul_add(start, start));
    for i in 0..AW_N {
        let g = grads[i];
        if lerp {
            m[i] = fma_lerp(g, m[i], beta1);
            v[i] = fma_lerp(g * g, v[i], beta2);
        } else {
            m[i] = beta1 * m[i] + (1.0 - beta1) * g;
            v[i] = beta2 * v[i] + (1.0 - beta2) * g * g;
        }
        let (m_hat, v_hat) = (m[i] / c1, v[i] / c2);
        params[i] -= AW_LR * (m_hat / (v_hat.sqrt() + AW_EPS) + AW_DECAY * params[i]);
    }
    let mut out = bits_f32(&params);
    out.extend(bits_f32(&m));
    out.extend(bits_f32(&v));
    out
}
