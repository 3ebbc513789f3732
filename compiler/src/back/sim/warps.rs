//! Warp regions of phase-split code: statements between two barriers that hold warp
//! operations run as a loop over the block's warps, each warp's part cut at its warp
//! operations into loops over its lanes.
//!
//! A warp operation gathers every lane's value in one lane loop, computes the results for the
//! whole warp (the runtime's `exchange`, the same as the one-future-a-thread scheduler's) and
//! hands them out in another; a lane that returned before it is a divergence error, as on that
//! scheduler. Control flow that holds warp operations is warp-uniform (the warp-level pass of
//! the uniformity analysis proved it), so its conditions are evaluated once per warp, by the
//! warp's first live lane. The plan sends kernels whose warp regions need more (a loop exit
//! from a warp region to a loop outside it, a promise in a warp-level condition) to the
//! one-future-a-thread scheduler.
//!
//! Takes the [`WItem`] plan of a warp region; gives its Rust code.

use super::items::WItem;
use super::plan::{only_declarations, Split};
use super::split::resolve_exits;
use super::Writer;
use crate::back::rust_types::{scalar_tokens, site};
use crate::ir::*;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned};

impl Writer<'_> {
    /// The loop over the warps running `items`.
    pub(super) fn warp_region(&self, split: &Split, items: &[WItem<'_>]) -> TokenStream {
        let body = self.witems(split, items);
        let returned = split.returns.then(|| {
            quote! {
                if __run.all_returned() {
                    return ::core::result::Result::Ok(());
                }
            }
        });
        quote! {
            '__warps: for __wk in 0..__run.warps() {
                let __w = __run.warp_at(__wk);
                #body
            }
            #returned
        }
    }

    fn witems(&self, split: &Split, items: &[WItem<'_>]) -> TokenStream {
        let code = items.iter().map(|item| self.witem(split, item));
        quote!(#(#code)*)
    }

    /// A loop over the live lanes of warp `__w` running `body` for each.
    pub(super) fn lane_loop(
        &self,
        split: &Split,
        used: Vec<bool>,
        written: &[bool],
        body: TokenStream,
    ) -> TokenStream {
        let prelude = self.thread_prelude(split, used);
        let back = self.write_back(split, written);
        let skip = split.returns.then(|| {
            quote! {
                if __p.exited(__t) {
                    continue;
                }
            }
        });
        quote! {
            let __p = __run.phase();
            for __k in 0..__run.lanes(__w) {
                let __t = __p.lane_at(__w, __k);
                #skip
                #prelude
                #body
                #back
            }
        }
    }

    /// A loop over the lanes of warp `__w` running `body`, which neither faults nor touches
    /// memory (it moves values between a warp operation and the lanes' locals), so the order
    /// of the lanes is unobservable: they run in order, none made the running thread, which
    /// lets rustc vectorise the loop. Every lane is live: the warp operation checked it.
    fn pure_lane_loop(
        &self,
        split: &Split,
        used: Vec<bool>,
        written: &[bool],
        body: TokenStream,
    ) -> TokenStream {
        // `__t` is below the block's size, the per-thread stores' length: unchecked indexing.
        let mode = self.mode.replace(super::straight::Mode::Fast);
        let prelude = self.thread_prelude_with(split, used, &quote!(__p.ctx(__t)));
        let back = self.write_back(split, written);
        self.mode.set(mode);
        quote! {
            let __p = __run.phase();
            for __t in 32 * __w..32 * __w + __run.lanes(__w) {
                #prelude
                #body
                #back
            }
        }
    }

    /// `value` as the first live lane of warp `__w` computes it: a value the compiler proved
    /// warp-uniform. A warp whose lanes have all returned has nothing left to run.
    fn once_per_warp(&self, split: &Split, e: Handle<Expr>) -> TokenStream {
        let prelude = self.thread_prelude(split, self.used_by(&[e]));
        let value = self.expr(e);
        let done = split.returns.then(|| {
            quote! {
                if __run.warp_done(__w) {
                    continue '__warps;
                }
            }
        });
        quote!({
            #done
            let __p = __run.phase();
            let __t = __run.first_live_lane(__w);
            #prelude
            #value
        })
    }

    fn witem(&self, split: &Split, item: &WItem<'_>) -> TokenStream {
        match item {
            WItem::Lanes(stmts) if only_declarations(stmts) => quote!(),
            WItem::Lanes(stmts) => {
                let (body, used, written, scope) = self.thread_part(split, stmts);
                let each = self.lane_loop(split, used.clone(), &written, body);
                let each = self.maybe_straight(
                    split,
                    stmts,
                    (&used, &written, &scope),
                    super::straight::Domain::Warp,
                    each,
                );
                let resolve = resolve_exits(&scope, quote!(__run.resolve_warp(__w)));
                quote!(#each #resolve)
            }
            WItem::Op(s @ Stmt::Mma { .. }, span) => self.mma_warp(split, s, *span),
            WItem::Op(s @ Stmt::LoadMatrix { .. }, span) => self.load_matrix_warp(split, s, *span),
            WItem::Op(s @ Stmt::Wgmma { .. }, span) => self.wgmma_warp(split, s, *span),
            WItem::Op(s, span) => self.warp_op(split, s, *span),
            WItem::If {
                cond,
                accept,
                reject,
                span,
            } => {
                let c = self.once_per_warp(split, *cond);
                let a = self.witems(split, accept);
                let r = self.witems(split, reject);
                quote_spanned!(site(span.lo)=> if #c { #a } else { #r })
            }
            WItem::Loop {
                label,
                kind,
                body,
                span,
            } => {
                let id = split.next_loop.get();
                split.next_loop.set(id + 1);
                let lbl = super::split::loop_label(id);
                split.loops.borrow_mut().push((*label, id));
                let b = self.witems(split, body);
                split.loops.borrow_mut().pop();
                match kind {
                    LoopKind::Infinite => quote_spanned!(site(span.lo)=> #lbl: loop { #b }),
                    LoopKind::While { cond } => {
                        let c = self.once_per_warp(split, *cond);
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
                        let bounds: Vec<_> = [Some(*start), Some(*end), *step]
                            .into_iter()
                            .flatten()
                            .collect();
                        let prelude = self.thread_prelude(split, self.used_by(&bounds));
                        let range = self.for_range(kind, *span);
                        let name = &self.local_names[var.index()];
                        quote_spanned!(site(span.lo)=> #lbl: for #name in {
                            let __p = __run.phase();
                            let __t = __run.first_live_lane(__w);
                            #prelude
                            #range
                        } { #b })
                    }
                }
            }
            WItem::Scope(inner) => {
                let b = self.witems(split, inner);
                quote!({ #b })
            }
        }
    }

    /// One warp operation for warp `__w`: the lanes' values in, the results out.
    fn warp_op(&self, split: &Split, s: &Stmt, span: Span) -> TokenStream {
        let Stmt::Warp {
            op,
            value,
            lane,
            result,
        } = s
        else {
            return quote_spanned!(site(span.lo)=> ::core::compile_error!("cuphase: not a warp operation (internal error of the simulator writer)"););
        };
        let loc = self.loc(span);
        let kind = Ident::new(op.variant(), site(span.lo));
        let kind = quote!(::cuphase::__private::sim::WarpKind::#kind);
        let check = quote!(__run.check_warp(__w, #loc)?;);
        let (Some(v), Some(r)) = (value, result) else {
            return check;
        };
        let used = self.used_by(&s.operands());
        let ty = scalar_tokens(self.types.expr(*v), span);
        let v = self.expr(*v);
        let arg = match lane {
            Some(l) => {
                let l = self.expr(*l);
                quote!((#l) as u32)
            }
            None => quote!(0u32),
        };
        let none = self.used_by(&[]);
        let operands = s.operands();
        let put =
            quote!(__in[__t - 32 * __w] = (<#ty as ::cuphase::Scalar>::to_lane_bits(#v), #arg););
        // Operands that can neither fault nor touch memory (`may_fault` names loads, and
        // promises, which fault) come from locals, thread indices and constants alone.
        let pure = |&o: &Handle<Expr>| !super::straight::may_fault(self.k, self.types, o);
        let gather = if operands.iter().all(pure) {
            self.pure_lane_loop(split, used, &none, put)
        } else {
            self.lane_loop(split, used, &none, put)
        };
        let out = quote!(__out[__t - 32 * __w]);
        let value = match op {
            WarpOp::Ballot => quote!(#out as u32),
            WarpOp::All | WarpOp::Any => quote!(#out != 0),
            _ => quote!(<#ty as ::cuphase::Scalar>::from_lane_bits(#out)),
        };
        let rn = self.local_place(*r);
        let mut result = self.used_by(&[]);
        result[r.index()] = true;
        let hand_out = self.pure_lane_loop(split, result.clone(), &result, quote!(#rn = #value;));
        quote_spanned!(site(span.lo)=> {
            #check
            let mut __in = [(0u64, 0u32); 32];
            #gather
            let __out = ::cuphase::__private::sim::exchange(#kind, &__in[..__run.lanes(__w)]);
            #hand_out
        })
    }
}
