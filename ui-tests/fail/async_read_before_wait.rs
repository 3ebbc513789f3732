use cuphase::prelude::*;

// A two-stage pipeline whose wait lets two groups stay in flight: the stage read in this
// iteration may still be on its way (its copy is the latest group but one).
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
        cp_async_wait(2);
        sync_block_threads();
        acc += tile[s % 2][63 - t];
        sync_block_threads();
    }
    out[t] = acc;
}

// No wait at all: the barrier does not land a copy.
#[kernel(block = 256)]
fn reverse(out: &mut [f32], x: &[f32]) {
    let tile = shared::<[f32; 256]>();
    let t = thread_idx().x as usize;
    let i = global_idx().x as usize;
    cp_async(&mut tile[t], &x[i]);
    cp_async_commit();
    sync_block_threads();
    out[i] = tile[255 - t];
}

fn main() {}
