//! One device shared by 16 host threads (issue 16 §2): each thread launches its own mix of
//! kernels on its own stream, with uploads and downloads, many times over; every result must
//! be right and no thread may wait forever (a watchdog fails the test after two minutes). On
//! the simulator, threads also launch kernels that fault: each fault is the error of the
//! launch that caused it and of no other.

use cuphase::prelude::*;
use std::sync::mpsc;
use std::time::Duration;

/// `out[i] = x[i] + k`.
#[kernel]
pub fn conc_add(out: &mut [u32], x: &[u32], k: u32) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = x[i] + k;
    }
}

/// `out[i] = a * x[i]`.
#[kernel]
pub fn conc_scale(out: &mut [f32], x: &[f32], a: f32) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = a * x[i];
    }
}

/// One sum per block of 128, with the shipped library's block reduction.
#[kernel(block = 128)]
pub fn conc_sums(out: &mut [u32], x: &[u32]) {
    let scratch = shared::<[u32; 128]>();
    let i = global_idx().x;
    let v = if i < x.len() as u32 { x[i] } else { 0 };
    let s = cuphase_blocks::block_reduce_sum(&mut scratch, v);
    if thread_idx().x == 0 {
        out[block_idx().x] = s;
    }
}

/// `out[i] = x[idx[i]]`: an index past `x` is a fault (bounds checks on in every build).
#[kernel(bounds_checks = true)]
pub fn conc_gather(out: &mut [u32], x: &[u32], idx: &[u32]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = x[idx[i]];
    }
}

const N: usize = 1000;

/// Thread `t`'s launches: `iters` of them, cycling through the kernels; with `faults`, every
/// seventh is a gather with one index out of range, which must fail with its own error.
fn worker(dev: &Device, t: u32, iters: u32, faults: bool) -> Result<u32, String> {
    let stream = dev.stream().map_err(|e| e.to_string())?;
    let mut launches = 0;
    for it in 0..iters {
        let k = t * 1000 + it;
        let host: Vec<u32> = (0..N as u32).map(|i| i.wrapping_mul(k) % 1000).collect();
        let x = dev.upload(&host).map_err(|e| e.to_string())?;
        let launch = Launch::cover(N, 128);
        let fault_here = faults && it % 7 == 3;
        match (it % 3, fault_here) {
            (_, true) => {
                let mut idx_host: Vec<u32> = (0..N as u32).rev().collect();
                idx_host[(k as usize) % N] = N as u32 + t;
                let idx = dev.upload(&idx_host).map_err(|e| e.to_string())?;
                let mut out = dev.zeros::<u32>(N).map_err(|e| e.to_string())?;
                // Half the faults are found by the stream's synchronize, half by the copy of
                // the buffer the faulting launch wrote.
                let r = conc_gather
                    .launch(&stream, launch, &mut out, &x, &idx)
                    .and_then(|()| {
                        if it % 2 == 0 {
                            stream.synchronize()
                        } else {
                            out.to_vec().map(|_| ())
                        }
                    });
                match r {
                    Err(Error::OutOfBounds { kernel, index, .. })
                        if kernel == "conc_gather" && index == u64::from(N as u32 + t) => {}
                    other => {
                        return Err(format!(
                            "thread {t}, launch {it}: expected its own fault, got {other:?}"
                        ))
                    }
                }
            }
            (0, _) => {
                let mut out = dev.zeros::<u32>(N).map_err(|e| e.to_string())?;
                conc_add
                    .launch(&stream, launch, &mut out, &x, k)
                    .and_then(|()| stream.synchronize())
                    .map_err(|e| format!("thread {t}, launch {it}: {e}"))?;
                let got = out.to_vec().map_err(|e| e.to_string())?;
                if got.iter().zip(&host).any(|(g, h)| *g != h + k) {
                    return Err(format!("thread {t}, launch {it}: conc_add wrong"));
                }
            }
            (1, _) => {
                let xf: Vec<f32> = host.iter().map(|v| *v as f32).collect();
                let xs = dev.upload(&xf).map_err(|e| e.to_string())?;
                let mut out = dev.zeros::<f32>(N).map_err(|e| e.to_string())?;
                let a = 0.5 + t as f32;
                conc_scale
                    .launch(&stream, launch, &mut out, &xs, a)
                    .and_then(|()| stream.synchronize())
                    .map_err(|e| format!("thread {t}, launch {it}: {e}"))?;
                let got = out.to_vec().map_err(|e| e.to_string())?;
                if got.iter().zip(&xf).any(|(g, h)| *g != a * h) {
                    return Err(format!("thread {t}, launch {it}: conc_scale wrong"));
                }
            }
            _ => {
                let blocks = N.div_ceil(128);
                let mut out = dev.zeros::<u32>(blocks).map_err(|e| e.to_string())?;
                conc_sums
                    .launch(&stream, Launch::new(blocks as u32, 128), &mut out, &x)
                    .and_then(|()| stream.synchronize())
                    .map_err(|e| format!("thread {t}, launch {it}: {e}"))?;
                let got = out.to_vec().map_err(|e| e.to_string())?;
                let want: Vec<u32> = host.chunks(128).map(|c| c.iter().sum()).collect();
                if got != want {
                    return Err(format!("thread {t}, launch {it}: conc_sums wrong"));
                }
            }
        }
        launches += 1;
    }
    Ok(launches)
}

/// Runs 16 workers on `dev`, failing the test on a wrong result or if they do not all finish
/// within two minutes.
fn sixteen_threads(dev: &Device, iters: u32, faults: bool) -> u32 {
    let (tx, rx) = mpsc::channel();
    for t in 0..16u32 {
        let (dev, tx) = (dev.clone(), tx.clone());
        std::thread::spawn(move || {
            let _ = tx.send(worker(&dev, t, iters, faults));
        });
    }
    drop(tx);
    let mut total = 0;
    for _ in 0..16 {
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(Ok(n)) => total += n,
            Ok(Err(e)) => panic!("{e}"),
            Err(_) => panic!(
                "16 threads on {}: not all finished within 120 s (a deadlock?)",
                dev.name()
            ),
        }
    }
    total
}

#[test]
fn sixteen_threads_share_the_simulator() {
    let dev = Device::cpu().unwrap();
    let n = sixteen_threads(&dev, 1000, true);
    assert_eq!(n, 16 * 1000);
    println!(
        "16 threads: {n} launches on {}, every result right, every fault its launch's",
        dev.name()
    );
}

/// On the GPU each stream has its own fault record, so each thread sees its own faults only.
#[test]
fn sixteen_threads_share_the_gpu() {
    let dev = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("sixteen_threads_share_the_gpu: skipped: no GPU ({e})");
            return;
        }
    };
    let n = sixteen_threads(&dev, 2000, true);
    assert_eq!(n, 16 * 2000);
    println!(
        "16 threads: {n} launches on {}, each on its thread's stream, every result right, every fault its launch's",
        dev.name()
    );
}

/// The per-thread cache of loaded functions is keyed by the back end, not by its address or
/// by the kernel alone: devices opened and dropped in turn on one thread (a new one may sit
/// where a dropped one was), and two devices used in turn, each launch with its own device's
/// function and kernel id. A fault on the second device, whose only kernel is the gather,
/// must name the gather: an id borrowed from the first device (where the gather is the
/// second kernel loaded) would name no kernel of the second.
#[test]
fn devices_in_turn_launch_their_own_functions() {
    if let Err(e) = Device::cuda(0) {
        skip!("devices_in_turn_launch_their_own_functions: skipped: no GPU ({e})");
        return;
    }
    let host: Vec<u32> = (0..N as u32).collect();
    let launch = Launch::cover(N, 128);
    for round in 0..8u32 {
        let dev = Device::cuda(0).unwrap();
        let x = dev.upload(&host).unwrap();
        let mut out = dev.zeros::<u32>(N).unwrap();
        // More kernels than the cache holds, in turn, so that entries are replaced too.
        for k in 0..6u32 {
            conc_add
                .launch(&dev, launch, &mut out, &x, round + k)
                .unwrap();
            let mut sums = dev.zeros::<u32>(N.div_ceil(128)).unwrap();
            conc_sums
                .launch(
                    &dev,
                    Launch::new(N.div_ceil(128) as u32, 128),
                    &mut sums,
                    &x,
                )
                .unwrap();
            let xf = dev.upload(&vec![1.0f32; N]).unwrap();
            let mut of = dev.zeros::<f32>(N).unwrap();
            conc_scale.launch(&dev, launch, &mut of, &xf, 2.0).unwrap();
            assert!(of.to_vec().unwrap().iter().all(|v| *v == 2.0));
            let got = out.to_vec().unwrap();
            assert!(got.iter().zip(&host).all(|(g, h)| *g == h + round + k));
        }
    }
    let first = Device::cuda(0).unwrap();
    let second = Device::cuda(0).unwrap();
    let (x1, x2) = (first.upload(&host).unwrap(), second.upload(&host).unwrap());
    let mut o1 = first.zeros::<u32>(N).unwrap();
    conc_add.launch(&first, launch, &mut o1, &x1, 1).unwrap();
    let idx1 = first.upload(&host).unwrap();
    conc_gather
        .launch(&first, launch, &mut o1, &x1, &idx1)
        .unwrap();
    assert_eq!(o1.to_vec().unwrap(), host);
    let mut bad = host.clone();
    bad[5] = N as u32 + 7;
    let idx2 = second.upload(&bad).unwrap();
    let mut o2 = second.zeros::<u32>(N).unwrap();
    let err = conc_gather
        .launch(&second, launch, &mut o2, &x2, &idx2)
        .and_then(|()| second.synchronize())
        .unwrap_err();
    assert!(
        matches!(&err, Error::OutOfBounds { kernel, index, .. } if *kernel == "conc_gather" && *index == N as u64 + 7),
        "{err}"
    );
    println!(
        "devices in turn: 8 devices opened and dropped, then two at once, each launch with its own device's function and kernel id on {}",
        first.name()
    );
}
