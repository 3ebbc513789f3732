//! `let` statements: scalars, tuples (`let (a, b) = ..`, deferred `let (a, b);`), discards
//! (`let _ = ..`), thread-local, shared and aliased arrays, index builtins, sub-slices and
//! structs (which `structs` lowers).

use super::cx::*;
use super::option_methods::overflowing_op;
use super::syntax::*;
use crate::front::builtins::BuiltinFn;
use crate::ir::*;

impl Lowerer<'_> {
    pub(super) fn lower_let(&mut self, local: &syn::Local, out: &mut Block) {
        let span = local.src();
        // `let _ = e;` evaluates `e` and drops it.
        if let (syn::Pat::Wild(_), Some(init)) = (&local.pat, &local.init) {
            self.discard(&init.expr, span, out);
            return;
        }
        // `let Some(x) = o else { return; };`
        if let Some((init, Some((_, diverge)))) = local.init.as_ref().map(|i| (i, &i.diverge)) {
            if self.try_option_let_else(&local.pat, &init.expr, diverge, out) {
                return;
            }
        }
        // `let (a, mut b) = (x, y);` and `let (a, b): (u32, f32) = (x, y);`
        let tuple = match &local.pat {
            syn::Pat::Tuple(t) => Some((t, None)),
            syn::Pat::Type(pt) => match (&*pt.pat, &*pt.ty) {
                (syn::Pat::Tuple(t), ty) => Some((t, Some(ty))),
                _ => None,
            },
            _ => None,
        };
        if let Some((pat, ty)) = tuple {
            self.lower_tuple_let(local, pat, ty, out);
            return;
        }
        let (ident, mutable, annotated_ty) = match &local.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                (pi.ident.clone(), pi.mutability.is_some(), None)
            }
            syn::Pat::Type(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    (pi.ident.clone(), pi.mutability.is_some(), Some(&*pt.ty))
                }
                other => {
                    self.err(
                        other.src(),
                        "only `let name` and `let mut name` bindings are supported in kernels",
                    );
                    return;
                }
            },
            other => {
                self.err(
                    other.src(),
                    "only `let name` and `let mut name` bindings are supported in kernels",
                );
                return;
            }
        };
        let name = ident.to_string();
        // Options and structs (not with `else`: a plain name always matches).
        if local.init.as_ref().is_none_or(|i| i.diverge.is_none()) {
            let init = local.init.as_ref().map(|i| &*i.expr);
            if self.try_option_let(&ident, mutable, annotated_ty, init, out, span)
                || self.try_record_let(&ident, mutable, annotated_ty, init, span, out)
            {
                return;
            }
        }
        if let Some(init) = &local.init {
            if let Some((_, diverge)) = &init.diverge {
                self.err(diverge.src(), "`let ... else` is not supported in kernels");
                return;
            }
            if let Some(alias) = self.shared_alias(&init.expr) {
                if mutable {
                    self.err(ident.src(), "a second name of a shared array must not be `mut`: it always names the same array; its elements are assignable as they are");
                }
                if let Some(ty) = annotated_ty {
                    self.err(
                        ty.src(),
                        "leave out the type: a second name of a shared array has the array's type",
                    );
                }
                self.bind(name, alias);
                return;
            }
            if self.try_record_shared(&name, &init.expr, span).is_some() {
                if mutable {
                    self.err(ident.src(), "a shared array binding must not be `mut`; its elements are assignable as they are");
                }
                return;
            }
            if let Some(shared) = self.try_shared_decl(&init.expr) {
                if mutable {
                    self.err(ident.src(), "a shared array binding must not be `mut`; its elements are assignable as they are");
                }
                if let Some(ty) = annotated_ty {
                    self.err(
                        ty.src(),
                        "leave out the type: `shared::<[T; N]>()` names it",
                    );
                }
                let Some((elem, dims)) = shared else {
                    self.bind(name, Binding::Poisoned);
                    return;
                };
                {
                    let len_param = self.pending_len_param.take();
                    let array = self.arrays.append(
                        Array {
                            field: None,
                            name: name.clone(),
                            elem,
                            kind: ArrayKind::Shared {
                                dynamic: dims.is_empty(),
                                dims: if dims.is_empty() { vec![0] } else { dims },
                                len_param,
                            },
                        },
                        span,
                    );
                    self.bind(name, Binding::Array(array));
                }
                return;
            }
        }
        if let Some(init) = &local.init {
            // `let g = global_idx();`: a name for the builtin.
            if let syn::Expr::Call(c) = strip_parens(&init.expr) {
                if let Some(b @ BuiltinFn::Index(builtin)) = builtin_of(c) {
                    if b.is_dim3() && c.args.is_empty() {
                        if mutable {
                            self.err(ident.src(), format!("`{name}` names a thread's index, which does not change; bind it without `mut`"));
                        }
                        if let Some(ty) = annotated_ty {
                            self.err(
                                ty.src(),
                                "leave out the type: the binding is the builtin's `Dim3`",
                            );
                        }
                        self.bind(name, Binding::Dim3(builtin));
                        return;
                    }
                }
            }
            // `let row = &inp[i * c..];`: a sub-slice.
            if let Some(sub) = self.try_sub_slice(&init.expr, &name, out) {
                if let Some(ty) = annotated_ty {
                    self.err(ty.src(), "leave out the type of a sub-slice binding");
                }
                let b = sub.map_or(Binding::Poisoned, Binding::Sub);
                self.bind(name, b);
                return;
            }
            if let syn::Expr::Closure(cl) = strip_parens(&init.expr) {
                if let Some(ty) = annotated_ty {
                    self.err(ty.src(), "leave out the type of a closure binding");
                }
                let idx = self.closures.len();
                self.closures.push(ClosureDef {
                    expr: cl.clone(),
                    scopes: self.scopes.clone(),
                });
                self.bind(name, Binding::Closure(idx));
                return;
            }
            if self.try_row_let(&ident, mutable, annotated_ty, &init.expr, out)
                || self.try_array_field_let(&ident, mutable, annotated_ty, &init.expr, out)
            {
                return;
            }
            // `let b = a;` of a thread-local array: a copy.
            if let Some(a) = self.local_array_named(&init.expr) {
                if let Some(ty) = annotated_ty {
                    self.err(
                        ty.src(),
                        "leave out the type of an array copy: it is the array's",
                    );
                }
                let copy = self.copy_local_array(a, &name, ident.src(), mutable, span, out);
                self.bind(name, Binding::Array(copy));
                return;
            }
            if let syn::Expr::Array(list) = strip_parens(&init.expr) {
                let before = self.arrays.len();
                self.lower_array_literal(
                    &name,
                    ident.src(),
                    mutable,
                    annotated_ty,
                    list,
                    out,
                    span,
                );
                if self.arrays.len() == before {
                    self.bind(name, Binding::Poisoned);
                }
                return;
            }
            if let syn::Expr::Repeat(rep) = strip_parens(&init.expr) {
                let before = self.arrays.len();
                self.lower_local_array(&name, ident.src(), mutable, annotated_ty, rep, out, span);
                if self.arrays.len() == before {
                    // Reported: later uses of the name add nothing.
                    self.bind(name, Binding::Poisoned);
                }
                return;
            }
        }
        let annotated = match annotated_ty {
            Some(ty) => match type_to_scalar(ty) {
                Some(t) => Some(t),
                None => {
                    self.cx.push(unsupported_type(ty));
                    return;
                }
            },
            None => None,
        };
        // A helper call's result is an array (bound here) or a scalar (the value below).
        let lowered = match local.init.as_ref().map(|i| strip_parens(&i.expr)) {
            Some(syn::Expr::Call(c)) if is_helper_call(c) => {
                match self.try_array_call_let(c, &name, mutable, out, span) {
                    Ok(()) => return,
                    Err(v) => Some(v),
                }
            }
            _ => None,
        };
        let init = match &local.init {
            Some(init) => match lowered.unwrap_or_else(|| self.lower_value(&init.expr, out)) {
                Value::Expr(e) => Some(e),
                Value::Diverges => return,
                Value::Error => {
                    // Bind the name anyway so that later uses do not report spurious errors.
                    self.bind(name, Binding::Poisoned);
                    return;
                }
            },
            None => None,
        };
        // `let x = <value lowering left in a temporary>`: the temporary becomes `x` (one
        // variable in the output, named as the source names it).
        if let Some(Expr::Local(t)) = init.map(|e| self.exprs.get(e).clone()) {
            let tl = self.locals.get(t);
            let fits = match (annotated, tl.annotated) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            };
            if !mutable && tl.origin == LocalOrigin::Temp && fits {
                let tl = self.locals.get_mut(t);
                tl.name = name.clone();
                if annotated.is_some() {
                    tl.annotated = annotated;
                }
                self.bind(name, Binding::Local(t));
                return;
            }
        }
        let h = self.locals.append(
            Local {
                name: name.clone(),
                mutable,
                annotated,
                origin: LocalOrigin::Let,
            },
            ident.src(),
        );
        if let Some(i) = init {
            self.let_inits.insert(h, i);
        }
        out.push(Stmt::Let { local: h, init }, span);
        self.bind(name, Binding::Local(h));
    }

    /// `let storage = shared;` where `shared` names a shared array: the binding to give the
    /// second name (the same array, as the C original's `float* storage = shared;`).
    fn shared_alias(&self, e: &syn::Expr) -> Option<Binding> {
        let syn::Expr::Path(p) = strip_parens(e) else {
            return None;
        };
        if p.qself.is_some() {
            return None;
        }
        let b = self.lookup(&p.path.get_ident()?.to_string())?;
        match b {
            Binding::Array(a) | Binding::View(a)
                if matches!(self.arrays.get(a).kind, ArrayKind::Shared { .. }) =>
            {
                Some(b)
            }
            _ => None,
        }
    }

    /// The value of `let _ = e;`: evaluated and dropped. A tuple `(a, b)` is its elements, left
    /// to right, each dropped as `let _ = a; let _ = b;` would drop it. `false` when control
    /// does not come back (the rest is not lowered).
    fn discard(&mut self, e: &syn::Expr, span: Span, out: &mut Block) -> bool {
        let value = match strip_parens(e) {
            syn::Expr::Tuple(t) => {
                return t
                    .elems
                    .iter()
                    .all(|elem| self.discard(elem, elem.src(), out));
            }
            // A helper call or an atomic whose result is dropped is the call as a statement
            // (no variable that is set and never read, which NVRTC warns about).
            syn::Expr::Call(c) if is_helper_call(c) => self.lower_call(c, out, span, false),
            syn::Expr::MethodCall(m) if AtomicOp::from_method(&m.method.to_string()).is_some() => {
                self.lower_atomic(m, out, false)
            }
            other => match self.lower_value(other, out) {
                Value::Expr(v) => {
                    out.push(Stmt::Eval(v), span);
                    Value::Expr(v)
                }
                v => v,
            },
        };
        !matches!(value, Value::Diverges)
    }

    /// `let (a, mut b, _) = (x, y, z);`: the values are evaluated left to right, then the
    /// names are bound (so `let (a, b) = (b, a);` swaps, as in Rust). Each element is a name,
    /// `mut name` or `_`; the value is a tuple expression of as many scalars.
    fn lower_tuple_let(
        &mut self,
        local: &syn::Local,
        pat: &syn::PatTuple,
        ty: Option<&syn::Type>,
        out: &mut Block,
    ) {
        let names: Vec<Option<(syn::Ident, bool)>> = pat
            .elems
            .iter()
            .map(|p| match p {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    Some(Some((pi.ident.clone(), pi.mutability.is_some())))
                }
                syn::Pat::Wild(_) => Some(None),
                _ => None,
            })
            .collect::<Option<_>>()
            .unwrap_or_else(|| {
                self.err(
                    pat.src(),
                    "the elements of a tuple `let` are names, `mut` names or `_`: `let (a, mut b) = (x, y);`",
                );
                // Reported: later uses of the names add nothing.
                for elem in &pat.elems {
                    self.poison_names(elem);
                }
                Vec::new()
            });
        let types: Vec<Option<Scalar>> = match ty {
            None => vec![None; names.len()],
            Some(syn::Type::Tuple(t)) if t.elems.len() == names.len() => {
                let mut v = Vec::new();
                for ty in &t.elems {
                    match type_to_scalar(ty) {
                        Some(s) => v.push(Some(s)),
                        None => {
                            self.cx.push(unsupported_type(ty));
                            v.push(None);
                        }
                    }
                }
                v
            }
            Some(other) => {
                self.err(
                    other.src(),
                    format!(
                        "the type of a tuple `let` is a tuple of {} scalar types",
                        names.len()
                    ),
                );
                for (name, _) in names.iter().flatten() {
                    self.bind(name.to_string(), Binding::Poisoned);
                }
                return;
            }
        };
        let Some(init) = &local.init else {
            self.deferred_tuple_let(&names, types, out);
            return;
        };
        if let Some((_, diverge)) = &init.diverge {
            self.err(diverge.src(), "`let ... else` is not supported in kernels");
            return;
        }
        // `let (v, overflowed) = a.overflowing_add(b);`: the pair, evaluated here.
        let (sources, pair): (Vec<&syn::Expr>, Option<[Handle<Expr>; 2]>) =
            match strip_parens(&init.expr) {
                syn::Expr::MethodCall(m) if overflowing_op(m).is_some() => {
                    match self.lower_overflowing(m, out) {
                        Some(pair) => (vec![&*init.expr, &*init.expr], Some(pair)),
                        None => {
                            for (name, _) in names.iter().flatten() {
                                self.bind(name.to_string(), Binding::Poisoned);
                            }
                            return;
                        }
                    }
                }
                syn::Expr::Tuple(t) => (t.elems.iter().collect(), None),
                _ => {
                    self.err(
                        init.expr.src(),
                        "a tuple `let` takes a tuple of values: `let (a, b) = (x, y);`",
                    );
                    for (name, _) in names.iter().flatten() {
                        self.bind(name.to_string(), Binding::Poisoned);
                    }
                    return;
                }
            };
        if names.is_empty() {
            return;
        }
        if sources.len() != names.len() {
            self.err(
                init.expr.src(),
                format!(
                    "this tuple has {} values for {} names",
                    sources.len(),
                    names.len()
                ),
            );
            for (name, _) in names.iter().flatten() {
                self.bind(name.to_string(), Binding::Poisoned);
            }
            return;
        }
        let mut bound: Vec<(String, Binding)> = Vec::new();
        for (i, ((name, annotated), value)) in names.iter().zip(types).zip(sources).enumerate() {
            let v = match pair {
                Some(p) => Some(p[i]),
                None => match self.lower_value(value, out) {
                    Value::Expr(e) => Some(e),
                    Value::Diverges => return,
                    Value::Error => None,
                },
            };
            let Some((ident, mutable)) = name else {
                // `_` drops the value; only an expression that can fault needs evaluating.
                if let Some(v) =
                    v.filter(|v| !matches!(self.exprs.get(*v), Expr::Literal(_) | Expr::Local(_)))
                {
                    out.push(Stmt::Eval(v), value.src());
                }
                continue;
            };
            let key = ident.to_string();
            if bound.iter().any(|(n, _)| *n == key) {
                self.err(
                    ident.src(),
                    format!("identifier `{key}` is bound more than once in this pattern"),
                );
                continue;
            }
            let Some(v) = v else {
                bound.push((key, Binding::Poisoned));
                continue;
            };
            let h = self.locals.append(
                Local {
                    name: key.clone(),
                    mutable: *mutable,
                    annotated,
                    origin: LocalOrigin::Let,
                },
                ident.src(),
            );
            self.let_inits.insert(h, v);
            out.push(
                Stmt::Let {
                    local: h,
                    init: Some(v),
                },
                value.src(),
            );
            bound.push((key, Binding::Local(h)));
        }
        // The names come into scope after every value is evaluated.
        for (name, b) in bound {
            self.bind(name, b);
        }
    }

    /// Binds every name in a pattern that was reported as unsupported, so that its uses report
    /// nothing more.
    fn poison_names(&mut self, pat: &syn::Pat) {
        match pat {
            syn::Pat::Ident(pi) => {
                self.bind(pi.ident.to_string(), Binding::Poisoned);
                if let Some((_, sub)) = &pi.subpat {
                    self.poison_names(sub);
                }
            }
            syn::Pat::Tuple(t) => t.elems.iter().for_each(|p| self.poison_names(p)),
            syn::Pat::Paren(p) => self.poison_names(&p.pat),
            syn::Pat::Type(t) => self.poison_names(&t.pat),
            syn::Pat::Reference(r) => self.poison_names(&r.pat),
            syn::Pat::Slice(s) => s.elems.iter().for_each(|p| self.poison_names(p)),
            syn::Pat::TupleStruct(t) => t.elems.iter().for_each(|p| self.poison_names(p)),
            _ => {}
        }
    }

    /// `let (a, mut b, _);` (or `let (a, b): (f32, u32);`): each name is a `let` without a
    /// value, as `let a; let mut b;` would be, assigned later on each path (rustc checks the
    /// simulator's code for definite initialisation). `_` binds nothing.
    fn deferred_tuple_let(
        &mut self,
        names: &[Option<(syn::Ident, bool)>],
        types: Vec<Option<Scalar>>,
        out: &mut Block,
    ) {
        let mut seen: Vec<String> = Vec::new();
        for (name, annotated) in names.iter().zip(types) {
            let Some((ident, mutable)) = name else {
                continue;
            };
            let key = ident.to_string();
            if seen.contains(&key) {
                self.err(
                    ident.src(),
                    format!("identifier `{key}` is bound more than once in this pattern"),
                );
                continue;
            }
            seen.push(key.clone());
            let h = self.locals.append(
                Local {
                    name: key.clone(),
                    mutable: *mutable,
                    annotated,
                    origin: LocalOrigin::Let,
                },
                ident.src(),
            );
            out.push(
                Stmt::Let {
                    local: h,
                    init: None,
                },
                ident.src(),
            );
            self.bind(key, Binding::Local(h));
        }
    }
}
