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
/// Options: `#[kernel(launch_bounds = 256)]` (the most threads per block the kernel is launched
/// with), `#[kernel(fast_math)]` (NVRTC's `--use_fast_math`).
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    cuphase_compiler::expand_kernel(attr.into(), item.into()).into()
}
