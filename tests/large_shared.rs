//! Shared arrays of more than 48 KiB together (`tests/in/large_shared.rs`): carved from
//! dynamic shared memory apart from each other and from the launch's own dynamic array, on the
//! simulator and on a GPU (skipped, saying why, without one); and the GEMMs with 256x128 tiles
//! and deep pipelines they allow.

use crate::kernels::large_shared::*;
use crate::mma::{assert_close, host, randoms, through_bf16, to_bf16, Gemm};
use cuphase::prelude::*;
use cuphase::sim::tf32;

/// What thread `t` of `large_tiles` writes when the dynamic array has `len` elements.
fn tiles_expected(t: usize, len: usize) -> f32 {
    let u = 255 - t;
    let rest = if u < len { 3 * u } else { 0 };
    (168_768 + 32 * u + rest) as f32
}

/// `large_tiles` on two blocks of `dev` with `len` elements of dynamic shared memory, checked.
fn tiles_on(dev: &Device, len: usize) -> Result<(), Error> {
    let mut out = dev.upload(&vec![f32::NAN; 512])?;
    let launch = Launch::new(2, 256).shared_bytes(4 * len as u32);
    large_tiles.launch(dev, launch, &mut out)?;
    let got = out.to_vec()?;
    for (i, g) in got.iter().enumerate() {
        assert_eq!(
            *g,
            tiles_expected(i % 256, len),
            "large_tiles on {} with {len} dynamic elements: thread {}",
            dev.name(),
            i
        );
    }
    Ok(())
}

#[test]
fn shared_arrays_beyond_48_kib_are_carved_apart() {
    let src = large_tiles.cuda_source();
    // 64 KiB of fixed-size arrays: at offsets 0 and 48 KiB of dynamic shared memory, and the
    // launch's array after them, its length what is left.
    assert!(
        src.contains(
            "float (&big)[12288] = *reinterpret_cast<float (*)[12288]>(cuphase_dynamic_shared);"
        ),
        "{src}"
    );
    assert!(
        src.contains("float (&more)[16][256] = *reinterpret_cast<float (*)[16][256]>(cuphase_dynamic_shared + 49152);"),
        "{src}"
    );
    assert!(
        src.contains("(cuphase::dynamic_shared_bytes() - 65536) / sizeof(unsigned int)"),
        "{src}"
    );
    assert!(!src.contains("__shared__ float"), "{src}");
    let dev = Device::cpu().unwrap();
    for len in [256, 128, 0] {
        tiles_on(&dev, len).unwrap();
    }
}

/// `gemm_bf16_wide` of `m x k` by `k x n` on `dev`, with the host's product and the terms'
/// magnitudes.
fn wide_on(dev: &Device, m: usize, n: usize, k: usize) -> Result<Gemm, Error> {
    let (a, b) = (
        through_bf16(&randoms(m * k, 30)),
        through_bf16(&randoms(k * n, 31)),
    );
    let (ah, bh) = (to_bf16(&a), to_bf16(&b));
    let ab = dev.upload(ah.as_chunks::<8>().0)?;
    let bb = dev.upload(bh.as_chunks::<8>().0)?;
    let mut c = dev.upload(&vec![f32::NAN; m * n])?;
    let launch = Launch::new(
        Dim3::new((n / 128) as u32, (m / 256) as u32, 1),
        Dim3::new(32, 2, 4),
    );
    let (want, mag) = host(&a, &b, &vec![0.0; m * n], m, n, k);
    // First the forms with 64-deep stages, where `k` allows it, checked here.
    if k.is_multiple_of(64) {
        gemm_bf16_wide_k64.launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
        let what = format!("gemm_bf16_wide_k64 {m}x{n}x{k} on {}", dev.name());
        assert_close(&what, &c.to_vec()?, &want, &mag, 4.0 * (k / 16) as f64);
        c.copy_from_host(&vec![f32::NAN; m * n])?;
    }
    gemm_bf16_wide.launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
    Ok((c.to_vec()?, want, mag))
}

/// Ten 32-deep steps (the four stages each reused; five 64-deep steps, the three stages
/// reused), one and two 32-deep steps (the prologue alone), four (one 64-deep stage unused);
/// three rows of two tiles.
#[test]
fn a_gemm_with_four_stages_in_96_kib_is_the_product() {
    let dev = Device::cpu().unwrap();
    for (m, n, k) in [
        (256, 256, 320),
        (256, 128, 32),
        (256, 128, 64),
        (256, 128, 128),
        (768, 256, 64),
    ] {
        let (got, want, mag) = wide_on(&dev, m, n, k).unwrap();
        assert_close(
            &format!("gemm_bf16_wide {m}x{n}x{k}"),
            &got,
            &want,
            &mag,
            4.0 * (k / 16) as f64,
        );
    }
}

/// `gemm_tf32_wide` of `m x k` by the transpose of `n x k` on `dev`, with the host's product of
/// the inputs rounded to TF32 as the tensor cores round them.
fn tf32_wide_on(dev: &Device, m: usize, n: usize, k: usize) -> Result<Gemm, Error> {
    let (a, bt) = (randoms(m * k, 32), randoms(n * k, 33));
    let ab = dev.upload(a.as_chunks::<4>().0)?;
    let bb = dev.upload(bt.as_chunks::<4>().0)?;
    let mut c = dev.upload(&vec![f32::NAN; m * n])?;
    let launch = Launch::new(
        Dim3::new((n / 128) as u32, (m / 256) as u32, 1),
        Dim3::new(32, 2, 4),
    );
    gemm_tf32_wide.launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
    let a32: Vec<f32> = a.iter().map(|x| tf32(*x)).collect();
    // `b` (`k x n`) is the transpose of `bt`.
    let b32: Vec<f32> = (0..k * n).map(|i| tf32(bt[(i % n) * k + i / n])).collect();
    let (want, mag) = host(&a32, &b32, &vec![0.0; m * n], m, n, k);
    Ok((c.to_vec()?, want, mag))
}

/// Five 32-deep steps (the three stages reused), one (the prologue alone) and two.
#[test]
fn a_tf32_gemm_with_three_stages_in_144_kib_is_the_product() {
    let dev = Device::cpu().unwrap();
    for (m, n, k) in [(256, 256, 160), (256, 128, 32), (256, 128, 64)] {
        let (got, want, mag) = tf32_wide_on(&dev, m, n, k).unwrap();
        assert_close(
            &format!("gemm_tf32_wide {m}x{n}x{k}"),
            &got,
            &want,
            &mag,
            4.0 * (k / 8) as f64,
        );
    }
}

/// Tier 3: the carved arrays and the GEMM on the hardware, and a launch asking for more shared
/// memory than the device has beside the kernel's own 64 KiB is refused, naming the limit.
#[test]
fn on_the_gpu_carved_shared_arrays_work() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("on_the_gpu_carved_shared_arrays_work: skipped: no GPU ({e})");
            return;
        }
    };
    for len in [256, 128, 0] {
        tiles_on(&gpu, len).unwrap();
    }
    let mut out = gpu.upload(&vec![0.0f32; 256]).unwrap();
    let err = large_tiles
        .launch(&gpu, Launch::new(1, 256).shared_bytes(200 * 1024), &mut out)
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidLaunch { reason, .. } if reason.contains("65536 of the kernel's shared arrays")),
        "{err}"
    );
    // Fourteen 32-deep steps (every stage reused), seven 64-deep ones.
    let (m, n, k) = (512, 384, 448);
    let (got, want, mag) = wide_on(&gpu, m, n, k).unwrap();
    assert_close(
        &format!("gemm_bf16_wide {m}x{n}x{k} on the GPU"),
        &got,
        &want,
        &mag,
        4.0 * (k / 16) as f64,
    );
    let (m, n, k) = (512, 384, 224);
    let (got, want, mag) = tf32_wide_on(&gpu, m, n, k).unwrap();
    assert_close(
        &format!("gemm_tf32_wide {m}x{n}x{k} on the GPU"),
        &got,
        &want,
        &mag,
        4.0 * (k / 8) as f64,
    );
    println!(
        "large shared: carved arrays and the wide GEMMs correct on {}",
        gpu.name()
    );
}
