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
//! Where it does not apply: kernels with warp operations keep one future per thread (the
//! runtime's `BlockCtx::run`), whose scheduler meets the lanes of a warp at each operation.
//!
//! Takes the checked kernel through its [`Writer`]; gives `__cuphase_block`.

use super::Writer;
use crate::back::rust_types::{scalar_tokens, site};
use crate::ir::visit::any_stmt;
use crate::ir::Types;
use crate::ir::*;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use std::cell::{Cell, RefCell};

/// The phase-split state of one kernel being written.
pub(super) struct Split {
    /// Per local: kept per thread (it lives from one thread loop into another, or it is a
    /// parameter the kernel assigns).
    spilled: Vec<bool>,
    /// Per local: computed again in each thread loop that reads it (an immutable value of
    /// the thread's indices and the parameters, cheaper to recompute than to keep).
    remat: Vec<bool>,
    /// Per local: its `let`'s initialiser.
    init: Vec<Option<Handle<Expr>>>,
    /// Per local: one value for the whole block, computed by block-level code (every write
    /// of it is a pure value of such locals and the launch's shape, at the start or the end
    /// of the statements between two barriers).
    uniform: Vec<bool>,
    /// Per local: a parameter the kernel never assigns.
    fixed: Vec<bool>,
    /// Whether a thread may return (then thread loops skip returned threads).
    returns: bool,
    /// The thread loop being written, if any.
    scope: RefCell<Scope>,
    /// The block-level loops around the code being written, innermost last: the label and
    /// the loop's number.
    loops: RefCell<Vec<(Option<Handle<Label>>, u32)>>,
    next_loop: Cell<u32>,
}

/// What the thread loop being written needs after it.
#[derive(Default)]
struct Scope {
    /// Inside a thread loop.
    active: bool,
    /// The loops opened inside the thread loop, by label.
    inner: Vec<Option<Handle<Label>>>,
    /// The loop exits to block-level loops taken inside, by code, with the block's action.
    exits: Vec<(u32, TokenStream)>,
    /// Whether a thread may return inside.
    returns: bool,
}

/// The kernel's body cut at its barriers.
enum Item<'k> {
    /// Statements without barriers: one loop over the threads.
    Threads(Vec<(&'k Stmt, Span)>),
    /// `sync_block_threads()`.
    Barrier(Span),
    /// An `if` with a barrier in a branch.
    If {
        cond: Handle<Expr>,
        accept: Vec<Item<'k>>,
        reject: Vec<Item<'k>>,
        span: Span,
    },
    /// A loop with a barrier in its body.
    Loop {
        label: Option<Handle<Label>>,
        kind: &'k LoopKind,
        body: Vec<Item<'k>>,
        span: Span,
    },
    /// A block with a barrier inside.
    Scope(Vec<Item<'k>>),
}

/// Whether `s` is or holds a barrier.
fn has_barrier(s: &Stmt) -> bool {
    let barrier = |s: &Stmt| matches!(s, Stmt::Barrier { .. });
    barrier(s) || s.blocks().any(|b| any_stmt(b, barrier))
}

/// `b` cut at its barriers.
fn plan(b: &Block) -> Vec<Item<'_>> {
    let mut items = Vec::new();
    let mut run: Vec<(&Stmt, Span)> = Vec::new();
    for (s, span) in b.iter() {
        if !has_barrier(s) {
            run.push((s, span));
            continue;
        }
        if !run.is_empty() {
            items.push(Item::Threads(std::mem::take(&mut run)));
        }
        items.push(match s {
            Stmt::If {
                cond,
                accept,
                reject,
            } => Item::If {
                cond: *cond,
                accept: plan(accept),
                reject: plan(reject),
                span,
            },
            Stmt::Loop { label, kind, body } => Item::Loop {
                label: *label,
                kind,
                body: plan(body),
                span,
            },
            Stmt::Block(inner) => Item::Scope(plan(inner)),
            _ => Item::Barrier(span),
        });
    }
    if !run.is_empty() {
        items.push(Item::Threads(run));
    }
    items
}

/// Whether `e` holds an `assume_uniform` promise (then every thread evaluates it, so that
/// the promise is checked across the block).
fn promised(k: &Kernel, e: Handle<Expr>) -> bool {
    crate::ir::visit::any_expr(k, e, &mut |x| matches!(x, Expr::AssumeUniform(_)))
}

/// Whether `e` computes a value without touching memory or faulting, from locals `read`
/// accepts.
fn pure(k: &Kernel, types: &Types, e: Handle<Expr>, read: &impl Fn(Handle<Local>) -> bool) -> bool {
    let ok = match k.exprs.get(e) {
        Expr::Literal(_) | Expr::Builtin { .. } | Expr::Len(_) => true,
        Expr::Local(l) => read(*l),
        Expr::Unary { .. } | Expr::Cast { .. } | Expr::Select { .. } => true,
        Expr::Binary { op, left, right } => {
            !(matches!(op, BinaryOp::Div | BinaryOp::Rem)
                && types.expr(*left).is_int()
                && !safe_divisor(k, *right))
        }
        Expr::Load { .. } | Expr::UniformLoad { .. } | Expr::Method { .. } => false,
        Expr::AssumeUniform(_) => false,
    };
    ok && k
        .exprs
        .get(e)
        .operands()
        .into_iter()
        .all(|o| pure(k, types, o, read))
}

/// Whether `e` is a pure value the same in every thread: of the launch's shape and of the
/// locals `read` accepts.
fn block_value(
    k: &Kernel,
    types: &Types,
    e: Handle<Expr>,
    read: &impl Fn(Handle<Local>) -> bool,
) -> bool {
    let per_thread = crate::ir::visit::any_expr(k, e, &mut |x| {
        matches!(
            x,
            Expr::Builtin {
                builtin: Builtin::ThreadIdx | Builtin::GlobalIdx | Builtin::LaneId,
                ..
            }
        )
    });
    !per_thread && pure(k, types, e, read)
}

/// Whether `s` writes a block-uniform local with a block-uniform value (so the block runs it
/// once), given the locals `uniform` and `fixed` mark.
fn hoistable(k: &Kernel, types: &Types, s: &Stmt, uniform: &[bool], fixed: &[bool]) -> bool {
    let read = |m: Handle<Local>| uniform[m.index()] || fixed[m.index()];
    match s {
        Stmt::Let { local, init } => {
            uniform[local.index()] && init.is_none_or(|e| block_value(k, types, e, &read))
        }
        Stmt::Assign {
            place: Place::Local(l),
            value,
            op,
        } => {
            uniform[l.index()]
                && block_value(k, types, *value, &read)
                && !op.is_some_and(|o| {
                    matches!(o, BinaryOp::Div | BinaryOp::Rem)
                        && types.local(*l).is_int()
                        && !safe_divisor(k, *value)
                })
        }
        _ => false,
    }
}

/// The statements of a thread loop the block runs once instead: those before `.0` and from
/// `.1` on (leading and trailing writes of block-uniform locals).
fn hoist_bounds(
    k: &Kernel,
    types: &Types,
    stmts: &[(&Stmt, Span)],
    uniform: &[bool],
    fixed: &[bool],
) -> (usize, usize) {
    let ok = |s: &Stmt| hoistable(k, types, s, uniform, fixed);
    let p = stmts.iter().take_while(|(s, _)| ok(s)).count();
    let q = stmts.len() - stmts[p..].iter().rev().take_while(|(s, _)| ok(s)).count();
    (p, q)
}

/// The block-uniform locals: the largest set whose every write the block can run once
/// ([`hoistable`] where a thread loop starts or ends), with the variables of block-level
/// loops over one range (`block_var`). Parameters are not among them.
fn uniform_locals(
    k: &Kernel,
    types: &Types,
    items: &[Item<'_>],
    fixed: &[bool],
    param: &[bool],
    block_var: &[bool],
) -> Vec<bool> {
    fn writes_in(s: &Stmt, out: &mut Vec<Handle<Local>>) {
        if let Some(l) = s.written_local() {
            out.push(l);
        }
        for b in s.blocks() {
            for (inner, _) in b.iter() {
                writes_in(inner, out);
            }
        }
    }
    fn walk(
        k: &Kernel,
        types: &Types,
        items: &[Item<'_>],
        uniform: &[bool],
        fixed: &[bool],
        block_var: &[bool],
        bad: &mut [bool],
    ) {
        for item in items {
            match item {
                Item::Threads(stmts) => {
                    let (p, q) = hoist_bounds(k, types, stmts, uniform, fixed);
                    for (i, (s, _)) in stmts.iter().enumerate() {
                        let mut w = Vec::new();
                        writes_in(s, &mut w);
                        if !(i < p || i >= q) {
                            for l in w {
                                bad[l.index()] = true;
                            }
                        }
                    }
                }
                Item::Barrier(_) => {}
                Item::If { accept, reject, .. } => {
                    walk(k, types, accept, uniform, fixed, block_var, bad);
                    walk(k, types, reject, uniform, fixed, block_var, bad);
                }
                Item::Loop { kind, body, .. } => {
                    if let LoopKind::For { var, .. } = kind {
                        if !block_var[var.index()] {
                            bad[var.index()] = true;
                        }
                    }
                    walk(k, types, body, uniform, fixed, block_var, bad);
                }
                Item::Scope(inner) => walk(k, types, inner, uniform, fixed, block_var, bad),
            }
        }
    }
    let mut uniform: Vec<bool> = param.iter().map(|p| !p).collect();
    loop {
        let mut bad = vec![false; uniform.len()];
        walk(k, types, items, &uniform, fixed, block_var, &mut bad);
        let mut changed = false;
        for (u, b) in uniform.iter_mut().zip(bad) {
            if *u && b {
                *u = false;
                changed = true;
            }
        }
        if !changed {
            return uniform;
        }
    }
}

/// Whether `e` is a literal integer divisor that cannot fault (not 0, not -1).
fn safe_divisor(k: &Kernel, e: Handle<Expr>) -> bool {
    matches!(k.exprs.get(e), Expr::Literal(Literal::Int { value, .. }) if *value != 0 && *value != -1)
}

/// Marks in `used` the locals the expressions of `stmts` (and of the blocks in them) read or
/// write.
fn mark_stmts(k: &Kernel, stmts: &[(&Stmt, Span)], used: &mut [bool]) {
    fn stmt(k: &Kernel, s: &Stmt, used: &mut [bool]) {
        if let Some(l) = s.written_local() {
            used[l.index()] = true;
        }
        for e in s.operands() {
            mark_expr(k, e, used);
        }
        for b in s.blocks() {
            for (inner, _) in b.iter() {
                stmt(k, inner, used);
            }
        }
    }
    for (s, _) in stmts {
        stmt(k, s, used);
    }
}

/// Marks in `used` the locals `e` reads.
fn mark_expr(k: &Kernel, e: Handle<Expr>, used: &mut [bool]) {
    let expr = k.exprs.get(e);
    if let Expr::Local(l) = expr {
        used[l.index()] = true;
    }
    for o in expr.operands() {
        mark_expr(k, o, used);
    }
}

/// Which thread loop each local was first seen in, and whether it is seen in another.
struct Uses<'k> {
    k: &'k Kernel,
    seen: Vec<Option<u32>>,
    spilled: Vec<bool>,
    /// How many statements write each local.
    writes: Vec<u32>,
    init: Vec<Option<Handle<Expr>>>,
    /// The variables of block-level `for` loops over one range for the block.
    block_vars: Vec<Handle<Local>>,
    next: u32,
}

impl Uses<'_> {
    fn mark(&mut self, l: Handle<Local>, seg: u32) {
        match self.seen[l.index()] {
            None => self.seen[l.index()] = Some(seg),
            Some(s) if s != seg => self.spilled[l.index()] = true,
            Some(_) => {}
        }
    }
    fn expr(&mut self, e: Handle<Expr>, seg: u32) {
        let expr = self.k.exprs.get(e);
        if let Expr::Local(l) = expr {
            self.mark(*l, seg);
        }
        for o in expr.operands() {
            self.expr(o, seg);
        }
    }
    fn stmt(&mut self, s: &Stmt, seg: u32) {
        if let Some(l) = s.written_local() {
            self.writes[l.index()] += 1;
            self.mark(l, seg);
        }
        if let Stmt::Let {
            local,
            init: Some(e),
        } = s
        {
            self.init[local.index()] = Some(*e);
        }
        for e in s.operands() {
            self.expr(e, seg);
        }
        for b in s.blocks() {
            for (inner, _) in b.iter() {
                self.stmt(inner, seg);
            }
        }
    }
    fn segment(&mut self) -> u32 {
        self.next += 1;
        self.next
    }
    fn items(&mut self, items: &[Item<'_>]) {
        for item in items {
            match item {
                Item::Threads(stmts) => {
                    let seg = self.segment();
                    for (s, _) in stmts {
                        self.stmt(s, seg);
                    }
                }
                Item::Barrier(_) => {}
                Item::If {
                    cond,
                    accept,
                    reject,
                    ..
                } => {
                    let seg = self.segment();
                    self.expr(*cond, seg);
                    self.items(accept);
                    self.items(reject);
                }
                Item::Loop { kind, body, .. } => {
                    let seg = self.segment();
                    match kind {
                        LoopKind::Infinite => {}
                        LoopKind::While { cond } => self.expr(*cond, seg),
                        LoopKind::For {
                            var,
                            start,
                            end,
                            step,
                            ..
                        } => {
                            // A range the whole block shares gives a block-level variable;
                            // one behind a promise, a variable per thread.
                            self.writes[var.index()] += 1;
                            let range = [Some(*start), Some(*end), *step];
                            if range.into_iter().flatten().any(|e| promised(self.k, e)) {
                                self.spilled[var.index()] = true;
                            } else {
                                self.block_vars.push(*var);
                            }
                            for e in range.into_iter().flatten() {
                                self.expr(e, seg);
                            }
                        }
                    }
                    self.items(body);
                }
                Item::Scope(inner) => self.items(inner),
            }
        }
    }
}

impl Split {
    /// The phase-split state of `k`, or `None` where the kernel keeps one future per thread
    /// (it has warp operations).
    pub(super) fn of(k: &Kernel, types: &Types) -> Option<Split> {
        if any_stmt(&k.body, |s| matches!(s, Stmt::Warp { .. })) {
            return None;
        }
        let n = k.locals.len();
        let mut uses = Uses {
            k,
            seen: vec![None; n],
            spilled: vec![false; n],
            writes: vec![0; n],
            init: vec![None; n],
            block_vars: Vec::new(),
            next: 0,
        };
        uses.items(&plan(&k.body));
        let mut spilled = uses.spilled;
        for v in &uses.block_vars {
            spilled[v.index()] = false;
        }
        // A parameter is read from the block function's argument unless the kernel assigns
        // it: then every thread gets its own copy.
        let mut param = vec![false; n];
        for p in &k.params {
            if let ParamKind::Scalar { local, .. } = p.kind {
                param[local.index()] = true;
                spilled[local.index()] = uses.writes[local.index()] > 0;
            }
        }
        let fixed: Vec<bool> = (0..n)
            .map(|l| param[l] && uses.writes[l] == 0)
            .collect();
        let mut block_var = vec![false; n];
        for v in &uses.block_vars {
            block_var[v.index()] = true;
        }
        let uniform = uniform_locals(k, types, &plan(&k.body), &fixed, &param, &block_var);
        for l in 0..n {
            if uniform[l] {
                spilled[l] = false;
            }
        }
        // A local written once, by a `let` of a pure value of parameters, thread indices and
        // other such locals, is recomputed where it is read rather than kept per thread.
        let mut remat = vec![false; n];
        loop {
            let mut changed = false;
            for l in 0..n {
                if remat[l] || !spilled[l] || param[l] || uses.writes[l] != 1 {
                    continue;
                }
                let read = |m: Handle<Local>| {
                    fixed[m.index()] || remat[m.index()] || uniform[m.index()]
                };
                if uses.init[l].is_some_and(|e| pure(k, types, e, &read)) {
                    remat[l] = true;
                    spilled[l] = false;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        let returns = any_stmt(&k.body, |s| matches!(s, Stmt::Return));
        Some(Split {
            spilled,
            remat,
            uniform,
            fixed,
            init: uses.init,
            returns,
            scope: RefCell::default(),
            loops: RefCell::default(),
            next_loop: Cell::new(0),
        })
    }
}

impl Writer<'_> {
    /// Whether local `l` is kept per thread.
    pub(super) fn spilled(&self, l: Handle<Local>) -> bool {
        self.split.as_ref().is_some_and(|s| s.spilled[l.index()])
    }

    /// Local `l` as a place to assign: its name, or the running thread's copy.
    pub(super) fn local_place(&self, l: Handle<Local>) -> TokenStream {
        let name = &self.local_names[l.index()];
        if self.spilled(l) {
            quote!(#name[__t])
        } else {
            quote!(#name)
        }
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
            return Some(quote_spanned!(site(span.lo)=> ::core::compile_error!("cuphase: a loop exit without its loop (internal error of the simulator writer)");));
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
                let all = self.all_name(h);
                let elem = scalar_tokens(a.elem, proc_macro2::Span::call_site());
                let dims = dims.iter().map(|d| *d as usize);
                let label = &a.name;
                decls.push(quote! {
                    let #all: ::std::vec::Vec<::cuphase::__private::sim::Shared<#elem>> = (0..__n)
                        .map(|_| ::cuphase::__private::sim::Shared::<#elem>::new(&[#(#dims),*], #label, false))
                        .collect();
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
            decls.push(quote!(let mut #name: ::std::vec::Vec<#t> = ::std::vec![#init; __n];));
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

    /// The running thread's local arrays, at the top of a thread loop's body.
    fn thread_arrays(&self) -> TokenStream {
        let views = self.k.arrays.iter().filter_map(|(h, a)| {
            matches!(a.kind, ArrayKind::Local { .. }).then(|| {
                let name = &self.array_names[h.index()];
                let all = self.all_name(h);
                quote!(let #name = &#all[__t];)
            })
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

    /// The start of one thread's part: its context, local arrays and recomputed locals.
    fn thread_prelude(&self, split: &Split, mut used: Vec<bool>) -> TokenStream {
        let arrays = self.thread_arrays();
        let lets = self.remat_lets(split, &mut used);
        quote! {
            let __cx = __run.enter(__t);
            #arrays
            #lets
        }
    }

    /// A loop over the live threads running `body` for each; `used` marks the locals it
    /// reads or writes.
    fn thread_loop(&self, split: &Split, used: Vec<bool>, body: TokenStream) -> TokenStream {
        let prelude = self.thread_prelude(split, used);
        let skip = split.returns.then(|| {
            quote! {
                if __run.exited(__t) {
                    continue;
                }
            }
        });
        quote! {
            for __k in 0..__n {
                let __t = __run.thread_at(__k);
                #skip
                #prelude
                #body
            }
        }
    }

    /// `value` (of expressions whose locals `used` marks) as the first live thread computes
    /// it: a value the compiler proved block-uniform.
    fn once(&self, split: &Split, used: Vec<bool>, value: TokenStream) -> TokenStream {
        let prelude = self.thread_prelude(split, used);
        quote!({
            let __t = __run.first_live();
            #prelude
            #value
        })
    }

    /// A write of a block-uniform local, which the block runs once.
    fn hoisted(&self, split: &Split, s: &Stmt, span: Span) -> TokenStream {
        let once = |e: Handle<Expr>| {
            let mut used = vec![false; self.k.locals.len()];
            mark_expr(self.k, e, &mut used);
            self.once(split, used, self.expr(e))
        };
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
            _ => quote_spanned!(site(span.lo)=> ::core::compile_error!("cuphase: not a block-level statement (internal error of the simulator writer)");),
        }
    }

    /// The block's vote on a condition: `vote` runs per thread and adds to `__agree`.
    fn vote(&self, split: &Split, used: Vec<bool>, vote: TokenStream, span: Span) -> TokenStream {
        let loc = self.loc(span);
        let each = self.thread_loop(split, used, vote);
        quote!({
            let mut __agree = ::cuphase::__private::sim::Agree::new();
            #each
            __agree.value(&__run, #loc)?
        })
    }

    /// A block-level condition: computed once, or voted on where it holds a promise.
    fn condition(&self, split: &Split, cond: Handle<Expr>, span: Span) -> TokenStream {
        let mut used = vec![false; self.k.locals.len()];
        mark_expr(self.k, cond, &mut used);
        let c = self.expr(cond);
        if promised(self.k, cond) {
            self.vote(split, used, quote!(__agree.add(__t, #c);), span)
        } else {
            self.once(split, used, c)
        }
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
                if stmts.is_empty() {
                    return quote!(#(#before)* #(#after)*);
                }
                let outer = split.scope.replace(Scope {
                    active: true,
                    ..Scope::default()
                });
                let body: Vec<TokenStream> =
                    stmts.iter().map(|(s, sp)| self.stmt(s, *sp)).collect();
                let scope = split.scope.replace(outer);
                let body = if scope.returns || !scope.exits.is_empty() {
                    quote!('__thread: { #(#body)* })
                } else {
                    quote!(#(#body)*)
                };
                let mut used = vec![false; n];
                mark_stmts(self.k, stmts, &mut used);
                let each = self.thread_loop(split, used, body);
                let returned = scope.returns.then(|| {
                    quote! {
                        if __run.all_returned() {
                            return ::core::result::Result::Ok(());
                        }
                    }
                });
                let resolve = (!scope.exits.is_empty()).then(|| {
                    let arms = scope.exits.iter().map(|(c, a)| quote!(#c => #a,));
                    quote! {
                        match __run.resolve()? {
                            #(#arms)*
                            _ => {}
                        }
                    }
                });
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
                match kind {
                    LoopKind::Infinite => quote_spanned!(site(span.lo)=> #lbl: loop { #b }),
                    LoopKind::While { cond } => {
                        let c = self.condition(split, *cond, *span);
                        quote_spanned!(site(span.lo)=> #lbl: loop {
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
                        let start = self.thread_loop(
                            split,
                            used.clone(),
                            quote!(#it[__t] = ::core::option::Option::Some(#range);),
                        );
                        let vote = self.vote(
                            split,
                            used,
                            quote! {
                                let __next = #it[__t].as_mut().and_then(::core::iter::Iterator::next);
                                __agree.add(__t, __next.is_some());
                                if let ::core::option::Option::Some(__v) = __next {
                                    #name[__t] = __v;
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
        }
    }
}

/// The Rust label of block-level loop `id`.
fn loop_label(id: u32) -> syn::Lifetime {
    syn::Lifetime::new(&format!("'__b{id}"), proc_macro2::Span::call_site())
}
