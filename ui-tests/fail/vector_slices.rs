use cuphase::prelude::*;

#[repr(C)]
#[derive(Clone, Copy, DeviceStruct)]
struct P2 {
    x: f32,
    y: f32,
}

// Slices of arrays hold arrays of scalars.
#[kernel]
fn of_structs(a: &mut [[P2; 2]]) {
    let _ = a.len();
}

// An element's length is a literal or a module constant.
#[kernel]
fn unknown_len<const N: usize>(a: &mut [[f32; N]]) {
    let _ = a.len();
}

// A row of a shared array is a `[f32; 4]`; an element holds 4 values.
#[kernel(block = 64)]
fn rows(out: &mut [[f32; 4]]) {
    let tile = shared::<[[f32; 4]; 64]>();
    let t = thread_idx().x;
    tile[t] = [1.0, 2.0, 3.0];
    sync_block_threads();
    let v: [f32; 2] = tile[t];
    out[t as usize] = [v[0], v[1], 0.0, 0.0, 1.0];
}

// An element in a tuple is a value the kernel cannot hold whole.
#[kernel]
fn in_a_tuple(out: &mut [f32], a: &[[f32; 4]]) {
    let (x, y) = (a[0], a[1]);
    out[0] = x[0] + y[0];
}

fn main() {}
