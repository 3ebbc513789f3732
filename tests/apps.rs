//! Cases of the kernels ported from public GPU suites (`tests/in/apps/`: Rodinia and llm.c),
//! with host references written as plain Rust; they join `cases::all()`, so they run on the
//! simulator and, on a GPU, on CUDA bit-equal to the simulator.
//!
//! Integer kernels and kernels of correctly rounded float arithmetic compare bits with a host
//! reference that computes in the kernel's order (with C's promotions to `double` where the
//! original has them). Kernels with transcendental functions (`exp`, `tanh`, ...) are checked
//! against an f64 host reference within a relative tolerance: `run` returns, for each such
//! output, 0 (within) or 1 (outside). Both back ends compute those functions with cuphase's one
//! definition, so GELU's case also returns the bits, which its host reference computes in the
//! kernel's order with the same library.

mod llmc;
mod rodinia;

use crate::cases::Case;
use cuphase::prelude::*;

pub(crate) fn bits_f32(v: &[f32]) -> Vec<u64> {
    v.iter().map(|x| u64::from(x.to_bits())).collect()
}

pub(crate) fn bits_i32(v: &[i32]) -> Vec<u64> {
    v.iter().map(|x| u64::from(*x as u32)).collect()
}

/// A deterministic pseudo-random sequence (a 32-bit LCG), standing in for the suites' `rand()`.
pub(crate) fn lcg(seed: u32, n: usize) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            s >> 8
        })
        .collect()
}

/// For outputs of transcendental functions: 0 where `got` is within `rel` (relative) or `abs`
/// (absolute) of the host's `want`, else 1, so that a case compares exact values.
pub(crate) fn within(got: &[f32], want: &[f64], rel: f64, abs: f64) -> Vec<u64> {
    assert_eq!(got.len(), want.len());
    got.iter()
        .zip(want)
        .map(|(g, w)| {
            let err = (f64::from(*g) - w).abs();
            u64::from(!(err <= abs || err <= rel * w.abs()))
        })
        .collect()
}

/// Every kernel of `tests/in/apps/`, for the NVRTC tier.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    let mut v = rodinia::sources();
    v.extend(llmc::sources());
    v
}

pub fn cases() -> Vec<Case> {
    let mut v = rodinia::cases();
    v.extend(llmc::cases());
    v
}

/// The cases of this file alone on the simulator (`every_case` runs them with all others).
#[test]
fn apps_cases_match_the_host_reference() {
    let dev = Device::cpu().unwrap();
    let only = std::env::var("CUPHASE_APPS_CASE").ok();
    for case in cases() {
        if only.as_deref().is_some_and(|o| !case.name.contains(o)) {
            continue;
        }
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
