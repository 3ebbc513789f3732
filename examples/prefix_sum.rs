//! An inclusive prefix sum of 65,536 integers in three launches: each block scans its 256
//! elements in shared memory with the `cuphase-blocks` library's block scan (Hillis-Steele, a
//! barrier between steps) and writes its total; one block scans the totals; every block adds
//! the totals before it.
//!
//! Run: `cargo run --release --example prefix_sum`.

use cuphase::prelude::*;
use cuphase_blocks::block_inclusive_scan_sum;
use std::process::ExitCode;
use std::time::Instant;

/// `out[i]` = the sum of block `b`'s elements up to `i`; `totals[b]` = block `b`'s sum.
/// Launch with 256 threads per block. The scan is `cuphase_blocks::block_inclusive_scan_sum`, a
/// `#[device]` helper from another crate, inlined here and checked with the rest.
#[kernel(block = 256)]
pub fn block_scan(out: &mut [u32], totals: &mut [u32], input: &[u32]) {
    let buf = shared::<[u32; 256]>();
    let t = thread_idx().x;
    let i = global_idx().x as usize;
    let v = if i < input.len() { input[i] } else { 0 };
    let sum = block_inclusive_scan_sum(&mut buf, v);
    if i < out.len() {
        out[i] = sum;
    }
    if t == 255 {
        totals[block_idx().x] = sum;
    }
}

/// Adds to each element of block `b` the sum of the blocks before it (`scanned[b - 1]`).
#[kernel]
pub fn add_offsets(out: &mut [u32], scanned: &[u32]) {
    let b = block_idx().x;
    let i = global_idx().x as usize;
    if b > 0 && i < out.len() {
        out[i] += scanned[b - 1];
    }
}

fn run() -> Result<bool, Error> {
    let dev = Device::default()?;
    let n = 1usize << 16;
    let host: Vec<u32> = (0..n).map(|i| (i % 10) as u32).collect();
    let input = dev.upload(&host)?;
    let blocks = n.div_ceil(256);
    let mut out = dev.zeros::<u32>(n)?;
    let mut totals = dev.zeros::<u32>(blocks)?;
    let mut scanned = dev.zeros::<u32>(blocks)?;
    let mut unused = dev.zeros::<u32>(1)?;
    let t0 = Instant::now();
    block_scan.launch(&dev, Launch::cover(n, 256), &mut out, &mut totals, &input)?;
    // 256 blocks of totals: one block scans them all.
    block_scan.launch(
        &dev,
        Launch::new(1, 256),
        &mut scanned,
        &mut unused,
        &totals,
    )?;
    add_offsets.launch(&dev, Launch::cover(n, 256), &mut out, &scanned)?;
    let got = out.to_vec()?;
    let elapsed = t0.elapsed();
    let want: Vec<u32> = host
        .iter()
        .scan(0u32, |s, v| {
            *s += v;
            Some(*s)
        })
        .collect();
    let ok = got == want;
    println!(
        "prefix_sum: {n} elements in {blocks} blocks on {} in {:.2} ms (three launches{}), last {}: {}",
        dev.name(),
        elapsed.as_secs_f64() * 1e3,
        if dev.is_cuda() { ", the first with NVRTC compilation" } else { "" },
        got.last().copied().unwrap_or(0),
        if ok { "correct" } else { "WRONG" }
    );
    Ok(ok)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("prefix_sum: {e}");
            ExitCode::FAILURE
        }
    }
}
