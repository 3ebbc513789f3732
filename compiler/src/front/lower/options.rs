//! `Option<T>` of a scalar as a local value: `Some(v)`, `None`, the `checked_*` methods,
//! `let`, assignment, `let Some(x) = o else { .. }`, `if let`, `match`, and the methods that
//! read one (`is_some`, `unwrap_or`, `unwrap`, ...) or make another (`map`, `filter`,
//! `and_then`, `or`, `or_else`).
//!
//! An option is two variables: `<name>_some`, a `bool`, and `<name>`, the value, which holds
//! the zero of its type while the option is `None`, so that every read is of a variable that
//! was assigned (on both back ends). Lowering reads the value only where the flag says
//! `Some`, or to copy it into another option's value; the closures of `map` and the rest run
//! only where Rust runs them.

use super::cx::*;
use super::syntax::*;
use crate::diag::Diagnostic;
use crate::ir::*;

/// An `Option` as two pure expressions, valid after the statements lowering it emitted:
/// whether it is `Some`, and its value (meaningful only where it is).
#[derive(Clone, Copy)]
pub(super) struct OptionParts {
    pub(super) some: Handle<Expr>,
    pub(super) value: Handle<Expr>,
}

/// The result of lowering an `Option` expression.
pub(super) enum Opt {
    Parts(OptionParts),
    /// Control never comes back.
    Diverges,
    /// An error was reported.
    Error,
}

/// Where the value of an `if` or `match` goes.
#[derive(Clone, Copy)]
pub(super) enum Sink {
    /// Nowhere: the `if` or `match` is a statement.
    Discard,
    /// A scalar variable.
    Scalar(Handle<Local>),
    /// An `Option` variable, by index into the lowerer's option variables.
    Option(usize),
}

/// The methods of `Option` kernels support that give another `Option`.
pub(super) const TO_OPTION: &[&str] = &["map", "filter", "and_then", "or", "or_else"];
/// The methods of `Option` kernels support that give a scalar.
pub(super) const TO_SCALAR: &[&str] = &[
    "is_some",
    "is_none",
    "is_some_and",
    "is_none_or",
    "unwrap",
    "expect",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "map_or",
];

pub(super) const UNWRAP_NONE: &str = "called `Option::unwrap()` on a `None` value";

impl Lowerer<'_> {
    /// Whether `e` is an `Option` by its syntax and the names in scope: `Some(..)`, `None`, an
    /// option variable, a `checked_*` call, a method of an option that gives one, or an `if`,
    /// `match` or block whose value is one of these.
    pub(super) fn is_option_expr(&self, e: &syn::Expr) -> bool {
        match strip_parens(e) {
            syn::Expr::Call(c) => is_some_call(c),
            syn::Expr::Path(p) => match p.path.get_ident() {
                Some(i) => match self.lookup(&i.to_string()) {
                    Some(Binding::Option(_)) => true,
                    None => i == "None",
                    _ => false,
                },
                None => false,
            },
            syn::Expr::MethodCall(m) => {
                let name = m.method.to_string();
                CheckedOp::from_method(&name).is_some()
                    || (TO_OPTION.contains(&name.as_str()) && self.is_option_expr(&m.receiver))
            }
            syn::Expr::If(i) => {
                self.block_is_option(&i.then_branch)
                    || i.else_branch
                        .as_ref()
                        .is_some_and(|(_, e)| self.is_option_expr(e))
            }
            syn::Expr::Match(m) => m.arms.iter().any(|a| self.is_option_expr(&a.body)),
            syn::Expr::Block(b) => self.block_is_option(&b.block),
            _ => false,
        }
    }

    fn block_is_option(&self, b: &syn::Block) -> bool {
        split_tail(b).1.is_some_and(|t| self.is_option_expr(t))
    }

    /// The element type of an `Option<T>` annotation: `None` when the type is not an
    /// `Option`, `Some(None)` after an error.
    #[allow(clippy::option_option)]
    pub(super) fn option_type(&mut self, ty: &syn::Type) -> Option<Option<Scalar>> {
        let syn::Type::Path(p) = ty else {
            return None;
        };
        let last = p.path.segments.last()?;
        if last.ident != "Option" || p.qself.is_some() {
            return None;
        }
        let inner = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first() {
                Some(syn::GenericArgument::Type(t)) => Some(t),
                _ => None,
            },
            _ => None,
        };
        let Some(inner) = inner else {
            self.err(ty.src(), "write the value's type: `Option<u32>`");
            return Some(None);
        };
        match type_to_scalar(inner) {
            Some(t) => Some(Some(t)),
            None => {
                self.cx.push(
                    Diagnostic::new(
                        inner.src(),
                        "kernels support `Option` of a scalar type (`Option<u32>`, `Option<f32>`)",
                    )
                    .note("keep a flag and the value in two variables"),
                );
                Some(None)
            }
        }
    }

    /// A new option variable named `name` (its flag is `<name>_some`), not yet declared.
    fn option_var(
        &mut self,
        name: &str,
        mutable: bool,
        elem: Option<Scalar>,
        origin: LocalOrigin,
        span: Span,
    ) -> usize {
        let some = self.locals.append(
            Local {
                name: format!("{name}_some"),
                mutable,
                annotated: Some(Scalar::Bool),
                origin,
            },
            span,
        );
        let value = self.locals.append(
            Local {
                name: name.to_string(),
                mutable,
                annotated: elem,
                origin,
            },
            span,
        );
        self.option_vars.push(OptionVar {
            some,
            value,
            assignable: mutable,
        });
        self.option_vars.len() - 1
    }

    /// A temporary option variable, declared without a value (every path that reads it
    /// assigns it).
    pub(super) fn option_temp(&mut self, span: Span, out: &mut Block) -> usize {
        let var = self.option_var("tmp", true, None, LocalOrigin::Temp, span);
        let OptionVar { some, value, .. } = self.option_vars[var];
        for local in [some, value] {
            out.push(Stmt::Let { local, init: None }, span);
        }
        var
    }

    /// The parts of option variable `var`.
    pub(super) fn var_parts(&mut self, var: usize, span: Span) -> OptionParts {
        let OptionVar { some, value, .. } = self.option_vars[var];
        OptionParts {
            some: self.expr(Expr::Local(some), span),
            value: self.expr(Expr::Local(value), span),
        }
    }

    pub(super) fn none_parts(&mut self, span: Span) -> OptionParts {
        OptionParts {
            some: self.expr(Expr::Literal(Literal::Bool(false)), span),
            value: self.expr(Expr::Literal(Literal::Zero), span),
        }
    }

    /// `e` where it is a variable or a literal (a copy of the node, for a second use), else a
    /// temporary holding it (evaluated here, once).
    pub(super) fn spill(&mut self, e: Handle<Expr>, span: Span, out: &mut Block) -> Handle<Expr> {
        match self.exprs.get(e).clone() {
            simple @ (Expr::Local(_) | Expr::Literal(_)) => self.expr(simple, span),
            _ => {
                let tmp = self.temp(span);
                out.push(
                    Stmt::Let {
                        local: tmp,
                        init: Some(e),
                    },
                    span,
                );
                self.expr(Expr::Local(tmp), span)
            }
        }
    }

    /// The parts of an option in variables (those of `p` where they are variables already),
    /// for a subject that is read more than once.
    pub(super) fn option_in_locals(
        &mut self,
        p: OptionParts,
        span: Span,
        out: &mut Block,
    ) -> OptionVar {
        let mut local_of = |this: &mut Self, e: Handle<Expr>| match this.exprs.get(e) {
            Expr::Local(l) => *l,
            _ => {
                let tmp = this.temp(span);
                out.push(
                    Stmt::Let {
                        local: tmp,
                        init: Some(e),
                    },
                    span,
                );
                tmp
            }
        };
        let some = local_of(self, p.some);
        let value = local_of(self, p.value);
        OptionVar {
            some,
            value,
            assignable: false,
        }
    }

    /// Lowers an `Option` expression.
    pub(super) fn lower_option(&mut self, e: &syn::Expr, out: &mut Block) -> Opt {
        let span = e.src();
        match strip_parens(e) {
            syn::Expr::Call(c) if is_some_call(c) => {
                let (1, Some(arg)) = (c.args.len(), c.args.first()) else {
                    self.err(span, "`Some` takes one value");
                    return Opt::Error;
                };
                match self.lower_value(arg, out) {
                    Value::Expr(value) => Opt::Parts(OptionParts {
                        some: self.expr(Expr::Literal(Literal::Bool(true)), span),
                        value,
                    }),
                    Value::Diverges => Opt::Diverges,
                    Value::Error => Opt::Error,
                }
            }
            syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                let name = p
                    .path
                    .get_ident()
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                match self.lookup(&name) {
                    Some(Binding::Option(var)) => Opt::Parts(self.var_parts(var, span)),
                    None if name == "None" => Opt::Parts(self.none_parts(span)),
                    Some(Binding::Poisoned) => Opt::Error,
                    _ => {
                        self.not_an_option(span);
                        Opt::Error
                    }
                }
            }
            syn::Expr::MethodCall(m) => self.lower_option_method(m, out),
            syn::Expr::If(i) => {
                let var = self.option_temp(span, out);
                if self.lower_if_into(i, Sink::Option(var), out) {
                    Opt::Parts(self.var_parts(var, span))
                } else {
                    Opt::Error
                }
            }
            syn::Expr::Match(m) => {
                let var = self.option_temp(span, out);
                if self.lower_match(m, out, Sink::Option(var)) {
                    Opt::Parts(self.var_parts(var, span))
                } else {
                    Opt::Error
                }
            }
            syn::Expr::Block(b) if b.label.is_none() => {
                let var = self.option_temp(span, out);
                let inner = self.block_into_sink(&b.block, Sink::Option(var));
                out.push(Stmt::Block(inner), span);
                Opt::Parts(self.var_parts(var, span))
            }
            syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_) => {
                self.lower_jump(e, out);
                Opt::Diverges
            }
            _ => {
                self.not_an_option(span);
                Opt::Error
            }
        }
    }

    fn not_an_option(&mut self, span: Span) {
        self.cx.push(
            Diagnostic::new(span, "expected an `Option` here")
                .note("an `Option` in a kernel is `Some(v)`, `None`, an `Option` variable, a `checked_*` call, a method of an `Option` (`map`, `filter`, `and_then`, `or`, `or_else`), or an `if`/`match` of them"),
        );
    }

    /// An `Option` where a scalar is expected: the one error for it.
    pub(super) fn option_as_scalar(&mut self, span: Span) {
        self.cx.push(
            Diagnostic::new(span, "this is an `Option`, not a scalar")
                .note("read it with `if let Some(x) = ..`, `match`, `.unwrap_or(v)`, `.unwrap()`, or bind it: `let o = ..;`"),
        );
    }

    /// Lowers `e` (an `Option`) into option variable `var`; `false` after an error.
    pub(super) fn lower_option_into(&mut self, e: &syn::Expr, var: usize, out: &mut Block) -> bool {
        match self.lower_option(e, out) {
            Opt::Parts(p) => {
                self.store_option(var, p, e.src(), out);
                true
            }
            Opt::Diverges => true,
            Opt::Error => false,
        }
    }

    /// `var = p`: the value first, then the flag, so that each part reads the variable's old
    /// value (`o = o.or(p)`); a flag that reads the old value is kept in a temporary first.
    pub(super) fn store_option(&mut self, var: usize, p: OptionParts, span: Span, out: &mut Block) {
        let OptionVar { some, value, .. } = self.option_vars[var];
        let flag = if self.reads_local(p.some, value) {
            self.spill(p.some, span, out)
        } else {
            p.some
        };
        for (local, e) in [(value, p.value), (some, flag)] {
            out.push(
                Stmt::Assign {
                    place: Place::Local(local),
                    op: None,
                    value: e,
                },
                span,
            );
        }
    }

    fn reads_local(&self, e: Handle<Expr>, l: Handle<Local>) -> bool {
        let expr = self.exprs.get(e);
        matches!(expr, Expr::Local(x) if *x == l)
            || expr.operands().into_iter().any(|o| self.reads_local(o, l))
    }

    /// `let o = <option>;`, `let mut o: Option<T> = ..;` or `let o: Option<T>;`. `false` when
    /// the `let` is not of an `Option` (nothing is lowered).
    pub(super) fn try_option_let(
        &mut self,
        ident: &syn::Ident,
        mutable: bool,
        annotated: Option<&syn::Type>,
        init: Option<&syn::Expr>,
        out: &mut Block,
        span: Span,
    ) -> bool {
        let annotation = annotated.map(|t| (t, self.option_type(t)));
        let init_option = init.is_some_and(|e| self.is_option_expr(e));
        let name = ident.to_string();
        let elem = match annotation {
            None if !init_option => return false,
            Some((_, None)) if !init_option => return false,
            Some((ty, None)) => {
                self.err(
                    ty.src(),
                    "the value is an `Option`: annotate `Option<T>`, or leave the type out",
                );
                self.bind(name, Binding::Poisoned);
                return true;
            }
            // (Reported.)
            Some((_, Some(None))) => {
                self.bind(name, Binding::Poisoned);
                return true;
            }
            Some((_, Some(elem))) => elem,
            None => None,
        };
        let parts = match init {
            Some(e) => match self.lower_option(e, out) {
                Opt::Parts(p) => Some(p),
                Opt::Diverges => return true,
                Opt::Error => {
                    self.bind(name, Binding::Poisoned);
                    return true;
                }
            },
            None => None,
        };
        // `let o = <an option lowering left in temporaries>`: they become `o` and `o_some`.
        if let Some(p) = parts {
            if let (Expr::Local(s), Expr::Local(v)) = (
                self.exprs.get(p.some).clone(),
                self.exprs.get(p.value).clone(),
            ) {
                let temps = [s, v]
                    .iter()
                    .all(|l| self.locals.get(*l).origin == LocalOrigin::Temp);
                let fits = match (elem, self.locals.get(v).annotated) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                };
                if temps && fits && s != v {
                    for (l, n) in [(s, format!("{name}_some")), (v, name.clone())] {
                        self.locals.get_mut(l).name = n;
                    }
                    if elem.is_some() {
                        self.locals.get_mut(v).annotated = elem;
                    }
                    self.option_vars.push(OptionVar {
                        some: s,
                        value: v,
                        assignable: mutable,
                    });
                    let var = self.option_vars.len() - 1;
                    self.bind(name, Binding::Option(var));
                    return true;
                }
            }
        }
        // `let o: Option<u32>;` is assigned later, as in Rust (each path may assign it).
        let var = self.option_var(
            &name,
            mutable || parts.is_none(),
            elem,
            LocalOrigin::Let,
            ident.src(),
        );
        let OptionVar { some, value, .. } = self.option_vars[var];
        out.push(
            Stmt::Let {
                local: value,
                init: parts.map(|p| p.value),
            },
            span,
        );
        out.push(
            Stmt::Let {
                local: some,
                init: parts.map(|p| p.some),
            },
            span,
        );
        self.bind(name, Binding::Option(var));
        true
    }
}

impl Lowerer<'_> {
    /// `o = <option>;` where `o` is an option variable; `false` when `a` assigns something
    /// else.
    pub(super) fn try_option_assign(&mut self, a: &syn::ExprAssign, out: &mut Block) -> bool {
        let syn::Expr::Path(p) = strip_parens(&a.left) else {
            return false;
        };
        let Some(ident) = p.path.get_ident() else {
            return false;
        };
        let name = ident.to_string();
        let Some(Binding::Option(var)) = self.lookup(&name) else {
            return false;
        };
        let some = self.option_vars[var].some;
        if !self.option_vars[var].assignable {
            let decl = self.locals.span(some);
            self.cx.push(
                Diagnostic::new(
                    a.left.src(),
                    format!("cannot assign twice to immutable variable `{name}`"),
                )
                .label(decl, format!("`{name}` is declared here"))
                .note(format!("declare it `let mut {name}`")),
            );
            return true;
        }
        self.lower_option_into(&a.right, var, out);
        true
    }
}

/// `Some(..)`.
pub(super) fn is_some_call(c: &syn::ExprCall) -> bool {
    matches!(&*c.func, syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident("Some"))
}
