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
        } else if meta.path.is_ident("block") {
            // `block = 512`, `block = (32, 8)`, `block = (32, 8, 1)`: missing dimensions are 1.
            let value: syn::Expr = meta.value()?.parse()?;
            let elems: Vec<&syn::Expr> = match &value {
                syn::Expr::Tuple(t) => t.elems.iter().collect(),
                syn::Expr::Paren(p) => vec![&*p.expr],
                other => vec![other],
            };
            let mut shape = [1u32; 3];
            if elems.is_empty() || elems.len() > 3 {
                return Err(syn::Error::new_spanned(&value, "`block` is the block's shape: `block = 256`, `block = (32, 8)` or `block = (8, 8, 4)`"));
            }
            for (slot, e) in shape.iter_mut().zip(&elems) {
                let n = match e {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }) => i.base10_parse::<u32>()?,
                    other => {
                        return Err(syn::Error::new_spanned(
                            other,
                            "a block dimension is an integer literal",
                        ))
                    }
                };
                if n == 0 {
                    return Err(syn::Error::new_spanned(
                        e,
                        "a block dimension is at least 1",
                    ));
                }
                *slot = n;
            }
            let threads = u64::from(shape[0]) * u64::from(shape[1]) * u64::from(shape[2]);
            if threads > 1024 || shape[2] > 64 {
                return Err(syn::Error::new_spanned(&value, format!("a block has at most 1024 threads (and z at most 64); this one has {threads}")));
            }
            options.block = Some(shape);
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
        } else if meta.path.is_ident(CLOSURE_ATTR) {
            options.closure = true;
            Ok(())
        } else if meta.path.is_ident("min_blocks_per_sm") {
            let lit: syn::LitInt = meta.value()?.parse()?;
            let n: u32 = lit.base10_parse()?;
            if n == 0 || n > 32 {
                return Err(syn::Error::new(
                    lit.span(),
                    "`min_blocks_per_sm` is a block count from 1 to 32",
                ));
            }
            options.min_blocks_per_sm = Some((n, lit.span()));
            Ok(())
        } else if meta.path.is_ident("instances") {
            Err(meta.error(
                "`instances(..)` lists values of a kernel's const parameters (`instances(N = [64, 128])` on `fn k<const N: u32>`); this kernel has none",
            ))
        } else if meta.path.is_ident("bounds_checks") {
            let lit: syn::LitBool = meta.value()?.parse()?;
            options.bounds_checks = Some(lit.value);
            Ok(())
        } else {
            Err(meta.error(
                "unknown `#[kernel]` option; the options are `sync = \"check\" | \"auto\"`, `bounds_checks = true | false`, `block = (x, y, z)`, `launch_bounds = N`, `min_blocks_per_sm = N` and `fast_math`",
            ))
        }
    });
    if let Err(e) = parser.parse2(attr.clone()) {
        errors.push(at_the_input(e, &attr));
    }
    if let (Some((_, span)), None, None) = (
        options.min_blocks_per_sm,
        options.block,
        options.launch_bounds,
    ) {
        errors.push(syn::Error::new(
            span,
            "`min_blocks_per_sm` bounds the registers of blocks of a known size: give `block = ..` or `launch_bounds = N` too",
        ));
    }
    if let (Some([x, y, z]), Some(n)) = (options.block, options.launch_bounds) {
        if u64::from(x) * u64::from(y) * u64::from(z) > u64::from(n) {
            errors.push(syn::Error::new(
                proc_macro2::Span::call_site(),
                format!(
                    "`block = ({x}, {y}, {z})` has more threads than `launch_bounds = {n}` allows"
                ),
            ));
        }
    }
    for e in errors {
        for e in e {
            cx.error(e.span(), e.to_string());
        }
    }
    options
}

/// The attribute `kernel_closure!` compiles its closure's function with: names the kernel
/// cannot resolve are captures.
pub const CLOSURE_ATTR: &str = "__closure";

/// `e` with each error that syn put at the end of `attr` (the call site: `sync =` with no
/// value) moved to `attr`'s last token, so that it points into the attribute's text.
pub fn at_the_input(e: syn::Error, attr: &TokenStream) -> syn::Error {
    fn starts(
        ts: &TokenStream,
        out: &mut Vec<(usize, usize)>,
        last: &mut Option<proc_macro2::Span>,
    ) {
        for t in ts.clone() {
            let s = t.span().start();
            out.push((s.line, s.column));
            *last = Some(t.span());
            if let proc_macro2::TokenTree::Group(g) = &t {
                starts(&g.stream(), out, last);
            }
        }
    }
    let mut at = Vec::new();
    let mut last = None;
    starts(attr, &mut at, &mut last);
    let Some(last) = last else {
        return e;
    };
    let mut out: Option<syn::Error> = None;
    for one in e {
        let s = one.span().start();
        let one = if at.contains(&(s.line, s.column)) {
            one
        } else {
            syn::Error::new(last, format!("{one} (at the end of the attribute)"))
        };
        match &mut out {
            Some(o) => o.combine(one),
            None => out = Some(one),
        }
    }
    out.unwrap_or_else(|| syn::Error::new(last, "malformed attribute"))
}
