//! Warpgroup multiplies ([`Stmt::Wgmma`]) and their groups in the simulator's code.
//!
//! Each thread computes its own accumulator values from the tiles in shared memory (the
//! runtime's `wgmma`, which reads them as the thread's reads and adds each product with
//! `mma_dot`, so the rounding is `mma_sync`'s); with `A` in registers, the two rows of `A` it
//! needs come from its warp's fragments first (shuffles in one thread's future; a gather of
//! the warp's fragments in phase-split code, as `mma_sync`'s) and the runtime's `wgmma_rs`
//! takes them. The tiles'
//! chunks stay in flight for race detection until the thread's `wgmma_wait` that covers the
//! group: a write to one of them before then, by any thread, is a race the runtime reports.

use super::plan::{mark_expr, Split};
use super::Writer;
use crate::back::rust_types::{scalar_tokens, site};
use crate::ir::*;
use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};

/// `__rows`: rows `g` and `g + 8` of the warp's 16 rows of `A` that lane `lane`'s accumulator
/// values need, each element `fetch` (of `__src`, the lane that holds it, and `__j`, its index
/// in that lane's fragment: the contract's `a_frag_owner`).
fn a_rows(lane: TokenStream, fetch: TokenStream) -> TokenStream {
    quote! {
        let __lane = (#lane) as usize;
        let mut __rows = [[0.0f32; 16]; 2];
        for __k in 0..16usize {
            for __h in 0..2usize {
                let (__src, __j) = ::cuphase::__private::sim::WgmmaShape::a_frag_owner(__lane / 4 + 8 * __h, __k);
                __rows[__h][__k] = #fetch;
            }
        }
    }
}

fn internal_error() -> TokenStream {
    quote!(::core::compile_error!("cuphase: not a warpgroup multiply (internal error of the simulator writer)");)
}

impl Writer<'_> {
    /// The accumulator's load and store of value `__i` (`__d[__i]`).
    fn wgmma_acc(&self, acc: &Fragment, span: Span) -> (TokenStream, TokenStream) {
        let loc = self.loc(span);
        let name = &self.array_names[acc.array.index()];
        match acc.row {
            Some(r) => {
                let r = self.expr(r);
                (
                    quote!(#name.load2((#r) as usize, __i, #loc)?),
                    quote!(#name.store2((#r) as usize, __i, __d[__i], #loc)?),
                )
            }
            None => (
                quote!(#name.load1(__i, #loc)?),
                quote!(#name.store1(__i, __d[__i], #loc)?),
            ),
        }
    }

    /// The thread's part once its rows of `A` are known (`__rows`, for an `A` in registers):
    /// its accumulator in, the runtime's `wgmma` (or `wgmma_rs`), its accumulator out.
    fn wgmma_part(&self, s: &Stmt, span: Span) -> TokenStream {
        let Stmt::Wgmma {
            shape,
            acc,
            a,
            b,
            b_row,
        } = s
        else {
            return internal_error();
        };
        let loc = self.loc(span);
        let tb = &self.array_names[b.index()];
        let rb = self.expr(*b_row);
        let len = Literal::usize_suffixed(shape.acc_len());
        let n = Literal::u16_suffixed(shape.n);
        let tf32 = shape.input == WgmmaInput::Tf32;
        let b_kn = shape.b_kn;
        let elem = self.k.arrays.get(*b).elem;
        let t = scalar_tokens(elem, span);
        let to_f32 = if elem.is_half() {
            quote!(|__v: #t| #t::to_f32(__v))
        } else {
            quote!(|__v: #t| __v)
        };
        let (load, store) = self.wgmma_acc(acc, span);
        let call = match a {
            WgmmaA::Tile { array, row } => {
                let ta = &self.array_names[array.index()];
                let ra = self.expr(*row);
                quote! {
                    let __ra = (#ra) as usize;
                    ::cuphase::__private::sim::wgmma(
                        #n, #tf32, #b_kn, &mut __d, &#ta, __ra, &#tb, __rb, __me, #to_f32, #loc,
                    )?;
                }
            }
            WgmmaA::Registers(_) => quote! {
                ::cuphase::__private::sim::wgmma_rs(
                    #n, #b_kn, &mut __d, &__rows, &#tb, __rb, __me, #to_f32, #loc,
                )?;
            },
        };
        quote! {
            let __rb = (#rb) as usize;
            let __me = __cx.linear();
            let mut __d = [0.0f32; #len];
            for __i in 0..#len {
                __d[__i] = #load;
            }
            #call
            for __i in 0..#len {
                #store;
            }
        }
    }

    /// One thread's part of a warpgroup multiply. With `A` in registers, in one thread's
    /// future: the elements of its two rows of `A` arrive by shuffles from the lanes of its
    /// warp that hold them (the contract's `a_frag_owner` says which).
    pub(super) fn wgmma_thread(&self, s: &Stmt, span: Span) -> TokenStream {
        let Stmt::Wgmma { a, .. } = s else {
            return internal_error();
        };
        let part = self.wgmma_part(s, span);
        let WgmmaA::Registers(f) = a else {
            return quote_spanned!(site(span.lo)=> { #part });
        };
        let loc = self.loc(span);
        let av = self.a_fragment(f, span);
        let shuffle = quote!(::cuphase::__private::sim::WarpKind::Shuffle);
        let rows = a_rows(
            quote!(__cx.lane_id() as usize),
            quote!(f32::from_bits(__cx.warp(#shuffle, u64::from(__fa[__j].to_bits()), __src as u32, #loc).await as u32)),
        );
        quote_spanned!(site(span.lo)=> {
            let __fa = [#(#av),*];
            #rows
            #part
        })
    }

    /// The elements of `A`'s fragment `f`, each an `f32`.
    fn a_fragment(&self, f: &Fragment, span: Span) -> Vec<TokenStream> {
        (0..cuphase_contract::wgmma::A_FRAG_LEN)
            .map(|i| self.fragment_value(f, i, span))
            .collect()
    }

    /// A warpgroup multiply with `A` in registers for warp `__w` of phase-split code: every
    /// lane's fragment gathered in one lane loop, then each lane's part, with its rows of `A`
    /// from the gathered fragments, in another.
    pub(super) fn wgmma_warp(&self, split: &Split, s: &Stmt, span: Span) -> TokenStream {
        let Stmt::Wgmma {
            a: WgmmaA::Registers(f),
            ..
        } = s
        else {
            return internal_error();
        };
        let loc = self.loc(span);
        let mut used = vec![false; self.k.locals.len()];
        for e in s.operands() {
            mark_expr(self.k, e, &mut used);
        }
        let none = vec![false; self.k.locals.len()];
        let av = self.a_fragment(f, span);
        let ia = 0..av.len();
        let gather = self.lane_loop(
            split,
            used.clone(),
            &none,
            quote! {
                let __l = __t - 32 * __w;
                #(__fa[__l][#ia] = #av;)*
            },
        );
        let part = self.wgmma_part(s, span);
        let rows = a_rows(quote!(__t - 32 * __w), quote!(__fa[__src][__j]));
        let each = self.lane_loop(
            split,
            used,
            &none,
            quote! {
                #rows
                #part
            },
        );
        quote_spanned!(site(span.lo)=> {
            __run.check_warp(__w, #loc)?;
            let mut __fa = [[0.0f32; 8]; 32];
            #gather
            #each
        })
    }

    /// `wgmma_commit()` or `wgmma_wait(n)`: to each tile array, which keeps the reads in flight.
    pub(super) fn wgmma_group(&self, s: &Stmt, span: Span) -> TokenStream {
        let loc = self.loc(span);
        let tiles: Vec<&proc_macro2::Ident> = self
            .k
            .swizzled_arrays()
            .iter()
            .enumerate()
            .filter(|(_, s)| **s)
            .map(|(i, _)| &self.array_names[i])
            .collect();
        let calls = tiles.iter().map(|name| match s {
            Stmt::WgmmaWait { pending } => quote!(#name.wait_mma(__me, #pending, #loc)?;),
            _ => quote!(#name.commit_mma(__me);),
        });
        quote_spanned! {site(span.lo)=> {
            let __me = __cx.linear();
            #(#calls)*
        }}
    }
}
