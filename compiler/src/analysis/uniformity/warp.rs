//! The warp level of the uniformity analysis: the values the same in every thread of a warp
//! when blocks are whole warps along x, and the error for a warp operation some lanes skip.

use super::{Analyzer, Reason};
use crate::diag::Diagnostic;
use crate::ir::visit;
use crate::ir::*;

/// Whether `e` is `thread_idx().x`, or a cast of it to a type that keeps its value
/// (`thread_idx().x as i32`, the first line of many C ports), given the locals that are.
fn is_tid_x(k: &Kernel, e: Handle<Expr>, locals: &[bool]) -> bool {
    match k.exprs.get(e) {
        Expr::Builtin {
            builtin: Builtin::ThreadIdx,
            axis: Axis::X,
        } => true,
        Expr::Local(l) => locals[l.index()],
        Expr::Cast { expr, to } => {
            to.holds_int(i128::from(MAX_BLOCK_THREADS) - 1) && is_tid_x(k, *expr, locals)
        }
        _ => false,
    }
}

/// The locals that hold exactly `thread_idx().x`: immutable, initialised with it, with
/// another such local, or with a cast of one that keeps its value.
pub(super) fn tid_x_locals(k: &Kernel) -> Vec<bool> {
    let mut out = vec![false; k.locals.len()];
    loop {
        let mut changed = false;
        visit::for_each_stmt(&k.body, false, &mut |s, _| {
            if let Stmt::Let {
                local,
                init: Some(e),
            } = s
            {
                if is_tid_x(k, *e, &out) && !k.locals.get(*local).mutable && !out[local.index()] {
                    out[local.index()] = true;
                    changed = true;
                }
            }
        });
        if !changed {
            return out;
        }
    }
}

impl Analyzer<'_, '_> {
    /// Whether `h` is one of the values the warp-level pass knows are the same in every thread
    /// of a warp (when blocks are whole warps along x): `thread_idx().y` and `.z` (and of
    /// `global_idx()`), `thread_idx().x / c` and `>> k` (also of a cast that keeps its value) (`c` a multiple of 32, `k >= 5`), and
    /// `thread_idx().x < c` (`>= c`; `<= c - 1`, `> c - 1`) for such `c`.
    pub(super) fn warp_uniform(&self, h: Handle<Expr>) -> bool {
        let tid_x = |e: Handle<Expr>| is_tid_x(self.k, e, &self.tid_x);
        let lit = |e: Handle<Expr>| match self.k.exprs.get(e) {
            Expr::Literal(Literal::Int { value, .. }) => Some(*value),
            _ => None,
        };
        match self.k.exprs.get(h) {
            Expr::Builtin {
                builtin: Builtin::ThreadIdx | Builtin::GlobalIdx,
                axis: Axis::Y | Axis::Z,
            } => true,
            Expr::Binary { op, left, right } if tid_x(*left) => match (op, lit(*right)) {
                (BinaryOp::Div, Some(c)) => c > 0 && c % 32 == 0,
                (BinaryOp::Shr, Some(k)) => (5..32).contains(&k),
                (BinaryOp::Lt | BinaryOp::Ge, Some(c)) => c % 32 == 0,
                (BinaryOp::Le | BinaryOp::Gt, Some(c)) => (c + 1) % 32 == 0,
                _ => false,
            },
            Expr::Binary { op, left, right } if tid_x(*right) => match (op, lit(*left)) {
                (BinaryOp::Gt | BinaryOp::Le, Some(c)) => c % 32 == 0,
                (BinaryOp::Ge | BinaryOp::Lt, Some(c)) => (c + 1) % 32 == 0,
                _ => false,
            },
            _ => false,
        }
    }

    /// A warp operation some threads of a warp skip (the warp-level pass).
    pub(super) fn divergent_warp_op(&mut self, span: Span, what: &str, reason: &Reason) {
        if !self.reporting {
            return;
        }
        let mut d = Diagnostic::new(
            span,
            format!("{what} is not reached by every thread of its warp: some lanes would skip it or meet it a different number of times"),
        )
        .label(reason.span, format!("control flow diverges within a warp here: {}", reason.text));
        d = reason.explain(d);
        d = d.note("every thread of a warp must reach each warp operation: move it to where the whole warp goes, or make the condition the same for a warp's threads (block-uniform, or `thread_idx().x / 32`, `thread_idx().x < 32 * k`, `thread_idx().y`, which need blocks whose x extent is a multiple of 32, checked at launch)");
        self.cx.push(d);
    }

    /// A warpgroup operation (`wgmma_*`) under control flow that is not block-uniform.
    pub(super) fn divergent_warpgroup_op(&mut self, span: Span, what: &str, reason: &Reason) {
        if !self.reporting {
            return;
        }
        let mut d = Diagnostic::new(
            span,
            format!("{what} is not reached by every thread of the block together: a warpgroup's 128 threads must all reach it"),
        )
        .label(reason.span, format!("control flow may diverge here: {}", reason.text));
        d = reason.explain(d);
        d = d.note("the warpgroup operations must sit where the whole block goes (block-uniform control flow): move the condition's divergent part around them");
        self.cx.push(d);
    }
}
