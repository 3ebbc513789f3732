//! Powers of two in the race proof: loop variables that only double or halve, and variables
//! a kernel asserts to be one (`assert!(n.is_power_of_two())`).

use super::walker::*;
use crate::analysis::affine::{Affine, Constraint};
use crate::ir::*;

impl Walker<'_> {
    /// Of the variables a loop assigns, those that stay zero or a power of two (they start at
    /// one and only double or halve), and of those, the ones that stay nonzero (they start
    /// positive and only double under a bound that keeps them from wrapping around, `while s
    /// < block_dim().x { ..; s *= 2 }`). A signed one counts only in the second way: below its
    /// sign bit (C's `int` trees).
    pub(super) fn loop_powers_of_two(
        &self,
        kind: &LoopKind,
        body: &Block,
        assigned: &[Handle<Local>],
    ) -> (Vec<Handle<Local>>, Vec<Handle<Local>>) {
        let start = |l: Handle<Local>| self.env[l.index()].as_ref();
        let positive = |l: Handle<Local>| {
            start(l)
                .and_then(|v| v.aff.as_constant())
                .is_some_and(|c| c > 0)
        };
        let stays_below_wrap = |l: Handle<Local>| {
            positive(l)
                && doubling_stays_below_wrap(self.k, kind, body, l, value_bits(self.types.local(l)))
        };
        let pow2: Vec<Handle<Local>> = assigned
            .iter()
            .copied()
            .filter(|l| {
                let ty = self.types.local(*l);
                ty.is_int()
                    && start(*l).is_some_and(|v| self.pow2_bits(v) > 0)
                    && (ty.is_unsigned_int() || stays_below_wrap(*l))
                    && doubles_or_halves(self.k, body, *l)
            })
            .collect();
        let nonzero = pow2
            .iter()
            .copied()
            .filter(|l| stays_below_wrap(*l))
            .collect();
        (pow2, nonzero)
    }

    /// Where `cond` is `positive` and says `x.is_power_of_two()` of a variable `x`
    /// (`assert!(n.is_power_of_two())`), `x` holds a power of two from here on: a symbol of
    /// its own, equal to the old value, nonzero.
    pub(super) fn assume_pow2(&mut self, here: StmtId, cond: Handle<Expr>, positive: bool) {
        match self.k.exprs.get(cond) {
            Expr::Unary {
                op: UnaryOp::Not,
                expr,
            } => self.assume_pow2(here, *expr, !positive),
            Expr::Binary {
                op: BinaryOp::And,
                left,
                right,
            } if positive => {
                let (l, r) = (*left, *right);
                self.assume_pow2(here, l, true);
                self.assume_pow2(here, r, true);
            }
            Expr::Binary {
                op: BinaryOp::Or,
                left,
                right,
            } if !positive => {
                let (l, r) = (*left, *right);
                self.assume_pow2(here, l, false);
                self.assume_pow2(here, r, false);
            }
            Expr::Method {
                method: Method::IsPowerOfTwo,
                receiver,
                ..
            } if positive => {
                let Expr::Local(l) = self.k.exprs.get(*receiver) else {
                    return;
                };
                let Some(old) = self.env[l.index()].clone() else {
                    return;
                };
                let pt = self.per_thread(&old);
                let s = self.sym(SymKey::Pow2Assumed(here, *l, pt), pt, true, SymKind::Other);
                let info = &mut self.syms[s as usize];
                info.pow2 = self.types.local(*l).bits();
                info.nonzero = true;
                info.facts = vec![Constraint::eq(&Affine::var(s), &old.aff)];
                self.env[l.index()] = Some(Val {
                    aff: Affine::var(s),
                    exact: true,
                });
            }
            _ => {}
        }
    }
}

/// Whether a `while l < bound` loop (or `<=`) whose body multiplies `l` by powers of two at
/// its top level only (no halving, none in nested loops) keeps `l` below `2^bits`: the bound is
/// a literal or a block extent (at most 1024), and the bound times every factor of one
/// iteration fits.
fn doubling_stays_below_wrap(
    k: &Kernel,
    kind: &LoopKind,
    body: &Block,
    l: Handle<Local>,
    bits: u32,
) -> bool {
    let LoopKind::While { cond } = kind else {
        return false;
    };
    let Expr::Binary {
        op: op @ (BinaryOp::Lt | BinaryOp::Le),
        left,
        right,
    } = k.exprs.get(*cond)
    else {
        return false;
    };
    if !matches!(k.exprs.get(*left), Expr::Local(x) if *x == l) {
        return false;
    }
    let bound: i128 = match k.exprs.get(*right) {
        Expr::Literal(Literal::Int { value, .. }) => *value,
        Expr::Builtin {
            builtin: Builtin::BlockDim,
            ..
        } => 1024,
        _ => return false,
    } + i128::from(*op == BinaryOp::Le);
    let literal = |e: Handle<Expr>| int_literal(k, e);
    let mut factor: i128 = 1;
    for s in &body.stmts {
        if s.written_local() != Some(l) {
            if s.blocks()
                .any(|b| visit::any_stmt(b, |x| x.written_local() == Some(l)))
            {
                return false;
            }
            continue;
        }
        let f = match s {
            Stmt::Assign {
                op: Some(BinaryOp::Mul),
                value,
                ..
            } => literal(*value),
            Stmt::Assign {
                op: Some(BinaryOp::Shl),
                value,
                ..
            } => literal(*value)
                .filter(|c| (0..64).contains(c))
                .map(|c| 1i128 << c),
            _ => None,
        };
        match f {
            Some(f) if f >= 1 => factor = factor.saturating_mul(f),
            _ => return false,
        }
    }
    // At the head `l < bound`, so after one iteration `l <= (bound - 1) * factor`.
    (bound - 1).saturating_mul(factor) < 1i128 << bits
}

/// The bits of an integer type's non-negative values: 31 for `i32`, 32 for `u32`.
pub(super) fn value_bits(t: Scalar) -> u32 {
    t.bits() - u32::from(t.is_signed_int())
}

/// Whether every assignment to `l` in `b` multiplies or divides it by a power of two (`*= 2`,
/// `/= 4`, `<<= 1`, `>>= k`, `l = l * 2`, `l = l / 2`, ...): zero or a power of two stays one.
fn doubles_or_halves(k: &Kernel, b: &Block, l: Handle<Local>) -> bool {
    let literal = |e: Handle<Expr>| int_literal(k, e);
    let scales = |op: BinaryOp, by: Handle<Expr>| match (op, literal(by)) {
        (BinaryOp::Mul | BinaryOp::Div, Some(c)) => c > 0 && c & (c - 1) == 0,
        (BinaryOp::Shl | BinaryOp::Shr, Some(c)) => (0..64).contains(&c),
        _ => false,
    };
    let mut ok = true;
    visit::for_each_stmt(b, false, &mut |s, _| {
        if s.written_local() != Some(l) {
            return;
        }
        ok &= match s {
            Stmt::Assign {
                op: Some(op),
                value,
                ..
            } => scales(*op, *value),
            Stmt::Assign {
                op: None, value, ..
            } => match k.exprs.get(*value) {
                Expr::Binary { op, left, right } => {
                    let is_l =
                        |e: Handle<Expr>| matches!(k.exprs.get(e), Expr::Local(x) if *x == l);
                    (is_l(*left) && scales(*op, *right))
                        || (*op == BinaryOp::Mul && is_l(*right) && scales(*op, *left))
                }
                _ => false,
            },
            _ => false,
        };
    });
    ok
}

/// The value of an integer literal expression.
fn int_literal(k: &Kernel, e: Handle<Expr>) -> Option<i128> {
    match k.exprs.get(e) {
        Expr::Literal(Literal::Int { value, .. }) => Some(*value),
        _ => None,
    }
}
