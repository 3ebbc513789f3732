//! The kernels of the benchmark suite (issue 13 §4): a full reduction, row softmax, tiled
//! transposes, a histogram, layer normalization, a block scan and a 2-D stencil, written as
//! the README teaches, and the same algorithms hand-written in CUDA C (`HANDWRITTEN`, which
//! `peers_cupy.py` also launches). `gpu_suite_run` runs and checks them.

use cuphase::prelude::*;

/// A block's sum of one value per thread (256 threads): shuffles within each warp, then the
/// first warp over the warps' sums, which every thread gets through `red`.
#[device]
fn block_sum(v: f32, red: &mut [f32; 8]) -> f32 {
    let t = thread_idx().x;
    let mut s = v;
    let mut d = 16u32;
    while d > 0 {
        s += warp_shuffle_xor(s, d);
        d /= 2;
    }
    if t % 32 == 0 {
        red[t / 32] = s;
    }
    sync_block_threads();
    let mut r = red[0];
    for w in 1..8u32 {
        r += red[w];
    }
    sync_block_threads();
    r
}

/// A block's maximum of one value per thread, as [`block_sum`].
#[device]
fn block_max(v: f32, red: &mut [f32; 8]) -> f32 {
    let t = thread_idx().x;
    let mut m = v;
    let mut d = 16u32;
    while d > 0 {
        m = m.max(warp_shuffle_xor(m, d));
        d /= 2;
    }
    if t % 32 == 0 {
        red[t / 32] = m;
    }
    sync_block_threads();
    let mut r = red[0];
    for w in 1..8u32 {
        r = r.max(red[w]);
    }
    sync_block_threads();
    r
}

/// The sum of `input`, one partial sum per block (the host adds the partials): each thread
/// reads 4-float chunks over the whole grid.
#[kernel(block = 256)]
pub fn reduce_sum(partials: &mut [f32], input: &[[f32; 4]]) {
    let red = shared::<[f32; 8]>();
    let mut s = 0.0f32;
    for i in threads_in_grid(0..input.len() as u32) {
        let v = input[i as usize];
        s += (v[0] + v[1]) + (v[2] + v[3]);
    }
    let total = block_sum(s, red);
    if thread_idx().x == 0 {
        partials[block_idx().x as usize] = total;
    }
}

/// Softmax rows of this many floats.
pub const COLS: u32 = 8192;

/// Softmax of each row of `COLS` floats, one block of 256 threads a row: every thread keeps
/// its 32 values (8 chunks) in registers between the passes.
#[kernel(block = 256)]
pub fn softmax(out: &mut [[f32; 4]], input: &[[f32; 4]]) {
    let red = shared::<[f32; 8]>();
    let t = thread_idx().x;
    let row = block_idx().x * (COLS / 4);
    let mut x = [0.0f32; 32];
    let mut m = f32::NEG_INFINITY;
    for j in 0..8u32 {
        let v = input[(row + j * 256 + t) as usize];
        for c in 0..4u32 {
            x[j * 4 + c] = v[c];
            m = m.max(v[c]);
        }
    }
    let m = block_max(m, red);
    let mut s = 0.0f32;
    for k in 0..32u32 {
        x[k] = (x[k] - m).exp();
        s += x[k];
    }
    let inv = 1.0 / block_sum(s, red);
    for j in 0..8u32 {
        let b = j * 4;
        out[(row + j * 256 + t) as usize] =
            [x[b] * inv, x[b + 1] * inv, x[b + 2] * inv, x[b + 3] * inv];
    }
}

/// `out = input^T` for an `n x n` matrix, `n` a multiple of 32: 32 x 32 tiles through shared
/// memory (a padded row, so the column reads do not conflict), blocks of 32 x 8 threads.
#[kernel(block = (32, 8))]
pub fn transpose(out: &mut [f32], input: &[f32], n: u32) {
    let tile = shared::<[[f32; 33]; 32]>();
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    let (bx, by) = (block_idx().x * 32, block_idx().y * 32);
    for r in (0..32u32).step_by(8) {
        tile[ty + r][tx] = input[((by + ty + r) * n + bx + tx) as usize];
    }
    sync_block_threads();
    for r in (0..32u32).step_by(8) {
        out[((bx + ty + r) * n + by + tx) as usize] = tile[tx][ty + r];
    }
}

/// [`transpose`] with 64 x 64 tiles: 16 elements a thread, so four times the loads in flight
/// before the barrier.
#[kernel(block = (32, 8))]
pub fn transpose64(out: &mut [f32], input: &[f32], n: u32) {
    let tile = shared::<[[f32; 65]; 64]>();
    let (tx, ty) = (thread_idx().x, thread_idx().y);
    let (bx, by) = (block_idx().x * 64, block_idx().y * 64);
    for r in (0..64u32).step_by(8) {
        for h in 0..2u32 {
            tile[ty + r][tx + 32 * h] = input[((by + ty + r) * n + bx + tx + 32 * h) as usize];
        }
    }
    sync_block_threads();
    for r in (0..64u32).step_by(8) {
        for h in 0..2u32 {
            out[((bx + ty + r) * n + by + tx + 32 * h) as usize] = tile[tx + 32 * h][ty + r];
        }
    }
}

/// A histogram of bytes into 256 bins: per block in shared memory, then added to the global
/// bins. Each thread reads 4 bytes at a time.
#[kernel(block = 256)]
pub fn histogram(bins: &mut [u32], data: &[[u8; 4]]) {
    let hist = shared::<[u32; 256]>();
    let t = thread_idx().x;
    hist[t] = 0;
    sync_block_threads();
    for i in threads_in_grid(0..data.len() as u32) {
        let v = data[i as usize];
        for c in 0..4u32 {
            hist.atomic_add(v[c] as u32, 1);
        }
    }
    sync_block_threads();
    bins.atomic_add(t, hist[t]);
}

/// Layer normalization of each row of `COLS` floats (one block a row, values kept in
/// registers): `(x - mean) / sqrt(var + 1e-5) * gamma + beta`.
#[kernel(block = 256)]
pub fn layernorm(out: &mut [[f32; 4]], input: &[[f32; 4]], gamma: &[[f32; 4]], beta: &[[f32; 4]]) {
    let red = shared::<[f32; 8]>();
    let t = thread_idx().x;
    let row = block_idx().x * (COLS / 4);
    let mut x = [0.0f32; 32];
    let mut s = 0.0f32;
    for j in 0..8u32 {
        let v = input[row + j * 256 + t];
        for c in 0..4u32 {
            x[j * 4 + c] = v[c];
            s += v[c];
        }
    }
    let mean = block_sum(s, red) / 8192.0;
    let mut q = 0.0f32;
    for k in 0..32u32 {
        let d = x[k] - mean;
        q += d * d;
    }
    let rstd = 1.0 / (block_sum(q, red) / 8192.0 + 1e-5).sqrt();
    for j in 0..8u32 {
        let g = gamma[j * 256 + t];
        let b = beta[j * 256 + t];
        let mut o = [0.0f32; 4];
        for c in 0..4u32 {
            o[c] = (x[j * 4 + c] - mean) * rstd * g[c] + b[c];
        }
        out[row + j * 256 + t] = o;
    }
}

/// Inclusive prefix sums (wrapping) within each block of 1024 `u32`s: 4 a thread in
/// registers, a shuffle scan of the threads' totals in each warp, the warps' totals through
/// shared memory.
#[kernel(block = 256)]
pub fn block_scan(out: &mut [[u32; 4]], input: &[[u32; 4]]) {
    let warps = shared::<[u32; 8]>();
    let t = thread_idx().x;
    let i = global_idx().x;
    let v = input[i];
    let p = [
        v[0],
        v[0] + v[1],
        v[0] + v[1] + v[2],
        v[0] + v[1] + v[2] + v[3],
    ];
    let total = p[3];
    let lane = t % 32;
    let mut s = total;
    let mut d = 1u32;
    while d < 32 {
        let y = warp_shuffle_up(s, d);
        if lane >= d {
            s += y;
        }
        d *= 2;
    }
    if lane == 31 {
        warps[t / 32] = s;
    }
    sync_block_threads();
    let mut base = 0u32;
    for w in 0..8u32 {
        if w < t / 32 {
            base += warps[w];
        }
    }
    let before = base + s - total;
    out[i] = [p[0] + before, p[1] + before, p[2] + before, p[3] + before];
}

/// One Jacobi step of a 5-point stencil on an `n x n` grid (`n` a multiple of 4); the border
/// is copied. Each thread computes 4 neighbouring points from 4-float chunks: its own, the
/// chunks above and below, and one float of each chunk beside it.
#[kernel(block = (32, 8))]
pub fn stencil(out: &mut [[f32; 4]], input: &[[f32; 4]], n: u32) {
    let (x, y) = (global_idx().x, global_idx().y);
    let w = n / 4;
    if x < w && y < n {
        let i = y * w + x;
        let c = input[i];
        let mut o = c;
        if y > 0 && y + 1 < n {
            let up = input[i - w];
            let down = input[i + w];
            if x > 0 {
                o[0] = 0.5 * c[0] + 0.125 * ((input[i - 1][3] + c[1]) + (up[0] + down[0]));
            }
            o[1] = 0.5 * c[1] + 0.125 * ((c[0] + c[2]) + (up[1] + down[1]));
            o[2] = 0.5 * c[2] + 0.125 * ((c[1] + c[3]) + (up[2] + down[2]));
            if x + 1 < w {
                o[3] = 0.5 * c[3] + 0.125 * ((c[2] + input[i + 1][0]) + (up[3] + down[3]));
            }
        }
        out[i] = o;
    }
}

/// The same algorithms in CUDA C.
pub const HANDWRITTEN: &str = r#"
__device__ __forceinline__ float block_sum_ref(float s, float* red) {
    for (int d = 16; d > 0; d /= 2) s += __shfl_xor_sync(0xffffffffu, s, d);
    if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = s;
    __syncthreads();
    float r = red[0];
    for (int w = 1; w < 8; ++w) r += red[w];
    __syncthreads();
    return r;
}
__device__ __forceinline__ float block_max_ref(float m, float* red) {
    for (int d = 16; d > 0; d /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, d));
    if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = m;
    __syncthreads();
    float r = red[0];
    for (int w = 1; w < 8; ++w) r = fmaxf(r, red[w]);
    __syncthreads();
    return r;
}
extern "C" __global__ void __launch_bounds__(256) reduce_sum_ref(float* __restrict__ partials, const float4* __restrict__ in, unsigned int n) {
    __shared__ float red[8];
    float s = 0.0f;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float4 v = in[i];
        s += (v.x + v.y) + (v.z + v.w);
    }
    float total = block_sum_ref(s, red);
    if (threadIdx.x == 0) partials[blockIdx.x] = total;
}
extern "C" __global__ void __launch_bounds__(256) softmax_ref(float4* __restrict__ out, const float4* __restrict__ in) {
    __shared__ float red[8];
    unsigned int t = threadIdx.x, row = blockIdx.x * 2048;
    float x[32];
    float m = __int_as_float(0xff800000);
    for (int j = 0; j < 8; ++j) {
        float4 v = in[row + j * 256 + t];
        x[j * 4] = v.x; x[j * 4 + 1] = v.y; x[j * 4 + 2] = v.z; x[j * 4 + 3] = v.w;
        m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    m = block_max_ref(m, red);
    float s = 0.0f;
    for (int k = 0; k < 32; ++k) { x[k] = expf(x[k] - m); s += x[k]; }
    float inv = 1.0f / block_sum_ref(s, red);
    for (int j = 0; j < 8; ++j)
        out[row + j * 256 + t] = make_float4(x[j * 4] * inv, x[j * 4 + 1] * inv, x[j * 4 + 2] * inv, x[j * 4 + 3] * inv);
}
extern "C" __global__ void __launch_bounds__(256) transpose_ref(float* __restrict__ out, const float* __restrict__ in, unsigned int n) {
    __shared__ float tile[32][33];
    unsigned int tx = threadIdx.x, ty = threadIdx.y, bx = blockIdx.x * 32, by = blockIdx.y * 32;
    for (int r = 0; r < 32; r += 8) tile[ty + r][tx] = in[(by + ty + r) * n + bx + tx];
    __syncthreads();
    for (int r = 0; r < 32; r += 8) out[(bx + ty + r) * n + by + tx] = tile[tx][ty + r];
}
extern "C" __global__ void __launch_bounds__(256) transpose64_ref(float* __restrict__ out, const float* __restrict__ in, unsigned int n) {
    __shared__ float tile[64][65];
    unsigned int tx = threadIdx.x, ty = threadIdx.y, bx = blockIdx.x * 64, by = blockIdx.y * 64;
    for (int r = 0; r < 64; r += 8)
        for (int h = 0; h < 64; h += 32) tile[ty + r][tx + h] = in[(by + ty + r) * n + bx + tx + h];
    __syncthreads();
    for (int r = 0; r < 64; r += 8)
        for (int h = 0; h < 64; h += 32) out[(bx + ty + r) * n + by + tx + h] = tile[tx + h][ty + r];
}
extern "C" __global__ void __launch_bounds__(256) histogram_ref(unsigned int* __restrict__ bins, const uchar4* __restrict__ data, unsigned int n) {
    __shared__ unsigned int hist[256];
    hist[threadIdx.x] = 0;
    __syncthreads();
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        uchar4 v = data[i];
        atomicAdd(&hist[v.x], 1u); atomicAdd(&hist[v.y], 1u);
        atomicAdd(&hist[v.z], 1u); atomicAdd(&hist[v.w], 1u);
    }
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], hist[threadIdx.x]);
}
extern "C" __global__ void __launch_bounds__(256) layernorm_ref(float4* __restrict__ out, const float4* __restrict__ in,
                                                               const float4* __restrict__ gamma, const float4* __restrict__ beta) {
    __shared__ float red[8];
    unsigned int t = threadIdx.x, row = blockIdx.x * 2048;
    float x[32];
    float s = 0.0f;
    for (int j = 0; j < 8; ++j) {
        float4 v = in[row + j * 256 + t];
        x[j * 4] = v.x; x[j * 4 + 1] = v.y; x[j * 4 + 2] = v.z; x[j * 4 + 3] = v.w;
        s += v.x; s += v.y; s += v.z; s += v.w;
    }
    float mean = block_sum_ref(s, red) / 8192.0f;
    float q = 0.0f;
    for (int k = 0; k < 32; ++k) { float d = x[k] - mean; q += d * d; }
    float rstd = 1.0f / sqrtf(block_sum_ref(q, red) / 8192.0f + 1e-5f);
    for (int j = 0; j < 8; ++j) {
        float4 g = gamma[j * 256 + t], b = beta[j * 256 + t];
        out[row + j * 256 + t] = make_float4((x[j * 4] - mean) * rstd * g.x + b.x, (x[j * 4 + 1] - mean) * rstd * g.y + b.y,
                                             (x[j * 4 + 2] - mean) * rstd * g.z + b.z, (x[j * 4 + 3] - mean) * rstd * g.w + b.w);
    }
}
extern "C" __global__ void __launch_bounds__(256) block_scan_ref(uint4* __restrict__ out, const uint4* __restrict__ in) {
    __shared__ unsigned int warps[8];
    unsigned int t = threadIdx.x, i = blockIdx.x * blockDim.x + t, lane = t % 32;
    uint4 v = in[i];
    unsigned int p0 = v.x, p1 = p0 + v.y, p2 = p1 + v.z, p3 = p2 + v.w, s = p3;
    for (unsigned int d = 1; d < 32; d *= 2) {
        unsigned int y = __shfl_up_sync(0xffffffffu, s, d);
        if (lane >= d) s += y;
    }
    if (lane == 31) warps[t / 32] = s;
    __syncthreads();
    unsigned int base = 0;
    for (unsigned int w = 0; w < 8; ++w) if (w < t / 32) base += warps[w];
    unsigned int before = base + s - p3;
    out[i] = make_uint4(p0 + before, p1 + before, p2 + before, p3 + before);
}
extern "C" __global__ void __launch_bounds__(256) stencil_ref(float4* __restrict__ out, const float4* __restrict__ in, unsigned int n) {
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y, w = n / 4;
    if (x < w && y < n) {
        unsigned int i = y * w + x;
        float4 c = in[i], o = c;
        if (y > 0 && y + 1 < n) {
            float4 u = in[i - w], d = in[i + w];
            const float* f = reinterpret_cast<const float*>(in);
            if (x > 0) o.x = 0.5f * c.x + 0.125f * ((f[4 * i - 1] + c.y) + (u.x + d.x));
            o.y = 0.5f * c.y + 0.125f * ((c.x + c.z) + (u.y + d.y));
            o.z = 0.5f * c.z + 0.125f * ((c.y + c.w) + (u.z + d.z));
            if (x + 1 < w) o.w = 0.5f * c.w + 0.125f * ((c.z + f[4 * i + 4]) + (u.w + d.w));
        }
        out[i] = o;
    }
}
"#;
