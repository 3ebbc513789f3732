//! The simulator's phase-split execution: loop exits between barriers, values across
//! barriers, uniform returns and warp operations give the results Rust's semantics give, in
//! every thread order, with race detection on shared memory too.

use crate::kernels::phases;
use cuphase::prelude::*;
use cuphase::sim::{SimOptions, ThreadOrder};

/// A simulator per thread order, checking shared memory for races too.
fn devices() -> Vec<(ThreadOrder, Device)> {
    [
        ThreadOrder::Forward,
        ThreadOrder::Reverse,
        ThreadOrder::Shuffle(7),
        ThreadOrder::Shuffle(12345),
    ]
    .into_iter()
    .map(|order| {
        let dev = Device::cpu_with(SimOptions {
            race_detection: true,
            order,
            trust_compiler: false,
        })
        .unwrap();
        (order, dev)
    })
    .collect()
}

#[test]
fn a_uniform_break_leaves_a_loop_that_syncs() {
    for (order, dev) in devices() {
        for rounds in [1u32, 3] {
            let mut out = dev.zeros::<u32>(64 * 4).unwrap();
            phases::uniform_break
                .launch(&dev, Launch::new(1, 64), &mut out, rounds)
                .unwrap();
            let got = out.to_vec().unwrap();
            for r in 0..4u32 {
                for t in 0..64u32 {
                    let want = if r < rounds { r + (t + 1) % 64 } else { 0 };
                    assert_eq!(
                        got[(r * 64 + t) as usize],
                        want,
                        "{order:?} round {r} thread {t}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_uniform_continue_skips_rounds_of_a_loop_that_syncs() {
    for (order, dev) in devices() {
        let mut out = dev.zeros::<u32>(32).unwrap();
        phases::skip_odd_rounds
            .launch(&dev, Launch::new(1, 32), &mut out)
            .unwrap();
        let want: Vec<u32> = (0..32).map(|t| 12 * (31 - t)).collect();
        assert_eq!(out.to_vec().unwrap(), want, "{order:?}");
    }
}

#[test]
fn local_arrays_keep_their_values_across_barriers() {
    for (order, dev) in devices() {
        let mut out = dev.zeros::<u32>(32).unwrap();
        phases::local_across_barriers
            .launch(&dev, Launch::new(1, 32), &mut out)
            .unwrap();
        let want: Vec<u32> = (0..32)
            .map(|t| ((t + 1) % 32) * 10 + 3 + t * 10 + 1)
            .collect();
        assert_eq!(out.to_vec().unwrap(), want, "{order:?}");
    }
}

#[test]
fn a_uniform_return_ends_the_block_before_its_barrier() {
    for (order, dev) in devices() {
        let mut out = dev.zeros::<u32>(32).unwrap();
        phases::uniform_return
            .launch(&dev, Launch::new(1, 32), &mut out, 0)
            .unwrap();
        assert_eq!(out.to_vec().unwrap(), vec![1; 32], "{order:?}");
        phases::uniform_return
            .launch(&dev, Launch::new(1, 32), &mut out, 2)
            .unwrap();
        let want: Vec<u32> = (0..32).map(|t| (31 - t) * 2).collect();
        assert_eq!(out.to_vec().unwrap(), want, "{order:?}");
    }
}

#[test]
fn warp_operations_between_barriers_meet_every_lane() {
    let n = 256 * 3 + 100;
    let host: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let want: Vec<u32> = host
        .chunks(256)
        .map(|c| c.iter().fold(0u32, |a, &x| a.wrapping_add(x)))
        .collect();
    for (order, dev) in devices() {
        let input = dev.upload(&host).unwrap();
        let mut out = dev.zeros::<u32>(want.len()).unwrap();
        phases::warp_then_block
            .launch(&dev, Launch::cover(n, 256), &mut out, &input)
            .unwrap();
        assert_eq!(out.to_vec().unwrap(), want, "{order:?}");
    }
}

#[test]
fn guards_on_the_x_index_run_exactly_the_threads_they_admit() {
    for (order, dev) in devices() {
        for (bx, by) in [(64u32, 1u32), (16, 4)] {
            for s in [0u32, 1, 7, 16, 64, 500] {
                let n = (bx * by) as usize;
                let mut out = dev.zeros::<u32>(n).unwrap();
                phases::x_guards
                    .launch(&dev, Launch::new(1, (bx, by)), &mut out, s)
                    .unwrap();
                let got = out.to_vec().unwrap();
                for (me, &g) in got.iter().enumerate() {
                    let x = me as u32 % bx;
                    let want = u32::from(x < s / 2)
                        + 10 * u32::from(s >= x)
                        + 100 * u32::from(s / 2 == x)
                        + 1000 * u32::from(x < s && me % 2 == 0);
                    assert_eq!(g, want, "{order:?} block {bx}x{by} s {s} thread {me}");
                }
            }
        }
    }
}
