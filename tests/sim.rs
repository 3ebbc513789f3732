//! Tier 1: every case on the CPU simulator against its host reference, and every fault the
//! simulator must report.

use crate::cases;
use crate::kernels::faults;
use cuphase::prelude::*;

fn cpu() -> Device {
    Device::cpu().expect("the simulator is always available")
}

#[test]
fn every_case_matches_the_host_reference() {
    let dev = cpu();
    for case in cases::all() {
        let got = (case.run)(&dev).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let want = (case.expected)();
        assert_eq!(got.len(), want.len(), "{}: output length", case.name);
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g, w,
                "{}: element {i} differs (bits {g:#x} vs {w:#x})",
                case.name
            );
        }
    }
}

/// The 1-based line of the first line of `tests/in/faults.rs` containing `needle`.
fn line_of(needle: &str) -> u32 {
    let src = include_str!("in/faults.rs");
    let i = src
        .lines()
        .position(|l| l.contains(needle))
        .expect("needle in faults.rs");
    i as u32 + 1
}

#[test]
fn out_of_bounds_global_read_names_array_index_location_and_thread() {
    let dev = cpu();
    let input = dev.upload(&[1u32; 64]).unwrap();
    let mut out = dev.zeros::<u32>(64).unwrap();
    let err = faults::read_past_end
        .launch(&dev, Launch::new(1, 64), &mut out, &input)
        .unwrap_err();
    match err {
        Error::OutOfBounds {
            kernel,
            file,
            line,
            array,
            index,
            len,
            block,
            thread,
            ..
        } => {
            assert_eq!(kernel, "read_past_end");
            assert!(file.ends_with("faults.rs"), "{file}");
            assert_eq!(line, line_of("input[i + 1]"));
            assert_eq!((array, index, len), ("input", 64, 64));
            assert_eq!(block, Dim3::new(0, 0, 0));
            assert_eq!(thread, Dim3::new(63, 0, 0));
        }
        other => panic!("expected OutOfBounds, got {other}"),
    }
}

#[test]
fn out_of_bounds_shared_column_is_checked_per_dimension() {
    let dev = cpu();
    let mut out = dev.zeros::<u32>(16).unwrap();
    let err = faults::shared_column_past_end
        .launch(&dev, Launch::new(1, 16), &mut out)
        .unwrap_err();
    match err {
        // tile[t % 4][t] with t = 8: row 0 is fine, column 8 is past the width 8.
        Error::OutOfBounds {
            array,
            index,
            len,
            thread,
            line,
            ..
        } => {
            assert_eq!((array, index, len), ("tile", 8, 8));
            assert_eq!(thread, Dim3::new(8, 0, 0));
            assert_eq!(line, line_of("tile[t % 4][t] = t"));
        }
        other => panic!("expected OutOfBounds, got {other}"),
    }
}

#[test]
fn out_of_bounds_local_array_is_reported() {
    let dev = cpu();
    let mut out = dev.zeros::<u32>(4).unwrap();
    faults::local_past_end
        .launch(&dev, Launch::new(1, 4), &mut out, 3)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![1, 1, 1, 1]);
    let err = faults::local_past_end
        .launch(&dev, Launch::new(1, 4), &mut out, 4)
        .unwrap_err();
    match err {
        Error::OutOfBounds {
            array,
            index,
            len,
            thread,
            line,
            ..
        } => {
            assert_eq!((array, index, len), ("a", 4, 4));
            assert_eq!(thread, Dim3::new(2, 0, 0));
            assert_eq!(line, line_of("a[k] = 7"));
        }
        other => panic!("expected OutOfBounds, got {other}"),
    }
}

#[test]
fn division_by_zero_is_a_kernel_panic() {
    let dev = cpu();
    let mut out = dev.zeros::<i32>(4).unwrap();
    let err = faults::divide
        .launch(&dev, Launch::new(1, 4), &mut out, 0)
        .unwrap_err();
    match &err {
        Error::KernelPanic {
            message,
            line,
            thread,
            ..
        } => {
            assert_eq!(*message, "attempt to divide by zero");
            assert_eq!(*line, line_of("100 / d"));
            assert_eq!(*thread, Dim3::new(0, 0, 0));
        }
        other => panic!("expected KernelPanic, got {other}"),
    }
    assert!(err.to_string().contains("faults.rs"), "{err}");
    // And the same kernel works with a divisor.
    faults::divide
        .launch(&dev, Launch::new(1, 4), &mut out, 7)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![14; 4]);
}

#[test]
fn zero_step_is_a_kernel_panic() {
    let dev = cpu();
    let mut out = dev.zeros::<u32>(4).unwrap();
    let err = faults::zero_step
        .launch(&dev, Launch::new(1, 1), &mut out, 0)
        .unwrap_err();
    assert!(
        matches!(&err, Error::KernelPanic { message, .. } if *message == "assertion failed: step != 0"),
        "{err}"
    );
    faults::zero_step
        .launch(&dev, Launch::new(1, 1), &mut out, 2)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![0, 0, 2, 0]);
}

fn divergence_detail(err: Error) -> String {
    match err {
        Error::BarrierDivergence { detail, .. } => detail,
        other => panic!("expected BarrierDivergence, got {other}"),
    }
}

#[test]
fn a_false_assume_uniform_is_caught_where_it_is_made() {
    let dev = cpu();
    let mut out = dev.zeros::<u32>(32).unwrap();
    let d = divergence_detail(
        faults::divergent_barrier
            .launch(&dev, Launch::new(1, 32), &mut out)
            .unwrap_err(),
    );
    let line = line_of("assume_uniform(t < 16)");
    assert!(
        d.contains(&format!(
            "the promise of `assume_uniform` at tests/in/faults.rs:{line}:"
        )),
        "{d}"
    );
    assert!(
        d.contains("thread (0, 0, 0) saw 0x1 and thread (16, 0, 0) saw 0x0"),
        "{d}"
    );
}

#[test]
fn an_early_return_hidden_by_assume_uniform_is_caught() {
    let dev = cpu();
    let mut out = dev.zeros::<u32>(32).unwrap();
    let d = divergence_detail(
        faults::early_return
            .launch(&dev, Launch::new(1, 32), &mut out, 10)
            .unwrap_err(),
    );
    assert!(
        d.contains("thread (0, 0, 0) saw 0x0 and thread (10, 0, 0) saw 0x1"),
        "{d}"
    );
    // With every thread in range the promise holds and the kernel runs.
    faults::early_return
        .launch(&dev, Launch::new(1, 32), &mut out, 32)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), (0..32).collect::<Vec<u32>>());
}

#[test]
fn two_barriers_behind_a_false_promise_are_caught() {
    let dev = cpu();
    let mut out = dev.zeros::<u32>(32).unwrap();
    let d = divergence_detail(
        faults::two_barriers
            .launch(&dev, Launch::new(1, 32), &mut out)
            .unwrap_err(),
    );
    assert!(
        d.contains("thread (0, 0, 0) saw 0x1 and thread (1, 0, 0) saw 0x0"),
        "{d}"
    );
}

#[test]
fn invalid_launches_are_errors_before_anything_runs() {
    let dev = cpu();
    let mut out = dev.zeros::<u32>(4).unwrap();
    for launch in [
        Launch::new(1, 2048),
        Launch::new(0, 32),
        Launch::new(1, (1, 1, 65)),
        Launch::cover(0, 256),
    ] {
        let err = faults::two_barriers
            .launch(&dev, launch, &mut out)
            .unwrap_err();
        assert!(
            matches!(&err, Error::InvalidLaunch { kernel, .. } if kernel == "two_barriers"),
            "{err}"
        );
    }
    assert_eq!(out.to_vec().unwrap(), vec![0; 4], "nothing ran");
}

#[test]
fn a_buffer_of_another_device_is_an_error() {
    let (a, b) = (cpu(), cpu());
    let mut out = b.zeros::<u32>(32).unwrap();
    let err = faults::two_barriers
        .launch(&a, Launch::new(1, 32), &mut out)
        .unwrap_err();
    assert!(matches!(err, Error::WrongDevice { .. }), "{err}");
    // Two simulators have one name: the message says the other one is another device.
    assert_eq!(
        err.to_string(),
        "a Buffer<u32> lives on CPU simulator, but the operation runs on another CPU simulator device (each `Device` has its own memory: make the buffer with the device that uses it)"
    );
}

#[test]
fn buffers_round_trip_and_check_lengths() {
    let dev = cpu();
    let mut b = dev.upload(&[1.5f64, 2.5, -0.0]).unwrap();
    assert_eq!(b.len(), 3);
    assert_eq!(b.to_vec().unwrap()[2].to_bits(), (-0.0f64).to_bits());
    b.copy_from_host(&[4.0, 5.0, 6.0]).unwrap();
    assert_eq!(b.to_vec().unwrap(), vec![4.0, 5.0, 6.0]);
    assert!(matches!(
        b.copy_from_host(&[1.0]),
        Err(Error::LengthMismatch {
            expected: 3,
            found: 1
        })
    ));
    let empty = dev.zeros::<u8>(0).unwrap();
    assert!(empty.is_empty() && empty.to_vec().unwrap().is_empty());
}

#[test]
fn device_spec_parsing() {
    assert!(Device::from_spec("cpu")
        .unwrap()
        .name()
        .contains("simulator"));
    assert!(matches!(
        Device::from_spec("tpu"),
        Err(Error::BadDeviceSpec { .. })
    ));
    assert!(matches!(
        Device::from_spec("cuda:x"),
        Err(Error::BadDeviceSpec { .. })
    ));
}

fn race(
    err: Error,
) -> (
    &'static str,
    u64,
    &'static str,
    cuphase::sim::RaceSite,
    cuphase::sim::RaceSite,
) {
    match err {
        Error::DataRace {
            array,
            index,
            kind,
            first,
            second,
            ..
        } => (array, index, kind, *first, *second),
        other => panic!("expected DataRace, got {other}"),
    }
}

fn races_line_of(needle: &str) -> u32 {
    let src = include_str!("in/races.rs");
    src.lines()
        .position(|l| l.contains(needle))
        .expect("needle in races.rs") as u32
        + 1
}

#[test]
fn shared_races_hidden_by_unsafe_are_found_with_both_locations() {
    use crate::kernels::races;
    use cuphase::sim::{SimOptions, ThreadOrder};
    let write_line = races_line_of("tile[t] = t;");
    let read_line = races_line_of("tile[(t + 1) % 64] };");
    // Forward order: thread 0 reads tile[1] before thread 1 writes it.
    let dev = cpu();
    let mut out = dev.zeros::<u32>(64).unwrap();
    let err = races::shared_read_after_write
        .launch(&dev, Launch::new(1, 64), &mut out)
        .unwrap_err();
    let text = err.to_string();
    let (array, index, kind, first, second) = race(err);
    assert_eq!(
        (array, index, kind),
        ("tile", 1, "write-after-read"),
        "{text}"
    );
    assert_eq!((first.thread.x, second.thread.x), (0, 1), "{text}");
    assert!(
        first
            .location
            .ends_with(&format!("races.rs:{read_line}:22")),
        "{text}"
    );
    assert!(
        second
            .location
            .ends_with(&format!("races.rs:{write_line}:9")),
        "{text}"
    );
    // Reverse order: thread 62 reads tile[63] after thread 63 wrote it.
    let dev = Device::cpu_with(SimOptions {
        race_detection: true,
        order: ThreadOrder::Reverse,
        trust_compiler: false,
    })
    .unwrap();
    let mut out = dev.zeros::<u32>(64).unwrap();
    let err = races::shared_read_after_write
        .launch(&dev, Launch::new(1, 64), &mut out)
        .unwrap_err();
    let text = err.to_string();
    let (array, index, kind, first, second) = race(err);
    assert_eq!(
        (array, index, kind),
        ("tile", 63, "read-after-write"),
        "{text}"
    );
    assert_eq!((first.thread.x, second.thread.x), (63, 62), "{text}");
    assert!(
        first
            .location
            .ends_with(&format!("races.rs:{write_line}:9")),
        "{text}"
    );
}

#[test]
fn shared_write_after_read_and_write_after_write_are_found() {
    use crate::kernels::races;
    let dev = cpu();
    let mut out = dev.zeros::<u32>(64).unwrap();
    let (array, index, kind, first, second) = race(
        races::shared_write_after_read
            .launch(&dev, Launch::new(1, 64), &mut out)
            .unwrap_err(),
    );
    assert_eq!((array, kind, index), ("tile", "write-after-read", 1));
    assert_eq!((first.thread.x, second.thread.x), (0, 1));
    let (array, index, kind, first, second) = race(
        races::shared_write_after_write
            .launch(&dev, Launch::new(1, 64), &mut out)
            .unwrap_err(),
    );
    assert_eq!((array, kind, index), ("tile", "write-after-write", 0));
    assert_eq!((first.thread.x, second.thread.x), (0, 1));
}

#[test]
fn global_races_within_and_across_blocks_are_found() {
    use crate::kernels::races;
    let dev = cpu();
    let mut out = dev.zeros::<u32>(64).unwrap();
    let (array, index, kind, first, second) = race(
        races::global_write_after_write
            .launch(&dev, Launch::new(1, 32), &mut out)
            .unwrap_err(),
    );
    assert_eq!((array, index, kind), ("out", 0, "write-after-write"));
    assert_eq!((first.thread.x, second.thread.x), (0, 1));
    let mut flag = dev.zeros::<u32>(4).unwrap();
    let err = races::global_across_blocks
        .launch(&dev, Launch::new(2, 32), &mut out, &mut flag)
        .unwrap_err();
    let text = err.to_string();
    let (array, index, _, first, second) = race(err);
    assert_eq!((array, index), ("flag", 0), "{text}");
    assert_ne!(first.block, second.block, "{text}");
}

#[test]
fn barriers_and_atomics_are_not_races() {
    use crate::kernels::races;
    let dev = cpu();
    let mut out = dev.zeros::<u32>(128).unwrap();
    let mut flag = dev.zeros::<u32>(4).unwrap();
    races::global_ordered_by_barrier
        .launch(&dev, Launch::new(4, 32), &mut out, &mut flag)
        .unwrap();
    assert_eq!(
        out.to_vec().unwrap(),
        (0..128).map(|i| i / 32 + 1).collect::<Vec<u32>>()
    );
    let mut counter = dev.zeros::<u32>(2).unwrap();
    races::global_atomics
        .launch(&dev, Launch::new(8, 64), &mut counter, 0)
        .unwrap();
    assert_eq!(counter.to_vec().unwrap()[0], 512);
    let err = races::global_atomics
        .launch(&dev, Launch::new(8, 64), &mut counter, 1)
        .unwrap_err();
    let (array, index, kind, ..) = race(err);
    assert_eq!((array, index), ("counter", 0));
    assert!(
        kind == "read-after-write" || kind == "write-after-read",
        "{kind}"
    );
}

#[test]
fn race_detection_can_be_turned_off_and_thread_order_changed() {
    use crate::kernels::races;
    use cuphase::sim::{SimOptions, ThreadOrder};
    let quiet = |order| {
        Device::cpu_with(SimOptions {
            race_detection: false,
            order,
            trust_compiler: true,
        })
        .unwrap()
    };
    // Without detection the racy kernel runs, and its result depends on the thread order.
    let run = |dev: &Device| {
        let mut out = dev.zeros::<u32>(64).unwrap();
        races::shared_write_after_write
            .launch(dev, Launch::new(1, 64), &mut out)
            .unwrap();
        out.to_vec().unwrap()[0]
    };
    assert_eq!(
        run(&quiet(ThreadOrder::Forward)),
        63,
        "the last writer wins"
    );
    assert_eq!(run(&quiet(ThreadOrder::Reverse)), 0);
    // A correct kernel gives the same result in every order.
    for order in [
        ThreadOrder::Forward,
        ThreadOrder::Reverse,
        ThreadOrder::Shuffle(1),
        ThreadOrder::Shuffle(99),
    ] {
        let dev = Device::cpu_with(SimOptions {
            race_detection: true,
            order,
            trust_compiler: false,
        })
        .unwrap();
        for case in crate::cases::all() {
            let got =
                (case.run)(&dev).unwrap_or_else(|e| panic!("{} in {order:?}: {e}", case.name));
            assert_eq!(got, (case.expected)(), "{} in {order:?}", case.name);
        }
    }
}

#[test]
fn proven_kernels_skip_shared_race_detection_unless_asked() {
    use crate::kernels::races;
    use cuphase::sim::{SimOptions, ThreadOrder};
    // `shared_write_after_write` hides its race in `unsafe`: never trusted.
    for trust_compiler in [true, false] {
        let dev = Device::cpu_with(SimOptions {
            race_detection: true,
            order: ThreadOrder::Forward,
            trust_compiler,
        })
        .unwrap();
        let mut out = dev.zeros::<u32>(64).unwrap();
        let err = races::shared_write_after_write
            .launch(&dev, Launch::new(1, 64), &mut out)
            .unwrap_err();
        assert!(matches!(err, Error::DataRace { .. }), "{err}");
    }
}

#[test]
fn streams_on_the_simulator_order_launches() {
    let dev = cpu();
    let stream = dev.stream().unwrap();
    let mut out = dev.zeros::<i32>(4).unwrap();
    faults::divide
        .launch(&stream, Launch::new(1, 4), &mut out, 10)
        .unwrap();
    stream.synchronize().unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![10; 4]);
    let err = faults::divide
        .launch(&stream, Launch::new(1, 4), &mut out, 0)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::KernelPanic {
                kernel: "divide",
                ..
            }
        ),
        "{err}"
    );
}

/// The transcendental functions on the simulator are cuphase's library (the GPU's), within
/// an ulp of Rust's own.
pub fn float_approx_on(dev: &Device) -> Vec<f64> {
    let mut out = dev.zeros::<f64>(11).unwrap();
    crate::kernels::methods::float_approx
        .launch(dev, Launch::new(1, 32), &mut out, 0.7, 2.3, -3)
        .unwrap();
    out.to_vec().unwrap()
}

#[test]
fn transcendental_methods_are_rusts_on_the_simulator() {
    use cuphase_compiler::math::libm;
    let (x, y, n) = (0.7f64, 2.3f64, -3);
    let want = [
        libm::exp_f64(x),
        libm::exp2_f64(x),
        libm::ln_f64(x),
        libm::log2_f64(x),
        libm::log10_f64(x),
        libm::sin_f64(x),
        libm::cos_f64(x),
        libm::tan_f64(x),
        libm::tanh_f64(x),
        libm::powf_f64(x, y),
        x.powi(n),
    ];
    let rust = [
        x.exp(),
        x.exp2(),
        x.ln(),
        x.log2(),
        x.log10(),
        x.sin(),
        x.cos(),
        x.tan(),
        x.tanh(),
        x.powf(y),
        x.powi(n),
    ];
    let got = float_approx_on(&cpu());
    assert_eq!(got, want);
    for (g, r) in got.iter().zip(rust) {
        assert!(
            (g.to_bits() as i64 - r.to_bits() as i64).abs() <= 1,
            "{g:e} vs Rust's {r:e}"
        );
    }
}

#[test]
fn assert_panic_and_clamp_are_kernel_panics() {
    use crate::kernels::methods;
    let dev = cpu();
    let mut out = dev.zeros::<u32>(64).unwrap();
    methods::asserting
        .launch(&dev, Launch::new(1, 64), &mut out, 64)
        .unwrap();
    let err = methods::asserting
        .launch(&dev, Launch::new(1, 64), &mut out, 10)
        .unwrap_err();
    assert!(
        matches!(&err, Error::KernelPanic { message: "thread index over the limit", thread, .. } if thread.x == 10),
        "{err}"
    );
    let mut big = dev.zeros::<u32>(2048).unwrap();
    let err = methods::asserting
        .launch(&dev, Launch::new(4, 256), &mut big, 5000)
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::KernelPanic {
                message: "thread 1000 reached",
                ..
            }
        ),
        "{err}"
    );
    // A debug_assert fails in debug builds only (this test binary is one in CI; in release,
    // as on the GPU machine, the plain assert fires instead).
    let err = methods::asserting
        .launch(&dev, Launch::new(1, 1), &mut out, 0)
        .unwrap_err();
    let expected = if cfg!(debug_assertions) {
        "assertion failed: limit > 0"
    } else {
        "thread index over the limit"
    };
    assert!(
        matches!(&err, Error::KernelPanic { message, .. } if *message == expected),
        "{err}"
    );
    let mut f = dev.zeros::<f32>(1).unwrap();
    methods::bad_clamp
        .launch(&dev, Launch::new(1, 1), &mut f, 0.0, 1.0)
        .unwrap();
    let err = methods::bad_clamp
        .launch(&dev, Launch::new(1, 1), &mut f, 1.0, 0.0)
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::KernelPanic {
                message: "min > max, or either was NaN",
                ..
            }
        ),
        "{err}"
    );
}

/// `kernel_closure!`: a closure-shaped kernel is a value, launched like a `#[kernel]` fn, and
/// may call helpers.
#[test]
fn closure_kernels_launch_and_call_helpers() {
    use crate::kernels::helpers::math;
    let saxpy = kernel_closure!(|out: &mut [f32], x: &[f32], a: f32| {
        let i = global_idx().x;
        if i < out.len() as u32 {
            out[i] = math::square(a) * x[i] + out[i];
        }
    });
    let dev = cpu();
    let x: Vec<f32> = (0..300).map(|i| i as f32).collect();
    let xs = dev.upload(&x).unwrap();
    let mut out = dev.upload(&vec![1.0f32; 300]).unwrap();
    saxpy
        .launch(&dev, Launch::cover(300, 128), &mut out, &xs, 3.0)
        .unwrap();
    let got = out.to_vec().unwrap();
    let want: Vec<f32> = x.iter().map(|v| 9.0 * v + 1.0).collect();
    assert_eq!(got, want);
    assert!(saxpy
        .cuda_source()
        .contains("__global__ void closure_kernel_"));
}

/// A generic kernel launches the instance its argument types select.
#[test]
fn generic_kernels_pick_the_instance_of_their_arguments() {
    use crate::kernels::helpers::generic_axpy;
    let dev = cpu();
    let x32: Vec<f32> = (0..100).map(|i| i as f32 * 0.5).collect();
    let xs = dev.upload(&x32).unwrap();
    let mut out = dev.upload(&vec![2.0f32; 100]).unwrap();
    generic_axpy
        .launch(&dev, Launch::cover(100, 64), &mut out, &xs, 3.0f32)
        .unwrap();
    let want: Vec<f32> = x32.iter().map(|x| 9.0 * x + 2.0 + 1.0).collect();
    assert_eq!(out.to_vec().unwrap(), want);

    let x64: Vec<f64> = (0..100).map(|i| f64::from(i) * 0.25).collect();
    let xs = dev.upload(&x64).unwrap();
    let mut out = dev.upload(&vec![1.0f64; 100]).unwrap();
    // The instance named (`::<f64>`): the literal takes its type from it.
    generic_axpy::<f64>
        .launch(&dev, Launch::cover(100, 64), &mut out, &xs, 0.5)
        .unwrap();
    let want: Vec<f64> = x64.iter().map(|x| 0.25 * x + 1.0 + 1.0).collect();
    assert_eq!(out.to_vec().unwrap(), want);

    assert_eq!(generic_axpy::<f64>.name(), "generic_axpy_f64");
    assert!(generic_axpy::<f32>
        .cuda_source()
        .contains("__global__ void generic_axpy_f32("));
    assert!(generic_axpy::<f64>
        .cuda_source()
        .contains("double* __restrict__ out"));
}

/// `out[global_idx().x] += 1`: every access at the thread's global index, so the compiler proves
/// `out` one element per thread of a one-dimensional launch (no race shadow there).
#[kernel]
pub fn bump_at_global(out: &mut [u32]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        out[i] = out[i] + 1;
    }
}

#[test]
fn a_buffer_proven_one_element_per_thread_skips_the_shadow_only_in_one_dimensional_launches() {
    assert!(
        bump_at_global
            .report()
            .contains("simulator: `out` is one element per thread"),
        "{}",
        bump_at_global.report()
    );
    let dev = cpu();
    let mut out = dev.zeros::<u32>(1000).unwrap();
    bump_at_global
        .launch(&dev, Launch::cover(1000, 128), &mut out)
        .unwrap();
    assert!(out.to_vec().unwrap().iter().all(|v| *v == 1));
    // A grid of 2 x 2 blocks: blocks (b, 0) and (b, 1) share every `global_idx().x`, a real
    // race across blocks, which the detector (kept for such launches) must report.
    let err = bump_at_global
        .launch(
            &dev,
            Launch::new(Dim3::new(2, 2, 1), Dim3::new(128, 1, 1)),
            &mut out,
        )
        .unwrap_err();
    assert!(matches!(err, Error::DataRace { array: "out", .. }), "{err}");
}
