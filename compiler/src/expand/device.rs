//! `#[device]`'s expansion, and how a kernel gets the source of the helpers it calls.
//!
//! A procedural macro sees only the item it is attached to, so `#[kernel]` cannot read the
//! body of a helper defined elsewhere. `#[device] fn h` therefore expands to a `macro_rules!`
//! macro named `h` that hands the helper's tokens to a continuation, and to a hidden module
//! also named `h` (modules and macros live in different namespaces) that re-exports the
//! helpers `h` itself calls. A kernel that calls helpers expands to an invocation of its first
//! helper's macro with the kernel's tokens as the state; [`expand_continue`] records the helper
//! that arrives, queues the helpers *it* calls (reached as `h::__cuphase_callee_N`, so that
//! they resolve where `h` was written, not where the kernel is) and fetches the next one. With
//! the queue empty, the kernel is compiled with every helper at hand and the helpers are
//! inlined at their calls, so the barrier analyses see through calls exactly.
//!
//! Name resolution is rustc's: a helper is found by the path the caller wrote, through `use`
//! imports and modules, and an unknown name is rustc's "cannot find macro" error at the call.
//! The helper's macro is exported from its crate (under a hidden name unique there) and
//! re-exported where the helper is written, so a kernel in another crate calls a `pub` helper
//! by its path (`cuphase_blocks::block_reduce_sum(..)`) and the fetch goes on through the
//! helper's own crate: libraries of helpers work across crates.

use super::{braced, groups};
use crate::front::helpers::{
    callee_paths, callees, identity, identity_eq, parse_device_attr, path_key, Helpers,
    CALLEE_PREFIX,
};
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};

/// `path` as written inside a helper's module, made to resolve from the hidden module of the
/// same name one level down.
fn from_child_module(path: &syn::Path) -> TokenStream {
    let first = path.segments.first().map(|s| s.ident.to_string());
    let segs: Vec<&syn::Ident> = path.segments.iter().map(|s| &s.ident).collect();
    if path.leading_colon.is_some() || first.as_deref() == Some("crate") {
        return path.to_token_stream();
    }
    if first.as_deref() == Some("self") {
        let rest = &segs[1..];
        return quote!(super #(:: #rest)*);
    }
    quote!(super #(:: #segs)*)
}

/// What `#[device]` expands to. Never panics; a malformed item is reported at its span.
pub fn expand_device(attr: TokenStream, item: TokenStream) -> TokenStream {
    // `#[device] impl T { .. }`: the block as written (its methods are host Rust too), and
    // beside it each method as a helper reached by its alias (see `front::methods`).
    if let Ok(block) = syn::parse2::<syn::ItemImpl>(item.clone()) {
        return expand_device_impl(attr, &block, item);
    }
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let mut out = syn::Error::new(
                e.span(),
                "`#[device]` goes on a free function (`#[device] fn name(..) -> T { .. }`) or on an `impl` block of a `DeviceStruct` struct",
            )
            .to_compile_error();
            out.extend(item);
            return out;
        }
    };
    if let Err(e) = parse_device_attr(attr.clone()) {
        return e.to_compile_error();
    }
    if let Some(pred) = super::cfg::first_predicate(&func) {
        return super::cfg::split(super::cfg::Kind::Device, pred, attr, &func);
    }
    let mut out = helper_items(&attr, &func, &func.sig.ident);
    out.extend(doc_stub(&func));
    out
}

/// The helper as a Rust function in the value namespace (the macro and module that carry it
/// are in the other two), so that rustdoc and editors show its signature and docs like any
/// function's. Like the builtins of `cuphase::lang`, its body only panics: host code that
/// calls it is told that helpers run in kernels. cuphase's bounds are written as paths
/// (`::cuphase::Num`), so the stub needs no import the kernel language does not.
fn doc_stub(func: &syn::ItemFn) -> TokenStream {
    let mut sig = func.sig.clone();
    for p in sig.generics.params.iter_mut() {
        if let syn::GenericParam::Type(t) = p {
            for b in t.bounds.iter_mut() {
                if let syn::TypeParamBound::Trait(tb) = b {
                    if let Some(id) = tb.path.get_ident() {
                        if cuphase_contract::Bound::from_name(&id.to_string()).is_some() {
                            tb.path = syn::parse_quote!(::cuphase::#id);
                        }
                    }
                }
            }
        }
    }
    let docs = func.attrs.iter().filter(|a| a.path().is_ident("doc"));
    let vis = &func.vis;
    let message = format!(
        "`{}` is a `#[device]` helper: it runs inside kernels, which cuphase compiles; host code cannot call it",
        func.sig.ident
    );
    quote! {
        #(#docs)*
        ///
        /// A `#[device]` helper: kernels call it (it is inlined at each call, and the barrier
        /// analyses see through it); host code cannot.
        #[allow(dead_code, unused_variables, unused_mut, clippy::too_many_arguments)]
        #vis #sig {
            ::core::unreachable!(#message)
        }
    }
}

/// `#[device] impl T { .. }`: the block, then each method's helper items under its alias.
fn expand_device_impl(attr: TokenStream, block: &syn::ItemImpl, item: TokenStream) -> TokenStream {
    if let Err(e) = parse_device_attr(attr.clone()) {
        return e.to_compile_error();
    }
    let ty = match (&block.trait_, &*block.self_ty) {
        (None, syn::Type::Path(p))
            if p.path.get_ident().is_some() && block.generics.params.is_empty() =>
        {
            p.path.get_ident().cloned()
        }
        _ => None,
    };
    let Some(ty) = ty else {
        let mut out = syn::Error::new_spanned(
            &block.self_ty,
            "`#[device]` goes on an inherent `impl T { .. }` block of a `DeviceStruct` struct, without generics",
        )
        .to_compile_error();
        out.extend(item);
        return out;
    };
    let mut out = item;
    for f in &block.items {
        let syn::ImplItem::Fn(f) = f else {
            continue;
        };
        let Some(func) = crate::front::methods::as_helper(&ty, f) else {
            continue;
        };
        let alias = syn::Ident::new(
            &crate::front::methods::alias(&ty.to_string(), &f.sig.ident.to_string()),
            f.sig.ident.span(),
        );
        out.extend(helper_items(&attr, &func, &alias));
    }
    out
}

/// The items that carry helper `func` to the kernels that call it by `name`: a macro that
/// hands its tokens on, and a module of the helpers it calls.
///
/// The macro is `#[macro_export]`ed under a name unique in its crate, and `name` is a `pub use`
/// of it, so that kernels in other crates reach a helper by its path like any item
/// (`blocks::block_reduce_sum(..)`); the module's re-exports are public for the same reason.
/// Both are hidden from the docs; the helper's documentation is its stub (`doc_stub`).
fn helper_items(attr: &TokenStream, func: &syn::ItemFn, name: &syn::Ident) -> TokenStream {
    let mac = format_ident!("__cuphase_device_{}_{:016x}", name, unique(func, name));
    let called = callees(func);
    let callee_uses = called.iter().enumerate().map(|(i, p)| {
        let alias = format_ident!("{CALLEE_PREFIX}{i}");
        let target = from_child_module(p);
        quote!(pub use #target as #alias;)
    });
    quote! {
        #[doc(hidden)]
        #[macro_export]
        #[allow(non_local_definitions)]
        macro_rules! #mac {
            ($($state:tt)*) => {
                ::cuphase::__private::kernel_continue! { { (#attr) #func } $($state)* }
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub use #mac as #name;
        #[doc(hidden)]
        #[allow(non_snake_case, unused_imports)]
        pub mod #name {
            #(#callee_uses)*
        }
    }
}

/// A number that tells this helper's exported macro from every other in its crate (they all
/// live at the crate's root): from where the helper is written and what it is.
fn unique(func: &syn::ItemFn, name: &syn::Ident) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let span = name.span();
    span.file().hash(&mut h);
    let start = span.start();
    (start.line, start.column).hash(&mut h);
    name.to_string().hash(&mut h);
    func.to_token_stream().to_string().hash(&mut h);
    h.finish()
}

/// The kernel's state while its helpers are fetched.
struct State {
    kernel_attr: TokenStream,
    kernel: TokenStream,
    queue: Vec<String>,
    done: Vec<(String, TokenStream, TokenStream)>,
}

impl State {
    fn to_tokens(&self, fetching: &str) -> TokenStream {
        let mut out = TokenStream::new();
        out.extend([
            braced(self.kernel_attr.clone()),
            braced(self.kernel.clone()),
        ]);
        out.extend([braced(path_tokens(fetching))]);
        let queue: Vec<TokenStream> = self.queue.iter().map(|p| path_tokens(p)).collect();
        out.extend([braced(quote!(#(#queue);*))]);
        let mut done = TokenStream::new();
        for (path, attr, func) in &self.done {
            done.extend([
                braced(path_tokens(path)),
                braced(attr.clone()),
                braced(func.clone()),
            ]);
        }
        out.extend([braced(done)]);
        out
    }
}

fn path_tokens(p: &str) -> TokenStream {
    syn::parse_str::<syn::Path>(p)
        .map(|p| p.to_token_stream())
        .unwrap_or_default()
}

/// Step of the fetch: ask for the next helper, or compile the kernel with all of them.
fn step(state: State, file_of: impl Fn(&syn::ItemFn) -> String) -> TokenStream {
    let mut state = state;
    if state.queue.is_empty() {
        let func: syn::ItemFn = match syn::parse2(state.kernel.clone()) {
            Ok(f) => f,
            Err(e) => return e.to_compile_error(),
        };
        let mut helpers = Helpers::default();
        for (path, attr, item) in &state.done {
            let options = match parse_device_attr(attr.clone()) {
                Ok(o) => o,
                Err(e) => return e.to_compile_error(),
            };
            match syn::parse2::<syn::ItemFn>(item.clone()) {
                Ok(f) => {
                    helpers.add(path.clone(), options, f);
                }
                Err(e) => return e.to_compile_error(),
            }
        }
        let file = file_of(&func);
        return super::emit(state.kernel_attr, &func, &file, &helpers);
    }
    let next = state.queue.remove(0);
    // A helper that does not exist is rustc's "cannot find macro" error at this path: shown at
    // the first call of it (resolved as before, at the call site of this expansion).
    let at = first_call(&next, &state.kernel).or_else(|| {
        state
            .done
            .iter()
            .find_map(|(_, _, item)| first_call(&next, item))
    });
    let path: TokenStream = match at {
        Some(at) => path_tokens(&next)
            .into_iter()
            .map(|mut t| {
                t.set_span(Span::call_site().located_at(at));
                t
            })
            .collect(),
        None => path_tokens(&next),
    };
    let st = state.to_tokens(&next);
    quote!(#path! { #st })
}

/// The span of the first call of the helper `path` in `tokens`: its last segment followed by
/// its arguments or a turbofish.
fn first_call(path: &str, tokens: &TokenStream) -> Option<Span> {
    let name = path.rsplit("::").next()?.trim();
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, t) in trees.iter().enumerate() {
        match t {
            TokenTree::Ident(id) if id == name => {
                let called = match trees.get(i + 1) {
                    Some(TokenTree::Group(g)) => g.delimiter() == Delimiter::Parenthesis,
                    Some(TokenTree::Punct(p)) => p.as_char() == ':',
                    _ => false,
                };
                if called {
                    return Some(id.span());
                }
            }
            TokenTree::Group(g) => {
                if let Some(s) = first_call(path, &g.stream()) {
                    return Some(s);
                }
            }
            _ => {}
        }
    }
    None
}

/// The first expansion of a kernel that calls helpers: fetch the first one.
pub fn start(attr: TokenStream, func: &syn::ItemFn, also: &[syn::Path]) -> TokenStream {
    let mut queue: Vec<String> = callees(func).iter().map(path_key).collect();
    for p in also {
        let key = path_key(p);
        if !queue.contains(&key) {
            queue.push(key);
        }
    }
    step(
        State {
            kernel_attr: attr,
            kernel: func.to_token_stream(),
            queue,
            done: Vec::new(),
        },
        |f| f.sig.ident.span().file(),
    )
}

/// `kernel_continue!`: a helper's tokens have arrived; record them and go on.
pub fn expand_continue(input: TokenStream) -> TokenStream {
    let parts = groups(input);
    let [helper, kernel_attr, kernel, fetching, queue, done] = parts.as_slice() else {
        return syn::Error::new(
            Span::call_site(),
            "`kernel_continue!` is cuphase's internal protocol; it is not called directly",
        )
        .to_compile_error();
    };
    // The helper: `(attr) fn ...`.
    let mut it = helper.clone().into_iter();
    let dattr = match it.next() {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => g.stream(),
        _ => TokenStream::new(),
    };
    let dfunc: TokenStream = it.collect();
    let fetching = match syn::parse2::<syn::Path>(fetching.clone()) {
        Ok(p) => path_key(&p),
        Err(e) => return e.to_compile_error(),
    };
    let mut queue_paths = Vec::new();
    for p in queue.to_string().split(';') {
        let p = p.trim();
        if !p.is_empty() {
            match syn::parse_str::<syn::Path>(p) {
                Ok(p) => queue_paths.push(path_key(&p)),
                Err(e) => return e.to_compile_error(),
            }
        }
    }
    let done_parts = groups(done.clone());
    let mut done_list = Vec::new();
    for c in done_parts.chunks(3) {
        if let [p, a, f] = c {
            let key = match syn::parse2::<syn::Path>(p.clone()) {
                Ok(p) => path_key(&p),
                Err(e) => return e.to_compile_error(),
            };
            done_list.push((key, a.clone(), f.clone()));
        }
    }
    // A helper already reached by another path adds no new callees (this also ends the fetch
    // of recursive helpers; the recursion itself is reported where it is inlined).
    let parsed: syn::ItemFn = match syn::parse2(dfunc.clone()) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error(),
    };
    let id = identity(&parsed);
    let seen = done_list
        .iter()
        .any(|(_, _, f)| syn::parse2::<syn::ItemFn>(f.clone()).is_ok_and(|f| identity_eq(&f, &id)));
    if !seen {
        queue_paths.extend(callee_paths(&fetching, &parsed));
    }
    done_list.push((fetching, dattr, dfunc));
    step(
        State {
            kernel_attr: kernel_attr.clone(),
            kernel: kernel.clone(),
            queue: queue_paths,
            done: done_list,
        },
        |f| f.sig.ident.span().file(),
    )
}
