//! Asynchronous copies into shared memory (`tests/in/async_copy.rs`): the results on the
//! simulator in every thread order, with its race detection on (a correct pipeline raises
//! nothing), a premature read caught at run time (the simulator writes a copy at its wait, so
//! the read sees the old value), and the same kernels on a GPU (skipped, saying why, without
//! one).

use crate::kernels::async_copy::*;
use cuphase::prelude::*;
use cuphase::sim::{SimOptions, ThreadOrder};

/// Simulators in three thread orders, checking shared memory for races even where the
/// compiler proved there are none.
fn checking_simulators() -> Vec<Device> {
    [
        ThreadOrder::Forward,
        ThreadOrder::Reverse,
        ThreadOrder::Shuffle(5),
    ]
    .into_iter()
    .map(|order| {
        Device::cpu_with(SimOptions {
            order,
            trust_compiler: false,
            ..SimOptions::default()
        })
        .unwrap()
    })
    .collect()
}

/// The three kernels' outputs: the reversed blocks, the slice sums, the swapped rows.
type Outputs = (Vec<f32>, Vec<f32>, Vec<[f32; 4]>);

/// The three kernels' outputs on `dev`.
fn outputs_on(dev: &Device) -> Result<Outputs, Error> {
    let x: Vec<f32> = (0..512).map(|i| i as f32 * 0.5).collect();
    let xb = dev.upload(&x)?;
    let mut out = dev.upload(&vec![f32::NAN; 512])?;
    reverse_async.launch(dev, Launch::new(2, 256), &mut out, &xb)?;
    let reversed = out.to_vec()?;
    // The same with the wait and the barrier placed by `sync = "auto"`.
    out.copy_from_host(&vec![f32::NAN; 512])?;
    reverse_async_auto.launch(dev, Launch::new(2, 256), &mut out, &xb)?;
    assert_eq!(
        out.to_vec()?,
        reversed,
        "reverse_async_auto on {}",
        dev.name()
    );
    let mut sums = dev.upload(&vec![f32::NAN; 64])?;
    sum_slices.launch(dev, Launch::new(1, 64), &mut sums, &xb, 5)?;
    let sums = sums.to_vec()?;
    let mut placed = dev.upload(&vec![f32::NAN; 64])?;
    sum_slices_auto.launch(dev, Launch::new(1, 64), &mut placed, &xb, 5)?;
    assert_eq!(placed.to_vec()?, sums, "sum_slices_auto on {}", dev.name());
    placed.copy_from_host(&vec![f32::NAN; 64])?;
    sum_slices3_auto.launch(dev, Launch::new(1, 64), &mut placed, &xb, 5)?;
    assert_eq!(placed.to_vec()?, sums, "sum_slices3_auto on {}", dev.name());
    // Three stages, each refilled right after a step's barrier.
    placed.copy_from_host(&vec![f32::NAN; 64])?;
    sum_slices_refill_after_barrier.launch(dev, Launch::new(1, 64), &mut placed, &xb, 5)?;
    assert_eq!(
        placed.to_vec()?,
        sums,
        "sum_slices_refill_after_barrier on {}",
        dev.name()
    );
    let rows: Vec<[f32; 4]> = (0..256)
        .map(|i| std::array::from_fn(|l| (i * 4 + l) as f32))
        .collect();
    let rb = dev.upload(&rows)?;
    let mut swapped = dev.upload(&vec![[f32::NAN; 4]; 256])?;
    swap_rows_async.launch(dev, Launch::new(2, 128), &mut swapped, &rb)?;
    Ok((reversed, sums, swapped.to_vec()?))
}

/// What the three kernels must give.
fn expected() -> Outputs {
    let x = |i: usize| i as f32 * 0.5;
    let reversed = (0..512).map(|i| x(i / 256 * 256 + 255 - i % 256)).collect();
    let sums = (0..64)
        .map(|t| (0..5).map(|s| x(s * 64 + 63 - t)).sum())
        .collect();
    let swapped = (0..256)
        .map(|i: usize| std::array::from_fn(|l| ((i ^ 1) * 4 + l) as f32))
        .collect();
    (reversed, sums, swapped)
}

#[test]
fn copies_land_at_their_waits_in_every_thread_order() {
    let (reversed, sums, swapped) = expected();
    for dev in checking_simulators() {
        let (r, s, w) = outputs_on(&dev).unwrap();
        assert_eq!(r, reversed, "reverse_async on {}", dev.name());
        assert_eq!(s, sums, "sum_slices on {}", dev.name());
        assert_eq!(w, swapped, "swap_rows_async on {}", dev.name());
    }
}

/// A read of another thread's element before the copy's wait: a race on the simulator (read
/// before the wait); without race detection, the old contents of the tile (zero).
#[test]
fn a_read_before_the_wait_is_a_race_or_stale_on_the_simulator() {
    let x: Vec<f32> = (1..=64).map(|i| i as f32).collect();
    let dev = Device::cpu().unwrap();
    let xb = dev.upload(&x).unwrap();
    let mut out = dev.zeros::<f32>(64).unwrap();
    let err = read_before_wait
        .launch(&dev, Launch::new(1, 64), &mut out, &xb)
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::DataRace { .. }), "{text}");
    assert!(text.contains("read-before-wait"), "{text}");
    assert!(
        text.contains("tile[63]") || text.contains("tile["),
        "{text}"
    );
    let quiet = Device::cpu_with(SimOptions {
        race_detection: false,
        ..SimOptions::default()
    })
    .unwrap();
    let xb = quiet.upload(&x).unwrap();
    let mut out = quiet.upload(&vec![f32::NAN; 64]).unwrap();
    read_before_wait
        .launch(&quiet, Launch::new(1, 64), &mut out, &xb)
        .unwrap();
    assert_eq!(
        out.to_vec().unwrap(),
        vec![0.0; 64],
        "the copies had not landed"
    );
}

/// Tier 3: the same kernels on a GPU give the simulator's results.
#[test]
fn on_the_gpu_copies_land_as_on_the_simulator() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("on_the_gpu_copies_land_as_on_the_simulator: skipped: no GPU ({e})");
            return;
        }
    };
    let (reversed, sums, swapped) = expected();
    let (r, s, w) = outputs_on(&gpu).unwrap();
    assert_eq!(r, reversed, "reverse_async on the GPU");
    assert_eq!(s, sums, "sum_slices on the GPU");
    assert_eq!(w, swapped, "swap_rows_async on the GPU");
    println!("async_copy: three kernels agree on {}", gpu.name());
}
