//! Tier 3: every case on the GPU, bit-equal to the simulator. Skipped, saying why, without a
//! GPU; run on the GPU machine through `../shared/tools/gpu-pack`.

use crate::cases;
use cuphase::prelude::*;

#[test]
fn every_case_on_the_gpu_equals_the_simulator() {
    let gpu = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            println!("every_case_on_the_gpu_equals_the_simulator: skipped: no GPU ({e})");
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
            println!("launch_errors_on_the_gpu: skipped: no GPU ({e})");
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
