//! Type inference and type checking, as Rust does it for the kernel subset.
//!
//! Takes a lowered [`Kernel`]; gives [`Types`], a side table with the scalar type of every
//! expression and variable. Unification over type variables: a variable is known, an
//! integer of unknown width (an unsuffixed integer literal), a float of unknown width, or free.
//! Unresolved integers default as Rust's do (`i32`), except an integer that is used as an index
//! and nothing else, which becomes `u32`, the fast index type on a GPU; unresolved floats
//! default to `f64`. After unification, operator rules are checked on the resolved types.

use crate::diag::{Ctxt, Diagnostic};
use crate::ir::*;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Class {
    Known(Scalar),
    /// An integer of unknown width; `index` once it was used as an index.
    Int {
        index: bool,
    },
    Float,
    Free,
}

struct Infer<'k, 'c> {
    k: &'k Kernel,
    cx: &'c mut Ctxt,
    parent: Vec<usize>,
    class: Vec<Class>,
    expr_var: Vec<usize>,
    local_var: Vec<usize>,
    checks: Vec<(Handle<Expr>, Check)>,
    loop_checks: Vec<(Handle<Local>, Span)>,
    /// Results whose type is the unsigned type of another's (`abs_diff`), fixed once every
    /// other constraint is in: (result, receiver, span).
    unsigned_of: Vec<(usize, usize, Span)>,
}

#[derive(Clone, Copy)]
enum Check {
    Unary(UnaryOp),
    Binary(BinaryOp),
    Cast(Scalar),
    Method(Method),
}

/// Infers and checks the types of a kernel. Errors go to `cx`.
pub fn infer(cx: &mut Ctxt, k: &Kernel) -> Types {
    let mut inf = Infer {
        k,
        cx,
        parent: Vec::new(),
        class: Vec::new(),
        expr_var: Vec::new(),
        local_var: Vec::new(),
        checks: Vec::new(),
        loop_checks: Vec::new(),
        unsigned_of: Vec::new(),
    };
    for (_, local) in k.locals.iter() {
        let v = inf.fresh(local.annotated.map_or(Class::Free, Class::Known));
        inf.local_var.push(v);
    }
    for (h, _) in k.exprs.iter() {
        let v = inf.fresh(Class::Free);
        inf.expr_var.push(v);
        inf.expr(h);
    }
    inf.block(&k.body);
    for (v, rv, span) in std::mem::take(&mut inf.unsigned_of) {
        let t = inf.resolve(rv).unsigned();
        inf.constrain(v, Class::Known(t), span);
    }
    inf.finish()
}

impl Infer<'_, '_> {
    fn fresh(&mut self, c: Class) -> usize {
        self.parent.push(self.parent.len());
        self.class.push(c);
        self.parent.len() - 1
    }

    fn find(&mut self, mut v: usize) -> usize {
        while self.parent[v] != v {
            self.parent[v] = self.parent[self.parent[v]];
            v = self.parent[v];
        }
        v
    }

    fn describe(c: Class) -> String {
        match c {
            Class::Known(t) => format!("`{t}`"),
            Class::Int { .. } => "an integer".into(),
            Class::Float => "a float".into(),
            Class::Free => "a value".into(),
        }
    }

    /// Unifies two type variables; `span` is where a mismatch is reported.
    fn unify(&mut self, a: usize, b: usize, span: Span) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        let (ca, cb) = (self.class[ra], self.class[rb]);
        let merged = match (ca, cb) {
            (Class::Free, c) | (c, Class::Free) => Some(c),
            (Class::Known(x), Class::Known(y)) => (x == y).then_some(ca),
            (Class::Known(t), Class::Int { index }) | (Class::Int { index }, Class::Known(t)) => {
                if !t.is_int() {
                    None
                } else if index && !t.is_unsigned_int() {
                    self.index_error(span, t);
                    Some(Class::Known(t))
                } else {
                    Some(Class::Known(t))
                }
            }
            (Class::Known(t), Class::Float) | (Class::Float, Class::Known(t)) => {
                (t.is_float() && !t.is_half()).then_some(Class::Known(t))
            }
            (Class::Int { index: i }, Class::Int { index: j }) => {
                Some(Class::Int { index: i || j })
            }
            (Class::Float, Class::Float) => Some(Class::Float),
            _ => None,
        };
        match merged {
            Some(c) => {
                self.parent[rb] = ra;
                self.class[ra] = c;
            }
            None if matches!((ca, cb), (Class::Known(t), Class::Float) | (Class::Float, Class::Known(t)) if t.is_half()) =>
            {
                let t = match (ca, cb) {
                    (Class::Known(t), _) | (_, Class::Known(t)) => t,
                    _ => Scalar::F16,
                };
                self.cx.push(
                    Diagnostic::new(span, format!("a float literal is not a `{t}`")).note(format!(
                        "write `{t}::from_f32(1.5)`, as with the `half` crate"
                    )),
                );
            }
            None => {
                let msg = format!(
                    "mismatched types: expected {}, found {}",
                    Self::describe(ca),
                    Self::describe(cb)
                );
                self.cx.push(
                    Diagnostic::new(span, msg)
                        .note("kernels convert between types only with `as`, as Rust does"),
                );
            }
        }
    }

    fn index_error(&mut self, span: Span, t: Scalar) {
        self.cx.push(
            Diagnostic::new(
                span,
                format!("an index must be an unsigned integer, found `{t}`"),
            )
            .note("convert it with `as u32` (the fast index type) or `as usize`"),
        );
    }

    fn constrain(&mut self, v: usize, c: Class, span: Span) {
        let w = self.fresh(c);
        self.unify(v, w, span);
    }

    fn require_index(&mut self, e: Handle<Expr>) {
        let v = self.expr_var[e.index()];
        let r = self.find(v);
        let span = self.k.exprs.span(e);
        match self.class[r] {
            Class::Known(t) if !t.is_unsigned_int() => self.index_error(span, t),
            Class::Known(_) => {}
            Class::Int { .. } | Class::Free => self.class[r] = Class::Int { index: true },
            Class::Float => self.index_error(span, Scalar::F64),
        }
    }

    fn ev(&self, e: Handle<Expr>) -> usize {
        self.expr_var[e.index()]
    }

    fn expr(&mut self, h: Handle<Expr>) {
        let v = self.ev(h);
        let span = self.k.exprs.span(h);
        match self.k.exprs.get(h).clone() {
            Expr::Literal(Literal::Bool(_)) => self.constrain(v, Class::Known(Scalar::Bool), span),
            Expr::Literal(Literal::Int { value, suffix }) => {
                let c = suffix.map_or(Class::Int { index: false }, Class::Known);
                self.constrain(v, c, span);
                if value < 0 && suffix.is_some_and(|s| s.is_unsigned_int()) {
                    self.cx
                        .error(span, "cannot apply unary `-` to an unsigned literal");
                }
            }
            Expr::Literal(Literal::Float { suffix, .. }) => {
                let c = suffix.map_or(Class::Float, Class::Known);
                self.constrain(v, c, span);
            }
            // Any type: the context fixes it.
            Expr::Literal(Literal::Zero) => {}
            Expr::Local(l) => {
                let lv = self.local_var[l.index()];
                self.unify(lv, v, span);
            }
            Expr::Builtin { .. } => self.constrain(v, Class::Known(Scalar::U32), span),
            Expr::Len(_) => self.constrain(v, Class::Known(Scalar::Usize), span),
            Expr::Load { array, index } => {
                let elem = self.k.arrays.get(array).elem;
                self.constrain(v, Class::Known(elem), span);
                for ix in index {
                    self.require_index(ix);
                }
            }
            Expr::Unary { op, expr } => {
                let ov = self.ev(expr);
                self.unify(v, ov, span);
                self.checks.push((h, Check::Unary(op)));
            }
            Expr::Binary { op, left, right } => {
                let (lv, rv) = (self.ev(left), self.ev(right));
                if op.is_comparison() {
                    self.unify(lv, rv, self.k.exprs.span(right));
                    self.constrain(v, Class::Known(Scalar::Bool), span);
                } else if matches!(op, BinaryOp::And | BinaryOp::Or) {
                    self.constrain(lv, Class::Known(Scalar::Bool), self.k.exprs.span(left));
                    self.constrain(rv, Class::Known(Scalar::Bool), self.k.exprs.span(right));
                    self.constrain(v, Class::Known(Scalar::Bool), span);
                } else if op.is_shift() {
                    self.unify(v, lv, span);
                    self.constrain(rv, Class::Int { index: false }, self.k.exprs.span(right));
                } else {
                    self.unify(lv, rv, self.k.exprs.span(right));
                    self.unify(v, lv, span);
                }
                self.checks.push((h, Check::Binary(op)));
            }
            Expr::Cast { to, .. } => {
                self.constrain(v, Class::Known(to), span);
                self.checks.push((h, Check::Cast(to)));
            }
            Expr::AssumeUniform(inner) => {
                let iv = self.ev(inner);
                self.unify(v, iv, span);
            }
            Expr::Method {
                method,
                receiver,
                args,
            } => {
                let rv = self.ev(receiver);
                let rspan = self.k.exprs.span(receiver);
                if let Some(t) = method.receiver_type() {
                    self.constrain(rv, Class::Known(t), rspan);
                }
                if method.float_only() {
                    self.constrain(rv, Class::Float, rspan);
                }
                if method.int_only() {
                    self.constrain(rv, Class::Int { index: false }, rspan);
                }
                match method.fixed_result() {
                    Some(t) => self.constrain(v, Class::Known(t), span),
                    None if method == Method::AbsDiff => self.unsigned_of.push((v, rv, span)),
                    None => self.unify(v, rv, span),
                }
                for a in args {
                    let av = self.ev(a);
                    let aspan = self.k.exprs.span(a);
                    match method {
                        Method::Powi => self.constrain(av, Class::Known(Scalar::I32), aspan),
                        m if m.u32_argument() => {
                            self.constrain(av, Class::Known(Scalar::U32), aspan)
                        }
                        _ => self.unify(rv, av, aspan),
                    }
                }
                self.checks.push((h, Check::Method(method)));
            }
            Expr::UniformLoad { array, index } => {
                let elem = self.k.arrays.get(array).elem;
                self.constrain(v, Class::Known(elem), span);
                for ix in index {
                    self.require_index(ix);
                }
            }
            Expr::Select {
                cond,
                accept,
                reject,
            } => {
                let cv = self.ev(cond);
                self.constrain(cv, Class::Known(Scalar::Bool), self.k.exprs.span(cond));
                let (av, rv) = (self.ev(accept), self.ev(reject));
                self.unify(av, rv, self.k.exprs.span(reject));
                self.unify(v, av, span);
            }
        }
    }

    fn block(&mut self, b: &Block) {
        for (stmt, span) in b.iter() {
            self.stmt(stmt, span);
        }
    }

    fn stmt(&mut self, s: &Stmt, span: Span) {
        match s {
            Stmt::Let { local, init } => {
                if let Some(e) = init {
                    let lv = self.local_var[local.index()];
                    let ev = self.ev(*e);
                    self.unify(lv, ev, self.k.exprs.span(*e));
                }
            }
            Stmt::Assign { place, op, value } => {
                let vv = self.ev(*value);
                let vspan = self.k.exprs.span(*value);
                let pv = match place {
                    Place::Local(l) => self.local_var[l.index()],
                    Place::Element { array, index } => {
                        for ix in index {
                            self.require_index(*ix);
                        }
                        let elem = self.k.arrays.get(*array).elem;
                        self.fresh(Class::Known(elem))
                    }
                };
                if op.is_some_and(|o| o.is_shift()) {
                    self.constrain(vv, Class::Int { index: false }, vspan);
                    self.constrain(pv, Class::Int { index: false }, span);
                } else {
                    self.unify(pv, vv, vspan);
                }
                if let Some(op) = op {
                    self.checks.push((*value, Check::Binary(*op)));
                }
            }
            Stmt::If {
                cond,
                accept,
                reject,
            } => {
                let cv = self.ev(*cond);
                self.constrain(cv, Class::Known(Scalar::Bool), self.k.exprs.span(*cond));
                self.block(accept);
                self.block(reject);
            }
            Stmt::Loop { kind, body, .. } => {
                match kind {
                    LoopKind::Infinite => {}
                    LoopKind::While { cond } => {
                        let cv = self.ev(*cond);
                        self.constrain(cv, Class::Known(Scalar::Bool), self.k.exprs.span(*cond));
                    }
                    LoopKind::For {
                        var,
                        start,
                        end,
                        step,
                        ..
                    } => {
                        let lv = self.local_var[var.index()];
                        let sv = self.ev(*start);
                        let ev = self.ev(*end);
                        self.unify(lv, sv, self.k.exprs.span(*start));
                        self.unify(lv, ev, self.k.exprs.span(*end));
                        if let Some(st) = step {
                            // `step_by` takes a `usize` in Rust; kernels accept any integer, and
                            // an unsuffixed literal step takes the loop's type.
                            let stv = self.ev(*st);
                            if matches!(
                                self.k.exprs.get(*st),
                                Expr::Literal(Literal::Int { suffix: None, .. })
                            ) {
                                self.unify(lv, stv, self.k.exprs.span(*st));
                            } else {
                                self.constrain(
                                    stv,
                                    Class::Int { index: false },
                                    self.k.exprs.span(*st),
                                );
                            }
                        }
                        self.loop_checks.push((*var, span));
                    }
                }
                self.block(body);
            }
            Stmt::Atomic {
                array,
                index,
                value,
                ..
            } => {
                self.require_index(*index);
                let elem = self.k.arrays.get(*array).elem;
                let vv = self.ev(*value);
                self.constrain(vv, Class::Known(elem), self.k.exprs.span(*value));
            }
            Stmt::Warp {
                op,
                value,
                lane,
                result,
            } => {
                if let Some(l) = lane {
                    let lv = self.ev(*l);
                    self.constrain(lv, Class::Known(Scalar::U32), self.k.exprs.span(*l));
                }
                let Some(v) = value else { return };
                let vv = self.ev(*v);
                let vspan = self.k.exprs.span(*v);
                let rv = result.map(|r| self.local_var[r.index()]);
                match op {
                    WarpOp::Ballot | WarpOp::All | WarpOp::Any => {
                        self.constrain(vv, Class::Known(Scalar::Bool), vspan);
                        let rt = if *op == WarpOp::Ballot {
                            Scalar::U32
                        } else {
                            Scalar::Bool
                        };
                        if let Some(rv) = rv {
                            self.constrain(rv, Class::Known(rt), vspan);
                        }
                    }
                    _ => {
                        if let Some(rv) = rv {
                            self.unify(rv, vv, vspan);
                        }
                    }
                }
            }
            Stmt::Block(b) => self.block(b),
            Stmt::Check { index, .. } => self.require_index(*index),
            Stmt::Mma { .. } | Stmt::LoadMatrix { .. } | Stmt::Wgmma { .. } => {
                for row in s.operands() {
                    self.require_index(row);
                }
            }
            // (The source's loads are expressions, typed with the others.)
            Stmt::AsyncCopy { dst_index, .. } => {
                for ix in dst_index {
                    self.require_index(*ix);
                }
            }
            Stmt::Eval(_)
            | Stmt::Print { .. }
            | Stmt::Panic { .. }
            | Stmt::Fence(_)
            | Stmt::AsyncCommit
            | Stmt::AsyncWait { .. }
            | Stmt::WgmmaCommit
            | Stmt::WgmmaWait { .. }
            | Stmt::Break { .. }
            | Stmt::Continue { .. }
            | Stmt::Return
            | Stmt::Barrier { .. } => {}
        }
    }

    fn resolve(&mut self, v: usize) -> Scalar {
        let r = self.find(v);
        match self.class[r] {
            Class::Known(t) => t,
            Class::Int { index: true } => Scalar::U32,
            Class::Int { index: false } | Class::Free => Scalar::I32,
            Class::Float => Scalar::F64,
        }
    }

    fn finish(mut self) -> Types {
        let exprs: Vec<Scalar> = (0..self.expr_var.len())
            .map(|i| self.resolve(self.expr_var[i]))
            .collect();
        let locals: Vec<Scalar> = (0..self.local_var.len())
            .map(|i| self.resolve(self.local_var[i]))
            .collect();
        let types = Types::new(exprs, locals);
        for (h, check) in std::mem::take(&mut self.checks) {
            self.check(&types, h, check);
        }
        // A module constant's type is rustc's: the body must fix it (a default would be a
        // guess that rustc then rejects at the glue, with a less helpful message).
        for (h, local) in self.k.locals.iter() {
            if local.origin != LocalOrigin::ModuleConst {
                continue;
            }
            let r = self.find(self.local_var[h.index()]);
            let captured = self.k.params.iter().any(|p| {
                p.source == ParamSource::Capture
                    && matches!(p.kind, ParamKind::Scalar { local, .. } if local == h)
            });
            if captured && !matches!(self.class[r], Class::Known(_)) {
                self.cx.push(
                    Diagnostic::new(
                        self.k.locals.span(h),
                        format!("the closure captures `{}`, but how it uses it does not fix its type", local.name),
                    )
                    .note(format!("write the type where the closure starts: `let {0}: u32 = {0};` (a captured value is a scalar: `bool`, an integer or a float)", local.name)),
                );
            } else if !matches!(self.class[r], Class::Known(_)) {
                self.cx.push(
                    Diagnostic::new(
                        self.k.locals.span(h),
                        format!("cannot find `{}` in this kernel, and as a `const` of the module its type is not fixed by how the kernel uses it", local.name),
                    )
                    .note(format!("if `{0}` is a module constant, write its type where the kernel reads it: `let {1}: u32 = {0};`; otherwise, check the name", local.name, local.name.to_lowercase())),
                );
            }
        }
        for (var, span) in std::mem::take(&mut self.loop_checks) {
            let t = types.local(var);
            if !t.is_int() {
                self.cx.error(
                    span,
                    format!("a kernel loop counts with an integer type, found `{t}`"),
                );
            }
        }
        types
    }

    fn check(&mut self, types: &Types, h: Handle<Expr>, check: Check) {
        let span = self.k.exprs.span(h);
        match check {
            Check::Unary(op) => {
                let t = types.expr(h);
                let ok = match op {
                    UnaryOp::Neg => t.is_signed_int() || t.is_float(),
                    UnaryOp::Not => t.is_int() || t == Scalar::Bool,
                };
                if !ok {
                    let sym = if op == UnaryOp::Neg { "-" } else { "!" };
                    self.cx.error(
                        span,
                        format!("cannot apply unary operator `{sym}` to type `{t}`"),
                    );
                }
            }
            Check::Binary(op) => {
                // For compound assignments `h` is the right-hand value; for operators, the
                // operation whose left operand carries the operand type.
                let t = match self.k.exprs.get(h) {
                    Expr::Binary { op: o, left, .. } if *o == op => types.expr(*left),
                    _ => types.expr(h),
                };
                let ok = match op {
                    BinaryOp::Add
                    | BinaryOp::Sub
                    | BinaryOp::Mul
                    | BinaryOp::Div
                    | BinaryOp::Rem => t != Scalar::Bool,
                    BinaryOp::BitAnd | BinaryOp::BitOr | BinaryOp::BitXor => {
                        t.is_int() || t == Scalar::Bool
                    }
                    BinaryOp::Shl | BinaryOp::Shr => t.is_int(),
                    BinaryOp::Lt
                    | BinaryOp::Le
                    | BinaryOp::Gt
                    | BinaryOp::Ge
                    | BinaryOp::Eq
                    | BinaryOp::Ne => true,
                    BinaryOp::And | BinaryOp::Or => t == Scalar::Bool,
                };
                if !ok {
                    self.cx.error(
                        span,
                        format!("cannot apply `{}` to type `{t}`", op.symbol()),
                    );
                }
            }
            Check::Method(m) => {
                let t = match self.k.exprs.get(h) {
                    Expr::Method { receiver, .. } => types.expr(*receiver),
                    _ => types.expr(h),
                };
                let ok = if t.is_half() {
                    self.cx.push(
                        Diagnostic::new(
                            span,
                            format!("no method `{}` on `{t}` in kernels", m.name()),
                        )
                        .note(format!(
                            "compute in `f32`: `x.to_f32().{}(..)`, then `{t}::from_f32(..)`",
                            m.name()
                        )),
                    );
                    true
                } else if m.float_only() {
                    t.is_float()
                } else if m.unsigned_only() {
                    t.is_unsigned_int()
                } else if m.signed_only() {
                    t.is_signed_int()
                } else if m.int_only() {
                    t.is_int()
                } else if m == Method::Abs {
                    t.is_float() || t.is_signed_int()
                } else {
                    t != Scalar::Bool
                };
                if !ok && m.unsigned_only() && t.is_int() {
                    self.cx.push(
                        Diagnostic::new(
                            span,
                            format!("no method `{}` on type `{t}` in kernels", m.name()),
                        )
                        .note(format!(
                            "`{}` is a method of the unsigned integers (`u8`..`u64`, `usize`), as in Rust",
                            m.name()
                        )),
                    );
                } else if !ok && m.signed_only() && t.is_int() {
                    self.cx.push(
                        Diagnostic::new(
                            span,
                            format!("no method `{}` on type `{t}` in kernels", m.name()),
                        )
                        .note(format!(
                            "`{}` is a method of the signed integers (`i8`..`i64`), as in Rust",
                            m.name()
                        )),
                    );
                } else if !ok {
                    self.cx.error(
                        span,
                        format!("no method `{}` on type `{t}` in kernels", m.name()),
                    );
                }
            }
            Check::Cast(to) => {
                let from = match self.k.exprs.get(h) {
                    Expr::Cast { expr, .. } => types.expr(*expr),
                    _ => to,
                };
                if from == Scalar::Bool && to.is_float() {
                    self.cx.push(
                        Diagnostic::new(span, format!("cannot cast `bool` as `{to}`"))
                            .note(format!("cast to an integer first: `b as u32 as {to}`")),
                    );
                } else if to == Scalar::Bool && from != Scalar::Bool {
                    self.cx.push(
                        Diagnostic::new(span, format!("cannot cast `{from}` as `bool`"))
                            .note("compare instead: `x != 0`"),
                    );
                }
            }
        }
    }
}
