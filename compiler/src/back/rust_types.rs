//! The Rust types of kernel values as the simulator code and the host glue name them: scalars
//! (`half`'s by path), struct fields, and the elements of slices of structs or of arrays.

use crate::ir::{FieldType, Record, Scalar, Span};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// A span at `at`'s source location that resolves names at the macro's call site. Tokens of
/// `#[device]` helpers arrive through a `macro_rules!` expansion with that macro's hygiene;
/// every name the simulator code declares and uses must resolve in one context.
pub(crate) fn site(at: proc_macro2::Span) -> proc_macro2::Span {
    proc_macro2::Span::call_site().located_at(at)
}

/// The Rust type of a scalar (`half`'s types by path).
pub(crate) fn scalar_tokens(t: Scalar, span: impl Into<Span>) -> TokenStream {
    let span: Span = span.into();
    let id = Ident::new(t.rust_name(), site(span.lo));
    if t.is_half() {
        return quote!(::cuphase::half::#id);
    }
    quote!(#id)
}

/// The Rust type of an element of a slice of records: the struct (`Particle`), or the array
/// of a vector record (`[f32; 4]`).
pub(crate) fn record_type_tokens(
    records: &[Record],
    r: usize,
    at: proc_macro2::Span,
) -> TokenStream {
    match records.get(r) {
        Some(rec) => field_type_tokens(records, &rec.value_type(r), at),
        None => quote!(_),
    }
}

/// The Rust type of a struct field as the compiler read it (`[[f32; 3]; 2]`).
pub(crate) fn field_type_tokens(
    records: &[Record],
    ty: &FieldType,
    at: proc_macro2::Span,
) -> TokenStream {
    match ty {
        FieldType::Scalar(s) => scalar_tokens(*s, at),
        FieldType::Record(r) => {
            let n = Ident::new(records.get(*r).map_or("_", |r| r.name.as_str()), at);
            quote!(#n)
        }
        FieldType::Array(elem, n) => {
            let elem = field_type_tokens(records, elem, at);
            let n = *n as usize;
            quote!([#elem; #n])
        }
    }
}
