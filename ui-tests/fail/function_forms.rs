// Function forms a kernel or helper cannot take: each is an error naming it, never dropped.
use cuphase::prelude::*;

#[kernel]
pub async fn k_async(out: &mut [u32]) {
    out[0] = 1;
}

#[kernel]
pub const fn k_const(out: &mut [u32]) {
    out[0] = 1;
}

#[kernel]
pub extern "C" fn k_extern(out: &mut [u32]) {
    out[0] = 1;
}

#[kernel]
pub unsafe fn k_unsafe(out: &mut [u32]) {
    out[0] = 1;
}

#[device]
unsafe fn h_unsafe(x: u32) -> u32 {
    x + 1
}

#[kernel]
pub fn k_calls(out: &mut [u32]) {
    if thread_idx().x == 0 {
        out[0] = h_unsafe(1);
    }
}

#[kernel]
pub fn k_labelled_block(out: &mut [u32]) {
    let v = 'blk: {
        if thread_idx().x > 100 {
            break 'blk 1u32;
        }
        2u32
    };
    if thread_idx().x == 0 {
        out[0] = v;
    }
}

#[kernel]
pub fn k_lifetime<'a>(out: &'a mut [u32]) {
    out[0] = 1;
}

#[kernel]
pub fn k_param_attribute(#[allow(unused)] out: &mut [u32], _: u32) {
    out[0] = 1;
}

fn main() {}
