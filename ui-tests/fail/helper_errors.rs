use cuphase::prelude::*;

#[device]
fn even(n: u32) -> bool {
    if n == 0 {
        return true;
    }
    odd(n - 1)
}

#[device]
fn odd(n: u32) -> bool {
    if n == 0 {
        return false;
    }
    even(n - 1)
}

#[device]
fn bump(x: &mut u32) {
    *x += 1;
}

#[device]
fn store(a: &mut [f32], i: u32) {
    a[i] = 0.0;
}

#[device]
fn half<T: Float>(x: T) -> T {
    x * 0.5
}

#[kernel]
fn k(out: &mut [f32], input: &[f32], n: u32) {
    let i = global_idx().x;
    let c = 0u32;
    bump(&mut c);
    store(input, i);
    if even(n) {
        out[i] = half(3u32) as f32;
    }
}

fn main() {}
