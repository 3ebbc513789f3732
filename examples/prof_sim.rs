use cuphase::prelude::*;
use cuphase::sim::{SimOptions, ThreadOrder};

#[kernel]
pub fn reverse(out: &mut [f32], input: &[f32]) {
    let tile = shared::<[f32; 256]>();
    let t = thread_idx().x;
    let i = block_idx().x * block_dim().x + t;
    if i < input.len() as u32 {
        tile[t] = input[i];
    }
    sync_block_threads();
    let r = block_dim().x - 1 - t;
    if i < out.len() as u32 {
        out[i] = tile[r];
    }
}

#[kernel]
pub fn block_reduce(partial: &mut [f32], input: &[f32]) {
    let buf = shared::<[f32; 256]>();
    let t = thread_idx().x;
    let i = global_idx().x;
    buf[t] = if i < input.len() as u32 {
        input[i]
    } else {
        0.0
    };
    sync_block_threads();
    let mut s = block_dim().x / 2;
    while s > 0 {
        if t < s {
            buf[t] += buf[t + s];
        }
        sync_block_threads();
        s /= 2;
    }
    if t == 0 {
        partial[block_idx().x] = buf[0];
    }
}

#[kernel]
pub fn sweep_row(m: &mut [u32], n: u32, k: u32) {
    let j = global_idx().x;
    if j < n {
        let up = m[(k * n + j) as usize];
        let diag = m[(k * n + (j + 1) % n) as usize];
        m[((k + 1) * n + j) as usize] = up.max(diag) + 1;
    }
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let dev = Device::cpu_with(SimOptions {
        race_detection: std::env::var("RACES").is_ok(),
        order: ThreadOrder::Forward,
        trust_compiler: true,
    })
    .unwrap();
    let n = 1 << 20;
    let input = dev.upload(&vec![1.0f32; n]).unwrap();
    let mut out = dev.zeros::<f32>(n).unwrap();
    if which == "sweep" {
        let mut m = dev.zeros::<u32>(2048 * 2048).unwrap();
        for _ in 0..5 {
            let t = std::time::Instant::now();
            for k in 0..255u32 {
                sweep_row
                    .launch(&dev, Launch::cover(2048, 256), &mut m, 2048, k)
                    .unwrap();
            }
            println!("{:.3} ms/loop", t.elapsed().as_secs_f64() * 1e3);
        }
        return;
    }
    let t = std::time::Instant::now();
    for _ in 0..100 {
        if which == "reduce" {
            block_reduce
                .launch(&dev, Launch::cover(n, 256), &mut out, &input)
                .unwrap();
        } else {
            reverse
                .launch(&dev, Launch::cover(n, 256), &mut out, &input)
                .unwrap();
        }
    }
    println!("{:.3} ms/launch", t.elapsed().as_secs_f64() * 10.0);
}
