use cuphase::prelude::*;

// Each step refills the next step's stage after its barrier, and the next step reads that
// stage before its own wait: the copy may still be in flight.
#[kernel(block = 64)]
fn k(out: &mut [f32], x: &[f32], slices: u32) {
    let tile = shared::<[[f32; 64]; 2]>();
    let t = thread_idx().x as usize;
    let n = slices as usize;
    let mut acc = 0.0f32;
    cp_async(&mut tile[0][t], &x[t]);
    cp_async_commit();
    cp_async_wait(0);
    sync_block_threads();
    for s in 0..n {
        acc += tile[s % 2][63 - t];
        cp_async_wait(0);
        sync_block_threads();
        if s + 1 < n {
            cp_async(&mut tile[(s + 1) % 2][t], &x[(s + 1) * 64 + t]);
        }
        cp_async_commit();
    }
    out[t] = acc;
}

fn main() {}
