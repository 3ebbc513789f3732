//! Const generic kernels are compiled per value (issue 13 §2): the CUDA C is a function
//! template (`template <unsigned int K> __device__ .. strided_sum_body(..)`), and each kernel
//! value (`strided_sum::<4>`) appends the kernel of its instance, so NVRTC sees `K` as a
//! compile-time constant (loops over it have constant trip counts) and every value is its own
//! compile and disk-cache entry. The simulator runs the same kernels with the values.

use crate::cases::Case;
use cuphase::prelude::*;

/// Each thread sums `K` consecutive inputs: a loop whose trip count is the template's.
#[kernel]
pub fn strided_sum<const K: u32>(out: &mut [f32], input: &[f32]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        let mut s = 0.0f32;
        for k in 0..K {
            s += input[(i * K + k) as usize];
        }
        out[i as usize] = s;
    }
}

/// Listed instances: each is compiled with its values written in, so a thread-local array
/// (`[0.0f32; K]`) and a shared array (`[f32; B]`) are sized by them, and the proof uses them.
#[kernel(instances(K = [2, 4], B = [64, 128]))]
pub fn tiled_sums<const K: usize, const B: u32>(out: &mut [f32], input: &[f32]) {
    let part = shared::<[f32; B as usize]>();
    let t = thread_idx().x;
    let mut r = [0.0f32; K];
    let base = (block_idx().x * B + t) as usize * K;
    for k in 0..K {
        r[k] = input[base + k];
    }
    let mut s = 0.0f32;
    for k in 0..K {
        s += r[k];
    }
    part[t] = s;
    sync_block_threads();
    if t == 0 {
        let mut total = 0.0f32;
        for j in 0..B {
            total += part[j];
        }
        out[block_idx().x as usize] = total;
    }
}

/// Signed and `bool` const parameters.
#[kernel]
pub fn offset_flip<const S: i32, const FLIP: bool>(out: &mut [i32]) {
    let i = global_idx().x as usize;
    if i < out.len() {
        let v = i as i32 + S;
        out[i] = if FLIP { -v } else { v };
    }
}

fn inputs(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 37) % 101) as f32 * 0.25 - 12.0)
        .collect()
}

fn sums(input: &[f32], k: usize) -> Vec<u64> {
    input
        .chunks(k)
        .map(|c| u64::from(c.iter().fold(0.0f32, |s, x| s + x).to_bits()))
        .collect()
}

/// The cases, for `cases::all()`.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "strided_sum",
            run: |dev| {
                let input = dev.upload(&inputs(4 * 7 * 50))?;
                let mut four = dev.zeros::<f32>(7 * 50)?;
                strided_sum::<4>.launch(dev, Launch::cover(four.len(), 64), &mut four, &input)?;
                let mut seven = dev.zeros::<f32>(4 * 50)?;
                strided_sum::<7>.launch(dev, Launch::cover(seven.len(), 64), &mut seven, &input)?;
                let mut v: Vec<u64> = four
                    .to_vec()?
                    .iter()
                    .map(|x| u64::from(x.to_bits()))
                    .collect();
                v.extend(seven.to_vec()?.iter().map(|x| u64::from(x.to_bits())));
                Ok(v)
            },
            expected: || {
                let input = inputs(4 * 7 * 50);
                let mut v = sums(&input, 4);
                v.extend(sums(&input, 7));
                v
            },
        },
        Case {
            name: "tiled_sums",
            run: |dev| {
                let input = dev.upload(&inputs(4 * 128 * 6))?;
                let mut v = Vec::new();
                let mut a = dev.zeros::<f32>(24)?;
                tiled_sums::<2, 64>.launch(dev, Launch::new(24, 64), &mut a, &input)?;
                v.extend(a.to_vec()?.iter().map(|x| u64::from(x.to_bits())));
                let mut b = dev.zeros::<f32>(6)?;
                tiled_sums::<4, 128>.launch(dev, Launch::new(6, 128), &mut b, &input)?;
                v.extend(b.to_vec()?.iter().map(|x| u64::from(x.to_bits())));
                Ok(v)
            },
            expected: || {
                let input = inputs(4 * 128 * 6);
                let block = |k: usize, b: usize, blk: usize| {
                    let mut total = 0.0f32;
                    for t in 0..b {
                        let base = (blk * b + t) * k;
                        total += input[base..base + k].iter().fold(0.0f32, |s, x| s + x);
                    }
                    u64::from(total.to_bits())
                };
                let mut v: Vec<u64> = (0..24).map(|blk| block(2, 64, blk)).collect();
                v.extend((0..6).map(|blk| block(4, 128, blk)));
                v
            },
        },
        Case {
            name: "offset_flip",
            run: |dev| {
                let mut a = dev.zeros::<i32>(100)?;
                offset_flip::<{ -3 }, true>.launch(dev, Launch::cover(100, 32), &mut a)?;
                let mut b = dev.zeros::<i32>(100)?;
                offset_flip::<{ i32::MIN }, false>.launch(dev, Launch::cover(100, 32), &mut b)?;
                let mut v: Vec<u64> = a.to_vec()?.iter().map(|x| *x as u32 as u64).collect();
                v.extend(b.to_vec()?.iter().map(|x| *x as u32 as u64));
                Ok(v)
            },
            expected: || {
                let mut v: Vec<u64> = (0..100).map(|i: i32| (-(i - 3)) as u32 as u64).collect();
                v.extend((0..100).map(|i: i32| i.wrapping_add(i32::MIN) as u32 as u64));
                v
            },
        },
    ]
}

/// The instances' CUDA C, for the NVRTC tests.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (strided_sum::<4>.name(), strided_sum::<4>.cuda_source()),
        (strided_sum::<7>.name(), strided_sum::<7>.cuda_source()),
        (
            offset_flip::<{ -3 }, true>.name(),
            offset_flip::<{ -3 }, true>.cuda_source(),
        ),
        (
            offset_flip::<{ i32::MIN }, false>.name(),
            offset_flip::<{ i32::MIN }, false>.cuda_source(),
        ),
    ]
}

#[test]
fn const_generic_kernels_match_the_host_on_the_simulator() {
    let dev = Device::cpu().unwrap();
    for case in cases() {
        let got = (case.run)(&dev).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(got, (case.expected)(), "{}", case.name);
    }
}

#[test]
fn listed_instances_are_kernels_of_their_own() {
    let src = tiled_sums::<4, 128>.cuda_source();
    assert_eq!(tiled_sums::<4, 128>.name(), "tiled_sums_4_128");
    assert!(src.contains("__shared__ float part[128];"), "{src}");
    assert!(src.contains("float r[4];"), "{src}");
    assert!(!src.contains("_body<"), "{src}");
    let small = tiled_sums::<2, 64>.cuda_source();
    assert!(small.contains("__shared__ float part[64];"), "{small}");
}

#[test]
fn each_value_is_its_own_instance_of_one_template() {
    let four = strided_sum::<4>.cuda_source();
    let seven = strided_sum::<7>.cuda_source();
    assert!(four.contains("template <unsigned int K>"), "{four}");
    assert!(
        four.contains("__device__ __forceinline__ void strided_sum_body("),
        "{four}"
    );
    // The loop bound is the template's parameter, not a kernel argument.
    assert!(four.contains("k < K;"), "{four}");
    assert!(
        four.contains("extern \"C\" __global__ void strided_sum("),
        "{four}"
    );
    assert!(
        four.contains("strided_sum_body<4u>(out, out_len, input, input_len"),
        "{four}"
    );
    assert!(seven.contains("strided_sum_body<7u>("), "{seven}");
    assert!(!seven.contains("strided_sum_body<4u>"), "{seven}");
    // One instance per value and process: the same text (and `KernelInfo`) each time.
    assert!(std::ptr::eq(four, strided_sum::<4>.cuda_source()));
    let flip = offset_flip::<{ -3 }, true>.cuda_source();
    assert!(flip.contains("template <int S, bool FLIP>"), "{flip}");
    assert!(
        flip.contains("offset_flip_body<-3, true>(out, out_len"),
        "{flip}"
    );
    let min = offset_flip::<{ i32::MIN }, false>.cuda_source();
    assert!(
        min.contains("offset_flip_body<(-2147483647 - 1), false>("),
        "{min}"
    );
}

/// Autotuning over instances (issue 13 §3): the candidate with the wrong result is out, the
/// other is chosen, and asking again returns the remembered choice without running anything.
/// The simulator takes the first candidate.
#[test]
fn autotune_picks_the_fastest_correct_instance() {
    type Args = (Buffer<f32>, Buffer<f32>);
    let sum4 = |d: &Device, (out, input): &mut Args| {
        strided_sum::<4>.launch(d, Launch::cover(out.len(), 64), out, input)
    };
    // Sums of two instead of four: a wrong result.
    let sum2 = |d: &Device, (out, input): &mut Args| {
        strided_sum::<2>.launch(d, Launch::cover(out.len(), 64), out, input)
    };
    let candidates: [cuphase::Candidate<'_, Args>; 2] = [("K=2", &sum2), ("K=4", &sum4)];
    let host = inputs(4 * 1000);
    let want = sums(&host, 4);
    let check = |(out, _): &mut Args| -> Result<bool, Error> {
        let got: Vec<u64> = out
            .to_vec()?
            .iter()
            .map(|x| u64::from(x.to_bits()))
            .collect();
        Ok(got == want)
    };
    let cpu = Device::cpu().unwrap();
    let mut args = (cpu.zeros::<f32>(1000).unwrap(), cpu.upload(&host).unwrap());
    let t = cpu
        .autotune("strided_sum", "1000", &mut args, &candidates, check)
        .unwrap();
    assert_eq!((t.index, t.times_ms.len()), (0, 0));
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("autotune_picks_the_fastest_correct_instance: GPU part skipped: no GPU ({e})");
            return;
        }
    };
    let mut args = (gpu.zeros::<f32>(1000).unwrap(), gpu.upload(&host).unwrap());
    // A shape of this process only, so that the first call measures.
    let shape = format!("1000 (test {})", std::process::id());
    let t = gpu
        .autotune("strided_sum", &shape, &mut args, &candidates, check)
        .unwrap();
    assert_eq!((t.index, t.label.as_str(), t.remembered), (1, "K=4", false));
    assert!(
        t.times_ms[0].is_none() && t.times_ms[1].is_some_and(|ms| ms > 0.0),
        "{t:?}"
    );
    let again = gpu
        .autotune("strided_sum", &shape, &mut args, &candidates, |_| Ok(false))
        .unwrap();
    assert_eq!((again.index, again.remembered), (1, true));
    println!("autotune on {}: {t:?}", gpu.name());
}
