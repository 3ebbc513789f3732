//! Lowering: a `syn::ItemFn` becomes a [`Kernel`].
//!
//! Name resolution happens here (a name is a variable or an array), so do the checks that need
//! only syntax and names: the supported subset of Rust, assignment to immutable variables and
//! read-only slices, array ranks, loop labels. Every rejected construct is reported at its own
//! span with what to write instead; lowering goes on after an error so that one build shows
//! them all.

use super::attr;
use crate::diag::{Ctxt, Diagnostic};
use crate::ir::*;
use std::collections::HashMap;

mod inline;

/// The result of lowering an expression in value position.
enum Value {
    /// The expression's value.
    Expr(Handle<Expr>),
    /// Control never comes back (`return`, `break`, `continue`).
    Diverges,
    /// An error was reported.
    Error,
}

/// `start`, `end` and the optional `step_by` of a loop range.
type RangeParts = (Handle<Expr>, Handle<Expr>, Option<Handle<Expr>>);

#[derive(Clone, Copy)]
enum Binding {
    Local(Handle<Local>),
    Array(Handle<Array>),
    /// A helper's `&[T]` parameter bound to a writable array: reads only.
    View(Handle<Array>),
    /// A helper's `&mut T` parameter bound to a caller's variable, used as `*p`.
    Ref(Handle<Local>),
    /// A name whose declaration was reported as an error: uses report nothing more.
    Poisoned,
    /// A local closure, by index into the lowerer's closures.
    Closure(usize),
}

/// A local closure: its syntax and the bindings it sees (those where it was written).
#[derive(Clone)]
struct ClosureDef {
    expr: syn::ExprClosure,
    scopes: Vec<HashMap<String, Binding>>,
}

/// One inlined helper (or local closure) call being lowered.
struct CallFrame {
    /// Index into the kernel's [`Helpers`](super::helpers::Helpers); `None` for a closure.
    helper: Option<usize>,
    /// The helper whose callee table resolves calls in this body (a closure's is its
    /// enclosing helper's).
    resolve_in: Option<usize>,
    /// The call's span.
    span: Span,
    /// The helper's name.
    name: String,
    /// The variable that receives the result (none for helpers returning `()`).
    result: Option<Handle<Local>>,
    /// The label an early `return` breaks out of, once one needs it.
    exit: Option<Handle<Label>>,
    /// Whether the helper (or one it calls) writes shared memory.
    wrote_shared: bool,
}

struct LoopFrame {
    label: Option<(String, Handle<Label>)>,
}

struct Lowerer<'c> {
    cx: &'c mut Ctxt,
    helpers: &'c super::helpers::Helpers,
    calls: Vec<CallFrame>,
    /// The kernel is a `kernel_closure!` closure.
    closure: bool,
    /// Local closures (`let f = |x| ..;`), inlined at each call.
    closures: Vec<ClosureDef>,
    /// The kernel's const generic parameters.
    const_params: Vec<String>,
    /// The const parameter that sizes the shared array being declared.
    pending_len_param: Option<String>,
    /// The initialiser of each `let`, for guessing a generic helper's type arguments.
    let_inits: HashMap<Handle<Local>, Handle<Expr>>,
    arrays: Arena<Array>,
    locals: Arena<Local>,
    exprs: Arena<Expr>,
    labels: Arena<Label>,
    barriers: Vec<Barrier>,
    in_unsafe: bool,
    scopes: Vec<HashMap<String, Binding>>,
    loops: Vec<LoopFrame>,
}

/// Lowers a kernel function. Errors go to `cx`; the returned kernel is only meaningful when
/// `cx` has none.
pub fn lower_kernel(
    cx: &mut Ctxt,
    options: KernelOptions,
    func: &syn::ItemFn,
    helpers: &super::helpers::Helpers,
) -> Kernel {
    let mut l = Lowerer {
        cx,
        helpers,
        calls: Vec::new(),
        let_inits: HashMap::new(),
        closure: options.closure,
        closures: Vec::new(),
        const_params: func
            .sig
            .generics
            .params
            .iter()
            .filter_map(|p| match p {
                syn::GenericParam::Const(c) => Some(c.ident.to_string()),
                _ => None,
            })
            .collect(),
        pending_len_param: None,
        arrays: Arena::default(),
        locals: Arena::default(),
        exprs: Arena::default(),
        labels: Arena::default(),
        barriers: Vec::new(),
        in_unsafe: false,
        scopes: vec![HashMap::new()],
        loops: Vec::new(),
    };
    l.check_signature(&func.sig);
    let params = l.lower_params(&func.sig);
    let body = l.lower_fn_body(&func.block);
    let mut kernel = Kernel {
        name: func.sig.ident.to_string(),
        name_span: func.sig.ident.src(),
        params,
        arrays: l.arrays,
        locals: l.locals,
        exprs: l.exprs,
        labels: l.labels,
        body,
        options,
        barriers: l.barriers,
        next_stmt_id: 0,
    };
    kernel.number_statements();
    kernel
}

/// Names a syn expression's kind for "not supported" messages.
fn expr_kind_name(e: &syn::Expr) -> &'static str {
    match e {
        syn::Expr::Array(_) => "array expressions",
        syn::Expr::Async(_) => "`async` blocks",
        syn::Expr::Await(_) => "`.await`",
        syn::Expr::Closure(_) => "closures",
        syn::Expr::Const(_) => "`const` blocks",
        syn::Expr::Infer(_) => "`_` expressions",
        syn::Expr::Let(_) => "`let` expressions (`if let`, `while let`)",
        syn::Expr::Macro(_) => "macro calls",
        syn::Expr::Reference(_) => "references (`&x`)",
        syn::Expr::Repeat(_) => "array repeat expressions",
        syn::Expr::Struct(_) => "struct literals",
        syn::Expr::Try(_) => "the `?` operator",
        syn::Expr::TryBlock(_) => "`try` blocks",
        syn::Expr::Tuple(_) => "tuples",
        syn::Expr::Unsafe(_) => "`unsafe` blocks",
        syn::Expr::Yield(_) => "`yield`",
        syn::Expr::Range(_) => "ranges outside `for` loops",
        syn::Expr::Call(_) => "function calls",
        syn::Expr::MethodCall(_) => "this method call",
        _ => "this expression",
    }
}

fn type_to_scalar(ty: &syn::Type) -> Option<Scalar> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => half_path(&p.path).or_else(|| {
            let seg = p.path.get_ident()?;
            Scalar::from_rust_name(&seg.to_string())
        }),
        syn::Type::Group(g) => type_to_scalar(&g.elem),
        syn::Type::Paren(p) => type_to_scalar(&p.elem),
        _ => None,
    }
}

/// A type as the user wrote it, near enough: the token stream without the spaces it puts around
/// `::`, `<`, `>`, `&` and before `,` and `;`.
fn type_text(ty: &syn::Type) -> String {
    let mut text = quote::ToTokens::to_token_stream(ty).to_string();
    for (from, to) in [
        (" :: ", "::"),
        (":: ", "::"),
        (" < ", "<"),
        (" >", ">"),
        ("& ", "&"),
        (" ,", ","),
        (" ;", ";"),
    ] {
        text = text.replace(from, to);
    }
    text
}

fn unsupported_type(ty: &syn::Type) -> Diagnostic {
    Diagnostic::new(
        ty.src(),
        format!("unsupported type `{}` in a kernel", type_text(ty)),
    )
    .note("kernels compute with `bool`, `i8`..`i64`, `u8`..`u64`, `usize`, `f32` and `f64`")
}

impl Lowerer<'_> {
    fn err(&mut self, span: impl Into<Span>, msg: impl Into<String>) {
        self.cx.error(span.into(), msg);
    }

    fn expr(&mut self, e: Expr, span: Span) -> Handle<Expr> {
        self.exprs.append(e, span)
    }

    fn bind(&mut self, name: String, b: Binding) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name, b);
        }
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    fn check_signature(&mut self, sig: &syn::Signature) {
        if let Some(t) = &sig.constness {
            self.err(t.span, "a kernel cannot be `const`");
        }
        if let Some(t) = &sig.asyncness {
            self.err(t.span, "a kernel cannot be `async`");
        }
        if let Some(t) = &sig.unsafety {
            self.err(
                t.span,
                "a kernel cannot be `unsafe fn`; mark the unsafe parts instead",
            );
        }
        if let Some(abi) = &sig.abi {
            self.err(
                abi.src(),
                "a kernel takes no `extern` ABI; cuphase chooses it",
            );
        }
        for p in &sig.generics.params {
            match p {
                syn::GenericParam::Const(c) => {
                    if type_to_scalar(&c.ty).is_none_or(|t| !t.is_int()) {
                        self.err(c.ty.src(), "a const parameter of a kernel is an integer: `const N: u32` or `const N: usize`");
                    }
                    if let Some(d) = &c.default {
                        self.err(d.src(), "const parameters of kernels take no defaults");
                    }
                }
                other => self.err(
                    other.src(),
                    "a generic kernel is compiled per instance by `#[kernel]`; compile one instance",
                ),
            }
        }
        if let Some(w) = &sig.generics.where_clause {
            self.err(w.src(), "`where` clauses are not supported on kernels");
        }
        if let Some(v) = &sig.variadic {
            self.err(v.src(), "a kernel cannot be variadic");
        }
        if let syn::ReturnType::Type(_, ty) = &sig.output {
            let unit = matches!(&**ty, syn::Type::Tuple(t) if t.elems.is_empty());
            if !unit {
                self.cx.push(
                    Diagnostic::new(ty.src(), "a kernel returns `()`")
                        .note("write results into a `&mut [T]` parameter"),
                );
            }
        }
    }

    fn lower_params(&mut self, sig: &syn::Signature) -> Vec<Param> {
        let mut params = self.lower_value_params(sig);
        // Const generic parameters: scalars passed at launch, after the others.
        for p in &sig.generics.params {
            if let syn::GenericParam::Const(c) = p {
                let Some(ty) = type_to_scalar(&c.ty).filter(|t| t.is_int()) else {
                    continue;
                };
                let name = c.ident.to_string();
                let span = c.src();
                let local = self.locals.append(
                    Local {
                        name: name.clone(),
                        mutable: false,
                        annotated: Some(ty),
                        origin: LocalOrigin::Param,
                    },
                    span,
                );
                self.bind(name.clone(), Binding::Local(local));
                params.push(Param {
                    name,
                    kind: ParamKind::Scalar { local, ty },
                    span,
                    generic: true,
                });
            }
        }
        params
    }

    fn lower_value_params(&mut self, sig: &syn::Signature) -> Vec<Param> {
        let mut params = Vec::new();
        for input in &sig.inputs {
            let pt = match input {
                syn::FnArg::Typed(pt) => pt,
                syn::FnArg::Receiver(r) => {
                    self.err(r.src(), "a kernel is a free function; it takes no `self`");
                    continue;
                }
            };
            let (name, mutable) = match &*pt.pat {
                syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                    (pi.ident.to_string(), pi.mutability.is_some())
                }
                other => {
                    self.err(other.src(), "kernel parameters must be plain names");
                    continue;
                }
            };
            if let Some(attr) = pt.attrs.first() {
                self.err(
                    attr.src(),
                    "attributes on kernel parameters are not supported",
                );
            }
            let span = pt.src();
            if let syn::Type::Reference(r) = &*pt.ty {
                if let Some(lt) = &r.lifetime {
                    self.err(lt.src(), "kernel parameters take no lifetimes");
                }
                let elem = match &*r.elem {
                    syn::Type::Slice(s) => match type_to_scalar(&s.elem) {
                        Some(t) => t,
                        None => {
                            self.cx.push(unsupported_type(&s.elem));
                            continue;
                        }
                    },
                    other => {
                        self.cx.push(
                            Diagnostic::new(
                                other.src(),
                                "a reference parameter of a kernel must be a slice `&[T]` or `&mut [T]`",
                            )
                            .note("pass a single value by value, or a one-element slice"),
                        );
                        continue;
                    }
                };
                if mutable {
                    self.err(pt.pat.src(), "a slice parameter cannot be `mut`");
                }
                let array = self.arrays.append(
                    Array {
                        name: name.clone(),
                        elem,
                        kind: ArrayKind::Global {
                            mutable: r.mutability.is_some(),
                        },
                    },
                    span,
                );
                self.bind(name.clone(), Binding::Array(array));
                params.push(Param {
                    name,
                    kind: ParamKind::Slice { array },
                    span,
                    generic: false,
                });
            } else {
                let Some(ty) = type_to_scalar(&pt.ty) else {
                    self.cx.push(unsupported_type(&pt.ty));
                    continue;
                };
                let local = self.locals.append(
                    Local {
                        name: name.clone(),
                        mutable,
                        annotated: Some(ty),
                        origin: LocalOrigin::Param,
                    },
                    span,
                );
                self.bind(name.clone(), Binding::Local(local));
                params.push(Param {
                    name,
                    kind: ParamKind::Scalar { local, ty },
                    span,
                    generic: false,
                });
            }
        }
        params
    }

    fn lower_fn_body(&mut self, block: &syn::Block) -> Block {
        let mut out = Block::default();
        self.scopes.push(HashMap::new());
        self.lower_stmts(&block.stmts, &mut out, true);
        self.scopes.pop();
        out
    }

    /// Lowers statements into `out`. A trailing expression without semicolon is lowered as a
    /// statement when `tail_is_stmt` (its value is `()`).
    fn lower_stmts(&mut self, stmts: &[syn::Stmt], out: &mut Block, tail_is_stmt: bool) {
        for (i, stmt) in stmts.iter().enumerate() {
            let _ = (i, tail_is_stmt);
            match stmt {
                syn::Stmt::Local(local) => self.lower_let(local, out),
                syn::Stmt::Item(item) => {
                    self.err(item.src(), "items (fn, struct, use, ...) inside a kernel are not supported; define them outside the kernel");
                }
                syn::Stmt::Expr(e, _) => self.lower_stmt_expr(e, out),
                syn::Stmt::Macro(m) => self.lower_macro(&m.mac, out),
            }
        }
    }

    /// `assert!`, `debug_assert!` and `panic!` with a literal message (or none); other macros
    /// are not supported.
    fn lower_macro(&mut self, mac: &syn::Macro, out: &mut Block) {
        let span = mac.src();
        let name = mac
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
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

    fn unsupported_macro(&mut self, mac: &syn::Macro) {
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

    fn lower_let(&mut self, local: &syn::Local, out: &mut Block) {
        let span = local.src();
        // `let _ = e;` evaluates `e` and drops it.
        if let (syn::Pat::Wild(_), Some(init)) = (&local.pat, &local.init) {
            if let Value::Expr(v) = self.lower_value(&init.expr, out) {
                out.push(Stmt::Eval(v), span);
            }
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
        if let Some(init) = &local.init {
            if let Some((_, diverge)) = &init.diverge {
                self.err(diverge.src(), "`let ... else` is not supported in kernels");
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
        let init = match &local.init {
            Some(init) => match self.lower_value(&init.expr, out) {
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

    /// Recognises `shared::<[T; N]>()` and `shared::<[[T; W]; H]>()`. Returns `None` when `e`
    /// is not a call of `shared`, `Some(None)` when it is but is malformed (reported).
    #[allow(clippy::option_option)]
    /// `let mut a = [v; N]` or `[[v; W]; H]`: a thread-local array, filled by one store per
    /// element (the arrays are small: they live in registers).
    #[allow(clippy::too_many_arguments)]
    fn lower_local_array(
        &mut self,
        name: &str,
        name_span: Span,
        mutable: bool,
        annotated: Option<&syn::Type>,
        rep: &syn::ExprRepeat,
        out: &mut Block,
        span: Span,
    ) {
        // Dimensions, outermost first, and the innermost value.
        let mut dims = Vec::new();
        let mut value: &syn::Expr = &rep.expr;
        let mut len: &syn::Expr = &rep.len;
        loop {
            match self.const_len(len) {
                Some(n) => dims.push(n),
                None => return,
            }
            match strip_parens(value) {
                syn::Expr::Repeat(inner) => {
                    value = &inner.expr;
                    len = &inner.len;
                }
                _ => break,
            }
        }
        if dims.len() > 2 {
            self.err(rep.src(), "thread-local arrays have one or two dimensions");
            return;
        }
        let total: u64 = dims.iter().product();
        if total == 0 || total > 64 {
            self.err(
                rep.src(),
                "a thread-local array holds 1 to 64 elements (it lives in registers); use a shared array or a slice for more",
            );
            return;
        }
        // The element type: from the annotation, else from the value's literal suffix.
        let mut elem = None;
        if let Some(ty) = annotated {
            let mut cur = ty;
            for _ in 0..dims.len() {
                match cur {
                    syn::Type::Array(a) => cur = &a.elem,
                    _ => {
                        self.err(
                            ty.src(),
                            "the annotation of a thread-local array is `[T; N]` or `[[T; W]; H]`",
                        );
                        return;
                    }
                }
            }
            match type_to_scalar(cur) {
                Some(t) => elem = Some(t),
                None => {
                    self.cx.push(unsupported_type(cur));
                    return;
                }
            }
        }
        let v = match self.lower_value(value, out) {
            Value::Expr(e) => e,
            _ => return,
        };
        if elem.is_none() {
            elem = match self.exprs.get(v) {
                Expr::Literal(Literal::Int { suffix, .. } | Literal::Float { suffix, .. }) => {
                    *suffix
                }
                Expr::Literal(Literal::Bool(_)) => Some(Scalar::Bool),
                // A parameter or an annotated `let`.
                Expr::Local(l) => self.locals.get(*l).annotated,
                Expr::Cast { to, .. } => Some(*to),
                _ => None,
            };
        }
        let Some(elem) = elem else {
            self.err(
                value.src(),
                format!(
                    "give the element type: `[0.0f32; N]`, or annotate `let {name}: [f32; N] = ..`"
                ),
            );
            return;
        };
        let array = self.arrays.append(
            Array {
                name: name.to_string(),
                elem,
                kind: ArrayKind::Local {
                    dims: dims.clone(),
                    mutable,
                },
            },
            name_span,
        );
        // A literal is stored as it is; anything else is computed once, into a temporary.
        let literal = matches!(self.exprs.get(v), Expr::Literal(_));
        let tmp = if literal {
            None
        } else {
            let tmp = self.locals.append(
                Local {
                    name: format!("{name}_init"),
                    mutable: false,
                    annotated: Some(elem),
                    origin: LocalOrigin::Let,
                },
                span,
            );
            out.push(
                Stmt::Let {
                    local: tmp,
                    init: Some(v),
                },
                span,
            );
            Some(tmp)
        };
        let index_lit = |this: &mut Self, i: u64| {
            this.expr(
                Expr::Literal(Literal::Int {
                    value: i128::from(i),
                    suffix: None,
                }),
                span,
            )
        };
        let rows = if dims.len() == 2 { dims[0] } else { 1 };
        let cols = dims[dims.len() - 1];
        for r in 0..rows {
            for c in 0..cols {
                let mut index = Vec::new();
                if dims.len() == 2 {
                    index.push(index_lit(self, r));
                }
                index.push(index_lit(self, c));
                let value = match tmp {
                    Some(tmp) => self.expr(Expr::Local(tmp), span),
                    None if (r, c) == (0, 0) => v,
                    None => self.expr(self.exprs.get(v).clone(), span),
                };
                out.push(
                    Stmt::Assign {
                        place: Place::Element { array, index },
                        op: None,
                        value,
                    },
                    span,
                );
            }
        }
        self.bind(name.to_string(), Binding::Array(array));
    }

    /// `shared_slice::<T>()`: the kernel's dynamic shared array (one per kernel).
    fn shared_slice_decl(
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

    fn try_shared_decl(&mut self, e: &syn::Expr) -> Option<Option<(Scalar, Vec<u64>)>> {
        let syn::Expr::Call(call) = e else {
            return None;
        };
        let syn::Expr::Path(p) = &*call.func else {
            return None;
        };
        let last = p.path.segments.last()?;
        if last.ident == "shared_slice" {
            return Some(self.shared_slice_decl(call, last));
        }
        if last.ident != "shared" {
            return None;
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
        // `[T; N]` with `N` a const parameter of the kernel: the launch sizes it.
        if let syn::Type::Array(a) = ty {
            if let syn::Expr::Path(p) = &a.len {
                let param = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .filter(|n| self.const_params.contains(n));
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

    fn const_len(&mut self, e: &syn::Expr) -> Option<u64> {
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

    /// An expression in statement position; its value, if any, is discarded.
    fn lower_stmt_expr(&mut self, e: &syn::Expr, out: &mut Block) {
        let span = e.src();
        match e {
            syn::Expr::Assign(a) => {
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
            syn::Expr::Call(c)
                if ["fence_block", "fence_device", "fence_system"]
                    .iter()
                    .any(|f| is_call_of(c, f)) =>
            {
                if !c.args.is_empty() {
                    self.err(c.args.src(), "fences take no arguments");
                }
                let scope = if is_call_of(c, "fence_block") {
                    FenceScope::Block
                } else if is_call_of(c, "fence_device") {
                    FenceScope::Device
                } else {
                    FenceScope::System
                };
                out.push(Stmt::Fence(scope), span);
            }
            syn::Expr::Call(c) if is_helper_call(c) => {
                self.lower_call(c, out, span, false);
            }
            syn::Expr::Call(c) if is_call_of(c, "sync_warp") => {
                self.lower_warp(c, WarpOp::Sync, out, span);
            }
            syn::Expr::Call(c) if is_call_of(c, "sync_block_threads") => {
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
                self.lower_match(m, out, None);
            }
            syn::Expr::MethodCall(m) if AtomicOp::from_method(&m.method.to_string()).is_some() => {
                self.lower_atomic(m, out, false);
            }
            syn::Expr::Paren(p) => self.lower_stmt_expr(&p.expr, out),
            syn::Expr::Group(g) => self.lower_stmt_expr(&g.expr, out),
            syn::Expr::Macro(m) => self.lower_macro(&m.mac, out),
            _ => match self.lower_value(e, out) {
                Value::Expr(v) => out.push(Stmt::Eval(v), span),
                Value::Diverges | Value::Error => {}
            },
        }
    }

    fn lower_block(&mut self, b: &syn::Block) -> Block {
        let mut out = Block::default();
        self.scopes.push(HashMap::new());
        self.lower_stmts(&b.stmts, &mut out, true);
        self.scopes.pop();
        out
    }

    fn lower_unsafe_block(&mut self, b: &syn::Block) -> Block {
        let was = std::mem::replace(&mut self.in_unsafe, true);
        let mut inner = self.lower_block(b);
        self.in_unsafe = was;
        inner.is_unsafe = true;
        inner
    }

    fn barrier(&mut self, origin: BarrierOrigin, span: Span, out: &mut Block) {
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

    /// `array.atomic_op(i, v)`; in value position the old value goes to a temporary.
    fn lower_atomic(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut Block,
        want_value: bool,
    ) -> Value {
        let span = m.src();
        let Some(op) = AtomicOp::from_method(&m.method.to_string()) else {
            return Value::Error;
        };
        let array = match strip_parens(&m.receiver) {
            syn::Expr::Path(p) => {
                match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
                    Some(Binding::Array(a)) => a,
                    Some(Binding::View(_)) => {
                        self.err(
                            m.receiver.src(),
                            format!(
                                "`{}` writes, but this parameter of the helper is a read-only `&[T]`; declare it `&mut`",
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
        let Some(index) = self.value_or_none(index, out) else {
            return Value::Error;
        };
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

    /// `match` on an integer, lowered to an `if` chain over a temporary holding the scrutinee.
    /// With `result`, every arm's value is assigned to it.
    fn lower_match(
        &mut self,
        m: &syn::ExprMatch,
        out: &mut Block,
        result: Option<Handle<Local>>,
    ) -> bool {
        let span = m.src();
        let Some(scrutinee) = self.value_or_none(&m.expr, out) else {
            return false;
        };
        let needs_temp = !matches!(self.exprs.get(scrutinee), Expr::Local(_) | Expr::Literal(_));
        let subject = if needs_temp {
            let tmp = self.locals.append(
                Local {
                    name: "scrutinee".into(),
                    mutable: false,
                    annotated: None,
                    origin: LocalOrigin::Temp,
                },
                m.expr.src(),
            );
            out.push(
                Stmt::Let {
                    local: tmp,
                    init: Some(scrutinee),
                },
                m.expr.src(),
            );
            Some(tmp)
        } else {
            None
        };
        let subject_expr = |this: &mut Self| -> Handle<Expr> {
            match subject {
                Some(t) => this.expr(Expr::Local(t), m.expr.src()),
                None => {
                    let e = this.exprs.get(scrutinee).clone();
                    this.expr(e, m.expr.src())
                }
            }
        };
        let last_is_catch_all = m
            .arms
            .last()
            .is_some_and(|a| a.guard.is_none() && is_catch_all(&a.pat));
        if !last_is_catch_all {
            self.cx.push(
                Diagnostic::new(span, "a kernel `match` ends with a catch-all arm")
                    .note("add `_ => ...` as the last arm (kernels do not check exhaustiveness over integer ranges)"),
            );
            return false;
        }
        // Build the chain from the last arm back to the first.
        let mut chain: Option<Block> = None;
        for arm in m.arms.iter().rev() {
            self.scopes.push(HashMap::new());
            let mut body = Block::default();
            let mut cond: Option<Handle<Expr>> = None;
            let mut ok = true;
            if let Some(name) = binding_name(&arm.pat) {
                let v = subject_expr(self);
                let h = self.locals.append(
                    Local {
                        name: name.to_string(),
                        mutable: false,
                        annotated: None,
                        origin: LocalOrigin::Let,
                    },
                    arm.pat.src(),
                );
                body.push(
                    Stmt::Let {
                        local: h,
                        init: Some(v),
                    },
                    arm.pat.src(),
                );
                self.bind(name.to_string(), Binding::Local(h));
            } else if !is_catch_all(&arm.pat) {
                match self.pattern_cond(&arm.pat, &subject_expr) {
                    Some(c) => cond = Some(c),
                    None => ok = false,
                }
            }
            if let Some((_, g)) = &arm.guard {
                let mut gs = Block::default();
                match self.lower_value(g, &mut gs) {
                    Value::Expr(gv) if gs.stmts.is_empty() => {
                        cond = Some(match cond {
                            Some(c) => self.expr(
                                Expr::Binary {
                                    op: BinaryOp::And,
                                    left: c,
                                    right: gv,
                                },
                                g.src(),
                            ),
                            None => gv,
                        });
                    }
                    Value::Expr(_) => {
                        self.err(
                            g.src(),
                            "a match guard must be a plain expression in kernels",
                        );
                        ok = false;
                    }
                    _ => ok = false,
                }
            }
            match result {
                Some(tmp) => match self.lower_value(&arm.body, &mut body) {
                    Value::Expr(v) => body.push(
                        Stmt::Assign {
                            place: Place::Local(tmp),
                            op: None,
                            value: v,
                        },
                        arm.body.src(),
                    ),
                    Value::Diverges => {}
                    Value::Error => ok = false,
                },
                None => match &*arm.body {
                    syn::Expr::Block(b) if b.label.is_none() => {
                        let inner = self.lower_block(&b.block);
                        body.append(inner);
                    }
                    other => self.lower_stmt_expr(other, &mut body),
                },
            }
            self.scopes.pop();
            if !ok {
                return false;
            }
            chain = Some(match (cond, chain) {
                (None, _) => body,
                (Some(c), rest) => {
                    let mut b = Block::default();
                    b.push(
                        Stmt::If {
                            cond: c,
                            accept: body,
                            reject: rest.unwrap_or_default(),
                        },
                        arm.src(),
                    );
                    b
                }
            });
        }
        if let Some(chain) = chain {
            if chain.stmts.len() == 1 && matches!(chain.stmts[0], Stmt::If { .. }) {
                out.append(chain);
            } else {
                out.push(Stmt::Block(chain), span);
            }
        }
        true
    }

    /// The condition under which an integer pattern matches.
    fn pattern_cond(
        &mut self,
        pat: &syn::Pat,
        subject: &dyn Fn(&mut Self) -> Handle<Expr>,
    ) -> Option<Handle<Expr>> {
        let span = pat.src();
        match pat {
            syn::Pat::Lit(l) => {
                let Value::Expr(v) = self.lower_lit(&l.lit) else {
                    return None;
                };
                let s = subject(self);
                Some(self.expr(
                    Expr::Binary {
                        op: BinaryOp::Eq,
                        left: s,
                        right: v,
                    },
                    span,
                ))
            }
            syn::Pat::Or(o) => {
                let mut acc: Option<Handle<Expr>> = None;
                for case in &o.cases {
                    let c = self.pattern_cond(case, subject)?;
                    acc = Some(match acc {
                        Some(a) => self.expr(
                            Expr::Binary {
                                op: BinaryOp::Or,
                                left: a,
                                right: c,
                            },
                            span,
                        ),
                        None => c,
                    });
                }
                acc
            }
            syn::Pat::Range(r) => {
                let mut scratch = Block::default();
                let mut parts = Vec::new();
                if let Some(lo) = &r.start {
                    let Value::Expr(v) = self.lower_value(lo, &mut scratch) else {
                        return None;
                    };
                    let s = subject(self);
                    parts.push(self.expr(
                        Expr::Binary {
                            op: BinaryOp::Ge,
                            left: s,
                            right: v,
                        },
                        span,
                    ));
                }
                if let Some(hi) = &r.end {
                    let Value::Expr(v) = self.lower_value(hi, &mut scratch) else {
                        return None;
                    };
                    let op = match r.limits {
                        syn::RangeLimits::Closed(_) => BinaryOp::Le,
                        syn::RangeLimits::HalfOpen(_) => BinaryOp::Lt,
                    };
                    let s = subject(self);
                    parts.push(self.expr(
                        Expr::Binary {
                            op,
                            left: s,
                            right: v,
                        },
                        span,
                    ));
                }
                if !scratch.stmts.is_empty() {
                    self.err(
                        span,
                        "range bounds in patterns must be literals or constants",
                    );
                    return None;
                }
                let mut it = parts.into_iter();
                let first = it.next()?;
                Some(it.fold(first, |a, b| {
                    self.expr(
                        Expr::Binary {
                            op: BinaryOp::And,
                            left: a,
                            right: b,
                        },
                        span,
                    )
                }))
            }
            syn::Pat::Paren(p) => self.pattern_cond(&p.pat, subject),
            other => {
                self.cx.push(
                    Diagnostic::new(
                        other.src(),
                        "kernel `match` patterns are integer literals, ranges, `|`, `_` and a name",
                    )
                    .note("match on an integer value"),
                );
                None
            }
        }
    }

    fn lower_if_stmt(&mut self, i: &syn::ExprIf, out: &mut Block) {
        let span = i.src();
        let cond = match self.lower_value(&i.cond, out) {
            Value::Expr(c) => c,
            _ => return,
        };
        let accept = self.lower_block(&i.then_branch);
        let reject = match &i.else_branch {
            None => Block::default(),
            Some((_, e)) => {
                let mut b = Block::default();
                match &**e {
                    syn::Expr::Block(blk) => {
                        b = self.lower_block(&blk.block);
                    }
                    other => self.lower_stmt_expr(other, &mut b),
                }
                b
            }
        };
        out.push(
            Stmt::If {
                cond,
                accept,
                reject,
            },
            span,
        );
    }

    fn enter_loop(&mut self, label: Option<&syn::Label>) -> Option<Handle<Label>> {
        let l = label.map(|l| {
            let name = l.name.ident.to_string();
            let h = self.labels.append(Label { name: name.clone() }, l.src());
            (name, h)
        });
        let h = l.as_ref().map(|(_, h)| *h);
        self.loops.push(LoopFrame { label: l });
        h
    }

    fn lower_while(&mut self, w: &syn::ExprWhile, out: &mut Block) {
        let span = w.src();
        let label = self.enter_loop(w.label.as_ref());
        let mut cond_stmts = Block::default();
        let cond = self.lower_value(&w.cond, &mut cond_stmts);
        let mut body = self.lower_block(&w.body);
        self.loops.pop();
        let Value::Expr(cond) = cond else { return };
        if cond_stmts.stmts.is_empty() {
            out.push(
                Stmt::Loop {
                    label,
                    kind: LoopKind::While { cond },
                    body,
                },
                span,
            );
        } else {
            // The condition needs statements: `loop { <stmts>; if !cond { break } <body> }`.
            let cspan = w.cond.src();
            let not = self.expr(
                Expr::Unary {
                    op: UnaryOp::Not,
                    expr: cond,
                },
                cspan,
            );
            let mut brk = Block::default();
            brk.push(Stmt::Break { label }, cspan);
            cond_stmts.push(
                Stmt::If {
                    cond: not,
                    accept: brk,
                    reject: Block::default(),
                },
                cspan,
            );
            cond_stmts.append(std::mem::take(&mut body));
            out.push(
                Stmt::Loop {
                    label,
                    kind: LoopKind::Infinite,
                    body: cond_stmts,
                },
                span,
            );
        }
    }

    fn lower_for(&mut self, f: &syn::ExprForLoop, out: &mut Block) {
        let span = f.src();
        let (var_ident, mutable) = match &*f.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                (pi.ident.clone(), pi.mutability.is_some())
            }
            other => {
                self.err(
                    other.src(),
                    "a `for` loop in a kernel binds one name: `for i in a..b`",
                );
                return;
            }
        };
        if mutable {
            self.err(
                var_ident.src(),
                "the loop variable cannot be `mut`; copy it into a `let mut`",
            );
        }
        // Peel the distribution call.
        let (distribution, range_expr) = match &*f.expr {
            syn::Expr::Call(c) => {
                let dist = if is_call_of(c, "threads_in_block") {
                    Some(Distribution::ThreadsInBlock)
                } else if is_call_of(c, "blocks_in_grid") {
                    Some(Distribution::BlocksInGrid)
                } else if is_call_of(c, "threads_in_grid") {
                    Some(Distribution::ThreadsInGrid)
                } else {
                    None
                };
                match dist {
                    Some(d) if c.args.len() == 1 => match c.args.first() {
                        Some(a) => (d, a),
                        None => return,
                    },
                    Some(_) => {
                        self.err(
                            c.src(),
                            "a strided loop takes one range: `threads_in_block(a..b)`",
                        );
                        return;
                    }
                    None => (Distribution::Sequential, &*f.expr),
                }
            }
            _ => (Distribution::Sequential, &*f.expr),
        };
        let Some((start, end, step)) = self.lower_range(range_expr, out) else {
            return;
        };
        let label = self.enter_loop(f.label.as_ref());
        let var = self.locals.append(
            Local {
                name: var_ident.to_string(),
                mutable: false,
                annotated: None,
                origin: LocalOrigin::LoopVar,
            },
            var_ident.src(),
        );
        self.scopes.push(HashMap::new());
        self.bind(var_ident.to_string(), Binding::Local(var));
        let body = self.lower_block(&f.body);
        self.scopes.pop();
        self.loops.pop();
        out.push(
            Stmt::Loop {
                label,
                kind: LoopKind::For {
                    var,
                    start,
                    end,
                    step,
                    distribution,
                },
                body,
            },
            span,
        );
    }

    /// `a..b` or `(a..b).step_by(s)`.
    fn lower_range(&mut self, e: &syn::Expr, out: &mut Block) -> Option<RangeParts> {
        let (range, step) = match e {
            syn::Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                (strip_parens(&m.receiver), m.args.first())
            }
            other => (strip_parens(other), None),
        };
        let syn::Expr::Range(r) = range else {
            self.cx.push(
                Diagnostic::new(e.src(), "a kernel `for` loop runs over a range")
                    .note("write `for i in a..b`, `for i in (a..b).step_by(s)`, or wrap the range in `threads_in_block`, `blocks_in_grid` or `threads_in_grid`"),
            );
            return None;
        };
        if let syn::RangeLimits::Closed(t) = r.limits {
            self.cx.push(
                Diagnostic::new(
                    t.src(),
                    "inclusive ranges `a..=b` are not supported in kernel loops yet",
                )
                .note("write `a..b + 1` when `b + 1` cannot overflow"),
            );
            return None;
        }
        let (Some(s), Some(en)) = (&r.start, &r.end) else {
            self.err(r.src(), "a kernel loop range needs both ends: `a..b`");
            return None;
        };
        let start = self.value_or_none(s, out)?;
        let end = self.value_or_none(en, out)?;
        let step = match step {
            Some(st) => Some(self.value_or_none(st, out)?),
            None => None,
        };
        Some((start, end, step))
    }

    fn value_or_none(&mut self, e: &syn::Expr, out: &mut Block) -> Option<Handle<Expr>> {
        match self.lower_value(e, out) {
            Value::Expr(h) => Some(h),
            Value::Diverges => {
                self.err(e.src(), "this expression never produces a value here");
                None
            }
            Value::Error => None,
        }
    }

    fn find_label(
        &mut self,
        label: Option<&syn::Lifetime>,
        span: Span,
    ) -> Option<Option<Handle<Label>>> {
        if self.loops.is_empty() {
            self.err(span, "`break` and `continue` must be inside a loop");
            return None;
        }
        match label {
            None => Some(None),
            Some(l) => {
                let name = l.ident.to_string();
                let found = self.loops.iter().rev().find_map(|f| {
                    f.label
                        .as_ref()
                        .filter(|(n, _)| *n == name)
                        .map(|(_, h)| *h)
                });
                match found {
                    Some(h) => Some(Some(h)),
                    None => {
                        self.err(l.src(), format!("no enclosing loop is labelled `'{name}`"));
                        None
                    }
                }
            }
        }
    }

    fn lower_jump(&mut self, e: &syn::Expr, out: &mut Block) {
        let span = e.src();
        match e {
            syn::Expr::Break(b) => {
                if let Some(v) = &b.expr {
                    self.err(v.src(), "`break` with a value is not supported in kernels");
                    return;
                }
                if let Some(label) = self.find_label(b.label.as_ref(), span) {
                    out.push(Stmt::Break { label }, span);
                }
            }
            syn::Expr::Continue(c) => {
                if let Some(label) = self.find_label(c.label.as_ref(), span) {
                    out.push(Stmt::Continue { label }, span);
                }
            }
            syn::Expr::Return(r) => {
                if !self.calls.is_empty() {
                    self.lower_helper_return(r, out, span);
                    return;
                }
                if let Some(v) = &r.expr {
                    self.err(v.src(), "a kernel returns `()`; `return` takes no value");
                    return;
                }
                out.push(Stmt::Return, span);
            }
            _ => {}
        }
    }

    fn lower_place(&mut self, e: &syn::Expr, out: &mut Block) -> Option<Place> {
        match e {
            syn::Expr::Paren(p) => self.lower_place(&p.expr, out),
            syn::Expr::Path(p) => {
                let ident = p.path.get_ident()?;
                match self.lookup(&ident.to_string()) {
                    Some(Binding::Local(h)) => {
                        let local = self.locals.get(h);
                        if !local.mutable {
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
                    Some(Binding::Array(_) | Binding::View(_)) => {
                        self.err(
                            e.src(),
                            "cannot assign to a whole array; assign its elements",
                        );
                        None
                    }
                    Some(Binding::Ref(_)) => {
                        self.err(
                            e.src(),
                            format!("`{ident}` is a `&mut` reference; assign through it: `*{ident} = ..`"),
                        );
                        None
                    }
                    Some(Binding::Poisoned) => None,
                    Some(Binding::Closure(_)) => {
                        self.err(
                            e.src(),
                            format!("`{ident}` is a closure; it cannot be assigned"),
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
    fn lower_index(
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
                    Some(Binding::Poisoned) => return None,
                    Some(Binding::Closure(_)) => {
                        self.err(
                            cur.src(),
                            format!("`{name}` is a closure; call it: `{name}(..)`"),
                        );
                        return None;
                    }
                    Some(Binding::Local(_) | Binding::Ref(_)) => {
                        self.err(cur.src(), format!("`{name}` is a scalar; only slices and shared arrays can be indexed"));
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
            other => {
                self.err(
                    other.src(),
                    "only slice parameters and shared arrays can be indexed",
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

    fn lower_value(&mut self, e: &syn::Expr, out: &mut Block) -> Value {
        let span = e.src();
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
                            if let Some(Binding::Ref(h)) =
                                p.path.get_ident().and_then(|i| self.lookup(&i.to_string()))
                            {
                                return Value::Expr(self.expr(Expr::Local(h), span));
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
                    // The right side is evaluated conditionally: it may not need statements.
                    let mut rs = Block::default();
                    let r = self.lower_value(&b.right, &mut rs);
                    if !rs.stmts.is_empty() {
                        self.cx.push(
                            Diagnostic::new(b.right.src(), "the right side of `&&`/`||` must be a plain expression in kernels")
                                .note("compute it into a `let` before the condition, or use a nested `if`"),
                        );
                        return Value::Error;
                    }
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
                match self.lower_value(&c.expr, out) {
                    Value::Expr(x) => Value::Expr(self.expr(Expr::Cast { expr: x, to }, span)),
                    other => other,
                }
            }
            syn::Expr::Index(_) => match self.lower_index(e, out) {
                Some((array, index)) => Value::Expr(self.expr(Expr::Load { array, index }, span)),
                None => Value::Error,
            },
            syn::Expr::Field(f) => self.lower_field(f),
            syn::Expr::MethodCall(m) if AtomicOp::from_method(&m.method.to_string()).is_some() => {
                self.lower_atomic(m, out, true)
            }
            syn::Expr::MethodCall(m) => self.lower_method(m, out),
            syn::Expr::Match(mt) => {
                let tmp = self.temp(span);
                out.push(
                    Stmt::Let {
                        local: tmp,
                        init: None,
                    },
                    span,
                );
                if self.lower_match(mt, out, Some(tmp)) {
                    Value::Expr(self.expr(Expr::Local(tmp), span))
                } else {
                    Value::Error
                }
            }
            syn::Expr::Unsafe(u) => self.lower_unsafe_value(&u.block, out, span),
            syn::Expr::Call(c) if is_call_of(c, "assume_uniform") => {
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
            syn::Expr::Call(c) if is_call_of(c, "uniform_load") => {
                self.lower_uniform_load(c, out, span)
            }
            syn::Expr::Call(c)
                if c.args.is_empty()
                    && (is_call_of(c, "lane_id") || is_call_of(c, "warp_size")) =>
            {
                let builtin = if is_call_of(c, "lane_id") {
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
            syn::Expr::Call(c) if is_helper_call(c) => self.lower_call(c, out, span, true),
            syn::Expr::Call(c) if call_name(c).and_then(|n| WarpOp::from_name(&n)).is_some() => {
                match call_name(c).and_then(|n| WarpOp::from_name(&n)) {
                    Some(WarpOp::Sync) | None => {
                        self.err(span, "`sync_warp()` is a statement; it has no value");
                        Value::Error
                    }
                    Some(op) => self.lower_warp(c, op, out, span),
                }
            }
            syn::Expr::Call(c) => {
                let name = call_name(c);
                let n = name.clone().unwrap_or_default();
                let msg = match name.as_deref() {
                    Some("thread_idx" | "block_idx" | "block_dim" | "grid_dim" | "global_idx") => {
                        format!("`{n}()` is a `Dim3`; take one component: `{n}().x`")
                    }
                    Some("sync_block_threads") => "`sync_block_threads()` is a statement; it has no value".to_string(),
                    Some("shared") => "`shared::<[T; N]>()` must be bound with `let`: `let tile = shared::<[f32; 256]>();`".to_string(),
                    Some("threads_in_block" | "blocks_in_grid" | "threads_in_grid") => {
                        format!("`{n}` is used as the range of a `for` loop")
                    }
                    Some(n) => format!("cannot call `{n}` in a kernel: function calls are not supported yet"),
                    None => "function calls are not supported in kernels".to_string(),
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
                self.err(
                    span,
                    format!("{} are not supported in kernels", expr_kind_name(other)),
                );
                Value::Error
            }
        }
    }

    fn int_lit(&mut self, i: &syn::LitInt) -> Option<(i128, Option<Scalar>)> {
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

    fn lower_lit(&mut self, lit: &syn::Lit) -> Value {
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

    fn lower_path(&mut self, p: &syn::ExprPath) -> Value {
        let span = p.src();
        if let Some(ident) = p.path.get_ident() {
            let name = ident.to_string();
            return match self.lookup(&name) {
                Some(Binding::Local(h)) => Value::Expr(self.expr(Expr::Local(h), span)),
                Some(Binding::Poisoned) => Value::Error,
                Some(Binding::Closure(_)) => {
                    self.err(
                        span,
                        format!("`{name}` is a closure; kernels call closures (`{name}(..)`) but do not pass them as values"),
                    );
                    Value::Error
                }
                Some(Binding::Ref(_)) => {
                    self.err(
                        span,
                        format!("`{name}` is a `&mut` reference; read it as `*{name}`"),
                    );
                    Value::Error
                }
                Some(Binding::Array(_) | Binding::View(_)) => {
                    self.err(
                        span,
                        format!("`{name}` is an array; index it (`{name}[i]`) or take its length"),
                    );
                    Value::Error
                }
                None if self.closure => {
                    self.cx.push(
                        Diagnostic::new(span, format!("a `kernel_closure!` closure cannot capture `{name}`: a kernel runs on the GPU, where the host's variables do not exist"))
                            .note(format!("pass it as a parameter: `|.., {name}: T| ..`, and at launch")),
                    );
                    Value::Error
                }
                None => {
                    self.err(span, format!("cannot find value `{name}` in this kernel"));
                    Value::Error
                }
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
        self.err(span, "paths are not supported in kernels except `T::MAX`, `T::MIN` and `T::BITS` of integer types");
        Value::Error
    }

    fn lower_field(&mut self, f: &syn::ExprField) -> Value {
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
            syn::Expr::Call(c) if c.args.is_empty() => match call_name(c).as_deref() {
                Some("thread_idx") => Builtin::ThreadIdx,
                Some("block_idx") => Builtin::BlockIdx,
                Some("block_dim") => Builtin::BlockDim,
                Some("grid_dim") => Builtin::GridDim,
                Some("global_idx") => Builtin::GlobalIdx,
                _ => {
                    self.err(f.base.src(), "fields can only be read from `thread_idx()`, `block_idx()`, `block_dim()`, `grid_dim()` and `global_idx()`");
                    return Value::Error;
                }
            },
            other => {
                self.err(other.src(), "fields can only be read from `thread_idx()`, `block_idx()`, `block_dim()`, `grid_dim()` and `global_idx()`");
                return Value::Error;
            }
        };
        Value::Expr(self.expr(Expr::Builtin { builtin, axis }, span))
    }

    fn lower_method(&mut self, m: &syn::ExprMethodCall, out: &mut Block) -> Value {
        let span = m.src();
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
            if let syn::Expr::Path(p) = strip_parens(&m.receiver) {
                if let Some(id) = p.path.get_ident() {
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
            let receiver = match self.lower_value(&m.receiver, out) {
                Value::Expr(r) => r,
                other => return other,
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
        self.err(
            m.method.src(),
            format!("the method `{}` is not supported in kernels yet", m.method),
        );
        Value::Error
    }

    fn lower_if_value(&mut self, i: &syn::ExprIf, out: &mut Block) -> Value {
        let span = i.src();
        let Some((_, else_expr)) = &i.else_branch else {
            self.cx.push(
                Diagnostic::new(span, "`if` without `else` has no value")
                    .note("add an `else` arm, or use the `if` as a statement"),
            );
            return Value::Error;
        };
        let cond = match self.lower_value(&i.cond, out) {
            Value::Expr(c) => c,
            other => return other,
        };
        // Fast path: both arms are bare expressions with no statements -> `c ? a : b`.
        let simple_then = simple_tail(&i.then_branch);
        let simple_else = match &**else_expr {
            syn::Expr::Block(b) if b.label.is_none() => simple_tail(&b.block),
            _ => None,
        };
        if let (Some(a), Some(b)) = (simple_then, simple_else) {
            let mut sa = Block::default();
            let mut sb = Block::default();
            let va = self.lower_value(a, &mut sa);
            let vb = self.lower_value(b, &mut sb);
            if sa.stmts.is_empty() && sb.stmts.is_empty() {
                if let (Value::Expr(x), Value::Expr(y)) = (&va, &vb) {
                    return Value::Expr(self.expr(
                        Expr::Select {
                            cond,
                            accept: *x,
                            reject: *y,
                        },
                        span,
                    ));
                }
            }
            if matches!(va, Value::Error) || matches!(vb, Value::Error) {
                return Value::Error;
            }
        }
        // General form: `let tmp; if c { ..; tmp = a } else { ..; tmp = b }`.
        let tmp = self.temp(span);
        out.push(
            Stmt::Let {
                local: tmp,
                init: None,
            },
            span,
        );
        let accept = self.block_into_temp(&i.then_branch, tmp);
        let reject = match &**else_expr {
            syn::Expr::Block(b) => self.block_into_temp(&b.block, tmp),
            other => {
                // `else if ...`
                let mut blk = Block::default();
                match self.lower_value(other, &mut blk) {
                    Value::Expr(v) => blk.push(
                        Stmt::Assign {
                            place: Place::Local(tmp),
                            op: None,
                            value: v,
                        },
                        other.src(),
                    ),
                    Value::Diverges => {}
                    Value::Error => return Value::Error,
                }
                blk
            }
        };
        out.push(
            Stmt::If {
                cond,
                accept,
                reject,
            },
            span,
        );
        Value::Expr(self.expr(Expr::Local(tmp), span))
    }

    fn lower_unsafe_value(&mut self, b: &syn::Block, out: &mut Block, span: Span) -> Value {
        let was = std::mem::replace(&mut self.in_unsafe, true);
        // `unsafe { assume_uniform(v) }` needs no block of its own.
        let simple = match split_tail(b) {
            ([], Some(syn::Expr::Call(c))) if is_call_of(c, "assume_uniform") => Some(c),
            _ => None,
        };
        let v = match simple {
            Some(_) => {
                let mut scratch = Block::default();
                let v = self.lower_block_value(b, &mut scratch, span);
                if scratch.stmts.is_empty() {
                    v
                } else {
                    let tmp = self.temp(span);
                    out.push(
                        Stmt::Let {
                            local: tmp,
                            init: None,
                        },
                        span,
                    );
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
                let tmp = self.temp(span);
                out.push(
                    Stmt::Let {
                        local: tmp,
                        init: None,
                    },
                    span,
                );
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
    fn lower_uniform_load(&mut self, c: &syn::ExprCall, out: &mut Block, span: Span) -> Value {
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
    fn lower_warp(&mut self, c: &syn::ExprCall, op: WarpOp, out: &mut Block, span: Span) -> Value {
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

    fn temp(&mut self, span: Span) -> Handle<Local> {
        self.locals.append(
            Local {
                name: "tmp".into(),
                mutable: false,
                annotated: None,
                origin: LocalOrigin::Temp,
            },
            span,
        )
    }

    /// Lowers `{ stmts; tail }` into a block that ends by assigning `tail` to `tmp`.
    fn block_into_temp(&mut self, b: &syn::Block, tmp: Handle<Local>) -> Block {
        let mut out = Block::default();
        self.scopes.push(HashMap::new());
        let (stmts, tail) = split_tail(b);
        self.lower_stmts(stmts, &mut out, true);
        match tail {
            Some(t) => match self.lower_value(t, &mut out) {
                Value::Expr(v) => out.push(
                    Stmt::Assign {
                        place: Place::Local(tmp),
                        op: None,
                        value: v,
                    },
                    t.src(),
                ),
                Value::Diverges | Value::Error => {}
            },
            None => {
                if !ends_in_jump(b) {
                    self.err(
                        b.src(),
                        "this block has no value: its last expression ends with `;`",
                    );
                }
            }
        }
        self.scopes.pop();
        out
    }

    fn lower_block_value(&mut self, b: &syn::Block, out: &mut Block, span: Span) -> Value {
        let (stmts, tail) = split_tail(b);
        if stmts.is_empty() {
            if let Some(t) = tail {
                self.scopes.push(HashMap::new());
                let v = self.lower_value(t, out);
                self.scopes.pop();
                return v;
            }
        }
        let tmp = self.temp(span);
        out.push(
            Stmt::Let {
                local: tmp,
                init: None,
            },
            span,
        );
        let inner = self.block_into_temp(b, tmp);
        out.push(Stmt::Block(inner), span);
        Value::Expr(self.expr(Expr::Local(tmp), span))
    }
}

fn int_max(t: Scalar) -> i128 {
    match t {
        Scalar::I8 => i128::from(i8::MAX),
        Scalar::I16 => i128::from(i16::MAX),
        Scalar::I32 => i128::from(i32::MAX),
        Scalar::I64 => i128::from(i64::MAX),
        Scalar::U8 => i128::from(u8::MAX),
        Scalar::U16 => i128::from(u16::MAX),
        Scalar::U32 => i128::from(u32::MAX),
        _ => i128::from(u64::MAX),
    }
}

fn int_min(t: Scalar) -> i128 {
    match t {
        Scalar::I8 => i128::from(i8::MIN),
        Scalar::I16 => i128::from(i16::MIN),
        Scalar::I32 => i128::from(i32::MIN),
        Scalar::I64 => i128::from(i64::MIN),
        _ => 0,
    }
}

/// `half::f16`, `half::bf16` (also through `cuphase::half`).
fn half_path(p: &syn::Path) -> Option<Scalar> {
    let names: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    let (last, prefix) = names.split_last()?;
    let t = match last.as_str() {
        "f16" => Scalar::F16,
        "bf16" => Scalar::Bf16,
        _ => return None,
    };
    let ok = match prefix {
        [] => true,
        [h] => h == "half",
        [c, h] => c == "cuphase" && h == "half",
        _ => false,
    };
    ok.then_some(t)
}

/// `f16::from_f32`-style conversions: the half type and the source type the function takes.
fn half_conversion(p: &syn::Path) -> Option<(Scalar, Scalar)> {
    let mut type_path = p.clone();
    let func = type_path.segments.pop()?.into_value().ident.to_string();
    // `pop` leaves a trailing `::`; rebuild the type path from its segments.
    let segs: syn::punctuated::Punctuated<syn::PathSegment, syn::Token![::]> =
        type_path.segments.into_iter().collect();
    let tp = syn::Path {
        leading_colon: None,
        segments: segs,
    };
    let t = half_path(&tp)?;
    let from = match func.as_str() {
        "from_f32" => Scalar::F32,
        "from_f64" => Scalar::F64,
        _ => return None,
    };
    Some((t, from))
}

/// Whether `c` calls a path that is not one of the language's functions: a `#[device]` helper.
fn is_helper_call(c: &syn::ExprCall) -> bool {
    match &*c.func {
        syn::Expr::Path(p) => p.qself.is_none() && !super::helpers::is_builtin(&p.path),
        _ => false,
    }
}

/// The name of the array an index expression `a[i][j]` starts from.
fn index_base(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Index(ix) => index_base(&ix.expr),
        syn::Expr::Paren(p) => index_base(&p.expr),
        syn::Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    }
}

fn strip_parens(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Paren(p) => strip_parens(&p.expr),
        syn::Expr::Group(g) => strip_parens(&g.expr),
        other => other,
    }
}

fn call_name(c: &syn::ExprCall) -> Option<String> {
    match &*c.func {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

fn is_call_of(c: &syn::ExprCall, name: &str) -> bool {
    call_name(c).as_deref() == Some(name)
}

/// The statements of a block and its tail expression (the last one without `;`).
fn split_tail(b: &syn::Block) -> (&[syn::Stmt], Option<&syn::Expr>) {
    match b.stmts.split_last() {
        Some((syn::Stmt::Expr(e, None), rest)) => (rest, Some(e)),
        _ => (&b.stmts[..], None),
    }
}

/// `{ tail }` with nothing else, and `tail` not itself a control-flow expression.
fn simple_tail(b: &syn::Block) -> Option<&syn::Expr> {
    match split_tail(b) {
        ([], Some(t))
            if !matches!(
                t,
                syn::Expr::If(_)
                    | syn::Expr::Block(_)
                    | syn::Expr::Return(_)
                    | syn::Expr::Break(_)
                    | syn::Expr::Continue(_)
            ) =>
        {
            Some(t)
        }
        _ => None,
    }
}

fn is_catch_all(p: &syn::Pat) -> bool {
    matches!(p, syn::Pat::Wild(_)) || binding_name(p).is_some()
}

fn binding_name(p: &syn::Pat) -> Option<&syn::Ident> {
    match p {
        syn::Pat::Ident(pi)
            if pi.subpat.is_none() && pi.by_ref.is_none() && pi.mutability.is_none() =>
        {
            Some(&pi.ident)
        }
        _ => None,
    }
}

fn ends_in_jump(b: &syn::Block) -> bool {
    matches!(
        b.stmts.last(),
        Some(syn::Stmt::Expr(
            syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_),
            _
        ))
    )
}

fn binary_op(op: &syn::BinOp) -> Option<BinaryOp> {
    Some(match op {
        syn::BinOp::Add(_) => BinaryOp::Add,
        syn::BinOp::Sub(_) => BinaryOp::Sub,
        syn::BinOp::Mul(_) => BinaryOp::Mul,
        syn::BinOp::Div(_) => BinaryOp::Div,
        syn::BinOp::Rem(_) => BinaryOp::Rem,
        syn::BinOp::And(_) => BinaryOp::And,
        syn::BinOp::Or(_) => BinaryOp::Or,
        syn::BinOp::BitXor(_) => BinaryOp::BitXor,
        syn::BinOp::BitAnd(_) => BinaryOp::BitAnd,
        syn::BinOp::BitOr(_) => BinaryOp::BitOr,
        syn::BinOp::Shl(_) => BinaryOp::Shl,
        syn::BinOp::Shr(_) => BinaryOp::Shr,
        syn::BinOp::Eq(_) => BinaryOp::Eq,
        syn::BinOp::Lt(_) => BinaryOp::Lt,
        syn::BinOp::Le(_) => BinaryOp::Le,
        syn::BinOp::Ne(_) => BinaryOp::Ne,
        syn::BinOp::Ge(_) => BinaryOp::Ge,
        syn::BinOp::Gt(_) => BinaryOp::Gt,
        _ => return None,
    })
}

fn compound_op(op: &syn::BinOp) -> Option<BinaryOp> {
    Some(match op {
        syn::BinOp::AddAssign(_) => BinaryOp::Add,
        syn::BinOp::SubAssign(_) => BinaryOp::Sub,
        syn::BinOp::MulAssign(_) => BinaryOp::Mul,
        syn::BinOp::DivAssign(_) => BinaryOp::Div,
        syn::BinOp::RemAssign(_) => BinaryOp::Rem,
        syn::BinOp::BitXorAssign(_) => BinaryOp::BitXor,
        syn::BinOp::BitAndAssign(_) => BinaryOp::BitAnd,
        syn::BinOp::BitOrAssign(_) => BinaryOp::BitOr,
        syn::BinOp::ShlAssign(_) => BinaryOp::Shl,
        syn::BinOp::ShrAssign(_) => BinaryOp::Shr,
        _ => return None,
    })
}

/// Parses `#[kernel(...)]` options; re-exported for the front end's entry point.
pub(super) fn parse_options(cx: &mut Ctxt, attr: proc_macro2::TokenStream) -> KernelOptions {
    attr::parse(cx, attr)
}

#[cfg(test)]
mod tests {
    use super::type_text;

    #[test]
    fn types_print_as_written() {
        let cases = [
            ("half::f16", "half::f16"),
            ("&mut [f32; 4]", "&mut [f32; 4]"),
            ("Vec<u32>", "Vec<u32>"),
            (
                "std::collections::HashMap<u32, f32>",
                "std::collections::HashMap<u32, f32>",
            ),
            ("(i32, i64)", "(i32, i64)"),
        ];
        for (src, want) in cases {
            let ty: syn::Type = syn::parse_str(src).unwrap();
            assert_eq!(type_text(&ty), want, "{src}");
        }
    }
}
