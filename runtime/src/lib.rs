//! cuphase's runtime: [`Device`]s, [`Buffer`]s, [`Launch`]es, the CUDA back end (cudarc with
//! NVRTC, loaded dynamically) and the CPU simulator.
//!
//! Takes what `#[kernel]` generates (a [`KernelInfo`] per kernel variant, the host glue, the
//! simulator's Rust code) and the facts it shares with the compiler from `cuphase-contract`
//! (fault kinds and the fault record's layout, warp operations, loop distributions, the types
//! of each generic bound). Gives devices, buffers, launches and both back ends. Guarantees: no
//! call panics on a machine without CUDA (everything is an [`Error`]); a kernel's faults are
//! errors naming the kernel, the Rust location and the thread.
//!
//! The modules import each other without a circle: [`dim3`], [`scalar`], [`cache`] and
//! [`kernel`] are leaves; [`error`] takes [`dim3`]; [`launch`] takes [`dim3`], [`error`] and
//! [`kernel`]; the back ends [`sim`] and [`cuda`] take those, [`scalar`] and [`cache`];
//! [`device`] takes both back ends; [`buffer`] takes [`device`] and both back ends.
//!
//! Users reach all of this through the `cuphase` crate; the items under `__private` in that
//! crate are for code that `#[kernel]` generates.

pub mod buffer;
pub mod cache;
pub mod collective;
pub mod cuda;
pub mod device;
pub mod dim3;
pub mod error;
pub mod kernel;
pub mod launch;
pub mod scalar;
pub mod sim;
pub mod tune;
mod watchdog;

pub use buffer::Buffer;
pub use device::{BackendRef, Device, LaunchTarget, Stream};
pub use dim3::Dim3;
pub use error::Error;
pub use half;
pub use kernel::{instance, ConstValue, FaultKind, FaultSite, KernelInfo};
pub use launch::Launch;
pub use scalar::{Element, Float, Int, Num, Scalar};
pub use tune::{Candidate, Tuned};

/// A compile-time check that `T` is a kernel scalar; used by generated code.
#[doc(hidden)]
pub fn assert_scalar<T: Scalar>() {}

/// A compile-time check that `T` can be a buffer's element; used by generated code.
#[doc(hidden)]
pub fn assert_element<T: Element>() {}

/// The error of a kernel that did not compile; used by generated code.
#[doc(hidden)]
pub fn not_compiled(name: &str) -> Error {
    Error::NotCompiled(name.to_string())
}

/// cudarc's driver layer, for generated code.
#[doc(hidden)]
pub mod cuda_driver {
    pub use cudarc::driver::{DevicePtr, DevicePtrMut, DeviceRepr, ValidAsZeroBits};
}
