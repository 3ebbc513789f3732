//! The procedural macros of cuphase. Thin entry points: the work is in `cuphase-compiler`.

use proc_macro::TokenStream;

/// Compiles a Rust function into a GPU kernel: CUDA C for NVRTC and code for the CPU
/// simulator, behind a kernel value with a typed `launch` method.
///
/// ```text
/// #[kernel]
/// pub fn scale(out: &mut [f32], input: &[f32], k: f32) {
///     let i = global_idx().x;
///     if i < out.len() as u32 {
///         out[i] = input[i] * k;
///     }
/// }
/// ```
///
/// The kernel value `scale` has `scale.launch(&device, Launch::new(grid, block), args..)`
/// (arguments typed as the parameters: `&mut Buffer<f32>` for `&mut [f32]`, `&Buffer<T>` for
/// `&[T]`, the scalar itself), `scale.cuda_source()` (the CUDA C NVRTC gets), `scale.report()`
/// (what the barrier analyses found and did) and `scale.name()`.
///
/// Options, comma-separated:
///
/// - `sync = "check"` (the default): every `sync_block_threads()` is checked (a barrier under a
///   thread-divergent condition, or a shared-memory race between two barriers, is a compile
///   error); `sync = "auto"`: the compiler places the barriers itself (and removes the ones
///   that order nothing).
/// - `block = (32, 8)` (or `block = 256`): the exact block shape; the proofs use it, it becomes
///   `__launch_bounds__`, and another launch shape is `Error::InvalidLaunch`.
/// - `launch_bounds = 256`: the most threads per block the kernel is launched with;
///   `min_blocks_per_sm = 2` with it (or `block`) is `__launch_bounds__`'s second argument.
/// - `fast_math`: NVRTC's `--use_fast_math` (the hardware's approximations).
/// - `bounds_checks = true | false`: every index checked (an out-of-bounds index is
///   `Error::OutOfBounds`) or not; by default on in debug builds of the defining crate, off
///   in release builds. Division by zero and `step_by(0)` are checked always.
/// - `instances(N = [64, 128, 256])`: for a kernel with a const parameter `N`, one kernel per
///   listed value (`k::<128>.launch(..)`).
///
/// A generic kernel `fn scale<T: Float>(..)` is instantiated for every type its bounds admit;
/// `scale.launch(..)` picks the instance from the argument types and `scale::<f32>.launch(..)`
/// names it (also `scale::<f32>.cuda_source()`). A const-generic kernel `fn k<const N: u32>`
/// launches as `k::<256>.launch(..)`.
///
/// The builtins a body calls are documented in `cuphase::lang`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    cuphase_compiler::expand_kernel(attr.into(), item.into()).into()
}

/// Marks a function as a device helper that kernels (and other helpers) may call. The helper
/// is inlined at each call, so the barrier analyses see through it.
///
/// ```text
/// #[device]
/// fn load_tile(tile: &mut [f32; 256], input: &[f32], i: u32) {
///     tile[thread_idx().x] = input[i];
/// }
/// ```
///
/// A helper is reached by its path wherever its module is, from other crates too: a library
/// crate's `#[device] pub fn block_sum(..)` is called from a kernel of another crate as
/// `mylib::block_sum(..)`, with its barriers seen through the crate boundary (the crate
/// `cuphase-blocks` is such a library).
///
/// A helper that writes shared memory ends on a barrier (trailing sync) unless
/// `#[device(trailing_sync = false)]`; a trailing barrier that orders nothing at a call is
/// dropped there.
///
/// On an inherent `impl` block of a `DeviceStruct` struct, every method of the block is a
/// helper that kernels of the same file call as `p.dot(q)` or `Vec2::new(x, y)` (receivers
/// `self`, `mut self`, `&self`, and `&mut self` of a `mut` struct variable); the block itself
/// stays ordinary Rust for the host.
///
/// ```text
/// #[device]
/// impl Vec2 {
///     fn dot(self, o: Vec2) -> f32 { self.x * o.x + self.y * o.y }
/// }
/// ```
#[proc_macro_attribute]
pub fn device(attr: TokenStream, item: TokenStream) -> TokenStream {
    cuphase_compiler::expand_device(attr.into(), item.into()).into()
}

/// A closure-shaped kernel for quick prototypes: `kernel_closure!(|out: &mut [f32], k: f32| { .. })`
/// is an expression whose value is the kernel (launch it like a `#[kernel]` fn). Every
/// parameter is typed.
///
/// The closure may capture scalars (with `move` or without: always by value). The kernel value
/// holds them and passes them at each launch; they are uniform for the barrier analyses. A
/// capture's type is the one the body gives it, checked by rustc against the captured variable;
/// where the body does not fix it, write it where the closure starts (`let n: u32 = n;`). A
/// captured buffer is an error: pass it as a parameter, since a launch borrows each buffer.
///
/// ```text
/// let a = 2.5f32;
/// let axpy = kernel_closure!(|y: &mut [f32], x: &[f32]| {
///     let i = global_idx().x;
///     if i < y.len() as u32 {
///         y[i] += a * x[i];
///     }
/// });
/// axpy.launch(&dev, Launch::cover(n, 256), &mut y, &x)?;
/// ```
///
/// (Run as a test in `tests/closures.rs`.)
///
/// (Named `kernel_closure!`, not `kernel!`: an attribute macro and a function-like macro
/// cannot share one name in Rust's macro namespace, and `#[kernel]` has it.)
#[proc_macro]
pub fn kernel_closure(input: TokenStream) -> TokenStream {
    cuphase_compiler::expand_kernel_closure(input.into()).into()
}

/// Makes a `#[repr(C)]` struct of scalars (of other such structs, and of arrays `[T; N]` of
/// those) a buffer element and a kernel type: `&[P]` parameters, `ps[i].x`, `ps[i].pos[k]`,
/// struct variables and literals in kernels.
///
/// ```text
/// #[repr(C)]
/// #[derive(Clone, Copy, DeviceStruct)]
/// struct Particle { pos: Vec2, mass: f32 }
/// ```
///
/// Kernels read the struct's fields from the kernel's source file, so the struct must be
/// defined there; each kernel checks at compile time that the layout it assumed is rustc's.
#[proc_macro_derive(DeviceStruct)]
pub fn device_struct(item: TokenStream) -> TokenStream {
    cuphase_compiler::expand_device_struct(item.into()).into()
}

/// Internal: the continuation of a kernel's helper fetch. Not called directly.
#[doc(hidden)]
#[proc_macro]
pub fn kernel_continue(input: TokenStream) -> TokenStream {
    cuphase_compiler::expand_continue(input.into()).into()
}

/// Internal: a kernel or helper body with one `#[cfg]` predicate decided by rustc. Not called
/// directly.
#[doc(hidden)]
#[proc_macro]
pub fn kernel_cfg(input: TokenStream) -> TokenStream {
    cuphase_compiler::expand_cfg(input.into()).into()
}
