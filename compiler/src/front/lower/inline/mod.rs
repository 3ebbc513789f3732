//! Calls of `#[device]` helpers: each call is inlined where it stands.
//!
//! The arguments are evaluated left to right in the caller (scalars into fresh variables named
//! after the parameters); slice and array parameters name the caller's array, `&mut T`
//! parameters the caller's variable. A generic helper is instantiated per call: its type and
//! const arguments come from a turbofish or from the arguments, and the helper's tokens are
//! rewritten with them before lowering, so the body is lowered (and type-checked) as concrete
//! code. The body is lowered in a scope of its own (it sees its parameters, not the caller's
//! variables); `return` assigns the result and leaves through a labelled loop that runs once.
//! A helper that writes shared memory is followed by its trailing barrier unless it opted out.
//!
//! `call` inlines a call, `args` binds its arguments, `generic_args` instantiates a
//! generic helper; the types they share are here.

mod args;
mod call;
mod generic_args;

use crate::ir::*;

/// A generic parameter of a helper.
pub(super) struct GenericParam {
    pub(super) name: String,
    /// For a type parameter: its bound (`Scalar`, `Num`, `Int`, `Float`); for a const one,
    /// its type.
    pub(super) kind: GenericKind,
    pub(super) span: Span,
}

pub(super) enum GenericKind {
    Type(Option<String>),
    Const(Scalar),
}

/// An argument after its first evaluation, before the parameters are bound.
pub(super) enum Arg {
    /// A scalar value, held by the parameter's variable (typed once generics are bound).
    Value(Handle<Expr>, Handle<Local>),
    /// An array named by the argument.
    Array(Handle<Array>, bool),
    /// A sub-slice (`&mut a[s..]`, or a name bound to one): by index into the lowerer's
    /// sub-slices.
    Sub(usize),
    /// A caller's variable passed as `&mut x`.
    Ref(Handle<Local>),
    /// An element of a caller's array passed as `&mut a[i]`: by index into the lowerer's
    /// borrowed elements.
    Elem(usize),
    /// An immutable variable of the caller passed to an immutable scalar parameter.
    Alias(Handle<Expr>, Handle<Local>),
    /// A struct passed by value: the parameter's variable, by index into the lowerer's
    /// record values.
    Record(usize),
    /// Reported already.
    Error,
}

/// The element type and, for `[T; N]` and `[[T; W]; H]`, the dimensions of an array type.
pub(super) fn array_type(ty: &syn::Type) -> Option<(&syn::Type, Vec<&syn::Expr>)> {
    match ty {
        syn::Type::Slice(s) => Some((&s.elem, Vec::new())),
        syn::Type::Array(_) => {
            let mut dims = Vec::new();
            let mut cur = ty;
            while let syn::Type::Array(a) = cur {
                dims.push(&a.len);
                cur = &a.elem;
            }
            Some((cur, dims))
        }
        syn::Type::Paren(p) => array_type(&p.elem),
        _ => None,
    }
}

/// The identifier a type is when it is a bare name (`T`).
pub(super) fn type_ident(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        syn::Type::Paren(p) => type_ident(&p.elem),
        _ => None,
    }
}

/// An inlined body that an early `return` leaves: the body inside a loop labelled `exit` that
/// runs once (the `return`s break out of it).
pub(super) fn with_exit(mut body: Block, exit: Option<Handle<Label>>, span: Span) -> Block {
    let Some(exit) = exit else {
        return body;
    };
    body.push(Stmt::Break { label: Some(exit) }, span);
    let mut wrapped = Block::default();
    wrapped.push(
        Stmt::Loop {
            label: Some(exit),
            kind: LoopKind::Infinite,
            body,
        },
        span,
    );
    wrapped
}

/// A signature's parameters (a receiver, reported elsewhere, is left out).
pub(super) fn typed_inputs(sig: &syn::Signature) -> Vec<&syn::PatType> {
    sig.inputs
        .iter()
        .filter_map(|i| match i {
            syn::FnArg::Typed(pt) => Some(pt),
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

/// Whether a block contains a `return` (outside closures).
pub(super) fn has_return(b: &syn::Block) -> bool {
    struct Finder(bool);
    impl<'a> syn::visit::Visit<'a> for Finder {
        fn visit_expr_return(&mut self, _: &'a syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    }
    let mut f = Finder(false);
    syn::visit::Visit::visit_block(&mut f, b);
    f.0
}
