//! Arithmetic and loops with Rust's meaning and no panics.
//!
//! Takes scalar operands and the Rust location of the expression. Gives checked division and
//! remainder ([`div`], [`rem`]), `min`/`max`/`clamp` as the GPU computes them, the value bits
//! of [`ToBits`], and the per-thread iterations of a kernel `for` loop ([`step_of`],
//! [`range`]). Guarantees: where Rust panics (division by zero or with overflow, a zero step,
//! `clamp` with `min > max`) the result is a [`Fault::Panic`] with Rust's message; float
//! `min`/`max` agree bit for bit with the CUDA back end; a loop range never overflows.

use super::{Fault, Loc};

/// Division and remainder that report Rust's panics as faults.
pub trait SimDiv: Sized {
    /// `self / rhs`.
    fn sim_div(self, rhs: Self, loc: &'static Loc) -> Result<Self, Fault>;
    /// `self % rhs`.
    fn sim_rem(self, rhs: Self, loc: &'static Loc) -> Result<Self, Fault>;
}

macro_rules! int_div {
    ($($t:ty),*) => {$(
        impl SimDiv for $t {
            #[inline(always)]
            fn sim_div(self, rhs: Self, loc: &'static Loc) -> Result<Self, Fault> {
                match self.checked_div(rhs) {
                    Some(v) => Ok(v),
                    None if rhs == 0 => Err(Fault::Panic { message: "attempt to divide by zero", loc }),
                    None => Err(Fault::Panic { message: "attempt to divide with overflow", loc }),
                }
            }
            #[inline(always)]
            fn sim_rem(self, rhs: Self, loc: &'static Loc) -> Result<Self, Fault> {
                match self.checked_rem(rhs) {
                    Some(v) => Ok(v),
                    None if rhs == 0 => Err(Fault::Panic {
                        message: "attempt to calculate the remainder with a divisor of zero",
                        loc,
                    }),
                    None => Err(Fault::Panic { message: "attempt to calculate the remainder with overflow", loc }),
                }
            }
        }
    )*};
}
int_div!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

macro_rules! float_div {
    ($($t:ty),*) => {$(
        impl SimDiv for $t {
            #[inline(always)]
            fn sim_div(self, rhs: Self, _: &'static Loc) -> Result<Self, Fault> { Ok(self / rhs) }
            #[inline(always)]
            fn sim_rem(self, rhs: Self, _: &'static Loc) -> Result<Self, Fault> { Ok(self % rhs) }
        }
    )*};
}
float_div!(f32, f64);

/// `a / b` with Rust's panics as faults.
#[inline(always)]
pub fn div<T: SimDiv>(a: T, b: T, loc: &'static Loc) -> Result<T, Fault> {
    a.sim_div(b, loc)
}

/// `a % b` with Rust's panics as faults.
#[inline(always)]
pub fn rem<T: SimDiv>(a: T, b: T, loc: &'static Loc) -> Result<T, Fault> {
    a.sim_rem(b, loc)
}

/// `f32`/`f64` `min` and `max` as the GPU computes them.
///
/// Rust leaves the sign of `0.0.min(-0.0)` unspecified, and so does CUDA (the instruction and
/// NVVM's constant folding disagree). cuphase defines it: `-0.0` is below `+0.0`, as in
/// IEEE 754-2019 `minimumNumber`, and both back ends implement that, so they agree bit for bit.
/// A NaN operand yields the other operand on both.
pub trait SimMinMax: Copy {
    /// `self.min(other)`, `-0.0` below `+0.0`.
    fn sim_min(self, other: Self) -> Self;
    /// `self.max(other)`, `+0.0` above `-0.0`.
    fn sim_max(self, other: Self) -> Self;
}

macro_rules! float_min_max {
    ($($t:ty),*) => {$(
        impl SimMinMax for $t {
            #[inline(always)]
            fn sim_min(self, other: Self) -> Self {
                if self == 0.0 && other == 0.0 {
                    if self.is_sign_negative() { self } else { other }
                } else {
                    self.min(other)
                }
            }
            #[inline(always)]
            fn sim_max(self, other: Self) -> Self {
                if self == 0.0 && other == 0.0 {
                    if self.is_sign_positive() { self } else { other }
                } else {
                    self.max(other)
                }
            }
        }
    )*};
}
float_min_max!(f32, f64);

/// Float `a.min(b)` with the GPU's ordering of signed zeros (see [`SimMinMax`]).
#[inline(always)]
pub fn fmin<T: SimMinMax>(a: T, b: T) -> T {
    a.sim_min(b)
}

/// Float `a.max(b)` with the GPU's ordering of signed zeros (see [`SimMinMax`]).
#[inline(always)]
pub fn fmax<T: SimMinMax>(a: T, b: T) -> T {
    a.sim_max(b)
}

/// `x.clamp(lo, hi)` with Rust's panic (as a fault) when `lo > hi` or a bound is NaN.
#[inline]
pub fn clamp<T: PartialOrd + Copy + ClampMessage>(
    x: T,
    lo: T,
    hi: T,
    loc: &'static Loc,
) -> Result<T, Fault> {
    // False for NaN bounds too, which Rust also rejects.
    if lo
        .partial_cmp(&hi)
        .is_none_or(|o| o == std::cmp::Ordering::Greater)
    {
        return Err(Fault::Panic {
            message: T::MESSAGE,
            loc,
        });
    }
    Ok(if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    })
}

/// Rust's panic message of `clamp` for a type.
pub trait ClampMessage {
    /// The message.
    const MESSAGE: &'static str;
}
macro_rules! clamp_message {
    ($msg:expr; $($t:ty),*) => {$(impl ClampMessage for $t { const MESSAGE: &'static str = $msg; })*};
}
clamp_message!("assertion failed: min <= max"; i8, i16, i32, i64, u8, u16, u32, u64, usize);
clamp_message!("min > max, or either was NaN"; f32, f64);

/// The bits of a scalar, to compare values across threads.
pub trait ToBits {
    /// The value's bits, zero-extended.
    fn to_bits_u64(self) -> u64;
}

macro_rules! to_bits_u64_int {
    ($($t:ty),*) => {$(
        impl ToBits for $t {
            #[inline(always)]
            fn to_bits_u64(self) -> u64 { self as u64 }
        }
    )*};
}
to_bits_u64_int!(i8, i16, i32, i64, u8, u16, u32, u64, usize);
impl ToBits for bool {
    fn to_bits_u64(self) -> u64 {
        u64::from(self)
    }
}
impl ToBits for f32 {
    fn to_bits_u64(self) -> u64 {
        u64::from(self.to_bits())
    }
}
impl ToBits for f64 {
    fn to_bits_u64(self) -> u64 {
        self.to_bits()
    }
}

/// Integer types a kernel loop can count with.
pub trait SimInt: Copy {
    /// The value, widened.
    fn to_i128(self) -> i128;
    /// A value known to be in range.
    fn from_i128(v: i128) -> Self;
}

macro_rules! sim_int {
    ($($t:ty),*) => {$(
        impl SimInt for $t {
            #[inline(always)]
            fn to_i128(self) -> i128 { self as i128 }
            #[inline(always)]
            fn from_i128(v: i128) -> Self { v as $t }
        }
    )*};
}
sim_int!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

/// The step of `(a..b).step_by(s)`: Rust panics on a zero step; kernels also reject a negative
/// one, which `usize` could not express.
#[inline]
pub fn step_of<S: SimInt>(s: S, loc: &'static Loc) -> Result<u64, Fault> {
    let v = s.to_i128();
    if v == 0 {
        return Err(Fault::Panic {
            message: "assertion failed: step != 0",
            loc,
        });
    }
    u64::try_from(v).map_err(|_| Fault::Panic {
        message: "a loop step must not be negative",
        loc,
    })
}

/// The iterations of one thread: `start + offset*step`, then every `stride*step`, below `end`.
/// Never overflows: it stops where Rust's range would.
pub struct StepRange<T> {
    next: i128,
    end: i128,
    stride: i128,
    marker: std::marker::PhantomData<T>,
}

/// The range a thread runs for `for i in start..end` with an optional `step_by` and the
/// thread's `(offset, stride)` from its [`Distribution`](cuphase_contract::Distribution).
#[inline]
pub fn range<T: SimInt>(
    start: T,
    end: T,
    step: Option<u64>,
    (offset, stride): (u64, u64),
) -> StepRange<T> {
    let step = i128::from(step.unwrap_or(1));
    let first = start
        .to_i128()
        .saturating_add(i128::from(offset).saturating_mul(step));
    StepRange {
        next: first,
        end: end.to_i128(),
        stride: i128::from(stride).saturating_mul(step).max(1),
        marker: std::marker::PhantomData,
    }
}

/// [`range`] over `start..=end`.
#[inline]
pub fn range_inclusive<T: SimInt>(
    start: T,
    end: T,
    step: Option<u64>,
    dist: (u64, u64),
) -> StepRange<T> {
    let mut r = range(start, end, step, dist);
    r.end = end.to_i128() + 1;
    r
}

/// The values of a reversed range, last first: `(start..end).rev()` (`inclusive`:
/// `start..=end`), with `.step_by(step)` applied after `.rev()`, or (`stepped`) the values of
/// `(start..end).step_by(step)` in reverse. Never overflows.
#[inline]
pub fn range_rev<T: SimInt>(
    start: T,
    end: T,
    step: Option<u64>,
    inclusive: bool,
    stepped: bool,
) -> RevRange<T> {
    let step = i128::from(step.unwrap_or(1)).max(1);
    let (lo, hi) = (start.to_i128(), end.to_i128() - i128::from(!inclusive));
    let first = if stepped && hi >= lo {
        lo + (hi - lo) / step * step
    } else {
        hi
    };
    RevRange {
        next: first,
        low: lo,
        step,
        marker: std::marker::PhantomData,
    }
}

/// The iterations of a reversed range: `next`, then every `step` lower, down to `low`.
pub struct RevRange<T> {
    next: i128,
    low: i128,
    step: i128,
    marker: std::marker::PhantomData<T>,
}

impl<T: SimInt> Iterator for RevRange<T> {
    type Item = T;
    #[inline(always)]
    fn next(&mut self) -> Option<T> {
        if self.next >= self.low {
            let v = self.next;
            self.next -= self.step;
            Some(T::from_i128(v))
        } else {
            None
        }
    }
}

impl<T: SimInt> Iterator for StepRange<T> {
    type Item = T;
    #[inline(always)]
    fn next(&mut self) -> Option<T> {
        if self.next < self.end {
            let v = self.next;
            self.next = self.next.saturating_add(self.stride);
            Some(T::from_i128(v))
        } else {
            None
        }
    }
}

/// `a + b` in exact arithmetic (`None` past `i128`, or when either is), for the range
/// proofs of straight thread loops.
#[inline]
pub fn exact_add(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    a?.checked_add(b?)
}

/// `a - b` in exact arithmetic (see [`exact_add`]).
#[inline]
pub fn exact_sub(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    a?.checked_sub(b?)
}

/// `a * b` in exact arithmetic (see [`exact_add`]).
#[inline]
pub fn exact_mul(a: Option<i128>, b: Option<i128>) -> Option<i128> {
    a?.checked_mul(b?)
}

/// Whether `c0 + sum(c * v)`, for every `v` in `lo..=hi` of each `(c, lo, hi)` of `terms`,
/// lies within `min..=max`: the range proof of an index of a straight thread loop. A term
/// whose range is empty has no values, and neither has the sum (nothing to check); an
/// unknown (overflowed) coefficient, or an overflow here, is no proof.
#[inline]
pub fn affine_within(
    c0: Option<i128>,
    terms: &[(Option<i128>, i128, i128)],
    min: i128,
    max: i128,
) -> bool {
    if terms.iter().any(|&(_, lo, hi)| lo > hi) {
        return true;
    }
    let Some(c0) = c0 else {
        return false;
    };
    let range = terms.iter().try_fold((c0, c0), |(lo, hi), &(c, a, b)| {
        let c = c?;
        let (p, q) = (c.checked_mul(a)?, c.checked_mul(b)?);
        Some((lo.checked_add(p.min(q))?, hi.checked_add(p.max(q))?))
    });
    range.is_some_and(|(lo, hi)| min <= lo && hi <= max)
}

#[cfg(test)]
mod tests {
    use super::*;

    static LOC: Loc = Loc {
        file: "k.rs",
        line: 1,
        col: 1,
    };

    #[test]
    fn ranges_match_rust() {
        let v: Vec<u32> = range(3u32, 20, Some(4), (0, 1)).collect();
        assert_eq!(v, (3u32..20).step_by(4).collect::<Vec<_>>());
        // thread 2 of 8, step 1
        let v: Vec<u32> = range(0u32, 20, None, (2, 8)).collect();
        assert_eq!(v, vec![2, 10, 18]);
        // no overflow near the top of the type
        let v: Vec<u8> = range(250u8, 255, Some(3), (0, 1)).collect();
        assert_eq!(v, vec![250, 253]);
        let v: Vec<i32> = range(-5i32, -1, None, (0, 1)).collect();
        assert_eq!(v, vec![-5, -4, -3, -2]);
    }

    #[test]
    fn inclusive_and_reversed_ranges_match_rust() {
        fn same<T: SimInt + PartialEq + std::fmt::Debug>(
            a: impl Iterator<Item = T>,
            b: impl Iterator<Item = T>,
        ) {
            assert_eq!(a.collect::<Vec<_>>(), b.collect::<Vec<_>>());
        }
        same(range_inclusive(250u8, 255, None, (0, 1)), 250u8..=255);
        same(
            range_inclusive(0u8, 255, Some(5), (0, 1)),
            (0u8..=255).step_by(5),
        );
        same(range_inclusive(3i8, 2, None, (0, 1)), std::iter::empty());
        // thread 1 of 4 in `threads_in_block(0..=9)`
        same(
            range_inclusive(0u32, 9, None, (1, 4)),
            [1u32, 5, 9].into_iter(),
        );
        for (a, b, s) in [
            (0u32, 10u32, 3u64),
            (2, 3, 1),
            (5, 5, 2),
            (0, 9, 9),
            (1, 20, 4),
        ] {
            let su = s as usize;
            same(
                range_rev(a, b, Some(s), false, false),
                (a..b).rev().step_by(su),
            );
            same(
                range_rev(a, b, Some(s), false, true),
                (a..b).step_by(su).rev(),
            );
            same(
                range_rev(a, b, Some(s), true, false),
                (a..=b).rev().step_by(su),
            );
            // Rust reverses a stepped `RangeInclusive<u32>` only through a collection.
            let forward: Vec<u32> = (a..=b).step_by(su).collect();
            same(
                range_rev(a, b, Some(s), true, true),
                forward.into_iter().rev(),
            );
            same(range_rev(a, b, None, false, false), (a..b).rev());
        }
        same(
            range_rev(i8::MIN, i8::MAX, None, true, false),
            (i8::MIN..=i8::MAX).rev(),
        );
        same(
            range_rev(0u64, u64::MAX, Some(u64::MAX / 2), true, true),
            [u64::MAX - 1, u64::MAX / 2, 0].into_iter(),
        );
    }

    #[test]
    fn division_faults_instead_of_panicking() {
        assert!(matches!(
            div(1u32, 0, &LOC),
            Err(Fault::Panic {
                message: "attempt to divide by zero",
                ..
            })
        ));
        assert!(matches!(
            div(i32::MIN, -1, &LOC),
            Err(Fault::Panic {
                message: "attempt to divide with overflow",
                ..
            })
        ));
        assert!(matches!(rem(5i64, 0, &LOC), Err(Fault::Panic { .. })));
        assert_eq!(div(7i32, -2, &LOC).ok(), Some(-3));
        assert_eq!(rem(-7i32, 2, &LOC).ok(), Some(-1));
        assert_eq!(div(1.0f32, 0.0, &LOC).ok(), Some(f32::INFINITY));
        assert!(step_of(0u32, &LOC).is_err());
        assert!(step_of(-1i32, &LOC).is_err());
        assert_eq!(step_of(3usize, &LOC).ok(), Some(3));
    }

    #[test]
    fn affine_ranges_are_exact_and_overflow_is_no_proof() {
        // 5 + 3x - 2y for x in 0..=4, y in 1..=2: from 1 to 15.
        let t = [(Some(3), 0, 4), (Some(-2), 1, 2)];
        assert!(affine_within(Some(5), &t, 1, 15));
        assert!(!affine_within(Some(5), &t, 2, 15));
        assert!(!affine_within(Some(5), &t, 1, 14));
        // An empty range has no values to check.
        assert!(affine_within(Some(5), &[(Some(1), 3, 2)], 0, 0));
        // Unknown coefficients and overflow prove nothing.
        assert!(!affine_within(None, &t, i128::MIN, i128::MAX));
        assert!(!affine_within(
            Some(0),
            &[(None, 0, 1)],
            i128::MIN,
            i128::MAX
        ));
        assert!(!affine_within(
            Some(0),
            &[(Some(i128::MAX), 0, 2)],
            i128::MIN,
            i128::MAX
        ));
        assert_eq!(exact_mul(Some(i128::MAX), Some(2)), None);
        assert_eq!(exact_sub(Some(3), Some(5)), Some(-2));
    }
}
