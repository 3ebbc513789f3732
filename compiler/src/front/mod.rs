//! The front end: Rust syntax (`syn`) to the checked kernel IR.
//!
//! Takes a `#[kernel]` function, its attribute and the `#[device]` helpers it reaches; gives
//! a [`Checked`] kernel (the IR and its type table), or every user error of the kernel at
//! once, each at its own span with what to write instead. Guarantees to the stages below:
//! the IR's invariants hold (see [`crate::ir`]), every statement is numbered, every
//! expression and local is typed, helpers are inlined (the analyses see through calls).
//!
//! - [`lower`] resolves names and builds the [`Kernel`], inlining helper
//!   and closure calls; [`infer`] computes the type of every expression. Both report into one
//!   [`Ctxt`], so all the errors of a kernel come out together.
//! - [`builtins`] is the one table of the language's own functions; [`attr`] parses
//!   `#[kernel(..)]`; [`helpers`] is the table of helpers a kernel reaches; [`generics`] the
//!   bounds and instances of generic parameters and the token substitution.
//! - [`consts`], [`records`] and [`methods`] read the kernel's own file: its integer
//!   constants, its `DeviceStruct` structs and the methods of its `#[device] impl` blocks.

#[cfg(test)]
mod array_field_tests;
#[cfg(test)]
mod array_tests;
pub mod attr;
pub mod body_attrs;
pub mod builtins;
pub mod consts;
pub mod generics;
pub mod helpers;
pub mod infer;
pub mod lower;
pub mod methods;
#[cfg(test)]
mod option_tests;
pub mod records;

use crate::diag::{Ctxt, Diagnostic};
use crate::ir::{Checked, Kernel, ParamKind, ParamSource, SHARED_LIMIT};
use proc_macro2::TokenStream;

/// Parses the attribute, lowers and type-checks a kernel function.
pub fn check_kernel(
    attr: TokenStream,
    func: &syn::ItemFn,
    helpers: &helpers::Helpers,
    consts: &consts::ModuleConsts,
) -> Result<Checked, Vec<Diagnostic>> {
    let mut cx = Ctxt::new();
    body_attrs::check(&mut cx, &func.block, "kernel");
    for h in helpers.iter() {
        body_attrs::check(&mut cx, &h.func.block, "helper");
    }
    let options = lower::parse_options(&mut cx, attr);
    let kernel = lower::lower_kernel(&mut cx, options, func, helpers, consts);
    // Types of a kernel with lowering errors would only add noise.
    if !cx.has_errors() {
        let types = infer::infer(&mut cx, &kernel);
        if !cx.has_errors() {
            check_shared_size(&mut cx, &kernel);
            if cx.has_errors() {
                return Err(cx.into_errors());
            }
            let mut kernel = kernel;
            // A module constant's type is the one inference found.
            for p in &mut kernel.params {
                if let ParamKind::Scalar { local, ty } = &mut p.kind {
                    if matches!(p.source, ParamSource::ModuleConst | ParamSource::Capture) {
                        *ty = types.local(*local);
                    }
                }
            }
            return Ok(Checked { kernel, types });
        }
    }
    Err(cx.into_errors())
}

/// Shared memory beyond what any CUDA GPU's block can hold is a build error (the launch could
/// never succeed, and the simulator would allocate it): per array at the array, all of them
/// together at the kernel. Beyond 48 KiB together the fixed-size arrays are carved from dynamic
/// shared memory ([`crate::ir::SharedLayout`]), up to 227 KiB on sm_90. (Thread-local arrays
/// are limited where they are lowered, to 64 elements: registers.)
fn check_shared_size(cx: &mut Ctxt, k: &Kernel) {
    let limit = SHARED_LIMIT;
    let kib = limit / 1024;
    let note = "a block's shared memory is the fixed-size `shared` arrays plus the launch's dynamic shared memory (`Launch::shared_bytes`); GPUs before sm_90 allow less, which a launch checks";
    let mut reported = false;
    for (h, a) in k.arrays.iter() {
        let Some(bytes) = a.static_shared_bytes() else {
            continue;
        };
        if bytes > limit {
            reported = true;
            cx.push(
                Diagnostic::new(
                    k.arrays.span(h),
                    format!("the shared array `{}` takes {bytes} bytes, but a block has at most {limit} bytes ({kib} KiB) of shared memory on any CUDA GPU", a.name),
                )
                .note(note),
            );
        }
    }
    let total = k.shared_layout().fixed_bytes;
    if total > limit && !reported {
        cx.push(
            Diagnostic::new(
                k.name_span,
                format!("the kernel's shared arrays take {total} bytes together, but a block has at most {limit} bytes ({kib} KiB) of shared memory on any CUDA GPU"),
            )
            .note(note),
        );
    }
}
