use cuphase::prelude::*;

#[device]
fn bump(x: &mut u32) {
    *x += 1;
}

#[kernel]
fn k(out: &mut [f32], counts: &[u32]) {
    let i = global_idx().x;
    // A read-only slice's element cannot be borrowed `&mut`.
    bump(&mut counts[i]);
    // An element of another type than the parameter's.
    bump(&mut out[i]);
}

fn main() {}
