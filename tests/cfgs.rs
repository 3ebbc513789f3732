//! `#[cfg]` and `#[cfg_attr]` inside kernel and helper bodies mean what they mean in Rust
//! (issue 16 §4): rustc decides each predicate, and a statement, `let`, match arm or struct
//! field under a false one is not compiled. Each kernel here runs as the same Rust would.

use crate::cases::Case;
use cuphase::prelude::*;

/// A helper whose body has a `#[cfg]`: decided where the helper is written.
#[device]
fn bumped(x: u32) -> u32 {
    let mut v = x;
    #[cfg(target_pointer_width = "64")]
    {
        v += 100;
    }
    #[cfg(not(target_pointer_width = "64"))]
    {
        v += 200;
    }
    v
}

/// True and false predicates on blocks, `let`s, expression statements and match arms, a
/// `cfg_attr` that becomes a lint attribute, and the issue's `#[cfg(any())] { v = 9; }`.
#[kernel]
pub fn cfg_kernel(out: &mut [u32]) {
    let i = global_idx().x;
    if i < out.len() as u32 {
        let mut v = i;
        #[cfg(any())]
        {
            v = 9;
        }
        #[cfg(target_pointer_width = "64")]
        let w = 3u32;
        #[cfg(any())]
        let w = 1000u32;
        #[cfg_attr(target_pointer_width = "64", allow(unused_assignments))]
        let mut u = 5u32;
        #[cfg(any())]
        u += 1;
        #[cfg(target_pointer_width = "64")]
        u *= 2;
        let k = match i % 3 {
            0 => 10u32,
            #[cfg(any())]
            1 => 20u32,
            _ => 30u32,
        };
        out[i] = bumped(v) + w + u + k;
    }
}

fn expected() -> Vec<u64> {
    (0..100u32)
        .map(|i| {
            let extra = if cfg!(target_pointer_width = "64") {
                100
            } else {
                200
            };
            let k = if i % 3 == 0 { 10 } else { 30 };
            u64::from(i + extra + 3 + 10 + k)
        })
        .collect()
}

fn run(d: &Device) -> Result<Vec<u64>, Error> {
    let mut out = d.zeros::<u32>(100)?;
    cfg_kernel.launch(d, Launch::cover(100, 64), &mut out)?;
    Ok(out.to_vec()?.iter().map(|v| u64::from(*v)).collect())
}

/// The case, run on the simulator and the GPU by `sim` and `gpu`.
pub fn cases() -> Vec<Case> {
    vec![Case {
        name: "cfg_in_bodies",
        run,
        expected,
    }]
}

/// The false branches are not in the CUDA C; the true ones are.
#[test]
fn false_cfgs_are_not_compiled() {
    let src = cfg_kernel.cuda_source();
    assert!(!src.contains("1000u"), "{src}");
    assert!(!src.contains("200u"), "{src}");
    assert!(src.contains("100u"), "{src}");
    assert!(!src.contains("20u"), "{src}");
}
