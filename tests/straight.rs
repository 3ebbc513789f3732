//! Straight thread loops: where a thread loop qualifies, the simulator first checks every
//! thread's part for faults and then runs it unchecked. These tests hold it to the checked
//! loop's meaning: the same results in every thread order (the forward order runs straight,
//! the others checked), and the same faults, reported for the same thread at the same place,
//! with the same effects before them.

use cuphase::prelude::*;
use cuphase::sim::{SimOptions, ThreadOrder};

/// Simulators that run straight loops (the forward order, races off, and on with shared
/// memory trusted to the compiler) and some that never do (other orders; shared memory
/// shadowed).
fn devices() -> Vec<(String, Device)> {
    let mut v = Vec::new();
    for (order, race_detection, trust_compiler) in [
        (ThreadOrder::Forward, false, true),
        (ThreadOrder::Forward, true, true),
        (ThreadOrder::Forward, true, false),
        (ThreadOrder::Reverse, false, true),
        (ThreadOrder::Shuffle(99), true, true),
    ] {
        let dev = Device::cpu_with(SimOptions {
            race_detection,
            order,
            trust_compiler,
        })
        .unwrap();
        v.push((
            format!("{order:?}, races {race_detection}, trusted {trust_compiler}"),
            dev,
        ));
    }
    v
}

/// A tile transpose through a two-dimensional shared array (padded), in two-dimensional
/// blocks: guards on both indices, a compound store.
#[kernel]
pub fn transpose_add(out: &mut [f32], input: &[f32], n: u32) {
    let tile = shared::<[[f32; 17]; 16]>();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let x = block_idx().x * 16 + tx;
    let y = block_idx().y * 16 + ty;
    if x < n && y < n {
        tile[ty][tx] = input[(y * n + x) as usize];
        tile[ty][tx] *= 2.0;
    }
    sync_block_threads();
    let x2 = block_idx().y * 16 + tx;
    let y2 = block_idx().x * 16 + ty;
    if x2 < n && y2 < n {
        out[(y2 * n + x2) as usize] = tile[tx][ty] + 1.0;
    }
}

/// A gather through indices loaded from a read-only buffer (they decide the access, and
/// cannot change between the passes), a division by a parameter, a local array indexed by a
/// loaded value, and an inner loop.
#[kernel]
pub fn gather_histogram(out: &mut [u32], idx: &[u32], data: &[u32], d: u32) {
    let i = global_idx().x as usize;
    if i < out.len() {
        let mut bins = [0u32; 8];
        for k in 0..4u32 {
            let j = idx[(i + k as usize) % idx.len()] as usize;
            bins[(data[j] % 8) as usize] += 1;
        }
        let mut s = 0u32;
        for b in 0..8usize {
            s = s * 3 + bins[b];
        }
        out[i] = s / d;
    }
}

/// An index loaded from a shared array the same part writes: the loaded value could differ
/// between a check pass and the real one, so this part always runs checked (the compiler's
/// unit tests see that); here, it still computes what Rust would.
#[kernel]
pub fn index_from_own_writes(out: &mut [u32], idx: &[u32], data: &[u32]) {
    let tile = shared::<[u32; 64]>();
    let t = thread_idx().x;
    tile[t] = idx[t as usize];
    let j = tile[t];
    out[t as usize] = data[j as usize];
}

/// Out of bounds in the middle of a straight-eligible part: every thread before the faulty
/// one has stored its element.
#[kernel]
pub fn store_then_overrun(out: &mut [u32], input: &[u32], bad: u32) {
    let t = thread_idx().x;
    let j = if t == bad { 1000 } else { t };
    out[t as usize] = input[j as usize] + 1;
}

/// A panic and a division by zero reached in a straight-eligible part.
#[kernel]
pub fn panic_or_divide(out: &mut [u32], input: &[u32], d: u32) {
    let t = thread_idx().x;
    let v = input[t as usize];
    if v > 100 {
        panic!("value too large");
    }
    out[t as usize] = v / d;
}

#[test]
fn straight_loops_give_the_checked_results_in_every_order() {
    let n = 40u32;
    let input: Vec<f32> = (0..n * n).map(|v| v as f32 * 0.5).collect();
    let mut want = vec![0.0f32; (n * n) as usize];
    for y in 0..n {
        for x in 0..n {
            want[(x * n + y) as usize] = input[(y * n + x) as usize] * 2.0 + 1.0;
        }
    }
    let len = 300usize;
    let idx: Vec<u32> = (0..97u32).map(|k| (k * 37 + 5) % 211).collect();
    let data: Vec<u32> = (0..211u32)
        .map(|k| k.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let hist: Vec<u32> = (0..len)
        .map(|i| {
            let mut bins = [0u32; 8];
            for k in 0..4 {
                let j = idx[(i + k) % idx.len()] as usize;
                bins[(data[j] % 8) as usize] += 1;
            }
            bins.iter().fold(0u32, |s, b| s * 3 + b) / 3
        })
        .collect();
    let own: Vec<u32> = (0..64).map(|t| data[idx[t] as usize]).collect();
    for (what, dev) in devices() {
        let x = dev.upload(&input).unwrap();
        let mut out = dev.zeros::<f32>((n * n) as usize).unwrap();
        transpose_add
            .launch(&dev, Launch::new((3, 3), (16, 16)), &mut out, &x, n)
            .unwrap();
        assert_eq!(out.to_vec().unwrap(), want, "transpose_add, {what}");

        let (i, d) = (dev.upload(&idx).unwrap(), dev.upload(&data).unwrap());
        let mut h = dev.zeros::<u32>(len).unwrap();
        gather_histogram
            .launch(&dev, Launch::cover(len, 64), &mut h, &i, &d, 3)
            .unwrap();
        assert_eq!(h.to_vec().unwrap(), hist, "gather_histogram, {what}");

        let mut o = dev.zeros::<u32>(64).unwrap();
        index_from_own_writes
            .launch(&dev, Launch::new(1, 64), &mut o, &i, &d)
            .unwrap();
        assert_eq!(o.to_vec().unwrap(), own, "index_from_own_writes, {what}");
    }
}

#[test]
fn a_fault_found_by_the_check_pass_is_the_checked_loops_with_its_effects() {
    let dev = Device::cpu_with(SimOptions {
        race_detection: false,
        order: ThreadOrder::Forward,
        trust_compiler: true,
    })
    .unwrap();
    let input = dev.upload(&(0..64u32).collect::<Vec<_>>()).unwrap();
    let mut out = dev.upload(&[7u32; 64]).unwrap();
    let err = store_then_overrun
        .launch(&dev, Launch::new(1, 64), &mut out, &input, 37)
        .unwrap_err();
    match err {
        Error::OutOfBounds {
            array,
            index,
            thread,
            ..
        } => {
            assert_eq!((array, index), ("input", 1000));
            assert_eq!(thread, Dim3::new(37, 0, 0));
        }
        other => panic!("expected OutOfBounds, got {other}"),
    }
    // Threads 0..37 stored theirs before thread 37 faulted; the rest never ran.
    let got = out.to_vec().unwrap();
    let want: Vec<u32> = (0..64u32).map(|t| if t < 37 { t + 1 } else { 7 }).collect();
    assert_eq!(got, want);

    let values: Vec<u32> = (0..32u32).map(|t| if t == 20 { 500 } else { t }).collect();
    let v = dev.upload(&values).unwrap();
    let mut out = dev.zeros::<u32>(32).unwrap();
    let err = panic_or_divide
        .launch(&dev, Launch::new(1, 32), &mut out, &v, 1)
        .unwrap_err();
    match err {
        Error::KernelPanic {
            message, thread, ..
        } => {
            assert_eq!(message, "value too large");
            assert_eq!(thread, Dim3::new(20, 0, 0));
        }
        other => panic!("expected a panic, got {other}"),
    }
    let small = dev.upload(&(0..32u32).collect::<Vec<_>>()).unwrap();
    let err = panic_or_divide
        .launch(&dev, Launch::new(1, 32), &mut out, &small, 0)
        .unwrap_err();
    match err {
        Error::KernelPanic {
            message, thread, ..
        } => {
            assert_eq!(message, "attempt to divide by zero");
            assert_eq!(thread, Dim3::new(0, 0, 0));
        }
        other => panic!("expected a division by zero, got {other}"),
    }
    // A launch that faults nowhere runs to the end.
    panic_or_divide
        .launch(&dev, Launch::new(1, 32), &mut out, &small, 2)
        .unwrap();
    assert_eq!(
        out.to_vec().unwrap(),
        (0..32u32).map(|t| t / 2).collect::<Vec<_>>()
    );
}

/// Generated code with `unsafe` blocks (the straight loops' unchecked accesses) compiles in
/// a module that forbids unsafe code: the lint does not apply to the macro's own code.
#[forbid(unsafe_code)]
mod forbids_unsafe {
    use cuphase::prelude::*;

    #[kernel]
    pub fn copy(out: &mut [f32], input: &[f32]) {
        let i = global_idx().x as usize;
        if i < out.len() {
            out[i] = input[i];
        }
    }

    #[test]
    fn kernels_compile_and_run_where_unsafe_code_is_forbidden() {
        let dev = Device::cpu().unwrap();
        let x = dev.upload(&[1.0f32, 2.0, 3.0]).unwrap();
        let mut y = dev.zeros::<f32>(3).unwrap();
        copy.launch(&dev, Launch::new(1, 32), &mut y, &x).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
    }
}

/// An index below zero before its cast, one past the end only at the block's last corner:
/// the range proof must refuse both, and the fault is the checked loop's.
#[kernel]
pub fn corner_and_below_zero(out: &mut [u32], shift: u32) {
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let w = block_dim().x;
    let i = (ty * w + tx - shift) as usize;
    out[i] = ty * w + tx;
}

#[test]
fn range_proofs_refuse_indices_that_leave_the_bounds_anywhere_in_the_block() {
    let dev = Device::cpu_with(SimOptions {
        race_detection: false,
        order: ThreadOrder::Forward,
        trust_compiler: true,
    })
    .unwrap();
    // In bounds everywhere: every element written.
    let mut out = dev.zeros::<u32>(64).unwrap();
    corner_and_below_zero
        .launch(&dev, Launch::new(1, (8, 8)), &mut out, 0)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), (0..64).collect::<Vec<u32>>());
    // One short: only the last thread (7, 7) is out of bounds.
    let mut out = dev.zeros::<u32>(63).unwrap();
    match corner_and_below_zero.launch(&dev, Launch::new(1, (8, 8)), &mut out, 0) {
        Err(Error::OutOfBounds { index, thread, .. }) => {
            assert_eq!((index, thread), (63, Dim3::new(7, 7, 0)));
        }
        other => panic!("expected OutOfBounds, got {other:?}"),
    }
    assert_eq!(out.to_vec().unwrap(), (0..63).collect::<Vec<u32>>());
    // Below zero for thread (0, 0) alone: `0 - 1` wraps to `u32::MAX`.
    let mut out = dev.zeros::<u32>(64).unwrap();
    match corner_and_below_zero.launch(&dev, Launch::new(1, (8, 8)), &mut out, 1) {
        Err(Error::OutOfBounds { index, thread, .. }) => {
            assert_eq!((index, thread), (u64::from(u32::MAX), Dim3::new(0, 0, 0)));
        }
        other => panic!("expected OutOfBounds, got {other:?}"),
    }
}

/// Guards the straight pass may skip where a range proof shows them true for every thread,
/// at each boundary.
#[kernel]
pub fn boundary_guards(out: &mut [u32], n: u32) {
    let t = thread_idx().x;
    let mut v = 0u32;
    if t < n {
        v += 1;
    }
    if t <= n {
        v += 2;
    }
    if n > t {
        v += 4;
    }
    if n >= t {
        v += 8;
    }
    if t + 1 >= n && t < 2 * n {
        v += 16;
    }
    v += if t < n { 32 } else { 0 };
    out[t as usize] = v;
}

#[test]
fn guards_proven_for_every_thread_keep_their_meaning_at_each_boundary() {
    for (what, dev) in devices() {
        for n in [0u32, 1, 30, 31, 32, 33, 64, 100] {
            let mut out = dev.zeros::<u32>(32).unwrap();
            boundary_guards
                .launch(&dev, Launch::new(1, 32), &mut out, n)
                .unwrap();
            let want: Vec<u32> = (0..32u32)
                .map(|t| {
                    u32::from(t < n)
                        + 2 * u32::from(t <= n)
                        + 4 * u32::from(n > t)
                        + 8 * u32::from(n >= t)
                        + 16 * u32::from(t + 1 >= n && t < 2 * n)
                        + 32 * u32::from(t < n)
                })
                .collect();
            assert_eq!(out.to_vec().unwrap(), want, "n = {n}, {what}");
        }
    }
}
