//! The compile pipeline: a kernel's syntax through the front end, the barrier analyses and
//! every back end, once.
//!
//! Takes a parsed `#[kernel]` function (and the helpers it reaches); gives [`Compiled`]: the
//! checked IR, every CUDA C variant the runtime may launch, the simulator's code and the
//! report, or every user error of the kernel. Nothing here writes proc-macro output: that is
//! [`crate::expand`], which sits on top and calls down.

use crate::analysis::{self, Report};
use crate::back::cuda::{self, CudaKernel};
use crate::back::sim::{self, SimCode};
use crate::diag::Diagnostic;
use crate::front::{self, consts::ModuleConsts, helpers::Helpers};
use crate::ir::Checked;
use proc_macro2::TokenStream;

/// What compiling one kernel gives.
pub struct Compiled {
    /// The checked IR and its types.
    pub checked: Checked,
    /// The CUDA C source without bounds checks (what release builds run by default).
    pub cuda: String,
    /// The kernel without bounds checks, with the fault sites it keeps (division, `step_by`).
    pub cuda_unchecked: CudaKernel,
    /// The kernel with bounds checks (what debug builds run by default).
    pub cuda_checked: CudaKernel,
    /// For a kernel with warp operations, the variants (unchecked, checked) the runtime
    /// launches when the block is a whole number of warps.
    pub cuda_full_warps: Option<(CudaKernel, CudaKernel)>,
    /// The simulator's functions for the kernel.
    pub sim: SimCode,
    /// What the barrier analyses found and did.
    pub report: Report,
}

/// Compiles a parsed kernel function. `file` is the Rust path written into `#line` directives
/// and fault locations.
pub fn compile(
    attr: TokenStream,
    func: &syn::ItemFn,
    file: &str,
) -> Result<Compiled, Vec<Diagnostic>> {
    compile_with(
        attr,
        func,
        file,
        &Helpers::default(),
        &ModuleConsts::default(),
    )
}

/// Compiles a parsed kernel function whose `#[device]` helpers are at hand in `helpers` and
/// whose file's integer constants are `consts`.
pub fn compile_with(
    attr: TokenStream,
    func: &syn::ItemFn,
    file: &str,
    helpers: &Helpers,
    consts: &ModuleConsts,
) -> Result<Compiled, Vec<Diagnostic>> {
    #[cfg(test)]
    tests::maybe_inject_panic();
    let mut checked = front::check_kernel(attr, func, helpers, consts)?;
    let report = analysis::check(&mut checked)?;
    let (k, types) = (&checked.kernel, &checked.types);
    let cuda_unchecked = cuda::write_kernel_checked(k, types, file, false);
    let cuda_checked = cuda::write_kernel_checked(k, types, file, true);
    let cuda_full_warps = (cuda::uses_warp_ops(k) && !cuda::whole_warps_always(k)).then(|| {
        (
            cuda::write_kernel_variant(k, types, file, false, true),
            cuda::write_kernel_variant(k, types, file, true, true),
        )
    });
    let sim = sim::write_kernel(k, types, file, &report.exclusive);
    Ok(Compiled {
        cuda_full_warps,
        cuda: cuda_unchecked.source.clone(),
        cuda_unchecked,
        cuda_checked,
        sim,
        checked,
        report,
    })
}

/// Compiles kernel source text (a whole `fn` item, without the `#[kernel]` attribute);
/// for tests and tools.
pub fn compile_str(attr: &str, source: &str, file: &str) -> Result<Compiled, Vec<Diagnostic>> {
    let (attr, func) = parse_source(attr, source)?;
    compile(attr, &func, file)
}

/// Compiles kernel source text that calls helpers given as source text (`#[device]` items
/// that live in the kernel's module); for tests and tools.
pub fn compile_str_with_helpers(
    attr: &str,
    source: &str,
    helper_sources: &[&str],
    file: &str,
) -> Result<Compiled, Vec<Diagnostic>> {
    let (attr, func) = parse_source(attr, source)?;
    let helpers = front::helpers::collect_from_sources(&func, helper_sources)
        .map_err(|e| vec![Diagnostic::new(e.span(), e.to_string())])?;
    compile_with(attr, &func, file, &helpers, &ModuleConsts::default())
}

/// Compiles kernel source text in a module whose source is `module` (its integer constants
/// are known to the analyses, as a file's are); for tests and tools.
pub fn compile_str_in_module(
    attr: &str,
    source: &str,
    module: &str,
    file: &str,
) -> Result<Compiled, Vec<Diagnostic>> {
    let (attr, func) = parse_source(attr, source)?;
    let consts = ModuleConsts::of_source(module);
    compile_with(attr, &func, file, &Helpers::default(), &consts)
}

/// The attribute tokens and the function of kernel source text.
fn parse_source(attr: &str, source: &str) -> Result<(TokenStream, syn::ItemFn), Vec<Diagnostic>> {
    let func: syn::ItemFn =
        syn::parse_str(source).map_err(|e| vec![Diagnostic::new(e.span(), e.to_string())])?;
    let attr: TokenStream = attr.parse().map_err(|e: proc_macro2::LexError| {
        vec![Diagnostic::new(
            proc_macro2::Span::call_site(),
            e.to_string(),
        )]
    })?;
    Ok((attr, func))
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    thread_local! {
        /// Set by a test to make the next compile on this thread panic, as a bug would.
        static INJECT_PANIC: Cell<bool> = const { Cell::new(false) };
    }

    /// Makes every compile on this thread panic until [`stop_panicking`] (tests of the
    /// internal-error path).
    pub(crate) fn panic_in_compile() {
        INJECT_PANIC.with(|p| p.set(true));
    }

    /// Ends [`panic_in_compile`].
    pub(crate) fn stop_panicking() {
        INJECT_PANIC.with(|p| p.set(false));
    }

    #[allow(clippy::panic)]
    pub(super) fn maybe_inject_panic() {
        if INJECT_PANIC.with(Cell::get) {
            panic!("a bug injected by a test");
        }
    }
}
