use cuphase::prelude::*;

/// Reads one element past the end in the last thread.
#[kernel(bounds_checks = true)]
pub fn read_past_end(out: &mut [u32], input: &[u32]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = input[i + 1];
    }
}

/// Indexes a 2-D shared tile with a column past its width.
#[kernel(bounds_checks = true)]
pub fn shared_column_past_end(out: &mut [u32]) {
    let tile = shared::<[[u32; 8]; 4]>();
    let t = thread_idx().x;
    tile[t % 4][t] = t;
    sync_block_threads();
    out[t] = tile[0][t % 8];
}

/// Stores past the end of a thread-local array: Rust panics, whatever the build.
#[kernel(bounds_checks = true)]
pub fn local_past_end(out: &mut [u32], k: u32) {
    let mut a = [1u32; 4];
    let t = thread_idx().x;
    if t == 2 {
        a[k] = 7;
    }
    out[t] = a[0];
}

/// Divides by a parameter that is zero.
#[kernel]
pub fn divide(out: &mut [i32], d: i32) {
    let i = global_idx().x;
    out[i] = 100 / d;
}

/// A barrier only some threads of the block reach; the false promise of `assume_uniform`
/// hides it from the compiler, and the simulator catches it.
#[kernel]
pub fn divergent_barrier(out: &mut [u32]) {
    let t = thread_idx().x;
    let low_half = unsafe { assume_uniform(t < 16) };
    if low_half {
        sync_block_threads();
    }
    out[t] = t;
}

/// Threads that return early never reach the barrier the others wait at.
#[kernel]
pub fn early_return(out: &mut [u32], n: u32) {
    let t = thread_idx().x;
    if unsafe { assume_uniform(t >= n) } {
        return;
    }
    sync_block_threads();
    out[t] = t;
}

/// Two different barriers in the two arms of a branch.
#[kernel]
pub fn two_barriers(out: &mut [u32]) {
    let t = thread_idx().x;
    if unsafe { assume_uniform(t % 2 == 0) } {
        sync_block_threads();
    } else {
        sync_block_threads();
    }
    out[t] = t;
}

/// `step_by(0)` panics in Rust.
#[kernel]
pub fn zero_step(out: &mut [u32], step: u32) {
    for i in (0..4u32).step_by(step) {
        // Every thread writes the same values: a benign race the proof would reject.
        unsafe {
            out[i] = i;
        }
    }
}
