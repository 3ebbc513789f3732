//! A quick prototype in the closure form: the kernel captures its scale from the host, prints
//! from a few threads (with their block and thread), and is checked against plain Rust.
//!
//! Run: `cargo run --release --example prototype`.

use cuphase::prelude::*;
use std::process::ExitCode;

fn run() -> Result<bool, Error> {
    let dev = Device::default()?;
    let n = 1000usize;
    let a = 2.5f32;
    let shift = 7u32;
    // `a` and `shift` are captured: the kernel value holds them and passes them at launch.
    let axpy = kernel_closure!(|y: &mut [f32], x: &[f32]| {
        let i = global_idx().x;
        if i < y.len() as u32 {
            y[i] = a * x[i] + y[i] + shift as f32;
            if thread_idx().x == 0 && block_idx().x < 2 {
                println!("y[{i}] = {:.3}", y[i]);
            }
        }
    });
    let xs: Vec<f32> = (0..n).map(|i| i as f32 / 8.0).collect();
    let x = dev.upload(&xs)?;
    let mut y = dev.upload(&vec![1.0f32; n])?;
    axpy.launch(&dev, Launch::cover(n, 256).print_ids(true), &mut y, &x)?;
    let got = y.to_vec()?;
    let ok = got
        .iter()
        .zip(&xs)
        .all(|(g, x)| *g == a * x + 1.0 + shift as f32);
    println!(
        "prototype: {n} elements on {}: {}",
        dev.name(),
        if ok {
            "correct (bit-equal to plain Rust)"
        } else {
            "WRONG"
        }
    );
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("prototype: {e}");
            ExitCode::FAILURE
        }
    }
}
