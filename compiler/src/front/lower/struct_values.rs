//! User structs, the values: struct literals, `let` of a struct, whole-struct assignment, and
//! structs passed to and returned from helpers, each a list of its scalar fields' values (the
//! places they come from and go to are `structs`').

use super::cx::{Binding, Lowerer, RecordValue};
use super::structs::Source;
use super::syntax::strip_parens;
use crate::diag::Diagnostic;
use crate::ir::*;

/// What one field write of a whole-struct assignment changes.
#[derive(Clone, Copy, Debug)]
enum Written {
    Local(Handle<Local>),
    Array(Handle<Array>),
}

impl Lowerer<'_> {
    /// The struct variable a helper's struct result goes to: one variable per field, each
    /// declared here and assigned by the inlined body.
    pub(super) fn record_result_variable(
        &mut self,
        name: &str,
        rec: usize,
        span: Span,
        out: &mut Block,
    ) -> usize {
        let locals = leaves(&self.records, rec)
            .iter()
            .map(|leaf| {
                let l = self.locals.append(
                    Local {
                        name: format!("{name}_{}", leaf.ident()),
                        mutable: false,
                        annotated: Some(leaf.ty),
                        origin: LocalOrigin::Temp,
                    },
                    span,
                );
                out.push(
                    Stmt::Let {
                        local: l,
                        init: None,
                    },
                    span,
                );
                l
            })
            .collect();
        self.record_values.push(RecordValue {
            record: rec,
            leaves: locals,
            name: name.to_string(),
            mutable: false,
        });
        self.record_values.len() - 1
    }

    /// `result = e;` of a helper's struct result (its tail, or a `return e;`).
    pub(super) fn assign_record_result(
        &mut self,
        v: usize,
        rec: usize,
        e: &syn::Expr,
        out: &mut Block,
    ) {
        let Some((_, values)) = self.lower_record_value(e, Some(rec), out) else {
            return;
        };
        let span = e.src();
        let leaves = self.record_values[v].leaves.clone();
        for (l, value) in leaves.into_iter().zip(values) {
            out.push(
                Stmt::Assign {
                    place: Place::Local(l),
                    op: None,
                    value,
                },
                span,
            );
        }
    }

    /// The leaves of a struct value (`p`, `ps[i]`, `p.pos`, `P { x: 1.0, y }`), read in
    /// Rust's order, with its struct; `expected` is the struct the context needs, if known
    /// (reported when it differs).
    pub(super) fn lower_record_value(
        &mut self,
        e: &syn::Expr,
        expected: Option<usize>,
        out: &mut Block,
    ) -> Option<(usize, Vec<Handle<Expr>>)> {
        let span = e.src();
        // `p.scaled(k)`: the call of the struct's method.
        if let syn::Expr::MethodCall(m) = strip_parens(e) {
            if let Some(call) = self.record_method_call(m) {
                let call = syn::Expr::Call(call.ok()?);
                return self.lower_record_value(&call, expected, out);
            }
        }
        let (rec, leaves) = match strip_parens(e) {
            syn::Expr::Struct(s) => self.lower_struct_literal(s, out)?,
            syn::Expr::Call(c) => {
                self.record_call = Some(None);
                let _ = self.lower_call(c, out, span, true);
                let v = self.record_call.take().flatten()?;
                let r = &self.record_values[v];
                let (rec, locals) = (r.record, r.leaves.clone());
                let leaves = locals
                    .into_iter()
                    .map(|l| self.expr(Expr::Local(l), span))
                    .collect();
                (rec, leaves)
            }
            // A part of a value that is no place: `P { .. }.pos`, `f(x).pts[1]`.
            part @ (syn::Expr::Field(_) | syn::Expr::Index(_)) if !self.is_record_place(part) => {
                let (ty, leaves) = self.lower_record_part(part, out)?;
                let FieldType::Record(rec) = ty else {
                    self.err(span, "this is a scalar or array field, not a struct");
                    return None;
                };
                (rec, leaves)
            }
            other => {
                let Some(r) = self.record_ref(other, out) else {
                    if !self.is_record_syntax(other) {
                        self.err(span, "expected a struct here: a struct variable, an element `ps[i]`, a field of struct type, or a literal `P { .. }`");
                    }
                    return None;
                };
                let FieldType::Record(rec) = r.ty else {
                    self.err(span, "this is a scalar or array field, not a struct");
                    return None;
                };
                let leaves = r.range.clone().map(|leaf| self.read_at(&r, leaf)).collect();
                (rec, leaves)
            }
        };
        if let Some(want) = expected {
            if want != rec {
                let (w, g) = (
                    self.records
                        .get(want)
                        .map_or("?", |r| r.name.as_str())
                        .to_string(),
                    self.records
                        .get(rec)
                        .map_or("a scalar", |r| r.name.as_str())
                        .to_string(),
                );
                self.err(
                    span,
                    format!("mismatched types: expected `{w}`, found `{g}`"),
                );
                return None;
            }
        }
        Some((rec, leaves))
    }

    /// `P { x: a, y: b }` (nested literals too): every field once, evaluated in the order
    /// written, leaves returned in declaration order.
    fn lower_struct_literal(
        &mut self,
        s: &syn::ExprStruct,
        out: &mut Block,
    ) -> Option<(usize, Vec<Handle<Expr>>)> {
        let span = s.src();
        if s.qself.is_some() || s.path.get_ident().is_none() {
            self.err(
                s.path.src(),
                "name the struct by its plain name: `P { .. }`",
            );
            return None;
        }
        let ty: syn::Type = syn::Type::Path(syn::TypePath {
            qself: None,
            path: s.path.clone(),
        });
        let rec = match self.record_of_named_type(&ty) {
            Some(Ok(r)) => r,
            Some(Err(why)) => {
                self.err(s.path.src(), why);
                return None;
            }
            None => {
                self.err(
                    s.path.src(),
                    "struct literals in kernels are of `DeviceStruct` structs",
                );
                return None;
            }
        };
        if let Some(rest) = &s.rest {
            self.err(
                rest.src(),
                "`..base` in a struct literal is not supported in kernels; write every field",
            );
            return None;
        }
        let fields = self.records[rec].fields.clone();
        let mut values: Vec<Option<Vec<Handle<Expr>>>> = vec![None; fields.len()];
        let mut ok = true;
        for fv in &s.fields {
            let syn::Member::Named(name) = &fv.member else {
                self.err(fv.member.src(), "struct fields are named");
                ok = false;
                continue;
            };
            let Some(i) = fields.iter().position(|f| *name == f.name) else {
                self.err(
                    name.src(),
                    format!(
                        "struct `{}` has no field named `{name}`",
                        self.records[rec].name
                    ),
                );
                ok = false;
                continue;
            };
            if values[i].is_some() {
                self.err(
                    name.src(),
                    format!("field `{name}` specified more than once"),
                );
                ok = false;
                continue;
            }
            let v = self.lower_field_leaves(&fv.expr, &fields[i].ty, out);
            match v {
                Some(v) => values[i] = Some(v),
                None => ok = false,
            }
        }
        let missing: Vec<String> = fields
            .iter()
            .zip(&values)
            .filter(|(_, v)| v.is_none())
            .map(|(f, _)| format!("`{}`", f.name))
            .collect();
        if ok && !missing.is_empty() {
            self.err(
                span,
                format!(
                    "missing field(s) {} in this literal of `{}`",
                    missing.join(", "),
                    self.records[rec].name
                ),
            );
            return None;
        }
        if !ok {
            return None;
        }
        Some((rec, values.into_iter().flatten().flatten().collect()))
    }

    /// `let p = <struct>;` (`let mut p: P = ..;`): one variable per leaf. Returns `false` when
    /// the binding is not of a struct.
    pub(super) fn try_record_let(
        &mut self,
        ident: &syn::Ident,
        mutable: bool,
        annotated: Option<&syn::Type>,
        init: Option<&syn::Expr>,
        span: Span,
        out: &mut Block,
    ) -> bool {
        let wanted = match annotated.and_then(|t| self.record_of_type(t)) {
            Some(Ok(r)) => Some(r),
            Some(Err(why)) => {
                if let Some(t) = annotated {
                    self.err(t.src(), why);
                }
                self.bind(ident.to_string(), Binding::Poisoned);
                return true;
            }
            None => None,
        };
        let is_record_init =
            init.is_some_and(|e| self.is_record_syntax(e) && self.names_a_record(e));
        if wanted.is_none() && !is_record_init {
            return false;
        }
        let name = ident.to_string();
        let Some(init) = init else {
            self.err(span, format!("give `{name}` its value where it is declared: a struct variable is declared with one"));
            self.bind(name, Binding::Poisoned);
            return true;
        };
        let Some((rec, values)) = self.lower_record_value(init, wanted, out) else {
            self.bind(name, Binding::Poisoned);
            return true;
        };
        let v = self.record_variable(&name, rec, values, mutable, ident.src(), span, out);
        self.bind(name, Binding::Record(v));
        true
    }

    /// A struct variable `name` of struct `rec` holding `values` (its leaves): one `let` per
    /// leaf, declared at `decl`; by index into the record values.
    #[allow(clippy::too_many_arguments)]
    fn record_variable(
        &mut self,
        name: &str,
        rec: usize,
        values: Vec<Handle<Expr>>,
        mutable: bool,
        decl: Span,
        span: Span,
        out: &mut Block,
    ) -> usize {
        let leaves = leaves(&self.records, rec);
        let locals: Vec<Handle<Local>> = leaves
            .iter()
            .zip(values)
            .map(|(leaf, v)| {
                let l = self.locals.append(
                    Local {
                        name: format!("{name}_{}", leaf.ident()),
                        mutable,
                        annotated: Some(leaf.ty),
                        origin: LocalOrigin::Let,
                    },
                    decl,
                );
                out.push(
                    Stmt::Let {
                        local: l,
                        init: Some(v),
                    },
                    span,
                );
                l
            })
            .collect();
        self.record_values.push(RecordValue {
            record: rec,
            leaves: locals,
            name: name.to_string(),
            mutable,
        });
        self.record_values.len() - 1
    }

    /// A helper's struct parameter (`p: Particle`, `mut p: Particle`) bound to its argument:
    /// the argument's fields copied into the parameter's variable, or `None` when the
    /// parameter is no struct (`Some(None)` after an error).
    pub(super) fn record_arg(
        &mut self,
        arg: &syn::Expr,
        pt: &syn::PatType,
        out: &mut Block,
    ) -> Option<Option<usize>> {
        // `&mut P` (a method's `&mut self`): the caller's struct variable itself.
        if let syn::Type::Reference(r) = &*pt.ty {
            if r.mutability.is_some() && self.record_of_type(&r.elem).is_some() {
                return Some(self.record_borrow(arg));
            }
        }
        let rec = match self.record_of_type(&pt.ty)? {
            Ok(r) => r,
            Err(why) => {
                self.err(pt.ty.src(), why);
                return Some(None);
            }
        };
        let (name, mutable) = match &*pt.pat {
            syn::Pat::Ident(pi) => (pi.ident.to_string(), pi.mutability.is_some()),
            other => {
                self.err(other.src(), "a struct parameter is a plain name");
                return Some(None);
            }
        };
        let (_, values) = self.lower_record_value(arg, Some(rec), out)?;
        Some(Some(self.record_variable(
            &name,
            rec,
            values,
            mutable,
            pt.pat.src(),
            arg.src(),
            out,
        )))
    }

    /// The struct variable a `&mut P` parameter borrows: `p` or `&mut p` of a `mut` struct
    /// variable (its fields are the helper's, so writes reach the caller).
    fn record_borrow(&mut self, arg: &syn::Expr) -> Option<usize> {
        let target = match strip_parens(arg) {
            syn::Expr::Reference(r) if r.mutability.is_some() => strip_parens(&r.expr),
            other => other,
        };
        let name = match target {
            syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        match name.as_deref().and_then(|n| self.lookup(n)) {
            Some(Binding::Record(v)) if self.record_values[v].mutable => Some(v),
            Some(Binding::Record(v)) => {
                let name = self.record_values[v].name.clone();
                self.cx.push(
                    Diagnostic::new(arg.src(), format!("cannot borrow `{name}` as mutable"))
                        .note(format!("declare it `let mut {name}`")),
                );
                None
            }
            _ => {
                self.cx.push(
                    Diagnostic::new(arg.src(), "a `&mut self` method changes a struct variable")
                        .note("copy the element into a variable, call the method, store it back: `let mut p = ps[i]; p.step(); ps[i] = p;`"),
                );
                None
            }
        }
    }

    /// `place = <struct>;` of a whole struct (`p = q;`, `ps[i] = P { .. };`, `ps[i].pos =
    /// ..`). Returns `false` when the left side is not a struct place. The value is read
    /// whole before any field is written (`p = P { x: p.y, y: p.x }` swaps).
    pub(super) fn try_record_assign(&mut self, a: &syn::ExprAssign, out: &mut Block) -> bool {
        if !self.is_record_syntax(&a.left) {
            return false;
        }
        let span = a.src();
        let ty = match self.field_type_of(&a.left) {
            Some(FieldType::Scalar(_)) => return false,
            Some(ty) => ty,
            // An unknown field is reported where the place is lowered.
            None if matches!(
                strip_parens(&a.left),
                syn::Expr::Field(_) | syn::Expr::Index(_)
            ) =>
            {
                return false
            }
            // `make(x) = q;`: rustc's "invalid left-hand side of assignment" (it was dropped).
            None => {
                self.err(
                    a.left.src(),
                    "invalid left-hand side of assignment: this struct is a value (a call's result or a literal), not a variable or an element in memory",
                );
                return true;
            }
        };
        let Some(values) = self.lower_field_leaves(&a.right, &ty, out) else {
            return true;
        };
        let Some(r) = self.record_ref(&a.left, out) else {
            return true;
        };
        if !r.dynamic.is_empty() {
            // `p.pts[k] = q`: each leaf chosen by `k`, every value in a variable first.
            let held: Vec<Handle<Expr>> = values
                .into_iter()
                .map(|v| {
                    let vspan = self.exprs.span(v);
                    self.frozen("field", v, vspan, out)
                })
                .collect();
            for (leaf, v) in r.range.clone().zip(held) {
                if !self.assign_at(&r, leaf, None, v, out) {
                    return true;
                }
            }
            return true;
        }
        // A value that reads a field written before it (`p = P { x: p.y, y: p.x }`) is held
        // in a variable first; the others are stored as they are.
        let written: Vec<Written> = r
            .range
            .clone()
            .map(|leaf| match &r.source {
                Source::Var(v) => Written::Local(self.record_values[*v].leaves[leaf]),
                Source::Elem(s, _) => Written::Array(self.record_slices[*s].leaves[leaf]),
            })
            .collect();
        let held: Vec<Handle<Expr>> = values
            .into_iter()
            .enumerate()
            .map(|(j, v)| {
                if !written[..j].iter().any(|w| self.reads(v, *w)) {
                    return v;
                }
                let vspan = self.exprs.span(v);
                let l = self.locals.append(
                    Local {
                        name: "field".into(),
                        mutable: false,
                        annotated: None,
                        origin: LocalOrigin::Let,
                    },
                    vspan,
                );
                out.push(
                    Stmt::Let {
                        local: l,
                        init: Some(v),
                    },
                    vspan,
                );
                self.expr(Expr::Local(l), vspan)
            })
            .collect();
        for (leaf, v) in r.range.clone().zip(held) {
            let Some(place) = self.write_leaf(&r.source, leaf, r.span) else {
                return true;
            };
            out.push(
                Stmt::Assign {
                    place,
                    op: None,
                    value: v,
                },
                span,
            );
        }
        true
    }

    /// Whether `e` reads what `w` names.
    fn reads(&self, e: Handle<Expr>, w: Written) -> bool {
        let x = self.exprs.get(e);
        let here = match (x, w) {
            (Expr::Local(l), Written::Local(m)) => *l == m,
            (Expr::Load { array, .. }, Written::Array(a)) => *array == a,
            _ => false,
        };
        here || x.operands().into_iter().any(|o| self.reads(o, w))
    }
}
