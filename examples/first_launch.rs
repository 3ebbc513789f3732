//! Times the first launch of a kernel in a fresh process: NVRTC compile (cold cache) or disk
//! cache load (warm), module load, launch and copy back. Run it twice with the same
//! `CUPHASE_CACHE_DIR` to see both.
//!
//! Run: `CUPHASE_CACHE_DIR=/tmp/c cargo run --release --example first_launch` (GPU needed).

use cuphase::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

#[kernel]
pub fn saxpy(y: &mut [f32], x: &[f32], a: f32) {
    let i = global_idx().x;
    if i < y.len() as u32 {
        y[i] = a * x[i] + y[i];
    }
}

fn main() -> ExitCode {
    let dev = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            println!("first_launch: skipped: no GPU ({e})");
            return ExitCode::SUCCESS;
        }
    };
    let x = dev.upload(&[1.0f32; 1024]);
    let y = dev.upload(&[2.0f32; 1024]);
    let (Ok(x), Ok(mut y)) = (x, y) else {
        return ExitCode::FAILURE;
    };
    let t = Instant::now();
    let r = saxpy
        .launch(&dev, Launch::cover(1024, 256), &mut y, &x, 3.0)
        .and_then(|()| y.to_vec());
    let ms = t.elapsed().as_secs_f64() * 1e3;
    match r {
        Ok(v) if v.iter().all(|e| *e == 5.0) => {
            println!(
                "first_launch: {ms:.2} ms for the first launch in this process (cache dir: {:?})",
                std::env::var("CUPHASE_CACHE_DIR").ok()
            );
            ExitCode::SUCCESS
        }
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("first_launch: {e}");
            ExitCode::FAILURE
        }
    }
}
