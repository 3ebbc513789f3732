//! Times the first launch of a kernel in a fresh process: NVRTC compile (cold cache) or disk
//! cache load (warm), module load, launch and copy back. Run it twice with the same
//! `CUPHASE_CACHE_DIR` to see both.
//!
//! Run: `CUPHASE_CACHE_DIR=/tmp/c cargo run --release --example first_launch` (GPU needed).
//! With `--stages` it times the steps of a first launch one by one instead (loading NVRTC,
//! its version, the cache lookup, the module load, the first launch of the loaded function),
//! to show where the time goes.

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
    if std::env::args().any(|a| a == "--stages") {
        return stages(&dev);
    }
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

/// The steps of a first launch, timed one at a time in this order (each pays only for
/// itself: NVRTC is loaded by the first step).
fn stages(dev: &Device) -> ExitCode {
    let ms = |t: Instant| t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let present = cuphase::cuda::nvrtc_available();
    println!("stage: load NVRTC (dlopen) {:.3} ms ({present})", ms(t));
    let t = Instant::now();
    let version = cuphase::cuda::nvrtc_version();
    println!("stage: NVRTC version {:.3} ms ({version:?})", ms(t));
    let Some(arch) = dev.cuda_arch() else {
        return ExitCode::FAILURE;
    };
    let t = Instant::now();
    let compiled =
        cuphase::cuda::compile_cached(saxpy.cuda_source(), "first_launch.rs", "saxpy", arch, false);
    let Ok((module, outcome)) = compiled else {
        return ExitCode::FAILURE;
    };
    println!(
        "stage: compile through the cache {:.3} ms ({outcome:?})",
        ms(t)
    );
    let Some(stream) = dev.cuda_stream() else {
        return ExitCode::FAILURE;
    };
    let t = Instant::now();
    let loaded = stream
        .context()
        .load_module(cudarc::nvrtc::Ptx::from_binary(module.image))
        .and_then(|m| m.load_function("saxpy"));
    println!("stage: module load {:.3} ms", ms(t));
    if loaded.is_err() {
        return ExitCode::FAILURE;
    }
    let (Ok(x), Ok(mut y)) = (dev.upload(&[1.0f32; 1024]), dev.zeros::<f32>(1024)) else {
        return ExitCode::FAILURE;
    };
    for what in ["cuphase's first launch after all that", "second launch"] {
        let t = Instant::now();
        let r = saxpy
            .launch(dev, Launch::cover(1024, 256), &mut y, &x, 3.0)
            .and_then(|()| dev.synchronize());
        println!("stage: {what} {:.3} ms ({r:?})", ms(t));
    }
    ExitCode::SUCCESS
}
