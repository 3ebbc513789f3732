//! The constants, the exact building blocks (two-sums, powers of two), the exponentials,
//! the logarithms, the hyperbolic functions and the powers, in f64.

pub(super) const INV_LN2: f64 = 1.4426950408889634;
pub(super) const INV_LN2_LO: f64 = 2.0355273740931033e-17;
pub(super) const LN2_HI: f64 = 0.6931471805599453;
pub(super) const LN2_LO: f64 = 2.3190468138462996e-17;
/// ln 2 to 42 bits, so that `e * LN2_HI42` is exact for every exponent `e`.
pub(super) const LN2_HI42: f64 = 0.6931471805598903;
pub(super) const LN2_LO42: f64 = 5.497923018708371e-14;
pub(super) const INV_LN10: f64 = 0.4342944819032518;
pub(super) const INV_LN10_LO: f64 = 1.098319650216765e-17;
pub(super) const TWO_THIRDS: f64 = 0.6666666666666666;
pub(super) const TWO_THIRDS_LO: f64 = 3.700743415417188e-17;
pub(super) const SQRT2: f64 = 1.4142135623730951;
pub(super) const TWO54: f64 = 1.8014398509481984e16;
pub(super) const PI: f64 = 3.141592653589793;
pub(super) const PI_LO: f64 = 1.2246467991473532e-16;
pub(super) const PIO2: f64 = 1.5707963267948966;
pub(super) const PIO2_LO: f64 = 6.123233995736766e-17;
/// π/2 as three doubles (159 bits).
pub(super) const PIO2_1: f64 = 1.5707963267948966;
pub(super) const PIO2_2: f64 = 6.123233995736766e-17;
pub(super) const PIO2_3: f64 = -1.4973849048591698e-33;
pub(super) const PIO4: f64 = 0.7853981633974483;
pub(super) const PIO4_LO: f64 = 3.061616997868383e-17;
pub(super) const PI3O4: f64 = 2.356194490192345;
pub(super) const PI3O4_LO: f64 = 9.184850993605148e-17;
pub(super) const TWO_OVER_PI: f64 = 0.6366197723675814;
pub(super) const ATAN_HALF: f64 = 0.4636476090008061;
pub(super) const ATAN_HALF_LO: f64 = 2.2698777452961687e-17;
pub(super) const ATAN_THREE_HALVES: f64 = 0.982793723247329;
pub(super) const ATAN_THREE_HALVES_LO: f64 = 1.3903311031230998e-17;

/// The bits of 2/π, 32 at a time: 2/π = Σ W[j]·2^(-32(j+1)).
pub(super) const TWO_OVER_PI_BITS: [u32; 40] = [
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d,
];

// ---------------------------------------------------------------------------------------
// Exact building blocks.

/// `a + b` as a sum and its exact rounding error.
pub(super) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s: f64 = a + b;
    let bb: f64 = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `a + b` and its rounding error, for `|a| >= |b|` (or `a` zero).
pub(super) fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s: f64 = a + b;
    (s, b - (s - a))
}

/// 2^k for -1022 <= k <= 1023.
pub(super) fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `p * 2^k` rounded once, for -2022 <= k <= 2046.
pub(super) fn scale(p: f64, k: i32) -> f64 {
    if k > 1023 {
        p * pow2(1023) * pow2(k - 1023)
    } else if k < -1022 {
        p * pow2(k + 1000) * pow2(-1000)
    } else {
        p * pow2(k)
    }
}

// ---------------------------------------------------------------------------------------
// Exponentials.

/// e^r - 1 for |r| <= 0.35 (Taylor to r^13: truncation below 2^-57 relative).
pub(super) fn expm1_poly(r: f64) -> f64 {
    let mut q: f64 = 1.6059043836821613e-10;
    q = q.mul_add(r, 2.08767569878681e-09);
    q = q.mul_add(r, 2.505210838544172e-08);
    q = q.mul_add(r, 2.755731922398589e-07);
    q = q.mul_add(r, 2.7557319223985893e-06);
    q = q.mul_add(r, 2.48015873015873e-05);
    q = q.mul_add(r, 0.0001984126984126984);
    q = q.mul_add(r, 0.001388888888888889);
    q = q.mul_add(r, 0.008333333333333333);
    q = q.mul_add(r, 0.041666666666666664);
    q = q.mul_add(r, 0.16666666666666666);
    q = q.mul_add(r, 0.5);
    r + r * r * q
}

/// e^(hi + lo) for |hi| <= 746 and |lo| <= 2^-40 |hi|.
pub(super) fn exp_dd(hi: f64, lo: f64) -> f64 {
    let kf: f64 = (hi * INV_LN2).round();
    // Exact: both terms are multiples of 2^-54 and the difference is below 1/2.
    let r0: f64 = (-kf).mul_add(LN2_HI, hi);
    let r: f64 = (-kf).mul_add(LN2_LO, r0) + lo;
    scale(1.0 + expm1_poly(r), kf as i32)
}

/// `x.exp()`.
pub fn exp_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 710.0 {
        return f64::INFINITY;
    }
    if x < -746.0 {
        return 0.0;
    }
    exp_dd(x, 0.0)
}

/// `x.exp2()`.
pub fn exp2_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x >= 1024.0 {
        return f64::INFINITY;
    }
    if x < -1080.0 {
        return 0.0;
    }
    let kf: f64 = x.round();
    let f: f64 = x - kf;
    let r: f64 = f.mul_add(LN2_HI, f * LN2_LO);
    scale(1.0 + expm1_poly(r), kf as i32)
}

/// `x.exp_m1()`.
pub fn exp_m1_f64(x: f64) -> f64 {
    if x.is_nan() || x == 0.0 {
        return x;
    }
    if x > 710.0 {
        return f64::INFINITY;
    }
    if x < -40.0 {
        return -1.0;
    }
    let kf: f64 = (x * INV_LN2).round();
    if kf == 0.0 {
        return expm1_poly(x);
    }
    let r0: f64 = (-kf).mul_add(LN2_HI, x);
    let r: f64 = (-kf).mul_add(LN2_LO, r0);
    let p: f64 = expm1_poly(r);
    let k: i32 = kf as i32;
    if k > 56 || k < -56 {
        return scale(1.0 + p, k) - 1.0;
    }
    // 2^k (1 + p) - 1 = (2^k - 1) + 2^k p, the first term exact.
    let t: f64 = pow2(k);
    (t - 1.0) + t * p
}

// ---------------------------------------------------------------------------------------
// Logarithms.

/// A positive finite `x` as `2^e (1 + f)` with √2/2 <= 1 + f <= √2: `(e, f)`, both exact.
pub(super) fn decompose(x: f64) -> (f64, f64) {
    let mut bits: u64 = x.to_bits();
    let mut e: i64 = -1023;
    if bits < 0x0010_0000_0000_0000u64 {
        bits = (x * TWO54).to_bits();
        e -= 54;
    }
    e += (bits >> 52) as i64;
    let mut m: f64 = f64::from_bits((bits & 0x000f_ffff_ffff_ffffu64) | 0x3ff0_0000_0000_0000u64);
    if m > SQRT2 {
        m *= 0.5;
        e += 1;
    }
    (e as f64, m - 1.0)
}

/// ln(2^e (1 + f)) as a double-double, for -0.3 < f < 0.42: relative error below 2^-66.
///
/// ln(1 + f) = 2 atanh(s) = 2s + (2/3)s^3 + s^5 P(s^2) with s = f / (2 + f), the first two
/// terms carried to double-double precision.
pub(super) fn log_core(e: f64, f: f64) -> (f64, f64) {
    let d: f64 = 2.0 + f;
    let d_lo: f64 = f - (d - 2.0);
    let s: f64 = f / d;
    let s_lo: f64 = ((-s).mul_add(d, f) - s * d_lo) / d;
    let z: f64 = s * s;
    let z_lo: f64 = s.mul_add(s, -z);
    let c: f64 = z * s;
    let c_lo: f64 = z.mul_add(s, -c) + (z_lo * s + 3.0 * z * s_lo);
    let t: f64 = c * TWO_THIRDS;
    let t_lo: f64 = c.mul_add(TWO_THIRDS, -t) + (c * TWO_THIRDS_LO + c_lo * TWO_THIRDS);
    let mut p: f64 = 0.08;
    p = p.mul_add(z, 0.08695652173913043);
    p = p.mul_add(z, 0.09523809523809523);
    p = p.mul_add(z, 0.10526315789473684);
    p = p.mul_add(z, 0.11764705882352941);
    p = p.mul_add(z, 0.13333333333333333);
    p = p.mul_add(z, 0.15384615384615385);
    p = p.mul_add(z, 0.18181818181818182);
    p = p.mul_add(z, 0.2222222222222222);
    p = p.mul_add(z, 0.2857142857142857);
    p = p.mul_add(z, 0.4);
    let h: f64 = c * z * p;
    let (hi0, lo0): (f64, f64) = two_sum(e * LN2_HI42, s + s);
    let (hi1, lo1): (f64, f64) = two_sum(hi0, t);
    let lo: f64 = lo0 + lo1 + (t_lo + h + e * LN2_LO42 + (s_lo + s_lo));
    fast_two_sum(hi1, lo)
}

/// `(hi + lo) * (c + c_lo)` rounded.
pub(super) fn mul_dd(hi: f64, lo: f64, c: f64, c_lo: f64) -> f64 {
    let p: f64 = hi * c;
    let pe: f64 = hi.mul_add(c, -p) + (hi * c_lo + lo * c);
    p + pe
}

/// ln x as a double-double for a positive finite `x`.
pub(super) fn ln_dd(x: f64) -> (f64, f64) {
    let (e, f): (f64, f64) = decompose(x);
    log_core(e, f)
}

/// The value of a logarithm at the special inputs (NaN, negative, zero, infinity), or 1 where
/// `x` is an ordinary positive number.
pub(super) fn log_special(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return -f64::INFINITY;
    }
    if x == f64::INFINITY {
        return f64::INFINITY;
    }
    1.0
}

/// `x.ln()`.
pub fn ln_f64(x: f64) -> f64 {
    let special: f64 = log_special(x);
    if special != 1.0 {
        return special;
    }
    let (hi, lo): (f64, f64) = ln_dd(x);
    hi + lo
}

/// `x.log2()`.
pub fn log2_f64(x: f64) -> f64 {
    let special: f64 = log_special(x);
    if special != 1.0 {
        return special;
    }
    let (hi, lo): (f64, f64) = ln_dd(x);
    mul_dd(hi, lo, INV_LN2, INV_LN2_LO)
}

/// `x.log10()`.
pub fn log10_f64(x: f64) -> f64 {
    let special: f64 = log_special(x);
    if special != 1.0 {
        return special;
    }
    let (hi, lo): (f64, f64) = ln_dd(x);
    mul_dd(hi, lo, INV_LN10, INV_LN10_LO)
}

/// `x.ln_1p()`.
pub fn ln_1p_f64(x: f64) -> f64 {
    if x.is_nan() || x == 0.0 {
        return x;
    }
    if x == -1.0 {
        return -f64::INFINITY;
    }
    if x < -1.0 {
        return f64::NAN;
    }
    if x == f64::INFINITY {
        return f64::INFINITY;
    }
    if x.abs() < 1.0e-17 {
        // ln(1 + x) = x - x^2/2 + ..., within a quarter ulp of x.
        return x;
    }
    if x > -0.29 && x < 0.41 {
        let (hi, lo): (f64, f64) = log_core(0.0, x);
        return hi + lo;
    }
    // u + c = 1 + x exactly.
    let u: f64 = 1.0 + x;
    let c: f64 = if x > 1.0 {
        1.0 - (u - x)
    } else {
        x - (u - 1.0)
    };
    let (hi, lo): (f64, f64) = ln_dd(u);
    hi + (lo + c / u)
}

// ---------------------------------------------------------------------------------------
// Hyperbolic functions.

/// `x.tanh()`.
pub fn tanh_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a: f64 = x.abs();
    if a < 7.0e-9 {
        return x;
    }
    if a > 22.0 {
        return 1.0f64.copysign(x);
    }
    let t: f64 = exp_m1_f64(a + a);
    let r: f64 = if a < 1.0 {
        t / (t + 2.0)
    } else {
        1.0 - 2.0 / (t + 2.0)
    };
    r.copysign(x)
}

/// `x.sinh()`.
pub fn sinh_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let a: f64 = x.abs();
    if a < 7.0e-9 {
        return x;
    }
    if a < 22.0 {
        let t: f64 = exp_m1_f64(a);
        return (0.5 * (t + t / (t + 1.0))).copysign(x);
    }
    if a < 709.0 {
        return (0.5 * exp_f64(a)).copysign(x);
    }
    let e: f64 = exp_f64(0.5 * a);
    (0.5 * e * e).copysign(x)
}

/// `x.cosh()`.
pub fn cosh_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a: f64 = x.abs();
    if a < 7.0e-9 {
        return 1.0;
    }
    if a < 0.35 {
        let t: f64 = exp_m1_f64(a);
        let w: f64 = 1.0 + t;
        return 1.0 + (t * t) / (w + w);
    }
    if a < 22.0 {
        let e: f64 = exp_f64(a);
        return 0.5 * e + 0.5 / e;
    }
    if a < 709.0 {
        return 0.5 * exp_f64(a);
    }
    let e: f64 = exp_f64(0.5 * a);
    0.5 * e * e
}

/// `x.asinh()`.
pub fn asinh_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let a: f64 = x.abs();
    if a < 7.0e-9 {
        return x;
    }
    let r: f64 = if a > 268435456.0 {
        ln_f64(a) + LN2_HI
    } else if a > 2.0 {
        ln_f64(2.0 * a + 1.0 / ((a * a + 1.0).sqrt() + a))
    } else {
        ln_1p_f64(a + a * a / (1.0 + (1.0 + a * a).sqrt()))
    };
    r.copysign(x)
}

/// `x.acosh()`.
pub fn acosh_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 1.0 {
        return f64::NAN;
    }
    if x > 268435456.0 {
        return ln_f64(x) + LN2_HI;
    }
    if x > 2.0 {
        return ln_f64(2.0 * x - 1.0 / (x + (x * x - 1.0).sqrt()));
    }
    let t: f64 = x - 1.0;
    ln_1p_f64(t + (2.0 * t + t * t).sqrt())
}

/// `x.atanh()`.
pub fn atanh_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a: f64 = x.abs();
    if a > 1.0 {
        return f64::NAN;
    }
    if a == 1.0 {
        return f64::INFINITY.copysign(x);
    }
    if a < 7.0e-9 {
        return x;
    }
    let t: f64 = a + a;
    let u: f64 = if a < 0.5 {
        t + t * a / (1.0 - a)
    } else {
        t / (1.0 - a)
    };
    (0.5 * ln_1p_f64(u)).copysign(x)
}

// ---------------------------------------------------------------------------------------
// Powers and roots.

/// Whether a finite `y` is an odd integer.
pub(super) fn is_odd_integer(y: f64) -> bool {
    let h: f64 = 0.5 * y;
    y.trunc() == y && h.trunc() != h
}

/// `x.powf(y)`, with C99's (and Rust's) special cases.
pub fn powf_f64(x: f64, y: f64) -> f64 {
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    let ax: f64 = x.abs();
    if y.is_infinite() {
        if ax == 1.0 {
            return 1.0;
        }
        return if (ax > 1.0) == (y > 0.0) {
            f64::INFINITY
        } else {
            0.0
        };
    }
    let odd: bool = is_odd_integer(y);
    if x == 0.0 || ax == f64::INFINITY {
        let big: bool = (x == 0.0) == (y < 0.0);
        let r: f64 = if big { f64::INFINITY } else { 0.0 };
        return if odd { r.copysign(x) } else { r };
    }
    if x < 0.0 && y.trunc() != y {
        return f64::NAN;
    }
    let (l, l_lo): (f64, f64) = ln_dd(ax);
    let p: f64 = y * l;
    let p_lo: f64 = y.mul_add(l, -p) + y * l_lo;
    let r: f64 = if p > 710.0 {
        f64::INFINITY
    } else if p < -746.0 {
        0.0
    } else {
        exp_dd(p, p_lo)
    };
    if x < 0.0 && odd {
        -r
    } else {
        r
    }
}

/// `x.hypot(y)`.
pub fn hypot_f64(x: f64, y: f64) -> f64 {
    let ax: f64 = x.abs();
    let ay: f64 = y.abs();
    if ax == f64::INFINITY || ay == f64::INFINITY {
        return f64::INFINITY;
    }
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    let mut a: f64 = if ax > ay { ax } else { ay };
    let mut b: f64 = if ax > ay { ay } else { ax };
    let mut sc: f64 = 1.0;
    if a > 6.703903964971299e153 {
        a *= pow2(-600);
        b *= pow2(-600);
        sc = pow2(600);
    } else if a < 1.4916681462400413e-154 {
        a *= pow2(600);
        b *= pow2(600);
        sc = pow2(-600);
    }
    a.mul_add(a, b * b).sqrt() * sc
}

/// `x.cbrt()`.
pub fn cbrt_f64(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    let mut a: f64 = x.abs();
    let mut k: i32 = 0;
    if a < 2.2250738585072014e-308 {
        a *= TWO54;
        k = -18;
    }
    // a = v 2^(3q) with 1 <= v < 8.
    let e: i32 = ((a.to_bits() >> 52) as i32) - 1023;
    let q: i32 = if e >= 0 { e / 3 } else { -((2 - e) / 3) };
    let v: f64 = scale(a, -3 * q);
    // A first estimate within 6% (a line through the ends of each octave), then Halley.
    let mut y: f64 = if v < 2.0 {
        0.74 + 0.26 * v
    } else if v < 4.0 {
        0.944 + 0.154 * v
    } else {
        1.19 + 0.0925 * v
    };
    let mut i: i32 = 0;
    while i < 3 {
        let y3: f64 = y * y * y;
        y = y * (y3 + 2.0 * v) / (2.0 * y3 + v);
        i += 1;
    }
    // A last Newton step with y^3 - v in double-double.
    let y2: f64 = y * y;
    let y2_lo: f64 = y.mul_add(y, -y2);
    let d: f64 = y2.mul_add(y, -v) + y2_lo * y;
    y -= d / (3.0 * y2);
    (y * pow2(q + k)).copysign(x)
}
