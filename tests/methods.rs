//! The scalar methods added for ordinary Rust (issue 12 §4), table-driven like `edges`: the
//! exact ones (float tests and sign operations, `fract`, saturating arithmetic, bit and byte
//! reversal,
//! leading and trailing ones) over all pairs of edge values, compared with rustc's results on
//! the host; they join `cases::all()`, so the GPU is compared with the simulator bit for bit.
//! The library functions (`asin` .. `cbrt`, `hypot`, `atan2`) are cuphase's math library on
//! both back ends (checked here exactly against it, and within an ulp or two of Rust's).

use crate::cases::Case;
use crate::edges::all_pairs;
use cuphase::prelude::*;

/// Results per pair of inputs.
const INT_OPS: usize = 15;
const FLOAT_OPS: usize = 10;

macro_rules! int_more {
    ($kernel:ident, $case:ident, $t:ident) => {
        /// The saturating and bit methods of one integer type on a pair of inputs per thread.
        #[kernel]
        pub fn $kernel(out: &mut [$t], xs: &[$t], ys: &[$t]) {
            let i = global_idx().x;
            if i < xs.len() as u32 {
                let (x, y) = (xs[i], ys[i]);
                let o = i * 15;
                out[o + 14] = x.abs_diff(y) as $t;
                // Guarded so that no pair panics: a zero divisor is 1, `MIN / -1` is moved.
                let d = if y == 0 { 1 } else { y };
                let n = if d == !(0 as $t) {
                    x.max($t::MIN + 1)
                } else {
                    x
                };
                out[o + 8] = n.div_euclid(d);
                out[o + 9] = n.rem_euclid(d);
                out[o + 10] = x.max(1).ilog2() as $t;
                out[o + 11] = x.max(1).ilog10() as $t;
                out[o + 12] = x.max(0).isqrt();
                out[o + 13] = $t::rem_euclid(x, 7);
                out[o] = x.saturating_add(y);
                out[o + 1] = x.saturating_sub(y);
                out[o + 2] = x.reverse_bits();
                out[o + 3] = x.leading_ones() as $t;
                out[o + 4] = x.trailing_ones() as $t;
                out[o + 5] = $t::max(x, y).saturating_add($t::min(x, y));
                out[o + 6] = x.saturating_mul(y);
                out[o + 7] = x.swap_bytes();
            }
        }

        /// The case: all pairs of the type's edge values.
        pub fn $case() -> Case {
            fn pairs() -> (Vec<$t>, Vec<$t>) {
                let edges = [
                    0,
                    1,
                    2,
                    7,
                    $t::MAX,
                    $t::MAX - 1,
                    $t::MIN,
                    $t::MIN + 1,
                    0x55,
                    !(0 as $t),
                    $t::MAX / 3,
                ];
                all_pairs(&edges)
            }
            Case {
                name: stringify!($kernel),
                run: |dev| {
                    let (xs, ys) = pairs();
                    let n = xs.len();
                    let mut out = dev.zeros::<$t>(n * INT_OPS)?;
                    let (xs, ys) = (dev.upload(&xs)?, dev.upload(&ys)?);
                    $kernel.launch(dev, Launch::cover(n, 64), &mut out, &xs, &ys)?;
                    Ok(out.to_vec()?.iter().map(|v| *v as u64).collect())
                },
                expected: || {
                    let (xs, ys) = pairs();
                    let mut v = Vec::new();
                    for (x, y) in xs.iter().zip(&ys) {
                        let (x, y) = (*x, *y);
                        let d = if y == 0 { 1 } else { y };
                        let n = if d == !(0 as $t) {
                            x.max($t::MIN + 1)
                        } else {
                            x
                        };
                        let r: [$t; INT_OPS] = [
                            x.saturating_add(y),
                            x.saturating_sub(y),
                            x.reverse_bits(),
                            x.leading_ones() as $t,
                            x.trailing_ones() as $t,
                            x.max(y).saturating_add(x.min(y)),
                            x.saturating_mul(y),
                            x.swap_bytes(),
                            n.div_euclid(d),
                            n.rem_euclid(d),
                            x.max(1).ilog2() as $t,
                            x.max(1).ilog10() as $t,
                            x.max(0).isqrt(),
                            x.rem_euclid(7),
                            x.abs_diff(y) as $t,
                        ];
                        v.extend(r.iter().map(|r| *r as u64));
                    }
                    v
                },
            }
        }
    };
}

int_more!(i8_more, i8_more_case, i8);
int_more!(u8_more, u8_more_case, u8);
int_more!(i16_more, i16_more_case, i16);
int_more!(u16_more, u16_more_case, u16);
int_more!(i32_more, i32_more_case, i32);
int_more!(u32_more, u32_more_case, u32);
int_more!(i64_more, i64_more_case, i64);
int_more!(u64_more, u64_more_case, u64);

/// Results per pair of the unsigned methods.
const UNSIGNED_OPS: usize = 4;

macro_rules! unsigned_more {
    ($kernel:ident, $case:ident, $t:ident) => {
        /// The methods of the unsigned integers only, on a pair of inputs per thread.
        #[kernel]
        pub fn $kernel(out: &mut [$t], xs: &[$t], ys: &[$t]) {
            let i = global_idx().x;
            if i < xs.len() as u32 {
                let (x, y) = (xs[i], ys[i]);
                let o = i * 4;
                out[o] = x.div_ceil(y.max(1));
                out[o + 1] = x.next_power_of_two();
                out[o + 2] = x.is_power_of_two() as $t;
                out[o + 3] = x.is_multiple_of(y) as $t;
            }
        }

        /// The case: all pairs of the type's edge values.
        pub fn $case() -> Case {
            fn pairs() -> (Vec<$t>, Vec<$t>) {
                let edges = [
                    0,
                    1,
                    2,
                    3,
                    7,
                    64,
                    65,
                    $t::MAX,
                    $t::MAX - 1,
                    $t::MAX / 2,
                    $t::MAX / 2 + 2,
                ];
                all_pairs(&edges)
            }
            Case {
                name: stringify!($kernel),
                run: |dev| {
                    let (xs, ys) = pairs();
                    let n = xs.len();
                    let mut out = dev.zeros::<$t>(n * UNSIGNED_OPS)?;
                    let (xs, ys) = (dev.upload(&xs)?, dev.upload(&ys)?);
                    $kernel.launch(dev, Launch::cover(n, 64), &mut out, &xs, &ys)?;
                    Ok(out.to_vec()?.iter().map(|v| *v as u64).collect())
                },
                expected: || {
                    let (xs, ys) = pairs();
                    let mut v = Vec::new();
                    for (x, y) in xs.iter().zip(&ys) {
                        let (x, y) = (*x, *y);
                        let r: [$t; UNSIGNED_OPS] = [
                            x.div_ceil(y.max(1)),
                            // A release build's wrapping.
                            x.checked_next_power_of_two().unwrap_or(0),
                            x.is_power_of_two() as $t,
                            x.is_multiple_of(y) as $t,
                        ];
                        v.extend(r.iter().map(|r| *r as u64));
                    }
                    v
                },
            }
        }
    };
}

unsigned_more!(u8_unsigned, u8_unsigned_case, u8);
unsigned_more!(u16_unsigned, u16_unsigned_case, u16);
unsigned_more!(u32_unsigned, u32_unsigned_case, u32);
unsigned_more!(u64_unsigned, u64_unsigned_case, u64);

/// `x.abs()` of `MIN` wraps to `MIN`, which is negative: the branch on its sign must see
/// that (NVVM or ptxas once took an absolute value to be non-negative).
#[kernel]
pub fn abs_sign(out: &mut [i64], xs: &[i32], ws: &[i64]) {
    let i = global_idx().x as usize;
    if i < xs.len() {
        let k = xs[i].abs();
        let w = ws[i].abs();
        let mut r = 0i64;
        if k < 0 {
            r += 1;
        }
        if w < 0 {
            r += 2;
        }
        out[i] = (r * 1000)
            .wrapping_add(k as i64)
            .wrapping_add(w.wrapping_mul(3));
    }
}

fn abs_inputs() -> (Vec<i32>, Vec<i64>) {
    (
        vec![i32::MIN, i32::MIN + 1, -1, 0, 5, i32::MAX],
        vec![i64::MIN, -7, i64::MIN + 1, 0, i64::MIN, 9],
    )
}

/// One method that panics in Rust, picked by `which`, on thread 0's operands.
#[kernel]
pub fn int_panics(out: &mut [i64], which: u32, x: i32, y: i32, u: u32, v: u32) {
    if global_idx().x == 0 {
        out[0] = match which {
            0 => x.ilog2() as i64,
            1 => x.ilog10() as i64,
            2 => x.isqrt() as i64,
            3 => x.div_euclid(y) as i64,
            4 => x.rem_euclid(y) as i64,
            _ => u.div_ceil(v) as i64,
        };
    }
}

/// Each panicking method with operands that panic gives Rust's message, on the simulator and
/// (where there is one) on the GPU; operands that do not panic give Rust's value.
#[test]
fn panicking_methods_panic_with_rusts_message() {
    let mut devices = vec![Device::cpu().unwrap()];
    match Device::cuda(0) {
        Ok(d) => devices.push(d),
        Err(e) => {
            skip!("panicking_methods_panic_with_rusts_message: GPU part skipped: no GPU ({e})")
        }
    }
    /// `which`, `x`, `y`, `v`, and the value or the panic message.
    type Row = (u32, i32, i32, u32, Result<i64, &'static str>);
    let cases: [Row; 11] = [
        (
            0,
            0,
            0,
            0,
            Err("argument of integer logarithm must be positive"),
        ),
        (
            1,
            -5,
            0,
            0,
            Err("argument of integer logarithm must be positive"),
        ),
        (
            2,
            -1,
            0,
            0,
            Err("argument of integer square root cannot be negative"),
        ),
        (3, 7, 0, 0, Err("attempt to divide by zero")),
        (3, i32::MIN, -1, 0, Err("attempt to divide with overflow")),
        (
            4,
            7,
            0,
            0,
            Err("attempt to calculate the remainder with a divisor of zero"),
        ),
        (
            4,
            i32::MIN,
            -1,
            0,
            Err("attempt to calculate the remainder with overflow"),
        ),
        (5, 0, 0, 0, Err("attempt to divide by zero")),
        (3, -7, 2, 0, Ok(-4)),
        (4, -7, 2, 0, Ok(1)),
        (2, 1 << 30, 0, 0, Ok(1 << 15)),
    ];
    for dev in &devices {
        for (which, x, y, v, want) in cases {
            let mut out = dev.zeros::<i64>(1).unwrap();
            let got = int_panics
                .launch(dev, Launch::new(1, 1), &mut out, which, x, y, 9, v)
                .and_then(|()| out.to_vec());
            match (got, want) {
                (Ok(o), Ok(w)) => assert_eq!(o[0], w, "{which} on {}", dev.name()),
                (Err(Error::KernelPanic { message, .. }), Err(w)) => {
                    assert_eq!(message, w, "{which} on {}", dev.name())
                }
                (got, want) => panic!(
                    "{which} {x} {y} on {}: got {got:?}, want {want:?}",
                    dev.name()
                ),
            }
        }
    }
}

macro_rules! float_more {
    ($kernel:ident, $case:ident, $t:ident) => {
        /// The exact float methods on a pair of inputs per thread.
        #[kernel]
        pub fn $kernel(out: &mut [$t], xs: &[$t], ys: &[$t]) {
            let i = global_idx().x;
            if i < xs.len() as u32 {
                let (x, y) = (xs[i], ys[i]);
                let o = i * 10;
                out[o + 8] = x.div_euclid(y);
                out[o + 9] = x.rem_euclid(y);
                out[o] = x.signum();
                out[o + 1] = x.copysign(y);
                out[o + 2] = x.fract();
                out[o + 3] = x.is_nan() as u32 as $t;
                out[o + 4] = x.is_infinite() as u32 as $t;
                out[o + 5] = x.is_finite() as u32 as $t;
                out[o + 6] = (x.is_sign_negative() as u32 * 2 + x.is_sign_positive() as u32) as $t;
                out[o + 7] = $t::copysign(1.5, x);
            }
        }

        /// The case: all pairs of the type's edge values.
        pub fn $case() -> Case {
            fn pairs() -> (Vec<$t>, Vec<$t>) {
                let edges = [
                    0.0,
                    -0.0,
                    1.0,
                    -1.0,
                    2.75,
                    -3.5,
                    1e30,
                    $t::MIN_POSITIVE,
                    $t::INFINITY,
                    $t::NEG_INFINITY,
                    $t::NAN,
                ];
                all_pairs(&edges)
            }
            Case {
                name: stringify!($kernel),
                run: |dev| {
                    let (xs, ys) = pairs();
                    let n = xs.len();
                    let mut out = dev.zeros::<$t>(n * FLOAT_OPS)?;
                    let (xs, ys) = (dev.upload(&xs)?, dev.upload(&ys)?);
                    $kernel.launch(dev, Launch::cover(n, 64), &mut out, &xs, &ys)?;
                    // (A NaN's payload is not promised: every NaN compares as one.)
                    Ok(out
                        .to_vec()?
                        .iter()
                        .map(|v| {
                            if v.is_nan() {
                                u64::MAX
                            } else {
                                u64::from(v.to_bits())
                            }
                        })
                        .collect())
                },
                expected: || {
                    let (xs, ys) = pairs();
                    let mut v = Vec::new();
                    for (x, y) in xs.iter().zip(&ys) {
                        let (x, y) = (*x, *y);
                        let r: [$t; FLOAT_OPS] = [
                            x.signum(),
                            x.copysign(y),
                            x.fract(),
                            x.is_nan() as u32 as $t,
                            x.is_infinite() as u32 as $t,
                            x.is_finite() as u32 as $t,
                            (x.is_sign_negative() as u32 * 2 + x.is_sign_positive() as u32) as $t,
                            (1.5 as $t).copysign(x),
                            x.div_euclid(y),
                            x.rem_euclid(y),
                        ];
                        v.extend(r.iter().map(|v| {
                            if v.is_nan() {
                                u64::MAX
                            } else {
                                u64::from(v.to_bits())
                            }
                        }));
                    }
                    v
                },
            }
        }
    };
}

float_more!(f32_more, f32_more_case, f32);
float_more!(f64_more, f64_more_case, f64);

/// Bits of floats and floats of bits (`to_bits`, `f32::from_bits`), for both widths. (The
/// inputs keep the flipped `f64` bits clear of NaN, whose payload a conversion need not keep.)
#[kernel]
pub fn float_bits(bits: &mut [u32], wide_bits: &mut [u64], back: &mut [f32], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        bits[i] = x.to_bits();
        wide_bits[i] = f64::from(x).to_bits() ^ f64::to_bits(-1.5);
        back[i] = f32::from_bits(bits[i] ^ 0x8000_0000) + f64::from_bits(wide_bits[i]) as f32;
    }
}

/// The library functions of floats, one per output.
#[kernel]
pub fn float_library(out: &mut [f32], wide: &mut [f64], xs: &[f32]) {
    let i = global_idx().x;
    if i < xs.len() as u32 {
        let x = xs[i];
        let o = i * 12;
        out[o] = x.asin();
        out[o + 1] = x.acos();
        out[o + 2] = x.atan();
        out[o + 3] = x.sinh();
        out[o + 4] = x.cosh();
        out[o + 5] = x.asinh();
        out[o + 6] = (x + 2.0).acosh();
        out[o + 7] = (x * 0.5).atanh();
        out[o + 8] = x.exp_m1();
        out[o + 9] = (x + 1.5).ln_1p();
        out[o + 10] = x.cbrt() + x.hypot(0.5);
        out[o + 11] = x.atan2(-0.25);
        wide[i] = f64::from(x).asinh() + f64::from(x).atan2(2.0);
    }
}

fn bits_input() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        1.0,
        -0.75,
        1e-40,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        5.25,
    ]
}

/// The cases of the exact tables.
pub fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "float_bits",
            run: |dev| {
                let xs = bits_input();
                let n = xs.len();
                let (mut b, mut w, mut back) = (
                    dev.zeros::<u32>(n)?,
                    dev.zeros::<u64>(n)?,
                    dev.zeros::<f32>(n)?,
                );
                let xs = dev.upload(&xs)?;
                float_bits.launch(dev, Launch::cover(n, 32), &mut b, &mut w, &mut back, &xs)?;
                let mut v: Vec<u64> = b.to_vec()?.iter().map(|x| u64::from(*x)).collect();
                v.extend(w.to_vec()?);
                v.extend(back.to_vec()?.iter().map(|x| u64::from(x.to_bits())));
                Ok(v)
            },
            expected: || {
                let xs = bits_input();
                let b: Vec<u32> = xs.iter().map(|x| x.to_bits()).collect();
                let w: Vec<u64> = xs
                    .iter()
                    .map(|x| f64::from(*x).to_bits() ^ (-1.5f64).to_bits())
                    .collect();
                let back = b
                    .iter()
                    .zip(&w)
                    .map(|(b, w)| f32::from_bits(b ^ 0x8000_0000) + f64::from_bits(*w) as f32);
                let mut v: Vec<u64> = b.iter().map(|x| u64::from(*x)).collect();
                v.extend(&w);
                v.extend(back.map(|x| u64::from(x.to_bits())));
                v
            },
        },
        i8_more_case(),
        u8_more_case(),
        i16_more_case(),
        u16_more_case(),
        i32_more_case(),
        u32_more_case(),
        i64_more_case(),
        u64_more_case(),
        Case {
            name: "abs_sign",
            run: |dev| {
                let (xs, ws) = abs_inputs();
                let mut out = dev.zeros::<i64>(xs.len())?;
                let (xs, ws) = (dev.upload(&xs)?, dev.upload(&ws)?);
                abs_sign.launch(dev, Launch::new(1, 32), &mut out, &xs, &ws)?;
                Ok(out.to_vec()?.iter().map(|v| *v as u64).collect())
            },
            expected: || {
                let (xs, ws) = abs_inputs();
                xs.iter()
                    .zip(&ws)
                    .map(|(x, w)| {
                        let (k, w) = (x.wrapping_abs(), w.wrapping_abs());
                        let r = i64::from(k < 0) + 2 * i64::from(w < 0);
                        (r * 1000)
                            .wrapping_add(i64::from(k))
                            .wrapping_add(w.wrapping_mul(3)) as u64
                    })
                    .collect()
            },
        },
        u8_unsigned_case(),
        u16_unsigned_case(),
        u32_unsigned_case(),
        u64_unsigned_case(),
        f32_more_case(),
        f64_more_case(),
    ]
}

#[test]
fn library_functions_are_rusts_on_the_simulator() {
    let dev = Device::cpu().unwrap();
    let xs: Vec<f32> = (0..40).map(|i| i as f32 * 0.05 - 1.0).collect();
    let mut out = dev.zeros::<f32>(xs.len() * 12).unwrap();
    let mut wide = dev.zeros::<f64>(xs.len()).unwrap();
    let input = dev.upload(&xs).unwrap();
    float_library
        .launch(
            &dev,
            Launch::cover(xs.len(), 32),
            &mut out,
            &mut wide,
            &input,
        )
        .unwrap();
    let (out, wide) = (out.to_vec().unwrap(), wide.to_vec().unwrap());
    use cuphase_compiler::math::libm as m;
    for (i, x) in xs.iter().enumerate() {
        let x = *x;
        // The simulator computes cuphase's library, bit for bit (as the GPU does)...
        let want = [
            m::asin_f32(x),
            m::acos_f32(x),
            m::atan_f32(x),
            m::sinh_f32(x),
            m::cosh_f32(x),
            m::asinh_f32(x),
            m::acosh_f32(x + 2.0),
            m::atanh_f32(x * 0.5),
            m::exp_m1_f32(x),
            m::ln_1p_f32(x + 1.5),
            m::cbrt_f32(x) + m::hypot_f32(x, 0.5),
            m::atan2_f32(x, -0.25),
        ];
        for (k, w) in want.iter().enumerate() {
            assert_eq!(
                out[i * 12 + k].to_bits(),
                w.to_bits(),
                "x = {x}, output {k}"
            );
        }
        let w = m::asinh_f64(f64::from(x)) + m::atan2_f64(f64::from(x), 2.0);
        assert_eq!(wide[i].to_bits(), w.to_bits(), "x = {x}");
        // ... which is within an ulp of Rust's (correctly rounded where Rust's is not).
        let rust = [
            x.asin(),
            x.acos(),
            x.atan(),
            x.sinh(),
            x.cosh(),
            x.asinh(),
            (x + 2.0).acosh(),
            (x * 0.5).atanh(),
            x.exp_m1(),
            (x + 1.5).ln_1p(),
            x.cbrt() + x.hypot(0.5),
            x.atan2(-0.25),
        ];
        for (k, r) in rust.iter().enumerate() {
            let g = out[i * 12 + k];
            assert!(
                (g - r).abs() <= 2.0 * f32::EPSILON * r.abs().max(f32::MIN_POSITIVE),
                "x = {x}, output {k}: {g:e} vs Rust's {r:e}"
            );
        }
    }
}

/// The tables' CUDA C, for NVRTC.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (i8_more.name(), i8_more.cuda_source()),
        (u8_more.name(), u8_more.cuda_source()),
        (i16_more.name(), i16_more.cuda_source()),
        (u16_more.name(), u16_more.cuda_source()),
        (i32_more.name(), i32_more.cuda_source()),
        (u32_more.name(), u32_more.cuda_source()),
        (i64_more.name(), i64_more.cuda_source()),
        (u64_more.name(), u64_more.cuda_source()),
        (u8_unsigned.name(), u8_unsigned.cuda_source()),
        (u16_unsigned.name(), u16_unsigned.cuda_source()),
        (u32_unsigned.name(), u32_unsigned.cuda_source()),
        (u64_unsigned.name(), u64_unsigned.cuda_source()),
        (int_panics.name(), int_panics.cuda_source()),
        (abs_sign.name(), abs_sign.cuda_source()),
        (f32_more.name(), f32_more.cuda_source()),
        (f64_more.name(), f64_more.cuda_source()),
        (float_library.name(), float_library.cuda_source()),
        (float_bits.name(), float_bits.cuda_source()),
    ]
}
