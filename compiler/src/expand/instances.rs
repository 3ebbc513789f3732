//! A kernel with const parameters and a list of their values,
//! `#[kernel(instances(N = [64, 128, 256]))]`: every value (every combination, for several
//! parameters) is a kernel of its own, compiled with the value written in. So the analyses
//! prove each instance with its value, its thread-local and shared arrays may be sized by it,
//! and the CUDA C has it as a literal; `k::<128>` is that instance (`k_128` in the CUDA C),
//! and a value not in the list is a compile error where it is used (`k<100>` has no
//! `launch`).

use crate::diag::Diagnostic;
use crate::front::generics::{substitute, GenericArg, MAX_INSTANCES};
use crate::front::helpers::Helpers;
use crate::ir::{Scalar, Span};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};
use std::collections::HashMap;

/// The values listed for one const parameter.
struct Listed {
    name: Ident,
    ty: Scalar,
    values: Vec<i128>,
}

/// Splits `instances(..)` off the kernel's attribute: the other options, and the lists (`None`
/// when the attribute has none).
pub fn split(attr: &TokenStream) -> syn::Result<(TokenStream, Option<Vec<syn::MetaNameValue>>)> {
    use syn::punctuated::Punctuated;
    let metas = syn::parse::Parser::parse2(
        Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        attr.clone(),
    )?;
    let mut rest = Vec::new();
    let mut lists = None;
    for m in metas {
        match &m {
            syn::Meta::List(l) if l.path.is_ident("instances") => {
                let named = l.parse_args_with(
                    Punctuated::<syn::MetaNameValue, syn::Token![,]>::parse_terminated,
                )?;
                lists = Some(named.into_iter().collect());
            }
            _ => rest.push(m),
        }
    }
    Ok((quote!(#(#rest),*), lists))
}

/// The value of a listed literal (`64`, `-3`, `true`).
fn value_of(e: &syn::Expr, ty: Scalar) -> Option<i128> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) if ty != Scalar::Bool => i.base10_parse::<i128>().ok(),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Bool(b),
            ..
        }) if ty == Scalar::Bool => Some(i128::from(b.value)),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            value_of(&u.expr, ty).map(|v| -v)
        }
        _ => None,
    }
    .filter(|v| ty == Scalar::Bool || ty.holds_int(*v))
}

/// The const parameters with their lists, or the errors.
fn listed(
    func: &syn::ItemFn,
    lists: &[syn::MetaNameValue],
) -> Result<Vec<Listed>, Vec<Diagnostic>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for p in &func.sig.generics.params {
        let syn::GenericParam::Const(c) = p else {
            errors.push(Diagnostic::new(
                Span::of(p),
                "a kernel with `instances(..)` takes const parameters only",
            ));
            continue;
        };
        let Some(ty) = crate::front::generics::const_type(&c.ty) else {
            errors.push(Diagnostic::new(
                Span::of(&c.ty),
                "a const parameter of a kernel is an integer or a `bool`",
            ));
            continue;
        };
        let Some(list) = lists.iter().find(|l| l.path.is_ident(&c.ident)) else {
            errors.push(Diagnostic::new(
                Span::of(&c.ident),
                format!(
                    "`instances(..)` lists no values for `{}`: add `{} = [..]`",
                    c.ident, c.ident
                ),
            ));
            continue;
        };
        let syn::Expr::Array(a) = &list.value else {
            errors.push(Diagnostic::new(
                Span::of(&list.value),
                format!(
                    "the values of `{}` are a list of literals: `{} = [64, 128]`",
                    c.ident, c.ident
                ),
            ));
            continue;
        };
        let mut values = Vec::new();
        for e in &a.elems {
            match value_of(e, ty) {
                Some(v) if !values.contains(&v) => values.push(v),
                Some(_) => errors.push(Diagnostic::new(Span::of(e), "this value is listed twice")),
                None => errors.push(Diagnostic::new(
                    Span::of(e),
                    format!("not a literal of `{}`'s type `{}`", c.ident, ty.rust_name()),
                )),
            }
        }
        if values.is_empty() && a.elems.is_empty() {
            errors.push(Diagnostic::new(Span::of(a), "list at least one value"));
        }
        out.push(Listed {
            name: c.ident.clone(),
            ty,
            values,
        });
    }
    for l in lists {
        if !out.iter().any(|p| l.path.is_ident(&p.name)) {
            errors.push(Diagnostic::new(
                Span::of(&l.path),
                "`instances(..)` names a parameter the kernel does not have",
            ));
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Every combination of the listed values, the first parameter's slowest.
fn combinations(params: &[Listed]) -> Vec<Vec<i128>> {
    params.iter().fold(vec![Vec::new()], |acc, p| {
        acc.iter()
            .flat_map(|c| {
                p.values.iter().map(move |v| {
                    let mut c = c.clone();
                    c.push(*v);
                    c
                })
            })
            .collect()
    })
}

/// A value as Rust writes it: `64`, `-3`, `true`.
fn value_text(v: i128, ty: Scalar) -> String {
    match ty {
        Scalar::Bool => (v != 0).to_string(),
        _ => v.to_string(),
    }
}

/// A value as part of an identifier: `64`, `m3`, `true`.
fn ident_part(v: i128, ty: Scalar) -> String {
    match (ty, v) {
        (Scalar::Bool, v) => (v != 0).to_string(),
        (_, v) if v < 0 => format!("m{}", v.unsigned_abs()),
        (_, v) => v.to_string(),
    }
}

/// Expands the kernel: every instance, and the kernel value `k<const N: u32>` whose
/// `k::<64>` launches the instance of 64.
pub fn expand(
    attr: TokenStream,
    lists: &[syn::MetaNameValue],
    func: &syn::ItemFn,
    file: &str,
    helpers: &Helpers,
    consts: &crate::front::consts::ModuleConsts,
) -> TokenStream {
    let name = &func.sig.ident;
    let vis = &func.vis;
    let generics = &func.sig.generics;
    let kernel_value = quote! {
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #name #generics;
    };
    let fail = |diags: Vec<Diagnostic>| -> TokenStream {
        let mut out: TokenStream = diags.iter().map(Diagnostic::to_compile_error).collect();
        out.extend(kernel_value.clone());
        out
    };
    let params = match listed(func, lists) {
        Ok(p) => p,
        Err(d) => return fail(d),
    };
    let all = combinations(&params);
    if all.len() > MAX_INSTANCES {
        return fail(vec![Diagnostic::new(
            Span::of(generics),
            format!(
                "these lists make {} instances of the kernel (at most {MAX_INSTANCES})",
                all.len()
            ),
        )]);
    }
    let (launch_params, arg_names) = match super::generic::forwarded(func) {
        Ok(p) => p,
        Err(d) => return fail(vec![d]),
    };
    let mut items = TokenStream::new();
    for values in &all {
        let map: HashMap<String, GenericArg> = params
            .iter()
            .zip(values)
            .map(|(p, v)| (p.name.to_string(), GenericArg::Const(*v, p.ty)))
            .collect();
        let parts: Vec<String> = params
            .iter()
            .zip(values)
            .map(|(p, v)| ident_part(*v, p.ty))
            .collect();
        let inst_name = format_ident!("{}_{}", name, parts.join("_"), span = name.span());
        let inst = match super::generic::instance_fn(func, &inst_name, &map) {
            Ok(f) => f,
            Err(e) => return e.to_compile_error(),
        };
        match crate::pipeline::compile_with(attr.clone(), &inst, file, helpers, consts) {
            Ok(c) => items.extend(super::host::write(&inst, &c, file)),
            Err(diags) => {
                let what: Vec<String> = params
                    .iter()
                    .zip(values)
                    .map(|(p, v)| format!("{} = {}", p.name, value_text(*v, p.ty)))
                    .collect();
                let diags = diags
                    .into_iter()
                    .map(|d| {
                        d.note(format!(
                            "in the instance of `{name}` with {}",
                            what.join(", ")
                        ))
                    })
                    .collect();
                return fail(diags);
            }
        }
        let args: Vec<TokenStream> = params
            .iter()
            .map(|p| {
                let t = substitute(p.name.to_token_stream(), &map);
                quote!({ #t })
            })
            .collect();
        let params_here: Vec<TokenStream> = launch_params
            .iter()
            .map(|p| substitute(p.clone(), &map))
            .collect();
        items.extend(quote! {
            impl #name<#(#args),*> {
                /// Launches this instance (see the kernel's other instances in its docs).
                #[allow(clippy::too_many_arguments)]
                pub fn launch(
                    &self,
                    __target: &impl ::cuphase::LaunchTarget,
                    __launch: ::cuphase::Launch,
                    #(#params_here),*
                ) -> ::core::result::Result<(), ::cuphase::Error> {
                    #inst_name.launch(__target, __launch, #(#arg_names),*)
                }

                /// The CUDA C of this instance.
                pub fn cuda_source(&self) -> &'static str {
                    #inst_name.cuda_source()
                }

                /// The barrier report of this instance.
                pub fn report(&self) -> &'static str {
                    #inst_name.report()
                }

                /// This instance's name in its CUDA C (`k_128`).
                pub fn name(&self) -> &'static str {
                    #inst_name.name()
                }
            }
        });
    }
    let docs = func.attrs.iter().filter(|a| a.path().is_ident("doc"));
    quote! {
        #items
        #(#docs)*
        #kernel_value
    }
}
