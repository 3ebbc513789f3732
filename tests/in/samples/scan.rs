//! `prescan`, the work-efficient (Blelloch) exclusive scan of GPU Gems 3, chapter 39
//! (Harris, Sengupta and Owens, "Parallel Prefix Sum (Scan) with CUDA"): one
//! block of `n / 2` threads scans `n` elements (a power of two) in a shared array of `n`
//! elements, the launch's dynamic shared memory (`extern __shared__ float temp[]`), with an
//! up-sweep that builds a sum tree in place, the last element cleared, and a down-sweep.
//! C's `for (int d = n >> 1; d > 0; d >>= 1)` loops are `while` loops; the indices are
//! unsigned.

use cuphase::prelude::*;

/// `prescan`: `g_odata` gets the exclusive prefix sums of the first `n` elements of `g_idata`.
#[kernel]
pub fn prescan(g_odata: &mut [f32], g_idata: &[f32], n: u32) {
    let temp = shared_slice::<f32>();
    let thid = thread_idx().x;
    let mut offset = 1u32;
    temp[2 * thid] = g_idata[2 * thid];
    temp[2 * thid + 1] = g_idata[2 * thid + 1];
    // Up-sweep: build the sum tree in place.
    let mut d = n >> 1;
    while d > 0 {
        sync_block_threads();
        if thid < d {
            let ai = offset * (2 * thid + 1) - 1;
            let bi = offset * (2 * thid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
        d >>= 1;
    }
    // Clear the last element.
    if thid == 0 {
        temp[n - 1] = 0.0;
    }
    // Down-sweep: traverse down the tree building the scan in place.
    let mut d = 1u32;
    while d < n {
        offset >>= 1;
        sync_block_threads();
        if thid < d {
            let ai = offset * (2 * thid + 1) - 1;
            let bi = offset * (2 * thid + 2) - 1;
            let t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
        d *= 2;
    }
    sync_block_threads();
    g_odata[2 * thid] = temp[2 * thid];
    g_odata[2 * thid + 1] = temp[2 * thid + 1];
}
