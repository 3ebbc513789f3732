//! Patterns on `Option` values: `if let Some(x) = o`, `let Some(x) = o else { .. };`, the
//! arms of a `match` on an option; and the [`Sink`]s an `if` or `match` delivers its value
//! to (nothing, a scalar variable, an option variable).

use super::cx::*;
use super::options::*;
use super::syntax::*;
use crate::diag::Diagnostic;
use crate::ir::*;
use std::collections::HashMap;

impl Lowerer<'_> {
    /// `if c { .. } else { .. }` or `if let <pat> = o { .. } else { .. }`, its value delivered
    /// to `sink`; `false` after an error.
    pub(super) fn lower_if_into(&mut self, i: &syn::ExprIf, sink: Sink, out: &mut Block) -> bool {
        let span = i.src();
        let mut accept = Block::default();
        // The names a pattern binds are seen by the `then` block only.
        self.scopes.push(HashMap::new());
        let cond = match &*i.cond {
            syn::Expr::Let(l) => self.let_cond(l, out, &mut accept),
            c => match self.lower_value(c, out) {
                Value::Expr(c) => Some(c),
                Value::Diverges => {
                    self.scopes.pop();
                    return true;
                }
                Value::Error => None,
            },
        };
        let Some(cond) = cond else {
            self.scopes.pop();
            return false;
        };
        let then = self.block_into_sink(&i.then_branch, sink);
        accept.append(then);
        self.scopes.pop();
        let reject = match &i.else_branch {
            None if matches!(sink, Sink::Discard) => Block::default(),
            None => {
                self.cx.push(
                    Diagnostic::new(span, "`if` without `else` has no value")
                        .note("add an `else` arm, or use the `if` as a statement"),
                );
                return false;
            }
            Some((_, e)) => match &**e {
                syn::Expr::Block(b) if b.label.is_none() => self.block_into_sink(&b.block, sink),
                other => {
                    let mut b = Block::default();
                    if !self.expr_into_sink(other, sink, &mut b) {
                        return false;
                    }
                    b
                }
            },
        };
        out.push(
            Stmt::If {
                cond,
                accept,
                reject,
            },
            span,
        );
        true
    }

    /// The condition of `let <pat> = <option>` (its bindings pushed to `body`).
    fn let_cond(
        &mut self,
        l: &syn::ExprLet,
        out: &mut Block,
        body: &mut Block,
    ) -> Option<Handle<Expr>> {
        if !self.is_option_expr(&l.expr) {
            self.cx.push(
                Diagnostic::new(l.expr.src(), "kernels support `if let` on an `Option`")
                    .note("compare a scalar with `if x == ..` or `match x { .. }`"),
            );
            return None;
        }
        let p = match self.lower_option(&l.expr, out) {
            Opt::Parts(p) => p,
            _ => return None,
        };
        let v = self.option_in_locals(p, l.expr.src(), out);
        match self.option_pattern_cond(&l.pat, v, body) {
            Ok(Some(c)) => Some(c),
            Ok(None) => Some(self.expr(Expr::Literal(Literal::Bool(true)), l.pat.src())),
            Err(()) => None,
        }
    }

    /// The condition under which option `v` matches `pat` (`None` when it always does), its
    /// bindings pushed to `body`.
    pub(super) fn option_pattern_cond(
        &mut self,
        pat: &syn::Pat,
        v: OptionVar,
        body: &mut Block,
    ) -> Result<Option<Handle<Expr>>, ()> {
        let span = pat.src();
        let flag = |this: &mut Self| this.expr(Expr::Local(v.some), span);
        match pat {
            syn::Pat::Wild(_) => Ok(None),
            syn::Pat::Paren(p) => self.option_pattern_cond(&p.pat, v, body),
            syn::Pat::Ident(pi) if pi.ident == "None" && pi.subpat.is_none() => {
                let some = flag(self);
                Ok(Some(self.expr(
                    Expr::Unary {
                        op: UnaryOp::Not,
                        expr: some,
                    },
                    span,
                )))
            }
            // The whole option, by another name.
            syn::Pat::Ident(pi)
                if pi.subpat.is_none() && pi.by_ref.is_none() && pi.mutability.is_none() =>
            {
                self.option_vars.push(OptionVar {
                    assignable: false,
                    ..v
                });
                let var = self.option_vars.len() - 1;
                self.bind(pi.ident.to_string(), Binding::Option(var));
                Ok(None)
            }
            syn::Pat::TupleStruct(ts)
                if ts.qself.is_none() && ts.path.is_ident("Some") && ts.elems.len() == 1 =>
            {
                let some = flag(self);
                let inner = &ts.elems[0];
                match inner {
                    syn::Pat::Wild(_) => Ok(Some(some)),
                    syn::Pat::Ident(pi) if pi.subpat.is_none() && pi.by_ref.is_none() => {
                        let init = self.expr(Expr::Local(v.value), pi.ident.src());
                        self.bind_copy(&pi.ident, pi.mutability.is_some(), init, false, body);
                        Ok(Some(some))
                    }
                    other => {
                        let value = v.value;
                        let subject = move |this: &mut Self| this.expr(Expr::Local(value), span);
                        let c = self.pattern_cond(other, &subject).ok_or(())?;
                        Ok(Some(self.expr(
                            Expr::Binary {
                                op: BinaryOp::And,
                                left: some,
                                right: c,
                            },
                            span,
                        )))
                    }
                }
            }
            syn::Pat::Or(o) => {
                let mut acc: Option<Handle<Expr>> = None;
                for case in &o.cases {
                    let mut scratch = Block::default();
                    let c = self.option_pattern_cond(case, v, &mut scratch)?;
                    if !scratch.stmts.is_empty() {
                        self.err(
                            case.src(),
                            "the cases of an `|` pattern bind no names in kernels",
                        );
                        return Err(());
                    }
                    let Some(c) = c else {
                        return Ok(None);
                    };
                    acc = Some(match acc {
                        Some(a) => self.expr(
                            Expr::Binary {
                                op: BinaryOp::Or,
                                left: a,
                                right: c,
                            },
                            span,
                        ),
                        None => c,
                    });
                }
                Ok(acc)
            }
            other => {
                self.cx.push(
                    Diagnostic::new(other.src(), "an `Option` pattern in a kernel is `Some(x)`, `Some(_)`, `Some(<literal or range>)`, `None` or `_`")
                        .note("match the value inside: `Some(v) if v > 3 => ..`"),
                );
                Err(())
            }
        }
    }

    /// Whether the arms of a `match` on an option cover every value: a catch-all, or a `None`
    /// and a `Some(x)` (or `Some(_)`), without guards.
    pub(super) fn option_arms_exhaustive(arms: &[syn::Arm]) -> bool {
        let unguarded = || arms.iter().filter(|a| a.guard.is_none()).map(|a| &a.pat);
        let catch_all = |p: &syn::Pat| match p {
            syn::Pat::Wild(_) => true,
            syn::Pat::Ident(pi) => pi.ident != "None" && pi.subpat.is_none(),
            _ => false,
        };
        let none = |p: &syn::Pat| matches!(p, syn::Pat::Ident(pi) if pi.ident == "None");
        let some_all = |p: &syn::Pat| match p {
            syn::Pat::TupleStruct(ts) if ts.path.is_ident("Some") && ts.elems.len() == 1 => {
                catch_all(&ts.elems[0])
            }
            _ => false,
        };
        unguarded().any(catch_all) || (unguarded().any(none) && unguarded().any(some_all))
    }

    /// `let Some(x) = o else { <diverges> };`: the `else` block runs where `o` is `None`, then
    /// `x` is bound in the enclosing scope.
    pub(super) fn try_option_let_else(
        &mut self,
        pat: &syn::Pat,
        init: &syn::Expr,
        diverge: &syn::Expr,
        out: &mut Block,
    ) -> bool {
        let span = pat.src();
        if !self.is_option_expr(init) {
            return false;
        }
        let p = match self.lower_option(init, out) {
            Opt::Parts(p) => p,
            _ => {
                poison_pattern(self, pat);
                return true;
            }
        };
        let v = self.option_in_locals(p, init.src(), out);
        let mut bindings = Block::default();
        let cond = match self.option_pattern_cond(pat, v, &mut bindings) {
            Ok(Some(c)) => c,
            Ok(None) => {
                self.err(
                    span,
                    "this pattern always matches: write `let x = ..;` without `else`",
                );
                return true;
            }
            Err(()) => return true,
        };
        let otherwise = match diverge {
            syn::Expr::Block(b) => self.lower_block(&b.block),
            other => {
                let mut b = Block::default();
                self.lower_stmt_expr(other, &mut b);
                b
            }
        };
        let missing = self.expr(
            Expr::Unary {
                op: UnaryOp::Not,
                expr: cond,
            },
            span,
        );
        out.push(
            Stmt::If {
                cond: missing,
                accept: otherwise,
                reject: Block::default(),
            },
            span,
        );
        out.append(bindings);
        true
    }

    /// Lowers block `b`, its value delivered to `sink`.
    pub(super) fn block_into_sink(&mut self, b: &syn::Block, sink: Sink) -> Block {
        match sink {
            Sink::Discard => self.lower_block(b),
            Sink::Scalar(tmp) => self.block_into_temp(b, tmp),
            Sink::Option(var) => {
                let mut out = Block::default();
                self.scopes.push(HashMap::new());
                let (stmts, tail) = split_tail(b);
                self.lower_stmts(stmts, &mut out, true);
                match tail {
                    Some(t) => {
                        self.lower_option_into(t, var, &mut out);
                    }
                    None if !ends_in_jump(b) => self.err(
                        b.src(),
                        "this block has no value: its last expression ends with `;`",
                    ),
                    None => {}
                }
                self.scopes.pop();
                out
            }
        }
    }

    /// Lowers expression `e`, its value delivered to `sink`; `false` after an error.
    pub(super) fn expr_into_sink(&mut self, e: &syn::Expr, sink: Sink, out: &mut Block) -> bool {
        match sink {
            Sink::Discard => {
                self.lower_stmt_expr(e, out);
                true
            }
            Sink::Scalar(tmp) => match self.lower_value(e, out) {
                Value::Expr(v) => {
                    out.push(
                        Stmt::Assign {
                            place: Place::Local(tmp),
                            op: None,
                            value: v,
                        },
                        e.src(),
                    );
                    true
                }
                Value::Diverges => true,
                Value::Error => false,
            },
            Sink::Option(var) => self.lower_option_into(e, var, out),
        }
    }
}

/// Binds the names of `pat` to nothing (their declaration was reported).
fn poison_pattern(l: &mut Lowerer<'_>, pat: &syn::Pat) {
    if let syn::Pat::TupleStruct(ts) = pat {
        for p in &ts.elems {
            if let syn::Pat::Ident(pi) = p {
                l.bind(pi.ident.to_string(), Binding::Poisoned);
            }
        }
    }
}
