//! The math methods: one definition, so the simulator and the GPU give the same bits for
//! every input (the simulator's results are the library's, computed here directly; the GPU's
//! are compared with them bit for bit over a few million inputs a function).

use cuphase::prelude::*;
use cuphase_compiler::math::libm as m;

/// Outputs per input of [`math_f32`] and [`math_f64`].
const OUTPUTS: usize = 23;

/// Every math method on `f32`, 23 outputs per input.
#[kernel]
pub fn math_f32(out: &mut [f32], xs: &[f32], ys: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let (x, y) = (xs[i], ys[i]);
        let o = i * 23;
        out[o + 0] = x.exp();
        out[o + 1] = x.exp2();
        out[o + 2] = x.exp_m1();
        out[o + 3] = x.ln();
        out[o + 4] = x.log2();
        out[o + 5] = x.log10();
        out[o + 6] = x.ln_1p();
        out[o + 7] = x.sin();
        out[o + 8] = x.cos();
        out[o + 9] = x.tan();
        out[o + 10] = x.tanh();
        out[o + 11] = x.sinh();
        out[o + 12] = x.cosh();
        out[o + 13] = x.asinh();
        out[o + 14] = x.acosh();
        out[o + 15] = x.atanh();
        out[o + 16] = x.asin();
        out[o + 17] = x.acos();
        out[o + 18] = x.atan();
        out[o + 19] = x.cbrt();
        out[o + 20] = x.atan2(y);
        out[o + 21] = x.powf(y);
        out[o + 22] = x.hypot(y);
    }
}

/// Every math method on `f64`, 23 outputs per input.
#[kernel]
pub fn math_f64(out: &mut [f64], xs: &[f64], ys: &[f64]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let (x, y) = (xs[i], ys[i]);
        let o = i * 23;
        out[o + 0] = x.exp();
        out[o + 1] = x.exp2();
        out[o + 2] = x.exp_m1();
        out[o + 3] = x.ln();
        out[o + 4] = x.log2();
        out[o + 5] = x.log10();
        out[o + 6] = x.ln_1p();
        out[o + 7] = x.sin();
        out[o + 8] = x.cos();
        out[o + 9] = x.tan();
        out[o + 10] = x.tanh();
        out[o + 11] = x.sinh();
        out[o + 12] = x.cosh();
        out[o + 13] = x.asinh();
        out[o + 14] = x.acosh();
        out[o + 15] = x.atanh();
        out[o + 16] = x.asin();
        out[o + 17] = x.acos();
        out[o + 18] = x.atan();
        out[o + 19] = x.cbrt();
        out[o + 20] = x.atan2(y);
        out[o + 21] = x.powf(y);
        out[o + 22] = x.hypot(y);
    }
}

/// The library's unary functions, in the kernels' output order.
const UNARY_F32: [fn(f32) -> f32; 20] = [
    m::exp_f32,
    m::exp2_f32,
    m::exp_m1_f32,
    m::ln_f32,
    m::log2_f32,
    m::log10_f32,
    m::ln_1p_f32,
    m::sin_f32,
    m::cos_f32,
    m::tan_f32,
    m::tanh_f32,
    m::sinh_f32,
    m::cosh_f32,
    m::asinh_f32,
    m::acosh_f32,
    m::atanh_f32,
    m::asin_f32,
    m::acos_f32,
    m::atan_f32,
    m::cbrt_f32,
];
const UNARY_F64: [fn(f64) -> f64; 20] = [
    m::exp_f64,
    m::exp2_f64,
    m::exp_m1_f64,
    m::ln_f64,
    m::log2_f64,
    m::log10_f64,
    m::ln_1p_f64,
    m::sin_f64,
    m::cos_f64,
    m::tan_f64,
    m::tanh_f64,
    m::sinh_f64,
    m::cosh_f64,
    m::asinh_f64,
    m::acosh_f64,
    m::atanh_f64,
    m::asin_f64,
    m::acos_f64,
    m::atan_f64,
    m::cbrt_f64,
];
const BINARY_F32: [fn(f32, f32) -> f32; 3] = [m::atan2_f32, m::powf_f32, m::hypot_f32];
const BINARY_F64: [fn(f64, f64) -> f64; 3] = [m::atan2_f64, m::powf_f64, m::hypot_f64];
const NAMES: [&str; OUTPUTS] = [
    "exp", "exp2", "exp_m1", "ln", "log2", "log10", "ln_1p", "sin", "cos", "tan", "tanh", "sinh",
    "cosh", "asinh", "acosh", "atanh", "asin", "acos", "atan", "cbrt", "atan2", "powf", "hypot",
];

/// Inputs for both arguments: the edge values in every pair, then random bit patterns and
/// random values in the ranges where the functions are not constant.
fn inputs<T: Copy>(
    n: usize,
    edges: &[T],
    bits: impl Fn(u64) -> T,
    scaled: impl Fn(f64) -> T,
) -> (Vec<T>, Vec<T>) {
    let (mut xs, mut ys) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for &a in edges {
        for &b in edges {
            xs.push(a);
            ys.push(b);
        }
    }
    let mut s = 0x243f_6a88_85a3_08d3u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    while xs.len() < n {
        let (r, q) = (next(), next());
        let unit = |v: u64| (v >> 11) as f64 / (1u64 << 53) as f64;
        match r % 4 {
            0 => {
                xs.push(bits(r));
                ys.push(bits(q));
            }
            1 => {
                xs.push(scaled(unit(r) * 20.0 - 10.0));
                ys.push(scaled(unit(q) * 20.0 - 10.0));
            }
            2 => {
                xs.push(scaled(unit(r) * 2.0 - 1.0));
                ys.push(scaled(unit(q) * 100.0 - 50.0));
            }
            _ => {
                xs.push(scaled((unit(r) * 2.0 - 1.0) * 800.0));
                ys.push(scaled(unit(q) * 4.0 - 2.0));
            }
        }
    }
    (xs, ys)
}

const EDGES_F32: [f32; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    -3.0,
    1e-40,
    -1e-45,
    f32::MAX,
    f32::MIN_POSITIVE,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    88.7,
    -103.9,
];
const EDGES_F64: [f64; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    -3.0,
    5e-324,
    -1e-310,
    f64::MAX,
    f64::MIN_POSITIVE,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    709.8,
    -745.1,
];

fn f32_inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    inputs(n, &EDGES_F32, |b| f32::from_bits(b as u32), |v| v as f32)
}

fn f64_inputs(n: usize) -> (Vec<f64>, Vec<f64>) {
    inputs(n, &EDGES_F64, f64::from_bits, |v| v)
}

/// Equal bits, or both NaN (a NaN's payload is not a result: the back ends' arithmetic
/// propagates payloads differently, and Rust does not specify them).
fn same32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn same64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn run_f32(dev: &Device, xs: &[f32], ys: &[f32]) -> Vec<f32> {
    let (dx, dy) = (dev.upload(xs).unwrap(), dev.upload(ys).unwrap());
    let mut out = dev.zeros::<f32>(xs.len() * OUTPUTS).unwrap();
    math_f32
        .launch(dev, Launch::cover(xs.len(), 256), &mut out, &dx, &dy)
        .unwrap();
    out.to_vec().unwrap()
}

fn run_f64(dev: &Device, xs: &[f64], ys: &[f64]) -> Vec<f64> {
    let (dx, dy) = (dev.upload(xs).unwrap(), dev.upload(ys).unwrap());
    let mut out = dev.zeros::<f64>(xs.len() * OUTPUTS).unwrap();
    math_f64
        .launch(dev, Launch::cover(xs.len(), 256), &mut out, &dx, &dy)
        .unwrap();
    out.to_vec().unwrap()
}

/// The simulator's math methods are the library's functions, bit for bit, for every method
/// and both precisions.
#[test]
fn the_simulator_computes_the_librarys_bits() {
    let dev = Device::cpu().unwrap();
    let (xs, ys) = f32_inputs(2048);
    let out = run_f32(&dev, &xs, &ys);
    for (i, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
        for (k, f) in UNARY_F32.iter().enumerate() {
            let (g, w) = (out[i * OUTPUTS + k], f(x));
            assert!(
                same32(g, w),
                "{}_f32({x:e}): simulator {g:e}, library {w:e}",
                NAMES[k]
            );
        }
        for (k, f) in BINARY_F32.iter().enumerate() {
            let k = k + UNARY_F32.len();
            let (g, w) = (out[i * OUTPUTS + k], f(x, y));
            assert!(
                same32(g, w),
                "{}_f32({x:e}, {y:e}): {g:e} vs {w:e}",
                NAMES[k]
            );
        }
    }
    let (xs, ys) = f64_inputs(2048);
    let out = run_f64(&dev, &xs, &ys);
    for (i, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
        for (k, f) in UNARY_F64.iter().enumerate() {
            let (g, w) = (out[i * OUTPUTS + k], f(x));
            assert!(
                same64(g, w),
                "{}_f64({x:e}): simulator {g:e}, library {w:e}",
                NAMES[k]
            );
        }
        for (k, f) in BINARY_F64.iter().enumerate() {
            let k = k + UNARY_F64.len();
            let (g, w) = (out[i * OUTPUTS + k], f(x, y));
            assert!(
                same64(g, w),
                "{}_f64({x:e}, {y:e}): {g:e} vs {w:e}",
                NAMES[k]
            );
        }
    }
}

/// The GPU computes the simulator's bits for every math method over 2^21 f32 and 2^20 f64
/// inputs (each method and precision: 0 differences).
#[test]
fn math_is_bit_identical_on_the_gpu_and_the_simulator() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("math_is_bit_identical_on_the_gpu_and_the_simulator: skipped: no GPU ({e})");
            return;
        }
    };
    let cpu = Device::cpu().unwrap();
    let mut report = String::new();
    let (xs, ys) = f32_inputs(1 << 21);
    let (g, c) = (run_f32(&gpu, &xs, &ys), run_f32(&cpu, &xs, &ys));
    let mut differ = [0usize; OUTPUTS];
    let mut first = [None; OUTPUTS];
    for (i, (a, b)) in g.iter().zip(&c).enumerate() {
        if !same32(*a, *b) {
            let k = i % OUTPUTS;
            differ[k] += 1;
            first[k].get_or_insert((xs[i / OUTPUTS], ys[i / OUTPUTS], *a, *b));
        }
    }
    for k in 0..OUTPUTS {
        report.push_str(&format!(
            "f32 {}: {} differ {:?}\n",
            NAMES[k], differ[k], first[k]
        ));
    }
    let (xs, ys) = f64_inputs(1 << 20);
    let (g, c) = (run_f64(&gpu, &xs, &ys), run_f64(&cpu, &xs, &ys));
    let mut differ64 = [0usize; OUTPUTS];
    let mut first64 = [None; OUTPUTS];
    for (i, (a, b)) in g.iter().zip(&c).enumerate() {
        if !same64(*a, *b) {
            let k = i % OUTPUTS;
            differ64[k] += 1;
            first64[k].get_or_insert((xs[i / OUTPUTS], ys[i / OUTPUTS], *a, *b));
        }
    }
    for k in 0..OUTPUTS {
        report.push_str(&format!(
            "f64 {}: {} differ {:?}\n",
            NAMES[k], differ64[k], first64[k]
        ));
    }
    println!("{report}");
    assert!(
        differ.iter().chain(&differ64).all(|&d| d == 0),
        "the back ends differ:\n{report}"
    );
}

/// The math functions' CUDA C, for NVRTC.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (math_f32.name(), math_f32.cuda_source()),
        (math_f64.name(), math_f64.cuda_source()),
    ]
}
