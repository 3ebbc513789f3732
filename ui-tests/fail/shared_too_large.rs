use cuphase::prelude::*;

// 4 GiB in one array.
#[kernel]
fn huge(out: &mut [f32]) {
    let tile = shared::<[f32; 1073741824]>();
    let t = thread_idx().x;
    tile[t] = 1.0;
    sync_block_threads();
    out[t] = tile[t];
}

// 128 KiB + 128 KiB: each fits in a block's 227 KiB (carved from dynamic shared memory, since
// either is more than 48 KiB), together they do not.
#[kernel]
fn two_halves(out: &mut [f32]) {
    let a = shared::<[f32; 32768]>();
    let b = shared::<[[f32; 256]; 128]>();
    let t = thread_idx().x;
    a[t] = 1.0;
    b[0][t] = 2.0;
    sync_block_threads();
    out[t] = a[t] + b[0][t];
}

// 800 KB a thread: thread-local arrays live in registers (at most 64 elements).
#[kernel]
fn big_local(out: &mut [f32]) {
    let mut acc = [0.0f32; 200000];
    let t = thread_idx().x;
    acc[t] = 1.0;
    out[t] = acc[t];
}

fn main() {}
