//! Memory: shared-array declarations and their lengths, places that can be assigned, and
//! indexing with its rank and type checks (thread-local arrays are `local_arrays`).

use super::cx::*;
use super::syntax::*;
use crate::diag::Diagnostic;
use crate::front::builtins::BuiltinFn;
use crate::ir::*;

impl Lowerer<'_> {
    /// `shared_slice::<T>()`: the kernel's dynamic shared array (one per kernel).
    pub(super) fn shared_slice_decl(
        &mut self,
        call: &syn::ExprCall,
        last: &syn::PathSegment,
    ) -> Option<(Scalar, Vec<u64>)> {
        if !call.args.is_empty() {
            self.err(
                call.args.src(),
                "`shared_slice` takes no arguments: `shared_slice::<T>()`; the launch sizes it with `Launch::shared_bytes`",
            );
            return None;
        }
        let elem = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first() {
                Some(syn::GenericArgument::Type(t)) => match type_to_scalar(t) {
                    Some(s) => s,
                    None => {
                        self.cx.push(unsupported_type(t));
                        return None;
                    }
                },
                _ => None?,
            },
            _ => {
                self.err(
                    last.src(),
                    "write the element type: `shared_slice::<f32>()`",
                );
                return None;
            }
        };
        if let Some((h, _)) = self.arrays.iter().find(|(_, a)| a.kind.is_dynamic()) {
            let first = self.arrays.span(h);
            self.cx.push(
                Diagnostic::new(call.src(), "a kernel has one dynamic shared array")
                    .label(first, "the first `shared_slice` is here")
                    .note("CUDA gives a block one dynamic shared allocation: use this one array for everything, at different offsets"),
            );
            return None;
        }
        Some((elem, Vec::new()))
    }

    /// Recognises `shared::<[T; N]>()` and `shared::<[[T; W]; H]>()`. Returns `None` when `e`
    /// is not a call of `shared`, `Some(None)` when it is but is malformed (reported).
    #[allow(clippy::option_option)]
    pub(super) fn try_shared_decl(&mut self, e: &syn::Expr) -> Option<Option<(Scalar, Vec<u64>)>> {
        let syn::Expr::Call(call) = e else {
            return None;
        };
        let syn::Expr::Path(p) = &*call.func else {
            return None;
        };
        let last = p.path.segments.last()?;
        match BuiltinFn::from_name(&last.ident.to_string()) {
            Some(BuiltinFn::SharedSlice) => return Some(self.shared_slice_decl(call, last)),
            Some(BuiltinFn::Shared) => {}
            _ => return None,
        }
        if !call.args.is_empty() {
            self.err(
                call.args.src(),
                "`shared` takes no arguments: `shared::<[T; N]>()`",
            );
            return Some(None);
        }
        let ty = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first() {
                Some(syn::GenericArgument::Type(t)) => t,
                _ => {
                    self.err(
                        a.src(),
                        "write the shared array's type: `shared::<[T; N]>()`",
                    );
                    return Some(None);
                }
            },
            _ => {
                self.err(
                    last.src(),
                    "write the shared array's type: `shared::<[T; N]>()`",
                );
                return Some(None);
            }
        };
        // `[T; N]` with `N` a const parameter of the kernel or a constant of its module, or an
        // expression of such constants (`[T; BLOCK + 2 * R]`): the launch sizes it. Literal
        // arithmetic (`[T; 2 * 64]`) is a length like a literal.
        // Constants whose values the kernel's file gives make static lengths.
        let known = |l: &mut Self, t: &syn::Type| {
            let mut cur = t;
            while let syn::Type::Array(a) = cur {
                if l.module_const_value(&a.len).is_none() {
                    return false;
                }
                cur = &a.elem;
            }
            true
        };
        let static_shape = known(self, ty);
        if let (syn::Type::Array(a), false) = (ty, static_shape) {
            let computed = literal_len(&a.len).is_none()
                && !matches!(&a.len, syn::Expr::Lit(_) | syn::Expr::Path(_));
            if computed && !self.closure {
                let Some(elem) = type_to_scalar(&a.elem) else {
                    self.err(
                        a.elem.src(),
                        "an array sized by an expression has one dimension: `shared::<[T; N + 2]>()`",
                    );
                    return Some(None);
                };
                if let Some((h, _)) = self.arrays.iter().find(|(_, a)| a.kind.is_dynamic()) {
                    let first = self.arrays.span(h);
                    self.cx.push(
                        Diagnostic::new(ty.src(), "a kernel has one shared array sized at launch (by a constant, an expression of constants or `shared_slice`)")
                            .label(first, "the first one is here")
                            .note("size the others with literals, or carve this one array into parts"),
                    );
                    return Some(None);
                }
                let text = quote::ToTokens::to_token_stream(&a.len).to_string();
                self.array_length(&text, a.len.src());
                self.pending_len_param = Some(text);
                return Some(Some((elem, Vec::new())));
            }
            if let syn::Expr::Path(p) = &a.len {
                let param = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .filter(|n| self.const_params.contains(n) || self.lookup(n).is_none());
                if let Some(n) = param {
                    let Some(elem) = type_to_scalar(&a.elem) else {
                        self.err(
                            a.elem.src(),
                            "an array sized by a const parameter has one dimension: `shared::<[T; N]>()`",
                        );
                        return Some(None);
                    };
                    if let Some((h, _)) = self.arrays.iter().find(|(_, a)| a.kind.is_dynamic()) {
                        let first = self.arrays.span(h);
                        self.cx.push(
                            Diagnostic::new(ty.src(), "a kernel has one shared array sized at launch (by a const parameter or `shared_slice`)")
                                .label(first, "the first one is here")
                                .note("size the others with literals, or carve this one array into parts"),
                        );
                        return Some(None);
                    }
                    if !self.const_params.contains(&n) {
                        self.module_const(&n, p.src(), Some(Scalar::Usize));
                    }
                    self.pending_len_param = Some(n);
                    return Some(Some((elem, Vec::new())));
                }
            }
        }
        let mut dims = Vec::new();
        let mut cur = ty;
        loop {
            match cur {
                syn::Type::Array(a) => {
                    let Some(n) = self.const_len(&a.len) else {
                        return Some(None);
                    };
                    dims.push(n);
                    cur = &a.elem;
                }
                other => match type_to_scalar(other) {
                    Some(t) if !dims.is_empty() => {
                        if dims.len() > 2 {
                            self.err(ty.src(), "shared arrays have one or two dimensions");
                            return Some(None);
                        }
                        return Some(Some((t, dims)));
                    }
                    _ => {
                        self.cx.push(
                            Diagnostic::new(other.src(), "a shared array holds scalars: `shared::<[T; N]>()` or `shared::<[[T; W]; H]>()`")
                        );
                        return Some(None);
                    }
                },
            }
        }
    }

    pub(super) fn const_len(&mut self, e: &syn::Expr) -> Option<u64> {
        if let Some(n) = literal_len(e).filter(|n| *n > 0) {
            return Some(n);
        }
        if let Some(n) = self.module_const_value(e) {
            if n > 0 {
                return u64::try_from(n).ok();
            }
        }
        if let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) = e
        {
            if let Ok(n) = i.base10_parse::<u64>() {
                if n == 0 {
                    self.err(e.src(), "an array needs at least one element");
                    return None;
                }
                return Some(n);
            }
        }
        self.err(
            e.src(),
            "an array's length must be an integer literal (or a helper's const generic parameter)",
        );
        None
    }

    pub(super) fn lower_place(&mut self, e: &syn::Expr, out: &mut Block) -> Option<Place> {
        match e {
            syn::Expr::Paren(p) => self.lower_place(&p.expr, out),
            syn::Expr::Path(p) => {
                let ident = p.path.get_ident()?;
                match self.lookup(&ident.to_string()) {
                    Some(Binding::Dim3(_)) => {
                        self.err(
                            e.src(),
                            format!("`{ident}` names a thread's index, which cannot be assigned"),
                        );
                        None
                    }
                    Some(Binding::Const(..)) => {
                        self.err(
                            e.src(),
                            format!("`{ident}` is a constant; it cannot be assigned"),
                        );
                        None
                    }
                    Some(Binding::Local(h)) => {
                        let local = self.locals.get(h);
                        // `let n: f32;` is assigned later, as in Rust (rustc's own check of
                        // the glue is not there to count the assignments: cuphase lets each
                        // path assign it, and reads before one are errors of inference).
                        let deferred =
                            local.origin == LocalOrigin::Let && !self.let_inits.contains_key(&h);
                        if !local.mutable && !deferred {
                            let decl = self.locals.span(h);
                            let name = local.name.clone();
                            self.cx.push(
                                Diagnostic::new(
                                    e.src(),
                                    format!("cannot assign twice to immutable variable `{name}`"),
                                )
                                .label(decl, format!("`{name}` is declared here"))
                                .note(format!("declare it `let mut {name}`")),
                            );
                            return None;
                        }
                        Some(Place::Local(h))
                    }
                    Some(Binding::Array(a) | Binding::View(a))
                        if matches!(self.arrays.get(a).kind, ArrayKind::Shared { .. }) =>
                    {
                        self.cx.push(
                            Diagnostic::new(
                                e.src(),
                                format!("cannot assign to `{ident}`: it names a shared array, and a shared array's name cannot be bound to another array"),
                            )
                            .note(format!("assign its elements (`{ident}[i] = ..`), or give the other array a name of its own")),
                        );
                        None
                    }
                    Some(Binding::Array(_) | Binding::View(_) | Binding::Sub(_)) => {
                        self.err(
                            e.src(),
                            "cannot assign to a whole array; assign its elements",
                        );
                        None
                    }
                    Some(Binding::Ref(_) | Binding::Elem(_)) => {
                        self.err(
                            e.src(),
                            format!("`{ident}` is a `&mut` reference; assign through it: `*{ident} = ..`"),
                        );
                        None
                    }
                    Some(Binding::Shared(_)) => {
                        self.err(
                            e.src(),
                            format!("`{ident}` is a `&` reference; it cannot be assigned"),
                        );
                        None
                    }
                    Some(Binding::Poisoned) => None,
                    Some(Binding::Records(_)) => {
                        self.err(
                            e.src(),
                            "cannot assign to a whole slice; assign its elements",
                        );
                        None
                    }
                    // (A whole struct is assigned by `try_record_assign`; this is `p += ..`.)
                    Some(Binding::Record(_)) => {
                        self.err(
                            e.src(),
                            format!("`{ident}` is a struct; compound assignment needs a scalar field (`{ident}.x += ..`)"),
                        );
                        None
                    }
                    Some(Binding::Closure(_)) => {
                        self.err(
                            e.src(),
                            format!("`{ident}` is a closure; it cannot be assigned"),
                        );
                        None
                    }
                    // (A whole option is assigned by `try_option_assign`.)
                    Some(Binding::Option(_)) => {
                        self.err(
                            e.src(),
                            format!("`{ident}` is an `Option`; assign it a whole `Option` (`{ident} = Some(v);`)"),
                        );
                        None
                    }
                    None => {
                        self.err(
                            e.src(),
                            format!("cannot find variable `{ident}` in this kernel"),
                        );
                        None
                    }
                }
            }
            syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                let target = match strip_parens(&u.expr) {
                    syn::Expr::Path(p) => {
                        p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
                    }
                    _ => None,
                };
                match target {
                    Some(Binding::Ref(h)) => Some(Place::Local(h)),
                    Some(Binding::Shared(_)) => {
                        self.err(
                            e.src(),
                            "cannot assign through a `&` reference: it points at a copy that is read only",
                        );
                        None
                    }
                    Some(Binding::Elem(b)) => {
                        let (array, index) = self.borrowed(b, e.src());
                        if matches!(self.arrays.get(array).kind, ArrayKind::Shared { .. }) {
                            for f in &mut self.calls {
                                f.wrote_shared = true;
                            }
                        }
                        Some(Place::Element { array, index })
                    }
                    _ => {
                        self.err(
                            e.src(),
                            "only a helper's `&mut` parameter can be assigned through `*`",
                        );
                        None
                    }
                }
            }
            syn::Expr::Index(_) => {
                if let Some(name) = index_base(e) {
                    if let Some(Binding::Sub(b)) = self.lookup(&name) {
                        if !self.subs[b].writable {
                            self.cx.push(
                                Diagnostic::new(
                                    e.src(),
                                    format!("cannot assign to `{name}[..]`: `{name}` is a read-only sub-slice"),
                                )
                                .note("take it with `&mut a[s..]` of a writable array"),
                            );
                            return None;
                        }
                    }
                    if let Some(Binding::View(_)) = self.lookup(&name) {
                        self.cx.push(
                            Diagnostic::new(
                                e.src(),
                                format!("cannot assign to `{name}[..]`: this helper parameter is a read-only `&[T]`"),
                            )
                            .note(format!("declare the parameter `{name}: &mut [T]`")),
                        );
                        return None;
                    }
                }
                let (array, index) = self.lower_index(e, out)?;
                if matches!(self.arrays.get(array).kind, ArrayKind::Shared { .. }) {
                    for f in &mut self.calls {
                        f.wrote_shared = true;
                    }
                }
                let a = self.arrays.get(array);
                if matches!(a.kind, ArrayKind::Local { mutable: false, .. }) {
                    let name = a.name.clone();
                    let decl = self.arrays.span(array);
                    self.cx.push(
                        Diagnostic::new(e.src(), format!("cannot assign to `{name}[..]`, as `{name}` is not declared as mutable"))
                            .label(decl, format!("`{name}` is declared here"))
                            .note(format!("declare it `let mut {name}`")),
                    );
                    return None;
                }
                if a.kind == (ArrayKind::Global { mutable: false }) {
                    let name = a.name.clone();
                    let elem = a.elem;
                    let decl = self.arrays.span(array);
                    self.cx.push(
                        Diagnostic::new(e.src(), format!("cannot assign to `{name}[..]`: `{name}` is a `&[{elem}]`, which is read-only"))
                            .label(decl, format!("`{name}` is declared here"))
                            .note(format!("declare the parameter `{name}: &mut [{elem}]`")),
                    );
                    return None;
                }
                Some(Place::Element { array, index })
            }
            _ => {
                self.err(
                    e.src(),
                    "this cannot be assigned; assign a `let mut` variable or an element `a[i]`",
                );
                None
            }
        }
    }

    /// `a[i]` or `a[i][j]`: the array and the indices outermost first.
    pub(super) fn lower_index(
        &mut self,
        e: &syn::Expr,
        out: &mut Block,
    ) -> Option<(Handle<Array>, Vec<Handle<Expr>>)> {
        let mut indices = Vec::new();
        let mut cur = e;
        loop {
            match cur {
                syn::Expr::Index(ix) => {
                    indices.push(&*ix.index);
                    cur = &ix.expr;
                }
                syn::Expr::Paren(p) => cur = &p.expr,
                _ => break,
            }
        }
        indices.reverse();
        let array = match cur {
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let name = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                match self.lookup(&name) {
                    Some(Binding::Array(a) | Binding::View(a)) => a,
                    Some(Binding::Sub(b)) => {
                        let [ix] = indices[..] else {
                            self.err(
                                e.src(),
                                format!("`{name}` is a sub-slice, indexed with one index"),
                            );
                            return None;
                        };
                        if let syn::Expr::Range(r) = ix {
                            self.err(r.src(), "take a sub-slice of a sub-slice with `&a[s..]`");
                            return None;
                        }
                        let i = self.value_or_none(ix, out)?;
                        let (array, index) = self.sub_index(b, i, ix.src());
                        return Some((array, vec![index]));
                    }
                    Some(Binding::Poisoned) => return None,
                    Some(Binding::Records(r))
                        if self.records[self.record_slices[r].record].vector =>
                    {
                        self.err(
                            e.src(),
                            format!("an element of `{name}` is an array; read a lane (`{name}[i][0]`), or copy it whole: `let v = {name}[i];`"),
                        );
                        return None;
                    }
                    Some(Binding::Records(_) | Binding::Record(_)) => {
                        self.err(
                            e.src(),
                            format!("an element of `{name}` is a struct; read a field (`{name}[i].x`), or copy it whole: `let p = {name}[i];`"),
                        );
                        return None;
                    }
                    Some(Binding::Closure(_)) => {
                        self.err(
                            cur.src(),
                            format!("`{name}` is a closure; call it: `{name}(..)`"),
                        );
                        return None;
                    }
                    Some(
                        Binding::Local(_)
                        | Binding::Shared(_)
                        | Binding::Ref(_)
                        | Binding::Elem(_)
                        | Binding::Dim3(_)
                        | Binding::Const(..),
                    ) => {
                        self.err(cur.src(), format!("`{name}` is a scalar; only slices and shared arrays can be indexed"));
                        return None;
                    }
                    Some(Binding::Option(_)) => {
                        self.err(cur.src(), format!("`{name}` is an `Option`; only slices and shared arrays can be indexed"));
                        return None;
                    }
                    None if self.closure => {
                        self.cx.push(
                            Diagnostic::new(cur.src(), format!("a `kernel_closure!` closure cannot capture the buffer `{name}`: a launch borrows each buffer it uses"))
                                .note(format!("pass it as a parameter, `|.., {name}: &[T]| ..` (or `&mut [T]`), and to `launch`")),
                        );
                        return None;
                    }
                    None => {
                        self.err(
                            cur.src(),
                            format!("cannot find array `{name}` in this kernel"),
                        );
                        return None;
                    }
                }
            }
            syn::Expr::Call(c) if is_helper_call(c) => {
                let name = call_name(c).unwrap_or_default();
                self.err(
                    c.src(),
                    format!(
                        "`{name}` returns an array; bind it (`let a = {name}(..);`), then index it"
                    ),
                );
                return None;
            }
            other => {
                // `us[i].a[0]` of a parameter whose type was reported: nothing more to say.
                let mut root = other;
                while let syn::Expr::Field(syn::ExprField { base, .. })
                | syn::Expr::Index(syn::ExprIndex { expr: base, .. }) = strip_parens(root)
                {
                    root = base;
                }
                if self.is_poisoned(root) {
                    return None;
                }
                self.err(
                    other.src(),
                    "only slice parameters, shared arrays and thread-local arrays can be indexed",
                );
                return None;
            }
        };
        let rank = self.arrays.get(array).rank();
        if indices.len() != rank {
            let name = self.arrays.get(array).name.clone();
            self.err(
                e.src(),
                format!(
                    "`{name}` has {rank} dimension(s) but is indexed with {} index(es)",
                    indices.len()
                ),
            );
            return None;
        }
        let mut hs = Vec::new();
        for ix in indices {
            if let syn::Expr::Range(r) = ix {
                self.err(
                    r.src(),
                    "sub-slicing (`a[i..j]`) is not supported in kernels; index single elements",
                );
                return None;
            }
            hs.push(self.value_or_none(ix, out)?);
        }
        Some((array, hs))
    }
}

/// The value of an array length written with integer literals and arithmetic (`2 * 64`,
/// `(256 + 2 * 4) as usize`), if it has one.
pub(super) fn literal_len(e: &syn::Expr) -> Option<u64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u64>().ok(),
        syn::Expr::Paren(p) => literal_len(&p.expr),
        syn::Expr::Group(g) => literal_len(&g.expr),
        syn::Expr::Cast(c) => literal_len(&c.expr),
        syn::Expr::Binary(b) => {
            let (l, r) = (literal_len(&b.left)?, literal_len(&b.right)?);
            match b.op {
                syn::BinOp::Add(_) => l.checked_add(r),
                syn::BinOp::Sub(_) => l.checked_sub(r),
                syn::BinOp::Mul(_) => l.checked_mul(r),
                syn::BinOp::Div(_) => l.checked_div(r),
                syn::BinOp::Rem(_) => l.checked_rem(r),
                syn::BinOp::Shl(_) => u32::try_from(r).ok().and_then(|r| l.checked_shl(r)),
                syn::BinOp::Shr(_) => u32::try_from(r).ok().and_then(|r| l.checked_shr(r)),
                _ => None,
            }
        }
        _ => None,
    }
}
