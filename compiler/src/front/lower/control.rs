//! Control flow: `if` (statement and value), `match` on integers, `while`, `loop`, `for`
//! over ranges and strided ranges, labels, `break`/`continue`/`return`, and blocks as values.

use super::cx::*;
use super::options::{Opt, Sink};
use super::syntax::*;
use crate::diag::Diagnostic;
use crate::front::builtins::BuiltinFn;
use crate::ir::*;
use std::collections::HashMap;

impl Lowerer<'_> {
    /// `match` on an integer or an `Option`, lowered to an `if` chain over a temporary
    /// holding the scrutinee; each arm's value goes to `sink`.
    pub(super) fn lower_match(&mut self, m: &syn::ExprMatch, out: &mut Block, sink: Sink) -> bool {
        let span = m.src();
        // The subject: an option's variables, or an integer's value (in a temporary unless it
        // is a variable or a literal).
        let option = if self.is_option_expr(&m.expr) {
            match self.lower_option(&m.expr, out) {
                Opt::Parts(p) => Some(self.option_in_locals(p, m.expr.src(), out)),
                _ => return false,
            }
        } else {
            None
        };
        let scalar = match option {
            Some(_) => None,
            None => {
                let Some(scrutinee) = self.value_or_none(&m.expr, out) else {
                    return false;
                };
                Some(match self.exprs.get(scrutinee) {
                    Expr::Local(_) | Expr::Literal(_) => scrutinee,
                    _ => {
                        let tmp = self.locals.append(
                            Local {
                                name: "scrutinee".into(),
                                mutable: false,
                                annotated: None,
                                origin: LocalOrigin::Temp,
                            },
                            m.expr.src(),
                        );
                        out.push(
                            Stmt::Let {
                                local: tmp,
                                init: Some(scrutinee),
                            },
                            m.expr.src(),
                        );
                        self.expr(Expr::Local(tmp), m.expr.src())
                    }
                })
            }
        };
        let subject_expr = |this: &mut Self| -> Handle<Expr> {
            let e = scalar.map_or(Expr::Literal(Literal::Zero), |s| this.exprs.get(s).clone());
            this.expr(e, m.expr.src())
        };
        let last_is_catch_all = m
            .arms
            .last()
            .is_some_and(|a| a.guard.is_none() && is_catch_all(&a.pat));
        // An exhaustive match on an option needs no test in its last arm.
        let option_exhaustive = option.is_some() && Self::option_arms_exhaustive(&m.arms);
        if option.is_some() && !option_exhaustive {
            self.cx.push(
                Diagnostic::new(
                    span,
                    "this `match` on an `Option` does not cover every value",
                )
                .note(
                    "add a `None` arm and a `Some(x)` arm without guards, or end with `_ => ...`",
                ),
            );
            return false;
        }
        if option.is_none() && !last_is_catch_all {
            self.cx.push(
                Diagnostic::new(span, "a kernel `match` ends with a catch-all arm")
                    .note("add `_ => ...` as the last arm (kernels do not check exhaustiveness over integer ranges)"),
            );
            return false;
        }
        // Build the chain from the last arm back to the first.
        let mut chain: Option<Block> = None;
        for (n, arm) in m.arms.iter().enumerate().rev() {
            self.scopes.push(HashMap::new());
            // The pattern's bindings: before the test where a guard reads them, else at the
            // start of the arm.
            let mut binds = Block::default();
            let mut cond: Option<Handle<Expr>> = None;
            let mut ok = true;
            if let Some(v) = option {
                match self.option_pattern_cond(&arm.pat, v, &mut binds) {
                    Ok(c) if n + 1 < m.arms.len() => cond = c,
                    Ok(_) => {}
                    Err(()) => ok = false,
                }
            } else if let Some(name) = binding_name(&arm.pat) {
                let v = subject_expr(self);
                let h = self.locals.append(
                    Local {
                        name: name.to_string(),
                        mutable: false,
                        annotated: None,
                        origin: LocalOrigin::Let,
                    },
                    arm.pat.src(),
                );
                binds.push(
                    Stmt::Let {
                        local: h,
                        init: Some(v),
                    },
                    arm.pat.src(),
                );
                self.bind(name.to_string(), Binding::Local(h));
            } else if !is_catch_all(&arm.pat) {
                match self.pattern_cond(&arm.pat, &subject_expr) {
                    Some(c) => cond = Some(c),
                    None => ok = false,
                }
            }
            if let Some((_, g)) = &arm.guard {
                let mut gs = Block::default();
                match self.lower_value(g, &mut gs) {
                    Value::Expr(gv) if gs.stmts.is_empty() => {
                        cond = Some(match cond {
                            Some(c) => self.expr(
                                Expr::Binary {
                                    op: BinaryOp::And,
                                    left: c,
                                    right: gv,
                                },
                                g.src(),
                            ),
                            None => gv,
                        });
                    }
                    Value::Expr(_) => {
                        self.err(
                            g.src(),
                            "a match guard must be a plain expression in kernels",
                        );
                        ok = false;
                    }
                    _ => ok = false,
                }
            }
            let guarded = arm.guard.is_some();
            let mut body = if guarded {
                Block::default()
            } else {
                std::mem::take(&mut binds)
            };
            ok &= match (sink, &*arm.body) {
                (Sink::Discard, syn::Expr::Block(b)) if b.label.is_none() => {
                    let inner = self.lower_block(&b.block);
                    body.append(inner);
                    true
                }
                _ => self.expr_into_sink(&arm.body, sink, &mut body),
            };
            self.scopes.pop();
            if !ok {
                return false;
            }
            chain = Some(match (cond, chain) {
                (None, _) => {
                    binds.append(body);
                    binds
                }
                (Some(c), rest) => {
                    let mut b = binds;
                    b.push(
                        Stmt::If {
                            cond: c,
                            accept: body,
                            reject: rest.unwrap_or_default(),
                        },
                        arm.src(),
                    );
                    b
                }
            });
        }
        if let Some(chain) = chain {
            if chain.stmts.len() == 1 && matches!(chain.stmts[0], Stmt::If { .. }) {
                out.append(chain);
            } else {
                out.push(Stmt::Block(chain), span);
            }
        }
        true
    }

    /// The condition under which an integer pattern matches.
    pub(super) fn pattern_cond(
        &mut self,
        pat: &syn::Pat,
        subject: &dyn Fn(&mut Self) -> Handle<Expr>,
    ) -> Option<Handle<Expr>> {
        let span = pat.src();
        match pat {
            syn::Pat::Lit(l) => {
                let Value::Expr(v) = self.lower_lit(&l.lit) else {
                    return None;
                };
                let s = subject(self);
                Some(self.expr(
                    Expr::Binary {
                        op: BinaryOp::Eq,
                        left: s,
                        right: v,
                    },
                    span,
                ))
            }
            syn::Pat::Or(o) => {
                let mut acc: Option<Handle<Expr>> = None;
                for case in &o.cases {
                    let c = self.pattern_cond(case, subject)?;
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
                acc
            }
            syn::Pat::Range(r) => {
                let mut scratch = Block::default();
                let mut parts = Vec::new();
                if let Some(lo) = &r.start {
                    let Value::Expr(v) = self.lower_value(lo, &mut scratch) else {
                        return None;
                    };
                    let s = subject(self);
                    parts.push(self.expr(
                        Expr::Binary {
                            op: BinaryOp::Ge,
                            left: s,
                            right: v,
                        },
                        span,
                    ));
                }
                if let Some(hi) = &r.end {
                    let Value::Expr(v) = self.lower_value(hi, &mut scratch) else {
                        return None;
                    };
                    let op = match r.limits {
                        syn::RangeLimits::Closed(_) => BinaryOp::Le,
                        syn::RangeLimits::HalfOpen(_) => BinaryOp::Lt,
                    };
                    let s = subject(self);
                    parts.push(self.expr(
                        Expr::Binary {
                            op,
                            left: s,
                            right: v,
                        },
                        span,
                    ));
                }
                if !scratch.stmts.is_empty() {
                    self.err(
                        span,
                        "range bounds in patterns must be literals or constants",
                    );
                    return None;
                }
                let mut it = parts.into_iter();
                let first = it.next()?;
                Some(it.fold(first, |a, b| {
                    self.expr(
                        Expr::Binary {
                            op: BinaryOp::And,
                            left: a,
                            right: b,
                        },
                        span,
                    )
                }))
            }
            syn::Pat::Paren(p) => self.pattern_cond(&p.pat, subject),
            other => {
                self.cx.push(
                    Diagnostic::new(
                        other.src(),
                        "kernel `match` patterns are integer literals, ranges, `|`, `_` and a name",
                    )
                    .note("match on an integer value"),
                );
                None
            }
        }
    }

    pub(super) fn lower_if_stmt(&mut self, i: &syn::ExprIf, out: &mut Block) {
        let span = i.src();
        if matches!(&*i.cond, syn::Expr::Let(_)) {
            self.lower_if_into(i, Sink::Discard, out);
            return;
        }
        let cond = match self.lower_value(&i.cond, out) {
            Value::Expr(c) => c,
            _ => return,
        };
        let accept = self.lower_block(&i.then_branch);
        let reject = match &i.else_branch {
            None => Block::default(),
            Some((_, e)) => {
                let mut b = Block::default();
                match &**e {
                    syn::Expr::Block(blk) => {
                        b = self.lower_block(&blk.block);
                    }
                    other => self.lower_stmt_expr(other, &mut b),
                }
                b
            }
        };
        out.push(
            Stmt::If {
                cond,
                accept,
                reject,
            },
            span,
        );
    }

    pub(super) fn lower_while(&mut self, w: &syn::ExprWhile, out: &mut Block) {
        let span = w.src();
        let label = self.enter_loop(w.label.as_ref());
        let mut cond_stmts = Block::default();
        let cond = self.lower_value(&w.cond, &mut cond_stmts);
        let mut body = self.lower_block(&w.body);
        self.loops.pop();
        let Value::Expr(cond) = cond else { return };
        if cond_stmts.stmts.is_empty() {
            out.push(
                Stmt::Loop {
                    label,
                    kind: LoopKind::While { cond },
                    body,
                },
                span,
            );
        } else {
            // The condition needs statements: `loop { <stmts>; if !cond { break } <body> }`.
            let cspan = w.cond.src();
            let not = self.expr(
                Expr::Unary {
                    op: UnaryOp::Not,
                    expr: cond,
                },
                cspan,
            );
            let mut brk = Block::default();
            brk.push(Stmt::Break { label }, cspan);
            cond_stmts.push(
                Stmt::If {
                    cond: not,
                    accept: brk,
                    reject: Block::default(),
                },
                cspan,
            );
            cond_stmts.append(std::mem::take(&mut body));
            out.push(
                Stmt::Loop {
                    label,
                    kind: LoopKind::Infinite,
                    body: cond_stmts,
                },
                span,
            );
        }
    }

    pub(super) fn lower_for(&mut self, f: &syn::ExprForLoop, out: &mut Block) {
        let span = f.src();
        if self.try_element_for(f, out) {
            return;
        }
        let (var_ident, mutable) = match &*f.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                (pi.ident.clone(), pi.mutability.is_some())
            }
            // `for _ in 0..n`: a counter nothing names (the `_` is never bound).
            syn::Pat::Wild(w) => (syn::Ident::new("_unused", w.underscore_token.span), false),
            other => {
                self.err(
                    other.src(),
                    "a `for` loop in a kernel binds one name: `for i in a..b`",
                );
                return;
            }
        };
        if mutable {
            self.err(
                var_ident.src(),
                "the loop variable cannot be `mut`; copy it into a `let mut`",
            );
        }
        // Peel the distribution call.
        let (distribution, range_expr) = match &*f.expr {
            syn::Expr::Call(c) => {
                let dist = match builtin_of(c) {
                    Some(BuiltinFn::Loop(d)) => Some(d),
                    _ => None,
                };
                match dist {
                    Some(d) if c.args.len() == 1 => match c.args.first() {
                        Some(a) => (d, a),
                        None => return,
                    },
                    Some(_) => {
                        self.err(
                            c.src(),
                            "a strided loop takes one range: `threads_in_block(a..b)`",
                        );
                        return;
                    }
                    None => (Distribution::Sequential, &*f.expr),
                }
            }
            _ => (Distribution::Sequential, &*f.expr),
        };
        let Some(RangeParts {
            start,
            end,
            step,
            inclusive,
            reverse,
        }) = self.lower_range(range_expr, out)
        else {
            return;
        };
        if reverse.is_some() && distribution != Distribution::Sequential {
            self.err(
                range_expr.src(),
                "a strided loop counts up: `.rev()` is for plain `for` loops",
            );
            return;
        }
        let label = self.enter_loop(f.label.as_ref());
        let var = self.locals.append(
            Local {
                name: var_ident.to_string(),
                mutable: false,
                annotated: None,
                origin: LocalOrigin::LoopVar,
            },
            var_ident.src(),
        );
        if let (
            Expr::Literal(Literal::Int { value: lo, .. }),
            Expr::Literal(Literal::Int { value: hi, .. }),
        ) = (self.exprs.get(start), self.exprs.get(end))
        {
            let hi = if inclusive { hi.saturating_add(1) } else { *hi };
            if let Some(frame) = self.loops.last_mut() {
                frame.range = Some((var, *lo, hi));
            }
        }
        self.scopes.push(HashMap::new());
        if !matches!(&*f.pat, syn::Pat::Wild(_)) {
            self.bind(var_ident.to_string(), Binding::Local(var));
        }
        let body = self.lower_block(&f.body);
        self.scopes.pop();
        self.loops.pop();
        out.push(
            Stmt::Loop {
                label,
                kind: LoopKind::For {
                    var,
                    start,
                    end,
                    step,
                    distribution,
                    inclusive,
                    reverse,
                },
                body,
            },
            span,
        );
    }

    /// `a..b` or `a..=b`, with `.step_by(s)` and `.rev()` in either order (each at most once).
    pub(super) fn lower_range(&mut self, e: &syn::Expr, out: &mut Block) -> Option<RangeParts> {
        // Peel the adapters, outermost first.
        let mut range = strip_parens(e);
        let mut step = None;
        let mut rev_outer_of_step = None; // `Some(true)`: `.rev()` applied after `.step_by`
        loop {
            match range {
                syn::Expr::MethodCall(m)
                    if m.method == "step_by" && m.args.len() == 1 && step.is_none() =>
                {
                    step = m.args.first();
                    range = strip_parens(&m.receiver);
                }
                syn::Expr::MethodCall(m)
                    if m.method == "rev" && m.args.is_empty() && rev_outer_of_step.is_none() =>
                {
                    rev_outer_of_step = Some(step.is_none());
                    range = strip_parens(&m.receiver);
                }
                _ => break,
            }
        }
        let syn::Expr::Range(r) = range else {
            self.cx.push(
                Diagnostic::new(e.src(), "a kernel `for` loop runs over a range")
                    .note("write `for i in a..b`, `a..=b`, with `.step_by(s)` or `.rev()`, or wrap the range in `threads_in_block`, `blocks_in_grid` or `threads_in_grid`"),
            );
            return None;
        };
        let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
        // `(a..b).step_by(s).rev()` yields the stepped values last first; `.rev()` before
        // `.step_by` (or without one) counts down from the range's end.
        let reverse = rev_outer_of_step.map(|after_step| {
            if after_step && step.is_some() {
                Reverse::Stepped
            } else {
                Reverse::FromEnd
            }
        });
        let (Some(s), Some(en)) = (&r.start, &r.end) else {
            self.err(r.src(), "a kernel loop range needs both ends: `a..b`");
            return None;
        };
        let start = self.value_or_none(s, out)?;
        let end = self.value_or_none(en, out)?;
        let step = match step {
            Some(st) => Some(self.value_or_none(st, out)?),
            None => None,
        };
        Some(RangeParts {
            start,
            end,
            step,
            inclusive,
            reverse,
        })
    }

    pub(super) fn value_or_none(&mut self, e: &syn::Expr, out: &mut Block) -> Option<Handle<Expr>> {
        match self.lower_value(e, out) {
            Value::Expr(h) => Some(h),
            Value::Diverges => {
                self.err(e.src(), "this expression never produces a value here");
                None
            }
            Value::Error => None,
        }
    }

    pub(super) fn find_label(
        &mut self,
        label: Option<&syn::Lifetime>,
        span: Span,
    ) -> Option<Option<Handle<Label>>> {
        if self.loops.is_empty() {
            self.err(span, "`break` and `continue` must be inside a loop");
            return None;
        }
        match label {
            None => Some(None),
            Some(l) => {
                let name = l.ident.to_string();
                let found = self.loops.iter().rev().find_map(|f| {
                    f.label
                        .as_ref()
                        .filter(|(n, _)| *n == name)
                        .map(|(_, h)| *h)
                });
                match found {
                    Some(h) => Some(Some(h)),
                    None => {
                        self.err(l.src(), format!("no enclosing loop is labelled `'{name}`"));
                        None
                    }
                }
            }
        }
    }

    pub(super) fn lower_jump(&mut self, e: &syn::Expr, out: &mut Block) {
        let span = e.src();
        match e {
            syn::Expr::Break(b) => {
                if let Some(v) = &b.expr {
                    self.err(v.src(), "`break` with a value is not supported in kernels");
                    return;
                }
                if let Some(label) = self.find_label(b.label.as_ref(), span) {
                    out.push(Stmt::Break { label }, span);
                }
            }
            syn::Expr::Continue(c) => {
                if let Some(label) = self.find_label(c.label.as_ref(), span) {
                    out.push(Stmt::Continue { label }, span);
                }
            }
            syn::Expr::Return(r) => {
                if !self.calls.is_empty() {
                    self.lower_helper_return(r, out, span);
                    return;
                }
                if let Some(v) = &r.expr {
                    self.err(v.src(), "a kernel returns `()`; `return` takes no value");
                    return;
                }
                out.push(Stmt::Return, span);
            }
            _ => {}
        }
    }

    pub(super) fn lower_if_value(&mut self, i: &syn::ExprIf, out: &mut Block) -> Value {
        let span = i.src();
        let Some((_, else_expr)) = &i.else_branch else {
            self.cx.push(
                Diagnostic::new(span, "`if` without `else` has no value")
                    .note("add an `else` arm, or use the `if` as a statement"),
            );
            return Value::Error;
        };
        if matches!(&*i.cond, syn::Expr::Let(_)) {
            let tmp = self.declared_temp(span, out);
            return if self.lower_if_into(i, Sink::Scalar(tmp), out) {
                Value::Expr(self.expr(Expr::Local(tmp), span))
            } else {
                Value::Error
            };
        }
        let cond = match self.lower_value(&i.cond, out) {
            Value::Expr(c) => c,
            other => return other,
        };
        // Fast path: both arms are bare expressions with no statements -> `c ? a : b`.
        let simple_then = simple_tail(&i.then_branch);
        let simple_else = match &**else_expr {
            syn::Expr::Block(b) if b.label.is_none() => simple_tail(&b.block),
            _ => None,
        };
        if let (Some(a), Some(b)) = (simple_then, simple_else) {
            let mut sa = Block::default();
            let mut sb = Block::default();
            let va = self.lower_value(a, &mut sa);
            let vb = self.lower_value(b, &mut sb);
            if sa.stmts.is_empty() && sb.stmts.is_empty() {
                if let (Value::Expr(x), Value::Expr(y)) = (&va, &vb) {
                    return Value::Expr(self.expr(
                        Expr::Select {
                            cond,
                            accept: *x,
                            reject: *y,
                        },
                        span,
                    ));
                }
            }
            if matches!(va, Value::Error) || matches!(vb, Value::Error) {
                return Value::Error;
            }
        }
        // General form: `let tmp; if c { ..; tmp = a } else { ..; tmp = b }`.
        let tmp = self.declared_temp(span, out);
        let accept = self.block_into_temp(&i.then_branch, tmp);
        let reject = match &**else_expr {
            syn::Expr::Block(b) => self.block_into_temp(&b.block, tmp),
            other => {
                // `else if ...`
                let mut blk = Block::default();
                match self.lower_value(other, &mut blk) {
                    Value::Expr(v) => blk.push(
                        Stmt::Assign {
                            place: Place::Local(tmp),
                            op: None,
                            value: v,
                        },
                        other.src(),
                    ),
                    Value::Diverges => {}
                    Value::Error => return Value::Error,
                }
                blk
            }
        };
        out.push(
            Stmt::If {
                cond,
                accept,
                reject,
            },
            span,
        );
        Value::Expr(self.expr(Expr::Local(tmp), span))
    }

    /// Lowers `{ stmts; tail }` into a block that ends by assigning `tail` to `tmp`.
    pub(super) fn block_into_temp(&mut self, b: &syn::Block, tmp: Handle<Local>) -> Block {
        let mut out = Block::default();
        self.scopes.push(HashMap::new());
        let (stmts, tail) = split_tail(b);
        self.lower_stmts(stmts, &mut out, true);
        match tail {
            Some(t) => match self.lower_value(t, &mut out) {
                Value::Expr(v) => out.push(
                    Stmt::Assign {
                        place: Place::Local(tmp),
                        op: None,
                        value: v,
                    },
                    t.src(),
                ),
                Value::Diverges | Value::Error => {}
            },
            None => {
                if !ends_in_jump(b) {
                    self.err(
                        b.src(),
                        "this block has no value: its last expression ends with `;`",
                    );
                }
            }
        }
        self.scopes.pop();
        out
    }

    pub(super) fn lower_block_value(
        &mut self,
        b: &syn::Block,
        out: &mut Block,
        span: Span,
    ) -> Value {
        let (stmts, tail) = split_tail(b);
        if stmts.is_empty() {
            if let Some(t) = tail {
                self.scopes.push(HashMap::new());
                let v = self.lower_value(t, out);
                self.scopes.pop();
                return v;
            }
        }
        let tmp = self.declared_temp(span, out);
        let inner = self.block_into_temp(b, tmp);
        out.push(Stmt::Block(inner), span);
        Value::Expr(self.expr(Expr::Local(tmp), span))
    }
}
