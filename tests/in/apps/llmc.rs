//! llm.c (github: karpathy/llm.c, `dev/cuda/`) softmax and layernorm kernels ported to
//! cuphase as their authors wrote them: the same loops, strides, reductions and barriers, C's
//! `int` arithmetic as `i32`, a row pointer (`inp + idx * C`) as the row's offset, and
//! `expf`, `fmaxf`, `sqrtf` as `f32::exp`, `f32::max`, `f32::sqrt`.

use cuphase::prelude::*;

/// `softmax_forward.cu`, `softmax_forward_kernel1`: one thread per row, the sum in `double`.
#[kernel]
pub fn softmax_forward_kernel1(out: &mut [f32], inp: &[f32], n: i32, c: i32) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    if i < n {
        let inp_row = i * c;
        let out_row = i * c;

        let mut maxval = f32::NEG_INFINITY;
        for j in 0..c {
            if inp[(inp_row + j) as u32] > maxval {
                maxval = inp[(inp_row + j) as u32];
            }
        }
        let mut sum = 0.0f64;
        for j in 0..c {
            out[(out_row + j) as u32] = (inp[(inp_row + j) as u32] - maxval).exp();
            sum += out[(out_row + j) as u32] as f64;
        }
        for j in 0..c {
            out[(out_row + j) as u32] /= sum as f32;
        }
    }
}

/// `softmax_forward.cu`, `softmax_forward_kernel2`: one block per row; each thread's strided
/// max and sum, reduced in shared memory (the launch's dynamic shared array, one float per
/// thread) by halving strides.
#[kernel]
pub fn softmax_forward_kernel2(out: &mut [f32], inp: &[f32], n: i32, c: i32) {
    let _ = n;
    let shared = shared_slice::<f32>();
    let idx = block_idx().x as i32;
    let tid = thread_idx().x as i32;
    let block_size = block_dim().x as i32;
    let mut x = idx * c;
    // thread coarsening
    let mut maxval = f32::NEG_INFINITY;
    let mut i = tid;
    while i < c {
        maxval = maxval.max(inp[(x + i) as u32]);
        i += block_size;
    }
    shared[tid as u32] = maxval;
    // reductions
    let mut stride = block_size / 2;
    while stride >= 1 {
        sync_block_threads();
        if tid < stride {
            shared[tid as u32] = shared[tid as u32].max(shared[(tid + stride) as u32]);
        }
        stride /= 2;
    }
    sync_block_threads();
    let offset = shared[0];
    // compute expf and write the result to global memory
    let mut i = tid;
    while i < c {
        out[(idx * c + i) as u32] = (inp[(x + i) as u32] - offset).exp();
        i += block_size;
    }
    sync_block_threads();
    // thread coarsening again, for the sum (`x` is now the row of `out`)
    x = idx * c;
    let mut sumval = 0.0f32;
    let mut i = tid;
    while i < c {
        sumval += out[(x + i) as u32];
        i += block_size;
    }
    shared[tid as u32] = sumval;
    // reductions
    let mut stride = block_size / 2;
    while stride >= 1 {
        sync_block_threads();
        if tid < stride {
            shared[tid as u32] += shared[(tid + stride) as u32];
        }
        stride /= 2;
    }
    // broadcast the sum to all threads in the block
    sync_block_threads();
    let sum = shared[0];
    // divide the input values by the sum
    let mut i = tid;
    while i < c {
        out[(idx * c + i) as u32] = out[(x + i) as u32] / sum;
        i += block_size;
    }
}

/// `softmax_forward.cu`'s `warpReduceMax`.
#[device]
fn warp_reduce_max(val: f32) -> f32 {
    let mut val = val;
    let mut offset = 16u32;
    while offset > 0 {
        val = val.max(warp_shuffle_down(val, offset));
        offset /= 2;
    }
    val
}

/// `common.h`'s `warpReduceSum`: a butterfly, every lane gets the sum.
#[device]
fn warp_reduce_sum(val: f32) -> f32 {
    let mut val = val;
    let mut offset = 16u32;
    while offset > 0 {
        val += warp_shuffle_xor(val, offset);
        offset /= 2;
    }
    val
}

/// `softmax_forward.cu`, `softmax_forward_kernel3`: one warp (a block of 32) per row, the max
/// and the sum reduced by shuffles.
#[kernel]
pub fn softmax_forward_kernel3(out: &mut [f32], inp: &[f32], n: i32, c: i32) {
    let _ = n;
    let idx = block_idx().x as i32;
    let tid = thread_idx().x as i32;
    let mut x = idx * c;

    // Thread coarsening and within-warp reduction for maxval
    let mut maxval = f32::NEG_INFINITY;
    let mut i = tid;
    while i < c {
        maxval = maxval.max(inp[(x + i) as u32]);
        i += block_dim().x as i32;
    }
    maxval = warp_reduce_max(maxval);

    // Broadcast maxval within the warp
    let offset = warp_shuffle(maxval, 0u32);

    // Compute expf and write the result to global memory
    let mut i = tid;
    while i < c {
        out[(idx * c + i) as u32] = (inp[(x + i) as u32] - offset).exp();
        i += block_dim().x as i32;
    }

    // Thread coarsening and within-warp reduction for sumval
    x = idx * c;
    let mut sumval = 0.0f32;
    let mut i = tid;
    while i < c {
        sumval += out[(x + i) as u32];
        i += block_dim().x as i32;
    }
    sumval = warp_reduce_sum(sumval);

    // Divide the input values by the sum
    let mut i = tid;
    while i < c {
        out[(idx * c + i) as u32] = out[(x + i) as u32] / sumval;
        i += block_dim().x as i32;
    }
}

/// `softmax_forward.cu`, `softmax_forward_kernel4`: one block (whole warps) per row; warp
/// reductions by shuffles, then thread 0 reduces the warps' results in shared memory (the
/// launch's dynamic shared array, one float per warp).
#[kernel]
pub fn softmax_forward_kernel4(out: &mut [f32], inp: &[f32], n: i32, c: i32) {
    let _ = n;
    let shared = shared_slice::<f32>();
    let idx = block_idx().x as i32;
    let tid = thread_idx().x as i32;
    let warp_id = thread_idx().x / 32;
    let lane_id = thread_idx().x % 32;

    let warps_per_block = block_dim().x / 32;

    let max_or_sum_storage = shared;

    let mut x = idx * c;

    // first, thread coarsening by directly accessing global memory in series
    let mut maxval = f32::NEG_INFINITY;
    let mut i = tid;
    while i < c {
        maxval = maxval.max(inp[(x + i) as u32]);
        i += block_dim().x as i32;
    }
    // now within-warp reductions for maxval
    maxval = warp_reduce_max(maxval);

    // the 0th thread of each warp writes the maxval of that warp to shared memory
    if lane_id == 0 {
        max_or_sum_storage[warp_id] = maxval;
    }
    sync_block_threads();

    // now the 0th thread of the block reduces the max values in shared memory
    if tid == 0 {
        let mut val = max_or_sum_storage[tid as u32];
        for i in 1..warps_per_block {
            val = val.max(max_or_sum_storage[i]);
        }
        // store the final max in the first position
        max_or_sum_storage[0] = val;
    }
    sync_block_threads();
    // broadcast the max to all threads
    let offset = max_or_sum_storage[0];

    // compute expf and write the result to global memory
    let mut i = tid;
    while i < c {
        out[(idx * c + i) as u32] = (inp[(x + i) as u32] - offset).exp();
        i += block_dim().x as i32;
    }

    // thread coarsening for sum
    x = idx * c;
    let mut sumval = 0.0f32;
    let mut i = tid;
    while i < c {
        sumval += out[(x + i) as u32];
        i += block_dim().x as i32;
    }
    // within-warp reduction for sumval
    sumval = warp_reduce_sum(sumval);

    // write sumval to shared memory
    // changed from the original: a barrier here. Without it, lane 0 of warp 0 may overwrite
    // `max_or_sum_storage[0]` (the max) with its sum while another warp still reads the max
    // from it: a write-after-read race in the original, which the compiler reports.
    sync_block_threads();
    if lane_id == 0 {
        max_or_sum_storage[warp_id] = sumval;
    }
    sync_block_threads();

    // inter-thread reduction of sum
    if tid == 0 {
        let mut val = max_or_sum_storage[tid as u32];
        for i in 1..warps_per_block {
            val += max_or_sum_storage[i];
        }
        max_or_sum_storage[0] = val;
    }
    sync_block_threads();
    // broadcast the sum to all threads
    let sum = max_or_sum_storage[0];

    // divide the whole row by the sum
    let mut i = tid;
    while i < c {
        out[(idx * c + i) as u32] = out[(x + i) as u32] / sum;
        i += block_dim().x as i32;
    }
}

/// `softmax_forward.cu`, `softmax_forward_online_kernel1`: one thread per row, the max and the
/// (`double`) sum in one online pass.
#[kernel]
pub fn softmax_forward_online_kernel1(out: &mut [f32], inp: &[f32], n: i32, c: i32) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    if i < n {
        let inp_row = i * c;
        let out_row = i * c;

        let mut maxval = f32::NEG_INFINITY;
        let mut sum = 0.0f64;
        for j in 0..c {
            let maxval_prev = maxval;
            let current_val = inp[(inp_row + j) as u32];
            if current_val > maxval {
                maxval = current_val;
                sum =
                    sum * (maxval_prev - maxval).exp() as f64 + (current_val - maxval).exp() as f64;
            } else {
                sum += (current_val - maxval).exp() as f64;
            }
        }

        for j in 0..c {
            out[(out_row + j) as u32] =
                ((inp[(inp_row + j) as u32] - maxval).exp() as f64 / sum) as f32;
        }
    }
}

/// `layernorm_forward.cu`, `layernorm_forward_kernel1`: one thread per row: the mean, the
/// variance (no bias correction), the reciprocal standard deviation, then the row normalised,
/// scaled and shifted.
#[kernel]
pub fn layernorm_forward_kernel1(
    out: &mut [f32],
    mean: &mut [f32],
    rstd: &mut [f32],
    inp: &[f32],
    weight: &[f32],
    bias: &[f32],
    n: i32,
    c: i32,
) {
    let idx = (block_idx().x * block_dim().x + thread_idx().x) as i32;
    let eps = 1e-5f32;

    if idx < n {
        // seek to the input position inp[idx,:]
        let x = idx * c;
        // calculate the mean
        let mut m = 0.0f32;
        for i in 0..c {
            m += inp[(x + i) as u32];
        }
        m /= c as f32;
        // calculate the variance (without any bias correction)
        let mut v = 0.0f32;
        for i in 0..c {
            let xshift = inp[(x + i) as u32] - m;
            v += xshift * xshift;
        }
        v /= c as f32;
        // calculate the rstd
        let s = 1.0f32 / (v + eps).sqrt();
        // seek to the output position in out[idx,:]
        let out_idx = idx * c;
        for i in 0..c {
            let n = s * (inp[(x + i) as u32] - m); // normalized output
            let o = n * weight[i as u32] + bias[i as u32]; // scale and shift it
            out[(out_idx + i) as u32] = o; // write
        }
        // cache the mean and rstd for the backward pass later
        mean[idx as u32] = m;
        rstd[idx as u32] = s;
    }
}

/// `layernorm_forward.cu`, `mean_kernel` (layernorm version 2): one block per row, the
/// threads' strided sums reduced in shared memory (the launch's dynamic shared array).
#[kernel]
pub fn mean_kernel(mean: &mut [f32], inp: &[f32], n: i32, c: i32, block_size: i32) {
    let _ = n;
    let shared = shared_slice::<f32>();
    let idx = block_idx().x as i32;
    let tid = thread_idx().x as i32;
    let x = idx * c;
    // thread coarsening
    let mut sum = 0.0f32;
    let mut i = tid;
    while i < c {
        sum += inp[(x + i) as u32];
        i += block_size;
    }
    shared[tid as u32] = sum;
    sync_block_threads();
    // reductions
    let mut stride = block_size / 2;
    while stride >= 1 {
        sync_block_threads();
        if tid < stride {
            shared[tid as u32] += shared[(tid + stride) as u32];
        }
        stride /= 2;
    }
    // write the final result (at thread 0) to global memory
    if tid == 0 {
        mean[idx as u32] = shared[0] / c as f32;
    }
}

/// `layernorm_forward.cu`, `rstd_kernel` (layernorm version 2): as `mean_kernel`, over the
/// squared deviations from the row's mean.
#[kernel]
pub fn rstd_kernel(rstd: &mut [f32], inp: &[f32], mean: &[f32], n: i32, c: i32, block_size: i32) {
    let _ = n;
    let shared = shared_slice::<f32>();
    let idx = block_idx().x as i32;
    let tid = thread_idx().x as i32;
    let x = idx * c;
    let m = mean[idx as u32];
    // thread coarsening
    let mut sum = 0.0f32;
    let mut i = tid;
    while i < c {
        let diff = inp[(x + i) as u32] - m;
        sum += diff * diff;
        i += block_size;
    }
    shared[tid as u32] = sum;
    sync_block_threads();
    // reductions
    let mut stride = block_size / 2;
    while stride >= 1 {
        sync_block_threads();
        if tid < stride {
            shared[tid as u32] += shared[(tid + stride) as u32];
        }
        stride /= 2;
    }
    // write the final result (at thread 0) to global memory
    if tid == 0 {
        rstd[idx as u32] = 1.0f32 / (shared[0] / c as f32 + 1e-5f32).sqrt();
    }
}

/// `layernorm_forward.cu`, `normalization_kernel` (layernorm version 2): one thread per
/// element.
#[kernel]
pub fn normalization_kernel(
    out: &mut [f32],
    inp: &[f32],
    mean: &[f32],
    rstd: &[f32],
    weight: &[f32],
    bias: &[f32],
    b: i32,
    t: i32,
    c: i32,
) {
    let _ = b;
    let _ = t;
    let idx = (block_idx().x * block_dim().x + thread_idx().x) as i32;

    let bt = idx / c;
    let c = idx % c;

    let m = mean[bt as u32];
    let s = rstd[bt as u32];
    let xi = inp[idx as u32];
    let n = s * (xi - m);
    let o = n * weight[c as u32] + bias[c as u32];

    out[idx as u32] = o;
}

/// `layernorm_forward.cu`, `layernorm_forward_kernel3`: one warp per row, the sums reduced by
/// shuffles.
// changed from the original: it is written with cooperative groups, which the language lacks:
// `warp.meta_group_size()` is `block_dim().x / 32`, `warp.meta_group_rank()` is
// `thread_idx().x / 32`, `warp.thread_rank()` is `thread_idx().x % 32`, `warp.size()` is 32,
// `cg::reduce(warp, sum, cg::plus<float>{})` is `common.h`'s `warpReduceSum` (a butterfly of
// `__shfl_xor_sync`), `rsqrtf(x)` (approximate) is `1.0 / x.sqrt()`, the streaming
// `__stcs`/`__ldcs` are plain stores and loads, and the `mean != nullptr` tests are dropped.
#[kernel]
pub fn layernorm_forward_kernel3(
    out: &mut [f32],
    mean: &mut [f32],
    rstd: &mut [f32],
    inp: &[f32],
    weight: &[f32],
    bias: &[f32],
    n: i32,
    c: i32,
) {
    let idx = (block_idx().x * (block_dim().x / 32) + thread_idx().x / 32) as i32;
    if idx >= n {
        return;
    }

    // the row of input that this group of threads is responsible for
    let x = idx * c;

    // mean
    let mut sum = 0.0f32;
    let mut i = (thread_idx().x % 32) as i32;
    while i < c {
        sum += inp[(x + i) as u32];
        i += 32;
    }
    sum = warp_reduce_sum(sum);
    let m = sum / c as f32;
    if thread_idx().x % 32 == 0 {
        mean[idx as u32] = m;
    }

    // rstd
    sum = 0.0f32;
    let mut i = (thread_idx().x % 32) as i32;
    while i < c {
        let diff = inp[(x + i) as u32] - m;
        sum += diff * diff;
        i += 32;
    }
    sum = warp_reduce_sum(sum);
    let s = 1.0f32 / (sum / c as f32 + 1e-5f32).sqrt();
    if thread_idx().x % 32 == 0 {
        rstd[idx as u32] = s;
    }

    // final normalization and scaling by weight/bias
    let o = idx * c;
    let mut cc = (thread_idx().x % 32) as i32;
    while cc < c {
        let n = s * (inp[(x + cc) as u32] - m);
        out[(o + cc) as u32] = n * weight[cc as u32] + bias[cc as u32];
        cc += 32;
    }
}

/// `softmax_forward.cu`, `softmax_forward_online_kernel8`: one warp per row, the max and the
/// sum in one online pass per lane, then merged across the warp by shuffles.
#[kernel]
pub fn softmax_forward_online_kernel8(out: &mut [f32], inp: &[f32], n: i32, c: i32) {
    let warps_per_block = (block_dim().x / 32) as i32;
    let tid = thread_idx().x as i32;

    // changed from the original: its `if (tid >= C) return;` is left out. Where `C` is below
    // the block size and not a multiple of 32, it leaves some lanes of a warp out of the
    // full-warp shuffles below (undefined in CUDA), which the compiler reports; where `C` is
    // at least the block size (as in every launch of it), it returns no thread.

    let warp_id = tid / 32;
    let lane_id = tid % 32;
    // one warp one row
    let row = block_idx().x as i32 * warps_per_block + warp_id;

    if row >= n {
        return;
    }

    let x = row * c;
    let y = row * c;

    // merge calculating maxval and sumval in one loop
    let mut maxval = f32::NEG_INFINITY;
    let mut sumval = 0.0f32;
    let mut i = lane_id;
    while i < c {
        // when updating the maxval, dynamically updates the previous sumval by
        // multiplying e^{previous_maxval - current_maxval}
        let bigger = maxval.max(inp[(x + i) as u32]);
        sumval = sumval * (maxval - bigger).exp() + (inp[(x + i) as u32] - bigger).exp();
        maxval = bigger;
        i += 32;
    }

    // calculate the warp wised maxval and sumval
    let mut offset = 32u32 / 2;
    while offset > 0 {
        sync_warp();
        let offset_maxval = warp_shuffle_down(maxval, offset);
        let mut offset_sumval = warp_shuffle_down(sumval, offset);
        if offset_maxval > maxval {
            sumval *= (maxval - offset_maxval).exp();
            maxval = offset_maxval;
        } else {
            offset_sumval *= (offset_maxval - maxval).exp();
        }
        sumval += offset_sumval;
        offset >>= 1;
    }

    // sync the warp wised maxval and sumval
    maxval = warp_shuffle(maxval, 0u32);
    sumval = warp_shuffle(sumval, 0u32);

    let mut i = lane_id;
    while i < c {
        out[(y + i) as u32] = (inp[(x + i) as u32] - maxval).exp() / sumval;
        i += 32;
    }
}
