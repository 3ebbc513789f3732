//! The trigonometric functions and their inverses in f64, with exact argument reduction.

use super::*;

// ---------------------------------------------------------------------------------------
// Trigonometry.

/// sin(x + y) for |x| <= π/4, |y| <= 2^-52 |x| (Taylor to x^17).
pub(super) fn sin_k(x: f64, y: f64) -> f64 {
    let z: f64 = x * x;
    let mut p: f64 = 2.8114572543455206e-15;
    p = p.mul_add(z, -7.647163731819816e-13);
    p = p.mul_add(z, 1.6059043836821613e-10);
    p = p.mul_add(z, -2.505210838544172e-08);
    p = p.mul_add(z, 2.7557319223985893e-06);
    p = p.mul_add(z, -0.0001984126984126984);
    p = p.mul_add(z, 0.008333333333333333);
    p = p.mul_add(z, -0.16666666666666666);
    x + (x * z * p + y * (1.0 - 0.5 * z))
}

/// cos(x + y) for |x| <= π/4, |y| <= 2^-52 |x| (Taylor to x^16).
pub(super) fn cos_k(x: f64, y: f64) -> f64 {
    let z: f64 = x * x;
    let mut p: f64 = 4.779477332387385e-14;
    p = p.mul_add(z, -1.1470745597729725e-11);
    p = p.mul_add(z, 2.08767569878681e-09);
    p = p.mul_add(z, -2.755731922398589e-07);
    p = p.mul_add(z, 2.48015873015873e-05);
    p = p.mul_add(z, -0.001388888888888889);
    p = p.mul_add(z, 0.041666666666666664);
    let hz: f64 = 0.5 * z;
    let w: f64 = 1.0 - hz;
    // (1 - w) - hz is the exact rounding error of w.
    w + (((1.0 - w) - hz) + (z * z * p - x * y))
}

/// 64 bits of the 352-bit number in `col` (32 bits a limb, little-endian) from bit `pos`.
pub(super) fn limb_window(col: &[u64; 11], pos: i32) -> u64 {
    let i: usize = (pos / 32) as usize;
    let s: u32 = (pos % 32) as u32;
    let low: u64 = col[i] | (col[i + 1] << 32);
    if s == 0 {
        low
    } else {
        (low >> s) | (col[i + 2] << (64 - s))
    }
}

/// `a = n π/2 + (y0 + y1)` for `a >= 2^20` (finite), |y0| <= π/4: `(n mod 4, y0, y1)`.
///
/// Payne-Hanek: the product of the significand with the 224 bits of 2/π that matter at this
/// exponent, as an exact integer.
pub(super) fn rem_pio2_large(a: f64) -> (i32, f64, f64) {
    let bits: u64 = a.to_bits();
    let ex: i32 = ((bits >> 52) as i32) - 1075;
    let m: u64 = (bits & 0x000f_ffff_ffff_ffffu64) | 0x0010_0000_0000_0000u64;
    let m_lo: u64 = m & 0xffff_ffffu64;
    let m_hi: u64 = m >> 32;
    // Words before j0 contribute multiples of 4.
    let j0: i32 = if ex >= 2 { (ex - 2) / 32 } else { 0 };
    let mut col: [u64; 11] = [0; 11];
    let mut t: i32 = 0;
    while t < 7 {
        let w: u64 = TWO_OVER_PI_BITS[(j0 + t) as usize] as u64;
        let pos: usize = (6 - t) as usize;
        let p0: u64 = m_lo * w;
        let p1: u64 = m_hi * w;
        col[pos] += p0 & 0xffff_ffffu64;
        col[pos + 1] += (p0 >> 32) + (p1 & 0xffff_ffffu64);
        col[pos + 2] += p1 >> 32;
        t += 1;
    }
    let mut i: usize = 0;
    while i < 10 {
        col[i + 1] += col[i] >> 32;
        col[i] &= 0xffff_ffffu64;
        i += 1;
    }
    // The units bit of the product is bit `b` of the integer in `col`.
    let b: i32 = 224 - (ex - 32 * j0);
    let mut q: u64 = limb_window(&col, b) & 3u64;
    let mut fhi: u64 = limb_window(&col, b - 64);
    let mut flo: u64 = limb_window(&col, b - 128);
    // A fraction of 1/2 or more belongs to the next quadrant: 1 - fraction, negated.
    let neg: bool = (fhi >> 63) == 1u64;
    if neg {
        q += 1;
        fhi ^= 0xffff_ffff_ffff_ffffu64;
        flo = (flo ^ 0xffff_ffff_ffff_ffffu64).wrapping_add(1u64);
        if flo == 0u64 {
            fhi += 1;
        }
    }
    let mut shift: i32 = 0;
    if fhi == 0u64 {
        fhi = flo;
        flo = 0u64;
        shift = 64;
    }
    if fhi == 0u64 {
        return (0, 0.0, 0.0);
    }
    let lz: u32 = fhi.leading_zeros();
    if lz > 0 {
        fhi = (fhi << lz) | (flo >> (64 - lz));
    }
    let e: i32 = -64 - (lz as i32) - shift;
    let v_hi: f64 = ((fhi >> 11) as f64) * pow2(e + 11);
    let v_lo: f64 = ((fhi & 0x7ffu64) as f64) * pow2(e);
    let r: f64 = v_hi * PIO2;
    let r_lo: f64 = v_hi.mul_add(PIO2, -r) + (v_hi * PIO2_LO + v_lo * PIO2);
    let (y0, y1): (f64, f64) = fast_two_sum(r, r_lo);
    let n: i32 = (q & 3u64) as i32;
    if neg {
        (n, -y0, -y1)
    } else {
        (n, y0, y1)
    }
}

/// `x = n π/2 + (y0 + y1)` for finite |x| > π/4, |y0| <= π/4: `(n mod 4, y0, y1)`.
pub(super) fn rem_pio2(x: f64) -> (i32, f64, f64) {
    let a: f64 = x.abs();
    if a >= 1048576.0 {
        let (n, y0, y1): (i32, f64, f64) = rem_pio2_large(a);
        if x < 0.0 {
            return ((4 - n) & 3, -y0, -y1);
        }
        return (n, y0, y1);
    }
    let kf: f64 = (x * TWO_OVER_PI).round();
    // Exact: both terms are multiples of 2^-53 and the difference is below 1.
    let r: f64 = (-kf).mul_add(PIO2_1, x);
    let p: f64 = kf * PIO2_2;
    let pe: f64 = kf.mul_add(PIO2_2, -p);
    let (y, ye): (f64, f64) = two_sum(r, -p);
    let tail: f64 = ye - pe - kf * PIO2_3;
    let (y0, y1): (f64, f64) = fast_two_sum(y, tail);
    (((kf as i64) & 3) as i32, y0, y1)
}

/// `x.sin()`.
pub fn sin_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return x - x;
    }
    let a: f64 = x.abs();
    if a < 1.0e-8 {
        return x;
    }
    if a <= PIO4 {
        return sin_k(x, 0.0);
    }
    let (n, y0, y1): (i32, f64, f64) = rem_pio2(x);
    if n == 0 {
        sin_k(y0, y1)
    } else if n == 1 {
        cos_k(y0, y1)
    } else if n == 2 {
        -sin_k(y0, y1)
    } else {
        -cos_k(y0, y1)
    }
}

/// `x.cos()`.
pub fn cos_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return x - x;
    }
    let a: f64 = x.abs();
    if a < 1.0e-8 {
        return 1.0;
    }
    if a <= PIO4 {
        return cos_k(x, 0.0);
    }
    let (n, y0, y1): (i32, f64, f64) = rem_pio2(x);
    if n == 0 {
        cos_k(y0, y1)
    } else if n == 1 {
        -sin_k(y0, y1)
    } else if n == 2 {
        -cos_k(y0, y1)
    } else {
        sin_k(y0, y1)
    }
}

/// `x.tan()`.
pub fn tan_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return x - x;
    }
    let a: f64 = x.abs();
    if a < 7.0e-9 {
        return x;
    }
    if a <= PIO4 {
        return sin_k(x, 0.0) / cos_k(x, 0.0);
    }
    let (n, y0, y1): (i32, f64, f64) = rem_pio2(x);
    if (n & 1) == 1 {
        -cos_k(y0, y1) / sin_k(y0, y1)
    } else {
        sin_k(y0, y1) / cos_k(y0, y1)
    }
}

// ---------------------------------------------------------------------------------------
// Inverse trigonometry.

/// atan(u) for |u| <= 0.4375: u + u^3 P(u^2), P fitted (Chebyshev) to 2^-58 relative.
pub(super) fn atan_poly(u: f64) -> f64 {
    let z: f64 = u * u;
    let mut p: f64 = 0.014773184616983806;
    p = p.mul_add(z, -0.033128134256069586);
    p = p.mul_add(z, 0.04492259293193656);
    p = p.mul_add(z, -0.05216679739313656);
    p = p.mul_add(z, 0.05876946456755061);
    p = p.mul_add(z, -0.06666241923359964);
    p = p.mul_add(z, 0.07692285554889286);
    p = p.mul_add(z, -0.09090908355602592);
    p = p.mul_add(z, 0.11111111096645038);
    p = p.mul_add(z, -0.14285714285566806);
    p = p.mul_add(z, 0.1999999999999941);
    p = p.mul_add(z, -0.3333333333333333);
    u + u * z * p
}

/// atan(t) for t >= 0 (or NaN): reduced to |u| <= 0.4375 around atan(0), atan(1/2),
/// atan(1), atan(3/2) or atan(∞).
pub(super) fn atan_pos(t: f64) -> f64 {
    if t < 0.4375 {
        return atan_poly(t);
    }
    if t < 0.6875 {
        let u: f64 = (2.0 * t - 1.0) / (2.0 + t);
        return ATAN_HALF + (atan_poly(u) + ATAN_HALF_LO);
    }
    if t < 1.1875 {
        let u: f64 = (t - 1.0) / (t + 1.0);
        return PIO4 + (atan_poly(u) + PIO4_LO);
    }
    if t < 2.4375 {
        let u: f64 = (t - 1.5) / (1.0 + 1.5 * t);
        return ATAN_THREE_HALVES + (atan_poly(u) + ATAN_THREE_HALVES_LO);
    }
    if t > 7.378697629483821e19 {
        return PIO2 + PIO2_LO;
    }
    let u: f64 = -1.0 / t;
    PIO2 + (atan_poly(u) + PIO2_LO)
}

/// `x.atan()`.
pub fn atan_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a: f64 = x.abs();
    if a < 7.0e-9 {
        return x;
    }
    atan_pos(a).copysign(x)
}

/// `y.atan2(x)`.
pub fn atan2_f64(y: f64, x: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    let ay: f64 = y.abs();
    let ax: f64 = x.abs();
    let x_neg: bool = x.is_sign_negative();
    if ay == 0.0 {
        return if x_neg { (PI + PI_LO).copysign(y) } else { y };
    }
    if ax == f64::INFINITY {
        if ay == f64::INFINITY {
            return if x_neg {
                (PI3O4 + PI3O4_LO).copysign(y)
            } else {
                (PIO4 + PIO4_LO).copysign(y)
            };
        }
        return if x_neg {
            (PI + PI_LO).copysign(y)
        } else {
            0.0f64.copysign(y)
        };
    }
    if ax == 0.0 || ay == f64::INFINITY {
        return (PIO2 + PIO2_LO).copysign(y);
    }
    let a: f64 = atan_pos(ay / ax);
    let r: f64 = if x_neg { PI - (a - PI_LO) } else { a };
    r.copysign(y)
}

/// `x.asin()`.
pub fn asin_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a: f64 = x.abs();
    if a > 1.0 {
        return f64::NAN;
    }
    if a == 1.0 {
        return (PIO2 + PIO2_LO).copysign(x);
    }
    if a < 1.0e-8 {
        return x;
    }
    let w: f64 = if a < 0.5 {
        (-a).mul_add(a, 1.0)
    } else {
        (1.0 - a) * (1.0 + a)
    };
    atan_pos(a / w.sqrt()).copysign(x)
}

/// `x.acos()`.
pub fn acos_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.abs() > 1.0 {
        return f64::NAN;
    }
    if x == 1.0 {
        return 0.0;
    }
    if x == -1.0 {
        return PI + PI_LO;
    }
    2.0 * atan_pos(((1.0 - x) / (1.0 + x)).sqrt())
}
