//! Table-driven semantics: every integer operator and method, for every integer type, and the
//! correctly rounded float ones for f32 and f64, over all pairs of edge values, compared with
//! rustc's own result on the host. The cases join `cases::all()`, so they run on the simulator
//! here and on the GPU against the simulator.

use crate::cases::Case;
use cuphase::prelude::*;

/// Results per pair of inputs.
const OPS: usize = 16;

macro_rules! int_table {
    ($kernel:ident, $case:ident, $t:ident, [$($edge:expr),* $(,)?]) => {
        /// Every operator and method of one integer type on a pair of inputs per thread.
        #[kernel]
        pub fn $kernel(out: &mut [$t], xs: &[$t], ys: &[$t]) {
            let i = global_idx().x;
            if i < xs.len() as u32 {
                let x = xs[i];
                let y = ys[i];
                let o = i * 16;
                out[o] = x + y;
                out[o + 1] = x - y;
                out[o + 2] = x * y;
                out[o + 3] = x & y;
                out[o + 4] = x | y ^ x;
                out[o + 5] = x << (y as u32);
                out[o + 6] = x >> (y as u32);
                out[o + 7] = x.min(y);
                out[o + 8] = x.max(y);
                out[o + 9] = x.count_ones() as $t;
                out[o + 10] = x.leading_zeros() as $t;
                out[o + 11] = x.trailing_zeros() as $t;
                out[o + 12] = x.rotate_left(y as u32);
                out[o + 13] = x.rotate_right(y as u32);
                out[o + 14] = (x < y) as $t + ((x == y) as $t) * 2 + ((x >= y) as $t) * 4;
                out[o + 15] = x.pow(y as u32 % 9) ^ !x;
            }
        }

        /// The case: all pairs of the edge values, expected from the host's arithmetic.
        pub fn $case() -> Case {
            fn pairs() -> (Vec<$t>, Vec<$t>) {
                all_pairs(&[$($edge),*])
            }
            Case {
                name: stringify!($kernel),
                run: |dev| {
                    let (xs, ys) = pairs();
                    let n = xs.len();
                    let mut out = dev.zeros::<$t>(n * OPS)?;
                    let (xs, ys) = (dev.upload(&xs)?, dev.upload(&ys)?);
                    $kernel.launch(dev, Launch::cover(n, 64), &mut out, &xs, &ys)?;
                    Ok(out.to_vec()?.iter().map(|v| *v as u64).collect())
                },
                expected: || {
                    let (xs, ys) = pairs();
                    let mut v = Vec::new();
                    for (x, y) in xs.iter().zip(&ys) {
                        let (x, y) = (*x, *y);
                        let r: [$t; OPS] = [
                            x.wrapping_add(y),
                            x.wrapping_sub(y),
                            x.wrapping_mul(y),
                            x & y,
                            x | (y ^ x),
                            x.wrapping_shl(y as u32),
                            x.wrapping_shr(y as u32),
                            x.min(y),
                            x.max(y),
                            x.count_ones() as $t,
                            x.leading_zeros() as $t,
                            x.trailing_zeros() as $t,
                            x.rotate_left(y as u32),
                            x.rotate_right(y as u32),
                            (x < y) as $t + ((x == y) as $t) * 2 + ((x >= y) as $t) * 4,
                            x.wrapping_pow(y as u32 % 9) ^ !x,
                        ];
                        v.extend(r.iter().map(|r| *r as u64));
                    }
                    v
                },
            }
        }
    };
}

int_table!(
    i8_table,
    i8_case,
    i8,
    [
        0,
        1,
        2,
        7,
        -1,
        -2,
        i8::MAX,
        i8::MIN,
        i8::MAX - 1,
        i8::MIN + 1,
        0x55,
        8,
        9
    ]
);
int_table!(
    u8_table,
    u8_case,
    u8,
    [0, 1, 2, 7, u8::MAX, u8::MAX - 1, 0x80, 0x7f, 0x55, 8, 9]
);
int_table!(
    i16_table,
    i16_case,
    i16,
    [
        0,
        1,
        2,
        7,
        -1,
        -2,
        i16::MAX,
        i16::MIN,
        i16::MIN + 1,
        0x5555,
        16,
        17
    ]
);
int_table!(
    u16_table,
    u16_case,
    u16,
    [
        0,
        1,
        2,
        7,
        u16::MAX,
        u16::MAX - 1,
        0x8000,
        0x7fff,
        0x5555,
        16,
        17
    ]
);
int_table!(
    i32_table,
    i32_case,
    i32,
    [
        0,
        1,
        2,
        7,
        -1,
        -2,
        i32::MAX,
        i32::MIN,
        i32::MIN + 1,
        0x5555_5555,
        31,
        32,
        33
    ]
);
int_table!(
    u32_table,
    u32_case,
    u32,
    [
        0,
        1,
        2,
        7,
        u32::MAX,
        u32::MAX - 1,
        0x8000_0000,
        0x7fff_ffff,
        31,
        32,
        33
    ]
);
int_table!(
    i64_table,
    i64_case,
    i64,
    [
        0,
        1,
        2,
        7,
        -1,
        -2,
        i64::MAX,
        i64::MIN,
        i64::MIN + 1,
        0x5555_5555_5555_5555,
        63,
        64,
        65
    ]
);
int_table!(
    u64_table,
    u64_case,
    u64,
    [
        0,
        1,
        2,
        7,
        u64::MAX,
        u64::MAX - 1,
        1 << 63,
        u64::MAX >> 1,
        63,
        64,
        65
    ]
);

/// Every ordered pair of the edge values, as two columns.
pub fn all_pairs<T: Copy>(edges: &[T]) -> (Vec<T>, Vec<T>) {
    let xs = edges
        .iter()
        .flat_map(|x| edges.iter().map(move |_| *x))
        .collect();
    let ys = edges.iter().flat_map(|_| edges.iter().copied()).collect();
    (xs, ys)
}

/// NaN payloads and signs are not Rust's to promise (nor CUDA's): every NaN compares as one.
fn canonical(bits: u64, nan: bool) -> u64 {
    if nan {
        u64::MAX
    } else {
        bits
    }
}

/// `min`/`max` as cuphase defines them (Rust leaves the sign of a zero result open).
fn zero_aware<T: Copy + PartialEq + Default>(
    x: T,
    y: T,
    negative: fn(T) -> bool,
    pick: fn(T, T) -> T,
    min: bool,
) -> T {
    if x == T::default() && y == T::default() {
        if negative(x) == min {
            x
        } else {
            y
        }
    } else {
        pick(x, y)
    }
}

macro_rules! float_table {
    ($kernel:ident, $case:ident, $t:ident, [$($edge:expr),* $(,)?]) => {
        /// The correctly rounded float operators and methods on a pair of inputs per thread.
        #[kernel]
        pub fn $kernel(out: &mut [$t], xs: &[$t], ys: &[$t]) {
            let i = global_idx().x;
            if i < xs.len() as u32 {
                let x = xs[i];
                let y = ys[i];
                let o = i * 16;
                out[o] = x + y;
                out[o + 1] = x - y;
                out[o + 2] = x * y;
                out[o + 3] = x / y;
                out[o + 4] = x % y;
                out[o + 5] = x.min(y);
                out[o + 6] = x.max(y);
                out[o + 7] = x.mul_add(y, x);
                out[o + 8] = x.sqrt();
                out[o + 9] = x.floor();
                out[o + 10] = x.ceil();
                out[o + 11] = x.round();
                out[o + 12] = x.trunc();
                out[o + 13] = (-x).abs();
                out[o + 14] = x.recip();
                out[o + 15] = ((x < y) as u32 + (x == y) as u32 * 2 + (x >= y) as u32 * 4) as $t;
            }
        }

        /// The case: all pairs of the edge values, expected from the host's arithmetic.
        pub fn $case() -> Case {
            fn pairs() -> (Vec<$t>, Vec<$t>) {
                all_pairs(&[$($edge),*])
            }
            Case {
                name: stringify!($kernel),
                run: |dev| {
                    let (xs, ys) = pairs();
                    let n = xs.len();
                    let mut out = dev.zeros::<$t>(n * OPS)?;
                    let (xs, ys) = (dev.upload(&xs)?, dev.upload(&ys)?);
                    $kernel.launch(dev, Launch::cover(n, 64), &mut out, &xs, &ys)?;
                    Ok(out.to_vec()?.iter().map(|v| canonical(u64::from(v.to_bits()), v.is_nan())).collect())
                },
                expected: || {
                    let (xs, ys) = pairs();
                    let mut v = Vec::new();
                    for (x, y) in xs.iter().zip(&ys) {
                        let (x, y) = (*x, *y);
                        let r: [$t; OPS] = [
                            x + y,
                            x - y,
                            x * y,
                            x / y,
                            x % y,
                            zero_aware(x, y, $t::is_sign_negative, $t::min, true),
                            zero_aware(x, y, $t::is_sign_negative, $t::max, false),
                            x.mul_add(y, x),
                            x.sqrt(),
                            x.floor(),
                            x.ceil(),
                            x.round(),
                            x.trunc(),
                            (-x).abs(),
                            1.0 / x,
                            ((x < y) as u32 + (x == y) as u32 * 2 + (x >= y) as u32 * 4) as $t,
                        ];
                        v.extend(r.iter().map(|r| canonical(u64::from(r.to_bits()), r.is_nan())));
                    }
                    v
                },
            }
        }
    };
}

float_table!(
    f32_table,
    f32_case,
    f32,
    [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.5,
        3.7,
        1e30,
        -1e-30,
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-40,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN
    ]
);
float_table!(
    f64_table,
    f64_case,
    f64,
    [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -2.5,
        3.7,
        1e300,
        -1e-300,
        f64::MAX,
        f64::MIN_POSITIVE,
        1e-310,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN
    ]
);

/// The integer tables as cases.
pub fn cases() -> Vec<Case> {
    vec![
        i8_case(),
        u8_case(),
        i16_case(),
        u16_case(),
        i32_case(),
        u32_case(),
        i64_case(),
        u64_case(),
        f32_case(),
        f64_case(),
    ]
}

/// The tables' names and CUDA C, for the NVRTC tier.
pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (i8_table.name(), i8_table.cuda_source()),
        (u8_table.name(), u8_table.cuda_source()),
        (i16_table.name(), i16_table.cuda_source()),
        (u16_table.name(), u16_table.cuda_source()),
        (i32_table.name(), i32_table.cuda_source()),
        (u32_table.name(), u32_table.cuda_source()),
        (i64_table.name(), i64_table.cuda_source()),
        (u64_table.name(), u64_table.cuda_source()),
        (f32_table.name(), f32_table.cuda_source()),
        (f64_table.name(), f64_table.cuda_source()),
    ]
}
