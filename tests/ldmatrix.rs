//! Fragment loads (`ldmatrix`, `ldmatrix_trans`): each lane's elements against the layout the
//! documentation states, on the simulator (both of its forms, every thread order) and on a
//! GPU (skipped, saying why, without one); and the GEMMs built on them.

use crate::kernels::ldmatrix::*;
use crate::mma::{assert_close, host, randoms, through_bf16, to_bf16, Gemm};
use cuphase::half::bf16;
use cuphase::prelude::*;
use cuphase::sim::{SimOptions, ThreadOrder};

/// The row lane `l` gives in the kernels: a permutation of the 32 rows.
fn row_of(lane: usize) -> usize {
    (7 * lane + 3) % 32
}

/// What element `i` of lane `lane`'s fragment of `matrices` matrices holds, as the
/// documentation of `ldmatrix` states it, for a tile whose row `r` element `e` is
/// `r * len + e` (`len` elements a row, `per` of a matrix a lane).
fn expected(lane: usize, i: usize, per: usize, len: usize, trans: bool) -> f32 {
    let (j, h) = (i / per, i % per);
    let (from, e) = if trans {
        (8 * j + 2 * (lane % 4) + h, lane / 4)
    } else {
        (8 * j + lane / 4, per * (lane % 4) + h)
    };
    (row_of(from) * len + e) as f32
}

/// `ldmatrix_forms` on `dev`: each lane's 28 values.
fn forms_on(dev: &Device) -> Result<Vec<f32>, Error> {
    let rows: Vec<[bf16; 8]> = (0..32)
        .map(|r| std::array::from_fn(|e| bf16::from_f32((r * 8 + e) as f32)))
        .collect();
    let a = dev.upload(&rows)?;
    let mut out = dev.upload(&vec![f32::NAN; 32 * 28])?;
    ldmatrix_forms.launch(dev, Launch::new(1, 32), &mut out, &a)?;
    out.to_vec()
}

/// `ldmatrix_f32_forms` on `dev`: each lane's 7 values.
fn f32_forms_on(dev: &Device) -> Result<Vec<f32>, Error> {
    let rows: Vec<[f32; 4]> = (0..32)
        .map(|r| std::array::from_fn(|e| (r * 4 + e) as f32))
        .collect();
    let a = dev.upload(&rows)?;
    let mut out = dev.upload(&vec![f32::NAN; 32 * 7])?;
    ldmatrix_f32_forms.launch(dev, Launch::new(1, 32), &mut out, &a)?;
    out.to_vec()
}

/// The documented layout of every form, lane by lane.
fn check_forms(what: &str, got: &[f32], got_f32: &[f32]) {
    // (offset, matrices, trans) of the 16-bit kernel's 28 values.
    let parts = [
        (0, 1, false),
        (2, 2, false),
        (6, 4, false),
        (14, 1, true),
        (16, 2, true),
        (20, 4, true),
    ];
    for lane in 0..32 {
        for (at, x, trans) in parts {
            for i in 0..2 * x {
                assert_eq!(
                    got[lane * 28 + at + i],
                    expected(lane, i, 2, 8, trans),
                    "{what}: lane {lane}, x{x} trans {trans}, element {i}"
                );
            }
        }
        for (at, x) in [(0, 1), (1, 2), (3, 4)] {
            for i in 0..x {
                assert_eq!(
                    got_f32[lane * 7 + at + i],
                    expected(lane, i, 1, 4, false),
                    "{what}: f32 lane {lane}, x{x}, element {i}"
                );
            }
        }
    }
}

#[test]
fn every_form_gives_the_documented_elements_in_every_thread_order() {
    for order in [
        ThreadOrder::Forward,
        ThreadOrder::Reverse,
        ThreadOrder::Shuffle(5),
    ] {
        let dev = Device::cpu_with(SimOptions {
            order,
            ..SimOptions::default()
        })
        .unwrap();
        let what = format!("{order:?}");
        check_forms(
            &what,
            &forms_on(&dev).unwrap(),
            &f32_forms_on(&dev).unwrap(),
        );
    }
}

/// The one-future-a-thread form (rows moved by shuffles) gives the phase-split form's values.
#[test]
fn the_shuffle_form_gives_the_gathered_forms_elements() {
    let dev = Device::cpu().unwrap();
    let forms = forms_on(&dev).unwrap();
    let rows: Vec<[bf16; 8]> = (0..32)
        .map(|r| std::array::from_fn(|e| bf16::from_f32((r * 8 + e) as f32)))
        .collect();
    let a = dev.upload(&rows).unwrap();
    for rounds in [1, 3] {
        let mut out = dev.upload(&vec![f32::NAN; 32 * 16]).unwrap();
        ldmatrix_rounds
            .launch(&dev, Launch::new(1, 32), &mut out, &a, rounds)
            .unwrap();
        let out = out.to_vec().unwrap();
        for lane in 0..32 {
            assert_eq!(
                out[lane * 16..lane * 16 + 8],
                forms[lane * 28 + 6..lane * 28 + 14]
            );
            assert_eq!(
                out[lane * 16 + 8..lane * 16 + 16],
                forms[lane * 28 + 20..lane * 28 + 28]
            );
        }
    }
}

/// `gemm_bf16_ldmatrix` of `m x k` by `k x n` on `dev`, with the host's product and the
/// terms' magnitudes.
fn gemm_on(dev: &Device, m: usize, n: usize, k: usize) -> Result<Gemm, Error> {
    let (a, b) = (
        through_bf16(&randoms(m * k, 20)),
        through_bf16(&randoms(k * n, 21)),
    );
    let (ah, bh) = (to_bf16(&a), to_bf16(&b));
    let ab = dev.upload(ah.as_chunks::<8>().0)?;
    let bb = dev.upload(bh.as_chunks::<8>().0)?;
    let mut c = dev.upload(&vec![f32::NAN; m * n])?;
    let launch = Launch::new(
        Dim3::new((n / 128) as u32, (m / 128) as u32, 1),
        Dim3::new(32, 2, 2),
    );
    let (want, mag) = host(&a, &b, &vec![0.0; m * n], m, n, k);
    let check = |name: &str, got: &[f32]| {
        let what = format!("{name} {m}x{n}x{k} on {}", dev.name());
        assert_close(&what, got, &want, &mag, 4.0 * (k / 16) as f64);
    };
    // First the form with double-buffered fragments and the one whose copies run along rows,
    // checked here.
    gemm_bf16_ldmatrix_db.launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
    check("gemm_bf16_ldmatrix_db", &c.to_vec()?);
    c.copy_from_host(&vec![f32::NAN; m * n])?;
    gemm_bf16_ldmatrix_rows.launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
    check("gemm_bf16_ldmatrix_rows", &c.to_vec()?);
    c.copy_from_host(&vec![f32::NAN; m * n])?;
    gemm_bf16_ldmatrix.launch(dev, launch, &mut c, &ab, &bb, n as u32, k as u32)?;
    Ok((c.to_vec()?, want, mag))
}

/// Three 32-deep steps and more (the three stages each used, and reused), and a single step
/// (the pipeline's prologue alone).
#[test]
fn a_gemm_through_fragment_loads_is_the_product() {
    let dev = Device::cpu().unwrap();
    for (m, n, k) in [(128, 256, 160), (128, 128, 32), (128, 128, 64)] {
        let (got, want, mag) = gemm_on(&dev, m, n, k).unwrap();
        let steps = (k / 16) as f64;
        assert_close(
            &format!("gemm_bf16_ldmatrix {m}x{n}x{k}"),
            &got,
            &want,
            &mag,
            4.0 * steps,
        );
    }
}

/// Tier 3: the hardware's `ldmatrix` gives the documented elements, and the three GEMMs built on
/// it give the product.
#[test]
fn on_the_gpu_fragment_loads_give_what_the_simulator_says() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("on_the_gpu_fragment_loads_give_what_the_simulator_says: skipped: no GPU ({e})");
            return;
        }
    };
    check_forms(
        "GPU",
        &forms_on(&gpu).unwrap(),
        &f32_forms_on(&gpu).unwrap(),
    );
    // The three GEMMs (`gemm_on` checks the double-buffered one and the one with copies along
    // rows) against the host's product: eleven 32-deep steps, the stages reused.
    let (m, n, k) = (256, 384, 352);
    let (got, want, mag) = gemm_on(&gpu, m, n, k).unwrap();
    assert_close(
        &format!("gemm_bf16_ldmatrix {m}x{n}x{k} on the GPU"),
        &got,
        &want,
        &mag,
        4.0 * (k / 16) as f64,
    );
    println!(
        "ldmatrix: every form agrees on {} and the simulator; the GEMMs are the product",
        gpu.name()
    );
}
