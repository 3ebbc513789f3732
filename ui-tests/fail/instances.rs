use cuphase::prelude::*;

// A parameter without a list, a value of the wrong type, one out of range, a repeated one.
#[kernel(instances(N = [64, 300], P = [true, 2]))]
fn lists<const N: u8, const P: bool, const M: u32>(out: &mut [u32]) {
    out[0] = N as u32 + M;
}

// A list for a parameter the kernel does not have.
#[kernel(instances(N = [1, 1], Q = [2]))]
fn unknown<const N: u32>(out: &mut [u32]) {
    out[0] = N;
}

// `instances` on a kernel without const parameters.
#[kernel(instances(N = [1]))]
fn plain(out: &mut [u32]) {
    out[0] = 1;
}

// An instance whose body has an error: the error says which instance.
#[kernel(instances(K = [0, 2]))]
fn empty_array<const K: usize>(out: &mut [f32]) {
    let r = [1.0f32; K];
    out[0] = r[0];
}

fn main() {}
