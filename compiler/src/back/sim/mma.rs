//! Matrix multiply-accumulate ([`Stmt::Mma`]) and fragment loads ([`Stmt::LoadMatrix`]) in the
//! simulator's code.
//!
//! Phase-split code gathers the warp's fragments in one lane loop, computes the warp's `D`
//! with the runtime's `mma` and stores each lane's part in another, as a warp operation does.
//! One-future-a-thread code moves the elements of `A`'s rows and `B`'s columns each lane needs
//! with shuffles (one per row half or column and `k`; the contract's `a_owner` and `b_owner`
//! say from where) and computes its own elements with the runtime's `mma_dot`, which `mma`
//! uses too. The fragments are never register arrays (`registers::register_arrays`): they
//! are read and written whole, in memory the thread owns.
//!
//! A fragment load reads each lane's row in one lane loop (each read recorded as that lane's)
//! and hands out the elements in another; in one thread's future, the rows' two 64-bit words
//! travel by shuffles.
//!
//! Takes a [`Stmt::Mma`] or [`Stmt::LoadMatrix`]; gives its Rust code for either form.

use super::plan::{mark_expr, Split};
use super::Writer;
use crate::back::rust_types::{scalar_tokens, site};
use crate::ir::*;
use proc_macro2::{Ident, Literal, TokenStream};
use quote::{quote, quote_spanned};

/// The operands of a [`Stmt::Mma`], or `None` for any other statement.
fn parts(s: &Stmt) -> Option<(MmaShape, [Fragment; 3])> {
    match s {
        Stmt::Mma { shape, acc, a, b } => Some((*shape, [*acc, *a, *b])),
        _ => None,
    }
}

fn internal_error(span: Span) -> TokenStream {
    quote_spanned!(site(span.lo)=> ::core::compile_error!("cuphase: not a matrix multiply (internal error of the simulator writer)");)
}

impl Writer<'_> {
    /// Element `i` of fragment `f` as an `f32`.
    pub(super) fn fragment_value(&self, f: &Fragment, i: usize, span: Span) -> TokenStream {
        let name = &self.array_names[f.array.index()];
        let loc = self.loc(span);
        let i = Literal::usize_suffixed(i);
        let load = match f.row {
            Some(r) => {
                let r = self.expr(r);
                quote!(#name.load2((#r) as usize, #i, #loc)?)
            }
            None => quote!(#name.load1(#i, #loc)?),
        };
        let elem = self.k.arrays.get(f.array).elem;
        if elem.is_half() {
            let t = scalar_tokens(elem, span);
            return quote!(#t::to_f32(#load));
        }
        load
    }

    /// Stores `value` (an `f32`) into element `i` of accumulator fragment `f`.
    fn fragment_store(
        &self,
        f: &Fragment,
        i: usize,
        value: TokenStream,
        span: Span,
    ) -> TokenStream {
        let name = &self.array_names[f.array.index()];
        let loc = self.loc(span);
        let i = Literal::usize_suffixed(i);
        match f.row {
            Some(r) => {
                let r = self.expr(r);
                quote!(#name.store2((#r) as usize, #i, #value, #loc)?;)
            }
            None => quote!(#name.store1(#i, #value, #loc)?;),
        }
    }

    /// The values a lane brings to a multiply, each an `f32`: its elements of `A` and `B`
    /// (rounded to TF32 for that shape) and of the accumulator.
    fn mma_inputs(
        &self,
        shape: MmaShape,
        [acc, a, b]: &[Fragment; 3],
        span: Span,
    ) -> [Vec<TokenStream>; 3] {
        let round = |v: TokenStream| match shape {
            MmaShape::M16N8K8Tf32 => quote!(::cuphase::__private::sim::tf32(#v)),
            _ => v,
        };
        let values = |f: &Fragment, len: usize, round: &dyn Fn(TokenStream) -> TokenStream| {
            (0..len)
                .map(|i| round(self.fragment_value(f, i, span)))
                .collect()
        };
        [
            values(a, shape.a_len(), &round),
            values(b, shape.b_len(), &round),
            values(acc, shape.c_len(), &|v| v),
        ]
    }

    /// A matrix multiply-accumulate for warp `__w` of phase-split code: every lane's fragments
    /// in, the warp's product computed, every lane's accumulator out.
    pub(super) fn mma_warp(&self, split: &Split, s: &Stmt, span: Span) -> TokenStream {
        let Some((shape, [acc, a, b])) = parts(s) else {
            return internal_error(span);
        };
        let loc = self.loc(span);
        let mut used = vec![false; self.k.locals.len()];
        for e in s.operands() {
            mark_expr(self.k, e, &mut used);
        }
        let none = vec![false; self.k.locals.len()];
        let [av, bv, cv] = self.mma_inputs(shape, &[acc, a, b], span);
        let (ia, ib, ic) = (0..av.len(), 0..bv.len(), 0..cv.len());
        let gather = self.lane_loop(
            split,
            used.clone(),
            &none,
            quote! {
                let __l = __t - 32 * __w;
                #(__fa[__l][#ia] = #av;)*
                #(__fb[__l][#ib] = #bv;)*
                #(__fc[__l][#ic] = #cv;)*
            },
        );
        let stores = (0..shape.c_len()).map(|i| {
            let i_lit = Literal::usize_suffixed(i);
            self.fragment_store(&acc, i, quote!(__fd[__l][#i_lit]), span)
        });
        let hand_out = self.lane_loop(
            split,
            used,
            &none,
            quote! {
                let __l = __t - 32 * __w;
                #(#stores)*
            },
        );
        let variant = Ident::new(shape.variant(), site(span.lo));
        quote_spanned!(site(span.lo)=> {
            __run.check_warp(__w, #loc)?;
            let mut __fa = [[0.0f32; 8]; 32];
            let mut __fb = [[0.0f32; 4]; 32];
            let mut __fc = [[0.0f32; 4]; 32];
            #gather
            let __fd = ::cuphase::__private::sim::mma(
                ::cuphase::__private::sim::MmaShape::#variant, &__fa, &__fb, &__fc);
            #hand_out
        })
    }

    /// A matrix multiply-accumulate in one thread's future: the elements of `A`'s rows and
    /// `B`'s columns this lane's accumulator needs arrive by shuffles, then each accumulator
    /// element is one `mma_dot`.
    pub(super) fn mma_thread(&self, s: &Stmt, span: Span) -> TokenStream {
        let Some((shape, [acc, a, b])) = parts(s) else {
            return internal_error(span);
        };
        let loc = self.loc(span);
        let (_, _, k) = shape.mnk();
        let [av, bv, cv] = self.mma_inputs(shape, &[acc, a, b], span);
        let stores = (0..shape.c_len()).map(|i| {
            let (i_lit, h, w) = (
                Literal::usize_suffixed(i),
                Literal::usize_suffixed(i >> 1),
                Literal::usize_suffixed(i & 1),
            );
            let v =
                quote!(::cuphase::__private::sim::mma_dot(__fc[#i_lit], &__rows[#h], &__cols[#w]));
            self.fragment_store(&acc, i, v, span)
        });
        let variant = Ident::new(shape.variant(), site(span.lo));
        let k = Literal::usize_suffixed(k);
        let shuffle = quote!(::cuphase::__private::sim::WarpKind::Shuffle);
        quote_spanned!(site(span.lo)=> {
            let __shape = ::cuphase::__private::sim::MmaShape::#variant;
            let __lane = __cx.lane_id() as usize;
            let __fa = [#(#av),*];
            let __fb = [#(#bv),*];
            let __fc = [#(#cv),*];
            // Rows `g` and `g + 8` of `A`, columns `2t` and `2t + 1` of `B`: what this lane's
            // accumulator elements need. The element each owner sends is the same in every
            // lane for a given step, so one shuffle moves them all.
            let mut __rows = [[0.0f32; #k]; 2];
            let mut __cols = [[0.0f32; #k]; 2];
            for __k in 0..#k {
                for __h in 0..2usize {
                    let (__src, __j) = __shape.a_owner(__shape.c_at(__lane, 2 * __h).0, __k);
                    let __v = __cx.warp(#shuffle, u64::from(__fa[__j].to_bits()), __src as u32, #loc).await;
                    __rows[__h][__k] = f32::from_bits(__v as u32);
                    let (__src, __j) = __shape.b_owner(__k, __shape.c_at(__lane, __h).1);
                    let __v = __cx.warp(#shuffle, u64::from(__fb[__j].to_bits()), __src as u32, #loc).await;
                    __cols[__h][__k] = f32::from_bits(__v as u32);
                }
            }
            #(#stores)*
        })
    }
}

/// The operands of a [`Stmt::LoadMatrix`], or `None` for any other statement.
fn load_parts(s: &Stmt) -> Option<(MatrixLoad, Fragment, Handle<Array>, Handle<Expr>)> {
    match s {
        Stmt::LoadMatrix {
            load,
            frag,
            tile,
            row,
        } => Some((*load, *frag, *tile, *row)),
        _ => None,
    }
}

impl Writer<'_> {
    /// The contract's description of `load`, as generated code names it.
    fn load_tokens(load: MatrixLoad) -> TokenStream {
        let (bytes, len, trans) = (
            Literal::usize_suffixed(load.elem_bytes),
            Literal::usize_suffixed(load.frag_len),
            load.trans,
        );
        quote!(::cuphase::__private::sim::MatrixLoad {
            elem_bytes: #bytes,
            frag_len: #len,
            trans: #trans,
        })
    }

    /// A fragment load for warp `__w` of phase-split code: every lane reads the row it gives
    /// (recorded as its read), then every lane takes its elements of the warp's rows.
    pub(super) fn load_matrix_warp(&self, split: &Split, s: &Stmt, span: Span) -> TokenStream {
        let Some((load, frag, tile, row)) = load_parts(s) else {
            return internal_error(span);
        };
        let loc = self.loc(span);
        let used = self.used_by(&s.operands());
        let none = self.used_by(&[]);
        let name = &self.array_names[tile.index()];
        let t = scalar_tokens(self.k.arrays.get(tile).elem, span);
        let n = Literal::usize_suffixed(load.row_len());
        let es = (0..load.row_len()).map(Literal::usize_suffixed);
        let r = self.expr(row);
        let gather = self.lane_loop(
            split,
            used.clone(),
            &none,
            quote! {
                let __l = __t - 32 * __w;
                let __r = (#r) as usize;
                #(__rows[__l][#es] = #name.load2(__r, #es, #loc)?;)*
            },
        );
        let stores = (0..load.frag_len).map(|i| {
            let i_lit = Literal::usize_suffixed(i);
            let v = quote!({
                let (__from, __e) = __load.source(__l, #i_lit);
                __rows[__from][__e]
            });
            self.fragment_store(&frag, i, v, span)
        });
        let hand_out = self.lane_loop(
            split,
            used,
            &none,
            quote! {
                let __l = __t - 32 * __w;
                #(#stores)*
            },
        );
        let load = Self::load_tokens(load);
        quote_spanned!(site(span.lo)=> {
            __run.check_warp(__w, #loc)?;
            let __load = #load;
            let mut __rows = [[<#t as ::core::default::Default>::default(); #n]; 32];
            #gather
            #hand_out
        })
    }

    /// A fragment load in one thread's future: the thread reads the row it gives, and each of
    /// its fragment's elements arrives by shuffles of the rows' two words from the lane that
    /// gave its row.
    pub(super) fn load_matrix_thread(&self, s: &Stmt, span: Span) -> TokenStream {
        let Some((load, frag, tile, row)) = load_parts(s) else {
            return internal_error(span);
        };
        let loc = self.loc(span);
        let name = &self.array_names[tile.index()];
        let t = scalar_tokens(self.k.arrays.get(tile).elem, span);
        let n = Literal::usize_suffixed(load.row_len());
        let es = (0..load.row_len()).map(Literal::usize_suffixed);
        let half = Literal::usize_suffixed(load.row_len() / 2);
        let len = Literal::usize_suffixed(load.frag_len);
        let r = self.expr(row);
        let stores = (0..load.frag_len).map(|i| {
            let i_lit = Literal::usize_suffixed(i);
            self.fragment_store(&frag, i, quote!(__got[#i_lit]), span)
        });
        let shuffle = quote!(::cuphase::__private::sim::WarpKind::Shuffle);
        let load = Self::load_tokens(load);
        quote_spanned!(site(span.lo)=> {
            let __load = #load;
            let __lane = __cx.lane_id() as usize;
            let __r = (#r) as usize;
            let __row: [#t; #n] = [#(#name.load2(__r, #es, #loc)?),*];
            let __words = ::cuphase::__private::sim::row_words(&__row);
            let mut __got = [<#t as ::core::default::Default>::default(); #len];
            for (__i, __g) in __got.iter_mut().enumerate() {
                let (__from, __e) = __load.source(__lane, __i);
                // Every lane sends both words; each keeps the one its element is in.
                for (__k, __word) in __words.iter().enumerate() {
                    let __v = __cx.warp(#shuffle, *__word, __from as u32, #loc).await;
                    if __e / #half == __k {
                        *__g = ::cuphase::__private::sim::row_element(__v, __e, #n);
                    }
                }
            }
            #(#stores)*
        })
    }
}
