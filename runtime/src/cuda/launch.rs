//! Launches on a CUDA device: the device's own limits, the dynamic shared memory opt-in, and
//! the launch of the arguments generated code pushed.
//!
//! Takes a kernel's [`KernelInfo`], a [`Launch`] that passed [`Launch::validate_for`], the
//! loaded function and its arguments (collected by generated code in an [`ArgList`] on the
//! stack). Gives [`CudaBackend::launch`].
//! Guarantees: a launch beyond this device's limits (threads per block, block and grid per axis,
//! shared memory) is [`Error::InvalidLaunch`] naming the limit, before anything is queued; a
//! launch returns once queued (its faults surface at the next synchronising call).

use super::{driver_err, CudaBackend};
use crate::error::Error;
use crate::kernel::KernelInfo;
use crate::launch::{Launch, DEFAULT_SHARED_BYTES};
use cudarc::driver::{CudaFunction, CudaStream, DeviceRepr};
use std::ffi::c_void;
use std::marker::PhantomData;

/// The arguments of one launch as the driver takes them: a pointer to each value, in the
/// kernel's parameter order, held on the stack (the macro sizes `N` from the kernel's
/// parameters, so a launch allocates nothing).
///
/// A device buffer's argument is its device pointer, taken with cudarc's
/// [`DevicePtr`](cudarc::driver::DevicePtr)/[`DevicePtrMut`](cudarc::driver::DevicePtrMut)
/// (which order the launch after other streams' uses where cudarc tracks them), kept alive by
/// the caller until after [`CudaBackend::launch`].
pub struct ArgList<'a, const N: usize> {
    ptrs: [*mut c_void; N],
    len: usize,
    values: PhantomData<&'a ()>,
}

impl<'a, const N: usize> ArgList<'a, N> {
    /// No arguments yet.
    #[inline(always)]
    pub fn new() -> Self {
        Self {
            ptrs: [std::ptr::null_mut(); N],
            len: 0,
            values: PhantomData,
        }
    }

    /// Appends the argument `value` (borrowed until the launch).
    ///
    /// # Panics
    /// With more than `N` arguments: generated code sizes `N` from the kernel, so that is a bug
    /// of the macro, never of a launch.
    #[inline(always)]
    pub fn push<T: DeviceRepr>(&mut self, value: &'a T) -> &mut Self {
        self.ptrs[self.len] = value as *const T as *mut c_void;
        self.len += 1;
        self
    }
}

impl<const N: usize> Default for ArgList<'_, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl CudaBackend {
    /// Launches `func` on `stream` with the arguments in `args`, after checking the launch.
    pub fn launch<const N: usize>(
        &self,
        info: &'static KernelInfo,
        launch: &Launch,
        func: &CudaFunction,
        stream: &CudaStream,
        args: &mut ArgList<'_, N>,
    ) -> Result<(), Error> {
        // The generated `launch` has checked the device-independent limits (`validate_for`).
        self.check_limits(info, launch)?;
        // The kernel's own fixed-size shared arrays, when they are more than 48 KiB together,
        // start its dynamic shared memory; the launch's follows (`check_limits` bounded the sum).
        let dynamic = info.dynamic_shared_base.saturating_add(launch.shared_bytes);
        if dynamic > DEFAULT_SHARED_BYTES {
            // Above 48 KiB of dynamic shared memory a kernel must opt in.
            func.set_attribute(
                cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dynamic as i32,
            )
            .map_err(|e| driver_err(&format!("allowing kernel `{}` more dynamic shared memory", info.name), e))?;
        }
        tracing::trace!(kernel = info.name, grid = %launch.grid, block = %launch.block, "cuphase: CUDA launch");
        let (g, b) = (launch.grid, launch.block);
        let launched = stream.context().bind_to_thread().and_then(|()| {
            // SAFETY: `#[kernel]` pushed one argument per parameter of the generated CUDA
            // function, in order and of the matching types (device pointers, `unsigned long
            // long` lengths, scalars), all generated from the same signature; each pointer is
            // to a value the caller keeps until this returns, and the driver copies them.
            unsafe {
                cudarc::driver::result::launch_kernel(
                    func.cu_function(),
                    (g.x, g.y, g.z),
                    (b.x, b.y, b.z),
                    dynamic,
                    stream.cu_stream(),
                    &mut args.ptrs[..args.len],
                )
            }
        });
        launched.map_err(|e| driver_err(&format!("launching kernel `{}`", info.name), e))
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
        let fixed = u64::from(info.static_shared_bytes) + u64::from(info.dynamic_shared_base);
        let shared = fixed + u64::from(launch.shared_bytes);
        if shared > u64::from(l.max_shared_optin) {
            return bad(format!(
                "{} bytes of shared memory per block ({} of the kernel's shared arrays + {} dynamic); {} allows {}",
                shared,
                fixed,
                launch.shared_bytes,
                self.name,
                l.max_shared_optin
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::ArgList;

    #[test]
    fn an_argument_list_points_at_each_value_in_order() {
        let (a, b, c) = (7u32, 0x1234_5678_9abc_u64, 2.5f32);
        let mut args = ArgList::<4>::new();
        args.push(&a).push(&b).push(&c);
        assert_eq!(args.len, 3);
        let got: Vec<*const u8> = args.ptrs[..args.len]
            .iter()
            .map(|p| *p as *const u8)
            .collect();
        let want = [
            &a as *const u32 as *const u8,
            &b as *const u64 as *const u8,
            &c as *const f32 as *const u8,
        ];
        assert_eq!(got, want);
        // SAFETY: each pointer is to the value pushed, alive here.
        assert_eq!(unsafe { *(args.ptrs[1] as *const u64) }, b);
        assert!(args.ptrs[3].is_null());
    }
}
