//! PENDING, compiled by nothing: llm.c `softmax_forward_kernel4`, as written.
//! `../PENDING.md` says why it does not compile or run as it stands; the changed version
//! that is compiled and tested is in `../llmc.rs`.

use cuphase::prelude::*;

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
