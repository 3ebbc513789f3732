//! The element and parameter types kernels compute with.

use std::fmt::Debug;
use std::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicU16, AtomicU32, AtomicU64,
    AtomicU8, AtomicUsize, Ordering,
};

mod sealed {
    pub trait Sealed {}
}

/// A scalar type a kernel can take as a parameter or hold in a buffer: `bool`, `i8`..`i64`,
/// `u8`..`u64`, `usize`, `f32`, `f64`.
///
/// The simulator keeps buffer elements in atomic cells (`Cell`), accessed with relaxed
/// ordering, so that blocks can run on several CPU threads without undefined behaviour even
/// when a kernel races; on x86-64 relaxed loads and stores are plain moves.
pub trait Scalar:
    sealed::Sealed
    + Copy
    + Debug
    + Default
    + PartialEq
    + Send
    + Sync
    + 'static
    + cudarc::driver::DeviceRepr
    + cudarc::driver::ValidAsZeroBits
{
    /// The simulator's storage for one element.
    #[doc(hidden)]
    type Cell: Send + Sync;
    /// The Rust name of the type.
    const NAME: &'static str;
    #[doc(hidden)]
    fn new_cell(v: Self) -> Self::Cell;
    #[doc(hidden)]
    fn load(c: &Self::Cell) -> Self;
    #[doc(hidden)]
    fn store(c: &Self::Cell, v: Self);
    /// Atomically replaces the element with `f(old)`; returns the old value.
    #[doc(hidden)]
    fn rmw(c: &Self::Cell, f: impl Fn(Self) -> Self) -> Self;
    /// The value's bits, as a warp operation moves them between lanes.
    #[doc(hidden)]
    fn to_lane_bits(self) -> u64;
    /// The value back from [`Scalar::to_lane_bits`].
    #[doc(hidden)]
    fn from_lane_bits(b: u64) -> Self;
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
        impl Scalar for $t {
            type Cell = $cell;
            const NAME: &'static str = stringify!($t);
            #[inline(always)]
            fn new_cell(v: Self) -> Self::Cell { <$cell>::new(v) }
            #[inline(always)]
            fn load(c: &Self::Cell) -> Self { c.load(Ordering::Relaxed) }
            #[inline(always)]
            fn store(c: &Self::Cell, v: Self) { c.store(v, Ordering::Relaxed) }
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
        impl Scalar for $t {
            type Cell = $cell;
            const NAME: &'static str = $name;
            #[inline(always)]
            fn new_cell(v: Self) -> Self::Cell { <$cell>::new(v.to_bits()) }
            #[inline(always)]
            fn load(c: &Self::Cell) -> Self { <$t>::from_bits(c.load(Ordering::Relaxed)) }
            #[inline(always)]
            fn store(c: &Self::Cell, v: Self) { c.store(v.to_bits(), Ordering::Relaxed) }
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
        }
    )*};
}

float_scalar! {
    f32 => AtomicU32, "f32",
    f64 => AtomicU64, "f64",
    half::f16 => AtomicU16, "f16",
    half::bf16 => AtomicU16, "bf16",
}

/// Scalars with arithmetic: every integer and float type (bound of generic kernels and
/// helpers: `T: Num`).
pub trait Num: Scalar {}
/// The integer types (`T: Int`).
pub trait Int: Num {}
/// The float types (`T: Float`).
pub trait Float: Num {}
macro_rules! marker {
    ($tr:ident: $($t:ty),*) => {$( impl $tr for $t {} )*};
}
marker!(Num: i8, i16, i32, i64, u8, u16, u32, u64, usize, f32, f64, half::f16, half::bf16);
marker!(Int: i8, i16, i32, i64, u8, u16, u32, u64, usize);
marker!(Float: f32, f64, half::f16, half::bf16);
