//! The shipped library of cooperative blocks (`cuphase-blocks`, its own crate) called from
//! kernels of this crate: `#[device]` helpers across a crate boundary, their barriers and
//! trailing syncs seen through it. Each case runs on the simulator against plain Rust and,
//! through `cases::all`, on the GPU against the simulator bit for bit.

use crate::cases::Case;
use cuphase::prelude::*;
use cuphase_blocks as blocks;
use cuphase_blocks::{block_histogram, block_inclusive_scan_sum};

/// One sum and one maximum per block of 128 threads (float and integer instances of the
/// library's generic helpers); the scratch array is reused right after the first call, which
/// the helper's trailing barrier makes safe.
#[kernel(block = 128)]
pub fn lib_reduce(sums: &mut [f32], maxes: &mut [i32], x: &[f32], y: &[i32]) {
    let scratch = shared::<[f32; 128]>();
    let iscratch = shared::<[i32; 128]>();
    let i = global_idx().x;
    let v = if i < x.len() as u32 { x[i] } else { 0.0 };
    let s = blocks::block_reduce_sum(&mut scratch, v);
    let s2 = blocks::block_reduce_sum(&mut scratch, v * 2.0);
    let w = if i < y.len() as u32 { y[i] } else { i32::MIN };
    let m = blocks::block_reduce_max(&mut iscratch, w);
    if thread_idx().x == 0 {
        sums[block_idx().x * 2] = s;
        sums[block_idx().x * 2 + 1] = s2;
        maxes[block_idx().x] = m;
    }
}

/// Inclusive and exclusive block scans (256 threads), then the warp operations.
#[kernel(block = 256)]
pub fn lib_scan(inc: &mut [u32], exc: &mut [u32], warp: &mut [i32], x: &[u32]) {
    let scratch = shared::<[u32; 256]>();
    let i = global_idx().x;
    let v = x[i];
    let a = block_inclusive_scan_sum(&mut scratch, v);
    let b = blocks::block_exclusive_scan_sum(&mut scratch, v);
    inc[i] = a;
    exc[i] = b;
    let w = v as i32 - 50;
    let base = i * 4;
    warp[base] = blocks::warp_reduce_sum(w);
    warp[base + 1] = blocks::warp_reduce_max(w);
    warp[base + 2] = blocks::warp_inclusive_scan_sum(w);
    warp[base + 3] = blocks::warp_exclusive_scan_sum(w);
}

/// Each block of 256 threads sorts its 256 keys: tile load (padded with `u32::MAX`), bitonic
/// sort, tile store.
#[kernel(block = 256)]
pub fn lib_sort(out: &mut [u32], keys: &[u32]) {
    let tile = shared::<[u32; 256]>();
    let base = block_idx().x * 256;
    blocks::block_load(&mut tile, keys, base, u32::MAX);
    blocks::block_sort(&mut tile);
    blocks::block_store(&tile, out, base);
}

/// A 32-bin histogram: the block's counts with the library, added to the global bins.
#[kernel]
pub fn lib_histogram(bins: &mut [u32], keys: &[u32]) {
    let local = shared::<[u32; 32]>();
    let i = global_idx().x;
    let key = if i < keys.len() as u32 {
        keys[i] % 40
    } else {
        99
    };
    block_histogram(&mut local, key);
    sync_block_threads();
    for k in threads_in_block(0..32) {
        bins.atomic_add(k, local[k]);
    }
}

fn words(n: usize, seed: u32) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s
        })
        .collect()
}

fn reduce_inputs() -> (Vec<f32>, Vec<i32>) {
    let x = words(1000, 7)
        .iter()
        .map(|w| (w % 1000) as f32 / 64.0 - 7.0)
        .collect();
    let y = words(1000, 9).iter().map(|w| (*w as i32) >> 4).collect();
    (x, y)
}

fn run_reduce(d: &Device) -> Result<Vec<u64>, Error> {
    let (x, y) = reduce_inputs();
    let (x, y) = (d.upload(&x)?, d.upload(&y)?);
    let mut sums = d.zeros::<f32>(16)?;
    let mut maxes = d.zeros::<i32>(8)?;
    lib_reduce.launch(d, Launch::new(8, 128), &mut sums, &mut maxes, &x, &y)?;
    let mut out: Vec<u64> = sums
        .to_vec()?
        .iter()
        .map(|v| u64::from(v.to_bits()))
        .collect();
    out.extend(maxes.to_vec()?.iter().map(|v| *v as u32 as u64));
    Ok(out)
}

/// The tree the helper computes, in its order (so that float sums compare bit for bit).
fn tree_sum(v: &mut [f32]) -> f32 {
    let mut s = v.len() / 2;
    while s > 0 {
        for t in 0..s {
            v[t] += v[t + s];
        }
        s /= 2;
    }
    v[0]
}

fn reduce_expected() -> Vec<u64> {
    let (x, y) = reduce_inputs();
    let mut sums = Vec::new();
    let mut maxes = Vec::new();
    for b in 0..8 {
        let block: Vec<f32> = (0..128)
            .map(|t| x.get(b * 128 + t).copied().unwrap_or(0.0))
            .collect();
        sums.push(tree_sum(&mut block.clone()));
        sums.push(tree_sum(
            &mut block.iter().map(|v| v * 2.0).collect::<Vec<_>>(),
        ));
        maxes.push(
            (0..128)
                .map(|t| y.get(b * 128 + t).copied().unwrap_or(i32::MIN))
                .max()
                .unwrap(),
        );
    }
    let mut out: Vec<u64> = sums.iter().map(|v| u64::from(v.to_bits())).collect();
    out.extend(maxes.iter().map(|v| *v as u32 as u64));
    out
}

const SCAN_N: usize = 1024;

fn scan_input() -> Vec<u32> {
    words(SCAN_N, 3).iter().map(|w| w % 100).collect()
}

fn run_scan(d: &Device) -> Result<Vec<u64>, Error> {
    let x = d.upload(&scan_input())?;
    let mut inc = d.zeros::<u32>(SCAN_N)?;
    let mut exc = d.zeros::<u32>(SCAN_N)?;
    let mut warp = d.zeros::<i32>(SCAN_N * 4)?;
    lib_scan.launch(d, Launch::new(4, 256), &mut inc, &mut exc, &mut warp, &x)?;
    let mut out: Vec<u64> = inc.to_vec()?.iter().map(|v| u64::from(*v)).collect();
    out.extend(exc.to_vec()?.iter().map(|v| u64::from(*v)));
    out.extend(warp.to_vec()?.iter().map(|v| *v as u32 as u64));
    Ok(out)
}

fn scan_expected() -> Vec<u64> {
    let x = scan_input();
    let (mut inc, mut exc, mut warp) = (Vec::new(), Vec::new(), Vec::new());
    for block in x.chunks(256) {
        let mut acc = 0u32;
        for v in block {
            exc.push(u64::from(acc));
            acc += v;
            inc.push(u64::from(acc));
        }
    }
    for lanes in x.chunks(32) {
        let w: Vec<i32> = lanes.iter().map(|v| *v as i32 - 50).collect();
        let sum: i32 = w.iter().sum();
        let max = *w.iter().max().unwrap();
        let mut acc = 0;
        for v in &w {
            warp.extend([sum, max, acc + v, acc]);
            acc += v;
        }
    }
    let mut out = inc;
    out.extend(exc);
    out.extend(warp.iter().map(|v| *v as u32 as u64));
    out
}

const SORT_N: usize = 1000;

fn run_sort(d: &Device) -> Result<Vec<u64>, Error> {
    let keys = d.upload(&words(SORT_N, 11))?;
    let mut out = d.zeros::<u32>(SORT_N)?;
    lib_sort.launch(
        d,
        Launch::new(SORT_N.div_ceil(256) as u32, 256),
        &mut out,
        &keys,
    )?;
    Ok(out.to_vec()?.iter().map(|v| u64::from(*v)).collect())
}

fn sort_expected() -> Vec<u64> {
    let keys = words(SORT_N, 11);
    let mut out = Vec::new();
    for block in keys.chunks(256) {
        let mut b = block.to_vec();
        b.sort_unstable();
        out.extend(b.iter().map(|v| u64::from(*v)));
    }
    out
}

const HIST_N: usize = 5000;

fn run_histogram(d: &Device) -> Result<Vec<u64>, Error> {
    let keys = d.upload(&words(HIST_N, 5))?;
    let mut bins = d.zeros::<u32>(32)?;
    lib_histogram.launch(d, Launch::cover(HIST_N, 128), &mut bins, &keys)?;
    Ok(bins.to_vec()?.iter().map(|v| u64::from(*v)).collect())
}

fn histogram_expected() -> Vec<u64> {
    let mut bins = vec![0u64; 32];
    for w in words(HIST_N, 5) {
        if w % 40 < 32 {
            bins[(w % 40) as usize] += 1;
        }
    }
    bins
}

/// The kernels' CUDA C, for the NVRTC test.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (lib_reduce.name(), lib_reduce.cuda_source()),
        (lib_scan.name(), lib_scan.cuda_source()),
        (lib_sort.name(), lib_sort.cuda_source()),
        (lib_histogram.name(), lib_histogram.cuda_source()),
    ]
}

/// The library's cases, run on the simulator and the GPU by `sim` and `gpu`.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "blocks_reduce",
            run: run_reduce,
            expected: reduce_expected,
        },
        Case {
            name: "blocks_scan",
            run: run_scan,
            expected: scan_expected,
        },
        Case {
            name: "blocks_sort",
            run: run_sort,
            expected: sort_expected,
        },
        Case {
            name: "blocks_histogram",
            run: run_histogram,
            expected: histogram_expected,
        },
    ]
}

/// The helpers' barriers are seen through the crate boundary: the first block reduction's
/// trailing barrier stays (the second reuses `scratch`), the other two are dropped (nothing
/// after them touches their arrays), and each reduction keeps its own three barriers.
#[test]
fn trailing_barriers_cross_the_crate_boundary() {
    let report = lib_reduce.report();
    let kept = "trailing barrier of helper `block_reduce_sum` (it writes shared memory), after this call; orders write-after-read on `scratch`";
    assert_eq!(report.matches(kept).count(), 1, "{report}");
    for helper in ["block_reduce_sum", "block_reduce_max"] {
        let dropped = format!(
            "trailing barrier of helper `{helper}`: dropped, nothing after this call needs it"
        );
        assert_eq!(report.matches(&dropped).count(), 1, "{report}");
    }
    assert!(report.contains("barriers: 10 "), "{report}");
    assert_eq!(
        lib_reduce.cuda_source().matches("__syncthreads();").count(),
        10
    );
}

/// A helper is also a Rust function (its docs and signature, for rustdoc and editors); called
/// from host code it says that helpers run in kernels.
#[test]
fn host_calls_of_a_helper_say_it_runs_in_kernels() {
    let err = std::panic::catch_unwind(|| blocks::warp_reduce_sum(1.0f32)).unwrap_err();
    let msg = err
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(
        msg.contains("`warp_reduce_sum` is a `#[device]` helper"),
        "{msg}"
    );
}
