//! Methods of user structs as helpers: the functions of `#[device] impl T { .. }` blocks.
//!
//! A procedural macro cannot leave a `macro_rules!` inside an `impl` block, but `#[device]` on
//! the block can leave items beside it: each method travels as a free helper does (see
//! `expand::device`), made a free function by [`as_helper`] (a receiver `self`, `mut self` or
//! `&self` is a parameter `this: T`; the body's `self` is `this` and `Self` is `T`) and
//! reached by the path [`alias`]`(T, name)` in the block's module. A kernel knows the methods
//! of its own file ([`Methods`], read as its structs are) and fetches them all; `p.dot(q)` of
//! a struct `p` of type `T` is then the helper call `T::dot(p, q)`, and `T::new(x, y)` a call
//! of an associated function.

use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use quote::ToTokens;

/// The path a method of struct `ty` is reached by, beside its `impl` block.
pub fn alias(ty: &str, name: &str) -> String {
    format!("{ty}__{name}")
}

/// One method of a `#[device] impl` block of the kernel's file.
#[derive(Clone, Debug)]
pub struct MethodInfo {
    /// The struct it is a method of.
    pub of: String,
    /// Its name.
    pub name: String,
    /// The receiver is `&mut self`: the method changes a struct variable of the caller.
    pub mut_receiver: bool,
    /// The name of the type it returns, where that is a plain name (`Self` as the struct's).
    pub returns: Option<String>,
}

/// The `#[device] impl` methods of a file (its top level: the paths [`alias`] gives are
/// the file's).
#[derive(Clone, Debug, Default)]
pub struct Methods {
    pub items: Vec<MethodInfo>,
}

impl Methods {
    /// The methods of the top-level `#[device] impl T` blocks of a parsed file.
    pub fn of_file(file: &syn::File) -> Methods {
        let mut m = Methods::default();
        for item in &file.items {
            let syn::Item::Impl(i) = item else {
                continue;
            };
            if i.trait_.is_some() || !i.attrs.iter().any(is_device_attr) {
                continue;
            }
            let syn::Type::Path(tp) = &*i.self_ty else {
                continue;
            };
            let Some(ty) = tp.path.get_ident() else {
                continue;
            };
            for f in &i.items {
                let syn::ImplItem::Fn(f) = f else {
                    continue;
                };
                let mut_receiver = matches!(f.sig.inputs.first(), Some(syn::FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_some());
                let returns = match &f.sig.output {
                    syn::ReturnType::Type(_, t) => match &**t {
                        syn::Type::Path(p) => p.path.get_ident().map(|n| {
                            if n == "Self" {
                                ty.to_string()
                            } else {
                                n.to_string()
                            }
                        }),
                        _ => None,
                    },
                    syn::ReturnType::Default => None,
                };
                m.items.push(MethodInfo {
                    of: ty.to_string(),
                    name: f.sig.ident.to_string(),
                    mut_receiver,
                    returns,
                });
            }
        }
        m
    }

    /// The method `name` of struct `of`.
    pub fn get(&self, of: &str, name: &str) -> Option<&MethodInfo> {
        self.items.iter().find(|m| m.of == of && m.name == name)
    }

    /// The paths of every method, for a kernel of the file to fetch.
    pub fn paths(&self) -> Vec<syn::Path> {
        let mut seen: Vec<String> = Vec::new();
        let mut out = Vec::new();
        for m in &self.items {
            let a = alias(&m.of, &m.name);
            if seen.contains(&a) {
                continue;
            }
            if let Ok(p) = syn::parse_str::<syn::Path>(&a) {
                out.push(p);
            }
            seen.push(a);
        }
        out
    }
}

/// `#[device]` or `#[cuphase::device]`, with or without options.
fn is_device_attr(a: &syn::Attribute) -> bool {
    a.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "device")
}

/// Method `f` of struct `ty` as a free function (spans kept). `None` for a signature that
/// does not survive the change (reported by rustc on the `impl` itself).
pub fn as_helper(ty: &Ident, f: &syn::ImplItemFn) -> Option<syn::ItemFn> {
    let mut sig = f.sig.clone();
    let inputs: Vec<syn::FnArg> = sig
        .inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Receiver(r) => {
                let this = Ident::new("this", r.self_token.span);
                match (&r.reference, r.mutability) {
                    // `&mut self`: the caller's struct variable.
                    (Some(_), Some(_)) => syn::parse_quote!(#this: &mut #ty),
                    (None, Some(_)) => syn::parse_quote!(mut #this: #ty),
                    _ => syn::parse_quote!(#this: #ty),
                }
            }
            other => other.clone(),
        })
        .collect();
    sig.inputs = inputs.into_iter().collect();
    let sig: syn::Signature = syn::parse2(rename(sig.to_token_stream(), ty)).ok()?;
    let block: syn::Block = syn::parse2(rename(f.block.to_token_stream(), ty)).ok()?;
    Some(syn::ItemFn {
        attrs: Vec::new(),
        vis: syn::Visibility::Inherited,
        sig,
        block: Box::new(block),
    })
}

/// `self` as `this` and `Self` as `ty`, keeping each token's span (a path `self::x` stays).
fn rename(ts: TokenStream, ty: &Ident) -> TokenStream {
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    let path_follows =
        |i: usize| matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
    tokens
        .iter()
        .enumerate()
        .map(|(at, t)| match t {
            TokenTree::Ident(i) if i == "self" && !path_follows(at) => {
                TokenTree::Ident(Ident::new("this", i.span()))
            }
            TokenTree::Ident(i) if i == "Self" => {
                TokenTree::Ident(Ident::new(&ty.to_string(), i.span()))
            }
            TokenTree::Group(g) => {
                let mut n = Group::new(g.delimiter(), rename(g.stream(), ty));
                n.set_span(g.span());
                TokenTree::Group(n)
            }
            other => other.clone(),
        })
        .collect()
}
