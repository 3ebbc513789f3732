use cuphase::prelude::*;

/// `sqrt` is a float method: the integer instances do not compile.
#[kernel]
fn roots<T: Num>(out: &mut [T]) {
    let i = global_idx().x;
    out[i] = out[i].sqrt();
}

#[kernel]
fn sized<const N: u32>(out: &mut [u32]) {
    out[0] = N;
}

fn main() {}
