use cuphase::prelude::*;

// A whole row of a shared array written by one thread and read by another, with no barrier
// between: the row's four elements race.
#[kernel(block = 64)]
fn rows_race(out: &mut [[f32; 4]], input: &[[f32; 4]]) {
    let tile = shared::<[[f32; 4]; 64]>();
    let t = thread_idx().x;
    let i = global_idx().x as usize;
    tile[t] = input[i];
    let v = tile[63 - t];
    out[i] = v;
}

// One lane of a row written by every thread.
#[kernel(block = 64)]
fn lane_race(out: &mut [f32]) {
    let tile = shared::<[[f32; 4]; 64]>();
    let t = thread_idx().x;
    tile[0] = [t as f32, 0.0, 0.0, 0.0];
    sync_block_threads();
    out[t as usize] = tile[0][0];
}

fn main() {}
