use cuphase::prelude::*;

#[kernel]
fn as_scalar(out: &mut [i32], x: i32) {
    let i = global_idx().x;
    let v = x.checked_add(1);
    // An `Option` where a scalar is expected.
    out[i] = v;
}

#[kernel]
fn not_exhaustive(out: &mut [i32], x: i32) {
    let i = global_idx().x;
    out[i] = match x.checked_mul(3) {
        Some(0) => 1,
        None => 2,
    };
}

#[kernel]
fn return_in_closure(out: &mut [i32], x: i32) {
    let i = global_idx().x;
    let v = Some(x).map(|y| {
        if y > 3 {
            return 0;
        }
        y + 1
    });
    out[i] = v.unwrap_or(0);
}

#[kernel]
fn option_of_array(out: &mut [i32]) {
    let i = global_idx().x;
    let v: Option<[i32; 2]> = None;
    out[i] = 0;
}

#[kernel]
fn assigned_twice(out: &mut [i32], x: i32) {
    let i = global_idx().x;
    let v = Some(x);
    v = None;
    out[i] = v.unwrap_or(1);
}

#[kernel]
fn if_let_on_a_scalar(out: &mut [i32], x: i32) {
    let i = global_idx().x;
    if let 3 = x {
        out[i] = 1;
    }
}

#[kernel]
fn signed_only(out: &mut [u32], x: u32) {
    let i = global_idx().x;
    out[i] = x.checked_abs().unwrap_or(0);
}

fn main() {}
