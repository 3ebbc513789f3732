//! PENDING, compiled by nothing: llm.c `softmax_forward_online_kernel8`, as written.
//! `../PENDING.md` says why it does not compile as it stands (T3); the changed version that
//! is compiled and tested is in `../llmc.rs`.

use cuphase::prelude::*;

/// `softmax_forward.cu`, `softmax_forward_online_kernel8`: one warp per row, the max and the
/// sum in one online pass per lane, then merged across the warp by shuffles.
#[kernel]
pub fn softmax_forward_online_kernel8(out: &mut [f32], inp: &[f32], n: i32, c: i32) {
    let warps_per_block = (block_dim().x / 32) as i32;
    let tid = thread_idx().x as i32;

    if tid >= c {
        return;
    }

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
