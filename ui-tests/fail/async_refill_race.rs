use cuphase::prelude::*;

// A two-stage pipeline without the barrier after the reads: the copy into the other stage in
// the next iteration refills what slower threads may still be reading.
#[kernel(block = 64)]
fn sum_slices(out: &mut [f32], x: &[f32], slices: u32) {
    let tile = shared::<[[f32; 64]; 2]>();
    let t = thread_idx().x as usize;
    let n = slices as usize;
    let mut acc = 0.0f32;
    cp_async(&mut tile[0][t], &x[t]);
    cp_async_commit();
    for s in 0..n {
        if s + 1 < n {
            cp_async(&mut tile[(s + 1) % 2][t], &x[(s + 1) * 64 + t]);
        }
        cp_async_commit();
        cp_async_wait(1);
        sync_block_threads();
        acc += tile[s % 2][63 - t];
    }
    out[t] = acc;
}

// A copy into the stage being read, issued before the reads are done.
#[kernel(block = 64)]
fn same_stage(out: &mut [f32], x: &[f32]) {
    let tile = shared::<[f32; 64]>();
    let t = thread_idx().x as usize;
    tile[t] = x[t];
    sync_block_threads();
    let v = tile[63 - t];
    cp_async(&mut tile[t], &x[64 + t]);
    cp_async_commit();
    cp_async_wait(0);
    out[t] = v;
}

fn main() {}
