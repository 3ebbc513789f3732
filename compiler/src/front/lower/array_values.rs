//! Arrays as values: `let b = a;` and `b = a;` of thread-local arrays copy every element
//! (arrays live in registers: at most [`LOCAL_ARRAY_LIMIT`] elements), a helper's `[T; N]` parameter gets a
//! copy, and `for v in a` (also `&a`, `a.iter()`, `.iter().enumerate()`) loops over the
//! elements of a one-dimensional array, slice or shared array, binding a copy of each.

use super::cx::*;
use super::syntax::*;
use crate::diag::Diagnostic;
use crate::ir::*;
use std::collections::HashMap;

impl Lowerer<'_> {
    /// The array (of any kind) `e` names, where it is a bare name of one.
    pub(super) fn array_named(&self, e: &syn::Expr) -> Option<Handle<Array>> {
        let syn::Expr::Path(p) = strip_parens(e) else {
            return None;
        };
        match self.lookup(&p.path.get_ident()?.to_string())? {
            Binding::Array(a) | Binding::View(a) => Some(a),
            _ => None,
        }
    }

    /// The thread-local array `e` names, where it is a bare name of one.
    pub(super) fn local_array_named(&self, e: &syn::Expr) -> Option<Handle<Array>> {
        self.array_named(e)
            .filter(|a| matches!(self.arrays.get(*a).kind, ArrayKind::Local { .. }))
    }

    /// A new thread-local array of `from`'s type, named `name`, holding a copy of it.
    pub(super) fn copy_local_array(
        &mut self,
        from: Handle<Array>,
        name: &str,
        name_span: Span,
        mutable: bool,
        span: Span,
        out: &mut Block,
    ) -> Handle<Array> {
        let src = self.arrays.get(from).clone();
        let dims = match &src.kind {
            ArrayKind::Local { dims, .. } => dims.clone(),
            _ => Vec::new(),
        };
        let to = self.arrays.append(
            Array {
                field: None,
                name: name.to_string(),
                elem: src.elem,
                kind: ArrayKind::Local {
                    dims: dims.clone(),
                    mutable,
                },
            },
            name_span,
        );
        self.copy_elements(from, to, &dims, span, out);
        to
    }

    /// `to[..] = from[..]`, one store per element, in order.
    fn copy_elements(
        &mut self,
        from: Handle<Array>,
        to: Handle<Array>,
        dims: &[u64],
        span: Span,
        out: &mut Block,
    ) {
        let rows = if dims.len() == 2 { dims[0] } else { 1 };
        let cols = dims.last().copied().unwrap_or(0);
        for r in 0..rows {
            for c in 0..cols {
                let at: Vec<u64> = if dims.len() == 2 { vec![r, c] } else { vec![c] };
                let index = |this: &mut Self| -> Vec<Handle<Expr>> {
                    at.iter()
                        .map(|i| {
                            this.expr(
                                Expr::Literal(Literal::Int {
                                    value: i128::from(*i),
                                    suffix: None,
                                }),
                                span,
                            )
                        })
                        .collect()
                };
                let read = index(self);
                let value = self.expr(
                    Expr::Load {
                        array: from,
                        index: read,
                    },
                    span,
                );
                let write = index(self);
                out.push(
                    Stmt::Assign {
                        place: Place::Element {
                            array: to,
                            index: write,
                        },
                        op: None,
                        value,
                    },
                    span,
                );
            }
        }
    }

    /// The argument of a helper's `[T; N]` parameter: a copy of the caller's thread-local
    /// array, or the array an array literal makes, which the helper may change where the
    /// parameter is `mut` (the caller's array never changes, as in Rust).
    pub(super) fn array_value_arg(
        &mut self,
        arg: &syn::Expr,
        pt: &syn::PatType,
        out: &mut Block,
    ) -> Option<Handle<Array>> {
        let (pname, mutable) = match &*pt.pat {
            syn::Pat::Ident(pi) => (pi.ident.to_string(), pi.mutability.is_some()),
            _ => ("array".to_string(), false),
        };
        let from = match strip_parens(arg) {
            // A literal makes the parameter's array itself (its name is bound in the
            // helper's scope only, by the caller of this).
            literal @ (syn::Expr::Array(_) | syn::Expr::Repeat(_)) => {
                let before = self.arrays.len();
                let shadowed = self.scopes.last().and_then(|s| s.get(&pname).copied());
                match literal {
                    syn::Expr::Array(list) => self.lower_array_literal(
                        &pname,
                        arg.src(),
                        mutable,
                        Some(&pt.ty),
                        list,
                        out,
                        arg.src(),
                    ),
                    syn::Expr::Repeat(rep) => self.lower_local_array(
                        &pname,
                        arg.src(),
                        mutable,
                        Some(&pt.ty),
                        rep,
                        out,
                        arg.src(),
                    ),
                    _ => {}
                }
                if let Some(scope) = self.scopes.last_mut() {
                    match shadowed {
                        Some(b) => scope.insert(pname.clone(), b),
                        None => scope.remove(&pname),
                    };
                }
                return if self.arrays.len() > before {
                    self.arrays.iter().last().map(|(h, _)| h)
                } else {
                    None
                };
            }
            other => match self.local_array_named(other) {
                Some(a) => a,
                None => {
                    self.err(
                        arg.src(),
                        format!("the parameter `{pname}` takes an array by value: pass a thread-local array by name, or an array literal"),
                    );
                    return None;
                }
            },
        };
        let (elem_ty, dims) = super::inline::array_type(&pt.ty)?;
        self.same_elem(elem_ty, from, &pname, arg)?;
        let mut want = Vec::new();
        for d in &dims {
            want.push(self.const_len(d)?);
        }
        let have = match &self.arrays.get(from).kind {
            ArrayKind::Local { dims, .. } => dims.clone(),
            _ => Vec::new(),
        };
        if have != want {
            self.err(
                arg.src(),
                format!(
                    "`{}` is {have:?}, but the parameter `{pname}` is an array of dimensions {want:?}",
                    self.arrays.get(from).name
                ),
            );
            return None;
        }
        Some(self.copy_local_array(from, &pname, arg.src(), mutable, arg.src(), out))
    }

    /// The array a helper returning `ty` (`[T; N]` or `[[T; W]; H]`) leaves its result in.
    pub(super) fn array_result(&mut self, helper: &str, ty: &syn::Type) -> Option<Handle<Array>> {
        let (elem_ty, lens) = super::inline::array_type(ty)?;
        let Some(elem) = type_to_scalar(elem_ty) else {
            self.cx.push(unsupported_type(elem_ty));
            return None;
        };
        let mut dims = Vec::new();
        for l in &lens {
            dims.push(self.const_len(l)?);
        }
        let total: u64 = dims.iter().product();
        if dims.len() > 2 || total > LOCAL_ARRAY_LIMIT {
            self.err(
                ty.src(),
                format!("a thread-local array has one or two dimensions and 1 to {LOCAL_ARRAY_LIMIT} elements (it lives in registers)"),
            );
            return None;
        }
        Some(self.arrays.append(
            Array {
                field: None,
                name: helper.to_string(),
                elem,
                kind: ArrayKind::Local {
                    dims,
                    mutable: true,
                },
            },
            ty.src(),
        ))
    }

    /// `result = e;` of a helper's array result (its tail, or a `return e;`): `e` is a
    /// thread-local array by name, an array literal or a call of a helper returning one.
    pub(super) fn assign_array_result(
        &mut self,
        result: Handle<Array>,
        helper: &str,
        e: &syn::Expr,
        out: &mut Block,
    ) {
        let span = e.src();
        let from = match strip_parens(e) {
            literal @ (syn::Expr::Array(_) | syn::Expr::Repeat(_)) => {
                let name = format!("{helper}_value");
                let before = self.arrays.len();
                let shadowed = self.scopes.last().and_then(|s| s.get(&name).copied());
                let elem_ty =
                    syn::parse_str::<syn::Type>(self.arrays.get(result).elem.rust_name()).ok();
                let dims = match &self.arrays.get(result).kind {
                    ArrayKind::Local { dims, .. } => dims.clone(),
                    _ => Vec::new(),
                };
                // The annotation gives the literal the result's element type.
                let annotated = elem_ty.map(|t| {
                    dims.iter().rev().fold(t, |inner, n| {
                        let n = proc_macro2::Literal::u64_unsuffixed(*n);
                        syn::parse_quote!([#inner; #n])
                    })
                });
                match literal {
                    syn::Expr::Array(list) => self.lower_array_literal(
                        &name,
                        span,
                        false,
                        annotated.as_ref(),
                        list,
                        out,
                        span,
                    ),
                    syn::Expr::Repeat(rep) => self.lower_local_array(
                        &name,
                        span,
                        false,
                        annotated.as_ref(),
                        rep,
                        out,
                        span,
                    ),
                    _ => {}
                }
                if let Some(scope) = self.scopes.last_mut() {
                    match shadowed {
                        Some(b) => scope.insert(name, b),
                        None => scope.remove(&name),
                    };
                }
                if self.arrays.len() == before {
                    return;
                }
                match self.arrays.iter().last() {
                    Some((h, _)) => h,
                    None => return,
                }
            }
            syn::Expr::Call(c) if is_helper_call(c) => {
                self.array_call = Some(None);
                let _ = self.lower_call(c, out, span, true);
                match self.array_call.take().flatten() {
                    Some(a) => a,
                    None => {
                        self.err(
                            span,
                            format!("`{helper}` returns an array; this call gives none"),
                        );
                        return;
                    }
                }
            }
            other => match self.local_array_named(other) {
                Some(a) => a,
                None => {
                    self.err(
                        span,
                        format!("`{helper}` returns an array: give a thread-local array by name or an array literal"),
                    );
                    return;
                }
            },
        };
        let (r, f) = (
            self.arrays.get(result).clone(),
            self.arrays.get(from).clone(),
        );
        let (ArrayKind::Local { dims, .. }, ArrayKind::Local { dims: fdims, .. }) =
            (&r.kind, &f.kind)
        else {
            return;
        };
        if dims != fdims || r.elem != f.elem {
            self.cx.push(
                Diagnostic::new(
                    span,
                    format!(
                        "`{helper}` returns `{}` of {dims:?}, but this is `{}` of {fdims:?}",
                        r.elem, f.elem
                    ),
                )
                .note(format!(
                    "a thread-local array's element type is fixed where it is made: write `[1.0{}, ..]` or annotate `let a: [{}; N]`",
                    r.elem, r.elem
                )),
            );
            return;
        }
        let dims = dims.clone();
        self.copy_elements(from, result, &dims, span, out);
    }

    /// `let a = f(..);` where helper `f` returns an array: the array, named `a`. `None` when
    /// the call's result is not an array: then `value` is its value, as `lower_value` gives.
    pub(super) fn try_array_call_let(
        &mut self,
        c: &syn::ExprCall,
        name: &str,
        mutable: bool,
        out: &mut Block,
        span: Span,
    ) -> Result<(), Value> {
        self.array_call = Some(None);
        let v = self.lower_call(c, out, span, true);
        match self.array_call.take().flatten() {
            Some(a) => {
                let arr = self.arrays.get_mut(a);
                arr.name = name.to_string();
                if let ArrayKind::Local { mutable: m, .. } = &mut arr.kind {
                    *m = mutable;
                }
                self.bind(name.to_string(), Binding::Array(a));
                Ok(())
            }
            None => Err(v),
        }
    }

    /// The error of an assignment (at `at`) to a whole thread-local array not declared `mut`.
    pub(super) fn immutable_array(&mut self, arr: Handle<Array>, at: Span) {
        let name = self.arrays.get(arr).name.clone();
        self.cx.push(
            Diagnostic::new(
                at,
                format!("cannot assign twice to immutable variable `{name}`"),
            )
            .label(self.arrays.span(arr), format!("`{name}` is declared here"))
            .note(format!("declare it `let mut {name}`")),
        );
    }

    /// `b = a;` of two thread-local arrays of one shape; `false` when `a` assigns something
    /// else.
    pub(super) fn try_array_assign(&mut self, a: &syn::ExprAssign, out: &mut Block) -> bool {
        let (Some(to), Some(from)) = (
            self.local_array_named(&a.left),
            self.local_array_named(&a.right),
        ) else {
            return false;
        };
        let (t, f) = (self.arrays.get(to).clone(), self.arrays.get(from).clone());
        let (ArrayKind::Local { dims, mutable }, ArrayKind::Local { dims: fdims, .. }) =
            (&t.kind, &f.kind)
        else {
            return false;
        };
        if !mutable {
            self.immutable_array(to, a.left.src());
            return true;
        }
        if dims != fdims || t.elem != f.elem {
            self.err(
                a.src(),
                format!(
                    "`{}` is `{}` of {dims:?} and `{}` is `{}` of {fdims:?}: an array is assigned an array of its own type",
                    t.name, t.elem, f.name, f.elem
                ),
            );
            return true;
        }
        let dims = dims.clone();
        self.copy_elements(from, to, &dims, a.src(), out);
        true
    }

    /// `for v in a`, `for v in &a`, `for &v in a.iter()`, `for (i, v) in a.iter().enumerate()`:
    /// a loop over the indices of one-dimensional array `a` that binds a copy of each element.
    /// `false` when the loop is not over an array (nothing is lowered).
    pub(super) fn try_element_for(&mut self, f: &syn::ExprForLoop, out: &mut Block) -> bool {
        let span = f.src();
        let mut e = strip_parens(&f.expr);
        let mut enumerate = false;
        let mut by_ref = false;
        if let syn::Expr::MethodCall(m) = e {
            if m.method == "enumerate" && m.args.is_empty() {
                enumerate = true;
                e = strip_parens(&m.receiver);
            }
        }
        if let syn::Expr::MethodCall(m) = e {
            if (m.method == "iter" || m.method == "into_iter") && m.args.is_empty() {
                by_ref = m.method == "iter";
                e = strip_parens(&m.receiver);
            }
        }
        if let syn::Expr::Reference(r) = e {
            if r.mutability.is_none() {
                by_ref = true;
                e = strip_parens(&r.expr);
            }
        }
        let (array, name) = match self.array_field_loop(e, out) {
            Some(Some(a)) => (a, "elems".to_string()),
            Some(None) => return true,
            None => {
                let syn::Expr::Path(p) = e else {
                    return false;
                };
                let Some(name) = p.path.get_ident().map(|i| i.to_string()) else {
                    return false;
                };
                match self.lookup(&name) {
                    Some(Binding::Array(a) | Binding::View(a)) => (a, name),
                    _ => return false,
                }
            }
        };
        let arr = self.arrays.get(array).clone();
        let end = match &arr.kind {
            ArrayKind::Local { dims, .. }
            | ArrayKind::Shared {
                dims,
                dynamic: false,
                len_param: None,
            } if dims.len() == 1 => self.expr(
                Expr::Literal(Literal::Int {
                    value: i128::from(dims[0]),
                    suffix: Some(Scalar::Usize),
                }),
                f.expr.src(),
            ),
            ArrayKind::Global { .. } => self.expr(Expr::Len(array), f.expr.src()),
            _ => {
                self.cx.push(
                    Diagnostic::new(f.expr.src(), format!("kernels loop over the elements of a one-dimensional array of known length; `{name}` is not one"))
                        .note(format!("loop over its indices: `for i in 0..N {{ let v = {name}[i]; .. }}`")),
                );
                return true;
            }
        };
        // The patterns: the index's (for `enumerate`) and the element's.
        let (index_pat, elem_pat) = match (&*f.pat, enumerate) {
            (syn::Pat::Tuple(t), true) if t.elems.len() == 2 => (Some(&t.elems[0]), &t.elems[1]),
            (other, true) => {
                self.err(
                    other.src(),
                    "`enumerate` gives pairs: `for (i, v) in a.iter().enumerate()`",
                );
                return true;
            }
            (other, false) => (None, other),
        };
        let index_name = match index_pat {
            Some(syn::Pat::Ident(pi))
                if pi.subpat.is_none() && pi.by_ref.is_none() && pi.mutability.is_none() =>
            {
                Some(pi.ident.clone())
            }
            Some(syn::Pat::Wild(_)) | None => None,
            Some(other) => {
                self.err(other.src(), "the index of `enumerate` binds a name or `_`");
                return true;
            }
        };
        let (elem, elem_mut, elem_ref) = match elem_pat {
            syn::Pat::Ident(pi) if pi.subpat.is_none() && pi.by_ref.is_none() => {
                (Some(pi.ident.clone()), pi.mutability.is_some(), by_ref)
            }
            syn::Pat::Reference(r) if by_ref => match &*r.pat {
                syn::Pat::Ident(pi) if pi.subpat.is_none() && pi.by_ref.is_none() => {
                    (Some(pi.ident.clone()), pi.mutability.is_some(), false)
                }
                other => {
                    self.err(other.src(), "an element binds a name: `for &v in a.iter()`");
                    return true;
                }
            },
            syn::Pat::Wild(_) => (None, false, false),
            other => {
                self.err(other.src(), "an element binds a name: `for v in a`");
                return true;
            }
        };
        if elem_mut && elem_ref {
            self.err(elem_pat.src(), "the element is a `&` reference; bind `&mut v`'s copy with `for &v in ..` and `let mut`");
            return true;
        }
        let label = self.enter_loop(f.label.as_ref());
        let var = self.locals.append(
            Local {
                name: index_name
                    .as_ref()
                    .map_or_else(|| format!("{name}_index"), |i| i.to_string()),
                mutable: false,
                annotated: Some(Scalar::Usize),
                origin: LocalOrigin::LoopVar,
            },
            index_pat.map_or(f.pat.src(), |p| p.src()),
        );
        self.scopes.push(HashMap::new());
        if let Some(i) = &index_name {
            self.bind(i.to_string(), Binding::Local(var));
        }
        let mut body = Block::default();
        if let Some(v) = &elem {
            let index = vec![self.expr(Expr::Local(var), v.src())];
            let value = self.expr(Expr::Load { array, index }, v.src());
            self.bind_copy(v, elem_mut, value, elem_ref, &mut body);
        }
        let inner = self.lower_block(&f.body);
        body.append(inner);
        self.scopes.pop();
        self.loops.pop();
        let start = self.expr(
            Expr::Literal(Literal::Int {
                value: 0,
                suffix: Some(Scalar::Usize),
            }),
            f.expr.src(),
        );
        out.push(
            Stmt::Loop {
                label,
                kind: LoopKind::For {
                    var,
                    start,
                    end,
                    step: None,
                    distribution: Distribution::Sequential,
                    inclusive: false,
                    reverse: None,
                },
                body,
            },
            span,
        );
        true
    }
}
