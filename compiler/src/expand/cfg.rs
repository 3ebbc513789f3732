//! `#[cfg]` and `#[cfg_attr]` inside kernel and helper bodies, decided by rustc.
//!
//! A procedural macro cannot evaluate a `cfg` predicate (features, target, `test`), and rustc
//! does not strip the body of an item before handing it to an attribute macro. So a kernel
//! whose body holds `#[cfg(P)]` expands to two invocations of `kernel_cfg!`, one under
//! `#[cfg(P)]` and one under `#[cfg(not(P))]`, each carrying the kernel and the value of `P`
//! it stands for. rustc removes the one whose predicate is false before expanding it; the
//! other applies its value (a statement, match arm or struct field under a false `#[cfg]` is
//! removed, a true one loses the attribute; `#[cfg_attr(P, a)]` becomes `#[a]` or nothing)
//! and expands the kernel again, which does the same for the next predicate. With none left
//! the kernel compiles as usual. Only the branch rustc keeps is ever expanded, so `n`
//! predicates cost `n` extra expansions, not `2^n`.

use super::{braced, groups};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;

/// Which macro the resolved item goes back to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Kernel,
    Device,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Kernel => "kernel",
            Kind::Device => "device",
        }
    }
}

/// The first `cfg`/`cfg_attr` predicate in the body of `func`, if any.
pub fn first_predicate(func: &syn::ItemFn) -> Option<TokenStream> {
    struct First(Option<TokenStream>);
    impl<'a> Visit<'a> for First {
        fn visit_attribute(&mut self, a: &'a syn::Attribute) {
            if self.0.is_none() {
                self.0 = predicate(a);
            }
        }
    }
    let mut f = First(None);
    f.visit_block(&func.block);
    f.0
}

/// `P` of `#[cfg(P)]` or of `#[cfg_attr(P, ..)]`.
fn predicate(a: &syn::Attribute) -> Option<TokenStream> {
    let syn::Meta::List(l) = &a.meta else {
        return None;
    };
    if a.path().is_ident("cfg") {
        return Some(l.tokens.clone());
    }
    if a.path().is_ident("cfg_attr") {
        let mut out = TokenStream::new();
        for t in l.tokens.clone() {
            if matches!(&t, TokenTree::Punct(p) if p.as_char() == ',') {
                return Some(out);
            }
            out.extend([t]);
        }
    }
    None
}

/// The two `kernel_cfg!` invocations that let rustc decide `pred` for the item.
pub fn split(kind: Kind, pred: TokenStream, attr: TokenStream, func: &syn::ItemFn) -> TokenStream {
    let word = syn::Ident::new(kind.word(), Span::call_site());
    let call = |value: bool| {
        let v = syn::LitBool::new(value, Span::call_site());
        let parts: TokenStream = [
            braced(word.to_token_stream()),
            braced(pred.clone()),
            braced(v.to_token_stream()),
            braced(attr.clone()),
            braced(func.to_token_stream()),
        ]
        .into_iter()
        .collect();
        quote!(::cuphase::__private::kernel_cfg! { #parts })
    };
    let (yes, no) = (call(true), call(false));
    quote! {
        #[cfg(#pred)]
        #yes
        #[cfg(not(#pred))]
        #no
    }
}

/// `kernel_cfg!`: apply one predicate's value and expand the item again.
pub fn expand_cfg(input: TokenStream) -> TokenStream {
    let parts = groups(input);
    let [word, pred, value, attr, item] = parts.as_slice() else {
        return syn::Error::new(
            Span::call_site(),
            "`kernel_cfg!` is cuphase's internal protocol; it is not called directly",
        )
        .to_compile_error();
    };
    let mut func: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => return e.to_compile_error(),
    };
    let value = value.to_string() == "true";
    let mut apply = Apply {
        pred: pred.to_string(),
        value,
        errors: Vec::new(),
    };
    apply.visit_block_mut(&mut func.block);
    if let Some(e) = apply.errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        return e.to_compile_error();
    }
    let item = func.to_token_stream();
    if word.to_string() == Kind::Device.word() {
        super::expand_device(attr.clone(), item)
    } else {
        super::expand_kernel(attr.clone(), item)
    }
}

/// Applies the value of one predicate to the body.
struct Apply {
    pred: String,
    value: bool,
    errors: Vec<syn::Error>,
}

/// What the attributes say of the node that carries them, for one predicate.
enum Verdict {
    Keep,
    Remove,
}

impl Apply {
    /// Rewrites `attrs` for the predicate; `Remove` when a `#[cfg(P)]` of it is false.
    fn attrs(&mut self, attrs: &mut Vec<syn::Attribute>) -> Verdict {
        let mut out = Vec::with_capacity(attrs.len());
        let mut verdict = Verdict::Keep;
        for a in attrs.drain(..) {
            let ours = predicate(&a).is_some_and(|p| p.to_string() == self.pred);
            if !ours {
                out.push(a);
                continue;
            }
            if a.path().is_ident("cfg") {
                if !self.value {
                    verdict = Verdict::Remove;
                }
                continue;
            }
            // `cfg_attr(P, a, b)`: `#[a] #[b]` when `P` holds.
            if self.value {
                match cfg_attr_attrs(&a) {
                    Ok(list) => out.extend(list),
                    Err(e) => self.errors.push(e),
                }
            }
        }
        *attrs = out;
        verdict
    }
}

/// The attributes of `#[cfg_attr(P, a, b)]`: `#[a]`, `#[b]`.
fn cfg_attr_attrs(a: &syn::Attribute) -> syn::Result<Vec<syn::Attribute>> {
    use syn::punctuated::Punctuated;
    let metas = a.parse_args_with(Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated)?;
    Ok(metas
        .into_iter()
        .skip(1)
        .map(|meta| syn::Attribute {
            pound_token: a.pound_token,
            style: a.style,
            bracket_token: a.bracket_token,
            meta,
        })
        .collect())
}

/// The attributes of a statement.
fn stmt_attrs(s: &mut syn::Stmt) -> Option<&mut Vec<syn::Attribute>> {
    match s {
        syn::Stmt::Local(l) => Some(&mut l.attrs),
        syn::Stmt::Item(_) => None,
        syn::Stmt::Expr(e, _) => leading_attrs(e),
        syn::Stmt::Macro(m) => Some(&mut m.attrs),
    }
}

/// The attributes written before an expression statement: syn puts `#[a] u += 1` on `u`, the
/// leftmost operand, where rustc reads them as the statement's.
fn leading_attrs(e: &mut syn::Expr) -> Option<&mut Vec<syn::Attribute>> {
    use syn::Expr::*;
    let own = expr_attrs(e).is_some_and(|a| !a.is_empty());
    if own {
        return expr_attrs(e);
    }
    match e {
        Binary(x) => leading_attrs(&mut x.left),
        Assign(x) => leading_attrs(&mut x.left),
        Cast(x) => leading_attrs(&mut x.expr),
        Field(x) => leading_attrs(&mut x.base),
        Index(x) => leading_attrs(&mut x.expr),
        MethodCall(x) => leading_attrs(&mut x.receiver),
        Try(x) => leading_attrs(&mut x.expr),
        Await(x) => leading_attrs(&mut x.base),
        Call(x) => leading_attrs(&mut x.func),
        other => expr_attrs(other),
    }
}

/// The attributes of an expression.
fn expr_attrs(e: &mut syn::Expr) -> Option<&mut Vec<syn::Attribute>> {
    use syn::Expr::*;
    Some(match e {
        Array(x) => &mut x.attrs,
        Assign(x) => &mut x.attrs,
        Async(x) => &mut x.attrs,
        Await(x) => &mut x.attrs,
        Binary(x) => &mut x.attrs,
        Block(x) => &mut x.attrs,
        Break(x) => &mut x.attrs,
        Call(x) => &mut x.attrs,
        Cast(x) => &mut x.attrs,
        Closure(x) => &mut x.attrs,
        Const(x) => &mut x.attrs,
        Continue(x) => &mut x.attrs,
        Field(x) => &mut x.attrs,
        ForLoop(x) => &mut x.attrs,
        Group(x) => &mut x.attrs,
        If(x) => &mut x.attrs,
        Index(x) => &mut x.attrs,
        Infer(x) => &mut x.attrs,
        Let(x) => &mut x.attrs,
        Lit(x) => &mut x.attrs,
        Loop(x) => &mut x.attrs,
        Macro(x) => &mut x.attrs,
        Match(x) => &mut x.attrs,
        MethodCall(x) => &mut x.attrs,
        Paren(x) => &mut x.attrs,
        Path(x) => &mut x.attrs,
        Range(x) => &mut x.attrs,
        RawAddr(x) => &mut x.attrs,
        Reference(x) => &mut x.attrs,
        Repeat(x) => &mut x.attrs,
        Return(x) => &mut x.attrs,
        Struct(x) => &mut x.attrs,
        Try(x) => &mut x.attrs,
        TryBlock(x) => &mut x.attrs,
        Tuple(x) => &mut x.attrs,
        Unary(x) => &mut x.attrs,
        Unsafe(x) => &mut x.attrs,
        While(x) => &mut x.attrs,
        Yield(x) => &mut x.attrs,
        _ => return None,
    })
}

impl VisitMut for Apply {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let stmts = std::mem::take(&mut b.stmts);
        for mut s in stmts {
            let keep = match stmt_attrs(&mut s) {
                Some(attrs) => matches!(self.attrs(attrs), Verdict::Keep),
                None => true,
            };
            if keep {
                // The statement's own attributes are done; visit what is inside it.
                match &mut s {
                    syn::Stmt::Expr(e, _) => self.visit_expr_inner(e),
                    other => syn::visit_mut::visit_stmt_mut(self, other),
                }
                b.stmts.push(s);
            }
        }
    }

    fn visit_expr_match_mut(&mut self, m: &mut syn::ExprMatch) {
        self.attrs(&mut m.attrs);
        self.visit_expr_mut(&mut m.expr);
        let arms = std::mem::take(&mut m.arms);
        for mut arm in arms {
            if matches!(self.attrs(&mut arm.attrs), Verdict::Keep) {
                syn::visit_mut::visit_arm_mut(self, &mut arm);
                m.arms.push(arm);
            }
        }
    }

    fn visit_expr_struct_mut(&mut self, s: &mut syn::ExprStruct) {
        self.attrs(&mut s.attrs);
        let fields = std::mem::take(&mut s.fields);
        for mut pair in fields.into_pairs() {
            let f = pair.value_mut();
            if matches!(self.attrs(&mut f.attrs), Verdict::Keep) {
                self.visit_expr_mut(&mut f.expr);
                let (f, p) = pair.into_tuple();
                s.fields.push_value(f);
                if let Some(p) = p {
                    s.fields.push_punct(p);
                }
            }
        }
        if let Some(rest) = &mut s.rest {
            self.visit_expr_mut(rest);
        }
    }

    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        // An expression in the middle of another cannot be removed.
        if let Some(attrs) = expr_attrs(e) {
            if matches!(self.attrs(attrs), Verdict::Remove) {
                self.errors.push(syn::Error::new_spanned(
                    &*e,
                    "a `#[cfg]` that is false here would remove this expression, which Rust does not allow in this position; put the `#[cfg]` on a statement",
                ));
            }
        }
        self.visit_expr_inner(e);
    }
}

impl Apply {
    /// Visits the parts of `e` (its own attributes already applied).
    fn visit_expr_inner(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Match(m) => self.visit_expr_match_mut(m),
            syn::Expr::Struct(s) => self.visit_expr_struct_mut(s),
            other => syn::visit_mut::visit_expr_mut(self, other),
        }
    }
}
