use cuphase::prelude::*;

// Accepted: a barrier before a non-uniform `continue` (every thread still runs every
// iteration; WGSL's rules would reject this).
#[kernel]
fn continue_after_barrier(out: &mut [f32], n: u32) {
    let tile = shared::<[f32; 128]>();
    let t = thread_idx().x;
    for i in 0..n {
        sync_block_threads();
        if t % 2 == 1 {
            continue;
        }
        if t < 128 {
            tile[t] = i as f32;
        }
    }
    sync_block_threads();
    if t < 128 {
        out[t] = tile[t];
    }
}

// Accepted: the promise of `assume_uniform` is checked by the simulator at run time.
#[kernel]
fn vouched(out: &mut [f32], input: &[f32]) {
    let first = unsafe { assume_uniform(input[0] > 0.0) };
    if first {
        sync_block_threads();
    }
    out[global_idx().x] = 1.0;
}

// Accepted: `uniform_load` makes a block-uniform value from shared memory.
#[kernel]
fn broadcast(out: &mut [u32], input: &[u32]) {
    let tile = shared::<[u32; 1]>();
    if thread_idx().x == 0 {
        tile[0] = input[block_idx().x];
    }
    let count = uniform_load(&tile[0]);
    for i in 0..count {
        sync_block_threads();
        out[global_idx().x] = i;
    }
}

// Accepted: `sync = "auto"` places the barrier, and `.report()` says where and why.
#[kernel(sync = "auto")]
fn reverse_auto(out: &mut [f32], input: &[f32]) {
    let tile = shared::<[f32; 256]>();
    let t = thread_idx().x;
    tile[t] = input[global_idx().x];
    out[global_idx().x] = tile[block_dim().x - 1 - t];
}

fn main() {
    assert!(reverse_auto.report().contains("inserted"));
    assert_eq!(reverse_auto.cuda_source().matches("__syncthreads();").count(), 1);
    let _ = (continue_after_barrier, vouched, broadcast);
}
