//! Warpgroup multiply-accumulate (`tests/in/wgmma.rs`): the tile and the GEMM against the
//! host's product on the simulator and on an sm_90 GPU (skipped, saying why, without one), and
//! the CUDA C they become (the `sm_90a` marker, the swizzled tiles, the fences).

use crate::kernels::wgmma::*;
use crate::mma::{assert_close, host, randoms, through_bf16, to_bf16, Gemm};
use cuphase::prelude::*;
use cuphase::sim::tf32_truncated;

/// `wgmma_tile` on `dev`: one 64x16 by (16x16)^T product, with the host's.
fn tile_on(dev: &Device) -> Result<Gemm, Error> {
    let (a, bt) = (
        through_bf16(&randoms(64 * 16, 40)),
        through_bf16(&randoms(16 * 16, 41)),
    );
    let (ah, bh) = (to_bf16(&a), to_bf16(&bt));
    let ab = dev.upload(ah.as_chunks::<8>().0)?;
    let bb = dev.upload(bh.as_chunks::<8>().0)?;
    let mut out = dev.upload(&vec![f32::NAN; 64 * 16])?;
    wgmma_tile.launch(dev, Launch::new(1, 128), &mut out, &ab, &bb)?;
    let b: Vec<f32> = (0..16 * 16).map(|i| bt[(i % 16) * 16 + i / 16]).collect();
    let (want, mag) = host(&a, &b, &[0.0; 64 * 16], 64, 16, 16);
    Ok((out.to_vec()?, want, mag))
}

/// `wgmma_rs_rounds` (`A` from registers, `B` K-major, `rounds` multiplies) on `dev`, with
/// the host's `rounds * a btᵀ`.
fn rs_rounds_on(dev: &Device, rounds: u32) -> Result<Gemm, Error> {
    let (a, bt) = (
        through_bf16(&randoms(64 * 16, 46)),
        through_bf16(&randoms(16 * 16, 47)),
    );
    let ab = dev.upload(&to_bf16(&a))?;
    let bh = to_bf16(&bt);
    let bb = dev.upload(bh.as_chunks::<8>().0)?;
    let mut out = dev.upload(&vec![f32::NAN; 64 * 16])?;
    wgmma_rs_rounds.launch(dev, Launch::new(1, 128), &mut out, &ab, &bb, rounds)?;
    let b: Vec<f32> = (0..16 * 16)
        .map(|i| rounds as f32 * bt[(i % 16) * 16 + i / 16])
        .collect();
    let (want, mag) = host(&a, &b, &[0.0; 64 * 16], 64, 16, 16);
    Ok((out.to_vec()?, want, mag))
}

/// `wgmma_rs_kn` (`A` from registers, `B` given `k x n`) on `dev`, with the host's `a b`.
fn rs_kn_on(dev: &Device) -> Result<Gemm, Error> {
    let (a, b) = (
        through_bf16(&randoms(64 * 16, 48)),
        through_bf16(&randoms(16 * 64, 49)),
    );
    let ab = dev.upload(&to_bf16(&a))?;
    let bh = to_bf16(&b);
    let bb = dev.upload(bh.as_chunks::<8>().0)?;
    let mut out = dev.upload(&vec![f32::NAN; 64 * 64])?;
    wgmma_rs_kn.launch(dev, Launch::new(1, 128), &mut out, &ab, &bb)?;
    let (want, mag) = host(&a, &b, &[0.0; 64 * 64], 64, 64, 16);
    Ok((out.to_vec()?, want, mag))
}

/// `gemm_bf16_wgmma` of `m x k` by the transpose of `n x k` on `dev`, with the host's product.
fn gemm_on(dev: &Device, m: usize, n: usize, k: usize) -> Result<Gemm, Error> {
    let (a, bt) = (
        through_bf16(&randoms(m * k, 42)),
        through_bf16(&randoms(n * k, 43)),
    );
    let (ah, bh) = (to_bf16(&a), to_bf16(&bt));
    let ab = dev.upload(ah.as_chunks::<8>().0)?;
    let bb = dev.upload(bh.as_chunks::<8>().0)?;
    let mut c = dev.upload(vec![f32::NAN; m * n].as_chunks::<2>().0)?;
    let launch = Launch::new(
        Dim3::new((n / 256) as u32, (m / 128) as u32, 1),
        Dim3::new(32, 4, 2),
    );
    gemm_bf16_wgmma.launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
    let b: Vec<f32> = (0..k * n).map(|i| bt[(i % n) * k + i / n]).collect();
    let (want, mag) = host(&a, &b, &vec![0.0; m * n], m, n, k);
    Ok((c.to_vec()?.concat(), want, mag))
}

/// `gemm_tf32_wgmma` of `m x k` by the transpose of `n x k` on `dev`, with the host's product
/// of the inputs as the multiply reads them (low 13 mantissa bits ignored).
fn tf32_gemm_on(dev: &Device, m: usize, n: usize, k: usize) -> Result<Gemm, Error> {
    let (a, bt) = (randoms(m * k, 44), randoms(n * k, 45));
    let ab = dev.upload(a.as_chunks::<4>().0)?;
    let bb = dev.upload(bt.as_chunks::<4>().0)?;
    let mut c = dev.upload(vec![f32::NAN; m * n].as_chunks::<2>().0)?;
    let launch = Launch::new(
        Dim3::new((n / 256) as u32, (m / 128) as u32, 1),
        Dim3::new(32, 4, 2),
    );
    gemm_tf32_wgmma.launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
    let a32: Vec<f32> = a.iter().map(|x| tf32_truncated(*x)).collect();
    let b32: Vec<f32> = (0..k * n)
        .map(|i| tf32_truncated(bt[(i % n) * k + i / n]))
        .collect();
    let (want, mag) = host(&a32, &b32, &vec![0.0; m * n], m, n, k);
    Ok((c.to_vec()?.concat(), want, mag))
}

#[test]
fn a_warpgroup_multiply_is_the_tiles_product() {
    let dev = Device::cpu().unwrap();
    let (got, want, mag) = tile_on(&dev).unwrap();
    assert_close("wgmma_tile", &got, &want, &mag, 4.0);
}

/// `A` from registers: in one thread's future (the rows of `A` by shuffles, three rounds
/// into one accumulator) and in phase-split code (`B` given `k x n`).
#[test]
fn a_warpgroup_multiply_takes_a_from_registers() {
    let dev = Device::cpu().unwrap();
    for rounds in [1, 3] {
        let (got, want, mag) = rs_rounds_on(&dev, rounds).unwrap();
        assert_close(
            &format!("wgmma_rs_rounds {rounds}"),
            &got,
            &want,
            &mag,
            4.0 * f64::from(rounds),
        );
    }
    let (got, want, mag) = rs_kn_on(&dev).unwrap();
    assert_close("wgmma_rs_kn", &got, &want, &mag, 4.0);
}

/// Six 64-deep steps (the four stages wrap), one and two (the prologue alone); two block
/// rows.
#[test]
fn a_wgmma_gemm_with_four_stages_is_the_product() {
    let dev = Device::cpu().unwrap();
    for (m, n, k) in [(128, 256, 384), (128, 256, 64), (256, 256, 128)] {
        let (got, want, mag) = gemm_on(&dev, m, n, k).unwrap();
        assert_close(
            &format!("gemm_bf16_wgmma {m}x{n}x{k}"),
            &got,
            &want,
            &mag,
            4.0 * (k / 16) as f64,
        );
    }
}

/// Five 32-deep steps (the stages wrap) and one.
#[test]
fn a_tf32_wgmma_gemm_is_the_product_of_the_truncated_inputs() {
    let dev = Device::cpu().unwrap();
    for (m, n, k) in [(128, 256, 160), (128, 256, 32)] {
        let (got, want, mag) = tf32_gemm_on(&dev, m, n, k).unwrap();
        assert_close(
            &format!("gemm_tf32_wgmma {m}x{n}x{k}"),
            &got,
            &want,
            &mag,
            4.0 * (k / 8) as f64,
        );
    }
}

/// The CUDA C: marked for `sm_90a`, the tiles aligned to and indexed through the 128-byte
/// swizzle, one `wgmma.fence` before the four multiplies of a step, the async-proxy fence
/// before each barrier.
#[test]
fn the_cuda_c_swizzles_the_tiles_and_fences_the_multiplies() {
    let src = gemm_bf16_wgmma.cuda_source();
    assert!(
        src.contains(cuphase_contract_marker()),
        "no sm_90a marker:\n{src}"
    );
    assert!(src.contains("extern __shared__ __align__(1024)"), "{src}");
    assert!(
        src.contains("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16"),
        "{src}"
    );
    assert!(src.contains("&a_tile[cuphase::swizzle128("), "{src}");
    assert_eq!(src.matches("cuphase::wgmma_fence();").count(), 1, "{src}");
    let barriers = src.matches("__syncthreads();").count();
    assert!(barriers >= 1);
    assert_eq!(
        src.matches("cuphase::fence_proxy_async();\n").count(),
        barriers,
        "{src}"
    );
    // A kernel without warpgroup multiplies has none of it.
    let plain = crate::kernels::large_shared::gemm_bf16_wide.cuda_source();
    assert!(!plain.contains("swizzle128") && !plain.contains(cuphase_contract_marker()));
}

/// The marker line the runtime compiles for `sm_90a` by (the contract's `ARCH_SPECIFIC`).
fn cuphase_contract_marker() -> &'static str {
    "// cuphase: architecture-specific (sm_90a): wgmma"
}

/// Tier 3: on an sm_90 GPU (compiled for `sm_90a`), against the host; elsewhere the launch
/// is refused with a clear error.
#[test]
fn on_the_gpu_the_warpgroup_multiplies_are_the_product() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("on_the_gpu_the_warpgroup_multiplies_are_the_product: skipped: no GPU ({e})");
            return;
        }
    };
    let tile = tile_on(&gpu);
    if let Err(Error::InvalidLaunch { reason, .. }) = &tile {
        assert!(reason.contains("sm_90"), "{reason}");
        skip!("on_the_gpu_the_warpgroup_multiplies_are_the_product: skipped: not an sm_90 GPU ({reason})");
        return;
    }
    let (got, want, mag) = tile.unwrap();
    assert_close("wgmma_tile on the GPU", &got, &want, &mag, 4.0);
    for rounds in [1, 3] {
        let (got, want, mag) = rs_rounds_on(&gpu, rounds).unwrap();
        assert_close(
            &format!("wgmma_rs_rounds {rounds} on the GPU"),
            &got,
            &want,
            &mag,
            4.0 * f64::from(rounds),
        );
    }
    let (got, want, mag) = rs_kn_on(&gpu).unwrap();
    assert_close("wgmma_rs_kn on the GPU", &got, &want, &mag, 4.0);
    for (m, n, k) in [(128, 256, 384), (256, 512, 1024), (128, 256, 64)] {
        let (got, want, mag) = gemm_on(&gpu, m, n, k).unwrap();
        assert_close(
            &format!("gemm_bf16_wgmma {m}x{n}x{k} on the GPU"),
            &got,
            &want,
            &mag,
            4.0 * (k / 16) as f64,
        );
    }
    for (m, n, k) in [(128, 256, 160), (256, 512, 1024)] {
        let (got, want, mag) = tf32_gemm_on(&gpu, m, n, k).unwrap();
        assert_close(
            &format!("gemm_tf32_wgmma {m}x{n}x{k} on the GPU"),
            &got,
            &want,
            &mag,
            4.0 * (k / 8) as f64,
        );
    }
    println!(
        "wgmma: the tiles (A from shared memory and from registers) and the GEMMs (bf16, TF32) agree with the host on {}",
        gpu.name()
    );
}

/// Tier 2: NVRTC compiles both kernels for `sm_90a` with no warnings, and the runtime refuses
/// them for another architecture with an error that says why.
#[test]
fn the_wgmma_kernels_compile_for_sm90a_only() {
    use cuphase::cuda::{compile_cuda, nvrtc_available, Arch};
    if !nvrtc_available() {
        if std::env::var("CUPHASE_REQUIRE_NVRTC").is_ok_and(|v| v == "1") {
            panic!("CUPHASE_REQUIRE_NVRTC=1 but NVRTC cannot be loaded");
        }
        skip!("the_wgmma_kernels_compile_for_sm90a_only: skipped: NVRTC is not available (install nvidia-cuda-nvrtc and put its lib directory on LD_LIBRARY_PATH)");
        return;
    }
    for (name, source) in [
        (gemm_bf16_wgmma.name(), gemm_bf16_wgmma.cuda_source()),
        (gemm_tf32_wgmma.name(), gemm_tf32_wgmma.cuda_source()),
        (attention_wgmma.name(), attention_wgmma.cuda_source()),
        (wgmma_tile.name(), wgmma_tile.cuda_source()),
        (wgmma_rs_rounds.name(), wgmma_rs_rounds.cuda_source()),
        (wgmma_rs_kn.name(), wgmma_rs_kn.cuda_source()),
    ] {
        let hopper = Arch { major: 9, minor: 0 };
        let fast = name == attention_wgmma.name();
        let module = compile_cuda(source, "tests/in/wgmma.rs", name, hopper, fast)
            .unwrap_or_else(|e| panic!("{name} for sm_90a: {e}"));
        assert!(!module.is_ptx && module.image.len() > 64, "{name}");
        assert!(
            module
                .options
                .iter()
                .any(|o| o == "--gpu-architecture=sm_90a"),
            "{name}: {:?}",
            module.options
        );
        // The checked variant (debug builds) exits a thread where a check fails, and ptxas
        // serializes multiplies that such an exit may separate (warning C7520): slower, not
        // wrong. The unchecked variant (release builds) has no such exits and no warning.
        let serialized = module
            .log
            .lines()
            .all(|l| l.contains("(C7520)") && l.contains("serialized"));
        assert!(
            module.log.is_empty() || (cfg!(debug_assertions) && serialized),
            "{name}: NVRTC warned:\n{}",
            module.log
        );
        let ampere = Arch { major: 8, minor: 0 };
        match compile_cuda(source, "tests/in/wgmma.rs", name, ampere, fast) {
            Err(Error::InvalidLaunch { reason, .. }) => {
                assert!(reason.contains("only sm_90"), "{name}: {reason}");
            }
            other => panic!("{name} for sm_80: {:?}", other.map(|m| m.options)),
        }
    }
}
