//! `#[kernel(...)]` options.

use crate::diag::Ctxt;
use crate::ir::{KernelOptions, SyncMode};
use proc_macro2::TokenStream;
use syn::parse::Parser;

/// Parses the attribute's arguments. Unknown or malformed options are reported, never ignored.
pub fn parse(cx: &mut Ctxt, attr: TokenStream) -> KernelOptions {
    let mut options = KernelOptions::default();
    let mut errors = Vec::new();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("launch_bounds") {
            let lit: syn::LitInt = meta.value()?.parse()?;
            let n: u32 = lit.base10_parse()?;
            if n == 0 || n > 1024 {
                return Err(syn::Error::new(
                    lit.span(),
                    "`launch_bounds` is a thread count from 1 to 1024",
                ));
            }
            options.launch_bounds = Some(n);
            Ok(())
        } else if meta.path.is_ident("fast_math") {
            options.fast_math = true;
            Ok(())
        } else if meta.path.is_ident("sync") {
            let lit: syn::LitStr = meta.value()?.parse()?;
            options.sync = match lit.value().as_str() {
                "check" => SyncMode::Check,
                "auto" => SyncMode::Auto,
                _ => return Err(syn::Error::new(lit.span(), "`sync` is \"check\" (hazards are errors) or \"auto\" (the compiler places barriers)")),
            };
            Ok(())
        } else if meta.path.is_ident("__closure") {
            options.closure = true;
            Ok(())
        } else if meta.path.is_ident("bounds_checks") {
            let lit: syn::LitBool = meta.value()?.parse()?;
            options.bounds_checks = Some(lit.value);
            Ok(())
        } else {
            Err(meta.error(
                "unknown `#[kernel]` option; the options are `sync = \"check\" | \"auto\"`, `bounds_checks = true | false`, `launch_bounds = N` and `fast_math`",
            ))
        }
    });
    if let Err(e) = parser.parse2(attr) {
        errors.push(e);
    }
    for e in errors {
        for e in e {
            cx.error(e.span(), e.to_string());
        }
    }
    options
}
