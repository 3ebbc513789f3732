//! Thread-local arrays: `let mut a = [v; N]` (and `[[v; W]; H]`) and array literals
//! `[a, b, c]`, declared with their element type and filled one store per element.

use super::cx::*;
use super::syntax::*;
use crate::ir::*;

impl Lowerer<'_> {
    /// `let mut a = [v; N]` or `[[v; W]; H]`: a thread-local array, filled by one store per
    /// element (the arrays are small: they live in registers).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lower_local_array(
        &mut self,
        name: &str,
        name_span: Span,
        mutable: bool,
        annotated: Option<&syn::Type>,
        rep: &syn::ExprRepeat,
        out: &mut Block,
        span: Span,
    ) {
        // Dimensions, outermost first, and the innermost value.
        let mut dims = Vec::new();
        let mut value: &syn::Expr = &rep.expr;
        let mut len: &syn::Expr = &rep.len;
        loop {
            match self.const_len(len) {
                Some(n) => dims.push(n),
                None => return,
            }
            match strip_parens(value) {
                syn::Expr::Repeat(inner) => {
                    value = &inner.expr;
                    len = &inner.len;
                }
                _ => break,
            }
        }
        if dims.len() > 2 {
            self.err(rep.src(), "thread-local arrays have one or two dimensions");
            return;
        }
        let total: u64 = dims.iter().product();
        if total == 0 || total > LOCAL_ARRAY_LIMIT {
            self.err(
                rep.src(),
                format!("a thread-local array holds 1 to {LOCAL_ARRAY_LIMIT} elements (it lives in registers); use a shared array or a slice for more"),
            );
            return;
        }
        // The element type: from the annotation, else from the value's literal suffix.
        let Some(mut elem) = self.annotated_elem(annotated, dims.len()) else {
            return;
        };
        let v = match self.lower_value(value, out) {
            Value::Expr(e) => e,
            _ => return,
        };
        if elem.is_none() {
            elem = match self.exprs.get(v) {
                Expr::Literal(Literal::Int { suffix, .. } | Literal::Float { suffix, .. }) => {
                    *suffix
                }
                Expr::Literal(Literal::Bool(_)) => Some(Scalar::Bool),
                // A parameter or an annotated `let`.
                Expr::Local(l) => self.locals.get(*l).annotated,
                Expr::Cast { to, .. } => Some(*to),
                _ => None,
            };
        }
        let Some(elem) = elem else {
            self.err(
                value.src(),
                format!(
                    "give the element type: `[0.0f32; N]`, or annotate `let {name}: [f32; N] = ..`"
                ),
            );
            return;
        };
        let array = self.arrays.append(
            Array {
                field: None,
                name: name.to_string(),
                elem,
                kind: ArrayKind::Local {
                    dims: dims.clone(),
                    mutable,
                },
            },
            name_span,
        );
        // A literal is stored as it is; anything else is computed once, into a temporary.
        let literal = matches!(self.exprs.get(v), Expr::Literal(_));
        let tmp = if literal {
            None
        } else {
            let tmp = self.locals.append(
                Local {
                    name: format!("{name}_init"),
                    mutable: false,
                    annotated: Some(elem),
                    origin: LocalOrigin::Let,
                },
                span,
            );
            out.push(
                Stmt::Let {
                    local: tmp,
                    init: Some(v),
                },
                span,
            );
            Some(tmp)
        };
        let index_lit = |this: &mut Self, i: u64| {
            this.expr(
                Expr::Literal(Literal::Int {
                    value: i128::from(i),
                    suffix: None,
                }),
                span,
            )
        };
        let rows = if dims.len() == 2 { dims[0] } else { 1 };
        let cols = dims[dims.len() - 1];
        for r in 0..rows {
            for c in 0..cols {
                let mut index = Vec::new();
                if dims.len() == 2 {
                    index.push(index_lit(self, r));
                }
                index.push(index_lit(self, c));
                let value = match tmp {
                    Some(tmp) => self.expr(Expr::Local(tmp), span),
                    None if (r, c) == (0, 0) => v,
                    None => self.expr(self.exprs.get(v).clone(), span),
                };
                out.push(
                    Stmt::Assign {
                        place: Place::Element { array, index },
                        op: None,
                        value,
                    },
                    span,
                );
            }
        }
        self.bind(name.to_string(), Binding::Array(array));
    }

    /// `let w = [0.25f32, 0.5, 0.25];` or `[[a, b], [c, d]]`: a thread-local array of these
    /// elements, evaluated in order and stored one by one.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn lower_array_literal(
        &mut self,
        name: &str,
        name_span: Span,
        mutable: bool,
        annotated: Option<&syn::Type>,
        list: &syn::ExprArray,
        out: &mut Block,
        span: Span,
    ) {
        // The rows: one for a one-dimensional literal.
        let nested = list
            .elems
            .iter()
            .all(|e| matches!(strip_parens(e), syn::Expr::Array(_)));
        let rows: Vec<Vec<&syn::Expr>> = if nested && !list.elems.is_empty() {
            list.elems
                .iter()
                .filter_map(|e| match strip_parens(e) {
                    syn::Expr::Array(r) => Some(r.elems.iter().collect()),
                    _ => None,
                })
                .collect()
        } else {
            vec![list.elems.iter().collect()]
        };
        let cols = rows.first().map_or(0, Vec::len);
        if let Some(r) = rows.iter().find(|r| r.len() != cols) {
            let at = r.first().map_or(list.src(), |e| e.src());
            self.err(
                at,
                format!(
                    "the rows of an array have one length: this one has {}, the first {cols}",
                    r.len()
                ),
            );
            return;
        }
        let total = rows.len() * cols;
        if total == 0 || total as u64 > LOCAL_ARRAY_LIMIT {
            self.err(
                list.src(),
                format!("a thread-local array holds 1 to {LOCAL_ARRAY_LIMIT} elements (it lives in registers); use a shared array or a slice for more"),
            );
            return;
        }
        let dims: Vec<u64> = if nested {
            vec![rows.len() as u64, cols as u64]
        } else {
            vec![cols as u64]
        };
        let Some(mut elem) = self.annotated_elem(annotated, dims.len()) else {
            return;
        };
        // Every element, in order (Rust evaluates them all before the array exists).
        let mut values = Vec::new();
        for (r, row) in rows.iter().enumerate() {
            for (c, e) in row.iter().enumerate() {
                match self.lower_value(e, out) {
                    Value::Expr(v) => values.push((r as u64, c as u64, v, e.src())),
                    _ => return,
                }
            }
        }
        // The element type: the annotation's, else the first an element shows.
        if elem.is_none() {
            elem = values
                .iter()
                .find_map(|(_, _, v, _)| self.guess_type(*v, 0));
        }
        let Some(elem) = elem else {
            self.err(
                list.src(),
                format!("give the element type: `[1.0f32, 2.0]`, or annotate `let {name}: [f32; N] = ..`"),
            );
            return;
        };
        let array = self.arrays.append(
            Array {
                field: None,
                name: name.to_string(),
                elem,
                kind: ArrayKind::Local {
                    dims: dims.clone(),
                    mutable,
                },
            },
            name_span,
        );
        for (r, c, value, vspan) in values {
            let mut index = Vec::new();
            for i in if dims.len() == 2 { vec![r, c] } else { vec![c] } {
                index.push(self.expr(
                    Expr::Literal(Literal::Int {
                        value: i128::from(i),
                        suffix: None,
                    }),
                    vspan,
                ));
            }
            out.push(
                Stmt::Assign {
                    place: Place::Element { array, index },
                    op: None,
                    value,
                },
                span,
            );
        }
        self.bind(name.to_string(), Binding::Array(array));
    }

    /// The element type a thread-local array's annotation (`[T; N]`, `[[T; W]; H]`) gives:
    /// `Some(None)` without one, `None` after an error.
    #[allow(clippy::option_option)]
    fn annotated_elem(
        &mut self,
        annotated: Option<&syn::Type>,
        rank: usize,
    ) -> Option<Option<Scalar>> {
        let Some(ty) = annotated else {
            return Some(None);
        };
        let mut cur = ty;
        for _ in 0..rank {
            match cur {
                syn::Type::Array(a) => cur = &a.elem,
                _ => {
                    self.err(
                        ty.src(),
                        "the annotation of a thread-local array is `[T; N]` or `[[T; W]; H]`",
                    );
                    return None;
                }
            }
        }
        match type_to_scalar(cur) {
            Some(t) => Some(Some(t)),
            None => {
                self.cx.push(unsupported_type(cur));
                None
            }
        }
    }
}
