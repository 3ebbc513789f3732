//! The float math methods (`exp`, `ln`, `sin`, `tanh`, `powf`, ...) from one definition.
//!
//! Takes the methods a kernel calls; gives the functions that compute them, as CUDA C for the
//! GPU ([`cuda_source`]) and as Rust for the simulator ([`sim_items`]), both from the Rust text
//! of [`libm`] (compiled here too, so that the tests check it against a high-precision
//! reference). A method has one answer everywhere: the simulator and the GPU compute the
//! same bits, which neither CUDA's libm nor the host's would give (they differ in the last
//! bits on about a tenth of the inputs of `tanh`).
//!
//! `fast_math` kernels keep CUDA's hardware approximations on the GPU (`__expf` and friends);
//! the simulator computes them with this library, so the two may differ there.

mod c;
#[allow(dead_code)]
pub mod libm;

use crate::ir::{Expr, Kernel, Method, Scalar};
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeSet;

/// The library's source files (its `mod.rs` only declares them).
const SOURCES: [&str; 3] = [
    include_str!("libm/exp_log.rs"),
    include_str!("libm/trig.rs"),
    include_str!("libm/single.rs"),
];

/// The library function computing `m` on `t`, when the library defines it: `exp_f32`.
pub fn function(m: Method, t: Scalar) -> Option<String> {
    let base = match m {
        Method::Exp => "exp",
        Method::Exp2 => "exp2",
        Method::ExpM1 => "exp_m1",
        Method::Ln => "ln",
        Method::Log2 => "log2",
        Method::Log10 => "log10",
        Method::Ln1p => "ln_1p",
        Method::Sin => "sin",
        Method::Cos => "cos",
        Method::Tan => "tan",
        Method::Tanh => "tanh",
        Method::Sinh => "sinh",
        Method::Cosh => "cosh",
        Method::Asinh => "asinh",
        Method::Acosh => "acosh",
        Method::Atanh => "atanh",
        Method::Asin => "asin",
        Method::Acos => "acos",
        Method::Atan => "atan",
        Method::Atan2 => "atan2",
        Method::Powf => "powf",
        Method::Hypot => "hypot",
        Method::Cbrt => "cbrt",
        _ => return None,
    };
    let suffix = match t {
        Scalar::F32 => "f32",
        Scalar::F64 => "f64",
        _ => return None,
    };
    Some(format!("{base}_{suffix}"))
}

/// The library functions `k` calls, given each method call's receiver type.
pub fn used(
    k: &Kernel,
    receiver_type: impl Fn(crate::ir::Handle<Expr>) -> Scalar,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, e) in k.exprs.iter() {
        if let Expr::Method {
            method, receiver, ..
        } = e
        {
            if let Some(f) = function(*method, receiver_type(*receiver)) {
                out.insert(f);
            }
        }
    }
    out
}

/// The parsed library; `None` only if the library itself is broken, which the unit tests
/// rule out.
fn parse() -> Option<Vec<syn::File>> {
    SOURCES.iter().map(|s| syn::parse_file(s).ok()).collect()
}

/// The names of the items `roots` reach (calls and constants), themselves included.
fn reachable(lib: &c::Library<'_>, roots: &BTreeSet<String>) -> Vec<String> {
    use syn::visit::Visit;
    struct Names<'n>(&'n mut BTreeSet<String>);
    impl<'ast> Visit<'ast> for Names<'_> {
        fn visit_path(&mut self, p: &'ast syn::Path) {
            if let Some(id) = p.get_ident() {
                self.0.insert(id.to_string());
            }
            syn::visit::visit_path(self, p);
        }
    }
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut work: Vec<String> = roots.iter().cloned().collect();
    while let Some(name) = work.pop() {
        let Some((_, item)) = lib.items.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        if !seen.insert(name) {
            continue;
        }
        let mut names = BTreeSet::new();
        Names(&mut names).visit_item(item);
        work.extend(names.into_iter().filter(|n| !seen.contains(n)));
    }
    lib.items
        .iter()
        .filter(|(n, _)| seen.contains(n))
        .map(|(n, _)| n.clone())
        .collect()
}

/// The CUDA C definitions of `fns` and what they reach, in `namespace cuphase::math`; empty
/// for no functions.
pub fn cuda_source(fns: &BTreeSet<String>) -> String {
    if fns.is_empty() {
        return String::new();
    }
    let Some(file) = parse() else {
        return String::from("#error \"cuphase: the math library does not parse\"\n");
    };
    match c::Library::new(&file).and_then(|lib| {
        let items = reachable(&lib, fns);
        let names: Vec<&str> = items.iter().map(String::as_str).collect();
        lib.to_c(&names)
    }) {
        Ok(text) => text,
        Err(e) => format!("#error \"cuphase: the math library does not translate: {e}\"\n"),
    }
}

/// The simulator's module `__cuphase_math` with `fns` and what they reach, as Rust; empty for
/// no functions.
pub fn sim_items(fns: &BTreeSet<String>) -> TokenStream {
    if fns.is_empty() {
        return TokenStream::new();
    }
    let Some(file) = parse() else {
        return quote!(::core::compile_error!("cuphase: the math library does not parse"););
    };
    let Ok(lib) = c::Library::new(&file) else {
        return quote!(::core::compile_error!("cuphase: the math library is outside its subset"););
    };
    let items = reachable(&lib, fns);
    let items = lib
        .items
        .iter()
        .filter(|(n, _)| items.contains(n))
        .map(|(_, item)| item);
    quote! {
        #[allow(dead_code, clippy::all, clippy::pedantic, clippy::nursery)]
        mod __cuphase_math {
            #(#items)*
        }
    }
}

#[cfg(test)]
mod tests;
