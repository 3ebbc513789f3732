//! The method calls that make an `Option` (`x.checked_add(y)`, `o.map(|v| ..)`, `filter`,
//! `and_then`, `or`, `or_else`) and those that read one (`is_some`, `is_none`,
//! `is_some_and`, `is_none_or`, `unwrap`, `expect`, `unwrap_or`, `unwrap_or_default`,
//! `unwrap_or_else`).
//!
//! Arguments are evaluated as Rust evaluates them: `unwrap_or(d)` and `or(p)` evaluate their
//! argument always, the closures run only where Rust calls them.

use super::cx::*;
use super::options::*;
use super::syntax::*;
use crate::diag::Diagnostic;
use crate::ir::*;
use std::collections::HashMap;
use syn::visit::Visit;

impl Lowerer<'_> {
    /// A method call that gives an `Option`.
    pub(super) fn lower_option_method(&mut self, m: &syn::ExprMethodCall, out: &mut Block) -> Opt {
        let span = m.src();
        let name = m.method.to_string();
        if let Some(op) = CheckedOp::from_method(&name) {
            return self.lower_checked(m, op, out);
        }
        let p = match self.lower_option(&m.receiver, out) {
            Opt::Parts(p) => p,
            other => return other,
        };
        match name.as_str() {
            // Both evaluated; the first `Some` wins.
            "or" => {
                let Some(arg) = self.one_arg(m) else {
                    return Opt::Error;
                };
                let q = match self.lower_option(arg, out) {
                    Opt::Parts(q) => q,
                    other => return other,
                };
                let first = self.spill(p.some, span, out);
                let again = self.expr(self.exprs.get(first).clone(), span);
                let some = self.expr(
                    Expr::Binary {
                        op: BinaryOp::Or,
                        left: first,
                        right: q.some,
                    },
                    span,
                );
                let value = self.expr(
                    Expr::Select {
                        cond: again,
                        accept: p.value,
                        reject: q.value,
                    },
                    span,
                );
                Opt::Parts(OptionParts { some, value })
            }
            "or_else" => {
                let Some(c) = self.option_closure(m, 0) else {
                    return Opt::Error;
                };
                let r = self.option_temp(span, out);
                self.store_option(r, p, span, out);
                let mut fallback = Block::default();
                self.scopes.push(HashMap::new());
                let ok = self.lower_option_into(&c.body, r, &mut fallback);
                self.scopes.pop();
                if !ok {
                    return Opt::Error;
                }
                let flag = self.option_vars[r].some;
                let some = self.expr(Expr::Local(flag), span);
                let none = self.expr(
                    Expr::Unary {
                        op: UnaryOp::Not,
                        expr: some,
                    },
                    span,
                );
                out.push(
                    Stmt::If {
                        cond: none,
                        accept: fallback,
                        reject: Block::default(),
                    },
                    span,
                );
                Opt::Parts(self.var_parts(r, span))
            }
            // `if o_some { let x = o; <r = f(x)> } else { r = None }`.
            "map" | "filter" | "and_then" => {
                let Some(c) = self.option_closure(m, 1) else {
                    return Opt::Error;
                };
                let v = self.option_in_locals(p, span, out);
                let r = self.option_temp(span, out);
                let mut accept = Block::default();
                self.scopes.push(HashMap::new());
                let bound =
                    self.bind_closure_param(&c.inputs[0], v.value, name == "filter", &mut accept);
                let ok = bound
                    && match name.as_str() {
                        "map" => match self.lower_value(&c.body, &mut accept) {
                            Value::Expr(e) => {
                                let some = self.expr(Expr::Literal(Literal::Bool(true)), span);
                                self.store_option(
                                    r,
                                    OptionParts { some, value: e },
                                    span,
                                    &mut accept,
                                );
                                true
                            }
                            Value::Diverges => true,
                            Value::Error => false,
                        },
                        "filter" => match self.lower_value(&c.body, &mut accept) {
                            Value::Expr(e) => {
                                let value = self.expr(Expr::Local(v.value), span);
                                self.store_option(
                                    r,
                                    OptionParts { some: e, value },
                                    span,
                                    &mut accept,
                                );
                                true
                            }
                            Value::Diverges => true,
                            Value::Error => false,
                        },
                        _ => self.lower_option_into(&c.body, r, &mut accept),
                    };
                self.scopes.pop();
                if !ok {
                    return Opt::Error;
                }
                let mut reject = Block::default();
                let none = self.none_parts(span);
                self.store_option(r, none, span, &mut reject);
                let cond = self.expr(Expr::Local(v.some), span);
                out.push(
                    Stmt::If {
                        cond,
                        accept,
                        reject,
                    },
                    span,
                );
                Opt::Parts(self.var_parts(r, span))
            }
            _ => {
                self.err(
                    m.method.src(),
                    format!("`{name}` is not among the `Option` methods kernels support"),
                );
                Opt::Error
            }
        }
    }

    /// `x.checked_op(y)`: `Some` where the operation fits, its value there.
    fn lower_checked(&mut self, m: &syn::ExprMethodCall, op: CheckedOp, out: &mut Block) -> Opt {
        let span = m.src();
        let Some(operands) = self.checked_operands(m, op, out) else {
            return Opt::Error;
        };
        let some = self.method_of(Method::Checked(op), &operands, span);
        let value = self.method_of(Method::CheckedValue(op), &operands, span);
        Opt::Parts(OptionParts { some, value })
    }

    /// `x.overflowing_op(y)`: the wrapped value and whether the operation overflowed.
    pub(super) fn lower_overflowing(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Block,
    ) -> Option<[Handle<Expr>; 2]> {
        let span = m.src();
        let op = overflowing_op(m)?;
        let operands = self.checked_operands(m, op, out)?;
        let value = self.method_of(op.wrapping()?, &operands, span);
        let fits = self.method_of(Method::Checked(op), &operands, span);
        let flag = self.expr(
            Expr::Unary {
                op: UnaryOp::Not,
                expr: fits,
            },
            span,
        );
        Some([value, flag])
    }

    /// The operands of `x.checked_op(y)` (or `overflowing_op`), each evaluated once into a
    /// variable (or a literal), so that each part may read them. `None` after an error (or
    /// where control does not come back).
    fn checked_operands(
        &mut self,
        m: &syn::ExprMethodCall,
        op: CheckedOp,
        out: &mut Block,
    ) -> Option<Vec<Handle<Expr>>> {
        let span = m.src();
        if m.args.len() != op.arity() {
            self.err(
                span,
                format!(
                    "`{}` takes {} argument{}",
                    m.method,
                    op.arity(),
                    if op.arity() == 1 { "" } else { "s" }
                ),
            );
            return None;
        }
        let mut operands = Vec::new();
        for e in std::iter::once(&*m.receiver).chain(m.args.iter()) {
            match self.lower_value(e, out) {
                Value::Expr(v) => operands.push(self.spill(v, e.src(), out)),
                _ => return None,
            }
        }
        Some(operands)
    }

    /// `method` applied to `operands` (variables or literals, the receiver first), each read
    /// through a node of its own.
    fn method_of(&mut self, method: Method, operands: &[Handle<Expr>], span: Span) -> Handle<Expr> {
        let mut read: Vec<Handle<Expr>> = operands
            .iter()
            .map(|o| self.expr(self.exprs.get(*o).clone(), span))
            .collect();
        let receiver = read.remove(0);
        self.expr(
            Expr::Method {
                method,
                receiver,
                args: read,
            },
            span,
        )
    }

    /// A method of an `Option` that gives a scalar.
    pub(super) fn lower_option_read(&mut self, m: &syn::ExprMethodCall, out: &mut Block) -> Value {
        let span = m.src();
        let name = m.method.to_string();
        let p = match self.lower_option(&m.receiver, out) {
            Opt::Parts(p) => p,
            Opt::Diverges => return Value::Diverges,
            Opt::Error => return Value::Error,
        };
        let arity = match name.as_str() {
            "is_some" | "is_none" | "unwrap" | "unwrap_or_default" => 0,
            _ => 1,
        };
        if arity == 0 && !m.args.is_empty() {
            self.err(m.args.src(), format!("`{name}` takes no arguments"));
            return Value::Error;
        }
        match name.as_str() {
            "is_some" => Value::Expr(p.some),
            "is_none" => Value::Expr(self.expr(
                Expr::Unary {
                    op: UnaryOp::Not,
                    expr: p.some,
                },
                span,
            )),
            "unwrap" | "expect" => {
                let message = if name == "unwrap" {
                    UNWRAP_NONE.to_string()
                } else {
                    match m.args.first() {
                        Some(syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(s),
                            ..
                        })) if m.args.len() == 1 => s.value(),
                        _ => {
                            self.cx.push(
                                Diagnostic::new(span, "`expect` takes a string literal").note(
                                    "write the message as a plain string: `.expect(\"why\")`",
                                ),
                            );
                            return Value::Error;
                        }
                    }
                };
                let none = self.expr(
                    Expr::Unary {
                        op: UnaryOp::Not,
                        expr: p.some,
                    },
                    span,
                );
                let mut panic = Block::default();
                panic.push(
                    Stmt::Panic {
                        message,
                        debug_only: false,
                    },
                    span,
                );
                out.push(
                    Stmt::If {
                        cond: none,
                        accept: panic,
                        reject: Block::default(),
                    },
                    span,
                );
                Value::Expr(p.value)
            }
            "unwrap_or" | "unwrap_or_default" => {
                let fallback = if name == "unwrap_or" {
                    let Some(arg) = self.one_arg(m) else {
                        return Value::Error;
                    };
                    match self.lower_value(arg, out) {
                        // Evaluated whether or not it is needed, as Rust does.
                        Value::Expr(d) => self.spill(d, arg.src(), out),
                        other => return other,
                    }
                } else {
                    self.expr(Expr::Literal(Literal::Zero), span)
                };
                Value::Expr(self.expr(
                    Expr::Select {
                        cond: p.some,
                        accept: p.value,
                        reject: fallback,
                    },
                    span,
                ))
            }
            "unwrap_or_else" | "is_some_and" | "is_none_or" | "map_or" => {
                let params = usize::from(name != "unwrap_or_else");
                let Some(c) = self.option_closure(m, params) else {
                    return Value::Error;
                };
                // `map_or`'s default is evaluated first, whether or not it is needed.
                let default = match (name.as_str(), m.args.first()) {
                    ("map_or", Some(d)) => match self.lower_value(d, out) {
                        Value::Expr(d) => Some(self.spill(d, span, out)),
                        other => return other,
                    },
                    _ => None,
                };
                let tmp = self.declared_temp(span, out);
                let v = self.option_in_locals(p, span, out);
                self.scopes.push(HashMap::new());
                let mut run = Block::default();
                let mut ok =
                    params == 0 || self.bind_closure_param(&c.inputs[0], v.value, false, &mut run);
                if ok {
                    match self.lower_value(&c.body, &mut run) {
                        Value::Expr(e) => run.push(
                            Stmt::Assign {
                                place: Place::Local(tmp),
                                op: None,
                                value: e,
                            },
                            span,
                        ),
                        Value::Diverges => {}
                        Value::Error => ok = false,
                    }
                }
                self.scopes.pop();
                if !ok {
                    return Value::Error;
                }
                let other = match (name.as_str(), default) {
                    (_, Some(d)) => d,
                    ("unwrap_or_else", _) => self.expr(Expr::Local(v.value), span),
                    ("is_some_and", _) => self.expr(Expr::Literal(Literal::Bool(false)), span),
                    _ => self.expr(Expr::Literal(Literal::Bool(true)), span),
                };
                let mut rest = Block::default();
                rest.push(
                    Stmt::Assign {
                        place: Place::Local(tmp),
                        op: None,
                        value: other,
                    },
                    span,
                );
                let (accept, reject) = if name == "unwrap_or_else" {
                    (rest, run)
                } else {
                    (run, rest)
                };
                let cond = self.expr(Expr::Local(v.some), span);
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
            _ => {
                self.err(
                    m.method.src(),
                    format!("`{name}` is not among the `Option` methods kernels support"),
                );
                Value::Error
            }
        }
    }

    fn one_arg<'a>(&mut self, m: &'a syn::ExprMethodCall) -> Option<&'a syn::Expr> {
        match (m.args.len(), m.args.first()) {
            (1, Some(a)) => Some(a),
            _ => {
                self.err(m.src(), format!("`{}` takes one argument", m.method));
                None
            }
        }
    }

    /// The closure argument of `m`, written in place, with `params` parameters and no
    /// `return` in its body.
    fn option_closure<'a>(
        &mut self,
        m: &'a syn::ExprMethodCall,
        params: usize,
    ) -> Option<&'a syn::ExprClosure> {
        let name = m.method.to_string();
        let shape = if params == 0 { "|| .." } else { "|x| .." };
        // `map_or(default, f)` has the closure second.
        let at = usize::from(name == "map_or");
        let c = match (m.args.len(), m.args.iter().nth(at).map(strip_parens)) {
            (n, Some(syn::Expr::Closure(c))) if n == at + 1 && c.inputs.len() == params => c,
            _ => {
                // With no arguments, at the parentheses (an empty list has no place).
                let at = if m.args.is_empty() {
                    crate::ir::Span::from(m.paren_token.span.join())
                } else {
                    m.args.src()
                };
                self.cx.push(
                    Diagnostic::new(at, format!("`{name}` takes a closure `{shape}` written here"))
                        .note("kernels inline the closure; a function or closure variable is not supported here"),
                );
                return None;
            }
        };
        let mut finder = FindReturn(None);
        finder.visit_expr(&c.body);
        if let Some(at) = finder.0 {
            self.err(
                at,
                format!("`return` in the closure of `{name}` is not supported in kernels; give the closure's value as its last expression"),
            );
            return None;
        }
        Some(c)
    }

    /// Binds a closure's parameter (`x`, `mut x`, `_`, `x: T`, and for `filter`'s reference
    /// `&x` or `x` read as `*x`) to a copy of `value`.
    fn bind_closure_param(
        &mut self,
        pat: &syn::Pat,
        value: Handle<Local>,
        by_ref: bool,
        out: &mut Block,
    ) -> bool {
        match pat {
            syn::Pat::Wild(_) => true,
            syn::Pat::Type(t) => self.bind_closure_param(&t.pat, value, by_ref, out),
            syn::Pat::Reference(r) if by_ref => self.bind_closure_param(&r.pat, value, false, out),
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                let init = self.expr(Expr::Local(value), pi.ident.src());
                self.bind_copy(&pi.ident, pi.mutability.is_some(), init, by_ref, out);
                true
            }
            other => {
                self.err(
                    other.src(),
                    "a closure parameter here is a name, `mut` name or `_`",
                );
                false
            }
        }
    }
}

/// The operation of `x.overflowing_<op>(..)`, where kernels support it.
pub(super) fn overflowing_op(m: &syn::ExprMethodCall) -> Option<CheckedOp> {
    let name = m.method.to_string();
    let op = CheckedOp::from_method(&format!("checked_{}", name.strip_prefix("overflowing_")?))?;
    op.overflowing().then_some(op)
}

/// Finds a `return` outside nested closures.
struct FindReturn(Option<Span>);

impl<'a> Visit<'a> for FindReturn {
    fn visit_expr_return(&mut self, r: &'a syn::ExprReturn) {
        if self.0.is_none() {
            self.0 = Some(r.src());
        }
    }
    fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
}
