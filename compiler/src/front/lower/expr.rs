//! Expressions in value position: literals, paths (variables, consts, builtins), fields of
//! `Dim3` values, operators, casts, and the dispatch to the other files for everything else.

use super::cx::*;
use super::option_methods::overflowing_op;
use super::options::{Sink, TO_SCALAR};
use super::syntax::*;
use crate::diag::Diagnostic;
use crate::front::builtins::BuiltinFn;
use crate::ir::*;

impl Lowerer<'_> {
    pub(super) fn lower_value(&mut self, e: &syn::Expr, out: &mut Block) -> Value {
        let span = e.src();
        if self.is_option_expr(e) {
            self.option_as_scalar(span);
            return Value::Error;
        }
        match e {
            syn::Expr::Lit(l) => self.lower_lit(&l.lit),
            syn::Expr::Paren(p) => self.lower_value(&p.expr, out),
            syn::Expr::Group(g) => self.lower_value(&g.expr, out),
            syn::Expr::Path(p) => self.lower_path(p),
            syn::Expr::Unary(u) => {
                // Fold `-literal` so that `i32::MIN` written as `-2147483648` stays a literal.
                if let (
                    syn::UnOp::Neg(_),
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }),
                ) = (&u.op, strip_parens(&u.expr))
                {
                    if let Some((value, suffix)) = self.int_lit(i) {
                        return Value::Expr(self.expr(
                            Expr::Literal(Literal::Int {
                                value: -value,
                                suffix,
                            }),
                            span,
                        ));
                    }
                    return Value::Error;
                }
                let op = match u.op {
                    syn::UnOp::Neg(_) => UnaryOp::Neg,
                    syn::UnOp::Not(_) => UnaryOp::Not,
                    syn::UnOp::Deref(_) => {
                        if let syn::Expr::Path(p) = strip_parens(&u.expr) {
                            match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                                Some(Binding::Ref(h) | Binding::Shared(h)) => {
                                    return Value::Expr(self.expr(Expr::Local(h), span));
                                }
                                Some(Binding::Elem(b)) => {
                                    let (array, index) = self.borrowed(b, span);
                                    return Value::Expr(
                                        self.expr(Expr::Load { array, index }, span),
                                    );
                                }
                                _ => {}
                            }
                        }
                        self.err(
                            u.op.src(),
                            "dereferencing (`*x`) works only on a helper's `&mut` parameter",
                        );
                        return Value::Error;
                    }
                    _ => {
                        self.err(
                            u.op.src(),
                            "this unary operator is not supported in kernels",
                        );
                        return Value::Error;
                    }
                };
                match self.lower_value(&u.expr, out) {
                    Value::Expr(x) => Value::Expr(self.expr(Expr::Unary { op, expr: x }, span)),
                    other => other,
                }
            }
            syn::Expr::Binary(b) => {
                let Some(op) = binary_op(&b.op) else {
                    self.cx.push(
                        Diagnostic::new(b.op.src(), "an assignment has no value in a kernel")
                            .note("write the assignment as its own statement"),
                    );
                    return Value::Error;
                };
                let left = self.lower_value(&b.left, out);
                let right = if matches!(op, BinaryOp::And | BinaryOp::Or) {
                    // The right side is evaluated only when the left does not decide: where it
                    // needs statements (a helper call), `tmp = if l { r } else { false }` (and
                    // `if l { true } else { r }` for `||`).
                    let mut rs = Block::default();
                    let r = self.lower_value(&b.right, &mut rs);
                    if !rs.stmts.is_empty() {
                        let (Value::Expr(l), Value::Expr(r)) = (&left, &r) else {
                            return if matches!(left, Value::Error) || matches!(r, Value::Error) {
                                Value::Error
                            } else {
                                Value::Diverges
                            };
                        };
                        let (l, r) = (*l, *r);
                        let tmp = self.declared_temp(span, out);
                        let set = |v: Handle<Expr>| Stmt::Assign {
                            place: Place::Local(tmp),
                            op: None,
                            value: v,
                        };
                        rs.push(set(r), b.right.src());
                        let decided = self.expr(
                            Expr::Literal(Literal::Bool(op == BinaryOp::Or)),
                            b.left.src(),
                        );
                        let mut other = Block::default();
                        other.push(set(decided), b.left.src());
                        let (accept, reject) = if op == BinaryOp::And {
                            (rs, other)
                        } else {
                            (other, rs)
                        };
                        out.push(
                            Stmt::If {
                                cond: l,
                                accept,
                                reject,
                            },
                            span,
                        );
                        return Value::Expr(self.expr(Expr::Local(tmp), span));
                    }
                    r
                } else if matches!(op, BinaryOp::Shl | BinaryOp::Shr) {
                    // A shift amount may be of any integer type: a constant there keeps its own.
                    self.shift_amount += 1;
                    let r = self.lower_value(&b.right, out);
                    self.shift_amount -= 1;
                    r
                } else {
                    self.lower_value(&b.right, out)
                };
                match (left, right) {
                    (Value::Expr(l), Value::Expr(r)) => Value::Expr(self.expr(
                        Expr::Binary {
                            op,
                            left: l,
                            right: r,
                        },
                        span,
                    )),
                    (Value::Error, _) | (_, Value::Error) => Value::Error,
                    _ => Value::Diverges,
                }
            }
            syn::Expr::Cast(c) => {
                let Some(to) = type_to_scalar(&c.ty) else {
                    self.cx.push(unsupported_type(&c.ty));
                    return Value::Error;
                };
                // `NAME as T` of a module constant: the host computes it.
                if let syn::Expr::Path(p) = strip_parens(&c.expr) {
                    let name = p.path.get_ident().map(|i| i.to_string());
                    let known = name
                        .as_deref()
                        .filter(|n| {
                            self.lookup(n).is_none() && !self.const_params.iter().any(|c| c == *n)
                        })
                        .and_then(|n| self.consts.get(n));
                    // `NAME as T` of a constant known from the file: its value, of its own type.
                    if let (Some((ty, value)), Some(name)) = (known, &name) {
                        let lit = self.known_const(name, value, Some(ty), p.src());
                        return Value::Expr(self.expr(Expr::Cast { expr: lit, to }, span));
                    }
                    let known = known.is_some();
                    // A closure's capture is cast where it is captured (a helper's body sees
                    // only its own names).
                    let captures = self.closure && self.calls.iter().all(|c| c.helper.is_none());
                    if let Some(name) = name.filter(|n| {
                        p.qself.is_none()
                            && (captures || !self.closure)
                            && !known
                            && self.lookup(n).is_none()
                    }) {
                        let local = if captures {
                            self.capture_as(&name, p.src(), to)
                        } else {
                            self.module_const_as(&name, p.src(), to)
                        };
                        return Value::Expr(self.expr(Expr::Local(local), span));
                    }
                }
                match self.lower_value(&c.expr, out) {
                    Value::Expr(x) => Value::Expr(self.expr(Expr::Cast { expr: x, to }, span)),
                    other => other,
                }
            }
            syn::Expr::Index(_) => {
                if let Some(v) = self.lower_record_field(e, out) {
                    return v;
                }
                match self.lower_index(e, out) {
                    Some((array, index)) => {
                        Value::Expr(self.expr(Expr::Load { array, index }, span))
                    }
                    None => Value::Error,
                }
            }
            // `a.overflowing_add(b).0` and `.1`.
            syn::Expr::Field(f) if matches!(strip_parens(&f.base), syn::Expr::MethodCall(m) if overflowing_op(m).is_some()) =>
            {
                let index = match &f.member {
                    syn::Member::Unnamed(i) if i.index < 2 => i.index as usize,
                    _ => {
                        self.err(
                            f.member.src(),
                            "the pair has fields `.0` (the value) and `.1` (whether it overflowed)",
                        );
                        return Value::Error;
                    }
                };
                match strip_parens(&f.base) {
                    syn::Expr::MethodCall(m) => match self.lower_overflowing(m, out) {
                        Some(pair) => Value::Expr(pair[index]),
                        None => Value::Error,
                    },
                    _ => Value::Error,
                }
            }
            syn::Expr::Field(f) => match self.lower_record_field(e, out) {
                Some(v) => v,
                None => self.lower_field(f),
            },
            syn::Expr::MethodCall(m) if AtomicOp::from_method(&m.method.to_string()).is_some() => {
                self.lower_atomic(m, out, true)
            }
            syn::Expr::MethodCall(m)
                if TO_SCALAR.contains(&m.method.to_string().as_str())
                    && self.is_option_expr(&m.receiver) =>
            {
                self.lower_option_read(m, out)
            }
            syn::Expr::MethodCall(m) => self.lower_method(m, out),
            syn::Expr::Match(mt) => {
                let tmp = self.declared_temp(span, out);
                if self.lower_match(mt, out, Sink::Scalar(tmp)) {
                    Value::Expr(self.expr(Expr::Local(tmp), span))
                } else {
                    Value::Error
                }
            }
            syn::Expr::Unsafe(u) => self.lower_unsafe_value(&u.block, out, span),
            syn::Expr::Call(c) if builtin_of(c) == Some(BuiltinFn::AssumeUniform) => {
                if !self.in_unsafe {
                    self.cx.push(
                        Diagnostic::new(span, "`assume_uniform` is unsafe: the programmer vouches that the value is the same in every thread of the block")
                            .note("write `unsafe { assume_uniform(v) }`"),
                    );
                    return Value::Error;
                }
                let (1, Some(arg)) = (c.args.len(), c.args.first()) else {
                    self.err(span, "`assume_uniform` takes one value");
                    return Value::Error;
                };
                match self.lower_value(arg, out) {
                    Value::Expr(v) => Value::Expr(self.expr(Expr::AssumeUniform(v), span)),
                    other => other,
                }
            }
            syn::Expr::Call(c) if builtin_of(c) == Some(BuiltinFn::UniformLoad) => {
                self.lower_uniform_load(c, out, span)
            }
            syn::Expr::Call(c)
                if c.args.is_empty()
                    && matches!(
                        builtin_of(c),
                        Some(BuiltinFn::Index(Builtin::LaneId | Builtin::WarpSize))
                    ) =>
            {
                let builtin = if builtin_of(c) == Some(BuiltinFn::Index(Builtin::LaneId)) {
                    Builtin::LaneId
                } else {
                    Builtin::WarpSize
                };
                Value::Expr(self.expr(
                    Expr::Builtin {
                        builtin,
                        axis: Axis::X,
                    },
                    span,
                ))
            }
            syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if half_conversion(&p.path).is_some()) =>
            {
                let Some((to, from)) = (match &*c.func {
                    syn::Expr::Path(p) => half_conversion(&p.path),
                    _ => None,
                }) else {
                    return Value::Error;
                };
                let (1, Some(arg)) = (c.args.len(), c.args.first()) else {
                    self.err(span, format!("`{to}::from_{from}` takes one `{from}`"));
                    return Value::Error;
                };
                match self.lower_value(arg, out) {
                    Value::Expr(x) => {
                        // `f16::from_f32(1.5)`: the literal is an `f32`.
                        if let Expr::Literal(Literal::Float { suffix, .. }) = self.exprs.get_mut(x)
                        {
                            if suffix.is_none() {
                                *suffix = Some(from);
                            }
                        }
                        Value::Expr(self.expr(Expr::Cast { expr: x, to }, span))
                    }
                    other => other,
                }
            }
            syn::Expr::Call(c) if scalar_path_call(c).is_some() => self.lower_path_method(c, out),
            syn::Expr::Call(c) if is_helper_call(c) => self.lower_call(c, out, span, true),
            syn::Expr::Call(c) if matches!(builtin_of(c), Some(BuiltinFn::Warp(_))) => {
                match builtin_of(c) {
                    Some(BuiltinFn::Warp(op)) if op != WarpOp::Sync => {
                        self.lower_warp(c, op, out, span)
                    }
                    _ => {
                        self.err(span, "`sync_warp()` is a statement; it has no value");
                        Value::Error
                    }
                }
            }
            syn::Expr::Call(c) => {
                let name = call_name(c);
                let n = name.clone().unwrap_or_default();
                let msg = match (builtin_of(c), name.as_deref()) {
                    (Some(b), _) if b.is_dim3() => {
                        format!("`{n}()` is a `Dim3`; take one component: `{n}().x`")
                    }
                    (Some(BuiltinFn::SyncBlockThreads), _) => "`sync_block_threads()` is a statement; it has no value".to_string(),
                    (Some(BuiltinFn::Shared), _) => "`shared::<[T; N]>()` must be bound with `let`: `let tile = shared::<[f32; 256]>();`".to_string(),
                    (Some(BuiltinFn::Mma(_)), _) => {
                        format!("`{n}(&mut acc, &a, &b)` is a statement: it adds into `acc` and has no value")
                    }
                    (Some(BuiltinFn::LoadMatrix(_)), _) => {
                        format!("`{n}(&mut frag, &tile[r])` is a statement: it writes `frag` and has no value")
                    }
                    (Some(BuiltinFn::Wgmma), _) => {
                        format!("`{n}(&mut acc, &a_tile[ra], &b_tile[rb])` is a statement: it adds into `acc` and has no value")
                    }
                    (Some(BuiltinFn::AsyncCopy | BuiltinFn::AsyncCommit | BuiltinFn::AsyncWait | BuiltinFn::WgmmaCommit | BuiltinFn::WgmmaWait), _) => {
                        format!("`{n}` is a statement; it has no value")
                    }
                    (Some(BuiltinFn::Loop(_)), _) => {
                        format!("`{n}` is used as the range of a `for` loop")
                    }
                    (_, Some(n)) => format!("cannot call `{n}` in a kernel: function calls are not supported yet"),
                    (_, None) => "function calls are not supported in kernels".to_string(),
                };
                self.err(span, msg);
                Value::Error
            }
            syn::Expr::If(i) => self.lower_if_value(i, out),
            syn::Expr::Block(b) => {
                if b.label.is_some() {
                    self.err(span, "labelled blocks are not supported in kernels");
                    return Value::Error;
                }
                self.lower_block_value(&b.block, out, span)
            }
            syn::Expr::Break(_) | syn::Expr::Continue(_) | syn::Expr::Return(_) => {
                self.lower_jump(e, out);
                Value::Diverges
            }
            syn::Expr::Macro(m) if m.mac.path.is_ident("panic") => {
                self.lower_macro(&m.mac, out);
                Value::Diverges
            }
            syn::Expr::Macro(m) => {
                self.unsupported_macro(&m.mac);
                Value::Error
            }
            syn::Expr::Assign(_) => {
                self.cx.push(
                    Diagnostic::new(span, "an assignment has no value in a kernel")
                        .note("write the assignment as its own statement"),
                );
                Value::Error
            }
            syn::Expr::Loop(_) | syn::Expr::While(_) | syn::Expr::ForLoop(_) => {
                self.err(
                    span,
                    "loops have no value in kernels; use them as statements",
                );
                Value::Error
            }
            other => {
                self.err(span, not_supported(other));
                Value::Error
            }
        }
    }

    pub(super) fn int_lit(&mut self, i: &syn::LitInt) -> Option<(i128, Option<Scalar>)> {
        let suffix = match i.suffix() {
            "" => None,
            s => match Scalar::from_rust_name(s) {
                Some(t) if !matches!(t, Scalar::Bool) => Some(t),
                _ => {
                    self.err(i.src(), format!("unsupported literal suffix `{s}`"));
                    return None;
                }
            },
        };
        match i.base10_parse::<u128>() {
            Ok(v) if v <= i128::MAX as u128 => Some((v as i128, suffix)),
            _ => {
                self.err(i.src(), "integer literal is too large");
                None
            }
        }
    }

    pub(super) fn lower_lit(&mut self, lit: &syn::Lit) -> Value {
        let span = lit.src();
        let l = match lit {
            syn::Lit::Bool(b) => Literal::Bool(b.value),
            syn::Lit::Int(i) => {
                let Some((value, suffix)) = self.int_lit(i) else {
                    return Value::Error;
                };
                if let Some(s) = suffix.filter(|s| s.is_float()) {
                    // `1f32` is a float literal in Rust.
                    Literal::Float {
                        digits: value.to_string(),
                        suffix: Some(s),
                    }
                } else {
                    Literal::Int { value, suffix }
                }
            }
            syn::Lit::Float(f) => {
                let suffix = match f.suffix() {
                    "" => None,
                    "f32" => Some(Scalar::F32),
                    "f64" => Some(Scalar::F64),
                    s => {
                        self.err(span, format!("unsupported literal suffix `{s}`"));
                        return Value::Error;
                    }
                };
                Literal::Float {
                    digits: f.base10_digits().to_string(),
                    suffix,
                }
            }
            _ => {
                self.err(
                    span,
                    "only numeric and boolean literals are supported in kernels",
                );
                return Value::Error;
            }
        };
        Value::Expr(self.expr(Expr::Literal(l), span))
    }

    pub(super) fn lower_path(&mut self, p: &syn::ExprPath) -> Value {
        let span = p.src();
        if let Some(ident) = p.path.get_ident() {
            let name = ident.to_string();
            return match self.lookup(&name) {
                Some(Binding::Local(h) | Binding::Shared(h)) => {
                    Value::Expr(self.expr(Expr::Local(h), span))
                }
                Some(Binding::Poisoned) => Value::Error,
                Some(Binding::Records(_) | Binding::Record(_)) => {
                    self.record_misuse(&name, span);
                    Value::Error
                }
                Some(Binding::Option(_)) => {
                    self.option_as_scalar(span);
                    Value::Error
                }
                Some(Binding::Dim3(_)) => {
                    self.err(
                        span,
                        format!("`{name}` is a `Dim3`; take one component: `{name}.x`"),
                    );
                    Value::Error
                }
                Some(Binding::Const(ty, value)) => Value::Expr(self.expr(
                    Expr::Literal(Literal::Int {
                        value,
                        suffix: Some(ty),
                    }),
                    span,
                )),
                Some(Binding::Closure(_)) => {
                    self.err(
                        span,
                        format!("`{name}` is a closure; kernels call closures (`{name}(..)`) but do not pass them as values"),
                    );
                    Value::Error
                }
                Some(Binding::Ref(_) | Binding::Elem(_)) => {
                    self.err(
                        span,
                        format!("`{name}` is a `&mut` reference; read it as `*{name}`"),
                    );
                    Value::Error
                }
                Some(Binding::Array(_) | Binding::View(_) | Binding::Sub(_)) => {
                    self.err(
                        span,
                        format!("`{name}` is an array; index it (`{name}[i]`) or take its length"),
                    );
                    Value::Error
                }
                // A closure's capture: by value, held by the kernel value (a helper's body
                // sees only its own names).
                None if self.closure && self.calls.iter().all(|c| c.helper.is_none()) => {
                    let local = self.capture(&name, span);
                    Value::Expr(self.expr(Expr::Local(local), span))
                }
                // A name the kernel does not bind is a `const` of its module (rustc reports a
                // name that is not one, at this use, through the host glue).
                // Its value, known from the kernel's file: a literal of the type the kernel
                // uses it at (the glue checks the constant against that type, and its value).
                None => match self
                    .consts
                    .get(&name)
                    .filter(|_| !self.const_params.contains(&name))
                {
                    Some((ty, value)) => {
                        // (A shift amount may be of any integer type: there it keeps its own.)
                        let suffix = (self.shift_amount > 0).then_some(ty);
                        Value::Expr(self.known_const(&name, value, suffix, span))
                    }
                    None => {
                        let local = self.module_const(&name, span, None);
                        Value::Expr(self.expr(Expr::Local(local), span))
                    }
                },
            };
        }
        // `f16::ZERO`, `bf16::ONE`.
        if p.qself.is_none() && p.path.segments.len() >= 2 {
            let mut tp = p.path.clone();
            let konst = tp.segments.pop().map(|s| s.into_value().ident.to_string());
            let segs: syn::punctuated::Punctuated<syn::PathSegment, syn::Token![::]> =
                tp.segments.into_iter().collect();
            let tp = syn::Path {
                leading_colon: None,
                segments: segs,
            };
            if let (Some(t), Some(k)) = (half_path(&tp), konst) {
                let digits = match k.as_str() {
                    "ZERO" => "0.0",
                    "ONE" => "1.0",
                    _ => {
                        self.err(span, format!("`{t}::{k}` is not supported in kernels; the constants are `ZERO` and `ONE` (or `{t}::from_f32(..)`)"));
                        return Value::Error;
                    }
                };
                let lit = self.expr(
                    Expr::Literal(Literal::Float {
                        digits: digits.into(),
                        suffix: Some(Scalar::F32),
                    }),
                    span,
                );
                return Value::Expr(self.expr(Expr::Cast { expr: lit, to: t }, span));
            }
        }
        // `f32::INFINITY`, `std::f64::consts::PI`, ...
        if p.qself.is_none() {
            if let Some((t, c)) = float_const(&p.path) {
                let (v, negate) = match c {
                    FloatConst::Value(v) => (v, false),
                    FloatConst::Neg(v) => (v, true),
                };
                // The shortest text that parses back to the value in `t` (`inf`, `NaN` too).
                let digits = if t == Scalar::F32 {
                    format!("{:e}", v as f32)
                } else {
                    format!("{v:e}")
                };
                let lit = self.expr(
                    Expr::Literal(Literal::Float {
                        digits,
                        suffix: Some(t),
                    }),
                    span,
                );
                if !negate {
                    return Value::Expr(lit);
                }
                return Value::Expr(self.expr(
                    Expr::Unary {
                        op: UnaryOp::Neg,
                        expr: lit,
                    },
                    span,
                ));
            }
        }
        // `u32::MAX`, `i64::MIN`, ...
        if p.path.segments.len() == 2 && p.qself.is_none() {
            let ty = p.path.segments[0].ident.to_string();
            let cname = p.path.segments[1].ident.to_string();
            if let Some(t) = Scalar::from_rust_name(&ty).filter(|t| t.is_int()) {
                let v = match (cname.as_str(), t) {
                    ("MAX", _) => Some(int_max(t)),
                    ("MIN", _) => Some(int_min(t)),
                    ("BITS", _) => {
                        return Value::Expr(self.expr(
                            Expr::Literal(Literal::Int {
                                value: i128::from(t.bits()),
                                suffix: Some(Scalar::U32),
                            }),
                            span,
                        ))
                    }
                    _ => None,
                };
                if let Some(value) = v {
                    return Value::Expr(self.expr(
                        Expr::Literal(Literal::Int {
                            value,
                            suffix: Some(t),
                        }),
                        span,
                    ));
                }
            }
        }
        self.err(span, "paths are not supported in kernels except the constants of the scalar types (`u32::MAX`, `i64::BITS`, `f32::INFINITY`, `f64::EPSILON`, ...) and of `std::f32::consts`/`std::f64::consts`");
        Value::Error
    }

    pub(super) fn lower_field(&mut self, f: &syn::ExprField) -> Value {
        let span = f.src();
        let axis = match &f.member {
            syn::Member::Named(n) if n == "x" => Axis::X,
            syn::Member::Named(n) if n == "y" => Axis::Y,
            syn::Member::Named(n) if n == "z" => Axis::Z,
            _ => {
                self.err(
                    f.member.src(),
                    "only `.x`, `.y` and `.z` of an index builtin are supported in kernels",
                );
                return Value::Error;
            }
        };
        let builtin = match strip_parens(&f.base) {
            syn::Expr::Path(p)
                if matches!(
                    p.path.get_ident().and_then(|i| self.lookup(&i.to_string())),
                    Some(Binding::Dim3(_))
                ) =>
            {
                match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    Some(Binding::Dim3(b)) => b,
                    _ => return Value::Error,
                }
            }
            syn::Expr::Call(c) if c.args.is_empty() => match builtin_of(c) {
                Some(b @ BuiltinFn::Index(builtin)) if b.is_dim3() => builtin,
                _ => {
                    self.err(f.base.src(), "fields can only be read from `thread_idx()`, `block_idx()`, `block_dim()`, `grid_dim()` and `global_idx()`");
                    return Value::Error;
                }
            },
            other => {
                self.err(other.src(), "fields can only be read from `thread_idx()`, `block_idx()`, `block_dim()`, `grid_dim()` and `global_idx()`, or a name bound to one (`let g = global_idx();`)");
                return Value::Error;
            }
        };
        Value::Expr(self.expr(Expr::Builtin { builtin, axis }, span))
    }
}
