//! Launches on a CUDA device: the device's own limits, the dynamic shared memory opt-in, and
//! the launch of the arguments generated code pushed.
//!
//! Takes a kernel's [`KernelInfo`], a [`Launch`] that passed [`Launch::validate_for`], the
//! loaded function and its arguments (marshalled by generated code through cudarc's
//! `PushKernelArg`). Gives [`CudaBackend::launch_builder`] and [`CudaBackend::launch`].
//! Guarantees: a launch beyond this device's limits (threads per block, block and grid per axis,
//! shared memory) is [`Error::InvalidLaunch`] naming the limit, before anything is queued; a
//! launch returns once queued (its faults surface at the next synchronising call).

use super::{driver_err, CudaBackend};
use crate::error::Error;
use crate::kernel::KernelInfo;
use crate::launch::{Launch, DEFAULT_SHARED_BYTES};
use cudarc::driver::{CudaFunction, LaunchArgs, LaunchConfig};

impl CudaBackend {
    /// A launch builder for `f` on this device's stream.
    pub fn launch_builder<'a>(&'a self, f: &'a CudaFunction) -> LaunchArgs<'a> {
        self.stream().launch_builder(f)
    }

    /// Launches with the arguments pushed into `args`, after checking the launch.
    pub fn launch(
        &self,
        info: &'static KernelInfo,
        launch: &Launch,
        func: &CudaFunction,
        mut args: LaunchArgs<'_>,
    ) -> Result<(), Error> {
        // The generated `launch` has checked the device-independent limits (`validate_for`).
        self.check_limits(info, launch)?;
        if launch.shared_bytes > DEFAULT_SHARED_BYTES {
            // Above 48 KiB of dynamic shared memory a kernel must opt in.
            func.set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                launch.shared_bytes as i32,
            )
            .map_err(|e| driver_err(&format!("allowing kernel `{}` more dynamic shared memory", info.name), e))?;
        }
        tracing::trace!(kernel = info.name, grid = %launch.grid, block = %launch.block, "cuphase: CUDA launch");
        let cfg = LaunchConfig {
            grid_dim: (launch.grid.x, launch.grid.y, launch.grid.z),
            block_dim: (launch.block.x, launch.block.y, launch.block.z),
            shared_mem_bytes: launch.shared_bytes,
        };
        // SAFETY: `#[kernel]` pushed one argument per parameter of the generated CUDA function,
        // in order and of the matching types (device pointers, `unsigned long long` lengths,
        // scalars), all generated from the same signature.
        unsafe { args.launch(cfg) }
            .map_err(|e| driver_err(&format!("launching kernel `{}`", info.name), e))?;
        Ok(())
    }

    /// Checks a launch against this device's own limits, naming the limit it breaks.
    fn check_limits(&self, info: &KernelInfo, launch: &Launch) -> Result<(), Error> {
        let l = &self.limits;
        let bad = |reason: String| {
            Err(Error::InvalidLaunch {
                kernel: info.name.to_string(),
                reason,
            })
        };
        let (b, g) = (launch.block, launch.grid);
        if b.volume() > u64::from(l.max_threads_per_block) {
            return bad(format!(
                "the block {b} has {} threads; {} allows {} per block",
                b.volume(),
                self.name,
                l.max_threads_per_block
            ));
        }
        for (axis, (v, m)) in [
            (b.x, l.max_block[0]),
            (b.y, l.max_block[1]),
            (b.z, l.max_block[2]),
        ]
        .into_iter()
        .enumerate()
        {
            if v > m {
                return bad(format!(
                    "the block {b} exceeds {}'s limit of {m} on axis {}",
                    self.name,
                    ["x", "y", "z"][axis]
                ));
            }
        }
        for (axis, (v, m)) in [
            (g.x, l.max_grid[0]),
            (g.y, l.max_grid[1]),
            (g.z, l.max_grid[2]),
        ]
        .into_iter()
        .enumerate()
        {
            if v > m {
                return bad(format!(
                    "the grid {g} exceeds {}'s limit of {m} on axis {}",
                    self.name,
                    ["x", "y", "z"][axis]
                ));
            }
        }
        let shared = u64::from(info.static_shared_bytes) + u64::from(launch.shared_bytes);
        if shared > u64::from(l.max_shared_optin) {
            return bad(format!(
                "{} bytes of shared memory per block ({} static + {} dynamic); {} allows {}",
                shared,
                info.static_shared_bytes,
                launch.shared_bytes,
                self.name,
                l.max_shared_optin
            ));
        }
        Ok(())
    }
}
