//! `#[device]` helpers: how a kernel gets the source of the helpers it calls.
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
//! Helpers are visible in their whole crate (`pub(crate)`); a `macro_rules!` macro made by a
//! macro cannot be re-exported across crates.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use std::collections::HashMap;
use syn::visit::Visit;

/// Functions the kernel language defines itself; a call of any other path is a helper call.
pub const BUILTIN_FNS: &[&str] = &[
    "thread_idx",
    "block_idx",
    "block_dim",
    "grid_dim",
    "global_idx",
    "lane_id",
    "warp_size",
    "sync_block_threads",
    "sync_warp",
    "shared",
    "shared_slice",
    "uniform_load",
    "assume_uniform",
    "threads_in_block",
    "blocks_in_grid",
    "threads_in_grid",
    "fence_block",
    "fence_device",
    "fence_system",
    "warp_shuffle",
    "warp_shuffle_xor",
    "warp_shuffle_up",
    "warp_shuffle_down",
    "warp_ballot",
    "warp_all",
    "warp_any",
];

/// The prefix of the names under which a helper's module re-exports the helpers it calls.
const CALLEE_PREFIX: &str = "__cuphase_callee_";

/// Options of `#[device(...)]`.
#[derive(Clone, Copy, Debug)]
pub struct DeviceOptions {
    /// End with a barrier when the helper writes shared memory (default `true`).
    pub trailing_sync: bool,
}

impl Default for DeviceOptions {
    fn default() -> Self {
        DeviceOptions {
            trailing_sync: true,
        }
    }
}

/// Parses `#[device(...)]`'s arguments.
pub fn parse_device_attr(attr: TokenStream) -> syn::Result<DeviceOptions> {
    use syn::parse::Parser;
    let mut options = DeviceOptions::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("trailing_sync") {
            let lit: syn::LitBool = meta.value()?.parse()?;
            options.trailing_sync = lit.value;
            Ok(())
        } else {
            Err(meta
                .error("unknown `#[device]` option; the option is `trailing_sync = true | false`"))
        }
    });
    parser.parse2(attr)?;
    Ok(options)
}

/// The text of a path, for lookups (`a::b`, `crate::m::h`).
pub fn path_key(p: &syn::Path) -> String {
    let mut s = String::new();
    if p.leading_colon.is_some() {
        s.push_str("::");
    }
    for (i, seg) in p.segments.iter().enumerate() {
        if i > 0 {
            s.push_str("::");
        }
        s.push_str(&seg.ident.to_string());
    }
    s
}

/// Whether a call of `p` is one of the language's own functions (or a scalar type's
/// associated function such as `f32::max`), not a helper.
pub fn is_builtin(p: &syn::Path) -> bool {
    if p.segments.len() == 1 && p.leading_colon.is_none() {
        let id = p.segments[0].ident.to_string();
        return BUILTIN_FNS.contains(&id.as_str());
    }
    let first = p.segments.first().map(|s| s.ident.to_string());
    matches!(first.as_deref(), Some(t) if crate::ir::Scalar::from_rust_name(t).is_some() || t == "half")
        || (first.as_deref() == Some("cuphase")
            && p.segments.iter().nth(1).is_some_and(|s| s.ident == "half"))
}

/// The paths of the helpers a function calls, in order of first appearance, each once.
/// Calls of names the function binds itself (local closures) are not helper calls.
pub fn callees(func: &syn::ItemFn) -> Vec<syn::Path> {
    struct Bound(std::collections::HashSet<String>);
    impl<'a> Visit<'a> for Bound {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    struct Calls<'b> {
        bound: &'b std::collections::HashSet<String>,
        out: Vec<syn::Path>,
    }
    impl<'a> Visit<'a> for Calls<'_> {
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func {
                let local = p
                    .path
                    .get_ident()
                    .is_some_and(|i| self.bound.contains(&i.to_string()));
                if p.qself.is_none() && !local && !is_builtin(&p.path) {
                    let key = path_key(&p.path);
                    if !self.out.iter().any(|q| path_key(q) == key) {
                        self.out.push(p.path.clone());
                    }
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            // `assert!(h(x) > 0)`: the arguments are expressions.
            use syn::punctuated::Punctuated;
            if let Ok(args) =
                m.parse_body_with(Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
            {
                for a in &args {
                    self.visit_expr(a);
                }
            }
        }
    }
    let mut bound = Bound(Default::default());
    bound.visit_item_fn(func);
    let mut calls = Calls {
        bound: &bound.0,
        out: Vec::new(),
    };
    calls.visit_block(&func.block);
    calls.out
}

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
    let func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let mut out = syn::Error::new(
                e.span(),
                "`#[device]` goes on a free function: `#[device] fn name(..) -> T { .. }`",
            )
            .to_compile_error();
            out.extend(item);
            return out;
        }
    };
    if let Err(e) = parse_device_attr(attr.clone()) {
        return e.to_compile_error();
    }
    let name = &func.sig.ident;
    let mac = format_ident!("__cuphase_device_{}", name);
    let called = callees(&func);
    let callee_uses = called.iter().enumerate().map(|(i, p)| {
        let alias = format_ident!("{CALLEE_PREFIX}{i}");
        let target = from_child_module(p);
        quote!(pub(crate) use #target as #alias;)
    });
    let doc = format!(
        "`#[device]` helper `{name}`: inlined into the kernels that call it; not callable from host code."
    );
    quote! {
        #[doc(hidden)]
        macro_rules! #mac {
            ($($state:tt)*) => {
                ::cuphase::__private::kernel_continue! { { (#attr) #func } $($state)* }
            };
        }
        #[doc = #doc]
        #[allow(unused_imports)]
        pub(crate) use #mac as #name;
        #[doc(hidden)]
        #[allow(non_snake_case, unused_imports)]
        pub(crate) mod #name {
            #(#callee_uses)*
        }
    }
}

/// One helper a kernel reaches.
#[derive(Clone)]
pub struct Helper {
    /// The helper's item.
    pub func: syn::ItemFn,
    /// Its `#[device(...)]` options.
    pub options: DeviceOptions,
    /// The path it was first reached by, from the kernel's module.
    pub path: String,
    /// The helpers it calls, as written in its body, in [`callees`] order.
    pub callees: Vec<String>,
}

/// Every helper a kernel reaches, by the paths it is reached by.
#[derive(Clone, Default)]
pub struct Helpers {
    fns: Vec<Helper>,
    by_path: HashMap<String, usize>,
}

impl Helpers {
    /// Records helper `func` reached by `path`; returns whether it was new (reached by no other
    /// path before: the same item reached twice is recorded once).
    pub fn add(&mut self, path: String, options: DeviceOptions, func: syn::ItemFn) -> bool {
        let identity = identity(&func);
        if let Some(i) = self
            .fns
            .iter()
            .position(|h| identity_eq(&h.func, &identity))
        {
            self.by_path.insert(path, i);
            return false;
        }
        let callees = callees(&func).iter().map(path_key).collect();
        self.by_path.insert(path.clone(), self.fns.len());
        self.fns.push(Helper {
            func,
            options,
            path,
            callees,
        });
        true
    }
    /// The helper a call of `written` refers to, from the kernel (`from == None`) or from the
    /// body of helper `from`.
    pub fn resolve(&self, from: Option<usize>, written: &syn::Path) -> Option<usize> {
        let key = path_key(written);
        match from {
            None => self.by_path.get(&key).copied(),
            Some(h) => {
                let caller = self.fns.get(h)?;
                let i = caller.callees.iter().position(|c| *c == key)?;
                self.by_path
                    .get(&format!("{}::{CALLEE_PREFIX}{i}", caller.path))
                    .copied()
            }
        }
    }
    /// Helper `i`.
    pub fn get(&self, i: usize) -> Option<&Helper> {
        self.fns.get(i)
    }
    /// Whether no helper was recorded.
    pub fn is_empty(&self) -> bool {
        self.fns.is_empty()
    }
}

/// What identifies a helper item however it is reached: its name, where it is written, and
/// its tokens.
fn identity(func: &syn::ItemFn) -> String {
    let span = func.sig.ident.span();
    let start = span.start();
    format!(
        "{}@{}:{}:{}#{}",
        func.sig.ident,
        span.file(),
        start.line,
        start.column,
        func.to_token_stream()
    )
}

fn identity_eq(a: &syn::ItemFn, id: &str) -> bool {
    identity(a) == id
}

/// The paths the helpers reached so far call, in the order they are fetched: `callee` of the
/// helper at `path` is reached as `path::__cuphase_callee_N`.
fn callee_paths(path: &str, func: &syn::ItemFn) -> Vec<String> {
    (0..callees(func).len())
        .map(|i| format!("{path}::{CALLEE_PREFIX}{i}"))
        .collect()
}

/// The kernel's state while its helpers are fetched.
struct State {
    kernel_attr: TokenStream,
    kernel: TokenStream,
    queue: Vec<String>,
    done: Vec<(String, TokenStream, TokenStream)>,
}

fn braced(ts: TokenStream) -> TokenTree {
    TokenTree::Group(Group::new(Delimiter::Brace, ts))
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

fn groups(ts: TokenStream) -> Vec<TokenStream> {
    ts.into_iter()
        .filter_map(|t| match t {
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => Some(g.stream()),
            _ => None,
        })
        .collect()
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
        return crate::expand_compiled(state.kernel_attr, &func, &file, &helpers);
    }
    let next = state.queue.remove(0);
    let path = path_tokens(&next);
    let st = state.to_tokens(&next);
    quote!(#path! { #st })
}

/// The first expansion of a kernel that calls helpers: fetch the first one.
pub fn start(attr: TokenStream, func: &syn::ItemFn) -> TokenStream {
    let queue = callees(func).iter().map(path_key).collect();
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

/// Collects the helpers of a kernel from source text, for tests and tools: `sources` are
/// `#[device]` items (with their attribute), found by their name whatever path calls them.
pub fn collect_from_sources(func: &syn::ItemFn, sources: &[&str]) -> Result<Helpers, syn::Error> {
    let mut items = Vec::new();
    for src in sources {
        items.push(syn::parse_str::<syn::ItemFn>(src)?);
    }
    collect_from_items(func, &items)
}

/// Collects the helpers of a kernel from `#[device]` items (with their attribute), found by
/// their name whatever path calls them; for tests and tools that have no macro expansion.
pub fn collect_from_items(
    func: &syn::ItemFn,
    items: &[syn::ItemFn],
) -> Result<Helpers, syn::Error> {
    let mut by_name = HashMap::new();
    for f in items {
        let mut attr = TokenStream::new();
        for a in &f.attrs {
            if a.path().is_ident("device") {
                if let syn::Meta::List(l) = &a.meta {
                    attr = l.tokens.clone();
                }
            }
        }
        let mut f2 = f.clone();
        f2.attrs.retain(|a| !a.path().is_ident("device"));
        by_name.insert(f.sig.ident.to_string(), (parse_device_attr(attr)?, f2));
    }
    let mut helpers = Helpers::default();
    let mut queue: Vec<(String, String)> = callees(func)
        .iter()
        .map(|p| (path_key(p), path_key(p)))
        .collect();
    while !queue.is_empty() {
        let (path, written) = queue.remove(0);
        let name = written.rsplit("::").next().unwrap_or_default().to_string();
        let Some((options, f)) = by_name.get(&name) else {
            continue;
        };
        if helpers.add(path.clone(), *options, f.clone()) {
            for (i, c) in callees(f).iter().enumerate() {
                queue.push((format!("{path}::{CALLEE_PREFIX}{i}"), path_key(c)));
            }
        }
    }
    Ok(helpers)
}
