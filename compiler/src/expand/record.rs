//! `#[derive(DeviceStruct)]`: a `#[repr(C)]` struct of scalars (of other such structs, and of
//! arrays of those) as a buffer element.
//!
//! Takes the struct item; gives the runtime's `Element` impl (the simulator keeps one cell per
//! field, in declaration order, as a tuple: a kernel's `ps[i].x` projects `c.0`, and an array
//! field's cell is the array of its elements' cells: `ps[i].pos[2]` projects `c.1[2]`), and cudarc's
//! `DeviceRepr` and `ValidAsZeroBits`, which are sound because every field is an `Element`
//! (itself both) and the layout is C's. The kernel compiler reads the struct's fields from its
//! source file on its own; the layout it assumed is asserted by each kernel's glue (see
//! `crate::front::records`), so the two readings cannot drift apart unnoticed.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

/// Whether a field's type is written as a named type or an array of one.
fn is_named_or_array(t: &syn::Type) -> bool {
    match t {
        syn::Type::Path(_) => true,
        syn::Type::Array(a) => is_named_or_array(&a.elem),
        syn::Type::Group(g) => is_named_or_array(&g.elem),
        syn::Type::Paren(p) => is_named_or_array(&p.elem),
        _ => false,
    }
}

/// The expansion of `#[derive(DeviceStruct)]`: the impls, or errors at the struct.
pub fn expand_device_struct(item: TokenStream) -> TokenStream {
    let s: syn::DeriveInput = match syn::parse2(item) {
        Ok(s) => s,
        Err(e) => return e.to_compile_error(),
    };
    let name = &s.ident;
    let syn::Data::Struct(data) = &s.data else {
        return syn::Error::new(
            name.span(),
            "`DeviceStruct` is derived for structs with named fields; enums and unions cannot be buffer elements",
        )
        .to_compile_error();
    };
    let syn::Fields::Named(fields) = &data.fields else {
        return syn::Error::new(
            name.span(),
            "`DeviceStruct` needs named fields (`struct P { x: f32, y: f32 }`): kernels read fields by name",
        )
        .to_compile_error();
    };
    if !crate::front::records::is_repr_c(&s.attrs) {
        return syn::Error::new(
            name.span(),
            "a `DeviceStruct` must be `#[repr(C)]`: the GPU reads its fields at C's offsets",
        )
        .to_compile_error();
    }
    if !s.generics.params.is_empty() {
        return syn::Error::new(
            s.generics.span(),
            "a `DeviceStruct` cannot be generic: kernels name its CUDA C type",
        )
        .to_compile_error();
    }
    if fields.named.is_empty() {
        return syn::Error::new(name.span(), "a `DeviceStruct` needs at least one field")
            .to_compile_error();
    }
    // A field written as no named type (a reference, pointer, array, tuple) cannot be an
    // `Element`: one error at it, and no impl whose every method would repeat it.
    let bad: Vec<syn::Error> = fields
        .named
        .iter()
        .filter(|f| !is_named_or_array(&f.ty))
        .map(|f| {
            syn::Error::new(
                f.ty.span(),
                "a `DeviceStruct` field is a scalar, another `DeviceStruct`, or an array `[T; N]` of those (references, pointers and tuples are not supported)",
            )
        })
        .collect();
    if let Some(e) = bad.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        return e.to_compile_error();
    }
    let element = quote!(::cuphase::Element);
    let names: Vec<&syn::Ident> = fields
        .named
        .iter()
        .filter_map(|f| f.ident.as_ref())
        .collect();
    let types: Vec<&syn::Type> = fields.named.iter().map(|f| &f.ty).collect();
    let index: Vec<syn::Index> = (0..names.len()).map(syn::Index::from).collect();
    // A field of a type that is no `Element` fails here, at the field.
    let cells = types
        .iter()
        .map(|t| quote_spanned!(t.span()=> <#t as #element>::Cell));
    let label = name.to_string();
    quote! {
        impl #element for #name {
            type Cell = (#(#cells,)*);
            const NAME: &'static str = #label;
            const LEAVES: usize = 0 #(+ <#types as #element>::LEAVES)*;
            fn zero() -> Self {
                #name { #(#names: <#types as #element>::zero()),* }
            }
            #[inline(always)]
            fn new_cell(v: Self) -> Self::Cell {
                (#(<#types as #element>::new_cell(v.#names),)*)
            }
            #[inline(always)]
            fn load(c: &Self::Cell) -> Self {
                #name { #(#names: <#types as #element>::load(&c.#index)),* }
            }
            #[inline(always)]
            fn store(c: &Self::Cell, v: Self) {
                #(<#types as #element>::store(&c.#index, v.#names);)*
            }
        }
        // SAFETY: a `#[repr(C)]` struct (checked above) of fields that are `Element`s, hence
        // `DeviceRepr` and `ValidAsZeroBits` themselves: its bytes are its fields' bytes at C's
        // offsets, and all-zero bytes are all-zero fields.
        unsafe impl ::cuphase::__private::DeviceRepr for #name {}
        unsafe impl ::cuphase::__private::ValidAsZeroBits for #name {}
    }
}
