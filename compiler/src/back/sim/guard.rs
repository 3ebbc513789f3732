//! Thread loops that run only the threads a guard admits: a loop whose body is one `if` on
//! the thread's x index against a block value (`if t < s`, a tree reduction's rounds).

use super::plan::{block_value, Split};
use crate::ir::Types;
use crate::ir::*;

/// How a thread loop's guard bounds the thread's x index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Guard {
    /// `x < u`: the threads `0..u`.
    Below,
    /// `x <= u`: the threads `0..=u`.
    AtMost,
    /// `x == u`: the thread `u`.
    Equal,
}

/// For a thread loop over `stmts` that is one `if` without `else` whose condition is (or
/// starts with `&&`) a comparison of the thread's x index with a block value `u`: the kind of
/// bound and `u`. Threads outside the bound do nothing there, so the block may skip them
/// where the threads run in order along x.
pub(super) fn x_guard(
    k: &Kernel,
    types: &Types,
    split: &Split,
    stmts: &[(&Stmt, Span)],
) -> Option<(Guard, Handle<Expr>)> {
    let [(Stmt::If { cond, reject, .. }, _)] = stmts else {
        return None;
    };
    if !reject.stmts.is_empty() {
        return None;
    }
    let is_x = |e: Handle<Expr>| {
        let mut e = e;
        loop {
            match k.exprs.get(e) {
                Expr::Builtin {
                    builtin: Builtin::ThreadIdx,
                    axis: Axis::X,
                } => return true,
                Expr::Local(l) if split.remat[l.index()] => match split.init[l.index()] {
                    Some(i) => e = i,
                    None => return false,
                },
                _ => return false,
            }
        }
    };
    let read = |m: Handle<Local>| split.uniform[m.index()] || split.fixed[m.index()];
    let bound = |e: Handle<Expr>| types.expr(e) == Scalar::U32 && block_value(k, types, e, &read);
    let mut c = *cond;
    loop {
        let Expr::Binary { op, left, right } = k.exprs.get(c) else {
            return None;
        };
        let (op, left, right) = (*op, *left, *right);
        let guard = match op {
            BinaryOp::And => {
                c = left;
                continue;
            }
            BinaryOp::Lt | BinaryOp::Gt => Guard::Below,
            BinaryOp::Le | BinaryOp::Ge => Guard::AtMost,
            BinaryOp::Eq => Guard::Equal,
            _ => return None,
        };
        let (x, u) = match op {
            BinaryOp::Gt | BinaryOp::Ge => (right, left),
            BinaryOp::Eq if is_x(right) => (right, left),
            _ => (left, right),
        };
        return (is_x(x) && bound(u)).then_some((guard, u));
    }
}
