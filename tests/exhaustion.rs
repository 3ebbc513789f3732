//! Faults and exhaustion (issue 16 §3): memory that runs out, a launch after a fault, a kernel
//! that never ends under the watchdog, a cache that cannot be written, buffers dropped while
//! a launch still uses them. Each is an `Err` with a clear message, or correct behaviour;
//! never a panic, an abort or a hang. Every test runs on the simulator, and on a GPU where
//! there is one.

use cuphase::cuda::{compile_cached_in, nvrtc_available, Arch, CacheOutcome};
use cuphase::prelude::*;
use std::time::{Duration, Instant};

/// `out[i] = x[i] * 2`.
#[kernel]
pub fn ex_double(out: &mut [u32], x: &[u32]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = x[i] * 2;
    }
}

/// `out[i] = x[idx[i]]`, checked: an index past `x` is a fault.
#[kernel(bounds_checks = true)]
pub fn ex_gather(out: &mut [u32], x: &[u32], idx: &[u32]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = x[idx[i]];
    }
}

/// Runs `n` steps of a recurrence in every thread (block 0's thread 0 writes the result):
/// with a large `n`, a kernel that does not end in any useful time.
#[kernel]
pub fn ex_spin(out: &mut [u32], n: u64) {
    let mut x = 1u32;
    let mut i = 0u64;
    while i < n {
        x = x.wrapping_mul(3).wrapping_add(1);
        i += 1;
    }
    if global_idx().x == 0 {
        out[0] = x;
    }
}

/// The simulator, and the first GPU if there is one.
fn devices(test: &str) -> Vec<Device> {
    let mut v = vec![Device::cpu().unwrap()];
    match Device::cuda(0) {
        Ok(d) => v.push(d),
        Err(e) => skip!("{test}: the GPU part skipped: no GPU ({e})"),
    }
    v
}

/// A launch that works and is right: the device is usable.
fn usable(dev: &Device) {
    let x = dev.upload(&[1u32, 2, 3, 4, 5]).unwrap();
    let mut out = dev.zeros::<u32>(5).unwrap();
    ex_double
        .launch(dev, Launch::cover(5, 32), &mut out, &x)
        .unwrap();
    assert_eq!(
        out.to_vec().unwrap(),
        vec![2, 4, 6, 8, 10],
        "{}",
        dev.name()
    );
}

#[test]
fn memory_that_runs_out_is_an_err_and_the_device_stays_usable() {
    for dev in devices("memory_that_runs_out") {
        // The size in bytes overflows; then 16 TiB, more than any host or GPU here has.
        for len in [usize::MAX, 1 << 42] {
            match dev.zeros::<f32>(len) {
                Err(e @ Error::OutOfMemory { .. }) => {
                    let text = e.to_string();
                    assert!(text.contains("out of memory on"), "{text}");
                    assert!(text.contains(&format!("{len} elements of f32")), "{text}");
                    println!("{}: {text}", dev.name());
                }
                other => panic!("{}: {len} elements: {other:?}", dev.name()),
            }
        }
        usable(&dev);
    }
}

#[test]
fn a_launch_after_a_fault_runs_normally() {
    for dev in devices("a_launch_after_a_fault") {
        let x = dev.upload(&[10u32, 20, 30]).unwrap();
        let idx = dev.upload(&[2u32, 7, 0]).unwrap();
        let mut out = dev.zeros::<u32>(3).unwrap();
        let r = ex_gather
            .launch(&dev, Launch::cover(3, 32), &mut out, &x, &idx)
            .and_then(|()| dev.synchronize());
        match r {
            Err(Error::OutOfBounds {
                index: 7, len: 3, ..
            }) => {}
            other => panic!("{}: {other:?}", dev.name()),
        }
        // The fault was reported once; the next launches run and the device is usable.
        dev.synchronize().unwrap();
        let idx = dev.upload(&[2u32, 1, 0]).unwrap();
        ex_gather
            .launch(&dev, Launch::cover(3, 32), &mut out, &x, &idx)
            .unwrap();
        assert_eq!(out.to_vec().unwrap(), vec![30, 20, 10], "{}", dev.name());
        usable(&dev);
    }
}

#[test]
fn a_kernel_that_never_ends_times_out_under_the_watchdog() {
    // The simulator: the launch is stopped, and the device is usable at once.
    let sim = Device::cpu().unwrap();
    sim.set_watchdog(Some(Duration::from_millis(200)));
    let mut out = sim.zeros::<u32>(1).unwrap();
    let t = Instant::now();
    match ex_spin.launch(&sim, Launch::new(4, 64), &mut out, u64::MAX) {
        Err(e @ Error::Timeout { .. }) => {
            let text = e.to_string();
            assert!(text.contains("kernel `ex_spin` on the simulator"), "{text}");
            assert!(text.contains("the device is usable"), "{text}");
        }
        other => panic!("{other:?}"),
    }
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    usable(&sim);
    sim.set_watchdog(None);
    ex_spin
        .launch(&sim, Launch::new(1, 32), &mut out, 5)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![364]);

    // A GPU: the synchronising call gives up at the limit while the kernel goes on (CUDA cannot
    // stop it); once it has ended the device is usable again.
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("a_kernel_that_never_ends: the GPU part skipped: no GPU ({e})");
            return;
        }
    };
    let stream = gpu.stream().unwrap();
    gpu.set_watchdog(Some(Duration::from_millis(20)));
    let mut out = gpu.zeros::<u32>(1).unwrap();
    // 50M dependent steps of one thread: at least 0.1 s on any GPU (at 4 cycles a step and
    // 2 GHz), far more under compute-sanitizer, and not minutes there.
    let steps = 50_000_000u64;
    let t = Instant::now();
    ex_spin
        .launch(&stream, Launch::new(1, 1), &mut out, steps)
        .unwrap();
    let launched = t.elapsed();
    match stream.synchronize() {
        Err(e @ Error::Timeout { .. }) => println!("{}: {e}", gpu.name()),
        // compute-sanitizer's memcheck returns from a launch only once the kernel has ended:
        // nothing is left running to time out.
        Ok(()) if launched > Duration::from_millis(100) => skip!(
            "a_kernel_that_never_ends: the GPU launch took {launched:?} to return (a sanitizer serialises launches): no watchdog to test"
        ),
        other => panic!("{other:?} (the launch returned after {launched:?})"),
    }
    gpu.set_watchdog(None);
    stream.synchronize().unwrap();
    let mut x = 1u32;
    for _ in 0..steps {
        x = x.wrapping_mul(3).wrapping_add(1);
    }
    assert_eq!(out.to_vec().unwrap(), vec![x]);
    usable(&gpu);
}

#[test]
fn buffers_dropped_while_a_launch_uses_them_are_freed_after_it() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("buffers_dropped_while_a_launch_uses_them: skipped: no GPU ({e})");
            return;
        }
    };
    // The borrow ends when `launch` returns, while the kernel may still run: the memory is
    // freed in stream order, after the kernel. Without a sanitizer this checks only that
    // nothing fails and the device stays usable; under compute-sanitizer's memcheck
    // (`benches/gpu_sanitize.sh`) a use after free would be an error.
    let stream = gpu.stream().unwrap();
    for _ in 0..20 {
        let x = gpu.upload(&vec![3u32; 1 << 20]).unwrap();
        let mut out = gpu.zeros::<u32>(1 << 20).unwrap();
        ex_double
            .launch(&stream, Launch::cover(1 << 20, 256), &mut out, &x)
            .unwrap();
        let mut spin = gpu.zeros::<u32>(1).unwrap();
        ex_spin
            .launch(&stream, Launch::new(1, 32), &mut spin, 100_000)
            .unwrap();
        drop((x, out, spin));
    }
    stream.synchronize().unwrap();
    usable(&gpu);
}

#[test]
fn a_cache_that_cannot_be_written_is_skipped() {
    if !nvrtc_available() {
        skip!("a_cache_that_cannot_be_written: skipped: NVRTC is not available");
        return;
    }
    // A directory below a regular file can be neither made nor written (as root too); a full
    // or read-only disk fails the same write.
    let file = std::env::temp_dir().join(format!("cuphase-test-cache-file-{}", std::process::id()));
    std::fs::write(&file, b"not a directory").unwrap();
    let dir = file.join("cache");
    let src = ex_double.cuda_source();
    let sm90 = Arch { major: 9, minor: 0 };
    for _ in 0..2 {
        let (m, o) = compile_cached_in(Some(&dir), src, "x.rs", "ex_double", sm90, false).unwrap();
        assert_eq!(
            o,
            CacheOutcome::Miss,
            "nothing was stored, so nothing is found"
        );
        assert!(!m.image.is_empty());
    }
    let _ = std::fs::remove_file(&file);
}

/// This file's kernels, for the NVRTC test.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (ex_double.name(), ex_double.cuda_source()),
        (ex_gather.name(), ex_gather.cuda_source()),
        (ex_spin.name(), ex_spin.cuda_source()),
    ]
}
