//! The expansion of a generic kernel: every instance, and the kernel value over them.

use crate::diag::Diagnostic;
use crate::front::generics::{instances, params, substitute, GenericArg, MAX_INSTANCES};
use crate::front::helpers::Helpers;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, ToTokens};
use std::collections::HashMap;

/// Expands a generic kernel: every instance, and the generic kernel value over them.
pub fn expand(
    attr: TokenStream,
    func: &syn::ItemFn,
    file: &str,
    helpers: &Helpers,
    consts: &crate::front::consts::ModuleConsts,
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
    let (launch_params, arg_names) = match forwarded(func) {
        Ok(p) => p,
        Err(d) => return fail(vec![d]),
    };
    for types in &all {
        let map: HashMap<String, GenericArg> = params
            .iter()
            .zip(types)
            .map(|((i, _), t)| (i.to_string(), GenericArg::Type(*t)))
            .collect();
        let suffix: Vec<&str> = types.iter().map(|t| t.rust_name()).collect();
        let inst_name = format_ident!("{}_{}", name, suffix.join("_"), span = name.span());
        let inst = match instance_fn(func, &inst_name, &map) {
            Ok(f) => f,
            Err(e) => return e.to_compile_error(),
        };
        match crate::pipeline::compile_with(attr.clone(), &inst, file, helpers, consts) {
            Ok(c) => items.extend(super::host::write(&inst, &c, file)),
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
        "Launches the instance of `{name}` that the argument types select (instances: {instance_list}), or the one named: `{name}::<{}>.launch(..)`.",
        all.first()
            .map(|ts| ts.iter().map(|t| t.rust_name()).collect::<Vec<_>>().join(", "))
            .unwrap_or_default()
    );
    let ty = kernel_type(name);
    let doc_type = format!(
        "The type of the generic kernel value [`{name}`]; `{name}::<T>` is its instance for `T`."
    );
    let doc_value = format!(
        "The kernel value: `{name}.launch(..)` picks the instance from the argument types, `{name}::<{}>` names one.",
        tparams.iter().map(|_| "f32").collect::<Vec<_>>().join(", ")
    );
    let missing = format!("kernel `{name}` has no instance for these types");
    let note = format!("the instances of `{name}` are: {instance_list}");
    quote! {
        #items

        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #[diagnostic::on_unimplemented(message = #missing, note = #note)]
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

        #[doc = #doc_type]
        #[doc = ""]
        #(#docs)*
        #[allow(non_camel_case_types)]
        #vis enum #ty<#(#tparams: ::cuphase::Scalar),*> {
            #[doc = #doc_value]
            #name,
            #[doc(hidden)]
            __Never(
                ::core::convert::Infallible,
                ::core::marker::PhantomData<fn() -> (#(#tparams,)*)>,
            ),
        }
        #[allow(unused_imports)]
        #vis use #ty::#name;

        impl<#(#tparams: ::cuphase::Scalar),*> ::core::clone::Clone for #ty<#(#tparams),*> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<#(#tparams: ::cuphase::Scalar),*> ::core::marker::Copy for #ty<#(#tparams),*> {}
        impl<#(#tparams: ::cuphase::Scalar),*> ::core::default::Default for #ty<#(#tparams),*> {
            fn default() -> Self {
                Self::#name
            }
        }
        impl<#(#tparams: ::cuphase::Scalar),*> ::core::fmt::Debug for #ty<#(#tparams),*> {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(::core::stringify!(#name))
            }
        }

        impl<#(#tparams: ::cuphase::Scalar),*> #ty<#(#tparams),*> {
            #[doc = #doc_launch]
            #[allow(clippy::too_many_arguments)]
            pub fn launch(
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

            /// The CUDA C of one instance: `k::<f32>.cuda_source()`.
            pub fn cuda_source(&self) -> &'static str
            where
                (): #trait_name<#(#tparams),*>,
            {
                <() as #trait_name<#(#tparams),*>>::__cuda_source()
            }

            /// The barrier report of one instance: `k::<f32>.report()`.
            pub fn report(&self) -> &'static str
            where
                (): #trait_name<#(#tparams),*>,
            {
                <() as #trait_name<#(#tparams),*>>::__report()
            }

            /// The name of one instance (`k_f32`), as in its CUDA C.
            pub fn name(&self) -> &'static str
            where
                (): #trait_name<#(#tparams),*>,
            {
                <() as #trait_name<#(#tparams),*>>::__name()
            }
        }
    }
}

/// The name of a generic kernel value's type: `scale_rows` is a value of `ScaleRowsKernel<T>`.
fn kernel_type(name: &Ident) -> Ident {
    let raw = name.to_string();
    let mut out = String::new();
    for part in raw
        .trim_start_matches("r#")
        .split('_')
        .filter(|p| !p.is_empty())
    {
        let mut cs = part.chars();
        if let Some(c) = cs.next() {
            out.extend(c.to_uppercase());
            out.push_str(cs.as_str());
        }
    }
    Ident::new(&format!("{out}Kernel"), name.span())
}

/// The parameters of a generic kernel's `launch` (as written, generics and all) and the names
/// that forward them to an instance's; an error when a parameter is no plain name.
pub(super) fn forwarded(func: &syn::ItemFn) -> Result<(Vec<TokenStream>, Vec<Ident>), Diagnostic> {
    let Some(launch_params) = super::host::launch_params(func) else {
        return Err(Diagnostic::new(
            crate::ir::Span::of(&func.sig),
            "a kernel's parameters are plain names with slice or scalar types",
        ));
    };
    let arg_names = func
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
    Ok((launch_params, arg_names))
}

/// The instance of a generic kernel for the arguments `map`: the function without generics,
/// named `name`, its generic parameters replaced, its docs hidden.
pub(super) fn instance_fn(
    func: &syn::ItemFn,
    name: &Ident,
    map: &HashMap<String, GenericArg>,
) -> syn::Result<syn::ItemFn> {
    let mut f = func.clone();
    f.sig.generics = syn::Generics::default();
    f.sig.ident = name.clone();
    f.attrs.retain(|a| !a.path().is_ident("doc"));
    f.attrs.push(syn::parse_quote!(#[doc(hidden)]));
    syn::parse2(substitute(f.to_token_stream(), map))
}
