//! The front end: Rust syntax (`syn`) to the checked kernel IR.
//!
//! Takes a `#[kernel]` function, its attribute and the `#[device]` helpers it reaches; gives
//! a [`Checked`] kernel (the IR and its type table), or every user error of the kernel at
//! once, each at its own span with what to write instead. Guarantees to the stages below:
//! the IR's invariants hold (see [`crate::ir`]), every statement is numbered, every
//! expression and local is typed, helpers are inlined (the analyses see through calls).
//!
//! - [`lower`] resolves names and builds the [`Kernel`](crate::ir::Kernel), inlining helper
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
use crate::ir::{Checked, ParamKind, ParamSource};
use proc_macro2::TokenStream;

/// Parses the attribute, lowers and type-checks a kernel function.
pub fn check_kernel(
    attr: TokenStream,
    func: &syn::ItemFn,
    helpers: &helpers::Helpers,
    consts: &consts::ModuleConsts,
) -> Result<Checked, Vec<Diagnostic>> {
    let mut cx = Ctxt::new();
    let options = lower::parse_options(&mut cx, attr);
    let kernel = lower::lower_kernel(&mut cx, options, func, helpers, consts);
    // Types of a kernel with lowering errors would only add noise.
    if !cx.has_errors() {
        let types = infer::infer(&mut cx, &kernel);
        if !cx.has_errors() {
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
