//! Warp operations: shuffles (all four), ballot, all, any and `sync_warp`, over full and
//! partial warps and narrow, wide and float values.

use cuphase::prelude::*;

/// A warp sum by `warp_shuffle_down`, and by `warp_shuffle_xor` (every lane gets it).
#[kernel]
pub fn warp_sums(down: &mut [i32], xor: &mut [f64], input: &[i32]) {
    let i = global_idx().x;
    let mut v = 0i32;
    if i < input.len() as u32 {
        v = input[i];
    }
    let mut s = v;
    let mut d = 16u32;
    while d > 0 {
        s += warp_shuffle_down(s, d);
        d /= 2;
    }
    let mut x = v as f64 * 0.5;
    let mut m = 1u32;
    while m < 32 {
        x += warp_shuffle_xor(x, m);
        m *= 2;
    }
    sync_warp();
    if i < down.len() as u32 {
        down[i] = s;
        xor[i] = x;
    }
}

/// Votes and the other shuffles, with narrow types; each thread writes what it saw.
#[kernel]
pub fn warp_votes(out: &mut [u32], input: &[i32]) {
    let i = global_idx().x;
    let lane = lane_id();
    let mut v = 0i32;
    if i < input.len() as u32 {
        v = input[i];
    }
    let ballot = warp_ballot(v > 0);
    let all = warp_all(v > -100);
    let any = warp_any(v == 7);
    let from0 = warp_shuffle(v as i16, 0u32);
    let up = warp_shuffle_up(v as u8, 3u32);
    let far = warp_shuffle(lane + 100, lane + 20);
    let flag = warp_shuffle_down(v % 2 == 0, 1u32);
    if i < out.len() as u32 / 6 {
        let o = i * 6;
        out[o] = ballot;
        out[o + 1] = all as u32 + 2 * any as u32 + 4 * flag as u32;
        out[o + 2] = from0 as i32 as u32;
        out[o + 3] = up as u32;
        out[o + 4] = far;
        out[o + 5] = lane;
    }
}

/// A dynamic shared array, sized by the launch (`Launch::shared_bytes`): a block reversal
/// whatever the block size.
#[kernel]
pub fn dyn_reverse(out: &mut [f32], input: &[f32]) {
    let buf = shared_slice::<f32>();
    let t = thread_idx().x;
    let n = block_dim().x;
    let i = block_idx().x * n + t;
    if (t as usize) < buf.len() {
        buf[t] = if i < input.len() as u32 {
            input[i]
        } else {
            0.0
        };
    }
    sync_block_threads();
    let r = n - 1 - t;
    if i < out.len() as u32 && (r as usize) < buf.len() {
        out[i] = buf[r];
    }
}
