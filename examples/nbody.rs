//! All-pairs n-body accelerations through tiles in shared memory: each block loads 256 bodies
//! at a time, every thread accumulates their pull on its own body, and the block moves on.
//!
//! Run: `cargo run --release --example nbody`.

use cuphase::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

/// Softening, so that a body's pull on itself is zero and close pairs stay finite.
const SOFT: f32 = 1e-3;

/// `acc[i]` = the acceleration of body `i` (x, y, z, mass) from every body; `n` a multiple of
/// 256, launched with 256 threads per block.
#[kernel]
pub fn nbody(acc: &mut [[f32; 4]], pos: &[[f32; 4]]) {
    let tile = shared::<[[f32; 4]; 256]>();
    let t = thread_idx().x;
    let i = global_idx().x;
    let me = pos[i];
    let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
    for base in (0..pos.len() as u32).step_by(256) {
        tile[t] = pos[base + t];
        sync_block_threads();
        for j in 0..256u32 {
            let p = tile[j];
            let (dx, dy, dz) = (p[0] - me[0], p[1] - me[1], p[2] - me[2]);
            let d2 = dx * dx + dy * dy + dz * dz + SOFT;
            let inv = 1.0 / d2.sqrt();
            let s = p[3] * (inv * inv * inv);
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        sync_block_threads();
    }
    acc[i] = [ax, ay, az, 0.0];
}

/// Body `i`'s acceleration on the host, summed in the kernel's order.
fn host_acc(pos: &[[f32; 4]], i: usize) -> [f32; 4] {
    let me = pos[i];
    let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
    for p in pos {
        let (dx, dy, dz) = (p[0] - me[0], p[1] - me[1], p[2] - me[2]);
        let d2 = dx * dx + dy * dy + dz * dz + SOFT;
        let inv = 1.0 / d2.sqrt();
        let s = p[3] * (inv * inv * inv);
        ax += dx * s;
        ay += dy * s;
        az += dz * s;
    }
    [ax, ay, az, 0.0]
}

fn run() -> Result<bool, Error> {
    let dev = Device::default()?;
    let n = 4096usize;
    let pos: Vec<[f32; 4]> = (0..n)
        .map(|i| {
            let a = i as f32 * 0.618;
            let r = 1.0 + (i % 97) as f32 / 97.0;
            [
                r * a.cos(),
                r * a.sin(),
                (i % 13) as f32 / 13.0 - 0.5,
                1.0 / n as f32,
            ]
        })
        .collect();
    let dpos = dev.upload(&pos)?;
    let mut acc = dev.zeros::<[f32; 4]>(n)?;
    let t0 = Instant::now();
    nbody.launch(&dev, Launch::new((n / 256) as u32, 256), &mut acc, &dpos)?;
    let got = acc.to_vec()?;
    let elapsed = t0.elapsed();
    // Bit-equal to the host (the same operations in the same order; no contraction into FMA).
    let ok = (0..n).step_by(37).all(|i| got[i] == host_acc(&pos, i));
    println!(
        "nbody: {n} bodies on {} in {:.2} ms (first launch{}): {}",
        dev.name(),
        elapsed.as_secs_f64() * 1e3,
        if dev.is_cuda() {
            ", with NVRTC compilation"
        } else {
            ""
        },
        if ok {
            "correct (bit-equal to the host)"
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
            eprintln!("nbody: {e}");
            ExitCode::FAILURE
        }
    }
}
