//! Phase-split simulator code: a kernel cut at its barriers into loops over the block's
//! threads.
//!
//! The analyses proved every barrier block-uniform, so the control flow that holds barriers
//! (a loop whose body syncs, an `if` with a barrier in a branch) runs once per block, and the
//! statements between two barriers run as one loop over the threads: thread 0's part of the
//! phase, then thread 1's, in the launch's thread order. A value that lives from one such loop
//! to another is kept per thread (a `Vec` the size of the block); every other local stays a
//! plain Rust local of the loop body, which rustc keeps in registers. Conditions of the
//! block-level control flow are voted on by every live thread (the runtime's `Agree`), so a broken
//! uniformity promise is still a divergence error; a thread that returns is skipped from then
//! on, and a barrier that some threads will never reach is an error, as on the scheduler of
//! one future per thread. `break` and `continue` out of a thread loop to a loop that holds a
//! barrier leave the thread's part of the phase with a code the block resolves after the loop
//! (every live thread must take the same exit).
//!
//! Code between barriers that holds warp operations runs per warp (`warps`). Where the plan
//! cannot split a kernel (a loop exit from such code to a loop that syncs, a promise in a
//! condition around warp operations), it keeps one future per thread (the runtime's
//! `BlockCtx::run`).
//!
//! Takes the checked kernel through its [`Writer`]; gives `__cuphase_block`.

use super::guard::{x_guard, Guard};
use super::items::{promised, Item};
use super::plan::{
    hoist_bounds, mark_expr, mark_stmts, mark_writes, only_declarations, plan, Scope, Split,
};
use super::straight::Mode;
use super::Writer;
use crate::back::rust_types::{scalar_tokens, site};
use crate::ir::visit::any_stmt;
use crate::ir::*;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};

impl Writer<'_> {
    /// Whether local `l` is kept per thread.
    pub(super) fn spilled(&self, l: Handle<Local>) -> bool {
        self.split.as_ref().is_some_and(|s| s.spilled[l.index()])
    }

    /// Local `l` as a place to assign (a local kept per thread is loaded into a Rust local of
    /// the same name where a thread's part starts, and stored back where it ends).
    pub(super) fn local_place(&self, l: Handle<Local>) -> TokenStream {
        let name = &self.local_names[l.index()];
        quote!(#name)
    }

    /// The per-thread store of local `l`.
    fn store_name(&self, l: usize) -> Ident {
        format_ident!("__s_{}", self.local_names[l])
    }

    /// Where a thread's part ends: the locals kept per thread that it wrote, stored back, and
    /// the register arrays it wrote (`written` past the locals: per array).
    pub(super) fn write_back(&self, split: &Split, written: &[bool]) -> TokenStream {
        let n = self.k.locals.len();
        let stores = (0..written.len().min(n))
            .filter(|&l| written[l] && split.spilled[l])
            .map(|l| {
                let name = &self.local_names[l];
                let store = self.store_name(l);
                if self.mode.get() == Mode::Checked {
                    quote!(#store[__t] = #name;)
                } else {
                    // A straight loop's `__t` is below the block's size, the store's length.
                    quote!(unsafe { *#store.get_unchecked_mut(__t) = #name; })
                }
            });
        let arrays = written
            .iter()
            .skip(n)
            .zip(self.k.arrays.iter())
            .filter(|(w, (h, _))| {
                **w && self.registers[h.index()] && split.array_spilled[h.index()]
            })
            .map(|(_, (h, _))| {
                let name = &self.array_names[h.index()];
                let regs = self
                    .registers_of(h)
                    .into_iter()
                    .enumerate()
                    .map(|(i, reg)| quote!(#name.set(#i, #reg);));
                quote!(#(#regs)*)
            });
        quote!(#(#stores)* #(#arrays)*)
    }

    /// A loop opens inside the code being written.
    pub(super) fn open_loop(&self, label: Option<Handle<Label>>) {
        if let Some(s) = &self.split {
            s.scope.borrow_mut().inner.push(label);
        }
    }

    /// The loop last opened closes.
    pub(super) fn close_loop(&self) {
        if let Some(s) = &self.split {
            s.scope.borrow_mut().inner.pop();
        }
    }

    /// `return` inside a thread loop: the thread is done.
    pub(super) fn split_return(&self) -> TokenStream {
        if let Some(s) = &self.split {
            s.scope.borrow_mut().returns = true;
        }
        quote!({
            __run.retire(__t);
            break '__thread;
        })
    }

    /// `break` or `continue` (`again`) to `label` inside a thread loop, where it leaves the
    /// thread loop for a block-level loop: the exit the block resolves after the thread loop.
    /// `None` where the target loop is inside the thread loop (plain Rust).
    pub(super) fn split_exit(
        &self,
        label: Option<Handle<Label>>,
        again: bool,
        span: Span,
    ) -> Option<TokenStream> {
        let s = self.split.as_ref()?;
        let mut scope = s.scope.borrow_mut();
        if !scope.active {
            return None;
        }
        let inside = match label {
            Some(l) => scope.inner.contains(&Some(l)),
            None => !scope.inner.is_empty(),
        };
        if inside {
            return None;
        }
        let loops = s.loops.borrow();
        let target = match label {
            Some(l) => loops.iter().rev().find(|(lbl, _)| *lbl == Some(l)),
            None => loops.last(),
        };
        let Some(&(_, id)) = target else {
            return Some(
                quote_spanned!(site(span.lo)=> ::core::compile_error!("cuphase: a loop exit without its loop (internal error of the simulator writer)");),
            );
        };
        let code = 2 + 2 * id + u32::from(again);
        let lbl = loop_label(id);
        if !scope.exits.iter().any(|(c, _)| *c == code) {
            let action = if again {
                quote!(continue #lbl)
            } else {
                quote!(break #lbl)
            };
            scope.exits.push((code, action));
        }
        let loc = self.loc(span);
        Some(quote_spanned!(site(span.lo)=> {
            __run.leave(__t, #code, #loc);
            break '__thread;
        }))
    }

    /// The block function of a phase-split kernel.
    pub(super) fn write_split(
        &self,
        split: &Split,
        shared_decls: &[TokenStream],
        block_params: &[TokenStream],
        field_decls: &[TokenStream],
    ) -> TokenStream {
        let k = self.k;
        let body = self.items(split, &plan(&k.body));
        let exits = any_stmt(&k.body, |s| {
            matches!(s, Stmt::Return | Stmt::Break { .. } | Stmt::Continue { .. })
        });
        let promises = k
            .exprs
            .iter()
            .any(|(_, e)| matches!(e, Expr::AssumeUniform(_)));
        let mut decls = Vec::new();
        for (h, a) in k.arrays.iter() {
            if let ArrayKind::Local { dims, .. } = &a.kind {
                if self.registers[h.index()] && !split.array_spilled[h.index()] {
                    continue;
                }
                let all = self.all_name(h);
                let elem = scalar_tokens(a.elem, proc_macro2::Span::call_site());
                let dims = dims.iter().map(|d| *d as usize);
                let label = &a.name;
                decls.push(quote! {
                    let #all = ::cuphase::__private::sim::LocalArrays::<#elem>::new(__n, &[#(#dims),*], #label);
                });
            }
        }
        let params: Vec<Handle<Local>> = k
            .params
            .iter()
            .filter_map(|p| match p.kind {
                ParamKind::Scalar { local, .. } => Some(local),
                ParamKind::Slice { .. } => None,
            })
            .collect();
        for (h, _) in k.locals.iter() {
            if !split.spilled[h.index()] {
                continue;
            }
            let name = &self.local_names[h.index()];
            let t = scalar_tokens(self.types.local(h), proc_macro2::Span::call_site());
            let init = if params.contains(&h) {
                quote!(#name)
            } else {
                quote!(<#t as ::core::default::Default>::default())
            };
            let store = self.store_name(h.index());
            decls.push(quote!(let mut #store: ::std::vec::Vec<#t> = ::std::vec![#init; __n];));
        }
        quote! {
            #[allow(unused_mut, unused_variables, unused_assignments, unused_parens, unused_braces,
                    unreachable_code, unused_labels, clippy::all, clippy::pedantic, clippy::nursery)]
            fn __cuphase_block(
                __block: &::cuphase::__private::sim::BlockCtx,
                #(#block_params),*
            ) -> ::core::result::Result<(), ::cuphase::Error> {
                #(#shared_decls)*
                let __run = ::cuphase::__private::sim::Run::new(__block, #exits, #promises);
                let __n = __run.len();
                let __result = (|| -> ::core::result::Result<(), ::cuphase::__private::sim::Fault> {
                    #(#field_decls)*
                    #(#decls)*
                    #body
                    ::core::result::Result::Ok(())
                })();
                __run.finish(__result)
            }
        }
    }

    /// The name of the per-thread copies of local array `h`.
    fn all_name(&self, h: Handle<Array>) -> Ident {
        format_ident!("__all_{}", self.array_names[h.index()])
    }

    /// The running thread's local arrays, at the top of a thread loop's body: views of those
    /// in memory, the elements of register arrays as variables (loaded where the array is
    /// kept per thread between thread loops).
    fn thread_arrays(&self, split: &Split, used: &[bool]) -> TokenStream {
        // `used` past the locals, where given: per array, whether the part touches it.
        let n_locals = self.k.locals.len();
        let touched = |h: Handle<Array>| used.get(n_locals + h.index()).copied().unwrap_or(true);
        let views = self
            .k
            .arrays
            .iter()
            .filter(|(_, a)| matches!(a.kind, ArrayKind::Local { .. }))
            .map(|(h, a)| {
                let name = &self.array_names[h.index()];
                let all = self.all_name(h);
                if !self.registers[h.index()] {
                    return quote!(let #name = #all.at(__t););
                }
                if !touched(h) {
                    return quote!();
                }
                let elem = scalar_tokens(a.elem, proc_macro2::Span::call_site());
                let regs = self.registers_of(h);
                if !split.array_spilled[h.index()] {
                    // Used in this thread loop alone: plain variables, written before read.
                    return quote!(#(let mut #regs: #elem = <#elem as ::core::default::Default>::default();)*);
                }
                // Loads of elements the part does not read are dead code to rustc.
                let regs = regs
                    .into_iter()
                    .enumerate()
                    .map(|(i, reg)| quote!(let mut #reg: #elem = #name.get(#i);));
                quote!(let #name = #all.at(__t); #(#regs)*)
            });
        quote!(#(#views)*)
    }

    /// The `let`s that recompute the rematerialised locals `used` marks, and those they are
    /// computed from, dependencies first.
    fn remat_lets(&self, split: &Split, used: &mut [bool]) -> TokenStream {
        let n = used.len();
        loop {
            let mut changed = false;
            for l in 0..n {
                if !(used[l] && split.remat[l]) {
                    continue;
                }
                if let Some(e) = split.init[l] {
                    let mut deps = vec![false; n];
                    mark_expr(self.k, e, &mut deps);
                    for (m, d) in deps.into_iter().enumerate() {
                        if d && !used[m] {
                            used[m] = true;
                            changed = true;
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        // Emit each after the rematerialised locals its value reads.
        let handles: Vec<Handle<Local>> = self.k.locals.iter().map(|(h, _)| h).collect();
        let mut done = vec![false; n];
        let mut lets = Vec::new();
        loop {
            let mut progress = false;
            for l in 0..n {
                if done[l] || !(used[l] && split.remat[l]) {
                    continue;
                }
                let Some(e) = split.init[l] else { continue };
                let mut deps = vec![false; n];
                mark_expr(self.k, e, &mut deps);
                let ready = deps
                    .iter()
                    .enumerate()
                    .all(|(m, d)| !d || !split.remat[m] || done[m] || m == l);
                if !ready {
                    continue;
                }
                let h = handles[l];
                let name = &self.local_names[l];
                let t = scalar_tokens(self.types.local(h), proc_macro2::Span::call_site());
                let v = self.expr(e);
                lets.push(quote!(let #name: #t = #v;));
                done[l] = true;
                progress = true;
            }
            if !progress {
                break;
            }
        }
        quote!(#(#lets)*)
    }

    /// What `thread_prelude` takes for code that evaluates `exprs` alone: the locals they
    /// read, then the arrays they read (so that the code loads no register array it does not
    /// use; a vector of the locals alone loads them all).
    pub(super) fn used_by(&self, exprs: &[Handle<Expr>]) -> Vec<bool> {
        let mut used = vec![false; self.k.locals.len()];
        for &e in exprs {
            mark_expr(self.k, e, &mut used);
        }
        used.extend(super::registers::arrays_read(self.k, exprs.iter().copied()));
        used
    }

    /// The start of one thread's part: its context, local arrays and recomputed locals.
    /// `used`: per local, whether the part reads or writes it; then, where the part's
    /// statements are at hand, per array (else every register array is loaded).
    pub(super) fn thread_prelude(&self, split: &Split, used: Vec<bool>) -> TokenStream {
        self.thread_prelude_with(split, used, &quote!(__p.enter(__t)))
    }

    /// [`Writer::thread_prelude`] with the thread's context `cx`.
    pub(super) fn thread_prelude_with(
        &self,
        split: &Split,
        mut used: Vec<bool>,
        cx: &TokenStream,
    ) -> TokenStream {
        let arrays = self.thread_arrays(split, &used);
        // The rest is about locals.
        used.truncate(self.k.locals.len());
        let loads = (0..used.len())
            .filter(|&l| used[l] && split.spilled[l])
            .map(|l| {
                let name = &self.local_names[l];
                let store = self.store_name(l);
                if self.mode.get() == Mode::Checked {
                    quote!(let mut #name = #store[__t];)
                } else {
                    // As in `write_back`.
                    quote!(let mut #name = unsafe { *#store.get_unchecked(__t) };)
                }
            });
        let loads: Vec<TokenStream> = loads.collect();
        let lets = self.remat_lets(split, &mut used);
        quote! {
            let __cx = #cx;
            #arrays
            #(#loads)*
            #lets
        }
    }

    /// At the top of a thread loop's body, where threads may return: skip those that did.
    pub(super) fn skip_returned(&self, split: &Split) -> Option<TokenStream> {
        split.returns.then(|| {
            quote! {
                if __p.exited(__t) {
                    continue;
                }
            }
        })
    }

    /// A loop over the live threads running `body` for each; `used` marks the locals it
    /// reads or writes.
    fn thread_loop(
        &self,
        split: &Split,
        used: Vec<bool>,
        written: &[bool],
        body: TokenStream,
        threads: TokenStream,
    ) -> TokenStream {
        let prelude = self.thread_prelude(split, used);
        let back = self.write_back(split, written);
        let skip = self.skip_returned(split);
        quote! {
            let __p = __run.phase();
            for __k in #threads {
                let __t = __p.thread_at(__k);
                #skip
                #prelude
                #body
                #back
            }
        }
    }

    /// `value` (of expressions whose locals `used` marks) as the first live thread computes
    /// it: a value the compiler proved block-uniform.
    pub(super) fn once(&self, split: &Split, used: Vec<bool>, value: TokenStream) -> TokenStream {
        let prelude = self.thread_prelude(split, used);
        quote!({
            let __p = __run.phase();
            let __t = __run.first_live();
            #prelude
            #value
        })
    }

    /// A write of a block-uniform local, which the block runs once.
    fn hoisted(&self, split: &Split, s: &Stmt, span: Span) -> TokenStream {
        let once = |e: Handle<Expr>| self.once(split, self.used_by(&[e]), self.expr(e));
        match s {
            Stmt::Let { local, init } => {
                let name = &self.local_names[local.index()];
                let t = scalar_tokens(self.types.local(*local), span);
                let v = match init {
                    Some(e) => once(*e),
                    None => quote!(<#t as ::core::default::Default>::default()),
                };
                quote_spanned!(site(span.lo)=> let mut #name: #t = #v;)
            }
            Stmt::Assign {
                place: Place::Local(l),
                op,
                value,
            } => {
                let name = &self.local_names[l.index()];
                let v = once(*value);
                match op {
                    None => quote_spanned!(site(span.lo)=> #name = #v;),
                    Some(op) => {
                        let (lt, rt) = (self.types.local(*l), self.types.expr(*value));
                        let r = self.binary(*op, lt, rt, quote!(#name), quote!(__v), span);
                        quote_spanned!(site(span.lo)=> { let __v = #v; #name = #r; })
                    }
                }
            }
            _ => {
                quote_spanned!(site(span.lo)=> ::core::compile_error!("cuphase: not a block-level statement (internal error of the simulator writer)");)
            }
        }
    }

    /// The block's vote on a condition: `vote` runs per thread and adds to `__agree`.
    fn vote(
        &self,
        split: &Split,
        used: Vec<bool>,
        written: &[bool],
        vote: TokenStream,
        span: Span,
    ) -> TokenStream {
        let loc = self.loc(span);
        let each = self.thread_loop(split, used, written, vote, quote!(0..__n));
        quote!({
            let mut __agree = ::cuphase::__private::sim::Agree::new();
            #each
            __agree.value(&__run, #loc)?
        })
    }

    /// A block-level condition: computed once, or voted on where it holds a promise.
    fn condition(&self, split: &Split, cond: Handle<Expr>, span: Span) -> TokenStream {
        let used = self.used_by(&[cond]);
        let c = self.expr(cond);
        if promised(self.k, cond) {
            let none = self.used_by(&[]);
            self.vote(split, used, &none, quote!(__agree.add(__t, #c);), span)
        } else {
            self.once(split, used, c)
        }
    }

    /// One thread's part of `stmts` (in a `'__thread` block where a thread may leave it),
    /// the locals it uses and writes, and what the code after the thread loop must resolve.
    pub(super) fn thread_part(
        &self,
        split: &Split,
        stmts: &[(&Stmt, Span)],
    ) -> (TokenStream, Vec<bool>, Vec<bool>, Scope) {
        let outer = split.scope.replace(Scope {
            active: true,
            ..Scope::default()
        });
        let body: Vec<TokenStream> = stmts.iter().map(|(s, sp)| self.stmt(s, *sp)).collect();
        let scope = split.scope.replace(outer);
        let body = if scope.returns || !scope.exits.is_empty() {
            quote!('__thread: { #(#body)* })
        } else {
            quote!(#(#body)*)
        };
        let n = self.k.locals.len();
        let (mut used, mut written) = (vec![false; n], vec![false; n]);
        mark_stmts(self.k, stmts, &mut used);
        mark_writes(stmts, &mut written);
        written.extend(super::registers::arrays_written(self.k, stmts));
        used.extend(super::registers::arrays_used(self.k, stmts));
        (body, used, written, scope)
    }

    /// The block-level code of `items`.
    fn items(&self, split: &Split, items: &[Item<'_>]) -> TokenStream {
        let code = items.iter().map(|item| self.item(split, item));
        quote!(#(#code)*)
    }

    fn item(&self, split: &Split, item: &Item<'_>) -> TokenStream {
        let n = self.k.locals.len();
        match item {
            Item::Threads(all) => {
                let (p, q) = hoist_bounds(self.k, self.types, all, &split.uniform, &split.fixed);
                let before = all[..p].iter().map(|(s, sp)| self.hoisted(split, s, *sp));
                let after = all[q..].iter().map(|(s, sp)| self.hoisted(split, s, *sp));
                let stmts = &all[p..q];
                if only_declarations(stmts) {
                    return quote!(#(#before)* #(#after)*);
                }
                let (body, used, written, scope) = self.thread_part(split, stmts);
                let guard = x_guard(self.k, self.types, split, stmts).map(|(guard, u)| {
                    let mut u_used = vec![false; n];
                    mark_expr(self.k, u, &mut u_used);
                    let u = self.once(split, u_used, self.expr(u));
                    let (lo, hi) = match guard {
                        Guard::Below => (quote!(0), quote!(__u)),
                        Guard::AtMost => (quote!(0), quote!(__u + 1)),
                        Guard::Equal => (quote!(__u), quote!(__u + 1)),
                    };
                    (u, lo, hi)
                });
                let each = match &guard {
                    Some((u, lo, hi)) => {
                        let threads = quote!({
                            let __u = u64::from(#u);
                            __run.phase().x_range(#lo, #hi)
                        });
                        self.thread_loop(split, used.clone(), &written, body, threads)
                    }
                    None => self.thread_loop(split, used.clone(), &written, body, quote!(0..__n)),
                };
                let bounds = guard.map(|(u, lo, hi)| {
                    quote!({
                        let __u = u64::from(#u);
                        (#lo, #hi)
                    })
                });
                let each = self.maybe_straight(
                    split,
                    stmts,
                    (&used, &written, &scope),
                    super::straight::Domain::Block(bounds),
                    each,
                );
                let returned = scope.returns.then(|| {
                    quote! {
                        if __run.all_returned() {
                            return ::core::result::Result::Ok(());
                        }
                    }
                });
                let resolve = resolve_exits(&scope, quote!(__run.resolve()));
                let after: Vec<TokenStream> = after.collect();
                quote!(#(#before)* #each #returned #resolve #(#after)*)
            }
            Item::Barrier(span) => {
                let loc = self.loc(*span);
                quote_spanned!(site(span.lo)=> __run.barrier(#loc)?;)
            }
            Item::If {
                cond,
                accept,
                reject,
                span,
            } => {
                let c = self.condition(split, *cond, *span);
                let a = self.items(split, accept);
                let r = self.items(split, reject);
                quote_spanned!(site(span.lo)=> if #c { #a } else { #r })
            }
            Item::Loop {
                label,
                kind,
                body,
                span,
            } => {
                let id = split.next_loop.get();
                split.next_loop.set(id + 1);
                let lbl = loop_label(id);
                split.loops.borrow_mut().push((*label, id));
                let b = self.items(split, body);
                split.loops.borrow_mut().pop();
                // `loop` and `while` may run forever: the watchdog can stop them.
                let check = quote!(::cuphase::__private::sim::watchdog()?;);
                match kind {
                    LoopKind::Infinite => quote_spanned!(site(span.lo)=> #lbl: loop { #check #b }),
                    LoopKind::While { cond } => {
                        let c = self.condition(split, *cond, *span);
                        quote_spanned!(site(span.lo)=> #lbl: loop {
                            #check
                            if !#c {
                                break;
                            }
                            #b
                        })
                    }
                    LoopKind::For {
                        var,
                        start,
                        end,
                        step,
                        ..
                    } => {
                        let range_exprs = [Some(*start), Some(*end), *step];
                        let mut used = vec![false; n];
                        for e in range_exprs.into_iter().flatten() {
                            mark_expr(self.k, e, &mut used);
                        }
                        let name = &self.local_names[var.index()];
                        let range = self.for_range(kind, *span);
                        if !self.spilled(*var) {
                            // One range for the whole block: the variable is the block's.
                            let range = self.once(split, used, range);
                            return quote_spanned!(site(span.lo)=> #lbl: for #name in #range { #b });
                        }
                        // A range behind a promise: each thread iterates its own, and the
                        // block votes on each step.
                        let it = format_ident!("__it{}", id);
                        let mut written = vec![false; n];
                        let start = self.thread_loop(
                            split,
                            used.clone(),
                            &written,
                            quote!(#it[__t] = ::core::option::Option::Some(#range);),
                            quote!(0..__n),
                        );
                        used[var.index()] = true;
                        written[var.index()] = true;
                        let vote = self.vote(
                            split,
                            used,
                            &written,
                            quote! {
                                let __next = #it[__t].as_mut().and_then(::core::iter::Iterator::next);
                                __agree.add(__t, __next.is_some());
                                if let ::core::option::Option::Some(__v) = __next {
                                    #name = __v;
                                }
                            },
                            *span,
                        );
                        quote_spanned!(site(span.lo)=> {
                            let mut #it: ::std::vec::Vec<::core::option::Option<_>> =
                                (0..__n).map(|_| ::core::option::Option::None).collect();
                            #start
                            #lbl: loop {
                                if !#vote {
                                    break;
                                }
                                #b
                            }
                        })
                    }
                }
            }
            Item::Scope(inner) => {
                let b = self.items(split, inner);
                quote!({ #b })
            }
            Item::Warps(witems) => self.warp_region(split, witems),
        }
    }
}

/// After a thread loop whose threads may leave it by loop exits: the exit they all take, by
/// `resolve` (the block's or a warp's), as Rust control flow.
pub(super) fn resolve_exits(scope: &Scope, resolve: TokenStream) -> Option<TokenStream> {
    (!scope.exits.is_empty()).then(|| {
        let arms = scope.exits.iter().map(|(c, a)| quote!(#c => #a,));
        quote! {
            match #resolve? {
                #(#arms)*
                _ => {}
            }
        }
    })
}

/// The Rust label of block-level loop `id`.
pub(super) fn loop_label(id: u32) -> syn::Lifetime {
    syn::Lifetime::new(&format!("'__b{id}"), proc_macro2::Span::call_site())
}
