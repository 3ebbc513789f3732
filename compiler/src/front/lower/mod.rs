//! Lowering: a `syn::ItemFn` becomes a [`Kernel`].
//!
//! Name resolution happens here (a name is a variable or an array), so do the checks that need
//! only syntax and names: the supported subset of Rust, assignment to immutable variables and
//! read-only slices, array ranks, loop labels. Every rejected construct is reported at its own
//! span with what to write instead; lowering goes on after an error so that one build shows
//! them all.

//!
//! The lowerer's state is in `cx`; each other file adds the methods for one concern:
//! `signature`, `stmt` (statements), `lets` (`let`), `expr` (values), `control` (control flow),
//! `memory` (shared arrays and places), `local_arrays` (thread-local arrays), `array_values` (arrays copied and iterated), `slices`
//! (sub-slices `&a[s..]`), `structs`, `struct_values` and `record_methods` (user structs and their methods), `options`, `option_methods` and
//! `option_patterns` (`Option` values), `calls` (the language's operations), `inline` (helper
//! and closure calls). `syntax` answers questions about `syn` syntax alone.

mod array_fields;
mod array_values;
mod async_copy;
mod calls;
mod control;
mod cx;
mod expr;
mod inline;
mod lets;
mod local_arrays;
mod memory;
mod mma;
mod option_methods;
mod option_patterns;
mod options;
mod record_methods;
mod record_parts;
mod rows;
mod signature;
mod slices;
mod stmt;
mod struct_values;
mod structs;
mod syntax;
mod wgmma;

use super::attr;
use super::consts::ModuleConsts;
use super::helpers::Helpers;
use crate::diag::Ctxt;
use crate::ir::*;
use cx::Lowerer;
use std::collections::HashMap;

/// Lowers a kernel function. Errors go to `cx`; the returned kernel is only meaningful when
/// `cx` has none.
pub fn lower_kernel(
    cx: &mut Ctxt,
    options: KernelOptions,
    func: &syn::ItemFn,
    helpers: &Helpers,
    consts: &ModuleConsts,
) -> Kernel {
    let mut l = Lowerer {
        cx,
        helpers,
        consts,
        assumed: Vec::new(),
        shift_amount: 0,
        calls: Vec::new(),
        let_inits: HashMap::new(),
        closure: options.closure,
        closures: Vec::new(),
        borrows: Vec::new(),
        subs: Vec::new(),
        records: Vec::new(),
        record_slices: Vec::new(),
        record_values: Vec::new(),
        option_vars: Vec::new(),
        record_call: None,
        array_call: None,
        const_params: func
            .sig
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                syn::GenericParam::Const(c) => Some(c.ident.to_string()),
                _ => None,
            })
            .collect(),
        pending_len_param: None,
        module_consts: Vec::new(),
        arrays: Arena::default(),
        locals: Arena::default(),
        exprs: Arena::default(),
        labels: Arena::default(),
        barriers: Vec::new(),
        in_unsafe: false,
        scopes: vec![HashMap::new()],
        loops: Vec::new(),
    };
    l.check_signature(&func.sig);
    let params = l.lower_params(&func.sig);
    let body = l.lower_fn_body(&func.block);
    // Module constants are passed after the others.
    let mut params = params;
    params.append(&mut l.module_consts);
    let mut kernel = Kernel {
        name: func.sig.ident.to_string(),
        name_span: func.sig.ident.src(),
        params,
        arrays: l.arrays,
        locals: l.locals,
        exprs: l.exprs,
        labels: l.labels,
        body,
        options,
        barriers: l.barriers,
        next_stmt_id: 0,
        assumed_consts: std::mem::take(&mut l.assumed),
        records: std::mem::take(&mut l.records),
    };
    kernel.number_statements();
    kernel
}

/// Parses `#[kernel(...)]` options; re-exported for the front end's entry point.
pub(super) fn parse_options(cx: &mut Ctxt, attr: proc_macro2::TokenStream) -> KernelOptions {
    attr::parse(cx, attr)
}
