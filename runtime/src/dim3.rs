//! [`Dim3`]: three sizes or indices, as CUDA's `dim3`.
//!
//! Takes nothing from the rest of the crate: it is a leaf, so errors, launches, the simulator
//! and the CUDA back end can all use it without importing each other. Gives the type, its
//! `Display` (`(x, y, z)`) and its conversions from `u32`, `(u32, u32)` and `(u32, u32, u32)`
//! (missing components are 1). Guarantees: [`Dim3::volume`] cannot overflow.

use std::fmt;

/// Three sizes or indices, as CUDA's `dim3`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// The fastest-varying component.
    pub x: u32,
    /// The middle component.
    pub y: u32,
    /// The slowest-varying component.
    pub z: u32,
}

impl Dim3 {
    /// A `Dim3` from its components.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Dim3 { x, y, z }
    }
    /// `x * y * z`, without overflow.
    pub fn volume(self) -> u64 {
        u64::from(self.x) * u64::from(self.y) * u64::from(self.z)
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3::new(x, 1, 1)
    }
}
impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Dim3::new(x, y, 1)
    }
}
impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3::new(x, y, z)
    }
}
