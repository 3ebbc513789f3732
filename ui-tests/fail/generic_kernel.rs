use cuphase::prelude::*;

/// `sqrt` is a float method: the integer instances do not compile.
#[kernel]
fn roots<T: Num>(out: &mut [T]) {
    let i = global_idx().x;
    out[i] = out[i].sqrt();
}

#[kernel]
fn mixed<T: Num, const N: u32>(out: &mut [T]) {
    out[0] = out[N];
}

/// Two arrays sized at launch cannot share the one dynamic allocation.
#[kernel]
fn two<const N: u32>(out: &mut [u32]) {
    let a = shared::<[u32; N]>();
    let b = shared::<[u32; N]>();
    let t = thread_idx().x;
    a[t] = t;
    b[t] = t;
    out[t] = a[t] + b[t];
}

fn main() {}
