use cuphase::prelude::*;

/// Attributes other than `#[cfg]`, `#[cfg_attr]` and lints are errors naming them; lints are
/// accepted.
#[kernel]
fn k(out: &mut [u32]) {
    let i = global_idx().x;
    #[allow(unused_variables)]
    let unused = 1u32;
    #[inline]
    let v = i;
    #[kernel]
    {
        out[i] = v;
    }
    #[rustfmt::skip]
    let w = 2u32;
    #[must_use]
    out[0] = w;
}

/// A false `#[cfg]` on an expression in the middle of another: Rust cannot remove it.
#[kernel]
fn inner(out: &mut [u32]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = 1 + #[cfg(any())] 2;
    }
}

fn main() {}
