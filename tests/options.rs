//! `Option<T>` of scalars in kernels (issue 12 §5) and the methods it makes usable:
//! `checked_*` and `overflowing_*` of every integer type over all pairs of edge values,
//! compared with rustc's results on the host, and the `Option` language (`Some`/`None`,
//! `if let`, `let .. else`, `match` with guards, `map`, `filter`, `and_then`, `or`,
//! `or_else`, `unwrap_or*`, `is_some_and`, `is_none_or`, reassignment in a loop). The cases
//! join `cases::all()`, so the GPU is compared with the simulator bit for bit.

use crate::cases::Case;
use crate::edges::all_pairs;
use cuphase::prelude::*;

/// Results per pair of inputs.
const CHECKED_OPS: usize = 40;

macro_rules! checked_table {
    ($kernel:ident, $case:ident, $t:ident) => {
        /// The `checked_*`, `overflowing_*` and wrapping methods of one integer type on a pair
        /// of inputs per thread: each `checked_*` as its flag and its value (or 0).
        #[kernel]
        pub fn $kernel(out: &mut [$t], xs: &[$t], ys: &[$t]) {
            let i = global_idx().x as usize;
            if i < xs.len() {
                let (x, y) = (xs[i], ys[i]);
                let o = i * 40;
                let s = y as u32;
                let p = s % 70;
                let add = x.checked_add(y);
                out[o] = add.is_some() as $t;
                out[o + 1] = add.unwrap_or(0);
                let sub = x.checked_sub(y);
                out[o + 2] = sub.is_some() as $t;
                out[o + 3] = sub.unwrap_or_default();
                let mul = x.checked_mul(y);
                out[o + 4] = mul.is_none() as $t;
                out[o + 5] = mul.unwrap_or(1);
                let div = x.checked_div(y);
                out[o + 6] = div.is_some() as $t;
                out[o + 7] = div.unwrap_or(0);
                let rem = x.checked_rem(y);
                out[o + 8] = rem.is_some() as $t;
                out[o + 9] = rem.unwrap_or(0);
                let de = x.checked_div_euclid(y);
                out[o + 10] = de.is_some() as $t;
                out[o + 11] = de.unwrap_or(0);
                let re = x.checked_rem_euclid(y);
                out[o + 12] = re.is_some() as $t;
                out[o + 13] = re.unwrap_or(0);
                let neg = x.checked_neg();
                out[o + 14] = neg.is_some() as $t;
                out[o + 15] = neg.unwrap_or(0);
                let pow = x.checked_pow(p);
                out[o + 16] = pow.is_some() as $t;
                out[o + 17] = pow.unwrap_or(0);
                let shl = x.checked_shl(s);
                out[o + 18] = shl.is_some() as $t;
                out[o + 19] = shl.unwrap_or(0);
                let shr = x.checked_shr(s);
                out[o + 20] = shr.is_some() as $t;
                out[o + 21] = shr.unwrap_or(0);
                let l2 = x.checked_ilog2();
                out[o + 22] = l2.is_some() as $t;
                out[o + 23] = l2.unwrap_or(99) as $t;
                let l10 = x.checked_ilog10();
                out[o + 24] = l10.is_some() as $t;
                out[o + 25] = l10.unwrap_or(99) as $t;
                let (v, f) = x.overflowing_add(y);
                out[o + 26] = v;
                out[o + 27] = f as $t;
                let (v, f) = x.overflowing_sub(y);
                out[o + 28] = v;
                out[o + 29] = f as $t;
                out[o + 30] = x.overflowing_mul(y).0;
                out[o + 31] = x.overflowing_mul(y).1 as $t;
                let (v, f) = x.overflowing_pow(p);
                out[o + 32] = v;
                out[o + 33] = f as $t;
                let (v, f) = x.overflowing_shl(s);
                out[o + 34] = v;
                out[o + 35] = f as $t;
                out[o + 36] = x.wrapping_neg();
                out[o + 37] = x.wrapping_shr(s);
                out[o + 38] = x.wrapping_pow(p);
                out[o + 39] = x.overflowing_neg().0 ^ (x.overflowing_shr(s).1 as $t);
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
                    10,
                    $t::MAX,
                    $t::MAX - 1,
                    $t::MIN,
                    $t::MIN + 1,
                    !(0 as $t),
                    $t::MAX / 3,
                    (1 as $t) << ($t::BITS - 2),
                    $t::BITS as $t,
                ];
                all_pairs(&edges)
            }
            Case {
                name: stringify!($kernel),
                run: |dev| {
                    let (xs, ys) = pairs();
                    let n = xs.len();
                    let mut out = dev.zeros::<$t>(n * CHECKED_OPS)?;
                    let (xs, ys) = (dev.upload(&xs)?, dev.upload(&ys)?);
                    $kernel.launch(dev, Launch::cover(n, 64), &mut out, &xs, &ys)?;
                    Ok(out.to_vec()?.iter().map(|v| *v as u64).collect())
                },
                expected: || {
                    let (xs, ys) = pairs();
                    let mut v = Vec::new();
                    for (x, y) in xs.iter().zip(&ys) {
                        let (x, y) = (*x, *y);
                        let s = y as u32;
                        let p = s % 70;
                        let pair = |o: Option<$t>, d: $t| [o.is_some() as $t, o.unwrap_or(d)];
                        let mut r: Vec<$t> = Vec::new();
                        r.extend(pair(x.checked_add(y), 0));
                        r.extend(pair(x.checked_sub(y), 0));
                        let m = x.checked_mul(y);
                        r.extend([m.is_none() as $t, m.unwrap_or(1)]);
                        r.extend(pair(x.checked_div(y), 0));
                        r.extend(pair(x.checked_rem(y), 0));
                        r.extend(pair(x.checked_div_euclid(y), 0));
                        r.extend(pair(x.checked_rem_euclid(y), 0));
                        r.extend(pair(x.checked_neg(), 0));
                        r.extend(pair(x.checked_pow(p), 0));
                        r.extend(pair(x.checked_shl(s), 0));
                        r.extend(pair(x.checked_shr(s), 0));
                        let l2 = x.checked_ilog2();
                        r.extend([l2.is_some() as $t, l2.unwrap_or(99) as $t]);
                        let l10 = x.checked_ilog10();
                        r.extend([l10.is_some() as $t, l10.unwrap_or(99) as $t]);
                        let (a, f) = x.overflowing_add(y);
                        r.extend([a, f as $t]);
                        let (a, f) = x.overflowing_sub(y);
                        r.extend([a, f as $t]);
                        let (a, f) = x.overflowing_mul(y);
                        r.extend([a, f as $t]);
                        let (a, f) = x.overflowing_pow(p);
                        r.extend([a, f as $t]);
                        let (a, f) = x.overflowing_shl(s);
                        r.extend([a, f as $t]);
                        r.push(x.wrapping_neg());
                        r.push(x.wrapping_shr(s));
                        r.push(x.wrapping_pow(p));
                        r.push(x.overflowing_neg().0 ^ (x.overflowing_shr(s).1 as $t));
                        assert_eq!(r.len(), CHECKED_OPS);
                        v.extend(r.iter().map(|r| *r as u64));
                    }
                    v
                },
            }
        }
    };
}

checked_table!(i8_checked, i8_checked_case, i8);
checked_table!(u8_checked, u8_checked_case, u8);
checked_table!(i16_checked, i16_checked_case, i16);
checked_table!(u16_checked, u16_checked_case, u16);
checked_table!(i32_checked, i32_checked_case, i32);
checked_table!(u32_checked, u32_checked_case, u32);
checked_table!(i64_checked, i64_checked_case, i64);
checked_table!(u64_checked, u64_checked_case, u64);

/// The signed-only and unsigned-only `checked_*` methods.
#[kernel]
pub fn checked_signs(out: &mut [i64], xs: &[i32], us: &[u16]) {
    let i = global_idx().x as usize;
    if i < xs.len() {
        let (x, u) = (xs[i], us[i]);
        out[4 * i] = x.checked_abs().map_or(-1, |a| a as i64);
        out[4 * i + 1] = x.checked_isqrt().map(|r| r as i64 * 10).unwrap_or(-2);
        out[4 * i + 2] = x.wrapping_abs() as i64;
        out[4 * i + 3] = match u.checked_next_power_of_two() {
            Some(p) => p as i64,
            None => -3,
        };
    }
}

fn sign_inputs() -> (Vec<i32>, Vec<u16>) {
    let xs = vec![
        0,
        1,
        -1,
        17,
        -17,
        i32::MAX,
        i32::MIN,
        i32::MIN + 1,
        1 << 30,
        -(1 << 30),
    ];
    let us = vec![0, 1, 2, 3, 1000, u16::MAX, 32768, 32769, 16385, 7];
    (xs, us)
}

/// The `Option` language on one input per thread: the value `v` is looked for in `keys`,
/// and what is found (or not) goes through the `Option` methods and patterns.
#[kernel]
pub fn option_flow(out: &mut [i32], keys: &[i32], queries: &[i32], scale: &[f32]) {
    let i = global_idx().x as usize;
    if i < queries.len() {
        let q = queries[i];
        // The example.
        let t = q;
        let v = if t > 3 { Some(t) } else { None };
        let mut r = 0;
        if let Some(x) = v {
            r += x;
        }
        // A search: the first key above `q`, kept in a mutable option.
        let mut found: Option<usize> = None;
        for j in 0..keys.len() {
            if found.is_none() && keys[j] > q {
                found = Some(j);
            }
        }
        let at = match found {
            Some(j) if j < 2 => 100 + j as i32,
            Some(j) => j as i32,
            None => -1,
        };
        // Methods that make options, and those that read them.
        let doubled = v.map(|x| x * 2).filter(|x| *x < 40);
        let chained = found.and_then(|j| keys[j].checked_mul(q));
        let either = doubled.or(chained).or_else(|| Some(-7));
        let big = chained.is_some_and(|c| c > 50);
        let small = doubled.is_none_or(|d| d < 10);
        let lazy = chained.unwrap_or_else(|| q - 1);
        // A float option, and `let .. else`.
        let f: Option<f32> = if scale[i] > 0.0 {
            Some(scale[i].sqrt())
        } else {
            None
        };
        let g = f.map_or(-1.0, |s| s * 2.0);
        let Some(e) = either else {
            return;
        };
        out[8 * i] = r;
        out[8 * i + 1] = at;
        out[8 * i + 2] = e;
        out[8 * i + 3] = big as i32 + 2 * small as i32;
        out[8 * i + 4] = lazy;
        out[8 * i + 5] = (g * 8.0) as i32;
        out[8 * i + 6] = f.unwrap_or_default().to_bits() as i32;
        out[8 * i + 7] = match v.map(|x| x % 4) {
            Some(0) => 10,
            Some(1 | 2) => 20,
            Some(_) => 30,
            None => 40,
        };
    }
}

fn flow_inputs() -> (Vec<i32>, Vec<i32>, Vec<f32>) {
    let keys = vec![3, 9, 12, 40, 1000, i32::MAX];
    let queries = vec![
        -5,
        0,
        3,
        4,
        5,
        8,
        9,
        11,
        13,
        17,
        39,
        999,
        1000,
        2_000_000,
        i32::MAX,
    ];
    let scale = (0..queries.len()).map(|k| (k as f32 - 4.0) * 1.5).collect();
    (keys, queries, scale)
}

/// The host's own result of `option_flow` for query `k`.
fn flow_host(keys: &[i32], q: i32, s: f32) -> [i32; 8] {
    let v = if q > 3 { Some(q) } else { None };
    let r = v.unwrap_or(0);
    let found = keys.iter().position(|k| *k > q);
    let at = match found {
        Some(j) if j < 2 => 100 + j as i32,
        Some(j) => j as i32,
        None => -1,
    };
    let doubled = v.map(|x| x.wrapping_mul(2)).filter(|x| *x < 40);
    let chained = found.and_then(|j| keys[j].checked_mul(q));
    let either = doubled.or(chained).or(Some(-7));
    let big = chained.is_some_and(|c| c > 50);
    let small = doubled.is_none_or(|d| d < 10);
    let lazy = chained.unwrap_or(q.wrapping_sub(1));
    let f = if s > 0.0 { Some(s.sqrt()) } else { None };
    let g = f.map_or(-1.0, |s| s * 2.0);
    [
        r,
        at,
        either.unwrap_or(0),
        i32::from(big) + 2 * i32::from(small),
        lazy,
        (g * 8.0) as i32,
        f.unwrap_or_default().to_bits() as i32,
        match v.map(|x| x % 4) {
            Some(0) => 10,
            Some(1 | 2) => 20,
            Some(_) => 30,
            None => 40,
        },
    ]
}

/// `unwrap` or `expect` of thread 0's option, picked by `which`.
#[kernel]
pub fn option_panics(out: &mut [u32], which: u32, x: u32, y: u32) {
    if global_idx().x == 0 {
        let o = x.checked_sub(y);
        out[0] = if which == 0 {
            o.unwrap()
        } else {
            o.expect("y is at most x")
        };
    }
}

/// `unwrap` of `None` panics with Rust's message, `expect` with its own, on the simulator and
/// (where there is one) on the GPU; of `Some`, both give the value.
#[test]
fn unwrap_of_none_is_a_kernel_panic() {
    let mut devices = vec![Device::cpu().unwrap()];
    match Device::cuda(0) {
        Ok(d) => devices.push(d),
        Err(e) => skip!("unwrap_of_none_is_a_kernel_panic: GPU part skipped: no GPU ({e})"),
    }
    let rows: [(u32, u32, u32, Result<u32, &str>); 4] = [
        (0, 5, 7, Err("called `Option::unwrap()` on a `None` value")),
        (1, 5, 7, Err("y is at most x")),
        (0, 7, 5, Ok(2)),
        (1, 7, 7, Ok(0)),
    ];
    for dev in &devices {
        for (which, x, y, want) in rows {
            let mut out = dev.zeros::<u32>(1).unwrap();
            let got = option_panics
                .launch(dev, Launch::new(1, 1), &mut out, which, x, y)
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

pub fn cases() -> Vec<Case> {
    vec![
        i8_checked_case(),
        u8_checked_case(),
        i16_checked_case(),
        u16_checked_case(),
        i32_checked_case(),
        u32_checked_case(),
        i64_checked_case(),
        u64_checked_case(),
        Case {
            name: "checked_signs",
            run: |dev| {
                let (xs, us) = sign_inputs();
                let mut out = dev.zeros::<i64>(4 * xs.len())?;
                let (xs, us) = (dev.upload(&xs)?, dev.upload(&us)?);
                checked_signs.launch(dev, Launch::new(1, 32), &mut out, &xs, &us)?;
                Ok(out.to_vec()?.iter().map(|v| *v as u64).collect())
            },
            expected: || {
                let (xs, us) = sign_inputs();
                xs.iter()
                    .zip(&us)
                    .flat_map(|(x, u)| {
                        [
                            x.checked_abs().map_or(-1, i64::from),
                            x.checked_isqrt().map(|r| i64::from(r) * 10).unwrap_or(-2),
                            i64::from(x.wrapping_abs()),
                            u.checked_next_power_of_two().map_or(-3, i64::from),
                        ]
                    })
                    .map(|v| v as u64)
                    .collect()
            },
        },
        Case {
            name: "option_flow",
            run: |dev| {
                let (keys, queries, scale) = flow_inputs();
                let mut out = dev.zeros::<i32>(8 * queries.len())?;
                let (k, q, s) = (
                    dev.upload(&keys)?,
                    dev.upload(&queries)?,
                    dev.upload(&scale)?,
                );
                option_flow.launch(dev, Launch::cover(queries.len(), 32), &mut out, &k, &q, &s)?;
                Ok(out.to_vec()?.iter().map(|v| *v as u32 as u64).collect())
            },
            expected: || {
                let (keys, queries, scale) = flow_inputs();
                queries
                    .iter()
                    .zip(&scale)
                    .flat_map(|(q, s)| flow_host(&keys, *q, *s))
                    .map(|v| v as u32 as u64)
                    .collect()
            },
        },
    ]
}

pub fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        (i8_checked.name(), i8_checked.cuda_source()),
        (u8_checked.name(), u8_checked.cuda_source()),
        (i16_checked.name(), i16_checked.cuda_source()),
        (u16_checked.name(), u16_checked.cuda_source()),
        (i32_checked.name(), i32_checked.cuda_source()),
        (u32_checked.name(), u32_checked.cuda_source()),
        (i64_checked.name(), i64_checked.cuda_source()),
        (u64_checked.name(), u64_checked.cuda_source()),
        (checked_signs.name(), checked_signs.cuda_source()),
        (option_flow.name(), option_flow.cuda_source()),
        (option_panics.name(), option_panics.cuda_source()),
    ]
}
