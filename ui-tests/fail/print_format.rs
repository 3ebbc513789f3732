use cuphase::prelude::*;

#[kernel]
fn spec(out: &mut [f32]) {
    println!("{:e}", out[0]);
}

#[kernel]
fn centred(out: &mut [f32]) {
    println!("[{:^8}]", out[0]);
}

#[kernel]
fn unused(out: &mut [f32]) {
    println!("{}", out[0], out[1]);
}

#[kernel]
fn missing(out: &mut [f32]) {
    println!("{} {}", out[0]);
}

#[kernel]
fn not_literal(out: &mut [f32]) {
    let f = 1u32;
    println!(f);
}

#[kernel]
fn array(out: &mut [f32]) {
    println!("{:?}", out);
}

#[kernel]
fn unclosed(out: &mut [f32]) {
    println!("{", out[0]);
}

fn main() {}
