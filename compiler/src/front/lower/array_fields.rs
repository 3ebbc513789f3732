//! Array fields of user structs (`pos: [f32; 3]`): their elements, which are leaves like any
//! scalar field (see [`crate::ir::Record`]), read and written through constant or computed
//! indices; whole array fields as values (struct literals, assignments, `let a = p.pos;`,
//! `for v in p.pos`).
//!
//! A computed index (`p.pos[k]`) is checked against the length where it is evaluated, as
//! Rust does, and then chooses among the elements: `k == 0 ? p_pos_0 : k == 1 ? p_pos_1 :
//! p_pos_2` for a read, `if (k == 0) .. else if ..` for a write. The elements stay separate
//! registers (a struct variable) or separate scalars of an element (a slice's), so every
//! analysis sees scalars; the C compiler folds the choice once a loop over `k` is unrolled.

use super::cx::{Binding, Lowerer, Value};
use super::structs::{index_base, Dynamic, Ref, Source};
use super::syntax::strip_parens;
use crate::ir::*;

impl Lowerer<'_> {
    /// Element `ix.index` of the array field `ix.expr` (`p.pos[k]`): a constant index picks its
    /// leaves; a computed one is checked against the length here and chosen among them where
    /// the element is read or written.
    pub(super) fn array_field_element(
        &mut self,
        ix: &syn::ExprIndex,
        out: &mut Block,
    ) -> Option<Ref> {
        let span = ix.src();
        let base = self.record_ref(&ix.expr, out)?;
        let Some((elem, len)) = base.ty.as_array().map(|(t, n)| (t.clone(), n)) else {
            self.err(
                ix.expr.src(),
                "this is a struct, not an array; it cannot be indexed",
            );
            return None;
        };
        if let syn::Expr::Range(r) = strip_parens(&ix.index) {
            self.err(
                r.src(),
                "sub-slices of an array field are not supported; index single elements",
            );
            return None;
        }
        let stride = leaf_count(&self.records, &elem);
        let mut r = Ref {
            ty: elem,
            span,
            ..base
        };
        // A constant index (`pos[2]`, `pts[CORNERS - 1]`) picks its leaves.
        let (constant, computed) = match self.module_const_value(&ix.index) {
            Some(v) => (Some(v), None),
            None => {
                let i = self.value_or_none(&ix.index, out)?;
                match *self.exprs.get(i) {
                    Expr::Literal(Literal::Int { value, .. }) => (Some(value), None),
                    _ => (None, Some(i)),
                }
            }
        };
        if let Some(value) = constant {
            // As rustc, which rejects a constant index past the end.
            let Some(k) = usize::try_from(value).ok().filter(|k| (*k as u64) < len) else {
                self.err(
                    ix.index.src(),
                    format!(
                        "this index is out of bounds: the len is {len} but the index is {value}"
                    ),
                );
                return None;
            };
            let start = r.range.start + k * stride;
            r.range = start..start + stride;
            return Some(r);
        }
        let i = computed?;
        // Held where a write through this place could change it (`p.m[p.m[0][0]] = ..`).
        let index = self.frozen("index", i, ix.index.src(), out);
        r.range = r.range.start..r.range.start + stride;
        r.dynamic.push(Dynamic { index, len, stride });
        // `for d in 0..3 { b.pos[d] }` is in bounds by the loop's range.
        let proved = self.loop_var_below(index, len);
        let at = self.again(index);
        out.push(
            Stmt::Check {
                index: at,
                len,
                // The field as written (`bs[i].pos`), for the fault.
                array: quote::ToTokens::to_token_stream(&*ix.expr)
                    .to_string()
                    .split_whitespace()
                    .collect(),
                proved,
            },
            span,
        );
        Some(r)
    }

    /// An unsuffixed integer literal.
    pub(super) fn int_literal(&mut self, value: i128, span: Span) -> Handle<Expr> {
        self.expr(
            Expr::Literal(Literal::Int {
                value,
                suffix: None,
            }),
            span,
        )
    }

    /// `index == k`, for a [`Dynamic`]'s index.
    fn index_is(&mut self, index: Handle<Expr>, k: u64, span: Span) -> Handle<Expr> {
        let left = self.again(index);
        let right = self.int_literal(i128::from(k), span);
        self.expr(
            Expr::Binary {
                op: BinaryOp::Eq,
                left,
                right,
            },
            span,
        )
    }

    /// The read of leaf `leaf` of a struct place, through its computed indices: `k == 0 ?
    /// pos_0 : k == 1 ? pos_1 : pos_2`.
    pub(super) fn read_at(&mut self, r: &Ref, leaf: usize) -> Handle<Expr> {
        self.read_through(&r.source, &r.dynamic, leaf, r.span)
    }

    fn read_through(
        &mut self,
        source: &Source,
        dynamic: &[Dynamic],
        leaf: usize,
        span: Span,
    ) -> Handle<Expr> {
        let Some((d, rest)) = dynamic.split_first() else {
            return self.read_leaf(source, leaf, span);
        };
        let last = d.len.saturating_sub(1);
        let mut acc = self.read_through(source, rest, leaf + last as usize * d.stride, span);
        for k in (0..last).rev() {
            let accept = self.read_through(source, rest, leaf + k as usize * d.stride, span);
            let cond = self.index_is(d.index, k, span);
            acc = self.expr(
                Expr::Select {
                    cond,
                    accept,
                    reject: acc,
                },
                span,
            );
        }
        acc
    }

    /// `leaf op= value` for leaf `leaf` of a struct place, through its computed indices (`if
    /// k == 0 { pos_0 = v } else if ..`); `value` is a variable or literal. `false` (reported)
    /// when the place cannot be assigned.
    pub(super) fn assign_at(
        &mut self,
        r: &Ref,
        leaf: usize,
        op: Option<BinaryOp>,
        value: Handle<Expr>,
        out: &mut Block,
    ) -> bool {
        // One report for a place that cannot be assigned, not one per element.
        if self.write_leaf(&r.source, leaf, r.span).is_none() {
            return false;
        }
        self.assign_through(&r.source, &r.dynamic, leaf, op, value, r.span, out);
        true
    }

    #[allow(clippy::too_many_arguments)]
    fn assign_through(
        &mut self,
        source: &Source,
        dynamic: &[Dynamic],
        leaf: usize,
        op: Option<BinaryOp>,
        value: Handle<Expr>,
        span: Span,
        out: &mut Block,
    ) {
        let Some((d, rest)) = dynamic.split_first() else {
            if let Some(place) = self.write_leaf(source, leaf, span) {
                let value = self.again(value);
                out.push(Stmt::Assign { place, op, value }, span);
            }
            return;
        };
        let last = d.len.saturating_sub(1);
        let mut acc = Block::default();
        let at = leaf + last as usize * d.stride;
        self.assign_through(source, rest, at, op, value, span, &mut acc);
        for k in (0..last).rev() {
            let mut accept = Block::default();
            let at = leaf + k as usize * d.stride;
            self.assign_through(source, rest, at, op, value, span, &mut accept);
            let cond = self.index_is(d.index, k, span);
            let mut b = Block::default();
            b.push(
                Stmt::If {
                    cond,
                    accept,
                    reject: acc,
                },
                span,
            );
            acc = b;
        }
        out.append(acc);
    }

    /// The leaves of a value for a field of type `ty` (a struct literal's field, the right
    /// side of an assignment), in declaration order.
    pub(super) fn lower_field_leaves(
        &mut self,
        e: &syn::Expr,
        ty: &FieldType,
        out: &mut Block,
    ) -> Option<Vec<Handle<Expr>>> {
        match ty {
            FieldType::Scalar(_) => match self.lower_value(e, out) {
                Value::Expr(v) => Some(vec![v]),
                _ => None,
            },
            FieldType::Record(r) => self.lower_record_value(e, Some(*r), out).map(|(_, l)| l),
            FieldType::Array(elem, n) => self.lower_array_leaves(e, elem, *n, out),
        }
    }

    /// The leaves of an array value of `n` elements of type `elem`: an array literal, `[v;
    /// n]`, another struct's array field, or a thread-local array of scalars.
    fn lower_array_leaves(
        &mut self,
        e: &syn::Expr,
        elem: &FieldType,
        n: u64,
        out: &mut Block,
    ) -> Option<Vec<Handle<Expr>>> {
        let span = e.src();
        let ty = FieldType::Array(Box::new(elem.clone()), n);
        match strip_parens(e) {
            syn::Expr::Array(list) => {
                if list.elems.len() as u64 != n {
                    self.err(
                        span,
                        format!(
                            "mismatched types: expected an array of {n} elements, found one of {}",
                            list.elems.len()
                        ),
                    );
                    return None;
                }
                let mut leaves = Vec::new();
                let mut ok = true;
                for x in &list.elems {
                    match self.lower_field_leaves(x, elem, out) {
                        Some(l) => leaves.extend(l),
                        None => ok = false,
                    }
                }
                ok.then_some(leaves)
            }
            syn::Expr::Repeat(rep) => {
                let len = self.const_len(&rep.len)?;
                if len != n {
                    self.err(
                        rep.len.src(),
                        format!("mismatched types: expected an array of {n} elements, found one of {len}"),
                    );
                    return None;
                }
                // The value once, as Rust evaluates it, then copied.
                let one: Vec<Handle<Expr>> = self
                    .lower_field_leaves(&rep.expr, elem, out)?
                    .into_iter()
                    .map(|v| self.stable(v, rep.expr.src(), out))
                    .collect();
                let mut leaves = one.clone();
                for _ in 1..n {
                    for v in &one {
                        let copy = self.again(*v);
                        leaves.push(copy);
                    }
                }
                Some(leaves)
            }
            other if self.is_record_syntax(other) => {
                let (got, leaves) = self.lower_record_part(other, out)?;
                if got != ty {
                    self.err(
                        span,
                        "mismatched types: this is not an array of the field's type and length",
                    );
                    return None;
                }
                Some(leaves)
            }
            other => {
                // A thread-local array `a`, or a row `a[r]` of a two-dimensional one or of a
                // two-dimensional shared array.
                let (a, row) = match other {
                    syn::Expr::Index(ix) => (
                        self.local_array_named(&ix.expr)
                            .or_else(|| self.shared_array_named(&ix.expr)),
                        Some(&*ix.index),
                    ),
                    _ => (self.local_array_named(other), None),
                };
                let Some(a) = a else {
                    self.err(
                        span,
                        "an array field's value is an array literal, `[v; N]`, a thread-local array (or a row of one), or another struct's array field",
                    );
                    return None;
                };
                let arr = self.arrays.get(a).clone();
                let mut dims = match &arr.kind {
                    ArrayKind::Local { dims, .. } | ArrayKind::Shared { dims, .. } => dims.clone(),
                    ArrayKind::Global { .. } => Vec::new(),
                };
                let mut prefix = Vec::new();
                if let Some(r) = row {
                    if dims.len() != 2 {
                        self.err(span, "this is an element, not an array");
                        return None;
                    }
                    dims.remove(0);
                    let i = self.value_or_none(r, out)?;
                    prefix.push(self.stable(i, r.src(), out));
                }
                if scalar_array_shape(&ty) != Some((arr.elem, dims.clone())) {
                    self.err(
                        span,
                        "mismatched types: this array's element type or length is not the field's",
                    );
                    return None;
                }
                let mut leaves = Vec::new();
                for at in indices_of(&dims) {
                    let mut index: Vec<Handle<Expr>> =
                        prefix.iter().map(|i| self.again(*i)).collect();
                    index.extend(at.iter().map(|i| self.int_literal(i128::from(*i), span)));
                    leaves.push(self.expr(Expr::Load { array: a, index }, span));
                }
                Some(leaves)
            }
        }
    }

    /// `let a = p.pos;` (`let mut`): a thread-local array holding a copy of an array field of
    /// scalars. `false` when `init` is no array field.
    pub(super) fn try_array_field_let(
        &mut self,
        ident: &syn::Ident,
        mutable: bool,
        annotated: Option<&syn::Type>,
        init: &syn::Expr,
        out: &mut Block,
    ) -> bool {
        if !self.is_record_syntax(init)
            || !matches!(self.field_type_of(init), Some(FieldType::Array(..)))
        {
            return false;
        }
        let field = self
            .field_type_of(init)
            .as_ref()
            .and_then(scalar_array_shape);
        if let Some(ty) = annotated.filter(|ty| self.array_type_shape(ty) != field) {
            self.err(
                ty.src(),
                "mismatched types: this is not the type of the array copied (leave the type out: it is the field's)",
            );
        }
        let name = ident.to_string();
        let b = match self.array_field_copy(init, &name, ident.src(), mutable, out) {
            Some(a) => Binding::Array(a),
            None => Binding::Poisoned,
        };
        self.bind(name, b);
        true
    }

    /// A new thread-local array `name` holding a copy of array field `e` (of scalars, or
    /// arrays of them), or `None` (reported).
    pub(super) fn array_field_copy(
        &mut self,
        e: &syn::Expr,
        name: &str,
        decl: Span,
        mutable: bool,
        out: &mut Block,
    ) -> Option<Handle<Array>> {
        let span = e.src();
        let (ty, values) = self.lower_record_part(e, out)?;
        let Some((elem, dims)) = scalar_array_shape(&ty) else {
            self.err(
                span,
                "this array field holds structs; thread-local arrays in kernels hold scalars, so read its elements' fields (`[k].x`)",
            );
            return None;
        };
        let a = self.arrays.append(
            Array {
                name: name.to_string(),
                elem,
                kind: ArrayKind::Local {
                    dims: dims.clone(),
                    mutable,
                },
                field: None,
            },
            decl,
        );
        for (at, value) in indices_of(&dims).into_iter().zip(values) {
            let index = at
                .iter()
                .map(|i| self.int_literal(i128::from(*i), span))
                .collect();
            out.push(
                Stmt::Assign {
                    place: Place::Element { array: a, index },
                    op: None,
                    value,
                },
                span,
            );
        }
        Some(a)
    }

    /// The array a `for v in p.pos` loop runs over when `e` is an array field of a struct
    /// variable: a copy of it (what Rust's loop over an array copies, and what a loop over
    /// `p.pos.iter()` sees, as `p` cannot change while borrowed). `None` when `e` is no array
    /// field; `Some(None)` after an error.
    pub(super) fn array_field_loop(
        &mut self,
        e: &syn::Expr,
        out: &mut Block,
    ) -> Option<Option<Handle<Array>>> {
        if !self.is_record_syntax(e) || !matches!(self.field_type_of(e), Some(FieldType::Array(..)))
        {
            return None;
        }
        // The struct the field is of: a variable, or an element in memory (`ps[i]`).
        let mut root = strip_parens(e);
        loop {
            match root {
                syn::Expr::Field(f) => root = strip_parens(&f.base),
                syn::Expr::Index(_) if self.indexes_array_field(root) => {
                    root = index_base(root);
                }
                _ => break,
            }
        }
        if matches!(root, syn::Expr::Index(_)) {
            // Other threads may write the element while the loop runs (between its
            // barriers): a copy taken before the loop would not see what Rust's reads see.
            self.err(
                e.src(),
                "loops over an array field of a slice's element are not supported; loop over its indices (`for k in 0..N { let v = ps[i].pos[k]; .. }`) or copy the element first (`let p = ps[i];`)",
            );
            return Some(None);
        }
        Some(self.array_field_copy(e, "elems", e.src(), false, out))
    }

    /// `p.pos.len()` of an array field: its length. `None` when the receiver is no array
    /// field.
    pub(super) fn array_field_len(
        &mut self,
        receiver: &syn::Expr,
        span: Span,
        out: &mut Block,
    ) -> Option<Value> {
        if !self.is_record_syntax(receiver) {
            return None;
        }
        let (_, n) = self
            .field_type_of(receiver)?
            .as_array()
            .map(|(t, n)| (t.clone(), n))?;
        // The receiver is evaluated, as Rust does, for its faults (`ps[i]` past the end).
        let (_, leaves) = self.lower_record_part(receiver, out)?;
        if let Some(first) = leaves.first() {
            out.push(Stmt::Eval(*first), span);
        }
        Some(Value::Expr(self.expr(
            Expr::Literal(Literal::Int {
                value: i128::from(n),
                suffix: Some(Scalar::Usize),
            }),
            span,
        )))
    }
}

/// The element type and dimensions (outermost first) of an array type of scalars, or of
/// arrays of them (`[[f32; 3]; 2]` is `(F32, [2, 3])`); `None` for any other type.
fn scalar_array_shape(ty: &FieldType) -> Option<(Scalar, Vec<u64>)> {
    let mut dims = Vec::new();
    let mut cur = ty;
    while let FieldType::Array(elem, n) = cur {
        dims.push(*n);
        cur = elem;
    }
    match cur {
        FieldType::Scalar(s) if !dims.is_empty() && dims.len() <= 2 => Some((*s, dims)),
        _ => None,
    }
}

/// Every index of an array of dimensions `dims`, in row-major order.
fn indices_of(dims: &[u64]) -> Vec<Vec<u64>> {
    let mut out = vec![Vec::new()];
    for &d in dims {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                (0..d).map(move |k| {
                    let mut at = prefix.clone();
                    at.push(k);
                    at
                })
            })
            .collect();
    }
    out
}
