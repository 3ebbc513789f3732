//! Calls of `#[device]` helpers: each call is inlined where it stands.
//!
//! The arguments are evaluated left to right in the caller (scalars into fresh variables named
//! after the parameters); slice and array parameters name the caller's array, `&mut T`
//! parameters the caller's variable. A generic helper is instantiated per call: its type and
//! const arguments come from a turbofish or from the arguments, and the helper's tokens are
//! rewritten with them before lowering, so the body is lowered (and type-checked) as concrete
//! code. The body is lowered in a scope of its own (it sees its parameters, not the caller's
//! variables); `return` assigns the result and leaves through a labelled loop that runs once.
//! A helper that writes shared memory is followed by its trailing barrier unless it opted out.

use super::{
    split_tail, strip_parens, type_to_scalar, unsupported_type, Binding, CallFrame, Lowerer, Value,
};
use crate::diag::Diagnostic;
use crate::front::generics::{substitute, GenericArg};
use crate::front::helpers::path_key;
use crate::ir::*;
use quote::ToTokens;
use std::collections::HashMap;

/// A generic parameter of a helper.
struct GenericParam {
    name: String,
    /// For a type parameter: its bound (`Scalar`, `Num`, `Int`, `Float`); for a const one,
    /// its type.
    kind: GenericKind,
    span: Span,
}

enum GenericKind {
    Type(Option<String>),
    Const(Scalar),
}

/// An argument after its first evaluation, before the parameters are bound.
enum Arg {
    /// A scalar value, held by the parameter's variable (typed once generics are bound).
    Value(Handle<Expr>, Handle<Local>),
    /// An array named by the argument.
    Array(Handle<Array>, bool),
    /// A caller's variable passed as `&mut x`.
    Ref(Handle<Local>),
    /// An immutable variable of the caller passed to an immutable scalar parameter.
    Alias(Handle<Expr>, Handle<Local>),
    /// Reported already.
    Error,
}

/// The element type and, for `[T; N]` and `[[T; W]; H]`, the dimensions of an array type.
fn array_type(ty: &syn::Type) -> Option<(&syn::Type, Vec<&syn::Expr>)> {
    match ty {
        syn::Type::Slice(s) => Some((&s.elem, Vec::new())),
        syn::Type::Array(_) => {
            let mut dims = Vec::new();
            let mut cur = ty;
            while let syn::Type::Array(a) = cur {
                dims.push(&a.len);
                cur = &a.elem;
            }
            Some((cur, dims))
        }
        syn::Type::Paren(p) => array_type(&p.elem),
        _ => None,
    }
}

/// The identifier a type is when it is a bare name (`T`).
fn type_ident(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        syn::Type::Paren(p) => type_ident(&p.elem),
        _ => None,
    }
}

/// An inlined body that an early `return` leaves: the body inside a loop labelled `exit` that
/// runs once (the `return`s break out of it).
fn with_exit(mut body: Block, exit: Option<Handle<Label>>, span: Span) -> Block {
    let Some(exit) = exit else {
        return body;
    };
    body.push(Stmt::Break { label: Some(exit) }, span);
    let mut wrapped = Block::default();
    wrapped.push(
        Stmt::Loop {
            label: Some(exit),
            kind: LoopKind::Infinite,
            body,
        },
        span,
    );
    wrapped
}

/// A signature's parameters (a receiver, reported elsewhere, is left out).
fn typed_inputs(sig: &syn::Signature) -> Vec<&syn::PatType> {
    sig.inputs
        .iter()
        .filter_map(|i| match i {
            syn::FnArg::Typed(pt) => Some(pt),
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

/// Whether a block contains a `return` (outside closures).
fn has_return(b: &syn::Block) -> bool {
    struct Finder(bool);
    impl<'a> syn::visit::Visit<'a> for Finder {
        fn visit_expr_return(&mut self, _: &'a syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    }
    let mut f = Finder(false);
    syn::visit::Visit::visit_block(&mut f, b);
    f.0
}

impl Lowerer<'_> {
    /// A call of a helper; `want_value` when the call stands where a value is needed.
    pub(super) fn lower_call(
        &mut self,
        c: &syn::ExprCall,
        out: &mut Block,
        span: Span,
        want_value: bool,
    ) -> Value {
        let syn::Expr::Path(p) = &*c.func else {
            return Value::Error;
        };
        match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
            Some(Binding::Closure(idx)) => {
                return self.lower_closure_call(idx, c, out, span, want_value)
            }
            Some(Binding::Poisoned) => return Value::Error,
            Some(Binding::Local(_) | Binding::Ref(_)) => {
                self.err(
                    span,
                    format!("`{}` is a variable, not a function", path_key(&p.path)),
                );
                return Value::Error;
            }
            _ => {}
        }
        let written = path_key(&p.path);
        let from = self.calls.last().and_then(|f| f.resolve_in);
        let helpers = self.helpers;
        let Some((hid, helper)) = helpers
            .resolve(from, &p.path)
            .and_then(|i| helpers.get(i).map(|h| (i, h)))
        else {
            self.cx.push(
                Diagnostic::new(
                    span,
                    format!("cannot call `{written}` in a kernel: it is not a `#[device]` helper"),
                )
                .note("mark the function `#[device]`; kernels call only helpers and the language's own functions"),
            );
            return Value::Error;
        };
        let hname = helper.func.sig.ident.to_string();
        if let Some(pos) = self.calls.iter().position(|f| f.helper == Some(hid)) {
            let mut chain: Vec<String> = self.calls[pos..]
                .iter()
                .map(|f| format!("`{}`", f.name))
                .collect();
            chain.push(format!("`{hname}`"));
            self.cx.push(
                Diagnostic::new(
                    span,
                    format!(
                        "recursive call of `{hname}`: helpers cannot recurse ({})",
                        chain.join(" calls ")
                    ),
                )
                .label(self.calls[pos].span, format!("the outer call of `{hname}`"))
                .note("helpers are inlined into the kernel; write the recursion as a loop"),
            );
            return Value::Error;
        }
        if self.calls.len() >= 64 {
            self.err(span, "helper calls nest more than 64 deep");
            return Value::Error;
        }
        let func = &helper.func;
        if !self.check_helper_signature(&func.sig) {
            return Value::Error;
        }
        let inputs = typed_inputs(&func.sig);
        if inputs.len() != c.args.len() {
            self.cx.push(
                Diagnostic::new(
                    span,
                    format!(
                        "`{hname}` takes {} argument(s) but {} were given",
                        inputs.len(),
                        c.args.len()
                    ),
                )
                .label(func.sig.ident.src(), format!("`{hname}` is defined here")),
            );
            return Value::Error;
        }
        // 1. The arguments, left to right, in the caller's scope.
        let mut args = Vec::new();
        for (arg, pt) in c.args.iter().zip(&inputs) {
            args.push(self.helper_arg(arg, pt, out));
        }
        if args.iter().any(|a| matches!(a, Arg::Error)) {
            return Value::Error;
        }
        // 2. Generic arguments, then the helper made concrete.
        let generics = self.generic_params(&func.sig.generics);
        let Some(generics) = generics else {
            return Value::Error;
        };
        let mono;
        let func = if generics.is_empty() {
            func
        } else {
            let Some(bound) = self.bind_generics(p, &generics, &inputs, &args, &hname, span) else {
                return Value::Error;
            };
            let mut f = func.clone();
            f.sig.generics = syn::Generics::default();
            let tokens = substitute(f.to_token_stream(), &bound);
            mono = match syn::parse2::<syn::ItemFn>(tokens) {
                Ok(f) => f,
                Err(e) => {
                    self.err(e.span(), e.to_string());
                    return Value::Error;
                }
            };
            &mono
        };
        let inputs = typed_inputs(&func.sig);
        // 3. The parameters.
        let mut scope = HashMap::new();
        for ((arg, pt), syn_arg) in args.iter().zip(&inputs).zip(&c.args) {
            match self.bind_param(arg, pt, syn_arg, out) {
                Some((name, b)) => {
                    scope.insert(name, b);
                }
                // Reported; the body would only add errors about the parameter.
                None => return Value::Error,
            }
        }
        // 4. The result.
        let ret = match &func.sig.output {
            syn::ReturnType::Default => None,
            syn::ReturnType::Type(_, ty) => {
                if matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty()) {
                    None
                } else {
                    match type_to_scalar(ty) {
                        Some(t) => Some(t),
                        None => {
                            self.cx.push(unsupported_type(ty));
                            return Value::Error;
                        }
                    }
                }
            }
        };
        if want_value && ret.is_none() {
            self.err(
                span,
                format!("`{hname}` returns `()`; its call has no value"),
            );
            return Value::Error;
        }
        // The result variable; made before the body only when a `return` needs it.
        let make_result = |l: &mut Self, t: Scalar| {
            l.locals.append(
                Local {
                    name: hname.clone(),
                    mutable: false,
                    annotated: Some(t),
                    origin: LocalOrigin::Temp,
                },
                span,
            )
        };
        let early = ret.filter(|_| has_return(&func.block));
        let result = early.map(|t| make_result(self, t));
        // 5. The body, in a scope of its own.
        let saved_scopes = std::mem::replace(&mut self.scopes, vec![scope]);
        let saved_loops = std::mem::take(&mut self.loops);
        let saved_unsafe = std::mem::replace(&mut self.in_unsafe, false);
        self.calls.push(CallFrame {
            helper: Some(hid),
            resolve_in: Some(hid),
            span,
            name: hname.clone(),
            result,
            exit: None,
            wrote_shared: false,
        });
        let mut body = Block::default();
        let (stmts, mut tail) = split_tail(&func.block);
        let mut stmts = stmts;
        // A final `return v;` is the body's value.
        if tail.is_none() {
            if let Some((syn::Stmt::Expr(syn::Expr::Return(r), _), rest)) = stmts.split_last() {
                if let Some(v) = &r.expr {
                    stmts = rest;
                    tail = Some(v);
                }
            }
        } else if let Some(syn::Expr::Return(r)) = tail {
            if let Some(v) = &r.expr {
                tail = Some(v);
            }
        }
        self.lower_stmts(stmts, &mut body, true);
        let mut value = None;
        match (tail, ret) {
            (Some(t), Some(_)) => {
                if let Value::Expr(v) = self.lower_value(t, &mut body) {
                    value = Some((v, t.src()));
                }
            }
            (Some(t), None) => self.lower_stmt_expr(t, &mut body),
            (None, Some(_)) => {
                if !super::ends_in_jump(&func.block) {
                    self.err(
                        func.block.src(),
                        format!("`{hname}` must end with the value it returns"),
                    );
                }
            }
            (None, None) => {}
        }
        let frame = self.calls.pop();
        self.scopes = saved_scopes;
        self.loops = saved_loops;
        self.in_unsafe = saved_unsafe;
        let Some(frame) = frame else {
            return Value::Error;
        };
        let trailing = frame.wrote_shared && helper.options.trailing_sync;
        // A helper that is one expression is that expression at the call.
        if let (Some((v, _)), true, None, false) = (value, body.stmts.is_empty(), result, trailing)
        {
            return Value::Expr(v);
        }
        let result = match (result, ret) {
            (Some(r), _) => Some(r),
            (None, Some(t)) => Some(make_result(self, t)),
            (None, None) => None,
        };
        if let (Some(r), Some((v, vspan))) = (result, value) {
            body.push(
                Stmt::Assign {
                    place: Place::Local(r),
                    op: None,
                    value: v,
                },
                vspan,
            );
        }
        if let Some(r) = result {
            out.push(
                Stmt::Let {
                    local: r,
                    init: None,
                },
                span,
            );
        }
        out.push(Stmt::Block(with_exit(body, frame.exit, span)), span);
        if trailing {
            self.barrier(BarrierOrigin::TrailingSync(hname), span, out);
        }
        match result {
            Some(r) => Value::Expr(self.expr(Expr::Local(r), span)),
            None => Value::Error,
        }
    }

    /// A call of a local closure: inlined, its body seeing the bindings of where it was
    /// written (so captured variables are the same variables) and its parameters.
    fn lower_closure_call(
        &mut self,
        idx: usize,
        c: &syn::ExprCall,
        out: &mut Block,
        span: Span,
        want_value: bool,
    ) -> Value {
        let Some(def) = self.closures.get(idx).cloned() else {
            return Value::Error;
        };
        let name = match &*c.func {
            syn::Expr::Path(p) => path_key(&p.path),
            _ => "closure".into(),
        };
        if def.expr.inputs.len() != c.args.len() {
            self.err(
                span,
                format!(
                    "`{name}` takes {} argument(s) but {} were given",
                    def.expr.inputs.len(),
                    c.args.len()
                ),
            );
            return Value::Error;
        }
        // The arguments, in the caller's scope, into the parameters.
        let mut scope = HashMap::new();
        for (arg, pat) in c.args.iter().zip(&def.expr.inputs) {
            let (pat, ty) = match pat {
                syn::Pat::Type(pt) => (&*pt.pat, Some(&*pt.ty)),
                other => (other, None),
            };
            let syn::Pat::Ident(pi) = pat else {
                self.err(pat.src(), "closure parameters must be plain names");
                return Value::Error;
            };
            let annotated = match ty {
                Some(t) => match type_to_scalar(t) {
                    Some(s) => Some(s),
                    None => {
                        self.cx.push(unsupported_type(t));
                        return Value::Error;
                    }
                },
                None => None,
            };
            let Value::Expr(v) = self.lower_value(arg, out) else {
                return Value::Error;
            };
            let h = self.locals.append(
                Local {
                    name: pi.ident.to_string(),
                    mutable: pi.mutability.is_some(),
                    annotated,
                    origin: LocalOrigin::Let,
                },
                pi.ident.src(),
            );
            self.let_inits.insert(h, v);
            out.push(
                Stmt::Let {
                    local: h,
                    init: Some(v),
                },
                arg.src(),
            );
            scope.insert(pi.ident.to_string(), Binding::Local(h));
        }
        let ret = match &def.expr.output {
            syn::ReturnType::Type(_, t) => match type_to_scalar(t) {
                Some(s) => Some(s),
                None => {
                    self.cx.push(unsupported_type(t));
                    return Value::Error;
                }
            },
            syn::ReturnType::Default => None,
        };
        let result = want_value.then(|| {
            let r = self.locals.append(
                Local {
                    name: name.clone(),
                    mutable: false,
                    annotated: ret,
                    origin: LocalOrigin::Temp,
                },
                span,
            );
            out.push(
                Stmt::Let {
                    local: r,
                    init: None,
                },
                span,
            );
            r
        });
        let mut scopes = def.scopes.clone();
        scopes.push(scope);
        let saved_scopes = std::mem::replace(&mut self.scopes, scopes);
        let saved_loops = std::mem::take(&mut self.loops);
        let resolve_in = self.calls.last().and_then(|f| f.resolve_in);
        self.calls.push(CallFrame {
            helper: None,
            resolve_in,
            span,
            name: name.clone(),
            result,
            exit: None,
            wrote_shared: false,
        });
        let mut body = Block::default();
        let (stmts, tail): (&[syn::Stmt], Option<&syn::Expr>) = match &*def.expr.body {
            syn::Expr::Block(b) => split_tail(&b.block),
            other => (&[], Some(other)),
        };
        self.scopes.push(HashMap::new());
        self.lower_stmts(stmts, &mut body, true);
        match (tail, result) {
            (Some(t), Some(r)) => {
                if let Value::Expr(v) = self.lower_value(t, &mut body) {
                    body.push(
                        Stmt::Assign {
                            place: Place::Local(r),
                            op: None,
                            value: v,
                        },
                        t.src(),
                    );
                }
            }
            (Some(t), None) => self.lower_stmt_expr(t, &mut body),
            (None, Some(_)) => {
                let ends =
                    matches!(&*def.expr.body, syn::Expr::Block(b) if super::ends_in_jump(&b.block));
                if !ends {
                    self.err(
                        def.expr.body.src(),
                        format!("`{name}` has no value: its body ends with `;`"),
                    );
                }
            }
            (None, None) => {}
        }
        self.scopes.pop();
        let frame = self.calls.pop();
        self.scopes = saved_scopes;
        self.loops = saved_loops;
        let exit = frame.and_then(|f| f.exit);
        out.push(Stmt::Block(with_exit(body, exit, span)), span);
        match result {
            Some(r) => Value::Expr(self.expr(Expr::Local(r), span)),
            None => Value::Error,
        }
    }

    /// `return` inside a helper: set the result and leave the inlined body.
    pub(super) fn lower_helper_return(&mut self, r: &syn::ExprReturn, out: &mut Block, span: Span) {
        let Some(frame) = self.calls.last() else {
            return;
        };
        let (name, result) = (frame.name.clone(), frame.result);
        match (&r.expr, result) {
            (Some(v), Some(res)) => {
                if let Value::Expr(x) = self.lower_value(v, out) {
                    out.push(
                        Stmt::Assign {
                            place: Place::Local(res),
                            op: None,
                            value: x,
                        },
                        span,
                    );
                }
            }
            (None, None) => {}
            (Some(v), None) => {
                self.err(
                    v.src(),
                    format!("`{name}` returns `()`; `return` takes no value"),
                );
                return;
            }
            (None, Some(_)) => {
                self.err(
                    span,
                    format!("`{name}` returns a value: write `return value;`"),
                );
                return;
            }
        }
        let exit = match self.calls.last().and_then(|f| f.exit) {
            Some(l) => l,
            None => {
                let l = self.labels.append(
                    Label {
                        name: format!("{name}_return"),
                    },
                    span,
                );
                if let Some(f) = self.calls.last_mut() {
                    f.exit = Some(l);
                }
                l
            }
        };
        out.push(Stmt::Break { label: Some(exit) }, span);
    }

    fn check_helper_signature(&mut self, sig: &syn::Signature) -> bool {
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
        if let Some(w) = &sig.generics.where_clause {
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
    fn generic_params(&mut self, g: &syn::Generics) -> Option<Vec<GenericParam>> {
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
    fn bind_generics(
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

    fn const_value(&mut self, e: &syn::Expr) -> Option<i128> {
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
    fn unify_param(
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
    fn guess_type(&self, e: Handle<Expr>, depth: u32) -> Option<Scalar> {
        if depth > 32 {
            return None;
        }
        let d = depth + 1;
        match self.exprs.get(e) {
            Expr::Literal(Literal::Bool(_)) => Some(Scalar::Bool),
            Expr::Literal(Literal::Int { suffix, .. }) => Some(suffix.unwrap_or(Scalar::I32)),
            Expr::Literal(Literal::Float { suffix, .. }) => Some(suffix.unwrap_or(Scalar::F64)),
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
            } => match method {
                Method::CountOnes | Method::LeadingZeros | Method::TrailingZeros => {
                    Some(Scalar::U32)
                }
                _ => self.guess_type(*receiver, d),
            },
        }
    }

    /// Like [`Self::guess_type`], but not from an unsuffixed literal's default.
    fn guess_strong(&self, e: Handle<Expr>, depth: u32) -> Option<Scalar> {
        match self.exprs.get(e) {
            Expr::Literal(
                Literal::Int { suffix: None, .. } | Literal::Float { suffix: None, .. },
            ) => None,
            _ => self.guess_type(e, depth),
        }
    }

    fn guess_local(&self, l: Handle<Local>, depth: u32) -> Option<Scalar> {
        if let Some(t) = self.locals.get(l).annotated {
            return Some(t);
        }
        let init = self.let_inits.get(&l).copied()?;
        self.guess_type(init, depth + 1)
    }

    /// Evaluates one argument in the caller, as its parameter's type asks.
    fn helper_arg(&mut self, arg: &syn::Expr, pt: &syn::PatType, out: &mut Block) -> Arg {
        match &*pt.ty {
            syn::Type::Reference(r) if array_type(&r.elem).is_some() => {
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
                    _ => {
                        self.err(arg.src(), "this parameter takes an array: pass a slice parameter, a shared array or a thread-local array by name");
                        Arg::Error
                    }
                }
            }
            syn::Type::Reference(r) if r.mutability.is_some() => {
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

    /// Binds parameter `pt` to its evaluated argument; returns the name and the binding.
    fn bind_param(
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
            (Arg::Array(a, is_view), syn::Type::Reference(r)) => {
                let (elem_ty, dims) = array_type(&r.elem)?;
                let arr = self.arrays.get(*a).clone();
                let Some(elem) = type_to_scalar(elem_ty) else {
                    self.cx.push(unsupported_type(elem_ty));
                    return None;
                };
                if elem != arr.elem {
                    self.err(
                        syn_arg.src(),
                        format!(
                            "`{}` holds `{}`, but the parameter `{name}` holds `{elem}`",
                            arr.name, arr.elem
                        ),
                    );
                    return None;
                }
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
            (Arg::Ref(l), _) => Some((name, Binding::Ref(*l))),
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
