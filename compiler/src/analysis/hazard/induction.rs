//! Induction variables: a variable that a loop's body changes only by `v += step` (or `v -=
//! step`, `v = v + step`, `v = step + v`, `v = v - step`), once per iteration on every path,
//! with a loop-invariant `step`, is `v0 + n * step` at the loop's head, where `v0` is its value
//! before the loop and `n >= 0` the number of iterations before this one.
//!
//! `n` is one symbol per loop (every induction variable of a loop shares it), defined in the
//! loop: accesses carried over the back edge rename it, since they belong to another
//! iteration. It is uniform where control flow is uniform at the update, per thread
//! otherwise. In a sequential `for` loop with the plain or a constant step and no reversal, it
//! is also tied to the counter (`counter == start + stride * n`), which bounds it by the
//! range. `n * step` is a product of a uniform symbol and a form, as `ty * cols` is (see
//! `pair`).

use super::walker::*;
use crate::analysis::affine::{Affine, Constraint};
use crate::ir::*;

/// One induction variable of a loop: `local` changes by `op` (`Add` or `Sub`) and `step` at
/// the top-level statement `stmt` of the body.
pub(super) struct Induction {
    pub(super) local: Handle<Local>,
    pub(super) op: BinaryOp,
    pub(super) step: Handle<Expr>,
    pub(super) stmt: StmtId,
}

/// What the loop's counter says of the iteration number, for the facts of `n`: the counter's
/// value at the head, the range's start, the stride (`counter == start + stride * n`).
pub(super) type CounterTie = (Affine, Affine, i128);

/// The induction variables of a loop with body `body` (`assigned`: the locals it assigns).
pub(super) fn inductions(k: &Kernel, body: &Block, assigned: &[Handle<Local>]) -> Vec<Induction> {
    // A `continue` of this loop skips what follows it: an update after one need not run.
    if continues_here(body, false) {
        return Vec::new();
    }
    let is_local =
        |e: Handle<Expr>, l: Handle<Local>| matches!(k.exprs.get(e), Expr::Local(x) if *x == l);
    let mut out = Vec::new();
    for (s, _, id) in body.iter_ids() {
        let (l, op, step) = match s {
            Stmt::Assign {
                place: Place::Local(l),
                op: Some(op @ (BinaryOp::Add | BinaryOp::Sub)),
                value,
            } => (*l, *op, *value),
            Stmt::Assign {
                place: Place::Local(l),
                op: None,
                value,
            } => match k.exprs.get(*value) {
                Expr::Binary {
                    op: op @ (BinaryOp::Add | BinaryOp::Sub),
                    left,
                    right,
                } if is_local(*left, *l) => (*l, *op, *right),
                Expr::Binary {
                    op: BinaryOp::Add,
                    left,
                    right,
                } if is_local(*right, *l) => (*l, BinaryOp::Add, *left),
                _ => continue,
            },
            _ => continue,
        };
        // Exactly one write of `l` in the whole body (this one), and a step that is the same
        // in every iteration.
        let mut writes = 0;
        visit::for_each_stmt(body, false, &mut |x, _| {
            writes += usize::from(x.written_local() == Some(l));
        });
        if writes == 1 && invariant(k, step, assigned) {
            out.push(Induction {
                local: l,
                op,
                step,
                stmt: id,
            });
        }
    }
    out
}

/// Whether `b` holds a `continue` that may go to the loop whose body it is: an unlabelled one
/// outside nested loops, or any labelled one.
fn continues_here(b: &Block, nested: bool) -> bool {
    b.stmts.iter().any(|s| match s {
        Stmt::Continue { label: Some(_) } => true,
        Stmt::Continue { label: None } => !nested,
        Stmt::Loop { body, .. } => continues_here(body, true),
        _ => s.blocks().any(|inner| continues_here(inner, nested)),
    })
}

/// Whether `e` has one value in every iteration: literals, thread and block ids and extents,
/// lengths, and variables the loop does not assign, combined by operators (no loads, no
/// calls).
fn invariant(k: &Kernel, e: Handle<Expr>, assigned: &[Handle<Local>]) -> bool {
    match k.exprs.get(e) {
        Expr::Literal(_) | Expr::Builtin { .. } | Expr::Len(_) => true,
        Expr::Local(l) => !assigned.contains(l),
        Expr::Unary { expr, .. } | Expr::Cast { expr, .. } => invariant(k, *expr, assigned),
        Expr::Binary { left, right, .. } => {
            invariant(k, *left, assigned) && invariant(k, *right, assigned)
        }
        _ => false,
    }
}

impl Walker<'_> {
    /// Gives each induction variable of loop `id` its value at the head, `v0 + n * step`
    /// (`starts`: the values before the loop), where the rules model the product; the others
    /// keep the head symbols they have. Call inside the loop (its id pushed), once the
    /// counter's value is set.
    pub(super) fn induction_values(
        &mut self,
        id: StmtId,
        found: &[Induction],
        starts: &[Option<Val>],
        tie: Option<&CounterTie>,
        counter_uniform: bool,
    ) {
        for (ind, start) in found.iter().zip(starts) {
            let Some(v0) = start.clone() else {
                continue;
            };
            let t = self.types.local(ind.local);
            if !t.is_int() {
                continue;
            }
            let pt = !(counter_uniform && self.uni.is_uniform_at(ind.stmt));
            let n = self.sym(SymKey::Iterations(id, pt), pt, true, SymKind::Other);
            if let Some((value, st, stride)) = tie {
                let def = Affine::var(n).scale(*stride).add(st);
                self.syms[n as usize].facts = vec![Constraint::eq(value, &def)];
            }
            let nv = Val {
                aff: Affine::var(n),
                exact: true,
            };
            let step = self.eval(ind.step);
            let site = OpSite::Stmt(ind.stmt);
            let Some(prod) = self.binary(site, BinaryOp::Mul, &step, &nv, t) else {
                continue;
            };
            let Some(head) = self.binary(site, ind.op, &v0, &prod, t) else {
                continue;
            };
            self.env[ind.local.index()] = Some(head);
        }
    }
}
