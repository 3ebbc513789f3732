//! Generic parameters: the bounds of kernels' type parameters, their instances, and the
//! token substitution that makes an instance of a generic kernel or helper.
//!
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
use std::collections::HashMap;

/// The most instances one generic kernel may have.
pub const MAX_INSTANCES: usize = 32;

/// The types a bound admits (the contract's list, which the runtime's marker traits follow).
fn admitted(bound: &str) -> Option<Vec<Scalar>> {
    let bound = cuphase_contract::Bound::from_name(bound)?;
    Some(
        bound
            .admitted()
            .into_iter()
            .filter_map(Scalar::from_rust_name)
            .collect(),
    )
}

/// What a helper's generic parameter is bound to at one call.
#[derive(Clone, Copy)]
pub enum GenericArg {
    /// A type argument.
    Type(Scalar),
    /// A const argument and its type.
    Const(i128, Scalar),
}

/// The scalar type of a const parameter (`u32`, `usize`, `bool`, ..), if it is one a kernel
/// may take.
pub fn const_type(ty: &syn::Type) -> Option<Scalar> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    Scalar::from_rust_name(&p.path.get_ident()?.to_string())
        .filter(|t| t.is_int() || *t == Scalar::Bool)
}

/// Rewrites every identifier token that names a generic parameter.
pub fn substitute(ts: TokenStream, args: &HashMap<String, GenericArg>) -> TokenStream {
    ts.into_iter()
        .map(|t| match t {
            TokenTree::Ident(id) => match args.get(&id.to_string()) {
                Some(GenericArg::Type(s)) => {
                    TokenTree::Ident(proc_macro2::Ident::new(s.rust_name(), id.span()))
                }
                Some(GenericArg::Const(v, Scalar::Bool)) => TokenTree::Ident(
                    proc_macro2::Ident::new(if *v != 0 { "true" } else { "false" }, id.span()),
                ),
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
pub fn params(func: &syn::ItemFn) -> Result<Vec<(Ident, Vec<Scalar>)>, Vec<Diagnostic>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    // An empty `where` is Rust's no-op.
    if let Some(w) = func
        .sig
        .generics
        .where_clause
        .as_ref()
        .filter(|w| !w.predicates.is_empty())
    {
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
pub fn instances(params: &[(Ident, Vec<Scalar>)]) -> Vec<Vec<Scalar>> {
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
