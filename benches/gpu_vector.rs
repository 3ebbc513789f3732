//! Kernels with vector memory access (`&[[f32; 4]]` slices, whole rows of shared arrays) and
//! a register-tiled SGEMM, against the same algorithms hand-written in CUDA C (compiled by the
//! same NVRTC with the same options) and the device-to-device copy.

use cudarc::driver::{CudaStream, LaunchConfig, PushKernelArg};
use cuphase::prelude::*;
use std::sync::Arc;

use super::{load_handwritten, time_ms, BenchResult};

/// Copies 4-float chunks: one 16-byte load and store per thread.
#[kernel]
pub fn copy4(out: &mut [[f32; 4]], input: &[[f32; 4]]) {
    let i = global_idx().x as usize;
    if i < input.len() {
        out[i] = input[i];
    }
}

/// `y = a * x + y`, four floats a thread.
#[kernel]
pub fn saxpy4(y: &mut [[f32; 4]], x: &[[f32; 4]], a: f32) {
    let i = global_idx().x as usize;
    if i < y.len() {
        let xv = x[i];
        let mut yv = y[i];
        for k in 0..4 {
            yv[k] = a.mul_add(xv[k], yv[k]);
        }
        y[i] = yv;
    }
}

/// Block reverse of 4-float chunks (256 chunks a block) through whole rows of a shared array.
#[kernel(block = 256)]
pub fn reverse4(out: &mut [[f32; 4]], input: &[[f32; 4]]) {
    let tile = shared::<[[f32; 4]; 256]>();
    let t = thread_idx().x;
    let i = global_idx().x as usize;
    if i < input.len() {
        tile[t] = input[i];
    }
    sync_block_threads();
    if i < out.len() {
        out[i] = tile[255 - t];
    }
}

const BM: u32 = 128;
const BN: u32 = 128;
const BK: u32 = 8;
const TM: u32 = 8;
const TN: u32 = 8;

/// C = A B for row-major `n x n` matrices, `n` a multiple of 128: a 128 x 128 tile of C per
/// block of 256 threads, 8 x 8 outputs per thread in registers, A and B read as 4-float chunks
/// into shared tiles (A transposed), 8 columns of A at a time; the next chunks are loaded into
/// registers while the current tiles are multiplied. Two blocks fit on a multiprocessor (at
/// most 128 registers a thread).
///
/// A thread's outputs are two 4 x 4 squares of rows and columns 64 apart (rows `4 tr..4 tr+4`
/// and `64 + 4 tr..`, the same for columns): the 16 threads of a half-warp then read 16
/// consecutive 4-float chunks of a shared row, free of bank conflicts, where 8 consecutive
/// columns a thread would make every read a four-way conflict.
#[kernel(block = 256, min_blocks_per_sm = 2)]
pub fn sgemm(c: &mut [[f32; 4]], a: &[[f32; 4]], b: &[[f32; 4]], n: u32) {
    let at = shared::<[[f32; BM as usize]; BK as usize]>();
    // B's tile as 4-float chunks, row `kk` at chunks `kk * BN / 4..`.
    let bt = shared::<[[f32; 4]; (BK * BN / 4) as usize]>();
    let t = thread_idx().x;
    let tr = t / (BN / TN);
    let tc = t % (BN / TN);
    let row0 = block_idx().y * BM;
    let col0 = block_idx().x * BN;
    let n4 = n / 4;
    let mut acc = [[0.0f32; TN as usize]; TM as usize];
    let (a_row, a_col) = (t / 2, t % 2);
    let (b_row, b_col) = (t / 32, t % 32);
    let mut va = a[(row0 + a_row) * n4 + a_col];
    let mut vb = b[b_row * n4 + col0 / 4 + b_col];
    let mut k0 = 0u32;
    while k0 < n {
        for j in 0..4u32 {
            at[a_col * 4 + j][a_row] = va[j];
        }
        bt[b_row * (BN / 4) + b_col] = vb;
        sync_block_threads();
        let k1 = k0 + BK;
        if k1 < n {
            va = a[(row0 + a_row) * n4 + k1 / 4 + a_col];
            vb = b[(k1 + b_row) * n4 + col0 / 4 + b_col];
        }
        for kk in 0..BK {
            let mut ra = [0.0f32; TM as usize];
            for m in 0..4 {
                ra[m] = at[kk][tr * 4 + m];
                ra[m + 4] = at[kk][BM / 2 + tr * 4 + m];
            }
            let b0 = bt[kk * (BN / 4) + tc];
            let b1 = bt[kk * (BN / 4) + BN / 8 + tc];
            for m in 0..TM {
                for q in 0..4 {
                    acc[m][q] = ra[m].mul_add(b0[q], acc[m][q]);
                    acc[m][q + 4] = ra[m].mul_add(b1[q], acc[m][q + 4]);
                }
            }
        }
        sync_block_threads();
        k0 = k1;
    }
    for m in 0..TM {
        let row = row0 + (m / 4) * (BM / 2) + tr * 4 + m % 4;
        let left = row * n4 + (col0 + tc * 4) / 4;
        c[left] = [acc[m][0], acc[m][1], acc[m][2], acc[m][3]];
        c[left + BN / 8] = [acc[m][4], acc[m][5], acc[m][6], acc[m][7]];
    }
}

/// The same algorithms in CUDA C, as a CUDA programmer would write them.
pub const HANDWRITTEN: &str = r#"
extern "C" __global__ void copy4_ref(float4* __restrict__ out, const float4* __restrict__ in, unsigned long long n) {
    unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}
extern "C" __global__ void saxpy4_ref(float4* __restrict__ y, const float4* __restrict__ x, float a, unsigned long long n) {
    unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 xv = x[i], yv = y[i];
        yv.x = fmaf(a, xv.x, yv.x); yv.y = fmaf(a, xv.y, yv.y);
        yv.z = fmaf(a, xv.z, yv.z); yv.w = fmaf(a, xv.w, yv.w);
        y[i] = yv;
    }
}
extern "C" __global__ void reverse4_ref(float4* __restrict__ out, const float4* __restrict__ in, unsigned long long n) {
    __shared__ float4 tile[256];
    unsigned int t = threadIdx.x;
    unsigned long long i = blockIdx.x * blockDim.x + t;
    if (i < n) tile[t] = in[i];
    __syncthreads();
    if (i < n) out[i] = tile[255 - t];
}
extern "C" __global__ void __launch_bounds__(256, 2) sgemm_ref(float4* __restrict__ c, const float4* __restrict__ a,
                                           const float4* __restrict__ b, unsigned int n) {
    __shared__ float at[8][128];
    __shared__ float bt[8][128];
    unsigned int t = threadIdx.x, tr = t / 16, tc = t % 16;
    unsigned int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128, n4 = n / 4;
    float acc[8][8] = {};
    float ra[8], rb[8];
    unsigned int a_row = t / 2, a_col = t % 2, b_row = t / 32, b_col = t % 32;
    float4 va = a[(row0 + a_row) * n4 + a_col];
    float4 vb = b[b_row * n4 + col0 / 4 + b_col];
    for (unsigned int k0 = 0; k0 < n; k0 += 8) {
        at[a_col * 4 + 0][a_row] = va.x; at[a_col * 4 + 1][a_row] = va.y;
        at[a_col * 4 + 2][a_row] = va.z; at[a_col * 4 + 3][a_row] = va.w;
        *reinterpret_cast<float4*>(&bt[b_row][b_col * 4]) = vb;
        __syncthreads();
        if (k0 + 8 < n) {
            va = a[(row0 + a_row) * n4 + (k0 + 8) / 4 + a_col];
            vb = b[(k0 + 8 + b_row) * n4 + col0 / 4 + b_col];
        }
#pragma unroll
        for (unsigned int kk = 0; kk < 8; ++kk) {
            for (unsigned int m = 0; m < 4; ++m) {
                ra[m] = at[kk][tr * 4 + m];
                ra[m + 4] = at[kk][64 + tr * 4 + m];
            }
            for (unsigned int q = 0; q < 4; ++q) {
                rb[q] = bt[kk][tc * 4 + q];
                rb[q + 4] = bt[kk][64 + tc * 4 + q];
            }
            for (unsigned int m = 0; m < 8; ++m)
                for (unsigned int q = 0; q < 8; ++q) acc[m][q] = fmaf(ra[m], rb[q], acc[m][q]);
        }
        __syncthreads();
    }
    for (unsigned int m = 0; m < 8; ++m) {
        unsigned int row = row0 + (m / 4) * 64 + tr * 4 + m % 4;
        unsigned int left = row * n4 + (col0 + tc * 4) / 4;
        c[left] = make_float4(acc[m][0], acc[m][1], acc[m][2], acc[m][3]);
        c[left + 16] = make_float4(acc[m][4], acc[m][5], acc[m][6], acc[m][7]);
    }
}
"#;

fn chunked(v: &[f32]) -> Vec<[f32; 4]> {
    v.chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

/// One table row: cuphase and hand-written times, the ratio, and a throughput.
fn row(name: &str, ours: f64, theirs: f64, throughput: &str, ok: bool) {
    println!(
        "| {name} | {ours:.3} | {theirs:.3} | {:.3} | {throughput}{} |",
        theirs / ours,
        if ok { "" } else { " WRONG RESULT" }
    );
}

/// Runs the vector benchmarks: whether every result was right, and the device-to-device copy
/// bandwidth measured (GB/s).
pub fn bench(dev: &Device, stream: &Arc<CudaStream>) -> BenchResult<(bool, f64)> {
    let mut all_ok = true;
    let n: usize = 1 << 28;
    let chunks = n / 4;
    let host: Vec<f32> = (0..n)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761) % 2000) as f32 * 0.01 - 10.0)
        .collect();
    let host4 = chunked(&host);
    let bytes = n as f64 * 4.0;
    let gbs = |traffic: f64, ms: f64| traffic / (ms * 1e-3) / 1e9;

    // The device-to-device copy: the limit the memory-bound kernels are held to.
    let src = stream.clone_htod(&host)?;
    let mut dst = stream.alloc_zeros::<f32>(n)?;
    let copy_ms = time_ms(stream, 5, 50, || Ok(stream.memcpy_dtod(&src, &mut dst)?))?;
    let copy = gbs(2.0 * bytes, copy_ms);
    drop((src, dst));
    println!(
        "\n| kernel (vector access) | cuphase (ms) | hand-written CUDA C (ms) | ratio (hand-written / cuphase) | cuphase throughput |"
    );
    println!("|---|---|---|---|---|");
    println!(
        "| device-to-device copy (cuMemcpyDtoD), 2^28 f32 | {copy_ms:.3} | | | {copy:.0} GB/s |"
    );

    let input = dev.upload(&host4)?;
    let in_ref = stream.clone_htod(&host4)?;
    let launch = Launch::cover(chunks, 256);
    let cfg = LaunchConfig {
        grid_dim: (launch.grid.x, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let nn = chunks as u64;

    // copy4
    let mut out = dev.zeros::<[f32; 4]>(chunks)?;
    let ours = time_ms(stream, 5, 50, || {
        Ok(copy4.launch(dev, launch, &mut out, &input)?)
    })?;
    let f = load_handwritten(dev, HANDWRITTEN, "copy4_ref")?;
    let mut out_ref = stream.alloc_zeros::<[f32; 4]>(chunks)?;
    let theirs = time_ms(stream, 5, 50, || {
        let mut b = stream.launch_builder(&f);
        b.arg(&mut out_ref).arg(&in_ref).arg(&nn);
        // SAFETY: the arguments match `copy4_ref`'s parameters.
        unsafe { b.launch(cfg) }?;
        Ok(())
    })?;
    let ok = out.to_vec()? == host4;
    all_ok &= ok;
    let g = gbs(2.0 * bytes, ours);
    row(
        "copy4, 2^28 f32",
        ours,
        theirs,
        &format!("{g:.0} GB/s ({:.1}% of the copy)", 100.0 * g / copy),
        ok,
    );

    // saxpy4: poisoned y each run would change the result; y is reset before the check.
    let x = dev.upload(&host4)?;
    let mut y = dev.upload(&host4)?;
    let ours = time_ms(stream, 5, 50, || {
        Ok(saxpy4.launch(dev, launch, &mut y, &x, 0.5)?)
    })?;
    let f = load_handwritten(dev, HANDWRITTEN, "saxpy4_ref")?;
    let mut y_ref = stream.clone_htod(&host4)?;
    let a = 0.5f32;
    let theirs = time_ms(stream, 5, 50, || {
        let mut b = stream.launch_builder(&f);
        b.arg(&mut y_ref).arg(&in_ref).arg(&a).arg(&nn);
        // SAFETY: the arguments match `saxpy4_ref`'s parameters.
        unsafe { b.launch(cfg) }?;
        Ok(())
    })?;
    y.copy_from_host(&host4)?;
    saxpy4.launch(dev, launch, &mut y, &x, 0.5)?;
    let want: Vec<[f32; 4]> = host4
        .iter()
        .map(|v| v.map(|e| 0.5f32.mul_add(e, e)))
        .collect();
    let ok = y.to_vec()? == want;
    all_ok &= ok;
    let g = gbs(3.0 * bytes, ours);
    row(
        "saxpy4, 2^28 f32",
        ours,
        theirs,
        &format!("{g:.0} GB/s ({:.1}% of the copy)", 100.0 * g / copy),
        ok,
    );
    drop((x, y, y_ref));

    // reverse4
    let ours = time_ms(stream, 5, 50, || {
        Ok(reverse4.launch(dev, launch, &mut out, &input)?)
    })?;
    let f = load_handwritten(dev, HANDWRITTEN, "reverse4_ref")?;
    let theirs = time_ms(stream, 5, 50, || {
        let mut b = stream.launch_builder(&f);
        b.arg(&mut out_ref).arg(&in_ref).arg(&nn);
        // SAFETY: the arguments match `reverse4_ref`'s parameters.
        unsafe { b.launch(cfg) }?;
        Ok(())
    })?;
    let got = out.to_vec()?;
    let ok = got
        .chunks(256)
        .zip(host4.chunks(256))
        .all(|(g, h)| g.iter().eq(h.iter().rev()));
    all_ok &= ok;
    let g = gbs(2.0 * bytes, ours);
    row(
        "reverse4 (block reverse), 2^28 f32",
        ours,
        theirs,
        &format!("{g:.0} GB/s ({:.1}% of the copy)", 100.0 * g / copy),
        ok,
    );
    drop((input, out, in_ref, out_ref));

    // sgemm, 4096^3
    let n: usize = 4096;
    let a: Vec<f32> = (0..n * n)
        .map(|i| ((i * 37) % 101) as f32 / 50.0 - 1.0)
        .collect();
    let b: Vec<f32> = (0..n * n)
        .map(|i| ((i * 53) % 97) as f32 / 48.0 - 1.0)
        .collect();
    let (a4, b4) = (chunked(&a), chunked(&b));
    let (da, db) = (dev.upload(&a4)?, dev.upload(&b4)?);
    let mut dc = dev.zeros::<[f32; 4]>(n * n / 4)?;
    let tiles = (n / 128) as u32;
    let launch = Launch::new((tiles, tiles), 256);
    let nn = n as u32;
    let ours = time_ms(stream, 3, 20, || {
        Ok(sgemm.launch(dev, launch, &mut dc, &da, &db, nn)?)
    })?;
    let f = load_handwritten(dev, HANDWRITTEN, "sgemm_ref")?;
    let (ra, rb) = (stream.clone_htod(&a4)?, stream.clone_htod(&b4)?);
    let mut rc = stream.alloc_zeros::<[f32; 4]>(n * n / 4)?;
    let cfg = LaunchConfig {
        grid_dim: (tiles, tiles, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let theirs = time_ms(stream, 3, 20, || {
        let mut bld = stream.launch_builder(&f);
        bld.arg(&mut rc).arg(&ra).arg(&rb).arg(&nn);
        // SAFETY: the arguments match `sgemm_ref`'s parameters.
        unsafe { bld.launch(cfg) }?;
        Ok(())
    })?;
    let got = dc.to_vec()?;
    // Spot checks against the host in f64, and bit-equality with the hand-written kernel.
    let mut ok = got == stream.clone_dtoh(&rc)?;
    for (r, col) in [(0, 0), (1, 4095), (2047, 1234), (4095, 4095), (777, 3)] {
        let want: f64 = (0..n)
            .map(|k| f64::from(a[r * n + k]) * f64::from(b[k * n + col]))
            .sum();
        let g = f64::from(got[(r * n + col) / 4][col % 4]);
        ok &= (g - want).abs() <= 1e-3 * want.abs().max(1.0);
    }
    all_ok &= ok;
    let tflops = 2.0 * (n as f64).powi(3) / (ours * 1e-3) / 1e12;
    row(
        "sgemm (128x128 tiles, 8x8 per thread in 4x4 squares, prefetch), 4096^3 f32",
        ours,
        theirs,
        &format!(
            "{tflops:.1} TFLOP/s ({:.0}% of cuBLAS's 49.5)",
            100.0 * tflops / 49.5
        ),
        ok,
    );
    Ok((all_ok, copy))
}

/// The vector kernels and the SGEMM on small problems, results checked (on the simulator,
/// or on the GPU under compute-sanitizer): `Ok(false)` when one is wrong.
pub fn check_small(dev: &Device) -> BenchResult<bool> {
    let mut ok = true;
    let host: Vec<f32> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) % 2000) as f32 * 0.01 - 10.0)
        .collect();
    let host4 = chunked(&host);
    let input = dev.upload(&host4)?;
    let launch = Launch::cover(host4.len(), 256);
    let mut out = dev.upload(&vec![[f32::NAN; 4]; host4.len()])?;
    copy4.launch(dev, launch, &mut out, &input)?;
    ok &= out.to_vec()? == host4;
    reverse4.launch(dev, launch, &mut out, &input)?;
    let got = out.to_vec()?;
    ok &= got
        .chunks(256)
        .zip(host4.chunks(256))
        .all(|(g, h)| g.iter().eq(h.iter().rev()));
    let mut y = dev.upload(&host4)?;
    saxpy4.launch(dev, launch, &mut y, &input, 0.5)?;
    ok &= y.to_vec()?
        == host4
            .iter()
            .map(|v| v.map(|e| 0.5f32.mul_add(e, e)))
            .collect::<Vec<_>>();
    // SGEMM, 256^3, against the host in f64.
    let n = 256usize;
    let a: Vec<f32> = (0..n * n)
        .map(|i| ((i * 37) % 101) as f32 / 50.0 - 1.0)
        .collect();
    let b: Vec<f32> = (0..n * n)
        .map(|i| ((i * 53) % 97) as f32 / 48.0 - 1.0)
        .collect();
    let (da, db) = (dev.upload(&chunked(&a))?, dev.upload(&chunked(&b))?);
    let mut dc = dev.upload(&vec![[f32::NAN; 4]; n * n / 4])?;
    let tiles = (n / 128) as u32;
    sgemm.launch(
        dev,
        Launch::new((tiles, tiles), 256),
        &mut dc,
        &da,
        &db,
        n as u32,
    )?;
    let c: Vec<f32> = dc.to_vec()?.into_iter().flatten().collect();
    for r in 0..n {
        for col in (0..n).step_by(17) {
            let want: f64 = (0..n)
                .map(|k| f64::from(a[r * n + k]) * f64::from(b[k * n + col]))
                .sum();
            ok &= (f64::from(c[r * n + col]) - want).abs() <= 1e-3 * want.abs().max(1.0);
        }
    }
    println!(
        "vector kernels and sgemm (small): {}",
        if ok { "correct" } else { "WRONG RESULT" }
    );
    Ok(ok)
}
