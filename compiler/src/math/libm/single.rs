//! The f32 methods. The ones programs run most (`exp exp2 ln log2 log10 sin cos tan tanh`)
//! are computed in f32 arithmetic, within about an ulp (bounds in README), as fast as CUDA's
//! own; the rest evaluate the f64 function and round once (correctly rounded but where the
//! exact value lies within about 2^-29 ulp of a tie).

use super::*;

const LN2_HI_F: f32 = 0.693145751953125;
const LN2_LO_F: f32 = 1.428606765330187e-06;
const LOG2E_F: f32 = 1.4426950216293335;
const LOG10E_F: f32 = 0.4342944920063019;
const LOG10_2_F: f32 = 0.3010300099849701;
const TWO_OVER_PI_F: f32 = 0.6366197466850281;
/// π/2 in three f32 pieces.
const PIO2_1F: f32 = 1.5707963705062866;
const PIO2_2F: f32 = -4.371138828673793e-08;
const PIO2_3F: f32 = -1.7151245100058819e-15;

/// 2^k for -126 <= k <= 127.
fn pow2_f32(k: i32) -> f32 {
    f32::from_bits(((k + 127) as u32) << 23)
}

/// `p * 2^k` rounded once, for -252 <= k <= 254.
fn scale_f32(p: f32, k: i32) -> f32 {
    if k > 127 {
        p * pow2_f32(127) * pow2_f32(k - 127)
    } else if k < -126 {
        p * pow2_f32(k + 64) * pow2_f32(-64)
    } else {
        p * pow2_f32(k)
    }
}

/// e^r - 1 for |r| <= 0.35 (Taylor to r^7: truncation below 2^-27 relative).
fn expm1_poly_f32(r: f32) -> f32 {
    let mut q: f32 = 0.00019841270113829523;
    q = q.mul_add(r, 0.0013888889225199819);
    q = q.mul_add(r, 0.008333333767950535);
    q = q.mul_add(r, 0.0416666679084301);
    q = q.mul_add(r, 0.1666666716337204);
    q = q.mul_add(r, 0.5);
    r + r * r * q
}

/// e^x for -87 < x < 88, where 2^k is one normal power of two.
fn exp_mid_f32(x: f32) -> f32 {
    let kf: f32 = (x * LOG2E_F).round();
    let r0: f32 = (-kf).mul_add(LN2_HI_F, x);
    let r: f32 = (-kf).mul_add(LN2_LO_F, r0);
    (1.0 + expm1_poly_f32(r)) * pow2_f32(kf as i32)
}

/// `x.exp()` for f32.
pub fn exp_f32(x: f32) -> f32 {
    if x > -87.0 && x < 88.0 {
        return exp_mid_f32(x);
    }
    if x.is_nan() {
        return x;
    }
    if x > 89.0 {
        return f32::INFINITY;
    }
    if x < -104.0 {
        return 0.0;
    }
    let kf: f32 = (x * LOG2E_F).round();
    // Exact: k ln2_hi has 24 bits, and x is within one ln2 of it.
    let r0: f32 = (-kf).mul_add(LN2_HI_F, x);
    let r: f32 = (-kf).mul_add(LN2_LO_F, r0);
    scale_f32(1.0 + expm1_poly_f32(r), kf as i32)
}

/// `x.exp2()` for f32.
pub fn exp2_f32(x: f32) -> f32 {
    if x > -126.0 && x < 127.0 {
        // 2^k is one normal power of two.
        let kf: f32 = x.round();
        let f: f32 = x - kf;
        let r: f32 = f.mul_add(LN2_HI_F, f * LN2_LO_F);
        return (1.0 + expm1_poly_f32(r)) * pow2_f32(kf as i32);
    }
    if x.is_nan() {
        return x;
    }
    if x >= 128.0 {
        return f32::INFINITY;
    }
    if x < -151.0 {
        return 0.0;
    }
    let kf: f32 = x.round();
    let f: f32 = x - kf;
    let r: f32 = f.mul_add(LN2_HI_F, f * LN2_LO_F);
    scale_f32(1.0 + expm1_poly_f32(r), kf as i32)
}

/// ln x for a positive finite f32: `(e, ln(1 + f))` with x = 2^e (1 + f), √2/2 <= 1 + f < √2.
fn ln_parts_f32(x: f32) -> (f32, f32) {
    let mut bits: u32 = x.to_bits();
    let mut e: i32 = -127;
    if bits < 0x0080_0000u32 {
        bits = (x * 16777216.0).to_bits();
        e -= 24;
    }
    e += (bits >> 23) as i32;
    let mut m: f32 = f32::from_bits((bits & 0x007f_ffffu32) | 0x3f80_0000u32);
    if m > 1.4142135 {
        m *= 0.5;
        e += 1;
    }
    let f: f32 = m - 1.0;
    // ln(1 + f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + R(s^2)), s = f / (2 + f).
    let s: f32 = f / (2.0 + f);
    let z: f32 = s * s;
    let mut p: f32 = 0.1538461595773697;
    p = p.mul_add(z, 0.1818181872367859);
    p = p.mul_add(z, 0.2222222238779068);
    p = p.mul_add(z, 0.2857142984867096);
    p = p.mul_add(z, 0.4000000059604645);
    p = p.mul_add(z, 0.6666666865348816);
    let hf: f32 = 0.5 * f * f;
    (e as f32, f - (hf - s * (hf + z * p)))
}

/// The value of an f32 logarithm at NaN, negative, zero and infinity, or 1 otherwise.
fn log_special_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if x < 0.0 {
        return f32::NAN;
    }
    if x == 0.0 {
        return -f32::INFINITY;
    }
    if x == f32::INFINITY {
        return f32::INFINITY;
    }
    1.0
}

/// `x.ln()` for f32.
pub fn ln_f32(x: f32) -> f32 {
    let special: f32 = log_special_f32(x);
    if special != 1.0 {
        return special;
    }
    let (e, l): (f32, f32) = ln_parts_f32(x);
    e.mul_add(LN2_HI_F, e.mul_add(LN2_LO_F, l))
}

/// `x.log2()` for f32.
pub fn log2_f32(x: f32) -> f32 {
    let special: f32 = log_special_f32(x);
    if special != 1.0 {
        return special;
    }
    let (e, l): (f32, f32) = ln_parts_f32(x);
    l.mul_add(LOG2E_F, e)
}

/// `x.log10()` for f32.
pub fn log10_f32(x: f32) -> f32 {
    let special: f32 = log_special_f32(x);
    if special != 1.0 {
        return special;
    }
    let (e, l): (f32, f32) = ln_parts_f32(x);
    e.mul_add(LOG10_2_F, l * LOG10E_F)
}

/// sin x for |x| <= π/4 (Taylor to x^9).
fn sin_k_f32(x: f32) -> f32 {
    let z: f32 = x * x;
    let mut p: f32 = 2.7557318844628753e-06;
    p = p.mul_add(z, -0.00019841270113829523);
    p = p.mul_add(z, 0.008333333767950535);
    p = p.mul_add(z, -0.1666666716337204);
    x + x * z * p
}

/// cos x for |x| <= π/4 (Taylor to x^10).
fn cos_k_f32(x: f32) -> f32 {
    let z: f32 = x * x;
    let mut p: f32 = -2.755731998149713e-07;
    p = p.mul_add(z, 2.4801587642286904e-05);
    p = p.mul_add(z, -0.0013888889225199819);
    p = p.mul_add(z, 0.0416666679084301);
    let hz: f32 = 0.5 * z;
    let w: f32 = 1.0 - hz;
    w + (((1.0 - w) - hz) + z * z * p)
}

/// `x = n π/2 + r` for π/4 < |x| < 8192: `(n mod 4, r)`, the product `n π/2` taken with 72
/// bits of π/2.
fn rem_pio2_f32(x: f32) -> (i32, f32) {
    let kf: f32 = (x * TWO_OVER_PI_F).round();
    let r0: f32 = (-kf).mul_add(PIO2_1F, x);
    let r1: f32 = (-kf).mul_add(PIO2_2F, r0);
    let r: f32 = (-kf).mul_add(PIO2_3F, r1);
    (((kf as i32) & 3), r)
}

/// `x.sin()` for f32.
pub fn sin_f32(x: f32) -> f32 {
    let a: f32 = x.abs();
    if a >= 8192.0 || a.is_nan() {
        // Large arguments (and NaN, infinities): the exact reduction in f64.
        return sin_f64(x as f64) as f32;
    }
    if a < 0.0001 {
        // Within a quarter ulp of x (and x itself at a signed zero).
        return x;
    }
    if a <= 0.7853982 {
        return sin_k_f32(x);
    }
    let (n, r): (i32, f32) = rem_pio2_f32(x);
    if n == 0 {
        sin_k_f32(r)
    } else if n == 1 {
        cos_k_f32(r)
    } else if n == 2 {
        -sin_k_f32(r)
    } else {
        -cos_k_f32(r)
    }
}

/// `x.cos()` for f32.
pub fn cos_f32(x: f32) -> f32 {
    let a: f32 = x.abs();
    if a >= 8192.0 || a.is_nan() {
        return cos_f64(x as f64) as f32;
    }
    if a <= 0.7853982 {
        return cos_k_f32(x);
    }
    let (n, r): (i32, f32) = rem_pio2_f32(x);
    if n == 0 {
        cos_k_f32(r)
    } else if n == 1 {
        -sin_k_f32(r)
    } else if n == 2 {
        -cos_k_f32(r)
    } else {
        sin_k_f32(r)
    }
}

/// `x.tan()` for f32.
pub fn tan_f32(x: f32) -> f32 {
    let a: f32 = x.abs();
    if a >= 8192.0 || a.is_nan() {
        return tan_f64(x as f64) as f32;
    }
    if a < 0.0001 {
        // Within a quarter ulp of x (and x itself at a signed zero).
        return x;
    }
    if a <= 0.7853982 {
        return sin_k_f32(x) / cos_k_f32(x);
    }
    let (n, r): (i32, f32) = rem_pio2_f32(x);
    if (n & 1) == 1 {
        -cos_k_f32(r) / sin_k_f32(r)
    } else {
        sin_k_f32(r) / cos_k_f32(r)
    }
}

/// `x.tanh()` for f32: an odd polynomial (fitted to 2^-27 relative) below 0.625, else
/// 1 - 2 / (e^2x + 1).
pub fn tanh_f32(x: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    let a: f32 = x.abs();
    if a > 9.1 {
        return 1.0f32.copysign(x);
    }
    if a < 0.625 {
        let z: f32 = a * a;
        let mut p: f32 = 0.002292744815349579;
        p = p.mul_add(z, -0.008343945257365704);
        p = p.mul_add(z, 0.02176891826093197);
        p = p.mul_add(z, -0.053959257900714874);
        p = p.mul_add(z, 0.13333304226398468);
        p = p.mul_add(z, -0.3333333432674408);
        return (a + a * z * p).copysign(x);
    }
    let e: f32 = exp_mid_f32(a + a);
    (1.0 - 2.0 / (e + 1.0)).copysign(x)
}

/// `x.exp_m1()` for f32.
pub fn exp_m1_f32(x: f32) -> f32 {
    exp_m1_f64(x as f64) as f32
}
/// `x.ln_1p()` for f32.
pub fn ln_1p_f32(x: f32) -> f32 {
    ln_1p_f64(x as f64) as f32
}
/// `x.sinh()` for f32.
pub fn sinh_f32(x: f32) -> f32 {
    sinh_f64(x as f64) as f32
}
/// `x.cosh()` for f32.
pub fn cosh_f32(x: f32) -> f32 {
    cosh_f64(x as f64) as f32
}
/// `x.asinh()` for f32.
pub fn asinh_f32(x: f32) -> f32 {
    asinh_f64(x as f64) as f32
}
/// `x.acosh()` for f32.
pub fn acosh_f32(x: f32) -> f32 {
    acosh_f64(x as f64) as f32
}
/// `x.atanh()` for f32.
pub fn atanh_f32(x: f32) -> f32 {
    atanh_f64(x as f64) as f32
}
/// `x.atan()` for f32.
pub fn atan_f32(x: f32) -> f32 {
    atan_f64(x as f64) as f32
}
/// `y.atan2(x)` for f32.
pub fn atan2_f32(y: f32, x: f32) -> f32 {
    atan2_f64(y as f64, x as f64) as f32
}
/// `x.asin()` for f32.
pub fn asin_f32(x: f32) -> f32 {
    asin_f64(x as f64) as f32
}
/// `x.acos()` for f32.
pub fn acos_f32(x: f32) -> f32 {
    acos_f64(x as f64) as f32
}
/// `x.powf(y)` for f32.
pub fn powf_f32(x: f32, y: f32) -> f32 {
    powf_f64(x as f64, y as f64) as f32
}
/// `x.hypot(y)` for f32: exact squares and one rounding in f64.
pub fn hypot_f32(x: f32, y: f32) -> f32 {
    let a: f64 = x as f64;
    let b: f64 = y as f64;
    if a.abs() == f64::INFINITY || b.abs() == f64::INFINITY {
        return f32::INFINITY;
    }
    a.mul_add(a, b * b).sqrt() as f32
}
/// `x.cbrt()` for f32.
pub fn cbrt_f32(x: f32) -> f32 {
    cbrt_f64(x as f64) as f32
}
