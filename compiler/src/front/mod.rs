//! The front end: Rust syntax (`syn`) to the checked kernel IR.
//!
//! [`lower`] resolves names and builds the [`Kernel`]; [`infer`] computes the type of every
//! expression. Both report into one [`Ctxt`], so all the errors of a kernel come out together;
//! the back ends run only on a kernel that passed.

pub mod attr;
pub mod builtins;
pub mod generics;
pub mod helpers;
pub mod infer;
pub mod lower;

use crate::diag::{Ctxt, Diagnostic};
use crate::ir::Checked;
use proc_macro2::TokenStream;

/// Parses the attribute, lowers and type-checks a kernel function.
pub fn check_kernel(
    attr: TokenStream,
    func: &syn::ItemFn,
    helpers: &helpers::Helpers,
) -> Result<Checked, Vec<Diagnostic>> {
    let mut cx = Ctxt::new();
    let options = lower::parse_options(&mut cx, attr);
    let kernel = lower::lower_kernel(&mut cx, options, func, helpers);
    // Types of a kernel with lowering errors would only add noise.
    if !cx.has_errors() {
        let types = infer::infer(&mut cx, &kernel);
        if !cx.has_errors() {
            return Ok(Checked { kernel, types });
        }
    }
    Err(cx.into_errors())
}
