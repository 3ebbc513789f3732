//! The proc-macro output, on top of the pipeline: what `#[kernel]`, `kernel_closure!`,
//! `#[device]` and `kernel_continue!` expand to.
//!
//! Takes the macros' input tokens; gives the items rustc compiles: the kernel value with its
//! typed `launch` ([`host`]), one per instance for a generic kernel ([`generic`]), the helper
//! trampoline ([`device`]), or the user's errors with a fallback item. Every kernel goes
//! through [`emit`], the one place that turns a compile into tokens, so a bug in cuphase is
//! always reported as an internal error at the kernel, never as a raw proc-macro panic.

pub mod cfg;
pub mod device;
pub mod generic;
pub mod host;
pub mod instances;
pub mod record;

use crate::diag::Diagnostic;
use crate::front::attr::CLOSURE_ATTR;
use crate::front::consts::ModuleConsts;
use crate::front::generics::has_type_params;
use crate::front::helpers::{self, Helpers};
use crate::pipeline::compile_with;
use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};

pub use cfg::expand_cfg;
pub use device::expand_continue;
pub use record::expand_device_struct;

/// The whole expansion of `#[kernel]`: the kernel value, or the errors and a fallback item.
/// Never panics on user input.
pub fn expand_kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            // A function whose body does not parse: rustc's parser reports it at its span
            // (it parses the item itself), so a message here would only repeat it. The
            // kernel's name stays defined so that its uses add no errors.
            if let Some(head) = fn_head(item.clone()) {
                return host::fallback(&head, TokenStream::new());
            }
            let mut out = syn::Error::new(
                e.span(),
                "`#[kernel]` goes on a free function: `#[kernel] fn name(..) { .. }`",
            )
            .to_compile_error();
            out.extend(item);
            return out;
        }
    };
    // `#[cfg]`s in the body: rustc decides them first, one predicate at a time (see `cfg`).
    if let Some(pred) = cfg::first_predicate(&func) {
        if attr.to_string() != CLOSURE_ATTR {
            return cfg::split(cfg::Kind::Kernel, pred, attr, &func);
        }
    }
    // The methods of the file's `#[device] impl` blocks are fetched as helpers are.
    let method_callees = func
        .sig
        .ident
        .span()
        .local_file()
        .map(|f| ModuleConsts::of_file(&f).methods.paths())
        .unwrap_or_default();
    if !helpers::callees(&func).is_empty() || !method_callees.is_empty() {
        // Fetch the helpers' source first (see `device`); the kernel compiles at the end.
        return device::start(attr, &func, &method_callees);
    }
    let file = func.sig.ident.span().file();
    emit(attr, &func, &file, &Helpers::default())
}

/// `kernel!(|a: &mut [f32], ..| { .. })`: a closure-shaped kernel, as an expression whose
/// value is the kernel. Every parameter is typed; the scalars the closure captures are
/// fields of the kernel value, passed at each launch.
pub fn expand_kernel_closure(input: TokenStream) -> TokenStream {
    let closure: syn::ExprClosure = match syn::parse2(input) {
        Ok(c) => c,
        Err(e) => {
            return syn::Error::new(
                e.span(),
                "`kernel_closure!` takes a closure with typed parameters: `kernel_closure!(|out: &mut [f32], x: f32| { .. })`",
            )
            .to_compile_error()
        }
    };
    let mut errors = Vec::new();
    // (`move` changes nothing: a closure captures scalars, by value.)
    for (what, present) in [
        ("`async`", closure.asyncness.is_some()),
        ("`static`", closure.movability.is_some()),
        ("`const`", closure.constness.is_some()),
    ] {
        if present {
            errors.push(syn::Error::new_spanned(
                &closure,
                format!("a `kernel_closure!` closure cannot be {what}"),
            ));
        }
    }
    let mut inputs = Vec::new();
    for p in &closure.inputs {
        match p {
            syn::Pat::Type(pt) => inputs.push(pt.clone()),
            other => errors.push(syn::Error::new_spanned(
                other,
                "every parameter of a `kernel_closure!` closure needs a type: `name: T`",
            )),
        }
    }
    if let Some(e) = errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        return e.to_compile_error();
    }
    // Named by where it starts (two closures on one line get two names).
    let start = closure.or1_token.span.start();
    let name = quote::format_ident!(
        "closure_kernel_{}_{}",
        start.line,
        start.column,
        span = closure.or1_token.span
    );
    let output = &closure.output;
    let body = match &*closure.body {
        syn::Expr::Block(b) => b.block.clone(),
        // The expression as the block's value, built, not re-parsed: printed and parsed again,
        // `{ a } | { b }` would be two statements and no valid block.
        other => syn::Block {
            brace_token: syn::token::Brace::default(),
            stmts: vec![syn::Stmt::Expr(other.clone(), None)],
        },
    };
    let func = syn::ItemFn {
        attrs: Vec::new(),
        vis: syn::Visibility::Inherited,
        sig: syn::parse_quote!(fn #name(#(#inputs),*) #output),
        block: Box::new(body),
    };
    let attr = Ident::new(CLOSURE_ATTR, Span::call_site());
    // The items end on the kernel value (holding the captures), the block's value.
    let items = expand_kernel(
        quote::quote!(#attr),
        quote::ToTokens::to_token_stream(&func),
    );
    quote::quote!({ #items })
}

/// The attributes, visibility and signature of a `fn` item whose body may not parse, with an
/// empty body; `None` when the item is not a function.
fn fn_head(item: TokenStream) -> Option<syn::ItemFn> {
    struct Head(syn::ItemFn);
    impl syn::parse::Parse for Head {
        fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
            let attrs = input.call(syn::Attribute::parse_outer)?;
            let vis: syn::Visibility = input.parse()?;
            let sig: syn::Signature = input.parse()?;
            let body: proc_macro2::Group = input.parse()?;
            if body.delimiter() != proc_macro2::Delimiter::Brace || !input.is_empty() {
                return Err(input.error("not a function"));
            }
            Ok(Head(syn::ItemFn {
                attrs,
                vis,
                sig,
                block: Box::new(syn::Block {
                    brace_token: syn::token::Brace::default(),
                    stmts: Vec::new(),
                }),
            }))
        }
    }
    syn::parse2::<Head>(item).ok().map(|h| h.0)
}

/// `ts` in braces: one part of a macro protocol's input.
fn braced(ts: TokenStream) -> TokenTree {
    TokenTree::Group(Group::new(Delimiter::Brace, ts))
}

/// The braced parts of a macro protocol's input.
fn groups(ts: TokenStream) -> Vec<TokenStream> {
    ts.into_iter()
        .filter_map(|t| match t {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => Some(g.stream()),
            _ => None,
        })
        .collect()
}

/// `#[device]`'s expansion.
pub fn expand_device(attr: TokenStream, item: TokenStream) -> TokenStream {
    device::expand_device(attr, item)
}

/// Compiles a kernel whose helpers are at hand and writes its items, or its errors and a
/// fallback item: plain and generic kernels alike. Never panics on user input, and a panic
/// inside cuphase (a bug) becomes an "internal error" diagnostic at the kernel's name.
pub fn emit(attr: TokenStream, func: &syn::ItemFn, file: &str, helpers: &Helpers) -> TokenStream {
    let closure_attr = attr.clone();
    let expanded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        // The integer constants of the kernel's file (none outside a macro's run).
        let consts = func
            .sig
            .ident
            .span()
            .local_file()
            .map(|f| ModuleConsts::of_file(&f))
            .unwrap_or_default();
        if has_type_params(func) {
            return generic::expand(attr, func, file, helpers, &consts);
        }
        // `instances(N = [..])`: one kernel per listed value.
        let has_consts = func
            .sig
            .generics
            .params
            .iter()
            .any(|p| matches!(p, syn::GenericParam::Const(_)));
        if let (true, Ok((rest, Some(lists)))) = (has_consts, instances::split(&attr)) {
            return instances::expand(rest, &lists, func, file, helpers, &consts);
        }
        match compile_with(attr.clone(), func, file, helpers, &consts) {
            Ok(c) => host::write(func, &c, file),
            Err(diags) => fallback(&attr, func, errors(&diags)),
        }
    }));
    expanded.unwrap_or_else(|_| {
        let internal = Diagnostic::new(
            func.sig.ident.span(),
            "internal error in cuphase while compiling this kernel; please report it with the kernel's source",
        );
        fallback(&closure_attr, func, errors(&[internal]))
    })
}

/// The items that stand for a kernel that did not compile (and, for a closure, the value).
fn fallback(attr: &TokenStream, func: &syn::ItemFn, errors: TokenStream) -> TokenStream {
    let items = host::fallback(func, errors);
    if attr.to_string() == CLOSURE_ATTR {
        let name = &func.sig.ident;
        quote::quote!(#items #name)
    } else {
        items
    }
}

/// The `compile_error!`s of diagnostics.
fn errors(diags: &[Diagnostic]) -> TokenStream {
    diags.iter().map(Diagnostic::to_compile_error).collect()
}

#[cfg(test)]
mod tests {
    use crate::pipeline::tests::{panic_in_compile, stop_panicking};

    /// A bug while compiling a generic kernel reaches the user as the internal-error
    /// diagnostic at the kernel, with the fallback item, not as a proc-macro panic.
    #[test]
    fn an_internal_error_in_a_generic_kernel_is_a_diagnostic() {
        let item: proc_macro2::TokenStream = "pub fn scale<T: Float>(out: &mut [T], a: T) { \
             let i = global_idx().x; if i < out.len() as u32 { out[i] = out[i] * a; } }"
            .parse()
            .unwrap_or_default();
        let plain = super::expand_kernel(proc_macro2::TokenStream::new(), item.clone()).to_string();
        assert!(!plain.contains("internal error"), "{plain}");
        assert!(plain.contains("__cuphase_instance_scale"), "{plain}");
        panic_in_compile();
        let out = std::panic::catch_unwind(|| {
            super::expand_kernel(proc_macro2::TokenStream::new(), item.clone()).to_string()
        });
        stop_panicking();
        let out = match out {
            Ok(out) => out,
            Err(_) => String::from("the panic escaped the expansion"),
        };
        assert!(out.contains("compile_error"), "{out}");
        assert!(out.contains("internal error in cuphase"), "{out}");
        // The fallback item keeps the name defined for the rest of the crate.
        assert!(out.contains("struct scale"), "{out}");
    }
}
