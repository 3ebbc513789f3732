//! Tier 3: every case on the GPU, bit-equal to the simulator. Skipped, saying why, without a
//! GPU; run on the GPU machine through `../shared/tools/gpu-pack`.

use crate::cases;
use cuphase::prelude::*;

#[test]
fn every_case_on_the_gpu_equals_the_simulator() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("every_case_on_the_gpu_equals_the_simulator: skipped: no GPU ({e})");
            return;
        }
    };
    let cpu = Device::cpu().unwrap();
    for case in cases::all() {
        let on_gpu =
            (case.run)(&gpu).unwrap_or_else(|e| panic!("{} on {}: {e}", case.name, gpu.name()));
        let on_cpu =
            (case.run)(&cpu).unwrap_or_else(|e| panic!("{} on the simulator: {e}", case.name));
        assert_eq!(on_gpu.len(), on_cpu.len(), "{}", case.name);
        for (i, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
            assert_eq!(
                g, c,
                "{}: element {i}: GPU {g:#x}, simulator {c:#x}",
                case.name
            );
        }
        println!(
            "{}: {} outputs bit-equal on {} and the simulator",
            case.name,
            on_gpu.len(),
            gpu.name()
        );
    }
}

#[test]
fn launch_errors_on_the_gpu() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("launch_errors_on_the_gpu: skipped: no GPU ({e})");
            return;
        }
    };
    let mut out = gpu.zeros::<u32>(32).unwrap();
    let err = crate::kernels::faults::two_barriers
        .launch(&gpu, Launch::new(1, 2048), &mut out)
        .unwrap_err();
    assert!(matches!(err, Error::InvalidLaunch { .. }), "{err}");
    let cpu = Device::cpu().unwrap();
    let mut on_cpu = cpu.zeros::<u32>(32).unwrap();
    let err = crate::kernels::faults::two_barriers
        .launch(&gpu, Launch::new(1, 32), &mut on_cpu)
        .unwrap_err();
    assert!(matches!(err, Error::WrongDevice { .. }), "{err}");
}

#[test]
fn device_limits_and_interop_on_the_gpu() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("device_limits_and_interop_on_the_gpu: skipped: no GPU ({e})");
            return;
        }
    };
    let input = gpu.upload(&[2.0f32; 256]).unwrap();
    let mut out = gpu.zeros::<f32>(256).unwrap();
    let k = crate::kernels::reverse::reverse;
    // More shared memory than the device allows is an error naming its limit...
    let err = k
        .launch(
            &gpu,
            Launch::new(1, 256).shared_bytes(250 * 1024),
            &mut out,
            &input,
        )
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidLaunch { reason, .. } if reason.contains("allows")),
        "{err}"
    );
    // ...and more than 48 KiB of dynamic shared memory within it works (the kernel opts in).
    k.launch(
        &gpu,
        Launch::new(1, 256).shared_bytes(100 * 1024),
        &mut out,
        &input,
    )
    .unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![2.0; 256]);
    // A cudarc slice becomes a buffer and back, without copies.
    let stream = gpu.cuda_stream().unwrap().clone();
    let slice = stream.clone_htod(&[5.0f32; 256]).unwrap();
    let wrapped = Buffer::from_cuda_slice(&gpu, slice).unwrap();
    k.launch(&gpu, Launch::new(1, 256), &mut out, &wrapped)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![5.0; 256]);
    let back = out.into_cuda_slice().unwrap();
    assert_eq!(stream.clone_dtoh(&back).unwrap(), vec![5.0; 256]);
    // A device made from an existing cudarc context.
    let ctx = stream.context().clone();
    let dev2 = Device::from_cudarc(ctx).unwrap();
    let mut out2 = dev2.zeros::<f32>(256).unwrap();
    let in2 = dev2.upload(&[3.0f32; 256]).unwrap();
    k.launch(&dev2, Launch::new(1, 256), &mut out2, &in2)
        .unwrap();
    assert_eq!(out2.to_vec().unwrap(), vec![3.0; 256]);
    // A buffer of the simulator is refused by the GPU and the other way round.
    let cpu = Device::cpu().unwrap();
    let on_cpu = cpu.upload(&[1.0f32; 256]).unwrap();
    assert!(matches!(
        k.launch(&gpu, Launch::new(1, 256), &mut out2, &on_cpu),
        Err(Error::WrongDevice { .. })
    ));
    println!("device limits and interop: checked on {}", gpu.name());
}

#[test]
fn faults_on_the_gpu_are_the_simulators_errors() {
    use crate::kernels::faults;
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("faults_on_the_gpu_are_the_simulators_errors: skipped: no GPU ({e})");
            return;
        }
    };
    let cpu = Device::cpu().unwrap();
    // Out of bounds: the launch is asynchronous, the next synchronising call reports it.
    let run = |dev: &Device| -> Error {
        let input = dev.upload(&[1u32; 64]).unwrap();
        let mut out = dev.zeros::<u32>(64).unwrap();
        match faults::read_past_end.launch(dev, Launch::new(1, 64), &mut out, &input) {
            Err(e) => e,
            Ok(()) => out.to_vec().unwrap_err(),
        }
    };
    let (on_gpu, on_cpu) = (run(&gpu), run(&cpu));
    assert_eq!(on_gpu.to_string(), on_cpu.to_string());
    assert!(
        matches!(
            on_gpu,
            Error::OutOfBounds {
                array: "input",
                index: 64,
                len: 64,
                ..
            }
        ),
        "{on_gpu}"
    );
    // Division by zero and step_by(0), in release builds too.
    let mut out = gpu.zeros::<i32>(4).unwrap();
    faults::divide
        .launch(&gpu, Launch::new(1, 4), &mut out, 0)
        .unwrap();
    let err = gpu.synchronize().unwrap_err();
    assert!(
        matches!(
            &err,
            Error::KernelPanic {
                kernel: "divide",
                message: "attempt to divide by zero",
                ..
            }
        ),
        "{err}"
    );
    let mut out = gpu.zeros::<u32>(4).unwrap();
    faults::zero_step
        .launch(&gpu, Launch::new(1, 1), &mut out, 0)
        .unwrap();
    let err = out.to_vec().unwrap_err();
    assert!(
        matches!(
            &err,
            Error::KernelPanic {
                message: "assertion failed: step != 0",
                ..
            }
        ),
        "{err}"
    );
    // A shared-memory column past the end: several threads fault; the first one is reported.
    let mut out = gpu.zeros::<u32>(16).unwrap();
    faults::shared_column_past_end
        .launch(&gpu, Launch::new(1, 16), &mut out)
        .unwrap();
    match gpu.synchronize().unwrap_err() {
        Error::OutOfBounds {
            array: "tile",
            index,
            len: 8,
            thread,
            ..
        } => assert!((8..16).contains(&index) && thread.x == index as u32),
        other => panic!("expected OutOfBounds, got {other}"),
    }
    // A store past the end of a thread-local array.
    let mut out = gpu.zeros::<u32>(4).unwrap();
    faults::local_past_end
        .launch(&gpu, Launch::new(1, 4), &mut out, 4)
        .unwrap();
    match gpu.synchronize().unwrap_err() {
        Error::OutOfBounds {
            array: "a",
            index: 4,
            len: 4,
            thread,
            ..
        } => assert_eq!(thread.x, 2),
        other => panic!("expected OutOfBounds, got {other}"),
    }
    // The context is still usable: nothing trapped.
    let mut out = gpu.zeros::<i32>(4).unwrap();
    faults::divide
        .launch(&gpu, Launch::new(1, 4), &mut out, 7)
        .unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![14; 4]);
    // On a stream of its own, the stream's synchronize reports the fault, naming the kernel.
    let stream = gpu.stream().unwrap();
    faults::divide
        .launch(&stream, Launch::new(1, 4), &mut out, 0)
        .unwrap();
    let err = stream.synchronize().unwrap_err();
    assert!(
        matches!(
            &err,
            Error::KernelPanic {
                kernel: "divide",
                ..
            }
        ),
        "{err}"
    );
    faults::divide
        .launch(&stream, Launch::new(1, 4), &mut out, 5)
        .unwrap();
    stream.synchronize().unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![20; 4]);
    println!(
        "faults on the GPU: reported like on the simulator, the context stays usable ({})",
        gpu.name()
    );
}

#[test]
fn methods_and_panics_on_the_gpu() {
    use crate::kernels::methods;
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            skip!("methods_and_panics_on_the_gpu: skipped: no GPU ({e})");
            return;
        }
    };
    // Transcendentals: one definition, so the same bits on both.
    let on_gpu = crate::sim::float_approx_on(&gpu);
    let on_cpu = crate::sim::float_approx_on(&Device::cpu().unwrap());
    for (i, (g, c)) in on_gpu.iter().zip(&on_cpu).enumerate() {
        assert_eq!(
            g.to_bits(),
            c.to_bits(),
            "method {i}: GPU {g:e}, simulator {c:e}"
        );
    }
    let mut out = gpu.zeros::<u32>(64).unwrap();
    methods::asserting
        .launch(&gpu, Launch::new(1, 64), &mut out, 10)
        .unwrap();
    let err = out.to_vec().unwrap_err();
    assert!(
        matches!(
            &err,
            Error::KernelPanic {
                message: "thread index over the limit",
                ..
            }
        ),
        "{err}"
    );
    let mut f = gpu.zeros::<f32>(1).unwrap();
    methods::bad_clamp
        .launch(&gpu, Launch::new(1, 1), &mut f, 1.0, 0.0)
        .unwrap();
    let err = gpu.synchronize().unwrap_err();
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
    println!(
        "methods and panics on the GPU: transcendentals within 4 ulp, panics reported ({})",
        gpu.name()
    );
}
