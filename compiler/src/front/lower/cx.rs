//! The lowerer's state: the arenas being filled, the scopes of names, the loops and the
//! inlined calls being lowered, and the few methods every other file uses.

use crate::diag::Ctxt;
use crate::front::consts::ModuleConsts;
use crate::front::helpers::Helpers;
use crate::ir::*;
use std::collections::HashMap;

/// The result of lowering an expression in value position.
pub(super) enum Value {
    /// The expression's value.
    Expr(Handle<Expr>),
    /// Control never comes back (`return`, `break`, `continue`).
    Diverges,
    /// An error was reported.
    Error,
}

/// `start`, `end` and the optional `step_by` of a loop range.
pub(super) struct RangeParts {
    pub(super) start: Handle<Expr>,
    pub(super) end: Handle<Expr>,
    pub(super) step: Option<Handle<Expr>>,
    /// `a..=b`.
    pub(super) inclusive: bool,
    /// `.rev()`, and where it stands relative to `.step_by`.
    pub(super) reverse: Option<Reverse>,
}

#[derive(Clone, Copy)]
pub(super) enum Binding {
    Local(Handle<Local>),
    Array(Handle<Array>),
    /// A helper's `&[T]` parameter bound to a writable array: reads only.
    View(Handle<Array>),
    /// A helper's `&mut T` parameter bound to a caller's variable, used as `*p`.
    Ref(Handle<Local>),
    /// A helper's `&mut T` parameter bound to an element of a caller's array
    /// (`&mut s[i]`), used as `*p`: by index into the lowerer's borrowed elements.
    Elem(usize),
    /// A sub-slice `&a[s..]` of an array: by index into the lowerer's sub-slices.
    Sub(usize),
    /// `const B: usize = 64;` in the body, of an integer type and a value known from literals
    /// and other constants: uses are that literal, and array lengths may name it.
    Const(Scalar, i128),
    /// `let g = global_idx();`: a name for an index builtin, whose components (`g.x`) are
    /// the builtin's (the same in every read: a thread's ids do not change).
    Dim3(Builtin),
    /// A name whose declaration was reported as an error: uses report nothing more.
    Poisoned,
    /// A local closure, by index into the lowerer's closures.
    Closure(usize),
    /// A `&[P]` parameter of structs, by index into the lowerer's record slices.
    Records(usize),
    /// A struct variable, by index into the lowerer's record values.
    Record(usize),
    /// An `Option` variable, by index into the lowerer's option variables.
    Option(usize),
    /// A `&T` to a copy of a value (the element of `for v in a.iter()`, the parameter of
    /// `filter`'s closure): read as `v` or `*v`, never assigned.
    Shared(Handle<Local>),
}

/// A sub-slice: its array and the variable holding its start (a `usize`).
#[derive(Clone, Copy, Debug)]
pub(super) struct SubSlice {
    pub(super) array: Handle<Array>,
    pub(super) start: Handle<Local>,
    /// Taken `&mut` of a writable array.
    pub(super) writable: bool,
}

/// A `&[P]` or `&mut [P]` parameter: its struct and one array per leaf.
#[derive(Clone, Debug)]
pub(super) struct RecordSlice {
    pub(super) record: usize,
    pub(super) leaves: Vec<Handle<Array>>,
    pub(super) name: String,
    pub(super) mutable: bool,
}

/// A struct variable: one local per leaf.
#[derive(Clone, Debug)]
pub(super) struct RecordValue {
    pub(super) record: usize,
    pub(super) leaves: Vec<Handle<Local>>,
    pub(super) name: String,
    pub(super) mutable: bool,
}

/// An `Option` variable: its flag and its value.
#[derive(Clone, Copy, Debug)]
pub(super) struct OptionVar {
    pub(super) some: Handle<Local>,
    pub(super) value: Handle<Local>,
    /// The name may be assigned again: declared `mut`, or declared without a value (`let o:
    /// Option<u32>;`). Temporaries, whose variables lowering assigns, are not.
    pub(super) assignable: bool,
}

/// A local closure: its syntax and the bindings it sees (those where it was written).
#[derive(Clone)]
pub(super) struct ClosureDef {
    pub(super) expr: syn::ExprClosure,
    pub(super) scopes: Vec<HashMap<String, Binding>>,
}

/// One inlined helper (or local closure) call being lowered.
pub(super) struct CallFrame {
    /// Index into the kernel's [`Helpers`](crate::front::helpers::Helpers); `None` for a closure.
    pub(super) helper: Option<usize>,
    /// The helper whose callee table resolves calls in this body (a closure's is its
    /// enclosing helper's).
    pub(super) resolve_in: Option<usize>,
    /// The call's span.
    pub(super) span: Span,
    /// The helper's name.
    pub(super) name: String,
    /// The variable that receives the result (none for helpers returning `()` or a struct).
    pub(super) result: Option<Handle<Local>>,
    /// The struct variable that receives a struct result, by index into the record values.
    pub(super) record_result: Option<usize>,
    /// The thread-local array that receives an array result.
    pub(super) array_result: Option<Handle<Array>>,
    /// The label an early `return` breaks out of, once one needs it.
    pub(super) exit: Option<Handle<Label>>,
    /// Whether the helper (or one it calls) writes shared memory.
    pub(super) wrote_shared: bool,
}

pub(super) struct LoopFrame {
    pub(super) label: Option<(String, Handle<Label>)>,
    /// For `for i in a..b` with literal bounds: the variable and the values it takes,
    /// `lo..hi` (Rust's range never leaves them, and the variable is not `mut`).
    pub(super) range: Option<(Handle<Local>, i128, i128)>,
}

pub(super) struct Lowerer<'c> {
    pub(super) cx: &'c mut Ctxt,
    pub(super) helpers: &'c Helpers,
    pub(super) calls: Vec<CallFrame>,
    /// The kernel is a `kernel_closure!` closure.
    pub(super) closure: bool,
    /// Local closures (`let f = |x| ..;`), inlined at each call.
    pub(super) closures: Vec<ClosureDef>,
    /// The array elements borrowed by `&mut a[i]` arguments: the array, and the variables
    /// that hold the indices (evaluated once, when the element is borrowed).
    pub(super) borrows: Vec<(Handle<Array>, Vec<Handle<Local>>)>,
    /// The sub-slices taken (`&a[s..]`).
    pub(super) subs: Vec<SubSlice>,
    /// The user structs the kernel uses, as the kernel's `records`.
    pub(super) records: Vec<Record>,
    /// The `&[P]` parameters of structs.
    pub(super) record_slices: Vec<RecordSlice>,
    /// The struct variables.
    pub(super) record_values: Vec<RecordValue>,
    /// The `Option` variables.
    pub(super) option_vars: Vec<OptionVar>,
    /// Set while lowering a call whose struct result the caller takes
    /// ([`Lowerer::lower_record_value`]); the call leaves its result variable here.
    pub(super) record_call: Option<Option<usize>>,
    /// Set while lowering `let a = f(..);`: a call whose result is an array leaves the array
    /// here (a call of a helper returning a scalar ignores it).
    pub(super) array_call: Option<Option<Handle<Array>>>,
    /// The kernel's const generic parameters.
    pub(super) const_params: Vec<String>,
    /// The const parameter that sizes the shared array being declared.
    pub(super) pending_len_param: Option<String>,
    /// The module constants the body reads, as parameters, in order of first use.
    pub(super) module_consts: Vec<Param>,
    /// The initialiser of each `let`, for guessing a generic helper's type arguments.
    pub(super) let_inits: HashMap<Handle<Local>, Handle<Expr>>,
    pub(super) arrays: Arena<Array>,
    pub(super) locals: Arena<Local>,
    pub(super) exprs: Arena<Expr>,
    pub(super) labels: Arena<Label>,
    pub(super) barriers: Vec<Barrier>,
    pub(super) in_unsafe: bool,
    pub(super) scopes: Vec<HashMap<String, Binding>>,
    pub(super) loops: Vec<LoopFrame>,
    /// The integer constants of the kernel's file.
    pub(super) consts: &'c ModuleConsts,
    /// The constants whose values the kernel uses.
    pub(super) assumed: Vec<AssumedConst>,
    /// Inside the right operand of a shift (nesting depth).
    pub(super) shift_amount: usize,
}

impl Lowerer<'_> {
    /// The value of an integer expression of literals and module constants known from the
    /// kernel's file (the constants it uses are recorded, for the glue to assert).
    pub(super) fn module_const_value(&mut self, e: &syn::Expr) -> Option<i128> {
        let mut used = Vec::new();
        // A `const` of the body is known; a const parameter, or a variable, of the name
        // shadows the module's constant.
        let v = crate::front::consts::eval_by(e, &mut |n| match self.lookup(n) {
            Some(Binding::Const(_, v)) => Some(v),
            Some(_) => None,
            None if self.const_params.iter().any(|c| c == n) => None,
            None => {
                let (_, v) = self.consts.get(n)?;
                used.push(n.to_string());
                Some(v)
            }
        })?;
        for name in used {
            let (_, value) = self.consts.get(&name)?;
            self.assumed.push(AssumedConst {
                name,
                value,
                span: e.src(),
                expr: None,
            });
        }
        Some(v)
    }

    /// The literal that stands for module constant `name`, whose value the kernel's file
    /// gives, at a use (recorded for the glue to check the constant's value and the use's type).
    pub(super) fn known_const(
        &mut self,
        name: &str,
        value: i128,
        suffix: Option<Scalar>,
        span: Span,
    ) -> Handle<Expr> {
        let lit = self.expr(Expr::Literal(Literal::Int { value, suffix }), span);
        self.assumed.push(AssumedConst {
            name: name.to_string(),
            value,
            span,
            expr: Some(lit),
        });
        lit
    }

    /// The variable that holds module constant `name` (made on its first use), with the type
    /// `annotated` where the use fixes it (an array length is a `usize`).
    pub(super) fn module_const(
        &mut self,
        name: &str,
        span: Span,
        annotated: Option<Scalar>,
    ) -> Handle<Local> {
        self.module_const_of(name, span, annotated, ParamSource::ModuleConst)
    }

    /// The variable that holds the value a `kernel_closure!` closure captures as `name`
    /// (made on its first use); inference finds its type.
    pub(super) fn capture(&mut self, name: &str, span: Span) -> Handle<Local> {
        self.module_const_of(name, span, None, ParamSource::Capture)
    }

    /// The variable that holds `name as to` of a variable a closure captures: the host
    /// computes the cast, so the variable's own type need not be known here.
    pub(super) fn capture_as(&mut self, name: &str, span: Span, to: Scalar) -> Handle<Local> {
        self.module_const_of(name, span, Some(to), ParamSource::CaptureAs(to))
    }

    /// The variable that holds `name as to` of module constant `name`: the host computes the
    /// cast, so the constant's own type need not be known here.
    pub(super) fn module_const_as(&mut self, name: &str, span: Span, to: Scalar) -> Handle<Local> {
        self.module_const_of(name, span, Some(to), ParamSource::ModuleConstAs(to))
    }

    /// The variable that holds the length a shared array's type computes from constants
    /// (`text` is the expression's Rust text; the host evaluates it).
    pub(super) fn array_length(&mut self, text: &str, span: Span) -> Handle<Local> {
        self.module_const_of(text, span, Some(Scalar::Usize), ParamSource::ArrayLength)
    }

    fn module_const_of(
        &mut self,
        name: &str,
        span: Span,
        annotated: Option<Scalar>,
        source: ParamSource,
    ) -> Handle<Local> {
        if let Some(p) = self
            .module_consts
            .iter()
            .find(|p| p.name == name && p.source == source)
        {
            if let ParamKind::Scalar { local, .. } = p.kind {
                if annotated.is_some() && self.locals.get(local).annotated.is_none() {
                    self.locals.get_mut(local).annotated = annotated;
                }
                return local;
            }
        }
        let local_name = match source {
            ParamSource::ModuleConstAs(to) | ParamSource::CaptureAs(to) => {
                format!("{name}_as_{}", to.rust_name())
            }
            ParamSource::ArrayLength => "len".to_string(),
            _ => name.to_string(),
        };
        let local = self.locals.append(
            Local {
                name: local_name,
                mutable: false,
                annotated,
                origin: LocalOrigin::ModuleConst,
            },
            span,
        );
        self.module_consts.push(Param {
            name: name.to_string(),
            // The type is the one inference finds (`front::check_kernel` writes it here).
            kind: ParamKind::Scalar {
                local,
                ty: annotated.unwrap_or(Scalar::I32),
            },
            span,
            source,
        });
        local
    }

    pub(super) fn err(&mut self, span: impl Into<Span>, msg: impl Into<String>) {
        self.cx.error(span.into(), msg);
    }

    pub(super) fn expr(&mut self, e: Expr, span: Span) -> Handle<Expr> {
        self.exprs.append(e, span)
    }

    pub(super) fn bind(&mut self, name: String, b: Binding) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name, b);
        }
    }

    pub(super) fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }

    /// Whether `e` is the variable of an enclosing `for` loop whose values all lie in `0..len`.
    pub(super) fn loop_var_below(&self, e: Handle<Expr>, len: u64) -> bool {
        let Expr::Local(l) = *self.exprs.get(e) else {
            return false;
        };
        self.loops.iter().any(|f| {
            f.range
                .is_some_and(|(v, lo, hi)| v == l && lo >= 0 && hi <= i128::from(len))
        })
    }

    pub(super) fn enter_loop(&mut self, label: Option<&syn::Label>) -> Option<Handle<Label>> {
        let l = label.map(|l| {
            let name = l.name.ident.to_string();
            let h = self.labels.append(Label { name: name.clone() }, l.src());
            (name, h)
        });
        let h = l.as_ref().map(|(_, h)| *h);
        self.loops.push(LoopFrame {
            label: l,
            range: None,
        });
        h
    }

    /// `let name = init;` (`mut` where `mutable`) pushed to `out`, and the name bound: as a
    /// `&T` to the copy where `shared` (read as `v` or `*v`, never assigned).
    pub(super) fn bind_copy(
        &mut self,
        name: &syn::Ident,
        mutable: bool,
        init: Handle<Expr>,
        shared: bool,
        out: &mut Block,
    ) {
        let h = self.locals.append(
            Local {
                name: name.to_string(),
                mutable,
                annotated: None,
                origin: LocalOrigin::Let,
            },
            name.src(),
        );
        self.let_inits.insert(h, init);
        out.push(
            Stmt::Let {
                local: h,
                init: Some(init),
            },
            name.src(),
        );
        let b = if shared {
            Binding::Shared(h)
        } else {
            Binding::Local(h)
        };
        self.bind(name.to_string(), b);
    }

    /// Whether `e` names a binding whose declaration was reported (its uses report nothing).
    pub(super) fn is_poisoned(&self, e: &syn::Expr) -> bool {
        matches!(super::syntax::strip_parens(e), syn::Expr::Path(p) if p.path.get_ident().is_some_and(|i| matches!(self.lookup(&i.to_string()), Some(Binding::Poisoned))))
    }

    /// A temporary declared here without a value (each path that reads it assigns it).
    pub(super) fn declared_temp(&mut self, span: Span, out: &mut Block) -> Handle<Local> {
        let tmp = self.temp(span);
        out.push(
            Stmt::Let {
                local: tmp,
                init: None,
            },
            span,
        );
        tmp
    }

    pub(super) fn temp(&mut self, span: Span) -> Handle<Local> {
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
}
