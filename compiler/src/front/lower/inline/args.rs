//! Arguments: each evaluated in the caller and bound to its parameter (a variable named
//! after it, the caller's array for slice parameters, the caller's variable or array element
//! for `&mut T`).

use super::*;
use crate::diag::Diagnostic;
use crate::front::lower::cx::*;
use crate::front::lower::syntax::*;
use crate::ir::*;

impl Lowerer<'_> {
    /// Evaluates one argument in the caller, as its parameter's type asks.
    pub(in crate::front::lower) fn helper_arg(
        &mut self,
        arg: &syn::Expr,
        pt: &syn::PatType,
        out: &mut Block,
    ) -> Arg {
        if let Some(v) = self.record_arg(arg, pt, out) {
            return v.map_or(Arg::Error, Arg::Record);
        }
        if let syn::Type::Array(_) = &*pt.ty {
            return self
                .array_value_arg(arg, pt, out)
                .map_or(Arg::Error, |a| Arg::Array(a, false));
        }
        match &*pt.ty {
            syn::Type::Reference(r) if array_type(&r.elem).is_some() => {
                let param = match &*pt.pat {
                    syn::Pat::Ident(pi) => pi.ident.to_string(),
                    _ => "slice".to_string(),
                };
                if let Some(sub) = self.try_sub_slice(arg, &param, out) {
                    return sub.map_or(Arg::Error, Arg::Sub);
                }
                let target = match strip_parens(arg) {
                    syn::Expr::Reference(ar) => strip_parens(&ar.expr),
                    other => other,
                };
                let name = match target {
                    syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                    _ => None,
                };
                match name.as_deref().and_then(|n| self.lookup(n)) {
                    Some(Binding::Array(a)) => Arg::Array(a, false),
                    Some(Binding::View(a)) => Arg::Array(a, true),
                    Some(Binding::Sub(b)) => Arg::Sub(b),
                    _ => {
                        self.err(arg.src(), "this parameter takes an array: pass a slice parameter, a shared array or a thread-local array by name");
                        Arg::Error
                    }
                }
            }
            syn::Type::Reference(r) if r.mutability.is_some() => {
                // `&mut a[i]`: the element, its indices held at once (Rust evaluates them
                // when it borrows).
                if let syn::Expr::Reference(ar) = strip_parens(arg) {
                    if ar.mutability.is_some()
                        && matches!(strip_parens(&ar.expr), syn::Expr::Index(_))
                    {
                        if let Some(why) = self.read_only(&ar.expr) {
                            self.err(
                                ar.expr.src(),
                                format!("cannot borrow this element as mutable: {why}"),
                            );
                            return Arg::Error;
                        }
                        return match self.lower_place(&ar.expr, out) {
                            Some(Place::Element { array, index }) => {
                                let name = match &*pt.pat {
                                    syn::Pat::Ident(pi) => format!("{}_index", pi.ident),
                                    _ => "index".to_string(),
                                };
                                let held = index
                                    .into_iter()
                                    .map(|e| self.hold(e, &name, ar.expr.src(), out))
                                    .collect();
                                self.borrows.push((array, held));
                                Arg::Elem(self.borrows.len() - 1)
                            }
                            _ => Arg::Error,
                        };
                    }
                }
                // `&mut 7`, `&mut (a + b)`: a temporary the helper may change, as in Rust.
                if let syn::Expr::Reference(ar) = strip_parens(arg) {
                    let place = matches!(
                        strip_parens(&ar.expr),
                        syn::Expr::Path(_) | syn::Expr::Index(_) | syn::Expr::Field(_)
                    );
                    if ar.mutability.is_some() && !place {
                        let Value::Expr(e) = self.lower_value(&ar.expr, out) else {
                            return Arg::Error;
                        };
                        let h = self.locals.append(
                            Local {
                                name: "temp".to_string(),
                                mutable: true,
                                annotated: None,
                                origin: LocalOrigin::Let,
                            },
                            ar.expr.src(),
                        );
                        self.let_inits.insert(h, e);
                        out.push(
                            Stmt::Let {
                                local: h,
                                init: Some(e),
                            },
                            arg.src(),
                        );
                        return Arg::Ref(h);
                    }
                }
                // A `&mut` element parameter passed on.
                if let syn::Expr::Path(p) = strip_parens(arg) {
                    if let Some(Binding::Elem(b)) =
                        p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
                    {
                        return Arg::Elem(b);
                    }
                }
                let target = match strip_parens(arg) {
                    syn::Expr::Reference(ar) if ar.mutability.is_some() => {
                        match strip_parens(&ar.expr) {
                            syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
                            _ => None,
                        }
                    }
                    // A `&mut` parameter passed on.
                    syn::Expr::Path(p) => p
                        .path
                        .get_ident()
                        .filter(|i| matches!(self.lookup(&i.to_string()), Some(Binding::Ref(_))))
                        .map(|i| i.to_string()),
                    _ => None,
                };
                match target.as_deref().and_then(|n| self.lookup(n)) {
                    Some(Binding::Local(l)) if self.locals.get(l).mutable => Arg::Ref(l),
                    Some(Binding::Ref(l)) => Arg::Ref(l),
                    Some(Binding::Local(l)) => {
                        let name = self.locals.get(l).name.clone();
                        self.cx.push(
                            Diagnostic::new(
                                arg.src(),
                                format!(
                                    "cannot borrow `{name}` as mutable: it is not declared `mut`"
                                ),
                            )
                            .label(self.locals.span(l), format!("`{name}` is declared here"))
                            .note(format!("declare it `let mut {name}`")),
                        );
                        Arg::Error
                    }
                    _ => {
                        self.err(arg.src(), "this parameter is `&mut T`: pass `&mut x` where `x` is a `let mut` variable");
                        Arg::Error
                    }
                }
            }
            _ => {
                let value = match strip_parens(arg) {
                    syn::Expr::Reference(ar) if ar.mutability.is_none() => &*ar.expr,
                    other => other,
                };
                let Value::Expr(e) = self.lower_value(value, out) else {
                    return Arg::Error;
                };
                // An immutable variable passed to an immutable parameter is used as it is
                // (when its type is the parameter's; `bind_param` checks).
                let param_mut = matches!(&*pt.pat, syn::Pat::Ident(pi) if pi.mutability.is_some());
                if let Expr::Local(l) = self.exprs.get(e) {
                    if !param_mut && !self.locals.get(*l).mutable {
                        return Arg::Alias(e, *l);
                    }
                }
                // Held at once, so that later arguments cannot change it (Rust's order).
                let (name, mutable) = match &*pt.pat {
                    syn::Pat::Ident(pi) => (pi.ident.to_string(), pi.mutability.is_some()),
                    _ => ("arg".to_string(), false),
                };
                let h = self.locals.append(
                    Local {
                        name,
                        mutable,
                        annotated: None,
                        origin: LocalOrigin::Let,
                    },
                    pt.pat.src(),
                );
                self.let_inits.insert(h, e);
                out.push(
                    Stmt::Let {
                        local: h,
                        init: Some(e),
                    },
                    arg.src(),
                );
                Arg::Value(e, h)
            }
        }
    }

    /// Why the array `a[i]` indexes cannot be written, if it cannot.
    fn read_only(&self, e: &syn::Expr) -> Option<String> {
        let name = index_base(e)?;
        let a = match self.lookup(&name)? {
            Binding::View(_) => return Some(format!("`{name}` is a read-only `&[T]` parameter")),
            Binding::Sub(b) if !self.subs[b].writable => {
                return Some(format!("`{name}` is a read-only sub-slice"))
            }
            Binding::Array(a) => self.arrays.get(a),
            _ => return None,
        };
        match a.kind {
            ArrayKind::Global { mutable: false } => {
                Some(format!("`{name}` is a `&[{}]`, which is read-only", a.elem))
            }
            ArrayKind::Local { mutable: false, .. } => {
                Some(format!("`{name}` is not declared `mut`"))
            }
            _ => None,
        }
    }

    /// `e` in a variable of its own, unless it is an immutable variable already: an index of
    /// a borrowed element, fixed when the element is borrowed.
    pub(in crate::front::lower) fn hold(
        &mut self,
        e: Handle<Expr>,
        name: &str,
        span: Span,
        out: &mut Block,
    ) -> Handle<Local> {
        if let Expr::Local(l) = self.exprs.get(e) {
            if !self.locals.get(*l).mutable {
                return *l;
            }
        }
        let h = self.locals.append(
            Local {
                name: name.to_string(),
                mutable: false,
                annotated: None,
                origin: LocalOrigin::Let,
            },
            span,
        );
        self.let_inits.insert(h, e);
        out.push(
            Stmt::Let {
                local: h,
                init: Some(e),
            },
            span,
        );
        h
    }

    /// The indices of a borrowed element (`*p` of a `&mut a[i]` parameter), read from the
    /// variables that hold them.
    pub(in crate::front::lower) fn borrowed(
        &mut self,
        b: usize,
        span: Span,
    ) -> (Handle<Array>, Vec<Handle<Expr>>) {
        let (array, held) = self.borrows[b].clone();
        let index = held
            .iter()
            .map(|l| self.expr(Expr::Local(*l), span))
            .collect();
        (array, index)
    }

    /// Checks that the parameter's element type `elem_ty` is array `a`'s.
    pub(in crate::front::lower) fn same_elem(
        &mut self,
        elem_ty: &syn::Type,
        a: Handle<Array>,
        name: &str,
        syn_arg: &syn::Expr,
    ) -> Option<()> {
        let Some(elem) = type_to_scalar(elem_ty) else {
            self.cx.push(unsupported_type(elem_ty));
            return None;
        };
        let arr = self.arrays.get(a);
        if elem != arr.elem {
            let msg = format!(
                "`{}` holds `{}`, but the parameter `{name}` holds `{elem}`",
                arr.name, arr.elem
            );
            self.err(syn_arg.src(), msg);
            return None;
        }
        Some(())
    }

    /// Binds parameter `pt` to its evaluated argument; returns the name and the binding.
    pub(in crate::front::lower) fn bind_param(
        &mut self,
        arg: &Arg,
        pt: &syn::PatType,
        syn_arg: &syn::Expr,
        out: &mut Block,
    ) -> Option<(String, Binding)> {
        let syn::Pat::Ident(pi) = &*pt.pat else {
            return None;
        };
        let name = pi.ident.to_string();
        match (arg, &*pt.ty) {
            // A `[T; N]` parameter: the copy made for it.
            (Arg::Array(a, _), syn::Type::Array(_)) => Some((name, Binding::Array(*a))),
            (Arg::Array(a, is_view), syn::Type::Reference(r)) => {
                let (elem_ty, dims) = array_type(&r.elem)?;
                let arr = self.arrays.get(*a).clone();
                self.same_elem(elem_ty, *a, &name, syn_arg)?;
                let adims = match &arr.kind {
                    ArrayKind::Shared { dynamic: true, .. } => None,
                    ArrayKind::Shared { dims, .. } | ArrayKind::Local { dims, .. } => {
                        Some(dims.clone())
                    }
                    ArrayKind::Global { .. } => None,
                };
                if dims.is_empty() {
                    if adims.as_ref().is_some_and(|d| d.len() != 1) {
                        self.err(
                            syn_arg.src(),
                            format!(
                                "`{}` has two dimensions; the parameter `{name}` is a slice",
                                arr.name
                            ),
                        );
                        return None;
                    }
                } else {
                    let mut want = Vec::new();
                    for d in &dims {
                        want.push(self.const_len(d)?);
                    }
                    if adims.as_ref() != Some(&want) {
                        let shape = match &adims {
                            Some(d) => format!("{d:?}"),
                            None => "a slice of any length".to_string(),
                        };
                        self.err(
                            syn_arg.src(),
                            format!("`{}` is {shape}, but the parameter `{name}` is an array of dimensions {want:?}", arr.name),
                        );
                        return None;
                    }
                }
                let writable = !is_view
                    && !matches!(
                        arr.kind,
                        ArrayKind::Global { mutable: false }
                            | ArrayKind::Local { mutable: false, .. }
                    );
                if r.mutability.is_some() && !writable {
                    self.cx.push(
                        Diagnostic::new(
                            syn_arg.src(),
                            format!(
                                "`{}` is read-only, but the parameter `{name}` is `&mut`",
                                arr.name
                            ),
                        )
                        .label(
                            self.arrays.span(*a),
                            format!("`{}` is declared here", arr.name),
                        ),
                    );
                    return None;
                }
                let b = if r.mutability.is_none() && writable {
                    Binding::View(*a)
                } else {
                    Binding::Array(*a)
                };
                Some((name, b))
            }
            (Arg::Sub(b), syn::Type::Reference(r)) => {
                let s = self.subs[*b];
                let (elem_ty, dims) = array_type(&r.elem)?;
                let arr = self.arrays.get(s.array);
                if !dims.is_empty() {
                    self.err(
                        syn_arg.src(),
                        format!("this is a sub-slice of `{}`, but the parameter `{name}` is an array of fixed size; make it a slice `&[T]`", arr.name),
                    );
                    return None;
                }
                self.same_elem(elem_ty, s.array, &name, syn_arg)?;
                let want_mut = r.mutability.is_some();
                if want_mut && !s.writable {
                    self.err(
                        syn_arg.src(),
                        format!(
                            "this sub-slice is read-only, but the parameter `{name}` is `&mut`"
                        ),
                    );
                    return None;
                }
                if s.writable && !want_mut {
                    self.subs.push(SubSlice {
                        writable: false,
                        ..s
                    });
                    return Some((name, Binding::Sub(self.subs.len() - 1)));
                }
                Some((name, Binding::Sub(*b)))
            }
            (Arg::Ref(l), _) => Some((name, Binding::Ref(*l))),
            (Arg::Record(v), _) => Some((name, Binding::Record(*v))),
            (Arg::Elem(b), syn::Type::Reference(r)) => {
                let a = &self.borrows[*b].0;
                let Some(t) = type_to_scalar(&r.elem) else {
                    self.cx.push(unsupported_type(&r.elem));
                    return None;
                };
                let arr = self.arrays.get(*a);
                if t != arr.elem {
                    self.err(
                        syn_arg.src(),
                        format!(
                            "`{}` holds `{}`, but the parameter `{name}` is a `&mut {t}`",
                            arr.name, arr.elem
                        ),
                    );
                    return None;
                }
                Some((name, Binding::Elem(*b)))
            }
            (Arg::Alias(e, l), ty) => {
                let inner = match ty {
                    syn::Type::Reference(r) => &*r.elem,
                    other => other,
                };
                let Some(t) = type_to_scalar(inner) else {
                    self.cx.push(unsupported_type(inner));
                    return None;
                };
                if self.guess_local(*l, 0) == Some(t) {
                    return Some((name, Binding::Local(*l)));
                }
                // Another type: a variable of the parameter's type, so that inference
                // reports the mismatch as Rust would.
                let h = self.locals.append(
                    Local {
                        name: name.clone(),
                        mutable: false,
                        annotated: Some(t),
                        origin: LocalOrigin::Let,
                    },
                    pt.pat.src(),
                );
                out.push(
                    Stmt::Let {
                        local: h,
                        init: Some(*e),
                    },
                    syn_arg.src(),
                );
                Some((name, Binding::Local(h)))
            }
            (Arg::Value(_, h), ty) => {
                let inner = match ty {
                    syn::Type::Reference(r) => &*r.elem,
                    other => other,
                };
                let Some(t) = type_to_scalar(inner) else {
                    self.cx.push(unsupported_type(inner));
                    return None;
                };
                self.locals.get_mut(*h).annotated = Some(t);
                Some((name, Binding::Local(*h)))
            }
            _ => None,
        }
    }
}
