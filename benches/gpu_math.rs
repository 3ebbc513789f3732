//! The math methods' cost on the GPU: each of `exp exp2 ln log2 log10 sin cos tan tanh powf`
//! (f32 and f64) in a math-bound kernel (16 evaluations a thread, 2^24 threads), cuphase's
//! library against CUDA's own libm called by hand-written CUDA C, through the same NVRTC with
//! the same options; then llm.c's GELU end to end (memory-bound) both ways. Run with
//! `bench_gpu -- --math`.

use super::{load_handwritten, time_ms, BenchResult};
use cudarc::driver::{CudaStream, LaunchConfig, PushKernelArg};
use cuphase::prelude::*;
use std::sync::Arc;

/// Evaluations a thread.
const EVALS: u32 = 16;

#[kernel]
pub fn math_exp_f32(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f32 * 0.001).exp();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_exp2_f32(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f32 * 0.001).exp2();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_ln_f32(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f32 * 0.001).ln();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_log2_f32(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f32 * 0.001).log2();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_log10_f32(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f32 * 0.001).log10();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_sin_f32(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f32 * 0.001).sin();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_cos_f32(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f32 * 0.001).cos();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_tan_f32(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f32 * 0.001).tan();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_tanh_f32(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f32 * 0.001).tanh();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_powf_f32(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f32 * 0.001).powf(1.7);
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_exp_f64(out: &mut [f64], xs: &[f64]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f64 * 0.001).exp();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_exp2_f64(out: &mut [f64], xs: &[f64]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f64 * 0.001).exp2();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_ln_f64(out: &mut [f64], xs: &[f64]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f64 * 0.001).ln();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_log2_f64(out: &mut [f64], xs: &[f64]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f64 * 0.001).log2();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_log10_f64(out: &mut [f64], xs: &[f64]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f64 * 0.001).log10();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_sin_f64(out: &mut [f64], xs: &[f64]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f64 * 0.001).sin();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_cos_f64(out: &mut [f64], xs: &[f64]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f64 * 0.001).cos();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_tan_f64(out: &mut [f64], xs: &[f64]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f64 * 0.001).tan();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_tanh_f64(out: &mut [f64], xs: &[f64]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f64 * 0.001).tanh();
        }
        out[i] = acc;
    }
}

#[kernel]
pub fn math_powf_f64(out: &mut [f64], xs: &[f64]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let mut acc = 0.0;
        for j in 0..16u32 {
            acc += (x + j as f64 * 0.001).powf(1.7);
        }
        out[i] = acc;
    }
}

/// llm.c's GELU (tanh approximation).
#[kernel]
pub fn gelu(out: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let cube = 0.044715 * x * x * x;
        out[i] = 0.5 * x * (1.0 + (0.7978846 * (x + cube)).tanh());
    }
}

const HANDWRITTEN: &str = r#"
extern "C" __global__ void ref_exp_f32(float* __restrict__ out, unsigned long long out_len, const float* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i];
        float acc = 0.0f;
        for (unsigned int j = 0; j < 16u; ++j) acc += expf(x + (float)j * 0.001f);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_exp2_f32(float* __restrict__ out, unsigned long long out_len, const float* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i];
        float acc = 0.0f;
        for (unsigned int j = 0; j < 16u; ++j) acc += exp2f(x + (float)j * 0.001f);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_ln_f32(float* __restrict__ out, unsigned long long out_len, const float* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i];
        float acc = 0.0f;
        for (unsigned int j = 0; j < 16u; ++j) acc += logf(x + (float)j * 0.001f);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_log2_f32(float* __restrict__ out, unsigned long long out_len, const float* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i];
        float acc = 0.0f;
        for (unsigned int j = 0; j < 16u; ++j) acc += log2f(x + (float)j * 0.001f);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_log10_f32(float* __restrict__ out, unsigned long long out_len, const float* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i];
        float acc = 0.0f;
        for (unsigned int j = 0; j < 16u; ++j) acc += log10f(x + (float)j * 0.001f);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_sin_f32(float* __restrict__ out, unsigned long long out_len, const float* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i];
        float acc = 0.0f;
        for (unsigned int j = 0; j < 16u; ++j) acc += sinf(x + (float)j * 0.001f);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_cos_f32(float* __restrict__ out, unsigned long long out_len, const float* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i];
        float acc = 0.0f;
        for (unsigned int j = 0; j < 16u; ++j) acc += cosf(x + (float)j * 0.001f);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_tan_f32(float* __restrict__ out, unsigned long long out_len, const float* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i];
        float acc = 0.0f;
        for (unsigned int j = 0; j < 16u; ++j) acc += tanf(x + (float)j * 0.001f);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_tanh_f32(float* __restrict__ out, unsigned long long out_len, const float* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i];
        float acc = 0.0f;
        for (unsigned int j = 0; j < 16u; ++j) acc += tanhf(x + (float)j * 0.001f);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_powf_f32(float* __restrict__ out, unsigned long long out_len, const float* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i];
        float acc = 0.0f;
        for (unsigned int j = 0; j < 16u; ++j) acc += powf(x + (float)j * 0.001f, 1.7f);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_exp_f64(double* __restrict__ out, unsigned long long out_len, const double* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = xs[i];
        double acc = 0.0;
        for (unsigned int j = 0; j < 16u; ++j) acc += exp(x + (double)j * 0.001);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_exp2_f64(double* __restrict__ out, unsigned long long out_len, const double* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = xs[i];
        double acc = 0.0;
        for (unsigned int j = 0; j < 16u; ++j) acc += exp2(x + (double)j * 0.001);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_ln_f64(double* __restrict__ out, unsigned long long out_len, const double* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = xs[i];
        double acc = 0.0;
        for (unsigned int j = 0; j < 16u; ++j) acc += log(x + (double)j * 0.001);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_log2_f64(double* __restrict__ out, unsigned long long out_len, const double* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = xs[i];
        double acc = 0.0;
        for (unsigned int j = 0; j < 16u; ++j) acc += log2(x + (double)j * 0.001);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_log10_f64(double* __restrict__ out, unsigned long long out_len, const double* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = xs[i];
        double acc = 0.0;
        for (unsigned int j = 0; j < 16u; ++j) acc += log10(x + (double)j * 0.001);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_sin_f64(double* __restrict__ out, unsigned long long out_len, const double* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = xs[i];
        double acc = 0.0;
        for (unsigned int j = 0; j < 16u; ++j) acc += sin(x + (double)j * 0.001);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_cos_f64(double* __restrict__ out, unsigned long long out_len, const double* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = xs[i];
        double acc = 0.0;
        for (unsigned int j = 0; j < 16u; ++j) acc += cos(x + (double)j * 0.001);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_tan_f64(double* __restrict__ out, unsigned long long out_len, const double* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = xs[i];
        double acc = 0.0;
        for (unsigned int j = 0; j < 16u; ++j) acc += tan(x + (double)j * 0.001);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_tanh_f64(double* __restrict__ out, unsigned long long out_len, const double* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = xs[i];
        double acc = 0.0;
        for (unsigned int j = 0; j < 16u; ++j) acc += tanh(x + (double)j * 0.001);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_powf_f64(double* __restrict__ out, unsigned long long out_len, const double* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double x = xs[i];
        double acc = 0.0;
        for (unsigned int j = 0; j < 16u; ++j) acc += pow(x + (double)j * 0.001, 1.7);
        out[i] = acc;
    }
}
extern "C" __global__ void ref_gelu(float* __restrict__ out, unsigned long long out_len, const float* __restrict__ xs, unsigned long long n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = xs[i];
        float cube = 0.044715f * x * x * x;
        out[i] = 0.5f * x * (1.0f + tanhf(0.7978846f * (x + cube)));
    }
}
"#;

trait Timed<T: cuphase::Scalar> {
    fn run(
        &self,
        dev: &Device,
        launch: Launch,
        out: &mut Buffer<T>,
        xs: &Buffer<T>,
    ) -> Result<(), cuphase::Error>;
}

macro_rules! timed {
    ($($k:ident: $t:ty),* $(,)?) => {$(
        impl Timed<$t> for $k {
            fn run(&self, dev: &Device, launch: Launch, out: &mut Buffer<$t>, xs: &Buffer<$t>) -> Result<(), cuphase::Error> {
                self.launch(dev, launch, out, xs)
            }
        }
    )*};
}
timed!(math_exp_f32: f32, math_exp2_f32: f32, math_ln_f32: f32, math_log2_f32: f32, math_log10_f32: f32, math_sin_f32: f32, math_cos_f32: f32, math_tan_f32: f32, math_tanh_f32: f32, math_powf_f32: f32, math_exp_f64: f64, math_exp2_f64: f64, math_ln_f64: f64, math_log2_f64: f64, math_log10_f64: f64, math_sin_f64: f64, math_cos_f64: f64, math_tan_f64: f64, math_tanh_f64: f64, math_powf_f64: f64, gelu: f32);

/// One kernel both ways: (cuphase ms, hand-written ms, largest relative difference).
fn compare<T>(
    dev: &Device,
    stream: &Arc<CudaStream>,
    kernel: &dyn Timed<T>,
    reference: &str,
    host: &[T],
) -> BenchResult<(f64, f64, f64)>
where
    T: cuphase::Scalar
        + cudarc::driver::DeviceRepr
        + cudarc::driver::ValidAsZeroBits
        + Into<f64>
        + Copy
        + Unpin,
{
    let n = host.len();
    let launch = Launch::cover(n, 256);
    let xs = dev.upload(host)?;
    let mut out = dev.zeros::<T>(n)?;
    let ours = time_ms(
        stream,
        3,
        20,
        || Ok(kernel.run(dev, launch, &mut out, &xs)?),
    )?;
    let got = out.to_vec()?;
    let f = load_handwritten(dev, HANDWRITTEN, reference)?;
    let r_in = stream.clone_htod(host)?;
    let mut r_out = stream.alloc_zeros::<T>(n)?;
    let nn = n as u64;
    let cfg = LaunchConfig {
        grid_dim: (launch.grid.x, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let theirs = time_ms(stream, 3, 20, || {
        let mut b = stream.launch_builder(&f);
        b.arg(&mut r_out).arg(&nn).arg(&r_in).arg(&nn);
        // SAFETY: the arguments match the reference kernel's parameters.
        unsafe { b.launch(cfg) }?;
        Ok(())
    })?;
    let want = stream.clone_dtoh(&r_out)?;
    // The difference relative to the magnitude of the terms (|x| >= 0.1 here): sums of 16
    // values and GELU's 1 + tanh can cancel to near zero, where a relative error says nothing.
    let mut worst = 0.0f64;
    for ((g, w), x) in got.iter().zip(&want).zip(host) {
        let (g, w, x): (f64, f64, f64) = ((*g).into(), (*w).into(), (*x).into());
        if w.is_finite() {
            worst = worst.max((g - w).abs() / w.abs().max(x.abs()).max(1.0));
        }
    }
    Ok((ours, theirs, worst))
}

/// The table of the math methods, then GELU. Returns whether every result agreed with CUDA's
/// libm to within its documented error.
pub fn bench(dev: &Device) -> BenchResult<bool> {
    let stream = dev.cuda_stream().ok_or("not a CUDA device")?.clone();
    let n = 1usize << 24;
    let mut s = 0x9e37_79b9u32;
    let mut unit = move || {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        f64::from(s) / f64::from(u32::MAX)
    };
    let x64: Vec<f64> = (0..n).map(|_| 0.1 + 3.9 * unit()).collect();
    let x32: Vec<f32> = x64.iter().map(|&x| x as f32).collect();
    let mut ok = true;
    println!("\n| method | type | cuphase (ms) | CUDA libm (ms) | cuphase / CUDA | evaluations/s (cuphase) | max difference (relative to max(|result|, |x|, 1)) |");
    println!("|---|---|---|---|---|---|---|");
    let kernels_f32: [(&str, &dyn Timed<f32>); 10] = [
        ("exp", &math_exp_f32),
        ("exp2", &math_exp2_f32),
        ("ln", &math_ln_f32),
        ("log2", &math_log2_f32),
        ("log10", &math_log10_f32),
        ("sin", &math_sin_f32),
        ("cos", &math_cos_f32),
        ("tan", &math_tan_f32),
        ("tanh", &math_tanh_f32),
        ("powf", &math_powf_f32),
    ];
    for (name, k) in kernels_f32 {
        let (ours, theirs, worst) = compare(dev, &stream, k, &format!("ref_{name}_f32"), &x32)?;
        let evals = (n as f64) * f64::from(EVALS) / (ours * 1e-3);
        // Both are within a few ulp of the exact values; the sums of 16 agree far closer
        // than 1e-4.
        ok &= worst < 1e-4;
        println!(
            "| {name} | f32 | {ours:.3} | {theirs:.3} | {:.2} | {:.1} G | {worst:.1e} |",
            ours / theirs,
            evals / 1e9
        );
    }
    let kernels_f64: [(&str, &dyn Timed<f64>); 10] = [
        ("exp", &math_exp_f64),
        ("exp2", &math_exp2_f64),
        ("ln", &math_ln_f64),
        ("log2", &math_log2_f64),
        ("log10", &math_log10_f64),
        ("sin", &math_sin_f64),
        ("cos", &math_cos_f64),
        ("tan", &math_tan_f64),
        ("tanh", &math_tanh_f64),
        ("powf", &math_powf_f64),
    ];
    for (name, k) in kernels_f64 {
        let (ours, theirs, worst) = compare(dev, &stream, k, &format!("ref_{name}_f64"), &x64)?;
        let evals = (n as f64) * f64::from(EVALS) / (ours * 1e-3);
        // Both are within a few ulp of the exact values; the sums of 16 agree far closer
        // than 1e-4.
        ok &= worst < 1e-4;
        println!(
            "| {name} | f64 | {ours:.3} | {theirs:.3} | {:.2} | {:.1} G | {worst:.1e} |",
            ours / theirs,
            evals / 1e9
        );
    }
    // GELU over 2^26 floats in [-6, 6]: 512 MiB of traffic a launch.
    let m = 1usize << 26;
    let xg: Vec<f32> = (0..m).map(|_| (unit() * 12.0 - 6.0) as f32).collect();
    let (ours, theirs, worst) = compare(dev, &stream, &gelu, "ref_gelu", &xg)?;
    let gbs = |ms: f64| 2.0 * m as f64 * 4.0 / (ms * 1e-3) / 1e9;
    ok &= worst < 1e-5;
    println!(
        "\n| GELU, 2^26 f32 | cuphase {ours:.3} ms ({:.0} GB/s) | CUDA tanhf {theirs:.3} ms ({:.0} GB/s) | cuphase / CUDA {:.3} | max difference {worst:.1e} |",
        gbs(ours),
        gbs(theirs),
        ours / theirs
    );
    Ok(ok)
}
