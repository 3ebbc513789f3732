//! Warp-level matrix multiply-accumulate: the fragments of `tests/in/mma.rs` against the host's
//! matrix product, on the simulator (both of its forms, every thread order) and on a GPU
//! (skipped, saying why, without one).
//!
//! Small integers make every product and sum exact, so those results must be equal
//! everywhere; random inputs are compared within the tolerance `cuphase::sim`'s `mma` module
//! documents (the tensor cores' rounding is NVIDIA's to choose).

use crate::kernels::mma::*;
use cuphase::half::{bf16, f16};
use cuphase::prelude::*;
use cuphase::sim::{SimOptions, ThreadOrder};

/// A deterministic sequence in `[-1, 1)`.
pub(crate) fn randoms(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// Small integers in `-3..=3`: every product and sum of a tile is exact in `f32`.
fn small_ints(n: usize, seed: u64) -> Vec<f32> {
    (0..n)
        .map(|i| ((i as u64 * 7 + seed * 13) % 7) as f32 - 3.0)
        .collect()
}

/// `a * b + c` (row-major, `a` is `m x k`) in `f64`, and the bound of the tolerance: the sum
/// of the terms' magnitudes, per element.
pub(crate) fn host(
    a: &[f32],
    b: &[f32],
    c: &[f32],
    m: usize,
    n: usize,
    k: usize,
) -> (Vec<f64>, Vec<f64>) {
    let mut d = vec![0.0; m * n];
    let mut mag = vec![0.0; m * n];
    for r in 0..m {
        for col in 0..n {
            let (mut s, mut w) = (f64::from(c[r * n + col]), f64::from(c[r * n + col]).abs());
            for kk in 0..k {
                let p = f64::from(a[r * k + kk]) * f64::from(b[kk * n + col]);
                s += p;
                w += p.abs();
            }
            d[r * n + col] = s;
            mag[r * n + col] = w;
        }
    }
    (d, mag)
}

/// Each result within `ulps` `f32` units in the last place of its terms' magnitude: a few per
/// multiply-accumulate that added into it (each rounds once on the simulator; the GPU's
/// rounding inside a tensor-core step is not specified).
pub(crate) fn assert_close(what: &str, got: &[f32], want: &[f64], mag: &[f64], ulps: f64) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, ((g, w), m)) in got.iter().zip(want).zip(mag).enumerate() {
        let tol = ulps * f64::from(f32::EPSILON) * m.max(f64::MIN_POSITIVE);
        assert!(
            (f64::from(*g) - w).abs() <= tol,
            "{what}: element {i}: got {g}, want {w} (tolerance {tol})"
        );
    }
}

pub(crate) fn to_bf16(v: &[f32]) -> Vec<bf16> {
    v.iter().map(|x| bf16::from_f32(*x)).collect()
}

fn to_f16(v: &[f32]) -> Vec<f16> {
    v.iter().map(|x| f16::from_f32(*x)).collect()
}

/// The values a 16-bit input holds once rounded.
pub(crate) fn through_bf16(v: &[f32]) -> Vec<f32> {
    v.iter().map(|x| bf16::from_f32(*x).to_f32()).collect()
}

fn through_f16(v: &[f32]) -> Vec<f32> {
    v.iter().map(|x| f16::from_f32(*x).to_f32()).collect()
}

/// TF32's rounding (to nearest, ties away), as the GPU's `cvt.rna.tf32.f32`.
fn through_tf32(v: &[f32]) -> Vec<f32> {
    v.iter().map(|x| cuphase::sim::tf32(*x)).collect()
}

/// The three tiles on `dev` for inputs `a` (16x16, or 16x8 for TF32), `b` and `c`: each
/// result with the host's product of the inputs as the kernel sees them.
type Tile = (&'static str, Vec<f32>, Vec<f64>, Vec<f64>);

/// Tiles per launch: one a block.
const TILES: usize = 3;

/// The host's product of each tile: `a` holds `TILES` tiles of `m x k`, `b` of `k x 8`, `c`
/// of `m x 8`.
fn host_tiles(a: &[f32], b: &[f32], c: &[f32], k: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut want, mut mag) = (Vec::new(), Vec::new());
    for t in 0..TILES {
        let (w, m) = host(
            &a[t * 16 * k..(t + 1) * 16 * k],
            &b[t * k * 8..(t + 1) * k * 8],
            &c[t * 128..(t + 1) * 128],
            16,
            8,
            k,
        );
        want.extend(w);
        mag.extend(m);
    }
    (want, mag)
}

fn tiles_on(dev: &Device, a: &[f32], b: &[f32], c: &[f32]) -> Result<Vec<Tile>, Error> {
    let launch = Launch::new(TILES as u32, 32);
    let mut out = Vec::new();
    let cb = dev.upload(c)?;
    let d_len = TILES * 128;

    let mut d = dev.upload(&vec![f32::NAN; d_len])?;
    let (ab, bb) = (dev.upload(&to_bf16(a))?, dev.upload(&to_bf16(b))?);
    mma_tile_bf16.launch(dev, launch, &mut d, &ab, &bb, &cb)?;
    let (want, mag) = host_tiles(&through_bf16(a), &through_bf16(b), c, 16);
    out.push(("bf16", d.to_vec()?, want, mag));

    let mut d = dev.upload(&vec![f32::NAN; d_len])?;
    let (ah, bh) = (dev.upload(&to_f16(a))?, dev.upload(&to_f16(b))?);
    mma_tile_f16.launch(dev, launch, &mut d, &ah, &bh, &cb)?;
    let (want, mag) = host_tiles(&through_f16(a), &through_f16(b), c, 16);
    out.push(("f16", d.to_vec()?, want, mag));

    // TF32 tiles are 16x8 by 8x8: the first halves of the same inputs.
    let (a8, b8) = (&a[..TILES * 128], &b[..TILES * 64]);
    let mut d = dev.upload(&vec![f32::NAN; d_len])?;
    let (at, bt) = (dev.upload(a8)?, dev.upload(b8)?);
    mma_tile_tf32.launch(dev, launch, &mut d, &at, &bt, &cb)?;
    let (want, mag) = host_tiles(&through_tf32(a8), &through_tf32(b8), c, 8);
    out.push(("tf32", d.to_vec()?, want, mag));
    Ok(out)
}

/// Inputs for [`tiles_on`]: `a`, `b`, `c`.
fn tile_inputs(make: impl Fn(usize, u64) -> Vec<f32>) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    (
        make(TILES * 256, 1),
        make(TILES * 128, 2),
        make(TILES * 128, 3),
    )
}

#[test]
fn tiles_of_small_integers_are_the_exact_product_in_every_thread_order() {
    let (a, b, c) = tile_inputs(small_ints);
    for order in [
        ThreadOrder::Forward,
        ThreadOrder::Reverse,
        ThreadOrder::Shuffle(11),
    ] {
        let dev = Device::cpu_with(SimOptions {
            order,
            ..SimOptions::default()
        })
        .unwrap();
        for (what, got, want, _) in tiles_on(&dev, &a, &b, &c).unwrap() {
            let want: Vec<f32> = want.iter().map(|w| *w as f32).collect();
            assert_eq!(got, want, "{what} {order:?}");
        }
    }
}

#[test]
fn tiles_of_random_inputs_are_the_product_within_the_tolerance() {
    let (a, b, c) = tile_inputs(randoms);
    let dev = Device::cpu().unwrap();
    for (what, got, want, mag) in tiles_on(&dev, &a, &b, &c).unwrap() {
        assert_close(what, &got, &want, &mag, 4.0);
    }
}

/// The one-future-a-thread form (shuffles, then `mma_dot`) gives the phase-split form's bits.
#[test]
fn the_shuffle_form_gives_the_gathered_forms_bits() {
    let dev = Device::cpu().unwrap();
    let (a, b) = (randoms(256, 4), randoms(128, 5));
    let (ab, bb) = (
        dev.upload(&to_bf16(&a)).unwrap(),
        dev.upload(&to_bf16(&b)).unwrap(),
    );
    let zero = dev.zeros::<f32>(128).unwrap();
    let mut once = dev.zeros::<f32>(128).unwrap();
    mma_tile_bf16
        .launch(&dev, Launch::new(1, 32), &mut once, &ab, &bb, &zero)
        .unwrap();
    let mut rounds = dev.zeros::<f32>(128).unwrap();
    mma_rounds_bf16
        .launch(&dev, Launch::new(1, 32), &mut rounds, &ab, &bb, 1)
        .unwrap();
    assert_eq!(once.to_vec().unwrap(), rounds.to_vec().unwrap());
    // Three rounds of small integers: exactly three times the product.
    let (a, b) = (small_ints(256, 6), small_ints(128, 7));
    let (ab, bb) = (
        dev.upload(&to_bf16(&a)).unwrap(),
        dev.upload(&to_bf16(&b)).unwrap(),
    );
    mma_rounds_bf16
        .launch(&dev, Launch::new(1, 32), &mut rounds, &ab, &bb, 3)
        .unwrap();
    let (want, _) = host(&a, &b, &[0.0; 128], 16, 8, 16);
    let want: Vec<f32> = want.iter().map(|w| (3.0 * w) as f32).collect();
    assert_eq!(rounds.to_vec().unwrap(), want);
}

/// A GEMM's result on a device, the host's product and the terms' magnitudes.
pub(crate) type Gemm = (Vec<f32>, Vec<f64>, Vec<f64>);

/// A GEMM of `m x k` by `k x n` on `dev`, with the host's product and magnitudes.
fn gemm_on(dev: &Device, m: usize, n: usize, k: usize) -> Result<Gemm, Error> {
    let (a, b) = (
        through_bf16(&randoms(m * k, 8)),
        through_bf16(&randoms(k * n, 9)),
    );
    let (ab, bb) = (dev.upload(&to_bf16(&a))?, dev.upload(&to_bf16(&b))?);
    let mut c = dev.upload(&vec![f32::NAN; m * n])?;
    let launch = Launch::new(Dim3::new((n / 64) as u32, (m / 64) as u32, 1), 128);
    gemm_bf16.launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
    let (want, mag) = host(&a, &b, &vec![0.0; m * n], m, n, k);
    Ok((c.to_vec()?, want, mag))
}

/// The 128x128-tile GEMM (`gemm_bf16_128`, 16-byte chunks of the rows) on `dev`; first, where
/// `k` allows, its 64-deep pipelined form, and its form double-buffered through `cp_async`
/// (`tests/in/async_copy.rs`), checked here.
fn gemm_128_on(dev: &Device, m: usize, n: usize, k: usize) -> Result<Gemm, Error> {
    let (a, b) = (
        through_bf16(&randoms(m * k, 10)),
        through_bf16(&randoms(k * n, 11)),
    );
    let (ah, bh) = (to_bf16(&a), to_bf16(&b));
    let ab = dev.upload(ah.as_chunks::<8>().0)?;
    let bb = dev.upload(bh.as_chunks::<8>().0)?;
    let mut c = dev.upload(&vec![f32::NAN; m * n])?;
    let launch = Launch::new(
        Dim3::new((n / 128) as u32, (m / 128) as u32, 1),
        Dim3::new(32, 4, 2),
    );
    let (want, mag) = host(&a, &b, &vec![0.0; m * n], m, n, k);
    let steps = (k / 16) as f64;
    if k.is_multiple_of(64) {
        gemm_bf16_128_k64.launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
        assert_close("gemm_bf16_128_k64", &c.to_vec()?, &want, &mag, 4.0 * steps);
        c.copy_from_host(&vec![f32::NAN; m * n])?;
    }
    // The tiles double-buffered through `cp_async`.
    crate::kernels::async_copy::gemm_bf16_128_async
        .launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
    assert_close(
        "gemm_bf16_128_async",
        &c.to_vec()?,
        &want,
        &mag,
        4.0 * steps,
    );
    c.copy_from_host(&vec![f32::NAN; m * n])?;
    gemm_bf16_128.launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
    Ok((c.to_vec()?, want, mag))
}

/// The TF32 GEMM double-buffered through `cp_async` (`tests/in/async_copy.rs`) on `dev`, with
/// the host's product of the inputs rounded to TF32 as the tensor cores round them.
fn gemm_tf32_on(dev: &Device, m: usize, n: usize, k: usize) -> Result<Gemm, Error> {
    let (a, b) = (randoms(m * k, 12), randoms(k * n, 13));
    let ab = dev.upload(a.as_chunks::<4>().0)?;
    let bb = dev.upload(b.as_chunks::<4>().0)?;
    let mut c = dev.upload(&vec![f32::NAN; m * n])?;
    let launch = Launch::new(
        Dim3::new((n / 128) as u32, (m / 128) as u32, 1),
        Dim3::new(32, 4, 2),
    );
    crate::kernels::async_copy::gemm_tf32_128_async
        .launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
    let round = |v: &[f32]| {
        v.iter()
            .map(|x| cuphase::sim::tf32(*x))
            .collect::<Vec<f32>>()
    };
    let (want, mag) = host(&round(&a), &round(&b), &vec![0.0; m * n], m, n, k);
    Ok((c.to_vec()?, want, mag))
}

#[test]
fn a_tf32_gemm_through_asynchronous_copies_is_the_product() {
    let dev = Device::cpu().unwrap();
    let (got, want, mag) = gemm_tf32_on(&dev, 128, 256, 48).unwrap();
    assert_close(
        "gemm_tf32_128_async 128x256x48",
        &got,
        &want,
        &mag,
        4.0 * 48.0 / 8.0,
    );
}

#[test]
fn a_bf16_gemm_over_shared_tiles_is_the_product() {
    let dev = Device::cpu().unwrap();
    let (got, want, mag) = gemm_on(&dev, 128, 128, 96).unwrap();
    assert_close("gemm_bf16 128x128x96", &got, &want, &mag, 4.0 * 96.0 / 16.0);
    let (got, want, mag) = gemm_128_on(&dev, 128, 256, 64).unwrap();
    assert_close(
        "gemm_bf16_128 128x256x64",
        &got,
        &want,
        &mag,
        4.0 * 64.0 / 16.0,
    );
}

/// A block that is not a whole number of warps along x cannot multiply: an `Err` at launch.
#[test]
fn a_partial_warp_is_refused_at_launch() {
    let dev = Device::cpu().unwrap();
    let mut out = dev.zeros::<f32>(128).unwrap();
    mma_ones.launch(&dev, Launch::new(2, 64), &mut out).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![16.0; 128]);
    let err = mma_ones
        .launch(&dev, Launch::new(1, 48), &mut out)
        .unwrap_err();
    assert!(matches!(err, Error::InvalidLaunch { .. }), "{err}");
    assert!(err.to_string().contains("multiple of 32"), "{err}");
}

/// Tier 3: the tiles and the GEMM on the GPU, against the host and the simulator.
#[test]
fn on_the_gpu_the_fragments_hold_what_the_simulator_says() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("on_the_gpu_the_fragments_hold_what_the_simulator_says: skipped: no GPU ({e})");
            return;
        }
    };
    let cpu = Device::cpu().unwrap();
    // Exact: bit-equal to the simulator.
    let (a, b, c) = tile_inputs(small_ints);
    let on_gpu = tiles_on(&gpu, &a, &b, &c).unwrap();
    let on_cpu = tiles_on(&cpu, &a, &b, &c).unwrap();
    for ((what, g, _, _), (_, s, _, _)) in on_gpu.iter().zip(&on_cpu) {
        assert_eq!(g, s, "{what}: GPU and simulator");
    }
    let (a, b, c) = tile_inputs(randoms);
    for (what, got, want, mag) in tiles_on(&gpu, &a, &b, &c).unwrap() {
        assert_close(&format!("{what} on the GPU"), &got, &want, &mag, 4.0);
    }
    let (got, want, mag) = gemm_on(&gpu, 256, 192, 160).unwrap();
    assert_close(
        "gemm_bf16 on the GPU",
        &got,
        &want,
        &mag,
        4.0 * 160.0 / 16.0,
    );
    let (got, want, mag) = gemm_128_on(&gpu, 256, 384, 192).unwrap();
    assert_close(
        "gemm_bf16_128 on the GPU",
        &got,
        &want,
        &mag,
        4.0 * 160.0 / 16.0,
    );
    let (got, want, mag) = gemm_tf32_on(&gpu, 256, 384, 160).unwrap();
    assert_close(
        "gemm_tf32_128_async on the GPU",
        &got,
        &want,
        &mag,
        4.0 * 160.0 / 8.0,
    );
    println!(
        "mma: tiles, the bf16 GEMMs and the TF32 GEMM agree on {} and the simulator",
        gpu.name()
    );
}
