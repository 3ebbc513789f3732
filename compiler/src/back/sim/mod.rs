//! The simulator writer: a checked kernel becomes Rust code for cuphase's CPU simulator.
//!
//! Most kernels are written phase-split (`split`, from the plan in `plan`): block-level
//! control flow around loops over the block's threads between barriers, and loops over the
//! warps where warp operations sit between barriers (`warps`). The kernels the plan cannot
//! split keep the first design: each GPU thread runs as one `async fn` whose only await points
//! are barriers and warp operations, and the runtime polls every thread of a block until each
//! finishes or waits. Both share this file's statement and expression writers. Memory goes
//! through the runtime's bounds-checked accessors, arithmetic through Rust's wrapping and
//! checked operations, so the generated code cannot panic: every fault is a `Fault` value that
//! ends the launch with an error naming the Rust location. Tokens carry the user's spans, so
//! rustc's own type checking of this code points at the kernel's source.
//!
//! Takes a checked kernel; gives [`SimCode`]. The variants of the runtime's enums that
//! generated code names by path (`sim::WarpKind`, `sim::Distribution`) are spelled by the
//! contract's `WarpOp::variant()` and `Distribution::variant()` (the IR's types are the
//! contract's), not by this writer; the runtime's enums carry the same variant names.

use super::rust_types::{record_type_tokens, scalar_tokens, site};
use crate::ir::Types;
use crate::ir::*;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};

mod expr;
mod guard;
mod items;
mod mma;
mod plan;
mod ranges;
mod registers;
mod split;
mod straight;
#[cfg(test)]
mod tests;
mod uses;
mod warps;
mod wgmma;

/// The generated simulator functions of one kernel.
pub struct SimCode {
    /// `async fn __cuphase_thread(...)`: one GPU thread, where the kernel is not phase-split.
    pub thread_fn: Option<TokenStream>,
    /// `fn __cuphase_block(...)`: one block, allocating shared memory and running the threads
    /// (phase by phase, or as futures).
    pub block_fn: TokenStream,
}

/// Writes the simulator functions. `file` is the Rust path used in fault locations;
/// `exclusive`, the `&mut` buffers each thread owns one element of (the report's).
pub fn write_kernel(k: &Kernel, types: &Types, file: &str, exclusive: &[Handle<Array>]) -> SimCode {
    let w = Writer::new(k, types, file, exclusive);
    w.write()
}

/// The state of writing one kernel's simulator code: the kernel and the Rust names of its
/// locals and arrays.
struct Writer<'a> {
    k: &'a Kernel,
    types: &'a Types,
    file: String,
    local_names: Vec<Ident>,
    array_names: Vec<Ident>,
    /// For the first field of a `&[P]` parameter, the parameter's name.
    base_names: Vec<Option<Ident>>,
    /// The phase-split plan's state, when the kernel is written phase-split.
    split: Option<plan::Split>,
    /// Per array: a local array kept in Rust locals, one an element (`registers`).
    registers: Vec<bool>,
    /// How accesses and faults are written (`straight`).
    mode: std::cell::Cell<straight::Mode>,
    /// Per array, while a straight part is written: whether the part writes it.
    part_writes: std::cell::RefCell<Vec<bool>>,
    /// While a straight pass is written: its guards proven true for every thread, each with
    /// the `bool` that says so at run time (`ranges`).
    guards: std::cell::RefCell<Vec<(Handle<Expr>, Ident)>>,
    /// The `&mut` buffers of scalars each thread owns one element of (`analysis::exclusive`):
    /// the straight pass accesses them with plain loads and stores. (A slice of structs' or
    /// arrays' fields are views the straight pass does not take.)
    exclusive: Vec<Handle<Array>>,
}

impl<'a> Writer<'a> {
    /// A writer for `k`, whose fault locations name `file`.
    fn new(k: &'a Kernel, types: &'a Types, file: &str, exclusive: &[Handle<Array>]) -> Self {
        let mut namer = super::namer::Namer::default();
        // A const generic parameter's or module constant's name is taken (a parameter of that
        // name would be a constant pattern): its value travels under another name.
        for p in k.params.iter().filter(|p| p.is_implicit()) {
            let _ = namer.call(&p.name);
        }
        let local_names = k
            .locals
            .iter()
            .map(|(h, l)| Ident::new(&namer.call(&l.name), site(k.locals.span(h).lo)))
            .collect();
        // A `&[P]` parameter is passed whole under its name; each field's view (`ps.x`) gets
        // a name of its own.
        let mut base_names = Vec::new();
        let mut array_names = Vec::new();
        for (h, a) in k.arrays.iter() {
            let span = site(k.arrays.span(h).lo);
            base_names.push(match &a.field {
                Some(f) if f.leaf == 0 => Some(Ident::new(&namer.call(&f.base), span)),
                _ => None,
            });
            let name = namer.call(&a.ident());
            array_names.push(Ident::new(&name, span));
        }
        Writer {
            k,
            types,
            file: file.to_string(),
            local_names,
            array_names,
            base_names,
            split: plan::Split::of(k, types),
            registers: registers::register_arrays(k),
            mode: std::cell::Cell::new(straight::Mode::Checked),
            part_writes: std::cell::RefCell::default(),
            guards: std::cell::RefCell::default(),
            exclusive: exclusive
                .iter()
                .copied()
                .filter(|a| k.arrays.get(*a).field.is_none())
                .collect(),
        }
    }

    /// The variable holding element `flat` (row-major) of register array `a`.
    fn register(&self, a: Handle<Array>, flat: usize) -> Ident {
        quote::format_ident!("__r_{}_{}", self.array_names[a.index()], flat)
    }

    /// The variables of every element of register array `a`, in row-major order.
    fn registers_of(&self, a: Handle<Array>) -> Vec<Ident> {
        (0..registers::elements(self.k, a))
            .map(|i| self.register(a, i))
            .collect()
    }

    /// The thread and block functions.
    fn write(&self) -> SimCode {
        let k = self.k;
        let mut thread_params = Vec::new();
        let mut thread_args = Vec::new();
        let mut block_params = Vec::new();
        let mut block_args = Vec::new();
        let mut shared_decls = Vec::new();
        for (h, a) in k.arrays.iter() {
            if let ArrayKind::Shared { dims, dynamic, .. } = &a.kind {
                let name = &self.array_names[h.index()];
                let elem = scalar_tokens(a.elem, proc_macro2::Span::call_site());
                let dims = dims.iter().map(|d| *d as usize);
                let label = &a.name;
                if *dynamic {
                    shared_decls.push(quote! {
                        let #name = __block.shared::<#elem>(&[__block.dynamic_len::<#elem>()], #label);
                    });
                } else {
                    shared_decls.push(quote! {
                        let #name = __block.shared::<#elem>(&[#(#dims),*], #label);
                    });
                }
                thread_params.push(quote!(#name: &::cuphase::__private::sim::Shared<#elem>));
                thread_args.push(quote!(&#name));
            }
        }
        for p in &k.params {
            match p.kind {
                ParamKind::Scalar { local, ty } => {
                    let name = &self.local_names[local.index()];
                    let t = scalar_tokens(ty, proc_macro2::Span::call_site());
                    thread_params.push(quote!(#name: #t));
                    block_params.push(quote!(#name: #t));
                    thread_args.push(quote!(#name));
                    block_args.push(quote!(#name));
                }
                ParamKind::Slice { array } if k.arrays.get(array).field.is_some() => {
                    let Some(name) = &self.base_names[array.index()] else {
                        continue;
                    };
                    let Some(f) = &k.arrays.get(array).field else {
                        continue;
                    };
                    let rec = record_type_tokens(&k.records, f.record, site(p.span.lo));
                    thread_params.push(quote!(#name: ::cuphase::__private::sim::Global<'_, #rec>));
                    block_params.push(quote!(#name: ::cuphase::__private::sim::Global<'_, #rec>));
                    thread_args.push(quote!(#name));
                    block_args.push(quote!(#name));
                }
                ParamKind::Slice { array } => {
                    let name = &self.array_names[array.index()];
                    let t = scalar_tokens(k.arrays.get(array).elem, proc_macro2::Span::call_site());
                    thread_params.push(quote!(#name: ::cuphase::__private::sim::Global<'_, #t>));
                    block_params.push(quote!(#name: ::cuphase::__private::sim::Global<'_, #t>));
                    thread_args.push(quote!(#name));
                    block_args.push(quote!(#name));
                }
            }
        }
        // Thread-local arrays: the shared-array type without a race shadow, one per thread.
        let mut local_decls = Vec::new();
        // The field views of the `&[P]` parameters: the derive keeps an element's fields as a
        // tuple of cells (nested structs as nested tuples), in declaration order.
        let mut base = None;
        for (h, a) in k.arrays.iter() {
            let Some(f) = &a.field else {
                continue;
            };
            if let Some(b) = &self.base_names[h.index()] {
                base = Some(b.clone());
            }
            let (Some(b), Some(leaf)) = (&base, leaves(&k.records, f.record).get(f.leaf).cloned())
            else {
                continue;
            };
            let name = &self.array_names[h.index()];
            let t = scalar_tokens(a.elem, proc_macro2::Span::call_site());
            // A struct's cell is the tuple of its fields' cells, an array's the array of its
            // elements'.
            // A vector record's cell is its array's: its one field is no step.
            let skip = usize::from(k.records.get(f.record).is_some_and(|r| r.vector));
            let path = leaf.path.iter().skip(skip).map(|s| match s {
                Step::Field { index, .. } => {
                    let i = syn::Index::from(*index);
                    quote!(.#i)
                }
                Step::Element(k) => {
                    let k = *k as usize;
                    quote!([#k])
                }
            });
            let label = &a.name;
            let n = f.leaf;
            local_decls.push(quote! {
                let #name = #b.field::<#t>(#n, #label, |__c| &__c #(#path)*);
            });
        }
        // The math library's functions the kernel calls, as a module in the function that
        // calls them (the block function when phase-split, the thread function otherwise).
        let math = crate::math::sim_items(&crate::math::used(k, |h| self.types.expr(h)));
        if let Some(split) = &self.split {
            shared_decls.push(math);
            let block_fn = self.write_split(split, &shared_decls, &block_params, &local_decls);
            return SimCode {
                thread_fn: None,
                block_fn,
            };
        }
        for (h, a) in k.arrays.iter() {
            if let ArrayKind::Local { dims, .. } = &a.kind {
                let name = &self.array_names[h.index()];
                let elem = scalar_tokens(a.elem, proc_macro2::Span::call_site());
                if self.registers[h.index()] {
                    let regs = self.registers_of(h);
                    local_decls.push(quote! {
                        #(let mut #regs: #elem = <#elem as ::core::default::Default>::default();)*
                    });
                    continue;
                }
                let dims = dims.iter().map(|d| *d as usize);
                let label = &a.name;
                local_decls.push(quote! {
                    let #name = ::cuphase::__private::sim::Shared::<#elem>::new(&[#(#dims),*], #label, false);
                });
            }
        }
        local_decls.push(math);
        let body = self.block(&k.body);
        let thread_fn = quote! {
            #[allow(unused_mut, unused_variables, unused_assignments, unused_parens, unused_braces, unreachable_code,
                    clippy::all, clippy::pedantic, clippy::nursery)]
            async fn __cuphase_thread(
                __block: &::cuphase::__private::sim::BlockCtx<'_>,
                __cx: ::cuphase::__private::sim::ThreadCtx,
                #(#thread_params),*
            ) -> ::core::result::Result<(), ::cuphase::__private::sim::Fault> {
                #(#local_decls)*
                #body
                ::core::result::Result::Ok(())
            }
        };
        let block_fn = quote! {
            #[allow(clippy::all)]
            fn __cuphase_block(
                __block: &::cuphase::__private::sim::BlockCtx,
                #(#block_params),*
            ) -> ::core::result::Result<(), ::cuphase::Error> {
                #(#shared_decls)*
                __block.run(|__cx| Self::__cuphase_thread(__block, __cx, #(#thread_args),*))
            }
        };
        let _ = block_args;
        SimCode {
            thread_fn: Some(thread_fn),
            block_fn,
        }
    }

    /// The shared arrays the kernel copies into asynchronously (each keeps its copies in
    /// flight and the threads' group counts: a commit or a wait goes to each).
    fn async_destinations(&self) -> Vec<Handle<Array>> {
        let mut out = Vec::new();
        visit::for_each_stmt(&self.k.body, false, &mut |s, _| {
            if let Stmt::AsyncCopy { dst, .. } = s {
                out.push(*dst);
            }
        });
        out.sort_by_key(|a| a.index());
        out.dedup();
        out
    }

    /// The runtime's `Loc` of `span`, for fault messages.
    fn loc(&self, span: Span) -> TokenStream {
        let start = span.start();
        let file = span.file_or(&self.file);
        let line = start.line as u32;
        let col = start.column as u32 + 1;
        quote!(&::cuphase::__private::sim::Loc { file: #file, line: #line, col: #col })
    }

    /// The statements of a block.
    fn block(&self, b: &Block) -> TokenStream {
        let stmts = b.iter().map(|(s, span)| self.stmt(s, span));
        quote!(#(#stmts)*)
    }

    /// A loop label as a lifetime token.
    fn label(&self, l: Handle<Label>) -> syn::Lifetime {
        let name = &self.k.labels.get(l).name;
        syn::Lifetime::new(&format!("'{name}"), site(self.k.labels.span(l).lo))
    }

    /// The iterator of a `for` loop's values for the thread `__cx`.
    fn for_range(&self, kind: &LoopKind, span: Span) -> TokenStream {
        let LoopKind::For {
            start,
            end,
            step,
            distribution,
            inclusive,
            reverse,
            ..
        } = kind
        else {
            return quote!(::core::compile_error!("cuphase: not a for loop"));
        };
        let s = self.expr(*start);
        let e = self.expr(*end);
        let loc = self.loc(span);
        // A sequential loop counting up is Rust's own range, which rustc optimises best.
        if *distribution == Distribution::Sequential && reverse.is_none() {
            let range = if *inclusive {
                quote!((#s)..=(#e))
            } else {
                quote!((#s)..(#e))
            };
            return match step {
                Some(st) => {
                    let st = self.expr(*st);
                    let st =
                        self.fallible(quote!(::cuphase::__private::sim::step_of(#st, #loc)), span);
                    quote!(::core::iter::Iterator::step_by(#range, #st as usize))
                }
                None => range,
            };
        }
        let step = match step {
            Some(st) => {
                let st = self.expr(*st);
                let st = self.fallible(quote!(::cuphase::__private::sim::step_of(#st, #loc)), span);
                quote!(::core::option::Option::Some(#st))
            }
            None => quote!(::core::option::Option::None),
        };
        // The runtime's `Distribution` is the contract's, as the IR's is.
        let dist = Ident::new(distribution.variant(), proc_macro2::Span::call_site());
        let dist = quote!(__cx.distribution(::cuphase::__private::sim::Distribution::#dist));
        match (reverse, inclusive) {
            (Some(r), _) => {
                let stepped = *r == Reverse::Stepped;
                quote!(::cuphase::__private::sim::range_rev(#s, #e, #step, #inclusive, #stepped))
            }
            (None, true) => {
                quote!(::cuphase::__private::sim::range_inclusive(#s, #e, #step, #dist))
            }
            (None, false) => quote!(::cuphase::__private::sim::range(#s, #e, #step, #dist)),
        }
    }

    /// One statement.
    fn stmt(&self, s: &Stmt, span: Span) -> TokenStream {
        match s {
            Stmt::Let { local, init } => {
                let name = &self.local_names[local.index()];
                let t = scalar_tokens(self.types.local(*local), span);
                let m = if self.k.locals.get(*local).mutable {
                    quote!(mut)
                } else {
                    quote!()
                };
                if self.spilled(*local) {
                    return match init {
                        Some(e) => {
                            let v = self.expr(*e);
                            quote_spanned!(site(span.lo)=> #name = #v;)
                        }
                        None => quote!(),
                    };
                }
                match init {
                    Some(e) => {
                        let v = self.expr(*e);
                        quote_spanned!(site(span.lo)=> let #m #name: #t = #v;)
                    }
                    None => quote_spanned!(site(span.lo)=> let #m #name: #t;),
                }
            }
            Stmt::Assign { place, op, value } => {
                let v = self.expr(*value);
                match place {
                    Place::Local(l) => {
                        let name = self.local_place(*l);
                        match op {
                            None => quote_spanned!(site(span.lo)=> #name = #v;),
                            Some(op) => {
                                let lt = self.types.local(*l);
                                let rt = self.types.expr(*value);
                                let r = self.binary(*op, lt, rt, quote!(#name), quote!(__v), span);
                                quote_spanned!(site(span.lo)=> { let __v = #v; #name = #r; })
                            }
                        }
                    }
                    Place::Element { array, index } if self.registers[array.index()] => {
                        let elem = self.k.arrays.get(*array).elem;
                        let Some(flat) = registers::flat_index(self.k, *array, index) else {
                            return registers::internal_error(span);
                        };
                        let reg = self.register(*array, flat);
                        let new_value = match op {
                            None => quote!(__v),
                            Some(op) => {
                                let rt = self.types.expr(*value);
                                self.binary(*op, elem, rt, quote!(#reg), quote!(__v), span)
                            }
                        };
                        quote_spanned! {site(span.lo)=> {
                            let __v = #v;
                            #reg = #new_value;
                        }}
                    }
                    Place::Element { array, index } => {
                        let a = self.k.arrays.get(*array);
                        let name = &self.array_names[array.index()];
                        let loc = self.loc(span);
                        let idx: Vec<TokenStream> = index
                            .iter()
                            .map(|i| {
                                let e = self.expr(*i);
                                quote!((#e) as usize)
                            })
                            .collect();
                        let idx_names: Vec<Ident> = (0..idx.len())
                            .map(|i| Ident::new(&format!("__i{i}"), site(span.lo)))
                            .collect();
                        if let Some(code) = self.mode_store(
                            *array,
                            &idx,
                            v.clone(),
                            |old| match op {
                                None => quote!(__v),
                                Some(op) => {
                                    let rt = self.types.expr(*value);
                                    self.binary(*op, a.elem, rt, old, quote!(__v), span)
                                }
                            },
                            span,
                        ) {
                            return code;
                        }
                        let (load, store) = match (&a.kind, idx.len()) {
                            (ArrayKind::Global { .. }, _) => (quote!(load), quote!(store)),
                            (_, 1) => (quote!(load1), quote!(store1)),
                            _ => (quote!(load2), quote!(store2)),
                        };
                        let new_value = match op {
                            None => quote!(__v),
                            Some(op) => {
                                let rt = self.types.expr(*value);
                                let old = quote!(#name.#load(#(#idx_names,)* #loc)?);
                                self.binary(*op, a.elem, rt, old, quote!(__v), span)
                            }
                        };
                        // Rust evaluates the value before the place of an assignment to an element.
                        quote_spanned! {site(span.lo)=> {
                            let __v = #v;
                            #(let #idx_names = #idx;)*
                            let __new = #new_value;
                            #name.#store(#(#idx_names,)* __new, #loc)?;
                        }}
                    }
                }
            }
            Stmt::If {
                cond,
                accept,
                reject,
            } => {
                let c = self.guarded(*cond, self.expr(*cond));
                let a = self.block(accept);
                let r = self.block(reject);
                quote_spanned!(site(span.lo)=> if #c { #a } else { #r })
            }
            Stmt::Loop { label, kind, body } => {
                let lbl = label.map(|l| {
                    let lt = self.label(l);
                    quote!(#lt:)
                });
                self.open_loop(*label);
                let b = self.block(body);
                self.close_loop();
                // `loop` and `while` may run forever: the watchdog can stop them.
                let watch = self.fallible(quote!(::cuphase::__private::sim::watchdog()), span);
                let stop = self.dry_stop();
                let check = quote!(#stop #watch;);
                match kind {
                    LoopKind::Infinite => quote_spanned!(site(span.lo)=> #lbl loop { #check #b }),
                    LoopKind::While { cond } => {
                        let c = self.expr(*cond);
                        quote_spanned!(site(span.lo)=> #lbl while #c { #check #b })
                    }
                    LoopKind::For { var, .. } => {
                        let name = &self.local_names[var.index()];
                        let range = self.for_range(kind, span);
                        quote_spanned! {site(span.lo)=>
                            #lbl for #name in #range { #stop #b }
                        }
                    }
                }
            }
            Stmt::Break { label } => {
                if let Some(exit) = self.split_exit(*label, false, span) {
                    return exit;
                }
                let l = label.map(|l| self.label(l));
                quote_spanned!(site(span.lo)=> break #l;)
            }
            Stmt::Continue { label } => {
                if let Some(exit) = self.split_exit(*label, true, span) {
                    return exit;
                }
                let l = label.map(|l| self.label(l));
                quote_spanned!(site(span.lo)=> continue #l;)
            }
            Stmt::Return if self.split.is_some() => self.split_return(),
            Stmt::Return => quote_spanned!(site(span.lo)=> return ::core::result::Result::Ok(());),
            Stmt::Barrier { .. } if self.split.is_some() => {
                quote_spanned!(site(span.lo)=> ::core::compile_error!("cuphase: a barrier inside a thread loop (internal error of the simulator writer)");)
            }
            Stmt::Barrier { .. } => {
                let loc = self.loc(span);
                quote_spanned!(site(span.lo)=> __cx.barrier(#loc).await;)
            }
            Stmt::Block(b) => {
                let b = self.block(b);
                quote_spanned!(site(span.lo)=> { #b })
            }
            Stmt::Atomic {
                op,
                array,
                index,
                value,
                result,
            } => {
                let a = self.k.arrays.get(*array);
                let name = &self.array_names[array.index()];
                let loc = self.loc(span);
                let i = self.expr(*index);
                let v = self.expr(*value);
                let t = scalar_tokens(a.elem, span);
                let f = match op {
                    AtomicOp::Add if a.elem.is_int() => quote!(__old.wrapping_add(__v)),
                    AtomicOp::Add => quote!(__old + __v),
                    AtomicOp::Sub => quote!(__old.wrapping_sub(__v)),
                    AtomicOp::Min => quote!(::core::cmp::Ord::min(__old, __v)),
                    AtomicOp::Max => quote!(::core::cmp::Ord::max(__old, __v)),
                    AtomicOp::And => quote!(__old & __v),
                    AtomicOp::Or => quote!(__old | __v),
                    AtomicOp::Xor => quote!(__old ^ __v),
                    AtomicOp::Exchange => quote!(__v),
                };
                let method = match a.kind {
                    ArrayKind::Global { .. } => quote!(rmw),
                    ArrayKind::Shared { .. } | ArrayKind::Local { .. } => quote!(rmw1),
                };
                let call = quote_spanned! {site(span.lo)=> {
                    let __v: #t = #v;
                    #name.#method((#i) as usize, |__old: #t| #f, #loc)?
                }};
                match result {
                    Some(r) => {
                        let rn = self.local_place(*r);
                        quote_spanned!(site(span.lo)=> #rn = #call;)
                    }
                    None => quote_spanned!(site(span.lo)=> let _ = #call;),
                }
            }
            Stmt::Eval(e) => {
                let v = self.expr(*e);
                quote_spanned!(site(span.lo)=> let _ = #v;)
            }
            Stmt::Check { proved: true, .. } => quote!(),
            Stmt::Check {
                index, len, array, ..
            } => {
                let v = self.expr(*index);
                let loc = self.loc(span);
                let fault = self.fault(
                    quote!(::cuphase::__private::sim::Fault::OutOfBounds {
                        array: #array,
                        index: __i,
                        len: #len,
                        loc: #loc,
                    }),
                    span,
                );
                quote_spanned!(site(span.lo)=> {
                    let __i = (#v) as u64;
                    if __i >= #len {
                        #fault
                    }
                })
            }
            Stmt::Mma { .. } => self.mma_thread(s, span),
            Stmt::Wgmma { .. } => self.wgmma_thread(s, span),
            Stmt::WgmmaCommit | Stmt::WgmmaWait { .. } => self.wgmma_group(s, span),
            Stmt::LoadMatrix { .. } => self.load_matrix_thread(s, span),
            Stmt::AsyncCopy {
                dst,
                dst_index,
                row,
                src,
            } => {
                let name = &self.array_names[dst.index()];
                let loc = self.loc(span);
                let idx: Vec<TokenStream> = dst_index
                    .iter()
                    .map(|i| {
                        let e = self.expr(*i);
                        quote!((#e) as usize)
                    })
                    .collect();
                let values: Vec<TokenStream> = src.iter().map(|e| self.expr(*e)).collect();
                let lanes: Vec<Ident> = (0..src.len())
                    .map(|l| Ident::new(&format!("__v{l}"), site(span.lo)))
                    .collect();
                // The place's row and each lane's column (0 in a one-dimensional array).
                let (r, cols): (TokenStream, Vec<TokenStream>) = match (row, idx.as_slice()) {
                    (true, [r]) => (r.clone(), (0..src.len()).map(|l| quote!(#l)).collect()),
                    (false, [i]) => (i.clone(), vec![quote!(0usize)]),
                    (false, [r, c]) => (r.clone(), vec![c.clone()]),
                    _ => {
                        return quote!(::core::compile_error!("cuphase: an asynchronous copy's place (internal error of the simulator writer)");)
                    }
                };
                // The place, then the value (read now), as Rust evaluates the arguments.
                quote_spanned! {site(span.lo)=> {
                    let __row = #r;
                    #(let #lanes = #values;)*
                    let __me = __cx.linear();
                    #(#name.copy_async(__row, #cols, #lanes, __me, #loc)?;)*
                }}
            }
            Stmt::AsyncCommit | Stmt::AsyncWait { .. } => {
                let calls = self.async_destinations().into_iter().map(|a| {
                    let name = &self.array_names[a.index()];
                    match s {
                        Stmt::AsyncWait { pending } => {
                            quote!(#name.wait_async(__me, #pending)?;)
                        }
                        _ => quote!(#name.commit_async(__me);),
                    }
                });
                quote_spanned! {site(span.lo)=> {
                    let __me = __cx.linear();
                    #(#calls)*
                }}
            }
            Stmt::Warp {
                op,
                value,
                lane,
                result,
            } => {
                let loc = self.loc(span);
                // The runtime's `WarpKind` names its variants as the contract's `WarpOp` does.
                let kind = Ident::new(op.variant(), site(span.lo));
                let kind = quote!(::cuphase::__private::sim::WarpKind::#kind);
                let (Some(v), Some(r)) = (value, result) else {
                    return quote_spanned!(site(span.lo)=> __cx.warp(#kind, 0, 0, #loc).await;);
                };
                let rn = self.local_place(*r);
                let vt = self.types.expr(*v);
                let ty = scalar_tokens(vt, span);
                let v = self.expr(*v);
                let arg = match lane {
                    Some(l) => {
                        let l = self.expr(*l);
                        quote!((#l) as u32)
                    }
                    None => quote!(0u32),
                };
                let call = quote_spanned!(site(span.lo)=> __cx.warp(#kind, <#ty as ::cuphase::Scalar>::to_lane_bits(#v), #arg, #loc).await);
                match op {
                    WarpOp::Ballot => quote_spanned!(site(span.lo)=> #rn = #call as u32;),
                    WarpOp::All | WarpOp::Any => quote_spanned!(site(span.lo)=> #rn = #call != 0;),
                    _ => {
                        quote_spanned!(site(span.lo)=> #rn = <#ty as ::cuphase::Scalar>::from_lane_bits(#call);)
                    }
                }
            }
            // Simulated memory is sequentially consistent within a block and atomic across
            // blocks: a fence orders nothing more.
            Stmt::Fence(_) => {
                quote_spanned!(site(span.lo)=> ::core::sync::atomic::fence(::core::sync::atomic::Ordering::SeqCst);)
            }
            Stmt::Print { pieces, newline } => {
                let parts = pieces.iter().map(|p| match p {
                    PrintPiece::Text(t) => quote!(__text.push_str(#t);),
                    PrintPiece::Value { expr, spec } => {
                        let v = self.expr(*expr);
                        let FormatSpec {
                            left,
                            right,
                            zero,
                            width,
                            precision,
                        } = *spec;
                        let precision = match precision {
                            Some(p) => quote!(::core::option::Option::Some(#p)),
                            None => quote!(::core::option::Option::None),
                        };
                        quote! {
                            ::cuphase::__private::sim::push(&mut __text, #v, ::cuphase::__private::sim::Spec {
                                left: #left, right: #right, zero: #zero, width: #width, precision: #precision,
                            });
                        }
                    }
                });
                let newline = newline.then(|| quote!(__text.push('\n');));
                quote_spanned! {site(span.lo)=> {
                    let mut __text = ::std::string::String::new();
                    #(#parts)*
                    #newline
                    __block.print(__cx.thread_idx, &__text);
                }}
            }
            Stmt::Panic {
                message,
                debug_only,
            } => {
                let loc = self.loc(span);
                let fail = self.fault(
                    quote!(::cuphase::__private::sim::Fault::Panic { message: #message, loc: #loc }),
                    span,
                );
                if *debug_only {
                    quote_spanned!(site(span.lo)=> if cfg!(debug_assertions) { #fail })
                } else {
                    fail
                }
            }
        }
    }
}
