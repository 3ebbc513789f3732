//! cuphase's runtime: [`Device`]s, [`Buffer`]s, [`Launch`]es, the CUDA back end (cudarc with
//! NVRTC, loaded dynamically) and the CPU simulator.
//!
//! Users reach all of this through the `cuphase` crate; the items under `__private` in that
//! crate are for code that `#[kernel]` generates.

pub mod buffer;
pub mod cache;
pub mod cuda;
pub mod device;
pub mod error;
pub mod kernel;
pub mod launch;
pub mod scalar;
pub mod sim;

pub use buffer::Buffer;
pub use device::{BackendRef, Device, LaunchTarget, Stream};
pub use error::Error;
pub use half;
pub use kernel::{FaultKind, FaultSite, KernelInfo};
pub use launch::{Dim3, Launch};
pub use scalar::{Float, Int, Num, Scalar};

/// A compile-time check that `T` is a kernel scalar; used by generated code.
#[doc(hidden)]
pub fn assert_scalar<T: Scalar>() {}

/// The error of a kernel that did not compile; used by generated code.
#[doc(hidden)]
pub fn not_compiled(name: &str) -> Error {
    Error::NotCompiled(name.to_string())
}

/// cudarc's driver layer, for generated code.
#[doc(hidden)]
pub mod cuda_driver {
    pub use cudarc::driver::PushKernelArg;
}
