//! Struct values as values: which struct syntax is a place, the parts of values that are no
//! place (`f(p).pts[1]`, `P { .. }.x`), and values held in variables so that they are read
//! once, before a write can change them.

use super::cx::{Binding, Lowerer};
use super::syntax::strip_parens;
use crate::ir::*;

impl Lowerer<'_> {
    /// Whether struct syntax `e` is a place: a struct variable, an element of a slice or
    /// shared array of structs, or a field or element of one (not a literal or a call's
    /// result, nor a part of one).
    pub(super) fn is_record_place(&self, e: &syn::Expr) -> bool {
        match strip_parens(e) {
            syn::Expr::Path(_) => self.is_record_syntax(e),
            syn::Expr::Index(ix) if self.indexes_array_field(e) => self.is_record_place(&ix.expr),
            syn::Expr::Index(_) => matches!(self.indexed_records(e), Some(Binding::Records(_))),
            syn::Expr::Field(f) => self.is_record_place(&f.base),
            _ => false,
        }
    }

    /// The type and leaves of struct syntax `e` as a value: a place's leaves, read, or a part
    /// (a field, an element at a constant index) of a value that is no place, such as
    /// `P { .. }.x` or `corner(p, k).pts[1]`.
    pub(super) fn lower_record_part(
        &mut self,
        e: &syn::Expr,
        out: &mut Block,
    ) -> Option<(FieldType, Vec<Handle<Expr>>)> {
        if self.is_record_place(e) {
            let r = self.record_ref(e, out)?;
            let leaves = r.range.clone().map(|leaf| self.read_at(&r, leaf)).collect();
            return Some((r.ty, leaves));
        }
        match strip_parens(e) {
            syn::Expr::Field(f) => {
                let (ty, leaves) = self.lower_record_part(&f.base, out)?;
                let FieldType::Record(rec) = ty else {
                    self.err(f.member.src(), "this is not a struct; it has no fields");
                    return None;
                };
                let syn::Member::Named(name) = &f.member else {
                    self.err(f.member.src(), "struct fields are read by name");
                    return None;
                };
                let Some((ty, range)) = field_leaves(&self.records, rec, &name.to_string()) else {
                    self.err(
                        name.src(),
                        format!("no field `{name}` on struct `{}`", self.records[rec].name),
                    );
                    return None;
                };
                Some((ty, leaves.get(range)?.to_vec()))
            }
            syn::Expr::Index(ix) => {
                let (ty, leaves) = self.lower_record_part(&ix.expr, out)?;
                let Some((elem, n)) = ty.as_array().map(|(t, n)| (t.clone(), n)) else {
                    self.err(ix.expr.src(), "this is not an array; it cannot be indexed");
                    return None;
                };
                let k = self
                    .module_const_value(&ix.index)
                    .and_then(|k| u64::try_from(k).ok())
                    .filter(|k| *k < n);
                let Some(k) = k else {
                    self.err(
                        ix.index.src(),
                        format!("an array field of a value that is no variable is indexed by a constant below {n}; bind the value first (`let p = ..;`) to index it otherwise"),
                    );
                    return None;
                };
                let stride = leaf_count(&self.records, &elem);
                let start = k as usize * stride;
                Some((elem, leaves.get(start..start + stride)?.to_vec()))
            }
            other => {
                let (rec, leaves) = self.lower_record_value(other, None, out)?;
                Some((FieldType::Record(rec), leaves))
            }
        }
    }

    /// A variable or literal as it is, anything else in a new variable: an index read once
    /// per field.
    pub(super) fn stable(&mut self, e: Handle<Expr>, span: Span, out: &mut Block) -> Handle<Expr> {
        self.stable_as("index", e, span, out)
    }

    /// As [`Self::stable`], the new variable called `name`.
    pub(super) fn stable_as(
        &mut self,
        name: &str,
        e: Handle<Expr>,
        span: Span,
        out: &mut Block,
    ) -> Handle<Expr> {
        if matches!(self.exprs.get(e), Expr::Local(_) | Expr::Literal(_)) {
            return e;
        }
        self.held_in(name, e, span, out)
    }

    /// A new variable `name` holding `e`'s value now.
    fn held_in(
        &mut self,
        name: &str,
        e: Handle<Expr>,
        span: Span,
        out: &mut Block,
    ) -> Handle<Expr> {
        let l = self.locals.append(
            Local {
                name: name.into(),
                mutable: false,
                annotated: None,
                origin: LocalOrigin::Let,
            },
            span,
        );
        out.push(
            Stmt::Let {
                local: l,
                init: Some(e),
            },
            span,
        );
        self.expr(Expr::Local(l), span)
    }

    /// A fresh node of the same value (a variable or literal from [`Self::stable`]).
    pub(super) fn again(&mut self, e: Handle<Expr>) -> Handle<Expr> {
        let span = self.exprs.span(e);
        let node = self.exprs.get(e).clone();
        self.expr(node, span)
    }

    /// Whether place syntax `e` indexes an array field with anything but a literal on the way
    /// (`p.pos[k]`, `ps[i].pts[k].x`).
    pub(super) fn has_computed_field_index(&self, e: &syn::Expr) -> bool {
        match strip_parens(e) {
            syn::Expr::Field(f) => self.has_computed_field_index(&f.base),
            syn::Expr::Index(ix) if self.indexes_array_field(e) => {
                !matches!(strip_parens(&ix.index), syn::Expr::Lit(_))
                    || self.has_computed_field_index(&ix.expr)
            }
            _ => false,
        }
    }

    /// `e` itself where nothing can change it (a literal, a variable that is not `mut`), else
    /// a new variable `name` holding its value now.
    pub(super) fn frozen(
        &mut self,
        name: &str,
        e: Handle<Expr>,
        span: Span,
        out: &mut Block,
    ) -> Handle<Expr> {
        match *self.exprs.get(e) {
            Expr::Literal(_) => e,
            Expr::Local(l) if !self.locals.get(l).mutable => e,
            _ => self.held_in(name, e, span, out),
        }
    }
}
