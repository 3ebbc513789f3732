//! GPU benchmarks: cuphase kernels against hand-written CUDA C of the same algorithms, compiled
//! by the same NVRTC with the same options and timed the same way (CUDA events around each
//! launch, warm-up, median of many repetitions).
//!
//! Run on a machine with a GPU: `cargo run --release --example bench_gpu`. Without one it says
//! so and exits successfully; `-- --sim` runs the suite's kernels on the simulator instead
//! (small problems, every result checked), `-- --small` the same on the GPU, `-- --math`
//! the math methods' cost against CUDA's libm, `-- --overhead` the host cost of a launch
//! against a raw cudarc launch, `-- --overhead-parts` the same split into the launch code's
//! steps.

use cudarc::driver::{CudaFunction, CudaStream, LaunchConfig, PushKernelArg};
use cuphase::prelude::*;
use std::process::ExitCode;
use std::sync::Arc;

#[path = "gpu_math.rs"]
mod gpu_math;
#[path = "gpu_suite.rs"]
mod gpu_suite;
#[path = "gpu_suite_run.rs"]
mod gpu_suite_run;
#[path = "gpu_vector.rs"]
mod gpu_vector;

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
pub fn tiled_matmul(c: &mut [f32], a: &[f32], b: &[f32], n: u32) {
    let ta = shared::<[[f32; 16]; 16]>();
    let tb = shared::<[[f32; 16]; 16]>();
    let tx = thread_idx().x;
    let ty = thread_idx().y;
    let row = block_idx().y * 16 + ty;
    let col = block_idx().x * 16 + tx;
    let mut acc = 0.0f32;
    for t in 0..(n + 15) / 16 {
        let a_col = t * 16 + tx;
        let b_row = t * 16 + ty;
        ta[ty][tx] = if row < n && a_col < n {
            a[row * n + a_col]
        } else {
            0.0
        };
        tb[ty][tx] = if b_row < n && col < n {
            b[b_row * n + col]
        } else {
            0.0
        };
        sync_block_threads();
        for k in 0..16u32 {
            acc += ta[ty][k] * tb[k][tx];
        }
        sync_block_threads();
    }
    if row < n && col < n {
        c[row * n + col] = acc;
    }
}

/// A warp-shuffle reduction: each warp sums its 32 values, lane 0 writes the sum.
#[kernel(block = 256)]
pub fn warp_reduce(out: &mut [u32], input: &[u32]) {
    let i = global_idx().x as usize;
    let mut v = 0u32;
    if i < input.len() {
        v = input[i];
    }
    let mut d = 16u32;
    while d > 0 {
        v += warp_shuffle_down(v, d);
        d /= 2;
    }
    if lane_id() == 0 && i / 32 < out.len() {
        out[i / 32] = v;
    }
}

/// Hand-written CUDA C of the same algorithms, as a CUDA programmer would write them.
const HANDWRITTEN: &str = r#"
extern "C" __global__ void reverse_ref(float* __restrict__ out, unsigned long long out_len,
                                       const float* __restrict__ in, unsigned long long in_len) {
    __shared__ float tile[256];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + t;
    if (i < in_len) tile[t] = in[i];
    __syncthreads();
    if (i < out_len) out[i] = tile[blockDim.x - 1 - t];
}

extern "C" __global__ void matmul_ref(float* __restrict__ c, const float* __restrict__ a,
                                      const float* __restrict__ b, unsigned int n) {
    __shared__ float ta[16][16];
    __shared__ float tb[16][16];
    unsigned int tx = threadIdx.x, ty = threadIdx.y;
    unsigned int row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (unsigned int t = 0; t < (n + 15) / 16; ++t) {
        unsigned int ac = t * 16 + tx, br = t * 16 + ty;
        ta[ty][tx] = (row < n && ac < n) ? a[row * n + ac] : 0.0f;
        tb[ty][tx] = (br < n && col < n) ? b[br * n + col] : 0.0f;
        __syncthreads();
        for (unsigned int k = 0; k < 16; ++k) acc += ta[ty][k] * tb[k][tx];
        __syncthreads();
    }
    if (row < n && col < n) c[row * n + col] = acc;
}

extern "C" __global__ void warp_reduce_ref(unsigned int* __restrict__ out, unsigned long long out_len,
                                           const unsigned int* __restrict__ in, unsigned long long in_len) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int v = i < in_len ? in[i] : 0u;
    for (unsigned int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    if ((threadIdx.x & 31u) == 0 && i / 32 < out_len) out[i / 32] = v;
}
"#;

type BenchResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Launches timed back to back in one sample of [`time_ms`].
const BATCH: usize = 8;

/// Median milliseconds of one run of `f`, over `reps` samples after `warmup` untimed runs.
///
/// A sample is [`BATCH`] runs queued back to back between two events, divided by the batch:
/// the device is busy from the first launch on, so the host's launch time (a few microseconds,
/// a few percent of a 0.1 ms kernel) is not counted, as with `triton.testing.do_bench`.
fn time_ms(
    stream: &Arc<CudaStream>,
    warmup: usize,
    reps: usize,
    mut f: impl FnMut() -> BenchResult<()>,
) -> BenchResult<f64> {
    for _ in 0..warmup {
        f()?;
    }
    stream.synchronize()?;
    let timing = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    let mut times = Vec::with_capacity(reps);
    for _ in 0..reps {
        let start = stream.record_event(timing)?;
        for _ in 0..BATCH {
            f()?;
        }
        let stop = stream.record_event(timing)?;
        stop.synchronize()?;
        times.push(f64::from(start.elapsed_ms(&stop)?) / BATCH as f64);
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

fn load_handwritten(dev: &Device, source: &str, name: &str) -> BenchResult<CudaFunction> {
    let arch = dev.cuda_arch().ok_or("not a CUDA device")?;
    let module = cuphase::cuda::compile_cuda(source, "handwritten.cu", name, arch, false)?;
    let stream = dev.cuda_stream().ok_or("not a CUDA device")?;
    let ptx = if module.is_ptx {
        cudarc::nvrtc::Ptx::from_src(String::from_utf8_lossy(&module.image).into_owned())
    } else {
        cudarc::nvrtc::Ptx::from_binary(module.image)
    };
    Ok(stream.context().load_module(ptx)?.load_function(name)?)
}

fn bench(dev: &Device) -> BenchResult<bool> {
    let stream = dev.cuda_stream().ok_or("not a CUDA device")?.clone();
    let mut all_ok = true;

    // reverse: 2^28 floats in and out (2 GiB of traffic per launch).
    let n: usize = 1 << 28;
    let host: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let input = dev.upload(&host)?;
    let mut out = dev.zeros::<f32>(n)?;
    let launch = Launch::cover(n, 256);
    let ours = time_ms(&stream, 5, 50, || {
        Ok(reverse.launch(dev, launch, &mut out, &input)?)
    })?;
    let got = out.to_vec()?;
    let ok = got
        .chunks(256)
        .zip(host.chunks(256))
        .all(|(g, h)| g.iter().eq(h.iter().rev()));
    all_ok &= ok;
    let f = load_handwritten(dev, HANDWRITTEN, "reverse_ref")?;
    let mut out_ref = stream.alloc_zeros::<f32>(n)?;
    let in_ref = stream.clone_htod(&host)?;
    let nn = n as u64;
    let cfg = LaunchConfig {
        grid_dim: (launch.grid.x, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let theirs = time_ms(&stream, 5, 50, || {
        let mut b = stream.launch_builder(&f);
        b.arg(&mut out_ref).arg(&nn).arg(&in_ref).arg(&nn);
        // SAFETY: the arguments match `reverse_ref`'s parameters.
        unsafe { b.launch(cfg) }?;
        Ok(())
    })?;
    let gbs = |ms: f64| 2.0 * n as f64 * 4.0 / (ms * 1e-3) / 1e9;
    println!("| kernel | cuphase (ms) | hand-written CUDA C (ms) | ratio (hand-written / cuphase) | cuphase throughput |");
    println!("|---|---|---|---|---|");
    println!(
        "| reverse, 2^28 f32 | {ours:.3} | {theirs:.3} | {:.3} | {:.0} GB/s ({:.0}% of 4300 GB/s copy) |{}",
        theirs / ours,
        gbs(ours),
        gbs(ours) / 43.0,
        if ok { "" } else { " WRONG RESULT" }
    );
    drop((input, out));

    // tiled_matmul: 4096 x 4096.
    let n: usize = 4096;
    let a: Vec<f32> = (0..n * n)
        .map(|i| ((i * 37) % 101) as f32 / 50.0 - 1.0)
        .collect();
    let b: Vec<f32> = (0..n * n)
        .map(|i| ((i * 53) % 97) as f32 / 48.0 - 1.0)
        .collect();
    let (da, db) = (dev.upload(&a)?, dev.upload(&b)?);
    let mut dc = dev.zeros::<f32>(n * n)?;
    let tiles = (n as u32).div_ceil(16);
    let launch = Launch::new((tiles, tiles), (16, 16));
    let ours = time_ms(&stream, 2, 15, || {
        Ok(tiled_matmul.launch(dev, launch, &mut dc, &da, &db, n as u32)?)
    })?;
    let f = load_handwritten(dev, HANDWRITTEN, "matmul_ref")?;
    let (ra, rb) = (stream.clone_htod(&a)?, stream.clone_htod(&b)?);
    let mut rc = stream.alloc_zeros::<f32>(n * n)?;
    let nn = n as u32;
    let cfg = LaunchConfig {
        grid_dim: (tiles, tiles, 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    let theirs = time_ms(&stream, 2, 15, || {
        let mut bld = stream.launch_builder(&f);
        bld.arg(&mut rc).arg(&ra).arg(&rb).arg(&nn);
        // SAFETY: the arguments match `matmul_ref`'s parameters.
        unsafe { bld.launch(cfg) }?;
        Ok(())
    })?;
    let ok = dc.to_vec()? == stream.clone_dtoh(&rc)?;
    all_ok &= ok;
    let tflops = |ms: f64| 2.0 * (n as f64).powi(3) / (ms * 1e-3) / 1e12;
    println!(
        "| tiled_matmul, 4096^2 f32 | {ours:.3} | {theirs:.3} | {:.3} | {:.2} TFLOP/s{} |",
        theirs / ours,
        tflops(ours),
        if ok {
            ", bit-equal to hand-written"
        } else {
            " RESULTS DIFFER"
        }
    );

    // warp_reduce: 2^28 u32 in, one sum per warp out.
    let n: usize = 1 << 28;
    let host: Vec<u32> = (0..n)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761))
        .collect();
    let input = dev.upload(&host)?;
    let mut out = dev.zeros::<u32>(n / 32)?;
    let launch = Launch::cover(n, 256);
    let ours = time_ms(&stream, 5, 50, || {
        Ok(warp_reduce.launch(dev, launch, &mut out, &input)?)
    })?;
    let f = load_handwritten(dev, HANDWRITTEN, "warp_reduce_ref")?;
    let in_ref = stream.clone_htod(&host)?;
    let mut out_ref = stream.alloc_zeros::<u32>(n / 32)?;
    let (nn, no) = (n as u64, (n / 32) as u64);
    let cfg = LaunchConfig {
        grid_dim: (launch.grid.x, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let theirs = time_ms(&stream, 5, 50, || {
        let mut b = stream.launch_builder(&f);
        b.arg(&mut out_ref).arg(&no).arg(&in_ref).arg(&nn);
        // SAFETY: the arguments match `warp_reduce_ref`'s parameters.
        unsafe { b.launch(cfg) }?;
        Ok(())
    })?;
    let got = out.to_vec()?;
    let want: Vec<u32> = host
        .chunks(32)
        .map(|c| c.iter().fold(0u32, |a, x| a.wrapping_add(*x)))
        .collect();
    let ok = got == want && got == stream.clone_dtoh(&out_ref)?;
    all_ok &= ok;
    let gbs = |ms: f64| n as f64 * 4.0 / (ms * 1e-3) / 1e9;
    println!(
        "| warp_reduce (shuffles), 2^28 u32 | {ours:.3} | {theirs:.3} | {:.3} | {:.0} GB/s read{} |",
        theirs / ours,
        gbs(ours),
        if ok { ", equal to the host and hand-written" } else { " WRONG RESULT" }
    );
    let (ok, copy) = gpu_vector::bench(dev, &stream)?;
    all_ok &= ok;
    all_ok &= gpu_suite_run::bench(dev, false, copy)?;
    Ok(all_ok)
}

#[kernel]
pub fn empty(out: &mut [u32]) {
    if global_idx().x == 1_000_000_000 {
        out[0] = 1;
    }
}

/// `empty` compiled by the same NVRTC and loaded by cudarc alone, a buffer for its argument
/// and its launch configuration: the raw launch the overhead is measured against.
fn raw_empty(
    dev: &Device,
    stream: &Arc<CudaStream>,
) -> BenchResult<(CudaFunction, cudarc::driver::CudaSlice<u32>, LaunchConfig)> {
    let arch = dev.cuda_arch().ok_or("not a CUDA device")?;
    let module =
        cuphase::cuda::compile_cuda(empty.cuda_source(), "empty.rs", "empty", arch, false)?;
    let f = stream
        .context()
        .load_module(cudarc::nvrtc::Ptx::from_binary(module.image))?
        .load_function("empty")?;
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    Ok((f, stream.alloc_zeros::<u32>(1)?, cfg))
}

/// Host cost per launch of an (almost) empty kernel: cuphase's `kernel.launch` against a raw
/// cudarc launch of the same CUBIN. Batches of 500 launches (fewer than the GPU's launch queue
/// holds, so that no launch waits for the GPU and the time is the host's alone), the stream
/// drained between batches outside the timing, the two paths alternating which goes first;
/// the median of 41 batches each. The ratio is the median of the 41 rounds' own ratios (each
/// round's two batches run back to back, so a round compares the two paths on the same state of
/// the machine: its clock, its other load).
fn launch_overhead(dev: &Device) -> BenchResult<()> {
    let stream = dev.cuda_stream().ok_or("not a CUDA device")?.clone();
    let mut out = dev.zeros::<u32>(1)?;
    let n = 500;
    let (f, mut raw_out, cfg) = raw_empty(dev, &stream)?;
    let len = 1u64;
    let mut ours = Vec::new();
    let mut raw = Vec::new();
    empty.launch(dev, Launch::new(1, 32), &mut out)?;
    stream.synchronize()?;
    let rounds = 41;
    for round in 0..rounds {
        for cuphase_turn in [round % 2 == 0, round % 2 == 1] {
            let t = std::time::Instant::now();
            if cuphase_turn {
                for _ in 0..n {
                    empty.launch(dev, Launch::new(1, 32), &mut out)?;
                }
                ours.push(t.elapsed().as_secs_f64());
            } else {
                for _ in 0..n {
                    let mut b = stream.launch_builder(&f);
                    b.arg(&mut raw_out).arg(&len);
                    // SAFETY: the arguments match `empty`'s parameters.
                    unsafe { b.launch(cfg) }?;
                }
                raw.push(t.elapsed().as_secs_f64());
            }
            stream.synchronize()?;
        }
    }
    let mut ratios: Vec<f64> = ours.iter().zip(&raw).map(|(o, r)| o / r).collect();
    ours.sort_by(f64::total_cmp);
    raw.sort_by(f64::total_cmp);
    ratios.sort_by(f64::total_cmp);
    let mid = rounds / 2;
    let (o, r) = (ours[mid] / n as f64 * 1e6, raw[mid] / n as f64 * 1e6);
    println!(
        "\n| launch path | host time per launch (median of {rounds} batches of {n}) |\n|---|---|"
    );
    println!(
        "| cuphase `kernel.launch` | {o:.2} us |\n| raw cudarc launch, same CUBIN | {r:.2} us |"
    );
    println!(
        "launch overhead ratio (cuphase / raw, median of {rounds} rounds): {:.3} (ratio of the medians {:.3})",
        ratios[mid],
        o / r
    );
    Ok(())
}

/// Where cuphase's launch spends what a raw launch does not: rounds as in [`launch_overhead`],
/// each timing 500 launches of four paths back to back (the order rotating): the raw cudarc
/// launch; the generated launch code's steps written out by hand (the back end's `launch`:
/// the device-limit check, the trace, the driver call with the arguments on the stack); the
/// same steps launched through cudarc's launch builder instead; and `empty.launch`. Each
/// path's median ratio to the raw one.
fn launch_parts(dev: &Device) -> BenchResult<()> {
    use cuphase::__private::{ArgList, BackendRef, DevicePtrMut};
    use cuphase::LaunchTarget;
    let stream = dev.cuda_stream().ok_or("not a CUDA device")?.clone();
    let BackendRef::Cuda(cu) = dev.__backend() else {
        return Err("not a CUDA device".into());
    };
    let mut out = dev.zeros::<u32>(1)?;
    let n = 500;
    let (f, mut raw_out, cfg) = raw_empty(dev, &stream)?;
    let len = 1u64;
    let info = empty.__info();
    empty.launch(dev, Launch::new(1, 32), &mut out)?;
    stream.synchronize()?;
    let rounds = 41;
    let mut times = vec![Vec::new(); 4];
    for round in 0..rounds {
        for turn in 0..4 {
            let path = (turn + round) % 4;
            let t = std::time::Instant::now();
            for _ in 0..n {
                match path {
                    0 => {
                        let mut b = stream.launch_builder(&f);
                        b.arg(&mut raw_out).arg(&len);
                        // SAFETY: the arguments match `empty`'s parameters.
                        unsafe { b.launch(cfg) }?;
                    }
                    1 | 2 => {
                        let launch = Launch::new(1, 32);
                        launch.validate_for(info)?;
                        let (func, _) = cu.function(info)?;
                        let lens = [out.len() as u64];
                        let record = dev.fault_record_for(cu);
                        let stream = dev.stream_for(cu);
                        let (ptr, _guard) =
                            out.__cuda_slice_mut(cu, record)?.device_ptr_mut(stream);
                        let mut args = ArgList::<2>::new();
                        args.push(&ptr).push(&lens[0]);
                        if path == 1 {
                            cu.launch(info, &launch, func, stream, &mut args)?;
                        } else {
                            let mut b = stream.launch_builder(func);
                            b.arg(&ptr).arg(&lens[0]);
                            // SAFETY: as above.
                            unsafe { b.launch(cfg) }?;
                        }
                    }
                    _ => empty.launch(dev, Launch::new(1, 32), &mut out)?,
                }
            }
            times[path].push(t.elapsed().as_secs_f64());
            stream.synchronize()?;
        }
    }
    let names = [
        "raw cudarc",
        "generated steps by hand",
        "the same through cudarc's builder",
        "`empty.launch`",
    ];
    for (path, name) in names.iter().enumerate() {
        let mut r: Vec<f64> = times[path]
            .iter()
            .zip(&times[0])
            .map(|(a, b)| a / b)
            .collect();
        r.sort_by(f64::total_cmp);
        let mut t = times[path].clone();
        t.sort_by(f64::total_cmp);
        println!(
            "{name}: {:.3} us a launch, {:.3} of raw (median of {rounds} rounds)",
            t[rounds / 2] / n as f64 * 1e6,
            r[rounds / 2]
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    // `--sim`: the suite's kernels on the simulator, small problems, results checked;
    // `--small`: the same on the GPU (for compute-sanitizer).
    let small_gpu = std::env::args().any(|a| a == "--small");
    if small_gpu || std::env::args().any(|a| a == "--sim") {
        let dev = match if small_gpu {
            Device::cuda(0)
        } else {
            Device::cpu()
        } {
            Ok(d) => d,
            Err(e) => {
                eprintln!("bench_gpu --sim: {e}");
                return ExitCode::FAILURE;
            }
        };
        println!(
            "bench_gpu: the suite on {}, small problems (results checked; the times mean nothing)",
            dev.name()
        );
        let vector = gpu_vector::check_small(&dev);
        return match gpu_suite_run::bench(&dev, true, f64::NAN).and_then(|ok| Ok(ok && vector?)) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("bench_gpu --sim: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let dev = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            println!("bench_gpu: skipped, no GPU ({e})");
            return ExitCode::SUCCESS;
        }
    };
    println!(
        "bench_gpu on {} (NVRTC {:?})",
        dev.name(),
        cuphase::cuda::nvrtc_version().ok()
    );
    if std::env::args().any(|a| a == "--math") {
        return match gpu_math::bench(&dev) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::FAILURE,
            Err(e) => {
                eprintln!("bench_gpu --math: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if std::env::args().any(|a| a == "--overhead-parts") {
        for _ in 0..3 {
            if let Err(e) = launch_parts(&dev) {
                eprintln!("bench_gpu: launch parts: {e}");
                return ExitCode::FAILURE;
            }
        }
        return ExitCode::SUCCESS;
    }
    if std::env::args().any(|a| a == "--overhead") {
        // The launch overhead alone, several times in one process.
        for _ in 0..4 {
            if let Err(e) = launch_overhead(&dev) {
                eprintln!("bench_gpu: launch overhead: {e}");
                return ExitCode::FAILURE;
            }
        }
        return ExitCode::SUCCESS;
    }
    let overhead = launch_overhead(&dev);
    if let Err(e) = &overhead {
        eprintln!("bench_gpu: launch overhead: {e}");
    }
    match bench(&dev) {
        Ok(true) if overhead.is_ok() => ExitCode::SUCCESS,
        Ok(true) => ExitCode::FAILURE,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("bench_gpu: {e}");
            ExitCode::FAILURE
        }
    }
}
