//! `mma_m16n8k16(&mut acc, &a, &b)` and `mma_m16n8k8_tf32(..)`: warp-level matrix
//! multiply-accumulate on fragments held in thread-local arrays (or rows of two-dimensional
//! ones), checked against the shape's fragment lengths and element types.

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
        let reference = match strip_parens(e) {
            syn::Expr::Reference(r) if r.mutability.is_some() == wants_mut => r,
            _ => {
                let form = if wants_mut { "&mut acc" } else { "&a" };
                self.err(
                    e.src(),
                    format!(
                        "`{function}` takes `{what}` by reference: write `{form}` (a thread-local array, or `{}[i]`, a row of a two-dimensional one)",
                        form.trim_start_matches("&mut ").trim_start_matches('&')
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
        let shape = shape?;
        let arr = self.arrays.get(array).clone();
        let ArrayKind::Local { dims, mutable } = &arr.kind else {
            return None;
        };
        let input = Scalar::from_rust_name(shape.input())?;
        let (len, elem) = match role {
            Role::Acc => (shape.c_len(), Scalar::F32),
            Role::A => (shape.a_len(), input),
            Role::B => (shape.b_len(), input),
        };
        let fits = match (row.is_some(), dims.as_slice()) {
            (false, [n]) | (true, [_, n]) => *n == len as u64,
            _ => false,
        };
        let want = format!("[{}; {len}]", elem.rust_name());
        if !fits || arr.elem != elem {
            let have: String = dims
                .iter()
                .rev()
                .fold(arr.elem.rust_name().to_string(), |t, d| {
                    format!("[{t}; {d}]")
                });
            let held = if row.is_some() {
                format!("a row of `{}`, a `{have}`", arr.name)
            } else {
                format!("`{}`, a `{have}`", arr.name)
            };
            self.err(
                reference.expr.src(),
                format!(
                    "`{what}` of `{function}` ({}) is a `{want}` fragment; this is {held}",
                    shape.input()
                ),
            );
            return None;
        }
        if wants_mut && !mutable {
            let name = &arr.name;
            self.cx.push(
                Diagnostic::new(
                    reference.expr.src(),
                    format!("cannot borrow `{name}` as mutable, as it is not declared as mutable"),
                )
                .label(
                    self.arrays.span(array),
                    format!("`{name}` is declared here"),
                )
                .note(format!(
                    "`{function}` adds into `acc`: declare it `let mut {name}`"
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
                let rows = dims[0];
                let index = self.frozen("row", i, ix.src(), out);
                let proved = self.loop_var_below(index, rows);
                let at = self.again(index);
                out.push(
                    Stmt::Check {
                        index: at,
                        len: rows,
                        array: arr.name.clone(),
                        proved,
                    },
                    ix.src(),
                );
                Some(self.again(index))
            }
        };
        Some(Fragment { array, row })
    }
}
