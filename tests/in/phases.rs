//! Kernels for the simulator's phase-split execution: loop exits out of the code between two
//! barriers, values that live across barriers (per-thread locals and local arrays), uniform
//! early returns, and warp operations between barriers.

use cuphase::prelude::*;

/// A loop that syncs, left by a block-uniform `break` between barriers; `round` lives across
/// the barriers.
#[kernel]
pub fn uniform_break(out: &mut [u32], rounds: u32) {
    let tile = shared::<[u32; 64]>();
    let t = thread_idx().x;
    let mut round = 0u32;
    loop {
        tile[t] = round + t;
        sync_block_threads();
        let next = tile[(t + 1) % 64];
        sync_block_threads();
        let at = (round * 64 + t) as usize;
        if at < out.len() {
            out[at] = next;
        }
        round += 1;
        if round >= rounds {
            break;
        }
    }
}

/// A `for` loop that syncs, whose odd rounds a uniform `continue` skips.
#[kernel]
pub fn skip_odd_rounds(out: &mut [u32]) {
    let tile = shared::<[u32; 32]>();
    let t = thread_idx().x;
    let mut acc = 0u32;
    for r in 0..8u32 {
        if r % 2 == 1 {
            continue;
        }
        tile[t] = r * t;
        sync_block_threads();
        acc += tile[31 - t];
        sync_block_threads();
    }
    out[t as usize] = acc;
}

/// A thread-local array written before a barrier and read after it.
#[kernel]
pub fn local_across_barriers(out: &mut [u32]) {
    let tile = shared::<[u32; 32]>();
    let t = thread_idx().x;
    let mut mine = [0u32; 4];
    for k in 0..4u32 {
        mine[k as usize] = t * 10 + k;
    }
    tile[t] = mine[3];
    sync_block_threads();
    mine[0] = tile[(t + 1) % 32];
    sync_block_threads();
    out[t as usize] = mine[0] + mine[1];
}

/// Every thread returns before the barrier when `n` is 0 (a uniform early return).
#[kernel]
pub fn uniform_return(out: &mut [u32], n: u32) {
    let tile = shared::<[u32; 32]>();
    let t = thread_idx().x;
    out[t as usize] = 1;
    if n == 0 {
        return;
    }
    tile[t] = t * n;
    sync_block_threads();
    out[t as usize] = tile[31 - t];
}

/// Warp sums by shuffles, then a block sum of the warps' sums through shared memory.
#[kernel]
pub fn warp_then_block(out: &mut [u32], input: &[u32]) {
    let sums = shared::<[u32; 8]>();
    let t = thread_idx().x;
    let i = global_idx().x as usize;
    let mut v = if i < input.len() { input[i] } else { 0 };
    let mut d = 16u32;
    while d > 0 {
        v = v.wrapping_add(warp_shuffle_down(v, d));
        d /= 2;
    }
    if lane_id() == 0 {
        sums[t / 32] = v;
    }
    sync_block_threads();
    if t == 0 {
        let mut total = 0u32;
        for w in 0..(block_dim().x / 32) {
            total = total.wrapping_add(sums[w]);
        }
        out[block_idx().x as usize] = total;
    }
}

/// Guards on the thread's x index against a block value, in each form the simulator's thread
/// loops narrow to the threads they admit (`x < s`, `s >= x`, `x == s`, `x < s && ..`); each
/// thread adds its tag to its element, so a skipped or repeated thread shows.
#[kernel]
pub fn x_guards(out: &mut [u32], s: u32) {
    let tile = shared::<[u32; 1]>();
    let x = thread_idx().x;
    let me = (thread_idx().y * block_dim().x + x) as usize;
    let half = s / 2;
    if x == 0 && thread_idx().y == 0 {
        tile[0] = 1;
    }
    sync_block_threads();
    if x < half {
        out[me] += tile[0];
    }
    sync_block_threads();
    if s >= x {
        out[me] += 10;
    }
    sync_block_threads();
    if half == x {
        out[me] += 100;
    }
    sync_block_threads();
    if x < s && me % 2 == 0 {
        out[me] += 1000;
    }
}
