//! The builtins a kernel calls (`thread_idx`, `shared`, `sync_block_threads`, the warp
//! operations, atomics, `println!`) are documented, with examples, in [`lang`]. A kernel
//! becomes a value with `.launch(&device, Launch, args..)`, `.cuda_source()` (the CUDA C) and
//! `.report()` (what the barrier analyses found); `#[kernel]`'s options (`sync`, `block`,
//! `launch_bounds`, `fast_math`, `bounds_checks`) are on [`kernel`]. The README (in the
//! repository, and below) covers the whole language, the barrier rules and the simulator.
//!
//! ---
//!
#![doc = include_str!("../README.md")]

pub use cuphase_macros::{device, kernel, kernel_closure, DeviceStruct};
/// The `half` crate, whose `f16` and `bf16` kernels compute with.
pub use cuphase_runtime::half;
pub use cuphase_runtime::{
    Buffer, Candidate, Device, Dim3, Element, Error, Float, Int, Launch, LaunchTarget, Num, Scalar,
    Stream, Tuned,
};

/// Everything a kernel file needs: `use cuphase::prelude::*;`.
pub mod prelude {
    pub use crate::{
        device, kernel, kernel_closure, Buffer, Device, DeviceStruct, Dim3, Element, Error, Float,
        Int, Launch, LaunchTarget, Num, Scalar, Stream,
    };
}

#[cfg(any(doc, doctest))]
pub mod lang;

/// Collectives over buffers on several devices: `Group::new(&devices)?.all_reduce(..)`.
pub mod collective {
    pub use cuphase_runtime::collective::{Group, GroupId, Reduce, ReduceOp};
}

/// Options of the CPU simulator: `Device::cpu_with(SimOptions { .. })`; and the TF32 roundings
/// of the tensor-core multiplies (`tf32`: `mma_m16n8k8_tf32`, `tf32_truncated`: `wgmma_*_tf32`),
/// for host references.
pub mod sim {
    pub use cuphase_runtime::error::RaceSite;
    pub use cuphase_runtime::sim::{tf32, tf32_truncated, SimOptions, ThreadOrder};
}

/// The CUDA back end's tools that are useful on their own: compiling CUDA C with NVRTC.
pub mod cuda {
    pub use cuphase_runtime::cache;
    pub use cuphase_runtime::cuda::{
        compile_cached, compile_cached_in, compile_cuda, nvrtc_available, nvrtc_version, Arch,
        CacheOutcome, CompiledModule, Limits,
    };
}

/// Items used by the code `#[kernel]` generates. Not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use cudarc_driver::{DevicePtr, DevicePtrMut, DeviceRepr, ValidAsZeroBits};
    pub use cuphase_macros::{kernel_cfg, kernel_continue};
    pub use cuphase_runtime::cuda::ArgList;
    pub use cuphase_runtime::sim;
    pub use cuphase_runtime::{
        assert_element, assert_scalar, instance, not_compiled, BackendRef, ConstValue, FaultKind,
        FaultSite, KernelInfo,
    };

    mod cudarc_driver {
        pub use cuphase_runtime::cuda_driver::{
            DevicePtr, DevicePtrMut, DeviceRepr, ValidAsZeroBits,
        };
    }
}
