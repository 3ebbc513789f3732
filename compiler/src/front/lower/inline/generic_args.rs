//! A generic helper at one call: its signature checked, its type and const arguments taken
//! from a turbofish or inferred from the arguments, its bounds checked.

use super::*;
use crate::diag::Diagnostic;
use crate::front::generics::GenericArg;
use crate::front::lower::cx::*;
use crate::front::lower::syntax::*;
use crate::ir::*;
use std::collections::HashMap;

impl Lowerer<'_> {
    pub(in crate::front::lower) fn check_helper_signature(&mut self, sig: &syn::Signature) -> bool {
        let mut ok = true;
        if let Some(t) = &sig.asyncness {
            self.err(t.span, "a `#[device]` helper cannot be `async`");
            ok = false;
        }
        if let Some(t) = &sig.unsafety {
            self.err(
                t.span,
                "a `#[device]` helper cannot be `unsafe fn`; mark the unsafe parts instead",
            );
            ok = false;
        }
        if let Some(abi) = &sig.abi {
            self.err(abi.src(), "a `#[device]` helper takes no `extern` ABI");
            ok = false;
        }
        if let Some(v) = &sig.variadic {
            self.err(v.src(), "a `#[device]` helper cannot be variadic");
            ok = false;
        }
        // An empty `where` is Rust's no-op.
        if let Some(w) = sig
            .generics
            .where_clause
            .as_ref()
            .filter(|w| !w.predicates.is_empty())
        {
            self.err(w.src(), "`where` clauses are not supported on helpers; bound the parameters inline: `<T: Num>`");
            ok = false;
        }
        for input in &sig.inputs {
            match input {
                syn::FnArg::Receiver(r) => {
                    self.err(
                        r.src(),
                        "a `#[device]` helper is a free function; it takes no `self`",
                    );
                    ok = false;
                }
                syn::FnArg::Typed(pt) => {
                    let plain = matches!(&*pt.pat, syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none());
                    if !plain {
                        self.err(pt.pat.src(), "helper parameters must be plain names");
                        ok = false;
                    }
                }
            }
        }
        ok
    }

    /// The generic parameters of a helper, or `None` if one is malformed (reported).
    pub(in crate::front::lower) fn generic_params(
        &mut self,
        g: &syn::Generics,
    ) -> Option<Vec<GenericParam>> {
        let mut out = Vec::new();
        let mut ok = true;
        for p in &g.params {
            match p {
                syn::GenericParam::Type(t) => {
                    if let Some(d) = &t.default {
                        self.err(d.src(), "generic parameters of helpers take no defaults");
                        ok = false;
                    }
                    let mut bound = None;
                    for b in &t.bounds {
                        let name = match b {
                            syn::TypeParamBound::Trait(tb) => {
                                tb.path.segments.last().map(|s| s.ident.to_string())
                            }
                            _ => None,
                        };
                        match name.as_deref() {
                            Some(n @ ("Scalar" | "Num" | "Int" | "Float")) if bound.is_none() => {
                                bound = Some(n.to_string());
                            }
                            _ => {
                                self.err(b.src(), "a type parameter is bounded by one of cuphase's traits: `Scalar`, `Num`, `Int` or `Float`");
                                ok = false;
                            }
                        }
                    }
                    out.push(GenericParam {
                        name: t.ident.to_string(),
                        kind: GenericKind::Type(bound),
                        span: t.ident.src(),
                    });
                }
                syn::GenericParam::Const(c) => {
                    match type_to_scalar(&c.ty).filter(|t| t.is_int()) {
                        Some(t) => out.push(GenericParam {
                            name: c.ident.to_string(),
                            kind: GenericKind::Const(t),
                            span: c.ident.src(),
                        }),
                        None => {
                            self.err(c.ty.src(), "a const parameter is an integer: `const N: u32` or `const N: usize`");
                            ok = false;
                        }
                    }
                }
                syn::GenericParam::Lifetime(l) => {
                    self.err(l.src(), "helpers take no lifetime parameters");
                    ok = false;
                }
            }
        }
        ok.then_some(out)
    }

    /// The generic arguments of one call: from the turbofish, else from the arguments.
    pub(in crate::front::lower) fn bind_generics(
        &mut self,
        p: &syn::ExprPath,
        generics: &[GenericParam],
        inputs: &[&syn::PatType],
        args: &[Arg],
        hname: &str,
        span: Span,
    ) -> Option<HashMap<String, GenericArg>> {
        let mut bound: HashMap<String, GenericArg> = HashMap::new();
        let turbofish = match p.path.segments.last().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(a)) => Some(a),
            _ => None,
        };
        if let Some(tf) = turbofish {
            if tf.args.len() != generics.len() {
                self.err(
                    tf.src(),
                    format!(
                        "`{hname}` takes {} generic argument(s) but {} were given",
                        generics.len(),
                        tf.args.len()
                    ),
                );
                return None;
            }
            for (g, a) in generics.iter().zip(&tf.args) {
                match (&g.kind, a) {
                    (GenericKind::Type(_), syn::GenericArgument::Type(ty)) => {
                        if matches!(ty, syn::Type::Infer(_)) {
                            continue;
                        }
                        match type_to_scalar(ty) {
                            Some(t) => {
                                bound.insert(g.name.clone(), GenericArg::Type(t));
                            }
                            None => {
                                self.cx.push(unsupported_type(ty));
                                return None;
                            }
                        }
                    }
                    (GenericKind::Const(t), syn::GenericArgument::Const(e)) => {
                        let v = self.const_value(e)?;
                        bound.insert(g.name.clone(), GenericArg::Const(v, *t));
                    }
                    _ => {
                        self.err(a.src(), format!("this argument does not fit `{}`", g.name));
                        return None;
                    }
                }
            }
        }
        // The arguments decide the rest.
        for (pt, arg) in inputs.iter().zip(args) {
            self.unify_param(&pt.ty, arg, generics, &mut bound);
        }
        for g in generics {
            match (bound.get(&g.name), &g.kind) {
                (None, _) => {
                    self.cx.push(
                        Diagnostic::new(
                            span,
                            format!("cannot infer `{}` for this call of `{hname}`", g.name),
                        )
                        .label(g.span, "declared here")
                        .note(format!("name it: `{hname}::<..>(..)`")),
                    );
                    return None;
                }
                (Some(GenericArg::Type(t)), GenericKind::Type(Some(b))) => {
                    let fits = match b.as_str() {
                        "Num" => *t != Scalar::Bool,
                        "Int" => t.is_int(),
                        "Float" => t.is_float(),
                        _ => true,
                    };
                    if !fits {
                        self.cx.push(
                            Diagnostic::new(
                                span,
                                format!(
                                    "`{t}` is not `{b}`, which `{}` of `{hname}` needs",
                                    g.name
                                ),
                            )
                            .label(g.span, format!("`{}: {b}` is declared here", g.name)),
                        );
                        return None;
                    }
                }
                _ => {}
            }
        }
        Some(bound)
    }

    pub(in crate::front::lower) fn const_value(&mut self, e: &syn::Expr) -> Option<i128> {
        match strip_parens(e) {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => match i.base10_parse::<i128>() {
                Ok(v) => Some(v),
                Err(err) => {
                    self.err(i.src(), err.to_string());
                    None
                }
            },
            syn::Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(inner, None) => self.const_value(inner),
                _ => {
                    self.err(
                        e.src(),
                        "a const argument is an integer literal or a const parameter",
                    );
                    None
                }
            },
            other => {
                self.err(
                    other.src(),
                    "a const argument is an integer literal or a const parameter",
                );
                None
            }
        }
    }

    /// Binds the generic parameters that parameter type `ty` mentions from argument `arg`.
    pub(in crate::front::lower) fn unify_param(
        &mut self,
        ty: &syn::Type,
        arg: &Arg,
        generics: &[GenericParam],
        bound: &mut HashMap<String, GenericArg>,
    ) {
        let is_type_param = |n: &str| {
            generics
                .iter()
                .any(|g| g.name == n && matches!(g.kind, GenericKind::Type(_)))
        };
        let inner = match ty {
            syn::Type::Reference(r) => &*r.elem,
            other => other,
        };
        match arg {
            Arg::Value(..) | Arg::Alias(..) | Arg::Ref(_)
                if type_ident(inner).is_some_and(|n| is_type_param(&n)) =>
            {
                let name = type_ident(inner).unwrap_or_default();
                if bound.contains_key(&name) {
                    return;
                }
                let guess = match arg {
                    Arg::Value(e, _) | Arg::Alias(e, _) => self.guess_type(*e, 0),
                    Arg::Ref(l) => self.guess_local(*l, 0),
                    _ => None,
                };
                if let Some(t) = guess {
                    bound.insert(name, GenericArg::Type(t));
                }
            }
            Arg::Array(a, _) => {
                let Some((elem, dims)) = array_type(inner) else {
                    return;
                };
                let arr = self.arrays.get(*a).clone();
                if let Some(n) = type_ident(elem).filter(|n| is_type_param(n)) {
                    bound.entry(n).or_insert(GenericArg::Type(arr.elem));
                }
                let adims = match &arr.kind {
                    ArrayKind::Shared { dims, .. } | ArrayKind::Local { dims, .. } => dims.clone(),
                    ArrayKind::Global { .. } => Vec::new(),
                };
                for (d, n) in dims.iter().zip(adims) {
                    if let syn::Expr::Path(p) = d {
                        if let Some(id) = p.path.get_ident() {
                            let name = id.to_string();
                            if let Some(g) = generics.iter().find(|g| g.name == name) {
                                if let GenericKind::Const(t) = g.kind {
                                    bound
                                        .entry(name)
                                        .or_insert(GenericArg::Const(i128::from(n), t));
                                }
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The type an expression will have, as far as lowering can tell (inference checks it).
    pub(in crate::front::lower) fn guess_type(
        &self,
        e: Handle<Expr>,
        depth: u32,
    ) -> Option<Scalar> {
        if depth > 32 {
            return None;
        }
        let d = depth + 1;
        match self.exprs.get(e) {
            Expr::Literal(Literal::Bool(_)) => Some(Scalar::Bool),
            Expr::Literal(Literal::Int { suffix, .. }) => Some(suffix.unwrap_or(Scalar::I32)),
            Expr::Literal(Literal::Float { suffix, .. }) => Some(suffix.unwrap_or(Scalar::F64)),
            Expr::Literal(Literal::Zero) => None,
            Expr::Local(l) => self.guess_local(*l, d),
            Expr::Builtin { .. } => Some(Scalar::U32),
            Expr::Len(_) => Some(Scalar::Usize),
            Expr::Load { array, .. } | Expr::UniformLoad { array, .. } => {
                Some(self.arrays.get(*array).elem)
            }
            Expr::Unary { expr, .. } | Expr::AssumeUniform(expr) => self.guess_type(*expr, d),
            Expr::Binary { op, left, right } => {
                if op.is_comparison() || matches!(op, BinaryOp::And | BinaryOp::Or) {
                    Some(Scalar::Bool)
                } else if op.is_shift() {
                    self.guess_type(*left, d)
                } else {
                    self.guess_strong(*left, d)
                        .or_else(|| self.guess_strong(*right, d))
                        .or_else(|| self.guess_type(*left, d))
                }
            }
            Expr::Cast { to, .. } => Some(*to),
            Expr::Select { accept, reject, .. } => self
                .guess_strong(*accept, d)
                .or_else(|| self.guess_type(*reject, d)),
            Expr::Method {
                method, receiver, ..
            } => method
                .fixed_result()
                .or_else(|| self.guess_type(*receiver, d)),
        }
    }

    /// Like [`Self::guess_type`], but not from an unsuffixed literal's default.
    pub(in crate::front::lower) fn guess_strong(
        &self,
        e: Handle<Expr>,
        depth: u32,
    ) -> Option<Scalar> {
        match self.exprs.get(e) {
            Expr::Literal(
                Literal::Int { suffix: None, .. } | Literal::Float { suffix: None, .. },
            ) => None,
            _ => self.guess_type(e, depth),
        }
    }

    pub(in crate::front::lower) fn guess_local(
        &self,
        l: Handle<Local>,
        depth: u32,
    ) -> Option<Scalar> {
        if let Some(t) = self.locals.get(l).annotated {
            return Some(t);
        }
        let init = self.let_inits.get(&l).copied()?;
        self.guess_type(init, depth + 1)
    }
}
