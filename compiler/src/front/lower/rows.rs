//! Rows of two-dimensional arrays as values: `let v = tile[r];` copies row `r` of a shared or
//! thread-local `[[T; W]; H]` into a new thread-local array, and `tile[r] = value;` stores an
//! array value (a literal, a thread-local array, an element of a slice of arrays, another row)
//! into one. Both are one access per element, in order: the accesses every analysis already
//! understands, which NVCC merges into vector accesses (`LDS.128`) where the row is aligned.

use super::cx::*;
use super::syntax::*;
use crate::diag::Diagnostic;
use crate::ir::*;

impl Lowerer<'_> {
    /// The two-dimensional shared or thread-local array that `e` indexes with one index
    /// (`tile[r]`), and that index.
    pub(super) fn row_of<'e>(&self, e: &'e syn::Expr) -> Option<(Handle<Array>, &'e syn::Expr)> {
        let syn::Expr::Index(ix) = strip_parens(e) else {
            return None;
        };
        let a = self.array_named(&ix.expr)?;
        match &self.arrays.get(a).kind {
            ArrayKind::Shared { dims, .. } | ArrayKind::Local { dims, .. } if dims.len() == 2 => {
                Some((a, &*ix.index))
            }
            _ => None,
        }
    }

    /// The static shared array `e` names, where it is a bare name of one.
    pub(super) fn shared_array_named(&self, e: &syn::Expr) -> Option<Handle<Array>> {
        self.array_named(e).filter(|a| {
            matches!(
                self.arrays.get(*a).kind,
                ArrayKind::Shared { dynamic: false, .. }
            )
        })
    }

    /// The element type and row length of a row's array.
    fn row_shape(&self, a: Handle<Array>) -> (Scalar, u64) {
        let arr = self.arrays.get(a);
        let w = match &arr.kind {
            ArrayKind::Shared { dims, .. } | ArrayKind::Local { dims, .. } => {
                dims.last().copied().unwrap_or(0)
            }
            ArrayKind::Global { .. } => 0,
        };
        (arr.elem, w)
    }

    /// `let v = tile[r];` (also `let v: [T; W] = ..`): a new thread-local array holding a copy
    /// of the row. `false` when `init` is no row (nothing is lowered).
    pub(super) fn try_row_let(
        &mut self,
        ident: &syn::Ident,
        mutable: bool,
        annotated: Option<&syn::Type>,
        init: &syn::Expr,
        out: &mut Block,
    ) -> bool {
        let Some((a, r)) = self.row_of(init) else {
            return false;
        };
        let name = ident.to_string();
        let (elem, w) = self.row_shape(a);
        if let Some(ty) = annotated {
            if !self.names_array_type(ty, elem, w) {
                self.err(
                    ty.src(),
                    format!(
                        "mismatched types: this row is `[{}; {w}]`",
                        elem.rust_name()
                    ),
                );
            }
        }
        let Some(i) = self.value_or_none(r, out) else {
            self.bind(name, Binding::Poisoned);
            return true;
        };
        let i = self.stable(i, r.src(), out);
        let span = init.src();
        let to = self.arrays.append(
            Array {
                field: None,
                name: name.clone(),
                elem,
                kind: ArrayKind::Local {
                    dims: vec![w],
                    mutable,
                },
            },
            ident.src(),
        );
        for c in 0..w {
            let row = self.again(i);
            let col = self.int_literal(i128::from(c), span);
            let value = self.expr(
                Expr::Load {
                    array: a,
                    index: vec![row, col],
                },
                span,
            );
            let at = self.int_literal(i128::from(c), span);
            out.push(
                Stmt::Assign {
                    place: Place::Element {
                        array: to,
                        index: vec![at],
                    },
                    op: None,
                    value,
                },
                span,
            );
        }
        self.bind(name, Binding::Array(to));
        true
    }

    /// `tile[r] = value;` of a whole row. As Rust does, the value is computed whole first (so
    /// `tile[r] = [tile[r][1], tile[r][0]]` swaps), then the row's index. `false` when the
    /// place is no row (nothing is lowered).
    pub(super) fn try_row_assign(&mut self, a: &syn::ExprAssign, out: &mut Block) -> bool {
        let Some((arr, r)) = self.row_of(&a.left) else {
            return false;
        };
        // A scalar assigned to a row is the indexing error of the place (one index short).
        if !self.is_array_value(&a.right) {
            return false;
        }
        let span = a.src();
        let target = self.arrays.get(arr).clone();
        match &target.kind {
            ArrayKind::Local { mutable: false, .. } => {
                self.cx.push(
                    Diagnostic::new(
                        a.left.src(),
                        format!(
                            "cannot assign to `{}[..]`, as `{}` is not declared as mutable",
                            target.name, target.name
                        ),
                    )
                    .note(format!("declare it `let mut {}`", target.name)),
                );
                return true;
            }
            ArrayKind::Shared { .. } => {
                for f in &mut self.calls {
                    f.wrote_shared = true;
                }
            }
            _ => {}
        }
        let Some(values) = self.row_values(arr, &a.right, span, out) else {
            return true;
        };
        let Some(i) = self.value_or_none(r, out) else {
            return true;
        };
        let i = self.stable(i, r.src(), out);
        for (c, value) in values.into_iter().enumerate() {
            let row = self.again(i);
            let col = self.int_literal(c as i128, span);
            out.push(
                Stmt::Assign {
                    place: Place::Element {
                        array: arr,
                        index: vec![row, col],
                    },
                    op: None,
                    value,
                },
                span,
            );
        }
        true
    }

    /// `v = value;` of a whole one-dimensional thread-local array from an array value that
    /// is not another local array (those are [`Self::try_array_assign`]'s): a literal, a row,
    /// an element of a slice of arrays (`v = x[i]`). As Rust does, the value is computed whole
    /// first. `false` when the place or the value is no such array (nothing is lowered).
    pub(super) fn try_local_array_assign(&mut self, a: &syn::ExprAssign, out: &mut Block) -> bool {
        let Some(arr) = self.local_array_named(&a.left) else {
            return false;
        };
        let ArrayKind::Local { dims, mutable } = &self.arrays.get(arr).kind else {
            return false;
        };
        if dims.len() != 1 || !self.is_array_value(&a.right) {
            return false;
        }
        if !mutable {
            self.immutable_array(arr, a.left.src());
            return true;
        }
        let span = a.src();
        let Some(values) = self.row_values(arr, &a.right, span, out) else {
            return true;
        };
        for (c, value) in values.into_iter().enumerate() {
            let at = self.int_literal(c as i128, span);
            out.push(
                Stmt::Assign {
                    place: Place::Element {
                        array: arr,
                        index: vec![at],
                    },
                    op: None,
                    value,
                },
                span,
            );
        }
        true
    }

    /// Whether `e` is a value of array type (a literal, a thread-local array, a row, an
    /// element of a slice of arrays).
    fn is_array_value(&self, e: &syn::Expr) -> bool {
        let e = strip_parens(e);
        matches!(e, syn::Expr::Array(_) | syn::Expr::Repeat(_))
            || self.local_array_named(e).is_some()
            || self.row_of(e).is_some()
            || matches!(self.field_type_of(e), Some(FieldType::Array(..)))
    }

    /// The elements of array value `e` to store into a row of `arr` (or all of a
    /// one-dimensional `arr`), computed whole first: a value that reads `arr` is held before
    /// the first store. `None` after an error.
    fn row_values(
        &mut self,
        arr: Handle<Array>,
        e: &syn::Expr,
        span: Span,
        out: &mut Block,
    ) -> Option<Vec<Handle<Expr>>> {
        let (elem, w) = self.row_shape(arr);
        let ty = FieldType::Array(Box::new(FieldType::Scalar(elem)), w);
        let values = self.lower_field_leaves(e, &ty, out)?;
        Some(
            values
                .into_iter()
                .map(|v| match self.reads_array(v, arr) {
                    true => self.stable_as("value", v, span, out),
                    false => v,
                })
                .collect(),
        )
    }

    /// Whether `e` or an expression it is computed from loads from `a`.
    fn reads_array(&self, e: Handle<Expr>, a: Handle<Array>) -> bool {
        let expr = self.exprs.get(e);
        matches!(expr, Expr::Load { array, .. } | Expr::UniformLoad { array, .. } if *array == a)
            || expr.operands().into_iter().any(|o| self.reads_array(o, a))
    }

    /// Whether `ty` is written `[elem; n]`.
    pub(super) fn names_array_type(&mut self, ty: &syn::Type, elem: Scalar, n: u64) -> bool {
        self.array_type_shape(ty) == Some((elem, vec![n]))
    }

    /// The scalar and dimensions (outermost first) of an array type of scalars written
    /// `[[T; W]; H]`; `None` for another type.
    pub(super) fn array_type_shape(&mut self, ty: &syn::Type) -> Option<(Scalar, Vec<u64>)> {
        let syn::Type::Array(t) = ty else {
            return None;
        };
        let n = self.const_len(&t.len)?;
        match type_to_scalar(&t.elem) {
            Some(elem) => Some((elem, vec![n])),
            None => {
                let (elem, mut dims) = self.array_type_shape(&t.elem)?;
                dims.insert(0, n);
                Some((elem, dims))
            }
        }
    }
}
