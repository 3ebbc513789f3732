//! `print!`/`println!` in kernels: the simulator writes the text CUDA's `printf` writes for
//! the same format (checked here against the expected text; NVRTC compiles the CUDA C in
//! tier 2, and the GPU run prints the same lines, compared by eye in the GPU log).

use cuphase::prelude::*;

/// Prints each supported form once, from thread 0 of block 0 and from the block's last
/// thread.
#[kernel]
pub fn prints(x: &[f32], n: u32) {
    let t = thread_idx().x;
    let last = t == block_dim().x - 1;
    if block_idx().x == 0 && (t == 0 || last) {
        let v = x[t as usize];
        let big = 1234567.0f64;
        println!(
            "thread {t}: v = {}, {:.3}, [{:>8.2}] [{:<6}] [{:05}]",
            v, v, v, t, t
        );
        println!("{} {0:?} {} {}", last, big, n - 1);
        print!("n = {n}");
        println!(" and 100% {{done}}");
    }
}

/// The same text as the kernel, formatted on the host as `printf` does (`%g` for `{}` of a
/// float): what the simulator must write.
fn expected(x: &[f32], n: u32, threads: u32) -> String {
    let mut s = String::new();
    for t in [0, threads - 1] {
        let v = x[t as usize];
        let g = |v: f64| {
            let mut o = String::new();
            cuphase::__private::sim::push(&mut o, v, cuphase::__private::sim::Spec::default());
            o
        };
        s += &format!(
            "thread {t}: v = {}, {v:.3}, [{v:>8.2}] [{t:<6}] [{t:05}]\n",
            g(f64::from(v))
        );
        s += &format!("{0} {0} 1.23457e+06 {1}\n", t == threads - 1, n - 1);
        s += &format!("n = {n} and 100% {{done}}\n");
    }
    s
}

#[test]
fn the_simulator_prints_what_printf_prints() {
    let dev = Device::cpu().unwrap();
    let x: Vec<f32> = (0..64).map(|i| i as f32 / 3.0 - 5.0).collect();
    let xs = dev.upload(&x).unwrap();
    let (r, text) =
        cuphase::__private::sim::capture(|| prints.launch(&dev, Launch::new(2, 64), &xs, 41));
    r.unwrap();
    // Threads run in order on the simulator's default schedule: thread 0's lines first.
    assert_eq!(text, expected(&x, 41, 64));
}

/// The kernels here, for NVRTC (tier 2).
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (prints.name(), prints.cuda_source()),
        (lines.name(), lines.cuda_source()),
        (warp_prints.name(), warp_prints.cuda_source()),
    ]
}

/// One line per thread, with values of each kind.
#[kernel]
pub fn lines(x: &[f32]) {
    let i = global_idx().x;
    let v = x[i as usize];
    let h = half::f16::from_f32(v);
    let d = f64::from(v) * 1e7;
    println!(
        "{i:>4} {v} {v:.2} {h} {d} {:<5}|{:06.1} {}",
        v > 0.0,
        v,
        i as i64 - 100
    );
}

fn inputs() -> Vec<f32> {
    (0..128).map(|i| (i as f32 - 60.5) / 7.0).collect()
}

/// What the simulator prints for `lines` with ids, sorted.
fn simulated_lines() -> Vec<String> {
    let dev = Device::cpu().unwrap();
    let xs = dev.upload(&inputs()).unwrap();
    let (r, text) = cuphase::__private::sim::capture(|| {
        lines.launch(&dev, Launch::new(2, 64).print_ids(true), &xs)
    });
    r.unwrap();
    let mut got: Vec<String> = text.lines().map(str::to_string).collect();
    got.sort();
    got
}

#[test]
fn print_ids_start_each_line_with_its_block_and_thread() {
    let got = simulated_lines();
    assert_eq!(got.len(), 128);
    assert!(
        got.contains(
            &"[block (1, 0, 0) thread (63, 0, 0)]  127 9.5 9.50 9.5 9.5e+07 true |0009.5 27"
                .to_string()
        ),
        "{got:#?}"
    );
}

/// The GPU's `printf` output is the simulator's text: this test binary runs again for
/// `gpu_lines_child` alone, and its standard output (where CUDA writes) is compared line by
/// line (sorted: the GPU's order between threads is its own).
#[test]
fn the_gpu_prints_what_the_simulator_prints() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    if let Err(e) = Device::cuda(0) {
        skip!("the_gpu_prints_what_the_simulator_prints: skipped: no GPU ({e})");
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = std::process::Command::new(exe)
        .args([
            "prints::gpu_lines_child",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    // (A line may follow the harness's `test .. ... ` on the same line: the printf output
    // is what starts at its prefix.)
    let mut got: Vec<String> = text
        .lines()
        .filter_map(|l| l.find("[block (").map(|i| l[i..].to_string()))
        .collect();
    got.sort();
    assert_eq!(got, simulated_lines());
    println!(
        "the_gpu_prints_what_the_simulator_prints: {} lines equal",
        got.len()
    );
}

const CHILD: &str = "CUPHASE_PRINT_CHILD";

/// The child of [`the_gpu_prints_what_the_simulator_prints`]: launches `lines` on the GPU.
#[test]
fn gpu_lines_child() {
    if std::env::var_os(CHILD).is_none() {
        skip!("gpu_lines_child: skipped: runs only as the child of the_gpu_prints_what_the_simulator_prints");
        return;
    }
    let gpu = Device::cuda(0).unwrap();
    let xs = gpu.upload(&inputs()).unwrap();
    lines
        .launch(&gpu, Launch::new(2, 64).print_ids(true), &xs)
        .unwrap();
    gpu.synchronize().unwrap();
}

/// A print between warp operations (the simulator's per-warp code) and after a barrier.
#[kernel]
pub fn warp_prints(out: &mut [u32]) {
    let t = thread_idx().x;
    let s = warp_shuffle_down(t, 1);
    if lane_id() == 0 {
        println!("warp {}: {}", t / 32, s);
    }
    let mut total = t;
    let mut d = 16u32;
    while d > 0 {
        total += warp_shuffle_xor(total, d);
        d /= 2;
    }
    sync_block_threads();
    if t == 0 {
        println!("total {total}");
    }
    out[t as usize] = total;
}

#[test]
fn prints_between_warp_operations_and_barriers() {
    let dev = Device::cpu().unwrap();
    let mut out = dev.zeros::<u32>(64).unwrap();
    let (r, text) =
        cuphase::__private::sim::capture(|| warp_prints.launch(&dev, Launch::new(1, 64), &mut out));
    r.unwrap();
    assert_eq!(text, "warp 0: 1\nwarp 1: 33\ntotal 496\n");
}
