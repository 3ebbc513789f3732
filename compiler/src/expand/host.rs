//! The host-side glue: the kernel value users launch.
//!
//! `#[kernel] pub fn reverse(..)` becomes a unit struct `reverse` (so the kernel is a value,
//! `reverse.launch(..)`), a static `KernelInfo` with the CUDA C, and an inherent `launch`
//! method with one typed argument per kernel parameter: `&mut Buffer<T>` for `&mut [T]`,
//! `&Buffer<T>` for `&[T]`, `T` for a scalar. Argument type checks are therefore rustc's, at
//! the call site.

use crate::back::cuda::CudaKernel;
use crate::back::rust_types::{field_type_tokens, record_type_tokens};
use crate::ir::{ArrayKind, ParamKind, ParamSource, Scalar};
use crate::pipeline::Compiled;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

fn scalar_tokens(t: Scalar) -> TokenStream {
    let id = Ident::new(t.rust_name(), Span::call_site());
    if t.is_half() {
        return quote!(::cuphase::half::#id);
    }
    quote!(#id)
}

/// A const generic's value for the CUDA C template's instance: the value and the suffix of
/// its C literal (`256u`), or `bool` for `true`/`false`.
fn const_value(ty: Scalar, value: &Ident) -> TokenStream {
    let suffix = match ty {
        Scalar::Bool => "bool",
        Scalar::U8 | Scalar::U16 | Scalar::U32 => "u",
        Scalar::U64 | Scalar::Usize => "ull",
        Scalar::I64 => "ll",
        _ => "",
    };
    quote!(::cuphase::__private::ConstValue { value: #value as i128, suffix: #suffix })
}

/// The typed parameters of `launch` for a kernel's parameter list, or `None` if a parameter's
/// type is not one kernels take (the front end has reported it).
pub fn launch_params(func: &syn::ItemFn) -> Option<Vec<TokenStream>> {
    let mut out = Vec::new();
    for input in &func.sig.inputs {
        let syn::FnArg::Typed(pt) = input else {
            return None;
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            return None;
        };
        let name = &pi.ident;
        let span = pt.ty_span();
        match &*pt.ty {
            syn::Type::Reference(r) => {
                let syn::Type::Slice(s) = &*r.elem else {
                    return None;
                };
                let elem = &s.elem;
                if r.mutability.is_some() {
                    out.push(quote_spanned!(span=> #name: &mut ::cuphase::Buffer<#elem>));
                } else {
                    out.push(quote_spanned!(span=> #name: &::cuphase::Buffer<#elem>));
                }
            }
            ty => out.push(quote_spanned!(span=> #name: #ty)),
        }
    }
    Some(out)
}

trait TySpan {
    fn ty_span(&self) -> Span;
}
impl TySpan for syn::PatType {
    fn ty_span(&self) -> Span {
        syn::spanned::Spanned::span(&*self.ty)
    }
}

/// Everything the macro emits for a kernel that compiled.
pub fn write(func: &syn::ItemFn, c: &Compiled, file: &str) -> TokenStream {
    let k = &c.checked.kernel;
    let c_types = &c.checked.types;
    let report = &c.report;
    let report_text = &report.text;
    let _ = report;
    let block_rank = report.block_rank;
    let whole_warps = report.whole_warps;
    let block_shape = match k.options.block {
        Some([x, y, z]) => quote!(::core::option::Option::Some([#x, #y, #z])),
        None => quote!(::core::option::Option::None),
    };
    let shared_proven = report.shared_proven;
    let layout = k.shared_layout();
    let static_shared_bytes = u32::try_from(layout.static_bytes()).unwrap_or(u32::MAX);
    let dynamic_shared_base = u32::try_from(layout.dynamic_base()).unwrap_or(u32::MAX);
    let vis = &func.vis;
    let name = &func.sig.ident;
    let generics = &func.sig.generics;
    let (impl_generics, ty_generics, _) = generics.split_for_impl();
    let docs = func.attrs.iter().filter(|a| a.path().is_ident("doc"));
    let info = format_ident!("__CUPHASE_KERNEL_{}", name);
    let info_unchecked = format_ident!("__CUPHASE_KERNEL_UNCHECKED_{}", name);
    let kname = name.to_string();
    let line = k.name_span.start().line as u32;
    let fast_math = k.options.fast_math;
    let params = launch_params(func).unwrap_or_default();

    let mut lens = Vec::new();
    let mut cuda_prep = Vec::new();
    let mut cuda_args = Vec::new();
    // The most arguments a launch pushes: the parameters', then the fault record and the
    // kernel's id (where the variant records faults) and the print flag (where it prints).
    let mut nargs = 3usize;
    let mut sim_prep = Vec::new();
    let mut sim_args = Vec::new();
    let mut const_prep = Vec::new();
    // The values of module constants the compiler read from the file, checked by rustc where
    // the kernel uses them (a constant the module sees with another value is a compile error).
    // The type too: the constant must have the type of its use, as in Rust.
    let mut asserted = Vec::new();
    for c in &k.assumed_consts {
        let name = Ident::new(&c.name, c.span.lo);
        // (In an array length the constant may be cast: its value is what counts.)
        if let Some(e) = c.expr {
            let ty = scalar_tokens(c_types.expr(e));
            const_prep.push(quote_spanned!(c.span.lo=> let _: #ty = #name;));
        }
        if asserted.contains(&c.name) {
            continue;
        }
        asserted.push(c.name.clone());
        let value = proc_macro2::Literal::i128_unsuffixed(c.value);
        let msg = format!(
            "cuphase compiled this kernel with `{} = {}`, read from this file, but the constant the kernel's module sees has another value",
            c.name, c.value
        );
        const_prep.push(quote_spanned!(c.span.lo=> const _: () = ::core::assert!(#name as i128 == #value, #msg);));
    }
    // The variables the glue holds implicit values in, by parameter name.
    let mut implicit: Vec<(String, Ident)> = Vec::new();
    // A closure's captures: the kernel value's fields, with their types.
    let mut captures: Vec<(Ident, TokenStream, TokenStream)> = Vec::new();
    // The const generics' values, for the CUDA C template's instance.
    let mut instance_values = Vec::new();
    for p in &k.params {
        // (A computed length's "name" is its expression's text, no identifier.)
        let pname = if p.source == ParamSource::ArrayLength {
            format_ident!("__len")
        } else {
            Ident::new(&p.name, p.span.lo)
        };
        match p.kind {
            ParamKind::Scalar { ty, .. } if p.is_implicit() => {
                // `k::<256>`: the value comes from the kernel value's type; `R`: from the
                // module's constant, which must have the type the kernel uses (rustc checks,
                // at the kernel's use of it); `R as T`: the cast, computed here.
                let cname = format_ident!("__const_{}", const_prep.len());
                let t = scalar_tokens(ty);
                const_prep.push(match p.source {
                    ParamSource::ModuleConstAs(_) => {
                        quote_spanned!(p.span.lo=> let #cname: #t = #pname as #t;)
                    }
                    // The expression, at its place in the kernel (rustc's errors point there).
                    ParamSource::ArrayLength => {
                        let len = syn::parse_str::<syn::Expr>(&p.name)
                            .map(|e| respan(quote!(#e), p.span.lo))
                            .unwrap_or_else(|e| e.to_compile_error());
                        quote_spanned!(p.span.lo=> let #cname: #t = #len;)
                    }
                    // The kernel value holds it (the cast, computed at the capture).
                    ParamSource::Capture | ParamSource::CaptureAs(_) => {
                        let (field, init) = match p.source {
                            ParamSource::CaptureAs(to) => (
                                format_ident!("{}_as_{}", p.name, to.rust_name(), span = p.span.lo),
                                quote_spanned!(p.span.lo=> #pname as #t),
                            ),
                            _ => (pname.clone(), quote!(#pname)),
                        };
                        captures.push((field.clone(), t.clone(), init));
                        // (`self` of the glue's method, not of the user's code.)
                        let this = quote!(self);
                        quote_spanned!(p.span.lo=> let #cname: #t = #this.#field;)
                    }
                    _ => quote_spanned!(p.span.lo=> let #cname: #t = #pname;),
                });
                implicit.push((p.name.clone(), cname.clone()));
                // A const generic is the CUDA C template's argument, not the kernel's.
                if p.source == ParamSource::ConstGeneric {
                    instance_values.push(const_value(ty, &pname));
                } else {
                    cuda_args.push(quote!(__args.push(&#cname);));
                    nargs += 1;
                }
                sim_args.push(quote!(#cname));
            }
            ParamKind::Scalar { .. } => {
                cuda_args.push(quote!(__args.push(&#pname);));
                nargs += 1;
                sim_args.push(quote!(#pname));
            }
            ParamKind::Slice { array } => {
                let i = lens.len();
                lens.push(quote!(#pname.len() as u64));
                let dev = format_ident!("__d_{}", p.name);
                // (The guard orders the launch after other streams' uses, where cudarc tracks
                // them, when it is dropped after the launch.)
                let guard = format_ident!("__g_{}", p.name);
                let mutable = k.arrays.get(array).kind == (ArrayKind::Global { mutable: true });
                if mutable {
                    cuda_prep.push(quote! {
                        let (#dev, #guard) = ::cuphase::__private::DevicePtrMut::device_ptr_mut(
                            #pname.__cuda_slice_mut(__cu, __record)?,
                            __stream,
                        );
                    });
                } else {
                    cuda_prep.push(quote! {
                        let (#dev, #guard) = ::cuphase::__private::DevicePtr::device_ptr(
                            #pname.__cuda_slice(__cu)?,
                            __stream,
                        );
                    });
                }
                cuda_args.push(quote!(__args.push(&#dev); __args.push(&__lens[#i]);));
                nargs += 2;
                let label = &p.name;
                if mutable && c.report.exclusive.contains(&array) {
                    sim_prep.push(
                        quote!(let #pname = #pname.__sim_global_exclusive(__sim, #label, &__launch)?;),
                    );
                } else if mutable {
                    sim_prep.push(quote!(let #pname = #pname.__sim_global(__sim, #label)?;));
                } else {
                    sim_prep
                        .push(quote!(let #pname = #pname.__sim_global_read_only(__sim, #label)?;));
                }
                sim_args.push(quote!(#pname.view()));
            }
        }
    }
    let nlens = lens.len();
    let nargs = proc_macro2::Literal::usize_unsuffixed(nargs);
    // A shared array sized at launch (by a const parameter, a module constant or an
    // expression of them): the launch's dynamic shared memory.
    let shared_sizing = k.arrays.iter().find_map(|(_, a)| match &a.kind {
        ArrayKind::Shared {
            len_param: Some(n), ..
        } => {
            let (_, value) = implicit.iter().find(|(name, _)| name == n)?;
            let size = a.elem.size_bytes();
            Some(quote! {
                let __launch = __launch.shared_bytes(
                    u32::try_from((#value as u64).saturating_mul(#size)).unwrap_or(u32::MAX),
                );
            })
        }
        _ => None,
    });
    let elem_checks = k.params.iter().map(|p| match p.kind {
        ParamKind::Scalar { ty, .. } => {
            let t = scalar_tokens(ty);
            quote!(::cuphase::__private::assert_scalar::<#t>();)
        }
        ParamKind::Slice { array } if k.arrays.get(array).field.is_some() => {
            let rec = k.arrays.get(array).field.as_ref().map_or(0, |f| f.record);
            let rec = record_type_tokens(&k.records, rec, p.span.lo);
            quote!(::cuphase::__private::assert_element::<#rec>();)
        }
        ParamKind::Slice { array } => {
            let t = scalar_tokens(k.arrays.get(array).elem);
            quote!(::cuphase::__private::assert_scalar::<#t>();)
        }
    });
    let record_checks = record_layout_checks(k);
    let thread_fn = c.sim.thread_fn.iter();
    let block_fn = &c.sim.block_fn;
    let doc_launch = format!(
        "Launches `{kname}` on `device` with the grid and block of `launch`: on CUDA asynchronously \
         (errors found on the device are returned by the next synchronising call), on the CPU \
         simulator to completion."
    );

    let variant = |id: &Ident, v: &CudaKernel| {
        let source = &v.source;
        let instance = &v.instance;
        let uses_record = v.uses_record;
        let prints = v.prints;
        let sites = v.sites.iter().map(|site| {
            let (l, col, sfile) = (site.line, site.col, &site.file);
            let variant = Ident::new(site.kind.variant(), Span::call_site());
            let kind = match site.kind.text() {
                Some(text) => quote!(#variant(#text)),
                None => quote!(#variant),
            };
            quote!(::cuphase::__private::FaultSite { kind: ::cuphase::__private::FaultKind::#kind, file: #sfile, line: #l, col: #col })
        });
        quote! {
            #[doc(hidden)]
            #[allow(non_upper_case_globals)]
            static #id: ::cuphase::__private::KernelInfo = ::cuphase::__private::KernelInfo {
                name: #kname,
                cuda_source: #source,
                rust_file: #file,
                rust_line: #line,
                fast_math: #fast_math,
                report: #report_text,
                whole_warps: #whole_warps,
                block_shape: #block_shape,
                block_rank: #block_rank,
                shared_proven: #shared_proven,
                static_shared_bytes: #static_shared_bytes,
                dynamic_shared_base: #dynamic_shared_base,
                fault_sites: &[#(#sites),*],
                uses_fault_record: #uses_record,
                prints: #prints,
                instance: #instance,
            };
        }
    };
    let checked_static = variant(&info, &c.cuda_checked);
    let unchecked_static = variant(&info_unchecked, &c.cuda_unchecked);
    // Kernels with warp operations: the variants for blocks that are whole warps.
    let info_full = format_ident!("__CUPHASE_KERNEL_FULL_WARPS_{}", name);
    let info_unchecked_full = format_ident!("__CUPHASE_KERNEL_UNCHECKED_FULL_WARPS_{}", name);
    let full_sources = match &c.cuda_full_warps {
        Some(_) => quote!(::std::vec![#info_full.cuda_source, #info_unchecked_full.cuda_source]),
        None => quote!(::std::vec::Vec::new()),
    };
    let (full_statics, select_full) = match &c.cuda_full_warps {
        Some((unchecked, checked)) => {
            let a = variant(&info_full, checked);
            let b = variant(&info_unchecked_full, unchecked);
            let pick = match k.options.bounds_checks {
                Some(true) => quote!(&#info_full),
                Some(false) => quote!(&#info_unchecked_full),
                None => {
                    quote!(if cfg!(debug_assertions) { &#info_full } else { &#info_unchecked_full })
                }
            };
            (
                quote!(#a #b),
                quote! {
                    let __info = if __launch.block.volume() % 32 == 0 { #pick } else { __info };
                },
            )
        }
        None => (TokenStream::new(), TokenStream::new()),
    };
    // Bounds checks: on in debug builds of the crate that defines the kernel, off in release,
    // unless the attribute says.
    let select = match k.options.bounds_checks {
        Some(true) => quote!(&#info),
        Some(false) => quote!(&#info_unchecked),
        None => quote!(if cfg!(debug_assertions) { &#info } else { &#info_unchecked }),
    };

    // A kernel with const generics: the CUDA C of the instance for this kernel value's.
    let (instance, instance_full) = if instance_values.is_empty() {
        (TokenStream::new(), TokenStream::new())
    } else {
        let pick = quote! {
            let __info = ::cuphase::__private::instance(__info, &[#(#instance_values),*]);
        };
        let full = if select_full.is_empty() {
            TokenStream::new()
        } else {
            pick.clone()
        };
        (pick, full)
    };
    // A closure's kernel value holds what it captures (rustc checks each captured variable
    // against the type the body uses, at the capture) and is the closure expression's value.
    let (def, value) = if captures.is_empty() {
        let def = quote! {
            #[allow(non_camel_case_types)]
            #[derive(Clone, Copy, Debug, Default)]
            #vis struct #name #generics;
        };
        (def, quote!(#name))
    } else {
        let fields = captures.iter().map(|(f, _, _)| f);
        let types = captures.iter().map(|(_, t, _)| t);
        let def = quote! {
            #[allow(non_camel_case_types, non_snake_case)]
            #[derive(Clone, Copy, Debug)]
            #vis struct #name { #(#fields: #types),* }
        };
        let inits = captures.iter().map(|(f, _, init)| quote!(#f: #init));
        (def, quote!(#name { #(#inits),* }))
    };
    let value = k.options.closure.then_some(value);
    quote! {
        #(#docs)*
        #def

        #checked_static
        #unchecked_static
        #full_statics

        impl #impl_generics #name #ty_generics {
            #[doc(hidden)]
            fn __info(&self) -> &'static ::cuphase::__private::KernelInfo {
                let __info = #select;
                #instance
                __info
            }

            /// The CUDA C that cuphase generated for this kernel, exactly as NVRTC receives it
            /// (with bounds checks in debug builds, without in release builds).
            pub fn cuda_source(&self) -> &'static str {
                self.__info().cuda_source
            }

            /// What the barrier analyses found: shared arrays and their sizes, each barrier
            /// (written, inserted or removed) with the hazards it orders.
            pub fn report(&self) -> &'static str {
                self.__info().report
            }

            /// The CUDA C of the variants for blocks that are whole warps (kernels with warp
            /// operations), with and without bounds checks; for tests.
            #[doc(hidden)]
            pub fn __full_warp_sources(&self) -> ::std::vec::Vec<&'static str> {
                #full_sources
            }

            /// The kernel's name, as in the Rust source and the CUDA C.
            pub fn name(&self) -> &'static str {
                self.__info().name
            }

            #[doc = #doc_launch]
            #[allow(clippy::too_many_arguments, unused_mut)]
            pub fn launch(
                &self,
                __target: &impl ::cuphase::LaunchTarget,
                __launch: ::cuphase::Launch,
                #(#params),*
            ) -> ::core::result::Result<(), ::cuphase::Error> {
                #(#elem_checks)*
                #record_checks
                #(#const_prep)*
                #shared_sizing
                let __info = self.__info();
                #select_full
                #instance_full
                __launch.validate_for(__info)?;
                match __target.device().__backend() {
                    ::cuphase::__private::BackendRef::Cuda(__cu) => {
                        let (__func, __kernel_id) = __cu.function(__info)?;
                        let __lens: [u64; #nlens] = [#(#lens),*];
                        let __record = __target.fault_record_for(__cu);
                        let __stream = __target.stream_for(__cu);
                        #(#cuda_prep)*
                        let __fault = match __info.uses_fault_record {
                            true => Some(::cuphase::__private::DevicePtr::device_ptr(__record.slice()?, __stream)),
                            false => None,
                        };
                        let __print_ids = u32::from(__launch.prints_ids());
                        let mut __args = ::cuphase::__private::ArgList::<#nargs>::new();
                        #(#cuda_args)*
                        if let Some((__fault_ptr, _)) = &__fault {
                            __args.push(__fault_ptr);
                            __args.push(&__kernel_id);
                        }
                        if __info.prints {
                            __args.push(&__print_ids);
                        }
                        __cu.launch(__info, &__launch, __func, __stream, &mut __args)
                    }
                    ::cuphase::__private::BackendRef::Sim(__sim) => {
                        #(#sim_prep)*
                        __sim.run(__info, &__launch, &|__block| Self::__cuphase_block(__block, #(#sim_args),*))
                    }
                }
            }

            #[doc(hidden)]
            #block_fn

            #(
                #[doc(hidden)]
                #thread_fn
            )*
        }

        #value
    }
}

/// The layout of each struct the kernel uses, as the compiler read it from the file, asserted
/// equal to rustc's: size, alignment, every field's offset and every scalar's type (a struct
/// the macro misread, or one that a `use` replaced, is a compile error at the kernel).
fn record_layout_checks(k: &crate::ir::Kernel) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, r) in k.records.iter().enumerate() {
        if r.vector {
            // `[T; N]` itself: only its size is the C struct's (which is aligned more).
            let ty = field_type_tokens(&k.records, &r.value_type(i), k.name_span.lo);
            let size = r.size as usize;
            out.extend(quote! {
                const _: () = ::core::assert!(::core::mem::size_of::<#ty>() == #size);
            });
            continue;
        }
        let name = Ident::new(&r.name, k.name_span.lo);
        let (size, align) = (r.size as usize, r.align as usize);
        let msg = format!(
            "cuphase compiled this kernel with `{}` of {size} bytes aligned to {align}, read from this file, but the struct the kernel sees differs",
            r.name
        );
        out.extend(quote! {
            const _: () = ::core::assert!(
                ::core::mem::size_of::<#name>() == #size && ::core::mem::align_of::<#name>() == #align,
                #msg
            );
        });
        for f in &r.fields {
            let field = Ident::new(&f.name, k.name_span.lo);
            let offset = f.offset as usize;
            let msg = format!(
                "cuphase compiled this kernel with `{}.{}` at offset {offset}, but the struct the kernel sees has it elsewhere",
                r.name, f.name
            );
            out.extend(quote! {
                const _: () = ::core::assert!(::core::mem::offset_of!(#name, #field) == #offset, #msg);
            });
            // An array field's length (perhaps a constant the macro read) is its type's.
            if let crate::ir::FieldType::Array(..) = f.ty {
                let ty = field_type_tokens(&k.records, &f.ty, k.name_span.lo);
                out.extend(quote! {
                    let _: fn(&#name) -> &#ty = |__p: &#name| &__p.#field;
                });
            }
        }
        for leaf in crate::ir::leaves(&k.records, i) {
            let path = leaf.path.iter().map(|s| match s {
                crate::ir::Step::Field { name, .. } => {
                    let n = Ident::new(name, k.name_span.lo);
                    quote!(.#n)
                }
                crate::ir::Step::Element(i) => {
                    let i = *i as usize;
                    quote!([#i])
                }
            });
            let t = scalar_tokens(leaf.ty);
            out.extend(quote! {
                let _: fn(&#name) -> &#t = |__p: &#name| &__p #(#path)*;
            });
        }
    }
    out
}

/// What the macro emits for a kernel with errors: the errors, and a kernel value whose
/// `launch` has the right signature (so call sites do not add errors of their own) and
/// returns an error.
pub fn fallback(func: &syn::ItemFn, errors: TokenStream) -> TokenStream {
    let vis = &func.vis;
    let name = &func.sig.ident;
    // Const parameters stay (`k::<256>` must still name the value); others go.
    let mut generics = func.sig.generics.clone();
    generics.params = generics
        .params
        .into_iter()
        .filter(|p| matches!(p, syn::GenericParam::Const(c) if c.default.is_none()))
        .collect();
    generics.where_clause = None;
    let (impl_generics, ty_generics, _) = generics.split_for_impl();
    // A slice of a type that is neither a scalar nor a struct of the file: the error said
    // so; a `launch` taking `&Buffer<T>` would add rustc's own about `T`.
    let records = func
        .sig
        .ident
        .span()
        .local_file()
        .map(|f| crate::front::consts::ModuleConsts::of_file(&f).records)
        .unwrap_or_default();
    let unknown_elem = func.sig.inputs.iter().any(|input| {
        let syn::FnArg::Typed(pt) = input else {
            return false;
        };
        let syn::Type::Reference(r) = &*pt.ty else {
            return false;
        };
        let syn::Type::Slice(s) = &*r.elem else {
            return false;
        };
        match &*s.elem {
            syn::Type::Path(p) => p.path.get_ident().is_some_and(|id| {
                let id = id.to_string();
                crate::ir::Scalar::from_rust_name(&id).is_none() && !records.knows(&id)
            }),
            _ => false,
        }
    });
    let launch = launch_params(func).filter(|_| !unknown_elem).map(|params| {
        quote! {
            #[allow(clippy::too_many_arguments, unused_variables)]
            pub fn launch(
                &self,
                __target: &impl ::cuphase::LaunchTarget,
                __launch: ::cuphase::Launch,
                #(#params),*
            ) -> ::core::result::Result<(), ::cuphase::Error> {
                ::core::result::Result::Err(::cuphase::__private::not_compiled(stringify!(#name)))
            }
        }
    });
    quote! {
        #errors
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #name #generics;
        impl #impl_generics #name #ty_generics {
            #launch

            /// Empty: the kernel did not compile.
            pub fn cuda_source(&self) -> &'static str {
                ""
            }

            /// Empty: the kernel did not compile.
            pub fn report(&self) -> &'static str {
                ""
            }

            /// The kernel's name.
            pub fn name(&self) -> &'static str {
                stringify!(#name)
            }
        }
    }
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => {
                let mut n = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                n.set_span(span);
                proc_macro2::TokenTree::Group(n)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}
