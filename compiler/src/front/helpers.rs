//! The helper table: the `#[device]` helpers a kernel reaches, by the paths they are reached
//! by, with their options. `expand::device` fetches their tokens (see there for how);
//! lowering inlines them at each call through [`Helpers::resolve`].

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::collections::HashMap;
use syn::visit::Visit;

/// The prefix of the names under which a helper's module re-exports the helpers it calls.
pub const CALLEE_PREFIX: &str = "__cuphase_callee_";

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
    parser
        .parse2(attr.clone())
        .map_err(|e| crate::front::attr::at_the_input(e, &attr))?;
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
/// associated function such as `f32::max`, or `Some`), not a helper.
pub fn is_builtin(p: &syn::Path) -> bool {
    if p.segments.len() == 1 && p.leading_colon.is_none() {
        let id = p.segments[0].ident.to_string();
        return id == "Some" || super::builtins::BuiltinFn::from_name(&id).is_some();
    }
    let first = p.segments.first().map(|s| s.ident.to_string());
    matches!(first.as_deref(), Some(t) if crate::ir::Scalar::from_rust_name(t).is_some() || t == "half")
        || (first.as_deref() == Some("cuphase")
            && p.segments.iter().nth(1).is_some_and(|s| s.ident == "half"))
}

/// Whether `p` is `Type::f`: an associated function (of a `#[device] impl` block, which the
/// kernel reads from its file), not a free helper to fetch. Types are capitalised, modules
/// are not.
pub fn is_associated(p: &syn::Path) -> bool {
    p.segments.len() >= 2
        && p.segments[p.segments.len() - 2]
            .ident
            .to_string()
            .starts_with(|c: char| c.is_ascii_uppercase())
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
                if p.qself.is_none() && !local && !is_builtin(&p.path) && !is_associated(&p.path) {
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
        // `T::f`: a method of a `#[device] impl` block of the kernel's file, which the kernel
        // fetched by its alias.
        if is_associated(written) && written.segments.len() == 2 {
            let (ty, f) = (&written.segments[0].ident, &written.segments[1].ident);
            return self
                .by_path
                .get(&super::methods::alias(&ty.to_string(), &f.to_string()))
                .copied();
        }
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
    /// Every helper recorded.
    pub fn iter(&self) -> impl Iterator<Item = &Helper> {
        self.fns.iter()
    }

    /// The helper recorded as `i`.
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
pub fn identity(func: &syn::ItemFn) -> String {
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

pub fn identity_eq(a: &syn::ItemFn, id: &str) -> bool {
    identity(a) == id
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

/// The paths the helpers reached so far call, in the order they are fetched: `callee` of the
/// helper at `path` is reached as `path::__cuphase_callee_N`.
pub fn callee_paths(path: &str, func: &syn::ItemFn) -> Vec<String> {
    (0..callees(func).len())
        .map(|i| format!("{path}::{CALLEE_PREFIX}{i}"))
        .collect()
}
