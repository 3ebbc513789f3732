//! `mma_m16n8k16(&mut acc, &a, &b)` and `mma_m16n8k8_tf32(..)`: warp-level matrix
//! multiply-accumulate on fragments held in thread-local arrays (or rows of two-dimensional
//! ones), checked against the shape's fragment lengths and element types; and
//! `ldmatrix(&mut frag, &tile[r])`, which loads such fragments from rows of a shared tile.

use super::cx::*;
use super::syntax::*;
use crate::diag::Diagnostic;
use crate::ir::*;

/// Which operand of the call a fragment is.
#[derive(Clone, Copy)]
enum Role {
    Acc,
    A,
    B,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Acc => "acc",
            Role::A => "a",
            Role::B => "b",
        }
    }
}

impl Lowerer<'_> {
    /// A matrix multiply-accumulate statement: its fragments, then [`Stmt::Mma`].
    pub(super) fn lower_mma(&mut self, c: &syn::ExprCall, out: &mut Block, span: Span) {
        let function = call_name(c).unwrap_or_default();
        if c.args.len() != 3 {
            self.err(
                span,
                format!("`{function}` takes 3 arguments: `(&mut acc, &a, &b)`"),
            );
            return;
        }
        let a_elem = self.fragment_elem(&c.args[1]);
        let shape = match (function.as_str(), a_elem) {
            (_, None) => None,
            ("mma_m16n8k16", Some(Scalar::Bf16)) => Some(MmaShape::M16N8K16Bf16),
            ("mma_m16n8k16", Some(Scalar::F16)) => Some(MmaShape::M16N8K16F16),
            ("mma_m16n8k8_tf32", Some(Scalar::F32)) => Some(MmaShape::M16N8K8Tf32),
            (_, Some(t)) => {
                let want = if function == "mma_m16n8k16" {
                    "`bf16` or `f16`"
                } else {
                    "`f32` (rounded to TF32)"
                };
                self.err(
                    c.args[1].src(),
                    format!(
                        "`{function}` multiplies {want} fragments; `a` holds `{}`",
                        t.rust_name()
                    ),
                );
                None
            }
        };
        let Some(shape) = shape else {
            // Still report what is wrong with the other operands.
            let _ = self.fragment(&c.args[0], Role::Acc, None, &function, out);
            return;
        };
        let acc = self.fragment(&c.args[0], Role::Acc, Some(shape), &function, out);
        let a = self.fragment(&c.args[1], Role::A, Some(shape), &function, out);
        let b = self.fragment(&c.args[2], Role::B, Some(shape), &function, out);
        if let (Some(acc), Some(a), Some(b)) = (acc, a, b) {
            out.push(Stmt::Mma { shape, acc, a, b }, span);
        }
    }

    /// The element type of the thread-local array fragment `e` names, if it names one.
    fn fragment_elem(&self, e: &syn::Expr) -> Option<Scalar> {
        let inner = match strip_parens(e) {
            syn::Expr::Reference(r) => &*r.expr,
            other => other,
        };
        let name = match strip_parens(inner) {
            syn::Expr::Index(ix) => &*ix.expr,
            other => other,
        };
        self.local_array_named(name)
            .map(|a| self.arrays.get(a).elem)
    }

    /// One operand: `&mut acc` or `&a`, where `acc` is a thread-local array of the fragment's
    /// length or `acc[row]` a row of a two-dimensional one. `shape` is `None` when the call is
    /// already wrong: the operand is checked for its reference and array only.
    fn fragment(
        &mut self,
        e: &syn::Expr,
        role: Role,
        shape: Option<MmaShape>,
        function: &str,
        out: &mut Block,
    ) -> Option<Fragment> {
        let what = role.name();
        let wants_mut = matches!(role, Role::Acc);
        let (array, row, place) = self.fragment_operand(e, what, wants_mut, function)?;
        let shape = shape?;
        let arr = self.arrays.get(array).clone();
        let ArrayKind::Local { dims, .. } = &arr.kind else {
            return None;
        };
        let input = Scalar::from_rust_name(shape.input())?;
        let (len, elem) = match role {
            Role::Acc => (shape.c_len(), Scalar::F32),
            Role::A => (shape.a_len(), input),
            Role::B => (shape.b_len(), input),
        };
        let fits = fragment_len(dims, row.is_some()) == Some(len as u64);
        let want = format!("[{}; {len}]", elem.rust_name());
        if !fits || arr.elem != elem {
            let held = held_fragment(&arr.name, arr.elem, dims, row.is_some());
            self.err(
                place.src(),
                format!(
                    "`{what}` of `{function}` ({}) is a `{want}` fragment; this is {held}",
                    shape.input()
                ),
            );
            return None;
        }
        self.fragment_finish(array, row, place, wants_mut, function, out)
    }

    /// A fragment operand's reference and array: `&mut frag` (or `&frag`), `frag` a
    /// thread-local array or `frag[row]` a row of a two-dimensional one. Gives the array, the
    /// row's expression and the place referred to.
    pub(super) fn fragment_operand<'e>(
        &mut self,
        e: &'e syn::Expr,
        what: &str,
        wants_mut: bool,
        function: &str,
    ) -> Option<(Handle<Array>, Option<&'e syn::Expr>, &'e syn::Expr)> {
        let reference = match strip_parens(e) {
            syn::Expr::Reference(r) if r.mutability.is_some() == wants_mut => r,
            _ => {
                let form = if wants_mut {
                    format!("&mut {what}")
                } else {
                    format!("&{what}")
                };
                self.err(
                    e.src(),
                    format!(
                        "`{function}` takes `{what}` by reference: write `{form}` (a thread-local array, or `{what}[i]`, a row of a two-dimensional one)"
                    ),
                );
                return None;
            }
        };
        let (name_expr, row) = match strip_parens(&reference.expr) {
            syn::Expr::Index(ix) => (&*ix.expr, Some(&*ix.index)),
            other => (other, None),
        };
        let Some(array) = self.local_array_named(name_expr) else {
            self.err(
                reference.expr.src(),
                format!(
                    "`{what}` of `{function}` is a fragment: a thread-local array (`let mut {what} = [0.0f32; 4];`) or a row of one"
                ),
            );
            return None;
        };
        Some((array, row, &reference.expr))
    }

    /// The rest of a fragment operand whose array and type are right: a written one must be
    /// `mut`; a row's index is lowered and checked against the rows.
    pub(super) fn fragment_finish(
        &mut self,
        array: Handle<Array>,
        row: Option<&syn::Expr>,
        place: &syn::Expr,
        wants_mut: bool,
        function: &str,
        out: &mut Block,
    ) -> Option<Fragment> {
        let arr = self.arrays.get(array).clone();
        let ArrayKind::Local { dims, mutable } = &arr.kind else {
            return None;
        };
        if wants_mut && !mutable {
            let name = &arr.name;
            let does = if function.starts_with("ldmatrix") {
                "writes"
            } else {
                "adds into"
            };
            self.cx.push(
                Diagnostic::new(
                    place.src(),
                    format!("cannot borrow `{name}` as mutable, as it is not declared as mutable"),
                )
                .label(
                    self.arrays.span(array),
                    format!("`{name}` is declared here"),
                )
                .note(format!(
                    "`{function}` {does} its fragment: declare it `let mut {name}`"
                )),
            );
            return None;
        }
        let row = match row {
            None => None,
            Some(ix) => {
                let Value::Expr(i) = self.lower_value(ix, out) else {
                    return None;
                };
                Some(self.checked_row(i, dims[0], &arr.name, ix.src(), out))
            }
        };
        Some(Fragment { array, row })
    }

    /// Row index `i` of an array of `rows` rows, held so that it cannot change, after a check
    /// against the rows (proved where `i` is a `for` variable within them).
    pub(super) fn checked_row(
        &mut self,
        i: Handle<Expr>,
        rows: u64,
        array: &str,
        span: Span,
        out: &mut Block,
    ) -> Handle<Expr> {
        let index = self.frozen("row", i, span, out);
        let proved = self.loop_var_below(index, rows);
        let at = self.again(index);
        out.push(
            Stmt::Check {
                index: at,
                len: rows,
                array: array.to_string(),
                proved,
            },
            span,
        );
        self.again(index)
    }

    /// `ldmatrix(&mut frag, &tile[r])` or `ldmatrix_trans(..)`: the fragment, then the row of
    /// the shared tile, then [`Stmt::LoadMatrix`].
    pub(super) fn lower_load_matrix(
        &mut self,
        c: &syn::ExprCall,
        trans: bool,
        out: &mut Block,
        span: Span,
    ) {
        let function = MatrixLoad::function(trans);
        let form = format!("`{function}(&mut frag, &tile[r])`");
        if c.args.len() != 2 {
            self.err(
                span,
                format!("`{function}` takes 2 arguments: {form}, a thread-local fragment and a 16-byte row of a shared array"),
            );
            return;
        }
        let Some((array, frag_row, place)) =
            self.fragment_operand(&c.args[0], "frag", true, function)
        else {
            return;
        };
        // The tile: a row of a two-dimensional shared array, by shared reference.
        let tile_expr = match strip_parens(&c.args[1]) {
            syn::Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            other => {
                self.err(
                    other.src(),
                    format!("`{function}` reads its second argument by shared reference: {form}"),
                );
                return;
            }
        };
        let Some((tile, tile_row)) = self
            .row_of(tile_expr)
            .filter(|(a, _)| matches!(self.arrays.get(*a).kind, ArrayKind::Shared { .. }))
        else {
            self.err(
                tile_expr.src(),
                format!("`{function}` loads from a row of a two-dimensional shared array (`&tile[r]`, where `tile` is `shared::<[[bf16; 8]; N]>()`)"),
            );
            return;
        };
        let t = self.arrays.get(tile).clone();
        let ArrayKind::Shared { dims, .. } = &t.kind else {
            return;
        };
        let (rows, cols) = (dims[0], dims[1]);
        let elem = t.elem;
        let row_type = format!("[{}; {cols}]", elem.rust_name());
        if cols * elem.size_bytes() != cuphase_contract::ldmatrix::ROW_BYTES as u64 {
            self.err(
                tile_expr.src(),
                format!(
                    "`{function}` loads 16-byte rows; a row of `{}` is a `{row_type}`, {} bytes",
                    t.name,
                    cols * elem.size_bytes()
                ),
            );
            return;
        }
        let f = self.arrays.get(array).clone();
        let ArrayKind::Local { dims: fdims, .. } = &f.kind else {
            return;
        };
        let len = fragment_len(fdims, frag_row.is_some());
        let forms = if trans {
            "`[bf16; 2]`, `[bf16; 4]` or `[bf16; 8]` (or `f16`)"
        } else {
            "`[bf16; 2]`, `[bf16; 4]` or `[bf16; 8]` (or `f16`), or `[f32; 1]`, `[f32; 2]` or `[f32; 4]`"
        };
        let load = len
            .filter(|_| f.elem == elem)
            .and_then(|n| MatrixLoad::new(elem.size_bytes() as usize, n as usize, trans));
        let Some(load) = load else {
            let held = held_fragment(&f.name, f.elem, fdims, frag_row.is_some());
            self.err(
                place.src(),
                format!(
                    "`{function}` loads one, two or four matrices of the tile's elements into a {forms} fragment; this is {held}, and `{}` holds `{row_type}` rows",
                    t.name
                ),
            );
            return;
        };
        let Some(frag) = self.fragment_finish(array, frag_row, place, true, function, out) else {
            return;
        };
        let Value::Expr(r) = self.lower_value(tile_row, out) else {
            return;
        };
        let row = self.checked_row(r, rows, &t.name, tile_row.src(), out);
        out.push(
            Stmt::LoadMatrix {
                load,
                frag,
                tile,
                row,
            },
            span,
        );
    }
}

/// The elements of a fragment operand: the length of a one-dimensional thread-local array
/// (dimensions `dims`), or of a row of a two-dimensional one (`row`); `None` otherwise.
pub(super) fn fragment_len(dims: &[u64], row: bool) -> Option<u64> {
    match (row, dims) {
        (false, [n]) | (true, [_, n]) => Some(*n),
        _ => None,
    }
}

/// What an operand that is not the fragment a call needs holds, for its error: "`fa`, a
/// `[bf16; 3]`" or "a row of `fa`, a `[[bf16; 8]; 2]`".
pub(super) fn held_fragment(name: &str, elem: Scalar, dims: &[u64], row: bool) -> String {
    let have: String = dims
        .iter()
        .rev()
        .fold(elem.rust_name().to_string(), |t, d| format!("[{t}; {d}]"));
    if row {
        format!("a row of `{name}`, a `{have}`")
    } else {
        format!("`{name}`, a `{have}`")
    }
}
