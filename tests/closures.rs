//! `kernel_closure!` closures that capture: captured scalars are fields of the kernel value,
//! passed at each launch, uniform for the barrier analyses; on the simulator always, on a GPU
//! when one is present (bit-equal to the simulator).

use crate::kernels::helpers::math;
use cuphase::prelude::*;

/// The simulator, and the GPU when there is one (saying so when there is not).
fn devices(test: &str) -> Vec<Device> {
    let mut devs = vec![Device::cpu().unwrap()];
    match Device::cuda(0) {
        Ok(gpu) => devs.push(gpu),
        Err(e) => skip!("{test}: GPU part skipped: no GPU ({e})"),
    }
    devs
}

#[test]
fn captured_scalars_are_passed_at_each_launch() {
    for dev in devices("captured_scalars_are_passed_at_each_launch") {
        let a = 2.5f32;
        let offset: u32 = 7;
        // Used only through `as`: the cast is computed where it is captured, with `big`'s own
        // type (rustc's), so the body need not fix it.
        let big: u64 = 3 << 40;
        let scale = kernel_closure!(|out: &mut [f32], x: &[f32]| {
            let i = global_idx().x;
            if i < out.len() as u32 {
                out[i] = a * x[i] + (i + offset) as f32 + big as f32;
            }
        });
        let x: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5).collect();
        let xs = dev.upload(&x).unwrap();
        let mut out = dev.zeros::<f32>(1000).unwrap();
        scale
            .launch(&dev, Launch::cover(1000, 128), &mut out, &xs)
            .unwrap();
        let want: Vec<f32> = x
            .iter()
            .enumerate()
            .map(|(i, v)| a * v + (i as u32 + offset) as f32 + big as f32)
            .collect();
        assert_eq!(out.to_vec().unwrap(), want, "{}", dev.name());
    }
}

/// A `move` closure captures by value: the kernel value keeps what the variable held when the
/// closure was made; each value made in a loop launches with its own.
#[test]
fn move_closures_keep_the_value_they_captured() {
    for dev in devices("move_closures_keep_the_value_they_captured") {
        let mut kernels = Vec::new();
        for k in 1..=3u32 {
            kernels.push(kernel_closure!(move |out: &mut [u32]| {
                let i = global_idx().x as usize;
                if i < out.len() {
                    out[i] = k * 100 + i as u32;
                }
            }));
        }
        for (k, kernel) in (1..=3u32).zip(&kernels) {
            let mut out = dev.zeros::<u32>(64).unwrap();
            kernel.launch(&dev, Launch::new(1, 64), &mut out).unwrap();
            let want: Vec<u32> = (0..64).map(|i| k * 100 + i).collect();
            assert_eq!(out.to_vec().unwrap(), want, "{} k = {k}", dev.name());
        }
    }
}

/// A captured value decides a loop with a barrier in it: it is the block's (uniform), so the
/// kernel compiles in `sync = "check"` mode; the capture's type is written where the body
/// does not fix it, and a helper is called with a captured value.
#[test]
fn captured_values_are_uniform_for_barriers() {
    for dev in devices("captured_values_are_uniform_for_barriers") {
        let rounds = 5usize;
        let bias = 3.0f32;
        let rotate = kernel_closure!(|out: &mut [f32]| {
            let rounds: usize = rounds;
            let tile = shared::<[f32; 64]>();
            let t = thread_idx().x;
            let mut v = t as f32;
            for _ in 0..rounds {
                tile[t] = v;
                sync_block_threads();
                v = tile[(t + 1) % 64] + math::square::<f32>(bias);
                sync_block_threads();
            }
            out[t] = v;
        });
        let mut out = dev.zeros::<f32>(64).unwrap();
        rotate.launch(&dev, Launch::new(1, 64), &mut out).unwrap();
        let want: Vec<f32> = (0..64)
            .map(|t| {
                let mut vals: Vec<f32> = (0..64).map(|i| i as f32).collect();
                for _ in 0..rounds {
                    vals = (0..64).map(|i| vals[(i + 1) % 64] + 9.0).collect();
                }
                vals[t]
            })
            .collect();
        assert_eq!(out.to_vec().unwrap(), want, "{}", dev.name());
        assert!(rotate.report().contains("barrier"), "{}", rotate.report());
    }
}

/// Two closures on one line are two kernels.
#[test]
fn closures_on_one_line_are_two_kernels() {
    let dev = Device::cpu().unwrap();
    #[rustfmt::skip]
    let (one, two) = (kernel_closure!(|o: &mut [u32]| { o[global_idx().x as usize] = 1; }), kernel_closure!(|o: &mut [u32]| { o[global_idx().x as usize] = 2; }));
    let mut out = dev.zeros::<u32>(1).unwrap();
    one.launch(&dev, Launch::new(1, 1), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [1]);
    two.launch(&dev, Launch::new(1, 1), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), [2]);
    assert_ne!(one.name(), two.name());
}
