//! Cases of the constructs ports need (`tests/in/ports.rs`), with host references written as
//! plain Rust; they join `cases::all()`, so they run on the simulator and on the GPU.

use crate::cases::Case;
use crate::kernels::ports;
use cuphase::prelude::*;

fn consts_input() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        1.5,
        -2.25,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        3.0e38,
    ]
}

fn float_consts_expected() -> Vec<u64> {
    let xs = consts_input();
    let mut out = Vec::new();
    let mut wide = Vec::new();
    for &x in &xs {
        let (lo, hi) = (f32::NEG_INFINITY, f32::INFINITY);
        let (mut a, b) = (x.max(lo), x.min(hi));
        a *= core::f32::consts::PI;
        let (a, b) = (b, a);
        out.extend([
            a,
            b + f32::EPSILON,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE * x,
            #[allow(clippy::eq_op)]
            if x != x {
                f32::NAN
            } else {
                std::f32::consts::E * x
            },
            lo,
            hi,
            std::f32::consts::FRAC_1_SQRT_2 + std::f32::consts::TAU,
            (x > 0.0) as u32 as f32 * f32::NAN,
        ]);
        let (w, z) = (x as f64, std::f64::consts::LN_2);
        wide.extend([
            w * z,
            f64::MAX / 2.0,
            f64::NEG_INFINITY,
            f64::EPSILON + core::f64::consts::SQRT_2,
        ]);
    }
    out.iter()
        .map(|v| u64::from(v.to_bits()))
        .chain(wide.iter().map(|v| v.to_bits()))
        .collect()
}

pub fn cases() -> Vec<Case> {
    vec![Case {
        name: "float_consts",
        run: |dev| {
            let xs = consts_input();
            let n = xs.len();
            let mut out = dev.zeros::<f32>(n * 10)?;
            let mut wide = dev.zeros::<f64>(n * 4)?;
            let xs = dev.upload(&xs)?;
            ports::float_consts.launch(dev, Launch::cover(n, 32), &mut out, &mut wide, &xs)?;
            let mut v: Vec<u64> = out
                .to_vec()?
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect();
            v.extend(wide.to_vec()?.iter().map(|x| x.to_bits()));
            Ok(v)
        },
        expected: float_consts_expected,
    }]
}
