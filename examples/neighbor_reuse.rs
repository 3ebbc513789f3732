//! alpaka's chunk-reuse kernel: each block takes chunks of the input (`blocks_in_grid`), its
//! threads fill a shared chunk (`threads_in_block`), a barrier separates filling from reading,
//! each thread adds its element and its right neighbour (wrapping within the chunk), and a
//! second barrier keeps the next chunk's writes from racing with this chunk's reads.
//!
//! Run: `cargo run --release --example neighbor_reuse`.

use cuphase::prelude::*;
use std::process::ExitCode;
use std::time::Instant;

/// Elements in one chunk; the shared array's length.
const CHUNK: usize = 256;

/// `out[c + i] = input[c + i] + input[c + (i + 1) % 256]` for every chunk `c`.
#[kernel]
pub fn neighbor_reuse(out: &mut [i32], input: &[i32]) {
    let chunk = shared::<[i32; 256]>();
    let n = out.len() as u32;
    for chunk_offset in blocks_in_grid((0..n).step_by(256)) {
        // fill the shared chunk
        for idx in threads_in_block(0..256u32) {
            chunk[idx] = input[chunk_offset + idx];
        }
        sync_block_threads();
        for idx in threads_in_block(0..256u32) {
            let neighbor = (idx + 1) % 256;
            out[chunk_offset + idx] = chunk[idx] + chunk[neighbor];
        }
        // avoid a data race with the next chunk's writes
        sync_block_threads();
    }
}

fn expected(input: &[i32]) -> Vec<i32> {
    input
        .chunks(CHUNK)
        .flat_map(|c| (0..c.len()).map(move |i| c[i].wrapping_add(c[(i + 1) % CHUNK])))
        .collect()
}

fn run() -> Result<bool, Error> {
    let dev = Device::default()?;
    let n = 1 << 22;
    let host: Vec<i32> = (0..n as i32).map(|i| i.wrapping_mul(7919) % 1000).collect();
    let input = dev.upload(&host)?;
    let mut out = dev.zeros::<i32>(n)?;
    // Fewer blocks than chunks: each block walks several chunks, as in alpaka's example.
    let launch = Launch::new(1024, 128);
    let t0 = Instant::now();
    neighbor_reuse.launch(&dev, launch, &mut out, &input)?;
    dev.synchronize()?;
    let first = t0.elapsed();
    let t1 = Instant::now();
    neighbor_reuse.launch(&dev, launch, &mut out, &input)?;
    dev.synchronize()?;
    let second = t1.elapsed();
    let ok = out.to_vec()? == expected(&host);
    println!(
        "neighbor_reuse: {n} elements on {}: first launch {:.2} ms{}, second {:.3} ms: {}",
        dev.name(),
        first.as_secs_f64() * 1e3,
        if dev.is_cuda() {
            " (with NVRTC compilation)"
        } else {
            ""
        },
        second.as_secs_f64() * 1e3,
        if ok { "correct" } else { "WRONG" }
    );
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("neighbor_reuse: {e}");
            ExitCode::FAILURE
        }
    }
}
