use cuphase::prelude::*;

// Races the compiler cannot see (inside `unsafe`, or in global memory) and the simulator finds.

/// Every thread writes its element, then reads its neighbour's, with no barrier between.
#[kernel]
pub fn shared_read_after_write(out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let t = thread_idx().x;
    unsafe {
        tile[t] = t;
    }
    let v = unsafe { tile[(t + 1) % 64] };
    out[t] = v;
}

/// Every thread reads its neighbour's element, then overwrites its own.
#[kernel]
pub fn shared_write_after_read(out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let t = thread_idx().x;
    let v = unsafe { tile[(t + 1) % 64] };
    unsafe {
        tile[t] = v + 1;
    }
    out[t] = v;
}

/// Every thread writes element 0.
#[kernel]
pub fn shared_write_after_write(out: &mut [u32]) {
    let tile = shared::<[u32; 64]>();
    let t = thread_idx().x;
    unsafe {
        tile[0] = t;
    }
    sync_block_threads();
    out[t] = tile[0];
}

/// Every thread of every block writes `out[0]` (the compiler rejects it outside `unsafe`).
#[kernel]
pub fn global_write_after_write(out: &mut [u32]) {
    unsafe {
        out[0] = global_idx().x;
    }
}

/// Thread 0 of block 1 writes what every thread of block 0 reads.
#[kernel]
pub fn global_across_blocks(out: &mut [u32], flag: &mut [u32]) {
    let t = thread_idx().x;
    if block_idx().x == 1 && t == 0 {
        flag[0] = 7;
    }
    if block_idx().x == 0 {
        out[t] = flag[0];
    }
}

/// Ordered by a barrier within one block: no race.
#[kernel]
pub fn global_ordered_by_barrier(out: &mut [u32], flag: &mut [u32]) {
    let t = thread_idx().x;
    if t == 0 {
        flag[block_idx().x] = block_idx().x + 1;
    }
    sync_block_threads();
    out[global_idx().x] = flag[block_idx().x];
}

/// Atomics from every thread of every block: no race; a plain read among them: a race.
#[kernel]
pub fn global_atomics(counter: &mut [u32], peek: u32) {
    counter.atomic_add(0, 1);
    if peek == 1 && global_idx().x == 5 {
        counter[1] = counter[0];
    }
}
