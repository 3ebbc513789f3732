//! The kernel's signature: what a kernel may declare, and its parameters as IR parameters.

use super::cx::*;
use super::syntax::*;
use crate::diag::Diagnostic;
use crate::ir::*;

impl Lowerer<'_> {
    pub(super) fn check_signature(&mut self, sig: &syn::Signature) {
        if let Some(t) = &sig.constness {
            self.err(t.span, "a kernel cannot be `const`");
        }
        if let Some(t) = &sig.asyncness {
            self.err(t.span, "a kernel cannot be `async`");
        }
        if let Some(t) = &sig.unsafety {
            self.err(
                t.span,
                "a kernel cannot be `unsafe fn`; mark the unsafe parts instead",
            );
        }
        if let Some(abi) = &sig.abi {
            self.err(
                abi.src(),
                "a kernel takes no `extern` ABI; cuphase chooses it",
            );
        }
        for p in &sig.generics.params {
            match p {
                syn::GenericParam::Const(c) => {
                    if type_to_scalar(&c.ty).is_none_or(|t| !t.is_int() && t != Scalar::Bool) {
                        self.err(c.ty.src(), "a const parameter of a kernel is an integer or a `bool`: `const N: u32`, `const N: usize`, `const P: bool`");
                    }
                    if let Some(d) = &c.default {
                        self.err(d.src(), "const parameters of kernels take no defaults");
                    }
                }
                syn::GenericParam::Lifetime(l) => self.err(
                    l.src(),
                    "a kernel takes no lifetime parameters: its slices live for the launch",
                ),
                other => self.err(
                    other.src(),
                    "a generic kernel is compiled per instance by `#[kernel]`; compile one instance",
                ),
            }
        }
        // An empty `where` is Rust's no-op.
        if let Some(w) = sig
            .generics
            .where_clause
            .as_ref()
            .filter(|w| !w.predicates.is_empty())
        {
            self.err(w.src(), "`where` clauses are not supported on kernels");
        }
        if let Some(v) = &sig.variadic {
            self.err(v.src(), "a kernel cannot be variadic");
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            let unit = matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty());
            if !unit {
                self.cx.push(
                    Diagnostic::new(ty.src(), "a kernel returns `()`")
                        .note("write results into a `&mut [T]` parameter"),
                );
            }
        }
    }

    pub(super) fn lower_params(&mut self, sig: &syn::Signature) -> Vec<Param> {
        let mut params = self.lower_value_params(sig);
        // Const generic parameters: scalars passed at launch, after the others.
        for p in &sig.generics.params {
            if let syn::GenericParam::Const(c) = p {
                let Some(ty) = type_to_scalar(&c.ty).filter(|t| t.is_int() || *t == Scalar::Bool)
                else {
                    continue;
                };
                let name = c.ident.to_string();
                let span = c.src();
                let local = self.locals.append(
                    Local {
                        name: name.clone(),
                        mutable: false,
                        annotated: Some(ty),
                        origin: LocalOrigin::Param,
                    },
                    span,
                );
                self.bind(name.clone(), Binding::Local(local));
                params.push(Param {
                    name,
                    kind: ParamKind::Scalar { local, ty },
                    span,
                    source: ParamSource::ConstGeneric,
                });
            }
        }
        params
    }

    pub(super) fn lower_value_params(&mut self, sig: &syn::Signature) -> Vec<Param> {
        let mut params = Vec::new();
        for input in &sig.inputs {
            let pt = match input {
                syn::FnArg::Typed(pt) => pt,
                syn::FnArg::Receiver(r) => {
                    self.err(r.src(), "a kernel is a free function; it takes no `self`");
                    continue;
                }
            };
            let (name, mutable) = match &*pt.pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    (pi.ident.to_string(), pi.mutability.is_some())
                }
                other => {
                    self.err(other.src(), "kernel parameters must be plain names");
                    continue;
                }
            };
            if let Some(attr) = pt.attrs.first() {
                self.err(
                    attr.src(),
                    "attributes on kernel parameters are not supported",
                );
            }
            let span = pt.src();
            if let syn::Type::Reference(r) = &*pt.ty {
                if let Some(lt) = &r.lifetime {
                    self.err(lt.src(), "kernel parameters take no lifetimes");
                }
                let elem = match &*r.elem {
                    syn::Type::Slice(s) => match type_to_scalar(&s.elem) {
                        Some(t) => t,
                        None => {
                            let record = match self.vector_record(&s.elem) {
                                Some(v) => Some(v),
                                None => self.record_of_named_type(&s.elem),
                            };
                            match record {
                                Some(Ok(record)) => {
                                    if mutable {
                                        self.err(pt.pat.src(), "a slice parameter cannot be `mut`");
                                    }
                                    let array = self.lower_record_param(
                                        &name,
                                        record,
                                        r.mutability.is_some(),
                                        span,
                                    );
                                    params.push(Param {
                                        name,
                                        kind: ParamKind::Slice { array },
                                        span,
                                        source: ParamSource::Argument,
                                    });
                                }
                                // Its uses add no errors of their own.
                                Some(Err(why)) => {
                                    if !why.is_empty() {
                                        self.err(s.elem.src(), why);
                                    }
                                    self.bind(name, Binding::Poisoned);
                                }
                                None => {
                                    self.cx.push(unsupported_type(&s.elem));
                                    self.bind(name, Binding::Poisoned);
                                }
                            }
                            continue;
                        }
                    },
                    other => {
                        self.cx.push(
                            Diagnostic::new(
                                other.src(),
                                "a reference parameter of a kernel must be a slice `&[T]` or `&mut [T]`",
                            )
                            .note("pass a single value by value, or a one-element slice"),
                        );
                        continue;
                    }
                };
                if mutable {
                    self.err(pt.pat.src(), "a slice parameter cannot be `mut`");
                }
                let array = self.arrays.append(
                    Array {
                        field: None,
                        name: name.clone(),
                        elem,
                        kind: ArrayKind::Global {
                            mutable: r.mutability.is_some(),
                        },
                    },
                    span,
                );
                self.bind(name.clone(), Binding::Array(array));
                params.push(Param {
                    name,
                    kind: ParamKind::Slice { array },
                    span,
                    source: ParamSource::Argument,
                });
            } else {
                let Some(ty) = type_to_scalar(&pt.ty) else {
                    self.cx.push(unsupported_type(&pt.ty));
                    continue;
                };
                let local = self.locals.append(
                    Local {
                        name: name.clone(),
                        mutable,
                        annotated: Some(ty),
                        origin: LocalOrigin::Param,
                    },
                    span,
                );
                self.bind(name.clone(), Binding::Local(local));
                params.push(Param {
                    name,
                    kind: ParamKind::Scalar { local, ty },
                    span,
                    source: ParamSource::Argument,
                });
            }
        }
        params
    }
}
