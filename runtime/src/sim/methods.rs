//! The scalar methods whose Rust versions panic, with the panics as faults: integer logarithms
//! and square roots, `div_ceil`, `div_euclid`/`rem_euclid`; and `next_power_of_two` with the
//! wrapping a release build has (a debug build's panic would differ by build profile).
//!
//! Takes the operands and the Rust location of the call. Gives one function per method, generic
//! over [`SimIntMethods`] (and [`SimEuclid`] for the floats' Euclidean division). Guarantees:
//! where Rust panics the result is a [`Fault::Panic`] with Rust's message, otherwise Rust's value.

use super::{Fault, Loc};

const LOG: &str = "argument of integer logarithm must be positive";
const SQRT: &str = "argument of integer square root cannot be negative";
const DIV_ZERO: &str = "attempt to divide by zero";
const DIV_OVERFLOW: &str = "attempt to divide with overflow";
const REM_ZERO: &str = "attempt to calculate the remainder with a divisor of zero";
const REM_OVERFLOW: &str = "attempt to calculate the remainder with overflow";

/// The integer methods that can panic.
pub trait SimIntMethods: Sized + Copy {
    /// `self.ilog2()`.
    fn sim_ilog2(self, loc: &'static Loc) -> Result<u32, Fault>;
    /// `self.ilog10()`.
    fn sim_ilog10(self, loc: &'static Loc) -> Result<u32, Fault>;
    /// `self.isqrt()`.
    fn sim_isqrt(self, loc: &'static Loc) -> Result<Self, Fault>;
}

macro_rules! int_methods {
    ($($t:ty: $isqrt:ident),*) => {$(
        impl SimIntMethods for $t {
            #[inline(always)]
            fn sim_ilog2(self, loc: &'static Loc) -> Result<u32, Fault> {
                self.checked_ilog2().ok_or(Fault::Panic { message: LOG, loc })
            }
            #[inline(always)]
            fn sim_ilog10(self, loc: &'static Loc) -> Result<u32, Fault> {
                self.checked_ilog10().ok_or(Fault::Panic { message: LOG, loc })
            }
            #[inline(always)]
            fn sim_isqrt(self, loc: &'static Loc) -> Result<Self, Fault> {
                $isqrt(self).ok_or(Fault::Panic { message: SQRT, loc })
            }
        }
    )*};
}

#[inline(always)]
fn signed_isqrt<T: SignedIsqrt>(x: T) -> Option<T> {
    x.checked()
}
#[inline(always)]
fn unsigned_isqrt<T: UnsignedIsqrt>(x: T) -> Option<T> {
    Some(x.root())
}
trait SignedIsqrt: Sized {
    fn checked(self) -> Option<Self>;
}
trait UnsignedIsqrt {
    fn root(self) -> Self;
}
macro_rules! isqrt_kinds {
    (signed: $($s:ty),*; unsigned: $($u:ty),*) => {
        $(impl SignedIsqrt for $s { fn checked(self) -> Option<Self> { self.checked_isqrt() } })*
        $(impl UnsignedIsqrt for $u { fn root(self) -> Self { self.isqrt() } })*
    };
}
isqrt_kinds!(signed: i8, i16, i32, i64; unsigned: u8, u16, u32, u64, usize);
int_methods!(
    i8: signed_isqrt, i16: signed_isqrt, i32: signed_isqrt, i64: signed_isqrt,
    u8: unsigned_isqrt, u16: unsigned_isqrt, u32: unsigned_isqrt, u64: unsigned_isqrt,
    usize: unsigned_isqrt
);

/// `x.ilog2()` with its panic as a fault.
#[inline(always)]
pub fn ilog2<T: SimIntMethods>(x: T, loc: &'static Loc) -> Result<u32, Fault> {
    x.sim_ilog2(loc)
}

/// `x.ilog10()` with its panic as a fault.
#[inline(always)]
pub fn ilog10<T: SimIntMethods>(x: T, loc: &'static Loc) -> Result<u32, Fault> {
    x.sim_ilog10(loc)
}

/// `x.isqrt()` with its panic as a fault.
#[inline(always)]
pub fn isqrt<T: SimIntMethods>(x: T, loc: &'static Loc) -> Result<T, Fault> {
    x.sim_isqrt(loc)
}

/// Euclidean division and remainder, with the integers' panics as faults.
pub trait SimEuclid: Sized + Copy {
    /// `self.div_euclid(rhs)`.
    fn sim_div_euclid(self, rhs: Self, loc: &'static Loc) -> Result<Self, Fault>;
    /// `self.rem_euclid(rhs)`.
    fn sim_rem_euclid(self, rhs: Self, loc: &'static Loc) -> Result<Self, Fault>;
}

macro_rules! int_euclid {
    ($($t:ty),*) => {$(
        impl SimEuclid for $t {
            #[inline(always)]
            fn sim_div_euclid(self, rhs: Self, loc: &'static Loc) -> Result<Self, Fault> {
                match self.checked_div_euclid(rhs) {
                    Some(v) => Ok(v),
                    None if rhs == 0 => Err(Fault::Panic { message: DIV_ZERO, loc }),
                    None => Err(Fault::Panic { message: DIV_OVERFLOW, loc }),
                }
            }
            #[inline(always)]
            fn sim_rem_euclid(self, rhs: Self, loc: &'static Loc) -> Result<Self, Fault> {
                match self.checked_rem_euclid(rhs) {
                    Some(v) => Ok(v),
                    None if rhs == 0 => Err(Fault::Panic { message: REM_ZERO, loc }),
                    None => Err(Fault::Panic { message: REM_OVERFLOW, loc }),
                }
            }
        }
    )*};
}
int_euclid!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

macro_rules! float_euclid {
    ($($t:ty),*) => {$(
        impl SimEuclid for $t {
            #[inline(always)]
            fn sim_div_euclid(self, rhs: Self, _: &'static Loc) -> Result<Self, Fault> {
                Ok(self.div_euclid(rhs))
            }
            #[inline(always)]
            fn sim_rem_euclid(self, rhs: Self, _: &'static Loc) -> Result<Self, Fault> {
                Ok(self.rem_euclid(rhs))
            }
        }
    )*};
}
float_euclid!(f32, f64);

/// `a.div_euclid(b)` with Rust's panics as faults.
#[inline(always)]
pub fn div_euclid<T: SimEuclid>(a: T, b: T, loc: &'static Loc) -> Result<T, Fault> {
    a.sim_div_euclid(b, loc)
}

/// `a.rem_euclid(b)` with Rust's panics as faults.
#[inline(always)]
pub fn rem_euclid<T: SimEuclid>(a: T, b: T, loc: &'static Loc) -> Result<T, Fault> {
    a.sim_rem_euclid(b, loc)
}

/// The unsigned methods that can panic or, in a debug build, overflow.
pub trait SimUnsigned: Sized + Copy {
    /// `self.div_ceil(rhs)`.
    fn sim_div_ceil(self, rhs: Self, loc: &'static Loc) -> Result<Self, Fault>;
    /// `self.next_power_of_two()`, 0 where it overflows (as in a release build).
    fn sim_next_power_of_two(self) -> Self;
}

macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl SimUnsigned for $t {
            #[inline(always)]
            fn sim_div_ceil(self, rhs: Self, loc: &'static Loc) -> Result<Self, Fault> {
                if rhs == 0 {
                    return Err(Fault::Panic { message: DIV_ZERO, loc });
                }
                Ok(self.div_ceil(rhs))
            }
            #[inline(always)]
            fn sim_next_power_of_two(self) -> Self {
                self.checked_next_power_of_two().unwrap_or(0)
            }
        }
    )*};
}
unsigned!(u8, u16, u32, u64, usize);

/// `a.div_ceil(b)` with Rust's panic as a fault.
#[inline(always)]
pub fn div_ceil<T: SimUnsigned>(a: T, b: T, loc: &'static Loc) -> Result<T, Fault> {
    a.sim_div_ceil(b, loc)
}

/// `x.next_power_of_two()`, wrapping to 0 as a release build does.
#[inline(always)]
pub fn next_power_of_two<T: SimUnsigned>(x: T) -> T {
    x.sim_next_power_of_two()
}
