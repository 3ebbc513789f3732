//! Inlining one call: a helper's (its arguments, its body in a scope of its own, early
//! `return`, the trailing barrier) or a local closure's (the bindings where it was written).

use super::*;
use crate::diag::Diagnostic;
use crate::front::generics::substitute;
use crate::front::helpers::path_key;
use crate::front::lower::cx::*;
use crate::front::lower::syntax::*;
use crate::ir::*;
use quote::ToTokens;
use std::collections::HashMap;

impl Lowerer<'_> {
    /// A call of a helper; `want_value` when the call stands where a value is needed.
    pub(in crate::front::lower) fn lower_call(
        &mut self,
        c: &syn::ExprCall,
        out: &mut Block,
        span: Span,
        want_value: bool,
    ) -> Value {
        // Whether the caller takes a struct result (taken before the arguments, whose own
        // calls take none).
        let takes_record = self.record_call.take().is_some();
        // Likewise whether it takes an array result (`let a = f(..);`).
        let takes_array = self.array_call.take().is_some();
        let syn::Expr::Path(p) = &*c.func else {
            return Value::Error;
        };
        match p.path.get_ident().and_then(|i| self.lookup(&i.to_string())) {
            Some(Binding::Closure(idx)) => {
                return self.lower_closure_call(idx, c, out, span, want_value)
            }
            Some(Binding::Poisoned) => return Value::Error,
            Some(Binding::Local(_) | Binding::Shared(_) | Binding::Ref(_) | Binding::Elem(_)) => {
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
        let record_ret = match &func.sig.output {
            syn::ReturnType::Type(_, ty) => match self.record_of_type(ty) {
                Some(Ok(r)) => Some(r),
                Some(Err(why)) => {
                    self.err(ty.src(), why);
                    return Value::Error;
                }
                None => None,
            },
            syn::ReturnType::Default => None,
        };
        // An array result: the array the body's value is copied into.
        let array_ret = match &func.sig.output {
            syn::ReturnType::Type(_, ty) if matches!(&**ty, syn::Type::Array(_)) => {
                match self.array_result(&hname, ty) {
                    Some(a) => Some(a),
                    None => return Value::Error,
                }
            }
            _ => None,
        };
        if want_value && array_ret.is_some() && !takes_array {
            self.err(
                span,
                format!("`{hname}` returns an array; bind it (`let a = {hname}(..);`), then use its elements"),
            );
            return Value::Error;
        }
        if want_value && record_ret.is_some() != takes_record {
            let what = if takes_record {
                format!("a struct is needed here, but `{hname}` returns no struct")
            } else {
                format!("`{hname}` returns a struct; bind it (`let p = {hname}(..);`) or assign it whole, then use its fields")
            };
            self.err(span, what);
            return Value::Error;
        }
        // A struct result: its variable, one per field, assigned by the body.
        let record_result = record_ret.map(|rec| {
            let v = self.record_result_variable(&hname, rec, span, out);
            (rec, v)
        });
        let ret = match &func.sig.output {
            syn::ReturnType::Default => None,
            syn::ReturnType::Type(..) if record_ret.is_some() || array_ret.is_some() => None,
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
        if want_value && ret.is_none() && record_ret.is_none() && array_ret.is_none() {
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
        let record_result = record_result.map(|(_, v)| v);
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
            record_result,
            array_result: array_ret,
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
            (Some(t), None) if array_ret.is_some() => {
                if let Some(a) = array_ret {
                    self.assign_array_result(a, &hname, t, &mut body);
                }
            }
            (None, None) if array_ret.is_some() && !ends_in_jump(&func.block) => {
                self.err(
                    func.block.src(),
                    format!("`{hname}` must end with the value it returns"),
                );
            }
            (Some(t), None) if record_ret.is_some() => {
                if let (Some(v), Some(rec)) = (record_result, record_ret) {
                    self.assign_record_result(v, rec, t, &mut body);
                }
            }
            (None, None) if record_ret.is_some() && !ends_in_jump(&func.block) => {
                self.err(
                    func.block.src(),
                    format!("`{hname}` must end with the value it returns"),
                );
            }
            (Some(t), Some(_)) => {
                if let Value::Expr(v) = self.lower_value(t, &mut body) {
                    value = Some((v, t.src()));
                }
            }
            (Some(t), None) => self.lower_stmt_expr(t, &mut body),
            (None, Some(_)) => {
                if !ends_in_jump(&func.block) {
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
        // A value no one uses (`f(x);`) is evaluated and dropped, with no variable to hold it.
        // (A variable or a literal has nothing to evaluate.)
        if let (None, false, Some((v, vspan))) = (result, want_value, value) {
            if !matches!(self.exprs.get(v), Expr::Local(_) | Expr::Literal(_)) {
                body.push(Stmt::Eval(v), vspan);
            }
            value = None;
        }
        let result = match (result, ret) {
            (Some(r), _) => Some(r),
            (None, Some(t)) if want_value => Some(make_result(self, t)),
            (None, _) => None,
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
        if let Some(a) = array_ret {
            if takes_array {
                self.array_call = Some(Some(a));
            }
            return Value::Error;
        }
        if let Some(v) = record_result {
            if takes_record {
                self.record_call = Some(Some(v));
            }
            return Value::Error;
        }
        match result {
            Some(r) => Value::Expr(self.expr(Expr::Local(r), span)),
            None => Value::Error,
        }
    }

    /// A call of a local closure: inlined, its body seeing the bindings of where it was
    /// written (so captured variables are the same variables) and its parameters.
    pub(in crate::front::lower) fn lower_closure_call(
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
            record_result: None,
            array_result: None,
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
                let ends = matches!(&*def.expr.body, syn::Expr::Block(b) if ends_in_jump(&b.block));
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
    pub(in crate::front::lower) fn lower_helper_return(
        &mut self,
        r: &syn::ExprReturn,
        out: &mut Block,
        span: Span,
    ) {
        let Some(frame) = self.calls.last() else {
            return;
        };
        let (name, result) = (frame.name.clone(), frame.result);
        if let (Some(v), Some(a)) = (&r.expr, frame.array_result) {
            self.assign_array_result(a, &name, v, out);
            self.break_to_exit(&name, span, out);
            return;
        }
        if let (Some(v), Some(rv)) = (&r.expr, frame.record_result) {
            let rec = self.record_values[rv].record;
            self.assign_record_result(rv, rec, v, out);
            self.break_to_exit(&name, span, out);
            return;
        }
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
        self.break_to_exit(&name, span, out);
    }

    /// The jump out of the inlined body of helper `name` (its label made on first use).
    fn break_to_exit(&mut self, name: &str, span: Span, out: &mut Block) {
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
}
