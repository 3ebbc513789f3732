//! Several devices (issue 19, the parts that run without GPUs): simulated devices with their
//! own memory, copies between devices, and the collectives of `cuphase::collective` on four
//! simulated devices, each result against the host's; a kernel launched on every device of a
//! group. On a machine with GPUs, the same over `Device::all()`, through the host and through
//! NCCL (where it is installed).

use cuphase::collective::{Group, GroupId, ReduceOp};
use cuphase::prelude::*;

/// `out[i] = x[i] * k + r` on one device.
#[kernel]
pub fn multi_affine(out: &mut [f32], x: &[f32], k: f32, r: f32) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = x[i] * k + r;
    }
}

/// The host's element-wise reduction, in rank order.
fn reduce(parts: &[Vec<f32>], op: ReduceOp) -> Vec<f32> {
    let mut acc = parts[0].clone();
    for p in &parts[1..] {
        for (a, b) in acc.iter_mut().zip(p) {
            *a = match op {
                ReduceOp::Sum => *a + b,
                ReduceOp::Prod => *a * b,
                ReduceOp::Min => a.min(*b),
                ReduceOp::Max => a.max(*b),
            };
        }
    }
    acc
}

/// `got` equals `want`, exactly, or (for NCCL, whose order of a float reduction over more
/// than two ranks is its own) within a few units in the last place.
fn same(got: &[f32], want: &[f32], exact: bool, what: &str) {
    if exact {
        assert_eq!(got, want, "{what}");
        return;
    }
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let tol = 4.0 * f32::EPSILON * w.abs().max(1.0);
        assert!(
            (g - w).abs() <= tol,
            "{what}: element {i} is {g}, {w} expected"
        );
    }
}

/// Every collective of `group` (over `devices`), checked against the host.
fn collectives_on(group: &Group, devices: &[Device]) {
    let ranks = group.size();
    // The host path combines in rank order; NCCL over two ranks computes `a op b`, the same.
    let exact = !group.uses_nccl() || ranks <= 2;
    let n = 1000;
    // Each rank computes its part with a kernel on its own device.
    let x: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.25).collect();
    let parts: Vec<Vec<f32>> = (0..ranks)
        .map(|r| x.iter().map(|v| v * (r as f32 + 1.5) - r as f32).collect())
        .collect();
    let launch = |r: usize| {
        let d = &devices[r];
        let xs = d.upload(&x).unwrap();
        let mut out = d.zeros::<f32>(n).unwrap();
        multi_affine
            .launch(
                d,
                Launch::cover(n, 128),
                &mut out,
                &xs,
                r as f32 + 1.5,
                -(r as f32),
            )
            .unwrap();
        out
    };
    for op in [ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod] {
        let mut bufs: Vec<Buffer<f32>> = (0..ranks).map(launch).collect();
        for (b, p) in bufs.iter().zip(&parts) {
            assert_eq!(&b.to_vec().unwrap(), p, "each rank's part");
        }
        group.all_reduce(bufs.iter_mut(), op).unwrap();
        let want = reduce(&parts, op);
        for (r, b) in bufs.iter().enumerate() {
            let what = format!("all_reduce {op:?}, rank {r}");
            same(&b.to_vec().unwrap(), &want, exact, &what);
        }
    }
    // all_gather: every rank gets the parts one after the other.
    let send: Vec<Buffer<f32>> = (0..ranks).map(launch).collect();
    let mut recv: Vec<Buffer<f32>> = devices
        .iter()
        .map(|d| d.zeros(n * ranks).unwrap())
        .collect();
    group.all_gather(&send, &mut recv).unwrap();
    let all: Vec<f32> = parts.concat();
    for b in &recv {
        assert_eq!(b.to_vec().unwrap(), all, "all_gather");
    }
    // reduce_scatter: rank r gets part r of the sum of the ranks' inputs (a different input
    // on every rank: the gathered parts, scaled by rank + 1).
    let inputs: Vec<Vec<f32>> = (0..ranks)
        .map(|r| all.iter().map(|v| v * (r as f32 + 1.0)).collect())
        .collect();
    let send: Vec<Buffer<f32>> = devices
        .iter()
        .zip(&inputs)
        .map(|(d, v)| d.upload(v).unwrap())
        .collect();
    let mut scattered: Vec<Buffer<f32>> = devices.iter().map(|d| d.zeros(n).unwrap()).collect();
    group
        .reduce_scatter(&send, &mut scattered, ReduceOp::Sum)
        .unwrap();
    let sum = reduce(&inputs, ReduceOp::Sum);
    for (r, b) in scattered.iter().enumerate() {
        let what = format!("reduce_scatter rank {r}");
        same(&b.to_vec().unwrap(), &sum[r * n..(r + 1) * n], exact, &what);
    }
    // broadcast from the last rank.
    let mut bufs: Vec<Buffer<f32>> = (0..ranks).map(launch).collect();
    group.broadcast(&mut bufs, ranks - 1).unwrap();
    for b in &bufs {
        assert_eq!(b.to_vec().unwrap(), parts[ranks - 1], "broadcast");
    }
}

#[test]
fn collectives_on_four_simulated_devices_equal_the_host() {
    let devices = Device::cpus(4).unwrap();
    assert_eq!(devices[2].name(), "CPU simulator 2");
    let group = Group::new(&devices).unwrap();
    assert!(
        !group.uses_nccl(),
        "simulated devices move data through the host"
    );
    collectives_on(&group, &devices);
}

#[test]
fn collectives_on_every_gpu_equal_the_host() {
    match Device::all() {
        Ok(gpus) => {
            println!("{} GPU(s): {:?}", gpus.len(), gpus);
            collectives_on(&Group::staged(&gpus).unwrap(), &gpus);
            match Group::new(&gpus) {
                Ok(group) => {
                    assert!(group.uses_nccl(), "a group of GPUs uses NCCL");
                    collectives_on(&group, &gpus);
                    // Integer sums wrap on NCCL too; `i16`, which NCCL does not reduce,
                    // goes through the host.
                    let ranks = gpus.len() as u32;
                    let mut bytes: Vec<Buffer<u8>> = gpus
                        .iter()
                        .map(|d| d.upload(&[200u8, 7]).unwrap())
                        .collect();
                    group.all_reduce(&mut bytes, ReduceOp::Sum).unwrap();
                    let want = vec![(200 * ranks % 256) as u8, (7 * ranks % 256) as u8];
                    for b in &bytes {
                        assert_eq!(b.to_vec().unwrap(), want, "u8 sums wrap");
                    }
                    let mut shorts: Vec<Buffer<i16>> = gpus
                        .iter()
                        .map(|d| d.upload(&[-3i16, 5]).unwrap())
                        .collect();
                    group.all_reduce(&mut shorts, ReduceOp::Sum).unwrap();
                    let r = ranks as i16;
                    for b in &shorts {
                        assert_eq!(b.to_vec().unwrap(), vec![-3 * r, 5 * r], "i16 sums");
                    }
                    println!("NCCL over {} GPU(s): every collective right", gpus.len());
                }
                // The error must say what to install; the staged path ran above.
                Err(e) => {
                    let text = e.to_string();
                    assert!(text.contains("nvidia-nccl-cu13"), "{text}");
                    println!("collectives through NCCL: skipped: {text}");
                }
            }
        }
        Err(e) => skip!("collectives_on_every_gpu: skipped: no GPU ({e})"),
    }
}

#[test]
fn integer_reductions_wrap_and_every_rank_gets_the_result() {
    let devices = Device::cpus(3).unwrap();
    let group = Group::new(&devices).unwrap();
    let mut bufs: Vec<Buffer<u8>> = devices
        .iter()
        .map(|d| d.upload(&[200u8, 7, 3]).unwrap())
        .collect();
    group.all_reduce(&mut bufs, ReduceOp::Sum).unwrap();
    for b in &bufs {
        assert_eq!(b.to_vec().unwrap(), vec![88u8, 21, 9], "600 wraps to 88");
    }
}

#[test]
fn buffers_copy_between_devices_and_stay_on_their_own() {
    let devices = Device::cpus(2).unwrap();
    let a = devices[0].upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let b = a.copy_to(&devices[1]).unwrap();
    assert!(b.device().same_device(&devices[1]));
    assert_eq!(b.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
    // A buffer of device 0 in a launch on device 1 is an error naming both.
    let mut out = devices[1].zeros::<f32>(3).unwrap();
    let err = multi_affine
        .launch(&devices[1], Launch::cover(3, 32), &mut out, &a, 1.0, 0.0)
        .unwrap_err();
    assert!(matches!(err, Error::WrongDevice { .. }), "{err}");
    assert!(err.to_string().contains("CPU simulator 0"), "{err}");
}

#[test]
fn collectives_refuse_buffers_that_do_not_fit_and_change_nothing() {
    let devices = Device::cpus(2).unwrap();
    assert!(matches!(Group::new(&[]), Err(Error::Collective { .. })));
    let twice = Group::new(&[devices[0].clone(), devices[0].clone()]).unwrap_err();
    assert!(twice.to_string().contains("listed twice"), "{twice}");
    let group = Group::new(&devices).unwrap();
    let mut a = devices[0].upload(&[1u32, 2]).unwrap();
    let mut b = devices[1].upload(&[10u32, 20, 30]).unwrap();
    let e = group
        .all_reduce([&mut a, &mut b], ReduceOp::Sum)
        .unwrap_err();
    assert!(
        e.to_string().contains("rank 1 has 3 elements; 2 expected"),
        "{e}"
    );
    let mut c = devices[0].upload(&[5u32, 6]).unwrap();
    let e = group
        .all_reduce([&mut a, &mut c], ReduceOp::Sum)
        .unwrap_err();
    assert!(
        e.to_string().contains("rank 1 lives on CPU simulator 0"),
        "{e}"
    );
    let e = group.all_reduce([&mut a], ReduceOp::Sum).unwrap_err();
    assert!(e.to_string().contains("1 buffers for a group of 2"), "{e}");
    // Each check alone, with every other one passing.
    let mut d = devices[1].upload(&[7u32, 8]).unwrap();
    let e = group.broadcast([&mut a, &mut d], 5).unwrap_err();
    assert!(e.to_string().contains("root 5 is not a rank"), "{e}");
    let three = [
        devices[0].upload(&[1u32, 2, 3]).unwrap(),
        devices[1].upload(&[4u32, 5, 6]).unwrap(),
    ];
    let mut outs = [
        devices[0].zeros::<u32>(1).unwrap(),
        devices[1].zeros::<u32>(1).unwrap(),
    ];
    let e = group
        .reduce_scatter(&three, &mut outs, ReduceOp::Sum)
        .unwrap_err();
    assert!(
        e.to_string().contains("do not split in 2 equal parts"),
        "{e}"
    );
    let four = [
        devices[0].upload(&[1u32, 2, 3, 4]).unwrap(),
        devices[1].upload(&[5u32, 6, 7, 8]).unwrap(),
    ];
    let e = group
        .reduce_scatter(&four, &mut outs, ReduceOp::Sum)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("(recv): the buffer of rank 0 has 1 elements; 2 expected"),
        "{e}"
    );
    // Nothing changed by any refused call.
    assert_eq!(a.to_vec().unwrap(), vec![1, 2]);
    assert_eq!(d.to_vec().unwrap(), vec![7, 8]);
    assert_eq!(outs[0].to_vec().unwrap(), vec![0]);
    // Two devices of one simulator are two devices; another group's device of the same name
    // is not this one's.
    let others = Device::cpus(2).unwrap();
    let mut e_buf = others[1].upload(&[1u32, 2]).unwrap();
    let e = group
        .all_reduce([&mut a, &mut e_buf], ReduceOp::Sum)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("not on the rank's device another CPU simulator 1"),
        "{e}"
    );
}

/// This file's kernels, for the NVRTC test.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![(multi_affine.name(), multi_affine.cuda_source())]
}

#[test]
fn a_group_of_processes_needs_a_gpu_per_rank_and_a_rank_below_its_size() {
    let cpu = Device::cpus(1).unwrap().remove(0);
    let id = GroupId::from_bytes([7; 128]);
    assert_eq!(GroupId::from_bytes(id.to_bytes()).to_bytes(), [7; 128]);
    let e = Group::process_rank(&cpu, 2, 2, &id).unwrap_err();
    assert!(
        e.to_string()
            .contains("rank 2 is not a rank of a group of 2"),
        "{e}"
    );
    let e = Group::process_rank(&cpu, 0, 2, &id).unwrap_err();
    assert!(e.to_string().contains("needs a GPU on every rank"), "{e}");
}

/// NCCL's rank-per-process form, with a thread per rank standing for a process: every GPU
/// joins with one id, and each rank's collectives take its own buffer.
#[test]
fn a_group_of_one_rank_per_thread_reduces_across_gpus() {
    let gpus = match Device::all() {
        Ok(g) => g,
        Err(e) => {
            skip!("group of processes: skipped: no GPU ({e})");
            return;
        }
    };
    let id = match GroupId::new() {
        Ok(id) => id,
        Err(e) => {
            skip!("group of processes: skipped: {e}");
            return;
        }
    };
    let k = gpus.len();
    std::thread::scope(|s| {
        for (r, gpu) in gpus.iter().enumerate() {
            s.spawn(move || {
                let group = Group::process_rank(gpu, r, k, &id).unwrap();
                assert_eq!((group.size(), group.local_ranks()), (k, r..r + 1));
                let mut mine = gpu.upload(&[r as f32 + 1.0, 2.0]).unwrap();
                group.all_reduce([&mut mine], ReduceOp::Sum).unwrap();
                let sum = (k * (k + 1) / 2) as f32;
                assert_eq!(mine.to_vec().unwrap(), vec![sum, 2.0 * k as f32]);
                let part = gpu.upload(&[r as u32; 3]).unwrap();
                let mut all = gpu.zeros::<u32>(3 * k).unwrap();
                group.all_gather([&part], [&mut all]).unwrap();
                let want: Vec<u32> = (0..k as u32).flat_map(|q| [q; 3]).collect();
                assert_eq!(all.to_vec().unwrap(), want);
                let mut b = gpu.upload(&[r as i64 * 10]).unwrap();
                group.broadcast([&mut b], k - 1).unwrap();
                assert_eq!(b.to_vec().unwrap(), vec![(k as i64 - 1) * 10]);
                // NCCL does not reduce i16, and processes have no host path.
                let mut shorts = gpu.upload(&[1i16]).unwrap();
                let e = group.all_reduce([&mut shorts], ReduceOp::Sum).unwrap_err();
                assert!(e.to_string().contains("does not reduce i16"), "{e}");
            });
        }
    });
    println!("a group of {k} rank(s), one per thread: every collective right");
}
