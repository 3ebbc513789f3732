//! Sub-slices: `&a[s..]` and `&mut a[s..]` of a one-dimensional array (a slice parameter, a
//! shared array, a thread-local array, or another sub-slice), bound by `let` or passed to a
//! helper's slice parameter. A sub-slice is its array and a start, held in a variable when the
//! slice is taken (as Rust evaluates it then): element `i` is element `start + i` of the array,
//! and its length is the array's less `start`. This is C's pointer arithmetic
//! (`float* row = inp + idx * C;`) with Rust's spelling.
//!
//! Bounds: every access is checked against the whole array, so an index past the sub-slice's
//! end is caught where it is past the array's (a sub-slice has no end of its own here); a
//! start past the array's end makes every access out of bounds. Slices with an end
//! (`&a[s..e]`) are not supported yet: the accesses would need a second check.

use super::cx::*;
use super::syntax::*;
use crate::ir::*;

impl Lowerer<'_> {
    /// `&a[s..]`, `&mut a[s..]` or `&a[..]`: the sub-slice, its start held in a variable named
    /// `name`. `None` when `e` is not such an expression; `Some(None)` after an error.
    pub(super) fn try_sub_slice(
        &mut self,
        e: &syn::Expr,
        name: &str,
        out: &mut Block,
    ) -> Option<Option<usize>> {
        let syn::Expr::Reference(r) = strip_parens(e) else {
            return None;
        };
        let syn::Expr::Index(ix) = strip_parens(&r.expr) else {
            return None;
        };
        let syn::Expr::Range(range) = strip_parens(&ix.index) else {
            return None;
        };
        if let Some(end) = &range.end {
            self.err(
                end.src(),
                "a sub-slice with an end (`&a[s..e]`) is not supported yet; take `&a[s..]` and index it below `e - s`",
            );
            return Some(None);
        }
        let base = match strip_parens(&ix.expr) {
            syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let Some(base) = base else {
            self.err(
                ix.expr.src(),
                "take a sub-slice of an array by its name: `&a[s..]`",
            );
            return Some(None);
        };
        let mutable = r.mutability.is_some();
        let (array, outer, writable) = match self.lookup(&base) {
            Some(Binding::Array(a)) => {
                let writable = !matches!(
                    self.arrays.get(a).kind,
                    ArrayKind::Global { mutable: false } | ArrayKind::Local { mutable: false, .. }
                );
                (a, None, writable)
            }
            Some(Binding::View(a)) => (a, None, false),
            Some(Binding::Sub(b)) => {
                let s = self.subs[b];
                (s.array, Some(s.start), s.writable)
            }
            Some(Binding::Poisoned) => return Some(None),
            _ => {
                self.err(
                    ix.expr.src(),
                    format!("`{base}` is not an array; sub-slices are taken of arrays: `&a[s..]`"),
                );
                return Some(None);
            }
        };
        if self.arrays.get(array).rank() != 1 {
            self.err(
                ix.expr.src(),
                format!(
                    "`{base}` has two dimensions; sub-slices are taken of one-dimensional arrays"
                ),
            );
            return Some(None);
        }
        if mutable && !writable {
            self.err(
                r.src(),
                format!("cannot borrow `{base}[..]` as mutable: it is read-only"),
            );
            return Some(None);
        }
        let span = r.src();
        let start = match &range.start {
            Some(s) => self.value_or_none(s, out)?,
            None => self.expr(
                Expr::Literal(Literal::Int {
                    value: 0,
                    suffix: Some(Scalar::Usize),
                }),
                span,
            ),
        };
        let start = match outer {
            Some(o) => {
                let o = self.expr(Expr::Local(o), span);
                self.expr(
                    Expr::Binary {
                        op: BinaryOp::Add,
                        left: o,
                        right: start,
                    },
                    span,
                )
            }
            None => start,
        };
        let held = self.hold(start, name, span, out);
        self.subs.push(SubSlice {
            array,
            start: held,
            writable: mutable,
        });
        Some(Some(self.subs.len() - 1))
    }

    /// Element `i` of sub-slice `b`: its array, and the index `start + i` into it (`i` as a
    /// `usize`, the start's type, unless it is one or is signed, which inference reports).
    pub(super) fn sub_index(
        &mut self,
        b: usize,
        i: Handle<Expr>,
        span: Span,
    ) -> (Handle<Array>, Handle<Expr>) {
        let s = self.subs[b];
        let i = match self.guess_type(i, 0) {
            Some(t) if t == Scalar::Usize || t.is_signed_int() => i,
            _ => self.expr(
                Expr::Cast {
                    expr: i,
                    to: Scalar::Usize,
                },
                span,
            ),
        };
        let start = self.expr(Expr::Local(s.start), span);
        let index = self.expr(
            Expr::Binary {
                op: BinaryOp::Add,
                left: start,
                right: i,
            },
            span,
        );
        (s.array, index)
    }

    /// `len()` of sub-slice `b`: the array's length less the start.
    pub(super) fn sub_len(&mut self, b: usize, span: Span) -> Handle<Expr> {
        let s = self.subs[b];
        let whole = match &self.arrays.get(s.array).kind {
            ArrayKind::Shared {
                dims,
                dynamic: false,
                ..
            }
            | ArrayKind::Local { dims, .. } => Expr::Literal(Literal::Int {
                value: i128::from(dims.first().copied().unwrap_or(0)),
                suffix: Some(Scalar::Usize),
            }),
            _ => Expr::Len(s.array),
        };
        let whole = self.expr(whole, span);
        let start = self.expr(Expr::Local(s.start), span);
        self.expr(
            Expr::Binary {
                op: BinaryOp::Sub,
                left: whole,
                right: start,
            },
            span,
        )
    }
}
