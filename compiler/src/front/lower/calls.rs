//! Calls of the language's own operations: atomics, `uniform_load`, warp operations,
//! `assume_uniform`, and the scalar methods with Rust's meaning.

use super::cx::*;
use super::syntax::*;
use crate::diag::Diagnostic;
use crate::front::builtins::BuiltinFn;
use crate::ir::*;

impl Lowerer<'_> {
    /// `array.atomic_op(i, v)`; in value position the old value goes to a temporary.
    pub(super) fn lower_atomic(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Block,
        want_value: bool,
    ) -> Value {
        let span = m.src();
        let Some(op) = AtomicOp::from_method(&m.method.to_string()) else {
            return Value::Error;
        };
        let mut through = None;
        let array = match strip_parens(&m.receiver) {
            syn::Expr::Path(p) => {
                match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    Some(Binding::Array(a)) => a,
                    Some(Binding::Sub(b)) if self.subs[b].writable => {
                        through = Some(b);
                        self.subs[b].array
                    }
                    Some(Binding::View(_) | Binding::Sub(_)) => {
                        self.err(
                            m.receiver.src(),
                            format!(
                                "`{}` writes, but this is read-only (a helper's `&[T]` parameter or a `&a[s..]` sub-slice); make it `&mut`",
                                op.method()
                            ),
                        );
                        return Value::Error;
                    }
                    _ => {
                        self.err(
                            m.receiver.src(),
                            format!(
                                "`{}` works on a shared array or a `&mut` slice parameter",
                                op.method()
                            ),
                        );
                        return Value::Error;
                    }
                }
            }
            other => {
                self.err(
                    other.src(),
                    format!(
                        "`{}` works on a shared array or a `&mut` slice parameter",
                        op.method()
                    ),
                );
                return Value::Error;
            }
        };
        let a = self.arrays.get(array).clone();
        if matches!(a.kind, ArrayKind::Local { .. }) {
            self.err(
                m.receiver.src(),
                format!(
                    "`{}` works on a shared array or a `&mut` slice parameter; `{}` is private to its thread, so assign its elements instead",
                    op.method(),
                    a.name
                ),
            );
            return Value::Error;
        }
        if a.kind == (ArrayKind::Global { mutable: false }) {
            self.cx.push(
                Diagnostic::new(
                    m.receiver.src(),
                    format!(
                        "`{}` writes, but `{}` is a read-only `&[{}]`",
                        op.method(),
                        a.name,
                        a.elem
                    ),
                )
                .note(format!(
                    "declare the parameter `{}: &mut [{}]`",
                    a.name, a.elem
                )),
            );
            return Value::Error;
        }
        if a.rank() != 1 {
            self.err(
                span,
                format!(
                    "atomics take one index; `{}` has {} dimensions",
                    a.name,
                    a.rank()
                ),
            );
            return Value::Error;
        }
        let supported = match op {
            AtomicOp::Add => matches!(
                a.elem,
                Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64 | Scalar::F32 | Scalar::F64
            ),
            AtomicOp::Exchange => matches!(
                a.elem,
                Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64 | Scalar::F32
            ),
            _ => matches!(
                a.elem,
                Scalar::I32 | Scalar::U32 | Scalar::I64 | Scalar::U64
            ),
        };
        if !supported {
            self.err(
                span,
                format!(
                    "`{}` on `{}` elements is not supported",
                    op.method(),
                    a.elem
                ),
            );
            return Value::Error;
        }
        if m.args.len() != 2 {
            self.err(
                span,
                format!(
                    "`{}` takes an index and a value: `{}.{}(i, v)`",
                    op.method(),
                    a.name,
                    op.method()
                ),
            );
            return Value::Error;
        }
        let (Some(index), Some(value)) = (m.args.first(), m.args.get(1)) else {
            return Value::Error;
        };
        let Some(mut index) = self.value_or_none(index, out) else {
            return Value::Error;
        };
        if let Some(b) = through {
            index = self.sub_index(b, index, span).1;
        }
        let Some(value) = self.value_or_none(value, out) else {
            return Value::Error;
        };
        let result = want_value.then(|| {
            let tmp = self.locals.append(
                Local {
                    name: "old".into(),
                    mutable: false,
                    annotated: Some(a.elem),
                    origin: LocalOrigin::Temp,
                },
                span,
            );
            out.push(
                Stmt::Let {
                    local: tmp,
                    init: None,
                },
                span,
            );
            tmp
        });
        out.push(
            Stmt::Atomic {
                op,
                array,
                index,
                value,
                result,
            },
            span,
        );
        match result {
            Some(tmp) => Value::Expr(self.expr(Expr::Local(tmp), span)),
            None => Value::Error,
        }
    }

    pub(super) fn lower_method(&mut self, m: &syn::ExprMethodCall, out: &mut Block) -> Value {
        let span = m.src();
        // `p.dot(q)` of a struct with a `#[device] impl` method.
        match self.record_method_call(m) {
            Some(Ok(call)) => return self.lower_call(&call, out, span, true),
            Some(Err(())) => return Value::Error,
            None => {}
        }
        // `h.to_f32()`, `h.to_f64()` of `half` values.
        if m.args.is_empty() && (m.method == "to_f32" || m.method == "to_f64") {
            let to = if m.method == "to_f32" {
                Scalar::F32
            } else {
                Scalar::F64
            };
            return match self.lower_value(&m.receiver, out) {
                Value::Expr(x) => Value::Expr(self.expr(Expr::Cast { expr: x, to }, span)),
                other => other,
            };
        }
        if m.method == "len" && m.args.is_empty() {
            if let Some(v) = self.array_field_len(&m.receiver, span, out) {
                return v;
            }
            if let syn::Expr::Path(p) = strip_parens(&m.receiver) {
                if let Some(id) = p.path.get_ident() {
                    if let Some(Binding::Sub(b)) = self.lookup(&id.to_string()) {
                        return Value::Expr(self.sub_len(b, span));
                    }
                    if let Some(Binding::Poisoned) = self.lookup(&id.to_string()) {
                        return Value::Error;
                    }
                    if let Some(Binding::Records(s)) = self.lookup(&id.to_string()) {
                        return Value::Expr(self.record_slice_len(s, span));
                    }
                    if let Some(Binding::Array(a) | Binding::View(a)) = self.lookup(&id.to_string())
                    {
                        if matches!(self.arrays.get(a).kind, ArrayKind::Global { .. })
                            || self.arrays.get(a).kind.is_dynamic()
                        {
                            return Value::Expr(self.expr(Expr::Len(a), span));
                        }
                        if let ArrayKind::Shared { dims, .. } = &self.arrays.get(a).kind {
                            let n = dims.first().copied().unwrap_or(0);
                            return Value::Expr(self.expr(
                                Expr::Literal(Literal::Int {
                                    value: i128::from(n),
                                    suffix: Some(Scalar::Usize),
                                }),
                                span,
                            ));
                        }
                        if let ArrayKind::Local { dims, .. } = &self.arrays.get(a).kind {
                            let n = dims.first().copied().unwrap_or(0);
                            return Value::Expr(self.expr(
                                Expr::Literal(Literal::Int {
                                    value: i128::from(n),
                                    suffix: Some(Scalar::Usize),
                                }),
                                span,
                            ));
                        }
                        self.err(
                            span,
                            "a shared array's length is its declared size; write the number",
                        );
                        return Value::Error;
                    }
                }
            }
            self.err(
                m.receiver.src(),
                "`.len()` is supported on slice parameters",
            );
            return Value::Error;
        }
        if let Some(method) = Method::from_name(&m.method.to_string()) {
            if m.args.len() != method.arity() {
                self.err(
                    span,
                    format!("`{}` takes {} argument(s)", method.name(), method.arity()),
                );
                return Value::Error;
            }
            if let Some(t) = &m.turbofish {
                self.err(t.src(), "kernel methods take no type arguments");
                return Value::Error;
            }
            if matches!(method, Method::FromBits32 | Method::FromBits64) {
                self.err(
                    span,
                    "`from_bits` makes a float of an integer: `f32::from_bits(u)`",
                );
                return Value::Error;
            }
            let receiver = match self.lower_value(&m.receiver, out) {
                Value::Expr(r) => r,
                other => return other,
            };
            // `to_bits` of a `f64` is another method than of a `f32`.
            let method = match self.guess_type(receiver, 0) {
                Some(t) => method.for_receiver(t),
                None => method,
            };
            let mut args = Vec::new();
            for a in &m.args {
                match self.lower_value(a, out) {
                    Value::Expr(v) => args.push(v),
                    other => return other,
                }
            }
            return Value::Expr(self.expr(
                Expr::Method {
                    method,
                    receiver,
                    args,
                },
                span,
            ));
        }
        // (A receiver whose declaration was reported adds nothing.)
        if !self.is_poisoned(&m.receiver) {
            self.err(
                m.method.src(),
                format!("the method `{}` is not supported in kernels yet", m.method),
            );
        }
        Value::Error
    }

    /// `f32::max(a, b)` is `a.max(b)` with `a` a `f32`; `u32::from(x)` is `x as u32` where
    /// Rust converts without loss.
    pub(super) fn lower_path_method(&mut self, c: &syn::ExprCall, out: &mut Block) -> Value {
        let span = c.src();
        let Some((ty, name)) = scalar_path_call(c) else {
            return Value::Error;
        };
        let Some(first) = c.args.first() else {
            self.err(
                span,
                format!("`{ty}::{name}` takes its receiver first: `{ty}::{name}(x, ..)`"),
            );
            return Value::Error;
        };
        let Value::Expr(x) = self.lower_value(first, out) else {
            return Value::Error;
        };
        if name == "from" && c.args.len() == 1 {
            return match self.guess_type(x, 0) {
                Some(from) if from == ty => Value::Expr(x),
                Some(from) if lossless(from, ty) => {
                    // (`bool` becomes a float through an integer, as `as` allows.)
                    let x = if from == Scalar::Bool && ty.is_float() {
                        self.expr(
                            Expr::Cast {
                                expr: x,
                                to: Scalar::U8,
                            },
                            span,
                        )
                    } else {
                        x
                    };
                    Value::Expr(self.expr(Expr::Cast { expr: x, to: ty }, span))
                }
                Some(from) => {
                    self.err(span, format!("`{ty}: From<{from}>` does not hold: the conversion can lose information; write `x as {ty}`"));
                    Value::Error
                }
                None => {
                    self.err(
                        span,
                        format!("`{ty}::from` needs its argument's type: write `x as {ty}`"),
                    );
                    Value::Error
                }
            };
        }
        // `f32::from_bits(u)`: the receiver is the integer.
        if name == "from_bits" && c.args.len() == 1 && ty.is_float() {
            let method = Method::FromBits32.for_receiver(ty);
            return Value::Expr(self.expr(
                Expr::Method {
                    method,
                    receiver: x,
                    args: Vec::new(),
                },
                span,
            ));
        }
        let x = match self.as_type(x, ty, first.src(), &format!("{ty}::{name}"), out) {
            Some(x) => x,
            None => return Value::Error,
        };
        let Some(method) = Method::from_name(&name).map(|m| m.for_receiver(ty)) else {
            self.err(
                span,
                format!("`{ty}::{name}` is not supported in kernels yet"),
            );
            return Value::Error;
        };
        if c.args.len() != method.arity() + 1 {
            self.err(
                span,
                format!("`{ty}::{name}` takes {} argument(s)", method.arity() + 1),
            );
            return Value::Error;
        }
        let mut args = Vec::new();
        for a in c.args.iter().skip(1) {
            match self.lower_value(a, out) {
                Value::Expr(v) => args.push(v),
                other => return other,
            }
        }
        Value::Expr(self.expr(
            Expr::Method {
                method,
                receiver: x,
                args,
            },
            span,
        ))
    }

    /// `x` as a value of type `ty` where a path call (`f32::max`) names it: an unsuffixed
    /// literal takes the type, a value of another type is an error, and a value whose type
    /// lowering cannot tell is held in a variable of `ty` (inference checks it).
    fn as_type(
        &mut self,
        x: Handle<Expr>,
        ty: Scalar,
        span: Span,
        what: &str,
        out: &mut Block,
    ) -> Option<Handle<Expr>> {
        match self.exprs.get_mut(x) {
            Expr::Literal(Literal::Int {
                suffix: s @ None, ..
            }) if ty.is_int() => {
                *s = Some(ty);
                return Some(x);
            }
            Expr::Literal(Literal::Float {
                suffix: s @ None, ..
            }) if ty.is_float() => {
                *s = Some(ty);
                return Some(x);
            }
            _ => {}
        }
        match self.guess_type(x, 0) {
            Some(t) if t == ty => Some(x),
            Some(t) => {
                self.err(
                    span,
                    format!("mismatched types: `{what}` takes a `{ty}`, found `{t}`"),
                );
                None
            }
            None => {
                let h = self.locals.append(
                    Local {
                        name: "value".to_string(),
                        mutable: false,
                        annotated: Some(ty),
                        origin: LocalOrigin::Let,
                    },
                    span,
                );
                out.push(
                    Stmt::Let {
                        local: h,
                        init: Some(x),
                    },
                    span,
                );
                Some(self.expr(Expr::Local(h), span))
            }
        }
    }

    pub(super) fn lower_unsafe_value(
        &mut self,
        b: &syn::Block,
        out: &mut Block,
        span: Span,
    ) -> Value {
        let was = std::mem::replace(&mut self.in_unsafe, true);
        // `unsafe { assume_uniform(v) }` needs no block of its own.
        let simple = match split_tail(b) {
            ([], Some(syn::Expr::Call(c))) if builtin_of(c) == Some(BuiltinFn::AssumeUniform) => {
                Some(c)
            }
            _ => None,
        };
        let v = match simple {
            Some(_) => {
                let mut scratch = Block::default();
                let v = self.lower_block_value(b, &mut scratch, span);
                if scratch.stmts.is_empty() {
                    v
                } else {
                    let tmp = self.declared_temp(span, out);
                    let mut inner = Block {
                        is_unsafe: true,
                        ..Block::default()
                    };
                    inner.append(scratch);
                    if let Value::Expr(e) = v {
                        inner.push(
                            Stmt::Assign {
                                place: Place::Local(tmp),
                                op: None,
                                value: e,
                            },
                            span,
                        );
                    }
                    out.push(Stmt::Block(inner), span);
                    Value::Expr(self.expr(Expr::Local(tmp), span))
                }
            }
            None => {
                let tmp = self.declared_temp(span, out);
                let mut inner = self.block_into_temp(b, tmp);
                inner.is_unsafe = true;
                out.push(Stmt::Block(inner), span);
                Value::Expr(self.expr(Expr::Local(tmp), span))
            }
        };
        self.in_unsafe = was;
        v
    }

    /// `uniform_load(&tile[i])`: a barrier, then every thread reads the same element.
    pub(super) fn lower_uniform_load(
        &mut self,
        c: &syn::ExprCall,
        out: &mut Block,
        span: Span,
    ) -> Value {
        let arg = match (c.args.len(), c.args.first()) {
            (1, Some(syn::Expr::Reference(r))) if r.mutability.is_none() => &*r.expr,
            _ => {
                self.cx.push(
                    Diagnostic::new(
                        span,
                        "`uniform_load` takes a reference to a shared array element",
                    )
                    .note("write `uniform_load(&tile[i])`"),
                );
                return Value::Error;
            }
        };
        let Some((array, index)) = self.lower_index(arg, out) else {
            return Value::Error;
        };
        if !matches!(self.arrays.get(array).kind, ArrayKind::Shared { .. }) {
            self.err(
                arg.src(),
                "`uniform_load` reads shared memory; read a slice parameter directly",
            );
            return Value::Error;
        }
        self.barrier(BarrierOrigin::UniformLoad, span, out);
        Value::Expr(self.expr(Expr::UniformLoad { array, index }, span))
    }

    /// A warp operation: its arguments, then the operation into a temporary.
    pub(super) fn lower_warp(
        &mut self,
        c: &syn::ExprCall,
        op: WarpOp,
        out: &mut Block,
        span: Span,
    ) -> Value {
        if c.args.len() != op.arity() {
            self.err(
                span,
                format!("`{}` takes {} argument(s)", op.name(), op.arity()),
            );
            return Value::Error;
        }
        let mut args = Vec::new();
        for a in &c.args {
            match self.lower_value(a, out) {
                Value::Expr(e) => args.push(e),
                other => return other,
            }
        }
        if op == WarpOp::Sync {
            out.push(
                Stmt::Warp {
                    op,
                    value: None,
                    lane: None,
                    result: None,
                },
                span,
            );
            return Value::Error;
        }
        let tmp = self.temp(span);
        self.locals.get_mut(tmp).name = match op {
            WarpOp::Ballot => "ballot",
            WarpOp::All | WarpOp::Any => "vote",
            _ => "shuffled",
        }
        .into();
        out.push(
            Stmt::Let {
                local: tmp,
                init: None,
            },
            span,
        );
        out.push(
            Stmt::Warp {
                op,
                value: args.first().copied(),
                lane: args.get(1).copied(),
                result: Some(tmp),
            },
            span,
        );
        Value::Expr(self.expr(Expr::Local(tmp), span))
    }
}

/// Whether Rust's `From` converts `from` into `to` (lossless: every value of `from` is one of
/// `to`; `bool` into the integers and floats; small integers into the floats that hold them).
fn lossless(from: Scalar, to: Scalar) -> bool {
    if from == Scalar::Bool {
        return to.is_int() || matches!(to, Scalar::F32 | Scalar::F64);
    }
    if from.is_int() && to.is_int() {
        // (`usize` converts from and to nothing wider than 16 bits in Rust.)
        if from == Scalar::Usize || to == Scalar::Usize {
            return matches!(from, Scalar::U8 | Scalar::U16) && to == Scalar::Usize;
        }
        let (lo, hi) = from.int_range().unwrap_or((0, 0));
        return to.holds_int(lo) && to.holds_int(hi);
    }
    matches!(
        (from, to),
        (
            Scalar::I8 | Scalar::U8 | Scalar::I16 | Scalar::U16,
            Scalar::F32 | Scalar::F64
        ) | (Scalar::I32 | Scalar::U32 | Scalar::F32, Scalar::F64)
            | (Scalar::F16 | Scalar::Bf16, Scalar::F32 | Scalar::F64)
    )
}
