//! Statements: macros (`assert!`, `panic!`, `println!` rejected with a fix), statement
//! expressions, blocks and barriers; `let` is in `lets`.

use super::async_copy::Queue;
use super::cx::*;
use super::options::{Opt, Sink};
use super::syntax::*;
use crate::diag::Diagnostic;
use crate::front::builtins::BuiltinFn;
use crate::ir::*;
use std::collections::HashMap;

impl Lowerer<'_> {
    pub(super) fn lower_fn_body(&mut self, block: &syn::Block) -> Block {
        let mut out = Block::default();
        self.scopes.push(HashMap::new());
        self.lower_stmts(&block.stmts, &mut out, true);
        self.scopes.pop();
        out
    }

    /// Lowers statements into `out`. A trailing expression without semicolon is lowered as a
    /// statement when `tail_is_stmt` (its value is `()`).
    pub(super) fn lower_stmts(&mut self, stmts: &[syn::Stmt], out: &mut Block, tail_is_stmt: bool) {
        for (i, stmt) in stmts.iter().enumerate() {
            let _ = (i, tail_is_stmt);
            match stmt {
                syn::Stmt::Local(local) => self.lower_let(local, out),
                // `const R: u32 = 4;` in the body: a scalar constant is an immutable binding
                // of its (constant) value.
                syn::Stmt::Item(syn::Item::Const(c)) if c.generics.params.is_empty() => {
                    // An integer constant whose value is known: a constant of the body.
                    let ty = type_to_scalar(&c.ty).filter(|t| t.is_int());
                    if let Some(ty) = ty {
                        if let Some(v) = self
                            .module_const_value(&c.expr)
                            .filter(|v| ty.holds_int(*v))
                        {
                            self.bind(c.ident.to_string(), Binding::Const(ty, v));
                            continue;
                        }
                    }
                    let local = syn::Local {
                        attrs: Vec::new(),
                        let_token: syn::Token![let](c.const_token.span),
                        pat: syn::Pat::Type(syn::PatType {
                            attrs: Vec::new(),
                            pat: Box::new(syn::Pat::Ident(syn::PatIdent {
                                attrs: Vec::new(),
                                by_ref: None,
                                mutability: None,
                                ident: c.ident.clone(),
                                subpat: None,
                            })),
                            colon_token: c.colon_token,
                            ty: c.ty.clone(),
                        }),
                        init: Some(syn::LocalInit {
                            eq_token: c.eq_token,
                            expr: c.expr.clone(),
                            diverge: None,
                        }),
                        semi_token: c.semi_token,
                    };
                    self.lower_let(&local, out);
                }
                syn::Stmt::Item(item) => {
                    self.err(item.src(), "items (fn, struct, use, ...) inside a kernel are not supported; define them outside the kernel");
                }
                // An empty statement (`;`), as Rust allows.
                syn::Stmt::Expr(syn::Expr::Verbatim(ts), Some(_)) if ts.is_empty() => {}
                syn::Stmt::Expr(e, _) => self.lower_stmt_expr(e, out),
                syn::Stmt::Macro(m) => self.lower_macro(&m.mac, out),
            }
        }
    }

    /// `assert!`, `debug_assert!` and `panic!` with a literal message (or none); other macros
    /// are not supported.
    pub(super) fn lower_macro(&mut self, mac: &syn::Macro, out: &mut Block) {
        let span = mac.src();
        let name = mac
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        if matches!(name.as_str(), "print" | "println") {
            self.lower_print(mac, name == "println", out);
            return;
        }
        if !matches!(name.as_str(), "assert" | "debug_assert" | "panic") {
            self.unsupported_macro(mac);
            return;
        }
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        let args: Vec<syn::Expr> = match mac.parse_body_with(parser) {
            Ok(a) => a.into_iter().collect(),
            Err(e) => {
                self.err(
                    Span::from(e.span()),
                    format!("cannot read the arguments of `{name}!`: {e}"),
                );
                return;
            }
        };
        let (cond, rest) = if name == "panic" {
            (None, &args[..])
        } else {
            match args.split_first() {
                Some((c, rest)) => (Some(c), rest),
                None => {
                    self.err(span, format!("`{name}!` needs a condition"));
                    return;
                }
            }
        };
        let message = match rest {
            [] => match cond {
                Some(c) => format!("assertion failed: {}", quote::ToTokens::to_token_stream(c)),
                None => "explicit panic".to_string(),
            },
            [syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            })] if !s.value().contains('{') => s.value(),
            _ => {
                self.cx.push(
                    Diagnostic::new(
                        rest[0].src(),
                        format!("kernels support `{name}!` with a plain string message only"),
                    )
                    .note("write the message as a string literal without `{}` placeholders"),
                );
                return;
            }
        };
        let panic = Stmt::Panic {
            message,
            debug_only: name == "debug_assert",
        };
        match cond {
            None => out.push(panic, span),
            Some(c) => {
                let Some(cv) = self.value_or_none(c, out) else {
                    return;
                };
                let not = self.expr(
                    Expr::Unary {
                        op: UnaryOp::Not,
                        expr: cv,
                    },
                    c.src(),
                );
                let mut fail = Block::default();
                fail.push(panic, span);
                out.push(
                    Stmt::If {
                        cond: not,
                        accept: fail,
                        reject: Block::default(),
                    },
                    span,
                );
            }
        }
    }

    /// `print!`/`println!`: a literal format string of the supported subset, and scalar
    /// arguments (positional, or variables named in the string).
    fn lower_print(&mut self, mac: &syn::Macro, newline: bool, out: &mut Block) {
        let span = mac.src();
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        let args: Vec<syn::Expr> = match mac.parse_body_with(parser) {
            Ok(a) => a.into_iter().collect(),
            Err(e) => {
                self.err(
                    Span::from(e.span()),
                    format!("cannot read the arguments of a print: {e}"),
                );
                return;
            }
        };
        let (format, values) = match args.split_first() {
            None => (String::new(), &[][..]),
            Some((
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }),
                rest,
            )) => (s.value(), rest),
            Some((other, _)) => {
                self.err(
                    other.src(),
                    "a kernel's `print!` takes a string literal first, as Rust's does",
                );
                return;
            }
        };
        let parts = match split_format(&format) {
            Ok(p) => p,
            Err(why) => {
                self.cx.push(
                    Diagnostic::new(args.first().map_or(span, |a| a.src()), why)
                        .note("kernels format with `{}`, `{:?}`, `{x}`, `{0}`, a width, a precision, `<`, `>` and `0` (`{:>8.3}`)"),
                );
                return;
            }
        };
        let mut lowered = Vec::with_capacity(values.len());
        for v in values {
            match self.value_or_none(v, out) {
                Some(e) => lowered.push(e),
                None => return,
            }
        }
        let mut used = vec![false; values.len()];
        let mut next = 0;
        let mut pieces = Vec::new();
        for part in parts {
            match part {
                FormatPart::Text(t) => pieces.push(PrintPiece::Text(t)),
                FormatPart::Arg { arg, spec, .. } => {
                    let expr = match arg {
                        Placeholder::Next | Placeholder::Position(_) => {
                            let i = match arg {
                                Placeholder::Position(i) => i,
                                _ => {
                                    next += 1;
                                    next - 1
                                }
                            };
                            let Some(e) = lowered.get(i) else {
                                self.err(span, format!("the format string reads argument {i}, but the print passes {} (they count from 0)", values.len()));
                                return;
                            };
                            used[i] = true;
                            *e
                        }
                        Placeholder::Named(n) => {
                            let Ok(mut ident) = syn::parse_str::<syn::Ident>(&n) else {
                                self.err(span, format!("`{{{n}}}` names no variable"));
                                return;
                            };
                            // (At the format string: errors about the variable point there.)
                            if let Some(first) = args.first() {
                                ident.set_span(syn::spanned::Spanned::span(first));
                            }
                            let path = syn::Expr::Path(syn::ExprPath {
                                attrs: Vec::new(),
                                qself: None,
                                path: ident.into(),
                            });
                            match self.value_or_none(&path, out) {
                                Some(e) => e,
                                None => return,
                            }
                        }
                    };
                    pieces.push(PrintPiece::Value { expr, spec });
                }
            }
        }
        if let Some(i) = used.iter().position(|u| !u) {
            self.err(
                values[i].src(),
                "this argument is never printed: the format string has no `{}` for it",
            );
            return;
        }
        out.push(Stmt::Print { pieces, newline }, span);
    }

    pub(super) fn unsupported_macro(&mut self, mac: &syn::Macro) {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        self.cx.push(
            Diagnostic::new(
                mac.src(),
                format!("the macro `{name}!` is not supported in a kernel"),
            )
            .note("kernels support plain Rust statements; compute the value without a macro"),
        );
    }

    /// An expression in statement position; its value, if any, is discarded.
    pub(super) fn lower_stmt_expr(&mut self, e: &syn::Expr, out: &mut Block) {
        let span = e.src();
        match e {
            syn::Expr::Assign(a) => {
                if self.try_record_assign(a, out)
                    || self.try_option_assign(a, out)
                    || self.try_array_assign(a, out)
                    || self.try_local_array_assign(a, out)
                    || self.try_row_assign(a, out)
                    || self.try_record_field_assign(&a.left, None, &a.right, span, out)
                {
                    return;
                }
                let Some(place) = self.lower_place(&a.left, out) else {
                    return;
                };
                if let Value::Expr(v) = self.lower_value(&a.right, out) {
                    out.push(
                        Stmt::Assign {
                            place,
                            op: None,
                            value: v,
                        },
                        span,
                    );
                }
            }
            syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
                let Some(op) = compound_op(&b.op) else { return };
                if self.try_record_field_assign(&b.left, Some(op), &b.right, span, out) {
                    return;
                }
                let Some(place) = self.lower_place(&b.left, out) else {
                    return;
                };
                if let Value::Expr(v) = self.lower_value(&b.right, out) {
                    out.push(
                        Stmt::Assign {
                            place,
                            op: Some(op),
                            value: v,
                        },
                        span,
                    );
                }
            }
            syn::Expr::If(i) => self.lower_if_stmt(i, out),
            syn::Expr::While(w) => self.lower_while(w, out),
            syn::Expr::Loop(l) => {
                let label = self.enter_loop(l.label.as_ref());
                let body = self.lower_block(&l.body);
                self.loops.pop();
                out.push(
                    Stmt::Loop {
                        label,
                        kind: LoopKind::Infinite,
                        body,
                    },
                    span,
                );
            }
            syn::Expr::ForLoop(f) => self.lower_for(f, out),
            syn::Expr::Block(b) => {
                if let Some(l) = &b.label {
                    self.err(l.src(), "labelled blocks are not supported in kernels");
                }
                let inner = self.lower_block(&b.block);
                out.push(Stmt::Block(inner), span);
            }
            syn::Expr::Break(_) | syn::Expr::Continue(_) | syn::Expr::Return(_) => {
                self.lower_jump(e, out);
            }
            syn::Expr::Call(c) if matches!(builtin_of(c), Some(BuiltinFn::Fence(_))) => {
                if !c.args.is_empty() {
                    self.err(c.args.src(), "fences take no arguments");
                }
                if let Some(BuiltinFn::Fence(scope)) = builtin_of(c) {
                    out.push(Stmt::Fence(scope), span);
                }
            }
            syn::Expr::Call(c) if is_helper_call(c) => {
                self.lower_call(c, out, span, false);
            }
            syn::Expr::MethodCall(m) if self.record_type_of(&m.receiver).is_some() => {
                match self.record_method_call(m) {
                    Some(Ok(call)) => {
                        self.lower_call(&call, out, span, false);
                    }
                    Some(Err(())) => {}
                    None => {
                        if let Value::Expr(v) = self.lower_value(e, out) {
                            out.push(Stmt::Eval(v), span);
                        }
                    }
                }
            }
            syn::Expr::Call(c) if matches!(builtin_of(c), Some(BuiltinFn::Mma(_))) => {
                self.lower_mma(c, out, span);
            }
            syn::Expr::Call(c) if matches!(builtin_of(c), Some(BuiltinFn::LoadMatrix(_))) => {
                let trans = builtin_of(c) == Some(BuiltinFn::LoadMatrix(true));
                self.lower_load_matrix(c, trans, out, span);
            }
            syn::Expr::Call(c) if builtin_of(c) == Some(BuiltinFn::Wgmma) => {
                self.lower_wgmma(c, out, span);
            }
            syn::Expr::Call(c)
                if matches!(
                    builtin_of(c),
                    Some(BuiltinFn::WgmmaCommit | BuiltinFn::WgmmaWait)
                ) =>
            {
                let wait = builtin_of(c) == Some(BuiltinFn::WgmmaWait);
                self.lower_group(c, Queue::Multiplies, wait, out, span);
            }
            syn::Expr::Call(c) if builtin_of(c) == Some(BuiltinFn::AsyncCopy) => {
                self.lower_async_copy(c, out, span);
            }
            syn::Expr::Call(c)
                if matches!(
                    builtin_of(c),
                    Some(BuiltinFn::AsyncCommit | BuiltinFn::AsyncWait)
                ) =>
            {
                let wait = builtin_of(c) == Some(BuiltinFn::AsyncWait);
                self.lower_group(c, Queue::Copies, wait, out, span);
            }
            syn::Expr::Call(c) if builtin_of(c) == Some(BuiltinFn::Warp(WarpOp::Sync)) => {
                self.lower_warp(c, WarpOp::Sync, out, span);
            }
            syn::Expr::Call(c) if builtin_of(c) == Some(BuiltinFn::SyncBlockThreads) => {
                if !c.args.is_empty() {
                    self.err(c.args.src(), "`sync_block_threads()` takes no arguments");
                }
                self.barrier(BarrierOrigin::Written, span, out);
            }
            syn::Expr::Unsafe(u) => {
                let inner = self.lower_unsafe_block(&u.block);
                out.push(Stmt::Block(inner), span);
            }
            syn::Expr::Match(m) => {
                self.lower_match(m, out, Sink::Discard);
            }
            syn::Expr::MethodCall(m) if AtomicOp::from_method(&m.method.to_string()).is_some() => {
                self.lower_atomic(m, out, false);
            }
            syn::Expr::Paren(p) => self.lower_stmt_expr(&p.expr, out),
            syn::Expr::Group(g) => self.lower_stmt_expr(&g.expr, out),
            syn::Expr::Macro(m) => self.lower_macro(&m.mac, out),
            // An option made for its effects (its closures, its checks) and dropped.
            _ if self.is_option_expr(e) => if let Opt::Parts(_) = self.lower_option(e, out) {},
            _ => match self.lower_value(e, out) {
                Value::Expr(v) => out.push(Stmt::Eval(v), span),
                Value::Diverges | Value::Error => {}
            },
        }
    }

    pub(super) fn lower_block(&mut self, b: &syn::Block) -> Block {
        let mut out = Block::default();
        self.scopes.push(HashMap::new());
        self.lower_stmts(&b.stmts, &mut out, true);
        self.scopes.pop();
        out
    }

    pub(super) fn lower_unsafe_block(&mut self, b: &syn::Block) -> Block {
        let was = std::mem::replace(&mut self.in_unsafe, true);
        let mut inner = self.lower_block(b);
        self.in_unsafe = was;
        inner.is_unsafe = true;
        inner
    }

    pub(super) fn barrier(&mut self, origin: BarrierOrigin, span: Span, out: &mut Block) {
        let index = self.barriers.len();
        let calls = self
            .calls
            .iter()
            .map(|f| (f.span, f.name.clone()))
            .collect();
        self.barriers.push(Barrier {
            span,
            origin,
            calls,
        });
        out.push(Stmt::Barrier { index }, span);
    }
}
