//! Warpgroup multiplies ([`Stmt::Wgmma`]) and their groups in the simulator's code.
//!
//! Each thread computes its own accumulator values from the tiles in shared memory (the
//! runtime's `wgmma`, which reads them as the thread's reads and adds each product with
//! `mma_dot`, so the rounding is `mma_sync`'s); no value moves between threads. The tiles'
//! chunks stay in flight for race detection until the thread's `wgmma_wait` that covers the
//! group: a write to one of them before then, by any thread, is a race the runtime reports.

use super::Writer;
use crate::back::rust_types::{scalar_tokens, site};
use crate::ir::*;
use proc_macro2::{Literal, TokenStream};
use quote::{quote, quote_spanned};

impl Writer<'_> {
    /// One thread's part of a warpgroup multiply.
    pub(super) fn wgmma_thread(&self, s: &Stmt, span: Span) -> TokenStream {
        let Stmt::Wgmma {
            shape,
            acc,
            a,
            a_row,
            b,
            b_row,
        } = s
        else {
            return quote!(::core::compile_error!("cuphase: not a warpgroup multiply (internal error of the simulator writer)"););
        };
        let loc = self.loc(span);
        let name = &self.array_names[acc.array.index()];
        let (ta, tb) = (&self.array_names[a.index()], &self.array_names[b.index()]);
        let (ra, rb) = (self.expr(*a_row), self.expr(*b_row));
        let len = Literal::usize_suffixed(shape.acc_len());
        let n = Literal::u16_suffixed(shape.n);
        let tf32 = shape.input == WgmmaInput::Tf32;
        let b_kn = shape.b_kn;
        let elem = self.k.arrays.get(*a).elem;
        let t = scalar_tokens(elem, span);
        let to_f32 = if elem.is_half() {
            quote!(|__v: #t| #t::to_f32(__v))
        } else {
            quote!(|__v: #t| __v)
        };
        let (load, store) = match acc.row {
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
        };
        quote_spanned!(site(span.lo)=> {
            let __ra = (#ra) as usize;
            let __rb = (#rb) as usize;
            let __me = __cx.linear();
            let mut __d = [0.0f32; #len];
            for __i in 0..#len {
                __d[__i] = #load;
            }
            ::cuphase::__private::sim::wgmma(
                #n, #tf32, #b_kn, &mut __d, &#ta, __ra, &#tb, __rb, __me, #to_f32, #loc,
            )?;
            for __i in 0..#len {
                #store;
            }
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
