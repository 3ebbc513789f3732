//! Attributes inside kernel and helper bodies: nothing is silently ignored.
//!
//! Lint attributes (`#[allow]`, `#[warn]`, `#[deny]`, `#[forbid]`, `#[expect]`, tool lints
//! such as `#[clippy::..]` and `#[rustfmt::skip]`) and doc comments are accepted: they change
//! nothing the kernel computes. `#[cfg]` and `#[cfg_attr]` are decided by rustc before the
//! body reaches the compiler (see `expand::cfg`), so one found here was not (a body given as
//! text to a tool, or a `#[device] impl` method): an error. Every other attribute is an error
//! naming it, since the kernel would not do what it says.

use crate::diag::{Ctxt, Diagnostic};
use syn::visit::Visit;

const LINTS: &[&str] = &["allow", "warn", "deny", "forbid", "expect", "doc"];

/// Reports every attribute in `block` that kernels do not accept; `what` names the function
/// ("kernel", "helper") in the messages.
pub fn check(cx: &mut Ctxt, block: &syn::Block, what: &str) {
    struct Attrs<'c> {
        cx: &'c mut Ctxt,
        what: &'c str,
    }
    impl<'a> Visit<'a> for Attrs<'_> {
        fn visit_attribute(&mut self, a: &'a syn::Attribute) {
            let path = a.path();
            let name = path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>()
                .join("::");
            let tool = path.segments.len() > 1
                && path
                    .segments
                    .first()
                    .is_some_and(|s| s.ident == "clippy" || s.ident == "rustfmt");
            if tool
                || path
                    .get_ident()
                    .is_some_and(|i| LINTS.contains(&i.to_string().as_str()))
            {
                return;
            }
            let span = crate::ir::Span::of(a);
            let message = match name.as_str() {
                "cfg" | "cfg_attr" => format!(
                    "`#[{name}]` in this {} was not decided: cuphase decides it through rustc only in the body of a `#[kernel]` or `#[device]` function (not in `kernel_closure!` or a `#[device] impl` method)",
                    self.what
                ),
                "kernel" | "device" => format!(
                    "`#[{name}]` goes on a function item outside kernels, not on a statement or expression"
                ),
                _ => format!(
                    "the attribute `#[{name}]` is not supported inside a {}: only `#[cfg]`, `#[cfg_attr]` and lint attributes (`#[allow(..)]`, ..) are, and this one would be ignored",
                    self.what
                ),
            };
            self.cx.push(Diagnostic::new(span, message));
        }
    }
    Attrs { cx, what }.visit_block(block);
}
