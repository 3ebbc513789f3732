//! Cases of the CUDA samples' kernels ported in `tests/in/samples/` (issue 11 §4), with host
//! references written as plain Rust. They join `cases::all()`, so they run on the simulator
//! and, on a GPU, on CUDA bit-equal to the simulator. Float inputs are small integers, so
//! every order of the additions gives the same sums. Kernels the compiler does not accept as
//! written are in `tests/in/samples/pending/` (see `PENDING.md` there).

use crate::cases::Case;
use crate::kernels::samples_convolution_separable as conv;
use crate::kernels::samples_histogram as hist;
use crate::kernels::samples_matrix_mul as mm;
use crate::kernels::samples_reduction as red;
use crate::kernels::samples_scan as scan;
use crate::kernels::samples_sorting_networks as sort;
use crate::kernels::samples_transpose as tr;
use cuphase::prelude::*;

fn bits_f32(v: &[f32]) -> Vec<u64> {
    v.iter().map(|x| u64::from(x.to_bits())).collect()
}

fn bits_u32(v: &[u32]) -> Vec<u64> {
    v.iter().map(|x| u64::from(*x)).collect()
}

/// Every compiled sample kernel's name and CUDA C, with the whole-warp variants of those with
/// warp operations.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    let mut v = vec![
        (red::reduce0.name(), red::reduce0.cuda_source()),
        (red::reduce1.name(), red::reduce1.cuda_source()),
        (red::reduce2.name(), red::reduce2.cuda_source()),
        (red::reduce3.name(), red::reduce3.cuda_source()),
        (
            red::reduce4::<256>.name(),
            red::reduce4::<256>.cuda_source(),
        ),
        (
            red::reduce5::<256>.name(),
            red::reduce5::<256>.cuda_source(),
        ),
        (
            red::reduce6::<256, true>.name(),
            red::reduce6::<256, true>.cuda_source(),
        ),
        (
            tr::transpose_naive.name(),
            tr::transpose_naive.cuda_source(),
        ),
        (
            tr::transpose_coalesced.name(),
            tr::transpose_coalesced.cuda_source(),
        ),
        (
            tr::transpose_no_bank_conflicts.name(),
            tr::transpose_no_bank_conflicts.cuda_source(),
        ),
        (
            hist::histogram256_kernel.name(),
            hist::histogram256_kernel.cuda_source(),
        ),
        (
            hist::merge_histogram256_kernel.name(),
            hist::merge_histogram256_kernel.cuda_source(),
        ),
        (
            conv::convolution_rows_kernel.name(),
            conv::convolution_rows_kernel.cuda_source(),
        ),
        (
            conv::convolution_columns_kernel.name(),
            conv::convolution_columns_kernel.cuda_source(),
        ),
        (
            mm::matrix_mul_cuda.name(),
            mm::matrix_mul_cuda.cuda_source(),
        ),
        (scan::prescan.name(), scan::prescan.cuda_source()),
        (
            sort::bitonic_sort_shared.name(),
            sort::bitonic_sort_shared.cuda_source(),
        ),
    ];
    for (name, full) in [
        (
            red::reduce4::<256>.name(),
            red::reduce4::<256>.__full_warp_sources(),
        ),
        (
            red::reduce5::<256>.name(),
            red::reduce5::<256>.__full_warp_sources(),
        ),
        (
            red::reduce6::<256, true>.name(),
            red::reduce6::<256, true>.__full_warp_sources(),
        ),
    ] {
        assert_eq!(
            full.len(),
            2,
            "{name} has warp operations: two whole-warp variants"
        );
        v.extend(full.iter().map(|s| (name, *s)));
    }
    v
}

/// The samples' cases on the simulator against their host references (`cases::all()` runs
/// them too, with every other case; this test runs them alone: `cargo test --test main
/// samples`).
#[test]
fn samples_match_the_host_reference() {
    let dev = Device::cpu().expect("the simulator is always available");
    for case in cases() {
        let got = (case.run)(&dev).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let want = (case.expected)();
        assert_eq!(got.len(), want.len(), "{}: output length", case.name);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g, w,
                "{}: element {i} differs (bits {g:#x} vs {w:#x})",
                case.name
            );
        }
    }
}

pub fn cases() -> Vec<Case> {
    let mut v = reduction_cases();
    v.extend(transpose_cases());
    v.extend(histogram_cases());
    v.extend(convolution_cases());
    v.push(matrix_mul_case());
    v.push(scan_case());
    v.push(bitonic_case());
    v
}

// ---------------------------------------------------------------------------------------------
// reduction

/// Not a multiple of any block size or of twice one.
const RED_N: usize = 256 * 7 - 30;

fn reduce_input(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 7) as f32 - 2.0).collect()
}

/// The sum of each `chunk` consecutive elements (what a block reduces).
fn chunk_sums(input: &[f32], chunk: usize) -> Vec<u64> {
    let sums: Vec<f32> = input.chunks(chunk).map(|c| c.iter().sum()).collect();
    bits_f32(&sums)
}

/// The launch of a reduction by `blocks` blocks of `threads` threads, with the sample's
/// shared-memory size (`2 * threads` elements for blocks of at most 32 threads).
fn red_launch(blocks: usize, threads: u32) -> Launch {
    let elems = if threads <= 32 { 2 * threads } else { threads };
    Launch::new(blocks as u32, threads).shared_bytes(elems * 4)
}

/// The block sizes each unrolled reduction is run with, as the sample's host switch does.
const RED_BLOCKS: [u32; 5] = [512, 256, 128, 64, 32];

type ReduceFn = fn(&Device, Launch, &Buffer<f32>, &mut Buffer<f32>, u32) -> Result<(), Error>;

/// Runs `launch_k` for each block size in `sizes`, each block reducing `per_thread * threads`
/// elements, and returns every block's sum, launch after launch.
fn run_reduce(
    dev: &Device,
    sizes: &[u32],
    per_thread: usize,
    launch_k: ReduceFn,
) -> Result<Vec<u64>, Error> {
    let input = reduce_input(RED_N);
    let g_idata = dev.upload(&input)?;
    let mut v = Vec::new();
    for &threads in sizes {
        let blocks = RED_N.div_ceil(per_thread * threads as usize);
        let mut g_odata = dev.zeros::<f32>(blocks)?;
        launch_k(
            dev,
            red_launch(blocks, threads),
            &g_idata,
            &mut g_odata,
            RED_N as u32,
        )?;
        v.extend(bits_f32(&g_odata.to_vec()?));
    }
    Ok(v)
}

fn expect_reduce(sizes: &[u32], per_thread: usize) -> Vec<u64> {
    let input = reduce_input(RED_N);
    sizes
        .iter()
        .flat_map(|&t| chunk_sums(&input, per_thread * t as usize))
        .collect()
}

/// `reduce4`/`reduce5` at one of [`RED_BLOCKS`]: the sample's switch over the block size.
macro_rules! by_block_size {
    ($kernel:ident, $dev:expr, $launch:expr, $i:expr, $o:expr, $n:expr) => {
        match $launch.block.x {
            512 => red::$kernel::<512>.launch($dev, $launch, $i, $o, $n),
            256 => red::$kernel::<256>.launch($dev, $launch, $i, $o, $n),
            128 => red::$kernel::<128>.launch($dev, $launch, $i, $o, $n),
            64 => red::$kernel::<64>.launch($dev, $launch, $i, $o, $n),
            _ => red::$kernel::<32>.launch($dev, $launch, $i, $o, $n),
        }
    };
}

/// Grid-stride reductions: (block size, blocks, n, nIsPow2) of each `reduce6` launch.
const RED6_RUNS: [(u32, usize, usize, bool); 4] = [
    (256, 3, 4096, true),
    (128, 5, RED_N, false),
    (64, 4, 2048, true),
    (512, 2, RED_N, false),
];

fn run_reduce6(dev: &Device) -> Result<Vec<u64>, Error> {
    let mut v = Vec::new();
    for (threads, blocks, n, pow2) in RED6_RUNS {
        let input = dev.upload(&reduce_input(n))?;
        let mut out = dev.zeros::<f32>(blocks)?;
        let l = red_launch(blocks, threads);
        let n = n as u32;
        match (threads, pow2) {
            (256, true) => red::reduce6::<256, true>.launch(dev, l, &input, &mut out, n),
            (64, true) => red::reduce6::<64, true>.launch(dev, l, &input, &mut out, n),
            (128, false) => red::reduce6::<128, false>.launch(dev, l, &input, &mut out, n),
            _ => red::reduce6::<512, false>.launch(dev, l, &input, &mut out, n),
        }?;
        v.extend(bits_f32(&out.to_vec()?));
    }
    Ok(v)
}

fn expect_reduce6() -> Vec<u64> {
    let mut v = Vec::new();
    for (threads, blocks, n, pow2) in RED6_RUNS {
        let input = reduce_input(n);
        // Block `b` takes the runs of `span` elements whose number is `b` modulo the grid.
        let span = threads as usize * if pow2 { 2 } else { 1 };
        let mut sums = vec![0.0f32; blocks];
        for (i, x) in input.iter().enumerate() {
            sums[(i / span) % blocks] += x;
        }
        v.extend(bits_f32(&sums));
    }
    v
}

fn reduction_cases() -> Vec<Case> {
    vec![
        Case {
            name: "samples_reduce0",
            run: |dev| {
                run_reduce(dev, &[256, 128, 32], 1, |d, l, i, o, n| {
                    red::reduce0.launch(d, l, i, o, n)
                })
            },
            expected: || expect_reduce(&[256, 128, 32], 1),
        },
        Case {
            name: "samples_reduce1",
            run: |dev| {
                run_reduce(dev, &[256, 128, 32], 1, |d, l, i, o, n| {
                    red::reduce1.launch(d, l, i, o, n)
                })
            },
            expected: || expect_reduce(&[256, 128, 32], 1),
        },
        Case {
            name: "samples_reduce2",
            run: |dev| {
                run_reduce(dev, &[256, 128, 32], 1, |d, l, i, o, n| {
                    red::reduce2.launch(d, l, i, o, n)
                })
            },
            expected: || expect_reduce(&[256, 128, 32], 1),
        },
        Case {
            name: "samples_reduce3",
            run: |dev| {
                run_reduce(dev, &[256, 128, 32], 2, |d, l, i, o, n| {
                    red::reduce3.launch(d, l, i, o, n)
                })
            },
            expected: || expect_reduce(&[256, 128, 32], 2),
        },
        Case {
            name: "samples_reduce4",
            run: |dev| {
                let v = run_reduce(dev, &RED_BLOCKS, 2, |d, l, i, o, n| {
                    by_block_size!(reduce4, d, l, i, o, n)
                })?;
                // Its shuffles are warp-uniform only in blocks of whole warps.
                let input = dev.upload(&reduce_input(RED_N))?;
                let mut out = dev.zeros::<f32>(32)?;
                let wrong = red::reduce4::<64>.launch(
                    dev,
                    red_launch(1, 48),
                    &input,
                    &mut out,
                    RED_N as u32,
                );
                assert!(
                    matches!(&wrong, Err(Error::InvalidLaunch { reason, .. }) if reason.contains("multiple of 32")),
                    "{wrong:?}"
                );
                Ok(v)
            },
            expected: || expect_reduce(&RED_BLOCKS, 2),
        },
        Case {
            name: "samples_reduce5",
            run: |dev| {
                run_reduce(dev, &RED_BLOCKS, 2, |d, l, i, o, n| {
                    by_block_size!(reduce5, d, l, i, o, n)
                })
            },
            expected: || expect_reduce(&RED_BLOCKS, 2),
        },
        Case {
            name: "samples_reduce6",
            run: run_reduce6,
            expected: expect_reduce6,
        },
    ]
}

// ---------------------------------------------------------------------------------------------
// transpose

/// Multiples of `TILE_DIM`, as the sample requires; not square.
const T_W: usize = 96;
const T_H: usize = 64;

fn transpose_input() -> Vec<f32> {
    (0..T_W * T_H).map(|i| i as f32 * 0.25 - 3.0).collect()
}

fn transpose_expected() -> Vec<u64> {
    let input = transpose_input();
    let mut out = vec![0.0f32; T_W * T_H];
    for y in 0..T_H {
        for x in 0..T_W {
            out[x * T_H + y] = input[y * T_W + x];
        }
    }
    bits_f32(&out)
}

type TransposeFn = fn(&Device, Launch, &mut Buffer<f32>, &Buffer<f32>) -> Result<(), Error>;

fn run_transpose(dev: &Device, launch_k: TransposeFn) -> Result<Vec<u64>, Error> {
    let input = dev.upload(&transpose_input())?;
    let mut out = dev.zeros::<f32>(T_W * T_H)?;
    let grid = ((T_W / 32) as u32, (T_H / 32) as u32);
    launch_k(dev, Launch::new(grid, (32, 8)), &mut out, &input)?;
    // The declared block shape is checked: 32 x 32 threads is an error before anything runs.
    let wrong = launch_k(dev, Launch::new(grid, (32, 32)), &mut out, &input);
    assert!(
        matches!(&wrong, Err(Error::InvalidLaunch { reason, .. }) if reason.contains("(32, 8, 1)")),
        "{wrong:?}"
    );
    Ok(bits_f32(&out.to_vec()?))
}

fn transpose_cases() -> Vec<Case> {
    // The tile and the blocks are the kernels' own.
    assert_eq!((tr::TILE_DIM, tr::BLOCK_ROWS), (32, 8));
    vec![
        Case {
            name: "samples_transpose_naive",
            run: |dev| {
                run_transpose(dev, |d, l, o, i| {
                    tr::transpose_naive.launch(d, l, o, i, T_W as u32, T_H as u32)
                })
            },
            expected: transpose_expected,
        },
        Case {
            name: "samples_transpose_coalesced",
            run: |dev| {
                run_transpose(dev, |d, l, o, i| {
                    tr::transpose_coalesced.launch(d, l, o, i, T_W as u32, T_H as u32)
                })
            },
            expected: transpose_expected,
        },
        Case {
            name: "samples_transpose_no_bank_conflicts",
            run: |dev| {
                run_transpose(dev, |d, l, o, i| {
                    tr::transpose_no_bank_conflicts.launch(d, l, o, i, T_W as u32, T_H as u32)
                })
            },
            expected: transpose_expected,
        },
    ]
}

// ---------------------------------------------------------------------------------------------
// histogram256

/// Words of data (not a multiple of the block), and the blocks of the first kernel.
const H_WORDS: usize = 3001;
const H_BLOCKS: usize = 5;

fn histogram_input() -> Vec<u32> {
    (0..H_WORDS as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) ^ (i >> 3) ^ ((i % 5) << 24))
        .collect()
}

/// The partial histogram of each block (block `b` takes the runs of 192 words whose number is
/// `b` modulo the grid), then the merged one.
fn histogram_expected() -> Vec<u64> {
    let block = hist::HISTOGRAM256_THREADBLOCK_SIZE as usize;
    let bins = hist::HISTOGRAM256_BIN_COUNT as usize;
    let mut partial = vec![0u32; H_BLOCKS * bins];
    for (pos, word) in histogram_input().iter().enumerate() {
        let b = (pos / block) % H_BLOCKS;
        for byte in word.to_le_bytes() {
            partial[b * bins + byte as usize] += 1;
        }
    }
    let merged: Vec<u32> = (0..bins)
        .map(|bin| (0..H_BLOCKS).map(|b| partial[b * bins + bin]).sum())
        .collect();
    let mut v = bits_u32(&partial);
    v.extend(bits_u32(&merged));
    v
}

fn histogram_cases() -> Vec<Case> {
    vec![Case {
        name: "samples_histogram256",
        run: |dev| {
            let bins = hist::HISTOGRAM256_BIN_COUNT;
            let data = dev.upload(&histogram_input())?;
            let mut partial = dev.zeros::<u32>(H_BLOCKS * bins as usize)?;
            hist::histogram256_kernel.launch(
                dev,
                Launch::new(H_BLOCKS as u32, hist::HISTOGRAM256_THREADBLOCK_SIZE),
                &mut partial,
                &data,
                H_WORDS as u32,
            )?;
            let mut merged = dev.zeros::<u32>(bins as usize)?;
            hist::merge_histogram256_kernel.launch(
                dev,
                Launch::new(bins, hist::MERGE_THREADBLOCK_SIZE),
                &mut merged,
                &partial,
                H_BLOCKS as u32,
            )?;
            let mut v = bits_u32(&partial.to_vec()?);
            v.extend(bits_u32(&merged.to_vec()?));
            Ok(v)
        },
        expected: histogram_expected,
    }]
}

// ---------------------------------------------------------------------------------------------
// convolutionSeparable

/// Multiples of the kernels' tiles (128 x 4 for rows, 16 x 64 for columns), as the sample
/// requires.
const C_W: usize = 256;
const C_H: usize = 128;

fn conv_image() -> Vec<f32> {
    (0..C_W * C_H)
        .map(|i| ((i % C_W * 7 + i / C_W * 13) % 16) as f32)
        .collect()
}

fn conv_filter() -> Vec<f32> {
    (0..conv::KERNEL_LENGTH)
        .map(|k| ((k * 5) % 7) as f32 - 3.0)
        .collect()
}

/// The sample's `convolutionRowCPU` (`dx = 1`) and `convolutionColumnCPU` (`dx = 0`).
fn conv_cpu(src: &[f32], filter: &[f32], rows: bool) -> Vec<f32> {
    let r = conv::KERNEL_RADIUS as i64;
    let mut dst = vec![0.0f32; C_W * C_H];
    for y in 0..C_H as i64 {
        for x in 0..C_W as i64 {
            let mut sum = 0.0f32;
            for k in -r..=r {
                let (sx, sy) = if rows { (x + k, y) } else { (x, y + k) };
                if (0..C_W as i64).contains(&sx) && (0..C_H as i64).contains(&sy) {
                    sum += src[(sy * C_W as i64 + sx) as usize] * filter[(r - k) as usize];
                }
            }
            dst[(y * C_W as i64 + x) as usize] = sum;
        }
    }
    dst
}

fn rows_launch(block: (u32, u32)) -> Launch {
    let (bx, by) = (conv::ROWS_BLOCKDIM_X, conv::ROWS_BLOCKDIM_Y);
    let grid = (
        (C_W as i32 / (conv::ROWS_RESULT_STEPS * bx)) as u32,
        (C_H as i32 / by) as u32,
    );
    Launch::new(grid, block)
}

fn columns_launch() -> Launch {
    let (bx, by) = (conv::COLUMNS_BLOCKDIM_X, conv::COLUMNS_BLOCKDIM_Y);
    let grid = (
        (C_W as i32 / bx) as u32,
        (C_H as i32 / (conv::COLUMNS_RESULT_STEPS * by)) as u32,
    );
    Launch::new(grid, (bx as u32, by as u32))
}

fn convolution_cases() -> Vec<Case> {
    vec![Case {
        name: "samples_convolution_separable",
        run: |dev| {
            let (w, h) = (C_W as i32, C_H as i32);
            let src = dev.upload(&conv_image())?;
            let filter = dev.upload(&conv_filter())?;
            let mut buffer = dev.zeros::<f32>(C_W * C_H)?;
            let rows_block = (conv::ROWS_BLOCKDIM_X as u32, conv::ROWS_BLOCKDIM_Y as u32);
            conv::convolution_rows_kernel.launch(
                dev,
                rows_launch(rows_block),
                &mut buffer,
                &src,
                &filter,
                w,
                h,
                w,
            )?;
            // Another block shape than the declared 16 x 4 is an error before anything runs.
            let mut scratch = dev.zeros::<f32>(C_W * C_H)?;
            let wrong = conv::convolution_rows_kernel.launch(
                dev,
                rows_launch((16, 8)),
                &mut scratch,
                &src,
                &filter,
                w,
                h,
                w,
            );
            assert!(
                matches!(&wrong, Err(Error::InvalidLaunch { reason, .. }) if reason.contains("(16, 4, 1)")),
                "{wrong:?}"
            );
            let mut dst = dev.zeros::<f32>(C_W * C_H)?;
            conv::convolution_columns_kernel.launch(
                dev,
                columns_launch(),
                &mut dst,
                &buffer,
                &filter,
                w,
                h,
                w,
            )?;
            let mut v = bits_f32(&buffer.to_vec()?);
            v.extend(bits_f32(&dst.to_vec()?));
            Ok(v)
        },
        expected: || {
            let filter = conv_filter();
            let rows = conv_cpu(&conv_image(), &filter, true);
            let columns = conv_cpu(&rows, &filter, false);
            let mut v = bits_f32(&rows);
            v.extend(bits_f32(&columns));
            v
        },
    }]
}

// ---------------------------------------------------------------------------------------------
// matrixMul

/// `A` is `M_HA x M_WA`, `B` is `M_WA x M_WB`: multiples of the block size, as the sample
/// requires; no two equal.
const M_HA: usize = 64;
const M_WA: usize = 96;
const M_WB: usize = 128;

fn matrix_inputs() -> (Vec<f32>, Vec<f32>) {
    let a = (0..M_HA * M_WA)
        .map(|i| ((i * 7) % 5) as f32 - 1.0)
        .collect();
    let b = (0..M_WA * M_WB)
        .map(|i| ((i * 3) % 7) as f32 - 2.0)
        .collect();
    (a, b)
}

fn matrix_mul_case() -> Case {
    Case {
        name: "samples_matrix_mul",
        run: |dev| {
            let (a, b) = matrix_inputs();
            let (a, b) = (dev.upload(&a)?, dev.upload(&b)?);
            let mut c = dev.zeros::<f32>(M_HA * M_WB)?;
            let bs = mm::BLOCK_SIZE;
            let grid = (M_WB as u32 / bs, M_HA as u32 / bs);
            mm::matrix_mul_cuda.launch(
                dev,
                Launch::new(grid, (bs, bs)),
                &mut c,
                &a,
                &b,
                M_WA as u32,
                M_WB as u32,
            )?;
            Ok(bits_f32(&c.to_vec()?))
        },
        expected: || {
            let (a, b) = matrix_inputs();
            let mut c = vec![0.0f32; M_HA * M_WB];
            for i in 0..M_HA {
                for j in 0..M_WB {
                    c[i * M_WB + j] = (0..M_WA).map(|k| a[i * M_WA + k] * b[k * M_WB + j]).sum();
                }
            }
            bits_f32(&c)
        },
    }
}

// ---------------------------------------------------------------------------------------------
// scan (GPU Gems 3, ch. 39)

/// The lengths scanned, each by one block of `n / 2` threads (powers of two, as `prescan`
/// requires).
const SCAN_NS: [usize; 5] = [2, 8, 64, 512, 1024];

fn scan_input(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 5) % 11) as f32 - 4.0).collect()
}

fn scan_case() -> Case {
    Case {
        name: "samples_prescan",
        run: |dev| {
            let mut v = Vec::new();
            for n in SCAN_NS {
                let input = dev.upload(&scan_input(n))?;
                let mut out = dev.zeros::<f32>(n)?;
                let launch = Launch::new(1, (n / 2) as u32).shared_bytes(n as u32 * 4);
                scan::prescan.launch(dev, launch, &mut out, &input, n as u32)?;
                v.extend(bits_f32(&out.to_vec()?));
            }
            Ok(v)
        },
        expected: || {
            let mut v = Vec::new();
            for n in SCAN_NS {
                let input = scan_input(n);
                let mut sum = 0.0f32;
                let scanned: Vec<f32> = input
                    .iter()
                    .map(|x| {
                        let before = sum;
                        sum += x;
                        before
                    })
                    .collect();
                v.extend(bits_f32(&scanned));
            }
            v
        },
    }
}

// ---------------------------------------------------------------------------------------------
// sortingNetworks (bitonicSortShared)

/// Blocks of each sort, and (array length, direction) of each launch: 1 sorts ascending.
const SORT_BLOCKS: usize = 3;
const SORT_RUNS: [(u32, u32); 4] = [(1024, 1), (1024, 0), (64, 0), (2, 1)];

fn sort_keys() -> Vec<u32> {
    let n = SORT_BLOCKS as u32 * sort::SHARED_SIZE_LIMIT;
    // Few distinct keys, so that equal keys are common.
    (0..n)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 24)
        .collect()
}

fn bitonic_case() -> Case {
    Case {
        name: "samples_bitonic_sort_shared",
        run: |dev| {
            let keys = sort_keys();
            let vals: Vec<u32> = (0..keys.len() as u32).collect();
            let (k, vv) = (dev.upload(&keys)?, dev.upload(&vals)?);
            let mut v = Vec::new();
            for (len, dir) in SORT_RUNS {
                let mut out_k = dev.zeros::<u32>(keys.len())?;
                let mut out_v = dev.zeros::<u32>(keys.len())?;
                sort::bitonic_sort_shared.launch(
                    dev,
                    Launch::new(SORT_BLOCKS as u32, sort::SHARED_SIZE_LIMIT / 2),
                    &mut out_k,
                    &mut out_v,
                    &k,
                    &vv,
                    len,
                    dir,
                )?;
                let (got_k, got_v) = (out_k.to_vec()?, out_v.to_vec()?);
                // The values travel with their keys: each names the input position of its key.
                for (key, val) in got_k.iter().zip(&got_v) {
                    assert_eq!(keys[*val as usize], *key, "len {len} dir {dir}");
                }
                v.extend(bits_u32(&got_k));
            }
            Ok(v)
        },
        expected: || {
            let keys = sort_keys();
            let mut v = Vec::new();
            for (len, dir) in SORT_RUNS {
                for chunk in keys.chunks(len as usize) {
                    let mut sorted = chunk.to_vec();
                    sorted.sort_unstable();
                    if dir == 0 {
                        sorted.reverse();
                    }
                    v.extend(bits_u32(&sorted));
                }
            }
            v
        },
    }
}
