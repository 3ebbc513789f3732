//! Generic kernels: `#[kernel] fn k<T: Float>(out: &mut [T], ..)`.
//!
//! A kernel's type parameters are bounded by cuphase's traits (`Scalar`, `Num`, `Int`,
//! `Float`), each a finite set of scalar types, so the macro instantiates the kernel for every
//! combination at build time: each instance is the kernel's tokens with the parameters
//! replaced, compiled and checked like any kernel (a hidden kernel value named
//! `k_f32`, whose CUDA function is `k_f32`). The kernel value `k` launches the instance that
//! the argument types select, through a hidden trait implemented once per instance. Inside a
//! generic kernel `x as T` is allowed (each instance is concrete), which Rust's own generics
//! would not allow.

use crate::diag::Diagnostic;
use crate::ir::Scalar;
use proc_macro2::{Ident, Literal, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use std::collections::HashMap;

/// The most instances one generic kernel may have.
const MAX_INSTANCES: usize = 32;

/// The types a bound admits.
fn admitted(bound: &str) -> Option<Vec<Scalar>> {
    use Scalar::*;
    let ints = [I8, I16, I32, I64, U8, U16, U32, U64, Usize];
    Some(match bound {
        "Float" => vec![F32, F64],
        "Int" => ints.to_vec(),
        "Num" => ints.iter().copied().chain([F32, F64]).collect(),
        "Scalar" => std::iter::once(Bool)
            .chain(ints)
            .chain([F32, F64])
            .collect(),
        _ => return None,
    })
}

/// What a helper's generic parameter is bound to at one call.
#[derive(Clone, Copy)]
pub(crate) enum GenericArg {
    /// A type argument.
    Type(Scalar),
    /// A const argument and its type.
    Const(i128, Scalar),
}

/// Rewrites every identifier token that names a generic parameter.
pub(crate) fn substitute(ts: TokenStream, args: &HashMap<String, GenericArg>) -> TokenStream {
    ts.into_iter()
        .map(|t| match t {
            TokenTree::Ident(id) => match args.get(&id.to_string()) {
                Some(GenericArg::Type(s)) => {
                    TokenTree::Ident(proc_macro2::Ident::new(s.rust_name(), id.span()))
                }
                Some(GenericArg::Const(v, ty)) => {
                    let mut lit = Literal::i128_suffixed(*v);
                    if let Ok(l) = format!("{v}{}", ty.rust_name()).parse::<Literal>() {
                        lit = l;
                    }
                    lit.set_span(id.span());
                    TokenTree::Literal(lit)
                }
                None => TokenTree::Ident(id),
            },
            TokenTree::Group(g) => {
                let mut ng = proc_macro2::Group::new(g.delimiter(), substitute(g.stream(), args));
                ng.set_span(g.span());
                TokenTree::Group(ng)
            }
            other => other,
        })
        .collect()
}

/// The type parameters and the types each admits, or the errors.
fn params(func: &syn::ItemFn) -> Result<Vec<(Ident, Vec<Scalar>)>, Vec<Diagnostic>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    if let Some(w) = &func.sig.generics.where_clause {
        errors.push(Diagnostic::new(
            crate::ir::Span::of(w),
            "`where` clauses are not supported on kernels; bound the parameters inline: `<T: Float>`",
        ));
    }
    for p in &func.sig.generics.params {
        match p {
            syn::GenericParam::Type(t) => {
                let bounds: Vec<String> = t
                    .bounds
                    .iter()
                    .filter_map(|b| match b {
                        syn::TypeParamBound::Trait(tb) => {
                            tb.path.segments.last().map(|s| s.ident.to_string())
                        }
                        _ => None,
                    })
                    .collect();
                match (bounds.as_slice(), t.default.is_none()) {
                    ([b], true) if admitted(b).is_some() => {
                        out.push((t.ident.clone(), admitted(b).unwrap_or_default()));
                    }
                    _ => errors.push(
                        Diagnostic::new(
                            crate::ir::Span::of(t),
                            "a kernel's type parameter takes one of cuphase's bounds: `T: Scalar`, `T: Num`, `T: Int` or `T: Float`",
                        )
                        .note("the kernel is instantiated for every type the bound admits"),
                    ),
                }
            }
            syn::GenericParam::Const(c) => errors.push(Diagnostic::new(
                crate::ir::Span::of(c),
                "a kernel takes type parameters or const parameters, not both",
            )),
            syn::GenericParam::Lifetime(l) => errors.push(Diagnostic::new(
                crate::ir::Span::of(l),
                "kernels take no lifetime parameters",
            )),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Every combination of the parameters' types.
fn instances(params: &[(Ident, Vec<Scalar>)]) -> Vec<Vec<Scalar>> {
    let mut out = vec![Vec::new()];
    for (_, types) in params {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                types.iter().map(move |t| {
                    let mut v = prefix.clone();
                    v.push(*t);
                    v
                })
            })
            .collect();
    }
    out
}

/// Whether a kernel has type parameters (and so is expanded per instance here); const
/// parameters alone compile as one kernel.
pub fn has_type_params(func: &syn::ItemFn) -> bool {
    func.sig
        .generics
        .params
        .iter()
        .any(|p| matches!(p, syn::GenericParam::Type(_)))
}

/// Expands a generic kernel: every instance, and the generic kernel value over them.
pub fn expand(
    attr: TokenStream,
    func: &syn::ItemFn,
    file: &str,
    helpers: &crate::helpers::Helpers,
) -> TokenStream {
    let fail = |diags: Vec<Diagnostic>| -> TokenStream {
        diags.iter().map(Diagnostic::to_compile_error).collect()
    };
    let params = match params(func) {
        Ok(p) => p,
        Err(d) => return fail(d),
    };
    let all = instances(&params);
    if all.len() > MAX_INSTANCES {
        return fail(vec![Diagnostic::new(
            crate::ir::Span::of(&func.sig.generics),
            format!(
                "these bounds make {} instances of the kernel (at most {MAX_INSTANCES}); narrow them (`Float`, `Int`) or write the kernel for the types you launch",
                all.len()
            ),
        )]);
    }
    let name = &func.sig.ident;
    let vis = &func.vis;
    let tparams: Vec<&Ident> = params.iter().map(|(i, _)| i).collect();
    let trait_name = format_ident!("__cuphase_instance_{}", name);
    let mut items = TokenStream::new();
    let mut impls = Vec::new();
    // The instance functions' parameters, with the type parameters as written.
    let Some(launch_params) = crate::back::host::launch_params(func) else {
        return fail(vec![Diagnostic::new(
            crate::ir::Span::of(&func.sig),
            "a kernel's parameters are plain names with slice or scalar types",
        )]);
    };
    let arg_names: Vec<Ident> = func
        .sig
        .inputs
        .iter()
        .filter_map(|i| match i {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) => Some(pi.ident.clone()),
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    for types in &all {
        let map: HashMap<String, GenericArg> = params
            .iter()
            .zip(types)
            .map(|((i, _), t)| (i.to_string(), GenericArg::Type(*t)))
            .collect();
        let suffix: Vec<&str> = types.iter().map(|t| t.rust_name()).collect();
        let inst_name = format_ident!("{}_{}", name, suffix.join("_"), span = name.span());
        let mut f = func.clone();
        f.sig.generics = syn::Generics::default();
        f.sig.ident = inst_name.clone();
        f.attrs.retain(|a| !a.path().is_ident("doc"));
        f.attrs.push(syn::parse_quote!(#[doc(hidden)]));
        let tokens = substitute(f.to_token_stream(), &map);
        let inst: syn::ItemFn = match syn::parse2(tokens) {
            Ok(f) => f,
            Err(e) => return e.to_compile_error(),
        };
        match crate::compile_with(attr.clone(), &inst, file, helpers) {
            Ok(c) => {
                let sim = crate::back::sim::write_kernel(&c.checked.kernel, &c.checked.types, file);
                items.extend(crate::back::host::write(&inst, &c, sim, file));
            }
            Err(diags) => {
                let what = params
                    .iter()
                    .zip(types)
                    .map(|((i, _), t)| format!("{i} = {t}"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let diags = diags
                    .into_iter()
                    .map(|d| d.note(format!("in the instance of `{name}` with {what}")))
                    .collect();
                let mut out = fail(diags);
                out.extend(quote! {
                    #[allow(non_camel_case_types)]
                    #[derive(Clone, Copy, Debug, Default)]
                    #vis struct #name;
                });
                return out;
            }
        }
        let tys: Vec<Ident> = types
            .iter()
            .map(|t| Ident::new(t.rust_name(), proc_macro2::Span::call_site()))
            .collect();
        let inst_params: Vec<TokenStream> = launch_params
            .iter()
            .map(|p| substitute(p.clone(), &map))
            .collect();
        impls.push(quote! {
            impl #trait_name<#(#tys),*> for () {
                #[allow(clippy::too_many_arguments)]
                fn __launch(
                    __target: &impl ::cuphase::LaunchTarget,
                    __launch: ::cuphase::Launch,
                    #(#inst_params),*
                ) -> ::core::result::Result<(), ::cuphase::Error> {
                    #inst_name.launch(__target, __launch, #(#arg_names),*)
                }
                fn __cuda_source() -> &'static str {
                    #inst_name.cuda_source()
                }
                fn __report() -> &'static str {
                    #inst_name.report()
                }
                fn __name() -> &'static str {
                    #inst_name.name()
                }
            }
        });
    }
    let docs = func.attrs.iter().filter(|a| a.path().is_ident("doc"));
    let instance_list = all
        .iter()
        .map(|ts| {
            let s: Vec<&str> = ts.iter().map(|t| t.rust_name()).collect();
            format!("`{}`", s.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ");
    let doc_launch = format!(
        "Launches the instance of `{name}` that the argument types select (instances: {instance_list})."
    );
    quote! {
        #items

        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis trait #trait_name<#(#tparams: ::cuphase::Scalar),*> {
            #[allow(clippy::too_many_arguments)]
            fn __launch(
                __target: &impl ::cuphase::LaunchTarget,
                __launch: ::cuphase::Launch,
                #(#launch_params),*
            ) -> ::core::result::Result<(), ::cuphase::Error>;
            fn __cuda_source() -> &'static str;
            fn __report() -> &'static str;
            fn __name() -> &'static str;
        }
        #(#impls)*

        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #name;

        impl #name {
            #[doc = #doc_launch]
            #[allow(clippy::too_many_arguments)]
            pub fn launch<#(#tparams: ::cuphase::Scalar),*>(
                &self,
                __target: &impl ::cuphase::LaunchTarget,
                __launch: ::cuphase::Launch,
                #(#launch_params),*
            ) -> ::core::result::Result<(), ::cuphase::Error>
            where
                (): #trait_name<#(#tparams),*>,
            {
                <() as #trait_name<#(#tparams),*>>::__launch(__target, __launch, #(#arg_names),*)
            }

            /// The CUDA C of one instance: `k.cuda_source::<f32>()`.
            pub fn cuda_source<#(#tparams: ::cuphase::Scalar),*>(&self) -> &'static str
            where
                (): #trait_name<#(#tparams),*>,
            {
                <() as #trait_name<#(#tparams),*>>::__cuda_source()
            }

            /// The barrier report of one instance.
            pub fn report<#(#tparams: ::cuphase::Scalar),*>(&self) -> &'static str
            where
                (): #trait_name<#(#tparams),*>,
            {
                <() as #trait_name<#(#tparams),*>>::__report()
            }

            /// The name of one instance (`k_f32`), as in its CUDA C.
            pub fn name<#(#tparams: ::cuphase::Scalar),*>(&self) -> &'static str
            where
                (): #trait_name<#(#tparams),*>,
            {
                <() as #trait_name<#(#tparams),*>>::__name()
            }
        }
    }
}
