//! The element and parameter types kernels compute with: [`Element`] (what a buffer holds),
//! [`Scalar`], and the marker traits of
//! the bounds of generic kernels and helpers, [`Num`], [`Int`], [`Float`].
//!
//! Takes the bounds' type lists from `cuphase-contract` (`Bound::admitted`). Gives the sealed
//! [`Scalar`] trait (the simulator's storage and lane bits of each type) for `bool`, the
//! integers, `f32`, `f64`, `half::f16` and `half::bf16`, and the marker traits. Guarantees:
//! each marker trait is implemented for exactly the types its bound admits in the contract (a
//! unit test compares the lists), so a generic kernel's `T` at a launch is always a type the
//! compiler made an instance for; the simulator's cells are atomic, so even a racy kernel is
//! sound Rust.

use std::fmt::Debug;
use std::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicU16, AtomicU32, AtomicU64,
    AtomicU8, AtomicUsize, Ordering,
};

mod sealed {
    pub trait Sealed {}
}

/// A type a [`Buffer`](crate::Buffer) can hold and a kernel's slice parameter can index:
/// every [`Scalar`], and `#[repr(C)]` structs of them marked `#[derive(cuphase::DeviceStruct)]`.
///
/// Implement it with the derive, never by hand: the kernel compiler reads the struct's fields
/// from its source file, and generated code relies on the derive's storage (one cell per
/// scalar field, in declaration order) and the layout checks it emits.
pub trait Element:
    Copy + Send + Sync + 'static + cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits
{
    /// The simulator's storage for one element.
    #[doc(hidden)]
    type Cell: Send + Sync;
    /// The Rust name of the type.
    const NAME: &'static str;
    /// The scalars one element holds (1 for a scalar; a struct's fields, nested ones
    /// flattened): the simulator's race detection tracks each on its own.
    #[doc(hidden)]
    const LEAVES: usize;
    /// The all-zero value.
    #[doc(hidden)]
    fn zero() -> Self;
    #[doc(hidden)]
    fn new_cell(v: Self) -> Self::Cell;
    #[doc(hidden)]
    fn load(c: &Self::Cell) -> Self;
    #[doc(hidden)]
    fn store(c: &Self::Cell, v: Self);
}

/// A scalar type a kernel can take as a parameter or hold in a buffer: `bool`, `i8`..`i64`,
/// `u8`..`u64`, `usize`, `f32`, `f64`, `half::f16`, `half::bf16`.
///
/// The simulator keeps buffer elements in atomic cells (`Cell`), accessed with relaxed
/// ordering, so that blocks can run on several CPU threads without undefined behaviour even
/// when a kernel races; on x86-64 relaxed loads and stores are plain moves.
pub trait Scalar: sealed::Sealed + Element + Debug + Default + PartialEq {
    /// Atomically replaces the element with `f(old)`; returns the old value.
    #[doc(hidden)]
    fn rmw(c: &Self::Cell, f: impl Fn(Self) -> Self) -> Self;
    /// The value's bits, as a warp operation moves them between lanes.
    #[doc(hidden)]
    fn to_lane_bits(self) -> u64;
    /// The value back from [`Scalar::to_lane_bits`].
    #[doc(hidden)]
    fn from_lane_bits(b: u64) -> Self;
    /// Reads the cell with a plain (not atomic) load, which the compiler may vectorise.
    ///
    /// # Safety
    /// No other thread writes the cell while it is read.
    #[doc(hidden)]
    unsafe fn load_plain(c: &Self::Cell) -> Self;
    /// Writes the cell with a plain (not atomic) store.
    ///
    /// # Safety
    /// No other thread reads or writes the cell while it is written.
    #[doc(hidden)]
    unsafe fn store_plain(c: &Self::Cell, v: Self);
}

/// An array field of a `DeviceStruct` (`pos: [f32; 3]`): `N` elements, each its own cells.
/// (A buffer may hold arrays too; kernels take slices of scalars and of structs.)
impl<T: Element, const N: usize> Element for [T; N] {
    type Cell = [T::Cell; N];
    const NAME: &'static str = "array";
    const LEAVES: usize = N * T::LEAVES;
    fn zero() -> Self {
        [T::zero(); N]
    }
    #[inline(always)]
    fn new_cell(v: Self) -> Self::Cell {
        v.map(T::new_cell)
    }
    #[inline(always)]
    fn load(c: &Self::Cell) -> Self {
        std::array::from_fn(|k| T::load(&c[k]))
    }
    #[inline(always)]
    fn store(c: &Self::Cell, v: Self) {
        for (c, v) in c.iter().zip(v) {
            T::store(c, v);
        }
    }
}

/// Integer values from their lane bits (`bool` is not an `as` target).
trait FromLaneBits {
    fn from_bits(b: u64) -> Self;
}
impl FromLaneBits for bool {
    fn from_bits(b: u64) -> Self {
        b != 0
    }
}
macro_rules! from_lane_bits {
    ($($t:ty),*) => {$(
        impl FromLaneBits for $t {
            #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)]
            fn from_bits(b: u64) -> Self { b as $t }
        }
    )*};
}
from_lane_bits!(i8, i16, i32, i64, u8, u16, u32, u64, usize);

macro_rules! int_scalar {
    ($($t:ty => $cell:ty),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            type Cell = $cell;
            const NAME: &'static str = stringify!($t);
            const LEAVES: usize = 1;
            fn zero() -> Self { <$t>::default() }
            #[inline(always)]
            fn new_cell(v: Self) -> Self::Cell { <$cell>::new(v) }
            #[inline(always)]
            fn load(c: &Self::Cell) -> Self { c.load(Ordering::Relaxed) }
            #[inline(always)]
            fn store(c: &Self::Cell, v: Self) { c.store(v, Ordering::Relaxed) }
        }
        impl Scalar for $t {
            #[inline(always)]
            fn rmw(c: &Self::Cell, f: impl Fn(Self) -> Self) -> Self {
                match c.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| Some(f(old))) {
                    Ok(old) | Err(old) => old,
                }
            }
            #[inline(always)]
            #[allow(clippy::cast_sign_loss, clippy::cast_lossless)]
            fn to_lane_bits(self) -> u64 { self as u64 }
            #[inline(always)]
            fn from_lane_bits(b: u64) -> Self { <$t as FromLaneBits>::from_bits(b) }
            #[inline(always)]
            unsafe fn load_plain(c: &Self::Cell) -> Self {
                // SAFETY: the pointer is the cell's, valid and aligned; the caller rules out
                // a concurrent write.
                unsafe { c.as_ptr().read() }
            }
            #[inline(always)]
            unsafe fn store_plain(c: &Self::Cell, v: Self) {
                // SAFETY: as in `load_plain`; the caller rules out any concurrent access.
                unsafe { c.as_ptr().write(v) }
            }
        }
    )*};
}

int_scalar! {
    bool => AtomicBool, i8 => AtomicI8, i16 => AtomicI16, i32 => AtomicI32, i64 => AtomicI64,
    u8 => AtomicU8, u16 => AtomicU16, u32 => AtomicU32, u64 => AtomicU64, usize => AtomicUsize,
}

/// Floats, stored as their bits (`half` types too: they have the same `to_bits`/`from_bits`).
macro_rules! float_scalar {
    ($($t:ty => $cell:ty, $name:literal),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            type Cell = $cell;
            const NAME: &'static str = $name;
            const LEAVES: usize = 1;
            fn zero() -> Self { <$t>::default() }
            #[inline(always)]
            fn new_cell(v: Self) -> Self::Cell { <$cell>::new(v.to_bits()) }
            #[inline(always)]
            fn load(c: &Self::Cell) -> Self { <$t>::from_bits(c.load(Ordering::Relaxed)) }
            #[inline(always)]
            fn store(c: &Self::Cell, v: Self) { c.store(v.to_bits(), Ordering::Relaxed) }
        }
        impl Scalar for $t {
            #[inline(always)]
            fn rmw(c: &Self::Cell, f: impl Fn(Self) -> Self) -> Self {
                let r = c.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
                    Some(f(<$t>::from_bits(old)).to_bits())
                });
                match r {
                    Ok(old) | Err(old) => <$t>::from_bits(old),
                }
            }
            #[inline(always)]
            fn to_lane_bits(self) -> u64 { u64::from(self.to_bits()) }
            #[inline(always)]
            #[allow(clippy::cast_possible_truncation)]
            fn from_lane_bits(b: u64) -> Self { <$t>::from_bits(b as _) }
            #[inline(always)]
            unsafe fn load_plain(c: &Self::Cell) -> Self {
                // SAFETY: the pointer is the cell's, valid and aligned; the caller rules out
                // a concurrent write.
                <$t>::from_bits(unsafe { c.as_ptr().read() })
            }
            #[inline(always)]
            unsafe fn store_plain(c: &Self::Cell, v: Self) {
                // SAFETY: as in `load_plain`; the caller rules out any concurrent access.
                unsafe { c.as_ptr().write(v.to_bits()) }
            }
        }
    )*};
}

float_scalar! {
    f32 => AtomicU32, "f32",
    f64 => AtomicU64, "f64",
    half::f16 => AtomicU16, "f16",
    half::bf16 => AtomicU16, "bf16",
}

/// Scalars with arithmetic: the integer types and `f32`, `f64` (the bound of generic kernels
/// and helpers `T: Num`; `half::f16` and `half::bf16` are not admitted).
pub trait Num: Scalar {}
/// The integer types: `i8`..`i64`, `u8`..`u64`, `usize` (`T: Int`).
pub trait Int: Num {}
/// The float types `f32` and `f64` (`T: Float`; `half::f16` and `half::bf16` are not admitted:
/// a body written for `T: Float` may use float literals, which are not half values in Rust).
pub trait Float: Num {}

/// Implements a marker trait for a list of types, and records the list's Rust names (for the
/// test that compares them with the contract's).
macro_rules! marker {
    ($tr:ident, $names:ident: $($t:ty),*) => {
        $( impl $tr for $t {} )*
        #[cfg(test)]
        const $names: &[&str] = &[$(stringify!($t)),*];
    };
}
marker!(Num, NUM_TYPES: i8, i16, i32, i64, u8, u16, u32, u64, usize, f32, f64);
marker!(Int, INT_TYPES: i8, i16, i32, i64, u8, u16, u32, u64, usize);
marker!(Float, FLOAT_TYPES: f32, f64);

#[cfg(test)]
mod tests {
    use super::*;
    use cuphase_contract::Bound;

    fn sorted(v: &[&'static str]) -> Vec<&'static str> {
        let mut v = v.to_vec();
        v.sort_unstable();
        v
    }

    #[test]
    fn marker_traits_admit_exactly_the_contracts_types() {
        for (bound, names) in [
            (Bound::Num, NUM_TYPES),
            (Bound::Int, INT_TYPES),
            (Bound::Float, FLOAT_TYPES),
        ] {
            assert_eq!(sorted(names), sorted(&bound.admitted()), "{bound:?}");
        }
    }

    #[test]
    fn every_type_the_scalar_bound_admits_is_a_scalar() {
        fn name<T: Scalar>() -> &'static str {
            T::NAME
        }
        let scalars = [
            name::<bool>(),
            name::<i8>(),
            name::<i16>(),
            name::<i32>(),
            name::<i64>(),
            name::<u8>(),
            name::<u16>(),
            name::<u32>(),
            name::<u64>(),
            name::<usize>(),
            name::<f32>(),
            name::<f64>(),
        ];
        assert_eq!(sorted(&scalars), sorted(&Bound::Scalar.admitted()));
    }
}
